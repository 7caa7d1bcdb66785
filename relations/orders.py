"""Relations over DimShuffle orders (``new_order`` tuples) and reduction axes.

These are the primitive goals the DimShuffle and reduction rules are built
from.  Like kanren's own primitives (``membero``, ``permuteo``) each works in
every mode where the documented arguments are known, and enumerates the
others; enumerations are finite and their bounds are stated.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from typing import Any

from kanren.core import eq
from unification import isvar
from unification import reify as lreify

__all__ = ["MAX_ADDED_DIMS", "expand_ordero", "expansions"]

#: How many broadcastable dimensions a backward run inserts at most.
MAX_ADDED_DIMS = 1


def _ground_tuple(x: Any) -> bool:
    return isinstance(x, tuple) and not any(isvar(e) for e in x)


def expansions(n: int, max_added: int = MAX_ADDED_DIMS) -> Iterator[tuple]:
    """Every ``new_order`` for an ``n``-d input that only inserts 1 to ``max_added`` ``'x'``.

    Ordered by the number of inserted dims, then by the positions (leftmost first).
    """
    for k in range(1, max_added + 1):
        width = n + k
        for xs in combinations(range(width), k):
            it = iter(range(n))
            yield tuple("x" if i in xs else next(it) for i in range(width))


def is_expansion(order: tuple) -> bool:
    """Whether ``order`` keeps every input dim in place and inserts at least one ``'x'``."""
    kept = [d for d in order if d != "x"]
    return len(kept) < len(order) and kept == list(range(len(kept)))


def expand_ordero(n: Any, order: Any, max_added: int = MAX_ADDED_DIMS):
    """``order`` is a DimShuffle ``new_order`` on an ``n``-d input that only adds dims.

    Modes: ``order`` known (checks it and gives ``n``); ``n`` known and
    ``order`` unknown (enumerates :func:`expansions`, at most ``max_added``
    inserted dims); neither known: no answer.
    """

    def expand_order_goal(S):
        o = lreify(order, S)
        if _ground_tuple(o):
            if not is_expansion(o):
                return
            yield from eq(n, sum(d != "x" for d in o))(S)
            return
        n_w = lreify(n, S)
        if isinstance(n_w, int):
            for candidate in expansions(n_w, max_added):
                yield from eq(o, candidate)(S)

    return expand_order_goal
