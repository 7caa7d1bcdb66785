"""Real model graphs: PyMC's logp and dlogp normalize to the same values, with no node copied.

PyMC 6 needs PyTensor 3.3, so these run on the Python 3.12 line only (the
``test`` extra installs PyMC there); on 3.11 the module is skipped.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytest

from helpers import require_pymc  # noqa: E402

require_pymc()

import relations  # noqa: E402
from helpers import MODE, assert_close, assert_no_kind_grows, assert_same_types, snapshot  # noqa: E402
from pymc_models import MODELS, logp_dlogp, point_values  # noqa: E402

#: every model kind; LKJCorr at n=100 is the benchmark's size, too slow to evaluate here
NAMES = [name for name in MODELS if name != "LKJCorr n=100"]


class Built:
    """A model's logp and dlogp graphs, its initial point and their stock function, built once per module:
    building a model's graphs and compiling them stock is most of each test's time, the same in every
    test of the model (the graphs are never changed: the tests check it)."""

    def __init__(self, name: str) -> None:
        model = MODELS[name]()
        self.inputs, self.outs = logp_dlogp(model)
        self.snapshot = snapshot(*self.outs)
        self.start = point_values(model)
        self.stock = pytensor.function(self.inputs, self.outs, mode=MODE)


@pytest.fixture(scope="module")
def built():
    cache: dict[str, Built] = {}

    def get(name: str) -> Built:
        if name not in cache:
            cache[name] = Built(name)
        return cache[name]

    yield get
    cache.clear()


@pytest.mark.parametrize("name", NAMES)
def test_logp_and_dlogp_keep_values_and_copy_no_node(name, built):
    m = built(name)
    inputs, outs = m.inputs, m.outs
    new = relations.normalize(outs)
    assert snapshot(*outs) == m.snapshot
    for b, a in zip(outs, new):
        assert_same_types(b, a)
    assert_no_kind_grows(outs, new)
    f_before = m.stock
    f_after = pytensor.function(inputs, new, mode=MODE)
    rng = np.random.default_rng(0)
    start = m.start
    for scale in (0.0, 0.3, 1.0):
        point = [v + scale * rng.normal(size=np.shape(v)) for v in start]
        for b, a in zip(f_before(*point), f_after(*point)):
            assert_close(b, a)


#: the compile passes: extraction (and the same saturating every model: no gain threshold), greedy,
#: the stabilizing pass (relations.compile.stabilize)
PASSES = ["relational", "relational saturating", "relational_normalize", "relational_stabilize"]


@pytest.mark.parametrize("tag", PASSES)
@pytest.mark.parametrize("name", NAMES)
def test_compiling_with_the_tag_keeps_logp_and_gradient(name, tag, monkeypatch, built):
    """logp and dlogp compiled with each compile pass give the stock values at three points."""
    from pytensor.compile.mode import get_mode

    from relations.compile import passes as compile_pass

    if tag == "relational saturating":  # most models' choices are predicted not to pay: extract anyway
        monkeypatch.setattr(compile_pass, "MIN_GAIN", -float("inf"))
        tag = "relational"
    m = built(name)
    inputs, outs, stock = m.inputs, m.outs, m.stock
    tagged = pytensor.function(inputs, outs, mode=get_mode(MODE).including(tag))
    assert snapshot(*outs) == m.snapshot  # the pass rewrote a copy
    assert [o.type for o in tagged.maker.fgraph.outputs] == [o.type for o in stock.maker.fgraph.outputs]
    rng = np.random.default_rng(1)
    start = m.start
    for scale in (0.0, 0.3, 1.0):
        point = [v + scale * rng.normal(size=np.shape(v)) for v in start]
        expected = stock(*point)
        assert np.all(np.isfinite(expected[1]))
        for b, a in zip(expected, tagged(*point)):
            assert_close(b, a)


def test_lkjcorr_sets_are_not_duplicated():
    """pytensor #2138's case: the Cholesky factor is read by logp and by dlogp."""
    from pytensor.graph.traversal import ancestors
    from pytensor.tensor.subtensor import AdvancedIncSubtensor

    def sets(outputs):
        return sum(
            1 for v in ancestors(outputs) if v.owner is not None and isinstance(v.owner.op, AdvancedIncSubtensor)
        )

    inputs, outs = logp_dlogp(MODELS["LKJCorr n=10"]())
    assert sets(relations.normalize(outs)) == sets(outs)
    assert sets(relations.normalize([outs[0]])) == sets([outs[0]])


def _idle_expansions(outputs) -> list:
    """Expanding DimShuffles whose every consumer is an Elemwise or a reduction."""
    from pytensor.graph.fg import FunctionGraph
    from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

    from graph_bridge import ExplicitElemwise

    fg = FunctionGraph(outputs=list(outputs), clone=False)
    found = []
    for node in fg.apply_nodes:
        if type(node.op) is not DimShuffle:
            continue
        order = node.op.new_order
        if "x" not in order or [d for d in order if d != "x"] != list(range(node.inputs[0].type.ndim)):
            continue
        clients = [c for c, _ in fg.clients[node.outputs[0]]]
        if clients and all(
            not isinstance(c.op, str) and isinstance(c.op, (Elemwise, ExplicitElemwise, CAReduce)) for c in clients
        ):
            found.append(node)
    return found


@pytest.mark.parametrize("name", NAMES)
def test_no_expansion_is_left_under_elemwise_chains_and_reductions(name, built):
    outs = built(name).outs
    assert _idle_expansions(outs)  # PyMC's graphs have them
    assert _idle_expansions(relations.normalize(outs)) == []
