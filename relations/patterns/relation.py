"""Rules: relations with the index facts the engine needs.

A rule is an ordinary goal constructor ``rel(lhs, rhs)`` (a miniKanren
relation between two terms that compute the same values).  The decorator
:func:`rule` only attaches facts the engine uses to decide where to try it:
which Op classes can sit at the root of ``lhs`` (forward) and of ``rhs``
(backward), and the measure that decreases forward.  The decorated function
is returned unchanged, so it stays a relation usable with ``kanren.run``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from pytensor.graph.op import Op

from graph_bridge.measures import Measure, unstated
from logic_core.term_kinds import is_ground
from logic_core.unifier import lreify

__all__ = ["RuleIndex", "answers", "child_heads", "rule", "unmeasured_choice"]

Relation = Callable[[Any, Any], Callable]


def child_heads(relation: Relation) -> tuple[type[Op], ...]:
    """The Op classes :func:`rule` says an input of the left root is an output of (``()``: none said)."""
    return getattr(relation, "child_heads", None) or ()


def unmeasured_choice(relation: Relation) -> bool:
    """Whether ``relation`` is a choice rule (``rule(choice=True)``) whose measure is only described."""
    return bool(getattr(relation, "choice", False)) and not getattr(relation, "measure").stated


def rule(
    *,
    heads: Sequence[type[Op]] | None = None,
    rhs_heads: Sequence[type[Op]] | None = None,
    child_heads: Sequence[type[Op]] | None = None,
    rhs_child_heads: Sequence[type[Op]] | None = None,
    identity: bool = False,
    measure: Measure | str,
    choice: bool = False,
    reads_below_inputs: bool = True,
) -> Callable[[Relation], Relation]:
    """Declare a relation a rewrite rule.

    ``heads``: Op classes (with their subclasses) that can be the root Op of
    the left side; ``None`` means any vocabulary Op.  ``rhs_heads``: the same
    for the right side (used when running backward).  ``child_heads``: Op
    classes of which at least one input of the left side's root must be an
    output (``None``: no such condition); like ``heads`` it is an index the
    engine uses to skip a relation that cannot match, read off the
    relation's left-side pattern, never a guard the relation relies on.
    ``rhs_child_heads``: the same for the right side's root (used when
    running backward: ``careduce_joino``'s right side combines reductions).
    ``identity``: the right side is an input of the left side's root
    (``DimShuffle{identity}(x) -> x``); run backward such a rule only wraps
    a term in a node over itself, which an e-graph holds already (a cycle),
    so saturation does not run it backward.
    ``measure``: what strictly decreases from left to right, which makes
    normalization stop: a :class:`graph_bridge.measures.Measure`
    (``count(DimShuffle)``, ``below(...)``, ...; a string is a measure only
    described, :func:`~graph_bridge.measures.unstated`).  For every rule of
    ``relations.RULESETS``, ``tests/test_measures.py`` checks on random
    graphs that every rewrite ``normalize`` makes decreases it.
    ``choice``: the rewrite can make a graph costlier (``RULESETS["choices"]``),
    so a cost model decides whether it pays: saturation runs it; ``normalize``
    runs it only with a stated measure.
    ``reads_below_inputs``: whether the relation may read the structure below
    its root's input nodes (their inputs' nodes); ``False`` lets saturation
    match it over the e-nodes of the input classes only, not of the classes
    below them (``rewrite_rule`` reads it off the patterns and guards).
    """
    if isinstance(measure, str):
        measure = unstated(measure)
    elif not isinstance(measure, Measure):
        raise TypeError(f"measure must be a Measure (count(...), ...) or a text, got {type(measure).__name__}")

    def decorate(relation: Relation) -> Relation:
        relation.heads = tuple(heads) if heads is not None else None  # type: ignore[attr-defined]
        relation.child_heads = tuple(child_heads) if child_heads is not None else None  # type: ignore[attr-defined]
        relation.rhs_heads = tuple(rhs_heads) if rhs_heads is not None else None  # type: ignore[attr-defined]
        relation.rhs_child_heads = (  # type: ignore[attr-defined]
            tuple(rhs_child_heads) if rhs_child_heads is not None else None
        )
        relation.identity = bool(identity)  # type: ignore[attr-defined]
        relation.measure = measure  # type: ignore[attr-defined]
        relation.choice = bool(choice)  # type: ignore[attr-defined]
        relation.reads_below_inputs = bool(reads_below_inputs)  # type: ignore[attr-defined]
        return relation

    return decorate


def answers(relation: Relation, lhs: Any, rhs: Any, backward: bool = False) -> Iterator[Any]:
    """The ground answers ``rhs`` (or ``lhs`` if ``backward``) of ``relation(lhs, rhs)``, lazily.

    The relation run as it is (``lall_ready`` choosing goals and modes at
    every state); ``relations.patterns.plans`` plans the forward mode once.
    """
    goal = relation(lhs, rhs)
    if not callable(goal):
        name = getattr(relation, "__name__", relation)
        raise TypeError(f"rule {name!r} returned {type(goal).__name__}, not a goal")
    wanted = lhs if backward else rhs
    for state in goal({}):
        out = lreify(wanted, state)
        if is_ground(out):
            yield out


class RuleIndex:
    """Rules indexed by the Op class at the root of a term, one side or the other."""

    def __init__(self, rules: Iterable[Relation]) -> None:
        self.rules = tuple(rules)
        self._forward: dict[type, tuple[Relation, ...]] = {}
        self._backward: dict[type, tuple[Relation, ...]] = {}
        # backward_for: (Op class, the Op classes of the input nodes) -> the rules
        self._backward_by_children: dict[tuple[type, ...], tuple[Relation, ...]] = {}
        # forward_for: Op class -> (its forward rules, whether one has child_heads)
        self._forward_plans: dict[type, tuple[tuple[Relation, ...], bool]] = {}
        # forward_for: (Op class, the Op classes of the input nodes) -> the rules
        self._forward_by_children: dict[tuple[type, ...], tuple[Relation, ...]] = {}
        #: a tuple of rules ``forward_for`` gave -> the engine's pairing of those rules with
        #: their plans (``relations.greedy.fixpoint`` fills it)
        self.forward_runs: dict[tuple[Relation, ...], tuple] = {}

    def _lookup(self, cache: dict, attr: str, op_class: type) -> tuple[Relation, ...]:
        found = cache.get(op_class)
        if found is None:
            found = cache[op_class] = tuple(
                r
                for r in self.rules
                if getattr(r, attr, None) is None
                or issubclass(op_class, getattr(r, attr))
            )
        return found

    def forward(self, op_class: type) -> tuple[Relation, ...]:
        """Rules whose left side can have an ``op_class`` node at its root."""
        return self._lookup(self._forward, "heads", op_class)

    def forward_for(self, node: Any) -> tuple[Relation, ...]:
        """Rules whose left side can match ``node``: its Op class, and its inputs' (``child_heads``).

        Memoized by the Op classes of the node and of its inputs' nodes.
        """
        op_class = type(node.op)
        plan = self._forward_plans.get(op_class)
        if plan is None:
            rules = self.forward(op_class)
            picky = any(getattr(r, "child_heads", None) is not None for r in rules)
            plan = self._forward_plans[op_class] = (rules, picky)
        rules, picky = plan
        if not picky:
            return rules
        key = (op_class, *[type(i.owner.op) for i in node.inputs if i.owner is not None])
        found = self._forward_by_children.get(key)
        if found is None:
            children = key[1:]
            found = self._forward_by_children[key] = tuple(
                r
                for r in rules
                if getattr(r, "child_heads", None) is None or any(issubclass(c, child_heads(r)) for c in children)
            )
        return found

    def backward(self, op_class: type) -> tuple[Relation, ...]:
        """Rules whose right side can have an ``op_class`` node at its root."""
        return self._lookup(self._backward, "rhs_heads", op_class)

    def backward_for(self, node: Any) -> tuple[Relation, ...]:
        """Rules whose right side can match ``node``: its Op class, and its inputs' (``rhs_child_heads``).

        Memoized by the Op classes of the node and of its inputs' nodes.
        """
        op_class = type(node.op)
        key = (op_class, *[type(i.owner.op) for i in node.inputs if i.owner is not None])
        found = self._backward_by_children.get(key)
        if found is None:
            children = key[1:]
            found = self._backward_by_children[key] = tuple(
                r
                for r in self.backward(op_class)
                if (heads := getattr(r, "rhs_child_heads", None)) is None or any(issubclass(c, heads) for c in children)
            )
        return found
