"""Held-out spellings: the numerics corpus's kinds, kept aside to judge rules written without seeing them.

Same :class:`numerics_corpus.Spelling` type, same judgement
(:func:`numerics_corpus.accuracy`): each spelling is written as upstream
code, issues or benchmarks write it (pytensor #1181, #1831, #2313; PyMC's
distributions; Herbie's ``bench/hamming`` expressions), at inputs where
the naive spelling fails, against an mpmath closed form at 50 digits that
``numerics_corpus.check_spelling`` checks against the spelling's own graph.
Some targets are the corpus's, some are new.  ``python benchmarks/numerics.py
--heldout`` measures them.  Rule writers: do not read this file until the
rules are written; it measures how far they carry to spellings nobody
tuned them on.
"""

from __future__ import annotations

from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt

from numerics_corpus import (
    A_BETA,
    A_QUAD,
    B_BETA,
    B_QUAD,
    C_QUAD,
    M_LSE,
    M_SOFTMAX,
    SQ2,
    X_BIG,
    X_COSH,
    X_ERF_C,
    X_EXP2,
    X_EXPM1,
    X_EXPREL,
    X_FRAC,
    X_LEXPM1,
    X_LOG_ERF,
    X_LOGN,
    X_NDTR,
    X_POW1,
    X_SIGP,
    X_SINH,
    X_SMALLP,
    X_SOFTPLUS,
    X_TANH,
    Y_EXPM1,
    Y_SIGP,
    S,
    Spelling,
    betaln_ref,
    erfc_ref,
    ew,
    exp2_ref,
    exprel_ref,
    floats,
    frac_diff_ref,
    log1p_recip_ref,
    log_cosh_ref,
    log_erf_ref,
    log_expm1_ref,
    log_ndtr_ref,
    log_sinh_ref,
    log_softmax_ref,
    logpow_ref,
    lse_ref,
    quad_root_ref,
    sigmoid_ref,
    softmax_ref,
    softplus_ref,
    sqrt_diff_ref,
    tanh_ref,
)

__all__ = ["HELDOUT"]


def _log_ndtr(v: Any) -> Any:
    if v > 0:
        return mp.log1p(-mp.erfc(v / mp.sqrt(2)) / 2)
    return mp.log(mp.erfc(-v / mp.sqrt(2)) / 2)


X_ASINH = floats(-1e10, -1.0, 1e-20, 1.0, 1e200)
X_ASINH32 = floats(-1e5, -1.0, 1e-10, 1.0, 1e30, dtype="float32")
X_ACOSH = floats(1.0, 2.0, 1e10, 1e200)
X_ATAN = floats(1.0, 1e5, 1e10, 1e20)
X_TRIG, E_TRIG = floats(1.0, 10.0, 1e4), floats(1e-10, 1e-15, 1e-12)
X_COS2 = floats(1e-8, -1e-5, 0.5, 3.0, 1e3)
X_LOGQ = floats(1e-20, -1e-10, 0.5, -0.9)
X_ISQRT = floats(1.0, 1e5, 1e10, 1e20, 1e100)
X_3FRAC = floats(2.0, 1e3, 1e6, 1e10, 1e100)
X_EXPQ2 = floats(1e-20, -1e-10, 1.0, 800.0, -800.0)
X_POCH, Y_POCH = floats(0.5, 10.0, 200.0, 1e5), floats(3.0, 0.5, 100.0, 10.0)
X_LTANH = floats(1e-300, 1e-5, 1.0, 20.0, 800.0)
X_NEGS = floats(-1e-20, -1e-10, -1.0, -40.0, -800.0)
MU_NDTR, SIG_NDTR = floats(0.0, 1.0, -3.0, 2.0, 0.5, 0.0, 1.0, 0.0), floats(1.0, 2.0, 0.5, 1.0, 3.0, 0.1, 1.0, 4.0)
X_SIG = floats(-800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0)
X_SIG32 = floats(-100.0, -20.0, 0.0, 20.0, 100.0, dtype="float32")

_MOVED = [
    S("log(erfc(-x/sqrt(2)))+log(0.5)", "log_ndtr", "issue 44: the log of the product split by hand",
      lambda x: pt.log(pt.erfc(-x / SQ2)) + pt.log(0.5), [X_NDTR], log_ndtr_ref),
    S("log(1-0.5*erfc(x/sqrt(2)))", "log_ndtr", "the complement of the upper tail",
      lambda x: pt.log(1 - 0.5 * pt.erfc(x / SQ2)), [X_NDTR], log_ndtr_ref),
    S("2-erfc(-x)", "erfc", "erfc's reflection", lambda x: 2 - pt.erfc(-x), [X_ERF_C], erfc_ref),
    S("log(1+(-erfc(x)))", "log_erf", "an addition of a negation", lambda x: pt.log(1 + (-pt.erfc(x))), [X_LOG_ERF],
      log_erf_ref),
    S("log(-(1-exp(x)))", "log_expm1", "a negation of a subtraction", lambda x: pt.log(-(1 - pt.exp(x))), [X_LEXPM1],
      log_expm1_ref),
    S("log(exp(x)+exp(-x))-log(2)", "log_cosh", "a log-sum-exp of two terms, the constant outside",
      lambda x: pt.log(pt.exp(x) + pt.exp(-x)) - pt.log(2.0), [X_COSH], log_cosh_ref),
    S("log(0.5*exp(x)-0.5*exp(-x))", "log_sinh", "issue 44: constant weights inside a difference of exps",
      lambda x: pt.log(0.5 * pt.exp(x) - 0.5 * pt.exp(-x)), [X_SINH], log_sinh_ref),
    S("log(x*x*x)", "logpow", "issue 44: a product of three factors to regroup", lambda x: pt.log(x * x * x),
      [X_POW1], lambda x: logpow_ref(x, 3)),
    S("log(gamma(a)/gamma(a+b)*gamma(b))", "betaln", "issue 44: a product of three factors to regroup",
      lambda a, b: pt.log(pt.gamma(a) / pt.gamma(a + b) * pt.gamma(b)), [A_BETA, B_BETA], betaln_ref, rtol=1e-7),
    S("(x+1)**0.5-x**0.5", "sqrt_diff", "square roots as powers", lambda x: (x + 1) ** 0.5 - x**0.5, [X_BIG],
      sqrt_diff_ref),
    S("(x+1)**-1-x**-1", "frac_diff", "Herbie 2frac through powers -1", lambda x: (x + 1) ** -1 - x**-1, [X_FRAC],
      frac_diff_ref),
    S("(-1+exp(x))/x", "exprel", "operand order", lambda x: (-1 + pt.exp(x)) / x, [X_EXPREL], exprel_ref),
    S("log1p(x)-log(x)", "log1p_recip", "log1p spelled for the first term", lambda x: pt.log1p(x) - pt.log(x),
      [X_LOGN], log1p_recip_ref),
    S("(sqrt(b*b-4*a*c)-b)/(2*a)", "quadratic_root", "Herbie quadp, operand order",
      lambda a, b, c: (pt.sqrt(b * b - 4 * a * c) - b) / (2 * a), [A_QUAD, B_QUAD, C_QUAD], quad_root_ref),
    S("(exp(x)+exp(-x))-2", "exp2", "Herbie exp2, regrouped", lambda x: (pt.exp(x) + pt.exp(-x)) - 2, [X_EXP2],
      exp2_ref),
    S("log(sigmoid(x)/(1+exp(y)))", "log_sigmoid_product", "a quotient with a positive factor",
      lambda x, y: pt.log(pt.sigmoid(x) / (1 + pt.exp(y))), [X_SIGP, Y_SIGP],
      ew(lambda a, b: -mp.log1p(mp.exp(-a)) - mp.log1p(mp.exp(b)))),
    S("2*sigmoid(2*x)-1", "tanh", "tanh through sigmoid", lambda x: 2 * pt.sigmoid(2 * x) - 1, [X_TANH], tanh_ref),
    S("y+exp(x)-1", "expm1", "issue 44: the further term first", lambda x, y: y + pt.exp(x) - 1, [X_EXPM1, Y_EXPM1],
      ew(lambda a, b: mp.expm1(a) + b)),
    S("-log(1-x)", "log1p", "PyMC Exponential.icdf: -mu * log(1 - value)", lambda x: -pt.log(1 - x), [X_SMALLP],
      ew(lambda v: -mp.log1p(-v))),
    S("log(sum(exp(x)*ones_like(x),1))", "logsumexp", "a product with a ones Alloc under the sum",
      lambda x: pt.log(pt.sum(pt.exp(x) * pt.ones_like(x), axis=1)), [M_LSE], lambda x: lse_ref(x, 1)),
    S("exp(x[None])/sum(exp(x),1,keepdims)[None]", "softmax", "issue 44: a broadcast between the exp and its sum",
      lambda x: pt.exp(x[None]) / pt.sum(pt.exp(x), axis=1, keepdims=True)[None], [M_SOFTMAX],
      lambda x: softmax_ref(x)[None]),

]

_NEW_TARGETS = [
    S("log(x+sqrt(x*x+1))", "asinh", "Herbie/FPBench hyperbolic functions: asinh as a log",
      lambda x: pt.log(x + pt.sqrt(x * x + 1)), [X_ASINH], ew(mp.asinh)),
    S("log(x+sqrt(x**2+1))", "asinh", "asinh as a log, a power for the square",
      lambda x: pt.log(x + pt.sqrt(x**2 + 1)), [X_ASINH], ew(mp.asinh)),
    S("log(x+sqrt(x*x+1)) f32", "asinh", "float32", lambda x: pt.log(x + pt.sqrt(x * x + 1)), [X_ASINH32],
      ew(mp.asinh), "float32"),
    S("log(x+sqrt(x*x-1))", "acosh", "Herbie/FPBench hyperbolic functions: acosh as a log",
      lambda x: pt.log(x + pt.sqrt(x * x - 1)), [X_ACOSH], ew(mp.acosh)),
    S("log(x+sqrt((x-1)*(x+1)))", "acosh", "acosh as a log, the difference of squares factored",
      lambda x: pt.log(x + pt.sqrt((x - 1) * (x + 1))), [X_ACOSH], ew(mp.acosh)),
    S("arctan(x+1)-arctan(x)", "atan_diff", "Herbie bench/hamming/trigonometry.fpcore: 2atan (example 3.5)",
      lambda x: pt.arctan(x + 1) - pt.arctan(x), [X_ATAN], ew(lambda v: mp.atan(1 / (1 + v * (v + 1))))),
    S("-(arctan(x)-arctan(1+x))", "atan_diff", "Herbie 2atan, a negation of a subtraction",
      lambda x: -(pt.arctan(x) - pt.arctan(1 + x)), [X_ATAN], ew(lambda v: mp.atan(1 / (1 + v * (v + 1))))),
    S("sin(x+e)-sin(x)", "sin_diff", "Herbie bench/hamming/trigonometry.fpcore: 2sin (example 3.3)",
      lambda x, e: pt.sin(x + e) - pt.sin(x), [X_TRIG, E_TRIG], ew(lambda v, e: 2 * mp.cos(v + e / 2) * mp.sin(e / 2))),
    S("cos(x+e)-cos(x)", "cos_diff", "Herbie bench/hamming/trigonometry.fpcore: 2cos (problem 3.3.5)",
      lambda x, e: pt.cos(x + e) - pt.cos(x), [X_TRIG, E_TRIG],
      ew(lambda v, e: -2 * mp.sin(v + e / 2) * mp.sin(e / 2))),
    S("(1-cos(x))/(x*x)", "cos2", "Herbie bench/hamming/series.fpcore: cos2 (problem 3.4.1)",
      lambda x: (1 - pt.cos(x)) / (x * x), [X_COS2], ew(lambda v: 2 * mp.sin(v / 2) ** 2 / v**2)),
    S("(1-cos(x))/sqr(x)", "cos2", "Herbie cos2 with a square", lambda x: (1 - pt.cos(x)) / pt.sqr(x), [X_COS2],
      ew(lambda v: 2 * mp.sin(v / 2) ** 2 / v**2)),
    S("log((1-x)/(1+x))", "logq", "Herbie bench/hamming/series.fpcore: logq (problem 3.4.3)",
      lambda x: pt.log((1 - x) / (1 + x)), [X_LOGQ], ew(lambda v: mp.log1p(-v) - mp.log1p(v))),
    S("log(1-x)-log(1+x)", "logq", "Herbie logq, the quotient split by hand", lambda x: pt.log(1 - x) - pt.log(1 + x),
      [X_LOGQ], ew(lambda v: mp.log1p(-v) - mp.log1p(v))),
    S("1/sqrt(x)-1/sqrt(x+1)", "isqrt_diff", "Herbie bench/hamming/rearrangement.fpcore: 2isqrt (example 3.6)",
      lambda x: 1 / pt.sqrt(x) - 1 / pt.sqrt(x + 1), [X_ISQRT],
      ew(lambda v: 1 / ((v + 1) * mp.sqrt(v) + v * mp.sqrt(v + 1)))),
    S("x**-0.5-(x+1)**-0.5", "isqrt_diff", "Herbie 2isqrt through powers", lambda x: x**-0.5 - (x + 1) ** -0.5,
      [X_ISQRT], ew(lambda v: 1 / ((v + 1) * mp.sqrt(v) + v * mp.sqrt(v + 1)))),
    S("1/(x+1)-2/x+1/(x-1)", "3frac", "Herbie bench/hamming/rearrangement.fpcore: 3frac (problem 3.3.3)",
      lambda x: 1 / (x + 1) - 2 / x + 1 / (x - 1), [X_3FRAC], ew(lambda v: 2 / (v * (v * v - 1)))),
    S("exp(x)/(exp(x)-1)", "expq2", "Herbie bench/hamming/overflow-underflow.fpcore: expq2 (section 3.11)",
      lambda x: pt.exp(x) / (pt.exp(x) - 1), [X_EXPQ2], ew(lambda v: -1 / mp.expm1(-v))),
    S("1/(1-exp(-x))", "expq2", "Herbie expq2's target form, unspelled", lambda x: 1 / (1 - pt.exp(-x)), [X_EXPQ2],
      ew(lambda v: -1 / mp.expm1(-v))),
    S("log(gamma(x+y)/gamma(x))", "log_poch", "pytensor #1181: log(poch) through gamma",
      lambda x, y: pt.log(pt.gamma(x + y) / pt.gamma(x)), [X_POCH, Y_POCH],
      ew(lambda a, b: mp.loggamma(a + b) - mp.loggamma(a)), rtol=1e-7),
    S("log(gamma(x+y))-log(gamma(x))", "log_poch", "pytensor #1181: log(gamma) twice",
      lambda x, y: pt.log(pt.gamma(x + y)) - pt.log(pt.gamma(x)), [X_POCH, Y_POCH],
      ew(lambda a, b: mp.loggamma(a + b) - mp.loggamma(a)), rtol=1e-7),
    S("log(tanh(x))", "log_tanh", "issue 44: the log of a hyperbolic function at large arguments",
      lambda x: pt.log(pt.tanh(x)), [X_LTANH], ew(lambda v: mp.log(mp.tanh(v)))),
    S("log(sinh(x)/cosh(x))", "log_tanh", "a quotient of hyperbolic functions, logged",
      lambda x: pt.log(pt.sinh(x) / pt.cosh(x)), [X_LTANH], ew(lambda v: mp.log(mp.tanh(v)))),
    S("arctan(x+1)-arctan(x) f32", "atan_diff", "Herbie 2atan (float32)", lambda x: pt.arctan(x + 1) - pt.arctan(x),
      [floats(1.0, 1e3, 1e5, dtype="float32")], ew(lambda v: mp.atan(1 / (1 + v * (v + 1)))), "float32"),
    S("log(tanh(x)) f32", "log_tanh", "float32", lambda x: pt.log(pt.tanh(x)),
      [floats(1e-30, 1e-3, 1.0, 10.0, dtype="float32")], ew(lambda v: mp.log(mp.tanh(v))), "float32"),
    S("log1mexp(log1mexp(x))", "log1mexp_twice", "pytensor #1831: log1mexp(log1mexp(x)) -> x",
      lambda x: pt.log1mexp(pt.log1mexp(x)), [X_NEGS], ew(lambda v: v)),
]

_MORE = [
    S("log(0.5*erfc(-(x-mu)/(sigma*sqrt(2))))", "log_ndtr", "PyMC normal_lcdf written as one erfc, three inputs",
      lambda x, mu, s: pt.log(0.5 * pt.erfc(-(x - mu) / (s * SQ2))), [X_NDTR, MU_NDTR, SIG_NDTR],
      ew(lambda x, mu, s: _log_ndtr((x - mu) / s))),
    S("log(erfc(-x/sqrt(2)))-log(2)", "log_ndtr", "issue 44: the constant factor as a subtracted log",
      lambda x: pt.log(pt.erfc(-x / SQ2)) - pt.log(2.0), [X_NDTR], log_ndtr_ref),
    S("log(0.5*(1+erf(x/sqrt(2))))", "log_ndtr", "the normal CDF through erf, the factor outside",
      lambda x: pt.log(0.5 * (1 + pt.erf(x / SQ2))), [X_NDTR], log_ndtr_ref),
    S("(1-erf(x))*ones((2,1))", "erfc", "a broadcast as a product with ones", lambda x: (1 - pt.erf(x)) * pt.ones((2, 1)),
      [X_ERF_C], lambda x: np.broadcast_to(erfc_ref(x), (2, len(x)))),
    S("log(exp(x[:,0])+exp(x[:,1])+exp(x[:,2]))", "logsumexp", "a sum of exps over the columns, indexed",
      lambda x: pt.log(pt.exp(x[:, 0]) + pt.exp(x[:, 1]) + pt.exp(x[:, 2])), [M_LSE], lambda x: lse_ref(x, 1)),
    S("log(sum(exp(x)/3,1))+log(3)", "logsumexp", "a mean of exps, the count put back as a log",
      lambda x: pt.log(pt.sum(pt.exp(x) / 3, axis=1)) + pt.log(3.0), [M_LSE], lambda x: lse_ref(x, 1)),
    S("exp(x)/sum(exp(x),1).reshape((2,1))", "softmax", "the denominator reshaped instead of keepdims",
      lambda x: pt.exp(x) / pt.sum(pt.exp(x), axis=1).reshape((2, 1)), [M_SOFTMAX], softmax_ref),
    S("exp(x)[0]/sum(exp(x)[0])", "softmax", "one row indexed before the softmax's sum",
      lambda x: pt.exp(x)[0] / pt.sum(pt.exp(x)[0]), [M_SOFTMAX], lambda x: softmax_ref(x)[0]),
    S("log(exp(x)/dot(exp(x),ones((3,1))))", "log_softmax", "the sum as a product with a column of ones",
      lambda x: pt.log(pt.exp(x) / pt.dot(pt.exp(x), pt.ones((3, 1)))), [M_SOFTMAX], log_softmax_ref),
    S("-log(1-sigmoid(x))", "softplus", "softplus through the complement of a sigmoid",
      lambda x: -pt.log(1 - pt.sigmoid(x)), [X_SOFTPLUS], softplus_ref),
    S("log(1+exp(x))*ones((2,1))", "softplus", "a broadcast as a product with ones",
      lambda x: pt.log(1 + pt.exp(x)) * pt.ones((2, 1)), [X_SOFTPLUS],
      lambda x: np.broadcast_to(softplus_ref(x), (2, len(x)))),
    S("(exp(x)-1)+(exp(y)-1)", "expm1", "two expm1s in a sum", lambda x, y: (pt.exp(x) - 1) + (pt.exp(y) - 1),
      [X_EXPM1, Y_EXPM1], ew(lambda a, b: mp.expm1(a) + mp.expm1(b))),
    S("log(1+2*x)", "log1p", "a constant factor on the small term", lambda x: pt.log(1 + 2 * x), [X_SMALLP],
      ew(lambda v: mp.log1p(2 * v))),
    S("1/(1+exp(-x)) f32", "sigmoid", "float32", lambda x: 1 / (1 + pt.exp(-x)), [X_SIG32], sigmoid_ref, "float32"),
    S("log(0.5*(1+erf(x/sqrt(2)))) f32", "log_ndtr", "float32",
      lambda x: pt.log(0.5 * (1 + pt.erf(x / SQ2))), [floats(-20.0, -5.0, 0.0, 3.0, 6.0, dtype="float32")],
      ew(_log_ndtr), "float32"),
    S("log(cosh(x)*ones((2,1)))", "log_cosh", "a broadcast as a product with ones",
      lambda x: pt.log(pt.cosh(x) * pt.ones((2, 1))), [X_COSH], lambda x: np.broadcast_to(log_cosh_ref(x), (2, len(x)))),
]

#: The held-out spellings.
HELDOUT: tuple[Spelling, ...] = tuple(_MOVED + _NEW_TARGETS + _MORE)
