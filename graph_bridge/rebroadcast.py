"""Deriving explicit broadcast patterns again from the current input types."""

from __future__ import annotations

from collections.abc import Sequence

from pytensor.graph.basic import Apply, Variable

from graph_bridge.explicit_blockwise import ExplicitBlockwise, batch_entries
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise, derive_entry
from graph_bridge.random_variables import ExplicitRandomVariable, size_length
from graph_bridge.traverse import rebuild

__all__ = ["rebroadcast_outputs"]


def _rederived(v: Variable, inputs: list[Variable]) -> Apply | None:
    op = v.owner.op
    if isinstance(op, ExplicitElemwise):
        width = max(i.type.ndim for i in inputs)
        pattern = tuple(derive_entry(i.type.shape, width) for i in inputs)
        if pattern == op.pattern and all(a is b for a, b in zip(inputs, v.owner.inputs)):
            return None
        return ExplicitElemwise(op.scalar_op, pattern).make_node(*inputs)
    if isinstance(op, ExplicitAlloc):
        value, *shape = inputs
        entry = derive_entry(value.type.shape, len(shape))
        if entry == op.entry and all(a is b for a, b in zip(inputs, v.owner.inputs)):
            return None
        return ExplicitAlloc(entry).make_node(value, *shape)
    if isinstance(op, (ExplicitBlockwise, ExplicitRandomVariable)):
        return _rederived_batched(v, op, inputs)
    return None


def _rederived_batched(v: Variable, op, inputs: list[Variable]) -> Apply | None:
    """A batched explicit node with the pattern derived from its inputs' static batch shapes."""
    new_op: ExplicitBlockwise | ExplicitRandomVariable
    if isinstance(op, ExplicitBlockwise):
        shapes = op.batch_shapes([i.type for i in inputs])
        pattern = batch_entries(shapes)
        new_op = ExplicitBlockwise(op.core_op, op.signature, pattern)
    else:
        rng, size, *params = inputs
        pattern = batch_entries(op.batch_shapes(params), size_length(size))
        new_op = ExplicitRandomVariable(op.rv_op, pattern)
    if pattern == op.pattern and all(a is b for a, b in zip(inputs, v.owner.inputs)):
        return None
    return new_op.make_node(*inputs)


def rebroadcast_outputs(outputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` with every explicit Op's pattern derived from its inputs' types (numpy rule).

    Nodes above a changed one are rebuilt (``clone_with_new_inputs``,
    ``strict=False``), so their types follow; the input graph is not changed.
    """
    return rebuild(outputs, transform=_rederived)
