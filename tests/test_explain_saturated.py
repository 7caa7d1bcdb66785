"""``relations.explain(graph, rewriters=...)``: the best form from an e-graph, and the steps to it.

With ``rewriters`` the answer comes from an e-graph saturated with the rules
and PyTensor's node rewriters, the form of fewest unstable spellings
(``exp``/``log``/``gamma``/``erfc``), then fewest elements; each step names
the rule or rewriter that took it and on which spelling (pytensor #1476,
#2328: a stock rewrite that fires on one spelling only).
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import equal_computations
from pytensor.scalar import Log1p, Softplus
from pytensor.tensor.basic import Alloc

import relations
from helpers import assert_same_types, check_rewrite, snapshot
from relations import Explanation, SaturatedExplanation
from relations.queries.explain import explain_normal_form
from relations.queries.explanations import Step, follows, is_bookkeeping
from relations.saturation.costs import variable_elements
from relations.saturation.egraph import EGraph
from relations.saturation.foreign import ForeignRewriter
from relations.saturation.stability import instability, stability_key, stability_node_cost, unstable

FAST = "FAST_COMPILE"  # no stabilize pass: the input's own spelling is what runs


def _scalar_op(v):
    return getattr(v.owner.op, "scalar_op", None)


def _log1p_of_sum(dtype: str = "float64"):
    x = pt.vector("x", dtype=dtype)
    return x, pt.log(1 + pt.sum(pt.expand_dims(pt.exp(x), 0)))


def test_a_stock_rewriter_fires_on_the_spelling_a_rule_relates():
    x, g = _log1p_of_sum()
    before = snapshot(g)
    e = relations.explain(g, rewriters=("stabilize",))
    assert isinstance(e, SaturatedExplanation)
    assert [s.rule for s in e.steps] == ["local_log1p", "careduce_dimshuffle_fullo"]
    first = e.steps[0]
    assert isinstance(first.relation, ForeignRewriter)
    # local_log1p matched log(1 + sum(expand_dims(...))): the spelling as given, before the rule ran
    assert isinstance(_scalar_op(first.before), pytensor.scalar.Log)
    assert isinstance(_scalar_op(first.after), Log1p)
    r = e.result
    assert isinstance(_scalar_op(r), Log1p)
    assert equal_computations([r.owner.inputs[0]], [pt.sum(pt.exp(x))])
    assert (e.before, e.after) == (stability_key([g]), stability_key([r]))
    assert e.before[0] == 2 and e.after[0] == 1
    assert snapshot(g) == before  # the input graph is not changed
    check_rewrite(g, r, {x: [(3,), (0,), (1,)]})


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_result_is_accurate_where_the_input_overflows(dtype):
    x = pt.vector("x", dtype=dtype)
    g = pt.log(1 + pt.exp(x))
    e = relations.explain(g, rewriters=("stabilize",))
    assert [s.rule for s in e.steps][-2:] == ["local_log1p", "local_log1p_plusminus_exp"]
    assert isinstance(_scalar_op(e.result), Softplus)
    assert_same_types(g, e.result)
    values = np.array([-800.0, -30.0, 0.0, 1e-8, 30.0, 80.0, 800.0], dtype=dtype)
    exact = np.maximum(values.astype("float64"), 0) + np.log1p(np.exp(-np.abs(values.astype("float64"))))
    got = pytensor.function([x], e.result, mode=FAST)(values)
    stock = pytensor.function([x], g, mode=FAST)(values)
    rtol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got, exact, rtol=rtol, atol=0)
    assert not np.isfinite(stock[-1])  # the input's spelling overflows at 800
    check_rewrite(g, e.result, {x: [(4,), (0,), (1,)]})


def test_a_broadcast_between_the_log_and_the_exp():
    s = pt.scalar("s")
    g = pt.log(1 + pt.alloc(pt.exp(s), 3))
    e = relations.explain(g, rewriters=("stabilize",))
    assert e.counts == {"elemwise_alloco": 2, "local_log1p": 1, "local_log1p_plusminus_exp": 1}
    r = e.result
    assert isinstance(r.owner.op, Alloc) and isinstance(_scalar_op(r.owner.inputs[0]), Softplus)
    assert e.check()
    got = pytensor.function([s], r, mode=FAST)(np.float64(800.0))
    np.testing.assert_allclose(got, np.full(3, 800.0), rtol=1e-12)
    check_rewrite(g, r, {s: [(), (), ()]})


def test_printing_names_the_rewriter_and_the_costs():
    _, g = _log1p_of_sum()
    e = relations.explain(g, rewriters=("stabilize",))
    text = str(e)
    lines = text.splitlines()
    assert lines[0].startswith("from an e-graph: ")
    assert "PyTensor rewriters that joined classes: " in lines[0] and "local_log1p x1" in lines[0]
    assert lines[1] == "unstable spellings 2 -> 1, elements touched 35 -> 18"
    assert lines[2] == "2 steps: local_log1p x1, careduce_dimshuffle_fullo x1"
    assert "1. local_log1p (PyTensor rewriter)" in text
    assert "2. careduce_dimshuffle_fullo\n" in text  # a rule's step is not labelled a rewriter's
    assert text.count("Before:") == 2 and "Log1p" in text
    assert repr(e) == "SaturatedExplanation(2 steps, cost (2, 35.0) -> (1, 18.0))"


def test_check_rechecks_every_step_and_the_chain():
    _, g = _log1p_of_sum()
    e = relations.explain(g, rewriters=("stabilize",))
    assert all(s.holds() for s in e.steps)
    assert e.check() and e.check(values=True)
    assert follows(g, e.steps, e.result)
    assert not Explanation(g, e.result, e.steps[1:]).check()  # a step left out
    rewriter_step = e.steps[0]
    wrong = Step(rewriter_step.rule, rewriter_step.relation, rewriter_step.before, pt.log(rewriter_step.before))
    assert not wrong.holds()  # re-running local_log1p does not give that right side
    assert not Explanation(g, e.result, [wrong, *e.steps[1:]]).check()


def test_nothing_better_leaves_the_input():
    x = pt.vector("x")
    g = pt.sqrt(x) * pt.tanh(x)
    e = relations.explain(g, rewriters=("stabilize",))
    assert e.steps == [] and e.result is g
    assert e.before == e.after and e.check()
    lines = str(e).splitlines()
    assert "no form is better under the cost: the result is the input" in lines
    # then the rewriters that came closest, each with what it lacked (relations.why_not)
    after = lines[lines.index("no form is better under the cost: the result is the input") + 1:]
    assert all(line.startswith(("closest: ", "  ")) for line in after), after


def test_rules_alone_and_the_structure_of_the_graph():
    x = pt.vector("x")
    a = pt.sum(pt.expand_dims(pt.exp(x), 0))
    b = pt.log(1 + pt.exp(x))
    e = relations.explain([a, b], rewriters=())  # no PyTensor rewriter: the rules only
    assert isinstance(e.result, list) and len(e.result) == 2
    # the explicit-broadcast step (1 + exp(x) as add{1,*}: no ExpandDims of the 1) is bookkeeping
    assert [s.rule for s in e.steps if not is_bookkeeping(s)] == ["careduce_dimshuffle_fullo"]
    assert equal_computations([e.result[0]], [pt.sum(pt.exp(x))])
    assert instability([e.result[1]]) == 2 and e.check()
    check_rewrite([a, b], e.result, {x: [(3,), (0,), (1,)]})
    t = relations.explain((a, b), rewriters=("stabilize",))
    assert isinstance(t.result, tuple) and isinstance(_scalar_op(t.result[1]), Softplus)
    assert t.check()
    check_rewrite([a, b], list(t.result), {x: [(3,), (0,), (1,)]})


def test_without_rewriters_explain_is_the_greedy_one():
    x = pt.vector("x")
    g = pt.sum(pt.expand_dims(pt.exp(x), 0)) + pt.exp(x).sum()
    e = relations.explain(g)
    assert type(e) is Explanation
    same = explain_normal_form(g)
    assert [s.rule for s in e.steps] == [s.rule for s in same.steps]
    assert equal_computations([e.result], [same.result])


def test_a_cost_of_your_own():
    _, g = _log1p_of_sum()
    e = relations.explain(g, rewriters=("stabilize",), cost=variable_elements)
    assert isinstance(e.before, float) and e.after <= e.before
    assert str(e).splitlines()[1] == f"cost {e.before:g} -> {e.after:g}"
    assert e.check()


def test_argument_errors_name_the_argument():
    x = pt.vector("x")
    g = pt.log(1 + pt.exp(x))
    with pytest.raises(TypeError, match="rewriters"):
        relations.explain(g, rewriters=42)
    with pytest.raises(TypeError, match="limits"):
        relations.explain(g, rewriters=(), limits={"nodes": 10})
    with pytest.raises(TypeError, match="cost"):
        relations.explain(g, rewriters=(), cost=3)
    with pytest.raises(ValueError, match="cost"):
        relations.explain(g, cost=variable_elements)
    with pytest.raises(ValueError, match="limits"):
        relations.explain(g, limits=relations.Limits())
    with pytest.raises(TypeError, match="graph"):
        relations.explain(3, rewriters=())
    with pytest.raises(TypeError, match="cost"):
        relations.explain(g, rewriters=(), cost=lambda v: "cheap")
    with pytest.raises(ValueError, match="scale"):
        stability_node_cost(0)


def test_the_cost_counts_instability():
    x = pt.vector("x")
    assert instability([pt.log(1 + pt.exp(x))]) == 2
    assert instability([pt.log1p(pt.exp(x))]) == 1
    assert instability([pt.softplus(x)]) == 0
    assert not unstable(pt.log(pt.constant(3.0)))  # folded: nothing to lose
    assert unstable(pt.gamma(x)) and unstable(pt.erfc(x)) and not unstable(pt.gammaln(x))
    shared = pt.exp(x)
    assert instability([shared + 1, shared * 2]) == 1  # a shared node counts once
    assert stability_key([pt.softplus(x)]) < stability_key([pt.log1p(pt.exp(x))])


def test_the_extraction_never_trades_a_stable_op_for_fewer_elements():
    x = pt.vector("x", shape=(3,))
    unstable_small = pt.exp(x)
    stable_big = pt.sum(pt.alloc(pt.sigmoid(x), 50, 3), axis=0)  # 150 elements more, no unstable Op
    egraph = EGraph()
    egraph.add([unstable_small])
    egraph.add([stable_big])
    egraph.union(unstable_small, stable_big)  # asserted, to test the cost alone
    by_elements = egraph.extract(cost=variable_elements, roots=[unstable_small]).result[0]
    assert unstable(by_elements)
    scale = 1.0 + sum(variable_elements(n.var) for ns in egraph.classes().values() for n in ns if n.var.owner)
    for method in ("auto", "greedy"):
        chosen = egraph.extract(cost=stability_node_cost(scale), roots=[unstable_small], method=method).result[0]
        assert instability([chosen]) == 0, method
