"""Ops the toolkit adds: Elemwise whose broadcasting is a property of the Op.

Stock PyTensor decides broadcasting from the *static shapes* of an Elemwise's
inputs, after ``make_node`` has wrapped every lower-rank input in a
``DimShuffle`` that adds the missing leading dimensions.  Both are volatile: a
replacement with another rank fails on the ``DimShuffle`` (aesara #933), and a
rewrite that refines a static length from ``None`` to ``1`` silently turns a
dimension that was checked at run time into one that broadcasts (pytensor #408).

:class:`ExplicitElemwise` records the decision in the Op instead.  Its
``pattern`` holds, for each input, one character per *output* dimension:

``'x'``  the input has no dimension here; it is broadcast (like ``DimShuffle``'s ``'x'``)
``'1'``  the input has a dimension here that broadcasts; its length must be 1
``'*'``  the input has a dimension here that does not broadcast; its length
         must equal every other ``'*'`` input's length here

Built from ordinary inputs (:func:`explicit_elemwise`) it reads the pattern
from their static types with the numpy rule (align right, missing leading
dimensions are ``'x'``, static length 1 is ``'1'``), so it computes exactly
what the stock graph computes.  0-d inputs follow the same rule: all ``'x'``.

When a node is rebuilt with new inputs (``clone_replace``, rewrites), an input
of the same rank keeps its characters whatever its new static shape; an input
of another rank gets its characters re-derived from its type with the same
numpy rule, and the other inputs are aligned right to the new output rank.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.op import Op
from pytensor.scalar.basic import ScalarOp, get_scalar_type
from pytensor.tensor.basic import as_tensor_variable
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.type import TensorType, integer_dtypes
from pytensor.tensor.variable import TensorConstant, TensorVariable

from graph_bridge.building import is_tensor_variable, plain_node, single_output, types_key
from graph_bridge.flags import CAST_POLICY, FLOATX
from graph_bridge.shape_values import folded_value
from logic_core.memo import remember, type_check

__all__ = [
    "ExplicitAlloc",
    "ExplicitElemwise",
    "REDERIVE_HINT",
    "broadcast_error",
    "explicit_alloc",
    "derive_entry",
    "entry_order",
    "explicit_elemwise",
    "output_static_shape",
]

MISSING, BROADCAST, KEPT = "x", "1", "*"

_INFER_SHAPE_TAKES_FGRAPH = "fgraph" in inspect.signature(Elemwise.infer_shape).parameters


def derive_entry(static_shape: Sequence[int | None], out_ndim: int) -> str:
    """The numpy-rule pattern entry of an input with ``static_shape`` in ``out_ndim`` dims (remembered)."""
    key = (static_shape if type(static_shape) is tuple else tuple(static_shape), out_ndim)
    found = _ENTRIES.get(key)
    if found is not None:
        return found
    if len(static_shape) > out_ndim:
        raise ValueError(
            f"an input of ndim {len(static_shape)} does not fit an output of ndim {out_ndim}"
        )
    own = "".join(BROADCAST if s == 1 else KEPT for s in static_shape)
    return remember(_ENTRIES, key, MISSING * (out_ndim - len(static_shape)) + own)


_ENTRIES: dict[tuple, str] = {}


def entry_order(entry: str) -> tuple[int | Literal["x"], ...]:
    """The ``DimShuffle`` order that puts an input's dims where ``entry`` says."""
    order: list[int | Literal["x"]] = []
    i = 0
    for c in entry:
        if c == MISSING:
            order.append("x")
        else:
            order.append(i)
            i += 1
    return tuple(order)


REDERIVE_HINT = (
    "The pattern was derived from the input types when the graph was normalized, and a "
    "replacement (clone_replace) keeps an Op's broadcasting (pytensor #408); to derive it "
    "again from the current input types, call relations.rebroadcast(graph) on the replaced graph."
)


def broadcast_error(who: str, d: int, kept: bool, length: Any = None) -> str:
    """The run-time message of an explicit Op whose input does not fit its pattern at dim ``d``.

    ``who`` names the input (``"input 1 of add{*,1}"``); ``kept``: the dim
    does not broadcast (``'*'``) but the input's length there differs from
    the others'; otherwise it broadcasts (``'1'``) and its length is not 1.
    """
    have = "" if length is None else f" (it has length {length})"
    if kept:
        what = (
            f"{who} does not broadcast at output dim {d} (pattern '*'): its length there "
            f"must equal the other inputs' or the requested length{have}."
        )
    else:
        what = f"{who} broadcasts at output dim {d} (pattern '1'): its length there must be 1{have}."
    return f"{what} {REDERIVE_HINT}"


def _check_pattern(pattern: Any) -> tuple[str, ...]:
    if not isinstance(pattern, (tuple, list)) or not all(isinstance(e, str) for e in pattern):
        raise TypeError(f"pattern must be a tuple of strings, got {pattern!r}")
    pattern = tuple(pattern)
    if not pattern:
        raise ValueError("pattern must have one entry per input, got none")
    lengths = {len(e) for e in pattern}
    if len(lengths) != 1:
        raise ValueError(f"pattern entries must all have the output's ndim, got {pattern!r}")
    bad = [e for e in pattern if set(e) - {MISSING, BROADCAST, KEPT}]
    if bad:
        raise ValueError(f"pattern entry {bad[0]!r} has characters other than 'x', '1', '*'")
    return pattern


def output_static_shape(
    pattern: Sequence[str], shapes: Sequence[Sequence[int | None]]
) -> tuple[int | None, ...]:
    """Static output shape: from the ``'*'`` inputs; 1 where no input keeps the dim.

    A dimension some ``'*'`` input keeps has the length every ``'*'`` input
    must have: a known length other than 1 is the output's; if every ``'*'``
    input is known to have length 1 the output has length 1; otherwise the
    output's length is unknown (a refined 1 does not make the output
    broadcastable, so replacing ``None`` by ``1`` keeps the output type).
    """
    ndim = len(pattern[0])
    out: list[int | None] = []
    for d in range(ndim):
        kept = []
        for entry, shape in zip(pattern, shapes):
            if entry[d] == KEPT:
                kept.append(shape[_own_dim(entry, d)])
        if not kept:
            out.append(1)
            continue
        known = {k for k in kept if k is not None and k != 1}
        if len(known) > 1:
            raise ValueError(f"incompatible static lengths {sorted(known)} at output dim {d}")
        if known:
            out.append(known.pop())
        elif all(k == 1 for k in kept):
            out.append(1)
        else:
            out.append(None)
    return tuple(out)


def _own_dim(entry: str, d: int) -> int:
    """The input's own axis that sits at output dim ``d`` (entry[d] is not 'x')."""
    return d - entry[:d].count(MISSING)


# -- caches of node construction ---------------------------------------------
# Building a node derives its output types from the input types the slow way
# (a scalar node on fresh scalar variables for the dtypes, the static shape
# from the pattern, new TensorTypes): about 30 us.  The answer depends only on
# the key below, so it is kept; errors are not kept (a bad input raises the
# same error every time).  Keys hold ``id(scalar_op)``, not the op: equal ops
# could in principle answer differently, one object cannot.  The value keeps
# the op alive, so its id is not reused while the entry exists.

_ELEMWISE_TYPES: dict[tuple, tuple[ScalarOp, tuple[TensorType, ...]]] = {}
_ALLOC_TYPES: dict[tuple, TensorType] = {}
_PATTERNS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[int, ...] | None]] = {}


def _as_tensor(x: Any) -> Variable:
    """``as_tensor_variable(x)``, without the dispatch for a tensor variable (returned as it is)."""
    if (type(x) is TensorVariable or is_tensor_variable(x)) and isinstance(x.type, TensorType):
        return x
    return as_tensor_variable(x)


def _kept_ranks(pattern: tuple[str, ...]) -> tuple[int, ...] | None:
    """Input ranks for which ``make_node`` keeps ``pattern`` as it is.

    ``None`` when it never does: a leading dim that no entry has is dropped
    (numpy rule), so the node's pattern is another one.
    """
    if pattern[0] and all(e[0] == MISSING for e in pattern):
        return None
    return tuple(len(e) - e.count(MISSING) for e in pattern)


def _checked_pattern(pattern: Any) -> tuple[tuple[str, ...], tuple[int, ...] | None]:
    """``_check_pattern(pattern)`` and its ``_kept_ranks``, remembered for valid tuple patterns."""
    if type(pattern) is tuple:
        try:
            hit = _PATTERNS.get(pattern)
        except TypeError:  # an unhashable entry: _check_pattern names it
            hit = None
        if hit is not None:
            return hit
    checked = _check_pattern(pattern)
    info = (checked, _kept_ranks(checked))
    remember(_PATTERNS, checked, info)
    return info


class _ShapeOp(Op):
    """An Op whose ``infer_shape`` has the signature of the installed PyTensor."""

    def _infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]):
        raise NotImplementedError

    # PyTensor 3.3 dropped the ``fgraph`` parameter of ``infer_shape``
    if _INFER_SHAPE_TAKES_FGRAPH:

        def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]):
            return self._infer_shape(node, input_shapes)

    else:
        # the signature of the installed PyTensor's infer_shape (3.0 passes fgraph, 3.3 does not)
        def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]):  # type: ignore[misc]
            return self._infer_shape(node, input_shapes)


class ExplicitElemwise(_ShapeOp):
    """Elemwise whose broadcasting is the Op's ``pattern``, not its inputs' static shapes.

    Before (stock)::

        add(ExpandDims{axis=0}(x), y)        # x: (), y: (None,)

    After (explicit)::

        add{x,*}(x, y)

    ``pattern`` has one entry per input, one character per output dimension
    (see the module docstring).  Graphs in this form evaluate as they are
    (``perform``), and a rewrite in ``optdb`` lowers them to stock Elemwise
    and DimShuffle before PyTensor's backends run.
    """

    __props__ = ("scalar_op", "pattern")

    def __init__(self, scalar_op: ScalarOp, pattern: Sequence[str]) -> None:
        if not isinstance(scalar_op, ScalarOp):
            raise TypeError(f"scalar_op must be a ScalarOp, got {type(scalar_op).__name__}")
        self.scalar_op = scalar_op
        self.pattern, self._kept_ranks = _checked_pattern(pattern)
        self.nin = len(self.pattern)
        self.nout = scalar_op.nout

    def __str__(self) -> str:
        return f"{self.scalar_op}{{{','.join(self.pattern)}}}"

    # -- building -------------------------------------------------------
    def _pattern_for(self, inputs: Sequence[Variable]) -> tuple[str, ...]:
        """Same-rank inputs keep their entry; others are re-derived (numpy rule)."""
        if len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        kept: list[str | None] = []
        for entry, inp in zip(self.pattern, inputs):
            own = len(entry) - entry.count(MISSING)
            kept.append(entry if own == inp.type.ndim else None)
        width = max(
            [len(e) for e in kept if e is not None]
            + [inp.type.ndim for e, inp in zip(kept, inputs) if e is None]
        )
        entries = [
            MISSING * (width - len(e)) + e if e is not None else derive_entry(inp.type.shape, width)
            for e, inp in zip(kept, inputs)
        ]
        # leading dims no input has are not output dims (numpy rule)
        while width and all(e[0] == MISSING for e in entries):
            entries = [e[1:] for e in entries]
            width -= 1
        return tuple(entries)

    def make_node(self, *inputs: Any) -> Apply:
        ins = [_as_tensor(i) for i in inputs]
        types = tuple([i.type for i in ins])
        if tuple([t.ndim for t in types]) == self._kept_ranks:
            op = self  # every input keeps its entry: _pattern_for returns self.pattern
        else:
            pattern = self._pattern_for(ins)
            op = self if pattern == self.pattern else type(self)(self.scalar_op, pattern)
        out_types = op._output_types(types)
        return plain_node(op, ins, out_types) or Apply(op, ins, [t() for t in out_types])

    def _output_types(self, types: tuple[TensorType, ...]) -> tuple[TensorType, ...]:
        """The output types of this Op on inputs of ``types``, remembered (see ``_ELEMWISE_TYPES``).

        The scalar op's output dtypes may read ``config.floatX`` and
        ``config.cast_policy`` (``upcast``), so they are part of the key.
        """
        sop = self.scalar_op
        key = (id(sop), FLOATX.val, CAST_POLICY.val, self.pattern, types_key(types))
        hit = _ELEMWISE_TYPES.get(key)
        if hit is not None and hit[0] is sop:
            return hit[1]
        out = _elemwise_output_types(self, types)
        remember(_ELEMWISE_TYPES, key, (sop, out))
        return out

    # -- evaluation -----------------------------------------------------
    def stock_types(self, inputs: Sequence[Variable]) -> list[TensorType]:
        """Types of the expanded inputs the stock Elemwise sees after lowering."""
        types = []
        for entry, inp in zip(self.pattern, inputs):
            shape = tuple(None if c == KEPT else 1 for c in entry)
            types.append(TensorType(inp.type.dtype, shape=shape))
        return types

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        arrays = []
        for i, (entry, value) in enumerate(zip(self.pattern, inputs)):
            value = np.asarray(value)
            for d, c in enumerate(entry):
                if c == BROADCAST and value.shape[_own_dim(entry, d)] != 1:
                    raise ValueError(
                        broadcast_error(
                            f"input {i} of {self}", d, False, value.shape[_own_dim(entry, d)]
                        )
                    )
            arrays.append(value.reshape(_expanded_shape(entry, value.shape)))
        shadow = getattr(node.tag, "stock_node", None)
        if shadow is None:
            stock_inputs = [t() for t in self.stock_types(node.inputs)]
            shadow = node.tag.stock_node = Elemwise(self.scalar_op).make_node(*stock_inputs)
            # what PyTensor's Python linker does before the first perform (the ufunc, its dtypes)
            shadow.op.prepare_node(shadow, None, None, "py")
        # the stock perform checks that no '*' input of length 1 meets a longer one
        shadow.op.perform(shadow, arrays, output_storage)

    def _infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]):
        out_static = node.outputs[0].type.shape
        out = []
        for d, static in enumerate(out_static):
            if static is not None:
                out.append(as_tensor_variable(np.int64(static)))
                continue
            i = next(i for i, e in enumerate(self.pattern) if e[d] == KEPT)
            out.append(input_shapes[i][_own_dim(self.pattern[i], d)])
        return [tuple(out)] * len(node.outputs)

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], output_grads: Sequence[Variable]
    ) -> list[Variable]:
        # the stock Elemwise on the expanded inputs, differentiated; its gradients
        # are summed over broadcast dims and keep them, so drop the 'x' dims after.
        from pytensor.tensor.shape import specify_broadcastable

        expanded = []
        for entry, inp in zip(self.pattern, inputs):
            e = DimShuffle(input_ndim=inp.type.ndim, new_order=entry_order(entry))(inp) if MISSING in entry else inp
            bcast = [d for d, c in enumerate(entry) if c == BROADCAST]
            expanded.append(specify_broadcastable(e, *bcast) if bcast else e)
        stock = Elemwise(self.scalar_op)
        stock_outs = stock.make_node(*expanded).outputs
        grads = stock.pullback(expanded, stock_outs, output_grads)
        result = []
        for entry, inp, g in zip(self.pattern, inputs, grads):
            if MISSING in entry and g.type.ndim == len(entry) and not _is_disconnected(g):
                keep = tuple(d for d, c in enumerate(entry) if c != MISSING)
                g = g.dimshuffle(*keep)
            result.append(g)
        return result


def _elemwise_output_types(op: ExplicitElemwise, types: Sequence[TensorType]) -> tuple[TensorType, ...]:
    """The output types of ``op`` on inputs of ``types``, derived without a cache.

    The static shape from the pattern (:func:`output_static_shape`); the
    dtypes from a node of the scalar op on fresh scalars of the input dtypes,
    as stock ``Elemwise.make_node`` does.  Raises what those raise.
    """
    shape = output_static_shape(op.pattern, [t.shape for t in types])
    shadow = op.scalar_op.make_node(*[get_scalar_type(dtype=t.dtype).make_variable() for t in types])
    return tuple(TensorType(o.type.dtype, shape=shape) for o in shadow.outputs)


def _is_disconnected(g: Variable) -> bool:
    from pytensor.gradient import DisconnectedType, NullType

    return isinstance(g.type, (DisconnectedType, NullType))


def _expanded_shape(entry: str, shape: Sequence[int]) -> tuple[int, ...]:
    out = []
    it = iter(shape)
    for c in entry:
        out.append(1 if c == MISSING else next(it))
    return tuple(out)


def explicit_elemwise(scalar_op: ScalarOp, *inputs: Any) -> Variable | list[Variable]:
    """Apply ``scalar_op`` elementwise with the numpy rule read from the inputs' types.

    >>> import pytensor.tensor as pt
    >>> from pytensor.scalar import add
    >>> z = explicit_elemwise(add, pt.scalar("x"), pt.vector("y"))
    >>> z.owner.op
    add{x,*}
    """
    if not inputs:
        raise TypeError("explicit_elemwise needs at least one input")
    inputs = tuple(as_tensor_variable(i) for i in inputs)
    width = max(i.type.ndim for i in inputs)
    pattern = tuple(derive_entry(i.type.shape, width) for i in inputs)
    if width == 0:
        pattern = tuple("" for _ in inputs)
    return ExplicitElemwise(scalar_op, pattern)(*inputs)


class ExplicitAlloc(_ShapeOp):
    """Alloc whose broadcasting of the value is the Op's ``entry``, not the value's static shape.

    Before (stock)::

        Alloc(x, n, m)                 # x: (None,): its length must be m

    After (explicit)::

        Alloc{x*}(x, n, m)

    ``entry`` has one character per output dimension, as in
    :class:`ExplicitElemwise`: ``'x'`` the value has no dimension here,
    ``'1'`` its dimension broadcasts (length 1), ``'*'`` its length must equal
    the requested one.  A replacement value of another ndim re-derives the
    entry from its type (numpy rule: align right).
    """

    __props__ = ("entry",)
    _output_type_depends_on_input_value = True

    def __init__(self, entry: str) -> None:
        self.entry = _check_pattern((entry,))[0]

    def __str__(self) -> str:
        return f"Alloc{{{self.entry}}}"

    # named parameters, as PyTensor's own Alloc.make_node(value, *shape) has (Op.make_node takes *inputs)
    def make_node(self, value: Any, *shape: Any) -> Apply:  # type: ignore[override]
        value = _as_tensor(value)
        if len(shape) != len(self.entry):
            raise TypeError(f"{self} takes {len(self.entry)} shape inputs, got {len(shape)}")
        entry = self.entry
        if len(entry) - entry.count(MISSING) != value.type.ndim:
            entry = derive_entry(value.type.shape, len(shape))
        op = self if entry == self.entry else type(self)(entry)
        lengths = _static_lengths(shape)
        if lengths is not None:
            # the stock output type depends on the value type and the lengths only
            key = (op.entry, value.type, lengths)
            out_type = _ALLOC_TYPES.get(key)
            if out_type is None:
                constants = [s if _is_int_constant(s) else as_tensor_variable(n) for s, n in zip(shape, lengths)]
                out_type = op._stock_node(value, constants).outputs[0].type
                remember(_ALLOC_TYPES, key, out_type)
            inputs = [value, *shape]
            return plain_node(op, inputs, (out_type,)) or Apply(op, inputs, [out_type()])
        # lengths not all known: the stock Alloc folds them (an fgraph and rewrites, slow)
        stock = op._stock_node(value, shape)
        return Apply(op, [value, *stock.inputs[1:]], [stock.outputs[0].type()])

    def _stock_node(self, value: Variable, shape: Sequence[Any]) -> Apply:
        """The stock Alloc node on a value of the type the stock Alloc sees after lowering."""
        from pytensor.tensor.basic import Alloc

        dummy = TensorType(value.type.dtype, shape=self.stock_value_shape(value.type.shape))()
        return Alloc().make_node(dummy, *shape)

    def stock_value_shape(self, static_shape: Sequence[int | None]) -> tuple[int | None, ...]:
        """Static shape of the value the stock Alloc sees after lowering."""
        it = iter(static_shape)
        out: list[int | None] = []
        for c in self.entry:
            if c == MISSING:
                out.append(1)
                continue
            s = next(it)
            out.append(1 if c == BROADCAST else (None if s == 1 else s))
        return tuple(out)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        value = np.asarray(inputs[0])
        shape = tuple(int(s) for s in inputs[1:])
        expanded = value.reshape(_expanded_shape(self.entry, value.shape))
        for d, (c, have, want) in enumerate(zip(self.entry, expanded.shape, shape)):
            if c == BROADCAST and have != 1:
                raise ValueError(broadcast_error(f"the value of {self}", d, False, have))
            if c == KEPT and have != want:
                raise ValueError(broadcast_error(f"the value of {self}", d, True, have))
        output_storage[0][0] = np.array(np.broadcast_to(expanded, shape), dtype=node.outputs[0].type.dtype)

    def _infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]):
        return [tuple(node.inputs[1:])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], *([False] for _ in node.inputs[1:])]

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], output_grads: Sequence[Variable]
    ) -> list[Variable]:
        from pytensor.gradient import disconnected_type

        gz = as_tensor_variable(output_grads[0])  # the gradient itself: a tensor variable already
        summed = [d for d, c in enumerate(self.entry) if c != KEPT]
        g = gz.sum(axis=summed, keepdims=True) if summed else gz
        g = g.dimshuffle(*(d for d, c in enumerate(self.entry) if c != MISSING))
        return [g, *(disconnected_type() for _ in inputs[1:])]


_is_tensor_constant = type_check(TensorConstant, "``isinstance(x, TensorConstant)``, cached per type (an ABC check).")


def _is_int_constant(s: Any) -> bool:
    """``s`` is a 0-d integer tensor constant: the stock Alloc takes it as it is, its length is its value."""
    return _is_tensor_constant(s) and s.type.ndim == 0 and s.type.dtype in integer_dtypes


def _static_lengths(shape: Sequence[Any]) -> tuple[int, ...] | None:
    """The value of every length in ``shape``, if each is a 0-d integer tensor of a value read statically.

    :func:`graph_bridge.shape_values.folded_value` reads constants and small
    graphs over static shapes (microseconds); the stock Alloc's
    ``infer_static_shape`` reaches the same values through a FunctionGraph
    and its shape rewrites (a millisecond).  ``None`` if any length is not
    read that way: the stock Alloc then decides.
    """
    lengths = []
    for s in shape:
        if not is_tensor_variable(s) or s.type.ndim != 0 or s.type.dtype not in integer_dtypes:
            return None
        value = s.data if _is_tensor_constant(s) else folded_value(s)
        if value is None:
            return None
        lengths.append(int(value))
    return tuple(lengths)


def explicit_alloc(value: Any, *shape: Any) -> Variable:
    """``Alloc(value, *shape)`` with the value's broadcasting read from its type, made explicit."""
    value = as_tensor_variable(value)
    return single_output(ExplicitAlloc(derive_entry(value.type.shape, len(shape))), value, *shape)
