"""Why: which rules fired (``explain``), and checkable proofs of equivalence (``prove``).

Every step is a relation between two PyTensor sub-graphs, so it can be
re-checked with both sides given (:meth:`Step.holds`), and a list of steps
must make the graph it starts from equal to its result (:func:`follows`,
congruence closure): a proof is checked by both, without trusting the
search that found it.

Before/After (``explain`` of ``sum(expand_dims(exp(x), 0))``)::

    careduce_dimshuffle_fullo
      Before: Sum{axes=None}(ExpandDims{axis=0}(Exp(x)))
      After:  Sum{axes=None}(Exp(x))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from itertools import islice
from dataclasses import dataclass, field
from typing import Any

import pytensor
from pytensor.graph.basic import Variable

from graph_bridge import graph_context, node_term
from relations.rules import Relation, RuleIndex
from relations.arguments import as_variables, check_count, check_timeout
from relations.engine import normalize_variables, replacements
from relations.form_search import StructuralKeys, one_step

#: answers of a relation run from the left side that :meth:`Step.holds` compares
MAX_ANSWERS_CHECKED = 16

__all__ = ["Explanation", "Proof", "Step", "explain", "follows", "prove"]


@dataclass(frozen=True, eq=False)
class Step:
    """One relation application: ``before`` (a sub-graph) became ``after``.

    ``direction`` is ``"forward"`` when ``relation(before, after)`` holds and
    ``"backward"`` when ``relation(after, before)`` holds (the rule run from
    its right side).  ``graph`` holds the outputs of the graph the step was
    taken in (the context a rule may ask about).
    """

    rule: str
    relation: Relation = field(repr=False)
    before: Variable
    after: Variable
    direction: str = "forward"
    graph: tuple[Variable, ...] = field(default=(), repr=False)

    def holds(self) -> bool:
        """Whether the relation relates the two sides, re-run with both given.

        The relation runs on one-level views of both sides; unification
        expands each side only as deep as the rule's patterns ask.  A right
        side that a relation states as a term but PyTensor builds otherwise
        (an Elemwise expands a 0-d input when its node is built, as in
        ``elemwise_set_subtensoro``) does not unify back with that term; then
        the relation is run from the left side and its reified answers are
        compared with the right side structurally.

        Use guards (``graph_bridge.single_useo``) are judged in the left
        side's own sub-graph (``graph_context([lhs])``): they decide where a
        rule pays, not whether its two sides are equal.
        """
        lhs, rhs = (self.before, self.after)
        if self.direction == "backward":
            lhs, rhs = rhs, lhs
        try:
            with graph_context([lhs]):
                for _ in self.relation(node_term(lhs), node_term(rhs))({}):
                    return True
                keys = StructuralKeys()
                wanted = keys.key(rhs)
                answers = replacements(self.relation, lhs, node_term(lhs))
                return any(keys.key(a) == wanted for a in islice(answers, MAX_ANSWERS_CHECKED))
        except Exception:  # noqa: BLE001 - a relation that cannot decide does not hold
            return False

    def reversed(self) -> Step:
        """The same equality read the other way (``after`` becomes ``before``)."""
        return Step(
            self.rule,
            self.relation,
            self.after,
            self.before,
            "forward" if self.direction == "backward" else "backward",
            self.graph,
        )

    def __str__(self) -> str:
        arrow = "" if self.direction == "forward" else " (backward)"
        return (
            f"{self.rule}{arrow}\n"
            f"  Before:\n{_indent(_dprint(self.before))}\n"
            f"  After:\n{_indent(_dprint(self.after))}"
        )


def _dprint(v: Variable, depth: int = 4) -> str:
    return pytensor.dprint(v, file="str", depth=depth, print_type=False).rstrip("\n")


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def _structure(graph: Any, single: bool, result: list) -> Any:
    if single:
        return result[0]
    return type(graph)(result) if isinstance(graph, tuple) else result


def follows(graph: Any, steps: Sequence[Step], target: Any) -> bool:
    """Whether the equalities ``before == after`` of ``steps`` make ``graph`` equal ``target``.

    Congruence closure over structural classes: sub-graphs are first merged
    when structurally equal (same Op, same inputs, same constants); each
    step merges its two sides; an Op applied to equal inputs gives equal
    outputs, which merges more.  ``True`` when every output of ``graph``
    ends in the class of the matching output of ``target``.  This is sound
    when every step holds (:meth:`Step.holds`), whatever the order of the
    steps; it costs about one pass over all the nodes involved.
    """
    outs, _ = as_variables(graph, "graph")
    goal, _ = as_variables(target, "target")
    if len(outs) != len(goal):
        return False
    keys = StructuralKeys()
    roots = [*outs, *goal, *(v for s in steps for v in (s.before, s.after))]
    for v in roots:
        keys.key(v)
    # key -> (op, output index, input keys), for every node of every graph
    nodes: dict[int, tuple[Any, int, tuple[int, ...]]] = {}
    by_var = keys._by_var
    for v in keys._keep:
        node = v.owner
        if node is not None:
            k = by_var[id(v)]
            if k not in nodes:
                ins = tuple(by_var[id(i)] for i in node.inputs)
                nodes[k] = (node.op, node.outputs.index(v), ins)
    parent: dict[int, int] = {}

    def find(a: int) -> int:
        root = a
        while parent.get(root, root) != root:
            root = parent[root]
        while a != root:  # path compression
            parent[a], a = root, parent.get(a, a)
        return root

    uses: dict[int, list[int]] = {}
    for k, (_, _, ins) in nodes.items():
        for i in ins:
            uses.setdefault(i, []).append(k)
    table: dict[Any, int] = {}
    pending: list[tuple[int, int]] = []

    def signature(k: int) -> Any:
        op, idx, ins = nodes[k]
        return (op, idx, tuple(find(i) for i in ins))

    def insert(k: int) -> None:
        sig = signature(k)
        other = table.get(sig)
        if other is None:
            table[sig] = k
        elif find(other) != find(k):
            pending.append((other, k))

    for k in nodes:
        insert(k)
    pending.extend((by_var[id(s.before)], by_var[id(s.after)]) for s in steps)
    while pending:
        a, b = pending.pop()
        ra, rb = find(a), find(b)
        if ra == rb:
            continue
        if len(uses.get(ra, ())) < len(uses.get(rb, ())):
            ra, rb = rb, ra
        parent[rb] = ra
        moved = uses.pop(rb, [])
        uses.setdefault(ra, []).extend(moved)
        for k in moved:
            insert(k)
    return all(find(by_var[id(a)]) == find(by_var[id(b)]) for a, b in zip(outs, goal))


class Explanation:
    """What ``normalize`` did: its ``result``, and the ``steps`` it applied, in order.

    ``str(explanation)`` prints each step's rule and a short Before/After
    ``dprint``; :meth:`check` re-checks every step, and that together they
    make the input equal to the result.
    """

    def __init__(self, graph: Any, result: Any, steps: list[Step]) -> None:
        self.graph = graph
        self.result = result
        self.steps = steps

    def check(self) -> bool:
        """True only if every step's relation holds with both sides given, and the
        steps make the input graph equal to :attr:`result` (:func:`follows`)."""
        return all(s.holds() for s in self.steps) and follows(self.graph, self.steps, self.result)

    def __len__(self) -> int:
        return len(self.steps)

    def __str__(self) -> str:
        if not self.steps:
            return "no rewrite applies (the graph is in normal form)"
        return "\n".join(f"{i}. {s}" for i, s in enumerate(self.steps, 1))

    def __repr__(self) -> str:
        rules = ", ".join(s.rule for s in self.steps)
        return f"Explanation({len(self.steps)} steps: {rules})"


class Proof(list):
    """Steps turning graph ``a`` into graph ``b``; a list of :class:`Step`.

    An empty proof means ``a`` and ``b`` are already structurally equal.
    """

    def __init__(self, a: Any, b: Any, steps: Sequence[Step]) -> None:
        super().__init__(steps)
        self.a = a
        self.b = b

    def check(self) -> bool:
        """True only if every step holds with both sides given, and the steps
        make ``a`` equal to ``b`` (:func:`follows`)."""
        return all(s.holds() for s in self) and follows(self.a, list(self), self.b)

    def __str__(self) -> str:
        if not self:
            return "the graphs are structurally equal"
        return "\n".join(f"{i}. {s}" for i, s in enumerate(self, 1))


def _explained(outputs: list[Variable], index: RuleIndex) -> tuple[list[Variable], list[Step]]:
    steps: list[Step] = []
    context = tuple(outputs)

    def record(rel: Relation, before: Variable, after: Variable) -> None:
        steps.append(Step(_name(rel), rel, before, after, "forward", context))

    return normalize_variables(outputs, index, on_rewrite=record), steps


def _name(rel: Any) -> str:
    return getattr(rel, "__name__", repr(rel))


def explain(graph: Any, rules: Any = None) -> Explanation:
    """Normalize ``graph`` and say how: the rules that fired, on which sub-graphs, in order.

    ``.result`` is what ``normalize(graph, rules)`` returns (same structure);
    ``.steps`` are :class:`Step` s (``.rule``, ``.before``, ``.after``);
    ``.check()`` re-runs every step's relation with both sides given.
    ``normalize`` itself records nothing and is not slowed down.

    Before/After::

        explain(sum(expand_dims(exp(x), 0))).steps
        -> [careduce_dimshuffle_fullo: Sum(ExpandDims(Exp(x))) -> Sum(Exp(x))]
    """
    from relations.rulesets import rule_index as _index

    outputs, single = as_variables(graph, "graph")
    result, steps = _explained(outputs, _index(rules))
    return Explanation(graph, _structure(graph, single, result), steps)


def prove(
    a: Any, b: Any, depth: int = 3, rules: Any = None, timeout: float | None = None
) -> Proof | None:
    """Steps turning graph ``a`` into graph ``b`` (structurally equal outputs), or ``None``.

    First by normal forms: when ``a`` and ``b`` normalize to the same graph,
    the proof is ``a``'s steps forward, then ``b``'s steps backward, in
    reverse.  Otherwise a breadth-first search from both sides, one
    relation application (forward or backward) at a time, until the two
    meet or their path lengths add up to ``depth``; ``timeout`` (seconds)
    bounds it too.  Every proof returned passes :meth:`Proof.check`;
    ``None`` means none was found within the bounds (not that none exists).

    Before/After::

        prove(sum(expand_dims(exp(x), 0)), sum(exp(x)))
        -> [careduce_dimshuffle_fullo: Sum(ExpandDims(Exp(x))) -> Sum(Exp(x))]
    """
    from relations.rulesets import rule_index as _index

    depth = check_count(depth, "depth")
    timeout = check_timeout(timeout)
    outs_a, single_a = as_variables(a, "a")
    outs_b, single_b = as_variables(b, "b")
    if len(outs_a) != len(outs_b) or single_a != single_b:
        raise ValueError(
            f"a and b must have the same structure, got {len(outs_a)} and {len(outs_b)} outputs"
        )
    index = _index(rules)
    keys = StructuralKeys()

    def key(outs: Sequence[Variable]) -> tuple[int, ...]:
        return tuple(keys.key(o) for o in outs)

    if key(outs_a) == key(outs_b):
        return Proof(a, b, [])
    norm_a, steps_a = _explained(outs_a, index)
    norm_b, steps_b = _explained(outs_b, index)
    if key(norm_a) == key(norm_b):
        return Proof(a, b, steps_a + [s.reversed() for s in reversed(steps_b)])
    path = _meet(outs_a, outs_b, index, depth, timeout, key)
    return None if path is None else Proof(a, b, path)


def _meet(
    outs_a: list[Variable],
    outs_b: list[Variable],
    index: RuleIndex,
    depth: int,
    timeout: float | None,
    key: Any,
) -> list[Step] | None:
    """Bidirectional breadth-first search; the steps from ``outs_a`` to ``outs_b``."""
    deadline = None if timeout is None else time.monotonic() + timeout
    # key -> (form, steps from the side's start to the form)
    sides: list[dict[tuple, tuple[list[Variable], list[Step]]]] = [
        {key(outs_a): (outs_a, [])},
        {key(outs_b): (outs_b, [])},
    ]
    frontiers = [[key(outs_a)], [key(outs_b)]]
    for level in range(depth):
        side = level % 2
        mine, other = sides[side], sides[1 - side]
        next_frontier = []
        for k in frontiers[side]:
            form, path = mine[k]
            context = tuple(form)
            for new, (rel, before, after, backward) in one_step(
                form, index, deadline, with_steps=True
            ):
                nk = key(new)
                if nk in mine:
                    continue
                step = Step(
                    _name(rel), rel, before, after, "backward" if backward else "forward", context
                )
                mine[nk] = (new, path + [step])
                next_frontier.append(nk)
                if nk in other:
                    there = other[nk][1]
                    steps_a, steps_b = (mine[nk][1], there) if side == 0 else (there, mine[nk][1])
                    return steps_a + [s.reversed() for s in reversed(steps_b)]
            if deadline is not None and time.monotonic() > deadline:
                return None
        frontiers[side] = next_frontier
        if not frontiers[0] and not frontiers[1]:
            return None
    return None
