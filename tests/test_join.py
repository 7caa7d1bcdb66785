"""Reductions of a Join (pytensor #2132 / PR #2130): careduce_joino forward, backward and as a check, with values."""

import pytensor.tensor as pt
import pytest
from pytensor.graph.traversal import ancestors
from pytensor.tensor.basic import Join
from pytensor.tensor.elemwise import CAReduce

import relations
from helpers import backward, check_rewrite, forward, holds
from relations.rules.join import careduce_joino
from test_dimshuffle import REDUCTIONS, VEC_SHAPES, a, b, c


class TestJoin:
    def test_forward_sum_of_join(self):
        lhs = pt.sum(pt.join(0, a, b, c))
        (rhs,) = forward(careduce_joino, lhs)
        assert [i.owner.inputs[0] for i in rhs.owner.inputs] == [a, b, c]
        check_rewrite(lhs, rhs, VEC_SHAPES)

    def test_a_piece_joined_twice_is_reduced_once(self):
        # Sum(Join(J, J)) with J itself a Join: one Sum(J), used twice, not two copies
        # that each split again (found by the no-duplicate property)
        inner = pt.join(0, a, b)
        lhs = pt.sum(pt.join(0, inner, inner))
        (rhs,) = forward(careduce_joino, lhs)
        left, right = rhs.owner.inputs
        assert left is right and left.owner.inputs[0] is inner
        check_rewrite(lhs, rhs, {a: [(0,), (2,), (1,)], b: [(3,), (0,), (1,)]})
        normal = relations.normalize(lhs)
        sums = [v for v in ancestors([normal]) if v.owner is not None and isinstance(v.owner.op, CAReduce)]
        assert len({id(v.owner) for v in sums}) == 2  # Sum(a) and Sum(b), each once
        check_rewrite(lhs, normal, {a: [(0,), (2,), (1,)], b: [(3,), (0,), (1,)]})

    def test_reduction_accumulating_wider_than_its_output_is_left_alone(self):
        # Sum{dtype=float32, acc=float64} rounds once; its pieces would round each
        u, w = pt.matrix("u"), pt.matrix("w")
        assert forward(careduce_joino, REDUCTIONS["sum_f32_acc64"](pt.join(0, u, w))) == []

    @pytest.mark.parametrize("name", ["prod", "all", "any", "sum_int"])
    def test_forward_other_reductions_with_identity(self, name):
        dt = {"all": "bool", "any": "bool", "sum_int": "int64"}.get(name, "float64")
        u, w = pt.matrix("u", dtype=dt), pt.matrix("w", dtype=dt)
        for axis, k in [(None, 0), ((1,), 1)]:
            lhs = REDUCTIONS[name](pt.join(k, u, w), **({} if axis is None else {"axis": axis}))
            (rhs,) = forward(careduce_joino, lhs)
            shapes = {u: [(0, 2), (1, 1), (3, 2)], w: [(2, 2), (1, 1), (0, 2)]} if k == 0 else \
                     {u: [(2, 0), (1, 1), (2, 3)], w: [(2, 2), (1, 0), (2, 1)]}
            check_rewrite(lhs, rhs, shapes)

    def test_max_needs_statically_non_empty_pieces(self):
        # Max(Join(a, b)) works when a is empty but b is not; max(Max(a), Max(b)) would fail
        assert forward(careduce_joino, pt.max(pt.join(0, a, b))) == []
        s1, s2 = pt.vector("s1", shape=(2,)), pt.vector("s2", shape=(3,))
        lhs = pt.max(pt.join(0, s1, s2))
        (rhs,) = forward(careduce_joino, lhs)
        check_rewrite(lhs, rhs, {s1: [(2,)], s2: [(3,)]})

    def test_backward_builds_only_valid_joins(self):
        (g,) = backward(careduce_joino, pt.sum(a) + pt.sum(b))
        assert isinstance(g.owner.inputs[0].owner.op, Join)
        check_rewrite(pt.sum(a) + pt.sum(b), g, {a: [(0,), (2,)], b: [(3,), (1,)]})
        # matrices of unknown width might not join: no preimage
        u, w = pt.matrix("u"), pt.matrix("w")
        assert backward(careduce_joino, pt.sum(u) + pt.sum(w)) == []
        u3, w3 = pt.matrix("u3", shape=(None, 3)), pt.matrix("w3", shape=(2, 3))
        (g,) = backward(careduce_joino, pt.sum(u3) + pt.sum(w3))
        check_rewrite(pt.sum(u3) + pt.sum(w3), g, {u3: [(0, 3), (4, 3)], w3: [(2, 3), (2, 3)]})

    def test_check(self):
        assert holds(careduce_joino, pt.sum(pt.join(0, a, b)), pt.sum(a) + pt.sum(b))
        assert not holds(careduce_joino, pt.sum(pt.join(0, a, b)), pt.sum(b) + pt.sum(a))
        assert not holds(careduce_joino, pt.prod(pt.join(0, a, b)), pt.sum(a) + pt.sum(b))
