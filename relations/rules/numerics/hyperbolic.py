"""The numerics theory's hyperbolic group (see :mod:`relations.rules.numerics` and docs/numerics_hyperbolic.md)."""

from __future__ import annotations

from relations import patterns as p
from relations.patterns.family import Family

__all__ = ["FAMILY"]

a, b, c = p.var("a"), p.var("b"), p.var("c")

#: The group's family.
FAMILY = Family("numerics_hyperbolic", docs="numerics_hyperbolic.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite
