"""PyMC models of different kinds, for tests on real graphs and for the benchmarks.

Each builder returns a ``pm.Model``; :func:`logp_dlogp` gives the graphs a
user compiles (``model.logp()``, ``model.dlogp()``).  ``pm`` is ``None``
where PyMC is not installed (it needs PyTensor 3.3, the Python 3.12 line).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

try:
    import pymc as pm
except ImportError:  # pragma: no cover - the table says so
    pm = None


def lkjcorr(n: int) -> Callable[[], object]:
    def build():
        with pm.Model() as m:
            pm.LKJCorr("corr", n=n, eta=2.0)
        return m

    return build


def lkj_cholesky_cov():
    with pm.Model() as m:
        pm.LKJCholeskyCov("chol", n=5, eta=2.0, sd_dist=pm.Exponential.dist(1.0), compute_corr=False)
    return m


def mvnormal_lkj():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(200, 4))
    with pm.Model() as m:
        chol, _, _ = pm.LKJCholeskyCov("chol", n=4, eta=2.0, sd_dist=pm.Exponential.dist(1.0))
        mu = pm.Normal("mu", 0.0, 1.0, shape=4)
        pm.MvNormal("y", mu=mu, chol=chol, observed=data)
    return m


def hierarchical_regression():
    rng = np.random.default_rng(1)
    groups = rng.integers(0, 8, size=500)
    x = rng.normal(size=500)
    y = rng.normal(size=500)
    with pm.Model() as m:
        mu_a = pm.Normal("mu_a", 0.0, 1.0)
        sigma_a = pm.HalfNormal("sigma_a", 1.0)
        a = pm.Normal("a", mu_a, sigma_a, shape=8)
        b = pm.Normal("b", 0.0, 1.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", a[groups] + b * x, sigma, observed=y)
    return m


def normal_mixture():
    rng = np.random.default_rng(2)
    data = np.concatenate([rng.normal(-2, 1, 300), rng.normal(2, 1, 300)])
    with pm.Model() as m:
        w = pm.Dirichlet("w", np.ones(3))
        mu = pm.Normal("mu", 0.0, 3.0, shape=3)
        sigma = pm.HalfNormal("sigma", 1.0, shape=3)
        pm.NormalMixture("y", w=w, mu=mu, sigma=sigma, observed=data)
    return m


def multinomial_logit():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    y = rng.integers(0, 4, size=400)
    with pm.Model() as m:
        beta = pm.Normal("beta", 0.0, 1.0, shape=(5, 4))
        alpha = pm.Normal("alpha", 0.0, 1.0, shape=4)
        p = pm.math.softmax(pm.math.dot(X, beta) + alpha, axis=-1)
        pm.Categorical("y", p=p, observed=y)
    return m


MODELS: dict[str, Callable[[], object]] = {
    "LKJCorr n=10": lkjcorr(10),
    "LKJCorr n=30": lkjcorr(30),
    "LKJCorr n=100": lkjcorr(100),
    "LKJCholeskyCov n=5": lkj_cholesky_cov,
    "MvNormal + LKJ prior": mvnormal_lkj,
    "hierarchical regression": hierarchical_regression,
    "NormalMixture": normal_mixture,
    "multinomial logit": multinomial_logit,
}


def logp_dlogp(model) -> tuple[list, list]:
    """The model's value variables and ``[logp, dlogp]`` graphs."""
    return list(model.value_vars), [model.logp(), model.dlogp()]


def point_values(model) -> list[np.ndarray]:
    point = model.initial_point()
    return [np.asarray(point[v.name]) for v in model.value_vars]


# -- batched linear algebra and random draws (Blockwise, RandomVariable) -------------
# Models whose logp + dlogp pad inputs of Blockwise nodes (batched means, a GP's
# solves), and model graphs of random variables (prior / posterior predictive).


def mvnormal_batched():
    """An MvNormal with a (3, 4) batch of means and one LKJ Cholesky factor: the factor is padded."""
    data = np.random.default_rng(4).normal(size=(50, 3, 4))
    with pm.Model() as m:
        chol, _, _ = pm.LKJCholeskyCov("chol", n=4, eta=2.0, sd_dist=pm.Exponential.dist(1.0))
        mu = pm.Normal("mu", 0.0, 1.0, shape=(3, 4))
        pm.MvNormal("y", mu=mu, chol=chol, observed=data)
    return m


def mvstudentt_batched():
    """An MvStudentT with a batch of means and a scale matrix built from an LKJ factor."""
    data = np.random.default_rng(5).standard_t(5.0, size=(50, 3, 4))
    with pm.Model() as m:
        chol, _, _ = pm.LKJCholeskyCov("chol", n=4, eta=2.0, sd_dist=pm.Exponential.dist(1.0))
        mu = pm.Normal("mu", 0.0, 1.0, shape=(3, 4))
        nu = pm.Gamma("nu", 2.0, 0.1)
        pm.MvStudentT("y", nu=nu, mu=mu, scale=chol @ chol.T, observed=data)
    return m


def gp_marginal():
    """A GP marginal likelihood (ExpQuad kernel): Cholesky solves and their gradients."""
    rng = np.random.default_rng(6)
    X = np.linspace(0.0, 1.0, 20)[:, None]
    y = np.sin(6.0 * X[:, 0]) + 0.1 * rng.normal(size=20)
    with pm.Model() as m:
        ls = pm.Gamma("ls", 2.0, 4.0)
        eta = pm.HalfNormal("eta", 1.0)
        sigma = pm.HalfNormal("sigma", 0.5)
        gp = pm.gp.Marginal(cov_func=eta**2 * pm.gp.cov.ExpQuad(1, ls=ls))
        gp.marginal_likelihood("y", X=X, y=y, sigma=sigma)
    return m


BATCHED_MODELS: dict[str, Callable[[], object]] = {
    "MvNormal batched means": mvnormal_batched,
    "MvStudentT batched means": mvstudentt_batched,
    "GP marginal likelihood": gp_marginal,
}
MODELS.update(BATCHED_MODELS)


def predictive_model():
    """Two scalar priors and a Normal of shape 10 over them: the prior-predictive graph pads both parameters."""
    with pm.Model() as m:
        mu = pm.Normal("mu", 0.0, 1.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", mu, sigma, shape=10)
        pm.MvNormal("z", mu=mu * np.ones(3), cov=np.eye(3), shape=(4, 3))
    return m


def predictive_graph(model) -> list:
    """The model's random variables, as the graph a prior-predictive draw compiles (no inputs)."""
    return [model[name] for name in ("mu", "sigma", "y", "z")]
