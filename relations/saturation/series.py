"""Herbie's series expansion: a Taylor polynomial of a graph of one float input, a candidate for regimes.

Some cancellations have no rewrite: ``sin(x) - x`` loses every digit as ``x`` goes to 0, and no
identity of the theory turns it into a form that keeps them; ``log(sinh(x) / x)`` likewise.  Herbie
(Panchekha et al., PLDI 2015, section 4.4; ``src/core/taylor.rkt``) adds the expression's series at
0 as a candidate, and its regimes take it where it is the most accurate form.  :func:`series_form`
does the same for a graph of one float input: the coefficients of its Taylor series at 0 come from
the graph's exact values (:func:`graph_bridge.exact.values_at`, at the precision mpmath's numerical
differentiation asks for; ``mp.taylor`` with ``singular=True``, so the graph is never evaluated at
0 itself, where ``sinh(x) / x`` is 0/0), the polynomial is written in Horner's form and read only
within the radius where it equals the graph to :data:`SERIES_BITS` bits (checked on exact values),
the graph as written beyond it.

Before/After (``sin(x) - x``, the order cut here for the page)::

    sin(x) - x    ->    switch(abs(x) <= 0.5,
                               x**3 * (-0.16666666666666666 + x**2 * (0.008333333333333333 + ...)),
                               sin(x) - x)

A graph whose coefficients are not finite (a pole or a branch point at 0: ``log(x)``), or whose
polynomial matches it nowhere near 0 (``sqrt(x)``), has no series form.  The form is a candidate,
never a rewrite: :func:`relations.saturation.regimes.infer_regimes` measures it against the others
and :func:`relations.stabilize` keeps a result only where it is no less accurate at any point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import explicit_graph_inputs

from graph_bridge.exact import NotExact, values_at

__all__ = ["ORDER", "SERIES_BITS", "series_form", "taylor_coefficients"]

#: The degree of the Taylor series computed (Herbie expands to a few terms and lets regimes cut; here the
#: polynomial is read only where it is exact to :data:`SERIES_BITS`, so more terms reach further: ``sin(x) - x``
#: to ``|x| <= 0.25`` with 16, to 1 with 32), before the terms negligible within the radius are dropped.
ORDER = 32

#: Bits the polynomial must agree with the graph's exact value on, where it is read (beyond float64's 53:
#: the polynomial's own rounding is then all its error).
SERIES_BITS = 64

#: The radii tried for where the polynomial is read, largest first: 2, 1, 0.5, ..., 2**-40.
RADII = tuple(2.0**-k for k in range(-1, 41))

#: Decimal digits the coefficients are computed with.
DIGITS = 40


def _input(out: Variable) -> Variable | None:
    """The one float input ``out`` reads (constants aside), else ``None``."""
    found = [v for v in explicit_graph_inputs([out]) if not isinstance(v, Constant)]
    if len(found) != 1 or not str(getattr(found[0].type, "dtype", "")).startswith("float"):
        return None
    return found[0]


def _exact_at(out: Variable, var: Variable, t: Any) -> Any:
    """``out``'s exact value at ``var = t`` (an mpmath number), at mpmath's current precision and 64 bits more."""
    at = np.empty((1,) * var.type.ndim, dtype=object)
    at.reshape(-1)[0] = mp.mpf(t)
    [value], _ = values_at([out], {var: at}, mp.mp.prec + 64)
    return np.asarray(value).reshape(-1)[0]


def taylor_coefficients(out: Variable, order: int = ORDER) -> list[Any] | None:
    """The Taylor coefficients at 0 of ``out``, a graph of one float input, as mpmath numbers (``order + 1`` of
    them), or ``None``: another graph, an Op with no exact meaning, or a coefficient that is not finite."""
    var = _input(out)
    return None if var is None else _coefficients(out, var, order)


def _coefficients(out: Variable, var: Variable, order: int) -> list[Any] | None:
    """:func:`taylor_coefficients` of ``out`` in its one float input ``var``."""
    try:
        with mp.workdps(DIGITS):
            coefficients = mp.taylor(lambda t: _exact_at(out, var, t), 0, order, singular=True)
            scale = max((abs(c) for c in coefficients if mp.isfinite(c)), default=mp.mpf(0))
            if scale == 0 or not all(mp.isfinite(c) for c in coefficients):
                return None
            # what numerical differentiation leaves of a zero coefficient: nothing at this precision
            return [c if abs(c) > scale * mp.mpf(10) ** (12 - DIGITS) else mp.mpf(0) for c in coefficients]
    except (NotExact, ValueError, ZeroDivisionError, OverflowError):
        return None


def _agrees(coefficients: Sequence[Any], out: Variable, var: Variable, radius: float) -> bool:
    """Whether the polynomial equals ``out`` to :data:`SERIES_BITS` bits at both ends of ``[-radius, radius]`` and
    halfway (exact values; where ``out`` is 0, the polynomial must be 0 too)."""
    with mp.workdps(DIGITS):
        for t in (radius, -radius, radius / 2, -radius / 2):
            exact = _exact_at(out, var, t)
            poly = _polyval(coefficients, mp.mpf(t))
            if not mp.isfinite(exact) or abs(poly - exact) > abs(exact) * mp.mpf(2) ** -SERIES_BITS:
                return False
    return True


def _polyval(coefficients: Sequence[Any], t: Any) -> Any:
    """``sum(c[k] * t**k)`` in mpmath (Horner's form)."""
    value = mp.mpf(0)
    for c in reversed(coefficients):
        value = value * t + c
    return value


def _trimmed(coefficients: Sequence[Any], radius: float) -> list[Any]:
    """The coefficients without the highest terms, whose sum within ``radius`` is below ``2**-(SERIES_BITS + 8)`` of
    the largest term's."""
    with mp.workdps(DIGITS):
        sizes = [abs(c) * mp.mpf(radius) ** k for k, c in enumerate(coefficients)]
        floor = max(sizes) * mp.mpf(2) ** -(SERIES_BITS + 8)
        last = max(k for k, size in enumerate(sizes) if size > floor)
    return list(coefficients[: last + 1])


def _horner(coefficients: Sequence[Any], var: Variable, dtype: str) -> Variable:
    """``sum(c[k] * var**k)`` as ``var**m * (c[m] + var * (c[m+1] + ...))``, ``m`` the first nonzero term."""
    low = next(k for k, c in enumerate(coefficients) if c != 0)
    high = max(k for k, c in enumerate(coefficients) if c != 0)
    poly: Any = pt.constant(np.asarray(float(coefficients[high]), dtype=dtype))
    for k in range(high - 1, low - 1, -1):
        poly = pt.mul(poly, var)
        if coefficients[k] != 0:
            poly = pt.add(poly, pt.constant(np.asarray(float(coefficients[k]), dtype=dtype)))
    for _ in range(low):
        poly = pt.mul(poly, var)
    return poly


def series_form(out: Variable, order: int = ORDER) -> Variable | None:
    """``out`` (a graph of one float input ``x``) as its Taylor polynomial at 0 where ``|x| <= r``, the largest
    radius of :data:`RADII` where the polynomial equals ``out`` to :data:`SERIES_BITS` bits, and as written
    beyond; ``None`` where it has no such polynomial (see the module's docstring)."""
    var = _input(out)
    coefficients = None if var is None else _coefficients(out, var, order)
    if var is None or coefficients is None:
        return None
    try:
        radius = next((r for r in RADII if _agrees(coefficients, out, var, r)), None)
    except (NotExact, ValueError, ZeroDivisionError, OverflowError):
        return None
    if radius is None:
        return None
    kept = _trimmed(coefficients, radius)
    if not _agrees(kept, out, var, radius):
        kept = list(coefficients)
    dtype = str(out.type.dtype)
    poly = _horner(kept, var, dtype)
    form = pt.switch(pt.le(pt.abs(var), np.asarray(radius, dtype=dtype)), poly, out)
    if form.type.dtype != out.type.dtype or form.type.ndim != out.type.ndim:
        return None
    return form
