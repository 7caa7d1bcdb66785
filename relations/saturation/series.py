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

Beyond 0, the same expansion is taken where the spelling cancels elsewhere, as Herbie's expansions at
infinity do and as its rewrites reach through ``x - a`` (:func:`series_forms`):

- at ``+inf`` and ``-inf``, the series in ``t = 1/x`` (one-sided: ``stirlerr``'s ``lgamma(n + 1) -
  (n + 1/2) log(n) + n - log(sqrt(2 pi))`` is ``1/(12 n) - 1/(360 n**3) + ...``), where the spelling loses
  digits at large ``|x|``;
- at a cancellation point ``a`` (:func:`cancellation_points`: a float constant of the graph, or a root of its
  exact value between sampled points, where the spelling loses digits), the series in ``t = x - a``, which
  floats compute exactly within ``|t| <= |a| / 2`` (Sterbenz): ``log(x) - x + 1`` at 1 is
  ``-t**2/2 + t**3/3 - ...``.

A graph whose coefficients are not finite (a pole or a branch point at 0: ``log(x)``), or whose
polynomial matches it nowhere near 0 (``sqrt(x)``), has no series form.  The form is a candidate,
never a rewrite: :func:`relations.saturation.regimes.infer_regimes` measures it against the others
and :func:`relations.stabilize` keeps a result only where it is no less accurate at any point.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import explicit_graph_inputs

from graph_bridge.exact import NotExact, values_at
from graph_bridge.nodes import elementwise_in_inputs

__all__ = ["ORDER", "SERIES_BITS", "cancellation_points", "cancellation_series", "near_points", "series_form",
           "series_forms", "taylor_coefficients"]

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


#: Bits the spelling must lose near a point (its float value against its exact one) for an expansion there
#: to be tried: a cancellation, not a form merely as accurate as the spelling.
CANCEL_BITS = 8.0

#: Where a graph's sign changes are looked for (:func:`cancellation_points`): +-2**k.
ROOT_GRID = tuple(s * 2.0**k for k in range(-6, 11) for s in (1.0, -1.0))

#: The offsets ``OFF * 2**-k`` relative to a cancellation point at which its spelling is read
#: (:func:`near_points`), ``OFF`` not dyadic: ``1 - x*x`` at ``x = 1 + 2**-26`` is exact in floats.
NEAR = (8, 16, 24, 32, 44)
OFF = 1.3


@dataclass(frozen=True)
class _Expansion:
    """Where a series is taken: at the float ``at`` (in ``t = x - at``), or at infinity (``at`` is
    ``+-inf``, in ``t = 1/x``, one-sided)."""

    at: float

    @property
    def infinite(self) -> bool:
        return bool(np.isinf(self.at))

    def arg(self, t: Any) -> Any:
        """The input's exact value at ``t``."""
        return 1 / t if self.infinite else mp.mpf(self.at) + t

    def side(self) -> int:
        """mpmath's differentiation direction: one-sided toward the finite ``x`` at infinity."""
        return 0 if not self.infinite else (1 if self.at > 0 else -1)

    def ends(self, radius: float) -> tuple[float, ...]:
        """Where the polynomial is checked: both ends of ``[-radius, radius]`` and halfway (one side at
        infinity)."""
        ts = (radius, radius / 2) if self.infinite else (radius, -radius, radius / 2, -radius / 2)
        return tuple(t * self.side() for t in ts) if self.infinite else ts

    def fits(self, radius: float) -> bool:
        """Whether ``x - at`` is exact for every ``x`` the polynomial reads (Sterbenz: within half of ``at``)."""
        return self.infinite or self.at == 0 or radius <= abs(self.at) / 2

    def t(self, var: Variable, dtype: str) -> Variable:
        """The series' variable as a graph of the input."""
        if self.infinite:
            return pt.reciprocal(var)
        return var if self.at == 0 else pt.sub(var, np.asarray(self.at, dtype=dtype))

    def inside(self, var: Variable, radius: float, dtype: str) -> Variable:
        """Where the polynomial is read."""
        if self.infinite:
            bound = np.asarray(1 / radius, dtype=dtype)
            return pt.ge(var, bound) if self.at > 0 else pt.le(var, -bound)
        return pt.le(pt.abs(self.t(var, dtype)), np.asarray(radius, dtype=dtype))


AT_ZERO = _Expansion(0.0)


def _input(out: Variable) -> Variable | None:
    """The one float input ``out`` reads (constants aside), where ``out`` is a float too and elementwise in it
    (a value a point: a model's region reading ``x[2]`` is not a function of one number), else ``None``."""
    found = [v for v in explicit_graph_inputs([out]) if not isinstance(v, Constant)]
    if len(found) != 1 or not all(str(getattr(v.type, "dtype", "")).startswith("float") for v in (found[0], out)):
        return None
    return found[0] if elementwise_in_inputs([out]) else None


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
    return None if var is None else _coefficients(out, var, order, AT_ZERO)


def _coefficients(out: Variable, var: Variable, order: int, where: _Expansion) -> list[Any] | None:
    """:func:`taylor_coefficients` of ``out`` in its one float input ``var``, expanded ``where``."""
    g: Callable[[Any], Any] = lambda t: _exact_at(out, var, where.arg(t))  # noqa: E731
    try:
        with mp.workdps(DIGITS):
            coefficients = mp.taylor(g, 0, order, singular=True, direction=where.side())
            # mpmath's 0th "derivative" is the value at 0 itself, which a removable singularity (0/0 in
            # 2 (exp(x) - 1 - x) / x**2) or infinity has not: the value at a tiny h less the other terms there,
            # at thrice the digits, as the cancellation at h costs twice its digits
            with mp.workdps(3 * DIGITS):
                h = mp.mpf(10) ** -(DIGITS // 2 + 2) * (where.side() or 1)
                coefficients[0] = g(h) - _polyval([0, *coefficients[1:]], h)
            scale = max((abs(c) for c in coefficients if mp.isfinite(c)), default=mp.mpf(0))
            if scale == 0 or not all(mp.isfinite(c) for c in coefficients):
                return None
            # what numerical differentiation leaves of a zero coefficient: nothing at this precision
            return [c if abs(c) > scale * mp.mpf(10) ** (12 - DIGITS) else mp.mpf(0) for c in coefficients]
    except (NotExact, ValueError, ZeroDivisionError, OverflowError):
        return None


def _agrees(coefficients: Sequence[Any], out: Variable, var: Variable, radius: float,
            where: _Expansion = AT_ZERO) -> bool:
    """Whether the polynomial equals ``out`` to :data:`SERIES_BITS` bits at both ends of ``[-radius, radius]`` and
    halfway (exact values; where ``out`` is 0, the polynomial must be 0 too)."""
    with mp.workdps(DIGITS):
        for t in where.ends(radius):
            exact = _exact_at(out, var, where.arg(mp.mpf(t)))
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


def series_form(out: Variable, order: int = ORDER, at: float = 0.0) -> Variable | None:
    """``out`` (a graph of one float input ``x``) as its Taylor polynomial at ``at`` (0 by default; a float, in
    ``x - at``; or ``+-inf``, in ``1/x``) where ``|x - at| <= r`` (``|x| >= 1/r``), the largest radius of
    :data:`RADII` where the polynomial equals ``out`` to :data:`SERIES_BITS` bits (and, at a float ``at``, ``x -
    at`` is exact), and as written beyond; ``None`` where it has no such polynomial (see the module's
    docstring)."""
    where = _Expansion(float(at))
    var = _input(out)
    coefficients = None if var is None else _coefficients(out, var, order, where)
    if var is None or coefficients is None:
        return None
    try:
        radius = next((r for r in RADII if where.fits(r) and _agrees(coefficients, out, var, r, where)), None)
    except (NotExact, ValueError, ZeroDivisionError, OverflowError):
        return None
    if radius is None:
        return None
    kept = _trimmed(coefficients, radius)
    if not _agrees(kept, out, var, radius, where):
        kept = list(coefficients)
    if all(c == 0 for c in kept):
        return None
    dtype = str(out.type.dtype)
    poly = _horner(kept, where.t(var, dtype), dtype)
    form = pt.switch(where.inside(var, radius, dtype), poly, out)
    if form.type.dtype != out.type.dtype or form.type.ndim != out.type.ndim:
        return None
    return form


@lru_cache(maxsize=64)  # stabilize's e-graph and its regimes ask for the same output's
def series_forms(out: Variable) -> list[Variable]:
    """Every series form of ``out`` (a graph of one float input): at 0 (:func:`series_form`), and where the
    spelling loses :data:`CANCEL_BITS` or more: at ``+inf`` and ``-inf`` (read at ``+-2**20`` and ``+-2**40``),
    and at each of its :func:`cancellation_points`."""
    var = _input(out)
    if var is None:
        return []
    found = [series_form(out)]
    far = [at for at in (np.inf, -np.inf) if _loses(out, var, [np.sign(at) * 2.0**20, np.sign(at) * 2.0**40])]
    found += [series_form(out, at=a) for a in far]
    return [f for f in found if f is not None] + cancellation_series(out)


@lru_cache(maxsize=64)
def cancellation_series(out: Variable) -> list[Variable]:
    """The series forms of ``out`` (a graph of one float input) at its :func:`cancellation_points`."""
    found = [series_form(out, at=a) for a in cancellation_points(out)]
    return [f for f in found if f is not None]


def _loses(out: Variable, var: Variable, xs: Sequence[float]) -> bool:
    """Whether the spelling, evaluated in its dtype (numpy, :func:`graph_bridge.wide_float.evaluate`), is
    :data:`CANCEL_BITS` or more off its exact value at one of ``xs`` where that value is finite and nonzero."""
    from graph_bridge.float_error import bits_of_error
    from graph_bridge.wide_float import evaluate

    dtype = str(out.type.dtype)
    at = np.asarray(xs, dtype=dtype).reshape(-1, *[1] * var.type.ndim)
    try:
        [got] = evaluate([out], {var: at}, dtype=np.dtype(dtype))
        with mp.workdps(DIGITS):
            exact = [_exact_at(out, var, mp.mpf(float(x))) for x in at.reshape(-1)]
    except (NotImplementedError, NotExact, ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError):
        return False
    with np.errstate(over="ignore"):
        ref = np.array([float(e) if mp.isfinite(e) else np.nan for e in exact]).astype(dtype)
    got = np.asarray(got).reshape(len(ref), -1)[:, 0].astype(dtype)
    keep = np.isfinite(ref) & (ref != 0)
    return bool(keep.any() and (bits_of_error(got[keep], ref[keep]) >= CANCEL_BITS).any())


@lru_cache(maxsize=64)  # stabilize samples near them and expands at them: the root search once
def cancellation_points(out: Variable, roots: bool = True, crossings: bool = True) -> list[float]:
    """The nonzero floats near which ``out`` (a graph of one float input) cancels: its float constants and
    their negations, and (``roots``) the roots of its exact value: points of :data:`ROOT_GRID` where it is 0
    (``log(p / (1 - p))`` at 1/2) and (``crossings``) where it changes sign between two of them (to float
    precision); each kept where the spelling loses :data:`CANCEL_BITS` or more at ``a (1 +- OFF 2**-m)``, ``m``
    half the dtype's mantissa (``log(x) - x + 1`` at 1; ``log(x) - 1`` at e).  All of them, nearest 0 first: the
    candidates are bounded by the graph's constants and the grid's points."""
    var = _input(out)
    if var is None:
        return []
    dtype = str(out.type.dtype)
    half = OFF * 2.0 ** -(np.finfo(dtype).nmant // 2)
    found: list[float] = []
    for a in sorted(set(_constants(out)) | set(_roots(out, var, crossings) if roots else ()), key=abs):
        if a != 0 and np.isfinite(a) and a not in found and _loses(out, var, [a * (1 + half), a * (1 - half)]):
            found.append(a)
    return found


def _constants(out: Variable) -> list[float]:
    """The finite nonzero float scalars held by ``out``'s constants, and their negations."""
    from pytensor.graph.traversal import ancestors

    found: list[float] = []
    for c in ancestors([out]):
        if isinstance(c, Constant) and str(getattr(c.type, "dtype", "")).startswith(("float", "int", "uint")):
            data = np.asarray(c.data)
            if data.size == 1 and np.isfinite(data).all() and float(data.reshape(-1)[0]) != 0:
                v = float(data.reshape(-1)[0])
                found += [v, -v]
    return found


def _roots(out: Variable, var: Variable, crossings: bool = True) -> list[float]:
    """Roots of ``out``'s exact value: points of :data:`ROOT_GRID` where it is 0, and (``crossings``) roots
    bracketed by consecutive points of opposite sign (as floats of ``out``'s dtype)."""
    grid = sorted(ROOT_GRID)
    try:
        with mp.workdps(DIGITS):
            values = [_exact_at(out, var, mp.mpf(x)) for x in grid]
            # a grid point where the value is 0 (``log(p / (1 - p))`` at 1/2) is a root; it brackets none
            found = [x for x, fx in zip(grid, values, strict=True) if fx == 0]
            for (a, fa), (b, fb) in pairwise(zip(grid, values, strict=True)) if crossings else ():
                if mp.isfinite(fa) and mp.isfinite(fb) and fa * fb < 0:
                    root = mp.findroot(lambda t: _exact_at(out, var, t), (a, b), solver="anderson")
                    found.append(float(np.asarray(float(root), dtype=str(out.type.dtype))))
    except (NotExact, ValueError, ZeroDivisionError, OverflowError):
        return []
    return found


def near_points(out: Variable) -> dict[Variable, np.ndarray] | None:
    """Points near ``out``'s :func:`cancellation_points` (``a (1 +- OFF 2**-k)``, ``k`` of :data:`NEAR` within its
    dtype's mantissa), where sampled points seldom fall: the points a series form there is chosen on.  As the
    numpy screens give points (``graph_bridge.wide_float.lost_corners``): a column for the input, or ``None``."""
    var = _input(out)
    if var is None:
        return None
    dtype = str(out.type.dtype)
    ks = [k for k in NEAR if k < np.finfo(dtype).nmant]
    pts = [a * (1 + s * OFF * 2.0**-k) for a in cancellation_points(out) for k in ks for s in (1, -1)]
    return {var: np.asarray(pts, dtype=dtype)} if pts else None
