"""Proofs from an e-graph: the rule applications that joined two terms' classes.

Every union an :class:`~relations.saturation.egraph.EGraph` makes is an edge between
two terms, labelled with why (egg's explanations): a rule run forward or
backward on a term, giving the other; or congruence (one Op over inputs of
one class each).  The edges form a tree per class (a union joins two
classes), so two terms of one class have one path between them.  Its rule
edges are the proof's steps; a congruence edge asks, recursively, why each
pair of inputs is equal.  The steps are :class:`relations.queries.explanations.Step` s:
:meth:`relations.queries.explanations.Proof.check` re-runs each rule as a check (both
sides given) and re-derives, by congruence closure, that they make one
graph equal to the other, trusting nothing of the e-graph.

Before/After (``prove(sum(expand_dims(exp(x), 0)), sum(exp(x)))``)::

    1. careduce_dimshuffle_fullo: Sum(ExpandDims(Exp(x))) -> Sum(Exp(x))
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Sequence
from typing import Any

from pytensor.graph.basic import Variable

from graph_bridge.type_facts import same_type
from relations.arguments import as_variables, check_count, check_timeout
from relations.patterns.relation import Relation
from relations.queries.explanations import Proof, Step
from relations.saturation.egraph import CONGRUENCE, EGraph, Limits
from relations.saturation.foreign import RewriterSpec

__all__ = ["explain_union", "prove", "prove_in"]


def _path(egraph: EGraph, a: int, b: int) -> list[tuple[int, int, Any]]:
    """The edges ``(u, w, why)`` from term ``a`` to term ``b`` in their class's tree (breadth first)."""
    came: dict[int, tuple[int, Any] | None] = {a: None}
    queue = deque([a])
    while queue:
        u = queue.popleft()
        if u == b:
            break
        for w, why in egraph.edges(u):
            if w not in came:
                came[w] = (u, why)
                queue.append(w)
    if b not in came:
        raise ValueError("explain_union: the two terms are not in one class")
    path = []
    w = b
    while (step := came[w]) is not None:
        u, why = step
        path.append((u, w, why))
        w = u
    path.reverse()
    return path


def explain_union(egraph: EGraph, a: int, b: int) -> list[Step]:
    """The rule steps that turn term ``a`` into term ``b`` (of one class), in order along the way.

    A step taken against the direction its rule fired is given reversed
    (:meth:`relations.queries.explanations.Step.reversed`).  Iterative (deep graphs need
    no recursion); each pair of terms is explained once.  A union asserted
    with :meth:`EGraph.union` is cited as a step of rule ``"given"``, which
    no check re-derives.
    """
    steps: list[Step] = []
    seen: set[tuple[int, int]] = set()
    work: list[Any] = [(a, b)]
    while work:
        item = work.pop()
        if isinstance(item, Step):
            steps.append(item)
            continue
        x, y = item
        if x == y or (x, y) in seen:
            continue
        seen.add((x, y))
        expanded: list[Any] = []
        for u, w, why in _path(egraph, x, y):
            if why == CONGRUENCE:
                expanded.extend(zip(egraph.term_children(u), egraph.term_children(w)))
                continue
            rel, direction, before = why
            if before == u:
                expanded.append(_step(egraph, rel, direction, u, w))
            else:
                expanded.append(_step(egraph, rel, direction, w, u).reversed())
        work.extend(reversed(expanded))
    return steps


def _step(egraph: EGraph, rel: Any, direction: str, before: int, after: int) -> Step:
    name = rel if isinstance(rel, str) else getattr(rel, "__name__", repr(rel))
    return Step(name, rel, egraph.variable(before), egraph.variable(after), direction)


def prove_in(egraph: EGraph, a: Sequence[Variable], b: Sequence[Variable]) -> list[Step] | None:
    """The steps joining ``a`` and ``b`` (outputs, pairwise) in ``egraph`` as it is, or ``None``."""
    ta = [egraph.term(v) for v in a]
    tb = [egraph.term(v) for v in b]
    egraph.rebuild()
    if any(egraph.find(x) != egraph.find(y) for x, y in zip(ta, tb)):
        return None
    steps: list[Step] = []
    for x, y in zip(ta, tb):
        steps.extend(explain_union(egraph, x, y))
    return steps


def _joined(egraph: EGraph, a: Sequence[Variable], b: Sequence[Variable]) -> bool:
    find, term = egraph.find, egraph.term
    return all(find(term(x)) == find(term(y)) for x, y in zip(a, b))


def prove(
    a: Any,
    b: Any,
    depth: int = 3,
    rules: Sequence[Relation] | None = None,
    timeout: float | None = None,
    *,
    limits: Limits | None = None,
    rewriters: RewriterSpec = (),
) -> Proof | None:
    """Steps turning graph ``a`` into graph ``b``, or ``None`` if saturation did not join them.

    Both are added to one e-graph, saturated forward (then backward from
    ``a``'s terms, then from ``b``'s too, while that did not join them)
    until their classes meet or ``limits``
    (default :class:`relations.Limits`; ``timeout`` seconds, if given,
    bounds each run too) stop it; the proof is the chain of rule
    applications that joined them (:func:`explain_union`), and passes
    :meth:`relations.queries.explanations.Proof.check`.  ``depth`` is checked and kept
    for the signature's sake; the e-graph's bound is ``limits``.  Graphs
    whose outputs have different types raise ``TypeError`` naming both.
    ``rewriters``: PyTensor node rewriters run in the e-graph too (as in
    :func:`relations.saturate`); a step one took names it (``local_log1p``)
    and re-checks by re-running it on the step's left side.

    Before/After::

        prove(sum(expand_dims(exp(x), 0)), sum(exp(x)))
        -> [careduce_dimshuffle_fullo: Sum(ExpandDims(Exp(x))) -> Sum(Exp(x))]
    """
    check_count(depth, "depth")
    timeout = check_timeout(timeout)
    outs_a, single_a = as_variables(a, "a")
    outs_b, single_b = as_variables(b, "b")
    if len(outs_a) != len(outs_b) or single_a != single_b:
        raise ValueError(
            f"a and b must have the same structure, got {len(outs_a)} and {len(outs_b)} outputs"
        )
    for x, y in zip(outs_a, outs_b):
        if not same_type(x.type, y.type):
            raise TypeError(f"a and b have different types: {x.type} and {y.type}; no proof can join them")
    limits = Limits() if limits is None else limits
    if timeout is not None:
        seconds = timeout if limits.seconds is None else min(timeout, limits.seconds)
        limits = dataclasses.replace(limits, seconds=seconds)
    egraph = EGraph(rules, rewriters)
    egraph.add(outs_a)
    egraph.add(outs_b, backward=False)  # expanded backward only if the search from a fails
    steps = prove_in(egraph, outs_a, outs_b)
    for backward, expand in ((False, False), (True, False), (True, True)):
        if steps is not None:
            break
        if expand:
            egraph.expand()
        egraph.run(limits, backward, until=lambda: _joined(egraph, outs_a, outs_b))
        steps = prove_in(egraph, outs_a, outs_b)
    return None if steps is None else Proof(a, b, steps)
