"""A spelling's own graph evaluated exactly: every float of a PyTensor graph an mpmath number.

:func:`exact_value` walks the graph of a :class:`numerics_corpus.Spelling`
(or any outputs over inputs) and computes each float variable as an object
array of mpmath numbers at the working precision: elementwise scalar ops by
their mathematical definition, reductions and softmaxes by sums of mpmath
numbers, and the structural ops (broadcasts, indexing, reshapes, joins,
dot products) by their own ``perform`` on object arrays.  Integer variables
(shapes, indices) are computed by their ops as usual.  Casts are the
identity: the value is the mathematics the spelling writes, not its
rounding.

:func:`check_spelling` compares that value with the spelling's reference
(the target's closed form) at rising precision, so a spelling that is not
mathematically its target is caught, and an extreme input whose naive
spelling needs thousands of digits (``1 - erf(26)``) is still compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath as mp
import numpy as np
from pytensor.compile.builders import OpFromGraph
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import io_toposort
from pytensor.tensor.elemwise import CAReduce, Elemwise
from pytensor.tensor.special import LogSoftmax, Softmax

__all__ = ["check_spelling", "exact_value"]


def _mul(*a: Any) -> Any:
    out = a[0]
    for v in a[1:]:
        out = out * v
    return out


def _erfcx(v: Any) -> Any:
    return mp.exp(v * v) * mp.erfc(v)


#: Scalar op class name -> its mathematical definition on mpmath numbers.
SCALAR: dict[str, Callable[..., Any]] = {
    "Add": lambda *a: mp.fsum(a),
    "Mul": _mul,
    "Sub": lambda a, b: a - b,
    "TrueDiv": lambda a, b: mp.mpf(a) / b,
    "Neg": lambda a: -a,
    "Reciprocal": lambda a: 1 / mp.mpf(a),
    "Exp": mp.exp,
    "Exp2": lambda a: mp.power(2, a),
    "Log": mp.log,
    "Log2": lambda a: mp.log(a, 2),
    "Log10": mp.log10,
    "Log1p": mp.log1p,
    "Expm1": mp.expm1,
    "Erf": mp.erf,
    "Erfc": mp.erfc,
    "Erfcx": _erfcx,
    "Sigmoid": lambda a: 1 / (1 + mp.exp(-a)),
    "Softplus": lambda a: mp.log1p(mp.exp(a)),
    "Log1mexp": lambda a: mp.log(-mp.expm1(a)),
    "Gamma": mp.gamma,
    "GammaLn": mp.loggamma,
    "Sqrt": mp.sqrt,
    "Sqr": lambda a: a * a,
    "Pow": mp.power,
    "Abs": abs,
    "Cosh": mp.cosh,
    "Sinh": mp.sinh,
    "Tanh": mp.tanh,
    "Cos": mp.cos,
    "Sin": mp.sin,
    "Tan": mp.tan,
    "ArcTan": mp.atan,
    "ArcSinh": mp.asinh,
    "ArcCosh": mp.acosh,
    "ArcTanh": mp.atanh,
    "Identity": lambda a: a,
    "Cast": lambda a: a,
    "Maximum": max,
    "Minimum": min,
    "Switch": lambda c, a, b: a if c else b,
    "LT": lambda a, b: a < b,
    "GT": lambda a, b: a > b,
    "LE": lambda a, b: a <= b,
    "GE": lambda a, b: a >= b,
    "EQ": lambda a, b: a == b,
    "Second": lambda a, b: b,
    "IsInf": mp.isinf,
    "IsNan": mp.isnan,
    "Invert": lambda a: not a,
    "AND": lambda a, b: a and b,
    "OR": lambda a, b: a or b,
}


def _is_float(var: Variable) -> bool:
    return str(getattr(var.type, "dtype", "")).startswith("float")


def _mp_array(data: Any) -> np.ndarray:
    return np.vectorize(lambda v: mp.mpf(float(v)), otypes=[object])(np.asarray(data))


def _elemwise(node: Any, args: list[Any]) -> list[Any]:
    name = type(node.op.scalar_op).__name__
    if name not in SCALAR:
        raise NotImplementedError(f"no exact definition of the scalar op {name!r} (node {node})")
    fn = SCALAR[name]

    def safe(*a: Any) -> Any:  # a division by a zero the working precision rounded to: retried at higher precision
        try:
            return fn(*a)
        except ZeroDivisionError:
            return mp.nan

    out = np.vectorize(safe, otypes=[object])(*[np.asarray(a, dtype=object) for a in args])
    return [np.asarray(out, dtype=object)]


def _reduce(node: Any, x: np.ndarray) -> list[Any]:
    name = type(node.op.scalar_op).__name__
    axis = node.op.axis if node.op.axis is None else tuple(node.op.axis)
    reducers: dict[str, Callable[..., Any]] = {"Add": np.sum, "Mul": np.prod, "Maximum": np.max, "Minimum": np.min}
    if name not in reducers:
        raise NotImplementedError(f"no exact reduction for {name!r}")
    return [np.asarray(reducers[name](np.asarray(x, dtype=object), axis=axis), dtype=object)]


def _softmax(x: np.ndarray, axis: int | None, log: bool) -> np.ndarray:
    def row(r: Sequence[Any] | np.ndarray) -> list[Any]:
        total = mp.fsum(mp.exp(v) for v in r)
        return [v - mp.log(total) if log else mp.exp(v) / total for v in r]

    x = np.asarray(x, dtype=object)
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise NotImplementedError(f"a softmax over the axes {axis}")
        axis = axis[0]
    if axis is None:
        return np.asarray(row(list(x.ravel())), dtype=object).reshape(x.shape)
    return np.apply_along_axis(row, axis, x)


def _perform(node: Any, args: list[Any]) -> list[Any]:
    storage: list[list[Any]] = [[None] for _ in node.outputs]
    node.op.perform(node, args, storage)
    return [s[0] for s in storage]


def _apply(node: Any, args: list[Any]) -> list[Any]:
    op = node.op
    if isinstance(op, Elemwise) and any(_is_float(v) for v in (*node.inputs, *node.outputs)):
        return _elemwise(node, args)
    if isinstance(op, CAReduce) and _is_float(node.outputs[0]):
        return _reduce(node, args[0])
    if isinstance(op, Softmax | LogSoftmax):
        return [_softmax(args[0], op.axis, isinstance(op, LogSoftmax))]
    if isinstance(op, OpFromGraph):
        inner = dict(zip(op.inner_inputs, args, strict=True))
        return _walk(op.inner_inputs, op.inner_outputs, inner)
    if type(op).__name__ == "MakeVector" and _is_float(node.outputs[0]):
        return [np.asarray(list(args), dtype=object)]
    if type(op).__name__ == "Join" and _is_float(node.outputs[0]):
        if hasattr(op, "axis"):  # PyTensor 3.3: the axis a property
            axis, parts = op.axis, args
        else:  # PyTensor 3.0: the axis the first input
            axis, parts = int(np.asarray(args[0])), args[1:]
        return [np.concatenate([np.asarray(a, dtype=object) for a in parts], axis=axis)]
    if any(_is_float(i) for i in node.inputs) or not any(_is_float(o) for o in node.outputs):
        return _perform(node, args)
    raise NotImplementedError(f"no exact evaluation of {op}")


def _walk(inputs: Sequence[Variable], outputs: Sequence[Variable], memo: dict[Variable, Any]) -> list[Any]:
    for node in io_toposort(list(inputs), list(outputs)):
        args = []
        for i in node.inputs:
            if i not in memo:
                if not isinstance(i, Constant):
                    raise ValueError(f"the graph reads {i}, which is neither an input nor a constant")
                memo[i] = _mp_array(i.data) if _is_float(i) else i.data
            args.append(memo[i])
        for out, value in zip(node.outputs, _apply(node, args), strict=True):
            memo[out] = value
    return [memo[o] if o in memo else (_mp_array(o.data) if isinstance(o, Constant) else None) for o in outputs]


def exact_value(inputs: Sequence[Variable], output: Variable, values: Sequence[np.ndarray]) -> np.ndarray:
    """The output of the graph at ``values`` as an object array of mpmath numbers (at the working precision)."""
    memo: dict[Variable, Any] = {i: _mp_array(v) for i, v in zip(inputs, values, strict=True)}
    return np.asarray(_walk(inputs, [output], memo)[0], dtype=object)


def _agree(a: Any, b: Any, rtol: float) -> bool:
    if isinstance(a, mp.mpc) or isinstance(b, mp.mpc):
        return isinstance(a, mp.mpc) and isinstance(b, mp.mpc) and a.imag != 0 and b.imag != 0
    a, b = mp.mpf(a), mp.mpf(b)
    if mp.isnan(a) or mp.isnan(b):
        return bool(mp.isnan(a) and mp.isnan(b))
    if mp.isinf(a) or mp.isinf(b):
        return bool(a == b)
    return bool(abs(a - b) <= rtol * max(abs(b), mp.mpf(10) ** -300))


def check_spelling(spelling: Any, rtol: float = 1e-12, precisions: Sequence[int] = (60, 700, 5000)) -> list[int]:
    """The flat indices where the spelling's own exact value differs from its reference at every precision tried.

    An empty list: the spelling is mathematically its target at its inputs.
    The comparison is retried at higher precision only for the elements that
    differ (a cancellation the lower precision could not resolve).
    """
    ins, out = spelling.graph()
    bad: list[int] | None = None
    for dps in precisions:
        with mp.workdps(dps):
            objs = [_mp_array(v) for v in spelling.values]
            ref = np.asarray(spelling.reference(*objs), dtype=object).ravel()
            got = exact_value(ins, out, spelling.values).ravel()
            if got.shape != ref.shape:
                raise ValueError(f"{spelling.name}: the graph's shape {got.shape} is not the reference's {ref.shape}")
            idx = range(ref.size) if bad is None else bad
            bad = [i for i in idx if not _agree(got[i], ref[i], rtol)]
        if not bad:
            return []
    return bad or []
