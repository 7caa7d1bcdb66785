"""The numerics theory's arithmetic group: commutativity, associativity, distributivity, identities,
differences of squares and fractions (see :mod:`relations.rules.numerics`).

docs/numerics_arithmetic.md explains each entry under its name (and gives Herbie's name for it).
A guard ``nonzero(b)`` on a divisor keeps an identity off the poles, where the sides' infinities
may take different signs.
"""

from __future__ import annotations

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_constant, nonzero, real

__all__ = ["FAMILY"]

a, b, c, d = p.var("a"), p.var("b"), p.var("c"), p.var("d")
f1 = real(a)
f2 = f1 & real(b)
f3 = f2 & real(c)
f4 = f3 & real(d)

#: The group's family.
FAMILY = Family("numerics_arithmetic", docs="numerics_arithmetic.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite

# Commutativity (one way: the rule is its own reverse)
rw("add_commutative", p.add(a, b), p.add(b, a), f2, "``a + b = b + a``.")
rw("mul_commutative", p.mul(a, b), p.mul(b, a), f2, "``a * b = b * a``.")
rw("fmax_swap", p.maximum(a, b), p.maximum(b, a), f2, "``maximum(a, b) = maximum(b, a)``.")
rw("fmin_swap", p.minimum(a, b), p.minimum(b, a), f2, "``minimum(a, b) = minimum(b, a)``.")

# Associativity
eq("associate_add_r_add", p.add(a, p.add(b, c)), p.add(p.add(a, b), c), f3, "``a + (b + c) = (a + b) + c``.")
eq("associate_add_r_sub", p.add(a, p.sub(b, c)), p.sub(p.add(a, b), c), f3, "``a + (b - c) = (a + b) - c``.")
eq("associate_add_l_sub", p.add(p.sub(a, b), c), p.sub(a, p.sub(b, c)), f3, "``(a - b) + c = a - (b - c)``.")
eq("associate_sub_r_add", p.sub(a, p.add(b, c)), p.sub(p.sub(a, b), c), f3, "``a - (b + c) = (a - b) - c``.")
eq("associate_mul_r_mul", p.mul(a, p.mul(b, c)), p.mul(p.mul(a, b), c), f3, "``a * (b * c) = (a * b) * c``.")
eq("associate_mul_r_div", p.mul(a, p.true_div(b, c)), p.true_div(p.mul(a, b), c), f3,
   "``a * (b / c) = (a * b) / c``.")
eq("associate_mul_l_div", p.mul(p.true_div(a, b), c), p.true_div(p.mul(a, c), b), f3,
   "``(a / b) * c = (a * c) / b``.")
eq("associate_mul_constants", p.mul(a, p.mul(b, c)), p.mul(p.mul(a, b), c), f3 & is_constant(a) & is_constant(b),
   "``a * (b * c) = (a * b) * c`` for constants ``a``, ``b``: the constants meet (and fold).")
eq("associate_div_r_mul", p.true_div(a, p.mul(b, c)), p.true_div(p.true_div(a, b), c), f3 & nonzero(b) & nonzero(c),
   "``a / (b * c) = (a / b) / c`` for ``b, c != 0``.")
eq("associate_div_r_div", p.true_div(a, p.true_div(b, c)), p.mul(p.true_div(a, b), c), f3 & nonzero(b) & nonzero(c),
   "``a / (b / c) = (a / b) * c`` for ``b, c != 0``.")
eq("associate_div_l_div", p.true_div(p.true_div(b, c), a), p.true_div(b, p.mul(c, a)), f3 & nonzero(a) & nonzero(c),
   "``(b / c) / a = b / (c * a)`` for ``a, c != 0``.")
eq("associate_div_l_mul", p.true_div(p.mul(b, c), a), p.mul(b, p.true_div(c, a)), f3,
   "``(b * c) / a = b * (c / a)``.")

# Identities
rw("remove_double_div", p.true_div(1, p.true_div(1, a)), a, f1, "``1 / (1 / a) = a``.")
rw("remove_double_reciprocal", p.reciprocal(p.reciprocal(a)), a, f1, "``reciprocal(reciprocal(a)) = a``.")
eq("reciprocal_def", p.true_div(1, a), p.reciprocal(a), f1, "``1 / a = reciprocal(a)``.")
rw("add_lft_identity", p.add(0, a), a, f1, "``0 + a = a``.")
rw("add_rgt_identity", p.add(a, 0), a, f1, "``a + 0 = a``.")
rw("sub_rgt_identity", p.sub(a, 0), a, f1, "``a - 0 = a``.")
eq("sub0_neg", p.sub(0, a), p.neg(a), f1, "``0 - a = -a``.")
rw("remove_double_neg", p.neg(p.neg(a)), a, f1, "``-(-a) = a``.")
rw("mul_lft_identity", p.mul(1, a), a, f1, "``1 * a = a``.")
rw("mul_rgt_identity", p.mul(a, 1), a, f1, "``a * 1 = a``.")
rw("div_rgt_identity", p.true_div(a, 1), a, f1, "``a / 1 = a``.")
eq("mul_neg1_neg", p.mul(-1, a), p.neg(a), f1, "``-1 * a = -a``.")
eq("count_2", p.add(a, a), p.mul(2, a), f1, "``a + a = 2 * a``.")

# Distributivity
eq("distribute_lft_in", p.mul(a, p.add(b, c)), p.add(p.mul(a, b), p.mul(a, c)), f3, "``a * (b + c) = a*b + a*c``.")
eq("distribute_rgt_in", p.mul(a, p.add(b, c)), p.add(p.mul(b, a), p.mul(c, a)), f3, "``a * (b + c) = b*a + c*a``.")
eq("distribute_lft_out_sub", p.sub(p.mul(a, b), p.mul(a, c)), p.mul(a, p.sub(b, c)), f3,
   "``a*b - a*c = a * (b - c)``.")
eq("distribute_rgt_out_sub", p.sub(p.mul(b, a), p.mul(c, a)), p.mul(a, p.sub(b, c)), f3,
   "``b*a - c*a = a * (b - c)``.")
eq("distribute_lft1_in", p.add(p.mul(b, a), a), p.mul(p.add(b, 1), a), f2, "``b*a + a = (b + 1) * a``.")
eq("distribute_rgt1_in", p.add(a, p.mul(c, a)), p.mul(p.add(c, 1), a), f1 & real(c), "``a + c*a = (c + 1) * a``.")
eq("distribute_lft1_out_sub", p.sub(p.mul(b, a), a), p.mul(p.sub(b, 1), a), f2, "``b*a - a = (b - 1) * a``.")
# a mixture with a point mass: ``(1 - a) + a*b`` is 1 plus ``a`` times ``b``'s distance from 1 (a zero-inflated
# count's ``log((1 - psi) + psi exp(-mu))`` is then ``log1p(psi expm1(-mu))``)
rw("mixture_one", p.add(p.sub(1, a), p.mul(a, b)), p.add(1, p.mul(a, p.sub(b, 1))), f2,
   "``(1 - a) + a*b`` as ``1 + a * (b - 1)``.")

# Signs
eq("distribute_lft_neg_in", p.neg(p.mul(a, b)), p.mul(p.neg(a), b), f2, "``-(a * b) = (-a) * b``.")
eq("distribute_rgt_neg_in", p.neg(p.mul(a, b)), p.mul(a, p.neg(b)), f2, "``-(a * b) = a * (-b)``.")
eq("distribute_neg_in", p.neg(p.add(a, b)), p.add(p.neg(a), p.neg(b)), f2, "``-(a + b) = (-a) + (-b)``.")
eq("distribute_frac_neg", p.true_div(p.neg(a), b), p.neg(p.true_div(a, b)), f2, "``(-a) / b = -(a / b)``.")
eq("distribute_frac_neg2", p.true_div(a, p.neg(b)), p.neg(p.true_div(a, b)), f2 & nonzero(b),
   "``a / (-b) = -(a / b)`` for ``b != 0``.")
eq("distribute_neg_reciprocal", p.reciprocal(p.neg(a)), p.neg(p.reciprocal(a)), f1 & nonzero(a),
   "``reciprocal(-a) = -reciprocal(a)`` for ``a != 0``.")
eq("cancel_sign_sub", p.sub(a, p.mul(p.neg(b), c)), p.add(a, p.mul(b, c)), f3, "``a - (-b)*c = a + b*c``.")
eq("cancel_sub_sign", p.add(a, p.mul(p.neg(b), c)), p.sub(a, p.mul(b, c)), f3, "``a + (-b)*c = a - b*c``.")
eq("sub_flip", p.sub(a, b), p.add(a, p.neg(b)), f2, "``a - b = a + (-b)``.")
eq("sub_negate", p.neg(p.sub(b, a)), p.sub(a, b), f2, "``-(b - a) = a - b``.")
eq("add_flip", p.add(a, b), p.sub(a, p.neg(b)), f2, "``a + b = a - (-b)``.")
eq("neg_sub_neg", p.sub(p.neg(a), b), p.neg(p.add(a, b)), f2, "``(-a) - b = -(a + b)``.")

# Differences of squares
eq("swap_sqr", p.mul(p.mul(a, b), p.mul(a, b)), p.mul(p.mul(a, a), p.mul(b, b)), f2,
   "``(a*b) * (a*b) = (a*a) * (b*b)``.")
eq("difference_of_squares", p.sub(p.mul(a, a), p.mul(b, b)), p.mul(p.add(a, b), p.sub(a, b)), f2,
   "``a*a - b*b = (a + b) * (a - b)``.")
eq("difference_of_sqr_1", p.sub(p.mul(a, a), 1), p.mul(p.add(a, 1), p.sub(a, 1)), f1,
   "``a*a - 1 = (a + 1) * (a - 1)``.")
eq("difference_of_sqr_neg1", p.add(p.mul(a, a), -1), p.mul(p.add(a, 1), p.sub(a, 1)), f1,
   "``a*a + -1 = (a + 1) * (a - 1)``.")
eq("difference_of_sqrs", p.sub(p.sqr(a), p.sqr(b)), p.mul(p.add(a, b), p.sub(a, b)), f2,
   "``sqr(a) - sqr(b) = (a + b) * (a - b)``.")

# Multiplication and division
eq("mult_flip", p.true_div(a, b), p.mul(a, p.true_div(1, b)), f2, "``a / b = a * (1 / b)``.")
eq("mult_flip_reciprocal", p.true_div(a, b), p.mul(a, p.reciprocal(b)), f2, "``a / b = a * reciprocal(b)``.")
eq("div_flip", p.true_div(a, b), p.true_div(1, p.true_div(b, a)), f2 & nonzero(a) & nonzero(b),
   "``a / b = 1 / (b / a)`` for ``a, b != 0``.")

# Fractions
eq("sum_to_mult", p.add(a, b), p.mul(p.add(1, p.true_div(b, a)), a), f2 & nonzero(a),
   "``a + b = (1 + b/a) * a`` for ``a != 0``.")
eq("sub_to_mult", p.sub(a, b), p.mul(p.sub(1, p.true_div(b, a)), a), f2 & nonzero(a),
   "``a - b = (1 - b/a) * a`` for ``a != 0``.")
eq("add_to_fraction", p.add(c, p.true_div(b, a)), p.true_div(p.add(p.mul(c, a), b), a), f3,
   "``c + b/a = (c*a + b) / a``.")
eq("sub_to_fraction", p.sub(c, p.true_div(b, a)), p.true_div(p.sub(p.mul(c, a), b), a), f3,
   "``c - b/a = (c*a - b) / a``.")
eq("times_frac", p.true_div(p.mul(a, b), p.mul(c, d)), p.mul(p.true_div(a, c), p.true_div(b, d)),
   f4 & nonzero(c) & nonzero(d), "``(a*b) / (c*d) = (a/c) * (b/d)`` for ``c, d != 0``.")
eq("frac_add", p.add(p.true_div(a, b), p.true_div(c, d)),
   p.true_div(p.add(p.mul(a, d), p.mul(b, c)), p.mul(b, d)), f4 & nonzero(b) & nonzero(d),
   "``a/b + c/d = (a*d + b*c) / (b*d)`` for ``b, d != 0``.")
eq("frac_sub", p.sub(p.true_div(a, b), p.true_div(c, d)),
   p.true_div(p.sub(p.mul(a, d), p.mul(b, c)), p.mul(b, d)), f4 & nonzero(b) & nonzero(d),
   "``a/b - c/d = (a*d - b*c) / (b*d)`` for ``b, d != 0``.")
eq("sub_recip_shift", p.sub(p.reciprocal(p.add(b, a)), p.reciprocal(a)), p.true_div(p.neg(b), p.mul(a, p.add(b, a))),
   f2 & nonzero(b), "``1/(b + a) - 1/a = -b / (a * (b + a))`` for ``b != 0``: the difference taken exactly.")
eq("frac_times", p.mul(p.true_div(a, b), p.true_div(c, d)), p.true_div(p.mul(a, c), p.mul(b, d)),
   f4 & nonzero(b) & nonzero(d), "``(a/b) * (c/d) = (a*c) / (b*d)`` for ``b, d != 0``.")
eq("frac_2neg", p.true_div(a, b), p.true_div(p.neg(a), p.neg(b)), f2 & nonzero(b),
   "``a / b = (-a) / (-b)`` for ``b != 0``.")
eq("frac_rec", p.true_div(a, p.true_div(1, b)), p.mul(a, b), f2 & nonzero(b),
   "``a / (1 / b) = a * b`` for ``b != 0``.")
