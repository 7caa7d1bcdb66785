"""The relations over a reduction's parts (``relations.rules.reductions.reduction_goals``) and the node relations the
reductions-through rules read and build with: each run forward, backward, and as a check."""

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest
from kanren import run
from pytensor.graph.basic import equal_computations
from pytensor.tensor.math import Max, Sum
from unification import var

from graph_bridge import etuplize, op_term, reify
from graph_bridge.elemwise_terms import operand_entries
from graph_bridge.node_relations import elemwise_firsto, elemwise_operandso, elemwise_or_oneo, maybe_alloco
from helpers import check_rewrite
from logic_core.goals import NotReady
from relations.rules.reductions.reduction_goals import (
    alloc_reductiono,
    count_broadcasto,
    factor_broadcasto,
    fill_writeso,
    sum_dtype_safeo,
)

m = pt.matrix("m")
r = pt.matrix("r", shape=(1, None))
v = pt.vector("v")
m3 = pt.matrix("m3", shape=(3, None))
n = pt.iscalar("n")
c = pt.scalar("c")
w3 = pt.vector("w3", shape=(3,))

#: run-time shapes with length-0, length-1 and length-n dims
M_SHAPES = [(0, 2), (1, 1), (4, 3), (3, 0)]
R_SHAPES = [(1, 2), (1, 1), (1, 3), (1, 0)]


def _all(goal, *wanted):
    """Every answer of ``goal`` for the variables ``wanted``."""
    return list(run(0, wanted, goal))


def _same(a, b) -> bool:
    return equal_computations([reify(a)], [reify(b)])


def _head(x):
    return op_term(x.owner.op)


class TestFactor:
    def test_forward_backward_check(self):
        lhs = pt.sum(m * r, axis=0)
        f, xs, es = operand_entries(lhs.owner.inputs[0])
        kept, out = var(), var()
        ((k, o),) = _all(factor_broadcasto(_head(lhs), f, xs, es, kept, out), kept, out)
        assert reify(k) is m and len(o) == 1 and reify(o[0]).type.ndim == 1  # r with its row dropped
        check_rewrite(lhs, pt.sum(m, axis=0) * reify(o[0]), {m: M_SHAPES, r: R_SHAPES})
        # backward: the operands and entries that rebuild the Mul (o expanded at the reduced axis)
        ins, ents = var(), var()
        ((i, e),) = _all(factor_broadcasto(_head(lhs), f, ins, ents, m, o), ins, ents)
        assert i[0] is m and e == ("**", "x*")
        # check: both sides given
        assert _all(factor_broadcasto(_head(lhs), f, xs, es, m, o)) == [()]
        assert _all(factor_broadcasto(_head(lhs), f, xs, es, m, ())) == []

    def test_neg_and_what_is_left_alone(self):
        lhs = pt.sum(-m, axis=1)
        f, xs, es = operand_entries(lhs.owner.inputs[0])
        ((k, o),) = _all(factor_broadcasto(_head(lhs), f, xs, es, var("k"), var("o")), var("k"), var("o"))
        assert reify(k) is m and o == ()
        for lhs in (pt.sum(m * m, axis=0), pt.sum(m * r, axis=1), pt.sum(pt.exp(m), axis=1)):
            f, xs, es = operand_entries(lhs.owner.inputs[0])
            assert _all(factor_broadcasto(_head(lhs), f, xs, es, var(), var())) == []
        # a Max is not a Sum
        lhs = pt.max(m * r, axis=0)
        f, xs, es = operand_entries(lhs.owner.inputs[0])
        assert _all(factor_broadcasto(_head(lhs), f, xs, es, var(), var())) == []

    def test_waits_until_one_side_is_known(self):
        with pytest.raises(NotReady):
            _all(factor_broadcasto(var(), var(), var(), var(), var(), var()))


class TestCount:
    def test_forward_backward_check(self):
        lhs = pt.sum(m3 + v[None, :], axis=0)
        x = lhs.owner.inputs[0]
        f, xs, es = operand_entries(x)
        parts = var()
        ((p,),) = _all(count_broadcasto(_head(lhs), x, "float64", f, xs, es, parts), parts)
        rhs = reify(p[0]) + reify(p[1])
        check_rewrite(lhs, rhs, {m3: [(3, 0), (3, 1), (3, 4)], v: [(0,), (1,), (4,)]})
        h, ins, ents = var(), var(), var()
        rp = tuple(rhs.owner.inputs)
        ((hb, i, e),) = _all(count_broadcasto(h, var(), "float64", ps.add, ins, ents, rp), h, ins, ents)
        assert hb == _head(lhs) and i == (m3, v) and e == ("**", "x*")
        assert _all(count_broadcasto(_head(lhs), x, "float64", f, xs, es, p)) == [()]
        # N must be the reduced length (3 here), and the dtype the Sum's
        wrong = (rp[0], 2.0 * v)
        assert _all(count_broadcasto(h, var(), "float64", ps.add, ins, ents, wrong), h) == []
        assert _all(count_broadcasto(h, var(), "float32", ps.add, ins, ents, rp), h) == []

    def test_unknown_length_is_left_alone(self):
        lhs = pt.sum(m + r, axis=0)
        f, xs, es = operand_entries(lhs.owner.inputs[0])
        assert _all(count_broadcasto(_head(lhs), lhs.owner.inputs[0], "float64", f, xs, es, var())) == []


class TestAlloc:
    def test_forward_backward_check(self):
        lhs = pt.sum(pt.alloc(v, n, v.shape[0]), axis=0)
        x = lhs.owner.inputs[0]
        value, shape = x.owner.inputs[0], tuple(x.owner.inputs[1:])
        w, kept = var(), var()
        ((wf, kf),) = _all(alloc_reductiono(_head(lhs), x, "float64", value, shape, w, kept), w, kept)
        assert len(kf) == 1
        check_rewrite(lhs, pt.alloc(reify(wf), *kf), {v: [(0,), (1,), (3,)], n: [(), (), ()]})
        h, val, sh = var(), var(), var()
        ((hb, vb, sb),) = _all(alloc_reductiono(h, var(), "float64", val, sh, reify(wf), kf), h, val, sh)
        assert type(hb.evaled_obj) is Sum and hb.evaled_obj.axis == (0,) and vb is v and sb[1:] == kf
        assert _all(alloc_reductiono(_head(lhs), x, "float64", value, shape, wf, kf)) == [()]

    def test_backward_max_and_nothing_kept(self):
        h, val, sh = var(), var(), var()
        ((hb, vb, sb),) = _all(alloc_reductiono(h, var(), "float64", val, sh, c, (n,)), h, val, sh)
        assert type(hb.evaled_obj) is Max and vb is c and reify(sb[0]).data == 1
        # a value alone (nothing kept) is not read backward: every graph would be one
        assert _all(alloc_reductiono(h, var(), "float64", val, sh, c, ()), h) == []

    def test_max_over_a_maybe_empty_axis_is_left_alone(self):
        lhs = pt.max(pt.alloc(v, n, v.shape[0]), axis=0)
        x = lhs.owner.inputs[0]
        goal = alloc_reductiono(_head(lhs), x, "float64", x.owner.inputs[0], tuple(x.owner.inputs[1:]), var(), var())
        assert _all(goal) == []


class TestWrites:
    def _parts(self, lhs):
        s = lhs.owner.inputs[0]
        base, value, *idx = s.owner.inputs
        return base, base.owner.inputs[0], tuple(base.owner.inputs[1:]), tuple(idx), value, op_term(s.owner.op)

    def test_forward_backward_check(self):
        lhs = pt.sum(pt.set_subtensor(pt.alloc(c, 5)[np.array([0, 3, 1])], w3))
        base, fill, shape, idx, value, sh = self._parts(lhs)
        f, parts = var(), var()
        ((ff, pf),) = _all(fill_writeso(_head(lhs), "float64", base, fill, shape, idx, value, sh, f, parts), f, parts)
        assert isinstance(ff, ps.Add) and len(pf) == 2
        check_rewrite(lhs, reify(pf[0]) + reify(pf[1]), {c: [()] * 2, w3: [(3,)] * 2})
        rhs = reify(pf[0]) + reify(pf[1])
        h, fb, sb, ib, vb, hb = var(), var(), var(), var(), var(), var()
        goal = fill_writeso(h, "float64", var(), fb, sb, ib, vb, hb, ps.add, tuple(rhs.owner.inputs))
        ((hh, cc, ss, ii, vv, _),) = _all(goal, h, fb, sb, ib, vb, hb)
        assert hh == _head(lhs) and cc is c and reify(ss[0]).data == 5 and vv is w3
        assert _all(fill_writeso(_head(lhs), "float64", base, fill, shape, idx, value, sh, ff, pf)) == [()]

    def test_one_part_and_repeats(self):
        # everything written: the Sum of the values alone (no scalar op to combine with)
        lhs = pt.sum(pt.set_subtensor(pt.zeros(3)[np.array([2, 0, 1])], w3))
        base, fill, shape, idx, value, sh = self._parts(lhs)
        ((ff, pf),) = _all(fill_writeso(_head(lhs), "float64", base, fill, shape, idx, value, sh, var("f"), var("p")),
                           var("f"), var("p"))
        assert ff is None and len(pf) == 1
        lhs = pt.sum(pt.set_subtensor(pt.zeros(4)[np.array([0, 0, 1])], w3))
        goal = fill_writeso(_head(lhs), "float64", *self._parts(lhs), var(), var())
        assert _all(goal) == []

    def test_backward_reads_a_mul_only(self):
        bad = (c - 2.0, pt.sum(w3))  # not c * M: no preimage (the fill would count c * 2)
        assert _all(fill_writeso(var("h"), "float64", var(), var(), var(), var(), var(), var(), ps.add, bad)) == []


def test_sum_dtype_safe():
    a8 = pt.matrix("a8", dtype="int8")
    assert _all(sum_dtype_safeo(a8 * a8, "int64")) == []
    assert _all(sum_dtype_safeo(a8 * a8, "int8")) == [()]
    assert _all(sum_dtype_safeo(m * m, "float32")) == [()]


class TestNodeRelations:
    def test_elemwise_operands(self):
        x = m * v[None, :]
        f, ins, ents = var(), var(), var()
        ((ff, ii, ee),) = _all(elemwise_operandso(x, f, ins, ents), f, ins, ents)
        assert isinstance(ff, ps.Mul) and ii == (m, v) and ee == ("**", "x*")
        (built,) = run(1, var("o"), elemwise_operandso(var("o"), ff, ii, ee))
        assert _same(built, x)
        assert _all(elemwise_operandso(etuplize(x), ff, ii, ee)) == [()]
        assert _all(elemwise_operandso(pt.sum(m), var(), var(), var())) == []

    def test_elemwise_first(self):
        x = pt.sum(m, axis=0) * v
        ((ff, a, b),) = _all(elemwise_firsto(x, var("f"), var("a"), var("b")), var("f"), var("a"), var("b"))
        assert isinstance(ff, ps.Mul) and b == (v,)
        (built,) = run(1, var("o"), elemwise_firsto(var("o"), ff, a, b))
        assert _same(built, x)
        # built as PyTensor builds it: a lower-rank input expanded on the left
        (built,) = run(1, var("o"), elemwise_firsto(var("o"), ps.mul, m, (c,)))
        assert _same(built, m * c)

    def test_maybe_alloc(self):
        x = pt.alloc(c, n, 3)
        found = _all(maybe_alloco(x, var("v"), var("s")), var("v"), var("s"))
        assert found[0][0] is c and len(found[0][1]) == 2 and found[1] == (x, ())
        assert _all(maybe_alloco(v, var("v"), var("s")), var("v"), var("s")) == [(v, ())]
        (built,) = run(1, var("o"), maybe_alloco(var("o"), c, (n,)))
        assert _same(built, pt.alloc(c, n))
        assert run(1, var("o"), maybe_alloco(var("o"), c, ())) == (c,)

    def test_elemwise_or_one(self):
        x = c + pt.sum(w3)
        found = _all(elemwise_or_oneo(x, var("f"), var("p")), var("f"), var("p"))
        assert isinstance(found[0][0], ps.Add) and found[0][1] == tuple(x.owner.inputs) and found[1] == (None, (x,))
        (built,) = run(1, var("o"), elemwise_or_oneo(var("o"), ps.add, tuple(x.owner.inputs)))
        assert _same(built, x)
        assert run(1, var("o"), elemwise_or_oneo(var("o"), None, (w3,))) == (w3,)
        assert _all(elemwise_or_oneo(etuplize(x), None, (x,))) == [()]
