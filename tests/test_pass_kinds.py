"""The fast pass on three shapes whose stable form needs no measurement beyond its regime's (``relations.mode()``).

- ``log(1 - tanh(x)**2)``: the log of ``sech(x)**2`` (``log1m_tanh_sqr_regimes``), ``-inf`` from ``|x| = 19``;
- ``x + sqrt(x*x + c)``: the conjugate for ``x < 0`` (``sqrt_add_regimes``), 0 from ``x = -1e8``;
- ``log2(1 + 2**x)``: softplus in base 2 (``log2_one_add_exp2``), ``inf`` from ``x = 1024``;
- ``log(x * gamma(x))``: ``gammaln(x + 1)`` for ``x > 0`` (``log_mul_gamma_regimes``), ``inf`` from 171.6;
- ``log(1 - tanh(x))``: ``log(2) - softplus(2x)`` above 1/2 (``log1m_tanh_regimes``);
- of two inputs: ``x**y - 1`` (``pow_add_neg_one_regimes``), ``log((1 + x)**y)`` (``log_pow1p_regimes``),
  ``log(1 - (1 + x/y)**-y)`` (``log1m_pow1p_regimes``) and ``log((1 - exp(-x)) * exp(y))`` (a log of a product
  with an ``exp`` factor: ``log_mul_exp``).

``log1p((x/y)**2)``, inf where the square overflows (``log1p_sqr_regimes``), is no root of the fast pass: as one it
cost a HalfCauchy prior 60-300 ms a model.

Each is checked against mpmath at extreme and ordinary inputs, for its type, its input graph left as it was,
lengths 0 and 1, and a gradient finite wherever the spelling's is; the default backend compiles each.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from helpers import snapshot

CASES = {
    "log_sech2": (lambda x: pt.log(1 - pt.tanh(x) ** 2), lambda v: -2 * mp.log(mp.cosh(v)),
                  [1e-300, 1e-8, 0.3, -0.9, 5.0, -20.0, 30.0, 400.0, -400.0]),
    "log1p_sech2": (lambda x: pt.log1p(-pt.tanh(x) * pt.tanh(x)), lambda v: -2 * mp.log(mp.cosh(v)),
                    [1e-300, 1e-8, 0.3, -0.9, 5.0, -20.0, 30.0, 400.0, -400.0]),
    "asinh_arg": (lambda x: x + pt.sqrt(x * x + 1), lambda v: v + mp.sqrt(v * v + 1),
                  [1e-300, 0.5, -0.5, -30.0, -1e5, -1e10, 3.0, 1e10]),
    "squareplus": (lambda x: (x + pt.sqrt(x**2 + 4)) / 2, lambda v: (v + mp.sqrt(v * v + 4)) / 2,
                   [1e-300, 0.5, -0.5, -30.0, -1e5, -1e10, 3.0, 1e10]),
    "softplus2": (lambda x: pt.log2(1 + 2**x), lambda v: max(v, 0) + mp.log1p(mp.power(2, -abs(v))) / mp.log(2),
                  [-1e3, -60.0, -1.0, 0.0, 1e-10, 2.0, 60.0, 1e4, 1e10]),
    # (not near 0: gammaln(x + 1) keeps the rounding of 1 + x there, as the spelling does; PyTensor has no lgamma1p)
    "log_x_gamma": (lambda x: pt.log(x * pt.gamma(x)), lambda v: mp.loggamma(v + 1), [0.5, 3.0, 100.0, 200.0, 1e5]),
    "log1m_tanh": (lambda x: pt.log(1 - pt.tanh(x)),
                   lambda v: mp.log(2) - 2 * v - mp.log1p(mp.exp(-2 * v)) if v > 1 else mp.log1p(-mp.tanh(v)),
                   [1e-300, 0.3, -5.0, 30.0, 400.0, -400.0]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_pass_takes_the_stable_form(name):
    spell, exact, xs = CASES[name]
    x = pt.vector("x", dtype="float64")
    g = spell(x)
    before = snapshot(g)
    f = pytensor.function([x], g, mode=relations.mode())
    values = np.array(xs)
    with mp.workdps(80):
        want = np.array([float(exact(mp.mpf(v))) for v in xs])
    with np.errstate(all="ignore"):
        got = f(values)
        stock = pytensor.function([x], g, mode="FAST_RUN")(values)
    np.testing.assert_allclose(got, want, rtol=4e-16 * 8, atol=0)
    assert not np.allclose(stock, want, rtol=1e-6, atol=0)  # the spelling loses some of them
    assert snapshot(g) == before and f.maker.fgraph.outputs[0].type == g.type
    assert f(np.zeros(0)).shape == (0,) and f(np.full(1, 0.5)).shape == (1,)
    with np.errstate(all="ignore"):
        grad = pytensor.function([x], pt.grad(pt.sum(g), x), mode=relations.mode())(values)
        stock_grad = pytensor.function([x], pt.grad(pt.sum(g), x), mode="FAST_RUN")(values)
    assert np.isfinite(grad[np.isfinite(stock_grad)]).all()


def test_float32_keeps_float32_at_its_tolerance():
    x = pt.vector("x", dtype="float32")
    g = pt.log(1 - pt.tanh(x) * pt.tanh(x))
    f = pytensor.function([x], g, mode=relations.mode())
    xs = np.array([1e-30, 1e-3, 0.3, -0.9, 5.0, -12.0, 40.0], dtype="float32")
    with mp.workdps(40):
        want = [float(-2 * mp.log(mp.cosh(mp.mpf(float(v))))) for v in xs]
    got = f(xs)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30)


def test_the_naive_betaln_takes_gammaln_where_a_gamma_overflows():
    """``log(gamma(a) * gamma(b) / gamma(a + b))`` is NaN from ``a + b = 171.6`` (``inf / inf``); where it is finite
    it is left as written (``log_beta_regimes``: the three ``gammaln`` cancel there)."""
    a, b = pt.vector("a"), pt.vector("b")
    g = pt.log(pt.gamma(a) * pt.gamma(b) / pt.gamma(a + b))
    f = pytensor.function([a, b], g, mode=relations.mode())
    av, bv = np.array([0.5, 1.0, 10.0, 200.0, 1e5, 30.0]), np.array([0.5, 2.0, 10.0, 150.0, 1e5, 20.0])
    with mp.workdps(60):
        want = [float(mp.log(mp.beta(mp.mpf(x), mp.mpf(y)))) for x, y in zip(av, bv, strict=True)]
    np.testing.assert_allclose(f(av, bv), want, rtol=1e-12)
    with np.errstate(all="ignore"):
        stock = pytensor.function([a, b], g, mode="FAST_RUN")(av, bv)
    assert not np.isfinite(stock[3:5]).any()


PAIRS = {
    "powm1": (lambda x, y: x**y - 1, lambda a, b: mp.expm1(b * mp.log(a)),
              [(0.5, 1e-13), (3.0, 1e-10), (1.0 + 1e-10, 1e8), (20.0, 5.0), (1e200, 1e-100), (7.0, -0.5)]),
    "log_pow1p": (lambda x, y: pt.log((1 + x) ** y), lambda u, b: b * mp.log1p(u),
                  [(1e-12, 3.0), (1e-300, 2.0), (0.5, 1e-10), (1e5, 2.5), (-0.5, 7.0)]),
    "log1m_pow1p": (lambda x, y: pt.log(1 - (1 + x / y) ** (-y)), lambda u, s_: mp.log(1 - mp.power(1 + u / s_, -s_)),
                    [(1e-12, 3.0), (1.0 + 1e-10, 1e8), (30.0, 1e5), (0.5, 2.0), (20.0, 800.0)]),
    "log_mul_exp": (lambda x, y: pt.log((1 - pt.exp(-x)) * pt.exp(y)), lambda a, b: mp.log(-mp.expm1(-a)) + b,
                    [(1e-12, 800.0), (3.0, -800.0), (30.0, 3.0), (1e-5, 1e3)]),
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_the_pass_takes_the_stable_form_of_two_inputs(name):
    spell, exact, points = PAIRS[name]
    x, y = pt.vector("x", dtype="float64"), pt.vector("y", dtype="float64")
    g = spell(x, y)
    before = snapshot(g)
    xs, ys = (np.array(c) for c in zip(*points, strict=True))
    with mp.workdps(400):  # (1 + 4.6e-98 needs 100 digits)
        want = np.array([float(exact(mp.mpf(float(a)), mp.mpf(float(b)))) for a, b in points])
    f = pytensor.function([x, y], g, mode=relations.mode())
    with np.errstate(all="ignore"):
        got = f(xs, ys)
        stock = pytensor.function([x, y], g, mode="FAST_RUN")(xs, ys)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    assert not np.allclose(stock, want, rtol=1e-9, atol=0)
    assert snapshot(g) == before and f.maker.fgraph.outputs[0].type == g.type
    assert f(np.zeros(0), np.zeros(0)).shape == (0,) and f(np.full(1, 0.5), np.full(1, 2.0)).shape == (1,)


def test_a_log1p_of_a_square_is_no_root_of_the_fast_pass():
    """PyMC's HalfCauchy logp reads ``log1p((x / beta)**2)``: the fast pass leaves it as PyTensor compiles it (it
    overflows from ``x / beta = 1.3e154`` only); ``log1p_sqr_regimes`` stays a theory identity."""
    from relations.compile.stabilize import regime_roots, region_roots

    x, y = pt.vector("x"), pt.vector("y")
    g = pt.log1p((x / y) ** 2)
    assert region_roots([g]) == [] and regime_roots([g]) == []
    xs, ys = np.array([1e200, 3.0]), np.array([1.0, 4.0])
    with np.errstate(all="ignore"):
        ours = pytensor.function([x, y], g, mode=relations.mode())(xs, ys)
        stock = pytensor.function([x, y], g, mode="FAST_RUN")(xs, ys)
    np.testing.assert_array_equal(ours, stock)
    assert np.isinf(ours[0])  # (left: the value at 1e200 is 921.0)


def test_a_mixture_of_two_exponentials_with_data_weights_is_a_logaddexp():
    """``log(w * exp(x) + (1 - w) * exp(y))`` overflows from 709.8 and underflows below -745
    (``log_weighted_exps_regimes``: ``logaddexp(x + log(w), y + log(1 - w))`` for positive weights)."""
    x, y, w = pt.vector("x"), pt.vector("y"), pt.vector("w")
    g = pt.log(w * pt.exp(x) + (1 - w) * pt.exp(y))
    before = snapshot(g)
    xs, ys, ws = np.array([800.0, -800.0, 1.0, 30.0]), np.array([799.0, -801.0, 2.0, -30.0]), np.array([0.3, 0.5, 1e-20, 0.9])
    with mp.workdps(60):
        want = [float(mp.log(mp.mpf(c) * mp.exp(a) + (1 - mp.mpf(c)) * mp.exp(b))) for a, b, c in zip(xs, ys, ws)]
    f = pytensor.function([x, y, w], g, mode=relations.mode())
    with np.errstate(all="ignore"):
        stock = pytensor.function([x, y, w], g, mode="FAST_RUN")(xs, ys, ws)
    np.testing.assert_allclose(f(xs, ys, ws), want, rtol=1e-14)
    assert not np.isfinite(stock[:2]).any()
    assert snapshot(g) == before and f.maker.fgraph.outputs[0].type == g.type
    with np.errstate(all="ignore"):
        grad = pytensor.function([x, y, w], pt.grad(pt.sum(g), x), mode=relations.mode())(xs, ys, ws)
    assert np.isfinite(grad[2:]).all()
