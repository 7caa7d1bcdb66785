"""PyMC models with the toolkit: normalized logp, compiling with the tag, logprob inference."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import get_default_mode
from pytensor.graph.traversal import ancestors

from helpers import require_pymc  # noqa: E402

pm = require_pymc()

import relations  # noqa: E402
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _explicit(graph):
    return [
        a.owner.op
        for a in ancestors([graph])
        if a.owner is not None and isinstance(a.owner.op, (ExplicitElemwise, ExplicitAlloc))
    ]


def _models():
    with pm.Model() as normal:
        mu = pm.Normal("mu", 0, 1)
        sigma = pm.HalfNormal("sigma", 1)
        pm.Normal("obs", mu, sigma, observed=np.array([0.1, -0.3, 0.5]))
    with pm.Model() as regression:
        beta = pm.Normal("beta", 0, 1, shape=2)
        X = np.array([[1.0, 0.5], [1.0, -1.0], [1.0, 2.0]])
        pm.Poisson("y", pt.exp(X @ beta), observed=np.array([1, 0, 4]))
    with pm.Model() as hierarchical:
        mu = pm.Normal("mu", 0, 1)
        tau = pm.HalfNormal("tau", 1)
        theta = pm.Normal("theta", mu, tau, shape=(3, 1))
        pm.Normal("obs", theta, 1.0, observed=np.ones((3, 4)))
    return {"normal": normal, "regression": regression, "hierarchical": hierarchical}


MODELS = _models()


@pytest.mark.parametrize("name", list(MODELS))
def test_normalized_model_logp_and_gradient_have_the_same_values(name):
    model = MODELS[name]
    logp = model.logp()
    z = relations.normalize(logp)
    assert z.type == logp.type
    inputs = model.value_vars
    point = model.initial_point()
    rng = np.random.default_rng(0)
    args = [point[v.name] + rng.normal(scale=0.3, size=np.shape(point[v.name])) for v in inputs]
    np.testing.assert_allclose(
        pytensor.function(inputs, z, mode="FAST_COMPILE")(*args),
        pytensor.function(inputs, logp, mode="FAST_COMPILE")(*args),
    )
    g0 = pytensor.function(inputs, pytensor.grad(logp, inputs), mode="FAST_COMPILE")(*args)
    g1 = pytensor.function(inputs, pytensor.grad(z, inputs), mode="FAST_COMPILE")(*args)
    for a, b in zip(g0, g1):
        np.testing.assert_allclose(a, b)


@pytest.mark.default_mode
def test_sampling_with_the_tag_through_compile_kwargs():
    model = MODELS["normal"]
    mode = get_default_mode().including("relational")
    idata = pm.sample(
        model=model, draws=20, tune=20, chains=1, cores=1, random_seed=1,
        progressbar=False, compute_convergence_checks=False, compile_kwargs={"mode": mode},
    )
    draws = idata.posterior["mu"].values
    assert draws.shape == (1, 20) and np.all(np.isfinite(draws))


def test_logprob_inference_reads_a_normalized_graph():
    s = pt.scalar("s")
    scaled = pt.exp(pm.Normal.dist(0, 1, shape=(3,))) * s
    z = relations.normalize(scaled)
    assert _explicit(z)
    value = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(
        pm.logp(z, value).eval({s: 2.0}), pm.logp(scaled, value).eval({s: 2.0})
    )


@pytest.mark.parametrize("first", ["pymc", "relations"])
def test_logprob_inference_whatever_the_import_order(first):
    second = "relations" if first == "pymc" else "pymc"
    code = textwrap.dedent(
        f"""
        import {first}, {second}
        import numpy as np, pymc as pm, pytensor.tensor as pt, relations
        s = pt.scalar("s")
        scaled = pt.exp(pm.Normal.dist(0, 1, shape=(3,))) * s
        z = relations.normalize(scaled)
        assert "mul{{*,x}}" == str(z.owner.op), z.owner.op
        v = np.array([0.5, 1.0, 2.0])
        np.testing.assert_allclose(pm.logp(z, v).eval({{s: 2.0}}), pm.logp(scaled, v).eval({{s: 2.0}}))
        print("ok")
        """
    )
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("ok")
