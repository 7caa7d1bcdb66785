"""Stock ``pm.logp`` and ``relations.pymc.logp`` on PyMC corpora with independent reference densities.

    python benchmarks/pymc_corpus.py              # tests/pymc_corpus.py's CORPUS_NEW + test_pymc_logp's CORPUS
    python benchmarks/pymc_corpus.py --new        # CORPUS_NEW only
    python benchmarks/pymc_corpus.py --heldout    # HELDOUT (kept aside until the rules are written)

PyMC 6: Python >= 3.12.  For every case both derive the log-density of the case's graph and evaluate
it at the case's points against the reference (rtol 1e-6, atol 1e-9; a vector case's joint value where
the reference is one), and each outcome is classified:

- stock: ``right`` / ``raises`` (derivation) / ``wrong`` (a value differs, or the density raises when
  evaluated);
- ours: ``right`` / ``raises <Error>`` (``NotDerivable``, ``BroadcastRandomVariable``,
  ``DensityMismatch`` or another error, named) / ``WRONG SILENTLY`` (returned, and a value differs or
  it raises when evaluated).

A case is ``ok`` where ours does what its kind asks: ``fails`` derives right; ``control`` derives
right and equals stock; ``wrong`` derives right or raises (never a value returned silently);
``underivable`` raises ``NotDerivable`` (or derives right).  The per-case table, a summary by kind,
and the cases that are not ``ok`` are printed.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

if sys.version_info < (3, 12):
    sys.exit("benchmarks/pymc_corpus.py needs PyMC 6: Python >= 3.12")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
import pytensor  # noqa: E402

import relations.pymc as rpm  # noqa: E402

KINDS = ("fails", "control", "wrong", "underivable")


@dataclass
class Outcome:
    status: str  # right / raises / wrong
    detail: str = ""
    values: list | None = None  # the derived density at the case's points (when evaluated)


def _evaluate(lp, value, givens, points) -> list:
    fn = pytensor.function([value, *givens], lp, mode="FAST_COMPILE", on_unused_input="ignore")
    return [np.asarray(fn(np.asarray(v, dtype=value.dtype), *givens.values())) for v in points]


def _matches(got, ref) -> bool:
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    if got.shape != ref.shape:  # a joint reference: compare the joint value
        got, ref = np.sum(got), np.sum(ref)
    return bool(np.all(np.isclose(got, ref, rtol=1e-6, atol=1e-9) | (np.isneginf(got) & np.isneginf(ref))))


def _checks(case, givens) -> list[tuple[dict, object]]:
    """(givens, reference) pairs: the case's own, and ``extra["also"]`` (the same density at other data)."""
    pairs = [(givens, case.reference)]
    if "also" in case.extra:
        pairs.append(case.extra["also"])
    return pairs


def run(case, logp_fn) -> Outcome:
    graph, givens = case.build()
    value = graph.type()
    try:
        lp = logp_fn(graph, value)
    except Exception as err:  # noqa: BLE001 - the outcome names the error
        return Outcome("raises", type(err).__name__)
    values = []
    for inputs, ref in _checks(case, givens):
        try:
            got = _evaluate(lp, value, inputs, case.values)
        except Exception as err:  # noqa: BLE001
            return Outcome("wrong", f"raises when evaluated ({type(err).__name__})")
        values.extend(got)
        bad = [v for v, g in zip(case.values, got) if not _matches(g, ref(np.asarray(v)))]
        if bad:
            return Outcome("wrong", f"differs at {np.asarray(bad[0]).tolist()}", values)
    return Outcome("right", values=values)


def _ok(kind: str, stock: Outcome, ours: Outcome) -> bool:
    if kind == "fails":
        return ours.status == "right"
    if kind == "control":
        return ours.status == "right" and stock.values is not None and all(
            np.allclose(a, b, rtol=1e-12, equal_nan=True) for a, b in zip(ours.values or [], stock.values))
    if kind == "wrong":
        return ours.status in ("right", "raises")
    return ours.status == "right" or ours.detail in ("NotDerivable", "BroadcastRandomVariable")


def _ours_label(o: Outcome) -> str:
    if o.status == "raises":
        return f"raises {o.detail}"
    if o.status == "wrong":
        return f"WRONG SILENTLY ({o.detail})"
    return "right"


def _stock_label(o: Outcome) -> str:
    return o.status if o.status == "right" else f"{o.status} ({o.detail})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--heldout", action="store_true", help="the held-out cases (pymc_corpus.HELDOUT)")
    group.add_argument("--new", action="store_true", help="pymc_corpus.CORPUS_NEW only")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    logging.getLogger("pytensor").setLevel(logging.CRITICAL)
    logging.getLogger("pymc").setLevel(logging.CRITICAL)

    from pymc_corpus import CORPUS_NEW, HELDOUT
    from test_pymc_logp import CORPUS

    if args.heldout:
        cases, label = HELDOUT, "HELDOUT"
    elif args.new:
        cases, label = CORPUS_NEW, "CORPUS_NEW"
    else:
        cases, label = CORPUS_NEW + CORPUS, "CORPUS_NEW + test_pymc_logp.CORPUS"

    rows = []
    print(f"{label}: {len(cases)} cases")
    print(f"{'case':56s} {'kind':11s} {'stock':34s} {'ours':44s} {'s':>5s} ok")
    for case in cases:
        stock = run(case, rpm.STOCK["logp"])
        t = time.perf_counter()
        ours = run(case, rpm.logp)
        seconds = time.perf_counter() - t
        ok = _ok(case.kind, stock, ours)
        rows.append((case, stock, ours, ok))
        print(f"{case.name[:56]:56s} {case.kind:11s} {_stock_label(stock)[:34]:34s} {_ours_label(ours)[:44]:44s} "
              f"{seconds:5.1f} {'ok' if ok else 'MISS'}", flush=True)

    print()
    head = ("kind", "cases", "stock raises", "stock wrong", "stock right", "ours right", "ours raises",
            "wrong returned silently", "controls equal stock", "ok")
    print(" | ".join(head))
    print(" | ".join("---" for _ in head))
    for kind in (*KINDS, "all"):
        sel = [r for r in rows if kind in ("all", r[0].kind)]
        if not sel:
            continue
        controls = [r for r in sel if r[0].kind == "control"]
        cells = [kind, len(sel),
                 sum(r[1].status == "raises" for r in sel), sum(r[1].status == "wrong" for r in sel),
                 sum(r[1].status == "right" for r in sel), sum(r[2].status == "right" for r in sel),
                 sum(r[2].status == "raises" for r in sel), sum(r[2].status == "wrong" for r in sel),
                 f"{sum(r[3] for r in controls)}/{len(controls)}" if controls else "-", sum(r[3] for r in sel)]
        print(" | ".join(str(c) for c in cells))

    print()
    print("ours raises, by error:", end=" ")
    errors: dict[str, int] = {}
    for _, _, ours, _ in rows:
        if ours.status == "raises":
            errors[ours.detail] = errors.get(ours.detail, 0) + 1
    print(", ".join(f"{k} {v}" for k, v in sorted(errors.items())) or "none")
    missed = [r for r in rows if not r[3]]
    print(f"\nnot ok ({len(missed)}): wrong returned silently, or not what the kind asks")
    for case, stock, ours, _ in missed:
        print(f"  [{case.kind}] {case.name}: ours {_ours_label(ours)}; stock {_stock_label(stock)}  <- {case.source or case.why}")


if __name__ == "__main__":
    main()
