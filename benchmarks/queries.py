"""Time to the first equivalents of pattern-family graphs of 50, 500 and 5,000 nodes.

    python benchmarks/queries.py

Prints one table (median of repeated runs, all measured in this one run):
the time to the first form and to the first 10 forms of
``relations.equivalents(g, limit=10, depth=2)``, and, as the linear
conversion cost they are compared with, one structural walk of the graph.
Goal: the first 10 forms of a 50-node graph in under 0.2 s, and
time to the first form flat in the graph size beyond the linear walk.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graphs import count_nodes, pattern_family  # noqa: E402
from timing import median_seconds  # noqa: E402

import relations  # noqa: E402
from graph_bridge.structural_keys import StructuralKeys  # noqa: E402


def small_pattern_graph():
    """About 50 nodes: each motivating pattern once (the families' block is ~90 nodes)."""
    import pytensor.tensor as pt

    x, y, s, m = pt.vector("x"), pt.vector("y"), pt.scalar("s"), pt.matrix("m")
    parts = [
        pt.sum(pt.expand_dims(pt.exp(x), 0)),  # 001 full
        pt.sum(pt.sum(m.T, axis=0)),  # 001 partial
        pt.sum(pt.join(0, pt.expand_dims(x, 0), pt.expand_dims(y, 0))),  # 001 join
        pt.sum(s * y + x),  # 000 broadcast
        pt.sum(pt.sqr(pt.set_subtensor(pt.zeros((3, 3))[[1, 2], [0, 1]], x[:2]))),  # 004
        pt.max(pt.exp(m).T.T * s),
        pt.sum(pt.log(m) * y[None, :] - s),  # 000 with a matrix
        pt.sum(pt.alloc(s, 3, 2) * 2.0),  # 004 alloc
        pt.sum(pt.min(pt.join(1, m, pt.exp(m)), axis=1)),
        pt.sum(pt.inc_subtensor(pt.zeros((4,))[1:3], y[:2]) ** 2),
    ]
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


def first_forms(graph, k: int) -> None:
    forms = relations.equivalents(graph, limit=10, depth=2)
    for _ in range(k):
        next(forms)


def main() -> None:
    print(
        f"{'nodes':>6} {'walk (s)':>9} {'first (s)':>10} {'first-walk':>11} "
        f"{'first 10 (s)':>13} {'first/walk':>11}"
    )
    for n in (50, 500, 5000):
        g = small_pattern_graph() if n == 50 else pattern_family(n)[0]
        nodes = count_nodes([g])
        walk = median_seconds(lambda: StructuralKeys().key(g))
        first = median_seconds(lambda: first_forms(g, 1))
        ten = median_seconds(lambda: first_forms(g, 10))
        print(
            f"{nodes:>6} {walk:>9.4f} {first:>10.4f} {first - walk:>11.4f} "
            f"{ten:>13.4f} {first / walk:>11.1f}"
        )


if __name__ == "__main__":
    main()
