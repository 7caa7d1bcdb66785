"""One pattern path (issue 38): a pattern rule does what its patterns say, or is refused when defined.

The four silent failures a newcomer met writing ``Sum(Mul(x, c)) -> Mul(Sum(x), c)``
for a scalar ``c``, each as a test: a 0-d operand behind the ExpandDims that
Elemwise broadcasting adds; a lambda guard beside a compiled pattern node; a
guard on ``p.careduce``'s reduction variable; the facts a rule needs, all in
``relations.lang``.  Then the refusals at definition: a guard over a variable
the left side never binds, a rule whose sides do not shrink and that states
no measure (unless it is a choice rule).
"""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import equal_computations
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import Sum

import relations
from graph_bridge.measures import weighted_operands
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations import lang
from relations.lang import p, rewrite_rule
from relations.queries.explanations import Step

x, c = p.var("x"), p.var("c")
SHAPES = [(0, 2), (1, 1), (3, 2), (2, 0)]


def _sum_mul_scalar():
    return rewrite_rule(
        "sum_mul_scalar",
        p.sum(p.mul(x, c)),
        p.mul(p.sum(x), c),
        where=(lambda c: c.type.ndim == 0,),
        measure=weighted_operands(),
    )


# -- a. a 0-d operand matches through the broadcast Elemwise added --------------------------------


def test_zero_d_operand_binds_behind_the_broadcast_expand_dims():
    r = _sum_mul_scalar()
    m, s = pt.matrix("m"), pt.scalar("s")
    y = pt.sum(m * s)  # Mul(m, ExpandDims{axes=(0, 1)}(s)): the ExpandDims is Elemwise's
    assert type(y.owner.inputs[0].owner.inputs[1].owner.op) is DimShuffle
    before = snapshot(y)
    [out] = forward(r, y)
    assert out.owner.op == pt.mul and out.owner.inputs[1] is s
    check_rewrite(y, out, {m: SHAPES, s: [(), (), (), ()]})
    assert snapshot(y) == before
    # backward: the left side built from the right; a check with both sides given
    [gen] = backward(r, pt.sum(m) * s)
    assert equal_computations([gen], [y])
    assert holds(r, y, pt.sum(m) * s)
    assert not holds(r, y, pt.sum(m) * pt.scalar("t"))
    # normalize with the rule alone (no explicit-broadcast rules first) rewrites too
    z = relations.normalize(y, rules=(r,))
    assert z.owner.op == pt.mul and z.owner.inputs[1] is s and z.type == y.type
    # and with the default rules, which see the Mul in explicit form
    assert relations.normalize(y, rules=relations.DEFAULT_RULES + (r,)).owner.inputs[1] is s


def test_a_scalar_like_operand_of_another_ndim_is_refused_by_the_guard():
    r = _sum_mul_scalar()
    m, v = pt.matrix("m"), pt.vector("v")
    assert forward(r, pt.sum(m * v)) == []  # c is v (1-d): the guard refuses
    assert forward(r, pt.sum(m * pt.matrix("w"))) == []


def test_read_through_only_the_broadcast_padding():
    a, o = p.var("a"), p.var("o")
    v, m, s = pt.vector("v"), pt.matrix("m"), pt.scalar("s")
    # a one-input Elemwise does not broadcast: the user's ExpandDims is the operand
    seen = []
    r = rewrite_rule("exp_seen", p.exp(a), p.exp(a), where=(lambda a: seen.append(a) or True,), choice=True)
    e = pt.expand_dims(v, 0)
    assert forward(r, pt.exp(e))
    assert seen[-1] is e
    # a DimShuffle pattern still matches the DimShuffle itself
    d = rewrite_rule("mul_ds", p.mul(a, p.dimshuffle(c, o)), p.mul(a, p.dimshuffle(c, o)), choice=True)
    assert forward(d, m * s)
    # a vector padded on the left by broadcasting is read as the vector (as the explicit form reads it)
    seen.clear()
    q = rewrite_rule("mul_seen", p.mul(a, c), p.mul(c, a), where=(lambda c: seen.append(c) or True,), choice=True)
    [out] = forward(q, m * v)
    assert seen[-1] is v
    check_rewrite(m * v, out, {m: SHAPES, v: [(2,), (1,), (2,), (0,)]})


def test_an_elemwise_whose_every_input_is_expanded_is_read_as_it_is():
    """``m[None] / 0.5`` over a matrix ``m``: the ExpandDims of ``m`` adds a dimension nothing else
    gives, so neither operand is read through it (the e-graph reads it so too, and a proof step
    taken there must re-check: a thorough property run found one that did not)."""
    a, b = p.var("a"), p.var("b")
    r = relations.RULESETS["algebra"]
    [div] = [rel for rel in r if rel.__name__ == "div_mul_reciprocalo"]
    m = pt.matrix("m", shape=(1, 2))
    half = pt.expand_dims(pt.constant(0.5), (0, 1, 2))
    y = pt.expand_dims(m, 0) / half
    before = snapshot(y)
    [out] = forward(div, y)
    assert out.type == y.type
    assert out.owner.inputs[0] is y.owner.inputs[0]  # the ExpandDims of m, not m
    check_rewrite(y, out, {m: [(1, 2)]})
    # as a check, the way a proof re-checks its step (the right side reads ``m`` through its
    # padding beside the Reciprocal, so the step holds by the forward answer, ``Step.holds``)
    assert Step("div_mul_reciprocalo", div, y, pt.expand_dims(m, 0) * pt.reciprocal(half)).holds()
    other = pt.reciprocal(pt.expand_dims(pt.constant(2.0), (0, 1, 2)))
    assert not Step("div_mul_reciprocalo", div, y, pt.expand_dims(m, 0) * other).holds()
    [gen] = backward(div, pt.expand_dims(m, 0) * pt.reciprocal(half))
    assert equal_computations([gen], [y])
    assert snapshot(y) == before
    # a matrix beside the expanded scalar: read through its padding as before
    q = rewrite_rule("div_seen", p.true_div(a, b), p.true_div(a, b), where=(lambda b: b.type.ndim == 0,), choice=True)
    assert forward(q, m / pt.constant(0.5))
    assert forward(q, y) == []


# -- b. a lambda guard beside a compiled pattern node ---------------------------------------------


def test_lambda_guard_beside_a_compiled_node():
    h = p.var("h")
    # p.reduce is a compiled node (a goal reads it); p.neg is matched and built by the pattern
    r = rewrite_rule(
        "sum_neg2",
        p.reduce(h, p.neg(x)),
        p.neg(p.reduce(h, x)),
        where=(lambda x: x.type.ndim == 2,),
        heads=(Sum,),
        measure=lang.below([Elemwise], [CAReduce]),
    )
    m, v = pt.matrix("m"), pt.vector("v")
    y = pt.sum(-m, axis=0)
    [out] = forward(r, y)
    assert out.owner.op == pt.neg and out.owner.inputs[0].owner.inputs[0] is m
    check_rewrite(y, out, {m: SHAPES})
    assert forward(r, pt.sum(-v)) == []  # the guard refuses a vector
    [gen] = backward(r, -pt.sum(m, axis=1))
    assert equal_computations([gen], [pt.sum(-m, axis=1)])
    assert holds(r, y, -pt.sum(m, axis=0)) and not holds(r, y, -pt.sum(m, axis=1))
    before = snapshot(y)
    z = relations.normalize(y, rules=(r,))
    assert z.owner.op == pt.neg and z.type == y.type
    assert snapshot(y) == before


def test_lambda_guard_over_a_head_and_props_of_compiled_nodes():
    h, r_, o = p.var("h"), p.var("r"), p.var("o")
    seen = {}

    def guard(h):
        seen["h"] = h
        return isinstance(h, Sum)

    r = rewrite_rule(
        "sum_of_neg", p.reduce(h, p.neg(x)), p.neg(p.reduce(h, x)), where=(guard,), heads=(CAReduce,), choice=True
    )
    m = pt.matrix("m")
    assert forward(r, pt.sum(-m, axis=1)) and isinstance(seen["h"], Sum) and seen["h"].axis == (1,)
    assert forward(r, pt.max(-m, axis=1)) == []
    # every node compiles (p.careduce, p.dimshuffle); the lambda reads a graph and a prop variable
    t = rewrite_rule(
        "reduce_transposed",
        p.careduce(r_, p.dimshuffle(x, order=o), axis=None),
        p.careduce(r_, x, axis=None),
        where=(lambda x, o: x.type.ndim == 2 and o == (1, 0),),
        measure=lang.count(DimShuffle),
    )
    [out] = forward(t, pt.sum(m.T))
    assert out.owner.inputs[0] is m
    check_rewrite(pt.sum(m.T), out, {m: SHAPES})
    assert forward(t, pt.sum(pt.expand_dims(m, 0))) == []
    assert relations.normalize(pt.max(m.T), rules=(t,)).owner.inputs[0] is m


# -- c. a guard on p.careduce's reduction variable runs --------------------------------------------


def test_goal_guard_on_the_reduction_variable_runs():
    r_, o = p.var("r"), p.var("o")
    seen = []

    def only_sums(r):
        seen.append(r)
        return () if r == p.Reduction(pt.sum(pt.vector()).owner.op) else None

    guard = lang.moded("only_sums", (r_,), lang.Mode((0,), (), one=only_sums))
    t = rewrite_rule(
        "sum_transposed",
        p.careduce(r_, p.dimshuffle(x, order=o), axis=None),
        p.careduce(r_, x, axis=None),
        where=(guard,),
        measure=lang.count(DimShuffle),
    )
    m = pt.matrix("m")
    [out] = forward(t, pt.sum(m.T))
    assert out.owner.inputs[0] is m and isinstance(seen[-1], p.Reduction)
    assert forward(t, pt.max(m.T)) == []  # the guard ran and refused a Max
    assert holds(t, pt.sum(m.T), pt.sum(m)) and not holds(t, pt.max(m.T), pt.max(m))
    # a lambda on the reduction variable, in the same compiled rule
    lam = rewrite_rule(
        "max_transposed",
        p.careduce(r_, p.dimshuffle(x, order=o), axis=None),
        p.careduce(r_, x, axis=None),
        where=(lambda r, o: "Max" in repr(r) and o == (1, 0),),
        measure=lang.count(DimShuffle),
    )
    [out] = forward(lam, pt.max(m.T))
    check_rewrite(pt.max(m.T), out, {m: [(1, 1), (3, 2), (2, 4)]})
    assert forward(lam, pt.sum(m.T)) == [] and forward(lam, pt.max(pt.expand_dims(m, 0))) == []


# -- d. everything a rule author needs is in relations.lang ---------------------------------------


def test_lang_holds_the_facts_rules_use():
    from relations.rules.lift.operand_goals import scalar_likeo

    assert lang.scalar_likeo is scalar_likeo and lang.weighted_operands is weighted_operands
    for name in ("scalar_likeo", "weighted_operands", "valid_ordero", "forward_matcher", "Reduction", "above"):
        assert name in lang.__all__ and getattr(lang, name) is not None
    assert set(lang.__all__) <= set(dir(lang))


def test_writing_rules_page_imports_only_lang_to_write_rules():
    page = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "writing_rules.md").read_text()
    code = "\n".join(re.findall(r"```python\n(.*?)```", page, re.S))
    imported = set(re.findall(r"^\s*from (relations[.\w]*) import", code, re.M))
    imported |= set(re.findall(r"^\s*import (relations[.\w]*)", code, re.M))
    # the public calls, the rule language, and the built-in families shown for comparison
    assert imported <= {"relations", "relations.lang"} | {m for m in imported if m.startswith("relations.rules.")}


# -- refusals at definition ----------------------------------------------------------------------


def test_guard_over_a_variable_the_left_side_never_binds_is_refused():
    a, b, n = p.var("a"), p.var("b"), p.var("n")
    with pytest.raises(ValueError, match=r"where\[0\].*'b'"):
        rewrite_rule("r", p.neg(p.neg(a)), a, where=(lang.ndimo(b, 1),))
    with pytest.raises(ValueError, match=r"where\[1\].*'b'"):
        rewrite_rule("r", p.neg(p.neg(a)), a, where=(lang.ndimo(a, 1), lambda b: True, lang.ndimo(b, 1)))
    # a variable a where= goal computes from the left side's is bound
    ok = rewrite_rule("r", p.neg(p.neg(a)), a, where=(lang.ndimo(a, n), lambda n: n == 1))
    v = pt.vector("v")
    assert forward(ok, -(-v)) == [v] and forward(ok, -(-pt.matrix("m"))) == []
    # compiled sides: the reduction variable is bound; a guard on a variable only the right side has is not
    h = p.var("h")  # the guard names h2, a variable no side has
    with pytest.raises(TypeError, match=r"where\[0\] takes \('h2',\)"):
        rewrite_rule("r", p.reduce(h, p.neg(a)), p.neg(p.reduce(h, a)), where=(lambda h2: True,), choice=True)


def test_a_rule_that_does_not_shrink_needs_a_measure_or_to_be_a_choice():
    a, b = p.var("a"), p.var("b")
    with pytest.raises(ValueError, match=r"add_comm.*measure=.*choice=True"):
        rewrite_rule("add_comm", p.add(a, b), p.add(b, a))
    with pytest.raises(ValueError, match="exp_neg"):
        rewrite_rule("exp_neg", p.exp(p.neg(a)), p.reciprocal(p.exp(a)))
    comm = rewrite_rule("add_comm", p.add(a, b), p.add(b, a), choice=True)
    assert comm.choice and not comm.measure.stated
    assert rewrite_rule("neg_neg", p.neg(p.neg(a)), a).choice is False
    # a choice rule with no measure is for saturation only: normalize refuses it, by name
    u, w = pt.vector("u"), pt.vector("w")
    with pytest.raises(ValueError, match="add_comm.*choice"):
        relations.normalize(u + w, rules=(comm,))
    g = relations.saturate(u + w, rules=(comm,))
    assert g.same(u + w, w + u)
    # with a measure it is a greedy rule too
    measured = rewrite_rule("exp_neg", p.exp(p.neg(a)), p.reciprocal(p.exp(a)), measure=lang.count(DimShuffle))
    assert measured.measure.stated and not measured.choice


def test_the_built_in_choices_are_declared_choices():
    choices = relations.RULESETS["choices"]
    assert choices and all(r.choice for r in choices)
    assert not any(getattr(r, "choice", False) for r in relations.DEFAULT_RULES)


# -- the newcomer rules of docs/writing_rules.md ------------------------------------------------


def test_newcomer_exp_neg_is_a_choice_rule_that_keeps_values():
    a = p.var("a")
    exp_neg = rewrite_rule("exp_neg", p.exp(p.neg(a)), p.reciprocal(p.exp(a)), choice=True)
    v = pt.vector("v")
    y = pt.exp(-v)
    [out] = forward(exp_neg, y)
    assert out.owner.op == pt.reciprocal
    check_rewrite(y, out, {v: [(0,), (1,), (5,)]})
    [gen] = backward(exp_neg, pt.reciprocal(pt.exp(v)))
    assert equal_computations([gen], [y])
    assert holds(exp_neg, y, pt.reciprocal(pt.exp(v)))
    assert relations.verify(exp_neg, domain={"a": "finite"}) is None
    g = relations.saturate(y, rules=(exp_neg,))
    assert g.same(y, pt.reciprocal(pt.exp(v)))
    assert relations.verify(_sum_mul_scalar()) is None
    np.testing.assert_allclose(out.eval({v: np.array([0.5, -2.0])}, mode="FAST_COMPILE"), np.exp([-0.5, 2.0]))


def test_an_elemwise_hole_without_its_neighbours_is_refused_and_match_takes_every_pattern():
    """``p.elemwise(f, hole)`` alone matched nothing, silently; ``match`` refused ``p.elemwise`` patterns."""
    import pytensor.tensor as pt

    import relations
    from relations import patterns as p

    f, x = p.var("f"), p.var("x")
    with pytest.raises(TypeError, match=r"p.elemwise\(f, hole\) needs before= and after="):
        p.elemwise(f, p.neg(x))
    with pytest.raises(TypeError, match=r"needs after="):
        p.elemwise(f, p.neg(x), before=())
    m = pt.matrix("m")
    [answer] = relations.match(pt.exp(-m), p.elemwise(f, p.neg(x), before=(), after=()))
    assert answer[x] is m and type(answer[f]).__name__ == "Exp"
    assert list(relations.match(pt.exp(m), p.elemwise(f, p.neg(x), before=(), after=()), depth=0)) == []
    [found] = relations.find(pt.sum(pt.exp(-m), axis=1), p.elemwise(f, p.neg(x), before=(), after=()))
    assert found.bindings[x] is m and found.variable.owner.inputs[0].owner is not None
