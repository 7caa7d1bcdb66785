"""The numerics theory's exponentials group: exp, expm1, exp2, sigmoid through exp (:mod:`relations.rules.numerics`).

Herbie's ``exponents`` rules for ``exp`` (sums, differences, negations, products, halves,
squares and cubes), its ``expm1`` forms (``exp(a) - 1`` in its spellings, with a further term,
negated, a difference of two exponentials), ``exp2`` through ``pow``, and the logistic
function written through ``exp``.  docs/numerics_exponentials.md explains each entry under its name.
"""

from __future__ import annotations

import math

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_constant, nonnegative, positive, real, within

__all__ = ["FAMILY"]

a, b, c = p.var("a"), p.var("b"), p.var("c")
floats = real(a) & real(b)

#: The group's family.
FAMILY = Family("numerics_exponentials", docs="numerics_exponentials.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite

# sums, differences, negations (Herbie's exp-sum, exp-diff, exp-neg and their reverses)
eq("exp_sum", p.exp(p.add(a, b)), p.mul(p.exp(a), p.exp(b)), floats, "The exponential of a sum is a product.")
eq("exp_diff", p.exp(p.sub(a, b)), p.true_div(p.exp(a), p.exp(b)), floats,
   "The exponential of a difference is a quotient.")
eq("exp_neg", p.exp(p.neg(a)), p.reciprocal(p.exp(a)), real(a), "The exponential of a negation is a reciprocal.")
eq("exp_neg_div", p.exp(p.neg(a)), p.true_div(1, p.exp(a)), real(a), "``exp(-a)`` is ``1 / exp(a)``.")
# products, powers and roots (exp-prod, exp-sqrt, exp-lft-sqr, exp-lft-cube, exp-to-pow)
eq("exp_prod", p.exp(p.mul(a, b)), p.pow(p.exp(a), b), floats, "``exp(a * b)`` is ``exp(a) ** b``.")
eq("exp_sqrt", p.exp(p.true_div(a, 2)), p.sqrt(p.exp(a)), real(a), "``exp(a / 2)`` is ``sqrt(exp(a))``.")
eq("exp_sqrt_half", p.exp(p.mul(0.5, a)), p.sqrt(p.exp(a)), real(a), "``exp(0.5 * a)`` is ``sqrt(exp(a))``.")
eq("exp_lft_sqr", p.exp(p.mul(2, a)), p.sqr(p.exp(a)), real(a), "``exp(2 * a)`` is ``sqr(exp(a))``.")
eq("exp_lft_sqr_mul", p.exp(p.mul(2, a)), p.mul(p.exp(a), p.exp(a)), real(a),
   "``exp(2 * a)`` is ``exp(a) * exp(a)``.")
eq("exp_lft_cube", p.exp(p.mul(3, a)), p.pow(p.exp(a), 3), real(a), "``exp(3 * a)`` is ``exp(a) ** 3``.")
eq("exp_to_pow", p.exp(p.mul(p.log(a), b)), p.pow(a, b), floats & positive(a),
   "A positive base's power is the exponential of its log times the exponent.")
eq("fabs_exp", p.abs(p.exp(a)), p.exp(a), real(a), "An exponential is its own absolute value.")
# exp2
eq("exp2_pow", p.exp2(a), p.pow(2, a), real(a), "``exp2(a)`` is ``2 ** a``.")
eq("exp2_sum", p.exp2(p.add(a, b)), p.mul(p.exp2(a), p.exp2(b)), floats, "``exp2`` of a sum is a product.")
eq("exp2_neg", p.exp2(p.neg(a)), p.reciprocal(p.exp2(a)), real(a), "``exp2(-a)`` is ``1 / exp2(a)``.")
# a positive constant weight is an exponent's shift: a sum of weighted exponentials is one of exponentials
eq("exp_weight", p.mul(b, p.exp(a)), p.exp(p.add(a, p.log(b))), floats & is_constant(b) & positive(b),
   "``c * exp(a)`` is ``exp(a + log(c))`` for a positive constant ``c``.")
eq("exp_add_exp", p.add(p.exp(a), p.exp(b)),
   p.exp(p.add(p.maximum(a, b), p.log1p(p.exp(p.neg(p.abs(p.sub(a, b))))))), floats,
   "``exp(a) + exp(b)`` is ``exp(logaddexp(a, b))``: a sum of exponentials is one exponential.")
# a product or quotient with an exponential that over- or underflows alone (GSL's gsl_sf_exp_mult): the factor's log
# inside the exponent where the exponential alone is inf or 0, as written elsewhere (``exp(a + log|b|)`` loses
# ``|a|`` ulps of the exponent's rounding, more than the product where both are finite)
_e = p.exp(a)
_lost = p.and_(p.or_(p.eq(_e, math.inf), p.eq(_e, 0)), p.and_(p.neq(b, 0), p.lt(p.abs(b), math.inf)))
_lb = p.log(p.abs(p.switch(_lost, b, 1)))
rw("mul_exp_regimes", p.mul(b, _e), p.switch(_lost, p.mul(p.sign(b), p.exp(p.add(a, _lb))), p.mul(b, _e)), floats,
   "``b * exp(a)`` as ``sign(b) * exp(a + log(|b|))`` where ``exp(a)`` alone is inf or 0 and ``b`` is finite and "
   "nonzero (``1e-300 * exp(800)`` is ``e**109``), as written elsewhere.")
rw("exp_div_regimes", p.true_div(_e, b), p.switch(_lost, p.mul(p.sign(b), p.exp(p.sub(a, _lb))), p.true_div(_e, b)),
   floats,
   "``exp(a) / b`` as ``sign(b) * exp(a - log(|b|))`` where ``exp(a)`` alone is inf or 0 and ``b`` is finite and "
   "nonzero, as written elsewhere.")
# the logistic density written through exp: the square of 1 + exp(a) overflows from a = 355
eq("exp_div_sqr_one_add_exp", p.true_div(_e, p.sqr(p.add(1, _e))), p.mul(p.sigmoid(a), p.sigmoid(p.neg(a))), real(a),
   "``exp(a) / (1 + exp(a))**2`` is ``sigmoid(a) * sigmoid(-a)`` (the logistic density: no overflow).")
# expm1 (Herbie's expm1-def, in the spellings graphs have)
eq("expm1_def", p.sub(p.exp(a), 1), p.expm1(a), real(a), "``exp(a) - 1`` is ``expm1(a)``.")
eq("expm1_def_add", p.add(p.exp(a), -1), p.expm1(a), real(a), "``exp(a) + (-1)`` is ``expm1(a)``.")
eq("expm1_def_neg", p.sub(1, p.exp(a)), p.neg(p.expm1(a)), real(a), "``1 - exp(a)`` is ``-expm1(a)``.")
eq("expm1_add1", p.add(p.expm1(a), 1), p.exp(a), real(a), "``expm1(a) + 1`` is ``exp(a)``.")
eq("expm1_def_term", p.sub(p.add(p.exp(a), b), 1), p.add(p.expm1(a), b), floats,
   "``(exp(a) + b) - 1`` is ``expm1(a) + b``: the 1 cancels inside the exponential's term.")
# a constant beside an exponential holds its 1 (Julia's log2mexp, log(2 - exp(x)), is log1p(-expm1(x)))
_const = real(a) & real(c) & is_constant(c)
rw("constant_sub_exp", p.sub(c, p.exp(a)), p.sub(p.sub(c, 1), p.expm1(a)), _const,
   "``c - exp(a)`` is ``(c - 1) - expm1(a)`` for a constant ``c``: no rounding of ``exp(a)`` near 1 kept.")
rw("exp_add_constant", p.add(p.exp(a), c), p.add(p.expm1(a), p.add(c, 1)), _const,
   "``exp(a) + c`` is ``expm1(a) + (c + 1)`` for a constant ``c``.")
eq("expm1_neg", p.expm1(p.neg(a)), p.neg(p.mul(p.expm1(a), p.exp(p.neg(a)))), real(a),
   "``expm1(-a)`` is ``-expm1(a) * exp(-a)``.")
eq("expm1_neg_div", p.expm1(p.neg(a)), p.neg(p.true_div(p.expm1(a), p.exp(a))), real(a),
   "``expm1(-a)`` is ``-expm1(a) / exp(a)``.")
eq("expm1_2", p.expm1(p.mul(2, a)), p.mul(p.expm1(a), p.add(p.exp(a), 1)), real(a),
   "``expm1(2 * a)`` is ``expm1(a) * (exp(a) + 1)``.")
eq("exp_add_factor", p.add(p.exp(a), p.exp(b)), p.mul(p.exp(b), p.add(1, p.exp(p.sub(a, b)))), floats,
   "A sum of exponentials factors out one of them.")
eq("exp_log1p", p.exp(p.log1p(a)), p.add(1, a), real(a) & within(a, -1, math.inf),
   "``exp(log1p(a))`` is ``1 + a`` for ``a >= -1``.")
eq("expm1_log", p.expm1(p.log(a)), p.sub(a, 1), real(a) & nonnegative(a),
   "``expm1(log(a))`` is ``a - 1`` for ``a >= 0``.")
# the logistic function through exp
eq("exp_div_sigmoid", p.true_div(p.exp(a), p.add(1, p.exp(a))), p.sigmoid(a), real(a),
   "``exp(a) / (1 + exp(a))`` is ``sigmoid(a)``.")
eq("exp_div_sigmoid_r", p.true_div(p.exp(a), p.add(p.exp(a), 1)), p.sigmoid(a), real(a),
   "``exp(a) / (exp(a) + 1)`` is ``sigmoid(a)``.")
eq("sigmoid_def", p.reciprocal(p.add(1, p.exp(p.neg(a)))), p.sigmoid(a), real(a),
   "``1 / (1 + exp(-a))`` is ``sigmoid(a)``.")
eq("sigmoid_def_div", p.true_div(1, p.add(1, p.exp(p.neg(a)))), p.sigmoid(a), real(a),
   "``1 / (1 + exp(-a))``, written as a division, is ``sigmoid(a)``.")
eq("sigmoid_def_mul", p.true_div(b, p.add(1, p.exp(p.neg(a)))), p.mul(b, p.sigmoid(a)), floats,
   "``b / (1 + exp(-a))`` is ``b * sigmoid(a)``.")
_softmax2 = p.true_div(p.exp(a), p.add(p.exp(a), p.exp(b)))
eq("exp_div_sum_sigmoid", _softmax2, p.sigmoid(p.sub(a, b)), floats,
   "``exp(a) / (exp(a) + exp(b))`` is ``sigmoid(a - b)``: a softmax of two.")
rw("exp_div_sum_regimes", _softmax2,
   p.switch(p.lt(p.maximum(p.abs(a), p.abs(b)), 700), _softmax2, p.sigmoid(p.sub(a, b))), floats,
   "``exp(a) / (exp(a) + exp(b))`` as written where ``|a|, |b| < 700``, ``sigmoid(a - b)`` beyond (where an "
   "``exp`` overflows or both underflow): the rounding of ``a - b`` costs ``log2|a - b|`` bits in ``sigmoid``.")
eq("sigmoid_mul_exp_neg", p.mul(p.sigmoid(a), p.exp(p.neg(a))), p.sigmoid(p.neg(a)), real(a),
   "``sigmoid(a) * exp(-a)`` is ``sigmoid(-a)``.")
eq("sigmoid_div_exp", p.true_div(p.sigmoid(a), p.exp(a)), p.sigmoid(p.neg(a)), real(a),
   "``sigmoid(a) / exp(a)`` is ``sigmoid(-a)``.")
eq("sigmoid_neg_mul_exp", p.mul(p.sigmoid(p.neg(a)), p.exp(a)), p.sigmoid(a), real(a),
   "``sigmoid(-a) * exp(a)`` is ``sigmoid(a)``.")
eq("sigmoid_ratio", p.true_div(p.sigmoid(a), p.sigmoid(p.neg(a))), p.exp(a), real(a),
   "``sigmoid(a) / sigmoid(-a)`` is ``exp(a)``.")
