"""graph_bridge.exact: the exact value where a function saturates, near its zeros, and at a large rounded operand.

Each case is one the numerics theory's check met (``tests/test_numerics_theory.py``): a value that
looks short at the working precision near an asymptote (``expm1(-300)`` rounds to -1 at 128 bits),
a function whose condition number is large (``log1p`` near -1, ``gamma`` of ``exp(300)``), a
function computed by the composition that loses its zero (``log(gamma(x))`` near 1).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor.tensor as pt
import pytest

from graph_bridge.exact import exact_values


def _value(out, x, at):
    values, settled = exact_values([out], {x: np.array([at])})
    assert settled[0].all()
    return values[0][0]


def _close(got, want, rtol=1e-14):
    return abs(got - want) <= rtol * abs(want)


X = pt.dvector("x")


@pytest.mark.parametrize(
    ("out", "at", "want"),
    [
        (pt.expm1(X) + 1, -300.0, lambda: mp.exp(-300)),
        (1 - pt.sigmoid(X), 300.0, lambda: 1 / (1 + mp.exp(300))),
        (pt.softplus(X) - X, 300.0, lambda: mp.log1p(mp.exp(-300))),
        (pt.log1mexp(X), -300.0, lambda: mp.log1p(-mp.exp(-300))),
        (pt.log1p(pt.expm1(X)), -300.0, lambda: mp.mpf(-300)),
        (pt.log1p(-pt.sigmoid(X)), 300.0, lambda: -300 - mp.log1p(mp.exp(-300))),
        (pt.gammaln(pt.exp(X)), 1e-30, lambda: mp.loggamma(mp.exp(mp.mpf("1e-30")))),
        (pt.gammaln(pt.exp(X) + 1), -300.0, lambda: mp.loggamma(1 + mp.exp(-300))),
    ],
    ids=["expm1_plus_1", "one_minus_sigmoid", "softplus_minus_x", "log1mexp", "log1p_expm1", "log1p_neg_sigmoid",
         "gammaln_near_1", "gammaln_of_rounded_1"],
)
def test_a_value_near_an_asymptote_or_a_zero_is_exact(out, at, want):
    with mp.workprec(2048):
        reference = want()
    got = _value(out, X, at)
    assert got != 0 and _close(got, reference), (got, reference)


def test_gamma_of_a_large_rounded_operand_keeps_its_digits():
    with mp.workprec(2048):
        reference = mp.gamma(mp.exp(300))
    got = _value(pt.gamma(pt.exp(X)), X, 300.0)
    assert _close(got, reference, rtol=1e-12), (got, reference)


def test_a_power_of_zero_is_one_whatever_the_base():
    assert _value(pt.log(pt.exp(X) ** pt.zeros_like(X)), X, -1.9) == 0


def test_a_short_value_of_exact_operands_stays_exact():
    assert _value(pt.exp(X) - 1, X, 0.0) == 0
    assert _value(pt.log(X) - 0, X, 1.0) == 0
