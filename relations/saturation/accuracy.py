"""Extraction by measured accuracy: each e-class's form chosen for the fewest bits of error on sampled inputs.

Herbie's measure (:mod:`graph_bridge.float_error`), applied to an e-graph of the query engine:

1. **Points.**  :func:`sample_points` draws the graph's float inputs uniformly over the bit
   patterns of their dtype (every binade alike: ``1e-300``, ``-800``, ``3e12``), as a batch
   along a new leading axis, and keeps the points where every output's exact value is a real
   number (finite or not: an overflow of the exact value is an answer too).
2. **Exact values per class.**  Every e-node of a class has the same real value, so one
   representative tree per class (the smallest) is evaluated with mpmath
   (:func:`graph_bridge.exact.exact_values`, precision raised until the digits that cancel are
   accounted for) and rounded to the class's dtype.
3. **Choice.**  Bottom-up, as a cost extraction relaxes: an e-node's float values are its Op
   run (``perform``, batched with :func:`pytensor.graph.replace.vectorize_graph`) on its
   children's chosen values; its cost is the mean bits of error of those values against its
   class's exact values; a class keeps the e-node of least cost (ties within
   :data:`TIE_BITS` go to the smaller tree), and a choice that would make a cycle is refused.
   Relaxation repeats until no choice changes (at most :data:`PASSES`; the result says if the
   bound stopped it).  Error composes: a child chosen for its own accuracy feeds its parents,
   so the greedy choice can miss a form whose accuracy comes from a less accurate child; the
   caller compares the whole result with the input's measured error and keeps the input when
   it is not better (:func:`relations.stabilize`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytensor.scalar as ps
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.replace import vectorize_graph
from pytensor.graph.traversal import explicit_graph_inputs, toposort
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.type import TensorType

from graph_bridge.exact import NotExact, exact_values, round_to
from graph_bridge.float_error import bits_of_error, sample_floats
from graph_bridge.interval_type import Interval
from relations.saturation.engine.egraph import CLASS_SHIFT, EGraph
from relations.saturation.engine.extract import best_nodes

__all__ = [
    "MAX_BITS", "NOISE_BITS", "PASSES", "TIE_BITS", "Choice", "ClassExact", "NodeRunner", "Points", "batched",
    "build_choice", "axis_points", "build_class", "canonical", "GRID", "error_summary", "graph_bits", "graph_error",
    "grid_points", "is_float_var",
    "leaf_values", "measured_choice", "more_accurate", "node_values", "own_enode", "point_shape", "points_at",
    "read_through", "sample_points",
]

#: Errors closer than this (bits, mean over the points) are ties, decided by tree size.
TIE_BITS = 0.05
#: Bits of error below which a form is accurate at a point whatever the form it replaces has there (eight ulps:
#: the order of roundings and a libm's last digit, not cancellation): :func:`more_accurate`'s ``noise``.
NOISE_BITS = 3.0
#: Relaxation passes of :func:`measured_choice` at most.
PASSES = 12
#: The precision exact values are raised to at most (bits): a point whose digits cancel beyond it is
#: not a point (``exp(x) - 1`` at ``|x| < 1e-280``: Herbie drops the points its ground truth misses too).
MAX_BITS = 1024


@dataclass(frozen=True)
class Points:
    """Sampled inputs: ``values[k]`` holds ``n`` values of ``inputs[k]`` stacked on a leading axis."""

    inputs: tuple[Variable, ...]
    values: tuple[np.ndarray, ...]
    n: int
    drawn: int = 0
    #: the ranges some inputs are known to lie in (``relations.stabilize``'s ``domain``): points made from
    #: these (a subset, a join, probes at a regime's thresholds) keep only rows inside (:meth:`within`)
    domain: tuple[tuple[Variable, Interval], ...] = ()

    def first(self, k: int) -> Points:
        """The first ``k`` points (all of them when there are fewer)."""
        return replace(self, values=tuple(v[:k] for v in self.values), n=min(self.n, k))

    def rows(self, idx: np.ndarray) -> Points:
        """The points at the indices ``idx``."""
        return replace(self, values=tuple(v[idx] for v in self.values), n=len(idx))

    def within(self, domain: tuple[tuple[Variable, Interval], ...] | None = None) -> Points:
        """The points whose every entry of each input ``domain`` bounds (default: the points' own) is in its
        interval, carrying that domain."""
        domain = self.domain if domain is None else domain
        if not domain:
            return self
        keep = np.ones(self.n, dtype=bool)
        for v, interval in domain:
            if v in self.inputs:
                vals = self.values[self.inputs.index(v)].reshape(self.n, -1)
                keep &= np.all(_inside(vals, interval), axis=1)
        return replace(self.rows(np.flatnonzero(keep)), domain=domain)

    def batched_inputs(self) -> dict[Variable, Variable]:
        """A batched variable per input (a leading axis added to its type)."""
        return {v: batched(v) for v in self.inputs}


def _inside(values: np.ndarray, interval: Interval) -> np.ndarray:
    lo = values > interval.lo if interval.lo_open else values >= interval.lo
    return lo & (values < interval.hi if interval.hi_open else values <= interval.hi)


def closed_ends(interval: Interval, dtype: str) -> tuple[float, float]:
    """The least and greatest float of ``dtype`` in ``interval`` (an open end: the next float inward)."""
    lo, hi = np.asarray(interval.lo, dtype=dtype), np.asarray(interval.hi, dtype=dtype)
    if interval.lo_open:
        lo = np.nextafter(lo, np.asarray(np.inf, dtype=dtype))
    if interval.hi_open:
        hi = np.nextafter(hi, np.asarray(-np.inf, dtype=dtype))
    return float(lo), float(hi)


def is_float_var(v: Variable) -> bool:
    """Whether ``v`` is of a float dtype."""
    return str(getattr(v.type, "dtype", "")).startswith("float")


def batched(v: Variable) -> Variable:
    """A fresh variable of ``v``'s type with a leading axis of unknown length."""
    t = v.type
    if not isinstance(t, TensorType):
        raise TypeError(f"v: only tensor variables can be sampled, got {t}")
    return TensorType(t.dtype, shape=(None, *t.shape))(name=f"{v.name or 'x'}_points")


def point_shape(v: Variable, size: int) -> tuple[int, ...]:
    """The shape of one point's value of ``v``: its static lengths, 1 where broadcastable, else ``size``."""
    return tuple(1 if b else (s if s is not None else size) for b, s in zip(v.type.broadcastable, v.type.shape,
                                                                              strict=True))


def _sample_inputs(outputs: Sequence[Variable], given: Mapping[Variable, Any] | None) -> list[Variable]:
    inputs = [v for v in explicit_graph_inputs(outputs) if not isinstance(v, Constant)]
    for v in inputs:
        dtype = str(getattr(v.type, "dtype", ""))
        if not dtype.startswith("float") and (given is None or v not in given):
            raise ValueError(f"outputs: the input {v} is of dtype {dtype}; only float inputs are sampled "
                             f"(give its values in points=)")
    return inputs


#: Magnitudes every binade-uniform sample is likely to miss, for :func:`grid_points`: each sign of 1e-300 ...
#: 1e300 by decades of decades, and the moderate values where special functions turn (0.5 ... 40).
GRID = np.array(sorted({s * m for s in (1.0, -1.0) for m in (
    1e-300, 1e-100, 1e-30, 1e-10, 1e-4, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 40.0, 100.0, 1e4, 1e10, 1e30, 1e100,
    1e300)} | {0.0}))


def _held_grid(inputs: Sequence[Variable]) -> np.ndarray:
    """The magnitudes of :data:`GRID` every input's dtype holds."""
    top = min((float(np.finfo(v.type.dtype).max) for v in inputs), default=np.inf)
    return GRID[np.abs(GRID) <= top]


def grid_points(outputs: Sequence[Variable], seed: int = 0) -> Points:
    """The points of :data:`GRID` (each input takes every value, the others a shuffled copy) where every
    output's exact value is a real number: a check of a form's accuracy where Herbie's sampling is thin."""
    outputs = list(outputs)
    inputs = _sample_inputs(outputs, None)
    rng = np.random.default_rng(seed)
    grid = _held_grid(inputs)
    cols = [grid] + [rng.permutation(grid) for _ in inputs[1:]]
    return points_at(outputs, dict(zip(inputs, cols, strict=True)))


def axis_points(outputs: Sequence[Variable], at: float = 1.0) -> Points:
    """For a graph of two inputs or more, the points where one input takes every value of :data:`GRID` and
    the others are ``at`` (each input in turn), where every output's exact value is a real number: where the
    shuffled copies of :func:`grid_points` never pair a large ``x`` with a moderate ``y`` (``2 * exp(x)``
    overflowing next to ``exp(y)``).  No points for a graph of one input (the grid covers it)."""
    outputs = list(outputs)
    inputs = _sample_inputs(outputs, None)
    if len(inputs) < 2:
        return Points(tuple(inputs), tuple(np.zeros((0, *point_shape(v, 1))) for v in inputs), 0, 0)
    grid = _held_grid(inputs)
    n = len(grid) * len(inputs)
    cols = {}
    for k, v in enumerate(inputs):
        col = np.full(n, at)
        col[k * len(grid):(k + 1) * len(grid)] = grid
        cols[v] = col
    return points_at(outputs, cols)


def points_at(outputs: Sequence[Variable], cols: Mapping[Variable, np.ndarray],
              domain: tuple[tuple[Variable, Interval], ...] = ()) -> Points:
    """The points where each input takes the values of its column (one value a point, every element of the
    input alike) and every output's exact value is a real number (inside ``domain``)."""
    n = len(next(iter(cols.values()))) if cols else 0
    given = {v: np.broadcast_to(np.asarray(c).reshape(-1, *[1] * v.type.ndim), (n, *point_shape(v, 1))).astype(
        v.type.dtype) for v, c in cols.items()}
    return sample_points(list(outputs), n, given=given, domain=domain)


def sample_points(
    outputs: Sequence[Variable], n: int = 64, *, size: int | None = None, seed: int = 0, tries: int = 16,
    given: Mapping[Variable, Any] | None = None, domain: tuple[tuple[Variable, Interval], ...] = (),
) -> Points:
    """Up to ``n`` points where every output's exact value is a real number, inputs drawn as Herbie draws.

    A float vector input gets ``n`` draws of shape ``(size,)`` (default: 1 for a graph of Elemwise
    and DimShuffle only, whose entries are independent points, else 2) (a broadcastable dimension
    1); ``given`` fixes an input's values (an array with the points on its leading axis, e.g.
    the data a model is evaluated at), which are then used as they are; ``domain`` draws an input
    inside its interval (the points carry it: :meth:`Points.within`).  Draws ``n`` at a time,
    ``tries`` times at most."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    outputs = list(outputs)
    inputs = _sample_inputs(outputs, given)
    if size is None:  # an elementwise graph's entries are points of their own: one entry per point suffices
        size = 1 if all(isinstance(a.op, Elemwise | DimShuffle) for a in toposort(outputs)) else 2
    rng = np.random.default_rng(seed)
    bounds = {v: closed_ends(i, v.type.dtype) for v, i in domain if v in inputs}
    batch = {v: batched(v) for v in inputs}
    outs = vectorize_graph(outputs, replace=batch)
    kept: list[list[np.ndarray]] = [[] for _ in inputs]
    count = drawn = 0
    for _ in range(tries):
        if given:
            vals = [np.asarray(given[v], dtype=v.type.dtype) if v in given else
                    sample_floats(v.type.dtype, (len(next(iter(given.values()))), *point_shape(v, size)), rng,
                                  within=bounds.get(v))
                    for v in inputs]
        else:
            vals = [sample_floats(v.type.dtype, (n, *point_shape(v, size)), rng, within=bounds.get(v)) for v in inputs]
        at = {batch[v]: x for v, x in zip(inputs, vals, strict=True)}
        exact, _ = exact_values(outs, at, rows=True, max_bits=MAX_BITS)
        good = np.ones(len(vals[0]) if vals else 1, dtype=bool)
        for e, o in zip(exact, outputs, strict=True):
            r = round_to(e, o.type.dtype)
            good &= ~np.isnan(r).reshape(len(good), -1).any(axis=1)
        drawn += len(good)
        for k, x in enumerate(vals):
            kept[k].append(x[good])
        count += int(good.sum())
        if count >= n or given:
            break
    values = tuple(np.concatenate(k)[:n] if given is None else np.concatenate(k) for k in kept)
    return Points(tuple(inputs), values, count if given else min(count, n), drawn).within(domain)


def _leading(v: np.ndarray, n: int) -> np.ndarray:
    """``v`` with the points on its leading axis (a constant class's value broadcast to them)."""
    if v.ndim and v.shape[0] == n:
        return v
    return np.broadcast_to(v, (n, *v.shape))


def _make(eg: EGraph, n: tuple, kids: Sequence[Variable]) -> Variable:
    """The e-node ``n`` over the graphs ``kids`` (a leaf: its variable)."""
    kind = eg.ops[n[0]]
    return kind[1] if kind[0] == "leaf" else kind[1].make_node(*kids).outputs[kind[3]]


def build_class(eg: EGraph, c: int, best: dict, built: dict[int, Variable],
                fallback: Mapping[int, tuple] | None = None) -> Variable:
    """Class ``c`` as a graph of the e-nodes ``best`` chooses (``built``: the classes built so far, kept).

    A class whose e-node reads the class itself (a guarded form ``switch(cond(<itself>), form, <itself>)``,
    which a regime rule adds to the class of what it guards) has a ``fallback`` e-node that does not: the
    fallback is built first and read wherever the e-node's graph reads the class (every e-node of a class
    has its value, so any may stand for it there)."""
    fallback = fallback or {}
    stack, provisional = [eg.find(c)], set()
    while stack:
        k = stack[-1]
        if k in built and k not in provisional:
            stack.pop()
            continue
        n = fallback[k] if k in fallback and k not in provisional else best[k][1]
        kids = [eg.find(x) for x in n[1:]]
        missing = [x for x in kids if x not in built]
        if missing:
            stack.extend(missing)
            continue
        made = _make(eg, n, [built[x] for x in kids])
        built[k] = made
        if k in fallback and k not in provisional:
            provisional.add(k)  # the fallback built: now the e-node that reads it
            continue
        provisional.discard(k)
        stack.pop()
    return built[eg.find(c)]


@dataclass
class Choice:
    """What :func:`measured_choice` chose: per class its e-node, its values' mean bits of error, its tree size."""

    enode: dict[int, tuple] = field(default_factory=dict)
    error: dict[int, float] = field(default_factory=dict)
    size: dict[int, int] = field(default_factory=dict)
    values: dict[int, np.ndarray] = field(default_factory=dict)
    #: for a class whose e-node reads the class itself (a guarded form), the e-node read there
    fallback: dict[int, tuple] = field(default_factory=dict)
    #: the fallback's tree size (a guarded form's size counts it once where it reads its class)
    fallback_size: dict[int, int] = field(default_factory=dict)
    #: whether a class's values hold the points on a leading axis (shapes and indices need not)
    batched: dict[int, bool] = field(default_factory=dict)
    passes: int = 0
    converged: bool = True


class NodeRunner:
    """Batched e-nodes run Op by Op with ``perform``; the batched graph of each (op id, child types) built once."""

    def __init__(self, eg: EGraph) -> None:
        self.eg = eg
        self.graphs: dict[tuple, Any] = {}

    def _graph(self, enode: tuple, flags: tuple[bool, ...]) -> Any:
        eg = self.eg
        key = (enode[0], *[eg.ctype[eg.find(k)] for k in enode[1:]], flags)
        made = self.graphs.get(key)
        if made is None:
            _, op, _, out = eg.ops[enode[0]]
            try:
                dummies = [eg.types[t]() for t in key[1:-1]]
                ins = [batched(d) if f else d for d, f in zip(dummies, flags, strict=True)]
                result = vectorize_graph(op.make_node(*dummies).outputs[out], replace=dict(zip(dummies, ins,
                                                                                              strict=True)))
                made = (ins, list(toposort([result])), result)
            except (TypeError, ValueError, NotImplementedError, AttributeError):
                made = False
            self.graphs[key] = made
        return made

    def run(self, enode: tuple, kids: list[np.ndarray], flags: tuple[bool, ...]) -> np.ndarray | None:
        """The e-node's values on its children's (``flags``: which of them hold the points on a leading
        axis; the result does when any does); ``None`` when its Op refuses them."""
        made = self._graph(enode, flags)
        if not made:
            return None
        ins, nodes, result = made
        env: dict[Any, Any] = {i: np.asarray(k, dtype=i.type.dtype) for i, k in zip(ins, kids, strict=True)}
        try:
            with np.errstate(all="ignore"):
                for node in nodes:
                    storage: list[list[Any]] = [[None] for _ in node.outputs]
                    node.op.perform(node, [env[i] if i in env else i.data for i in node.inputs], storage)
                    env.update((o, s[0]) for o, s in zip(node.outputs, storage, strict=True))
        except Exception:  # noqa: BLE001 - an Op that refuses these values: the e-node is not a candidate
            return None
        return np.asarray(env[result])


def own_enode(eg: EGraph, v: Variable, cls: Mapping[Variable, int]) -> tuple | None:
    """The canonical e-node of ``v``'s own node (``None`` for a leaf)."""
    node = v.owner
    if node is None:
        return None
    idx = node.outputs.index(v)
    return (eg.op_id(node.op, len(node.inputs), idx), *[eg.find(cls[i]) for i in node.inputs])


def read_through(eg: EGraph, v: Variable, cls: Mapping[Variable, int]) -> bool:
    """Whether ``v`` is a broadcasting DimShuffle the e-graph reads through (it has its input's class)."""
    node = v.owner
    return node is not None and len(node.inputs) == 1 and node.inputs[0] in cls and (
        eg.find(cls[v]) == eg.find(cls[node.inputs[0]]))


def canonical(eg: EGraph, enode: tuple) -> tuple:
    """``enode`` with its children's classes at their roots."""
    return (enode[0], *[eg.find(k) for k in enode[1:]])


def node_values(eg: EGraph, outputs: Sequence[Variable], cls: Mapping[Variable, int],
                points: Points) -> dict[Variable, np.ndarray]:
    """The float values of every variable of the graph of ``outputs`` at the points, Op by Op as written."""
    runner = NodeRunner(eg)
    values: dict[Variable, np.ndarray] = {}
    flag: dict[Variable, bool] = {}
    for v in cls:
        if v.owner is None:
            values[v] = leaf_values(eg, (eg.leaf_op(v),), points)
            flag[v] = is_float_var(v)
    for node in toposort(list(outputs)):
        for out in node.outputs:
            if out not in cls:
                continue
            ins = [values.get(i) for i in node.inputs]
            if read_through(eg, out, cls):
                if ins[0] is not None:
                    values[out], flag[out] = ins[0], flag[node.inputs[0]]
                continue
            own = own_enode(eg, out, cls)
            known = [i for i in ins if i is not None]
            flags = tuple(flag.get(i, False) for i in node.inputs)
            got = None if own is None or len(known) < len(ins) else runner.run(own, known, flags)
            if got is not None:
                values[out], flag[out] = got, any(flags)
    return values


def error_summary(values: np.ndarray, exact: np.ndarray | None) -> tuple[float, float]:
    """``(mean, max)`` bits of error of ``values`` against ``exact`` (same dtype; NaN entries of ``exact``,
    unknown or not real, are skipped); integers and booleans are exact or infinitely wrong."""
    if values.dtype.kind != "f" and exact is not None:  # shapes, indices, conditions: numpy computes them exactly
        return 0.0, 0.0
    if exact is None or values.shape != exact.shape or values.dtype != exact.dtype:
        return float("inf"), float("inf")
    known = ~np.isnan(exact)
    if not known.any():
        return 0.0, 0.0
    bits = bits_of_error(values[known], exact[known])
    return float(bits.mean()), float(bits.max())


def _mean_error(values: np.ndarray, exact: np.ndarray | None) -> float:
    return error_summary(values, exact)[0]


def _reaches(choice: Choice, eg: EGraph, start: Sequence[int], target: int) -> bool:
    """Whether the current choices lead from the classes ``start`` to ``target``."""
    seen: set[int] = set()
    stack = [eg.find(s) for s in start]
    while stack:
        k = stack.pop()
        if k == target:
            return True
        if k in seen or k not in choice.enode:
            continue
        seen.add(k)
        stack.extend(eg.find(x) for x in choice.enode[k][1:])
        if k in choice.fallback:
            stack.extend(eg.find(x) for x in choice.fallback[k][1:])
    return False


def _guarded(eg: EGraph, n: tuple) -> bool:
    """Whether the e-node ``n`` is a ``switch`` (a guarded form's head)."""
    kind = eg.ops[n[0]]
    return kind[0] != "leaf" and isinstance(getattr(kind[1], "scalar_op", None), ps.Switch)


def _admit(choice: Choice, eg: EGraph, n: tuple, kids: Sequence[int], c: int) -> bool:
    """Whether the e-node ``n`` of class ``c`` over ``kids`` may replace the class's choice, and its fallback set.

    A ``switch`` with ``c`` a branch (a guarded form ``switch(cond(c), form, c)``, which a regime rule adds to
    the class of what it guards) reads there the choice it replaces, its fallback (:func:`build_class`);
    other e-nodes whose children lead back to ``c`` are refused (a cycle), as is a guarded form whose
    fallback would read a class that reads ``c`` (a class below it chose, since, an e-node over ``c``)."""
    if not _reaches(choice, eg, kids, c):
        choice.fallback.pop(c, None)
        choice.fallback_size.pop(c, None)
        return True
    if c not in kids or not _guarded(eg, n):
        return False
    back = choice.fallback.get(c, choice.enode[c])
    if _reaches(choice, eg, [eg.find(x) for x in back[1:]], c):
        return False
    if c not in choice.fallback:
        choice.fallback_size[c] = choice.size[c]
    choice.fallback[c] = back
    return True


def leaf_values(eg: EGraph, n: tuple, points: Points) -> np.ndarray:
    """The values at the points of the leaf e-node ``n``: an input's, or a constant's broadcast to every point."""
    v = eg.leaf[n[0]]
    if v in points.inputs:
        return points.values[points.inputs.index(v)]
    data = np.asarray(v.data) if isinstance(v, Constant) else None
    if data is None:
        raise ValueError(f"points: no values for the graph input {v}")
    if not is_float_var(v):  # a shape or an index: one value for every point
        return data
    return np.broadcast_to(data, (points.n, *data.shape))


class ClassExact:
    """Exact values of classes at the points, computed when first asked (:meth:`get`) and kept.

    A class's representative is its smallest tree; its values are rounded to the class's dtype
    (NaN: not a real number, or unknown).  Most classes are never asked: a class whose candidate
    forms compute the same floats needs no reference to choose between them."""

    def __init__(self, eg: EGraph, points: Points) -> None:
        self.eg, self.points = eg, points
        self.best = best_nodes(eg)
        self.built: dict[int, Variable] = {}
        self.known: dict[int, np.ndarray | None] = {}
        self.batch = points.batched_inputs()
        self.given = {self.batch[v]: x for v, x in zip(points.inputs, points.values, strict=True)}

    def get(self, c: int) -> np.ndarray | None:
        """The exact values of class ``c`` (``None`` when an Op of its tree has no exact meaning)."""
        c = self.eg.find(c)
        if c not in self.known:
            self.known[c] = self._compute(c)
        return self.known[c]

    def _compute(self, c: int) -> np.ndarray | None:
        if c not in self.best:
            return None
        v = build_class(self.eg, c, self.best, self.built)
        return self.of(v) if is_float_var(v) else None

    def of(self, v: Variable) -> np.ndarray | None:
        """The exact values at the points of ``v``, a graph over the points' inputs (``None``: not known)."""
        out = vectorize_graph(v, replace={u: self.batch[u] for u in self.points.inputs})
        try:
            (e,), _ = exact_values([out], self.given, rows=True, max_bits=MAX_BITS)
        except NotExact:
            return None
        return _leading(round_to(e, v.type.dtype), self.points.n)


def _agree(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two forms computed the same floats (to one ulp) at every point."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind != "f":
        return bool(np.array_equal(a, b))
    if np.array_equal(a, b, equal_nan=True):  # most candidates compute the very same floats
        return True
    return bool((bits_of_error(a, b) <= 1.0).all())


def _better(choice: Choice, exact: ClassExact, c: int, vals: np.ndarray, size: int) -> bool:
    """Whether the candidate ``vals`` (a tree of ``size``) beats class ``c``'s current choice."""
    cur = choice.values.get(c)
    if cur is None:
        return True
    if _agree(vals, cur):
        return size < choice.size[c]
    ref = exact.get(c)
    new_err, old_err = _mean_error(vals, ref), _mean_error(cur, ref)
    choice.error[c] = old_err
    return new_err < old_err - TIE_BITS or (new_err <= old_err + TIE_BITS and size < choice.size[c])


def measured_choice(eg: EGraph, points: Points, exact: ClassExact | None = None) -> Choice:
    """For every class, the e-node whose values (computed from its children's choices) have the least error.

    Candidates that compute the same floats are told apart by tree size alone; the exact values of a
    class (``exact``, computed on demand) are read only where its candidates differ."""
    exact = exact if exact is not None else ClassExact(eg, points)
    choice = Choice()
    runner = NodeRunner(eg)
    live = [(n, v >> CLASS_SHIFT) for n, v in eg.hashcons.items()]
    # a class's version moves whenever its choice's values do; an e-node is run again only when its
    # class's or a child's version moved since it last ran (running it again would decide the same)
    version: dict[int, int] = {}
    ran: dict[tuple, tuple] = {}
    for n, c in live:
        if len(n) == 1:
            choice.enode[c], choice.values[c], choice.size[c] = n, leaf_values(eg, n, points), 1
            choice.batched[c] = is_float_var(eg.leaf[n[0]])
            version[c] = 0
    for k in range(PASSES):
        changed = False
        for n, c in live:
            # a class that chose a guarded form is settled: the form's condition reads the class, whose values
            # the form has just changed (run again, it would read its own repair and undo it)
            if len(n) == 1 or c in choice.fallback:
                continue
            kids = [eg.find(x) for x in n[1:]]
            if any(x not in choice.values for x in kids):
                continue
            stamp = (version.get(c, -1), *[version[x] for x in kids])
            if ran.get(n) == stamp:
                continue
            own = choice.fallback_size.get(c, choice.size.get(c, 0))  # what a read of its own class stands for
            size = 1 + sum(own if x == c else choice.size[x] for x in kids)
            flags = tuple(choice.batched[x] for x in kids)
            vals = runner.run(n, [choice.values[x] for x in kids], flags)
            if vals is None:
                ran[n] = stamp
                continue
            if choice.enode.get(c) == n:  # the chosen e-node over children chosen since: its values move
                moved = size != choice.size[c] or not _agree(vals, choice.values[c])
                changed |= moved
                if moved or not np.array_equal(vals, choice.values[c], equal_nan=True):
                    version[c] = version.get(c, 0) + 1
                choice.values[c], choice.size[c], choice.batched[c] = vals, size, any(flags)
                ran[n] = (version[c], *stamp[1:])
                continue
            if not _better(choice, exact, c, vals, size):
                ran[n] = stamp
            elif _admit(choice, eg, n, kids, c):
                choice.enode[c], choice.values[c], choice.size[c] = n, vals, size
                choice.batched[c] = any(flags)
                version[c] = version.get(c, 0) + 1
                ran[n] = (version[c], *stamp[1:])
                changed = True
        choice.passes = k + 1
        if not changed:
            break
    else:
        choice.converged = False
    for c in choice.enode:  # the error of each choice where a reference was read
        ref = exact.known.get(c)
        if ref is not None:
            choice.error[c] = _mean_error(choice.values[c], ref)
    return choice


def build_choice(eg: EGraph, choice: Choice, classes: Sequence[int],
                 built: dict[int, Variable] | None = None) -> list[Variable]:
    """The PyTensor graphs of the chosen forms of ``classes`` (shared classes built once; ``built``
    keeps them across calls)."""
    best = {c: (0.0, n) for c, n in choice.enode.items()}
    built = {} if built is None else built
    missing = [c for c in classes if eg.find(c) not in best]
    if missing:
        raise ValueError(f"classes: no form was chosen for classes {missing}")
    return [build_class(eg, c, best, built, choice.fallback) for c in classes]


def graph_bits(outputs: Sequence[Variable], points: Points, mode: Any = None) -> list[np.ndarray]:
    """The bits of error of each output's entries at the points (NaN where the exact value is unknown or
    not real), the graph compiled in ``mode``.

    ``mode=None`` evaluates it Op by Op as written (Python ``perform``, no rewrite): the error of the
    spelling itself; a PyTensor mode (``"FAST_RUN"``, ``relations.mode()``) gives the error of what
    that mode compiles.  The exact values are the outputs' own (:func:`graph_bridge.exact.exact_values`)."""
    import pytensor
    from pytensor.compile.mode import Mode

    outputs = list(outputs)
    batch = points.batched_inputs()
    outs = vectorize_graph(outputs, replace=batch)
    given = [batch[v] for v in points.inputs]
    exact, _ = exact_values(outs, dict(zip(given, points.values, strict=True)), rows=True, max_bits=MAX_BITS)
    as_written = Mode(linker="py", optimizer=None)  # type: ignore[arg-type]  # PyTensor's own spelling: no rewrite
    fn = pytensor.function(given, outs, mode=mode or as_written, on_unused_input="ignore")
    with np.errstate(all="ignore"):
        got = fn(*points.values)
    out = []
    for g, e, o in zip(got, exact, outputs, strict=True):
        g, ref = np.asarray(g), round_to(e, o.type.dtype)
        if g.dtype.kind != "f" or g.shape != ref.shape or g.dtype != ref.dtype:
            out.append(np.zeros(g.shape) if g.dtype.kind != "f" else np.full(ref.shape, np.inf))
            continue
        bits = np.full(ref.shape, np.nan)
        known = ~np.isnan(ref)
        bits[known] = bits_of_error(g[known], ref[known])
        out.append(bits)
    return out


def graph_error(outputs: Sequence[Variable], points: Points, mode: Any = None) -> list[tuple[float, float]]:
    """``(mean, max)`` bits of error of each output at the points, the graph compiled in ``mode``
    (:func:`graph_bits`)."""
    out = []
    for bits in graph_bits(outputs, points, mode):
        known = bits[~np.isnan(bits)]
        out.append((float(known.mean()), float(known.max())) if known.size else (0.0, 0.0))
    return out


def more_accurate(new: Sequence[Variable], old: Sequence[Variable], points: Points, mode: Any = None,
                  strictly: bool = True, slack: float = 1.0, noise: float = 0.0) -> bool:
    """Whether the outputs ``new`` are no less accurate than ``old`` at any point (by more than ``slack`` bits:
    the one ulp a reordering may cost) and, with ``strictly``, better on average, both compiled in ``mode``
    (:func:`graph_bits`).  A point where ``new`` is at most ``noise`` bits off is no loss whatever ``old``'s
    error there (:data:`NOISE_BITS`: ``2 * sin(x / 2)**2`` is 1.6 bits off at ``x = 5`` in float32, three
    roundings, where ``1 - cos(x)`` is exact).  Without regimes (Herbie's branches) a form better on most inputs may be
    worse where the input was right: this says it is not, on ``points``.  A point where ``old`` has no
    correct digit left (as many bits of error as its dtype's significand: ``inf`` for a finite value) cannot
    be made worse: ``-c / (sqrt(b*b - c) + b)`` is NaN where ``b*b - c`` overflows, and ``sqrt(b*b - c) - b``
    is ``inf``, both at ``c = -2e493``."""
    for a, b, o in zip(graph_bits(new, points, mode), graph_bits(old, points, mode), old, strict=True):
        if a.shape != b.shape:
            return False
        known = ~np.isnan(a) & ~np.isnan(b)
        lost = b[known] >= np.finfo(o.type.dtype).nmant + 1 if o.type.dtype.startswith("float") else False
        if not ((a[known] <= np.maximum(b[known] + slack, noise)) | lost).all():
            return False
        if strictly and known.any() and not a[known].mean() < b[known].mean() - TIE_BITS:
            return False
    return True
