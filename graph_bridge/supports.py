"""The support of PyTensor's random variables: an interval holding every draw, for the interval analysis.

A draw of ``exponential(1)`` is positive, of ``beta(a, b)`` in ``(0, 1)``, of
``uniform(lo, hi)`` between the lowest ``lo`` and the highest ``hi``: facts a
guard can read (``log(x * y) = log(x) + log(y)`` where both are positive; a
monotone transform moves through a censoring, pymc #8363).  Read from the
RandomVariable's ``name`` (PyMC's distributions draw with PyTensor's own
RandomVariables); a variable not listed has the whole line.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from graph_bridge.interval_type import EVERYTHING, Interval

__all__ = ["SUPPORTS", "random_support"]

INF = math.inf
_POSITIVE = Interval(0.0, INF, True, True)
_NONNEGATIVE = Interval(0.0, INF, False, True)
_UNIT = Interval(0.0, 1.0, False, False)


def _from_first(params: Sequence[Interval]) -> Interval:
    """``[lowest value of the first parameter, inf)``: a location that starts the support (halfnormal)."""
    return Interval(params[0].lo, INF, params[0].lo_open, True)


def _between(params: Sequence[Interval]) -> Interval:
    """``[lowest first parameter, highest second]`` (uniform, triangular's outer parameters)."""
    return Interval(params[0].lo, params[-1].hi, params[0].lo_open, params[-1].hi_open)


def _up_to_first(params: Sequence[Interval]) -> Interval:
    """``[0, highest first parameter]`` (binomial's count)."""
    return Interval(0.0, params[0].hi, False, params[0].hi_open)


#: RandomVariable name -> the support's interval, from the parameters' intervals (``None``: fixed).
SUPPORTS: dict[str, Interval | Callable[[Sequence[Interval]], Interval]] = {
    "exponential": _POSITIVE,
    "gamma": _POSITIVE,
    "gengamma": _POSITIVE,
    "lognormal": _POSITIVE,
    "invgamma": _POSITIVE,
    "weibull": _NONNEGATIVE,
    "wald": _POSITIVE,
    "pareto": _POSITIVE,
    "beta": _UNIT,
    "dirichlet": _UNIT,
    "halfnormal": _from_first,
    "halfcauchy": _from_first,
    "uniform": _between,
    "triangular": _between,
    "bernoulli": _UNIT,
    "binomial": _up_to_first,
    "beta_binomial": _up_to_first,
    "poisson": _NONNEGATIVE,
    "geometric": Interval(1.0, INF, False, True),
    "negative_binomial": _NONNEGATIVE,
    "categorical": _NONNEGATIVE,
    "multinomial": _NONNEGATIVE,
}


def random_support(op: Any, params: Sequence[Interval]) -> Interval:
    """The interval of a draw of the RandomVariable ``op`` with parameters in ``params`` (the whole line
    for a variable not in :data:`SUPPORTS`)."""
    found = SUPPORTS.get(getattr(op, "name", ""))
    if found is None:
        return EVERYTHING
    if isinstance(found, Interval):
        return found
    return found(params) if params else EVERYTHING
