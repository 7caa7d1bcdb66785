"""Constants modulo exact casts: ``1`` (int8) and ``1.0`` (float32) are one value wherever a rule reads one
variable twice, in every rule set (the unifier's ``same_value`` and the pattern matcher); a cast that loses
a value (``16777217`` as float32) keeps them apart.  The censoring spelled with an integer bound and a float
branch (pymc #6826's kind) is related to ``minimum`` and its logp derives."""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
import pytest

from graph_bridge.logic_views import same_constant
from helpers import backward, check_rewrite, forward, holds, require_pymc, snapshot
from logic_core.unifier import unify_into
from relations.rules import measurable as M

x = pt.dvector("x")
SHAPES = {x: [(0,), (1,), (5,)]}


def c(value, dtype):
    return pt.constant(np.asarray(value, dtype=dtype))


@pytest.mark.parametrize(
    "a, b, same",
    [
        ((1, "int8"), (1.0, "float32"), True),
        ((0, "int64"), (0.0, "float64"), True),
        ((16777217, "int64"), (16777216.0, "float32"), False),  # the float32 is not the int
        ((0.1, "float64"), (0.1, "float32"), False),  # float32's 0.1 is another number
        ((True, "bool"), (1, "int8"), True),
        ((2, "int8"), (1.0, "float32"), False),
        (([1, 2], "int64"), ([1.0, 2.0], "float64"), True),
        (([1, 2], "int64"), ([1.0], "float64"), False),
    ],
)
def test_two_constants_are_one_value_when_each_casts_to_the_other_exactly(a, b, same):
    u, v = c(*a), c(*b)
    assert same_constant(u, v) is same and same_constant(v, u) is same
    assert unify_into(u, v, {}) is same


def test_constants_of_one_type_are_left_to_the_generic_rules():
    assert same_constant(c(1.0, "float64"), c(1.0, "float64")) is None
    assert unify_into(c(1.0, "float64"), c(1.0, "float64"), {}) is True
    assert unify_into(c(1.0, "float64"), c(2.0, "float64"), {}) is False


def test_an_integer_bound_and_a_float_branch_are_one_censoring_point_forward_backward_and_as_a_check():
    lhs = pt.switch(pt.lt(1, x), 1.0, x)  # the bound int8, the branch float32: the ordinary spelling
    assert lhs.owner.inputs[0].owner.inputs[0].type.dtype != lhs.owner.inputs[1].type.dtype
    before = snapshot(lhs)
    (rhs,) = forward(M.switch_lt_as_minimumo, lhs, n=1)
    assert rhs.owner is not None and type(rhs.owner.op.scalar_op).__name__ == "Minimum"
    check_rewrite(lhs, rhs, SHAPES)
    assert snapshot(lhs) == before
    assert holds(M.switch_lt_as_minimumo, lhs, rhs)
    assert backward(M.switch_lt_as_minimumo, pt.minimum(x, 1.0))


def test_a_cast_that_changes_the_value_keeps_them_apart():
    lhs = pt.switch(pt.lt(16777217, x), np.float32(16777216.0), x)
    assert forward(M.switch_lt_as_minimumo, lhs) == []


def test_the_integer_bound_censoring_derives_its_logp():
    require_pymc()
    import pymc as pm

    import relations.pymc as rpm

    z = pm.Normal.dist(0.0, 1.0)
    y = pt.switch(pt.lt(1, z), 1.0, z)
    v = pt.dscalar("v")
    with pytest.raises(NotImplementedError):
        pm.logp(y, v)  # stock PyMC: no logp for a Switch
    derived = rpm.logp(y, v)
    from scipy import stats

    for val in (-2.0, 0.3, 1.0):  # 1.0: the censoring point's mass, P(z >= 1)
        want = stats.norm.logsf(1.0) if val == 1.0 else stats.norm.logpdf(val)
        np.testing.assert_allclose(derived.eval({v: val}, mode="FAST_COMPILE"), want, rtol=1e-6)
