"""Rules declared as two patterns: :func:`rewrite_rule`.

``rewrite_rule(name, lhs, rhs, where=())`` turns two patterns of
:mod:`relations.patterns` into a relation ``rel(lhs_term, rhs_term)``, the
same kind of goal constructor as the built-in rules.  Each side is matched
when it is known and built (with the PyTensor functions the pattern names)
when it is not, so one declaration rewrites forward, generates left sides
backward, and checks two known graphs.  Guards wait (``NotReady``) until the
pattern variables they read are bound, so they hold in every direction.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from unification import var as fresh_var
from unification.variable import Var

from graph_bridge import is_ground, reify
from graph_bridge.logic import lreify
from graph_bridge.terms import TermError
from graph_bridge.modes import Mode, ModedGoal, moded
from relations import patterns as p
from relations.goals import lall_ready
from relations.rules import rule

__all__ = ["rewrite_rule"]


class _NoGraph(Exception):
    """A bound term does not reify, or a side does not build: no answer."""


def _sideo(side: Any, pattern: Any, rename: dict) -> ModedGoal:
    """``side`` is ``pattern`` under the rule's variables: matched when known, built when not."""
    names = [v for v in p.pattern_vars(pattern)]
    fresh = tuple(rename[v] for v in names)

    def match(s):
        found = p.match(pattern, s)
        if found is not None:
            yield tuple(found[v] for v in names)

    def build(*values):
        bound = dict(zip(names, values))

        def lookup(v: Var):
            try:
                return reify(bound[v])
            except TermError:
                raise _NoGraph from None

        try:
            yield (p.build(pattern, lookup),)
        except _NoGraph:
            return
        except Exception:  # noqa: BLE001 - the bindings do not fit this pattern (types)
            return

    return moded(
        "pattern side",
        (side, *fresh),
        Mode((0,), tuple(range(1, len(fresh) + 1)), match),
        Mode(tuple(range(1, len(fresh) + 1)), (0,), build),
        waiting="pattern variable not bound yet",
    )


def _predicate_guard(pred: Callable, names: Sequence[str], by_name: dict, rename: dict) -> ModedGoal:
    def check(*terms):
        args = {}
        for n, t in zip(names, terms):
            try:
                args[n] = reify(t)
            except TermError:
                return
        if pred(**args):
            yield ()

    fresh = tuple(rename[by_name[n]] for n in names)
    return moded(
        getattr(pred, "__name__", "guard"),
        fresh,
        Mode(tuple(range(len(fresh))), (), check),
        waiting="pattern variable not bound yet",
    )


def _goal_guard(goal: Callable, rename: dict):
    """Run a goal written over the pattern's variables on this call's fresh variables.

    A moded goal is renamed as it is (it stays plannable); any other goal
    runs on a state seeded with the renaming.
    """
    if isinstance(goal, ModedGoal):
        return ModedGoal(goal.name, lreify(goal.args, rename), goal.modes, goal.waiting)

    def renamed_goal(S):
        seeded = dict(S)
        seeded.update(rename)
        for out in goal(seeded):
            state = {}
            for k, v in out.items():
                if k in rename and out[k] is rename[k]:
                    continue
                state[k] = lreify(v, rename) if not is_ground(v) else v
            yield state

    return renamed_goal


def _classify_guards(where: Any, by_name: dict) -> list[tuple[str, Any, tuple[str, ...]]]:
    if callable(where) or not isinstance(where, (tuple, list)):
        raise TypeError(f"where must be a tuple of guards, got {type(where).__name__}")
    out = []
    for i, g in enumerate(where):
        if not callable(g):
            raise TypeError(f"where[{i}] must be a predicate or a goal, got {type(g).__name__}")
        try:
            params = inspect.signature(g).parameters
        except (TypeError, ValueError):
            params = {}
        names = tuple(params)
        if names and all(n in by_name for n in names):
            out.append(("predicate", g, names))
        elif len(names) == 1:
            out.append(("goal", g, ()))
        else:
            raise TypeError(
                f"where[{i}] takes {names}: a predicate's parameters must be names of "
                f"the pattern's variables {tuple(by_name)}, a goal takes one state"
            )
    return out


def _root_classes(pattern: Any) -> tuple[type, ...] | None:
    return pattern.op_classes if isinstance(pattern, p.Node) else None


def _child_classes(pattern: Any) -> tuple[type, ...] | None:
    kids = [a for a in pattern.args if isinstance(a, p.Node)]
    if not kids:
        return None
    out: list[type] = []
    for k in kids:
        out += [c for c in k.op_classes if c not in out]
    return tuple(out)


def rewrite_rule(
    name: str,
    lhs: Any,
    rhs: Any,
    where: Sequence[Any] = (),
    measure: str | None = None,
) -> Callable[[Any, Any], Callable]:
    """A relation between the graphs ``lhs`` and ``rhs`` describe, usable wherever rules go.

    ``lhs`` and ``rhs`` are patterns (:mod:`relations.patterns`); every
    variable of ``rhs`` must occur in ``lhs``, and ``lhs`` must be a node
    pattern (not a bare variable or constant).  ``where`` holds guards:

    - a Python predicate whose parameters are names of pattern variables,
      called with the PyTensor variables they are bound to
      (``lambda a: a.type.ndim >= 1``); a true result lets the rule apply;
    - a goal over the pattern's variables, such as the bridge's type facts
      (``graph_bridge.ndimo(a, 1)``).

    Guards run once their variables are bound (forward: after the left side
    matched; backward: after the right side did).  Backward, every variable
    of ``lhs`` must occur in ``rhs`` (else no left side can be built).  The
    engine never applies a result whose dtype, ndim or broadcastable
    differs from the node it replaces.

    The result ``rel(lhs_term, rhs_term)`` is a goal constructor with
    ``rel.name == rel.__name__ == name``, the patterns as ``rel.lhs`` and
    ``rel.rhs``, and the index facts of :func:`relations.rule` read off the
    patterns (root Op classes of each side, Op classes under the left root).
    ``measure`` (default: the pattern sizes) is what decreases forward.

    Before/After (``rewrite_rule("neg_neg", p.neg(p.neg(a)), a)``)::

        neg(neg(x))  ->  x
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    if not isinstance(lhs, p.Node):
        raise TypeError(
            f"lhs must be a node pattern (p.exp(a), p.sum(a), ...), got {type(lhs).__name__}: "
            f"a variable or constant alone would match every node"
        )
    rhs = p._as_pattern(rhs, "rhs")
    lhs_vars, rhs_vars = p.pattern_vars(lhs), p.pattern_vars(rhs)
    extra = [v for v in rhs_vars if v not in lhs_vars]
    if extra:
        raise ValueError(f"rhs uses variables that lhs does not bind: {extra}")
    by_name: dict[str, Var] = {}
    for v in lhs_vars:
        n = getattr(v, "name", None) or str(getattr(v, "token", v))
        if n in by_name:
            raise ValueError(f"lhs has two distinct variables named {n!r}")
        by_name[n] = v
    guards = _classify_guards(where, by_name)
    if measure is None:
        measure = (
            f"pattern nodes: {p.pattern_nodes(lhs)} on the left, {p.pattern_nodes(rhs)} on the right"
        )

    def relation(lhs_term: Any, rhs_term: Any):
        rename = {v: fresh_var() for v in lhs_vars}
        # forward: match, check, build; backward the right side matches first
        goals = [_sideo(lhs_term, lhs, rename)]
        for kind, g, names in guards:
            if kind == "predicate":
                goals.append(_predicate_guard(g, names, by_name, rename))
            else:
                goals.append(_goal_guard(g, rename))
        goals.append(_sideo(rhs_term, rhs, rename))
        return lall_ready(*goals)

    relation.__name__ = relation.__qualname__ = name
    relation.__doc__ = f"{name}: {lhs!r} -> {rhs!r}" + (
        f" where {len(guards)} guard(s)" if guards else ""
    )
    relation.name = name  # type: ignore[attr-defined]
    relation.lhs = lhs  # type: ignore[attr-defined]
    relation.rhs = rhs  # type: ignore[attr-defined]
    relation.where = tuple(where)  # type: ignore[attr-defined]
    return rule(
        heads=_root_classes(lhs),
        rhs_heads=_root_classes(rhs),
        child_heads=_child_classes(lhs),
        measure=measure,
    )(relation)
