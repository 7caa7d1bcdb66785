"""The numerics theory's logarithms group: log, log1p, log1mexp and softplus through log (see
:mod:`relations.rules.numerics`).

Herbie's logarithm rules with their sign conditions as guards (the log of a product or a
quotient splits where one factor is positive; the log of a power where the base is), the
inverses of ``exp`` and ``expm1``, ``log1p`` in the spellings graphs have, and the stable
forms of the log of a sum of exponentials, of a logistic function and of one minus an
exponential.  docs/numerics_logarithms.md explains each entry under its name.
"""

from __future__ import annotations

import math

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_constant, nonnegative, nonpositive, nonzero, positive, real, within

__all__ = ["FAMILY"]

a, b, c = p.var("a"), p.var("b"), p.var("c")
floats = real(a) & real(b)
one_positive = positive(a) | positive(b)

#: The group's family.
FAMILY = Family("numerics_logarithms", docs="numerics_logarithms.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite


def _logaddexp(x: p.Node, y: p.Node) -> p.Node:
    """``logaddexp(x, y)`` written out, ``max(x, y) + log1p(exp(-|x - y|))`` (PyTensor has no scalar Op of it)."""
    return p.add(p.maximum(x, y), p.log1p(p.exp(p.neg(p.abs(p.sub(x, y))))))


# the inverses of exp (Herbie's rem-log-exp, rem-exp-log)
rw("rem_log_exp", p.log(p.exp(a)), a, real(a), "``log(exp(a))`` is ``a``.")
rw("rem_exp_log", p.exp(p.log(a)), a, real(a) & nonnegative(a), "``exp(log(a))`` is ``a`` for ``a >= 0``.")
# products, quotients, reciprocals, powers (log-prod, log-div, log-rec, log-pow, with their conditions)
eq("log_prod", p.log(p.mul(a, b)), p.add(p.log(a), p.log(b)), floats & one_positive,
   "The log of a product is a sum of logs where one factor is positive.")
eq("log_div", p.log(p.true_div(a, b)), p.sub(p.log(a), p.log(b)), floats & one_positive,
   "The log of a quotient is a difference of logs where one operand is positive.")
eq("log_rec", p.log(p.reciprocal(a)), p.neg(p.log(a)), real(a), "``log(1 / a)`` is ``-log(a)``.")
eq("log_rec_div", p.log(p.true_div(1, a)), p.neg(p.log(a)), real(a),
   "``log(1 / a)``, written as a division, is ``-log(a)``.")
eq("log_pow", p.log(p.pow(a, b)), p.mul(b, p.log(a)), floats & positive(a),
   "The log of a power of a positive base is the exponent times the base's log.")
eq("log_sqr", p.log(p.sqr(a)), p.mul(2, p.log(p.abs(a))), real(a), "``log(sqr(a))`` is ``2 * log(|a|)``.")
eq("log_sqrt", p.log(p.sqrt(a)), p.mul(0.5, p.log(a)), real(a), "``log(sqrt(a))`` is ``0.5 * log(a)``.")
eq("log_mul_exp", p.log(p.mul(p.exp(a), b)), p.add(a, p.log(b)), floats,
   "The log of an exponential times a value is the exponent plus the value's log.")
eq("log_div_exp", p.log(p.true_div(a, p.exp(b))), p.sub(p.log(a), b), floats,
   "The log of a value over an exponential is the value's log minus the exponent.")
eq("log_exp_div", p.log(p.true_div(p.exp(a), b)), p.sub(a, p.log(b)), floats,
   "The log of an exponential over a value is the exponent minus the value's log.")
# log1p (log1p-def in its spellings) and its inverse expm1
eq("log1p_def", p.log(p.add(1, a)), p.log1p(a), real(a), "``log(1 + a)`` is ``log1p(a)``.")
eq("log1p_def_r", p.log(p.add(a, 1)), p.log1p(a), real(a), "``log(a + 1)`` is ``log1p(a)``.")
eq("log1p_def_neg", p.log(p.sub(1, a)), p.log1p(p.neg(a)), real(a), "``log(1 - a)`` is ``log1p(-a)``.")
eq("log1p_sub1", p.log1p(p.sub(a, 1)), p.log(a), real(a), "``log1p(a - 1)`` is ``log(a)``.")
eq("log1p_add_neg1", p.log1p(p.add(a, -1)), p.log(a), real(a), "``log1p(a + (-1))`` is ``log(a)``.")
rw("log1p_expm1", p.log1p(p.expm1(a)), a, real(a), "``log1p(expm1(a))`` is ``a``.")
rw("expm1_log1p", p.expm1(p.log1p(a)), a, real(a) & within(a, -1, math.inf),
   "``expm1(log1p(a))`` is ``a`` for ``a >= -1``.")
# the log of a sum of exponentials, softplus, the log-logistic
eq("softplus_log_def", p.log(p.add(1, p.exp(a))), p.softplus(a), real(a), "``log(1 + exp(a))`` is ``softplus(a)``.")
eq("softplus_log_def_r", p.log(p.add(p.exp(a), 1)), p.softplus(a), real(a),
   "``log(exp(a) + 1)`` is ``softplus(a)``.")
eq("log_add_exp", p.log(p.add(p.exp(a), p.exp(b))), p.add(a, p.log1p(p.exp(p.sub(b, a)))), floats,
   "``log(exp(a) + exp(b))`` is ``a + log1p(exp(b - a))``.")
eq("log_add_exp_softplus", p.log(p.add(p.exp(a), p.exp(b))), p.add(a, p.softplus(p.sub(b, a))), floats,
   "``log(exp(a) + exp(b))`` is ``a + softplus(b - a)``: exact where ``a`` is the larger.")
eq("log_sigmoid", p.log(p.sigmoid(a)), p.neg(p.softplus(p.neg(a))), real(a),
   "``log(sigmoid(a))`` is ``-softplus(-a)``.")
eq("log_sigmoid_diff", p.log(p.sigmoid(a)), p.sub(a, p.softplus(a)), real(a),
   "``log(sigmoid(a))`` is ``a - softplus(a)``.")
eq("log1m_sigmoid", p.log(p.sub(1, p.sigmoid(a))), p.neg(p.softplus(a)), real(a),
   "``log(1 - sigmoid(a))`` is ``-softplus(a)``.")
eq("log1p_neg_sigmoid", p.log1p(p.neg(p.sigmoid(a))), p.neg(p.softplus(a)), real(a),
   "``log1p(-sigmoid(a))`` is ``-softplus(a)``.")
eq("softplus_sub", p.sub(p.softplus(a), a), p.softplus(p.neg(a)), real(a),
   "``softplus(a) - a`` is ``softplus(-a)``.")
eq("softplus_add", p.softplus(a), p.add(a, p.softplus(p.neg(a))), real(a),
   "``softplus(a)`` is ``a + softplus(-a)``.")
# the log of an exponential and a value of either sign (pytensor #2327): a regime on the value's sign, each
# branch's inputs clamped so neither the value nor the gradient of the branch not taken is inf or NaN, and no
# branch holding the left side again with new terms (saturation would nest regimes without end)
_pos, _neg = p.gt(b, 0), p.lt(b, 0)
_lb = p.log(p.switch(_pos, b, 1))
_log_add = p.switch(_pos, _logaddexp(a, _lb),
                    p.switch(_neg, p.add(a, p.log1mexp(p.sub(p.log(p.neg(p.switch(_neg, b, -1))), a))), p.add(a, b)))
_either = floats & ~nonnegative(b)  # a sign the analysis does not know (``2 * exp(x)`` is known: logaddexp's)
rw("log_add_exp_regimes", p.log(p.add(p.exp(a), b)), _log_add, _either,
   "``log(exp(a) + b)`` as ``logaddexp(a, log(b))`` for ``b > 0`` (no overflow at large ``a``, no digit lost "
   "where ``exp(a)`` is tiny next to ``b``), ``a + log1mexp(log(-b) - a)`` for ``b < 0``, ``a + b`` (``a``, or "
   "NaN) otherwise.")
rw("log_add_exp_regimes_r", p.log(p.add(b, p.exp(a))), _log_add, _either,
   "``log(b + exp(a))``: ``log_add_exp_regimes`` in the other operand order (canonicalize keeps an input first).")
# the log of a sum of two terms of one sign (a zero-inflated likelihood at 0, ``log((1 - psi) + psi * exp(-mu))``):
# where ``b`` underflows, ``log(a + b)`` loses it whole (``-inf`` at ``psi = 1``, ``mu = 800``), where ``b`` is tiny
# next to ``a`` it loses its digits; ``logaddexp(log(a), log(b))`` reads the logs, whose rules read the factors
# (``log(psi) - mu``).  The regime reads the operands' signs (``sign(psi * exp(-mu))`` is 1 where the product
# underflows); the logs are not clamped (the rules of ``log`` read ``a`` and ``b``), so the branch not taken reads
# ``log`` of a negative or 0 only where the sum is as written.
_log_a, _log_b = p.log(a), p.log(b)
_one_sign = p.and_(p.ge(p.sign(a), 0), p.gt(p.sign(b), 0))
rw("log_add_sign_regimes", p.log(p.add(a, b)),
   p.switch(_one_sign, _logaddexp(_log_a, _log_b), p.log(p.add(a, b))),
   floats & ~is_constant(a) & ~is_constant(b),
   "``log(a + b)`` as ``logaddexp(log(a), log(b))`` where ``a >= 0`` and ``b > 0`` (neither lost where ``b`` "
   "underflows or is tiny next to ``a``), as written elsewhere.")
rw("log_sub_exp_regimes", p.log(p.sub(b, p.exp(a))),
   p.switch(_pos, p.add(_lb, p.log1mexp(p.sub(a, _lb))), p.log(p.sub(b, p.exp(a)))), floats & ~positive(b),
   "``log(b - exp(a))`` as ``log(b) + log1mexp(a - log(b))`` for ``b > 0``, as written (NaN) for ``b <= 0``.")
# regimes on the sign of ``a``, where the analysis does not know it: the log of ``a`` reads ``switch(a > 0, a, 1)``,
# the other branch is the left side itself (no new term for saturation to nest)
_a_either = ~positive(a) & ~nonpositive(a)
_a_pos = p.gt(a, 0)
_a_clamped = p.switch(_a_pos, a, 1)
rw("log_pow_regimes", p.log(p.pow(a, b)), p.switch(_a_pos, p.mul(b, p.log(_a_clamped)), p.log(p.pow(a, b))),
   floats & _a_either,
   "``log(a ** b)`` as ``b * log(a)`` for ``a > 0`` (no overflow of the power), as written elsewhere.")
# a constant added to a log is a factor under it: ``log(erfc(-x / sqrt(2))) - log(2)`` is the log of ``0.5 * erfc``,
# whose regimes (``log_mul_erfc_regimes``) keep the tiny value the sum cancels to at large ``x``
rw("log_add_constant", p.add(p.log(a), c), p.log(p.mul(p.exp(c), a)), real(a) & real(c) & is_constant(c),
   "``log(a) + c`` is ``log(exp(c) * a)`` for a constant ``c``: the constant a factor of what is logged.")
rw("log_add_constant_r", p.add(c, p.log(a)), p.log(p.mul(p.exp(c), a)), real(a) & real(c) & is_constant(c),
   "``c + log(a)``: ``log_add_constant`` in the operand order canonicalize writes (the constant first).")
# a log of a sum of two exponentials with weights read from data (a two-component mixture's density): logaddexp of
# the exponents shifted by the weights' logs where both weights are positive, as written elsewhere
d = p.var("d")
_w_pos = p.and_(p.gt(b, 0), p.gt(c, 0))
_lw, _lv = p.add(a, p.log(p.switch(_w_pos, b, 1))), p.add(d, p.log(p.switch(_w_pos, c, 1)))
_mix = p.log(p.add(p.mul(b, p.exp(a)), p.mul(c, p.exp(d))))
rw("log_weighted_exps_regimes", _mix,
   p.switch(_w_pos, _logaddexp(_lw, _lv), _mix),
   real(a) & real(b) & real(c) & real(d) & ~is_constant(b),
   "``log(b * exp(a) + c * exp(d))`` as ``logaddexp(a + log(b), d + log(c))`` for ``b, c > 0`` (no overflow of "
   "``exp``, no underflow of both terms), as written elsewhere.")
# base 2 (JAX's logaddexp2): log2 of a sum of powers of two, overflowing where 2**a does
_LN2 = math.log(2.0)  # (a float64 constant beside float64 operands, not float32's log(2.0), 2e-8 off)
rw("log2_add_exp2", p.log2(p.add(p.exp2(a), p.exp2(b))),
   p.add(p.maximum(a, b), p.true_div(p.log1p(p.exp2(p.neg(p.abs(p.sub(a, b))))), _LN2)), floats,
   "``log2(exp2(a) + exp2(b))`` is ``max(a, b) + log1p(exp2(-|a - b|)) / log(2)``: no overflow.")
rw("log2_one_add_exp2", p.log2(p.add(1, p.exp2(a))),
   p.add(p.maximum(a, 0), p.true_div(p.log1p(p.exp2(p.neg(p.abs(a)))), _LN2)), real(a),
   "``log2(1 + exp2(a))`` is ``max(a, 0) + log1p(exp2(-|a|)) / log(2)``: ``log2_add_exp2`` with ``b = 0``.")
# a complement of a power logged: PyMC's Geometric and Kumaraswamy log-CDFs written through their CDFs,
# log(1 - (1 - p)**k) and log(1 - (1 - x**a)**b)
_log1m_pow = p.log(p.sub(1, p.pow(a, b)))
eq("log1m_pow", _log1m_pow, p.log1mexp(p.mul(b, p.log(a))), floats & positive(a),
   "``log(1 - a**b)`` is ``log1mexp(b * log(a))`` for ``a > 0``.")
_log1m_pow1m = p.log(p.sub(1, p.pow(p.sub(1, c), b)))
_c_below = p.lt(c, 1)
_t = p.mul(b, p.log1p(p.neg(p.switch(_c_below, c, 0))))
rw("log1m_pow_regimes", _log1m_pow1m,
   p.switch(p.and_(_c_below, p.gt(_t, -math.log(2))), p.log1mexp(_t), p.log1p(p.neg(p.pow(p.sub(1, c), b)))),
   real(b) & real(c),
   "``log(1 - (1 - c)**b)`` as ``log1mexp(b * log1p(-c))`` where ``c < 1`` and ``(1 - c)**b > 1/2`` (no digit "
   "lost where the power is near 1), as ``log1p(-(1 - c)**b)`` elsewhere (no cancellation where the power is "
   "below 1/2, and ``exp`` of a large ``b * log1p(-c)`` would amplify its rounding).")
# the log of a power of one plus a quantity, and of its complement: log1p of the quantity, not log of the rounded sum
_up = p.gt(c, -1)
_t1p = p.mul(b, p.log1p(p.switch(_up, c, 0)))
_pow1p = p.pow(p.add(1, c), b)
rw("log_pow1p_regimes", p.log(_pow1p), p.switch(_up, _t1p, p.log(_pow1p)), real(b) & real(c),
   "``log((1 + c) ** b)`` as ``b * log1p(c)`` for ``c > -1`` (no rounding of ``1 + c``, no overflow of the "
   "power), as written elsewhere.")
_log1m_pow1p = p.log1p(p.neg(_pow1p))
# (the spelling a direct branch of the outer switch: nested one switch deeper, the extraction never chose the form)
_above_half = p.and_(_up, p.gt(_t1p, -math.log(2)))
rw("log1m_pow1p_regimes", _log1m_pow1p,
   p.switch(p.or_(_above_half, p.lt(p.abs(c), 0.5)),
            p.switch(_above_half, p.log1mexp(_t1p), p.log1p(p.neg(p.exp(_t1p)))), _log1m_pow1p), real(b) & real(c),
   "``log1p(-(1 + c) ** b)`` as ``log1mexp(b * log1p(c))`` where ``c > -1`` and the power is above 1/2, as "
   "``log1p(-exp(b * log1p(c)))`` below 1/2 where ``|c| < 1/2`` (``pow1p_regimes``' power), as written elsewhere.")
_sq = p.log1p(p.sqr(a))
_over = p.eq(_sq, math.inf)
rw("log1p_sqr_regimes", _sq, p.switch(_over, p.mul(2, p.log(p.abs(p.switch(_over, a, 1)))), _sq), real(a),
   "``log1p(a**2)`` as ``2 * log(|a|)`` where the square overflows (from ``|a| = 1.3e154``), as written "
   "elsewhere.")
# Herbie's 2log, log(x + 1) - log(x): log1p(1 / x) where x > 0
_shift = real(a) & real(c) & is_constant(c) & positive(c) & _a_either
_log1p_recip = p.log1p(p.true_div(c, _a_clamped))
rw("log_shift_diff_regimes", p.sub(p.log(p.add(c, a)), p.log(a)),
   p.switch(_a_pos, _log1p_recip, p.sub(p.log(p.add(c, a)), p.log(a))), _shift,
   "``log(c + a) - log(a)`` as ``log1p(c / a)`` for ``a > 0`` (``c`` a positive constant), as written elsewhere.")
rw("log_shift_ratio_regimes", p.log(p.true_div(p.add(c, a), a)),
   p.switch(_a_pos, _log1p_recip, p.log(p.true_div(p.add(c, a), a))), _shift,
   "``log((c + a) / a)`` as ``log1p(c / a)`` for ``a > 0`` (``c`` a positive constant), as written elsewhere.")
# the log of a ratio near 1 (a log-likelihood ratio, a divergence's term): log1p of the relative difference, exact
# where the operands are within a factor of 2 of each other (Sterbenz: ``a - b`` has no rounding there)
_q = p.true_div(a, b)
_near = p.and_(p.ge(_q, 0.5), p.le(_q, 2))
_rel = p.true_div(p.sub(p.switch(_near, a, 1), p.switch(_near, b, 1)), p.switch(_near, b, 1))
# and where the ratio overflows or underflows (its log beyond +-700: a relative entropy at x = 1e300, y = 1e-300),
# the difference of the logs of the operands' magnitudes (of one sign: the ratio positive), an ulp of the log there
# (the condition reads that difference, 0 where the signs differ, not the ratio's log: the e-class of the root)
_same_sign = p.gt(p.mul(p.sign(a), p.sign(b)), 0)
_log_sides = p.sub(p.log(p.abs(p.switch(_same_sign, a, 1))), p.log(p.abs(p.switch(_same_sign, b, 1))))
_far = p.gt(p.abs(_log_sides), 700)
# (the spelling a direct branch of the outer switch: the extraction reads a form's own class there only)
rw("log_div_near_one_regimes", p.log(_q),
   p.switch(p.or_(_near, _far), p.switch(_near, p.log1p(_rel), _log_sides), p.log(_q)),
   floats, "``log(a / b)`` as ``log1p((a - b) / b)`` where ``1/2 <= a / b <= 2`` (``a - b`` exact, no digit of the "
   "ratio's rounding kept), as ``log|a| - log|b|`` where they have one sign and the ratio's log is beyond +-700 "
   "(it overflows or is subnormal), as written elsewhere.")
# the log of a share (a negative-binomial probability ``mu / (mu + phi)``): ``-log1p(b / a)`` reads neither the
# rounding of ``a + b`` (``phi log(phi / (mu + phi))`` at ``mu = 1``, ``phi = 1e10``) nor its overflow
_share = p.log(p.true_div(a, p.add(a, b)))
_share_form = p.neg(p.log1p(p.true_div(b, a)))
eq("log_share", _share, _share_form, floats & nonzero(a),
   "``log(a / (a + b))`` is ``-log1p(b / a)`` for ``a != 0``.")
rw("log_share_regimes", _share, p.switch(p.neq(a, 0), _share_form, _share), floats & ~nonzero(a),
   "``log(a / (a + b))`` as ``-log1p(b / a)`` where ``a != 0``, as written elsewhere (``-inf``).")
# the log of a product or a quotient whose operands' signs the analysis does not know (a density written as a
# product of its parameters and powers, then logged): the logs of the magnitudes where the operands have one sign
# (read from their signs, not from the product, which underflows or overflows), as written elsewhere.  The logs
# are not clamped (``switch(g, a, 1)`` would hide each operand from the magnitude's algebra below); the branch not
# taken reads ``log|0|`` only where an operand is 0, where the spelling is ``-inf`` or NaN itself.
_neither_known = floats & ~positive(a) & ~positive(b)
_mag = p.log(p.abs(a))
_mag_b = p.log(p.abs(b))
rw("log_prod_sign_regimes", p.log(p.mul(a, b)), p.switch(_same_sign, p.add(_mag, _mag_b), p.log(p.mul(a, b))),
   _neither_known, "``log(a * b)`` as ``log|a| + log|b|`` where ``a`` and ``b`` have one sign (no underflow or "
   "overflow of the product), as written elsewhere.")
rw("log_div_sign_regimes", p.log(_q), p.switch(_same_sign, p.sub(_mag, _mag_b), p.log(_q)), _neither_known,
   "``log(a / b)`` as ``log|a| - log|b|`` where ``a`` and ``b`` have one sign (no underflow or overflow of the "
   "quotient), as written elsewhere.")
# the log of a magnitude: a sum over products and quotients, a multiple for a power of a positive base
rw("log_abs_prod", p.log(p.abs(p.mul(a, b))), p.add(_mag, _mag_b), floats,
   "``log|a * b|`` is ``log|a| + log|b|``.")
rw("log_abs_div", p.log(p.abs(_q)), p.sub(_mag, _mag_b), floats, "``log|a / b|`` is ``log|a| - log|b|``.")
rw("log_abs_neg", p.log(p.abs(p.neg(a))), _mag, real(a), "``log|-a|`` is ``log|a|``.")
rw("log_abs_exp", p.log(p.abs(p.exp(a))), a, real(a), "``log|exp(a)|`` is ``a``.")
rw("log_abs_nonnegative", _mag, p.log(a), real(a) & nonnegative(a), "``log|a|`` is ``log(a)`` for ``a >= 0``.")
_abs_pow = p.log(p.abs(p.pow(a, b)))
rw("log_abs_pow_regimes", _abs_pow, p.switch(_a_pos, p.mul(b, p.log(a)), _abs_pow), floats & _a_either,
   "``log|a ** b|`` as ``b * log(a)`` for ``a > 0`` (no overflow or underflow of the power), as written "
   "elsewhere (``log(a)`` not clamped: the rules of ``log`` read ``a``).")
# a clamp read through: a regime clamps a branch's input (``log(switch(g, a, 1))``, ``log1p(switch(g, a, 0))``)
# so the branch not taken stays finite, and no rule of ``log`` reads ``a`` under the clamp.  The log of the clamp is
# the clamp of the log, whose ``log(a)`` the rules then read (SciPy's Burr log-CDF ``log((1 + x**-c)**-d)``:
# ``log_pow_regimes`` clamps ``1 + x**-c``, where ``log1p_pow_regimes`` holds ``log1p(x**-c)`` for the overflow)
rw("log_of_clamp", p.log(p.switch(c, a, 1)), p.switch(c, p.log(a), 0), real(a),
   "``log(switch(c, a, 1))`` is ``switch(c, log(a), 0)``.")
rw("log1p_of_clamp", p.log1p(p.switch(c, a, 0)), p.switch(c, p.log1p(a), 0), real(a),
   "``log1p(switch(c, a, 0))`` is ``switch(c, log1p(a), 0)``.")
rw("abs_of_clamp", p.abs(p.switch(c, a, 1)), p.switch(c, p.abs(a), 1), real(a),
   "``|switch(c, a, 1)|`` is ``switch(c, |a|, 1)``.")
eq("log1p_sub_log1p", p.sub(p.log1p(a), p.log1p(b)), p.log1p(p.true_div(p.sub(a, b), p.add(1, b))),
   floats & within(a, -1, math.inf) & within(b, -1, math.inf),
   "``log1p(a) - log1p(b)`` is ``log1p((a - b) / (1 + b))`` for ``a, b > -1``: one log of the relative difference.")
# log1mexp
eq("log_expm1", p.log(p.expm1(a)), p.add(a, p.log1mexp(p.neg(a))), real(a),
   "``log(expm1(a))`` is ``a + log1mexp(-a)``: finite where ``expm1`` overflows.")
eq("log1mexp_def", p.log(p.neg(p.expm1(a))), p.log1mexp(a), real(a), "``log(-expm1(a))`` is ``log1mexp(a)``.")
eq("log1mexp_log", p.log(p.sub(1, p.exp(a))), p.log1mexp(a), real(a), "``log(1 - exp(a))`` is ``log1mexp(a)``.")
eq("log1mexp_log1p", p.log1p(p.neg(p.exp(a))), p.log1mexp(a), real(a), "``log1p(-exp(a))`` is ``log1mexp(a)``.")
