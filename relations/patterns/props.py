"""Relations over the props of pattern nodes (reduction axes, DimShuffle orders), for ``where=``.

A pattern rule (:func:`relations.rewrite_rule`) binds prop variables
(``p.sum(x, axis=ax)``, ``p.dimshuffle(x, order=o)``) off the side it
matched; these goals compute the other side's props from them, in whichever
direction is ground, so one ``where=`` clause serves forward, backward and
the check.  Each is a moded goal, so the forward planner compiles it like
the built-in rules' goals.

- :func:`axes_througho`: a reduction moved out of a DimShuffle:
  ``R{axes}(DimShuffle{order}(x)) == DimShuffle{new_order}(R{new_axes}(x))``;
- :func:`added_dimso`: ``axes`` are dims that ``order`` only adds (its
  ``'x'`` entries), ``rest`` is ``order`` without them.

Both read only orders, axes and ``x``'s number of dims.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from graph_bridge.terms import term_variable
from logic_core.moded import Mode, ModedGoal, moded
from relations.patterns.orders import MAX_ADDED_DIMS, dimshuffle_orders, reduce_through

__all__ = ["added_dimso", "axes_througho"]


def _ndim(t: Any) -> int | None:
    v = term_variable(t)
    return getattr(v.type, "ndim", None) if v is not None else None


def axes_througho(x: Any, order: Any, axes: Any, new_axes: Any, new_order: Any) -> ModedGoal:
    """``R{axes}(DimShuffle{order}(x))`` is ``DimShuffle{new_order}(R{new_axes}(x))``.

    ``new_axes`` are the dims of ``x`` behind the reduced dims (and the dims
    ``order`` drops, of length 1); reduced added dims vanish; ``new_order``
    puts the kept dims back (see :func:`relations.patterns.orders.reduce_through`).
    Known ``x``, ``order`` and ``axes`` (a tuple): gives ``new_axes`` and
    ``new_order``, and fails where ``new_axes`` would be empty (only added
    dims reduced: no reduction is left).  Known ``x``, ``new_axes`` and
    ``new_order``: generates ``order`` (the identity or up to
    ``MAX_ADDED_DIMS`` inserted dims) and ``axes``, for ``x`` of up to 4 dims.
    """

    def ready(xt, *props):
        return _ndim(xt) is not None

    def forward(xt, o, a):
        if type(o) is not tuple or type(a) is not tuple:
            return None  # a full reduction (axis None) is not one of these
        a2, o2 = reduce_through(_ndim(xt), o, a)
        return (a2, o2) if a2 else None  # reducing only added dims leaves no reduction

    def backward(xt, a2, o2):
        n = _ndim(xt)
        if n > 4 or type(a2) is not tuple or type(o2) is not tuple:
            return
        for cand in dimshuffle_orders(n):
            for k in range(1, len(cand) + 1):
                for sub in combinations(range(len(cand)), k):
                    if reduce_through(n, cand, sub) == (a2, o2):
                        yield cand, sub

    return moded(
        "axes_througho",
        {"x": x, "order": order, "axes": axes, "new_axes": new_axes, "new_order": new_order},
        Mode(needs=("x", "order", "axes"), gives=("new_axes", "new_order"), ready=ready, one=forward),
        Mode(needs=("x", "new_axes", "new_order"), gives=("order", "axes"), run=backward, ready=ready),
        waiting="axes_througho needs x, and (order, axes) or (new_axes, new_order)",
    )


def added_dimso(order: Any, axes: Any, rest: Any, max_added: int = MAX_ADDED_DIMS) -> ModedGoal:
    """``axes`` are positions where ``order`` only adds a dim (``'x'``); ``rest`` is ``order`` without them.

    Known ``order`` and ``axes`` (a tuple): gives ``rest``, or fails if an
    axis is not an added dim.  Known ``rest``: generates ``order`` with one
    to ``max_added`` added dims inserted (leftmost first) and their
    ``axes``.
    """

    def drop(o, a):
        if (
            type(o) is not tuple
            or type(a) is not tuple
            or not a
            or not all(isinstance(j, int) and 0 <= j < len(o) and o[j] == "x" for j in a)
        ):
            return None
        return (tuple(d for j, d in enumerate(o) if j not in a),)

    def insert(r):
        if type(r) is not tuple:
            return
        for k in range(1, max_added + 1):
            for where in combinations(range(len(r) + k), k):
                it = iter(r)
                yield tuple("x" if j in where else next(it) for j in range(len(r) + k)), where

    return moded(
        "added_dimso",
        {"order": order, "axes": axes, "rest": rest},
        Mode(needs=("order", "axes"), gives=("rest",), one=drop),
        Mode(needs=("rest",), gives=("order", "axes"), run=insert),
        waiting="added_dimso needs order and axes, or rest",
    )
