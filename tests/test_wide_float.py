"""The cheap screen of the measured stabilizing stage: float64 against extended precision, numpy only."""

import numpy as np
import pytensor.tensor as pt
import pytest

from graph_bridge.wide_float import WIDE, evaluate, wide_gap, wide_screen
from helpers import snapshot

x = pt.dscalar("x")
y = pt.dvector("y")


@pytest.mark.parametrize("name, graph", [
    ("exp(x) - 1", pt.exp(x) - 1),
    ("exp(x) / (exp(x) - 1)", pt.exp(x) / (pt.exp(x) - 1)),
    ("log(1 + exp(x))", pt.log(1 + pt.exp(x))),
    ("log(erfc(x))", pt.log(pt.erfc(x))),
    ("log(sum(exp(y)))", pt.log(pt.sum(pt.exp(y)))),
])
def test_flags_inaccurate_spellings(name, graph):
    assert wide_gap(graph, n=16) > 1.0, name


@pytest.mark.parametrize("name, graph", [
    ("expm1(x)", pt.expm1(x)),
    ("softplus(x)", pt.softplus(x)),
    ("log1p(x)", pt.log1p(x)),
    ("x + 1", x + 1.0),
    ("normal logp", -0.5 * ((x - 1.0) / 2.0) ** 2 - pt.log(2.0)),
])
def test_passes_stable_spellings(name, graph):
    assert wide_gap(graph, n=16) <= 1.0, name


def test_evaluate_keeps_the_extended_range():
    [lo] = evaluate([pt.log(1 + pt.exp(x))], {x: np.array(800.0)}, np.float64)
    [hi] = evaluate([pt.log(1 + pt.exp(x))], {x: np.array(800.0)}, WIDE)
    assert np.isinf(lo) and hi.dtype == WIDE and abs(float(hi) - 800.0) < 1e-12
    [s] = evaluate([pt.special.softmax(y)], {y: np.array([0.0, np.log(3.0)])}, WIDE)
    np.testing.assert_allclose(s.astype(float), [0.25, 0.75])


def test_unknown_op_and_integer_input():
    with pytest.raises(NotImplementedError):
        wide_gap(pt.linalg.det(pt.dmatrix("m")) + 1.0)
    assert wide_gap(pt.exp(pt.lscalar("k")) + x) is None


def test_the_grid_flags_a_cancellation_bit_uniform_draws_miss():
    # softplus(x) - x cancels for x in [20, 700] only: a few percent of bit-uniform draws
    out = pt.softplus(y) - y
    assert wide_screen(out, n=16)[0] <= 1.0
    assert wide_screen(out, n=16, grid=True)[0] > 1.0
    assert wide_screen(pt.softplus(-y), n=16, grid=True)[0] <= 1.0


def test_float32_is_screened_in_float32_bits():
    xf = pt.fvector("xf")
    bad = wide_screen(pt.exp(xf) - 1, n=16, grid=True).mean
    good = wide_screen(pt.expm1(xf), n=16, grid=True).mean
    assert bad is not None and 1.0 < bad <= 32.0
    assert good is not None and good <= 1.0
    assert wide_screen(pt.exp(xf) + y, n=4)[0] is not None  # float32 and float64 inputs together


def test_the_flat_screen_sees_what_the_grid_screen_sees_in_one_evaluation():
    from graph_bridge.wide_float import wide_screen_flat

    x = pt.dvector("x")
    cancels, never = pt.softplus(x) - x, x + 2.0 * pt.softplus(-x)
    flat, per_point = wide_screen_flat(cancels), wide_screen(cancels, grid=True)
    assert flat.lost > 0 and per_point.lost > 0 and flat.mean > 1.0  # x = 40: 0 where the value is 4.2e-18
    calm = wide_screen_flat(never)
    assert calm.lost == 0 and calm.mean < 1.0
    assert wide_screen_flat(pt.sum(pt.exp(x))) is None  # not Elemwise only: the per-point screen's
    assert wide_screen_flat(pt.ivector("i") + 1) is None  # an integer input: nothing to draw
    x32 = pt.fvector("x32")
    f32 = wide_screen_flat(pt.constant(np.float32(1.0)) - pt.cos(x32))
    assert f32.lost > 0  # 1 - cos(1e-10) is 0 in float32


def test_a_fill_is_evaluated_as_its_second_operand_in_the_first_ones_shape():
    """``second(a, b)`` (a gradient's ``fill``): ``b`` broadcast to the shape of ``a``, in the held precision."""
    from pytensor.tensor.basic import second

    [v] = evaluate([second(y, x * 2.0)], {y: np.zeros(3), x: np.array(1e300)}, WIDE)
    assert v.shape == (3,) and v.dtype == WIDE and np.all(np.isfinite(v)) and float(v[0]) == 2e300
    [e] = evaluate([second(y, x)], {y: np.zeros(0), x: np.array(1.0)}, np.float64)
    assert e.shape == (0,)


def test_the_flat_screen_refuses_a_region_holding_a_data_vector():
    """A model's data vector in a region (eight schools' ``sigma``, 8 entries): one entry per point would not
    broadcast with it, so the flat screen gives ``None`` (the per-point screen measures such a region)."""
    from graph_bridge.wide_float import GAP_GRID, wide_screen_flat

    data = pt.constant(np.arange(1.0, 9.0))
    region = pt.log(1 + y**2 / data)
    assert wide_screen_flat(region, n=0, grid=GAP_GRID) is None
    assert wide_screen_flat(pt.log(1 + y**2), n=0, grid=GAP_GRID) is not None


def test_gammaln_near_its_zeros_keeps_the_extended_argument():
    # gammaln(1 + x) at x = 1e-10: float64's 1 + x keeps 6 digits of x, extended precision 9 more; gammaln is
    # computed in float64 from the extended argument corrected by psi(1 + x) (x - its float64), so the screen
    # sees the loss, as it sees log(1 + x)'s
    assert wide_gap(pt.gammaln(1 + x), n=16) > 1.0
    assert wide_gap(pt.gammaln(x), n=16) <= 1.0
    [v] = evaluate([pt.gammaln(1 + x)], {x: np.array([1e-10], dtype=WIDE)})
    assert abs(float(v[0]) / (-0.5772156649015329e-10) - 1) < 1e-8


def test_a_fused_composite_is_evaluated_through_its_scalar_ops():
    import pytensor
    from pytensor.compile.mode import Mode

    v = pt.dvector("v")
    f = pytensor.function([v], v**4 + pt.exp(v) * 2.0, mode=Mode(linker="py", optimizer="fast_run"))
    fused = f.maker.fgraph.outputs[0]
    assert any(type(getattr(n.op, "scalar_op", None)).__name__ == "Composite" for n in f.maker.fgraph.apply_nodes)
    at = np.array([0.5, -3.0, 20.0])
    [got] = evaluate([fused], {f.maker.fgraph.inputs[0]: at}, dtype=np.float64)
    np.testing.assert_allclose(got, at**4 + np.exp(at) * 2.0, rtol=1e-15)
    [wide] = evaluate([fused], {f.maker.fgraph.inputs[0]: at}, dtype=WIDE)
    assert wide.dtype == WIDE


def test_the_diagonal_screen_finds_where_two_inputs_nearly_agree():
    from graph_bridge.wide_float import DIAGONAL_FRACTIONS, diagonal_cancels

    u, w = pt.dvector("u"), pt.dvector("w")
    at = diagonal_cancels(u * u - w * w, cap=3)
    assert at is not None and len(at[u]) == 3 * len(DIAGONAL_FRACTIONS)  # up to cap of each fraction
    rel = np.abs(at[u] / at[w] - 1)
    assert (rel > 0).all() and (rel < 2.0**-20).all()  # the points lose the most where they agree the most
    assert diagonal_cancels(u * u + w * w) is None  # no cancellation
    assert diagonal_cancels((u - w) * (u + w)) is None  # the difference of inputs rounds once
    assert diagonal_cancels(u * u - 2.0) is None  # one input: not the diagonal's


def test_the_diagonal_screen_finds_a_log_ratio_near_one_where_the_ratio_rounds():
    # log(u / w) loses the digits of u / w's rounding near u = w: none where w = u (1 + 2**-k), the ratio exact,
    # about 23 of 53 bits at w = u (1 + 0.75 * 2**-30)
    from graph_bridge.wide_float import DIAGONAL_FRACTIONS, diagonal_cancels

    u, w = pt.dvector("u"), pt.dvector("w")
    at = diagonal_cancels(pt.log(u / w), cap=2)
    assert at is not None
    ratio = at[w] / at[u] - 1
    off = np.abs(ratio) / 2.0 ** np.round(np.log2(np.abs(ratio)))
    assert not np.isclose(off, 1.0).all()  # a point off a power of 2
    assert min(DIAGONAL_FRACTIONS) < 1.0


def test_casts_and_shapes_are_evaluated_at_the_held_precision():
    # a mean's count (a cast of a shape), a copula's dimension (Shape_i): a region holding them is screened, not
    # passed as unknown
    from pytensor.graph.traversal import graph_inputs

    m, w = pt.dmatrix("m"), pt.dvector("w")
    k = pt.lvector("k")
    graphs = [pt.log(1 + m).sum(-1) / m.shape[-1], pt.log(1 + pt.cast(k, "float64")),
              pt.exp(m).sum(0) - m.shape[0], pt.cast(pt.exp(w), "float32") * 1.0]
    values = {m: np.array([[1e-10, 2.0, 3.0], [0.5, 0.0, 4.0]]), w: np.array([1.0, -2.0, 3.0]), k: np.array([0, 3])}
    for g in graphs:
        ins = {v: values[v] for v in (m, w, k) if v in graph_inputs([g])}
        for dtype in (np.float64, WIDE):
            [got] = evaluate([g], ins, dtype)
            ref = g.eval({v: x for v, x in ins.items()})
            np.testing.assert_allclose(got.astype(float), ref, rtol=1e-6 if g.dtype == "float32" else 1e-15)
    [wide] = evaluate([graphs[0]], {m: values[m]}, WIDE)
    assert wide.dtype == WIDE
    for empty in (np.zeros((0, 3)), np.zeros((2, 0))):
        [got] = evaluate([pt.exp(m) + m.shape[1]], {m: empty}, WIDE)
        assert got.shape == empty.shape
    with pytest.raises(NotImplementedError):  # a screen stacks its points on the leading axis: no dot of them
        evaluate([pt.dot(m, w)], {m: values[m], w: values[w]}, WIDE)


def test_erfinv_near_1_keeps_the_extended_argument():
    # erfinv(1 - x) at x = 1e-12: float64's 1 - x keeps 4 digits of x; the screen corrects float64's erfinv by
    # its derivative times what the float64 argument rounded off, and sees the loss
    assert wide_gap(pt.erfinv(1 - x), n=16) > 1.0
    import mpmath as mp

    with mp.workdps(40):
        exact = float(mp.erfinv(1 - mp.mpf(1e-12)))
    [v] = evaluate([pt.erfinv(1 - x)], {x: np.array([1e-12], dtype=WIDE)})
    [f] = evaluate([pt.erfinv(1 - x)], {x: np.array([1e-12])}, np.float64)
    assert abs(float(v[0]) / exact - 1) < 1e-9 < abs(float(f[0]) / exact - 1)
    [c] = evaluate([pt.erfcinv(x)], {x: np.array([1e-12, 0.5], dtype=WIDE)})
    np.testing.assert_allclose(c.astype(float), [exact, 0.4769362762044699], rtol=1e-13)


def test_losing_points_are_where_a_form_loses_a_value_the_spelling_keeps():
    from graph_bridge.wide_float import losing_points

    a, b = pt.dvector("a"), pt.dvector("b")
    split, joined = pt.sqr(a) / pt.sqr(b), pt.sqr(a / b)  # NaN at a = b = 1e200, where (a / b)**2 is 1
    before = snapshot(split, joined)
    at = losing_points(split, joined)
    assert at is not None and set(at) == {a, b} and 0 < len(at[a]) <= 16
    with np.errstate(all="ignore"):
        assert not np.isfinite(at[a] ** 2 / at[b] ** 2).all()
    assert losing_points(joined, split) is None
    assert losing_points(joined, joined) is None
    assert losing_points(pt.exp(a), joined) is None  # not over the same inputs
    assert snapshot(split, joined) == before


def test_the_measured_stage_refuses_a_form_that_loses_a_value_where_the_spelling_is_right():
    from relations.compile import stabilize as S

    # compared as PyTensor's rewrites leave them (exp(a) * exp(b) they make exp(a + b)); sqr(a) / sqr(b) is NaN
    # at a = b = 1e200, where (a / b)**2 is 1
    a, b = pt.dvector("a"), pt.dvector("b")
    assert not S._no_loss_elsewhere(pt.sqr(a) / pt.sqr(b), pt.sqr(a / b))
    assert S._no_loss_elsewhere(pt.sqr(a / b), pt.sqr(a) / pt.sqr(b))
    assert S._no_loss_elsewhere(pt.exp(a) * pt.exp(b), pt.exp(a + b))
