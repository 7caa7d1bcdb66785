"""Regimes (Herbie's branch inference) in ``relations.stabilize``: forms joined by a switch on an input.

Each case is checked against mpmath at extreme inputs on both sides of every threshold, and the
switch's gradient is finite where the form not taken overflows (each form reads its input clipped
to its own regime).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from relations.saturation.regimes import Regimes, shortest_between, split_indices

SQ2 = np.sqrt(2.0)


def _log_ndtr(v: float) -> float:
    with mp.workdps(60):
        if v > 0:  # the complement of the upper tail, which 60 digits of 1 - tail would lose
            return float(mp.log1p(-mp.erfc(mp.mpf(v) / mp.sqrt(2)) / 2))
        return float(mp.log(mp.erfc(-mp.mpf(v) / mp.sqrt(2)) / 2))


def _log_cosh(v: float) -> float:
    with mp.workdps(60):
        return float(mp.log(mp.cosh(mp.mpf(v))))


def _bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    from graph_bridge.float_error import bits_of_error

    return bits_of_error(np.asarray(got, dtype="float64"), np.asarray(want, dtype="float64"))


@pytest.fixture(scope="module")
def log_ndtr():
    x = pt.dvector("x")
    graph = pt.log(0.5 * pt.erfc(-x / SQ2))
    return x, graph, relations.stabilize(graph)


@pytest.fixture(scope="module")
def log_cosh():
    x = pt.dvector("x")
    graph = pt.log(pt.cosh(x))
    return x, graph, relations.stabilize(graph)


def _values(x, out, at):
    fn = pytensor.function([x], out, mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        return fn(np.asarray(at, dtype="float64"))


def test_the_normal_log_cdf_through_erfc_gets_regimes_accurate_on_both_sides(log_ndtr):
    x, graph, r = log_ndtr
    assert r.changed and r.regimes and isinstance(r.regimes[0], Regimes)
    assert r.after[0][0] < r.before[0][0] and r.after[0][1] <= r.before[0][1]
    at = np.array([-1e300, -1e10, -40.0, -38.5, -10.0, -1.0, 0.0, 1e-300, 1.0, 5.0, 10.0, 30.0])
    got = _values(x, r.graph, at)
    want = np.array([_log_ndtr(v) for v in at])
    assert abs(got[2] - want[2]) <= 1e-12 * abs(want[2]) and -804.7 < got[2] < -804.6
    assert got[9] == pytest.approx(want[9], rel=1e-14)  # x = 5: -2.87e-7
    assert (_bits(got, want) <= 10).all(), (at, got, want)
    written = _values(x, graph, at)
    assert np.isneginf(written[2])  # the input as written: -inf at x = -40
    for reg in r.regimes:  # both sides of each threshold
        for t in reg.thresholds:
            side = np.array([np.nextafter(t, -np.inf), t, np.nextafter(t, np.inf), t * (1 - 2**-8), t * (1 + 2**-8)])
            g, w = _values(x, r.graph, side), np.array([_log_ndtr(v) for v in side])
            assert (_bits(g, w) <= _bits(_values(x, graph, side), w) + 2).all()


def test_the_regimes_gradient_is_finite_where_a_form_not_taken_overflows(log_ndtr):
    x, _, r = log_ndtr
    fn = pytensor.function([x], pytensor.grad(r.graph.sum(), x), mode="FAST_COMPILE")
    at = np.array([-40.0, -5.0, 0.0, 5.0, 40.0, 1e10])
    g = fn(at)
    assert np.isfinite(g).all(), g
    with mp.workdps(40):  # d/dx log Phi(x) = phi(x) / Phi(x)
        want = [float(mp.npdf(v) / mp.ncdf(v)) for v in at]
    np.testing.assert_allclose(g, want, rtol=1e-6)


def test_log_cosh_gets_regimes_accurate_near_0_and_at_800(log_cosh):
    """Regimes inferred on sampled points, or the theory's own regime form (``log_cosh_regimes``, which one
    form serves everywhere: extraction takes it and no split is inferred)."""
    x, graph, r = log_cosh
    switched = any(type(getattr(getattr(v.owner, "op", None), "scalar_op", None)).__name__ == "Switch"
                   for v in pytensor.graph.traversal.ancestors(r.outputs))
    assert r.changed and (r.regimes or switched)
    at = np.array([-800.0, -1e-8, 1e-8, 1e-3, 1.0, 20.0, 800.0, 1e300])
    got = _values(x, r.graph, at)
    want = np.array([_log_cosh(v) for v in at])
    assert got[2] == pytest.approx(5e-17, rel=1e-14)  # x**2 / 2 at 1e-8
    assert got[6] == pytest.approx(800 - np.log(2), rel=1e-15)
    assert (_bits(got, want) <= 2).all(), (at, got, want)
    written = _values(x, graph, at)
    assert written[2] == 0.0 and np.isinf(written[6])  # as written: 0 at 1e-8, inf at 800


def test_a_graph_one_form_serves_gets_no_regimes():
    x = pt.dvector("x")
    r = relations.stabilize(pt.log(1 + pt.exp(x)))
    assert r.changed and not r.regimes


def test_split_indices_is_herbies_dynamic_programme():
    # two forms, each exact on one half: one split between the halves
    errs = np.array([[0, 0, 0, 60, 60, 60], [60, 60, 60, 0, 0, 0]], dtype=float)
    total, segs = split_indices(errs, np.arange(6.0), penalty=6.0)
    assert segs == [(0, 0, 3), (1, 3, 6)] and total == 6.0
    # a split that saves less than the penalty is not made
    errs = np.array([[0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0]], dtype=float)
    assert split_indices(errs, np.arange(6.0), penalty=6.0)[1] == [(0, 0, 6)]
    # no split between equal values
    errs = np.array([[0, 60, 60], [60, 0, 0]], dtype=float)
    assert split_indices(errs, np.array([1.0, 1.0, 2.0]), penalty=1.0)[1] == [(0, 0, 2), (1, 2, 3)] or \
        split_indices(errs, np.array([1.0, 1.0, 2.0]), penalty=1.0)[1][0][2] != 1


def test_shortest_between_reads_as_written():
    assert shortest_between(1.2345, 1.3, "float64") == 1.3
    assert shortest_between(-7.3, -7.1, "float64") in (-7.3, -7.2, -7.1)
    assert shortest_between(-1.0, 2.0, "float64") == 0.0


def test_the_probes_of_a_float32_regime_raise_no_overflow_warning():
    """``check_points`` probes ``+-1e300`` where the dtype holds them: comparing ``1e300`` with float32's
    largest float cast it to float32 (NumPy 2), an ``overflow encountered in cast`` warning on every
    float32 graph with regimes (the corpus's ``log(0.5*erfc(-x/sqrt(2))) f32``)."""
    import warnings

    from relations.saturation.accuracy import sample_points
    from relations.saturation.regimes import build_switch, check_points

    x = pt.fvector("x")
    out = pt.log1p(pt.exp(x))
    forms = (pt.exp(x), pt.softplus(x))
    reg = Regimes(x, (-20.0,), forms, build_switch(x, [-20.0], forms, out))
    pts = sample_points([out], 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        at = check_points([out], [reg], pts)
    probes = at.values[0].reshape(-1)
    assert at.values[0].dtype == np.float32 and np.isfinite(probes).all()
    assert (probes <= -20.0).any() and (probes > -20.0).any() and -1e300 not in probes.tolist()
