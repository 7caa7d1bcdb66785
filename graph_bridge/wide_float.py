"""A graph evaluated in numpy at two precisions: the cheap screen of the measured stabilizing stage.

:func:`evaluate` runs a graph of Elemwise, CAReduce, DimShuffle, Alloc,
shape and indexing nodes with numpy, its float values held in a chosen dtype:
``float64`` (the graph as written) or ``np.longdouble`` (x87 extended:
64-bit significand, exponents to 16384, so ``exp(800)`` and the digits a
float64 cancellation loses are still there).  Each Op is computed by one
formula at both precisions (a stable one: ``softplus``, ``sigmoid``,
``log1mexp`` as PyTensor's own implementations compute them), so a
difference between the two results comes from how the graph composes its
Ops, not from an Op.  Special functions numpy has no extended loop for
(``erf``, ``erfc``, ``erfcx``, ``gammaln``, ``gamma``) are computed from
scipy's float64 values with their range extended (``erfc(x) = exp(-x**2) *
erfcx(x)``, ``gamma(x) = sign * exp(gammaln(x))``): relative precision of
float64 but no underflow or overflow, enough to see a spelling that
overflows or underflows where its value does not.

:func:`wide_gap` is the screen: the mean bits of error
(:func:`~graph_bridge.float_error.bits_of_error`) of the float64 result
against the extended one rounded to float64, on inputs sampled as Herbie
samples them.  It costs a few numpy calls per node (no compile, no
mpmath), so every region of a graph can be screened; only the regions it
flags are measured against exact values.  An Op it does not know raises
:class:`NotImplementedError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import pytensor.scalar as ps
import scipy.special as sp
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import explicit_graph_inputs, toposort
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.shape import Shape, Shape_i
from pytensor.tensor.subtensor import AdvancedSubtensor, Subtensor

__all__ = [
    "BINADES", "SCREENED", "SCREEN_GRID", "WIDE", "Screened", "evaluate", "losing_points", "screen_floats", "wide_gap",
    "wide_screen",
    "wide_screen_flat",
]

#: The extended dtype of the reference evaluation.
WIDE = np.longdouble

_LOG2 = np.log(2.0)
_HALF_SQRT_PI = np.sqrt(np.pi) / 2


def _softplus(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.where(x > 0, x + np.log1p(np.exp(-np.abs(x))), np.log1p(np.exp(np.minimum(x, 0))))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _log1mexp(x: np.ndarray) -> np.ndarray:
    return np.where(x < -_LOG2, np.log1p(-np.exp(x)), np.log(-np.expm1(x)))


def _erfc(x: np.ndarray) -> np.ndarray:
    d = np.asarray(x, dtype="float64")
    if x.dtype != WIDE:
        return sp.erfc(d)
    # exp(-x**2) in the wide dtype: no underflow until x ~ 106; below 0 as 2 - erfc(-x) in the wide dtype:
    # float64's erfc rounds erfc(-5) to 2 - 1.5e-12 at float64's spacing, and a screen reading it sees no
    # cancellation in 2 - erfc(-x)
    upper = np.exp(-x * x) * sp.erfcx(np.abs(d)).astype(WIDE)
    return np.where(x > 0, upper, np.where(x < 0, 2 - upper, sp.erfc(d).astype(WIDE)))


def _erf(x: np.ndarray) -> np.ndarray:
    d = np.asarray(x, dtype="float64")
    if x.dtype != WIDE:
        return sp.erf(d).astype(x.dtype)
    # near +-1 as 1 - erfc(|x|) in the wide dtype: float64's erf rounds erf(-7) to -1 exactly, and a
    # screen reading it in float64 sees no cancellation in 0.5 + 0.5 * erf(x)
    far = np.abs(x) >= 0.5
    return np.where(far, np.sign(x) * (1 - _erfc(np.abs(x))), sp.erf(d).astype(WIDE))


def _erfcx(x: np.ndarray) -> np.ndarray:
    d = np.asarray(x, dtype="float64")
    if x.dtype != WIDE:
        return sp.erfcx(d)
    return np.where(x < 0, np.exp(x * x) * sp.erfc(np.minimum(d, 0)).astype(WIDE), sp.erfcx(d).astype(WIDE))


def _gamma(x: np.ndarray) -> np.ndarray:
    d = np.asarray(x, dtype="float64")
    if x.dtype != WIDE:
        return sp.gamma(d)
    return sp.gammasgn(d).astype(WIDE) * np.exp(sp.gammaln(d).astype(WIDE))


def _via_float64(f: Callable, df: Callable | None = None) -> Callable:
    """``f`` computed in float64; with its derivative ``df``, corrected to first order by what the float64
    argument rounded off an extended one (``gammaln(1 + x)`` at ``x = 1e-10`` is then the extended value, as
    ``log(1 + x)`` is: without it, both precisions read the same rounded ``1 + x`` and the screen saw no
    error)."""

    def g(x: np.ndarray) -> np.ndarray:
        d = np.asarray(x, dtype="float64")
        out = f(d).astype(x.dtype if x.dtype.kind == "f" else "float64")
        if df is None or x.dtype != WIDE:
            return out
        rest = x - d.astype(WIDE)
        with np.errstate(all="ignore"):
            step = df(d).astype(WIDE) * rest
        return np.where((rest != 0) & np.isfinite(step), out + step, out)

    return g


_gammaln_float64 = _via_float64(sp.gammaln, sp.psi)
#: Above it the extended ``gammaln`` is Stirling's series (its first dropped term, ``1 / (1188 x**9)``, is 4e-17
#: at 30, below an extended ulp of ``gammaln(30) = 71.3``).
_STIRLING_FROM = 30.0
_HALF_LOG_2PI = np.log(8 * np.arctan(np.ones((), dtype=WIDE))) / 2


def _gammaln(x: np.ndarray) -> np.ndarray:
    """``gammaln``: in float64 (corrected to first order for an extended argument); for an extended argument above
    :data:`_STIRLING_FROM`, Stirling's series in extended precision, so a difference of two large log-gammas (a
    Student-t's normalizing constant at a large ``nu``) keeps the digits float64 values of each would lose."""
    out = _gammaln_float64(x)
    if x.dtype != WIDE or not (big := x > _STIRLING_FROM).any():
        return out
    xb = np.where(big, x, WIDE(_STIRLING_FROM + 1))
    u = 1 / (xb * xb)
    tail = (1 / WIDE(12) - u * (1 / WIDE(360) - u * (1 / WIDE(1260) - u / WIDE(1680)))) / xb
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(big, (xb - WIDE(0.5)) * np.log(xb) - xb + _HALF_LOG_2PI + tail, out)


#: scalar Op class -> a numpy function of the inputs computing in their dtype
SCALAR: dict[type, Callable[..., Any]] = {
    ps.Add: lambda *a: _fold(np.add, a), ps.Mul: lambda *a: _fold(np.multiply, a), ps.Sub: np.subtract,
    ps.TrueDiv: np.true_divide, ps.Neg: np.negative, ps.Reciprocal: lambda x: 1 / x, ps.Pow: np.power,
    ps.Sqr: np.square, ps.Sqrt: np.sqrt, ps.Abs: np.abs, ps.Exp: np.exp, ps.Exp2: np.exp2, ps.Expm1: np.expm1,
    ps.Log: np.log, ps.Log2: np.log2, ps.Log10: np.log10, ps.Log1p: np.log1p, ps.Sigmoid: _sigmoid,
    ps.Softplus: _softplus, ps.Log1mexp: _log1mexp, ps.Erf: _erf, ps.Erfc: _erfc,
    ps.Erfcx: _erfcx, ps.Gamma: _gamma, ps.GammaLn: _gammaln,
    ps.Psi: _via_float64(sp.psi, lambda d: sp.polygamma(1, d)),
    ps.Maximum: np.maximum, ps.Minimum: np.minimum, ps.Sin: np.sin, ps.Cos: np.cos, ps.Tan: np.tan,
    ps.Sinh: np.sinh, ps.Cosh: np.cosh, ps.Tanh: np.tanh, ps.ArcSinh: np.arcsinh, ps.ArcCosh: np.arccosh,
    ps.ArcTanh: np.arctanh, ps.ArcTan: np.arctan, ps.ArcSin: np.arcsin, ps.ArcCos: np.arccos,
    ps.Switch: lambda c, a, b: np.where(c.astype(bool), a, b), ps.GT: np.greater, ps.GE: np.greater_equal,
    ps.LT: np.less, ps.LE: np.less_equal, ps.EQ: np.equal, ps.NEQ: np.not_equal, ps.AND: np.logical_and,
    ps.OR: np.logical_or, ps.Invert: np.logical_not, ps.Identity: lambda x: x, ps.Sign: np.sign,
    ps.Floor: np.floor, ps.Ceil: np.ceil, ps.IsNan: np.isnan, ps.IsInf: np.isinf,
    ps.Clip: lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
    ps.Second: lambda a, b: np.broadcast_to(b, np.broadcast(a, b).shape).copy(),  # fill: b in a's shape
    ps.Erfinv: _via_float64(sp.erfinv, lambda d: _HALF_SQRT_PI * np.exp(sp.erfinv(d) ** 2)),
    ps.Erfcinv: _via_float64(sp.erfcinv, lambda d: -_HALF_SQRT_PI * np.exp(sp.erfcinv(d) ** 2)),
    ps.TriGamma: _via_float64(lambda d: sp.polygamma(1, d), lambda d: sp.polygamma(2, d)),
    ps.PolyGamma: lambda n, x: _via_float64(lambda d: sp.polygamma(n, d), lambda d: sp.polygamma(n + 1, d))(x),
    ps.I0: _via_float64(sp.i0, sp.i1), ps.I1: _via_float64(sp.i1, lambda d: sp.i0(d) - sp.i1(d) / d),
    ps.Mod: np.mod, ps.IntDiv: np.floor_divide, ps.Trunc: np.trunc, ps.RoundHalfToEven: np.round,
}
#: CAReduce scalar Op class -> numpy reduction
REDUCE: dict[type, Callable[..., Any]] = {
    ps.Add: np.add.reduce, ps.Mul: np.multiply.reduce, ps.Maximum: np.maximum.reduce, ps.Minimum: np.minimum.reduce,
    ps.AND: np.logical_and.reduce, ps.OR: np.logical_or.reduce,
}


def _fold(f: Callable, args: Sequence[np.ndarray]) -> np.ndarray:
    out = args[0]
    for a in args[1:]:
        out = f(out, a)
    return out


def _in(dtype: str, wide: Any) -> Any:
    """The dtype a value of PyTensor dtype ``dtype`` is held in at precision ``wide``."""
    return wide if dtype.startswith("float") else dtype


def _inner(op: Any, node: Any) -> tuple[list[Variable], Variable]:
    """Fresh inputs and the inner graph of a symbolic Op (built once per Op and input types)."""
    key = (op, tuple(i.type for i in node.inputs))
    if key not in _INNER:
        fresh = [i.type() for i in node.inputs]
        [inner] = op.build_inner_graph(*fresh)
        _INNER[key] = (fresh, inner)
    return _INNER[key]


_INNER: dict[Any, tuple[list[Variable], Variable]] = {}


def evaluate(outputs: Sequence[Variable], values: Mapping[Variable, Any], dtype: Any = WIDE,
             order: Sequence[Any] | None = None, env: dict[Variable, Any] | None = None) -> list[np.ndarray]:
    """``outputs`` at ``values`` (one array per non-constant input), every float held in ``dtype``.

    Raises :class:`NotImplementedError` on an Op outside Elemwise (of :data:`SCALAR`), CAReduce (of
    :data:`REDUCE`), DimShuffle, Alloc, Shape, ``Shape_i``, (advanced) indexing and symbolic Ops
    (softmax); ``order``: the
    graph's nodes in :func:`~pytensor.graph.traversal.toposort` order, when the caller has it; ``env``
    receives every variable's value."""
    env = {} if env is None else env
    for v, x in values.items():
        env[v] = np.asarray(x).astype(_in(str(v.type.dtype), dtype))
    if not outputs:
        return []
    with np.errstate(all="ignore"):
        for node in order if order is not None else toposort(list(outputs)):
            for i in node.inputs:
                if i not in env:
                    if not isinstance(i, Constant):
                        raise ValueError(f"values: no value for the input {i}")
                    env[i] = _constant(i, dtype)
            ins = [env[i] for i in node.inputs]
            out_dtype = str(node.outputs[0].type.dtype) if hasattr(node.outputs[0].type, "dtype") else ""
            op = node.op
            if isinstance(op, Elemwise):
                if len(node.outputs) != 1:
                    raise NotImplementedError(f"no extended evaluation of {op}")
                res = _scalar(op.scalar_op, ins, dtype)
            elif isinstance(op, CAReduce) and type(op.scalar_op) in REDUCE:
                res = REDUCE[type(op.scalar_op)](ins[0], axis=op.axis)
            elif isinstance(op, Alloc):
                res = np.broadcast_to(ins[0], tuple(int(s) for s in ins[1:]))
            elif isinstance(op, Shape):  # the mean's count, a copula's dimension: integers, exact at both precisions
                res = np.asarray(ins[0].shape, dtype="int64")
            elif isinstance(op, Shape_i):
                res = np.asarray(ins[0].shape[op.i], dtype="int64")
            elif isinstance(op, DimShuffle | Subtensor | AdvancedSubtensor):  # any dtype
                box: list[list[Any]] = [[None]]
                op.perform(node, ins, box)
                res = np.asarray(box[0][0])
            elif hasattr(op, "build_inner_graph") and len(node.outputs) == 1:  # softmax, log_softmax, logsumexp
                fresh, inner = _inner(op, node)
                [res] = evaluate([inner], dict(zip(fresh, ins, strict=True)), dtype)
            else:
                raise NotImplementedError(f"no extended evaluation of {op}")
            res = np.asarray(res)
            env[node.outputs[0]] = res.astype(_in(out_dtype, dtype)) if out_dtype else res
    return [env[o] if o in env else _constant(o, dtype) for o in outputs]


def _scalar(op: Any, args: Sequence[np.ndarray], dtype: Any) -> np.ndarray:
    """A scalar Op of one output applied to arrays held at precision ``dtype``: its function of :data:`SCALAR`
    (a cast: the value itself, held in the dtype the caller casts to), or a fused ``Composite``'s inner graph
    (what PyTensor's rewrites fuse: ``x**4`` is ``sqr(sqr(x))``)."""
    if isinstance(op, ps.Composite):
        return _composite(op, args, dtype)
    if isinstance(op, ps.Cast):
        return args[0]
    f = SCALAR.get(type(op))
    if f is None:
        raise NotImplementedError(f"no extended evaluation of {op}")
    return f(*args)


def _composite(op: Any, ins: Sequence[np.ndarray], dtype: Any) -> np.ndarray:
    """A fused ``Composite``'s one output, its inner scalar Ops evaluated by :func:`_scalar`."""
    env: dict[Variable, Any] = dict(zip(op.fgraph.inputs, ins, strict=True))
    for node in op.fgraph.toposort():
        if len(node.outputs) != 1:
            raise NotImplementedError(f"no extended evaluation of {node.op} in {op}")
        args = [env[i] if i in env else _constant(i, dtype) for i in node.inputs]
        res = _scalar(node.op, args, dtype)
        env[node.outputs[0]] = np.asarray(res).astype(_in(str(node.outputs[0].type.dtype), dtype))
    return env[op.fgraph.outputs[0]]


def _constant(v: Any, dtype: Any) -> Any:
    """A constant's value held at precision ``dtype``; one of a type without a dtype (an index's ``None``
    or slice, ``NoneConst``) as it is."""
    if not isinstance(v, Constant):
        raise ValueError(f"values: no value for the input {v}")
    kind = getattr(v.type, "dtype", None)
    if kind is None:
        return v.data
    return np.asarray(v.data).astype(_in(str(kind), dtype))


def _ordinals(x: np.ndarray) -> np.ndarray:
    """The floats' places in their dtype's order (float64 or float32), as int64."""
    if x.dtype == np.float32:
        raw32 = x.view(np.int32).astype(np.int64)
        return np.where(raw32 < 0, -(raw32 & np.int64(0x7FFFFFFF)), raw32)
    raw = x.view(np.int64)
    return np.where(raw < 0, -(raw & np.int64(0x7FFFFFFFFFFFFFFF)), raw)


def _bits(computed: np.ndarray, reference: np.ndarray, dtype: str = "float64") -> np.ndarray:
    """Herbie's bits of error of ``computed`` against ``reference``, both rounded to ``dtype`` (float64 or
    float32: at most 64 or 32 bits, as :mod:`graph_bridge.float_error`), vectorized in int64."""
    top = 32.0 if dtype == "float32" else 64.0
    c, r = np.ascontiguousarray(computed, dtype=dtype), np.ascontiguousarray(reference, dtype=dtype)
    cn, rn = np.isnan(c), np.isnan(r)
    a, b = _ordinals(np.where(cn, 0, c).astype(dtype)), _ordinals(np.where(rn, 0, r).astype(dtype))
    # ordinals of opposite signs may not fit an int64 difference: far apart anyway, a float difference
    gap = np.where((a < 0) != (b < 0), np.abs(a.astype(float) - b.astype(float)), np.abs(a - b).astype(float))
    bits = np.minimum(np.log2(1.0 + gap), top)
    return np.where(cn | rn, np.where(cn & rn, 0.0, top), bits)


#: The binades :func:`screen_floats` draws from: ``2**-60`` (1e-18) to ``2**14`` (16384), where the wide
#: dtype's range (exponents to 16384) holds what float64's overflows or underflows (``exp(800)``,
#: ``exp(-800)``, ``x**2`` of 1e200 does not occur); the binades beyond overflow the wide dtype too.
BINADES = (-60.0, 14.0)


def screen_floats(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """float64 values of both signs, uniform over the binades of :data:`BINADES` (Herbie's sampling, on
    the range where the wide evaluation is a reference)."""
    mag = np.exp2(rng.uniform(*BINADES, size=shape))
    return np.where(rng.random(shape) < 0.5, -mag, mag)


def wide_gap(output: Variable, n: int = 8, seed: int = 0, size: int = 2) -> float | None:
    """Mean bits between ``output`` in float64 and in :data:`WIDE` (:func:`wide_screen`'s first part)."""
    return wide_screen(output, n, seed, size)[0]


#: Magnitudes every input also takes in :func:`wide_screen` (``grid=True``), both signs and 0: where
#: bit-uniform draws are thin and cancellations live (``softplus(x) - x`` for x in [20, 700], a few
#: percent of the draws), within :data:`BINADES`.
SCREEN_GRID = tuple(sorted({s * m for s in (1.0, -1.0) for m in (
    1e-10, 1e-4, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 40.0, 100.0, 400.0, 1e3, 1e4)} | {0.0}))
#: The float dtypes :func:`wide_screen` measures (its extended dtype holds both exactly).
SCREENED = ("float64", "float32")


def _points(inputs: Sequence[Variable], n: int, grid: bool, rng: np.random.Generator,
            size: int) -> list[dict[Variable, np.ndarray]]:
    shapes = {v: tuple(s if s is not None else size for s in v.type.shape) for v in inputs}
    drawn = [{v: screen_floats(shapes[v], rng) for v in inputs} for _ in range(n)]
    if not grid:
        return drawn
    cols = [np.array(SCREEN_GRID)] + [rng.permutation(SCREEN_GRID) for _ in inputs[1:]]
    return drawn + [{v: np.full(shapes[v], c[k]) for v, c in zip(inputs, cols, strict=True)}
                    for k in range(len(SCREEN_GRID))]


class Screened(NamedTuple):
    """What :func:`wide_screen` measured: the mean bits (``None``: nothing measurable), the elements one
    point computes, and the elements lost whole (computed ``inf`` or 0 where the value is finite and not 0:
    a log-CDF's ``-inf`` at x = -40, an ``exp`` overflowing)."""

    mean: float | None
    elements: int
    lost: int = 0


def wide_screen(output: Variable, n: int = 8, seed: int = 0, size: int = 2,
                grid: bool = False) -> Screened:
    """Mean bits between ``output`` evaluated in its float dtype (float64 or float32) and in :data:`WIDE`
    over ``n`` sampled points, and with ``grid`` over the points of :data:`SCREEN_GRID` too.

    Each point draws every float input at its static shape (an unknown length is ``size``) uniformly
    over the binades of :data:`BINADES` (:func:`screen_floats`); a grid point gives every element of
    each input one magnitude of the grid (the inputs after the first a shuffled copy).  The points where
    the wide result is NaN are dropped (no real value there).  Bits are counted in the output's dtype.
    ``None``: no float output, an input that is not a float of :data:`SCREENED` (nothing to sample), or no
    point left.  Raises :class:`NotImplementedError` on an Op :func:`evaluate` does not know.  Second: the
    elements one point's evaluation computed (every node's output), the size of an exact evaluation of
    the graph per point."""
    dtype = str(getattr(output.type, "dtype", ""))
    if dtype not in SCREENED:
        return Screened(None, 0)
    inputs = [v for v in explicit_graph_inputs([output]) if not isinstance(v, Constant)]
    if any(str(getattr(v.type, "dtype", "")) not in SCREENED for v in inputs):
        return Screened(None, 0)
    rng = np.random.default_rng(seed)
    order = list(toposort([output]))
    gaps = []
    lost = 0
    lo_env: dict[Variable, Any] = {}
    for at in _points(inputs, n, grid, rng, size):
        at = {v: x.astype(str(v.type.dtype)) for v, x in at.items()}
        lo_env = {}
        [lo] = evaluate([output], at, np.dtype(dtype).type, order, lo_env)
        [hi] = evaluate([output], at, WIDE, order)
        with np.errstate(over="ignore"):  # an extended value beyond the dtype rounds to inf, as it should
            ref = hi.astype(dtype)
        keep = ~np.isnan(hi)
        if keep.any():
            gaps.append(float(np.mean(_bits(lo[keep], ref[keep], dtype))))
            whole = (np.isinf(lo) | (lo == 0)) & np.isfinite(ref) & (ref != 0)
            lost += int(np.count_nonzero(whole & keep))
    elements = sum(int(np.size(lo_env.get(node.outputs[0], 0))) for node in order)
    return Screened(float(np.mean(gaps)) if gaps else None, elements, lost)


def _of_constants(order: Sequence[Any]) -> set[Variable]:
    """The variables of the nodes ``order`` (in order) computed from constants only, and those constants."""
    found: set[Variable] = set()
    for node in order:
        found.update(i for i in node.inputs if isinstance(i, Constant))
        if all(i in found for i in node.inputs):
            found.update(node.outputs)
    return found


def _flat_inputs(output: Variable, n: int, seed: int,
                 grid: Sequence[float] = SCREEN_GRID) -> tuple[list[Any], dict[Variable, np.ndarray]] | None:
    """The nodes of ``output`` (an Elemwise graph, constants and their functions expanded by a DimShuffle) in
    order, and its inputs at the flat screen's points: one entry per point (the grid's magnitudes, the inputs
    after the first a shuffled copy, then ``n`` draws).  ``None``: another graph, or an input or output not of
    :data:`SCREENED`, or a constant of more than one element (a model's data vector: one entry per point
    would not broadcast with it)."""
    dtype = str(getattr(output.type, "dtype", ""))
    order = list(toposort([output]))
    constants = _of_constants(order)
    if dtype not in SCREENED or not all(
        isinstance(node.op, Elemwise) or (isinstance(node.op, DimShuffle) and node.inputs[0] in constants)
        for node in order
    ) or any(isinstance(i, Constant) and np.size(i.data) > 1 for node in order for i in node.inputs):
        return None
    inputs = [v for v in explicit_graph_inputs([output]) if not isinstance(v, Constant)]
    if any(str(getattr(v.type, "dtype", "")) not in SCREENED for v in inputs):
        return None
    rng = np.random.default_rng(seed)
    values = np.array(grid)
    values = values[np.abs(values) <= float(np.finfo(dtype).max)]  # the magnitudes the dtype holds
    at = {}
    for k, v in enumerate(inputs):  # (an input narrower than the output holds fewer: float32 under a float64 sum)
        held = values[np.abs(values) <= float(np.finfo(v.type.dtype).max)]
        drawn = np.concatenate([held if k == 0 else rng.permutation(held), screen_floats((n,), rng)])
        at[v] = np.resize(drawn, len(values) + n).astype(v.type.dtype)
    return order, at


def wide_screen_flat(output: Variable, n: int = 8, seed: int = 0,
                     grid: Sequence[float] = SCREEN_GRID) -> Screened | None:
    """:func:`wide_screen` with ``grid=True`` in one evaluation per precision, for a graph of Elemwise nodes only
    (and constants expanded by a DimShuffle; ``None`` for another graph, or one :func:`wide_screen` would not
    measure): every input is a flat array of
    one entry per point (the grid's magnitudes, the inputs after the first a shuffled copy, then ``n`` draws),
    which the scalar functions broadcast as they would each point.  A few numpy calls per node in all, where
    :func:`wide_screen` makes them per point; ``elements`` is the nodes' count (one entry a point).  ``grid``:
    the magnitudes (:data:`GAP_GRID` reaches the ends of the dtype's range, where ``x * x`` overflows and the
    wide dtype does not)."""
    found = _flat_inputs(output, n, seed, grid)
    if found is None:
        return None
    order, at = found
    dtype = str(output.type.dtype)
    [lo] = evaluate([output], at, np.dtype(dtype).type, order)
    [hi] = evaluate([output], at, WIDE, order)
    with np.errstate(over="ignore"):
        ref = hi.astype(dtype)
    keep = ~np.isnan(hi)
    if not keep.any():
        return Screened(None, len(order))
    whole = (np.isinf(lo) | (lo == 0)) & np.isfinite(ref) & (ref != 0) & keep
    return Screened(float(np.mean(_bits(lo[keep], ref[keep], dtype))), len(order), int(np.count_nonzero(whole)))


#: The magnitudes :func:`lost_corners` pairs every input with: where ``exp``, ``gamma``, a square or a power
#: overflows or underflows (``exp(400)**2``, ``gamma(400)``, ``(1e200)**2``), each sign; and just past where
#: ``exp`` overflows while what it divides is still a float (``2 / (exp(x) + exp(-x))`` at 720 is 4e-313, and
#: 0 computed; float32's window at 95); and 1, where a likelihood's indicator is (``y * eta - softplus(eta)`` is 0
#: at ``y = 1``, ``eta = 40``, where it is ``-4.2e-18``).
CORNERS = tuple(sorted({s * m for s in (1.0, -1.0)
                        for m in (1e-300, 1e-30, 0.5, 1.0, 2.0, 40.0, 95.0, 400.0, 720.0, 800.0, 1e30, 1e200, 1e300)}))
#: At most this many combinations of :data:`CORNERS` are screened (a graph of four inputs or more: drawn).
CORNER_COMBINATIONS = 8000


def _per_point(output: Variable, cols: Mapping[Variable, np.ndarray], order: Sequence[Any],
               n: int) -> tuple[np.ndarray, np.ndarray]:
    """``output`` in its dtype and in the extended one (rounded to its dtype), one entry a point: each input's
    column (``n`` values) on its leading axis, its other axes of length 1 (a matrix input broadcast against a
    padded constant stays one entry a point)."""
    dtype = str(output.type.dtype)
    at = {v: np.asarray(c).reshape(-1, *[1] * max(v.type.ndim - 1, 0)) for v, c in cols.items()}
    with np.errstate(all="ignore"):
        [lo] = evaluate([output], at, np.dtype(dtype).type, order)
        [hi] = evaluate([output], at, WIDE, order)
        ref = hi.astype(dtype)
    lo, ref = np.asarray(lo), np.asarray(ref)
    if lo.size == n and ref.size == n:
        return lo.reshape(-1), ref.reshape(-1)
    return np.broadcast_to(lo.reshape(-1), (n,)), np.broadcast_to(ref.reshape(-1), (n,))


def losing_points(new: Variable, old: Variable, n: int = 256, seed: int = 0, bits: float = 8.0,
                  cap: int = 16) -> dict[Variable, np.ndarray] | None:
    """Up to ``cap`` points (the worst first) where ``new`` may lose ``bits`` or more than ``old`` while ``old`` is
    accurate to ``bits``, by either's extended evaluation (each is exact only as far as its Ops' extended loops
    are: the normal log-CDF's ``erfc`` at ``x = -1e100`` is 4e-8 off in it, where its ``erfcx`` form is right;
    an exact measurement judges them): among the flat screen's points (:data:`GAP_GRID`'s magnitudes, a
    shuffled copy for each input after the first, ``n`` draws) and the products of :data:`GAP_GRID` and
    :data:`CORNERS` over the inputs (all of them up to :data:`PRODUCT_POINTS`, else that many drawn).  A form
    measured better at a few dozen points lost a value whole where one input is extreme and another
    moderate, which bit-uniform draws reach once in thousands.  ``None``: no such point, a graph the flat
    screen does not take, or not over the same inputs."""
    found = _flat_inputs(old, n, seed, GAP_GRID)
    if found is None or not _screened_alike(new, old, found[1]):
        return None
    order, at = found
    dtype = str(old.type.dtype)
    cols = {v: np.concatenate([np.asarray(c, dtype=dtype).reshape(-1), p])
            for (v, c), p in zip(at.items(), _products(len(at), dtype, seed), strict=True)}
    k = len(next(iter(cols.values()))) if cols else 0
    lo_old, ref_old = _per_point(old, cols, order, k)
    lo_new, ref_new = _per_point(new, cols, list(toposort([new])), k)
    gap = np.zeros(k)
    for ref in (ref_old, ref_new):
        known = np.isfinite(ref) & (ref != 0)
        b_old, b_new = _bits(lo_old, ref, dtype), _bits(lo_new, ref, dtype)
        gap = np.maximum(gap, np.where(known & (b_old < bits), b_new - b_old, 0.0))
    worst = np.flatnonzero(gap >= bits)
    if not len(worst):
        return None
    pick = np.sort(worst[np.argsort(-gap[worst], kind="stable")[:cap]])
    return {v: c[pick] for v, c in cols.items()}


#: The points of :func:`losing_points`' products at most (all of them for two inputs).
PRODUCT_POINTS = 4096


def _products(m: int, dtype: str, seed: int) -> list[np.ndarray]:
    """A column per input: the product of :data:`GAP_GRID` and :data:`CORNERS` over ``m`` inputs, or
    :data:`PRODUCT_POINTS` rows of it drawn (``seed``)."""
    with np.errstate(over="ignore"):
        values = np.unique(np.asarray(sorted(set(GAP_GRID) | set(CORNERS)), dtype=dtype))
    if m == 0:
        return []
    if len(values) ** m <= PRODUCT_POINTS:
        grid = np.meshgrid(*[values] * m, indexing="ij")
        return [g.reshape(-1) for g in grid]
    rng = np.random.default_rng(seed)
    return [values[rng.integers(0, len(values), PRODUCT_POINTS)] for _ in range(m)]


def lost_corners(output: Variable, cap: int = 8, seed: int = 0) -> dict[Variable, np.ndarray] | None:
    """Up to ``cap`` points where ``output`` (an Elemwise graph, as :func:`wide_screen_flat` takes) loses a value
    whole: computed ``inf``, 0 or NaN in its dtype where its extended value is finite and not 0, among the
    combinations of :data:`CORNERS` for its inputs (``1e-300 * exp(800)`` is ``inf`` where it is ``e**109``;
    ``exp(x) / (1 + exp(x))**2`` is 0 at ``x = 400``, where it is ``e**-400``).  Sampled points seldom fall
    where one input overflows and another brings the value back.  ``None``: a graph the flat screen does not
    take, or no such point."""
    found = _flat_inputs(output, 0, seed, (1.0,))
    if found is None:
        return None
    order, at = found
    inputs = list(at)
    dtype = str(output.type.dtype)
    info = np.finfo(dtype)
    values = np.array([m for m in CORNERS if float(info.smallest_subnormal) <= abs(m) <= float(info.max)])
    rng = np.random.default_rng(seed)
    if not inputs:
        return None
    if len(values) ** len(inputs) <= CORNER_COMBINATIONS:
        idx = np.indices((len(values),) * len(inputs)).reshape(len(inputs), -1).T
    else:
        idx = rng.integers(0, len(values), size=(CORNER_COMBINATIONS, len(inputs)))
    with np.errstate(over="ignore"):  # an input narrower than the output: its rows beyond its range dropped
        at = {v: values[idx[:, j]].astype(str(v.type.dtype)) for j, v in enumerate(inputs)}
    held = np.all([np.isfinite(a) for a in at.values()], axis=0)
    idx, at = idx[held], {v: a[held] for v, a in at.items()}
    lo, ref = _per_point(output, at, order, len(idx))
    kept = np.isfinite(ref) & (ref != 0)
    # each way of losing a value drawn from in turn (inf, 0, NaN): a region that overflows at most corners still
    # has its points where it cancels to 0 (``log(1 + exp(x)) - x * y`` at x = 40, y = 1)
    kinds = (np.isinf(lo), lo == 0, np.isnan(lo))
    turns = _in_turns([rng.permutation(np.flatnonzero(lost & kept)) for lost in kinds])
    if not turns:
        return None
    pick = np.sort(np.array(turns[:cap]))
    return {v: x[pick] for v, x in at.items()}


#: The magnitudes of one input of a pair :func:`diagonal_cancels` reads, the other's relative offsets from it
#: (``f 2**-k``, each ``f`` of :data:`DIAGONAL_FRACTIONS`, both signs), and the values of the inputs outside the pair.
DIAGONAL = (0.5, 3.0, 40.0, 1e4, -0.5, -3.0, -40.0, -1e4)
DIAGONAL_OFFSETS = (10, 20, 30, 40)
#: One not a power of 2, and 1: at ``y = x (1 + 2**-k)`` the ratio ``y / x`` is exact, so ``log(y / x)`` (a Pareto
#: CDF's, a deviance's) loses nothing there, though it loses half its digits at ``y = 7.00000000123``, ``x = 7``;
#: the powers of 2 keep the points where a form in the ratio is exact (the normal KL's series in ``s1 / s2``).
DIAGONAL_FRACTIONS = (0.7548776662466927, 1.0)
DIAGONAL_OTHERS = (0.0, 0.5, 2.0, 7.0)
#: Bits the graph in its dtype must lose against the extended evaluation at a diagonal point to count.
DIAGONAL_BITS = 8.0


def diagonal_cancels(output: Variable, cap: int = 8) -> dict[Variable, np.ndarray] | None:
    """Up to ``cap`` points of each fraction where ``output`` (an Elemwise graph of two float inputs or more, as
    :func:`wide_screen_flat` takes) loses :data:`DIAGONAL_BITS` or more where two of its inputs nearly agree:
    ``y = x (1 +- f 2**-k)`` (:data:`DIAGONAL`, :data:`DIAGONAL_OFFSETS`, :data:`DIAGONAL_FRACTIONS`), the others
    at each of
    :data:`DIAGONAL_OTHERS`.  Statistics cancel there: a deviance or a KL divergence where the data is near the
    parameter (``y log(y / mu) - y + mu``), ``x*x - y*y``; independent draws of two inputs seldom are.  Float64
    is judged against numpy's extended precision, which keeps 11 more bits (a loss of 40 bits shows as 40 less
    what the extended one loses too).  The points are the worst of each magnitude and pair, the pairs in turn
    (:func:`_spread`).
    ``None``: a graph the flat screen does not take, or no such point."""
    found = _flat_inputs(output, 0, 0, (1.0,))  # no draws: the inputs and the nodes in order
    if found is None or len(found[1]) < 2:
        return None
    order, at = found
    inputs = list(at)
    dtype = str(output.type.dtype)
    offsets = [k for k in DIAGONAL_OFFSETS if 2.0**-k > float(np.finfo(dtype).eps)]
    rows = [(i, j, m, m * (1 + s * f * 2.0**-k), o, f) for i in range(len(inputs))
            for j in range(i + 1, len(inputs)) for m in DIAGONAL for k in offsets for f in DIAGONAL_FRACTIONS
            for s in (1.0, -1.0) for o in DIAGONAL_OTHERS]
    cols = {v: np.array([m if q == i else mj if q == j else o for i, j, m, mj, o, _ in rows]).astype(str(v.type.dtype))
            for q, v in enumerate(inputs)}
    lo, ref = _per_point(output, cols, order, len(rows))
    known = np.isfinite(ref) & (ref != 0)
    bits = np.zeros(len(rows))
    bits[known] = _bits(lo[known], ref[known], dtype)
    # each fraction's worst points apart, the one not a power of 2 first (``stabilize`` fits its forms on its first
    # points): a form chosen where a ratio is exact only is measured where it is not
    picks = [p for f in DIAGONAL_FRACTIONS if (p := _spread(rows, np.where([r[5] == f for r in rows], bits, 0.0),
                                                             cap)) is not None]
    if not picks:
        return None
    pick = np.concatenate(picks)
    return {v: x[pick] for v, x in cols.items()}


def _spread(rows: Sequence[tuple], bits: np.ndarray, cap: int) -> np.ndarray | None:
    """The rows :func:`diagonal_cancels` keeps: the worst of each magnitude and pair, taken a pair at a time (the
    worst of each pair first, then each pair's second worst, ...), so every pair that cancels has points and
    they span the range, not one pair's worst corner: the normal KL cancels where the means agree and where the
    scales do, and a sample of the first alone chose a form exact there and 30 bits off on the second."""
    worst: dict[tuple, int] = {}
    for k in map(int, np.flatnonzero(bits >= DIAGONAL_BITS)):
        key = (rows[k][2], rows[k][0], rows[k][1])
        if key not in worst or bits[k] > bits[worst[key]]:
            worst[key] = k
    if not worst:
        return None
    by_pair: dict[tuple, list[int]] = {}
    for (_, i, j), k in sorted(worst.items(), key=lambda item: -bits[item[1]]):
        by_pair.setdefault((i, j), []).append(k)
    return np.sort(np.array(_in_turns(list(by_pair.values()))[:cap]))


def _in_turns(groups: Sequence[Any]) -> list[Any]:
    """The groups' entries taken a group at a time: each group's first, then each group's second, ..."""
    return [g[n] for n in range(max(map(len, groups), default=0)) for g in groups if n < len(g)]


#: :data:`SCREEN_GRID` and the extreme magnitudes of each dtype (``1e300``, ``1e-300``): where a power
#: overflows (``log(x**3)`` at ``1e200``), which :func:`flat_gap` compares two forms at too.
GAP_GRID = tuple(sorted(set(SCREEN_GRID) | {s * m for s in (1.0, -1.0) for m in (1e-300, 1e-100, 1e-30, 1e30,
                                                                                   1e100, 1e300)}))


def _screened_alike(b: Variable, a: Variable, at: Mapping[Variable, Any]) -> bool:
    """Whether ``b`` is of ``a``'s dtype, a graph the flat screen takes, and over ``a``'s inputs (``at``: the
    columns :func:`_flat_inputs` gave ``a``): the two can be evaluated at the same points and compared."""
    if str(getattr(b.type, "dtype", "")) != str(a.type.dtype) or _flat_inputs(b, 0, 0) is None:
        return False
    return set(at) == {v for v in explicit_graph_inputs([b]) if not isinstance(v, Constant)}


def flat_gap(a: Variable, b: Variable, n: int = 8, seed: int = 0) -> float | None:
    """The most bits by which ``a`` and ``b`` (graphs of one float dtype over the same inputs) differ, each
    evaluated in that dtype at the flat screen's points (:func:`wide_screen_flat`'s, with the extreme magnitudes
    of :data:`GAP_GRID`), as :func:`_bits` counts
    them (the dtype's width where one is finite and the other not).  Points where both are NaN are skipped.
    ``None``: a graph :func:`wide_screen_flat` would not measure, or not over the same inputs.  Two spellings
    computing the same floats everywhere there have nothing to choose between them; where they differ, an exact
    measurement says which is right."""
    found = _flat_inputs(a, n, seed, GAP_GRID)
    if found is None or not _screened_alike(b, a, found[1]):
        return None
    order, at = found
    dtype = str(a.type.dtype)
    [x] = evaluate([a], at, np.dtype(dtype).type, order)
    [y] = evaluate([b], at, np.dtype(dtype).type)
    x, y = np.broadcast_arrays(x, y)
    keep = ~(np.isnan(x) & np.isnan(y))
    if not keep.any():
        return 0.0
    return float(np.max(_bits(x[keep], y[keep], dtype)))
