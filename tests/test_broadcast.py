"""Explicit broadcast patterns (aesara #933, pytensor #408, JuliaLang #26212): the Ops, the relations, lowering."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from etuples import etuple
from kanren import run
from pytensor.graph.replace import clone_replace
from pytensor.scalar import add as scalar_add
from pytensor.scalar import mul as scalar_mul
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from unification import unify, var

import relations
from graph_bridge import (
    ExplicitAlloc,
    ExplicitElemwise,
    etuplize,
    explicit_alloc,
    explicit_elemwise,
)
from helpers import MODE, backward, check_rewrite, forward, graph_ops, holds, snapshot
from relations.rules.broadcast import alloc_explicito, alloc_identityo, broadcast_shapeo, elemwise_explicito

x = pt.scalar("x")
y = pt.vector("y")
s = pt.matrix("s")
PY = pytensor.compile.mode.Mode(linker="py", optimizer=None)  # runs ``perform`` as it is


def stock_only(*outs) -> bool:
    return not any(isinstance(op, (ExplicitElemwise, ExplicitAlloc)) for op in graph_ops(*outs))


# -- the Op -----------------------------------------------------------------


def test_explicit_elemwise_reads_the_numpy_rule_from_types():
    z = explicit_elemwise(scalar_add, x, y)
    assert z.owner.op.pattern == ("x", "*")
    assert z.owner.inputs == [x, y]
    b = pt.tensor("b", shape=(None, 1))
    assert explicit_elemwise(scalar_mul, b, y).owner.op.pattern == ("*1", "x*")
    assert str(z.owner.op) == "add{x,*}"


def test_bad_patterns_are_named():
    with pytest.raises(TypeError, match="pattern must be"):
        ExplicitElemwise(scalar_add, "x*")
    with pytest.raises(ValueError, match="characters"):
        ExplicitElemwise(scalar_add, ("xq", "**"))
    with pytest.raises(ValueError, match="output's ndim"):
        ExplicitElemwise(scalar_add, ("x", "**"))
    with pytest.raises(TypeError, match="scalar_op"):
        ExplicitElemwise(pt.add, ("*", "*"))
    with pytest.raises(TypeError, match="takes 2 inputs"):
        ExplicitElemwise(scalar_add, ("*", "*"))(y, y, y)


@pytest.mark.parametrize(
    "ys",
    [(0,), (1,), (4,)],
)
def test_perform_matches_the_stock_graph(ys):
    z = explicit_elemwise(scalar_add, x, y)
    f = pytensor.function([x, y], z, mode=PY)
    v = np.arange(ys[0], dtype="float64")
    np.testing.assert_allclose(f(2.0, v), 2.0 + v)


def test_perform_checks_non_broadcasting_dims_like_stock():
    a, b = pt.vector("a"), pt.vector("b")
    z = explicit_elemwise(scalar_add, a, b)
    f = pytensor.function([a, b], z, mode=PY)
    with pytest.raises(ValueError, match="[Rr]untime broadcasting"):
        f(np.ones(1), np.ones(3))
    g = pytensor.function([a, b], a + b, mode=MODE)
    with pytest.raises(ValueError):  # stock PyTensor raises too
        g(np.ones(1), np.ones(3))


def test_infer_shape_and_gradient_agree_with_stock():
    z = explicit_elemwise(scalar_mul, x, s)
    stock = x * s
    vals = {x: np.float64(1.5), s: np.arange(6.0).reshape(2, 3)}
    from pytensor.graph.fg import FunctionGraph
    from pytensor.tensor.rewriting.shape import ShapeFeature

    fg = FunctionGraph([x, s], [z], features=[ShapeFeature()], clone=False)
    feature = fg.shape_feature
    shape = feature.shape_tuple(z) if hasattr(feature, "shape_tuple") else feature.shape_of[z]
    assert tuple(int(d.eval(vals, on_unused_input="ignore")) for d in shape) == (2, 3)
    for wrt in (x, s):
        g_new = pytensor.grad(pt.sum(z**2), wrt)
        g_old = pytensor.grad(pt.sum(stock**2), wrt)
        assert g_new.type == g_old.type
        np.testing.assert_allclose(
            g_new.eval(vals, mode=MODE, on_unused_input="ignore"),
            g_old.eval(vals, mode=MODE, on_unused_input="ignore"),
        )


# -- the relation, three ways -----------------------------------------------


def test_forward_absorbs_every_expanding_dimshuffle():
    v = pt.vector("v")
    lhs = pt.exp(s) * v[:, None] + x  # mul(s, ExpandDims{1}(v)), add(.., ExpandDims{0,1}(x))
    (out,) = forward(elemwise_explicito, lhs)
    assert isinstance(out.owner.op, ExplicitElemwise)
    assert out.owner.op.pattern == ("**", "xx")
    assert out.owner.inputs[1] is x
    z = relations.normalize(lhs)
    assert not any(isinstance(op, DimShuffle) for op in graph_ops(z))
    inner = z.owner.inputs[0].owner
    assert inner.op.pattern == ("**", "*x") and inner.inputs[1] is v
    check_rewrite(lhs, z, {s: [(2, 3), (0, 3), (1, 1), (2, 0)], v: [(2,), (0,), (1,), (2,)], x: [()] * 4})


def test_backward_gives_the_stock_form():
    rhs = relations.normalize(x + y)
    (lhs,) = backward(elemwise_explicito, rhs)
    assert type(lhs.owner.op) is Elemwise
    assert isinstance(lhs.owner.inputs[0].owner.op, DimShuffle)
    assert lhs.owner.inputs[0].owner.inputs[0] is x
    check_rewrite(rhs, lhs, {x: [(), (), ()], y: [(0,), (1,), (3,)]})


def test_check_with_both_sides():
    assert holds(elemwise_explicito, x + y, explicit_elemwise(scalar_add, x, y))
    assert not holds(elemwise_explicito, x + y, explicit_elemwise(scalar_mul, x, y))
    wrong = ExplicitElemwise(scalar_add, ("1", "*"))(pt.vector("w", shape=(1,)), y)
    assert not holds(elemwise_explicito, x + y, wrong)


def test_unary_and_scalar_elemwise_stay_stock():
    assert forward(elemwise_explicito, pt.exp(y)) == []
    assert forward(elemwise_explicito, x + x) == []


def test_lower_normalize_has_only_stock_ops_and_compiles_in_default_mode():
    v = pt.vector("v")
    g = pt.sum(pt.exp(s) * v + x, axis=0)
    n = relations.normalize(g)
    assert not stock_only(n)
    low = relations.lower(n)
    assert stock_only(low)
    check_rewrite(g, low, {s: [(2, 3), (0, 3)], v: [(3,), (3,)], x: [(), ()]})


@pytest.mark.default_mode
def test_explicit_graph_compiles_in_the_default_mode_with_stock_values_and_gradients():
    v = pt.vector("v")
    g = pt.exp(s) * v + x
    n = relations.normalize(g)
    vals = [np.arange(6.0).reshape(2, 3) / 6, np.array([1.0, -1.0, 0.5]), np.float64(0.25)]
    f = pytensor.function([s, v, x], [n, pytensor.grad(pt.sum(n), v)])
    assert stock_only(*f.maker.fgraph.outputs)
    f_ref = pytensor.function([s, v, x], [g, pytensor.grad(pt.sum(g), v)])
    for a, b in zip(f(*vals), f_ref(*vals)):
        np.testing.assert_allclose(a, b)


# -- aesara #933: replacements with another ndim ------------------------------


def test_another_rank_scalar_replaced_by_a_vector():
    z = relations.normalize(x + y)
    w = pt.vector("w")
    with pytest.raises(TypeError):  # stock: the DimShuffle expects a 0-d input
        clone_replace(x + y, {x: w}, rebuild_strict=False)
    z_new = clone_replace(z, {x: w}, rebuild_strict=False)
    assert z_new.owner.inputs == [w, y] and z_new.owner.op.pattern == ("*", "*")
    f = pytensor.function([w, y], z_new, mode=MODE)
    np.testing.assert_allclose(f(np.arange(3.0), np.ones(3)), np.arange(3.0) + 1)


def test_another_rank_vector_replaced_by_a_matrix_has_no_nested_dimshuffles():
    z = relations.normalize(x + y)
    z_new = clone_replace(z, {y: s}, rebuild_strict=False)
    assert z_new.owner.op.pattern == ("xx", "**")
    assert not any(isinstance(op, DimShuffle) for op in graph_ops(z_new))
    stock = clone_replace(x + y, {y: s}, rebuild_strict=False)
    assert sum(isinstance(op, DimShuffle) for op in graph_ops(stock)) == 2
    check_rewrite(stock, z_new, {x: [(), (), ()], s: [(2, 3), (0, 2), (1, 1)]})


# -- pytensor #408: refining a static shape keeps behaviour ---------------------


def test_static_shape_refining_none_to_one_keeps_type_and_the_run_time_check():
    a, b = pt.vector("a"), pt.vector("b")
    z = relations.normalize(a + b)
    a1 = pt.vector("a1", shape=(1,))
    stock = clone_replace(a + b, {a: a1}, rebuild_strict=False)
    z_new = clone_replace(z, {a: a1}, rebuild_strict=False)
    assert z_new.type == z.type  # (None,), as before
    ones, three = np.ones(1), np.arange(3.0)
    np.testing.assert_allclose(pytensor.function([a1, b], stock, mode=MODE)(ones, three), three + 1)
    for out in (z_new, relations.lower(z_new)):  # explicit, and lowered for the backends
        with pytest.raises((ValueError, AssertionError)):
            pytensor.function([a1, b], out, mode=MODE)(ones, three)
        np.testing.assert_allclose(pytensor.function([a1, b], out, mode=MODE)(ones, ones), [2.0])


def test_static_shape_widening_one_to_none_still_broadcasts():
    a1, b = pt.vector("a1", shape=(1,)), pt.vector("b")
    z = relations.normalize(a1 + b)
    assert z.owner.op.pattern == ("1", "*")
    a = pt.vector("a")
    z_new = clone_replace(z, {a1: a}, rebuild_strict=False)
    assert z_new.type == z.type
    for out in (z_new, relations.lower(z_new)):
        f = pytensor.function([a, b], out, mode=MODE)
        np.testing.assert_allclose(f(np.ones(1), np.arange(3.0)), np.arange(3.0) + 1)
        with pytest.raises((ValueError, AssertionError)):
            f(np.ones(3), np.arange(3.0))  # declared broadcasting: its length must be 1


# -- Alloc ------------------------------------------------------------------


def test_alloc_relation_three_ways():
    v, n = pt.vector("v"), pt.iscalar("n")
    lhs = pt.alloc(v[:, None], n, 3, 2)  # Alloc(ExpandDims{1}(v), n, 3, 2)
    (rhs,) = forward(alloc_explicito, lhs)
    assert rhs.owner.op.entry == "x*x" and rhs.owner.inputs[0] is v
    check_rewrite(lhs, rhs, {v: [(3,), (3,)], n: [(), ()]})
    (back,) = backward(alloc_explicito, rhs)
    assert type(back.owner.op) is Alloc
    check_rewrite(rhs, back, {v: [(3,)], n: [()]})
    assert holds(alloc_explicito, lhs, rhs)
    assert not holds(alloc_explicito, lhs, explicit_alloc(v, n, 3, 2))


def test_alloc_identity_three_ways():
    """An Alloc to no lengths is its value (PyTensor's local_useless_alloc), forward, backward and as a
    check; one that broadcasts into a length, into the same shape, is left alone."""
    v = pt.exp(x)
    lhs = pt.alloc(v)
    before = snapshot(lhs)
    (rhs,) = forward(alloc_identityo, lhs)
    assert rhs is v
    check_rewrite(lhs, rhs, {x: [(), (), ()]})
    (back,) = backward(alloc_identityo, v)
    assert type(back.owner.op) is Alloc and back.owner.inputs == [v]
    check_rewrite(back, v, {x: [(), ()]})
    assert holds(alloc_identityo, lhs, v)
    assert not holds(alloc_identityo, lhs, pt.exp(v))
    assert snapshot(lhs) == before
    for kept in (pt.alloc(v, 1), pt.alloc(y, 3), pt.alloc(y, 0)):  # lengths given: no identity
        assert forward(alloc_identityo, kept) == []
        assert relations.normalize(kept, rules=(alloc_identityo,)) is kept


def test_alloc_refinement_keeps_the_length_check():
    v, n = pt.vector("v"), pt.iscalar("n")
    z = relations.normalize(pt.alloc(v, n, 3))
    assert isinstance(z.owner.op, ExplicitAlloc)
    v1 = pt.vector("v1", shape=(1,))
    z_new = clone_replace(z, {v: v1}, rebuild_strict=False)
    assert z_new.type == z.type
    for out in (z_new, relations.lower(z_new)):
        with pytest.raises((ValueError, AssertionError)):
            pytensor.function([v1, n], out, mode=MODE)(np.ones(1), 2)
    m = pt.matrix("m")
    z_m = clone_replace(z, {v: m}, rebuild_strict=False)  # another ndim: re-derived
    assert z_m.owner.op.entry == "**"
    np.testing.assert_allclose(
        pytensor.function([m, n], z_m, mode=MODE)(np.ones((2, 3)), 2), np.ones((2, 3))
    )


def test_alloc_gradient_agrees_with_stock():
    v, n = pt.vector("v", shape=(1,)), pt.iscalar("n")
    stock = pt.alloc(v, n, 3)
    z = relations.normalize(stock)
    vals = {v: np.array([2.0]), n: np.int32(2)}
    np.testing.assert_allclose(
        pytensor.grad(pt.sum(z**2), v).eval(vals, mode=MODE),
        pytensor.grad(pt.sum(stock**2), v).eval(vals, mode=MODE),
    )


# -- the broadcast-shape relation ------------------------------------------


def test_broadcast_shape_forward():
    q = var()
    assert run(0, q, broadcast_shapeo(((True,), (False, True)), q)) == ((False, True),)
    assert run(0, q, broadcast_shapeo(((), (True, True)), q)) == ((True, True),)


def test_broadcast_shape_backward_is_bounded_and_sound():
    a, b = var(), var()
    found = run(0, (a, b), broadcast_shapeo((a, b), (False, True)))
    assert ((False, True), (True,)) in found and ((), (False, True)) in found
    assert len(found) == len(set(found))
    for pa, pb in found:
        assert run(0, var(), broadcast_shapeo((pa, pb), (False, True))) != ()
        q = var()
        assert run(0, q, broadcast_shapeo((pa, pb), q)) == ((False, True),)


def test_broadcast_shape_check():
    assert run(1, var(), broadcast_shapeo(((True,), (False,)), (False,))) != ()
    assert run(1, var(), broadcast_shapeo(((True,), (True,)), (False,))) == ()


def test_broadcast_shape_agrees_with_the_op():
    v, b = pt.vector("v"), pt.tensor("b", shape=(1, None))
    q = var()
    (pattern,) = run(1, q, broadcast_shapeo((v.type.broadcastable, b.type.broadcastable), q))
    assert pattern == explicit_elemwise(scalar_add, v, b).type.broadcastable


# -- matching sees through ---------------------------------------------------


def test_stock_pattern_matches_the_explicit_form_binding_the_input_itself():
    a, b = var("a"), var("b")
    pattern = etuple(etuplize(pt.add), a, b)
    z = relations.normalize(x + y)
    assert unify(pattern, etuplize(z), {}) == {a: x, b: y}
    assert unify(etuple(etuplize(pt.mul), a, b), etuplize(z), {}) is False


def test_normalize_does_not_mutate_and_keeps_types_with_empty_and_unit_dims():
    t3 = pt.tensor3("t3")
    g = [t3 * s, s + y[None, :], pt.alloc(y, 2, y.shape[0]) * x]
    before = snapshot(*g)
    z = relations.normalize(g)
    assert snapshot(*g) == before
    check_rewrite(
        g,
        z,
        {
            t3: [(2, 3, 4), (0, 3, 4), (1, 1, 1), (2, 0, 4)],
            s: [(3, 4), (3, 4), (1, 1), (0, 4)],
            y: [(4,), (4,), (1,), (4,)],
            x: [(), (), (), ()],
        },
    )
