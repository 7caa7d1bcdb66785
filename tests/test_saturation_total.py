"""Every query is total: random variables, Blockwise, OpFromGraph and Scan under every rule set.

The e-graph's queries (``saturate`` + ``extract``, ``forms``, ``equivalents``,
``best``, ``prove``, ``match``) and ``normalize`` run on graphs holding the
nodes the vocabulary admits as rewritable (RandomVariable, Blockwise) and the
ones it keeps opaque (OpFromGraph, Scan), under each rule set of
``relations.RULESETS`` alone and all of them together: none raises, each
result keeps the input's types, and the input is not changed.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile.builders import OpFromGraph
from pytensor.tensor.random.type import RandomGeneratorType
from unification import var

import relations
from helpers import all_rules, assert_same_types, assert_same_values, snapshot
from relations.rules import greedy_part

x = pt.vector("x")
m = pt.matrix("m")


def _rvs():
    """Two draws with their own generator inputs (roots), and a value per generator."""
    ra, rb = RandomGeneratorType()("ra"), RandomGeneratorType()("rb")
    _, a = pt.random.normal(0, 1, size=(3,), rng=ra, return_next_rng=True)
    _, b = pt.random.normal(0, 1, size=(3,), rng=rb, return_next_rng=True)
    return a, b, {ra: np.random.default_rng(1), rb: np.random.default_rng(2)}


def _graphs():
    a, b, rngs = _rvs()
    ofg = OpFromGraph([x], [pt.exp(x) * 2])
    o1, o2 = OpFromGraph([x], [x + 1, x * 2])(x)
    scanned = pytensor.scan(
        lambda s, acc: acc + s, sequences=[pt.exp(x)], outputs_info=[pt.zeros(())], return_updates=False
    )
    xs = {x: np.array([0.5, -1.0, 2.0])}
    ms = {m: np.arange(6.0).reshape(2, 3) / 7}
    t3 = pt.tensor3("t3")
    yield "rv_add", a + b, rngs
    yield "rv_stack_T", pt.stack([a, b]).T, rngs
    yield "rv_sums", pt.sum(pt.expand_dims(a, 0)) + pt.sum(b), rngs
    yield "rv_alloc", pt.sum(pt.alloc(a, 2, 3), axis=0), rngs
    yield "rv_set", pt.sum(pt.set_subtensor(pt.zeros((4,))[1:], a)), rngs
    yield "rv_param", pt.random.normal(pt.exp(x), 1, rng=RandomGeneratorType()("rc"), return_next_rng=True)[1], None
    yield "blockwise_solve", pt.sum(pt.linalg.solve(t3 + 8 * pt.eye(3), m.T[None], b_ndim=2)), {
        t3: np.ones((2, 3, 3)) / 5, **ms}
    yield "blockwise_matmul", pt.matmul(t3, m.T).T, {t3: np.ones((2, 2, 2)) / 3, **ms}
    yield "opfromgraph", pt.sum(pt.expand_dims(ofg(x), 0)) + pt.sum(x), xs
    yield "opfromgraph_two_outputs", pt.sum(o1 + o2), xs
    yield "scan", pt.sum(pt.expand_dims(scanned, 0)), xs


GRAPHS = list(_graphs())
RULE_SETS = {**relations.RULESETS, "all": all_rules()}
LIMITS = relations.Limits(seconds=5.0)
#: the numerics theory (566 relations) grows an e-graph fast: totality is about not raising, so small bounds
SMALL = {"numerics": relations.Limits(nodes=1_500, iterations=2, seconds=1.0)}


def test_equivalents_of_a_random_variable_with_the_choices_do_not_raise():
    # a reduction rule run backward read the RV node's generator input as a tensor (ndim)
    a, b, rngs = _rvs()
    g = a + b
    rules = relations.DEFAULT_RULES + relations.RULESETS["choices"]
    before = snapshot(g)
    forms = list(relations.equivalents(g, limit=5, rules=rules))
    assert forms and snapshot(g) == before
    for f in forms:
        assert_same_types(g, f)
        assert_same_values(g, f, rngs)  # each draw has its own generator: the same values


def test_reduction_of_reads_no_input_of_a_node_that_is_not_a_reduction():
    from relations.rules.reductions.reduction_terms import reduction_of

    a, _, _ = _rvs()
    assert reduction_of(a) is None
    op, axes, inner = reduction_of(pt.sum(m, axis=1))
    assert axes == (1,) and inner is m


#: graphs whose queries under the numerics theory take 10-50 s here (random variables, Scan, OpFromGraph,
#: Blockwise solve: each query of the five saturates): the theory is run on the others
NUMERICS_SLOW = {"blockwise_solve", "rv_param", "scan", "rv_add", "rv_sums", "opfromgraph_two_outputs", "opfromgraph",
                 "rv_set", "rv_stack_T"}
CASES = [(rules, *c) for rules in RULE_SETS for c in GRAPHS if not (rules == "numerics" and c[0] in NUMERICS_SLOW)]


@pytest.mark.parametrize("rules, name, g, givens", CASES, ids=[f"{c[1]}-{c[0]}" for c in CASES])
def test_every_query_is_total(name, g, givens, rules):
    rule_set = RULE_SETS[rules]
    limits = SMALL.get(rules, LIMITS)
    before = snapshot(g)
    eg = relations.saturate(g, rule_set, limits=limits)
    outs = [eg.extract().result, *eg.forms(limit=3)]
    outs += list(relations.equivalents(g, limit=3, rules=rule_set, timeout=limits.seconds))
    outs.append(relations.best(g, rules=rule_set, limits=limits))
    normal = relations.normalize(g, greedy_part(rule_set))  # normalize refuses the saturation-only rules
    outs.append(normal)
    proof = relations.prove(g, normal, limits=limits)
    assert proof is None or proof.check()
    assert list(relations.match(g, var("v"), limit=3, rules=rule_set))
    assert snapshot(g) == before
    for out in outs:
        assert_same_types(g, out)
    if givens is not None and rules in ("default", "all"):
        assert_same_values(g, outs[-1], givens)
        assert_same_values(g, outs[0], givens)


# -- listing: lazy, iterative, bounded ---------------------------------------------------


def _alternating_chain(levels: int):
    """``exp`` and ``sum(expand_dims(., 0), 0)`` in turn: every level's class is on a cycle."""
    v = x
    for _ in range(levels):
        v = pt.sum(pt.expand_dims(pt.exp(v), 0), 0)
    return v


def test_forms_of_a_5000_level_chain_of_cycles_need_no_recursion():
    import sys

    g = _alternating_chain(5000)
    eg = relations.saturate(g, backward=False, limits=relations.Limits(seconds=None, nodes=None))
    assert eg.report.stop == "saturated"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # far below the chain's depth
    try:
        forms = list(eg.forms(limit=3))
        best = eg.extract()
    finally:
        sys.setrecursionlimit(limit)
    assert len(forms) == 3
    assert all(f.type == g.type for f in forms) and best.result.type == g.type
    # the same listing on a short chain, on values (compiling 10^4 nodes would cost a minute)
    short = _alternating_chain(30)
    eg = relations.saturate(short, backward=False)
    for f in [*eg.forms(limit=3), eg.extract().result]:
        assert_same_values(short, f, {x: np.array([0.1, -0.2])})  # (each level is exp: values near 1)


def test_the_listing_ends_at_its_node_bound_with_valid_forms(monkeypatch):
    from relations.saturation import extract as extract_mod

    a, b, rngs = _rvs()
    g = pt.stack([a, b]).T
    monkeypatch.setattr(extract_mod, "MAX_FORM_NODES", 300)
    forms = list(relations.equivalents(g, limit=None, depth=2, timeout=30))
    assert 0 < len(forms) <= 300  # each form builds at least its root: at most 300 of them
    eg = relations.saturate(g, limits=relations.Limits(iterations=2, growth=None))
    assert len(list(eg.forms(nodes=300))) < len(list(eg.forms(nodes=3000)))
    for f in forms[:: max(1, len(forms) // 3)]:
        assert_same_types(g, f)
        assert_same_values(g, f, rngs)


def test_the_timeout_bounds_the_listing(monkeypatch):
    import time as real_time

    from relations.saturation import extract as extract_mod

    class Clock:  # a second passes each time the listing reads the clock
        now = real_time.perf_counter()

        @classmethod
        def perf_counter(cls):
            cls.now += 1.0
            return cls.now

    a, b, _ = _rvs()
    eg = relations.saturate(pt.stack([a, b]).T, limits=relations.Limits(iterations=2, growth=None))
    everything = sum(1 for _ in eg.forms(nodes=3000))
    monkeypatch.setattr(extract_mod, "time", Clock)
    timed = sum(1 for _ in eg.forms(seconds=5.5, nodes=3000))
    assert 0 < timed <= 5 < everything


def test_forms_check_their_bounds_when_called():
    eg = relations.saturate(pt.exp(x))
    with pytest.raises(ValueError, match="nodes"):
        eg.forms(nodes=-1)
    with pytest.raises(ValueError, match="seconds"):
        eg.forms(seconds=0)
