"""Measure the cost table of ``relations.saturation.costs.measured``, or check it: ``python benchmarks/calibrate.py [--check]``.

Without ``--check``: for each Op kind (and dtype) of a list of one-node
graphs, the call time of the graph compiled in PyTensor's default mode
(Numba) at one element and at ``--elements`` elements; the per element cost
is the slope (``relations.saturation.costs.node_elements`` counts the elements, as
``measured`` does), the per call cost what one element costs above a
function of as many inputs that only returns one (the call overhead of any
compiled function, which ranks no form above another; the table's
``call`` entry fits it over 1-8 inputs, and ``--call-only`` measures only
that entry again; ``--cases`` measures only the cases it names and keeps
the rest of the table).  Kinds the list does not hold
get the median of the measured ones.  Writes ``relations/saturation/cost_table.json``
(``--out`` elsewhere), which the package ships.

``--check``: across forms of PyMC model graphs (``tests/pymc_models.py``;
PyMC needed, Python 3.12 line): the stock logp + dlogp, its normal form,
the compile rules' form, the ``relational`` pass's extracted form
(saturated whatever the gain), the forms with the rule set "choices" (all, and
each rule alone), and their lowered forms (distinct forms only), the
predicted cost (``measured``, the value variables' shapes as ``sizes``) and
the compiled call time (default mode, best of ``--repeats``); prints each
and the Spearman rank correlation over all forms, and within each model
(mean over the models with three or more distinct forms), and how many
of the pairs of forms of one model whose measured times differ by more than
5% the prediction orders alike (closer pairs are within the noise).  Forms
that compile to the same function (``equal_computations`` on the compiled
graphs) count once in the figures: their times differ by noise only.  The
forms' calls are timed in interleaved rounds.  Keep it short on a shared
machine: ``--models`` picks fewer.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)

import numpy as np  # noqa: E402
import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.compile.mode import get_default_mode  # noqa: E402

import relations  # noqa: E402
from relations.saturation.costs import TABLE_PATH, CostTable, measured, node_elements, op_kind, shape_finder  # noqa: E402

Case = Callable[[int, str], tuple[list, object, list]]


def best_call_seconds(fn, args, budget: float = 0.06, rounds: int = 5) -> float:
    """The best per-call time of ``fn(*args)`` over ``rounds`` rounds of about ``budget / rounds`` seconds."""
    fn(*args)
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn(*args)
        spent = time.perf_counter() - t0
        if spent > budget / rounds or n > 1 << 16:
            break
        n *= 2
    best = spent / n
    for _ in range(rounds - 1):
        t0 = time.perf_counter()
        for _ in range(n):
            fn(*args)
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def _vec(n: int, dtype: str, name: str = "x"):
    rng = np.random.default_rng(0)
    x = pt.vector(name, dtype=dtype, shape=(n,))
    if dtype == "bool":
        return x, rng.integers(0, 2, n).astype(bool)
    return x, rng.uniform(0.5, 1.5, n).astype(dtype)


def _unary(fn) -> Case:
    def case(n, dtype):
        x, xv = _vec(n, dtype)
        return [x], fn(x), [xv]

    return case


def _binary(fn) -> Case:
    def case(n, dtype):
        (x, xv), (y, yv) = _vec(n, dtype, "x"), _vec(n, dtype, "y")
        return [x, y], fn(x, y), [xv, yv]

    return case


def _matrix(fn) -> Case:
    def case(n, dtype):
        r = max(int(np.sqrt(n)), 1)
        rng = np.random.default_rng(1)
        m = pt.matrix("m", dtype=dtype, shape=(r, r))
        return [m], fn(m), [rng.uniform(0.5, 1.5, (r, r)).astype(dtype)]

    return case


def _set_case(advanced: bool) -> Case:
    def case(n, dtype):
        (x, xv), (v, vv) = _vec(n, dtype, "x"), _vec(max(n // 2, 1), dtype, "v")
        if advanced:
            idx = np.arange(0, 2 * len(vv), 2) % n
            return [x, v], pt.set_subtensor(x[idx], v), [xv, vv]
        return [x, v], pt.set_subtensor(x[: len(vv)], v), [xv, vv]

    return case


#: the inner length of the "dot" case: PyMC's products are a design matrix by a few coefficients
DOT_INNER = 8


def _dot(n, dtype):
    """``(n / DOT_INNER, DOT_INNER) @ (DOT_INNER, DOT_INNER)``: ``n`` output elements, each an inner
    product of :data:`DOT_INNER` (a square product of ``n`` elements would have an inner length of
    ``sqrt(n)``, out of cache, unlike a model's)."""
    rng = np.random.default_rng(1)
    rows = max(n // DOT_INNER, 1)
    a = pt.matrix("a", dtype=dtype, shape=(rows, DOT_INNER))
    b = pt.matrix("b", dtype=dtype, shape=(DOT_INNER, DOT_INNER))
    values = [rng.uniform(0.5, 1.5, (rows, DOT_INNER)).astype(dtype), rng.uniform(0.5, 1.5, (DOT_INNER, DOT_INNER)).astype(dtype)]
    return [a, b], pt.dot(a, b), values


def _factor_case(solve: bool) -> Case:
    """A Cholesky factor of an ``(r, r)`` matrix, or a triangular solve of ``r`` right-hand sides, with
    ``r**3`` about ``n`` (what ``node_elements`` counts: the output's elements times ``r``)."""

    def case(n, dtype):
        r = max(round(n ** (1 / 3)), 2)  # (a 1 x 1 factor PyTensor rewrites to a sqrt)
        rng = np.random.default_rng(2)
        a = rng.uniform(0.5, 1.5, (r, r)).astype(dtype)
        spd = (a @ a.T + r * np.eye(r)).astype(dtype)
        m = pt.matrix("m", dtype=dtype, shape=(r, r))
        if not solve:
            return [m], pt.linalg.cholesky(m), [spd]
        b = pt.matrix("b", dtype=dtype, shape=(r, r))
        return [m, b], pt.linalg.solve_triangular(m, b, lower=True), [np.linalg.cholesky(spd), a]

    return case


def _alloc(n, dtype):
    s = pt.scalar("s", dtype=dtype)
    return [s], pt.alloc(s, n), [np.asarray(1.0, dtype=dtype)]


def _join(n, dtype):
    (x, xv), (y, yv) = _vec(max(n // 2, 1), dtype, "x"), _vec(max(n // 2, 1), dtype, "y")
    return [x, y], pt.join(0, x, y), [xv, yv]


def _adv_sub(n, dtype):
    x, xv = _vec(n, dtype)
    return [x], x[np.arange(n)[::-1].copy()], [xv]


CASES: dict[str, tuple[Case, tuple[str, ...]]] = {
    "exp": (_unary(pt.exp), ("float64", "float32")),
    "log": (_unary(pt.log), ("float64", "float32")),
    "log1p": (_unary(pt.log1p), ("float64",)),
    "neg": (_unary(pt.neg), ("float64", "int64")),
    "sqr": (_unary(pt.sqr), ("float64",)),
    "sqrt": (_unary(pt.sqrt), ("float64",)),
    "abs": (_unary(pt.abs), ("float64",)),
    "sigmoid": (_unary(pt.sigmoid), ("float64",)),
    "softplus": (_unary(pt.softplus), ("float64",)),
    "gammaln": (_unary(pt.gammaln), ("float64",)),
    "tanh": (_unary(pt.tanh), ("float64",)),
    "cast": (_unary(lambda x: pt.cast(x, "float32")), ("float64",)),
    "add": (_binary(pt.add), ("float64", "float32", "int64")),
    "mul": (_binary(pt.mul), ("float64", "float32", "int64")),
    "sub": (_binary(pt.sub), ("float64",)),
    "true_div": (_binary(pt.true_div), ("float64",)),
    "pow": (_binary(pt.pow), ("float64",)),
    "pow_constant": (_unary(lambda x: x**2.0), ("float64",)),
    "maximum": (_binary(pt.maximum), ("float64",)),
    "ge": (_binary(pt.ge), ("float64",)),
    "and": (_binary(pt.and_), ("bool",)),
    "switch": (_binary(lambda x, y: pt.switch(pt.gt(x, 1.0), x, y)), ("float64",)),
    "sum": (_unary(pt.sum), ("float64", "float32", "int64")),
    "max": (_unary(pt.max), ("float64",)),
    "prod": (_unary(pt.prod), ("float64",)),
    "all": (_unary(pt.all), ("bool",)),
    "sum_axis": (_matrix(lambda m: pt.sum(m, axis=0)), ("float64",)),
    "transpose": (_matrix(lambda m: m.T * 1.0), ("float64",)),
    "alloc": (_alloc, ("float64",)),
    "join": (_join, ("float64",)),
    "subtensor": (_unary(lambda x: x[1:] * 1.0), ("float64",)),
    "adv_subtensor": (_adv_sub, ("float64",)),
    "set_subtensor": (_set_case(False), ("float64",)),
    "adv_set_subtensor": (_set_case(True), ("float64",)),
    "dot": (_dot, ("float64",)),
    "cholesky": (_factor_case(solve=False), ("float64",)),
    "solve_triangular": (_factor_case(solve=True), ("float64",)),
    "softmax": (_matrix(lambda m: pt.special.softmax(m, axis=-1)), ("float64",)),
    "log_softmax": (_matrix(lambda m: pt.special.log_softmax(m, axis=-1)), ("float64",)),
    "logsumexp": (_matrix(lambda m: pt.logsumexp(m, axis=-1)), ("float64",)),
    "logsumexp_grad": (_matrix(lambda m: pytensor.grad(pt.logsumexp(m, axis=-1).sum(), m)), ("float64",)),
}
#: cases that measure an Op only some PyTensor versions build (PyTensor 3.3's LogSumExp and its
#: derivative; 3.0 builds Elemwise nodes there, whose entries the case must not overwrite)
EXPECTED_KINDS = {"logsumexp": "LogSumExp", "logsumexp_grad": "FusibleSymbolicOpDerivative"}


def _measured_node(out) -> object:
    """The node the case is about: the output's, or (``x[1:] * 1.0``) the first input's node."""
    node = out.owner
    if op_kind(node) == "Elemwise{Mul}" and node.inputs[0].owner is not None and node.inputs[1].owner is not None:
        inner = node.inputs[0].owner
        if op_kind(inner) in ("Subtensor", "DimShuffle"):
            return inner
    return node


#: input counts of the functions the call overhead is fitted on (PyMC's logp + dlogp take 2-8)
CALL_INPUTS = (1, 2, 4, 8)


def call_overhead(rounds: int = 8) -> tuple[float, float]:
    """``(seconds per call, per input)`` of a compiled function that only returns its first input,
    fitted over :data:`CALL_INPUTS` inputs (each input is checked and converted); interleaved
    rounds, the best of each."""
    mode = get_default_mode()
    xs = [pt.vector(f"x{i}") for i in range(max(CALL_INPUTS))]
    fns = {k: pytensor.function(xs[:k], xs[0], mode=mode, on_unused_input="ignore") for k in CALL_INPUTS}
    ones = [np.ones(1)] * max(CALL_INPUTS)
    best = {k: float("inf") for k in CALL_INPUTS}
    for _ in range(rounds):
        for k, f in fns.items():
            best[k] = min(best[k], best_call_seconds(f, ones[:k], budget=0.01, rounds=3))
    per_input, base = np.polyfit(CALL_INPUTS, [best[k] for k in CALL_INPUTS], 1)
    return max(float(base), 0.0), max(float(per_input), 0.0)


def calibrate(elements: int, cases: list[str] | None = None, old: CostTable | None = None) -> CostTable:
    """The table measured at ``elements`` elements; with ``cases``, only those, the rest kept from ``old``."""
    mode = get_default_mode()
    # the call overhead of a function of k inputs (each input is checked and converted)
    xs = [pt.vector(f"x{i}") for i in range(3)]
    idents = {k: pytensor.function(xs[:k], xs[0], mode=mode, on_unused_input="ignore") for k in (1, 2, 3)}
    ones = [np.ones(1)] * 3
    overheads = {k: min(best_call_seconds(f, ones[:k]) for _ in range(3)) for k, f in idents.items()}
    entries: dict[str, dict[str, list[float]]] = {}
    if old is not None:
        entries = {k: {d: list(c) for d, c in by.items()} for k, by in old.entries.items()}
    print("call overhead (us) by inputs: " + ", ".join(f"{k}: {t * 1e6:.2f}" for k, t in overheads.items())
          + f"; {elements} elements")
    print("| case | kind | dtype | per call (us) | per element (ns) |")
    print("|---|---|---|---|---|")
    for name, (case, dtypes) in CASES.items():
        if cases is not None and name not in cases:
            continue
        expected = EXPECTED_KINDS.get(name)
        if expected is not None and op_kind(_measured_node(case(1, dtypes[0])[1])) != expected:
            print(f"| {name} | (this PyTensor builds no {expected}: not measured) | | | |")
            continue
        for dtype in dtypes:
            fns, e = [], []
            for n in (1, elements):
                ins, out, vals = case(n, dtype)
                fns.append((pytensor.function(ins, out, mode=mode), vals))
                e.append(node_elements(_measured_node(out), shape_finder()))
            # interleaved rounds, the best of each: a burst of the shared machine's noise
            # hits one round of both, not every round of one
            t = [float("inf"), float("inf")]
            k = len(fns[0][1])
            overhead = overheads[k]
            for _ in range(8):
                overhead = min(overhead, best_call_seconds(idents[k], ones[:k], budget=0.006, rounds=3))
                for i, (fn, vals) in enumerate(fns):
                    t[i] = min(t[i], best_call_seconds(fn, vals, budget=0.01, rounds=3))
            kind = op_kind(_measured_node(case(1, dtype)[1]))
            per_element = max((t[1] - t[0]) / max(e[1] - e[0], 1.0), 0.0)
            per_call = max(t[0] - overhead - per_element * e[0], 0.0)
            entries.setdefault(kind, {})[dtype] = [per_call, per_element]
            print(f"| {name} | {kind} | {dtype} | {per_call * 1e6:.3f} | {per_element * 1e9:.3f} |")
    if old is not None:
        about = old.about + f"; {', '.join(cases or [])} measured on pytensor {pytensor.__version__} at {elements} elements"
        return CostTable(entries, old.default, about, call=old.call, memory=old.memory)
    calls = [c[0] for by in entries.values() for c in by.values()]
    elems = [c[1] for by in entries.values() for c in by.values()]
    default = [statistics.median(calls), statistics.median(elems)]
    elemwise = [c for k, by in entries.items() if k.startswith("Elemwise{") for c in by.values()]
    entries["Elemwise{*}"] = {"*": [statistics.median(c[0] for c in elemwise), statistics.median(c[1] for c in elemwise)]}
    about = (f"measured by benchmarks/calibrate.py on pytensor {pytensor.__version__}, linker "
             f"{type(mode.linker).__name__}, {elements} elements; seconds per call and per element")
    return CostTable(entries, default, about, call=call_overhead(), memory=memory_pass(entries))


#: the Elemwise kinds whose arithmetic is next to nothing: what they cost per element is a pass over memory
MEMORY_KINDS = ("Elemwise{Neg}", "Elemwise{Abs}", "Elemwise{Sqr}")


def memory_pass(entries: dict) -> float:
    """Seconds per element of one memory pass: the cheapest float64 one-input Elemwise of :data:`MEMORY_KINDS`."""
    return min(entries[k]["float64"][1] for k in MEMORY_KINDS if "float64" in entries.get(k, {}))


# ------------------------------------------------------------------------------ the check


def _forms(outs: list) -> list[tuple[str, list]]:
    from pytensor.graph.basic import equal_computations

    choices = relations.RULESETS["choices"]
    candidates = [("stock", outs)]
    normal = relations.normalize(outs)
    candidates += [("normalize", normal), ("lower(normalize)", relations.lower(normal))]
    candidates.append(("compile rules", relations.normalize(outs, rules=relations.RULESETS["compile"])))
    with_choices = relations.normalize(outs, rules=relations.DEFAULT_RULES + choices)
    candidates += [("choices", with_choices), ("lower(choices)", relations.lower(with_choices))]
    candidates.append(("extracted", _extracted(outs)))
    for r in choices:
        candidates.append((f"+{r.__name__}", relations.lower(relations.normalize(outs, rules=relations.DEFAULT_RULES + (r,)))))
        candidates.append((f"only {r.__name__}", relations.normalize(outs, rules=(r,))))
    distinct: list[tuple[str, list]] = []
    for name, form in candidates:
        if not any(equal_computations(form, f) for _, f in distinct):
            distinct.append((name, form))
    return distinct


def _extracted(outs: list) -> list:
    """What the ``relational`` pass extracts when it saturates (here always, whatever the gain)."""
    from relations.compile.passes import COMPILE_LIMITS, SATURATION_RULES, compile_normalize
    from relations.saturation.costs import node_costs

    normal = compile_normalize(outs)
    egraph = relations.EGraph(SATURATION_RULES)
    egraph.add(normal)
    egraph.run(COMPILE_LIMITS, backward=False)
    return list(egraph.extract(cost=node_costs(), roots=normal, method="greedy").result)


def spearman(a: list[float], b: list[float]) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic) if len(a) > 1 else float("nan")


def check(names: list[str], repeats: int, table_path: Path = TABLE_PATH) -> None:
    from pymc_models import MODELS, logp_dlogp, point_values

    mode = get_default_mode()
    table = CostTable.from_json(json.loads(table_path.read_text()))
    print(f"pytensor {pytensor.__version__}; table: {table.about}")
    print("| model | form | predicted (us) | measured (us) |")
    print("|---|---|---|---|")
    pred, meas, within = [], [], []
    agree = pairs = 0
    for name in names:
        model = MODELS[name]()
        inputs, outs = logp_dlogp(model)
        args = point_values(model)
        sizes = {v: np.shape(a) for v, a in zip(inputs, args)}
        forms = _forms(outs)
        fns = [pytensor.function(inputs, form, mode=mode) for _, form in forms]
        # interleaved rounds, the best of each: a burst of the machine's noise hits one round of
        # every form, not every round of one (the first form measured is not favoured)
        m_m = [float("inf")] * len(fns)
        for _ in range(repeats):
            for i, fn in enumerate(fns):
                m_m[i] = min(m_m[i], best_call_seconds(fn, args, budget=0.03, rounds=3))
        p_m = [measured(form, sizes=sizes, table=table) for _, form in forms]
        same = _compiled_alike(fns)
        for i, ((form_name, _), c, t) in enumerate(zip(forms, p_m, m_m)):
            alike = "" if same[i] == i else f" (compiles as {forms[same[i]][0]})"
            print(f"| {name} | {form_name}{alike} | {c * 1e6:.2f} | {t * 1e6:.2f} |")
        # forms that compile to one function cost the same: their measured times differ by noise
        # only, so each compiled function counts once (its first form)
        firsts = sorted(set(same))
        p_m, m_m = [p_m[i] for i in firsts], [m_m[i] for i in firsts]
        pred += p_m
        meas += m_m
        if len(p_m) >= 3:
            within.append(spearman(p_m, m_m))
        a, n = _agreeing_pairs(p_m, m_m)
        agree, pairs = agree + a, pairs + n
    print()
    print(f"distinct compiled forms: {len(pred)} of {len(names)} models; Spearman (predicted, measured) over all: "
          f"{spearman(pred, meas):.3f}")
    if within:
        print(f"within a model (models with >= 3 distinct compiled forms: {len(within)}): mean Spearman "
              f"{statistics.mean(within):.3f}, min {min(within):.3f}")
    print(f"pairs of forms of one model whose measured times differ by more than {PAIR_MARGIN:.0%}: "
          f"{agree} of {pairs} ordered alike by the prediction")


def _compiled_alike(fns: list) -> list[int]:
    """For each compiled function, the index of the first one with the same compiled graph."""
    from pytensor.graph.basic import equal_computations

    first: list[int] = []
    for i, f in enumerate(fns):
        fg = f.maker.fgraph
        for j in sorted(set(first)):
            other = fns[j].maker.fgraph
            if len(fg.apply_nodes) == len(other.apply_nodes) and equal_computations(
                fg.outputs, other.outputs, fg.inputs, other.inputs
            ):
                first.append(j)
                break
        else:
            first.append(i)
    return first


#: measured times closer than this (relative) are within the noise of the shared machine
PAIR_MARGIN = 0.05


def _agreeing_pairs(pred: list[float], meas: list[float]) -> tuple[int, int]:
    """Of the pairs of forms whose measured times differ by more than :data:`PAIR_MARGIN`: how many the
    prediction orders alike, and how many there are."""
    agree = pairs = 0
    for i in range(len(pred)):
        for j in range(i + 1, len(pred)):
            if abs(meas[i] - meas[j]) > PAIR_MARGIN * min(meas[i], meas[j]):
                pairs += 1
                agree += (pred[i] - pred[j]) * (meas[i] - meas[j]) > 0
    return agree, pairs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="rank correlation on PyMC model forms")
    parser.add_argument("--call-only", action="store_true",
                        help="measure the call overhead again and keep the rest of the table at --out")
    parser.add_argument("--elements", type=int, default=1 << 16)
    parser.add_argument("--out", type=Path, default=TABLE_PATH)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", nargs="*", default=None, help="model names for --check (default: all)")
    parser.add_argument("--table", type=Path, default=TABLE_PATH, help="the table --check predicts with")
    parser.add_argument("--cases", nargs="+", choices=sorted(CASES), default=None,
                        help="measure only these cases and keep the rest of the table at --out")
    args = parser.parse_args(argv)
    if args.check:
        from pymc_models import MODELS, pm

        if pm is None:
            print("PyMC is not installed (pip install -e '.[bench]' on Python >= 3.12): no check")
            return
        check(args.models or list(MODELS), args.repeats, args.table)
        return
    if args.call_only:
        old = CostTable.from_json(json.loads(args.out.read_text()))
        call = call_overhead()
        print(f"call overhead: {call[0] * 1e6:.3f} us per call, {call[1] * 1e6:.3f} us per input "
              f"(was {old.call[0] * 1e6:.3f}, {old.call[1] * 1e6:.3f})")
        table = CostTable(old.entries, old.default, old.about + f"; call overhead fitted on {CALL_INPUTS} inputs",
                          call=call, memory=old.memory)
    elif args.cases:
        table = calibrate(args.elements, args.cases, CostTable.from_json(json.loads(args.out.read_text())))
    else:
        table = calibrate(args.elements)
    args.out.write_text(json.dumps(table.to_json(), indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
