"""A series where two inputs nearly agree: Herbie's series expansion on a critical difference.

A deviance, a KL divergence or a log-likelihood cancels where the data is near the parameter: the Poisson
deviance ``y log(y / mu) - y + mu`` is ``(y - mu)**2 / (2 mu) + ...``, computed as a difference of terms of size
``y``; the Bernoulli KL divergence ``p log(p / q) + (1 - p) log((1 - p) / (1 - q))`` likewise near ``p = q``.
No identity of the theory removes the cancellation (R's ``bd0`` is a series for the same reason), and the
series of :mod:`relations.saturation.series` are in one input.  Here the spelling is expanded in ``t = y - x``
for two of its inputs ``x``, ``y`` of its own type, the others held::

    f(x + t, x, ...) = sum_k c_k(x, ...) t**k,   c_k = (d/dy)**k f / k!  at  y = x

with the coefficients PyTensor graphs: truncated Taylor series carried through the spelling's nodes
(:mod:`relations.saturation.jets`, Herbie's ``taylor.rkt``; nested symbolic derivatives grow exponentially,
10,000 nodes at order 8 for the Bernoulli KL), read at ``y = x`` (``log(y / mu)`` is ``log(mu / mu)``, 0
exactly in floats).  The polynomial, in
Horner's form, is read where ``|y - x| <= r |x|`` (``y - x`` is then exact, Sterbenz), ``r`` the largest of
:data:`RADII` where it equals the spelling to :data:`~relations.saturation.series.SERIES_BITS` bits on exact
values at the points given (the points where the spelling was found to cancel); the spelling beyond.

Before/After (the Poisson deviance's terms, the order cut here for the page)::

    y*log(y/mu) - y + mu    ->    switch(abs(y - mu) <= 0.0625 * abs(mu),
                                         (y - mu)**2 * (1/(2 mu) + (y - mu) * (-1/(6 mu**2) + ...)),
                                         y*log(y/mu) - y + mu)

The form is a candidate, never a rewrite: :func:`relations.stabilize` joins it to the spelling's class as a
guarded form and takes it where it measures better.  A spelling whose derivatives PyTensor cannot take, or
whose polynomial agrees with it at no radius, has none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.rewriting.utils import rewrite_graph
from pytensor.graph.traversal import explicit_graph_inputs

from graph_bridge.exact import NotExact, values_at
from relations.saturation.series import SERIES_BITS

__all__ = ["ORDER", "RADII", "diagonal_forms", "diagonal_series"]

#: The degree of the polynomial (its coefficients' graphs grow as its square).
ORDER = 6

#: The relative radii tried, largest first: ``|y - x| <= r |x|`` (within 1/2, where ``y - x`` is exact).
RADII = tuple(2.0**-k for k in range(2, 31))

#: Decimal digits the exact values are computed with (the cancellation at ``r = 2**-30`` costs 60 bits).
DIGITS = 60


def _float_inputs(out: Variable) -> list[Variable]:
    return [v for v in explicit_graph_inputs([out]) if not isinstance(v, Constant)]


def _coefficients(out: Variable, x: Variable, y: Variable) -> list[Variable] | None:
    """The Taylor coefficients of ``out`` in ``t`` at ``y = x + t``, to :data:`ORDER`, as graphs: truncated
    series propagated through the spelling's nodes (:mod:`relations.saturation.jets`); ``None`` where a node
    has no series rule."""
    from relations.saturation.jets import taylor_jet

    found = taylor_jet(out, y, {y: x}, ORDER)
    if found is None:
        return None
    dtype = str(out.type.dtype)
    cs = [pt.zeros_like(out) if c is None else pt.cast(c, dtype) if c.type.dtype != dtype else c for c in found]
    # PyTensor's canonicalizer cancels what the series arithmetic wrote out: q * (1/q) - (1-q) * (1/(1-q)) is
    # the Bernoulli KL's first coefficient, 0, and a float off it in floats, which t**1 would carry
    # (it folds a coefficient's constants, a division by 0 among them where the series has a pole on the
    # diagonal; the radius check then refuses the coefficient, and numpy's warning, at every compile, says nothing)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rewritten = rewrite_graph(cs, include=("canonicalize",), clone=True)
    return list(rewritten) if isinstance(rewritten, list | tuple) else cs


def _exact(outputs: Sequence[Variable], at: Mapping[Variable, np.ndarray]) -> list[np.ndarray]:
    """The outputs' exact values at object arrays of mpmath numbers (one entry a point)."""
    vals, _ = values_at(list(outputs), at, mp.mp.prec + 64)
    return [np.asarray(v, dtype=object).reshape(-1) for v in vals]


def _radius(out: Variable, cs: Sequence[Variable], x: Variable, y: Variable,
            points: Mapping[Variable, np.ndarray]) -> float | None:
    """The largest radius of :data:`RADII` where the polynomial equals ``out`` to ``SERIES_BITS`` bits at
    ``y = x (1 +- r)`` and ``x (1 +- r/2)``, ``x`` and the others at ``points``' values."""
    n = len(next(iter(points.values())))
    with mp.workdps(DIGITS):
        base = {v: np.array([mp.mpf(float(c)) for c in np.asarray(col).reshape(-1)], dtype=object)
                for v, col in points.items() if v is not y}
        coeffs = _exact(cs, base)
        if not all(mp.isfinite(c) for col in coeffs for c in col):
            return None
        for r in RADII:
            ok = True
            for s in (r, -r, r / 2, -r / 2):
                t = np.array([xv * mp.mpf(s) for xv in base[x]], dtype=object)
                [exact] = _exact([out], {**base, y: base[x] + t})
                for k in range(n):
                    poly = mp.mpf(0)
                    for col in reversed(coeffs):
                        poly = poly * t[k] + col[k]
                    e = exact[k]
                    if not mp.isfinite(e) or abs(poly - e) > abs(e) * mp.mpf(2) ** -SERIES_BITS:
                        ok = False
                        break
                if not ok:
                    break
            if ok:
                return r
    return None


def diagonal_series(out: Variable, x: Variable, y: Variable,
                    points: Mapping[Variable, np.ndarray]) -> Variable | None:
    """``out`` as its series in ``t = y - x`` where ``|y - x| <= r |x|`` (see the module's docstring), the
    radius checked at ``points`` (a column of values per input of ``out``: where it cancels); ``None`` where
    ``x`` and ``y`` are not inputs of ``out``'s type, or it has no such series."""
    ins = _float_inputs(out)
    if x not in ins or y not in ins or x is y or any(v.type != out.type for v in (x, y)):
        return None
    if set(points) != set(ins):
        raise ValueError(f"points: need a column for each input of out {ins}, got {list(points)}")
    cs = _coefficients(out, x, y)
    if cs is None:
        return None
    try:
        radius = _radius(out, cs, x, y, points)
    except (NotExact, ValueError, ZeroDivisionError, OverflowError):
        return None
    if radius is None:
        return None
    dtype = str(out.type.dtype)
    t: Any = pt.sub(y, x)
    near = pt.le(pt.abs(t), np.asarray(radius, dtype=dtype) * pt.abs(x))
    cs = _read_near(cs, near, points)
    poly: Any = cs[-1]
    for c in reversed(cs[:-1]):  # c first: PyTensor sums c's terms and poly * t as one Add, left to right, and
        poly = c + poly * t  # c's terms cancel on the diagonal (the gamma KL's c1 = a1/b1 - a2/b1 at a1 = a2)
    form = pt.switch(near, poly, out)
    if form.type != out.type:
        return None
    return form


def _read_near(cs: Sequence[Variable], near: Variable, points: Mapping[Variable, np.ndarray]) -> list[Variable]:
    """The coefficients with each input they read taken at one of ``points`` where ``near`` is false: the
    polynomial is discarded there, and its coefficients need not be computed at any input (SciPy's
    ``polygamma(1, x)``, a ``gammaln``'s coefficient, takes a second at ``x = -1e8`` and hangs at ``-1e15``,
    where a regime's sampled points lie)."""
    from pytensor.graph.replace import clone_replace

    reads = [v for v in explicit_graph_inputs(list(cs)) if not isinstance(v, Constant) and v in points]
    if not reads:
        return list(cs)
    # the point farthest from 0 in every input: PyTensor sinks a division into a switch's branches and folds
    # the constant one (1 / switch(near, x, 0) would be 1 / 0, and a warning at every compile)
    cols = np.stack([np.abs(np.asarray(points[v], dtype=float).reshape(-1)) for v in reads])
    row = int(np.argmax(cols.min(axis=0)))
    safe = {v: pt.switch(near, v, np.asarray(points[v]).reshape(-1)[row].astype(v.type.dtype)) for v in reads}
    return list(clone_replace(list(cs), replace=safe))


#: Where two inputs count as nearly agreeing at a point of :func:`diagonal_forms` (relative difference).
AGREE = 2.0**-8


@lru_cache(maxsize=64)  # stabilize's e-graph and the measured stage ask for the same output's
def diagonal_forms(out: Variable) -> list[Variable]:
    """The series forms of ``out`` (elementwise, two float inputs or more of its type) on the diagonals where it
    cancels (:func:`graph_bridge.wide_float.diagonal_cancels`): for each pair of inputs that nearly agree at one
    of those points, :func:`diagonal_series` in their difference, checked at those points."""
    from graph_bridge.wide_float import diagonal_cancels

    try:
        at = diagonal_cancels(out)
    except (NotImplementedError, ValueError, TypeError, IndexError):
        return []
    if at is None:
        return []
    ins = list(at)
    found = []
    for i, x in enumerate(ins):
        for y in ins[i + 1:]:
            with np.errstate(all="ignore"):
                near = np.abs(at[y] / at[x] - 1) <= AGREE
            if near.any():
                form = diagonal_series(out, x, y, {v: col[near] for v, col in at.items()})
                if form is not None:
                    found.append(form)
    return found
