"""Relations over the pieces of a Join under a reduction (what ``careduce_joino`` asks).

- :func:`reduce_eacho`: each piece reduced by one head;
- :func:`join_axis_reductiono`: the reduction is over everything or along the join axis only;
- :func:`pieces_safeo`: each piece's reduction is defined wherever the whole's is.
"""

from __future__ import annotations

from typing import Any

import pytensor.scalar as ps
from unification import var

from graph_bridge.terms import term, term_variable
from logic_core.moded import Mode, ModedGoal, moded

__all__ = ["WITH_IDENTITY", "join_axis_reductiono", "pieces_safeo", "reduce_eacho"]

#: Scalar ops whose reduction of an empty piece is defined (they have an identity).
WITH_IDENTITY = (ps.Add, ps.Mul, ps.AND, ps.OR)


def reduce_eacho(head: Any, pieces: Any, reduced: Any) -> ModedGoal:
    """``reduced[i]`` is ``head`` applied to ``pieces[i]`` (either tuple known).

    Forward, a piece the Join takes twice (``Join(J, J)``) gets one term, so
    one reduction node: the sum of a join of a sub-graph with itself does
    not reduce that sub-graph twice.
    """

    def forward(h: Any, p: Any) -> tuple:
        made: dict[int, Any] = {}
        return (tuple(made.setdefault(id(x), term(h, x)) for x in p),)

    def backward(r):
        # the head as a fresh variable the answer gives (no closure over the goal's arguments:
        # a pattern rule renames them per call)
        h, fresh = var(), tuple(var() for _ in r)
        yield h, fresh, tuple(term(h, x) for x in fresh)

    return moded(
        "reduce_eacho",
        {"head": head, "pieces": pieces, "reduced": reduced},
        Mode(needs=("head", "pieces"), gives=("reduced",), ready=lambda h, p: isinstance(p, tuple), one=forward),
        Mode(
            needs=("reduced",),
            gives=("head", "pieces", "reduced"),
            run=backward,
            ready=lambda r: isinstance(r, tuple),
            plannable=False,
        ),
        waiting="reduce_eacho needs pieces or reduced",
    )


def join_axis_reductiono(axes: Any, axis: Any) -> ModedGoal:
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
        {"axes": axes, "axis": axis},
        Mode(needs=("axes", "axis"), gives=(), one=check),
        Mode(needs=("axes",), gives=("axis",), one=give),
        waiting="axes not known",
    )


def pieces_safeo(scalar_op: Any, pieces: Any, axis: Any, out: Any):
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
        {"scalar_op": scalar_op, "pieces": pieces, "axis": axis, "out": out},
        Mode(
            needs=("scalar_op", "pieces", "axis", "out"),
            gives=(),
            ready=lambda op, p, k, o: isinstance(p, tuple) and isinstance(k, int),
            one=check,
        ),
        waiting="pieces not known",
    )
