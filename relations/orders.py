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

from unification import isvar

from graph_bridge import NotReady
from graph_bridge.logic import eq, lreify

__all__ = [
    "MAX_ADDED_DIMS",
    "compose_orders",
    "dimshuffle_orders",
    "dropped_dims",
    "expansions",
    "identity_ordero",
    "is_identity",
    "reduce_through",
    "reduce_througho",
    "valid_ordero",
]

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


def dropped_dims(n: int, order: tuple) -> tuple[int, ...]:
    """Input dims of an ``n``-d input that ``order`` drops (they are broadcastable)."""
    kept = {d for d in order if d != "x"}
    return tuple(d for d in range(n) if d not in kept)


def compose_orders(inner: tuple, outer: tuple) -> tuple:
    """The order of ``DimShuffle{outer}(DimShuffle{inner}(x))`` as one DimShuffle of ``x``."""
    return tuple("x" if d == "x" else inner[d] for d in outer)


def is_identity(n: int, order: tuple) -> bool:
    return tuple(order) == tuple(range(n))


def reduce_through(n: int, order: tuple, axes: tuple) -> tuple[tuple, tuple]:
    """Move a DimShuffle out of a reduction.

    ``CAReduce{axes}(DimShuffle{order}(x))`` with ``x`` of ``n`` dims equals
    ``DimShuffle{order2}(CAReduce{axes2}(x))``: ``axes2`` are the input dims
    behind the reduced output dims, plus the dims ``order`` drops (length 1,
    so reducing them changes nothing); reduced ``'x'`` dims (length 1) vanish;
    ``order2`` puts the remaining dims where the reduction left them.
    Returns ``(axes2, order2)``.
    """
    axes_set = set(axes)
    axes2 = sorted({order[j] for j in axes_set if order[j] != "x"} | set(dropped_dims(n, order)))
    remaining = [d for d in range(n) if d not in axes2]
    rank = {d: i for i, d in enumerate(remaining)}
    order2 = tuple("x" if order[j] == "x" else rank[order[j]] for j in range(len(order)) if j not in axes_set)
    return tuple(axes2), order2


def dimshuffle_orders(n: int, max_added: int = MAX_ADDED_DIMS) -> Iterator[tuple]:
    """Orders a backward run tries for an ``n``-d input: the identity, then its expansions."""
    yield tuple(range(n))
    yield from expansions(n, max_added)


def reduce_througho(n: Any, order: Any, axes: Any, axes2: Any, order2: Any, max_ndim: int = 4):
    """Relation form of :func:`reduce_through` (``n`` must be known).

    Forward (``order`` and ``axes`` known) it computes ``axes2`` and
    ``order2``, and fails when ``axes2`` would be empty (only added dims are
    reduced: that reduction is a cast, left alone).  Backward (``axes2`` and ``order2`` known) it inverts it by
    generating and testing a bounded domain: orders from
    :func:`dimshuffle_orders` (identity or up to ``MAX_ADDED_DIMS`` inserted
    dims; no permutations), every non-empty axis subset, inputs of at most
    ``max_ndim`` dims.
    """

    def reduce_through_goal(S):
        n_w = lreify(n, S)
        if not isinstance(n_w, int):
            raise NotReady("reduce_througho needs n")
        o, a = lreify(order, S), lreify(axes, S)
        if _ground_tuple(o) and _ground_tuple(a):
            a2, o2 = reduce_through(n_w, o, a)
            if a2:  # a reduction over no axis is a cast, not a reduction
                yield from eq((axes2, order2), (a2, o2))(S)
            return
        a2, o2 = lreify(axes2, S), lreify(order2, S)
        if not (_ground_tuple(a2) and _ground_tuple(o2)):
            raise NotReady("reduce_througho needs (order, axes) or (axes2, order2)")
        if n_w > max_ndim:
            return
        for cand in dimshuffle_orders(n_w):
            width = len(cand)
            for k in range(1, width + 1):
                for sub in combinations(range(width), k):
                    if reduce_through(n_w, cand, sub) == (a2, o2):
                        yield from eq((order, axes), (cand, sub))(S)

    return reduce_through_goal


def identity_ordero(n: Any, order: Any):
    """``order`` is the identity order of an ``n``-d input (either side known)."""

    def identity_order_goal(S):
        o = lreify(order, S)
        if _ground_tuple(o):
            if is_identity(len(o), o):
                yield from eq(n, len(o))(S)
            return
        n_w = lreify(n, S)
        if not isinstance(n_w, int):
            raise NotReady("identity_ordero needs n or order")
        yield from eq(o, tuple(range(n_w)))(S)

    return identity_order_goal


def valid_ordero(n: Any, order: Any, max_added: int = MAX_ADDED_DIMS):
    """``order`` is a DimShuffle order of an ``n``-d input that is not the identity.

    Known ``order``: checks that its dims are distinct and below ``n`` (only
    broadcastable dims may be dropped; reifying the DimShuffle checks that).
    Unknown ``order``: enumerates :func:`expansions` (bounded by ``max_added``).
    """

    def valid_order_goal(S):
        n_w, o = lreify(n, S), lreify(order, S)
        if _ground_tuple(o):
            if not isinstance(n_w, int):
                raise NotReady("valid_ordero needs n")
            kept = [d for d in o if d != "x"]
            if len(set(kept)) == len(kept) and all(0 <= d < n_w for d in kept) and not is_identity(n_w, o):
                yield S
            return
        if not isinstance(n_w, int):
            raise NotReady("valid_ordero needs n")
        for candidate in expansions(n_w, max_added):
            yield from eq(o, candidate)(S)

    return valid_order_goal


def compose_orderso(inner: Any, outer: Any, composed: Any, n: Any, max_added: int = MAX_ADDED_DIMS):
    """``composed`` is ``outer`` after ``inner`` (see :func:`compose_orders`).

    Forward (``inner``, ``outer`` known) computes ``composed``.  Backward
    (``composed`` and ``n`` known) splits it: ``inner`` ranges over the
    expansions of the ``n``-d input (bounded by ``max_added``), and ``outer``
    picks each composed dim from ``inner``'s output, ``'x'`` for new ones.
    """

    def compose_orders_goal(S):
        i, o = lreify(inner, S), lreify(outer, S)
        if _ground_tuple(i) and _ground_tuple(o):
            yield from eq(composed, compose_orders(i, o))(S)
            return
        c, n_w = lreify(composed, S), lreify(n, S)
        if not (_ground_tuple(c) and isinstance(n_w, int)):
            raise NotReady("compose_orderso needs (inner, outer) or (composed, n)")
        for cand in expansions(n_w, max_added):
            where = {d: k for k, d in enumerate(cand) if d != "x"}
            if all(d == "x" or d in where for d in c):
                split = tuple("x" if d == "x" else where[d] for d in c)
                yield from eq((inner, outer), (cand, split))(S)

    return compose_orders_goal
