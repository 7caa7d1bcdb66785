"""Drawing e-graphs of PyMC models: ``python benchmarks/drawing.py [--quick] [MODEL ...]``.

Needs PyMC (``pip install -e '.[bench]'``, Python 3.12 line) and the ``draw``
extra (graphviz-pure).  For ``[model.logp(), model.dlogp()]`` of each model
of ``tests/pymc_models.py`` (default: all; ``--quick`` three of them),
saturated with the default rules and limits (``backward=True``, as
``relations.saturate`` does by default), one row: the graph's nodes; the
e-graph's classes and e-nodes; the seconds of ``egraph.extract()`` (the
form a drawing highlights by default; "exact" is HiGHS's integer program,
bounded by ``EXACT_SECONDS``), of ``egraph.draw(form=...)`` with that form
given, of ``.svg()`` (the ``dot`` layout), their sum (the drawing), each
best of 3 on the same e-graph, and of ``egraph.draw().svg()`` once (the
extraction included); the boxes drawn (the default folds to at most 60)
and the classes shown, folded and highlighted (the extracted form's classes
among those shown).  The target (issue 46): drawn in under 2 s, at most 60
boxes.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)

from graphs import count_nodes  # noqa: E402

import relations  # noqa: E402
from graph_bridge.dot import find_dot, render_svg  # noqa: E402
from pymc_models import MODELS, logp_dlogp, pm, selected  # noqa: E402  (tests/pymc_models.py)

QUICK = ["eight schools", "NormalMixture", "MvStudentT batched means"]
SVG = "{http://www.w3.org/2000/svg}"


def _svg_counts(svg: str) -> tuple[int, int, int]:
    """``(clusters, boxes, highlighted boxes)`` read back from the SVG."""
    root = ET.fromstring(svg)
    groups = [g.get("class", "").split() for g in root.iter(f"{SVG}g")]
    return (
        sum("cluster" in c for c in groups),
        sum("node" in c for c in groups),
        sum("node" in c and "chosen" in c for c in groups),
    )


def _best(fn: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _row(name: str, rounds: int = 3) -> None:
    outs = logp_dlogp(MODELS[name]())[1]
    egraph = relations.saturate(outs)
    classes, nodes = egraph.size
    te, extraction = _best(egraph.extract, rounds)
    td, drawing = _best(lambda: egraph.draw(form=extraction.result), rounds)
    tr, svg = _best(lambda: render_svg(drawing.dot()), rounds)
    tt, _ = _best(lambda: egraph.draw().svg(), 1)
    clusters, boxes, chosen = _svg_counts(svg)
    print(
        f"| {name} | {count_nodes(outs)} | {classes} | {nodes} | {te * 1e3:.0f} ({extraction.method}) "
        f"| {td * 1e3:.0f} | {tr * 1e3:.0f} | {(td + tr) * 1e3:.0f} | {tt * 1e3:.0f} | {boxes} | {clusters} "
        f"| {drawing.notes or 'nothing folded'} | {chosen} |",
        flush=True,
    )


HEADER = (
    "| model | nodes | classes | e-nodes | extract (ms) | draw, form given (ms) | svg (ms) | drawn (ms) "
    "| draw().svg() (ms) | boxes | classes shown | folded | chosen boxes |\n|" + "---|" * 13
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="models of tests/pymc_models.py (default: all)")
    parser.add_argument("--quick", action="store_true", help=f"only {QUICK}")
    args = parser.parse_args(argv)
    names = QUICK if args.quick else selected(args.models)
    print(f"pymc {pm.__version__}; logp+dlogp; saturate with the default rules and limits "
          f"{relations.Limits()}; dot: {find_dot()}; best of 3")
    print(HEADER)
    for name in names:
        _row(name)


if __name__ == "__main__":
    main()
