"""Saturation over the whole-node rules: a RandomVariable's two outputs move together in the e-graph."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations
from graph_bridge import ExplicitRandomVariable
from helpers import snapshot


def _rv_graph():
    rng = pytensor.shared(np.random.default_rng(3))
    mu = pt.scalar("mu")
    node = pt.random.normal.make_node(rng, pt.as_tensor([2, 3]), mu, pt.as_tensor(0.5))
    next_rng, draw = node.outputs
    return mu, rng, next_rng, draw


def test_an_rv_and_its_explicit_form_are_one_class_output_by_output():
    mu, rng, next_rng, draw = _rv_graph()
    before = snapshot(draw, next_rng)
    eg = relations.saturate([draw, next_rng], backward=False)
    assert snapshot(draw, next_rng) == before
    assert eg.report.stop == "saturated"
    normal = relations.normalize([draw, next_rng])
    assert isinstance(normal[0].owner.op, ExplicitRandomVariable)
    assert eg.same(normal[0], draw) and eg.same(normal[1], next_rng)
    out = eg.extract().result
    assert [o.type for o in out] == [draw.type, next_rng.type]
    f_stock = pytensor.function([mu], draw, mode="FAST_COMPILE")
    f_out = pytensor.function([mu], out[0], mode="FAST_COMPILE")
    np.testing.assert_array_equal(f_stock(1.0).shape, f_out(1.0).shape)


def test_prove_joins_an_rv_graph_and_its_normal_form():
    _, _, _, draw = _rv_graph()
    normal = relations.normalize(draw)
    proof = relations.prove(draw, normal)
    assert proof is not None and proof.check()
    assert "random_explicito" in [s.rule for s in proof]
