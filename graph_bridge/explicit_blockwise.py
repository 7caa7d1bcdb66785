"""Blockwise whose batch broadcasting is a property of the Op (pytensor #408, aesara #933).

Stock ``Blockwise.make_node`` left-pads every input with fewer batch
dimensions than the others with a fresh ``ExpandDims``
(``shape_padleft``), and decides at run time which batch dimensions
broadcast from the *static shapes* of the padded inputs.  A replacement of
another rank fails on the padding (``clone_replace`` of ``b`` in
``solve(A, ExpandDims{axis=0}(b))`` by a matrix: "The number of dimensions of
the input is incorrect for this op"), and a refinement of a static length
from ``None`` to ``1`` silently makes a checked dimension broadcast.

:class:`ExplicitBlockwise` records, per input and per *batch* dimension of
the output, the same characters as :class:`graph_bridge.ops.ExplicitElemwise`
(``'x'`` absent, ``'1'`` broadcasts, ``'*'`` must match); core dimensions
are the core Op's and are never part of the pattern.  Rebuilt over inputs of
the same batch rank, an input keeps its entry whatever its new static
shape; an input of another batch rank gets its entry re-derived from its
type (numpy rule: align right), the others align right to the new batch
rank.  ``vectorize_graph`` puts its new dims in front of the old batch dims
instead (:func:`vectorized_pattern`); that is the vectorization registered
for this Op, and for ``ExplicitElemwise`` and ``ExplicitAlloc`` too, so a
normalized graph vectorizes into explicit nodes (not a Blockwise of them).

The helpers :func:`fit_batch_pattern`, :func:`expanded_value_shape` and
:func:`batch_entries` are shared with
:class:`graph_bridge.random_variables.ExplicitRandomVariable`.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.op import Op
from pytensor.graph.replace import _vectorize_node
from pytensor.tensor.basic import as_tensor_variable, constant
from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.shape import Shape_i
from pytensor.tensor.type import TensorType, tensor
from pytensor.tensor.utils import _parse_gufunc_signature

from graph_bridge.building import single_output
from graph_bridge.ops import (
    BROADCAST,
    KEPT,
    MISSING,
    ExplicitAlloc,
    ExplicitElemwise,
    broadcast_error,
    derive_entry,
    entry_order,
    output_static_shape,
)
from logic_core.memo import remember

__all__ = [
    "ExplicitBlockwise",
    "NodeOutputs",
    "batch_entries",
    "check_batch_pattern",
    "check_broadcast_dims",
    "check_kept_dims",
    "drop_missing",
    "expand_batch",
    "expanded_value_shape",
    "explicit_blockwise",
    "fit_batch_pattern",
    "infer_shape_method",
    "vectorized_pattern",
]

_TAKES_FGRAPH = "fgraph" in inspect.signature(Blockwise.infer_shape).parameters


def infer_shape_method(cls: type[Any]) -> type[Any]:
    """Give ``cls`` an ``infer_shape`` of the installed PyTensor's signature, calling ``cls._shapes``.

    PyTensor 3.3 dropped the ``fgraph`` parameter of ``Op.infer_shape``.
    """
    if _TAKES_FGRAPH:

        def infer_shape(self, fgraph, node, input_shapes):
            return self._shapes(node, input_shapes)

    else:
        # the signature of the installed PyTensor's infer_shape (3.0 passes fgraph, 3.3 does not)
        def infer_shape(self, node, input_shapes):  # type: ignore[misc]
            return self._shapes(node, input_shapes)

    cls.infer_shape = infer_shape
    return cls


def check_batch_pattern(pattern: Any, nin: int, who: str) -> tuple[str, ...]:
    """``pattern`` as a tuple of ``nin`` entries of one length over ``'x'``, ``'1'``, ``'*'``."""
    if not isinstance(pattern, (tuple, list)) or not all(isinstance(e, str) for e in pattern):
        raise TypeError(f"pattern of {who} must be a tuple of strings, got {pattern!r}")
    pattern = tuple(pattern)
    if len(pattern) != nin:
        raise ValueError(f"pattern of {who} must have one entry per input ({nin}), got {len(pattern)}")
    if len({len(e) for e in pattern}) > 1:
        raise ValueError(f"pattern entries of {who} must all have the output's batch ndim, got {pattern!r}")
    for e in pattern:
        if set(e) - {MISSING, BROADCAST, KEPT}:
            raise ValueError(f"pattern entry {e!r} of {who} has characters other than 'x', '1', '*'")
    return pattern


def batch_entries(batch_shapes: Sequence[Sequence[int | None]], width: int | None = None) -> tuple[str, ...]:
    """The numpy-rule entries of inputs with these static batch shapes (``width``: the output batch ndim)."""
    if width is None:
        width = max((len(s) for s in batch_shapes), default=0)
    return tuple(derive_entry(tuple(s), width) for s in batch_shapes)


def fit_batch_pattern(
    pattern: tuple[str, ...], batch_shapes: Sequence[Sequence[int | None]], width: int | None = None
) -> tuple[str, ...]:
    """``pattern`` refitted to inputs of these batch shapes.

    An input whose batch rank is its entry's (its non-``'x'`` count) keeps
    the entry; another one's entry is derived from its static batch shape
    (numpy rule).  All align right to the output batch rank: ``width`` when
    given (a ``size``), else the widest entry, with the leading dims that
    no input has dropped (numpy rule).
    """
    kept: list[str | None] = []
    for entry, shape in zip(pattern, batch_shapes):
        own = len(entry) - entry.count(MISSING)
        kept.append(entry.lstrip(MISSING) if own == len(shape) else None)
    if width is None:
        width = max([len(e) for e in kept if e is not None] + [len(s) for e, s in zip(kept, batch_shapes) if e is None])
    entries = []
    for e, shape in zip(kept, batch_shapes):
        if e is None:
            entries.append(derive_entry(tuple(shape), width))
        elif len(e) > width:
            raise ValueError(f"an input with {len(e)} batch dims does not fit {width} output batch dims")
        else:
            entries.append(MISSING * (width - len(e)) + e)
    return tuple(entries)


def expanded_value_shape(entry: str, shape: Sequence[int]) -> tuple[int, ...]:
    """The shape of a value under ``entry`` with its ``'x'`` batch dims inserted (core dims follow)."""
    out = []
    it = iter(shape)
    for c in entry:
        out.append(1 if c == MISSING else next(it))
    return (*out, *it)


def _own_axis(entry: str, d: int) -> int:
    return d - entry[:d].count(MISSING)


def check_broadcast_dims(who: str, entry: str, shape: Sequence[int]) -> None:
    """Raise (naming ``who``) when a ``'1'`` batch dim of a value of ``shape`` has a length other than 1."""
    for d, c in enumerate(entry):
        if c == BROADCAST and shape[_own_axis(entry, d)] != 1:
            raise ValueError(broadcast_error(who, d, False, shape[_own_axis(entry, d)]))


def check_kept_dims(
    who: str, pattern: Sequence[str], shapes: Sequence[Sequence[int]], fixed: Sequence[int] | None
) -> None:
    """Raise when ``'*'`` batch dims of the values disagree with each other (or with ``fixed`` lengths)."""
    for d in range(len(pattern[0]) if pattern else 0):
        want = None if fixed is None else int(fixed[d])
        for i, (entry, shape) in enumerate(zip(pattern, shapes)):
            if entry[d] != KEPT:
                continue
            have = shape[_own_axis(entry, d)]
            if want is None:
                want = have
            elif have != want:
                raise ValueError(broadcast_error(f"input {i} of {who}", d, True, have))


def expand_batch(x: Variable, entry: str) -> Variable:
    """``x`` with its ``'x'`` batch dims added and its ``'1'`` dims declared broadcastable (a graph)."""
    from pytensor.tensor.shape import specify_broadcastable

    core = x.type.ndim - (len(entry) - entry.count(MISSING))
    full = entry + KEPT * core
    e = single_output(DimShuffle(input_ndim=x.type.ndim, new_order=entry_order(full)), x) if MISSING in entry else x
    ones = [d for d, c in enumerate(entry) if c == BROADCAST and e.type.shape[d] != 1]
    return specify_broadcastable(e, *ones) if ones else e


def drop_missing(g: Variable, entry: str) -> Variable:
    """The gradient ``g`` of an expanded input, with the input's ``'x'`` batch dims dropped."""
    from pytensor.gradient import DisconnectedType, NullType
    from pytensor.tensor.shape import specify_broadcastable

    if MISSING not in entry or isinstance(g.type, (DisconnectedType, NullType)):
        return g
    missing = [d for d, c in enumerate(entry) if c == MISSING]
    unknown = [d for d in missing if g.type.shape[d] != 1]
    if unknown:
        g = specify_broadcastable(g, *unknown)
    return as_tensor_variable(g).dimshuffle(*[d for d in range(g.type.ndim) if d not in missing])


_TYPES: dict[tuple, tuple[TensorType, ...]] = {}


@infer_shape_method
class ExplicitBlockwise(Op):
    """Blockwise whose batch broadcasting is the Op's ``pattern``, not its inputs' static shapes.

    Before (stock)::

        Blockwise{Solve}(A, ExpandDims{axis=0}(b))       # A: (None, 3, 3), b: (3,)

    After (explicit)::

        Blockwise{Solve}{*,x}(A, b)

    ``pattern`` has one entry per input, one character per batch dimension of
    the output.  Graphs in this form evaluate as they are (``perform`` runs
    the stock Blockwise on the expanded values); the lowering pass gives the
    stock form back before PyTensor's rewrites and backends run.
    """

    __props__ = ("core_op", "signature", "pattern")

    def __init__(self, core_op: Op, signature: str, pattern: Sequence[str]) -> None:
        if not isinstance(core_op, Op) or isinstance(core_op, (Blockwise, ExplicitBlockwise)):
            raise TypeError(f"core_op must be a core (not Blockwise) Op, got {core_op!r}")
        if getattr(core_op, "destroy_map", None):
            raise ValueError(f"core_op must not work in place, got {core_op} with destroy_map {core_op.destroy_map}")
        if not isinstance(signature, str):
            raise TypeError(f"signature must be a gufunc signature string, got {signature!r}")
        self.core_op = core_op
        self.signature = signature
        self.inputs_sig, self.outputs_sig = _parse_gufunc_signature(signature)
        self.pattern = check_batch_pattern(pattern, len(self.inputs_sig), f"Blockwise{{{core_op}}}")

    def __str__(self) -> str:
        return f"Blockwise{{{self.core_op}}}{{{','.join(self.pattern)}}}"

    @property
    def batch_ndim(self) -> int:
        return len(self.pattern[0])

    def batch_shapes(self, types: Sequence[TensorType]) -> list[tuple[int | None, ...]]:
        """The static batch shapes of inputs of ``types`` (their leading dims before the core dims)."""
        out = []
        for i, (t, sig) in enumerate(zip(types, self.inputs_sig)):
            if t.ndim < len(sig):
                raise ValueError(f"input {i} of {self} has {t.ndim} dims, fewer than its {len(sig)} core dims")
            out.append(t.shape[: t.ndim - len(sig)])
        return out

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.inputs_sig):
            raise TypeError(f"{self} takes {len(self.inputs_sig)} inputs, got {len(inputs)}")
        ins = [as_tensor_variable(i) for i in inputs]
        types = tuple(i.type for i in ins)
        pattern = fit_batch_pattern(self.pattern, self.batch_shapes(types))
        op = self if pattern == self.pattern else type(self)(self.core_op, self.signature, pattern)
        return Apply(op, ins, [t() for t in op.output_types(types)])

    def output_types(self, types: Sequence[TensorType]) -> tuple[TensorType, ...]:
        """Output types on inputs of ``types``: batch shape from the pattern, core from the core Op (remembered)."""
        key = (self, tuple(types))
        hit = _TYPES.get(key)
        if hit is not None:
            return hit
        batch = output_static_shape(self.pattern, self.batch_shapes(types)) if self.batch_ndim else ()
        core_inputs = [
            tensor(dtype=t.dtype, shape=t.shape[t.ndim - len(sig) :]) for t, sig in zip(types, self.inputs_sig)
        ]
        core = self.core_op.make_node(*core_inputs)
        out = tuple(TensorType(o.type.dtype, shape=(*batch, *o.type.shape)) for o in core.outputs)
        return remember(_TYPES, key, out)

    def stock_types(self, inputs: Sequence[Variable]) -> list[TensorType]:
        """Types of the expanded inputs the stock Blockwise sees (``'*'`` batch dims of unknown length)."""
        out = []
        for entry, inp, sig in zip(self.pattern, inputs, self.inputs_sig):
            core = inp.type.shape[inp.type.ndim - len(sig) :]
            batch = tuple(None if c == KEPT else 1 for c in entry)
            out.append(TensorType(inp.type.dtype, shape=(*batch, *core)))
        return out

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        arrays = []
        for i, (entry, value) in enumerate(zip(self.pattern, inputs)):
            value = np.asarray(value)
            check_broadcast_dims(f"input {i} of {self}", entry, value.shape)
            arrays.append(value.reshape(expanded_value_shape(entry, value.shape)))
        shadow = getattr(node.tag, "stock_node", None)
        if shadow is None:
            stock = Blockwise(self.core_op, self.signature)
            shadow = node.tag.stock_node = stock.make_node(*[t() for t in self.stock_types(node.inputs)])
        # the stock perform checks that no '*' dim of length 1 meets a longer one
        shadow.op.perform(shadow, arrays, output_storage)

    def _shapes(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[tuple]:
        nb = self.batch_ndim
        out_static = node.outputs[0].type.shape
        batch = []
        for d in range(nb):
            if out_static[d] is not None:
                batch.append(constant(np.int64(out_static[d])))
                continue
            i = next(i for i, e in enumerate(self.pattern) if e[d] == KEPT)
            batch.append(input_shapes[i][_own_axis(self.pattern[i], d)])
        core_dims: dict[str, Any] = {}
        for shape, sig in zip(input_shapes, self.inputs_sig):
            for name, dim in zip(sig, shape[len(shape) - len(sig) :]):
                core_dims.setdefault(name, dim)
        shapes = []
        for out, sig in zip(node.outputs, self.outputs_sig):
            core: list[Any] = []
            for k, name in enumerate(sig):
                static = out.type.shape[nb + k]
                if static is not None:
                    core.append(constant(np.int64(static)))
                elif name in core_dims:
                    core.append(core_dims[name])
                else:
                    core.append(Shape_i(nb + k)(out))
            shapes.append((*batch, *core))
        return shapes

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        if hasattr(self.core_op, "connection_pattern"):
            return self.core_op.connection_pattern(node)
        return [[True for _ in node.outputs] for _ in node.inputs]

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], output_grads: Sequence[Variable]
    ) -> list[Variable]:
        # the stock Blockwise on the expanded inputs, differentiated; its gradients
        # are summed over broadcast batch dims and keep them, so drop the 'x' dims after
        expanded = [expand_batch(inp, entry) for inp, entry in zip(inputs, self.pattern)]
        stock = Blockwise(self.core_op, self.signature)
        stock_outs = stock.make_node(*expanded).outputs
        grads = stock.pullback(expanded, stock_outs, output_grads)
        return [drop_missing(g, entry) for g, entry in zip(grads, self.pattern)]


def explicit_blockwise(core_op: Op, *inputs: Any, signature: str | None = None) -> Variable | list[Variable]:
    """``Blockwise(core_op)(*inputs)`` with the batch broadcasting read from the inputs' types, made explicit."""
    signature = signature or getattr(core_op, "gufunc_signature", None)
    if signature is None:
        raise ValueError(f"signature not given, and core_op {core_op} has no gufunc_signature")
    ins = [as_tensor_variable(i) for i in inputs]
    ins_sig, _ = _parse_gufunc_signature(signature)
    shapes = [i.type.shape[: i.type.ndim - len(s)] for i, s in zip(ins, ins_sig)]
    node = ExplicitBlockwise(core_op, signature, batch_entries(shapes)).make_node(*ins)
    return node.outputs[0] if len(node.outputs) == 1 else list(node.outputs)


def vectorized_pattern(pattern: tuple[str, ...], old: Sequence[Variable], new: Sequence[Variable]) -> tuple[str, ...]:
    """``pattern`` with the leading dims ``vectorize_graph`` adds to some inputs in front.

    An input ``new[i]`` with ``e`` more dims than ``old[i]`` gets its ``e``
    new leading dims derived from their static lengths (numpy rule) before
    its old entry; every entry is then left-padded with ``'x'`` to the most
    new dims.  (A ``clone_replace`` re-derives the whole entry instead.)
    """
    extra = [n.type.ndim - o.type.ndim for o, n in zip(old, new)]
    k = max(extra, default=0)
    if k <= 0:
        return pattern
    out = []
    for entry, e, n in zip(pattern, extra, new):
        lead = derive_entry(n.type.shape[:e], e) if e > 0 else ""
        out.append(MISSING * (k - max(e, 0)) + lead + entry)
    return tuple(out)


@_vectorize_node.register(ExplicitBlockwise)
def _vectorize_explicit_blockwise(op: ExplicitBlockwise, node: Apply, *batched_inputs: Variable) -> Apply:
    """New leading batch dims in front of each input's entry (:func:`vectorized_pattern`)."""
    pattern = vectorized_pattern(op.pattern, node.inputs, batched_inputs)
    return type(op)(op.core_op, op.signature, pattern).make_node(*batched_inputs)


@_vectorize_node.register(ExplicitElemwise)
def _vectorize_explicit_elemwise(op: ExplicitElemwise, node: Apply, *batched_inputs: Variable) -> Apply:
    """As for Blockwise: new leading dims in front of each input's entry."""
    pattern = vectorized_pattern(op.pattern, node.inputs, batched_inputs)
    return ExplicitElemwise(op.scalar_op, pattern).make_node(*batched_inputs)


@_vectorize_node.register(ExplicitAlloc)
def _vectorize_explicit_alloc(op: ExplicitAlloc, node: Apply, value: Variable, *shape: Variable) -> Apply:
    """New leading dims of the value: requested in front of the old lengths, the entry's in front of its.

    Lengths that are themselves batched are left to PyTensor's fallback (a Blockwise of the Alloc).
    """
    from pytensor.tensor.blockwise import vectorize_node_fallback

    k = value.type.ndim - node.inputs[0].type.ndim
    if k <= 0 or any(s.type.ndim != 0 for s in shape):
        return vectorize_node_fallback(op, node, value, *shape)
    entry = derive_entry(value.type.shape[:k], k) + op.entry
    lengths = as_tensor_variable(value).shape
    return ExplicitAlloc(entry).make_node(value, *[lengths[i] for i in range(k)], *shape)


class NodeOutputs:
    """A term head: ``NodeOutputs(op)(*inputs)`` is the list of ``op.make_node(*inputs)``'s outputs.

    ``OutputOf(i)`` of such a term picks one output.  A RandomVariable's
    ``__call__`` takes its parameters (not ``(rng, size, *params)``) and
    returns only the draw, so a relation that builds a stock RV node uses
    this head.  Equal when the Ops are equal.
    """

    __slots__ = ("op",)

    def __init__(self, op: Op) -> None:
        self.op = op

    def __call__(self, *inputs: Any) -> list[Variable]:
        return list(self.op.make_node(*inputs).outputs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeOutputs) and other.op == self.op

    def __hash__(self) -> int:
        return hash((NodeOutputs, self.op))

    def __repr__(self) -> str:
        return f"NodeOutputs({self.op})"
