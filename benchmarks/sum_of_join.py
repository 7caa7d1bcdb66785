"""Compiled speed of the sum of a join (pytensor #2132) before and after ``relations.normalize``.

    python benchmarks/sum_of_join.py

Prints one table; every ratio is measured side by side in this one run
(default mode, median of repeated calls).
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations


def median_call_seconds(f, args, min_time=0.3, repeats=7) -> float:
    f(*args)  # warm up
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            f(*args)
        if time.perf_counter() - t0 > min_time / repeats or n > 1 << 16:
            break
        n *= 2
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            f(*args)
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


def main() -> None:
    a, b, c = pt.vector("a"), pt.vector("b"), pt.vector("c")
    y = pt.sum(pt.join(0, pt.expand_dims(a, 0), pt.expand_dims(b, 0), pt.expand_dims(c, 0)))
    t0 = time.perf_counter()
    z = relations.normalize(y)
    norm_s = time.perf_counter() - t0
    f_before = pytensor.function([a, b, c], y)
    f_after = pytensor.function([a, b, c], z)
    rng = np.random.default_rng(0)
    print(f"pytensor {pytensor.__version__}, linker {pytensor.config.linker}, "
          f"normalize took {norm_s * 1e3:.2f} ms")
    print(f"{'n':>9} | {'before (us)':>12} | {'after (us)':>11} | {'after/before':>12}")
    for n in (10**3, 10**6):
        args = [rng.normal(size=n) for _ in range(3)]
        np.testing.assert_allclose(f_before(*args), f_after(*args))
        tb = median_call_seconds(f_before, args)
        ta = median_call_seconds(f_after, args)
        print(f"{n:>9} | {tb * 1e6:>12.1f} | {ta * 1e6:>11.1f} | {ta / tb:>12.3f}")


if __name__ == "__main__":
    main()
