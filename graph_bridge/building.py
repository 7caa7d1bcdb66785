"""Calling an Op on the arguments of a term, with a short way for the Ops rules build most.

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
the Op, which is remembered too).  Anything else goes through
``Op.__call__`` as before.

Before / after (``exp(x) * y`` built by a rule, ``x``, ``y`` vectors)::

    Elemwise{mul}(exp(x), y): make_node -> get_output_info -> scalar node, shapes
    Elemwise{mul}(exp(x), y): remembered types of (mul, (vector, vector)) -> Apply
"""

from __future__ import annotations

from typing import Any

from pytensor import config
from pytensor.graph.basic import Apply
from pytensor.tensor import math as ptm
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.type import TensorType
from pytensor.tensor.variable import TensorVariable

from graph_bridge.memo import remember

__all__ = ["call_op"]

#: (id of the Op, floatX, cast_policy, input types) -> (the Op, the node's Op, its output types)
_TYPES: dict[tuple, tuple[Any, Any, tuple[TensorType, ...]]] = {}
_REDUCTIONS = frozenset(
    c for c in (CAReduce, ptm.Sum, ptm.Prod, ptm.Max, ptm.Min, ptm.All, ptm.Any) if isinstance(c, type)
)


def call_op(op: Any, args: list) -> Any:
    """``op(*args)``: the new output (or outputs), built from remembered types when it can be."""
    if _remembers(op) and _no_test_values():
        node = _remembered_node(op, args)
        if node is not None:
            outs = node.outputs
            return outs[0] if len(outs) == 1 else outs
    return op(*args)


def _remembers(op: Any) -> bool:
    """Ops whose ``make_node`` output depends on the Op and the input types only.

    A stock (not inplace) Elemwise, a reduction (CAReduce, whose
    ``make_node`` may return a copy of the Op with the axis and dtypes
    resolved) and a DimShuffle.
    """
    cls = type(op)
    if cls is Elemwise:
        return not op.inplace_pattern
    return cls is DimShuffle or (cls in _REDUCTIONS)


def _no_test_values() -> bool:
    """Test values are off (``Op.__call__`` computes them otherwise; PyTensor 3.3 has none)."""
    return getattr(config, "compute_test_value", "off") == "off"


def _remembered_node(op: Any, args: list) -> Apply | None:
    """What ``op.make_node(*args)`` gives, or ``None`` when it may differ from a remembered call."""
    ndim = None
    for a in args:
        if not (isinstance(a, TensorVariable) and type(a.type) is TensorType):
            return None
        if ndim is None:
            ndim = a.type.ndim
        elif a.type.ndim != ndim:
            return None  # Elemwise.make_node pads the lower-rank inputs with DimShuffles
    types = tuple(a.type for a in args)
    key = (id(op), config.floatX, config.cast_policy, types)
    hit = _TYPES.get(key)
    if hit is not None and hit[0] is op:
        return Apply(hit[1], list(args), [t() for t in hit[2]])
    node = op.make_node(*args)
    if len(node.inputs) == len(args) and all(a is b for a, b in zip(node.inputs, args)):
        remember(_TYPES, key, (op, node.op, tuple(o.type for o in node.outputs)))
    return node
