"""Elemwise lifted through SetSubtensor and Alloc (pytensor #2138), and inc-on-zeros as set.

``f(x[idx].set(c)) == f(x)[idx].set(f(c))``: once ``f`` sits below the set,
it applies to the base and the value separately; where the base is an Alloc
of a scalar (``zeros(n, n)``) the next relation moves it into the Alloc, so
``f`` runs on scalars and on the set values only (the LKJCorr logp case).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pytensor.graph.basic import Constant, Variable
from pytensor.scalar import Cast, ScalarType
from pytensor.tensor import subtensor as pts
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import Elemwise
from unification import var

from graph_bridge import builder_for, elemwise_term, op_term, same_typeo, term, term_variable
from graph_bridge.context import single_useo
from graph_bridge.measures import count, paths_below
from logic_core.modes import Mode, ModedGoal, moded
from graph_bridge.nodes import alloc_parts, read_or_build, scalar_of
from graph_bridge.ops import ExplicitAlloc
from logic_core.goals import lall_ready
from relations.rules import rule

__all__ = [
    "elemwise_alloco",
    "elemwise_set_shared_subtensoro",
    "elemwise_set_subtensoro",
    "inc_zeros_as_seto",
    "indices_unique",
    "lift_through_set_goals",
]

SET_CLASSES = tuple(
    c
    for c in (
        pts.IncSubtensor,
        pts.AdvancedIncSubtensor,
        getattr(pts, "AdvancedIncSubtensor1", None),
    )
    if c is not None
)
ALLOC = op_term(Alloc())


def _with_set_flag(op, flag: bool):
    props = dict(op._props_dict())
    props["set_instead_of_inc"] = flag
    props["inplace"] = False
    builder = builder_for(type(op))
    return op_term(builder(*(props[p] for p in builder.prop_names)))


def _is_set_node(node) -> bool:
    return type(node.op) in SET_CLASSES


def _is_alloc_node(node) -> bool:
    return type(node.op) in (Alloc, ExplicitAlloc)


def _is_inc(node) -> bool:
    return not node.op.set_instead_of_inc


def subtensor_updateo(out: Any, x: Any, value: Any, idx: Any, head: Any, set_mode: bool):
    """``out`` is ``x[idx].set(value)`` (``set_mode``) or ``.inc(value)``, for every variant.

    Known ``out``: reads the parts (not inplace nodes).  Known parts: builds it.
    """

    def read(v):
        op = v.owner.op if v.owner is not None else None
        if (
            isinstance(op, SET_CLASSES)
            and type(op) in SET_CLASSES
            and bool(op.set_instead_of_inc) is set_mode
            and not op.inplace
        ):
            ins = v.owner.inputs
            return ins[0], ins[1], tuple(ins[2:]), op_term(op)
        return None

    def ready(p):
        return isinstance(p[2], tuple)

    def build(p):
        px, pv, pi, ph = p
        return term(ph, px, pv, *pi)

    return read_or_build(out, (x, value, idx, head), read, ready, build, "subtensor_updateo needs out or its parts", single=True)


def elemwise_holeo(out: Any, scalar_op: Any, before: Any, hole: Any, after: Any):
    """``out`` is ``Elemwise(scalar_op)(*before, hole, *after)``, one answer per position."""

    def read(v):
        if v.owner is None or type(v.owner.op) is not Elemwise or len(v.owner.outputs) != 1:
            return
        ins = tuple(v.owner.inputs)
        for i in range(len(ins)):
            yield v.owner.op.scalar_op, ins[:i], ins[i], ins[i + 1 :]

    def ready(p):
        return isinstance(p[1], tuple) and isinstance(p[3], tuple)

    def build(p):
        sop, b, h, a = p
        return term(elemwise_term(sop), *b, h, *a)

    return read_or_build(out, (scalar_op, before, hole, after), read, ready, build, "elemwise_holeo needs out or its parts")


def scalar_likeo(others: Any, scalars: Any) -> ModedGoal:
    """Every input in ``others`` is scalar-like; ``scalars`` are their 0-d forms.

    Backward (only ``scalars`` known) the 0-d forms themselves are the inputs:
    ``Elemwise`` expands them when the node is built.
    """

    def read(o):
        found = []
        for t in o:
            v = term_variable(t)
            s = scalar_of(v) if v is not None else None
            if s is None:
                return None
            found.append(s)
        return (tuple(found),)

    return moded(
        "scalar_likeo",
        (others, scalars),
        Mode((0,), (1,), ready=_is_tuple, one=read),
        Mode((1,), (0,), ready=_is_tuple, one=lambda sc: (sc,)),
        waiting="scalar_likeo needs others or scalars",
    )


def _is_tuple(x: Any) -> bool:
    return isinstance(x, tuple)


def _broadcast_like(v: Variable) -> bool:
    if all(v.type.broadcastable):
        return True
    parts = alloc_parts(v)
    return parts is not None and all(parts[0].type.broadcastable)


def cheap_lifto(x: Any, value: Any) -> ModedGoal:
    """Guard: the base or the value is a broadcast (all dims broadcastable, or an Alloc of one)."""

    def check(xt, ct):
        vx, vc = term_variable(xt), term_variable(ct)
        if vx is not None and vc is not None and (_broadcast_like(vx) or _broadcast_like(vc)):
            return ()
        return None

    return moded("cheap_lifto", (x, value), Mode((0, 1), (), one=check), waiting="cheap_lifto needs x and value")


_CAST_TERMS: dict[str, Any] = {}


def _cast_term(dtype: str) -> Any:
    """The term of ``Elemwise(Cast(dtype))``, remembered per dtype."""
    t = _CAST_TERMS.get(dtype)
    if t is None:
        t = _CAST_TERMS[dtype] = elemwise_term(Cast(ScalarType(dtype)))
    return t


def cast_likeo(value: Any, x: Any, cast_value: Any) -> ModedGoal:
    """``cast_value`` is ``value`` in ``x``'s dtype (what set_subtensor stores)."""

    def cast(vt, xt):
        vv, vx = term_variable(vt), term_variable(xt)
        if vv is None or vx is None:
            return None
        if vv.type.dtype == vx.type.dtype:
            return (vt,)
        return (term(_cast_term(vx.type.dtype), vt),)

    return moded(
        "cast_likeo",
        (value, x, cast_value),
        Mode((0, 1), (2,), one=cast),
        Mode((2,), (0,), one=lambda cv: (cv,)),
        waiting="cast_likeo needs value and x, or cast_value",
    )


@rule(
    heads=(Elemwise,),
    rhs_heads=SET_CLASSES,
    child_heads=SET_CLASSES,
    measure=paths_below(_is_set_node, "set node"),
)
def elemwise_set_subtensoro(lhs: Any, rhs: Any):
    """Lift an Elemwise through a set (never an inc).

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
    """
    hole = var()
    return lall_ready(*lift_through_set_goals(lhs, rhs, hole), single_useo(hole), same_typeo(lhs, rhs))


def lift_through_set_goals(lhs: Any, rhs: Any, hole: Any) -> tuple:
    """The goals of lifting ``lhs = f(hole, ...)``, ``hole`` a set, to ``rhs`` (no sharing guard, no type check).

    The callers add their guards after them, in the order the goals are
    tried: the sharing guard before the type check, which needs ``rhs`` built.
    """
    sop, before, after = var(), var(), var()
    x, c, idx, head = var(), var(), var(), var()
    scalars_b, scalars_a, c2, fx, fc = var(), var(), var(), var(), var()
    fc_b, fc_a = var(), var()  # fc's other inputs: the scalars, as its node holds them
    return (
        elemwise_holeo(lhs, sop, before, hole, after),
        subtensor_updateo(rhs, fx, fc, idx, head, True),
        elemwise_holeo(fx, sop, before, x, after),
        subtensor_updateo(hole, x, c, idx, head, True),
        elemwise_holeo(fc, sop, fc_b, c2, fc_a),
        scalar_likeo(before, scalars_b),
        scalar_likeo(after, scalars_a),
        scalar_likeo(fc_b, scalars_b),
        scalar_likeo(fc_a, scalars_a),
        cast_likeo(c, x, c2),
        cheap_lifto(x, c),
    )


@rule(
    heads=(Elemwise,),
    rhs_heads=SET_CLASSES,
    child_heads=SET_CLASSES,
    measure=paths_below(_is_set_node, "set node"),
)
def elemwise_set_shared_subtensoro(lhs: Any, rhs: Any):
    """Lift an Elemwise through a set that other nodes read too: a choice.

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
    """
    return lall_ready(*lift_through_set_goals(lhs, rhs, var()), same_typeo(lhs, rhs))


def alloco(out: Any, value: Any, shape: Any):
    """``out`` is ``Alloc(value, *shape)`` (either side known; read from an explicit Alloc too)."""

    def read(v):
        return alloc_parts(v)

    def ready(p):
        return isinstance(p[1], tuple)

    def build(p):
        return term(ALLOC, p[0], *p[1])

    return read_or_build(out, (value, shape), read, ready, build, "alloco needs out or its parts", single=True)


def _fully_broadcastableo(t: Any) -> ModedGoal:
    def check(tt):
        v = term_variable(tt)
        if v is not None and all(v.type.broadcastable):
            yield ()

    return moded("fully broadcastable", (t,), Mode((0,), (), check), waiting="term not known")


@rule(
    heads=(Elemwise,),
    rhs_heads=(Alloc, ExplicitAlloc),
    child_heads=(Alloc, ExplicitAlloc),
    measure=paths_below(_is_alloc_node, "Alloc"),
)
def elemwise_alloco(lhs: Any, rhs: Any):
    """Lift an Elemwise into the value of an Alloc of a broadcast value.

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
    """
    sop, before, hole, after = var(), var(), var(), var()
    v, shape, fv, scalars_b, scalars_a = var(), var(), var(), var(), var()
    return lall_ready(
        elemwise_holeo(lhs, sop, before, hole, after),
        alloco(rhs, fv, shape),
        alloco(hole, v, shape),
        elemwise_holeo(fv, sop, scalars_b, v, scalars_a),
        scalar_likeo(before, scalars_b),
        scalar_likeo(after, scalars_a),
        _fully_broadcastableo(v),
        single_useo(hole),
        same_typeo(lhs, rhs),
    )


def _is_zeros(v: Variable) -> bool:
    parts = alloc_parts(v)
    if parts is not None:
        v = parts[0]
    return isinstance(v, Constant) and v.data.size > 0 and not np.any(v.data)


def indices_unique(op, idx: tuple) -> bool:
    if type(op) is pts.IncSubtensor:
        return True  # basic indexing never repeats an element
    if not all(isinstance(i, Constant) for i in idx):
        return False
    arrays = [np.asarray(i.data) for i in idx]
    if any(a.dtype == bool for a in arrays):
        return False
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        return False
    flat = np.stack([a.ravel() for a in arrays], axis=1) if arrays else np.empty((0, 0))
    if flat.size and not (np.all(flat >= 0, axis=0) | np.all(flat < 0, axis=0)).all():
        return False  # mixed signs could name one element twice (-1 and n-1)
    return len({tuple(r) for r in flat.tolist()}) == len(flat)


def _no_repeatso(base: Any, head: Any, idx: Any) -> ModedGoal:
    def check(b, h, i):
        vb = term_variable(b)
        op = h.evaled_obj if hasattr(h, "evaled_obj") else h
        idx_vars = tuple(term_variable(t) for t in i)
        if vb is not None and _is_zeros(vb) and indices_unique(op, idx_vars):
            yield ()

    return moded(
        "no repeated index",
        (base, head, idx),
        Mode((0, 1, 2), (), check, lambda b, h, i: isinstance(i, tuple)),
        waiting="base, head and idx not known",
    )


def _set_heado(inc_head: Any, set_head: Any) -> ModedGoal:
    return moded(
        "set head",
        (inc_head, set_head),
        Mode((0,), (1,), lambda h: iter(((_with_set_flag(h.evaled_obj, True),),))),
        Mode((1,), (0,), lambda s: iter(((_with_set_flag(s.evaled_obj, False),),))),
        waiting="no head known",
    )


@rule(heads=SET_CLASSES, rhs_heads=SET_CLASSES, measure=count(*SET_CLASSES, exact=True, test=_is_inc, text="inc"))
def inc_zeros_as_seto(lhs: Any, rhs: Any):
    """An inc into zeros at indices that never repeat is a set.

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
    """
    base, v, idx, inc_head, set_head = var(), var(), var(), var(), var()
    return lall_ready(
        subtensor_updateo(lhs, base, v, idx, inc_head, False),
        subtensor_updateo(rhs, base, v, idx, set_head, True),
        _set_heado(inc_head, set_head),
        _no_repeatso(base, inc_head, idx),
        same_typeo(lhs, rhs),
    )
