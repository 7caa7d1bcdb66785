"""Running relations over whole graphs: the normalizing fixpoint.

The graph is walked in Python, bottom-up, each node once (iteratively, so deep
graphs do not hit the recursion limit).  At a node whose Op class can match a
rule's left side, the relation runs on a one-level view of the node
(:func:`graph_bridge.node_term`); unification expands the inputs only as deep
as the rule's pattern asks.  The first ground answer that reifies to a
variable of the same dtype, ndim and broadcastable pattern replaces the node,
and the new sub-graph is walked the same way, so every node of the result is
in normal form.  Rules decrease a measure forward, so this stops; a budget on
the number of rewrites turns a non-terminating user rule set into an error.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pytensor.graph.basic import Variable
from unification import reify as lreify
from unification import var

from graph_bridge import TermError, in_vocabulary, is_ground, node_term, reify
from relations.rules import Relation, RuleIndex

__all__ = ["as_variables", "first_rewrite", "normalize_variables", "same_type"]


def as_variables(graph: Any, argname: str = "graph") -> tuple[list[Variable], bool]:
    """``graph`` as a list of variables, and whether it was a single one."""
    if isinstance(graph, Variable):
        return [graph], True
    if isinstance(graph, (list, tuple)):
        bad = [i for i, g in enumerate(graph) if not isinstance(g, Variable)]
        if bad:
            i = bad[0]
            raise TypeError(
                f"{argname}[{i}] must be a PyTensor Variable, got {type(graph[i]).__name__}"
            )
        return list(graph), False
    raise TypeError(
        f"{argname} must be a PyTensor Variable or a list of them, "
        f"got {type(graph).__name__}"
    )


def same_type(new: Variable, old: Variable) -> bool:
    """Whether ``new`` may replace ``old``: same dtype, ndim and broadcastable."""
    a, b = new.type, old.type
    if a == b:
        return True
    return (
        getattr(a, "dtype", None) == getattr(b, "dtype", None)
        and getattr(a, "ndim", None) == getattr(b, "ndim", None)
        and tuple(getattr(a, "broadcastable", ())) == tuple(getattr(b, "broadcastable", ()))
        and type(a) is type(b)
    )


def answers(relation: Relation, lhs: Any, rhs: Any, backward: bool = False) -> Iterator[Any]:
    """The ground answers ``rhs`` (or ``lhs`` if ``backward``) of ``relation(lhs, rhs)``, lazily."""
    goal = relation(lhs, rhs)
    wanted = lhs if backward else rhs
    for state in goal({}):
        out = lreify(wanted, state)
        if is_ground(out):
            yield out


def first_rewrite(
    v: Variable, rules: Sequence[Relation], backward: bool = False
) -> tuple[Variable, Relation] | None:
    """The first rule (in order) that rewrites ``v`` (forward, or backward), and its result."""
    t = node_term(v)
    for rel in rules:
        q = var()
        found = answers(rel, q, t, backward=True) if backward else answers(rel, t, q)
        for out in found:
            try:
                new = reify(out)
            except TermError:
                continue
            if new is v or not same_type(new, v):
                continue
            return new, rel
    return None


class Normalizer:
    """One normalization pass; memoizes every variable it has put in normal form."""

    def __init__(self, index: RuleIndex, budget: int | None = None, backward: bool = False) -> None:
        self.index = index
        self.backward = backward
        self._rules = index.backward if backward else index.forward
        self.memo: dict[int, Variable] = {}
        self._keep: list[Variable] = []  # keeps ids in memo alive and unique
        self.budget = budget
        self.rewrites = 0

    def _done(self, key: Variable, value: Variable) -> None:
        self.memo[id(key)] = value
        self._keep.append(key)
        if id(value) not in self.memo:
            self.memo[id(value)] = value
            self._keep.append(value)

    def normal(self, root: Variable) -> Variable:
        memo = self.memo
        # stack items: (variable, variable whose normal form it is, or None)
        stack: list[tuple[Variable, Variable | None]] = [(root, None)]
        while stack:
            v, alias_of = stack[-1]
            if id(v) in memo:
                stack.pop()
                if alias_of is not None:
                    self._done(alias_of, memo[id(v)])
                continue
            node = v.owner
            if node is None:
                stack.pop()
                self._done(v, v)
                if alias_of is not None:
                    self._done(alias_of, v)
                continue
            missing = [i for i in node.inputs if id(i) not in memo]
            if missing:
                stack.extend((i, None) for i in reversed(missing))
                continue
            stack.pop()
            new_inputs = [memo[id(i)] for i in node.inputs]
            if any(a is not b for a, b in zip(new_inputs, node.inputs)):
                new_node = node.clone_with_new_inputs(new_inputs, strict=False)
            else:
                new_node = node
            for old_out, new_out in zip(node.outputs, new_node.outputs):
                if old_out is not v:
                    self._done(old_out, new_out)
            out = new_node.outputs[node.outputs.index(v)]
            rewritten = None
            if len(new_node.outputs) == 1 and in_vocabulary(new_node.op):
                rules = self._rules(type(new_node.op))
                if rules:
                    rewritten = first_rewrite(out, rules, self.backward)
            if rewritten is None:
                self._done(v, out)
                if alias_of is not None:
                    self._done(alias_of, out)
                continue
            self.rewrites += 1
            if self.budget is not None and self.rewrites > self.budget:
                raise RuntimeError(
                    f"normalize: more than {self.budget} rewrites; the rule set "
                    f"does not terminate (last rule: {rewritten[1].__name__})"
                )
            # the new sub-graph is normalized next; its result stands for v
            stack.append((rewritten[0], alias_of if alias_of is not None else v))
            if alias_of is not None:
                # v itself also maps to the final form
                stack.append((rewritten[0], v))
        return memo[id(root)]


def normalize_variables(
    outputs: Sequence[Variable], index: RuleIndex, backward: bool = False
) -> list[Variable]:
    """Normal forms of ``outputs``, sharing one memo (shared sub-graphs stay shared).

    ``backward`` runs the rules from right to left (``relations.lower``).
    """
    budget = 1000 + 100 * _count_nodes(outputs)
    norm = Normalizer(index, budget=budget, backward=backward)
    return [norm.normal(o) for o in outputs]


def _count_nodes(outputs: Sequence[Variable]) -> int:
    seen: set[int] = set()
    stack = [o for o in outputs]
    keep = []
    while stack:
        v = stack.pop()
        node = v.owner
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)
        stack.extend(node.inputs)
    return len(seen)
