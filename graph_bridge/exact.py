"""Exact values of a PyTensor graph: every float computed with mpmath, at a precision that is raised until it holds.

A graph's float variables are evaluated on numpy object arrays of mpmath numbers, one
scalar function per scalar Op (:data:`MP_FUNCTIONS`: the real-number meaning of the Op,
``Cast`` included: a cast is the identity on reals); integer and boolean variables (shapes,
indices, conditions) keep numpy's values.  Structural Ops (``DimShuffle``, ``Alloc``,
``Subtensor``, ``Reshape``, ...) run their own ``perform`` on the object arrays (``MakeVector`` and
``Join``, whose ``perform`` casts, stack and concatenate them); reductions add, multiply or compare
mpmath numbers; an ``OpFromGraph`` (PyTensor 3.3's ``Softmax``, ``LogSoftmax``, ``LogSumExp``) is
evaluated through its inner graph, PyTensor 3.0's ``Softmax`` and ``LogSoftmax`` through their
definitions.  An Op with no exact meaning here raises
:class:`NotExact`, naming it.

The precision is raised until the digits that cancel are accounted for: every value carries
the bits its computation lost (an addition or subtraction loses ``log2(max |operand| /
|result|)``, all of them when operands cancel to zero; a logarithm near 1 loses
``-log2 |result|``; a function of a rounded operand loses ``log2`` of its condition number:
``exp`` and ``gamma`` of a large operand, ``log1p`` near -1, ``gammaln`` near 1 and 2; the losses
of the operands add up along the graph), and a graph is
evaluated again at twice the precision while some output has fewer than its dtype's
mantissa plus :data:`GUARD_BITS` bits left (``exp(x) - 1`` at ``x = 1e-300`` needs about
1,000 bits: at 128 bits ``exp`` rounds to 1 and the subtraction loses everything).  Two
precisions that merely agree would not do: both round ``exp(1e-300)`` to 1.  An element
still short of bits at ``max_bits`` is reported as unknown (NaN in the result, ``False`` in
the mask).  A value outside the reals (``log(-1)``, ``sqrt(-1)``) is NaN, and so is a pole
(``1 / x`` at 0: the infinity takes the sign of the zero, which exact numbers do not
carry; ``-1 / (x * (x + 1))`` at ``x = -1`` is ``+inf`` in IEEE, since ``x + 1`` is ``+0``).

Before/After (``log1p(x) - x`` at ``x = 1e-20``: float64 gives ``0``)::

    >>> import pytensor.tensor as pt, numpy as np
    >>> x = pt.dvector("x")
    >>> values, ok = exact_values([pt.log1p(x) - x], {x: np.array([1e-20])})
    >>> float(values[0][0])
    -5e-41
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.scalar as ps
from pytensor.compile.builders import OpFromGraph
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import io_toposort
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import CAReduce, Elemwise
from pytensor.tensor.special import LogSoftmax, Softmax

__all__ = ["EXACT", "GUARD_BITS", "MP_FUNCTIONS", "NotExact", "exact_values", "independent_rows", "round_to", "to_mp",
           "values_at"]


class NotExact(ValueError):
    """A graph holds an Op whose exact meaning :mod:`graph_bridge.exact` does not know (the message names it)."""


#: The loss a pole reports: finite (a higher precision would give the same zero, so it is not retried) and
#: beyond any precision (so the entry is unknown: ``settled`` is ``False``, the value NaN).
_POLE_LOSS = 1e9


def _div(a: Any, b: Any) -> Any:
    if b == 0:  # a pole: its infinity takes the zero's sign, which mpmath does not carry (unknown)
        return mp.nan
    return a / b


#: Operands whose binary exponent exceeds this are beyond exact evaluation: ``exp`` of one needs ``log 2``
#: to as many bits (``exp(exp(exp(x)))``); the value is unknown (NaN), never computed for minutes.
_FAR_MAG = 1 << 16


def _far_beyond(mag: int, sign: int = 0) -> Callable[..., bool]:
    """Whether some operand's binary exponent exceeds ``mag`` (of the ``sign`` given, or of either)."""

    def far(*args: Any) -> bool:
        return any(not mp.isnan(a) and not mp.isinf(a) and a != 0 and (sign == 0 or mp.sign(a) == sign)
                   and mp.mag(a) > mag for a in args)

    return far


def _real(f: Callable[..., Any], far: Callable[..., bool] | None = None) -> Callable[..., Any]:
    """``f`` whose complex or undefined results are NaN (the Op's real meaning); ``far``: where an
    exponential (``exp``, ``sinh``, ``erfc``'s ``exp(-x**2)``, ...) is beyond exact evaluation (unknown)."""

    def g(*args: Any) -> Any:
        if any(mp.isnan(a) for a in args):
            return mp.nan
        if far is not None and far(*args):
            return mp.nan
        try:
            r = f(*args)
        except (ZeroDivisionError, ValueError, OverflowError):  # mpmath's own bounds: the value is unknown
            return mp.nan
        if isinstance(r, mp.mpc):
            return r.real if r.imag == 0 else mp.nan
        return r

    g.__name__ = getattr(f, "__name__", "f")
    return g


def _log(x: Any) -> Any:
    if x < 0:
        return mp.nan
    return -mp.inf if x == 0 else mp.log(x)


def _log1mexp(x: Any) -> Any:
    if x < -mp.log(2):  # 1 - exp(x) is near 1: log1p keeps the digits log would round away
        return mp.log1p(-mp.exp(x))
    return _log(-mp.expm1(x))


def _exact_abs(a: Any) -> Any:
    """``|a|`` without rounding (mpmath's ``abs`` and ``-`` round to the working precision)."""
    return mp.fneg(a, exact=True) if a < 0 else a


def _pow(a: Any, b: Any) -> Any:
    if a < 0 and b != mp.floor(b):
        return mp.nan
    if a == 0 and b < 0:
        return mp.inf
    if abs(b) > _HUGE_POWER and a != 0 and not mp.isinf(a):  # mpmath squares an integer power out exactly
        sign = -1 if a < 0 and int(b) % 2 else 1
        e = b * mp.log(_exact_abs(a))  # (``abs`` rounds to the precision: ``1 - 4e-299`` to 1)
        return mp.nan if mp.mag(e) > _FAR_MAG else sign * mp.exp(e)
    return mp.power(a, b)


#: Integer exponents beyond this are taken through exp and log (``pow(exp(x), 1e30)``).
_HUGE_POWER = 1 << 20


def _gammaln(x: Any) -> Any:
    if x <= 0 and x == mp.floor(x):
        return mp.inf
    if x > 0:  # loggamma keeps its relative precision near its zeros at 1 and 2, where log(gamma(x)) does not
        return mp.loggamma(x)
    return mp.log(abs(mp.gamma(x)))


def _polygamma(k: Any, x: Any) -> Any:
    """``polygamma(k, x)``; NaN at its poles, the integers ``x <= 0`` (where mpmath's ``polygamma(3, -1e300)``
    never returns)."""
    if x <= 0 and x == mp.floor(x):
        return mp.nan
    return mp.polygamma(int(k), x)


def _gamma(x: Any) -> Any:
    if x <= 0 and x == mp.floor(x):
        return mp.nan
    return mp.gamma(x)


#: Beyond this |x|, erfc and erfcx are their asymptotic series (mpmath's own overflows converting n**2 to a
#: float); three terms leave a relative error below x**-6 < 2**-156.
_ERFC_FAR = mp.mpf(2) ** 26


def _erfc_tail(x: Any) -> Any:
    """``erfcx(x)`` for ``x > _ERFC_FAR``: ``(1 - 1/(2x^2) + 3/(4x^4)) / (x sqrt(pi))``."""
    u = 1 / (x * x)
    return (1 - u / 2 + 3 * u * u / 4) / (x * mp.sqrt(mp.pi))


def _erfc(x: Any) -> Any:
    if x > _ERFC_FAR:
        return mp.exp(-x * x) * _erfc_tail(x)
    if x < -_ERFC_FAR:
        return mp.mpf(2)
    return mp.erfc(x)


def _erfcx(x: Any) -> Any:
    if x > _ERFC_FAR:
        return _erfc_tail(x)
    return mp.exp(x * x) * _erfc(x)


def _one_minus_abs(x: Any) -> Any:
    """``1 - |x|`` exactly (``abs`` rounds to the working precision, and ``-1 + 2e-41`` to -1)."""
    return mp.fsub(1, x, exact=True) if x > 0 else mp.fadd(1, x, exact=True)


def _erfinv(x: Any) -> Any:
    """``erfinv(x)`` correctly rounded near +-1, where mpmath's loses ``-log2(1 - |x|)`` bits of the working
    precision (``erfinv(-1 + 2e-41)`` at 128 bits came out ``-9.53110167326565`` for ``-9.53110167326892``)."""
    t = _one_minus_abs(x)
    with mp.extraprec(max(0, -mp.mag(t)) + 10 if 0 < t < 0.5 else 0):
        return mp.erfinv(x)


def _erfcinv(x: Any) -> Any:
    """``erfinv(1 - x)``, ``1 - x`` exact: at the working precision it drops the digits of a small ``x``."""
    return _erfinv(mp.fsub(1, x, exact=True))


def _sign(x: Any) -> Any:
    return mp.mpf(mp.sign(x))


def _softplus(x: Any) -> Any:
    return mp.log1p(mp.exp(x)) if x < 0 else x + mp.log1p(mp.exp(-x))


_UNARY: dict[type, Callable[[Any], Any]] = {
    ps.Neg: lambda x: -x, ps.Abs: abs, ps.Sign: _sign, ps.Identity: lambda x: x, ps.Cast: lambda x: x,
    ps.Sqr: lambda x: x * x, ps.Sqrt: mp.sqrt, ps.Reciprocal: lambda x: _div(mp.mpf(1), x),
    ps.Exp: mp.exp, ps.Exp2: lambda x: mp.power(2, x), ps.Expm1: mp.expm1,
    ps.Log: _log, ps.Log2: lambda x: _log(x) / mp.log(2), ps.Log10: lambda x: _log(x) / mp.log(10),
    ps.Log1p: lambda x: _log(1 + x) if x <= -1 else mp.log1p(x), ps.Log1mexp: _log1mexp,
    ps.Sigmoid: lambda x: 1 / (1 + mp.exp(-x)), ps.Softplus: _softplus,
    ps.Erf: lambda x: mp.sign(x) if abs(x) > _ERFC_FAR else mp.erf(x), ps.Erfc: _erfc, ps.Erfcx: _erfcx,
    ps.Erfinv: _erfinv,
    ps.Erfcinv: _erfcinv,
    ps.Gamma: _gamma, ps.GammaLn: _gammaln, ps.Psi: mp.digamma, ps.TriGamma: lambda x: _polygamma(1, x),
    ps.Cosh: mp.cosh, ps.Sinh: mp.sinh, ps.Tanh: mp.tanh, ps.Cos: mp.cos, ps.Sin: mp.sin, ps.Tan: mp.tan,
    ps.ArcSin: mp.asin, ps.ArcCos: mp.acos, ps.ArcTan: mp.atan, ps.ArcSinh: mp.asinh, ps.ArcCosh: mp.acosh,
    ps.ArcTanh: mp.atanh, ps.Floor: mp.floor, ps.Ceil: mp.ceil, ps.Trunc: lambda x: mp.mpf(int(x)),
}
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ps.Sub: lambda a, b: a - b, ps.TrueDiv: _div, ps.Pow: _pow, ps.ArcTan2: mp.atan2,
    ps.Second: lambda a, b: b,
    ps.PolyGamma: _polygamma,  # (the diagonal series' coefficients of gammaln)
}
_NARY: dict[type, Callable[..., Any]] = {
    ps.Add: lambda *a: mp.fsum(a), ps.Mul: lambda *a: mp.fprod(a),
    ps.Maximum: lambda *a: max(a), ps.Minimum: lambda *a: min(a), ps.ScalarMaximum: lambda *a: max(a),
    ps.ScalarMinimum: lambda *a: min(a),
}

#: Exponentials: unknown at an operand beyond ``2**_FAR_MAG`` (mpmath would need log 2 to that many bits);
#: ``erfc`` of a positive and ``erfcx`` of a negative operand are ``exp(-+x**2)`` times a moderate factor:
#: unknown beyond half as many bits (``erfc(exp(-x / 2) / sqrt(2))`` at ``x = -1e5`` hung, then aborted).
_GROWS: dict[type, Callable[..., bool]] = {
    **{op: _far_beyond(_FAR_MAG) for op in (ps.Exp, ps.Exp2, ps.Expm1, ps.Sinh, ps.Cosh, ps.Tanh, ps.Sigmoid,
                                            ps.Softplus, ps.Pow)},
    ps.Erfc: _far_beyond(_FAR_MAG // 2, 1), ps.Erfcx: _far_beyond(_FAR_MAG // 2, -1),
}
#: The exact meaning of each scalar Op class, on mpmath numbers (complex and undefined results are NaN).
MP_FUNCTIONS: dict[type, Callable[..., Any]] = {
    k: _real(f, _GROWS.get(k)) for table in (_UNARY, _BINARY, _NARY) for k, f in table.items()
}
_SWITCH = ps.Switch


def to_mp(values: Any) -> np.ndarray:
    """An object array of mpmath numbers holding ``values`` exactly (floats convert without rounding; an mpmath
    number is kept as it is)."""
    arr = np.asarray(values)
    out = np.empty(arr.shape, dtype=object)
    flat = arr.reshape(-1)
    out.reshape(-1)[:] = [v if isinstance(v, mp.mpf) else mp.mpf(float(v)) for v in flat] if flat.size else []
    return out


def round_to(values: np.ndarray, dtype: str) -> np.ndarray:
    """The mpmath numbers of ``values`` rounded to ``dtype`` (to nearest; float32 by way of float64)."""
    flat = [float(v) if not mp.isnan(v) else math.nan for v in np.asarray(values, dtype=object).reshape(-1)]
    with np.errstate(over="ignore"):
        return np.array(flat, dtype="float64").astype(dtype).reshape(np.shape(values))


def _is_float(v: Variable) -> bool:
    return str(getattr(v.type, "dtype", "")).startswith("float")


def _scalar_fn(scalar_op: Any, node_name: str) -> Callable[..., Any]:
    if isinstance(scalar_op, ps.Composite):
        return _composite_fn(scalar_op)
    f = MP_FUNCTIONS.get(type(scalar_op))
    if f is None:
        raise NotExact(f"graph: no exact meaning for the scalar Op {type(scalar_op).__name__} (in {node_name})")
    return f


def _composite_fn(op: Any) -> Callable[..., Any]:
    fns = [(n, _scalar_fn(n.op, str(op))) for n in io_toposort(op.inputs, op.outputs)]

    def f(*args: Any) -> Any:
        env: dict[Any, Any] = dict(zip(op.inputs, args, strict=True))
        for node, fn in fns:
            ins = [env[i] if i in env else mp.mpf(float(getattr(i, "data", math.nan))) for i in node.inputs]
            env[node.outputs[0]] = fn(*ins)
        return env[op.outputs[0]]

    return f


#: A loss beyond every precision (binary exponents of mpmath numbers may not fit a float).
_HUGE = 1 << 30


def _cancel_loss(result: Any, *operands: Any) -> float:
    """Bits an addition lost: ``log2(max |operand| / |result|)`` (all of them when it cancels to zero)."""
    big = max((abs(a) for a in operands if not mp.isnan(a) and not mp.isinf(a)), default=mp.mpf(0))
    if mp.isnan(result) or mp.isinf(result) or big == 0:
        return 0.0
    if result == 0:  # rounded operands that cancel: the true value may be any small number
        return math.inf
    return float(min(max(0, mp.mag(big) - mp.mag(result) + 1), _HUGE))  # binary exponents: at most 2 bits too many


def _log_loss(result: Any, *_: Any) -> float:
    """Bits a logarithm near 1 lost: ``-log2 |result|`` where ``|result| < 1`` (all of them at 0)."""
    if mp.isnan(result) or mp.isinf(result) or abs(result) >= 1:
        return 0.0
    return math.inf if result == 0 else float(min(max(0, 1 - mp.mag(result)), _HUGE))


_LOSS: dict[type, Callable[..., float]] = {
    ps.Add: _cancel_loss, ps.Sub: lambda r, a, b: _cancel_loss(r, a, b), ps.Log: _log_loss,
    ps.Log2: _log_loss, ps.Log10: _log_loss,
}


def _kappa_magnitude(k: Any) -> float:
    """``log2 |k|`` where ``|k| > 1`` (0 below; all the bits at an infinite ``k``)."""
    if mp.isnan(k):
        return 0.0
    if mp.isinf(k):
        return math.inf
    return float(min(mp.mag(k), _HUGE)) if abs(k) > 1 else 0.0


def _kappa_bits(kappa: Callable[[Any], Any]) -> Callable[..., float]:
    """The bits a function loses to its operand's error: ``log2`` of its condition number ``|x f'(x) / f(x)|``
    (``kappa(x)``), all of them where the condition number is infinite (``log1p`` at an operand rounded to -1)."""

    def loss(result: Any, x: Any) -> float:
        if mp.isnan(x) or mp.isnan(result) or mp.isinf(x):
            return 0.0
        try:
            with mp.workprec(24):  # a magnitude is all a loss needs
                return _kappa_magnitude(kappa(x))
        except (ZeroDivisionError, ValueError):
            return math.inf

    return loss


def _ratio(a: Any, b: Any) -> Any:
    if b == 0:
        return mp.inf if a != 0 else mp.mpf(0)
    return a / b


def _erfinv_kappa(x: Any) -> Any:
    """``erfinv``'s condition number to a magnitude: ``1 / (1 - |x|)`` near +-1 (``erfinv(x - 1)`` at
    ``x = 2e-41``: ``x - 1`` rounded to 150 bits left 40 of the value's), about 1 elsewhere."""
    t = _one_minus_abs(x)
    return _ratio(mp.mpf(1), t) if 0 <= t < 0.5 else mp.mpf(1)


def _erfcinv_kappa(x: Any) -> Any:
    """``erfcinv``'s to a magnitude: ``x / (1 - x)`` at its zero 1, ``1 / (2 - x)`` near 2; small near 0."""
    u = mp.fsub(2, x, exact=True)
    return max(mp.mpf(1), abs(_ratio(x, mp.fsub(1, x, exact=True))),
               _ratio(mp.mpf(1), u) if 0 <= u < 0.5 else mp.mpf(1))


#: Condition-number losses of functions of an operand that carries rounding (an operand computed exactly
#: gives a correctly rounded value): ``exp`` and ``gamma`` of a large operand, ``log1p`` near -1, ``gammaln``
#: near its zeros at 1 and 2, ``erfc`` far in its tail.  A power's are :func:`_own_loss`'s: ``|b|`` on a
#: rounded base (``(1 + x / y) ** y`` at ``x / y = 2e-70``, ``y = 1.5e86``: 128 bits round the base to 1 and
#: the power to 1, where it is ``exp(3.2e16)``), ``|b log(a)|`` on a rounded exponent.
_COND_LOSS: dict[type, Callable[..., float]] = {
    ps.Exp: _kappa_bits(lambda x: x),
    ps.Expm1: _kappa_bits(lambda x: _ratio(x * mp.exp(x), mp.expm1(x)) if x != 0 else mp.mpf(1)),
    ps.Log1p: _kappa_bits(lambda x: mp.mpf(1) if x == 0 else mp.inf if x == -1 else _ratio(x, (1 + x) * mp.log1p(x))),
    ps.Gamma: _kappa_bits(lambda x: x * mp.digamma(x)),
    ps.GammaLn: _kappa_bits(lambda x: _ratio(x * mp.digamma(x), _gammaln(x))),
    ps.Erfc: _kappa_bits(lambda x: 2 * x * x + 1),
    ps.Erfcx: _kappa_bits(lambda x: 2 * x * x + 1),
    ps.Erfinv: _kappa_bits(_erfinv_kappa),
    ps.Erfcinv: _kappa_bits(_erfcinv_kappa),
    ps.Softplus: _kappa_bits(lambda x: _ratio(x, (1 + mp.exp(-x)) * _softplus(x))),
    # functions ill-conditioned at the ends of their domain: acosh near 1, atanh near +-1, asin and acos near +-1
    ps.ArcCosh: _kappa_bits(lambda x: _ratio(x, mp.sqrt(x * x - 1) * mp.acosh(x))),
    ps.ArcTanh: _kappa_bits(lambda x: _ratio(x, (1 - x * x) * mp.atanh(x))),
    ps.ArcSin: _kappa_bits(lambda x: _ratio(x, mp.sqrt(1 - x * x) * mp.asin(x))),
    ps.ArcCos: _kappa_bits(lambda x: _ratio(x, mp.sqrt(1 - x * x) * mp.acos(x))),
}


def _near_zero_bits(slope: Callable[[Any], Any]) -> Callable[..., float]:
    """The bits a function loses to its operand's error near one of its zeros (``sin`` at ``pi``, ``cos`` at
    ``pi/2``): ``log2 |x f'(x) / f(x)|`` with ``f(x)`` the computed ``result`` itself, so a value that only
    rounding keeps from 0 (``cos(arcsin(1))``) loses every bit it has, however small it is."""

    def loss(result: Any, x: Any) -> float:
        if mp.isnan(x) or mp.isnan(result) or mp.isinf(x) or x == 0:
            return 0.0
        if result == 0:
            return math.inf
        with mp.workprec(24):  # a magnitude is all a loss needs
            k = abs(x * slope(x) / result)
        return float(min(mp.mag(k), _HUGE)) if k > 1 else 0.0

    return loss


# sin, cos and tan of an operand that carries rounding, near their zeros (the zeros of tan are sin's)
_COND_LOSS[ps.Sin] = _near_zero_bits(mp.cos)
_COND_LOSS[ps.Cos] = _near_zero_bits(lambda x: -mp.sin(x))
_COND_LOSS[ps.Tan] = _near_zero_bits(lambda x: 1 + mp.tan(x) ** 2)


#: The loss of a value computed without rounding (an input, a constant, a sum or product of such).
EXACT = -1.0
_EXACT_FNS: dict[type, Callable[..., Any]] = {
    ps.Add: lambda *a: _exact_fold(mp.fadd, a), ps.Mul: lambda *a: _exact_fold(mp.fmul, a),
    ps.Sub: lambda a, b: _exact_sub(a, b), ps.Neg: lambda a: mp.fneg(a, exact=True),
    ps.Sqr: lambda a: mp.fmul(a, a, exact=True), ps.Identity: lambda a: a, ps.Cast: lambda a: a, ps.Abs: _exact_abs,
    **{op: MP_FUNCTIONS[op] for op in (ps.Sign, ps.Floor, ps.Ceil, ps.Trunc, ps.Maximum, ps.Minimum, ps.Second,
                                       ps.ScalarMaximum, ps.ScalarMinimum)},
}


#: The arguments at which a transcendental Op's value is exact (``exp(0) = 1``, ``log(1) = 0``, ...):
#: elsewhere its value at an exact argument is irrational, and a rounded value that happens to be
#: short (``exp(1e-300)`` is 1 at 128 bits) is not exact.
_EXACT_AT: dict[type, tuple[int, ...]] = {
    **{op: (0,) for op in (ps.Exp, ps.Exp2, ps.Expm1, ps.Log1p, ps.Sinh, ps.Cosh, ps.Tanh, ps.Erf, ps.Erfc,
                           ps.Erfcx, ps.Sigmoid, ps.Sin, ps.Cos, ps.Tan, ps.ArcSin, ps.ArcTan, ps.ArcSinh,
                           ps.ArcTanh)},
    ps.Log: (1,), ps.Log2: (1,), ps.Log10: (1,), ps.ArcCosh: (1,), ps.Gamma: (1, 2), ps.GammaLn: (1, 2),
}


def _exact_quotient(r: Any, *args: Any) -> bool:
    num, den = (args[0], args[1]) if len(args) == 2 else (mp.mpf(1), args[0])
    if mp.isnan(r) or mp.isinf(r) or mp.isinf(den):
        return False
    return bool(mp.fmul(r, den, exact=True) == num)


def _exact_at(sop: Any) -> Callable[..., bool]:
    """Whether the Op's value at exact operands ``args`` is exact, given its value ``r``."""
    points = _EXACT_AT.get(type(sop))
    if isinstance(sop, ps.Sqrt):
        return lambda r, a: bool(not mp.isnan(r) and mp.fmul(r, r, exact=True) == a)
    if isinstance(sop, ps.Reciprocal | ps.TrueDiv):  # exact where the quotient times the divisor gives back
        return _exact_quotient
    if points is None:
        return lambda r, *a: False
    return lambda r, *a: all(x in points for x in a)


#: Magnitudes (binary exponents) further apart than this are added rounded, not exactly.
EXACT_SPAN = 1 << 14


def _far_apart(args: Sequence[Any]) -> bool:
    mags = [mp.mag(a) for a in args if a != 0]
    return bool(mags) and max(mags) - min(mags) > EXACT_SPAN


def _exact_sub(a: Any, b: Any) -> Any:
    if mp.isnan(a) or mp.isinf(a) or mp.isnan(b) or mp.isinf(b) or _far_apart((a, b)):
        return MP_FUNCTIONS[ps.Sub](a, b)
    return mp.fsub(a, b, exact=True)


def _exact_fold(f: Callable[..., Any], args: Sequence[Any]) -> Any:
    if any(mp.isnan(a) or mp.isinf(a) for a in args) or (f is mp.fadd and _far_apart(args)):
        return MP_FUNCTIONS[ps.Add if f is mp.fadd else ps.Mul](*args)
    acc = args[0]
    for a in args[1:]:
        acc = f(acc, a, exact=True)
    return acc


def _all_exact(lost: list[np.ndarray], shape: tuple) -> np.ndarray:
    exact_in = np.ones(shape, bool)
    for x in lost:
        exact_in &= np.broadcast_to(x == EXACT, shape)
    return exact_in


def _exact_where(sop: Any, node: Any, args: list[Any], out: np.ndarray, lost: list[np.ndarray]) -> np.ndarray:
    """Where a function of exact operands computed an exact value: at the arguments where it is exact
    (``exp(0) = 1``, ``log(1) = 0``, a square root of a square; not ``sigmoid(300)``, which merely rounds
    to 1), and ``x ** 0``."""
    shape = np.shape(out)
    exact_in = _all_exact(lost, shape)
    if exact_in.any():
        exact_in &= np.asarray(np.frompyfunc(_exact_at(sop), len(args) + 1, 1)(out, *args), dtype=bool).reshape(shape)
    if isinstance(sop, ps.Pow):  # x ** 0 is 1 whatever x is
        zero = np.asarray(np.frompyfunc(lambda e: e == 0, 1, 1)(args[1]), dtype=bool)
        exact_in = exact_in | (np.broadcast_to(lost[1] == EXACT, shape) & np.broadcast_to(zero, shape))
    return exact_in


def _own_loss(sop: Any, out: np.ndarray, args: list[Any], lost: list[np.ndarray]) -> Any:
    """The bits the node itself loses: cancellation (:data:`_LOSS`) and, where its operand carries
    rounding, its condition number (:data:`_COND_LOSS`)."""
    own: Any = 0.0
    loss = _LOSS.get(type(sop))
    if loss is not None and out.size:
        own = own + np.asarray(np.frompyfunc(loss, len(args) + 1, 1)(out, *args), dtype=float)
    cond = _COND_LOSS.get(type(sop))
    if cond is not None and out.size:
        rounded = np.broadcast_to(lost[0] != EXACT, np.shape(out))
        kappa = np.asarray(np.frompyfunc(cond, 2, 1)(out, np.broadcast_to(args[0], np.shape(out))), dtype=float)
        own = own + np.where(rounded, kappa, 0.0)
    if isinstance(sop, ps.Pow) and out.size:
        shape = np.shape(out)
        base, power = (np.broadcast_to(a, shape) for a in args)
        on_base = np.asarray(np.frompyfunc(_kappa_magnitude, 1, 1)(power), dtype=float)
        on_power = np.asarray(np.frompyfunc(_pow_power_kappa, 2, 1)(base, power), dtype=float)
        own = own + np.where(np.broadcast_to(lost[0] != EXACT, shape), on_base, 0.0) + np.where(
            np.broadcast_to(lost[1] != EXACT, shape), on_power, 0.0)
    return own


def _pow_power_kappa(a: Any, b: Any) -> float:
    """The bits ``a ** b`` loses to its exponent's rounding: ``log2 |b * log(a)|`` (``a > 0``)."""
    if mp.isnan(a) or mp.isnan(b) or a <= 0 or mp.isinf(a):
        return 0.0
    with mp.workprec(24):  # a magnitude is all a loss needs
        return _kappa_magnitude(b * mp.log(a))


def _elemwise(node: Any, ins: list[Any], losses: list[Any]) -> tuple[np.ndarray, Any]:
    """The node's values and the bits they lost (:data:`EXACT` where no rounding happened)."""
    sop = node.op.scalar_op
    lost = [np.asarray(x, dtype=float) for x in losses]
    if isinstance(sop, _SWITCH):
        cond, a, b = (np.asarray(i) for i in ins)
        return np.where(cond.astype(bool), a, b), np.where(cond.astype(bool), lost[1], lost[2])
    f = np.frompyfunc(_scalar_fn(sop, str(node.op)), len(ins), 1)
    args = [i if isinstance(i, np.ndarray) and i.dtype == object else to_mp(np.asarray(i, dtype=float)) for i in ins]
    out = np.asarray(f(*args), dtype=object)
    carried = sum((np.maximum(x, 0.0) for x in lost), start=np.zeros(np.shape(out)))
    exact_fn = _EXACT_FNS.get(type(sop))
    if exact_fn is not None:
        exact_in = _all_exact(lost, np.shape(out))
        if exact_in.any():
            out = np.where(exact_in, np.asarray(np.frompyfunc(exact_fn, len(ins), 1)(*args), dtype=object), out)
    else:
        exact_in = _exact_where(sop, node, args, out, lost)
    lost_all = np.where(exact_in, EXACT, carried + _own_loss(sop, out, args, lost))
    grows = _GROWS.get(type(sop))
    if grows is not None and out.size:  # an exponential of an operand beyond 2**_FAR_MAG: unknown, not undefined
        far = np.asarray(np.frompyfunc(grows, len(args), 1)(*args), dtype=bool)
        lost_all = np.where(far, math.inf, lost_all)
    if isinstance(sop, (ps.TrueDiv, ps.Reciprocal)) and out.size:  # a pole: unknown, and never retried
        pole = np.asarray(np.frompyfunc(lambda d: d == 0, 1, 1)(args[-1]), dtype=bool)
        lost_all = np.where(np.broadcast_to(pole, np.shape(out)), _POLE_LOSS, lost_all)
    return out, lost_all



def _reduce(node: Any, x: np.ndarray) -> np.ndarray:
    sop, axis = node.op.scalar_op, node.op.axis
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    if isinstance(sop, ps.Add):
        fn: Callable[..., Any] = mp.fsum
    elif isinstance(sop, ps.Mul):
        fn = mp.fprod
    elif isinstance(sop, ps.ScalarMaximum | ps.Maximum):
        fn = max
    elif isinstance(sop, ps.ScalarMinimum | ps.Minimum):
        fn = min
    else:
        raise NotExact(f"graph: no exact meaning for the reduction {node.op}")
    moved = np.moveaxis(x, axes, tuple(range(len(axes))))
    flat = moved.reshape((-1, *moved.shape[len(axes):]))
    out = np.empty(flat.shape[1:], dtype=object)
    for idx in np.ndindex(out.shape):
        col = [flat[(k, *idx)] for k in range(flat.shape[0])]
        out[idx] = fn(col) if col or fn in (mp.fsum, mp.fprod) else mp.nan
    return out


def _blockwise(node: Any, ins: list[Any]) -> list[Any]:
    """A Blockwise's core Op run at each batch index (its own perform compiles a gufunc for floats)."""
    op = node.op
    try:
        core = op._create_dummy_core_node(node.inputs)  # noqa: SLF001 - PyTensor's own way to get the core node
    except (AttributeError, ValueError, TypeError) as err:
        raise NotExact(f"graph: no core node for {op}") from err
    arrays = [np.asarray(i) for i in ins]
    batch_nd = [a.ndim - len(sig) for a, sig in zip(arrays, op.inputs_sig, strict=True)]
    shape = np.broadcast_shapes(*[a.shape[:k] for a, k in zip(arrays, batch_nd, strict=True)])
    outs: list[np.ndarray | None] = [None] * len(node.outputs)
    for idx in np.ndindex(shape):
        # an index of every axis of an object array is its element (an mpf): a 0-d array again, as perform takes
        part = [np.asarray(a[tuple(0 if a.shape[d] == 1 else idx[len(shape) - k + d] for d in range(k))],
                           dtype=a.dtype) if k else a for a, k in zip(arrays, batch_nd, strict=True)]
        got = _perform(core, part)
        for j, g in enumerate(got):
            g = np.asarray(g)
            if outs[j] is None:
                outs[j] = np.empty(shape + g.shape, dtype=g.dtype)
            outs[j][idx] = g  # type: ignore[index]
    if not shape or 0 in shape:
        return [np.empty(shape + (0,) * o.type.ndim, dtype=object) if 0 in shape else _perform(core, arrays)[j]
                for j, o in enumerate(node.outputs)]
    return outs


def _perform(node: Any, ins: list[Any]) -> list[Any]:
    if isinstance(node.op, Blockwise):
        return _blockwise(node, ins)
    storage: list[list[Any]] = [[None] for _ in node.outputs]
    try:
        node.op.perform(node, ins, storage)
    except NotImplementedError as err:
        raise NotExact(f"graph: {node.op} has no perform to run exactly") from err
    return [s[0] for s in storage]


def _float_ins(ins: list[Any]) -> list[Any]:
    return [round_to(i, "float64") if isinstance(i, np.ndarray) and i.dtype == object else i for i in ins]


def _definition(op: Any, x: Any) -> Any:
    """A softmax's or log-softmax's definition as a graph (PyTensor 3.0's Ops, whose ``perform`` is numpy's):
    ``exp(x - max) / sum(exp(x - max))`` and ``(x - max) - log(sum(exp(x - max)))`` along the Op's axis."""
    from pytensor.tensor.math import exp, log
    from pytensor.tensor.math import max as pt_max
    from pytensor.tensor.math import sum as pt_sum

    shifted = x - pt_max(x, axis=op.axis, keepdims=True)
    if isinstance(op, LogSoftmax):
        return shifted - log(pt_sum(exp(shifted), axis=op.axis, keepdims=True))
    e = exp(shifted)
    return e / pt_sum(e, axis=op.axis, keepdims=True)


def _graph_of(op: Any, inputs: Sequence[Variable]) -> tuple[list[Any], list[Any]] | None:
    """The inputs and outputs of the graph an Op stands for (an ``OpFromGraph``'s inner graph, a
    PyTensor 3.0 softmax's definition over a fresh variable like ``inputs[0]``), or ``None``."""
    if isinstance(op, OpFromGraph):
        return list(op.inner_inputs), list(op.inner_outputs)
    if isinstance(op, Softmax | LogSoftmax):
        x = inputs[0].type()
        return [x], [_definition(op, x)]
    return None


def _inner(node: Any, ins: list[Any], losses: list[Any]) -> tuple[list[Any], list[Any]] | None:
    """The values and losses of a node whose Op is a graph of other Ops, evaluated through that graph
    (an ``OpFromGraph``: PyTensor 3.3's ``Softmax``, ``LogSoftmax``, ``LogSumExp``; PyTensor 3.0's
    ``Softmax`` and ``LogSoftmax`` by their definition; a ``Blockwise`` of these through its core's
    graph, vectorized), or ``None`` for any other Op."""
    op = node.op
    if isinstance(op, Blockwise):  # a batch of such Ops (a vectorized graph): its core graph, vectorized
        from pytensor.graph.replace import vectorize_graph

        core = op._create_dummy_core_node(node.inputs)  # noqa: SLF001 - PyTensor's own way to get the core node
        found = _graph_of(core.op, core.inputs)
        if found is None:
            return None
        inner_in = [i.type() for i in node.inputs]
        inner_out = list(vectorize_graph(found[1], replace=dict(zip(found[0], inner_in, strict=True))))
    else:
        found = _graph_of(op, node.inputs)
        if found is None:
            return None
        inner_in, inner_out = found
    env = dict(zip(inner_in, ins, strict=True))
    lost = dict(zip(inner_in, losses, strict=True))
    _walk(inner_out, env, lost)
    return [env[o] for o in inner_out], [np.broadcast_to(lost[o], np.shape(env[o])) for o in inner_out]


def _structural(node: Any, ins: list[Any]) -> list[Any] | None:
    """The values of a float ``MakeVector`` or ``Join``, whose ``perform`` casts to the float dtype (it would
    round the mpmath numbers): stacked or concatenated as object arrays; ``None`` for any other Op."""
    name = type(node.op).__name__
    if name == "MakeVector":
        out = np.empty(len(ins), dtype=object)
        for k, a in enumerate(ins):  # each a 0-d array: its number, not the array, is the element
            out[k] = np.asarray(a, dtype=object).reshape(()).item()
        return [out]
    if name == "Join":
        if hasattr(node.op, "axis"):  # PyTensor 3.3: the axis a property
            axis, parts = node.op.axis, ins
        else:  # PyTensor 3.0: the axis the first input
            axis, parts = int(np.asarray(ins[0])), ins[1:]
        return [np.concatenate([np.asarray(a, dtype=object) for a in parts], axis=axis)]
    return None


def _node_values(node: Any, ins: list[Any], losses: list[Any]) -> tuple[list[Any], list[Any]]:
    """The node's outputs' values and the bits each lost (its operands' losses added to its own)."""
    op = node.op
    if not any(_is_float(o) for o in node.outputs):
        return _perform(node, _float_ins(ins)), [EXACT] * len(node.outputs)
    inner = _inner(node, ins, losses)
    if inner is not None:
        return inner
    if isinstance(op, Elemwise):
        out, lost = _elemwise(node, ins, losses)
        return [out], [lost]
    if isinstance(op, CAReduce):
        out = _reduce(node, ins[0])
        worst: Any = np.asarray(losses[0], dtype=float)
        if worst.ndim:
            worst = np.broadcast_to(worst, np.shape(ins[0]))
            worst = np.max(worst, axis=op.axis, initial=0.0) if worst.size else np.zeros(np.shape(out))
        own = _sum_loss(out, ins[0], op.axis) if isinstance(op.scalar_op, ps.Add) else 0.0
        return [out], [worst + own]
    made = _structural(node, ins) or _perform(node, ins)
    lost_in = [np.broadcast_to(np.asarray(x, dtype=float), np.shape(i)) if _is_float(v) else np.zeros(np.shape(i))
               for x, i, v in zip(losses, ins, node.inputs, strict=True)]
    moved = _perform(node, [lo if _is_float(v) else i for lo, i, v in zip(lost_in, ins, node.inputs, strict=True)])
    vals = [np.asarray(o, dtype=object) if _is_float(v) else o for o, v in zip(made, node.outputs, strict=True)]
    return vals, [np.asarray(m, dtype=float) if _is_float(v) else 0.0 for m, v in zip(moved, node.outputs, strict=True)]


def _sum_loss(out: np.ndarray, x: np.ndarray, axis: Any) -> np.ndarray:
    big = np.frompyfunc(abs, 1, 1)(x)
    biggest = np.max(big, axis=axis, initial=mp.mpf(0)) if x.size else np.zeros(np.shape(out), dtype=object)
    return np.asarray(np.frompyfunc(_cancel_loss, 2, 1)(out, biggest), dtype=float)


def _walk(outputs: Sequence[Variable], env: dict[Variable, Any], lost: dict[Variable, Any]) -> None:
    """Fill ``env`` (values) and ``lost`` (bits lost) for every node between the variables ``env`` holds
    and ``outputs``, at the working precision."""
    for node in io_toposort(list(env), list(outputs)):
        for i in node.inputs:
            if i not in env:
                if not isinstance(i, Constant):
                    raise ValueError(f"inputs: no value given for the graph input {i}")
                env[i], lost[i] = (to_mp(i.data) if _is_float(i) else np.asarray(i.data)), EXACT
        vals, losses = _node_values(node, [env[i] for i in node.inputs], [lost[i] for i in node.inputs])
        for o, val, lo in zip(node.outputs, vals, losses, strict=True):
            env[o], lost[o] = val, lo


def _evaluate(outputs: Sequence[Variable], inputs: Mapping[Variable, Any], bits: int) -> tuple[list, list]:
    env: dict[Variable, Any] = {}
    lost: dict[Variable, Any] = {}
    for v, value in inputs.items():
        env[v] = to_mp(value) if _is_float(v) else np.asarray(value)
        lost[v] = EXACT
    with mp.workprec(bits):
        _walk(outputs, env, lost)
        for o in outputs:
            if o not in env:
                env[o], lost[o] = to_mp(getattr(o, "data", math.nan)), EXACT
        return [np.asarray(env[o]) for o in outputs], [np.broadcast_to(lost[o], np.shape(env[o])) for o in outputs]


def independent_rows(inputs: Sequence[Variable], outputs: Sequence[Variable], shapes: Sequence[tuple]) -> bool:
    """Whether the rows of the inputs' leading axis are independent points of ``outputs``, so that
    ``exact_values(..., rows=True)`` is sound: every input has the same shape (``shapes``, one per input)
    of at least one axis; every node that reads an input is an ``Elemwise`` whose other operands
    broadcast along every axis (no reduction, index, join or constant vector mixes rows); and every
    output an input reaches has the inputs' number of axes."""
    if not inputs or len({tuple(s) for s in shapes}) != 1 or not len(shapes[0]):
        return False
    reached = set(inputs)
    for node in io_toposort(list(inputs), list(outputs)):
        if any(i in reached for i in node.inputs):
            if not isinstance(node.op, Elemwise):
                return False
            if not all(i in reached or all(i.type.broadcastable) for i in node.inputs):
                return False
            reached.update(node.outputs)
    return all(o.type.ndim == len(shapes[0]) for o in outputs if o in reached)


def values_at(outputs: Sequence[Variable], inputs: Mapping[Variable, Any], bits: int) -> tuple[list, list]:
    """The values of ``outputs`` computed at a fixed precision of ``bits``, and the bits each lost.

    Nothing is retried or masked: a value whose loss exceeds ``bits`` is what that precision gives (a
    cancellation to zero is ``0`` with an infinite loss).  :func:`exact_values` is the exact value."""
    return _evaluate(outputs, inputs, bits)


#: Bits beyond the dtype's mantissa an exact value must keep after its losses.
GUARD_BITS = 12
_MANTISSA = {"float64": 53, "float32": 24, "float16": 11}


def _settled(losses: Sequence[Any], need: Sequence[int], bits: int, max_bits: int | None = None) -> list[np.ndarray]:
    """Where each output kept the bits it needs; with ``max_bits``, also where it never can: a finite loss
    beyond ``max_bits`` less the need (``exp`` of a rounded ``1e300`` loses 997 bits at every precision),
    which doubling the precision would only recompute (such entries stay unknown, and are not retried)."""
    out = []
    for lo, n in zip(losses, need, strict=True):
        lost = np.asarray(lo, dtype=float)
        done = bits - lost >= n
        if max_bits is not None:
            done = done | (np.isfinite(lost) & (lost + n > max_bits))
        out.append(done)
    return out


def _row_mask(settled: Sequence[np.ndarray], rows: int) -> np.ndarray:
    """Per row of the leading axis, whether every output's entries of it settled."""
    ok = np.ones(rows, dtype=bool)
    for s in settled:
        ok &= s.reshape(rows, -1).all(axis=1) if s.ndim and s.shape[0] == rows else bool(np.all(s))
    return ok


def exact_values(
    outputs: Sequence[Variable], inputs: Mapping[Variable, Any], bits: int = 128, max_bits: int = 4096,
    rows: bool = False,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The exact values of ``outputs`` at ``inputs`` (a value per graph input), and where they settled.

    Returns ``(values, settled)``: ``values[k]`` the output's values as an object array of mpmath
    numbers (NaN where unknown), ``settled[k]`` a boolean array, ``False`` where the precision,
    doubled up to ``max_bits``, still did not cover the bits lost.  ``rows=True`` says that the
    rows of every input's and output's leading axis are independent points (a batch): only the
    rows that have not settled are evaluated again.  Raises :class:`NotExact` naming an Op with
    no exact meaning here."""
    if bits < 16 or max_bits < bits:
        raise ValueError(f"bits: need 16 <= bits <= max_bits, got bits={bits}, max_bits={max_bits}")
    need = [_MANTISSA.get(str(getattr(o.type, "dtype", "")), 53) + GUARD_BITS for o in outputs]
    values, losses = _evaluate(outputs, inputs, bits)
    values = [np.array(v, dtype=object) for v in values]
    settled = [np.array(s) for s in _settled(losses, need, bits)]
    tried = [np.array(s) for s in _settled(losses, need, bits, max_bits)]  # settled, or never will
    n = len(next(iter(inputs.values()))) if rows and inputs else 0
    while not all(t.all() for t in tried) and bits * 2 <= max_bits:
        bits *= 2
        if not n:
            values, losses = _evaluate(outputs, inputs, bits)
            values = [np.array(v, dtype=object) for v in values]
            settled = [np.array(s) for s in _settled(losses, need, bits)]
            tried = [np.array(s) for s in _settled(losses, need, bits, max_bits)]
            continue
        redo = np.flatnonzero(~_row_mask(tried, n))
        again, lost = _evaluate(outputs, {v: np.asarray(x)[redo] for v, x in inputs.items()}, bits)
        done, final = _settled(lost, need, bits), _settled(lost, need, bits, max_bits)
        for k, a in enumerate(again):
            if values[k].ndim and values[k].shape[0] == n:
                values[k][redo], settled[k][redo], tried[k][redo] = a, done[k], final[k]
            else:  # an output no input reaches: the same at every row
                values[k], settled[k], tried[k] = np.array(a, dtype=object), np.array(done[k]), np.array(final[k])
    for v, s in zip(values, settled, strict=True):
        v[~s] = mp.nan
    return values, settled
