"""The numerics theory's logarithms group (see :mod:`relations.rules.numerics` and docs/numerics_logarithms.md)."""

from __future__ import annotations

from relations import patterns as p
from relations.patterns.family import Family

__all__ = ["FAMILY"]

a, b, c = p.var("a"), p.var("b"), p.var("c")

#: The group's family.
FAMILY = Family("numerics_logarithms", docs="numerics_logarithms.md", choice=True)
eq, rw = FAMILY.equal, FAMILY.rewrite
