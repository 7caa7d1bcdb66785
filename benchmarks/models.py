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
  ``--repeats`` rounds, and the ratios tagged / untagged (below 1 the tag
  made the model faster); the compiled node counts; the compile time
  (``pytensor.function`` on a new graph, stock and tagged alternating, best
  of ``--compile-rounds``) and its ratio; the time of the toolkit's own
  passes in a tagged compile (``relational`` and the lowering, best of the
  rounds) and its share of the stock compile time (the ratio's own part:
  the rest of the ratio is the machine's noise or PyTensor's work on the
  other graph); the "rewrites ratio": the mode's rewrites alone on a
  FunctionGraph of a new graph, tagged / stock (best of at least 5
  alternating rounds: no linking or code generation, whose time the tag does
  not change and whose noise dominates the compile ratio); then the targets of the
  "pay off on real models" work with this run's figures, met or not.

``--quick`` runs three models with fewer repeats; ``--tag relational_normalize``
compiles the tagged functions with the greedy pass (every rewrite applied)
instead of ``relational``.
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
from timing import best_seconds, interleaved_seconds  # noqa: E402

import relations  # noqa: E402,F401  (registers the relational tag)
from pymc_models import MODELS, logp_dlogp, pm, point_values, selected  # noqa: E402  (tests/pymc_models.py)


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


#: the toolkit's own compile passes: their time is what the tag adds to compiling
OWN_PASSES = ("relational", "lower_explicit")


class _PassClock:
    """Seconds spent in the toolkit's own compile passes (:data:`OWN_PASSES`, with ``tag`` for
    ``relational``) while it is on."""

    def __init__(self, tag: str = "relational") -> None:
        from pytensor.compile import optdb

        self.seconds = 0.0
        self._rewriters = [next(iter(optdb.__db__[tag if t == "relational" else t])) for t in OWN_PASSES]

    def __enter__(self) -> _PassClock:
        for rw in self._rewriters:
            plain = rw.apply

            def timed(fgraph, plain=plain):
                t0 = time.perf_counter()
                try:
                    return plain(fgraph)
                finally:
                    self.seconds += time.perf_counter() - t0

            rw.apply = timed
        return self

    def __exit__(self, *exc) -> None:
        for rw in self._rewriters:
            del rw.apply  # the class's method again


def _compile_seconds(name: str, mode, rounds: int, tag: str) -> tuple[list[float], list[float], list[float]]:
    """Seconds of ``pytensor.function`` on new logp+dlogp graphs, stock and tagged, alternating;
    and of the toolkit's own passes in each tagged compile."""
    plain_t, tagged_t, own_t = [], [], []
    for _ in range(rounds):
        for m, out in ((mode, plain_t), (mode.including(tag), tagged_t)):
            model = MODELS[name]()
            inputs, outs = logp_dlogp(model)
            with _PassClock(tag) as clock:
                t0 = time.perf_counter()
                pytensor.function(inputs, outs, mode=m)
                out.append(time.perf_counter() - t0)
            if out is tagged_t:
                own_t.append(clock.seconds)
    return plain_t, tagged_t, own_t


def _rewrite_seconds(name: str, mode, rounds: int, tag: str) -> tuple[list[float], list[float]]:
    """Seconds of the mode's rewrites alone (no linking, no code generation) on a FunctionGraph of new
    logp+dlogp graphs, stock and tagged, alternating: the part of compiling the tag can change."""
    from pytensor.graph.fg import FunctionGraph

    rewrites = (mode.optimizer, mode.including(tag).optimizer)
    plain_t, tagged_t = [], []
    for _ in range(rounds):
        for rewrite, out in zip(rewrites, (plain_t, tagged_t)):
            inputs, outs = logp_dlogp(MODELS[name]())
            fgraph = FunctionGraph(inputs, outs, clone=True)
            t0 = time.perf_counter()
            rewrite(fgraph)
            out.append(time.perf_counter() - t0)
    return plain_t, tagged_t


def _geomean(xs: list[float]) -> float:
    return float(np.exp(np.mean(np.log(xs)))) if xs else float("nan")


def compiled_table(names: list[str], repeats: int, compile_rounds: int = 3, tag: str = "relational") -> None:
    print(f"pytensor {pytensor.__version__}, pymc {pm.__version__}; default mode, tagged: {tag}; "
          f"logp+dlogp, interleaved, {repeats} rounds; compile: best of {compile_rounds} new graphs each, alternating")
    print("| model | nodes plain | nodes tagged | plain best (us) | tagged best (us) "
          "| ratio best | ratio median | compile plain (s) | compile tagged (s) | compile ratio "
          "| own passes (ms) | own / plain compile | rewrites ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = get_default_mode()
    ratios, medians, compiles, rewrites = {}, {}, {}, {}
    for name in names:
        model = MODELS[name]()
        inputs, outs = logp_dlogp(model)
        plain = pytensor.function(inputs, outs, mode=base)
        tagged = pytensor.function(inputs, outs, mode=base.including(tag))
        args = point_values(model)
        for a, b in zip(plain(*args), tagged(*args)):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
        tp, tt = interleaved(plain, tagged, args, repeats)
        n_plain = len(plain.maker.fgraph.apply_nodes)
        n_tagged = len(tagged.maker.fgraph.apply_nodes)
        cp, ct, own = _compile_seconds(name, base, compile_rounds, tag)
        rp, rt = _rewrite_seconds(name, base, max(compile_rounds, 5), tag)
        ratios[name] = min(tt) / min(tp)
        medians[name] = statistics.median(tt) / statistics.median(tp)
        compiles[name] = min(ct) / min(cp)
        rewrites[name] = min(rt) / min(rp)
        print(
            f"| {name} | {n_plain} | {n_tagged} | {min(tp) * 1e6:.1f} | {min(tt) * 1e6:.1f} "
            f"| {ratios[name]:.3f} | {medians[name]:.3f} | {min(cp):.2f} | {min(ct):.2f} | {compiles[name]:.3f} "
            f"| {min(own) * 1e3:.1f} | {min(own) / min(cp):.3f} | {rewrites[name]:.3f} |"
        )
    _print_targets(ratios, compiles, rewrites)


def _print_targets(ratios: dict[str, float], compiles: dict[str, float], rewrites: dict[str, float]) -> None:
    """The issue's targets, each with the figure of this run and whether it is met."""
    if not ratios:
        return
    worst = max(ratios, key=ratios.get)
    faster = sorted(n for n, r in ratios.items() if r <= 0.9 and not n.startswith("LKJCorr"))
    lkj = ratios.get("LKJCorr n=100")
    worst_compile = max(compiles, key=compiles.get)
    rows = [
        ("every model's call ratio (best) <= 1.02", f"max {ratios[worst]:.3f} ({worst})", ratios[worst] <= 1.02),
        ("geometric mean of call ratios <= 0.95", f"{_geomean(list(ratios.values())):.3f}",
         _geomean(list(ratios.values())) <= 0.95),
        ("LKJCorr n=100 <= 0.7", "not run" if lkj is None else f"{lkj:.3f}", lkj is not None and lkj <= 0.7),
        ("three further models <= 0.9", f"{len(faster)}: {', '.join(faster) or '-'}", len(faster) >= 3),
        ("compile ratio <= 1.03 on every model", f"max {compiles[worst_compile]:.3f} ({worst_compile})",
         compiles[worst_compile] <= 1.03),
    ]
    if rewrites:
        worst_rewrite = max(rewrites, key=rewrites.get)
        rows.append(("(its rewrites alone) <= 1.03 on every model",
                     f"max {rewrites[worst_rewrite]:.3f} ({worst_rewrite})", rewrites[worst_rewrite] <= 1.03))
    print()
    print("| target | this run | met |")
    print("|---|---|---|")
    for target, figure, met in rows:
        print(f"| {target} | {figure} | {'yes' if met else 'no'} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--compile-rounds", type=int, default=3, help="new graphs compiled per mode and model")
    parser.add_argument("--table", choices=("all", "normalize", "compiled"), default="all")
    parser.add_argument("--tag", choices=("relational", "relational_normalize", "relational_precision", "relational_stabilize"),
                        default="relational",
                        help="the tag the compiled table includes (relational_normalize: every rewrite applied)")
    parser.add_argument("models", nargs="*", help="model names (default: all)")
    args = parser.parse_args(argv)
    if pm is None:
        print("PyMC is not installed (pip install -e '.[bench]' on Python >= 3.12): no model table")
        return
    try:
        names = selected(args.models)
    except ValueError as err:
        parser.error(str(err))
    repeats = args.repeats
    if args.quick:
        names = names[:3] if not args.models else names
        repeats = min(repeats, 10)
    if args.table in ("all", "normalize"):
        normalize_table(names)
        print()
    if args.table in ("all", "compiled"):
        compiled_table(names, repeats, args.compile_rounds if not args.quick else 1, args.tag)


if __name__ == "__main__":
    main()
