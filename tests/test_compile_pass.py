"""The compile-time passes: ``relational`` (saturation and extraction) and ``relational_normalize`` (greedy)."""

import os

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import equal_computations
from pytensor.graph.rewriting.basic import check_stack_trace

import relations
from graph_bridge.traverse import owned_variables
from helpers import snapshot
from relations.compile import passes as cp
from relations.saturation.costs import measured, node_costs, shape_finder
from test_rewrite_reporting import relational_rewriter, run_pass, user_lines

THIS_FILE = os.path.basename(__file__)


def alloc_sum():
    """``sum(alloc(exp(s), 300, 200))``: the choice ``reduce_alloco`` (``exp(s) * 60000``) pays."""
    s = pt.scalar("s")
    return s, pt.sum(pt.alloc(pt.exp(s), 300, 200))


def shared_set():
    """A write into zeros read by three nodes: lifting Exp and Log through it adds two writes (never pays)."""
    x, idx = pt.vector("x", shape=(100,)), pt.lvector("i")
    z = pt.set_subtensor(pt.zeros(100)[idx], x[:3])
    return [x, idx], [pt.exp(z).sum(), pt.log(z).sum(), z.sum()]


def test_a_choice_that_pays_is_extracted():
    s, g = alloc_sum()
    normal = cp.compile_normalize([g])
    assert [type(v.owner.op).__name__ for v, _ in cp.choice_matches(normal)] == ["Sum"]
    assert cp.worth_saturating(normal, shape_finder())
    found = cp.cheapest([g], normal)
    assert found[0] is not normal[0]
    assert measured(found) < measured(normal)
    assert "Alloc" not in snapshot(*found)


def test_a_choice_that_does_not_pay_is_not_saturated():
    _, outs = shared_set()
    normal = cp.compile_normalize(outs)
    assert cp.has_choice(normal)  # the lift through the shared set matches
    shape_of = shape_finder()
    graph = cp.ReadCounts(normal)
    gains = [cp.rewrite_gain(graph, v, new, node_costs(shape_of=shape_of)) for v, new in cp.choice_matches(normal)]
    assert gains and max(gains) < 0
    assert not cp.worth_saturating(normal, shape_of)
    assert cp.cheapest(outs, normal) == normal


def test_never_costlier_than_the_greedy_form(monkeypatch):
    """Saturated anyway (no gain threshold), the result is the normal form unless predicted cheaper."""
    monkeypatch.setattr(cp, "MIN_GAIN", -float("inf"))
    _, outs = shared_set()
    normal = cp.compile_normalize(outs)
    found = cp.cheapest(outs, normal)
    assert found is normal or measured(found) < measured(normal)
    s, g = alloc_sum()
    normal = cp.compile_normalize([g])
    assert measured(cp.cheapest([g], normal)) < measured(normal)


def test_no_choice_no_saturation():
    x = pt.vector("x")
    g = pt.exp(x).sum()
    normal = cp.compile_normalize([g])
    assert not cp.has_choice(normal)
    assert cp.cheapest([g], normal) == normal


@pytest.mark.parametrize("tag", ["relational", "relational_normalize"])
def test_values_and_the_form_each_tag_compiles(tag):
    s, g = alloc_sum()
    stock = pytensor.function([s], g, mode="FAST_COMPILE")
    tagged = pytensor.function([s], g, mode=relations.mode(tag, base="FAST_COMPILE"))
    for value in (0.0, -1.5, 2.0):
        np.testing.assert_allclose(tagged(value), stock(value), rtol=1e-10)
    fg, reasons = run_pass([s], [g], rewriter=relational_rewriter(tag))
    assert reasons == ([tag] if tag == "relational" else [])  # the greedy rules find nothing to do
    greedy = relations.normalize(g, rules=relations.COMPILE_RULES)
    same = equal_computations(fg.outputs, [greedy], fg.inputs, [s])
    assert same == (tag == "relational_normalize")


def test_the_extracted_nodes_keep_the_users_stack_trace():
    s, g = alloc_sum()  # built on a line of this file
    fg, _ = run_pass([s], [g])
    new = [v for v in fg.variables if v.owner is not None]
    missing = [(v, v.owner.inputs) for v in new if THIS_FILE not in user_lines(v)]
    assert new and not missing, missing
    f = pytensor.function([s], g, mode=relations.mode(base="FAST_COMPILE"))
    assert check_stack_trace(f, ops_to_check="all")


def test_under_optimizer_verbose_the_extraction_is_its_own_reason(capsys):
    m, s = pt.matrix("m"), pt.scalar("s")
    g = pt.exp(m).T.T.sum(axis=0).sum() + pt.sum(pt.alloc(pt.exp(s), 300, 200))
    fg, reasons = run_pass([m, s], [g], verbose=True)
    assert {"dimshuffle_composeo", "dimshuffle_identityo"} <= set(reasons)
    assert reasons[-1] == "relational_extract"
    assert "rewriting: rewrite relational_extract replaces" in capsys.readouterr().out
    f = pytensor.function(fg.inputs, fg.outputs, mode="FAST_COMPILE")
    mv = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(f(mv, 0.5)[0], np.exp(mv).sum() + 60000 * np.exp(0.5))


@pytest.mark.parametrize("length, pays", [(1, False), (100_000, True)])
def test_the_normal_form_is_kept_unless_predicted_costlier(length, pays):
    """A Sum of a Join as two Sums and an Add: more calls, no copy; it pays on long vectors only.
    The gain is the same judged by the sites or by the outputs (the rebuilt path costs as before)."""
    a, b = pt.vector("a", shape=(length,)), pt.vector("b", shape=(3 * length,))
    g = pt.sum(pt.join(0, a, pt.exp(b)))
    normal, sites = cp.compile_normalize_sites([g])
    assert normal[0] is not g and sites
    cost = node_costs(shape_of=shape_finder())
    by_sites = sum(cp.site_gains([g], normal, cost, sites))
    np.testing.assert_allclose(by_sites, sum(cp.site_gains([g], normal, cost)), rtol=1e-9)
    assert (by_sites > cp.MIN_GAIN) == pays and (by_sites < 0) == (not pays)
    assert cp.cheapest([g], normal, sites) == (normal if pays else [g])
    assert cp.cheapest([g], normal) == (normal if pays else [g])


def test_a_normal_form_whose_rewrites_each_save_less_than_min_gain_is_not_applied():
    """Removing an ExpandDims under a Sum saves a view (a call, no elements): the graph is kept."""
    x = pt.vector("x", shape=(100_000,))
    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    normal, sites = cp.compile_normalize_sites([g])
    gains = cp.site_gains([g], normal, node_costs(shape_of=shape_finder()), sites)
    assert gains and 0 <= max(gains) < cp.MIN_GAIN
    assert cp.cheapest([g], normal, sites) == [g]
    # the same rewrite beside one that pays rides along
    y = pt.vector("y", shape=(100_000,))
    h = g + pt.sum(pt.join(0, x, y))
    normal, sites = cp.compile_normalize_sites([h])
    gains = cp.site_gains([h], normal, node_costs(shape_of=shape_finder()), sites)
    assert min(gains) < cp.MIN_GAIN <= max(gains)
    assert cp.cheapest([h], normal, sites) == normal


def test_rewrite_gain_counts_freed_and_added_nodes():
    def one(v):
        return 1.0

    s, g = alloc_sum()
    normal = cp.compile_normalize([g])
    ((v, new),) = cp.choice_matches(normal)
    added = [u for u in owned_variables([new]) if u not in set(owned_variables(normal))]
    # freed: the Sum and the Alloc (new still reads Exp(s)); added: new's own nodes
    assert cp.rewrite_gain(cp.ReadCounts(normal), v, new, one) == 2 - len(added)
    # the Alloc read by a second output: only the Sum is freed
    alloc = g.owner.inputs[0]
    both = cp.compile_normalize([g, alloc * 2.0])
    ((v, new),) = cp.choice_matches(both)
    assert cp.rewrite_gain(cp.ReadCounts(both), v, new, one) == 1 - len(added)


def test_the_lowering_pass_skips_a_touched_graph_without_toolkit_ops_or_hazards():
    from pytensor.compile import optdb
    from pytensor.graph.fg import FunctionGraph

    from graph_bridge.provenance import is_touched

    lowering = next(iter(optdb.__db__["lower_explicit"]))
    x, m = pt.vector("x"), pt.matrix("m")
    fg, _ = run_pass([x], [pt.sum(pt.expand_dims(pt.exp(x), 0))], rewriter=relational_rewriter("relational_normalize"))
    assert is_touched(fg.apply_nodes) and not lowering.needed(fg)
    explicit = relations.normalize(pt.exp(m) * x)  # an ExplicitElemwise
    assert lowering.needed(FunctionGraph([m, x], [explicit], clone=True))


def test_the_compile_lowering_of_a_graph_without_toolkit_ops_is_lower():
    from pytensor.compile import optdb

    lowering = next(iter(optdb.__db__["lower_explicit"]))
    b, x = pt.bvector("b"), pt.vector("x")
    for outs in ([pt.sum(b + b * pt.constant(2, dtype="int16"))], [pt.exp(x).sum(), x * 2]):
        normal = cp.compile_normalize(outs)
        assert equal_computations(lowering.normalize_fn(normal), relations.lower(normal))
    explicit = relations.normalize(pt.exp(x)[None, :] * pt.matrix("m"))
    assert equal_computations(lowering.normalize_fn([explicit]), [relations.lower(explicit)])


def test_the_relational_pass_leaves_pymc_model_graphs_as_they_came():
    """Their normal forms only remove DimShuffle views (each predicted to save less than MIN_GAIN),
    which PyTensor removes itself: ``relational`` keeps every node, ``relational_normalize`` does not."""
    from pytensor.compile import optdb
    from pytensor.graph.fg import FunctionGraph

    from graph_bridge.provenance import is_touched
    from helpers import require_pymc

    require_pymc()
    from pymc_models import MODELS, logp_dlogp

    for name in ("hierarchical regression", "NormalMixture", "Dirichlet-multinomial"):
        ins, outs = logp_dlogp(MODELS[name]())
        fg = FunctionGraph(ins, outs, clone=True)
        before = list(fg.apply_nodes)
        rewriter = next(iter(optdb.__db__["relational"]))
        rewriter.add_requirements(fg)
        rewriter.apply(fg)
        assert set(fg.apply_nodes) == set(before) and not is_touched(fg.apply_nodes), name
        greedy = FunctionGraph(ins, outs, clone=True)
        before = set(greedy.apply_nodes)
        rewriter = next(iter(optdb.__db__["relational_normalize"]))
        rewriter.add_requirements(greedy)
        rewriter.apply(greedy)
        assert set(greedy.apply_nodes) != before, name
