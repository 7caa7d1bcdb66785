"""Logs of sums and shares as likelihoods write them, compiled by the measured stage.

A zero-inflated likelihood at 0, ``log((1 - psi) + psi * exp(-mu))``, is ``-inf`` where ``psi * exp(-mu)``
underflows and loses its digits where that term is tiny next to ``1 - psi``; ``log_add_sign_regimes`` writes the
log of a sum of two terms of one sign as ``logaddexp`` of their logs, whose rules read the factors.  A negative
binomial kernel written through the success probability ``mu / (mu + phi)``, logged, rounds ``mu + phi`` (and
overflows it); ``log_share`` and ``log_share_regimes`` write ``log(a / (a + b))`` as ``-log1p(b / a)``.
"""

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt

from helpers import assert_accurate_and_typed, compiled_with_stage


def test_a_zero_inflated_likelihood_at_zero_is_a_logaddexp_of_its_terms_logs():
    """PyMC3's zero-inflated Poisson pmf at 0, ``(1 - psi) + psi exp(-mu)``, logged: ``-inf`` stock at ``psi = 1``,
    ``mu = 800`` (the value is -800) and 0 at ``psi = 1e-20``, ``mu = 1`` (the value is -6.3e-21)."""
    psi, mu = pt.dvector("psi"), pt.dvector("mu")
    out = pt.log((1 - psi) + psi * pt.exp(-mu))
    f, last = compiled_with_stage([psi, mu], out)
    assert last.replaced == 1
    at = (np.array([1.0, 1e-20, 0.3, 1.0, 0.5]), np.array([800.0, 1.0, 2.0, 1e-10, 40.0]))
    with mp.workdps(50):
        ref = np.array([float(mp.log((1 - mp.mpf(p)) + p * mp.exp(-mp.mpf(m)))) for p, m in zip(*at, strict=True)])
    stock = pytensor.function([psi, mu], out, mode="FAST_RUN")(*at)
    assert np.isinf(stock[0]) and stock[1] == 0.0
    assert_accurate_and_typed(f, out, at, ref, 1e-13, fill=0.5)


def test_the_log_of_a_share_is_a_log1p_of_the_other_over_it():
    """Stan's negative-binomial kernel ``n log(mu / (mu + phi)) + phi log(phi / (mu + phi))``: 8e-8 off stock at
    ``mu = 1``, ``phi = 1e10`` (``mu + phi`` rounds) and ``-inf`` at ``mu = 1.7e308``, ``phi = 1e308`` (it
    overflows)."""
    n, mu, phi = pt.dvector("n"), pt.dvector("mu"), pt.dvector("phi")
    out = n * pt.log(mu / (mu + phi)) + phi * pt.log(phi / (mu + phi))
    f, last = compiled_with_stage([n, mu, phi], out)
    assert last.replaced == 1
    at = (np.array([0.0, 5.0, 3.0, 1.0]), np.array([1.0, 1.7e308, 1e-10, 2.0]), np.array([1e10, 1e308, 1.0, 3.0]))
    with mp.workdps(50):
        ref = np.array([float(-k * mp.log1p(mp.mpf(q) / m) - q * mp.log1p(mp.mpf(m) / q))
                        for k, m, q in zip(*at, strict=True)])
    stock = pytensor.function([n, mu, phi], out, mode="FAST_RUN")(*at)
    assert abs(stock[0] / ref[0] - 1) > 1e-9 and np.isinf(stock[1])
    assert_accurate_and_typed(f, out, at, ref, 1e-13, fill=0.5)
    # where the share is negative the log is NaN, as written
    assert np.isnan(f(np.array([1.0]), np.array([-1.0]), np.array([3.0]))).all()
