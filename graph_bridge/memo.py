"""The caches the bridge's fast paths share: :func:`remember` (bounded) and :func:`type_check`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["LIMIT", "remember", "type_check"]

#: entries a cache holds before it is emptied
LIMIT = 10_000

T = TypeVar("T")


def remember(cache: dict, key: Any, value: T) -> T:
    """Store ``value`` under ``key`` (emptying ``cache`` first when it is full) and return it.

    The caches keep what they key (Ops, types) alive, so an ``id`` in a key
    is not reused while its entry exists; emptying them bounds the memory.
    """
    if len(cache) >= LIMIT:
        cache.clear()
    cache[key] = value
    return value


def type_check(classes: type | tuple[type, ...], doc: str) -> Callable[[Any], bool]:
    """``lambda x: isinstance(x, classes)``, the answer remembered per type of ``x``.

    ``isinstance`` against an ABC (PyTensor's ``Variable``, etuples'
    ``ExpressionTuple``) runs Python code; the terms, the logic core and
    the plans ask it at every node.  ``doc`` is the check's docstring.
    """
    answers: dict[type, bool] = {}

    def check(x: Any) -> bool:
        t = type(x)
        found = answers.get(t)
        if found is None:
            found = answers[t] = issubclass(t, classes)
        return found

    check.__doc__ = doc
    return check
