"""Checks of a pattern rule at definition: what its guards read is bound, and what makes it stop.

:func:`relations.rewrite_rule` refuses a rule that would be a silent no-op
or would not terminate, naming the pattern variable or the rule:

- :func:`check_guards_bound`: every ``where=`` clause reads only variables
  that the left side binds, or that a ``where=`` goal computes from them
  (a fixpoint over the goals' modes, run forward from the left side): a
  guard over a variable nothing binds would wait for ever, and the rule
  never fire;
- :func:`default_measure`: a rule with no ``measure=`` must shrink (fewer
  pattern nodes on the right), or be a *choice* (``choice=True``, as the
  rules of ``RULESETS["choices"]``): a rewrite for saturation and
  extraction only, which ``normalize`` refuses to run without a measure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from etuples.core import ExpressionTuple
from unification.variable import Var

from graph_bridge.measures import Measure, nodes, unstated
from logic_core.moded import ModedGoal
from logic_core.term_kinds import is_term
from logic_core.unifier import Eq
from relations import patterns as p

__all__ = ["check_guards_bound", "default_measure", "variables_in"]

_NULL = ExpressionTuple.null


def variables_in(x: Any) -> list[Var]:
    """The logic variables in ``x`` (a goal's arguments: nested tuples and terms), in order."""
    out: dict = {}
    stack = [x]
    while stack:
        t = stack.pop()
        if isinstance(t, Var):
            out.setdefault(t, None)
        elif type(t) in (tuple, list):
            stack.extend(reversed(t))
        elif is_term(t) and t._evaled_obj is _NULL:
            stack.extend(reversed(t._tuple))
    return list(out)


def _gives(goal: Any, bound: set) -> Iterable[Var]:
    """The variables ``goal`` binds once ``bound`` ones are: the outputs of its modes that can run."""
    if isinstance(goal, Eq):
        left, right = variables_in(goal.u), variables_in(goal.v)
        if all(v in bound for v in left):
            yield from right
        if all(v in bound for v in right):
            yield from left
    elif isinstance(goal, ModedGoal):
        for mode in goal.modes:
            if _ready(goal, mode, bound):
                for i in (*mode.gives, *[j for js in mode.open.values() for j in js]):
                    yield from variables_in(goal.args[i])


def _ready(goal: ModedGoal, mode: Any, bound: set) -> bool:
    """Whether ``mode`` of ``goal`` can run once the ``bound`` variables are: planned, and the
    arguments it needs bound."""
    return mode.plannable and all(v in bound for i in mode.needs for v in variables_in(goal.args[i]))


def _fixpoint(goals: Sequence[Any], bound: set) -> set:
    bound = set(bound)
    changed = True
    while changed:
        changed = False
        for g in goals:
            for v in _gives(g, bound):
                if v not in bound:
                    bound.add(v)
                    changed = True
    return bound


def _runs(goal: Any, bound: set) -> bool:
    if isinstance(goal, Eq):
        return all(v in bound for v in variables_in(goal.u)) or all(v in bound for v in variables_in(goal.v))
    if isinstance(goal, ModedGoal):
        return any(_ready(goal, mode, bound) for mode in goal.modes)
    return True  # another kanren goal: nothing to read off it


def check_guards_bound(name: str, side_goals: Sequence[Any], clauses: Sequence[tuple[int, Any, Sequence[Var]]]) -> None:
    """``ValueError`` naming a clause and the pattern variables it reads that nothing binds forward.

    ``side_goals`` are the goals of the two sides over the pattern
    variables (:data:`~relations.patterns.LHS` the known one);
    ``clauses`` are ``(index, goal, reads)``: a goal over pattern
    variables (``reads`` empty), or ``None`` and the variables a predicate
    reads.
    """
    goals = list(side_goals) + [g for _, g, _ in clauses if g is not None]
    bound = _fixpoint(goals, {p.LHS})
    for i, goal, reads in clauses:
        if goal is not None:
            if _runs(goal, bound):
                continue
            reads = variables_in(goal.args if isinstance(goal, ModedGoal) else (goal.u, goal.v))
        missing = [v for v in reads if isinstance(v, p.PatternVar) and v not in bound]
        if missing:
            names = ", ".join(repr(str(v)) for v in missing)
            raise ValueError(
                f"rule {name!r}: where[{i}] reads {names}, which the left side never binds and no "
                f"where= goal computes from it: the guard would wait for ever and the rule never apply"
            )


def default_measure(name: str, lhs: Any, rhs: Any, choice: bool) -> Measure:
    """The measure of a rule that states none: the node count if the right side is smaller.

    Otherwise a choice rule gets an unstated one (saturation only), and any
    other rule is refused (``ValueError`` naming it): ``normalize`` could
    rewrite it for ever (``a + b -> b + a``).
    """
    left, right = p.pattern_nodes(lhs), p.pattern_nodes(rhs)
    if right < left:
        return nodes()
    if choice:
        return unstated(f"pattern nodes: {left} on the left, {right} on the right")
    raise ValueError(
        f"rule {name!r} does not shrink ({left} pattern nodes on the left, {right} on the right) and states "
        f"no measure, so normalize could rewrite for ever: give measure= (what decreases: lang.count(...), "
        f"lang.weighted_operands(), ...) or declare it choice=True (a rewrite for saturation and "
        f"extraction only, as the rules of RULESETS['choices'])"
    )
