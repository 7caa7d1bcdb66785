"""What ``relations.pymc.logp`` costs: on controls (stock derives) against stock ``pm.logp``, and the
time to derive a spelling stock refuses.

    python benchmarks/pymc_logp.py            # PyMC: Python >= 3.12

Controls: the fastest of alternating rounds of ``relations.pymc.logp(g, v)`` and of
``pm.logp(g, v)`` (graph construction, no compilation), and their ratio (target <= 1.1x: stock
runs first, and a graph only pays more where it transforms a censored variable, where stock's
value is cross-checked).  Failing cases: the time stock takes to fail, and the time
``relations.pymc.logp`` takes to derive (saturation with the measurable rules, the forms tried,
and the cross-check of two derived forms, which compiles both densities).
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pymc as pm  # noqa: E402
import pytensor.tensor as pt  # noqa: E402

import relations.pymc as rpm  # noqa: E402

N = pm.Normal.dist


def _twice(f):
    return lambda: (lambda y: f(y))(N(0.0, 1.0))


CONTROLS = {
    "2 * x": _twice(lambda y: 2 * y),
    "x ** 2": _twice(lambda y: y**2),
    "5 / x": _twice(lambda y: 5 / y),
    "5 - x": _twice(lambda y: 5 - y),
    "exp(2 * x)": _twice(lambda y: pt.exp(2 * y)),
    "2 ** x": _twice(lambda y: 2**y),
    "5 * x + 3": _twice(lambda y: 5 * y + 3),
    "abs(x)": _twice(pt.abs),
    "sum(v)": lambda: pt.sum(N(0, 1, shape=3)),
    "mean(v)": lambda: pt.mean(N(0, 1, shape=3)),
    "clip(x, -1, 1)": _twice(lambda y: pt.clip(y, -1, 1)),
    "clip(x, -1, 1) + 1": _twice(lambda y: pt.clip(y, -1, 1) + 1),
    "concatenate([a, b])": lambda: pt.concatenate([N(0, 1, shape=3), N(1, 1, shape=2)]),
    "log1p(exponential)": lambda: pt.log1p(pm.Exponential.dist(1.0)),
    "where(x > 0, x, x/2)": _twice(lambda y: pt.where(y > 0, y, 0.5 * y)),
}

FAILING = {
    "x + x": _twice(lambda y: y + y),
    "3*x - x": _twice(lambda y: 3 * y - y),
    "x - x/2": _twice(lambda y: y - y / 2),
    "x * x": _twice(lambda y: y * y),
    "x * x * x": _twice(lambda y: y * y * y),
    "exp(x) * exp(x)": _twice(lambda y: pt.exp(y) * pt.exp(y)),
    "sum(v * 2)": lambda: pt.sum(N(0, 1, shape=3) * 2),
    "sum(v + 1)": lambda: pt.sum(N(0, 1, shape=3) + 1),
    "v[0] + v[1] + v[2]": lambda: (lambda w: w[0] + w[1] + w[2])(N(0, 1, shape=3)),
    "where-spelled clip": _twice(lambda y: pt.where(y < -1, -1, pt.where(y > 1, 1, y))),
    "leaky ReLU, x < 0 first": _twice(lambda y: pt.where(y < 0, 0.5 * y, y)),
    "c*a + (1-c)*b": lambda: (lambda c: c * N(-2, 1) + (1 - c) * N(2, 1))(pt.scalar("c", dtype="bool")),
    "stack([a, b])[i, arange(3)]": lambda: pt.stack([N(-2, 1, shape=3), N(2, 1, shape=3)])[pt.lvector("i"), pt.arange(3)],
    "stack([a, b]).T": lambda: pt.stack([N(0, 1, shape=3), N(1, 1, shape=3)]).T,
    "m.flatten()": lambda: N(0, 1, shape=(2, 3)).flatten(),
    "zeros(5)[:3].set(a)[3:].set(b)": lambda: pt.set_subtensor(
        pt.set_subtensor(pt.zeros(5)[:3], N(0, 1, shape=3))[3:], N(1, 1, shape=2)
    ),
}


def _time(fn, graph, value) -> float:
    t = time.perf_counter()
    fn(graph, value)
    return time.perf_counter() - t


def extra_work(graph, repeat: int = 200) -> float:
    """Seconds of the only work ``relations.pymc.logp`` adds to a control that stock derives: the walk
    that asks whether the graph transforms a censored variable (timed alone, free of the noise a
    shared machine puts on the ratio)."""
    t = time.perf_counter()
    for _ in range(repeat):
        rpm.transforms_censoring(graph)
    return (time.perf_counter() - t) / repeat


def controls(rounds: int = 25) -> list[tuple[str, float, float, float]]:
    rows = []
    for name, build in CONTROLS.items():
        graph = build()
        value = graph.type()
        ours, stock = [], []
        for _ in range(rounds):  # alternating, after one warm-up of each
            stock.append(_time(rpm.STOCK["logp"], graph, value))
            ours.append(_time(rpm.logp, graph, value))
        # the fastest round of each: on a shared machine the median moves by 0.2x between runs
        rows.append((name, min(stock[1:]), min(ours[1:]), extra_work(graph)))
    return rows


def failing(rounds: int = 3) -> list[tuple[str, float, float, str]]:
    rows = []
    for name, build in FAILING.items():
        graph = build()
        value = graph.type()
        fail, derive, status = [], [], "derives"
        for _ in range(rounds):
            t = time.perf_counter()
            try:
                rpm.STOCK["logp"](graph, value)
                status = "stock derives"
            except (NotImplementedError, RuntimeError):
                pass
            fail.append(time.perf_counter() - t)
            t = time.perf_counter()
            try:
                rpm.logp(graph, value)
            except (rpm.NotDerivable, rpm.DensityMismatch) as err:
                status = type(err).__name__
            derive.append(time.perf_counter() - t)
        rows.append((name, statistics.median(fail), statistics.median(derive), status))
    return rows


def main() -> None:
    warnings.simplefilter("ignore")
    rows = controls()
    print(f"{'control':32s} {'stock ms':>9s} {'ours ms':>9s} {'ratio':>6s} {'added us':>9s} {'added/stock':>11s}")
    for name, s, o, e in rows:
        print(f"{name:32s} {s * 1e3:9.2f} {o * 1e3:9.2f} {o / s:6.2f} {e * 1e6:9.1f} {e / s:11.4f}")
    ratios = [o / s for _, s, o, _ in rows]
    added = [e / s for _, s, _, e in rows]
    print(f"{'median':32s} {'':9s} {'':9s} {statistics.median(ratios):6.2f} {'':9s} {statistics.median(added):11.4f}"
          f"  (ratio max {max(ratios):.2f}, added max {max(added):.4f})")
    print()
    print(f"{'failing case':32s} {'stock fails ms':>14s} {'ours derives ms':>16s}  status")
    for name, f, d, status in failing():
        print(f"{name:32s} {f * 1e3:14.1f} {d * 1e3:16.1f}  {status}")


if __name__ == "__main__":
    main()
