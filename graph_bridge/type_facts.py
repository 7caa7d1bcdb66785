"""Facts about static types, as goals relations can use.

``ndimo(term, n)``, ``dtypeo(term, d)`` and ``broadcastableo(term, b)`` relate
a term to a fact of its type.  The type is read from the variable the term
reifies to, so the term must be ground; the fact may be a logic variable,
which the goal binds.  A goal whose term is not ground yet raises
:class:`NotReady` when first asked for an answer: conjunctions built with
``logic_core.lall_ready`` then run it later, once other goals have bound
the term, which is what lets one relation run forward and backward.  A ground
term that does not reify makes the goal fail: a guard never lets an unchecked
term through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytensor.tensor.type import TensorType

from graph_bridge.context import held_type
from graph_bridge.terms import term_variable
from logic_core.moded import Mode, ModedGoal, moded

__all__ = ["broadcastableo", "dtypeo", "ndimo", "same_type", "same_typeo", "typeo"]


def _type_fact(term: Any, value: Any, read: Callable[[Any], Any], name: str) -> ModedGoal:
    def read_fact(t):
        var = term_variable(t)
        if var is None:
            return None
        try:
            return (read(var.type),)
        except AttributeError:  # not a tensor
            return None

    return moded(
        name,
        {"term": term, "value": value},
        Mode(needs=("term",), gives=("value",), one=read_fact),
        waiting="type fact on a non-ground term",
        reads="class",
    )


def same_type(a: Any, b: Any) -> bool:
    """Whether a variable of type ``a`` may replace one of type ``b``: same class, dtype, ndim and broadcastable."""
    if a is b:
        return True
    if type(a) is TensorType and type(b) is TensorType:  # TensorType.__eq__ in line: a rewrite asks twice
        if a.dtype != b.dtype:
            return False
        return a.shape == b.shape or a.broadcastable == b.broadcastable
    if a == b:
        return True
    return (
        getattr(a, "dtype", None) == getattr(b, "dtype", None)
        and getattr(a, "ndim", None) == getattr(b, "ndim", None)
        and tuple(getattr(a, "broadcastable", ())) == tuple(getattr(b, "broadcastable", ()))
        and type(a) is type(b)
    )


def same_typeo(a: Any, b: Any) -> ModedGoal:
    """``a`` and ``b`` reify to variables of the same dtype, ndim and broadcastable.

    A relation ends with it when its right side's type is not evident from
    its construction (a rewrite must never change an output type).
    """

    def check(ta, tb):
        a, b = _type_of(ta), _type_of(tb)
        return () if a is not None and b is not None and same_type(a, b) else None

    return moded(
        "same_typeo",
        {"a": a, "b": b},
        Mode(needs=("a", "b"), gives=(), one=check),
        waiting="same_typeo on a non-ground term",
        reads="class",
    )


def _type_of(t: Any) -> Any | None:
    """The type of ground term ``t``: as the running caller holds it (``graph_bridge.context.held_type``,
    nothing built), else its variable's."""
    typ = held_type(t)
    if typ is not None:
        return typ
    v = term_variable(t)
    return None if v is None else v.type


def typeo(term: Any, typ: Any):
    """``term``'s variable has type ``typ``."""
    return _type_fact(term, typ, lambda t: t, "typeo")


def ndimo(term: Any, n: Any):
    """``term``'s variable has ``n`` dimensions."""
    return _type_fact(term, n, lambda t: t.ndim, "ndimo")


def dtypeo(term: Any, dtype: Any):
    """``term``'s variable has dtype ``dtype`` (a string such as ``"float64"``)."""
    return _type_fact(term, dtype, lambda t: t.dtype, "dtypeo")


def broadcastableo(term: Any, pattern: Any):
    """``term``'s variable has the broadcastable tuple ``pattern``."""
    return _type_fact(term, pattern, lambda t: tuple(t.broadcastable), "broadcastableo")
