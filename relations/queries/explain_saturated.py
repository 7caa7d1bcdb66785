"""``explain`` answered from an e-graph: which rule or PyTensor rewriter fired on which spelling.

With ``rewriters=`` given, :func:`explain` saturates the graph with the
rules and PyTensor's node rewriters (:mod:`relations.saturation.foreign`:
a rewriter runs on every spelling the rules put in a class), extracts the
best form under a cost that prefers numerically stable Ops (default
:func:`relations.saturation.stability.stability_key`: fewer ``exp``/``log``/
``gamma``/``erfc`` nodes first, then fewer elements), and gives the
chain of rule and rewriter applications from the input to that form
(:func:`relations.queries.proofs.prove_in`).  The steps re-check
themselves as every explanation's do: a rule's relation re-run with both
sides given, a rewriter re-run on the step's left side, and congruence
closure from the input to the result.  Without ``rewriters`` it is
:func:`relations.queries.explain.explain` (the greedy normal form).

Before/After (``explain(log(1 + sum(expand_dims(exp(x), 0))), rewriters=("stabilize",))``)::

    1. local_log1p (PyTensor rewriter)
         Log(Add(1, Sum(ExpandDims(Exp(x)))))  ->  Log1p(Sum(ExpandDims(Exp(x))))
    2. careduce_dimshuffle_fullo
         Sum(ExpandDims(Exp(x)))  ->  Sum(Exp(x))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytensor.graph.basic import Variable

from graph_bridge.traverse import owned_variables
from relations.arguments import as_variables, check_callable, check_cost_value, same_structure
from relations.queries import explain as greedy
from relations.queries.explain import Explanation, Step
from relations.queries.proofs import prove_in
from relations.queries.why_not import closest_rewriters
from relations.rules import greedy_index, rule_index
from relations.saturation.costs import variable_elements
from relations.saturation.stability import stability_key, stability_node_cost
from relations.saturation.egraph import EGraph, Limits, Report, saturate
from relations.saturation.foreign import RewriterSpec, foreign_rules

__all__ = ["SaturatedExplanation", "explain", "explain_saturated"]

#: A cost per e-node, as ``EGraph.extract`` takes it: the variable an e-node computes -> a number.
NodeCost = Callable[[Variable], float]


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
        self, graph: Any, result: Any, steps: list[Step], report: Report, before: Any, after: Any,
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
        return (
            f"unstable spellings {before[0]} -> {after[0]}, "
            f"elements touched {before[1]:g} -> {after[1]:g}"
        )
    return f"cost {before:g} -> {after:g}"


def _ranking(egraph: EGraph, cost: NodeCost | None) -> tuple[NodeCost, Callable[[Sequence[Variable]], Any]]:
    """The cost per e-node extraction minimizes, and the key candidate forms are ranked by."""
    if cost is None:
        scale = 1.0 + sum(variable_elements(n.var) for ns in egraph.classes().values() for n in ns if n.var.owner)
        return stability_node_cost(scale), stability_key

    def total(outputs: Sequence[Variable]) -> float:
        return float(sum(check_cost_value(cost(v), "cost") for v in owned_variables(outputs)))

    return cost, total


def explain_saturated(
    graph: Any,
    rules: Any = None,
    rewriters: RewriterSpec = (),
    *,
    limits: Limits | None = None,
    cost: NodeCost | None = None,
    bookkeeping: bool = False,
) -> SaturatedExplanation:
    """The e-graph explanation of :func:`explain` (``rewriters`` given); see the module docstring.

    ``graph`` is saturated forward and backward (:func:`relations.saturate`,
    ``limits`` default :class:`relations.Limits()`); the candidates are the
    input and the extracted forms (exact and greedy extraction, ``cost``
    per e-node); the one of least cost wins, the input on a tie, so the
    result is never costlier than the input.  The steps are the proof that
    joins the input's classes to the result's.
    """
    outputs, single = as_variables(graph, "graph")
    rule_index(rules)  # checks ``rules`` before any work
    foreign_rules(rewriters, "rewriters")
    if limits is not None and not isinstance(limits, Limits):
        raise TypeError(f"limits must be a relations.Limits, got {type(limits).__name__}")
    cost = check_callable(cost, "cost")
    egraph = saturate(outputs, rules, backward=True, limits=limits, rewriters=rewriters)
    per_node, key = _ranking(egraph, cost)
    candidates = [outputs]
    for method in ("auto", "greedy"):
        candidates.append(list(egraph.extract(cost=per_node, roots=outputs, method=method).result))
    keys = [key(c) for c in candidates]
    chosen = min(range(len(candidates)), key=keys.__getitem__)  # the first of least cost: the input on a tie
    result = candidates[chosen]
    steps = prove_in(egraph, outputs, result)
    if steps is None:  # an extracted form is in the input's classes by construction
        raise RuntimeError("explain: the extracted form is not in the input's classes")
    explanation = SaturatedExplanation(
        graph, same_structure(graph, single, result), steps, egraph.report, keys[0], keys[chosen],
        bookkeeping=bool(bookkeeping),
    )
    unstable = isinstance(keys[0], tuple) and keys[chosen][0] >= keys[0][0] > 0
    if rewriters and (not steps or unstable):  # nothing better, or no unstable spelling fewer
        explanation.closest = closest_rewriters(egraph, rewriters)
    return explanation


def explain(
    graph: Any,
    rules: Any = None,
    bookkeeping: bool = False,
    *,
    rewriters: RewriterSpec | None = None,
    limits: Limits | None = None,
    cost: NodeCost | None = None,
) -> Explanation:
    """Say how ``graph`` is rewritten: the rules (and PyTensor rewriters) that fired, on which sub-graphs, in order.

    Without ``rewriters`` (``None``): normalize ``graph`` as
    :func:`relations.normalize` does and record each rewrite
    (:func:`relations.queries.explain.explain`; ``limits`` and ``cost`` are
    refused).  With ``rewriters`` (PyTensor node rewriters as
    :func:`relations.saturate` takes them: ``("stabilize",)``, a
    ``NodeRewriter``, ...; ``()`` for the rules alone): answer from an
    e-graph (:func:`explain_saturated`): saturate with ``rules`` (default
    :data:`relations.DEFAULT_RULES`) and the rewriters within ``limits``,
    take the form of least ``cost`` (a cost per e-node, as
    ``EGraph.extract`` takes; default: fewest unstable spellings, then
    fewest elements, :func:`relations.saturation.stability.stability_key`),
    and give the steps from the input to it; a step a rewriter took names
    it.  Either way ``.result``, ``.steps``, ``.counts`` and ``.check()``
    are as documented on :class:`Explanation`.

    Before/After::

        explain(log(1 + exp(x)), rewriters=("stabilize",)).steps
        -> [local_log1p: Log(Add(1, Exp(x))) -> Log1p(Exp(x)),
            local_log1p_plusminus_exp: Log1p(Exp(x)) -> Softplus(x)]
    """
    if rewriters is None:
        for name, value in (("limits", limits), ("cost", cost)):
            if value is not None:
                raise ValueError(f"{name} is used only with rewriters= (the e-graph explanation); got {name}={value!r}")
        greedy_index(rules)  # refuses what normalize refuses (rules that undo one another), by name
        return greedy.explain(graph, rules, bookkeeping)
    return explain_saturated(graph, rules, rewriters, limits=limits, cost=cost, bookkeeping=bookkeeping)
