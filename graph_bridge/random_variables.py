"""RandomVariable whose batch broadcasting is a property of the Op (pytensor #408, aesara #933).

Stock ``RandomVariable.make_node`` left-pads each distribution parameter
with an ``ExpandDims`` (``explicit_expand_dims``) to the batch rank of the
draw (``len(size)``, or the widest parameter); ``pt.random.normal(mu, s,
size=(4, 3))`` with a scalar ``mu`` and a vector ``s`` pads both.  A
replacement of another rank then fails on the padding, as for Elemwise.

:class:`ExplicitRandomVariable` wraps the stock RV Op (``rv_op``) and a
``pattern``: per parameter, one character per batch dimension of the draw
(``'x'``, ``'1'``, ``'*'``, as in :class:`graph_bridge.ops.ExplicitElemwise`);
the support (core) dims are the RV's own.  Its inputs are the stock node's,
``(rng, size, *params)``, with the parameters unpadded; its outputs the
stock node's, ``(next_rng, draw)``.  ``perform`` expands the parameter
values and calls the stock Op's ``perform``, so the draws are the stock
draws for the same generator state, bit for bit.

A ``'*'`` batch dim whose length differs from the others' (or from
``size``) raises at run time: stock ``RandomVariable.perform`` lets numpy
broadcast a length-1 parameter there while its Numba implementation raises;
the explicit Op takes the strict reading, as Elemwise does (and lowering
adds an ``Assert`` where a static shape would make the stock Op broadcast).

The same code serves PyTensor 3.0 and 3.3: both lines build an RV node the
same way (``(rng, size, *params)`` with padded parameters); 3.3 only drops
``infer_shape``'s ``fgraph`` parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.replace import _vectorize_node
from pytensor.tensor.basic import as_tensor_variable, concatenate, get_vector_length
from pytensor.tensor.random.op import RandomVariable, RNGConsumerOp
from pytensor.tensor.random.type import RandomType
from pytensor.tensor.random.utils import normalize_size_param
from pytensor.tensor.type import TensorType
from pytensor.tensor.type_other import NoneTypeT

from graph_bridge.explicit_blockwise import (
    batch_entries,
    check_batch_pattern,
    check_broadcast_dims,
    check_kept_dims,
    expand_batch,
    expanded_value_shape,
    fit_batch_pattern,
    infer_shape_method,
    vectorized_pattern,
)
from graph_bridge.ops import KEPT

__all__ = ["ExplicitRandomVariable", "explicit_random_variable", "size_length"]


def size_length(size: Variable) -> int | None:
    """The number of entries of an RV's ``size`` input, ``None`` for no size."""
    return None if isinstance(size.type, NoneTypeT) else get_vector_length(size)


@infer_shape_method
class ExplicitRandomVariable(RNGConsumerOp):
    """A RandomVariable whose parameters' batch broadcasting is the Op's ``pattern``.

    Before (stock)::

        normal_rv(rng, [4 3], ExpandDims{axes=(0, 1)}(mu), ExpandDims{axis=0}(s))

    After (explicit)::

        normal_rv{xx,x*}(rng, [4 3], mu, s)

    Outputs ``(next_rng, draw)`` as the stock node's; call
    :func:`explicit_random_variable` for the draw.
    """

    __props__ = ("rv_op", "pattern")

    def __init__(self, rv_op: RandomVariable, pattern: Sequence[str]) -> None:
        if not isinstance(rv_op, RandomVariable):
            raise TypeError(f"rv_op must be a RandomVariable, got {rv_op!r}")
        if rv_op.inplace:
            raise ValueError(f"rv_op must not work in place, got {rv_op}")
        self.rv_op = rv_op
        self.pattern = check_batch_pattern(pattern, len(rv_op.ndims_params), f"{rv_op}")

    def __str__(self) -> str:
        return f"{self.rv_op.name}_rv{{{','.join(self.pattern)}}}"

    # the stock Op's facts, for code that asks an RV for them
    @property
    def ndim_supp(self) -> int:
        return self.rv_op.ndim_supp

    @property
    def ndims_params(self) -> Sequence[int]:
        return self.rv_op.ndims_params

    @property
    def dtype(self) -> str | None:
        return self.rv_op.dtype

    def rng_param(self, node: Apply) -> Variable:
        return node.inputs[0]

    def size_param(self, node: Apply) -> Variable:
        return node.inputs[1]

    def dist_params(self, node: Apply) -> Sequence[Variable]:
        return node.inputs[2:]

    def update(self, node: Apply) -> dict[Variable, Variable]:
        return {node.inputs[0]: node.outputs[0]}

    # -- building -------------------------------------------------------
    def batch_shapes(self, params: Sequence[Variable]) -> list[tuple[int | None, ...]]:
        out = []
        for i, (p, nd) in enumerate(zip(params, self.rv_op.ndims_params)):
            if p.type.ndim < nd:
                raise ValueError(f"parameter {i} of {self} has {p.type.ndim} dims, fewer than its {nd} core dims")
            out.append(p.type.shape[: p.type.ndim - nd])
        return out

    # named parameters, as PyTensor's own RandomVariable.make_node(rng, size, *dist_params) has
    def make_node(self, rng: Any, size: Any, *params: Any) -> Apply:  # type: ignore[override]
        if len(params) != len(self.pattern):
            raise TypeError(f"{self} takes {len(self.pattern)} parameters, got {len(params)}")
        if not isinstance(getattr(rng, "type", None), RandomType):
            raise TypeError(f"rng of {self} must be a random generator variable, got {rng!r}")
        size = normalize_size_param(size)
        tensors = [as_tensor_variable(p) for p in params]
        pattern = fit_batch_pattern(self.pattern, self.batch_shapes(tensors), size_length(size))
        op = self if pattern == self.pattern else type(self)(self.rv_op, pattern)
        stock = op.rv_op.make_node(rng, size, *[t() for t in op.stock_types(tensors)])
        return Apply(op, [rng, size, *tensors], [rng.type(), stock.outputs[1].type()])

    def stock_types(self, params: Sequence[Variable]) -> list[TensorType]:
        """Types of the expanded parameters the stock RV sees (a ``'*'`` dim of static 1: unknown)."""
        out = []
        for entry, p, nd in zip(self.pattern, params, self.rv_op.ndims_params):
            own = iter(p.type.shape)
            batch = []
            for c in entry:
                if c == KEPT:
                    s = next(own)
                    batch.append(None if s == 1 else s)
                else:
                    batch.append(1)
                    if c != "x":
                        next(own)
            out.append(TensorType(p.type.dtype, shape=(*batch, *p.type.shape[p.type.ndim - nd:])))
        return out

    # -- evaluation -----------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        rng, size, *params = inputs
        arrays, shapes = [], []
        for i, (entry, value) in enumerate(zip(self.pattern, params)):
            value = np.asarray(value)
            check_broadcast_dims(f"parameter {i} of {self}", entry, value.shape)
            shapes.append(value.shape)
            arrays.append(value.reshape(expanded_value_shape(entry, value.shape)))
        check_kept_dims(str(self), self.pattern, shapes, None if size is None else tuple(size))
        self.rv_op.perform(node, [rng, size, *arrays], output_storage)

    def _shapes(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list:
        _, size, *params = node.inputs
        expanded = [expand_batch(p, e) for p, e in zip(params, self.pattern)]
        shapes = [expanded_value_shape(e, tuple(s)) for e, s in zip(self.pattern, input_shapes[2:])]
        # PyTensor types these as tensor variables and tuples of variables; they are (and the lengths may be ints)
        shape = self.rv_op._infer_shape(size, expanded, param_shapes=shapes)  # type: ignore[arg-type]
        return [None, list(shape)]

    def pullback(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], output_grads: Sequence[Variable]
    ) -> list[Variable]:
        return self.rv_op.pullback(inputs, outputs, output_grads)


def explicit_random_variable(rv_op: RandomVariable, rng: Variable, size: Any, *params: Any) -> Variable:
    """The draw of ``rv_op(*params, size=size, rng=rng)`` with its parameters' broadcasting made explicit."""
    size = normalize_size_param(size)
    tensors = [as_tensor_variable(p) for p in params]
    shapes = [p.type.shape[: p.type.ndim - nd] for p, nd in zip(tensors, rv_op.ndims_params)]
    pattern = batch_entries(shapes, size_length(size))
    return ExplicitRandomVariable(rv_op, pattern).make_node(rng, size, *tensors).outputs[1]


@_vectorize_node.register(ExplicitRandomVariable)
def _vectorize_explicit_rv(op: ExplicitRandomVariable, node: Apply, rng, size, *params) -> Apply:
    """New leading batch dims of the parameters; an unchanged ``size`` gets them in front (as stock)."""
    old_size = node.inputs[1]
    k = max(p.type.ndim - o.type.ndim for p, o in zip(params, node.inputs[2:]))
    if k > 0 and size is old_size and not isinstance(size.type, NoneTypeT):
        from pytensor.tensor.extra_ops import broadcast_shape

        lead = []
        for p, o in zip(params, node.inputs[2:]):
            extra = p.type.ndim - o.type.ndim
            lead.append((1,) * (k - extra) + tuple(p.shape[i] for i in range(extra)))
        new = broadcast_shape(*lead, arrays_are_shapes=True)
        size = concatenate([as_tensor_variable(new).astype(size.type.dtype), size])
    pattern = vectorized_pattern(op.pattern, node.inputs[2:], params)
    return type(op)(op.rv_op, pattern).make_node(rng, size, *params)
