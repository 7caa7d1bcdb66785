"""PyMC model graphs (logp and dlogp) for the benchmarks: ``python benchmarks/models.py``.

Needs PyMC (``pip install -e '.[bench]'``, Python 3.12 line).  Two tables of
``[model.logp(), model.dlogp()]`` per model (``--table`` picks one):

- ``normalize``: nodes, rewrites fired; "cold", the first
  ``relations.normalize`` of this kind of model in the process (it also
  pays for PyTensor's and Python's caches warming up to the model's Ops);
  "first", the first ``normalize`` of a new graph of the same model (what a
  user pays per graph; best of five new graphs); PyTensor's
  ``canonicalize`` (``rewrite_graph(include=("canonicalize",))``, best of
  5; its calls alternate with those of "first", so the machine's noise hits
  both alike); "best", ``normalize`` of one graph, best of 5; the ratios,
  the first normalize per fired rewrite, and
  "again" (``normalize`` of its own result) over canonicalize;
- ``compiled``: the run time in PyTensor's default mode with and without
  the ``relational`` tag, as interleaved runs (the two functions alternate,
  so the machine's noise hits both alike), best and median of
  ``--repeats`` rounds, and the ratios tagged / untagged.  Below 1 the tag
  made the model faster.

``--quick`` runs three models with fewer repeats.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)

import numpy as np  # noqa: E402
import pytensor  # noqa: E402
from pytensor.compile.mode import get_default_mode  # noqa: E402

import relations  # noqa: E402,F401  (registers the relational tag)

from pymc_models import MODELS, logp_dlogp, point_values, pm  # noqa: E402  (tests/pymc_models.py)
from timing import best_seconds, interleaved_seconds  # noqa: E402


def interleaved(fa, fb, args, repeats: int, min_time: float = 0.05) -> tuple[list[float], list[float]]:
    """Per-call seconds of ``fa`` and ``fb``, alternating, ``repeats`` rounds each."""
    fa(*args), fb(*args)
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fa(*args)
        if time.perf_counter() - t0 > min_time or n > 1 << 14:
            break
        n *= 2
    ta, tb = [], []
    for _ in range(repeats):
        for f, out in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter()
            for _ in range(n):
                f(*args)
            out.append((time.perf_counter() - t0) / n)
    return ta, tb


def normalize_table(names: list[str]) -> None:
    from pytensor.graph.rewriting.utils import rewrite_graph
    from pytensor.graph.traversal import apply_ancestors

    print(f"pytensor {pytensor.__version__}, pymc {pm.__version__}; logp+dlogp graphs, best of 5")
    print("| model | nodes | rewrites | cold (ms) | first (ms) | best (ms) | canonicalize (ms) "
          "| first / canon. | best / canon. | us per rewrite | again / canon. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        # cold: the first normalize of this model kind in the process (PyTensor's and
        # Python's caches warm up for its Ops); first: a new graph of the same model
        _, warm_up = logp_dlogp(MODELS[name]())
        t_cold = best_seconds(lambda: relations.normalize(warm_up), repeats=1)
        # five new graphs, each normalized once, and five canonicalize calls:
        # the best of each.  The graphs are built first; the normalizes and
        # the canonicalizes alternate, so a burst of the machine's noise hits
        # both alike (one collection before the rounds: a collection right
        # before a call walks every object and leaves it with cold caches)
        new_graphs = [logp_dlogp(MODELS[name]())[1] for _ in range(5)]
        outs = new_graphs[0]
        firsts, canons = interleaved_seconds(
            [lambda: relations.normalize(new_graphs.pop()),
             lambda: rewrite_graph(outs, include=("canonicalize",), clone=True)],
            rounds=5,
        )
        t_first, t_canon = min(firsts), min(canons)
        nodes = sum(1 for _ in apply_ancestors(outs))
        fired = len(relations.explain(outs).steps)
        t_norm = best_seconds(lambda: relations.normalize(outs))
        normal = relations.normalize(outs)
        t_again = best_seconds(lambda: relations.normalize(normal))
        per = t_first / fired * 1e6 if fired else float("nan")
        print(
            f"| {name} | {nodes} | {fired} | {t_cold * 1e3:.1f} | {t_first * 1e3:.1f} | {t_norm * 1e3:.1f} "
            f"| {t_canon * 1e3:.1f} | {t_first / t_canon:.3f} | {t_norm / t_canon:.3f} | {per:.0f} "
            f"| {t_again / t_canon:.3f} |"
        )


def compiled_table(names: list[str], repeats: int) -> None:
    print(f"pytensor {pytensor.__version__}, pymc {pm.__version__}; default mode; "
          f"logp+dlogp, interleaved, {repeats} rounds")
    print("| model | nodes plain | nodes tagged | plain best (us) | tagged best (us) "
          "| ratio best | ratio median |")
    print("|---|---|---|---|---|---|---|")
    base = get_default_mode()
    for name in names:
        model = MODELS[name]()
        inputs, outs = logp_dlogp(model)
        plain = pytensor.function(inputs, outs, mode=base)
        tagged = pytensor.function(inputs, outs, mode=base.including("relational"))
        args = point_values(model)
        for a, b in zip(plain(*args), tagged(*args)):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
        tp, tt = interleaved(plain, tagged, args, repeats)
        n_plain = len(plain.maker.fgraph.apply_nodes)
        n_tagged = len(tagged.maker.fgraph.apply_nodes)
        print(
            f"| {name} | {n_plain} | {n_tagged} | {min(tp) * 1e6:.1f} | {min(tt) * 1e6:.1f} "
            f"| {min(tt) / min(tp):.3f} | {statistics.median(tt) / statistics.median(tp):.3f} |"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--table", choices=("all", "normalize", "compiled"), default="all")
    parser.add_argument("models", nargs="*", help="model names (default: all)")
    args = parser.parse_args(argv)
    if pm is None:
        print("PyMC is not installed (pip install -e '.[bench]' on Python >= 3.12): no model table")
        return
    names = args.models or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {list(MODELS)}")
    repeats = args.repeats
    if args.quick:
        names = names[:3] if not args.models else names
        repeats = min(repeats, 10)
    if args.table in ("all", "normalize"):
        normalize_table(names)
        print()
    if args.table in ("all", "compiled"):
        compiled_table(names, repeats)


if __name__ == "__main__":
    main()
