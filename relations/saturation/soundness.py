"""Whether an e-graph's classes hold: every e-node of a class computes the class's values.

A class is an equality the rules proved.  A rule that is unsound somewhere makes a class whose
e-nodes compute different values, and congruence spreads it: one union of ``1/0`` with
``1/(-0)`` (``inf`` with ``-inf``) and a few iterations later ``x`` and ``1/x`` share a class.
:func:`unsound_nodes` finds such e-nodes by running every e-node on sampled points, bottom-up
from the leaves, and comparing it with its class.

Before (a class whose e-nodes disagree at ``x = 2``)::

    class 7: log(x)    ->  0.693
             log1p(x)  ->  1.099

After: ``unsound_nodes`` reports the second e-node with its value and the class's.

The points are moderate (:func:`moderate_points`: magnitudes up to 4), so that the floats of two
forms of one real function agree to a loose tolerance; a comparison at the float range's extremes
would report the rounding the numerics theory exists to repair (``sqrt(x*x)`` overflows where
``|x|`` does not).  A point where either value is NaN (a real function undefined there) is not
compared.  A test runs this over the numerics corpus saturated by the theory
(``tests/test_numerics_soundness.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import explicit_graph_inputs

from relations.saturation.accuracy import (
    ClassExact,
    NodeRunner,
    Points,
    build_class,
    is_float_var,
    leaf_values,
    point_shape,
)
from relations.saturation.engine.egraph import CLASS_SHIFT, EGraph

__all__ = ["Disagreement", "moderate_points", "unsound_nodes"]


@dataclass(frozen=True)
class Disagreement:
    """An e-node whose values differ from its class's at some points (``at``: their indices)."""

    cls: int
    enode: tuple
    op: Any
    values: np.ndarray
    class_values: np.ndarray
    at: np.ndarray

    def __str__(self) -> str:
        k = int(self.at[0])
        return (f"class {self.cls}: {self.op} of classes {list(self.enode[1:])} gives {self.values[k]} at point {k}, "
                f"the class {self.class_values[k]}")


def moderate_points(outputs: Sequence[Variable], n: int = 16, seed: int = 0) -> Points:
    """``n`` points of moderate inputs: floats half in ``[-4, 4]``, half in ``(0, 4]``; integers in ``[-3, 3]``."""
    outputs = list(outputs)
    inputs = [v for v in explicit_graph_inputs(outputs) if not isinstance(v, Constant)]
    rng = np.random.default_rng(seed)
    values = []
    for v in inputs:
        shape = (n, *point_shape(v, 2))
        if is_float_var(v):
            x = np.where(rng.random(shape) < 0.5, rng.uniform(-4, 4, shape), rng.uniform(1e-3, 4, shape))
        else:
            x = rng.integers(-3, 4, shape)
        values.append(x.astype(v.type.dtype))
    return Points(tuple(inputs), tuple(values), n, n)


def _differ(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Entries (per point) where both are numbers and not close (infinities of one sign are close)."""
    with np.errstate(all="ignore"):
        both = ~np.isnan(a) & ~np.isnan(b)
        far = both & ~np.isclose(a, b, rtol=rtol, atol=atol)
    return far.reshape(len(far), -1).any(axis=1) if far.ndim else np.atleast_1d(far)


def _exact_enode(cx: ClassExact, n: tuple) -> np.ndarray | None:
    """The exact values of the e-node ``n`` over its children's smallest trees (``None``: not known)."""
    eg = cx.eg
    kind = eg.ops[n[0]]
    try:
        kids = [build_class(eg, k, cx.best, cx.built) for k in n[1:]]
        v = kind[1].make_node(*kids).outputs[kind[3]]
    except (KeyError, TypeError, ValueError):
        return None
    return cx.of(v)


def unsound_nodes(eg: EGraph, points: Points, rtol: float = 1e-2, atol: float = 1e-6,
                  exact: bool = True) -> list[Disagreement]:
    """The e-nodes of float classes whose values at ``points`` differ from their class's.

    A class's values are its first e-node's that runs, its NaNs filled from the others' (an e-node
    its Op refuses, or over a class without values, is not compared).  ``points`` must give every
    input of the e-graph's leaves (:func:`moderate_points` of the graph the e-graph holds).

    ``exact``: an e-node whose floats differ is reported only when its exact value (over its
    children's smallest trees, :mod:`graph_bridge.exact`) differs from its class's too, so that
    rounding (``cosh(a)*cosh(b) - sinh(a)*sinh(b)`` cancels to 0 where ``cosh(a - b)`` is 1) is not
    reported; where an exact value is not known, the floats' difference stands."""
    runner = NodeRunner(eg)
    live = [(n, eg.find(v >> CLASS_SHIFT)) for n, v in eg.hashcons.items()]
    vals: dict[int, np.ndarray] = {}
    batched: dict[int, bool] = {}
    for n, c in live:
        if len(n) == 1:
            vals[c] = np.asarray(leaf_values(eg, n, points))
            batched[c] = is_float_var(eg.leaf[n[0]]) or eg.leaf[n[0]] in points.inputs
    inner = [(n, c, [eg.find(k) for k in n[1:]]) for n, c in live if len(n) > 1]
    ran: dict[tuple, np.ndarray | None] = {}
    for _ in range(len(inner) + 1):  # each pass gives at least one more class values, or ends
        grew = False
        for n, c, kids in inner:
            if n in ran or not all(k in vals for k in kids):
                continue
            v = ran[n] = runner.run(n, [vals[k] for k in kids], tuple(batched[k] for k in kids))
            if v is None:
                continue
            if c not in vals:
                vals[c], batched[c], grew = v, any(batched[k] for k in kids), True
            elif vals[c].shape == v.shape and v.dtype.kind == "f" and np.isnan(vals[c]).any():
                vals[c] = np.where(np.isnan(vals[c]), v, vals[c])
        if not grew:
            break
    out = []
    cx: ClassExact | None = None
    for n, c, _ in inner:
        v, w = ran.get(n), vals.get(c)
        if v is None or w is None or v.shape != w.shape or v.dtype.kind != "f" or not batched.get(c):
            continue
        far = _differ(v, w, rtol, atol)
        if far.any() and exact:
            cx = cx or ClassExact(eg, points)
            ev, ew = _exact_enode(cx, n), cx.get(c)
            if ev is not None and ew is not None:
                far = _differ(ev, ew, 1e-6, 0.0)
                v, w = ev, ew
        if far.any():
            out.append(Disagreement(c, n, eg.ops[n[0]][1], v, w, np.flatnonzero(far)))
    return out
