"""Readers and builders of the ``measurable`` relations that read a whole sub-graph (:mod:`relations.rules.measurable`).

Each forward function takes the variable at the root of a left side and
returns the right side (a new PyTensor variable) or ``None``; each
backward one the reverse.  They read static shapes and constants only, so
a right side is exactly equal to its left side wherever both evaluate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import ancestors, toposort
from pytensor.scalar import basic as ps
from pytensor.tensor.basic import Alloc, Join
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.reshape import JoinDims, SplitDims
from pytensor.tensor.shape import Reshape
from pytensor.tensor.subtensor import IncSubtensor, Subtensor, indices_from_subtensor

from graph_bridge.interval_type import Interval
from graph_bridge.intervals import interval_of
from graph_bridge.monotonicity import UP, direction, scalar_constant
from graph_bridge.nodes import scalar_op_of

__all__ = [
    "is_constant",
    "input_paths",
    "is_clip",
    "ordered_bounds",
    "positive_constant",
    "pow_of_exp",
    "CENSORINGS",
    "censoring_of_transforms",
    "is_censoring",
    "transform_into_censoring",
    "MAX_AFFINE_NODES",
    "MAX_UNROLLED",
    "affine_as_sum",
    "affine_form",
    "constant_value",
    "index_mixture_as_switch",
    "join_as_writes",
    "join_dims_as_reshape",
    "join_of_transposes",
    "power_form",
    "power_as_product",
    "reshape_as_dims",
    "scaled_as_sum",
    "slices_sum",
    "sum_as_scaled",
    "sum_as_slices",
    "switch_as_index_mixture",
    "transpose_of_join",
    "writes_as_join",
]

#: Nodes an affine (or product) tree may hold before it is not read.
MAX_AFFINE_NODES = 16
#: The longest vector whose sum is unrolled into its elements, and the highest power into a product.
MAX_UNROLLED = 6


def constant_value(v: Variable) -> np.ndarray | None:
    """The value of constant ``v`` (through ExpandDims of a constant), else ``None``."""
    while v.owner is not None and isinstance(v.owner.op, DimShuffle) and v.owner.op.is_expand_dims:
        v = v.owner.inputs[0]
    return np.asarray(v.data) if isinstance(v, Constant) else None


def _number(v: Variable) -> float | None:
    value = constant_value(v)
    if value is None or value.size != 1 or value.dtype.kind not in "biuf":
        return None
    return float(value.reshape(()))


def _scalar_kind(v: Variable) -> Any:
    op = scalar_op_of(v.owner)
    return None if op is None else type(op)


def _affine(v: Variable, budget: list[int]) -> tuple[dict[Variable, float], float] | None:
    """``v`` as ``sum(k_t * t) + m``: the coefficients of its non-constant leaves and the offset."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    c = _number(v)
    if c is not None:
        return {}, c
    kind = _scalar_kind(v)
    ins: Sequence[Variable] = v.owner.inputs if v.owner is not None else ()
    parts: list[tuple[tuple[dict[Variable, float], float] | None, float]] | None = None
    if kind is ps.Add:
        parts = [(_affine(i, budget), 1.0) for i in ins]
    elif kind is ps.Sub:
        parts = [(_affine(ins[0], budget), 1.0), (_affine(ins[1], budget), -1.0)]
    elif kind is ps.Neg:
        parts = [(_affine(ins[0], budget), -1.0)]
    elif kind is ps.Mul and sum(_number(i) is None for i in ins) == 1:
        scale = float(np.prod([n for i in ins if (n := _number(i)) is not None]))
        parts = [(_affine(next(i for i in ins if _number(i) is None), budget), scale)]
    elif kind is ps.TrueDiv and (d := _number(ins[1])) is not None and d != 0.0:
        parts = [(_affine(ins[0], budget), 1.0 / d)]
    if parts is None:
        return {v: 1.0}, 0.0
    found = [(p, s) for p, s in parts if p is not None]
    if len(found) < len(parts):
        return None
    coefs: dict[Variable, float] = {}
    offset = 0.0
    for (cs, m), s in found:
        offset += s * m
        for t, k in cs.items():
            coefs[t] = coefs.get(t, 0.0) + s * k
    return coefs, offset


def _leaf_uses(v: Variable, leaf: Variable) -> int:
    if v is leaf:
        return 1
    if v.owner is None:
        return 0
    return sum(_leaf_uses(i, leaf) for i in v.owner.inputs)


def affine_form(v: Variable) -> Variable | None:
    """``x + x``, ``3*x - x``, ``x - x/2``, ``x/2 + x/2``, ... (one float leaf read twice or more)
    as ``x * k + m`` (``x * k`` where ``m`` is 0)."""
    if _scalar_kind(v) not in (ps.Add, ps.Sub, ps.Mul, ps.Neg, ps.TrueDiv) or not v.type.dtype.startswith("float"):
        return None
    found = _affine(v, [MAX_AFFINE_NODES])
    if found is None or len(found[0]) != 1:
        return None
    [(leaf, k)] = found[0].items()
    if k == 0.0 or _leaf_uses(v, leaf) < 2 or not leaf.type.dtype.startswith("float"):
        return None
    out = leaf * pt.constant(k, dtype=leaf.type.dtype)
    if found[1] != 0.0:
        out = out + pt.constant(found[1], dtype=leaf.type.dtype)
    return out


def _square_of(t: Variable) -> Variable | None:
    """``x`` where ``t`` is ``sqr(x)``, ``x ** 2`` or ``x * x``."""
    kind = _scalar_kind(t)
    ins: Sequence[Variable] = t.owner.inputs if kind is not None and t.owner is not None else ()
    if kind is ps.Sqr:
        return ins[0]
    if kind is ps.Pow and _number(ins[1]) == 2.0:
        return ins[0]
    if kind is ps.Mul and len(ins) == 2 and ins[0] is ins[1]:
        return ins[0]
    return None


def quadratic_form(v: Variable) -> Variable | None:
    """``a*x + b*x**2 + c`` (one float leaf, its square read beside it: ``x + x ** 2``) as the completed
    square ``b * sqr(x + a/(2b)) + (c - a**2/(4b))``, which reads ``x`` once."""
    if _scalar_kind(v) not in (ps.Add, ps.Sub) or not v.type.dtype.startswith("float"):
        return None
    found = _affine(v, [MAX_AFFINE_NODES])
    if found is None or len(found[0]) != 2:
        return None
    (t1, k1), (t2, k2) = found[0].items()
    if _square_of(t1) is t2:
        (t1, k1), (t2, k2) = (t2, k2), (t1, k1)
    if _square_of(t2) is not t1 or k1 == 0.0 or k2 == 0.0 or not t1.type.dtype.startswith("float"):
        return None
    shift, rest = k1 / (2 * k2), found[1] - k1 * k1 / (4 * k2)
    dtype = t1.type.dtype
    out = pt.constant(k2, dtype=dtype) * pt.sqr(t1 + pt.constant(shift, dtype=dtype))
    if rest != 0.0:
        out = out + pt.constant(rest, dtype=dtype)
    return out if out.type == v.type else None


def completed_square_as_quadratic(v: Variable) -> Variable | None:
    """Backward of :func:`quadratic_form`: ``b * sqr(x + h) + k`` as ``x * (2bh) + sqr(x) * b + (k + b h**2)``."""
    found = _affine(v, [MAX_AFFINE_NODES]) if _scalar_kind(v) in (ps.Add, ps.Mul) else None
    if found is None or len(found[0]) != 1:
        return None
    [(sq, b)] = found[0].items()
    if _scalar_kind(sq) is not ps.Sqr or b == 0.0:
        return None
    inner = _affine(sq.owner.inputs[0], [MAX_AFFINE_NODES])
    if inner is None or len(inner[0]) != 1:
        return None
    [(x, one)] = inner[0].items()
    h = inner[1]
    if one != 1.0 or h == 0.0 or not x.type.dtype.startswith("float"):
        return None
    dtype = x.type.dtype
    out = x * pt.constant(2 * b * h, dtype=dtype) + pt.sqr(x) * pt.constant(b, dtype=dtype)
    if found[1] + b * h * h != 0.0:
        out = out + pt.constant(found[1] + b * h * h, dtype=dtype)
    return out if out.type == v.type else None


def _operands(v: Variable, kind: type, budget: list[int]) -> list[Variable] | None:
    """The operands of a tree of ``kind`` (``ps.Mul``, ``ps.Add``) nodes, flattened; ``None`` past
    ``budget[0]`` nodes (a list, counted down across the walk)."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    if _scalar_kind(v) is not kind:
        return [v]
    out: list[Variable] = []
    for i in v.owner.inputs:
        found = _operands(i, kind, budget)
        if found is None:
            return None
        out.extend(found)
    return out


def power_form(v: Variable) -> Variable | None:
    """``x * x * x`` (one float leaf, three times or more, nothing else) as ``x ** 3``."""
    if _scalar_kind(v) is not ps.Mul or not v.type.dtype.startswith("float"):
        return None
    found = _operands(v, ps.Mul, [MAX_AFFINE_NODES])
    if found is None or len(found) < 3 or any(f is not found[0] for f in found):
        return None
    return found[0] ** pt.constant(len(found), dtype="int8")


def power_as_product(v: Variable) -> Variable | None:
    """Backward of :func:`power_form`: ``x ** n`` (a constant integer ``3 <= n <= MAX_UNROLLED``) as ``x * x * ...``."""
    if _scalar_kind(v) is not ps.Pow:
        return None
    x, n = v.owner.inputs
    k = _number(n)
    if k is None or k != int(k) or not 3 <= k <= MAX_UNROLLED or x.type != v.type:
        return None
    out = x
    for _ in range(int(k) - 1):
        out = out * x
    return out


def _element_of(v: Variable) -> tuple[Variable, int] | None:
    """``(base, i)`` where ``v`` is ``base[i]`` of a vector of static length, ``i`` a constant."""
    node = v.owner
    if node is None or type(node.op) is not Subtensor or node.inputs[0].ndim != 1:
        return None
    base = node.inputs[0]
    [idx] = indices_from_subtensor(node.inputs[1:], node.op.idx_list)
    n = base.type.shape[0]
    if not isinstance(idx, Variable) or n is None:
        return None
    i = _number(idx)
    if i is None:
        return None
    return base, int(i) % n


def _elements(v: Variable, kind: type = ps.Add) -> tuple[Variable, list[int]] | None:
    """``(base, indices)`` where ``v`` is a tree of ``kind`` (a sum; a maximum, a minimum) over distinct
    constant elements of one vector ``base`` (one element: itself)."""
    if _scalar_kind(v) is not kind:
        found = _element_of(v)
        return None if found is None else (found[0], [found[1]])
    leaves = _operands(v, kind, [MAX_AFFINE_NODES])
    elems = [] if leaves is None else [e for t in leaves if (e := _element_of(t)) is not None]
    if leaves is None or len(elems) < len(leaves):
        return None
    base = elems[0][0]
    idx = [i for _, i in elems]
    if any(b is not base for b, _ in elems) or len(set(idx)) < len(idx):
        return None
    return base, idx


def slices_sum(v: Variable) -> Variable | None:
    """``v[0] + v[1] + v[2]`` (distinct constant elements of one vector) as ``sum(v[s:e])`` where they
    are contiguous (``sum(v)`` where they are all of it), else ``sum(v[[i, j, ...]])``."""
    found = _elements(v) if _scalar_kind(v) is ps.Add else None
    if found is None or len(found[1]) < 2:
        return None
    return pt.sum(_elements_part(*found)).astype(v.type.dtype)


def _elements_part(base: Variable, idx: list[int]) -> Variable:
    """The distinct elements ``idx`` of the vector ``base`` as one vector: ``base`` where they are all
    of it, its slice where they are contiguous, ``base[idx]`` (sorted) otherwise."""
    w, idx = pt.as_tensor_variable(base), sorted(idx)
    if idx == list(range(idx[0], idx[0] + len(idx))):
        return w if len(idx) == w.type.shape[0] else w[idx[0] : idx[-1] + 1]
    return w[pt.constant(np.array(idx, dtype="int64"))]


#: The reductions of a tree of maxima / minima of a vector's elements.
_EXTREMA = {ps.Maximum: pt.max, ps.Minimum: pt.min}


def elements_extremum(v: Variable) -> Variable | None:
    """``maximum(maximum(v[0], v[1]), v[2])`` (distinct constant elements of one vector) as ``max(v)``
    (of its slice or of it indexed by them where they are not all of it); ``minimum`` as ``min``."""
    kind = _scalar_kind(v)
    found = _elements(v, kind) if kind in _EXTREMA else None
    if found is None or len(found[1]) < 2:
        return None
    out = _EXTREMA[kind](_elements_part(*found))
    return out if out.type == v.type else None


def extremum_as_elements(v: Variable) -> Variable | None:
    """Backward of :func:`elements_extremum`: ``max(w)`` / ``min(w)`` of a vector of static length
    ``2..MAX_UNROLLED`` as the maximum (minimum) of its elements."""
    node = v.owner
    name = type(node.op).__name__ if node is not None else ""
    if name not in ("Max", "Min") or node.inputs[0].ndim != 1 or node.op.axis not in (None, (0,)):
        return None
    w = pt.as_tensor_variable(node.inputs[0])
    n = w.type.shape[0]
    if n is None or not 2 <= n <= MAX_UNROLLED:
        return None
    fold = pt.maximum if name == "Max" else pt.minimum
    out = w[0]
    for i in range(1, n):
        out = fold(out, w[i])
    return out if out.type == v.type else None


def stacked_elements(v: Variable) -> Variable | None:
    """``stack([w[0], w[1], ..., w[n-1]])`` (every element of a vector of static length, in order) as ``w``."""
    parts = _stacked_scalars(v) or []
    found = [f for t in parts if (f := _element_of(t)) is not None]
    if not found or len(found) < len(parts):
        return None
    base = found[0][0]
    if any(b is not base or i != k for k, (b, i) in enumerate(found)) or len(found) != base.type.shape[0]:
        return None
    return base if base.type == v.type else None


def elements_stacked(v: Variable) -> Variable | None:
    """Backward of :func:`stacked_elements`: a draw of a vector of static length ``2..MAX_UNROLLED`` (a
    RandomVariable's; any vector would grow every e-graph) as the stack of its elements."""
    node = v.owner
    if node is None or not isinstance(node.op, RandomVariable) or v is not node.outputs[-1]:
        return None
    n = v.type.shape[0] if getattr(v.type, "ndim", None) == 1 else None
    if n is None or not 2 <= n <= MAX_UNROLLED or _stacked_scalars(v) is not None:
        return None
    w = pt.as_tensor_variable(v)
    out = pt.stack([w[i] for i in range(n)])
    return out if out.type == v.type else None


def _stacked_scalars(v: Variable) -> list[Variable] | None:
    """The scalars ``v`` stacks into a vector (``pt.stack`` of scalars: a MakeVector)."""
    node = v.owner
    if node is None or type(node.op).__name__ != "MakeVector":
        return None
    return list(node.inputs)


def partial_sums_as_cumsum(v: Variable) -> Variable | None:
    """``stack([w[0], w[0] + w[1], w[0] + w[1] + w[2]])`` (element ``k`` the sum of ``w[0..k]``, in any
    order of the terms) as ``cumsum(w)`` (of its first elements, ``w[:n]``)."""
    parts = _stacked_scalars(v)
    if parts is None or len(parts) < 2 or not v.type.dtype.startswith("float"):
        return None
    found = [f for t in parts if (f := _elements(t)) is not None]
    if len(found) < len(parts):
        return None
    first = found[0][0]
    if any(b is not first or sorted(idx) != list(range(k + 1)) for k, (b, idx) in enumerate(found)):
        return None
    base = pt.as_tensor_variable(first)
    part = base if len(parts) == base.type.shape[0] else base[: len(parts)]
    out = pt.cumsum(part)
    return out if out.type.dtype == v.type.dtype else None


def cumsum_as_partial_sums(v: Variable) -> Variable | None:
    """Backward of :func:`partial_sums_as_cumsum`: ``cumsum(w)`` of a vector of static length
    ``2..MAX_UNROLLED`` as the stack of its partial sums."""
    node = v.owner
    if node is None or type(node.op).__name__ != "CumOp" or getattr(node.op, "mode", "") != "add":
        return None
    w = node.inputs[0]
    n = w.type.shape[0] if w.type.ndim == 1 else None
    if n is None or not 2 <= n <= MAX_UNROLLED:
        return None
    sums = [w[0]]
    for i in range(1, n):
        sums.append(sums[-1] + w[i])
    out = pt.stack(sums)
    return out if out.type == v.type else None


def sum_as_slices(v: Variable) -> Variable | None:
    """Backward of :func:`slices_sum`: ``sum(v)`` of a vector as ``v[0] + v[1] + ...``.

    ``v`` of static length ``2..MAX_UNROLLED``.
    """
    node = v.owner
    if node is None or type(node.op).__name__ != "Sum" or node.inputs[0].ndim != 1:
        return None
    base = node.inputs[0]
    n = base.type.shape[0]
    if n is None or not 2 <= n <= MAX_UNROLLED or base.dtype != v.type.dtype:
        return None
    out = base[0]
    for i in range(1, n):
        out = out + base[i]
    return out


def scaled_as_sum(v: Variable) -> Variable | None:
    """``sum(x + c)`` or ``sum(x - c)`` (``c`` a constant that broadcasts to ``x``'s static shape, all
    axes) as ``sum(x) + sum(±c broadcast)``."""
    node = v.owner
    if node is None or type(node.op).__name__ != "Sum" or node.op.axis not in (None, tuple(range(node.inputs[0].ndim))):
        return None
    inner = node.inputs[0]
    kind = _scalar_kind(inner)
    if kind not in (ps.Add, ps.Sub) or len(inner.owner.inputs) != 2 or None in inner.type.shape:
        return None
    x, c = inner.owner.inputs
    if constant_value(c) is None and kind is ps.Add:
        x, c = c, x
    value = constant_value(c)
    if value is not None and kind is ps.Sub:  # x - c: a shift by -c
        value = -value
    if value is None or value.dtype.kind not in "biuf" or x.type != inner.type or not v.type.dtype.startswith("float"):
        return None
    try:
        total = float(np.sum(np.broadcast_to(value, inner.type.shape)))
    except ValueError:  # pragma: no cover - a constant that does not broadcast made no Add
        return None
    return pt.sum(x) + pt.constant(total, dtype=v.type.dtype)


def _join_parts(v: Variable) -> tuple[int, list[Variable]] | None:
    """``(axis, pieces)`` of a Join (its axis a prop, or a constant first input), else ``None``."""
    node = v.owner
    if node is None or not isinstance(node.op, Join):
        return None
    axis = getattr(node.op, "axis", None)
    pieces = list(node.inputs)
    if axis is None:
        k = _number(pieces.pop(0))
        if k is None:
            return None
        axis = int(k)
    return axis % v.type.ndim, pieces


def _permutation(v: Variable) -> tuple[int, ...] | None:
    node = v.owner
    if node is None or not isinstance(node.op, DimShuffle):
        return None
    order = tuple(node.op.new_order)
    if "x" in order or sorted(order) != list(range(node.inputs[0].ndim)) or order == tuple(sorted(order)):
        return None
    return tuple(int(d) for d in order)


def transpose_of_join(v: Variable) -> Variable | None:
    """``join(k, a, b).T`` (any permutation) as ``join(order.index(k), a.T, b.T)`` (pymc #6360)."""
    order = _permutation(v)
    parts = None if order is None or v.owner is None else _join_parts(v.owner.inputs[0])
    if order is None or parts is None:
        return None
    k, pieces = parts
    return pt.join(order.index(k), *[pt.as_tensor_variable(p).dimshuffle(order) for p in pieces])


def join_of_transposes(v: Variable) -> Variable | None:
    """Backward of :func:`transpose_of_join`: a join of pieces all permuted alike as the permuted join."""
    parts = _join_parts(v)
    orders = [] if parts is None else [_permutation(p) for p in parts[1]]
    order = orders[0] if orders else None
    if parts is None or order is None or any(o != order for o in orders):
        return None
    k, pieces = parts
    return pt.join(order[k], *[p.owner.inputs[0] for p in pieces]).dimshuffle(order)


def reshape_as_dims(v: Variable) -> Variable | None:
    """``reshape`` / ``flatten`` (static shapes) as ``join_dims`` (merging adjacent dims) or
    ``split_dims`` (splitting one), the forms PyMC derives."""
    node = v.owner
    if node is None or not isinstance(node.op, Reshape):
        return None
    x = node.inputs[0]
    old, new = x.type.shape, v.type.shape
    if None in old or None in new or old == new:
        return None
    for start in range(len(old)):  # merge old[start:start + n] into one
        n = len(old) - len(new) + 1
        if n >= 2 and old[:start] + (int(np.prod(old[start : start + n])),) + old[start + n :] == new:
            return pt.join_dims(x, start, n)
    for axis in range(len(old)):  # split old[axis] into new[axis:axis + n]
        n = len(new) - len(old) + 1
        if n >= 2 and new[:axis] + (int(np.prod(new[axis : axis + n])),) + new[axis + n :] == old:
            return pt.split_dims(x, new[axis : axis + n], axis=axis)
    return None


def join_dims_as_reshape(v: Variable) -> Variable | None:
    """Backward of :func:`reshape_as_dims`: a ``join_dims`` / ``split_dims`` of static shape as a ``reshape``."""
    node = v.owner
    if node is None or not isinstance(node.op, JoinDims | SplitDims) or None in v.type.shape:
        return None
    return node.inputs[0].reshape(v.type.shape)


def _zeros(v: Variable) -> bool:
    value = constant_value(v)
    if value is None and v.owner is not None and isinstance(v.owner.op, Alloc):
        value = constant_value(v.owner.inputs[0])
    return value is not None and value.size > 0 and not np.any(value)


def _written_slice(node: Any) -> tuple[int, int] | None:
    """``(start, stop)`` of a set at one constant slice of dim 0 of a base of static length."""
    if not isinstance(node.op, IncSubtensor) or not node.op.set_instead_of_inc:
        return None
    base = node.inputs[0]
    n = base.type.shape[0] if base.ndim else None
    idx = indices_from_subtensor(node.inputs[2:], node.op.idx_list)
    if n is None or len(idx) != 1 or not isinstance(idx[0], slice) or idx[0].step is not None:
        return None
    bounds = []
    for b, default in ((idx[0].start, 0), (idx[0].stop, n)):
        k = default if b is None else _number(b)
        if k is None:
            return None
        bounds.append(min(max(int(k) + (n if k < 0 else 0), 0), n))
    return (bounds[0], bounds[1]) if bounds[0] < bounds[1] else None


def _pieces(base: Variable) -> list[tuple[Variable, int]] | None:
    """``base`` as pieces along dim 0 with static lengths: a join's pieces, or one zero fill."""
    parts = _join_parts(base)
    if parts is not None and parts[0] == 0:
        pieces = parts[1]
    elif _zeros(base):
        pieces = [base]
    else:
        return None
    lengths = [p.type.shape[0] if p.type.ndim else None for p in pieces]
    known = [n for n in lengths if n is not None]
    return None if len(known) < len(lengths) else list(zip(pieces, known))


def _zero_piece(like: Variable, n: int) -> Variable:
    return pt.zeros((n, *pt.as_tensor_variable(like).shape[1:]), dtype=like.type.dtype)


def writes_as_join(v: Variable) -> Variable | None:
    """``zeros(n)[s:e].set(a)`` (and a write into such a join) as ``join(0, zeros(s), a, zeros(n - e))``
    (pymc #7553): the written slice replaces the zero fill it covers."""
    node = v.owner
    span = None if node is None else _written_slice(node)
    pieces = None if node is None or span is None else _pieces(node.inputs[0])
    if node is None or span is None or pieces is None:
        return None
    value = node.inputs[1]
    if value.ndim != v.type.ndim or value.type.shape[0] != span[1] - span[0]:
        return None
    if value.type.broadcastable[1:] != v.type.broadcastable[1:]:
        return None  # the write broadcasts the value: its pieces would not join
    base = node.inputs[0]  # the zero pieces' trailing lengths: the base's, never v's (v would read itself)
    out, at = [], 0
    for piece, n in pieces:
        lo, hi = max(span[0], at), min(span[1], at + n)
        if lo >= hi:
            out.append(piece)
        elif not _zeros(piece):
            return None  # a write over a piece that is not zeros: not a join of the same pieces
        else:
            out += [_zero_piece(base, lo - at)] if lo > at else []
            out += [value] if lo == span[0] else []
            out += [_zero_piece(base, at + n - hi)] if hi < at + n else []
        at += n
    out = [pt.cast(p, v.type.dtype) for p in out if p.type.shape[0] != 0]
    return out[0] if len(out) == 1 else pt.join(0, *out)


def join_as_writes(v: Variable) -> Variable | None:
    """Backward of :func:`writes_as_join`: ``join(0, a, ..., b)`` of static lengths as the write of its
    last piece into the join with zeros in its place, ``join(0, a, ..., zeros(len(b)))[s:].set(b)``."""
    parts = _join_parts(v)
    if parts is None or parts[0] != 0 or None in v.type.shape or len(parts[1]) < 2:
        return None
    *first, last = parts[1]
    n = last.type.shape[0]
    if n is None or n == 0 or _zeros(last):
        return None
    start = v.type.shape[0] - n
    return pt.set_subtensor(pt.join(0, *first, _zero_piece(last, n))[start:], last)


def _scaled_leaf(v: Variable) -> tuple[Variable, float] | None:
    """``(x, k)`` where ``v`` is ``x * k`` (or ``k * x``), ``k`` a number and ``x`` not a constant."""
    if _scalar_kind(v) is not ps.Mul or len(v.owner.inputs) != 2:
        return None
    x, c = v.owner.inputs
    if _number(c) is None:
        x, c = c, x
    k = _number(c)
    if k is None or _number(x) is not None:
        return None
    return x, k


def affine_as_sum(v: Variable) -> Variable | None:
    """Backward of :func:`affine_form`: ``x * k`` (``+ m``) of a float ``x`` as ``x + x * (k - 1)`` (``+ m``)."""
    offset = None
    if _scalar_kind(v) is ps.Add and len(v.owner.inputs) == 2 and _number(v.owner.inputs[1]) is not None:
        v, offset = v.owner.inputs
    found = _scaled_leaf(v)
    if found is None or not found[0].type.dtype.startswith("float") or found[1] == 1.0:
        return None
    x, k = found
    out = x + x * pt.constant(k - 1.0, dtype=x.type.dtype)
    return out if offset is None else out + offset


def sum_as_scaled(v: Variable) -> Variable | None:
    """Backward of :func:`scaled_as_sum`: ``sum(x) + c`` (``x`` of static size ``n``) as ``sum(x + c / n)``."""
    if _scalar_kind(v) is not ps.Add or len(v.owner.inputs) != 2:
        return None
    s, c = v.owner.inputs
    k = _number(c)
    node = s.owner
    if k is None or node is None or type(node.op).__name__ != "Sum" or not v.type.dtype.startswith("float"):
        return None
    x = node.inputs[0]
    if None in x.type.shape or node.op.axis not in (None, tuple(range(x.ndim))):
        return None
    n = int(np.prod(x.type.shape))
    return None if n == 0 else pt.sum(x + pt.constant(k / n, dtype=x.dtype))


def _arange_length(v: Variable) -> int | None:
    """``n`` where ``v`` is ``arange(n)`` (an ARange from 0 by 1, or a constant equal to it)."""
    value = constant_value(v)
    if value is not None:
        n = value.size
        return n if value.ndim == 1 and np.array_equal(value, np.arange(n)) else None
    node = v.owner
    if node is None or type(node.op).__name__ != "ARange":
        return None
    start, stop, step = (_number(i) for i in node.inputs)
    return int(stop) if start == 0 and step == 1 and stop is not None else None


def _stacked(base: Variable) -> tuple[int, list[Variable]] | None:
    """``(axis, components)`` where ``base`` is ``stack(components, axis)`` (a join of ExpandDims)."""
    parts = _join_parts(base)
    if parts is None:
        return None
    axis, pieces = parts
    comps = []
    for piece in pieces:
        node = piece.owner
        if node is None or not isinstance(node.op, DimShuffle) or tuple(node.op.augment) != (axis,):
            return None
        comps.append(node.inputs[0])
    return axis, comps


def masked_set_as_switch(v: Variable) -> Variable | None:
    """``x[mask].set(c)`` (a boolean mask of ``x``'s shape, a scalar ``c``) as ``switch(mask, c, x)``:
    aeppl #177's censoring ``x[x > ub] = ub``."""
    node = v.owner
    if node is None or type(node.op).__name__ != "AdvancedIncSubtensor" or not node.op.set_instead_of_inc:
        return None
    x, c, *idx = node.inputs
    if len(idx) != 1 or c.type.ndim != 0 or not v.type.dtype.startswith("float"):
        return None
    [mask] = idx
    if mask.type.dtype != "bool" or mask.type.ndim != x.type.ndim or x.type != v.type:
        return None
    if any(m is not None and s is not None and m != s for m, s in zip(mask.type.shape, x.type.shape)):
        return None
    if isinstance(c, Constant) and np.asarray(c.data).astype(v.type.dtype) == c.data:  # an exact cast: a constant
        c = pt.constant(np.asarray(c.data, dtype=v.type.dtype))
    out = pt.switch(mask, pt.cast(c, v.type.dtype), x)
    return out if out.type == v.type else None


def switch_as_masked_set(v: Variable) -> Variable | None:
    """Backward of :func:`masked_set_as_switch`: ``switch(mask, c, x)`` (a scalar ``c``, a boolean mask of
    ``x``'s type's rank) as ``x[mask].set(c)``."""
    if _scalar_kind(v) is not ps.Switch:
        return None
    mask, c, x = v.owner.inputs
    if c.owner is not None and isinstance(c.owner.op, DimShuffle) and c.owner.op.is_expand_dims:
        c = c.owner.inputs[0]  # the switch's padding of a scalar
    if c.type.ndim != 0 or mask.type.dtype != "bool" or not 0 < mask.type.ndim == x.type.ndim or x.type != v.type:
        return None  # (a scalar mask is no index: PyTensor has no boolean scalar indexing)
    out = pt.set_subtensor(x[mask], c)
    return out if out.type == v.type else None


def index_mixture_as_switch(v: Variable) -> Variable | None:
    """``stack([a, b])[i, arange(n)]`` (or ``stack([a, b], axis=1)[arange(n), i]``) of vectors of
    length ``n`` as ``switch(eq(i % 2, 0), a, b)`` (a chain of switches for more components):
    element ``j`` is component ``i[j]``'s element ``j`` (pymc #6398)."""
    node = v.owner
    if node is None or type(node.op).__name__ != "AdvancedSubtensor" or v.type.ndim != 1:
        return None
    found = _stacked(node.inputs[0])
    idx = indices_from_subtensor(node.inputs[1:], node.op.idx_list)
    variables = [i for i in idx if isinstance(i, Variable)]
    if found is None or len(idx) != 2 or len(variables) != 2:
        return None
    axis, comps = found
    which, positions = (variables[0], variables[1]) if axis == 0 else (variables[1], variables[0])
    n = _arange_length(positions)
    if n is None or which.type.ndim > 1 or not which.type.dtype.startswith(("int", "uint")):
        return None
    if any(c.type.ndim != 1 or c.type.shape[0] != n or c.type.dtype != v.type.dtype for c in comps):
        return None
    k = len(comps)
    out = comps[-1]
    for i in range(k - 2, -1, -1):
        out = pt.switch(pt.eq(pt.mod(which, k), i), comps[i], out)
    return out


def switch_as_index_mixture(v: Variable) -> Variable | None:
    """Backward of :func:`index_mixture_as_switch`: ``switch(eq(i % 2, 0), a, b)`` of vectors of static
    length as ``stack([a, b])[i, arange(n)]``."""
    if _scalar_kind(v) is not ps.Switch:
        return None
    cond, a, b = v.owner.inputs
    if _scalar_kind(cond) is not ps.EQ or _number(cond.owner.inputs[1]) != 0.0:
        return None
    mod = cond.owner.inputs[0]
    if _scalar_kind(mod) is not ps.Mod or _number(mod.owner.inputs[1]) != 2.0:
        return None
    which = mod.owner.inputs[0]
    n = v.type.shape[0] if v.type.ndim == 1 else None
    if n is None or which.ndim != 1 or a.type != v.type or b.type != v.type:
        return None
    return pt.stack([a, b])[which, pt.arange(n)]


#: The censorings a transform moves into: the scalar Ops of ``clip``, ``maximum``, ``minimum``.
CENSORINGS = (ps.Clip, ps.Maximum, ps.Minimum)


def _transform_of(v: Variable) -> tuple[Any, int] | None:
    """``(node, k)`` where ``v`` is an Elemwise of one non-constant input ``k`` (any other a constant of
    one element): a transform ``f`` of that input."""
    node = v.owner
    if node is None or not isinstance(node.op, Elemwise) or len(node.inputs) > 2:
        return None
    free = [k for k, i in enumerate(node.inputs) if scalar_constant(i) is None]
    return (node, free[0]) if len(free) == 1 else None


def _apply(node: Any, k: int, u: Variable) -> Variable:
    """The transform ``node`` applies to its input ``k``, applied to ``u`` instead."""
    return node.op(*[u if j == k else i for j, i in enumerate(node.inputs)])


def _hull(vs: Sequence[Variable]) -> Interval:
    out = interval_of(vs[0])
    for w in vs[1:]:
        out = out.join(interval_of(w))
    return out


def _ordered(lo: Variable, hi: Variable) -> bool:
    """Whether ``lo <= hi`` holds at every value (read off their intervals)."""
    return interval_of(lo).hi <= interval_of(hi).lo


#: What a decreasing transform turns a censoring into: ``f(maximum(x, c)) = minimum(f(x), f(c))``.
_SWAPPED = {ps.Maximum: pt.minimum, ps.Minimum: pt.maximum}


#: The full reductions an increasing transform moves out of (by their Op's class name).
_REDUCTIONS = ("Max", "Min")


def _full_extremum(v: Variable) -> tuple[str, Variable, Any] | None:
    """``(name, u, op)`` where ``v`` is ``max(u)`` / ``min(u)`` over all axes (``op`` rebuilds it)."""
    node = v.owner
    name = type(node.op).__name__ if node is not None else ""
    if name not in _REDUCTIONS or node.op.axis not in (None, tuple(range(node.inputs[0].ndim))):
        return None
    return name, node.inputs[0], node.op


def elemwise_under_extremum(v: Variable) -> int:
    """The pairs (Elemwise node, full Max/Min node above it) of ``v``'s graph (the measure of moving a
    transform out of an extremum)."""
    total = 0
    for node in toposort([v]):
        if type(node.op).__name__ in _REDUCTIONS:
            total += sum(1 for a in ancestors(node.inputs) if a.owner is not None and isinstance(a.owner.op, Elemwise))
    return total


def _on_scalar(node: Any, k: int, u: Variable) -> Variable:
    """The transform ``node`` (of its input ``k``, the others constants of one element) applied to ``u``
    with those constants as scalars (no padding of the reduced tensor's rank)."""
    ins = [u if j == k else pt.constant(np.asarray(scalar_constant(i), dtype=i.dtype)) for j, i in
           enumerate(node.inputs)]
    return node.op(*ins)


def transform_out_of_extremum(v: Variable) -> Variable | None:
    """``max(f(u))`` (all axes), ``f`` increasing on ``u``'s values, as ``f(max(u))``; ``min`` alike: the
    order statistic of the variable, transformed.  A decreasing ``f`` is left (``min`` is ``-max(-u)``
    in PyTensor: moving a negation out of a ``max`` would make a ``min`` that holds one again)."""
    found = _full_extremum(v)
    inner = None if found is None else _transform_of(found[1])
    if found is None or inner is None:
        return None
    node, k = inner
    if _scalar_kind(found[1]) is ps.Neg:  # max(-f(u)): PyTensor's min(f(u)), as -f(min(u))
        under = _transform_of(node.inputs[0])
        if found[0] != "Max" or under is None or _scalar_kind(node.inputs[0]) is ps.Neg:
            return None
        f, j = under
        if direction(f, j, interval_of(f.inputs[j])) != UP:
            return None
        out = pt.neg(_on_scalar(f, j, pt.min(f.inputs[j])))
        return out if out.type == v.type else None
    if direction(node, k, interval_of(node.inputs[k])) != UP:
        return None
    out = _on_scalar(node, k, found[2](node.inputs[k]))  # the same reduction Op, over the operand
    return out if out.type == v.type else None


def transform_into_extremum(v: Variable) -> Variable | None:
    """Backward of :func:`transform_out_of_extremum`: ``f(max(u))``, ``f`` increasing, as ``max(f(u))``."""
    inner = _transform_of(v)
    if inner is None:
        return None
    node, k = inner
    found = _full_extremum(node.inputs[k])
    if found is None or any(i.type.ndim > 0 for j, i in enumerate(node.inputs) if j != k):  # scalar f(max(u))
        return None
    u = found[1]
    if direction(node, k, interval_of(u)) != UP:
        return None
    out = found[2](_apply(node, k, u))
    return out if out.type == v.type else None


def _censoring(op: Any, ins: list[Variable], way: int, ordered: Callable[[], bool]) -> Variable | None:
    """The censoring ``op`` (clip, maximum, minimum) of ``ins`` as it reads after a transform of direction
    ``way``: itself where increasing; where decreasing, a clip with its bounds swapped (where
    ``ordered()``: ``lo <= hi`` is known) or the other of maximum / minimum."""
    kind = type(op.scalar_op)
    if way == UP:
        return op(*ins)
    if kind is ps.Clip:
        return pt.clip(ins[0], ins[2], ins[1]) if ordered() else None
    return _SWAPPED[kind](*ins)


def transform_into_censoring(v: Variable) -> Variable | None:
    """``f(clip(x, lo, hi))`` (or of ``maximum``/``minimum``), ``f`` monotone on the values of ``x``,
    ``lo`` and ``hi`` (:func:`graph_bridge.monotonicity.direction`), as ``clip(f(x), f(lo), f(hi))``;
    a decreasing ``f`` swaps the bounds (``clip(f(x), f(hi), f(lo))``, where ``lo <= hi`` is known)
    and turns a ``maximum`` into a ``minimum``.  The censored points of the right side are points of
    the transformed variable, where PyMC's derivation of the left side adds a Jacobian term."""
    found = _transform_of(v) if v.type.dtype.startswith("float") else None
    if found is None or _scalar_kind(found[0].inputs[found[1]]) not in CENSORINGS:
        return None
    node, k = found
    censored = node.inputs[k]
    # each input cast to the output's dtype first: exp of an int8 bound would be a float32 bound,
    # not the float64 point the transformed variable reaches
    ins = [i if i.dtype == v.type.dtype else pt.cast(i, v.type.dtype) for i in censored.owner.inputs]
    way = direction(node, k, _hull(ins))
    if way is None:
        return None
    out = _censoring(censored.owner.op, [_apply(node, k, i) for i in ins], way, lambda: _ordered(ins[1], ins[2]))
    return out if out is not None and out.type == v.type else None


def censoring_of_transforms(v: Variable) -> Variable | None:
    """Backward of :func:`transform_into_censoring`: ``clip(f(x), f(lo), f(hi))``, every input the
    same monotone ``f`` (same Op, same constant on the same side), as ``f(clip(x, lo, hi))`` (an
    increasing ``f``) or ``f(clip(x, hi, lo))`` (a decreasing one, where ``hi <= lo`` is known;
    ``maximum`` and ``minimum`` swap)."""
    kind = _scalar_kind(v)
    if kind not in CENSORINGS:
        return None
    found = [f for i in v.owner.inputs if (f := _transform_of(i)) is not None]
    if len(found) < len(v.owner.inputs):
        return None
    node, k = found[0]

    def constants(n: Any) -> list[float | None]:
        return [scalar_constant(i) for j, i in enumerate(n.inputs) if j != k]

    if any(j != k or n.op != node.op or constants(n) != constants(node) for n, j in found[1:]):
        return None
    us = [n.inputs[k] for n, _ in found]
    if any(u.type.dtype != us[0].type.dtype for u in us):
        return None
    way = direction(node, k, _hull(us))
    if way is None:
        return None
    inner = _censoring(v.owner.op, us, way, lambda: _ordered(us[2], us[1]))
    out = None if inner is None else _apply(node, k, inner)
    return out if out is not None and out.type == v.type else None


def is_censoring(node: Any) -> bool:
    """Whether ``node`` is a ``clip``, ``maximum`` or ``minimum``."""
    return isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, CENSORINGS)


def input_paths(v: Variable) -> int:
    """The paths from ``v`` down to its non-constant inputs (the size of its graph read as a tree):
    ``x + x`` reads ``x`` by two, ``x * 2`` by one (the measure of the collecting rules)."""
    memo: dict[Variable, int] = {}
    stack = [v]
    while stack:
        w = stack[-1]
        if w in memo:
            stack.pop()
            continue
        node = w.owner
        if node is None:
            memo[w] = 0 if isinstance(w, Constant) else 1
            stack.pop()
            continue
        missing = [i for i in node.inputs if i not in memo]
        if missing:
            stack.extend(missing)
            continue
        memo[w] = sum(memo[i] for i in node.inputs)
        stack.pop()
    return memo[v]


def is_clip(node: Any) -> bool:
    """Whether ``node`` is a ``clip``."""
    return isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, ps.Clip)


def pow_of_exp(node: Any) -> bool:
    """Whether ``node`` is a power of an exponential."""
    return _scalar_kind(node.outputs[0]) is ps.Pow and _scalar_kind(node.inputs[0]) is ps.Exp


def positive_constant(c: Variable) -> bool:
    """Guard: ``c`` is a constant, every entry positive."""
    value = constant_value(c)
    return value is not None and value.size > 0 and bool(np.all(value > 0))


def ordered_bounds(lo: Variable, hi: Variable) -> bool:
    """Guard: ``lo`` and ``hi`` are constants with ``lo <= hi``."""
    low, high = constant_value(lo), constant_value(hi)
    return low is not None and high is not None and bool(np.all(low <= high))


def is_constant(c: Variable) -> bool:
    """Guard: ``c`` is a constant (or the ExpandDims of one)."""
    return constant_value(c) is not None
