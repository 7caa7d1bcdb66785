"""The FPBench and Herbie benchmark expressions PyTensor can express: a held-out measure of the numerics theory.

Each :class:`Benchmark` is one ``FPCore`` of the benchmark suites, transcribed into a PyTensor graph, in
the record format of ``numerics_heldout.py`` (a :class:`numerics_corpus.Spelling`): ``build`` is the
transcription (written out from the FPCore's text by a one-off script, then read over and kept as code here:
a ``let`` a local variable, ``(- x)`` a negation, FPCore's left-nested operations Python's
left-to-right ones, ``atan`` ``pt.arctan``, ``fabs`` ``pt.abs``, ``pow`` ``**``, ``cbrt`` ``** (1 / 3)``, only where
the precondition keeps its operand positive), and ``reference`` is the ``FPCore`` itself, read and evaluated
exactly by :mod:`fpcore` (mpmath), not the transcription: a transcription error makes the two differ
(``tests/test_numerics_fpbench.py``).  ``fpcore`` keeps the FPCore's text (its arguments, ``:name``,
``:precision`` and ``:pre`` and its body, printed again on one line, square brackets as parentheses,
comments and the other properties left out; the cube root's transcription is ``pow`` of the double nearest
a third, whose exact value differs from the cube root's by about ``1e-16 log(x)`` relatively); ``ranges`` are the intervals its ``:pre`` bounds each argument to (the whole float range where it sets
no bound), inside which :meth:`Benchmark.sample` draws as Herbie does (uniformly over the bit patterns of
the floats between the bounds), keeping the points where the whole ``:pre`` holds; ``values`` is one point
inside the precondition where the float64 (float32 for ``:precision binary32``) graph is finite.  ``target``
is the suite (``herbie-hamming``, ``fpbench-rosa``, ...); ``cite`` the source file, in the repositories
at the commits :data:`SOURCES` names.

Sources: Herbie's ``bench/hamming/*.fpcore`` (Hamming's "Numerical Methods for Scientists and Engineers",
chapter 3, as Herbie's test suite writes it today: every one of its 28), and FPBench's ``benchmarks/``
(hamming-ch3 (the same problems as the Herbie paper of 2015 wrote them, with other preconditions),
herbie, graphics, rump, daisy, fptaylor-tests, fptaylor-extra, fptaylor-real2float, rosa): every FPCore
whose body is elementwise arithmetic and functions PyTensor has.  :data:`SKIPPED` lists the others and why
(loops, conditionals, mixed precision).

Rule writers: do not write rules from this file; it measures how far the numerics theory carries to
expressions nobody tuned it on (``python benchmarks/numerics_bits.py --fpbench``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath as mp
import numpy as np
import pytensor.tensor as pt

from fpcore import FPCore, evaluate, parse
from graph_bridge.float_error import sample_floats
from numerics_corpus import Spelling, ew

__all__ = ["FPBENCH", "SKIPPED", "SOURCES", "Benchmark"]

#: The repositories and the commits the FPCores were read from.
SOURCES = {
    "herbie-fp/herbie": "1863fcf4fb1e1e103f89e16926d4a9dabbba6366",
    "FPBench/FPBench": "7e2b76b1c3b55f923753e23ddfc979f847c50dbb",
}
F64_MAX = float(np.finfo("float64").max)
F32_MAX = float(np.finfo("float32").max)
#: No bound: every finite float64 (float32).
FULL = (-F64_MAX, F64_MAX)
FULL32 = (-F32_MAX, F32_MAX)


def floats_between(lo: float, hi: float, size: int, rng: np.random.Generator, dtype: str = "float64") -> np.ndarray:
    """``size`` floats of ``dtype`` in ``[lo, hi]``, uniform over their bit patterns (Herbie's sampling)."""
    return sample_floats(dtype, size, rng, within=(lo, hi))


@dataclass(frozen=True)
class Benchmark(Spelling):
    """An FPCore transcribed (:class:`numerics_corpus.Spelling`, with its text and the ranges of its ``:pre``)."""

    fpcore: str = ""
    ranges: tuple[tuple[float, float], ...] = ()

    def core(self) -> FPCore:
        """The FPCore read from :attr:`fpcore`."""
        [core] = parse(self.fpcore)
        return core

    def variables(self) -> list[pt.TensorVariable]:
        """Fresh float vectors named as the FPCore's arguments."""
        return [pt.tensor(a, dtype=self.dtype, shape=(None,)) for a in self.core().args]

    def admits(self, *values: np.ndarray) -> np.ndarray:
        """Where the FPCore's ``:pre`` holds at ``values`` (one array per argument, broadcast), evaluated exactly."""
        core = self.core()
        cols = np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in values])
        out = np.empty(cols[0].shape, dtype=bool)
        with mp.workprec(256):
            for idx in np.ndindex(out.shape):
                env = {a: mp.mpf(float(c[idx])) for a, c in zip(core.args, cols, strict=True)}
                out[idx] = bool(evaluate(core.pre, env))
        return out

    def sample(self, n: int, rng: np.random.Generator, tries: int = 64) -> tuple[np.ndarray, ...]:
        """Up to ``n`` points where the ``:pre`` holds: each argument drawn uniformly over the bit patterns of
        the floats in its range, ``4 n`` at a time, ``tries`` times at most (one array of length <= n each)."""
        kept: list[list[np.ndarray]] = [[] for _ in self.ranges]
        count = 0
        for _ in range(tries):
            cols = [floats_between(lo, hi, 4 * n, rng, self.dtype) for lo, hi in self.ranges]
            ok = self.admits(*cols)
            for k, c in enumerate(cols):
                kept[k].append(c[ok])
            count += int(ok.sum())
            if count >= n:
                break
        return tuple(np.concatenate(k)[:n] for k in kept)


def B(  # noqa: N802 - a record constructor, as numerics_corpus.S
    name: str, path: str, fpcore: str, build: Callable[..., Any], ranges: Sequence[tuple[float, float]],
    point: Sequence[float], dtype: str = "float64",
) -> Benchmark:
    """A record: the FPCore ``fpcore`` of the file ``path``, its transcription ``build``, its ``ranges`` and a
    ``point`` inside its precondition; the reference is the FPCore evaluated exactly."""
    [core] = parse(fpcore)
    if not name.startswith(core.name):
        raise ValueError(f"name: {name!r} is not the FPCore's own name {core.name!r}")
    if len(ranges) != len(core.args) or len(point) != len(core.args):
        raise ValueError(f"{name}: ranges and point need one entry per argument {core.args}")
    repo = "herbie-fp/herbie" if path.startswith("bench/") else "FPBench/FPBench"
    suite = "herbie-hamming" if path.startswith("bench/hamming") else "fpbench-" + path.split("/")[-1][: -len(".fpcore")]

    def exact(*xs: Any) -> Any:
        return evaluate(core.body, dict(zip(core.args, xs, strict=True)))

    return Benchmark(name, suite, f"{repo} {path}: FPCore {core.name!r}", build,
                     tuple(np.array([v], dtype=dtype) for v in point), ew(exact), dtype,
                     fpcore=fpcore, ranges=tuple((float(lo), float(hi)) for lo, hi in ranges))


# transcriptions with a let: a function, its bindings local variables
def _quadp_p42_positive(a, b, c):
    d = pt.sqrt(b * b - 4 * (a * c))
    return (-b + d) / (2 * a)


def _quadm_p42_negative(a, b, c):
    d = pt.sqrt(b * b - 4 * (a * c))
    return (-b - d) / (2 * a)


def _quad2m_problem_3_2_1_negative(a, b_2, c):
    d = pt.sqrt(b_2 * b_2 - a * c)
    return (-b_2 - d) / a


def _quad2p_problem_3_2_1_positive(a, b_2, c):
    d = pt.sqrt(b_2 * b_2 - a * c)
    return (-b_2 + d) / a


def _rump_s_example_from_c_program(a, b):
    b2 = b * b
    b4 = b2 * b2
    b6 = b4 * b2
    b8 = b4 * b4
    a2 = a * a
    firstexpr = 11 * a2 * b2 - b6 - 121 * b4 - 2
    return 333.75 * b6 + a2 * firstexpr + 5.5 * b8 + a / (2 * b)


def _rump_s_example_revisited_for_floating_point(a, b):
    b2 = b * b
    b4 = b2 * b2
    b6 = b4 * b2
    b8 = b4 * b4
    a2 = a * a
    firstexpr = 11 * a2 * b2 - 121 * b4 - 2
    return (333.75 - a2) * b6 + a2 * firstexpr + 5.5 * b8 + a / (2 * b)


def _carthesiantopolar_theta(x, y):
    pi = 3.14159265359
    radiant = pt.arctan(y / x)
    return radiant * (180.0 / pi)


def _polartocarthesian_x(radius, theta):
    pi = 3.14159265359
    radiant = theta * (pi / 180.0)
    return radius * pt.cos(radiant)


def _polartocarthesian_y(radius, theta):
    pi = 3.14159265359
    radiant = theta * (pi / 180.0)
    return radius * pt.sin(radiant)


def _instantaneouscurrent(t, resistance, frequency, inductance, maxVoltage):
    pi = 3.14159265359
    impedance_re = resistance
    impedance_im = 2 * pi * frequency * inductance
    denom = impedance_re * impedance_re + impedance_im * impedance_im
    current_re = maxVoltage * impedance_re / denom
    current_im = -(maxVoltage * impedance_im) / denom
    maxCurrent = pt.sqrt(current_re * current_re + current_im * current_im)
    theta = pt.arctan(current_im / current_re)
    return maxCurrent * pt.cos(2 * pi * frequency * t + theta)


def _sec4_example(x, y):
    t = x * y
    return (t - 1) / (t * t - 1)


def _test01_sum3(x0, x1, x2):
    p0 = x0 + x1 - x2
    p1 = x1 + x2 - x0
    p2 = x2 + x0 - x1
    return p0 + p1 + p2


def _test04_dqmom9(m0, m1, m2, w0, w1, w2, a0, a1, a2):
    v2 = w2 * (0 - m2) * (-3 * (1 * (a2 / w2) * (a2 / w2)))
    v1 = w1 * (0 - m1) * (-3 * (1 * (a1 / w1) * (a1 / w1)))
    v0 = w0 * (0 - m0) * (-3 * (1 * (a0 / w0) * (a0 / w0)))
    return 0.0 + (v0 * 1 + (v1 * 1 + (v2 * 1 + 0.0)))


def _test05_nonlin1_r4(x):
    r1 = x - 1
    r2 = x * x
    return r1 / (r2 - 1)


def _sum(x0, x1, x2):
    p0 = x0 + x1 - x2
    p1 = x1 + x2 - x0
    p2 = x2 + x0 - x1
    return p0 + p1 + p2


def _nonlin2(x, y):
    t = x * y
    return (t - 1) / (t * t - 1)


def _himmilbeau(x1, x2):
    a = x1 * x1 + x2 - 11
    b = x1 + x2 * x2 - 7
    return a * a + b * b


def _logexp_fptaylor_real2float(x):
    e = pt.exp(x)
    return pt.log(1 + e)


def _sphere(x, r, lat, lon):
    sinLat = pt.sin(lat)
    cosLon = pt.cos(lon)
    return x + r * sinLat * cosLon


def _azimuth(lat1, lat2, lon1, lon2):
    dLon = lon2 - lon1
    s_lat1 = pt.sin(lat1)
    c_lat1 = pt.cos(lat1)
    s_lat2 = pt.sin(lat2)
    c_lat2 = pt.cos(lat2)
    s_dLon = pt.sin(dLon)
    c_dLon = pt.cos(dLon)
    return pt.arctan(c_lat2 * s_dLon / (c_lat1 * s_lat2 - s_lat1 * c_lat2 * c_dLon))


def _hartman3(x1, x2, x3):
    e1 = 3.0 * ((x1 - 0.3689) * (x1 - 0.3689)) + 10.0 * ((x2 - 0.117) * (x2 - 0.117)) + 30.0 * ((x3 - 0.2673) * (x3 - 0.2673))
    e2 = 0.1 * ((x1 - 0.4699) * (x1 - 0.4699)) + 10.0 * ((x2 - 0.4387) * (x2 - 0.4387)) + 35.0 * ((x3 - 0.747) * (x3 - 0.747))
    e3 = 3.0 * ((x1 - 0.1091) * (x1 - 0.1091)) + 10.0 * ((x2 - 0.8732) * (x2 - 0.8732)) + 30.0 * ((x3 - 0.5547) * (x3 - 0.5547))
    e4 = 0.1 * ((x1 - 0.03815) * (x1 - 0.03815)) + 10.0 * ((x2 - 0.5743) * (x2 - 0.5743)) + 35.0 * ((x3 - 0.8828) * (x3 - 0.8828))
    exp1 = pt.exp(-e1)
    exp2 = pt.exp(-e2)
    exp3 = pt.exp(-e3)
    exp4 = pt.exp(-e4)
    return -(1.0 * exp1 + 1.2 * exp2 + 3.0 * exp3 + 3.2 * exp4)


def _hartman6(x1, x2, x3, x4, x5, x6):
    e1 = 10.0 * ((x1 - 0.1312) * (x1 - 0.1312)) + 3.0 * ((x2 - 0.1696) * (x2 - 0.1696)) + 17.0 * ((x3 - 0.5569) * (x3 - 0.5569)) + 3.5 * ((x4 - 0.0124) * (x4 - 0.0124)) + 1.7 * ((x5 - 0.8283) * (x5 - 0.8283)) + 8.0 * ((x6 - 0.5886) * (x6 - 0.5886))
    e2 = 0.05 * ((x1 - 0.2329) * (x1 - 0.2329)) + 10.0 * ((x2 - 0.4135) * (x2 - 0.4135)) + 17.0 * ((x3 - 0.8307) * (x3 - 0.8307)) + 0.1 * ((x4 - 0.3736) * (x4 - 0.3736)) + 8.0 * ((x5 - 0.1004) * (x5 - 0.1004)) + 14.0 * ((x6 - 0.9991) * (x6 - 0.9991))
    e3 = 3.0 * ((x1 - 0.2348) * (x1 - 0.2348)) + 3.5 * ((x2 - 0.1451) * (x2 - 0.1451)) + 1.7 * ((x3 - 0.3522) * (x3 - 0.3522)) + 10.0 * ((x4 - 0.2883) * (x4 - 0.2883)) + 17.0 * ((x5 - 0.3047) * (x5 - 0.3047)) + 8.0 * ((x6 - 0.665) * (x6 - 0.665))
    e4 = 17.0 * ((x1 - 0.4047) * (x1 - 0.4047)) + 8.0 * ((x2 - 0.8828) * (x2 - 0.8828)) + 0.05 * ((x3 - 0.8732) * (x3 - 0.8732)) + 10.0 * ((x4 - 0.5743) * (x4 - 0.5743)) + 0.1 * ((x5 - 0.1091) * (x5 - 0.1091)) + 14.0 * ((x6 - 0.0381) * (x6 - 0.0381))
    exp1 = pt.exp(-e1)
    exp2 = pt.exp(-e2)
    exp3 = pt.exp(-e3)
    exp4 = pt.exp(-e4)
    return -(1.0 * exp1 + 1.2 * exp2 + 3.0 * exp3 + 3.2 * exp4)


def _doppler1(u, v, T):
    t1 = 331.4 + 0.6 * T
    return -t1 * v / ((t1 + u) * (t1 + u))


def _doppler2(u, v, T):
    t1 = 331.4 + 0.6 * T
    return -t1 * v / ((t1 + u) * (t1 + u))


def _doppler3(u, v, T):
    t1 = 331.4 + 0.6 * T
    return -t1 * v / ((t1 + u) * (t1 + u))


def _jetengine(x1, x2):
    t = 3 * x1 * x1 + 2 * x2 - x1
    t_star = 3 * x1 * x1 - 2 * x2 - x1
    d = x1 * x1 + 1
    s = t / d
    s_star = t_star / d
    return x1 + ((2 * x1 * s * (s - 3) + x1 * x1 * (4 * s - 6)) * d + 3 * x1 * x1 * s + x1 * x1 * x1 + x1 + 3 * s_star)


def _verhulst(x):
    r = 4.0
    K = 1.11
    return r * x / (1 + x / K)


def _predatorprey(x):
    r = 4.0
    K = 1.11
    return r * x * x / (1 + x / K * (x / K))


def _carbongas(v):
    p = 3.5e7
    a = 0.401
    b = 42.7e-6
    t = 300
    n = 1000
    k = 1.3806503e-23
    return (p + a * (n / v) * (n / v)) * (v - n * b) - k * n * t


def _triangle(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle1(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle2(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle3(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle4(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle5(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle6(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle7(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle8(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle9(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle10(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle11(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


def _triangle12(a, b, c):
    s = (a + b + c) / 2
    return pt.sqrt(s * (s - a) * (s - b) * (s - c))


#: The transcribed FPCores.
FPBENCH: tuple[Benchmark, ...] = (
    # herbie-hamming
    B('expax (section 3.5)', 'bench/hamming/machine-decide.fpcore',
      '(FPCore (a x) :name "expax (section 3.5)" :pre (> 710 (* a x)) (- (exp (* a x)) 1))',
      lambda a, x: pt.exp(a * x) - 1, [FULL, FULL], [-2.5, 0.001]),
    B('expq2 (section 3.11)', 'bench/hamming/overflow-underflow.fpcore',
      '(FPCore (x) :name "expq2 (section 3.11)" :pre (> 710 x) (/ (exp x) (- (exp x) 1)))',
      lambda x: pt.exp(x) / (pt.exp(x) - 1), [(-F64_MAX, 710.0)], [0.1]),
    B('quadp (p42, positive)', 'bench/hamming/quadratic.fpcore',
      '(FPCore (a b c) :name "quadp (p42, positive)" (let ((d (sqrt (- (* b b) (* 4 (* a c)))))) (/ (+ (- b) d) (* 2 a))))',
      _quadp_p42_positive, [FULL, FULL, FULL], [-1.5, 0.001, 5.0]),
    B('quadm (p42, negative)', 'bench/hamming/quadratic.fpcore',
      '(FPCore (a b c) :name "quadm (p42, negative)" (let ((d (sqrt (- (* b b) (* 4 (* a c)))))) (/ (- (- b) d) (* 2 a))))',
      _quadm_p42_negative, [FULL, FULL, FULL], [100.5, 1000.0, 0.01]),
    B('quad2m (problem 3.2.1, negative)', 'bench/hamming/quadratic.fpcore',
      '(FPCore (a b_2 c) :name "quad2m (problem 3.2.1, negative)" (let ((d (sqrt (- (* b_2 b_2) (* a c))))) (/ (- (- b_2) d) a)))',
      _quad2m_problem_3_2_1_negative, [FULL, FULL, FULL], [-0.5, 0.001, 100.5]),
    B('quad2p (problem 3.2.1, positive)', 'bench/hamming/quadratic.fpcore',
      '(FPCore (a b_2 c) :name "quad2p (problem 3.2.1, positive)" (let ((d (sqrt (- (* b_2 b_2) (* a c))))) (/ (+ (- b_2) d) a)))',
      _quad2p_problem_3_2_1_positive, [FULL, FULL, FULL], [-1.5, 100000.0, 1.5]),
    B('2sqrt (example 3.1)', 'bench/hamming/rearrangement.fpcore',
      '(FPCore (x) :name "2sqrt (example 3.1)" :pre (and (> x 1) (< x 1e+308)) (- (sqrt (+ x 1)) (sqrt x)))',
      lambda x: pt.sqrt(x + 1) - pt.sqrt(x), [(1.0, 1e+308)], [7.0]),
    B('2isqrt (example 3.6)', 'bench/hamming/rearrangement.fpcore',
      '(FPCore (x) :name "2isqrt (example 3.6)" :pre (and (> x 1) (< x 1e+308)) (- (/ 1 (sqrt x)) (/ 1 (sqrt (+ x 1)))))',
      lambda x: 1 / pt.sqrt(x) - 1 / pt.sqrt(x + 1), [(1.0, 1e+308)], [100000.0]),
    B('2frac (problem 3.3.1)', 'bench/hamming/rearrangement.fpcore',
      '(FPCore (x) :name "2frac (problem 3.3.1)" (- (/ 1 (+ x 1)) (/ 1 x)))',
      lambda x: 1 / (x + 1) - 1 / x, [FULL], [100.5]),
    B('3frac (problem 3.3.3)', 'bench/hamming/rearrangement.fpcore',
      '(FPCore (x) :name "3frac (problem 3.3.3)" :pre (> (fabs x) 1) (+ (- (/ 1 (+ x 1)) (/ 2 x)) (/ 1 (- x 1))))',
      lambda x: 1 / (x + 1) - 2 / x + 1 / (x - 1), [FULL], [1.5]),
    B('2cbrt (problem 3.3.4)', 'bench/hamming/rearrangement.fpcore',
      '(FPCore (x) :name "2cbrt (problem 3.3.4)" :pre (and (> x 1) (< x 1e+308)) (- (cbrt (+ x 1)) (cbrt x)))',
      lambda x: (x + 1) ** (1 / 3) - x ** (1 / 3), [(1.0, 1e+308)], [1000.0]),
    B('2log (problem 3.3.6)', 'bench/hamming/rearrangement.fpcore',
      '(FPCore (N) :name "2log (problem 3.3.6)" :pre (and (> N 1) (< N 1e+40)) (- (log (+ N 1)) (log N)))',
      lambda N: pt.log(N + 1) - pt.log(N), [(1.0, 1e+40)], [1000.0]),
    B('exp2 (problem 3.3.7)', 'bench/hamming/rearrangement.fpcore',
      '(FPCore (x) :name "exp2 (problem 3.3.7)" :pre (<= (fabs x) 710) (+ (- (exp x) 2) (exp (- x))))',
      lambda x: pt.exp(x) - 2 + pt.exp(-x), [(-710.0, 710.0)], [-2.5]),
    B('expm1 (example 3.7)', 'bench/hamming/series.fpcore',
      '(FPCore (x) :name "expm1 (example 3.7)" :pre (<= (fabs x) 1) (- (exp x) 1))',
      lambda x: pt.exp(x) - 1, [(-1.0, 1.0)], [0.3]),
    B('logs (example 3.8)', 'bench/hamming/series.fpcore',
      '(FPCore (n) :name "logs (example 3.8)" :pre (> n 6.8e+15) (- (- (* (+ n 1) (log (+ n 1))) (* n (log n))) 1))',
      lambda n: (n + 1) * pt.log(n + 1) - n * pt.log(n) - 1, [(6800000000000000.0, F64_MAX)], [1.782462520401536e+268]),
    B('invcot (example 3.9)', 'bench/hamming/series.fpcore',
      '(FPCore (x) :name "invcot (example 3.9)" :pre (and (< -0.026 x) (< x 0.026)) (- (/ 1 x) (/ 1 (tan x))))',
      lambda x: 1 / x - 1 / pt.tan(x), [(-0.026, 0.026)], [0.001]),
    B('qlog (example 3.10)', 'bench/hamming/series.fpcore',
      '(FPCore (x) :name "qlog (example 3.10)" :pre (<= (fabs x) 1) (/ (log (- 1 x)) (log (+ 1 x))))',
      lambda x: pt.log(1 - x) / pt.log(1 + x), [(-1.0, 1.0)], [0.001]),
    B('cos2 (problem 3.4.1)', 'bench/hamming/series.fpcore',
      '(FPCore (x) :name "cos2 (problem 3.4.1)" (/ (- 1 (cos x)) (* x x)))',
      lambda x: (1 - pt.cos(x)) / (x * x), [FULL], [2.5]),
    B('expq3 (problem 3.4.2)', 'bench/hamming/series.fpcore',
      '(FPCore (a b eps) :name "expq3 (problem 3.4.2)" :pre (and (<= (fabs a) 710) (<= (fabs b) 710) (<= (* 1e-27 (fmin (fabs a) (fabs b))) eps (fmin (fabs a) (fabs b)))) (/ (* eps (- (exp (* (+ a b) eps)) 1)) (* (- (exp (* a eps)) 1) (- (exp (* b eps)) 1))))',
      lambda a, b, eps: eps * (pt.exp((a + b) * eps) - 1) / ((pt.exp(a * eps) - 1) * (pt.exp(b * eps) - 1)), [(-710.0, 710.0), (-710.0, 710.0), FULL], [100.5, -1.5, 1.25]),
    B('logq (problem 3.4.3)', 'bench/hamming/series.fpcore',
      '(FPCore (eps) :name "logq (problem 3.4.3)" :pre (< (fabs eps) 1) (log (/ (- 1 eps) (+ 1 eps))))',
      lambda eps: pt.log((1 - eps) / (1 + eps)), [(-1.0, 1.0)], [0.1]),
    B('sqrtexp (problem 3.4.4)', 'bench/hamming/series.fpcore',
      '(FPCore (x) :name "sqrtexp (problem 3.4.4)" (sqrt (/ (- (exp (* 2 x)) 1) (- (exp x) 1))))',
      lambda x: pt.sqrt((pt.exp(2 * x) - 1) / (pt.exp(x) - 1)), [FULL], [0.01]),
    B('2nthrt (problem 3.4.6)', 'bench/hamming/series.fpcore',
      '(FPCore (x n) :name "2nthrt (problem 3.4.6)" (- (pow (+ x 1) (/ 1 n)) (pow x (/ 1 n))))',
      lambda x, n: (x + 1) ** (1 / n) - x ** (1 / n), [FULL, FULL], [1.25, 100000.0]),
    B('2sin (example 3.3)', 'bench/hamming/trigonometry.fpcore',
      '(FPCore (x eps) :name "2sin (example 3.3)" :pre (and (<= -1e4 x) (<= x 1e4) (< (* 1e-16 (fabs x)) eps) (< eps (* (fabs x)))) (- (sin (+ x eps)) (sin x)))',
      lambda x, eps: pt.sin(x + eps) - pt.sin(x), [(-10000.0, 10000.0), FULL], [0.01, 0.001]),
    B('2cos (problem 3.3.5)', 'bench/hamming/trigonometry.fpcore',
      '(FPCore (x eps) :name "2cos (problem 3.3.5)" :pre (and (<= -1e4 x) (<= x 1e4) (< (* 1e-16 (fabs x)) eps) (< eps (* (fabs x)))) (- (cos (+ x eps)) (cos x)))',
      lambda x, eps: pt.cos(x + eps) - pt.cos(x), [(-10000.0, 10000.0), FULL], [-2.5, 0.75]),
    B('2tan (problem 3.3.2)', 'bench/hamming/trigonometry.fpcore',
      '(FPCore (x eps) :name "2tan (problem 3.3.2)" :pre (and (<= -1e4 x) (<= x 1e4) (< (* 1e-16 (fabs x)) eps) (< eps (* (fabs x)))) (- (tan (+ x eps)) (tan x)))',
      lambda x, eps: pt.tan(x + eps) - pt.tan(x), [(-10000.0, 10000.0), FULL], [1.25, 0.3]),
    B('tanhf (example 3.4)', 'bench/hamming/trigonometry.fpcore',
      '(FPCore (x) :name "tanhf (example 3.4)" (/ (- 1 (cos x)) (sin x)))',
      lambda x: (1 - pt.cos(x)) / pt.sin(x), [FULL], [10.5]),
    B('2atan (example 3.5)', 'bench/hamming/trigonometry.fpcore',
      '(FPCore (N) :name "2atan (example 3.5)" :pre (and (> N 1) (< N 1e+100)) (- (atan (+ N 1)) (atan N)))',
      lambda N: pt.arctan(N + 1) - pt.arctan(N), [(1.0, 1e+100)], [1.25]),
    B('sintan (problem 3.4.5)', 'bench/hamming/trigonometry.fpcore',
      '(FPCore (eps) :name "sintan (problem 3.4.5)" :pre (and (<= -0.4 eps) (<= eps 0.4)) (/ (- eps (sin eps)) (- eps (tan eps))))',
      lambda eps: (eps - pt.sin(eps)) / (eps - pt.tan(eps)), [(-0.4, 0.4)], [0.001]),

    # fpbench-hamming-ch3
    B('NMSE example 3.1', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE example 3.1" :pre (>= x 0) (- (sqrt (+ x 1)) (sqrt x)))',
      lambda x: pt.sqrt(x + 1) - pt.sqrt(x), [(0.0, F64_MAX)], [5.0]),
    B('NMSE example 3.3', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x eps) :name "NMSE example 3.3" (- (sin (+ x eps)) (sin x)))',
      lambda x, eps: pt.sin(x + eps) - pt.sin(x), [FULL, FULL], [2.5, 5.0]),
    B('NMSE example 3.4', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE example 3.4" :pre (!= x 0) (/ (- 1 (cos x)) (sin x)))',
      lambda x: (1 - pt.cos(x)) / pt.sin(x), [FULL], [100.5]),
    B('NMSE example 3.5', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (N) :name "NMSE example 3.5" (- (atan (+ N 1)) (atan N)))',
      lambda N: pt.arctan(N + 1) - pt.arctan(N), [FULL], [1.25]),
    B('NMSE example 3.6', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE example 3.6" :pre (>= x 0) (- (/ 1 (sqrt x)) (/ 1 (sqrt (+ x 1)))))',
      lambda x: 1 / pt.sqrt(x) - 1 / pt.sqrt(x + 1), [(0.0, F64_MAX)], [1000.0]),
    B('NMSE problem 3.3.1', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE problem 3.3.1" :pre (!= x 0) (- (/ 1 (+ x 1)) (/ 1 x)))',
      lambda x: 1 / (x + 1) - 1 / x, [FULL], [1000.0]),
    B('NMSE problem 3.3.2', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x eps) :name "NMSE problem 3.3.2" (- (tan (+ x eps)) (tan x)))',
      lambda x, eps: pt.tan(x + eps) - pt.tan(x), [FULL, FULL], [7.0, 0.3]),
    B('NMSE problem 3.3.3', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE problem 3.3.3" :pre (!= x 0 1 -1) (+ (- (/ 1 (+ x 1)) (/ 2 x)) (/ 1 (- x 1))))',
      lambda x: 1 / (x + 1) - 2 / x + 1 / (x - 1), [FULL], [100000.0]),
    B('NMSE problem 3.3.4', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE problem 3.3.4" :pre (>= x 0) (- (pow (+ x 1) (/ 1 3)) (pow x (/ 1 3))))',
      lambda x: (x + 1) ** (1 / 3) - x ** (1 / 3), [(0.0, F64_MAX)], [0.1]),
    B('NMSE problem 3.3.5', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x eps) :name "NMSE problem 3.3.5" (- (cos (+ x eps)) (cos x)))',
      lambda x, eps: pt.cos(x + eps) - pt.cos(x), [FULL, FULL], [100.5, 1.25]),
    B('NMSE problem 3.3.6', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (N) :name "NMSE problem 3.3.6" :pre (> N 0) (- (log (+ N 1)) (log N)))',
      lambda N: pt.log(N + 1) - pt.log(N), [(0.0, F64_MAX)], [0.001]),
    B('NMSE problem 3.3.7', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE problem 3.3.7" (+ (- (exp x) 2) (exp (- x))))',
      lambda x: pt.exp(x) - 2 + pt.exp(-x), [FULL], [10.5]),
    B('NMSE p42, positive', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (a b c) :name "NMSE p42, positive" :pre (and (>= (* b b) (* 4 (* a c))) (!= a 0)) (/ (+ (- b) (sqrt (- (* b b) (* 4 (* a c))))) (* 2 a)))',
      lambda a, b, c: (-b + pt.sqrt(b * b - 4 * (a * c))) / (2 * a), [FULL, FULL, FULL], [0.3, 5.0, 7.0]),
    B('NMSE p42, negative', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (a b c) :name "NMSE p42, negative" :pre (and (>= (* b b) (* 4 (* a c))) (!= a 0)) (/ (- (- b) (sqrt (- (* b b) (* 4 (* a c))))) (* 2 a)))',
      lambda a, b, c: (-b - pt.sqrt(b * b - 4 * (a * c))) / (2 * a), [FULL, FULL, FULL], [7.0, 100000.0, 0.001]),
    B('NMSE problem 3.2.1, positive', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (a b2 c) :name "NMSE problem 3.2.1, positive" :pre (and (>= (* b2 b2) (* a c)) (!= a 0)) (/ (+ (- b2) (sqrt (- (* b2 b2) (* a c)))) a))',
      lambda a, b2, c: (-b2 + pt.sqrt(b2 * b2 - a * c)) / a, [FULL, FULL, FULL], [1.5, 2.5, 1.25]),
    B('NMSE problem 3.2.1, negative', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (a b2 c) :name "NMSE problem 3.2.1, negative" :pre (and (>= (* b2 b2) (* a c)) (!= a 0)) (/ (- (- b2) (sqrt (- (* b2 b2) (* a c)))) a))',
      lambda a, b2, c: (-b2 - pt.sqrt(b2 * b2 - a * c)) / a, [FULL, FULL, FULL], [-1.5, 10.5, -1.5]),
    B('NMSE example 3.7', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE example 3.7" (- (exp x) 1))',
      lambda x: pt.exp(x) - 1, [FULL], [0.3]),
    B('NMSE example 3.8', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (N) :name "NMSE example 3.8" :pre (> N 0) (- (- (* (+ N 1) (log (+ N 1))) (* N (log N))) 1))',
      lambda N: (N + 1) * pt.log(N + 1) - N * pt.log(N) - 1, [(0.0, F64_MAX)], [3.25]),
    B('NMSE example 3.9', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE example 3.9" :pre (!= x 0) (- (/ 1 x) (/ 1 (tan x))))',
      lambda x: 1 / x - 1 / pt.tan(x), [FULL], [-1.5]),
    B('NMSE example 3.10', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE example 3.10" :pre (< -1 x 1) (/ (log (- 1 x)) (log (+ 1 x))))',
      lambda x: pt.log(1 - x) / pt.log(1 + x), [(-1.0, 1.0)], [0.01]),
    B('NMSE problem 3.4.1', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE problem 3.4.1" :pre (!= x 0) (/ (- 1 (cos x)) (* x x)))',
      lambda x: (1 - pt.cos(x)) / (x * x), [FULL], [2.5]),
    B('NMSE problem 3.4.2', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (a b eps) :name "NMSE problem 3.4.2" :pre (!= eps 0) (/ (* eps (- (exp (* (+ a b) eps)) 1)) (* (- (exp (* a eps)) 1) (- (exp (* b eps)) 1))))',
      lambda a, b, eps: eps * (pt.exp((a + b) * eps) - 1) / ((pt.exp(a * eps) - 1) * (pt.exp(b * eps) - 1)), [FULL, FULL, FULL], [1000.0, 0.75, -2.5]),
    B('NMSE problem 3.4.3', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (eps) :name "NMSE problem 3.4.3" :pre (< -1 eps 1) (log (/ (- 1 eps) (+ 1 eps))))',
      lambda eps: pt.log((1 - eps) / (1 + eps)), [(-1.0, 1.0)], [0.1]),
    B('NMSE problem 3.4.4', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE problem 3.4.4" :pre (!= x 0) (sqrt (/ (- (exp (* 2 x)) 1) (- (exp x) 1))))',
      lambda x: pt.sqrt((pt.exp(2 * x) - 1) / (pt.exp(x) - 1)), [FULL], [5.0]),
    B('NMSE problem 3.4.5', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE problem 3.4.5" :pre (!= x 0) (/ (- x (sin x)) (- x (tan x))))',
      lambda x: (x - pt.sin(x)) / (x - pt.tan(x)), [FULL], [-1.5]),
    B('NMSE problem 3.4.6', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x n) :name "NMSE problem 3.4.6" :pre (>= x 0) (- (pow (+ x 1) (/ 1 n)) (pow x (/ 1 n))))',
      lambda x, n: (x + 1) ** (1 / n) - x ** (1 / n), [(0.0, F64_MAX), FULL], [1000.0, 7.0]),
    B('NMSE section 3.5', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (a x) :name "NMSE section 3.5" (- (exp (* a x)) 1))',
      lambda a, x: pt.exp(a * x) - 1, [FULL, FULL], [-0.5, 1.5]),
    B('NMSE section 3.11', 'benchmarks/hamming-ch3.fpcore',
      '(FPCore (x) :name "NMSE section 3.11" :pre (!= x 0) (/ (exp x) (- (exp x) 1)))',
      lambda x: pt.exp(x) / (pt.exp(x) - 1), [FULL], [10.5]),

    # fpbench-herbie
    B('Complex square root', 'benchmarks/herbie.fpcore',
      '(FPCore (re im) :name "Complex square root" (* 0.5 (sqrt (* 2.0 (+ (sqrt (+ (* re re) (* im im))) re)))))',
      lambda re, im: 0.5 * pt.sqrt(2.0 * (pt.sqrt(re * re + im * im) + re)), [FULL, FULL], [0.01, 3.25]),
    B('Complex sine and cosine', 'benchmarks/herbie.fpcore',
      '(FPCore (re im) :name "Complex sine and cosine" (* (* 0.5 (sin re)) (- (exp (- im)) (exp im))))',
      lambda re, im: 0.5 * pt.sin(re) * (pt.exp(-im) - pt.exp(im)), [FULL, FULL], [0.01, 2.5]),
    B('Probabilities in a clustering algorithm', 'benchmarks/herbie.fpcore',
      '(FPCore (cp cn t s) :name "Probabilities in a clustering algorithm" :pre (and (< 0 cp) (< 0 cn)) (/ (* (pow (/ 1 (+ 1 (exp (- s)))) cp) (pow (- 1 (/ 1 (+ 1 (exp (- s))))) cn)) (* (pow (/ 1 (+ 1 (exp (- t)))) cp) (pow (- 1 (/ 1 (+ 1 (exp (- t))))) cn))))',
      lambda cp, cn, t, s: (1 / (1 + pt.exp(-s))) ** cp * (1 - 1 / (1 + pt.exp(-s))) ** cn / ((1 / (1 + pt.exp(-t))) ** cp * (1 - 1 / (1 + pt.exp(-t))) ** cn), [(0.0, F64_MAX), (0.0, F64_MAX), FULL, FULL], [100.5, 0.1, 5.0, 0.3]),

    # fpbench-graphics
    B('An eigenvalue calculation from TNG', 'benchmarks/graphics.fpcore',
      '(FPCore (a b c d) :name "An eigenvalue calculation from TNG" (- (sqrt (+ (pow (+ a d) 2) (pow (- b c) 2))) (sqrt (+ (pow (- a d) 2) (pow (+ b c) 2)))))',
      lambda a, b, c, d: pt.sqrt((a + d) ** 2 + (b - c) ** 2) - pt.sqrt((a - d) ** 2 + (b + c) ** 2), [FULL, FULL, FULL, FULL], [5.0, 100000.0, 5.0, 3.25]),

    # fpbench-rump
    B("Rump's example, with pow", 'benchmarks/rump.fpcore',
      '(FPCore (a b) :name "Rump\'s example, with pow" (+ (+ (+ (* 333.75 (pow b 6)) (* (pow a 2) (- (- (- (* (* 11 (pow a 2)) (pow b 2)) (pow b 6)) (* 121 (pow b 4))) 2))) (* 5.5 (pow b 8))) (/ a (* 2 b))))',
      lambda a, b: 333.75 * b ** 6 + a ** 2 * (11 * a ** 2 * b ** 2 - b ** 6 - 121 * b ** 4 - 2) + 5.5 * b ** 8 + a / (2 * b), [FULL, FULL], [-0.5, 5.0]),
    B("Rump's example, from C program", 'benchmarks/rump.fpcore',
      '(FPCore (a b) :name "Rump\'s example, from C program" (let ((b2 (* b b))) (let ((b4 (* b2 b2))) (let ((b6 (* b4 b2)) (b8 (* b4 b4)) (a2 (* a a))) (let ((firstexpr (- (- (- (* (* 11 a2) b2) b6) (* 121 b4)) 2))) (+ (+ (+ (* 333.75 b6) (* a2 firstexpr)) (* 5.5 b8)) (/ a (* 2 b))))))))',
      _rump_s_example_from_c_program, [FULL, FULL], [1.5, 1.25]),
    B("Rump's example revisited for floating point", 'benchmarks/rump.fpcore',
      '(FPCore (a b) :name "Rump\'s example revisited for floating point" (let ((b2 (* b b))) (let ((b4 (* b2 b2))) (let ((b6 (* b4 b2)) (b8 (* b4 b4)) (a2 (* a a))) (let ((firstexpr (- (- (* (* 11 a2) b2) (* 121 b4)) 2))) (+ (+ (+ (* (- 333.75 a2) b6) (* a2 firstexpr)) (* 5.5 b8)) (/ a (* 2 b))))))))',
      _rump_s_example_revisited_for_floating_point, [FULL, FULL], [0.001, 2.5]),

    # fpbench-daisy
    B('carthesianToPolar, radius', 'benchmarks/daisy.fpcore',
      '(FPCore (x y) :name "carthesianToPolar, radius" :pre (and (<= 1 x 100) (<= 1 y 100)) (sqrt (+ (* x x) (* y y))))',
      lambda x, y: pt.sqrt(x * x + y * y), [(1.0, 100.0), (1.0, 100.0)], [7.0, 1.25]),
    B('carthesianToPolar, theta', 'benchmarks/daisy.fpcore',
      '(FPCore (x y) :name "carthesianToPolar, theta" :pre (and (<= 1 x 100) (<= 1 y 100)) (let ((pi 3.14159265359) (radiant (atan (/ y x)))) (* radiant (/ 180.0 pi))))',
      _carthesiantopolar_theta, [(1.0, 100.0), (1.0, 100.0)], [10.5, 5.0]),
    B('polarToCarthesian, x', 'benchmarks/daisy.fpcore',
      '(FPCore (radius theta) :name "polarToCarthesian, x" :pre (and (<= 1 radius 10) (<= 0 theta 360)) (let* ((pi 3.14159265359) (radiant (* theta (/ pi 180.0)))) (* radius (cos radiant))))',
      _polartocarthesian_x, [(1.0, 10.0), (0.0, 360.0)], [3.25, 0.3]),
    B('polarToCarthesian, y', 'benchmarks/daisy.fpcore',
      '(FPCore (radius theta) :name "polarToCarthesian, y" :pre (and (<= 1 radius 10) (<= 0 theta 360)) (let* ((pi 3.14159265359) (radiant (* theta (/ pi 180.0)))) (* radius (sin radiant))))',
      _polartocarthesian_y, [(1.0, 10.0), (0.0, 360.0)], [3.25, 0.01]),
    B('instantaneousCurrent', 'benchmarks/daisy.fpcore',
      '(FPCore (t resistance frequency inductance maxVoltage) :name "instantaneousCurrent" :pre (and (<= 0 t 300.0) (<= 1 resistance 50) (<= 1 frequency 100) (<= 0.001 inductance 0.004) (<= 1 maxVoltage 12)) (let* ((pi 3.14159265359) (impedance_re resistance) (impedance_im (* (* (* 2 pi) frequency) inductance)) (denom (+ (* impedance_re impedance_re) (* impedance_im impedance_im))) (current_re (/ (* maxVoltage impedance_re) denom)) (current_im (/ (- (* maxVoltage impedance_im)) denom)) (maxCurrent (sqrt (+ (* current_re current_re) (* current_im current_im)))) (theta (atan (/ current_im current_re)))) (* maxCurrent (cos (+ (* (* (* 2 pi) frequency) t) theta)))))',
      _instantaneouscurrent, [(0.0, 300.0), (1.0, 50.0), (1.0, 100.0), (0.001, 0.004), (1.0, 12.0)], [0.75, 7.0, 1.5, 0.001, 3.25]),
    B('matrixDeterminant', 'benchmarks/daisy.fpcore',
      '(FPCore (a b c d e f g h i) :name "matrixDeterminant" :pre (and (<= -10 a 10) (<= -10 b 10) (<= -10 c 10) (<= -10 d 10) (<= -10 e 10) (<= -10 f 10) (<= -10 g 10) (<= -10 h 10) (<= -10 i 10)) (- (+ (+ (* (* a e) i) (* (* b f) g)) (* (* c d) h)) (+ (+ (* (* c e) g) (* (* b d) i)) (* (* a f) h))))',
      lambda a, b, c, d, e, f, g, h, i: a * e * i + b * f * g + c * d * h - (c * e * g + b * d * i + a * f * h), [(-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0)], [0.01, 0.001, 7.0, 0.01, 0.001, 0.01, 1.5, 1.25, -2.5]),
    B('matrixDeterminant2', 'benchmarks/daisy.fpcore',
      '(FPCore (a b c d e f g h i) :name "matrixDeterminant2" :pre (and (<= -10 a 10) (<= -10 b 10) (<= -10 c 10) (<= -10 d 10) (<= -10 e 10) (<= -10 f 10) (<= -10 g 10) (<= -10 h 10) (<= -10 i 10)) (- (+ (* a (* e i)) (+ (* g (* b f)) (* c (* d h)))) (+ (* e (* c g)) (+ (* i (* b d)) (* a (* f h))))))',
      lambda a, b, c, d, e, f, g, h, i: a * (e * i) + (g * (b * f) + c * (d * h)) - (e * (c * g) + (i * (b * d) + a * (f * h))), [(-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0), (-10.0, 10.0)], [-1.5, 0.3, 1.25, 0.3, 0.1, 3.25, -2.5, 2.5, 0.3]),

    # fpbench-fptaylor-tests
    B('intro-example', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (t) :name "intro-example" :pre (<= 0 t 999) (/ t (+ t 1)))',
      lambda t: t / (t + 1), [(0.0, 999.0)], [3.25]),
    B('sec4-example', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x y) :name "sec4-example" :precision binary64 :pre (and (<= 1.001 x 2) (<= 1.001 y 2)) (let ((t (* x y))) (/ (- t 1) (- (* t t) 1))))',
      _sec4_example, [(1.001, 2.0), (1.001, 2.0)], [1.25, 1.25]),
    B('test01_sum3', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x0 x1 x2) :name "test01_sum3" :precision binary32 :pre (and (< 1 x0 2) (< 1 x1 2) (< 1 x2 2)) (let ((p0 (- (+ x0 x1) x2)) (p1 (- (+ x1 x2) x0)) (p2 (- (+ x2 x0) x1))) (+ (+ p0 p1) p2)))',
      _test01_sum3, [(1.0, 2.0), (1.0, 2.0), (1.0, 2.0)], [1.25, 1.25, 1.25], "float32"),
    B('test02_sum8', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x0 x1 x2 x3 x4 x5 x6 x7) :name "test02_sum8" :precision binary64 :pre (and (< 1 x0 2) (< 1 x1 2) (< 1 x2 2) (< 1 x3 2) (< 1 x4 2) (< 1 x5 2) (< 1 x6 2) (< 1 x7 2)) (+ (+ (+ (+ (+ (+ (+ x0 x1) x2) x3) x4) x5) x6) x7))',
      lambda x0, x1, x2, x3, x4, x5, x6, x7: x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7, [(1.0, 2.0), (1.0, 2.0), (1.0, 2.0), (1.0, 2.0), (1.0, 2.0), (1.0, 2.0), (1.0, 2.0), (1.0, 2.0)], [1.5, 1.5, 1.5, 1.25, 1.25, 1.25, 1.25, 1.25]),
    B('test03_nonlin2', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x y) :name "test03_nonlin2" :precision binary64 :pre (and (< 0 x 1) (< -1 y -0.1)) (/ (+ x y) (- x y)))',
      lambda x, y: (x + y) / (x - y), [(0.0, 1.0), (-1.0, -0.1)], [0.01, -0.5]),
    B('test04_dqmom9', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (m0 m1 m2 w0 w1 w2 a0 a1 a2) :name "test04_dqmom9" :precision binary64 :pre (and (< -1 m0 1) (< -1 m1 1) (< -1 m2 1) (< 0.00001 w0 1) (< 0.00001 w1 1) (< 0.00001 w2 1) (< 0.00001 a0 1) (< 0.00001 a1 1) (< 0.00001 a2 1)) (let ((v2 (* (* w2 (- 0 m2)) (* -3 (* (* 1 (/ a2 w2)) (/ a2 w2))))) (v1 (* (* w1 (- 0 m1)) (* -3 (* (* 1 (/ a1 w1)) (/ a1 w1))))) (v0 (* (* w0 (- 0 m0)) (* -3 (* (* 1 (/ a0 w0)) (/ a0 w0)))))) (+ 0.0 (+ (* v0 1) (+ (* v1 1) (+ (* v2 1) 0.0))))))',
      _test04_dqmom9, [(-1.0, 1.0), (-1.0, 1.0), (-1.0, 1.0), (1e-05, 1.0), (1e-05, 1.0), (1e-05, 1.0), (1e-05, 1.0), (1e-05, 1.0), (1e-05, 1.0)], [0.75, 0.75, 0.01, 0.75, 0.01, 0.01, 0.01, 0.3, 0.75]),
    B('test05_nonlin1, r4', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x) :name "test05_nonlin1, r4" :precision binary64 :pre (< 1.00001 x 2) (let ((r1 (- x 1)) (r2 (* x x))) (/ r1 (- r2 1))))',
      _test05_nonlin1_r4, [(1.00001, 2.0)], [1.25]),
    B('test05_nonlin1, test2', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x) :name "test05_nonlin1, test2" :precision binary64 :pre (< 1.00001 x 2) (/ 1 (+ x 1)))',
      lambda x: 1 / (x + 1), [(1.00001, 2.0)], [1.25]),
    B('test06_sums4, sum1', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x0 x1 x2 x3) :name "test06_sums4, sum1" :precision binary32 :pre (and (< -1e-5 x0 1.00001) (< 0 x1 1) (< 0 x2 1) (< 0 x3 1)) (+ (+ (+ x0 x1) x2) x3))',
      lambda x0, x1, x2, x3: x0 + x1 + x2 + x3, [(-1e-05, 1.00001), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0)], [0.3, 0.01, 0.3, 0.01], "float32"),
    B('test06_sums4, sum2', 'benchmarks/fptaylor-tests.fpcore',
      '(FPCore (x0 x1 x2 x3) :name "test06_sums4, sum2" :precision binary32 :pre (and (< -1e-5 x0 1.00001) (< 0 x1 1) (< 0 x2 1) (< 0 x3 1)) (+ (+ x0 x1) (+ x2 x3)))',
      lambda x0, x1, x2, x3: x0 + x1 + (x2 + x3), [(-1e-05, 1.00001), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0)], [0.3, 0.1, 0.3, 0.3], "float32"),

    # fpbench-fptaylor-extra
    B('delta4', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x1 x2 x3 x4 x5 x6) :name "delta4" :precision binary64 :pre (and (<= 4 x1 3969/625) (<= 4 x2 3969/625) (<= 4 x3 3969/625) (<= 4 x4 3969/625) (<= 4 x5 3969/625) (<= 4 x6 3969/625)) (+ (- (+ (+ (- (* (- x2) x3) (* x1 x4)) (* x2 x5)) (* x3 x6)) (* x5 x6)) (* x1 (+ (+ (- (+ (+ (- x1) x2) x3) x4) x5) x6))))',
      lambda x1, x2, x3, x4, x5, x6: -x2 * x3 - x1 * x4 + x2 * x5 + x3 * x6 - x5 * x6 + x1 * (-x1 + x2 + x3 - x4 + x5 + x6), [(4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504)], [5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
    B('delta', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x1 x2 x3 x4 x5 x6) :name "delta" :precision binary64 :pre (and (<= 4 x1 3969/625) (<= 4 x2 3969/625) (<= 4 x3 3969/625) (<= 4 x4 3969/625) (<= 4 x5 3969/625) (<= 4 x6 3969/625)) (+ (+ (+ (+ (+ (+ (* (* x1 x4) (+ (+ (- (+ (+ (- x1) x2) x3) x4) x5) x6)) (* (* x2 x5) (+ (- (+ (+ (- x1 x2) x3) x4) x5) x6))) (* (* x3 x6) (- (+ (+ (- (+ x1 x2) x3) x4) x5) x6))) (* (* (- x2) x3) x4)) (* (* (- x1) x3) x5)) (* (* (- x1) x2) x6)) (* (* (- x4) x5) x6)))',
      lambda x1, x2, x3, x4, x5, x6: x1 * x4 * (-x1 + x2 + x3 - x4 + x5 + x6) + x2 * x5 * (x1 - x2 + x3 + x4 - x5 + x6) + x3 * x6 * (x1 + x2 - x3 + x4 + x5 - x6) + -x2 * x3 * x4 + -x1 * x3 * x5 + -x1 * x2 * x6 + -x4 * x5 * x6, [(4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504), (4.0, 6.3504)], [5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
    B('sqrt_add', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x) :name "sqrt_add" :precision binary64 :pre (<= 1 x 1000) (/ 1 (+ (sqrt (+ x 1)) (sqrt x))))',
      lambda x: 1 / (pt.sqrt(x + 1) + pt.sqrt(x)), [(1.0, 1000.0)], [5.0]),
    B('exp1x', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x) :name "exp1x" :precision binary64 :pre (<= 1/100 x 1/2) (/ (- (exp x) 1) x))',
      lambda x: (pt.exp(x) - 1) / x, [(0.01, 0.5)], [0.01]),
    B('exp1x_32', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x) :name "exp1x_32" :precision binary32 :pre (<= 1/100 x 1/2) (/ (- (exp x) 1) x))',
      lambda x: (pt.exp(x) - 1) / x, [(0.01, 0.5)], [0.3], "float32"),
    B('floudas', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x1 x2) :name "floudas" :precision binary64 :pre (and (<= 0 x1 2) (<= 0 x2 3) (<= (+ x1 x2) 2)) (+ x1 x2))',
      lambda x1, x2: x1 + x2, [(0.0, 2.0), (0.0, 3.0)], [0.01, 0.01]),
    B('exp1x_log', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x) :name "exp1x_log" :precision binary64 :pre (<= 1/100 x 1/2) (/ (- (exp x) 1) (log (exp x))))',
      lambda x: (pt.exp(x) - 1) / pt.log(pt.exp(x)), [(0.01, 0.5)], [0.3]),
    B('x_by_xy', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x y) :name "x_by_xy" :precision binary32 :pre (and (<= 1 x 4) (<= 1 y 4)) (/ x (+ x y)))',
      lambda x, y: x / (x + y), [(1.0, 4.0), (1.0, 4.0)], [2.5, 3.25], "float32"),
    B('hypot', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x1 x2) :name "hypot" :precision binary64 :pre (and (<= 1 x1 100) (<= 1 x2 100)) (sqrt (+ (* x1 x1) (* x2 x2))))',
      lambda x1, x2: pt.sqrt(x1 * x1 + x2 * x2), [(1.0, 100.0), (1.0, 100.0)], [1.25, 7.0]),
    B('hypot32', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x1 x2) :name "hypot32" :precision binary32 :pre (and (<= 1 x1 100) (<= 1 x2 100)) (sqrt (+ (* x1 x1) (* x2 x2))))',
      lambda x1, x2: pt.sqrt(x1 * x1 + x2 * x2), [(1.0, 100.0), (1.0, 100.0)], [2.5, 5.0], "float32"),
    B('logexp', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x) :name "logexp" :precision binary64 :pre (<= -8 x 8) (log (+ 1 (exp x))))',
      lambda x: pt.log(1 + pt.exp(x)), [(-8.0, 8.0)], [-0.5]),
    B('sum', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x0 x1 x2) :name "sum" :precision binary64 :pre (and (<= 1 x0 2) (<= 1 x1 2) (<= 1 x2 2)) (let ((p0 (- (+ x0 x1) x2)) (p1 (- (+ x1 x2) x0)) (p2 (- (+ x2 x0) x1))) (+ (+ p0 p1) p2)))',
      _sum, [(1.0, 2.0), (1.0, 2.0), (1.0, 2.0)], [1.5, 1.25, 1.25]),
    B('nonlin1', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (z) :name "nonlin1" :precision binary64 :pre (<= 0 z 999) (/ z (+ z 1)))',
      lambda z: z / (z + 1), [(0.0, 999.0)], [0.75]),
    B('nonlin2', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x y) :name "nonlin2" :precision binary64 :pre (and (<= 1001/1000 x 2) (<= 1001/1000 y 2)) (let ((t (* x y))) (/ (- t 1) (- (* t t) 1))))',
      _nonlin2, [(1.001, 2.0), (1.001, 2.0)], [1.25, 1.25]),
    B('i4', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x y) :name "i4" :precision binary32 :pre (and (<= 1/10 x 10) (<= -5 y 5)) (sqrt (+ x (* y y))))',
      lambda x, y: pt.sqrt(x + y * y), [(0.1, 10.0), (-5.0, 5.0)], [1.5, 0.01], "float32"),
    B('i6', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x y) :name "i6" :precision binary32 :pre (and (<= 1/10 x 10) (<= -5 y 5)) (sin (* x y)))',
      lambda x, y: pt.sin(x * y), [(0.1, 10.0), (-5.0, 5.0)], [1.25, 0.3], "float32"),
    B('himmilbeau', 'benchmarks/fptaylor-extra.fpcore',
      '(FPCore (x1 x2) :name "himmilbeau" :precision binary64 :pre (and (<= -5 x1 5) (<= -5 x2 5)) (let ((a (- (+ (* x1 x1) x2) 11)) (b (- (+ x1 (* x2 x2)) 7))) (+ (* a a) (* b b))))',
      _himmilbeau, [(-5.0, 5.0), (-5.0, 5.0)], [1.5, 2.5]),

    # fpbench-fptaylor-real2float
    B('logexp [fptaylor-real2float]', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x) :name "logexp" :precision binary64 :pre (<= -8 x 8) (let ((e (exp x))) (log (+ 1 e))))',
      _logexp_fptaylor_real2float, [(-8.0, 8.0)], [-1.5]),
    B('sphere', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x r lat lon) :name "sphere" :precision binary64 :pre (and (<= -10 x 10) (<= 0 r 10) (<= -1.570796 lat 1.570796) (<= -3.14159265 lon 3.14159265)) (let ((sinLat (sin lat)) (cosLon (cos lon))) (+ x (* (* r sinLat) cosLon))))',
      _sphere, [(-10.0, 10.0), (0.0, 10.0), (-1.570796, 1.570796), (-3.14159265, 3.14159265)], [0.75, 0.3, 0.01, 0.01]),
    B('azimuth', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (lat1 lat2 lon1 lon2) :name "azimuth" :precision binary64 :pre (and (<= 0 lat1 0.4) (<= 0.5 lat2 1) (<= 0 lon1 3.14159265) (<= -3.14159265 lon2 -0.5)) (let ((dLon (- lon2 lon1))) (let ((s_lat1 (sin lat1)) (c_lat1 (cos lat1)) (s_lat2 (sin lat2)) (c_lat2 (cos lat2)) (s_dLon (sin dLon)) (c_dLon (cos dLon))) (atan (/ (* c_lat2 s_dLon) (- (* c_lat1 s_lat2) (* (* s_lat1 c_lat2) c_dLon)))))))',
      _azimuth, [(0.0, 0.4), (0.5, 1.0), (0.0, 3.14159265), (-3.14159265, -0.5)], [0.1, 0.75, 1.5, -1.5]),
    B('floudas1', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2 x3 x4 x5 x6) :name "floudas1" :precision binary64 :pre (and (<= 0 x1 6) (<= 0 x2 6) (<= 1 x3 5) (<= 0 x4 6) (<= 0 x5 6) (<= 0 x6 10) (>= (- (+ (* (- x3 3) (- x3 3)) x4) 4) 0) (>= (- (+ (* (- x5 3) (- x5 3)) x6) 4) 0) (>= (+ (- 2 x1) (* 3 x2)) 0) (>= (- (+ 2 x1) x2) 0) (>= (- (- 6 x1) x2) 0) (>= (- (+ x1 x2) 2) 0)) (- (- (- (- (- (* -25 (* (- x1 2) (- x1 2))) (* (- x2 2) (- x2 2))) (* (- x3 1) (- x3 1))) (* (- x4 4) (- x4 4))) (* (- x5 1) (- x5 1))) (* (- x6 4) (- x6 4))))',
      lambda x1, x2, x3, x4, x5, x6: -25 * ((x1 - 2) * (x1 - 2)) - (x2 - 2) * (x2 - 2) - (x3 - 1) * (x3 - 1) - (x4 - 4) * (x4 - 4) - (x5 - 1) * (x5 - 1) - (x6 - 4) * (x6 - 4), [(0.0, 6.0), (0.0, 6.0), (1.0, 5.0), (0.0, 6.0), (0.0, 6.0), (0.0, 10.0)], [0.75, 1.25, 5.0, 0.1, 5.0, 2.5]),
    B('floudas2', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2) :name "floudas2" :precision binary64 :pre (and (<= 0 x1 3) (<= 0 x2 4) (>= (- (+ (- (* 2 (* (* x1 x1) (* x1 x1))) (* (* 8 (* x1 x1)) x1)) (* (* 8 x1) x1)) x2) 0) (>= (- (+ (- (+ (- (* 4 (* (* x1 x1) (* x1 x1))) (* (* 32 (* x1 x1)) x1)) (* (* 88 x1) x1)) (* 96 x1)) 36) x2) 0)) (- (- x1) x2))',
      lambda x1, x2: -x1 - x2, [(0.0, 3.0), (0.0, 4.0)], [0.75, 1.25]),
    B('floudas3', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2) :name "floudas3" :precision binary64 :pre (and (<= 0 x1 2) (<= 0 x2 3) (>= (+ (* -2 (* (* x1 x1) (* x1 x1))) 2) x2)) (+ (- (* -12 x1) (* 7 x2)) (* x2 x2)))',
      lambda x1, x2: -12 * x1 - 7 * x2 + x2 * x2, [(0.0, 2.0), (0.0, 3.0)], [0.01, 0.1]),
    B('hartman3', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2 x3) :name "hartman3" :precision binary64 :pre (and (<= 0 x1 1) (<= 0 x2 1) (<= 0 x3 1)) (let ((e1 (+ (+ (* 3.0 (* (- x1 0.3689) (- x1 0.3689))) (* 10.0 (* (- x2 0.117) (- x2 0.117)))) (* 30.0 (* (- x3 0.2673) (- x3 0.2673))))) (e2 (+ (+ (* 0.1 (* (- x1 0.4699) (- x1 0.4699))) (* 10.0 (* (- x2 0.4387) (- x2 0.4387)))) (* 35.0 (* (- x3 0.747) (- x3 0.747))))) (e3 (+ (+ (* 3.0 (* (- x1 0.1091) (- x1 0.1091))) (* 10.0 (* (- x2 0.8732) (- x2 0.8732)))) (* 30.0 (* (- x3 0.5547) (- x3 0.5547))))) (e4 (+ (+ (* 0.1 (* (- x1 0.03815) (- x1 0.03815))) (* 10.0 (* (- x2 0.5743) (- x2 0.5743)))) (* 35.0 (* (- x3 0.8828) (- x3 0.8828)))))) (let ((exp1 (exp (- e1))) (exp2 (exp (- e2))) (exp3 (exp (- e3))) (exp4 (exp (- e4)))) (- (+ (+ (+ (* 1.0 exp1) (* 1.2 exp2)) (* 3.0 exp3)) (* 3.2 exp4))))))',
      _hartman3, [(0.0, 1.0), (0.0, 1.0), (0.0, 1.0)], [0.3, 0.75, 0.75]),
    B('hartman6', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2 x3 x4 x5 x6) :name "hartman6" :precision binary64 :pre (and (<= 0 x1 1) (<= 0 x2 1) (<= 0 x3 1) (<= 0 x4 1) (<= 0 x5 1) (<= 0 x6 1)) (let ((e1 (+ (+ (+ (+ (+ (* 10.0 (* (- x1 0.1312) (- x1 0.1312))) (* 3.0 (* (- x2 0.1696) (- x2 0.1696)))) (* 17.0 (* (- x3 0.5569) (- x3 0.5569)))) (* 3.5 (* (- x4 0.0124) (- x4 0.0124)))) (* 1.7 (* (- x5 0.8283) (- x5 0.8283)))) (* 8.0 (* (- x6 0.5886) (- x6 0.5886))))) (e2 (+ (+ (+ (+ (+ (* 0.05 (* (- x1 0.2329) (- x1 0.2329))) (* 10.0 (* (- x2 0.4135) (- x2 0.4135)))) (* 17.0 (* (- x3 0.8307) (- x3 0.8307)))) (* 0.1 (* (- x4 0.3736) (- x4 0.3736)))) (* 8.0 (* (- x5 0.1004) (- x5 0.1004)))) (* 14.0 (* (- x6 0.9991) (- x6 0.9991))))) (e3 (+ (+ (+ (+ (+ (* 3.0 (* (- x1 0.2348) (- x1 0.2348))) (* 3.5 (* (- x2 0.1451) (- x2 0.1451)))) (* 1.7 (* (- x3 0.3522) (- x3 0.3522)))) (* 10.0 (* (- x4 0.2883) (- x4 0.2883)))) (* 17.0 (* (- x5 0.3047) (- x5 0.3047)))) (* 8.0 (* (- x6 0.665) (- x6 0.665))))) (e4 (+ (+ (+ (+ (+ (* 17.0 (* (- x1 0.4047) (- x1 0.4047))) (* 8.0 (* (- x2 0.8828) (- x2 0.8828)))) (* 0.05 (* (- x3 0.8732) (- x3 0.8732)))) (* 10.0 (* (- x4 0.5743) (- x4 0.5743)))) (* 0.1 (* (- x5 0.1091) (- x5 0.1091)))) (* 14.0 (* (- x6 0.0381) (- x6 0.0381)))))) (let ((exp1 (exp (- e1))) (exp2 (exp (- e2))) (exp3 (exp (- e3))) (exp4 (exp (- e4)))) (- (+ (+ (+ (* 1.0 exp1) (* 1.2 exp2)) (* 3.0 exp3)) (* 3.2 exp4))))))',
      _hartman6, [(0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0), (0.0, 1.0)], [0.3, 0.01, 0.3, 0.01, 0.3, 0.001]),
    B('kepler0', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2 x3 x4 x5 x6) :name "kepler0" :precision binary64 :pre (and (<= 4 x1 6.36) (<= 4 x2 6.36) (<= 4 x3 6.36) (<= 4 x4 6.36) (<= 4 x5 6.36) (<= 4 x6 6.36)) (+ (- (- (+ (* x2 x5) (* x3 x6)) (* x2 x3)) (* x5 x6)) (* x1 (+ (+ (- (+ (+ (- x1) x2) x3) x4) x5) x6))))',
      lambda x1, x2, x3, x4, x5, x6: x2 * x5 + x3 * x6 - x2 * x3 - x5 * x6 + x1 * (-x1 + x2 + x3 - x4 + x5 + x6), [(4.0, 6.36), (4.0, 6.36), (4.0, 6.36), (4.0, 6.36), (4.0, 6.36), (4.0, 6.36)], [5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),
    B('kepler1', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2 x3 x4) :name "kepler1" :precision binary64 :pre (and (<= 4 x1 6.36) (<= 4 x2 6.36) (<= 4 x3 6.36) (<= 4 x4 6.36)) (- (- (- (- (+ (+ (* (* x1 x4) (- (+ (+ (- x1) x2) x3) x4)) (* x2 (+ (+ (- x1 x2) x3) x4))) (* x3 (+ (- (+ x1 x2) x3) x4))) (* (* x2 x3) x4)) (* x1 x3)) (* x1 x2)) x4))',
      lambda x1, x2, x3, x4: x1 * x4 * (-x1 + x2 + x3 - x4) + x2 * (x1 - x2 + x3 + x4) + x3 * (x1 + x2 - x3 + x4) - x2 * x3 * x4 - x1 * x3 - x1 * x2 - x4, [(4.0, 6.36), (4.0, 6.36), (4.0, 6.36), (4.0, 6.36)], [5.0, 5.0, 5.0, 5.0]),
    B('kepler2', 'benchmarks/fptaylor-real2float.fpcore',
      '(FPCore (x1 x2 x3 x4 x5 x6) :name "kepler2" :precision binary64 :pre (and (<= 4 x1 6.36) (<= 4 x2 6.36) (<= 4 x3 6.36) (<= 4 x4 6.36) (<= 4 x5 6.36) (<= 4 x6 6.36)) (- (- (- (- (+ (+ (* (* x1 x4) (+ (+ (- (+ (+ (- x1) x2) x3) x4) x5) x6)) (* (* x2 x5) (+ (- (+ (+ (- x1 x2) x3) x4) x5) x6))) (* (* x3 x6) (- (+ (+ (- (+ x1 x2) x3) x4) x5) x6))) (* (* x2 x3) x4)) (* (* x1 x3) x5)) (* (* x1 x2) x6)) (* (* x4 x5) x6)))',
      lambda x1, x2, x3, x4, x5, x6: x1 * x4 * (-x1 + x2 + x3 - x4 + x5 + x6) + x2 * x5 * (x1 - x2 + x3 + x4 - x5 + x6) + x3 * x6 * (x1 + x2 - x3 + x4 + x5 - x6) - x2 * x3 * x4 - x1 * x3 * x5 - x1 * x2 * x6 - x4 * x5 * x6, [(4.0, 6.36), (4.0, 6.36), (4.0, 6.36), (4.0, 6.36), (4.0, 6.36), (4.0, 6.36)], [5.0, 5.0, 5.0, 5.0, 5.0, 5.0]),

    # fpbench-rosa
    B('doppler1', 'benchmarks/rosa.fpcore',
      '(FPCore (u v T) :name "doppler1" :precision binary64 :pre (and (<= -100 u 100) (<= 20 v 20000) (<= -30 T 50)) (let ((t1 (+ 331.4 (* 0.6 T)))) (/ (* (- t1) v) (* (+ t1 u) (+ t1 u)))))',
      _doppler1, [(-100.0, 100.0), (20.0, 20000.0), (-30.0, 50.0)], [10.5, 1000.0, 0.1]),
    B('doppler2', 'benchmarks/rosa.fpcore',
      '(FPCore (u v T) :name "doppler2" :precision binary64 :pre (and (<= -125 u 125) (<= 15 v 25000) (<= -40 T 60)) (let ((t1 (+ 331.4 (* 0.6 T)))) (/ (* (- t1) v) (* (+ t1 u) (+ t1 u)))))',
      _doppler2, [(-125.0, 125.0), (15.0, 25000.0), (-40.0, 60.0)], [5.0, 1000.0, -1.5]),
    B('doppler3', 'benchmarks/rosa.fpcore',
      '(FPCore (u v T) :name "doppler3" :precision binary64 :pre (and (<= -30 u 120) (<= 320 v 20300) (<= -50 T 30)) (let ((t1 (+ 331.4 (* 0.6 T)))) (/ (* (- t1) v) (* (+ t1 u) (+ t1 u)))))',
      _doppler3, [(-30.0, 120.0), (320.0, 20300.0), (-50.0, 30.0)], [0.001, 1000.0, -2.5]),
    B('rigidBody1', 'benchmarks/rosa.fpcore',
      '(FPCore (x1 x2 x3) :name "rigidBody1" :precision binary64 :pre (and (<= -15 x1 15) (<= -15 x2 15) (<= -15 x3 15)) (- (- (- (- (* x1 x2)) (* (* 2 x2) x3)) x1) x3))',
      lambda x1, x2, x3: -(x1 * x2) - 2 * x2 * x3 - x1 - x3, [(-15.0, 15.0), (-15.0, 15.0), (-15.0, 15.0)], [0.01, 3.25, 0.1]),
    B('rigidBody2', 'benchmarks/rosa.fpcore',
      '(FPCore (x1 x2 x3) :name "rigidBody2" :precision binary64 :pre (and (<= -15 x1 15) (<= -15 x2 15) (<= -15 x3 15)) (- (+ (- (+ (* (* (* 2 x1) x2) x3) (* (* 3 x3) x3)) (* (* (* x2 x1) x2) x3)) (* (* 3 x3) x3)) x2))',
      lambda x1, x2, x3: 2 * x1 * x2 * x3 + 3 * x3 * x3 - x2 * x1 * x2 * x3 + 3 * x3 * x3 - x2, [(-15.0, 15.0), (-15.0, 15.0), (-15.0, 15.0)], [0.75, 2.5, -0.5]),
    B('jetEngine', 'benchmarks/rosa.fpcore',
      '(FPCore (x1 x2) :name "jetEngine" :precision binary64 :pre (and (<= -5 x1 5) (<= -20 x2 5)) (let ((t (- (+ (* (* 3 x1) x1) (* 2 x2)) x1)) (t* (- (- (* (* 3 x1) x1) (* 2 x2)) x1)) (d (+ (* x1 x1) 1))) (let ((s (/ t d)) (s* (/ t* d))) (+ x1 (+ (+ (+ (+ (* (+ (* (* (* 2 x1) s) (- s 3)) (* (* x1 x1) (- (* 4 s) 6))) d) (* (* (* 3 x1) x1) s)) (* (* x1 x1) x1)) x1) (* 3 s*))))))',
      _jetengine, [(-5.0, 5.0), (-20.0, 5.0)], [1.5, -1.5]),
    B('turbine1', 'benchmarks/rosa.fpcore',
      '(FPCore (v w r) :name "turbine1" :precision binary64 :pre (and (<= -4.5 v -0.3) (<= 0.4 w 0.9) (<= 3.8 r 7.8)) (- (- (+ 3 (/ 2 (* r r))) (/ (* (* 0.125 (- 3 (* 2 v))) (* (* (* w w) r) r)) (- 1 v))) 4.5))',
      lambda v, w, r: 3 + 2 / (r * r) - 0.125 * (3 - 2 * v) * (w * w * r * r) / (1 - v) - 4.5, [(-4.5, -0.3), (0.4, 0.9), (3.8, 7.8)], [-2.5, 0.75, 7.0]),
    B('turbine2', 'benchmarks/rosa.fpcore',
      '(FPCore (v w r) :name "turbine2" :precision binary64 :pre (and (<= -4.5 v -0.3) (<= 0.4 w 0.9) (<= 3.8 r 7.8)) (- (- (* 6 v) (/ (* (* 0.5 v) (* (* (* w w) r) r)) (- 1 v))) 2.5))',
      lambda v, w, r: 6 * v - 0.5 * v * (w * w * r * r) / (1 - v) - 2.5, [(-4.5, -0.3), (0.4, 0.9), (3.8, 7.8)], [-2.5, 0.75, 7.0]),
    B('turbine3', 'benchmarks/rosa.fpcore',
      '(FPCore (v w r) :name "turbine3" :precision binary64 :pre (and (<= -4.5 v -0.3) (<= 0.4 w 0.9) (<= 3.8 r 7.8)) (- (- (- 3 (/ 2 (* r r))) (/ (* (* 0.125 (+ 1 (* 2 v))) (* (* (* w w) r) r)) (- 1 v))) 0.5))',
      lambda v, w, r: 3 - 2 / (r * r) - 0.125 * (1 + 2 * v) * (w * w * r * r) / (1 - v) - 0.5, [(-4.5, -0.3), (0.4, 0.9), (3.8, 7.8)], [-2.5, 0.75, 5.0]),
    B('verhulst', 'benchmarks/rosa.fpcore',
      '(FPCore (x) :name "verhulst" :precision binary64 :pre (<= 0.1 x 0.3) (let ((r 4.0) (K 1.11)) (/ (* r x) (+ 1 (/ x K)))))',
      _verhulst, [(0.1, 0.3)], [0.1]),
    B('predatorPrey', 'benchmarks/rosa.fpcore',
      '(FPCore (x) :name "predatorPrey" :precision binary64 :pre (<= 0.1 x 0.3) (let ((r 4.0) (K 1.11)) (/ (* (* r x) x) (+ 1 (* (/ x K) (/ x K))))))',
      _predatorprey, [(0.1, 0.3)], [0.1]),
    B('carbonGas', 'benchmarks/rosa.fpcore',
      '(FPCore (v) :name "carbonGas" :precision binary64 :pre (<= 0.1 v 0.5) (let ((p 3.5e7) (a 0.401) (b 42.7e-6) (t 300) (n 1000) (k 1.3806503e-23)) (- (* (+ p (* (* a (/ n v)) (/ n v))) (- v (* n b))) (* (* k n) t))))',
      _carbongas, [(0.1, 0.5)], [0.1]),
    B('sine', 'benchmarks/rosa.fpcore',
      '(FPCore (x) :name "sine" :precision binary64 :pre (< -1.57079632679 x 1.57079632679) (- (+ (- x (/ (* (* x x) x) 6.0)) (/ (* (* (* (* x x) x) x) x) 120)) (/ (* (* (* (* (* (* x x) x) x) x) x) x) 5040)))',
      lambda x: x - x * x * x / 6.0 + x * x * x * x * x / 120 - x * x * x * x * x * x * x / 5040, [(-1.57079632679, 1.57079632679)], [0.001]),
    B('sqroot', 'benchmarks/rosa.fpcore',
      '(FPCore (x) :name "sqroot" :pre (<= 0 x 1) (- (+ (- (+ 1.0 (* 0.5 x)) (* (* 0.125 x) x)) (* (* (* 0.0625 x) x) x)) (* (* (* (* 0.0390625 x) x) x) x)))',
      lambda x: 1.0 + 0.5 * x - 0.125 * x * x + 0.0625 * x * x * x - 0.0390625 * x * x * x * x, [(0.0, 1.0)], [0.001]),
    B('sineOrder3', 'benchmarks/rosa.fpcore',
      '(FPCore (x) :name "sineOrder3" :precision binary64 :pre (< -2 x 2) (- (* 0.954929658551372 x) (* 0.12900613773279798 (* (* x x) x))))',
      lambda x: 0.954929658551372 * x - 0.12900613773279798 * (x * x * x), [(-2.0, 2.0)], [0.75]),
    B('triangle', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle" :pre (and (<= 9.0 a 9.0) (<= 4.71 b 4.89) (<= 4.71 c 4.89)) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle, [(9.0, 9.0), (4.71, 4.89), (4.71, 4.89)], [9.0, 4.804684004751217, 4.804218250931085]),
    B('triangle1', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle1" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 0.1)) (> (+ a c) (+ b 0.1)) (> (+ b c) (+ a 0.1))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle1, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [7.0, 7.0, 5.0]),
    B('triangle2', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle2" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-2)) (> (+ a c) (+ b 1e-2)) (> (+ b c) (+ a 1e-2))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle2, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [2.5, 1.25, 2.5]),
    B('triangle3', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle3" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-3)) (> (+ a c) (+ b 1e-3)) (> (+ b c) (+ a 1e-3))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle3, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [2.5, 7.0, 7.0]),
    B('triangle4', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle4" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-4)) (> (+ a c) (+ b 1e-4)) (> (+ b c) (+ a 1e-4))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle4, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [5.0, 7.0, 5.0]),
    B('triangle5', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle5" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-5)) (> (+ a c) (+ b 1e-5)) (> (+ b c) (+ a 1e-5))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle5, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [7.0, 3.25, 7.0]),
    B('triangle6', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle6" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-6)) (> (+ a c) (+ b 1e-6)) (> (+ b c) (+ a 1e-6))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle6, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [1.25, 2.5, 2.5]),
    B('triangle7', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle7" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-7)) (> (+ a c) (+ b 1e-7)) (> (+ b c) (+ a 1e-7))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle7, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [1.5, 1.25, 1.25]),
    B('triangle8', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle8" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-8)) (> (+ a c) (+ b 1e-8)) (> (+ b c) (+ a 1e-8))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle8, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [2.5, 1.5, 2.5]),
    B('triangle9', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle9" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-9)) (> (+ a c) (+ b 1e-9)) (> (+ b c) (+ a 1e-9))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle9, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [3.25, 5.0, 5.0]),
    B('triangle10', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle10" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-10)) (> (+ a c) (+ b 1e-10)) (> (+ b c) (+ a 1e-10))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle10, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [5.0, 5.0, 2.5]),
    B('triangle11', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle11" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-11)) (> (+ a c) (+ b 1e-11)) (> (+ b c) (+ a 1e-11))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle11, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [1.5, 1.5, 2.5]),
    B('triangle12', 'benchmarks/rosa.fpcore',
      '(FPCore (a b c) :name "triangle12" :pre (and (<= 1 a 9) (<= 1 b 9) (<= 1 c 9) (> (+ a b) (+ c 1e-12)) (> (+ a c) (+ b 1e-12)) (> (+ b c) (+ a 1e-12))) (let ((s (/ (+ (+ a b) c) 2))) (sqrt (* (* (* s (- s a)) (- s b)) (- s c)))))',
      _triangle12, [(1.0, 9.0), (1.0, 9.0), (1.0, 9.0)], [1.5, 2.5, 1.25]),
    B('bspline3', 'benchmarks/rosa.fpcore',
      '(FPCore (u) :name "bspline3" :pre (<= 0 u 1) (/ (- (* (* u u) u)) 6))',
      lambda u: -(u * u * u) / 6, [(0.0, 1.0)], [0.3]),
)

#: The FPCores of the same files not transcribed: (file, name, why).
SKIPPED: tuple[tuple[str, str, str], ...] = (
    ('benchmarks/fptaylor-extra.fpcore', 'intro-example-mixed', 'mixed precision (cast between binary32 and binary64)'),
    ('benchmarks/rosa.fpcore', 'smartRoot', "a conditional (if): Herbie's regimes' business, not a spelling"),
    ('benchmarks/rosa.fpcore', 'cav10', "a conditional (if): Herbie's regimes' business, not a spelling"),
    ('benchmarks/rosa.fpcore', 'squareRoot3', "a conditional (if): Herbie's regimes' business, not a spelling"),
    ('benchmarks/rosa.fpcore', 'squareRoot3Invalid', "a conditional (if): Herbie's regimes' business, not a spelling"),
    ('benchmarks/rosa.fpcore', 'triangleSorted', "a conditional (if): Herbie's regimes' business, not a spelling"),
    ('benchmarks/rosa.fpcore', 'N Body Simulation', 'a loop (while): not elementwise'),
    ('benchmarks/rosa.fpcore', 'Pendulum', 'a loop (while): not elementwise'),
    ('benchmarks/rosa.fpcore', 'Sine Newton', 'a loop (while): not elementwise'),
    ('benchmarks/apron.fpcore', 'Arrow-Hurwicz', 'a loop (while): not elementwise'),
    ('benchmarks/apron.fpcore', 'Euler Oscillator', 'a loop (while): not elementwise'),
    ('benchmarks/apron.fpcore', 'Filter', 'a loop (while): not elementwise'),
    ('benchmarks/apron.fpcore', 'Symplectic Oscillator', 'a loop (while): not elementwise'),
    ('benchmarks/apron.fpcore', 'Circle', 'a loop (while): not elementwise'),
    ('benchmarks/apron.fpcore', 'Flower', 'a loop (while): not elementwise'),
    ('benchmarks/precimonious.fpcore', 'arclength of a wiggly function', 'a loop (while): not elementwise'),
    ('benchmarks/precimonious.fpcore', 'arclength of a wiggly function (old version)', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'Odometry', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'PID', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'Runge-Kutta 4', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'Lead-lag System', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'Trapeze', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'Rocket Trajectory', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', "Jacobi's Method", 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', "Newton-Raphson's Method", 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'Eigenvalue Computation', 'a loop (while): not elementwise'),
    ('benchmarks/salsa.fpcore', 'Iterative Gram-Schmidt Method', 'a loop (while): not elementwise'),
)
