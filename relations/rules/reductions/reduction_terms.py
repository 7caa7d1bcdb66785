"""Reading a reduction and building the terms the reductions-through rules put above it (the family's own).

The goals of :mod:`relations.rules.reductions.reduction_goals` read and build with these:

- :func:`reduction_axes`, :func:`reduction_of`: the axes of a Sum/Max/Min head, a reduction's parts;
- :func:`constant_along`, :func:`aligned`, :func:`dropped`, :func:`expanded`:
  where an operand is constant, and its term placed in the output's dims,
  in the dims a reduction keeps, or with dims inserted at the reduced axes;
- :func:`cast_to`, :func:`count_constant`, :func:`with_axis`, :func:`combined`:
  Cast, constant, reduction-head and Elemwise terms as PyTensor builds them
  (:mod:`graph_bridge.elemwise_terms` holds what the node relations share).
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np
from pytensor.graph.basic import Variable
from pytensor.scalar import Cast, ScalarType
from pytensor.tensor import subtensor as pts
from pytensor.tensor.basic import constant
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import Max, Min, Sum

from graph_bridge.building import single_output
from graph_bridge.elemwise_terms import dimshuffled, elemwise_like
from graph_bridge.nodes import scalar_of
from graph_bridge.ops import BROADCAST, MISSING, entry_order
from graph_bridge.terms import elemwise_term, op_term, term
from graph_bridge.vocabulary import builder_for

__all__ = [
    "REDUCTIONS",
    "aligned",
    "alloc_entry",
    "cast_to",
    "combined",
    "constant_along",
    "count_constant",
    "dropped",
    "expanded",
    "own_dims",
    "reduced_length",
    "reduction_axes",
    "reduction_of",
    "uncast",
    "with_axis",
    "written_region",
]

DS = builder_for(DimShuffle)
#: The reductions the rules read: stock Sum, Max and Min (exactly these classes).
REDUCTIONS = (Sum, Max, Min)


def reduction_axes(op: Any, ndim: int) -> tuple[int, ...] | None:
    """The axes the stock Sum/Max/Min ``op`` reduces of an ``ndim``-d input (``None`` read as every axis).

    ``None`` when ``op`` is not a stock Sum, Max or Min.
    """
    if type(op) not in REDUCTIONS:
        return None
    axes = op.axis
    return tuple(range(ndim)) if axes is None else tuple(a % ndim for a in axes)


def reduction_of(v: Variable) -> tuple[CAReduce, tuple[int, ...], Variable] | None:
    """``(op, axes, input)`` of a stock Sum/Max/Min's output ``v``, else ``None``.

    The Op is read before its input: any other node's first input may be no
    tensor at all (a RandomVariable's is its generator, which has no ``ndim``).
    """
    node = v.owner
    if node is None or type(node.op) not in REDUCTIONS:
        return None
    axes = reduction_axes(node.op, node.inputs[0].type.ndim)
    return None if axes is None else (node.op, axes, node.inputs[0])


def own_dims(entry: str) -> dict[int, int]:
    """Output dim -> the input's own dim, for the dims the input has."""
    found, i = {}, 0
    for d, c in enumerate(entry):
        if c != MISSING:
            found[d] = i
            i += 1
    return found


def constant_along(u: Variable, entry: str, axes: tuple[int, ...]) -> bool:
    """``u`` (placed by ``entry``) has one value along every axis of ``axes``: missing, or static length 1."""
    own = own_dims(entry)
    return all(entry[d] == MISSING or (entry[d] == BROADCAST and u.type.shape[own[d]] == 1) for d in axes)


def aligned(u: Variable, entry: str) -> Any:
    """``u`` with the output's ndim (its missing dims added as broadcast ones)."""
    return dimshuffled(u, u.type.ndim, entry_order(entry))


def dropped(u: Variable, entry: str, axes: tuple[int, ...]) -> Any:
    """``u`` (constant along ``axes``) placed in the output dims not in ``axes``."""
    own = own_dims(entry)
    order = [("x" if c == MISSING else own[d]) for d, c in enumerate(entry) if d not in axes]
    return dimshuffled(u, u.type.ndim, tuple(order))


def expanded(u: Variable, axes: tuple[int, ...], ndim: int) -> Any:
    """``u`` with broadcast dims inserted at ``axes`` (of ``ndim`` in all)."""
    own = iter(range(u.type.ndim))
    return dimshuffled(u, u.type.ndim, tuple("x" if d in axes else next(own) for d in range(ndim)))


def count_constant(n: int, dtype: str) -> Variable:
    """The 0-d constant ``n`` of ``dtype``."""
    return constant(np.asarray(n, dtype=dtype))


def cast_to(t: Any, v: Variable, dtype: str) -> Any:
    """``t`` (whose variable is ``v``) cast to ``dtype``, unless it has that dtype."""
    return t if v.type.dtype == dtype else term(elemwise_term(Cast(ScalarType(dtype))), t)


def with_axis(op: CAReduce, axis: Any) -> Any:
    """The term of ``op`` reducing along ``axis`` (every other prop kept)."""
    props = dict(op._props_dict())  # type: ignore[attr-defined]  # made by PyTensor's MetaType (__props__)
    props["axis"] = axis
    builder = builder_for(type(op))
    return op_term(builder(*(props[p] for p in builder.prop_names)))


def reduced_length(out: Variable, axes: tuple[int, ...]) -> int | None:
    """Elements reduced per output element: the static lengths of ``out`` along ``axes``."""
    lengths = [out.type.shape[d] for d in axes]
    return None if None in lengths else prod(lengths)


def combined(scalar_op: Any, parts: list) -> Any:
    """``parts[0]`` alone, or the parts in one ``Elemwise(scalar_op)``."""
    return parts[0] if len(parts) == 1 else elemwise_like(scalar_op, *parts)


def alloc_entry(value: Variable, ndim: int) -> str:
    """The pattern entry of an Alloc's value in its ``ndim``-d output (aligned right, from static shapes)."""
    own = "".join(BROADCAST if s == 1 else "*" for s in value.type.shape)
    return MISSING * (ndim - value.type.ndim) + own


def uncast(s: Variable) -> Variable | None:
    """The integer 0-d variable a Cast of it gives (a length cast to the value's dtype), else ``None``."""
    found = scalar_of(s)
    if found is None:
        return None
    node = found.owner
    if node is not None and type(node.op) is Elemwise and isinstance(node.op.scalar_op, Cast):
        found = node.inputs[0]
    return found if found.type.ndim == 0 and found.type.dtype.startswith(("int", "uint")) else None


_SET1 = getattr(pts, "AdvancedIncSubtensor1", None)


_GET1: Any = getattr(pts, "AdvancedSubtensor1", None)


def written_region(op: Any, x: Variable, idx: tuple) -> Variable | None:
    """``x[idx]``: the elements the set/inc ``op`` writes into ``x`` at ``idx``, for their static shape."""
    try:
        if type(op) is pts.IncSubtensor:
            return single_output(pts.Subtensor(op.idx_list), x, *idx)
        if _SET1 is not None and type(op) is _SET1:
            return _GET1()(x, *idx)
        return pts.advanced_subtensor(x, *idx)
    except Exception:  # noqa: BLE001 - an index the reader cannot rebuild: no rewrite
        return None

