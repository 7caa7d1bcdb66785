"""The total probability of a scalar log-density: what ``relations.pymc.logp(..., check=True)`` checks.

A density derived for a scalar variable must integrate to one over the
variable's values, point masses included (a censored variable has mass at
its bounds, where its log-density is a log-probability).  :func:`total_mass`
adds the masses at the atoms (values that draws of the variable repeat) to
the integral of the density elsewhere (``scipy.integrate.quad``, split at
the atoms); a discrete variable's masses are summed over the integers its
draws reach, widened until the terms vanish.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["MASS_TOLERANCE", "atoms", "total_mass"]

#: How far from one a checked total may be (quadrature of a density with kinks and far tails).
MASS_TOLERANCE = 1e-3


def atoms(draws: np.ndarray) -> list[float]:
    """The values that more than one draw takes (the point masses a continuous variable's draws show)."""
    values, counts = np.unique(np.asarray(draws, dtype=float), return_counts=True)
    return [float(v) for v, c in zip(values, counts) if c > 1 and np.isfinite(v)]


def _mass(logp: Callable[[float], float], at: float) -> float:
    with np.errstate(all="ignore"):
        out = float(np.exp(logp(at)))
    return out if np.isfinite(out) else 0.0


def total_mass(logp: Callable[[float], float], draws: np.ndarray, discrete: bool) -> float:
    """The total probability of the log-density ``logp`` of a scalar variable with ``draws``.

    Continuous: the masses at :func:`atoms`, plus the integral of ``exp(logp)`` over the line
    (``nan`` or ``-inf`` count as 0 outside the draws' range).  Discrete: the sum over the integers
    from below the lowest draw to above the highest, widened while the end terms are not negligible.
    """
    from scipy import integrate

    draws = np.asarray(draws, dtype=float)
    lo, hi = float(np.min(draws)), float(np.max(draws))
    if discrete:
        spread = max(hi - lo, 10.0)
        ks = np.arange(np.floor(lo - 2 * spread), np.ceil(hi + 2 * spread) + 1)
        return float(sum(_mass(logp, float(k)) for k in ks))
    points = atoms(draws)
    mass = sum(_mass(logp, a) for a in points)

    def density(t: float) -> float:
        return 0.0 if t in points else _mass(logp, t)

    width = max(hi - lo, 1e-3)
    cuts = sorted({lo - 10 * width, *points, hi + 10 * width})
    total = 0.0
    pieces = [(-np.inf, cuts[0]), *zip(cuts[:-1], cuts[1:]), (cuts[-1], np.inf)]
    for a, b in pieces:
        value, _ = integrate.quad(density, a, b, limit=200)
        total += value
    return mass + total
