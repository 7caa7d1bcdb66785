"""PyTensor's rewriters in the e-graph (``rewriters=``) on PyMC model graphs: ``python benchmarks/foreign_rewriters.py``.

Needs PyMC (Python 3.12 line).  For ``[model.logp(), model.dlogp()]`` of
each model of ``tests/pymc_models.py`` (``--models`` to pick some):

- nodes of the graph; PyTensor's own ``canonicalize`` + ``stabilize``
  (``rewrite_graph`` on a clone), seconds;
- ``saturate(graph, backward=False)`` with the default rules alone, then
  with the stabilizing rewrites of ``"stabilize"`` only (:data:`STABILIZING`),
  with ``rewriters=("stabilize",)`` and with ``("stabilize",
  "specialize")``, each on a new graph, limits ``Limits(seconds=30)`` (so
  the figure is the cost of saturating, not of a bound): seconds, the ratio
  to PyTensor's ``canonicalize`` + ``stabilize``, the stop reason, e-nodes,
  the rewriters' ``transform`` calls, the microseconds per call, the share
  of the run spent inside ``transform``, their unions and errors.

The e-graph runs every rewriter tracking an e-node's Op on each of its
choices of input e-nodes (up to ``MAX_CHOICES``, ``MATCH_DEPTH`` levels),
so its work is (e-nodes) x (choices per e-node) x (rewriters per Op); the
table gives each factor.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
warnings.filterwarnings("ignore")

from pytensor.graph.rewriting.utils import rewrite_graph  # noqa: E402
from pytensor.graph.traversal import io_toposort  # noqa: E402

import relations  # noqa: E402
from pymc_models import MODELS, logp_dlogp, pm, selected  # noqa: E402

#: the stabilizing rewrites of ``"stabilize"`` (softplus, log1p, expm1, logsumexp/logaddexp, softmax,
#: sigmoid, erf/erfc forms): what a stabilizing pass needs, a fifth of the database
STABILIZING = (
    "local_log1p", "local_log1p_plusminus_exp", "logsigm_to_softplus", "log1msigm_to_softplus",
    "log1p_neg_sigmoid", "local_log_add_exp", "local_log_sum_exp", "local_expm1", "local_log_erfc",
    "local_logsoftmax", "local_softmax_stabilize", "logdiffexp_to_log1mexpdiff", "local_exp_log",
    "local_exp_log_nan_switch", "local_1msigmoid", "local_exp_over_1_plus_exp", "local_one_plus_erf",
    "local_one_minus_erf", "local_erf_minus_one", "local_one_minus_erfc", "local_erf_neg_minus_one",
)


def _stabilizing() -> tuple[str, ...]:
    have = {r.name for r in relations.resolve_rewriters("stabilize")}
    return tuple(n for n in STABILIZING if n in have)


SETS = {
    "rules only": (),
    "+stabilizing subset": _stabilizing(),
    "+stabilize": ("stabilize",),
    "+stabilize+specialize": ("stabilize", "specialize"),
}


def _graphs(name: str) -> list:
    return logp_dlogp(MODELS[name]())[1]


def _stock_seconds(name: str) -> float:
    graphs = _graphs(name)
    t0 = time.perf_counter()
    rewrite_graph(graphs, include=("canonicalize", "stabilize"), clone=True)
    return time.perf_counter() - t0


def _row(name: str, label: str, rewriters: tuple, stock: float) -> str:
    graphs = _graphs(name)
    t0 = time.perf_counter()
    eg = relations.saturate(graphs, backward=False, limits=relations.Limits(seconds=30), rewriters=rewriters)
    dt = time.perf_counter() - t0
    r = eg.report
    stats = r.rewriters.values()
    calls = sum(s.calls for s in stats)
    inside = sum(s.seconds for s in stats)
    per_call = 1e6 * inside / calls if calls else 0.0
    unions = sum(s.unions for s in stats)
    errors = sum(s.errors for s in stats)
    share = inside / dt if dt else 0.0
    return (
        f"| {name} | {len(io_toposort([], graphs))} | {label} | {dt:.3f} | {dt / stock:.2f}x | {r.stop} | "
        f"{r.nodes} | {calls} | {per_call:.0f} | {share:.0%} | {unions} | {errors} |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=None, help="model names (default: all)")
    args = parser.parse_args(argv)
    if pm is None:
        raise SystemExit("PyMC is not installed (Python 3.12 line): nothing to measure")
    names = selected(args.models or [])
    print(
        "| model | nodes | set | saturate s | / PyTensor canon+stab | stop | e-nodes | "
        "transform calls | us per call | in transform | unions | errors |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        stock = _stock_seconds(name)
        print(f"| {name} | | PyTensor canonicalize+stabilize | {stock:.3f} | 1.00x | | | | | | | |")
        for label, rewriters in SETS.items():
            print(_row(name, label, rewriters, stock), flush=True)


if __name__ == "__main__":
    main()
