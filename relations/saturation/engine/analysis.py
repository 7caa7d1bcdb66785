"""E-class analyses, egg's ``Analysis``: constant value, sign and value interval, merged on union.

A class's data is ``None`` (nothing known: the top of the lattice) or a tuple
``(sign, lo, hi, const)``:

- ``sign``: a set of the signs the class's values can have, as bits ``NEG | ZERO | POS``
  (``POSITIVE``, ``NONNEGATIVE``, ``NEGATIVE``, ``NONPOSITIVE``, ``ZERO``, ``NONZERO``,
  ``UNKNOWN``); merged by intersection;
- ``[lo, hi]``: floats (``inf`` allowed) bounding every value; merged by intersection;
- ``const``: the value (a numpy array) when known, else ``None``.

The type is the class's own (:attr:`EGraph.ctype`, checked to agree on union).  Claims are
about the values that are not NaN (``sqrt(x)`` is non-negative where it is defined) and hold
in floating point: a product of positives can underflow to 0 (non-negative, not positive),
``exp`` is positive only where the interval says it cannot underflow.  Bounds computed in
float64 are widened outward (relative ``2**-20`` plus the dtype's smallest subnormal) so a
float32 computation's rounding stays inside.

Transfer functions are per scalar Op class (add, sub, mul, true_div, neg, exp, log, log1p,
expm1, sqrt, sqr, abs, sigmoid, softplus, erf, erfc, tanh, ...); an unknown Op gives ``None``.
``modify`` adds a constant leaf to a class whose value is known and small (at most
:data:`FOLD_SIZE` elements) when the constant has the class's type.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from pytensor.tensor import constant
from pytensor.tensor.elemwise import DimShuffle, Elemwise

__all__ = [
    "FOLD_SIZE",
    "NEG",
    "NEGATIVE",
    "NONNEGATIVE",
    "NONPOSITIVE",
    "NONZERO",
    "POS",
    "POSITIVE",
    "UNKNOWN",
    "ZERO",
    "Analysis",
    "nonnegative",
    "nonzero",
    "positive",
    "sign_of",
]

NEG, ZERO, POS = 1, 2, 4
POSITIVE, NONNEGATIVE, NEGATIVE, NONPOSITIVE, NONZERO, UNKNOWN = POS, POS | ZERO, NEG, NEG | ZERO, POS | NEG, 7
INF = math.inf
#: Constants folded into a leaf by ``modify``: at most this many elements.
FOLD_SIZE = 16
_REL = 2.0**-20


def _atoms(s: int) -> tuple[int, ...]:
    return tuple(b for b in (NEG, ZERO, POS) if s & b)


def _table(rule: Callable[[int, int], int]) -> list[list[int]]:
    out = [[0] * 8 for _ in range(8)]
    for a in range(8):
        for b in range(8):
            r = 0
            for x in _atoms(a):
                for y in _atoms(b):
                    r |= rule(x, y)
            out[a][b] = r
    return out


def _add_sign(x: int, y: int) -> int:
    if x == ZERO:
        return y
    if y == ZERO or x == y:
        return x
    return UNKNOWN


def _mul_sign(x: int, y: int) -> int:
    if ZERO in (x, y):
        return ZERO
    return (POS if x == y else NEG) | ZERO  # underflow


def _div_sign(x: int, y: int) -> int:
    if x == ZERO:
        return ZERO  # 0/0 is NaN: not a value
    if y == ZERO:
        return x  # +-inf
    return (POS if x == y else NEG) | ZERO


ADD, MUL, DIV = _table(_add_sign), _table(_mul_sign), _table(_div_sign)


def _neg_sign(s: int) -> int:
    return (s & ZERO) | (NEG if s & POS else 0) | (POS if s & NEG else 0)


def sign_of(lo: float, hi: float) -> int:
    """The signs values in ``[lo, hi]`` can have."""
    return (NEG if lo < 0 else 0) | (ZERO if lo <= 0 <= hi else 0) | (POS if hi > 0 else 0)


def _widen(lo: float, hi: float, tiny: float) -> tuple[float, float]:
    if lo != -INF and lo != 0.0:
        lo = lo - abs(lo) * _REL - tiny
    if hi != INF and hi != 0.0:
        hi = hi + abs(hi) * _REL + tiny
    return lo, hi


def _make(sign: int, lo: float, hi: float, const: Any = None) -> tuple | None:
    """Normalized data: sign and interval refine each other; ``None`` when nothing is known."""
    if math.isnan(lo) or math.isnan(hi):
        lo, hi = -INF, INF
    if not sign & NEG:
        lo = max(lo, 0.0)
    if not sign & POS:
        hi = min(hi, 0.0)
    sign &= sign_of(lo, hi)
    if sign == UNKNOWN and lo == -INF and hi == INF and const is None:
        return None
    return (sign, lo, hi, const)


def _leaf_data(value: np.ndarray) -> tuple | None:
    if value.size == 0 or value.dtype.kind not in "biuf":
        return None
    flat = value.astype("float64")
    if np.isnan(flat).all():
        return None
    lo, hi = float(np.nanmin(flat)), float(np.nanmax(flat))
    sign = (NEG if lo < 0 else 0) | (ZERO if (flat == 0).any() else 0) | (POS if hi > 0 else 0)
    return (sign, lo, hi, value)


TOP = (UNKNOWN, -INF, INF, None)


def _unary(sign_map: Callable[[int], int], bounds: Callable[[float, float], tuple[float, float]]) -> Callable:
    def transfer(d: tuple, tiny: float) -> tuple | None:
        s, lo, hi, _ = d
        with np.errstate(all="ignore"):
            nlo, nhi = bounds(lo, hi)
        return _make(sign_map(s), *_widen(nlo, nhi, tiny))

    return transfer


def _mono(f: Callable[[float], float]) -> Callable[[float, float], tuple[float, float]]:
    return lambda lo, hi: (f(lo), f(hi))


def _safe(f: Callable[[float], float], below: float = -INF, at_low: float = -INF) -> Callable[[float], float]:
    def g(x: float) -> float:
        if x < below:
            return at_low
        try:
            return f(x)
        except (OverflowError, ValueError):
            return INF if x > 0 else at_low
    return g


def _sqr_bounds(lo: float, hi: float) -> tuple[float, float]:
    if lo >= 0:
        return lo * lo, hi * hi
    if hi <= 0:
        return hi * hi, lo * lo
    return 0.0, max(lo * lo, hi * hi)


def _abs_bounds(lo: float, hi: float) -> tuple[float, float]:
    if lo >= 0:
        return lo, hi
    if hi <= 0:
        return -hi, -lo
    return 0.0, max(-lo, hi)


def _abs_sign(s: int) -> int:
    return (ZERO if s & ZERO else 0) | (POS if s & (POS | NEG) else 0)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def _softplus(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _keep(s: int) -> int:
    return s


def _NONNEG_SIGN(s: int) -> int:  # noqa: N802 - read as the constant sign it gives
    return NONNEGATIVE
UNARY: dict[str, Callable] = {
    "Neg": _unary(_neg_sign, lambda lo, hi: (-hi, -lo)),
    "Exp": _unary(_NONNEG_SIGN, _mono(_safe(math.exp, -746.0, 0.0))),
    "Log": _unary(lambda s: UNKNOWN if s & POS or not s & ZERO else NEG,
                  _mono(_safe(math.log, 0.0, -INF))),
    "Log1p": _unary(_keep, _mono(_safe(math.log1p, -1.0, -INF))),
    "Expm1": _unary(_keep, _mono(_safe(math.expm1))),
    "Sqrt": _unary(lambda s: (s & (ZERO | POS)) or UNKNOWN, _mono(_safe(math.sqrt, 0.0, 0.0))),
    "Sqr": _unary(lambda s: (ZERO if s & ZERO else 0) | (POS | ZERO if s & (POS | NEG) else 0), _sqr_bounds),
    "Abs": _unary(_abs_sign, _abs_bounds),
    "Sigmoid": _unary(_NONNEG_SIGN, _mono(_sigmoid)),
    "Softplus": _unary(_NONNEG_SIGN, _mono(_safe(_softplus))),
    "Erf": _unary(_keep, _mono(math.erf)),
    "Erfc": _unary(_NONNEG_SIGN, lambda lo, hi: (math.erfc(hi), math.erfc(lo))),
    "Tanh": _unary(_keep, _mono(math.tanh)),
}
#: Whether a unary op's result is known even when nothing is known of its input.
UNARY_FROM_TOP = {"Exp", "Sqrt", "Sqr", "Abs", "Sigmoid", "Softplus", "Erf", "Erfc", "Tanh", "Expm1", "Log1p"}


def _binary_bounds(name: str, a: tuple, b: tuple) -> tuple[float, float]:
    (lo1, hi1), (lo2, hi2) = a, b
    with np.errstate(all="ignore"):
        if name == "Add":
            lo, hi = lo1 + lo2, hi1 + hi2
        elif name == "Sub":
            lo, hi = lo1 - hi2, hi1 - lo2
        elif name == "Mul":
            ps = [x * y for x in (lo1, hi1) for y in (lo2, hi2)]
            if any(math.isnan(x) for x in ps):
                return -INF, INF
            lo, hi = min(ps), max(ps)
        else:
            return -INF, INF
    return (-INF if math.isnan(lo) else lo), (INF if math.isnan(hi) else hi)


def _binary(name: str, a: tuple, b: tuple, tiny: float) -> tuple | None:
    if name == "Sub":
        sign = ADD[a[0]][_neg_sign(b[0])]
    else:
        sign = {"Add": ADD, "Mul": MUL, "TrueDiv": DIV}[name][a[0]][b[0]]
    lo, hi = _binary_bounds(name, a[1:3], b[1:3])
    return _make(sign, *_widen(lo, hi, tiny))


BINARY = {"Add", "Sub", "Mul", "TrueDiv"}
#: numpy functions folding constants, by scalar Op class name
FOLD: dict[str, Callable] = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "TrueDiv": np.true_divide, "Neg": np.negative,
    "Exp": np.exp, "Log": np.log, "Log1p": np.log1p, "Expm1": np.expm1, "Sqrt": np.sqrt, "Sqr": np.square,
    "Abs": np.abs, "Tanh": np.tanh,
}


_TINY: dict[Any, float] = {}


def _tiny(dtype: str | None) -> float:
    """The smallest positive subnormal of ``dtype`` (0 for non-floats)."""
    t = _TINY.get(dtype)
    if t is None:
        t = 0.0
        if dtype is not None and np.dtype(dtype).kind == "f":
            t = float(np.nextafter(np.zeros((), dtype), np.ones((), dtype)))
        _TINY[dtype] = t
    return t


def _kids(eg: Any, enode: tuple, fold: Callable | None, tid: int) -> tuple[list, float, tuple | None, bool]:
    kids = [eg.data[eg.find(k)] for k in enode[1:]]
    t = eg.types[tid]
    if fold is not None and all(d is not None and d[3] is not None for d in kids):
        return kids, 0.0, _folded(fold, kids, t), True
    return kids, _tiny(getattr(t, "dtype", None)), None, False


def _unary_transfer(name: str) -> Callable:
    fold, fn = FOLD.get(name), UNARY[name]

    def transfer(eg: Any, enode: tuple, tid: int) -> tuple | None:
        kids, tiny, folded, done = _kids(eg, enode, fold, tid)
        if done:
            return folded
        if kids[0] is None:
            return fn(TOP, tiny) if name in UNARY_FROM_TOP else None
        return fn(kids[0], tiny)

    return transfer


def _binary_transfer(name: str) -> Callable:
    fold = FOLD.get(name)

    def transfer(eg: Any, enode: tuple, tid: int) -> tuple | None:
        if len(enode) != 3:
            return None
        kids, tiny, folded, done = _kids(eg, enode, fold, tid)
        if done:
            return folded
        if kids[0] is None or kids[1] is None:
            return None
        return _binary(name, kids[0], kids[1], tiny)

    return transfer


class ClassAnalysis(Protocol):
    """What an e-graph asks of its analysis (:class:`Analysis`, or
    :class:`~relations.saturation.engine.interval_analysis.IntervalAnalysis`)."""

    def leaf(self, v: Any) -> Any:
        """The data of a constant leaf ``v``."""

    def merge(self, a: Any, b: Any) -> Any:
        """The data of a union of classes with data ``a`` and ``b``."""

    def transfer_for(self, op: Any) -> tuple[Callable | None, bool]:
        """``(transfer(eg, enode, tid), strict)`` for e-nodes of ``op``."""

    def modify(self, eg: Any, c: int) -> None:
        """Act on class ``c`` after its data changed."""


class Analysis:
    """The analysis the e-graph keeps per class: ``leaf``, ``transfer_for``, ``merge``, ``modify``."""

    def leaf(self, v: Any) -> tuple | None:
        """The data of a constant leaf ``v``."""
        return _leaf_data(np.asarray(v.data))

    def merge(self, a: tuple | None, b: tuple | None) -> tuple | None:
        """The meet of two classes' data (both hold of the merged class)."""
        if a is None:
            return b
        if b is None:
            return a
        sign = a[0] & b[0]
        lo, hi = max(a[1], b[1]), min(a[2], b[2])
        if sign == 0 or lo > hi:  # no values (length-0) or one side unsound: keep the first
            return a
        return _make(sign, lo, hi, a[3] if a[3] is not None else b[3])

    def transfer_for(self, op: Any) -> tuple[Callable | None, bool]:
        """``(transfer, strict)``: ``transfer(eg, enode, tid)`` gives the data of an e-node of ``op`` from its
        children's (``None``: an Op the analysis does not know); ``strict``: it knows nothing when a
        child's data is unknown (the e-graph then does not call it)."""
        if isinstance(op, DimShuffle):
            return _through, True
        if not isinstance(op, Elemwise):
            return None, True
        name = type(op.scalar_op).__name__
        if name in UNARY:
            return _unary_transfer(name), name not in UNARY_FROM_TOP
        if name in BINARY:
            return _binary_transfer(name), True
        return None, True

    def modify(self, eg: Any, c: int) -> None:
        """Add a constant leaf to class ``c`` when its value is known, small and of the class's type."""
        d = eg.data[c]
        if d is None or d[3] is None or d[3].size > FOLD_SIZE:
            return
        for n in eg.nodes[c]:
            if len(n) == 1 and n in eg.hashcons:
                return  # a leaf already
        t = eg.types[eg.ctype[c]]
        value = d[3]
        if value.ndim != t.ndim or tuple(s == 1 for s in value.shape) != t.broadcastable:
            return
        leaf = eg.add_leaf(constant(value.astype(t.dtype), dtype=t.dtype))
        eg.union(c, leaf, ("constant folding", ()))


def _through(eg: Any, enode: tuple, tid: int) -> tuple | None:
    d = eg.data[eg.find(enode[1])]
    return None if d is None else (d[0], d[1], d[2], None)


def _folded(fold: Callable, kids: list, t: Any) -> tuple | None:
    with np.errstate(all="ignore"):
        try:
            value = np.asarray(fold(*[k[3] for k in kids])).astype(t.dtype)
        except (TypeError, ValueError):
            return None
    if value.ndim != t.ndim:
        return None
    return _leaf_data(value) or (UNKNOWN, -INF, INF, value)


def _class_guard(name: str, allowed: int) -> Callable[[Any, dict], bool]:
    def guard(eg: Any, binding: dict) -> bool:
        d = eg.data[eg.find(binding[name])]
        return d is not None and d[0] & ~allowed == 0

    guard.__name__ = f"{name} in {allowed}"
    return guard


def positive(name: str) -> Callable[[Any, dict], bool]:
    """A guard: every (non-NaN) value of the class bound to ``name`` is > 0."""
    return _class_guard(name, POSITIVE)


def nonnegative(name: str) -> Callable[[Any, dict], bool]:
    """A guard: every (non-NaN) value of the class bound to ``name`` is >= 0."""
    return _class_guard(name, NONNEGATIVE)


def nonzero(name: str) -> Callable[[Any, dict], bool]:
    """A guard: no value of the class bound to ``name`` is 0."""
    return _class_guard(name, NONZERO)
