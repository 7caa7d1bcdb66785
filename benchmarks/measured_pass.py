"""The measured stabilizing stage on the PyMC models: ``python benchmarks/measured_pass.py [model ...]``.

Needs PyMC (Python 3.12 line).  Per model of ``tests/pymc_models.py``: the
seconds of PyTensor's default-mode rewrites alone on a FunctionGraph of new
``[logp, dlogp]`` graphs, stock and with ``relational_measured`` included
(alternating, best of ``--rounds``), their ratio (target <= 1.05; the whole
pipeline's noise on a loaded machine is larger than that); the stage's own
seconds (its timer, ``MeasuredBudget.seconds_spent``, best of the rounds) and
``1 + stage / stock``, the same ratio without the pipeline's noise; the first
round with the stage and the stage's seconds in it (a cold compile: what the
per-region cache then saves; regions of models run before are cached); the
compiled call time ratio (best of interleaved rounds, target <= 1.0 within
noise); whether the values are equal (allclose at the initial point and at
``--points`` random points around it); and what the stage did on the last
graph (:class:`relations.compile.stabilize.MeasuredBudget`: regions passed by
the numpy screens, too large to measure, found in the cache, measured, given
to ``relations.stabilize``, replaced, skipped past the budget, read from the store).  The stage's store
on disk (``relations.compile.outcome_store``) starts empty unless ``--keep-store``: the first round is what
a new machine pays (``--keep-store`` run twice: what a second process pays).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's relations, not an installed one
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import pytensor  # noqa: E402
from models import interleaved  # noqa: E402
from pytensor.compile.mode import get_default_mode  # noqa: E402
from pytensor.graph.fg import FunctionGraph  # noqa: E402

import relations  # noqa: E402,F401  (registers the passes)
from pymc_models import MODELS, logp_dlogp, pm, point_values, selected  # noqa: E402
from relations.compile import stabilize as S  # noqa: E402
from relations.compile.outcome_store import OutcomeStore  # noqa: E402
from relations.compile.stabilize import MEASURED_NAME, register_measured  # noqa: E402


def rewrite_seconds(name: str, modes: tuple, rounds: int, stage: Any) -> tuple[list[list[float]], list[float]]:
    """Seconds of each mode's rewrites per round, and of the stage alone in the last mode's (its own timer)."""
    times: list[list[float]] = [[] for _ in modes]
    inside: list[float] = []
    for _ in range(rounds):
        for m, out in zip(modes, times, strict=True):
            inputs, outs = logp_dlogp(MODELS[name]())
            fgraph = FunctionGraph(inputs, outs, clone=True)
            stage.last = None
            t0 = time.perf_counter()
            m.optimizer(fgraph)
            out.append(time.perf_counter() - t0)
        inside.append(stage.last.seconds_spent if stage.last is not None else 0.0)
    return times, inside


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--keep-store", action="store_true",
                    help="read and write the stage's store in PyTensor's compile directory (default: a new, empty one)")
    ap.add_argument("models", nargs="*")
    args = ap.parse_args(argv)
    names = selected(args.models)
    if not args.keep_store:  # the first round's figures are a new machine's: nothing read from an earlier run
        S.STORE = OutcomeStore(tempfile.mkdtemp(prefix="measured_outcomes_"))
    base = get_default_mode()
    meas = base.including(MEASURED_NAME)
    stage = register_measured()
    print(f"pytensor {pytensor.__version__}, pymc {pm.__version__}; rewrites alone, best of {args.rounds} alternating")
    print("| model | stock rewrites (s) | with stage (s) | ratio | stage alone (s) | 1 + stage / stock "
          "| first with stage (s) | stage alone, first (s) | call ratio | values equal | stage (last graph) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        (stock_t, meas_t), inside = rewrite_seconds(name, (base, meas), args.rounds, stage)
        budget = stage.last
        model = MODELS[name]()
        inputs, outs = logp_dlogp(model)
        f_stock = pytensor.function(inputs, outs, mode=base)
        f_meas = pytensor.function(inputs, outs, mode=meas)
        rng = np.random.default_rng(0)
        point = point_values(model)
        equal = True
        for k in range(args.points + 1):
            at = point if k == 0 else [p + rng.normal(scale=0.5, size=np.shape(p)).astype(np.asarray(p).dtype)
                                       if np.asarray(p).dtype.kind == "f" else p for p in point]
            for a, b in zip(f_stock(*at), f_meas(*at), strict=True):
                equal &= bool(np.allclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True))
        ts, tm = interleaved(f_stock, f_meas, point, args.repeats)
        print(f"| {name} | {min(stock_t):.3f} | {min(meas_t):.3f} | {min(meas_t) / min(stock_t):.2f} "
              f"| {min(inside):.4f} | {1 + min(inside) / min(stock_t):.3f} | {meas_t[0]:.3f} | {inside[0]:.3f} "
              f"| {min(tm) / min(ts):.2f} | {'yes' if equal else 'NO'} | {budget} |", flush=True)


if __name__ == "__main__":
    main()
