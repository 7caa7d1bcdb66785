"""The ``measurable`` rule set (``relations/rules/measurable/``): every rule forward, backward and as a check.

Each rule has an example left side (:data:`EXAMPLES`); forward it rewrites
to a graph of the same type and values (length-0 and length-1 dims where
the rule allows them), backward its own right side gives a left side of
the same values, and with both sides given the relation holds (and fails
for a wrong right side).  The pattern rules are verified on drawn graphs
(``relations.verify``, with the domain each states: overflow at 1e4 is
not what they claim).  PyMC is not needed here (``test_pymc_logp.py``
derives densities with these rules).
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytensor.tensor.random.basic as ptr
import pytest
from kanren import run
from pytensor.compile.sharedvalue import SharedVariable
from pytensor.graph.basic import Constant
from pytensor.graph.traversal import graph_inputs
from unification import var

import relations
from graph_bridge import reify
from relations.patterns import pattern_vars
from relations.rules import measurable as M
from relations.rules.dimshuffle import dimshuffle_composeo

x, y = pt.scalar("x"), pt.scalar("y")
cb = pt.scalar("cb", dtype="bool")
v3, a3, b2 = pt.vector("v3", shape=(3,)), pt.vector("a3", shape=(3,)), pt.vector("b2", shape=(2,))
v, m23 = pt.vector("v"), pt.matrix("m23", shape=(2, 3))
iv = pt.lvector("iv", shape=(3,))
lo, hi = pt.constant(-1.0, dtype="float64"), pt.constant(1.0, dtype="float64")  # bounds of x's dtype

#: rule name -> left sides it rewrites (the first is also run backward from its right side)
EXAMPLES = {
    "add_selfo": [x + x, v + v],
    "mul_selfo": [x * x, v * v],
    "sub_scaled_selfo": [3 * x - x],
    "sub_self_scaledo": [x - 3 * x],
    "add_scaled_selfo": [3 * x + x],
    "exp_mul_expo": [pt.exp(x) * pt.exp(y)],
    "exp_div_expo": [pt.exp(x) / pt.exp(y)],
    "exp_powo": [pt.exp(x) ** 3],
    "sum_of_scaledo": [pt.sum(v * 2), pt.sum(m23 * 2, axis=1)],
    "sum_of_scaled_lefto": [pt.sum(2 * v)],
    "switch_as_maximumo": [pt.where(x < -1.0, -1.0, x)],
    "switch_as_minimumo": [pt.where(x > 1.0, 1.0, x)],
    "switch_as_clipo": [pt.where(x < -1.0, -1.0, pt.minimum(x, 1.0))],
    "switch_as_clip_geo": [pt.where(x > 1.0, 1.0, pt.maximum(x, -1.0))],
    "switch_ge_as_maximumo": [pt.where(x >= 0.0, x, 0.0)],
    "switch_gt_as_maximumo": [pt.where(pt.gt(0.0, x), 0.0, x)],
    "switch_le_as_minimumo": [pt.where(x <= 1.0, x, 1.0)],
    "switch_lt_as_minimumo": [pt.where(pt.lt(1.0, x), 1.0, x)],
    "switch_lt_keep_as_minimumo": [pt.where(x < 1.0, x, 1.0)],
    "switch_gt_keep_as_maximumo": [pt.where(x > 0.0, x, 0.0)],
    "switch_swappedo": [pt.where(x < 0.0, 0.5 * x, x)],
    "mixture_as_switcho": [cb * x + (1 - cb) * y],
    "exp_of_clipo": [pt.exp(pt.clip(x, lo, hi))],
    "clip_of_mul_posto": [pt.clip(x, lo, hi) * 2.0],
    "clip_of_add_consto": [pt.clip(x, lo, hi) + 1.0],
    "affine_collecto": [3 * x - x, x - x / 2, 2 * (v + 1) - v],
    "power_collecto": [x * x * x, v * v * v * v],
    "slices_sumo": [v3[0] + v3[1] + v3[2], v3[1] + v3[2], v3[0] + v3[2], v3[2] + v3[0]],
    "sum_shiftedo": [pt.sum(v3 + 1), pt.sum(m23 + 2), pt.sum(v3 + np.array([1.0, 2.0, 3.0])), pt.sum(m23 + np.array([1.0, 2.0, 3.0])),
                     pt.sum(v3 - np.array([0.5, 1.0, 1.5]))],
    "partial_sums_as_cumsumo": [pt.stack([v3[0], v3[0] + v3[1], v3[0] + v3[1] + v3[2]]),
                                pt.stack([v3[0], v3[1] + v3[0]])],
    "log_odds_divo": [pt.log(x / (1 - x))],
    "log_odds_log1po": [pt.log(x) - pt.log1p(-x)],
    "log_odds_logo": [pt.log(x) - pt.log(1 - x)],
    "transpose_joino": [pt.stack([a3, v3]).T, pt.join(0, m23, pt.matrix("r", shape=(1, 3))).T],
    "dimshuffle_composeo": [pt.expand_dims(v, 0).T],
    "reshape_as_dimso": [m23.reshape((6,)), m23.flatten(), pt.vector("w", shape=(6,)).reshape((2, 3))],
    "writes_as_joino": [pt.set_subtensor(pt.join(0, a3, pt.zeros(2))[3:], b2), pt.set_subtensor(pt.zeros(5)[:3], a3), pt.set_subtensor(pt.zeros(5)[2:], a3),
                        pt.set_subtensor(pt.join(0, a3, pt.zeros(2))[3:], b2)],
    "index_mixture_as_switcho": [pt.stack([a3, v3])[iv, pt.arange(3)], pt.stack([a3, v3], axis=1)[pt.arange(3), iv]],
    "transform_into_censoringo": [2 * pt.maximum(x, 0), pt.exp(pt.minimum(x, 1)), pt.clip(x, -1, 1) - 1],
}
# the rest of the switch table (relations/rules/measurable/switches.py), integer and float bounds
EXAMPLES.update({
    "switch_le_keep_co": [pt.where(x <= 1, 1, x)],
    "switch_ge_keep_co": [pt.where(x >= 2, 2.0, x)],
    "switch_lt_rev_keep_xo": [pt.where(pt.lt(0, x), x, 0)],
    "switch_le_rev_keep_co": [pt.where(pt.le(1.0, x), 1.0, x)],
    "switch_le_rev_keep_xo": [pt.where(pt.le(-1, x), x, -1)],
    "switch_gt_rev_keep_xo": [pt.where(pt.gt(1.0, x), x, 1.0)],
    "switch_ge_rev_keep_co": [pt.where(pt.ge(-1.0, x), -1.0, x)],
    "switch_ge_rev_keep_xo": [pt.where(pt.ge(2, x), x, 2)],
})
# absolute values and rectifiers written out (relations/rules/measurable/absolute.py)
_NEGS = {"neg": lambda t: -t, "mul_neg1": lambda t: pt.mul(-1, t), "mul_neg1_right": lambda t: pt.mul(t, -1),
         "zero_sub": lambda t: pt.sub(0, t)}
_TESTS = {"ge": (pt.ge, True), "gt": (pt.gt, True), "lt": (pt.lt, False), "le": (pt.le, False)}
for _n, _neg in _NEGS.items():
    for _t, (_cmp, _keeps) in _TESTS.items():
        _a, _b = (x, _neg(x)) if _keeps else (_neg(x), x)
        EXAMPLES[f"abs_switch_{_t}_{_n}o"] = [pt.where(_cmp(x, 0), _a, _b), pt.where(_cmp(v, 0.0), *((v, _neg(v)) if _keeps else (_neg(v), v)))]
    EXAMPLES[f"abs_maximum_{_n}o"] = [pt.maximum(x, _neg(x))]
    EXAMPLES[f"abs_maximum_first_{_n}o"] = [pt.maximum(_neg(x), x)]
EXAMPLES["masked_set_as_switcho"] = [pt.set_subtensor(v3[v3 > 1], 1), pt.set_subtensor(m23[m23 < 0.5], 0.5),
                                     pt.set_subtensor(v[pt.vector("mask", dtype="bool") > 0], 2.0)]
EXAMPLES["elements_extremumo"] = [pt.maximum(pt.maximum(v3[0], v3[1]), v3[2]), pt.minimum(v3[2], v3[0]),
                                  pt.maximum(v3[1], v3[2])]
_w3 = ptr.normal.make_node(pytensor.shared(np.random.default_rng(1)), pt.constant([3]), pt.constant(0.0),
                          pt.constant(1.0)).outputs[1]  # a draw of static length 3 (the backward's vectors)
EXAMPLES["stacked_elementso"] = [pt.stack([_w3[0], _w3[1], _w3[2]]), pt.stack([v3[0], v3[1], v3[2]])]
EXAMPLES["square_completedo"] = [x + x**2, 3 * x - 2 * pt.sqr(x) + 1, x * x + x / 2]
_b3 = ptr.beta.make_node(pytensor.shared(np.random.default_rng(2)), pt.constant([3]), pt.constant(2.0),
                         pt.constant(1.0)).outputs[1]  # draws on (0, 1): log is increasing there, 1/x decreasing
EXAMPLES["transform_out_of_extremumo"] = [pt.max(pt.exp(v3)), pt.min(pt.log(_b3)), pt.max(pt.sqrt(_b3)), pt.max(m23 * 2.0)]
EXAMPLES["relu_div_abso"] = [(x + pt.abs(x)) / 2]
EXAMPLES["relu_mul_abso"] = [0.5 * (x + pt.abs(x))]
RULES = {r.__name__: r for r in M.MEASURABLE_RULES}


def _inputs(graphs):
    return [i for i in graph_inputs(graphs) if not isinstance(i, Constant | SharedVariable)]


def _values(inputs, seed=0, length=None):
    rng = np.random.default_rng(seed)
    out = []
    for i in inputs:
        shape = tuple((length if length is not None else 3) if s is None else s for s in i.type.shape)
        if i.dtype == "bool":
            out.append(rng.integers(0, 2, size=shape).astype(bool))
        elif i.dtype.startswith("int"):
            out.append(rng.integers(0, 2, size=shape).astype(i.dtype))
        else:
            out.append(rng.uniform(-2, 2, size=shape).astype(i.dtype))
    return out


def _same_values(a, b, lengths=(None,)):
    ins = _inputs([a, b])
    f = pytensor.function(ins, [a, b], mode="FAST_COMPILE", on_unused_input="ignore")
    for n in lengths:
        got_a, got_b = f(*_values(ins, length=n))
        np.testing.assert_allclose(got_a, got_b, rtol=1e-6, atol=1e-9)


def test_every_rule_has_examples():
    assert set(EXAMPLES) == set(RULES)
    assert set(M.MEASURABLE_CHOICES) <= set(M.MEASURABLE_RULES)
    assert relations.RULESETS["measurable"] == M.MEASURABLE_RULES
    assert relations.RULESETS["measurable_choices"] == M.MEASURABLE_CHOICES
    assert not set(M.MEASURABLE_RULES) & (set(relations.DEFAULT_RULES) - {dimshuffle_composeo})


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_forward_rewrites_to_an_equal_graph_of_the_same_type(name):
    rule = RULES[name]
    for g in EXAMPLES[name]:
        before = pytensor.dprint(g, file="str")
        out = relations.normalize(g, rules=(rule,))
        assert out is not g, (name, before)
        assert out.type == g.type
        assert pytensor.dprint(g, file="str") == before  # the input graph is not changed
        assert rule.measure(out) < rule.measure(g), (name, str(rule.measure))
        lengths = (None, 0, 1) if any(s is None for i in _inputs([g]) for s in i.type.shape) else (None,)
        _same_values(g, out, lengths)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_backward_and_check(name):
    rule, q = RULES[name], var()
    g = EXAMPLES[name][0]
    [rhs] = run(1, q, rule(g, q))
    rhs = reify(rhs)
    assert run(1, q, rule(g, rhs))  # both sides given: the relation holds
    wrong = rhs + 1 if rhs.dtype != "bool" else ~rhs
    assert not run(1, q, rule(g, wrong))
    backward = run(1, q, rule(q, rhs))  # the right side known: a left side that rewrites to it
    assert backward, name
    lhs = reify(backward[0])
    assert lhs.type == g.type
    _same_values(lhs, rhs)
    assert run(1, q, rule(lhs, rhs)), name  # and the pair is a check that holds


@pytest.mark.parametrize("name", sorted(n for n, r in RULES.items() if hasattr(r, "lhs")))
def test_pattern_rules_verify(name):
    rule = RULES[name]
    finite = name.startswith(("exp_", "clip_of", "mixture"))
    graphs = EXAMPLES[name]
    names = {str(w) for w in pattern_vars(rule.lhs)}
    domain = {k: "finite" for k in names} if finite else None
    assert relations.verify(rule, examples=60, seed=0, graphs=graphs, domain=domain) is None


def test_guards_refuse_what_is_not_equal():
    # bools: x + x is `or`; a negative scale swaps a censoring's bounds; crossed where-bounds differ from clip
    xb = pt.scalar("xb", dtype="bool")
    assert relations.normalize(xb + xb, rules=(M.add_selfo,)).owner.op == (xb + xb).owner.op
    neg = pt.clip(x, -1.0, 1.0) * -2.0
    assert relations.normalize(neg, rules=(M.clip_of_mul_posto,)) is neg
    unknown = pt.clip(x, -1.0, 1.0) * pt.scalar("c")  # a scale of unknown sign: no direction
    assert relations.normalize(unknown, rules=(M.transform_into_censoringo,)) is unknown
    crossed = pt.where(x > -1.0, -1.0, pt.maximum(x, 1.0))
    assert relations.normalize(crossed, rules=(M.switch_as_clip_geo,)) is crossed
    mixed = pt.scalar("c") * x + (1 - pt.scalar("c")) * y  # not a boolean indicator
    assert relations.normalize(mixed, rules=(M.mixture_as_switcho,)) is mixed
    partial = pt.set_subtensor(pt.ones(5)[:3], a3)  # a write into ones is not a join with zeros
    assert relations.normalize(partial, rules=(M.writes_as_joino,)) is partial


def test_the_bounds_of_a_transformed_censoring_keep_the_output_dtype():
    """exp of an int8 bound would be float32: the float64 censored point exp(1) would be missed."""
    out = relations.normalize(pt.exp(pt.clip(x, -1, 1)), rules=(M.transform_into_censoringo,))
    assert out.owner is not None and all(i.dtype == "float64" for i in out.owner.inputs)
    np.testing.assert_equal(out.eval({x: 5.0}), np.exp(1.0))


def test_a_write_into_zeros_under_a_reduction_rewrites_once():
    """The join's zero pieces take their lengths from the zero fill, not from the write itself: a
    piece reading the write's own shape made ``normalize`` rewrite the write for ever (found by the
    property run on a Sum of a write of a batched solve)."""
    x1 = pt.matrix("x1", shape=(1, 3))
    x2 = pt.matrix("x2", shape=(3, 3))
    b = pt.linalg.solve(pt.expand_dims(x2 + 8 * np.eye(3), 0), x1, b_ndim=1)
    g = pt.sum(pt.set_subtensor(pt.zeros((2, 3))[1:], b), axis=0)
    out = relations.normalize(g, relations.RULESETS["measurable"])
    assert out.type == g.type
    assert not any(isinstance(n.op, pt.subtensor.IncSubtensor) for n in pytensor.graph.traversal.applys_between([x1, x2], [out]))
    rng = np.random.default_rng(0)
    vals = {x1: rng.normal(size=(1, 3)), x2: rng.normal(size=(3, 3))}
    np.testing.assert_allclose(out.eval(vals, mode="FAST_COMPILE"), g.eval(vals, mode="FAST_COMPILE"))


def test_a_write_that_broadcasts_its_value_is_not_a_join():
    v = pt.vector("v", shape=(1,))
    g = pt.set_subtensor(pt.zeros((4, 3))[1:2], v[None, :])  # (1, 1) broadcast over the row's 3
    assert relations.normalize(g, rules=(M.writes_as_joino,)) is g


def test_every_measurable_relation_fails_at_a_node_it_does_not_match():
    """Run forward at any node (as a kanren run does, with no index choosing the node), a relation
    fails instead of raising: ``writes_as_joino`` read the value input of a node that is no write
    (an IndexError at ``exp(x)``, found by recording every rule's answers at every node)."""
    from graph_bridge import node_term
    from relations.greedy.fixpoint import replacements

    s = pt.dscalar("s")
    for g in (pt.exp(s), pt.exp(a3), pt.sum(a3), a3[1:]):
        for rel in relations.RULESETS["measurable"] + relations.RULESETS["measurable_choices"]:
            for backward in (False, True):
                assert all(r.type is not None for r in replacements(rel, g, node_term(g), backward))


# -- monotone transforms of a censored variable (graph_bridge.monotonicity) -----------------------

# a positive draw (its support is an interval fact), made by the Op itself (no deprecation warning
# about a hidden rng output on PyTensor 3.3)
e = ptr.exponential.make_node(pytensor.shared(np.random.default_rng(0)), None, pt.constant(1.0)).outputs[1]
MONOTONE = [  # (transform of a censoring, what it becomes)
    (pt.clip(x, -1.0, 1.0) * -2.0, "Clip"),  # decreasing: the bounds swap
    (-pt.maximum(x, 0.0), "Minimum"),
    (1.0 - pt.minimum(x, 1.0), "Maximum"),
    (pt.sqrt(pt.clip(e, 1.0, 4.0)), "Clip"),
    (pt.log(pt.clip(e, 0.5, 3.0)), "Clip"),
    (1.0 / pt.maximum(e, 2.0), "Minimum"),
    (pt.clip(e, 1.0, 3.0) ** 2, "Clip"),
    (pt.clip(x, -1.0, 2.0) ** 3, "Clip"),
    (pt.sigmoid(pt.minimum(x, 1.0)), "Minimum"),
    (pt.clip(e, 1.0, 3.0) ** -0.5, "Clip"),
    (pt.clip(x, -2, 2) / -4.0, "Clip"),
]
NOT_MONOTONE = [  # the direction is unknown on the censored variable's range: left as it is
    pt.sqrt(pt.clip(x, 0.0, 4.0)),  # x may be negative: sqrt(x) is nan there
    pt.log(pt.maximum(x, 1.0)),
    pt.clip(x, -1.0, 1.0) ** 2,  # not monotone across 0
    pt.clip(x, 1.0, -1.0) * -1.0,  # decreasing, but lo <= hi is false: clip's bounds cannot swap
    1.0 / pt.clip(x, 1.0, 2.0),  # x may be 0
]


def _draws(graph, n=200):
    """The graph's values over ``n`` values of its free input (``x`` uniform on [-3, 3]) or draws."""
    ins = _inputs([graph])
    f = pytensor.function(ins, graph, mode="FAST_COMPILE")
    if not ins:
        return np.array([f() for _ in range(n)])
    return np.array([f(t) for t in np.linspace(-3, 3, n)])


@pytest.mark.parametrize("graph,head", MONOTONE, ids=lambda g: str(g))
def test_a_monotone_transform_moves_into_the_censoring_forward_backward_and_as_a_check(graph, head):
    rule, q = M.transform_into_censoringo, var()
    before = pytensor.dprint(graph, file="str")
    out = relations.normalize(graph, rules=(rule,))
    assert type(out.owner.op.scalar_op).__name__ == head and out.type == graph.type
    assert pytensor.dprint(graph, file="str") == before
    # values: the same function of x (a draw's stream is the same in both graphs)
    ins = _inputs([graph])
    if ins:
        _same_values(graph, out)
    else:  # one draw feeds both outputs
        f = pytensor.function([], [graph, out], mode="FAST_COMPILE")
        for _ in range(50):
            a, b = f()
            np.testing.assert_allclose(a, b, rtol=1e-12)
    [rhs] = run(1, q, rule(graph, q))
    assert run(1, q, rule(graph, reify(rhs)))  # a check that holds
    assert not run(1, q, rule(graph, reify(rhs) + 1.0))
    back = run(1, q, rule(q, reify(rhs)))  # backward: the transform outside again
    assert back and reify(back[0]).type == graph.type


@pytest.mark.parametrize("graph", NOT_MONOTONE, ids=str)
def test_a_transform_of_unknown_direction_is_left_as_it_is(graph):
    assert relations.normalize(graph, rules=(M.transform_into_censoringo,)) is graph


def test_elements_that_repeat_or_come_from_two_vectors_are_no_sum_of_a_vector():
    for g in (v3[0] + v3[0], v3[0] + a3[1]):
        assert relations.normalize(g, rules=(M.slices_sumo,)) is g
    for g in (pt.stack([v3[0], v3[0] + v3[2]]), pt.stack([v3[1], v3[1] + v3[0]]), pt.stack([v3[0], v3[0] + a3[1]])):
        assert relations.normalize(g, rules=(M.partial_sums_as_cumsumo,)) is g


def test_the_log_odds_hold_at_the_ends_and_outside_the_unit_interval():
    """Both sides are -inf at 0, inf at 1 and nan outside [0, 1]: the identities hold at every float."""
    points = np.array([0.0, 1e-300, 0.3, 0.5, 0.75, 1.0, -0.5, 2.0])  # equal up to rounding: 1 - 1e-16 differs by log 2
    for g in EXAMPLES["log_odds_divo"] + EXAMPLES["log_odds_log1po"] + EXAMPLES["log_odds_logo"]:
        out = relations.normalize(g, rules=relations.RULESETS["measurable"])
        f = pytensor.function([x], [g, out], mode="FAST_COMPILE")
        with np.errstate(all="ignore"):
            for t in points:
                a, b = f(t)
                np.testing.assert_allclose(a, b, rtol=1e-9, equal_nan=True)


def test_an_incomplete_or_shuffled_stack_of_elements_is_not_the_vector():
    for g in (pt.stack([v3[0], v3[1]]), pt.stack([v3[1], v3[0], v3[2]]), pt.stack([v3[0], a3[1], v3[2]])):
        assert relations.normalize(g, rules=(M.stacked_elementso,)) is g
    assert relations.normalize(pt.maximum(v3[0], v3[0]), rules=(M.elements_extremumo,)).owner.op.scalar_op is not None


def test_an_extremum_of_a_transform_of_unknown_direction_is_left_as_it_is():
    for g in (pt.max(pt.sqr(v3)), pt.max(pt.log(v3)), pt.max(v3 * pt.scalar("c")), pt.max(-v3), pt.max(1.0 / _b3)):
        assert relations.normalize(g, rules=(M.transform_out_of_extremumo,)) is g


def test_a_switch_of_scalars_is_no_masked_write():
    """PyTensor has no boolean scalar indexing: the backward of masked_set_as_switcho leaves a scalar switch."""
    q = var()
    assert not run(1, q, M.masked_set_as_switcho(q, pt.switch(x > 1, 1.0, x)))
