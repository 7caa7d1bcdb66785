"""Elemwise lifted through SetSubtensor and Alloc (pytensor #2138), and inc-on-zeros as set.

``f(x[idx].set(c)) == f(x)[idx].set(f(c))``: once ``f`` sits below the set,
it applies to the base and the value separately; where the base is an Alloc
of a scalar (``zeros(n, n)``) the next rule moves it into the Alloc, so
``f`` runs on scalars and on the set values only (the LKJCorr logp case).

The table: each rule is one ``rewrite_rule`` (its two sides, its guards, a
one-line doc); ``docs/lift.md`` explains each under its name.  ``p.elemwise(f, hole,
before=b, after=a)`` is ``f(*b, hole, *a)``; the facts about the other
inputs and the set's parts are :mod:`relations.rules.lift.operand_goals` and
:mod:`graph_bridge.value_facts` (the constants' values).
"""

from __future__ import annotations

from pytensor.tensor.basic import Alloc

from graph_bridge import same_typeo
from graph_bridge.context import single_useo
from graph_bridge.measures import count, paths_below
from graph_bridge.node_relations import SET_CLASSES
from graph_bridge.ops import ExplicitAlloc
from graph_bridge.value_facts import set_heado, unique_indiceso, zero_fillo
from relations import patterns as p
from relations.patterns.rewrite_rule import rewrite_rule
from relations.rules.lift.operand_goals import broadcast_pieceo, cast_likeo, fully_broadcastableo, scalar_likeo

__all__ = [
    "elemwise_alloco",
    "elemwise_set_shared_subtensoro",
    "elemwise_set_subtensoro",
    "inc_zeros_as_seto",
]

# scalar op, inputs before and after the hole (and their 0-d forms), base, indices, value, Op terms
f, b, a, sb, sa, fb, fa = p.var("f"), p.var("b"), p.var("a"), p.var("sb"), p.var("sa"), p.var("fb"), p.var("fa")
x, idx, c, c2, h, h2 = p.var("x"), p.var("idx"), p.var("c"), p.var("c2"), p.var("h"), p.var("h2")
hole, v, shape = p.var("hole"), p.var("v"), p.var("shape")


def _is_set_node(node) -> bool:
    return type(node.op) in SET_CLASSES


def _is_alloc_node(node) -> bool:
    return type(node.op) in (Alloc, ExplicitAlloc)


def _is_inc(node) -> bool:
    return not node.op.set_instead_of_inc


#: ``f(x[idx].set(c), *others)`` and its lift, the others scalar-like (0-d forms ``sb``, ``sa``)
_SET_LIFT = (
    p.elemwise(f, p.named(hole, p.set_at(x, idx, c, op=h)), before=b, after=a),
    p.set_at(p.elemwise(f, x, before=b, after=a), idx, p.elemwise(f, c2, before=fb, after=fa), op=h),
)
_SET_LIFT_WHERE = (
    scalar_likeo(b, sb),
    scalar_likeo(a, sa),
    scalar_likeo(fb, sb),
    scalar_likeo(fa, sa),
    cast_likeo(c, x, c2),
    broadcast_pieceo(x, c),
)

elemwise_set_subtensoro = rewrite_rule(
    "elemwise_set_subtensoro",
    *_SET_LIFT,
    where=(*_SET_LIFT_WHERE, single_useo(hole), same_typeo(p.LHS, p.RHS)),
    measure=paths_below(_is_set_node, "set node"),
    doc="An Elemwise lifts through a set of a broadcast base or value that nothing else reads (never an inc).",
    docs="lift.md",
)

elemwise_set_shared_subtensoro = rewrite_rule(
    "elemwise_set_shared_subtensoro",
    *_SET_LIFT,
    where=(*_SET_LIFT_WHERE, same_typeo(p.LHS, p.RHS)),
    measure=paths_below(_is_set_node, "set node"),
    choice=True,
    doc="An Elemwise lifts through a set that other nodes read too: a choice, for saturation.",
    docs="lift.md",
)

elemwise_alloco = rewrite_rule(
    "elemwise_alloco",
    p.elemwise(f, p.named(hole, p.alloc_of(v, shape)), before=b, after=a),
    p.alloc_of(p.elemwise(f, v, before=sb, after=sa), shape),
    where=(
        scalar_likeo(b, sb),
        scalar_likeo(a, sa),
        fully_broadcastableo(v),
        single_useo(hole),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=paths_below(_is_alloc_node, "Alloc"),
    doc="An Elemwise lifts into the value of an Alloc of a broadcast value that nothing else reads.",
    docs="lift.md",
)

inc_zeros_as_seto = rewrite_rule(
    "inc_zeros_as_seto",
    p.inc_at(x, idx, v, op=h),
    p.set_at(x, idx, v, op=h2),
    where=(set_heado(h, h2), zero_fillo(x), unique_indiceso(h, idx), same_typeo(p.LHS, p.RHS)),
    measure=count(*SET_CLASSES, exact=True, test=_is_inc, text="inc"),
    doc="An inc into zeros at indices that never repeat is a set.",
    docs="lift.md",
)
