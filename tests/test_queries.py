"""Reverse queries: equivalents, match modulo the rules, best form."""

import itertools

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from etuples import etuple
from pytensor.graph.basic import equal_computations
from pytensor.tensor.elemwise import DimShuffle
from unification import var

import relations
from graph_bridge import ExplicitElemwise, etuplize
from helpers import check_rewrite, graph_ops, snapshot
from relations.saturation.costs import elements_touched, measured

x = pt.vector("x")
y = pt.vector("y")
s = pt.scalar("s")
m = pt.matrix("m")


def motivating_graphs():
    """One graph per motivating case, with run-time shapes (including 0 and 1 lengths)."""
    from lkjcorr import lkjcorr_sqr  # examples/lkjcorr.py

    params, lkj = lkjcorr_sqr(3)
    return [
        ("001 full", pt.sum(pt.expand_dims(pt.exp(x), 0)), {x: [(3,), (0,), (1,)]}),
        ("001 partial", pt.sum(m.T, axis=0), {m: [(2, 3), (0, 3), (1, 1)]}),
        ("001 join", pt.sum(pt.join(0, x, y)), {x: [(2,), (0,), (1,)], y: [(3,), (2,), (0,)]}),
        ("000 broadcast", s + y, {s: [(), (), ()], y: [(3,), (0,), (1,)]}),
        ("004 lkjcorr", lkj, {params: [(3,), (3,), (3,)]}),
    ]


@pytest.fixture(autouse=True)
def _examples_on_path(monkeypatch):
    import pathlib

    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).resolve().parent.parent / "examples"))


@pytest.mark.parametrize("case", range(5), ids=lambda i: ["001f", "001p", "001j", "000", "004"][i])
def test_equivalents_are_distinct_valid_and_equal(case):
    name, g, shapes = motivating_graphs()[case]
    before = snapshot(g)
    forms = list(relations.equivalents(g, limit=6, depth=2))
    assert forms, name
    assert snapshot(g) == before
    everything = [g, *forms]
    for a, b in itertools.combinations(everything, 2):
        assert not equal_computations([a], [b]), name  # distinct from the input and each other
    for f in forms:
        check_rewrite(g, f, shapes)


def test_equivalents_keep_the_structure_of_lists():
    forms = list(relations.equivalents([pt.sum(pt.exp(x)), s + y], limit=4))
    assert all(isinstance(f, list) and len(f) == 2 for f in forms)
    forms = list(relations.equivalents((pt.sum(pt.exp(x)),), limit=2))
    assert all(isinstance(f, tuple) for f in forms)


def test_equivalents_order_is_deterministic():
    g = pt.sum(pt.expand_dims(pt.exp(x) + s, 0))
    first = [pytensor.dprint(f, file="str") for f in relations.equivalents(g, limit=8)]
    second = [pytensor.dprint(f, file="str") for f in relations.equivalents(g, limit=8)]
    assert first == second and len(first) == 8


def test_bounds_limit_depth_and_timeout():
    g = _site(x) + _site(y)
    assert list(relations.equivalents(g, limit=0)) == []
    assert len(list(relations.equivalents(g, limit=3))) == 3
    assert list(relations.equivalents(g, depth=0)) == []  # no iteration: nothing but the input
    one = list(relations.equivalents(_site(x), limit=None, depth=1))
    two = list(relations.equivalents(_site(x), limit=None, depth=2))
    assert 0 < len(one) < len(two)  # depth: iterations of one growing e-graph
    cut = list(relations.equivalents(_site(x), limit=None, depth=3, timeout=1e-9))
    assert len(cut) <= len(one)  # stopped within the first iteration
    small = list(relations.equivalents(_site(x), limit=None, limits=relations.Limits(nodes=5)))
    assert len(small) < len(two)  # limits= bounds the e-graph too


def _site(v):
    """A sub-graph with two forms forward: ``sum(expand_dims(exp(v), 0))`` and ``sum(exp(v))``."""
    return pt.sum(pt.expand_dims(pt.exp(v), 0))


def _keys(forms):
    return {pytensor.dprint(f, file="str", id_type="") for f in forms}


@pytest.mark.parametrize("k, rules", [(1, None), (2, None), (3, "one"), (4, "one")])
def test_k_independent_sites_give_at_least_the_product_of_their_forms(k, rules):
    # the e-graph keeps every site's forms apart: their combinations are all forms of the whole
    # (default rules: 152 forms a site, 23,104 for two; one rule: 5 a site, 625 for four)
    from relations.rules.dimshuffle import careduce_dimshuffle_fullo

    rules = (careduce_dimshuffle_fullo,) if rules == "one" else None
    vs = [pt.vector(f"v{i}") for i in range(k)]
    counts = [1 + len(list(relations.equivalents(_site(v), limit=None, depth=1, rules=rules))) for v in vs]
    assert all(n >= 2 for n in counts)
    g = _site(vs[0])
    for v in vs[1:]:
        g = g + _site(v)
    before = snapshot(g)
    forms = list(relations.equivalents(g, limit=None, depth=1, rules=rules))
    assert 1 + len(forms) >= int(np.prod(counts))
    assert len(_keys(forms) | _keys([g])) == 1 + len(forms)  # distinct, and none is the input
    assert all(f.type == g.type for f in forms)
    assert snapshot(g) == before
    shapes = {v: [(3,), (0,), (1,)] for v in vs}
    for f in forms[:: max(1, len(forms) // 4)]:  # values of a spread of them (compiling each costs)
        check_rewrite(g, f, shapes)


def test_depth_one_forms_reach_the_normal_form():
    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    one = list(relations.equivalents(g, limit=None, depth=1))
    normal = relations.normalize(g)
    assert any(equal_computations([f], [normal]) for f in one)  # the forward step
    assert equal_computations([one[0]], [normal])  # and it is the cheapest: first


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"limit": -1}, "limit"),
        ({"limit": 2.5}, "limit"),
        ({"limit": True}, "limit"),
        ({"depth": -1}, "depth"),
        ({"depth": "2"}, "depth"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": -1.0}, "timeout"),
    ],
)
def test_bad_bounds_raise_value_error_naming_the_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        next(relations.equivalents(pt.sum(pt.exp(x)), **kwargs))


def test_bad_graph_and_rules_are_named():
    with pytest.raises(TypeError, match="graph must be"):
        next(relations.equivalents(3.0))
    with pytest.raises(TypeError, match="rules"):
        next(relations.equivalents(x, rules=[1]))
    with pytest.raises(TypeError, match="pattern must be"):
        next(relations.match(x, "add"))
    with pytest.raises(TypeError, match="graph must be a PyTensor Variable"):
        next(relations.match([x], etuple(var())))
    with pytest.raises(TypeError, match="cost must be"):
        relations.best(x, cost=3)


def test_match_plain_unification_binds_inputs():
    a, b = var("a"), var("b")
    pattern = etuple(etuplize(pt.mul), a, b)
    answers = list(relations.match(x * y, pattern, depth=0))
    assert answers == [{a: x, b: y}]


def test_match_finds_a_form_that_only_exists_after_a_backward_step():
    a, b, ds = var("a"), var("b"), var("ds")
    pattern = etuple(etuplize(pt.add), etuple(ds, a), b)  # add(<some op>(a), b)
    g = relations.normalize(s + y)  # add{x,*}(s, y): no node between add and s
    assert list(relations.match(g, pattern, depth=0)) == []
    found = list(relations.match(g, pattern, depth=1))
    assert any(ans[a] is s and isinstance(ans[ds], DimShuffle) and ans[b] is y for ans in found)


def test_match_sees_through_explicit_broadcasting():
    a, b = var("a"), var("b")
    g = relations.normalize(s + y)
    answers = list(relations.match(g, etuple(etuplize(pt.add), a, b), depth=0))
    assert answers == [{a: s, b: y}]


def test_match_reduction_of_an_expansion_modulo_the_rules():
    # Sum(x) matches Sum(ExpandDims(?)) only one backward step away
    head, inner_op, a = var("head"), var("op"), var("a")
    pattern = etuple(head, etuple(inner_op, a))
    g = pt.sum(pt.exp(x))
    found = list(relations.match(g, pattern, depth=1))
    assert any(isinstance(ans[inner_op], DimShuffle) for ans in found)
    assert any(ans[a] is x for ans in found)  # Sum(Exp(x)) itself: inner_op = Exp


def test_best_picks_the_cheapest_form_and_keeps_the_input_otherwise():
    g = pt.sum(pt.expand_dims(pt.exp(m), 0), axis=(0, 2))
    b = relations.best(g)
    assert measured([b]) < measured([g])  # the default cost
    assert elements_touched([b]) < elements_touched([g])
    check_rewrite(g, b, {m: [(2, 3), (0, 3), (1, 1)]})
    already = pt.sum(pt.exp(x))
    assert relations.best(already) is already
    node_count = relations.best(g, cost=lambda outs: len(graph_ops(*outs)))
    assert len(graph_ops(node_count)) <= len(graph_ops(g))


def test_best_of_the_broadcast_case_is_explicit_under_elements_touched():
    # (under the default cost, measured, the explicit form pays the DimShuffles its lowering puts
    # back: a tie, and the input is kept)
    b = relations.best(pt.exp(m) * y + s, cost=elements_touched)
    assert any(isinstance(op, ExplicitElemwise) for op in graph_ops(b))
    assert not any(isinstance(op, DimShuffle) for op in graph_ops(b))
    check_rewrite(pt.exp(m) * y + s, b, {m: [(2, 3), (0, 3)], y: [(3,), (3,)], s: [(), ()]})


@pytest.mark.default_mode
def test_equivalent_forms_compile_in_the_default_mode():
    g = pt.sum(pt.expand_dims(pt.exp(x) + s, 0))
    forms = list(relations.equivalents(g, limit=3))
    f = pytensor.function([x, s], [g, *forms])
    vals = f(np.arange(3.0), 0.5)
    for v in vals[1:]:
        np.testing.assert_allclose(v, vals[0])
