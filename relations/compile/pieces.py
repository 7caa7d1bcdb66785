"""A region's own branches as regimes: ``abs``, ``sign``, ``maximum`` and ``minimum`` split it in two pieces.

PyTorch's Laplace quantile, ``-sign(q - 0.5) * log1p(-2 |q - 0.5|)``, is ``-inf`` in float32 below
``q = 3e-8``, where ``q - 0.5`` rounds to ``-0.5``; its value there is ``log(2 q)``.  No identity of the
theory reaches it: the e-graph's classes are equal everywhere, and ``|q - 0.5|`` is ``0.5 - q`` on one side
of ``0.5`` only.  Herbie's regimes split on an input at thresholds it infers; here the graph states its own
threshold.  :func:`pieces` reads the first such node (in topological order) whose readers up to the output are
Elemwise nodes, and writes the region once per side, every such node of that comparison over the same operands
replaced by what it equals there::

    -sign(u) * log1p(-2 |u|),  u = q - 0.5
        u < 0:  -(-1) * log1p(-2 (-u))       (stabilized alone: log(2) + log(q))
        u > 0:  -(1) * log1p(-2 u)

:func:`by_pieces` stabilizes each piece alone and joins them, ``switch(u < 0, low, switch(u > 0, high,
region))``: the region itself where the operands tie or are NaN, so the form equals the region at every
point.  One split a region: a piece is not split again, and it has one node fewer of the kind split.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.graph.basic import Apply, Constant, Variable, equal_computations
from pytensor.graph.replace import clone_replace
from pytensor.graph.traversal import toposort
from pytensor.tensor.elemwise import Elemwise

from graph_bridge.nodes import scalar_op_of

__all__ = ["PIECEWISE", "Pieces", "by_pieces", "pieces"]

#: The scalar ops whose value is one of their operands, or a sign, on either side of a comparison.
PIECEWISE: tuple[type, ...] = (ps.Abs, ps.Sign, ps.Maximum, ps.Minimum)

#: ``(low, high, low piece, high piece)``: where ``low`` holds the region is the low piece, where ``high``
#: holds the high piece.
Pieces = tuple[Variable, Variable, Variable, Variable]


def _sides(op: ps.ScalarOp, operands: list[Variable]) -> tuple[Variable, Variable, Variable, Variable]:
    """``(low, high, value where low, value where high)`` of one piecewise node; the values keep its shape."""
    if isinstance(op, (ps.Abs, ps.Sign)):
        (u,) = operands
        low, high = pt.lt(u, 0), pt.gt(u, 0)
        if isinstance(op, ps.Abs):
            return low, high, pt.neg(u), u
        dtype = u.type.dtype
        return low, high, pt.second(u, np.asarray(-1, dtype=dtype)), pt.second(u, np.asarray(1, dtype=dtype))
    a, b = operands
    low, high = pt.lt(a, b), pt.gt(a, b)
    small, large = pt.second(b, a), pt.second(a, b)  # a and b, each broadcast as the node broadcasts them
    return (low, high, large, small) if isinstance(op, ps.Maximum) else (low, high, small, large)


def _kind(op: object) -> int:
    """Which comparison a piecewise op splits at: ``abs`` and ``sign`` at their operand's sign (0), ``maximum``
    and ``minimum`` at their operands' order (1); -1 for any other op."""
    return 0 if isinstance(op, (ps.Abs, ps.Sign)) else 1 if isinstance(op, (ps.Maximum, ps.Minimum)) else -1


def _elementwise_above(node: Apply, nodes: list[Apply]) -> bool:
    """Whether every node that reads ``node``'s output, directly or not, up to the output (the last of ``nodes``,
    a topological order) is an Elemwise: then an entry of the output reads the entry of the node at its own
    index (``abs(x)[::-1] + x`` would split ``x[i]`` at the sign of ``x[n - 1 - i]``), and the comparison has the
    output's shape or broadcasts to it."""
    above = {node.outputs[0]}
    for n in nodes:
        if any(i in above for i in n.inputs):
            if not isinstance(n.op, Elemwise):
                return False
            above.update(n.outputs)
    out = nodes[-1].outputs[0]
    return out.type.ndim >= node.outputs[0].type.ndim


def pieces(v: Variable) -> Pieces | None:
    """The two pieces of ``v`` at its first piecewise node (:data:`PIECEWISE`) over an operand that is not a
    constant, every node splitting at the same comparison replaced (``abs(u)`` and ``sign(u)``, ``u`` the same
    variable or the same computation); ``None`` where ``v`` has none."""
    nodes = list(toposort([v]))  # (a generator in PyTensor 3.3)
    for node in nodes:
        kind = _kind(scalar_op_of(node))
        if kind < 0 or all(isinstance(i, Constant) for i in node.inputs) or not _elementwise_above(node, nodes):
            continue
        low, high, _, _ = _sides(scalar_op_of(node), list(node.inputs))  # the comparison every node below splits at
        lows: dict[Variable, Variable] = {}
        highs: dict[Variable, Variable] = {}
        for n in nodes:
            op = scalar_op_of(n)
            if _kind(op) != kind or len(n.inputs) != len(node.inputs) or not _elementwise_above(n, nodes):
                continue
            if n.inputs == node.inputs or equal_computations(list[Any](n.inputs), list[Any](node.inputs)):
                out = n.outputs[0]
                _, _, at_low, at_high = _sides(op, list(n.inputs))
                # (the node's dtype: maximum(y, 0) reads an int8 0, and its low piece is that 0)
                lows[out], highs[out] = pt.cast(at_low, out.type.dtype), pt.cast(at_high, out.type.dtype)
        return low, high, clone_replace([v], replace=lows)[0], clone_replace([v], replace=highs)[0]
    return None


def by_pieces(v: Variable, stabilize: Callable[[Variable], Variable | None]) -> Variable | None:
    """``switch(low, stabilize(low piece), switch(high, stabilize(high piece), v))`` (:func:`pieces`), where
    ``stabilize`` (a form, or ``None`` where it finds none) changed either piece; else ``None``."""
    split = pieces(v)
    if split is None:
        return None
    low, high, lows, highs = split
    found = [stabilize(lows), stabilize(highs)]
    if all(f is None for f in found):
        return None
    at_low, at_high = (lows if found[0] is None else found[0]), (highs if found[1] is None else found[1])
    form = pt.switch(low, at_low, pt.switch(high, at_high, v))
    return form if form.type == v.type else None
