"""relations.normalize: structure, purity, errors, optdb registration, scale."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from kanren import eq, lall
from pytensor.compile.mode import get_default_mode
from pytensor.tensor.elemwise import DimShuffle
from unification import var

import relations
from graph_bridge import etuplize, term
from helpers import check_rewrite, graph_ops, snapshot

x = pt.vector("x")
m = pt.matrix("m")


def sample_graph():
    return pt.sum(pt.expand_dims(pt.exp(x), 0))


def test_normalize_returns_same_structure():
    y = sample_graph()
    assert isinstance(relations.normalize(y), pytensor.graph.basic.Variable)
    as_list = relations.normalize([y, pt.exp(x)])
    assert isinstance(as_list, list) and len(as_list) == 2
    as_tuple = relations.normalize((y,))
    assert isinstance(as_tuple, tuple) and len(as_tuple) == 1


def test_issue_case_has_no_dimshuffle_same_type_and_values():
    y = sample_graph()
    before = snapshot(y)
    z = relations.normalize(y)
    assert snapshot(y) == before  # the input graph is not mutated
    assert not any(isinstance(op, DimShuffle) for op in graph_ops(z))
    check_rewrite(y, z, {x: [(0,), (1,), (5,)]})


def test_untouched_graph_is_returned_as_is():
    y = pt.sum(pt.exp(m), axis=0) + 1.0
    z = relations.normalize(y.owner.inputs[0])  # the sum: no rule applies
    assert z is y.owner.inputs[0]
    assert relations.normalize(y) is not y  # the add becomes explicit


def test_shared_subgraphs_stay_shared():
    e = pt.sum(pt.expand_dims(x, 0))
    a, b = relations.normalize([e * 2, e + 1])
    assert a.owner.inputs[0] is b.owner.inputs[0]


def test_rewrites_inside_and_around_opaque_nodes():
    from pytensor.raise_op import Assert

    inner = pt.sum(pt.expand_dims(x, 0))
    checked = Assert("ok")(inner, pt.all(x > -100))
    y = pt.sum(pt.expand_dims(pt.exp(checked) * x, 1))
    z = relations.normalize(y)
    assert not isinstance(z.owner.inputs[0].owner.op, DimShuffle)
    # Sum(mul{x,*}(Exp(Assert(Sum(x), ...)), x)): the ExpandDims of the 0-d Exp is absorbed
    rebuilt_checked = z.owner.inputs[0].owner.inputs[0].owner.inputs[0]
    assert isinstance(rebuilt_checked.owner.op, Assert)  # a new Assert node over ...
    assert rebuilt_checked.owner.inputs[0].owner.inputs[0] is x  # ... the rewritten sum
    check_rewrite(y, z, {x: [(0,), (1,), (4,)]})


def test_bad_graph_argument_is_named():
    with pytest.raises(TypeError, match="graph must be"):
        relations.normalize(3.0)
    with pytest.raises(TypeError, match=r"graph\[1\] must be"):
        relations.normalize([x, "y"])
    from pytensor.graph.fg import FunctionGraph

    with pytest.raises(TypeError, match="graph must be"):
        relations.normalize(FunctionGraph([x], [pt.exp(x)]))


def test_bad_rules_argument_is_named():
    with pytest.raises(TypeError, match="rules must be"):
        relations.normalize(x, rules=relations.DEFAULT_RULES[0])
    with pytest.raises(TypeError, match=r"rules\[0\] must be a relation"):
        relations.normalize(x, rules=[3])
    with pytest.raises(TypeError, match=r"rules\[0\].*not a goal constructor"):
        relations.normalize(x, rules=[lambda a: a])
    # rules are checked from their signatures, never called; a rule that
    # returns no goal is named when it runs
    with pytest.raises(TypeError, match=r"rule '<lambda>' returned int, not a goal"):
        relations.normalize(pt.exp(x), rules=[lambda a, b: 3])


def test_user_rule_without_index_runs_everywhere():
    """A plain kanren relation (no @rule) is a valid rule: exp(log(a)) -> a."""
    exp_t = etuplize(pt.exp)
    log_t = etuplize(pt.log)

    def exp_log(lhs, rhs):
        a = var()
        return lall(eq(lhs, term(exp_t, term(log_t, a))), eq(rhs, a))

    y = pt.exp(pt.log(x)) * 2
    z = relations.normalize(y, rules=[exp_log])
    assert z.owner.inputs[0] is x
    assert relations.normalize(y, rules=[]) is y


def test_non_terminating_rule_set_is_an_error():
    def flip(lhs, rhs):  # a + b == b + a, forever
        a, b = var(), var()
        add = etuplize(pt.add)
        return lall(eq(lhs, term(add, a, b)), eq(rhs, term(add, b, a)))

    with pytest.raises(RuntimeError, match="does not terminate"):
        relations.normalize(x + m, rules=[flip])


def test_deep_chains_do_not_recurse():
    y = x
    for _ in range(5000):
        y = pt.exp(y)
    z = relations.normalize(pt.sum(pt.expand_dims(y, 0)))
    assert z.owner.inputs[0] is y


@pytest.mark.parametrize("tag", ["relational", "relational_normalize"])
def test_registered_in_optdb_under_relational_tag(tag):
    y = sample_graph()
    mode = get_default_mode().including(tag)
    f = pytensor.function([x], y, mode=mode)
    ops = [n.op for n in f.maker.fgraph.apply_nodes]
    # the greedy pass removes the DimShuffle; ``relational`` leaves it (a view: the rewrite saves
    # less than MIN_GAIN per call), and PyTensor keeps it
    assert any(isinstance(op, DimShuffle) for op in ops) == (tag == "relational")
    np.testing.assert_allclose(f(np.arange(4.0)), np.exp(np.arange(4.0)).sum())


@pytest.mark.default_mode
def test_normalized_graph_compiles_in_default_mode():
    y = sample_graph()
    z = relations.normalize(y)
    f = pytensor.function([x], [y, z])
    a, b = f(np.linspace(-1, 1, 7))
    np.testing.assert_allclose(a, b)


def test_rules_for_a_node_are_those_its_op_and_its_inputs_ops_allow():
    from relations.patterns.relation import RuleIndex

    index = RuleIndex(relations.DEFAULT_RULES)
    y = pt.vector("y")
    e = pt.expand_dims(x, 0)
    graphs = [pt.sum(e), pt.sum(pt.exp(x)), pt.exp(e) + 1, pt.sum(pt.join(0, x, y)), pt.exp(x), pt.sum(x)]
    for g in graphs * 2:  # the second time from the memo
        node = g.owner
        child_ops = [i.owner.op for i in node.inputs if i.owner is not None]
        wanted = [
            r
            for r in index.forward(type(node.op))
            if r.child_heads is None or any(isinstance(op, r.child_heads) for op in child_ops)
        ]
        assert list(index.forward_for(node)) == wanted
    assert len(index.forward_for(pt.sum(e).owner)) > len(index.forward_for(pt.sum(x).owner))


def test_backward_rules_for_a_node_are_those_its_op_and_its_inputs_ops_allow():
    # rhs_child_heads: careduce_joino's right side combines reductions, so it runs backward only
    # at a node reading one
    from graph_bridge import node_term
    from relations.greedy.fixpoint import replacements
    from relations.patterns.relation import RuleIndex
    from relations.rules.join import careduce_joino

    index = RuleIndex(relations.DEFAULT_RULES)
    y = pt.vector("y")
    reduced, plain = pt.sum(x) + pt.sum(y), pt.exp(x) + pt.exp(y)
    for g in [reduced, plain, pt.exp(x), pt.sum(x)] * 2:  # the second time from the memo
        node = g.owner
        child_ops = [i.owner.op for i in node.inputs if i.owner is not None]
        wanted = [
            r
            for r in index.backward(type(node.op))
            if r.rhs_child_heads is None or any(isinstance(op, r.rhs_child_heads) for op in child_ops)
        ]
        assert list(index.backward_for(node)) == wanted
    assert careduce_joino in index.backward_for(reduced.owner)
    assert careduce_joino not in index.backward_for(plain.owner)
    # the index only skips what the relation cannot answer: backward on the plain add gives nothing
    assert list(replacements(careduce_joino, plain, node_term(plain), True)) == []
    (back,) = list(replacements(careduce_joino, reduced, node_term(reduced), True))[:1]
    assert type(back.owner.inputs[0].owner.op).__name__ == "Join"


def test_identity_rules_are_not_run_backward_in_the_egraph():
    # run backward, dimshuffle_identityo wraps any term in an identity DimShuffle over itself: a
    # cycle the e-graph holds already; the rule says so (identity=True) and saturation skips it
    from graph_bridge import node_term
    from relations.greedy.fixpoint import replacements
    from relations.rules.dimshuffle import dimshuffle_identityo

    g = pt.exp(x)
    (wrapped, *_) = replacements(dimshuffle_identityo, g, node_term(g), True)
    assert wrapped.owner.inputs[0] is g  # what the relation gives backward
    assert dimshuffle_identityo.identity and not relations.DEFAULT_RULES[0].identity
    eg = relations.saturate(pt.sum(g))
    assert eg.report.rules["dimshuffle_identityo"].matches == 0
