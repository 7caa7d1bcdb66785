"""The caches the bridge's fast paths share: :func:`remember` (bounded) and :func:`type_check`."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, cast

__all__ = ["LIMIT", "TypeAnswers", "remember", "type_check"]

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


class TypeAnswers(dict):
    """``answers[cls]``: ``issubclass(cls, classes)``, remembered (a hit is a C-level dict lookup)."""

    def __init__(self, classes: type | tuple[type, ...]) -> None:
        super().__init__()
        self.classes = classes

    def __missing__(self, cls: type) -> bool:
        found = self[cls] = issubclass(cls, self.classes)
        return found


class TypeCheck(Protocol):
    """What :func:`type_check` returns: the check, with its :class:`TypeAnswers` as ``by_type``."""

    by_type: TypeAnswers

    def __call__(self, x: Any, /) -> bool: ...


def type_check(classes: type | tuple[type, ...], doc: str) -> TypeCheck:
    """``lambda x: isinstance(x, classes)``, the answer remembered per type of ``x``.

    ``isinstance`` against an ABC (PyTensor's ``Variable``, etuples'
    ``ExpressionTuple``) runs Python code; the terms, the logic core and
    the plans ask it at every node.  ``doc`` is the check's docstring.
    The check's ``by_type`` attribute is its :class:`TypeAnswers`: a loop
    that asks at every item reads ``by_type[type(x)]`` without a call.
    """
    answers = TypeAnswers(classes)

    def check(x: Any) -> bool:
        return answers[type(x)]

    check.__doc__ = doc
    check.by_type = answers  # type: ignore[attr-defined]  # a function attribute: TypeCheck declares it
    return cast(TypeCheck, check)  # the function, with by_type set just above
