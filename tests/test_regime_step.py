"""The stabilizing pass's regime step (``relations/compile/stabilize.py``: ``regime_roots``, ``REGIME_ENTRIES``).

A regime form (a ``switch`` of forms each accurate on its side: ``log_mul_erfc_regimes``,
``log_erf_regimes``, ``log_erfc_regimes``, ``log_cosh_regimes``) often has as many unstable Ops as the
spelling, or more, so the count cannot choose it.  The pass takes one of a root's class where it computes
other floats than the form the count chose (a numpy screen, ``graph_bridge.wide_float.flat_gap``) and is
measured more accurate than it against mpmath.  Each repair is checked here against mpmath where the
spelling loses its value, at length 0 and 1, for type, trace and untouched input, and in the default
backend; what is not a regime root, and a regime form that computes the same floats, are left.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.wide_float import flat_gap
from helpers import snapshot
from relations.compile.stabilize import (
    REGIME_ENTRIES,
    pass_rules,
    regime_roots,
    regime_rules,
    region_roots,
    stabilized,
)

SQ2 = np.sqrt(2.0)


def _switch(v) -> bool:
    return type(getattr(getattr(v.owner, "op", None), "scalar_op", None)).__name__ == "Switch"


def _exact(f, pts, dps: int = 60) -> np.ndarray:
    with mp.workdps(dps):
        return np.array([float(f(mp.mpf(float(v)))) for v in pts])


def test_a_log_of_erf_or_erfc_outside_the_pass_roots_is_a_regime_root():
    x = pt.vector("x")
    g = pt.log1p(-pt.erfc(x))  # PyMC's HalfNormal log-CDF: no stabilizer reads it, no hazard
    assert region_roots([g]) == [] and regime_roots([g]) == [g]
    h = pt.log(0.5 * pt.erfc(-x / SQ2))  # a pass root (a log of a product holding an erfc): it stays one
    assert region_roots([h]) == [h] and regime_roots([h], region_roots([h])) == [h]
    # a branch of a switch is a regime someone chose (PyMC's normal_lcdf reads this one for z >= -1 only)
    lcdf = pt.switch(pt.lt(x, -1.0), pt.log(pt.erfcx(-x / SQ2) / 2) - pt.sqr(x) / 2, pt.log1p(-pt.erfc(x / SQ2) / 2))
    assert regime_roots([lcdf]) == []
    read_twice = pt.log1p(-pt.erfc(x / SQ2) / 2)
    assert regime_roots([pt.switch(pt.lt(x, -1.0), 0.0, read_twice) + read_twice]) == [read_twice]
    assert regime_roots([pt.log1p(pt.exp(x))]) == [] and regime_roots([pt.erf(x)]) == []
    assert regime_roots([pt.log(pt.erfc(x))]) == []  # local_log_erfc's own spelling: PyTensor's tests count its nodes
    outer = pt.log(-pt.log1p(-pt.erfc(x)))
    assert regime_roots([outer]) == [outer]  # the outermost log whose region reads the erfc


@pytest.mark.parametrize("spelling, exact, points", [
    (lambda x: pt.log1p(-pt.erfc(x)), lambda t: mp.log(mp.erf(t)) if t < 1 else mp.log1p(-mp.erfc(t)),
     [1e-300, 1e-10, 0.5, 1.0, 5.0, 10.0, 26.0]),
    (lambda x: pt.log1p(-pt.erfc(x / SQ2)),
     lambda t: mp.log(mp.erf(t / mp.sqrt(2))) if t < 1 else mp.log1p(-mp.erfc(t / mp.sqrt(2))),
     [1e-300, 1e-10, 1.0, 10.0, 30.0]),
    (lambda x: pt.log1p(-0.5 * pt.erfc(x / SQ2)), lambda t: mp.log(mp.ncdf(t)) if t <= 0 else mp.log1p(-mp.ncdf(-t)),
     [-40.0, -10.0, -1.0, 0.0, 1.0, 10.0]),
    (lambda x: pt.log(0.5 + 0.5 * pt.erf(x / SQ2)), lambda t: mp.log(mp.ncdf(t)) if t <= 0 else mp.log1p(-mp.ncdf(-t)),
     [-40.0, -10.0, 0.0, 1.0, 10.0, 30.0]),
], ids=["log1p(-erfc(x))", "log1p(-erfc(x/sqrt(2)))", "log1p(-0.5*erfc(x/sqrt(2)))", "log(0.5+0.5*erf(x/sqrt(2)))"])
def test_the_regime_step_repairs_where_the_spelling_loses_its_value(spelling, exact, points):
    x = pt.vector("x")
    g = spelling(x)
    before = snapshot(g)
    pairs = stabilized([g])
    assert snapshot(g) == before
    [(old, new)] = pairs
    assert old is g and new.type == g.type
    assert any(_switch(u) for u in pytensor.graph.traversal.ancestors([new]))
    v = np.array(points)
    want = _exact(exact, v, dps=80)
    got = pytensor.function([x], new, mode="FAST_COMPILE")(v)
    # (at x = 30, erfc's argument x / sqrt(2) rounds once, amplified 2 a**2 = 900 times: 1e-13)
    np.testing.assert_allclose(got, want, rtol=5e-13, atol=0)
    with np.errstate(all="ignore"):
        stock = pytensor.function([x], g, mode="FAST_COMPILE")(v)
    assert not np.allclose(stock, want, rtol=1e-6, atol=0)  # what the spelling gives somewhere
    f = pytensor.function([x], new, mode="FAST_COMPILE")
    assert f(np.zeros(0)).shape == (0,) and f(np.ones(1)).shape == (1,)
    assert all(getattr(u.tag, "trace", None) for u in pytensor.graph.traversal.ancestors([new]) if u.owner)


def test_the_default_backend_compiles_the_regime_forms():
    x = pt.vector("x")
    g = pt.log1p(-pt.erfc(x))
    v = np.array([1e-300, 0.5, 10.0])
    got = pytensor.function([x], g, mode=relations.mode())(v)
    np.testing.assert_allclose(got, _exact(lambda t: mp.log(mp.erf(t)) if t < 1 else mp.log1p(-mp.erfc(t)), v),
                               rtol=1e-13)


def test_float32_and_broadcastable_are_kept():
    x = pt.tensor("x", dtype="float32", shape=(1, None))
    g = pt.log1p(-pt.erfc(x))
    [(old, new)] = stabilized([g])
    assert new.type == g.type and new.type.broadcastable == (True, False)
    v = np.array([[1e-30, 0.5, 5.0]], dtype="float32")
    got = pytensor.function([x], new, mode="FAST_COMPILE")(v)
    want = _exact(lambda t: mp.log(mp.erf(t)), v.ravel()).reshape(v.shape)
    np.testing.assert_allclose(got, want, rtol=2e-6)


def test_a_regime_form_computing_the_same_floats_is_not_measured():
    x = pt.vector("x")
    # log(erf(x)) as written against its regime form: they differ above 1 (0 against -1.5e-45 at 10)
    form = pt.switch(pt.lt(x, 1.0), pt.log(pt.erf(pt.minimum(x, 1.0))), pt.log1p(-pt.erfc(pt.maximum(x, 1.0))))
    assert flat_gap(form, pt.log(pt.erf(x))) > 1.0
    # the same form against itself spelled with its branches swapped: the same floats everywhere
    swapped = pt.switch(pt.ge(x, 1.0), pt.log1p(-pt.erfc(pt.maximum(x, 1.0))), pt.log(pt.erf(pt.minimum(x, 1.0))))
    assert flat_gap(form, swapped) == 0.0
    assert flat_gap(form, pt.log(pt.erf(pt.vector("y")))) is None  # not over the same inputs
    assert flat_gap(pt.sum(x), pt.sum(x)) is None  # not an elementwise graph


def test_log_cosh_takes_its_regimes_by_the_count():
    x = pt.vector("x")
    g = pt.log(pt.cosh(x))
    [(old, new)] = stabilized([g])
    assert _switch(new)
    v = np.array([1e-10, -0.5, 1.0, 800.0, -1e300])
    got = pytensor.function([x], new, mode="FAST_COMPILE")(v)
    np.testing.assert_allclose(got, _exact(lambda t: mp.log(mp.cosh(t)), v, dps=80), rtol=1e-14)


@pytest.mark.parametrize("spell", [
    lambda x: pt.log((pt.exp(x) + pt.exp(-x)) / 2),
    lambda x: pt.log(0.5 * pt.exp(x) + 0.5 * pt.exp(-x)),
])
def test_log_cosh_spelled_with_exps_reaches_its_regime_form(spell):
    """``0.5 * (2 * cosh(x))`` is ``cosh(x)`` once the constants meet (``associate_mul_constants``, then
    ``constant_folding`` and ``mul_lft_identity``): the log reaches ``log_cosh_regimes``, which the regime step
    takes over the count's ``logaddexp(x, -x) - log(2)`` (which cancels at tiny ``x``) where measured better."""
    from pytensor.graph.rewriting.utils import rewrite_graph

    x = pt.vector("x")
    g = rewrite_graph(spell(x), include=("canonicalize",))
    before = snapshot(g)
    [(old, new)] = stabilized([g])
    assert old is g and snapshot(g) == before and new.type == g.type and _switch(new)
    v = np.array([-800.0, -40.0, -1e-10, 0.0, 1e-5, 3.0, 800.0])
    got = pytensor.function([x], new, mode="FAST_COMPILE")(v)
    np.testing.assert_allclose(got, _exact(lambda t: mp.log(mp.cosh(t)), v, dps=80), rtol=1e-14, atol=1e-300)
    for n in (0, 1):
        assert pytensor.function([x], new, mode="FAST_COMPILE")(np.full(n, 0.5)).shape == (n,)


@pytest.mark.parametrize(("spell", "exact"), [
    (lambda x, y: pt.log(pt.exp(x) + y), lambda a, b: mp.log(mp.exp(a) + b)),
    (lambda x, y: pt.log(y + pt.exp(x)), lambda a, b: mp.log(mp.exp(a) + b)),
    (lambda x, y: pt.log(y - pt.exp(x)), lambda a, b: mp.log(b - mp.exp(a))),
])
def test_an_exp_and_a_value_of_either_sign_under_a_log_take_a_regime_on_its_sign(spell, exact):
    """pytensor #2327: ``log(exp(x) + y)`` is ``logaddexp(x, log(y))`` where ``y > 0``, the spelling elsewhere;
    ``log(y - exp(x))`` is ``log(y) + log1mexp(x - log(y))``. Values against mpmath where the spelling
    overflows or loses its digits, and where ``y <= 0``; gradients finite wherever the spelling's are."""
    x, y = pt.vector("x"), pt.vector("y")
    g = spell(x, y)
    before = snapshot(g)
    [(old, new)] = stabilized([g])
    assert old is g and snapshot(g) == before and new.type == g.type and _switch(new)
    xs = np.array([800.0, -800.0, 3.0, 0.0, -40.0, 700.0, -1e-10, 1.0, 2.0])
    ys = np.array([2.0, 1e-300, 5.0, 0.5, 1.0, 1e305, 1.0, -0.5, -8.0])
    f = pytensor.function([x, y], [g, new], mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        stock, got = f(xs, ys)
    with mp.workdps(60):
        want = np.array([float(v.real) if not isinstance(v, mp.mpc) or v.imag == 0 else np.nan
                         for v in (exact(mp.mpf(a), mp.mpf(b)) for a, b in zip(xs, ys, strict=True))])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert not np.allclose(stock, want, rtol=1e-8, atol=0, equal_nan=True)  # the spelling overflows or loses digits
    grad = pytensor.function([x, y], pt.grad(pt.sum(new), [x, y]), mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        g_new = grad(xs, ys)
        g_old = pytensor.function([x, y], pt.grad(pt.sum(g), [x, y]), mode="FAST_COMPILE")(xs, ys)
    for a, b in zip(g_new, g_old, strict=True):
        assert np.isfinite(a[np.isfinite(b)]).all()


@pytest.mark.parametrize("spell", [lambda x: pt.log(x + 1) - pt.log(x), lambda x: pt.log((x + 1) / x)])
def test_herbie_2log_is_log1p_of_the_reciprocal_where_x_is_positive(spell):
    """``log(x + 1) - log(x)`` cancels at large ``x`` (0 from 1e16); ``log1p(1 / x)`` does not. The sign of ``x``
    is unknown, so the identity is a regime (``log_shift_diff_regimes``, ``log_shift_ratio_regimes``): the
    spelling, itself, where ``x <= 0``. Values against mpmath; gradients finite where the spelling's are."""
    from pytensor.graph.rewriting.utils import rewrite_graph

    x = pt.vector("x")
    g = rewrite_graph(spell(x), include=("canonicalize",))
    before = snapshot(g)
    [(old, new)] = stabilized([g])
    assert old is g and snapshot(g) == before and new.type == g.type and _switch(new)
    v = np.array([1.5, 1e3, 1e10, 1e20, 1e300, 1e-300, -0.5, -2.0, 0.0])
    f = pytensor.function([x], [g, new], mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        stock, got = f(v)
    want = [float(mp.log1p(1 / mp.mpf(t))) if t > 0 else stock[k] for k, t in enumerate(v)]
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert stock[3] == 0.0  # the spelling at 1e20
    with np.errstate(all="ignore"):
        g_new = pytensor.function([x], pt.grad(pt.sum(new), x), mode="FAST_COMPILE")(v)
        g_old = pytensor.function([x], pt.grad(pt.sum(g), x), mode="FAST_COMPILE")(v)
    assert np.isfinite(g_new[np.isfinite(g_old)]).all()


def test_the_log_of_a_power_is_the_exponent_times_the_log_where_the_base_is_positive():
    """PyMC's ``logpow``: ``log(x**m)`` overflows where ``x**m`` does (``x = 1e200``, ``m = 2.5``); ``m * log(x)``
    does not, for ``x > 0`` only (``log_pow_regimes``: the spelling elsewhere, ``(-2)**2`` is 4). The screen
    that says the forms compute other floats reaches ``1e300`` (``GAP_GRID``): ``x**3`` overflows above 5e102."""
    x, m = pt.vector("x"), pt.vector("m")
    for g, ms in ((pt.log(x**m), np.array([3.0, 2.0, 100.0, 1.0, 2.5, 2.0, 3.0, 0.5])),
                  (pt.log(x ** pt.constant(np.int8(3))), None)):
        ins = [x, m] if ms is not None else [x]
        before = snapshot(g)
        [(old, new)] = stabilized([g])
        assert old is g and snapshot(g) == before and new.type == g.type and _switch(new)
        xs = np.array([1e-200, 1e-5, 0.5, 3.0, 1e200, -2.0, -2.0, -4.0])
        ms_ = ms if ms is not None else np.full(len(xs), 3.0)
        vals = [xs, ms_] if ms is not None else [xs]
        f = pytensor.function(ins, [g, new], mode="FAST_COMPILE")
        with np.errstate(all="ignore"):
            stock, got = f(*vals)
        with mp.workdps(60):
            powers = [mp.power(mp.mpf(a), mp.mpf(b)) for a, b in zip(xs, ms_, strict=True)]
            want = [float(mp.log(q)) if isinstance(q, mp.mpf) and q > 0 else np.nan for q in powers]
        np.testing.assert_allclose(got, want, rtol=1e-14)
        assert not np.isfinite(stock[4])  # the spelling at 1e200
        with np.errstate(all="ignore"):
            g_new = pytensor.function(ins, pt.grad(pt.sum(new), x), mode="FAST_COMPILE")(*vals)
            g_old = pytensor.function(ins, pt.grad(pt.sum(g), x), mode="FAST_COMPILE")(*vals)
        assert np.isfinite(g_new[np.isfinite(g_old)]).all()


def test_the_log_of_a_complemented_power_is_a_log1mexp_where_the_power_is_near_one():
    """PyMC's Geometric log-CDF written through its CDF, ``log(1 - (1 - p)**k)``: ``(1 - p)**k`` rounds to 1 for
    ``p = 1e-20`` (``-inf``, where the value is ``log(k p)``); ``log1m_pow_regimes`` takes ``log1mexp(k *
    log1p(-p))`` where the power is above 1/2, ``log1p(-(1 - p)**k)`` below (``exp`` of a large ``k log1p(-p)``
    would amplify its rounding), and the spelling's NaN where ``(1 - p)**k > 1``."""
    k, q = pt.vector("k"), pt.vector("p")
    g = pt.log(1 - (1 - q) ** k)
    before = snapshot(g)
    [(old, new)] = stabilized([g])
    assert old is g and snapshot(g) == before and new.type == g.type and _switch(new)
    ks = np.array([1.0, 5.0, 100.0, 1e6, 3.0, -30.0, 2.0, 2.0])
    ps = np.array([0.5, 1e-10, 1e-20, 1e-3, 0.999, -2.0, 3.0, -0.5])
    f = pytensor.function([k, q], [g, new], mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        stock, got = f(ks, ps)
    with mp.workdps(80):
        want = []
        for a, b in zip(ks, ps, strict=True):
            w = 1 - mp.power(1 - mp.mpf(b), mp.mpf(a))
            want.append(float(mp.log(w)) if w > 0 else np.nan)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert np.isneginf(stock[2])  # the spelling at p = 1e-20
    with np.errstate(all="ignore"):
        g_new = pytensor.function([k, q], pt.grad(pt.sum(new), q), mode="FAST_COMPILE")(ks, ps)
        g_old = pytensor.function([k, q], pt.grad(pt.sum(g), q), mode="FAST_COMPILE")(ks, ps)
    assert np.isfinite(g_new[np.isfinite(g_old)]).all()
    for n in (0, 1):
        assert f(np.ones(n), np.full(n, 0.5))[1].shape == (n,)


def _pow_want(f, *cols, dps: int = 80) -> list[float]:
    with mp.workdps(dps):
        out = [f(*(mp.mpf(float(c)) for c in row)) for row in zip(*cols, strict=True)]
        return [float(w) if isinstance(w, mp.mpf) else np.nan for w in out]


@pytest.mark.parametrize("spell, exact", [
    (lambda x, n: (1 + x / n) ** n, lambda r, n: mp.power(1 + r / n, n)),  # compound interest
    (lambda x, n: (1 - x) ** n, lambda q, n: mp.power(1 - q, n)),  # the chance of no success in n trials
    (lambda x, n: 1 - (1 - x) ** n, lambda q, n: 1 - mp.power(1 - q, n)),  # ... of at least one
    (lambda x, n: (1 + x) ** n - 1, lambda u, n: mp.power(1 + u, n) - 1),
], ids=["compound", "none", "at_least_one", "powm1"])
def test_a_power_of_one_plus_a_small_quantity_keeps_the_digits_the_sum_rounds(spell, exact):
    """``1 + x`` rounds ``x`` to an ulp of 1, and an exponent as large as ``1 / x`` shows it: ``(1 + 1e-12) **
    1e12`` is ``e`` to 4 digits, ``1 - (1 - 1e-17) ** 10`` is 0.  ``pow1p_regimes`` (and its differences from
    one, ``expm1``) take ``exp(n * log1p(x))`` where ``|x| < 1/2`` and the spelling elsewhere (the power of a
    base ``1 + x`` exact to the ulp, beyond, is the more accurate; a negative base with an integer exponent is
    real)."""
    x, n = pt.vector("x"), pt.vector("n")
    g = spell(x, n)
    before = snapshot(g)
    [(old, new)] = stabilized([g])
    assert old is g and snapshot(g) == before and new.type == g.type and _switch(new)
    xs = np.array([1e-12, -1e-12, 1e-17, 3e-5, 0.3, -0.4, 2.0, 1e5, -3.0, 1e-8, 1.0])
    ns = np.array([1e12, 1e12, 10.0, 7e4, 3.0, 10.5, 0.5, 2.5, 3.0, 1e-3, 1e15])
    f = pytensor.function([x, n], [g, new], mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        stock, got = f(xs, ns)
    want = _pow_want(exact, xs, ns)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert not np.allclose(stock, want, rtol=1e-9, atol=0, equal_nan=True)  # the spelling loses them
    with np.errstate(all="ignore"):  # the branch not taken reads log1p(0): no NaN where the spelling has none
        g_new = pytensor.function([x, n], pt.grad(pt.sum(new), x), mode="FAST_COMPILE")(xs, ns)
        g_old = pytensor.function([x, n], pt.grad(pt.sum(g), x), mode="FAST_COMPILE")(xs, ns)
    assert np.isfinite(g_new[np.isfinite(g_old)]).all()
    for k in (0, 1):
        assert f(np.full(k, 0.5), np.full(k, 2.0))[1].shape == (k,)


def test_a_power_of_one_plus_a_quantity_in_the_default_mode_and_in_float32():
    """``relations.mode()`` (the default backend) takes the regime; float32 keeps float32 and is accurate to its
    tolerance; a constant exponent (``(1 + x) ** 2``: an ulp or two) and a base that is not one plus a term are
    no roots."""
    x, n = pt.vector("x"), pt.vector("n")
    xs, ns = np.array([1e-12, 0.3, 1e5]), np.array([1e12, 3.0, 2.5])
    f = pytensor.function([x, n], (1 + x) ** n, mode=relations.mode())
    np.testing.assert_allclose(f(xs, ns), _pow_want(lambda u, b: mp.power(1 + u, b), xs, ns), rtol=1e-14)
    x32, n32 = pt.vector("x", dtype="float32"), pt.vector("n", dtype="float32")
    g32 = (1 + x32) ** n32
    [(_, new32)] = stabilized([g32])
    assert new32.type == g32.type
    xs32, ns32 = np.array([1e-5, -1e-4, 0.3], dtype="float32"), np.array([1e5, 3e4, 3.0], dtype="float32")
    got = pytensor.function([x32, n32], new32, mode="FAST_COMPILE")(xs32, ns32)
    np.testing.assert_allclose(got, _pow_want(lambda u, b: mp.power(1 + u, b), xs32, ns32), rtol=1e-6)
    for g in ((1 + x) ** 2, (1 + x) ** 0.5, (2 + x) ** n, (x * n) ** n):
        assert regime_roots([g]) == [] and stabilized([g]) == []


@pytest.mark.parametrize("spell", [
    lambda x: pt.log(pt.erfc(-x / SQ2)) - pt.log(2.0),
    lambda x: pt.log(pt.erfc(-x / SQ2)) + pt.log(0.5),
    lambda x: pt.log(0.5) + pt.log(pt.erfc(-x / SQ2)),
], ids=["minus_log2", "plus_log_half", "constant_first"])
def test_a_constant_added_to_the_log_of_erfc_is_a_factor_under_it(spell):
    """A hand-written normal log-CDF adds ``-log(2)`` to ``log(erfc(-x / sqrt(2)))``: at ``x = 10`` the log is
    ``log(2)`` to 23 digits and the sum is 0 in float64, where the value is ``-7.6e-24``.  The regime root is
    the sum (``log_add_constant``: ``log(0.5 * erfc(...))``, whose reflection keeps it); the form is measured
    with its constants folded, as the compile folds them (``exp(-log(2))`` is 0.5 exactly)."""
    x = pt.vector("x")
    g = spell(x)
    before = snapshot(g)
    xs = np.array([-40.0, -10.0, -1.0, 0.0, 1.0, 5.0, 10.0, 30.0])
    f = pytensor.function([x], g, mode=relations.mode())
    stock = pytensor.function([x], g, mode="FAST_RUN")(xs)
    want = _exact(lambda v: mp.log(mp.ncdf(v)), xs, dps=250)  # (1 - 5e-198 at x = 30)
    np.testing.assert_allclose(f(xs), want, rtol=1e-12)  # erfc's condition 2z**2 + 1 on -x / sqrt(2)'s rounding
    assert not np.isclose(stock[-2], want[-2], rtol=1e-3, atol=0)  # the spelling cancels at x = 10 (-7.6e-24)
    assert snapshot(g) == before and f.maker.fgraph.outputs[0].type.dtype == g.type.dtype
    # the gradient is taken of the spelling before the pass sees it: as PyTensor's where that is finite
    grad = pytensor.function([x], pt.grad(pt.sum(g), x), mode=relations.mode())(xs)
    stock_grad = pytensor.function([x], pt.grad(pt.sum(g), x), mode="FAST_RUN")(xs)
    finite = np.isfinite(stock_grad)
    assert finite[1:].all()
    np.testing.assert_allclose(grad[finite], _exact(lambda v: mp.npdf(v) / mp.ncdf(v), xs)[finite], rtol=1e-8)
    assert f(np.zeros(0)).shape == (0,) and f(np.ones(1)).shape == (1,)


@pytest.mark.parametrize("spell", [
    lambda lo, hi: pt.log(0.5 * pt.erfc(-hi / SQ2) - 0.5 * pt.erfc(-lo / SQ2)),
    lambda lo, hi: pt.log(0.5) + pt.log(pt.erf(hi / SQ2) - pt.erf(lo / SQ2)),
], ids=["erfc", "erf"])
def test_the_log_of_a_normal_probability_between_two_bounds_takes_the_tails_regimes(spell):
    """``log(Phi(hi) - Phi(lo))`` (a truncated normal's normalizer): both bounds in one tail, the difference of
    two values near 1 (or near 0 through ``erfc``) is 0 in float64 (``-inf``); ``log_erf_diff_regimes`` takes
    the tails' ``erfcx`` form there, the spelling elsewhere.  The regime is one term below the root's class
    (``log(0.5) + log(erf(a) - erf(b))``)."""
    lo, hi = pt.vector("lo"), pt.vector("hi")
    g = spell(lo, hi)
    before = snapshot(g)
    los = np.array([8.0, 6.0, -9.0, -40.0, -1.0, 0.5, 30.0, 2.0])
    his = np.array([9.0, 6.5, -8.0, -39.0, 1.0, 0.6, 31.0, 1.0])
    f = pytensor.function([lo, hi], g, mode=relations.mode())
    with np.errstate(all="ignore"):
        stock = pytensor.function([lo, hi], g, mode="FAST_RUN")(los, his)
        got = f(los, his)
    with mp.workdps(60):
        # (the upper tails for a > 0: 1 - 5e-198 is 1 at 60 digits)
        want = [np.nan if b <= a else float(mp.log(mp.ncdf(-a) - mp.ncdf(-b)) if a > 0 else mp.log(mp.ncdf(b) - mp.ncdf(a)))
                for a, b in zip(los, his, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-11)  # erfcx's condition on the rounded argument x / sqrt(2)
    assert not np.isfinite(stock[[3, 6]]).any()  # the spelling's -inf in both tails
    assert not np.isclose(stock[0], want[0], rtol=1e-6)  # and digits lost at (8, 9)
    assert snapshot(g) == before and f.maker.fgraph.outputs[0].type == g.type
    assert f(np.zeros(0), np.zeros(0)).shape == (0,) and f(np.ones(1), np.full(1, 2.0)).shape == (1,)


def test_a_regime_root_with_a_constant_added_is_the_sum():
    x = pt.vector("x")
    inner = pt.log1p(-pt.erfc(x))
    g = inner + pt.constant(np.float64(1.5))
    assert regime_roots([g]) == [g]  # the constant is a factor under the log (log_add_constant)
    assert regime_roots([inner + x]) == [inner]  # not a constant: the log stays the root
    both = inner + 1.5
    assert regime_roots([both + inner]) == [inner]  # the log read twice: it stays the root


def test_an_elementwise_op_from_graph_is_measured_as_elementwise():
    """PyTensor 3.3's ``logaddexp`` is an ``OpFromGraph`` over an elementwise graph: a form reading it is
    elementwise in its inputs, so a regime form can be measured against it; one over a sum is not."""
    from pytensor.compile.builders import OpFromGraph

    from graph_bridge.nodes import elementwise_in_inputs

    a, b = pt.vector("a"), pt.vector("b")
    x = pt.vector("x")
    lae = OpFromGraph([a, b], [pt.log(pt.exp(a) + pt.exp(b))])
    total = OpFromGraph([a], [pt.sum(a)])
    assert elementwise_in_inputs([lae(x, -x) - 1.0])
    assert not elementwise_in_inputs([total(x) + x])


def test_the_regime_rules_are_the_pass_rules_and_the_entries():
    rules = regime_rules()
    assert rules[: len(pass_rules())] == pass_rules()
    assert [r.__name__ for r in rules[len(pass_rules()):]] == list(REGIME_ENTRIES)


#: The normal log-CDF spellings of the corpus written with ``pt.sqrt(2.0)``: float32's ``sqrt(2)`` leaves them
#: 1.7e-6 off at x = 10 in any form, so the default mode leaves them inaccurate by the corpus's tolerance
SQRT2_SPELLINGS = [
    "log(0.5*erfc(-x/sqrt(2)))", "log(erfc(-x/sqrt(2))/2)", "log(0.5+0.5*erf(x/sqrt(2)))",
    "log1p(-0.5*erfc(x/sqrt(2)))", "log((1+erf(x/sqrt(2)))/2)", "log(0.5*erfc(-zvalue(x,3,2)/sqrt(2)))",
    "log(0.5*erfc(x/sqrt(2)))", "log(0.5*erfc(-x/sqrt(2))*ones((3,1)))", "log1p(-erfc(x/sqrt(2)))",
    # pt.log(2.0) is float32's log(2) too; the log1p(-exp) is a log1mexp the pass takes
    "x+log1p(-exp(-2*x))-log(2)",
]


@pytest.mark.parametrize("name", SQRT2_SPELLINGS)
def test_with_the_precision_pass_the_sqrt2_log_cdf_spellings_are_accurate(name):
    from numerics_corpus import CORPUS, measure
    from relations.compile.compile_modes import WITH_PRECISION

    [s] = [c for c in CORPUS if c.name == name]
    assert not measure(s)[0]  # FAST_RUN
    ok, err = measure(s, relations.mode(*WITH_PRECISION))
    assert ok, (name, err)
