"""The numerics theory's trigonometry group: sin, cos, tan and their inverses (see :mod:`relations.rules.numerics`).

docs/numerics_trigonometry.md explains each entry under its name (and gives Herbie's name for it).
``1 - cos(x)``, ``cos(x) - cos(y)`` and ``sin(x) - sin(y)`` cancel where their terms are close; the
half-angle and sum-to-product forms (``one_sub_cos``, ``diff_cos``, ``diff_sin``) are products that
keep the digits, and ``diff_atan`` turns a difference of arctangents into one ``arctan2``.

An equality holds on the reals wherever both sides are defined, and both sides are undefined on
the same inputs; a rewrite (``fam.rewrite``) goes left to right only, where its right side is
defined on more real inputs than its left (``(sin(x) + sin(y)) / (cos(x) + cos(y))`` at ``y = x + pi``,
a point no pair of floats is at) or is a variable (``tan(arctan(x)) -> x``).  Where the sides differ
at a float input, the guard excludes it: ``sin(arcsin(x)) -> x`` for ``-1 <= x <= 1``,
``(1 - cos(x)) / sin(x) -> tan(x/2)`` for ``x != 0``, ``tan(arcsin(x)) = x / sqrt(1 - x**2)`` for
``-1 < x < 1`` (at ``x = 1`` the floats give ``1.6e16`` and ``inf``).
Identities with ``pi`` in them (``sin(x + pi) = -sin(x)``, ``arcsin(x) = pi/2 - arccos(x)``) are left
out: a float constant is not ``pi``, so the two sides differ by the rounding of ``pi`` (``arccos(1) = 0``
where ``float(pi) - arccos(-1)`` is not).
"""

from __future__ import annotations

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import inside, nonzero, real, within

__all__ = ["FAMILY"]

x, y = p.var("x"), p.var("y")
fx = real(x)
fxy = fx & real(y)

#: The group's family.
FAMILY = Family("numerics_trigonometry", docs="numerics_trigonometry.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite

sx, cx, tx = p.sin(x), p.cos(x), p.tan(x)
sy, cy, ty = p.sin(y), p.cos(y), p.tan(y)


def half(e: object) -> p.Node:
    return p.true_div(e, 2)


# Symmetry
eq("sin_neg", p.sin(p.neg(x)), p.neg(sx), fx, "``sin(-x) = -sin(x)``.")
eq("cos_neg", p.cos(p.neg(x)), cx, fx, "``cos(-x) = cos(x)``.")
eq("cos_fabs", p.cos(p.abs(x)), cx, fx, "``cos(|x|) = cos(x)``.")
eq("tan_neg", p.tan(p.neg(x)), p.neg(tx), fx, "``tan(-x) = -tan(x)``.")

# Squares
eq("sqr_sin_b", p.mul(sx, sx), p.sub(1, p.mul(cx, cx)), fx, "``sin(x)**2 = 1 - cos(x)**2``.")
eq("sqr_cos_b", p.mul(cx, cx), p.sub(1, p.mul(sx, sx)), fx, "``cos(x)**2 = 1 - sin(x)**2``.")
eq("sub_1_cos", p.sub(p.mul(cx, cx), 1), p.neg(p.mul(sx, sx)), fx, "``cos(x)**2 - 1 = -sin(x)**2``.")
eq("sub_1_sin", p.sub(p.mul(sx, sx), 1), p.neg(p.mul(cx, cx)), fx, "``sin(x)**2 - 1 = -cos(x)**2``.")
eq("sqr_sin_a", p.mul(sx, sx), p.sub(0.5, p.mul(0.5, p.cos(p.mul(2, x)))), fx,
   "``sin(x)**2 = 1/2 - cos(2x)/2``.")
eq("sqr_cos_a", p.mul(cx, cx), p.add(0.5, p.mul(0.5, p.cos(p.mul(2, x)))), fx,
   "``cos(x)**2 = 1/2 + cos(2x)/2``.")

# Half angles
eq("one_sub_cos", p.sub(1, cx), p.mul(2, p.sqr(p.sin(half(x)))), fx, "``1 - cos(x) = 2 sin(x/2)**2``.")
eq("cos_sub_one", p.sub(cx, 1), p.mul(-2, p.sqr(p.sin(half(x)))), fx, "``cos(x) - 1 = -2 sin(x/2)**2``.")
eq("hang_0p_tan", p.true_div(sx, p.add(1, cx)), p.tan(half(x)), fx, "``sin(x) / (1 + cos(x)) = tan(x/2)``.")
rw("hang_p0_tan", p.true_div(p.sub(1, cx), sx), p.tan(half(x)), fx & nonzero(x),
   "``(1 - cos(x)) / sin(x) -> tan(x/2)`` for ``x != 0`` (where the left side is ``0 / 0``).")
rw("hang_p_tan", p.true_div(p.add(sx, sy), p.add(cx, cy)), p.tan(half(p.add(x, y))), fxy,
   "``(sin(x) + sin(y)) / (cos(x) + cos(y)) -> tan((x + y)/2)``.")
rw("hang_m_tan", p.true_div(p.sub(sx, sy), p.add(cx, cy)), p.tan(half(p.sub(x, y))), fxy,
   "``(sin(x) - sin(y)) / (cos(x) + cos(y)) -> tan((x - y)/2)``.")

# Sums, differences and multiples of angles
eq("sin_sum", p.sin(p.add(x, y)), p.add(p.mul(sx, cy), p.mul(cx, sy)), fxy,
   "``sin(x + y) = sin(x)cos(y) + cos(x)sin(y)``.")
eq("cos_sum", p.cos(p.add(x, y)), p.sub(p.mul(cx, cy), p.mul(sx, sy)), fxy,
   "``cos(x + y) = cos(x)cos(y) - sin(x)sin(y)``.")
eq("sin_diff", p.sin(p.sub(x, y)), p.sub(p.mul(sx, cy), p.mul(cx, sy)), fxy,
   "``sin(x - y) = sin(x)cos(y) - cos(x)sin(y)``.")
eq("cos_diff", p.cos(p.sub(x, y)), p.add(p.mul(cx, cy), p.mul(sx, sy)), fxy,
   "``cos(x - y) = cos(x)cos(y) + sin(x)sin(y)``.")
rw("tan_sum_rev", p.true_div(p.add(tx, ty), p.sub(1, p.mul(tx, ty))), p.tan(p.add(x, y)), fxy,
   "``(tan(x) + tan(y)) / (1 - tan(x)tan(y)) -> tan(x + y)``.")
eq("sin_2", p.sin(p.mul(2, x)), p.mul(2, p.mul(sx, cx)), fx, "``sin(2x) = 2 sin(x)cos(x)``.")
eq("cos_2", p.cos(p.mul(2, x)), p.sub(p.mul(cx, cx), p.mul(sx, sx)), fx, "``cos(2x) = cos(x)**2 - sin(x)**2``.")
eq("sin_3", p.sin(p.mul(3, x)), p.sub(p.mul(3, sx), p.mul(4, p.pow(sx, 3))), fx,
   "``sin(3x) = 3 sin(x) - 4 sin(x)**3``.")
eq("cos_3", p.cos(p.mul(3, x)), p.sub(p.mul(4, p.pow(cx, 3)), p.mul(3, cx)), fx,
   "``cos(3x) = 4 cos(x)**3 - 3 cos(x)``.")
rw("tan_2_rev", p.true_div(p.mul(2, tx), p.sub(1, p.mul(tx, tx))), p.tan(p.mul(2, x)), fx,
   "``2 tan(x) / (1 - tan(x)**2) -> tan(2x)``.")
eq("tan_quot", tx, p.true_div(sx, cx), fx, "``tan(x) = sin(x) / cos(x)``.")

# Sums to products and products to sums
eq("diff_sin", p.sub(sx, sy), p.mul(2, p.mul(p.sin(half(p.sub(x, y))), p.cos(half(p.add(x, y))))), fxy,
   "``sin(x) - sin(y) = 2 sin((x - y)/2) cos((x + y)/2)``.")
eq("diff_cos", p.sub(cx, cy), p.mul(-2, p.mul(p.sin(half(p.sub(x, y))), p.sin(half(p.add(x, y))))), fxy,
   "``cos(x) - cos(y) = -2 sin((x - y)/2) sin((x + y)/2)``.")
eq("sum_sin", p.add(sx, sy), p.mul(2, p.mul(p.sin(half(p.add(x, y))), p.cos(half(p.sub(x, y))))), fxy,
   "``sin(x) + sin(y) = 2 sin((x + y)/2) cos((x - y)/2)``.")
eq("sum_cos", p.add(cx, cy), p.mul(2, p.mul(p.cos(half(p.add(x, y))), p.cos(half(p.sub(x, y))))), fxy,
   "``cos(x) + cos(y) = 2 cos((x + y)/2) cos((x - y)/2)``.")
eq("cos_mult", p.mul(cx, cy), half(p.add(p.cos(p.add(x, y)), p.cos(p.sub(x, y)))), fxy,
   "``cos(x)cos(y) = (cos(x + y) + cos(x - y)) / 2``.")
eq("sin_mult", p.mul(sx, sy), half(p.sub(p.cos(p.sub(x, y)), p.cos(p.add(x, y)))), fxy,
   "``sin(x)sin(y) = (cos(x - y) - cos(x + y)) / 2``.")
eq("sin_cos_mult", p.mul(sx, cy), half(p.add(p.sin(p.sub(x, y)), p.sin(p.add(x, y)))), fxy,
   "``sin(x)cos(y) = (sin(x - y) + sin(x + y)) / 2``.")

# Arctangents
eq("diff_atan", p.sub(p.arctan(x), p.arctan(y)), p.arctan2(p.sub(x, y), p.add(1, p.mul(x, y))), fxy,
   "``arctan(x) - arctan(y) = arctan2(x - y, 1 + x y)``.")
eq("sum_atan", p.add(p.arctan(x), p.arctan(y)), p.arctan2(p.add(x, y), p.sub(1, p.mul(x, y))), fxy,
   "``arctan(x) + arctan(y) = arctan2(x + y, 1 - x y)``.")

# Inverse functions
unit = fx & within(x, -1.0, 1.0)
# At x = +-1 (and x = 0 for tan_acos) both sides are undefined on the reals, but the floats give one side
# a finite value: tan(arcsin(1)) = 1.6e16 where 1 / sqrt(0) = inf, cos(arcsin(1)) = 6e-17 where
# sqrt(0) = 0.  A union there is unsound (congruence spreads it: 1 / tan(arcsin(1)) joins 0), so these
# hold inside the open domain only.
open_unit = fx & inside(x, -1.0, 1.0)
rw("sin_asin", p.sin(p.arcsin(x)), x, unit, "``sin(arcsin(x)) -> x`` for ``-1 <= x <= 1``.")
rw("cos_acos", p.cos(p.arccos(x)), x, unit, "``cos(arccos(x)) -> x`` for ``-1 <= x <= 1``.")
rw("tan_atan", p.tan(p.arctan(x)), x, fx, "``tan(arctan(x)) -> x``.")
eq("cos_asin", p.cos(p.arcsin(x)), p.sqrt(p.sub(1, p.mul(x, x))), open_unit,
   "``cos(arcsin(x)) = sqrt(1 - x**2)`` for ``-1 < x < 1``.")
eq("sin_acos", p.sin(p.arccos(x)), p.sqrt(p.sub(1, p.mul(x, x))), open_unit,
   "``sin(arccos(x)) = sqrt(1 - x**2)`` for ``-1 < x < 1``.")
eq("tan_asin", p.tan(p.arcsin(x)), p.true_div(x, p.sqrt(p.sub(1, p.mul(x, x)))), open_unit,
   "``tan(arcsin(x)) = x / sqrt(1 - x**2)`` for ``-1 < x < 1``.")
eq("tan_acos", p.tan(p.arccos(x)), p.true_div(p.sqrt(p.sub(1, p.mul(x, x))), x), open_unit & nonzero(x),
   "``tan(arccos(x)) = sqrt(1 - x**2) / x`` for ``-1 < x < 1``, ``x != 0``.")
eq("sin_atan", p.sin(p.arctan(x)), p.true_div(x, p.sqrt(p.add(1, p.mul(x, x)))), fx,
   "``sin(arctan(x)) = x / sqrt(1 + x**2)``.")
eq("cos_atan", p.cos(p.arctan(x)), p.true_div(1, p.sqrt(p.add(1, p.mul(x, x)))), fx,
   "``cos(arctan(x)) = 1 / sqrt(1 + x**2)``.")
eq("asin_neg", p.arcsin(p.neg(x)), p.neg(p.arcsin(x)), fx, "``arcsin(-x) = -arcsin(x)``.")
eq("atan_neg", p.arctan(p.neg(x)), p.neg(p.arctan(x)), fx, "``arctan(-x) = -arctan(x)``.")
eq("acos_1m", p.arccos(p.sub(1, x)), p.mul(2, p.arcsin(p.sqrt(p.true_div(x, 2)))), fx,
   "``arccos(1 - x) = 2 arcsin(sqrt(x / 2))`` (both real for ``0 <= x <= 2`` only): no cancellation in "
   "``1 - x`` near 0.")
