"""``explain``: which rules (and PyTensor rewriters) fired on which sub-graphs, as re-checkable steps.

Without ``rewriters=`` :func:`explain` is :func:`explain_normal_form`: the
greedy normal form (:func:`relations.normalize`), each rewrite recorded.
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
closure from the input to the result (:mod:`relations.queries.explanations`
holds the records: :class:`Step`, :class:`Explanation`, :class:`SaturatedExplanation`).

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
from relations.greedy.fixpoint import normalize_variables
from relations.patterns.relation import Relation, RuleIndex
from relations.queries.explanations import Explanation, SaturatedExplanation, Step
from relations.queries.proofs import prove_in
from relations.queries.why_not import closest_rewriters
from relations.rules import greedy_index, rule_index
from relations.saturation.costs import type_elements
from relations.saturation.egraph import EGraph, Limits, saturate
from relations.saturation.foreign import RewriterSpec, foreign_rules
from relations.saturation.stability import stability_key, stability_node_cost

__all__ = ["explain", "explain_normal_form", "explain_saturated"]

#: A cost per e-node, as ``EGraph.extract`` takes it: the variable an e-node computes -> a number.
NodeCost = Callable[[Variable], float]


def _explained(outputs: list[Variable], index: RuleIndex) -> tuple[list[Variable], list[Step]]:
    steps: list[Step] = []
    context = tuple(outputs)

    def record(rel: Relation, before: Variable, after: Variable) -> None:
        steps.append(Step(_name(rel), rel, before, after, "forward", context))

    return normalize_variables(outputs, index, on_rewrite=record), steps


def _name(rel: Any) -> str:
    return getattr(rel, "__name__", repr(rel))


def explain_normal_form(graph: Any, rules: Any = None, bookkeeping: bool = False) -> Explanation:
    """Normalize ``graph`` and say how: the rules that fired, on which sub-graphs, in order.

    ``.result`` is what ``normalize(graph, rules)`` returns (same structure);
    ``.steps`` are :class:`Step` s (``.rule``, ``.before``, ``.after``);
    ``.check()`` re-runs every step's relation with both sides given
    (``.check(values=True)`` also evaluates each step on random inputs);
    ``.counts`` are the steps per rule.  ``str()`` folds the bookkeeping
    steps (explicit broadcasting) unless ``bookkeeping`` is true.
    ``normalize`` itself records nothing and is not slowed down.

    ``relations.explain`` is this without ``rewriters=``; with them it
    answers from an e-graph (:func:`explain_saturated`).

    Before/After::

        explain(sum(expand_dims(exp(x), 0))).steps
        -> [careduce_dimshuffle_fullo: Sum(ExpandDims(Exp(x))) -> Sum(Exp(x))]
    """
    outputs, single = as_variables(graph, "graph")
    result, steps = _explained(outputs, rule_index(rules))
    return Explanation(graph, same_structure(graph, single, result), steps, bookkeeping=bool(bookkeeping))


def _ranking(egraph: EGraph, cost: NodeCost | None) -> tuple[NodeCost, Callable[[Sequence[Variable]], Any]]:
    """The cost per e-node extraction minimizes, and the key candidate forms are ranked by."""
    if cost is None:
        scale = 1.0 + sum(type_elements(n.type) for ns in egraph.classes().values() for n in ns if not n.is_leaf)
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
    (:func:`explain_normal_form`; ``limits`` and ``cost`` are
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
        return explain_normal_form(graph, rules, bookkeeping)
    return explain_saturated(graph, rules, rewriters, limits=limits, cost=cost, bookkeeping=bookkeeping)
