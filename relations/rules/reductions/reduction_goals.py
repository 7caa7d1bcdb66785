"""Relations over the parts of a reduction, as the rules of ``relations.rules.reductions`` ask them.

Each is a moded goal over the parts the rule's patterns read (a reduction's
head ``h``, an Elemwise's scalar op, operands and broadcast entries, an
Alloc's value and shape, a set's parts) and the parts its right side is
built from; forward (left parts known) it computes the right parts, backward
(right parts known) the left ones, and with both known it checks:

- :func:`sum_dtype_safeo`: the Elemwise under a Sum computes in floats or in the Sum's dtype;
- :func:`factor_broadcasto`: the Mul operands a Sum takes out (and a Neg);
- :func:`count_broadcasto`: the Add/Sub operands a Sum counts ``N`` times;
- :func:`alloc_reductiono`: a reduction of an Alloc read off its value;
- :func:`fill_writeso`: a full reduction of writes into a constant fill.

The terms are built as PyTensor builds them (:mod:`relations.rules.reductions.reduction_terms`).
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np
import pytensor.scalar as ps
from pytensor.graph.basic import Variable
from pytensor.tensor.basic import alloc, constant
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.math import Max, Sum
from pytensor.tensor.subtensor import set_subtensor

from graph_bridge.elemwise_terms import elemwise_like
from graph_bridge.nodes import scalar_of
from graph_bridge.ops import derive_entry
from graph_bridge.terms import op_term, term, term_variable
from graph_bridge.value_facts import indices_unique
from logic_core.moded import Mode, ModedGoal, moded
from relations.rules.reductions.reduction_terms import (
    aligned,
    alloc_entry,
    cast_to,
    combined,
    constant_along,
    count_constant,
    dropped,
    reduced_length,
    reduction_axes,
    reduction_of,
    uncast,
    with_axis,
    written_region,
)

__all__ = [
    "COMBINE",
    "alloc_reductiono",
    "count_broadcasto",
    "factor_broadcasto",
    "fill_writeso",
    "sum_dtype_safeo",
]

#: a reduction's scalar op -> the elementwise op that combines two of its results
COMBINE = {ps.Maximum: ps.scalar_maximum, ps.Minimum: ps.scalar_minimum}


def _op(h: Any) -> Any:
    """The Op a head term stands for."""
    return getattr(h, "evaled_obj", h)


def _variables(ts: tuple) -> list | None:
    vs = [term_variable(t) for t in ts]
    return None if any(v is None for v in vs) else vs


def _is_tuple(x: Any) -> bool:
    return isinstance(x, tuple)


def sum_dtype_safeo(x: Any, dtype: Any) -> ModedGoal:
    """Check: the Elemwise ``x`` under a Sum of dtype ``dtype`` computes in floats or in ``dtype``.

    An int8 ``a * b`` wraps around before an int64 Sum and would not after
    the Mul moved above it; a bool Add is an or.
    """

    def check(xt, d):
        v = term_variable(xt)
        return () if v is not None and (v.type.dtype.startswith("float") or v.type.dtype == d) else None

    return moded(
        "sum_dtype_safeo",
        {"x": x, "dtype": dtype},
        Mode(needs=("x", "dtype"), gives=(), one=check),
        waiting="sum_dtype_safeo needs x and dtype",
    )


# -- a Sum through a broadcast operand ----------------------------------------------------


def _sum_axes(h: Any, ndim: int) -> tuple[int, ...] | None:
    op = _op(h)
    return reduction_axes(op, ndim) if type(op) is Sum else None


def _factor_out(h, f, ins, entries):
    us = _variables(ins)
    axes = _sum_axes(h, len(entries[0])) if us and entries else None
    if not axes:
        return None
    if isinstance(f, ps.Neg):
        ((u, e),) = zip(us, entries)
        return aligned(u, e), ()
    if not isinstance(f, ps.Mul):
        return None
    out = tuple(dropped(u, e, axes) for u, e in zip(us, entries) if constant_along(u, e, axes))
    rest = [aligned(u, e) for u, e in zip(us, entries) if not constant_along(u, e, axes)]
    if not out or not rest:
        return None
    return combined(f, rest), out


def _factor_in(h, f, kept, out):
    inner = term_variable(kept)
    bs = _variables(out)
    axes = _sum_axes(h, inner.type.ndim) if inner is not None and bs is not None else None
    if axes is None:
        return None
    n = inner.type.ndim
    if isinstance(f, ps.Neg) and not out:
        return (inner,), (derive_entry(inner.type.shape, n),)
    if not isinstance(f, ps.Mul) or not out or any(b.type.ndim != n - len(axes) for b in bs):
        return None
    entries = [_entry_expanded(b, axes, n) for b in bs]
    return (inner, *bs), (derive_entry(inner.type.shape, n), *entries)


def _entry_expanded(b: Variable, axes: tuple[int, ...], ndim: int) -> str:
    """The entry of ``b`` with broadcast dims inserted at ``axes`` (what :func:`expanded` builds)."""
    own = iter(derive_entry(b.type.shape, b.type.ndim))
    return "".join("x" if d in axes else next(own) for d in range(ndim))


def factor_broadcasto(head: Any, scalar_op: Any, inputs: Any, entries: Any, kept: Any, out: Any) -> ModedGoal:
    """``head(scalar_op(*inputs))`` is ``scalar_op(head(kept), *out)``: the broadcast operands taken out.

    ``head`` is a Sum; ``inputs`` are the Elemwise's operands placed by
    ``entries``.  Forward a Mul keeps under the Sum the operands that are
    not broadcast along its axes (one Mul of them) and takes the others
    out with those dims dropped; a Neg moves above it.  Backward each of
    ``out`` gets broadcast dims at the reduced axes.
    """
    return moded(
        "factor_broadcasto",
        {"head": head, "scalar_op": scalar_op, "inputs": inputs, "entries": entries, "kept": kept, "out": out},
        Mode(
            needs=("head", "scalar_op", "inputs", "entries"),
            gives=("kept", "out"),
            ready=lambda h, f, i, e: _is_tuple(i) and _is_tuple(e),
            one=_factor_out,
        ),
        Mode(
            needs=("head", "scalar_op", "kept", "out"),
            gives=("inputs", "entries"),
            ready=lambda h, f, k, o: _is_tuple(o),
            one=_factor_in,
        ),
        waiting="factor_broadcasto needs the left operands or the right parts",
    )


def _count_out(h, x, d, f, ins, entries):
    us, xv = _variables(ins), term_variable(x)
    axes = _sum_axes(h, xv.type.ndim) if us and xv is not None else None
    if not axes or not isinstance(f, (ps.Add, ps.Sub)) or len(us) < 2:
        return None  # (a unary Add, ``pt.add(x)``, counts nothing: PyTensor removes it when compiling)
    n = reduced_length(xv, axes)
    const = [constant_along(u, e, axes) for u, e in zip(us, entries)]
    if n is None or not any(const):
        return None

    def counted(u, e):
        return elemwise_like(ps.mul, count_constant(n, d), cast_to(dropped(u, e, axes), u, d))

    if isinstance(f, ps.Sub):
        (a, ea), (b, eb) = zip(us, entries)
        left = counted(a, ea) if const[0] else term(h, aligned(a, ea))
        right = counted(b, eb) if const[1] else term(h, aligned(b, eb))
        return ((left, right),)
    rest = [aligned(u, e) for u, e, c in zip(us, entries, const) if not c]
    summed = [term(h, combined(f, rest))] if rest else []
    return (tuple(summed + [counted(u, e) for u, e, c in zip(us, entries, const) if c]),)


def _count_in(d, f, parts):
    if not isinstance(f, (ps.Add, ps.Sub)) or len(parts) != 2:
        return None
    a, b = _variables(parts) or (None, None)
    first, counted = reduction_of(a) if a is not None else None, b.owner if b is not None else None
    if first is None or type(first[0]) is not Sum or counted is None or type(counted.op) is not Elemwise:
        return None
    if not isinstance(counted.op.scalar_op, ps.Mul) or len(counted.inputs) != 2:
        return None
    op, axes, inner = first
    n = scalar_of(counted.inputs[0])
    c = counted.inputs[1]
    if n is None or getattr(n, "data", None) is None or reduced_length(inner, axes) != n.data:
        return None
    if c.type.dtype != d or c.type.ndim != b.type.ndim:
        return None
    entries = (derive_entry(inner.type.shape, inner.type.ndim), _entry_expanded(c, axes, inner.type.ndim))
    return op_term(op), (inner, c), entries


def count_broadcasto(head: Any, x: Any, dtype: Any, scalar_op: Any, inputs: Any, entries: Any, parts: Any):
    """``head(x)``, ``x = scalar_op(*inputs)`` an Add or Sub, is ``parts`` combined by ``scalar_op``.

    Forward (``head`` a Sum of dtype ``dtype``, ``x``'s static lengths along
    its axes known, ``N`` their product) an operand broadcast along the
    axes becomes ``Mul(N, cast(dropped))``; the others stay under the Sum
    (one Add of them; each side of a Sub).  Backward from ``(Sum(a),
    Mul(N, c))`` with ``N`` the constant static reduced length of ``a`` it
    gives ``head``, the operands ``(a, c)`` and their entries (``c``
    expanded at the reduced axes).
    """
    return moded(
        "count_broadcasto",
        {
            "head": head,
            "x": x,
            "dtype": dtype,
            "scalar_op": scalar_op,
            "inputs": inputs,
            "entries": entries,
            "parts": parts,
        },
        Mode(
            needs=("head", "x", "dtype", "scalar_op", "inputs", "entries"),
            gives=("parts",),
            ready=lambda h, x_, d, f, i, e: _is_tuple(i) and _is_tuple(e),
            one=_count_out,
        ),
        Mode(
            needs=("dtype", "scalar_op", "parts"),
            gives=("head", "inputs", "entries"),
            ready=lambda d, f, p: _is_tuple(p),
            one=_count_in,
        ),
        waiting="count_broadcasto needs the left parts or the right ones",
    )


# -- a reduction of an Alloc -----------------------------------------------------------------


def _alloc_out(h, x, d, value, shape):
    op, xv, value = _op(h), term_variable(x), term_variable(value)
    axes = reduction_axes(op, xv.type.ndim) if xv is not None and value is not None else None
    if not axes:
        return None
    entry = alloc_entry(value, xv.type.ndim)
    if not constant_along(value, entry, axes):
        return None
    w = cast_to(dropped(value, entry, axes), value, d)
    if type(op) is Sum:
        for ax in axes:
            length = term_variable(shape[ax])
            w = elemwise_like(ps.mul, w, cast_to(shape[ax], length, d))
    elif any(xv.type.shape[ax] in (None, 0) for ax in axes):
        return None  # Max/Min of an empty (or maybe empty) axis fails; the Alloc's value would not
    return w, tuple(s for ax, s in enumerate(shape) if ax not in axes)


def _alloc_in(w, kept):
    wv = term_variable(w)
    if wv is None or not kept:
        return None
    node = wv.owner
    if node is not None and type(node.op) is Elemwise and isinstance(node.op.scalar_op, ps.Mul):
        value, *lengths = node.inputs
        ints = [uncast(s) for s in lengths]
        if lengths and all(s is not None for s in ints):
            return with_axis(Sum(axis=None), tuple(range(len(ints)))), value, (*ints, *kept)
    one = constant(np.asarray(1, dtype="int64"))
    return with_axis(Max(axis=None), (0,)), wv, (one, *kept)


def alloc_reductiono(head: Any, x: Any, dtype: Any, value: Any, shape: Any, w: Any, kept: Any) -> ModedGoal:
    """``head(x)``, ``x = Alloc(value, *shape)``, is ``Alloc(w, *kept)`` (``w`` alone when nothing is kept).

    Forward (``head`` a Sum, Max or Min of dtype ``dtype`` along axes where
    ``value`` is broadcast): ``w`` is ``value`` without those dims, cast to
    ``dtype``, times the reduced lengths for a Sum; a Max or Min needs every
    reduced length statically positive.  Backward from ``w = Mul(v,
    cast(n1), ...)`` the Sum over new leading axes of lengths ``n1, ...``;
    from any other ``w`` the Max over a new leading axis of length 1.
    """
    return moded(
        "alloc_reductiono",
        {"head": head, "x": x, "dtype": dtype, "value": value, "shape": shape, "w": w, "kept": kept},
        Mode(
            needs=("head", "x", "dtype", "value", "shape"),
            gives=("w", "kept"),
            ready=lambda h, x_, d, v, s: _is_tuple(s),
            one=_alloc_out,
        ),
        Mode(needs=("w", "kept"), gives=("head", "value", "shape"), ready=lambda w_, k: _is_tuple(k), one=_alloc_in),
        waiting="alloc_reductiono needs the left parts or w and kept",
    )


# -- a full reduction of writes into a constant fill ---------------------------------------


def _writes_out(h, d, base, fill, idx, value, set_head):
    op, bv, fill, vv = _op(h), term_variable(base), term_variable(fill), term_variable(value)
    axes = reduction_axes(op, bv.type.ndim) if bv is not None and vv is not None and fill is not None else None
    c = scalar_of(fill) if axes is not None and tuple(sorted(axes)) == tuple(range(bv.type.ndim)) else None
    ivs = _variables(idx) if c is not None else None
    region = written_region(_op(set_head), bv, tuple(ivs)) if ivs is not None else None
    if region is None or None in bv.type.shape or None in region.type.shape:
        return None
    if vv.type.shape != region.type.shape or not indices_unique(_op(set_head), tuple(ivs)):
        return None
    total, written = prod(bv.type.shape), prod(region.type.shape)
    c_d = cast_to(c, c, d)
    reduced = term(with_axis(op, None), cast_to(value, vv, bv.type.dtype))
    if type(op) is Sum:
        if total == written:
            return None, (reduced,)
        return ps.add, (elemwise_like(ps.mul, c_d, count_constant(total - written, d)), reduced)
    if total == 0:
        return None  # Max/Min of nothing fails: left as it is
    combine = COMBINE[type(op.scalar_op)]
    if written == 0:
        return None, (c_d,)
    return (None, (reduced,)) if written == total else (combine, (c_d, reduced))


def _written_fill(f, parts):
    if len(parts) != 2:
        return None
    a, b = _variables(parts) or (None, None)
    if a is None:
        return None
    if isinstance(f, ps.Add) and a.owner is not None and type(a.owner.op) is Elemwise:
        if not isinstance(a.owner.op.scalar_op, ps.Mul) or len(a.owner.inputs) != 2:
            return None
        c, rest = a.owner.inputs
        rest = scalar_of(rest)
        if rest is None or getattr(rest, "data", None) is None or int(rest.data) < 1:
            return None
        return c, int(rest.data), reduction_of(b)
    if type(f) in (ps.Maximum, ps.Minimum):
        red = reduction_of(b)
        return (a, 1, red) if red is not None and isinstance(red[0].scalar_op, type(f)) else None
    return None


def _writes_in(f, parts):
    found = _written_fill(f, parts)
    if found is None:
        return None
    c, extra, red = found
    if red is None or red[2].type.ndim != 1 or red[2].type.shape[0] is None or c.type.ndim != 0:
        return None
    if red[2].type.dtype != c.type.dtype:
        return None
    op, _axes, value = red
    k = value.type.shape[0]
    # built as PyTensor builds it (the set's Op class differs between PyTensor lines)
    length = constant(np.asarray(k + extra, dtype="int64"))
    written = set_subtensor(alloc(c, length)[constant(np.arange(k, dtype="int64"))], value).owner
    base, stored, *idx = written.inputs
    return op_term(op), c, (length,), tuple(idx), stored, op_term(written.op)


def fill_writeso(
    head: Any,
    dtype: Any,
    base: Any,
    fill: Any,
    shape: Any,
    idx: Any,
    value: Any,
    set_head: Any,
    scalar_op: Any,
    parts: Any,
) -> ModedGoal:
    """``head(base[idx].set(value))``, ``base = Alloc(fill, *shape)``, is ``parts`` combined by ``scalar_op``.

    Forward (``head`` a Sum, Max or Min over every axis, of dtype ``dtype``;
    ``fill`` scalar-like; static shapes; indices that name each element
    once; ``value`` filling the written region): a Sum gives ``(Mul(c, N -
    k), Sum(value))`` under Add (``(Sum(value),)`` when everything is
    written), a Max/Min ``(c, Max(value))`` under Maximum/Minimum (one of
    them alone when nothing or everything is written).  Backward from
    ``(Mul(c, M), Sum(v))`` (``M >= 1`` a constant) or ``(c, Max(v))`` it
    gives the parts of the Sum/Max of ``Alloc(c, k + M)`` with ``v`` set at
    ``arange(k)`` (``M = 1`` for Max/Min), built by ``set_subtensor``.
    """
    return moded(
        "fill_writeso",
        {
            "head": head,
            "dtype": dtype,
            "base": base,
            "fill": fill,
            "shape": shape,
            "idx": idx,
            "value": value,
            "set_head": set_head,
            "scalar_op": scalar_op,
            "parts": parts,
        },
        Mode(
            needs=("head", "dtype", "base", "fill", "idx", "value", "set_head"),
            gives=("scalar_op", "parts"),
            ready=lambda h, d, b, c, i, v, s: _is_tuple(i),
            one=_writes_out,
        ),
        Mode(
            needs=("scalar_op", "parts"),
            gives=("head", "fill", "shape", "idx", "value", "set_head"),
            ready=lambda f, p: _is_tuple(p),
            one=_writes_in,
        ),
        waiting="fill_writeso needs the left parts or the right ones",
    )
