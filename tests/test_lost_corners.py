"""Corners: the points where a graph loses a value whole at combinations of extreme magnitudes of its inputs.

``y * exp(x)`` is ``inf`` at ``x = 800``, ``y = 1e-300``, where it is ``e**109.2``; the logistic density
``exp(x) / (1 + exp(x))**2`` is 0 at ``x = 400``, where it is ``e**-400``.  Sampled points (uniform over bit
patterns) and the grid's shuffled pairs seldom fall there, so a form that repairs them ties with the spelling
everywhere they are measured.  :func:`graph_bridge.wide_float.lost_corners` screens every combination of
:data:`~graph_bridge.wide_float.CORNERS` in numpy's extended precision; ``relations.stabilize`` measures its
forms there too, and the measured stage flags a region that loses a value at one.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.interval_type import Interval
from graph_bridge.wide_float import CORNERS, lost_corners
from helpers import assert_same_types, snapshot
from relations.saturation.stabilizing import corner_points

mp.mp.dps = 50


def test_lost_corners_keeps_each_way_of_losing_a_value():
    # softplus(x) - x * y overflows to inf at most corners (x = 720, y = -1e200, ...); at x = 40, y = 1 it cancels
    # to 0 (it is -softplus(-40) = 4.2e-18 off 0), and a pick drawn from all of them alike seldom held that
    x, y = pt.dvector("x"), pt.dvector("y")
    out = pt.log(1 + pt.exp(x)) - x * y
    at = lost_corners(out, cap=2)
    assert at is not None and len(at[x]) == 2
    with np.errstate(all="ignore"):
        got = pytensor.function([x, y], out, mode="FAST_COMPILE")(at[x], at[y])
    assert np.isinf(got).any() and (got == 0).any()
    assert 1.0 in CORNERS and -1.0 in CORNERS


def test_lost_corners_finds_where_y_times_exp_x_overflows_and_nothing_in_an_accurate_graph():
    x, y = pt.dvector("x"), pt.dvector("y")
    at = lost_corners(y * pt.exp(x), cap=8)
    assert at is not None and len(at[x]) == 8 == len(at[y])
    with np.errstate(all="ignore"):
        naive = at[y] * np.exp(at[x])
    exact = np.array([float(v * mp.exp(u)) for u, v in zip(at[x], at[y], strict=True)])
    assert (~np.isfinite(naive) | (naive == 0)).all() and np.isfinite(exact).all() and (exact != 0).all()
    assert set(at[x]) <= set(CORNERS) and set(at[y]) <= set(CORNERS)
    assert lost_corners(x + y) is None
    assert lost_corners(pt.sum(x)) is None  # not an elementwise graph: the screen does not take it


def test_lost_corners_keeps_float32_inside_its_range():
    """Magnitudes float32 cannot hold (1e300, and 1e-300, which would round to 0) are not screened."""
    x, y = pt.fvector("x"), pt.fvector("y")
    at = lost_corners(pt.sqrt(x * x + y * y))  # the squares overflow float32 from 1.8e19
    assert at is not None and at[x].dtype == np.float32 and np.isfinite(at[x]).all() and np.isfinite(at[y]).all()
    big = np.maximum(np.abs(at[x]), np.abs(at[y]))
    assert ((big >= 1e30) | (big <= 1e-30)).all() and (big > 0).all()  # overflowing or underflowing squares


def test_corner_points_carry_exact_values_and_respect_a_domain():
    x, y = pt.dvector("x"), pt.dvector("y")
    g = y * pt.exp(x)
    pts = corner_points([g])
    assert pts is not None and pts.n > 0 and pts.values[0].shape == (pts.n, 1)
    inside = corner_points([g], ((y, Interval(0, np.inf, lo_open=True)),))
    assert inside is None or (inside.values[1] > 0).all()


def test_stabilize_repairs_y_times_exp_x_without_being_given_points():
    x, y = pt.dvector("x"), pt.dvector("y")
    g = y * pt.exp(x)
    before = snapshot(g)
    s = relations.stabilize(g)
    assert s.changed
    assert_same_types(g, s.graph)
    assert snapshot(g) == before
    f = pytensor.function([x, y], s.graph, mode="FAST_COMPILE")
    xs, ys = np.array([800.0, -750.0, 1.0, 3.0]), np.array([1e-300, 1e300, 2.0, -4.0])
    want = [float(v * mp.exp(u)) for u, v in zip(xs, ys, strict=True)]
    np.testing.assert_allclose(f(xs, ys), want, rtol=1e-13)


def test_the_measured_stage_repairs_the_logistic_density_the_fast_pass_leaves():
    x = pt.dvector("x")
    g = pt.exp(x) / (1 + pt.exp(x)) ** 2
    at = np.array([400.0, 800.0, -40.0, 3.0, 0.0])
    want = [float(mp.exp(-abs(mp.mpf(v))) / (1 + mp.exp(-abs(mp.mpf(v)))) ** 2) for v in at]
    with np.errstate(all="ignore"):
        fast = pytensor.function([x], g, mode=relations.mode())(at)
    assert not np.allclose(fast, want, rtol=1e-13)  # the fast pass leaves it: 0 and NaN at 400 and 800
    accurate = pytensor.function([x], g, mode=relations.mode(*relations.ACCURATE_TAGS))(at)
    np.testing.assert_allclose(accurate, want, rtol=1e-13)


def test_an_input_narrower_than_the_output_keeps_to_its_own_range():
    import warnings

    xf, yd = pt.fvector("xf"), pt.dvector("yd")
    out = xf * pt.exp(yd)  # float64: its corners reach 1e300, beyond xf's float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the cast of 1e300 to float32 warned of an overflow
        at = lost_corners(out)
    assert at is not None and np.isfinite(at[xf]).all() and at[xf].dtype == np.float32
    assert np.abs(at[xf]).max() <= np.finfo(np.float32).max


def test_matrix_inputs_beside_a_padded_constant_are_one_entry_a_point():
    # a region cut below a reduction reads matrices; its constants are padded to (1, 1): each input's column of
    # points goes on its leading axis, so the output keeps one entry a point (it broadcast to (1, n) and raised)
    from graph_bridge.wide_float import diagonal_cancels

    m, k = pt.dmatrix("m"), pt.dmatrix("k")
    at = lost_corners(pt.exp(m) * k + 1.0)
    assert at is not None and all(v.ndim == 1 for v in at.values())
    got = pytensor.function([m, k], pt.exp(m) * k + 1.0, mode="FAST_COMPILE")(at[m][:, None], at[k][:, None])
    assert not np.isfinite(got).all() or (got == 1.0).any()  # where the value is lost whole
    d = diagonal_cancels(m * m - k * k + 0.0)
    assert d is not None and np.all(np.abs(d[k] / d[m] - 1) < 2.0**-9)


@pytest.mark.parametrize("dtype, at", [("float64", 720.0), ("float32", 95.0)])
def test_a_corner_just_past_where_exp_overflows(dtype, at):
    # the hyperbolic secant as Herbie's benchmark writes it: exp(x) is inf from 709.8 (88.7 in float32), and
    # the value 2 e**-x is a float until 745 (103.9): the corners include a magnitude in that window
    v = pt.vector("v", dtype=dtype)
    found = lost_corners(2 / (pt.exp(v) + pt.exp(-v)))
    assert found is not None and set(np.abs(found[v]).tolist()) == {at}
