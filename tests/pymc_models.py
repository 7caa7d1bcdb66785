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


# -- further kinds of the PyMC example gallery (small data from numpy's rng) --


def eight_schools():
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    with pm.Model() as m:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        theta_t = pm.Normal("theta_t", 0.0, 1.0, shape=8)
        pm.Normal("y", mu + tau * theta_t, sigma, observed=y)
    return m


def radon_varying_slopes():
    rng = np.random.default_rng(10)
    county = rng.integers(0, 20, size=400)
    floor = rng.integers(0, 2, size=400).astype(float)
    log_radon = rng.normal(1.0, 0.8, size=400)
    with pm.Model() as m:
        mu_a = pm.Normal("mu_a", 0.0, 5.0)
        sigma_a = pm.HalfNormal("sigma_a", 2.0)
        mu_b = pm.Normal("mu_b", 0.0, 5.0)
        sigma_b = pm.HalfNormal("sigma_b", 2.0)
        a = pm.Normal("a", mu_a, sigma_a, shape=20)
        b = pm.Normal("b", mu_b, sigma_b, shape=20)
        eps = pm.HalfCauchy("eps", 5.0)
        pm.Normal("y", a[county] + b[county] * floor, eps, observed=log_radon)
    return m


def stochastic_volatility():
    rng = np.random.default_rng(11)
    returns = rng.standard_t(5, size=150) * 0.02
    with pm.Model() as m:
        step = pm.Exponential("step", 10.0)
        s = pm.GaussianRandomWalk("s", sigma=step, init_dist=pm.Normal.dist(0.0, 10.0), shape=150)
        nu = pm.Exponential("nu", 0.1)
        pm.StudentT("r", nu=nu, lam=pm.math.exp(-2.0 * s), observed=returns)
    return m


def dirichlet_multinomial():
    rng = np.random.default_rng(12)
    counts = rng.multinomial(30, [0.1, 0.2, 0.3, 0.4], size=60)
    with pm.Model() as m:
        frac = pm.Dirichlet("frac", np.ones(4))
        conc = pm.Lognormal("conc", 1.0, 1.0)
        pm.DirichletMultinomial("y", n=30, a=frac * conc, observed=counts)
    return m


def bernoulli_logistic():
    rng = np.random.default_rng(13)
    X = rng.normal(size=(300, 4))
    y = rng.integers(0, 2, size=300)
    with pm.Model() as m:
        alpha = pm.Normal("alpha", 0.0, 2.0)
        beta = pm.Normal("beta", 0.0, 1.0, shape=4)
        pm.Bernoulli("y", logit_p=alpha + pm.math.dot(X, beta), observed=y)
    return m


def censored_normal():
    rng = np.random.default_rng(14)
    data = np.clip(rng.normal(0.5, 1.0, size=200), -1.0, 1.5)
    with pm.Model() as m:
        mu = pm.Normal("mu", 0.0, 2.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Censored("y", pm.Normal.dist(mu, sigma), lower=-1.0, upper=1.5, observed=data)
    return m


def poisson_offset():
    rng = np.random.default_rng(15)
    exposure = rng.uniform(0.5, 3.0, size=250)
    x = rng.normal(size=250)
    counts = rng.poisson(exposure * np.exp(0.3 * x))
    with pm.Model() as m:
        alpha = pm.Normal("alpha", 0.0, 2.0)
        beta = pm.Normal("beta", 0.0, 1.0)
        pm.Poisson("y", pm.math.exp(np.log(exposure) + alpha + beta * x), observed=counts)
    return m


def ordered_logistic():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 4, size=200)
    with pm.Model() as m:
        beta = pm.Normal("beta", 0.0, 1.0, shape=3)
        cut = pm.Normal(
            "cut", 0.0, 5.0, shape=3, transform=pm.distributions.transforms.ordered, initval=[-1.0, 0.0, 1.0]
        )
        pm.OrderedLogistic("y", eta=pm.math.dot(X, beta), cutpoints=cut, observed=y)
    return m


def latent_ar1():
    rng = np.random.default_rng(17)
    y = np.cumsum(rng.normal(size=80)) * 0.3
    with pm.Model() as m:
        rho = pm.Uniform("rho", -1.0, 1.0)
        sigma = pm.HalfNormal("sigma", 1.0)
        x = pm.AR("x", rho=[rho], sigma=sigma, init_dist=pm.Normal.dist(0.0, 1.0), shape=80)
        pm.Normal("y", x, 0.5, observed=y)
    return m


def softmax_stacked():
    rng = np.random.default_rng(18)
    y = rng.integers(0, 3, size=150)
    with pm.Model() as m:
        a = pm.Normal("a", 0.0, 1.0, shape=150)
        b = pm.Normal("b", 0.0, 1.0, shape=150)
        logits = pm.math.stack([pm.math.zeros_like(a), a, b], axis=1)
        pm.Categorical("y", p=pm.math.softmax(logits, axis=1), observed=y)
    return m


MODELS.update(
    {
        "eight schools": eight_schools,
        "radon varying slopes": radon_varying_slopes,
        "stochastic volatility": stochastic_volatility,
        "Dirichlet-multinomial": dirichlet_multinomial,
        "Bernoulli logistic": bernoulli_logistic,
        "censored Normal": censored_normal,
        "Poisson with offset": poisson_offset,
        "ordered logistic": ordered_logistic,
        "latent AR(1)": latent_ar1,
        "softmax over stacked": softmax_stacked,
    }
)


def selected(names) -> list[str]:
    """``names`` (default: every model of :data:`MODELS`), checked: a ``ValueError`` names unknown ones."""
    names = list(names) or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        raise ValueError(f"unknown models {unknown}; known: {list(MODELS)}")
    return names


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
