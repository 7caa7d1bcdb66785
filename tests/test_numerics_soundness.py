"""The numerics theory keeps an e-graph sound: saturated spellings' classes hold on values, and no right side
that is nowhere a real number (``log(0)``, ``1/0``) joins a class.

The check (:func:`relations.saturation.soundness.unsound_nodes`) runs every e-node of the saturated
e-graph at moderate points and compares it with its class, on floats and then on exact values.
"""

from __future__ import annotations

import math

import numpy as np
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.interval_type import Interval
from graph_bridge.intervals import defined_nowhere
from numerics_corpus import CORPUS
from relations import patterns as p
from relations.lang import Family, is_float
from relations.saturation.engine.analysis import IntervalAnalysis
from relations.saturation.engine.egraph import EGraph
from relations.saturation.engine.query import query_rule
from relations.saturation.engine.runner import BackoffScheduler, Limits, Runner
from relations.saturation.soundness import moderate_points, unsound_nodes
from relations.saturation.stabilizing import SCHEDULE, theory_rules

a = p.var("a")
x = pt.dvector("x")


def _saturate(g, rules, nodes=1500, iterations=8):
    eg = EGraph(IntervalAnalysis())
    eg.add_graph_classes([g])
    eg.rebuild()
    Runner(eg, rules, Limits(nodes=nodes, iterations=iterations, seconds=None), BackoffScheduler(*SCHEDULE)).run()
    return eg


def _ops(eg):
    return [(str(eg.ops[n[0]][1]), [eg.data[eg.find(k)] for k in n[1:]]) for n in eg.hashcons if len(n) > 1]


def test_an_unsound_rule_is_reported():
    """The check can fail: a false identity (``log(a) = log1p(a)``) makes classes whose e-nodes disagree."""
    fam = Family("wrong")
    fam.equal("log_is_log1p", p.log(a), p.log1p(a), is_float(a), "False: log(a) is not log1p(a).")
    g = pt.log(pt.exp(x) + 2.0)
    eg = _saturate(g, [query_rule(r) for r in fam.rules])
    found = unsound_nodes(eg, moderate_points([g]))
    assert found, "the false identity was not seen"
    assert {type(d.op.scalar_op).__name__ for d in found} <= {"Log", "Log1p"}
    assert "gives" in str(found[0])


def test_log_of_a_ratio_saturates_soundly():
    """``log((x + 1) / x)`` under the theory at stabilize's bounds: every class holds (before the guards of
    ``tan_asin`` and the refusal of nowhere-real right sides, ``x`` and ``1/x`` ended in one class here,
    and ``log(x)`` with ``log1p(x)``)."""
    g = pt.log((x + 1) / x)
    eg = _saturate(g, theory_rules(), nodes=3000)
    assert eg.n_nodes > 2000  # (it grew: the check saw a large e-graph)
    assert unsound_nodes(eg, moderate_points([g])) == []
    st = relations.stabilize(g, limits=Limits(nodes=3000, iterations=8, seconds=None))
    assert not st.unequal
    assert "unsound" not in str(st)


def test_a_right_side_that_is_nowhere_real_is_refused():
    """``a - 1 -> expm1(log(a))`` holds for ``a > 0``; at a class that is exactly 0 it would build ``log(0)``
    (``-inf`` on every input): that right side is refused, while over an input of unknown range it is built."""
    fam = Family("expm1_log")
    fam.rewrite("sub1_expm1_log", p.sub(a, 1), p.expm1(p.log(a)), is_float(a), "Holds for a > 0.")
    rules = [query_rule(r) for r in fam.rules]
    zero = pt.as_tensor_variable(np.zeros(3))
    eg = _saturate((zero - 1.0) * x, rules, iterations=3)
    logs = [ins for op, ins in _ops(eg) if "Log" in op and "1p" not in op]
    assert logs == []
    eg = _saturate((x - 1.0) * x, rules, iterations=3)
    assert any("Log" in op for op, _ in _ops(eg))


def _has_log(g):
    from pytensor.graph.traversal import ancestors

    return any(v.owner is not None and type(getattr(v.owner.op, "scalar_op", None)).__name__ == "Log"
               for v in ancestors([g]))


def test_saturate_refuses_a_right_side_that_is_nowhere_real_too():
    """``relations.saturate`` (its pattern rules run as queries over an index) refuses the same right sides."""
    fam = Family("expm1_log")
    fam.rewrite("sub1_expm1_log", p.sub(a, 1), p.expm1(p.log(a)), is_float(a), "Holds for a > 0.")
    zero = pt.as_tensor_variable(np.zeros(3))
    limits = relations.Limits(iterations=3)
    forms = list(relations.equivalents((zero - 1.0) * x, limit=None, rules=fam.rules, limits=limits))
    assert not any(_has_log(f) for f in forms)
    forms = list(relations.equivalents((x - 1.0) * x, limit=None, rules=fam.rules, limits=limits))
    assert any(_has_log(f) for f in forms)


Z = Interval(0.0, 0.0, False, False)
ANY = Interval()


@pytest.mark.parametrize(("f", "ins", "nowhere"), [
    (pt.log, [Z], True),
    (pt.log, [Interval(-5.0, 0.0, False, False)], True),
    (pt.log, [Interval(0.0, 1.0, False, False)], False),
    (pt.log1p, [Interval(-1.0, -1.0, False, False)], True),
    (pt.log1p, [Interval(-1.0, 0.0, False, False)], False),
    (pt.sqrt, [Interval(-2.0, -1.0, False, False)], True),
    (pt.sqrt, [Z], False),
    (pt.reciprocal, [Z], True),
    (pt.reciprocal, [Interval(0.0, 1.0, False, False)], False),
    (pt.true_div, [ANY, Z], True),
    (pt.true_div, [Z, ANY], False),
    (pt.arcsin, [Interval(2.0, 3.0, False, False)], True),
    (pt.arcsin, [Interval(-1.0, 1.0, False, False)], False),
    (pt.exp, [Z], False),  # (a total function)
    (pt.log, [Interval(-math.inf, -math.inf, True, False)], True),  # an input that is -inf everywhere
])
def test_defined_nowhere(f, ins, nowhere):
    v = f(*[pt.dscalar() for _ in ins])
    assert defined_nowhere(v.owner.op, ins) is nowhere


def test_the_inside_guard_is_open():
    assert Interval(-0.5, 0.5, False, False).inside(-1, 1)
    assert Interval(-1.0, 1.0, True, True).inside(-1, 1)
    assert not Interval(-1.0, 1.0, False, True).inside(-1, 1)
    assert Interval(-1.0, 1.0, False, False).within(-1, 1)
    assert not Interval().inside(-1, 1)


def test_tan_asin_is_not_applied_at_the_ends_of_its_domain():
    """``tan(arcsin(x)) = x / sqrt(1 - x*x)`` holds on ``(-1, 1)``; at ``x = 1`` the floats give ``1.6e16``
    and ``inf``, so a class of exactly 1 does not get the union."""
    from relations.rules.numerics.trigonometry import FAMILY

    rules = [query_rule(r) for r in FAMILY.rules if r.__name__.startswith("tan_asin")]
    one = pt.ones_like(x)
    eg = _saturate(pt.tan(pt.arcsin(one)), rules, iterations=3)
    assert not any("Sqrt" in op for op, _ in _ops(eg))
    eg = _saturate(pt.tan(pt.arcsin(pt.tanh(x))), rules, iterations=3)
    assert any("Sqrt" in op for op, _ in _ops(eg))


#: Spellings of each group of the theory, saturated at stabilize's bounds in the fast suite.
SAMPLE = ("log(1+exp(x))", "softplus(x)-x", "log((x+1)/x)", "log(cosh(x))", "(1+tanh(x/2))/2",
          "log(1-erf(x))", "sqrt(x+1)-sqrt(x)", "1-cos(x)", "log(sigmoid(x))-log(1-sigmoid(x))")


def _spelling(name):
    [s] = [s for s in CORPUS if s.name == name]
    return s


@pytest.mark.parametrize("name", SAMPLE)
def test_corpus_spellings_saturate_soundly(name):
    _, g = _spelling(name).graph()
    eg = _saturate(g, theory_rules(), nodes=3000)
    bad = unsound_nodes(eg, moderate_points([g]))
    assert bad == [], "\n".join(map(str, bad[:5]))


@pytest.mark.slow
@pytest.mark.parametrize("name", [s.name for s in CORPUS[::4] if s.name not in SAMPLE])
def test_the_corpus_saturates_soundly(name):
    _, g = _spelling(name).graph()
    eg = _saturate(g, theory_rules(), nodes=3000)
    bad = unsound_nodes(eg, moderate_points([g]))
    assert bad == [], "\n".join(map(str, bad[:5]))


def test_points_are_moderate():
    y = pt.fvector("y")
    pts = moderate_points([pt.log(x) + pt.cast(y, "float64")], n=32)
    assert pts.n == 32 and sorted(str(v.dtype) for v in pts.values) == ["float32", "float64"]
    assert all(np.abs(v).max() <= 4 for v in pts.values)
    assert {v.shape for v in pts.values} == {(32, 2)}
