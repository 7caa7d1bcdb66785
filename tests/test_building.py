"""graph_bridge.building.call_op: a stock Elemwise built from remembered types is the node make_node builds."""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor import config
from pytensor.graph.basic import Apply, equal_computations
from pytensor.graph.op import Op
from pytensor.scalar import get_scalar_type
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.type import TensorType

from graph_bridge.building import _TYPES, call_op, plain_node
from helpers import node_facts
from relations.patterns import ELEMWISE

SHAPES = [(), (None,), (1,), (0,), (3,), (None, 1), (2, None)]
DTYPES = ["float64", "float32", "int64", "int8", "bool"]


def _inputs(nin: int, rng: np.random.Generator) -> list:
    """``nin`` inputs of one rank, with assorted dtypes and static shapes."""
    ndim = int(rng.integers(0, 3))
    shapes = [s for s in SHAPES if len(s) == ndim]
    return [
        pt.tensor(f"i{k}", dtype=str(rng.choice(DTYPES)), shape=shapes[int(rng.integers(len(shapes)))])
        for k in range(nin)
    ]


@pytest.mark.parametrize("name", ELEMWISE)
def test_call_op_gives_the_node_make_node_gives(name):
    op = getattr(pt, name)
    nin = op.scalar_op.nin if op.scalar_op.nin > 0 else 3
    rng = np.random.default_rng(0)
    for _ in range(6):
        ins = _inputs(nin, rng)
        try:
            ref = op(*ins)
        except Exception as exc:  # noqa: BLE001 - the same error both ways
            with pytest.raises(type(exc)):
                call_op(op, ins)
            continue
        for _ in range(2):  # the second call comes from the remembered types
            got = call_op(op, ins)
            refs, gots = (ref, got) if isinstance(ref, list) else ([ref], [got])
            for r, g in zip(refs, gots, strict=True):
                assert g.type == r.type and type(g) is type(r)
                assert g.owner.op == r.owner.op and g.owner.inputs == ins
                assert equal_computations([g], [r])


def test_inputs_of_other_ranks_go_through_make_node():
    v, s = pt.vector("v"), pt.scalar("s")
    out = call_op(pt.add, [v, s])
    assert out.owner.inputs[0] is v and out.owner.inputs[1] is not s  # padded by a DimShuffle
    assert out.type == pt.add(v, s).type


def test_remembered_types_follow_the_config():
    i = pt.vector("i", dtype="int8")  # int8 / int8 is a float of floatX
    _TYPES.clear()
    with config.change_flags(floatX="float64"):
        wide = call_op(pt.true_div, [i, i])
    with config.change_flags(floatX="float32"):
        narrow = call_op(pt.true_div, [i, i])
    assert (wide.type.dtype, narrow.type.dtype) == ("float64", "float32")


def test_values_of_a_built_node():
    x, y = pt.vector("x"), pt.vector("y", shape=(1,))
    call_op(pt.mul, [x, y])
    out = call_op(pt.mul, [x, y])  # remembered
    f = pytensor.function([x, y], out, mode="FAST_COMPILE")
    for n in (0, 1, 3):
        a = np.arange(n, dtype="float64")
        np.testing.assert_allclose(f(a, [2.0]), a * 2.0)
    assert out.type == TensorType("float64", shape=(None,))


def test_other_ops_are_called_as_they_are():
    x = pt.vector("x")
    s = call_op(pt.math.Sum(axis=None), [x])
    assert s.type == pt.sum(x).type and isinstance(s.owner.op, pt.math.Sum)


REDUCTIONS = [
    pt.math.Sum(axis=None),
    pt.math.Sum(axis=(0,)),
    pt.math.Sum(axis=(1,), dtype="float32"),
    pt.math.Prod(axis=None),
    pt.math.Max(axis=(0,)),
    pt.math.Min(axis=None),
    pt.math.All(axis=(1,)),
    pt.math.Any(axis=None),
]


@pytest.mark.parametrize("op", REDUCTIONS, ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "bool"])
def test_reductions_give_the_node_make_node_gives(op, dtype):
    for shape in [(None, None), (1, 3), (0, None)]:
        x = pt.tensor("x", dtype=dtype, shape=shape)
        try:
            ref = op(x)
        except Exception as exc:  # noqa: BLE001 - the same error both ways
            with pytest.raises(type(exc)):
                call_op(op, [x])
            continue
        for _ in range(2):
            got = call_op(op, [x])
            assert got.type == ref.type and got.owner.op == ref.owner.op
            assert equal_computations([got], [ref])  # All / Any compare a non-bool input with 0 first
        value = np.ones([s if s is not None else 2 for s in shape], dtype=dtype)
        results = []
        for out in (got, ref):
            try:
                results.append(pytensor.function([x], out, mode="FAST_COMPILE")(value))
            except ValueError as exc:  # Max of an empty array: both raise
                results.append(type(exc))
        if isinstance(results[0], np.ndarray):
            np.testing.assert_array_equal(results[0], results[1])
        else:
            assert results[0] is results[1]


@pytest.mark.parametrize("order", [("x", 0, 1), (1, 0), (0, "x", 1), (1,)])
def test_dimshuffles_give_the_node_make_node_gives(order):
    from pytensor.tensor.elemwise import DimShuffle

    x = pt.tensor("x", shape=(1, None) if order == (1,) else (None, 3))
    op = DimShuffle(input_ndim=2, new_order=order)
    ref = op(x)
    for _ in range(2):
        got = call_op(op, [x])
        assert got.type == ref.type and got.owner.op == ref.owner.op and got.owner.inputs == [x]


@pytest.mark.parametrize("make", ["reduction", "dimshuffle"])
def test_an_equal_op_of_another_graph_gets_the_remembered_types(make, monkeypatch):
    import pytensor.tensor.math as ptm

    def new_op():  # a new object each time, equal props (what a new PyMC graph holds)
        return ptm.Sum(axis=(1,)) if make == "reduction" else DimShuffle(input_ndim=2, new_order=(1, "x", 0))

    x = pt.matrix("x")
    first_op = new_op()
    call_op(first_op, [x])
    second_op = new_op()
    assert second_op is not first_op and second_op == first_op
    calls = []
    original = type(second_op).make_node
    monkeypatch.setattr(type(second_op), "make_node", lambda self, *a: calls.append(a) or original(self, *a))
    got = call_op(second_op, [x])
    assert calls == []  # found by the Op's props, not built again
    ref = original(second_op, x).outputs[0]
    assert got.type == ref.type and got.owner.op == ref.owner.op and got.owner.inputs == [x]
    value = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(*pytensor.function([x], [got, ref], mode="FAST_COMPILE")(value))
    other = call_op(new_op(), [pt.tensor("y", shape=(2, 3))])  # other input types: made again
    assert other.type.shape[-1 if make == "reduction" else 0] in (2, 3)


# -- plain_node: the node made directly, as Apply and Type.__call__ make it ------------


def generic_node(op, inputs, out_types):
    """What ``plain_node`` stands for."""
    return Apply(op, list(inputs), [t() for t in out_types])


PLAIN_CASES = [
    (pt.add, 2, (TensorType("float32", shape=(None, 3)),)),
    (pt.neg, 1, (TensorType("int8", shape=()),)),
    (pt.add, 3, (TensorType("float64", shape=(1,)), TensorType("bool", shape=(None,)))),  # two outputs
]


@pytest.mark.parametrize("op, nin, out_types", PLAIN_CASES)
def test_plain_node_is_the_node_apply_builds(op, nin, out_types):
    inputs = [pt.vector(f"i{k}") for k in range(nin)]
    with config.change_flags(traceback__limit=0):
        fast = plain_node(op, list(inputs), out_types)
        slow = generic_node(op, inputs, out_types)
    assert node_facts(fast) == node_facts(slow)
    assert fast.inputs == inputs and [o.tag.trace for o in fast.outputs] == [[]] * len(out_types)
    # every output gets a new auto name, as Variable.__init__ gives
    names = [o.auto_name for o in fast.outputs + slow.outputs + [pt.scalar()]]
    assert len(set(names)) == len(names)
    assert fast.outputs[0].tag is not slow.outputs[0].tag and fast.tag is not slow.tag


def test_plain_node_leaves_the_generic_way_where_it_differs():
    x = pt.vector("x")
    f64, f32 = TensorType("float64", shape=(None,)), TensorType("float32", shape=(None,))
    assert plain_node(pt.neg, [x], (f64,)) is None  # traces recorded (default traceback__limit)
    with config.change_flags(traceback__limit=0):
        assert plain_node(pt.neg, [x], (get_scalar_type("float64"),)) is None  # not a TensorType
        with config.change_flags(warn_float64="raise"):
            assert plain_node(pt.neg, [x], (f64,)) is None  # TensorVariable.__init__ would raise
            assert plain_node(pt.neg, [x], (f32,)) is not None


def test_a_built_node_follows_warn_float64_like_make_node():
    x, y = pt.vector("x"), pt.vector("y")
    with config.change_flags(traceback__limit=0):
        call_op(pt.mul, [x, y])  # remembered
        with config.change_flags(warn_float64="raise"):
            with pytest.raises(Exception, match="float64"):
                pt.mul(x, y)
            with pytest.raises(Exception, match="float64"):
                call_op(pt.mul, [x, y])


@pytest.mark.parametrize(
    "op, nin",
    [(pt.mul, 2), (pt.exp, 1), (pt.math.Sum(axis=(0,)), 1), (DimShuffle(input_ndim=2, new_order=(1, 0)), 1)],
    ids=str,
)
def test_remembered_nodes_without_traces_are_the_nodes_op_call_builds(op, nin):
    ins = [pt.matrix(f"i{k}", dtype="float32") for k in range(nin)]
    with config.change_flags(traceback__limit=0):
        ref = op(*ins)
        call_op(op, ins)
        got = call_op(op, ins)  # from the remembered types
    assert node_facts(got.owner) == node_facts(ref.owner)
    assert got.tag.trace == [] and got.owner.inputs == ins


# -- Ops called through make_node ------------------------------------------------------


class TwoOutputs(Op):
    """An Op with two outputs whose ``default_output`` is the second."""

    default_output = 1

    def make_node(self, x):
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):  # pragma: no cover - not run
        raise NotImplementedError


class OwnCall(TwoOutputs):
    """An Op with its own ``__call__``: called as it is."""

    default_output = None

    def __call__(self, *inputs):
        return ("called", inputs)


def test_ops_are_called_the_way_op_call_calls_them():
    x = pt.vector("x")
    out = call_op(TwoOutputs(), [x])
    assert out is out.owner.outputs[1] and out.owner.inputs == [x]  # the default output
    assert call_op(OwnCall(), [x]) == ("called", (x,))
    with pytest.raises(TypeError):  # make_node's own error
        call_op(TwoOutputs(), [x, x])
    with pytest.raises(TypeError):
        TwoOutputs()(x, x)


def test_a_type_check_answers_as_isinstance_does_for_subclasses_and_registered_classes():
    import abc

    from logic_core.memo import type_check

    class Base(abc.ABC):
        pass

    class Sub(Base):
        pass

    class Registered:
        pass

    Base.register(Registered)
    check = type_check(Base, "isinstance(x, Base)")
    for x in (Sub(), Registered(), object(), 1, Sub(), Registered()):
        assert check(x) == isinstance(x, Base)
        assert check.by_type[type(x)] == isinstance(x, Base)  # the loop form reads the same answers
    assert set(check.by_type) == {Sub, Registered, object, int}
    assert check.__doc__ == "isinstance(x, Base)"
