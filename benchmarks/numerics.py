"""The numerics corpus compiled with PyTensor's default mode (FAST_RUN) and with ``relations.mode()``.

``python benchmarks/numerics.py`` prints, for each spelling of
``tests/numerics_corpus.py`` (a stable target written as a user would,
evaluated at extreme inputs against mpmath at 50 digits), whether each
mode's compiled function is accurate and its largest relative error;
then the counts per target and in all, and the issue's targets with this
run's figures.  ``--target NAME`` keeps one target's spellings.
``--heldout`` runs the held-out spellings of ``tests/numerics_heldout.py``
instead (kept aside from the rule writers: the figures say how far the
rules carry to spellings nobody tuned them on); ``--unseen`` the second
held-out set, ``tests/numerics_unseen.py``; ``--blind`` the third,
``tests/numerics_blind.py``; ``--fresh`` the fourth, ``tests/numerics_fresh.py``;
``--aside`` the fifth, ``tests/numerics_aside.py`` (``--target`` then takes
the chosen set's targets).

``--stabilize`` adds, for each spelling ``relations.mode()`` leaves
inaccurate, whether the numerics theory holds a stable form of it:
``relations.stabilize(graph)`` (the theory, extraction by measured error,
Herbie's regimes; its default limits) compiled with ``relations.mode()`` and
measured at the same extreme inputs; the summary splits the spellings still
inaccurate into those (a form the compile mode does not reach) and the
others (no form in the theory, or none found within the limits).

``--measured`` adds, for each spelling, whether the mode with the measured stage
(``relations.mode("relational", "relational_stabilize",
"relational_measured")``: the theory run at compile time on the regions its
screens flag) compiles it accurate, and the compile's seconds (the stage's
cache is per process: a spelling sharing a region's structure with one
before it is cheap), with the count it repairs and the spellings it makes
inaccurate; ``--accurate`` compiles with ``relations.ACCURATE_TAGS`` instead
(the precision pass too).

``--models`` (PyMC, Python 3.12 line) prints instead, for the logp + dlogp
of each model of ``tests/pymc_models.py``: the regions the stabilizing
pass saturates and the roots it replaces, the seconds of the two passes
``relations.mode()`` adds to PyTensor's numeric rewrites (stabilizing and
precision; best of ``--rounds`` new graphs) and PyTensor's rewrites of the same graph in the
default mode without the pass (best of the rounds), and their ratio
``(rewrites + pass) / rewrites``: the pass's share of the rewrites,
measured apart so the machine's noise on the whole pipeline does not hide
it (``benchmarks/models.py --tag relational_stabilize`` gives the
end-to-end ratios).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# this checkout's packages and test helpers, not whatever checkout the editable install points at
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import relations  # noqa: E402
from numerics_corpus import CORPUS, HELD_OUT_SETS, TARGETS, held_out_set, measure  # noqa: E402
from numerics_heldout import HELDOUT  # noqa: E402
from relations.saturation.engine.runner import Limits as RunnerLimits  # noqa: E402

#: Every target of the corpus and of the held-out spellings, in order.
ALL_TARGETS: tuple[str, ...] = tuple(dict.fromkeys([*TARGETS, *(s.target for s in HELDOUT)]))


def _err(e: float) -> str:
    return "inf" if e == float("inf") else f"{e:.1e}"


def run(spellings: list) -> dict[str, tuple[tuple[bool, float], tuple[bool, float]]]:
    mode = relations.mode()
    print("| spelling | target | dtype | FAST_RUN ok | max rel err | relations.mode() ok | max rel err |")
    print("|---|---|---|---|---|---|---|")
    results = {}
    for s in spellings:
        stock, ours = measure(s), measure(s, mode)
        results[s.name] = (stock, ours)
        print(f"| `{s.name}` | {s.target} | {s.dtype} | {'yes' if stock[0] else 'no'} | {_err(stock[1])} "
              f"| {'yes' if ours[0] else 'no'} | {_err(ours[1])} |")
    return results


def summary(spellings: list, results: dict) -> None:
    print()
    print("| target | spellings | FAST_RUN inaccurate | relations.mode() inaccurate |")
    print("|---|---|---|---|")
    met_all = True
    for target in dict.fromkeys(s.target for s in spellings):
        names = [s.name for s in spellings if s.target == target]
        stock_bad = sum(not results[n][0][0] for n in names)
        ours_bad = sum(not results[n][1][0] for n in names)
        if 3 * stock_bad >= len(names) and ours_bad:
            met_all = False
        print(f"| {target} | {len(names)} | {stock_bad} | {ours_bad} |")
    total_stock = sum(not a[0] for a, _ in results.values())
    total_ours = sum(not b[0] for _, b in results.values())
    worse = [n for n, (a, b) in results.items() if a[0] and not b[0]]
    print(f"| all | {len(results)} | {total_stock} | {total_ours} |")
    print()
    print("| target | this run | met |")
    print("|---|---|---|")
    print(f"| no spelling inaccurate on a target FAST_RUN gets wrong a third of the time or more | "
          f"{'none' if met_all else 'some'} | {'yes' if met_all else 'no'} |")
    print(f"| no spelling FAST_RUN gets right made worse | {len(worse)} made worse {worse or ''} | "
          f"{'yes' if not worse else 'no'} |")
    still = [n for n, (_, b) in results.items() if not b[0]]
    print()
    print("still inaccurate with relations.mode():", ", ".join(f"`{n}`" for n in still) or "none")


#: ``--measured``'s mode: the defaults and the measured stage (``--accurate``: ``relations.ACCURATE_TAGS``, the
#: same tags since the precision pass is a default one).
MEASURED_TAGS: tuple[str, ...] = ("relational", "relational_precision", "relational_stabilize", "relational_measured")


#: ``--stabilize``'s bounds: stabilize's default e-nodes and iterations, no seconds (the measured stage's bounds).
THEORY_LIMITS = RunnerLimits(nodes=3_000, iterations=8, seconds=None)


def theory_table(spellings: list, only: list[str] | None = None) -> None:
    """Per spelling: whether the form ``relations.stabilize`` finds, compiled with ``relations.mode()``, is accurate
    at the spelling's extreme inputs (and stabilize's seconds, and the kinds of its report).

    stabilize runs within :data:`THEORY_LIMITS`, e-nodes and iterations without seconds, so the table does not
    depend on the machine's load (its default 1 s bound stops many of these graphs at a load of 2)."""
    import time

    import numpy as np
    import pytensor
    from numerics_bits import sample

    from numerics_corpus import accuracy

    mode = relations.mode()
    print()
    names = set(only or ())
    spellings = [s for s in spellings if not names or s.name in names]
    print("| spelling | target | stabilize() accurate | max rel err | seconds | stabilize's report |")
    print("|---|---|---|---|---|---|")
    found, none = [], []
    for s in spellings:
        ins, out = s.graph()
        t0 = time.perf_counter()
        try:
            try:
                st = relations.stabilize(out, limits=THEORY_LIMITS)
            except (ValueError, IndexError):  # its own sample's shapes do not fit the graph: given, as a user would
                own = sample(s, ins, out, 64, seed=0)
                st = relations.stabilize(out, points=dict(zip(own.inputs, own.values, strict=True)),
                                         limits=THEORY_LIMITS)
            fn = pytensor.function(ins, st.graph, mode=mode)
            with np.errstate(all="ignore"):
                ok, err = accuracy(fn(*s.values), s)
            what = str(st).splitlines()[0]
        except ValueError as e:  # an input stabilize cannot sample (an integer input)
            ok, err, what = False, float("inf"), f"refused: {e}"
        seconds = time.perf_counter() - t0
        (found if ok else none).append(s.name)
        print(f"| `{s.name}` | {s.target} | {'yes' if ok else 'no'} | {_err(err)} | {seconds:.1f} | {what} |",
              flush=True)
    print()
    print(f"the theory holds an accurate form (stabilize finds it): {len(found)} of {len(spellings)}:",
          ", ".join(f"`{n}`" for n in found) or "none")
    print(f"no accurate form found by stabilize: {len(none)}:", ", ".join(f"`{n}`" for n in none) or "none")


def measured_table(spellings: list, results: dict, tags: tuple[str, ...] = MEASURED_TAGS) -> None:
    """Per spelling: whether the mode with the measured stage (``relational_measured``; ``tags``) compiles it
    accurate at its extreme inputs, its largest relative error, and the compile's seconds; then how many of
    those ``relations.mode()`` leaves inaccurate it repairs, and which it gets right makes inaccurate."""
    import time

    mode = relations.mode(*tags)
    print()
    print(f"relations.mode{tags}")
    print()
    print("| spelling | target | relations.mode() ok | with relational_measured | max rel err | compile seconds |")
    print("|---|---|---|---|---|---|")
    repaired, worse = [], []
    for s in spellings:
        t0 = time.perf_counter()
        ok, err = measure(s, mode)
        before = results[s.name][1][0]
        if ok and not before:
            repaired.append(s.name)
        if before and not ok:
            worse.append(s.name)
        print(f"| `{s.name}` | {s.target} | {'yes' if before else 'no'} | {'yes' if ok else 'no'} | {_err(err)} "
              f"| {time.perf_counter() - t0:.1f} |", flush=True)
    bad = sum(not results[s.name][1][0] for s in spellings)
    print()
    print(f"the measured stage compiles {len(repaired)} of the {bad} relations.mode() leaves inaccurate accurate:",
          ", ".join(f"`{n}`" for n in repaired) or "none")
    print(f"made inaccurate by the measured stage: {len(worse)}", ", ".join(f"`{n}`" for n in worse))


def _pass_clock() -> list:
    """Time the stabilizing pass's and the precision pass's ``apply``: each call appends ``(regions,
    cancellation roots, seconds)`` (both counted outside the clock; 0 for the precision pass)."""
    import time

    from pytensor.compile import optdb

    from relations.compile import stabilize
    from relations.compile.precision import NAME as PRECISION

    calls: list = []
    plain = stabilize.StabilizingRewriter.apply

    def timed(self, fgraph):
        roots = stabilize.region_roots(fgraph.outputs)
        tier = len(stabilize.cancellation_roots(fgraph.outputs, roots))
        t0 = time.perf_counter()
        try:
            return plain(self, fgraph)
        finally:
            calls.append((len(roots), tier, time.perf_counter() - t0))

    setattr(stabilize.StabilizingRewriter, "apply", timed)  # a method replaced for the clock
    precision = next(iter(optdb.__db__[PRECISION]))
    precise = precision.apply

    def timed_precision(fgraph):
        t0 = time.perf_counter()
        try:
            return precise(fgraph)
        finally:
            calls.append((0, 0, time.perf_counter() - t0))

    setattr(precision, "apply", timed_precision)  # the registered instance's method, for the clock
    return calls


def models_table(rounds: int) -> None:
    import time

    from pytensor.compile.aliasing import add_supervisor_to_fgraph
    from pytensor.compile.io import In
    from pytensor.compile.mode import get_default_mode
    from pytensor.graph.fg import FunctionGraph

    from pymc_models import MODELS, logp_dlogp
    from relations.compile.precision import NAME as PRECISION
    from relations.compile.stabilize import NAME

    calls = _pass_clock()
    base = get_default_mode()
    print("| model | regions | cancellation roots | pass (ms) | rewrites without (ms) | (rewrites + pass) / rewrites |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for name in MODELS:
        stock: list[float] = []
        own: list[float] = []
        regions = tier = 0
        for _ in range(rounds):
            for mode, out in ((base, stock), (base.including(PRECISION, NAME), own)):
                inputs, outs = logp_dlogp(MODELS[name]())
                fgraph = FunctionGraph(inputs, outs, clone=True)
                add_supervisor_to_fgraph(fgraph, [In(i) for i in fgraph.inputs])  # as pytensor.function does
                calls.clear()
                t0 = time.perf_counter()
                mode.optimizer(fgraph)
                if out is stock:
                    out.append(time.perf_counter() - t0)
                else:
                    out.append(sum(c[2] for c in calls))
                    regions, tier = sum(c[0] for c in calls), sum(c[1] for c in calls)
        ratio = (min(stock) + min(own)) / min(stock)
        worst = max(worst, ratio)
        print(f"| {name} | {regions} | {tier} | {min(own) * 1e3:.1f} | {min(stock) * 1e3:.0f} | {ratio:.3f} |")
    print()
    print(f"| the pass's share of the rewrites <= 1.05 on every model | max {worst:.3f} | {'yes' if worst <= 1.05 else 'no'} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    # (the unseen, blind, fresh and aside spellings' targets are checked once they are read: --help does not name
    # them)
    parser.add_argument("--target", help=f"only this target's spellings (one of {', '.join(ALL_TARGETS)}; with "
                        "--unseen, --blind, --fresh or --aside, one of that set's targets)")
    parser.add_argument("--heldout", action="store_true", help="the held-out spellings instead of the corpus")
    parser.add_argument("--unseen", action="store_true",
                        help="the unseen spellings (tests/numerics_unseen.py, a second held-out set) instead")
    parser.add_argument("--blind", action="store_true",
                        help="the blind spellings (tests/numerics_blind.py, a third held-out set) instead")
    parser.add_argument("--fresh", action="store_true",
                        help="the fresh spellings (tests/numerics_fresh.py, a fourth held-out set) instead")
    parser.add_argument("--aside", action="store_true",
                        help="the aside spellings (tests/numerics_aside.py, a fifth held-out set) instead")
    parser.add_argument("--models", action="store_true", help="the pass's time on the PyMC models instead")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--measured", action="store_true",
                        help="also the mode with the measured stage on each spelling")
    parser.add_argument("--accurate", action="store_true",
                        help="--measured with relations.ACCURATE_TAGS (the precision pass too)")
    parser.add_argument("--stabilize", action="store_true",
                        help="also relations.stabilize() on each spelling relations.mode() leaves inaccurate")
    parser.add_argument("--name", action="append", default=None,
                        help="with --stabilize: only the spellings of this name (repeatable)")
    args = parser.parse_args(argv)
    if args.models:
        models_table(args.rounds)
        return
    if args.heldout + args.unseen + args.blind + args.fresh + args.aside > 1:
        parser.error("--heldout, --unseen, --blind, --fresh and --aside are five sets: one at a time")
    chosen = [flag for flag in HELD_OUT_SETS if getattr(args, flag)]
    source = held_out_set(chosen[0]) if chosen else CORPUS
    own_targets = args.unseen or args.blind or args.fresh or args.aside
    targets = {s.target for s in source} if own_targets else set(ALL_TARGETS)
    if args.target is not None and args.target not in targets:
        parser.error(f"--target {args.target!r}: no such target among the spellings chosen")
    spellings = [s for s in source if (args.target is None or s.target == args.target)
                 and (args.name is None or s.name in args.name)]
    results = run(spellings)
    summary(spellings, results)
    if args.measured:
        measured_table(spellings, results, relations.ACCURATE_TAGS if args.accurate else MEASURED_TAGS)
    if args.stabilize:
        theory_table([s for s in spellings if not results[s.name][1][0]], args.name)


if __name__ == "__main__":
    main()
