"""Elemwise lifted through SetSubtensor and Alloc (pytensor #2138), and inc-on-zeros as set.

``f(x[idx].set(c)) == f(x)[idx].set(f(c))``: once ``f`` sits below the set,
it applies to the base and the value separately; where the base is an Alloc
of a scalar (``zeros(n, n)``) the next rule moves it into the Alloc, so
``f`` runs on scalars and on the set values only (the LKJCorr logp case).

The table: each rule is one ``rewrite_rule``.  ``p.elemwise(f, hole,
before=b, after=a)`` is ``f(*b, hole, *a)``; the facts about the other
inputs and the set's parts are :mod:`relations.rules.lift.facts` and
:mod:`graph_bridge.value_facts` (the constants' values).
"""

from __future__ import annotations

from pytensor.tensor.basic import Alloc

from graph_bridge import same_typeo
from graph_bridge.context import single_useo
from relations.rules.lift.facts import cast_likeo, cheap_lifto, fully_broadcastableo, scalar_likeo
from graph_bridge.measures import count, paths_below
from graph_bridge.node_relations import SET_CLASSES
from graph_bridge.ops import ExplicitAlloc
from graph_bridge.value_facts import set_heado, unique_indiceso, zero_fillo
from relations import patterns as p
from relations.patterns.rewrite_rule import rewrite_rule

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
    cheap_lifto(x, c),
)

elemwise_set_subtensoro = rewrite_rule(
    "elemwise_set_subtensoro",
    *_SET_LIFT,
    where=(*_SET_LIFT_WHERE, single_useo(hole), same_typeo(p.LHS, p.RHS)),
    measure=paths_below(_is_set_node, "set node"),
    doc="""Lift an Elemwise through a set (never an inc).

    Before::

        f(x[idx].set(c), s)          # s scalar-like: 0-d, or a 0-d expanded

    After::

        f(x, s)[idx].set(f(cast(c, x.dtype), s))

    For SetSubtensor, AdvancedSetSubtensor and AdvancedSetSubtensor1.  Only
    when the base or the value is a broadcast (all dims broadcastable, or an
    Alloc of such a value): then one side of the split stays scalar; with
    both full-sized it would split one ``f`` into two (pytensor #2138).
    Inc mode is never lifted: ``f(x + inc) != f(x)[idx].set(f(inc))``.
    Only when the set has no other use (``single_useo``): another consumer
    would keep the old set and the rewrite would add a second one
    (pytensor #2138's LKJCorr logp + dlogp).
    set_subtensor stores the value cast to the base's dtype, so ``f`` sees
    the cast value; a cast is inserted when the dtypes differ.  Repeated
    indices keep the last write on both sides.

    Measure: the pairs (set node, Elemwise above it through set nodes and
    DimShuffles), counted once per path, drop by one: ``f``'s path to this set is gone, and
    each path below it now belongs to one copy of ``f`` (the other inputs
    are 0-d and reach no set).  Counting only the Elemwise nodes directly
    above a set would not drop when the value is itself ``f`` of a set;
    counting distinct sets would not when both copies reach one set.
    Backward: reads ``f`` off the new base and value and rebuilds the set
    under ``f``.
    """,
)

elemwise_set_shared_subtensoro = rewrite_rule(
    "elemwise_set_shared_subtensoro",
    *_SET_LIFT,
    where=(*_SET_LIFT_WHERE, same_typeo(p.LHS, p.RHS)),
    measure=paths_below(_is_set_node, "set node"),
    doc="""Lift an Elemwise through a set that other nodes read too: a choice.

    Before::

        f(x[idx].set(c), s)          # the set also read by g, h, ...

    After::

        f(x, s)[idx].set(f(cast(c, x.dtype), s))    # g, h, ... still read the old set

    :func:`elemwise_set_subtensoro` without its sharing guard, for the
    rule set ``RULESETS["choices"]``: the old set stays for its other
    readers, so the graph holds two sets, and whether that pays (``f`` on
    the scalar fill and the set values instead of the whole array, against
    a second write) is the cost model's decision, not the greedy pass's.
    PyMC's LKJCorr logp + dlogp reads its Cholesky factor's set from four
    Elemwise nodes (pytensor #2138); the greedy pass must refuse each.
    Same conditions otherwise (a set, never an inc; a broadcast base or
    value; scalar-like other inputs; the value cast to the base's dtype).

    Measure: as :func:`elemwise_set_subtensoro`, the pairs (set node,
    Elemwise above it) counted once per path drop by one (``f``'s path to
    the shared set is gone; the other readers' paths are unchanged).
    Backward: as :func:`elemwise_set_subtensoro`.
    """,
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
    doc="""Lift an Elemwise into the value of an Alloc of a broadcast value.

    Before::

        f(Alloc(v, n, m), s)        # v fully broadcastable, s scalar-like

    After::

        Alloc(f(v, s), n, m)

    ``f`` then touches one element instead of ``n * m``; ``Sqr(0)`` becomes a
    constant expression that PyTensor's constant folding turns into ``0``.
    Only when the Alloc has no other use (``single_useo``): another consumer
    would keep it, and the rewrite would allocate a second ``n * m`` array.

    Measure: the pairs (Alloc, Elemwise above it through Alloc nodes and
    DimShuffles), counted once per path, drop by one (a 0-d Alloc behind an
    expanded scalar input is counted before and after alike); elements
    ``f`` touches drop from the Alloc's size to ``v``'s.
    Backward: reads ``f`` off the Alloc's value.
    """,
)

inc_zeros_as_seto = rewrite_rule(
    "inc_zeros_as_seto",
    p.inc_at(x, idx, v, op=h),
    p.set_at(x, idx, v, op=h2),
    where=(set_heado(h, h2), zero_fillo(x), unique_indiceso(h, idx), same_typeo(p.LHS, p.RHS)),
    measure=count(*SET_CLASSES, exact=True, test=_is_inc, text="inc"),
    doc="""An inc into zeros at indices that never repeat is a set.

    Before::

        zeros(n)[idx].inc(v)

    After::

        zeros(n)[idx].set(v)

    ``zeros`` is an Alloc of a constant 0 or a constant array of zeros.  The
    indices never repeat when they are basic (slices, integers), or constant
    advanced indices whose index tuples are unique and of one sign per
    position (``-1`` and ``n - 1`` could name one element).  With a repeat,
    inc adds twice while set writes once: those stay inc.

    Measure: inc nodes drop by one (and the lift relation then applies).
    Sharing: the node is replaced by one of the same kind; nothing is copied.
    Backward: the same conditions, set -> inc.
    """,
)
