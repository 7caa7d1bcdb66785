"""Spellings of numerically stable expressions, at inputs where the naive spelling fails.

Each :class:`Spelling` builds one PyTensor graph that a user could write
for a quantity PyTensor has a stable Op (or a stabilizing rewrite) for:
``softplus``, ``log1p``, ``expm1``, ``log1mexp``, ``logsumexp``,
``logaddexp``, ``logdiffexp``, ``softmax``, ``log_softmax``, ``sigmoid``,
``log_sigmoid``, ``log1m_sigmoid``, ``gammaln``, ``log_erfc`` and
``erfcx``.  Its inputs are extreme (overflow of ``exp``, underflow, tiny
arguments where ``1 + x`` rounds to ``1``), and its reference is computed
with mpmath at 50 digits.  :func:`accuracy` says whether a compiled
function is accurate on a spelling: a non-finite value where the reference
is finite, or a relative error above the dtype's tolerance, is inaccurate.

The spellings are drawn from the upstream reports: pytensor #1476 / #1483
(``neg`` turned into ``mul(-1, .)`` by canonicalize before the stabilizer
runs), #2328 ("PyTensor will canonicalize different expressions at
different passes": a pattern needs several variants; operand orders),
#352 (log_softmax through indexing and expand_dims), #2247 (rewrites
dropped by an upcast), #1181 (``log(gamma) -> gammaln``), and the
spelling kinds of the toolkit's issue 35: a broadcast (``Alloc``, ``ones``,
``broadcast_to``) between ``log`` and ``1 + exp``, a sum over an
ExpandDims under a softmax denominator, a cast inside a float64 sum, a
subtraction written as an addition of a negation, a division by an ``exp``
of a negation, ``mul(-1, .)``, means as sums.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.tensor.special import softmax

__all__ = ["CORPUS", "TARGETS", "Spelling", "accuracy", "compile_spelling", "measure", "tolerance"]

#: mpmath's working precision for the references (digits).
DIGITS = 50


@dataclass(frozen=True)
class Spelling:
    """One way to write a stable target: ``build(*inputs)`` is the graph, ``reference(*values)`` its exact value.

    ``values`` are the extreme inputs (numpy arrays of ``dtype``);
    ``reference`` takes them as object arrays of mpmath numbers and returns
    an array (or nested list) of exact values of the output's shape.
    ``cite`` names the upstream report or the spelling kind.
    """

    name: str
    target: str
    cite: str
    build: Callable[..., Any]
    values: tuple[np.ndarray, ...]
    reference: Callable[..., Any]
    dtype: str = "float64"
    rtol: float | None = None
    notes: str = field(default="", compare=False)

    def variables(self) -> list[pt.TensorVariable]:
        """Fresh input variables of the values' ndim and dtype (named x, y, ...)."""
        names = "xyzw"
        return [pt.tensor(names[i], dtype=v.dtype, shape=(None,) * v.ndim) for i, v in enumerate(self.values)]

    def graph(self) -> tuple[list[pt.TensorVariable], pt.TensorVariable]:
        """The inputs and the output of the spelling."""
        ins = self.variables()
        return ins, self.build(*ins)

    def exact(self) -> np.ndarray:
        """The reference at the inputs, rounded to float64 (values beyond float64's range are inf)."""
        with mp.workdps(DIGITS):
            objs = [np.vectorize(lambda v: mp.mpf(float(v)), otypes=[object])(v) for v in self.values]
            out = np.asarray(self.reference(*objs), dtype=object)
            return np.vectorize(_to_float, otypes=[np.float64])(out)


def _to_float(v: Any) -> float:
    if isinstance(v, mp.mpc):
        return float("nan") if v.imag != 0 else float(v.real)
    return float(v)


def tolerance(spelling: Spelling) -> float:
    """The relative error a float64 (float32) result may have: 1e-8 (1e-4), or the spelling's own."""
    if spelling.rtol is not None:
        return spelling.rtol
    return 1e-4 if spelling.dtype == "float32" else 1e-8


def accuracy(got: Any, spelling: Spelling, exact: np.ndarray | None = None) -> tuple[bool, float]:
    """Whether ``got`` (the compiled output at the spelling's inputs) is accurate, and its max relative error.

    Inaccurate: another shape; inf or nan where the reference is finite; a
    finite value where it is not (or the other infinity); a relative error
    ``|got - ref| / |ref|`` above :func:`tolerance` (where the reference is
    0, ``|got|`` must be below the dtype's smallest normal number).
    """
    ref = spelling.exact() if exact is None else exact
    got = np.asarray(got, dtype=np.float64)
    if got.shape != ref.shape:
        return False, float("inf")
    finite = np.isfinite(ref)
    if not np.array_equal(np.isfinite(got), finite):
        return False, float("inf")
    inf_ok = np.all((got[~finite] == ref[~finite]) | (np.isnan(got[~finite]) & np.isnan(ref[~finite])))
    if not inf_ok:
        return False, float("inf")
    tiny = float(np.finfo(spelling.dtype).tiny)
    err = np.abs(got[finite] - ref[finite]) / np.maximum(np.abs(ref[finite]), tiny)
    worst = float(err.max()) if err.size else 0.0
    return worst <= tolerance(spelling), worst


def compile_spelling(spelling: Spelling, mode: Any = None) -> Callable[..., Any]:
    """``pytensor.function`` of the spelling in ``mode`` (default: PyTensor's default mode, FAST_RUN)."""
    ins, out = spelling.graph()
    return pytensor.function(ins, out, mode=mode)


def measure(spelling: Spelling, mode: Any = None) -> tuple[bool, float]:
    """:func:`accuracy` of the spelling compiled in ``mode``."""
    fn = compile_spelling(spelling, mode)
    with np.errstate(all="ignore"):
        got = fn(*spelling.values)
    return accuracy(got, spelling)


# --- references (mpmath, elementwise or along an axis) ----------------------------------


def ew(f: Callable[..., Any]) -> Callable[..., Any]:
    """An elementwise reference from a scalar mpmath function (inputs broadcast)."""
    return lambda *xs: np.vectorize(f, otypes=[object])(*xs)


def _lse(row: Sequence[Any]) -> Any:
    return mp.log(mp.fsum(mp.exp(v) for v in row))


def lse_ref(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> Any:
    if axis is None:
        out = np.asarray(_lse(list(x.ravel())), dtype=object)
        return out.reshape((1,) * x.ndim) if keepdims else out
    out = np.apply_along_axis(_lse, axis, x)
    return np.expand_dims(out, axis) if keepdims else out


def softmax_ref(x: np.ndarray, axis: int = -1) -> Any:
    def row(r: Sequence[Any]) -> list[Any]:
        s = mp.fsum(mp.exp(v) for v in r)
        return [mp.exp(v) / s for v in r]

    return np.apply_along_axis(row, axis, x)


def log_softmax_ref(x: np.ndarray, axis: int = -1) -> Any:
    def row(r: Sequence[Any]) -> list[Any]:
        s = _lse(r)
        return [v - s for v in r]

    return np.apply_along_axis(row, axis, x)


def _log1mexp(v: Any) -> Any:
    return mp.log(-mp.expm1(v))


def _sigmoid(v: Any) -> Any:
    return 1 / (1 + mp.exp(-v))


def _erfc(v: Any) -> Any:
    return mp.erfc(v)


softplus_ref = ew(lambda v: mp.log1p(mp.exp(v)))
log1p_ref = ew(mp.log1p)
expm1_ref = ew(mp.expm1)
log1mexp_ref = ew(_log1mexp)
logaddexp_ref = ew(lambda a, b: mp.log(mp.exp(a) + mp.exp(b)))
logdiffexp_ref = ew(lambda a, b: mp.log(mp.exp(a) - mp.exp(b)))
sigmoid_ref = ew(_sigmoid)
one_minus_sigmoid_ref = ew(lambda v: _sigmoid(-v))
log_sigmoid_ref = ew(lambda v: -mp.log1p(mp.exp(-v)))
log1m_sigmoid_ref = ew(lambda v: -mp.log1p(mp.exp(v)))
gammaln_ref = ew(mp.loggamma)
log_erfc_ref = ew(lambda v: mp.log(mp.erfc(v)))
erfcx_ref = ew(lambda v: mp.exp(v * v) * mp.erfc(v))


def _f(*vs: Any, dtype: str = "float64") -> np.ndarray:
    return np.array(vs, dtype=dtype)


# --- the inputs -------------------------------------------------------------------------

X_SOFTPLUS = _f(-800.0, -40.0, -1.0, 0.0, 1e-10, 1.0, 40.0, 800.0)
X_SOFTPLUS32 = _f(-100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, dtype="float32")
X_TINY = _f(1e-20, -1e-18, 1e-10, -0.5, 0.5, 1e5)
X_TINY32 = _f(1e-12, -1e-9, 1e-5, -0.5, 0.5, 1e5, dtype="float32")
X_EXPM1 = _f(1e-20, -1e-18, 1e-10, -1.0, 1.0, 700.0)
X_NEG = _f(-1e-20, -1e-10, -1.0, -40.0, -800.0)
X_NEG32 = _f(-1e-10, -1e-5, -1.0, -20.0, -120.0, dtype="float32")
M_LSE = np.array([[800.0, 799.0, 0.0], [-800.0, -801.0, -1000.0]])
M_LSE32 = np.array([[100.0, 99.0, 0.0], [-100.0, -101.0, -120.0]], dtype="float32")
V_LSE = _f(800.0, 799.0, -5.0)
X_PAIR, Y_PAIR = _f(800.0, -800.0, 3.0, 0.0), _f(799.0, -801.0, 1.0, -0.5)
X_PAIR32, Y_PAIR32 = _f(100.0, -100.0, 3.0, dtype="float32"), _f(99.0, -101.0, 1.0, dtype="float32")
M_SOFTMAX = np.array([[1000.0, 999.0, 0.0], [-1000.0, -1001.0, -1002.0]])
M_SOFTMAX32 = np.array([[100.0, 99.0, 0.0], [-100.0, -101.0, -102.0]], dtype="float32")
V_SOFTMAX = _f(1000.0, 999.0, 990.0)
X_SIG = _f(-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0)
X_SIG32 = _f(-100.0, -20.0, 0.0, 20.0, 100.0, dtype="float32")
X_GAMMA = _f(0.5, 1.0, 10.0, 200.0, 1e5)
X_GAMMA32 = _f(0.5, 10.0, 40.0, 1e4, dtype="float32")
X_ERFC = _f(-3.0, 0.0, 5.0, 30.0, 100.0)
X_ERFCX = _f(-2.0, 0.0, 5.0, 30.0, 1e3)

def _bcast(v: pt.TensorVariable) -> pt.TensorVariable:
    return pt.broadcast_to(v, (3, v.shape[0]))


def _ref_bcast(ref: Callable[..., Any]) -> Callable[..., Any]:
    return lambda *xs: np.broadcast_to(np.asarray(ref(*xs), dtype=object), (3, *np.shape(xs[0])))


def S(name, target, cite, build, values, reference, dtype="float64", **kw) -> Spelling:  # noqa: N802, ANN001
    return Spelling(name, target, cite, build, tuple(values), reference, dtype, **kw)


_SOFTPLUS = [
    S("log(1+exp(x))", "softplus", "the textbook spelling", lambda x: pt.log(1 + pt.exp(x)), [X_SOFTPLUS], softplus_ref),
    S("log(exp(x)+1)", "softplus", "operand order", lambda x: pt.log(pt.exp(x) + 1), [X_SOFTPLUS], softplus_ref),
    S("log1p(exp(x))", "softplus", "log1p spelled", lambda x: pt.log1p(pt.exp(x)), [X_SOFTPLUS], softplus_ref),
    S("log(1+broadcast_to(exp(x)))", "softplus", "issue 35: a broadcast between log and 1 + exp",
      lambda x: pt.log(1 + _bcast(pt.exp(x))), [X_SOFTPLUS], _ref_bcast(softplus_ref)),
    S("log(ones_like(x)+exp(x))", "softplus", "a ones Alloc as the 1", lambda x: pt.log(pt.ones_like(x) + pt.exp(x)),
      [X_SOFTPLUS], softplus_ref),
    S("log(1+1/exp(-x))", "softplus", "issue 35: a division by an exp of a negation",
      lambda x: pt.log(1 + 1 / pt.exp(-x)), [X_SOFTPLUS], softplus_ref),
    S("log(1-(-exp(x)))", "softplus", "a subtraction of a negation", lambda x: pt.log(1 - (-pt.exp(x))),
      [X_SOFTPLUS], softplus_ref),
    S("log(1+sum(exp(x[None]),0))", "softplus", "a sum over an ExpandDims",
      lambda x: pt.log(1 + pt.sum(pt.exp(x[None, :]), axis=0)), [X_SOFTPLUS], softplus_ref),
    S("-log(sigmoid(-x))", "softplus", "softplus through log-sigmoid", lambda x: -pt.log(pt.sigmoid(-x)),
      [X_SOFTPLUS], softplus_ref),
    S("log(1+exp(x)) f32", "softplus", "float32", lambda x: pt.log(1 + pt.exp(x)), [X_SOFTPLUS32], softplus_ref,
      "float32"),
    S("log(1+exp(x/2)*exp(x/2)) f32", "softplus", "a product of exponentials (float32)",
      lambda x: pt.log(1 + pt.exp(x / 2) * pt.exp(x / 2)), [X_SOFTPLUS32], softplus_ref, "float32"),
]

_LOG1P = [
    S("log(1+x)", "log1p", "the textbook spelling", lambda x: pt.log(1 + x), [X_TINY], log1p_ref),
    S("log(x+1)", "log1p", "operand order", lambda x: pt.log(x + 1), [X_TINY], log1p_ref),
    S("log(1-(-x))", "log1p", "pytensor #1476: a subtraction of a negation", lambda x: pt.log(1 - (-x)), [X_TINY],
      log1p_ref),
    S("log(1+broadcast_to(x))", "log1p", "a broadcast between log and 1 + x", lambda x: pt.log(1 + _bcast(x)),
      [X_TINY], _ref_bcast(log1p_ref)),
    S("log(1+x) f32", "log1p", "float32", lambda x: pt.log(1 + x), [X_TINY32], log1p_ref, "float32"),
    S("log(1+mean(x[None],0))", "log1p", "a mean over an ExpandDims", lambda x: pt.log(1 + pt.mean(x[None, :], axis=0)),
      [X_TINY], log1p_ref),
    S("log(1+x*ones_like(x))", "log1p", "a product with a ones Alloc", lambda x: pt.log(1 + x * pt.ones_like(x)),
      [X_TINY], log1p_ref),
    S("log(1+cast64(x32))", "log1p", "pytensor #2247: an exact upcast inside",
      lambda x: pt.log(1 + pt.cast(x, "float64")), [X_TINY32], log1p_ref, rtol=1e-8),
]

_EXPM1 = [
    S("exp(x)-1", "expm1", "the textbook spelling", lambda x: pt.exp(x) - 1, [X_EXPM1], expm1_ref),
    S("-1+exp(x)", "expm1", "operand order", lambda x: -1 + pt.exp(x), [X_EXPM1], expm1_ref),
    S("exp(x)+(-1)", "expm1", "a subtraction as an addition of a negation", lambda x: pt.exp(x) + (-1), [X_EXPM1],
      expm1_ref),
    S("exp(x)-ones_like(x)", "expm1", "a ones Alloc", lambda x: pt.exp(x) - pt.ones_like(x), [X_EXPM1], expm1_ref),
    S("-(1-exp(x))", "expm1", "a negation of a subtraction", lambda x: -(1 - pt.exp(x)), [X_EXPM1], expm1_ref),
    S("1/exp(-x)-1", "expm1", "issue 35: a division by an exp of a negation", lambda x: 1 / pt.exp(-x) - 1, [X_EXPM1],
      expm1_ref),
    S("broadcast_to(exp(x))-1", "expm1", "a broadcast of the exp", lambda x: _bcast(pt.exp(x)) - 1, [X_EXPM1],
      _ref_bcast(expm1_ref)),
]

_LOG1MEXP = [
    S("log(1-exp(x))", "log1mexp", "the textbook spelling", lambda x: pt.log(1 - pt.exp(x)), [X_NEG], log1mexp_ref),
    S("log1p(-exp(x))", "log1mexp", "pytensor #1476: neg turned into mul(-1, .)", lambda x: pt.log1p(-pt.exp(x)),
      [X_NEG], log1mexp_ref),
    S("log(-exp(x)+1)", "log1mexp", "pytensor #1483: operand order", lambda x: pt.log(-pt.exp(x) + 1), [X_NEG],
      log1mexp_ref),
    S("log(-expm1(x))", "log1mexp", "pytensor #1483", lambda x: pt.log(-pt.expm1(x)), [X_NEG], log1mexp_ref),
    S("log1p((-1)*exp(x))", "log1mexp", "pytensor #1476: mul(-1, .)", lambda x: pt.log1p(-1 * pt.exp(x)), [X_NEG],
      log1mexp_ref),
    S("log(1-1/exp(-x))", "log1mexp", "a division by an exp of a negation", lambda x: pt.log(1 - 1 / pt.exp(-x)),
      [X_NEG], log1mexp_ref),
    S("log(1-broadcast_to(exp(x)))", "log1mexp", "a broadcast between log and 1 - exp",
      lambda x: pt.log(1 - _bcast(pt.exp(x))), [X_NEG], _ref_bcast(log1mexp_ref)),
    S("log(1-exp(x)) f32", "log1mexp", "float32", lambda x: pt.log(1 - pt.exp(x)), [X_NEG32], log1mexp_ref,
      "float32"),
]

_LOGSUMEXP = [
    S("log(sum(exp(x),1))", "logsumexp", "the textbook spelling", lambda x: pt.log(pt.sum(pt.exp(x), axis=1)),
      [M_LSE], lambda x: lse_ref(x, 1)),
    S("log(sum(exp(x),1,keepdims))", "logsumexp", "keepdims", lambda x: pt.log(pt.sum(pt.exp(x), axis=1, keepdims=True)),
      [M_LSE], lambda x: lse_ref(x, 1, True)),
    S("log(sum(exp(x[None]),(0,2)))", "logsumexp", "a sum over an ExpandDims",
      lambda x: pt.log(pt.sum(pt.exp(x[None]), axis=(0, 2))), [M_LSE], lambda x: lse_ref(x, 1)),
    S("log(sum(cast64(exp(x32)),1))", "logsumexp", "pytensor #2247: a cast inside a float64 sum",
      lambda x: pt.log(pt.sum(pt.cast(pt.exp(x), "float64"), axis=1)), [M_LSE32], lambda x: lse_ref(x, 1), rtol=1e-6),
    S("log(3*mean(exp(x),1))", "logsumexp", "a mean as a sum", lambda x: pt.log(3 * pt.mean(pt.exp(x), axis=1)),
      [M_LSE], lambda x: lse_ref(x, 1)),
    S("log(sum(1/exp(-x),1))", "logsumexp", "a division by an exp of a negation",
      lambda x: pt.log(pt.sum(1 / pt.exp(-x), axis=1)), [M_LSE], lambda x: lse_ref(x, 1)),
    S("log(sum(exp(x))) vector", "logsumexp", "a full reduction", lambda x: pt.log(pt.sum(pt.exp(x))), [V_LSE],
      lambda x: lse_ref(x)),
    S("log(sum(exp(x),1)) f32", "logsumexp", "float32", lambda x: pt.log(pt.sum(pt.exp(x), axis=1)), [M_LSE32],
      lambda x: lse_ref(x, 1), "float32"),
    S("log(sum(exp(x.T),0))", "logsumexp", "a transpose under the exp", lambda x: pt.log(pt.sum(pt.exp(x.T), axis=0)),
      [M_LSE], lambda x: lse_ref(x, 1)),
]

_LOGADDEXP = [
    S("log(exp(x)+exp(y))", "logaddexp", "the textbook spelling", lambda x, y: pt.log(pt.exp(x) + pt.exp(y)),
      [X_PAIR, Y_PAIR], logaddexp_ref),
    S("log(exp(x)-(-exp(y)))", "logaddexp", "a subtraction of a negation", lambda x, y: pt.log(pt.exp(x) - (-pt.exp(y))),
      [X_PAIR, Y_PAIR], logaddexp_ref),
    S("log(exp(x)+1/exp(-y))", "logaddexp", "a division by an exp of a negation",
      lambda x, y: pt.log(pt.exp(x) + 1 / pt.exp(-y)), [X_PAIR, Y_PAIR], logaddexp_ref),
    S("log(exp(x)+broadcast_to(exp(y)))", "logaddexp", "a broadcast operand",
      lambda x, y: pt.log(pt.exp(x) + _bcast(pt.exp(y))), [X_PAIR, Y_PAIR], _ref_bcast(logaddexp_ref)),
    S("log(exp(x)+exp(y)) f32", "logaddexp", "float32", lambda x, y: pt.log(pt.exp(x) + pt.exp(y)),
      [X_PAIR32, Y_PAIR32], logaddexp_ref, "float32"),
    S("log(sum(exp(stack(x,y)),0))", "logaddexp", "a sum of a stack", lambda x, y: pt.log(pt.sum(pt.exp(pt.stack([x, y])), axis=0)),
      [X_PAIR, Y_PAIR], logaddexp_ref),
]

_LOGDIFFEXP = [
    S("log(exp(x)-exp(y))", "logdiffexp", "the textbook spelling", lambda x, y: pt.log(pt.exp(x) - pt.exp(y)),
      [X_PAIR, Y_PAIR], logdiffexp_ref),
    S("log(exp(x)+(-exp(y)))", "logdiffexp", "pytensor #1476: an addition of a negation",
      lambda x, y: pt.log(pt.exp(x) + (-pt.exp(y))), [X_PAIR, Y_PAIR], logdiffexp_ref),
    S("log(exp(x)+(-1)*exp(y))", "logdiffexp", "pytensor #1476: mul(-1, .)",
      lambda x, y: pt.log(pt.exp(x) + (-1) * pt.exp(y)), [X_PAIR, Y_PAIR], logdiffexp_ref),
    S("log(-exp(y)+exp(x))", "logdiffexp", "pytensor #2328: operand order", lambda x, y: pt.log(-pt.exp(y) + pt.exp(x)),
      [X_PAIR, Y_PAIR], logdiffexp_ref),
    S("log(exp(x)-1/exp(-y))", "logdiffexp", "a division by an exp of a negation",
      lambda x, y: pt.log(pt.exp(x) - 1 / pt.exp(-y)), [X_PAIR, Y_PAIR], logdiffexp_ref),
    S("log(exp(x)-exp(y)) f32", "logdiffexp", "float32", lambda x, y: pt.log(pt.exp(x) - pt.exp(y)),
      [X_PAIR32, Y_PAIR32], logdiffexp_ref, "float32"),
]

_SOFTMAX = [
    S("exp(x)/sum(exp(x),1,keepdims)", "softmax", "the textbook spelling",
      lambda x: pt.exp(x) / pt.sum(pt.exp(x), axis=1, keepdims=True), [M_SOFTMAX], softmax_ref),
    S("exp(x)/sum(exp(x)) vector", "softmax", "a full reduction", lambda x: pt.exp(x) / pt.sum(pt.exp(x)), [V_SOFTMAX],
      softmax_ref),
    S("exp(x)/sum(exp(x[None]),(0,2))[:,None]", "softmax", "issue 35: a sum over an ExpandDims in the denominator",
      lambda x: pt.exp(x) / pt.sum(pt.exp(x[None]), axis=(0, 2))[:, None], [M_SOFTMAX], softmax_ref),
    S("exp(x)*(1/sum(exp(x),1,keepdims))", "softmax", "a product with a reciprocal",
      lambda x: pt.exp(x) * (1 / pt.sum(pt.exp(x), axis=1, keepdims=True)), [M_SOFTMAX], softmax_ref),
    S("exp(x)/sum(exp(x),1)[:,None]", "softmax", "an ExpandDims instead of keepdims",
      lambda x: pt.exp(x) / pt.sum(pt.exp(x), axis=1)[:, None], [M_SOFTMAX], softmax_ref),
    S("exp(x)/(3*mean(exp(x),1,keepdims))", "softmax", "a mean as a sum",
      lambda x: pt.exp(x) / (3 * pt.mean(pt.exp(x), axis=1, keepdims=True)), [M_SOFTMAX], softmax_ref),
    S("exp(x)/sum(exp(x),1,keepdims) f32", "softmax", "float32",
      lambda x: pt.exp(x) / pt.sum(pt.exp(x), axis=1, keepdims=True), [M_SOFTMAX32], softmax_ref, "float32"),
]

_LOG_SOFTMAX = [
    S("log(softmax(x))", "log_softmax", "the textbook spelling", lambda x: pt.log(softmax(x, axis=-1)), [M_SOFTMAX],
      log_softmax_ref),
    S("log(softmax(x)[0])", "log_softmax", "pytensor #352: an index", lambda x: pt.log(softmax(x, axis=-1)[0]),
      [M_SOFTMAX], lambda x: log_softmax_ref(x)[0]),
    S("log(softmax(x)[[1,0]])", "log_softmax", "pytensor #352: an advanced index (AdvancedSubtensor1)",
      lambda x: pt.log(softmax(x, axis=-1)[[1, 0]]), [M_SOFTMAX], lambda x: log_softmax_ref(x)[[1, 0]]),
    S("log(softmax(x)[None])", "log_softmax", "pytensor #352: an ExpandDims", lambda x: pt.log(softmax(x, axis=-1)[None]),
      [M_SOFTMAX], lambda x: log_softmax_ref(x)[None]),
    S("log(exp(x)/sum(exp(x),1,keepdims))", "log_softmax", "softmax spelled out",
      lambda x: pt.log(pt.exp(x) / pt.sum(pt.exp(x), axis=1, keepdims=True)), [M_SOFTMAX], log_softmax_ref),
    S("x-log(sum(exp(x),1,keepdims))", "log_softmax", "x minus log-sum-exp spelled out",
      lambda x: x - pt.log(pt.sum(pt.exp(x), axis=1, keepdims=True)), [M_SOFTMAX], log_softmax_ref),
    S("x+(-logsumexp(x,1,keepdims))", "log_softmax", "an addition of a negation",
      lambda x: x + (-pt.logsumexp(x, axis=1, keepdims=True)), [M_SOFTMAX], log_softmax_ref),
    S("log(softmax(x).T)", "log_softmax", "a transpose between log and softmax", lambda x: pt.log(softmax(x, axis=-1).T),
      [M_SOFTMAX], lambda x: log_softmax_ref(x).T),
    S("log(softmax(x)) f32", "log_softmax", "float32", lambda x: pt.log(softmax(x, axis=-1)), [M_SOFTMAX32],
      log_softmax_ref, "float32"),
    S("log(softmax(x).flatten())", "log_softmax", "a reshape between log and softmax",
      lambda x: pt.log(softmax(x, axis=-1).flatten()), [M_SOFTMAX], lambda x: log_softmax_ref(x).ravel()),
]

_SIGMOID = [
    S("exp(x)/(1+exp(x))", "sigmoid", "the textbook spelling", lambda x: pt.exp(x) / (1 + pt.exp(x)), [X_SIG],
      sigmoid_ref),
    S("exp(x)/(exp(x)+1)", "sigmoid", "operand order", lambda x: pt.exp(x) / (pt.exp(x) + 1), [X_SIG], sigmoid_ref),
    S("1/(1+exp(-x))", "sigmoid", "the other textbook spelling", lambda x: 1 / (1 + pt.exp(-x)), [X_SIG], sigmoid_ref),
    S("exp(x)/(1+broadcast_to(exp(x)))", "sigmoid", "a broadcast in the denominator",
      lambda x: pt.exp(x) / (1 + _bcast(pt.exp(x))), [X_SIG], _ref_bcast(sigmoid_ref)),
    S("exp(x)*(1+exp(x))**-1", "sigmoid", "a power -1 for the division", lambda x: pt.exp(x) * (1 + pt.exp(x)) ** -1,
      [X_SIG], sigmoid_ref),
    S("exp(x)/(1+exp(x)) f32", "sigmoid", "float32", lambda x: pt.exp(x) / (1 + pt.exp(x)), [X_SIG32], sigmoid_ref,
      "float32"),
]

_ONE_MINUS_SIGMOID = [
    S("1-sigmoid(x)", "sigmoid(-x)", "the textbook spelling", lambda x: 1 - pt.sigmoid(x), [X_SIG],
      one_minus_sigmoid_ref),
    S("1+(-sigmoid(x))", "sigmoid(-x)", "an addition of a negation", lambda x: 1 + (-pt.sigmoid(x)), [X_SIG],
      one_minus_sigmoid_ref),
    S("1+(-1)*sigmoid(x)", "sigmoid(-x)", "pytensor #1476: mul(-1, .)", lambda x: 1 + (-1) * pt.sigmoid(x), [X_SIG],
      one_minus_sigmoid_ref),
    S("1-1/(1+exp(-x))", "sigmoid(-x)", "sigmoid spelled out", lambda x: 1 - 1 / (1 + pt.exp(-x)), [X_SIG],
      one_minus_sigmoid_ref),
    S("ones_like(x)-sigmoid(x)", "sigmoid(-x)", "a ones Alloc", lambda x: pt.ones_like(x) - pt.sigmoid(x), [X_SIG],
      one_minus_sigmoid_ref),
]

_LOG_SIGMOID = [
    S("log(sigmoid(x))", "log_sigmoid", "the textbook spelling", lambda x: pt.log(pt.sigmoid(x)), [X_SIG],
      log_sigmoid_ref),
    S("log(1/(1+exp(-x)))", "log_sigmoid", "sigmoid spelled out", lambda x: pt.log(1 / (1 + pt.exp(-x))), [X_SIG],
      log_sigmoid_ref),
    S("-log(1+exp(-x))", "log_sigmoid", "a negated softplus spelled out", lambda x: -pt.log(1 + pt.exp(-x)), [X_SIG],
      log_sigmoid_ref),
    S("log(exp(x)/(1+exp(x)))", "log_sigmoid", "sigmoid as a ratio of exps", lambda x: pt.log(pt.exp(x) / (1 + pt.exp(x))),
      [X_SIG], log_sigmoid_ref),
    S("log(broadcast_to(sigmoid(x)))", "log_sigmoid", "a broadcast between log and sigmoid",
      lambda x: pt.log(_bcast(pt.sigmoid(x))), [X_SIG], _ref_bcast(log_sigmoid_ref)),
    S("log(sigmoid(x)) f32", "log_sigmoid", "float32", lambda x: pt.log(pt.sigmoid(x)), [X_SIG32], log_sigmoid_ref,
      "float32"),
    S("-log1p(1/exp(x))", "log_sigmoid", "a division by an exp", lambda x: -pt.log1p(1 / pt.exp(x)), [X_SIG],
      log_sigmoid_ref),
]

_LOG1M_SIGMOID = [
    S("log(1-sigmoid(x))", "log1m_sigmoid", "the textbook spelling", lambda x: pt.log(1 - pt.sigmoid(x)), [X_SIG],
      log1m_sigmoid_ref),
    S("log1p(-sigmoid(x))", "log1m_sigmoid", "log1p spelled (aesara #531)", lambda x: pt.log1p(-pt.sigmoid(x)), [X_SIG],
      log1m_sigmoid_ref),
    S("log(1+(-1)*sigmoid(x))", "log1m_sigmoid", "pytensor #1476: mul(-1, .)",
      lambda x: pt.log(1 + (-1) * pt.sigmoid(x)), [X_SIG], log1m_sigmoid_ref),
    S("log(sigmoid(-x))", "log1m_sigmoid", "the symmetric spelling", lambda x: pt.log(pt.sigmoid(-x)), [X_SIG],
      log1m_sigmoid_ref),
    S("log(1-broadcast_to(sigmoid(x)))", "log1m_sigmoid", "a broadcast between log and 1 - sigmoid",
      lambda x: pt.log(1 - _bcast(pt.sigmoid(x))), [X_SIG], _ref_bcast(log1m_sigmoid_ref)),
    S("log(1-sigmoid(x)) f32", "log1m_sigmoid", "float32", lambda x: pt.log(1 - pt.sigmoid(x)), [X_SIG32],
      log1m_sigmoid_ref, "float32"),
]

_GAMMALN = [
    S("log(gamma(x))", "gammaln", "pytensor #1181", lambda x: pt.log(pt.gamma(x)), [X_GAMMA], gammaln_ref),
    S("log(gamma(x)) f32", "gammaln", "pytensor #1181 (float32)", lambda x: pt.log(pt.gamma(x)), [X_GAMMA32],
      gammaln_ref, "float32"),
    S("log(broadcast_to(gamma(x)))", "gammaln", "pytensor #1181 through a broadcast",
      lambda x: pt.log(_bcast(pt.gamma(x))), [X_GAMMA], _ref_bcast(gammaln_ref)),
    S("gammaln(x)", "gammaln", "the stable Op itself", lambda x: pt.gammaln(x), [X_GAMMA], gammaln_ref),
]

_LOG_ERFC = [
    S("log(erfc(x))", "log_erfc", "the textbook spelling", lambda x: pt.log(pt.erfc(x)), [X_ERFC], log_erfc_ref,
      rtol=1e-7),
    S("log(1-erf(x))", "log_erfc", "erfc spelled out", lambda x: pt.log(1 - pt.erf(x)),
      [_f(-3.0, 0.0, 5.0, 30.0, 100.0)], log_erfc_ref, rtol=1e-7),
    S("log(broadcast_to(erfc(x)))", "log_erfc", "a broadcast between log and erfc", lambda x: pt.log(_bcast(pt.erfc(x))),
      [X_ERFC], _ref_bcast(log_erfc_ref), rtol=1e-7),
]

_ERFCX = [
    S("exp(x**2)*erfc(x)", "erfcx", "the scaled complementary error function", lambda x: pt.exp(x**2) * pt.erfc(x),
      [X_ERFCX], erfcx_ref, rtol=1e-7),
    S("erfc(x)*exp(sqr(x))", "erfcx", "operand order", lambda x: pt.erfc(x) * pt.exp(pt.sqr(x)), [X_ERFCX], erfcx_ref,
      rtol=1e-7),
    S("erfc(x)/exp(-x**2)", "erfcx", "a division by an exp of a negation", lambda x: pt.erfc(x) / pt.exp(-(x**2)),
      [X_ERFCX], erfcx_ref, rtol=1e-7),
    S("erfcx(x)", "erfcx", "the stable Op itself", lambda x: pt.erfcx(x), [X_ERFCX], erfcx_ref, rtol=1e-7),
]

#: Every spelling, grouped by target.
CORPUS: tuple[Spelling, ...] = tuple(
    _SOFTPLUS + _LOG1P + _EXPM1 + _LOG1MEXP + _LOGSUMEXP + _LOGADDEXP + _LOGDIFFEXP + _SOFTMAX + _LOG_SOFTMAX
    + _SIGMOID + _ONE_MINUS_SIGMOID + _LOG_SIGMOID + _LOG1M_SIGMOID + _GAMMALN + _LOG_ERFC + _ERFCX
)
#: The stable targets, in corpus order.
TARGETS: tuple[str, ...] = tuple(dict.fromkeys(s.target for s in CORPUS))
