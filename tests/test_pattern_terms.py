"""Pattern rules compiled to term templates and goals (relations/patterns/compiler.py): the built-in rules' form."""

import numpy as np
import pytensor.tensor as pt
import pytest
from kanren import lall, run
from pytensor.tensor.elemwise import DimShuffle
from unification import var

import relations
from graph_bridge import etuplize, graph_context, ndimo, reify, same_typeo, term
from graph_bridge.measures import count
from graph_bridge.node_relations import DS
from helpers import backward, check_rewrite, forward, holds
from logic_core.goals import lall_ready
from logic_core.unifier import eq
from relations import patterns as p
from relations.patterns.axes import full_reductiono
from relations.patterns.orders import compose_orderso, identity_ordero, valid_ordero
from relations.patterns.plans import forward_matcher
from relations.patterns.relation import rule
from relations.patterns.rewrite_rule import rewrite_rule
from relations.rules.dimshuffle import careduce_dimshuffle_fullo

m = pt.matrix("m")
x, o, o1, o2, c, n, r = (p.var(k) for k in ("x", "o", "o1", "o2", "c", "n", "r"))

#: the twelve rules the tables state as rewrite_rule calls
TABLES = (
    "careduce_joino", "careduce_dimshuffle_fullo", "careduce_dimshuffle_partialo", "careduce_added_dimso",
    "dimshuffle_identityo", "dimshuffle_composeo", "dimshuffle_through_elemwiseo", "inc_zeros_as_seto",
    "elemwise_set_subtensoro", "elemwise_alloco", "elemwise_explicito", "alloc_explicito",
)


@rule(heads=None, measure=count(DimShuffle))
def hand_written_fullo(lhs, rhs):
    xv, nv, order, head = var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(head, term(term(DS, nv, order), xv))),
        eq(rhs, term(head, xv)),
        full_reductiono(head),
        ndimo(xv, nv),
        valid_ordero(nv, order),
    )


def test_the_tables_are_compiled_pattern_rules():
    by_name = {r.__name__: r for r in relations.DEFAULT_RULES}
    for name in TABLES:
        rel = by_name[name]
        assert hasattr(rel, "steps") and rel.lhs is not None, name
        assert forward_matcher(rel) is not None, name
        assert "Before" in rel.__doc__ and "Measure" in rel.__doc__, name


def test_a_compiled_rule_has_the_plan_of_the_hand_written_relation():
    mine = forward_matcher(hand_written_fullo).source.replace("hand_written_fullo", "careduce_dimshuffle_fullo")
    assert mine == forward_matcher(careduce_dimshuffle_fullo).source


def _transposes():
    return rewrite_rule(
        "transpose_transpose",
        p.dimshuffle(p.dimshuffle(x, o1, ndim=n), o2),
        x,
        where=(ndimo(x, n), compose_orderso(o1, o2, c, n), identity_ordero(n, c), same_typeo(p.LHS, p.RHS)),
        measure=count(DimShuffle),
    )


def test_a_user_rule_of_compiled_nodes_runs_in_three_modes():
    rel = _transposes()
    assert hasattr(rel, "steps")
    lhs = pt.transpose(pt.transpose(m))
    [out] = forward(rel, lhs, n=1)
    assert out is m
    assert holds(rel, lhs, m) and not holds(rel, pt.transpose(m), m)
    generated = backward(rel, m, n=4)
    assert generated
    for g in generated:
        assert type(g.owner.op) is DimShuffle and type(g.owner.inputs[0].owner.op) is DimShuffle
        check_rewrite(g, m, {m: (2, 3)})
    assert relations.normalize(pt.exp(pt.transpose(pt.transpose(m))), rules=(rel,)).owner.inputs[0] is m


def test_each_call_has_its_own_variables():
    """Two uses of one compiled rule in one conjunction do not share the pattern's variables."""
    a, b = pt.sum(pt.expand_dims(m, 0)), pt.sum(pt.vector("v")[None])
    q1, q2 = var(), var()
    with graph_context([a, b]):
        goal = lall(careduce_dimshuffle_fullo(etuplize(a), q1), careduce_dimshuffle_fullo(etuplize(b), q2))
        [(ra, rb)] = run(1, (q1, q2), goal)
    assert reify(ra).owner.inputs[0] is m and reify(rb).owner.inputs[0].name == "v"


def test_patterns_with_graph_built_nodes_match_by_pattern():
    a = p.var("a")
    rel = rewrite_rule("neg_neg", p.neg(p.neg(a)), a)
    assert not hasattr(rel, "steps")
    assert forward(rel, -(-m), n=1) == [m]


def test_goal_nodes_do_not_build_by_themselves():
    f, xs = p.var("f"), p.var("xs")
    with pytest.raises(TypeError, match="compiles to goals only"):
        p.build(p.elemwise(f, inputs=xs), lambda v: m)
    with pytest.raises(TypeError, match="inputs="):
        p.elemwise(f)


def test_named_sub_pattern_reaches_where_goals():
    s = p.var("s")
    seen = []

    def spy(t):
        from logic_core.moded import Mode, moded

        return moded("spy", (t,), Mode((0,), (), one=lambda v: seen.append(v) or ()))

    rel = rewrite_rule(
        "full_spy",
        p.careduce(r, p.named(s, p.dimshuffle(x, o, ndim=n)), axis=None),
        p.careduce(r, x, axis=None),
        where=(ndimo(x, n), spy(s)),
        measure=count(DimShuffle),
    )
    lhs = pt.sum(pt.expand_dims(m, 0))
    [out] = forward(rel, lhs, n=1)
    assert out.owner.inputs[0] is m
    assert reify(seen[0]) is lhs.owner.inputs[0]
    np.testing.assert_allclose(out.eval({m: np.ones((2, 3))}), 6.0)
