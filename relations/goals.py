"""Goal combinators for relations that run in more than one direction."""

from __future__ import annotations

from itertools import chain

from graph_bridge import NotReady

__all__ = ["lall_ready"]


def lall_ready(*goals):
    """Conjunction that runs each goal when its inputs are ready.

    Goals are tried in the order given; a goal that raises
    :class:`graph_bridge.NotReady` (a type fact on a term that is still a
    logic variable, an order relation with too little known) waits, and is
    tried again after the next goal has produced a state.  If only waiting
    goals are left, the conjunction has no answer.  This is what lets a
    relation state its structure and its guards once and run forward (left
    side known), backward (right side known) and as a check.  Answers come
    depth first, in a deterministic order.
    """

    def lall_ready_goal(S):
        return _solve(list(goals), S)

    return lall_ready_goal


def _solve(pending, S):
    if not pending:
        yield S
        return
    for i, goal in enumerate(pending):
        stream = iter(goal(S))
        try:
            first = next(stream)
        except StopIteration:
            return
        except NotReady:
            continue
        rest = pending[:i] + pending[i + 1 :]
        for state in chain((first,), stream):
            yield from _solve(rest, state)
        return
