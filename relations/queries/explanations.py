"""The records of a rewrite that re-check themselves: its steps (``Step``), an explanation, a proof.

:class:`Step`, :class:`Explanation`, :class:`SaturatedExplanation`, :class:`Proof`.

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

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

import pytensor
from pytensor.graph.basic import Variable

from graph_bridge import graph_context, node_term
from graph_bridge.context import GraphContext
from graph_bridge.structural_keys import StructuralKeys
from relations.arguments import as_variables
from relations.greedy.fixpoint import replacements
from relations.patterns.relation import Relation
from relations.queries.verify import Counterexample, compare_values
from relations.rules import LOWERING_RULES
from relations.saturation.egraph import Report
from relations.saturation.foreign import ForeignRewriter

#: answers of a relation run from the left side that :meth:`Step.holds` compares
MAX_ANSWERS_CHECKED = 16

__all__ = ["Explanation", "Proof", "SaturatedExplanation", "Step", "follows", "is_bookkeeping"]


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

        Use guards (``graph_bridge.single_useo``) hold here (an empty
        ``GraphContext``: every variable has one use), as in the e-graph: they
        decide where a rule pays (copying a shared sub-graph), not whether its
        two sides are equal.
        """
        lhs, rhs = (self.before, self.after)
        if self.direction == "backward":
            lhs, rhs = rhs, lhs
        try:
            with graph_context(GraphContext()):
                for _ in self.relation(node_term(lhs), node_term(rhs))({}):
                    return True
                keys = StructuralKeys()
                wanted = keys.key(rhs)
                answers = replacements(self.relation, lhs, node_term(lhs))
                return any(keys.key(a) == wanted for a in islice(answers, MAX_ANSWERS_CHECKED))
        except Exception:  # noqa: BLE001 - a relation that cannot decide does not hold
            return False

    def agrees(self, seed: int = 0, **options: Any) -> Counterexample | None:
        """Whether both sides give the same values: ``None``, or where they differ.

        Both sides are evaluated on random inputs as :func:`relations.verify`
        does (lengths 2, 0 and 1; ``options`` are
        :func:`relations.queries.verify.compare_values`'s: ``domain``, ``rtol``,
        ``atol``, ``mode``).  :meth:`holds` says the step is an application of
        its rule; this says the rule is true here, on these inputs.
        """
        return compare_values(self.before, self.after, self.rule, self.direction, seed, **options)

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
        if isinstance(self.relation, ForeignRewriter):
            arrow += " (PyTensor rewriter)"
        return (
            f"{self.rule}{arrow}\n  Before:\n{_indent(_dprint(self.before))}\n  After:\n{_indent(_dprint(self.after))}"
        )


def _dprint(v: Variable, depth: int = 4) -> str:
    return str(pytensor.dprint(v, file="str", depth=depth, print_type=False)).rstrip("\n")  # file="str": the text


def _indent(text: str, by: str = "    ") -> str:
    return "\n".join(by + line for line in text.splitlines())


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
    for v in [*outs, *goal, *(v for s in steps for v in (s.before, s.after))]:
        keys.key(v)
    by_var = keys.by_var
    closure = _Closure(_node_table(keys))
    closure.merge((by_var[id(s.before)], by_var[id(s.after)]) for s in steps)
    return all(closure.find(by_var[id(a)]) == closure.find(by_var[id(b)]) for a, b in zip(outs, goal))


def _node_table(keys: StructuralKeys) -> dict[int, tuple[Any, int, tuple[int, ...]]]:
    """Structural key -> (op, output index, input keys), for every node ``keys`` has seen."""
    nodes: dict[int, tuple[Any, int, tuple[int, ...]]] = {}
    by_var = keys.by_var
    for v in keys.kept:
        node = v.owner
        if node is not None:
            k = by_var[id(v)]
            if k not in nodes:
                ins = tuple(by_var[id(i)] for i in node.inputs)
                nodes[k] = (node.op, node.outputs.index(v), ins)
    return nodes


class _Closure:
    """Congruence closure over ``nodes`` (key -> (op, output index, input keys)): a union-find
    whose merges propagate to nodes applying one Op to merged inputs."""

    def __init__(self, nodes: dict[int, tuple[Any, int, tuple[int, ...]]]) -> None:
        self.nodes = nodes
        self.parent: dict[int, int] = {}
        self.uses: dict[int, list[int]] = {}
        for k, (_, _, ins) in nodes.items():
            for i in ins:
                self.uses.setdefault(i, []).append(k)
        self.table: dict[Any, int] = {}
        self.pending: list[tuple[int, int]] = []
        for k in nodes:
            self._insert(k)

    def find(self, a: int) -> int:
        parent = self.parent
        root = a
        while parent.get(root, root) != root:
            root = parent[root]
        while a != root:  # path compression
            parent[a], a = root, parent.get(a, a)
        return root

    def _insert(self, k: int) -> None:
        op, idx, ins = self.nodes[k]
        sig = (op, idx, tuple(self.find(i) for i in ins))
        other = self.table.get(sig)
        if other is None:
            self.table[sig] = k
        elif self.find(other) != self.find(k):
            self.pending.append((other, k))

    def merge(self, pairs: Any) -> None:
        """Merge each pair's classes, and every pair of nodes that becomes congruent."""
        self.pending.extend(pairs)
        uses = self.uses
        while self.pending:
            a, b = self.pending.pop()
            ra, rb = self.find(a), self.find(b)
            if ra == rb:
                continue
            if len(uses.get(ra, ())) < len(uses.get(rb, ())):
                ra, rb = rb, ra
            self.parent[rb] = ra
            moved = uses.pop(rb, [])
            uses.setdefault(ra, []).extend(moved)
            for k in moved:
                self._insert(k)


class Explanation:
    """What ``normalize`` did: its ``result``, and the ``steps`` it applied, in order.

    ``str(explanation)`` opens with the number of steps per rule
    (:attr:`counts`), then prints each step's rule and a short Before/After
    ``dprint``; runs of bookkeeping steps (the explicit-broadcast rules of
    :data:`relations.LOWERING_RULES`, which only restate how an Op
    broadcasts and which ``lower`` undoes) are folded into one line each
    unless ``bookkeeping`` is true (:meth:`format` takes it too).
    :meth:`check` re-checks every step, and that together they make the
    input equal to the result.
    """

    def __init__(self, graph: Any, result: Any, steps: list[Step], bookkeeping: bool = False) -> None:
        self.graph = graph
        self.result = result
        self.steps = steps
        self.bookkeeping = bookkeeping

    @property
    def counts(self) -> dict[str, int]:
        """Steps per rule name, the rules in the order they first fired."""
        return _counts(self.steps)

    def check(self, values: bool = False, seed: int = 0, **options: Any) -> bool:
        """Whether the steps are a proof that the input equals :attr:`result`.

        Always: every step is an application of its rule (:meth:`Step.holds`,
        the relation re-run with both sides given) and the steps together make
        the input graph equal to the result (:func:`follows`).  That trusts
        the rules: a wrong rule applied correctly passes.  With ``values=True``
        every step's two sides are also evaluated on random inputs
        (:meth:`Step.agrees`; ``seed`` and ``options`` as there), which finds
        a rule that is wrong where it was applied, as :func:`relations.verify`
        does for a rule on its own.
        """
        return _checked(self.graph, self.steps, self.result, values, seed, options)

    def __len__(self) -> int:
        return len(self.steps)

    def format(self, bookkeeping: bool | None = None) -> str:
        """The text ``str()`` gives; ``bookkeeping`` (default: the explanation's own) prints every step."""
        if not self.steps:
            return "no rewrite applies (the graph is in normal form)"
        if bookkeeping is None:
            bookkeeping = self.bookkeeping
        return _format(self.steps, bookkeeping)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        rules = ", ".join(f"{r} x{n}" for r, n in self.counts.items())
        return f"Explanation({len(self.steps)} steps: {rules})"

    def draw(self, **options: Any) -> Any:
        """A picture of the steps (``.dot()``, ``.svg()``); see :func:`relations.queries.drawing.draw_explanation`."""
        from relations.queries.drawing import draw_explanation

        return draw_explanation(self, **options)

    def to_dot(self, **options: Any) -> str:
        """The Graphviz source of :meth:`draw`'s picture."""
        return str(self.draw(**options).dot())

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the steps (``None`` without a ``dot`` program: the text is shown)."""
        return self.draw()._repr_svg_()


def _counts(steps: Sequence[Step]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for s in steps:
        counts[s.rule] = counts.get(s.rule, 0) + 1
    return counts


def _checked(graph: Any, steps: Sequence[Step], result: Any, values: bool, seed: int, options: dict) -> bool:
    if not (all(s.holds() for s in steps) and follows(graph, steps, result)):
        return False
    return not values or all(s.agrees(seed, **options) is None for s in steps)


def is_bookkeeping(step: Step) -> bool:
    """Whether ``step`` only restates broadcasting (a rule of :data:`relations.LOWERING_RULES`)."""
    return step.relation in LOWERING_RULES


def _format(steps: Sequence[Step], bookkeeping: bool) -> str:
    counts = _counts(steps)
    lines = [f"{len(steps)} steps: " + ", ".join(f"{r} x{n}" for r, n in counts.items())]
    run: list[int] = []

    def fold() -> None:
        if run:
            span = f"{run[0]}" if len(run) == 1 else f"{run[0]}-{run[-1]}"
            folded = _counts([steps[i - 1] for i in run])
            rules = ", ".join(f"{r} x{n}" for r, n in folded.items())
            lines.append(
                f"{span}. bookkeeping: {rules} (explicit broadcasting; explain(..., bookkeeping=True) prints them)"
            )
            run.clear()

    for i, s in enumerate(steps, 1):
        if not bookkeeping and is_bookkeeping(s):
            run.append(i)
            continue
        fold()
        lines.append(f"{i}. {s}")
    fold()
    return "\n".join(lines)


class Proof(list):
    """Steps turning graph ``a`` into graph ``b``; a list of :class:`Step`.

    An empty proof means ``a`` and ``b`` are already structurally equal.
    """

    def __init__(self, a: Any, b: Any, steps: Sequence[Step]) -> None:
        super().__init__(steps)
        self.a = a
        self.b = b

    def check(self, values: bool = False, seed: int = 0, **options: Any) -> bool:
        """True only if every step holds with both sides given, and the steps
        make ``a`` equal to ``b`` (:func:`follows`); with ``values=True`` also
        every step's sides agree on random inputs (as :meth:`Explanation.check`)."""
        return _checked(self.a, list(self), self.b, values, seed, options)

    def __str__(self) -> str:
        if not self:
            return "the graphs are structurally equal"
        return "\n".join(f"{i}. {s}" for i, s in enumerate(self, 1))


class SaturatedExplanation(Explanation):
    """An :class:`Explanation` from an e-graph: also the saturation's :attr:`report` and the costs.

    ``before`` and ``after`` are the input's and the result's costs (with
    the default cost the tuples ``(unstable spellings, elements touched)``
    of :func:`relations.saturation.stability.stability_key`); ``report`` is the
    :class:`relations.Report` of the saturation (its ``rewriters`` count
    each PyTensor rewriter's calls, matches and unions).  ``str()`` opens
    with both, then the steps as :meth:`Explanation.format` prints them (a
    step a PyTensor rewriter took says so).
    """

    def __init__(
        self,
        graph: Any,
        result: Any,
        steps: list[Step],
        report: Report,
        before: Any,
        after: Any,
        bookkeeping: bool = False,
    ) -> None:
        super().__init__(graph, result, steps, bookkeeping=bookkeeping)
        self.report = report
        self.before = before
        self.after = after
        #: when no form is better (or, under the default cost, no unstable spelling fewer): the
        #: rewriters that came closest, each with what it was missing (``relations.why_not``)
        self.closest: list = []

    def format(self, bookkeeping: bool | None = None) -> str:
        """The header (saturation, costs), then the steps; ``bookkeeping`` as for :meth:`Explanation.format`."""
        r = self.report
        fired = [f"{name} x{s.unions}" for name, s in r.rewriters.items() if s.unions]
        lines = [
            f"from an e-graph: {r.classes} classes, {r.nodes} e-nodes (stop: {r.stop}, {r.iterations} iterations); "
            f"PyTensor rewriters that joined classes: {', '.join(fired) or 'none'}",
            _costs_line(self.before, self.after),
        ]
        if not self.steps:
            lines.append("no form is better under the cost: the result is the input")
        else:
            lines.append(super().format(bookkeeping))
        for name, attempt in self.closest:
            lines.append(f"closest: {name} at {attempt}".replace("\n", "\n  "))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"SaturatedExplanation({len(self.steps)} steps, cost {self.before} -> {self.after})"


def _costs_line(before: Any, after: Any) -> str:
    if isinstance(before, tuple):
        return f"unstable spellings {before[0]} -> {after[0]}, elements touched {before[1]:g} -> {after[1]:g}"
    return f"cost {before:g} -> {after:g}"
