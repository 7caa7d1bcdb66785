"""Reductions of a Join (pytensor #2132 / PR #2130; PyTensor's ``local_careduce_join``).

The table: one ``rewrite_rule`` (explained in ``docs/dimshuffle.md``, under
its name).  ``p.reduce(h, ...)`` is any reduction
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
from relations.patterns.axes import careduce_partso
from relations.patterns.rewrite_rule import rewrite_rule
from relations.rules.join.pieces import join_axis_reductiono, pieces_safeo, reduce_eacho

__all__ = ["careduce_joino"]

h, j, k, pieces, ax, f, reduced = (
    p.var("h"),
    p.var("j"),
    p.var("k"),
    p.var("pieces"),
    p.var("ax"),
    p.var("f"),
    p.var("reduced"),
)

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
    doc="A reduction of a Join is the combination of the reductions of its pieces.",
    docs="dimshuffle.md",
)
