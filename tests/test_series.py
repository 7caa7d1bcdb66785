"""Herbie's series expansion (``relations/saturation/series.py``): a Taylor polynomial at 0 as a regime's form,
checked on values against mpmath, at length-0 and length-1 inputs, in float64 and float32."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from helpers import snapshot
from relations.saturation.series import RADII, cancellation_points, series_form, series_forms, taylor_coefficients

x = pt.dvector("x")
xf = pt.fvector("xf")


def _exact(f, at, dps=400):
    with mp.workdps(dps):  # x - sin(x) at 1e-100 needs 300 digits
        return np.array([float(f(mp.mpf(float(v)))) for v in at])


def test_the_coefficients_are_the_taylor_series():
    c = taylor_coefficients(pt.sin(x) - x, order=9)
    assert c is not None and len(c) == 10
    with mp.workdps(40):
        expect = [0, 0, 0, mp.mpf(-1) / 6, 0, mp.mpf(1) / 120, 0, mp.mpf(-1) / 5040, 0, mp.mpf(1) / 362880]
        assert all(abs(a - b) < mp.mpf(10) ** -25 for a, b in zip(c, expect, strict=True))
    # sinh(x) / x is 0/0 at 0: the coefficients never evaluate it there
    c = taylor_coefficients(pt.log(pt.sinh(x) / x), order=4)
    with mp.workdps(40):
        assert c is not None and abs(c[2] - mp.mpf(1) / 6) < mp.mpf(10) ** -25 and c[1] == 0


@pytest.mark.parametrize("graph", [
    pt.log(x),  # a branch point at 0
    pt.sqrt(pt.abs(x)),  # finite, not analytic at 0: no radius where the polynomial holds
    pt.sin(x) - pt.dvector("y"),  # two inputs
    pt.exp(pt.lvector("k")) - 1,  # an integer input
])
def test_no_series_form_where_there_is_no_series(graph):
    assert series_form(graph) is None


def test_the_series_form_is_the_graph_beyond_its_radius_and_unmutated():
    out = pt.sin(x) - x
    before = snapshot(out)
    form = series_form(out)
    assert form is not None and snapshot(out) == before
    assert form.type == out.type
    at = np.array([2.5, -3.0, 1e3, 1e300])
    assert 2.5 > RADII[0]
    f = pytensor.function([x], [out, form], mode="FAST_COMPILE")
    a, b = f(at)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name, graph, exact", [
    ("sin(x) - x", lambda v: pt.sin(v) - v, lambda t: mp.sin(t) - t),
    ("exp(x) - 1 - x", lambda v: pt.exp(v) - 1 - v, lambda t: mp.expm1(t) - t),
    ("x - log1p(x)", lambda v: v - pt.log1p(v), lambda t: t - mp.log1p(t)),
])
def test_stabilize_takes_the_series_where_no_identity_repairs_the_cancellation(name, graph, exact):
    out = graph(x)
    before = snapshot(out)
    s = relations.stabilize(out)
    assert s.changed and snapshot(out) == before, name
    assert s.graph.type.dtype == out.type.dtype and s.graph.type.broadcastable == out.type.broadcastable
    at = np.array([1e-100, -1e-8, 1e-5, 3e-3, -0.3, 0.5, 3.0, 40.0])
    f = pytensor.function([x], [out, s.graph], mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        written, stable = f(at)
    ref = _exact(exact, at)
    assert np.max(np.abs(written / ref - 1)) > 1e-3, name  # the spelling loses its digits near 0
    np.testing.assert_allclose(stable, ref, rtol=4e-15, err_msg=name)
    for shape in ((0,), (1,)):
        v = np.full(shape, 1e-4)
        assert f(v)[1].shape == shape


def test_the_float32_series_is_accurate_to_float32():
    out = 1 - pt.cos(xf)
    s = relations.stabilize(out)
    assert s.changed and s.graph.type.dtype == "float32"
    at = np.array([1e-30, 1e-8, 1e-3, 0.3, 2.0], dtype="float32")
    got = pytensor.function([xf], s.graph, mode="FAST_COMPILE")(at)
    ref = _exact(lambda t: 1 - mp.cos(t), at.astype("float64"))
    np.testing.assert_allclose(got, ref.astype("float32"), rtol=2e-7)


@pytest.mark.default_mode
def test_the_default_backend_compiles_a_series_form():
    s = relations.stabilize(pt.sin(x) - x)
    got = pytensor.function([x], s.graph)(np.array([1e-5, 2.0]))
    np.testing.assert_allclose(got, _exact(lambda t: mp.sin(t) - t, [1e-5, 2.0]), rtol=4e-15)


#: Analytic functions of one argument at 0 to draw from (each minus its drawn leading Taylor terms, so the
#: spelling cancels near 0 as ``sin(x) - x`` does).
_ANALYTIC = {
    "sin": (pt.sin, mp.sin, [0, 1, 0, -mp.mpf(1) / 6]),
    "cos": (pt.cos, mp.cos, [1, 0, -mp.mpf(1) / 2, 0]),
    "exp": (pt.exp, mp.exp, [1, 1, mp.mpf(1) / 2, mp.mpf(1) / 6]),
    "log1p": (pt.log1p, mp.log1p, [0, 1, -mp.mpf(1) / 2, mp.mpf(1) / 3]),
    "tanh": (pt.tanh, mp.tanh, [0, 1, 0, -mp.mpf(1) / 3]),
    "sinh": (pt.sinh, mp.sinh, [0, 1, 0, mp.mpf(1) / 6]),
}


@pytest.mark.parametrize("seed", range(6))
def test_the_series_form_is_exact_wherever_it_reads_the_polynomial(seed):
    """A drawn analytic function of a drawn scaled argument, minus its first Taylor terms: wherever the series
    form reads the polynomial (inside its radius, at drawn points), it is the exact value to float64's
    rounding of the polynomial (a few ulps); beyond it, the spelling's own floats."""
    rng = np.random.default_rng(seed)
    name = sorted(_ANALYTIC)[seed % len(_ANALYTIC)]
    f, fm, taylor = _ANALYTIC[name]
    scale, terms = float(rng.choice([1.0, 0.5, 3.0])), int(rng.integers(1, 4))
    spelled = f(scale * x) - sum(float(taylor[k]) * (scale * x) ** k for k in range(terms) if taylor[k] != 0)
    form = series_form(spelled)
    assert form is not None, name
    at = np.concatenate([rng.uniform(-1, 1, 12) * 10.0 ** rng.integers(-12, 1, 12), [0.0, 3.0, -7.5]])
    if name == "log1p":
        at = at[scale * at > -1]  # where log1p is real
    # the switch's condition: where the polynomial is read
    got, plain, inside = pytensor.function([x], [form, spelled, form.owner.inputs[0]], mode="FAST_COMPILE")(at)
    inside = inside.astype(bool)

    def exact(t):
        u = scale * t
        return fm(u) - sum(taylor[k] * u**k for k in range(terms))

    ref = _exact(exact, at)
    np.testing.assert_array_equal(got[~inside], plain[~inside])  # elsewhere the form is the spelling
    ok = np.isclose(got, ref, rtol=1e-14, atol=0) | (ref == 0) & (np.abs(got) < 1e-300)
    assert ok[inside].all(), (name, scale, terms, at[inside & ~ok], got[inside & ~ok], ref[inside & ~ok])
    assert inside.any(), name


def test_a_removable_singularity_at_0_has_its_limit_as_the_constant_term():
    # 2 (exp(x) - 1 - x) / x**2 is 0/0 at 0, and 1 in the limit: mpmath's 0th derivative is the value at 0
    c = taylor_coefficients(2 * (pt.exp(x) - 1 - x) / x**2, order=6)
    with mp.workdps(40):
        assert c is not None and abs(c[0] - 1) < mp.mpf(10) ** -30 and abs(c[1] - mp.mpf(1) / 3) < mp.mpf(10) ** -25


_LN_SQRT_2PI = 0.9189385332046727


def _stirlerr(v):
    return pt.gammaln(v + 1) - (v + 0.5) * pt.log(v) + v - _LN_SQRT_2PI


@pytest.mark.parametrize("name, graph, expect", [
    ("log(x) - x + 1", lambda v: pt.log(v) - v + 1, [1.0]),  # a constant of the graph
    ("log(x) - 1", lambda v: pt.log(v) - 1, [float(mp.e)]),  # a root between grid points, not a constant
    ("sin(x) - x", lambda v: pt.sin(v) - v, []),  # cancels at 0 only: the series at 0 is its form
    # a root's neighbourhood is a cancellation of its terms, the root itself in the graph's dtype
    ("exp(x) + x", lambda v: pt.exp(v) + v, [float(-mp.lambertw(1))]),
    ("log(x)", pt.log, []),  # a root at 1, where log loses nothing
    # a root on the grid itself brackets no sign change between its points (SciPy's logit before scipy #21388)
    ("log(x / (1 - x))", lambda v: pt.log(v / (1 - v)), [0.5]),
])
def test_cancellation_points_are_where_the_spelling_loses_digits_away_from_0(name, graph, expect):
    out = graph(x)
    before = snapshot(out)
    assert cancellation_points(out) == expect, name
    assert snapshot(out) == before


def test_without_crossings_a_root_counts_only_on_the_grid():
    """``crossings=False`` (the measured stage's flag): the zeros at the grid's points (``log(x / (1 - x))`` at 1/2)
    and the graph's constants, not a root between the grid's points (a log-density term where the density is 1)."""
    assert cancellation_points(pt.log(x / (1 - x)), crossings=False) == [0.5]
    assert cancellation_points(pt.log(x) - 1, crossings=False) == []
    assert cancellation_points(pt.log(x) - x + 1, crossings=False) == [1.0]
    exponential_logp = pt.log(10.0) - 10.0 * pt.exp(x)
    assert cancellation_points(exponential_logp, crossings=False) == []
    np.testing.assert_allclose(cancellation_points(exponential_logp), [np.log(np.log(10.0) / 10.0)], rtol=1e-12)


def test_every_cancellation_point_is_kept_none_dropped_past_a_count():
    # (x - 1.5)(x - 3)(x - 6)(x - 12) written expanded: it cancels at each of its four roots
    out = x**4 - 22.5 * x**3 + 157.5 * x**2 - 405 * x + 324
    points = cancellation_points(out)
    assert points == sorted(points, key=abs)
    np.testing.assert_allclose(points, [1.5, 3.0, 6.0, 12.0], rtol=1e-12)
    forms = series_forms(out)
    f = pytensor.function([x], forms, mode="FAST_COMPILE")
    near = np.array([a * (1 + 2.0**-30) for a in (1.5, 3.0, 6.0, 12.0)])
    ref = _exact(lambda t: (t - 1.5) * (t - 3) * (t - 6) * (t - 12), near)
    best = np.min([np.abs(v / ref - 1) for v in f(near)], axis=0)
    assert np.all(best < 1e-12)  # near every root one of the forms is exact


@pytest.mark.parametrize("dtype, rtol", [("float64", 4e-15), ("float32", 4e-7)])
def test_the_series_at_a_cancellation_point_is_exact_near_it_and_the_spelling_beyond(dtype, rtol):
    v = pt.vector("v", dtype=dtype)
    out = pt.log(v) - v + 1
    before = snapshot(out)
    forms = series_forms(out)
    assert len(forms) == 1 and snapshot(out) == before  # no series at 0 (log's pole), one at 1
    form = forms[0]
    assert form.type == out.type
    eps = float(np.finfo(dtype).eps)
    near = np.array([1 + 8 * eps, 1 - 1e-3, 1.2, 0.8, 1 + 2.0**-12], dtype=dtype)
    far = np.array([3.0, 0.1, 40.0], dtype=dtype)
    f = pytensor.function([v], [out, form], mode="FAST_COMPILE")
    written, got = f(near)
    ref = _exact(lambda t: mp.log(t) - t + 1, near.astype("float64"))
    assert np.max(np.abs(written / ref - 1)) > 1e-5  # the spelling cancels there
    np.testing.assert_allclose(got, ref, rtol=rtol)
    a, b = f(far)
    np.testing.assert_array_equal(a, b)
    for shape in ((0,), (1,)):
        assert f(np.full(shape, 1.001, dtype=dtype))[1].shape == shape


def test_the_series_at_infinity_reads_the_polynomial_in_1_over_x():
    # R's stirlerr by its definition: lgamma(n + 1) - (n + 1/2) log(n) + n - log(sqrt(2 pi)) cancels as n grows;
    # its series in 1/n is 1/(12 n) - 1/(360 n**3) + ...
    out = _stirlerr(x)
    forms = series_forms(out)
    at_inf = [f for f in forms if f.owner.inputs[0].owner.op.scalar_op.__class__.__name__ == "GE"]
    assert len(at_inf) == 1
    at = np.array([20.0, 1e3, 1e8, 1e15, 1e200])
    ref = _exact(lambda n: mp.loggamma(n + 1) - (n + mp.mpf(1) / 2) * mp.log(n) + n - mp.mpf(_LN_SQRT_2PI), at)
    written, got = pytensor.function([x], [out, at_inf[0]], mode="FAST_COMPILE")(at)
    assert np.max(np.abs(written / ref - 1)) > 1e-3
    np.testing.assert_allclose(got, ref, rtol=4e-15)


def test_no_series_at_infinity_where_the_spelling_does_not_lose_digits_there():
    out = pt.exp(-x) - 1  # exact at large |x|: no expansion at infinity, nor at a point
    assert [f.owner.inputs[0].owner.op for f in series_forms(out)] == [f.owner.inputs[0].owner.op
                                                                       for f in [series_form(out)] if f is not None]


@pytest.mark.parametrize("name, graph, exact, at", [
    ("log(x) - x + 1", lambda v: pt.log(v) - v + 1, lambda t: mp.log(t) - t + 1, [1 + 1e-9, 1 - 1e-5, 1.01]),
    ("stirlerr", _stirlerr,
     lambda t: mp.loggamma(t + 1) - (t + mp.mpf(1) / 2) * mp.log(t) + t - mp.mpf(_LN_SQRT_2PI), [30.0, 1e6, 1e12]),
])
def test_stabilize_and_the_measured_stage_take_a_series_away_from_0(name, graph, exact, at):
    from relations.compile.stabilize import MeasuredBudget, measured

    out = graph(x)
    s = relations.stabilize(out)
    budget = MeasuredBudget()
    pairs = measured([out], budget)
    assert s.changed and len(pairs) == 1 and budget.replaced == 1, name
    ref = _exact(exact, at)
    staged = pytensor.graph.replace.graph_replace([out], dict(pairs), strict=False)[0]
    for form in (s.graph, staged):
        got = pytensor.function([x], form, mode="FAST_COMPILE")(np.array(at))
        np.testing.assert_allclose(got, ref, rtol=4e-15, err_msg=name)


def test_an_integer_output_has_no_series_and_the_stage_goes_on():
    # a region of one float input whose output is an integer (a PyMC model's cast of a count): the stage's
    # screen once asked float limits of int64 and the whole rewrite failed at every compile
    from relations.compile.stabilize import MeasuredBudget, measured

    out = pt.cast(pt.exp(x), "int64") - 1
    assert cancellation_points(out) == [] and series_forms(out) == [] and series_form(out) is None
    budget = MeasuredBudget()
    assert measured([out], budget) == [] and budget.replaced == 0


def test_a_region_reading_an_entry_of_its_input_has_no_series_and_the_stage_goes_on():
    # a model's region reading x[2] (a value of one number per graph, not per point): evaluated at two points
    # stacked on the leading axis it indexed past them, and the stage's rewrite failed at every compile
    from relations.compile.stabilize import MeasuredBudget, measured

    out = pt.exp(x[2]) - 1.0 + x[0]
    assert cancellation_points(out) == [] and series_forms(out) == []
    budget = MeasuredBudget()
    measured([out], budget)  # no exception
