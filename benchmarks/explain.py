"""Issue 15: what explaining and keeping PyTensor's conventions cost: ``python benchmarks/explain.py``.

Side by side in one process (medians of repeated runs), on the pattern family
(``graphs.pattern_family``) at about 10^2, 10^3 and 10^4 nodes:

1. ``normalize`` as shipped, against ``normalize`` with the stack-trace copy
   switched off (the only work this issue added to a plain ``normalize``;
   recording steps is off unless ``explain`` asks); ``explain`` (records
   every step) against ``normalize``; ``Explanation.check()`` (every step
   re-run with both sides given, and replayed on the graph);
2. the compile-time pass (``RelationalRewriter.apply`` on a FunctionGraph):
   one ``fgraph.replace`` per rewrite with the rule's name as the reason,
   against the former single replacement of the outputs.  The difference
   is what a replacement costs PyTensor, as for its own rewriters:
   ``FunctionGraph.import_node`` starts a toposort whose blockers are a copy
   of the graph's variable set, so each replacement costs O(graph) and the
   ratio grows with the graph's size.

``--quick`` stops at 10^3 and repeats less.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
warnings.filterwarnings("ignore", category=FutureWarning)

from graphs import count_nodes, pattern_family  # noqa: E402
from pytensor.graph.fg import FunctionGraph  # noqa: E402
from pytensor.graph.traversal import explicit_graph_inputs  # noqa: E402
from timing import median_seconds  # noqa: E402

import relations  # noqa: E402
import relations.greedy.fixpoint as search  # noqa: E402
from relations.compile.registration import RelationalRewriter  # noqa: E402
from relations.rules import DEFAULT_INDEX  # noqa: E402


def without_trace_copy(outs):
    saved = search.copy_trace
    search.copy_trace = lambda *args: None
    try:
        return relations.normalize(outs)
    finally:
        search.copy_trace = saved


def normalize_table(sizes, repeats):
    print("1. normalize, explain, check (seconds, medians)")
    print(
        f"{'nodes':>7} {'steps':>6} {'normalize':>10} {'no trace':>9} {'norm/no-tr':>11} "
        f"{'explain':>9} {'expl/norm':>10} {'check':>8}"
    )
    for n in sizes:
        outs = pattern_family(n)
        nodes = count_nodes(outs)
        t_norm = median_seconds(lambda: relations.normalize(outs), repeats)
        t_plain = median_seconds(lambda: without_trace_copy(outs), repeats)
        t_expl = median_seconds(lambda: relations.explain(outs), repeats)
        e = relations.explain(outs)
        t0 = time.perf_counter()
        ok = e.check()
        t_check = time.perf_counter() - t0
        check = f"{t_check:8.3f}" if ok else "  FAILED"
        print(
            f"{nodes:>7} {len(e.steps):>6} {t_norm:>10.4f} {t_plain:>9.4f} "
            f"{t_norm / t_plain:>11.2f} {t_expl:>9.4f} {t_expl / t_norm:>10.2f} {check}"
        )


def compile_pass_table(sizes, repeats):
    print()
    print("2. compile-time pass on a FunctionGraph (seconds, medians)")
    print(f"{'nodes':>7} {'per rule':>9} {'one replace':>12} {'ratio':>6}")

    def normalize_fn(outs, on_rewrite=None):
        return search.normalize_variables(list(outs), DEFAULT_INDEX, on_rewrite=on_rewrite)

    per_rule = RelationalRewriter(normalize_fn, "relational", reports_steps=True)
    at_once = RelationalRewriter(normalize_fn, "relational", reports_steps=False)
    for n in sizes:
        outs = pattern_family(n)
        inputs = list(explicit_graph_inputs(outs))

        def fresh():
            fg = FunctionGraph(inputs, outs, clone=True)
            per_rule.add_requirements(fg)
            return fg

        t_rule = median_seconds(per_rule.apply, repeats, setup=fresh)
        t_once = median_seconds(at_once.apply, repeats, setup=fresh)
        print(f"{count_nodes(outs):>7} {t_rule:>9.4f} {t_once:>12.4f} {t_rule / t_once:>6.2f}")


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = [100, 1000] if quick else [100, 1000, 10000]
    repeats = 3
    normalize_table(sizes, repeats)
    compile_pass_table(sizes, repeats)


if __name__ == "__main__":
    main()
