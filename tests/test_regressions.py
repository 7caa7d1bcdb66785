"""Counterexamples the property tests found, kept as regular tests."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import Mode

import relations
from helpers import assert_same_values, check_rewrite, values_of


def lifted_bool_add():
    """Thorough profile, PyTensor 3.3.8: a bool add ends up next to a float add.

    Lifting ``+ x0`` through the outer set puts ``add(bool_add, x0)`` in the
    graph; PyTensor's canonicalizer then flattens it to ``b + c + x0`` (and
    Numba's fused kernel adds the bools as integers): 3 instead of 2.
    """
    x0 = pt.scalar("x0")
    x1 = pt.vector("x1", dtype="bool")
    zeros = pt.zeros((3,), dtype="bool")
    flag = pt.any(pt.neq(pt.expand_dims(x0, 0), pt.expand_dims(pt.constant(np.int8(0)), 0)))
    inner = pt.set_subtensor(zeros[2], flag) + x1
    outer = pt.set_subtensor(pt.zeros((3,), dtype="bool")[np.array([0, 0, 0])], inner) + x0
    return [x0, x1], outer


def test_lifted_bool_add_keeps_its_values_in_fast_compile():
    (x0, x1), g = lifted_bool_add()
    z = relations.normalize(g)
    check_rewrite(g, z, {x0: [(), ()], x1: [(3,), (3,)]})
    f = pytensor.function([x0, x1], z, mode="FAST_COMPILE")
    np.testing.assert_allclose(f(1.0, np.array([True, True, True])), [2.0, 1.0, 1.0])


@pytest.mark.default_mode
def test_lifted_bool_add_keeps_its_values_in_the_default_mode():
    (x0, x1), g = lifted_bool_add()
    f = pytensor.function([x0, x1], [g, relations.normalize(g), relations.lower(relations.normalize(g))])
    for value in f(1.0, np.array([True, True, True])):
        np.testing.assert_allclose(value, [2.0, 1.0, 1.0])


@pytest.mark.default_mode
def test_a_graph_numba_cannot_compile_raises_alike_after_normalization():
    """Thorough profile, 3.3.8: Numba cannot type an in-place add of bool arrays.

    The original graph is the user's own: importing the toolkit does not
    change how it compiles (it fails in the default mode on 3.3.8, as without
    the toolkit).  Its normal form, lowered, states the bool add as ``or``
    (``relations.compile.workarounds``) and gives the reference values.
    """
    x0 = pt.tensor3("x0", shape=(0, None, None))
    lt = pt.lt(pt.alloc(x0, 0, 2, 2), x0)
    s = pt.set_subtensor(
        pt.zeros((2, 2, 2), dtype="bool")[np.array([], dtype="uint8")], lt.transpose(2, 1, 0).transpose(2, 1, 0)
    )
    g = s + s
    low = relations.lower(relations.normalize(g))
    givens = {x0: np.zeros((0, 2, 2))}
    reference = Mode(linker="py", optimizer=None)
    expected = values_of([g], givens, reference)
    np.testing.assert_array_equal(values_of([low], givens, None), expected)
    assert_same_values([g], [low], givens, mode="FAST_COMPILE")


def _cancelling_join(acc_dtype):
    x0 = pt.tensor3("x0", dtype="float32", shape=(1, None, None))
    x1 = pt.tensor3("x1", dtype="float32")
    j = pt.join(0, x0, x1)
    v0 = np.zeros((1, 3, 3), dtype="float32")
    v0[0, 0, 0] = 1.8627675
    v1 = np.ones((3, 3, 3), dtype="float32")
    v1[0, 0, 0] = -1.0316342
    return (x0, x1), pt.sum(pt.join(1, -j, j), acc_dtype=acc_dtype), {x0: v0, x1: v1}


def test_a_sum_that_rounds_once_is_not_split():
    """Thorough profile, both lines: ``sum(join(1, -J, J)) != 0`` with J float32.

    ``Sum{acc=float64}`` of float32 rounds once: exactly 0.  Split into
    ``sum(-J) + sum(J)``, each part rounded to float32 first, it was 1.2e-6,
    and the comparison with 0 flipped from False to True.  The join relation
    now leaves reductions that accumulate wider than their output alone.
    """
    _, g, givens = _cancelling_join("float64")
    flag = pt.neq(g, 0)
    z = relations.normalize(flag)
    assert any(type(n.op).__name__ == "Join" for n in pytensor.graph.traversal.applys_between(list(givens), [z]))
    assert_same_values([flag], [z], givens)


def test_a_float32_sum_that_accumulates_in_float32_is_split_within_its_precision():
    """With ``acc_dtype=float32`` the original rounds at every step too: split,
    the values agree within float32's tolerance (``helpers.TOLERANCES``)."""
    _, g, givens = _cancelling_join("float32")
    z = relations.normalize(g)
    assert z is not g and z.type == g.type
    assert_same_values([g], [z], givens)


def test_a_reassociated_float64_sum_agrees_up_to_rounding():
    """Thorough profile, both lines: ``any(sum(join(1, -J, J)) != 0)`` in float64.

    The original sums in order and leaves a 2e-16 residual; the split form
    ``sum(-J) + sum(J)`` is exactly 0, so the comparison flipped.  Rewrites
    agree up to float rounding (PyTensor's canonicalize reorders sums too);
    the strategy no longer draws comparisons of values that depend on a float
    sum or product, and the sum itself is checked here.
    """
    x0 = pt.tensor3("x0", shape=(1, 1, 1))
    x1 = pt.tensor3("x1")
    j = pt.join(0, x0, x1)
    g = pt.sum(pt.join(1, -j, j))
    z = relations.normalize(g)
    assert z is not g and z.type == g.type
    givens = {x0: np.array([[[-1.0]]]), x1: np.array([[[-1.03163425]], [[0.0]]])}
    assert_same_values([g], [z], givens)


def set_lifted_under_alloc():
    """CI's fast profile, PyTensor 3.0.7 and 3.3.8: a lift puts a set right under an Alloc.

    ``normalize`` lifts the Invert through both sets, so the outer Alloc
    reads ``SetSubtensor{:2}`` of a (2, 2, 1) array; PyTensor rewrites that
    full overwrite to an Alloc of symbolic lengths, and ``local_merge_alloc``
    asserted that the length fixed at 1 equals 2 ("shape error").
    """
    x0 = pt.tensor3("x0", dtype="bool", shape=(None, None, 1))
    x1, x2, x3 = (pt.scalar(f"x{i}", dtype="bool") for i in (1, 2, 3))
    k = pt.set_subtensor(x0[1:], x1)
    written = pt.set_subtensor(pt.alloc(np.array(False), np.int8(2), np.int8(2), np.int8(1))[np.array([0, 0])], k)
    c = pt.set_subtensor((written + pt.shape_padleft(x2, 3))[:2], x3)
    return [x0, x1, x2, x3], pt.alloc(~c, np.int8(2), np.int8(2), np.int8(2))


@pytest.mark.default_mode
def test_a_set_lifted_under_an_alloc_keeps_its_values_in_the_default_mode():
    ins, g = set_lifted_under_alloc()
    low = relations.lower(relations.normalize(g))
    assert low.owner.inputs[0].owner.op.__class__.__name__ != "Invert"  # the lift happened
    givens = dict(zip(ins, [np.zeros((2, 2, 1), bool), np.array(False), np.array(False), np.array(True)]))
    assert_same_values(g, low, givens, mode=None)
    assert_same_values(g, low, givens)
