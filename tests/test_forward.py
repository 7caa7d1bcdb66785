"""The compiled forward mode (``relations.patterns.plans``) gives the relation's own answers.

``normalize`` runs each rule's forward mode as a plan made once from the
relation; these tests run the plan and the relation itself (``lall_ready``)
side by side on every node of random graphs and of PyMC model graphs, and
ask for the same answers in the same order.
"""

from __future__ import annotations

import re

import pytensor.tensor as pt
import pytest
from hypothesis import HealthCheck, given, settings
from kanren import conde
from pytensor.graph.basic import Variable, equal_computations
from pytensor.graph.traversal import apply_ancestors
from unification import var

import relations
from graph_bridge import node_term
from graph_bridge.context import graph_context
from helpers import all_rules
from logic_core.goals import lall_ready
from logic_core.moded import Mode, moded
from logic_core.unifier import eq
from relations.patterns.plans import Uncompilable, backward_matcher, compile_backward, compile_forward, forward_matcher
from relations.patterns.relation import RuleIndex, answers
from strategies import Drawn, graphs


def test_every_rule_of_every_rule_set_is_planned():
    rules = all_rules()
    assert set(relations.DEFAULT_RULES) <= set(rules)
    for r in rules:
        matcher = forward_matcher(r)
        assert matcher is not None, r.__name__
        assert matcher.source.startswith(f"def plan(t):  # {r.__name__}, forward")
        assert matcher.relation is r


def test_every_choice_rule_is_planned_and_its_plan_gives_the_relations_answers():
    import numpy as np

    planned = {r.__name__ for r in relations.RULESETS["choices"] if forward_matcher(r) is not None}
    assert planned == {r.__name__ for r in relations.RULESETS["choices"]}
    m3, row = pt.matrix("m3", shape=(3, None)), pt.matrix("row", shape=(1, None))
    cases = {
        "sum_factor_broadcasto": pt.sum(m3 * row, axis=0),
        "sum_count_broadcasto": pt.sum(m3 + row, axis=0),
        "reduce_alloco": pt.sum(pt.alloc(pt.scalar("c"), 3, 4), axis=1),
        "reduce_writeso": pt.sum(pt.set_subtensor(pt.zeros(5)[np.array([0, 3])], pt.vector("w", shape=(2,)))),
    }
    for r in relations.RULESETS["choices"]:
        if r.__name__ not in cases:
            continue
        lhs = cases[r.__name__]
        from graph_bridge import reify

        found = [reify(a) for a in forward_matcher(r).answers(lhs)]
        expected = [reify(a) for a in answers(r, lhs, var())]
        assert found and len(found) == len(expected), r.__name__
        assert equal_computations(found, expected), r.__name__  # a new constant each run: compared by value


def test_a_goal_the_planner_cannot_read_leaves_the_relation_as_it_is():
    def opaque_rule(lhs, rhs):
        return lall_ready(eq(lhs, rhs), conde([eq(rhs, 1)]))

    with pytest.raises(Uncompilable, match="neither eq nor a moded goal"):
        compile_forward(opaque_rule)
    assert forward_matcher(opaque_rule) is None


@pytest.mark.parametrize("backward", [False, True])
def test_a_mode_not_ready_at_run_time_falls_back_to_the_relation(backward):
    # planned: `a` is known after the match, so the mode is expected ready;
    # at run time it is not (a matrix), and the relation itself answers
    def vector_rule(lhs, rhs):
        a = var()
        known, other = (rhs, lhs) if backward else (lhs, rhs)
        terms, ins, outs = ((other, a), (1,), (0,)) if backward else ((a, other), (0,), (1,))
        mode = Mode(ins, outs, lambda t: iter(((t,),)), lambda t: getattr(t, "ndim", None) == 1)
        return lall_ready(eq(known, a), moded("vector only", terms, mode))

    matcher = (compile_backward if backward else compile_forward)(vector_rule)
    if backward:
        assert "backward" in matcher.source
    for x in (pt.vector("v"), pt.matrix("m")):
        relation = answers(vector_rule, var(), x, backward=True) if backward else answers(vector_rule, x, var())
        assert list(matcher.answers(x)) == list(relation)
    assert list(matcher.answers(pt.vector("v"))) != []
    assert list(matcher.answers(pt.matrix("m"))) == []


def _nodes_of(outputs: list[Variable]):
    """Each one-output node of ``outputs`` and of their normal form, with its variable and term,
    given inside its graph's context."""
    for graph in (outputs, relations.normalize(outputs)):
        with graph_context(graph):
            for node in apply_ancestors(graph):
                if len(node.outputs) == 1:
                    yield node, node.outputs[0], node_term(node.outputs[0])


def _same_answers(outputs: list[Variable]) -> int:
    """Compare plan and relation at every node of ``outputs`` (and of their normal form)."""
    index = RuleIndex(all_rules())
    compared = 0
    for node, v, t in _nodes_of(outputs):
        for rule in index.forward_for(node):
            matcher = forward_matcher(rule)
            if matcher is None:
                continue
            planned = list(matcher.answers(v))  # normalize gives the plan the variable
            plain = list(answers(rule, t, var()))
            assert _same_terms(planned, plain), (rule.__name__, node)
            assert _same_terms(list(matcher.answers(t)), plain)
            compared += 1
    return compared


def _same_terms(a: list, b: list) -> bool:
    """Equal answers; a rule that builds a constant makes a new one each run, so those compare by value."""
    if a == b:
        return True
    from graph_bridge import reify

    return len(a) == len(b) and equal_computations([reify(t) for t in a], [reify(t) for t in b])




def _same(planned: list, plain: list) -> bool:
    """The same answers: equal terms, or variables that compute the same graph (pattern rules build them)."""
    if len(planned) != len(plain):
        return False
    for a, b in zip(planned, plain):
        if isinstance(a, Variable) and isinstance(b, Variable):
            if not equal_computations([a], [b]):
                return False
        elif a != b:
            return False
    return True


def _pattern_rules():
    from pytensor.tensor.elemwise import CAReduce, DimShuffle

    from relations import lang, rewrite_rule
    from relations import patterns as p

    a, b = p.var("a"), p.var("b")
    r, o, ax, ax2, o2 = (p.var(n) for n in ("r", "o", "ax", "ax2", "o2"))
    return [
        rewrite_rule("neg_neg", p.neg(p.neg(a)), a),
        rewrite_rule("sum_neg", p.sum(p.neg(a), axis=ax), p.neg(p.sum(a, axis=ax)), measure=lang.weighted_operands()),
        rewrite_rule(
            "reduce_through",
            p.careduce(r, p.dimshuffle(a, order=o), axis=ax),
            p.dimshuffle(p.careduce(r, a, axis=ax2), order=o2),
            where=(lang.axes_througho(a, o, ax, ax2, o2), lang.single_useo(a)),
            measure=lang.below([DimShuffle], [CAReduce]).keeping(lang.nodes()),
        ),
        rewrite_rule("mul_one", p.mul(a, 1.0), a, where=(lambda a: a.type.ndim >= 1,)),
        rewrite_rule("exp_sum", p.exp(p.add(a, b)), p.mul(p.exp(a), p.exp(b)), choice=True),
    ]


def test_pattern_rules_are_planned_and_an_opaque_goal_guard_is_not():
    from kanren import membero

    from graph_bridge import dtypeo
    from relations import patterns as p
    from relations import rewrite_rule

    assert all(forward_matcher(r) is not None for r in _pattern_rules())
    a = p.var("a")
    moded_guard = rewrite_rule("neg_neg_f64", p.neg(p.neg(a)), a, where=(dtypeo(a, "float64"),))
    assert forward_matcher(moded_guard) is not None
    opaque = rewrite_rule("neg_neg_member", p.neg(p.neg(a)), a, where=(membero(a, (a,)),))
    assert forward_matcher(opaque) is None  # kanren's goal is opaque: the relation runs as it is
    x, i = pt.vector("x"), pt.vector("i", dtype="int64")
    for rule in (moded_guard, opaque):
        for v, fires in ((-(-x), True), (-(-i), rule is opaque)):
            with graph_context([v]):
                assert bool(list(answers(rule, v, var()))) is fires
                if forward_matcher(rule) is not None:
                    assert _same(list(forward_matcher(rule).answers(v)), list(answers(rule, v, var())))


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_plan_and_relation_agree_for_pattern_rules(drawn: Drawn):
    rules = _pattern_rules()
    outs = list(drawn.outputs)
    with graph_context(outs):
        for node in apply_ancestors(outs):
            if len(node.outputs) != 1:
                continue
            t = node_term(node.outputs[0])
            for rule in RuleIndex(rules).forward_for(node):
                assert _same(list(forward_matcher(rule).answers(t)), list(answers(rule, t, var())))


def test_pattern_rules_agree_where_they_fire():
    from pytensor.tensor import exp, vector

    x, y = vector("x"), vector("y")
    graph = [exp(-(-x)) * 1.0, exp(x + y)]
    fired = 0
    with graph_context(graph):
        for node in apply_ancestors(graph):
            t = node_term(node.outputs[0])
            for rule in _pattern_rules():
                planned = list(forward_matcher(rule).answers(t))
                assert _same(planned, list(answers(rule, t, var())))
                fired += bool(planned)
    assert fired >= 3


def test_a_plan_does_not_keep_its_relation_alive():
    import gc
    import weakref

    from relations import patterns as p
    from relations import rewrite_rule

    a = p.var("a")
    rule = rewrite_rule("neg_neg_once", p.neg(p.neg(a)), a)
    assert forward_matcher(rule) is not None
    ref = weakref.ref(rule)
    del rule
    gc.collect()
    assert ref() is None


def test_a_plan_is_python_source_with_a_line_per_single_answer_mode_step():
    from relations.rules.broadcast import elemwise_explicito

    source = forward_matcher(elemwise_explicito).source
    assert source.startswith("def plan(t):  # elemwise_explicito, forward")
    for step in ("stock_elemwiseo(0,) -> (1,)", "stock_inputso(0,) -> (1, 2)", "same_typeo(0, 1) -> ()"):
        assert f"# {step}" in source
    # the four goals are mode steps of at most one answer (``Mode(one=...)``):
    # each is a call and a test, with no loop
    assert source.count("for ") == 0
    calls = re.findall(r"\n +(a\d+) = C\d+\(.*\)\n +if (a\d+) is None: return _NO\n", source)
    assert len(calls) == 4 and all(a == b for a, b in calls)
    # so the plan is a function returning its one answer in a tuple, not a generator
    assert "yield" not in source and "return (v" in source
    x, y = pt.matrix("x"), pt.vector("y")
    with graph_context([x * y]):
        (out,) = forward_matcher(elemwise_explicito).answers(x * y)
    assert type(out.evaled_obj.owner.op).__name__ == "ExplicitElemwise"


def test_a_mode_of_several_answers_is_a_loop_and_one_of_one_answer_is_not():
    def two_step(lhs, rhs):
        mid = var()
        return lall_ready(
            moded("twice", (lhs, mid), Mode((0,), (1,), lambda t: iter(((t,), (t,))))),
            moded("same", (mid, rhs), Mode((0,), (1,), one=lambda t: (t,))),
        )

    source = forward_matcher(two_step).source
    assert source.count("for ") == 1 and "yield v" in source  # a loop: a generator of the answers
    assert source.count(" is None: continue") == 1  # no answer: the next answer of the loop
    x = pt.vector("x")
    assert list(forward_matcher(two_step).answers(x)) == [x, x] == list(answers(two_step, x, var()))


def test_a_mode_takes_all_answers_or_one_answer_but_not_a_generator_as_one():
    with pytest.raises(TypeError, match="one of run"):
        Mode((0,), (1,))
    with pytest.raises(TypeError, match="one of run"):
        Mode((0,), (1,), lambda t: iter(()), one=lambda t: None)

    def gen(t):
        yield (t,)

    with pytest.raises(TypeError, match="gen is a generator function"):
        Mode((0,), (1,), one=gen)
    assert list(Mode((0,), (1,), one=lambda t: None).run(1)) == []
    assert list(Mode((0,), (1,), one=lambda t: (t + 1,)).run(1)) == [(2,)]


def test_a_plan_too_deep_for_python_leaves_the_relation_as_it_is():
    # Python allows 20 nested blocks: 25 moded goals in a row do not compile
    def deep_rule(lhs, rhs):
        chain = [var() for _ in range(26)]
        step = Mode((0,), (1,), lambda t: iter(((t,),)))
        goals = [eq(lhs, chain[0])]
        goals += [moded(f"pass {k}", (chain[k], chain[k + 1]), step) for k in range(25)]
        goals.append(eq(rhs, chain[-1]))
        return lall_ready(*goals)

    with pytest.raises(Uncompilable, match="does not compile"):
        compile_forward(deep_rule)
    assert forward_matcher(deep_rule) is None
    x = pt.vector("x")
    assert list(answers(deep_rule, x, var())) == [x]


def test_a_variable_bound_to_a_pattern_first_then_matched_against_the_node():
    # eq(b, neg(a)) with neither side known defers b; eq(lhs, b) then matches the node
    # against b's pattern, which binds a (and must not make b a pattern to build)
    from graph_bridge.terms import elemwise_term, term

    neg = elemwise_term(pt.neg(pt.scalar()).owner.op.scalar_op)

    def unneg(lhs, rhs):
        a, b = var(), var()
        return lall_ready(eq(b, term(neg, a)), eq(lhs, b), eq(rhs, a))

    matcher = compile_forward(unneg)
    x = pt.vector("x")
    for graph in (-x, pt.exp(x), x):
        with graph_context([graph]):
            assert list(matcher.answers(graph)) == list(answers(unneg, graph, var()))
    assert list(matcher.answers(-x)) == [x]
    assert list(matcher.answers(pt.exp(x))) == []


# -- backward plans: the same planner with the right side known ------------------------------


def _same_backward_answers(outputs: list[Variable]) -> int:
    """Compare the backward plan and the relation run backward at every node of ``outputs`` (and their normal form)."""
    index = RuleIndex(all_rules())
    compared = 0
    for node, _, t in _nodes_of(outputs):
        for rule in index.backward_for(node):
            matcher = backward_matcher(rule)
            if matcher is None:
                continue
            plain = list(answers(rule, var(), t, backward=True))
            assert _same_terms(list(matcher.answers(t)), plain), (rule.__name__, node)
            compared += 1
    return compared


def test_every_rule_is_planned_backward_unless_a_backward_mode_gives_templates():
    for r in all_rules():
        matcher = backward_matcher(r)
        if matcher is None:  # only a rule the planner cannot follow backward runs as it is
            with pytest.raises(Uncompilable):
                compile_backward(r)
            continue
        assert matcher.backward and matcher.source.startswith(f"def plan(t):  # {r.__name__}, backward")
    assert all(backward_matcher(r) is not None for r in relations.RULESETS["choices"])
    assert all(backward_matcher(r) is not None for r in relations.DEFAULT_RULES if r.__name__ != "careduce_joino")


#: each direction's comparison of the plans with the relations (answers compared, how many)
AGREEMENT = {"forward": _same_answers, "backward": _same_backward_answers}


@pytest.mark.parametrize("direction", list(AGREEMENT))
@settings(deadline=None, max_examples=90, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_plans_and_relations_agree_on_random_graphs(direction, drawn: Drawn):
    AGREEMENT[direction](list(drawn.outputs))


@pytest.mark.parametrize("direction", list(AGREEMENT))
def test_plans_and_relations_agree_on_model_graphs(direction):
    from helpers import require_pymc

    require_pymc()
    from pymc_models import MODELS, logp_dlogp

    for name in ("LKJCorr n=10", "hierarchical regression", "NormalMixture", "multinomial logit"):
        _, outs = logp_dlogp(MODELS[name]())
        assert AGREEMENT[direction](outs) > 50, name
