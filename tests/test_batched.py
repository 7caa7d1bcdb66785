"""Explicit batch broadcasting for Blockwise and RandomVariable (pytensor #408, aesara #933): Ops, relations, lowering.

Blockwise and RandomVariable build their nodes alike on PyTensor 3.0 and
3.3 (``(rng, size, *params)`` with left-padded parameters for RVs), so
every test here runs on both lines.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.graph.replace import clone_replace, vectorize_graph
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.random.type import RandomGeneratorType

import relations
from graph_bridge import (
    ExplicitBlockwise,
    ExplicitRandomVariable,
    explicit_blockwise,
    explicit_random_variable,
)
from helpers import (
    MODE,
    assert_same_types,
    assert_same_values,
    backward,
    check_rewrite,
    forward,
    graph_ops,
    holds,
    snapshot,
)
from relations.rules.batched import blockwise_explicito, dimshuffle_through_blockwiseo, random_explicito

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pytensor")

PY = pytensor.compile.mode.Mode(linker="py", optimizer=None)  # runs ``perform`` as it is
A = pt.tensor("A", shape=(None, 3, 3))
b = pt.vector("b", shape=(3,))
m = pt.matrix("m")
B = pt.tensor3("B")


def solve(a, v):
    return pt.linalg.solve(a, v, b_ndim=1)


def _spd(rng, shape):
    """Well-conditioned square matrices of batch shape ``shape[:-2]``."""
    x = rng.normal(size=shape)
    return x + 3 * np.eye(shape[-1])


def _explicit(*outs) -> list:
    return [op for op in graph_ops(*outs) if isinstance(op, (ExplicitBlockwise, ExplicitRandomVariable))]


def _stock_batched(*outs) -> list:
    return [op for op in graph_ops(*outs) if isinstance(op, (Blockwise, RandomVariable))]


def _padded(*outs) -> int:
    """ExpandDims adding batch dims to an input of a stock Blockwise or RandomVariable node
    (an ExpandDims that makes a core dim, as a vector made a one-row matrix for matmul, is no padding)."""
    from pytensor.graph.traversal import apply_ancestors

    count = 0
    for node in apply_ancestors(list(outs)):
        if isinstance(node.op, Blockwise):
            cores = [len(sig) for sig in node.op.inputs_sig]
            ins = node.inputs
        elif isinstance(node.op, RandomVariable):
            cores, ins = list(node.op.ndims_params), node.inputs[2:]
        else:
            continue
        for i, core in zip(ins, cores):
            op = getattr(i.owner, "op", None)
            if isinstance(op, DimShuffle):
                batch = i.type.ndim - core
                count += any(x == "x" for x in op.new_order[:batch])
    return count


# -- the Blockwise Op ----------------------------------------------------------


def test_explicit_blockwise_reads_the_numpy_rule_from_batch_shapes():
    x = solve(A, b)
    z = explicit_blockwise(x.owner.op.core_op, A, b)
    assert z.owner.op.pattern == ("*", "x") and z.owner.inputs == [A, b]
    assert z.type == x.type
    one = pt.tensor("one", shape=(1, 3, 3))
    w = explicit_blockwise(x.owner.op.core_op, one, pt.matrix("bm", shape=(None, 3)))
    assert w.owner.op.pattern == ("1", "*")
    assert str(z.owner.op).endswith("{*,x}")


def test_bad_blockwise_arguments_are_named():
    core = solve(A, b).owner.op.core_op
    sig = solve(A, b).owner.op.signature
    with pytest.raises(TypeError, match="core_op"):
        ExplicitBlockwise(solve(A, b).owner.op, sig, ("*", "x"))
    with pytest.raises(TypeError, match="pattern"):
        ExplicitBlockwise(core, sig, "*x")
    with pytest.raises(ValueError, match="one entry per input"):
        ExplicitBlockwise(core, sig, ("*",))
    with pytest.raises(ValueError, match="characters"):
        ExplicitBlockwise(core, sig, ("*", "q"))
    with pytest.raises(TypeError, match="takes 2 inputs"):
        ExplicitBlockwise(core, sig, ("*", "x"))(A)
    with pytest.raises(ValueError, match="core dims"):
        ExplicitBlockwise(core, sig, ("*", "x"))(pt.vector("v"), b)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_blockwise_perform_matches_numpy(n):
    z = explicit_blockwise(solve(A, b).owner.op.core_op, A, b)
    rng = np.random.default_rng(n)
    a, v = _spd(rng, (n, 3, 3)), rng.normal(size=3)
    f = pytensor.function([A, b], z, mode=PY)
    if n == 0:  # stock Blockwise.perform cannot vectorize an empty batch (PyTensor 3.0 and 3.3), nor can this
        with pytest.raises(NotImplementedError):
            pytensor.function([A, b], solve(A, b), mode=PY)(a, v)
        with pytest.raises(NotImplementedError):
            f(a, v)
        return
    np.testing.assert_allclose(f(a, v), np.linalg.solve(a, np.broadcast_to(v, (n, 3))[..., None])[..., 0])


def test_blockwise_perform_checks_broadcast_dims():
    core = pt.matmul(m, B).owner.op.core_op
    op = ExplicitBlockwise(core, "(m,n),(n,p)->(m,p)", ("1", "*"))
    z = op(pt.tensor3("C"), B)
    f = pytensor.function(z.owner.inputs, z, mode=PY)
    with pytest.raises(ValueError, match="broadcasts at output dim 0"):
        f(np.ones((2, 2, 2)), np.ones((2, 2, 2)))


def test_blockwise_shape_and_gradient_agree_with_stock():
    x = solve(A, b)
    z = relations.normalize(x)
    rng = np.random.default_rng(0)
    vals = [_spd(rng, (4, 3, 3)), rng.normal(size=3)]
    assert tuple(pytensor.function([A, b], z.shape, mode=PY)(*vals)) == (4, 3)
    for wrt in (A, b):
        g_new, g_old = pytensor.grad(pt.sum(z**2), wrt), pytensor.grad(pt.sum(x**2), wrt)
        assert g_new.type == g_old.type
        np.testing.assert_allclose(
            pytensor.function([A, b], g_new, mode=PY)(*vals), pytensor.function([A, b], g_old, mode=MODE)(*vals)
        )


# -- blockwise_explicito, three ways ----------------------------------------


@pytest.mark.parametrize(
    "build, pattern, shapes",
    [
        (lambda: solve(A, b), ("*", "x"), {A: [(3, 3, 3), (0, 3, 3), (1, 3, 3)], b: [(3,)] * 3}),
        (lambda: pt.matmul(m, B), ("x", "*"), {m: [(2, 3), (2, 0), (1, 1)], B: [(4, 3, 2), (0, 0, 5), (1, 1, 1)]}),
        (
            lambda: pt.matmul(pt.tensor("C", shape=(None, 1, 2, 2)), pt.tensor("D", shape=(5, 2, 2))),
            ("*1", "x*"),
            None,
        ),
    ],
)
def test_blockwise_forward_absorbs_the_padding(build, pattern, shapes):
    lhs = build()
    before = snapshot(lhs)
    (out,) = forward(blockwise_explicito, lhs)
    assert snapshot(lhs) == before
    assert isinstance(out.owner.op, ExplicitBlockwise) and out.owner.op.pattern == pattern
    assert not any(isinstance(op, DimShuffle) for op in graph_ops(out))
    assert_same_types(lhs, out)
    if shapes is None:
        c, d = lhs.owner.inputs[0], lhs.owner.inputs[1].owner.inputs[0]
        shapes = {c: [(3, 1, 2, 2), (0, 1, 2, 2), (1, 1, 2, 2)], d: [(5, 2, 2)] * 3}
    check_rewrite(lhs, out, shapes)
    check_rewrite(lhs, out, shapes, mode=PY)


def test_blockwise_backward_gives_the_stock_form():
    rhs = relations.normalize(solve(A, b))
    (lhs,) = backward(blockwise_explicito, rhs)
    assert type(lhs.owner.op) is Blockwise
    pad = lhs.owner.inputs[1]
    assert isinstance(pad.owner.op, DimShuffle) and pad.owner.inputs[0] is b
    check_rewrite(rhs, lhs, {A: [(2, 3, 3), (0, 3, 3), (1, 3, 3)], b: [(3,)] * 3})


def test_blockwise_check_with_both_sides():
    x = solve(A, b)
    core = x.owner.op.core_op
    assert holds(blockwise_explicito, x, explicit_blockwise(core, A, b))
    wrong = ExplicitBlockwise(core, x.owner.op.signature, ("*", "*"))(A, pt.matrix("bm", shape=(None, 3)))
    assert not holds(blockwise_explicito, x, wrong)
    other = explicit_blockwise(pt.matmul(m, B).owner.op.core_op, pt.tensor3("C"), pt.matrix("D")[None])
    assert not holds(blockwise_explicito, x, other)


def test_an_expand_dims_of_a_core_dim_is_not_absorbed():
    v = pt.vector("v")
    col = v[:, None]  # (n, 1): a core dim added
    lhs = pt.matmul(pt.tensor3("C"), col)
    (out,) = forward(blockwise_explicito, lhs)
    assert out.owner.op.pattern == ("*", "x") and out.owner.inputs[1] is col
    c = out.owner.inputs[0]
    check_rewrite(lhs, out, {c: [(2, 3, 2), (0, 3, 2), (1, 1, 2)], v: [(2,), (2,), (2,)]})


def test_a_blockwise_or_rv_that_cannot_broadcast_stays_stock():
    """No batch dims, or a single input: nothing to pad, nothing to absorb (as one-input Elemwise)."""
    assert forward(blockwise_explicito, pt.matmul(m, pt.matrix("r"))) == []
    assert forward(blockwise_explicito, pt.linalg.cholesky(pt.tensor3("C"))) == []
    assert forward(random_explicito, pt.random.normal(0.0, 1.0, rng=rng_var)) == []


# -- the example: replacements of another rank -------------------------


def test_solve_with_b_replaced_by_a_matrix_replaces_and_evaluates():
    x = solve(A, b)
    bm = pt.matrix("bm", shape=(None, 3))
    with pytest.raises(TypeError):  # stock: the ExpandDims expects a vector
        clone_replace(x, {b: bm}, rebuild_strict=False)
    z = clone_replace(relations.normalize(x), {b: bm}, rebuild_strict=False)
    assert z.owner.op.pattern == ("*", "*") and z.owner.inputs == [A, bm]
    rng = np.random.default_rng(1)
    for n in (1, 4):  # (an empty batch: stock Blockwise.perform cannot, see above)
        a, v = _spd(rng, (n, 3, 3)), rng.normal(size=(n, 3))
        want = np.linalg.solve(a, v[..., None])[..., 0]
        np.testing.assert_allclose(pytensor.function([A, bm], z, mode=MODE)(a, v), want)
        np.testing.assert_allclose(pytensor.function([A, bm], z, mode=PY)(a, v), want)


def test_vectorize_graph_of_a_core_input_gives_numpys_batched_solve():
    rng = np.random.default_rng(2)
    bm = pt.matrix("bm", shape=(None, 3))
    v = rng.normal(size=(5, 3))
    # a core solve (no batch dims: nothing to make explicit), b replaced by a batch of right sides
    a2 = pt.matrix("a2", shape=(3, 3))
    core = relations.normalize(pt.exp(solve(a2, b)))
    zc = vectorize_graph(core, {b: bm})
    a = _spd(rng, (3, 3))
    np.testing.assert_allclose(zc.eval({a2: a, bm: v}, mode=MODE), np.exp(np.linalg.solve(a, v.T).T))
    # a batched solve in explicit form: the new dims go in front of the old batch dims (vectorize)
    z = relations.normalize(solve(A, b))
    zv = vectorize_graph(z, {b: bm})
    assert zv.owner.op.pattern == ("x*", "*x") and zv.type.ndim == 3
    a4 = _spd(rng, (4, 3, 3))
    want = np.linalg.solve(a4[None], v[:, None, :, None])[..., 0]  # (5, 4, 3)
    np.testing.assert_allclose(zv.eval({A: a4, bm: v}, mode=MODE), want)
    np.testing.assert_allclose(pytensor.function([A, bm], zv, mode=PY)(a4, v), want)
    stock = vectorize_graph(solve(A, b), {b: bm})
    np.testing.assert_allclose(stock.eval({A: a4, bm: v}, mode=MODE), want)
    A4 = pt.tensor("A4", shape=(None, None, 3, 3))
    za = vectorize_graph(z, {A: A4})
    assert za.owner.op.pattern == ("**", "xx")
    a5 = _spd(rng, (2, 4, 3, 3))
    np.testing.assert_allclose(za.eval({A4: a5, b: v[0]}, mode=MODE), np.linalg.solve(a5, v[0][:, None])[..., 0])


def test_vectorize_graph_of_an_explicit_elemwise_puts_new_dims_in_front():
    x, y = pt.scalar("x"), pt.vector("y")
    z = relations.normalize(x + y)
    xs = pt.vector("xs")
    zv = vectorize_graph(z, {x: xs})
    assert zv.owner.op.pattern == ("*x", "x*") and zv.owner.inputs == [xs, y]
    vals = {xs: np.arange(2.0), y: np.arange(3.0)}
    want = vals[xs][:, None] + vals[y]
    np.testing.assert_allclose(zv.eval(vals, mode=MODE), want)
    np.testing.assert_allclose(vectorize_graph(x + y, {x: xs}).eval(vals, mode=MODE), want)


def test_vectorize_graph_of_an_explicit_alloc_stays_explicit():
    x, n = pt.vector("x"), pt.iscalar("n")
    g = pt.alloc(pt.exp(x), n, 3)
    z = relations.normalize(g)
    xv = pt.matrix("xv")
    zv = vectorize_graph(z, {x: xv})
    assert zv.owner.op.entry == "*x*" and _explicit(zv) == []
    vals = {xv: np.arange(6.0).reshape(2, 3), n: np.int32(4)}
    want = np.broadcast_to(np.exp(vals[xv])[:, None, :], (2, 4, 3))
    for mode in (MODE, PY):
        np.testing.assert_allclose(pytensor.function(list(vals), zv, mode=mode)(*vals.values()), want)
    np.testing.assert_allclose(vectorize_graph(g, {x: xv}).eval(vals, mode=MODE), want)


def test_refining_a_batch_length_to_one_keeps_the_run_time_check():
    z = relations.normalize(pt.matmul(pt.tensor3("C"), B))
    c1 = pt.tensor("c1", shape=(1, None, None))
    z1 = clone_replace(z, {z.owner.inputs[0]: c1}, rebuild_strict=False)
    assert z1.type == z.type and z1.owner.op.pattern == ("*", "*")
    for mode in (PY, MODE):
        f = pytensor.function([c1, B], z1, mode=mode)
        with pytest.raises((ValueError, AssertionError)):
            f(np.ones((1, 2, 2)), np.ones((3, 2, 2)))
    assert relations.rebroadcast(z1).owner.op.pattern == ("1", "*")


def test_relaxing_a_static_one_keeps_the_broadcast_and_checks_the_length():
    c1 = pt.tensor("c1", shape=(1, None, None))
    z = relations.normalize(pt.matmul(c1, B))
    assert z.owner.op.pattern == ("1", "*")
    cn = pt.tensor3("cn")
    zn = clone_replace(z, {c1: cn}, rebuild_strict=False)
    assert zn.owner.op.pattern == ("1", "*")
    rng = np.random.default_rng(3)
    c_val, b_val = rng.normal(size=(1, 2, 2)), rng.normal(size=(3, 2, 2))
    for mode in (PY, MODE):
        f = pytensor.function([cn, B], zn, mode=mode)
        np.testing.assert_allclose(f(c_val, b_val), np.matmul(c_val, b_val))
        with pytest.raises((ValueError, AssertionError)):
            f(np.ones((3, 2, 2)), b_val)  # '1': its length must be 1


def test_rebroadcast_rederives_blockwise_and_rv_patterns():
    z = relations.normalize(solve(A, b))
    one = pt.tensor("one", shape=(1, 3, 3))
    z1 = clone_replace(z, {A: one}, rebuild_strict=False)
    assert z1.owner.op.pattern == ("*", "x")
    assert relations.rebroadcast(z1).owner.op.pattern == ("1", "x")
    r = relations.normalize(pt.random.normal(pt.vector("mu"), 1.0, size=(2, 3)))
    r1 = clone_replace(r, {r.owner.inputs[2]: pt.vector("mu1", shape=(1,))}, rebuild_strict=False)
    assert r1.owner.op.pattern == ("x*", "xx")
    assert relations.rebroadcast(r1).owner.op.pattern == ("x1", "xx")


# -- DimShuffle through Blockwise ----------------------------------------------


def test_dimshuffle_through_blockwise_three_ways():
    bm = pt.matrix("bm", shape=(None, 3))
    lhs = solve(A[None], bm[None])
    (out,) = forward(dimshuffle_through_blockwiseo, lhs)
    assert isinstance(out.owner.op, DimShuffle) and out.owner.op.new_order == ("x", 0, 1)
    assert out.owner.inputs[0].owner.inputs == [A, bm]
    shapes = {A: [(2, 3, 3), (0, 3, 3), (1, 3, 3)], bm: [(2, 3), (0, 3), (1, 3)]}
    check_rewrite(lhs, out, shapes)
    (back,) = backward(dimshuffle_through_blockwiseo, out)
    assert type(back.owner.op) is Blockwise
    assert [i.owner.op.new_order for i in back.owner.inputs] == [("x", 0, 1, 2), ("x", 0, 1)]
    check_rewrite(out, back, shapes)
    assert holds(dimshuffle_through_blockwiseo, lhs, out)
    assert not holds(dimshuffle_through_blockwiseo, lhs, out.owner.inputs[0][None, None][0])


def test_dimshuffle_through_blockwise_backward_leaves_other_dimshuffles():
    """Backward, only a DimShuffle that adds batch dims has a preimage (a transpose, or a dim
    added among the core dims, has none; building one raised StopIteration)."""
    bm = pt.matrix("bm", shape=(None, 3))
    x = solve(A, bm)  # (None, 3): one batch dim, one core dim
    for rhs in (x.T, pt.expand_dims(x, 2)):
        assert backward(dimshuffle_through_blockwiseo, rhs) == [], rhs.owner.op
    shapes = {A: [(2, 3, 3), (0, 3, 3), (1, 3, 3)], bm: [(2, 3), (0, 3), (1, 3)]}
    for axis, orders in ((0, [("x", 0, 1, 2), ("x", 0, 1)]), (1, [(0, "x", 1, 2), (0, "x", 1)])):
        rhs = pt.expand_dims(x, axis)  # a batch dim added, before or after the one there is
        (back,) = backward(dimshuffle_through_blockwiseo, rhs)
        assert [i.owner.op.new_order for i in back.owner.inputs] == orders
        check_rewrite(rhs, back, shapes)


def test_a_reduction_over_added_batch_dims_sees_through_a_blockwise():
    bm = pt.matrix("bm", shape=(None, 3))
    g = pt.sum(solve(A[None], bm[None]), axis=0)
    n = relations.normalize(g)
    assert isinstance(n.owner.op, ExplicitBlockwise) and n.owner.inputs == [A, bm]
    check_rewrite(g, n, {A: [(2, 3, 3), (0, 3, 3), (1, 3, 3)], bm: [(2, 3), (0, 3), (1, 3)]})


def test_only_shared_batch_expansions_move():
    bm = pt.matrix("bm", shape=(None, 3))
    a1 = pt.tensor("a1", shape=(1, None, 3, 3))
    assert forward(dimshuffle_through_blockwiseo, solve(a1, bm[None])) == []  # a1 has no ExpandDims
    assert forward(dimshuffle_through_blockwiseo, solve(A[None], b[None, None])) == []  # different positions


# -- RandomVariable -------------------------------------------------------------

rng_var = RandomGeneratorType()("rng")
mu, s = pt.scalar("mu"), pt.vector("s")


def _draw(outs, givens, seed, mode=MODE):
    inputs = [rng_var, *givens]
    f = pytensor.function(inputs, outs, mode=mode, on_unused_input="ignore")
    return f(np.random.default_rng(seed), *givens.values())


def test_explicit_rv_reads_the_numpy_rule_and_names_bad_arguments():
    x = pt.random.normal(mu, s, size=(4, 3), rng=rng_var)
    z = explicit_random_variable(x.owner.op, rng_var, x.owner.inputs[1], mu, s)
    assert z.owner.op.pattern == ("xx", "x*") and z.type == x.type
    assert str(z.owner.op) == "normal_rv{xx,x*}"
    with pytest.raises(TypeError, match="rv_op"):
        ExplicitRandomVariable(pt.add, ("",))
    with pytest.raises(TypeError, match="rng"):
        z.owner.op.make_node(mu, x.owner.inputs[1], mu, s)
    with pytest.raises(TypeError, match="takes 2 parameters"):
        z.owner.op.make_node(rng_var, x.owner.inputs[1], mu)


@pytest.mark.parametrize("size", [(4, 3), (0, 3), (1, 3), None])
def test_random_forward_three_ways_and_identical_draws(size):
    x = pt.random.normal(mu, s, size=size, rng=rng_var)
    before = snapshot(x)
    (out,) = forward(random_explicito, x)
    assert snapshot(x) == before
    assert isinstance(out.owner.op, ExplicitRandomVariable)
    assert out.owner.inputs[2:] == [mu, s]
    assert_same_types(x, out)
    assert out.owner.op.pattern == (("xx", "x*") if size else ("x", "*"))
    n = size[0] if size else 3
    givens = {mu: np.float64(0.5), s: np.arange(1.0, 4.0) if size else np.ones(n)}
    want = _draw(x, givens, 7)
    for mode in (PY, MODE):
        np.testing.assert_array_equal(_draw(out, givens, 7, mode), want)
    (back,) = backward(random_explicito, out)
    assert isinstance(back.owner.op, RandomVariable) and _padded(back) == (2 if size else 1)
    np.testing.assert_array_equal(_draw(back, givens, 7), want)
    assert holds(random_explicito, x, out)
    other = explicit_random_variable(x.owner.op, rng_var, x.owner.inputs[1], pt.scalar("mu2"), s)
    assert not holds(random_explicito, x, other)


def test_random_normalize_maps_both_outputs_and_the_rng_update():
    shared = pytensor.shared(np.random.default_rng(3))
    nxt, x = pt.random.normal(mu, s, size=(2, 3), rng=shared, return_next_rng=True)
    new_next, new_x = relations.normalize([nxt, x])
    assert new_next.owner is new_x.owner and isinstance(new_x.owner.op, ExplicitRandomVariable)
    f_new = pytensor.function([mu, s], new_x, updates={shared: new_next}, mode=MODE)
    shared_ref = pytensor.shared(np.random.default_rng(3))
    ref = clone_replace([nxt, x], {shared: shared_ref})
    f_ref = pytensor.function([mu, s], ref[1], updates={shared_ref: ref[0]}, mode=MODE)
    a, v = np.float64(1.0), np.ones(3)
    first, second = f_new(a, v), f_new(a, v)
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, f_ref(a, v))
    np.testing.assert_array_equal(second, f_ref(a, v))


def test_an_rv_class_with_its_own_make_node_or_perform_stays_stock():
    from pytensor.tensor.random.basic import NormalRV

    class OwnPerform(NormalRV):
        def perform(self, node, inputs, outputs):
            super().perform(node, inputs, outputs)

    x = pt.random.normal(mu, s, size=(4, 3), rng=rng_var)
    mine = OwnPerform().make_node(rng_var, x.owner.inputs[1], *x.owner.inputs[2:]).outputs[1]
    assert forward(random_explicito, mine) == []
    assert _padded(relations.normalize(mine)) == 2


def test_random_scalar_parameter_replaced_by_a_vector_draws_the_batched_shape():
    x = pt.random.normal(mu, 1.0, rng=rng_var)  # a 0-d draw
    z = relations.normalize(pt.random.normal(mu, s, rng=rng_var))
    mv = pt.vector("mv")
    with pytest.raises((TypeError, ValueError)):
        clone_replace(pt.random.normal(mu, s, rng=rng_var), {mu: pt.matrix("mm")}, rebuild_strict=False)
    zm = clone_replace(z, {mu: mv}, rebuild_strict=False)
    assert zm.owner.op.pattern == ("*", "*")
    stock = pt.random.normal(mv, s, rng=rng_var)
    givens = {mv: np.arange(4.0), s: np.ones(4)}
    np.testing.assert_array_equal(_draw(zm, givens, 5), _draw(stock, givens, 5))
    assert x.type.ndim == 0


def test_vectorize_graph_of_an_rv_with_size_draws_the_batched_shape():
    x = pt.random.normal(mu, s, size=(4, 3), rng=rng_var)
    z = relations.normalize(x)
    mv = pt.vector("mv")
    zv = vectorize_graph(z, {mu: mv})
    xv = vectorize_graph(x, {mu: mv})
    givens = {mv: np.arange(2.0), s: np.ones(3)}
    got = _draw(zv, givens, 11)
    assert got.shape == (2, 4, 3)
    np.testing.assert_array_equal(got, _draw(xv, givens, 11))
    np.testing.assert_array_equal(_draw(zv, givens, 11, PY), got)


def test_random_refinement_keeps_the_strict_check():
    z = relations.normalize(pt.random.normal(pt.vector("a"), pt.vector("c"), rng=rng_var))
    a1 = pt.vector("a1", shape=(1,))
    z1 = clone_replace(z, {z.owner.inputs[2]: a1}, rebuild_strict=False)
    assert z1.owner.op.pattern == ("*", "*") and z1.type == z.type
    c = z.owner.inputs[3]
    for mode in (PY, MODE):
        with pytest.raises((ValueError, AssertionError)):
            _draw(z1, {a1: np.ones(1), c: np.ones(3)}, 0, mode)


def test_multivariate_rv_keeps_its_core_dims():
    mean = pt.vector("mean")
    cov = pt.tensor3("cov")
    x = pt.random.multivariate_normal(mean, cov, rng=rng_var)  # mean padded to (1, k)
    assert _padded(x) == 1
    n = relations.normalize(x)
    assert n.owner.op.pattern == ("x", "*") and n.owner.inputs[2] is mean
    givens = {mean: np.zeros(2), cov: np.stack([np.eye(2), 2 * np.eye(2), np.eye(2)])}
    np.testing.assert_array_equal(_draw(n, givens, 1, PY), _draw(x, givens, 1))


# -- lowering and compiling ------------------------------------------------------


def test_lower_gives_only_stock_ops():
    g = pt.sum(pt.matmul(m, B)) + pt.sum(solve(A, b)) + pt.sum(pt.random.normal(mu, s, size=(2, 3), rng=rng_var))
    n = relations.normalize(g)
    assert len(_explicit(n)) == 3 and _padded(n) == 0
    low = relations.lower(n)
    assert _explicit(low) == [] and len(_stock_batched(low)) == 3
    assert_same_types(g, low)


@pytest.mark.default_mode
def test_lowered_batched_graphs_compile_in_the_default_mode_with_stock_values_and_gradients():
    g = pt.sum(pt.matmul(m, B) ** 2) + pt.sum(solve(A, b))
    n = relations.normalize(g)
    rng = np.random.default_rng(0)
    vals = [rng.normal(size=(2, 3)), rng.normal(size=(4, 3, 2)), _spd(rng, (4, 3, 3)), rng.normal(size=3)]
    ins = [m, B, A, b]
    f = pytensor.function(ins, [n, *pytensor.grad(n, [m, b])])
    assert _explicit(*f.maker.fgraph.outputs) == []
    f_ref = pytensor.function(ins, [g, *pytensor.grad(g, [m, b])])
    for x, y in zip(f(*vals), f_ref(*vals)):
        np.testing.assert_allclose(x, y)


@pytest.mark.default_mode
def test_lowered_random_graph_compiles_in_the_default_mode_with_stock_draws():
    x = pt.random.normal(mu, s, size=(4, 3), rng=rng_var)
    low = relations.lower(relations.normalize(x))
    assert _explicit(low) == []
    givens = {mu: np.float64(0.0), s: np.ones(3)}
    np.testing.assert_array_equal(_draw(low, givens, 9, None), _draw(x, givens, 9, None))


def test_compile_pass_with_the_tag_replaces_whole_rv_nodes():
    """The ``relational`` pass replaces an RV's draw and its next rng together (the update still draws anew)."""
    from pytensor.compile.mode import get_mode

    shared = pytensor.shared(np.random.default_rng(4))
    x = pt.random.normal(mu, s, size=(2, 3), rng=shared)
    nxt = x.owner.outputs[0]
    y = pt.sum(solve(A, b))
    f = pytensor.function([mu, s, A, b], [x, y], updates={shared: nxt}, mode=get_mode(MODE).including("relational"))
    ref_shared = pytensor.shared(np.random.default_rng(4))
    x_ref, nxt_ref = clone_replace([x, nxt], {shared: ref_shared})
    f_ref = pytensor.function([mu, s], x_ref, updates={ref_shared: nxt_ref}, mode=MODE)
    rng = np.random.default_rng(0)
    args = (np.float64(1.0), np.ones(3), _spd(rng, (2, 3, 3)), rng.normal(size=3))
    draws = []
    for _ in range(2):
        got, total = f(*args)
        np.testing.assert_array_equal(got, f_ref(*args[:2]))
        np.testing.assert_allclose(total, np.linalg.solve(args[2], np.broadcast_to(args[3], (2, 3))[..., None]).sum())
        draws.append(got)
    assert not np.array_equal(*draws)
    assert _explicit(*f.maker.fgraph.outputs) == []


# -- random graphs: the strategy's batched builders ------------------------------


@pytest.mark.parametrize("family", ["matmul", "solve", "random"])
def test_random_batched_graphs_normalize_and_lower_to_the_same_values(family):
    from hypothesis import HealthCheck, given, settings

    from helpers import assert_same_values
    from strategies import Drawn, graphs

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(graphs(family=family, max_nodes=6))
    def check(drawn: Drawn) -> None:
        before = snapshot(*drawn.outputs)
        normal = relations.normalize(drawn.outputs)
        assert snapshot(*drawn.outputs) == before
        assert _padded(*normal) == 0, drawn.describe()
        low = relations.lower(normal)
        assert _explicit(*low) == []
        for b, a, w in zip(drawn.outputs, normal, low):
            assert_same_types(b, a)
            assert_same_types(b, w)
        assert_same_values(drawn.outputs, normal, drawn.givens())
        assert_same_values(drawn.outputs, normal, drawn.givens(), mode=PY)
        assert_same_values(drawn.outputs, low, drawn.givens())

    check()


def test_a_padding_that_also_transposes_is_split_the_transpose_stays():
    # PyMC's MvNormal logp solves with the Cholesky factor's transpose, padded in one DimShuffle
    lower, b = pt.matrix("L", shape=(3, 3)), pt.matrix("b", shape=(5, 3))
    g = pt.linalg.solve_triangular(lower.dimshuffle("x", 1, 0), b, lower=False, b_ndim=1)
    before = snapshot(g)
    (rhs,) = forward(blockwise_explicito, g, n=1)
    assert snapshot(g) == before
    node = rhs.owner
    assert isinstance(node.op, ExplicitBlockwise) and node.op.pattern[0] == "x"  # the pad is gone
    transposed = node.inputs[0].owner
    assert type(transposed.op) is DimShuffle and transposed.op.new_order == (1, 0)  # the transpose stays
    assert transposed.inputs[0] is lower and node.inputs[1] is b
    assert_same_types(g, rhs)
    assert holds(blockwise_explicito, g, rhs)
    assert not holds(blockwise_explicito, g, pt.linalg.solve_triangular(lower[None], b, lower=False, b_ndim=1))
    (back,) = backward(blockwise_explicito, rhs)  # the stock node over the padded transpose
    assert type(back.owner.op) is Blockwise and back.type == g.type
    rng = np.random.default_rng(0)
    values = {lower: np.triu(rng.normal(size=(3, 3))) + 3 * np.eye(3), b: rng.normal(size=(5, 3))}
    for out in (rhs, back, relations.normalize(g), relations.lower(rhs)):
        assert_same_types(g, out)
        assert_same_values(g, out, values)
