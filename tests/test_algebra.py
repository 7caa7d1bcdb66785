"""The algebra rule set (``relations/rules/algebra.py``): each relation forward, backward, as a check, on values.

Each case is a left side a user (or canonicalize) writes, the right side
the rule gives, and the run-time shapes its values are compared on
(length-0 and length-1 dims included).  ``relations.verify`` checks each
rule on drawn graphs; the rules that stabilize (their right side is the
accurate value where the left side overflows) are verified on a finite
domain, and off it the counterexample ``verify`` finds must be one where
the left side is not finite and the right side is.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.graph.traversal
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import Mode
from pytensor.graph.basic import equal_computations

import relations
from helpers import backward, check_rewrite, forward, holds
from relations.rules import algebra as alg

x = pt.vector("x")
y = pt.vector("y")
x32 = pt.vector("x32", dtype="float32")
m = pt.matrix("m")
VEC = [(0,), (1,), (5,)]
MAT = [(2, 3), (1, 1), (0, 2), (3, 0)]
#: a weighted sum's shapes: three columns for the weights, no empty reduced axis (PyTensor's Max, which the
#: max shift reads as its own ``logsumexp`` does, raises on one under the Python linker)
MAT3 = [(2, 3), (1, 3), (0, 3)]
W3 = pt.constant(np.array([0.25, -0.25, 0.5]))
x2 = pt.vector("x2", shape=(2,))
m3 = pt.matrix("m3", shape=(None, 3))
y3 = pt.vector("y3", shape=(3,))
#: the weighted sums' exponents, named as the rules' variable: ``domain={"a": ...}`` bounds them
A3, A2 = pt.matrix("a", shape=(None, 3)), pt.vector("a", shape=(2,))


def _shifted(a, axis):
    top = pt.max(a, axis=axis)
    mm = pt.switch(pt.isinf(top), 0, top)
    return mm, pt.expand_dims(mm, axis)

#: name -> (left side, expected right side, run-time shapes)
CASES = {
    "mul_minus_one_nego": (lambda: pt.mul(-1.0, x), lambda: pt.neg(x), {x: VEC}),
    "mul_minus_one_nego_rev": (lambda: pt.neg(x), lambda: pt.mul(-1.0, x), {x: VEC}),
    "sub_add_nego": (lambda: x - y, lambda: x + pt.neg(y), {x: VEC, y: VEC}),
    "sub_add_nego_rev": (lambda: x + pt.neg(y), lambda: x - y, {x: VEC, y: VEC}),
    "add_neg_first_as_subo": (lambda: pt.neg(y) + x, lambda: x - y, {x: VEC, y: VEC}),
    "neg_subo": (lambda: pt.neg(x - y), lambda: y - x, {x: VEC, y: VEC}),
    "neg_nego": (lambda: pt.neg(pt.neg(x)), lambda: x, {x: VEC}),
    "div_mul_reciprocalo": (lambda: x / y, lambda: x * pt.reciprocal(y), {x: VEC, y: VEC}),
    "div_mul_reciprocalo_rev": (lambda: x * pt.reciprocal(y), lambda: x / y, {x: VEC, y: VEC}),
    "div_mul_righto": (lambda: (3.0 * pt.exp(m)) / pt.sum(pt.exp(m), axis=1, keepdims=True),
                       lambda: 3.0 * (pt.exp(m) / pt.sum(pt.exp(m), axis=1, keepdims=True)), {m: MAT}),
    "div_mul_lefto": (lambda: (x * y) / pt.sum(pt.exp(y)), lambda: (x / pt.sum(pt.exp(y))) * y, {x: VEC, y: VEC}),
    "one_div_reciprocalo": (lambda: 1.0 / x, lambda: pt.reciprocal(x), {x: VEC}),
    "one_div_reciprocalo_rev": (lambda: pt.reciprocal(x), lambda: 1.0 / x, {x: VEC}),
    "pow_minus_one_as_reciprocalo": (lambda: x**-1, lambda: pt.reciprocal(x), {x: VEC}),
    "reciprocal_exp_nego": (lambda: pt.reciprocal(pt.exp(x)), lambda: pt.exp(pt.neg(x)), {x: VEC}),
    "reciprocal_exp_nego_rev": (lambda: pt.exp(pt.neg(x)), lambda: pt.reciprocal(pt.exp(x)), {x: VEC}),
    "mul_exp_as_exp_addo": (lambda: pt.exp(x) * pt.exp(y), lambda: pt.exp(x + y), {x: VEC, y: VEC}),
    "pow_two_as_sqro": (lambda: x**2, lambda: pt.sqr(x), {x: VEC}),
    "mul_self_as_sqro": (lambda: x * x, lambda: pt.sqr(x), {x: VEC}),
    "exp_sqr_erfc_as_erfcxo": (lambda: pt.exp(pt.sqr(x)) * pt.erfc(x), lambda: pt.erfcx(x), {x: VEC}),
    "erfc_exp_sqr_as_erfcxo": (lambda: pt.erfc(x) * pt.exp(pt.sqr(x)), lambda: pt.erfcx(x), {x: VEC}),
    "log_gamma_as_gammalno": (
        lambda: pt.log(pt.gamma(x)),
        lambda: pt.gammaln(x) + pt.log(pt.sign(pt.gamma(x))),
        {x: VEC},
    ),
    "upcast_through_elemwiseo": (
        lambda: pt.cast(pt.exp(x32), "float64"),
        lambda: pt.exp(pt.cast(x32, "float64")),
        {x32: VEC},
    ),
    "elemwise_alloc_lifto": (
        lambda: 1.0 + pt.broadcast_to(pt.exp(x), (3, x.shape[0])),
        lambda: pt.broadcast_to(1.0 + pt.exp(x), (3, x.shape[0])),
        {x: VEC},
    ),
    "elemwise_alloc_operand_lifto": (
        lambda: pt.exp(x)[None] / pt.broadcast_to(1.0 + pt.exp(x), (3, x.shape[0])),
        lambda: pt.broadcast_to(pt.exp(x)[None] / (1.0 + pt.exp(x)), (3, x.shape[0])),
        {x: VEC},
    ),
    "log_div_by_lengtho": (
        lambda: pt.log(pt.mean(pt.exp(m), axis=1)),
        lambda: pt.log(pt.sum(pt.exp(m), axis=1)) - pt.log(pt.cast(pt.exp(m).shape, "float64")[1][None]),
        {m: MAT},
    ),
    "log_mul_positive_consto": (
        lambda: pt.log(3.0 * pt.sum(pt.exp(m), axis=1)),
        lambda: pt.log(pt.constant(np.float64(3.0))) + pt.log(pt.sum(pt.exp(m), axis=1)),
        {m: MAT},
    ),
    "dot_ones_sumo": (
        lambda: pt.dot(pt.exp(m), pt.ones((m.shape[1], 1))),
        lambda: pt.expand_dims(pt.sum(pt.exp(m), axis=1), 1),
        {m: MAT},
    ),
    "ones_dot_sumo": (
        lambda: pt.dot(pt.ones((1, m.shape[0])), pt.exp(m)),
        lambda: pt.expand_dims(pt.sum(pt.exp(m), axis=0), 0),
        {m: MAT},
    ),
    "dot_column_sumo": (
        lambda: pt.dot(pt.exp(m), y[:, None]),
        lambda: pt.expand_dims(pt.sum(pt.exp(m) * y[:, None].dimshuffle("x", 0), axis=1), 1),
        {m: MAT, y: [(3,), (1,), (2,), (0,)]},
    ),
    "log_one_plus_sum_expo": (
        lambda: pt.log(1 + pt.sum(pt.exp(m), axis=1)),
        lambda: pt.softplus(pt.log(pt.sum(pt.exp(m), axis=1))),
        {m: MAT},
    ),
    "log_sum_weighted_expo": (
        lambda: pt.log(pt.sum(W3 * pt.exp(m), axis=1)),
        lambda: _shifted(m, 1)[0] + pt.log(pt.sum(W3 * pt.exp(m - _shifted(m, 1)[1]), axis=1)),
        {m: MAT3},
    ),
    "log_sum_exp_weightedo": (
        lambda: pt.log(pt.sum(pt.exp(m) * y[None, :], axis=1)),
        lambda: _shifted(m, 1)[0] + pt.log(pt.sum(pt.exp(m - _shifted(m, 1)[1]) * y[None, :], axis=1)),
        {m: MAT3, y: [(3,), (3,), (3,)]},
    ),
    "downcast_above_elemwiseo": (
        lambda: pt.log(pt.cast(pt.exp(x), "float32")),
        lambda: pt.cast(pt.log(pt.exp(x)), "float32"),
        {x: VEC},
    ),
    "log_reshape_lifto": (
        lambda: pt.log(pt.special.softmax(m, axis=1).flatten()),
        lambda: pt.reshape(pt.log(pt.special.softmax(m, axis=1)), (-1,)),
        {m: MAT},
    ),
    "log_specify_shape_lifto": (
        lambda: pt.log(pt.specify_shape(pt.exp(x), (x.shape[0],))),
        lambda: pt.specify_shape(pt.log(pt.exp(x)), (x.shape[0],)),
        {x: VEC},
    ),
    "log_specify_shape2_lifto": (
        lambda: pt.log(pt.specify_shape(pt.special.softmax(m, axis=1), (m.shape[0], None))),
        lambda: pt.specify_shape(pt.log(pt.special.softmax(m, axis=1)), (m.shape[0], None)),
        {m: MAT},
    ),
    "add_split_firsto": (lambda: pt.add(-1.0, pt.exp(x), y), lambda: pt.add(-1.0, pt.add(pt.exp(x), y)), {x: VEC, y: VEC}),
    "add_split_secondo": (lambda: pt.add(-1.0, pt.exp(x), y), lambda: pt.add(pt.exp(x), pt.add(-1.0, y)), {x: VEC, y: VEC}),
    "add_split_thirdo": (lambda: pt.add(-1.0, pt.exp(x), y), lambda: pt.add(y, pt.add(-1.0, pt.exp(x))), {x: VEC, y: VEC}),
    "mul_split_firsto": (
        lambda: pt.mul(0.5, pt.exp(pt.sqr(x)), pt.erfc(x)),
        lambda: pt.mul(0.5, pt.mul(pt.exp(pt.sqr(x)), pt.erfc(x))),
        {x: VEC},
    ),
    "mul_split_secondo": (
        lambda: pt.mul(pt.sigmoid(x), pt.sigmoid(y), m),
        lambda: pt.mul(pt.sigmoid(y), pt.mul(pt.sigmoid(x), m)),
        {x: [(3,), (1,), (0,)], y: [(3,), (1,), (0,)], m: [(2, 3), (1, 1), (2, 0)]},
    ),
    "mul_split_thirdo": (
        lambda: pt.mul(pt.sigmoid(x), pt.sigmoid(y), pt.sigmoid(x)),
        lambda: pt.mul(pt.sigmoid(x), pt.mul(pt.sigmoid(x), pt.sigmoid(y))),
        {x: VEC, y: VEC},
    ),
    "add_commuteo": (lambda: pt.exp(x) + y, lambda: y + pt.exp(x), {x: VEC, y: VEC}),
    "mul_commuteo": (lambda: pt.exp(x) * y, lambda: y * pt.exp(x), {x: VEC, y: VEC}),
    "add_associateo": (lambda: pt.add(pt.add(x, y), pt.exp(x)), lambda: pt.add(x, pt.add(y, pt.exp(x))), {x: VEC, y: VEC}),
    "mul_associateo": (lambda: pt.mul(pt.mul(x, y), pt.exp(x)), lambda: pt.mul(x, pt.mul(y, pt.exp(x))), {x: VEC, y: VEC}),
}

#: Rules whose right side is the accurate value where the left side overflows: the finite domain
#: ``verify`` checks them on.
DOMAINS = {
    "mul_exp_as_exp_addo": {"a": "finite", "b": "finite"},
    "exp_sqr_erfc_as_erfcxo": {"x": (-5, 5)},
    "erfc_exp_sqr_as_erfcxo": {"x": (-5, 5)},
    "log_gamma_as_gammalno": {"x": (-30, 30)},
    "upcast_through_elemwiseo": {"x": "finite"},
    "add_associateo": {"a": "finite", "b": "finite", "x": "finite"},
    **{f"{op}_split_{k}o": {"a": "finite", "b": "finite", "x": "finite"}
       for op in ("add", "mul") for k in ("first", "second", "third")},
    "mul_associateo": {"a": "finite", "b": "finite", "x": "finite"},
    "log_sum_weighted_expo": {"a": (-30, 30)},
    "log_sum_exp_weightedo": {"a": (-30, 30)},
    "div_mul_righto": {"a": "finite", "b": "finite"},
    "div_mul_lefto": {"a": "finite", "b": "finite"},
}
#: Rules ``verify`` cannot draw a left side of (their guards ask a length or a positive constant): their
#: own graphs, at finite inputs.
GRAPHS_ONLY = {
    "log_div_by_lengtho": lambda: [pt.log(pt.mean(pt.exp(m), axis=1)), pt.log(pt.mean(pt.abs(m)))],
    "log_mul_positive_consto": lambda: [pt.log(3.0 * pt.sum(pt.exp(m), axis=1)), pt.log(0.5 * pt.abs(x))],
    "elemwise_alloc_operand_lifto": lambda: [
        pt.exp(x)[None] / pt.broadcast_to(1.0 + pt.exp(x), (3, x.shape[0])),
        x * pt.broadcast_to(pt.exp(y), (2, y.shape[0])),
    ],
}
#: Graphs ``verify`` draws no instance of by itself (a cast of a float32 unary Elemwise; float32 gamma).
GRAPHS = {
    # (a division by a sum: verify draws none by itself)
    "div_mul_righto": lambda: [(x * y) / pt.sum(pt.exp(y)), (2.0 * m) / pt.sum(m * m, axis=1, keepdims=True)],
    "div_mul_lefto": lambda: [(x * y) / pt.sum(pt.exp(y)), (m * 2.0) / pt.sum(m * m, axis=1, keepdims=True)],
    "upcast_through_elemwiseo": lambda: [
        pt.cast(pt.exp(x32), "float64"),
        pt.cast(pt.log1p(pt.matrix("m32", dtype="float32")), "float64"),
        pt.cast(pt.sigmoid(x32), "float64"),
    ],
    "log_gamma_as_gammalno": lambda: [pt.log(pt.gamma(pt.vector("x", dtype="float32")))],
    "dot_ones_sumo": lambda: [pt.dot(pt.exp(m), pt.ones((m.shape[1], 1))), pt.dot(m3, pt.constant(np.ones((3, 1))))],
    "ones_dot_sumo": lambda: [pt.dot(pt.ones((1, m.shape[0])), pt.exp(m))],
    "dot_column_sumo": lambda: [pt.dot(pt.exp(m3), y3[:, None]), pt.dot(m3, pt.constant(np.array([[0.5], [-1.0], [2.0]])))],
    "log_one_plus_sum_expo": lambda: [pt.log(1 + pt.sum(pt.exp(m), axis=1)), pt.log(1 + pt.sum(pt.exp(x)))],
    "log_sum_weighted_expo": lambda: [pt.log(pt.sum(W3 * pt.exp(A3), axis=1)), pt.log(pt.sum(2.0 * pt.exp(A2)))],
    "log_sum_exp_weightedo": lambda: [pt.log(pt.sum(pt.exp(A3) * y3[None, :], axis=1))],
    "downcast_above_elemwiseo": lambda: [pt.log(pt.cast(pt.exp(x), "float32")), pt.sqrt(pt.cast(x, "float32"))],
    "log_reshape_lifto": lambda: [pt.log(pt.special.softmax(m, axis=1).flatten()), pt.log(pt.reshape(pt.exp(m), (-1,)))],
    "log_specify_shape_lifto": lambda: [pt.log(pt.specify_shape(pt.exp(x), (x.shape[0],)))],
    "log_specify_shape2_lifto": lambda: [pt.log(pt.specify_shape(pt.special.softmax(m, axis=1), (m.shape[0], None)))],
}
#: Rules whose right side reads a ``Max`` as PyTensor's own ``logsumexp`` does: on an empty reduced axis the
#: Python and C backends raise where the left side gives ``-inf`` (as they do on PyTensor's own form), the
#: default (Numba) gives ``-inf``; ``verify`` compiles them with it.
MAX_SHIFTED = {"log_sum_weighted_expo", "log_sum_exp_weightedo"}
RULES = {r.__name__: r for r in alg.ALGEBRA_RULES}


def test_every_rule_has_a_case():
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_gives_the_right_side_and_keeps_values(name):
    lhs_of, rhs_of, shapes = CASES[name]
    lhs, expected = lhs_of(), rhs_of()
    found = forward(RULES[name], lhs)
    assert found, f"{name} did not rewrite {lhs}"
    check_rewrite(lhs, found[0], shapes)
    check_rewrite(found[0], expected, shapes)


@pytest.mark.parametrize("name", sorted(CASES))
def test_backward_builds_a_left_side_with_the_right_sides_values(name):
    lhs_of, rhs_of, shapes = CASES[name]
    rhs = rhs_of()
    if RULES[name] is alg.ALGEBRA["neg_nego"]:  # an identity rule: backward wraps any graph in two negations
        (found,) = backward(RULES[name], rhs, n=1)
        assert equal_computations([found], [pt.neg(pt.neg(x))])
        return
    found = backward(RULES[name], rhs, n=2)
    assert found, f"{name} built no left side for {rhs}"
    lhs = lhs_of()
    assert type(found[0].owner.op) is type(lhs.owner.op)
    check_rewrite(rhs, found[0], shapes)


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_holds_on_the_pair_and_not_on_another_graph(name):
    lhs_of, rhs_of, _ = CASES[name]
    lhs = lhs_of()
    (rhs,) = forward(RULES[name], lhs, n=1)
    assert holds(RULES[name], lhs, rhs)
    assert not holds(RULES[name], lhs, pt.exp(pt.exp(lhs)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_verify_finds_no_counterexample(name):
    graphs = GRAPHS[name]() if name in GRAPHS else None
    if name in GRAPHS_ONLY:
        graphs = GRAPHS_ONLY[name]()
        for domain in ({v.name: "finite" for v in (x, y, m)}, None):
            try:
                ce = relations.verify(RULES[name], examples=40, seed=0, graphs=graphs, domain=domain)
            except ValueError:  # (no drawn left side: the graphs above are all it checks)
                continue
            assert ce is None
        return
    if name in MAX_SHIFTED:
        mode = Mode(linker="numba", optimizer=None)
        assert relations.verify(RULES[name], examples=8, seed=0, domain=DOMAINS[name], graphs=graphs, mode=mode) is None
        return
    assert relations.verify(RULES[name], examples=80, seed=0, domain=DOMAINS.get(name), graphs=graphs) is None


@pytest.mark.parametrize("name", sorted(MAX_SHIFTED))
def test_the_weighted_logsumexp_is_finite_where_the_sum_overflows_and_keeps_empty_and_infinite_rows(name):
    lhs_of, _, _ = CASES[name]
    lhs = lhs_of()
    (rhs,) = forward(RULES[name], lhs, n=1)
    ins = [v for v in (m, y) if v in set(pytensor.graph.traversal.explicit_graph_inputs([lhs]))]
    before, after = pytensor.function(ins, lhs), pytensor.function(ins, rhs)  # the default backend
    w = [np.array([1.0, 2.0, 0.5])] if len(ins) == 2 else []
    big = np.array([[800.0, 799.0, 0.0], [-np.inf, -np.inf, -np.inf], [np.inf, 0.0, 1.0]])
    got = after(big, *w)
    weights = W3.data if not w else w[0]
    expected = 800.0 + np.log(weights[0] + weights[1] * np.exp(-1.0) + weights[2] * np.exp(-800.0))
    np.testing.assert_allclose(got[0], expected, rtol=1e-12)
    assert not np.isfinite(before(big, *w)[0])  # the spelling overflows (inf, or inf - inf)
    assert got[1] == before(big, *w)[1] == -np.inf
    np.testing.assert_array_equal(got[2], before(big, *w)[2])  # inf or nan as the spelling gives
    if w:  # an empty reduced axis: the default backend gives -inf, as the spelling does
        np.testing.assert_array_equal(after(np.zeros((2, 0)), np.zeros(0)), [-np.inf, -np.inf])
        np.testing.assert_array_equal(before(np.zeros((2, 0)), np.zeros(0)), [-np.inf, -np.inf])


@pytest.mark.parametrize("name", ["mul_exp_as_exp_addo", "exp_sqr_erfc_as_erfcxo", "log_gamma_as_gammalno"])
def test_off_the_domain_only_non_finite_left_sides_change(name):
    ce = relations.verify(RULES[name], examples=80, seed=0)
    assert ce is not None
    before, after = np.asarray(ce.before_value), np.asarray(ce.after_value)
    changed = ~np.isclose(before, after, equal_nan=True)
    assert changed.any()
    assert not np.isfinite(before[changed]).any() and np.isfinite(after[changed]).all()


def test_a_dot_with_ones_is_a_sum_and_not_a_weighted_one():
    ones = pt.ones((m.shape[1], 1))
    assert forward(alg.ALGEBRA["dot_column_sumo"], pt.dot(m, ones)) == []  # dot_ones_sumo's: no product by 1
    assert forward(alg.ALGEBRA["dot_ones_sumo"], pt.dot(m, y[:, None])) == []  # weights are not ones
    assert forward(alg.ALGEBRA["dot_column_sumo"], pt.dot(m, pt.matrix("two", shape=(None, 2)))) == []
    # a broadcastable column of a against rows of c that are not (or the converse): the Dot checks the lengths
    # agree, a product would broadcast them
    col = pt.matrix("col", shape=(None, 1))
    assert forward(alg.ALGEBRA["dot_column_sumo"], pt.dot(col, y[:, None])) == []
    assert forward(alg.ALGEBRA["dot_column_sumo"], pt.dot(m, pt.matrix("c11", shape=(1, 1)))) == []
    assert forward(alg.ALGEBRA["dot_column_sumo"], pt.dot(col, pt.matrix("c11", shape=(1, 1))))


def test_the_guards_refuse_ints_and_other_casts():
    i = pt.vector("i", dtype="int64")
    assert forward(alg.ALGEBRA["mul_minus_one_nego"], pt.mul(-1, i)) == []
    assert forward(alg.ALGEBRA["upcast_through_elemwiseo"], pt.cast(pt.exp(x), "float32")) == []  # a downcast
    assert forward(alg.ALGEBRA["upcast_through_elemwiseo"], pt.cast(pt.floor(x32), "float64")) == []  # floor: not listed
    (f32,) = forward(alg.ALGEBRA["log_gamma_as_gammalno"], pt.log(pt.gamma(x32)), n=1)
    assert f32.type == pt.log(pt.gamma(x32)).type


def test_the_alloc_lift_takes_a_folded_one_element_constant():
    from pytensor.graph.rewriting.utils import rewrite_graph

    g = rewrite_graph(pt.log(1 + pt.broadcast_to(pt.exp(x), (3, x.shape[0]))), include=("canonicalize",))
    inner = g.owner.inputs[0]
    assert inner.owner.inputs[0].data.shape == (1, 1)  # canonicalize's [[1.]]
    (lifted,) = forward(alg.ALGEBRA["elemwise_alloc_lifto"], inner, n=1)
    check_rewrite(inner, lifted, {x: VEC})
    assert forward(alg.ALGEBRA["elemwise_alloc_lifto"], pt.exp(x) + pt.broadcast_to(pt.exp(y), (3, y.shape[0]))) == []


def test_the_rule_set_is_registered_as_choices_for_saturation():
    algebra = relations.RULESETS["algebra"]
    assert set(algebra) == set(alg.ALGEBRA_RULES)
    assert not set(algebra) & set(relations.DEFAULT_RULES)
    assert not set(algebra) & set(relations.COMPILE_RULES)


def test_normalize_and_explain_refuse_the_algebra_by_name_and_best_runs_it():
    """The algebra's rules undo one another (``neg(a) -> mul(-1, a)`` and back): the greedy pass would not
    stop, so it refuses them, naming the rule and its set; saturation runs them."""
    x = pt.dvector("x")
    g = -x
    for call in (lambda: relations.normalize(g, relations.RULESETS["algebra"]),
                 lambda: relations.explain(g, relations.DEFAULT_RULES + relations.RULESETS["algebra"])):
        with pytest.raises(ValueError, match=r"rules\[\d+\] \('\w+'\) is (in RULESETS\['algebra'\]|a choice rule with no measure)"):
            call()
    out = relations.best(g, rules=relations.DEFAULT_RULES + relations.RULESETS["algebra"])
    assert out.type == g.type
    np.testing.assert_allclose(out.eval({x: np.array([1.0, -2.0])}, mode="FAST_COMPILE"), [-1.0, 2.0])


def test_the_operand_lift_backward_keeps_an_expansion_the_forward_would_not_make():
    """Backward from ``alloc(neg(expand_dims(s)), ...)``, ``elemwise_alloc_operand_lifto`` gave
    ``neg(alloc(s, ...))``: the forward expands a value only up to the other operands' dims (none
    here), so that pair failed its own check and a saturation proof through it did not check
    (found by the thorough property run).  Every backward answer now holds as a check, and it
    keeps the value the forward reads."""
    s = pt.sum(m)
    rhs = pt.alloc(pt.neg(pt.expand_dims(s, (0, 1))), 0, 1, 1)
    answers = backward(alg.ALGEBRA["elemwise_alloc_operand_lifto"], rhs)
    assert answers
    for lhs in answers:
        assert holds(alg.ALGEBRA["elemwise_alloc_operand_lifto"], lhs, rhs)
        assert lhs.type == rhs.type
    # with an operand of the expanded dims, the expansion is the forward's and comes off
    y2 = pt.matrix("y2", shape=(1, 1))
    rhs2 = pt.alloc(pt.add(pt.expand_dims(s, (0, 1)), y2), 3, 1)
    for lhs in backward(alg.ALGEBRA["elemwise_alloc_operand_lifto"], rhs2):
        assert holds(alg.ALGEBRA["elemwise_alloc_operand_lifto"], lhs, rhs2)


def test_the_log_of_a_constant_factor_is_taken_in_the_operands_dtype():
    """PyTensor reads ``0.5 * x`` with a float32 ``0.5`` (and ``3 * x`` with an int8 ``3``): the log of it is built
    in ``x``'s dtype, not float32's 2e-9 off; backward the constant is the widened one."""
    rule = RULES["log_mul_positive_consto"]
    for const in (0.5, 3):
        g = pt.log(const * pt.exp(x))
        assert str(g.owner.inputs[0].owner.inputs[0].type.dtype) in ("float32", "int8")
        (found,) = forward(rule, g, n=1)
        logs = [v for v in pytensor.graph.traversal.ancestors([found]) if v.owner is not None
                and "Log" in str(v.owner.op) and not v.owner.inputs[0].owner]
        (lc,) = logs
        assert lc.type.dtype == "float64"
        got = pytensor.function([x], found, mode="FAST_COMPILE")(np.array([0.25, 700.0]))
        np.testing.assert_allclose(got, np.log(const) + np.array([0.25, 700.0]), rtol=1e-15)
        assert holds(rule, g, found)


def test_a_product_is_divided_factor_by_factor_only_by_a_sum():
    """``div_mul_righto`` and ``div_mul_lefto`` read a division by a sum (or a DimShuffle of one: a softmax's
    denominator), not any division: ``exp(-x / nu) * erfc(z) / nu`` (an ExGaussian density) is left alone, where
    the factors' forms in the pass's e-graph crowded out the ones its stabilizers need."""
    for name in ("div_mul_righto", "div_mul_lefto"):
        rule = RULES[name]
        assert forward(rule, (pt.exp(x) * y) / (y + 2.0)) == []
        assert forward(rule, (pt.exp(x) * y) / pt.sum(pt.exp(x))) != []
        assert forward(rule, (pt.exp(m) * m) / pt.sum(pt.exp(m), axis=1)[:, None]) != []
