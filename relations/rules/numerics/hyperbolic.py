"""The numerics theory's hyperbolic group: sinh, cosh, tanh and their inverses (see :mod:`relations.rules.numerics`).

docs/numerics_hyperbolic.md explains each entry under its name (and gives Herbie's name for it).
The definitions by ``exp`` cancel near 0 and overflow at large ``|x|``; the ``expm1`` forms
(``sinh_expm1``, ``tanh_expm1``, ``cosh_m1``) keep the digits near 0, and ``log_cosh`` /
``log_sinh`` keep them at large ``x``.
"""

from __future__ import annotations

import math

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import nonzero, real, within

__all__ = ["FAMILY"]

x, y = p.var("x"), p.var("y")
fx = real(x)
fxy = fx & real(y)
above_one = within(x, 1.0, math.inf)

#: The group's family.
FAMILY = Family("numerics_hyperbolic", docs="numerics_hyperbolic.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite

ex, emx = p.exp(x), p.exp(p.neg(x))

# Definitions by exp
eq("sinh_def", p.sinh(x), p.true_div(p.sub(ex, emx), 2), fx, "``sinh(x) = (exp(x) - exp(-x)) / 2``.")
eq("cosh_def", p.cosh(x), p.true_div(p.add(ex, emx), 2), fx, "``cosh(x) = (exp(x) + exp(-x)) / 2``.")
eq("sech_exp", p.true_div(1, p.cosh(x)),
   p.true_div(p.mul(2, p.exp(p.neg(p.abs(x)))), p.add(1, p.exp(p.mul(-2, p.abs(x))))), fx,
   "``1 / cosh(x) = 2 exp(-|x|) / (1 + exp(-2|x|))``: no overflow of ``cosh`` where the secant is subnormal.")
eq("tanh_def_a", p.tanh(x), p.true_div(p.sub(ex, emx), p.add(ex, emx)), fx,
   "``tanh(x) = (exp(x) - exp(-x)) / (exp(x) + exp(-x))``.")
eq("tanh_def_b", p.tanh(x), p.true_div(p.sub(p.exp(p.mul(2, x)), 1), p.add(p.exp(p.mul(2, x)), 1)), fx,
   "``tanh(x) = (exp(2x) - 1) / (exp(2x) + 1)``.")
eq("tanh_def_c", p.tanh(x), p.true_div(p.sub(1, p.exp(p.mul(-2, x))), p.add(1, p.exp(p.mul(-2, x)))), fx,
   "``tanh(x) = (1 - exp(-2x)) / (1 + exp(-2x))``.")
eq("sinh_undef", p.sub(ex, emx), p.mul(2, p.sinh(x)), fx, "``exp(x) - exp(-x) = 2 * sinh(x)``.")
eq("cosh_undef", p.add(ex, emx), p.mul(2, p.cosh(x)), fx, "``exp(x) + exp(-x) = 2 * cosh(x)``.")
eq("sinh_add_cosh", p.add(p.cosh(x), p.sinh(x)), ex, fx, "``cosh(x) + sinh(x) = exp(x)``.")
eq("cosh_sub_sinh", p.sub(p.cosh(x), p.sinh(x)), emx, fx, "``cosh(x) - sinh(x) = exp(-x)``.")
eq("quot_tanh", p.true_div(p.sinh(x), p.cosh(x)), p.tanh(x), fx, "``sinh(x) / cosh(x) = tanh(x)``.")
eq("tanh_sigmoid", p.tanh(x), p.sub(p.mul(2, p.sigmoid(p.mul(2, x))), 1), fx, "``tanh(x) = 2 * sigmoid(2x) - 1``.")

# Forms that keep their digits near 0 or at large |x|
eq("sinh_expm1", p.sinh(x), p.true_div(p.sub(p.expm1(x), p.expm1(p.neg(x))), 2), fx,
   "``sinh(x) = (expm1(x) - expm1(-x)) / 2``.")
eq("tanh_expm1", p.tanh(x), p.true_div(p.expm1(p.mul(2, x)), p.add(p.expm1(p.mul(2, x)), 2)), fx,
   "``tanh(x) = expm1(2x) / (expm1(2x) + 2)``.")
eq("tanh_half_expm1", p.true_div(p.expm1(x), p.add(1, ex)), p.tanh(p.mul(0.5, x)), fx,
   "``expm1(x) / (1 + exp(x)) = tanh(x / 2)`` (how canonicalize and ``local_expm1`` leave ``tanh_def_b``).")
eq("log_sinh", p.log(p.sinh(x)), p.add(x, p.log(p.true_div(p.neg(p.expm1(p.mul(-2, x))), 2))), fx,
   "``log(sinh(x)) = x + log(-expm1(-2x) / 2)`` (both undefined for ``x < 0``).")
eq("log_tanh", p.log(p.tanh(x)), p.sub(p.log1mexp(p.mul(-2, x)), p.softplus(p.mul(-2, x))), fx,
   "``log(tanh(x)) = log1mexp(-2x) - softplus(-2x)``: ``log(1 - exp(-2x)) - log(1 + exp(-2x))`` without the "
   "``tanh`` that rounds to 1 (both undefined for ``x < 0``).")

eq("log_cosh_sinh", p.log(p.cosh(x)), p.log1p(p.mul(2, p.sqr(p.sinh(p.true_div(x, 2))))), fx,
   "``log(cosh(x)) = log1p(2 sinh(x/2)**2)``.")
eq("log_cosh_abs", p.log(p.cosh(x)), p.add(p.abs(x), p.log1p(p.true_div(p.expm1(p.mul(-2, p.abs(x))), 2))), fx,
   "``log(cosh(x)) = |x| + log1p(expm1(-2|x|) / 2)``: no overflow at large ``|x|``.")
_small, _large = p.minimum(p.abs(x), 1), p.maximum(p.abs(x), 1)
rw("log_cosh_regimes", p.log(p.cosh(x)),
   p.switch(p.lt(p.abs(x), 1), p.mul(-0.5, p.log1p(p.neg(p.sqr(p.tanh(_small))))),
            p.add(_large, p.log1p(p.true_div(p.expm1(p.mul(-2, _large)), 2)))), fx,
   "``log(cosh(x))`` as ``-log1p(-tanh(x)**2) / 2`` for ``|x| < 1`` and ``|x| + log1p(expm1(-2|x|) / 2)`` above: "
   "each regime accurate, each branch's input clamped to its side.")

# the log of sech(x)**2 written through tanh (TensorFlow Probability's Tanh bijector's Jacobian): tanh(x) rounds to
# 1 from |x| = 19, and the log is -inf where it is 2 * (log(2) - |x| - softplus(-2|x|)); the spelling itself
# below 1, where that form cancels (log(2) - |x| - softplus(-2|x|) is -x**2/2 there)
_x_large = p.maximum(p.abs(x), 1)
_log1m_tanh2 = p.log1p(p.neg(p.sqr(p.tanh(x))))
rw("log1m_tanh_sqr_regimes", _log1m_tanh2,
   p.switch(p.lt(p.abs(x), 1), _log1m_tanh2,
            p.mul(2, p.sub(p.sub(p.log(2.0), _x_large), p.softplus(p.mul(-2, _x_large))))), fx,
   "``log1p(-tanh(x)**2)`` as written for ``|x| < 1`` and ``2 * (log(2) - |x| - softplus(-2|x|))`` above (no "
   "``tanh`` rounded to 1).")

# the log of 1 - tanh(x): tanh rounds to 1 (a cancellation) above; log(2) - softplus(2x) cancels near 0
_lo, _hi = p.minimum(x, 0.5), p.maximum(x, 0.5)
_log1m_tanh = p.log1p(p.neg(p.tanh(x)))
rw("log1m_tanh_regimes", _log1m_tanh,
   p.switch(p.lt(x, 0.5), p.log1p(p.neg(p.tanh(_lo))), p.sub(math.log(2.0), p.softplus(p.mul(2, _hi)))), fx,
   "``log1p(-tanh(x))`` as written below 1/2 and as ``log(2) - softplus(2x)`` above (``2 * sigmoid(-2x)`` "
   "logged: no ``tanh`` rounded to 1), each branch's input clamped to its side.")

# Symmetry
eq("sinh_neg", p.sinh(p.neg(x)), p.neg(p.sinh(x)), fx, "``sinh(-x) = -sinh(x)``.")
eq("cosh_neg", p.cosh(p.neg(x)), p.cosh(x), fx, "``cosh(-x) = cosh(x)``.")
eq("cosh_fabs", p.cosh(p.abs(x)), p.cosh(x), fx, "``cosh(|x|) = cosh(x)``.")
eq("tanh_neg", p.tanh(p.neg(x)), p.neg(p.tanh(x)), fx, "``tanh(-x) = -tanh(x)``.")

# Sums and multiples
eq("cosh_sum", p.cosh(p.add(x, y)), p.add(p.mul(p.cosh(x), p.cosh(y)), p.mul(p.sinh(x), p.sinh(y))), fxy,
   "``cosh(x + y) = cosh(x)cosh(y) + sinh(x)sinh(y)``.")
eq("cosh_diff", p.cosh(p.sub(x, y)), p.sub(p.mul(p.cosh(x), p.cosh(y)), p.mul(p.sinh(x), p.sinh(y))), fxy,
   "``cosh(x - y) = cosh(x)cosh(y) - sinh(x)sinh(y)``.")
eq("cosh_2", p.cosh(p.mul(2, x)), p.add(p.mul(p.sinh(x), p.sinh(x)), p.mul(p.cosh(x), p.cosh(x))), fx,
   "``cosh(2x) = sinh(x)^2 + cosh(x)^2``.")
eq("sinh_2", p.sinh(p.mul(2, x)), p.mul(2, p.mul(p.sinh(x), p.cosh(x))), fx, "``sinh(2x) = 2 sinh(x) cosh(x)``.")
eq("tanh_2", p.tanh(p.mul(2, x)), p.true_div(p.mul(2, p.tanh(x)), p.add(1, p.mul(p.tanh(x), p.tanh(x)))), fx,
   "``tanh(2x) = 2 tanh(x) / (1 + tanh(x)^2)``.")
eq("one_add_tanh", p.add(1, p.tanh(x)), p.mul(2, p.sigmoid(p.mul(2, x))), fx,
   "``1 + tanh(x) = 2 * sigmoid(2x)``: no cancellation where ``tanh(x)`` is near -1.")
eq("one_sub_tanh", p.sub(1, p.tanh(x)), p.mul(2, p.sigmoid(p.mul(-2, x))), fx,
   "``1 - tanh(x) = 2 * sigmoid(-2x)``: no cancellation where ``tanh(x)`` is near 1.")
eq("cosh_sub_one", p.sub(p.cosh(x), 1), p.mul(2, p.sqr(p.sinh(p.true_div(x, 2)))), fx,
   "``cosh(x) - 1 = 2 sinh(x/2)**2``: no cancellation near 0.")
eq("cosh_1_2", p.cosh(p.true_div(x, 2)), p.sqrt(p.true_div(p.add(p.cosh(x), 1), 2)), fx,
   "``cosh(x / 2) = sqrt((cosh(x) + 1) / 2)``.")
eq("sinh_1_2", p.sinh(p.true_div(x, 2)), p.true_div(p.sinh(x), p.sqrt(p.mul(2, p.add(p.cosh(x), 1)))), fx,
   "``sinh(x / 2) = sinh(x) / sqrt(2 (cosh(x) + 1))``.")
eq("tanh_1_2", p.tanh(p.true_div(x, 2)), p.true_div(p.sinh(x), p.add(p.cosh(x), 1)), fx,
   "``tanh(x / 2) = sinh(x) / (cosh(x) + 1)``.")
eq("tanh_1_2_star", p.tanh(p.true_div(x, 2)), p.true_div(p.sub(p.cosh(x), 1), p.sinh(x)), fx & nonzero(x),
   "``tanh(x / 2) = (cosh(x) - 1) / sinh(x)`` for ``x != 0``.")
half_sum, half_diff = p.true_div(p.add(x, y), 2), p.true_div(p.sub(x, y), 2)
eq("sum_cosh", p.add(p.cosh(x), p.cosh(y)), p.mul(2, p.mul(p.cosh(half_sum), p.cosh(half_diff))), fxy,
   "``cosh(x) + cosh(y) = 2 cosh((x + y)/2) cosh((x - y)/2)``.")

# Inverse functions
eq("asinh_def", p.arcsinh(x), p.log(p.add(x, p.sqrt(p.add(p.mul(x, x), 1)))), fx,
   "``asinh(x) = log(x + sqrt(x*x + 1))``.")
eq("acosh_def", p.arccosh(x), p.log(p.add(x, p.sqrt(p.sub(p.mul(x, x), 1)))), fx,
   "``acosh(x) = log(x + sqrt(x*x - 1))`` (both undefined for ``x < 1``).")
eq("atanh_def", p.arctanh(x), p.true_div(p.log(p.true_div(p.add(1, x), p.sub(1, x))), 2), fx,
   "``atanh(x) = log((1 + x) / (1 - x)) / 2``.")
eq("log_atanh", p.log(p.true_div(p.add(1, x), p.sub(1, x))), p.mul(2, p.arctanh(x)), fx,
   "``log((1 + x) / (1 - x)) = 2 atanh(x)`` (both undefined for ``|x| > 1``).")
eq("log_atanh_neg", p.log(p.true_div(p.sub(1, x), p.add(1, x))), p.mul(-2, p.arctanh(x)), fx,
   "``log((1 - x) / (1 + x)) = -2 atanh(x)`` (both undefined for ``|x| > 1``).")
rw("sinh_asinh", p.sinh(p.arcsinh(x)), x, fx, "``sinh(asinh(x)) = x``.")
rw("cosh_acosh", p.cosh(p.arccosh(x)), x, fx & above_one, "``cosh(acosh(x)) = x`` for ``x >= 1``.")
rw("tanh_atanh", p.tanh(p.arctanh(x)), x, fx & within(x, -1.0, 1.0), "``tanh(atanh(x)) = x`` for ``|x| <= 1``.")
rw("asinh_sinh", p.arcsinh(p.sinh(x)), x, fx, "``asinh(sinh(x)) = x``.")
eq("sinh_atanh", p.sinh(p.arctanh(x)), p.true_div(x, p.sqrt(p.sub(1, p.mul(x, x)))), fx,
   "``sinh(atanh(x)) = x / sqrt(1 - x*x)``.")
eq("cosh_asinh", p.cosh(p.arcsinh(x)), p.sqrt(p.add(p.mul(x, x), 1)), fx, "``cosh(asinh(x)) = sqrt(x*x + 1)``.")
eq("cosh_atanh", p.cosh(p.arctanh(x)), p.true_div(1, p.sqrt(p.sub(1, p.mul(x, x)))), fx,
   "``cosh(atanh(x)) = 1 / sqrt(1 - x*x)``.")
eq("tanh_asinh", p.tanh(p.arcsinh(x)), p.true_div(x, p.sqrt(p.add(1, p.mul(x, x)))), fx,
   "``tanh(asinh(x)) = x / sqrt(1 + x*x)``.")
eq("asinh_2", p.arccosh(p.add(p.mul(2, p.mul(x, x)), 1)), p.mul(2, p.arcsinh(p.abs(x))), fx,
   "``acosh(2x*x + 1) = 2 asinh(|x|)``.")
eq("acosh_2", p.mul(2, p.arccosh(x)), p.arccosh(p.sub(p.mul(2, p.mul(x, x)), 1)), fx & above_one,
   "``2 acosh(x) = acosh(2x*x - 1)`` for ``x >= 1``.")
