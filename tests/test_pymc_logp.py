"""``relations.pymc.logp``: PyMC's logprob modulo the measurable rules, on a corpus with reference densities.

Every case of :data:`CORPUS` has a density written independently of PyMC
(scipy.stats, or the change of variables by hand) and a kind:

- ``fails``: stock ``pm.logp`` raises; ``relations.pymc.logp`` derives from an
  equal form and matches the reference;
- ``control``: stock derives it right; ``relations.pymc.logp`` gives stock's value;
- ``wrong``: stock derives a wrong value (a transform of a censored variable
  takes a Jacobian term at the censored point); the cross-check raises
  ``DensityMismatch`` naming both forms, never a silent value;
- ``underivable``: no equal form derives (a mixture whose indicator is a
  random variable needs marginalizing, a sum of two random variables a
  convolution); ``NotDerivable`` lists the forms tried (pymc #6691).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pm = pytest.importorskip("pymc", reason="PyMC 6 needs Python >= 3.12 (PyTensor 3.3): relations.pymc is not tested here")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from scipy import stats  # noqa: E402

import relations.pymc as rpm  # noqa: E402
from pymc_corpus import POS, SQ3, Case, N, S, _censored, _cube, _dirac_zeros, _leaky, _x, npdf  # noqa: E402


def _fails():
    A3, B3 = (lambda: N(-2.0, 1.0, shape=3)), (lambda: N(2.0, 1.0, shape=3))
    iv, cb = pt.lvector("iv"), pt.scalar("cb", dtype="bool")
    m23 = lambda: N(np.arange(6.0).reshape(2, 3), 1.0)  # noqa: E731
    return [
        Case("x + y (two iid normals)", "fails", lambda: (N(0, 1) + N(0, 1), {}), [0.5, -2.0],
             lambda v: npdf(v, 0, np.sqrt(2))),  # iid draws as one vector draw: sum(v)
        Case("x + x", "fails", lambda: ((lambda y: (y + y, {}))(_x())), S, lambda v: npdf(v, 0, 2)),
        Case("3*x - x", "fails", lambda: ((lambda y: (3 * y - y, {}))(_x())), S, lambda v: npdf(v, 0, 2)),
        Case("x - 3*x", "fails", lambda: ((lambda y: (y - 3 * y, {}))(_x())), S, lambda v: npdf(v, 0, 2)),
        Case("3*x + x", "fails", lambda: ((lambda y: (3 * y + y, {}))(_x())), S, lambda v: npdf(v, 0, 4)),
        Case("x - x/2", "fails", lambda: ((lambda y: (y - y / 2, {}))(_x())), S, lambda v: npdf(v, 0, 0.5)),
        Case("x/2 + x/2", "fails", lambda: ((lambda y: (y / 2 + y / 2, {}))(_x())), S, lambda v: npdf(v, 0, 1)),
        Case("2*(x + 1) - x", "fails", lambda: ((lambda y: (2 * (y + 1) - y, {}))(_x())), S, lambda v: npdf(v, 2, 1)),
        Case("x * x", "fails", lambda: ((lambda y: (y * y, {}))(_x())), POS, lambda v: stats.chi2.logpdf(v, 1)),
        Case("x * x * x", "fails", lambda: ((lambda y: (y * y * y, {}))(_x())), S, _cube),
        Case("e * e (exponential)", "fails", lambda: ((lambda y: (y * y, {}))(pm.Exponential.dist(1.0))), POS,
             lambda v: -np.sqrt(v) - np.log(2 * np.sqrt(v))),
        Case("3*e - e (exponential)", "fails", lambda: ((lambda y: (3 * y - y, {}))(pm.Exponential.dist(1.0))), POS,
             lambda v: stats.expon.logpdf(v, scale=2.0)),
        Case("exp(x) * exp(x)", "fails", lambda: ((lambda y: (pt.exp(y) * pt.exp(y), {}))(_x())), POS,
             lambda v: stats.lognorm.logpdf(v, s=2.0)),
        Case("exp(x) * exp(x) * exp(x)", "fails", lambda: ((lambda y: (pt.exp(y) * pt.exp(y) * pt.exp(y), {}))(_x())), POS,
             lambda v: stats.lognorm.logpdf(v, s=3.0)),
        Case("exp(x) / exp(x / 2)", "fails", lambda: ((lambda y: (pt.exp(y) / pt.exp(y / 2), {}))(_x())), POS,
             lambda v: stats.lognorm.logpdf(v, s=0.5)),
        Case("sum(v * 2)", "fails", lambda: (pt.sum(N(0, 1, shape=3) * 2), {}), S, lambda v: npdf(v, 0, 2 * SQ3)),
        Case("sum(2 * v)", "fails", lambda: (pt.sum(2 * N(0, 1, shape=3)), {}), S, lambda v: npdf(v, 0, 2 * SQ3)),
        Case("sum(v + 1)", "fails", lambda: (pt.sum(N(0, 1, shape=3) + 1), {}), S, lambda v: npdf(v, 3, SQ3)),
        Case("v[0] + v[1] + v[2]", "fails", lambda: ((lambda w: (w[0] + w[1] + w[2], {}))(N(0, 1, shape=3))), S,
             lambda v: npdf(v, 0, SQ3)),
        Case("v[0] + v[1] (of 3)", "fails", lambda: ((lambda w: (w[0] + w[1], {}))(N(0, 1, shape=3))), S,
             lambda v: npdf(v, 0, np.sqrt(2))),
        Case("where(x < -1, -1, where(x > 1, 1, x))", "fails",
             lambda: ((lambda y: (pt.where(y < -1, -1, pt.where(y > 1, 1, y)), {}))(_x())), [-1.0, 0.3, 1.0, 1.5],
             lambda v: _censored(v, -1, 1)),
        Case("where(x > 1, 1, where(x < -1, -1, x))", "fails",
             lambda: ((lambda y: (pt.where(y > 1, 1, pt.where(y < -1, -1, y)), {}))(_x())), [-1.0, 0.3, 1.0],
             lambda v: _censored(v, -1, 1)),
        Case("where(x < -1, -1, minimum(x, 1))", "fails",
             lambda: ((lambda y: (pt.where(y < -1, -1, pt.minimum(y, 1)), {}))(_x())), [-1.0, 0.3, 1.0],
             lambda v: _censored(v, -1, 1)),
        Case("where(x < 0, 0, x)", "fails", lambda: ((lambda y: (pt.where(y < 0, 0, y), {}))(_x())), [0.0, 0.5, -0.5],
             lambda v: _censored(v, 0, np.inf)),
        Case("where(x >= 0, x, 0)", "fails", lambda: ((lambda y: (pt.where(y >= 0, y, 0), {}))(_x())), [0.0, 0.5],
             lambda v: _censored(v, 0, np.inf)),
        Case("where(gt(0, x), 0, x)", "fails", lambda: ((lambda y: (pt.where(pt.gt(0, y), 0, y), {}))(_x())), [0.0, 0.5],
             lambda v: _censored(v, 0, np.inf)),
        Case("where(x > 1, 1, x)", "fails", lambda: ((lambda y: (pt.where(y > 1, 1, y), {}))(_x())), [1.0, 0.5, 1.5],
             lambda v: _censored(v, -np.inf, 1)),
        Case("where(x < 1, x, 1)", "fails", lambda: ((lambda y: (pt.where(y < 1, y, 1), {}))(_x())), [1.0, 0.5],
             lambda v: _censored(v, -np.inf, 1)),
        Case("where(x > 0, x, 0)", "fails", lambda: ((lambda y: (pt.where(y > 0, y, 0), {}))(_x())), [0.0, 0.5],
             lambda v: _censored(v, 0, np.inf)),
        Case("where(x < -1, -1, where(x < 1, x, 1))", "fails",
             lambda: ((lambda y: (pt.where(y < -1, -1, pt.where(y < 1, y, 1)), {}))(N(0.5, 1.0))), [-1.0, 0.0, 1.0],
             lambda v: _censored(v, -1, 1, loc=0.5)),
        Case("where(x <= 1, x, 1)", "fails", lambda: ((lambda y: (pt.where(y <= 1, y, 1), {}))(_x())), [1.0, 0.5],
             lambda v: _censored(v, -np.inf, 1)),
        Case("where(lt(1, x), 1, x)", "fails", lambda: ((lambda y: (pt.where(pt.lt(1, y), 1, y), {}))(_x())), [1.0, 0.5],
             lambda v: _censored(v, -np.inf, 1)),
        Case("where(x < 0, x / 2, x) (leaky ReLU)", "fails", lambda: ((lambda y: (pt.where(y < 0, 0.5 * y, y), {}))(_x())),
             [-0.8, 0.0, 0.6], _leaky),
        Case("c*a + (1 - c)*b, c boolean data", "fails",
             lambda: ((lambda a, b: (cb * a + (1 - cb) * b, {cb: True}))(N(-2, 1), N(2, 1))), [-1.0, 0.5, 2.5],
             lambda v: npdf(v, -2, 1), extra={"also": ({cb: False}, lambda v: npdf(v, 2, 1))}),
        Case("stack([a, b])[i, arange(3)]", "fails",
             lambda: (pt.stack([A3(), B3()])[iv, pt.arange(3)], {iv: np.array([0, 1, 0])}),
             [np.array([0.5, -1.0, 2.0]), np.array([-2.0, 2.0, 0.0])],
             lambda v: np.where(np.array([0, 1, 0]) == 0, npdf(v, -2, 1), npdf(v, 2, 1))),
        Case("stack([a, b], axis=1)[arange(3), i]", "fails",
             lambda: (pt.stack([A3(), B3()], axis=1)[pt.arange(3), iv], {iv: np.array([1, 1, 0])}),
             [np.array([0.5, -1.0, 2.0])],
             lambda v: np.where(np.array([1, 1, 0]) == 0, npdf(v, -2, 1), npdf(v, 2, 1))),
        Case("stack([a, b]).T", "fails", lambda: (pt.stack([N(0, 1, shape=3), N(1, 1, shape=3)]).T, {}),
             [np.arange(6.0).reshape(3, 2) / 4], lambda v: npdf(v, np.array([0.0, 1.0]), 1)),
        Case("join(0, m, w).T", "fails", lambda: (pt.join(0, N(0, 1, shape=(2, 3)), N(1, 1, shape=(1, 3))).T, {}),
             [np.arange(9.0).reshape(3, 3) / 5], lambda v: npdf(v, np.array([0.0, 0.0, 1.0]), 1)),
        Case("m.reshape((6,))", "fails", lambda: (m23().reshape((6,)), {}), [np.linspace(-1, 4, 6)],
             lambda v: npdf(v, np.arange(6.0), 1)),
        Case("m.flatten()", "fails", lambda: (m23().flatten(), {}), [np.linspace(-1, 4, 6)],
             lambda v: npdf(v, np.arange(6.0), 1)),
        Case("w.reshape((2, 3))", "fails", lambda: (N(np.arange(6.0), 1.0).reshape((2, 3)), {}),
             [np.linspace(-1, 4, 6).reshape(2, 3)], lambda v: npdf(v, np.arange(6.0).reshape(2, 3), 1)),
        Case("zeros(5)[:3].set(a)", "fails", lambda: (pt.set_subtensor(pt.zeros(5)[:3], N(0, 1, shape=3)), {}),
             [np.array([0.1, -0.5, 1.0, 0.0, 0.0]), np.array([0.1, -0.5, 1.0, 0.3, 0.0])],
             lambda v: np.concatenate([npdf(v[:3]), _dirac_zeros(v[3:])])),
        Case("zeros(5)[2:].set(a)", "fails", lambda: (pt.set_subtensor(pt.zeros(5)[2:], N(0, 1, shape=3)), {}),
             [np.array([0.0, 0.0, 0.1, -0.5, 1.0])], lambda v: np.concatenate([_dirac_zeros(v[:2]), npdf(v[2:])])),
        Case("zeros(5)[:3].set(a)[3:].set(b)", "fails",
             lambda: (pt.set_subtensor(pt.set_subtensor(pt.zeros(5)[:3], N(0, 1, shape=3))[3:], N(1, 1, shape=2)), {}),
             [np.array([0.1, -0.5, 1.0, 0.0, 2.0])], lambda v: np.concatenate([npdf(v[:3]), npdf(v[3:], 1, 1)])),
    ]


def _controls():
    i = pt.lscalar("i")
    return [
        Case("2 * x", "control", lambda: (2 * _x(), {}), S, lambda v: npdf(v, 0, 2)),
        Case("x ** 2", "control", lambda: (_x() ** 2, {}), POS, lambda v: stats.chi2.logpdf(v, 1)),
        Case("sqr(x)", "control", lambda: (pt.sqr(_x()), {}), POS, lambda v: stats.chi2.logpdf(v, 1)),
        Case("5 / x", "control", lambda: (5 / _x(), {}), S, lambda v: npdf(5 / np.asarray(v)) + np.log(5 / np.square(v))),
        Case("-x", "control", lambda: (-_x(), {}), S, lambda v: npdf(v)),
        Case("5 - x", "control", lambda: (5 - _x(), {}), S, lambda v: npdf(v, 5, 1)),
        Case("exp(2 * x)", "control", lambda: (pt.exp(2 * _x()), {}), POS, lambda v: stats.lognorm.logpdf(v, s=2.0)),
        Case("2 ** x", "control", lambda: (2 ** _x(), {}), POS,
             lambda v: npdf(np.log2(v)) - np.log(np.asarray(v) * np.log(2))),
        Case("exp(x) ** 2", "control", lambda: (pt.exp(_x()) ** 2, {}), POS, lambda v: stats.lognorm.logpdf(v, s=2.0)),
        Case("exp(x)", "control", lambda: (pt.exp(_x()), {}), POS, lambda v: stats.lognorm.logpdf(v, s=1.0)),
        Case("5 * x + 3", "control", lambda: (5 * _x() + 3, {}), S, lambda v: npdf(v, 3, 5)),
        Case("abs(x)", "control", lambda: (pt.abs(_x()), {}), POS, lambda v: stats.halfnorm.logpdf(v)),
        Case("sum(v)", "control", lambda: (pt.sum(N(0, 1, shape=3)), {}), S, lambda v: npdf(v, 0, SQ3)),
        Case("2 * sum(v)", "control", lambda: (2 * pt.sum(N(0, 1, shape=3)), {}), S, lambda v: npdf(v, 0, 2 * SQ3)),
        Case("mean(v)", "control", lambda: (pt.mean(N(0, 1, shape=3)), {}), S, lambda v: npdf(v, 0, 1 / SQ3)),
        Case("clip(x, -1, 1)", "control", lambda: (pt.clip(_x(), -1, 1), {}), [-1.0, 0.3, 1.0], lambda v: _censored(v, -1, 1)),
        Case("maximum(x, -1)", "control", lambda: (pt.maximum(_x(), -1), {}), [-1.0, 0.3], lambda v: _censored(v, -1, np.inf)),
        Case("maximum(minimum(x, 1), -1)", "control", lambda: (pt.maximum(pt.minimum(_x(), 1), -1), {}), [-1.0, 0.3, 1.0],
             lambda v: _censored(v, -1, 1)),
        Case("clip(x, -1, 1) + 1 (a shift has no Jacobian)", "control", lambda: (pt.clip(_x(), -1, 1) + 1, {}), [0.0, 1.3, 2.0],
             lambda v: _censored(np.asarray(v) - 1, -1, 1)),
        Case("stack([a, b], axis=1)", "control", lambda: (pt.stack([N(0, 1, shape=3), N(1, 1, shape=3)], axis=1), {}),
             [np.arange(6.0).reshape(3, 2) / 4], lambda v: npdf(v, np.array([0.0, 1.0]), 1)),
        Case("concatenate([a, b])", "control", lambda: (pt.concatenate([N(0, 1, shape=3), N(1, 1, shape=2)]), {}),
             [np.linspace(-1, 1, 5)], lambda v: np.concatenate([npdf(v[:3]), npdf(v[3:], 1, 1)])),
        Case("log1p(e) (exponential)", "control", lambda: (pt.log1p(pm.Exponential.dist(1.0)), {}), POS,
             lambda v: -np.expm1(v) + np.asarray(v)),
        Case("join_dims(m, 0, 2)", "control", lambda: (pt.join_dims(N(np.arange(6.0).reshape(2, 3), 1.0), 0, 2), {}),
             [np.linspace(-1, 4, 6)], lambda v: npdf(v, np.arange(6.0), 1)),
        Case("stack([a, b])[i], i data", "control", lambda: (pt.stack([N(-2, 1), N(2, 1)])[i], {i: 1}), S, lambda v: npdf(v, 2, 1)),
        Case("where(x > 0, x, x / 2) (leaky ReLU)", "control",
             lambda: ((lambda y: (pt.where(y > 0, y, 0.5 * y), {}))(_x())), [-0.8, 0.6], _leaky),
    ]


def _wrong():
    return [
        Case("clip(x, -1, 1) * 2", "wrong", lambda: (pt.clip(_x(), -1, 1) * 2, {}), [2.0], lambda v: _censored(v / 2, -1, 1)),
        Case("exp(clip(x, -1, 1))", "wrong", lambda: (pt.exp(pt.clip(_x(), -1, 1)), {}), [np.e], lambda v: _censored(np.log(v), -1, 1)),
        Case("2 * maximum(x, 0)", "wrong", lambda: (2 * pt.maximum(_x(), 0), {}), [0.0], lambda v: _censored(v, 0, np.inf)),
    ]


def _underivable():
    return [
        Case("c*a + (1 - c)*b, c Bernoulli", "underivable",
             lambda: ((lambda c: (c * N(-2, 1) + (1 - c) * N(2, 1), {}))(pm.Bernoulli.dist(0.3))), [0.5],
             lambda v: np.log(0.3 * np.exp(npdf(v, -2, 1)) + 0.7 * np.exp(npdf(v, 2, 1))),
             why="the indicator is a random variable: its mixture needs marginalizing (pm.Mixture), no spelling of it derives"),
        Case("x + e (a normal and an exponential)", "underivable",
             lambda: (N(0, 1) + pm.Exponential.dist(1.0), {}), [0.5],
             lambda v: np.log(stats.exponnorm.pdf(v, 1.0)),
             why="a sum of two random variables of different distributions is a convolution, not a transform of one"),
    ]


CORPUS = _fails() + _controls() + _wrong() + _underivable()


def _eval(lp, value_var, givens, v):
    fn = pytensor.function([value_var, *givens], lp, mode="FAST_COMPILE", on_unused_input="ignore")
    return np.asarray(fn(np.asarray(v, dtype=value_var.dtype), *givens.values()))


def _derive(logp_fn, case, givens=None):
    graph, inputs = case.build()
    inputs = dict(inputs if givens is None else givens)
    value = graph.type()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lp = logp_fn(graph, value)
    return lp, value, inputs


def _stock_fails(case) -> bool:
    try:
        _derive(rpm.STOCK["logp"], case)
    except (NotImplementedError, RuntimeError):
        return True
    return False


def test_the_corpus_has_fifty_cases_of_every_kind():
    kinds = {k: [c for c in CORPUS if c.kind == k] for k in ("fails", "control", "wrong", "underivable")}
    assert len(CORPUS) >= 50 and all(kinds.values())
    assert len({c.name for c in CORPUS}) == len(CORPUS)


@pytest.mark.parametrize("case", [c for c in CORPUS if c.kind == "fails"], ids=lambda c: c.name)
def test_a_spelling_stock_refuses_derives_and_matches_its_reference(case):
    assert _stock_fails(case), "stock PyMC derives this case now: it is a control"
    lp, value, inputs = _derive(rpm.logp, case)
    for v in case.values:
        np.testing.assert_allclose(_eval(lp, value, inputs, v), case.reference(np.asarray(v)), rtol=1e-6, atol=1e-9)
    if "also" in case.extra:  # the same derived density at other data
        other, ref = case.extra["also"]
        for v in case.values:
            np.testing.assert_allclose(_eval(lp, value, other, v), ref(np.asarray(v)), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("case", [c for c in CORPUS if c.kind == "control"], ids=lambda c: c.name)
def test_a_spelling_stock_derives_gives_stocks_value(case):
    graph, inputs = case.build()
    value = graph.type()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, stock = rpm.logp(graph, value), rpm.STOCK["logp"](graph, value)
    for v in case.values:
        got = _eval(ours, value, inputs, v)
        np.testing.assert_allclose(got, _eval(stock, value, inputs, v), rtol=1e-12)
        np.testing.assert_allclose(got, case.reference(np.asarray(v)), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("case", [c for c in CORPUS if c.kind == "wrong"], ids=lambda c: c.name)
def test_a_wrong_stock_value_is_never_returned_silently(case):
    graph, inputs = case.build()
    [v] = case.values
    value = graph.type()
    wrong = _eval(rpm.STOCK["logp"](graph, value), value, inputs, v)
    assert not np.allclose(wrong, case.reference(np.asarray(v)))  # stock's own value at the censored point
    with pytest.raises(rpm.DensityMismatch) as err:
        rpm.logp(graph, graph.type())
    text = str(err.value)
    assert "two forms of" in text and text.count("gives") == 2
    # the form with the censoring outermost is the right one
    derived, _ = rpm.derivable_forms(graph, pt.constant(np.asarray(v, dtype=graph.dtype)), want=1)
    assert derived and rpm.describe(derived[0][0]).lower().startswith(("clip", "maximum", "minimum"))
    np.testing.assert_allclose(derived[0][1].eval(mode="FAST_COMPILE"), case.reference(np.asarray(v)), rtol=1e-6)


@pytest.mark.parametrize("case", [c for c in CORPUS if c.kind == "underivable"], ids=lambda c: c.name)
def test_an_underivable_graph_names_the_forms_tried(case):
    graph, _ = case.build()
    with pytest.raises(rpm.NotDerivable) as err:
        rpm.logp(graph, graph.type())
    text = str(err.value)
    assert "could not be derived" in text and "equivalent forms tried" in text
    assert isinstance(err.value, NotImplementedError)  # what code catching pm.logp's error catches


def test_an_underivable_graph_says_which_measurable_rewriter_came_closest_and_what_it_lacked():
    """pymc #6691: not only the forms tried, but PyMC's rewriters where they came closest (relations.why_not)."""
    x = N(0.0, 1.0) + pm.Exponential.dist(1.0)  # a convolution: no transform of one random variable
    with pytest.raises(rpm.NotDerivable) as err:
        rpm.logp(x, x.type())
    text = str(err.value)
    assert "PyMC's measurable rewriters where they came closest:" in text
    assert "find_measurable_transforms at class" in text and "2 of its inputs read a random variable" in text


def test_a_derived_density_that_raises_at_a_draw_is_never_returned():
    """An absolute value written as a switch: PyMC derives a density for ``where(z >= 0, z, -z)`` that
    raises "switch non-overlapping scale > 0" at every point; it is never returned: the absolute value
    derives instead (a folded normal).  Where no other form derives, NotDerivable names why."""
    z = N(0.0, 1.0)
    y = pt.switch(pt.ge(z, 0), z, -z)
    value = y.type()
    assert rpm.switches_random(y)
    assert "raises" in rpm.broken_density(y, value, rpm.STOCK["logp"](y, value))
    lp = rpm.logp(y, value)
    f = pytensor.function([value], lp, mode="FAST_COMPILE")
    np.testing.assert_allclose([f(0.3), f(1.7)], stats.halfnorm.logpdf([0.3, 1.7]))
    w = N(0.0, 1.0)
    odd = pt.switch(pt.ge(w, 0), w, -2.0 * w)  # no rule relates it to a form PyMC derives right
    with pytest.raises(rpm.NotDerivable, match="raises"):
        rpm.logp(odd, odd.type())


def test_a_density_checked_at_draws_passes_and_a_constant_value_is_not_checked():
    z = N(0.0, 1.0)
    v = z.type()
    assert rpm.broken_density(z, v, pm.logp(z, v)) is None
    assert rpm.broken_density(z, pt.constant(50.0), pm.logp(z, pt.constant(50.0))) is None
    assert "is -inf at a draw" in rpm.broken_density(z, v, pt.log(pt.zeros_like(v)))


@pytest.mark.parametrize("build", [lambda z: z + pt.zeros(3), lambda z: pt.outer(z[None], pt.ones(3)),
                                   lambda z: z[None] * pt.ones((4, 1))],
                         ids=["plus zeros", "outer product", "times ones"])
def test_a_broadcast_random_variable_is_refused_with_the_reason(build):
    """A scalar draw broadcast to a vector has equal entries: no density on the vector space; stock PyMC
    sums independent terms (wrong wherever the entries differ)."""
    y = build(N(0.0, 1.0))
    stock = pm.logp(y, y.type())  # stock derives the sum of independent terms
    assert stock is not None
    with pytest.raises(rpm.BroadcastRandomVariable, match="is (broadcast|repeated) along dimension"):
        rpm.logp(y, y.type())
    assert isinstance(rpm.BroadcastRandomVariable("x"), NotImplementedError)


def test_a_broadcast_stock_refuses_keeps_stocks_own_error():
    """Where PyMC refuses a graph that broadcasts a random variable, its own error comes through (PyMC's
    tests match its message), and no equal form is derived over the broadcast."""
    y = pt.gt(N(0.0, 1.0, size=3), np.array([[0.1], [0.2], [-0.1]]))
    assert rpm.broadcast_random(y) is not None
    with pytest.raises(NotImplementedError, match="Logprob method not implemented for G") as err:
        rpm.logp(y, y.type())
    assert not isinstance(err.value, rpm.NotDerivable)


def test_an_explicit_alloc_of_a_random_variable_is_stocks_density_on_the_line_of_equal_entries():
    """pymc #6808: PyMC derives alloc / broadcast_to right (-inf where the entries differ): not refused."""
    for y in (pt.alloc(N(0.0, 1.0), 3), pt.broadcast_to(N(0.0, 1.0), (3,))):
        assert rpm.broadcast_random(y) is None
        value = y.type()
        f = pytensor.function([value], rpm.logp(y, value), mode="FAST_COMPILE")
        np.testing.assert_allclose(f(np.full(3, 0.4)), npdf(0.4))
        assert f(np.array([0.4, 0.4, 0.5])) == -np.inf


def test_random_variables_of_the_value_shape_and_length_one_broadcasts_are_not_refused():
    zv = pm.Normal.dist(0.0, 1.0, size=3)
    for y in (zv + pt.dvector("mu"), pt.exp(zv), N(0.0, 1.0) * pt.ones(1), N(0.0, 1.0) + 1.0):
        assert rpm.broadcast_random(y) is None
        rpm.logp(y, y.type())


def test_the_derivation_counts():
    """The corpus results the report quotes: how many fail stock, how many derive with the rules."""
    fails = [c for c in CORPUS if c.kind == "fails"]
    assert all(_stock_fails(c) for c in fails)
    assert not any(_stock_fails(c) for c in CORPUS if c.kind in ("control", "wrong"))
    assert len(fails) >= 35


# -- valued variables (pymc #6917) --------------------------------------------------------------


def _no_rvs(graphs) -> bool:
    from pytensor.graph.traversal import ancestors
    from pytensor.tensor.random.op import RandomVariable

    return not any(a.owner is not None and isinstance(a.owner.op, RandomVariable) for a in ancestors(graphs))


def test_a_valued_variable_read_by_another_keeps_its_link():
    """pymc #6917's graph, and the same with ``a`` spelled ``x + x`` (stock fails, ours rewrites ``a``
    and rebuilds ``b`` over the rewritten ``a``)."""
    for spell in (lambda z: z * 5, lambda z: z + z):
        base = N(0.0, 1.0)
        a = spell(base)
        b = N(a * 8, 1.0)
        av, bv = a.type(), b.type()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a random variable left in a logp graph warns
            terms = rpm.conditional_logp({a: av, b: bv})
        assert _no_rvs(list(terms.values()))
        scale = 5.0 if spell(pt.constant(1.0)).eval() == 5.0 else 2.0
        fn = pytensor.function([av, bv], [terms[av], terms[bv]], mode="FAST_COMPILE")
        la, lb = fn(0.7, -0.4)
        np.testing.assert_allclose(la, npdf(0.7, 0, scale))
        np.testing.assert_allclose(lb, npdf(-0.4, 8 * 0.7, 1))


def test_no_rewrite_crosses_a_valued_variable():
    """``w + w`` with ``w`` valued is a point mass given ``w``: no form of it has a density, and
    ``w * 2`` (the rules' form, over the held ``w``) must not pass for one."""
    w = N(0.0, 1.0)
    y = w + w
    with pytest.raises(rpm.NotDerivable) as err:
        rpm.conditional_logp({w: w.type(), y: y.type()})
    assert "mul(" in str(err.value)  # the form tried, over the held variable


SPELLINGS = [
    # (refused spelling, the spelling stock derives)
    (lambda z: z + z, lambda z: 2 * z),
    (lambda z: 3 * z - z, lambda z: 2 * z),
    (lambda z: z - z / 2, lambda z: 0.5 * z),
    (lambda z: z, lambda z: z),
    (lambda z: pt.exp(z) * pt.exp(z), lambda z: pt.exp(2 * z)),
]


def _chain(seed: int, refused: bool):
    """A chain of valued variables, each a spelling of a normal whose mean reads the previous one."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(SPELLINGS), size=int(rng.integers(2, 5)))
    coefs = rng.uniform(-1.5, 1.5, size=len(picks))
    rvs, prev = [], None
    for k, c in zip(picks, coefs):
        mu = 0.0 if prev is None else c * (prev if prev.ndim == 0 else prev)
        base = N(mu, 1.0)
        prev = SPELLINGS[k][0 if refused else 1](base)
        rvs.append(prev)
    return rvs, picks


@pytest.mark.parametrize("seed", range(6))
def test_several_valued_variables_drawn_at_random(seed):
    refused, picks = _chain(seed, refused=True)
    stock_rvs, _ = _chain(seed, refused=False)
    values = [v.type(name=f"v{i}") for i, v in enumerate(refused)]
    ours = rpm.conditional_logp(dict(zip(refused, values)))
    stock = rpm.STOCK["conditional_logp"](dict(zip(stock_rvs, values)))
    assert _no_rvs(list(ours.values()))
    point = [np.float64(0.4 + 0.3 * i) for i in range(len(values))]  # positive: exp spellings too
    f = pytensor.function(values, [ours[v] for v in values], mode="FAST_COMPILE")
    g = pytensor.function(values, [stock[v] for v in values], mode="FAST_COMPILE")
    np.testing.assert_allclose(f(*point), g(*point), rtol=1e-10)


# -- install() / uninstall() -------------------------------------------------------------------


def _twice(mu, size):
    z = pm.Normal.dist(mu, 1.0, size=size)
    return z + z


def _patched():
    import pymc.logprob as lp
    import pymc.logprob.basic as basic

    return [pm.logp, lp.logp, basic.logp, basic.conditional_logp, lp.conditional_logp]


def test_install_routes_pm_logp_model_logp_and_custom_dist_and_uninstall_restores():
    before = _patched()
    x = N(0.0, 1.0)
    data = np.array([0.3, -1.2, 2.0])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.CustomDist("y", mu, dist=_twice, observed=data)
    with pytest.raises(NotImplementedError):
        pm.logp(x + x, 0.5)
    with pytest.raises((NotImplementedError, RuntimeError)):
        model.logp()
    rpm.install()
    try:
        assert rpm.installed() and pm.logp is rpm.logp
        np.testing.assert_allclose(pm.logp(x + x, 0.5).eval(mode="FAST_COMPILE"), npdf(0.5, 0, 2))
        custom = pm.CustomDist.dist(0.5, dist=_twice)
        np.testing.assert_allclose(pm.logp(custom, 0.2).eval(mode="FAST_COMPILE"), npdf(0.2, 1.0, 2))
        fn = model.compile_logp(mode="FAST_COMPILE")
        expected = npdf(0.3, 0, 1) + npdf(data, 0.6, 2).sum()
        np.testing.assert_allclose(fn({"mu": 0.3}), expected)
        rpm.install()  # idempotent
    finally:
        rpm.uninstall()
    after = _patched()
    assert all(a is b for a, b in zip(before, after)) and not rpm.installed()
    with pytest.raises(NotImplementedError):
        pm.logp(x + x, 0.5)


def test_logp_checks_its_arguments():
    with pytest.raises(TypeError, match="var must be a PyTensor Variable"):
        rpm.logp(1.0, 0.5)
    with pytest.raises(TypeError, match="check must be"):
        rpm.logp(N(0, 1), 0.5, check="yes")


def test_a_transform_of_a_where_spelled_censoring_derives_the_censored_form():
    """Stock refuses the where; of its forms, ``clip(x, -1, 1) * 2`` derives PyMC's wrong value at the
    censored point and ``clip(2*x, -2, 2)`` the right one: the censored form's density is returned."""
    x = N(0.0, 1.0)
    graph = pt.where(x < -1, -1, pt.where(x > 1, 1, x)) * 2
    lp = rpm.logp(graph, 2.0)
    np.testing.assert_allclose(lp.eval(mode="FAST_COMPILE"), stats.norm.logsf(1))
    derived, _ = rpm.derivable_forms(graph, pt.constant(2.0), want=3)
    values = sorted(float(lp.eval(mode="FAST_COMPILE")) for _, lp in derived)
    assert any(np.isclose(v, stats.norm.logsf(1)) for v in values)
    assert any(not np.isclose(v, stats.norm.logsf(1)) for v in values)  # stock's Jacobian, in a form tried


def test_check_true_compares_stock_with_a_second_form():
    x = N(0.0, 1.0)
    lp = rpm.logp(pt.clip(x, -1, 1) + 1, pt.scalar("v"), check=True)  # agrees: a shift
    assert lp is not None
    with pytest.raises(rpm.DensityMismatch, match="clip"):
        rpm.logp(pt.clip(x, -1, 1) * 2, pt.scalar("v"), check=True)  # the draws reach the censored points
    value = pt.scalar("v")
    quiet = rpm.logp(pt.clip(x, -1, 1) * 2, value, check=False)  # stock's value, unchecked
    np.testing.assert_allclose(quiet.eval({value: 2.0}), stats.norm.logsf(1) - np.log(2))


def test_pytensor_rewriters_may_join_the_rules():
    """``rewriters=`` reaches the e-graph (saturate's foreign rewriters): the same density, more forms tried."""
    x = N(0.0, 1.0)
    graph = (x + x) * 1.0
    plain, _ = rpm.derivable_forms(graph, pt.constant(0.5), want=1)
    with_canonicalize, _ = rpm.derivable_forms(graph, pt.constant(0.5), want=1, rewriters=("canonicalize",))
    for derived in (plain, with_canonicalize):
        assert derived
        np.testing.assert_allclose(derived[0][1].eval(mode="FAST_COMPILE"), npdf(0.5, 0, 2))
    lp = rpm.logp(graph, 0.5, rewriters=("canonicalize",))  # not passed on to pm.logp
    np.testing.assert_allclose(lp.eval(mode="FAST_COMPILE"), npdf(0.5, 0, 2))
