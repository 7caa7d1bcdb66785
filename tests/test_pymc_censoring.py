"""Monotone transforms of a censored variable under ``relations.pymc.logp`` (pymc #8363).

Stock PyMC derives ``f(clip(x, lo, hi))`` as a transform of a censored
variable and adds ``f``'s Jacobian at the censored points, where the value
is a probability mass: a wrong density.  With monotonicity as a fact
(``graph_bridge.monotonicity``, over the variable's support), the form with
the censoring outermost derives and is compared with stock's:
``DensityMismatch`` names both.  Where no such form exists (the transform
is not monotone on the variable's range) ``TransformedCensoring`` says so
instead of returning stock's value.  References by hand (numpy, scipy).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pm = pytest.importorskip("pymc", reason="PyMC 6 needs Python >= 3.12 (PyTensor 3.3): relations.pymc is not tested here")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from scipy import stats  # noqa: E402

import relations.pymc as rpm  # noqa: E402

E = lambda: pm.Exponential.dist(1.0)  # noqa: E731
X = lambda: pm.Normal.dist(0.0, 1.0)  # noqa: E731
SIG1 = 1 / (1 + np.exp(-1.0))


def _sqrt_clip(v):
    return np.where(v == 1, np.log1p(-np.exp(-1)), np.where(v == 2, -4.0, stats.expon.logpdf(v**2) + np.log(2 * v)))


def _recip_max(v):  # 1 / maximum(e, 2) is 1/2 where e < 2 (mass 1 - exp(-2)), else 1/e in (0, 1/2)
    return np.where(v == 0.5, np.log1p(-np.exp(-2.0)), stats.expon.logpdf(1 / v) - 2 * np.log(v))


def _neg_scaled(v):
    return np.where(np.abs(v) == 2, stats.norm.logcdf(-1), stats.norm.logpdf(v / 2) - np.log(2))


def _log_clip(v):
    lo, hi = np.log(0.5), np.log(3.0)
    inside = stats.expon.logpdf(np.exp(v)) + v
    return np.where(np.isclose(v, lo), np.log1p(-np.exp(-0.5)), np.where(np.isclose(v, hi), -3.0, inside))


def _sigmoid_min(v):
    inside = stats.norm.logpdf(np.log(v / (1 - v))) - np.log(v * (1 - v))
    return np.where(np.isclose(v, SIG1), stats.norm.logsf(1), inside)


def _recip_square(v):  # (clip(e, 1, 3)) ** -0.5, decreasing: masses at 1 (e <= 1) and 3**-0.5 (e >= 3)
    inside = stats.expon.logpdf(v**-2.0) + np.log(2.0) - 3 * np.log(v)
    return np.where(v == 1, np.log1p(-np.exp(-1)), np.where(np.isclose(v, 3**-0.5), -3.0, inside))


#: name -> (graph builder, values (censored points first), reference)
TRANSFORMS = {
    "sqrt(clip(e, 1, 4))": (lambda: pt.sqrt(pt.clip(E(), 1, 4)), [1.0, 2.0, 1.5], _sqrt_clip),
    "1 / maximum(e, 2)": (lambda: 1 / pt.maximum(E(), 2), [0.5, 0.25], _recip_max),
    "clip(x, -1, 1) * -2": (lambda: pt.clip(X(), -1, 1) * -2.0, [-2.0, 2.0, 0.6], _neg_scaled),
    "log(clip(e, 0.5, 3))": (lambda: pt.log(pt.clip(E(), 0.5, 3)), [np.log(0.5), np.log(3.0), 0.2], _log_clip),
    "sigmoid(minimum(x, 1))": (lambda: pt.sigmoid(pt.minimum(X(), 1)), [SIG1, 0.4], _sigmoid_min),
    "clip(e, 1, 3) ** -0.5": (lambda: pt.clip(E(), 1, 3) ** -0.5, [1.0, 3**-0.5, 0.8], _recip_square),
}


def _eval(lp, value, v):
    return np.asarray(pytensor.function([value], lp, mode="FAST_COMPILE")(np.asarray(v, dtype=value.dtype)))


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_stock_is_wrong_at_a_censored_point_and_is_never_returned(name):
    build, values, reference = TRANSFORMS[name]
    graph = build()
    value = graph.type()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stock = rpm.STOCK["logp"](graph, value)
        assert not np.isclose(_eval(stock, value, values[0]), reference(np.asarray(values[0])))
        with pytest.raises(rpm.DensityMismatch, match="two forms of"):
            rpm.logp(graph, value)
        # the form with the censoring outermost is right at every value, censored points included
        [(form, lp)] = rpm.derivable_forms(graph, value, want=1, accept=lambda f: not rpm.transforms_censoring(f))[0]
    assert rpm.describe(form).lower().startswith(("clip", "maximum", "minimum"))
    for v in values:
        np.testing.assert_allclose(_eval(lp, value, v), reference(np.asarray(v)), rtol=1e-6, atol=1e-9)


def test_a_transform_of_unknown_direction_is_refused_not_returned():
    """sqrt of a censored normal: sqrt is not monotone (not even defined) on the normal's range, so no
    form with the censoring outermost exists; stock's value (-inf at the censored 0) is not returned."""
    x = X()
    graph = pt.sqrt(pt.clip(x, 0, 4))
    value = graph.type()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stock = rpm.STOCK["logp"](graph, value)
        assert _eval(stock, value, 0.0) == -np.inf  # the mass at 0 is Phi(0): log 0.5
        with pytest.raises(rpm.TransformedCensoring, match="transforms a censored variable") as err:
            rpm.logp(graph, value)
        assert isinstance(err.value, rpm.NotDerivable)
        quiet = rpm.logp(graph, value, check=False)  # asked for: stock's value, unchecked
    np.testing.assert_allclose(_eval(quiet, value, 1.0), _eval(stock, value, 1.0))


def test_a_shift_and_a_negation_of_a_censored_variable_are_no_risk_and_give_stocks_value():
    for build in (lambda: pt.clip(X(), -1, 1) + 1, lambda: -pt.clip(X(), -1, 1), lambda: 2 - pt.maximum(X(), 0)):
        graph = build()
        assert not rpm.transforms_censoring(graph)
        value = graph.type()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, stock = rpm.logp(graph, value), rpm.STOCK["logp"](graph, value)
        for v in (-1.0, 0.0, 1.0, 2.0):
            np.testing.assert_allclose(_eval(ours, value, v), _eval(stock, value, v))


def test_a_switch_of_two_random_branches_is_no_censoring():
    """The leaky ReLU has no point mass: an exp of it is a plain transform (stock is right there)."""
    x = X()
    assert not rpm.transforms_censoring(pt.exp(pt.where(x > 0, x, 0.5 * x)))
    assert rpm.transforms_censoring(pt.exp(pt.where(x > 0, x, 0.0)))


# -- check=True: a scalar density integrates to one, point masses included ----------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda: X(),
        lambda: pt.clip(X(), -1, 1),  # masses at -1 and 1
        lambda: pt.maximum(E(), 2.0),  # a mass at 2
        lambda: (lambda z: z + z + 1)(X()),  # stock refuses: derived from an equal form
        lambda: pm.Poisson.dist(3.0),  # discrete: a sum over the integers
        lambda: (lambda z: z * z)(X()),  # chi-squared, derived from x ** 2: support (0, inf)
    ],
    ids=["normal", "clip", "maximum", "derived", "poisson", "chi2"],
)
def test_check_true_finds_that_a_right_density_integrates_to_one(build):
    graph = build()
    value = graph.type()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = rpm.logp(graph, value, check=True)
        total = rpm.density_mass(graph, value, lp)
    assert total is not None and abs(total - 1.0) < 1e-3


def test_a_density_that_does_not_integrate_to_one_is_named():
    x = X()
    value = x.type()
    lp = pm.logp(x, value)
    assert abs(rpm.density_mass(x, value, lp + 0.5) - np.exp(0.5)) < 1e-3
    clipped = pt.clip(X(), -1, 1)
    v2 = clipped.type()
    wrong = pt.switch(pt.eq(v2, 1.0), -np.inf, pm.logp(clipped, v2))  # the mass at 1 dropped
    assert abs(rpm.density_mass(clipped, v2, wrong) - stats.norm.cdf(1.0)) < 1e-3
    assert rpm.density_mass(pm.Normal.dist(0, 1, shape=3), pt.vector("w"), pt.zeros(())) is None  # not scalar
