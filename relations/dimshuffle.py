"""DimShuffle removal (pytensor #2132 / PR #2130): DimShuffles a reduction does not see, and chains of them.

Each relation is a miniKanren goal constructor ``rel(lhs, rhs)``: both sides
compute the same values with the same type.  Run forward it removes or lifts a
DimShuffle; run backward it generates the forms that normalize to ``rhs``,
within the bounds of :mod:`relations.orders`.
"""

from __future__ import annotations

from typing import Any

from pytensor.graph.basic import Variable
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import Sum
from unification import var

from graph_bridge import ndimo, op_term, same_typeo, term, term_variable
from graph_bridge.context import movable, movable_viewo
from graph_bridge.logic import eq, unify, walk
from graph_bridge.measures import below, count, elemwise_above, nodes
from graph_bridge.modes import Mode, ModedGoal, moded
from relations.broadcast import DS, stock_elemwiseo
from graph_bridge.logic import lall_ready
from relations.orders import (
    compose_orderso,
    identity_ordero,
    is_identity,
    reduce_througho,
    valid_ordero,
)
from relations.reductions import careduce_heado, full_reductiono
from relations.rules import rule

__all__ = [
    "careduce_added_dimso",
    "careduce_dimshuffle_fullo",
    "careduce_dimshuffle_partialo",
    "dimshuffle_composeo",
    "dimshuffle_identityo",
    "dimshuffle_through_elemwiseo",
    "maybe_dimshuffleo",
]

def _is_dimshuffle(node) -> bool:
    return isinstance(node.op, DimShuffle)


@rule(
    heads=(CAReduce,),
    rhs_heads=(CAReduce,),
    child_heads=(DimShuffle,),
    measure=count(DimShuffle),
)
def careduce_dimshuffle_fullo(lhs: Any, rhs: Any):
    """A full reduction does not see the layout of its input.

    Before::

        Sum{axes=None}(DimShuffle{order}(x))     # any order: expand, drop, transpose

    After::

        Sum{axes=None}(x)

    For every CAReduce class (Sum, Prod, Max, Min, All, Any, generic); the
    head (scalar op, dtype, acc_dtype, ...) is the same on both sides, so the
    output type is unchanged.  A DimShuffle only adds or drops length-1 dims
    and permutes, so the multiset of reduced elements is the same (empty
    inputs included; floating-point sums may round differently).

    Measure: DimShuffle count drops by one.
    Sharing: nothing is copied; a DimShuffle other nodes use stays for them.
    Backward: from ``CAReduce{None}(x)`` it generates ``x``'s expansions with
    up to ``relations.orders.MAX_ADDED_DIMS`` inserted dims.
    """
    x, n, order, head = var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(head, term(term(DS, n, order), x))),
        eq(rhs, term(head, x)),
        full_reductiono(head),
        ndimo(x, n),
        valid_ordero(n, order),
    )


def _axes_tupleo(axes: Any) -> ModedGoal:
    """``axes`` is a tuple (a partial reduction's axes), not ``None``."""
    return moded("axes tuple", (axes,), Mode((0,), (), lambda a: iter(((),) if isinstance(a, tuple) else ())))


def maybe_dimshuffleo(out: Any, m: Any, order: Any, inner: Any) -> ModedGoal:
    """``out`` is ``DimShuffle{m, order}(inner)``, or ``inner`` when ``order`` is the identity.

    Known ``m``, ``order`` and ``inner``: builds ``out``.  Known ``out``:
    first the DimShuffle it is (if any, and not the identity), then ``out``
    itself with the identity order.
    """

    def build(m_w, o, x):
        yield (x if is_identity(m_w, o) else term(term(DS, m_w, o), x),)

    def read(o):
        n, order_, x = var(), var(), var()
        s = unify(term(term(DS, n, order_), x), o, {})
        if s is not False:
            k, found = walk(n, s), walk(order_, s)
            if not is_identity(k, found):
                yield k, found, walk(x, s)
        v = term_variable(o)
        if v is not None and hasattr(v.type, "ndim"):
            yield v.type.ndim, tuple(range(v.type.ndim)), o

    return moded(
        "maybe_dimshuffleo",
        (out, m, order, inner),
        Mode((1, 2, 3), (0,), build, lambda m_w, o, x: isinstance(m_w, int) and isinstance(o, tuple)),
        Mode((0,), (1, 2, 3), read),
        waiting="maybe_dimshuffleo needs out, or m, order and inner",
    )


@rule(
    heads=(CAReduce,),
    rhs_heads=(CAReduce, DimShuffle),
    child_heads=(DimShuffle,),
    measure=below((DimShuffle,), (CAReduce,)).keeping(nodes()),
)
def careduce_dimshuffle_partialo(lhs: Any, rhs: Any):
    """A DimShuffle moves out of a partial reduction; reduced added dims vanish.

    Before / after (``m`` a matrix)::

        Sum{axis=(0, 2)}(ExpandDims{axis=0}(m))   ->  Sum{axis=1}(m)
        Sum{axis=2}(ExpandDims{axis=0}(m))        ->  ExpandDims{axis=0}(Sum{axis=1}(m))
        Sum{axis=0}(Transpose(m))                 ->  Sum{axis=1}(m)

    The reduction runs over the input dims behind the reduced output dims
    (dims the DimShuffle drops have length 1 and are reduced too); reduced
    ``'x'`` dims have length 1 and vanish; the kept dims are put back in
    order by a DimShuffle after the reduction, omitted when it is the
    identity.  The head's props other than ``axis`` are kept (same dtype).
    Only when the DimShuffle may move (``movable_viewo``): it has one use,
    or every use is by an Elemwise or a reduction, which all take it over;
    a consumer that keeps it would make the moved DimShuffle a second one.

    Measure: the number of DimShuffle nodes with a CAReduce above them drops
    by one (the DimShuffle now sits above the reduction, or is gone).
    Backward: inverts the axis mapping over identity and expanding orders
    (``MAX_ADDED_DIMS``), for inputs of up to 4 dims; no permutations.
    """
    x, n, order, axes, shuffled = var(), var(), var(), var(), var()
    head, head2, axes2, order2, m, inner = var(), var(), var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(head, shuffled)),
        eq(shuffled, term(term(DS, n, order), x)),
        maybe_dimshuffleo(rhs, m, order2, inner),
        eq(inner, term(head2, x)),
        careduce_heado(head, axes, head2, axes2),
        ndimo(x, n),
        _axes_tupleo(axes),
        reduce_througho(n, order, axes, axes2, order2),
        ndimo(inner, m),
        movable_viewo(shuffled),
        same_typeo(lhs, rhs),
    )


@rule(
    heads=(DimShuffle,),
    rhs_heads=(DimShuffle,),
    child_heads=(DimShuffle,),
    measure=count(DimShuffle),
)
def dimshuffle_composeo(lhs: Any, rhs: Any):
    """Two DimShuffles in a row are one.

    Before::

        DimShuffle{outer}(DimShuffle{inner}(x))

    After::

        DimShuffle{compose(inner, outer)}(x)

    ``compose`` maps each output dim through both orders; dims either step
    drops are broadcastable, so the composed DimShuffle is valid.

    Measure: DimShuffle count drops by one.
    Sharing: the inner DimShuffle stays for its other users, the outer one is
    replaced by one: no kind grows.
    Backward: splits a DimShuffle of ``x`` into an expansion of ``x`` (up to
    ``MAX_ADDED_DIMS`` inserted dims) followed by the rest.
    """
    x, n, inner, outer, m, composed = var(), var(), var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(term(DS, m, outer), term(term(DS, n, inner), x))),
        eq(rhs, term(term(DS, n, composed), x)),
        ndimo(x, n),
        compose_orderso(inner, outer, composed, n),
        _lengtho(inner, m),
        same_typeo(lhs, rhs),
    )


def _lengtho(seq: Any, n: Any) -> ModedGoal:
    return moded(
        "length", (seq, n), Mode((0,), (1,), ready=lambda t: isinstance(t, tuple), one=lambda t: (len(t),))
    )


@rule(heads=(DimShuffle,), rhs_heads=None, identity=True, measure=count(DimShuffle))
def dimshuffle_identityo(lhs: Any, rhs: Any):
    """An identity DimShuffle is its input.

    Before::

        DimShuffle{input_ndim=2, new_order=(0, 1)}(x)

    After::

        x

    Measure: DimShuffle count drops by one.  Backward: one form per term.
    Sharing: removes a node, copies none.
    """
    x, n, order = var(), var(), var()
    return lall_ready(
        eq(lhs, term(term(DS, n, order), x)),
        eq(rhs, x),
        identity_ordero(n, order),
        ndimo(x, n),
    )


def _shuffled(v: Variable) -> tuple[int, tuple, Variable] | None:
    """``(input ndim, order, input)`` of a DimShuffle's output, else ``None``."""
    node = v.owner
    if node is None or type(node.op) is not DimShuffle:
        return None
    return node.inputs[0].type.ndim, tuple(node.op.new_order), node.inputs[0]


def _expanded_scalar(s: Any, n: int) -> Any:
    """The 0-d ``s`` with ``n`` (>= 1) added dims."""
    return term(term(DS, 0, ("x",) * n), s)


def shuffled_inputso(inputs: Any, n: Any, order: Any, inner: Any):
    """``inputs`` are ``DimShuffle{n, order}`` of ``inner``, up to expanded scalars.

    Each input is a DimShuffle.  The ones of an ``n``-d input share one
    ``order``; the others expand a 0-d ``s`` (every dim ``'x'``), and stand
    for ``s`` with ``n`` added dims in ``inner``.  When every input expands a
    0-d, ``n`` is 0 and ``order`` is all ``'x'``.

    Forward (``inputs`` known) reads the DimShuffles; backward (``n``,
    ``order`` and ``inner`` known) builds them, one DimShuffle per input
    (an expanded scalar in ``inner`` gets one DimShuffle of the 0-d).
    """

    def read(ins):
        found = [_shuffled(v) if (v := term_variable(t)) is not None else None for t in ins]
        if not found or None in found:  # (found holds tuples and None: == is identity for None)
            return None
        full = {(k, o) for k, o, _ in found if k > 0}
        if len(full) > 1:
            return None
        k, o = next(iter(full)) if full else (0, found[0][1])
        if k == 0 and len({len(f[1]) for f in found}) != 1:
            return None
        return k, o, tuple(x if k == 0 or fk == k else _expanded_scalar(x, k) for fk, _, x in found)

    def build(k, o, parts):
        built = []
        for p in parts:
            v = term_variable(p)
            if v is None:
                return None
            if v.type.ndim == k and k > 0:
                sh = _shuffled(v)
                if sh is not None and sh[0] == 0 and sh[1] == ("x",) * k:
                    built.append(term(term(DS, 0, ("x",) * len(o)), sh[2]))  # an expanded scalar
                else:
                    built.append(term(term(DS, k, o), p))
            elif k == 0 and v.type.ndim == 0:
                built.append(term(term(DS, 0, o), p))
            else:
                return None
        return (tuple(built),)

    return moded(
        "shuffled_inputso",
        (inputs, n, order, inner),
        Mode((0,), (1, 2, 3), ready=lambda ins: isinstance(ins, tuple), one=read),
        Mode(
            (1, 2, 3),
            (0,),
            ready=lambda k, o, parts: isinstance(k, int) and isinstance(o, tuple) and isinstance(parts, tuple),
            one=build,
        ),
        waiting="shuffled_inputso needs inputs, or n, order and inner",
    )


def movable_eacho(terms: Any) -> ModedGoal:
    """Every term of the tuple ``terms`` may move (``graph_bridge.movable_viewo``)."""

    def check(ts):
        return () if all(movable(t) for t in ts) else None

    return moded("movable_eacho", (terms,), Mode((0,), (), ready=lambda ts: isinstance(ts, tuple), one=check))


@rule(
    heads=(Elemwise,),
    rhs_heads=(DimShuffle,),
    child_heads=(DimShuffle,),
    measure=elemwise_above(_is_dimshuffle, "DimShuffle").keeping(count(DimShuffle)),
)
def dimshuffle_through_elemwiseo(lhs: Any, rhs: Any):
    """A DimShuffle every input of an Elemwise shares moves above it.

    Before / after (``x``, ``y`` vectors, ``m`` a matrix, ``s`` a scalar)::

        Exp(ExpandDims{axis=0}(x))                   ->  ExpandDims{axis=0}(Exp(x))
        Mul(ExpandDims{axis=0}(x), ExpandDims{axes=[0, 1]}(2.0))
                                                     ->  ExpandDims{axis=0}(Mul(x, ExpandDims{axis=0}(2.0)))
        Exp(Transpose(m))                            ->  Transpose(Exp(m))
        Gt(ExpandDims{axis=0}(s), ExpandDims{axis=0}(0))  ->  ExpandDims{axis=0}(Gt(s, 0))

    An Elemwise computes element by element, so it commutes with a
    DimShuffle that every input shares (expanded scalars are expanded to the
    DimShuffle's input rank instead).  Once above the chain, the DimShuffle
    meets what it was waiting for: a reduction that removes it
    (``careduce_dimshuffle_fullo``, ``careduce_dimshuffle_partialo``), an
    Elemwise that absorbs it into an explicit broadcast pattern
    (``elemwise_explicito``), or another DimShuffle (``dimshuffle_composeo``).
    PyTensor's ``local_dimshuffle_lift`` moves DimShuffles the other way: that
    is this relation run backward.

    Only when each DimShuffle may move (``movable_viewo``): it has one use,
    or every use is by an Elemwise or a reduction, which all take it over; a
    consumer that keeps it would make the moved one a second.

    Measure: the DimShuffle is one Elemwise closer to the outputs; ``k``
    DimShuffles become one, so their count never grows (the graph's height
    bounds the number of moves).
    Backward: ``DimShuffle{order}(f(x, ...))`` gives ``f(DimShuffle{order}(x), ...)``
    (PyTensor's direction), one form.
    """
    sop, ins, n, order, inner, fx = var(), var(), var(), var(), var(), var()
    return lall_ready(
        stock_elemwiseo(lhs, sop, ins),
        eq(rhs, term(term(DS, n, order), fx)),
        stock_elemwiseo(fx, sop, inner),
        shuffled_inputso(ins, n, order, inner),
        movable_eacho(ins),
        same_typeo(lhs, rhs),
    )


def added_axes_reductiono(head: Any, order: Any, order2: Any, x: Any):
    """``head`` reduces only dims that ``order`` adds; ``order2`` is ``order`` without them.

    Forward (``head`` and ``order`` known) reads the axes off the head (a
    reduction over every axis is the full rule's).  Backward (``order2`` and
    ``x`` known) it builds a ``Sum`` over one added dim, at each position,
    in ``x``'s dtype (numbers only): the family a backward run generates.
    """

    def forward(h, o):
        axes = getattr(h.evaled_obj, "axis", None)
        if axes is not None and all(o[j] == "x" for j in axes):
            return (tuple(d for j, d in enumerate(o) if j not in axes),)
        return None

    def backward(o2, xv):
        v = term_variable(xv)
        if v is None or v.type.dtype == "bool":
            return
        for j in range(len(o2) + 1):
            head_j = op_term(Sum(axis=(j,), dtype=v.type.dtype, acc_dtype=v.type.dtype))
            yield head_j, o2[:j] + ("x",) + o2[j:]

    return moded(
        "added_axes_reductiono",
        (head, order, order2, x),
        Mode((0, 1), (2,), ready=lambda h, o: isinstance(o, tuple), one=forward),
        Mode((2, 3), (0, 1), backward, lambda o2, xv: isinstance(o2, tuple)),
        waiting="added_axes_reductiono needs head and order, or order2 and x",
    )


@rule(
    heads=(CAReduce,),
    rhs_heads=(DimShuffle,),
    child_heads=(DimShuffle,),
    measure=count(CAReduce).keeping(count(DimShuffle)),
)
def careduce_added_dimso(lhs: Any, rhs: Any):
    """A reduction over dims a DimShuffle only added is no reduction.

    Before / after (``s`` a scalar, ``m`` a matrix)::

        Sum{axis=0}(ExpandDims{axis=0}(s))           ->  s
        Max{axis=1}(DimShuffle{0,x,1}(m))            ->  m
        Sum{axis=2}(DimShuffle{x,0,x}(v))            ->  ExpandDims{axis=0}(v)

    Every reduced dim has length 1, so each output element is the one input
    element (reduced with the identity).  Only when the output type is
    unchanged (a reduction that casts, such as ``Sum`` of int32 to int64, is
    left alone: ``same_typeo``).  Only when the DimShuffle may move
    (``movable_viewo``).

    Measure: CAReduce nodes drop by one; the DimShuffle is replaced by a
    shorter one or none.
    Backward (only ``DimShuffle`` right sides): a ``Sum`` over one added dim
    at each position, in the input's dtype.
    """
    x, n, order, head, order2, shuffled = var(), var(), var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(head, shuffled)),
        eq(shuffled, term(term(DS, n, order), x)),
        maybe_dimshuffleo(rhs, n, order2, x),
        ndimo(x, n),
        added_axes_reductiono(head, order, order2, x),
        movable_viewo(shuffled),
        same_typeo(lhs, rhs),
    )
