"""Regimes (Herbie's branch inference): where no single form is the most accurate on every input, a switch.

``log(0.5 * erfc(-x / sqrt(2)))`` (the normal log-CDF) has no form accurate everywhere in the
numerics theory: ``log(erfcx(-x/sqrt(2))) - x**2/2 + log(0.5)`` keeps its digits for ``x < 0``
and overflows for ``x > 37``, the written form keeps them for ``x > 0`` and underflows to
``-inf`` below ``x = -38``.  Herbie (Panchekha et al., PLDI 2015, section 4.5; ``src/core/regimes.rkt``)
joins such forms with a branch on an input.  :func:`infer_regimes` does the same on an e-graph:

1. **Candidates.**  The forms of each root: the input as written, the extraction chosen on all
   points (:func:`relations.saturation.accuracy.measured_choice`), and, per float input, the
   extraction chosen on each half and each quarter of the points sorted along that input
   (the forms most accurate on a range, where the one chosen on all points is a compromise);
   for a root of one float input, its Taylor polynomial at 0 (:mod:`relations.saturation.series`,
   Herbie's series expansion), read where it is exact.
2. **Error per point.**  Each candidate's bits of error at every sampled point, against the
   root's exact values (mpmath).
3. **Split indices** (Herbie's ``err-lsts->split-indices``).  Along each input, the points
   sorted by it; dynamic programming gives the segmentation of least total error, each further
   segment charged :data:`SPLIT_PENALTY` bits per point (Herbie's ``min-weight``: the number of
   points), splits only between distinct values.  The input with the least total error wins.
   Unlike Herbie, a form is charged :data:`WORSE_BITS` at a point where it is worse than the
   input by more than a bit: :func:`relations.stabilize` keeps a result only if it is worse at no
   point, so the normal log-CDF gets three regimes (``erfcx`` below, the input as written in the
   middle, the reflection above) where Herbie's penalty alone would settle for two.
4. **Split points** (Herbie's ``binary-search-floats``).  Between the last point of one
   segment and the first of the next, a bisection over the floats (by their ordinals)
   compares the two forms' errors with the input at the midpoint (the other inputs as sampled),
   against exact values, until the interval is :data:`BISECT_ULPS` ulps wide; its shortest
   decimal is the threshold ``t``.
5. **The switch.**  ``switch(x <= t0, f0, switch(x <= t1, f1, f2))``.  Each form reads its input
   clipped to its own regime (``f0(minimum(x, t0))``, ``f1(clip(x, t0, t1))``, ...): equal where
   the form is taken, and the form not taken never sees an input where it overflows, so neither
   its values nor its gradient (a ``0 * inf`` through a switch) become NaN.

The result is checked like any other (:func:`relations.stabilize`) and, besides, at inputs on
both sides of every threshold and at the extremes of every regime against exact values: it is
kept only where it is no worse than the input there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Variable
from pytensor.graph.replace import graph_replace, vectorize_graph
from pytensor.graph.traversal import toposort

from graph_bridge.exact import NotExact, exact_values, round_to
from graph_bridge.float_error import bits_of_error, ordinals
from graph_bridge.nodes import elementwise_in_inputs
from relations.saturation.accuracy import (
    MAX_BITS,
    ClassExact,
    Points,
    build_choice,
    measured_choice,
)
from relations.saturation.engine.egraph import EGraph

__all__ = [
    "BISECT_ULPS", "CHECK_BITS", "MAX_EXTRACTIONS", "REFINE", "SPLIT_PENALTY", "WORSE_BITS", "Regimes",
    "build_switch", "check_points", "exact_at", "float_values", "infer_regimes", "join_points",
    "point_bits", "regimes_apply",
    "shortest_between", "split_indices",
]

#: Bits of error (per point of the sample) a further regime must save: Herbie's ``min-weight``.
SPLIT_PENALTY = 1.0
#: The bisection stops when the interval holds at most this many floats (Herbie: ``2**48`` in binary64);
#: a fraction of the dtype's mantissa, so the same relative width in float32.
BISECT_ULPS = {"float64": 2**48, "float32": 2**19, "float16": 2**6}
#: The charge (bits) of a form at a point where it is worse than the input: more than any split saves.
WORSE_BITS = 1e6
#: How much worse than the input (bits) a regime may be at :func:`check_points`: a few ulps, the noise of a
#: form accurate on its regime (``log(erfcx(z)) - z**2`` is 3 ulps off at ``z = 1.6``, where the input is exact).
CHECK_BITS = 2.0
#: Rounds of segmenting again with the points where the check failed.
REFINE = 3
#: At most this many extractions on parts of the points (each one :func:`measured_choice`).
MAX_EXTRACTIONS = 8
#: The sampled rows the other inputs take while one input is bisected (Herbie's ``binary-search-test-points``).
BISECT_ROWS = 8


@dataclass(frozen=True)
class Regimes:
    """Regimes of one output: ``variable`` is split at ``thresholds`` (ascending); ``forms[k]`` is taken where
    ``thresholds[k-1] < variable <= thresholds[k]``; ``graph`` is the switch built of them."""

    variable: Variable
    thresholds: tuple[float, ...]
    forms: tuple[Variable, ...]
    graph: Variable

    def __repr__(self) -> str:
        parts = [f"{f} for {self.variable} <= {t:g}" for f, t in zip(self.forms, self.thresholds, strict=False)]
        return "Regimes(" + "; ".join([*parts, f"{self.forms[-1]} beyond"]) + ")"


def regimes_apply(outputs: Sequence[Variable], points: Points) -> bool:
    """Whether regimes can be inferred: every output elementwise in the inputs (:func:`elementwise_in_inputs`),
    and every input one value per point."""
    if not elementwise_in_inputs(outputs):
        return False
    return points.n > 1 and all(v.reshape(points.n, -1).shape[1] == 1 for v in points.values)


def join_points(a: Points, b: Points) -> Points:
    """The points of ``a`` and then those of ``b`` (the same inputs).  Where an input's points have other
    shapes in each (the grid's one element a point beside draws of two), each is broadcast to both: a point
    of one element stands for that value in every element."""
    if a.inputs != b.inputs:
        raise ValueError("b: the points are of other inputs")
    values = []
    for x, y in zip(a.values, b.values, strict=True):
        if x.shape[1:] != y.shape[1:]:
            shape = np.broadcast_shapes(x.shape[1:], y.shape[1:])
            x, y = np.broadcast_to(x, x.shape[:1] + shape), np.broadcast_to(y, y.shape[:1] + shape)
        values.append(np.concatenate([x, y]))
    return Points(a.inputs, tuple(values), a.n + b.n, a.drawn + b.drawn, a.domain or b.domain).within()


def _column(points: Points, k: int) -> np.ndarray:
    return points.values[k].reshape(points.n, -1)[:, 0]


class _SubsetExact:
    """A :class:`ClassExact` restricted to some of its points (the exact values computed once, on all)."""

    def __init__(self, full: ClassExact, idx: np.ndarray) -> None:
        self.full, self.idx, self.eg = full, idx, full.eg
        self.known: dict[int, np.ndarray | None] = {}

    def get(self, c: int) -> np.ndarray | None:
        c = self.eg.find(c)
        if c not in self.known:
            e = self.full.get(c)
            self.known[c] = None if e is None else e[self.idx]
        return self.known[c]


def float_values(outputs: Sequence[Variable], points: Points) -> list[np.ndarray]:
    """The float values of ``outputs`` at the points, Op by Op as written (``perform``, no rewrite)."""
    batch = points.batched_inputs()
    outs = vectorize_graph(list(outputs), replace=batch)
    env: dict[Any, Any] = {batch[v]: np.asarray(x, dtype=v.type.dtype) for v, x in zip(points.inputs, points.values,
                                                                                       strict=True)}
    with np.errstate(all="ignore"):
        for node in toposort(outs):
            storage: list[list[Any]] = [[None] for _ in node.outputs]
            node.op.perform(node, [env[i] if i in env else i.data for i in node.inputs],  # type: ignore[attr-defined]
                            storage)
            env.update((o, s[0]) for o, s in zip(node.outputs, storage, strict=True))
    return [np.asarray(env[o]) if o in env else np.asarray(o.data) for o in outs]  # type: ignore[attr-defined]


def point_bits(values: np.ndarray, exact: np.ndarray | None, n: int) -> np.ndarray:
    """Bits of error per point (the mean over the point's entries; 0 where the exact value is unknown)."""
    if exact is None:
        return np.full(n, np.inf)
    v, e = np.broadcast_to(values, exact.shape) if values.shape != exact.shape else values, exact
    if v.dtype != e.dtype:
        return np.full(n, np.inf)
    bits = np.zeros(e.shape)
    known = ~np.isnan(e)
    bits[known] = bits_of_error(np.ascontiguousarray(v[known]), e[known])
    return bits.reshape(n, -1).mean(axis=1)


def exact_at(outputs: Sequence[Variable], points: Points) -> list[np.ndarray | None]:
    """The exact values of ``outputs`` at the points, rounded to their dtypes (``None`` where an Op has no exact
    meaning; NaN where unknown)."""
    batch = points.batched_inputs()
    outs = vectorize_graph(list(outputs), replace=batch)
    given = {batch[v]: x for v, x in zip(points.inputs, points.values, strict=True)}
    try:
        exact, _ = exact_values(outs, given, rows=True, max_bits=MAX_BITS)
    except NotExact:
        return [None] * len(outs)
    return [round_to(e, o.type.dtype) for e, o in zip(exact, outputs, strict=True)]


def split_indices(errors: np.ndarray, values: np.ndarray, penalty: float) -> tuple[float, list[tuple[int, int, int]]]:
    """Herbie's ``err-lsts->split-indices``: ``errors[k, i]`` is candidate ``k``'s error at the ``i``-th point
    sorted by ``values``; the segmentation ``[(candidate, start, stop), ...]`` of least total error, each
    segment after the first charged ``penalty``, segments only between distinct values; and that total."""
    k, n = errors.shape
    psum = np.concatenate([np.zeros((k, 1)), np.cumsum(errors, axis=1)], axis=1)
    can = [True] + [bool(values[i - 1] < values[i]) for i in range(1, n)]  # a segment may start at i
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
    for j in range(1, n + 1):
        for i in range(j):
            if not can[i] or not np.isfinite(best[i]):
                continue
            seg = psum[:, j] - psum[:, i]
            c = int(np.argmin(seg))
            cost = best[i] + seg[c] + (penalty if i else 0.0)
            if cost < best[j]:
                best[j], back[j] = cost, (i, c)
    segs: list[tuple[int, int, int]] = []
    j = n
    while j > 0:
        i, c = back[j]
        segs.append((c, i, j))
        j = i
    segs.reverse()
    merged: list[tuple[int, int, int]] = []  # neighbours with the same candidate are one segment
    for c, i, j in segs:
        if merged and merged[-1][0] == c:
            merged[-1] = (c, merged[-1][1], j)
        else:
            merged.append((c, i, j))
    return float(best[n]), merged


def _from_ordinal(o: int, dtype: str) -> float:
    """The float of ``dtype`` at ordinal ``o`` (the inverse of :func:`graph_bridge.float_error.ordinals`)."""
    kind = {"float64": np.int64, "float32": np.int32, "float16": np.int16}[dtype]
    width = {"float64": 64, "float32": 32, "float16": 16}[dtype]
    raw = o if o >= 0 else -o - (1 << (width - 1))
    return float(np.array([raw], dtype=kind).view(dtype)[0])


def _ordinal(v: float, dtype: str) -> int:
    return int(ordinals(np.array([v], dtype=dtype))[0])


def shortest_between(lo: float, hi: float, dtype: str) -> float:
    """The float of ``dtype`` in ``[lo, hi]`` with the fewest significant decimal digits (Herbie's
    ``bigfloat-interval-shortest``): a threshold that reads as written."""
    if lo <= 0.0 <= hi:
        return 0.0
    for digits in range(1, 18):
        for v in (lo, hi, (lo + hi) / 2):
            r = float(np.asarray(float(f"{Decimal(v):.{digits - 1}e}"), dtype=dtype))
            if lo <= r <= hi:
                return r
    return float(np.asarray(lo, dtype=dtype))


class _Bisection:
    """Bisection of the threshold between two forms along input ``k``, on exact values (Herbie's ``find-split``)."""

    def __init__(self, outputs: Sequence[Variable], points: Points, k: int, rows: np.ndarray) -> None:
        self.outputs, self.points, self.k, self.rows = list(outputs), points, k, rows
        self.dtype = str(points.values[k].dtype)

    def at(self, t: float) -> Points:
        """The sample's ``rows`` with input ``k`` set to ``t``."""
        vals = [v[self.rows] for v in self.points.values]
        vals[self.k] = np.full_like(vals[self.k], t)
        return Points(self.points.inputs, tuple(vals), len(self.rows), domain=self.points.domain)

    def error(self, forms: Sequence[Variable], t: float) -> list[float]:
        pts = self.at(t)
        exact = exact_at(self.outputs, pts)[0]
        if exact is None or np.isnan(exact).all():
            return [0.0 for _ in forms]
        out = []
        for f in forms:
            try:
                (vals,) = float_values([f], pts)
            except Exception:  # noqa: BLE001 - a form whose Op refuses the values: the worst error
                out.append(float("inf"))
                continue
            out.append(float(point_bits(vals, exact, pts.n).sum()))
        return out

    def split(self, left: Variable, right: Variable, p1: float, p2: float) -> float:
        """A threshold in ``[p1, p2)``: ``left`` is no less accurate below it, ``right`` above it."""
        lo, hi = _ordinal(p1, self.dtype), _ordinal(p2, self.dtype)
        width = BISECT_ULPS.get(self.dtype, 2**48)
        while hi - lo > width:
            mid = lo + (hi - lo) // 2
            m = _from_ordinal(mid, self.dtype)
            a, b, w = self.error([left, right, self.outputs[0]], m)
            tol = float(self.rows.size)  # a bit per row: the same charge the segmentation makes
            a, b = a + (WORSE_BITS if a > w + tol else 0.0), b + (WORSE_BITS if b > w + tol else 0.0)
            if a < b:
                lo = mid
            elif b < a:
                hi = mid
            else:  # both forms equally accurate here: any threshold between them does
                break
        a_, b_ = _from_ordinal(lo, self.dtype), _from_ordinal(hi, self.dtype)
        t = shortest_between(a_, b_, self.dtype)
        return t if t < p2 else a_


def _clipped(form: Variable, var: Variable, lo: float | None, hi: float | None) -> Variable:
    """``form`` reading ``var`` clipped to ``[lo, hi]`` (an end ``None`` is open)."""
    c: Variable = var
    if lo is not None:
        c = pt.maximum(c, np.asarray(lo, dtype=var.type.dtype))
    if hi is not None:
        c = pt.minimum(c, np.asarray(hi, dtype=var.type.dtype))
    if c is var:
        return form
    return graph_replace(form, {var: pt.specify_shape(c, var.type.shape) if var.type.ndim else c}, strict=False)


def build_switch(var: Variable, thresholds: Sequence[float], forms: Sequence[Variable], like: Variable) -> Variable:
    """``switch(var <= t0, f0, switch(var <= t1, f1, ...))`` with each form reading ``var`` clipped to its regime."""
    ts = list(thresholds)
    ends = [None, *ts]
    parts = [_clipped(f, var, lo, hi) for f, lo, hi in zip(forms, ends, [*ts, None], strict=True)]
    out = parts[-1]
    for t, f in zip(reversed(ts), reversed(parts[:-1]), strict=True):
        out = pt.switch(pt.le(var, np.asarray(t, dtype=var.type.dtype)), f, out)
    out = pt.cast(out, like.type.dtype) if out.type.dtype != like.type.dtype else out
    if out.type.broadcastable != like.type.broadcastable:
        out = pt.broadcast_to(out, pt.shape(like)) if like.type.ndim >= out.type.ndim else out
    return out


def _candidates(eg: EGraph, roots: Sequence[int], points: Points, exact: ClassExact, outputs: Sequence[Variable],
                global_roots: Sequence[Variable]) -> list[list[Variable]]:
    """Per root, its candidate forms: the input as written, the extraction on all points, the extractions on
    the halves and quarters of the points sorted along each float input (distinct forms only), and for a root
    of one float input its Taylor polynomials at 0, at infinity and at its cancellation points where they are exact
    (:func:`relations.saturation.series.series_forms`, Herbie's series expansion)."""
    from relations.saturation.series import series_forms

    found: list[list[Variable]] = [[o, g] for o, g in zip(outputs, global_roots, strict=True)]
    for r, o in enumerate(outputs):
        found[r].extend(series_forms(o))
    seen: set[tuple] = set()
    made = 0
    for k in range(len(points.inputs)):
        order = np.argsort(_column(points, k), kind="stable")
        n = len(order)
        parts = [order[: n // 2], order[n // 2:]] + [order[q * n // 4:(q + 1) * n // 4] for q in range(4)]
        for idx in parts:
            key = tuple(sorted(idx.tolist()))
            if key in seen or len(idx) < 2 or made >= MAX_EXTRACTIONS:
                continue
            seen.add(key)
            made += 1
            choice = measured_choice(eg, points.rows(np.sort(idx)), _SubsetExact(exact, np.sort(idx)))  # type: ignore[arg-type]
            try:
                forms = build_choice(eg, choice, roots, {})
            except ValueError:
                continue
            for r, f in enumerate(forms):
                found[r].append(f)
    return found


def _distinct(forms: list[Variable], bits: list[np.ndarray], values: list[np.ndarray]) -> tuple[list, list]:
    keep_f: list[Variable] = []
    keep_b: list[np.ndarray] = []
    keep_v: list[np.ndarray] = []
    for f, b, v in zip(forms, bits, values, strict=True):
        if any(v.shape == w.shape and np.array_equal(v, w, equal_nan=True) for w in keep_v):
            continue
        keep_f.append(f)
        keep_b.append(b)
        keep_v.append(v)
    return keep_f, keep_b


def _error_matrix(forms: Sequence[Variable], out: Variable, points: Points) -> np.ndarray:
    """``errors[k, i]``: bits of error of ``forms[k]`` at point ``i`` against ``out``'s exact values."""
    ref = exact_at([out], points)[0]
    rows = []
    for f in forms:
        try:
            (v,) = float_values([f], points)
            rows.append(point_bits(v, ref, points.n))
        except Exception:  # noqa: BLE001 - a form whose Op refuses the values: the worst error
            rows.append(np.full(points.n, np.inf))
    errors = np.array(rows)
    errors[~np.isfinite(errors)] = 64.0
    return errors


def _segments(forms: Sequence[Variable], out: Variable, points: Points) -> tuple[int, list] | None:
    """The input to split on and the segmentation (:func:`split_indices`) of least total error; a form is
    charged :data:`WORSE_BITS` at a point where it is worse than the input (``forms[0]``) by more than a bit."""
    errors = _error_matrix(forms, out, points)
    fit = errors + np.where(errors > errors[0] + 1.0, WORSE_BITS, 0.0)
    best: tuple[float, int, list] | None = None
    for k in range(len(points.inputs)):
        col = _column(points, k)
        order = np.argsort(col, kind="stable")
        total, segs = split_indices(fit[:, order], col[order], SPLIT_PENALTY * points.n)
        if best is None or total < best[0]:
            best = (total, k, segs)
    return None if best is None else (best[1], best[2])


def _regimes_of(out: Variable, forms: Sequence[Variable], points: Points,
                known: Sequence[Variable] = ()) -> Regimes | Variable | None:
    """Regimes of one output among ``forms`` (the input as written first), refined where the check fails; where
    one form is best everywhere, that form unless it is the input or one of ``known`` (then ``None``)."""
    pts = points
    for _ in range(REFINE):
        found = _segments(forms, out, pts)
        if found is None:
            return None
        k, segs = found
        if len(segs) == 1:
            best = forms[segs[0][0]]
            return None if best is forms[0] or any(best is v for v in known) else best
        col = _column(pts, k)
        order = np.argsort(col, kind="stable")
        bis = _Bisection([out], points, k, np.arange(min(points.n, BISECT_ROWS)) if len(points.inputs) > 1
                         else np.arange(1))
        ts = [bis.split(forms[ca], forms[cb], float(col[order[stop - 1]]), float(col[order[stop]]))
              for (ca, _, stop), (cb, _, _) in zip(segs, segs[1:], strict=False)]
        chosen = tuple(forms[c] for c, _, _ in segs)
        reg = Regimes(points.inputs[k], tuple(ts), chosen, build_switch(points.inputs[k], ts, chosen, out))
        at = check_points([out], [reg], points)
        if at is None:
            return reg
        errors = _error_matrix([out, reg.graph], out, at)
        bad = np.flatnonzero(errors[1] > errors[0] + CHECK_BITS)
        if not bad.size:
            return reg
        pts = join_points(pts, at.rows(bad))  # the points where it failed join the fit: segment again
    return None


def infer_regimes(eg: EGraph, roots: Sequence[int], outputs: Sequence[Variable], global_roots: Sequence[Variable],
                  points: Points, exact: ClassExact) -> list[Regimes | Variable | None]:
    """Per output, the regimes of least total error that are worse than the input nowhere on the points and
    on :func:`check_points` (a :class:`Regimes`), else the single candidate of least total error when it is
    neither the input nor the extraction on all points (a variable), else ``None``."""
    per_root = _candidates(eg, roots, points, exact, outputs, global_roots)
    result: list[Regimes | Variable | None] = []
    for out, forms, extracted in zip(outputs, per_root, global_roots, strict=True):
        vals = []
        for f in forms:
            try:
                vals.append(float_values([f], points)[0])
            except Exception:  # noqa: BLE001 - a form whose Op refuses the values is no candidate
                vals.append(np.full(1, np.nan))
        forms_d, _ = _distinct(forms, [np.zeros(1)] * len(forms), vals)
        if len(forms_d) < 2:
            result.append(None)
            continue
        result.append(_regimes_of(out, forms_d, points, known=(extracted,)))
    return result


def check_points(outputs: Sequence[Variable], regimes: Sequence[Regimes | Variable | None], points: Points,
                 rows: int = 4) -> Points | None:
    """Points on both sides of every threshold (the threshold, its neighbouring floats, and a relative step of
    ``2**-10`` each way) and at the extremes of every regime (``+-1e300``, ``+-1e-300`` and ``+-1`` where the
    regime holds them), the other inputs from the first ``rows`` of the sample: where a regime's values are
    checked against exact values."""
    cols: list[list[np.ndarray]] = [[] for _ in points.inputs]
    base = min(points.n, rows)
    for reg in regimes:
        if not isinstance(reg, Regimes):
            continue
        k = points.inputs.index(reg.variable)
        dtype = str(points.values[k].dtype)
        info = np.finfo(dtype)
        probes: list[float] = []
        for t in reg.thresholds:
            tt = np.asarray(t, dtype=dtype)
            probes += [float(tt), float(np.nextafter(tt, -np.inf)), float(np.nextafter(tt, np.inf)),
                       float(tt - abs(tt) * 2**-10), float(tt + abs(tt) * 2**-10)]
        ends = [-float(info.max), *reg.thresholds, float(info.max)]
        for lo, hi in zip(ends, ends[1:], strict=False):
            for m in (-1e300, -1.0, -1e-300, 1e-300, 1.0, 1e300, -float(info.tiny), float(info.tiny)):
                m = float(np.asarray(m, dtype=dtype)) if abs(m) <= float(info.max) else m
                if lo < m <= hi:
                    probes.append(m)
        for p in probes:
            for j in range(base):
                for i, v in enumerate(points.values):
                    cols[i].append(np.full_like(v[j], p) if i == k else v[j])
    if not cols or not cols[0]:
        return None
    found = Points(points.inputs, tuple(np.stack(c) for c in cols), len(cols[0]), domain=points.domain).within()
    return found if found.n else None
