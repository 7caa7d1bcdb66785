"""The measured stabilizing stage (``relational_measured``): cheap screen, cache per region structure, values."""

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations
from relations.compile import stabilize as S


def _graph():
    x = pt.dvector("x")
    # 2 * sigmoid(x) - 1 written as a difference: cancels near x = 0 (tanh(x / 2)), no stock rewrite repairs it
    return x, pt.sigmoid(x) - (1 - pt.sigmoid(x))


def test_measured_replaces_an_inaccurate_region_and_keeps_values():
    x, out = _graph()
    S._OUTCOMES.clear()
    budget = S.MeasuredBudget(seconds=30.0)
    pairs = S.measured([out], budget)
    assert budget.stabilized == 1 and budget.replaced == 1 and len(pairs) == 1
    f = pytensor.function([x], out, mode="FAST_COMPILE")
    g = pytensor.function([x], pairs[0][1], mode="FAST_COMPILE")
    at = np.array([-3.0, -0.5, 0.0, 0.7, 4.0])
    np.testing.assert_allclose(g(at), np.tanh(at / 2), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(f(at), g(at), rtol=1e-9, atol=1e-15)
    tiny = np.array([1e-20])
    assert g(tiny)[0] == 5e-21 and f(tiny)[0] != 5e-21  # the cancellation the stage repairs


def test_a_region_of_the_same_structure_reuses_the_outcome():
    S._OUTCOMES.clear()
    first, second = S.MeasuredBudget(seconds=30.0), S.MeasuredBudget(seconds=30.0)
    x1, out1 = _graph()
    S.measured([out1], first)
    x2, out2 = _graph()  # a new graph: the cache is by structure, not by variable
    [(root, new)] = S.measured([out2], second)
    assert second.cached == 1 and second.stabilized == 0 and second.replaced == 1
    assert x2 in pytensor.graph.traversal.graph_inputs([new]) and x1 not in pytensor.graph.traversal.graph_inputs([new])


def test_accurate_regions_cost_no_measurement():
    x = pt.dvector("x")
    out = pt.softplus(x) + pt.log1p(pt.exp(-pt.abs(x))) * pt.sigmoid(x)
    budget = S.MeasuredBudget()
    assert S.measured([out], budget) == []
    assert budget.passed >= 1 and budget.stabilized == 0 and budget.cached == 0


def test_the_mode_compiles_and_matches_stock():
    x, out = _graph()
    stage = S.register_measured()
    mode = relations.mode("relational", "relational_stabilize", "relational_measured")
    f = pytensor.function([x], out, mode=mode)
    # the region reaches the stage canonicalized (-1 + sigmoid(x) + sigmoid(x)): flagged by both screens and
    # measured; within PASS_LIMITS relations.stabilize finds no better form of that spelling, so none is made
    assert stage.last.stabilized + stage.last.cached == 1
    stock = pytensor.function([x], out, mode="FAST_COMPILE")
    at = np.array([-2.0, -1e-3, 0.5, 3.0])
    np.testing.assert_allclose(f(at), stock(at), rtol=1e-12)
