"""Rules declared as two patterns: :func:`rewrite_rule` (the built-in rules are written with it).

``rewrite_rule(name, lhs, rhs, where=())`` turns two patterns of
:mod:`relations.patterns` into a relation ``rel(lhs_term, rhs_term)``, the
same kind of goal constructor as the built-in rules.  Each side is matched
when it is known and built (with the PyTensor functions the pattern names)
when it is not, so one declaration rewrites forward, generates left sides
backward, and checks two known graphs.  Guards wait (``NotReady``) until the
pattern variables they read are bound, so they hold in every direction.

Prop variables (``p.sum(x, axis=ax)``) bind the props a side's node has;
``where=`` clauses that are moded goals over pattern variables (the type
facts, :mod:`relations.patterns.props`, ``eq``) may compute variables the
other side uses, in whichever direction is ground.  Every part is a moded
goal or ``eq`` in one ``lall_ready``, so the forward planner
(:mod:`relations.patterns.plans`) compiles the rule.

Two kinds of rule come out.  When every node of both sides has a term
template or a goal (``p.dimshuffle``, ``p.careduce(r, ...)``, the nodes of
:mod:`relations.patterns.nodes`) and every ``where`` clause is a goal, or
when a side holds a node only a goal reads (``p.reduce``, ``p.named``, ...:
then the other nodes, ``p.mul``, ``p.sum``, ..., are matched and built one
level each, and predicates are moded checks), the relation is the one a
hand-written rule states (:mod:`relations.patterns.compiler`): ``eq`` of
each side with its template, the goals its nodes and heads imply, then
``where``; the planner makes the same plan of it, and the built-in rules
are written so.  Otherwise each side is matched (and built) by the pattern
itself, in one moded goal per side.

Either way a rule is refused when defined if it would silently never fire
or never stop (:mod:`relations.patterns.checks`): a guard over a variable
the left side never binds, or a rule whose sides do not shrink and that
states no measure, unless it is a choice rule (``choice=True``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from etuples.core import ExpressionTuple
from unification import var as fresh_var
from unification.variable import Var

from graph_bridge import reify
from graph_bridge.terms import TermError
from logic_core.goals import Conj, lall_ready
from logic_core.moded import Mode, ModedGoal, moded
from logic_core.term_kinds import is_ground, is_term
from logic_core.unifier import Eq, lreify
from relations import patterns as p
from relations.patterns.checks import check_guards_bound, default_measure
from relations.patterns.compiler import (
    compilable,
    compile_sides,
    has_goal_node,
    head_vars,
    instantiate,
    pattern_goal,
    side_variables,
)
from relations.patterns.guards import Guard
from relations.patterns.kanren_goals import foreign_goal, kanren_conjunction
from relations.patterns.nodes import CompiledNode
from relations.patterns.relation import rule
from relations.patterns.rule_docs import rule_doc

__all__ = ["rewrite_rule"]


_NULL = ExpressionTuple.null


def _sideo(side: Any, pattern: Any, rename: dict) -> ModedGoal:
    """``side`` is ``pattern`` under the rule's variables: matched when known, built when not."""
    names = p.pattern_vars(pattern) + p.prop_vars(pattern)
    return pattern_goal(pattern, names)(side, *[rename[v] for v in names])


def _guard_value(t: Any) -> Any:
    """What a predicate guard is called with for a bound value: a graph's variable, a head's Op, else the value."""
    if type(t) is tuple:
        return tuple(_guard_value(u) for u in t)
    if not isinstance(t, ExpressionTuple):
        return t
    try:
        return reify(t)
    except TermError:
        pass
    try:
        return t.evaled_obj  # an Op's term (p.reduce's head): the Op
    except Exception:  # noqa: BLE001 - a term that evaluates to nothing: the term itself
        return t


def _predicate_guard(pred: Callable, names: Sequence[str], by_name: dict, rename: dict) -> ModedGoal:
    """``pred`` as a moded check over the renamed variables, called with their values (:func:`_guard_value`)."""
    variables = [by_name[n] for n in names]

    def check(*values):
        return () if pred(**{n: _guard_value(t) for n, t in zip(names, values)}) else None

    return moded(
        getattr(pred, "__name__", "guard"),
        {n: rename[v] for n, v in zip(names, variables)},
        Mode(needs=tuple(names), gives=(), one=check),
        waiting="pattern variable not bound yet",
    )


def _goal_guard(goal: Any, rename: dict) -> Any:
    """Run a goal written over the pattern's variables on this call's fresh variables.

    A moded goal or an ``eq`` is renamed as it is (it stays plannable); any
    other goal runs on a state seeded with the renaming.
    """
    if isinstance(goal, ModedGoal):
        return ModedGoal(goal.name, lreify(goal.args, rename), goal.modes, goal.waiting)
    if isinstance(goal, Eq):
        return Eq(lreify(goal.u, rename), lreify(goal.v, rename))

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


def _pattern_vars_in(x: Any, out: list) -> list:
    """The pattern variables in ``x`` (a goal's arguments: nested tuples and terms)."""
    stack = [x]
    while stack:
        t = stack.pop()
        if isinstance(t, p.PatternVar):
            if t not in out:
                out.append(t)
        elif type(t) in (tuple, list):
            stack.extend(reversed(t))
        elif is_term(t) and t._evaled_obj is _NULL:
            stack.extend(reversed(t._tuple))
    return out


def _goal_vars(goal: Any) -> list:
    if isinstance(goal, ModedGoal):
        return _pattern_vars_in(goal.args, [])
    if isinstance(goal, Eq):
        return _pattern_vars_in((goal.u, goal.v), [])
    return []


def _as_where_goal(g: Any, i: int) -> Any:
    """``where[i]`` as a goal the planner reads: ``kanren.eq`` becomes ``eq``; ``kanren.lall`` is refused."""
    if kanren_conjunction(g):
        raise TypeError(
            f"where[{i}] is a kanren.lall: list its goals in where= itself "
            f"(they run as one conjunction that waits for unbound variables)"
        )
    found = foreign_goal(g)
    return g if found is None else found


def _where_goals(where: Any) -> list:
    """``where``'s clauses, checked, with kanren's ``eq`` read as :func:`logic_core.eq` (one
    :class:`~relations.patterns.guards.Guard` alone stands for a tuple of it)."""
    if isinstance(where, Guard):
        return [where]
    if callable(where) or not isinstance(where, (tuple, list)):
        raise TypeError(f"where must be a tuple of guards, got {type(where).__name__}")
    out = []
    for i, g in enumerate(where):
        if isinstance(g, (ModedGoal, Eq, Guard)):
            out.append(g)
        elif not callable(g):
            raise TypeError(f"where[{i}] must be a predicate or a goal, got {type(g).__name__}")
        else:
            out.append(_as_where_goal(g, i))
    return out


def _classify_guards(where: list, by_name: dict) -> list[tuple[str, Any, tuple[str, ...]]]:
    out: list[tuple[str, Any, tuple[str, ...]]] = []
    for i, g in enumerate(where):
        if isinstance(g, (ModedGoal, Eq)):
            out.append(("goal", g, ()))
            continue
        if isinstance(g, Guard):
            unbound = [n for n in g.names if n not in by_name]
            if unbound:
                raise ValueError(
                    f"where[{i}] ({g}) reads {unbound}, which neither side of the rule binds: "
                    f"the guard could never be tested"
                )
            out.append(("predicate", g, g.names))
            continue
        params: Mapping[str, inspect.Parameter]
        try:
            params = inspect.signature(g).parameters
        except (TypeError, ValueError):
            params = {}
        names = tuple(params)
        if names and all(n in by_name for n in names):
            out.append(("predicate", g, names))
        elif len(names) == 1 and getattr(g, "__name__", None) != "<lambda>":  # a lambda is a predicate
            out.append(("goal", g, ()))
        else:
            raise TypeError(
                f"where[{i}] takes {names}: a predicate's parameters must be names of "
                f"the pattern's variables {tuple(by_name)}, a goal takes one state"
            )
    return out


def _root_classes(pattern: Any) -> tuple[type, ...] | None:
    if isinstance(pattern, p.Named):
        pattern = pattern.node
    return pattern.op_classes if isinstance(pattern, (p.Node, CompiledNode)) else None


def _child_classes(pattern: Any) -> tuple[type, ...] | None:
    kids = [a.node if isinstance(a, p.Named) else a for a in pattern.args]
    kids = [a for a in kids if isinstance(a, (p.Node, CompiledNode))]
    if not kids:
        return None
    out: list[type] = []
    for k in kids:
        out += [c for c in k.op_classes if c not in out]
    return tuple(out)


class _Variables:
    """The variables of a pattern rule: by kind, by name, and which ``where=`` binds."""

    def __init__(self, lhs: Any, rhs: Any, where: Sequence[Any]) -> None:
        self.graph = p.pattern_vars(lhs) + p.pattern_vars(rhs)
        self.props = set(p.prop_vars(lhs) + p.prop_vars(rhs))
        mixed = [v for v in self.graph if v in self.props]
        if mixed:
            raise ValueError(f"{mixed} stand for a sub-graph in one place and for a prop in another")
        lhs_vars = p.pattern_vars(lhs) + p.prop_vars(lhs)
        where_vars: list = []
        for g in where:
            for v in _goal_vars(g):
                if v not in where_vars:
                    where_vars.append(v)
        extra = [v for v in p.pattern_vars(rhs) + p.prop_vars(rhs) if v not in lhs_vars and v not in where_vars]
        if extra:
            raise ValueError(f"rhs uses variables that neither lhs nor a where= goal binds: {extra}")
        self.all = list(dict.fromkeys(lhs_vars + where_vars + p.pattern_vars(rhs) + p.prop_vars(rhs)))
        self.by_name: dict[str, Var] = {}
        for v in self.all:
            n = getattr(v, "name", None) or str(getattr(v, "token", v))
            if self.by_name.setdefault(n, v) is not v:
                raise ValueError(f"the rule has two distinct variables named {n!r}")


def _is_node(pattern: Any) -> bool:
    return isinstance(pattern, (p.Node, CompiledNode))


def _reads_below_inputs(lhs: Any, where: Sequence[Any]) -> bool:
    """Whether matching ``lhs`` with the guards ``where`` may read below the root's input nodes.

    It may when a child pattern has nodes of its own (three levels), or when a guard that reads
    structure (not :attr:`logic_core.moded.ModedGoal.reads` ``"class"``: a predicate, an ``eq``,
    a goal that reads nodes) names a variable bound inside a child pattern.  Saturation varies the
    e-nodes below an input only for a rule that may (``relations.saturation.egraph``)."""
    deep: list = []
    for child in map(_unnamed, _unnamed(lhs).args):
        if not _is_node(child):
            continue
        if any(_is_node(_unnamed(a)) for a in child.args):
            return True
        _pattern_vars_in((child.args, getattr(child, "extra", ())), deep)
    if not deep:
        return False
    names = {v.name for v in deep}
    for g in where:
        if isinstance(g, ModedGoal):
            if g.reads != "class" and set(_goal_vars(g)) & set(deep):
                return True
        elif isinstance(g, Eq):
            if set(_goal_vars(g)) & set(deep):
                return True
        elif isinstance(g, Guard):
            if g.reads != "class" and set(g.variables) & set(deep):
                return True
        else:
            try:
                params = set(inspect.signature(g).parameters)
            except (TypeError, ValueError):
                return True
            if params & names:
                return True
    return False


def _unnamed(pattern: Any) -> Any:
    return pattern.node if isinstance(pattern, p.Named) else pattern


def _relation(name: str, lhs: Any, rhs: Any, guards: list, variables: _Variables) -> Callable:
    """The relation that matches and builds each side by its pattern (every node a ``p.Node``)."""
    ident = {v: v for v in variables.all}
    _check_bound(name, [_sideo(p.LHS, lhs, ident), _sideo(p.RHS, rhs, ident)], guards, variables.by_name)

    def relation(lhs_term: Any, rhs_term: Any) -> Conj:
        rename = {v: fresh_var() for v in variables.all}
        # forward: match, check, build; backward the right side matches first
        goals = [_sideo(lhs_term, lhs, rename)]
        for kind, g, names in guards:
            if kind == "predicate":
                goals.append(_predicate_guard(g, names, variables.by_name, rename))
            else:
                goals.append(_goal_guard(g, rename))
        goals.append(_sideo(rhs_term, rhs, rename))
        return lall_ready(*goals)

    relation.__name__ = relation.__qualname__ = name
    relation.__doc__ = f"{name}: {lhs!r} -> {rhs!r}" + (f" where {len(guards)} guard(s)" if guards else "")
    return relation


def _check_bound(name: str, side_goals: list, guards: list, by_name: dict) -> None:
    """Refuse a guard over a variable nothing binds forward (:func:`relations.patterns.checks.check_guards_bound`)."""
    clauses: list[tuple[int, Any, Sequence[Any]]] = []
    for i, (kind, g, names) in enumerate(guards):
        if kind == "predicate":
            clauses.append((i, None, [by_name[n] for n in names]))
        elif isinstance(g, (ModedGoal, Eq)):
            clauses.append((i, g, ()))
    check_guards_bound(name, side_goals, clauses)


def _compiled_names(lhs: Any, rhs: Any, clauses: list) -> dict[str, Var]:
    """The variables of a compiled rule by name: the sides' (reduction heads included) and the ``where=`` goals'."""
    found = side_variables(lhs) + side_variables(rhs) + head_vars(lhs) + head_vars(rhs)
    for g in clauses:
        found += _goal_vars(g)
    by_name: dict[str, Var] = {}
    for v in dict.fromkeys(found):
        if v is p.LHS or v is p.RHS:
            continue
        n = getattr(v, "name", None) or str(v)
        if by_name.setdefault(n, v) is not v:
            raise ValueError(f"the rule has two distinct variables named {n!r}")
    return by_name


def _compiled_relation(name: str, lhs: Any, rhs: Any, clauses: list) -> Callable:
    """The relation of compiled patterns: their templates and goals, then the ``where=`` clauses.

    A predicate runs as a moded check over the variables it names (a graph
    as its PyTensor variable, a ``p.reduce`` head as its Op, a
    ``p.careduce`` head variable as its :class:`~relations.patterns.Reduction`).
    """
    by_name = _compiled_names(lhs, rhs, clauses)
    guards = _classify_guards(clauses, by_name)
    wanted = dict.fromkeys([by_name[n] for _, _, names in guards for n in names])  # in order: plans are stable
    for g in clauses:
        wanted.update(dict.fromkeys(_goal_vars(g)))
    steps, names = compile_sides(lhs, rhs, wanted)
    names += [v for v in wanted if v not in names and v is not p.LHS and v is not p.RHS]
    _check_bound(name, instantiate(steps, {}), guards, by_name)

    def relation(lhs_term: Any, rhs_term: Any) -> Conj:
        rename = {v: fresh_var() for v in names}
        rename[p.LHS], rename[p.RHS] = lhs_term, rhs_term
        goals = instantiate(steps, rename)
        for kind, g, ns in guards:
            goals.append(_predicate_guard(g, ns, by_name, rename) if kind == "predicate" else _goal_guard(g, rename))
        return lall_ready(*goals)

    relation.__name__ = relation.__qualname__ = name
    relation.steps = steps  # type: ignore[attr-defined]
    return relation


def _check_rhs_bound(lhs: Any, rhs: Any, clauses: list) -> None:
    """``ValueError`` naming the variables of a compiled ``rhs`` that neither ``lhs`` nor a ``where=`` goal holds."""
    bound = set(side_variables(lhs))
    for g in clauses:
        bound.update(_goal_vars(g))
    extra = [v for v in side_variables(rhs) if v not in bound and v is not p.RHS]
    if extra:
        raise ValueError(f"rhs uses variables that neither lhs nor a where= goal binds: {extra}")


def _compiles(lhs: Any, rhs: Any, clauses: list) -> bool:
    """Whether the rule is compiled: every node has a template or a goal and every clause is a goal,
    or a node only a goal reads (``p.reduce``, ``p.named``, ...), which a pattern cannot match."""
    if compilable(lhs) and compilable(rhs) and all(isinstance(g, (ModedGoal, Eq)) for g in clauses):
        return True
    return has_goal_node(lhs) or has_goal_node(rhs) or any(v in (p.LHS, p.RHS) for g in clauses for v in _goal_vars(g))


def _relation_of(name: str, lhs: Any, rhs: Any, clauses: list) -> Callable:
    """The compiled relation when the patterns compile, else the one that matches each side by its pattern."""
    if _compiles(lhs, rhs, clauses):
        _check_rhs_bound(lhs, rhs, clauses)
        relation = _compiled_relation(name, lhs, rhs, clauses)
        relation.__doc__ = f"{name}: {lhs!r} -> {rhs!r}"
        return relation
    variables = _Variables(lhs, rhs, clauses)
    return _relation(name, lhs, rhs, _classify_guards(clauses, variables.by_name), variables)


def _checked_sides(name: Any, lhs: Any, rhs: Any) -> Any:
    """``rhs`` as a pattern, once ``name`` and ``lhs`` are checked (``TypeError`` naming the bad one)."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    if not isinstance(lhs, (p.Node, p.Named, CompiledNode)):
        raise TypeError(
            f"lhs must be a node pattern (p.exp(a), p.sum(a), ...), got {type(lhs).__name__}: "
            f"a variable or constant alone would match every node"
        )
    return p.as_pattern(rhs, "rhs")


def rewrite_rule(
    name: str,
    lhs: Any,
    rhs: Any,
    where: Sequence[Any] = (),
    measure: Any = None,
    doc: str | None = None,
    docs: str | None = None,
    child_heads: Sequence[type] | None = None,
    rhs_child_heads: Sequence[type] | None = None,
    heads: Sequence[type] | None = None,
    rhs_heads: Sequence[type] | None = None,
    choice: bool = False,
) -> Callable[[Any, Any], Callable]:
    """A relation between the graphs ``lhs`` and ``rhs`` describe, usable wherever rules go.

    ``lhs`` and ``rhs`` are patterns (:mod:`relations.patterns`), with
    variables for sub-graphs and for props (``p.sum(x, axis=ax)``);
    ``lhs`` must be a node pattern (not a bare variable or constant).
    ``where`` holds guards and computations:

    - a Python predicate whose parameters are names of pattern variables,
      called with the PyTensor variables (or prop values) they are bound to
      (``lambda a: a.type.ndim >= 1``); a true result lets the rule apply;
    - a goal over the pattern's variables: the type facts
      (``ndimo(a, 1)``, ``same_typeo(a, b)``), use facts (``single_useo(a)``),
      relations over props (:mod:`relations.patterns.props`), ``eq``.  A moded
      goal may bind variables the other side uses (``axes_througho(x, o,
      ax, ax2, o2)`` computes ``ax2`` and ``o2`` forward, ``o`` and ``ax``
      backward).

    Every variable of ``rhs`` must occur in ``lhs`` or in a ``where`` goal.
    Guards run once their variables are bound (forward: after the left
    side matched; backward: after the right side did).  Backward, every
    variable of ``lhs`` must be bound by ``rhs`` or a goal (else no left side
    can be built).  The engine never applies a result whose dtype, ndim or
    broadcastable differs from the node it replaces.

    The result ``rel(lhs_term, rhs_term)`` is a goal constructor with
    ``rel.name == rel.__name__ == name``, the patterns as ``rel.lhs`` and
    ``rel.rhs``, and the index facts of :func:`relations.rule` read off the
    patterns (root Op classes of each side, Op classes under the left root).
    ``measure`` (a :mod:`graph_bridge.measures` measure, all in
    :mod:`relations.lang`; default: the node count when ``rhs`` has fewer
    nodes) is what decreases forward; a rule whose ``rhs`` has as many
    nodes or more must state one (``ValueError`` naming the rule) or be a
    choice.  ``choice=True`` declares a rewrite that can make a graph
    costlier, as the rules of ``RULESETS["choices"]`` (a cost model decides:
    ``saturate``, ``best``, ``equivalents``); without a measure it runs in
    saturation only (``normalize`` refuses it).  ``doc`` is the relation's docstring (Before/After, measure);
    ``child_heads`` replaces the Op classes under the left root read off
    ``lhs`` (for ``p.elemwise(f, inputs=xs)``, whose inputs are a tuple);
    ``rhs_child_heads`` states Op classes one of the right root's inputs
    has (the backward index of saturation); ``heads`` and ``rhs_heads``
    narrow the Op classes read off the roots (``p.reduce(h, x)`` is any
    CAReduce; ``heads=(Sum,)`` indexes the rule at Sum nodes only).  A rule whose right side is an
    input of the left root (``x`` of ``p.dimshuffle(x, o)``) is an identity rule
    (:func:`relations.rule`'s ``identity``): saturation does not
    run it backward.

    Before/After (``rewrite_rule("neg_neg", p.neg(p.neg(a)), a)``)::

        neg(neg(x))  ->  x

    The docstring (``help(rule)``) is composed (:mod:`relations.patterns.rule_docs`):
    ``doc``, the rule's one-line summary (``rel.doc``; a longer text is kept
    whole), then ``Before::`` and ``After::`` blocks printed from ``lhs`` and
    ``rhs``, the guards, ``Measure:`` and, with ``docs`` (a page of
    ``docs/``, ``"lift.md"``), where the rule is explained under a heading
    named after it.
    """
    rhs = _checked_sides(name, lhs, rhs)
    if isinstance(where, Guard):
        where = (where,)
    relation = _relation_of(name, lhs, rhs, _where_goals(where))
    relation.doc = doc  # type: ignore[attr-defined]
    relation.name = name  # type: ignore[attr-defined]
    relation.lhs = lhs  # type: ignore[attr-defined]
    relation.rhs = rhs  # type: ignore[attr-defined]
    relation.where = tuple(where)  # type: ignore[attr-defined]
    ruled = rule(
        heads=tuple(heads) if heads is not None else _root_classes(lhs),
        rhs_heads=tuple(rhs_heads) if rhs_heads is not None else _root_classes(rhs),
        child_heads=tuple(child_heads) if child_heads is not None else _child_classes(_unnamed(lhs)),
        rhs_child_heads=rhs_child_heads,
        identity=isinstance(rhs, p.PatternVar) and any(a is rhs for a in _unnamed(lhs).args),
        measure=measure if measure is not None else default_measure(name, lhs, rhs, choice),
        choice=choice,
        reads_below_inputs=_reads_below_inputs(lhs, where),
    )(relation)
    ruled.__doc__ = rule_doc(name, lhs, rhs, tuple(where), getattr(ruled, "measure"), doc, docs)  # set by rule()
    return ruled
