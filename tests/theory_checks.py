"""Checks every identity of a rule family keeps: forward, backward, both sides given, exact values on its domain.

:func:`instance` builds a left and a right side of a rule as PyTensor graphs: each pattern
variable becomes a graph of its own float vector input, of the first *kind* (:data:`KINDS`,
in order: any real, positive, negative, in (0, 1), above 1, non-negative, in (-1, 1)) for
which every guard of the rule holds (the range guards read :func:`graph_bridge.intervals.interval_of`,
so ``exp(x)`` is positive and ``x`` is not).  :func:`exact_mismatches` evaluates both sides
with mpmath (:func:`graph_bridge.exact.exact_values`) at inputs across the reals, moderate and
extreme, and returns the points where they differ: an identity holds where both sides are
the same real number, or both are undefined (NaN) or the same infinity.  A point where one
side's exact value is unknown (its terms cancel beyond the precision bound: ``sinh(-a) cosh(a)
+ cosh(-a) sinh(a)`` is 0, or a number below ``2**-4096`` of its terms) is not compared.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import equal_computations

from graph_bridge.exact import exact_values, independent_rows
from relations import patterns as p
from relations.patterns.guards import Guard

#: The kinds of graph a pattern variable is instantiated with, in the order they are tried.
KINDS: dict[str, Callable[[Any], Any]] = {
    "real": lambda x: x,
    "positive": pt.exp,
    "negative": lambda x: -pt.exp(x),
    "unit": pt.sigmoid,
    "above_one": lambda x: 1 + pt.exp(x),
    "nonnegative": pt.sqr,
    "symmetric_unit": pt.tanh,
    "constant": lambda x: pt.constant(np.array([0.75]), name="c"),  # the guard is_constant (x unused)
}

#: Inputs the exact check evaluates both sides at: moderate values, and extremes of each sign.
POINTS = np.concatenate([
    np.random.default_rng(20261202).normal(0.0, 2.0, 24),
    [0.0, 0.5, -0.5, 1.0, -1.0, 1e-8, -1e-8, 1e-30, 7.0, -7.0, 30.0, -30.0, 300.0, -300.0],
])


def _vars(pattern: Any) -> list[p.PatternVar]:
    out: list[p.PatternVar] = []

    def walk(t: Any) -> None:
        if isinstance(t, p.PatternVar):
            if t not in out:
                out.append(t)
        elif isinstance(t, p.Node):
            for a in t.args:
                walk(a)

    walk(pattern)
    return out


def _guards(rule: Any) -> list[Guard]:
    where = rule.where if isinstance(rule.where, tuple) else (rule.where,)
    return [g for g in where if isinstance(g, Guard)]


def instance(rule: Any, dtype: str = "float64") -> tuple[Any, Any, list[Any], dict[str, str]]:
    """``(lhs, rhs, inputs, kinds)``: the rule's two sides over the first kinds of leaves its guards accept.

    Raises ``AssertionError`` naming the rule when no combination of :data:`KINDS` satisfies
    its guards (add a kind, or the guard cannot hold)."""
    names = _vars(rule.lhs)
    inputs = [pt.vector(v.name, dtype=dtype) for v in names]
    guards = _guards(rule)
    for combo in itertools.product(KINDS, repeat=len(names)):
        leaves = {v: KINDS[k](x) for v, k, x in zip(names, combo, inputs, strict=True)}
        values = {v.name: leaves[v] for v in names}
        if not all(g.test({n: values[n] for n in g.names}) for g in guards):
            continue
        try:
            lhs = p.build(rule.lhs, leaves.__getitem__)
            rhs = p.build(rule.rhs, leaves.__getitem__)
        except Exception:  # noqa: BLE001,S112 - these leaves do not fit the patterns' types: try the next kinds
            continue
        return lhs, rhs, inputs, {v.name: k for v, k in zip(names, combo, strict=True)}
    raise AssertionError(f"{rule.__name__}: no kinds of {list(KINDS)} satisfy its guards {guards}")


def _same(a: Any, b: Any, rtol: float) -> bool:
    if mp.isnan(a) or mp.isnan(b):
        return bool(mp.isnan(a) and mp.isnan(b))
    if mp.isinf(a) or mp.isinf(b):
        return bool(a == b)
    return bool(abs(a - b) <= rtol * max(abs(a), abs(b)) or abs(a - b) < mp.mpf(10) ** -300)


def exact_mismatches(lhs: Any, rhs: Any, inputs: list[Any], rtol: float = 1e-12) -> list[tuple]:
    """The input points where the exact values of ``lhs`` and ``rhs`` differ: ``(point, lhs value, rhs value)``.

    Each input takes every value of :data:`POINTS` in turn against a shuffled copy for the others."""
    [bad] = pair_mismatches([(lhs, rhs)], inputs, rtol)
    return bad


def pair_mismatches(pairs: list[tuple[Any, Any]], inputs: list[Any], rtol: float = 1e-12) -> list[list[tuple]]:
    """:func:`exact_mismatches` of each pair of graphs over the same ``inputs``, evaluated together: each
    distinct graph once (graphs of equal computations are one), in one :func:`graph_bridge.exact.exact_values`
    call, whose rows (the points) are evaluated again at a higher precision only where they need it."""
    rng = np.random.default_rng(7)
    cols = [POINTS] + [rng.permutation(POINTS) for _ in inputs[1:]]
    graphs: list[Any] = []

    def slot(g: Any) -> int:
        for k, h in enumerate(graphs):
            if g is h or equal_computations([g], [h]):
                return k
        graphs.append(g)
        return len(graphs) - 1

    slots = [(slot(a), slot(b)) for a, b in pairs]
    rows = independent_rows(inputs, graphs, [np.shape(c) for c in cols])
    values, known = exact_values(graphs, dict(zip(inputs, cols, strict=True)), rows=rows)
    return [_differ(values[i], values[j], known[i], known[j], cols, rtol) for i, j in slots]


def _differ(lv: Any, rv: Any, lok: Any, rok: Any, cols: list[np.ndarray], rtol: float) -> list[tuple]:
    lv, rv, lok, rok = np.broadcast_arrays(lv, rv, lok, rok)
    bad = []
    for k in range(lv.size):
        a, b = lv.flat[k], rv.flat[k]
        if not (lok.flat[k] and rok.flat[k]):  # a side whose digits cancel beyond the precision bound: unknown
            continue
        if mp.isnan(a) and mp.isnan(b):
            continue
        if not _same(a, b, rtol):
            bad.append((tuple(float(c[k % len(c)]) for c in cols), a, b))
    return bad
