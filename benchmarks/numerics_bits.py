"""Bits of error, as Herbie reports them, on the numerics corpus: as written, FAST_RUN, relations.mode(), stabilize.

For each spelling of ``tests/numerics_corpus.py`` (``--heldout``: ``tests/numerics_heldout.py``; ``--unseen``:
``tests/numerics_unseen.py``, the second held-out set; ``--blind``: ``tests/numerics_blind.py``, the third;
``--fresh``: ``tests/numerics_fresh.py``, the fourth; ``--aside``: ``tests/numerics_aside.py``, the fifth;
``--fpbench``: the FPBench and Herbie expressions of ``tests/numerics_fpbench.py``, each sampled inside
its FPCore's ``:pre`` as Herbie samples: bit-pattern uniform in the ranges it bounds, the points where the
whole ``:pre`` holds; ``relations.stabilize`` is given 64 such points, seed 0, as ``points=``, where the
FPCore has a ``:pre``), inputs are sampled as Herbie samples (uniform over the bit patterns of the dtype's finite
floats, points kept where the exact value is a real number; :func:`relations.saturation.accuracy.sample_points`,
``--points`` of them, seed 1: not the seed ``relations.stabilize`` chose its forms on; a spelling that
is not elementwise has its inputs drawn at its own inputs' shapes, for which it was written), and the
mean and maximum bits of error of the output against its exact value (mpmath, precision raised
until the cancelled digits are covered) are printed for:

- the spelling **as written**, evaluated Op by Op without any rewrite;
- PyTensor's default mode (**FAST_RUN**, with its own stabilizers);
- **relations.mode()** (FAST_RUN with the toolkit's stabilizing pass);
- **relations.stabilize(graph)** (the numerics theory, extraction by measured error), evaluated as written
  (a graph its own sample's shapes do not fit is given 64 points drawn at the spelling's shapes, seed 0,
  as ``points=``; the summary names those spellings).

Then the averages over the corpus, and how many spellings each leaves above 2 bits of mean error.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

import numpy as np  # noqa: E402

import relations  # noqa: E402
from graph_bridge.float_error import sample_floats  # noqa: E402
from numerics_corpus import CORPUS, HELD_OUT_SETS, held_out_set  # noqa: E402
from relations.saturation.accuracy import Points, graph_error, sample_points  # noqa: E402

#: Mean bits of error above which a spelling counts as inaccurate in the summary.
INACCURATE_BITS = 2.0


def _fmt(b: tuple[float, float]) -> str:
    return f"{b[0]:.1f} / {b[1]:.0f}"


def _elementwise(out) -> bool:
    from pytensor.graph.traversal import toposort
    from pytensor.tensor.elemwise import DimShuffle, Elemwise

    return all(isinstance(a.op, Elemwise | DimShuffle) for a in toposort([out]))


def sample(spelling, ins, out, n: int, seed: int):
    """``n`` points as Herbie samples them: an elementwise spelling's entries are points of their own
    (:func:`sample_points`' default); any other spelling's inputs are drawn at its own inputs' shapes,
    for which its graph was written (``x[:, 2]``, ``reshape((2, 1))``, ``dot(exp(x), ones((3, 1)))``)."""
    if _elementwise(out):
        return sample_points([out], n, seed=seed)
    rng = np.random.default_rng(seed)

    def draw() -> dict:
        return {v: sample_floats(v.type.dtype, (n, *np.shape(x)), rng) for v, x in zip(ins, spelling.values, strict=True)}

    return _drawn_points(ins, out, n, draw)


def _drawn_points(ins, out, n: int, draw) -> Points:
    """``n`` points where the exact value is real, from inputs ``draw()`` gives (a dict, or ``None`` when it found
    none), ``n`` at a time, 16 times at most, as :func:`sample_points` draws."""
    kept: list[list[np.ndarray]] = [[] for _ in ins]
    count = drawn = 0
    for _ in range(16):
        given = draw()
        if given is None:
            continue
        got = sample_points([out], n, given=given)
        by_input = dict(zip(got.inputs, got.values, strict=True))
        for k, v in enumerate(ins):
            kept[k].append(by_input[v])
        count, drawn = count + got.n, drawn + got.drawn
        if count >= n:
            break
    if not kept[0]:  # no draw gave a point
        return Points(tuple(ins), tuple(np.empty((0, 1), dtype=v.type.dtype) for v in ins), 0, drawn)
    return Points(tuple(ins), tuple(np.concatenate(k)[:n] for k in kept), min(count, n), drawn)


def sample_pre(spelling, ins, out, n: int, seed: int) -> Points:
    """``n`` points inside an FPCore's ``:pre`` (:meth:`numerics_fpbench.Benchmark.sample`) where the exact value
    is real, drawn ``n`` at a time, 16 times at most, as :func:`sample_points` draws."""
    rng = np.random.default_rng(seed)

    def draw() -> dict | None:
        cols = spelling.sample(n, rng)
        return {v: c[:, None] for v, c in zip(ins, cols, strict=True)} if len(cols[0]) else None

    return _drawn_points(ins, out, n, draw)


def _has_pre(spelling) -> bool:
    return hasattr(spelling, "ranges") and spelling.core().prop(":pre") is not None


def measure(spelling, points: int, modes: dict, limits=None) -> dict:
    """The row of one spelling: its points and the bits of error of each column (``limits``: stabilize's)."""
    ins, out = spelling.graph()
    pre = _has_pre(spelling)
    draw = sample_pre if pre else sample
    pts = draw(spelling, ins, out, points, seed=1)
    row: dict = {"points": pts.n}
    if pts.n == 0:
        return row
    for name, mode in modes.items():
        [row[name]] = graph_error([out], pts, mode)
    t = time.perf_counter()
    if pre:  # stabilize is given points inside the :pre
        own = sample_pre(spelling, ins, out, 64, seed=0)
        r = relations.stabilize(out, points=dict(zip(own.inputs, own.values, strict=True)), limits=limits)
    else:
        try:
            r = relations.stabilize(out, limits=limits)
        except (ValueError, IndexError):  # its own sample's shapes do not fit the graph: given, as a user would
            own = sample(spelling, ins, out, 64, seed=0)
            r = relations.stabilize(out, points=dict(zip(own.inputs, own.values, strict=True)), limits=limits)
            row["given points"] = True
    row["stabilize s"] = time.perf_counter() - t
    [row["stabilize"]] = graph_error(r.outputs, pts)
    row["changed"], row["report"] = r.changed, str(r)
    return row


def _chosen_set(args: argparse.Namespace) -> list[Any]:
    """The spellings of the set the flags choose: the corpus, or one held-out set, or the FPBench expressions."""
    if args.fpbench:
        from numerics_fpbench import FPBENCH

        return FPBENCH
    chosen = [flag for flag in HELD_OUT_SETS if getattr(args, flag)]
    return held_out_set(chosen[0]) if chosen else CORPUS


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=64)
    ap.add_argument("--heldout", action="store_true", help="the held-out corpus (tests/numerics_heldout.py)")
    ap.add_argument("--unseen", action="store_true",
                    help="the unseen spellings (tests/numerics_unseen.py, a second held-out set)")
    ap.add_argument("--blind", action="store_true",
                    help="the blind spellings (tests/numerics_blind.py, a third held-out set)")
    ap.add_argument("--fresh", action="store_true",
                    help="the fresh spellings (tests/numerics_fresh.py, a fourth held-out set)")
    ap.add_argument("--aside", action="store_true",
                    help="the aside spellings (tests/numerics_aside.py, a fifth held-out set)")
    ap.add_argument("--fpbench", action="store_true",
                    help="the FPBench and Herbie expressions (tests/numerics_fpbench.py), sampled inside their :pre")
    ap.add_argument("--reports", action="store_true",
                    help="print stabilize's report of each spelling still above the mean bits threshold")
    ap.add_argument("--reports-file", default=None,
                    help="append stabilize's report of every spelling to this file as it is measured")
    ap.add_argument("--limits", default=None, metavar="NODES,ITERATIONS,SECONDS",
                    help="stabilize's saturation limits (default: its own, relations.saturation.stabilizing.LIMITS)")
    ap.add_argument("--start", type=int, default=0, help="skip the first START spellings (to split a run)")
    ap.add_argument("--name", action="append", default=None, help="only the spellings of this name (repeatable)")
    ap.add_argument("--target", default=None)
    ap.add_argument("--limit", type=int, default=None, help="the first N spellings only")
    args = ap.parse_args()
    if args.heldout + args.unseen + args.blind + args.fresh + args.aside > 1:
        ap.error("--heldout, --unseen, --blind, --fresh and --aside are five sets: one at a time")
    spellings = [s for s in _chosen_set(args) if args.target in (None, s.target) and args.name in (None, [])
                 or args.name and s.name in args.name][args.start :][: args.limit]
    limits = None
    if args.limits:
        from relations.saturation.egraph import Limits

        nodes, iterations, seconds = args.limits.split(",")
        limits = Limits(nodes=int(nodes), iterations=int(iterations), seconds=float(seconds))
    modes = {"as written": None, "FAST_RUN": "FAST_RUN", "relations.mode()": relations.mode()}
    cols = [*modes, "stabilize"]
    print("| spelling | target | dtype | points | " + " | ".join(f"{c} (mean / max bits)" for c in cols)
          + " | stabilize s |")
    print("|---|---|---|---|" + "---|" * len(cols) + "---|")
    rows = {}
    for s in spellings:
        try:
            row = measure(s, args.points, modes, limits)
        except Exception as exc:  # noqa: BLE001 - a spelling the tools refuse is reported, not hidden
            print(f"| `{s.name}` | {s.target} | {s.dtype} | error: {type(exc).__name__}: {exc} |")
            continue
        rows[s.name] = row
        if args.reports_file and "report" in row:
            with open(args.reports_file, "a") as fh:
                fh.write(f"### {s.name}: {row['stabilize'][0]:.1f} mean bits after stabilize\n{row['report']}\n\n")
        if row["points"] == 0:
            why = "no point inside its :pre found (bit-pattern draws in its ranges)" if _has_pre(s) else \
                "no sampled point is real"
            print(f"| `{s.name}` | {s.target} | {s.dtype} | 0 | {why} |")
            continue
        print(f"| `{s.name}` | {s.target} | {s.dtype} | {row['points']} | "
              + " | ".join(_fmt(row[c]) for c in cols) + f" | {row['stabilize s']:.2f} |", flush=True)
    done = [r for r in rows.values() if r["points"]]
    print()
    print("| measure | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    print("| mean bits (average over spellings) | " + " | ".join(f"{np.mean([r[c][0] for r in done]):.2f}" for c in cols)
          + " |")
    print("| max bits (average over spellings) | " + " | ".join(f"{np.mean([r[c][1] for r in done]):.1f}" for c in cols)
          + " |")
    print(f"| spellings above {INACCURATE_BITS} mean bits | "
          + " | ".join(str(sum(r[c][0] > INACCURATE_BITS for r in done)) for c in cols) + " |")
    targets = sorted({s.target for s in spellings if rows.get(s.name, {}).get("points")})
    if len(targets) > 1:
        print("\n| target | spellings | " + " | ".join(f"{c} mean bits (above {INACCURATE_BITS})" for c in cols) + " |")
        print("|---|---|" + "---|" * len(cols))
        for t in targets:
            sel = [rows[s.name] for s in spellings if s.target == t and rows.get(s.name, {}).get("points")]
            print(f"| {t} | {len(sel)} | " + " | ".join(
                f"{np.mean([r[c][0] for r in sel]):.2f} ({sum(r[c][0] > INACCURATE_BITS for r in sel)})" for c in cols)
                + " |")
    worse = [n for n, r in rows.items() if r["points"] and r["stabilize"][0] > r["as written"][0] + 0.05]
    print(f"\nspellings stabilize made worse (mean bits, as written): {worse or 'none'} of {len(done)}")
    worse = [n for n, r in rows.items() if r["points"] and r["relations.mode()"][0] > r["FAST_RUN"][0] + 0.05]
    print(f"spellings relations.mode() made worse (mean bits, FAST_RUN): {worse or 'none'} of {len(done)}")
    given = [n for n, r in rows.items() if r.get("given points")]
    print(f"stabilize given points at the spelling's shapes: {given or 'none'}")
    if args.reports:
        for n, r in rows.items():
            if r["points"] and r["stabilize"][0] > INACCURATE_BITS:
                print(f"\n### {n}: {r['stabilize'][0]:.1f} mean bits after stabilize\n{r['report']}")
    print(f"stabilize seconds: median {np.median([r['stabilize s'] for r in done]):.2f}, "
          f"max {max(r['stabilize s'] for r in done):.2f}")


if __name__ == "__main__":
    main()
