"""Stable numerics on every spelling: PyTensor's stabilizers matched modulo the rules (pytensor #1476, #2328).

``log(1 + exp(x))`` compiles to ``softplus(x)`` in PyTensor's default mode, but
``log(1 + broadcast_to(exp(x), (3,)))`` or ``log1p(1 / exp(-x))`` do not: the
stabilizer is a pattern that misses them, and at x = 800 they give inf.
``relations.mode()`` saturates the region around the ``log`` with the algebra
rules and PyTensor's own stabilize rewriters, so one of the equal spellings is
the one the stabilizer matches.  A mixture's density written as model code
writes it, ``log(exp(logp) @ w)``, is a weighted sum of exponentials in
disguise: the pass reads the dot as that sum and takes the max out of it.
A difference that cancels with no unstable Op (``softplus(x) - x``, ``sqrt(x +
1) - sqrt(x)``) is taken apart by the pass's cancellation tier, where a form
of the theory is measured more accurate; the normal log-CDF a censored
likelihood writes, ``log(0.5 * erfc(-x / sqrt(2)))``, and PyMC's HalfNormal log-CDF,
``log1p(-erfc(x))``, by regime forms.

The measured stage (``relations.mode(*relations.ACCURATE_TAGS)``) goes further, on spellings no rule names:
it screens every region in numpy, measures the flagged ones against exact values and compiles the most
accurate form ``relations.stabilize`` finds.  PyTorch's normal quantile ``sqrt(2) * erfinv(2 q - 1)`` is
``-inf`` in float32 below ``q = 3e-8`` (``2 q - 1`` rounds to -1) and becomes ``-sqrt(2) * erfcinv(2 q)``;
its Laplace quantile ``-sign(q - 0.5) * log1p(-2 |q - 0.5|)`` is split at its own ``abs`` and each piece
stabilized (``log(2) + log(q)`` below 0.5).

Run: ``python examples/stable_numerics.py``.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
from scipy.special import ndtri

import relations

x = pt.dscalar("x")
SPELLINGS = {
    "log(1 + exp(x))": pt.log(1 + pt.exp(x)),
    "log(1 + broadcast_to(exp(x), (3,)))": pt.log(1 + pt.broadcast_to(pt.exp(x), (3,))),
    "log1p(1 / exp(-x))": pt.log1p(1 / pt.exp(-x)),
}


def main() -> None:
    print("softplus(800) = 800; each spelling compiled before (stock) and after (relations.mode()):")
    for name, g in SPELLINGS.items():
        stock = pytensor.function([x], g)(800.0)
        ours = pytensor.function([x], g, mode=relations.mode())(800.0)
        print(f"  {name:40s} stock {np.max(stock):>6}   relations.mode() {np.max(ours):>6}")
        assert np.allclose(ours, 800.0)
    logp, w = pt.dmatrix("logp"), pt.dvector("w")
    mixture = pt.log(pt.dot(pt.exp(logp), w))
    lp, wv = np.array([[800.0, 799.0, 0.0]]), np.array([0.2, 0.3, 0.5])
    with np.errstate(over="ignore"):
        stock = pytensor.function([logp, w], mixture)(lp, wv)
    ours = pytensor.function([logp, w], mixture, mode=relations.mode())(lp, wv)
    exact = 800.0 + np.log(0.2 + 0.3 * np.exp(-1.0))
    print(f"  {'log(exp(logp) @ w), logp = [800, 799, 0]':40s} stock {stock[0]:>6}   relations.mode() {ours[0]:.4f}")
    assert np.allclose(ours, exact, rtol=1e-14)
    for name, g, at, value in (
        ("softplus(x) - x", pt.softplus(x) - x, 40.0, np.log1p(np.exp(-40.0))),
        ("sqrt(x + 1) - sqrt(x)", pt.sqrt(x + 1) - pt.sqrt(x), 1e17, 1 / (2 * np.sqrt(1e17))),
        ("log(0.5 * erfc(-x / sqrt(2)))", pt.log(0.5 * pt.erfc(-x / np.sqrt(2.0))), -40.0, -804.6084420137538),
        ("log(0.5 * erfc(-x / sqrt(2)))", pt.log(0.5 * pt.erfc(-x / np.sqrt(2.0))), 10.0, -7.619853024160525e-24),
        ("log1p(-erfc(x))", pt.log1p(-pt.erfc(x)), 1e-300, np.log(2 / np.sqrt(np.pi)) + np.log(1e-300)),
    ):
        with np.errstate(divide="ignore"):
            stock = pytensor.function([x], g)(at)
        ours = pytensor.function([x], g, mode=relations.mode())(at)
        print(f"  {name + f', x = {at:g}':40s} stock {float(stock):>6.4g}   relations.mode() {float(ours):.6g}")
        assert np.isclose(ours, value, rtol=1e-13, atol=0)
    measured_stage()
    print("which rewriter fired on which spelling:")
    rules = relations.DEFAULT_RULES + relations.RULESETS["algebra"]
    print(relations.explain(SPELLINGS["log1p(1 / exp(-x))"], rules=rules, rewriters=("stabilize",)))


def measured_stage() -> None:
    """Two float32 quantiles at q = 1e-30, compiled before (stock) and after (the measured stage)."""
    q = pt.fvector("q")
    at = np.array([1e-30, 0.25], dtype="float32")
    mode = relations.mode(*relations.ACCURATE_TAGS)
    print("float32 quantiles at q = 1e-30, 0.25, before (stock) and after (relations.mode(*ACCURATE_TAGS)):")
    for name, g, exact in (
        ("sqrt(2) * erfinv(2q - 1)", pt.erfinv(2 * q - 1) * np.float32(np.sqrt(2)), ndtri(at.astype("float64"))),
        ("-sign(q - 0.5) * log1p(-2|q - 0.5|)", -pt.sign(q - 0.5) * pt.log1p(-2 * pt.abs(q - 0.5)),
         np.log(2 * at.astype("float64"))),
    ):
        with np.errstate(divide="ignore"):
            stock = pytensor.function([q], g)(at)
        ours = pytensor.function([q], g, mode=mode)(at)
        print(f"  {name:40s} stock {stock}   measured {ours}")
        assert np.allclose(ours, exact, rtol=1e-6)


if __name__ == "__main__":
    main()
