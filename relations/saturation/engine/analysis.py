"""The e-class analysis, egg's ``Analysis``: a value interval per class, with the transfer functions of
:mod:`graph_bridge.intervals`; sign and constant facts are read from it.

One transfer table serves both readers: :func:`graph_bridge.intervals.interval_of` on a graph and
this analysis on an e-graph call :func:`graph_bridge.intervals.op_interval` (exact real arithmetic:
an identity's condition is a fact about real functions, so ``exp(x)`` is positive even where the
float underflows to 0).  A class's data is an :class:`~graph_bridge.intervals.Interval`, or
``None`` for the whole line (nothing known: the top of the lattice, what a free input has): a
constant leaf's is its values' range, an e-node's is its Op's transfer of its children's, and a
union keeps what both classes' data say (the intersection), so a class holding ``exp(x)`` is
positive whichever of its e-nodes a guard reads.

- Sign: :meth:`Interval.positive` ... of the class's interval (:func:`positive`, :func:`nonnegative`,
  :func:`nonzero` are guards over them for :class:`~relations.saturation.engine.query.QueryRule`);
- constant: a closed point interval ``[v, v]``, kept exact only where it is (a constant leaf's
  value; ``+``, ``-``, ``*``, negation of exact points when the float result is exact, checked
  with fractions): :meth:`IntervalAnalysis.modify` adds a constant leaf to a class whose type
  has one element per value (every dimension broadcastable) and whose point the dtype holds
  exactly, so ``(2 + 3) * x`` extracts as ``5 * x``.

Every other bound is widened outward to a finite lattice (0, +-1, +-2**k for |k| <= 64, +-inf) so
that refining a class along a cycle of e-nodes stops: each bound moves at most 260 times, and an
exact point refines to nothing further.

Cost: the e-graph calls a transfer only when its children's data can give something (``need``:
:data:`ALWAYS` for ``exp``, whose output is positive whatever its input; :data:`ANY` for ``mul``,
for which one known child can decide (``0 * x``); :data:`ALL` for ``add``, ``sub``, ``neg``,
``log``, which know nothing when a child is the whole line), so on free inputs the arithmetic
rules add e-nodes without an analysis call.

Before/After (the class of ``exp(x) + 1``)::

    x: None (-inf, inf)   exp(x): (0, inf)   exp(x) + 1: [1, inf)
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
import pytensor.scalar as ps
from pytensor.graph.basic import Constant, Variable
from pytensor.tensor import constant
from pytensor.tensor.elemwise import DimShuffle, Elemwise

from graph_bridge.interval_type import EVERYTHING, Interval
from graph_bridge.intervals import constant_interval, op_interval

__all__ = ["ALL", "ALWAYS", "ANY", "ClassAnalysis", "IntervalAnalysis", "class_interval", "nonnegative",
           "nonzero", "positive"]

#: ``need`` of a transfer: call it whatever the children's data (its output says something of top inputs).
ALWAYS = 0
#: ``need``: call it when some child's data is known (all of them the whole line give the whole line).
ANY = 1
#: ``need``: call it when every child's data is known (one child the whole line gives the whole line).
ALL = 2

_STEPS = sorted({0.0, *[2.0**k for k in range(-64, 65)], *[-(2.0**k) for k in range(-64, 65)]})

#: scalar Ops whose output is the whole line when one input is (``x + (-inf, inf)``, ``log((-inf, inf))``)
_STRICT = (ps.Add, ps.Sub, ps.Neg, ps.Identity, ps.Cast, ps.Log, ps.Log1p, ps.Log2, ps.Log10, ps.Reciprocal,
           ps.Sinh, ps.Floor, ps.Ceil, ps.Pow)
#: scalar Ops whose exact result on points is checked with fractions (a point stays a point when exact)
_EXACT: dict[type, Callable[..., Fraction]] = {
    ps.Add: lambda *xs: sum(xs, Fraction(0)),
    ps.Sub: lambda x, y: x - y,
    ps.Mul: lambda *xs: math.prod(xs, start=Fraction(1)),
    ps.Neg: lambda x: -x,
}


def _down(v: float) -> float:
    """The largest lattice point <= ``v``."""
    if math.isinf(v) or math.isnan(v):
        return -math.inf if math.isnan(v) else v
    k = bisect_right(_STEPS, v)
    return _STEPS[k - 1] if k else -math.inf


def _coarse(i: Interval) -> Interval | None:
    """``i`` widened outward to the lattice; ``None`` for the whole line.  A point (not known exact:
    ``exp(2)`` rounded) is first widened by an ulp each way, so it is no constant."""
    if i.lo == -math.inf and i.hi == math.inf:
        return None
    if i.lo == i.hi:
        i = Interval(math.nextafter(i.lo, -math.inf), math.nextafter(i.hi, math.inf), False, False)
    lo = _down(i.lo)
    hi = -_down(-i.hi)
    if lo == i.lo and hi == i.hi:
        return i
    return Interval(lo, hi, i.lo_open and lo == i.lo, i.hi_open and hi == i.hi)


def _point(i: Interval | None) -> float | None:
    """The value of a closed point interval (``None`` for any other)."""
    if i is None or i.lo != i.hi or i.lo_open or i.hi_open or math.isinf(i.lo):
        return None
    return i.lo


def _exact_point(op: Any, kids: list) -> Interval | None:
    """The point an exact scalar Op gives on exact points, when its float result is exact too."""
    exact = _EXACT.get(type(getattr(op, "scalar_op", None)))
    if exact is None:
        return None
    values = []
    for k in kids:
        x = _point(k)
        if x is None:
            return None
        values.append(Fraction(x))
    real = exact(*values)
    try:
        v = float(real)
    except OverflowError:
        return None
    return Interval(v, v, False, False) if Fraction(v) == real else None


class ClassAnalysis(Protocol):
    """What an e-graph asks of its analysis (:class:`IntervalAnalysis`)."""

    def leaf(self, v: Any) -> Any:
        """The data of a leaf ``v`` (``None``: nothing known)."""

    def merge(self, a: Any, b: Any) -> Any:
        """The data of a union of classes with data ``a`` and ``b``."""

    def transfer_for(self, op: Any) -> tuple[Callable | None, int]:
        """``(transfer(eg, enode, tid), need)`` for e-nodes of ``op`` (``need``: :data:`ALWAYS`, :data:`ANY`
        or :data:`ALL`, which children's data must be known for the transfer to say something)."""

    def modify(self, eg: Any, c: int) -> None:
        """Act on class ``c`` after its data changed."""


class IntervalAnalysis:
    """The analysis an :class:`~relations.saturation.engine.egraph.EGraph` keeps per class: an Interval
    (``None``: the whole line).  ``fold=False``: no constant leaf is added (an e-graph that mirrors
    another one, such as :mod:`relations.saturation.query_matcher`'s index, adds only what it mirrors)."""

    def __init__(self, fold: bool = True, inputs: Mapping[Variable, Interval] | None = None) -> None:
        self.fold = fold
        #: the ranges some graph inputs are known to lie in (``relations.stabilize``'s ``domain``)
        self.inputs = dict(inputs or {})

    def leaf(self, v: Variable) -> Interval | None:
        """A constant's range, exact; an input's given range (``None`` for any other leaf)."""
        if not isinstance(v, Constant):
            return self.inputs.get(v)
        i = constant_interval(v)
        if i.lo == i.hi:
            return i if _point(i) is not None else None
        return _coarse(i)

    def merge(self, a: Interval | None, b: Interval | None) -> Interval | None:
        """The intersection (the first when they share nothing: a class of no values, length 0)."""
        if a is None:
            return b
        if b is None:
            return a
        both = a.meet(b)
        return a if both is None else both

    def transfer_for(self, op: Any) -> tuple[Callable | None, int]:
        """``(transfer(eg, enode, tid), need)``: every Op has one (unknown Ops give the whole line)."""
        ndims = isinstance(op, Elemwise | DimShuffle)
        exact = type(getattr(op, "scalar_op", None)) in _EXACT

        def transfer(eg: Any, enode: tuple, tid: int) -> Interval | None:
            data, find = eg.data, eg.find
            kids = [data[find(k)] for k in enode[1:]]
            if exact:
                point = _exact_point(op, kids)
                if point is not None:
                    return point
            nd = None if ndims else [getattr(eg.types[eg.ctype[find(k)]], "ndim", 0) for k in enode[1:]]
            return _coarse(op_interval(op, [k or EVERYTHING for k in kids], nd))

        scalar = getattr(op, "scalar_op", None)
        if isinstance(scalar, _STRICT):
            return transfer, ALL
        if scalar is not None and isinstance(op, Elemwise):
            top = [EVERYTHING] * (scalar.nin if scalar.nin > 0 else 2)
            if op_interval(op, top) == EVERYTHING:
                return transfer, ANY
        return transfer, ALWAYS

    def modify(self, eg: Any, c: int) -> None:
        """Add a constant leaf to class ``c`` when its interval is an exact point its type holds."""
        v = _point(eg.data[c]) if self.fold else None
        if v is None:
            return
        t = eg.types[eg.ctype[c]]
        bc = getattr(t, "broadcastable", None)
        if bc is None or not all(bc) or np.dtype(t.dtype).kind not in "biuf":
            return
        value = np.asarray(v).astype(t.dtype)
        if float(value) != v:
            return  # not held exactly by the dtype (an int's overflow, a float32's rounding)
        for n in eg.nodes[c]:
            if len(n) == 1 and n in eg.hashcons:
                return  # a leaf already
        leaf = eg.add_leaf(constant(value.reshape((1,) * t.ndim), dtype=t.dtype))
        eg.union(c, leaf, ("constant folding", ()))


def class_interval(eg: Any, c: int) -> Interval:
    """The interval of class ``c`` (the whole line when nothing is known)."""
    d = eg.data[eg.find(c)]
    return d if isinstance(d, Interval) else EVERYTHING


def _class_guard(name: str, test: Callable[[Interval], bool]) -> Callable[[Any, dict], bool]:
    def guard(eg: Any, binding: dict) -> bool:
        return test(class_interval(eg, binding[name]))

    guard.__name__ = f"{test.__name__}({name})"
    return guard


def positive(name: str) -> Callable[[Any, dict], bool]:
    """A guard: every value of the class bound to ``name`` is > 0."""
    return _class_guard(name, Interval.positive)


def nonnegative(name: str) -> Callable[[Any, dict], bool]:
    """A guard: every value of the class bound to ``name`` is >= 0."""
    return _class_guard(name, Interval.nonnegative)


def nonzero(name: str) -> Callable[[Any, dict], bool]:
    """A guard: no value of the class bound to ``name`` is 0."""
    return _class_guard(name, Interval.nonzero)
