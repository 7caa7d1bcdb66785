"""Pattern rules with prop variables and computed props (``p.sum(x, axis=ax)``, ``where=``), three ways.

The rule a newcomer writes, ``Sum(Neg(x)) == Neg(Sum(x))`` for any axes, is
one ``rewrite_rule`` call; here it rewrites forward, generates backward,
checks both sides, passes ``relations.verify``, and is compiled by the
forward planner.  Rules whose ``where=`` computes the other side's props
(``axes_througho``, ``added_dimso``) run in every direction too, and agree
with the built-in relations they restate.
"""

from __future__ import annotations

import kanren
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import equal_computations
from pytensor.tensor.elemwise import CAReduce, DimShuffle

import relations
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations import lang
from relations.lang import p
from relations.patterns.plans import RuleError, forward_matcher

x, ax, r, o, ax2, o2 = (p.var(n) for n in ("x", "ax", "r", "o", "ax2", "o2"))


def sum_neg():
    return lang.rewrite_rule(
        "sum_neg", p.sum(p.neg(x), axis=ax), p.neg(p.sum(x, axis=ax)), measure=lang.weighted_operands()
    )


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), (1, 2), (0, 1, 2)])
def test_sum_neg_for_any_axes_forward_with_values_and_types(axis):
    rule = sum_neg()
    t = pt.tensor3("t")
    lhs = pt.sum(-t, axis=axis)
    before = snapshot(lhs)
    [out] = forward(rule, lhs)
    assert snapshot(lhs) == before
    assert equal_computations([out], [-pt.sum(t, axis=axis)])
    check_rewrite(lhs, out, {t: [(0, 2, 3), (1, 1, 1), (3, 0, 2), (2, 3, 4)]})


def test_sum_neg_backward_and_as_a_check():
    rule = sum_neg()
    m = pt.matrix("m")
    gen = backward(rule, -pt.sum(m, axis=1))
    assert len(gen) == 1 and equal_computations(gen, [pt.sum(-m, axis=1)])
    check_rewrite(gen[0], -pt.sum(m, axis=1), {m: [(0, 3), (1, 1), (4, 2)]})
    assert holds(rule, pt.sum(-m, axis=0), -pt.sum(m, axis=0))
    assert holds(rule, pt.sum(-m), -pt.sum(m))
    assert not holds(rule, pt.sum(-m, axis=0), -pt.sum(m, axis=1))  # other axes
    assert not holds(rule, pt.sum(-m, axis=0), -pt.sum(m))
    assert forward(rule, pt.prod(-m, axis=0)) == []  # p.sum matches Sum only


def test_sum_neg_is_planned_verified_and_normalizes_with_the_defaults():
    rule = sum_neg()
    matcher = forward_matcher(rule)
    assert matcher is not None and "pattern side" in matcher.source
    assert relations.verify(rule) is None
    m = pt.matrix("m")
    assert relations.verify(rule, graphs=[pt.sum(-m, axis=0), pt.sum(-pt.tensor3("t"), axis=(0, 2))]) is None
    y = pt.exp(pt.sum(-m, axis=1))
    z = relations.normalize(y, rules=relations.DEFAULT_RULES + (rule,))
    assert equal_computations([z], [pt.exp(-pt.sum(m, axis=1))])
    check_rewrite(y, z, {m: [(0, 2), (1, 1), (3, 0), (3, 4)]})


def test_the_types_stay_for_every_dtype():
    rule = sum_neg()
    for dtype in ("float32", "float64", "int64"):
        v = pt.matrix("v", dtype=dtype)
        lhs = pt.sum(-v, axis=0)
        [out] = forward(rule, lhs)
        check_rewrite(lhs, out, {v: [(0, 2), (1, 1), (3, 2)]})


def _reduce_through():
    """Any reduction moved out of any DimShuffle (the built-in careduce_dimshuffle_partialo, restated)."""
    return lang.rewrite_rule(
        "reduce_through",
        p.careduce(r, p.dimshuffle(x, order=o), axis=ax),
        p.dimshuffle(p.careduce(r, x, axis=ax2), order=o2),
        where=(lang.axes_througho(x, o, ax, ax2, o2),),
        measure=lang.below([DimShuffle], [CAReduce]).keeping(lang.nodes()),
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda m: pt.sum(m.T, axis=0),
        lambda m: pt.max(pt.expand_dims(m, 0), axis=2),
        lambda m: pt.prod(m.dimshuffle(1, "x", 0), axis=(0, 1)),
        lambda m: pt.all(pt.expand_dims(m > 0, 1), axis=2),
    ],
)
def test_a_reduction_head_variable_and_computed_axes_forward(build):
    rule = _reduce_through()
    m = pt.matrix("m")
    lhs = build(m)
    [out] = forward(rule, lhs)
    assert type(out.owner.op) is type(lhs.owner.inputs[0].owner.op)  # a DimShuffle above
    assert type(out.owner.inputs[0].owner.op) is type(lhs.owner.op)  # the same reduction below
    check_rewrite(lhs, out, {m: [(0, 3), (1, 1), (2, 0), (3, 4)]})


def test_computed_axes_backward_and_check():
    rule = _reduce_through()
    m = pt.matrix("m")
    rhs = pt.expand_dims(pt.sum(m, axis=1), 0)
    gen = backward(rule, rhs)
    assert gen, "no left side generated"
    for g in gen:
        check_rewrite(g, rhs, {m: [(0, 3), (1, 1), (3, 2)]})
        assert holds(rule, g, rhs)
    assert any(equal_computations([g], [pt.sum(pt.expand_dims(m, 0), axis=2)]) for g in gen)
    identity = DimShuffle(input_ndim=1, new_order=(0,))  # the pattern builds the identity too
    assert holds(rule, pt.sum(m.T, axis=0), identity(pt.sum(m, axis=1)))
    assert not holds(rule, pt.sum(m.T, axis=0), identity(pt.sum(m, axis=0)))


def test_computed_props_are_compiled_as_hand_written_relations_are():
    matcher = forward_matcher(_reduce_through())
    assert matcher is not None
    assert "# axes_througho(0, 1, 2) -> (3, 4)" in matcher.source
    assert "for " not in matcher.source  # every step has at most one answer: no loop


def test_added_dims_of_an_order():
    rule = lang.rewrite_rule(
        "reduce_added",
        p.sum(p.dimshuffle(x, order=o), axis=ax),
        p.dimshuffle(x, order=o2),
        where=(lang.added_dimso(o, ax, o2), lang.same_typeo(x, x)),
    )
    assert forward_matcher(rule) is not None
    v = pt.vector("v")
    lhs = pt.sum(v.dimshuffle("x", 0, "x"), axis=2)
    [out] = forward(rule, lhs)
    assert out.owner.op.new_order == ("x", 0)
    check_rewrite(lhs, out, {v: [(0,), (1,), (3,)]})
    assert forward(rule, pt.sum(v.dimshuffle("x", 0), axis=1)) == []  # a real dim is reduced
    gen = backward(rule, v.dimshuffle("x", 0))
    assert gen and all(holds(rule, g, v.dimshuffle("x", 0)) for g in gen)
    for g in gen:
        check_rewrite(g, v.dimshuffle("x", 0), {v: [(0,), (1,), (3,)]})


def test_one_use_and_predicates_over_props():
    rule = lang.rewrite_rule(
        "sum_neg_rows",
        p.sum(p.neg(x), axis=ax),
        p.neg(p.sum(x, axis=ax)),
        where=(lambda ax: ax == (1,), lang.single_useo(x)),
        measure=lang.weighted_operands(),
    )
    assert forward_matcher(rule) is not None
    m = pt.matrix("m")
    assert forward(rule, pt.sum(-m, axis=1)) != []
    assert forward(rule, pt.sum(-m, axis=0)) == []  # the predicate over the prop
    e = pt.exp(m)
    [alone] = relations.normalize([pt.sum(-e, axis=1)], rules=(rule,))
    assert equal_computations([alone], [-pt.sum(e, axis=1)])
    shared = [pt.sum(-e, axis=1), pt.sum(e)]  # e has a second use: the guard says no
    assert equal_computations(relations.normalize(shared, rules=(rule,)), shared)


def test_a_variable_the_right_side_needs_must_be_bound():
    with pytest.raises(ValueError, match="neither lhs nor a where= goal binds"):
        lang.rewrite_rule("bad", p.sum(x, axis=ax), p.sum(x, axis=ax2))
    with pytest.raises(ValueError, match="sub-graph in one place and for a prop"):
        lang.rewrite_rule("bad", p.sum(x, axis=ax), p.sum(ax))
    # the compiled path too (nodes read by goals): ``ys`` and ``k`` are bound by nothing
    h, f, xs, ys, k = p.var("h"), p.var("f"), p.var("xs"), p.var("ys"), p.var("k")
    with pytest.raises(ValueError, match=r"neither lhs nor a where= goal binds: \[ys\]"):
        lang.rewrite_rule("bad", p.reduce(h, p.elemwise(f, inputs=xs)), p.elemwise(f, inputs=ys))
    with pytest.raises(ValueError, match=r"binds: \[k\]"):
        lang.rewrite_rule("bad", p.reduce(h, p.elemwise(f, inputs=xs)), p.reduce(h, k))
    with pytest.raises(ValueError, match=r"where\[0\] reads 'k', 'x'"):  # x: bound by nothing either
        lang.rewrite_rule("ok", p.reduce(h, p.elemwise(f, inputs=xs)), p.reduce(h, k), where=(lang.eq(k, x),))
    lang.rewrite_rule("ok", p.reduce(h, p.elemwise(f, inputs=xs)), p.reduce(h, k), where=(lang.eq(k, f),))  # a goal binds k
    with pytest.raises(TypeError, match="order must be"):
        p.dimshuffle(x, order=3)
    with pytest.raises(TypeError, match="op must be"):
        p.careduce("sum", x)


# -- kanren's eq and lall in a rule ----------------------------------------------------


def test_kanren_eq_in_a_rule_is_planned_as_eq():
    neg = lang.op_term((-pt.vector()).owner.op)

    def neg_neg(lhs, rhs):
        a = lang.var()
        return lang.lall(kanren.eq(lhs, lang.term(neg, lang.term(neg, a))), kanren.eq(rhs, a))

    rule = lang.rule(measure=lang.nodes())(neg_neg)
    assert forward_matcher(rule) is not None
    v = pt.vector("v")
    assert relations.normalize([-(-v)], rules=(rule,)) == [v]
    assert list(forward_matcher(rule).answers(-(-v))) == [v]
    guarded = lang.rewrite_rule("neg_neg", p.neg(p.neg(x)), x, where=(kanren.eq(x, x),))
    assert forward_matcher(guarded) is not None
    assert forward(guarded, -(-v)) == [v]


def test_kanren_lall_is_planned_in_its_order_and_refused_inside_lall_ready():
    neg = lang.op_term((-pt.vector()).owner.op)

    def neg_neg(lhs, rhs):  # a plain kanren relation: its goals run in the order given
        a = lang.var()
        return kanren.lall(kanren.eq(lhs, lang.term(neg, lang.term(neg, a))), kanren.lall(kanren.eq(rhs, a)))

    v = pt.vector("v")
    assert forward_matcher(neg_neg) is not None
    assert list(forward_matcher(neg_neg).answers(-(-v))) == [v]

    def waits(lhs, rhs):  # kanren.lall reaches ndimo before lhs is known to it: not planned, run as it is
        n = lang.var()
        return kanren.lall(lang.ndimo(rhs, n), kanren.eq(lhs, rhs))

    assert forward_matcher(waits) is None

    def nested(lhs, rhs):
        return lang.lall(kanren.lall(kanren.eq(lhs, rhs)))

    rule = lang.rule(measure=lang.nodes())(nested)
    with pytest.raises(RuleError, match="use relations.lang.lall"):
        forward_matcher(rule)
    with pytest.raises(RuleError, match="kanren.lall"):
        relations.normalize(v * 2, rules=(rule,))
    with pytest.raises(TypeError, match=r"where\[0\] is a kanren.lall"):
        lang.rewrite_rule("r", p.neg(x), x, where=(kanren.lall(kanren.eq(x, x)),))


def test_lang_names_the_rule_authors_namespace():
    for name in ("var", "eq", "term", "lall", "rule", "moded", "Mode", "ndimo", "same_typeo",
                 "single_useo", "term_variable", "alloc_parts", "rewrite_rule", "p", "count"):
        assert hasattr(lang, name), name
    assert lang.lall is relations.lang.lall_ready


def test_a_measure_is_a_measure_or_a_text():
    from graph_bridge.measures import unstated

    r = lang.rule(measure="described only")(lambda lhs, rhs: lang.eq(lhs, rhs))
    assert not r.measure.stated and str(r.measure) == "described only"
    with pytest.raises(TypeError, match="measure must be a Measure"):
        lang.rule(measure=3)
    m = pt.matrix("m")
    dimshuffles = lang.count(DimShuffle).keeping(lang.nodes())
    assert dimshuffles(m.T.T) == 2 and dimshuffles.decreases(m.T.T, m.T)
    assert not dimshuffles.decreases(m.T, pt.exp(m).T)  # a node more
    assert str(dimshuffles) == "DimShuffle nodes; all nodes do not grow"
    assert unstated("x").stated is False
