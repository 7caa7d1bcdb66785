"""A sum whose terms read different inputs, measured a part at a time.

The Student-t entropy, as PyTorch writes it, is ``log(scale) + g(df)``: ``g`` holds
``gammaln(df / 2) - gammaln((df + 1) / 2)`` and the digamma terms, which cancel for large ``df``, and its
series at infinity repairs it (:func:`relations.saturation.series.series_forms`).  But a series is of a graph
of one input, and the region reads two.  Neither is a critical sub-expression (an operand of a head reading two
inputs, :func:`relations.compile.stabilize._narrowed`): the inputs meet in the sum only.

:func:`separated` splits such a sum: for an input ``v``, the part is the terms reading ``v`` alone, the rest
the others (the constant terms with them), where no term reads ``v`` beside another input::

    log(scale) + 0.5 (df + 1) (psi(...) - psi(...)) + 0.5 log(df) + gammaln(0.5 df) + c - gammaln(...)
        ->  part: 0.5 (df + 1) (psi(...) - psi(...)) + 0.5 log(df) + gammaln(0.5 df) - gammaln(...)
            rest: log(scale) + c

The measured stage stabilizes the part and adds the rest back, where the part's form compiles more accurate
than the part and the sum no less accurate than the region.  The terms are read through ``add``, ``sub`` and
``neg`` only: a finite walk of the sum's nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytensor.scalar as ps
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import explicit_graph_inputs

from graph_bridge.nodes import scalar_op_of

__all__ = ["additive_terms", "separated"]


def additive_terms(v: Variable) -> list[tuple[Variable, int]]:
    """The terms of the sum ``v`` with their signs, read through ``add``, ``sub`` and ``neg`` (each a node of one
    output that nothing else in the sum reads); ``[(v, 1)]`` for any other node."""
    found: list[tuple[Variable, int]] = []
    todo: list[tuple[Variable, int]] = [(v, 1)]
    while todo:
        u, sign = todo.pop()
        op = scalar_op_of(u.owner) if u.owner is not None else None
        if isinstance(op, ps.Add) and len(u.owner.outputs) == 1:
            todo += [(i, sign) for i in reversed(u.owner.inputs)]
        elif isinstance(op, ps.Sub):
            todo += [(u.owner.inputs[1], -sign), (u.owner.inputs[0], sign)]
        elif isinstance(op, ps.Neg):
            todo.append((u.owner.inputs[0], -sign))
        else:
            found.append((u, sign))
    return found


def _reads(v: Variable) -> frozenset[Variable]:
    return frozenset(i for i in explicit_graph_inputs([v]) if not isinstance(i, Constant))


def _ordered(vs: list[Variable]) -> list[Variable]:
    seen: dict[Variable, None] = {}
    for v in vs:
        seen.setdefault(v, None)
    return list(seen)


def _signed_sum(terms: list[tuple[Variable, int]]) -> Any:
    total: Any = None
    for v, sign in terms:
        t: Any = v
        total = (t if sign > 0 else -t) if total is None else total + t if sign > 0 else total - t
    return total


def separated(out: Variable, origins: Mapping[Variable, frozenset[Variable]] | None = None,
              ) -> list[tuple[Variable, Variable]]:
    """``(part, rest)`` with ``out = part + rest`` for each input ``v`` of the sum ``out`` (see the module's
    docstring): ``part`` the terms reading ``v`` alone, ``rest`` the others and the constant ones (a constant
    pairs with any part: ``(exp(x) - 1) + (exp(y) - 1)`` split as ``exp(x) - 2`` and ``exp(y)`` cancels); none where a
    term reads ``v`` beside another input, where the part would be the whole, or where ``out`` is no sum of
    two inputs or more.  ``origins``: what an input of ``out`` is computed from (a region's leaf cut from
    its inputs: the Student-t's ``psi(0.5 * df)``), read as those inputs; any other input is its own.  In the
    order of those inputs."""
    terms = additive_terms(out)
    if len(terms) < 2:
        return []
    given = origins or {}
    reads = [frozenset().union(*(given.get(i, frozenset([i])) for i in _reads(t))) for t, _ in terms]
    found = []
    for v in _ordered([i for r in reads for i in r]):
        if any(v in r and len(r) > 1 for r in reads):
            continue
        mine = [k for k, r in enumerate(reads) if r == {v}]
        others = [terms[k] for k, r in enumerate(reads) if r != {v}]
        if not others or not mine:
            continue
        part = _signed_sum([terms[k] for k in mine])
        if part.type.dtype == out.type.dtype:
            found.append((part, _signed_sum(others)))
    return found
