"""Reductions of a Join (pytensor #2132 / PR #2130; PyTensor's ``local_careduce_join``)."""

from __future__ import annotations

from typing import Any

import pytensor.scalar as ps
from pytensor.tensor.basic import Join
from pytensor.tensor.elemwise import CAReduce, Elemwise
from unification import var

from graph_bridge import builder_for, elemwise_term, same_typeo, term, term_variable
from graph_bridge.logic import eq
from graph_bridge.measures import count
from graph_bridge.modes import Mode, ModedGoal, moded
from graph_bridge.nodes import join_parts, read_or_build
from graph_bridge.logic import lall_ready
from relations.reductions import careduce_partso
from relations.rules import rule

__all__ = ["careduce_joino", "combineo", "joino"]

JOIN = builder_for(Join)
#: Scalar ops whose reduction of an empty piece is defined (they have an identity).
WITH_IDENTITY = (ps.Add, ps.Mul, ps.AND, ps.OR)


def _join_term(axis: int, pieces: tuple):
    if JOIN.prop_names:  # pytensor >= 3.3
        return term(term(JOIN, axis), *pieces)
    return term(term(JOIN), axis, *pieces)


def joino(out: Any, axis: Any, pieces: Any):
    """``out`` is ``Join(axis, *pieces)`` (either side known; a constant axis).

    Handles both PyTensor lines: the axis is an input up to 3.0, a prop from
    3.3.  Built from pieces, the Join must be valid whatever the inputs: the
    pieces have one ndim and statically equal lengths on every other dim.
    """

    def read(v):
        return join_parts(v)

    def ready(p):
        a, ps_ = p
        return isinstance(a, int) and isinstance(ps_, tuple)

    def build(p):
        a, ps_ = p
        return _join_term(a, ps_) if _statically_joinable(ps_, a) else None

    return read_or_build(out, (axis, pieces), read, ready, build, "joino needs out, or axis and pieces", single=True)


def _elemwise_head(scalar_op):
    return elemwise_term(scalar_op)


def combineo(scalar_op: Any, parts: Any, out: Any):
    """``out`` combines ``parts`` (two or more) with ``scalar_op``, elementwise.

    Variadic scalar ops (add, mul) give one node; binary ones a left fold.
    Backward it reads the parts off the left spine of nodes of that op.
    """

    def read(v):
        if v.owner is None or type(v.owner.op) is not Elemwise:
            return None
        found = v.owner.op.scalar_op
        collected = []
        while v.owner is not None and type(v.owner.op) is Elemwise and v.owner.op.scalar_op == found:
            collected[:0] = v.owner.inputs[1:]
            v = v.owner.inputs[0]
        collected[:0] = [v]
        return (found, tuple(collected)) if len(collected) >= 2 else None

    def ready(p):
        op, ps_ = p
        return isinstance(ps_, tuple) and len(ps_) >= 2

    def build(p):
        op, ps_ = p
        head = _elemwise_head(op)
        if op.nin == -1:
            return term(head, *ps_)
        built = ps_[0]
        for x in ps_[1:]:
            built = term(head, built, x)
        return built

    return read_or_build(
        out, (scalar_op, parts), read, ready, build, "combineo needs scalar_op and parts, or out", build_first=True,
        single=True,
    )


def reduce_eacho(head: Any, pieces: Any, reduced: Any) -> ModedGoal:
    """``reduced[i]`` is ``head`` applied to ``pieces[i]`` (either tuple known).

    Forward, a piece the Join takes twice (``Join(J, J)``) gets one term, so
    one reduction node: the sum of a join of a sub-graph with itself does
    not reduce that sub-graph twice.
    """

    def forward(h, p):
        made: dict[int, Any] = {}
        return (tuple(made.setdefault(id(x), term(h, x)) for x in p),)

    def backward(r):
        fresh = tuple(var() for _ in r)
        yield fresh, tuple(term(head, x) for x in fresh)

    return moded(
        "reduce_eacho",
        (head, pieces, reduced),
        Mode((0, 1), (2,), ready=lambda h, p: isinstance(p, tuple), one=forward),
        Mode((2,), (1, 2), backward, lambda r: isinstance(r, tuple), plannable=False),
        waiting="reduce_eacho needs pieces or reduced",
    )


def _join_axis_reductiono(axes: Any, axis: Any) -> ModedGoal:
    """The reduction is over everything (``None``) or along the join axis only."""

    def check(a, k):
        if (a is None and isinstance(k, int)) or (isinstance(a, tuple) and len(a) == 1 and a[0] == k):
            return ()
        return None

    def give(a):
        if a is None:
            return (0,)  # backward: join along the first axis only
        if isinstance(a, tuple) and len(a) == 1:
            return (a[0],)
        return None

    return moded(
        "join axis reduction",
        (axes, axis),
        Mode((0, 1), (), one=check),
        Mode((0,), (1,), one=give),
        waiting="axes not known",
    )


def _pieces_safeo(scalar_op: Any, pieces: Any, axis: Any, out: Any):
    """Guard: each piece's reduction is defined wherever the original's is.

    Reductions without an identity (Max, Min, ...) fail on empty pieces, so
    they need every piece statically non-empty.  Pieces must have the join's
    dtype (no implicit upcast inside the Join), and a backward run may only
    build a Join whose pieces agree statically on every other dim.
    """

    def check(op, p, k, out_t):
        vs = [term_variable(x) for x in p]
        o = term_variable(out_t)
        if any(v is None for v in vs) or o is None:
            return None
        if any(v.type.dtype != o.type.dtype or v.type.ndim != o.type.ndim for v in vs):
            return None
        if not isinstance(op, WITH_IDENTITY):
            if any(s is None or s == 0 for v in vs for s in v.type.shape):
                return None
        return ()

    return moded(
        "pieces safe",
        (scalar_op, pieces, axis, out),
        Mode((0, 1, 2, 3), (), ready=lambda op, p, k, o: isinstance(p, tuple) and isinstance(k, int), one=check),
        waiting="pieces not known",
    )


def _one_roundingo(head: Any):
    """Guard: the reduction rounds once, in its output dtype.

    A reduction that accumulates in a wider dtype than its output
    (``Sum{acc=float64}`` of float32) rounds once at the end; split into
    pieces, each piece would be rounded to the narrower dtype before they are
    combined, so a sum that cancels exactly would not (and a comparison of it
    with 0 would flip).  Such heads are left alone.
    """

    def check(h):
        op = h.evaled_obj
        acc = getattr(op, "acc_dtype", None)
        return () if acc is None or acc == getattr(op, "dtype", acc) else None

    return moded("one rounding", (head,), Mode((0,), (), one=check), waiting="head not known")


def _statically_joinable(pieces: tuple, axis: int) -> bool:
    vs = [term_variable(x) for x in pieces]
    if len(vs) < 2 or any(v is None or v.type.ndim <= axis for v in vs):
        return False
    if len({v.type.ndim for v in vs}) != 1:
        return False
    shapes = [tuple(s for d, s in enumerate(v.type.shape) if d != axis) for v in vs]
    return all(None not in s for s in shapes) and len(set(shapes)) == 1


@rule(heads=(CAReduce,), rhs_heads=(Elemwise,), child_heads=(Join,), rhs_child_heads=(CAReduce,), measure=count(Join))
def careduce_joino(lhs: Any, rhs: Any):
    """A reduction of a join is the combination of the reductions of its pieces.

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
    """
    head, join_t, axis, pieces, axes, scalar_op, reduced = (var() for _ in range(7))
    return lall_ready(
        eq(lhs, term(head, join_t)),
        combineo(scalar_op, reduced, rhs),
        joino(join_t, axis, pieces),
        careduce_partso(head, scalar_op, axes),
        _one_roundingo(head),
        _join_axis_reductiono(axes, axis),
        reduce_eacho(head, pieces, reduced),
        _pieces_safeo(scalar_op, pieces, axis, join_t),
        same_typeo(lhs, rhs),
    )
