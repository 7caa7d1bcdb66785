"""Guarded forms in extraction: a regime rule's ``switch(cond, form, <the spelling>)`` chosen by measured accuracy.

A regime rule of the numerics theory (``log_beta_regimes``, ``hypot_regimes``, ``mul_exp_regimes``, ...)
adds to the spelling's e-class a ``switch`` whose branch not taken is the class itself, and whose
condition often reads the spelling's own value (``inf`` or NaN where a ``gamma`` overflowed).  Extraction
(:func:`relations.saturation.accuracy.measured_choice`) chooses it where it is more accurate and builds it
reading the choice it replaced there (its fallback), so ``relations.stabilize`` returns a graph, not a
cycle.  Each case is checked against mpmath at the extreme inputs the rule repairs, for types, and for an
input graph left as it was.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest

import relations
from helpers import assert_same_types, snapshot
from relations.rules.numerics import NUMERICS_RULES
from relations.saturation.accuracy import Choice, build_choice, measured_choice, sample_points
from relations.saturation.engine.egraph import EGraph
from relations.saturation.engine.query import query_rule
from relations.saturation.engine.runner import Limits, Runner

mp.mp.dps = 50


def _rule(name: str) -> list:
    return [r for r in NUMERICS_RULES if r.__name__ == name]


def _points(**cols: list[float]) -> dict:
    return {k: np.array(v)[:, None] for k, v in cols.items()}


def _check(graph, inputs, points, reference, rtol=1e-13, rules=None):
    before = snapshot(graph)
    s = relations.stabilize(graph, rules=rules, points={v: points[v.name] for v in inputs})
    assert s.changed and isinstance(s.graph.owner.op.scalar_op, ps.Switch)
    assert_same_types(graph, s.graph)
    assert snapshot(graph) == before
    f = pytensor.function(inputs, s.graph, mode="FAST_COMPILE")
    cols = [points[v.name][:, 0] for v in inputs]
    got = f(*cols)
    want = np.array([float(reference(*[mp.mpf(float(x)) for x in row])) for row in zip(*cols, strict=True)])
    np.testing.assert_allclose(got, want, rtol=rtol)
    return s


def test_log_beta_regimes_is_extracted_where_a_gamma_overflows():
    a, b = pt.dvector("a"), pt.dvector("b")
    g = pt.log(pt.gamma(a) * pt.gamma(b) / pt.gamma(a + b))
    pts = _points(a=[200.0, 300.0, 2.0, 0.5], b=[3.0, 400.0, 5.0, 0.5])
    _check(g, [a, b], pts, lambda x, y: mp.log(mp.beta(x, y)), rules=_rule("log_beta_regimes"))


def test_hypot_regimes_repairs_overflow_and_underflow_of_the_squares():
    x, y = pt.dvector("x"), pt.dvector("y")
    pts = _points(x=[1e200, 1e-200, 3.0, 1e300], y=[1e200, 3e-200, 4.0, 1.0])
    _check(pt.sqrt(x * x + y * y), [x, y], pts, lambda u, v: mp.sqrt(u * u + v * v), rtol=4e-16)


def test_hypot3_regimes_scales_three_squares():
    x, y, z = pt.dvector("x"), pt.dvector("y"), pt.dvector("z")
    pts = _points(x=[1e200, 1e-200, 3.0, 1e300], y=[1e200, 3e-200, 4.0, 1.0], z=[1.0, 0.0, 12.0, 1.0])
    _check(pt.sqrt(x * x + y * y + z * z), [x, y, z], pts, lambda u, v, w: mp.sqrt(u * u + v * v + w * w),
           rtol=6e-16, rules=_rule("hypot3_regimes"))


def test_mul_exp_regimes_takes_the_factor_into_the_exponent_only_where_exp_alone_fails():
    x, y = pt.dvector("x"), pt.dvector("y")
    pts = _points(x=[800.0, -750.0, 1.0, 3.0], y=[1e-300, 1e300, 2.0, -4.0])
    s = _check(y * pt.exp(x), [x, y], pts, lambda u, v: v * mp.exp(u), rtol=1e-13, rules=_rule("mul_exp_regimes"))
    # where exp(x) is finite the spelling is kept: the same floats
    f = pytensor.function([x, y], s.graph, mode="FAST_COMPILE")
    at_x, at_y = np.array([1.0, -3.0, 700.0]), np.array([2.0, -4.5, 1e-5])
    np.testing.assert_array_equal(f(at_x, at_y), at_y * np.exp(at_x))


def test_pow_div_gamma_regimes_is_finite_where_the_power_or_gamma_overflows():
    n, x = pt.dvector("n"), pt.dvector("x")
    pts = _points(n=[200.0, 171.0, 5.0, 1000.0], x=[100.0, 10.0, 2.0, 500.0])
    _check(x**n / pt.gamma(n + 1), [n, x], pts, lambda k, v: v**k / mp.gamma(k + 1), rtol=1e-12,
           rules=_rule("pow_div_gamma_regimes"))


@pytest.mark.parametrize("size", [0, 1])
def test_a_guarded_form_compiles_at_lengths_0_and_1(size):
    a, b = pt.dvector("a"), pt.dvector("b")
    g = pt.log(pt.gamma(a) * pt.gamma(b) / pt.gamma(a + b))
    s = relations.stabilize(g, rules=_rule("log_beta_regimes"),
                            points={a: np.array([[200.0], [2.0]]), b: np.array([[3.0], [5.0]])})
    f = pytensor.function([a, b], s.graph, mode="FAST_COMPILE")
    av, bv = np.full(size, 250.0), np.full(size, 4.0)
    out = f(av, bv)
    assert out.shape == (size,)
    np.testing.assert_allclose(out, [float(mp.log(mp.beta(250, 4)))] * size, rtol=1e-13)


def test_the_choice_of_a_guarded_form_keeps_its_fallback_and_builds_a_graph():
    """The guarded e-node reads its own class; the choice records the e-node it replaced, which the built
    graph reads in its place (no cycle), and the relaxation converges."""
    a, b = pt.dvector("a"), pt.dvector("b")
    g = pt.log(pt.gamma(a) * pt.gamma(b) / pt.gamma(a + b))
    eg = EGraph()
    cls = eg.add_graph_classes([g])
    root = eg.find(cls[g])
    Runner(eg, [query_rule(r) for r in _rule("log_beta_regimes")], Limits(nodes=500, iterations=3)).run()
    pts = sample_points([g], given={a: np.array([[200.0], [2.0]]), b: np.array([[3.0], [5.0]])})
    choice: Choice = measured_choice(eg, pts)
    assert choice.converged and root in choice.fallback
    assert eg.find(root) in [eg.find(k) for k in choice.enode[root][1:]]  # the switch reads its own class
    (built,) = build_choice(eg, choice, [root])
    assert isinstance(built.owner.op.scalar_op, ps.Switch)
    f = pytensor.function([a, b], built, mode="FAST_COMPILE")
    np.testing.assert_allclose(f(np.array([200.0, 2.0]), np.array([3.0, 5.0])),
                               [float(mp.log(mp.beta(200, 3))), float(mp.log(mp.beta(2, 5)))], rtol=1e-13)


def test_hypot_shift_regimes_scales_a_square_beside_any_term():
    """Squareplus's root, ``sqrt(x**2 + b)``: ``inf`` from ``|x| = 1.3e154`` (the square overflows) and ``sqrt(b)``
    where ``x**2 + b`` is below 1e-290 and ``b`` is not a square (no ``hypot_regimes``)."""
    x, b = pt.dvector("x"), pt.dvector("b")
    pts = _points(x=[1e200, -1e300, 3.0, 1e-200, -2.0], b=[4.0, 1.0, 16.0, 1e-300, -3.0])
    _check(pt.sqrt(x**2 + b), [x, b], pts, lambda u, v: mp.sqrt(u * u + v), rtol=4e-16,
           rules=_rule("hypot_shift_regimes") + _rule("unpow2"))


def test_log1p_pow_regimes_takes_the_log_of_a_power_that_overflows():
    """The Burr log-CDF's ``log1p(x ** -c)``: ``inf`` at ``x = 1e-10``, ``c = 40``, where it is ``921``."""
    x, c = pt.dvector("x"), pt.dvector("c")
    pts = _points(x=[1e-10, 1e-300, 3.0, 0.5, 1e10], c=[40.0, 2.0, 1.5, 3.0, 40.0])
    s = _check(pt.log1p(x ** -c), [x, c], pts, lambda u, v: mp.log1p(u**-v), rtol=1e-15,
               rules=_rule("log1p_pow_regimes"))
    # where the power is finite the spelling is kept: the same floats
    f = pytensor.function([x, c], s.graph, mode="FAST_COMPILE")
    at_x, at_c = np.array([3.0, 1e10, 0.5, -2.0]), np.array([1.5, 40.0, 3.0, 2.0])
    np.testing.assert_array_equal(f(at_x, at_c), np.log1p(at_x**-at_c))


def test_sqrt_add_sub_regimes_takes_the_difference_exactly_where_b_is_positive():
    """A complex root's ``sqrt(re*re + im*im) - re``: 0 at ``re = 1e10``, ``im = 1``, where it is ``5e-11``."""
    re, im = pt.dvector("re"), pt.dvector("im")
    pts = _points(re=[1e10, 1e5, -3.0, 2.0, 0.0], im=[1.0, 1e-8, 4.0, 5.0, 2.0])
    s = _check(pt.sqrt(re * re + im * im) - re, [re, im], pts, lambda u, v: mp.sqrt(u * u + v * v) - u, rtol=1e-15,
               rules=_rule("sqrt_add_sub_regimes"))
    f = pytensor.function([re, im], s.graph, mode="FAST_COMPILE")  # where re <= 0 the spelling is kept
    at_re, at_im = np.array([-3.0, 0.0, -1e10]), np.array([4.0, 2.0, 1.0])
    np.testing.assert_array_equal(f(at_re, at_im), np.sqrt(at_re * at_re + at_im * at_im) - at_re)
