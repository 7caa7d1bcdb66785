"""Node construction of the explicit Ops: the cached ``make_node`` against the slow derivation.

``ExplicitElemwise.make_node`` and ``ExplicitAlloc.make_node`` remember the
output types they derived.  Here every scalar op of the vocabulary
(``relations.patterns.ELEMWISE``), on inputs of several dtypes, ranks and
static shapes (0-d, length 0, length 1, unknown), builds a node both ways: the
fast one and the code it replaced (kept below as ``reference_*``), and a stock
``Elemwise`` on the expanded inputs.  Output types, patterns and errors must
agree, on the first call and on the cached second one; the node's values must
equal the stock graph's.  Every test runs twice: with stack traces recorded
(PyTensor's default, the generic ``Apply``) and without (as in ``normalize``,
where the nodes are made directly: ``graph_bridge.building.plain_node``).
"""

from __future__ import annotations

import inspect
import itertools
import os
import warnings
from typing import Any

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor import config
from pytensor.graph.basic import Apply, Constant, Variable, equal_computations
from pytensor.scalar import Composite, ScalarOp, get_scalar_type
from pytensor.scalar import add as scalar_add
from pytensor.scalar import mul as scalar_mul
from pytensor.scalar import switch as scalar_switch
from pytensor.tensor.basic import Alloc, as_tensor_variable
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.type import TensorType

from graph_bridge import ops
from graph_bridge.ops import (
    MISSING,
    ExplicitAlloc,
    ExplicitElemwise,
    derive_entry,
    output_static_shape,
)
from helpers import node_facts
from relations.patterns import ELEMWISE

Shape = tuple[int | None, ...]


@pytest.fixture(autouse=True, params=[None, 0], ids=["traces", "no-traces"])
def trace_limit(request):
    """Each test with PyTensor's default ``traceback__limit`` and with 0 (as ``normalize`` runs)."""
    if request.param is None:
        yield
        return
    with config.change_flags(traceback__limit=request.param):
        yield

# -- the code the caches replaced, as it was ------------------------------------


def reference_elemwise_node(op: ExplicitElemwise, *inputs: Any) -> Apply:
    """``ExplicitElemwise.make_node`` before the caches."""
    inputs = [as_tensor_variable(i) for i in inputs]
    pattern = op._pattern_for(inputs)
    op = op if pattern == op.pattern else type(op)(op.scalar_op, pattern)
    shape = output_static_shape(pattern, [i.type.shape for i in inputs])
    shadow = op.scalar_op.make_node(*[get_scalar_type(dtype=i.type.dtype).make_variable() for i in inputs])
    outputs = [TensorType(o.type.dtype, shape=shape)() for o in shadow.outputs]
    return Apply(op, inputs, outputs)


def reference_alloc_node(op: ExplicitAlloc, value: Any, *shape: Any) -> Apply:
    """``ExplicitAlloc.make_node`` before the caches."""
    value = as_tensor_variable(value)
    if len(shape) != len(op.entry):
        raise TypeError(f"{op} takes {len(op.entry)} shape inputs, got {len(shape)}")
    entry = op.entry
    if len(entry) - entry.count(MISSING) != value.type.ndim:
        entry = derive_entry(value.type.shape, len(shape))
    op = op if entry == op.entry else type(op)(entry)
    dummy = TensorType(value.type.dtype, shape=op.stock_value_shape(value.type.shape))()
    stock = Alloc().make_node(dummy, *shape)
    return Apply(op, [value, *stock.inputs[1:]], [stock.outputs[0].type()])


def outcome(build, *args) -> tuple:
    """``("ok", op, inputs, output types)`` of ``build(*args)``, or ``("error", type, message)``."""
    try:
        node = build(*args)
    except Exception as e:  # noqa: BLE001 -- the errors themselves are compared
        return ("error", type(e), str(e))
    return ("ok", node.op, list(node.inputs), [o.type for o in node.outputs])


def assert_same_outcome(got: tuple, want: tuple, args: tuple) -> None:
    """Same error; or same Op, output types and inputs (passed variables as they are, the rest converted alike)."""
    if want[0] == "error" or got[0] == "error":
        assert got == want, args
        return
    assert got[1] == want[1] and got[3] == want[3], args
    assert len(got[2]) == len(want[2]), args
    for g, w, a in zip(got[2], want[2], args):
        if w is a:
            assert g is a, args
        else:  # a new constant or conversion, built again by each call
            assert g is not a and equal_computations([g], [w]), args


def assert_same_build(fast, reference, *args) -> tuple:
    """The fast build, twice (the second from the cache), agrees with the reference; its first outcome."""
    want = outcome(reference, *args)
    first = outcome(fast, *args)
    assert_same_outcome(first, want, args)
    assert_same_outcome(outcome(fast, *args), want, args)
    return first


# -- the vocabulary -------------------------------------------------------------


def arities(sop: ScalarOp) -> tuple[int, ...]:
    """Numbers of inputs to try ``sop`` with: its ``nin``; for variadic ops 2 and 3."""
    if sop.nin >= 0:
        return (sop.nin,)
    params = inspect.signature(sop.impl).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return (2, 3)
    return (len(params),)


#: Static shapes of the inputs, by arity; each row fits the numpy rule.
ROWS: dict[int, list[tuple[Shape, ...]]] = {
    1: [((),), ((None,),), ((1,),), ((0,),), ((3,),), ((2, None),), ((1, 0, 4),)],
    2: [
        ((), ()),
        ((), (None,)),
        ((None,), ()),
        ((1,), (3,)),
        ((0,), (None,)),
        ((1,), (0,)),
        ((None, 1), (4,)),
        ((2, 0), (1,)),
        ((None,), (None,)),
    ],
    3: [((), (), ()), ((), (None,), (3,)), ((None, 1), (1,), (2, 3)), ((0,), (), (1,))],
    4: [((), (), (), ()), ((None,), (), (3,), (1,)), ((2, 1), (1,), (), (None, 0))],
}

DTYPES = ("float64", "float32", "int64", "int8", "uint8", "bool", "complex128")


def dtype_rows(n: int) -> list[tuple[str, ...]]:
    """Each dtype for all ``n`` inputs, and two mixes."""
    cycles = (("int8", "float32"), ("float64", "int64", "bool"))
    mixes = [tuple(itertools.islice(itertools.cycle(c), n)) for c in cycles]
    return [(d,) * n for d in DTYPES] + mixes


def numpy_pattern(shapes: tuple[Shape, ...]) -> tuple[str, ...]:
    width = max(len(s) for s in shapes)
    return tuple(derive_entry(s, width) for s in shapes)


def refined(shapes: tuple[Shape, ...], length: int | None) -> tuple[Shape, ...]:
    """``shapes`` with every static length replaced by ``length`` (a rebuild with other types)."""
    return tuple((length,) * len(s) for s in shapes)


def variables(shapes: tuple[Shape, ...], dtypes: tuple[str, ...]) -> list[Variable]:
    return [pt.tensor(f"i{k}", shape=s, dtype=d) for k, (s, d) in enumerate(zip(shapes, dtypes))]


def concrete(shapes: tuple[Shape, ...]) -> list[tuple[int, ...]]:
    """Run-time shapes that fit ``shapes`` and broadcast with each other (numpy rule)."""
    width = max(len(s) for s in shapes)
    aligned = [(None,) * (width - len(s)) + tuple(s) for s in shapes]
    lengths = []
    for d in range(width):
        known = {s[d] for s in aligned if s[d] is not None}
        lengths.append(next(iter(known - {1}), 1) if known else 2)
    return [tuple(lengths[width - len(s) + k] if n is None else n for k, n in enumerate(s)) for s in shapes]


def random_array(shape: tuple[int, ...], dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Values in every op's domain where it has one: small positive numbers."""
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        return rng.integers(1, 4, size=shape).astype(dtype)
    if dtype.startswith("complex"):
        return (rng.uniform(0.1, 0.9, shape) + 1j * rng.uniform(0.1, 0.9, shape)).astype(dtype)
    return rng.uniform(0.1, 0.9, shape).astype(dtype)


def evaluate(out: Variable, givens: dict[Variable, np.ndarray]) -> np.ndarray:
    """The value of ``out`` from each node's ``prepare_node`` and ``perform`` (no compiling: many cases)."""
    if out in givens:
        return givens[out]
    if isinstance(out, Constant):
        return out.data
    node = out.owner
    storage = [[None] for _ in node.outputs]
    node.op.prepare_node(node, None, None, "py")
    node.op.perform(node, [evaluate(i, givens) for i in node.inputs], storage)
    givens.update((o, s[0]) for o, s in zip(node.outputs, storage))
    return givens[out]


def run(out: Variable, givens: dict[Variable, np.ndarray]) -> tuple:
    """``("ok", value)`` or ``("error", type)`` of ``out`` on ``givens``."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return ("ok", np.asarray(evaluate(out, dict(givens))))
        except Exception as e:  # noqa: BLE001 -- compared with the stock graph's
            return ("error", type(e))


def stock_output_types(op: ExplicitElemwise, inputs: list[Variable]) -> list[TensorType]:
    """Output types of a stock Elemwise on the inputs expanded to the pattern (static lengths kept)."""
    expanded = []
    for entry, inp in zip(op.pattern, inputs):
        own = iter(inp.type.shape)
        shape = []
        for c in entry:
            if c == MISSING:
                shape.append(1)
            else:
                length = next(own)
                shape.append(1 if c == "1" else length)
        expanded.append(TensorType(inp.type.dtype, shape=tuple(shape))())
    return [o.type for o in Elemwise(op.scalar_op).make_node(*expanded).outputs]


# -- ExplicitElemwise -----------------------------------------------------------


@pytest.mark.parametrize("name", ELEMWISE)
def test_elemwise_nodes_match_the_slow_derivation_and_the_stock_values(name):
    sop = getattr(pt, name).scalar_op
    rng = np.random.default_rng(0)
    built = 0
    for n in arities(sop):
        for shapes, dtypes in itertools.product(ROWS[n], dtype_rows(n)):
            op = ExplicitElemwise(sop, numpy_pattern(shapes))
            for types in (shapes, refined(shapes, None), refined(shapes, 1)):
                inputs = variables(types, dtypes)
                got = assert_same_build(op.make_node, lambda *i: reference_elemwise_node(op, *i), *inputs)
                if got[0] == "ok":
                    assert got[3] == stock_output_types(got[1], inputs)
            inputs = variables(shapes, dtypes)
            if outcome(op.make_node, *inputs)[0] == "error":
                continue
            built += 1
            node = op.make_node(*inputs)
            givens = {i: random_array(s, d, rng) for i, s, d in zip(inputs, concrete(shapes), dtypes)}
            ours, stock = run(node.outputs[0], givens), run(getattr(pt, name)(*inputs), givens)
            assert ours[0] == stock[0], (shapes, dtypes, ours, stock)
            if ours[0] == "ok":
                value = ours[1]
                assert value.dtype == node.outputs[0].type.dtype
                assert node.outputs[0].type.is_valid_value(value)
                np.testing.assert_array_equal(value, stock[1])
                assert value.shape == stock[1].shape
    assert built  # every op of the vocabulary builds on some dtypes


@pytest.mark.parametrize(
    "sop, pattern, shapes",
    [
        (scalar_add, ("x*", "**"), ((None, None), (None, None))),  # an input changed rank
        (scalar_add, ("x*", "**"), ((3,), (None,))),
        (scalar_mul, ("x*", "x*"), ((None,), (None,))),  # a leading dim no input has: dropped
        (scalar_mul, ("x*", "x1"), ((None,), (1,))),
        (scalar_switch, ("", "", ""), ((), (2,), ())),
        (scalar_add, ("*1", "x*"), ((None, 3), (None,))),  # kept '1' over a length-3 type
        (scalar_add, ("**",), ((1, 0),)),
    ],
)
def test_rebuilt_patterns_match_the_slow_derivation(sop, pattern, shapes):
    op = ExplicitElemwise(sop, pattern)
    for dtypes in [("float64",) * len(shapes), ("int8", "float32", "int8")[: len(shapes)]]:
        inputs = variables(shapes, dtypes)
        got = assert_same_build(op.make_node, lambda *i: reference_elemwise_node(op, *i), *inputs)
        assert got[0] == "ok"
        assert got[3] == stock_output_types(got[1], inputs)


def test_bad_inputs_raise_the_same_errors_every_time():
    add_op = ExplicitElemwise(scalar_add, ("*", "*"))
    cases = [
        (add_op, (pt.tensor(shape=(2,)), pt.tensor(shape=(3,)))),  # static lengths differ
        (add_op, (pt.vector(), pt.vector(), pt.vector())),  # too many inputs
        (ExplicitElemwise(pt.bitwise_and.scalar_op, ("*", "*")), (pt.vector(), pt.vector())),  # float bits
        (add_op, (pt.vector(), "not a tensor")),
        (add_op, (pt.vector(), get_scalar_type("float64")())),  # a scalar (not tensor) variable converts
    ]
    for op, inputs in cases:
        assert_same_build(op.make_node, lambda *i, op=op: reference_elemwise_node(op, *i), *inputs)
    assert outcome(add_op.make_node, *cases[0][1])[0] == "error"
    assert outcome(add_op.make_node, *cases[-1][1])[0] == "ok"


def test_patterns_are_checked_every_time():
    good = ExplicitElemwise(scalar_add, ("x", "*"))
    assert ExplicitElemwise(scalar_add, ["x", "*"]) == good
    assert ExplicitElemwise(scalar_add, ["x", "*"]).make_node(pt.scalar(), pt.vector()).op == good
    for bad, error in [((["x"], "*"), TypeError), (("x", 1), TypeError), (("x", "**"), ValueError), ((), ValueError)]:
        for _ in range(2):
            with pytest.raises(error):
                ExplicitElemwise(scalar_add, bad)


def test_non_tensor_inputs_are_converted_like_before():
    op = ExplicitElemwise(scalar_add, ("x", "*"))
    for inputs in [(2.0, pt.vector()), (np.int8(3), pt.bvector()), (np.float32(1), pt.tensor(shape=(1,)))]:
        got = assert_same_build(op.make_node, lambda *i: reference_elemwise_node(op, *i), *inputs)
        assert got[0] == "ok"


def test_output_dtypes_follow_the_config_in_force():
    # int32 + float32 is float64 by numpy's rule, float32 under numpy+floatX with floatX=float32
    op = ExplicitElemwise(scalar_add, ("*", "*"))
    a, b = pt.tensor(shape=(None,), dtype="int32"), pt.tensor(shape=(None,), dtype="float32")
    seen = set()
    for flags in [{}, {"floatX": "float32", "cast_policy": "numpy+floatX"}, {}]:
        with config.change_flags(**flags):
            got = assert_same_build(op.make_node, lambda *i: reference_elemwise_node(op, *i), a, b)
            seen.add(got[3][0].dtype)
    assert seen == {"float64", "float32"}


def test_a_composite_scalar_op_rebuilt_for_other_dtypes():
    x, y = get_scalar_type("float64")(), get_scalar_type("float64")()
    comp = Composite([x, y], [x * y + x])
    op = ExplicitElemwise(comp, ("x", "*"))
    for dtypes in [("float64", "float64"), ("int8", "float32"), ("float32", "float32")]:
        inputs = variables(((), (None,)), dtypes)
        got = assert_same_build(op.make_node, lambda *i: reference_elemwise_node(op, *i), *inputs)
        assert got[0] == "ok"
        assert got[3] == stock_output_types(got[1], inputs)


def test_equal_scalar_ops_of_other_identity_build_alike():
    a = pt.vector()
    first = ExplicitElemwise(pt.exp.scalar_op, ("*",)).make_node(a)
    other = type(pt.exp.scalar_op)(pt.exp.scalar_op.output_types_preference, name="exp")
    second = ExplicitElemwise(other, ("*",)).make_node(a)
    assert second.op.scalar_op is other
    assert [o.type for o in second.outputs] == [o.type for o in first.outputs]


# -- ExplicitAlloc --------------------------------------------------------------

n_ = pt.lscalar("n")
v3 = pt.tensor("v3", shape=(3,))
m34 = pt.tensor("m34", shape=(3, 4))
mn = pt.tensor("mn", shape=(3, None))


@pytest.mark.parametrize(
    "entry, value_shape, lengths",
    [
        ("", (), ()),
        ("x", (), (pt.constant(4),)),
        ("x", (), (4,)),
        ("*", (None,), (pt.constant(3),)),
        ("1", (1,), (pt.constant(3, dtype="int32"),)),
        ("*", (1,), (pt.constant(1),)),
        ("x*", (None,), (pt.constant(2), pt.constant(0))),
        ("**", (None, 1), (pt.constant(0), pt.constant(1))),
        ("x*", (None,), (n_, n_)),
        ("x*", (3,), (n_, v3.shape[0])),
        # lengths read off small graphs over static shapes (graph_bridge.shape_values)
        ("x*", (4,), (pt.shape(m34)[:1][0], pt.as_tensor([4])[0])),
        ("x*", (None,), (v3.shape[0] * 2 + 1, pt.shape(m34)[1])),
        ("*", (None,), (mn.shape[1],)),  # not read statically: the stock Alloc decides
        ("*", (None, None), (pt.constant(5),)),  # a value of another rank: the entry is derived
    ],
)
def test_alloc_nodes_match_the_slow_derivation_and_numpy(entry, value_shape, lengths):
    op = ExplicitAlloc(entry)
    rng = np.random.default_rng(0)
    for dtype in ("float64", "int8", "bool"):
        value = pt.tensor("v", shape=value_shape, dtype=dtype)
        got = assert_same_build(op.make_node, lambda *a: reference_alloc_node(op, *a), value, *lengths)
        if got[0] == "error":
            continue
        node = op.make_node(value, *lengths)
        givens = {n_: np.int64(2), v3: np.zeros(3), m34: np.zeros((3, 4)), mn: np.zeros((3, 2))}
        want_shape = tuple(int(evaluate(s, dict(givens))) for s in node.inputs[1:])
        # an unknown length of the value: the requested one where it does not broadcast, else 1
        own = [(c, w) for c, w in zip(node.op.entry, want_shape) if c != MISSING]
        data_shape = tuple((w if c == "*" else 1) if s is None else s for s, (c, w) in zip(value_shape, own))
        data = random_array(data_shape, dtype, rng)
        out = evaluate(node.outputs[0], {value: data, **givens})
        assert out.dtype == node.outputs[0].type.dtype
        assert node.outputs[0].type.is_valid_value(out)
        np.testing.assert_array_equal(out, np.broadcast_to(data, want_shape))


def test_alloc_bad_lengths_raise_the_same_errors_every_time():
    cases = [
        (ExplicitAlloc("*"), pt.tensor(shape=(3,)), (pt.constant(4),)),  # static length differs
        (ExplicitAlloc("*"), pt.vector(), (pt.constant(2.0),)),  # not an integer
        (ExplicitAlloc("*"), pt.vector(), (pt.constant(2), pt.constant(2))),  # too many lengths
        (ExplicitAlloc("x"), pt.scalar(), (pt.constant([2, 3]),)),  # not 0-d
        (ExplicitAlloc("*"), pt.tensor(shape=(3,)), (v3.shape[0] * 2,)),  # a folded length differs
        (ExplicitAlloc("*"), pt.vector(), (v3.shape[0] * 0.5,)),  # not an integer
    ]
    # a good value of the same dtype and lengths first: its cached type must not answer for the bad one
    ExplicitAlloc("*").make_node(pt.vector(), pt.constant(4))
    for op, value, lengths in cases:
        got = assert_same_build(op.make_node, lambda *a, op=op: reference_alloc_node(op, *a), value, *lengths)
        assert got[0] == "error"


# -- nodes made directly (no stack traces) against the generic Apply --------------


def generic_build(monkeypatch, build, *args):
    """``build(*args)`` with the direct construction turned off: ``Apply`` and ``Type.__call__``."""
    with monkeypatch.context() as m:
        m.setattr(ops, "plain_node", lambda *a: None)
        return build(*args)


@pytest.mark.parametrize(
    "op, shapes, dtypes",
    [
        (ExplicitElemwise(scalar_mul, ("**", "x*")), ((None, None), (None,)), ("float64", "float64")),
        (ExplicitElemwise(scalar_add, ("x*", "**")), ((None, 3), (2, 3)), ("int8", "float32")),  # re-derived
        (ExplicitElemwise(scalar_switch, ("", "", "")), ((), (), ()), ("bool", "int64", "float32")),
        (ExplicitElemwise(pt.exp.scalar_op, ("1",)), ((1,),), ("float32",)),
    ],
    ids=str,
)
def test_elemwise_nodes_made_directly_are_the_generic_nodes(monkeypatch, op, shapes, dtypes):
    inputs = variables(shapes, dtypes)
    with config.change_flags(traceback__limit=0):
        fast = op.make_node(*inputs)
        slow = generic_build(monkeypatch, op.make_node, *inputs)
    assert node_facts(fast) == node_facts(slow)
    assert fast.inputs == inputs and fast.outputs[0].tag.trace == []


def test_multi_output_elemwise_nodes_made_directly_are_the_generic_nodes(monkeypatch):
    x, y = get_scalar_type("float64")(), get_scalar_type("float64")()
    op = ExplicitElemwise(Composite([x, y], [x + y, x * y]), ("x*", "**"))
    inputs = variables(((None,), (2, None)), ("float32", "int8"))
    with config.change_flags(traceback__limit=0):
        fast = op.make_node(*inputs)
        slow = generic_build(monkeypatch, op.make_node, *inputs)
    assert len(fast.outputs) == 2 and node_facts(fast) == node_facts(slow)


def test_alloc_nodes_made_directly_are_the_generic_nodes(monkeypatch):
    op = ExplicitAlloc("x*")
    value, lengths = pt.vector("v", dtype="int8"), (pt.constant(2), v3.shape[0])
    with config.change_flags(traceback__limit=0):
        fast = op.make_node(value, *lengths)
        slow = generic_build(monkeypatch, op.make_node, value, *lengths)
    assert node_facts(fast) == node_facts(slow)
    assert fast.inputs == [value, *lengths] and fast.outputs[0].type.shape == (2, 3)


def test_traces_recorded_outside_normalize_name_the_caller():
    with config.change_flags(traceback__limit=8):  # PyTensor's default
        out = ExplicitElemwise(scalar_add, ("*", "*"))(pt.vector(), pt.vector())
    (frames,) = out.tag.trace
    # PyTensor drops its own inner frames, except where their path contains
    # "tests" (a checkout named x_tests with its venv inside keeps them):
    # the frames that count are the ones outside PyTensor's package
    files = [f[0] for f in frames if not f[0].startswith(PYTENSOR_DIR)]
    assert files[-1].endswith(os.path.join("graph_bridge", "ops.py"))  # make_node, as before
    assert __file__ in files  # this line


PYTENSOR_DIR = os.path.dirname(pytensor.__file__) + os.sep


def test_warn_float64_acts_on_nodes_made_directly():
    op = ExplicitElemwise(scalar_add, ("*", "*"))
    for dtype, raises in [("float64", True), ("float32", False)]:
        inputs = variables(((None,), (None,)), (dtype, dtype))
        op.make_node(*inputs)  # the output types remembered
        with config.change_flags(traceback__limit=0, warn_float64="raise"):
            if raises:
                with pytest.raises(Exception, match="float64"):
                    op.make_node(*inputs)
            else:
                assert op.make_node(*inputs).outputs[0].type.dtype == dtype
