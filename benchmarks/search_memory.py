"""Memory of an open search: ``list(equivalents(g, limit=None, depth=10**6))`` run for a while.

    python benchmarks/search_memory.py [seconds]

Runs the unbounded search on a 3-node graph (``sum(exp(x) * y)``) for
``seconds`` (default 20) and prints, every few seconds, the forms yielded,
the forms kept in the frontier and the process's peak resident memory, then
the growth per thousand forms.  Issue 18 reported about 1 GB a minute before
the search kept hashes of seen forms instead of structural keys of every
variable ever seen.  Run it with ``PYTHONPATH`` pointing at another checkout
to compare.
"""

from __future__ import annotations

import gc
import resource
import sys
import time


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(seconds: float = 20.0) -> None:
    import pytensor.tensor as pt

    import relations

    x, y = pt.vector("x"), pt.vector("y")
    g = pt.sum(pt.exp(x) * y)
    start_mb = rss_mb()
    t0 = time.monotonic()
    next_print = t0
    n = 0
    print(f"{'seconds':>8} {'forms':>8} {'peak RSS MB':>12}")
    for _ in relations.equivalents(g, limit=None, depth=10**6, timeout=seconds):
        n += 1
        now = time.monotonic()
        if now >= next_print:
            gc.collect()
            print(f"{now - t0:8.1f} {n:8d} {rss_mb():12.1f}")
            next_print = now + seconds / 5
    gc.collect()
    grown = rss_mb() - start_mb
    print(f"{time.monotonic() - t0:8.1f} {n:8d} {rss_mb():12.1f}")
    print(f"growth: {grown:.1f} MB for {n} forms = {1000 * grown / max(n, 1):.2f} MB per 1000 forms")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 20.0)
