"""Cancellation sites: sums whose terms can cancel, and the cost that extracts the form with fewest of them.

A subtraction loses the digits its operands share: ``softplus(x) - x`` at ``x = 30`` is
``30.000000000000094 - 30``, and the rounding of ``softplus`` is all that is left.  No Op is
unstable there (the count of :func:`relations.saturation.stability.unstable` Ops is 0 on both
``softplus(x) - x`` and ``softplus(-x)``), so the stabilizing pass's first criterion cannot tell
them apart.  A *cancellation site* is an Add or Sub node two of whose terms (a term read through
negations and constant factors):

- may have opposite signs (their intervals, :func:`graph_bridge.intervals.interval_of`, do not
  say both are ``>= 0`` or both ``<= 0``: ``sqrt(x + 1) + sqrt(x)`` is no site, ``sqrt(x + 1) -
  sqrt(x)`` is one);
- are not both exact: one is computed by a function (``softplus(x)``, ``cos(x)``), not an input
  or a constant (``x - y`` of two inputs rounds once: no site);
- can be close: one is a constant (``1 - cos(x)``), or both read a common input (``softplus(x) -
  x``; ``exp(x) - y`` is no site).

Before/After, sites counted::

    softplus(x) - x          1        softplus(-x)                  0
    1 - cos(x)               1        2 * sin(x / 2)**2             0
    sqrt(x + 1) - sqrt(x)    1        1 / (sqrt(x + 1) + sqrt(x))   0

The count is a static estimate (a site cancels at some inputs, perhaps none); the stabilizing pass
replaces a form with fewer sites only after measuring it (:mod:`relations.compile.stabilize`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytensor.scalar as ps
from pytensor.graph.basic import Constant, Variable

from graph_bridge.interval_type import Interval
from graph_bridge.intervals import interval_of
from graph_bridge.monotonicity import scalar_constant
from graph_bridge.nodes import scalar_op_of
from graph_bridge.traverse import bottom_up, owned_variables
from relations.saturation.stability import stability_cost

__all__ = ["SITE_WEIGHT", "Sites", "cancellation_cost", "cancellation_sites", "stripped", "terms"]

#: Weight of one site in :func:`cancellation_cost`: below one unstable node (1.0), above a region's measured
#: seconds, so extraction takes the fewest unstable Ops, then the fewest sites, then the cheapest.
SITE_WEIGHT = 1e-2


def terms(v: Variable) -> list[tuple[Variable, int]]:
    """The terms of an Add or Sub node ``v``, each ``(core, sign)``: read through ``neg`` and a product with one
    constant (``sign`` is that constant's sign, -1 for a negation); ``[]`` for another node."""
    node = v.owner
    op = scalar_op_of(node)
    if isinstance(op, ps.Add):
        raw = [(i, 1) for i in node.inputs]
    elif isinstance(op, ps.Sub):
        raw = [(node.inputs[0], 1), (node.inputs[1], -1)]
    else:
        return []
    return [stripped(i, s) for i, s in raw]


def stripped(v: Variable, sign: int) -> tuple[Variable, int]:
    """``(core, sign)`` of ``v`` read through negations and products with one nonzero constant (``-2 * x`` is
    ``(x, -sign)``)."""
    while v.owner is not None:
        op = scalar_op_of(v.owner)
        if isinstance(op, ps.Neg):
            v, sign = v.owner.inputs[0], -sign
            continue
        if isinstance(op, ps.Mul) and len(v.owner.inputs) == 2:
            consts = [scalar_constant(i) for i in v.owner.inputs]
            k = 0 if consts[0] is not None else 1 if consts[1] is not None else None
            if k is not None and consts[k] != 0:
                v, sign = v.owner.inputs[1 - k], sign * (1 if consts[k] > 0 else -1)  # type: ignore[operator]
                continue
        break
    return v, sign


def _exact(v: Variable) -> bool:
    """An input or a constant (maybe broadcast by a DimShuffle): a value with no rounding of its own."""
    return v.owner is None or scalar_constant(v) is not None


class Sites:
    """Counts cancellation sites, keeping the intervals and input sets it reads (one per extraction or graph)."""

    def __init__(self) -> None:
        self._intervals: dict[Variable, Interval] = {}
        self._inputs: dict[Variable, frozenset[Variable]] = {}

    def _sign(self, v: Variable, sign: int) -> int:
        """``+1`` where ``sign * v >= 0`` everywhere, ``-1`` where ``<= 0``, else 0."""
        iv = interval_of(v, self._intervals)
        s = 1 if iv.lo >= 0 else -1 if iv.hi <= 0 else 0
        return s * sign

    def _leaves(self, v: Variable) -> frozenset[Variable]:
        """The inputs ``v`` reads (not its constants); bottom-up, no recursion (a model's graph is deep)."""
        known = self._inputs
        for u in bottom_up([v], known.__contains__):
            if u.owner is None:
                known[u] = frozenset() if isinstance(u, Constant) else frozenset([u])
            else:
                known[u] = frozenset().union(*(known[i] for i in u.owner.inputs))
        return known[v]

    def site(self, v: Variable) -> bool:
        """Whether ``v``'s node is a cancellation site (see the module)."""
        found = [(c, s) for c, s in terms(v) if scalar_constant(c) != 0.0]
        for k, (a, sa) in enumerate(found):
            for b, sb in found[k + 1:]:
                if _exact(a) and _exact(b):
                    continue  # two inputs or constants: one rounding
                signs = self._sign(a, sa), self._sign(b, sb)
                if signs[0] == signs[1] != 0:
                    continue  # same sign: the sum cannot cancel
                if scalar_constant(a) is not None or scalar_constant(b) is not None or (
                    self._leaves(a) & self._leaves(b)
                ):
                    return True
        return False

    def count(self, outputs: Sequence[Variable]) -> int:
        """The sites among the nodes of ``outputs`` (each node once)."""
        return sum(self.site(v) for v in owned_variables(list(outputs)))


def cancellation_sites(outputs: Sequence[Variable]) -> int:
    """The cancellation sites of the graph of ``outputs`` (see the module)."""
    return Sites().count(outputs)


def cancellation_cost(shape_of: Callable[[Variable], Any] | None = None) -> Callable[[Variable], float]:
    """:func:`relations.saturation.stability.stability_cost` plus :data:`SITE_WEIGHT` per cancellation site."""
    base, sites = stability_cost(shape_of), Sites()

    def cost(v: Variable) -> float:
        return base(v) + (SITE_WEIGHT if v.owner is not None and sites.site(v) else 0.0)

    return cost
