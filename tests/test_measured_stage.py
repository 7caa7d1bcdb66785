"""The measured stabilizing stage (``relational_measured``): cheap screen, cache per region structure, values."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
import relations.saturation.stabilizing
from relations.compile import stabilize as S


def _graph():
    x = pt.dvector("x")
    # 2 * sigmoid(x) - 1 written as a difference: cancels near x = 0 (tanh(x / 2)), no stock rewrite repairs it
    return x, pt.sigmoid(x) - (1 - pt.sigmoid(x))


def test_measured_replaces_an_inaccurate_region_and_keeps_values():
    x, out = _graph()
    S.clear_outcomes()
    budget = S.MeasuredBudget()
    pairs = S.measured([out], budget)
    assert budget.stabilized == 1 and budget.replaced == 1 and len(pairs) == 1
    f = pytensor.function([x], out, mode="FAST_COMPILE")
    g = pytensor.function([x], pairs[0][1], mode="FAST_COMPILE")
    at = np.array([-3.0, -0.5, 0.0, 0.7, 4.0])
    np.testing.assert_allclose(g(at), np.tanh(at / 2), rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(f(at), g(at), rtol=1e-9, atol=1e-15)
    tiny = np.array([1e-20])
    assert g(tiny)[0] == 5e-21 and f(tiny)[0] != 5e-21  # the cancellation the stage repairs


def test_a_region_of_the_same_structure_reuses_the_outcome():
    # no clearing: after the test above the first graph's region is known already, and otherwise measured here
    first, second = S.MeasuredBudget(), S.MeasuredBudget()
    x1, out1 = _graph()
    S.measured([out1], first)
    x2, out2 = _graph()  # a new graph: the cache is by structure, not by variable
    [(root, new)] = S.measured([out2], second)
    assert second.cached == 1 and second.stabilized == 0 and second.replaced == 1
    assert x2 in pytensor.graph.traversal.graph_inputs([new]) and x1 not in pytensor.graph.traversal.graph_inputs([new])


def test_accurate_regions_cost_no_measurement():
    x = pt.dvector("x")
    out = pt.softplus(x) + pt.log1p(pt.exp(-pt.abs(x))) * pt.sigmoid(x)
    S.clear_outcomes()
    budget = S.MeasuredBudget()
    assert S.measured([out], budget) == []
    assert budget.passed >= 1 and budget.stabilized == 0 and budget.cached == 0 and budget.measured == 0


def _refuse(calls):
    """A stand-in for ``relations.stabilize`` that records its calls and finds nothing."""

    def stabilize(graph, **kwargs):
        calls.append(graph)
        return relations.saturation.stabilizing.Stabilized([graph], [(0.0, 0.0)], [(0.0, 0.0)])

    return stabilize


def _flagged(n):
    """``n`` regions of distinct structure that both numpy screens flag (cancellation PyTensor leaves)."""
    x = pt.dvector("x")
    outs = [pt.sigmoid(x * (k + 2)) - (1 - pt.sigmoid(x * (k + 2))) for k in range(n)]
    return x, outs


def test_every_outcome_is_cached_so_a_region_seen_before_is_neither_screened_nor_measured(monkeypatch):
    import relations.saturation.stabilizing as ST

    S.clear_outcomes()
    calls: list = []
    monkeypatch.setattr(ST, "stabilize", _refuse(calls))
    x = pt.dvector("x")
    accurate = pt.softplus(x) * pt.sigmoid(x)
    _, [flagged] = _flagged(1)
    first = S.MeasuredBudget()
    assert S.measured([accurate, flagged], first) == []
    assert first.passed >= 1 and first.measured == 1 and len(calls) == 1 and first.cached == 0

    def no_screen(*args):
        raise AssertionError("a region seen before was screened again")

    monkeypatch.setattr(S, "_wide_screen", no_screen)
    monkeypatch.setattr(S, "_screen", no_screen)
    y = pt.dvector("y")  # the same structure over new variables: cached, refused outcome included
    again = S.MeasuredBudget()
    assert S.measured([pt.softplus(y) * pt.sigmoid(y), pt.sigmoid(y * 2) - (1 - pt.sigmoid(y * 2))], again) == []
    assert again.cached == first.passed + 1 and again.passed == first.passed and again.measured == 1
    assert len(calls) == 1


def test_the_budget_is_a_count_and_cached_measurements_count_too(monkeypatch):
    import relations.saturation.stabilizing as ST

    calls: list = []
    monkeypatch.setattr(ST, "stabilize", _refuse(calls))
    _, outs = _flagged(3)
    seen = []
    for warm in (False, True, True):  # cold cache, then warm: the same regions measured, the same skipped
        if not warm:
            S.clear_outcomes()
        budget = S.MeasuredBudget(regions=2)
        S.measured(outs, budget)
        seen.append((budget.measured, budget.skipped, budget.cached))
    assert seen[0] == (2, 1, 0) and seen[1] == (2, 1, 2) == seen[2]
    assert len(calls) == 2  # the skipped region was not measured, nor cached as measured
    with pytest.raises(ValueError, match="regions"):
        S.MeasuredBudget(regions=-1)


def test_region_structure_tells_constants_types_and_wiring_apart():
    x, y = pt.dvector("x"), pt.dvector("y")

    def key(out):
        [(root, region)] = S._head_regions([out])
        return S._structure(root, region)

    k1, ins1 = key(pt.log1p(pt.exp(x) * 2.0))
    k2, ins2 = key(pt.log1p(pt.exp(y) * 2.0))
    assert k1 == k2 and ins1 == [x] and ins2 == [y]
    assert key(pt.log1p(pt.exp(x) * 3.0))[0] != k1  # another constant
    assert key(pt.log1p(pt.exp(pt.fvector("z")) * 2.0))[0] != k1  # another input type
    k3, ins3 = key(pt.log1p(pt.exp(x) * y))
    k4, ins4 = key(pt.log1p(pt.exp(y) * x))
    assert k3 == k4 and ins3 == [x, y] and ins4 == [y, x]  # inputs in the structure's order
    assert key(pt.log1p(pt.exp(x) * x))[0] != k3  # one input read twice is another wiring


def test_the_mode_measures_the_spelling_as_written_and_repairs_it():
    x, out = _graph()
    stage = S.register_measured()
    mode = relations.mode("relational", "relational_stabilize", "relational_measured")
    f = pytensor.function([x], out, mode=mode)
    # the stage runs before canonicalize, which turns the region into -1 + sigmoid(x) + sigmoid(x): a spelling
    # the theory relates to tanh(x / 2) within PASS_LIMITS only as the user wrote it
    assert stage.last.measured == 1 and stage.last.replaced == 1
    stock = pytensor.function([x], out, mode="FAST_COMPILE")
    at = np.array([-2.0, -1e-3, 0.5, 3.0])
    np.testing.assert_allclose(f(at), stock(at), rtol=1e-12)
    tiny = np.array([1e-20, -3e-300])
    np.testing.assert_array_equal(f(tiny), tiny / 2)  # stock: 0 (1e-20) and 0 (-3e-300)
    assert not np.array_equal(stock(tiny), tiny / 2)


def test_the_grid_points_flag_what_the_sampled_points_miss():
    """``softplus(x) - x`` loses digits for x in [20, 700] only, where a few percent of bit-uniform draws
    fall: the screens take a grid of magnitudes.  The fast pass's cancellation tier now compiles
    ``softplus(-x)`` itself, so the stage, which screens the region as PyTensor and that pass compile it,
    finds it accurate and leaves it."""
    from graph_bridge.wide_float import wide_screen

    x = pt.dvector("x")
    out = pt.softplus(x) - x
    sampled, gridded = wide_screen(out, n=8), wide_screen(out, n=8, grid=True)
    assert sampled.mean is not None and gridded.mean is not None
    assert sampled.lost == 0 and gridded.lost > 0  # eight bit-uniform draws miss [20, 700]; the grid's 30, 40 do not
    assert gridded.mean > sampled.mean + 2 * S.WIDE_BITS
    S.clear_outcomes()
    stage = S.register_measured()
    f = pytensor.function([x], out, mode=relations.mode("relational", "relational_stabilize",
                                                         "relational_measured"))
    assert stage.last.passed == 1 and stage.last.replaced == 0
    at = np.array([-5.0, 0.0, 30.0, 100.0, 600.0])
    np.testing.assert_allclose(f(at), np.log1p(np.exp(-at)), rtol=1e-14)


def test_a_region_holding_an_index_none_is_screened_without_error():
    """``log(softmax(x)[[1, 0]])`` canonicalized reads a ``SpecifyShape`` with a ``NoneConst`` (a constant of a
    type without a dtype): the numpy screen raised an AttributeError on it, and the stage failed the rewrite."""
    from pytensor.graph.rewriting.utils import rewrite_graph
    from pytensor.tensor.special import softmax

    from graph_bridge.wide_float import evaluate

    x = pt.dmatrix("x")
    g = rewrite_graph(pt.log(softmax(x, axis=-1)[[1, 0]]), include=("canonicalize",))
    none_type = pytensor.tensor.type_other.NoneConst.type
    none = [i for n in pytensor.graph.traversal.toposort([g]) for i in n.inputs if i.type == none_type]
    assert none  # the spelling still holds the constant this test is about
    S.measured([g], S.MeasuredBudget())  # no error
    y = pt.dvector("y")
    [v] = evaluate([y[None]], {y: np.array([1.0, 2.0])})
    assert v.shape == (1, 2)


def test_a_large_constant_is_held_by_its_digest():
    x = pt.dvector("x")
    data = np.linspace(0.0, 1.0, 1000)

    def key(values):
        [(root, region)] = S._head_regions([pt.log1p(pt.exp(x) * pt.as_tensor(values))])
        return S._structure(root, region)[0]

    k = key(data)
    assert k == key(data.copy()) and k != key(data[::-1].copy())
    held = [c[2] for part in k for c in part[1] if c[0] == "c" and c[2][0] == (1000,)]
    assert held and all(len(h[2]) == 32 for h in held)  # a SHA-256 digest, not 8,000 bytes


def test_a_region_holds_the_constants_it_computes_from():
    """``sqrt(2.0)`` under ``-x / sqrt(2.0)`` lies beyond the region's depth: cut into a leaf, it was a float32
    input sampled over its whole range, and the measurement chose the normal log-CDF's regimes at -109 and 40."""
    x = pt.dvector("x")

    def region(c):
        [(root, region)] = S._head_regions([pt.log(0.5 * pt.erfc(-x / pt.sqrt(c)))])
        (copy,), leaves = S._cut([root], S.MEASURED_HEADS, constants=True)
        return S._structure(root, region), leaves

    ((k2, ins2), leaves) = region(2.0)
    assert ins2 == [x] and leaves == {}  # the one input is x: no leaf cut at sqrt(2.0)
    assert k2 != region(3.0)[0][0]  # and in the structure: sqrt(3.0) is another region
    assert k2 == region(2.0)[0][0]


@pytest.mark.slow  # 1-3 min of mpmath on a core
def test_the_normal_log_cdf_written_through_erfc_compiles_accurate():
    """PyMC's censored-likelihood spelling: ``-inf`` at x = -40 as PyTensor compiles it, -804.6 with the stage
    (regimes: ``erfcx`` below a threshold, the reflection above)."""
    from scipy.special import log_ndtr

    x = pt.dvector("x")
    out = pt.log(0.5 * pt.erfc(-x / pt.sqrt(2.0)))
    stage = S.register_measured()
    f = pytensor.function([x], out, mode=relations.mode("relational", "relational_stabilize",
                                                         "relational_measured"))
    assert stage.last.replaced == 1
    at = np.array([-40.0, -10.0, -1.0, 0.0, 1.0, 5.0, 10.0])
    with np.errstate(divide="ignore"):
        assert np.isneginf(pytensor.function([x], out)(at)[0])
    np.testing.assert_allclose(f(at), log_ndtr(at), rtol=1e-13, atol=1e-300)


def test_the_accurate_tags_add_the_stage_and_the_default_ones_have_the_precision_pass():
    """``pt.log(2)`` is float32's log(2) over an int8 2, which the precision pass (a default tag) computes in
    float64; without it (``WITHOUT_PRECISION``) it is 1.2e-8 off."""
    from mpmath import mp

    from relations.compile.compile_modes import WITHOUT_PRECISION

    assert {"relational_precision", "relational_measured"} <= set(relations.ACCURATE_TAGS)
    assert "relational_precision" in relations.DEFAULT_TAGS and "relational_measured" not in relations.DEFAULT_TAGS
    x = pt.dvector("x")
    out = x + pt.log1p(-pt.exp(-2 * x)) - pt.log(2)  # log(sinh(x))
    at = np.array([0.5, 3.0, 30.0])
    with mp.workdps(50):
        exact = np.array([float(mp.log(mp.sinh(mp.mpf(v)))) for v in at])
    accurate = pytensor.function([x], out, mode=relations.mode(*relations.ACCURATE_TAGS))(at)
    default = pytensor.function([x], out, mode=relations.mode())(at)
    without = pytensor.function([x], out, mode=relations.mode(*WITHOUT_PRECISION))(at)
    np.testing.assert_allclose(accurate, exact, rtol=1e-15)
    np.testing.assert_allclose(default, exact, rtol=1e-15)
    assert np.max(np.abs(without / exact - 1)) > 1e-9


@pytest.mark.slow  # 1-3 min of mpmath on a core
def test_a_critical_sub_expression_is_found_and_the_scaled_log_cdf_compiles_accurate():
    """PyMC's normal log-CDF with a location and a scale, written as one ``erfc``: draws of ``x``, ``mu`` and
    ``sigma`` seldom reach ``(x - mu) / sigma < -38``, where it is ``-inf``; the stage measures the region
    over ``z = -(x - mu) / (sigma * sqrt(2))`` (Herbie's regimes on a sub-expression) and compiles the
    ``erfcx`` form below a threshold of ``z`` and the reflection above.  The fast pass's regime step now takes
    ``log_mul_erfc_regimes`` there (the reflection below 0, ``erfcx`` above 0.5): the stage leaves the region
    as the fast pass compiles it."""
    from scipy.special import log_ndtr

    x, mu, sigma = pt.dvector("x"), pt.dvector("mu"), pt.dvector("sigma")
    out = pt.log(0.5 * pt.erfc(-(x - mu) / (sigma * pt.sqrt(2.0))))
    [(root, region)] = S._head_regions([out])
    (copy,), _ = S._cut([root], S.MEASURED_HEADS, constants=True)
    [(operand, leaf, narrow)] = S._narrowed(copy)
    assert S._reads(operand) == 2 and S._reads(narrow) == 1  # x - mu is the region's leaf: its depth is 4
    # the whole region's draws dilute the lost corner; they are flagged for the rounding of ``erfc(-z)`` near 2
    # (the screen's wide ``erfc`` is ``2 - erfc(z)`` below 0), which the narrowed region shows too
    assert S._flags(S._wide_screen(copy), copy)
    assert S._flags(S._wide_screen(narrow), narrow)
    stage = S.register_measured()
    f = pytensor.function([x, mu, sigma], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    # the fast pass's form is left: passed by the numpy screen, or (the screen reads it about 1 bit off on
    # average, at its threshold, since a cast in the region is evaluated) measured and kept
    assert stage.last.replaced == 0 and stage.last.passed + stage.last.measured == 1
    at = (np.array([-40.0, -10.0, -1.0, 0.0, 10.0, 40.0]), np.array([0.0, 1.0, -3.0, 2.0, 1.0, 0.0]),
          np.array([1.0, 2.0, 0.5, 1.0, 1.0, 4.0]))
    stock = pytensor.function([x, mu, sigma], out)
    with np.errstate(divide="ignore"):
        assert np.isneginf(stock(*at)[0]) and stock(*at)[4] == 0.0  # log_ndtr(9) = -1.1e-19 lost as well
    np.testing.assert_allclose(f(*at), log_ndtr((at[0] - at[1]) / at[2]), rtol=1e-13, atol=1e-300)
    for n in (0, 1):
        assert f(*(np.full(n, v) for v in (0.3, 0.0, 1.0))).shape == (n,)


def test_a_value_lost_whole_flags_a_region_of_several_inputs_only():
    from graph_bridge.wide_float import Screened

    x, y = pt.dvector("x"), pt.dvector("y")
    two, one = pt.exp(x) + y, pt.exp(x)
    assert S._flags(Screened(0.2, 3, lost=1), two) and not S._flags(Screened(0.2, 3, lost=1), one)
    assert not S._flags(Screened(0.2, 3, lost=0), two) and S._flags(Screened(1.5, 3, lost=0), one)
    assert not S._flags(Screened(None, 0), two)


@pytest.mark.slow
def test_the_stage_never_trades_what_the_fast_pass_makes_of_a_spelling():
    """``log(gamma(x + y)) - log(gamma(x))``: the fast pass (after the stage) makes ``gammaln``s of it, exact;
    measured against PyTensor's rewrites alone, the stage once chose a form over ``gamma`` (better than
    ``log(gamma)`` as PyTensor leaves it) that overflowed at x = 1e5 and hid the spelling from the pass."""
    from mpmath import mp

    x, y = pt.dvector("x"), pt.dvector("y")
    out = pt.log(pt.gamma(x + y)) - pt.log(pt.gamma(x))
    f = pytensor.function([x, y], out, mode=relations.mode("relational", "relational_stabilize",
                                                            "relational_measured"))
    at = (np.array([0.5, 10.0, 200.0, 1e5]), np.array([3.0, 0.5, 100.0, 10.0]))
    exact = [float(mp.loggamma(a + b) - mp.loggamma(a)) for a, b in zip(*at, strict=True)]
    np.testing.assert_allclose(f(*at), exact, rtol=1e-9)


def test_a_region_stabilize_cannot_measure_is_kept_and_the_compile_goes_on(monkeypatch):
    """A Dirichlet-multinomial's region once made ``relations.stabilize`` raise (a reduction over a length-0
    axis in its exact evaluation), and the stage failed the rewrite at every compile: such a region is kept."""

    def fails(graph, **kwargs):
        raise ValueError("cannot reshape array of size 0 into shape (0)")

    monkeypatch.setattr(relations.saturation.stabilizing, "stabilize", fails)
    S.clear_outcomes()
    budget = S.MeasuredBudget()
    assert S.measured([_graph()[1]], budget) == []
    assert budget.stabilized == 1 and budget.replaced == 0
    S.clear_outcomes()


def test_a_region_losing_a_value_only_at_the_ends_of_the_range_is_measured():
    """``log((1 + k**2) / 2)`` is inf from |k| = 1.3e154 (``k**2`` overflows) and accurate elsewhere: the numpy
    screen's samples and grid miss it, the ends of the range (``GAP_GRID``) do not, and the stage measures it
    and compiles a form exact at 1e200 and near 1."""
    from mpmath import mp

    k = pt.dvector("k")
    out = pt.log((1 + k**2) / 2)
    assert S._lost_at_extremes(out) and not S._lost_at_extremes(pt.log1p(pt.abs(k)))
    at = np.array([1e200, -1e160, 1 + 2**-30, 3.0, 0.0])
    with mp.workdps(50):
        exact = np.array([float(mp.log((1 + mp.mpf(v) ** 2) / 2)) for v in at])
    accurate = pytensor.function([k], out, mode=relations.mode(*relations.ACCURATE_TAGS, base="FAST_COMPILE"))(at)
    default = pytensor.function([k], out, mode=relations.mode(base="FAST_COMPILE"))(at)
    assert np.isinf(default[0])  # what the fast pass leaves
    np.testing.assert_allclose(accurate, exact, rtol=1e-13, atol=1e-300)
    empty = np.zeros(0)
    assert pytensor.function([k], out, mode=relations.mode(*relations.ACCURATE_TAGS, base="FAST_COMPILE"))(
        empty).shape == (0,)


def test_the_stage_compiles_a_model_whose_regions_hold_its_data_without_an_error():
    """Eight schools' logp + dlogp: a region holds the model's ``sigma`` (a constant vector of 8), which the flat
    numpy screen cannot spread one entry per point over; the stage measures it otherwise, and no rewrite
    raises (``on_opt_error="raise"``: PyTensor would otherwise print the error and compile without the stage)."""
    pytest.importorskip("pymc")
    from pymc_models import MODELS, logp_dlogp, point_values

    model = MODELS["eight schools"]()
    inputs, outputs = logp_dlogp(model)
    with pytensor.config.change_flags(on_opt_error="raise"):
        f = pytensor.function(inputs, outputs, mode=relations.mode(*relations.ACCURATE_TAGS, base="FAST_COMPILE"))
    g = pytensor.function(inputs, outputs, mode="FAST_COMPILE")
    at = point_values(model)
    for a, b in zip(f(*at), g(*at), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_the_stage_measures_a_reciprocal_at_float64_precision():
    # PyTensor's Python linker runs a fused Composite through Reciprocal.impl, np.float32(1.0) / x: float32
    # precision under NumPy 2 (pytensor#2430); the stage measures without fusion, as the C and Numba kernels compute
    from relations.saturation.accuracy import graph_bits, points_at

    x = pt.dvector("x")
    form = (1 / 12 + pt.reciprocal(x)) * pt.reciprocal(x)
    pts = points_at([form], {x: np.array([1e4, 3.0, 7e10])})
    [bits] = graph_bits([form], pts, S.STOCK)
    assert np.max(bits) <= 1.0


@pytest.mark.parametrize("name, build, at, exact", [
    # Herbie's rational benchmarks: arithmetic alone, no head the fast pass knows
    ("1/(x+1) - 2/x + 1/(x-1)", lambda x, y: 1 / (x + 1) - 2 / x + 1 / (x - 1), [[1e5, 3e7, 2.5], None],
     lambda x, y=None: 1 / (x + 1) - 2 / x + 1 / (x - 1)),
    ("x/(x+1) - (x-1)/x", lambda x, y: x / (x + 1) - (x - 1) / x, [[1e8, 1e12, 0.5], None],
     lambda x, y=None: x / (x + 1) - (x - 1) / x),
    # a constant and a computed term: cancels near x = 1, one of the graph's constants
    ("1 - x*x", lambda x, y: 1 - x * x, [[1 + 2**-30, 1 - 1e-9, 0.5], None], lambda x, y=None: 1 - x * x),
    # two inputs that nearly agree: the diagonal screen flags it, stabilize samples there
    ("x*x - y*y", lambda x, y: x * x - y * y, [[3.0, 1e4, 7.0], [3.0 * (1 + 2**-30), 1e4 * (1 - 2**-40), 2.0]],
     lambda x, y: x * x - y * y),
])
def test_an_arithmetic_region_that_cancels_is_measured(name, build, at, exact):
    from mpmath import mp

    x, y = pt.dvector("x"), pt.dvector("y")
    out = build(x, y)
    ins = [x] if at[1] is None else [x, y]
    assert S.head_roots([out]) == [out]
    S.clear_outcomes(store=False)
    budget = S.MeasuredBudget()
    pairs = S.measured([out], budget)
    assert budget.replaced == 1 and len(pairs) == 1, name
    staged = pytensor.graph.replace.graph_replace([out], dict(pairs), strict=False)[0]
    vals = [np.array(v) for v in at if v is not None]
    with mp.workdps(80):
        ref = np.array([float(exact(*[mp.mpf(float(v[k])) for v in vals])) for k in range(len(vals[0]))])
    f = pytensor.function(ins, [out, staged], mode="FAST_COMPILE")
    written, got = f(*vals)
    assert np.max(np.abs(written / ref - 1)) > 1e-12, name  # the spelling loses digits there
    np.testing.assert_allclose(got, ref, rtol=1e-13, err_msg=name)
    assert f(*[np.zeros(0) for _ in ins])[1].shape == (0,)
    S.clear_outcomes(store=False)


def test_a_difference_of_two_inputs_is_no_region():
    x, y = pt.dvector("x"), pt.dvector("y")
    assert S.head_roots([(x - y) * 2.0]) == []


@pytest.mark.slow  # 1-3 min of mpmath on a core
def test_a_region_reading_a_computed_leaf_is_screened_on_its_diagonals():
    # the normal KL as torch writes it: (m1 - m2) / s2 is cut as a leaf of the region, so its corners are not
    # screened (its leaves are not independent inputs), but its diagonals are: where the scales agree and the
    # leaf is 0 it cancels (r**2 - 1 - log(r**2)); sampled points lose 10 bits there no form repairs, and the
    # form is chosen better where the diagonal points lose 40
    import mpmath as mp

    m1, s1, m2, s2 = (pt.dvector(n) for n in ("m1", "s1", "m2", "s2"))
    out = 0.5 * ((s1 / s2) ** 2 + ((m1 - m2) / s2) ** 2 - 1 - pt.log((s1 / s2) ** 2))
    S.clear_outcomes(store=False)
    stage = S.register_measured()
    f = pytensor.function([m1, s1, m2, s2], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    # PyTensor 3.0 (Python 3.11) measures the region and keeps it (not investigated: closing note of session 31)
    repaired = stage.last.replaced == 1
    assert repaired or pytensor.__version__.startswith("3.0")
    at = [np.array([0.0, 1.0, 5.0, 0.0]), np.array([1.0, 2.0, 1e5, 3.0]), np.array([0.0, 3.0, 5.0, 1e-9]),
          np.array([1 + 2.0**-30, 4.0, 100000.001, 3.0])]
    with mp.workdps(60):
        def kl(a, b, c, d):
            a, b, c, d = (mp.mpf(float(v)) for v in (a, b, c, d))
            vr = (b / d) ** 2
            return float((vr + ((a - c) / d) ** 2 - 1 - mp.log(vr)) / 2)

        ref = np.array([kl(*row) for row in zip(*at)])
    written = pytensor.function([m1, s1, m2, s2], out, mode="FAST_RUN")(*at)
    assert np.max(np.abs(written / ref - 1)) > 1e-9  # 30 bits of 53 lost
    np.testing.assert_allclose(f(*at), ref, rtol=1e-12 if repaired else 1e-8)
    for n in (0, 1):
        assert f(*(np.full(n, v) for v in (0.0, 1.0, 0.5, 1.5))).shape == (n,)


def test_a_region_is_measured_over_its_inputs_where_a_leaf_cut_from_them_hides_the_cancellation():
    # 2 * (0.5 * (y log(y / mu) - y + mu)): the region's four levels cut y log(y / mu) - y + mu into a leaf,
    # sampled as an input apart from y and mu, where it cancels only when it is computed from them near y = mu
    import mpmath as mp

    y, mu = pt.dvector("y"), pt.dvector("mu")
    out = 2.0 * (0.5 * (y * pt.log(y / mu) - y + mu))
    [(root, region)] = S._head_regions([out])
    r = S._Region(root, *S._structure(root, region))
    (r.copy,), r.leaves = S._cut([root], S.MEASURED_HEADS, constants=True)
    assert len(r.leaves) == 1 and not S._lost_where_draws_are_thin(r.copy, corners=False)
    assert S._lost_where_draws_are_thin(S._expanded(r.copy, r), corners=True)
    stage = S.register_measured()
    f = pytensor.function([y, mu], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = (np.array([3.0, 1e4, 0.2, 2.0]), np.array([3.0 * (1 + 1e-9), 1e4 - 1e-3, 0.2 * (1 + 2.0**-30), 5.0]))
    with mp.workdps(60):
        ref = np.array([float(a * mp.log(a / b) - a + b) for a, b in ((mp.mpf(u), mp.mpf(v)) for u, v in zip(*at))])
    written = pytensor.function([y, mu], out, mode="FAST_RUN")(*at)
    assert np.max(np.abs(written / ref - 1)) > 1e-3
    np.testing.assert_allclose(f(*at), ref, rtol=1e-13)
    for n in (0, 1):
        assert f(np.full(n, 2.0), np.full(n, 3.0)).shape == (n,)


def test_the_normal_quantile_through_erfinv_compiles_finite_in_its_lower_tail():
    """PyTorch's ``Normal.icdf``, ``sqrt(2) * erfinv(2 p - 1)``: ``2 p - 1`` rounds to -1 below ``p = 2**-25`` in
    float32, and the quantile is ``-inf`` there; the stage compiles ``-sqrt(2) * erfcinv(2 p)``
    (``erfinv_sub_one``), finite down to the smallest ``p``."""
    import mpmath as mp

    q = pt.fvector("q")
    out = pt.erfinv(2 * q - 1) * np.float32(np.sqrt(2))
    stage = S.register_measured()
    f = pytensor.function([q], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = np.array([1e-30, 1e-10, 3e-8, 0.01, 0.3, 0.5, 0.9], dtype="float32")
    with np.errstate(divide="ignore"):
        assert np.isneginf(pytensor.function([q], out)(at)[0])
    got = f(at)
    assert got.dtype == "float32" and f.outputs[0].variable.type.broadcastable == out.type.broadcastable
    with mp.workprec(200):
        ref = np.array([float(mp.sqrt(2) * mp.erfinv(2 * mp.mpf(float(p)) - 1)) for p in at])
    np.testing.assert_allclose(got, ref, rtol=2e-6)
    assert f(np.zeros(0, dtype="float32")).shape == (0,)


def test_the_laplace_quantile_compiles_finite_by_its_own_pieces():
    """PyTorch's ``Laplace.icdf``, ``-sign(q - 0.5) * log1p(-2 |q - 0.5|)``: no identity reaches its lower tail in
    float32 (``q - 0.5`` rounds to ``-0.5``); the stage splits the region at ``q - 0.5`` and stabilizes each piece
    alone (:mod:`relations.compile.pieces`)."""
    q = pt.fvector("q")
    out = -pt.sign(q - 0.5) * pt.log1p(-2 * pt.abs(q - 0.5))
    stage = S.register_measured()
    f = pytensor.function([q], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = np.array([1e-30, 1e-9, 0.25, 0.5, 0.75], dtype="float32")
    got = f(at)
    assert got.dtype == "float32"
    np.testing.assert_allclose(got, [np.log(2e-30), np.log(2e-9), np.log(0.5), 0.0, -np.log(0.5)], rtol=1e-6)


def _accurate_and_typed(f, out, at, ref, rtol, *fill):
    """``f`` (compiled from ``out``) at the inputs ``at`` is ``ref`` to ``rtol``, of ``out``'s dtype and broadcastable,
    and takes inputs of 0 and 1 entries (each filled with ``fill``'s value)."""
    got = f(*at)
    assert got.dtype == out.dtype and f.outputs[0].variable.type.broadcastable == out.type.broadcastable
    np.testing.assert_allclose(got, ref, rtol=rtol)
    for n in (0, 1):
        assert f(*(np.full(n, v) for v in fill)).shape == (n,)


def test_a_region_flagged_over_its_leaves_is_measured_over_its_inputs_where_no_form_was_found_over_them():
    """Mills' ratio, the normal tail over the density, ``0.5 erfc(x / sqrt(2)) / (exp(-x * x / 2) / sqrt(2 pi))``:
    both underflow above ``x = 38`` (``0 / 0``).  The region's four levels cut ``x * x`` into a leaf, sampled apart
    from ``x``, and no identity relates ``exp(-t / 2)`` to ``erfc(x / sqrt(2))``; over ``x`` the theory's
    ``erfc_div_exp`` gives ``erfcx``."""
    import mpmath as mp

    x = pt.dvector("x")
    out = 0.5 * pt.erfc(x / np.sqrt(2.0)) / (pt.exp(-(x * x) / 2) / np.sqrt(2 * np.pi))
    [(root, region)] = S._head_regions([out])
    r = S._Region(root, *S._structure(root, region))
    (r.copy,), r.leaves = S._cut([root], S.MEASURED_HEADS, constants=True)
    assert len(r.leaves) == 1  # x * x
    stage = S.register_measured()
    f = pytensor.function([x], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = np.array([40.0, 30.0, 5.0, 1.0, 0.0, -3.0])
    with mp.workdps(40):
        ref = np.array([float(mp.erfc(v / mp.sqrt(2)) / 2 / (mp.exp(-v * v / 2) / mp.sqrt(2 * mp.pi)))
                        for v in map(mp.mpf, at)])
    with np.errstate(invalid="ignore"):
        assert np.isnan(pytensor.function([x], out, mode="FAST_RUN")(at)[0])
    _accurate_and_typed(f, out, (at,), ref, 1e-12, 2.0)


def test_the_pareto_cdf_near_its_scale_compiles_accurate_where_the_ratio_rounds():
    """``1 - (s / x) ** a`` near ``x = s``: ``s / x`` rounds, and the CDF keeps half its digits at
    ``x = 7.00000000123``, ``s = 7``.  The diagonal screen's points off a power of 2 (where ``s / x`` is not exact)
    find it, and the stage compiles the ratio's log as ``log1p`` of the exact relative difference."""
    import mpmath as mp

    x, s, a = pt.dvector("x"), pt.dvector("s"), pt.dvector("a")
    out = 1 - (s / x) ** a
    S.clear_outcomes(store=False)
    stage = S.register_measured()
    f = pytensor.function([x, s, a], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = (np.array([7.00000000123, 3.0000001, 1e300, 2.0]), np.array([7.0, 3.0, 1.0, 1.0]),
          np.array([1.0, 2.5, 1e-5, 3.0]))
    with mp.workdps(50):
        ref = np.array([float(1 - (mp.mpf(v) / mp.mpf(u)) ** mp.mpf(k)) for u, v, k in zip(*at)])
    written = pytensor.function([x, s, a], out, mode="FAST_RUN")(*at)
    assert np.max(np.abs(written / ref - 1)) > 1e-8
    _accurate_and_typed(f, out, at, ref, 1e-13, 2.0, 1.0, 3.0)


def test_a_form_found_over_cut_leaves_that_still_loses_over_the_inputs_gives_way_to_one_found_over_them():
    """Distributions.jl's biweight mgf, ``15 ((t + 3 / t) sinh(t) - 3 cosh(t)) / t**4``, cancels at ``t = 0``
    (it is ``1 + t**2 / 14 + ...``).  The region's four levels cut ``3 / t`` into a leaf drawn apart from ``t``:
    a form found over the leaves is better there but still 30 times off at ``t = -1e-4``.  The stage measures
    the region over ``t`` too and keeps the form more accurate there (a series at 0 in a regime)."""
    import mpmath as mp

    t = pt.dvector("t")
    out = 15 * ((t + 3 / t) * pt.sinh(t) - 3 * pt.cosh(t)) / (t**2) ** 2
    S.clear_outcomes(store=False)
    stage = S.register_measured()
    f = pytensor.function([t], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = np.array([1e-3, 1e-2, -1e-4, 0.5, 3.0, 20.0])
    with mp.workdps(60):
        ref = np.array([float(15 * ((v + 3 / v) * mp.sinh(v) - 3 * mp.cosh(v)) / v**4) for v in map(mp.mpf, at)])
    written = pytensor.function([t], out, mode="FAST_RUN")(at)
    assert np.max(np.abs(written / ref - 1)) > 1.0
    _accurate_and_typed(f, out, (at,), ref, 1e-12, 2.0)


def test_a_difference_of_two_powers_of_a_small_exponent_compiles_accurate():
    """``(y**lam - x**lam) / lam`` (a Box-Cox difference; a truncated power law's normalizer is its reciprocal) is
    ``log(y / x)`` in the limit ``lam = 0``, and keeps 4 digits at ``lam = 1e-12``: the theory's
    ``pow_sub_pow_regimes`` gives ``x**lam * expm1(lam * log(y / x))`` where both bases are positive."""
    import mpmath as mp

    x, y, lam = pt.dvector("x"), pt.dvector("y"), pt.dvector("lam")
    out = (y**lam - x**lam) / lam
    S.clear_outcomes(store=False)
    stage = S.register_measured()
    f = pytensor.function([x, y, lam], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = (np.array([2.0, 0.5, 3.0, 1.0, -2.0]), np.array([5.0, 40.0, 3.5, 2.0, -3.0]),
          np.array([1e-12, -1e-9, 1e-6, 2.0, 2.0]))
    with mp.workdps(60):
        ref = np.array([float((mp.mpf(b) ** mp.mpf(c) - mp.mpf(a) ** mp.mpf(c)) / mp.mpf(c)) for a, b, c in zip(*at)])
    written = pytensor.function([x, y, lam], out, mode="FAST_RUN")(*at)
    assert np.max(np.abs(written / ref - 1)) > 1e-5
    _accurate_and_typed(f, out, at, ref, 1e-14, 2.0, 3.0, 0.5)  # the negative bases' integer power too, as written


def test_a_hand_written_bernoulli_logit_likelihood_compiles_accurate_where_it_cancels_to_zero():
    """``y * eta - log1p(exp(eta))`` (logistic regression written by hand) at ``eta = 40``, ``y = 1`` is
    ``-softplus(-40) = -4.2e-18``; PyTensor's ``softplus`` still cancels to 0 there.  The corner screen reads 1
    too, and draws its points from each way a value is lost (here 0, where most corners overflow); the theory's
    ``mul_sub_softplus_regimes`` gives ``eta * (y - 1) - softplus(-eta)`` for ``eta > 0``."""
    y, eta = pt.dvector("y"), pt.dvector("eta")
    out = y * eta - pt.log1p(pt.exp(eta))
    S.clear_outcomes(store=False)
    stage = S.register_measured()
    f = pytensor.function([y, eta], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = (np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.3]), np.array([40.0, 700.0, -40.0, 3.0, -3.0, 800.0]))
    ref = np.array([-np.exp(-40.0), -np.exp(-700.0), -np.exp(-40.0), -3.0 - np.log1p(np.exp(-3.0)),
                    -3.0 - np.log1p(np.exp(-3.0)), -0.7 * 800.0])
    written = pytensor.function([y, eta], out, mode="FAST_RUN")(*at)
    assert written[0] == 0.0
    _accurate_and_typed(f, out, at, ref, 1e-14, 1.0, 2.0)


def test_the_log_of_a_ratio_that_overflows_compiles_as_a_difference_of_logs():
    """``0.5 * log(x / y)`` (half a log-likelihood ratio) is ``inf`` at ``x = 1e300``, ``y = 1e-300`` and ``-inf``
    at the reverse, where it is +-690.8; and loses digits near ``x = y``.  The theory's
    ``log_div_near_one_regimes`` gives ``log1p`` of the relative difference near 1, ``log|x| - log|y|`` where
    the ratio's log is beyond +-700, the spelling between."""
    import mpmath as mp

    x, y = pt.dvector("x"), pt.dvector("y")
    out = 0.5 * pt.log(x / y)
    S.clear_outcomes(store=False)
    stage = S.register_measured()
    f = pytensor.function([x, y], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = (np.array([1e300, 1e-300, -1e300, 2.0, 7.00000000123, 4.0]),
          np.array([1e-300, 1e300, -1e-300, 3.0, 7.0, 2.2250738585072014e-308]))
    with mp.workdps(50):
        ref = np.array([float(mp.log(mp.mpf(u) / mp.mpf(v)) / 2) for u, v in zip(*at)])
    with np.errstate(over="ignore", divide="ignore"):
        written = pytensor.function([x, y], out, mode="FAST_RUN")(*at)
    assert np.isinf(written[:3]).all()
    _accurate_and_typed(f, out, at, ref, 1e-13, 2.0, 3.0)


@pytest.mark.parametrize("spelling", [
    lambda p: pt.log(p / (1 - p)),  # SciPy's logit before scipy #21388
    lambda p: -pt.log(1 / p - 1),
])
def test_a_logit_cancelling_at_one_half_compiles_accurate_there(spelling):
    """A logit written through a ratio is 0 at ``p = 1/2``, where the ratio rounds: up to 6 digits are lost at
    ``p = 0.5 + 1e-10``.  The stage's flag reads the points of the root grid where the exact value is 0, and its
    points near them (neither bracket a sign change), and compiles ``log1p`` of the exact relative difference."""
    import mpmath as mp

    p = pt.dvector("p")
    out = spelling(p)
    S.clear_outcomes(store=False)
    stage = S.register_measured()
    f = pytensor.function([p], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    at = np.array([0.5 + 1e-10, 0.5 - 3e-12, 0.5 + 2.0**-30, 0.25, 1e-300, 0.7])
    with mp.workdps(50):
        ref = np.array([float(mp.log(mp.mpf(v) / (1 - mp.mpf(v)))) for v in at])
    assert np.max(np.abs(pytensor.function([p], out, mode="FAST_RUN")(at[:3]) / ref[:3] - 1)) > 1e-11
    _accurate_and_typed(f, out, (at,), ref, 1e-14, 0.5)


def _complex_root_im(re, im):
    """mathjs's imaginary part of a complex square root (its ``im > 0`` branch)."""
    return 0.5 * pt.sqrt(2.0 * (pt.sqrt(re * re + im * im) - re))


def _complex_root_im_stable(re, im):
    """:func:`_complex_root_im` with the modulus scaled by ``max(|re|, |im|)`` and ``sqrt(re*re + im*im) - re``
    taken as ``(im / sqrt(sqrt(re*re + im*im) + re))**2`` where ``re > 0``: exact where the spelling cancels
    (``re = 1e10``, ``im = 1``) and where its squares overflow (``re = 1e200``, ``im = 1e190``)."""
    m = pt.maximum(pt.maximum(pt.abs(re), pt.abs(im)), 1e-300)
    root = m * pt.sqrt(pt.sqr(re / m) + pt.sqr(im / m))
    pos = pt.gt(re, 0)
    return 0.5 * pt.sqrt(2.0 * pt.switch(pos, pt.sqr(im / pt.sqrt(pt.switch(pos, root + re, 1.0))), root - re))


def _finding_the_complex_root(calls):
    """A stand-in for ``relations.stabilize`` that records its targets and gives
    :func:`_complex_root_im_stable` for a target reading two inputs (the region over its inputs), nothing else:
    what the stage does with a form, apart from how the theory finds it (which PyTensor's versions measure
    differently)."""
    from pytensor.graph.traversal import explicit_graph_inputs

    def stabilize(graph, **kwargs):
        calls.append(graph)
        reads = sorted((v for v in explicit_graph_inputs([graph]) if v.name), key=lambda v: v.name[:2] != "re")
        ST = relations.saturation.stabilizing
        if len(reads) != 2:
            return ST.Stabilized([graph], [(0.0, 0.0)], [(0.0, 0.0)])
        found = _complex_root_im_stable(*reads)
        return ST.Stabilized([found], [(9.0, 60.0)], [(0.0, 0.0)], sites=[ST.Site(graph, found, 9.0, 0.0)])

    return stabilize


def test_a_leaf_reading_an_input_its_region_does_not_is_computed_again(monkeypatch):
    """The complex root's region cuts ``re*re + im*im`` as a leaf: it reads ``im``, which the region does not read
    itself.  Computed again from ``re`` and ``im`` (a leaf of up to :data:`LEAF_NODES` nodes and
    :data:`LEAF_EXTRA_INPUTS` inputs of its own), the region over its inputs is measured, and a form over both
    inputs replaces it where it compiles more accurate: exact at ``re = 1e200``, ``im = 1e190``, where the
    spelling's squares overflow."""
    import mpmath as mp

    re, im = pt.dvector("re"), pt.dvector("im")
    out = _complex_root_im(re, im)
    [(root, region)] = S._head_regions([out])
    r = S._Region(root, *S._keyed(root, region))
    (r.copy,), r.leaves = S._cut([root], S.MEASURED_HEADS, constants=True)
    assert im not in pytensor.graph.traversal.explicit_graph_inputs([r.copy]) and im in r.inputs
    [reads] = S._leaf_origins(r).values()
    assert reads == {re, im}
    assert set(pytensor.graph.traversal.explicit_graph_inputs([S._expanded(r.copy, r)])) >= {re, im}
    calls: list = []
    monkeypatch.setattr(relations.saturation.stabilizing, "stabilize", _finding_the_complex_root(calls))
    S.clear_outcomes()  # (the session's store: conftest.py)
    stage = S.register_measured()
    f = pytensor.function([re, im], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1 and calls
    at_re, at_im = np.array([1e200, 1e10, 1e5, -3.0, 2.0]), np.array([1e190, 1.0, 1e-8, 4.0, 5.0])
    with mp.workdps(50):
        ref = np.array([float(mp.sqrt(mp.mpc(u, v)).imag) for u, v in zip(at_re, at_im, strict=True)])
    with np.errstate(invalid="ignore"):
        assert not np.isfinite(pytensor.function([re, im], out, mode="FAST_RUN")(at_re[:1], at_im[:1])[0])
    _accurate_and_typed(f, out, (at_re, at_im), ref, 1e-14, 2.0, 1.0)


def test_a_cached_form_reads_the_new_graphs_input_beside_its_region(monkeypatch):
    """A second region of the same structure, over other inputs, reuses the form found for the first: the form
    reads the input the leaf reads beyond the region (``im``) as the second graph's, never the first's."""
    monkeypatch.setattr(relations.saturation.stabilizing, "stabilize", _finding_the_complex_root([]))
    re1, im1 = pt.dvector("re1"), pt.dvector("im1")
    S.clear_outcomes()
    first = S.MeasuredBudget()
    assert len(S.measured([_complex_root_im(re1, im1)], first)) == 1 and first.stabilized == 1
    re2, im2 = pt.dvector("re2"), pt.dvector("im2")
    second = S.MeasuredBudget()
    [(_, new)] = S.measured([_complex_root_im(re2, im2)], second)
    assert second.cached == 1 and second.stabilized == 0
    reads = set(pytensor.graph.traversal.explicit_graph_inputs([new]))
    assert {re2, im2} <= reads and not {re1, im1} & reads
    f = pytensor.function([re2, im2], new, mode="FAST_COMPILE")
    np.testing.assert_allclose(f(np.array([1e10, -3.0]), np.array([1.0, 4.0])), [5e-6, 2.0], rtol=1e-14)




def _zip_logp0_stable(w, lam):
    """``log((1 - w) + w exp(-lam))`` as ``log1p(w expm1(-lam))`` where that sum is within 1/2 of 1, and as
    ``logaddexp(log1p(-w), log(w) - lam)`` elsewhere."""
    near = pt.lt(pt.abs(w * pt.expm1(-lam)), 0.5)
    return pt.switch(near, pt.log1p(pt.switch(near, w * pt.expm1(-lam), 0.0)), pt.logaddexp(pt.log1p(-w), pt.log(w) - lam))


def _refused_then_found(firsts):
    """A stand-in for ``relations.stabilize``: without ``first`` points, ``log1p(w expm1(-lam))`` (exact near 1,
    ``-inf`` at ``w = 1``, ``lam = 40``, where the spelling is right); with them, :func:`_zip_logp0_stable`.
    Records each call's ``first``."""
    from pytensor.graph.traversal import explicit_graph_inputs

    def stabilize(graph, first=None, **kwargs):
        firsts.append(first)
        w, lam = sorted((v for v in explicit_graph_inputs([graph]) if v.name), key=lambda v: v.name != "w")
        found = pt.log1p(w * pt.expm1(-lam)) if first is None else _zip_logp0_stable(w, lam)
        ST = relations.saturation.stabilizing
        return ST.Stabilized([found], [(9.0, 60.0)], [(0.0, 0.0)], sites=[ST.Site(graph, found, 9.0, 0.0)])

    return stabilize


def test_a_form_that_loses_elsewhere_is_found_again_with_those_points_first(monkeypatch):
    """A zero-inflated Poisson's ``log p(0)``, ``log((1 - w) + w exp(-lam))``, keeps 6 digits at ``w = 1``,
    ``lam = 1e-10``.  A form chosen on ``stabilize``'s sample, ``log1p(w expm1(-lam))``, is exact there and
    ``-inf`` at ``w = 1``, ``lam = 40``, where the spelling is right: the check that refuses it gives the points
    where it loses, and ``stabilize`` is called again with them first; its form there is kept."""
    import mpmath as mp

    firsts: list = []
    monkeypatch.setattr(relations.saturation.stabilizing, "stabilize", _refused_then_found(firsts))
    w, lam = pt.dvector("w"), pt.dvector("lam")
    out = pt.log((1 - w) + w * pt.exp(-lam))
    S.clear_outcomes()  # (the session's store: conftest.py)
    stage = S.register_measured()
    f = pytensor.function([w, lam], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced == 1
    assert firsts[0] is None and firsts[-1] is not None  # refused, then found again with its losing points
    at = dict(zip(firsts[-1].inputs, (np.asarray(v).ravel() for v in firsts[-1].values), strict=True))
    assert np.any((at[w] == 1.0) & (at[lam] >= 20.0))  # where the first form is -inf
    at_w, at_lam = np.array([1.0, 1.0, 0.3, 1e-20, 0.5, 1.0]), np.array([1e-10, 40.0, 2.0, 1.0, 3.0, 700.0])
    with mp.workdps(50):
        ref = np.array([float(mp.log((1 - mp.mpf(p)) + p * mp.exp(-m))) for p, m in zip(at_w, at_lam, strict=True)])
    assert abs(pytensor.function([w, lam], out, mode="FAST_RUN")(at_w[:1], at_lam[:1])[0] / ref[0] - 1) > 1e-8
    _accurate_and_typed(f, out, (at_w, at_lam), ref, 1e-14, 0.5, 1.0)


def test_a_matrix_region_flagged_on_draws_and_on_the_grid_keeps_both_points():
    """The screen of a whole region joins the points of every kind that flags it; for a matrix input the
    draws hold 2 x 2 elements a point and the grid one, and the join raised (a ValueError the screen read as
    "cannot be measured"), so a region such as ``exp(x[None]) / sum(exp(x), 1, keepdims=True)[None]`` was
    kept as accurate.  A point of one element stands for that value in every element."""
    from relations.saturation.accuracy import Points
    from relations.saturation.regimes import join_points

    x = pt.dmatrix("x")
    g = pt.sum((x + 1) ** 2 - x**2, axis=1)  # cancels where x is large: flagged on the draws and on the grid
    alone = S._screen(g)
    found = S._screen(g, corners=True)
    assert found is not None and found.values[0].shape[1:] == (2, 2) and found.n > alone.n
    a = Points((x,), (np.arange(8.0).reshape(2, 2, 2),), 2, 2)
    b = Points((x,), (np.array([[[5.0]], [[-1.0]]]),), 2, 2)
    joined = join_points(a, b)
    assert joined.n == 4 and joined.values[0].shape == (4, 2, 2)
    np.testing.assert_array_equal(joined.values[0][2:], [np.full((2, 2), 5.0), np.full((2, 2), -1.0)])
    with pytest.raises(ValueError):
        join_points(a, Points((x,), (np.zeros((1, 3, 3)),), 1, 1))


def test_a_kind_of_points_that_cannot_be_drawn_leaves_the_others(monkeypatch):
    """The screen draws each kind of points apart: one that raises (here the grid, as for a region reshaped to a
    constant shape, whose grid points of one element do not fit it) is passed over, and the region is still
    flagged on the others; before, one kind raising discarded them all and the region went unmeasured."""
    import relations.saturation.accuracy as acc

    x = pt.dvector("x")
    g = pt.sum((x + 1) ** 2 - x**2)  # cancels where x is large
    assert S._screen(g, corners=True) is not None

    def no_grid(*args, **kwargs):
        raise ValueError("no grid for this region")

    monkeypatch.setattr(acc, "grid_points", no_grid)
    found = S._screen(g, corners=True)
    assert found is not None and found.n > 0
    assert S._screen(g) is not None  # the draws flag it first
    monkeypatch.setattr(acc, "sample_points", no_grid)
    assert S._screen(g) is None  # no kind left without corners
