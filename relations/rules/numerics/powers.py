"""The numerics theory's powers group: squares, cubes, powers, square roots and absolute values
(see :mod:`relations.rules.numerics`).

docs/numerics_powers.md explains each entry under its name (and gives Herbie's name for it).
A power with a real exponent is defined for a positive base only: identities that move exponents
(``pow_prod_up``, ``pow_div``) are guarded ``positive(a)``; square roots split over products
and quotients of non-negative values only.
"""

from __future__ import annotations

import math

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_constant, nonnegative, nonzero, positive, real

__all__ = ["FAMILY"]

a, b, c = p.var("a"), p.var("b"), p.var("c")
f1 = real(a)
f2 = f1 & real(b)
f3 = f2 & real(c)

#: The group's family.
FAMILY = Family("numerics_powers", docs="numerics_powers.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite

# Powers with constant exponents
eq("unpow_neg1", p.pow(a, -1), p.true_div(1, a), f1, "``a ** -1 = 1 / a``.")
rw("unpow1", p.pow(a, 1), a, f1, "``a ** 1 = a``.")
eq("unpow1_2", p.pow(a, 0.5), p.sqrt(a), f1, "``a ** 0.5 = sqrt(a)``.")
eq("unpow_neg1_2", p.pow(a, -0.5), p.true_div(1, p.sqrt(a)), f1, "``a ** -0.5 = 1 / sqrt(a)``.")
eq("unpow2", p.pow(a, 2), p.mul(a, a), f1, "``a ** 2 = a * a``.")
eq("unpow3", p.pow(a, 3), p.mul(p.mul(a, a), a), f1, "``a ** 3 = (a * a) * a``.")
eq("cube_mult", p.pow(a, 3), p.mul(a, p.mul(a, a)), f1, "``a ** 3 = a * (a * a)``.")
eq("sqr_def", p.sqr(a), p.mul(a, a), f1, "``sqr(a) = a * a``.")
eq("sqr_pow2", p.sqr(a), p.pow(a, 2), f1, "``sqr(a) = a ** 2``.")
eq("sqrt_rec", p.sqrt(p.true_div(1, a)), p.true_div(1, p.sqrt(a)), f1, "``sqrt(1 / a) = 1 / sqrt(a)``.")

# Powers with variable exponents
eq("pow_plus", p.mul(p.pow(a, b), a), p.pow(a, p.add(b, 1)), f2 & positive(a),
   "``a**b * a = a ** (b + 1)`` for ``a > 0``.")
eq("pow_prod_down", p.mul(p.pow(b, a), p.pow(c, a)), p.pow(p.mul(b, c), a), f3 & nonnegative(b) & nonnegative(c),
   "``b**a * c**a = (b * c) ** a`` for ``b, c >= 0``.")
eq("pow_prod_up", p.mul(p.pow(a, b), p.pow(a, c)), p.pow(a, p.add(b, c)), f3 & positive(a),
   "``a**b * a**c = a ** (b + c)`` for ``a > 0``.")
eq("pow_div", p.true_div(p.pow(a, b), p.pow(a, c)), p.pow(a, p.sub(b, c)), f3 & positive(a),
   "``a**b / a**c = a ** (b - c)`` for ``a > 0``.")
eq("pow_flip", p.true_div(1, p.pow(a, b)), p.pow(a, p.neg(b)), f2, "``1 / a**b = a ** -b``.")
eq("pow_sqr", p.mul(p.pow(a, b), p.pow(a, b)), p.pow(a, p.mul(2, b)), f2 & positive(a),
   "``a**b * a**b = a ** (2 * b)`` for ``a > 0``.")
eq("sqr_pow", p.pow(a, b), p.mul(p.pow(a, p.true_div(b, 2)), p.pow(a, p.true_div(b, 2))), f2 & positive(a),
   "``a ** b = a**(b/2) * a**(b/2)`` for ``a > 0``.")
eq("pow_pow", p.pow(p.pow(a, b), c), p.pow(a, p.mul(b, c)), f3 & positive(a),
   "``(a**b)**c = a ** (b * c)`` for ``a > 0``.")
eq("sqrt_pow2", p.pow(p.sqrt(a), b), p.pow(a, p.true_div(b, 2)), f2 & nonnegative(a),
   "``sqrt(a) ** b = a ** (b / 2)`` for ``a >= 0``.")

# Square roots
eq("sqrt_prod", p.sqrt(p.mul(a, b)), p.mul(p.sqrt(a), p.sqrt(b)), f2 & nonnegative(a) & nonnegative(b),
   "``sqrt(a * b) = sqrt(a) * sqrt(b)`` for ``a, b >= 0``.")
eq("sqrt_div", p.sqrt(p.true_div(a, b)), p.true_div(p.sqrt(a), p.sqrt(b)), f2 & nonnegative(a) & positive(b),
   "``sqrt(a / b) = sqrt(a) / sqrt(b)`` for ``a >= 0, b > 0``.")
rw("rem_square_sqrt", p.mul(p.sqrt(a), p.sqrt(a)), a, f1 & nonnegative(a), "``sqrt(a) * sqrt(a) = a`` for ``a >= 0``.")
rw("sqr_sqrt", p.sqr(p.sqrt(a)), a, f1 & nonnegative(a), "``sqr(sqrt(a)) = a`` for ``a >= 0``.")
rw("pow2_sqrt", p.pow(p.sqrt(a), 2), a, f1 & nonnegative(a), "``sqrt(a) ** 2 = a`` for ``a >= 0``.")
rw("sqrt_sqr_nonneg", p.sqrt(p.sqr(a)), a, f1 & nonnegative(a), "``sqrt(sqr(a)) = a`` for ``a >= 0``.")
# Herbie's flip--: a difference of square roots as a quotient by their sum (no cancellation)
eq("flip_sqrt_sub", p.sub(p.sqrt(a), p.sqrt(b)), p.true_div(p.sub(a, b), p.add(p.sqrt(a), p.sqrt(b))),
   f2 & (positive(a) | positive(b)),
   "``sqrt(a) - sqrt(b) = (a - b) / (sqrt(a) + sqrt(b))`` for ``a > 0`` or ``b > 0``.")
eq("flip_sqrt_shift", p.sub(p.sqrt(p.add(a, c)), p.sqrt(a)), p.true_div(c, p.add(p.sqrt(p.add(a, c)), p.sqrt(a))),
   f1 & real(c) & nonzero(c), "``sqrt(a + c) - sqrt(a) = c / (sqrt(a + c) + sqrt(a))`` for ``c != 0``.")
_root_a, _root_ba = p.sqrt(a), p.sqrt(p.add(b, a))
eq("isqrt_sub_shift", p.sub(p.reciprocal(_root_a), p.reciprocal(_root_ba)),
   p.true_div(b, p.mul(p.mul(_root_a, _root_ba), p.add(_root_a, _root_ba))), f2 & nonzero(b),
   "``1/sqrt(a) - 1/sqrt(b + a) = b / (sqrt(a) sqrt(b + a) (sqrt(a) + sqrt(b + a)))`` for ``b != 0``: the "
   "difference taken exactly.")
eq("flip_sqrt_sub_b", p.sub(p.sqrt(a), b), p.true_div(p.sub(a, p.mul(b, b)), p.add(p.sqrt(a), b)), f2 & positive(b),
   "``sqrt(a) - b = (a - b*b) / (sqrt(a) + b)`` for ``b > 0`` (the quadratic formula's cancellation).")
_disc = p.sqrt(p.sub(p.mul(b, b), c))
rw("sqrt_sub_regimes", p.sub(_disc, b),
   p.switch(p.gt(b, 0), p.true_div(p.neg(c), p.switch(p.gt(b, 0), p.add(_disc, b), 1)), p.sub(_disc, b)),
   real(b) & real(c),
   "``sqrt(b*b - c) - b`` as ``-c / (sqrt(b*b - c) + b)`` for ``b > 0`` (no cancellation: the quadratic "
   "formula's root) and as written for ``b <= 0`` (a sum of two nonnegative terms); the divisor of the branch "
   "not taken is 1, so neither its value nor its gradient is inf.")
# a power of one plus a small quantity: ``1 + u`` rounds ``u`` (``(1 + 1e-12) ** 1e12`` keeps 4 digits of ``e``);
# ``exp(b * log1p(u))`` keeps them where ``|log1p(u)| < 1`` (beyond, the power's own ``|b|``-ulp rounding is less
# than ``exp``'s ``|b * log1p(u)|``); the branch not taken reads ``log1p(0)`` (its value and gradient finite)
_u_small = p.lt(p.abs(c), 0.5)
_u_log = p.mul(b, p.log1p(p.switch(_u_small, c, 0)))
_pow1p = p.pow(p.add(1, c), b)
_unknown_b = real(b) & real(c) & ~is_constant(b)  # a constant exponent (2, 0.5) rounds to an ulp or two
rw("pow1p_regimes", _pow1p, p.switch(_u_small, p.exp(_u_log), _pow1p), _unknown_b,
   "``(1 + c) ** b`` as ``exp(b * log1p(c))`` for ``|c| < 1/2`` (the digits of ``c`` that ``1 + c`` rounds "
   "away), as written elsewhere.")
# and the power's difference from one, which cancels where the power is near 1 (at small ``c`` or small ``b``):
# ``expm1(b * log1p(c))`` for ``c > -1`` where the power is within a factor ``e`` of 1 or ``|c| < 1/2``
_u_pos = p.gt(c, -1)
_t = p.mul(b, p.log1p(p.switch(_u_pos, c, 0)))
_near_one = p.and_(_u_pos, p.or_(p.lt(p.abs(_t), 1), _u_small))
rw("pow1p_sub_one_regimes", p.sub(_pow1p, 1), p.switch(_near_one, p.expm1(_t), p.sub(_pow1p, 1)), _unknown_b,
   "``(1 + c) ** b - 1`` as ``expm1(b * log1p(c))`` where ``c > -1`` and ``|b * log1p(c)| < 1`` or ``|c| < "
   "1/2``, as written elsewhere (no cancellation where the power is far from 1).")
rw("pow1p_add_neg_one_regimes", p.add(_pow1p, -1), p.switch(_near_one, p.expm1(_t), p.add(_pow1p, -1)), _unknown_b,
   "``(1 + c) ** b + (-1)``: ``pow1p_sub_one_regimes`` as canonicalize writes it.")
rw("one_sub_pow1p_regimes", p.sub(1, _pow1p), p.switch(_near_one, p.neg(p.expm1(_t)), p.sub(1, _pow1p)), _unknown_b,
   "``1 - (1 + c) ** b`` as ``-expm1(b * log1p(c))``: ``pow1p_sub_one_regimes`` negated.")
# a power of any base less one: expm1 of its log where the base is positive (the power near 1: a small exponent,
# a base near 1), as written elsewhere (a negative base with an integer exponent is real)
_a_pos = p.gt(a, 0)
_a_log = p.mul(b, p.log(p.switch(_a_pos, a, 1)))
_a_near = p.and_(_a_pos, p.lt(p.abs(_a_log), 1))  # (elsewhere expm1's rounding of b * log(a) is the larger)
_pow_ab = p.pow(a, b)
rw("pow_add_neg_one_regimes", p.add(_pow_ab, -1), p.switch(_a_near, p.expm1(_a_log), p.add(_pow_ab, -1)),
   real(a) & real(b) & ~is_constant(b),
   "``a ** b - 1`` as ``expm1(b * log(a))`` where ``a > 0`` and ``|b * log(a)| < 1``, as written elsewhere.")
rw("one_sub_pow_regimes", p.sub(1, _pow_ab), p.switch(_a_near, p.neg(p.expm1(_a_log)), p.sub(1, _pow_ab)),
   real(a) & real(b) & ~is_constant(b),
   "``1 - a ** b`` as ``-expm1(b * log(a))`` where ``a > 0`` and ``|b * log(a)| < 1``, as written elsewhere.")
# the log of one plus a power that overflows (a Burr, log-logistic or Pareto II CDF's ``log1p((x / s) ** -c)`` at
# small ``x``): ``b log(a)`` plus what is left, softplus's, where the base is positive
_pow_inf = p.and_(_a_pos, p.eq(_pow_ab, math.inf))
rw("log1p_pow_regimes", p.log1p(_pow_ab),
   p.switch(_pow_inf, p.softplus(p.mul(b, p.log(p.switch(_pow_inf, a, 1)))), p.log1p(_pow_ab)), real(a) & real(b),
   "``log1p(a ** b)`` as ``softplus(b * log(a))`` where ``a > 0`` and the power overflows, as written elsewhere.")
# a difference of two powers of one exponent, which cancels where the powers are near each other (a small exponent:
# a truncated power law's normalizer ``hi**(1 + alpha) - lo**(1 + alpha)`` near alpha = -1): the smaller's power
# times expm1 of the exponent times the log of the ratio, where both bases are positive and that product is below 1
_both_pos = p.and_(p.gt(a, 0), p.gt(c, 0))
_ratio_log = p.mul(b, p.log(p.true_div(p.switch(_both_pos, a, 1), p.switch(_both_pos, c, 1))))
_powers_near = p.and_(_both_pos, p.lt(p.abs(_ratio_log), 1))
_pow_diff = p.sub(_pow_ab, p.pow(c, b))
rw("pow_sub_pow_regimes", _pow_diff, p.switch(_powers_near, p.mul(p.pow(p.switch(_both_pos, c, 1), b),
                                                                   p.expm1(_ratio_log)), _pow_diff),
   f3 & ~is_constant(b),
   "``a ** b - c ** b`` as ``c ** b * expm1(b * log(a / c))`` where ``a, c > 0`` and ``|b * log(a / c)| < 1``, "
   "as written elsewhere.")
# an input plus the root of its square and a constant (asinh's argument, squareplus): cancels for b < 0
_root = p.sqrt(p.add(p.mul(b, b), c))
rw("sqrt_add_regimes", p.add(_root, b),
   p.switch(p.lt(b, 0), p.true_div(c, p.switch(p.lt(b, 0), p.sub(_root, b), 1)), p.add(_root, b)),
   real(b) & real(c),
   "``sqrt(b*b + c) + b`` as ``c / (sqrt(b*b + c) - b)`` for ``b < 0`` (no cancellation: ``x + sqrt(x*x + 1)`` "
   "is 0 from x = -1e8) and as written for ``b >= 0``; the divisor of the branch not taken is 1.")
rw("sqrt_add_sub_regimes", p.sub(_root, b),
   p.switch(p.gt(b, 0), p.true_div(c, p.switch(p.gt(b, 0), p.add(_root, b), 1)), p.sub(_root, b)),
   real(b) & real(c),
   "``sqrt(b*b + c) - b`` as ``c / (sqrt(b*b + c) + b)`` for ``b > 0`` (no cancellation: a complex square root's "
   "``sqrt(re*re + im*im) - re``) and as written for ``b <= 0``; the divisor of the branch not taken is 1.")
# the root of a sum of squares (a norm, a hypotenuse: GSL's gsl_hypot3, torch.cdist): scaled by the largest magnitude
# where the sum overflows or is below 1e-290 (its digits lost to underflow); the scaled sum is between 1 and 3
_m2 = p.maximum(p.abs(a), p.abs(b))
_aa_bb = p.add(p.mul(a, a), p.mul(b, b))


def _scaled_where_lost(m: p.Node, total: p.Node) -> p.Node:
    """``0 < m < inf`` and the sum of squares ``total`` inf or below 1e-290: where it is taken scaled by ``m``."""
    return p.and_(p.and_(p.gt(m, 0), p.lt(m, math.inf)), p.or_(p.eq(total, math.inf), p.lt(total, 1e-290)))


_lost2 = _scaled_where_lost(_m2, _aa_bb)
_s2 = p.switch(_lost2, _m2, 1)
rw("hypot_regimes", p.sqrt(_aa_bb),
   p.switch(_lost2, p.mul(_s2, p.sqrt(p.add(p.sqr(p.true_div(a, _s2)), p.sqr(p.true_div(b, _s2))))), p.sqrt(_aa_bb)),
   real(a) & real(b),
   "``sqrt(a*a + b*b)`` as ``m * sqrt((a/m)**2 + (b/m)**2)``, ``m = max(|a|, |b|)``, where the sum overflows "
   "(from ``m = 1.3e154``) or is below 1e-290, as written elsewhere.")
_m3 = p.maximum(_m2, p.abs(c))
_aa_bb_cc = p.add(_aa_bb, p.mul(c, c))
_lost3 = _scaled_where_lost(_m3, _aa_bb_cc)
_s3 = p.switch(_lost3, _m3, 1)
_scaled3 = p.add(p.add(p.sqr(p.true_div(a, _s3)), p.sqr(p.true_div(b, _s3))), p.sqr(p.true_div(c, _s3)))
rw("hypot3_regimes", p.sqrt(_aa_bb_cc), p.switch(_lost3, p.mul(_s3, p.sqrt(_scaled3)), p.sqrt(_aa_bb_cc)),
   real(a) & real(b) & real(c),
   "``sqrt(a*a + b*b + c*c)`` as ``m * sqrt((a/m)**2 + (b/m)**2 + (c/m)**2)``, ``m = max(|a|, |b|, |c|)``, where "
   "the sum overflows or is below 1e-290, as written elsewhere.")
# the root of a square and any term (squareplus's ``sqrt(x**2 + b)``, a smoothed absolute value): scaled by the
# larger of ``|a|`` and ``sqrt(|c|)`` where the sum overflows or is below 1e-290
_aa_c = p.add(p.mul(a, a), c)
_m1 = p.maximum(p.abs(a), p.sqrt(p.abs(c)))
_lost1 = _scaled_where_lost(_m1, _aa_c)
_s1 = p.switch(_lost1, _m1, 1)
rw("hypot_shift_regimes", p.sqrt(_aa_c),
   p.switch(_lost1, p.mul(_s1, p.sqrt(p.add(p.sqr(p.true_div(a, _s1)), p.true_div(p.true_div(c, _s1), _s1)))),
            p.sqrt(_aa_c)),
   real(a) & real(c),
   "``sqrt(a*a + c)`` as ``m * sqrt((a/m)**2 + c/m/m)``, ``m = max(|a|, sqrt(|c|))``, where the sum overflows "
   "(from ``m = 1.3e154``) or is below 1e-290, as written elsewhere.")
eq("rem_sqrt_square", p.sqrt(p.mul(a, a)), p.abs(a), f1, "``sqrt(a * a) = abs(a)``.")
eq("sqrt_sqr", p.sqrt(p.sqr(a)), p.abs(a), f1, "``sqrt(sqr(a)) = abs(a)``.")

# Signs of squares and cubes
eq("sqr_neg", p.mul(p.neg(a), p.neg(a)), p.mul(a, a), f1, "``(-a) * (-a) = a * a``.")
eq("sqr_abs", p.mul(p.abs(a), p.abs(a)), p.mul(a, a), f1, "``abs(a) * abs(a) = a * a``.")
eq("sqr_neg_sqr", p.sqr(p.neg(a)), p.sqr(a), f1, "``sqr(-a) = sqr(a)``.")
eq("sqr_abs_sqr", p.sqr(p.abs(a)), p.sqr(a), f1, "``sqr(abs(a)) = sqr(a)``.")
eq("cube_neg", p.pow(p.neg(a), 3), p.neg(p.pow(a, 3)), f1, "``(-a) ** 3 = -(a ** 3)``.")
eq("cube_prod", p.pow(p.mul(a, b), 3), p.mul(p.pow(a, 3), p.pow(b, 3)), f2, "``(a * b) ** 3 = a**3 * b**3``.")
eq("cube_div", p.pow(p.true_div(a, b), 3), p.true_div(p.pow(a, 3), p.pow(b, 3)), f2 & nonzero(b),
   "``(a / b) ** 3 = a**3 / b**3`` for ``b != 0``.")
eq("sqr_prod", p.sqr(p.mul(a, b)), p.mul(p.sqr(a), p.sqr(b)), f2, "``sqr(a * b) = sqr(a) * sqr(b)``.")
eq("sqr_div", p.sqr(p.true_div(a, b)), p.true_div(p.sqr(a), p.sqr(b)), f2 & nonzero(b),
   "``sqr(a / b) = sqr(a) / sqr(b)`` for ``b != 0``.")

# Polynomials
eq("sum_square_pow", p.pow(p.add(a, b), 2), p.add(p.add(p.pow(a, 2), p.mul(2, p.mul(a, b))), p.pow(b, 2)), f2,
   "``(a + b) ** 2 = a**2 + 2*(a*b) + b**2``.")
eq("sub_square_pow", p.pow(p.sub(a, b), 2), p.add(p.sub(p.pow(a, 2), p.mul(2, p.mul(a, b))), p.pow(b, 2)), f2,
   "``(a - b) ** 2 = a**2 - 2*(a*b) + b**2``.")
eq("sum_cubes", p.add(p.pow(a, 3), p.pow(b, 3)),
   p.mul(p.add(p.mul(a, a), p.sub(p.mul(b, b), p.mul(a, b))), p.add(a, b)), f2,
   "``a**3 + b**3 = (a*a + (b*b - a*b)) * (a + b)``.")
eq("difference_cubes", p.sub(p.pow(a, 3), p.pow(b, 3)),
   p.mul(p.add(p.mul(a, a), p.add(p.mul(b, b), p.mul(a, b))), p.sub(a, b)), f2,
   "``a**3 - b**3 = (a*a + (b*b + a*b)) * (a - b)``.")

# Absolute values
rw("fabs_nonneg", p.abs(a), a, f1 & nonnegative(a), "``abs(a) = a`` for ``a >= 0``.")
rw("fabs_fabs", p.abs(p.abs(a)), p.abs(a), f1, "``abs(abs(a)) = abs(a)``.")
rw("fabs_sub", p.abs(p.sub(a, b)), p.abs(p.sub(b, a)), f2, "``abs(a - b) = abs(b - a)``.")
eq("fabs_add", p.abs(p.add(p.abs(a), p.abs(b))), p.add(p.abs(a), p.abs(b)), f2,
   "``abs(abs(a) + abs(b)) = abs(a) + abs(b)``.")
eq("fabs_neg", p.abs(p.neg(a)), p.abs(a), f1, "``abs(-a) = abs(a)``.")
eq("fabs_sqr", p.abs(p.mul(a, a)), p.mul(a, a), f1, "``abs(a * a) = a * a``.")
eq("fabs_sqr_sqr", p.abs(p.sqr(a)), p.sqr(a), f1, "``abs(sqr(a)) = sqr(a)``.")
eq("fabs_mul", p.abs(p.mul(a, b)), p.mul(p.abs(a), p.abs(b)), f2, "``abs(a * b) = abs(a) * abs(b)``.")
eq("fabs_div", p.abs(p.true_div(a, b)), p.true_div(p.abs(a), p.abs(b)), f2, "``abs(a / b) = abs(a) / abs(b)``.")
eq("sqrt_fabs", p.abs(p.sqrt(a)), p.sqrt(a), f1, "``abs(sqrt(a)) = sqrt(a)``.")
eq("fabs_lhs_div", p.true_div(p.abs(a), a), p.sign(a), f1 & nonzero(a), "``abs(a) / a = sign(a)`` for ``a != 0``.")
eq("fabs_rhs_div", p.true_div(a, p.abs(a)), p.sign(a), f1 & nonzero(a), "``a / abs(a) = sign(a)`` for ``a != 0``.")
eq("fabs_sign", p.mul(p.sign(a), a), p.abs(a), f1, "``sign(a) * a = abs(a)``.")
# the sign of a product, a quotient, a power and an exponential from their operands': ``sign(a * b)`` is 0 where
# the product underflows, ``sign(a) * sign(b)`` is not (the guard of ``log_prod_sign_regimes`` on a nested product)
rw("sign_mul", p.sign(p.mul(a, b)), p.mul(p.sign(a), p.sign(b)), f2, "``sign(a * b) = sign(a) * sign(b)``.")
rw("sign_div", p.sign(p.true_div(a, b)), p.mul(p.sign(a), p.sign(b)), f2 & nonzero(b),
   "``sign(a / b) = sign(a) * sign(b)`` for ``b != 0``.")
_sign_q = p.sign(p.true_div(a, b))
rw("sign_div_regimes", _sign_q, p.switch(p.neq(b, 0), p.mul(p.sign(a), p.sign(b)), _sign_q), f2 & ~nonzero(b),
   "``sign(a / b)`` as ``sign(a) * sign(b)`` where ``b != 0`` (0 where the quotient underflows), as written "
   "elsewhere.")
rw("sign_neg", p.sign(p.neg(a)), p.neg(p.sign(a)), f1, "``sign(-a) = -sign(a)``.")
rw("sign_exp", p.sign(p.exp(a)), p.switch(p.eq(a, a), 1, a), f1, "``sign(exp(a)) = 1`` (NaN for a NaN ``a``).")
_sign_pow = p.sign(p.pow(a, b))
rw("sign_pow_regimes", _sign_pow, p.switch(p.gt(a, 0), 1, _sign_pow), f2,
   "``sign(a ** b) = 1`` for ``a > 0`` (where the power underflows too), as written elsewhere.")
