"""The numerics theory's special group: erf, erfc, erfcx, erfinv, erfcinv, gamma, gammaln, sigmoid, softplus
(see :mod:`relations.rules.numerics`).

The identities of PyTensor's special functions that Herbie's rule base has no operator for:
the complements and reflections of ``erf`` and ``erfc``, ``erfcx`` as the scaled ``erfc``
(and the stable log of ``erfc`` through it), ``erfinv`` through ``erfcinv``, ``gammaln`` as
the log of ``gamma`` and their recurrences, and the logistic function and softplus under
negation and through ``exp``, ``log`` and ``tanh``.  docs/numerics_special.md explains each entry under its name.
"""

from __future__ import annotations

import math

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import nonnegative, positive, real

__all__ = ["FAMILY"]

a, b, c = p.var("a"), p.var("b"), p.var("c")
LOG2 = p.log(2.0)
floats = real(a) & real(b)

#: The group's family.
FAMILY = Family("numerics_special", docs="numerics_special.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite
#: Where ``gammaln_sub_regimes`` takes Stirling's series (both arguments above it).
STIRLING_FROM = 30.0

# erf and erfc
eq("erfc_def", p.erfc(a), p.sub(1, p.erf(a)), real(a), "``erfc(a)`` is ``1 - erf(a)``.")
eq("erf_def", p.erf(a), p.sub(1, p.erfc(a)), real(a), "``erf(a)`` is ``1 - erfc(a)``.")
eq("erf_neg", p.erf(p.neg(a)), p.neg(p.erf(a)), real(a), "``erf`` is odd: ``erf(-a)`` is ``-erf(a)``.")
eq("erfc_neg", p.erfc(p.neg(a)), p.sub(2, p.erfc(a)), real(a), "``erfc(-a)`` is ``2 - erfc(a)``.")
eq("erfc_neg_erf", p.add(1, p.erf(a)), p.erfc(p.neg(a)), real(a), "``1 + erf(a)`` is ``erfc(-a)``.")
eq("erf_erfc_neg", p.erf(a), p.sub(p.erfc(p.neg(a)), 1), real(a), "``erf(a)`` is ``erfc(-a) - 1``.")
# erfcx, and the log of erfc through it
eq("erfcx_def", p.erfcx(a), p.mul(p.exp(p.sqr(a)), p.erfc(a)), real(a), "``erfcx(a)`` is ``exp(a**2) * erfc(a)``.")
eq("erfc_erfcx", p.erfc(a), p.mul(p.exp(p.neg(p.sqr(a))), p.erfcx(a)), real(a),
   "``erfc(a)`` is ``exp(-a**2) * erfcx(a)``.")
eq("exp_div_erfc", p.true_div(p.exp(b), p.erfc(a)), p.true_div(p.exp(p.add(b, p.sqr(a))), p.erfcx(a)), floats,
   "``exp(b) / erfc(a)`` is ``exp(b + a**2) / erfcx(a)``: a density over its tail, finite where both underflow.")
eq("erfc_div_exp", p.true_div(p.erfc(a), p.exp(b)), p.mul(p.erfcx(a), p.exp(p.neg(p.add(b, p.sqr(a))))), floats,
   "``erfc(a) / exp(b)`` is ``erfcx(a) * exp(-(b + a**2))``: Mills' ratio, finite where both underflow.")
eq("log_erfc", p.log(p.erfc(a)), p.sub(p.log(p.erfcx(a)), p.sqr(a)), real(a),
   "``log(erfc(a))`` is ``log(erfcx(a)) - a**2``: finite in the far tail.")
eq("log_mul_erfc", p.log(p.mul(b, p.erfc(a))), p.add(p.log(b), p.sub(p.log(p.erfcx(a)), p.sqr(a))),
   floats & positive(b), "The log of a positive weight times ``erfc(a)``, through ``erfcx``.")
eq("log_erfc_reflect", p.log(p.erfc(a)), p.add(LOG2, p.log1p(p.mul(-0.5, p.erfc(p.neg(a))))), real(a),
   "``log(erfc(a))`` is ``log(2) + log1p(-erfc(-a) / 2)``: the digits near 0 where ``erfc(a)`` is near 2.")
eq("log_mul_erfc_reflect", p.log(p.mul(b, p.erfc(a))),
   p.add(p.log(p.mul(2, b)), p.log1p(p.mul(-0.5, p.erfc(p.neg(a))))), floats & positive(b),
   "The log of a positive weight times ``erfc(a)``, through the reflection.")
rw("log_erfc_regimes", p.log(p.erfc(a)),
   p.switch(p.lt(a, 0.5), p.log1p(p.neg(p.erf(p.minimum(a, 0.5)))),
            p.sub(p.log(p.erfcx(p.maximum(a, 0.5))), p.sqr(p.maximum(a, 0.5)))),
   real(a), "``log(erfc(a))`` as ``log1p(-erf(a))`` for ``a < 0.5`` and ``log(erfcx(a)) - a**2`` above: each regime "
   "accurate, each branch's input clamped to its side (no inf in the branch not taken, nor in its gradient).")
_mid, _top = p.minimum(p.maximum(a, 0), 0.5), p.maximum(a, 0.5)
rw("log_mul_erfc_regimes", p.log(p.mul(b, p.erfc(a))),
   p.switch(p.lt(a, 0), p.add(p.log(p.mul(2, b)), p.log1p(p.mul(-0.5, p.erfc(p.neg(p.minimum(a, 0)))))),
            p.switch(p.lt(a, 0.5), p.add(p.log(b), p.log1p(p.neg(p.erf(_mid)))),
                     p.add(p.log(b), p.sub(p.log(p.erfcx(_top)), p.sqr(_top))))),
   floats & positive(b), "The log of a positive weight times ``erfc(a)``: the reflection below 0, ``log1p(-erf(a))`` "
   "to 0.5, ``erfcx`` above, each branch's input clamped to its side.")
rw("log_erf_regimes", p.log(p.erf(a)),
   p.switch(p.lt(a, 1), p.log(p.erf(p.minimum(a, 1))), p.log1p(p.neg(p.erfc(p.maximum(a, 1))))), real(a),
   "``log(erf(a))`` as written below 1 and ``log1p(-erfc(a))`` above (both undefined for ``a < 0``).")
eq("log1p_neg_half_erfc", p.log1p(p.mul(-0.5, p.erfc(a))), p.log(p.mul(0.5, p.erfc(p.neg(a)))), real(a),
   "``log1p(-erfc(a) / 2)`` is ``log(erfc(-a) / 2)``: PyMC's ``normal_lcdf`` branch, from the other tail.")
eq("log_one_sub_half_erfc", p.log(p.sub(1, p.mul(0.5, p.erfc(a)))), p.log(p.mul(0.5, p.erfc(p.neg(a)))), real(a),
   "``log(1 - erfc(a) / 2)`` is ``log(erfc(-a) / 2)``: the normal log-CDF from the upper tail.")
# a difference of erf (a normal probability between two bounds) logged: PyMC's log_diff_normal_cdf regimes
eq("erfc_sub_erfc", p.sub(p.erfc(b), p.erfc(a)), p.sub(p.erf(a), p.erf(b)), floats,
   "``erfc(b) - erfc(a)`` is ``erf(a) - erf(b)``.")
_up, _down = p.gt(b, 1), p.lt(a, -1)  # both in a tail, where erf is within 0.16 of 1 or -1 and the difference cancels
_mid = p.and_(p.le(b, 1), p.ge(a, -1))
_a1, _b1 = p.switch(_up, a, 3), p.switch(_up, b, 2)
_a2, _b2 = p.switch(_down, a, -2), p.switch(_down, b, -3)
_a3, _b3 = p.switch(_mid, a, 1), p.switch(_mid, b, -1)
rw("log_erf_diff_regimes", p.log(p.sub(p.erf(a), p.erf(b))),
   p.switch(_up, p.sub(p.log(p.sub(p.erfcx(_b1), p.mul(p.exp(p.sub(p.sqr(_b1), p.sqr(_a1))), p.erfcx(_a1)))),
                       p.sqr(_b1)),
            p.switch(_down, p.sub(p.log(p.sub(p.erfcx(p.neg(_a2)),
                                              p.mul(p.exp(p.sub(p.sqr(_a2), p.sqr(_b2))), p.erfcx(p.neg(_b2))))),
                                  p.sqr(_a2)),
                     p.log(p.add(p.erf(_a3), p.erf(p.neg(_b3)))))),
   floats,
   "``log(erf(a) - erf(b))`` through the upper tails' ``erfcx`` where ``a > b > 1``, the lower tails' where "
   "``-1 > a > b``, as ``log(erf(a) + erf(-b))`` elsewhere; each branch's inputs clamped to its side.")
# erfinv and erfcinv: the normal quantile written sqrt(2) * erfinv(2 p - 1) rounds 2 p - 1 to -1 below p = 2**-54
# (float32: 2**-25) and is -inf there, where -sqrt(2) * erfcinv(2 p) is finite; NaN outside [-1, 1] on both sides
eq("erfinv_neg", p.erfinv(p.neg(a)), p.neg(p.erfinv(a)), real(a),
   "``erfinv`` is odd: ``erfinv(-a)`` is ``-erfinv(a)``.")
eq("erfinv_one_sub", p.erfinv(p.sub(1, a)), p.erfcinv(a), real(a), "``erfinv(1 - a)`` is ``erfcinv(a)``.")
eq("erfinv_sub_one", p.erfinv(p.sub(a, 1)), p.neg(p.erfcinv(a)), real(a),
   "``erfinv(a - 1)`` is ``-erfcinv(a)``: finite where ``a - 1`` rounds to -1.")
eq("erfinv_add_neg_one", p.erfinv(p.add(a, -1)), p.neg(p.erfcinv(a)), real(a),
   "``erfinv(a + (-1))``: ``erfinv_sub_one`` as canonicalize writes the difference.")
eq("erfcinv_two_sub", p.erfcinv(p.sub(2, a)), p.neg(p.erfcinv(a)), real(a),
   "``erfcinv(2 - a)`` is ``-erfcinv(a)``: the reflection of ``erfc(-a) = 2 - erfc(a)``.")
# gamma and gammaln
eq("gammaln_def", p.gammaln(a), p.log(p.gamma(a)), real(a) & positive(a),
   "``gammaln(a)`` is ``log(gamma(a))`` for ``a > 0``.")
eq("gamma_exp_gammaln", p.gamma(a), p.exp(p.gammaln(a)), real(a) & positive(a),
   "``gamma(a)`` is ``exp(gammaln(a))`` for ``a > 0``.")
eq("gamma_rec", p.gamma(p.add(a, 1)), p.mul(a, p.gamma(a)), real(a) & positive(a),
   "``gamma(a + 1)`` is ``a * gamma(a)`` for ``a > 0``.")
eq("gammaln_rec", p.gammaln(p.add(a, 1)), p.add(p.log(a), p.gammaln(a)), real(a) & positive(a),
   "``gammaln(a + 1)`` is ``log(a) + gammaln(a)`` for ``a > 0``.")
_log_abs_gamma = p.log(p.abs(p.gamma(a)))
rw("log_abs_gamma_regimes", _log_abs_gamma, p.switch(p.gt(a, 0), p.gammaln(a), _log_abs_gamma), real(a),
   "``log|gamma(a)|`` as ``gammaln(a)`` for ``a > 0`` (finite where ``gamma`` overflows), as written elsewhere.")
_sign_gamma = p.sign(p.gamma(a))
rw("sign_gamma_regimes", _sign_gamma, p.switch(p.gt(a, 0), 1, _sign_gamma), real(a),
   "``sign(gamma(a))`` as 1 for ``a > 0``, as written elsewhere.")


def _stirling_tail(x: p.Node) -> p.Node:
    """``gammaln(x) - ((x - 1/2) log(x) - x + log(2 pi) / 2)``: Stirling's series to ``x**-7`` (its next term is
    ``1 / (1188 x**9)``, 4e-17 at ``x = 30``)."""
    u = p.true_div(1.0, p.mul(x, x))
    inner = p.sub(1 / 1260, p.true_div(u, 1680.0))
    return p.true_div(p.sub(1 / 12, p.mul(u, p.sub(1 / 360, p.mul(u, inner)))), x)


# the difference of two log-gammas at large arguments (a Student-t's normalizing constant at a large ``nu``, scipy
# #18433): each ``gammaln`` is near ``x log(x)``, and their difference keeps none of their digits.  By Stirling's
# series, ``(b - 1/2) log1p((a - b) / b) + (a - b) (log(a) - 1) + S(a) - S(b)``: its large terms taken together
_big = p.and_(p.gt(a, STIRLING_FROM), p.gt(b, STIRLING_FROM))
_ac, _bc = p.switch(_big, a, STIRLING_FROM + 1), p.switch(_big, b, STIRLING_FROM + 1)
_d = p.sub(a, b)  # (not clamped: the identities simplify a difference of arguments, ``(nu + 1) / 2 - nu / 2``)
_lg_diff = p.sub(p.gammaln(a), p.gammaln(b))
_stirling_diff = p.add(p.add(p.mul(p.sub(_bc, 0.5), p.log1p(p.true_div(_d, _bc))), p.mul(_d, p.sub(p.log(_ac), 1.0))),
                       p.sub(_stirling_tail(_ac), _stirling_tail(_bc)))
rw("gammaln_sub_regimes", _lg_diff, p.switch(_big, _stirling_diff, _lg_diff), floats,
   "``gammaln(a) - gammaln(b)`` for ``a, b > 30`` as ``(b - 1/2) log1p((a - b) / b) + (a - b) (log(a) - 1) + S(a) - "
   "S(b)`` (Stirling's series ``S`` to ``x**-7``: no cancellation of the two large logs), as written elsewhere.")


def _not_finite(v: p.Node) -> p.Node:
    """``v`` is inf or NaN: ``not |v| < inf`` (``v != v`` is folded to False by PyTensor's rewrites, which assume no
    NaN)."""
    return p.invert(p.lt(p.abs(v), math.inf))


def _lost_where_positive(u: p.Node, w: p.Node, spelling: p.Node) -> p.Node:
    """``u, w > 0`` and ``spelling`` inf, NaN or 0 (a ``gamma`` or a power in it overflowed): where a quotient of
    gammas is taken through ``gammaln``."""
    return p.and_(p.and_(p.gt(u, 0), p.gt(w, 0)), p.or_(_not_finite(spelling), p.eq(spelling, 0)))


# logs of products and quotients of gamma, where the inputs' signs are unknown: gammaln for positive inputs
# (gamma overflows from 171.6, and log(x * gamma(x)) cancels near 0, where it is gammaln(x + 1) ~ -0.58 x)
def _betaln_where(cond: p.Node) -> p.Node:
    """``gammaln(a) + gammaln(b) - gammaln(a + b)`` reading ``(a, b)`` where ``cond`` holds, ``(1, 1)`` elsewhere
    (the branch not taken: neither its value nor its gradient is inf or NaN there)."""
    ac, bc = p.switch(cond, a, 1), p.switch(cond, b, 1)
    return p.sub(p.add(p.gammaln(ac), p.gammaln(bc)), p.gammaln(p.add(ac, bc)))


_beta = p.log(p.true_div(p.mul(p.gamma(a), p.gamma(b)), p.gamma(p.add(a, b))))
_ab_pos = p.and_(p.and_(p.gt(a, 0), p.gt(b, 0)),  # and the spelling inf or NaN (a gamma overflowed)
                 _not_finite(_beta))
rw("log_beta_regimes", _beta,
   p.switch(_ab_pos, _betaln_where(_ab_pos), _beta), floats,
   "``log(gamma(a) * gamma(b) / gamma(a + b))`` as ``gammaln(a) + gammaln(b) - gammaln(a + b)`` for ``a, b > 0`` "
   "where the spelling is not finite (a ``gamma`` overflowed: from 171.6 in float64, 35 in float32), as written "
   "elsewhere (more accurate there, where the logs cancel; ``gamma`` of a negative number is negative or a pole).")
_a_pos = p.gt(a, 0)
_x_gamma = p.log(p.mul(a, p.gamma(a)))
rw("log_mul_gamma_regimes", _x_gamma, p.switch(_a_pos, p.gammaln(p.add(p.switch(_a_pos, a, 1), 1)), _x_gamma),
   real(a), "``log(a * gamma(a))`` as ``gammaln(a + 1)`` for ``a > 0`` (no cancellation of ``log(a)`` with "
   "``log(gamma(a))`` near 0, no overflow), as written elsewhere.")
# quotients of gamma by gamma or a power (a beta function, a Pochhammer symbol, x**n / n!): gammaln for positive
# inputs where the spelling is not finite (a gamma or the power overflowed), as written elsewhere
_g_ratio = p.true_div(p.gamma(a), p.gamma(b))
_g_pos = _lost_where_positive(a, b, _g_ratio)
_lg = p.sub(p.gammaln(p.switch(_g_pos, a, 1)), p.gammaln(p.switch(_g_pos, b, 1)))
rw("gamma_div_gamma_regimes", _g_ratio, p.switch(_g_pos, p.exp(_lg), _g_ratio), floats,
   "``gamma(a) / gamma(b)`` as ``exp(gammaln(a) - gammaln(b))`` for ``a, b > 0`` where the quotient is not "
   "finite or is 0 (a ``gamma`` overflowed), as written elsewhere.")
_cg_ratio = p.true_div(p.mul(c, p.gamma(a)), p.gamma(b))
_cg_pos = _lost_where_positive(a, b, _cg_ratio)
_clg = p.sub(p.gammaln(p.switch(_cg_pos, a, 1)), p.gammaln(p.switch(_cg_pos, b, 1)))
rw("mul_gamma_div_gamma_regimes", _cg_ratio, p.switch(_cg_pos, p.mul(c, p.exp(_clg)), _cg_ratio), floats & real(c),
   "``c * gamma(a) / gamma(b)`` as ``c * exp(gammaln(a) - gammaln(b))`` for ``a, b > 0`` where the spelling is not "
   "finite or is 0, as written elsewhere.")
_pg = p.true_div(p.pow(c, a), p.gamma(b))
_pg_pos = _lost_where_positive(c, b, _pg)
_plg = p.sub(p.mul(a, p.log(p.switch(_pg_pos, c, 1))), p.gammaln(p.switch(_pg_pos, b, 1)))
rw("pow_div_gamma_regimes", _pg, p.switch(_pg_pos, p.exp(_plg), _pg), floats & real(c),
   "``c**a / gamma(b)`` as ``exp(a * log(c) - gammaln(b))`` for ``c, b > 0`` where the spelling is not finite or is 0 "
   "(the power or the ``gamma`` overflowed: ``x**n / n!``), as written elsewhere.")
# the beta function written through gamma, B(a, b) = gamma(a) gamma(b) / gamma(a + b) (a distribution's mean, a
# normalizer: PyTorch's Kumaraswamy mean b gamma(1 + 1/a) gamma(b) / gamma(1 + 1/a + b)), and times a factor
_b_ratio = p.true_div(p.mul(p.gamma(a), p.gamma(b)), p.gamma(p.add(a, b)))
_b_pos = _lost_where_positive(a, b, _b_ratio)
rw("beta_regimes", _b_ratio, p.switch(_b_pos, p.exp(_betaln_where(_b_pos)), _b_ratio), floats,
   "``gamma(a) * gamma(b) / gamma(a + b)`` as ``exp(gammaln(a) + gammaln(b) - gammaln(a + b))`` for ``a, b > 0`` "
   "where the spelling is not finite or is 0 (a ``gamma`` overflowed), as written elsewhere.")
_cb_ratio = p.true_div(p.mul(p.mul(c, p.gamma(a)), p.gamma(b)), p.gamma(p.add(a, b)))
_cb_pos = _lost_where_positive(a, b, _cb_ratio)
rw("mul_beta_regimes", _cb_ratio, p.switch(_cb_pos, p.mul(c, p.exp(_betaln_where(_cb_pos))), _cb_ratio),
   floats & real(c),
   "``c * gamma(a) * gamma(b) / gamma(a + b)`` as ``c * exp(gammaln(a) + gammaln(b) - gammaln(a + b))`` for "
   "``a, b > 0`` where the spelling is not finite or is 0, as written elsewhere.")
# sigmoid and softplus
eq("sigmoid_neg", p.sigmoid(p.neg(a)), p.sub(1, p.sigmoid(a)), real(a), "``sigmoid(-a)`` is ``1 - sigmoid(a)``.")
eq("sigmoid_tanh", p.sigmoid(a), p.mul(0.5, p.add(1, p.tanh(p.mul(0.5, a)))), real(a),
   "``sigmoid(a)`` is ``0.5 * (1 + tanh(0.5 * a))``.")
eq("sigmoid_exp_softplus", p.sigmoid(a), p.exp(p.neg(p.softplus(p.neg(a)))), real(a),
   "``sigmoid(a)`` is ``exp(-softplus(-a))``.")
eq("sigmoid_log", p.sigmoid(p.log(a)), p.true_div(a, p.add(a, 1)), real(a) & nonnegative(a),
   "``sigmoid(log(a))`` is ``a / (a + 1)`` for ``a >= 0``.")
eq("softplus_def", p.softplus(a), p.log1p(p.exp(a)), real(a), "``softplus(a)`` is ``log1p(exp(a))``.")
eq("sigmoid_sub", p.sub(p.sigmoid(a), p.sigmoid(b)),
   p.mul(p.neg(p.expm1(p.sub(b, a))), p.mul(p.sigmoid(a), p.sigmoid(p.neg(b)))), floats,
   "``sigmoid(a) - sigmoid(b)`` is ``-expm1(b - a) * sigmoid(a) * sigmoid(-b)``: no cancellation where "
   "``a`` is near ``b`` or both are large.")
eq("log_sigmoid_sub", p.log(p.sub(p.sigmoid(a), p.sigmoid(b))),
   p.sub(p.log1mexp(p.sub(b, a)), p.add(p.softplus(p.neg(a)), p.softplus(b))), floats,
   "``log(sigmoid(a) - sigmoid(b))`` is ``log1mexp(b - a) - softplus(-a) - softplus(b)`` (both real for "
   "``a > b`` only).")
eq("softplus_neg_log_sigmoid", p.softplus(p.neg(a)), p.neg(p.log(p.sigmoid(a))), real(a),
   "``softplus(-a)`` is ``-log(sigmoid(a))``.")
# the Bernoulli log-likelihood on the logit, ``a * b - softplus(a)``, cancels where ``a`` is large and ``b`` near 1
# (``softplus(a)`` is ``a`` to the last digit); through ``softplus(a) = a + softplus(-a)`` it is exact there, and
# cancels where ``a`` is large and negative instead: each form on its side of 0
_nll = p.sub(p.softplus(a), p.mul(a, b))
rw("softplus_sub_mul_regimes", _nll, p.switch(_a_pos, p.add(p.softplus(p.neg(a)), p.mul(a, p.sub(1, b))), _nll),
   floats, "``softplus(a) - a * b`` as ``softplus(-a) + a * (1 - b)`` for ``a > 0``, as written elsewhere: the "
   "Bernoulli log-loss on the logit.")
_ll = p.sub(p.mul(a, b), p.softplus(a))
rw("mul_sub_softplus_regimes", _ll, p.switch(_a_pos, p.sub(p.mul(a, p.sub(b, 1)), p.softplus(p.neg(a))), _ll),
   floats, "``a * b - softplus(a)`` as ``a * (b - 1) - softplus(-a)`` for ``a > 0``, as written elsewhere: the "
   "Bernoulli log-likelihood on the logit.")
eq("exp_softplus", p.exp(p.softplus(a)), p.add(1, p.exp(a)), real(a), "``exp(softplus(a))`` is ``1 + exp(a)``.")
eq("softplus_log", p.softplus(p.log(a)), p.log1p(a), real(a) & nonnegative(a),
   "``softplus(log(a))`` is ``log1p(a)`` for ``a >= 0``.")
