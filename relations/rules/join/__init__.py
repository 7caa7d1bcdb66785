"""Reductions of a Join (pytensor #2132 / PR #2130; PyTensor's ``local_careduce_join``).

The table: one ``rewrite_rule``.  ``p.reduce(h, ...)`` is any reduction
(``h`` its whole head), ``p.join_of(k, pieces)`` a Join of the tuple
``pieces``, ``p.combine(f, parts)`` the parts combined elementwise by ``f``;
the pieces' relations are :mod:`relations.rules.join.pieces`.
"""

from __future__ import annotations

from pytensor.tensor.basic import Join
from pytensor.tensor.elemwise import CAReduce

from graph_bridge import same_typeo
from graph_bridge.measures import count
from graph_bridge.value_facts import one_roundingo
from relations import patterns as p
from relations.rules.join.pieces import join_axis_reductiono, pieces_safeo, reduce_eacho
from relations.patterns.axes import careduce_partso
from relations.patterns.rewrite_rule import rewrite_rule

__all__ = ["careduce_joino"]

h, j, k, pieces, ax, f, reduced = p.var("h"), p.var("j"), p.var("k"), p.var("pieces"), p.var("ax"), p.var("f"), p.var("reduced")

careduce_joino = rewrite_rule(
    "careduce_joino",
    p.reduce(h, p.named(j, p.join_of(k, pieces))),
    p.combine(f, reduced),
    where=(
        careduce_partso(h, f, ax),
        one_roundingo(h),
        join_axis_reductiono(ax, k),
        reduce_eacho(h, pieces, reduced),
        pieces_safeo(f, pieces, k, j),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=count(Join),
    rhs_child_heads=(CAReduce,),
    doc="""A reduction of a join is the combination of the reductions of its pieces.

    Before::

        Sum{axes=None}(Join(0, a, b, c))
        Max{axis=1}(Join(1, a, b))

    After::

        Add(Sum{axes=None}(a), Sum{axes=None}(b), Sum{axes=None}(c))
        Maximum(Max{axis=1}(a), Max{axis=1}(b))

    For a reduction over every axis, or along the join axis only; the head
    (dtype, acc_dtype, ...) is the same for every piece.  Max, Min and other
    reductions without an identity apply only when every piece is statically
    non-empty (an empty piece would make the new graph fail where the old one
    worked).  A reduction that accumulates in a wider dtype than its output
    (``Sum{acc=float64}`` of float32) is left alone: it rounds once, the
    pieces would round each.  The rewrite assumes the Join is valid: a Join whose pieces
    disagree on another dim's length raised before; after the rewrite the
    lengths are not compared.

    Measure: Join count drops by one.
    Sharing: no node is copied.  A Join other nodes use stays for them,
    computed once; the pieces' reductions read the elements the one
    reduction read (one reduction per piece is the rule itself).
    Backward: from ``op(R(a), R(b), ...)`` it builds ``R(Join(k, a, b, ...))``
    with ``k = 0`` for a full reduction (the reduction's own axis otherwise),
    only when the pieces' static shapes agree on every other dim.
    """,
)
