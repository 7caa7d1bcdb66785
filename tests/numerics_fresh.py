"""Fresh spellings: a fourth held-out set, collected by a helper before the rules it measures were written.

Same :class:`numerics_corpus.Spelling` type and the same judgement
(:func:`numerics_corpus.accuracy`) as ``numerics_blind.py``.  Each spelling
is written as upstream code, its docstrings or its formulas write it, from
sources none of ``numerics_corpus.py``, ``numerics_heldout.py``,
``numerics_unseen.py``, ``numerics_blind.py`` and ``numerics_fpbench.py``
drew on: PyTorch's ``torch.distributions`` (``continuous_bernoulli.py``'s
CDF and inverse CDF; ``half_normal.py`` through its
base distribution's ``cdf``; ``normal.py``'s and ``laplace.py``'s ``icdf``;
``kumaraswamy.py``'s transforms, mean and variance; ``pareto.py`` through
``exponential.py``'s ``cdf``; ``gumbel.py``; ``transforms.py``'s
``SigmoidTransform``; ``poisson.py``; ``studentT.py``'s entropy; ``kl.py``'s
Bernoulli, normal and gamma pairs) and ``torch.cdist``'s matrix-product
path (``aten/src/ATen/native/Distance.cpp``); NumPyro's distributions
(``Weibull.cdf``, ``SoftLaplace``, ``Kumaraswamy.log_prob``, ``Laplace.cdf``,
``DoublyTruncatedPowerLaw.log_prob``); Julia's LogExpFunctions.jl
(``log1pmx``, ``logmxp1``, ``log2mexp``, ``logitexp``); R's nmath
(``lgamma1p``, ``stirlerr``, ``qweibull``, ``dpois_raw``); Boost.Math
(``sqrt1pm1``, ``tgamma1pm1``); GSL (``gsl_sf_exprel_2``, ``gsl_hypot3``,
``gsl_sf_hazard``, ``gsl_sf_exp_mult``, ``gsl_sf_taylorcoeff``);
scikit-learn (``mean_tweedie_deviance``, ``mean_squared_log_error``, the
``RationalQuadratic`` kernel); statsmodels (the ``CLogLog`` link,
``NegativeBinomial.inverse_deriv`` and ``Logit.inverse_deriv``, the Frank
and Clayton copulas of ``distributions/copula/archimedean.py``); and
Distributions.jl (``Epanechnikov`` cdf, ``Biweight`` mgf, ``Weibull``,
``Levy`` and ``Lindley``).  No name or formula is one of the other sets'.

Each is evaluated at inputs inside its domain where a naive float
evaluation is at risk (overflow, underflow, cancellation), and at a few
ordinary points, against a closed form in mpmath (50 digits) that
``numerics_corpus.check_spelling`` checks against the spelling's own graph
evaluated exactly.  Where no closed form avoids the cancellation, the
reference is the mathematical definition evaluated with 60 more digits
than the ones asked for (:func:`_wide`), more than the cancellation costs
at these inputs; no reference evaluates the spelling's own formula in
floats.  A float constant of the graph (``np.pi``, ``np.sqrt(2)``, R's
``M_LN_SQRT_2PI``) is the same float in the reference, and the inputs keep
the value well above what that constant's rounding moves.  A few FAST_RUN
already gets right (PyTensor's own stabilizers): those measure that nothing
is made worse.  ``python benchmarks/numerics.py --fresh`` measures them.

Rule writers: do not read this file (nor the tests' or benchmarks' output
naming its spellings) until the rules are written; it measures how far they
carry to spellings nobody tuned them on.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt

from numerics_corpus import S, Spelling, ew, floats
from numerics_corpus import exact_constant as _c
from numerics_corpus import wider as _wide

__all__ = ["FRESH"]


#: The graphs' float constants, the same floats in the references (a numpy scalar keeps its dtype).
_PI = np.pi
_PI32 = np.float32(np.pi)
_SQRT2 = np.sqrt(2.0)
_SQRT2_32 = np.float32(np.sqrt(2.0))
_SQRT_2PI = np.sqrt(2.0 * np.pi)
#: R's ``M_LN_SQRT_2PI`` (Rmath.h) as a double.
_LN_SQRT_2PI = 0.918938533204672741780329736406
#: ``math.lgamma(0.5)`` as PyTorch's StudentT.entropy reads it.
_LGAMMA_HALF = math.lgamma(0.5)


# --- closed forms (mpmath) ------------------------------------------------------------------


def _softplus(v: Any) -> Any:
    return mp.log1p(mp.exp(v)) if v < 0 else v + mp.log1p(mp.exp(-v))


def _logaddexp(a: Any, b: Any) -> Any:
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + mp.log1p(mp.exp(lo - hi))


def _logit(p: Any) -> Any:
    """log(p / (1 - p)): -2 atanh(1 - 2p) near 1/2 (1 - 2p exact), log(p) - log1p(-p) in the tails."""
    if 0.25 <= p <= 0.75:
        return -2 * mp.atanh(1 - 2 * p)
    return mp.log(p) - mp.log1p(-p)


def _lgamma1p(a: Any) -> Any:
    """log(Gamma(1 + a)), with enough digits that 1 + a is exact."""
    extra = 60 + (int(-mp.log10(abs(a))) if a != 0 and abs(a) < 1 else 0)
    with mp.workdps(mp.mp.dps + extra):
        return mp.loggamma(1 + a)


def _cb_cdf(x: Any, p: Any) -> Any:
    """(p**x (1-p)**(1-x) + p - 1) / (2p - 1) = (1 - p) expm1(x logit(p)) / (2p - 1)."""
    return (1 - p) * mp.expm1(x * _logit(p)) / (2 * p - 1)


def _cb_icdf(u: Any, p: Any) -> Any:
    """(log1p(-p + u (2p - 1)) - log1p(-p)) / logit(p) = log1p(u (2p - 1) / (1 - p)) / logit(p)."""
    return mp.log1p(u * (2 * p - 1) / (1 - p)) / _logit(p)


def _kl_bernoulli(p: Any, q: Any) -> Any:
    return p * mp.log(p / q) + (1 - p) * mp.log((1 - p) / (1 - q))


def _kl_normal(m1: Any, s1: Any, m2: Any, s2: Any) -> Any:
    vr = (s1 / s2) ** 2
    return (vr + ((m1 - m2) / s2) ** 2 - 1 - mp.log(vr)) / 2


def _kl_gamma(a1: Any, b1: Any, a2: Any, b2: Any) -> Any:
    return (a2 * mp.log(b1 / b2) + mp.loggamma(a2) - mp.loggamma(a1) + (a1 - a2) * mp.digamma(a1)
            + (b2 - b1) * (a1 / b1))


def _kumaraswamy_variance(a: Any, b: Any) -> Any:
    """b B(1 + 2/a, b) - (b B(1 + 1/a, b))**2."""
    return b * mp.beta(1 + 2 / a, b) - (b * mp.beta(1 + 1 / a, b)) ** 2


def _student_t_entropy(df: Any, scale: Any) -> Any:
    h = (df + 1) / 2
    lbeta = mp.loggamma(df / 2) + _c(_LGAMMA_HALF) - mp.loggamma(h)
    return mp.log(scale) + h * (mp.digamma(h) - mp.digamma(df / 2)) + mp.log(df) / 2 + lbeta


def _row_distances(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.array([mp.sqrt(mp.fsum((a - b) ** 2 for a, b in zip(xr, yr, strict=True)))
                     for xr, yr in zip(x, y, strict=True)], dtype=object)


def _truncated_power_law(x: Any, a: Any, lo: Any, hi: Any) -> Any:
    """alpha log(x) + log((1 + alpha) / (hi**(1+alpha) - lo**(1+alpha))), the difference through expm1."""
    b = 1 + a
    return a * mp.log(x) - mp.log((mp.expm1(b * mp.log(hi)) - mp.expm1(b * mp.log(lo))) / b)


def _poisson_logpmf(k: Any, lam: Any) -> Any:
    return k * mp.log(lam) - lam - mp.loggamma(k + 1)


def _stirlerr(n: Any) -> Any:
    """log(n!) - (n + 1/2) log(n) + n - c, c the graph's ln(sqrt(2 pi)) (a double)."""
    return mp.loggamma(n + 1) - (n + mp.mpf(0.5)) * mp.log(n) + n - _c(_LN_SQRT_2PI)


def _hazard(x: Any) -> Any:
    """exp(-x**2/2) / c1 / (erfc(x / c2) / 2), c1, c2 the graph's floats (mpmath's exponent does not underflow)."""
    return 2 * mp.exp(-x * x / 2) / (_c(_SQRT_2PI) * mp.erfc(x / _c(_SQRT2)))


def _tweedie(y: Any, mu: Any, p: Any) -> Any:
    return 2 * (y ** (2 - p) / ((1 - p) * (2 - p)) - y * mu ** (1 - p) / (1 - p) + mu ** (2 - p) / (2 - p))


def _frank_cdf(u: np.ndarray, th: np.ndarray) -> np.ndarray:
    """-log1p(-q) / theta, q = expm1(-theta u) expm1(-theta v) / -expm1(-theta), with enough digits that 1 - q keeps
    its own (q ~ 1 - 1e-17 at theta = 40 near the corner)."""
    out = []
    for (a, b), t in zip(u, th, strict=True):
        with mp.workdps(mp.mp.dps + 60):
            q = mp.expm1(-t * a) * mp.expm1(-t * b) / -mp.expm1(-t)
            out.append(-mp.log1p(-q) / t)
    return np.array(out, dtype=object)


def _frank_logpdf(u1: Any, u2: Any, t: Any) -> Any:
    b = -mp.expm1(-t)
    return mp.log(t * b) - t * (u1 + u2) - 2 * mp.log(b - mp.expm1(-t * u1) * mp.expm1(-t * u2))


def _clayton_cdf(u: np.ndarray, th: np.ndarray) -> np.ndarray:
    """(u**-theta + v**-theta - 1)**(-1/theta) = exp(-log1p(expm1(-theta log u) + expm1(-theta log v)) / theta)."""
    return np.array([mp.exp(-mp.log1p(mp.expm1(-t * mp.log(a)) + mp.expm1(-t * mp.log(b))) / t)
                     for (a, b), t in zip(u, th, strict=True)], dtype=object)


def _msle_rows(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.array([mp.fsum((mp.log1p(a) - mp.log1p(b)) ** 2 for a, b in zip(yr, pr, strict=True)) / len(yr)
                     for yr, pr in zip(y, p, strict=True)], dtype=object)


def _biweight_mgf(t: Any) -> Any:
    return 15 * (-3 * mp.cosh(t) + (t + 3 / t) * mp.sinh(t)) / t**4


# --- PyTorch: torch.distributions ------------------------------------------------------------

U_CBI, P_CBI = floats(1e-12, 1e-300, 0.5, 1e-8, 0.999, 1e-10), floats(0.3, 0.2, 0.7, 0.9, 0.1, 0.5 + 2.0**-30)
X_CBC, P_CBC = floats(1e-12, 1e-300, 0.5, 0.3, 0.999, 1e-8), floats(0.3, 0.2, 0.7, 0.5 + 2.0**-30, 0.1, 0.9)
X_HN, S_HN = floats(1e-20, 1e-10, 1e-5, 0.5, 3.0, 12.0), floats(1.0, 1.0, 2.0, 1.0, 0.5, 1.0)
Q_LAPI32 = floats(1e-20, 1e-8, 0.25, 0.5, 0.75, 0.9999, dtype="float32")
Q_NI32 = floats(1e-30, 1e-10, 1e-5, 0.3, 0.5, 0.975, dtype="float32")
U_KUMA, A_KUMA, B_KUMA = (floats(1 - 2.0**-40, 0.999999, 0.5, 0.3, 1e-300, 0.9), floats(2.0, 0.1, 1.0, 2.0, 3.0, 0.5),
                          floats(3.0, 1.0, 1e8, 5.0, 2.0, 1e12))
A_KUMM, B_KUMM = floats(1.0, 0.5, 2.0, 1e-3, 5.0), floats(200.0, 1e5, 3.0, 2.0, 0.5)
A_KUMV, B_KUMV = floats(1e6, 1e8, 3e4, 2.0, 0.5, 1e5), floats(1.0, 2.0, 1e3, 3.0, 2.0, 1e-3)
X_PAR, S_PAR, A_PAR = (floats(1.0000000001234567, 7.00000000123, 1e300, 2.0, 5.0, 0.3000000004567),
                       floats(1.0, 7.0, 1.0, 1.0, 2.0, 0.3), floats(2.0, 1.0, 1e-5, 3.0, 0.5, 4.0))
X_GUM, S_GUM = floats(-10.0, -700.0, 800.0, 1.0, 3.0, -5.0), floats(1.0, 1.0, 1.0, 1.0, 2.0, 0.1)
X_SIG32 = floats(-100.0, -20.0, 0.0, 5.0, 20.0, 100.0, dtype="float32")
P_KLB, Q_KLB = (floats(0.3, 0.5, 1e-20, 0.999, 0.2, 0.7), floats(0.3 + 2.0**-33, 0.500000000001, 2e-20, 1e-10, 0.6,
                                                               0.699999999))
M1_KLN, S1_KLN, M2_KLN, S2_KLN = (floats(0.0, 0.0, 0.0, 1.0, 5.0), floats(1.0, 3.0, 2.0, 2.0, 1e5),
                                  floats(0.0, 1e-9, 0.0, 3.0, 5.0), floats(1 + 2.0**-30, 3.0, 2.0000000002, 4.0, 100000.001))
A1_KLG, B1_KLG, A2_KLG, B2_KLG = (floats(1e6, 1e8, 3.0, 0.5, 1e12), floats(1.0, 2.0, 2.0, 1.0, 1e12),
                                  floats(1e6 + 1, 1e8, 5.0, 0.7, 1e12 + 1e6), floats(1.0, 2.00000002, 1.0, 1.5, 1e12))
DF_STE, S_STE = floats(1e12, 1e8, 1e15, 3.0, 1.0, 1e5), floats(1.0, 2.0, 1.0, 1.0, 0.5, 1.0)
X_CDIST = np.array([[1.0, 2.0, 3.0], [1e-3, 0.5, 0.25], [1.0, 0.0, 0.0], [1e5, 1e5, 1e5]])
Y_CDIST = np.array([[1.000000001, 2.0, 3.0], [1e-3, 0.5, 0.2500001], [0.0, 1.0, 0.0], [100000.001, 1e5, 1e5]])
K_POI, L_POI = floats(1e10, 1e12, 1e8, 3.0, 0.0, 1e15), floats(1e10, 1e12 + 1e6, 1e8 - 1e4, 2.5, 1e-3, 1e15)

_PT = "PyTorch torch/distributions/"


def _kumaraswamy_moment(a, b, n):
    """PyTorch kumaraswamy.py _moments."""
    arg1 = 1 + n / a
    return b * pt.exp(pt.gammaln(arg1) + pt.gammaln(b) - pt.gammaln(arg1 + b))


def _kumaraswamy_variance_graph(a, b):
    return _kumaraswamy_moment(a, b, 2) - _kumaraswamy_moment(a, b, 1) ** 2


def _student_t_entropy_graph(df, scale):
    """PyTorch StudentT.entropy (math.lgamma(0.5) a float constant)."""
    lbeta = pt.gammaln(0.5 * df) + _LGAMMA_HALF - pt.gammaln(0.5 * (df + 1))
    return (pt.log(scale) + 0.5 * (df + 1) * (pt.psi(0.5 * (df + 1)) - pt.psi(0.5 * df)) + 0.5 * pt.log(df)
            + lbeta)

_PYTORCH = [
    S("continuous_bernoulli_cdf_unguarded", "cb_cdf",
      _PT + "continuous_bernoulli.py ContinuousBernoulli.cdf's unbounded_cdfs: "
      "(p**x (1 - p)**(1 - x) + p - 1) / (2p - 1)",
      lambda x, p: (p**x * (1 - p) ** (1 - x) + p - 1) / (2 * p - 1), [X_CBC, P_CBC], ew(_cb_cdf)),
    S("continuous_bernoulli_icdf_unguarded", "cb_icdf",
      _PT + "continuous_bernoulli.py ContinuousBernoulli.icdf: "
      "(log1p(-p + u (2p - 1)) - log1p(-p)) / (log(p) - log1p(-p)), small u",
      lambda u, p: (pt.log1p(-p + u * (2 * p - 1)) - pt.log1p(-p)) / (pt.log(p) - pt.log1p(-p)), [U_CBI, P_CBI],
      ew(_cb_icdf)),
    S("half_normal_cdf_through_normal", "half_normal_cdf",
      _PT + "half_normal.py HalfNormal.cdf (2 * base_dist.cdf(value) - 1) with normal.py Normal.cdf "
      "(0.5 * (1 + erf(value * scale.reciprocal() / sqrt(2))))",
      lambda x, s: 2 * (0.5 * (1 + pt.erf(x * pt.reciprocal(s) / _SQRT2))) - 1, [X_HN, S_HN],
      ew(lambda x, s: mp.erf(x / s / _c(_SQRT2)))),
    S("laplace_icdf_as_written_f32", "laplace_icdf",
      _PT + "laplace.py Laplace.icdf (loc = 0, scale = 1): -sign(q - 0.5) log1p(-2 |q - 0.5|), whose q - 0.5 "
      "rounds for small q, float32",
      lambda q: -pt.sign(q - 0.5) * pt.log1p(-2 * pt.abs(q - 0.5)), [Q_LAPI32],
      ew(lambda q: mp.log(2 * q) if q < 0.5 else -mp.log(2 * (1 - q))), "float32"),
    S("normal_icdf_lower_tail_f32", "normal_icdf",
      _PT + "normal.py Normal.icdf (loc = 0, scale = 1): erfinv(2 * value - 1) * sqrt(2) in the lower tail, float32",
      lambda q: pt.erfinv(2 * q - 1) * _SQRT2_32, [Q_NI32], ew(lambda q: mp.erfinv(2 * q - 1) * _c(_SQRT2_32)),
      "float32"),
    S("kumaraswamy_transforms_chain", "kumaraswamy_quantile",
      _PT + "kumaraswamy.py: its transforms PowerTransform(1 / b), AffineTransform(1, -1), PowerTransform(1 / a) "
      "applied to a uniform u: (1 - u**(1/b))**(1/a)",
      lambda u, a, b: (1 - u ** (1 / b)) ** (1 / a), [U_KUMA, A_KUMA, B_KUMA],
      ew(lambda u, a, b: (-mp.expm1(mp.log(u) / b)) ** (1 / a))),
    S("kumaraswamy_mean_through_gamma", "kumaraswamy_mean",
      _PT + "kumaraswamy.py _moments (b exp(lgamma(1 + 1/a) + lgamma(b) - lgamma(1 + 1/a + b))) written with gamma",
      lambda a, b: b * pt.gamma(1 + 1 / a) * pt.gamma(b) / pt.gamma(1 + 1 / a + b), [A_KUMM, B_KUMM],
      ew(lambda a, b: b * mp.beta(1 + 1 / a, b))),
    S("kumaraswamy_variance_by_moments", "kumaraswamy_variance",
      _PT + "kumaraswamy.py Kumaraswamy.variance: _moments(a, b, 2) - mean**2, _moments(a, b, n) = "
      "b exp(lgamma(1 + n/a) + lgamma(b) - lgamma(1 + n/a + b)), large a",
      _kumaraswamy_variance_graph, [A_KUMV, B_KUMV], ew(_wide(_kumaraswamy_variance))),
    S("pareto_cdf_through_exponential", "pareto_cdf",
      _PT + "pareto.py (Exponential(alpha) through ExpTransform and AffineTransform(0, scale)): its cdf by the "
      "transforms, exponential.py Exponential.cdf (1 - exp(-rate * value)) at log(x / scale)",
      lambda x, s, a: 1 - pt.exp(-a * pt.log(x / s)), [X_PAR, S_PAR, A_PAR],
      ew(lambda x, s, a: -mp.expm1(-a * mp.log(x / s)))),
    S("gumbel_density_logged", "gumbel_logpdf",
      _PT + "gumbel.py Gumbel.log_prob (z - exp(z) - log(scale), z = (loc - x) / scale) written as the log of the "
      "density exp(-(z + exp(-z))) / scale, loc = 0",
      lambda x, s: pt.log(pt.exp(-(x / s + pt.exp(-x / s))) / s), [X_GUM, S_GUM],
      ew(lambda x, s: -(x / s + mp.exp(-x / s)) - mp.log(s))),
    S("sigmoid_transform_jacobian_by_hand_f32", "sigmoid_log_jacobian",
      _PT + "transforms.py SigmoidTransform.log_abs_det_jacobian (-softplus(-x) - softplus(x)) written as the log of "
      "the derivative y (1 - y), float32",
      lambda x: pt.log(pt.sigmoid(x) * (1 - pt.sigmoid(x))), [X_SIG32],
      ew(lambda x: -_softplus(-x) - _softplus(x)), "float32"),
    S("kl_bernoulli_from_probs", "kl_bernoulli",
      _PT + "kl.py _kl_bernoulli_bernoulli (softplus of the logits) written from the probabilities: "
      "p log(p / q) + (1 - p) log((1 - p) / (1 - q))",
      lambda p, q: p * pt.log(p / q) + (1 - p) * pt.log((1 - p) / (1 - q)), [P_KLB, Q_KLB],
      ew(_wide(_kl_bernoulli))),
    S("kl_normal_normal_as_written", "kl_normal",
      _PT + "kl.py _kl_normal_normal: 0.5 (var_ratio + t1 - 1 - log(var_ratio)), var_ratio = (p.scale / q.scale)**2, "
      "t1 = ((p.loc - q.loc) / q.scale)**2",
      lambda m1, s1, m2, s2: 0.5 * ((s1 / s2) ** 2 + ((m1 - m2) / s2) ** 2 - 1 - pt.log((s1 / s2) ** 2)),
      [M1_KLN, S1_KLN, M2_KLN, S2_KLN], ew(_wide(_kl_normal))),
    S("kl_gamma_gamma_as_written", "kl_gamma",
      _PT + "kl.py _kl_gamma_gamma: q.conc log(p.rate / q.rate) + lgamma(q.conc) - lgamma(p.conc) "
      "+ (p.conc - q.conc) digamma(p.conc) + (q.rate - p.rate) p.conc / p.rate, large concentrations",
      lambda a1, b1, a2, b2: (a2 * pt.log(b1 / b2) + pt.gammaln(a2) - pt.gammaln(a1) + (a1 - a2) * pt.psi(a1)
                              + (b2 - b1) * (a1 / b1)),
      [A1_KLG, B1_KLG, A2_KLG, B2_KLG], ew(_wide(_kl_gamma))),
    S("poisson_log_prob_large_rate", "poisson_logpmf",
      _PT + "poisson.py Poisson.log_prob (value.xlogy(rate) - rate - lgamma(value + 1)) at large rates, where R's "
      "nmath dpois.c (dpois_raw through stirlerr and bd0) keeps its digits",
      lambda k, lam: k * pt.log(lam) - lam - pt.gammaln(k + 1), [K_POI, L_POI], ew(_wide(_poisson_logpmf))),
    S("student_t_entropy_large_df", "student_t_entropy",
      _PT + "studentT.py StudentT.entropy: log(scale) + (df + 1)/2 (digamma((df + 1)/2) - digamma(df/2)) "
      "+ log(df)/2 + lgamma(df/2) + lgamma(1/2) - lgamma((df + 1)/2), large df",
      _student_t_entropy_graph, [DF_STE, S_STE], ew(_wide(_student_t_entropy))),
    S("cdist_through_matrix_product", "euclidean_distance",
      "PyTorch aten/src/ATen/native/Distance.cpp _euclidean_dist (torch.cdist's use_mm_for_euclid_dist path): "
      "sqrt(clamp_min(|x|**2 + |y|**2 - 2 x.y, 1e-30)), for pairs of rows",
      lambda x, y: pt.sqrt(pt.maximum(pt.sum(x**2, axis=-1) + pt.sum(y**2, axis=-1) - 2 * pt.sum(x * y, axis=-1),
                                      1e-30)),
      [X_CDIST, Y_CDIST], _row_distances),
]


# --- NumPyro: numpyro/distributions ------------------------------------------------------------

X_WEI32, L_WEI32, K_WEI32 = (floats(1e-10, 1e-8, 1e-3, 1.0, 3.0, 1e-4, dtype="float32"),
                             floats(1.0, 2.0, 1.0, 1.0, 2.0, 1.0, dtype="float32"),
                             floats(2.0, 0.5, 1.5, 1.0, 3.0, 1.0, dtype="float32"))
X_SL, S_SL = floats(800.0, -800.0, 3.0, 0.0, 1e-300, -40.0), floats(1.0, 1.0, 2.0, 1.0, 1.0, 0.5)
X_KUD, A_KUD, B_KUD = (floats(1e-3, 0.5, 1e-300, 0.3, 1e-100, 0.9), floats(5.0, 1.0, 2.0, 2.0, 0.5, 3.0),
                       floats(1e12, 1e5, 3.0, 3.0, 2.0, 1e14))
X_DTPL, A_DTPL, LO_DTPL, HI_DTPL = (floats(2.0, 5.0, 3.0, 0.5, 10.0, 1e3),
                                   floats(-1 + 1e-10, -1 - 1e-9, -1 + 1e-6, 2.0, -2.5, -1 + 2.0**-40),
                                   floats(1.0, 0.1, 1.0, 0.1, 1.0, 1.0), floats(10.0, 100.0, 1e3, 1.0, 100.0, 1e6))
X_LAP, S_LAP = floats(-40.0, -700.0, -1e-10, 0.0, 1e-10, 3.0), floats(1.0, 1.0, 1.0, 1.0, 1.0, 2.0)

_NP = "NumPyro numpyro/distributions/continuous.py "

_NUMPYRO = [
    S("weibull_cdf_by_hand_f32", "weibull_cdf",
      _NP + "Weibull.cdf: 1 - exp(-((value / scale) ** concentration)), float32",
      lambda x, lm, k: 1 - pt.exp(-((x / lm) ** k)), [X_WEI32, L_WEI32, K_WEI32],
      ew(lambda x, lm, k: -mp.expm1(-((x / lm) ** k))), "float32"),
    S("soft_laplace_density_logged", "soft_laplace_logpdf",
      _NP + "SoftLaplace.log_prob (log(2) - log(pi) - log(scale) - logaddexp(z, -z)) written as the log of its "
      "density 2 / (pi scale (exp(z) + exp(-z))), loc = 0",
      lambda x, s: pt.log(2 / (_PI * s * (pt.exp(x / s) + pt.exp(-x / s)))), [X_SL, S_SL],
      ew(lambda x, s: mp.log(2 / (_c(_PI) * s)) - _logaddexp(x / s, -x / s))),
    S("kumaraswamy_density_logged", "kumaraswamy_logpdf",
      _NP + "Kumaraswamy.log_prob (log(a) + log(b) + xlogy(a - 1, x) + xlog1py(b - 1, -x**a)) written as the log of "
      "its density a b x**(a-1) (1 - x**a)**(b-1)",
      lambda x, a, b: pt.log(a * b * x ** (a - 1) * (1 - x**a) ** (b - 1)), [X_KUD, A_KUD, B_KUD],
      ew(lambda x, a, b: mp.log(a) + mp.log(b) + (a - 1) * mp.log(x) + (b - 1) * mp.log1p(-(x**a)))),
    S("laplace_cdf_by_hand", "laplace_cdf",
      _NP + "Laplace.cdf (0.5 - 0.5 sign(z) expm1(-|z|)) written 0.5 + 0.5 sign(z) (1 - exp(-|z|)), loc = 0",
      lambda x, s: 0.5 + 0.5 * pt.sign(x / s) * (1 - pt.exp(-pt.abs(x / s))), [X_LAP, S_LAP],
      ew(lambda x, s: mp.exp(x / s) / 2 if x < 0 else 1 - mp.exp(-x / s) / 2)),
    S("doubly_truncated_power_law_near_minus_one", "truncated_power_law_logpdf",
      _NP + "DoublyTruncatedPowerLaw.log_prob's alpha != -1 branch: log(x**alpha (1 + alpha) / "
      "(high**(1 + alpha) - low**(1 + alpha))), alpha near -1",
      lambda x, a, lo, hi: pt.log(x**a * (1.0 + a) / (hi ** (1.0 + a) - lo ** (1.0 + a))), [X_DTPL, A_DTPL, LO_DTPL, HI_DTPL],
      ew(_truncated_power_law)),
]


# --- Julia: LogExpFunctions.jl ------------------------------------------------------------------

X_L1PMX = floats(1e-10, -1e-8, 1e-3, -0.5, 2.0, 1e10, -0.999999)
X_LMXP1_32 = floats(1 + 2.0**-23, 1 - 2.0**-24, 0.99, 1e-30, 5.0, 1e30, dtype="float32")
X_L2MEXP = floats(-1e-10, np.log(2.0), 0.6931471805599, 0.5, -800.0, -3.0)
X_LOGITEXP = floats(-1e-20, -1e-10, -0.5, -1.0, -40.0, -800.0)

_JL = "Julia LogExpFunctions.jl src/basicfuns.jl "

_JULIA = [
    S("log1pmx_as_documented", "log1pmx", _JL + "log1pmx, as its docstring writes it: log(1 + x) - x",
      lambda x: pt.log(1 + x) - x, [X_L1PMX], ew(_wide(lambda x: mp.log1p(x) - x))),
    S("logmxp1_as_documented_f32", "logmxp1", _JL + "logmxp1, as its docstring writes it: log(x) - x + 1, float32",
      lambda x: pt.log(x) - x + 1, [X_LMXP1_32], ew(_wide(lambda x: mp.log(x) - x + 1)), "float32"),
    S("log2mexp_as_documented", "log2mexp", _JL + "log2mexp (log1p(-expm1(x))), as its docstring writes it: "
      "log(2 - exp(x))",
      lambda x: pt.log(2 - pt.exp(x)), [X_L2MEXP], ew(lambda x: mp.log1p(-mp.expm1(x)))),
    S("logitexp_as_documented", "logitexp", _JL + "logitexp (x - log1mexp(x)), as its docstring writes it: "
      "logit(exp(x)) = log(exp(x) / (1 - exp(x)))",
      lambda x: pt.log(pt.exp(x) / (1 - pt.exp(x))), [X_LOGITEXP], ew(lambda x: x - mp.log(-mp.expm1(x)))),
]


# --- R: nmath --------------------------------------------------------------------------------------

A_LG1P = floats(1e-300, 1e-10, -1e-12, 1e-5, 0.5, 3.0, -0.5)
N_STIRL = floats(1e3, 1e5, 1e6, 3e6, 2.5, 15.0)
P_QWEI, L_QWEI, K_QWEI = (floats(1e-20, 1e-10, 1e-5, 0.5, 0.999, 1e-300), floats(1.0, 2.0, 1.0, 1.0, 3.0, 1.0),
                          floats(2.0, 0.5, 3.0, 1.5, 2.0, 1.0))

_R = "R src/nmath/"

_RMATH = [
    S("lgamma1p_naive", "lgamma1p", _R + "pgamma.c lgamma1p (log(gamma(1 + a)) accurate for small a) written "
      "lgamma(1 + a)",
      lambda a: pt.gammaln(1 + a), [A_LG1P], ew(_lgamma1p)),
    S("stirlerr_by_definition", "stirlerr", _R + "stirlerr.c: its definition lgamma(n + 1) - (n + 1/2) log(n) + n "
      "- M_LN_SQRT_2PI, which it replaces by a series for n > 15",
      lambda n: pt.gammaln(n + 1) - (n + 0.5) * pt.log(n) + n - _LN_SQRT_2PI, [N_STIRL], ew(_wide(_stirlerr))),
    S("qweibull_naive", "weibull_quantile", _R + "qweibull.c (scale * pow(-R_DT_Clog(p), 1 / shape), log1p(-p)) "
      "written with log(1 - p)",
      lambda p, lm, k: lm * (-pt.log(1 - p)) ** (1 / k), [P_QWEI, L_QWEI, K_QWEI],
      ew(lambda p, lm, k: lm * (-mp.log1p(-p)) ** (1 / k))),
]


# --- Boost.Math: special functions ---------------------------------------------------------------

X_S1PM1_32 = floats(1e-10, -1e-7, 1e-4, 0.5, 3.0, 1e6, dtype="float32")
Z_TG1PM1 = floats(1e-10, -1e-12, 1e-5, 0.5, -0.5, 3.0, 1e-300)

_BOOST = [
    S("sqrt1pm1_as_documented_f32", "sqrt1pm1",
      "Boost.Math boost/math/special_functions/sqrt1pm1.hpp sqrt1pm1, as its documentation defines it: "
      "sqrt(1 + x) - 1, float32",
      lambda x: pt.sqrt(1 + x) - 1, [X_S1PM1_32], ew(lambda x: x / (mp.sqrt(1 + x) + 1)), "float32"),
    S("tgamma1pm1_as_documented", "tgamma1pm1",
      "Boost.Math boost/math/special_functions/gamma.hpp tgamma1pm1, as its documentation defines it: "
      "tgamma(1 + dz) - 1",
      lambda z: pt.gamma(1 + z) - 1, [Z_TG1PM1], ew(lambda z: mp.expm1(_lgamma1p(z)))),
]


# --- GSL: special functions and utilities ---------------------------------------------------------

X_EXPR2 = floats(1e-10, -1e-8, 1e-4, 0.5, -3.0, 700.0, -800.0)
X_H3, Y_H3, Z_H3 = (floats(1e200, 1e-200, 3.0, 1e300, 1e-170, -2.0), floats(1e200, 3e-200, 4.0, 1.0, 1e-170, 0.5),
                    floats(1.0, 0.0, 12.0, 1.0, 1e-170, 1e-20))
X_HAZ = floats(40.0, 38.0, 10.0, 1.0, 0.0, -3.0, -10.0)
X_EXPM, Y_EXPM = floats(800.0, -750.0, 710.0, 1.0, -3.0), floats(1e-300, 1e300, 0.5, 2.0, -4.5)
N_TAY, X_TAY = floats(200.0, 171.0, 5.0, 1000.0, 3.5, 0.0), floats(100.0, 10.0, 2.0, 500.0, 0.2, 5.0)

_GSL = "GSL "

_GSLS = [
    S("exprel_2_by_definition", "exprel_2",
      _GSL + "specfunc/exp.c gsl_sf_exprel_2, as its documentation defines it: 2 (exp(x) - 1 - x) / x**2",
      lambda x: 2 * (pt.exp(x) - 1 - x) / x**2, [X_EXPR2], ew(_wide(lambda x: 2 * (mp.expm1(x) - x) / x**2))),
    S("hypot3_by_definition", "hypot3",
      _GSL + "sys/hypot.c gsl_hypot3 (scaled by the largest), written sqrt(x**2 + y**2 + z**2)",
      lambda x, y, z: pt.sqrt(x * x + y * y + z * z), [X_H3, Y_H3, Z_H3],
      ew(lambda x, y, z: mp.sqrt(x * x + y * y + z * z))),
    S("normal_hazard_by_definition", "normal_hazard",
      _GSL + "specfunc/erfc.c gsl_sf_hazard, as its documentation defines it: Z(x) / Q(x), the normal density over "
      "its upper tail, written exp(-x**2/2) / sqrt(2 pi) / (erfc(x / sqrt(2)) / 2)",
      lambda x: pt.exp(-(x**2) / 2) / _SQRT_2PI / (0.5 * pt.erfc(x / _SQRT2)), [X_HAZ], ew(_hazard)),
    S("exp_mult_by_definition", "exp_mult",
      _GSL + "specfunc/exp.c gsl_sf_exp_mult (y exp(x) without the overflow of exp(x) alone), written y * exp(x)",
      lambda x, y: y * pt.exp(x), [X_EXPM, Y_EXPM], ew(lambda x, y: y * mp.exp(x))),
    S("taylorcoeff_by_definition", "taylorcoeff",
      _GSL + "specfunc/gamma.c gsl_sf_taylorcoeff, as its documentation defines it: x**n / n!, written "
      "x**n / gamma(n + 1)",
      lambda n, x: x**n / pt.gamma(n + 1), [N_TAY, X_TAY], ew(lambda n, x: x**n / mp.gamma(n + 1))),
]


# --- scikit-learn: metrics and kernels -----------------------------------------------------------

Y_TW, MU_TW, P_TW = (floats(1.0, 3.0, 2.0, 1e-10, 1.0, 2.0), floats(1 + 2.0**-30, 3.000000003, 5.0, 1.0, 1.001, 3.0),
                     floats(1.5, 1.5, 1.5, 1.2, 3.0, 1 + 1e-9))
Y_MSLE = np.array([[1e-10, 2e-12, 5e-11], [1e-15, 1e-16, 3e-15], [1.0, 10.0, 100.0]])
P_MSLE = np.array([[3e-10, 1e-12, 0.0], [2e-15, 0.0, 1e-15], [2.0, 8.0, 150.0]])
D_RQ, A_RQ = floats(1.0, 4.0, 1e-5, 1.0, 1e4, 3.0), floats(1e12, 1e10, 1e15, 1.0, 0.5, 1e6)

_SK = "scikit-learn sklearn/"

_SKLEARN = [
    S("tweedie_deviance_near_the_fit", "tweedie_deviance",
      _SK + "metrics/_regression.py mean_tweedie_deviance's unit deviance for a power outside {0, 1, 2}: "
      "2 (max(y, 0)**(2-p) / ((1-p)(2-p)) - y mu**(1-p) / (1-p) + mu**(2-p) / (2-p))",
      lambda y, mu, p: 2 * (pt.maximum(y, 0) ** (2 - p) / ((1 - p) * (2 - p)) - y * mu ** (1 - p) / (1 - p)
                            + mu ** (2 - p) / (2 - p)),
      [Y_TW, MU_TW, P_TW], ew(_wide(_tweedie))),
    S("mean_squared_log_error_rows", "msle",
      _SK + "metrics/_regression.py mean_squared_log_error (the squared error of log1p(y), log1p(y_pred)) written "
      "with log(1 + y), averaged over each row",
      lambda y, p: pt.mean((pt.log(1 + y) - pt.log(1 + p)) ** 2, axis=-1), [Y_MSLE, P_MSLE], _msle_rows),
    S("rational_quadratic_large_alpha", "rational_quadratic",
      _SK + "gaussian_process/kernels.py RationalQuadratic.__call__: (1 + dists / (2 alpha length_scale**2))**-alpha, "
      "length_scale = 1, large alpha",
      lambda d, a: (1 + d / (2 * a)) ** -a, [D_RQ, A_RQ], ew(lambda d, a: mp.exp(-a * mp.log1p(d / (2 * a))))),
]


# --- statsmodels: links and copulas ---------------------------------------------------------------

P_CLL = floats(1e-20, 1e-10, 1e-5, 0.5, 0.999999, 0.3)
Z_NBID32 = floats(-1e-5, -1e-3, -1.0, -20.0, -80.0, -0.5, dtype="float32")
A_NBID32 = floats(1.0, 0.5, 2.0, 1.0, 1e-3, 1.0, dtype="float32")
Z_LID = floats(800.0, 400.0, -40.0, 0.0, 3.0, -700.0)
U_COP = np.array([[0.3, 0.6], [0.5, 0.5], [1e-8, 0.9], [0.999, 0.999], [0.2, 0.7], [0.999999, 0.5]])
TH_FRANK = floats(1e-10, 1e-5, 2.0, 40.0, -1e-8, 0.5)
U1_FLP, U2_FLP, TH_FLP = (floats(0.3, 0.5, 0.2, 0.7, 0.999, 1e-8), floats(0.6, 0.5, 0.9, 0.1, 0.999, 0.5),
                          floats(1e-10, 1e-6, 3.0, 2.0, 40.0, 0.5))
U_CLAY = np.array([[0.3, 0.6], [0.5, 0.5], [1e-5, 0.9], [0.2, 0.7], [0.9, 0.95], [0.01, 0.02]])
TH_CLAY = floats(1e-10, 1e-6, 2.0, 0.5, 1e-3, 5.0)

_SM = "statsmodels statsmodels/"


def _frank_cdf_graph(u, th):
    """statsmodels FrankCopula.cdf: -1/theta log(1 - prod(1 - exp(-theta u), -1) / (1 - exp(-theta))**(dim - 1))."""
    num = pt.prod(1 - pt.exp(-th[:, None] * u), axis=-1)
    den = (1 - pt.exp(-th)) ** (u.shape[-1] - 1)
    return -1.0 / th * pt.log(1 - num / den)


def _frank_logpdf_graph(u1, u2, th):
    """statsmodels FrankCopula.logpdf, its bivariate branch."""
    b = 1 - pt.exp(-th)
    pdf = pt.log(th * b) - th * (u1 + u2)
    return pdf - 2 * pt.log(b - (1 - pt.exp(-th * u1)) * (1 - pt.exp(-th * u2)))


def _clayton_cdf_graph(u, th):
    """statsmodels ClaytonCopula.cdf: (sum(u**-theta, -1) - d + 1)**(-1/theta)."""
    return (pt.sum(u ** (-th[:, None]), axis=-1) - u.shape[-1] + 1) ** (-1.0 / th)


_STATSMODELS = [
    S("cloglog_link_as_written", "cloglog",
      _SM + "genmod/families/links.py CLogLog.__call__: log(-log(1 - p))",
      lambda p: pt.log(-pt.log(1 - p)), [P_CLL], ew(lambda p: mp.log(-mp.log1p(-p)))),
    S("negative_binomial_link_inverse_deriv_f32", "nb_link_inverse_deriv",
      _SM + "genmod/families/links.py NegativeBinomial.inverse_deriv: t = exp(z); t / (alpha (1 - t)**2), "
      "z < 0, float32",
      lambda z, a: pt.exp(z) / (a * (1 - pt.exp(z)) ** 2), [Z_NBID32, A_NBID32],
      ew(lambda z, a: mp.exp(z) / (a * mp.expm1(z) ** 2)), "float32"),
    S("logit_link_inverse_deriv_as_written", "logistic_density",
      _SM + "genmod/families/links.py Logit.inverse_deriv: t = exp(z); t / (1 + t)**2",
      lambda z: pt.exp(z) / (1 + pt.exp(z)) ** 2, [Z_LID],
      ew(lambda z: mp.exp(-abs(z)) / (1 + mp.exp(-abs(z))) ** 2)),
    S("frank_copula_cdf_as_written", "frank_cdf",
      _SM + "distributions/copula/archimedean.py FrankCopula.cdf (a product over the last axis), small and large theta",
      _frank_cdf_graph, [U_COP, TH_FRANK], _frank_cdf),
    S("frank_copula_logpdf_as_written", "frank_logpdf",
      _SM + "distributions/copula/archimedean.py FrankCopula.logpdf's bivariate branch (its comment: 'todo: check "
      "expm1 and log1p for improved numerical precision')",
      _frank_logpdf_graph, [U1_FLP, U2_FLP, TH_FLP], ew(_wide(_frank_logpdf))),
    S("clayton_copula_cdf_as_written", "clayton_cdf",
      _SM + "distributions/copula/archimedean.py ClaytonCopula.cdf (a sum over the last axis), small theta",
      _clayton_cdf_graph, [U_CLAY, TH_CLAY], _clayton_cdf),
]


# --- Distributions.jl: univariate distributions ----------------------------------------------------

X_EPA, S_EPA = floats(-0.999999, -0.9999999999, -1 + 2.0**-40, 0.0, 0.5, -1.999999999), floats(1.0, 1.0, 1.0, 1.0, 1.0, 2.0)
T_BIW = floats(1e-3, 1e-2, -1e-4, 0.5, 3.0, 20.0, 700.0)
X_WPDF, L_WPDF, K_WPDF = (floats(40.0, 1e-300, 1.0, 5.0, 0.5, 1e-200), floats(1.0, 1.0, 1.0, 2.0, 2.0, 1.0),
                          floats(2.0, 3.0, 1.5, 500.0, 0.5, 0.5))
Y_LIND, T_LIND = floats(1e-10, 1e-300, 1e-6, 2.0, 40.0, 1e-8), floats(1.0, 2.0, 0.5, 1.0, 3.0, 1e3)
X_LEVY, S_LEVY = floats(1e-5, 1e-4, 1e-3, 1.0, 100.0, 1e10), floats(1.0, 1.0, 1.0, 1.0, 2.0, 1.0)

_DJ = "Distributions.jl src/univariate/continuous/"

_DISTRIBUTIONS_JL = [
    S("epanechnikov_cdf_as_written", "epanechnikov_cdf",
      _DJ + "epanechnikov.jl cdf: 1/2 + u (3/4 - u**2 / 4), u = (x - mu) / sigma, mu = 0, near the lower end",
      lambda x, s: 0.5 + (x / s) * (0.75 - (x / s) ** 2 / 4), [X_EPA, S_EPA],
      ew(lambda x, s: (1 + x / s) ** 2 * (2 - x / s) / 4)),
    S("biweight_mgf_as_written", "biweight_mgf",
      _DJ + "biweight.jl mgf (mu = 0, sigma = 1): 15 (-3 cosh(a) + (a + 3/a) sinh(a)) / (a**2)**2",
      lambda t: 15 * (-3 * pt.cosh(t) + (t + 3 / t) * pt.sinh(t)) / (t**2) ** 2, [T_BIW], ew(_wide(_biweight_mgf))),
    S("weibull_density_logged", "weibull_logpdf",
      _DJ + "weibull.jl logpdf (log(k / l) + (k - 1) log(z) - z**k, z = x / l) written as the log of the density "
      "(k / l) z**(k-1) exp(-z**k)",
      lambda x, lm, k: pt.log((k / lm) * (x / lm) ** (k - 1) * pt.exp(-((x / lm) ** k))), [X_WPDF, L_WPDF, K_WPDF],
      ew(lambda x, lm, k: mp.log(k / lm) + (k - 1) * mp.log(x / lm) - (x / lm) ** k)),
    S("levy_cdf_logged", "levy_logcdf",
      _DJ + "levy.jl: its cdf erfc(sqrt(sigma / (2 (x - mu)))) logged, mu = 0",
      lambda x, s: pt.log(pt.erfc(pt.sqrt(s / (2 * x)))), [X_LEVY, S_LEVY],
      ew(lambda x, s: mp.log(mp.erfc(mp.sqrt(s / (2 * x)))))),
    S("lindley_cdf_as_written", "lindley_cdf",
      _DJ + "lindley.jl cdf: 1 - ccdf, ccdf = (1 + theta y / (1 + theta)) exp(-theta y)",
      lambda y, t: 1 - (1 + t * y / (1 + t)) * pt.exp(-t * y), [Y_LIND, T_LIND],
      ew(_wide(lambda y, t: -mp.expm1(mp.log1p(t * y / (1 + t)) - t * y)))),
]

#: The fresh spellings.
FRESH: list[Spelling] = [*_PYTORCH, *_NUMPYRO, *_JULIA, *_RMATH, *_BOOST, *_GSLS, *_SKLEARN, *_STATSMODELS,
                         *_DISTRIBUTIONS_JL]
