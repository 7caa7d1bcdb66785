"""Property: the stabilizing pass never makes a delicate spelling less accurate than PyTensor's own rewrites.

The graphs are drawn, not listed: a difference or log the pass's regions and
cancellation tier take (powers that are roots, shifted log differences, the log
definitions of ``asinh`` and ``acosh``, ``log(tanh)``, a softmax of two, a
complemented power, ...), over an inner argument drawn too (``x``, ``-x``,
``2x``, ``x + 0.5``, ``x / 3``), its constant drawn, and wrapped in a drawn
outer step (a constant factor, a negation, a ``log1p`` of its size).  Each is
compiled with PyTensor's rewrites (``fast_run``, Python linker) with and
without the pass, and both are measured against the graph's exact value
(``graph_bridge.exact``, mpmath) on Herbie's sampled points and the grid of
magnitudes: at no point is the pass's result worse by more than one bit
(unless PyTensor's has no correct digit left there, or the pass's is within
:data:`NOISE_BITS` of the exact value: ``-1 / (u * (u + 1))`` rounds three
times where ``1 / (u + 1) - 1 / u`` may round once, 1.6 bits at ``u = -10 /
3``, where neither cancels).  Property tests of the fast profile draw the
same examples each run (``derandomize``).  The fast profile draws a few examples (each is seconds of exact
evaluation); ``HYPOTHESIS_PROFILE=thorough`` draws more.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
import pytensor.tensor as pt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytensor.compile.mode import Mode

import relations
from relations.saturation.accuracy import NOISE_BITS, graph_bits, grid_points, sample_points
from relations.saturation.regimes import join_points
from strategies import Drawn, graphs

FAST = os.environ.get("HYPOTHESIS_PROFILE", "fast") == "fast"
SETTINGS = settings(max_examples=25 if FAST else 200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

x, y = pt.vector("x"), pt.vector("y")

#: Spellings of one argument ``u`` and a positive constant ``c`` (the kinds of the pass's regions and tier).
UNARY: dict[str, Callable[[pt.TensorVariable, float], pt.TensorVariable]] = {
    "sqrt_shift_pow": lambda u, c: (u + c) ** 0.5 - u**0.5,
    "recip_shift_pow": lambda u, c: (u + c) ** -1 - u**-1,
    "isqrt_shift": lambda u, c: 1 / pt.sqrt(u) - 1 / pt.sqrt(u + c),
    "log1p_minus_log": lambda u, c: pt.log1p(u) - pt.log(u),
    "log_cube": lambda u, c: pt.log(u * u * u),
    "log_tanh": lambda u, c: pt.log(pt.tanh(u)),
    "log_reflected": lambda u, c: pt.log((1 - u) / (1 + u)),
    "two_minus_erfc": lambda u, c: 2 - pt.erfc(-u),
    "asinh_log": lambda u, c: pt.log(u + pt.sqrt(u * u + 1)),
    "acosh_log": lambda u, c: pt.log(u + pt.sqrt(u * u - 1)),
    "tanh_sigmoid": lambda u, c: 2 * pt.sigmoid(2 * u) - 1,
    "sech_exp": lambda u, c: c / (pt.exp(u) + pt.exp(-u)),
    "log_cosh_ones": lambda u, c: pt.log(pt.cosh(u) * pt.ones((2, 1)))[0],
    "one_minus_exp": lambda u, c: 1 - pt.exp(u),
    "one_minus_exp_exp": lambda u, c: 1 - pt.exp(-pt.exp(u)),
}
#: Spellings of two arguments.
BINARY: dict[str, Callable[[pt.TensorVariable, pt.TensorVariable], pt.TensorVariable]] = {
    "softmax_of_two": lambda u, v: pt.exp(u) / (pt.exp(u) + pt.exp(v)),
    "complemented_power": lambda u, v: pt.log(1 - (1 - v) ** u),
}
INNER: dict[str, Callable[[pt.TensorVariable], pt.TensorVariable]] = {
    "x": lambda v: v, "-x": lambda v: -v, "2x": lambda v: 2 * v, "x+0.5": lambda v: v + 0.5, "x/3": lambda v: v / 3,
}
#: (no sum with another input: where ``g + y`` cancels, it amplifies a one-ulp difference of ``g``'s forms by its
#: condition number, 7 bits at ``g = 0.994``, ``y = -1``, which says nothing of the pass)
OUTER: dict[str, Callable[[pt.TensorVariable], pt.TensorVariable]] = {
    "": lambda g: g, "3*": lambda g: 3 * g, "-": lambda g: -g, "log1p": lambda g: pt.log1p(pt.abs(g)),
}

# NOISE_BITS: bits of error below which a result is accurate whatever the other's (eight ulps, the pass's own
# floor: ``(c / 2) / cosh(x)`` is 2.3 bits off where ``c / (exp(x) + exp(-x))`` is 1).

PY_FAST_RUN = Mode(linker="py", optimizer="fast_run")
WITH_PASS = relations.mode(base=PY_FAST_RUN)


@st.composite
def spellings(draw) -> tuple[str, pt.TensorVariable]:
    inner = draw(st.sampled_from(sorted(INNER)))
    outer = draw(st.sampled_from(sorted(OUTER)))
    if draw(st.booleans()):
        kind = draw(st.sampled_from(sorted(BINARY)))
        g = BINARY[kind](INNER[inner](x), y)
    else:
        kind = draw(st.sampled_from(sorted(UNARY)))
        g = UNARY[kind](INNER[inner](x), draw(st.sampled_from([1.0, 2.0, 0.5])))
    return f"{outer}{kind}({inner})", OUTER[outer](g)


@SETTINGS
@given(spellings())
def test_the_pass_is_never_less_accurate_than_pytensors_rewrites(drawn):
    name, g = drawn
    points = join_points(grid_points([g]), sample_points([g], 24, size=1))
    [stock] = graph_bits([g], points, mode=PY_FAST_RUN)
    [ours] = graph_bits([g], points, mode=WITH_PASS)
    known = ~np.isnan(stock) & ~np.isnan(ours)
    lost = stock >= np.finfo(g.type.dtype).nmant + 1  # no correct digit left: cannot be made worse
    worse = known & ~lost & (ours > stock + 1.0) & (ours > NOISE_BITS)
    assert not worse.any(), (name, np.flatnonzero(worse), ours[worse], stock[worse])


@SETTINGS
@given(graphs(max_nodes=6, family="spelling"))
def test_drawn_graphs_holding_spellings_keep_their_values_types_and_input_under_the_pass(drawn: Drawn):
    """The general property strategy (``tests/strategies.py``) with a numerics spelling first (``log(1 + exp(x))``,
    ``exp(x) - 1``, ...), then broadcasts, reductions, indexing and the rest: compiled with the pass, every output
    has PyTensor's type and its value (inputs in [-2, 2], where no spelling loses more than a few ulps; ``atol``
    for the values near 0 the stable forms keep and the spellings round to 0), and the graph is unchanged."""
    _keeps_values_types_and_input(drawn, WITH_PASS)


#: The fast pass and the measured stage (``relations.ACCURATE_TAGS``) over PyTensor's FAST_RUN rewrites.
WITH_STAGE = relations.mode(*relations.ACCURATE_TAGS, base=PY_FAST_RUN)


@settings(SETTINGS, max_examples=10 if FAST else 60)
@given(graphs(max_nodes=5, family="stage_spelling"))
def test_drawn_graphs_holding_spellings_keep_their_values_types_and_input_under_the_measured_stage(drawn: Drawn):
    """As above with the measured stage, which cuts regions, computes their leaves again from the region's inputs
    and replaces a region by what :func:`relations.stabilize` finds (Mills' ratio, ``c**b * expm1(b log(a / c))``,
    ``log1p`` of a ratio near 1, ...) across the broadcasts, reductions and indexing drawn around it."""
    _keeps_values_types_and_input(drawn, WITH_STAGE)


def _keeps_values_types_and_input(drawn: Drawn, mode: Mode) -> None:
    """Compiled in ``mode``, every output of ``drawn`` has PyTensor's type and value, and the graph is unchanged."""
    import pytensor

    from helpers import assert_same_types, snapshot

    before = snapshot(*drawn.outputs)
    stock = pytensor.function(drawn.inputs, drawn.outputs, mode=PY_FAST_RUN, on_unused_input="ignore")
    ours = pytensor.function(drawn.inputs, drawn.outputs, mode=mode, on_unused_input="ignore")
    assert snapshot(*drawn.outputs) == before, drawn.describe()
    for a, b in zip(stock.maker.fgraph.outputs, ours.maker.fgraph.outputs, strict=True):
        assert_same_types(a, b)
    try:
        want = stock(*drawn.values)
    except Exception:  # noqa: BLE001 - a max over an empty axis (drawn.may_raise): both raise
        assert drawn.may_raise, drawn.describe()
        return
    got = ours(*drawn.values)
    for w, g in zip(want, got, strict=True):
        assert np.shape(w) == np.shape(g), drawn.describe()
        tol = 1e-4 if np.asarray(w).dtype == np.float32 else 1e-9
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True, err_msg=drawn.describe())
