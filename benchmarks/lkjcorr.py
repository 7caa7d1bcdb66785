"""Compiled speed of the LKJCorr ``sqr(L)`` logp term before and after ``relations.normalize``.

    python benchmarks/lkjcorr.py

Default mode; every ratio is measured side by side in this one run.
"""

from __future__ import annotations

import time

import numpy as np
import pytensor
import pytensor.tensor as pt
from sum_of_join import median_call_seconds

import relations


def lkj_logp_term(n: int):
    params = pt.vector("params")
    L = pt.zeros((n, n))
    L = pt.set_subtensor(L[np.tril_indices(n, -1)], params)
    L = pt.set_subtensor(L[np.diag_indices(n)], 1)
    return params, pt.sum(pt.log1p(-pt.sqr(L)))  # a logp-style reduction of sqr(L)


def main() -> None:
    print(f"pytensor {pytensor.__version__}")
    print(f"{'n':>5} | {'normalize (ms)':>14} | {'before (us)':>12} | {'after (us)':>11} | {'after/before':>12}")
    rng = np.random.default_rng(0)
    for n in (10, 100, 500):
        params, y = lkj_logp_term(n)
        t0 = time.perf_counter()
        z = relations.normalize(y)
        norm_ms = (time.perf_counter() - t0) * 1e3
        f_before = pytensor.function([params], y)
        f_after = pytensor.function([params], z)
        p = rng.uniform(-0.5, 0.5, size=n * (n - 1) // 2)
        np.testing.assert_allclose(f_before(p), f_after(p))
        tb = median_call_seconds(f_before, [p])
        ta = median_call_seconds(f_after, [p])
        print(f"{n:>5} | {norm_ms:>14.2f} | {tb * 1e6:>12.1f} | {ta * 1e6:>11.1f} | {ta / tb:>12.3f}")


if __name__ == "__main__":
    main()
