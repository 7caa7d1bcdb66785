"""The precision rule (``relations/rules/precision.py``) and its pass: a unary Op of a constant computed in the
float dtype its Elemwise reads it in, forward, backward, as a check, on values, and compiled."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import Constant
from pytensor.graph.fg import FunctionGraph

import relations
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations.compile.compile_modes import DEFAULT_TAGS, WITH_PRECISION, WITHOUT_PRECISION
from relations.compile.precision import NAME, needed, normalize_precision, widen_folds
from relations.rules import RULESETS
from relations.rules.precision import PRECISION, narrow_constant_operands

RULE = PRECISION["constant_operand_upcasto"]
RULE_TWICE = PRECISION["constant_operand_upcasto_twice"]
x = pt.vector("x", dtype="float64")
m = pt.matrix("m", dtype="float64")
VEC = [(0,), (1,), (5,)]
MAT = [(2, 3), (1, 1), (0, 2)]


def _normal_lcdf(z):
    """PyMC's ``dist_math.normal_lcdf`` at mu = 0, sigma = 1, as written there (``pt.sqrt(2.0)``)."""
    return pt.switch(
        pt.lt(z, -1.0),
        pt.log(pt.erfcx(-z / pt.sqrt(2.0)) / 2.0) - pt.sqr(z) / 2.0,
        pt.log1p(-pt.erfc(z / pt.sqrt(2.0)) / 2.0),
    )


def test_pt_sqrt_of_a_python_float_is_float32():
    """The behaviour the rule answers: PyTensor reads 2.0 as float32, so ``pt.sqrt(2.0)`` is float32's sqrt(2)."""
    assert pt.sqrt(2.0).dtype == "float32"
    assert (x / pt.sqrt(2.0)).dtype == "float64"


@pytest.mark.parametrize(("lhs", "shapes"), [
    (lambda: x / pt.sqrt(2.0), {x: VEC}),
    (lambda: pt.sqrt(2.0) * m, {m: MAT}),
    (lambda: x * pt.log(2), {x: VEC}),  # an int8 constant, its log float32
    (lambda: pt.erfc(x / pt.sqrt(2.0)) + pt.exp(1.5), {x: VEC}),
])
def test_forward_casts_the_constant_and_keeps_types_and_values(lhs, shapes):
    before = lhs()
    seen = snapshot(before)
    (after,) = forward(RULE, before, n=1)
    check_rewrite(before, after, shapes)
    assert narrow_constant_operands(after) == narrow_constant_operands(before) - 1
    assert snapshot(before) == seen


def test_forward_gives_the_float64_function_of_the_constant():
    (after,) = forward(RULE, x / pt.sqrt(2.0), n=1)
    operand = after.owner.inputs[1].owner.inputs[0]  # (under the ExpandDims Elemwise pads it with)
    assert operand.dtype == "float64" and operand.owner.inputs[0].owner.op.scalar_op.o_type.dtype == "float64"
    assert operand.eval() == np.sqrt(2.0)
    assert (x / pt.sqrt(2.0)).owner.inputs[1].eval() != np.sqrt(2.0)


def test_backward_reads_the_left_side_off_a_cast_constant():
    rhs = x / pt.sqrt(pt.cast(pt.constant(np.float32(2.0)), "float64"))
    found = backward(RULE, rhs, n=1)
    assert found
    (lhs,) = found
    check_rewrite(rhs, lhs, {x: VEC})
    sqrt = lhs.owner.inputs[1].owner.inputs[0]
    assert sqrt.dtype == "float32" and isinstance(sqrt.owner.inputs[0], Constant)


def test_check_holds_on_the_pair_and_not_on_another_graph():
    lhs = x / pt.sqrt(2.0)
    (rhs,) = forward(RULE, lhs, n=1)
    assert holds(RULE, lhs, rhs)
    assert not holds(RULE, lhs, x / pt.sqrt(3.0))
    assert not holds(RULE, lhs, lhs)


@pytest.mark.parametrize("graph", [
    lambda: pt.vector("y", dtype="float32") / pt.sqrt(2.0),  # the consumer is float32 itself
    lambda: x / pt.sqrt(np.float64(2.0)),  # already float64
    lambda: x / pt.sqrt(pt.vector("z", dtype="float32")),  # an input: the user's float32 data
    lambda: x / pt.floor(pt.constant(np.float32(2.5))),  # floor: exact in any dtype, not listed
    lambda: x / 2.0,  # a constant read as it is
])
def test_left_untouched(graph):
    g = graph()
    assert forward(RULE, g) == []
    assert narrow_constant_operands(g) == 0


def test_the_pass_compiles_pymcs_normal_lcdf_to_float64_digits():
    """``relations.mode(*WITH_PRECISION)`` computes ``pt.sqrt(2.0)`` in float64: PyMC's normal log-CDF keeps its
    digits."""
    z = pt.dvector("z")
    out = _normal_lcdf(z)
    values = np.array([-40.0, -5.0, -1.5, 0.5, 3.0, 6.0, 10.0])
    with mp.workdps(50):
        exact = np.array([float(mp.log(mp.ncdf(mp.mpf(v)))) for v in values])
    stock = pytensor.function([z], out, mode="FAST_COMPILE")(values)
    ours = pytensor.function([z], out, mode=relations.mode(base="FAST_COMPILE"))(values)
    assert np.max(np.abs(stock - exact) / np.abs(exact)) > 1e-6  # float32's sqrt(2): 1.7e-6 at z = 10
    assert np.max(np.abs(ours - exact) / np.abs(exact)) < 1e-14


@pytest.mark.default_mode
def test_the_default_backend_compiles_the_pass_output():
    f = pytensor.function([x], x / pt.sqrt(2.0), mode=relations.mode())
    assert f(np.array([10.0]))[0] == 10.0 / np.sqrt(2.0)


def test_the_pass_runs_only_where_needed_and_keeps_the_trace():
    plain = FunctionGraph([x], [pt.exp(x) / 2.0], clone=True)
    assert not needed(plain)
    g = x / pt.sqrt(2.0)
    assert needed(FunctionGraph([x], [g], clone=True))
    g.owner.tag.trace = [[("model.py", 7, "logp", "x / pt.sqrt(2.0)")]]
    (out,) = normalize_precision([g])
    assert out is not g and out.tag.trace == g.tag.trace
    assert RULESETS["precision"] == (RULE, RULE_TWICE)
    assert NAME in DEFAULT_TAGS and WITH_PRECISION == DEFAULT_TAGS and NAME not in WITHOUT_PRECISION


def test_stabilize_returns_forms_without_a_narrow_constant_operand():
    """The theory splits ``log(0.5 * erfc(.))`` into ``log(0.5) + log(erfc(.))`` over the user's float32 ``0.5``;
    ``relations.stabilize`` computes that ``log(0.5)`` in float64 (the normal log-CDF at x = -40: 2.4e-12 off
    relative to the exact value otherwise, 1.4e-16 so)."""
    z = pt.dvector("z")
    g = pt.log(0.5 * pt.erfc(-z / np.sqrt(2.0)))
    assert narrow_constant_operands(g) == 0  # (0.5 is read as it is: a constant, not a function of one)
    r = relations.stabilize(g)
    assert r.changed and narrow_constant_operands(r.graph) == 0
    got = pytensor.function([z], r.graph, mode="FAST_COMPILE")(np.array([-40.0]))
    with mp.workdps(50):
        exact = float(mp.log(mp.ncdf(-40)))
    assert abs(got[0] - exact) <= 1e-15 * abs(exact)


def _folded(v: float) -> pt.TensorConstant:
    return pt.constant(np.float64(v))


def test_the_float32_folded_copies_of_a_widened_constant_are_widened_too():
    """PyMC's dlogp of ``log(erfc(x / pt.sqrt(2.0)))`` holds ``1 / sqrt(2.0)`` and ``-2 / sqrt(2.0)`` folded in
    float32 and read as float64 constants; where the graph also spells ``pt.sqrt(2.0)``, which the rule widens,
    each becomes float64's value of the same expression (else the logp and the dlogp compute two ``erfc``)."""
    s32 = np.float64(np.sqrt(np.float32(2.0)))
    logp = pt.log(pt.erfc(x / pt.sqrt(2.0)))
    dlogp = (_folded(-2.0 / s32) * pt.exp(-pt.sqr(x * _folded(1.0 / s32)))) / pt.erfc(x * _folded(1.0 / s32))
    before = snapshot(logp, dlogp)
    new = widen_folds([logp, dlogp])
    assert snapshot(logp, dlogp) == before  # the input graphs are not mutated
    consts = {float(c.data) for c in pytensor.graph.traversal.ancestors(new) if isinstance(c, Constant)
              and c.type.dtype == "float64"}
    assert {-2.0 / np.sqrt(2.0), 1.0 / np.sqrt(2.0)} <= consts and not {-2.0 / s32, 1.0 / s32} & consts
    assert [o.type for o in new] == [logp.type, dlogp.type]
    whole = normalize_precision([logp, dlogp])  # the pass: the folds widened, then the rule
    for v in ([0.5, -3.0, 10.0], [7.0], []):
        at = np.array(v)
        widened = pytensor.function([x], whole, mode="FAST_COMPILE")(at)
        exact = pytensor.function([x], [pt.log(pt.erfc(x / np.sqrt(2.0))),
                                        -np.sqrt(2.0) * pt.exp(-x * x / 2) / pt.erfc(x / np.sqrt(2.0))],
                                  mode="FAST_COMPILE")(at)
        for a, b in zip(widened, exact, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-14)


def test_a_float64_constant_is_left_where_no_narrow_operand_spells_it():
    """Without ``pt.sqrt(2.0)`` in the graph, a float64 constant equal to float32's ``1 / sqrt(2)`` is the
    user's; and a constant that is not such a value to the last bit is left beside a narrow operand."""
    s32 = np.float64(np.sqrt(np.float32(2.0)))
    alone = x * _folded(1.0 / s32)
    assert widen_folds([alone])[0] is alone
    near = x / pt.sqrt(2.0) + x * _folded(np.nextafter(1.0 / s32, 1.0))
    assert widen_folds([near])[0] is near


def test_the_censored_normal_logp_and_dlogp_still_share_their_erfc():
    """The compiled logp + dlogp of a censored Normal likelihood as PyMC builds it (the gradient's constants
    folded from float32's ``sqrt(2)``) has as many ``erfc`` with the precision pass as without it, and the
    same values to float32's ``sqrt(2)`` (the pass moves them towards float64's)."""
    pytest.importorskip("pymc")
    from pymc_models import MODELS, logp_dlogp, point_values

    model = MODELS["censored Normal"]()
    inputs, outputs = logp_dlogp(model)

    def erfcs(tags):
        f = pytensor.function(inputs, outputs, mode=relations.mode(*tags, base="FAST_COMPILE"))
        return sum(str(f.maker.fgraph.toposort()).count(k) for k in ("erfc", "Erfc")), f

    (with_pass, f), (without, g) = erfcs(DEFAULT_TAGS), erfcs(WITHOUT_PRECISION)
    assert with_pass == without > 0
    at = point_values(model)
    for a, b in zip(f(*at), g(*at), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)



def _twice(v):
    """``x / pt.sqrt(2.0)`` as ``vectorize_graph`` batches it: the constant padded by two ExpandDims."""
    from pytensor.graph.replace import vectorize_graph

    batched = pt.matrix("xb", dtype="float64")
    return batched, vectorize_graph(v / pt.sqrt(2.0), replace={v: batched})


def test_the_twice_padded_operand_forward_backward_and_as_a_check():
    xb, lhs = _twice(x)
    assert lhs.owner.inputs[1].owner.inputs[0].owner.op.__class__.__name__ == "DimShuffle"  # two of them
    seen = snapshot(lhs)
    assert forward(RULE, lhs) == []  # the one-DimShuffle rule does not read it
    (rhs,) = forward(RULE_TWICE, lhs, n=1)
    check_rewrite(lhs, rhs, {xb: MAT})
    assert snapshot(lhs) == seen and narrow_constant_operands(rhs) == narrow_constant_operands(lhs) - 1 == 0
    assert holds(RULE_TWICE, lhs, rhs) and not holds(RULE_TWICE, lhs, lhs)
    (back,) = backward(RULE_TWICE, rhs, n=1)
    check_rewrite(rhs, back, {xb: MAT})
    np.testing.assert_array_equal(
        pytensor.function([xb], rhs, mode="FAST_COMPILE")(np.full((2, 1), 10.0)), 10.0 / np.sqrt(2.0))


def test_the_pass_widens_a_batched_graphs_constant():
    xb, lhs = _twice(x)
    f = pytensor.function([xb], lhs, mode=relations.mode(base="FAST_COMPILE"))
    assert f(np.full((1, 3), 10.0))[0, 0] == 10.0 / np.sqrt(2.0)
    assert f(np.zeros((0, 3))).shape == (0, 3)


def test_the_pass_rewrites_each_reading_node_in_place_and_keeps_its_trace():
    """The registered pass rewrites the nodes that read a narrow operand, one by one, in the FunctionGraph: the
    new node carries the trace of the one it replaces, and the rest of the graph is the same objects."""
    from pytensor.compile import optdb

    rewriter = next(iter(optdb.__db__[NAME]))
    g = x / pt.sqrt(2.0)
    g.owner.tag.trace = [[("model.py", 7, "logp", "x / pt.sqrt(2.0)")]]
    rest = pt.exp(x)
    fg = FunctionGraph([x], [g + rest, rest * 2.0], clone=False)
    rewriter.apply(fg)
    divided, kept = fg.outputs[0].owner.inputs
    assert divided is not g and divided.tag.trace == g.tag.trace
    assert kept is rest and fg.outputs[1].owner.inputs[0] is rest
    assert narrow_constant_operands(fg.outputs[0]) == 0
    f = pytensor.function([x], fg.outputs[0], mode="FAST_COMPILE")
    assert f(np.array([10.0]))[0] == 10.0 / np.sqrt(2.0) + np.exp(10.0)
