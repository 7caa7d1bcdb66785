"""Conjunction that waits: ``lall_ready``, its goal object ``Conj``, and ``NotReady``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import chain

__all__ = ["Conj", "NotReady", "lall_ready"]


class NotReady(Exception):
    """Raised by a goal whose inputs are not ground yet (see :func:`lall_ready`)."""


class Conj:
    """The goal :func:`lall_ready` returns: its goals, in order (a compiler can read them)."""

    __slots__ = ("goals",)

    def __init__(self, goals: tuple) -> None:
        self.goals = goals

    def __call__(self, S: Mapping) -> Iterator[Mapping]:
        return _solve(list(self.goals), S)


def lall_ready(*goals) -> Conj:
    """Conjunction that runs each goal when its inputs are ready.

    Goals are tried in the order given; a goal that raises
    :class:`NotReady` (a type fact on a term that is still a
    logic variable, an order relation with too little known) waits, and is
    tried again after the next goal has produced a state.  If only waiting
    goals are left, the conjunction has no answer.  This is what lets a
    relation state its structure and its guards once and run forward (left
    side known), backward (right side known) and as a check.  Answers come
    depth first, in a deterministic order.
    """
    return Conj(goals)


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
