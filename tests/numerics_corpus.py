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

Issue 44 grows it with spellings written elsewhere (each one's ``cite``
names its source): pytensor #158 and #1181 (``log(poch)``), #1181
(``betaln`` through ``gamma``), #1451 (``softplus(-log(x))``), #1483, #2313
(softmax through ``logsumexp`` and ``log_softmax``), #2322 (the logit and
the odds of a sigmoid), #2327 (log-exp with mixed domain inputs); PyMC's
distributions (``dist_math.normal_lcdf``, ``normal_lccdf``, ``std_cdf``,
``zvalue``, ``logpow``, ``sigma2rho``, ``betaln``, ``factln``, and the
``logcdf``/``logp`` spellings of HalfNormal, SkewNormal, Moyal, Laplace,
Pareto, Kumaraswamy, Exponential); aeppl #156; Herbie's ``bench/hamming``
expressions PyTensor can express (2sqrt, 2frac, 2log, exp2, quadp, quad2p,
expm1 over x); and the kinds issue 44 lists (the normal log-CDF through
``erfc``/``erf`` with a constant factor, logs of products of sigmoids, the
complement of ``erf``, constants and weights in sums of exponentials,
softplus cancellation, logs of hyperbolic functions, sums as products with
ones, casts around ``exp``, softmax through an index or a reshape). New
targets: ``log_ndtr``, ``erfc``, ``log_erf``, ``log_expm1``, ``log_cosh``,
``log_sinh``, ``logpow``, ``betaln``, ``sqrt_diff``, ``frac_diff``,
``exprel``, ``log1p_recip``, ``quadratic_root``, ``exp2``,
``log_sigmoid_product``, ``logit_sigmoid``, ``sigmoid_odds``, ``tanh``,
``sinh``, ``log_poch``, ``one_minus_cos``, ``one_minus_cos_ratio``. :func:`check_spelling` evaluates each spelling's
own graph exactly (:func:`graph_bridge.exact.exact_values`) and the tests
check it equals the reference.
:data:`CORPUS_ISSUE35` keeps the first 107 spellings, on which issue 35's
targets were set.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.tensor.special import log_softmax, softmax

from graph_bridge.exact import exact_values, independent_rows, to_mp, values_at

__all__ = ["CORPUS", "CORPUS_ISSUE35", "HELD_OUT_SETS", "exact_constant", "held_out_set", "wider", "TARGETS", "Spelling", "accuracy", "check_spelling", "compile_spelling",
           "measure", "tolerance"]

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
            with np.errstate(over="ignore"):  # beyond float64's range: inf, as said
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


def _agree(got: Any, ref: Any, rtol: float) -> bool:
    if isinstance(ref, mp.mpc):  # a reference outside the reals: the graph's exact value is undefined (NaN)
        if ref.imag != 0:
            return bool(mp.isnan(got))
        ref = ref.real
    ref = mp.mpf(ref)
    if mp.isnan(got) or mp.isnan(ref):
        return bool(mp.isnan(got) and mp.isnan(ref))
    if mp.isinf(got) or mp.isinf(ref):
        return bool(got == ref)
    return bool(abs(got - ref) <= rtol * max(abs(ref), mp.mpf(10) ** -300))


def check_spelling(spelling: Spelling, rtol: float = 1e-12, max_bits: int = 1 << 14,
                   digits: Sequence[int] = (60, 700, 5000)) -> list[int]:
    """The flat indices where the spelling's own graph, evaluated exactly, is not its reference.

    An empty list: the spelling is mathematically its target at its inputs.  The graph's value is
    :func:`graph_bridge.exact.exact_values`'s (every float an mpmath number, casts the identity, the
    precision doubled up to ``max_bits`` until the digits that cancel are covered: ``1 - erf(26)``
    needs about 1,000 bits).  Where it stays unknown (terms that cancel to zero whatever the
    precision: ``exp(1) * exp(-1) - 1``), the value computed at ``max_bits`` is compared: it agrees
    with a reference of 0 within ``10**-312``.  The reference is computed at ``digits[0]`` digits,
    and again at the next ones for the elements that differ (a reference that cancels).
    """
    ins, out = spelling.graph()
    given = dict(zip(ins, spelling.values, strict=True))
    # independent rows: only the rows that cancel are evaluated again, at a higher precision
    rows = independent_rows(ins, [out], [np.shape(v) for v in spelling.values])
    [got], [known] = exact_values([out], given, max_bits=max_bits, rows=rows)
    if not np.all(known):
        redo = np.flatnonzero(~np.asarray(known).reshape(len(known), -1).all(axis=1)) if rows else slice(None)
        [raw], _ = values_at([out], {v: np.asarray(x)[redo] for v, x in given.items()} if rows else given, max_bits)
        got = np.array(got, dtype=object)
        got[redo] = np.where(known[redo], got[redo], np.asarray(raw, dtype=object))
    got = np.asarray(got, dtype=object).ravel()
    bad: list[int] | None = None
    for dps in digits:
        with mp.workdps(dps):
            ref = np.asarray(spelling.reference(*[to_mp(v) for v in spelling.values]), dtype=object).ravel()
            if got.shape != ref.shape:
                raise ValueError(f"{spelling.name}: the graph's shape {got.shape} is not the reference's {ref.shape}")
            idx = range(ref.size) if bad is None else bad
            bad = [i for i in idx if not _agree(got[i], ref[i], rtol)]
        if not bad:
            return []
    return bad or []


# --- references (mpmath, elementwise or along an axis) ----------------------------------


def ew(f: Callable[..., Any]) -> Callable[..., Any]:
    """An elementwise reference from a scalar mpmath function (inputs broadcast)."""
    return lambda *xs: np.vectorize(f, otypes=[object])(*xs)


def _lse(row: Sequence[Any] | np.ndarray) -> Any:
    return mp.log(mp.fsum(mp.exp(v) for v in row))


def lse_ref(x: np.ndarray, axis: int | None = None, keepdims: bool = False) -> Any:
    if axis is None:
        out = np.asarray(_lse(list(x.ravel())), dtype=object)
        return out.reshape((1,) * x.ndim) if keepdims else out
    out = np.apply_along_axis(_lse, axis, x)
    return np.expand_dims(out, axis) if keepdims else out


def softmax_ref(x: np.ndarray, axis: int = -1) -> Any:
    def row(r: Sequence[Any] | np.ndarray) -> list[Any]:
        s = mp.fsum(mp.exp(v) for v in r)
        return [mp.exp(v) / s for v in r]

    return np.apply_along_axis(row, axis, x)


def log_softmax_ref(x: np.ndarray, axis: int = -1) -> Any:
    def row(r: Sequence[Any] | np.ndarray) -> list[Any]:
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


def floats(*vs: Any, dtype: str = "float64") -> np.ndarray:
    """A spelling's input values: a vector of ``dtype`` (the held-out sets' too)."""
    return np.array(vs, dtype=dtype)


# --- the inputs -------------------------------------------------------------------------

X_SOFTPLUS = floats(-800.0, -40.0, -1.0, 0.0, 1e-10, 1.0, 40.0, 800.0)
X_SOFTPLUS32 = floats(-100.0, -20.0, -1.0, 0.0, 1.0, 20.0, 100.0, dtype="float32")
X_TINY = floats(1e-20, -1e-18, 1e-10, -0.5, 0.5, 1e5)
X_TINY32 = floats(1e-12, -1e-9, 1e-5, -0.5, 0.5, 1e5, dtype="float32")
X_EXPM1 = floats(1e-20, -1e-18, 1e-10, -1.0, 1.0, 700.0)
X_NEG = floats(-1e-20, -1e-10, -1.0, -40.0, -800.0)
X_NEG32 = floats(-1e-10, -1e-5, -1.0, -20.0, -120.0, dtype="float32")
M_LSE = np.array([[800.0, 799.0, 0.0], [-800.0, -801.0, -1000.0]])
M_LSE32 = np.array([[100.0, 99.0, 0.0], [-100.0, -101.0, -120.0]], dtype="float32")
V_LSE = floats(800.0, 799.0, -5.0)
X_PAIR, Y_PAIR = floats(800.0, -800.0, 3.0, 0.0), floats(799.0, -801.0, 1.0, -0.5)
X_PAIR32, Y_PAIR32 = floats(100.0, -100.0, 3.0, dtype="float32"), floats(99.0, -101.0, 1.0, dtype="float32")
M_SOFTMAX = np.array([[1000.0, 999.0, 0.0], [-1000.0, -1001.0, -1002.0]])
M_SOFTMAX32 = np.array([[100.0, 99.0, 0.0], [-100.0, -101.0, -102.0]], dtype="float32")
V_SOFTMAX = floats(1000.0, 999.0, 990.0)
X_SIG = floats(-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0)
X_SIG32 = floats(-100.0, -20.0, 0.0, 20.0, 100.0, dtype="float32")
X_GAMMA = floats(0.5, 1.0, 10.0, 200.0, 1e5)
X_GAMMA32 = floats(0.5, 10.0, 40.0, 1e4, dtype="float32")
X_ERFC = floats(-3.0, 0.0, 5.0, 30.0, 100.0)
X_ERFCX = floats(-2.0, 0.0, 5.0, 30.0, 1e3)

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
      [floats(-3.0, 0.0, 5.0, 30.0, 100.0)], log_erfc_ref, rtol=1e-7),
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

# --- issue 44: spellings written elsewhere ------------------------------------------------
#
# Upstream issues, PyMC's distributions (pymc/distributions/dist_math.py and continuous.py),
# Herbie's benchmarks (herbie-fp/herbie bench/hamming/*.fpcore) and the kinds issue 44 lists.
# Every reference is a closed form in mpmath, independent of PyTensor; ``check_spelling``
# checks that each spelling's own graph, evaluated exactly, is its reference.


def _log_ndtr(v: Any) -> Any:
    """The standard normal log-CDF: log(erfc(-v/sqrt(2))/2), through log1p on the right (no cancellation)."""
    if v > 0:
        return mp.log1p(-mp.erfc(v / mp.sqrt(2)) / 2)
    return mp.log(mp.erfc(-v / mp.sqrt(2)) / 2)


def _erfcx(v: Any) -> Any:
    return mp.exp(v * v) * mp.erfc(v)


def _log_sigmoid(v: Any) -> Any:
    return -mp.log1p(mp.exp(-v))


def _quad_root(a: Any, b: Any, c: Any) -> Any:
    """The root (-b + sqrt(b^2 - 4ac)) / (2a) for b > 0, written without its cancellation."""
    return 2 * c / (-b - mp.sqrt(b * b - 4 * a * c))


log_ndtr_ref = ew(_log_ndtr)
log_ndtr_neg_ref = ew(lambda v: _log_ndtr(-v))
erfc_ref = ew(mp.erfc)
#: log(erf(v)); above 1 through log1p(-erfc(v)), which 50 digits hold (log(erf(21.2)) is -9.8e-198, where
#: erf(21.2) at 50 digits is 1 and its log 0)
log_erf_ref = ew(lambda v: mp.log1p(-mp.erfc(v)) if v > 1 else mp.log(mp.erf(v)))
log_expm1_ref = ew(lambda v: mp.log(mp.expm1(v)))
log_cosh_ref = ew(lambda v: mp.log(mp.cosh(v)))
log_sinh_ref = ew(lambda v: mp.log(mp.sinh(v)))
logpow_ref = ew(lambda v, m: m * mp.log(v))
betaln_ref = ew(lambda a, b: mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b))
sqrt_diff_ref = ew(lambda v: 1 / (mp.sqrt(v + 1) + mp.sqrt(v)))
frac_diff_ref = ew(lambda v: -1 / (v * (v + 1)))
exprel_ref = ew(lambda v: mp.expm1(v) / v)
log1p_recip_ref = ew(lambda v: mp.log1p(1 / v))
quad_root_ref = ew(_quad_root)
exp2_ref = ew(lambda v: 4 * mp.sinh(v / 2) ** 2)
log_sigmoid_pair_ref = ew(lambda a, b: _log_sigmoid(a) + _log_sigmoid(b))
identity_ref = ew(lambda v: v)
exp_ref = ew(mp.exp)
tanh_ref = ew(mp.tanh)
sinh_ref = ew(mp.sinh)


def _rows(ref: Callable[..., Any], shift: Callable[[np.ndarray], np.ndarray]) -> Callable[..., Any]:
    """A row-wise reference (log-sum-exp, softmax) of the input shifted elementwise (``x + log w`` for weights)."""
    return lambda x: ref(shift(x))


def _lse_with_zero(x: np.ndarray) -> Any:
    """log(1 + sum(exp(row))) per row: a log-sum-exp over the row with a 0 prepended."""
    return np.asarray([_lse([mp.mpf(0), *row]) for row in x], dtype=object)


_W3 = (0.25, 0.25, 0.5)

X_NDTR = floats(-40.0, -10.0, -1.0, 0.0, 1.0, 5.0, 10.0, 40.0)
X_NDTR32 = floats(-20.0, -5.0, 0.0, 3.0, 6.0, dtype="float32")
Z_NDTR = floats(-118.0, -28.0, -1.0, 2.0, 17.0, 32.0)  # (z - 2) / 3: -40 ... 10
X_ERF_C = floats(-3.0, 0.0, 1.0, 5.0, 10.0, 26.0)
X_ERF_C32 = floats(-2.0, 0.0, 4.0, 9.0, dtype="float32")
X_ERFC_NEG = floats(3.0, 0.0, -5.0, -30.0, -100.0)
X_MOYAL = floats(-50.0, -10.0, 0.0, 2.0, 30.0)
X_LOG_ERF = floats(1e-300, 1e-15, 1e-10, 0.5, 3.0, 30.0)
X_LOG_ERF32 = floats(1e-30, 1e-6, 1e-3, 0.5, 3.0, dtype="float32")
X_LEXPM1 = floats(1e-20, 1e-10, 0.5, 1.0, 40.0, 800.0)
X_LEXPM1_32 = floats(1e-10, 1e-3, 1.0, 20.0, 100.0, dtype="float32")
X_COSH = floats(-800.0, -40.0, -1e-10, 0.0, 1e-5, 3.0, 800.0)
X_COSH32 = floats(-100.0, -1e-4, 0.0, 2.0, 100.0, dtype="float32")
X_SINH = floats(1e-300, 1e-20, 1e-5, 1.0, 40.0, 800.0)
X_SINH32 = floats(1e-30, 1e-5, 1.0, 20.0, 100.0, dtype="float32")
X_POW, M_POW = floats(1e-200, 1e-5, 0.5, 3.0, 1e200), floats(3.0, 2.0, 100.0, 1.0, 2.5)
X_POW32, M_POW32 = floats(1e-20, 1e-5, 0.5, 3.0, 1e20, dtype="float32"), floats(3.0, 2.0, 10.0, 1.0, 2.5, dtype="float32")
X_POW1 = floats(1e-200, 1e-5, 0.5, 3.0, 1e100)
A_BETA, B_BETA = floats(0.5, 1.0, 10.0, 200.0, 1e5), floats(0.5, 2.0, 10.0, 150.0, 1e5)
A_BETA32, B_BETA32 = floats(0.5, 10.0, 30.0, 100.0, dtype="float32"), floats(0.5, 2.0, 20.0, 60.0, dtype="float32")
X_BIG = floats(1.0, 1e5, 1e10, 1e20, 1e100)
X_BIG32 = floats(1.0, 1e3, 1e7, 1e20, dtype="float32")
X_FRAC = floats(2.0, 1e5, 1e10, 1e20, -1e15)
X_FRAC32 = floats(2.0, 1e3, 1e5, 1e10, dtype="float32")
X_EXPREL = floats(1e-300, 1e-20, -1e-18, 1e-10, 0.5, -3.0, 700.0)
X_EXPREL32 = floats(1e-10, -1e-8, 1e-4, 0.5, 50.0, dtype="float32")
X_LOGN = floats(1.5, 1e3, 1e10, 1e20, 1e300)
X_LOGN32 = floats(1.5, 1e3, 1e7, 1e20, dtype="float32")
A_QUAD, B_QUAD, C_QUAD = floats(1.0, 1.0, 2.0, 1.0), floats(1e10, 3.0, 1e5, 1e150), floats(1.0, 1.0, 0.5, 1.0)
A_QUAD32, B_QUAD32, C_QUAD32 = floats(1.0, 1.0, 1.0, dtype="float32"), floats(1e4, 3.0, 1e6, dtype="float32"), floats(
    1.0, 1.0, 1.0, dtype="float32")
X_EXP2 = floats(1e-10, -1e-5, 0.1, 3.0, 700.0, -700.0)
X_EXP2_32 = floats(1e-4, -1e-3, 0.1, 3.0, 80.0, dtype="float32")
X_SIGP, Y_SIGP = floats(-800.0, -40.0, 0.0, 40.0, 800.0, -1.0), floats(-700.0, 40.0, -1.0, 1e-10, 800.0, -800.0)
X_SIGP32, Y_SIGP32 = floats(-100.0, -20.0, 0.0, 20.0, dtype="float32"), floats(-90.0, 20.0, -1.0, 100.0, dtype="float32")
X_ODDS = floats(-700.0, -40.0, 0.0, 1.0, 40.0, 700.0)
X_ODDS32 = floats(-80.0, -20.0, 0.0, 20.0, 80.0, dtype="float32")
X_TANH = floats(1e-300, 1e-20, -1e-10, 0.5, 20.0, 800.0, -800.0)
X_TANH32 = floats(1e-30, 1e-10, 0.5, 20.0, 100.0, dtype="float32")
X_SINHV = floats(1e-20, -1e-10, 1e-5, 1.0, 700.0, -700.0)
X_SINHV32 = floats(1e-30, -1e-10, 1e-3, 1.0, 80.0, dtype="float32")
X_POS = floats(1e-20, 1e-10, 1.0, 40.0, 800.0)
Y_EXPM1 = floats(1e-20, 3e-18, 0.0, 1.0, -1.0, 2.0)
X_LAPLACE = floats(0.1, 1.0, 40.0, 700.0)
X_PARETO = floats(1.5, 1e3, 1e10, 1e100)
X_SMALLP = floats(1e-300, 1e-20, 1e-10, 0.5, 0.9)
W_LSE = floats(0.5, 2.0, 1e-3)
#: ``sqrt(2)`` as PyMC writes it (``dist_math.std_cdf``, ``normal_lcdf``): PyTensor reads the Python float 2.0 as a
#: float32 constant (it is exact there), so this is float32's ``sqrt(2)``, 8.5e-9 off in relative terms.  A spelling
#: through it carries that error whatever the rewrite (the normal log-CDF at x = 10: 1.7e-6 relative, against
#: 7.5e-15 with a float64 ``sqrt(2)``), so it misses a 1e-8 tolerance at |x| >= 1.
SQ2 = pt.sqrt(2.0)

_LOG_NDTR = [
    S("log(0.5*erfc(-x/sqrt(2)))", "log_ndtr", "issue 44: a hand-written censored likelihood's normal log-CDF",
      lambda x: pt.log(0.5 * pt.erfc(-x / SQ2)), [X_NDTR], log_ndtr_ref),
    S("log(erfc(-x/sqrt(2))/2)", "log_ndtr", "issue 44: the normal log-CDF through erfc, a quotient",
      lambda x: pt.log(pt.erfc(-x / SQ2) / 2), [X_NDTR], log_ndtr_ref),
    S("log(0.5+0.5*erf(x/sqrt(2)))", "log_ndtr", "PyMC dist_math.std_cdf, logged",
      lambda x: pt.log(0.5 + 0.5 * pt.erf(x / SQ2)), [X_NDTR], log_ndtr_ref),
    S("log1p(-0.5*erfc(x/sqrt(2)))", "log_ndtr", "PyMC dist_math.normal_lcdf's z >= -1 branch, taken everywhere",
      lambda x: pt.log1p(-0.5 * pt.erfc(x / SQ2)), [X_NDTR], log_ndtr_ref),
    S("log((1+erf(x/sqrt(2)))/2)", "log_ndtr", "issue 44: the normal CDF through erf with a constant factor",
      lambda x: pt.log((1 + pt.erf(x / SQ2)) / 2), [X_NDTR], log_ndtr_ref),
    S("log(0.5*erfc(-zvalue(x,3,2)/sqrt(2)))", "log_ndtr", "PyMC dist_math.zvalue inside a censored normal likelihood",
      lambda x: pt.log(0.5 * pt.erfc(-((x - 2.0) / 3.0) / SQ2)), [Z_NDTR], lambda x: log_ndtr_ref((x - 2) / 3)),
    S("log(0.5*erfc(x/sqrt(2)))", "log_ndtr", "PyMC dist_math.normal_lccdf: the upper tail, log_ndtr(-x)",
      lambda x: pt.log(0.5 * pt.erfc(x / SQ2)), [X_NDTR], log_ndtr_neg_ref),
    S("log(0.5*erfc(-x/sqrt(2))*ones((3,1)))", "log_ndtr", "issue 44: a broadcast as a product with ones",
      lambda x: pt.log(0.5 * pt.erfc(-x / SQ2) * pt.ones((3, 1))), [X_NDTR], _ref_bcast(log_ndtr_ref)),
    S("log(0.5*erfc(-x/sqrt(2))) f32", "log_ndtr", "float32", lambda x: pt.log(0.5 * pt.erfc(-x / SQ2)), [X_NDTR32],
      log_ndtr_ref, "float32"),
]

def _log_diff_ndtr(lo: Any, hi: Any) -> Any:
    """log(Phi(hi) - Phi(lo)) for lo < hi, through the upper tails on the right (no cancellation)."""
    if lo > 0:
        return mp.log((mp.erfc(lo / mp.sqrt(2)) - mp.erfc(hi / mp.sqrt(2))) / 2)
    return mp.log((mp.erfc(-hi / mp.sqrt(2)) - mp.erfc(-lo / mp.sqrt(2))) / 2)


log_diff_ndtr_ref = ew(_log_diff_ndtr)
LO_NDTR, HI_NDTR = floats(-40.0, -1.0, 30.0, -31.0, 5.0, -0.5), floats(-38.0, 1.0, 31.0, -30.0, 6.0, 40.0)
LO_NDTR32, HI_NDTR32 = floats(-14.0, -1.0, 6.0, 2.0, dtype="float32"), floats(-13.0, 1.0, 7.0, 9.0, dtype="float32")

_LOG_DIFF_NDTR = [
    S("log(0.5*erfc(-y/sqrt(2))-0.5*erfc(-x/sqrt(2)))", "log_diff_ndtr",
      "PyMC TruncatedNormal / OrderedProbit: log(Phi(upper) - Phi(lower)) written by hand",
      lambda x, y: pt.log(0.5 * pt.erfc(-y / SQ2) - 0.5 * pt.erfc(-x / SQ2)), [LO_NDTR, HI_NDTR], log_diff_ndtr_ref),
    S("log(0.5)+log(erf(y/sqrt(2))-erf(x/sqrt(2)))", "log_diff_ndtr",
      "PyMC dist_math.log_diff_normal_cdf's x > 0 > y branch, taken everywhere",
      lambda x, y: pt.log(0.5) + pt.log(pt.erf(y / SQ2) - pt.erf(x / SQ2)), [LO_NDTR, HI_NDTR], log_diff_ndtr_ref),
    S("log((erfc(-y/sqrt(2))-erfc(-x/sqrt(2)))/2)", "log_diff_ndtr", "issue 44: a quotient with a positive factor",
      lambda x, y: pt.log((pt.erfc(-y / SQ2) - pt.erfc(-x / SQ2)) / 2), [LO_NDTR, HI_NDTR], log_diff_ndtr_ref),
    S("log(0.5*erfc(-y/sqrt(2))-0.5*erfc(-x/sqrt(2))) f32", "log_diff_ndtr", "float32",
      lambda x, y: pt.log(0.5 * pt.erfc(-y / SQ2) - 0.5 * pt.erfc(-x / SQ2)), [LO_NDTR32, HI_NDTR32],
      log_diff_ndtr_ref, "float32"),
]

_ERFC = [
    S("1-erf(x)", "erfc", "issue 44: the complement of erf", lambda x: 1 - pt.erf(x), [X_ERF_C], erfc_ref),
    S("1+(-erf(x))", "erfc", "issue 44: the complement of erf through a negation", lambda x: 1 + (-pt.erf(x)),
      [X_ERF_C], erfc_ref),
    S("-(erf(x)-1)", "erfc", "a negation of a subtraction", lambda x: -(pt.erf(x) - 1), [X_ERF_C], erfc_ref),
    S("exp(log1p(-erf(x)))", "erfc", "issue 44: the complement of erf through log1p",
      lambda x: pt.exp(pt.log1p(-pt.erf(x))), [X_ERF_C], erfc_ref),
    S("ones_like(x)-erf(x)", "erfc", "a ones Alloc", lambda x: pt.ones_like(x) - pt.erf(x), [X_ERF_C], erfc_ref),
    S("1-erf(x) f32", "erfc", "float32", lambda x: 1 - pt.erf(x), [X_ERF_C32], erfc_ref, "float32"),
]

_LOG_ERFC_MORE = [
    S("log1p(-erf(x))", "log_erfc", "issue 44: the complement of erf through log1p", lambda x: pt.log1p(-pt.erf(x)),
      [X_ERFC], log_erfc_ref, rtol=1e-7),
    S("log(1+erf(x))", "log_erfc", "PyMC SkewNormal.logp: log(1 + erf(z)), log_erfc(-z)",
      lambda x: pt.log(1 + pt.erf(x)), [X_ERFC_NEG], lambda x: log_erfc_ref(-x), rtol=1e-7),
    S("log(erfc(exp(-x/2)/sqrt(2)))", "log_erfc", "PyMC Moyal.logcdf (pymc #8437)",
      lambda x: pt.log(pt.erfc(pt.exp(-x / 2) / SQ2)), [X_MOYAL],
      ew(lambda v: mp.log(mp.erfc(mp.exp(-v / 2) / mp.sqrt(2)))), rtol=1e-7),
    S("log(1-erf(x)) f32", "log_erfc", "float32", lambda x: pt.log(1 - pt.erf(x)), [X_ERF_C32], log_erfc_ref,
      "float32"),
]

_LOG_ERF = [
    S("log1p(-erfc(x))", "log_erf", "PyMC HalfNormal.logcdf: log1p(-erfc(z))", lambda x: pt.log1p(-pt.erfc(x)),
      [X_LOG_ERF], log_erf_ref),
    S("log(1-erfc(x))", "log_erf", "the complement of erfc", lambda x: pt.log(1 - pt.erfc(x)), [X_LOG_ERF],
      log_erf_ref),
    S("log1p(-erfc(x/sqrt(2)))", "log_erf", "PyMC HalfNormal.logcdf with its z / sqrt(2)",
      lambda x: pt.log1p(-pt.erfc(x / SQ2)), [X_LOG_ERF], lambda x: log_erf_ref(x / mp.sqrt(2))),
    S("log(erf(x))", "log_erf", "the stable spelling itself", lambda x: pt.log(pt.erf(x)), [X_LOG_ERF], log_erf_ref),
    S("log1p(-erfc(x)) f32", "log_erf", "float32", lambda x: pt.log1p(-pt.erfc(x)), [X_LOG_ERF32], log_erf_ref,
      "float32"),
]

_LOG_EXPM1 = [
    S("log(exp(x)-1)", "log_expm1", "PyMC dist_math.sigma2rho: the inverse softplus",
      lambda x: pt.log(pt.exp(x) - 1), [X_LEXPM1], log_expm1_ref),
    S("log(exp(abs(x))-1.0)", "log_expm1", "PyMC dist_math.sigma2rho, as written",
      lambda x: pt.log(pt.exp(pt.abs(x)) - 1.0), [X_LEXPM1], log_expm1_ref),
    S("log(expm1(x))", "log_expm1", "expm1 spelled, overflow at large x", lambda x: pt.log(pt.expm1(x)), [X_LEXPM1],
      log_expm1_ref),
    S("x+log1p(-exp(-x))", "log_expm1", "the exponent taken out by hand", lambda x: x + pt.log1p(-pt.exp(-x)),
      [X_LEXPM1], log_expm1_ref),
    S("log(exp(x)-1) f32", "log_expm1", "float32", lambda x: pt.log(pt.exp(x) - 1), [X_LEXPM1_32], log_expm1_ref,
      "float32"),
]

_LOG_COSH = [
    S("log(cosh(x))", "log_cosh", "issue 44: the log of a hyperbolic function at large arguments",
      lambda x: pt.log(pt.cosh(x)), [X_COSH], log_cosh_ref),
    S("log((exp(x)+exp(-x))/2)", "log_cosh", "cosh spelled out", lambda x: pt.log((pt.exp(x) + pt.exp(-x)) / 2),
      [X_COSH], log_cosh_ref),
    S("log(0.5*exp(x)+0.5*exp(-x))", "log_cosh", "issue 44: constant weights inside a sum of exps",
      lambda x: pt.log(0.5 * pt.exp(x) + 0.5 * pt.exp(-x)), [X_COSH], log_cosh_ref),
    S("logaddexp(x,-x)-log(2)", "log_cosh", "the overflow-safe spelling, cancelling at tiny x",
      lambda x: pt.logaddexp(x, -x) - pt.log(2.0), [X_COSH], log_cosh_ref),
    S("log(cosh(x)) f32", "log_cosh", "float32", lambda x: pt.log(pt.cosh(x)), [X_COSH32], log_cosh_ref, "float32"),
]

_LOG_SINH = [
    S("log(sinh(x))", "log_sinh", "issue 44: the log of a hyperbolic function at large arguments",
      lambda x: pt.log(pt.sinh(x)), [X_SINH], log_sinh_ref),
    S("log((exp(x)-exp(-x))/2)", "log_sinh", "sinh spelled out", lambda x: pt.log((pt.exp(x) - pt.exp(-x)) / 2),
      [X_SINH], log_sinh_ref),
    S("x+log1p(-exp(-2*x))-log(2)", "log_sinh", "the exponent taken out by hand",
      lambda x: x + pt.log1p(-pt.exp(-2 * x)) - pt.log(2.0), [X_SINH], log_sinh_ref),
    S("log(sinh(x)) f32", "log_sinh", "float32", lambda x: pt.log(pt.sinh(x)), [X_SINH32], log_sinh_ref, "float32"),
]

_LOGPOW = [
    S("log(x**m)", "logpow", "PyMC dist_math.logpow: log(x**m) for m*log(x)", lambda x, m: pt.log(x**m),
      [X_POW, M_POW], logpow_ref),
    S("log(x**3)", "logpow", "a constant power", lambda x: pt.log(x**3), [X_POW1], lambda x: logpow_ref(x, 3)),
    S("log(sqr(x))", "logpow", "a square", lambda x: pt.log(pt.sqr(x)), [X_POW1], lambda x: logpow_ref(x, 2)),
    S("log(x**m) f32", "logpow", "float32", lambda x, m: pt.log(x**m), [X_POW32, M_POW32], logpow_ref, "float32"),
]

_BETALN = [
    S("log(gamma(a)*gamma(b)/gamma(a+b))", "betaln", "pytensor #1181: the naive betaln",
      lambda a, b: pt.log(pt.gamma(a) * pt.gamma(b) / pt.gamma(a + b)), [A_BETA, B_BETA], betaln_ref, rtol=1e-7),
    S("gammaln(a)+gammaln(b)-gammaln(a+b)", "betaln", "PyMC dist_math.betaln (the stable spelling)",
      lambda a, b: pt.gammaln(a) + pt.gammaln(b) - pt.gammaln(a + b), [A_BETA, B_BETA], betaln_ref, rtol=1e-7),
    S("log(gamma(a))+log(gamma(b))-log(gamma(a+b))", "betaln", "pytensor #1181: log(gamma) three times",
      lambda a, b: pt.log(pt.gamma(a)) + pt.log(pt.gamma(b)) - pt.log(pt.gamma(a + b)), [A_BETA, B_BETA], betaln_ref,
      rtol=1e-7),
    S("log(gamma(a)*gamma(b)/gamma(a+b)) f32", "betaln", "float32",
      lambda a, b: pt.log(pt.gamma(a) * pt.gamma(b) / pt.gamma(a + b)), [A_BETA32, B_BETA32], betaln_ref, "float32"),
]

_SQRT_DIFF = [
    S("sqrt(x+1)-sqrt(x)", "sqrt_diff", "Herbie bench/hamming/rearrangement.fpcore: 2sqrt (example 3.1)",
      lambda x: pt.sqrt(x + 1) - pt.sqrt(x), [X_BIG], sqrt_diff_ref),
    S("sqrt(1+x)-sqrt(x)", "sqrt_diff", "Herbie 2sqrt, operand order", lambda x: pt.sqrt(1 + x) - pt.sqrt(x), [X_BIG],
      sqrt_diff_ref),
    S("-(sqrt(x)-sqrt(x+1))", "sqrt_diff", "a negation of a subtraction", lambda x: -(pt.sqrt(x) - pt.sqrt(x + 1)),
      [X_BIG], sqrt_diff_ref),
    S("sqrt(x+1)-sqrt(x) f32", "sqrt_diff", "float32", lambda x: pt.sqrt(x + 1) - pt.sqrt(x), [X_BIG32],
      sqrt_diff_ref, "float32"),
]

_FRAC_DIFF = [
    S("1/(x+1)-1/x", "frac_diff", "Herbie bench/hamming/rearrangement.fpcore: 2frac (problem 3.3.1)",
      lambda x: 1 / (x + 1) - 1 / x, [X_FRAC], frac_diff_ref),
    S("reciprocal(x+1)-reciprocal(x)", "frac_diff", "Herbie 2frac through reciprocals",
      lambda x: pt.reciprocal(x + 1) - pt.reciprocal(x), [X_FRAC], frac_diff_ref),
    S("1/(x+1)-1/x f32", "frac_diff", "float32", lambda x: 1 / (x + 1) - 1 / x, [X_FRAC32], frac_diff_ref, "float32"),
]

_EXPREL = [
    S("(exp(x)-1)/x", "exprel", "issue 44 / Herbie series.fpcore expm1 (example 3.7) over x",
      lambda x: (pt.exp(x) - 1) / x, [X_EXPREL], exprel_ref),
    S("(exp(x)-1)*(1/x)", "exprel", "a product with a reciprocal", lambda x: (pt.exp(x) - 1) * (1 / x), [X_EXPREL],
      exprel_ref),
    S("expm1(x)/x", "exprel", "the stable spelling (expm1 spelled)", lambda x: pt.expm1(x) / x, [X_EXPREL],
      exprel_ref),
    S("(exp(x)-1)/x f32", "exprel", "float32", lambda x: (pt.exp(x) - 1) / x, [X_EXPREL32], exprel_ref, "float32"),
]

_LOG1P_RECIP = [
    S("log(x+1)-log(x)", "log1p_recip", "Herbie bench/hamming/rearrangement.fpcore: 2log (problem 3.3.6)",
      lambda x: pt.log(x + 1) - pt.log(x), [X_LOGN], log1p_recip_ref),
    S("log((x+1)/x)", "log1p_recip", "Herbie 2log as a quotient", lambda x: pt.log((x + 1) / x), [X_LOGN],
      log1p_recip_ref),
    S("log(1+1/x)", "log1p_recip", "Herbie 2log's log1p form, unspelled", lambda x: pt.log(1 + 1 / x), [X_LOGN],
      log1p_recip_ref),
    S("softplus(-log(x))", "log1p_recip", "pytensor #1451 / #1452: softplus of a negated log",
      lambda x: pt.softplus(-pt.log(x)), [X_LOGN], log1p_recip_ref),
    S("log(x+1)-log(x) f32", "log1p_recip", "float32", lambda x: pt.log(x + 1) - pt.log(x), [X_LOGN32],
      log1p_recip_ref, "float32"),
]

_QUAD = [
    S("(-b+sqrt(b*b-4*a*c))/(2*a)", "quadratic_root", "Herbie bench/hamming/quadratic.fpcore: quadp (p42, positive)",
      lambda a, b, c: (-b + pt.sqrt(b * b - 4 * a * c)) / (2 * a), [A_QUAD, B_QUAD, C_QUAD], quad_root_ref),
    S("(-b+sqrt(b**2-4*a*c))/(2*a)", "quadratic_root", "Herbie quadp with a power",
      lambda a, b, c: (-b + pt.sqrt(b**2 - 4 * a * c)) / (2 * a), [A_QUAD, B_QUAD, C_QUAD], quad_root_ref),
    S("(-b2+sqrt(b2*b2-a*c))/a", "quadratic_root", "Herbie quad2p (problem 3.2.1, positive): the half-b form",
      lambda a, b, c: (-b + pt.sqrt(b * b - a * c)) / a, [A_QUAD, B_QUAD, C_QUAD],
      ew(lambda a, b, c: _quad_root(a, 2 * b, c))),
    S("(-b+sqrt(b*b-4*a*c))/(2*a) f32", "quadratic_root", "float32",
      lambda a, b, c: (-b + pt.sqrt(b * b - 4 * a * c)) / (2 * a), [A_QUAD32, B_QUAD32, C_QUAD32], quad_root_ref,
      "float32"),
]

_EXP2 = [
    S("exp(x)-2+exp(-x)", "exp2", "Herbie bench/hamming/rearrangement.fpcore: exp2 (problem 3.3.7)",
      lambda x: pt.exp(x) - 2 + pt.exp(-x), [X_EXP2], exp2_ref),
    S("2*cosh(x)-2", "exp2", "Herbie exp2 through cosh", lambda x: 2 * pt.cosh(x) - 2, [X_EXP2], exp2_ref),
    S("2*(cosh(x)-1)", "exp2", "cosh(x) - 1 with a constant factor", lambda x: 2 * (pt.cosh(x) - 1), [X_EXP2],
      exp2_ref),
    S("exp(x)-2+exp(-x) f32", "exp2", "float32", lambda x: pt.exp(x) - 2 + pt.exp(-x), [X_EXP2_32], exp2_ref,
      "float32"),
]

_LOG_SIGMOID_PRODUCT = [
    S("log(sigmoid(x)*sigmoid(y))", "log_sigmoid_product", "issue 44: the log of a product of sigmoids",
      lambda x, y: pt.log(pt.sigmoid(x) * pt.sigmoid(y)), [X_SIGP, Y_SIGP], log_sigmoid_pair_ref),
    S("log(1/((1+exp(-x))*(1+exp(-y))))", "log_sigmoid_product", "sigmoids spelled out, one quotient",
      lambda x, y: pt.log(1 / ((1 + pt.exp(-x)) * (1 + pt.exp(-y)))), [X_SIGP, Y_SIGP], log_sigmoid_pair_ref),
    S("log(sigmoid(x))+log(sigmoid(y))", "log_sigmoid_product", "the product split by hand (each log stabilized)",
      lambda x, y: pt.log(pt.sigmoid(x)) + pt.log(pt.sigmoid(y)), [X_SIGP, Y_SIGP], log_sigmoid_pair_ref),
    S("log(sigmoid(x)*sigmoid(y)*sigmoid(x))", "log_sigmoid_product", "issue 44: a product of three factors",
      lambda x, y: pt.log(pt.sigmoid(x) * pt.sigmoid(y) * pt.sigmoid(x)), [X_SIGP, Y_SIGP],
      ew(lambda a, b: 2 * _log_sigmoid(a) + _log_sigmoid(b))),
    S("log(sigmoid(x)*sigmoid(y)) f32", "log_sigmoid_product", "float32",
      lambda x, y: pt.log(pt.sigmoid(x) * pt.sigmoid(y)), [X_SIGP32, Y_SIGP32], log_sigmoid_pair_ref, "float32"),
]

_LOGIT_SIGMOID = [
    S("log(sigmoid(x)/(1-sigmoid(x)))", "logit_sigmoid", "pytensor #2322: the logit of a sigmoid",
      lambda x: pt.log(pt.sigmoid(x) / (1 - pt.sigmoid(x))), [X_ODDS], identity_ref),
    S("log(sigmoid(x))-log(1-sigmoid(x))", "logit_sigmoid", "the quotient split by hand",
      lambda x: pt.log(pt.sigmoid(x)) - pt.log(1 - pt.sigmoid(x)), [X_ODDS], identity_ref),
    S("-log(1/sigmoid(x)-1)", "logit_sigmoid", "the odds through a reciprocal", lambda x: -pt.log(1 / pt.sigmoid(x) - 1),
      [X_ODDS], identity_ref),
    S("log(sigmoid(x)/(1-sigmoid(x))) f32", "logit_sigmoid", "float32",
      lambda x: pt.log(pt.sigmoid(x) / (1 - pt.sigmoid(x))), [X_ODDS32], identity_ref, "float32"),
]

_SIGMOID_ODDS = [
    S("sigmoid(x)/(1-sigmoid(x))", "sigmoid_odds", "pytensor #2322: sigmoid(x) / (1 - sigmoid(x)) -> exp(x)",
      lambda x: pt.sigmoid(x) / (1 - pt.sigmoid(x)), [X_ODDS], exp_ref),
    S("sigmoid(x)/sigmoid(-x)", "sigmoid_odds", "the complement as a reflected sigmoid",
      lambda x: pt.sigmoid(x) / pt.sigmoid(-x), [X_ODDS], exp_ref),
    S("1/(1/sigmoid(x)-1)", "sigmoid_odds", "through a reciprocal", lambda x: 1 / (1 / pt.sigmoid(x) - 1), [X_ODDS],
      exp_ref),
    S("sigmoid(x)/(1-sigmoid(x)) f32", "sigmoid_odds", "float32", lambda x: pt.sigmoid(x) / (1 - pt.sigmoid(x)),
      [X_ODDS32], exp_ref, "float32"),
]

_TANH = [
    S("(exp(x)-exp(-x))/(exp(x)+exp(-x))", "tanh", "tanh spelled out",
      lambda x: (pt.exp(x) - pt.exp(-x)) / (pt.exp(x) + pt.exp(-x)), [X_TANH], tanh_ref),
    S("(exp(2*x)-1)/(exp(2*x)+1)", "tanh", "tanh through exp(2x)", lambda x: (pt.exp(2 * x) - 1) / (pt.exp(2 * x) + 1),
      [X_TANH], tanh_ref),
    S("sinh(x)/cosh(x)", "tanh", "a quotient of hyperbolic functions", lambda x: pt.sinh(x) / pt.cosh(x), [X_TANH],
      tanh_ref),
    S("(exp(x)-exp(-x))/(exp(x)+exp(-x)) f32", "tanh", "float32",
      lambda x: (pt.exp(x) - pt.exp(-x)) / (pt.exp(x) + pt.exp(-x)), [X_TANH32], tanh_ref, "float32"),
]

_SINH = [
    S("(exp(x)-exp(-x))/2", "sinh", "sinh spelled out", lambda x: (pt.exp(x) - pt.exp(-x)) / 2, [X_SINHV], sinh_ref),
    S("0.5*exp(x)-0.5*exp(-x)", "sinh", "constant weights on a difference of exps",
      lambda x: 0.5 * pt.exp(x) - 0.5 * pt.exp(-x), [X_SINHV], sinh_ref),
    S("0.5*(exp(x)-1/exp(x))", "sinh", "a division by an exp", lambda x: 0.5 * (pt.exp(x) - 1 / pt.exp(x)), [X_SINHV],
      sinh_ref),
    S("(exp(x)-exp(-x))/2 f32", "sinh", "float32", lambda x: (pt.exp(x) - pt.exp(-x)) / 2, [X_SINHV32], sinh_ref,
      "float32"),
]

X_COS = floats(1e-300, 1e-9, -3e-5, 1e-3, 0.5, 3.0)
X_COS32 = floats(1e-20, 1e-4, -3e-3, 0.5, 3.0, dtype="float32")
one_minus_cos_ref = ew(lambda v: 2 * mp.sin(v / 2) ** 2)
_ONE_MINUS_COS = [
    S("1-cos(x)", "one_minus_cos", "issue 44: cancellation at tiny arguments (1 - cos(x) rounds to 0 below 1e-8)",
      lambda x: 1 - pt.cos(x), [X_COS], one_minus_cos_ref),
    S("-(cos(x)-1)", "one_minus_cos", "a negated difference", lambda x: -(pt.cos(x) - 1), [X_COS], one_minus_cos_ref),
    S("1-cos(x) f32", "one_minus_cos", "float32", lambda x: 1 - pt.cos(x), [X_COS32], one_minus_cos_ref, "float32"),
    S("(1-cos(x))/x**2", "one_minus_cos_ratio", "issue 44: the same cancellation under a division (0/0 in float near 0)",
      lambda x: (1 - pt.cos(x)) / x**2, [floats(1e-150, 1e-9, -3e-5, 1e-3, 0.5, 3.0)],
      ew(lambda v: 2 * mp.sin(v / 2) ** 2 / v**2)),
]

X_POW1P, Y_POW1P = floats(1e-12, -1e-12, 1e-8, 3e-5, 0.3, -0.4, 2.0, 1e5), floats(1e12, 1e12, -1e8, 7e4, 3.0, 10.5, 0.5, 2.5)
X_POW1P32, Y_POW1P32 = (floats(1e-5, -1e-4, 3e-3, 0.3, 2.0, dtype="float32"),
                        floats(1e5, 3e4, -2e3, 3.0, 0.5, dtype="float32"))
X_TRIALS, N_TRIALS = floats(1e-17, 1e-10, 1e-3, 0.5, 0.9), floats(1e17, 1e11, 1e4, 3.0, 2.0)
pow1p_ref = ew(lambda u, b: mp.power(1 + u, b))
_POW1P = [
    S("(1+x)**y", "pow1p", "issue 44: a power of one plus a small quantity (1 + x rounds x: (1 + 1e-12)**1e12 is e to "
      "4 digits)", lambda x, y: (1 + x) ** y, [X_POW1P, Y_POW1P], pow1p_ref),
    S("(1+x/y)**y", "pow1p", "compound interest, (1 + r/n)**n at a large n",
      lambda x, y: (1 + x / y) ** y, [floats(0.05, 1.0, -2.0, 3.0, 0.5), floats(1e15, 1e12, 1e9, 10.0, 2.0)],
      ew(lambda r, n: mp.power(1 + r / n, n))),
    S("(1-x)**y", "pow1p", "the chance of no success in y trials, (1 - p)**n at a tiny p",
      lambda x, y: (1 - x) ** y, [X_TRIALS, N_TRIALS], ew(lambda q, n: mp.power(1 - q, n))),
    S("(1+x*y)**(-1/y)", "pow1p", "the generalized Pareto survival (1 + k*x)**(-1/k) at a shape k near 0",
      lambda x, y: (1 + x * y) ** (-1 / y), [floats(1.0, 5.0, 0.5, 30.0, 5.0), floats(1e-12, 1e-9, 1e-15, 0.1, -0.1)],
      ew(lambda v, k: mp.power(1 + v * k, -1 / k))),
    S("(1+x**2/y)**(-(y+1)/2)", "pow1p", "the Student-t kernel at a large nu (the Normal limit)",
      lambda x, y: (1 + x**2 / y) ** (-(y + 1) / 2), [floats(1.0, 3.0, 0.1, 10.0, 2.0), floats(1e15, 1e10, 1e12, 5.0, 1.0)],
      ew(lambda v, nu: mp.power(1 + v**2 / nu, -(nu + 1) / 2))),
    S("(1+x)**y f32", "pow1p", "float32", lambda x, y: (1 + x) ** y, [X_POW1P32, Y_POW1P32], pow1p_ref, "float32"),
    S("1-(1-x)**y", "powm1", "the chance of at least one success in y trials (0 in float64 at p = 1e-17)",
      lambda x, y: 1 - (1 - x) ** y, [X_TRIALS, N_TRIALS], ew(lambda q, n: 1 - mp.power(1 - q, n))),
    S("(1+x)**y-1", "powm1", "a power's difference from one (cancels at a small x and at a small y)",
      lambda x, y: (1 + x) ** y - 1, [floats(1e-12, 1e5, 1e-20, 0.3, -0.5), floats(3.0, 1e-12, 1e10, 2.0, 3.0)],
      ew(lambda u, b: mp.power(1 + u, b) - 1)),
]

X_TANH2 = floats(1e-300, 1e-8, 0.3, -0.9, 5.0, -20.0, 30.0, 400.0, -400.0)
log_sech2_ref = ew(lambda v: -2 * mp.log(mp.cosh(v)))
X_ASINH_ARG = floats(1e-300, 0.5, -0.5, -30.0, -1e5, -1e10, 3.0, 1e10)
X_LOG2 = floats(-1e3, -60.0, -1.0, 0.0, 1e-10, 2.0, 60.0, 1e4, 1e10)
softplus2_ref = ew(lambda v: max(v, 0) + mp.log1p(mp.power(2, -abs(v))) / mp.log(2))
_MORE_KINDS = [
    S("log(1-tanh(x)**2)", "log_sech2", "the log-Jacobian of a tanh change of variables (tanh rounds to 1 from "
      "|x| = 19: -inf)", lambda x: pt.log(1 - pt.tanh(x) ** 2), [X_TANH2], log_sech2_ref),
    S("log1p(-tanh(x)**2)", "log_sech2", "the same through log1p", lambda x: pt.log1p(-pt.tanh(x) ** 2), [X_TANH2],
      log_sech2_ref),
    S("log(1-tanh(x)*tanh(x)) f32", "log_sech2", "float32, the square as a product",
      lambda x: pt.log(1 - pt.tanh(x) * pt.tanh(x)), [floats(1e-30, 1e-3, 0.3, -0.9, 5.0, -12.0, 40.0, dtype="float32")],
      log_sech2_ref, "float32"),
    S("x+sqrt(x*x+1)", "asinh_arg", "asinh's argument without its log (0 from x = -1e8: a cancellation)",
      lambda x: x + pt.sqrt(x * x + 1), [X_ASINH_ARG], ew(lambda v: v + mp.sqrt(v * v + 1))),
    S("sqrt(x**2+4)+x", "asinh_arg", "a constant under the root and the operands the other way",
      lambda x: pt.sqrt(x**2 + 4) + x, [X_ASINH_ARG], ew(lambda v: mp.sqrt(v * v + 4) + v)),
    S("log2(1+2**x)", "softplus2", "softplus in base 2 (a code length): 2**x overflows from x = 1024",
      lambda x: pt.log2(1 + 2**x), [X_LOG2], softplus2_ref),
    S("log2(exp2(x)+1)", "softplus2", "through exp2, the operands the other way",
      lambda x: pt.log2(pt.exp2(x) + 1), [X_LOG2], softplus2_ref),
    S("x**y-1", "powm1", "a power of any base less one (cancels at a small exponent or a base near 1)",
      lambda x, y: x**y - 1, [floats(0.5, 3.0, 1.0 + 1e-10, 20.0, 1e200, 7.0), floats(1e-13, 1e-10, 1e8, 5.0, 1e-100, -0.5)],
      ew(lambda a, b: mp.expm1(b * mp.log(a)))),
    S("log((1+x)**y)", "log_pow1p", "the log of a power of one plus a small quantity (log of the rounded sum)",
      lambda x, y: pt.log((1 + x) ** y), [floats(1e-12, 1e-300, 0.5, 1e5, -0.5), floats(3.0, 2.0, 1e-10, 2.5, 7.0)],
      ew(lambda u, b: b * mp.log1p(u))),
    S("log(1-(1+x/y)**(-y))", "log1m_pow1p", "the log of a survival function's complement, (1 + x/s)**-s",
      lambda x, y: pt.log(1 - (1 + x / y) ** (-y)), [floats(1e-12, 1.0 + 1e-10, 30.0, 0.5, 20.0), floats(3.0, 1e8, 1e5, 2.0, 800.0)],
      ew(lambda u, s_: mp.log(1 - mp.power(1 + u / s_, -s_)))),
    S("log1p((x/y)**2)", "log1p_sqr", "the log of one plus a squared ratio (the square overflows)",
      lambda x, y: pt.log1p((x / y) ** 2), [floats(1e200, 1.0, 3.0, -1e160, 1e-3), floats(1.0, 1e-160, 4.0, 1.0, 1.0)],
      ew(lambda a, b: mp.log1p((a / b) ** 2))),
    S("log(1-tanh(x))", "log1m_tanh", "the log of 2 * sigmoid(-2x) spelled through tanh",
      lambda x: pt.log(1 - pt.tanh(x)), [floats(1e-300, 0.3, -5.0, 30.0, 400.0, -400.0)],
      ew(lambda v: mp.log(2) - 2 * v - mp.log1p(mp.exp(-2 * v)) if v > 1 else mp.log1p(-mp.tanh(v)))),
    S("log(z*exp(x)+(1-z)*exp(y))", "log_mix2", "a two-component mixture's log-density, its weight read from data",
      lambda x, y, z: pt.log(z * pt.exp(x) + (1 - z) * pt.exp(y)),
      [floats(800.0, -800.0, 1.0, 30.0), floats(799.0, -801.0, 2.0, -30.0), floats(0.3, 0.5, 1e-20, 0.9)],
      ew(lambda a, b, w: mp.log(w * mp.exp(a) + (1 - w) * mp.exp(b)))),
    S("log((1-exp(-x))*exp(y))", "log_mul_exp", "a log of a product with an exp factor that overflows on its own",
      lambda x, y: pt.log((1 - pt.exp(-x)) * pt.exp(y)), [floats(1e-12, 3.0, 30.0, 1e-5), floats(800.0, -800.0, 3.0, 1e3)],
      ew(lambda a, b: mp.log(-mp.expm1(-a)) + b)),
]

# the kinds of issue 44 on the first targets

_SOFTPLUS_MORE = [
    S("softplus(x)-x", "softplus", "issue 44: a softplus and a term that nearly cancels it (softplus(-x))",
      lambda x: pt.softplus(x) - x, [X_SOFTPLUS], ew(lambda v: mp.log1p(mp.exp(-v)))),
    S("log(1+exp(x))-x", "softplus", "issue 44: the cancellation spelled out (softplus(-x))",
      lambda x: pt.log(1 + pt.exp(x)) - x, [X_SOFTPLUS], ew(lambda v: mp.log1p(mp.exp(-v)))),
    S("log1p(exp(x))-x f32", "softplus", "issue 44: the cancellation in float32 (softplus(-x))",
      lambda x: pt.log1p(pt.exp(x)) - x, [X_SOFTPLUS32], ew(lambda v: mp.log1p(mp.exp(-v))), "float32"),
    S("log(exp(x)+exp(zeros_like(x)))", "softplus", "issue 44: a constant term that is an exp in disguise",
      lambda x: pt.log(pt.exp(x) + pt.exp(pt.zeros_like(x))), [X_SOFTPLUS], softplus_ref),
    S("log(1+cast32(exp(x)))", "softplus", "issue 44: a float32 cast around the exp",
      lambda x: pt.log(1 + pt.cast(pt.exp(x), "float32")), [X_SOFTPLUS], softplus_ref, "float32"),
]

_EXPM1_MORE = [
    S("exp(x)-1+y", "expm1", "issue 44: exp(x) - 1 with a further term (expm1(x) + y)",
      lambda x, y: pt.exp(x) - 1 + y, [X_EXPM1, Y_EXPM1], ew(lambda a, b: mp.expm1(a) + b)),
    S("exp(x+y)-1", "expm1", "issue 44: the expm1 of a sum", lambda x, y: pt.exp(x + y) - 1, [X_EXPM1, Y_EXPM1],
      ew(lambda a, b: mp.expm1(a + b))),
    S("exp(x)*exp(y)-1", "expm1", "a product of exponentials", lambda x, y: pt.exp(x) * pt.exp(y) - 1,
      [X_EXPM1, Y_EXPM1], ew(lambda a, b: mp.expm1(a + b))),
    S("2*(exp(x)-1)", "expm1", "a constant factor", lambda x: 2 * (pt.exp(x) - 1), [X_EXPM1],
      ew(lambda v: 2 * mp.expm1(v))),
    S("exp(x)-1 f32", "expm1", "float32", lambda x: pt.exp(x) - 1, [X_TINY32], expm1_ref, "float32"),
]

_LOG1P_MORE = [
    S("log(1-0.5*exp(-x))", "log1p", "PyMC Laplace.logcdf's y <= 1 branch, taken everywhere",
      lambda x: pt.log(1 - 0.5 * pt.exp(-x)), [X_LAPLACE], ew(lambda v: mp.log1p(-mp.exp(-v) / 2))),
    S("log(1-(1/x)**2)", "log1p", "PyMC Pareto.logcdf's arg > 1e-5 branch, taken everywhere (m=1, alpha=2)",
      lambda x: pt.log(1 - (1 / x) ** 2), [X_PARETO], ew(lambda v: mp.log1p(-(1 / v) ** 2))),
    S("log(1-x**3)", "log1p", "PyMC Kumaraswamy.logp's log(1 - value**a)", lambda x: pt.log(1 - x**3), [X_SMALLP],
      ew(lambda v: mp.log1p(-(v**3)))),
]

_LOG1MEXP_MORE = [
    S("log(1-exp(-x))", "log1mexp", "aeppl #156: log(1 - exp(logcdf)) of an exponential tail",
      lambda x: pt.log(1 - pt.exp(-x)), [X_POS], ew(lambda v: _log1mexp(-v))),
    S("log(-expm1(x)) f32", "log1mexp", "pytensor #1483 (float32)", lambda x: pt.log(-pt.expm1(x)), [X_NEG32],
      log1mexp_ref, "float32"),
]

_LOGSUMEXP_MORE = [
    S("log(sum(w*exp(x),1)) w const", "logsumexp", "issue 44: constant weights inside a sum of exps",
      lambda x: pt.log(pt.sum(np.array(_W3) * pt.exp(x), axis=1)), [M_LSE],
      _rows(lambda x: lse_ref(x, 1), lambda x: x + np.vectorize(mp.log, otypes=[object])(np.array(_W3)))),
    S("log(sum(exp(x)*w,1)) w vector", "logsumexp", "issue 44: vector weights inside a sum of exps",
      lambda x, w: pt.log(pt.sum(pt.exp(x) * w, axis=1)), [M_LSE, W_LSE],
      lambda x, w: lse_ref(x + np.vectorize(mp.log, otypes=[object])(w), 1)),
    S("log(1+sum(exp(x),1))", "logsumexp", "issue 44: a constant term that is an exp in disguise",
      lambda x: pt.log(1 + pt.sum(pt.exp(x), axis=1)), [M_LSE], _lse_with_zero),
    S("log(dot(exp(x),ones(3)))", "logsumexp", "issue 44: a sum written as a product with a vector of ones",
      lambda x: pt.log(pt.dot(pt.exp(x), pt.ones(3))), [M_LSE], lambda x: lse_ref(x, 1)),
    S("log(cast32(sum(exp(x),1)))", "logsumexp", "issue 44: a float32 cast around a float64 sum of exps",
      lambda x: pt.log(pt.cast(pt.sum(pt.exp(x), axis=1), "float32")), [M_LSE32.astype("float64")],
      lambda x: lse_ref(x, 1), "float32"),
]

_LOGADDEXP_MORE = [
    S("log(2*exp(x)+exp(y))", "logaddexp", "issue 44: a constant weight on one exp (logaddexp(x + log 2, y))",
      lambda x, y: pt.log(2 * pt.exp(x) + pt.exp(y)), [X_PAIR, Y_PAIR],
      ew(lambda a, b: mp.log(2 * mp.exp(a) + mp.exp(b)))),
    S("log(exp(x)+exp(y)+1)", "logaddexp", "issue 44: a third term, an exp in disguise",
      lambda x, y: pt.log(pt.exp(x) + pt.exp(y) + 1), [X_PAIR, Y_PAIR],
      ew(lambda a, b: mp.log(mp.exp(a) + mp.exp(b) + 1))),
]

X_MIXED, Y_MIXED = floats(800.0, -800.0, 3.0, 0.0, -40.0), floats(2.0, 1e-300, 5.0, 0.5, 1.0)
X_MIXED_D, Y_MIXED_D = floats(-800.0, -40.0, 0.0, 700.0, -1e-10), floats(1e-300, 1.0, 3.0, 1e305, 1.0)
X_POCH, Y_POCH = floats(0.5, 10.0, 200.0, 1e5), floats(3.0, 0.5, 100.0, 100.0)

_MIXED_DOMAIN = [
    S("log(exp(x)+y)", "logaddexp", "pytensor #2327: log-exp with mixed domain inputs (an exp and a positive term)",
      lambda x, y: pt.log(pt.exp(x) + y), [X_MIXED, Y_MIXED], ew(lambda a, b: mp.log(mp.exp(a) + b))),
    S("log(y+exp(x))", "logaddexp", "pytensor #2327: mixed domain inputs, operand order",
      lambda x, y: pt.log(y + pt.exp(x)), [X_MIXED, Y_MIXED], ew(lambda a, b: mp.log(mp.exp(a) + b))),
]

_LOGDIFFEXP_MORE = [
    S("log(y-exp(x))", "logdiffexp", "pytensor #2327: a difference with mixed domain inputs (y > exp(x))",
      lambda x, y: pt.log(y - pt.exp(x)), [X_MIXED_D, Y_MIXED_D], ew(lambda a, b: mp.log(b - mp.exp(a)))),
]

_LOG_POCH = [
    S("log(exp(gammaln(x+y)-gammaln(x)))", "log_poch", "pytensor #158: a ratio computed on the log scale, then exp'd",
      lambda x, y: pt.log(pt.exp(pt.gammaln(x + y) - pt.gammaln(x))), [X_POCH, Y_POCH],
      ew(lambda a, b: mp.loggamma(a + b) - mp.loggamma(a)), rtol=1e-7),
    S("gammaln(x+y)-gammaln(x)", "log_poch", "pytensor #1181: log(poch) on the log scale (the stable spelling)",
      lambda x, y: pt.gammaln(x + y) - pt.gammaln(x), [X_POCH, Y_POCH],
      ew(lambda a, b: mp.loggamma(a + b) - mp.loggamma(a)), rtol=1e-7),
]

_SOFTMAX_MORE = [
    S("(exp(x)/sum(exp(x),1,keepdims))[0]", "softmax", "issue 44: softmax read through an index",
      lambda x: (pt.exp(x) / pt.sum(pt.exp(x), axis=1, keepdims=True))[0], [M_SOFTMAX], lambda x: softmax_ref(x)[0]),
    S("(exp(x)/sum(exp(x),1,keepdims)).flatten()", "softmax", "issue 44: softmax read through a reshape",
      lambda x: (pt.exp(x) / pt.sum(pt.exp(x), axis=1, keepdims=True)).flatten(), [M_SOFTMAX],
      lambda x: softmax_ref(x).ravel()),
    S("exp(x)/dot(exp(x),ones((3,1)))", "softmax", "issue 44: the sum as a product with a column of ones",
      lambda x: pt.exp(x) / pt.dot(pt.exp(x), pt.ones((3, 1))), [M_SOFTMAX], softmax_ref),
    S("exp(x-logsumexp(x,1,keepdims))", "softmax", "pytensor #2313: softmax through logsumexp",
      lambda x: pt.exp(x - pt.logsumexp(x, axis=1, keepdims=True)), [M_SOFTMAX], softmax_ref),
    S("exp(log_softmax(x))", "softmax", "pytensor #2313: exp(log_softmax) -> softmax",
      lambda x: pt.exp(log_softmax(x, axis=-1)), [M_SOFTMAX], softmax_ref),
]

_LOG_SOFTMAX_MORE = [
    S("log((exp(x)/sum(exp(x),1,keepdims))[0])", "log_softmax", "issue 44 / pytensor #352: softmax spelled, indexed",
      lambda x: pt.log((pt.exp(x) / pt.sum(pt.exp(x), axis=1, keepdims=True))[0]), [M_SOFTMAX],
      lambda x: log_softmax_ref(x)[0]),
    S("x-log(dot(exp(x),ones(3)))[:,None]", "log_softmax", "issue 44: the sum as a product with a vector of ones",
      lambda x: x - pt.log(pt.dot(pt.exp(x), pt.ones(3)))[:, None], [M_SOFTMAX], log_softmax_ref),
    S("log(softmax(x).reshape((6,)))", "log_softmax", "issue 44: softmax read through a reshape",
      lambda x: pt.log(softmax(x, axis=-1).reshape((6,))), [M_SOFTMAX], lambda x: log_softmax_ref(x).ravel()),
]

_SIGMOID_MORE = [
    S("exp(x)*sigmoid(-x)", "sigmoid", "a product of an exp and the reflected sigmoid",
      lambda x: pt.exp(x) * pt.sigmoid(-x), [X_SIG], sigmoid_ref),
    S("(1+tanh(x/2))/2", "sigmoid", "sigmoid through tanh", lambda x: (1 + pt.tanh(x / 2)) / 2, [X_SIG], sigmoid_ref),
]

_LOG_SIGMOID_MORE = [
    S("log(exp(x))-log(1+exp(x))", "log_sigmoid", "the quotient split by hand: x - softplus(x), cancelling",
      lambda x: pt.log(pt.exp(x)) - pt.log(1 + pt.exp(x)), [X_SIG], log_sigmoid_ref),
    S("log(0.5+0.5*tanh(x/2))", "log_sigmoid", "sigmoid through tanh, logged",
      lambda x: pt.log(0.5 + 0.5 * pt.tanh(x / 2)), [X_SIG], log_sigmoid_ref),
]

_GAMMALN_MORE = [
    S("log(gamma(x+1))", "gammaln", "PyMC dist_math.factln, written through gamma",
      lambda x: pt.log(pt.gamma(x + 1)), [X_GAMMA], ew(lambda v: mp.loggamma(v + 1))),
    S("log(x*gamma(x))", "gammaln", "issue 44: a product to regroup (gamma(x + 1))", lambda x: pt.log(x * pt.gamma(x)),
      [X_GAMMA], ew(lambda v: mp.loggamma(v + 1))),
]

_ERFCX_MORE = [
    S("0.5*exp(x**2)*erfc(x)", "erfcx", "issue 44: a product of three factors (a constant one)",
      lambda x: 0.5 * pt.exp(x**2) * pt.erfc(x), [X_ERFCX], ew(lambda v: _erfcx(v) / 2), rtol=1e-7),
]

#: The spellings issue 35's targets were set on (the first corpus: 107 spellings of 16 targets).
CORPUS_ISSUE35: tuple[Spelling, ...] = tuple(
    _SOFTPLUS + _LOG1P + _EXPM1 + _LOG1MEXP + _LOGSUMEXP + _LOGADDEXP + _LOGDIFFEXP + _SOFTMAX + _LOG_SOFTMAX
    + _SIGMOID + _ONE_MINUS_SIGMOID + _LOG_SIGMOID + _LOG1M_SIGMOID + _GAMMALN + _LOG_ERFC + _ERFCX
)
#: Every spelling, grouped by target: issue 35's first, each followed by issue 44's further spellings of it;
#: then issue 44's new targets.
CORPUS: tuple[Spelling, ...] = tuple(
    _SOFTPLUS + _SOFTPLUS_MORE + _LOG1P + _LOG1P_MORE + _EXPM1 + _EXPM1_MORE + _LOG1MEXP + _LOG1MEXP_MORE
    + _LOGSUMEXP + _LOGSUMEXP_MORE + _LOGADDEXP + _LOGADDEXP_MORE + _MIXED_DOMAIN + _LOGDIFFEXP
    + _LOGDIFFEXP_MORE + _SOFTMAX + _SOFTMAX_MORE
    + _LOG_SOFTMAX + _LOG_SOFTMAX_MORE + _SIGMOID + _SIGMOID_MORE + _ONE_MINUS_SIGMOID + _LOG_SIGMOID
    + _LOG_SIGMOID_MORE + _LOG1M_SIGMOID + _GAMMALN + _GAMMALN_MORE + _LOG_ERFC + _LOG_ERFC_MORE + _ERFCX
    + _ERFCX_MORE
    + _LOG_NDTR + _LOG_DIFF_NDTR + _ERFC + _LOG_ERF + _LOG_EXPM1 + _LOG_COSH + _LOG_SINH + _LOGPOW + _BETALN + _SQRT_DIFF
    + _FRAC_DIFF + _EXPREL + _LOG1P_RECIP + _QUAD + _EXP2 + _LOG_SIGMOID_PRODUCT + _LOGIT_SIGMOID + _SIGMOID_ODDS
    + _TANH + _SINH + _LOG_POCH + _ONE_MINUS_COS + _POW1P + _MORE_KINDS
)
#: The stable targets, in corpus order.
TARGETS: tuple[str, ...] = tuple(dict.fromkeys(s.target for s in CORPUS))


#: The held-out sets by their benchmark flag: module and list name (each imported only when chosen, so a rule
#: writer running the corpus never loads them).
HELD_OUT_SETS: dict[str, tuple[str, str]] = {
    "heldout": ("numerics_heldout", "HELDOUT"), "unseen": ("numerics_unseen", "UNSEEN"),
    "blind": ("numerics_blind", "BLIND"), "fresh": ("numerics_fresh", "FRESH"), "aside": ("numerics_aside", "ASIDE"),
}


def held_out_set(flag: str) -> list[Spelling]:
    """The spellings of the held-out set named by its benchmark flag (a key of :data:`HELD_OUT_SETS`)."""
    import importlib

    module, name = HELD_OUT_SETS[flag]
    return list(getattr(importlib.import_module(module), name))


def exact_constant(v: Any) -> Any:
    """A graph's float constant as an exact mpmath number (the same float in a reference)."""
    return mp.mpf(float(v))


def wider(f: Callable[..., Any], extra: int = 60) -> Callable[..., Any]:
    """``f`` evaluated with ``extra`` more digits: a definition whose terms cancel, exact enough at the inputs of a
    held-out set's spelling."""

    def g(*xs: Any) -> Any:
        with mp.workdps(mp.mp.dps + extra):
            return f(*xs)

    return g
