"""Rules declared as two patterns (relations.rewrite_rule): three ways, guards, constants, rule sets."""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
import pytest
from kanren import lall, run
from pytensor.graph.basic import equal_computations
from unification import var

import relations
from graph_bridge import ExplicitAlloc, etuplize, ndimo, reify
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations import RULESETS, rewrite_rule
from relations import patterns as p


@pytest.fixture
def a():
    return p.var("a")


def test_neg_neg_three_ways(a):
    r = rewrite_rule("neg_neg", p.neg(p.neg(a)), a)
    assert r.name == r.__name__ == "neg_neg"
    x = pt.vector("x")
    e = pt.exp(x)
    lhs = pt.neg(pt.neg(e))
    [out] = forward(r, lhs)
    assert out is e
    check_rewrite(lhs, out, {x: [(0,), (1,), (4,)]})
    gen = backward(r, e)
    assert len(gen) == 1 and equal_computations(gen, [pt.neg(pt.neg(e))])
    assert holds(r, lhs, e)
    assert holds(r, pt.neg(pt.neg(pt.exp(x))), pt.exp(x))  # separately built graphs
    assert not holds(r, lhs, pt.log(x))
    assert not forward(r, pt.neg(pt.exp(x)))


def test_rule_is_relation_in_kanren_with_fresh_variables(a):
    r = rewrite_rule("neg_neg", p.neg(p.neg(a)), a)
    x = pt.vector("x")
    four = etuplize(pt.neg(pt.neg(pt.neg(pt.neg(x)))))
    q, mid = var(), var()
    # the same rule twice in one conjunction: each use has its own variables
    [res] = run(1, q, lall(r(four, mid), r(mid, q)))
    assert reify(res) is x


def test_index_facts_from_patterns(a):
    from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

    r = rewrite_rule("sum_ds", p.sum(p.expand_dims(a, 0)), p.sum(a))
    assert issubclass(r.heads[0], CAReduce) and r.child_heads == (DimShuffle,)
    assert issubclass(r.rhs_heads[0], CAReduce)
    n = rewrite_rule("neg_neg", p.neg(p.neg(a)), a)
    assert Elemwise in n.heads and n.rhs_heads is None and Elemwise in n.child_heads
    assert n.measure.stated and str(n.measure) == "all nodes"  # rhs has fewer nodes: the node count
    x = pt.vector("x")
    assert n.measure(pt.neg(pt.neg(x))) == 2 and n.measure(x) == 0
    lift = rewrite_rule("exp_neg", p.exp(p.neg(a)), p.neg(p.exp(a)), choice=True)
    assert not lift.measure.stated and "pattern nodes: 2 on the left, 2 on the right" in str(lift.measure)
    with pytest.raises(TypeError, match="only a text"):
        lift.measure(x)
    # identity rules (the right side an input of the left root) are not run backward by saturation
    assert rewrite_rule("mul_one", p.mul(a, 1), a).identity
    assert not n.identity and not lift.identity  # neg_neg's ``a`` is a grandchild: backward adds nodes
    assert n.rhs_child_heads is None
    assert rewrite_rule("ix", p.exp(a), p.neg(a), rhs_child_heads=(Elemwise,), choice=True).rhs_child_heads == (Elemwise,)
    # heads= / rhs_heads= narrow what the roots give: p.reduce is any CAReduce
    from pytensor.tensor.math import Sum

    h = p.var("h")
    any_reduction = rewrite_rule("sum_neg", p.reduce(h, p.neg(a)), p.neg(p.reduce(h, a)), choice=True)
    assert any_reduction.heads == (CAReduce,) and Elemwise in any_reduction.rhs_heads
    sums = rewrite_rule("sum_neg", p.reduce(h, p.neg(a)), p.neg(p.reduce(h, a)), heads=(Sum,), rhs_heads=(Elemwise,), choice=True)
    assert sums.heads == (Sum,) and sums.rhs_heads == (Elemwise,)
    index = relations.patterns.relation.RuleIndex([sums])
    assert index.forward(Sum) == (sums,) and index.forward(CAReduce) == ()


def test_normalize_with_default_rules_plus_user_rule(a):
    r = rewrite_rule("mul_one", p.mul(a, 1.0), a)
    x = pt.matrix("x")
    y = pt.exp(x * 1.0) + pt.neg(pt.neg(x))
    before = snapshot(y)
    z = relations.normalize(y, rules=relations.DEFAULT_RULES + (r,))
    assert snapshot(y) == before
    assert not any(
        v.owner is not None and getattr(v.owner.op, "scalar_op", None) == pt.mul.scalar_op
        for v in _ancestors(z)
    )
    check_rewrite(y, z, {x: [(0, 2), (1, 1), (3, 2)]})


def _ancestors(v):
    from pytensor.graph.traversal import ancestors

    return list(ancestors([v]))


def test_equivalents_match_best_accept_user_rules(a):
    r = rewrite_rule("neg_neg", p.neg(p.neg(a)), a)
    x = pt.vector("x")
    forms = list(relations.equivalents(pt.exp(x), rules=RULESETS["default"] + (r,), depth=1))
    assert any(equal_computations([f], [pt.neg(pt.neg(pt.exp(x)))]) for f in forms)
    from etuples import etuple

    pattern = etuple(etuplize(pt.exp), var("arg"))
    answers = list(relations.match(pt.neg(pt.neg(pt.exp(x))), pattern, rules=(r,)))
    assert [ans[var("arg")] for ans in answers] == [x]  # exp(x) is an equivalent form
    best = relations.best(pt.neg(pt.neg(pt.exp(x))), rules=(r,))
    assert equal_computations([best], [pt.exp(x)])


def test_predicate_guard_waits_and_runs_both_ways(a):
    r = rewrite_rule("mul_one", p.mul(a, 1.0), a, where=(lambda a: a.type.ndim >= 1,))
    x, s = pt.vector("x"), pt.scalar("s")
    assert forward(r, x * 1.0) == [x]
    assert forward(r, s * 1.0) == []
    assert holds(r, x * 1.0, x) and not holds(r, s * 1.0, s)
    [gen] = backward(r, x)
    check_rewrite(gen, x, {x: [(0,), (2,)]})
    assert backward(r, s) == []


def test_type_fact_goal_guard(a):
    r = rewrite_rule("mul_one_vec", p.mul(a, 1.0), a, where=(ndimo(a, 1),))
    x, m = pt.vector("x"), pt.matrix("m")
    assert forward(r, x * 1.0) == [x]
    assert forward(r, m * 1.0) == []
    assert len(backward(r, x)) == 1 and backward(r, m) == []
    # the guard's variables are renamed per use: two rules with one goal guard in one run
    q, mid = var(), var()
    t = etuplize((x * 1.0) * 1.0)
    [res] = run(1, q, lall(r(t, mid), r(mid, q)))
    assert reify(res) is x


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8"])
def test_number_matches_constants_of_any_dtype(a, dtype):
    r = rewrite_rule("mul_one", p.mul(a, 1), a)
    x = pt.vector("x", dtype=dtype)
    one = pt.constant(1, dtype=dtype)
    assert forward(r, x * one) == [x]
    assert forward(r, x * pt.constant(2, dtype=dtype)) == []


def test_const_with_dtype_matches_that_dtype_only(a):
    r = rewrite_rule("mul_one_f32", p.mul(a, p.const(1.0, dtype="float32")), a)
    x = pt.vector("x", dtype="float32")
    assert forward(r, x * pt.constant(1.0, dtype="float32")) == [x]
    assert forward(r, x * pt.constant(1, dtype="int8")) == []


def test_const_matches_value_not_array_of_others(a):
    r = rewrite_rule("mul_one", p.mul(a, 1.0), a)
    x = pt.vector("x")
    assert forward(r, x * pt.constant(np.array([1.0, 1.0]))) == [x]
    assert forward(r, x * pt.constant(np.array([1.0, 2.0]))) == []


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "int64"])
def test_built_constant_takes_the_siblings_dtype(a, dtype):
    r = rewrite_rule("add_self", p.add(a, a), p.mul(a, 2), choice=True)
    x = pt.vector("x", dtype=dtype)
    lhs = x + x
    [out] = forward(r, lhs)
    assert out.type.dtype == dtype
    check_rewrite(lhs, out, {x: [(0,), (1,), (3,)]})
    assert forward(r, x + pt.vector("y", dtype=dtype)) == []  # a non-linear pattern


def test_type_changing_result_is_not_applied(a):
    # mul(int8, 1.0) is float32 while a is int8: the engine keeps the node
    r = rewrite_rule("mul_one", p.mul(a, 1.0), a)
    x = pt.vector("x", dtype="int8")
    y = x * 1.0
    assert y.type.dtype != "int8"
    assert relations.normalize(y, rules=(r,)) is y


def test_reduction_and_dimshuffle_patterns(a):
    r = rewrite_rule("sum_expand", p.sum(p.expand_dims(a, 0)), p.sum(a))
    x = pt.matrix("x", dtype="float32")
    lhs = pt.sum(pt.expand_dims(x, 0))
    [out] = forward(r, lhs)
    assert out.type == lhs.type and out.owner.inputs[0] is x
    check_rewrite(lhs, out, {x: [(0, 2), (1, 3)]})
    assert forward(r, pt.sum(pt.expand_dims(x, 1))) == []  # another axis
    assert forward(r, pt.sum(pt.expand_dims(x, 0), dtype="float64")) == []  # another dtype
    [gen] = backward(r, pt.sum(x))
    assert equal_computations([gen], [lhs])
    t = rewrite_rule("tt", p.transpose(p.transpose(a)), a)
    m = pt.tensor3("m")
    assert forward(t, m.T.T) == [m]
    assert forward(t, pt.transpose(pt.transpose(m, (1, 0, 2)))) == []


def test_join_alloc_and_set_subtensor_patterns(a):
    b = p.var("b")
    j = rewrite_rule("sum_join", p.sum(p.join(0, a, b)), p.add(p.sum(a), p.sum(b)), choice=True)
    x, y = pt.vector("x"), pt.vector("y")
    lhs = pt.sum(pt.join(0, x, y))
    [out] = forward(j, lhs)
    check_rewrite(lhs, out, {x: [(0,), (2,)], y: [(3,), (0,)]})
    assert forward(j, pt.sum(pt.join(0, x, y, x))) == []  # three pieces

    n = p.var("n")
    al = rewrite_rule("exp_alloc", p.exp(p.alloc(a, n)), p.alloc(p.exp(a), n), choice=True)
    s, k = pt.scalar("s"), pt.lscalar("k")
    lhs = pt.exp(pt.alloc(s, k))
    [out] = forward(al, lhs)
    assert out.owner.inputs[0].owner.op == pt.exp
    for kv in (0, 1, 3):
        np.testing.assert_allclose(
            out.eval({s: -0.5, k: kv}, mode="FAST_COMPILE"),
            lhs.eval({s: -0.5, k: kv}, mode="FAST_COMPILE"),
        )

    z, c = p.var("z"), p.var("c")
    lift = rewrite_rule(
        "set_of_neg", p.neg(p.set_subtensor(z[0], c)), p.neg(p.set_subtensor(z[0], c)), choice=True
    )
    v = pt.vector("v")
    assert forward(lift, pt.neg(pt.set_subtensor(v[0], 2.0)))  # matched and rebuilt
    assert forward(lift, pt.neg(pt.set_subtensor(v[1], 2.0))) == []  # another index
    assert forward(lift, pt.neg(pt.inc_subtensor(v[0], 2.0))) == []  # inc is not set
    refused = rewrite_rule(
        "refused", p.set_subtensor(z[1:], c), p.set_subtensor(z[1:], c), where=(lambda c: False,), choice=True
    )
    assert forward(refused, pt.set_subtensor(v[1:], 2.0)) == []


def test_dot_reshape_and_specify_shape_patterns(a):
    """``p.dot``, ``p.reshape`` and ``p.specify_shape`` match the node the PyTensor call builds and build it;
    a vector's ``pt.dot`` (an ExpandDims and a Squeeze around a matrix Dot) is matched at its Dot."""
    b, s, t = p.var("b"), p.var("s"), p.var("t")
    m, n = pt.matrix("m"), pt.matrix("n")
    swap = rewrite_rule("dot_transpose", p.dot(a, b), p.transpose(p.dot(p.transpose(b), p.transpose(a))), choice=True)
    [out] = forward(swap, pt.dot(m, n))
    check_rewrite(pt.dot(m, n), out, {m: [(2, 3), (0, 1), (1, 0)], n: [(3, 2), (1, 4), (0, 2)]})
    assert forward(swap, pt.dot(m, pt.vector("v"))) == []  # the root is a Squeeze, not a Dot
    flat = rewrite_rule("exp_flat", p.exp(p.reshape(a, s)), p.reshape(p.exp(a), s), choice=True)
    lhs = pt.exp(m.flatten())
    [out] = forward(flat, lhs)
    assert out.owner.inputs[1] is lhs.owner.inputs[0].owner.inputs[1]
    check_rewrite(lhs, out, {m: [(2, 3), (0, 2), (1, 1)]})
    spec = rewrite_rule("exp_spec", p.exp(p.specify_shape(a, s, t)), p.specify_shape(p.exp(a), s, t), choice=True)
    lhs = pt.exp(pt.specify_shape(m, (2, None)))
    [out] = forward(spec, lhs)
    assert out.type == lhs.type and out.owner.op == lhs.owner.inputs[0].owner.op
    check_rewrite(lhs, out, {m: [(2, 3), (2, 0)]})
    assert forward(spec, pt.exp(pt.specify_shape(pt.vector("v"), (3,)))) == []  # one dim, not two
    with pytest.raises(TypeError, match="p.specify_shape takes a tensor pattern and one pattern per dim"):
        p.specify_shape(a)


def test_elemwise_pattern_matches_explicit_form_only_when_stock_would_read_the_same(a):
    from graph_bridge import explicit_elemwise

    r = rewrite_rule("add_zero", p.add(a, 0), a)
    x = pt.vector("x")
    explicit = explicit_elemwise(pt.add.scalar_op, x, pt.constant(0.0))
    assert forward(r, explicit) == [x]


def test_bad_arguments_are_named(a):
    with pytest.raises(TypeError, match="lhs"):
        rewrite_rule("r", a, a)
    with pytest.raises(ValueError, match="rhs uses variables"):
        rewrite_rule("r", p.neg(a), p.var("b"))
    with pytest.raises(TypeError, match=r"where\[0\]"):
        rewrite_rule("r", p.neg(a), a, where=(lambda b, c: True,))
    with pytest.raises(TypeError, match="where"):
        rewrite_rule("r", p.neg(a), a, where=lambda a: True)
    with pytest.raises(TypeError, match="name"):
        rewrite_rule("", p.neg(a), a)
    with pytest.raises(ValueError, match="name"):
        p.var("not a name")
    with pytest.raises(TypeError, match="axis"):
        p.sum(a, axis="0")
    with pytest.raises(TypeError, match="argument 0"):
        p.exp("x")
    with pytest.raises(TypeError, match="idx"):
        p.set_subtensor(a[1.5], a)
    with pytest.raises(ValueError, match="two distinct variables named 'a'"):
        rewrite_rule("r", p.add(a, p.var("a")), a)


def test_non_terminating_rule_set_names_the_rule(a):
    grow = rewrite_rule("grow", p.neg(a), p.neg(p.neg(p.neg(a))), measure="a claim normalize cannot check")
    with pytest.raises(RuntimeError, match="grow"):
        relations.normalize(pt.neg(pt.vector("x")), rules=(grow,))


def test_rulesets():
    assert RULESETS["default"] == relations.DEFAULT_RULES
    assert RULESETS["lowering"] == relations.LOWERING_RULES
    for name in ("dimshuffle", "lift", "broadcast", "join", "batched"):
        assert RULESETS[name] and set(RULESETS[name]) <= set(relations.DEFAULT_RULES)
    grouped = [r for k in ("dimshuffle", "lift", "broadcast", "join", "batched") for r in RULESETS[k]]
    assert sorted(grouped, key=id) == sorted(relations.DEFAULT_RULES, key=id)
    x = pt.vector("x")
    y = pt.sum(pt.expand_dims(x, 0))
    assert relations.normalize(y, rules=RULESETS["dimshuffle"]).owner.inputs[0] is x


def test_every_elemwise_builder_exists():
    for name in ("exp", "log", "add", "mul", "sub", "neg", "sqr", "log1p", "true_div", "switch"):
        assert callable(getattr(p, name))
    assert set(p.ELEMWISE) <= set(dir(p))


def test_alloc_pattern_matches_the_explicit_alloc(a):
    n, m = p.var("n"), p.var("m")
    allocs = relations.lang.elemwise_above(lambda node: isinstance(node.op, (pt.basic.Alloc, ExplicitAlloc)), "Alloc")
    r = rewrite_rule("exp_alloc", p.exp(p.alloc(a, n, m)), p.alloc(p.exp(a), n, m), measure=allocs)
    s, k = pt.scalar("s"), pt.lscalar("k")
    y = pt.exp(pt.alloc(pt.exp(s), k, 3))
    # the broadcast rules make the Alloc explicit before the exp above it is visited
    assert relations.normalize(y.owner.inputs[0], rules=RULESETS["broadcast"]).owner.op != y.owner.inputs[0].owner.op
    z = relations.normalize(y, rules=RULESETS["broadcast"] + (r,))
    assert z.owner.inputs[0].owner.op == pt.exp and z.owner.inputs[0].owner.inputs[0].owner.op == pt.exp
    for kv in (0, 1, 2):
        np.testing.assert_allclose(
            z.eval({s: 0.5, k: kv}, mode="FAST_COMPILE"), y.eval({s: 0.5, k: kv}, mode="FAST_COMPILE")
        )


def test_match_takes_a_pattern(a):
    x = pt.vector("x")
    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    # the pattern is not in g itself, but in its normal form (an equivalent)
    answers = list(relations.match(g, p.sum(p.exp(a))))
    assert answers[0][a] is x
    # PyTensor's direction of the DimShuffle move gives a second: exp of the expanded x
    assert all(ans[a] is x or ans[a].owner.inputs[0] is x for ans in answers)
    assert list(relations.match(pt.log(x), p.sum(p.exp(a)))) == []
    with pytest.raises(TypeError, match="pattern must be"):
        list(relations.match(g, 3))
