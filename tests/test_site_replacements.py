"""relations.compile.site_replacements: the compile passes replace only where a rule rewrote the graph."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile import optdb
from pytensor.graph.basic import equal_computations
from pytensor.graph.fg import FunctionGraph

from graph_bridge.provenance import TAG
from helpers import snapshot
from relations.compile.passes import compile_normalize, compile_normalize_sites
from relations.compile.registration import RelationalRewriter

x = pt.matrix("x")
y = pt.vector("y")


def _graph():
    """A DimShuffle pair under a Mul (the site) and a branch no rule rewrites."""
    return pt.sum(pt.exp(x).T.T * 2) + pt.sum(pt.log(y))


def _rewriter() -> RelationalRewriter:
    return next(iter(optdb.__db__["relational_normalize"]))


def test_the_sites_are_the_rewritten_variables_and_their_forms_read_the_old_graph():
    g = _graph()
    before = snapshot(g)
    normal, sites = compile_normalize_sites([g])
    assert snapshot(g) == before
    assert equal_computations(normal, compile_normalize([g]))
    assert len(sites) == 1
    old, new = sites[0]
    transpose_pair = g.owner.inputs[0].owner.inputs[0].owner.inputs[0]  # Sum <- Mul <- (x.exp().T).T
    assert old is transpose_pair
    assert new is transpose_pair.owner.inputs[0].owner.inputs[0]  # the old exp(x) itself: no new node


def test_a_graph_no_rule_rewrites_has_no_sites():
    g = pt.sum(pt.log(y))
    normal, sites = compile_normalize_sites([g])
    assert normal == [g] and sites == []


def test_replacing_the_sites_keeps_every_other_node_and_gives_the_normal_form():
    g = _graph()
    fg = FunctionGraph([x, y], [g], clone=True)
    nodes_before = set(fg.apply_nodes)
    _rewriter().add_requirements(fg)
    _rewriter().apply(fg)
    assert equal_computations(fg.outputs, compile_normalize([g]), in_xs=fg.inputs, in_ys=[x, y])
    kept = set(fg.apply_nodes) & nodes_before
    assert len(kept) == len(fg.apply_nodes)  # only removals: the two DimShuffles are gone
    assert len(nodes_before) - len(fg.apply_nodes) == 2
    # the Mul whose input changed is the toolkit's work now: the lowering pass protects the graph
    (mul,) = [n for n in fg.apply_nodes if type(getattr(n.op, "scalar_op", None)).__name__ == "Mul"]
    assert getattr(mul.tag, TAG, False)


def test_the_outputs_are_replaced_when_the_sites_do_not_give_the_normal_form(monkeypatch):
    g = _graph()
    fg = FunctionGraph([x, y], [g], clone=True)
    rw = _rewriter()
    rw.add_requirements(fg)
    wrong = pt.zeros_like(fg.outputs[0])

    def bad_sites(outs):
        normal, _ = compile_normalize_sites(outs)
        return normal, [(fg.outputs[0], wrong)]  # a replacement that is not the normal form

    monkeypatch.setattr(rw, "sites_fn", bad_sites)
    rw.apply(fg)
    assert equal_computations(fg.outputs, compile_normalize([g]), in_xs=fg.inputs, in_ys=[x, y])


@pytest.mark.default_mode
def test_the_compiled_function_is_the_one_the_output_replacement_gives(monkeypatch):
    args = (np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0]))
    mode = pytensor.compile.mode.get_default_mode().including("relational")
    f_sites = pytensor.function([x, y], _graph(), mode=mode)
    for tag in ("relational", "relational_normalize"):
        monkeypatch.setattr(next(iter(optdb.__db__[tag])), "sites_fn", None)
    f_outputs = pytensor.function([x, y], _graph(), mode=mode)
    fa, fb = f_sites.maker.fgraph, f_outputs.maker.fgraph
    assert equal_computations(fa.outputs, fb.outputs, in_xs=fa.inputs, in_ys=fb.inputs)
    np.testing.assert_allclose(f_sites(*args), f_outputs(*args))
    np.testing.assert_allclose(f_sites(*args), np.sum(np.exp(args[0]) * 2) + np.sum(np.log(args[1])))


def test_model_graphs_compile_to_the_same_function_by_sites_as_by_outputs(monkeypatch):
    from helpers import require_pymc

    require_pymc()
    from pymc_models import MODELS, logp_dlogp

    # (the greedy pass: ``relational`` leaves these graphs as they came, no rewrite saving MIN_GAIN)
    mode = pytensor.compile.mode.get_default_mode().including("relational_normalize")
    replaced = []
    original = RelationalRewriter._sites_replaced

    def counted(self, fgraph, sites, final):
        done = original(self, fgraph, sites, final)
        replaced.append(done)
        return done

    monkeypatch.setattr(RelationalRewriter, "_sites_replaced", counted)
    for name in ("LKJCholeskyCov n=5", "NormalMixture", "Poisson with offset"):
        ins, outs = logp_dlogp(MODELS[name]())
        fa = pytensor.function(ins, outs, mode=mode).maker.fgraph
        with monkeypatch.context() as m:
            m.setattr(next(iter(optdb.__db__["relational_normalize"])), "sites_fn", None)
            ins2, outs2 = logp_dlogp(MODELS[name]())
            fb = pytensor.function(ins2, outs2, mode=mode).maker.fgraph
        assert equal_computations(fa.outputs, fb.outputs, in_xs=fa.inputs, in_ys=fb.inputs), name
    assert replaced and all(replaced)  # every pass replaced its sites (no fallback)
