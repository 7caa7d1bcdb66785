"""Logs of products written as densities are, and the measured stage's round for a form that still loses a value.

A density written as a product of its parameters, powers and exponentials, then logged (``log(b x**(b-1)
exp(-x**b))``), is ``-inf`` wherever a factor underflows.  The theory's ``log_prod_sign_regimes`` splits the log of
a product whose operands' signs are unknown into the logs of the magnitudes where they have one sign (read by
``sign_mul``, ``sign_pow_regimes`` and ``sign_exp`` from the operands, not from the product, which underflows), the
``log_abs_*`` rules take each magnitude apart, and ``log_of_clamp`` reads a regime's clamped input.  The measured
stage gives :func:`relations.stabilize` the points where its first form still loses a value whole
(``_still_losing``) and keeps the form found with them where it is more accurate.
"""

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt

import relations
import relations.saturation.stabilizing
from helpers import assert_accurate_and_typed, compiled_with_stage


def test_a_density_of_a_power_and_an_exponential_logged_is_a_sum_of_logs():
    """``log(b x**(b-1) exp(-x**b))`` (a Weibull density of scale 1, logged): ``-inf`` stock at ``x = 1e-200``,
    ``b = 3`` (the power underflows) and at ``x = 30`` (the exponential does)."""
    x, b = pt.dvector("x"), pt.dvector("b")
    out = pt.log(b * x ** (b - 1) * pt.exp(-(x**b)))
    f, last = compiled_with_stage([x, b], out)
    assert last.replaced == 1
    at = (np.array([1e-200, 30.0, 0.5, 2.0, 1e-5]), np.array([3.0, 3.0, 2.0, 0.5, 1.5]))
    with mp.workdps(50):
        ref = np.array([float(mp.log(q) + (q - 1) * mp.log(p) - mp.mpf(p) ** q) for p, q in zip(*at, strict=True)])
    assert np.isinf(pytensor.function([x, b], out, mode="FAST_RUN")(*at)[:2]).all()
    assert_accurate_and_typed(f, out, at, ref, 1e-13)
    # where the factors' signs differ the log is NaN, as written
    assert np.isnan(f(np.array([-2.0]), np.array([2.0]))).all()


def test_the_log_of_a_power_of_one_plus_a_power_reads_under_the_regime_clamp():
    """The Burr XII log-survival ``log((1 + x**b)**-k)``: ``log_pow_regimes`` clamps ``1 + x**b`` (``switch(g, 1 +
    x**b, 1)``); ``log_of_clamp`` reads ``log(1 + x**b)`` under it, which ``log1p_pow_regimes`` takes where the power
    overflows (``-inf`` stock at ``x = 1e200``), and ``log1p`` is exact where ``x**b`` is tiny (0 stock at
    ``x = 1e-10``)."""
    x, b, k = pt.dvector("x"), pt.dvector("b"), pt.dvector("k")
    out = pt.log((1 + x**b) ** -k)
    f, last = compiled_with_stage([x, b, k], out)
    assert last.replaced == 1
    at = (np.array([1e200, 1e10, 1.0, 1e-10, 3.0]), np.array([2.0, 40.0, 2.0, 2.0, 0.5]),
          np.array([1.0, 0.5, 3.0, 2.0, 2.0]))
    with mp.workdps(50):
        ref = np.array([float(-r * mp.log1p(mp.mpf(p) ** q)) for p, q, r in zip(*at, strict=True)])
    stock = pytensor.function([x, b, k], out, mode="FAST_RUN")(*at)
    assert np.isinf(stock[:2]).all() and stock[3] == 0.0
    assert_accurate_and_typed(f, out, at, ref, 1e-13)


def _log_w_minus_lam(w, lam):
    return pt.log(w) - lam


def _better_then_exact(firsts):
    """A stand-in for ``relations.stabilize`` on ``log(w exp(-lam))``: without ``first`` points, ``log(w) - lam``
    below ``lam = 700`` and the spelling above (exact where ``w exp(-lam)`` underflows for a small ``w``, still
    ``-inf`` from ``lam = 746``); with them, ``log(w) - lam``.  Records each call's ``first``."""
    from pytensor.graph.traversal import explicit_graph_inputs

    def stabilize(graph, first=None, **kwargs):
        firsts.append(first)
        w, lam = sorted((v for v in explicit_graph_inputs([graph]) if v.name), key=lambda v: v.name != "w")
        found = (pt.switch(lam < 700, _log_w_minus_lam(w, lam), pt.log(w * pt.exp(-lam))) if first is None
                 else _log_w_minus_lam(w, lam))
        ST = relations.saturation.stabilizing
        return ST.Stabilized([found], [(9.0, 64.0)], [(0.0, 0.0)], sites=[ST.Site(graph, found, 9.0, 0.0)])

    return stabilize


def test_a_form_that_still_loses_a_value_is_found_again_with_those_points_first(monkeypatch):
    """A form more accurate than the spelling that still loses a value whole where the spelling does (``-inf`` for
    a finite log) is not the end: ``stabilize`` is called again with those points first, and the form it finds
    there is kept where it is more accurate."""
    firsts: list = []
    monkeypatch.setattr(relations.saturation.stabilizing, "stabilize", _better_then_exact(firsts))
    w, lam = pt.dvector("w"), pt.dvector("lam")
    out = pt.log(w * pt.exp(-lam))
    f, last = compiled_with_stage([w, lam], out)
    assert last.replaced == 1
    assert firsts[0] is None and firsts[-1] is not None
    given = dict(zip(firsts[-1].inputs, (np.asarray(v).ravel() for v in firsts[-1].values), strict=True))
    assert np.all(given[lam] > 700.0)  # the points where the first form is still -inf, and only those
    at = (np.array([1.0, 1e-300, 0.5, 2.0]), np.array([800.0, 100.0, 1.0, 1e4]))
    ref = np.log(at[0]) - at[1]
    assert_accurate_and_typed(f, out, at, ref, 1e-15)


def test_a_form_that_loses_nowhere_is_not_measured_again(monkeypatch):
    """Where the first form loses no value, ``stabilize`` runs once."""
    firsts: list = []

    def stabilize(graph, first=None, **kwargs):
        firsts.append(first)
        from pytensor.graph.traversal import explicit_graph_inputs

        w, lam = sorted((v for v in explicit_graph_inputs([graph]) if v.name), key=lambda v: v.name != "w")
        found = _log_w_minus_lam(w, lam)
        ST = relations.saturation.stabilizing
        return ST.Stabilized([found], [(9.0, 64.0)], [(0.0, 0.0)], sites=[ST.Site(graph, found, 9.0, 0.0)])

    monkeypatch.setattr(relations.saturation.stabilizing, "stabilize", stabilize)
    w, lam = pt.dvector("w"), pt.dvector("lam")
    f, last = compiled_with_stage([w, lam], pt.log(w * pt.exp(-lam)))
    assert last.replaced == 1 and firsts == [None]


def test_a_difference_of_log_gammas_at_large_arguments_keeps_its_digits():
    """The log of a Student-t's normalizing constant, ``gammaln((nu + 1) / 2) - gammaln(nu / 2) - log(nu pi) / 2``:
    the two log-gammas near ``nu log(nu) / 2`` cancel to ``log(nu / 2) / 2`` (all digits lost at ``nu = 1e20``,
    where ``nu + 1`` rounds to ``nu``); ``gammaln_sub_regimes`` takes Stirling's series with the difference of the
    arguments, ``1/2``, found by the identities."""
    nu = pt.dvector("nu")
    out = pt.gammaln((nu + 1) / 2) - pt.gammaln(nu / 2) - 0.5 * pt.log(nu * np.pi)
    f, last = compiled_with_stage([nu], out)
    assert last.replaced == 1
    at = np.array([1e20, 1e15, 1e8, 45.0, 3.0, 0.5])
    with mp.workdps(60):
        ref = np.array([float(mp.loggamma((mp.mpf(v) + 1) / 2) - mp.loggamma(mp.mpf(v) / 2)
                              - mp.log(mp.mpf(v) * mp.mpf(np.pi)) / 2) for v in at])
    assert abs(pytensor.function([nu], out, mode="FAST_RUN")(at[:1])[0] / ref[0] - 1) > 1e-3
    got = f(at)
    assert got.dtype == out.dtype and f.outputs[0].variable.type.broadcastable == out.type.broadcastable
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    for n in (0, 1):
        assert f(np.full(n, 2.0)).shape == (n,)
