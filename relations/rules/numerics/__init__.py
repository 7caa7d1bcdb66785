"""The numerics theory: identities of real arithmetic and PyTensor's special functions, one line each.

Grouped as Herbie groups its rules (``src/core/rules.rkt``): arithmetic (commutativity,
associativity, distributivity, identities, differences of squares, fractions), powers and
roots, exponentials, logarithms, the special functions PyTensor has (erf, erfc, erfcx, gamma,
gammaln, sigmoid, softplus, log1p, expm1, log1mexp), hyperbolic and trigonometric functions.  Each group is a
:class:`~relations.patterns.family.Family` in its own module, explained on its own docs page:

- an **equality** (``fam.equal``) holds both ways on the whole domain its guard states;
- a **rewrite** (``fam.rewrite``) holds left to right only (its right side is a variable or a
  constant, or it is defined on more inputs than its left side);
- a **guard** that is not a type (``positive(a)``, ``nonzero(b)``, ``within(x, -1, 1)``) is read
  from value intervals (:mod:`graph_bridge.intervals`; in an e-graph, the class's interval), so
  an identity is never applied where its condition is unknown.

Every identity is checked on exact values (mpmath) over its guarded domain, forward, backward
and both sides given, by ``tests/test_numerics_theory.py``.  The theory is for saturation (all
entries are choices); ``relations.stabilize`` runs it with the query engine and picks the form
with the least measured error.  Importing this package is not free (a few hundred relations);
``relations`` does not import it until a numerics call needs it.
"""

from __future__ import annotations

from relations.patterns.family import Family
from relations.rules.numerics import (
    arithmetic,
    exponentials,
    hyperbolic,
    logarithms,
    powers,
    special,
    trigonometry,
)

__all__ = ["GROUPS", "NUMERICS_RULES"]

#: The theory's groups, in the order saturation tries them.
GROUPS: dict[str, Family] = {
    m.FAMILY.name: m.FAMILY for m in (arithmetic, powers, exponentials, logarithms, special, hyperbolic, trigonometry)
}
#: Every relation of the theory (an equality gives two), group by group.
NUMERICS_RULES: tuple = tuple(r for fam in GROUPS.values() for r in fam.rules)
