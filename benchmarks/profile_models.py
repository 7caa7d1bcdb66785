"""Where the compiled logp + dlogp call time of PyMC models goes, by Op kind: ``python benchmarks/profile_models.py``.

Needs PyMC (``pip install -e '.[bench]'``, Python 3.12 line).  Per model of
``tests/pymc_models.py``: ``[model.logp(), model.dlogp()]`` compiled
without the ``relational`` tag, timed node by node by PyTensor's profiler
(``profile=True``, a ``ProfileStats``), and the share of the call time spent
in each Op kind.

The default linker (Numba) compiles the whole graph into one function and
records no time per node (its ``ProfileStats.apply_time`` stays empty), so
the profile is taken on a linker that runs node by node:

- ``--graph c`` (default): the C backend's compiled graph (mode ``CVM``):
  PyTensor's rewrites for C, each node its C code, or its Python
  ``perform`` where it has none;
- ``--graph numba``: the graph the default mode rewrites for Numba, linked
  by the VM without further rewrites (its Numba-only Ops, FusedElemwise,
  ScalarCAReduce, ..., then run their Python ``perform``).

The "py" column is the share of the time in nodes running Python (the Numba
backend runs them compiled), so a high one says the shares are skewed.  The
"rules" column names the toolkit's rule families that rewrite that kind of
node (``-``: none), so a model whose time is in untouched kinds cannot get
faster from them.  "numba (us)" is the model's best call time on the default
linker, for scale; "vm (us)" the profiled call time.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)

import pytensor  # noqa: E402
from pytensor.compile.mode import Mode, get_default_mode  # noqa: E402
from pytensor.graph.basic import Apply  # noqa: E402

import relations  # noqa: E402,F401  (registers the relational tag; not included here)
from pymc_models import MODELS, logp_dlogp, pm, point_values, selected  # noqa: E402  (tests/pymc_models.py)

#: Op class names -> the rule families that rewrite such nodes
RULES_TOUCHING = {
    "Sum": "reductions (dimshuffle, join, broadcast, alloc, set)",
    "Max": "reductions (dimshuffle, join, set)",
    "Min": "reductions (dimshuffle, join, set)",
    "Prod": "reductions (dimshuffle, join)",
    "All": "reductions (dimshuffle, join)",
    "Any": "reductions (dimshuffle, join)",
    "CAReduce": "reductions (dimshuffle, join)",
    "ScalarCAReduce": "reductions (dimshuffle, join, broadcast, alloc, set)",
    "Elemwise": "lift (set, alloc), dimshuffle",
    "FusedElemwise": "lift (set, alloc), dimshuffle",
    "ScalarizedElemwise": "lift (set, alloc)",
    "AdvancedIncSubtensor": "lift through set, reductions of writes",
    "AdvancedIncSubtensor1": "lift through set, reductions of writes",
    "IncSubtensor": "lift through set, reductions of writes",
    "Alloc": "alloc lift, reductions of an Alloc",
    "DimShuffle": "dimshuffle",
    "Join": "reduce of join",
    "ScalarizedJoin": "reduce of join",
}


def op_kind(node: Apply) -> str:
    """The node's Op class name; for an ``Elemwise``, with its scalar op (``Elemwise{Exp}``)."""
    name = type(node.op).__name__
    scalar = getattr(node.op, "scalar_op", None)
    if name == "Elemwise" and scalar is not None:
        return f"Elemwise{{{type(scalar).__name__}}}"
    return name


def family(kind: str) -> str:
    return RULES_TOUCHING.get(kind.split("{")[0], "-")


def numba_call_seconds(fn, args, seconds: float) -> float:
    fn(*args)
    best = float("inf")
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def profile_model(name: str, seconds: float, calls: int | None, graph: str = "c") -> dict:
    """The profile of one model: shares by Op kind, the Python share, the Numba call time."""
    model = MODELS[name]()
    inputs, outs = logp_dlogp(model)
    args = point_values(model)
    compiled = pytensor.function(inputs, outs, mode=get_default_mode())
    t_numba = numba_call_seconds(compiled, args, seconds / 3)
    if graph == "numba":
        fgraph = compiled.maker.fgraph.clone()
        profiled = pytensor.function(
            fgraph.inputs, fgraph.outputs, mode=Mode(linker="cvm", optimizer=None), profile=True, accept_inplace=True
        )
    else:
        profiled = pytensor.function(inputs, outs, mode="CVM", profile=True)
        fgraph = profiled.maker.fgraph
    profiled(*args)
    stats = profiled.profile
    stats.reset()  # the first call (allocations) is not profiled
    n, end = 0, time.perf_counter() + seconds
    while (calls is None and time.perf_counter() < end) or (calls is not None and n < calls):
        profiled(*args)
        n += 1
    by_kind: dict[str, float] = defaultdict(float)
    nodes: dict[str, int] = defaultdict(int)
    py = 0.0
    for (_fg, node), t in stats.apply_time.items():
        kind = op_kind(node)
        by_kind[kind] += t
        if not stats.apply_cimpl.get(node, False):
            py += t
    for node in fgraph.apply_nodes:
        nodes[op_kind(node)] += 1
    total = sum(by_kind.values()) or float("nan")
    return {
        "name": name,
        "numba": t_numba,
        "vm": total / max(n, 1),
        "py": py / total,
        "shares": sorted(((t / total, k, nodes[k]) for k, t in by_kind.items()), reverse=True),
        "touched": sum(t for k, t in by_kind.items() if family(k) != "-") / total,
    }


def print_tables(results: list[dict], min_share: float) -> None:
    print("| model | numba (us) | vm (us) | py share | share in kinds rules touch | top kinds |")
    print("|---|---|---|---|---|---|")
    for r in results:
        top = ", ".join(f"{k} {s:.0%}" for s, k, _ in r["shares"][:3])
        print(f"| {r['name']} | {r['numba'] * 1e6:.1f} | {r['vm'] * 1e6:.1f} | {r['py']:.0%} "
              f"| {r['touched']:.0%} | {top} |")
    print()
    print("| model | Op kind | nodes | share | rules |")
    print("|---|---|---|---|---|")
    for r in results:
        rest = 0.0
        for s, k, count in r["shares"]:
            if s < min_share:
                rest += s
                continue
            print(f"| {r['name']} | {k} | {count} | {s:.1%} | {family(k)} |")
        print(f"| {r['name']} | (kinds under {min_share:.0%}) | | {rest:.1%} | |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="profiled time per model")
    parser.add_argument("--calls", type=int, default=None, help="profiled calls per model (overrides --seconds)")
    parser.add_argument("--min-share", type=float, default=0.03, help="kinds below this share are summed")
    parser.add_argument("--graph", choices=("c", "numba"), default="c",
                        help="profile the C backend's compiled graph, or the default mode's graph on the VM")
    parser.add_argument("models", nargs="*", help="model names (default: all)")
    args = parser.parse_args(argv)
    if pm is None:
        print("PyMC is not installed (pip install -e '.[bench]' on Python >= 3.12): no profile")
        return
    try:
        names = selected(args.models)
    except ValueError as err:
        parser.error(str(err))
    what = ("the C backend's compiled logp+dlogp (mode CVM)" if args.graph == "c"
            else "the default mode's rewritten logp+dlogp, linked by the VM (cvm)")
    print(f"pytensor {pytensor.__version__}, pymc {pm.__version__}; profile of {what}")
    print_tables([profile_model(n, args.seconds, args.calls, args.graph) for n in names], args.min_share)


if __name__ == "__main__":
    main()
