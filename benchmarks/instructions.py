"""Instructions per ``normalize`` of a PyMC model's logp + dlogp, counted by callgrind: ``python benchmarks/instructions.py``.

``--algebra N K`` counts instead issue 42's algebra benchmark (``benchmarks/egglog_algebra.py``):
``K`` iterations on ``poly(N)`` by the query engine and by egglog-python, each run once after a
warm-up run, and prints both and their ratio.

Wall clock on a shared machine swings by 15% and more; instruction counts
do not.  The script runs itself under ``valgrind --tool=callgrind`` with
collection off, normalizes the model's graph twice to warm the caches, then
normalizes ``--repeats`` new graphs between two callgrind client requests
(a four-line C helper it compiles with ``cc``), so imports and graph building
are not counted.  ``--against DIR`` counts the same on another checkout
(``git worktree add /tmp/base main``) and prints the ratio, in one run.

Needs valgrind, its headers (``valgrind/callgrind.h``), a C compiler and
PyMC (the ``bench`` extra, Python 3.12 line).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import re
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELPER = """#include <valgrind/callgrind.h>
void cg_on(void) { CALLGRIND_ZERO_STATS; CALLGRIND_TOGGLE_COLLECT; }
void cg_off(void) { CALLGRIND_TOGGLE_COLLECT; CALLGRIND_DUMP_STATS_AT("measured"); }
"""


def _helper(tmp: Path) -> Path:
    src, lib = tmp / "region.c", tmp / "libregion.so"
    src.write_text(HELPER)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return lib


def _worker(model: str, repeats: int, lib: str) -> None:
    """Runs under callgrind: the measured region is ``repeats`` normalizes."""
    warnings.filterwarnings("ignore")
    sys.path.insert(0, str(ROOT / "tests"))
    import relations
    from pymc_models import MODELS, logp_dlogp

    for _ in range(2):
        relations.normalize(logp_dlogp(MODELS[model]())[1])
    graphs = [logp_dlogp(MODELS[model]())[1] for _ in range(repeats)]
    gc.collect()
    region = ctypes.CDLL(lib)
    region.cg_on()
    for g in graphs:
        relations.normalize(g)
    region.cg_off()


def _algebra_worker(engine: str, n: int, k: int, lib: str) -> None:
    """Runs under callgrind: the measured region is ``k`` iterations of ``engine`` on ``poly(n)``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from egglog_algebra import egglog_iterations, engine_iterations

    run = (lambda: engine_iterations(n, k)) if engine == "ours" else (lambda: egglog_iterations(n, k))
    run()
    gc.collect()
    region = ctypes.CDLL(lib)
    region.cg_on()
    run()
    region.cg_off()


def count(checkout: Path, model: str, repeats: int, tmp: Path, lib: Path, extra: Sequence[str] = ()) -> float:
    """Instructions per normalize of ``model`` with the packages of ``checkout`` (``extra``: worker
    arguments, ``--algebra N K --engine E`` for one algebra run)."""
    out = tmp / f"cg.{abs(hash((str(checkout), *extra)))}.out"
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cmd = [
        "valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}",
        sys.executable, str(Path(__file__).resolve()), "--worker", "--model", model,
        "--repeats", str(repeats), "--lib", str(lib), *extra,
    ]
    subprocess.run(cmd, cwd=checkout, env=env, check=True, capture_output=True)
    dumps = sorted(tmp.glob(out.name + "*"))
    totals = [int(m.group(1)) for d in dumps for m in re.finditer(r"^totals: (\d+)", d.read_text(), re.M)]
    if not totals:
        raise RuntimeError(f"callgrind wrote no measured region for {checkout}")
    return max(totals) / repeats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="NormalMixture", help="a model of tests/pymc_models.py")
    parser.add_argument("--repeats", type=int, default=4, help="normalizes counted")
    parser.add_argument("--against", type=Path, help="another checkout to count and compare")
    parser.add_argument("--algebra", type=int, nargs=2, metavar=("N", "K"),
                        help="count K iterations on poly(N) of the algebra benchmark, ours and egglog's")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--engine", help=argparse.SUPPRESS)
    parser.add_argument("--lib", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        if args.algebra:
            _algebra_worker(args.engine, *args.algebra, args.lib)
        else:
            _worker(args.model, args.repeats, args.lib)
        return
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        lib = _helper(tmp)
        if args.algebra:
            n, k = args.algebra
            extra = ["--algebra", str(n), str(k)]
            ours = count(ROOT, args.model, 1, tmp, lib, [*extra, "--engine", "ours"])
            theirs = count(ROOT, args.model, 1, tmp, lib, [*extra, "--engine", "egglog"])
            print(f"poly({n}), {k} iterations: ours {ours:,.0f} instructions, egglog {theirs:,.0f}, "
                  f"ratio {ours / theirs:.2f}")
            return
        here = count(ROOT, args.model, args.repeats, tmp, lib)
        print(f"{'checkout':<40} {'instructions / normalize':>26}")
        print(f"{str(ROOT):<40} {here:>26,.0f}")
        if args.against is not None:
            there = count(args.against.resolve(), args.model, args.repeats, tmp, lib)
            print(f"{str(args.against):<40} {there:>26,.0f}")
            print(f"{'ratio (this / against)':<40} {here / there:>26.4f}")


if __name__ == "__main__":
    main()
