"""The reverse queries: every equal form (``equivalents``), a pattern modulo the rules (``match``),
a pattern at any node (``find``), the cheapest form (``best``); all answered from one e-graph.

Before/After (``equivalents`` of ``sum(expand_dims(exp(x), 0))``)::

    Sum(ExpandDims{axis=0}(Exp(x)))  ->  Sum(Exp(x)), ...
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import Any, NamedTuple, TypeVar

from etuples.core import ExpressionTuple
from pytensor.graph.basic import Variable, equal_computations
from unification import unify

from graph_bridge import etuplize, graph_context
from graph_bridge.structural_keys import StructuralKeys
from graph_bridge.traverse import owned_variables
from logic_core.term_kinds import is_ground
from relations.arguments import (
    as_variables,
    check_callable,
    check_cost_value,
    check_count,
    check_pattern,
    check_timeout,
    same_structure,
)
from relations.greedy.fixpoint import normalize_variables
from relations.patterns import Named, Node
from relations.patterns import match as pattern_match
from relations.patterns.compiler import side_match
from relations.patterns.nodes import CompiledNode
from relations.patterns.relation import Relation
from relations.queries.progress import Progress
from relations.rules import greedy_part, rule_index
from relations.saturation import extract as extract_mod
from relations.saturation.costs import measured, node_costs, shape_finder
from relations.saturation.egraph import Limits, Report, saturate
from relations.saturation.foreign import RewriterSpec, foreign_rules

__all__ = ["Found", "best", "equivalents", "find", "match"]

#: What the public calls take as ``graph``: a variable, or a list or tuple of them.
Graph = TypeVar("Graph", Variable, list[Variable], tuple[Variable, ...])
#: A rule set: relations ``rel(lhs, rhs)``, in the order they are tried.
Rules = Sequence[Relation]


def equivalents(
    graph: Graph,
    limit: int | None = 20,
    depth: int = 2,
    timeout: float | None = None,
    rules: Rules | None = None,
    progress: Callable[[Progress], object] | None = None,
    *,
    limits: Limits | None = None,
    rewriters: RewriterSpec = (),
) -> Iterator[Graph]:
    """Graphs equal to ``graph`` that the rules relate to it, lazily, cheapest first.

    The forms come from one e-graph: ``graph`` is saturated
    (:func:`saturate`, the relations of ``rules``, default
    :data:`DEFAULT_RULES`, forward and backward) and :meth:`EGraph.forms`
    gives its forms, cheapest first (by tree cost,
    :func:`relations.saturation.costs.elements_touched` per node).  The e-graph holds
    every combination of the forms found at independent sites: ``k`` sites
    with ``n_1 .. n_k`` forms give at least ``n_1 x .. x n_k`` forms; and
    lifts through shared sub-graphs (sharing guards decide profit, not
    validity, so they are off in the e-graph).

    Bounds: ``depth`` is the number of saturation iterations (one
    iteration runs every rule at every e-node, forward and backward, so
    all independent sites step at once; a run saturates forward first, then
    adds the backward steps, and ``depth`` bounds each phase; ``depth=0``
    gives nothing),
    ``timeout`` bounds the seconds of saturation and listing together, and
    ``limits`` (a :class:`Limits`,
    default ``Limits(nodes=20_000, iterations=depth, seconds=timeout,
    growth=None)``: ``depth`` bounds the backward steps, not ``growth``)
    its e-nodes too; given both, the smaller bound holds.  ``limit``
    (``None``: no limit) bounds the forms yielded.  The listing builds at
    most :data:`relations.saturation.extract.MAX_FORM_NODES` sub-forms (a
    bound on its memory, about 250 MB), then ends.  Without ``timeout`` and
    a ``limits.seconds`` the order is deterministic.

    Every yielded graph is distinct from the input and from each earlier
    one (structurally), has the input's structure (a variable or a list),
    the same output types and the same values.  The arguments are checked
    when ``equivalents`` is called (not at the first ``next``).
    ``progress`` (if given) is called after each iteration with a
    :class:`relations.Progress` (``depth``: iterations so far,
    ``frontier``: e-nodes).  ``rewriters``: PyTensor node rewriters run in
    the e-graph too (optdb names such as ``"stabilize"``, ``NodeRewriter`` s;
    see :func:`relations.saturate`).

    (Until this release ``equivalents`` was a breadth-first search over
    whole-graph forms, ``depth`` its steps; that search is still
    ``equivalent_forms`` of ``tests/form_search.py``.)

    Before/After (``sum(expand_dims(exp(x), 0))``)::

        Sum(ExpandDims{axis=0}(Exp(x)))  ->  Sum(Exp(x)), ...
    """
    limit = check_count(limit, "limit", allow_none=True)
    depth = check_count(depth, "depth")
    timeout = check_timeout(timeout)
    progress = check_callable(progress, "progress")
    outputs, single = as_variables(graph, "graph")
    rule_index(rules)  # checks ``rules`` before any work
    foreign_rules(rewriters, "rewriters")  # and ``rewriters`` (kept: the e-graph finds them again)
    limits = _bounded(limits, depth, timeout)
    return _saturated_forms(graph, single, outputs, rules, limit, limits, progress, rewriters)


def _bounded(limits: Any, depth: int, timeout: float | None) -> Limits:
    """``limits`` (checked; default ``Limits()``'s e-nodes, no other bound) with ``depth`` as a bound on
    iterations and ``timeout`` on seconds."""
    if limits is None:
        return Limits(nodes=Limits().nodes, iterations=depth, seconds=timeout, growth=None)
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a relations.Limits, got {type(limits).__name__}")
    its = depth if limits.iterations is None else min(depth, limits.iterations)
    secs = limits.seconds if timeout is None else min(timeout, limits.seconds or timeout)
    return Limits(nodes=limits.nodes, iterations=its, seconds=secs, growth=limits.growth)


def _saturated_forms(
    graph: Any,
    single: bool,
    outputs: list[Variable],
    rules: Rules | None,
    limit: int | None,
    limits: Limits,
    progress: Callable[[Progress], object] | None,
    rewriters: RewriterSpec = (),
) -> Iterator[Any]:
    if limit == 0 or limits.iterations == 0:
        return

    def report(r: Report) -> None:
        if progress is not None:
            progress(Progress(forms=0, depth=r.iterations, frontier=r.nodes, elapsed=r.seconds))

    start = time.perf_counter()
    egraph = saturate(outputs, rules, backward=True, limits=limits, progress=report, rewriters=rewriters)
    seconds = None
    if limits.seconds is not None:  # the timeout bounds the listing too
        seconds = limits.seconds - (time.perf_counter() - start)
        if seconds <= 0:
            return
    keys = StructuralKeys()
    given = [keys.key(o) for o in outputs]
    produced = 0
    forms = egraph.forms(
        limit=None if limit is None else limit + 1, roots=outputs, seconds=seconds, nodes=extract_mod.MAX_FORM_NODES
    )  # the bound read now: relations.saturation.extract.MAX_FORM_NODES is the documented default to set
    for form in forms:
        if [keys.key(o) for o in form] == given:
            continue  # the input itself (equal constants are one class: perhaps not the same objects)
        yield same_structure(graph, single, form)
        produced += 1
        if limit is not None and produced >= limit:
            return


def match(
    graph: Variable,
    pattern: Any,
    depth: int = 2,
    limit: int | None = 100,
    rules: Rules | None = None,
    *,
    limits: Limits | None = None,
) -> Iterator[dict[Any, Any]]:
    """Substitutions under which ``pattern`` unifies with ``graph`` or an equivalent form.

    ``pattern`` is an etuple with logic variables (``etuplize(pt.add)`` as the
    head, ``unification.var()`` in the slots), as kanren users write them.
    ``graph`` itself is tried first, then the forms of :func:`equivalents`
    (one e-graph: ``depth`` iterations of saturation, ``limit`` forms,
    ``limits``).  Each answer maps the pattern's logic variables to PyTensor
    variables (sub-terms are reified); equal answers are given once.  This is
    unification modulo the rules, at the graph's root; :func:`find` looks
    for a pattern at every node.  ``pattern`` may also be a
    :mod:`relations.patterns` pattern (``p.exp(p.var("a"))``); its answers
    map the pattern's variables.  The arguments are checked when ``match``
    is called.
    """
    if not isinstance(graph, Variable):
        raise TypeError(f"graph must be a PyTensor Variable, got {type(graph).__name__}")
    check_pattern(pattern)
    depth = check_count(depth, "depth")
    limit = check_count(limit, "limit", allow_none=True)
    forms = chain([graph], equivalents(graph, limit=limit, depth=depth, rules=rules, limits=limits))
    return _match(forms, pattern)


def _bindings(pattern: Any, v: Variable) -> dict[Any, Any] | None:
    """What ``pattern`` (an etuple or a ``relations.patterns`` pattern) binds when it matches ``v``."""
    if isinstance(pattern, (CompiledNode, Named)):
        with graph_context([v]):
            found = next(side_match(pattern, etuplize(v)), None)
        return None if found is None else {k: _evaluated(b) for k, b in found.items()}
    s = pattern_match(pattern, v) if isinstance(pattern, Node) else unify(pattern, etuplize(v), {})
    if s is False or s is None:
        return None
    return {k: _evaluated(b) for k, b in s.items()}


def _match(forms: Iterator[Variable], pattern: Any) -> Iterator[dict[Any, Any]]:
    seen: list[dict] = []
    for form in forms:
        answer = _bindings(pattern, form)
        if answer is None:
            continue
        if any(_same_answer(answer, earlier) for earlier in seen):
            continue
        seen.append(answer)
        yield answer


class Found(NamedTuple):
    """One answer of :func:`find`: the node's output variable and the pattern's bindings."""

    variable: Variable
    bindings: dict[Any, Any]


def find(graph: Graph, pattern: Any) -> Iterator[Found]:
    """Every node of ``graph`` whose term unifies with ``pattern``, lazily.

    Nodes are visited breadth first from the outputs (each once, shared
    sub-graphs once); for each node whose term unifies with ``pattern``
    (an etuple with logic variables or a ``relations.patterns`` pattern, as
    for :func:`match`), a
    :class:`Found` ``(variable, bindings)`` is yielded, the bindings mapping
    the pattern's logic variables to PyTensor variables.  This is plain
    unification at each node; to match modulo the rules, call :func:`match`
    on the variable, or ``find`` in a normalized graph.  The arguments are
    checked when ``find`` is called.

    >>> import pytensor.tensor as pt
    >>> from unification import var
    >>> from graph_bridge import etuplize, graph_context
    >>> x = pt.vector("x")
    >>> a = var()
    >>> [f.bindings[a].name for f in find(pt.sum(pt.exp(x)) + 1, etuplize(pt.exp)(a))]
    ['x']
    """
    outputs, _ = as_variables(graph, "graph")
    check_pattern(pattern)
    return _find(outputs, pattern)


def _find(outputs: list[Variable], pattern: Any) -> Iterator[Found]:
    for v in owned_variables(outputs):
        found = _bindings(pattern, v)
        if found is not None:
            yield Found(v, found)


def best(
    graph: Graph,
    cost: Callable[[list[Variable]], float] | None = None,
    depth: int = 2,
    limit: int | None = 200,
    rules: Rules | None = None,
    *,
    limits: Limits | None = None,
    rewriters: RewriterSpec = (),
) -> Graph:
    """The cheapest form of ``graph`` under ``cost``: saturation, then extraction.

    ``graph`` is saturated (:func:`saturate`, forward and backward, within
    ``limits``, default :class:`Limits()`), and the e-graph's cheapest form
    is extracted (:meth:`EGraph.extract`, DAG-aware: a shared sub-graph is
    paid once).  The default ``cost``, :func:`relations.saturation.costs.measured`,
    predicts the seconds of one compiled call from the shipped table
    (lengths from static shapes, constants' and shared values, else 16);
    extraction minimizes its per e-node form
    (:func:`relations.saturation.costs.node_costs`) exactly where the e-graph is small
    enough, and the candidates are ranked by it.  ``cost=relations.saturation.costs.elements_touched``
    counts the elements every node writes instead.  A ``cost`` of your own takes a list of output variables
    and returns a number: the extracted form and up to ``limit`` more forms
    of the e-graph (:meth:`EGraph.forms`) are ranked by it.  The input and
    its normal form (:func:`normalize`) are candidates too, so the result
    is never costlier than either; ties keep the input, then the normal
    form.  ``cost`` must return a real number (an int, a float or a numpy
    scalar, not a bool or NaN); anything else is a ``TypeError``/``ValueError``
    naming ``cost``.  ``depth`` is checked and kept for the signature's sake.
    ``rewriters``: PyTensor node rewriters run in the e-graph too
    (``rewriters=("stabilize",)``: ``log(1 + exp(x))`` has ``softplus(x)``
    in its class; see :func:`relations.saturate`).
    """
    cost = check_callable(cost, "cost")
    check_count(depth, "depth")
    limit = check_count(limit, "limit", allow_none=True)
    outputs, single = as_variables(graph, "graph")
    rule_index(rules)  # checks ``rules`` before any work
    foreign_rules(rewriters, "rewriters")

    shape_of = shape_finder()  # the default cost's lengths, found once for every candidate

    def cost_fn(outs: list[Variable]) -> float:
        if cost is None:
            return measured(outs, shape_of=shape_of)
        return check_cost_value(cost(outs), "cost")

    egraph = saturate(outputs, rules, backward=True, limits=limits, rewriters=rewriters)
    per_node = node_costs(shape_of=shape_of) if cost is None else None
    normal = normalize_variables(outputs, rule_index(greedy_part(rules)), mark=True)
    candidates: list[Any] = [normal, egraph.extract(cost=per_node, roots=outputs).result]
    if cost is not None and limit:
        candidates.extend(egraph.forms(limit=limit, roots=outputs))
    best_form, best_cost = graph, cost_fn(outputs)
    for form in candidates:
        outs = [form] if isinstance(form, Variable) else list(form)
        c = cost_fn(outs)
        if c < best_cost:
            best_form, best_cost = same_structure(graph, single, outs), c
    return best_form


def _evaluated(v: Any) -> Any:
    """A bound value as a PyTensor object: sub-terms become variables (or Ops)."""
    if isinstance(v, ExpressionTuple) and is_ground(v):
        return v.evaled_obj
    return v


def _same_answer(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for k in a:
        x, y = a[k], b[k]
        if x is y:
            continue
        if isinstance(x, Variable) and isinstance(y, Variable):
            if not equal_computations([x], [y]):
                return False
        elif x != y:
            return False
    return True

