"""Seed 001 relations: forward, backward, check, and values."""

import pytensor.tensor as pt
import pytest
from kanren import run
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.math import Min
from unification import var

import relations
from graph_bridge import etuplize, reify
from helpers import check_rewrite, graph_ops, snapshot
from relations.dimshuffle import careduce_expand_fullo

x = pt.vector("x")
m = pt.matrix("m")
b = pt.vector("b", dtype="bool")

REDUCTIONS = {
    "sum": lambda v: pt.sum(v),
    "prod": lambda v: pt.prod(v),
    "max": lambda v: pt.max(v),
    "min": lambda v: Min(axis=None)(v),  # pt.min is neg(max(neg(v)))
    "all": lambda v: pt.all(v),
    "any": lambda v: pt.any(v),
    "sum_int_acc": lambda v: pt.sum(v, dtype="float32", acc_dtype="float64"),
}


class TestCAReduceExpandFull:
    @pytest.mark.parametrize("name", sorted(REDUCTIONS))
    @pytest.mark.parametrize("order", [("x", 0, 1), (0, "x", 1), (0, 1, "x"), ("x", 0, "x", 1)])
    def test_forward(self, name, order):
        red = REDUCTIONS[name]
        src = m if name not in ("all", "any") else pt.matrix("mb", dtype="bool")
        lhs = red(src.dimshuffle(*order))
        before = snapshot(lhs)
        q = var()
        (rhs_t,) = run(1, q, careduce_expand_fullo(etuplize(lhs), q))
        rhs = reify(rhs_t)
        assert rhs.owner.inputs[0] is src
        assert rhs.owner.op == lhs.owner.op  # dtype, acc_dtype and the rest kept
        assert snapshot(lhs) == before
        shapes = [(0, 3), (1, 1), (1, 4), (3, 4)]
        if name in ("max", "min"):  # both sides raise on empty inputs; checked too
            shapes = [(0, 3), (1, 1), (3, 4)]
        check_rewrite(lhs, rhs, {src: shapes})

    def test_backward_generates_expansions(self):
        q = var()
        forms = run(5, q, careduce_expand_fullo(q, etuplize(pt.sum(m))))
        graphs = [reify(f) for f in forms]
        orders = [g.owner.inputs[0].owner.op.new_order for g in graphs]
        assert orders == [("x", 0, 1), (0, "x", 1), (0, 1, "x")]  # bounded: one added dim
        for g in graphs:
            assert g.owner.inputs[0].owner.inputs[0] is m
            check_rewrite(pt.sum(m), g, {m: [(0, 2), (1, 1), (2, 3)]})

    def test_check_both_sides(self):
        lhs = etuplize(pt.max(x.dimshuffle("x", 0)))
        assert run(1, var(), careduce_expand_fullo(lhs, etuplize(pt.max(x)))) != ()
        # a different reduction on the right, or a partial one on the left: no
        assert run(1, var(), careduce_expand_fullo(lhs, etuplize(pt.min(x)))) == ()
        partial = etuplize(pt.sum(m.dimshuffle("x", 0, 1), axis=1))
        assert run(1, var(), careduce_expand_fullo(partial, etuplize(pt.sum(m, axis=0)))) == ()

    def test_not_an_expansion_is_left_alone(self):
        # transposes are not in this relation (they are in the full-reduction family later)
        lhs = etuplize(pt.sum(m.T))
        assert run(1, var(), careduce_expand_fullo(lhs, var())) == ()

    def test_normalize_removes_nested_expansions(self):
        y = pt.sum(pt.exp(x).dimshuffle("x", 0).dimshuffle(0, "x", 1))
        z = relations.normalize(y)
        assert not any(isinstance(op, DimShuffle) for op in graph_ops(z))
        check_rewrite(y, z, {x: [(0,), (1,), (6,)]})
