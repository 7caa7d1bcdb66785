"""PyMC's log-density modulo the rules (Python 3.12 line, with PyMC): ``import relations.pymc as rpm``.

:func:`logp` and :func:`conditional_logp` derive a density where PyMC's own
derivation fails on a spelling the ``measurable`` rules relate to one it
derives; :func:`install` puts them behind ``pm.logp`` and a model's logp.
Implemented in :mod:`relations.pymc.densities`.
"""

from __future__ import annotations

from relations.pymc.densities import (
    CHECK_DRAWS,
    FORMS,
    SECONDS,
    STOCK,
    STOCK_FAILURES,
    BroadcastRandomVariable,
    DensityMismatch,
    NotDerivable,
    TransformedCensoring,
    broadcast_random,
    broken_density,
    censored_points,
    conditional_logp,
    cross_check,
    density_mass,
    derivable_forms,
    describe,
    install,
    installed,
    logp,
    switches_random,
    transforms_censoring,
    uninstall,
    why_not_measurable,
)

__all__ = [
    "CHECK_DRAWS",
    "DensityMismatch",
    "FORMS",
    "NotDerivable",
    "TransformedCensoring",
    "SECONDS",
    "STOCK",
    "STOCK_FAILURES",
    "conditional_logp",
    "cross_check",
    "describe",
    "BroadcastRandomVariable",
    "broadcast_random",
    "broken_density",
    "censored_points",
    "density_mass",
    "derivable_forms",
    "why_not_measurable",
    "install",
    "installed",
    "switches_random",
    "transforms_censoring",
    "logp",
    "uninstall",
]
