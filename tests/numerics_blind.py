"""Blind spellings: a third held-out set, collected in session 27 before that session's rules were written.

Same :class:`numerics_corpus.Spelling` type and the same judgement
(:func:`numerics_corpus.accuracy`) as ``numerics_unseen.py``.  Each
spelling is written as upstream code and references write it, from sources
none of ``numerics_corpus.py``, ``numerics_heldout.py``, ``numerics_unseen.py``
and ``numerics_fpbench.py`` drew on: SciPy's special functions and the
naive forms its issues and pull requests replaced (``scipy/special``'s
``_boxcox.pxd``, ``_convex_analysis.pxd``, ``_logit.h``, ``powm1``; scipy
#6873, #10072, #15312, #20073, #20710 / #20816, #21388, #18433 / #19792)
and the densities and CDFs of ``scipy/stats/_continuous_distns.py`` and
``_discrete_distns.py`` logged by hand; TensorFlow Probability's
``tfp.math`` (``log1psquare``, ``log_cumsum_exp``, ``reduce_logmeanexp``) and
its distributions and bijectors (``GeneralizedExtremeValue``, ``LogNormal``,
``Tanh``); JAX's ``jax.nn`` and ``jax.numpy`` (``gelu`` both ways,
``squareplus``, ``elu``, ``logaddexp2``) written through their docstrings'
formulas; the Stan math library (``log_mix``, ``inv_cloglog``,
``binomial_logit_lpmf``, ``neg_binomial_2_lpmf``, ``pareto_type_2_lcdf``)
through the functions reference's formulas; and PyMC distributions none of
the other sets used (``Wald``, ``Cauchy``, ``StudentT``, ``SkewStudentT``,
``BetaBinomial``, ``ZeroInflatedBinomial``, ``LogitNormal``, ``Dirichlet``).
FPBench's ``benchmarks/`` gave none: every FPCore PyTensor can express is
already in ``numerics_fpbench.py``.  No name or formula is one of the other
sets'.

Each is evaluated at inputs inside its domain where a naive float
evaluation is at risk (overflow, underflow, cancellation), and at a few
ordinary points, against a closed form in mpmath (50 digits) that
``numerics_corpus.check_spelling`` checks against the spelling's own graph
evaluated exactly; no reference evaluates the spelling's own formula where
it cancels.  A float constant of the graph (``np.pi``, ``np.sqrt(2)``, GELU's
``sqrt(2 / pi)``) is the same float in the reference.  A few FAST_RUN
already gets right (PyTensor's own stabilizers): those measure that nothing
is made worse.  ``python benchmarks/numerics.py --blind`` measures them.

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

__all__ = ["BLIND"]


#: The graphs' float constants, the same floats in the references (a numpy scalar keeps its dtype).
_PI = np.pi
_SQRT2 = np.sqrt(2.0)
_SQRT2_32 = np.float32(np.sqrt(2.0))
_GELU_C = np.sqrt(2.0 / np.pi)
_GELU_A = 0.044715
_LOG_PI = np.log(np.pi)
_LOG2 = np.log(2.0)


def _c(v: Any) -> Any:
    """A graph's float constant as an exact mpmath number."""
    return mp.mpf(float(v))


# --- closed forms (mpmath) ------------------------------------------------------------------


def _softplus(v: Any) -> Any:
    return mp.log1p(mp.exp(v)) if v < 0 else v + mp.log1p(mp.exp(-v))


def _log1mexp(v: Any) -> Any:
    """log(1 - exp(v)) for v <= 0."""
    return mp.log(-mp.expm1(v))


def _logaddexp(a: Any, b: Any) -> Any:
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + mp.log1p(mp.exp(lo - hi))


def _logit(p: Any) -> Any:
    """log(p / (1 - p)): 2 atanh(2p - 1) near 1/2 (2p - 1 exact), log(p) - log1p(-p) in the tails."""
    if 0.25 <= p <= 0.75:
        return 2 * mp.atanh(2 * p - 1)
    return mp.log(p) - mp.log1p(-p)


def _xlog1p_minus(t: Any) -> Any:
    """(1 + t) log1p(t) - t: its series sum_{k>=2} (-1)**k t**k / (k (k - 1)) where |t| < 0.1."""
    if abs(t) < mp.mpf("0.1"):
        return mp.nsum(lambda k: (-1) ** k * t**k / (k * (k - 1)), [2, mp.inf])
    return (1 + t) * mp.log1p(t) - t


def _kl_div(x: Any, y: Any) -> Any:
    """x log(x / y) - x + y = y h((x - y) / y), h(t) = (1 + t) log1p(t) - t."""
    return y * _xlog1p_minus((x - y) / y)


def _rel_entr(x: Any, y: Any) -> Any:
    """x log(x / y): x log1p((x - y) / y) where x and y are within a factor 2 (x - y exact), x (log x - log y) apart."""
    if y / 2 < x < 2 * y:
        return x * mp.log1p((x - y) / y)
    return x * (mp.log(x) - mp.log(y))


def _pseudo_huber(d: Any, r: Any) -> Any:
    """d**2 (sqrt(1 + (r/d)**2) - 1) = r**2 / (sqrt(1 + (r/d)**2) + 1)."""
    return r * r / (mp.sqrt(1 + (r / d) ** 2) + 1)


def _log_ndtr_c(z: Any, c: Any) -> Any:
    """log(erfc(-z / c) / 2), c the graph's sqrt(2)."""
    return mp.log(mp.erfc(-z / c) / 2)


def _wald_logcdf(x: Any, mu: Any, lam: Any) -> Any:
    """log(Phi(sqrt(lam/x) (x/mu - 1)) + exp(2 lam / mu) Phi(-sqrt(lam/x) (x/mu + 1))), both terms positive."""
    c = _c(_SQRT2)
    s = mp.sqrt(lam / x)
    z1, z2 = s * (x / mu - 1), s * (x / mu + 1)
    return _logaddexp(_log_ndtr_c(z1, c), 2 * lam / mu + _log_ndtr_c(-z2, c))


def _squareplus(x: Any, b: Any) -> Any:
    """(x + sqrt(x**2 + b)) / 2, through b / (2 (sqrt(x**2 + b) - x)) for x < 0."""
    r = mp.sqrt(x * x + b)
    return b / (2 * (r - x)) if x < 0 else (x + r) / 2


def _gelu_tanh(x: Any) -> Any:
    """0.5 x (1 + tanh(u)) = x sigmoid(2u), u = c (x + a x**3) with the graph's constants."""
    u = _c(_GELU_C) * (x + _c(_GELU_A) * x**3)
    return x / (1 + mp.exp(-2 * u))


def _skew_student_t(x: Any, a: Any, b: Any) -> Any:
    """PyMC SkewStudentT.logp: each log(1 -+ x / s) through (a + b) / (s (s +- x)) on its cancelling side."""
    s = mp.sqrt(a + b + x * x)
    lo = mp.log((a + b) / (s * (s - x))) if x < 0 else mp.log1p(x / s)
    hi = mp.log((a + b) / (s * (s + x))) if x > 0 else mp.log1p(-x / s)
    c = (a + b - 1) * _c(_LOG2) + mp.log(mp.beta(a, b)) + mp.log(a + b) / 2
    return (a + mp.mpf(0.5)) * lo + (b + mp.mpf(0.5)) * hi - c


def _student_t(x: Any, nu: Any) -> Any:
    """PyMC StudentT.logp (lam = 1, mu = 0): the ratio of gammas taken whole (no difference of gammalns)."""
    ratio = mp.gammaprod([(nu + 1) / 2], [nu / 2])
    return mp.log(ratio) + mp.log(1 / (nu * _c(_PI))) / 2 - (nu + 1) / 2 * mp.log1p(x * x / nu)


def _beta_binomial(k: Any, n: Any, a: Any, b: Any) -> Any:
    """log C(n, k) + log B(k + a, n - k + b) - log B(a, b), the ratio of betas as rising factorials."""
    return (mp.log(mp.binomial(n, k)) + mp.log(mp.rf(a, k)) + mp.log(mp.rf(b, n - k)) - mp.log(mp.rf(a + b, n)))


def _dirichlet(x: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Per row: the log of the whole density, Gamma(sum a) / prod Gamma(a) * prod x**(a - 1) (mpmath's exponents
    are unbounded: no sum of large terms that cancel)."""
    rows = []
    for xr, ar in zip(x, a, strict=True):
        dens = mp.gammaprod([mp.fsum(ar)], list(ar)) * mp.fprod(xi ** (ai - 1) for xi, ai in zip(xr, ar, strict=True))
        rows.append(mp.log(dens))
    return np.array(rows, dtype=object)


def _logitnormal(v: Any, tau: Any) -> Any:
    """PyMC3 LogitNormal.logp (mu = 0), the logit through :func:`_logit`."""
    return (-tau * _logit(v) ** 2 / 2 + mp.log(tau / (2 * _c(_PI))) / 2 - mp.log(v) - mp.log1p(-v))


def _lse_rows(x: np.ndarray) -> np.ndarray:
    return np.array([mp.log(mp.fsum(mp.exp(v) for v in r)) for r in x], dtype=object)


def _log_cumsum_exp(x: np.ndarray) -> np.ndarray:
    return np.array([[mp.log(mp.fsum(mp.exp(v) for v in r[: j + 1])) for j in range(len(r))] for r in x],
                    dtype=object)


# --- SciPy: special functions, the naive forms its issues replaced, scipy.stats logged by hand --------

X_BC, L_BC = floats(2.0, 10.0, 0.5, 1e10, 5000.0, 3.0), floats(1e-10, 1e-17, -1e-12, 1e-8, -5.0, 2.0)
X_BC1, L_BC1 = floats(1e-20, 1e-10, 0.5, 3.0, -0.5, 1e-5), floats(0.5, 1e-12, 1e-15, 2.0, -1e-9, 1e-10)
Y_IBC, L_IBC = floats(1.0, 2.0, 30.0, -0.5, 5.0), floats(1e-12, 1e-17, 1e-10, 0.5, -1e-9)
Y_IBC1, L_IBC1 = floats(1e-20, 1e-10, 0.5, 3.0, -0.3), floats(0.5, 1e-12, 1e-15, 2.0, -1e-9)
X_PM32, Y_PM32 = floats(1.0001, 2.0, 10.0, 0.5, 3.0, dtype="float32"), floats(3.0, 1e-10, 1e-6, -1e-8, 2.0, dtype="float32")
X_XL, Y_XL = floats(3.0, 1e300, -2.0, 0.5, 7.0), floats(1e-20, 1e-10, -1e-15, 3.0, 0.25)
X_RE, Y_RE = floats(4.0, 1e300, 1e-300, 2.0, 1.1), floats(2.2250738585072014e-308, 1e-300, 1e300, 3.0, 1.1000000000000003)
X_KL, Y_KL = floats(1.0, 4.0, 2.0, 1e-10, 5.0, 3.0), floats(1.0000000001, 2.2250738585072014e-308, 2.0000000000000004,
                                                      1.00000001e-10, 1.0, 3.0)
D_PH, R_PH = floats(1.0, 1.0, 1e-3, 2.0, 1e-200, 3.0), floats(1e-18, 1e-8, 3.0, 1e200, 1.0, 4.0)
P_LOGIT = floats(0.5000000001, 0.4999999999999, 0.5, 1e-300, 0.999999, 0.3, 0.5 + 2**-40)
C_GP, X_GP = floats(1e-12, 1e-17, 0.5, -0.3, 2.0), floats(3.0, 10.0, 1e10, 1.0, 1e-20)
X_LOMAX, C_LOMAX = floats(1e-20, 1e-10, 3.0, 1e300, 1e100), floats(2.0, 0.5, 1.0, 5.0, 4.0)
X_HL32 = floats(0.5, 1e-5, 5.0, 10.0, 20.0, 80.0, dtype="float32")
X_GOMP, C_GOMP = floats(1e-20, 1e-10, 1.0, 5.0, -1e-8), floats(1.0, 1e-5, 0.5, 1e-300, 2.0)
X_EXPP, B_EXPP = floats(1e-10, 1e-3, 1.0, 2.0, 1e-300), floats(1.0, 2.0, 0.5, 3.0, 0.1)
X_TRE, B_TRE = floats(1e-20, 1e-10, 0.5, 3.0, 1e-12), floats(1e-15, 1e-5, 1.0, 800.0, 2e-12)
L_PLANCK, K_PLANCK = floats(1e-20, 1e-8, 0.5, 2.0, 1e-3), floats(3.0, 0.0, 2000.0, 500.0, 1e6)
P_LOGSER, K_LOGSER = floats(1e-20, 1e-10, 0.5, 0.999, 1e-5), floats(1.0, 2.0, 3.0, 10.0, 100.0)
X_BURR, C_BURR, D_BURR = (floats(1e-300, 1e-10, 1.0, 5.0, 1e10), floats(2.0, 3.0, 1.0, 2.0, 1.0),
                          floats(1.0, 0.5, 2.0, 3.0, 1.0))
X_GENL, C_GENL = floats(-800.0, -40.0, 0.0, 3.0, 40.0, 800.0), floats(1.0, 2.0, 0.5, 3.0, 0.1, 5.0)

_SC = "SciPy "

_SCIPY = [
    S("boxcox_as_documented", "boxcox",
      _SC + "scipy/special/_boxcox.pxd boxcox (expm1(lmbda * log(x)) / lmbda) written as its docstring's "
      "(x**lmbda - 1) / lmbda (scipy #6873, #10072, #20073)",
      lambda x, lm: (x**lm - 1) / lm, [X_BC, L_BC], ew(lambda x, lm: mp.expm1(lm * mp.log(x)) / lm)),
    S("boxcox1p_as_documented", "boxcox1p",
      _SC + "scipy/special/_boxcox.pxd boxcox1p written as its docstring's ((1 + x)**lmbda - 1) / lmbda",
      lambda x, lm: ((1 + x) ** lm - 1) / lm, [X_BC1, L_BC1], ew(lambda x, lm: mp.expm1(lm * mp.log1p(x)) / lm)),
    S("inv_boxcox_as_documented", "inv_boxcox",
      _SC + "scipy/special/_boxcox.pxd inv_boxcox (exp(log1p(lmbda * y) / lmbda)) written as (y * lmbda + 1)**(1 / lmbda)",
      lambda y, lm: (y * lm + 1) ** (1 / lm), [Y_IBC, L_IBC], ew(lambda y, lm: mp.exp(mp.log1p(lm * y) / lm))),
    S("inv_boxcox1p_as_documented", "inv_boxcox1p",
      _SC + "scipy/special/_boxcox.pxd inv_boxcox1p written as (y * lmbda + 1)**(1 / lmbda) - 1",
      lambda y, lm: (y * lm + 1) ** (1 / lm) - 1, [Y_IBC1, L_IBC1], ew(lambda y, lm: mp.expm1(mp.log1p(lm * y) / lm))),
    S("powm1_as_documented_f32", "powm1",
      _SC + "scipy.special.powm1 (x**y - 1 computed without cancellation) as its docstring writes it, float32",
      lambda x, y: x**y - 1, [X_PM32, Y_PM32], ew(lambda x, y: mp.expm1(y * mp.log(x))), "float32"),
    S("xlog1py_as_documented", "xlog1py",
      _SC + "scipy/special/_xlogy.pxd xlog1py (x * log1p(y)) as its docstring's x * log(1 + y)",
      lambda x, y: x * pt.log(1 + y), [X_XL, Y_XL], ew(lambda x, y: x * mp.log1p(y))),
    S("rel_entr_ratio", "rel_entr",
      _SC + "scipy/special/_convex_analysis.pxd rel_entr before scipy #20816: x * log(x / y) (scipy #20710)",
      lambda x, y: x * pt.log(x / y), [X_RE, Y_RE], ew(_rel_entr)),
    S("kl_div_ratio", "kl_div",
      _SC + "scipy/special/_convex_analysis.pxd kl_div: x * log(x / y) - x + y",
      lambda x, y: x * pt.log(x / y) - x + y, [X_KL, Y_KL], ew(_kl_div)),
    S("pseudo_huber_before_15312", "pseudo_huber",
      _SC + "scipy/special/_convex_analysis.pxd pseudo_huber before scipy #15312: delta**2 * (sqrt(1 + (r/delta)**2) - 1)",
      lambda d, r: d**2 * (pt.sqrt(1 + (r / d) ** 2) - 1), [D_PH, R_PH], ew(_pseudo_huber)),
    S("logit_before_21388", "logit",
      _SC + "scipy/special/_logit.h logit before scipy #21388: log(p / (1 - p)), inaccurate near p = 1/2",
      lambda p: pt.log(p / (1 - p)), [P_LOGIT], ew(_logit)),
    S("genpareto_logpdf_by_hand", "genpareto_logpdf",
      _SC + "scipy/stats/_continuous_distns.py genpareto_gen._logpdf (-(c + 1) * log1p(c x) / c) logged from its pdf "
      "(1 + c x)**(-1 - 1/c)",
      lambda c, x: -(1 + 1 / c) * pt.log(1 + c * x), [C_GP, X_GP], ew(lambda c, x: -(1 + 1 / c) * mp.log1p(c * x))),
    S("lomax_sf_logged", "lomax_logsf",
      _SC + "scipy/stats/_continuous_distns.py lomax_gen._logsf (-c * log1p(x)) written through its sf (1 + x)**(-c)",
      lambda x, c: pt.log((1 + x) ** (-c)), [X_LOMAX, C_LOMAX], ew(lambda x, c: -c * mp.log1p(x))),
    S("halflogistic_sf_logged_f32", "halflogistic_logsf",
      _SC + "scipy/stats/_continuous_distns.py halflogistic_gen: its cdf tanh(x / 2) complemented and logged, float32",
      lambda x: pt.log(1 - pt.tanh(x / 2)), [X_HL32], ew(lambda x: mp.log(2) - _softplus(x)), "float32"),
    S("gompertz_cdf_by_hand", "gompertz_cdf",
      _SC + "scipy/stats/_continuous_distns.py gompertz_gen._cdf (-expm1(-c * expm1(x))) as 1 - exp(-c (exp(x) - 1))",
      lambda x, c: 1 - pt.exp(-c * (pt.exp(x) - 1)), [X_GOMP, C_GOMP], ew(lambda x, c: -mp.expm1(-c * mp.expm1(x)))),
    S("exponpow_cdf_by_hand", "exponpow_cdf",
      _SC + "scipy/stats/_continuous_distns.py exponpow_gen._cdf (-expm1(-expm1(x**b))) as 1 - exp(1 - exp(x**b))",
      lambda x, b: 1 - pt.exp(1 - pt.exp(x**b)), [X_EXPP, B_EXPP], ew(lambda x, b: -mp.expm1(-mp.expm1(x**b)))),
    S("truncexpon_cdf_by_hand", "truncexpon_cdf",
      _SC + "scipy/stats/_continuous_distns.py truncexpon_gen._cdf (expm1(-x) / expm1(-b)) as (1 - exp(-x)) / (1 - exp(-b))",
      lambda x, b: (1 - pt.exp(-x)) / (1 - pt.exp(-b)), [X_TRE, B_TRE], ew(lambda x, b: mp.expm1(-x) / mp.expm1(-b))),
    S("planck_pmf_logged", "planck_logpmf",
      _SC + "scipy/stats/_discrete_distns.py planck_gen: its pmf (1 - exp(-lambda)) exp(-lambda k) logged",
      lambda lm, k: pt.log((1 - pt.exp(-lm)) * pt.exp(-lm * k)), [L_PLANCK, K_PLANCK],
      ew(lambda lm, k: _log1mexp(-lm) - lm * k)),
    S("logser_pmf_logged", "logser_logpmf",
      _SC + "scipy/stats/_discrete_distns.py logser_gen._pmf: -p**k / (k log(1 - p)), logged",
      lambda p, k: pt.log(-(p**k) / (k * pt.log(1 - p))), [P_LOGSER, K_LOGSER],
      ew(lambda p, k: k * mp.log(p) - mp.log(k) - mp.log(-mp.log1p(-p)))),
    S("burr_cdf_logged", "burr_logcdf",
      _SC + "scipy/stats/_continuous_distns.py burr_gen._cdf (1 + x**(-c))**(-d), logged",
      lambda x, c, d: pt.log((1 + x ** (-c)) ** (-d)), [X_BURR, C_BURR, D_BURR],
      ew(lambda x, c, d: -d * mp.log1p(x ** (-c)))),
    S("genlogistic_pdf_logged", "genlogistic_logpdf",
      _SC + "scipy/stats/_continuous_distns.py genlogistic_gen: its pdf c exp(-x) / (1 + exp(-x))**(c + 1) logged "
      "(scipy #18138)",
      lambda x, c: pt.log(c * pt.exp(-x) / (1 + pt.exp(-x)) ** (c + 1)), [X_GENL, C_GENL],
      ew(lambda x, c: mp.log(c) - x - (c + 1) * _softplus(-x))),
]


# --- TensorFlow Probability: tfp.math, distributions and bijectors ---------------------------------

X_CAU, B_CAU = floats(1e-10, 1e200, -1e170, 3.0, 1e-200, -0.5), floats(1.0, 1.0, 1e-10, 2.0, 1e-210, 1.0)
M_LCSE = np.array([[800.0, 799.0, 0.0, 801.0], [-800.0, -801.0, -1000.0, -799.0], [0.5, -1.0, 2.0, 1e-10]])
M_LMEE = np.array([[710.0, 709.5, 700.0, -3.0], [-750.0, -760.0, -745.0, -800.0]])
X_TANH32 = floats(0.0, 1e-3, 3.0, 10.0, -20.0, 50.0, dtype="float32")
Z_GEV, C_GEV = floats(1.0, 0.0, -2.0, 5.0, 3.0, 2.0), floats(1e-12, 1e-15, 1e-9, 0.5, -0.2, 1e-17)
S_LNV, MU_LNV = floats(1e-10, 1e-5, 0.5, 2.0, 20.0), floats(0.0, 1.0, -3.0, 0.0, -300.0)

_TFP = "TensorFlow Probability "

_TFPS = [
    S("log1psquare_naive_cauchy", "cauchy_logpdf",
      _TFP + "tfp/python/math/numeric.py log1psquare's docstring: log(1 + x**2) overflows; tfd.Cauchy.log_prob "
      "written with it",
      lambda x, s: -_LOG_PI - pt.log(s) - pt.log(1 + (x / s) ** 2), [X_CAU, B_CAU],
      ew(lambda x, s: -_c(_LOG_PI) - mp.log(s) - mp.log1p((x / s) ** 2))),
    S("log_cumsum_exp_naive", "log_cumsum_exp",
      _TFP + "tfp/python/math/generic.py log_cumsum_exp written as log(cumsum(exp(x)))",
      lambda x: pt.log(pt.cumsum(pt.exp(x), axis=-1)), [M_LCSE], _log_cumsum_exp),
    S("reduce_logmeanexp_naive", "logmeanexp",
      _TFP + "tfp/python/math/generic.py reduce_logmeanexp written as log(mean(exp(x)))",
      lambda x: pt.log(pt.mean(pt.exp(x), axis=1)), [M_LMEE], lambda x: _lse_rows(x) - mp.log(x.shape[1])),
    S("tanh_bijector_fldj_naive_f32", "tanh_fldj",
      _TFP + "tfp/python/bijectors/tanh.py Tanh._forward_log_det_jacobian (2 (log 2 - x - softplus(-2x))) written as "
      "log(1 - tanh(x)**2), float32",
      lambda x: pt.log(1 - pt.tanh(x) ** 2), [X_TANH32], ew(lambda x: -2 * mp.log(mp.cosh(x))), "float32"),
    S("gev_logcdf_by_hand", "gev_logcdf",
      _TFP + "tfp/python/distributions/gev.py GeneralizedExtremeValue log_cdf: -(1 + c z)**(-1 / c), small c",
      lambda z, c: -((1 + c * z) ** (-1 / c)), [Z_GEV, C_GEV], ew(lambda z, c: -mp.exp(-mp.log1p(c * z) / c))),
    S("lognormal_variance_naive", "lognormal_variance",
      _TFP + "tfp/python/distributions/lognormal.py LogNormal.variance (expm1(s**2) exp(2 mu + s**2)) written with "
      "exp(s**2) - 1",
      lambda s, mu: (pt.exp(s**2) - 1) * pt.exp(2 * mu + s**2), [S_LNV, MU_LNV],
      ew(lambda s, mu: mp.expm1(s * s) * mp.exp(2 * mu + s * s))),
]


# --- JAX: jax.nn and jax.numpy through their docstrings' formulas ------------------------------------

X_GELU = floats(-30.0, -10.0, -5.0, 0.0, 1.0, 5.0, 1e-200)
X_GELU32 = floats(-12.0, -6.0, -3.0, 0.0, 1.0, 4.0, dtype="float32")
X_LAE2, Y_LAE2 = floats(2000.0, -2000.0, 3.0, 0.0, 1100.0), floats(1999.0, -2001.0, 1.0, -1e-10, -5.0)
X_ELU, A_ELU = floats(-1e-20, -1e-10, -1.0, -800.0, 2.0, 1e-10), floats(1.0, 1.7, 1.0, 0.5, 1.0, 1.0)
X_SQP, B_SQP = floats(-1e8, -1e200, -3.0, 0.0, 2.0, 1e200), floats(4.0, 4.0, 1.0, 4.0, 0.5, 4.0)

_JAX = [
    S("gelu_tanh_approximation", "gelu_tanh",
      "JAX jax/_src/nn/functions.py gelu(approximate=True): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))",
      lambda x: 0.5 * x * (1 + pt.tanh(_GELU_C * (x + _GELU_A * x**3))), [X_GELU], ew(_gelu_tanh)),
    S("gelu_erf_f32", "gelu_erf",
      "JAX jax/_src/nn/functions.py gelu(approximate=False): x * (erf(x / sqrt(2)) + 1) / 2, float32",
      lambda x: x * (pt.erf(x / _SQRT2_32) + 1) / 2, [X_GELU32], ew(lambda x: x * mp.erfc(-x / _c(_SQRT2_32)) / 2),
      "float32"),
    S("logaddexp2_as_documented", "logaddexp2",
      "JAX jax/_src/numpy/ufuncs.py logaddexp2 (NumPy's logaddexp2 docstring): log2(2**x1 + 2**x2)",
      lambda x, y: pt.log2(pt.exp2(x) + pt.exp2(y)), [X_LAE2, Y_LAE2],
      ew(lambda x, y: _logaddexp(x * mp.log(2), y * mp.log(2)) / mp.log(2))),
    S("elu_as_documented", "elu",
      "JAX jax/_src/nn/functions.py elu (alpha * expm1(x) where x <= 0) as its docstring's alpha (exp(x) - 1)",
      lambda x, a: pt.switch(x > 0, x, a * (pt.exp(x) - 1)), [X_ELU, A_ELU],
      ew(lambda x, a: x if x > 0 else a * mp.expm1(x))),
    S("squareplus", "squareplus",
      "JAX jax/_src/nn/functions.py squareplus: (x + sqrt(x**2 + b)) / 2, cancelling for large negative x",
      lambda x, b: (x + pt.sqrt(x**2 + b)) / 2, [X_SQP, B_SQP], ew(_squareplus)),
]


# --- Stan math: the functions reference's formulas -------------------------------------------------

T_MIX, L1_MIX, L2_MIX = (floats(0.3, 0.5, 1e-10, 0.9, 0.25), floats(800.0, -800.0, 0.0, -1000.0, 3.0),
                         floats(799.0, -801.0, 40.0, -1000.5, 1.0))
X_CLL32 = floats(-30.0, -10.0, -1.0, 0.0, 2.0, 5.0, dtype="float32")
N_BL, NN_BL, A_BL = floats(3.0, 0.0, 10.0, 5.0, 1.0), floats(10.0, 5.0, 10.0, 5.0, 2.0), floats(-800.0, 40.0, 800.0, -40.0, 0.3)
N_NB2, MU_NB2, PHI_NB2 = (floats(0.0, 3.0, 10.0, 1.0, 5.0), floats(1.0, 1e-10, 1e10, 2.0, 1.7e308),
                          floats(1e10, 1.0, 1e-12, 3.0, 1e308))
Y_P2, L_P2, A_P2 = (floats(1e-20, 1e-10, 1.0, 1e10, 3.0), floats(1.0, 2.0, 1.0, 1e-5, 1.0), floats(2.0, 0.5, 3.0, 1.0, 2.0))

_STAN = "Stan math "

_STANS = [
    S("log_mix_as_documented", "log_mix",
      _STAN + "stan/math/prim/fun/log_mix.hpp: its doc's log(theta exp(lambda1) + (1 - theta) exp(lambda2)) "
      "(the code: log_sum_exp(log(theta) + lambda1, log1m(theta) + lambda2))",
      lambda t, l1, l2: pt.log(t * pt.exp(l1) + (1 - t) * pt.exp(l2)), [T_MIX, L1_MIX, L2_MIX],
      ew(lambda t, l1, l2: _logaddexp(mp.log(t) + l1, mp.log1p(-t) + l2))),
    S("inv_cloglog_as_documented_f32", "inv_cloglog",
      _STAN + "stan/math/prim/fun/inv_cloglog.hpp: 1 - exp(-exp(x)) (its doc), float32",
      lambda x: 1 - pt.exp(-pt.exp(x)), [X_CLL32], ew(lambda x: -mp.expm1(-mp.exp(x))), "float32"),
    S("binomial_logit_by_hand", "binomial_logit",
      _STAN + "stan/math/prim/prob/binomial_logit_lpmf.hpp (n log_inv_logit(alpha) + (N - n) log1m_inv_logit(alpha)) "
      "written with log(inv_logit) and log(1 - inv_logit)",
      lambda n, nn, a: n * pt.log(pt.sigmoid(a)) + (nn - n) * pt.log(1 - pt.sigmoid(a)), [N_BL, NN_BL, A_BL],
      ew(lambda n, nn, a: -n * _softplus(-a) - (nn - n) * _softplus(a))),
    S("neg_binomial_2_by_hand", "neg_binomial_2_kernel",
      _STAN + "stan/math/prim/prob/neg_binomial_2_lpmf.hpp: the functions reference's NegBinomial2 kernel "
      "n log(mu / (mu + phi)) + phi log(phi / (mu + phi)) (the code: -phi log1p(mu / phi) and its like)",
      lambda n, mu, phi: n * pt.log(mu / (mu + phi)) + phi * pt.log(phi / (mu + phi)), [N_NB2, MU_NB2, PHI_NB2],
      ew(lambda n, mu, phi: -n * mp.log1p(phi / mu) - phi * mp.log1p(mu / phi))),
    S("pareto_type_2_cdf_logged", "pareto_type_2_logcdf",
      _STAN + "stan/math/prim/prob/pareto_type_2_lcdf.hpp (log1m_exp(-alpha log1p(y / lambda))) written through its "
      "CDF 1 - (1 + y / lambda)**(-alpha), mu = 0",
      lambda y, lm, a: pt.log(1 - (1 + y / lm) ** (-a)), [Y_P2, L_P2, A_P2],
      ew(lambda y, lm, a: _log1mexp(-a * mp.log1p(y / lm)))),
]


# --- PyMC: distributions none of the other sets used ----------------------------------------------

X_WALD, MU_WALD, LAM_WALD = (floats(0.5, 1.0, 2.0, 0.3, 1.5), floats(1.0, 1.0, 3.0, 2.0, 0.5),
                             floats(1000.0, 1.0, 2.0, 400.0, 0.25))
X_CAUP, B_CAUP = floats(1e200, -1e160, 3.0, 0.0, 1e-300, 1e5), floats(1.0, 1e-10, 2.0, 1.0, 1e-300, 1e-150)
X_ST, NU_ST = floats(1.0, 0.5, 2.0, 30.0, 1.0, -3.0), floats(1e12, 1e15, 3.0, 1e8, 1e20, 1e6)
X_SST, A_SST, B_SST = (floats(1e200, 1e10, -1e10, 0.5, -1e200, 1e5), floats(1.0, 2.0, 3.0, 1.0, 2.0, 0.5),
                       floats(1.0, 3.0, 2.0, 2.0, 1.0, 4.0))
K_BB, N_BB, A_BB, B_BB = (floats(3.0, 0.0, 5.0, 10.0, 2.0), floats(10.0, 5.0, 20.0, 10.0, 4.0),
                          floats(1e10, 2.0, 1e8, 0.5, 1.5), floats(1e10, 1e12, 3.0, 0.5, 2.5))
PSI_ZIB, P_ZIB, N_ZIB = (floats(0.3, 1.0, 1e-20, 0.5, 0.9), floats(0.5, 1e-10, 0.3, 1e-12, 0.999),
                         floats(10.0, 1e10, 5.0, 1e12, 1e5))
V_LN, TAU_LN = floats(0.5000000000001, 0.499999999997, 0.9, 1e-300, 0.3), floats(1e26, 1e22, 1.0, 1e-6, 2.0)
X_DIR = np.array([[0.5, 0.5], [0.2, 0.8], [0.3, 0.7], [0.25, 0.75]])
A_DIR = np.array([[1e10, 1e10], [2e12, 8e12], [3.0, 7.0], [1e6, 3e6]])

_PM = "PyMC pymc/distributions/"


def _student_t_logp(x, nu):
    """PyMC StudentT.logp with lam = 1, mu = 0 (its own spelling, log1p and all)."""
    return (pt.gammaln((nu + 1.0) / 2.0) + 0.5 * pt.log(1 / (nu * _PI)) - pt.gammaln(nu / 2.0)
            - (nu + 1.0) / 2.0 * pt.log1p(x**2 / nu))


def _skew_student_t_logp(x, a, b):
    """PyMC SkewStudentT.logp with mu = 0, sigma = 1 (log 2 a float64 constant: ``pt.log(2)`` is float32's)."""
    a_ = (a + 0.5) * pt.log(1 + x / pt.sqrt(a + b + x**2))
    b_ = (b + 0.5) * pt.log(1 - x / pt.sqrt(a + b + x**2))
    c = (a + b - 1) * _LOG2 + pt.special.betaln(a, b) + 0.5 * pt.log(a + b)
    return a_ + b_ - c


def _betaln(a, b):
    return pt.gammaln(a) + pt.gammaln(b) - pt.gammaln(a + b)


def _beta_binomial_logp(k, n, a, b):
    """PyMC BetaBinomial.logp: binomln(n, k) + betaln(k + alpha, n - k + beta) - betaln(alpha, beta), with
    dist_math's binomln = -log(n + 1) - betaln(n - k + 1, k + 1)."""
    binomln = -pt.log(n + 1) - _betaln(n - k + 1, k + 1)
    return binomln + _betaln(k + a, n - k + b) - _betaln(a, b)


def _wald_cdf_logged(x, mu, lam):
    """The inverse Gaussian CDF Phi(sqrt(lam/x) (x/mu - 1)) + exp(2 lam / mu) Phi(-sqrt(lam/x) (x/mu + 1)), logged."""
    s = pt.sqrt(lam / x)
    phi1 = 0.5 * pt.erfc(-(s * (x / mu - 1)) / _SQRT2)
    phi2 = 0.5 * pt.erfc((s * (x / mu + 1)) / _SQRT2)
    return pt.log(phi1 + pt.exp(2 * lam / mu) * phi2)


def _dirichlet_logp(x, a):
    """PyMC multivariate.py Dirichlet.logp: sum(logpow(value, a - 1) - gammaln(a), -1) + gammaln(sum(a, -1))."""
    return pt.sum((a - 1) * pt.log(x) - pt.gammaln(a), axis=-1) + pt.gammaln(pt.sum(a, axis=-1))


def _logitnormal_logp(v, tau):
    """PyMC3 LogitNormal.logp (mu = 0) with PyMC3's pymc3.math.logit, log(p / (1 - p))."""
    logit = pt.log(v / (1 - v))
    return -0.5 * tau * logit**2 + 0.5 * pt.log(tau / (2.0 * _PI)) - pt.log(v * (1 - v))


_PYMC = [
    S("wald_cdf_logged", "wald_logcdf",
      _PM + "continuous.py Wald.logcdf (a + log1pexp(b - a) of two normal_lcdf) written through the inverse Gaussian "
      "CDF of its docstring, logged",
      _wald_cdf_logged, [X_WALD, MU_WALD, LAM_WALD], ew(_wald_logcdf)),
    S("cauchy_logp_pow", "cauchy_logpdf",
      _PM + "continuous.py Cauchy.logp: -log(pi) - log(beta) - log1p(pow((value - alpha) / beta, 2)), alpha = 0",
      lambda x, b: -pt.log(_PI) - pt.log(b) - pt.log1p(pt.pow(x / b, 2)), [X_CAUP, B_CAUP],
      ew(lambda x, b: -mp.log(_c(_PI)) - mp.log(b) - mp.log1p((x / b) ** 2))),
    S("student_t_logp_large_nu", "student_t_logp",
      _PM + "continuous.py StudentT.logp (lam = 1, mu = 0): gammaln((nu + 1) / 2) - gammaln(nu / 2) at large nu "
      "(scipy #18433 / #19792 for t.logpdf)",
      _student_t_logp, [X_ST, NU_ST], ew(_student_t)),
    S("skew_student_t_logp", "skew_student_t_logp",
      _PM + "continuous.py SkewStudentT.logp (mu = 0, sigma = 1): (a + 1/2) log(1 + x / sqrt(a + b + x**2)) + "
      "(b + 1/2) log(1 - x / sqrt(a + b + x**2)) - c",
      _skew_student_t_logp, [X_SST, A_SST, B_SST], ew(_skew_student_t)),
    S("beta_binomial_logp", "beta_binomial_logp",
      _PM + "discrete.py BetaBinomial.logp with dist_math.binomln and betaln, large alpha and beta",
      _beta_binomial_logp, [K_BB, N_BB, A_BB, B_BB], ew(_beta_binomial)),
    S("zero_inflated_binomial_logp0", "zib_logp0",
      _PM + "discrete.py ZeroInflatedBinomial: the docstring's pmf at 0, (1 - psi) + psi (1 - p)**n, logged",
      lambda psi, p, n: pt.log((1 - psi) + psi * (1 - p) ** n), [PSI_ZIB, P_ZIB, N_ZIB],
      ew(lambda psi, p, n: mp.log1p(psi * mp.expm1(n * mp.log1p(-p))))),
    S("logitnormal_logp", "logitnormal_logp",
      "PyMC3 pymc3/distributions/continuous.py LogitNormal.logp (mu = 0), its logit log(p / (1 - p)) from pymc3/math.py",
      _logitnormal_logp, [V_LN, TAU_LN], ew(_logitnormal)),
    S("dirichlet_logp_large_concentration", "dirichlet_logp",
      _PM + "multivariate.py Dirichlet.logp (logpow's m * log(x) branch), large concentrations",
      _dirichlet_logp, [X_DIR, A_DIR], _dirichlet),
]

#: The blind spellings.
BLIND: list[Spelling] = [*_SCIPY, *_TFPS, *_JAX, *_STANS, *_PYMC]
