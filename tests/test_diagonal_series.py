"""Series where two inputs nearly agree (``relations/saturation/diagonal_series.py``) and the truncated Taylor
series they are built from (``relations/saturation/jets.py``), checked on values against mpmath."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.wide_float import diagonal_cancels
from helpers import snapshot
from relations.saturation.diagonal_series import diagonal_forms, diagonal_series
from relations.saturation.jets import taylor_jet

p, q = pt.dvector("p"), pt.dvector("q")


def _kl(a, b):
    return a * pt.log(a / b) + (1 - a) * pt.log((1 - a) / (1 - b))


def _kl_exact(a, b):
    return a * mp.log(a / b) + (1 - a) * mp.log((1 - a) / (1 - b))


def _deviance(y, mu):
    return y * pt.log(y / mu) - y + mu


def _deviance_exact(y, mu):
    return y * mp.log(y / mu) - y + mu


@pytest.mark.parametrize("name, graph, exact", [
    ("exp(q) * log1p(p) / q", lambda a, b: pt.exp(b) * pt.log1p(a) / b, lambda a, b: mp.exp(b) * mp.log1p(a) / b),
    ("sqrt(p) ** 3 - q * p**2", lambda a, b: pt.sqrt(a) ** 3 - b * pt.sqr(a), lambda a, b: mp.sqrt(a) ** 3 - b * a**2),
    ("gammaln(p + q) - expm1(-p)", lambda a, b: pt.gammaln(a + b) - pt.expm1(-a),
     lambda a, b: mp.loggamma(a + b) - mp.expm1(-a)),
    ("1 / p - digamma(p)", lambda a, b: pt.reciprocal(a) - pt.digamma(a) * b, lambda a, b: 1 / a - mp.digamma(a) * b),
    ("polygamma(1, p * q)", lambda a, b: pt.polygamma(1, a * b), lambda a, b: mp.polygamma(1, a * b)),
    ("p ** (2 - q) / q", lambda a, b: a ** (2 - b) / b, lambda a, b: a ** (2 - b) / b),  # an exponent held
])
def test_a_jet_is_the_taylor_series(name, graph, exact):
    """The jet of ``f(p, q)`` in ``t`` at ``p = 0.7 + t`` is its Taylor series in ``p`` (mpmath's derivatives)."""
    n = 5
    out = graph(p, q)
    jet = taylor_jet(out, p, {p: pt.as_tensor_variable(np.array([0.7]))}, n)
    assert jet is not None and len(jet) == n + 1, name
    got = [0.0 if c is None else float(pytensor.function([q], c, mode="FAST_COMPILE",
                                                         on_unused_input="ignore")(np.array([1.3]))[0]) for c in jet]
    with mp.workdps(40):
        ref = mp.taylor(lambda t: exact(t, mp.mpf(1.3)), mp.mpf(0.7), n)
    np.testing.assert_allclose(got, [float(r) for r in ref], rtol=1e-12, atol=1e-14, err_msg=name)


def test_a_node_without_a_series_rule_has_no_jet():
    assert taylor_jet(pt.erfinv(p) * q, p, {p: q}, 3) is None
    assert taylor_jet(pt.floor(p) + q, p, {p: q}, 3) is None
    assert taylor_jet(q ** p, p, {p: q}, 3) is None  # an exponent that varies with t
    assert taylor_jet(pt.maximum(p, 0.0) * q, p, {p: q}, 3) is None  # no series through a max


@pytest.mark.parametrize("name, graph, exact, at", [
    ("Bernoulli KL", _kl, _kl_exact, [(0.3, 0.3 + 2.0**-33), (0.01, 0.01 * (1 - 1e-6)), (0.999, 0.999 - 1e-12)]),
    ("Poisson deviance", _deviance, _deviance_exact, [(3.0, 3.0 * (1 + 1e-9)), (1e4, 1e4 - 1e-3), (1e-5, 1.1e-5)]),
])
def test_the_diagonal_series_is_exact_where_the_spelling_cancels(name, graph, exact, at):
    out = graph(p, q)
    before = snapshot(out)
    found = diagonal_cancels(out)
    assert found is not None
    form = diagonal_series(out, q, p, found)
    assert form is not None and snapshot(out) == before, name
    assert form.type == out.type
    a, b = np.array([u for u, _ in at]), np.array([v for _, v in at])
    written, got = pytensor.function([p, q], [out, form], mode="FAST_COMPILE")(a, b)
    with mp.workdps(80):
        ref = np.array([float(exact(mp.mpf(u), mp.mpf(v))) for u, v in zip(a, b)])
    assert np.max(np.abs(written / ref - 1)) > 1e-3, name  # the spelling cancels there
    np.testing.assert_allclose(got, ref, rtol=1e-14, err_msg=name)
    far = np.array([0.2]), np.array([0.6])  # off the diagonal: the spelling itself
    np.testing.assert_array_equal(*pytensor.function([p, q], [out, form], mode="FAST_COMPILE")(*far))
    for shape in ((0,), (1,)):
        v = np.full(shape, 0.25)
        assert pytensor.function([p, q], form, mode="FAST_COMPILE")(v, v).shape == shape


def test_no_diagonal_series_without_a_pair_of_the_outputs_type():
    out = _kl(p, q)
    found = diagonal_cancels(out)
    assert diagonal_series(out, p, p, found) is None
    s = pt.dscalar("s")
    assert diagonal_series(p * pt.log(p / s), s, p, {p: np.ones(2), s: np.ones(2)}) is None
    with pytest.raises(ValueError, match="points"):
        diagonal_series(out, q, p, {p: np.ones(2)})
    assert diagonal_forms(p * p + q * q) == []  # nothing cancels


def test_stabilize_takes_the_diagonal_series_of_a_kl_divergence():
    out = _kl(p, q)
    s = relations.stabilize(out)
    assert s.changed
    a, b = np.array([0.3, 0.01, 0.5, 0.2]), np.array([0.3 + 2.0**-33, 0.01 * (1 - 1e-6), 0.500000000001, 0.6])
    got = pytensor.function([p, q], s.graph, mode="FAST_COMPILE")(a, b)
    with mp.workdps(80):
        ref = np.array([float(_kl_exact(mp.mpf(u), mp.mpf(v))) for u, v in zip(a, b)])
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    assert math.isfinite(s.after[0][0])


def _kl_gamma(a1, b1, a2, b2):
    return (a2 * pt.log(b1 / b2) + pt.gammaln(a2) - pt.gammaln(a1) + (a1 - a2) * pt.psi(a1)
            + (b2 - b1) * (a1 / b1))


def test_the_polynomial_survives_pytensors_sums_where_a_coefficient_cancels():
    # the gamma KL in b2 - b1: its c0 (gammaln(a2) - gammaln(a1) + (a1 - a2) psi(a1)) and c1 (a1/b1 - a2/b1) are
    # sums whose terms cancel where a1 = a2; PyTensor sums them with the polynomial's t * ... as one Add, left
    # to right, so the coefficient's terms must come first or the small term is lost in the large ones
    a1, b1, a2, b2 = (pt.dvector(n) for n in ("a1", "b1", "a2", "b2"))
    out = _kl_gamma(a1, b1, a2, b2)
    a, b = np.array([1e8, 1e6, 3.0]), np.array([2.0, 5.0, 0.5])
    form = diagonal_series(out, b1, b2, {a1: a, b1: b, a2: a, b2: b})
    assert form is not None and form.type == out.type
    at = [a, b, a, b * (1 + np.array([1e-8, 2.0**-30, 1e-9]))]
    with mp.workdps(80):
        ref = np.array([float(u * mp.log(v / w) + (w - v) * u / v)
                        for u, v, w in ((mp.mpf(float(c)) for c in row) for row in zip(a, b, at[3]))])
    # as written (FAST_RUN's canonicalizer reorders the n-ary sum: there the form is no better than the spelling,
    # and the measured stage, which compiles what it measures, keeps the spelling)
    got = pytensor.function([a1, b1, a2, b2], form, mode="FAST_COMPILE")(*at)
    np.testing.assert_allclose(got, ref, rtol=1e-13)
    written = pytensor.function([a1, b1, a2, b2], out, mode="FAST_COMPILE")(*at)
    assert np.max(np.abs(written / ref - 1)) > 1e-3  # the spelling cancels there


def test_the_diagonal_screen_gives_points_to_every_pair_that_cancels():
    # the normal KL cancels where the means agree (1 + t - 1) and where the scales do (r**2 - 1 - log(r**2)); the
    # means' points lose more bits, and a screen keeping the worst points only gave none on the scales' diagonal
    m1, s1, m2, s2 = (pt.dvector(n) for n in ("m1", "s1", "m2", "s2"))
    out = 0.5 * ((s1 / s2) ** 2 + ((m1 - m2) / s2) ** 2 - 1 - pt.log((s1 / s2) ** 2))
    before = snapshot(out)
    at = diagonal_cancels(out)
    assert at is not None and snapshot(out) == before
    def near(u, v):
        with np.errstate(all="ignore"):  # the others at 0
            return (np.abs(at[u] / at[v] - 1) <= 2.0**-8) & (at[u] != at[v])

    assert near(m1, m2).any() and near(s1, s2).any()


def test_the_coefficients_are_computed_only_where_the_polynomial_is_read():
    # a gammaln's coefficients are polygammas, and SciPy's polygamma(1, x) takes a second at x = -1e8 (and hangs
    # at -1e15): away from the diagonal each input of a coefficient is read at a point where it is finite
    from pytensor.graph.traversal import toposort

    out = pt.gammaln(q) - pt.gammaln(p) - (q - p) * pt.psi(p)
    form = diagonal_series(out, p, q, {p: np.array([3.0, 40.0]), q: np.array([3.0, 40.0])})
    assert form is not None
    args = [n.inputs[-1] for n in toposort([form]) if type(getattr(n.op, "scalar_op", None)).__name__ == "PolyGamma"]
    assert args
    far = pytensor.function([p, q], args, mode="FAST_COMPILE", on_unused_input="ignore")
    for a in far(np.array([-1e15 - 0.5, 2.0]), np.array([3.0, 7.5])):
        assert np.all(np.isin(np.asarray(a), [3.0, 40.0]))  # one of the points (the one farthest from 0)
    near = pytensor.function([p, q], [form, out], mode="FAST_COMPILE")(np.array([5.0]), np.array([5.0 + 1e-9]))
    with mp.workdps(60):
        a, b = mp.mpf(5.0), mp.mpf(5.0 + 1e-9)
        ref = float(mp.loggamma(b) - mp.loggamma(a) - (b - a) * mp.digamma(a))
    np.testing.assert_allclose(near[0], ref, rtol=1e-12)
    assert abs(near[1][0] / ref - 1) > 1e-3  # the spelling cancels there


def test_a_coefficient_with_a_pole_on_the_diagonal_is_refused_without_a_warning():
    # NumPyro's doubly truncated power law near alpha = -1: a coefficient PyTensor's canonicalizer folds divides
    # a constant by 0 (numpy warned 260 times in one compile); the radius check refuses it
    import warnings

    from numerics_fresh import FRESH

    s = next(s for s in FRESH if s.name == "doubly_truncated_power_law_near_minus_one")
    ins, out = s.graph()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = pytensor.function(ins, out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    got = f(*s.values)
    np.testing.assert_allclose(got, s.exact(), rtol=1e-5)  # the spelling's own 6e-7, not made worse
