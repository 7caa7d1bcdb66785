"""Monotonicity as a fact (``graph_bridge.monotonicity``) and the support of random variables
(``graph_bridge.supports``): every claim checked on values."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytensor.tensor.random.basic as ptr
import pytest

from graph_bridge.interval_type import Interval
from graph_bridge.intervals import interval_of
from graph_bridge.monotonicity import DOWN, UP, direction

u = pt.scalar("u")
INF = np.inf

#: (graph of u, interval of u, the direction claimed)
CLAIMS = [
    (pt.exp(u), Interval(-30, 30), UP),
    (pt.expm1(u), Interval(-30, 30), UP),
    (pt.sigmoid(u), Interval(-30, 30), UP),
    (pt.softplus(u), Interval(-30, 30), UP),
    (pt.tanh(u), Interval(-5, 5), UP),
    (pt.arctan(u), Interval(-30, 30), UP),
    (pt.erf(u), Interval(-5, 5), UP),
    (-u, Interval(-30, 30), DOWN),
    (pt.erfc(u), Interval(-5, 5), DOWN),
    (pt.erfcx(u), Interval(-5, 5), DOWN),
    (pt.log(u), Interval(0, 30, False, False), UP),
    (pt.sqrt(u), Interval(0, 30, False, False), UP),
    (pt.log1p(u), Interval(-1, 30, False, False), UP),
    (pt.sqr(u), Interval(0, 30, False, False), UP),
    (pt.sqr(u), Interval(-30, 0, False, False), DOWN),
    (pt.abs(u), Interval(-30, 0, False, False), DOWN),
    (pt.cosh(u), Interval(0, 10, False, False), UP),
    (pt.reciprocal(u), Interval(0.5, 30), DOWN),
    (pt.reciprocal(u), Interval(-30, -0.5), DOWN),
    (u + 3.0, Interval(-30, 30), UP),
    (3.0 - u, Interval(-30, 30), DOWN),
    (u * -2.0, Interval(-30, 30), DOWN),
    (u / 4.0, Interval(-30, 30), UP),
    (2.0 / u, Interval(0.5, 30), DOWN),
    (-2.0 / u, Interval(0.5, 30), UP),
    (u**3, Interval(-30, 30), UP),
    (u**0.5, Interval(0, 30, False, False), UP),
    (u**-1.5, Interval(0.5, 30), DOWN),
    (2.0**u, Interval(-30, 30), UP),
    (0.5**u, Interval(-30, 30), DOWN),
]
#: (graph, interval): no direction may be claimed
UNKNOWN = [
    (pt.log(u), Interval(-1, 30)),
    (pt.sqrt(u), Interval(-1, 30)),
    (pt.sqr(u), Interval(-1, 1)),
    (pt.reciprocal(u), Interval(-1, 1)),
    (2.0 / u, Interval(-1, 30)),
    (u * 0.0, Interval(-1, 1)),
    (u * pt.scalar("c"), Interval(-1, 1)),  # a scale that is no constant
    (u**2, Interval(-1, 1)),
    (u**-1.0, Interval(-1, 1)),
    (1.0**u, Interval(-1, 1)),
    (pt.maximum(u, 0.0), Interval(-1, 1)),  # not strictly monotone
    (pt.gammaln(u), Interval(0.1, 30)),
]


def _grid(a: Interval, n: int = 400) -> np.ndarray:
    lo, hi = max(a.lo, -30.0), min(a.hi, 30.0)
    return np.linspace(lo, hi, n)[1:-1]


@pytest.mark.parametrize("graph,interval,way", CLAIMS, ids=lambda c: str(c))
def test_a_claimed_direction_holds_on_values(graph, interval, way):
    assert direction(graph.owner, 0 if graph.owner.inputs[0] is u else 1, interval) == way
    f = pytensor.function([u], graph, mode="FAST_COMPILE")
    values = np.array([f(t) for t in _grid(interval)])
    steps = np.diff(values)
    finite = np.isfinite(steps)
    assert finite.sum() > 100
    assert np.all(way * steps[finite] > 0) or np.all(way * steps[finite] >= 0) and np.any(way * steps[finite] > 0)


@pytest.mark.parametrize("graph,interval", UNKNOWN, ids=lambda c: str(c))
def test_no_direction_is_claimed_where_there_is_none(graph, interval):
    k = 0 if graph.owner.inputs[0] is u else 1
    assert direction(graph.owner, k, interval) is None


def test_direction_refuses_what_is_no_elemwise_and_a_bad_input_index():
    assert direction(pt.sum(pt.vector("w")).owner, 0, Interval()) is None
    assert direction(pt.exp(u).owner, 3, Interval()) is None


def _draw(op, *params):
    rng = pytensor.shared(np.random.default_rng(0))
    return op.make_node(rng, pt.constant([500], dtype="int64"), *map(pt.as_tensor_variable, params)).outputs[1]


SUPPORTED = [
    (ptr.exponential, (1.0,)),
    (ptr._gamma, (2.0, 1.0)),
    (ptr.lognormal, (0.0, 1.0)),
    (ptr.beta, (0.5, 0.5)),
    (ptr.halfnormal, (1.0, 2.0)),
    (ptr.uniform, (-1.0, 3.0)),
    (ptr.poisson, (3.0,)),
    (ptr.binomial, (5, 0.5)),
    (ptr.pareto, (2.0, 1.0)),
    (ptr.weibull, (1.5,)),
]


@pytest.mark.parametrize("op,params", SUPPORTED, ids=lambda c: getattr(c, "name", ""))
def test_every_draw_is_in_the_support_interval(op, params):
    x = _draw(op, *params)
    support = interval_of(x)
    assert support != Interval()
    drawn = np.asarray(x.eval(mode="FAST_COMPILE"), dtype=float)
    assert np.all(drawn >= support.lo) and np.all(drawn <= support.hi)
    assert not support.lo_open or np.all(drawn > support.lo)


def test_a_draw_of_a_variable_with_no_listed_support_is_the_whole_line_and_its_rng_output_too():
    x = _draw(ptr.normal, 0.0, 1.0)
    assert interval_of(x) == Interval()
    assert interval_of(x.owner.outputs[0]) == Interval()
    assert interval_of(pt.exp(_draw(ptr.normal, 0.0, 1.0))).positive()
    assert interval_of(pt.log(_draw(ptr.exponential, 1.0))) == Interval()  # log of (0, inf): any real
