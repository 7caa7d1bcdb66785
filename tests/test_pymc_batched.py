"""PyMC graphs with batched linear algebra and random draws: no padding left under Blockwise or RandomVariable.

Values, types and gradients (``dlogp``) of the batched models are checked
with every other model in ``test_pymc_models.py`` (they are in ``MODELS``);
here: the padding ExpandDims are gone from their normalized logp + dlogp,
and model graphs of random variables (prior and posterior predictive) draw
what the stock graphs draw.  PyMC needs PyTensor 3.3: skipped on 3.11.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytest

from helpers import require_pymc  # noqa: E402

require_pymc()

from pytensor.graph.replace import vectorize_graph  # noqa: E402
from pytensor.graph.traversal import apply_ancestors  # noqa: E402
from pytensor.tensor.blockwise import Blockwise  # noqa: E402
from pytensor.tensor.random.op import RandomVariable  # noqa: E402

import relations  # noqa: E402
from graph_bridge import ExplicitBlockwise, ExplicitRandomVariable  # noqa: E402
from helpers import MODE, assert_same_types, snapshot  # noqa: E402
from pymc_models import BATCHED_MODELS, MODELS, logp_dlogp, predictive_graph, predictive_model  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
BATCHED = (Blockwise, RandomVariable, ExplicitBlockwise, ExplicitRandomVariable)


def _core_ndim(node, i: int) -> int:
    op = node.op
    if isinstance(op, (Blockwise, ExplicitBlockwise)):
        return len(op.inputs_sig[i])
    return 0 if i < 2 else op.ndims_params[i - 2]


def padding(outputs) -> tuple[int, int]:
    """(batched nodes, their inputs that are a DimShuffle adding a batch dim).

    An ExpandDims, or a DimShuffle that also permutes the core dims
    (``order=(x, 1, 0)`` under a ``Blockwise{SolveTriangular}``: the
    Cholesky factor's transpose, padded, in an MvNormal's logp).
    """
    nodes = padded = 0
    for node in apply_ancestors(list(outputs)):
        if not isinstance(node.op, BATCHED):
            continue
        nodes += 1
        for i, inp in enumerate(node.inputs):
            ds = inp.owner
            if ds is None or type(ds.op).__name__ != "DimShuffle":
                continue
            nb = inp.type.ndim - _core_ndim(node, i)
            if "x" in ds.op.new_order[:nb]:
                padded += 1
    return nodes, padded


@pytest.mark.parametrize("name", [*BATCHED_MODELS, "MvNormal + LKJ prior"])
def test_no_padding_is_left_under_batched_nodes_of_logp_and_dlogp(name):
    _, outs = logp_dlogp(MODELS[name]())
    nodes, padded = padding(outs)
    assert nodes and padded  # PyMC's graphs pad
    normal = relations.normalize(outs)
    assert padding(normal) == (nodes, 0)
    assert any(isinstance(n.op, ExplicitBlockwise) for n in apply_ancestors(normal))


def test_prior_predictive_graph_draws_what_the_stock_graph_draws():
    outs = predictive_graph(predictive_model())
    before = snapshot(*outs)
    nodes, padded = padding(outs)
    assert padded >= 3
    normal = relations.normalize(outs)
    assert snapshot(*outs) == before
    assert padding(normal) == (nodes, 0)
    for b, a in zip(outs, normal):
        assert_same_types(b, a)
    ref = pytensor.function([], outs, mode=MODE)()
    for mode in (MODE, pytensor.compile.mode.Mode(linker="py", optimizer=None)):
        for x, y in zip(ref, pytensor.function([], normal, mode=mode)()):
            np.testing.assert_array_equal(x, y)


def test_posterior_predictive_replaces_scalar_parameters_by_vectors_of_draws():
    import pytensor.tensor as pt

    model = predictive_model()
    y = model["y"]
    mu, sigma = model["mu"], model["sigma"]
    normal = relations.normalize(y)
    mu_draws, sigma_draws = pt.vector("mu_draws"), pt.vector("sigma_draws")
    batched = vectorize_graph(normal, {mu: mu_draws, sigma: sigma_draws})
    stock = vectorize_graph(y, {mu: mu_draws, sigma: sigma_draws})
    assert isinstance(batched.owner.op, ExplicitRandomVariable) and batched.owner.inputs[2:] == [mu_draws, sigma_draws]
    assert batched.type.ndim == 2
    draws = (np.linspace(-1.0, 1.0, 5), np.linspace(0.5, 2.0, 5))
    got = pytensor.function([mu_draws, sigma_draws], batched, mode=MODE)(*draws)
    assert got.shape == (5, 10)
    np.testing.assert_array_equal(got, pytensor.function([mu_draws, sigma_draws], stock, mode=MODE)(*draws))


@pytest.mark.default_mode
def test_lowered_model_graphs_compile_in_the_default_mode():
    model = MODELS["GP marginal likelihood"]()
    inputs, outs = logp_dlogp(model)
    low = relations.lower(relations.normalize(outs))
    assert not any(isinstance(n.op, (ExplicitBlockwise, ExplicitRandomVariable)) for n in apply_ancestors(low))
    point = [np.asarray(model.initial_point()[v.name]) for v in inputs]
    for x, y in zip(pytensor.function(inputs, outs)(*point), pytensor.function(inputs, low)(*point)):
        np.testing.assert_allclose(x, y)


def test_pm_draw_of_a_normalized_rv_draws_what_pymc_draws():
    """PyMC finds the generator updates of the explicit RV (an ``RNGConsumerOp``): repeated draws advance alike."""
    import pymc as pm

    model = predictive_model()
    normal = relations.normalize(model["y"])
    assert isinstance(normal.owner.op, ExplicitRandomVariable)
    got = pm.draw(normal, draws=3, random_seed=1)
    assert got.shape == (3, 10) and not np.array_equal(got[0], got[1])
    np.testing.assert_array_equal(got, pm.draw(model["y"], draws=3, random_seed=1))
