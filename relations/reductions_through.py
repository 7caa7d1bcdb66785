"""Reductions through broadcasts, Allocs and writes into a fill: rewrites that are choices.

A ``Sum`` over axes along which an operand of a ``Mul`` is broadcast can
take the operand out (it multiplies the sum once instead of every element);
an operand of an ``Add`` or ``Sub`` broadcast along them is counted ``N``
times (``N`` the number of elements reduced per output element); a
reduction of an ``Alloc`` of a broadcast value reads the value; a full
reduction of writes into a constant fill (``zeros(n)[idx].set(v)``, the
LKJCorr logp's Cholesky factor, pytensor #2138) reads the fill value and
the written values.  PR #2130's reduce-of-join is the same kind of rewrite
(pytensor #2132).

Each is a relation like the others (forward, backward, check), but a
choice: PyTensor fuses a reduction with the Elemwise below it into one
loop, so moving the Elemwise out pays only where the reduced sizes are
large enough.  They are the rule set ``RULESETS["choices"]`` and not in the
default or compile sets: extraction under a measured cost decides.
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np
import pytensor.scalar as ps
from pytensor.graph.basic import Variable
from pytensor.scalar import Cast, ScalarType
from pytensor.tensor import subtensor as pts
from pytensor.tensor.basic import Alloc, alloc, constant
from pytensor.tensor.subtensor import set_subtensor
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import Max, Min, Sum

from graph_bridge import builder_for, elemwise_term, op_term, same_typeo, term, term_variable
from logic_core.goals import lall_ready
from graph_bridge.measures import count, weighted_operands
from logic_core.modes import Mode, ModedGoal, moded
from graph_bridge.nodes import absorb_expansion, alloc_parts, scalar_of
from graph_bridge.ops import BROADCAST, MISSING, ExplicitAlloc, ExplicitElemwise, entry_order
from graph_bridge.node_relations import SET_CLASSES
from graph_bridge.value_facts import indices_unique
from relations.rules import rule

__all__ = [
    "reduce_alloco",
    "reduce_writeso",
    "sum_count_broadcasto",
    "sum_factor_broadcasto",
]

DS = builder_for(DimShuffle)
SET1 = getattr(pts, "AdvancedIncSubtensor1", None)
#: a reduction's scalar op -> the elementwise op that combines two of its results
COMBINE = {ps.Maximum: ps.scalar_maximum, ps.Minimum: ps.scalar_minimum}


# -- reading and building ------------------------------------------------------------


def _reduction(v: Variable) -> tuple[CAReduce, tuple[int, ...], Variable] | None:
    """``(op, axes, input)`` of a stock Sum/Max/Min (axes as a tuple, ``None`` read as every axis)."""
    node = v.owner
    if node is None or type(node.op) not in (Sum, Max, Min):
        return None
    x = node.inputs[0]
    axes = node.op.axis
    axes = tuple(range(x.type.ndim)) if axes is None else tuple(a % x.type.ndim for a in axes)
    return node.op, axes, x


def _elemwise_entries(v: Variable) -> tuple[Any, list[tuple[Variable, str]]] | None:
    """``(scalar_op, [(input, entry)])`` of a one-output Elemwise, stock or explicit.

    An entry has one character per output dim (``'x'`` missing, ``'1'``
    broadcast, ``'*'`` kept); a stock input's expanding DimShuffle is read
    through (its input and ``'x'`` entries).
    """
    node = v.owner
    if node is None or len(node.outputs) != 1:
        return None
    if type(node.op) is ExplicitElemwise:
        return node.op.scalar_op, list(zip(node.inputs, node.op.pattern))
    if type(node.op) is Elemwise and not node.op.inplace_pattern:
        return node.op.scalar_op, [absorb_expansion(i) for i in node.inputs]
    return None


def _constant_along(u: Variable, entry: str, axes: tuple[int, ...]) -> bool:
    """``u`` (placed by ``entry``) has one value along every axis of ``axes``: missing, or static length 1."""
    own = _own_dims(entry)
    return all(entry[d] == MISSING or (entry[d] == BROADCAST and u.type.shape[own[d]] == 1) for d in axes)


def _own_dims(entry: str) -> dict[int, int]:
    """Output dim -> the input's own dim, for the dims the input has."""
    found, i = {}, 0
    for d, c in enumerate(entry):
        if c != MISSING:
            found[d] = i
            i += 1
    return found


def _dimshuffled(u: Any, ndim: int, order: tuple) -> Any:
    if order == tuple(range(ndim)):
        return u
    return term(term(DS, ndim, order), u)


def _aligned(u: Variable, entry: str) -> Any:
    """``u`` with the output's ndim (its missing dims added as broadcast ones)."""
    return _dimshuffled(u, u.type.ndim, entry_order(entry))


def _dropped(u: Variable, entry: str, axes: tuple[int, ...]) -> Any:
    """``u`` (constant along ``axes``) placed in the output dims not in ``axes``."""
    own = _own_dims(entry)
    order = [("x" if c == MISSING else own[d]) for d, c in enumerate(entry) if d not in axes]
    return _dimshuffled(u, u.type.ndim, tuple(order))


def _expanded(u: Variable, axes: tuple[int, ...], ndim: int) -> Any:
    """``u`` with broadcast dims inserted at ``axes`` (of ``ndim`` in all)."""
    own = iter(range(u.type.ndim))
    return _dimshuffled(u, u.type.ndim, tuple("x" if d in axes else next(own) for d in range(ndim)))


def _count_constant(n: int, dtype: str) -> Variable:
    return constant(np.asarray(n, dtype=dtype))


def _cast_to(t: Any, v: Variable, dtype: str) -> Any:
    return t if v.type.dtype == dtype else term(elemwise_term(Cast(ScalarType(dtype))), t)


def _with_axis(op: CAReduce, axis: Any) -> Any:
    """The term of ``op`` reducing along ``axis`` (every other prop kept)."""
    props = dict(op._props_dict())
    props["axis"] = axis
    builder = builder_for(type(op))
    return op_term(builder(*(props[p] for p in builder.prop_names)))


def _reduced_length(out: Variable, axes: tuple[int, ...]) -> int | None:
    """Elements reduced per output element: the static lengths of ``out`` along ``axes``."""
    lengths = [out.type.shape[d] for d in axes]
    return None if None in lengths else prod(lengths)


def _ndim(t: Any) -> int:
    v = term_variable(t)
    if v is None:
        raise ValueError(f"a built part has no variable: {t}")
    return v.type.ndim


def _elemwise(scalar_op: Any, *parts: Any) -> Any:
    """``Elemwise(scalar_op)(*parts)`` as PyTensor builds it: lower-rank parts expanded on the left."""
    ndims = [_ndim(t) for t in parts]
    n = max(ndims)
    parts = tuple(
        t if k == n else _dimshuffled(t, k, ("x",) * (n - k) + tuple(range(k))) for t, k in zip(parts, ndims)
    )
    return term(elemwise_term(scalar_op), *parts)


def _combined(scalar_op: Any, parts: list) -> Any:
    return parts[0] if len(parts) == 1 else _elemwise(scalar_op, *parts)


def _rule_goal(name: str, lhs: Any, rhs: Any, forward, backward) -> ModedGoal:
    """The goal ``rhs`` is ``forward(lhs)`` (lhs known; also the check), or ``lhs`` is ``backward(rhs)``."""

    def run_forward(tl):
        v = term_variable(tl)
        built = forward(v) if v is not None else None
        return None if built is None else (built,)

    def run_backward(tr):
        v = term_variable(tr)
        built = backward(v) if v is not None else None
        return None if built is None else (built,)

    return moded(
        name,
        (lhs, rhs),
        Mode((0,), (1,), one=run_forward),
        Mode((1,), (0,), one=run_backward),
        waiting=f"{name} needs lhs or rhs",
    )


# -- a Sum through a broadcast operand --------------------------------------------------


def _sum_of_elemwise(v: Variable):
    """``(op, axes, elemwise output, scalar_op, entries)`` of ``Sum{axes}(Elemwise(...))``.

    Only where the Elemwise computes in the Sum's dtype, or in floats: an
    int8 Elemwise wraps around before an int64 Sum and would not after the
    rewrite, and a bool Add is an or.
    """
    red = _reduction(v)
    if red is None or type(red[0]) is not Sum or not red[1]:
        return None
    op, axes, x = red
    if not x.type.dtype.startswith("float") and x.type.dtype != v.type.dtype:
        return None  # int8 arithmetic wraps before an int64 sum, and not after; bool add is or
    parts = _elemwise_entries(x)
    if parts is None:
        return None
    return op, axes, x, parts[0], parts[1]


def _factor_forward(v: Variable) -> Any:
    found = _sum_of_elemwise(v)
    if found is None:
        return None
    op, axes, x, sop, entries = found
    head = op_term(op)
    if isinstance(sop, ps.Neg):
        (u, e), = entries
        return term(elemwise_term(sop), term(head, _aligned(u, e)))
    if not isinstance(sop, ps.Mul):
        return None
    out = [(_dropped(u, e, axes)) for u, e in entries if _constant_along(u, e, axes)]
    rest = [_aligned(u, e) for u, e in entries if not _constant_along(u, e, axes)]
    if not out or not rest:
        return None
    return _elemwise(sop, term(head, _combined(sop, rest)), *out)


def _factor_backward(v: Variable) -> Any:
    parts = _elemwise_entries(v)
    if parts is None or len(v.owner.inputs) < 1:
        return None
    sop, _ = parts
    ins = v.owner.inputs
    first = _reduction(ins[0])
    if first is None or type(first[0]) is not Sum:
        return None
    op, axes, inner = first
    head = op_term(op)
    if isinstance(sop, ps.Neg) and len(ins) == 1:
        return term(head, term(elemwise_term(sop), inner))
    if not isinstance(sop, ps.Mul) or len(ins) < 2 or any(i.type.ndim != v.type.ndim for i in ins[1:]):
        return None
    n = inner.type.ndim
    return term(head, term(elemwise_term(sop), inner, *[_expanded(i, axes, n) for i in ins[1:]]))


@rule(
    heads=(Sum,),
    rhs_heads=(Elemwise,),
    child_heads=(Elemwise, ExplicitElemwise),
    measure=weighted_operands(),
)
def sum_factor_broadcasto(lhs: Any, rhs: Any):
    """A Sum takes out the Mul operands broadcast along its axes, and a Neg.

    Before / after (``m``: (n, k); ``r``: (1, k); ``s`` 0-d)::

        Sum{axis=0}(Mul(m, r))               ->  Mul(Sum{axis=0}(m), DropDims{0}(r))
        Sum{axis=(0, 1)}(Mul(m, s))          ->  Mul(Sum{axis=(0, 1)}(m), s)
        Sum{axis=1}(Neg(m))                  ->  Neg(Sum{axis=1}(m))

    For stock and explicit Elemwise (an operand is broadcast along an axis
    where it is missing or has static length 1).  The Sum's head is kept
    (dtype, acc_dtype); the operands that are not broadcast stay under it,
    in one Mul.  A choice: the Mul then runs on the reduced size, but
    PyTensor fuses ``Sum(Mul(...))`` into one loop (no array is written),
    so it pays only when the operands' own graphs are shared or large.
    Floating-point sums may round differently (``sum(a) * b`` for
    ``sum(a * b)``).

    Measure: the sum over Elemwise nodes of their operands times 8 to the
    number of reductions above them drops: the Mul (or Neg) moves above the
    Sum, keeping under it only the operands that are not broadcast, and the
    broadcast operands' graphs lose a reduction above them.
    Backward: from ``Mul(Sum{axes}(a), *b)`` (the Sum first) it expands each
    ``b`` at the reduced axes; from ``Neg(Sum(a))`` it puts the Neg under it.
    """
    return lall_ready(
        _rule_goal("sum_factor_broadcasto", lhs, rhs, _factor_forward, _factor_backward),
        same_typeo(lhs, rhs),
    )


def _count_forward(v: Variable) -> Any:
    found = _sum_of_elemwise(v)
    if found is None:
        return None
    op, axes, x, sop, entries = found
    if not isinstance(sop, (ps.Add, ps.Sub)):
        return None
    n = _reduced_length(x, axes)
    if n is None:
        return None
    head, dtype = op_term(op), v.type.dtype
    const = [_constant_along(u, e, axes) for u, e in entries]
    if not any(const):
        return None

    def counted(u, e):
        return _elemwise(ps.mul, _count_constant(n, dtype), _cast_to(_dropped(u, e, axes), u, dtype))

    if isinstance(sop, ps.Sub):
        (a, ea), (b, eb) = entries
        left = counted(a, ea) if const[0] else term(head, _aligned(a, ea))
        right = counted(b, eb) if const[1] else term(head, _aligned(b, eb))
        return _elemwise(sop, left, right)
    rest = [_aligned(u, e) for (u, e), c in zip(entries, const) if not c]
    parts = ([term(head, _combined(sop, rest))] if rest else []) + [
        counted(u, e) for (u, e), c in zip(entries, const) if c
    ]
    return _combined(sop, parts)


def _count_backward(v: Variable) -> Any:
    node = v.owner
    if node is None or type(node.op) is not Elemwise or not isinstance(node.op.scalar_op, (ps.Add, ps.Sub)):
        return None
    if len(node.inputs) != 2:
        return None
    a, b = node.inputs
    first = _reduction(a)
    counted = b.owner
    if first is None or type(first[0]) is not Sum or counted is None or type(counted.op) is not Elemwise:
        return None
    if not isinstance(counted.op.scalar_op, ps.Mul) or len(counted.inputs) != 2:
        return None
    op, axes, inner = first
    n_const, c = counted.inputs
    n = scalar_of(n_const)
    if n is None or getattr(n, "data", None) is None or _reduced_length(inner, axes) != n.data:
        return None
    if c.type.dtype != v.type.dtype or c.type.ndim != v.type.ndim:
        return None
    return term(op_term(op), term(op_term(node.op), inner, _expanded(c, axes, inner.type.ndim)))


@rule(
    heads=(Sum,),
    rhs_heads=(Elemwise,),
    child_heads=(Elemwise, ExplicitElemwise),
    measure=weighted_operands(),
)
def sum_count_broadcasto(lhs: Any, rhs: Any):
    """A Sum of an Add or Sub counts the operands broadcast along its axes ``N`` times.

    Before / after (``m``: (n, k) with static ``n``; ``r``: (1, k))::

        Sum{axis=0}(Add(m, r))      ->  Add(Sum{axis=0}(m), Mul(n, DropDims{0}(r)))
        Sum{axis=0}(Sub(r, m))      ->  Sub(Mul(n, DropDims{0}(r)), Sum{axis=0}(m))

    ``N`` is the number of elements each output element reduces: the
    product of the Elemwise output's static lengths along the axes (unknown
    lengths: left alone), a constant of the Sum's output dtype (the
    broadcast operand is cast to it, as the Sum accumulates in it).  A
    choice, as :func:`sum_factor_broadcasto`.  Floating-point: ``n * r``
    for ``r + r + ... + r`` may round differently.

    Measure: as :func:`sum_factor_broadcasto`: ``j`` counted operands leave
    the Sum, and above it at most ``4j + 1`` operands are added (the Add's
    or Sub's, a binary Mul and a Cast per operand), each weighing 8 times
    less.
    Backward: from ``Add(Sum{axes}(a), Mul(N, c))`` or the same ``Sub``,
    where ``N`` is a constant equal to ``a``'s static reduced length.
    """
    return lall_ready(
        _rule_goal("sum_count_broadcasto", lhs, rhs, _count_forward, _count_backward),
        same_typeo(lhs, rhs),
    )


# -- a reduction of an Alloc ----------------------------------------------------------------


def _alloc_forward(v: Variable) -> Any:
    red = _reduction(v)
    if red is None or not red[1]:
        return None
    op, axes, x = red
    parts = alloc_parts(x)
    if parts is None:
        return None
    value, shape = parts
    n = x.type.ndim
    entry = derive_alloc_entry(value, n)
    if not _constant_along(value, entry, axes):
        return None
    kept_shape = [s for d, s in enumerate(shape) if d not in axes]
    dtype = v.type.dtype
    w = _cast_to(_dropped(value, entry, axes), value, dtype)
    if type(op) is Sum:
        for d in axes:
            w = _elemwise(ps.mul, w, _cast_to(shape[d], shape[d], dtype))
    elif any(x.type.shape[d] in (None, 0) for d in axes):
        return None  # Max/Min of an empty (or maybe empty) axis fails; the Alloc's value would not
    return term(op_term(Alloc()), w, *kept_shape) if kept_shape else w


def derive_alloc_entry(value: Variable, ndim: int) -> str:
    """The pattern entry of an Alloc's value in its ``ndim``-d output (aligned right)."""
    own = "".join(BROADCAST if s == 1 else "*" for s in value.type.shape)
    return MISSING * (ndim - value.type.ndim) + own


def _alloc_backward(v: Variable) -> Any:
    node = v.owner
    if node is None or type(node.op) is not Alloc:
        return None
    w, kept = node.inputs[0], list(node.inputs[1:])
    if w.owner is not None and type(w.owner.op) is Elemwise and isinstance(w.owner.op.scalar_op, ps.Mul):
        value, *lengths = w.owner.inputs
        ints = [_uncast(s) for s in lengths]
        if lengths and all(s is not None for s in ints):
            shape = [*ints, *kept]
            return term(_with_axis(Sum(axis=None), tuple(range(len(ints)))), term(op_term(Alloc()), value, *shape))
    one = constant(np.asarray(1, dtype="int64"))
    return term(_with_axis(Max(axis=None), (0,)), term(op_term(Alloc()), w, one, *kept))


def _uncast(s: Variable) -> Variable | None:
    """The integer 0-d variable a Cast of it gives (a length cast to the value's dtype), else ``None``."""
    s = scalar_of(s)
    node = s.owner if s is not None else None
    if s is None:
        return None
    if node is not None and type(node.op) is Elemwise and isinstance(node.op.scalar_op, Cast):
        s = node.inputs[0]
    return s if s.type.ndim == 0 and s.type.dtype.startswith(("int", "uint")) else None


@rule(heads=(Sum, Max, Min), rhs_heads=(Alloc, Elemwise), child_heads=(Alloc, ExplicitAlloc), measure=count(CAReduce))
def reduce_alloco(lhs: Any, rhs: Any):
    """A reduction of an Alloc along axes where its value is broadcast reads the value.

    Before / after (``v``: (k,) or 0-d; ``n``, ``m`` lengths)::

        Sum{axis=0}(Alloc(v, n, k))          ->  Alloc(Mul(v, cast(n)), k)
        Sum{axis=None}(Alloc(s, n, m))       ->  Mul(Mul(s, cast(n)), cast(m))
        Max{axis=0}(Alloc(v, n, k))          ->  Alloc(v, k)     # n statically > 0

    Sum multiplies by the reduced lengths (cast to the output dtype; the
    value too, so an int8 fill summed in int64 does not overflow); Max and
    Min need every reduced length statically positive (an empty axis would
    fail before and not after).  The length check the Alloc makes on kept
    dims stays in the new Alloc; on reduced dims it is gone (a negative
    length raised before; the rewrite assumes a valid graph).

    Measure: CAReduce nodes drop by one (only Elemwise, DimShuffle and
    Alloc nodes are built).
    Backward: from ``Alloc(Mul(v, cast(n1), ...), *kept)`` (or the Mul
    alone) the Sum over new leading axes of lengths ``n1, ...``; from any
    ``Alloc(w, *kept)`` the Max over a new leading axis of length 1.
    """
    return lall_ready(
        _rule_goal("reduce_alloco", lhs, rhs, _alloc_forward, _alloc_backward),
        same_typeo(lhs, rhs),
    )


# -- a full reduction of writes into a constant fill --------------------------------------------


def _written_region(set_node) -> Variable | None:
    """The variable of the elements a set node writes (``x[idx]``), for its static shape."""
    op, (x, _v, *idx) = set_node.op, set_node.inputs
    try:
        if type(op) is pts.IncSubtensor:
            return pts.Subtensor(op.idx_list)(x, *idx)
        if SET1 is not None and type(op) is SET1:
            return pts.AdvancedSubtensor1()(x, *idx)
        return pts.advanced_subtensor(x, *idx)
    except Exception:  # noqa: BLE001 - an index the reader cannot rebuild: no rewrite
        return None


def _writes_forward(v: Variable) -> Any:
    node = v.owner
    if node is None or type(node.op) not in (Sum, Max, Min):
        return None
    op, s = node.op, node.inputs[0]
    if op.axis is not None and tuple(sorted(a % s.type.ndim for a in op.axis)) != tuple(range(s.type.ndim)):
        return None
    w = s.owner
    if w is None or type(w.op) not in SET_CLASSES or not w.op.set_instead_of_inc or w.op.inplace:
        return None
    base, value, *idx = w.inputs
    parts = alloc_parts(base)
    fill = scalar_of(parts[0]) if parts is not None else None
    region = _written_region(w)
    if fill is None or region is None or None in base.type.shape or None in region.type.shape:
        return None
    if value.type.shape != region.type.shape or not indices_unique(w.op, tuple(idx)):
        return None
    total, written = prod(base.type.shape), prod(region.type.shape)
    dtype = v.type.dtype
    c = _cast_to(fill, fill, dtype)
    reduced = term(_with_axis(op, None), _cast_to(value, value, base.type.dtype))
    if type(op) is Sum:
        if total == written:
            return reduced
        return _elemwise(ps.add, _elemwise(ps.mul, c, _count_constant(total - written, dtype)), reduced)
    if total == 0:
        return None  # Max/Min of nothing fails: left as it is
    if written == 0:
        return c
    if written == total:
        return reduced
    return _elemwise(COMBINE[type(op.scalar_op)], c, reduced)


def _writes_backward(v: Variable) -> Any:
    node = v.owner
    if node is None or type(node.op) is not Elemwise or len(node.inputs) != 2:
        return None
    sop, (a, b) = node.op.scalar_op, node.inputs
    if isinstance(sop, ps.Add) and a.owner is not None and type(a.owner.op) is Elemwise:
        c, rest = a.owner.inputs if len(a.owner.inputs) == 2 else (None, None)
        rest = scalar_of(rest) if rest is not None else None
        if c is None or rest is None or getattr(rest, "data", None) is None or int(rest.data) < 1:
            return None
        extra, red = int(rest.data), _reduction(b)
    elif type(sop) in (ps.Maximum, ps.Minimum):
        c, extra, red = a, 1, _reduction(b)
        if red is None or not isinstance(red[0].scalar_op, type(sop)):
            return None
    else:
        return None
    if red is None or red[2].type.ndim != 1 or red[2].type.shape[0] is None or c.type.ndim != 0:
        return None
    if red[2].type.dtype != c.type.dtype:
        return None
    op, _axes, value = red
    k = value.type.shape[0]
    # built as PyTensor builds it (the set's Op class differs between PyTensor lines)
    base = alloc(c, constant(np.asarray(k + extra, dtype="int64")))
    return op(set_subtensor(base[constant(np.arange(k, dtype="int64"))], value))


def _is_set(node: Any) -> bool:
    return bool(node.op.set_instead_of_inc)


@rule(heads=(Sum, Max, Min), rhs_heads=(Elemwise,), child_heads=SET_CLASSES, measure=count(*SET_CLASSES, exact=True, test=_is_set, text="set"))
def reduce_writeso(lhs: Any, rhs: Any):
    """A full reduction of writes into a constant fill reads the fill and the written values.

    Before / after (``c`` 0-d, ``N`` the base's size, ``k`` the elements written)::

        Sum(Alloc(c, *shape)[idx].set(v))    ->  Add(Mul(c, N - k), Sum(v))
        Max(Alloc(c, *shape)[idx].set(v))    ->  Maximum(c, Max(v))       # 0 < k < N
        Min(...)                              ->  Minimum(c, Min(v))

    Only without repeated writes (basic indices, or constant advanced ones
    that name each element once, as ``inc_zeros_as_seto`` checks): with a
    repeat the set keeps the last write and ``Sum(v)`` would count the
    others.  The base's shape and the written region's must be static, and
    ``v`` must fill the region (same static shape; no broadcast value).
    ``v`` is reduced in the base's dtype (what the set stores).  Max and Min
    with nothing written give ``c``; with everything written ``Max(v)``;
    over an empty base they are left alone (both sides would fail, but
    ``Max(v)`` of a made-up shape is not the same failure).

    Measure: set nodes drop by one.
    Backward: from ``Add(Mul(c, M), Sum(v))`` (``M >= 1`` a constant, ``v``
    a vector of static length ``k``) the Sum of ``Alloc(c, k + M)`` with
    ``v`` set at ``arange(k)``; from ``Maximum(c, Max(v))`` the same with
    ``M = 1``.
    """
    return lall_ready(
        _rule_goal("reduce_writeso", lhs, rhs, _writes_forward, _writes_backward),
        same_typeo(lhs, rhs),
    )
