"""Values of small shape graphs, read without building a FunctionGraph.

PyTensor's Alloc reads its static output shape off its length inputs with
``infer_static_shape``: it copies the lengths' graphs into a FunctionGraph
and runs the shape rewrites and constant folding over it (about a
millisecond per call on PyMC's graphs).  Lengths are mostly
``x.shape[i]``, a constant, or a little arithmetic on those, so
:func:`folded_value` evaluates such graphs directly: constants, the static
shapes of variables (``Shape``, ``Shape_i``), and a few value Ops
(indexing, DimShuffle, elementwise and scalar arithmetic, MakeVector) over them, with
the Ops' own ``perform``.  A value it finds is the value of the graph (so
also what ``infer_static_shape`` finds); where it finds none, the caller
asks PyTensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.scalar.basic import ScalarOp
from pytensor.tensor.basic import MakeVector, ScalarFromTensor, TensorFromScalar
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.shape import Shape, Shape_i
from pytensor.tensor.subtensor import Subtensor, get_idx_list

__all__ = ["MAX_FOLDED_NODES", "folded_value"]

#: nodes :func:`folded_value` evaluates at most before it gives up
MAX_FOLDED_NODES = 32

_PERFORMED = (DimShuffle, Elemwise, MakeVector, ScalarFromTensor, ScalarOp, Subtensor, TensorFromScalar)


_FAIL = object()  # the value cannot be known
_PERFORM = object()  # the value is the Op's perform of its inputs' values


def folded_value(v: Variable) -> np.ndarray | None:
    """The value of ``v`` when its graph is constants and static shapes, else ``None``.

    Before::

        Subtensor{i}(Subtensor{:stop}(Shape(x), 1), 0)     # x: (200, 4, 4)
        Subtensor{i}(ExpandDims{axis=0}(4), 0)
        Subtensor{i}(Shape(u), 1)                          # u: (None, 5)

    After::

        array(200)
        array(4)
        array(5)

    At most :data:`MAX_FOLDED_NODES` nodes are evaluated; an Op outside the
    few it knows, a static length that is unknown, or a ``perform`` that
    fails gives ``None``.
    """
    values: dict[int, Any] = {}
    stack = [v]
    evaluated = 0
    while stack:
        u = stack[-1]
        if id(u) in values:
            stack.pop()
            continue
        if isinstance(u, Constant):
            values[id(u)] = u.data
            stack.pop()
            continue
        node = u.owner
        if node is None:
            return None
        value = _static_value(u, node)
        if value is _FAIL:
            return None
        if value is not _PERFORM:
            values[id(u)] = value
            stack.pop()
            continue
        if not isinstance(node.op, _PERFORMED) or len(node.outputs) != 1:
            return None
        missing = [i for i in node.inputs if id(i) not in values]
        if missing:
            stack.extend(missing)
            continue
        evaluated += 1
        if evaluated > MAX_FOLDED_NODES:
            return None
        value = _performed(node, [values[id(i)] for i in node.inputs])
        if value is _FAIL:
            return None
        values[id(u)] = value
        stack.pop()
    return values[id(v)]


def _static_value(u: Variable, node: Apply) -> Any:
    """``u``'s value read off static types (a shape, a static length), :data:`_FAIL`, or :data:`_PERFORM`."""
    op = node.op
    if isinstance(op, (Shape, Shape_i)):
        static = node.inputs[0].type.shape
        value = static if isinstance(op, Shape) else (static[op.i],)
        if None in value:
            return _FAIL
        return np.asarray(value if isinstance(op, Shape) else value[0], dtype=u.type.dtype)
    if isinstance(op, Subtensor):
        length = _static_length(node)
        if length is not None:
            return np.asarray(length, dtype=u.type.dtype)
    return _PERFORM


def _performed(node: Apply, inputs: list[Any]) -> Any:
    """The output of ``node.op.perform`` on ``inputs``, or :data:`_FAIL` if it raises."""
    storage: list[list[Any]] = [[None]]
    try:
        node.op.perform(node, inputs, storage)
    except Exception:  # the compiled graph raises it at run time, if ever; not ours to decide
        return _FAIL
    return storage[0][0]


def _static_length(node: Apply) -> int | None:
    """``x.shape[i]``'s static length, from a partly known static shape too; else ``None``."""
    shape_node = node.inputs[0].owner
    if shape_node is None or not isinstance(shape_node.op, Shape):
        return None
    index = get_idx_list(node.inputs, node.op.idx_list)
    if len(index) != 1 or not isinstance(index[0], Constant):
        return None
    static = shape_node.inputs[0].type.shape
    i = int(index[0].data)
    return static[i] if -len(static) <= i < len(static) else None
