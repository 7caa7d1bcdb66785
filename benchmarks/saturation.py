"""Equality saturation on PyMC model graphs and generated graphs: ``python benchmarks/saturation.py``.

Needs PyMC and egglog (``pip install -e '.[bench]'``, Python 3.12 line).
Three tables, from one run:

- ``models``: for ``[model.logp(), model.dlogp()]`` of each model of
  ``tests/pymc_models.py``: nodes; PyTensor's ``canonicalize``
  (``rewrite_graph(include=("canonicalize",))``) and ``saturate`` with the
  default rules, ``backward=False``, on new graphs, interleaved, best of 3;
  the ratio; the stop reason, classes, e-nodes and e-nodes added per second;
  then ``backward=True`` with the default limits (one run): seconds, the
  ratio, stop, e-nodes; whether ``best`` is no costlier than ``normalize``
  under best's default cost (``measured``, in predicted microseconds); whether ``prove(g, normalize(g))`` and
  ``prove(g, best(g))`` are found and check; and the memory of the
  saturated e-graph over the graph's own (``tracemalloc``: what
  ``saturate`` keeps, over what a clone of the graph takes).
- ``family``: the same for the generated graph family of ``graphs.py`` at
  10^3 and 10^4 nodes (forward, and backward with the default limits).
- ``listing``: ``forms(limit=2)``, ``forms(limit=10)`` and ``extract`` over the
  forward saturation's time on chains of 10^3 and 10^4 levels whose every
  class is on a cycle; and, in a new process, the peak resident memory of
  ``list(equivalents(pt.stack([a, b]).T, limit=None, depth=2, timeout=30))``
  for two normal draws (``resource.getrusage``).
- ``egglog``: on the same terms (the model graphs and the family), three
  rules written in egglog-python 14 (full reduction of a DimShuffle,
  DimShuffle composition, a unary lift through a set) against the same
  three relations in ``saturate`` (``backward=False``): saturation +
  extraction, ours over egglog's, best of 3.  egglog's time is given with
  and without translating the PyTensor graph into its terms.

- ``algebra``: issue 42's 8 algebra rules (commutativity and associativity of ``add`` and
  ``mul``, distributivity both ways, ``a - b`` and ``a + -b`` both ways) on ``poly(n)``
  (``benchmarks/egglog_algebra.py``) in egglog-python 14 and in the query engine
  (``relations.saturation.engine``), per iteration k = 1..8: e-nodes of both (counted alike:
  leaves too), seconds of the iteration (best of the rounds, the engines interleaved),
  e-nodes added per second, and seconds per e-node added, ours over egglog's (CPU seconds,
  ``time.process_time``: see ``egglog_algebra.py``); then the
  memory the query engine's e-graph holds per e-node at 10^5 e-nodes (``tracemalloc``).

  Then the same rules through ``relations.saturate`` (its e-graph of PyTensor terms, the rules
  e-matched as queries on an index of it, the terms they add recorded without PyTensor nodes):
  e-nodes and seconds per iteration beside the engine's.
- ``numerics``: the ``algebra`` rule set with PyTensor's stabilizers (``rewriters="stabilize"``)
  on each spelling of ``tests/numerics_corpus.py`` of up to 20 nodes, forward, default limits:
  how many saturate (or name their bound) in under 50 ms, the median, the slowest; the PyTensor
  rewriters' ``transform`` calls and seconds, and the choices a necessary condition excluded.

``--quick`` runs three models and the 10^3 graph only (and the algebra table up to 10^4 e-nodes).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)

import pytensor  # noqa: E402
from graphs import count_nodes, pattern_family  # noqa: E402
from pytensor.graph.basic import clone  # noqa: E402
from pytensor.graph.rewriting.utils import rewrite_graph  # noqa: E402
from timing import interleaved_seconds  # noqa: E402

import relations  # noqa: E402
from pymc_models import MODELS, logp_dlogp, pm  # noqa: E402  (tests/pymc_models.py)
from relations.rules.dimshuffle import careduce_dimshuffle_fullo, dimshuffle_composeo  # noqa: E402
from relations.rules.lift import elemwise_set_subtensoro  # noqa: E402
from relations.saturation.costs import measured  # noqa: E402

#: the three rules both engines run in the egglog table
THREE_RULES = (careduce_dimshuffle_fullo, dimshuffle_composeo, elemwise_set_subtensoro)


def _canonicalize(outs):
    return rewrite_graph(outs, include=("canonicalize",), clone=True)


def _memory_ratio(outs) -> float:
    """Bytes ``saturate`` keeps (the e-graph, alive) over the bytes of a clone of the graph.

    A saturation of a copy runs first, so the process's caches (ABC subclass checks, the
    plans) are warm and not counted."""
    relations.saturate(list(clone([], outs)[1]), backward=False)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    copy = clone([], outs)  # noqa: F841 - kept alive while measured
    graph_bytes = tracemalloc.get_traced_memory()[0] - base
    del copy
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    # no time limit: tracemalloc slows every allocation down
    eg = relations.saturate(outs, backward=False, limits=relations.Limits(seconds=None))  # noqa: F841
    gc.collect()
    egraph_bytes = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return egraph_bytes / graph_bytes


def _cost(g) -> float:
    """``best``'s default cost (predicted microseconds of one compiled call)."""
    return measured(g if isinstance(g, list) else [g]) * 1e6


def _row(name: str, new_graph, rounds: int = 3) -> None:
    graphs = [new_graph() for _ in range(rounds + 1)]
    outs = graphs[-1]
    sats: list = []
    t_canon, t_sat = interleaved_seconds(
        [lambda: _canonicalize(outs), lambda: sats.append(relations.saturate(graphs[len(sats)], backward=False))],
        rounds=rounds,
    )
    tc, ts = min(t_canon), min(t_sat)
    r = sats[-1].report
    fresh = new_graph()
    t0 = time.perf_counter()
    back = relations.saturate(fresh, backward=True)
    tb = time.perf_counter() - t0
    rb = back.report
    b = relations.best(outs)
    normal = relations.normalize(outs)
    p_norm = relations.prove(outs, normal)
    p_best = relations.prove(outs, b)
    mem = _memory_ratio(new_graph())
    print(
        f"| {name} | {count_nodes(outs)} | {tc * 1e3:.1f} | {ts * 1e3:.1f} | {ts / tc:.2f} | {r.stop} "
        f"| {r.classes} | {r.nodes} | {r.nodes / ts:.0f} | {tb * 1e3:.0f} | {tb / tc:.1f} | {rb.stop} | {rb.nodes} "
        f"| {_cost(b) <= _cost(normal)} ({_cost(b):.2f} / {_cost(normal):.2f} us) "
        f"| {p_norm is not None and p_norm.check()} | {p_best is not None and p_best.check()} | {mem:.1f} |",
        flush=True,
    )


HEADER = (
    "| graph | nodes | canonicalize (ms) | saturate (ms) | sat. / canon. | stop | classes | e-nodes "
    "| e-nodes/s | backward (ms) | backward / canon. | stop | e-nodes | best <= normalize (cost) "
    "| prove normal | prove best | memory / graph |\n|" + "---|" * 17
)


def models_table(names: list[str]) -> None:
    print(f"pytensor {pytensor.__version__}, pymc {pm.__version__}; logp+dlogp; default rules; "
          f"limits {relations.Limits()}")
    print(HEADER)
    for name in names:
        _row(name, lambda name=name: logp_dlogp(MODELS[name]())[1])


def family_table(sizes: list[int]) -> None:
    print("generated family (benchmarks/graphs.py)")
    print(HEADER)
    for n in sizes:
        _row(f"family {n}", lambda n=n: pattern_family(n))


# -- egglog ------------------------------------------------------------------------


def egglog_table(cases: list[tuple[str, object]]) -> None:
    from egglog_terms import egglog_run

    print("the same three rules (full reduction of a DimShuffle, DimShuffle composition, unary lift "
          "through a set) in saturate and in egglog-python 14; saturation + extraction, best of 3")
    print("| graph | nodes | ours (ms) | egglog run+extract (ms) | egglog with translation (ms) "
          "| ours / egglog | ours / egglog with translation | our e-nodes | egglog e-nodes "
          "| our e-nodes/s | egglog e-nodes/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, new_graph in cases:
        graphs = [new_graph() for _ in range(4)]
        found = {}

        def ours():
            eg = relations.saturate(graphs.pop(), THREE_RULES, backward=False)
            eg.extract()
            found["ours"] = eg.report.nodes

        def theirs():
            found["egglog"] = egglog_run(graphs[0], found)

        t_ours, t_egg = interleaved_seconds([ours, theirs], rounds=3)
        to, te = min(t_ours), min(t_egg)
        run_only = found["egglog"]["run"]
        print(
            f"| {name} | {count_nodes(graphs[0])} | {to * 1e3:.1f} | {run_only * 1e3:.1f} | {te * 1e3:.1f} "
            f"| {to / run_only:.2f} | {to / te:.2f} | {found['ours']} | {found['egglog']['nodes']} "
            f"| {found['ours'] / to:.0f} | {found['egglog']['nodes'] / run_only:.0f} |",
            flush=True,
        )


# -- listing ------------------------------------------------------------------------


def _alternating_chain(levels: int):
    """``exp`` and ``sum(expand_dims(., 0), 0)`` in turn: each level's class is on a cycle."""
    import pytensor.tensor as pt

    v = pt.vector("x")
    for _ in range(levels):
        v = pt.sum(pt.expand_dims(pt.exp(v), 0), 0)
    return v


MEMORY_CASE = """
import resource, time
import pytensor.tensor as pt, relations
a = pt.random.normal(0, 1, size=(3,), return_next_rng=True)[1]
b = pt.random.normal(0, 1, size=(3,), return_next_rng=True)[1]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
forms = list(relations.equivalents(pt.stack([a, b]).T, limit=None, depth=2, timeout=30))
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(len(forms), time.perf_counter() - t0, base / 1024, peak / 1024)
"""


def listing_table(levels: list[int]) -> None:
    """``forms(limit=k)`` and ``extract`` against the saturation they follow, on deep chains; and the
    peak memory of listing every form of two random variables stacked and transposed."""
    import subprocess

    print("listing on chains of exp and sum(expand_dims(., 0), 0) (forward saturation, no limits); "
          "forms(limit=k) and extract over saturate's time")
    print("| levels | e-nodes | saturate (s) | forms(limit=2) (s) | / saturate | forms(limit=10) (s) "
          "| / saturate | extract (s) | / saturate | method |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in levels:
        g = _alternating_chain(n)
        t0 = time.perf_counter()
        eg = relations.saturate(g, backward=False, limits=relations.Limits(seconds=None, nodes=None))
        ts = time.perf_counter() - t0
        t0 = time.perf_counter()
        assert len(list(eg.forms(limit=2))) == 2
        t2 = time.perf_counter() - t0
        t0 = time.perf_counter()
        list(eg.forms(limit=10))
        t10 = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = eg.extract()
        te = time.perf_counter() - t0
        print(f"| {n} | {eg.report.nodes} | {ts:.2f} | {t2:.2f} | {t2 / ts:.2f} | {t10:.2f} | {t10 / ts:.2f} "
              f"| {te:.2f} | {te / ts:.2f} | {out.method} |", flush=True)
    run = subprocess.run([sys.executable, "-c", MEMORY_CASE], capture_output=True, text=True, check=True)
    count, seconds, base, peak = run.stdout.split()
    print(f"list(equivalents(pt.stack([a, b]).T, limit=None, depth=2, timeout=30)), a and b normal draws: "
          f"{count} forms in {float(seconds):.1f} s; peak resident memory {float(peak):.0f} MB "
          f"(after imports {float(base):.0f} MB; MAX_FORM_NODES bounds the listing)")


# -- algebra (issue 42) ---------------------------------------------------------------


def _best_iterations(runs: list[list[tuple[int, float]]]) -> list[tuple[int, float]]:
    """Per iteration: the e-nodes (the same in every run) and the least seconds over the runs."""
    return [(its[0][0], min(t for _, t in its)) for its in zip(*runs)]


def algebra_table(cases: list[tuple[int, int, int]]) -> None:
    """Both engines on ``poly(n)`` for ``k`` iterations (``rounds`` interleaved runs each), one row per iteration."""
    from egglog_algebra import egglog_iterations, engine_iterations

    print("issue 42's 8 algebra rules on poly(n), egglog-python 14 against relations.saturation.engine "
          "(search all rules on the clean e-graph, apply, rebuild; no scheduler); per iteration, CPU seconds, "
          "best of the rounds")
    print("| expression | k | egglog e-nodes | our e-nodes | difference | egglog iteration (ms) | ours (ms) "
          "| egglog e-nodes/s | our e-nodes/s | our s per e-node / egglog's |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, k, rounds in cases:
        theirs: list = []
        ours: list = []
        for _ in range(rounds):
            gc.collect()
            theirs.append(egglog_iterations(n, k))
            ours.append(engine_iterations(n, k)[0])
        te, to = _best_iterations(theirs), _best_iterations(ours)
        prev_e = prev_o = 0
        for i, ((ne, se), (no, so)) in enumerate(zip(te, to), start=1):
            rate_e, rate_o = (ne - prev_e) / se, (no - prev_o) / so
            ratio = rate_e / rate_o if rate_o > 0 else float("nan")
            print(f"| poly({n}) | {i} | {ne} | {no} | {100 * (no - ne) / ne:+.1f}% | {se * 1e3:.2f} | {so * 1e3:.2f} "
                  f"| {rate_e:,.0f} | {rate_o:,.0f} | {ratio:.1f} |", flush=True)
            prev_e, prev_o = ne, no


def saturate_iterations(n: int, k: int) -> list[tuple[int, float]]:
    """``(e-nodes, seconds)`` after each of ``k`` forward iterations of ``relations.saturate``'s e-graph
    (PyTensor terms, the 8 rules e-matched as queries: :mod:`relations.saturation.query_matcher`)."""
    import pytensor.tensor as pt
    from egglog_algebra import poly

    from relations.saturation.egraph import EGraph

    eg = EGraph(eight_rules())
    eg.add(poly(n, pt.dscalar, 2))
    one = relations.Limits(iterations=1, nodes=None, seconds=None, growth=None)
    out = []
    for _ in range(k):
        t0 = time.process_time()
        eg.run(one, backward=False)
        dt = time.process_time() - t0
        out.append((eg.size[1], dt))
    return out


def eight_rules() -> list:
    """Issue 42's 8 rules as the toolkit's relations (``rewrite_rule``, choices for saturation)."""
    from egglog_algebra import query_rules

    return [relations.rewrite_rule(q.name, q.lhs, q.rhs, choice=True) for q in query_rules()]


def saturate_table(cases: list[tuple[int, int]]) -> None:
    """``relations.saturate`` (terms as PyTensor variables) on the same benchmark, against the query engine."""
    from egglog_algebra import engine_iterations

    print("\nthe same rules through relations.saturate (the e-graph of PyTensor terms; the rules matched as "
          "queries on its index, each new e-node recorded as its Op, input terms and type, no PyTensor node built "
          "until something reads it; egg's BackoffScheduler on, so the "
          "counts part from the engine's once a rule finds more than 1,000 matches): per iteration, CPU seconds")
    print("| expression | k | engine e-nodes | saturate e-nodes | engine (ms) | saturate (ms) | saturate e-nodes/s "
          "| saturate s per e-node / engine's |")
    print("|---|---|---|---|---|---|---|---|")
    for n, k in cases:
        eng = engine_iterations(n, k)[0]
        sat = saturate_iterations(n, k)
        prev_e = prev_s = 0
        for i, ((ne, te), (ns, ts)) in enumerate(zip(eng, sat), start=1):
            rate_e, rate_s = (ne - prev_e) / te, (ns - prev_s) / ts
            ratio = rate_e / rate_s if rate_s > 0 else float("nan")
            print(f"| poly({n}) | {i} | {ne} | {ns} | {te * 1e3:.2f} | {ts * 1e3:.1f} | {rate_s:,.0f} | {ratio:.1f} |",
                  flush=True)
            prev_e, prev_s = ne, ns


def numerics_table(max_nodes: int = 20, rounds: int = 3) -> None:
    """``saturate(spelling, RULESETS["algebra"], rewriters="stabilize", backward=False)`` on every spelling of
    ``tests/numerics_corpus.py`` of up to ``max_nodes`` nodes: seconds (best of ``rounds``), stop reasons."""
    import statistics
    from collections import Counter

    from pytensor.graph.traversal import applys_between

    from numerics_corpus import CORPUS

    rules = relations.RULESETS["algebra"]
    relations.saturate(CORPUS[0].graph()[1], rules, rewriters="stabilize", backward=False)  # warm the caches
    rows = []
    foreign: Counter = Counter()  # the PyTensor rewriters in the last run of each spelling
    for s in CORPUS:
        ins, out = s.graph()
        n = len(list(applys_between(ins, [out])))
        if n > max_nodes:
            continue
        best = float("inf")
        for _ in range(rounds):
            t0 = time.perf_counter()
            eg = relations.saturate(out, rules, rewriters="stabilize", backward=False)
            best = min(best, time.perf_counter() - t0)
        rows.append((best, n, eg.report.stop, eg.report.nodes, s.name))
        for st in eg.report.rewriters.values():
            foreign["calls"] += st.calls
            foreign["excluded"] += getattr(st, "excluded", 0)
            foreign["seconds"] += st.seconds
        foreign["run"] += eg.report.seconds
    times = sorted(r[0] for r in rows)
    print(f"\nalgebra rules + PyTensor's stabilizers on {len(rows)} spellings of tests/numerics_corpus.py "
          f"(up to {max_nodes} nodes), default Limits, best of {rounds}")
    print("| spellings | under 50 ms | median (ms) | 90th percentile (ms) | max (ms) | stops |")
    print("|---|---|---|---|---|---|")
    stops = Counter(r[2] for r in rows)
    print(f"| {len(rows)} | {sum(t < 0.05 for t in times)} | {statistics.median(times) * 1e3:.1f} "
          f"| {times[int(0.9 * len(times))] * 1e3:.1f} | {times[-1] * 1e3:.1f} "
          f"| {', '.join(f'{k} {v}' for k, v in stops.most_common())} |")
    for t, n, stop, nodes, name in sorted(rows, reverse=True)[:5]:
        print(f"  slowest: {name} ({n} nodes): {t * 1e3:.0f} ms, {nodes} e-nodes, {stop}")
    print(f"  PyTensor's rewriters (last run of each): {foreign['calls']:,} transform calls, "
          f"{foreign['seconds']:.2f} s of {foreign['run']:.2f} s in them; {foreign['excluded']:,} choices "
          "excluded by a condition every match needs (RewriterStats.excluded)")


def algebra_memory(n: int, k: int) -> None:
    """Bytes the query engine's e-graph holds per e-node after ``k`` iterations on ``poly(n)`` (tracemalloc)."""
    from egglog_algebra import engine_iterations

    engine_iterations(1, 3)  # warm the caches (rule compilation, type inference) before measuring
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    its, runner = engine_iterations(n, k)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    nodes = runner.eg.n_nodes
    print(f"memory: poly({n}), {k} iterations: {nodes:,} e-nodes, {held / 2**20:.1f} MiB held by the e-graph "
          f"and its runner, {held / nodes:.0f} bytes per e-node (tracemalloc)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--family", action="store_true", help="the egglog table on the generated family only")
    parser.add_argument("--table", choices=["models", "family", "egglog", "listing", "algebra", "numerics", "all"],
                        default="all")
    args = parser.parse_args(argv)
    if args.table in ("algebra", "all"):
        algebra_table([(1, 8, 3), (2, 8, 3)] if args.quick else [(1, 8, 5), (2, 8, 3), (3, 7, 2)])
        algebra_memory(2, 8) if args.quick else algebra_memory(3, 7)
        saturate_table([(1, 7), (2, 6)] if args.quick else [(1, 8), (2, 7)])
        if args.table == "algebra":
            return
    if args.table in ("numerics", "all"):
        numerics_table()
        if args.table == "numerics":
            return
    if pm is None:
        print("PyMC is not installed (pip install -e '.[bench]', Python 3.12): no model tables")
        return
    names = list(MODELS)[:3] if args.quick else list(MODELS)
    sizes = [1000] if args.quick else [1000, 10000]
    if args.table in ("models", "all"):
        models_table(names)
    if args.table in ("family", "all"):
        family_table(sizes)
    if args.table in ("listing", "all"):
        listing_table([1000] if args.quick else [1000, 10000])
    if args.table in ("egglog", "all"):
        cases = [] if args.family else [(n, lambda n=n: logp_dlogp(MODELS[n]())[1]) for n in names]
        cases += [(f"family {n}", lambda n=n: pattern_family(n)) for n in sizes]
        egglog_table(cases)


if __name__ == "__main__":
    main()
