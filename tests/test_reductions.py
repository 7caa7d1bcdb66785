"""relations.patterns.axes: relations over CAReduce heads, for every CAReduce class."""

import pytensor.tensor as pt
from kanren import run
from unification import var

from graph_bridge import etuplize, reify, term
from relations.patterns.axes import careduce_heado, careduce_partso, full_reductiono


def _head(v):
    return etuplize(v.owner.op)


def test_careduce_heado_changes_only_the_axis_forward():
    m = pt.matrix("m", dtype="float32")
    original = pt.sum(m, axis=1, acc_dtype="float64").owner.op
    other = var()
    [found] = run(0, other, careduce_heado(etuplize(original), (1,), other, None))
    op = found.evaled_obj
    assert type(op) is type(original) and op.axis is None
    assert (op.dtype, op.acc_dtype) == (original.dtype, original.acc_dtype)


def test_careduce_heado_backward_and_as_a_check():
    m = pt.matrix("m")
    full = _head(pt.max(m))
    head = var()
    [h] = run(0, head, careduce_heado(head, (0,), full, None))
    assert type(h.evaled_obj) is type(pt.max(m).owner.op) and h.evaled_obj.axis == (0,)
    along = _head(pt.max(m, axis=0))
    assert run(0, var(), careduce_heado(along, (0,), full, None))
    assert not run(0, var(), careduce_heado(along, (1,), full, None))
    assert not run(0, var(), careduce_heado(_head(pt.sum(m, axis=0)), (0,), full, None))  # Sum is not Max


def test_careduce_partso_reads_the_scalar_op_and_axis_of_each_class():
    m = pt.matrix("m")
    for v, name in [(pt.sum(m, axis=0), "Add"), (pt.prod(m, axis=0), "Mul"), (pt.max(m, axis=0), "Maximum")]:
        sop, axis = var(), var()
        [(s, a)] = run(0, (sop, axis), careduce_partso(_head(v), sop, axis))
        assert type(s).__name__ == name and a == (0,)


def test_careduce_partso_has_no_answer_for_another_head():
    x = pt.vector("x")
    assert run(0, var(), careduce_partso(etuplize(pt.exp(x).owner.op), var(), var())) == ()


def test_full_reductiono():
    m = pt.matrix("m")
    assert run(0, var(), full_reductiono(_head(pt.sum(m))))
    assert not run(0, var(), full_reductiono(_head(pt.sum(m, axis=0))))


def test_a_rebuilt_head_reduces_like_the_original():
    m = pt.matrix("m")
    head = _head(pt.sum(m, axis=0))
    other = var()
    [found] = run(0, other, careduce_heado(head, (0,), other, None))
    y = reify(term(found, m))
    assert y.type.ndim == 0 and y.dtype == pt.sum(m).dtype
