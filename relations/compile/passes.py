"""The compile-time passes: ``relational`` (saturation and extraction) and ``relational_normalize`` (greedy).

``relational_normalize`` applies :data:`COMPILE_RULES` greedily
(``normalize``).  ``relational`` starts from that normal form and, where a
rule of ``RULESETS["choices"]`` matches (rewrites that can make a graph
costlier), saturates it with :data:`SATURATION_RULES` forward within
:data:`COMPILE_LIMITS` and compiles the form extracted under
:func:`relations.saturation.costs.measured` -- or the normal form, if the extracted one
is not predicted cheaper (so the pass is never costlier than the greedy one
under the cost).  The normal form itself replaces the graph only where one
of its rewrites is predicted to pay :data:`MIN_GAIN` (:func:`cheapest`);
else the graph is left as it came.  Where no choice rule matches, nothing
is saturated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pytensor import config
from pytensor.graph.basic import Variable

from graph_bridge.context import GraphContext, graph_context
from graph_bridge.traverse import owned_variables
from relations.compile.site_replacements import site_replacements
from relations.greedy.fixpoint import first_rewrite, normalize_variables, normalizer_run
from relations.patterns.relation import RuleIndex
from relations.rules import COMPILE_INDEX, COMPILE_RULES, RULESETS
from relations.saturation.costs import measured, node_costs, shape_finder
from relations.saturation.egraph import EGraph, Limits

__all__ = [
    "COMPILE_LIMITS",
    "MIN_GAIN",
    "SATURATION_RULES",
    "ReadCounts",
    "cheapest",
    "choice_matches",
    "compile_normalize",
    "compile_normalize_sites",
    "has_choice",
    "site_gains",
    "rewrite_gain",
    "worth_saturating",
]

#: The rules the ``relational`` pass saturates with: the compile rules and the choices.
SATURATION_RULES: tuple = COMPILE_RULES + tuple(RULESETS["choices"])
#: Bounds of the compile-time saturation: a choice and what the compile rules
#: make of it take one or two rounds; the bounds keep the pass's own time a
#: small share of compiling (PyTensor's rewrites and Numba's code generation).
COMPILE_LIMITS = Limits(nodes=6_000, iterations=4, seconds=0.08)

#: Predicted seconds per call a choice must be able to save for the pass to saturate: below it
#: the gain is within the noise of a call (a PyMC logp + dlogp takes 5-50 us) and not worth
#: the compile time.
MIN_GAIN = 2e-7

_CHOICES_INDEX = RuleIndex(RULESETS["choices"])


def compile_normalize(outs: Sequence[Variable], on_rewrite: Any = None) -> list[Variable]:
    """What ``relational_normalize`` applies (and ``relational`` starts from).

    That is ``normalize`` with :data:`COMPILE_RULES`.
    """
    return normalize_variables(list(outs), COMPILE_INDEX, on_rewrite=on_rewrite, mark=True)


def compile_normalize_sites(outs: Sequence[Variable]) -> tuple[list[Variable], list[tuple[Variable, Variable]]]:
    """:func:`compile_normalize`, and the replacements that take the graph to it where rules rewrote it
    (:func:`relations.compile.site_replacements.site_replacements`: what the passes replace, instead of the outputs)."""
    outs = list(outs)
    normal, norm = normalizer_run(outs, COMPILE_INDEX, mark=True)
    return normal, site_replacements(outs, norm.memo, norm.copies)


def choice_matches(
    outputs: Sequence[Variable], variables: Sequence[Variable] | None = None
) -> list[tuple[Variable, Variable]]:
    """Each node of ``outputs`` a rule of ``RULESETS["choices"]`` rewrites, with its first rewrite
    (judged as the e-graph does: no use guards).  ``variables``: ``owned_variables(outputs)``, if
    the caller has them."""
    found = []
    with config.change_flags(traceback__limit=0), graph_context(GraphContext()):
        for v in owned_variables(outputs) if variables is None else variables:
            rules = _CHOICES_INDEX.forward_for(v.owner)
            if rules:
                rewritten = first_rewrite(v, rules)
                if rewritten is not None:
                    found.append((v, rewritten[0]))
    return found


def has_choice(outputs: Sequence[Variable]) -> bool:
    """Whether a rule of ``RULESETS["choices"]`` rewrites some node of ``outputs``."""
    return bool(choice_matches(outputs))


class ReadCounts:
    """A graph's variables and how often each is read (a node's input, or a returned output)."""

    def __init__(self, outputs: Sequence[Variable]) -> None:
        self.variables = owned_variables(outputs)
        self.known = set(self.variables)
        self.reads: dict[Variable, int] = {}
        for v in outputs:
            self.reads[v] = self.reads.get(v, 0) + 1
        for node in dict.fromkeys(v.owner for v in self.variables):
            for i in node.inputs:
                self.reads[i] = self.reads.get(i, 0) + 1


def rewrite_gain(graph: ReadCounts, v: Variable, new: Variable, cost: Any) -> float:
    """Predicted seconds replacing ``v`` by ``new`` saves, at most: the nodes only ``v`` reads (and ``v``'s),
    that ``new`` does not read, less ``new``'s nodes the graph does not hold (``cost`` per e-node)."""
    kept, added, stack = set(), [], [new]
    while stack:
        u = stack.pop()
        if u in kept or u.owner is None:
            continue
        kept.add(u)
        if u not in graph.known:
            added.append(u)
            stack.extend(u.owner.inputs)
    gain = -sum(cost(u) for u in added)
    left = {v: 0}  # reads left of each variable once ``v`` is replaced (default: all of them)
    freed: set[Any] = set()
    stack = [v]
    while stack:
        u = stack.pop()
        node = u.owner
        if u in kept or node is None or node in freed:
            continue
        if any(left.get(o, graph.reads.get(o, 0)) > 0 for o in node.outputs):
            continue
        freed.add(node)
        gain += cost(node.outputs[0])
        for i in node.inputs:
            left[i] = left.get(i, graph.reads.get(i, 0)) - 1
            stack.append(i)
    return gain


def worth_saturating(outputs: Sequence[Variable], shape_of: Any) -> bool:
    """Whether some choice could save :data:`MIN_GAIN` seconds per call (:func:`rewrite_gain`)."""
    graph = ReadCounts(outputs)
    matches = choice_matches(outputs, graph.variables)
    if not matches:
        return False
    cost = node_costs(shape_of=shape_of)
    return any(rewrite_gain(graph, v, new, cost) > MIN_GAIN for v, new in matches)


def cheapest(
    original: Sequence[Variable],
    normal: Sequence[Variable],
    sites: Sequence[tuple[Variable, Variable]] | None = None,
) -> list[Variable]:
    """The outputs the ``relational`` pass compiles: ``original``, ``normal``, or the form extracted
    from ``normal``'s saturation, whichever the measured cost prefers.

    The normal form replaces the graph where one of its rewrites is
    predicted to save :data:`MIN_GAIN` per call and all of them together
    cost nothing (:func:`site_gains`; ``sites``, the pairs that take
    ``original`` to ``normal`` (:func:`compile_normalize_sites`), make it
    cheaper to judge).  Elsewhere the graph is left as it came, and
    PyTensor compiles what it would have compiled: a Sum of a Join of two
    short vectors costs more as two Sums and an Add, and the DimShuffles
    the normal form removes from PyMC's graphs are views PyTensor removes
    itself, while replacing them made PyTensor's rewrites up to 1.07x as
    long (``benchmarks/models.py --tag relational_normalize``).
    Nothing is saturated unless some choice could pay
    (:func:`worth_saturating`); an extracted form replaces the graph only if
    :func:`relations.saturation.costs.measured` predicts it cheaper.  Its new nodes
    take the trace of a variable of their e-class in the normal form.
    """
    original, normal = list(original), list(normal)
    shape_of = shape_finder()  # one memo of lengths for every cost below
    with config.change_flags(traceback__limit=0):  # the shape graphs it infers need no stack trace
        gains = site_gains(original, normal, node_costs(shape_of=shape_of), sites)
        kept = normal if gains and max(gains) >= MIN_GAIN and math.fsum(gains) >= 0 else original
        if not worth_saturating(normal, shape_of):
            return kept
    egraph = EGraph(SATURATION_RULES)
    egraph.add(normal)
    egraph.run(COMPILE_LIMITS, backward=False)
    with config.change_flags(traceback__limit=0):  # the new nodes take the traces of their classes
        found = list(egraph.extract(cost=node_costs(shape_of=shape_of), roots=normal, method="greedy").result)
        if all(a is b for a, b in zip(found, normal)):
            return kept
        if not measured(found, shape_of=shape_of) < measured(kept, shape_of=shape_of):
            return kept
    _copy_traces(egraph, normal, found)
    return found


def site_gains(
    original: Sequence[Variable],
    normal: Sequence[Variable],
    cost: Any,
    sites: Sequence[tuple[Variable, Variable]] | None = None,
) -> list[float]:
    """Predicted seconds per call each rewrite of ``normal`` saves over ``original`` (``cost`` per
    e-node, :func:`relations.saturation.costs.node_costs`): :func:`rewrite_gain` of each site.

    Without ``sites``, each changed output is a site: the normal form
    rebuilds the path above each rewrite, and a rebuilt node (the same Op
    over inputs of the same shapes) costs what the node it copies does, so
    the sum is the same, only slower to find.
    """
    graph = ReadCounts(original)
    if sites is None:
        sites = [(o, n) for o, n in zip(original, normal) if o is not n]
    return [rewrite_gain(graph, old, new, cost) for old, new in sites]


def _copy_traces(egraph: EGraph, normal: list[Variable], found: list[Variable]) -> None:
    """Give each new variable of ``found`` the stack trace of a variable of ``normal`` in its e-class
    (in a class of new terms only, the trace of a node reading it)."""
    old = owned_variables(normal)
    known = set(old)
    new = [v for v in owned_variables(found) if v not in known]
    if not new:
        return
    terms = {v: egraph.term(v) for v in new}  # added: congruence puts each in its class
    egraph.rebuild()
    traces: dict[int, Any] = {}
    for v in old:
        trace = getattr(v.tag, "trace", None)
        if trace:
            traces.setdefault(egraph.find(egraph.term(v)), trace)
    inherited: dict[Variable, Any] = {}
    for v in new:  # readers first (breadth first from the outputs): a class of new terms only
        trace = traces.get(egraph.find(terms[v])) or inherited.get(v)  # takes its reader's trace
        if not trace:
            continue
        v.tag.trace = trace  # (the one it got when it was built names the toolkit's frames)
        for i in v.owner.inputs:
            if i in terms:
                inherited.setdefault(i, trace)
