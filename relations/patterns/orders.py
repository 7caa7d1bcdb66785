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

from graph_bridge.node_relations import compose_orders, is_identity_order
from logic_core.moded import Mode, ModedGoal, moded

__all__ = [
    "MAX_ADDED_DIMS",
    "axes_tupleo",
    "lengtho",
    "dimshuffle_orders",
    "dropped_dims",
    "expansions",
    "identity_ordero",
    "reduce_through",
    "reduce_througho",
    "valid_ordero",
]

#: How many broadcastable dimensions a backward run inserts at most.
MAX_ADDED_DIMS = 1


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
    ``max_ndim`` dims; and, as forward, nothing for an empty ``axes2``.
    """

    def forward(n_w, o, a):
        a2, o2 = reduce_through(n_w, o, a)
        if a2:  # a reduction over no axis is a cast, not a reduction
            yield a2, o2

    def backward(n_w, a2, o2):
        if n_w > max_ndim or not a2:  # as forward: no preimage of a reduction over no axis
            return
        for cand in dimshuffle_orders(n_w):
            width = len(cand)
            for k in range(1, width + 1):
                for sub in combinations(range(width), k):
                    if reduce_through(n_w, cand, sub) == (a2, o2):
                        yield cand, sub

    return moded(
        "reduce_througho",
        {"n": n, "order": order, "axes": axes, "axes2": axes2, "order2": order2},
        Mode(needs=("n", "order", "axes"), gives=("axes2", "order2"), run=forward, ready=_int_tuples),
        Mode(needs=("n", "axes2", "order2"), gives=("order", "axes"), run=backward, ready=_int_tuples),
        waiting="reduce_througho needs n, and (order, axes) or (axes2, order2)",
    )


def _int_tuples(n: Any, *tuples: Any) -> bool:
    return isinstance(n, int) and all(isinstance(t, tuple) for t in tuples)


def identity_ordero(n: Any, order: Any):
    """``order`` is the identity order of an ``n``-d input (either side known)."""

    def from_order(o):
        return (len(o),) if is_identity_order(len(o), o) else None

    return moded(
        "identity_ordero",
        {"n": n, "order": order},
        Mode(needs=("order",), gives=("n",), ready=lambda o: isinstance(o, tuple), one=from_order),
        Mode(
            needs=("n",),
            gives=("order",),
            ready=lambda n_w: isinstance(n_w, int),
            one=lambda n_w: (tuple(range(n_w)),),
        ),
        waiting="identity_ordero needs n or order",
    )


def valid_ordero(n: Any, order: Any, max_added: int = MAX_ADDED_DIMS):
    """``order`` is a DimShuffle order of an ``n``-d input that is not the identity.

    Known ``order``: checks that its dims are distinct and below ``n`` (only
    broadcastable dims may be dropped; reifying the DimShuffle checks that).
    Unknown ``order``: enumerates :func:`expansions` (bounded by ``max_added``).
    """

    def check(n_w, o):
        kept = [d for d in o if d != "x"]
        if len(set(kept)) == len(kept) and all(0 <= d < n_w for d in kept) and not is_identity_order(n_w, o):
            return ()
        return None

    def enumerate_orders(n_w):
        for candidate in expansions(n_w, max_added):
            yield (candidate,)

    return moded(
        "valid_ordero",
        {"n": n, "order": order},
        Mode(needs=("n", "order"), gives=(), ready=_int_tuples, one=check),
        Mode(needs=("n",), gives=("order",), run=enumerate_orders, ready=_int_tuples),
        waiting="valid_ordero needs n",
    )


def compose_orderso(inner: Any, outer: Any, composed: Any, n: Any, max_added: int = MAX_ADDED_DIMS):
    """``composed`` is ``outer`` after ``inner`` (see :func:`compose_orders`).

    Forward (``inner``, ``outer`` known) computes ``composed``.  Backward
    (``composed`` and ``n`` known) splits it: ``inner`` ranges over the
    expansions of the ``n``-d input (bounded by ``max_added``), and ``outer``
    picks each composed dim from ``inner``'s output, ``'x'`` for new ones.
    """

    def forward(i, o):
        return (compose_orders(i, o),)

    def backward(c, n_w):
        for cand in expansions(n_w, max_added):
            where = {d: k for k, d in enumerate(cand) if d != "x"}
            if all(d == "x" or d in where for d in c):
                yield cand, tuple("x" if d == "x" else where[d] for d in c)

    return moded(
        "compose_orderso",
        {"inner": inner, "outer": outer, "composed": composed, "n": n},
        Mode(
            needs=("inner", "outer"),
            gives=("composed",),
            ready=lambda i, o: isinstance(i, tuple) and isinstance(o, tuple),
            one=forward,
        ),
        Mode(
            needs=("composed", "n"),
            gives=("inner", "outer"),
            run=backward,
            ready=lambda c, n_w: isinstance(c, tuple) and isinstance(n_w, int),
        ),
        waiting="compose_orderso needs (inner, outer) or (composed, n)",
    )


def axes_tupleo(axes: Any) -> ModedGoal:
    """``axes`` is a tuple (a partial reduction's axes), not ``None``."""
    return moded(
        "axes tuple",
        {"axes": axes},
        Mode(needs=("axes",), gives=(), run=lambda a: iter(((),) if isinstance(a, tuple) else ())),
    )


def lengtho(seq: Any, n: Any) -> ModedGoal:
    """``n`` is the length of the tuple ``seq`` (``seq`` known)."""
    return moded(
        "length",
        {"seq": seq, "n": n},
        Mode(needs=("seq",), gives=("n",), ready=lambda t: isinstance(t, tuple), one=lambda t: (len(t),)),
    )
