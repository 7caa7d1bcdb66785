"""Unseen spellings: a second held-out set, collected before this session's rules were written.

Same :class:`numerics_corpus.Spelling` type and the same judgement
(:func:`numerics_corpus.accuracy`) as ``numerics_heldout.py``.  Each
spelling is written as upstream code writes it: PyMC's distributions,
``dist_math`` and transforms, or a density or CDF from their docstrings
logged by hand (``pymc/distributions/continuous.py``, ``discrete.py``,
``dist_math.py``, ``pymc/logprob/transforms.py``, PyMC3's
``discrete.py``); PyTensor issues and pull requests on numerical stability
(#1965, #2041, #2244, #2380); and Herbie's benchmarks outside
``bench/hamming`` (``bench/mathematics``, ``bench/numerics``,
``bench/libraries``, ``bench/graphics``, ``bench/regression.fpcore``) at the
commit ``numerics_fpbench.SOURCES`` names.  None is a name or a formula of
``numerics_corpus.py``, ``numerics_heldout.py`` or ``numerics_fpbench.py``.
Each is evaluated at inputs inside its domain where a naive float
evaluation is at risk (overflow, underflow, cancellation), against a closed
form in mpmath (50 digits) that ``numerics_corpus.check_spelling`` checks
against the spelling's own graph evaluated exactly; no reference evaluates
the spelling's own formula where it cancels.  A few FAST_RUN already gets
right (PyTensor's own stabilizers, or the fused kernel's contraction of
``1 - x * x``): those measure that nothing is made worse.
``python benchmarks/numerics.py --unseen`` measures them.

Rule writers: do not read this file (nor the tests' or benchmarks' output
naming its spellings) until the rules are written; it measures how far they
carry to spellings nobody tuned them on.
"""

from __future__ import annotations

from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt

from numerics_corpus import S, Spelling, ew, floats

__all__ = ["UNSEEN"]


#: ``sqrt(2)`` as a float64 constant (a numpy scalar keeps its dtype; a Python ``2.0`` under ``pt.sqrt`` is float32's).
_SQRT2 = np.sqrt(2.0)


# --- closed forms (mpmath) ------------------------------------------------------------------


def _softplus(v: Any) -> Any:
    return mp.log1p(mp.exp(v)) if v < 0 else v + mp.log1p(mp.exp(-v))


def _log1mexp(v: Any) -> Any:
    """log(1 - exp(v)) for v <= 0."""
    return mp.log(-mp.expm1(v))


def _log_ndtr(v: Any) -> Any:
    if v > 0:
        return mp.log1p(-mp.erfc(v / mp.sqrt(2)) / 2)
    return mp.log(mp.erfc(-v / mp.sqrt(2)) / 2)


def _x_minus_sin(v: Any) -> Any:
    """x - sin(x): its series where |x| < 1 (no cancellation), the difference elsewhere."""
    if abs(v) >= 1:
        return v - mp.sin(v)
    return mp.nsum(lambda k: (-1) ** (k + 1) * v ** (2 * k + 1) / mp.factorial(2 * k + 1), [1, mp.inf])


def _sinhc_m1(v: Any) -> Any:
    """sinh(x) / x - 1 through its series for |x| < 1."""
    return mp.nsum(lambda k: v ** (2 * k) / mp.factorial(2 * k + 1), [1, mp.inf])


def _log_diff_sigmoid(a: Any, b: Any) -> Any:
    """log(sigmoid(a) - sigmoid(b)) for a > b: b + log(expm1(a - b)) - softplus(a) - softplus(b)."""
    return b + mp.log(mp.expm1(a - b)) - _softplus(a) - _softplus(b)


def _ordered_logistic(eta: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The log-probabilities of OrderedLogistic's K = 3 categories at each eta (cutpoints c1 < c2)."""
    c1, c2 = c
    rows = [[-_softplus(e - c1), _log_diff_sigmoid(c2 - e, c1 - e), -_softplus(c2 - e)] for e in eta]
    return np.array(rows, dtype=object)


def _discrete_weibull(x: Any, q: Any, b: Any) -> Any:
    """log(q**(x**b) - q**((x+1)**b)) = x**b log q + log(1 - q**((x+1)**b - x**b))."""
    lo, hi = x**b, (x + 1) ** b
    return lo * mp.log(q) + _log1mexp((hi - lo) * mp.log(q))


def _nmse_6_1_a(x: Any, e: Any) -> Any:
    """((1 + 1/e) exp(-(1-e) x) - (1/e - 1) exp(-(1+e) x)) / 2 = exp(-x) (cosh(e x) + sinh(e x) / e)."""
    return mp.exp(-x) * (mp.cosh(e * x) + mp.sinh(e * x) / e)


def _zip_logp0(psi: Any, mu: Any) -> Any:
    """log((1 - psi) + psi exp(-mu)) = log1p(psi expm1(-mu)), the log of a sum of two non-negatives past 1/2."""
    if psi < 0.5:
        return mp.log1p(psi * mp.expm1(-mu))
    return mp.log((1 - psi) + psi * mp.exp(-mu))


# --- PyMC's distributions and transforms, PyTensor's issues ---------------------------------

X_KUMA, A_KUMA, B_KUMA = floats(1e-300, 1e-20, 1e-5, 0.5, 0.9), floats(2.0, 1.0, 3.0, 2.0, 0.5), floats(3.0, 2.0, 0.5, 5.0, 2.0)
X_WEIB32, A_WEIB32, B_WEIB32 = (floats(1e-30, 1e-6, 0.5, 2.0, 9.0, dtype="float32"), floats(2.0, 1.0, 0.5, 3.0, 2.0, dtype="float32"),
                                floats(1.0, 2.0, 1.0, 1.0, 1.0, dtype="float32"))
K_GEOM, P_GEOM = floats(1.0, 5.0, 100.0, 1e6, 3.0), floats(0.5, 1e-10, 1e-20, 1e-3, 0.999)
K_GEOMP, P_GEOMP = floats(1.0, 5.0, 1e12, 1e3, 2.0), floats(0.5, 1e-10, 1e-10, 1e-300, 0.999)
N_BINOM, K_BINOM = floats(10.0, 1e6, 1e15, 1e10, 50.0), floats(3.0, 2.0, 1.0, 5e9, 25.0)
PSI_ZIP, MU_ZIP = floats(0.3, 1.0, 1.0, 0.5, 1e-20), floats(2.0, 800.0, 1e-10, 40.0, 1.0)
X_SIG = floats(-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0)
X_COSHT32 = floats(1.0001, 1.5, 1e10, 1e20, 1e30, dtype="float32")
X_ASINH_JAC = floats(1e-300, -0.5, 3.0, 1e10, 1e200, -1e300)
X_ATANH_JAC = floats(1e-300, 0.5, -0.9, 0.9999999999, -0.99999999999, 1 - 1e-14, -(1 - 3e-15))
X_DW, Q_DW, B_DW = floats(0.0, 1.0, 1100.0, 3.0), floats(0.5, 1 - 1e-12, 0.5, 1e-5), floats(1.0, 2.0, 1.0, 1.0)
X_LOGN, S_LOGN = floats(1e-300, 1e-20, 0.5, 1.0, 20.0, 1e100), floats(1.0, 0.5, 2.0, 1.0, 1.0, 3.0)
X_GUMB, B_GUMB = floats(-3.0, 0.0, 5.0, 40.0, 800.0, -1e-10), floats(1.0, 2.0, 1.0, 1.0, 10.0, 1.0)
N_NB, P_NB = floats(1.0, 10.0, 1e10, 3.0), floats(0.5, 1e-300, 1 - 2**-52, 1e-10)
X_PROD32 = np.full(250, 0.7, dtype="float32")
X_DIVEXP, Y_DIVEXP = floats(1e300, 3.0, 1e-300, 2.0), floats(800.0, 2.0, -800.0, 1e-10)
K_ALAP = floats(1.0, 1 + 2**-30, 1e-5, 3.0, 1e150, 1e200)
X_LOGIS, S_LOGIS = floats(-800.0, -40.0, 0.0, 3.0, 40.0, 800.0), floats(1.0, 2.0, 1.0, 0.5, 1.0, 10.0)
X_EXG, NU_EXG = floats(-40.0, -5.0, 0.0, 3.0, 40.0, 800.0), floats(1.0, 0.5, 2.0, 1.0, 0.1, 1.0)
ETA_ORD, C_ORD = floats(0.0, 40.0, -40.0, 800.0, -800.0, 1e-10), floats(-1.0, 1.0)


def _ordered_logistic_logp(eta, cutpoints):
    """PyMC's OrderedLogistic.compute_p (K = 3), then Categorical's log(p)."""
    pa = pt.sigmoid(cutpoints - pt.shape_padright(eta))
    p_cum = pt.concatenate(
        [pt.zeros_like(pt.shape_padright(pa[..., 0])), pa, pt.ones_like(pt.shape_padright(pa[..., 0]))], axis=-1)
    return pt.log(p_cum[..., 1:] - p_cum[..., :-1])


def _default_log_jac_det(backward):
    """PyMC's ``Transform.log_jac_det`` for ``ndim_supp == 0``: log |d backward(value) / d value|, by ``pt.grad``."""

    def log_jac_det(value):
        jac = pt.reshape(pt.grad(pt.sum(backward(value)), [value]), value.shape)
        return pt.log(pt.abs(jac))

    return log_jac_det


_PYMC = [
    S("kumaraswamy_cdf_logged", "kumaraswamy_logcdf",
      "PyMC continuous.py Kumaraswamy.logcdf (log1mexp(b * log1p(-value**a))) written through its CDF 1 - (1 - x**a)**b",
      lambda x, a, b: pt.log(1 - (1 - x**a) ** b), [X_KUMA, A_KUMA, B_KUMA],
      ew(lambda x, a, b: _log1mexp(b * mp.log1p(-(x**a))))),
    S("weibull_cdf_logged_f32", "weibull_logcdf",
      "PyMC continuous.py Weibull.logcdf (log1mexp(-(value / beta)**alpha)) written through its CDF, floatX float32",
      lambda x, a, b: pt.log(1 - pt.exp(-((x / b) ** a))), [X_WEIB32, A_WEIB32, B_WEIB32],
      ew(lambda x, a, b: _log1mexp(-((x / b) ** a))), "float32"),
    S("geometric_cdf_logged", "geometric_logcdf",
      "PyMC discrete.py Geometric.logcdf (log1mexp(log1p(-p) * value)) written through its CDF 1 - (1 - p)**k",
      lambda k, p: pt.log(1 - (1 - p) ** k), [K_GEOM, P_GEOM], ew(lambda k, p: _log1mexp(k * mp.log1p(-p)))),
    S("geometric_logp_logpow", "geometric_logp",
      "PyMC discrete.py Geometric.logp: log(p) + logpow(1 - p, value - 1), logpow's m * log(x) branch",
      lambda k, p: pt.log(p) + (k - 1) * pt.log(1 - p), [K_GEOMP, P_GEOMP],
      ew(lambda k, p: mp.log(p) + (k - 1) * mp.log1p(-p))),
    S("binomln_factln", "binomln", "PyMC dist_math.binomln: factln(n) - factln(k) - factln(n - k), factln = gammaln(n + 1)",
      lambda n, k: pt.gammaln(n + 1) - pt.gammaln(k + 1) - pt.gammaln(n - k + 1), [N_BINOM, K_BINOM],
      ew(lambda n, k: mp.log(mp.binomial(n, k))), rtol=1e-7),
    S("zip_pmf0_logged", "zip_logp0",
      "PyMC3 discrete.py ZeroInflatedPoisson: the docstring's pmf at 0, (1 - psi) + psi exp(-theta), logged",
      lambda psi, mu: pt.log((1 - psi) + psi * pt.exp(-mu)), [PSI_ZIP, MU_ZIP], ew(_zip_logp0)),
    S("logodds_log_jac_det", "logodds_jacobian",
      "PyMC logprob/transforms.py LogOddsTransform.log_jac_det: log(sigmoid(value)) + log1p(-sigmoid(value))",
      lambda x: pt.log(pt.sigmoid(x)) + pt.log1p(-pt.sigmoid(x)), [X_SIG],
      ew(lambda v: -_softplus(-v) - _softplus(v))),
    S("cosh_log_jac_det_f32", "cosh_jacobian",
      "PyMC logprob/transforms.py CoshTransform.log_jac_det: -log(sqrt(value**2 - 1)), floatX float32",
      lambda x: -pt.log(pt.sqrt(x**2 - 1)), [X_COSHT32], ew(lambda v: -mp.log((v - 1) * (v + 1)) / 2), "float32"),
    S("sinh_transform_default_log_jac_det", "asinh_jacobian",
      "PyMC logprob/transforms.py Transform.log_jac_det's default (log|grad of backward|) for SinhTransform (arcsinh)",
      _default_log_jac_det(pt.arcsinh), [X_ASINH_JAC], ew(lambda v: -mp.log(mp.hypot(1, v)))),
    S("tanh_transform_default_log_jac_det", "atanh_jacobian",
      "PyMC logprob/transforms.py Transform.log_jac_det's default (log|grad of backward|) for TanhTransform (arctanh)",
      _default_log_jac_det(pt.arctanh), [X_ATANH_JAC], ew(lambda v: -mp.log((1 - v) * (1 + v)))),
    S("discrete_weibull_logp", "discrete_weibull_logp",
      "PyMC discrete.py DiscreteWeibull.logp: log(q**(value**beta) - q**((value + 1)**beta))",
      lambda x, q, b: pt.log(pt.power(q, pt.power(x, b)) - pt.power(q, pt.power(x + 1, b))), [X_DW, Q_DW, B_DW],
      ew(_discrete_weibull)),
    S("lognormal_cdf_erfc_logged", "lognormal_logcdf",
      "PyMC continuous.py LogNormal.logcdf (normal_lcdf at log(value)) written as one erfc, mu = 0",
      lambda x, s: pt.log(0.5 * pt.erfc(-pt.log(x) / (s * _SQRT2))), [X_LOGN, S_LOGN],
      ew(lambda x, s: _log_ndtr(mp.log(x) / s))),
    S("gumbel_logccdf_by_hand", "gumbel_logccdf",
      "PyMC continuous.py Gumbel.logcdf (-exp(-(value - mu) / beta)) complemented by hand for a right-censored "
      "likelihood (pymc/logprob's logccdf is log1mexp(logcdf)), mu = 0",
      lambda x, b: pt.log(1 - pt.exp(-pt.exp(-x / b))), [X_GUMB, B_GUMB], ew(lambda x, b: _log1mexp(-mp.exp(-x / b)))),
    S("negative_binomial_mu", "odds_scaled",
      "PyMC discrete.py NegativeBinomial.logp: mu = n * exp(log(1 - p) - log(p))",
      lambda n, p: n * pt.exp(pt.log(1 - p) - pt.log(p)), [N_NB, P_NB], ew(lambda n, p: n * (1 - p) / p)),
    S("sigmoid_pullback_naive", "sigmoid_derivative",
      "pytensor #2041: the sigmoid's pullback sigmoid(x) * (1 - sigmoid(x)), which cancels for large |x|",
      lambda x: pt.sigmoid(x) * (1 - pt.sigmoid(x)), [X_SIG], ew(lambda v: 1 / ((1 + mp.exp(-v)) * (1 + mp.exp(v))))),
    S("log_abs_sqr_prod_f32", "log_sqr_prod", "pytensor #2380 / #2379: log(abs(sqr(prod(x)))) underflows in float32",
      lambda x: pt.log(pt.abs(pt.sqr(pt.prod(x)))), [X_PROD32],
      lambda x: np.asarray(2 * mp.fsum(mp.log(abs(v)) for v in x), dtype=object), "float32"),
    S("div_by_exp", "div_exp", "pytensor #1965: a / exp(b) -> a * exp(-b)", lambda x, y: x / pt.exp(y),
      [X_DIVEXP, Y_DIVEXP], ew(lambda a, b: a * mp.exp(-b))),
    S("asymmetric_laplace_median_log", "log_half_one_plus_sq",
      "pytensor #2244 (pytensor-distributions #60, AsymmetricLaplace median): log((1 + kappa**2) / 2), an int literal",
      lambda k: pt.log((1 + k**2) / 2), [K_ALAP], ew(lambda k: mp.log1p((k - 1) * (k + 1) / 2))),
    S("logistic_density_logged", "logistic_logp",
      "PyMC continuous.py Logistic.logp written through its docstring's density exp(-z) / (s (1 + exp(-z))**2), mu = 0",
      lambda x, s: pt.log(pt.exp(-x / s) / (s * (1 + pt.exp(-x / s)) ** 2)), [X_LOGIS, S_LOGIS],
      ew(lambda x, s: -x / s - mp.log(s) - 2 * _softplus(-x / s))),
    S("exgaussian_density_logged", "exgaussian_logp",
      "PyMC continuous.py ExGaussian.logp written through its docstring's density, mu = 0, sigma = 1",
      lambda x, nu: pt.log(pt.exp(-x / nu + 0.5 / nu**2) * 0.5 * pt.erfc(-(x - 1 / nu) / _SQRT2) / nu), [X_EXG, NU_EXG],
      ew(lambda x, nu: -mp.log(nu) - x / nu + 1 / (2 * nu**2) + _log_ndtr(x - 1 / nu))),
    S("ordered_logistic_log_p", "ordered_logistic_logp",
      "PyMC discrete.py OrderedLogistic.compute_p (differences of sigmoids), then Categorical's log(p)",
      _ordered_logistic_logp, [ETA_ORD, C_ORD], _ordered_logistic),
]


# --- Herbie's benchmarks outside bench/hamming -------------------------------------------------

X_SECH = floats(0.0, 1e-10, -20.0, 700.0, 720.0, -740.0)
X_TANH = floats(1e-300, 1e-20, -1e-10, 0.5, 20.0, 800.0, -800.0)
X_ATANH = floats(1e-300, 1e-20, -1e-10, 0.5, -0.9, 0.999999)
X_ASECH = floats(1e-310, 1e-300, 1e-10, 0.5, 0.9999999999, 1.0)
X_LR, Y_LR = floats(800.0, 40.0, -800.0, 0.0, 3.0, 36.0), floats(1.0, 1.0, 0.5, 0.5, 2.0, 0.999)
X_RAD, Y_RAD = floats(1.0000000001, 10.0, 1e70, 3.0), floats(1.0, 9.999999999, 9.9999999e69, 2.0)
X_NA, E_NA = floats(1.0, 10.0, 0.5, 100.0), floats(1e-10, 1e-5, 0.5, 1e-8)
A_QSE, B_QSE = floats(800.0, -800.0, 0.0, 40.0, 1.0), floats(799.0, -801.0, 40.0, 0.0, 1.0)
A_CUB, B_CUB, C_CUB = floats(1.0, 1.0, 2.0, 1.0), floats(1e10, 3.0, 1e5, 1e150), floats(1.0, 1.0, 0.5, 1.0)
X_TRIGB = floats(np.pi / 4, 0.785398163, 1e-10, np.pi / 2, 3.0)
X_SQ, E_SQ = floats(1e9, 1.0, 1e9, -3.0), floats(1e-9, 1e-10, 1.0, 0.5)
X_SQD, E_SQD = floats(1e9, 1e5, 10.0, 1e9), floats(1.0, 1e-5, 1.0, -1.0)
I_CI, N_CI = floats(0.05, 1e-10, 0.05, 1.0), floats(12.0, 1e6, 1e12, 1e15)
RE_CC, IM_CC = floats(np.pi / 2, 1.0, 3.0, 0.5, -1.0), floats(740.0, 1e-10, 710.0, -720.0, 5.0)
RE_LM, IM_LM = floats(1e200, 1e-200, 3.0, -1e300, 1.0), floats(1e200, 0.0, 4.0, 1.0, 1e-10)
RE_CS, IM_CS = floats(1e10, 1.0, -3.0, 1e200, 0.0), floats(1.0, 1e-10, 4.0, 1e190, 1e-300)
X_ACOS1M = floats(1e-300, 1e-20, 1e-10, 0.25, 0.5)
X_SINX = floats(1e-100, 1e-8, 1e-5, -1e-3, 0.5, 3.0, 1e3)
X_SINHC = floats(1e-300, 1e-10, 1e-5, 0.5, 30.0, 800.0, -3.0)
C_LT, X_LT, Y_LT = floats(1.0, 2.0, 0.5, 1.0), floats(1e-10, 1e-20, 3.0, 700.0), floats(0.5, 2.0, 1e-20, 1.0)
X_ASINH32 = floats(-1e5, -1.0, 1e-10, 1e-30, 1.0, 1e30, dtype="float32")
X_ATANH32 = floats(1e-30, -1e-10, 0.5, -0.9, 0.999999, dtype="float32")

_H = "Herbie bench/"

_HERBIE = [
    S("hyperbolic_secant", "sech", _H + "mathematics/hyperbolic-functions.fpcore: Hyperbolic secant",
      lambda x: 2 / (pt.exp(x) + pt.exp(-x)), [X_SECH], ew(mp.sech)),
    S("logistic_garg", "tanh", _H + "mathematics/logistic-regression.fpcore: Logistic function from Lakshay Garg",
      lambda x: 2 / (1 + pt.exp(-2 * x)) - 1, [X_TANH], ew(mp.tanh)),
    S("hyperbolic_arc_cotangent", "atanh", _H + "mathematics/hyperbolic-functions.fpcore: Hyperbolic arc-(co)tangent",
      lambda x: (1 / 2) * pt.log((1 + x) / (1 - x)), [X_ATANH], ew(mp.atanh)),
    S("hyperbolic_arc_cosecant", "asech", _H + "mathematics/hyperbolic-functions.fpcore: Hyperbolic arc-(co)secant",
      lambda x: pt.log(1 / x + pt.sqrt(1 - x * x) / x), [X_ASECH], ew(mp.asech)),
    S("logistic_regression_2", "softplus_minus_linear", _H + "mathematics/logistic-regression.fpcore: Logistic regression 2",
      lambda x, y: pt.log(1 + pt.exp(x)) - x * y, [X_LR, Y_LR], ew(lambda x, y: x * (1 - y) + _softplus(-x))),
    S("radioactive_exchange", "pow4_diff", _H + "numerics/hamming-misc.fpcore: Radioactive exchange between two surfaces",
      lambda x, y: x**4 - y**4, [X_RAD, Y_RAD], ew(lambda x, y: (x - y) * (x + y) * (x * x + y * y))),
    S("nmse_6_1_a", "nmse_6_1_a", _H + "numerics/hamming-misc.fpcore: NMSE Section 6.1 mentioned, A",
      lambda x, eps: ((1 + 1 / eps) * pt.exp(-((1 - eps) * x)) - (1 / eps - 1) * pt.exp(-((1 + eps) * x))) / 2,
      [X_NA, E_NA], ew(_nmse_6_1_a)),
    S("quotient_of_sum_of_exps", "sigmoid_diff", _H + "mathematics/arvind.fpcore: Quotient of sum of exps",
      lambda a, b: pt.exp(a) / (pt.exp(a) + pt.exp(b)), [A_QSE, B_QSE], ew(lambda a, b: 1 / (1 + mp.exp(b - a)))),
    S("cubic_critical", "cubic_critical", _H + "mathematics/sarnoff.fpcore: Cubic critical",
      lambda a, b, c: (-b + pt.sqrt(b * b - 3 * a * c)) / (3 * a), [A_CUB, B_CUB, C_CUB],
      ew(lambda a, b, c: -c / (b + mp.sqrt(b * b - 3 * a * c)))),
    S("trigonometry_b", "cos_double", _H + "mathematics/sarnoff.fpcore: Trigonometry B",
      lambda x: (1 - pt.tan(x) * pt.tan(x)) / (1 + pt.tan(x) * pt.tan(x)), [X_TRIGB], ew(lambda x: mp.cos(2 * x))),
    S("ena_exercise_4b_n2", "square_diff", _H + "numerics/conte.fpcore: ENA, Section 1.4, Exercise 4b, n=2",
      lambda x, eps: (x + eps) ** 2 - x**2, [X_SQ, E_SQ], ew(lambda x, e: e * (2 * x + e))),
    S("ena_exercise_4d", "sqrt_sub_diff", _H + "numerics/conte.fpcore: ENA, Section 1.4, Exercise 4d",
      lambda x, eps: x - pt.sqrt(x * x - eps), [X_SQD, E_SQD], ew(lambda x, e: e / (x + mp.sqrt(x * x - e)))),
    S("compound_interest", "compound_interest", _H + "numerics/every-cs.fpcore: Compound Interest",
      lambda i, n: 100 * (((1 + i / n) ** n - 1) / (i / n)), [I_CI, N_CI],
      ew(lambda i, n: 100 * mp.expm1(n * mp.log1p(i / n)) / (i / n))),
    S("mathjs_cos_complex_re", "cos_cosh", _H + "libraries/mathjs/trigonometry.fpcore: math.cos on complex, real part",
      lambda re, im: 0.5 * pt.cos(re) * (pt.exp(-im) + pt.exp(im)), [RE_CC, IM_CC],
      ew(lambda re, im: mp.cos(re) * mp.cosh(im))),
    S("mathjs_log_complex_re", "log_hypot", _H + "libraries/mathjs/arithmetic.fpcore: math.log/1 on complex, real part",
      lambda re, im: pt.log(pt.sqrt(re * re + im * im)), [RE_LM, IM_LM], ew(lambda re, im: mp.log(mp.hypot(re, im)))),
    S("mathjs_sqrt_complex_im", "csqrt_im",
      _H + "libraries/mathjs/arithmetic.fpcore: math.sqrt on complex, imaginary part, im greater than 0 branch",
      lambda re, im: 0.5 * pt.sqrt(2.0 * (pt.sqrt(re * re + im * im) - re)), [RE_CS, IM_CS],
      ew(lambda re, im: mp.sqrt(mp.mpc(re, im)).imag)),
    S("bug323_acos_1m", "acos_one_minus", _H + "regression.fpcore: bug323 (missed optimization)",
      lambda x: pt.arccos(1 - x), [X_ACOS1M], ew(lambda x: 2 * mp.asin(mp.sqrt(x / 2)))),
    S("bug500_sin_minus_x", "sin_minus_x", _H + "regression.fpcore: bug500 (missed optimization)",
      lambda x: pt.sin(x) - x, [X_SINX], ew(lambda x: -_x_minus_sin(x))),
    S("bug500_log_sinhc", "log_sinhc", _H + "regression.fpcore: bug500, discussion (missed optimization)",
      lambda x: pt.log(pt.sinh(x) / x), [X_SINHC],
      ew(lambda x: mp.log1p(_sinhc_m1(x)) if abs(x) < 1 else mp.log(mp.sinh(x) / x))),
    S("logarithmic_transform", "log_transform", _H + "graphics/log-transform.fpcore: Logarithmic Transform",
      lambda c, x, y: c * pt.log(1.0 + (np.e**x - 1.0) * y), [C_LT, X_LT, Y_LT],
      ew(lambda c, x, y: c * mp.log1p(mp.expm1(x) * y))),
    S("rust_f32_asinh", "asinh", _H + "libraries/rust.fpcore: Rust f32::asinh (copysign(v, x) as sign(x) * v, v >= 0)",
      lambda x: pt.sign(x) * pt.log(pt.abs(x) + pt.sqrt(x * x + 1)), [X_ASINH32], ew(mp.asinh), "float32"),
    S("rust_f32_atanh", "atanh", _H + "libraries/rust.fpcore: Rust f32::atanh",
      lambda x: 0.5 * pt.log1p((2 * x) / (1 - x)), [X_ATANH32], ew(mp.atanh), "float32"),
]

#: The unseen spellings.
UNSEEN: tuple[Spelling, ...] = tuple(_PYMC + _HERBIE)
