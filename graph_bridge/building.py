"""Calling an Op on the arguments of a term, with short ways for the Ops rules build most.

A rewrite builds new nodes by evaluating terms: the head Op is called on the
arguments (``Op.__call__``, then ``make_node``).  ``Elemwise.make_node``
derives the output types again at every call (a node of the scalar op on
fresh scalars for the dtypes, the broadcast of the static shapes): about
40 us, the largest cost of a rule that builds a few nodes.  For inputs that
are tensors of one rank (nothing to pad) the output types depend only on
the Op and the input types, so :func:`call_op` remembers them per Op and
input types and builds the node directly.  Reductions and DimShuffles are
remembered the same way (their types depend on the input type only; a
reduction's ``make_node`` also resolves its axis and dtypes into a copy of
the Op, which is remembered too).  A stock Alloc whose lengths are all
integer constants is remembered by its value's type and the lengths (its
output type depends on nothing else; ``make_node`` folds the shape and
builds a new ``TensorType`` each time).  Other Ops get their ``make_node``
called as ``Op.__call__`` calls it; anything else is called as it is.

A node whose output types are known is made by :func:`plain_node`: while no
stack trace is recorded (``traceback__limit=0``, as in ``normalize``) it
makes the ``Apply`` and its outputs the way their constructors do, without
their checks (the bridge's own Ops use it too).

Before / after (``exp(x) * y`` built by a rule, ``x``, ``y`` vectors)::

    Elemwise{mul}(exp(x), y): make_node -> get_output_info -> scalar node, shapes
    Elemwise{mul}(exp(x), y): remembered types of (mul, (vector, vector)) -> plain_node
"""

from __future__ import annotations

from typing import Any

from pytensor import config
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.op import Op
from pytensor.graph.utils import Scratchpad
from pytensor.tensor import math as ptm
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.type import TensorType, integer_dtypes
from pytensor.tensor.variable import TensorConstant, TensorVariable

from graph_bridge.flags import CAST_POLICY, FLOATX, TRACEBACK_LIMIT, WARN_FLOAT64, flag
from logic_core.memo import remember, type_check

__all__ = ["call_op", "is_tensor_variable", "plain_node", "single_output", "types_key"]

#: (id of the Op, floatX, cast_policy, input types) -> (the Op, the node's Op, its output types)
_TYPES: dict[tuple, tuple[Any, Any, tuple[TensorType, ...]]] = {}
#: the same keyed by the Op itself (equal props): looked up when the Op object is new
_TYPES_BY_PROPS: dict[tuple, tuple[Any, Any, tuple[TensorType, ...]]] = {}
#: (the value's type, the lengths) -> the output type of a stock Alloc of constant lengths
_ALLOC_TYPES: dict[tuple, TensorType] = {}
_REDUCTIONS = frozenset(
    c for c in (CAReduce, ptm.Sum, ptm.Prod, ptm.Max, ptm.Min, ptm.All, ptm.Any) if isinstance(c, type)
)


def single_output(op: Op, *inputs: Any) -> Variable:
    """``op(*inputs)`` for an Op of one output: that output (PyTensor types the call as a variable or a list).

    Raises ``TypeError`` naming ``op`` if the node it makes has several outputs.
    """
    out = op(*inputs)
    if isinstance(out, list):
        raise TypeError(f"op must make one output, {op} made {len(out)}")
    return out


def call_op(op: Any, args: list) -> Any:
    """``op(*args)``: the new output (or outputs), built from remembered types when it can be."""
    how = _HOWS.get(type(op))
    if how is None:
        how = _HOWS[type(op)] = _how(type(op))
    if how == _CALL or not _no_test_values():
        return op(*args)
    node = None
    if how == _REMEMBER and not (type(op) is Elemwise and op.inplace_pattern):
        node = _remembered_node(op, args)
    elif how == _ALLOC:
        node = _remembered_alloc(op, args)
    if node is None:
        node = op.make_node(*args)
    # what ``Op.__call__`` returns (no name, no ``return_list``)
    outs = node.outputs
    if op.default_output is not None:
        return outs[op.default_output]
    return outs[0] if len(outs) == 1 else outs


#: how :func:`call_op` calls an Op of a class: its types remembered, its
#: ``make_node`` called directly, or the object called; a stock Alloc's type
#: remembered by its lengths
_REMEMBER, _MAKE_NODE, _CALL, _ALLOC = 0, 1, 2, 3
_HOWS: dict[type, int] = {}


def _how(cls: type) -> int:
    """How :func:`call_op` calls an object of class ``cls``.

    Remembered: a stock Elemwise (unless inplace, checked per call), a
    reduction (CAReduce, whose ``make_node`` may return a copy of the Op
    with the axis and dtypes resolved) and a DimShuffle, whose
    ``make_node`` output depends on the Op and the input types only.
    ``make_node`` called directly: other Ops whose ``__call__`` is
    ``Op.__call__``, which with test values off (the only mode of PyTensor
    3.0 and 3.3) is ``make_node`` and a pick of the outputs.  Anything else
    (builders, ``OutputOf``, Ops with their own ``__call__``) is called.
    """
    if cls is Elemwise or cls is DimShuffle or cls in _REDUCTIONS:
        return _REMEMBER
    if cls is Alloc:
        return _ALLOC
    if issubclass(cls, Op) and cls.__call__ is Op.__call__:
        return _MAKE_NODE
    return _CALL


#: PyTensor's ``compute_test_value`` flag, where the line has one (3.0 and 3.3 do not)
_TEST_VALUES = flag("compute_test_value") if hasattr(config, "compute_test_value") else None


def _no_test_values() -> bool:
    """Test values are off (``Op.__call__`` computes them otherwise; PyTensor 3.0 and 3.3 have none)."""
    return _TEST_VALUES is None or _TEST_VALUES.val == "off"


is_tensor_variable = type_check(TensorVariable, "``isinstance(x, TensorVariable)``, cached per type (an ABC check).")


def _remembered_node(op: Any, args: list) -> Apply | None:
    """What ``op.make_node(*args)`` gives, or ``None`` when it may differ from a remembered call."""
    ndim = None
    for a in args:
        if not (is_tensor_variable(a) and type(a.type) is TensorType):
            return None
        if ndim is None:
            ndim = a.type.ndim
        elif a.type.ndim != ndim:
            return None  # Elemwise.make_node pads the lower-rank inputs with DimShuffles
    types = tuple([a.type for a in args])
    flags = (FLOATX.val, CAST_POLICY.val, types_key(types))
    key = (id(op), *flags)
    hit = _TYPES.get(key)
    if hit is None or hit[0] is not op:
        # an equal Op of another graph (PyMC makes new DimShuffles and reductions
        # per graph): the same types, found by the Op's props
        hit = _TYPES_BY_PROPS.get((op, *flags))
        if hit is not None:
            hit = remember(_TYPES, key, (op, *hit[1:]))
    if hit is not None:
        inputs = list(args)
        return plain_node(hit[1], inputs, hit[2]) or Apply(hit[1], inputs, [t() for t in hit[2]])
    node = op.make_node(*args)
    if len(node.inputs) == len(args) and all(a is b for a, b in zip(node.inputs, args)):
        found = (op, node.op, tuple(o.type for o in node.outputs))
        remember(_TYPES, key, found)
        remember(_TYPES_BY_PROPS, (op, *flags), found)
    return node


def types_key(types: tuple[Any, ...]) -> tuple:
    """A cache key for ``types`` that equal tuples of types share, hashed and compared without Python calls.

    A plain ``TensorType`` is its ``(dtype, shape)``: what its ``__eq__``
    compares and its ``__hash__`` hashes, both Python code that a lookup by
    the type itself runs once per type (and once per comparison of an equal
    type that is another object).  Any other type keeps the tuple as it is
    (its own equality decides); no such key equals one of pairs.
    """
    key = []
    for t in types:
        if type(t) is not TensorType:
            return types
        key.append((t.dtype, t.shape))
    return tuple(key)


def _remembered_alloc(op: Any, args: list) -> Apply | None:
    """What the stock ``Alloc.make_node(value, *shape)`` gives, when every length is a 0-d integer constant.

    Its output type is then a function of the value's type and the lengths
    (``infer_static_shape`` reads the constants as they are), remembered
    once the Op has built one such node that keeps its inputs.  ``None``
    when a length is not such a constant (the Op folds it: it decides).
    """
    if not args or not (is_tensor_variable(args[0]) and type(args[0].type) is TensorType):
        return None
    lengths = []
    for s in args[1:]:
        if type(s) is not TensorConstant or s.type.ndim != 0 or s.type.dtype not in integer_dtypes:
            return None
        lengths.append(int(s.data))
    key = (types_key((args[0].type,)), tuple(lengths))
    out_type = _ALLOC_TYPES.get(key)
    if out_type is None:
        node = op.make_node(*args)
        if len(node.inputs) == len(args) and all(a is b for a, b in zip(node.inputs, args)):
            remember(_ALLOC_TYPES, key, node.outputs[0].type)
        return node
    inputs = list(args)
    return plain_node(op, inputs, (out_type,)) or Apply(op, inputs, [out_type()])


def plain_node(op: Any, inputs: list[Variable], out_types: tuple[TensorType, ...]) -> Apply | None:
    """``Apply(op, inputs, [t() for t in out_types])`` made directly, or ``None`` when it cannot be.

    The generic way checks every input and output and gives each output a
    stack trace (``Type.__call__`` is ``add_tag_trace(make_variable())``);
    that is two thirds of the cost of a node whose types are known.  With
    ``config.traceback__limit == 0`` (as in ``relations.normalize``) the
    trace ``add_tag_trace`` records is an empty list, so the node and its
    outputs are made here as ``Apply.__init__`` and ``TensorVariable.__init__``
    make them, without their checks: the same attributes, in the same order,
    a new auto name per output, ``tag.trace == []``.

    ``inputs`` are Variables (the caller has made them so) and become the
    node's list.  ``None`` when traces are recorded, when an output type is
    not a plain ``TensorType``, or when a float64 output would act on
    PyTensor's ``warn_float64`` flag: the caller then builds the node the
    generic way from its own frame (so a trace names the caller, as before).
    """
    if TRACEBACK_LIMIT.val != 0:
        return None
    for t in out_types:
        if type(t) is not TensorType or (t.dtype == "float64" and WARN_FLOAT64.val != "ignore"):
            return None
    # attributes in the order the constructors set them; Scratchpad's own
    # ``__setattr__`` is Python code (slow), so the tag's is object's
    outputs: list[Variable] = []
    node = _new(Apply)
    node.op = op
    node.inputs = inputs
    node.tag = _new(Scratchpad)
    node.outputs = outputs
    for i, t in enumerate(out_types):
        tag = _new(Scratchpad)
        _set(tag, "trace", [])
        v = _new(TensorVariable)
        v.tag = tag
        v.type = t
        v.owner = node
        v.index = i
        v.name = None
        v.auto_name = f"auto_{next(_COUNT)}"
        outputs.append(v)
    return node


_new = object.__new__
_set = object.__setattr__
#: the counter ``Variable.__init__`` numbers auto names with
_COUNT = Variable.__count__
