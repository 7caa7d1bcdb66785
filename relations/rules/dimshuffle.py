"""DimShuffle removal (pytensor #2132 / PR #2130): DimShuffles a reduction does not see, and chains of them.

The table: each rule is one ``rewrite_rule(name, lhs, rhs, where=...)``;
both sides compute the same values with the same type.  Run forward it
removes or lifts a DimShuffle; run backward it generates the forms that
normalize to ``rhs``, within the bounds of :mod:`relations.patterns.orders`.  The
patterns compile to the term templates a hand-written relation states
(:mod:`relations.patterns.compiler`); the ``where=`` goals are the order
arithmetic of :mod:`relations.patterns.orders`, the reduction heads of
:mod:`relations.patterns.axes`, type facts and use facts.
"""

from __future__ import annotations

from pytensor.tensor.elemwise import CAReduce, DimShuffle

from graph_bridge import ndimo, same_typeo
from relations.patterns.sharing import movable_eacho, movable_viewo
from graph_bridge.measures import below, count, elemwise_above, nodes
from graph_bridge.node_relations import shuffled_inputso
from relations import patterns as p
from relations.patterns.orders import axes_tupleo, compose_orderso, identity_ordero, lengtho, reduce_througho, valid_ordero
from relations.patterns.axes import added_axes_reductiono
from relations.patterns.rewrite_rule import rewrite_rule

__all__ = [
    "careduce_added_dimso",
    "careduce_dimshuffle_fullo",
    "careduce_dimshuffle_partialo",
    "dimshuffle_composeo",
    "dimshuffle_identityo",
    "dimshuffle_through_elemwiseo",
]

# sub-graphs, orders, ndims, heads, axes, scalar ops and input tuples
x, s = p.var("x"), p.var("s")
o, o2, inner, outer, composed = p.var("o"), p.var("o2"), p.var("inner"), p.var("outer"), p.var("composed")
n, m = p.var("n"), p.var("m")
r, h = p.var("r"), p.var("h")
ax, ax2 = p.var("ax"), p.var("ax2")
f, xs, ys = p.var("f"), p.var("xs"), p.var("ys")


def _is_dimshuffle(node) -> bool:
    return isinstance(node.op, DimShuffle)


careduce_dimshuffle_fullo = rewrite_rule(
    "careduce_dimshuffle_fullo",
    p.careduce(r, p.dimshuffle(x, o, ndim=n), axis=None),
    p.careduce(r, x, axis=None),
    where=(ndimo(x, n), valid_ordero(n, o)),
    measure=count(DimShuffle),
    doc="""A full reduction does not see the layout of its input.

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
    up to ``relations.patterns.orders.MAX_ADDED_DIMS`` inserted dims.
    """,
)

careduce_dimshuffle_partialo = rewrite_rule(
    "careduce_dimshuffle_partialo",
    p.careduce(r, p.named(s, p.dimshuffle(x, o, ndim=n)), axis=ax),
    p.maybe_dimshuffle(p.careduce(r, x, axis=ax2), o2),
    where=(
        ndimo(x, n),
        axes_tupleo(ax),
        reduce_througho(n, o, ax, ax2, o2),
        movable_viewo(s),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=below((DimShuffle,), (CAReduce,)).keeping(nodes()),
    doc="""A DimShuffle moves out of a partial reduction; reduced added dims vanish.

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
    """,
)

dimshuffle_composeo = rewrite_rule(
    "dimshuffle_composeo",
    p.dimshuffle(p.dimshuffle(x, inner, ndim=n), outer, ndim=m),
    p.dimshuffle(x, composed, ndim=n),
    where=(ndimo(x, n), compose_orderso(inner, outer, composed, n), lengtho(inner, m), same_typeo(p.LHS, p.RHS)),
    measure=count(DimShuffle),
    doc="""Two DimShuffles in a row are one.

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
    """,
)

dimshuffle_identityo = rewrite_rule(
    "dimshuffle_identityo",
    p.dimshuffle(x, o, ndim=n),
    x,
    where=(identity_ordero(n, o), ndimo(x, n)),
    measure=count(DimShuffle),
    doc="""An identity DimShuffle is its input.

    Before::

        DimShuffle{input_ndim=2, new_order=(0, 1)}(x)

    After::

        x

    Measure: DimShuffle count drops by one.  Backward: one form per term.
    Sharing: removes a node, copies none.
    """,
)

dimshuffle_through_elemwiseo = rewrite_rule(
    "dimshuffle_through_elemwiseo",
    p.elemwise(f, inputs=xs),
    p.dimshuffle(p.elemwise(f, inputs=ys), o, ndim=n),
    where=(shuffled_inputso(xs, n, o, ys), movable_eacho(xs), same_typeo(p.LHS, p.RHS)),
    measure=elemwise_above(_is_dimshuffle, "DimShuffle").keeping(count(DimShuffle)),
    child_heads=(DimShuffle,),
    doc="""A DimShuffle every input of an Elemwise shares moves above it.

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
    """,
)

careduce_added_dimso = rewrite_rule(
    "careduce_added_dimso",
    p.reduce(h, p.named(s, p.dimshuffle(x, o, ndim=n))),
    p.maybe_dimshuffle(x, o2, ndim=n),
    where=(ndimo(x, n), added_axes_reductiono(h, o, o2, x), movable_viewo(s), same_typeo(p.LHS, p.RHS)),
    measure=count(CAReduce).keeping(count(DimShuffle)),
    doc="""A reduction over dims a DimShuffle only added is no reduction.

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
    """,
)
