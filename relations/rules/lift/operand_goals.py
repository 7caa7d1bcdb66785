"""Facts the lift rules ask about an Elemwise's other inputs and a set's parts.

- :func:`scalar_likeo`: inputs that are 0-d, or a 0-d expanded, and their 0-d forms;
- :func:`broadcast_pieceo`: the base or the value of a set is a broadcast;
- :func:`cast_likeo`: a value in a base's dtype (what set_subtensor stores);
- :func:`fully_broadcastableo`: every dim of a term is broadcastable.
"""

from __future__ import annotations

from typing import Any

from pytensor.graph.basic import Variable
from pytensor.scalar import Cast, ScalarType

from graph_bridge.context import equal_variables, witnessed
from graph_bridge.nodes import alloc_parts, scalar_of
from graph_bridge.terms import elemwise_term, term, term_variable
from logic_core.moded import Mode, ModedGoal, moded

__all__ = ["cast_likeo", "broadcast_pieceo", "fully_broadcastableo", "scalar_likeo"]


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
        {"others": others, "scalars": scalars},
        Mode(needs=("others",), gives=("scalars",), ready=_is_tuple, one=read),
        Mode(needs=("scalars",), gives=("others",), ready=_is_tuple, one=lambda sc: (sc,)),
        waiting="scalar_likeo needs others or scalars",
    )


def _is_tuple(x: Any) -> bool:
    return isinstance(x, tuple)


def _broadcast_like(v: Variable) -> bool:
    """All of ``v``'s dims broadcast, or ``v`` (or a variable the caller knows equal to it) is an
    Alloc of such a value."""
    if all(v.type.broadcastable):
        return True
    for w in equal_variables(v):
        parts = alloc_parts(w)
        if parts is not None and all(parts[0].type.broadcastable):
            witnessed(v, w)
            return True
    return False


def broadcast_pieceo(x: Any, value: Any) -> ModedGoal:
    """Guard: the base or the value is a broadcast (all dims broadcastable, or an Alloc of one; in
    saturation, any e-node of its class: ``graph_bridge.context.equal_variables``)."""

    def check(xt, ct):
        vx, vc = term_variable(xt), term_variable(ct)
        if vx is not None and vc is not None and (_broadcast_like(vx) or _broadcast_like(vc)):
            return ()
        return None

    return moded(
        "broadcast_pieceo",
        {"x": x, "value": value},
        Mode(needs=("x", "value"), gives=(), one=check),
        waiting="broadcast_pieceo needs x and value",
        reads="class",
    )


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
        {"value": value, "x": x, "cast_value": cast_value},
        Mode(needs=("value", "x"), gives=("cast_value",), one=cast),
        Mode(needs=("cast_value",), gives=("value",), one=lambda cv: (cv,)),
        waiting="cast_likeo needs value and x, or cast_value",
        reads="class",
    )


def fully_broadcastableo(t: Any) -> ModedGoal:
    """Check: every dim of ``t`` is broadcastable (length 1)."""

    def check(tt):
        v = term_variable(tt)
        if v is not None and all(v.type.broadcastable):
            yield ()

    return moded(
        "fully broadcastable",
        {"t": t},
        Mode(needs=("t",), gives=(), run=check),
        waiting="term not known",
        reads="class",
    )
