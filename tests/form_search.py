"""Test support: a bounded breadth-first search over the forms a rule set relates a graph to.

:func:`one_step` gives the forms one relation application away (forward or
backward, at any node); :func:`equivalent_forms` searches them breadth first,
fewest applications first, keeping a hash of each form seen
(:mod:`graph_bridge.structural_keys`, :mod:`relations.queries.progress`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pytensor.graph.basic import Variable

from graph_bridge import in_vocabulary, node_term
from graph_bridge.context import GraphContext, graph_context
from graph_bridge.structural_keys import StructuralHashes
from graph_bridge.traverse import owned_variables, rebuild
from relations.greedy.fixpoint import replacements
from relations.patterns.relation import Relation, RuleIndex
from relations.queries.progress import Progress, ProgressReporter, logger

__all__ = [
    "MAX_ANSWERS_PER_STEP",
    "equivalent_forms",
    "one_step",
    "replace_in",
]

#: Forms kept for expansion at the next level of a search.  Beyond it, new
#: forms are still yielded (and their hashes kept, so each is yielded once),
#: but not expanded: a search that long is truncated in breadth, and says so
#: once on the ``relations.search`` logger (INFO).  The default searches
#: (``limit=20``, ``depth=2``) stay far below it.
MAX_FRONTIER = 5_000

#: Answers taken from one relation at one node in one direction (backward
#: families such as "add a dimension" are finite but can be long).
MAX_ANSWERS_PER_STEP = 4




def replace_in(outputs: Sequence[Variable], old: Variable, new: Variable) -> list[Variable]:
    """``outputs`` with ``old`` replaced by ``new``; only the nodes above ``old`` are rebuilt."""
    return rebuild(outputs, replace={old: new})


def one_step(
    outputs: Sequence[Variable],
    index: RuleIndex,
    deadline: float | None = None,
) -> Iterator[list[Variable]]:
    """Forms one relation application away from ``outputs``, in a deterministic order.

    Nodes are visited breadth first from the outputs; at each node the rules
    that can match it forward, then those that can match it backward, in rule
    order; each gives at most :data:`MAX_ANSWERS_PER_STEP` answers.  The
    relations see the use counts of ``outputs`` (``graph_bridge.context``).
    """
    context = GraphContext(outputs)
    for v in owned_variables(outputs):
        node = v.owner
        if len(node.outputs) != 1 or not in_vocabulary(node.op):
            continue
        t = None
        for backward in (False, True):
            rules = index.backward(type(node.op)) if backward else index.forward(type(node.op))
            for rel in rules:
                if deadline is not None and time.monotonic() > deadline:
                    return
                if t is None:
                    t = node_term(v)
                # the context is set only while the relation runs, never across a yield
                with graph_context(context):
                    forms = _forms_of(outputs, rel, v, t, backward)
                for form, _ in forms:
                    yield form


def _forms_of(
    outputs: Sequence[Variable], rel: Relation, v: Variable, t: Any, backward: bool
) -> list[tuple[list[Variable], Variable]]:
    """Up to :data:`MAX_ANSWERS_PER_STEP` pairs ``(outputs with v replaced by new, new)`` for ``rel``'s answers."""
    forms = []
    for new in replacements(rel, v, t, backward):
        try:
            forms.append((replace_in(outputs, v, new), new))
        except Exception:  # noqa: BLE001 - an ill-typed rebuild is no form
            continue
        if len(forms) >= MAX_ANSWERS_PER_STEP:
            break
    return forms


def equivalent_forms(
    outputs: Sequence[Variable],
    index: RuleIndex,
    limit: int | None,
    depth: int,
    timeout: float | None,
    progress: Callable[[Progress], object] | None = None,
) -> Iterator[list[Variable]]:
    """Breadth-first search: distinct forms, fewest relation applications first.

    Keeps the frontier's forms and a 16-byte hash of each form seen
    (:mod:`graph_bridge.structural_keys`, :mod:`relations.queries.progress`); reports progress every few seconds.
    """
    if limit == 0:
        return
    deadline = None if timeout is None else time.monotonic() + timeout
    hashes = StructuralHashes()
    report = ProgressReporter(progress)
    seen = {hashes.form_key(list(outputs))}
    frontier = [list(outputs)]
    produced = 0
    truncated = False
    for level in range(depth):
        next_frontier = []
        for form in frontier:
            for new in one_step(form, index, deadline):
                report(produced, level + 1, len(next_frontier))
                k = hashes.form_key(new)
                if k in seen:
                    continue
                seen.add(k)
                if len(next_frontier) < MAX_FRONTIER:
                    next_frontier.append(new)
                elif not truncated:
                    truncated = True
                    logger.info(
                        "equivalents: more than %d forms at depth %d; later ones are "
                        "yielded but not expanded (form_search.MAX_FRONTIER)",
                        MAX_FRONTIER,
                        level + 1,
                    )
                yield new
                produced += 1
                if limit is not None and produced >= limit:
                    return
            if deadline is not None and time.monotonic() > deadline:
                return
        frontier = next_frontier
        if not frontier:
            return
