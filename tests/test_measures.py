"""Every rule's declared ``measure`` decreases on every rewrite normalize makes.

A rule states what strictly decreases from its left side to its right side
(that is why normalize stops) as a :class:`graph_bridge.measures.Measure`,
a function on a sub-graph (``@rule(measure=count(DimShuffle))``).  Here,
for every rule of every rule set in ``relations.RULESETS`` (a rule added
there is checked with no table to edit), on random graphs
(``strategies.graphs``) every rewrite normalize reports (``on_rewrite``)
must make the rule's measure of the replaced sub-graph strictly smaller,
and what the measure says does not grow must not grow.
"""

from __future__ import annotations

import pytensor.tensor as pt
import pytest
from hypothesis import HealthCheck, given, settings
from pytensor.graph.basic import Variable
from pytensor.tensor.basic import Join
from pytensor.tensor.elemwise import Elemwise

import relations
from graph_bridge.measures import Measure, count, nodes
from helpers import all_rules
from relations.greedy.fixpoint import normalize_variables
from relations.patterns.relation import RuleIndex
from strategies import Drawn, graphs


def test_every_rule_of_every_rule_set_states_a_measure():
    rules = all_rules()
    assert set(relations.DEFAULT_RULES) <= set(rules)
    for r in rules:
        assert isinstance(r.measure, Measure) and r.measure.stated, (r.__name__, r.measure)


def test_a_rule_set_added_to_rulesets_is_checked(monkeypatch):
    from relations import patterns as p

    a = p.var("a")
    extra = relations.rewrite_rule("exp_neg_neg", p.exp(p.neg(p.neg(a))), p.exp(a))
    monkeypatch.setitem(relations.RULESETS, "mine", (extra,))
    assert extra in all_rules()
    x = pt.vector("x")
    assert "exp_neg_neg" in _check_steps([pt.exp(-(-x))])


def test_a_zero_d_alloc_behind_an_expand_dims_counts_before_and_after_a_lift():
    """Hypothesis found it: f(Alloc(0, n), ExpandDims(Alloc(s))) -> Alloc(f(0, Alloc(s)), n)."""
    import pytensor.tensor as pt

    s = pt.alloc(pt.sum(pt.vector("v")))  # a 0-d Alloc
    zeros = pt.alloc(pt.constant(0.0), pt.constant(3, dtype="int8"))
    graph = pt.set_subtensor(zeros[0], -s) + pt.expand_dims(s, 0)
    assert "elemwise_alloco" in _check_steps([graph])


def _greedy_rules() -> tuple:
    """Every rule normalize may run together: those of the sets not marked saturation-only."""
    from relations.rules import SATURATION_ONLY

    apart = {r for name in SATURATION_ONLY for r in relations.RULESETS.get(name, ())}
    return tuple(r for r in all_rules() if r not in apart)


def _check_steps(outputs: list[Variable], rules: tuple | None = None) -> list[str]:
    """The rules that fired normalizing ``outputs`` with ``rules`` (default: every rule normalize may run
    together, :func:`_greedy_rules`), each checked."""
    steps = []

    def record(rule, before, after):
        m = rule.measure
        assert m(after) < m(before), (rule.__name__, str(m), before, after)
        for other in m.not_growing:
            assert other(after) <= other(before), (rule.__name__, str(m), before, after)
        assert m.decreases(before, after)
        steps.append(rule.__name__)

    normalize_variables(outputs, RuleIndex(_greedy_rules() if rules is None else rules), on_rewrite=record)
    return steps


def test_the_choices_decrease_their_measures():
    import numpy as np

    m3 = pt.matrix("m3", shape=(3, None))
    row = pt.matrix("row", shape=(1, None))
    w6 = pt.vector("w6", shape=(6,))
    graphs_ = [
        pt.sum(pt.sum(m3 * row * pt.exp(row), axis=0)),  # a reduction above another
        pt.sum(pt.sum(m3 + row + row, axis=0)),
        pt.sum(-(m3 - row), axis=0),
        pt.sum(pt.alloc(pt.scalar("c"), 3, 4), axis=0),
        pt.max(pt.set_subtensor(pt.zeros((4, 4))[np.tril_indices(4, -1)], w6)),
    ]
    fired = set()
    for g in graphs_:
        fired.update(_check_steps([g], relations.RULESETS["choices"]))
    assert fired >= {"sum_factor_broadcasto", "sum_count_broadcasto", "reduce_alloco", "reduce_writeso"}, fired


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_every_choice_rewrite_decreases_its_rules_measure(drawn: Drawn):
    _check_steps(list(drawn.outputs), relations.DEFAULT_RULES + relations.RULESETS["choices"])


def test_the_check_sees_rewrites_and_fails_on_a_wrong_measure():
    x = pt.vector("x")
    y = pt.sum(pt.join(0, pt.expand_dims(x, 0), pt.expand_dims(x, 0)))
    assert "careduce_joino" in _check_steps([y])
    # the same rewrite judged by a measure it does not decrease (node count) fails,
    # and so does one that keeps a measure it grows (DimShuffles: the join's ExpandDims move)
    from relations.rules.join import careduce_joino

    for wrong in (nodes(), count(Join).keeping(count(Elemwise))):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(careduce_joino, "measure", wrong)
            with pytest.raises(AssertionError):
                _check_steps([y])


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_every_rewrite_decreases_its_rules_measure(drawn: Drawn):
    _check_steps(list(drawn.outputs))


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_every_saturation_only_rule_alone_decreases_its_measure(drawn: Drawn):
    """A saturation-only rule undoes another of its set, so each is checked alone (alone it terminates)."""
    from relations.patterns.relation import unmeasured_choice
    from relations.rules import SATURATION_ONLY

    for name in sorted(SATURATION_ONLY):
        for r in relations.RULESETS[name]:
            if not unmeasured_choice(r):  # a choice that states no measure runs in saturation only
                _check_steps(list(drawn.outputs), (r,))


def test_the_algebra_rules_fire_and_decrease_their_measures():
    x, y = pt.vector("x"), pt.vector("y")
    m, m3, w3 = pt.matrix("m"), pt.matrix("m3", shape=(None, 3)), pt.vector("w3", shape=(3,))
    x32 = pt.vector("x32", dtype="float32")
    graphs_ = [
        pt.log1p(-1.0 * pt.exp(x)),
        pt.log(pt.exp(x) - pt.exp(y)) + pt.log(pt.exp(x) + -pt.exp(y)) + pt.log(-pt.exp(y) + x),
        -(x - y) + pt.reciprocal(pt.exp(-x)) + 1.0 / pt.exp(x) + x / y + x * pt.reciprocal(y) + (1 + x) ** -1 + pt.reciprocal(y),
        pt.exp(x) * pt.exp(y) + x**2 + y * y + -(-x),
        pt.exp(pt.sqr(x)) * pt.erfc(x) + pt.erfc(y) * pt.exp(pt.sqr(y)) + pt.log(pt.gamma(x)),
        pt.cast(pt.exp(x32), "float64") + pt.log(1 + pt.broadcast_to(pt.exp(x), (3, x.shape[0]))),
        pt.exp(x)[None] / pt.broadcast_to(1 + pt.exp(x), (3, x.shape[0])),
        pt.log(pt.mean(pt.exp(x))) + pt.log(3.0 * pt.sum(pt.exp(y))),
        pt.add(pt.add(pt.exp(x), y), x) * pt.mul(pt.mul(pt.exp(x), y), x),
        # sums, logsumexp and softmax in disguise
        pt.log(pt.dot(pt.exp(m), pt.ones((m.shape[1], 1)))) + pt.dot(pt.ones((1, m.shape[0])), pt.exp(m)).sum()
        + pt.dot(pt.exp(m3), w3[:, None]).sum(),
        pt.log(1 + pt.sum(pt.exp(m), axis=1)) + pt.log(pt.sum(w3 * pt.exp(m3), axis=1))
        + pt.log(pt.sum(pt.exp(m3) * w3, axis=1)),
        pt.log(pt.cast(pt.exp(x), "float32")),
        pt.log(pt.special.softmax(m, axis=1).flatten()).sum() + pt.log(pt.specify_shape(pt.exp(x), (3,))).sum()
        + pt.log(pt.specify_shape(pt.exp(m), (2, None))).sum(),
        # canonicalize's three-operand sums and products
        pt.add(-1.0, pt.exp(x), y) + pt.mul(0.5, pt.exp(x), pt.erfc(y)),
        # a product divided by a sum (canonicalize's mean-softmax)
        (x * pt.exp(y)) / pt.sum(pt.exp(y)),
    ]
    fired = set()
    for r in relations.RULESETS["algebra"]:
        for g in graphs_:
            fired.update(_check_steps([g], (r,)))
    assert fired == {r.__name__ for r in relations.RULESETS["algebra"]}, {r.__name__ for r in relations.RULESETS["algebra"]} - fired
