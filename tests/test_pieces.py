"""A region's own branches as regimes (``relations.compile.pieces``): the pieces at ``abs``, ``sign``,
``maximum`` and ``minimum``, their values on either side, and the joined form."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pytensor.graph.traversal import toposort

import relations
from graph_bridge.nodes import scalar_op_of
from helpers import snapshot
from relations.compile.pieces import PIECEWISE, by_pieces, pieces
from strategies import graphs


def _laplace_icdf(q):
    """PyTorch's ``Laplace.icdf`` (loc 0, scale 1)."""
    return -pt.sign(q - 0.5) * pt.log1p(-2 * pt.abs(q - 0.5))


def _fn(inputs, outputs):
    return pytensor.function(inputs, outputs, mode="FAST_COMPILE", on_unused_input="ignore")


def _piecewise_nodes(v):
    return [n for n in toposort([v]) if isinstance(scalar_op_of(n), PIECEWISE)]


@pytest.mark.parametrize("n", [0, 1, 7])
def test_each_piece_is_the_region_on_its_side_of_the_split(n):
    q = pt.dvector("q")
    v = _laplace_icdf(q)
    before = snapshot(v)
    low, high, lows, highs = pieces(v)
    assert snapshot(v) == before  # the input graph is not changed
    assert not _piecewise_nodes(lows) and not _piecewise_nodes(highs)  # abs and sign of q - 0.5 both replaced
    at = np.random.default_rng(0).uniform(0, 1, n)
    at[:1] = 0.5  # the tie: neither side
    got_v, got_low, got_high, is_low, is_high = _fn([q], [v, lows, highs, low, high])(at)
    assert got_low.shape == got_high.shape == got_v.shape == (n,)
    np.testing.assert_allclose(got_low[is_low], got_v[is_low], rtol=1e-15)
    np.testing.assert_allclose(got_high[is_high], got_v[is_high], rtol=1e-15)
    assert not (is_low | is_high)[at == 0.5].any()


def test_maximum_and_minimum_split_at_the_order_of_their_operands_and_keep_the_broadcast():
    x, y = pt.dvector("x"), pt.dmatrix("y")
    v = pt.log(pt.maximum(x, y) - pt.minimum(x, y) + 1)  # |x - y| as max - min, x broadcast along y's rows
    low, high, lows, highs = pieces(v)
    assert lows.type == highs.type == v.type
    assert not _piecewise_nodes(lows) and not _piecewise_nodes(highs)
    rng = np.random.default_rng(1)
    xs, ys = rng.normal(size=3), rng.normal(size=(2, 3))
    got_v, got_low, got_high, is_low, is_high = _fn([x, y], [v, lows, highs, low, high])(xs, ys)
    assert got_low.shape == got_high.shape == got_v.shape == (2, 3)
    np.testing.assert_allclose(np.where(is_low, got_low, got_high), got_v, rtol=1e-15)
    assert (is_low | is_high).all()


def test_a_graph_without_a_split_of_an_input_has_no_pieces():
    x = pt.dvector("x")
    assert pieces(pt.log1p(pt.exp(x))) is None
    assert pieces(x * pt.abs(pt.constant(-2.0))) is None  # abs of a constant splits nothing


def test_a_split_under_a_reordering_or_a_reduction_is_not_taken():
    # abs(x)[::-1] + x: entry i reads the sign of x[n - 1 - i], which a split at x[i] < 0 would not; sum(abs(x)):
    # one value from every entry's sign
    x = pt.dvector("x")
    assert pieces(pt.abs(x)[::-1] + x) is None
    assert pieces(pt.sum(pt.abs(x)) * 2) is None
    v = pt.sum(pt.abs(x)) * pt.abs(x)  # the elementwise abs is still a split, the summed one left as it is
    low, high, lows, highs = pieces(v)
    assert low.type.shape == (None,) and lows.type == x.type
    at = np.array([-2.0, 0.0, 3.0])
    got_v, got_low, got_high = _fn([x], [v, lows, highs])(at)
    np.testing.assert_allclose(got_low[:1], got_v[:1])
    np.testing.assert_allclose(got_high[2:], got_v[2:])


def test_no_form_of_either_piece_gives_no_form():
    q = pt.dvector("q")
    assert by_pieces(_laplace_icdf(q), lambda piece: None) is None


def test_the_laplace_quantile_by_pieces_is_finite_in_its_lower_tail_and_the_region_elsewhere():
    """In float32 ``q - 0.5`` rounds to ``-0.5`` below ``q = 3e-8`` and the quantile is ``-inf``; its value is
    ``log(2 q)``.  Each piece stabilized alone gives it; the split keeps the region where ``q = 0.5``."""

    def found(piece):
        s = relations.stabilize(piece, n=32)
        return s.graph if s.changed else None

    q = pt.fvector("q")
    v = _laplace_icdf(q)
    form = by_pieces(v, found)
    assert form is not None and form.type == v.type
    at = np.array([1e-30, 1e-9, 0.25, 0.5, 0.75, 1 - 2**-20], dtype="float32")
    with mp.workprec(200):
        ref = [float(mp.log(2 * mp.mpf(float(p))) if p < 0.5 else -mp.log(2 * (1 - mp.mpf(float(p))))) for p in at]
    got, was = _fn([q], [form, v])(at)
    assert got.dtype == "float32" and np.isneginf(was[0])
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    assert _fn([q], form)(np.zeros(0, dtype="float32")).shape == (0,)


def test_a_piece_keeps_the_node_dtype_where_an_operand_is_a_narrower_constant():
    # maximum(y, 0) reads an int8 0: its low piece is that 0, cast to the node's float64
    y = pt.dvector("y")
    v = pt.maximum(y, 0) ** 1.5 - y
    low, high, lows, highs = pieces(v)
    assert lows.type == highs.type == v.type
    at = np.array([-2.0, 0.0, 3.0])
    got_v, got_low, got_high, is_low, is_high = _fn([y], [v, lows, highs, low, high])(at)
    np.testing.assert_allclose(np.where(is_low, got_low, np.where(is_high, got_high, got_v)), got_v)
    assert list(is_low) == [True, False, False] and list(is_high) == [False, False, True]


_WRAPS = {  # a piecewise step over a drawn graph ``x`` (the strategies' general vocabulary)
    "abs": lambda x: pt.abs(x) - 2 * x,
    "sign": lambda x: pt.sign(x) * pt.exp(-pt.abs(x)),
    "maximum": lambda x: pt.log1p(pt.maximum(x, 0.5) - 0.5),
    "minimum": lambda x: pt.minimum(x, pt.sqr(x)) * x,
}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=5), st.sampled_from(sorted(_WRAPS)))
def test_the_pieces_joined_are_the_region_on_drawn_graphs(drawn, wrap):
    """Over a drawn graph (broadcasts, reductions, indexing, length-0 and length-1 dimensions), a piecewise step:
    ``switch(low, low piece, switch(high, high piece, v))`` has ``v``'s type and values, and ``v`` is unchanged."""
    x = drawn.outputs[0]
    assume(x.type.dtype.startswith("float"))
    v = _WRAPS[wrap](x)
    before = snapshot(v)
    low, high, lows, highs = pieces(v)
    joined = pt.switch(low, lows, pt.switch(high, highs, v))
    assert snapshot(v) == before
    assert joined.type == v.type, (joined.type, v.type)
    fn = pytensor.function(drawn.inputs, [v, joined], mode="FAST_COMPILE", on_unused_input="ignore")
    try:
        want, got = fn(*drawn.values)
    except Exception:  # noqa: BLE001 - a max over an empty axis (drawn.may_raise)
        assert drawn.may_raise, drawn.describe()
        return
    assert want.shape == got.shape and want.dtype == got.dtype
    # (an ulp apart where the pieces' clone of the drawn graph is fused otherwise)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300, equal_nan=True, err_msg=drawn.describe())
