"""Value ranges of PyTensor variables: an interval per variable, read bottom-up from the graph.

The guards of the rule language (:mod:`relations.patterns.guards`:
``positive(a)``, ``within(x, 0, 1)``, ...) ask what values a sub-graph can
take, for identities that hold only on part of the line (``log(c * a) =
log(c) + log(a)`` where ``c > 0``).  :func:`interval_of` answers with an
:class:`Interval` that contains every value the variable takes, for every
input: an input is unbounded, a constant is its values' range, and each Op
the analysis knows maps its inputs' intervals to its output's (interval
arithmetic in exact real arithmetic: ``exp`` is positive even where the
float underflows, since an identity's condition is a fact about the real
function).  An Op it does not know gives the whole line, so a guard that
reads an unknown range does not hold: a conditional rule is never applied
where its condition is unknown.  NaN is not tracked (it flows through both
sides of an identity alike).

Before/After (``interval_of(pt.exp(x) + 1)`` with ``x`` a free vector)::

    x: (-inf, inf)  ->  exp(x): (0, inf)  ->  exp(x) + 1: (1, inf)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import pytensor.scalar as ps
from pytensor.graph.basic import Constant, Variable
from pytensor.scalar.math import Log1mexp
from pytensor.tensor.basic import Alloc, Join
from pytensor.tensor.elemwise import CAReduce, DimShuffle
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.shape import Reshape, Shape, Shape_i, SpecifyShape
from pytensor.tensor.subtensor import AdvancedSubtensor, Subtensor

from graph_bridge.interval_type import EVERYTHING, INF, Interval
from graph_bridge.supports import random_support
from graph_bridge.traverse import bottom_up

__all__ = ["assuming", "constant_interval", "defined_nowhere", "interval_of", "op_interval", "partial_op"]

_POSITIVE = Interval(0.0, INF, True, True)
_NONNEGATIVE = Interval(0.0, INF, False, True)


def _closed(lo: float, hi: float) -> Interval:
    return Interval(float(lo), float(hi), math.isinf(lo), math.isinf(hi))


def _monotone(f: Callable[[float], float], a: Interval, increasing: bool = True) -> Interval:
    """``f`` of an interval, for an ``f`` monotone on it (ends kept open or closed)."""
    lo, hi = _safe(f, a.lo), _safe(f, a.hi)
    if increasing:
        return Interval(lo, hi, a.lo_open, a.hi_open)
    return Interval(hi, lo, a.hi_open, a.lo_open)


def _safe(f: Callable[[float], float], v: float) -> float:
    try:
        return float(f(v))
    except (OverflowError, ValueError):
        return INF if v > 0 else -INF


def _add(xs: list[Interval]) -> Interval:
    lo, hi = sum(x.lo for x in xs), sum(x.hi for x in xs)
    if math.isnan(lo) or math.isnan(hi):
        return EVERYTHING
    return Interval(lo, hi, any(x.lo_open for x in xs), any(x.hi_open for x in xs))


def _neg(a: Interval) -> Interval:
    return Interval(-a.hi, -a.lo, a.hi_open, a.lo_open)


def _mul2(a: Interval, b: Interval) -> Interval:
    ends = []
    for x, xo in ((a.lo, a.lo_open), (a.hi, a.hi_open)):
        for y, yo in ((b.lo, b.lo_open), (b.hi, b.hi_open)):
            v = 0.0 if (x == 0 and not xo) or (y == 0 and not yo) else x * y
            ends.append((0.0 if math.isnan(v) else v, xo or yo))
    lo = min(ends, key=lambda e: (e[0], e[1]))
    hi = max(ends, key=lambda e: (e[0], not e[1]))
    out = Interval(lo[0], hi[0], lo[1], hi[1])
    # a product of two positives (or two negatives) is positive even when an end is 0 or inf
    if (a.positive() and b.positive()) or (a.negative() and b.negative()):
        out = Interval(max(out.lo, 0.0), out.hi, out.lo_open or out.lo <= 0, out.hi_open)
    return out


def _reciprocal(a: Interval) -> Interval:
    if not a.nonzero():
        return EVERYTHING
    # an end at 0 (open: the interval is nonzero) goes to an infinity of its side
    lo = 0.0 if math.isinf(a.hi) else (-INF if a.hi == 0 else 1.0 / a.hi)
    hi = 0.0 if math.isinf(a.lo) else (INF if a.lo == 0 else 1.0 / a.lo)
    return Interval(lo, hi, a.hi_open or math.isinf(a.hi) or a.hi == 0, a.lo_open or math.isinf(a.lo) or a.lo == 0)


def _sqr(a: Interval) -> Interval:
    if a.nonnegative():
        return _mul2(a, a)
    if a.nonpositive():
        return _mul2(_neg(a), _neg(a))
    hi = max(a.lo * a.lo, a.hi * a.hi)
    return Interval(0.0, hi, False, math.isinf(hi))


def _log_like(f: Callable[[float], float], floor: float) -> Callable[[Interval], Interval]:
    """An increasing function defined above ``floor`` (``log``: 0, ``log1p``: -1)."""

    def transfer(a: Interval) -> Interval:
        if a.lo < floor or (a.lo == floor and not a.lo_open):
            a = Interval(floor, a.hi, True, a.hi_open)
        return _monotone(lambda v: -INF if v == floor else f(v), a)

    return transfer


def _bounded(
    lo: float, hi: float, f: Callable[[float], float], increasing: bool = True
) -> Callable[[Interval], Interval]:
    """A monotone function with values strictly between ``lo`` and ``hi``."""

    def transfer(a: Interval) -> Interval:
        out = _monotone(f, a, increasing)
        return Interval(max(out.lo, lo), min(out.hi, hi), out.lo_open or out.lo <= lo, out.hi_open or out.hi >= hi)

    return transfer


def _pow(a: Interval, b: Interval) -> Interval:
    if b.lo == b.hi and not math.isinf(b.lo):
        e = b.lo
        if e == 2:
            return _sqr(a)
        if a.positive() and e == 0:
            return _closed(1, 1)
        if a.positive():  # a negative power of an end at 0 is +inf (the end is open: a is positive)
            return _monotone(lambda v: INF if v == 0 and e < 0 else v**e, a, increasing=e >= 0)
        if e != int(e):  # a fractional power is real for a >= 0 only: its values there, as for sqrt
            return _fractional_pow(a, e)
        if int(e) % 2 == 0:  # an even power: x ** -2 and x ** 4 are >= 0 wherever they are defined
            return _NONNEGATIVE
    if a.positive():
        return _POSITIVE
    return EVERYTHING


def _fractional_pow(a: Interval, e: float) -> Interval:
    """``a ** e`` for a constant ``e`` that is not an integer and an ``a`` not known positive (``_pow`` takes
    those): its values where ``a >= 0``, from ``0 ** e`` (elsewhere it is NaN)."""
    if a.hi < 0:
        return EVERYTHING
    if e < 0:  # ``0 ** -0.5`` is inf: the values are in (0, inf]
        return _POSITIVE
    return _monotone(lambda v: v**e, Interval(0.0, a.hi, False, a.hi_open))


def _switch(c: Interval, a: Interval, b: Interval) -> Interval:
    return a.join(b)


def _max2(xs: list[Interval]) -> Interval:
    lo = max(xs, key=lambda x: x.lo)
    hi = max(xs, key=lambda x: x.hi)
    return Interval(lo.lo, hi.hi, lo.lo_open, hi.hi_open)


def _min2(xs: list[Interval]) -> Interval:
    return _neg(_max2([_neg(x) for x in xs]))


def _abs(a: Interval) -> Interval:
    if a.nonnegative():
        return a
    if a.nonpositive():
        return _neg(a)
    return Interval(0.0, max(-a.lo, a.hi), False, True)


def _sqrt(a: Interval) -> Interval:
    if a.hi < 0:
        return EVERYTHING
    return _monotone(math.sqrt, Interval(max(a.lo, 0.0), a.hi, a.lo_open and a.lo >= 0, a.hi_open))


def _sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v)) if v > -700 else 0.0


def _softplus(v: float) -> float:
    return math.log1p(math.exp(v)) if v < 700 else v


_UNARY: dict[type, Callable[[Interval], Interval]] = {
    ps.Neg: _neg,
    ps.Identity: lambda a: a,
    ps.Cast: lambda a: a,
    ps.Exp: _bounded(0.0, INF, math.exp),
    ps.Exp2: _bounded(0.0, INF, lambda v: 2.0**v),
    ps.Expm1: _bounded(-1.0, INF, math.expm1),
    ps.Log: _log_like(math.log, 0.0),
    ps.Log2: _log_like(math.log2, 0.0),
    ps.Log10: _log_like(math.log10, 0.0),
    ps.Log1p: _log_like(math.log1p, -1.0),
    ps.Sqrt: _sqrt,
    ps.Sqr: _sqr,
    ps.Abs: _abs,
    ps.Reciprocal: _reciprocal,
    ps.Sigmoid: _bounded(0.0, 1.0, _sigmoid),
    ps.Softplus: _bounded(0.0, INF, _softplus),
    ps.Erf: _bounded(-1.0, 1.0, math.erf),
    ps.Erfc: _bounded(0.0, 2.0, math.erfc, increasing=False),
    ps.Erfcx: lambda a: _POSITIVE,
    ps.Tanh: _bounded(-1.0, 1.0, math.tanh),
    ps.Sinh: lambda a: _monotone(math.sinh, a),
    ps.Cosh: lambda a: Interval(1.0, INF, False, True),
    ps.ArcTan: _bounded(-math.pi / 2, math.pi / 2, math.atan),
    ps.Gamma: lambda a: _POSITIVE if a.positive() else EVERYTHING,
    ps.Floor: lambda a: _monotone(math.floor, a),
    ps.Ceil: lambda a: _monotone(math.ceil, a),
}

_NARY: dict[type, Callable[[list[Interval]], Interval]] = {
    ps.Add: _add,
    ps.Sub: lambda xs: _add([xs[0], _neg(xs[1])]),
    ps.Mul: lambda xs: _fold(_mul2, xs),
    ps.TrueDiv: lambda xs: _mul2(xs[0], _reciprocal(xs[1])),
    ps.Pow: lambda xs: _pow(xs[0], xs[1]),
    ps.Maximum: _max2,
    ps.Minimum: _min2,
    ps.Switch: lambda xs: xs[1].join(xs[2]),
}


def _fold(f: Callable[[Interval, Interval], Interval], xs: list[Interval]) -> Interval:
    out = xs[0]
    for x in xs[1:]:
        out = f(out, x)
    return out


def _constant(v: Constant) -> Interval:
    data = np.asarray(v.data)
    if data.size == 0 or data.dtype.kind not in "biuf":
        return EVERYTHING
    data = data.astype("float64")
    if np.isnan(data).any():
        return EVERYTHING
    return _closed(float(data.min()), float(data.max()))


def _reduction(scalar_op: object, x: Interval) -> Interval:
    if isinstance(scalar_op, (ps.ScalarMaximum, ps.ScalarMinimum)):
        return x
    if isinstance(scalar_op, ps.Add):  # a sum of no element is 0
        if x.nonnegative():
            return _NONNEGATIVE
        if x.nonpositive():
            return _neg(_NONNEGATIVE)
    if isinstance(scalar_op, ps.Mul) and x.positive():  # a product of no element is 1
        return _POSITIVE
    return EVERYTHING


#: Ops whose output holds only values of their first input (views, broadcasts, selections).
_SAME_AS_FIRST = (DimShuffle, Alloc, Reshape, SpecifyShape, Subtensor, AdvancedSubtensor)


def op_interval(op: Any, ins: Sequence[Interval], ndims: Sequence[int] | None = None) -> Interval:
    """The interval of the output of ``op`` over inputs of intervals ``ins`` (``ndims``: the inputs'
    ndims, which tell a Join's axis input from its pieces on PyTensor 3.0); the whole line where unknown.

    One transfer function per Op, for the graph walk here and for an e-graph's class analysis alike.
    """
    scalar_op = getattr(op, "scalar_op", None)
    if isinstance(op, CAReduce):
        return _reduction(scalar_op, ins[0])
    if scalar_op is not None:
        unary = _UNARY.get(type(scalar_op))
        if unary is not None and len(ins) == 1:
            return unary(ins[0])
        nary = _NARY.get(type(scalar_op))
        return nary(list(ins)) if nary is not None else EVERYTHING
    if isinstance(op, (Shape, Shape_i)):
        return _NONNEGATIVE
    if isinstance(op, _SAME_AS_FIRST) or type(op).__name__ == "ExplicitAlloc":
        return ins[0]
    if isinstance(op, Join):  # the axis is an input on PyTensor 3.0, a prop on 3.3
        pieces = [t for k, t in enumerate(ins) if ndims is None or ndims[k] > 0]
        return _fold(Interval.join, pieces) if pieces else EVERYTHING
    return EVERYTHING


def _zero(a: Interval) -> bool:
    return a.lo == 0 and a.hi == 0


def _infinite_point(a: Interval) -> bool:
    return a.lo == a.hi and math.isinf(a.lo)


#: For each partial scalar Op, when its inputs' intervals leave it no real value: the log of a value
#: that is at most 0 everywhere, a division by exactly 0, the arcsine of a value above 1 everywhere...
_NOWHERE: dict[type, Callable[[Sequence[Interval]], bool]] = {
    ps.Log: lambda i: i[0].hi <= 0,
    ps.Log2: lambda i: i[0].hi <= 0,
    ps.Log10: lambda i: i[0].hi <= 0,
    ps.Log1p: lambda i: i[0].hi <= -1,
    ps.Sqrt: lambda i: i[0].hi < 0,
    ps.Reciprocal: lambda i: _zero(i[0]),
    ps.TrueDiv: lambda i: _zero(i[1]),
    ps.Pow: lambda i: _zero(i[0]) and i[1].hi < 0,
    ps.ArcSin: lambda i: i[0].lo > 1 or i[0].hi < -1,
    ps.ArcCos: lambda i: i[0].lo > 1 or i[0].hi < -1,
    ps.ArcTanh: lambda i: i[0].lo >= 1 or i[0].hi <= -1,
    ps.ArcCosh: lambda i: i[0].hi < 1,
    Log1mexp: lambda i: i[0].lo >= 0,
}


def partial_op(op: Any) -> bool:
    """Whether ``op`` is an Elemwise of a scalar Op that :func:`defined_nowhere` knows a domain of."""
    return type(getattr(op, "scalar_op", None)) in _NOWHERE


def defined_nowhere(op: Any, ins: Sequence[Interval]) -> bool:
    """Whether ``op`` has no real value for any inputs in the intervals ``ins``: an input is an infinite
    point (``log(0)``), or every input is outside the Op's domain (``log`` of a value ``<= 0``, a division
    by exactly 0).  ``False`` where unknown.

    An equality between real functions says nothing about an expression that is nowhere a real
    number; an e-graph that unions one with a value is unsound, and congruence spreads it (``1/0``
    and ``1/(-0)`` in one class make ``inf`` equal ``-inf``)."""
    test = _NOWHERE.get(type(getattr(op, "scalar_op", None)))
    if test is None or len(ins) == 0:
        return False
    return any(_infinite_point(i) for i in ins) or test(ins)


def constant_interval(v: Constant) -> Interval:
    """The range of a constant's values (the whole line when it is empty or not a number)."""
    return _constant(v)


def _node_interval(v: Variable, known: dict[Variable, Interval]) -> Interval:
    node = v.owner
    if node is None:
        return _constant(v) if isinstance(v, Constant) else EVERYTHING
    if isinstance(node.op, RandomVariable):  # outputs (rng, draw): a draw is in its support
        if v is not node.outputs[-1]:
            return EVERYTHING
        return random_support(node.op, [known.get(i, EVERYTHING) for i in node.inputs[2:]])
    if len(node.outputs) != 1:
        return EVERYTHING
    ins = [known.get(i, EVERYTHING) for i in node.inputs]
    return op_interval(node.op, ins, [getattr(i.type, "ndim", 0) for i in node.inputs])  # (NoneConst: no ndim)


_ASSUMED: ContextVar[Mapping[Variable, Interval]] = ContextVar("assumed_intervals", default={})


@contextmanager
def assuming(intervals: Mapping[Variable, Interval]) -> Iterator[None]:
    """Within the block, :func:`interval_of` takes each variable of ``intervals`` to be in its interval.

    An e-graph's guards read a class's interval this way: a stand-in variable of the class's type,
    assumed in the class's interval (:mod:`relations.saturation.engine.guards`)."""
    token = _ASSUMED.set({**_ASSUMED.get(), **intervals})
    try:
        yield
    finally:
        _ASSUMED.reset(token)


def interval_of(v: Variable, memo: dict[Variable, Interval] | None = None) -> Interval:
    """An :class:`Interval` holding every value ``v`` takes, on every input (the whole line where unknown).

    Read bottom-up over ``v``'s ancestors, each once (no recursion: deep
    graphs are fine).  ``v`` is not changed.  Variables given to :func:`assuming`
    take the interval given there.  ``memo`` (a dict the caller keeps) holds the intervals found, so
    many calls over one graph read each variable once; it is filled, and read, as it is given.
    """
    if not isinstance(v, Variable):
        raise TypeError(f"v must be a PyTensor variable, got {type(v).__name__}")
    known: dict[Variable, Interval] = dict(_ASSUMED.get()) if memo is None else memo
    if memo is not None and not memo:
        memo.update(_ASSUMED.get())
    for u in bottom_up([v], known.__contains__):
        known[u] = _node_interval(u, known)
    return known[v]
