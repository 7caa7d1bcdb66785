"""Reading PyTensor nodes into parts, and the one goal shape that reads or builds them.

Many relations need a goal "``out`` is a node of this kind with these
parts": forward ``out`` is a known term and its node is read; backward the
parts are known and the term is built.  :func:`read_or_build` is that goal;
each relation supplies how to read a node of its kind and how to build one.
The readers here are the ones several relations share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from pytensor.compile.builders import OpFromGraph
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import toposort
from pytensor.scalar.basic import Add, ScalarMaximum, Sub
from pytensor.tensor.basic import Alloc, Join
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

from graph_bridge.ops import BROADCAST, KEPT, MISSING, ExplicitAlloc, derive_entry
from graph_bridge.terms import term_variable
from logic_core.moded import Mode, moded

__all__ = [
    "elementwise_in_inputs",
    "scalar_op_of",
    "absorb_expansion",
    "alloc_parts",
    "constant_data",
    "is_expansion",
    "is_left_padding",
    "pads_left",
    "reads_through_padding",
    "join_parts",
    "read_or_build",
    "scalar_of",
    "from_max",
    "max_shifted",
    "summed",
    "unshuffled",
]

#: ``read(variable)``: the parts tuples of ``variable``'s node (none if it is not of the kind)
Reader = Callable[[Variable], Iterable[tuple]]
#: ``read(variable)``: the parts tuple of ``variable``'s node, or ``None`` if it is not of the kind
SingleReader = Callable[[Variable], "tuple | None"]


def read_or_build(
    out: Any,
    parts: tuple,
    read: Reader | SingleReader,
    ready: Callable[[Any], bool],
    build: Callable[[Any], Any],
    needs: str,
    build_first: bool = False,
    single: bool = False,
):
    """The goal that ``out`` is the node with ``parts``, either side known.

    When ``out`` is ground, ``read`` gets its variable and each parts tuple
    it yields is unified with ``parts`` (a ground term with no variable has
    no answer); with ``single``, a node has one reading at most and ``read``
    returns it (``None``: not of the kind).  Otherwise, when ``ready`` holds for the reified ``parts``,
    ``build`` makes the term (``None``: those parts make no such node) and
    it is unified with ``out`` (``ready`` only sees ground parts: it asks
    what more the builder needs, such as a tuple).  With neither known the goal raises
    :class:`NotReady` with ``needs`` as its message, so ``lall_ready`` runs
    it later.  ``build_first`` tries building before reading, for a relation
    whose reader accepts more forms than its builder makes.

    Before / after (``joino``)::

        read_or_build(out, (axis, pieces), read=join_parts, ..., single=True)
        # out = Join(0, a, b): axis = 0, pieces = (a, b)
        # axis = 0, pieces = (a, b): out = term(Join, 0, a, b)
    """

    if single:

        def read_one(o):
            v = term_variable(o)
            found = read(v) if v is not None else None
            return None if found is None else (found,)

        reading = Mode(needs=("out",), gives=("parts",), one=read_one)
    else:

        def read_mode(o):
            v = term_variable(o)
            if v is not None:
                for found in read(v):
                    yield (found,)

        reading = Mode(needs=("out",), gives=("parts",), run=read_mode)

    def build_one(p):
        built = build(p)
        return None if built is None else (built,)

    building = Mode(needs=("parts",), gives=("out",), ready=ready, one=build_one)
    modes = (building, reading) if build_first else (reading, building)
    return moded(needs.split(" ")[0], {"out": out, "parts": parts}, *modes, waiting=needs)


def join_parts(v: Variable) -> tuple[int, tuple] | None:
    """``(axis, pieces)`` of a Join with a constant axis (non-negative), else ``None``.

    The axis is an input up to PyTensor 3.0 and a prop from 3.3.
    """
    node = v.owner
    if node is None or type(node.op) is not Join:
        return None
    if "axis" in getattr(node.op, "__props__", ()):  # pytensor >= 3.3
        axis, pieces = getattr(node.op, "axis"), tuple(node.inputs)  # a prop of 3.3's Join only: read by name
    else:  # the axis is the first input
        a = node.inputs[0]
        if not isinstance(a, Constant):
            return None
        axis, pieces = int(a.data), tuple(node.inputs[1:])
    if axis < 0:
        axis += v.type.ndim
    return axis, pieces


def alloc_parts(v: Variable) -> tuple[Variable, tuple] | None:
    """Value and shape of an Alloc, stock or explicit (one whose value never needs a length check)."""
    node = v.owner
    if node is None:
        return None
    if type(node.op) is Alloc or (type(node.op) is ExplicitAlloc and KEPT not in node.op.entry):
        return node.inputs[0], tuple(node.inputs[1:])
    return None


def is_expansion(v: Variable) -> bool:
    """``v`` is a DimShuffle that only adds dimensions (keeps its input's axes in order)."""
    node = v.owner
    if node is None or type(node.op) is not DimShuffle:
        return False
    op = node.op  # DimShuffle reads its order into the input dims it keeps, in output order
    return op.shuffle == tuple(range(op.input_ndim))


def pads_left(op: Any) -> bool:
    """Whether ``op`` is the DimShuffle Elemwise broadcasting adds (only ``"x"`` entries in front)."""
    if type(op) is not DimShuffle:
        return False
    order = op.new_order
    k = len(order) - op.input_ndim
    return k >= 0 and all(o == "x" for o in order[:k]) and list(order[k:]) == list(range(len(order) - k))


def is_left_padding(node: Any) -> bool:
    """Whether ``node`` applies the DimShuffle Elemwise broadcasting adds (:func:`pads_left`)."""
    return node is not None and pads_left(node.op)


def reads_through_padding(node: Any) -> bool:
    """Whether an e-node of ``node`` reads its inputs through the left padding its make_node adds: an
    Elemwise with an input of its output's ndim that is no padding (``x + 1`` over a vector ``x``;
    not ``exp(x[None])``, whose ExpandDims gives a dimension nothing else does)."""
    if not isinstance(node.op, Elemwise):
        return False
    nd = node.outputs[0].type.ndim
    return any(i.type.ndim == nd and not is_left_padding(i.owner) for i in node.inputs)


def absorb_expansion(v: Variable) -> tuple[Variable, str]:
    """The input an Elemwise argument expands, and its pattern entry (numpy rule)."""
    if is_expansion(v):
        inner = v.owner.inputs[0]
        shape = iter(inner.type.shape)
        entry = "".join(
            [MISSING if o == "x" else (BROADCAST if next(shape) == 1 else KEPT) for o in v.owner.op.new_order]
        )
        return inner, entry
    return v, derive_entry(v.type.shape, v.type.ndim)


def constant_data(v: Variable) -> np.ndarray | None:
    """The values of a constant, or of a constant behind the DimShuffle that adds dims to it (as
    Elemwise broadcasting does: ``c[None]``), else ``None``."""
    if isinstance(v, Constant):
        return np.asarray(v.data)
    if is_expansion(v) and isinstance(v.owner.inputs[0], Constant):
        return np.asarray(v.owner.inputs[0].data)
    return None


def scalar_of(v: Variable) -> Variable | None:
    """The 0-d variable behind a scalar-like input (0-d, or a DimShuffle adding dims to a 0-d)."""
    if v.type.ndim == 0:
        return v
    node = v.owner
    if node is not None and type(node.op) is DimShuffle and node.inputs[0].type.ndim == 0:
        return node.inputs[0]
    return None


def scalar_op_of(node: Any) -> Any:
    """The scalar Op of an Elemwise node (``None`` for any other node, or none)."""
    if node is None or not isinstance(node.op, Elemwise):
        return None
    return node.op.scalar_op


def summed(v: Variable) -> Variable | None:
    """The operand of the sum ``v`` is (an Add ``CAReduce``, read through one DimShuffle: ``keepdims``), else
    ``None``."""
    node = v.owner
    if node is not None and isinstance(node.op, DimShuffle):
        node = node.inputs[0].owner
    if node is None or not isinstance(node.op, CAReduce) or not isinstance(node.op.scalar_op, Add):
        return None
    return node.inputs[0]


def unshuffled(v: Variable) -> Variable:
    """``v`` read through DimShuffles (any number of them)."""
    while v.owner is not None and isinstance(v.owner.op, DimShuffle):
        v = v.owner.inputs[0]
    return v


def from_max(v: Variable, depth: int = 3) -> bool:
    """Whether ``v`` is a Max reduction, read through DimShuffles and Elemwise (``switch(isinf(m), 0, m)``),
    at most ``depth`` nodes down."""
    stack = [(v, 0)]
    while stack:
        u, d = stack.pop()
        node = u.owner
        if node is None:
            continue
        if isinstance(node.op, CAReduce) and isinstance(node.op.scalar_op, ScalarMaximum):
            return True
        if d < depth and isinstance(node.op, (DimShuffle, Elemwise)):
            stack.extend((i, d + 1) for i in node.inputs)
    return False


def max_shifted(v: Variable) -> bool:
    """Whether ``v`` is ``x - m`` for ``m`` a max (:func:`from_max`): an exponential's argument shifted as
    ``logsumexp`` shifts it."""
    node = v.owner
    return isinstance(scalar_op_of(node), Sub) and from_max(node.inputs[1])


def elementwise_in_inputs(outputs: Sequence[Variable]) -> bool:
    """Whether every node that reads a graph input (directly or not) is an ``Elemwise`` or a ``DimShuffle``
    (constant sub-graphs such as ``ones((2, 1))`` may be anything): a switch on an input's entries is then
    a switch of the outputs' entries."""
    reads: set[Variable] = set()
    for node in toposort(list(outputs)):
        if any((i.owner is None and not isinstance(i, Constant)) or i in reads for i in node.inputs):
            if not (isinstance(node.op, Elemwise | DimShuffle) or _elementwise_inner(node.op)):
                return False
            reads.update(node.outputs)
    return True


def _elementwise_inner(op: Any) -> bool:
    """``op`` is an ``OpFromGraph`` elementwise in its inner inputs (PyTensor 3.3's ``LogAddExp``, whose inner
    graph is ``log(exp(a - m) + exp(b - m)) + m``)."""
    return isinstance(op, OpFromGraph) and elementwise_in_inputs(op.inner_outputs)
