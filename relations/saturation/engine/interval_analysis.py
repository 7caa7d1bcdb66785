"""The value-interval analysis of an e-class, with the transfer functions of :mod:`graph_bridge.intervals`.

One transfer table serves both readers: :func:`graph_bridge.intervals.interval_of` on a graph and
this analysis on an e-graph call :func:`graph_bridge.intervals.op_interval` (exact real arithmetic:
an identity's condition is a fact about real functions).  A class's data is an
:class:`~graph_bridge.intervals.Interval`: a leaf's is its constant's range or the whole line, an
e-node's is its Op's transfer of its children's, and a union keeps what both classes' data say
(the intersection), so a class holding ``exp(x)`` is positive whichever of its e-nodes a guard
reads.  Bounds are widened outward to a finite lattice (0, +-1, +-2**k for |k| <= 64, +-inf) so
that refining a class along a cycle of e-nodes stops: each bound can move at most 260 times.

Before/After (the class of ``exp(x) + 1``)::

    x: (-inf, inf)   exp(x): (0, inf)   exp(x) + 1: [1, inf)
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import Any

from pytensor.graph.basic import Constant, Variable
from pytensor.tensor.elemwise import DimShuffle, Elemwise

from graph_bridge.interval_type import EVERYTHING, Interval
from graph_bridge.intervals import constant_interval, op_interval

__all__ = ["IntervalAnalysis", "class_interval"]

_STEPS = sorted({0.0, *[2.0**k for k in range(-64, 65)], *[-(2.0**k) for k in range(-64, 65)]})


def _down(v: float) -> float:
    """The largest lattice point <= ``v``."""
    if math.isinf(v) or math.isnan(v):
        return -math.inf if math.isnan(v) else v
    k = bisect_right(_STEPS, v)
    return _STEPS[k - 1] if k else -math.inf


def _coarse(i: Interval) -> Interval:
    lo = _down(i.lo)
    hi = -_down(-i.hi)
    return Interval(lo, hi, i.lo_open and lo == i.lo, i.hi_open and hi == i.hi)


class IntervalAnalysis:
    """The analysis an :class:`~relations.saturation.engine.egraph.EGraph` keeps per class: an Interval."""

    def leaf(self, v: Variable) -> Interval:
        """A constant's range (the whole line for any other leaf)."""
        return _coarse(constant_interval(v)) if isinstance(v, Constant) else EVERYTHING

    def merge(self, a: Interval | None, b: Interval | None) -> Interval | None:
        """The intersection (the first when they share nothing: a class of no values, length 0)."""
        if a is None:
            return b
        if b is None:
            return a
        both = a.meet(b)
        return a if both is None else both

    def transfer_for(self, op: Any) -> tuple[Any, bool]:
        """``(transfer(eg, enode, tid), strict=False)``: every Op has one (unknown Ops give the whole line)."""
        ndims = isinstance(op, Elemwise | DimShuffle)

        def transfer(eg: Any, enode: tuple, tid: int) -> Interval:
            kids = [eg.data[eg.find(k)] or EVERYTHING for k in enode[1:]]
            nd = None if ndims else [getattr(eg.types[eg.ctype[eg.find(k)]], "ndim", 0) for k in enode[1:]]
            return _coarse(op_interval(op, kids, nd))

        return transfer, False

    def modify(self, eg: Any, c: int) -> None:
        """Nothing: an interval adds no e-node."""


def class_interval(eg: Any, c: int) -> Interval:
    """The interval of class ``c`` (the whole line when the e-graph keeps another analysis)."""
    d = eg.data[eg.find(c)]
    return d if isinstance(d, Interval) else EVERYTHING
