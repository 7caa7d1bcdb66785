"""DimShuffle removal (pytensor #2132 / PR #2130): DimShuffles a reduction does not see, and chains of them.

The table: each rule is one ``rewrite_rule(name, lhs, rhs, where=...)``
with a one-line doc (``docs/dimshuffle.md`` explains each under its name);
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
from graph_bridge.measures import below, count, elemwise_above, nodes
from graph_bridge.node_relations import added_axes_inputso, shuffled_inputso
from relations import patterns as p
from relations.patterns.axes import added_axes_reductiono
from relations.patterns.orders import (
    axes_tupleo,
    compose_orderso,
    identity_ordero,
    lengtho,
    reduce_througho,
    valid_ordero,
)
from relations.patterns.rewrite_rule import rewrite_rule
from relations.patterns.sharing import movable_eacho, movable_viewo

__all__ = [
    "careduce_added_dimso",
    "careduce_dimshuffle_fullo",
    "careduce_dimshuffle_partialo",
    "dimshuffle_composeo",
    "dimshuffle_identityo",
    "dimshuffle_through_elemwiseo",
    "expand_dims_through_elemwiseo",
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
    doc="A full reduction does not see the layout of its input.",
    docs="dimshuffle.md",
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
    doc="A DimShuffle moves out of a partial reduction; the added dims it reduces vanish.",
    docs="dimshuffle.md",
)

dimshuffle_composeo = rewrite_rule(
    "dimshuffle_composeo",
    p.dimshuffle(p.dimshuffle(x, inner, ndim=n), outer, ndim=m),
    p.dimshuffle(x, composed, ndim=n),
    where=(ndimo(x, n), compose_orderso(inner, outer, composed, n), lengtho(inner, m), same_typeo(p.LHS, p.RHS)),
    measure=count(DimShuffle),
    doc="Two DimShuffles in a row are one.",
    docs="dimshuffle.md",
)

dimshuffle_identityo = rewrite_rule(
    "dimshuffle_identityo",
    p.dimshuffle(x, o, ndim=n),
    x,
    where=(identity_ordero(n, o), ndimo(x, n)),
    measure=count(DimShuffle),
    doc="An identity DimShuffle is its input.",
    docs="dimshuffle.md",
)

dimshuffle_through_elemwiseo = rewrite_rule(
    "dimshuffle_through_elemwiseo",
    p.elemwise(f, inputs=xs),
    p.dimshuffle(p.elemwise(f, inputs=ys), o, ndim=n),
    where=(shuffled_inputso(xs, n, o, ys), movable_eacho(xs), same_typeo(p.LHS, p.RHS)),
    measure=elemwise_above(_is_dimshuffle, "DimShuffle").keeping(count(DimShuffle)),
    child_heads=(DimShuffle,),
    doc="A DimShuffle every input of an Elemwise shares moves above it.",
    docs="dimshuffle.md",
)

expand_dims_through_elemwiseo = rewrite_rule(
    "expand_dims_through_elemwiseo",
    p.elemwise(f, inputs=xs),
    p.dimshuffle(p.elemwise(f, inputs=ys), o, ndim=n),
    where=(added_axes_inputso(xs, n, o, ys), movable_eacho(xs), same_typeo(p.LHS, p.RHS)),
    measure=elemwise_above(_is_dimshuffle, "DimShuffle").keeping(count(DimShuffle)),
    child_heads=(DimShuffle,),
    doc="Axes every input of an Elemwise adds move above it (an input left with no DimShuffle).",
    docs="dimshuffle.md",
)

careduce_added_dimso = rewrite_rule(
    "careduce_added_dimso",
    p.reduce(h, p.named(s, p.dimshuffle(x, o, ndim=n))),
    p.maybe_dimshuffle(x, o2, ndim=n),
    where=(ndimo(x, n), added_axes_reductiono(h, o, o2, x), movable_viewo(s), same_typeo(p.LHS, p.RHS)),
    measure=count(CAReduce).keeping(count(DimShuffle)),
    doc="A reduction over dims a DimShuffle only added is no reduction.",
    docs="dimshuffle.md",
)
