"""Monotonicity as a fact: the direction of an Elemwise in one operand, on that operand's range.

``direction(node, k, interval)`` is ``+1`` where ``node``'s output increases
strictly with its input ``k`` over every value of ``interval`` (the other
inputs held at their constant values), ``-1`` where it decreases strictly,
``None`` where it is neither or cannot be told.  The table follows the
scalar Op and, for a binary Op, the constant's value and side:

- increasing everywhere: ``exp``, ``exp2``, ``expm1``, ``sigmoid``,
  ``softplus``, ``tanh``, ``sinh``, ``arcsinh``, ``arctan``, ``erf``,
  ``x + c``, ``x - c``, ``x * c`` and ``x / c`` with ``c > 0``, ``c ** x``
  with ``c > 1``, ``x ** n`` with ``n`` an odd positive integer;
- decreasing everywhere: ``-x``, ``erfc``, ``erfcx``, ``c - x``, ``x * c``
  and ``x / c`` with ``c < 0``, ``c ** x`` with ``0 < c < 1``;
- on part of the line: ``log``, ``log2``, ``log10``, ``sqrt`` (``x >= 0``),
  ``log1p`` (``x >= -1``), ``arccosh`` (``x >= 1``), ``arctanh``
  (``-1 <= x <= 1``), ``sqr``, ``abs``, ``cosh`` (up for ``x >= 0``, down
  for ``x <= 0``), ``1 / x`` and ``c / x`` (down for ``c > 0`` on a range
  of one sign), ``x ** c`` (``x >= 0``: up for ``c > 0``, down for
  ``c < 0`` on ``x > 0``).

PyMC's censored variables read it (pymc #8363: an increasing ``f`` moves
into a censoring, ``f(clip(x, lo, hi)) = clip(f(x), f(lo), f(hi))``; a
decreasing one swaps the bounds), and a guard may read it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytensor.scalar as ps
from pytensor.graph.basic import Variable
from pytensor.tensor.elemwise import Elemwise

from graph_bridge.interval_type import Interval
from graph_bridge.nodes import constant_data

__all__ = ["DOWN", "UP", "direction", "scalar_constant"]

UP, DOWN = 1, -1

_EVERYWHERE_UP = (
    ps.Exp, ps.Exp2, ps.Expm1, ps.Sigmoid, ps.Softplus, ps.Tanh, ps.Sinh, ps.ArcSinh, ps.ArcTan, ps.Erf,
)
_EVERYWHERE_DOWN = (ps.Neg, ps.Erfc, ps.Erfcx)


def _on(floor: float, ceiling: float = np.inf) -> Callable[[Interval], int | None]:
    return lambda a: UP if a.within(floor, ceiling) else None


def _even(a: Interval) -> int | None:
    """``sqr``, ``abs``, ``cosh``: up on the non-negative half, down on the non-positive one."""
    return UP if a.nonnegative() else DOWN if a.nonpositive() else None


_PARTIAL: dict[type, Callable[[Interval], int | None]] = {
    ps.Log: _on(0.0),
    ps.Log2: _on(0.0),
    ps.Log10: _on(0.0),
    ps.Sqrt: _on(0.0),
    ps.Log1p: _on(-1.0),
    ps.ArcCosh: _on(1.0),
    ps.ArcTanh: _on(-1.0, 1.0),
    ps.Sqr: _even,
    ps.Abs: _even,
    ps.Cosh: _even,
    ps.Reciprocal: lambda a: DOWN if a.nonzero() else None,
}


def scalar_constant(v: Variable) -> float | None:
    """The value of ``v`` where it is a constant of one element (through the DimShuffle that pads it,
    :func:`graph_bridge.nodes.constant_data`), else ``None``."""
    data = constant_data(v)
    if data is None or data.size != 1 or data.dtype.kind not in "biuf":
        return None
    value = float(data.reshape(()))
    return None if np.isnan(value) else value


def _binary(op: Any, k: int, c: float, a: Interval) -> int | None:
    """The direction of a binary scalar Op in its input ``k``, the other input the constant ``c``."""
    sign = UP if c > 0 else DOWN if c < 0 else None
    if isinstance(op, ps.Add) or (isinstance(op, ps.Sub) and k == 0):
        return UP
    if isinstance(op, ps.Sub):  # c - x
        return DOWN
    if isinstance(op, ps.Mul) or (isinstance(op, ps.TrueDiv) and k == 0):
        return sign
    if isinstance(op, ps.TrueDiv):  # c / x, on a range of one sign
        return None if sign is None or not a.nonzero() else -sign
    if isinstance(op, ps.Pow) and k == 1:  # c ** x
        return UP if c > 1 else DOWN if 0 < c < 1 else None
    if isinstance(op, ps.Pow):  # x ** c
        if c > 0 and c == int(c) and int(c) % 2 == 1:
            return UP
        if c > 0 and a.nonnegative():
            return UP
        return DOWN if c < 0 and a.positive() else None
    return None


def direction(node: Any, k: int, interval: Interval) -> int | None:
    """``+1`` / ``-1`` where the Elemwise ``node`` increases / decreases strictly in input ``k`` over
    ``interval`` (its other inputs constants of one element), ``None`` otherwise."""
    if not isinstance(node.op, Elemwise) or not 0 <= k < len(node.inputs):
        return None
    op = node.op.scalar_op
    if len(node.inputs) == 1:
        if isinstance(op, _EVERYWHERE_UP):
            return UP
        if isinstance(op, _EVERYWHERE_DOWN):
            return DOWN
        partial = _PARTIAL.get(type(op))
        return None if partial is None else partial(interval)
    if len(node.inputs) != 2:
        return None
    c = scalar_constant(node.inputs[1 - k])
    return None if c is None else _binary(op, k, c, interval)
