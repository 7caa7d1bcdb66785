"""Lift relations (pytensor #2138): Elemwise through set and Alloc; inc on zeros as set."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import Elemwise

import relations
from graph_bridge import etuplize
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations.rules.lift import elemwise_alloco, elemwise_set_subtensoro, inc_zeros_as_seto

x = pt.vector("x")
c = pt.scalar("c")
cv = pt.vector("cv")
m = pt.matrix("m")
n = pt.iscalar("n")


SET_CASES = {
    "basic_slice": (lambda: pt.set_subtensor(x[1:3], c), {x: [(0,), (1,), (5,)], c: [(), (), ()]}),
    "basic_negative": (lambda: pt.set_subtensor(x[-2:], c), {x: [(0,), (1,), (5,)], c: [(), (), ()]}),
    "advanced_unique": (lambda: pt.set_subtensor(x[[0, 2]], c), {x: [(3,), (4,)], c: [(), ()]}),
    "advanced_repeated": (lambda: pt.set_subtensor(x[[0, 0, 2]], cv[:3]),
                          {x: [(3,), (5,)], cv: [(3,), (4,)]}),
    "advanced_negative": (lambda: pt.set_subtensor(x[[-1, 0]], c), {x: [(1,), (4,)], c: [(), ()]}),
    "matrix_row": (lambda: pt.set_subtensor(pt.alloc(0.0, n, 3)[0], cv),
                   {n: [(), ()], cv: [(3,), (1,)]}),
}
N_VALUES = {n: 2}


def shapes_with_ints(shapes):
    return shapes


@pytest.mark.parametrize("name", sorted(SET_CASES))
@pytest.mark.parametrize("f", [pt.sqr, pt.exp, lambda v: v + 1, lambda v: 2.0 * v],
                         ids=["sqr", "exp", "add_const", "mul_const_left"])
def test_lift_through_set_forward(name, f):
    make, shapes = SET_CASES[name]
    s = make()
    lhs = f(s)
    res = forward(elemwise_set_subtensoro, lhs)
    if name == "advanced_repeated":  # value cv[:3] and base x both full-sized: not lifted
        assert res == []
        return
    (rhs,) = res[:1]
    assert isinstance(rhs.owner.op, type(s.owner.op)) and rhs.owner.op.set_instead_of_inc
    if n in shapes:
        _check_with_n(lhs, rhs, shapes)
    else:
        check_rewrite(lhs, rhs, shapes)


def _check_with_n(lhs, rhs, shapes):
    fn = pytensor.function([n, cv], [lhs, rhs], mode="FAST_COMPILE")
    for k, (size, width) in enumerate([(2, 3), (1, 1), (0, 3)]):
        val = np.arange(3.0)[: shapes[cv][min(k, 1)][0]]
        if size == 0:
            with pytest.raises(Exception):
                fn(np.int32(size), val)
            continue
        a, b = fn(np.int32(size), val)
        np.testing.assert_allclose(a, b)
    assert lhs.type.broadcastable == rhs.type.broadcastable and lhs.type.dtype == rhs.type.dtype


def test_repeated_indices_with_scalar_value_lift():
    lhs = pt.exp(pt.set_subtensor(x[[1, 1, -1]], c))
    (rhs,) = forward(elemwise_set_subtensoro, lhs)
    check_rewrite(lhs, rhs, {x: [(2,), (3,)], c: [(), ()]})


def test_inc_is_never_lifted():
    assert forward(elemwise_set_subtensoro, pt.exp(pt.inc_subtensor(x[1:], c))) == []
    assert forward(elemwise_set_subtensoro, pt.exp(pt.inc_subtensor(x[[0, 1]], c))) == []


def test_full_sized_base_and_value_are_not_lifted():
    assert forward(elemwise_set_subtensoro, pt.exp(pt.set_subtensor(x[:3], cv[:3]))) == []


def test_other_inputs_must_be_scalar_like():
    # add(x[idx].set(c), y) with a full vector y would need y split: left alone
    y = pt.vector("y")
    assert forward(elemwise_set_subtensoro, pt.set_subtensor(x[1:], c) + y) == []
    lhs = pt.set_subtensor(x[1:], c) + pt.scalar("s")
    (rhs,) = forward(elemwise_set_subtensoro, lhs)
    s = lhs.owner.inputs[1].owner.inputs[0]
    check_rewrite(lhs, rhs, {x: [(0,), (1,), (4,)], c: [(), (), ()], s: [(), (), ()]})


@pytest.mark.parametrize(
    "base_dtype,value",
    [("int64", pt.constant(1.7)), ("float32", pt.scalar("v64", dtype="float64"))],
    ids=["int_base_float_value", "float32_base_float64_value"],
)
def test_set_casts_the_value_before_f(base_dtype, value):
    base = pt.vector("base", dtype=base_dtype)
    lhs = pt.sqr(pt.set_subtensor(base[1:], value))
    (rhs,) = forward(elemwise_set_subtensoro, lhs)
    shapes = {base: [(0,), (1,), (4,)]}
    if not isinstance(value, pytensor.graph.basic.Constant):
        shapes[value] = [(), (), ()]
    check_rewrite(lhs, rhs, shapes)


def test_lift_through_set_backward_and_check():
    lhs = pt.sqr(pt.set_subtensor(x[1:], c))
    (rhs,) = forward(elemwise_set_subtensoro, lhs)
    pre = backward(elemwise_set_subtensoro, rhs)
    assert pre, "no preimage"
    assert any(etuplize(p) == etuplize(lhs) for p in pre)
    for p in pre:
        check_rewrite(rhs, p, {x: [(0,), (1,), (4,)], c: [(), (), ()]})
    assert holds(elemwise_set_subtensoro, lhs, rhs)
    assert not holds(elemwise_set_subtensoro, pt.exp(pt.set_subtensor(x[1:], c)), rhs)


def test_check_holds_on_the_built_right_side_with_other_scalar_inputs():
    """PyTensor expands a 0-d input when it builds ``f(s, c)``: the check reads it back."""
    x, s = pt.vector("x"), pt.scalar("s")
    for lhs in (
        pt.add(pt.set_subtensor(pt.zeros(4)[[0, 1]], x[:2]), s),
        pt.mul(s, pt.set_subtensor(pt.zeros(4)[[0, 1]], x[:2])),
    ):
        (rhs,) = forward(elemwise_set_subtensoro, lhs)
        assert holds(elemwise_set_subtensoro, lhs, rhs)
        assert not holds(elemwise_set_subtensoro, lhs, pt.set_subtensor(pt.zeros(4)[[0, 1]], x[:2]))
        check_rewrite(lhs, rhs, {x: [(2,), (3,)], s: [(), ()]})


class TestAlloc:
    def test_forward(self):
        lhs = pt.sqr(pt.alloc(c, n, 3))
        (rhs,) = forward(elemwise_alloco, lhs)
        assert isinstance(rhs.owner.op, Alloc) and rhs.owner.inputs[0].type.ndim == 0
        fn = pytensor.function([c, n], [lhs, rhs], mode="FAST_COMPILE")
        for size in (0, 1, 4):
            a, b = fn(np.float64(1.5), np.int32(size))
            np.testing.assert_allclose(a, b)
            assert a.shape == b.shape == (size, 3)
        assert lhs.type.broadcastable == rhs.type.broadcastable

    def test_value_not_broadcastable_is_left_alone(self):
        assert forward(elemwise_alloco, pt.exp(pt.alloc(x, 3, x.shape[0]))) == []

    def test_backward_and_check(self):
        three = pt.constant(3)
        rhs = pt.alloc(pt.sqr(c), n, three)
        (lhs,) = backward(elemwise_alloco, rhs)
        assert etuplize(lhs) == etuplize(pt.sqr(pt.alloc(c, n, three)))
        fn = pytensor.function([c, n], [lhs, rhs], mode="FAST_COMPILE")
        for size in (0, 1, 3):
            a, b = fn(np.float64(-2.0), np.int32(size))
            np.testing.assert_allclose(a, b)
        assert holds(elemwise_alloco, pt.sqr(pt.alloc(c, n, three)), rhs)
        assert not holds(elemwise_alloco, pt.exp(pt.alloc(c, n, three)), rhs)


class TestIncOnZeros:
    @pytest.mark.parametrize(
        "idx", [slice(1, 3), [0, 2], [-1, -2]], ids=["basic", "advanced_unique", "negative_unique"]
    )
    def test_forward(self, idx):
        z = pt.zeros((n,))
        lhs = pt.inc_subtensor(z[idx], c)
        (rhs,) = forward(inc_zeros_as_seto, lhs)
        assert rhs.owner.op.set_instead_of_inc
        fn = pytensor.function([n, c], [lhs, rhs], mode="FAST_COMPILE")
        for size in (3, 4):
            a, b = fn(np.int32(size), np.float64(2.5))
            np.testing.assert_allclose(a, b)
        assert lhs.type == rhs.type

    @pytest.mark.parametrize("idx", [[0, 0, 2], [1, -1]], ids=["repeated", "mixed_signs"])
    def test_repeats_stay_inc(self, idx):
        lhs = pt.inc_subtensor(pt.zeros((n,))[idx], c)
        assert forward(inc_zeros_as_seto, lhs) == []
        fn = pytensor.function([n, c], lhs, mode="FAST_COMPILE")
        assert fn(np.int32(3), np.float64(1.0)).max() == (2.0 if idx[0] == idx[1] else 1.0)

    def test_not_zeros_stays_inc(self):
        assert forward(inc_zeros_as_seto, pt.inc_subtensor(x[1:], c)) == []
        assert forward(inc_zeros_as_seto, pt.inc_subtensor(pt.ones((n,))[1:], c)) == []

    def test_backward_and_check(self):
        lhs = pt.inc_subtensor(pt.zeros((n,))[[0, 2]], c)
        rhs = pt.set_subtensor(pt.zeros((n,))[[0, 2]], c)
        z = rhs.owner.inputs[0]
        rhs = pt.set_subtensor(z[[0, 2]], c)
        (pre,) = backward(inc_zeros_as_seto, rhs)
        assert not pre.owner.op.set_instead_of_inc
        assert holds(inc_zeros_as_seto, pt.inc_subtensor(z[[0, 2]], c), rhs)
        assert not holds(inc_zeros_as_seto, pt.inc_subtensor(z[[0, 0]], c), pt.set_subtensor(z[[0, 0]], c))
        assert lhs is not None


def lkjcorr_sqr(k: int):
    params = pt.vector("params")
    tril = np.tril_indices(k, -1)
    diag = np.diag_indices(k)
    L = pt.zeros((k, k))
    L = pt.set_subtensor(L[tril], params)
    L = pt.set_subtensor(L[diag], 1)
    return params, pt.sqr(L)


class TestLKJCorr:
    def test_sqr_only_on_params_and_scalars(self):
        params, y = lkjcorr_sqr(4)
        before = snapshot(y)
        z = relations.normalize(y)
        assert snapshot(y) == before
        sqr_inputs = [
            v.owner.inputs[0]
            for v in pytensor.graph.traversal.ancestors([z])
            if v.owner is not None and isinstance(v.owner.op, Elemwise) and v.owner.op.scalar_op == pt.sqr.scalar_op
        ]
        assert params in sqr_inputs
        assert all(i is params or i.type.ndim == 0 for i in sqr_inputs)
        p = np.linspace(-0.5, 0.5, 6)
        np.testing.assert_allclose(z.eval({params: p}, mode="FAST_COMPILE"), y.eval({params: p}, mode="FAST_COMPILE"))
        assert z.type == y.type

    @pytest.mark.default_mode
    def test_compiles_in_default_mode(self):
        params, y = lkjcorr_sqr(5)
        z = relations.normalize(y)
        f = pytensor.function([params], [y, z])
        a, b = f(np.linspace(-0.5, 0.5, 10))
        np.testing.assert_allclose(a, b)
