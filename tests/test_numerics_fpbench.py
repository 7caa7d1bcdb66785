"""The FPBench and Herbie expressions of ``tests/numerics_fpbench.py`` are transcribed faithfully.

Each transcription (a PyTensor graph written by hand from the FPCore) is checked against the FPCore itself,
read and evaluated exactly by ``tests/fpcore.py``: at the record's point (inside the FPCore's ``:pre``) the
graph builds with the FPCore's arguments, evaluates to a finite float, and its exact value
(``graph_bridge.exact``) equals the FPCore's exact value, so an operator, an operand order, a constant or a
sign transcribed wrongly fails.  A wrong transcription is shown to fail.  The bits of error before and after
the stabilizing pass are a benchmark (``benchmarks/numerics_bits.py --fpbench``), not a test.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import Mode

from fpcore import evaluate, parse, read_all
from graph_bridge.exact import exact_values
from numerics_fpbench import FPBENCH, FULL, SKIPPED, B, Benchmark, floats_between

#: Op by Op, as written: no rewrite, no C compilation (a few milliseconds a graph).
AS_WRITTEN = Mode(linker="py", optimizer=None)


def _mp(values: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda v: mp.mpf(float(v)), otypes=[object])(values)


def reference(b: Benchmark, values: tuple[np.ndarray, ...]) -> np.ndarray:
    """The FPCore's exact values at ``values``: evaluated at a precision doubled until two agree to 1e-30,
    from twice the inputs' binary exponents on (two precisions too short to hold ``n + 1`` at ``n = 1e268``
    agree on ``(n + 1) * log(n + 1) - n * log(n) - 1 = -1``; it needs about 900 bits)."""
    xs = [_mp(v) for v in values]
    mags = [abs(int(mp.mag(x))) for v in xs for x in v.ravel() if x != 0]
    bits, last = 256 + 2 * max(mags, default=0), None
    while bits <= 1 << 14:
        with mp.workprec(bits):
            now = np.asarray(b.reference(*xs), dtype=object)
        if last is not None and all(
            (mp.isnan(a) and mp.isnan(c)) or a == c or abs(a - c) <= mp.mpf(10) ** -30 * abs(c)
            for a, c in zip(now.ravel(), last.ravel(), strict=True)
        ):
            return now
        last, bits = now, bits * 2
    raise AssertionError(f"{b.name}: the FPCore's value did not settle by 16384 bits")


def transcription_errors(b: Benchmark, rtol: float = 1e-10) -> list[str]:
    """What is wrong with ``b`` at its point: empty when the transcription is faithful there."""
    errors = []
    core = b.core()
    ins, out = b.graph()
    if [v.name for v in ins] != list(core.args):
        errors.append(f"inputs {[v.name for v in ins]} are not the FPCore's arguments {core.args}")
    if out.type.dtype != b.dtype or out.type.ndim != 1:
        errors.append(f"output type {out.type}, expected a {b.dtype} vector")
    if not b.admits(*b.values).all():
        errors.append(f"the point {[float(v[0]) for v in b.values]} is outside the :pre")
    if not all(lo <= float(v[0]) <= hi for v, (lo, hi) in zip(b.values, b.ranges, strict=True)):
        errors.append("the point is outside the ranges")
    given = dict(zip(ins, b.values, strict=True))
    with np.errstate(all="ignore"):
        got = np.asarray(pytensor.function(ins, out, mode=AS_WRITTEN)(*b.values))
    if not np.isfinite(got).all():
        errors.append(f"float value {got} is not finite")
    [exact], [settled] = exact_values([out], given)
    ref = reference(b, b.values)
    for e, r, ok in zip(exact.ravel(), ref.ravel(), np.asarray(settled).ravel(), strict=True):
        if not ok or mp.isnan(r) or abs(e - r) > rtol * abs(r):
            errors.append(f"graph's exact value {mp.nstr(e, 20)} differs from the FPCore's {mp.nstr(r, 20)}")
    return errors


@pytest.mark.parametrize("b", FPBENCH, ids=[b.name for b in FPBENCH])
def test_transcription_is_the_fpcore(b: Benchmark) -> None:
    assert transcription_errors(b) == []


def test_a_wrong_transcription_fails() -> None:
    """The check sees an operand order, a sign and a constant transcribed wrongly."""
    text = '(FPCore (x eps) :name "2sin (example 3.3)" :pre (< 0 eps x 1) (- (sin (+ x eps)) (sin x)))'
    right = B("2sin (example 3.3)", "bench/hamming/trigonometry.fpcore", text,
              lambda x, eps: pt.sin(x + eps) - pt.sin(x), [FULL, FULL], [0.5, 0.25])
    assert transcription_errors(right) == []
    for wrong in (lambda x, eps: pt.sin(x) - pt.sin(x + eps), lambda x, eps: pt.sin(x - eps) - pt.sin(x),
                  lambda x, eps: pt.sin(x + eps) - pt.sin(x) + 1e-9, lambda x, eps: pt.sin(eps + x) - pt.sin(eps)):
        bad = B("2sin (example 3.3)", "bench/hamming/trigonometry.fpcore", text, wrong, [FULL, FULL], [0.5, 0.25])
        assert any("differs" in e for e in transcription_errors(bad))
    outside = B("2sin (example 3.3)", "bench/hamming/trigonometry.fpcore", text,
                lambda x, eps: pt.sin(x + eps) - pt.sin(x), [FULL, FULL], [0.25, 0.5])
    assert any(":pre" in e for e in transcription_errors(outside))


def test_records_are_distinct_and_cited() -> None:
    names = [b.name for b in FPBENCH]
    assert len(names) == len(set(names))
    assert len(FPBENCH) >= 60
    hamming = [b for b in FPBENCH if b.target == "herbie-hamming"]
    assert len(hamming) == 28  # every FPCore of Herbie's bench/hamming
    for b in FPBENCH:
        assert b.core().name in b.cite and b.cite.split(" ")[1].endswith(".fpcore:")
        assert len(b.ranges) == len(b.core().args) and all(lo < hi or lo == hi for lo, hi in b.ranges)
    skipped = {name for _, name, _ in SKIPPED}
    assert not skipped & set(names)
    assert all(why for _, _, why in SKIPPED)


def test_sample_stays_inside_the_precondition() -> None:
    """Herbie's sampling: bit-pattern uniform inside the ranges, only points where the whole :pre holds."""
    by_name = {b.name: b for b in FPBENCH}
    rng = np.random.default_rng(3)
    for name in ("2sin (example 3.3)", "expq3 (problem 3.4.2)", "triangle12", "3frac (problem 3.3.3)"):
        b = by_name[name]
        pts = b.sample(32, rng)
        assert 0 < len(pts[0]) <= 32
        assert b.admits(*pts).all()
        for col, (lo, hi) in zip(pts, b.ranges, strict=True):
            assert col.dtype == b.dtype and ((lo <= col) & (col <= hi)).all()
    x = floats_between(1.0, 1e300, 4000, rng)
    assert ((1.0 <= x) & (x <= 1e300)).all()
    assert 0.4 < np.mean(x < 1e150) < 0.6  # binades equally likely: half the draws below the middle exponent
    y = floats_between(-1.0, 1.0, 4000, rng, "float32")
    assert y.dtype == np.float32 and 0.4 < np.mean(y < 0) < 0.6


def test_fpcore_reader() -> None:
    """The FPCore interpreter the references rest on: chained comparisons, let vs let*, rationals, binary64
    literals, NaN outside the reals, comments."""
    [core] = parse("""; a comment
        (FPCore (x y) :name "t" :pre (and (<= 1 x 2) (!= y 0)) #| block |#
          (let* ([a (+ x 1)] [b (* a 2)]) (let ([a 1/3] [c a]) (+ a c b))))""")
    assert core.args == ("x", "y") and core.name == "t"
    with mp.workprec(200):
        env = {"x": mp.mpf(1), "y": mp.mpf(3)}
        assert evaluate(core.pre, env) is True
        assert evaluate(core.pre, {"x": mp.mpf(3), "y": mp.mpf(1)}) is False
        # let binds in parallel: c is the outer a (2); 1/3 is the double nearest a third
        assert evaluate(core.body, env) == mp.mpf(1 / 3) + 2 + 4
        assert mp.isnan(evaluate(read_all("(sqrt -1)")[0], {}))
        assert evaluate(read_all("0.1")[0], {}) == mp.mpf(0.1)  # rounded to binary64, as FPCore specifies
        assert evaluate(read_all("(- (+ 1e30 1) 1e30)")[0], {}) == 1  # exact arithmetic (float64 gives 0)
