"""Reductions through broadcasts, Allocs and writes into a fill; the lift through a shared set (rule set "choices")."""

import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.math import Min, Sum

import relations
from graph_bridge import etuplize
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations.rules.lift import elemwise_set_shared_subtensoro, elemwise_set_subtensoro
from relations.rules.reductions import reduce_alloco, reduce_writeso, sum_count_broadcasto, sum_factor_broadcasto

m = pt.matrix("m")
r = pt.matrix("r", shape=(1, None))
s = pt.scalar("s")
v = pt.vector("v")
m3 = pt.matrix("m3", shape=(3, None))
m34 = pt.matrix("m34", shape=(3, 4))
n = pt.iscalar("n")
k = pt.iscalar("k")

#: run-time shapes with length-0, length-1 and length-n dims
M_SHAPES = [(0, 2), (1, 1), (4, 3), (3, 0)]
R_SHAPES = [(1, 2), (1, 1), (1, 3), (1, 0)]


def _roundtrip(rule, lhs, rhs, shapes, exact=True):
    """Backward from ``rhs`` gives preimages that rewrite to it (``lhs`` itself where ``exact``); values agree."""
    pre = backward(rule, rhs)
    assert pre, "no preimage"
    if exact:
        assert any(etuplize(p) == etuplize(lhs) for p in pre), pre
    for p in pre:
        check_rewrite(rhs, p, shapes)
        assert holds(rule, p, rhs)
    assert holds(rule, lhs, rhs)


class TestFactor:
    @pytest.mark.parametrize(
        "make,shapes",
        [
            (lambda: pt.sum(m * r, axis=0), {m: M_SHAPES, r: R_SHAPES}),
            (lambda: pt.sum(r * m, axis=0), {m: M_SHAPES, r: R_SHAPES}),
            (lambda: pt.sum(m * s), {m: M_SHAPES, s: [()] * 4}),
            (lambda: pt.sum(m * s * r, axis=0), {m: M_SHAPES, s: [()] * 4, r: R_SHAPES}),
            (lambda: pt.sum(-m, axis=1), {m: M_SHAPES}),
            (lambda: pt.sum(v[None, :] * m, axis=0), {v: [(2,), (1,), (3,), (0,)], m: M_SHAPES}),
        ],
        ids=["row_right", "row_left", "scalar_full", "two_broadcast", "neg", "vector_kept"],
    )
    def test_forward_keeps_values(self, make, shapes):
        lhs = make()
        before = snapshot(lhs)
        (rhs,) = forward(sum_factor_broadcasto, lhs, n=1)
        assert snapshot(lhs) == before
        assert isinstance(rhs.owner.op, Elemwise) and not isinstance(rhs.owner.op, Sum)
        check_rewrite(lhs, rhs, shapes)

    def test_nothing_broadcast_is_left_alone(self):
        assert forward(sum_factor_broadcasto, pt.sum(m * m, axis=0)) == []
        # r is broadcast along axis 0, not along axis 1
        assert forward(sum_factor_broadcasto, pt.sum(m * r, axis=1)) == []
        assert forward(sum_factor_broadcasto, pt.sum(pt.exp(m), axis=1)) == []

    def test_backward_and_check(self):
        lhs = pt.sum(m * r, axis=0)
        (rhs,) = forward(sum_factor_broadcasto, lhs, n=1)
        # r's length-1 dim is dropped and added back as a broadcast dim: another preimage
        _roundtrip(sum_factor_broadcasto, lhs, rhs, {m: M_SHAPES, r: R_SHAPES}, exact=False)
        lhs = pt.sum(m * v[None, :], axis=0)
        (rhs,) = forward(sum_factor_broadcasto, lhs, n=1)
        _roundtrip(sum_factor_broadcasto, lhs, rhs, {m: M_SHAPES, v: [(2,), (1,), (3,), (0,)]})
        assert not holds(sum_factor_broadcasto, pt.sum(m * r, axis=0), pt.sum(m, axis=0))
        lhs = pt.sum(-m, axis=1)
        _roundtrip(sum_factor_broadcasto, lhs, -pt.sum(m, axis=1), {m: M_SHAPES})

    def test_explicit_form(self):
        lhs = pt.sum(m * r, axis=0)
        (normal,) = [relations.normalize(lhs.owner.inputs[0])]
        explicit = pt.sum(normal, axis=0)
        (rhs,) = forward(sum_factor_broadcasto, explicit, n=1)
        check_rewrite(lhs, relations.lower(rhs), {m: M_SHAPES, r: R_SHAPES})


class TestCount:
    @pytest.mark.parametrize(
        "make",
        [
            lambda: pt.sum(m3 + r, axis=0),
            lambda: pt.sum(m3 - r, axis=0),
            lambda: pt.sum(r - m3, axis=0),
            lambda: pt.sum(m34 + s),
            lambda: pt.sum(s + s * 2 + m34, axis=(0, 1)),
        ],
        ids=["add", "sub_right", "sub_left", "scalar_full", "two_counted"],
    )
    def test_forward_keeps_values(self, make):
        lhs = make()
        (rhs,) = forward(sum_count_broadcasto, lhs, n=1)
        shapes = {m3: [(3, 0), (3, 1), (3, 4)], r: [(1, 0), (1, 1), (1, 4)], s: [()] * 3, m34: [(3, 4)] * 3}
        check_rewrite(lhs, rhs, {i: shapes[i] for i in shapes if i in _roots(lhs)})

    def test_unknown_length_is_left_alone(self):
        assert forward(sum_count_broadcasto, pt.sum(m + r, axis=0)) == []

    def test_a_unary_add_is_left_alone_forward_as_the_check_refuses_it(self):
        lhs = pt.sum(pt.add(r), axis=0)  # pt.add of one input builds a one-input Add node
        assert len(lhs.owner.inputs[0].owner.inputs) == 1
        assert forward(sum_count_broadcasto, lhs) == []

    def test_int64_operand_is_counted_and_narrow_ints_and_bools_are_left_alone(self):
        b = pt.matrix("b", dtype="int64", shape=(1, None))
        a = pt.matrix("a", dtype="int64", shape=(300, None))
        lhs = pt.sum(a + b, axis=0)
        (rhs,) = forward(sum_count_broadcasto, lhs, n=1)
        assert rhs.type == lhs.type
        check_rewrite(lhs, rhs, {a: [(300, 2)], b: [(1, 2)]})
        for dtype in ("int8", "bool"):  # int8 a + b wraps before the int64 sum; bool add is or
            b8 = pt.matrix("b8", dtype=dtype, shape=(1, None))
            a8 = pt.matrix("a8", dtype=dtype, shape=(300, None))
            assert forward(sum_count_broadcasto, pt.sum(a8 + b8, axis=0)) == []
            assert forward(sum_factor_broadcasto, pt.sum(a8 * b8, axis=0)) == []

    def test_backward_and_check(self):
        lhs = pt.sum(m3 + v[None, :], axis=0)
        (rhs,) = forward(sum_count_broadcasto, lhs, n=1)
        _roundtrip(sum_count_broadcasto, lhs, rhs, {m3: [(3, 0), (3, 2)], v: [(0,), (2,)]})
        assert not holds(sum_count_broadcasto, lhs, pt.sum(m3, axis=0) + 2.0 * r[0])


def _roots(out):
    from pytensor.graph.traversal import graph_inputs

    return set(graph_inputs([out]))


class TestAlloc:
    @pytest.mark.parametrize(
        "make,shapes",
        [
            (lambda: pt.sum(pt.alloc(v, n, v.shape[0]), axis=0), {v: [(0,), (1,), (3,)], n: [(), (), ()]}),
            (lambda: pt.sum(pt.alloc(s, v.shape[0], 3)), {s: [()] * 3, v: [(0,), (1,), (3,)]}),
            (lambda: pt.sum(pt.alloc(s, 2, v.shape[0]), axis=1), {s: [()] * 3, v: [(0,), (1,), (3,)]}),
            (lambda: pt.max(pt.alloc(v, 3, v.shape[0]), axis=0), {v: [(0,), (1,), (3,)]}),
            (lambda: Min(axis=None)(pt.alloc(s, 2, 3)), {s: [()] * 3}),
        ],
        ids=["sum_rows", "sum_full", "sum_axis1", "max_rows", "min_full"],
    )
    def test_forward_keeps_values(self, make, shapes):
        lhs = make()
        (rhs,) = forward(reduce_alloco, lhs, n=1)
        check_rewrite(lhs, rhs, shapes)
        from pytensor.tensor.elemwise import CAReduce

        assert not any(
            isinstance(a.owner.op, CAReduce) for a in _ancestors(rhs) if a.owner is not None
        )

    def test_max_over_maybe_empty_axis_is_left_alone(self):
        assert forward(reduce_alloco, pt.max(pt.alloc(v, n, v.shape[0]), axis=0)) == []
        assert forward(reduce_alloco, pt.max(pt.alloc(s, 0, 3))) == []

    def test_full_sized_value_is_left_alone(self):
        assert forward(reduce_alloco, pt.sum(pt.alloc(m, 2, m.shape[0], m.shape[1]), axis=1)) == []

    def test_backward_and_check(self):
        lhs = pt.sum(pt.alloc(v, n, v.shape[0]), axis=0)
        (rhs,) = forward(reduce_alloco, lhs, n=1)
        _roundtrip(reduce_alloco, lhs, rhs, {v: [(0,), (2,)], n: [(), ()]})
        lhs = pt.max(pt.alloc(v, 1, v.shape[0]), axis=0)
        (rhs,) = forward(reduce_alloco, lhs, n=1)
        assert isinstance(rhs.owner.op, Alloc)
        _roundtrip(reduce_alloco, lhs, rhs, {v: [(0,), (2,)]}, exact=False)
        assert not holds(reduce_alloco, lhs, pt.alloc(2 * v, v.shape[0]))


def _ancestors(out):
    from pytensor.graph.traversal import ancestors

    return list(ancestors([out]))


class TestWrites:
    tril = np.tril_indices(4, -1)

    def _zeros_set(self, value, fill=0.0, idx=None):
        idx = self.tril if idx is None else idx
        return pt.set_subtensor(pt.alloc(pt.constant(fill), 4, 4)[idx], value)

    @pytest.mark.parametrize("reduce", [pt.sum, pt.max, Min(axis=None)], ids=["sum", "max", "min"])
    @pytest.mark.parametrize("fill", [0.0, -2.5])
    def test_forward_keeps_values(self, reduce, fill):
        w = pt.vector("w", shape=(6,))
        lhs = reduce(self._zeros_set(w, fill))
        (rhs,) = forward(reduce_writeso, lhs, n=1)
        assert not any(type(a.owner.op).__name__.endswith("IncSubtensor") for a in _ancestors(rhs) if a.owner)
        check_rewrite(lhs, rhs, {w: [(6,), (6,)]})

    def test_empty_and_full_writes(self):
        w0 = pt.vector("w0", shape=(0,))
        empty = (np.array([], dtype="int64"),)
        for reduce in (pt.sum, pt.max):
            lhs = reduce(pt.set_subtensor(pt.alloc(pt.constant(1.5), 3)[empty], w0))
            (rhs,) = forward(reduce_writeso, lhs, n=1)
            check_rewrite(lhs, rhs, {w0: [(0,)]})
        w3 = pt.vector("w3", shape=(3,))
        lhs = pt.max(pt.set_subtensor(pt.alloc(pt.constant(9.0), 3)[[2, 0, 1]], w3))
        (rhs,) = forward(reduce_writeso, lhs, n=1)
        assert isinstance(rhs.owner.op, type(lhs.owner.op))
        check_rewrite(lhs, rhs, {w3: [(3,), (3,)]})

    def test_repeated_and_broadcast_writes_are_left_alone(self):
        w = pt.vector("w", shape=(3,))
        for reduce in (pt.sum, pt.max):
            assert forward(reduce_writeso, reduce(pt.set_subtensor(pt.zeros(4)[[0, 0, 1]], w))) == []
        assert forward(reduce_writeso, pt.sum(pt.set_subtensor(pt.zeros(4)[[0, 1]], s))) == []
        # a partial reduction, and an inc
        assert forward(reduce_writeso, pt.sum(self._zeros_set(pt.vector("w6", shape=(6,))), axis=0)) == []
        assert forward(reduce_writeso, pt.sum(pt.inc_subtensor(pt.zeros(4)[[0, 1]], w[:2]))) == []

    def test_basic_index(self):
        w = pt.matrix("w", shape=(2, 3))
        lhs = pt.sum(pt.set_subtensor(pt.zeros((4, 3))[1:3], w))
        (rhs,) = forward(reduce_writeso, lhs, n=1)
        check_rewrite(lhs, rhs, {w: [(2, 3)]})

    @pytest.mark.parametrize("reduce", [pt.sum, pt.max])
    def test_backward_and_check(self, reduce):
        w = pt.vector("w", shape=(6,))
        lhs = reduce(self._zeros_set(w, 0.5))
        (rhs,) = forward(reduce_writeso, lhs, n=1)
        pre = backward(reduce_writeso, rhs)
        assert pre
        for p in pre:
            check_rewrite(rhs, p, {w: [(6,)]})
            assert holds(reduce_writeso, p, rhs)
        assert holds(reduce_writeso, lhs, rhs)
        assert not holds(reduce_writeso, lhs, reduce(w))


class TestSharedLift:
    def test_lifts_where_the_greedy_rule_refuses(self):
        x = pt.vector("x")
        base = pt.set_subtensor(pt.zeros(5)[[0, 2]], x[:2])
        lhs = pt.exp(base)
        graph = [lhs, pt.sum(base)]  # the set has a second reader
        from kanren import run
        from unification import var

        from graph_bridge import graph_context, reify

        q = var()
        with graph_context(graph):
            assert run(1, q, elemwise_set_subtensoro(etuplize(lhs), q)) == ()
            (found,) = run(1, q, elemwise_set_shared_subtensoro(etuplize(lhs), q))
        rhs = reify(found)
        check_rewrite(lhs, rhs, {x: [(2,), (3,)]})
        pre = backward(elemwise_set_shared_subtensoro, rhs)
        assert any(etuplize(p) == etuplize(lhs) for p in pre)
        assert holds(elemwise_set_shared_subtensoro, lhs, rhs)


def test_the_choices_are_not_in_the_greedy_sets():
    choices = set(relations.RULESETS["choices"])
    assert choices & set(relations.DEFAULT_RULES) == set()
    assert choices & set(relations.RULESETS["compile"]) == set()
    assert set(relations.RULESETS["reductions_through"]) <= choices


@pytest.mark.parametrize("rule", relations.RULESETS["choices"], ids=lambda r: r.__name__)
def test_verify_passes(rule):
    x, y = pt.vector("x"), pt.matrix("y")
    w6 = pt.vector("w6", shape=(6,))
    row = pt.matrix("row", shape=(1, None))
    y3 = pt.matrix("y3", shape=(3, None))
    graphs = [
        pt.sum(y * row, axis=0), pt.sum(-y, axis=1), pt.sum(y3 + row, axis=0), pt.sum(row - y3, axis=0),
        pt.sum(pt.alloc(x, 3, x.shape[0]), axis=0), pt.max(pt.alloc(pt.scalar("c"), 2, 3)),
        pt.sum(pt.set_subtensor(pt.zeros((4, 4))[np.tril_indices(4, -1)], w6)),
        pt.min(pt.set_subtensor(pt.alloc(pt.constant(1.0), 7)[[0, 3, 5, 6, 1, 2]], w6)),
        pt.exp(pt.set_subtensor(pt.zeros(5)[[0, 2]], x[:2])),
    ]
    assert relations.verify(rule, examples=30, seed=0, graphs=graphs) is None


class TestRestated:
    """What the restatement as ``rewrite_rule`` tables fixed or keeps, beside the tests above."""

    def test_the_index_facts_are_the_hand_written_rules(self):
        from pytensor.tensor.basic import Alloc as StockAlloc
        from pytensor.tensor.math import Max

        from graph_bridge import ExplicitAlloc, ExplicitElemwise
        from graph_bridge.node_relations import SET_CLASSES

        for rule in (sum_factor_broadcasto, sum_count_broadcasto):
            assert rule.heads == (Sum,) and rule.rhs_heads == (Elemwise,)
            assert rule.child_heads == (Elemwise, ExplicitElemwise)
        assert reduce_alloco.heads == reduce_writeso.heads == (Sum, Max, Min)
        assert reduce_alloco.rhs_heads == (StockAlloc, Elemwise) and reduce_writeso.rhs_heads == (Elemwise,)
        assert reduce_alloco.child_heads == (StockAlloc, ExplicitAlloc) and reduce_writeso.child_heads == SET_CLASSES

    def test_an_int8_mul_over_a_sum_has_no_preimage_that_wraps(self):
        a8, b8 = pt.matrix("a8", dtype="int8"), pt.vector("b8", dtype="int8")
        rhs = pt.sum(a8, axis=0) * b8  # Sum accumulates in int64: Sum(a8 * b8) would wrap in int8
        assert backward(sum_factor_broadcasto, rhs) == []
        assert not holds(sum_factor_broadcasto, pt.sum(a8 * b8[None, :], axis=0), rhs)
        lhs = pt.sum(m * r, axis=0)
        assert backward(sum_factor_broadcasto, forward(sum_factor_broadcasto, lhs, n=1)[0])  # floats still do

    def test_only_a_mul_of_the_fill_is_read_backward(self):
        c, w = pt.scalar("c"), pt.vector("w", shape=(3,))
        assert backward(reduce_writeso, (c - 2.0) + pt.sum(w)) == []  # c * 2 would be read as c - 2
        pre = backward(reduce_writeso, c * 2.0 + pt.sum(w))
        assert pre
        check_rewrite(c * 2.0 + pt.sum(w), pre[0], {c: [()] * 2, w: [(3,)] * 2})

    def test_a_right_side_of_one_part_checks(self):
        w3 = pt.vector("w3", shape=(3,))
        for lhs in (
            pt.sum(pt.set_subtensor(pt.zeros(3)[[2, 0, 1]], w3)),  # everything written: Sum(w3)
            pt.max(pt.set_subtensor(pt.alloc(pt.constant(1.5), 3)[np.array([], dtype="int64")], w3[:0])),  # nothing
        ):
            (rhs,) = forward(reduce_writeso, lhs, n=1)
            assert rhs.owner is None or not isinstance(rhs.owner.op, Elemwise)  # the one part, not combined
            assert holds(reduce_writeso, lhs, rhs)
        lhs = pt.sum(pt.alloc(s, v.shape[0], 3))  # nothing kept: the value times the lengths, no Alloc
        (rhs,) = forward(reduce_alloco, lhs, n=1)
        assert not isinstance(rhs.owner.op, Alloc) and holds(reduce_alloco, lhs, rhs)
        check_rewrite(lhs, rhs, {s: [()] * 3, v: [(0,), (1,), (3,)]})

    def test_a_0d_alloc_is_not_read_backward(self):
        # its old preimage Max{0}(Alloc(c, 1)) rewrites to c, not to the Alloc: the check refused it
        zero_d = Alloc()(pt.scalar("c"))
        assert zero_d.type.ndim == 0
        assert backward(reduce_alloco, zero_d) == []
