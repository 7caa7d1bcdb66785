"""``saturate`` on PyMC model graphs, this checkout against another: ``python benchmarks/saturate_against.py --against DIR``.

For each model of ``tests/pymc_models.py`` given (default: five), the
default rules alone and with ``RULESETS["choices"]``, forward only and with
the backward steps (default ``Limits`` but no time bound): the best of
``--repeats`` runs per round, in a worker process per checkout, the two
checkouts' workers alternating for ``--rounds`` rounds (a shared machine's
noise hits both alike); then the best over the rounds, the ratio, and the
e-graph each saturation ended with (stop reason, classes / e-nodes), which
tells whether the two checkouts' rules give the same e-graph.  ``DIR`` is
another checkout (``git worktree add /tmp/base main``).

Needs PyMC (the ``bench`` extra, Python 3.12 line).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ["LKJCorr n=10", "hierarchical regression", "NormalMixture", "eight schools", "multinomial logit"]


def worker(names: list[str], repeats: int) -> None:
    """Print one JSON line per (model, rule set, backward): best seconds and the e-graph's figures."""
    warnings.filterwarnings("ignore")
    sys.path.insert(0, str(Path.cwd() / "tests"))
    from timing import call_seconds

    import relations
    from pymc_models import MODELS as BUILDERS
    from pymc_models import logp_dlogp

    sets = {
        "default": list(relations.DEFAULT_RULES),
        "default+choices": list(relations.DEFAULT_RULES) + list(relations.RULESETS["choices"]),
    }
    limits = relations.Limits(seconds=None)
    for name in names:
        graph = logp_dlogp(BUILDERS[name]())[1]
        for set_name, rules in sets.items():
            for backward in (False, True):
                def run(rules=rules, backward=backward):
                    return relations.saturate(graph, rules, backward=backward, limits=limits)

                seconds = min(call_seconds(run, repeats))
                r = run().report
                key = [name, set_name, backward]
                print(json.dumps({"key": key, "seconds": seconds, "egraph": f"{r.stop} {r.classes}/{r.nodes}"}))


def _run(checkout: Path, names: list[str], repeats: int) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(checkout) + os.pathsep + str(ROOT / "benchmarks"))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--repeats", str(repeats), *names]
    out = subprocess.run(cmd, cwd=checkout, env=env, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=MODELS)
    parser.add_argument("--against", type=Path, help="another checkout to time and compare")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.models, args.repeats)
        return
    if args.against is None:
        parser.error("--against DIR is required (another checkout)")
    best: dict[tuple, dict[str, float]] = {}
    egraphs: dict[tuple, dict[str, str]] = {}
    t0 = time.perf_counter()
    for _ in range(args.rounds):
        for label, checkout in (("this", ROOT), ("against", args.against.resolve())):
            for row in _run(checkout, args.models, args.repeats):
                key = tuple(row["key"])
                got = best.setdefault(key, {})
                got[label] = min(got.get(label, math.inf), row["seconds"])
                egraphs.setdefault(key, {})[label] = row["egraph"]
    print(f"{'model':24s} {'rules':16s} {'phase':9s} {'this ms':>8s} {'against':>8s} {'ratio':>6s}  e-graph (this | against)")
    for key, got in best.items():
        name, set_name, backward = key
        phase = "backward" if backward else "forward"
        ratio = got["this"] / got["against"]
        print(f"{name:24s} {set_name:16s} {phase:9s} {got['this'] * 1e3:8.1f} {got['against'] * 1e3:8.1f} {ratio:6.3f}"
              f"  {egraphs[key]['this']} | {egraphs[key]['against']}")
    for set_name in ("default", "default+choices"):
        for backward in (False, True):
            ratios = [g["this"] / g["against"] for k, g in best.items() if k[1] == set_name and k[2] == backward]
            geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            print(f"geometric mean, {set_name}, {'backward' if backward else 'forward'}: {geo:.3f}")
    print(f"({args.rounds} rounds, {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
