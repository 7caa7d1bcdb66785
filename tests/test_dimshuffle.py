"""DimShuffle removal relations (pytensor #2132 / PR #2130): each run forward, backward and as a check, with values."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from kanren import run
from pytensor.tensor.basic import Join
from pytensor.tensor.elemwise import CAReduce, DimShuffle
from pytensor.tensor.math import Min
from unification import var

import relations
from graph_bridge import etuplize
from helpers import backward, check_rewrite, forward, graph_ops, holds, snapshot
from relations.rules.dimshuffle import (
    careduce_added_dimso,
    careduce_dimshuffle_fullo,
    careduce_dimshuffle_partialo,
    dimshuffle_composeo,
    dimshuffle_identityo,
    dimshuffle_through_elemwiseo,
    expand_dims_through_elemwiseo,
)

x = pt.vector("x")
m = pt.matrix("m")
t3 = pt.tensor3("t3")
mb = pt.matrix("mb", dtype="bool")
mi = pt.matrix("mi", dtype="int64")

REDUCTIONS = {
    "sum": lambda v, **k: pt.sum(v, **k),
    "prod": lambda v, **k: pt.prod(v, **k),
    "max": lambda v, **k: pt.max(v, **k),
    "min": lambda v, **k: Min(**({"axis": None} | k))(v),  # pt.min is neg(max(neg(v)))
    "all": lambda v, **k: pt.all(v, **k),
    "any": lambda v, **k: pt.any(v, **k),
    "sum_f32_acc64": lambda v, **k: pt.sum(v, dtype="float32", acc_dtype="float64", **k),
    "sum_int": lambda v, **k: pt.sum(v, **k),
}
SOURCE = {"all": mb, "any": mb, "sum_int": mi}
SHAPES_2D = [(0, 3), (1, 1), (1, 4), (3, 4)]




def shapes_for(name, shapes):
    # Max/Min raise on empty inputs before and after: kept, both must raise
    return shapes


class TestFullReduction:
    @pytest.mark.parametrize("name", sorted(REDUCTIONS))
    @pytest.mark.parametrize(
        "order", [("x", 0, 1), (0, "x", 1), (0, 1, "x"), ("x", 0, "x", 1), (1, 0), ("x", 1, 0)]
    )
    def test_forward(self, name, order):
        src = SOURCE.get(name, m)
        lhs = REDUCTIONS[name](src.dimshuffle(*order))
        (rhs,) = forward(careduce_dimshuffle_fullo, lhs)[:1]
        assert rhs.owner.inputs[0] is src
        assert rhs.owner.op == lhs.owner.op  # dtype, acc_dtype and the rest kept
        check_rewrite(lhs, rhs, {src: SHAPES_2D})

    def test_forward_drops_broadcastable_dims(self):
        r = pt.matrix("r", shape=(1, None))
        lhs = pt.sum(r.dimshuffle(1))
        (rhs,) = forward(careduce_dimshuffle_fullo, lhs)
        assert rhs.owner.inputs[0] is r
        check_rewrite(lhs, rhs, {r: [(1, 0), (1, 1), (1, 5)]})

    def test_backward_generates_bounded_expansions(self):
        graphs = backward(careduce_dimshuffle_fullo, pt.sum(m))
        orders = [g.owner.inputs[0].owner.op.new_order for g in graphs]
        assert orders == [("x", 0, 1), (0, "x", 1), (0, 1, "x")]  # one added dim
        for g in graphs:
            assert g.owner.inputs[0].owner.inputs[0] is m
            check_rewrite(pt.sum(m), g, {m: SHAPES_2D})

    def test_check(self):
        assert holds(careduce_dimshuffle_fullo, pt.max(x.dimshuffle("x", 0)), pt.max(x))
        assert holds(careduce_dimshuffle_fullo, pt.sum(m.T), pt.sum(m))
        assert not holds(careduce_dimshuffle_fullo, pt.max(x.dimshuffle("x", 0)), pt.sum(x))
        assert not holds(careduce_dimshuffle_fullo, pt.sum(m.T, axis=0), pt.sum(m, axis=1))


class TestPartialReduction:
    CASES = [
        # (order, axes, expected rhs builder)
        (("x", 0, 1), (0, 2), lambda: pt.sum(m, axis=1)),
        (("x", 0, 1), (2,), lambda: pt.expand_dims(pt.sum(m, axis=1), 0)),
        ((1, 0), (0,), lambda: pt.sum(m, axis=1)),
        (("x", 1, 0), (1,), lambda: pt.sum(m, axis=1).dimshuffle("x", 0)),
        ((0, "x", 1), (1,), lambda: m),  # only the added dim is reduced: a no-op...
    ]

    @pytest.mark.parametrize("order,axes,expected", CASES[:4])
    def test_forward(self, order, axes, expected):
        lhs = pt.sum(m.dimshuffle(*order), axis=axes)
        (rhs,) = forward(careduce_dimshuffle_partialo, lhs)
        assert etuplize(rhs) == etuplize(expected())
        check_rewrite(lhs, rhs, {m: SHAPES_2D})

    def test_reducing_only_added_dims_keeps_a_reduction(self):
        # Sum{axis=1}(m[:, None, :]) reduces no input dim: the relation needs a
        # non-empty axis set, so it leaves this to casts and canonicalize
        lhs = pt.sum(m.dimshuffle(0, "x", 1), axis=1)
        assert forward(careduce_dimshuffle_partialo, lhs) == []

    @pytest.mark.parametrize("name", sorted(REDUCTIONS))
    def test_forward_every_reduction_on_3d(self, name):
        src = pt.tensor3("s3", dtype=SOURCE.get(name, m).dtype)
        lhs = REDUCTIONS[name](src.dimshuffle(2, "x", 0, 1), axis=(0, 3))
        (rhs,) = forward(careduce_dimshuffle_partialo, lhs)
        assert rhs.type.broadcastable == lhs.type.broadcastable
        check_rewrite(lhs, rhs, {src: [(0, 2, 3), (1, 1, 1), (2, 1, 3), (2, 3, 4)]})

    def test_backward(self):
        graphs = backward(careduce_dimshuffle_partialo, pt.sum(m, axis=1))
        assert len(graphs) >= 3
        for g in graphs:
            assert isinstance(g.owner.inputs[0].owner.op, DimShuffle)
            check_rewrite(pt.sum(m, axis=1), g, {m: SHAPES_2D})
        lifted = pt.expand_dims(pt.sum(m, axis=1), 0)
        (g,) = backward(careduce_dimshuffle_partialo, lifted)
        assert etuplize(g) == etuplize(pt.sum(m.dimshuffle("x", 0, 1), axis=2))

    def test_check(self):
        lhs = pt.sum(m.dimshuffle("x", 0, 1), axis=(0, 2))
        assert holds(careduce_dimshuffle_partialo, lhs, pt.sum(m, axis=1))
        assert not holds(careduce_dimshuffle_partialo, lhs, pt.sum(m, axis=0))


class TestComposition:
    def test_forward(self):
        lhs = x.dimshuffle("x", 0).dimshuffle(1, 0, "x")
        (rhs,) = forward(dimshuffle_composeo, lhs)
        assert rhs.owner.op.new_order == (0, "x", "x") and rhs.owner.inputs[0] is x
        check_rewrite(lhs, rhs, {x: [(0,), (1,), (5,)]})

    def test_forward_with_drops(self):
        r = pt.matrix("r", shape=(None, 1))
        lhs = r.dimshuffle(1, "x", 0).dimshuffle(2, 1)  # drops r's length-1 dim, then the added one
        (rhs,) = forward(dimshuffle_composeo, lhs)
        check_rewrite(lhs, rhs, {r: [(0, 1), (1, 1), (4, 1)]})

    def test_backward_and_check(self):
        rhs = x.dimshuffle(0, "x")
        graphs = backward(dimshuffle_composeo, rhs)
        assert len(graphs) == 2
        for g in graphs:
            assert isinstance(g.owner.inputs[0].owner.op, DimShuffle)
            check_rewrite(rhs, g, {x: [(0,), (1,), (3,)]})
            assert holds(dimshuffle_composeo, g, rhs)
        assert not holds(dimshuffle_composeo, x.dimshuffle("x", 0).dimshuffle(1, 0), x.dimshuffle("x", 0))


class TestIdentity:
    def test_three_modes(self):
        ident = DimShuffle(input_ndim=2, new_order=(0, 1))(m)  # m.dimshuffle(0, 1) is m
        (rhs,) = forward(dimshuffle_identityo, ident)
        assert rhs is m
        (lhs,) = backward(dimshuffle_identityo, m)
        assert lhs.owner.op.new_order == (0, 1)
        check_rewrite(m, lhs, {m: SHAPES_2D})
        assert holds(dimshuffle_identityo, ident, m)
        assert not holds(dimshuffle_identityo, m.T, m)


a, b, c = pt.vector("a"), pt.vector("b"), pt.vector("c")
VEC_SHAPES = {a: [(0,), (1,), (4,)], b: [(2,), (1,), (0,)], c: [(3,), (0,), (1,)]}


class TestThroughElemwise:
    """A DimShuffle all inputs of an Elemwise share moves above it (PyTensor lifts it the other way)."""

    def test_forward_unary_expand(self):
        lhs = pt.exp(pt.expand_dims(x, 0))
        (rhs,) = forward(dimshuffle_through_elemwiseo, lhs)
        assert isinstance(rhs.owner.op, DimShuffle) and rhs.owner.inputs[0].owner.inputs[0] is x
        check_rewrite(lhs, rhs, {x: [(0,), (1,), (4,)]})

    def test_forward_binary_with_an_expanded_scalar(self):
        lhs = pt.expand_dims(x, 0) * 2.0
        (rhs,) = forward(dimshuffle_through_elemwiseo, lhs)
        assert rhs.owner.op.new_order == ("x", 0)
        inner = rhs.owner.inputs[0].owner
        assert inner.inputs[0] is x and inner.inputs[1].type.ndim == 1  # 2.0 expanded to x's rank
        check_rewrite(lhs, rhs, {x: [(0,), (1,), (4,)]})

    def test_forward_transpose_and_all_scalars(self):
        lhs = pt.exp(m.T) + pt.log(m.T)
        assert forward(dimshuffle_through_elemwiseo, lhs) == []  # inputs are Elemwise, not DimShuffles
        inner = pt.exp(m.T)
        (rhs,) = forward(dimshuffle_through_elemwiseo, inner)
        assert rhs.owner.op.new_order == (1, 0)
        check_rewrite(inner, rhs, {m: SHAPES_2D})
        s = pt.scalar("s")
        gt = pt.gt(s[None], 0)
        (rhs,) = forward(dimshuffle_through_elemwiseo, gt)
        assert rhs.owner.inputs[0].type.ndim == 0
        check_rewrite(gt, rhs, {s: [()]})

    def test_different_orders_are_left_to_the_explicit_form(self):
        outer = pt.expand_dims(x, 0) * pt.expand_dims(x, 1)
        assert forward(dimshuffle_through_elemwiseo, outer) == []
        assert forward(dimshuffle_through_elemwiseo, pt.expand_dims(x, 0) + m) == []

    def test_backward_is_pytensors_lift(self):
        rhs = pt.expand_dims(pt.exp(x) * x, 0)
        (lhs,) = backward(dimshuffle_through_elemwiseo, rhs)
        assert all(isinstance(i.owner.op, DimShuffle) for i in lhs.owner.inputs)
        check_rewrite(rhs, lhs, {x: [(0,), (1,), (3,)]})
        s = pt.scalar("s")
        rhs2 = pt.expand_dims(pt.exp(x) * 2.0, 0)
        (lhs2,) = backward(dimshuffle_through_elemwiseo, rhs2)
        assert [i.owner.op.new_order for i in lhs2.owner.inputs] == [("x", 0), ("x", "x")]
        check_rewrite(rhs2, lhs2, {x: [(0,), (1,), (3,)]})
        assert backward(dimshuffle_through_elemwiseo, pt.expand_dims(s, 0)) == []

    def test_check(self):
        lhs = pt.exp(pt.expand_dims(x, 0))
        assert holds(dimshuffle_through_elemwiseo, lhs, pt.expand_dims(pt.exp(x), 0))
        assert not holds(dimshuffle_through_elemwiseo, lhs, pt.expand_dims(pt.exp(x), 1))
        assert not holds(dimshuffle_through_elemwiseo, lhs, pt.expand_dims(pt.log(x), 0))

    def test_a_dimshuffle_a_graph_output_also_uses_stays(self):
        e = pt.expand_dims(x, 0)
        lhs = pt.exp(e)
        from graph_bridge import graph_context

        with graph_context([lhs, e]):
            assert run(1, var(), dimshuffle_through_elemwiseo(etuplize(lhs), var())) == ()
        with graph_context([lhs, pt.log(e)]):  # every use elementwise: it moves
            assert run(1, var(), dimshuffle_through_elemwiseo(etuplize(lhs), var())) != ()


class TestAddedAxesThroughElemwise:
    """Axes every input of an Elemwise adds move above it: the softmax with a broadcast between its ``exp`` and
    its sum (``exp(x[None]) / sum(exp(x), 1, keepdims=True)[None]``), which PyTensor's softmax rewrite misses."""

    e = pt.exp(m)
    k = pt.sum(e, axis=1, keepdims=True)

    def softmax_lhs(self):
        return pt.expand_dims(self.e, 0) / self.k[None]

    def test_forward_orders_that_differ_share_an_axis(self):
        lhs = self.softmax_lhs()
        before = snapshot(lhs)
        (rhs,) = forward(expand_dims_through_elemwiseo, lhs)
        assert snapshot(lhs) == before
        assert rhs.owner.op.new_order == ("x", 0, 1)
        num, den = rhs.owner.inputs[0].owner.inputs
        assert num.owner.op.scalar_op == pt.exp(m).owner.op.scalar_op and num.owner.inputs[0] is m
        assert den.owner.op.new_order == (0, "x")  # the sum's own keepdims axis stays below
        check_rewrite(lhs, rhs, {m: SHAPES_2D})

    def test_forward_a_trailing_axis_and_a_scalar(self):
        lhs = pt.expand_dims(x, 1) * 2.0 + m[:, :1]  # m[:, :1] is no DimShuffle: nothing shared
        assert forward(expand_dims_through_elemwiseo, lhs) == []
        lhs = pt.expand_dims(x, 1) * 2.0
        (rhs,) = forward(expand_dims_through_elemwiseo, lhs)
        assert rhs.owner.op.new_order == (0, "x") and rhs.owner.inputs[0].owner.inputs[0] is x
        check_rewrite(lhs, rhs, {x: [(0,), (1,), (4,)]})
        t = pt.exp(t3)[None] - pt.expand_dims(t3.sum(axis=2), (0, 3))
        (rhs,) = forward(expand_dims_through_elemwiseo, t)
        assert rhs.owner.op.new_order == ("x", 0, 1, 2)
        check_rewrite(t, rhs, {t3: [(0, 2, 3), (1, 1, 1), (2, 3, 4)]})

    def test_left_alone_where_no_input_is_left_bare(self):
        # both inputs keep a DimShuffle below: moving the Elemwise would add one
        lhs = pt.expand_dims(x, (0, 2)) * pt.expand_dims(x, (0, 1))
        assert forward(expand_dims_through_elemwiseo, lhs) == []
        assert forward(expand_dims_through_elemwiseo, pt.expand_dims(x, 0) + m) == []

    def test_backward_composes_the_axes_into_each_input(self):
        e = pt.exp(m)
        rhs = pt.expand_dims(e / pt.sum(e, axis=1, keepdims=True), 0)
        (lhs,) = backward(expand_dims_through_elemwiseo, rhs)
        assert [i.owner.op.new_order for i in lhs.owner.inputs] == [("x", 0, 1), ("x", 0, "x")]
        check_rewrite(rhs, lhs, {m: SHAPES_2D})
        assert backward(expand_dims_through_elemwiseo, pt.exp(m).T) == []  # a transpose adds no axis

    def test_check(self):
        lhs, e, k = self.softmax_lhs(), self.e, self.k
        assert holds(expand_dims_through_elemwiseo, lhs, pt.expand_dims(e / k, 0))
        assert not holds(expand_dims_through_elemwiseo, lhs, pt.expand_dims(e / pt.sum(e, axis=0, keepdims=True), 0))
        assert not holds(expand_dims_through_elemwiseo, lhs, pt.expand_dims(e * k, 0))
        assert not holds(expand_dims_through_elemwiseo, lhs, pt.expand_dims(e / k, 2))

    def test_the_stabilizing_pass_finds_the_softmax(self):
        lhs = self.softmax_lhs()
        before = snapshot(lhs)
        f = pytensor.function([m], lhs, mode=relations.mode().excluding("fusion"))  # the fast pass alone
        assert snapshot(lhs) == before
        assert any(type(n.op).__name__ == "Softmax" for n in f.maker.fgraph.apply_nodes)
        big = np.array([[1000.0, 999.0, 0.0], [-1000.0, -1001.0, -1002.0]])
        got = f(big)
        z = big - big.max(axis=1, keepdims=True)
        np.testing.assert_allclose(got, (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True))[None], rtol=1e-15)
        assert got.dtype == lhs.dtype and f(np.zeros((0, 3))).shape == (1, 0, 3)
        assert f(np.zeros((2, 1))).shape == (1, 2, 1)


class TestAddedDims:
    def test_forward(self):
        s = pt.scalar("s")
        lhs = pt.sum(pt.expand_dims(s, 0), axis=0)
        (rhs,) = forward(careduce_added_dimso, lhs)
        assert rhs is s
        lhs2 = pt.max(m.dimshuffle(0, "x", 1), axis=1)
        (rhs2,) = forward(careduce_added_dimso, lhs2)
        assert rhs2 is m
        lhs3 = pt.sum(x.dimshuffle("x", 0, "x"), axis=2)
        (rhs3,) = forward(careduce_added_dimso, lhs3)
        assert rhs3.owner.op.new_order == ("x", 0)
        check_rewrite(lhs3, rhs3, {x: [(0,), (1,), (3,)]})
        check_rewrite(lhs2, rhs2, {m: SHAPES_2D})

    def test_a_real_reduced_dim_is_not_this_rule(self):
        assert forward(careduce_added_dimso, pt.sum(m.dimshuffle(0, "x", 1), axis=(1, 2))) == []
        assert forward(careduce_added_dimso, pt.sum(m.dimshuffle(0, "x", 1))) == []

    def test_backward_and_check(self):
        rhs = x.dimshuffle("x", 0)
        graphs = backward(careduce_added_dimso, rhs)
        # one added dim at each of three places, over x or over rhs itself (identity)
        assert len(graphs) == 6
        assert sum(g.owner.inputs[0].owner.inputs[0] is x for g in graphs) == 3
        for g in graphs:
            assert isinstance(g.owner.op, CAReduce)
            check_rewrite(rhs, g, {x: [(0,), (1,), (3,)]})
            assert holds(careduce_added_dimso, g, rhs)
        assert not holds(careduce_added_dimso, pt.sum(x.dimshuffle("x", 0, "x"), axis=2), x.dimshuffle(0, "x"))


class TestElemwiseChains:
    """The forms users write (the DimShuffle seen only by an Elemwise chain and a reduction)."""

    s = pt.scalar("s")
    CASES = {
        "sum(exp(expand_dims(x)))": lambda: pt.sum(pt.exp(pt.expand_dims(x, 0))),
        "min(expand_dims(x))": lambda: pt.min(pt.expand_dims(x, 0)),
        "sum(expand_dims(x) * 2)": lambda: pt.sum(pt.expand_dims(x, 0) * 2.0),
        "sum(exp(m.T), axis=0)": lambda: pt.sum(pt.exp(m.T), axis=0),
        "sum(log(s[None]) * x)": lambda: pt.sum(pt.log(TestElemwiseChains.s[None]) * x),
        "sum(exp(log(m.T) + 1))": lambda: pt.sum(pt.exp(pt.log(m.T) + 1.0)),
        "prod(exp(expand_dims(m)), axis=(0, 2))": lambda: pt.prod(pt.exp(pt.expand_dims(m, 0)), axis=(0, 2)),
    }

    @pytest.mark.parametrize("name", sorted(CASES))
    def test_no_dimshuffle_is_left(self, name):
        y = self.CASES[name]()
        before = snapshot(y)
        z = relations.normalize(y)
        assert snapshot(y) == before
        assert not any(isinstance(op, DimShuffle) for op in graph_ops(z)), name
        shapes = {x: [(0,), (1,), (4,), (4,)], m: [(0, 3), (1, 1), (1, 4), (3, 4)], self.s: [(), (), (), ()]}
        used = set(pytensor.graph.traversal.explicit_graph_inputs([y]))
        check_rewrite(y, z, {k: v for k, v in shapes.items() if k in used})
        assert relations.normalize(z) is z


def sum_of_join_chain():
    return pt.sum(pt.join(0, pt.expand_dims(a, 0), pt.expand_dims(b, 0), pt.expand_dims(c, 0)))


class TestNormalize:
    def test_sum_of_join_chain(self):
        y = sum_of_join_chain()
        before = snapshot(y)
        z = relations.normalize(y)
        assert snapshot(y) == before
        ops = graph_ops(z)
        assert not any(isinstance(op, (DimShuffle, Join)) for op in ops)
        assert [i.owner.inputs[0] for i in z.owner.inputs] == [a, b, c]
        same = {a: [(0,), (1,), (5,)], b: [(0,), (1,), (5,)], c: [(0,), (1,), (5,)]}
        check_rewrite(y, z, same)

    @pytest.mark.default_mode
    def test_sum_of_join_chain_default_mode(self):
        y = sum_of_join_chain()
        z = relations.normalize(y)
        f = pytensor.function([a, b, c], [y, z])
        vals = [np.arange(4.0), np.ones(4), np.linspace(0, 1, 4)]
        r = f(*vals)
        np.testing.assert_allclose(r[0], r[1])

    def test_nested_expansions_and_partial_reductions(self):
        y = pt.sum(pt.exp(x).dimshuffle("x", 0).dimshuffle(0, "x", 1))
        z = relations.normalize(y)
        assert not any(isinstance(op, DimShuffle) for op in graph_ops(z))
        check_rewrite(y, z, {x: [(0,), (1,), (6,)]})
        w = pt.sum(pt.sum(t3.dimshuffle(2, "x", 0, 1), axis=3), axis=0)
        zw = relations.normalize(w)
        # Sum{0}(DimShuffle{2,x,0}(Sum{2}(t3))) -> DimShuffle{x,0}(Sum{(1, 2)}(t3)) -> ...
        assert sum(isinstance(op, DimShuffle) for op in graph_ops(zw)) == 1
        assert isinstance(zw.owner.op, DimShuffle) and isinstance(zw.owner.inputs[0].owner.op, CAReduce)
        check_rewrite(w, zw, {t3: [(0, 2, 3), (1, 1, 1), (2, 3, 4)]})

    def test_reduction_over_added_dims_only_is_no_reduction(self):
        # the reduced dim is the added one: careduce_added_dimso leaves the transpose
        w = pt.sum(m.dimshuffle(1, "x", 0), axis=1)
        z = relations.normalize(w)
        assert not any(isinstance(op, CAReduce) for op in graph_ops(z))
        check_rewrite(w, z, {m: SHAPES_2D})

    def test_reduction_over_added_dims_that_casts_is_left_alone(self):
        # Sum of int32 is int64: no same-type right side without a cast
        i32 = pt.vector("i32", dtype="int32")
        w = pt.sum(i32[None, :], axis=0)
        assert relations.normalize(w) is w

    def test_idempotent(self):
        y = sum_of_join_chain() + pt.sum(m.T, axis=0).sum()
        z = relations.normalize(y)
        assert relations.normalize(z) is z
