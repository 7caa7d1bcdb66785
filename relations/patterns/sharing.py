"""The sharing policy of the rules: when a view read by other nodes may move.

A rule that moves a DimShuffle through the node that reads it leaves the
old view for any other reader, beside the copy it makes.  The greedy pass
(``normalize``) must not pay for that, so those rules keep
:func:`movable_viewo` as a guard.  The facts it reads (how often a
sub-graph is used, and by which kind of node) are the bridge's
(``graph_bridge.context``); the policy is the rules'.  In the e-graph
(``relations.saturate``) use guards are off and extraction decides.
"""

from __future__ import annotations

from typing import Any

from pytensor.graph.basic import Variable

from graph_bridge.context import GraphContext, use_fact, use_holds
from logic_core.moded import Mode, ModedGoal, moded

__all__ = ["movable", "movable_eacho", "movable_viewo"]


def _movable(ctx: GraphContext, v: Variable) -> bool:
    return ctx.uses(v) == 1 or ctx.other_uses(v) == 0


def movable(t: Any) -> bool:
    """Whether the view the ground term ``t`` stands for may move (see :func:`movable_viewo`)."""
    return use_holds(t, "movable_viewo", _movable)


def movable_viewo(term: Any) -> ModedGoal:
    """The view ``term`` (a DimShuffle) may move through the node that reads it.

    It has one use, or every use is by an Elemwise or a reduction
    (``graph_bridge.elementwise_useso``): each of those takes the view over
    (moves it above itself, absorbs it, or reduces it away), so the old view
    ends unused and is gone rather than kept beside a copy.
    """
    return use_fact(term, "movable_viewo", _movable)


def movable_eacho(terms: Any) -> ModedGoal:
    """Every term of the tuple ``terms`` may move (:func:`movable_viewo`)."""

    def check(ts):
        return () if all(movable(t) for t in ts) else None

    return moded(
        "movable_eacho",
        {"terms": terms},
        Mode(needs=("terms",), gives=(), ready=lambda ts: isinstance(ts, tuple), one=check),
    )
