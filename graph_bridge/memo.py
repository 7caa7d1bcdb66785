"""The one bounded cache the bridge's fast paths share: :func:`remember`."""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["LIMIT", "remember"]

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
