"""The main performance figures in one run: ``python benchmarks/run.py``.

Every ratio is measured side by side in this one process (medians of
repeated runs), so the machine's noise affects both sides alike:

1. ``relations.normalize`` vs the same rules as native PyTensor node
   rewriters (``native_rules.native_normalize``, ``in2out`` to a fixpoint),
   and vs PyTensor's ``canonicalize`` pass, on the pattern family at about
   10^2, 10^3 and 10^4 nodes (``graphs.pattern_family``); both rule sets must
   reach the same normal form (checked, up to merging duplicates); "again"
   is ``normalize`` run on its own result (nothing left to rewrite: the cost
   of checking a graph that is already normal);
2. the scaling exponent of ``normalize`` between the two largest sizes;
3. peak memory (tracemalloc) of ``normalize`` on the largest graph, against
   the memory the graph itself takes;
4. compiled run time of the motivating cases before and after normalization;
5. where PyMC imports (the ``bench`` extra, Python 3.12 line), the table of
   ``models.py --table normalize``: PyMC 6 model graphs, ``normalize`` vs
   ``canonicalize``.

``--quick`` runs the sizes 10^2 and 10^3 only, one repeat each; ``--large``
adds 10^5 nodes (``normalize`` only, one run: the two baselines take many
minutes there), so the scaling exponent is measured from 10^3 to 10^5.
"""

from __future__ import annotations

import gc
import math
import sys
import tracemalloc
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore", category=FutureWarning)

import numpy as np  # noqa: E402
import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from graphs import count_nodes, op_counts, pattern_family  # noqa: E402
from lkjcorr import lkj_logp_term  # noqa: E402
from native_rules import native_normalize  # noqa: E402
from pytensor.graph.fg import FunctionGraph  # noqa: E402
from pytensor.graph.rewriting.basic import MergeOptimizer  # noqa: E402
from pytensor.graph.rewriting.utils import rewrite_graph  # noqa: E402
from sum_of_join import median_call_seconds  # noqa: E402
from timing import median_seconds  # noqa: E402

import relations  # noqa: E402


def canonicalize(outputs):
    return rewrite_graph(list(outputs), include=("canonicalize",), clone=True)


def merged_counts(outputs) -> dict[str, int]:
    fg = FunctionGraph(outputs=list(outputs), clone=True)
    MergeOptimizer().rewrite(fg)
    return op_counts(fg.outputs, detailed=True)


def scaling_table(sizes, repeats) -> list[tuple[int, float]]:
    print("1. normalize vs the native baseline and canonicalize (seconds, medians)")
    print(
        f"{'nodes':>7} {'normalize':>10} {'native':>9} {'canon.':>9} "
        f"{'norm/native':>12} {'norm/canon':>11} {'us/node':>8} {'same form':>10} "
        f"{'again/canon':>12}"
    )
    points = []
    for n in sizes:
        outs = pattern_family(n)
        nodes = count_nodes(outs)
        if n >= 100_000:  # normalize only: the baselines take many minutes at this size
            t_rel = median_seconds(lambda: relations.normalize(outs), 1)
            points.append((nodes, t_rel))
            print(f"{nodes:>7} {t_rel:>10.3f} {'-':>9} {'-':>9} {'-':>12} {'-':>11} {t_rel / nodes * 1e6:>8.1f}")
            continue
        same = merged_counts(relations.normalize(outs)) == merged_counts(native_normalize(outs))
        t_rel = median_seconds(lambda: relations.normalize(outs), repeats)
        t_nat = median_seconds(lambda: native_normalize(outs), repeats)
        t_can = median_seconds(lambda: canonicalize(outs), repeats)
        normal = relations.normalize(outs)
        t_again = median_seconds(lambda: relations.normalize(normal), repeats)
        points.append((nodes, t_rel))
        print(
            f"{nodes:>7} {t_rel:>10.3f} {t_nat:>9.3f} {t_can:>9.3f} {t_rel / t_nat:>12.2f} "
            f"{t_rel / t_can:>11.3f} {t_rel / nodes * 1e6:>8.1f} {'yes' if same else 'NO':>10} "
            f"{t_again / t_can:>12.3f}"
        )
    (n1, t1), (n2, t2) = points[-2:]
    print(f"\n2. scaling exponent of normalize ({n1} -> {n2} nodes): "
          f"{math.log(t2 / t1) / math.log(n2 / n1):.2f}")
    if len(points) > 2:
        (n0, t0) = points[1]
        print(f"   from {n0} to {n2} nodes: {math.log(t2 / t0) / math.log(n2 / n0):.2f}")
    return points


def memory_table(n: int) -> None:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    outs = pattern_family(n)
    graph_bytes = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.reset_peak()
    before_peak = tracemalloc.get_traced_memory()[0]
    result = relations.normalize(outs)
    peak = tracemalloc.get_traced_memory()[1] - before_peak
    kept = tracemalloc.get_traced_memory()[0] - before_peak
    tracemalloc.stop()
    del result
    print(f"\n3. memory on {count_nodes(outs)} nodes: graph {graph_bytes / 2**20:.1f} MiB, "
          f"normalize peak {peak / 2**20:.1f} MiB (ratio {peak / graph_bytes:.2f}), "
          f"kept after (the new nodes) {kept / 2**20:.1f} MiB")


def compiled_table() -> None:
    print("\n4. compiled run time of the motivating cases (default mode, median us per call)")
    print(f"{'case':>36} {'before':>10} {'after':>10} {'after/before':>13}")
    rng = np.random.default_rng(0)
    cases = []
    a, b, c = pt.vector("a"), pt.vector("b"), pt.vector("c")
    y001 = pt.sum(pt.join(0, pt.expand_dims(a, 0), pt.expand_dims(b, 0), pt.expand_dims(c, 0)))
    cases.append(("sum(join) n=10^6 (PR #2130)", [a, b, c], y001, [rng.normal(size=10**6) for _ in range(3)]))
    x, v = pt.scalar("x"), pt.vector("v")
    cases.append(("x + v n=10^6 (aesara #933)", [x, v], x + v, [np.float64(2.0), rng.normal(size=10**6)]))
    for n in (10, 100):
        params, y = lkj_logp_term(n)
        p = rng.uniform(-0.5, 0.5, size=n * (n - 1) // 2)
        cases.append((f"LKJCorr n={n} (pytensor #2138)", [params], y, [p]))
    # a reduction over a broadcast Elemwise chain (DimShuffles through Elemwise)
    chain = pt.sum(pt.exp(pt.expand_dims(v, 0)) * 2.0 + pt.log1p(pt.abs(pt.expand_dims(v, 0))))
    cases.append(("sum(f(expand_dims(v))) n=10^6", [v], chain, [rng.normal(size=10**6)]))
    mat = pt.matrix("mat")
    cases.append(("sum(exp(m.T) * 2, axis=0) 10^3x10^3", [mat], pt.sum(pt.exp(mat.T) * 2.0, axis=0),
                  [rng.normal(size=(1000, 1000))]))
    for name, inputs, y, args in cases:
        f_before = pytensor.function(inputs, y)
        f_after = pytensor.function(inputs, relations.normalize(y))
        np.testing.assert_allclose(f_before(*args), f_after(*args), rtol=1e-6)
        tb = median_call_seconds(f_before, args)
        ta = median_call_seconds(f_after, args)
        print(f"{name:>36} {tb * 1e6:>10.1f} {ta * 1e6:>10.1f} {ta / tb:>13.3f}")


def main() -> None:
    quick = "--quick" in sys.argv
    print(f"python {sys.version.split()[0]}, pytensor {pytensor.__version__}, "
          f"{len(relations.DEFAULT_RULES)} rules\n")
    sizes = (100, 1000) if quick else (100, 1000, 10_000)
    if "--large" in sys.argv:
        sizes = (100, 1000, 10_000, 100_000)
    scaling_table(sizes, repeats=1 if quick else 3)
    memory_table(min(sizes[-1], 10_000))  # tracemalloc makes 10^5 nodes very slow
    compiled_table()
    model_table(quick)


def model_table(quick: bool) -> None:
    """5. ``normalize`` against ``canonicalize`` on PyMC model graphs (``models.py``), where PyMC imports."""
    import models

    print("\n5. PyMC model graphs: normalize vs canonicalize (models.py --table normalize)")
    models.main(["--table", "normalize", *(["--quick"] if quick else [])])


if __name__ == "__main__":
    main()
