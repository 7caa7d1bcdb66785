"""Aside spellings: a fifth held-out set, collected by a helper before the rules it measures were written.

Same :class:`numerics_corpus.Spelling` type and the same judgement
(:func:`numerics_corpus.accuracy`) as ``numerics_fresh.py``.  Each spelling
is written as upstream code, its docstrings, comments or documented
formulas write it, from sources none of ``numerics_corpus.py``,
``numerics_heldout.py``, ``numerics_unseen.py``, ``numerics_blind.py``,
``numerics_fresh.py`` and ``numerics_fpbench.py`` drew on: machine-learning
losses, activations and schedules (Optax's ``optax/losses/_classification.py``
and ``optax/schedules/_schedule.py``; Keras's ``keras/src/activations/activations.py``;
PyTorch's ``torch/nn/functional.py`` and ``torch/nn/modules`` documentation;
TensorFlow's ``tensorflow/python/ops/nn_impl.py``; Theano's
``tensor.nnet.binary_crossentropy`` and Aesara's issue #461; Chainer's
``chainer/functions/loss/vae.py``; mlpack's ``mish_function.hpp``;
torchmetrics' ``functional/regression/r2.py``); gradient-boosting objectives
and metrics (XGBoost's ``src/objective/logistic_obj.h``,
``src/common/survival_util.h`` and ``probability_distribution.h``; LightGBM's
``src/objective/binary_objective.hpp``, ``xentropy_objective.hpp`` and
``src/metric/regression_metric.hpp``); Julia's StatsFuns.jl (``src/misc.jl``,
``src/distrs/fdist.jl``, ``norm.jl``, ``binom.jl``) and SpecialFunctions.jl
(``src/erf.jl``, ``src/gamma.jl``); the Stan math library's functions no
other set used (``rayleigh_lcdf.hpp``, ``exp_mod_normal_lcdf.hpp``);
Chainer's ``chainer/distributions`` entropies; Pyro's distributions
(``von_mises_3d.py``, ``asymmetriclaplace.py``, ``projected_normal.py``,
``hmm.py``); GPy's likelihoods (``link_functions.py``, ``gamma.py``); and
GPyTorch's ``priors/horseshoe_prior.py``.  No name or formula is one of the
other sets'.

Each is evaluated at inputs inside its domain where a naive float
evaluation is at risk (overflow, underflow, cancellation), and at a few
ordinary points, against a closed form in mpmath (50 digits) that
``numerics_corpus.check_spelling`` checks against the spelling's own graph
evaluated exactly.  Where no closed form avoids the cancellation, the
reference is the mathematical definition evaluated with 60 more digits
than the ones asked for (:func:`_wide`), more than the cancellation costs
at these inputs; no reference evaluates the spelling's own formula in
floats.  A float constant of the graph (``np.pi``, ``np.sqrt(0.5)``,
``math.log(4 * math.pi)``) is the same float in the reference, and the
inputs keep the value well above what that constant's rounding moves.
Some FAST_RUN already gets right (PyTensor's own stabilizers: softplus,
log1mexp, the cancellation of ``1 - (1 - e)``): those measure that nothing
is made worse.  ``python benchmarks/numerics.py --aside``
measures them.

Rule writers: do not read this file (nor the tests' or benchmarks' output
naming its spellings) until the rules are written; it measures how far they
carry to spellings nobody tuned them on.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt
from pytensor.tensor.special import log_softmax, softmax

from numerics_corpus import S, Spelling, ew, floats
from numerics_corpus import exact_constant as _c
from numerics_corpus import wider as _wide

__all__ = ["ASIDE"]


#: The graphs' float constants, the same floats in the references.
_PI = np.pi
_SQRT2 = float(np.sqrt(2.0))
_INV_SQRT2 = float(np.sqrt(0.5))
_TWO_PI = 2 * math.pi
_PI_1_5 = np.pi**1.5
_INVSQRT2PI = 1 / math.sqrt(2 * math.pi)
_LOG_4PI = math.log(4 * math.pi)
_LOG_2PI = math.log(2 * math.pi)
_SQRT_2_OVER_PI = (2 / math.pi) ** 0.5
_SQRT_HALF = 0.5**0.5
#: GPyTorch's HorseshoePrior.K, 1 / sqrt(2 pi**3).
_K_HS = 1 / math.sqrt(2 * math.pi**3)
_EPS12_32 = np.float32(1e-12)


def _by_row(f: Callable[..., Any]) -> Callable[..., Any]:
    """A reference reducing the last axis: ``f`` of the rows of the inputs, one value per row."""
    return lambda *xs: np.array([f(*rows) for rows in zip(*xs, strict=True)], dtype=object)


# --- closed forms (mpmath) ------------------------------------------------------------------


def _sig(v: Any) -> Any:
    return 1 / (1 + mp.exp(-v))


def _softplus(v: Any) -> Any:
    return mp.log1p(mp.exp(v)) if v < 0 else v + mp.log1p(mp.exp(-v))


def _logaddexp(a: Any, b: Any) -> Any:
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + mp.log1p(mp.exp(lo - hi))


def _focal(x: Any, y: Any, g: Any) -> Any:
    """(1 - p_t)**g * -log(p_t) for a label y of 0 or 1: sigmoid(-s)**g * softplus(-s), s = x or -x."""
    s = x if y == 1 else -x
    return _sig(-s) ** g * _softplus(-s)


def _poly_row(x: np.ndarray, y: np.ndarray) -> Any:
    """-sum(y log softmax) + 2 sum(y (1 - softmax)): per class -log p_j = log1p(s_j), 1 - p_j = s_j / (1 + s_j),
    s_j = sum over k != j of exp(x_k - x_j)."""
    total = mp.mpf(0)
    for j, yj in enumerate(y):
        s = mp.fsum(mp.exp(xk - x[j]) for k, xk in enumerate(x) if k != j)
        total += yj * mp.log1p(s) + 2 * yj * s / (1 + s)
    return total


def _poisson_nll_full(x: Any, t: Any) -> Any:
    stirling = t * mp.log(t) - t + mp.mpf(0.5) * mp.log(_c(_TWO_PI) * t) if t > 1 else 0
    return mp.exp(x) - t * x + stirling


def _cosine_row(x: np.ndarray, y: np.ndarray) -> Any:
    norms = mp.sqrt(mp.fsum(v * v for v in x)) * mp.sqrt(mp.fsum(v * v for v in y))
    return mp.fsum(a * b for a, b in zip(x, y, strict=True)) / max(norms, _c(1e-8))


def _variance_row(x: np.ndarray) -> Any:
    """The population variance, two passes (the mean, then the squared deviations)."""
    m = mp.fsum(x) / len(x)
    return mp.fsum((v - m) ** 2 for v in x) / len(x)


def _l2_normalize(x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=object)
    for i, row in enumerate(x):
        norm = mp.sqrt(max(mp.fsum(v * v for v in row), _c(_EPS12_32)))
        out[i] = [v / norm for v in row]
    return out


def _aft_extreme_interval(yl: Any, yu: Any, p: Any, s: Any) -> Any:
    """-log(exp(-wl) - exp(-wu)) = wl - log(-expm1(wl - wu)), w = exp((log(y) - p) / s)."""
    wl, wu = mp.exp((mp.log(yl) - p) / s), mp.exp((mp.log(yu) - p) / s)
    return wl - mp.log(-mp.expm1(wl - wu))


def _xentlambda_gradient(s: Any, y: Any, w: Any) -> Any:
    """(1 - y/z) w sigmoid(s), z = -expm1(-w softplus(s)), 1 - y/z = ((1 - y) - exp(-w softplus(s))) / z."""
    sp = _softplus(s)
    z = -mp.expm1(-w * sp)
    return ((1 - y) - mp.exp(-w * sp)) / z * w * _sig(s)


def _xentlambda_hessian(s: Any, y: Any, w: Any) -> Any:
    """LightGBM's expression, every term exact: c = (1 + e^s)^w, the differences it takes kept by the digits."""
    epf = mp.exp(s)
    z = 1 - mp.exp(-w * mp.log1p(epf))
    c = 1 / (1 - z)
    a = w * epf / (1 + epf) ** 2
    b = c / (c - 1) ** 2 * (1 + w * epf - c)
    return a * (1 + y * b)


def _fdist_logpdf(x: Any, n1: Any, n2: Any) -> Any:
    """StatsFuns fdistlogpdf: (n1 log(n1/n2) + (n1 - 2) log x - (n1 + n2) log1p(n1 x / n2)) / 2 - logbeta."""
    lbeta = mp.loggamma(n1 / 2) + mp.loggamma(n2 / 2) - mp.loggamma((n1 + n2) / 2)
    return (n1 * mp.log(n1 / n2) + (n1 - 2) * mp.log(x) - (n1 + n2) * mp.log1p(n1 / n2 * x)) / 2 - lbeta


def _binom_logpmf(k: Any, n: Any, p: Any) -> Any:
    return (mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) + k * mp.log(p)
            + (n - k) * mp.log1p(-p))


def _exp_mod_normal_lcdf_row(y: np.ndarray, s: np.ndarray, lam: np.ndarray) -> Any:
    """sum(log(Phi(y / s) - exp(v**2 / 2 - lam y) Phi(y / s - v))), v = lam s, each Phi through erfc."""
    c = _c(_INV_SQRT2)
    total = mp.mpf(0)
    for yi, si, li in zip(y, s, lam, strict=True):
        sd = yi * c / si
        sdd = sd - li * si * c
        cdf = mp.erfc(-sd) / 2 - mp.exp((li * si) ** 2 / 2 - li * yi) * mp.erfc(-sdd) / 2
        total += mp.log(cdf)
    return total


def _soft_asymmetric_laplace(v: Any, s: Any, a: Any, k: Any) -> Any:
    """log(left + right) - log(L + R) - log(s), each term exp(A) erfc(B) / 2 taken as A + log(erfc(B))."""
    x, big_l, big_r, c = v / s, a, 1 / a, _c(_SQRT2)
    left = (2 * big_l * x + k * k) / (2 * big_l**2) + mp.log(mp.erfc((big_l * x + k * k) / (c * big_l * k)))
    right = (k * k - 2 * big_r * x) / (2 * big_r**2) + mp.log(mp.erfc((k * k - big_r * x) / (c * big_r * k)))
    return mp.log(mp.mpf(0.5)) + _logaddexp(left, right) - mp.log(big_l + big_r) - mp.log(s)


def _projected_normal_row(c: np.ndarray, v: np.ndarray) -> Any:
    t = mp.fsum(a * b for a, b in zip(c, v, strict=True))
    r2 = mp.fsum(a * a for a in c) - t * t
    para = mp.log((mp.exp(-t * t / 2) * _c(_SQRT_2_OVER_PI) + t * mp.erfc(-t * _c(_SQRT_HALF))) / 2)
    return para - r2 / 2 - _c(_LOG_2PI) / 2


def _von_mises_3d_row(c: np.ndarray, v: np.ndarray) -> Any:
    k = mp.sqrt(mp.fsum(a * a for a in c))
    return mp.fsum(a * b for a, b in zip(c, v, strict=True)) + mp.log(k) - mp.log(mp.sinh(k)) - _c(_LOG_4PI)


def _logmatmulexp(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty((x.shape[0], y.shape[1]), dtype=object)
    for i in range(x.shape[0]):
        for j in range(y.shape[1]):
            terms = [x[i, k] + y[k, j] for k in range(x.shape[1])]
            top = max(terms)
            out[i, j] = top + mp.log(mp.fsum(mp.exp(v - top) for v in terms))
    return out


def _horseshoe(x: Any, s: Any) -> Any:
    a, k = (s / x) ** 2, _c(_K_HS)
    return mp.log((k / 2 * mp.log1p(4 * a) + k * mp.log1p(2 * a)) / 2)


def _mish_derivative(x: Any) -> Any:
    t = mp.tanh(_softplus(x))
    return t + x * (1 - t * t) * _sig(x)


def _r2_columns(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """1 - rss / tss per column, tss from the squared deviations of the column's mean."""
    out = []
    for pc, yc in zip(p.T, y.T, strict=True):
        m = mp.fsum(yc) / len(yc)
        rss = mp.fsum((a - b) ** 2 for a, b in zip(yc, pc, strict=True))
        out.append(1 - rss / mp.fsum((a - m) ** 2 for a in yc))
    return np.array(out, dtype=object)


def _gamma_entropy(k: Any, th: Any) -> Any:
    return k + mp.log(th) + mp.loggamma(k) + (1 - k) * mp.digamma(k)


def _beta_entropy(a: Any, b: Any) -> Any:
    lbeta = mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)
    return lbeta - (a - 1) * mp.digamma(a) - (b - 1) * mp.digamma(b) + (a + b - 2) * mp.digamma(a + b)


def _dirichlet_entropy_row(alpha: np.ndarray) -> Any:
    a0 = mp.fsum(alpha)
    lbeta = mp.fsum(mp.loggamma(a) for a in alpha) - mp.loggamma(a0)
    return lbeta + (a0 - len(alpha)) * mp.digamma(a0) - mp.fsum((a - 1) * mp.digamma(a) for a in alpha)


# --- Optax: losses and schedules --------------------------------------------------------------

X_FOC32, Y_FOC32, G_FOC32 = (floats(15.0, 12.0, -17.0, 100.0, 0.5, -2.0, 3.0, dtype="float32"),
                             floats(1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, dtype="float32"),
                             floats(2.0, 0.5, 2.0, 2.0, 1.5, 2.0, 0.25, dtype="float32"))
X_POLY = np.array([[40.0, 0.0, 0.0], [30.0, 1.0, -2.0], [800.0, 0.0, 1.0], [1.0, 2.0, 3.0], [-5.0, 2.0, 0.0]])
Y_POLY = np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.25, 0.25]])
T_COS, N_COS = (floats(999999.0, 999990.0, 99999.0, 2999999.0, 0.0, 5e5, 2.5e5),
                floats(1e6, 1e6, 1e5, 3e6, 1e6, 1e6, 1e6))

_OPTAX = "Optax optax/"


def _optax_focal(x, y, g):
    """Optax sigmoid_focal_loss's docstring: FL(p_t) = -(1 - p_t)**gamma log(p_t), p_t = p y + (1 - p)(1 - y)."""
    p = pt.sigmoid(x)
    p_t = p * y + (1 - p) * (1 - y)
    return -((1 - p_t) ** g) * pt.log(p_t)


def _optax_poly(x, y):
    """Optax poly_loss_cross_entropy: softmax_cross_entropy + epsilon * sum(labels * (1 - softmax)), epsilon = 2."""
    cross_entropy = -pt.sum(y * log_softmax(x, axis=-1), axis=-1)
    return cross_entropy + 2.0 * pt.sum(y * (1 - softmax(x, axis=-1)), axis=-1)


_OPTAX_SPELLINGS = [
    S("optax_sigmoid_focal_loss_docstring_f32", "focal_loss",
      _OPTAX + "losses/_classification.py sigmoid_focal_loss, as its docstring writes it: -(1 - p_t)**gamma "
      "log(p_t), p = sigmoid(logits), p_t = p y + (1 - p)(1 - y), binary labels, float32 (JAX's default)",
      _optax_focal, [X_FOC32, Y_FOC32, G_FOC32], ew(_focal), "float32"),
    S("optax_poly_loss_cross_entropy_rows", "poly_loss",
      _OPTAX + "losses/_classification.py poly_loss_cross_entropy: cross_entropy + epsilon * "
      "sum(labels * (1 - softmax(logits))), epsilon = 2, per row",
      _optax_poly, [X_POLY, Y_POLY], _by_row(_poly_row)),
    S("optax_cosine_decay_schedule_near_its_end", "cosine_decay",
      _OPTAX + "schedules/_schedule.py cosine_decay_schedule: 0.5 (1 + cos(pi * count / decay_steps)), "
      "count near decay_steps",
      lambda t, n: 0.5 * (1 + pt.cos(_PI * t / n)), [T_COS, N_COS],
      ew(lambda t, n: mp.cos(_c(_PI) * t / (2 * n)) ** 2)),
]


# --- Keras: activations -------------------------------------------------------------------------

X_MISH = floats(-40.0, -100.0, -20.0, 800.0, 3.0, 0.5, 30.0)
X_TSHR32 = floats(1e-3, -2e-2, 1e-1, 1e-5, 0.5, 3.0, -20.0, dtype="float32")

_KERAS = "Keras keras/src/activations/activations.py "

_KERAS_SPELLINGS = [
    S("keras_mish_as_documented", "mish",
      _KERAS + "mish, as its docstring defines it: x * tanh(softplus(x)), softplus(x) = log(exp(x) + 1)",
      lambda x: x * pt.tanh(pt.log(pt.exp(x) + 1)), [X_MISH], ew(lambda x: x * mp.tanh(_softplus(x)))),
    S("keras_tanh_shrink_f32", "tanh_shrink",
      _KERAS + "tanh_shrink, as its docstring defines it: x - tanh(x), float32",
      lambda x: x - pt.tanh(x), [X_TSHR32], ew(_wide(lambda x: x - mp.tanh(x))), "float32"),
]


# --- PyTorch: torch.nn.functional and its modules' documentation --------------------------------

X_PNLL, T_PNLL = (floats(np.log(1e10), np.log(1e12) + 1e-6, np.log(1e8) - 1e-4, 1.0, -2.0, np.log(1e15)),
                  floats(1e10, 1e12, 1e8, 3.0, 0.5, 1e15))
X_SM32 = np.array([[100.0, -100.0, 3.0], [20.0, 30.0, 25.0], [0.5, -1.0, 2.0], [1e-3, -2e-3, 0.0]], dtype="float32")
Y_SM32 = np.array([[-1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, -1.0, -1.0], [1.0, 1.0, -1.0]], dtype="float32")
X_SPB, B_SPB = floats(-4e4, -30.0, 0.5, 15.0, 1990.0, -1e-3, 10.0), floats(1e-3, 2.0, 1.0, 1.2, 0.01, 1e5, 1.9)
X_COSS = np.array([[1e160, 2e160, 3e160], [1e-3, 0.5, 0.25], [1.0, 2.0, 3.0], [3e200, -4e200, 0.0]])
Y_COSS = np.array([[1.0, 1.0, 1.0], [2.0, -1.0, 0.5], [-1.0, 0.5, 2.0], [1e-200, 2e-200, 3e-200]])
X_BCEW, Y_BCEW, W_BCEW = (floats(800.0, -800.0, 40.0, -40.0, 0.5, 3.0), floats(0.0, 1.0, 1.0, 0.0, 0.3, 0.9),
                          floats(2.0, 3.0, 0.5, 1.0, 2.0, 1.5))

_TORCH = "PyTorch torch/nn/"


def _torch_poisson_nll(x, t):
    """PyTorch poisson_nll_loss(log_input=True, full=True): exp(input) - target * input, plus the Stirling term
    target * log(target) - target + 0.5 * log(2 * pi * target) where target > 1."""
    stirling = t * pt.log(t) - t + 0.5 * pt.log(_TWO_PI * t)
    return pt.exp(x) - t * x + pt.switch(t > 1, stirling, 0.0)


def _torch_cosine_similarity(x, y):
    """PyTorch cosine_similarity as its documentation writes it: x1 . x2 / max(|x1| |x2|, eps), eps = 1e-8."""
    norms = pt.sqrt(pt.sum(x**2, axis=-1)) * pt.sqrt(pt.sum(y**2, axis=-1))
    return pt.sum(x * y, axis=-1) / pt.maximum(norms, 1e-8)


_TORCH_SPELLINGS = [
    S("torch_poisson_nll_loss_full_near_the_fit", "poisson_nll",
      _TORCH + "functional.py poisson_nll_loss with log_input and full: exp(input) - target * input + "
      "(target * log(target) - target + 0.5 * log(2 * pi * target)) where target > 1, input near log(target)",
      _torch_poisson_nll, [X_PNLL, T_PNLL], ew(_wide(_poisson_nll_full))),
    S("torch_soft_margin_loss_rows_f32", "soft_margin_loss",
      _TORCH + "modules/loss.py SoftMarginLoss, as its documentation writes it: sum_i log(1 + exp(-y[i] x[i])) "
      "/ x.nelement(), per row, float32",
      lambda x, y: pt.mean(pt.log(1 + pt.exp(-y * x)), axis=-1), [X_SM32, Y_SM32],
      _by_row(lambda x, y: mp.fsum(_softplus(-a * b) for a, b in zip(x, y, strict=True)) / len(x)), "float32"),
    S("torch_softplus_with_beta_and_threshold", "softplus_beta",
      _TORCH + "modules/activation.py Softplus, as its documentation writes it: 1/beta * log(1 + exp(beta * x)), "
      "reverting to x where beta * x > threshold (20)",
      lambda x, b: pt.switch(x * b > 20, x, pt.log(1 + pt.exp(b * x)) / b), [X_SPB, B_SPB],
      ew(lambda x, b: x if x * b > 20 else _softplus(b * x) / b)),
    S("torch_cosine_similarity_as_documented", "cosine_similarity",
      _TORCH + "functional.py cosine_similarity, as its documentation writes it: x1 . x2 / max(|x1|_2 |x2|_2, eps), "
      "per row",
      _torch_cosine_similarity, [X_COSS, Y_COSS], _by_row(_cosine_row)),
    S("torch_bce_with_logits_pos_weight_as_documented", "weighted_logistic_loss",
      _TORCH + "modules/loss.py BCEWithLogitsLoss with pos_weight, as its documentation writes it: "
      "-[p y log(sigmoid(x)) + (1 - y) log(1 - sigmoid(x))]",
      lambda x, y, w: -(w * y * pt.log(pt.sigmoid(x)) + (1 - y) * pt.log(1 - pt.sigmoid(x))),
      [X_BCEW, Y_BCEW, W_BCEW], ew(lambda x, y, w: w * y * _softplus(-x) + (1 - y) * _softplus(x))),
]


# --- TensorFlow: tensorflow/python/ops/nn_impl.py ------------------------------------------------

X_SCE, Z_SCE = floats(-800.0, 40.0, 36.0, -40.0, 0.5, 2.0, 800.0), floats(0.5, 1.0, 1.0, 0.5, 0.3, 1.0, 0.25)
X_MOM = np.array([[1e8 + 1, 1e8 + 2, 1e8 + 3], [1e9, 1e9 + 0.5, 1e9 - 0.5], [1.0, 2.0, 3.0],
                  [-5e7 + 0.25, -5e7 - 0.25, -5e7], [0.1, 0.2, 0.4]])
X_L2N32 = np.array([[1e20, 1e20, 1e20], [3e19, 4e19, 0.0], [1.0, 2.0, 2.0], [1e-3, 2e-3, 2e-3],
                    [-2e19, 1e19, 2e19]], dtype="float32")

_TF = "TensorFlow tensorflow/python/ops/nn_impl.py "


def _tf_normalize_moments(x):
    """TensorFlow sufficient_statistics and normalize_moments: variance_ss * divisor - (mean_ss * divisor)**2."""
    divisor = pt.reciprocal(pt.cast(x.shape[-1], "float64"))
    return pt.sum(x**2, axis=-1) * divisor - (pt.sum(x, axis=-1) * divisor) ** 2


_TF_SPELLINGS = [
    S("tf_sigmoid_cross_entropy_docstring_form", "logistic_loss",
      _TF + "sigmoid_cross_entropy_with_logits: its docstring's derivation, x - x * z + log(1 + exp(-x)), before "
      "it reformulates for x < 0",
      lambda x, z: x - x * z + pt.log(1 + pt.exp(-x)), [X_SCE, Z_SCE],
      ew(lambda x, z: (1 - z) * x + _softplus(-x))),
    S("tf_normalize_moments_variance_rows", "variance",
      _TF + "normalize_moments (shift None) of sufficient_statistics' sums: variance = sum(x**2) / n - "
      "(sum(x) / n)**2, per row",
      _tf_normalize_moments, [X_MOM], _by_row(_variance_row)),
    S("tf_l2_normalize_f32", "l2_normalize",
      _TF + "l2_normalize: x * rsqrt(maximum(reduce_sum(square(x), keepdims=True), epsilon)), epsilon = 1e-12, "
      "per row, float32",
      lambda x: x * pt.reciprocal(pt.sqrt(pt.maximum(pt.sum(x**2, axis=-1, keepdims=True), _EPS12_32))),
      [X_L2N32], _l2_normalize, "float32"),
]


# --- XGBoost: objectives and the AFT survival loss -------------------------------------------------

X_XLG32, Y_XLG32, W_XLG32 = (floats(20.0, 30.0, 17.0, -20.0, 0.3, 5.0, -90.0, dtype="float32"),
                             floats(1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, dtype="float32"),
                             floats(1.0, 2.0, 0.5, 1.0, 1.0, 3.0, 1.0, dtype="float32"))
Y_AFTR, P_AFTR, S_AFTR = (floats(1.0, 1e-10, 5.0, 100.0, 2.0, 1e3), floats(40.0, 0.0, 3.0, 0.0, 1.0, 2.0),
                          floats(1.0, 1.0, 0.5, 1.0, 2.0, 0.8))
Y_AFTU, P_AFTU, S_AFTU = (floats(1.0, 1e3, 2.0, 50.0, 3.0), floats(800.0, -1.0, 0.5, 0.0, 1.0),
                          floats(1.0, 0.9, 1.0, 0.5, 1.0))
YL_AFTI, YU_AFTI, P_AFTI, S_AFTI = (floats(1.0, 1.0, 2.0, 1e3, 0.5, 10.0), floats(1.5, 1.0001, 3.0, 2e3, 4.0, 11.0),
                                    floats(40.0, 20.0, 0.0, 0.0, 0.3, 1.0), floats(1.0, 1.0, 1.0, 1.0, 1.0, 2.0))
Y_AFTG, P_AFTG, S_AFTG = (floats(1.0, 1.0, 1.0, 2.0, 1e4, 1.0), floats(1e-10, -1e-12, 800.0, 0.5, 0.0, -3.0),
                          floats(1.0, 1.0, 1.0, 1.0, 1.0, 2.0))
Y_AFTN, P_AFTN, S_AFTN = floats(1.0, 1.0, 2.0, 1e20, 3.0), floats(40.0, -45.0, 0.5, 0.0, 1.0), floats(1.0, 1.0, 1.0, 1.0, 2.0)

_XGB = "XGBoost src/"
_XGB_AFT = _XGB + "common/survival_util.h AFTLoss with probability_distribution.h ExtremeDistribution "


def _extreme_z(y, p, s):
    """The AFT loss's z = (log(y) - y_pred) / sigma."""
    return (pt.log(y) - p) / s


def _extreme_cdf(z):
    """ExtremeDistribution::CDF: w = exp(z); 1 - exp(-w)."""
    return 1 - pt.exp(-pt.exp(z))


def _extreme_pdf(z):
    """ExtremeDistribution::PDF: w = exp(z); w * exp(-w)."""
    w = pt.exp(z)
    return w * pt.exp(-w)


def _aft_uncensored_gradient(y, p, s):
    """AFTLoss::Gradient, uncensored: GradPDF(z) / (sigma * PDF(z)), GradPDF = (1 - w) * PDF(z)."""
    z = _extreme_z(y, p, s)
    return (1 - pt.exp(z)) * _extreme_pdf(z) / (s * _extreme_pdf(z))


def _aft_normal_gradient(y, p, s):
    """AFTLoss::Gradient with NormalDistribution, uncensored: GradPDF(z) / (sigma * PDF(z)), GradPDF = -z * PDF(z),
    PDF(z) = exp(-z * z / 2) / sqrt(2 pi)."""
    z = _extreme_z(y, p, s)
    pdf = pt.exp(-z * z / 2.0) / np.sqrt(2.0 * np.pi)
    return -z * pdf / (s * pdf)


_XGBOOST_SPELLINGS = [
    S("xgboost_logistic_gradient_f32", "logistic_gradient",
      _XGB + "objective/logistic_obj.h LogisticGradient: (Sigmoid(predt) - label) * weight, float32 (its "
      "predictions are floats)",
      lambda x, y, w: (pt.sigmoid(x) - y) * w, [X_XLG32, Y_XLG32, W_XLG32],
      ew(_wide(lambda x, y, w: (_sig(x) - y) * w)), "float32"),
    S("xgboost_aft_extreme_right_censored_loss", "aft_extreme_loss",
      _XGB_AFT + "right-censored: -log(cdf_u - cdf_l), cdf_u = 1, cdf_l = 1 - exp(-exp(z)) (its kEps guard left out)",
      lambda y, p, s: -pt.log(1 - _extreme_cdf(_extreme_z(y, p, s))), [Y_AFTR, P_AFTR, S_AFTR],
      ew(lambda y, p, s: mp.exp((mp.log(y) - p) / s))),
    S("xgboost_aft_extreme_uncensored_loss", "aft_extreme_loss",
      _XGB_AFT + "uncensored: -log(PDF(z) / (sigma * y)), PDF(z) = w exp(-w), w = exp(z) (its kEps guard left out)",
      lambda y, p, s: -pt.log(_extreme_pdf(_extreme_z(y, p, s)) / (s * y)), [Y_AFTU, P_AFTU, S_AFTU],
      ew(lambda y, p, s: mp.exp((mp.log(y) - p) / s) - (mp.log(y) - p) / s + mp.log(s * y))),
    S("xgboost_aft_extreme_interval_censored_loss", "aft_extreme_loss",
      _XGB_AFT + "interval-censored: -log(CDF(z_u) - CDF(z_l)), CDF(z) = 1 - exp(-exp(z))",
      lambda yl, yu, p, s: -pt.log(_extreme_cdf(_extreme_z(yu, p, s)) - _extreme_cdf(_extreme_z(yl, p, s))),
      [YL_AFTI, YU_AFTI, P_AFTI, S_AFTI], ew(_aft_extreme_interval)),
    S("xgboost_aft_extreme_uncensored_gradient", "aft_extreme_gradient",
      _XGB_AFT + "Gradient, uncensored: GradPDF(z) / (sigma * PDF(z)), GradPDF(z) = (1 - w) * PDF(z) (its limit "
      "and clip left out)",
      _aft_uncensored_gradient, [Y_AFTG, P_AFTG, S_AFTG], ew(lambda y, p, s: -mp.expm1((mp.log(y) - p) / s) / s)),
    S("xgboost_aft_normal_uncensored_gradient", "aft_normal_gradient",
      _XGB + "common/survival_util.h AFTLoss::Gradient with probability_distribution.h NormalDistribution, "
      "uncensored: GradPDF(z) / (sigma * PDF(z)), GradPDF(z) = -z * PDF(z) (its limit and clip left out)",
      _aft_normal_gradient, [Y_AFTN, P_AFTN, S_AFTN], ew(lambda y, p, s: -(mp.log(y) - p) / s / s)),
]


# --- LightGBM: objectives and metrics --------------------------------------------------------------

X_LBH, Y_LBH, S_LBH = (floats(-40.0, 40.0, -800.0, -15.0, 0.3, -2.0), floats(1.0, -1.0, 1.0, 1.0, 1.0, -1.0),
                       floats(1.0, 1.0, 2.0, 2.0, 1.0, 0.5))
S_XLG, Y_XLG, W_XLG = (floats(-40.0, -25.0, -800.0, 0.5, 3.0, 40.0), floats(0.5, 0.5, 0.5, 1.0, 0.3, 1.0),
                       floats(1.0, 2.0, 1.0, 0.5, 1.0, 3.0))
S_XLH, Y_XLH, W_XLH = (floats(-20.0, -10.0, 0.5, 2.0, -30.0, 5.0), floats(0.5, 1.0, 0.3, 0.0, 1.0, 0.7),
                       floats(2.0, 0.5, 1.5, 3.0, 2.0, 1.0))
P_FAIR, T_FAIR, C_FAIR = (floats(1e-10, 1.0000001, 3.0, 1e5, 2e-6, 0.5), floats(0.0, 1.0, 1.0, 0.0, 0.0, 0.25),
                          floats(1.0, 1e3, 1.0, 1.0, 2.0, 1e-3))

_LGBM = "LightGBM src/"


def _lgbm_binary_hessian(x, y, s):
    """LightGBM BinaryLogloss::GetGradients: response = -label * sigmoid / (1 + exp(label * sigmoid * score));
    hessian = |response| * (sigmoid - |response|), label in {-1, 1}."""
    abs_response = pt.abs(-y * s / (1 + pt.exp(y * s * x)))
    return abs_response * (s - abs_response)


def _lgbm_xentlambda_gradient(s, y, w):
    """LightGBM CrossEntropyLambda::GetGradients with weights: (1 - y / z) * w / (1 + 1 / exp(score)),
    z = 1 - exp(-w * log1p(exp(score)))."""
    z = 1 - pt.exp(-w * pt.log1p(pt.exp(s)))
    return (1 - y / z) * w / (1 + 1 / pt.exp(s))


def _lgbm_xentlambda_hessian(s, y, w):
    """LightGBM CrossEntropyLambda::GetGradients' hessian: c = 1 / (1 - z); a = w epf / (1 + epf)**2;
    b = c / (c - 1)**2 * (1 + w epf - c); a * (1 + y * b), epf = exp(score)."""
    epf = pt.exp(s)
    z = 1 - pt.exp(-w * pt.log1p(epf))
    c = 1 / (1 - z)
    a = w * epf / ((1 + epf) * (1 + epf))
    d = c - 1
    return a * (1 + y * ((c / (d * d)) * (1 + w * epf - c)))


_LIGHTGBM_SPELLINGS = [
    S("lightgbm_binary_logloss_hessian", "logistic_hessian",
      _LGBM + "objective/binary_objective.hpp BinaryLogloss::GetGradients: |response| * (sigmoid - |response|), "
      "response = -label sigmoid / (1 + exp(label sigmoid score))",
      _lgbm_binary_hessian, [X_LBH, Y_LBH, S_LBH],
      ew(lambda x, y, s: s * s * _sig(y * s * x) * _sig(-y * s * x))),
    S("lightgbm_cross_entropy_lambda_gradient", "xentlambda_gradient",
      _LGBM + "objective/xentropy_objective.hpp CrossEntropyLambda::GetGradients (weighted): "
      "(1 - y / z) * w / (1 + exp(-score)), z = 1 - exp(-w log1p(exp(score)))",
      _lgbm_xentlambda_gradient, [S_XLG, Y_XLG, W_XLG], ew(_xentlambda_gradient)),
    S("lightgbm_cross_entropy_lambda_hessian", "xentlambda_hessian",
      _LGBM + "objective/xentropy_objective.hpp CrossEntropyLambda::GetGradients' hessian (weighted): "
      "a * (1 + y * b), b = c / (c - 1)**2 * (1 + w exp(score) - c), c = 1 / (1 - z)",
      _lgbm_xentlambda_hessian, [S_XLH, Y_XLH, W_XLH], ew(_wide(_xentlambda_hessian))),
    S("lightgbm_fair_loss_metric", "fair_loss",
      _LGBM + "metric/regression_metric.hpp FairLossMetric::LossOnPoint: x = |score - label|; "
      "c * x - c * c * log1p(x / c)",
      lambda p, t, c: c * pt.abs(p - t) - c * c * pt.log1p(pt.abs(p - t) / c), [P_FAIR, T_FAIR, C_FAIR],
      ew(_wide(lambda p, t, c: c * c * (abs(p - t) / c - mp.log1p(abs(p - t) / c))))),
]


# --- Julia: StatsFuns.jl and SpecialFunctions.jl --------------------------------------------------

A_MVG = floats(200.0, 180.0, 1.5, 3.0, 1e3, 1.2)
X_FD, N1_FD, N2_FD = (floats(1.0, 1e-3, 50.0, 2.5, 1e-8, 3.0), floats(400.0, 10.0, 6.0, 3.0, 1e3, 5.0),
                      floats(500.0, 1e9, 400.0, 7.0, 20.0, 2.0))
X_NLP, M_NLP, S_NLP = (floats(40.0, -1e3, 0.5, 3.0, 1e-200, -3.0), floats(0.0, 0.0, 0.0, 1.0, 0.0, 1.0),
                       floats(1.0, 2.0, 1.0, 0.5, 1e-300, 2.0))
K_BIN, N_BIN, P_BIN = (floats(0.0, 3.0, 100.0, 5.0, 2.0, 0.0, 7.0), floats(1e6, 10.0, 300.0, 20.0, 1e8, 1e12, 12.0),
                       floats(1e-10, 0.3, 0.5, 1e-200, 1e-9, 1e-20, 0.6))
X_LECX = floats(-30.0, -27.0, -5.0, 0.0, 3.0, 30.0, -1e3)
X_LECS = floats(30.0, 27.0, 100.0, 5.0, 0.0, -3.0, 1e3)
X_LAG = floats(-200.5, -180.25, 175.0, 0.5, -0.5, -3.7, 1e-300)

_SF = "StatsFuns.jl src/"
_SPF = "SpecialFunctions.jl src/"


def _fdist_density_logged(x, n1, n2):
    """The F density (n1/n2)**(n1/2) x**(n1/2 - 1) (1 + n1 x / n2)**(-(n1 + n2)/2) / B(n1/2, n2/2), B through gamma."""
    beta = pt.gamma(n1 / 2) * pt.gamma(n2 / 2) / pt.gamma((n1 + n2) / 2)
    return pt.log((n1 / n2) ** (n1 / 2) * x ** (n1 / 2 - 1) * (1 + n1 / n2 * x) ** (-(n1 + n2) / 2) / beta)


def _binomial_pmf_logged(k, n, p):
    """The binomial pmf n! / (k! (n - k)!) p**k (1 - p)**(n - k), the factorials through gamma, logged."""
    return pt.log(pt.gamma(n + 1) / (pt.gamma(k + 1) * pt.gamma(n - k + 1)) * p**k * (1 - p) ** (n - k))


_JULIA_SPELLINGS = [
    S("statsfuns_logmvgamma_through_gamma", "logmvgamma",
      _SF + "misc.jl logmvgamma (p = 3), its definition logged: log(pi**(p(p-1)/4) prod_j gamma(a + (1 - j)/2))",
      lambda a: pt.log(_PI_1_5 * pt.gamma(a) * pt.gamma(a - 0.5) * pt.gamma(a - 1)), [A_MVG],
      ew(lambda a: mp.log(_c(_PI_1_5)) + mp.loggamma(a) + mp.loggamma(a - mp.mpf(0.5)) + mp.loggamma(a - 1))),
    S("statsfuns_fdist_density_logged", "fdist_logpdf",
      _SF + "distrs/fdist.jl fdistlogpdf written as the log of the F density (the beta function through gamma)",
      _fdist_density_logged, [X_FD, N1_FD, N2_FD], ew(_fdist_logpdf)),
    S("statsfuns_normal_density_logged", "normal_logpdf",
      _SF + "distrs/norm.jl normlogpdf written as the log of normpdf(mu, sigma, x) = exp(-z**2 / 2) * invsqrt2pi "
      "/ sigma, z = (x - mu) / sigma",
      lambda x, m, s: pt.log(pt.exp(-(((x - m) / s) ** 2) / 2) * _INVSQRT2PI / s), [X_NLP, M_NLP, S_NLP],
      ew(lambda x, m, s: -((x - m) / s) ** 2 / 2 + mp.log(_c(_INVSQRT2PI)) - mp.log(s))),
    S("statsfuns_binomial_pmf_logged", "binomial_logpmf",
      _SF + "distrs/binom.jl binomlogpdf written as the log of the binomial pmf, the factorials through gamma",
      _binomial_pmf_logged, [K_BIN, N_BIN, P_BIN], ew(_binom_logpmf)),
    S("specialfunctions_log_of_erfcx", "logerfcx",
      _SPF + "erf.jl logerfcx, 'the accurate version of ln(erfcx(x)) for large and negative x', written "
      "ln(erfcx(x))",
      lambda x: pt.log(pt.erfcx(x)), [X_LECX], ew(lambda x: mp.log(mp.exp(x * x) * mp.erfc(x)))),
    S("specialfunctions_logerfcx_split_by_hand", "logerfcx",
      _SPF + "erf.jl logerfcx written from erfcx's definition exp(x**2) erfc(x) as x**2 + log(erfc(x))",
      lambda x: x**2 + pt.log(pt.erfc(x)), [X_LECS], ew(lambda x: x * x + mp.log(mp.erfc(x)))),
    S("specialfunctions_logabsgamma_naive", "logabsgamma",
      _SPF + "gamma.jl logabsgamma, as its docstring defines it: log(abs(gamma(x))), at negative and large x",
      lambda x: pt.log(pt.abs(pt.gamma(x))), [X_LAG], ew(lambda x: mp.log(abs(mp.gamma(x))))),
]


# --- Stan math: functions no other set used ------------------------------------------------------

Y_RAY = np.array([[1e-9, 2e-9, 1e-8], [0.5, 1.0, 2.0], [1e-5, 3.0, 40.0], [1e-160, 1.0, 1.0]])
S_RAY = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 1.0]])
Y_EMN = np.array([[40.0, 35.0, 50.0], [-10.0, -12.0, -8.0], [0.5, 1.0, 2.0], [-30.0, 3.0, 1.0]])
S_EMN = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 0.5, 2.0], [1.0, 1.0, 1.0]])
L_EMN = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 2.0, 0.5], [1.0, 1.0, 1.0]])

_STAN = "Stan math stan/math/prim/prob/"


def _stan_rayleigh_lcdf(y, s):
    """Stan rayleigh_lcdf: sum(log1m(exp(-0.5 * y * (y * inv_sigma * inv_sigma))))."""
    inv_sigma = 1 / s
    return pt.sum(pt.log1p(-pt.exp(-0.5 * y * (y * inv_sigma * inv_sigma))), axis=-1)


def _stan_exp_mod_normal_lcdf(y, s, lam):
    """Stan exp_mod_normal_lcdf (mu = 0): sum(log(0.5 + 0.5 erf(sd) - exp(0.5 v**2 - lambda y) * 0.5 (1 + erf(sd
    - v INV_SQRT_TWO)))), sd = y INV_SQRT_TWO / sigma, v = lambda sigma."""
    v = lam * s
    scaled_diff = y * _INV_SQRT2 * (1 / s)
    erf_calc = 0.5 * (1 + pt.erf(scaled_diff - v * _INV_SQRT2))
    cdf_n = 0.5 + 0.5 * pt.erf(scaled_diff) - pt.exp(0.5 * v**2 - lam * y) * erf_calc
    return pt.sum(pt.log(cdf_n), axis=-1)


_STAN_SPELLINGS = [
    S("stan_rayleigh_lcdf_as_written", "rayleigh_logcdf",
      _STAN + "rayleigh_lcdf.hpp: sum(log1m(exp(-0.5 * y * y_div_sigma_square))), per row",
      _stan_rayleigh_lcdf, [Y_RAY, S_RAY],
      _by_row(lambda y, s: mp.fsum(mp.log(-mp.expm1(-a * a / (2 * b * b))) for a, b in zip(y, s, strict=True)))),
    S("stan_exp_mod_normal_lcdf_as_written", "exgaussian_logcdf",
      _STAN + "exp_mod_normal_lcdf.hpp (mu = 0): sum(log(cdf_n)), cdf_n = 0.5 + 0.5 erf(scaled_diff) - exp_term "
      "* erf_calc, per row",
      _stan_exp_mod_normal_lcdf, [Y_EMN, S_EMN, L_EMN], _by_row(_wide(_exp_mod_normal_lcdf_row))),
]


# --- Chainer: losses and distributions ---------------------------------------------------------------

X_BNLL = np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
Y_BNLL = np.array([[40.0, 38.0, 45.0], [0.5, -2.0, 3.0], [36.0, -37.0, 39.0], [800.0, 20.0, -30.0]])
M_GKL32 = np.array([[1e-4, -2e-4, 0.0], [0.5, 1.0, -1.0], [1e-3, 0.0, 2e-3]], dtype="float32")
L_GKL32 = np.array([[1e-3, -2e-3, 5e-4], [0.1, -0.5, 2.0], [1e-4, -1e-4, 3e-4]], dtype="float32")
K_GEN, T_GEN = floats(1e12, 1e8, 3.0, 0.5, 1e15, 50.0), floats(1.0, 2.0, 1.0, 0.5, 1e-3, 1.0)
A_BEN, B_BEN = floats(1e10, 1e12, 2.0, 0.5, 1e8, 5e11), floats(1e10, 3e12, 3.0, 0.5, 1.0, 1.0)
A_DEN = np.array([[1e10, 2e10, 3e10], [1.0, 2.0, 3.0], [1e12, 1e12, 1e12], [0.5, 0.5, 5e11]])

_CHAINER = "Chainer chainer/"


def _chainer_dirichlet_entropy(alpha):
    """Chainer Dirichlet.entropy: _lbeta(alpha) + (alpha0 - K) digamma(alpha0) - sum((alpha - 1) digamma(alpha)),
    _lbeta(alpha) = sum(lgamma(alpha)) - lgamma(alpha0)."""
    alpha0 = pt.sum(alpha, axis=-1)
    lbeta = pt.sum(pt.gammaln(alpha), axis=-1) - pt.gammaln(alpha0)
    return lbeta + (alpha0 - alpha.shape[-1]) * pt.psi(alpha0) - pt.sum((alpha - 1) * pt.psi(alpha), axis=-1)


def _chainer_beta_entropy(a, b):
    """Chainer Beta.entropy: _lbeta(a, b) - (a - 1) digamma(a) - (b - 1) digamma(b) + (a + b - 2) digamma(a + b)."""
    lbeta = pt.gammaln(a) + pt.gammaln(b) - pt.gammaln(a + b)
    return lbeta - (a - 1) * pt.psi(a) - (b - 1) * pt.psi(b) + (a + b - 2) * pt.psi(a + b)


_CHAINER_SPELLINGS = [
    S("chainer_bernoulli_nll_rows", "bernoulli_nll",
      _CHAINER + "functions/loss/vae.py bernoulli_nll (reduce='sum' per row): sum(softplus(y) - x * y), "
      "x the targets, y the logits",
      lambda x, y: pt.sum(pt.softplus(y) - x * y, axis=-1), [X_BNLL, Y_BNLL],
      _by_row(_wide(lambda x, y: mp.fsum((1 - a) * b + _softplus(-b) for a, b in zip(x, y, strict=True))))),
    S("chainer_gaussian_kl_divergence_rows_f32", "gaussian_kl",
      _CHAINER + "functions/loss/vae.py gaussian_kl_divergence (reduce='sum' per row): "
      "sum((mean * mean + exp(ln_var) - ln_var - 1) * 0.5), float32",
      lambda m, lv: pt.sum((m * m + pt.exp(lv) - lv - 1) * 0.5, axis=-1), [M_GKL32, L_GKL32],
      _by_row(_wide(lambda m, lv: mp.fsum(a * a + mp.expm1(b) - b for a, b in zip(m, lv, strict=True)) / 2)),
      "float32"),
    S("chainer_gamma_entropy_large_shape", "gamma_entropy",
      _CHAINER + "distributions/gamma.py Gamma.entropy: k + log(theta) + lgamma(k) + (1 - k) digamma(k)",
      lambda k, th: k + pt.log(th) + pt.gammaln(k) + (1 - k) * pt.psi(k), [K_GEN, T_GEN], ew(_wide(_gamma_entropy))),
    S("chainer_beta_entropy_large_parameters", "beta_entropy",
      _CHAINER + "distributions/beta.py Beta.entropy with its _lbeta (lgamma(a) + lgamma(b) - lgamma(a + b))",
      _chainer_beta_entropy, [A_BEN, B_BEN], ew(_wide(_beta_entropy))),
    S("chainer_dirichlet_entropy_rows", "dirichlet_entropy",
      _CHAINER + "distributions/dirichlet.py Dirichlet.entropy with its _lbeta, per row",
      _chainer_dirichlet_entropy, [A_DEN], _by_row(_wide(_dirichlet_entropy_row))),
]


# --- Pyro: distributions ---------------------------------------------------------------------------

C_VMF = np.array([[800.0, 0.0, 0.0], [0.0, 600.0, 800.0], [1.0, 2.0, 2.0], [1e-3, 0.0, 0.0], [0.0, 0.0, 720.0]])
V_VMF = np.array([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
V_SAL, S_SAL, A_SAL, K_SAL = (floats(800.0, -800.0, 1000.0, 0.5, -2.0, 3.0), floats(1.0, 1.0, 1.0, 1.0, 2.0, 0.5),
                              floats(1.0, 2.0, 1.0, 0.5, 1.0, 1.5), floats(1.0, 1.0, 1.0, 1.0, 0.5, 2.0))
C_PRN = np.array([[-40.0, 0.0], [-100.0, 0.0], [3.0, 4.0], [0.5, -0.5], [-1e3, 0.0], [-5.0, 0.25]])
V_PRN = np.array([[1.0, 0.0], [1.0, 0.0], [0.6, 0.8], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
X_LMM = np.array([[800.0, 799.0, 0.0], [-800.0, -801.0, -1000.0], [0.1, 0.2, 0.3]])
Y_LMM = np.array([[1.0, 700.0], [0.5, -10.0], [2.0, 3.0]])

_PYRO = "Pyro pyro/distributions/"


def _pyro_von_mises_3d(c, v):
    """Pyro VonMises3D.log_prob: scale = |concentration|; (concentration * value).sum(-1) + log(scale)
    - log(sinh(scale)) - log(4 pi)."""
    scale = pt.sqrt(pt.sum(c**2, axis=-1))
    return pt.sum(c * v, axis=-1) + pt.log(scale) - pt.log(pt.sinh(scale)) - _LOG_4PI


def _pyro_soft_asymmetric_laplace(v, s, a, k):
    """Pyro SoftAsymmetricLaplace.log_prob (loc = 0) through its comment's closed forms:
    left = 1/2 e^((2 L x + S^2)/(2 L^2)) erfc((L x + S^2)/(sqrt(2) L S)), right likewise with R = 1/L and -x;
    log(left + right) - log(L + R) - log(scale)."""
    x, big_r, ss = v / s, 1 / a, k * k
    left = 0.5 * pt.exp((2 * a * x + ss) / (2 * a**2)) * pt.erfc((a * x + ss) / (_SQRT2 * a * k))
    right = 0.5 * pt.exp((ss - 2 * big_r * x) / (2 * big_r**2)) * pt.erfc((ss - big_r * x) / (_SQRT2 * big_r * k))
    return pt.log(left + right) - pt.log(a + big_r) - pt.log(s)


def _pyro_projected_normal_2(c, v):
    """Pyro ProjectedNormal's _log_prob_2: t = c . v; perp = -r2 / 2 - log(2 pi) / 2, r2 = c . c - t**2;
    para = log((exp(-t**2 / 2) sqrt(2 / pi) + t erfc(-t / sqrt(2))) / 2) (its _safe_log's clamp left out)."""
    t = pt.sum(c * v, axis=-1)
    t2 = t**2
    perp = (pt.sum(c * c, axis=-1) - t2) * -0.5 - 0.5 * _LOG_2PI
    para = pt.log((pt.exp(t2 * -0.5) * _SQRT_2_OVER_PI + t * pt.erfc(t * -_SQRT_HALF)) / 2)
    return para + perp


_PYRO_SPELLINGS = [
    S("pyro_von_mises_3d_log_prob", "von_mises_fisher_logpdf",
      _PYRO + "von_mises_3d.py VonMises3D.log_prob: (c * v).sum(-1) + log(|c|) - log(sinh(|c|)) - log(4 pi), "
      "large concentrations",
      _pyro_von_mises_3d, [C_VMF, V_VMF],
      _by_row(_von_mises_3d_row)),
    S("pyro_soft_asymmetric_laplace_from_its_comment", "soft_asymmetric_laplace_logpdf",
      _PYRO + "asymmetriclaplace.py SoftAsymmetricLaplace.log_prob (loc = 0) written through its comment's "
      "closed forms left = 1/2 e^(...) erfc(...) and right = 1/2 e^(...) erfc(...)",
      _pyro_soft_asymmetric_laplace, [V_SAL, S_SAL, A_SAL, K_SAL], ew(_soft_asymmetric_laplace)),
    S("pyro_projected_normal_2d_log_prob", "projected_normal_logpdf",
      _PYRO + "projected_normal.py _log_prob_2 (dim 2): para_part, the log of its comment's closed form "
      "(sqrt(2/pi) e^(-t^2/2) + t erfc(-t/sqrt(2))) / 2, plus perp_part, per row",
      _pyro_projected_normal_2, [C_PRN, V_PRN], _by_row(_wide(_projected_normal_row))),
    S("pyro_logmatmulexp_as_documented", "logmatmulexp",
      _PYRO + "hmm.py _logmatmulexp, 'numerically stable version of (x.exp() @ y.exp()).log()', written that way",
      lambda x, y: pt.log(pt.dot(pt.exp(x), pt.exp(y))), [X_LMM, Y_LMM], _logmatmulexp),
]


# --- Theano and Aesara: nnet's cross-entropy, issue #461 ------------------------------------------

X_TBCE32, T_TBCE32 = (floats(20.0, -20.0, 100.0, -100.0, 0.5, 3.0, 16.0, dtype="float32"),
                      floats(0.0, 1.0, 1.0, 0.0, 0.3, 1.0, 1.0, dtype="float32"))
X_LPE = np.array([[400.0, 400.0, 10.0], [-400.0, -400.0, -1.0], [1.0, 2.0, 3.0], [710.0, -5.0, 0.5]])

_THEANO_SPELLINGS = [
    S("theano_binary_crossentropy_of_sigmoid_f32", "logistic_loss",
      "Theano theano/tensor/nnet/nnet.py binary_crossentropy(sigmoid(x), target) = -(target * log(output) + "
      "(1.0 - target) * log(1.0 - output)) (Theano #4014, #5758), float32",
      lambda x, t: -(t * pt.log(pt.sigmoid(x)) + (1.0 - t) * pt.log(1.0 - pt.sigmoid(x))), [X_TBCE32, T_TBCE32],
      ew(lambda x, t: t * _softplus(-x) + (1 - t) * _softplus(x)), "float32"),
    S("aesara_461_log_prod_exp_rows", "log_prod_exp",
      "Aesara aesara-devs/aesara #461 (LogSumExp of -inf): its res2 = log(prod(exp(x))), per row",
      lambda x: pt.log(pt.prod(pt.exp(x), axis=-1)), [X_LPE], _by_row(mp.fsum)),
]


# --- GPy and GPyTorch: likelihoods, links and priors --------------------------------------------------

F_LE1 = floats(40.0, 30.0, 800.0, -800.0, 0.5, -3.0, 20.0)
F_CLL = floats(1e-10, -1e-12, 800.0, 3.0, -2.0, 1e-5, 720.0)
LF_GAM, Y_GAM, B_GAM = (floats(200.0, 2.0, 0.5, 1e3, 3.0, 100.0), floats(150.0, 1.0, 3.0, 1e3, 0.1, 2.0),
                        floats(1.0, 1.5, 2.0, 1.0, 0.5, 2.0))
X_HSP, S_HSP = floats(1e10, 1e20, 1.0, 0.1, 1e-200, 3.0), floats(1.0, 0.5, 1.0, 1.0, 1.0, 2.0)

_GPY = "GPy GPy/likelihoods/"


def _gpy_log_ex_1_d3(f):
    """GPy Log_ex_1.d3transf_df3: aux = ef / (1 + ef); daux_df = aux (1 - aux); daux_df - 2 aux daux_df."""
    ef = pt.exp(f)
    aux = ef / (1.0 + ef)
    daux_df = aux * (1.0 - aux)
    return daux_df - (2.0 * aux * daux_df)


def _gpy_gamma_logpdf(lf, y, b):
    """GPy Gamma.logpdf_link: alpha = link_f * beta; alpha log(beta) - log(gamma(alpha)) + (alpha - 1) log(y)
    - beta y."""
    alpha = lf * b
    return alpha * pt.log(b) - pt.log(pt.gamma(alpha)) + (alpha - 1) * pt.log(y) - b * y


def _gpytorch_horseshoe(x, s):
    """GPyTorch HorseshoePrior.log_prob: A = (scale / X)**2; lb = K / 2 log(1 + 4 A); ub = K log(1 + 2 A);
    log((lb + ub) / 2)."""
    a = (s / x) ** 2
    lb = _K_HS / 2 * pt.log(1 + 4 * a)
    ub = _K_HS * pt.log(1 + 2 * a)
    return pt.log((lb + ub) / 2)


_GP_SPELLINGS = [
    S("gpy_log_ex_1_third_derivative", "softplus_third_derivative",
      _GPY + "link_functions.py Log_ex_1.d3transf_df3: daux_df - 2 aux daux_df, aux = ef / (1 + ef), "
      "daux_df = aux (1 - aux), ef = exp(f)",
      _gpy_log_ex_1_d3, [F_LE1], ew(lambda f: _sig(f) * _sig(-f) * (_sig(-f) - _sig(f)))),
    S("gpy_cloglog_second_derivative", "cloglog_second_derivative",
      _GPY + "link_functions.py Cloglog.d2transf_df2: -exp(f - ef) (ef - 1), ef = exp(f) (safe_exp's clip left out)",
      lambda f: -pt.exp(f - pt.exp(f)) * (pt.exp(f) - 1.0), [F_CLL],
      ew(lambda f: -mp.exp(f - mp.exp(f)) * mp.expm1(f))),
    S("gpy_gamma_likelihood_logpdf_link", "gamma_logpdf",
      _GPY + "gamma.py Gamma.logpdf_link: alpha log(beta) - log(special.gamma(alpha)) + (alpha - 1) log(y) - beta y, "
      "alpha = link_f beta",
      _gpy_gamma_logpdf, [LF_GAM, Y_GAM, B_GAM],
      ew(lambda lf, y, b: lf * b * mp.log(b) - mp.loggamma(lf * b) + (lf * b - 1) * mp.log(y) - b * y)),
    S("gpytorch_horseshoe_prior_log_prob", "horseshoe_logpdf",
      "GPyTorch gpytorch/priors/horseshoe_prior.py HorseshoePrior.log_prob: log((K/2 log(1 + 4A) + K log(1 + 2A)) "
      "/ 2), A = (scale / X)**2, K = 1 / sqrt(2 pi**3)",
      _gpytorch_horseshoe, [X_HSP, S_HSP], ew(_horseshoe)),
]


# --- mlpack and torchmetrics ----------------------------------------------------------------------

X_MISHD = floats(-40.0, -100.0, -20.0, 3.0, 0.5, 800.0, 25.0)
P_R2 = np.array([[1e8 + 1.1, 0.0], [1e8 + 1.9, -1.0], [1e8 + 3.05, 8.0], [1e8 + 4, 2.5]])
Y_R2 = np.array([[1e8 + 1, 0.5], [1e8 + 2, -1.0], [1e8 + 3, 7.0], [1e8 + 4, 3.0]])


def _mlpack_mish_derivative(x):
    """mlpack MishFunction's documented f'(x) = tanh(ln(1+e^x)) + x ((1 - tanh^2(ln(1+e^x))) 1 / (1 + e^-x))."""
    sp = pt.log(1 + pt.exp(x))
    return pt.tanh(sp) + x * ((1 - pt.tanh(sp) ** 2) * (1 / (1 + pt.exp(-x))))


def _torchmetrics_r2(p, y):
    """torchmetrics _r2_score_update and _r2_score_compute (raw_values): tss = sum(y * y) - sum(y) * mean;
    1 - rss / tss, over the observations (axis 0)."""
    sum_obs = pt.sum(y, axis=0)
    tss = pt.sum(y * y, axis=0) - sum_obs * (sum_obs / y.shape[0])
    residual = y - p
    return 1 - pt.sum(residual * residual, axis=0) / tss


_OTHER_SPELLINGS = [
    S("mlpack_mish_derivative_as_documented", "mish_derivative",
      "mlpack src/mlpack/methods/ann/activation_functions/mish_function.hpp MishFunction, its documented f'(x): "
      "tanh(ln(1+e^x)) + x * ((1 - tanh^2(ln(1+e^x))) * 1/(1 + e^{-x}))",
      _mlpack_mish_derivative, [X_MISHD], ew(_wide(_mish_derivative))),
    S("torchmetrics_r2_score_raw_values", "r2_score",
      "torchmetrics src/torchmetrics/functional/regression/r2.py _r2_score_compute (multioutput='raw_values'): "
      "1 - rss / tss, tss = sum_squared_obs - sum_obs * mean_obs, targets far from zero",
      _torchmetrics_r2, [P_R2, Y_R2], _r2_columns),
]

#: The aside spellings.
ASIDE: list[Spelling] = [*_OPTAX_SPELLINGS, *_KERAS_SPELLINGS, *_TORCH_SPELLINGS, *_TF_SPELLINGS, *_XGBOOST_SPELLINGS,
                         *_LIGHTGBM_SPELLINGS, *_JULIA_SPELLINGS, *_STAN_SPELLINGS, *_CHAINER_SPELLINGS,
                         *_PYRO_SPELLINGS, *_THEANO_SPELLINGS, *_GP_SPELLINGS, *_OTHER_SPELLINGS]
