"""The numerics theory's exponentials group: exp, expm1, exp2 (see :mod:`relations.rules.numerics`).

docs/numerics_exponentials.md explains each entry under its name.
"""

from __future__ import annotations

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_float

__all__ = ["FAMILY"]

a, b, c = p.var("a"), p.var("b"), p.var("c")
floats = is_float(a) & is_float(b)

#: The group's family.
FAMILY = Family("numerics_exponentials", docs="numerics_exponentials.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite

eq("exp_sum", p.exp(p.add(a, b)), p.mul(p.exp(a), p.exp(b)), floats, "The exponential of a sum is a product.")
eq("exp_diff", p.exp(p.sub(a, b)), p.true_div(p.exp(a), p.exp(b)), floats,
   "The exponential of a difference is a quotient.")
eq("exp_neg", p.exp(p.neg(a)), p.reciprocal(p.exp(a)), is_float(a), "The exponential of a negation is a reciprocal.")
eq("expm1_def", p.sub(p.exp(a), 1), p.expm1(a), is_float(a), "``exp(a) - 1`` is ``expm1(a)``.")
