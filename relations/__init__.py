"""Relational rewrite rules for PyTensor graphs, and the calls that run them.

>>> import pytensor.tensor as pt, relations
>>> x = pt.vector("x")
>>> y = relations.normalize(pt.sum(pt.expand_dims(pt.exp(x), 0)))
>>> y.owner.inputs[0].owner.op
Exp

Importing this package registers the default rule set in PyTensor's
``optdb`` under the tag ``relational`` (off by default), and the lowering of
the toolkit's Ops (on in every mode, and inside PyTensor's ``canonicalize``,
``stabilize`` and ``specialize`` databases).  Both act only on graphs the
toolkit touched: any other graph compiles and rewrites as without this package.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import Any, NamedTuple, TypeVar

from etuples.core import ExpressionTuple
from pytensor.compile import optdb
from pytensor.compile.mode import Mode, get_default_mode, get_mode
from pytensor.graph.basic import Variable, equal_computations
from pytensor.graph.fg import FunctionGraph
from unification import unify

from graph_bridge import etuplize
from logic_core.terms import is_ground
from relations.compile.pymc_hooks import register_pymc_lowering
from graph_bridge.rebroadcast import rebroadcast_outputs
from relations.compile.registration import register_lowering, register_node_lowering, register_relational
from graph_bridge.provenance import has_toolkit_ops, mark_rewritten
from graph_bridge.traverse import owned_variables
from relations.compile.workarounds import install_merge_alloc_fix, protect, protect_in_place
from relations import patterns
from relations.arguments import (
    as_variables,
    check_callable,
    check_count,
    check_cost_value,
    check_pattern,
    check_relations,
    check_tag,
    check_timeout,
)
from relations.rules.broadcast import broadcast_shapeo
from relations.saturation import extract as extract_mod
from relations.saturation.egraph import EGraph, Limits, Report, saturate
from relations.queries.explain import Explanation, Proof, Step, explain
from relations.saturation.proofs import prove
from relations.queries.progress import Progress
from relations.patterns import Node
from relations.patterns import match as pattern_match
from relations.patterns.relation import Relation, RuleIndex, rule
from relations.rules import (
    COMPILE_RULES,
    DEFAULT_RULES,
    LOWERING_INDEX,
    LOWERING_RULES,
    RULESETS,
    rule_index,
)
from relations.compile.passes import cheapest, compile_normalize, compile_normalize_sites
from relations.saturation.costs import measured, node_costs, shape_finder
from relations.greedy.fixpoint import normalize_variables
from relations.queries.form_search import StructuralKeys
from relations.patterns.rewrite_rule import rewrite_rule
from relations.queries.verify import verify
from relations import lang

__all__ = [
    "COMPILE_RULES",
    "DEFAULT_RULES",
    "EGraph",
    "Limits",
    "Report",
    "LOWERING_RULES",
    "Found",
    "Graph",
    "Progress",
    "RULESETS",
    "__version__",
    "best",
    "Explanation",
    "Proof",
    "Step",
    "broadcast_shapeo",
    "equivalents",
    "explain",
    "find",
    "lang",
    "lower",
    "match",
    "mode",
    "normalize",
    "patterns",
    "prove",
    "rebroadcast",
    "register",
    "rewrite_rule",
    "rule",
    "saturate",
    "verify",
]

#: The package's version (the one in ``setup.cfg``).
__version__ = "0.1.0"

#: What the public calls take as ``graph``: a variable, or a list or tuple of
#: them; each call returns the same structure.
Graph = TypeVar("Graph", Variable, list[Variable], tuple[Variable, ...])
#: A rule set: relations ``rel(lhs, rhs)``, in the order they are tried.
Rules = Sequence[Relation]



def normalize(graph: Graph, rules: Rules | None = None) -> Graph:
    """Apply ``rules`` (default :data:`DEFAULT_RULES`) forward at every node until none applies.

    ``graph`` is a PyTensor variable or a list/tuple of them; the result has
    the same structure.  The input graph is not changed: rewritten nodes are
    new nodes, untouched sub-graphs are the original objects.  Each output
    keeps its dtype, ndim and broadcastable pattern.
    """
    outputs, single = as_variables(graph, "graph")
    result = normalize_variables(outputs, rule_index(rules), mark=True)
    return _same_structure(graph, single, result)


def lower(graph: Graph) -> Graph:
    """The graph with every Op the toolkit adds replaced by stock PyTensor Ops.

    This is :data:`LOWERING_RULES` run backward (right side known), at every
    node, bottom-up.  ``lower(normalize(g))`` has only stock Ops and computes
    what ``g`` computes; PyTensor's compilation runs it by itself (an
    ``optdb`` pass before ``canonicalize``), so explicit graphs compile as
    they are.  Last, :func:`relations.compile.workarounds.protect` restates bool
    ``add``/``mul`` as ``or``/``and`` and casts narrower add/mul chains, which
    PyTensor's canonicalizer and Numba's fused kernels would otherwise
    compute wrongly once a rewrite has put them next to each other.
    """
    outputs, single = as_variables(graph, "graph")
    lowered = normalize_variables(outputs, LOWERING_INDEX, backward=True)
    return _same_structure(graph, single, protect(lowered))


def equivalents(
    graph: Graph,
    limit: int | None = 20,
    depth: int = 2,
    timeout: float | None = None,
    rules: Rules | None = None,
    progress: Callable[[Progress], object] | None = None,
    *,
    limits: Limits | None = None,
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
    ``frontier``: e-nodes).

    (Until this release ``equivalents`` was a breadth-first search over
    whole-graph forms, ``depth`` its steps; that search is still
    :func:`relations.queries.form_search.equivalent_forms`.)

    Before/After (``sum(expand_dims(exp(x), 0))``)::

        Sum(ExpandDims{axis=0}(Exp(x)))  ->  Sum(Exp(x)), ...
    """
    limit = check_count(limit, "limit", allow_none=True)
    depth = check_count(depth, "depth")
    timeout = check_timeout(timeout)
    progress = check_callable(progress, "progress")
    outputs, single = as_variables(graph, "graph")
    rule_index(rules)  # checks ``rules`` before any work
    limits = _bounded(limits, depth, timeout)
    return _saturated_forms(graph, single, outputs, rules, limit, limits, progress)


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
) -> Iterator[Any]:
    if limit == 0 or limits.iterations == 0:
        return

    def report(r: Report) -> None:
        if progress is not None:
            progress(Progress(forms=0, depth=r.iterations, frontier=r.nodes, elapsed=r.seconds))

    start = time.perf_counter()
    egraph = saturate(outputs, rules, backward=True, limits=limits, progress=report)
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
    )
    for form in forms:
        if [keys.key(o) for o in form] == given:
            continue  # the input itself (equal constants are one class: perhaps not the same objects)
        yield _same_structure(graph, single, form)
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
    >>> from graph_bridge import etuplize
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


def rebroadcast(graph: Graph) -> Graph:
    """``graph`` with every explicit broadcast pattern derived again from the current input types.

    An explicit Op keeps its broadcasting when an input is replaced by one of
    the same rank (``clone_replace``; pytensor #408): replacing a static
    ``(1,)`` input by an unknown-length vector keeps the broadcast, and a
    length other than 1 is an error at run time.  ``rebroadcast`` applies the
    numpy rule to each explicit Op's inputs as they are now (align right,
    missing leading dims broadcast, static length 1 broadcasts), and rebuilds
    the nodes above it.  The input graph is not changed.

    Before/After (``x`` replaced by ``xn`` of unknown length)::

        add{*,1}(y, xn)   ->   add{*,*}(y, xn)
    """
    outputs, single = as_variables(graph, "graph")
    result = rebroadcast_outputs(outputs)
    mark_rewritten(result, outputs)
    return _same_structure(graph, single, result)


def register(rules: Rules, tag: str) -> None:
    """Put ``rules`` in PyTensor's compile pipeline under the ``optdb`` tag ``tag`` (off by default).

    ``pytensor.function(..., mode=get_default_mode().including(tag))`` (or
    ``compile_kwargs={"mode": ...}`` where a library compiles for you) then
    normalizes every compiled graph with ``rules`` at the position of the
    ``relational`` pass, before PyTensor's ``canonicalize``; the toolkit's
    Ops it builds are lowered by the lowering pass, as for ``relational``.
    ``rules`` are checked now; a ``tag`` already known to ``optdb`` (a pass's
    name or a tag) is refused.  As for ``relational``, each rewrite is its
    own replacement with the rule's name as the reason, so
    ``config.optimizer_verbose`` prints ``rewrite <rule name> replaces ...``.
    """
    rule_set = check_relations(rules, "rules")
    tag = check_tag(tag)
    if tag in optdb.__db__:
        raise ValueError(f"tag {tag!r} is already registered in optdb; choose another name")
    index = RuleIndex(rule_set)

    def normalize_with_rules(outs: Sequence[Variable], on_rewrite: Any = None) -> list[Variable]:
        return normalize_variables(list(outs), index, on_rewrite=on_rewrite, mark=True)

    register_relational(normalize_with_rules, name=tag, reports_steps=True)


def mode(*tags: str, base: str | Mode | None = None) -> Mode:
    """A compilation mode that applies the rules: ``base`` (default: PyTensor's default mode) including ``tags``.

    ``tags`` default to ``("relational",)``; each must be registered in
    ``optdb`` (``relational``, or a tag of :func:`register`): PyTensor's
    ``Mode.including`` ignores a tag it does not know, so a typo would
    compile without the rules, and here it is a ``ValueError`` naming it.
    Pass the result where a library compiles for you::

        pytensor.function(inputs, outputs, mode=relations.mode())
        pm.sample(compile_kwargs={"mode": relations.mode()})
        pm.find_MAP(model=m, compile_kwargs={"mode": relations.mode()})

    ``pytensor.config.change_flags(optimizer_including=...)`` cannot do this:
    PyTensor reads that flag only at start-up (``PYTENSOR_FLAGS``).
    """
    tags = tags or ("relational",)
    for i, tag in enumerate(tags):
        if not isinstance(tag, str):
            raise TypeError(f"tags[{i}] must be a str (an optdb tag), got {type(tag).__name__}")
        if tag not in optdb.__db__:
            raise ValueError(f"tags[{i}] = {tag!r} is not registered in optdb (relations.register adds a tag)")
    if base is None:
        start = get_default_mode()
    elif isinstance(base, (str, Mode)):
        start = get_mode(base)
    else:
        raise TypeError(f"base must be a mode name or a Mode, got {type(base).__name__}")
    return start.including(*tags)


def best(
    graph: Graph,
    cost: Callable[[list[Variable]], float] | None = None,
    depth: int = 2,
    limit: int | None = 200,
    rules: Rules | None = None,
    *,
    limits: Limits | None = None,
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
    """
    cost = check_callable(cost, "cost")
    check_count(depth, "depth")
    limit = check_count(limit, "limit", allow_none=True)
    outputs, single = as_variables(graph, "graph")
    rule_index(rules)  # checks ``rules`` before any work

    shape_of = shape_finder()  # the default cost's lengths, found once for every candidate

    def cost_fn(outs: list[Variable]) -> float:
        if cost is None:
            return measured(outs, shape_of=shape_of)
        return check_cost_value(cost(outs), "cost")

    egraph = saturate(outputs, rules, backward=True, limits=limits)
    per_node = node_costs(shape_of=shape_of) if cost is None else None
    candidates: list[Any] = [normalize(graph, rules), egraph.extract(cost=per_node, roots=outputs).result]
    if cost is not None and limit:
        candidates.extend(egraph.forms(limit=limit, roots=outputs))
    best_form, best_cost = graph, cost_fn(outputs)
    for form in candidates:
        outs = [form] if isinstance(form, Variable) else list(form)
        c = cost_fn(outs)
        if c < best_cost:
            best_form, best_cost = _same_structure(graph, single, outs), c
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


def _same_structure(graph: Any, single: bool, result: list[Variable]) -> Any:
    if single:
        return result[0]
    return type(graph)(result) if isinstance(graph, tuple) else result


# ``relational``: the greedy normal form, then saturation with the choices and extraction under the
# measured cost (relations.compile.passes); ``relational_normalize``: the greedy normal form only
register_relational(compile_normalize, reports_steps=True, refine_fn=cheapest, sites_fn=compile_normalize_sites)
register_relational(
    compile_normalize, name="relational_normalize", reports_steps=True, sites_fn=compile_normalize_sites
)
def _protect_compiled(fgraph: FunctionGraph) -> bool:
    """The lowering pass on an fgraph without a toolkit Op (the graphs of the ``relational`` pass):
    only :func:`lower`'s restatements, node by node (no rebuild, no backward normalize)."""
    if has_toolkit_ops(fgraph.apply_nodes):
        return False
    protect_in_place(fgraph)
    return True


register_lowering(lambda outs: lower(list(outs)), in_place=_protect_compiled)
install_merge_alloc_fix()
register_pymc_lowering(register_node_lowering(lambda outs: lower(list(outs))))
