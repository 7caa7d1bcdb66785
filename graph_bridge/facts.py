"""Facts about static types, as goals relations can use.

``ndimo(term, n)``, ``dtypeo(term, d)`` and ``broadcastableo(term, b)`` relate
a term to a fact of its type.  The term must be ground when the goal runs
(its type is read from the variable it reifies to); the fact may be a logic
variable, which the goal binds.  A relation therefore places these goals after
the goals that build its terms, in both directions.  A term that is not
ground, or that does not reify, makes the goal fail: a guard never lets an
unchecked term through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kanren.core import eq
from unification import reify as lreify

from graph_bridge.terms import term_variable

__all__ = ["broadcastableo", "dtypeo", "ndimo", "typeo"]


def _type_fact(term: Any, value: Any, read: Callable[[Any], Any]):
    def type_fact_goal(S):
        var = term_variable(lreify(term, S))
        if var is None:
            return iter(())
        try:
            fact = read(var.type)
        except AttributeError:  # not a tensor
            return iter(())
        return eq(value, fact)(S)

    return type_fact_goal


def typeo(term: Any, typ: Any):
    """``term``'s variable has type ``typ``."""
    return _type_fact(term, typ, lambda t: t)


def ndimo(term: Any, n: Any):
    """``term``'s variable has ``n`` dimensions."""
    return _type_fact(term, n, lambda t: t.ndim)


def dtypeo(term: Any, dtype: Any):
    """``term``'s variable has dtype ``dtype`` (a string such as ``"float64"``)."""
    return _type_fact(term, dtype, lambda t: t.dtype)


def broadcastableo(term: Any, pattern: Any):
    """``term``'s variable has the broadcastable tuple ``pattern``."""
    return _type_fact(term, pattern, lambda t: tuple(t.broadcastable))
