"""Equality saturation: the e-graph, its limits and report, extraction, forms and proofs."""

import logging

import pytensor
import pytensor.tensor as pt
import pytest

import relations
import relations.saturation.extract as extract_mod
from helpers import check_rewrite, graph_ops, snapshot
from relations import EGraph, Limits, saturate
from relations.saturation.costs import elements_touched, measured

x = pt.vector("x")
y = pt.vector("y")
s = pt.scalar("s")
m = pt.matrix("m")


def _site(v):
    """A sub-graph with two forms under the default rules: ``sum(expand_dims(exp(v), 0))`` and ``sum(exp(v))``."""
    return pt.sum(pt.expand_dims(pt.exp(v), 0))


def _cases():
    from lkjcorr import lkjcorr_sqr  # examples/lkjcorr.py

    params, lkj = lkjcorr_sqr(3)
    return [
        ("full", _site(x), {x: [(3,), (0,), (1,)]}),
        ("partial", pt.sum(m.T, axis=0), {m: [(2, 3), (0, 3), (1, 1)]}),
        ("join", pt.sum(pt.join(0, x, y)), {x: [(2,), (0,), (1,)], y: [(3,), (2,), (0,)]}),
        ("broadcast", s + y, {s: [(), (), ()], y: [(3,), (0,), (1,)]}),
        ("lkjcorr", lkj, {params: [(3,), (3,), (3,)]}),
        ("list", [pt.sum(pt.exp(x).dimshuffle("x", 0), axis=1), pt.exp(x) * 2], {x: [(3,), (0,), (1,)]}),
    ]


@pytest.fixture(autouse=True)
def _examples_on_path(monkeypatch):
    import pathlib

    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).resolve().parent.parent / "examples"))


CASES = ["full", "partial", "join", "broadcast", "lkjcorr", "list"]


def _case(name):
    return next(c for c in _cases() if c[0] == name)


# -- the e-graph -------------------------------------------------------------------


def test_saturate_forward_joins_the_graph_and_its_normal_form():
    g = _site(x)
    eg = saturate(g, backward=False)
    assert eg.report.stop == "saturated"
    assert eg.same(g, relations.normalize(g))
    assert eg.same(g, pt.sum(pt.exp(x)))
    assert not eg.same(g, pt.sum(pt.log(x)))
    assert eg.report.rules["careduce_dimshuffle_fullo"].unions == 1
    assert eg.report.rules["careduce_joino"].matches == 0


def test_hash_consing_and_congruence():
    eg = EGraph()
    a = pt.exp(x) + 1
    b = pt.exp(x) + 1  # built again: the same e-node
    (ca,) = eg.add(a)
    size = eg.size
    # x, exp(x), the constant 1, its ExpandDims and the add
    assert size == (5, 5)
    assert eg.class_of(b) == ca
    assert eg.size == size  # b's nodes (a new constant 1 too) are a's e-nodes
    # asserting exp(x) == log(x) makes exp(x) + 1 and log(x) + 1 one class (congruence)
    assert eg.union(pt.exp(x), pt.log(x))
    assert eg.same(pt.exp(x) + 1, pt.log(x) + 1)
    assert not eg.union(pt.exp(x), pt.log(x))


def test_a_union_of_classes_of_different_types_raises_naming_both():
    eg = EGraph()
    with pytest.raises(TypeError, match=r"Vector\(float64.*Scalar\(float64"):
        eg.union(pt.exp(x), pt.sum(x))


def test_the_input_graph_is_not_changed():
    name, g, shapes = _case("lkjcorr")
    before = snapshot(g)
    eg = saturate(g)
    eg.extract()
    list(eg.forms(limit=5))
    assert snapshot(g) == before


def test_report_fields_and_logging(caplog):
    g = _site(x)
    seen = []
    with caplog.at_level(logging.INFO, logger="relations.saturation"):
        eg = saturate(g, backward=False, progress=seen.append)
    r = eg.report
    assert r.stop == "saturated" and r.iterations >= 2 and r.seconds > 0
    assert (r.classes, r.nodes) == eg.size
    assert set(r.rules) == {rule.__name__ for rule in relations.DEFAULT_RULES}
    assert all(v.seconds >= 0 and v.unions <= v.matches for v in r.rules.values())
    assert len(seen) == r.iterations
    assert any("saturate: stop: saturated" in rec.getMessage() for rec in caplog.records)
    assert "careduce_dimshuffle_fullo: 1 matches, 1 unions" in str(r)


@pytest.mark.parametrize(
    "limits, stop",
    [
        (Limits(iterations=1, growth=None), "iterations"),
        (Limits(nodes=2), "nodes"),
        (Limits(seconds=1e-9), "seconds"),
        (Limits(growth=0.1), "nodes"),
    ],
)
def test_each_limit_stops_with_its_reason(limits, stop):
    g = pt.sum(pt.expand_dims(pt.exp(pt.expand_dims(x, 0)), 0))
    eg = saturate(g, limits=limits)
    assert eg.report.stop == stop
    # whatever the e-graph holds when it stops is sound: its cheapest form keeps the values
    check_rewrite(g, eg.extract().result, {x: [(3,), (0,), (1,)]})


def test_unbounded_limits_saturate():
    eg = saturate(_site(x), limits=Limits(nodes=None, iterations=None, seconds=None, growth=None))
    assert eg.report.stop == "saturated"


def test_growth_bounds_the_backward_steps_after_forward_saturation():
    # forward first, to saturation; then backward steps add at most growth x the e-nodes held
    g = _site(x) + _site(y)
    forward = saturate(g, backward=False)
    n = forward.report.nodes
    eg = saturate(g, limits=Limits(growth=0.5))
    assert eg.report.stop == "nodes"
    assert n < eg.report.nodes <= n + n // 2 + 8  # one e-node's answers may pass the bound
    assert eg.same(g, relations.normalize(g))  # the forward forms are all there
    free = saturate(g, limits=Limits(growth=None, seconds=None))
    assert free.report.nodes > eg.report.nodes


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"nodes": -1}, "Limits.nodes"),
        ({"iterations": 1.5}, "Limits.iterations"),
        ({"seconds": 0}, "Limits.seconds"),
        ({"seconds": True}, "Limits.seconds"),
        ({"growth": 0}, "Limits.growth"),
        ({"growth": "1"}, "Limits.growth"),
    ],
)
def test_bad_limits_name_the_field(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        Limits(**kwargs)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="limits must be"):
        saturate(x, limits=3)
    with pytest.raises(TypeError, match="graph must be"):
        saturate(3.0)
    with pytest.raises(TypeError, match="rules"):
        saturate(x, rules=[1])
    with pytest.raises(TypeError, match="progress must be"):
        saturate(x, progress=3)


def test_sharing_guards_are_off_in_the_egraph():
    # pytensor #2138: normalize refuses to lift exp through a set that another node reads;
    # the e-graph keeps both forms and extraction decides
    z = pt.zeros((3,))
    st = pt.set_subtensor(z[1:], x)
    g = [pt.exp(st), st * 2]
    normal = relations.normalize(g)
    assert normal[0].owner.op == pt.exp(x).owner.op  # normalize refused: exp stays above the set
    eg = saturate(g, backward=False)
    assert eg.report.rules["elemwise_set_subtensoro"].unions >= 1
    lifted = pt.set_subtensor(pt.exp(z)[1:], pt.exp(x))
    assert eg.same(g[0], lifted)


def test_backward_adds_the_forms_that_rewrite_to_a_class():
    g = pt.sum(pt.exp(x))
    fwd = saturate(g, backward=False)
    back = saturate(g, backward=True)
    assert fwd.size[1] < back.size[1]
    assert back.same(g, _site(x))  # sum(exp(x)) <- sum(expand_dims(exp(x), 0)), run backward
    assert not fwd.same(g, _site(x))  # added now, never rewritten: its own class


# -- extraction --------------------------------------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_extract_keeps_types_and_values_and_is_never_costlier_than_normalize(name):
    _, g, shapes = _case(name)
    before = snapshot(*(g if isinstance(g, list) else [g]))
    eg = saturate(g)
    e = eg.extract()
    assert e.method in ("exact", "greedy")
    assert isinstance(e.result, list) == isinstance(g, list)
    check_rewrite(g, e.result, shapes)
    outs = e.result if isinstance(e.result, list) else [e.result]
    norm = relations.normalize(g)
    assert e.cost == pytest.approx(elements_touched(outs))
    assert e.cost <= elements_touched(norm if isinstance(norm, list) else [norm])
    assert snapshot(*(g if isinstance(g, list) else [g])) == before


def test_extraction_is_exact_when_small_and_greedy_otherwise(monkeypatch):
    _, g, shapes = _case("lkjcorr")
    eg = saturate(g)
    exact = eg.extract()
    assert exact.method == "exact"
    monkeypatch.setattr(extract_mod, "EXACT_MAX_NODES", 0)
    monkeypatch.setattr(extract_mod, "EXACT_MAX_ACYCLIC", 0)
    greedy = eg.extract()
    assert greedy.method == "greedy"
    assert greedy.cost >= exact.cost
    check_rewrite(g, greedy.result, shapes)


def test_extraction_is_exact_on_a_larger_e_graph_without_cycles(monkeypatch):
    # over EXACT_MAX_NODES, an e-graph without a cycle still gets the integer program
    g = _site(x) + _site(y)
    eg = saturate(g, backward=False)
    monkeypatch.setattr(extract_mod, "EXACT_MAX_NODES", 0)
    out = eg.extract()
    assert out.method == "exact"
    monkeypatch.setattr(extract_mod, "EXACT_MAX_ACYCLIC", 0)
    assert eg.extract().method == "greedy" and eg.extract().cost >= out.cost
    check_rewrite(g, out.result, {x: [(3,), (0,), (1,)], y: [(3,), (0,), (1,)]})
    # sum(expand_dims(exp(x), 0), 0) is exp(x): its class reads itself through the ExpandDims
    cyclic = saturate(pt.sum(pt.expand_dims(pt.exp(x), 0), 0), backward=False)
    monkeypatch.setattr(extract_mod, "EXACT_MAX_ACYCLIC", 10**6)
    assert cyclic.extract().method == "greedy"


def test_extraction_pays_a_shared_class_once():
    # two outputs read one sub-graph: its cost counts once in the total
    e = pt.exp(x)
    eg = saturate([pt.sum(e), e * 2], backward=False)
    out = eg.extract()
    assert out.cost == pytest.approx(elements_touched(out.result))
    assert out.cost < elements_touched([out.result[0]]) + elements_touched([out.result[1]])


def test_a_per_node_cost_of_your_own():
    g = _site(x)
    eg = saturate(g, backward=False)
    out = eg.extract(cost=lambda v: 1.0)  # a node count: Sum(Exp(x)), the leaf x is free
    assert out.cost == 2
    assert [type(op).__name__ for op in graph_ops(out.result)] == ["Sum", "Elemwise"]
    with pytest.raises(TypeError, match="cost must return"):
        eg.extract(cost=lambda v: "a")


# -- forms ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3])
def test_forms_of_k_independent_sites_are_the_product(k):
    vs = [pt.vector(f"v{i}") for i in range(k)]
    g = vs[0]
    for v in vs:
        g = g + _site(v) if g is not vs[0] else _site(v)
    eg = saturate(g, backward=False)
    forms = list(eg.forms())
    assert len(forms) >= 2**k
    keys = {pytensor.dprint(f, file="str", id_type="") for f in forms}
    assert len(keys) == len(forms)  # distinct
    shapes = {v: [(3,), (0,), (1,)] for v in vs}
    for f in forms:
        check_rewrite(g, f, shapes)


def test_forms_reach_what_the_breadth_first_search_does_not():
    # the three sites rewritten at once are three steps away: beyond the breadth-first search's depth 2
    from pytensor.graph.basic import equal_computations

    from form_search import equivalent_forms
    from relations.rules import rule_index

    vs = [pt.vector(f"v{i}") for i in range(3)]
    g = _site(vs[0]) + _site(vs[1]) + _site(vs[2])
    all_three = relations.normalize(g)
    rules = relations.RULESETS["dimshuffle"]
    bfs = list(equivalent_forms([g], rule_index(rules), None, 2, None))
    assert not any(equal_computations(f, [all_three]) for f in bfs)
    forms = list(saturate(g, rules=rules, backward=False).forms())
    assert len(forms) == 8
    assert any(equal_computations([f], [all_three]) for f in forms)
    # equivalents answers from the e-graph: one iteration steps every site (one rule: 5^3 forms)
    from relations.rules.dimshuffle import careduce_dimshuffle_fullo

    one = relations.equivalents(g, limit=None, depth=1, rules=(careduce_dimshuffle_fullo,))
    assert any(equal_computations([f], [all_three]) for f in one)


def test_forms_limit_and_first_is_cheapest():
    g = _site(x) + _site(y)
    eg = saturate(g, backward=False)
    assert len(list(eg.forms(limit=2))) == 2
    first = next(eg.forms())
    assert elements_touched([first]) == eg.extract().cost
    with pytest.raises(ValueError, match="limit"):
        eg.forms(limit=-1)


# -- best and prove --------------------------------------------------------------------


@pytest.mark.parametrize("name", CASES)
def test_best_is_never_costlier_than_normalize(name):
    _, g, shapes = _case(name)
    b = relations.best(g)
    outs = b if isinstance(b, list) else [b]
    norm = relations.normalize(g)
    assert measured(outs) <= measured(norm if isinstance(norm, list) else [norm])  # best's default cost
    check_rewrite(g, b, shapes)


@pytest.mark.parametrize("name", CASES)
def test_prove_a_graph_and_its_normal_form_and_best_form(name):
    _, g, _ = _case(name)
    for other in (relations.normalize(g), relations.best(g)):
        p = relations.prove(g, other)
        assert p is not None and p.check()


def test_prove_unequal_is_none_and_different_types_raise():
    assert relations.prove(pt.sum(pt.exp(x)), pt.sum(pt.log(x)), limits=Limits(seconds=5)) is None
    with pytest.raises(TypeError, match=r"Scalar\(float64.*Vector\(float64"):
        relations.prove(pt.sum(x), x)


def test_prove_through_a_backward_step_checks():
    # sum(expand_dims(v, 0)) and sum(expand_dims(v, 1)) normalize to one form: forward meets
    a = pt.sum(pt.expand_dims(pt.exp(x), 0))
    b = pt.sum(pt.expand_dims(pt.exp(x), 1))
    p = relations.prove(a, b)
    assert p is not None and p.check()
    assert [st.direction for st in p] == ["forward", "backward"]


def test_a_proof_that_does_not_hold_fails_its_check():
    eg = EGraph()
    eg.union(pt.exp(x), pt.log(x))
    from relations.queries.explanations import Proof
    from relations.queries.proofs import prove_in

    steps = prove_in(eg, [pt.exp(x) + 1], [pt.log(x) + 1])
    assert [st.rule for st in steps] == ["given"]
    assert not Proof(pt.exp(x) + 1, pt.log(x) + 1, steps).check()


# -- equivalents and match on the e-graph ------------------------------------------------


def test_equivalents_with_limits_are_the_egraph_forms():
    from pytensor.graph.basic import equal_computations

    vs = [pt.vector(f"v{i}") for i in range(3)]
    g = _site(vs[0]) + _site(vs[1]) + _site(vs[2])
    forms = list(relations.equivalents(g, limit=40, depth=4, limits=Limits()))
    assert len(forms) == 40  # backward steps too: hundreds of thousands of forms in all
    assert not any(equal_computations([f], [g]) for f in forms)
    assert any(equal_computations([f], [relations.normalize(g)]) for f in forms)
    shapes = {v: [(3,), (0,), (1,)] for v in vs}
    for f in forms[:3] + forms[-3:]:
        check_rewrite(g, f, shapes)
    assert len(list(relations.equivalents(g, limit=3, limits=Limits()))) == 3
    assert list(relations.equivalents(g, depth=0, limits=Limits())) == []
    lists = list(relations.equivalents([_site(x), s + y], limit=4, limits=Limits()))
    assert lists and all(isinstance(f, list) and len(f) == 2 for f in lists)
    with pytest.raises(TypeError, match="limits must be"):
        relations.equivalents(g, limits=5)


def test_equivalents_with_limits_report_progress():
    seen = []
    list(relations.equivalents(_site(x), limit=None, limits=Limits(), progress=seen.append))
    assert seen and all(isinstance(r, relations.Progress) for r in seen)
    assert [r.depth for r in seen] == list(range(1, len(seen) + 1))


def test_match_with_limits_modulo_the_rules():
    from etuples import etuple
    from pytensor.tensor.elemwise import DimShuffle
    from unification import var

    from graph_bridge import etuplize

    a, b, ds = var("a"), var("b"), var("ds")
    pattern = etuple(etuplize(pt.add), etuple(ds, a), b)
    g = relations.normalize(s + y)  # add{x,*}(s, y): no node between add and s
    assert list(relations.match(g, pattern, depth=0, limits=Limits())) == []
    found = list(relations.match(g, pattern, limits=Limits()))
    assert any(ans[a] is s and isinstance(ans[ds], DimShuffle) and ans[b] is y for ans in found)


# -- on random graphs ---------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402

from strategies import Drawn, graphs  # noqa: E402


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_every_normalize_step_is_a_union_and_extraction_keeps_values(drawn: Drawn):
    before = snapshot(*drawn.outputs)
    eg = saturate(drawn.outputs, backward=False)
    assert eg.report.stop == "saturated", drawn.describe()
    for step in relations.explain(drawn.outputs).steps:
        assert eg.same(step.before, step.after), (step.rule, drawn.describe())
    out = eg.extract()
    assert out.cost <= elements_touched(relations.normalize(drawn.outputs)), drawn.describe()
    for a, b in zip(drawn.outputs, out.result):
        assert a.type.dtype == b.type.dtype and a.type.broadcastable == b.type.broadcastable
    if not drawn.may_raise:
        from helpers import assert_same_values

        assert_same_values(drawn.outputs, out.result, drawn.givens())
    assert snapshot(*drawn.outputs) == before


def test_a_deep_graph_saturates_extracts_and_proves_without_recursion():
    # 1,200 nested levels: past Python's recursion limit for anything recursive
    v = x
    for i in range(1200):
        v = pt.exp(v) if i % 2 else pt.sum(pt.expand_dims(v, 0)) * x
    eg = saturate(v, backward=False, limits=Limits(seconds=None))
    assert eg.report.stop == "saturated"
    out = eg.extract()
    assert out.result.type == v.type
    assert out.cost <= elements_touched([relations.normalize(v)])
    p = relations.prove(v, relations.normalize(v), limits=Limits(seconds=None))
    assert p is not None and p.check()


def test_forms_of_a_5000_deep_chain_without_recursion():
    # 5,000 nested levels, two forms at the top site: forms() walks the classes with a work stack
    v = x
    for _ in range(5000):
        v = pt.exp(v)
    g = _site(v)
    eg = saturate(g, backward=False, limits=Limits(seconds=None))
    assert eg.report.stop == "saturated"
    forms = list(eg.forms())
    assert len(forms) == 2  # the input and the reduction of the expansion; the chain has one form
    assert forms[0].type == g.type and forms[1].type == g.type
    assert {type(f.owner.inputs[0].owner.op).__name__ for f in forms} == {"Elemwise", "DimShuffle"}


def test_a_rule_reading_only_its_inputs_nodes_is_matched_over_the_input_classes_alone():
    """``elemwise_set_subtensoro`` reads the set node under the Elemwise and only class facts below it
    (types, and whether the base *can be* spelled as an Alloc of a broadcast): saturation varies the
    set's class's e-nodes, not those below, and the guard asks every e-node of the base's class."""
    from relations.rules.lift import elemwise_alloco, elemwise_set_subtensoro

    assert elemwise_set_subtensoro.reads_below_inputs is False
    assert elemwise_alloco.reads_below_inputs is False
    assert relations.RULESETS["join"][0].reads_below_inputs is True  # a pattern three levels deep
    base = pt.vector("base", shape=(5,))
    g = pt.exp(pt.set_subtensor(base[1:3], pt.vector("v", shape=(2,))))
    eg = EGraph([elemwise_set_subtensoro])
    eg.add(g)
    eg.run()
    lifted = pt.set_subtensor(pt.exp(base)[1:3], pt.exp(g.owner.inputs[0].owner.inputs[1]))
    assert not eg.same(g, lifted)  # base is no broadcast: the guard refuses
    # told that base equals zeros(5) (an Alloc of a 0-d value), the lift holds for base's class
    eg = EGraph([elemwise_set_subtensoro])
    eg.add(g)
    eg.union(base, pt.zeros((5,)))
    eg.run()
    assert eg.report.rules["elemwise_set_subtensoro"].unions >= 1


def test_reads_below_inputs_is_read_off_the_patterns_and_guards():
    from relations.lang import p, rewrite_rule

    a, b, c = p.var("a"), p.var("b"), p.var("c")
    typed = rewrite_rule("typed", p.exp(p.log(a)), a, where=(relations.lang.ndimo(a, 1),))
    assert typed.reads_below_inputs is False  # a type fact on a variable under the child
    looked = rewrite_rule("looked", p.exp(p.log(a)), a, where=(lambda a: a.owner is None,))
    assert looked.reads_below_inputs is True  # a predicate may read a's node
    deep = rewrite_rule("deep", p.exp(p.log(p.exp(a))), p.exp(a))
    assert deep.reads_below_inputs is True
    flat = rewrite_rule("flat", p.add(b, c), p.add(c, b), choice=True, where=(lambda b: b.owner is None,))
    assert flat.reads_below_inputs is False  # b is the root's own input: shallow choices show its nodes


def test_a_guard_held_through_another_e_node_gives_a_step_that_holds_on_its_own():
    """``broadcast_pieceo`` holds for the set's base through the Alloc form ``elemwise_alloco`` put in
    its class: the lift is recorded on the choice with that form in the base's place, so the proof's
    step re-runs as a check with both sides given (it did not, on the family's graphs, when the
    step named the base the guard was not asked of)."""
    from relations.rules.lift import elemwise_alloco, elemwise_set_subtensoro

    s0 = pt.scalar("s0")
    base = pt.exp(pt.alloc(s0, 5))
    v = pt.vector("v", shape=(2,))
    g = pt.log1p(pt.set_subtensor(base[1:3], v))
    rules = [elemwise_alloco, elemwise_set_subtensoro]
    eg = saturate(g, rules, backward=False)
    assert eg.report.rules["elemwise_set_subtensoro"].unions >= 1
    lifted = pt.set_subtensor(pt.log1p(pt.alloc(pt.exp(s0), 5))[1:3], pt.log1p(v))
    proof = relations.prove(g, lifted, rules=rules)
    assert proof is not None and proof.check()
    assert "elemwise_set_subtensoro" in [step.rule for step in proof]
