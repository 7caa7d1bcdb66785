"""Exact values of graphs (``graph_bridge.exact``) and Herbie's bits of error (``graph_bridge.float_error``)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from pytensor.tensor.elemwise import Elemwise

from graph_bridge.exact import NotExact, exact_values, round_to
from graph_bridge.float_error import bits_of_error, max_bits, ordinals, sample_floats
from helpers import snapshot

x, y = pt.dvector("x"), pt.dvector("y")


def _one(g, values, **kw):
    (v,), (ok,) = exact_values([g], {x: np.asarray(values, dtype="float64")}, **kw)
    return v, ok


def test_cancellations_are_computed_to_the_last_digit():
    v, ok = _one(pt.log1p(x) - x, [1e-20, 1e-5])
    assert ok.all()
    assert float(v[0]) == pytest.approx(-5e-41, rel=1e-15)
    assert float(v[1]) == pytest.approx(float(mp.log1p(mp.mpf("1e-5")) - mp.mpf("1e-5")), rel=1e-15)
    v, ok = _one(pt.exp(x) - 1, [1e-300, 0.0, -3.0])  # 1e-300 needs about 1,000 bits
    assert ok.all() and float(v[0]) == 1e-300 and float(v[1]) == 0.0
    assert float(v[2]) == pytest.approx(math.expm1(-3.0), rel=1e-15)


def test_a_power_of_an_exact_base_near_one_keeps_its_digits():
    """``1 + u`` is exact (1,000 bits at ``u = -4e-299``); a huge exponent reads every one of them: mpmath's
    ``abs`` rounds to the working precision, where ``|1 - 4e-299|`` is 1 and the power 1, not ``e**40``."""
    y = pt.vector("y")
    values = {x: np.array([-40.0, 0.5]), y: np.array([1e-300, 2.0])}
    (v, av), _ = exact_values([(1 + x * y) ** (-1 / y), pt.abs(1 + x * y)], values)
    assert float(v[0]) == pytest.approx(math.exp(40.0), rel=1e-15)
    assert float(v[1]) == pytest.approx(math.sqrt(0.5), rel=1e-15)
    assert float(1 - av[0]) == pytest.approx(4e-299, rel=1e-12)  # the absolute value of the exact sum, unrounded


def test_a_power_reads_its_rounded_base_times_its_exponent():
    """``(1 + x / y) ** y`` at ``x / y = 2.2e-70``, ``y = 1.5e86``: the quotient is rounded, so ``1 + x / y`` is 1 at
    128 bits and the power 1, where it is ``exp(3.2e16)`` (beyond float64: inf).  The power's condition on its
    base, ``|y|``, raises the precision until the base keeps its digits."""
    y = pt.vector("y")
    values = {x: np.array([3.196599712101136e16, 1e-3]), y: np.array([1.4808315493103176e86, 1e3])}
    (v,), (ok,) = exact_values([(1 + x / y) ** y], values, max_bits=1024)
    assert ok.all()
    assert mp.isinf(mp.mpf(float(v[0]))) or v[0] > mp.mpf(10) ** 300  # exp(3.2e16), not 1
    assert float(v[1]) == pytest.approx(float(mp.power(1 + mp.mpf(1e-3) / 1000, 1000)), rel=1e-15)


def test_a_cancellation_beyond_the_precision_bound_is_unknown_not_wrong():
    v, ok = _one(pt.exp(x) - 1, [1e-300, 0.5], max_bits=256)
    assert not ok[0] and mp.isnan(v[0])  # 256 bits round exp(1e-300) to 1: the 0 it gives is not returned
    assert ok[1] and float(v[1]) == pytest.approx(math.expm1(0.5), rel=1e-15)


def test_a_trig_function_at_a_rounded_zero_is_unknown_not_a_tiny_value():
    # arcsin(1) is pi/2 rounded at the working precision: cos of it is 1e-40 at 128 bits, 1e-80 at 256,
    # never the 0 it is; a rounded operand near sin's, cos's or tan's zeros loses every bit
    v, ok = _one(pt.cos(pt.arcsin(x)), [1.0, 0.5], max_bits=512)
    assert not ok[0] and mp.isnan(v[0])
    assert ok[1] and float(v[1]) == pytest.approx(math.sqrt(0.75), rel=1e-15)
    v, ok = _one(pt.sin(pt.arctan(x)), [1e300])  # no zero near: sin(pi/2 - 1e-300) is 1 to every digit
    assert ok[0] and float(v[0]) == 1.0


def test_overflow_of_floats_is_no_overflow_of_exact_values():
    v, _ = _one(pt.log(pt.exp(x)), [800.0, -800.0])
    assert [float(a) for a in v] == [800.0, -800.0]
    v, _ = _one(pt.log(1 + pt.exp(x)), [800.0])
    assert float(v[0]) == 800.0


def test_undefined_values_and_poles():
    v, _ = _one(pt.log(x), [-1.0, 0.0])
    assert mp.isnan(v[0]) and v[1] == -mp.inf
    v, _ = _one(1 / x, [0.0, 2.0])
    assert mp.isnan(v[0]) and float(v[1]) == 0.5  # a pole: its sign is the zero's, which mpmath does not carry
    v, _ = _one(-1 / (x * (x + 1)), [-1.0])  # +inf in IEEE (x + 1 is +0): not judged -inf
    assert mp.isnan(v[0])
    v, _ = _one(pt.sqrt(x), [-4.0, 4.0])
    assert mp.isnan(v[0]) and float(v[1]) == 2.0


def test_polygammas_have_their_values_and_nan_at_their_poles():
    # the diagonal series' coefficients of gammaln are polygammas; mpmath's polygamma(3, -1e300) never returns
    v, _ = _one(pt.polygamma(3, x), [-1e300, 0.0, -2.0, 2.5])
    assert all(mp.isnan(u) for u in v[:3])
    assert abs(float(v[3]) / float(mp.polygamma(3, 2.5)) - 1) < 1e-15
    v, _ = _one(pt.tri_gamma(x), [-3.0, 0.5])
    assert mp.isnan(v[0]) and abs(float(v[1]) / (math.pi**2 / 2) - 1) < 1e-15

def test_structure_reductions_switches_and_casts():
    g = [pt.sum(pt.exp(x)), pt.switch(x > 0, x, 2 * x), x[1:] * 2, pt.expand_dims(x, 0) + pt.zeros((2, 1)),
         pt.cast(x, "float32"), pt.max(x), pt.alloc(x[0], 2)]
    vals, oks = exact_values(g, {x: np.array([1.0, -2.0, 3.0])})
    assert all(ok.all() for ok in oks)
    assert float(vals[0]) == pytest.approx(math.exp(1) + math.exp(-2) + math.exp(3), rel=1e-15)
    assert [float(a) for a in vals[1]] == [1.0, -4.0, 3.0]
    assert [float(a) for a in vals[2]] == [-4.0, 6.0]
    assert vals[3].shape == (2, 3)
    assert round_to(vals[4], "float32").dtype == np.float32
    assert float(vals[5]) == 3.0 and vals[6].shape == (2,)


def test_softmaxes_stacks_and_joins_keep_every_digit():
    """A softmax, log-softmax and log-sum-exp (an OpFromGraph on PyTensor 3.3) go through their definitions;
    a float MakeVector and a Join (whose perform casts to float) keep the mpmath numbers."""
    from pytensor.tensor.special import log_softmax, softmax

    m = pt.dmatrix("m")
    row = np.array([[0.0, 1e-20, 800.0]])
    g = [softmax(m, axis=-1), log_softmax(m, axis=-1), pt.logsumexp(m, axis=1),
         pt.stack([m[0, 0], pt.exp(m[0, 1])]) - 1, pt.concatenate([m, pt.exp(m)], axis=0) - 1]
    vals, oks = exact_values(g, {m: row})
    assert all(ok.all() for ok in oks)
    e = [mp.exp(mp.mpf(v) - 800) for v in row[0]]
    assert float(vals[0][0, 1]) == pytest.approx(float(e[1] / mp.fsum(e)), rel=1e-15)  # 2e-348 underflows
    assert vals[0][0, 1] > 0 and vals[0][0, 0] < vals[0][0, 1]
    assert float(vals[1][0, 0]) == pytest.approx(-800.0, rel=1e-15) and vals[1][0, 2] < 0
    assert float(vals[2][0]) == pytest.approx(800.0, rel=1e-15)
    assert float(vals[3][1]) == pytest.approx(1e-20, rel=1e-15)  # exp(1e-20) - 1: no digit rounded away
    assert vals[4].shape == (2, 3) and float(vals[4][1, 1]) == pytest.approx(1e-20, rel=1e-15)


def test_a_vectorized_log_sum_exp_and_an_erfc_beyond_exact_evaluation():
    """A batch of log-sum-exps (a Blockwise of an OpFromGraph on PyTensor 3.3) through its core graph;
    ``erfc`` of an operand whose square is beyond ``2**2**16`` is unknown, never computed for minutes."""
    from pytensor.graph.replace import vectorize_graph

    m, mb = pt.dmatrix("m"), pt.tensor3("mb")
    [g] = vectorize_graph([m - pt.logsumexp(m, axis=1, keepdims=True)], replace={m: mb})
    (v,), (ok,) = exact_values([g], {mb: np.array([[[0.0, 800.0]], [[1.0, 1.0]]])}, rows=True)
    assert ok.all() and float(v[0, 0, 0]) == pytest.approx(-800.0, rel=1e-15)
    assert float(v[1, 0, 0]) == pytest.approx(-math.log(2), rel=1e-15)
    v, ok = _one(pt.erfc(pt.exp(-x / 2)), [-1e5, 2.0])
    assert not ok[0] and mp.isnan(v[0]) and ok[1]


def test_rows_are_independent_only_through_elemwise_nodes_of_one_shape():
    from graph_bridge.exact import independent_rows, values_at

    assert independent_rows([x, y], [pt.exp(x) - y * 2], [(3,), (3,)])
    assert not independent_rows([x, y], [pt.exp(x) - y], [(3,), (4,)])
    assert not independent_rows([x], [pt.sum(pt.exp(x))], [(3,)])
    assert not independent_rows([x], [x + pt.constant(np.arange(3.0))], [(3,)])  # a constant row per point
    assert not independent_rows([x], [pt.expand_dims(x, 0) + pt.zeros((2, 1))], [(3,)])
    [v], [lost] = values_at([pt.exp(x) - 1], {x: np.array([1e-300])}, 128)
    assert v[0] == 0 and lost[0] == math.inf  # what 128 bits give, and that every digit is lost


def test_length_zero_and_one_inputs():
    for n in (0, 1):
        v, ok = _one(pt.exp(x) - 1, np.full(n, 0.25))
        assert v.shape == (n,) and ok.shape == (n,)


def test_rows_are_evaluated_again_only_where_unsettled_and_agree():
    pts = np.array([[1e-300], [0.5], [1e-20]])
    xb = pt.dmatrix("xb")
    g = pt.exp(xb) - 1
    (a,), _ = exact_values([g], {xb: pts}, rows=True)
    (b,), _ = exact_values([g], {xb: pts})
    assert [float(u) for u in a.ravel()] == [float(u) for u in b.ravel()]


def test_an_op_without_an_exact_meaning_is_named():
    jv = Elemwise(ps.Jv(ps.upgrade_to_float, name="jv"))
    with pytest.raises(NotExact, match="Jv"):
        exact_values([jv(x, x)], {x: np.array([1.0])})
    with pytest.raises(ValueError, match="no value given"):
        exact_values([x + y], {x: np.array([1.0])})


def test_the_graph_is_not_changed():
    g = pt.log1p(x) - x
    before = snapshot(g)
    exact_values([g], {x: np.array([1e-3])})
    assert snapshot(g) == before


def test_bits_of_error_as_herbie_counts_them():
    one = np.array([1.0])
    assert bits_of_error(one, one)[0] == 0.0
    assert bits_of_error(np.nextafter(one, 2), one)[0] == 1.0
    assert bits_of_error(np.array([np.nan]), one)[0] == 64.0
    assert bits_of_error(np.array([np.nan]), np.array([np.nan]))[0] == 0.0
    assert 50 < bits_of_error(np.array([np.inf]), np.array([1e300]))[0] < 64
    assert bits_of_error(np.array([-1.0]), one)[0] == pytest.approx(63.0, abs=0.01)
    f32 = np.array([1.0], dtype="float32")
    assert bits_of_error(np.array([np.nan], dtype="float32"), f32)[0] == 32.0 == max_bits("float32")
    with pytest.raises(ValueError, match="round it first"):
        bits_of_error(one, f32)


def test_ordinals_are_the_float_line():
    vals = np.array([-np.inf, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, np.inf])
    o = ordinals(vals)
    assert all(o[k] <= o[k + 1] for k in range(len(o) - 1))
    assert o[3] == o[4] == 0 and o[5] == 1 and o[2] == -1


def test_samples_cover_every_binade():
    s = sample_floats("float64", 2000, np.random.default_rng(0))
    assert np.isfinite(s).all() and s.dtype == np.float64
    mags = np.abs(s[s != 0])
    assert mags.min() < 1e-200 and mags.max() > 1e200 and (s < 0).any() and (s > 0).any()
    s32 = sample_floats("float32", (10, 3), np.random.default_rng(1))
    assert s32.shape == (10, 3) and s32.dtype == np.float32
    with pytest.raises(ValueError, match="dtype"):
        sample_floats("int64", 3, np.random.default_rng(0))


def test_bits_of_error_of_zero_d_values_far_apart():
    """0-d values of opposite signs: their ordinals' difference exceeds int64 and numpy returned it as a
    Python int (``'int' object has no attribute 'astype'``, relations.stabilize at 10x limits)."""
    bits = bits_of_error(np.array(-1e300), np.array(1e300))
    assert bits.shape == () and 63.0 < float(bits) <= 64.0
    assert float(bits_of_error(np.array(2.0), np.array(2.0))) == 0.0
    from relations.saturation.accuracy import _agree

    assert not _agree(np.array(-1e300), np.array(1e300)) and _agree(np.array(-0.0), np.array(0.0))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_bits_of_error_is_the_distance_on_the_float_line(dtype):
    """The unsigned-integer distance ``bits_of_error`` computes is ``|ordinal(a) - ordinal(b)|`` (Python
    integers): sampled floats, their neighbours, and every pair of zeros, infinities, extremes and NaN."""
    rng = np.random.default_rng(3)
    info = np.finfo(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, info.max, -info.max, info.smallest_subnormal],
                       dtype=dtype)
    a = sample_floats(dtype, 3000, rng)
    b = np.concatenate([sample_floats(dtype, 2900, rng), np.nextafter(a[:100], np.asarray(np.inf, dtype))])
    a = np.concatenate([a, np.repeat(special, special.size)])
    b = np.concatenate([b, np.tile(special, special.size)]).astype(dtype)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    gap = np.abs(ordinals(np.where(nan_a, 0, a).astype(dtype)) - ordinals(np.where(nan_b, 0, b).astype(dtype)))
    want = np.minimum(np.log2(1.0 + gap.astype(float)), max_bits(dtype))
    want = np.where(nan_a | nan_b, np.where(nan_a & nan_b, 0.0, max_bits(dtype)), want)
    got = bits_of_error(a, b)
    assert got.shape == a.shape and np.array_equal(got, want)
    assert float(bits_of_error(np.asarray(1.0, dtype), np.asarray(-1.0, dtype))) == pytest.approx(
        max_bits(dtype) - 1, abs=0.1)


def test_samples_within_a_range_are_uniform_over_its_floats():
    rng = np.random.default_rng(2)
    s = sample_floats("float64", 2000, rng, within=(0.0, np.inf))
    assert s.dtype == np.float64 and np.isfinite(s).all() and (s >= 0).all()
    assert s.min() < 1e-200 and s.max() > 1e200  # every binade of the positives, not uniform on the line
    s32 = sample_floats("float32", (50, 2), rng, within=(-5.0, -1e-3))
    assert s32.shape == (50, 2) and s32.dtype == np.float32 and ((s32 >= -5.0) & (s32 <= -1e-3)).all()
    assert (sample_floats("float64", 3, rng, within=(3.0, 3.0)) == 3.0).all()
    with pytest.raises(ValueError, match="no float lies"):
        sample_floats("float64", 3, rng, within=(2.0, 1.0))


def test_the_inverse_error_functions_keep_every_digit_near_their_poles():
    # erfinv(x - 1) at x = 2e-41: x - 1 needs 190 bits, and mpmath's erfinv of it, at 128, dropped 40 more;
    # erfcinv(x) took 1 - x at the working precision (erfcinv(1.5e-35) came out -8.80089088 for -8.80089399)
    at = [2.0786822130186834e-41, 1.46399737e-35, 1e-300, 0.5, 1.0, 0.0, 3.0]
    with mp.workprec(400):
        ref = [-mp.erfinv(1 - mp.mpf(v)) if 0 < v < 2 else None for v in at]
    low, _ = _one(pt.erfinv(x - 1), at)
    comp, _ = _one(-pt.erfcinv(x), at)
    refl, _ = _one(pt.erfcinv(2 - x), at)
    for k, r in enumerate(ref):
        for v in (low[k], comp[k], refl[k]):
            if r is None:
                assert mp.isnan(v) or mp.isinf(v)
            else:
                assert abs(v - r) <= abs(r) * mp.mpf(2) ** -60, (at[k], v, r)
    assert mp.isinf(low[5]) and low[5] < 0 and mp.isnan(low[6])


def test_a_blockwise_whose_core_reads_a_scalar_is_evaluated_exactly():
    # a Blockwise of Alloc (PyTensor 3.0's rewrites leave one in a vectorized power): its core Op's perform reads
    # each batch entry of a scalar input as a 0-d array, not an mpf, whose shape it checks
    from pytensor.tensor.basic import Alloc
    from pytensor.tensor.blockwise import Blockwise

    x = pt.dvector("x")
    out = Blockwise(Alloc(), signature="(),()->(n)")(x, pt.constant(3, dtype="int64")) * 2
    [got], _ = exact_values([out], {x: np.array([1.5, 2.0])})
    assert got.shape == (2, 3) and got[1, 2] == mp.mpf(4) and got[0, 0] == mp.mpf(3)
