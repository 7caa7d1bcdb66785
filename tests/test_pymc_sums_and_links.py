"""Sums of elements in any order, shifts by constant vectors, cumulative sums written out and log-odds
under ``relations.pymc.logp``: stock PyMC refuses each; an equal form derives and matches a reference
written by hand (scipy.stats, a change of variables)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pm = pytest.importorskip("pymc", reason="PyMC 6 needs Python >= 3.12 (PyTensor 3.3): relations.pymc is not tested here")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from scipy import stats  # noqa: E402

import relations.pymc as rpm  # noqa: E402

N = pm.Normal.dist


def _logit_of_beta(y):  # y = logit(b), b ~ Beta(2, 3): density of b at sigmoid(y) times its derivative
    s = 1 / (1 + np.exp(-np.asarray(y)))
    return stats.beta.logpdf(s, 2, 3) + np.log(s) + np.log1p(-s)


def _log_odds(spell):
    b = pm.Beta.dist(2.0, 3.0)
    return spell(b)


CASES = {
    "v[0] + v[2]": (lambda: (lambda v: v[0] + v[2])(N(0, 1, shape=3)), [0.3, -2.0],
                    lambda y: stats.norm.logpdf(y, 0, np.sqrt(2))),
    "v[3] + v[0] (of 5)": (lambda: (lambda v: v[3] + v[0])(N(1, 2, shape=5)), [0.3, 4.0],
                           lambda y: stats.norm.logpdf(y, 2, 2 * np.sqrt(2))),
    "sum(v + [1, 2, 3])": (lambda: pt.sum(N(0, 1, shape=3) + np.array([1.0, 2.0, 3.0])), [0.3, 6.0],
                           lambda y: stats.norm.logpdf(y, 6, np.sqrt(3))),
    "stack of partial sums": (lambda: (lambda w: pt.stack([w[0], w[0] + w[1], w[1] + w[0] + w[2]]))(N(0, 1, shape=3)),
                              [np.array([0.1, 0.5, -0.2])], lambda y: stats.norm.logpdf(np.diff(np.r_[0.0, y]))),
    "log(b / (1 - b))": (lambda: _log_odds(lambda b: pt.log(b / (1 - b))), [0.3, -1.2, 2.5], _logit_of_beta),
    "log(b) - log1p(-b)": (lambda: _log_odds(lambda b: pt.log(b) - pt.log1p(-b)), [0.3, -1.2], _logit_of_beta),
    "log(b) - log(1 - b)": (lambda: _log_odds(lambda b: pt.log(b) - pt.log(1 - b)), [0.3, -1.2], _logit_of_beta),
    "pm.math.logit(b)": (lambda: _log_odds(pm.math.logit), [0.3, -1.2], _logit_of_beta),
}


# -- order statistics of iid draws (relations.pymc.iid: draws of one distribution as one vector draw) --


def _max_of_normals(k):
    return lambda y: np.log(k) + (k - 1) * stats.norm.logcdf(y) + stats.norm.logpdf(y)


ORDER = {
    "maximum(maximum(a, b), c)": (lambda: pt.maximum(pt.maximum(N(0.0, 1.0), N(0.0, 1.0)), N(0.0, 1.0)), [0.3, -1.0],
                                  _max_of_normals(3)),
    "max(stack([a, b, c]))": (lambda: pt.max(pt.stack([N(0.0, 1.0), N(0.0, 1.0), N(0.0, 1.0)])), [0.3, 1.5],
                              _max_of_normals(3)),
    "minimum(e1, e2) (exponentials)": (lambda: pt.minimum(pm.Exponential.dist(2.0), pm.Exponential.dist(2.0)), [0.1, 1.0],
                                       lambda y: stats.expon.logpdf(y, scale=0.25)),
    "a + b (iid normals)": (lambda: N(1.0, 2.0) + N(1.0, 2.0), [0.3, 4.0], lambda y: stats.norm.logpdf(y, 2, 2 * np.sqrt(2))),
}
CASES.update(ORDER)


@pytest.mark.parametrize("name", sorted(CASES))
def test_stock_refuses_and_an_equal_form_derives_the_reference(name):
    build, values, reference = CASES[name]
    graph = build()
    value = graph.type()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError):
            rpm.STOCK["logp"](graph, value)
        lp = rpm.logp(graph, value)
    f = pytensor.function([value], lp, mode="FAST_COMPILE")
    for v in values:
        np.testing.assert_allclose(f(np.asarray(v, dtype=value.dtype)), reference(v), rtol=1e-6, atol=1e-9)


def test_log_odds_of_two_independent_variables_is_no_log_odds():
    """``log(b1) - log1p(-b2)`` of two draws is a difference of two variables (a convolution): none of
    the log-odds relations applies, and the error says the forms were tried."""
    graph = pt.log(pm.Beta.dist(2.0, 3.0)) - pt.log1p(-pm.Beta.dist(2.0, 3.0))
    with pytest.raises(rpm.NotDerivable, match="could not be derived"):
        rpm.logp(graph, graph.type())




def test_draws_of_different_parameters_are_not_merged_and_the_graph_is_not_changed():
    from relations.pymc.iid import merge_iid_draws

    a, b = N(0.0, 1.0), N(0.0, 2.0)
    graph = pt.maximum(a, b)
    before = pytensor.dprint(graph, file="str")
    assert merge_iid_draws(graph) is graph
    with pytest.raises(rpm.NotDerivable):
        rpm.logp(graph, graph.type())
    same = pt.maximum(N(0.0, 1.0), N(0.0, 1.0))
    merged = merge_iid_draws(same)
    assert merged is not same and pytensor.dprint(graph, file="str") == before
    # one draw of size 2 feeds both: its two elements, independent, of the same law
    draws = np.array([pytensor.function([], [merged.owner.inputs[0], merged.owner.inputs[1]], mode="FAST_COMPILE")()])
    assert draws.shape == (1, 2) and draws[0, 0] != draws[0, 1]


def test_valued_draws_are_never_merged():
    """With both draws valued, their densities are separate terms: conditional_logp keeps them apart."""
    a, b = N(0.0, 1.0), N(0.0, 1.0)
    y = a + b
    with pytest.raises(rpm.NotDerivable):
        rpm.conditional_logp({a: a.type(), b: b.type(), y: y.type()})
