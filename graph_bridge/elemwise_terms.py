"""An Elemwise's operands with their broadcast entries, and Elemwise and DimShuffle terms as PyTensor builds them.

Shared by the node relations ``elemwise_operandso`` / ``elemwise_firsto`` of
:mod:`graph_bridge.node_relations` and the reductions family
(:mod:`relations.rules.reductions.reduction_terms`):

- :func:`operand_entries`: an Elemwise's operands with their broadcast entries;
- :func:`dimshuffled`: a DimShuffle term, or the term itself for the identity order;
- :func:`elemwise_like`: an Elemwise term as PyTensor builds it (lower-rank parts expanded on the left).
"""

from __future__ import annotations

from typing import Any

from pytensor.graph.basic import Variable
from pytensor.tensor.elemwise import DimShuffle, Elemwise

from graph_bridge.nodes import absorb_expansion
from graph_bridge.ops import ExplicitElemwise
from graph_bridge.terms import elemwise_term, term, term_variable
from graph_bridge.vocabulary import builder_for

__all__ = ["dimshuffled", "elemwise_like", "operand_entries"]

DS = builder_for(DimShuffle)


def operand_entries(v: Variable) -> tuple[Any, tuple, tuple] | None:
    """``(scalar_op, inputs, entries)`` of a one-output Elemwise, stock (not inplace) or explicit.

    An entry has one character per output dim (``'x'`` missing, ``'1'``
    broadcast, ``'*'`` kept); a stock input's expanding DimShuffle is read
    through (its input and ``'x'`` entries).
    """
    node = v.owner
    if node is None or len(node.outputs) != 1:
        return None
    if type(node.op) is ExplicitElemwise:
        return node.op.scalar_op, tuple(node.inputs), tuple(node.op.pattern)
    if type(node.op) is Elemwise and not node.op.inplace_pattern:
        found = [absorb_expansion(i) for i in node.inputs]
        return node.op.scalar_op, tuple(u for u, _ in found), tuple(e for _, e in found)
    return None


def dimshuffled(u: Any, ndim: int, order: tuple) -> Any:
    """``DimShuffle{order}(u)`` (``u`` of ``ndim`` dims), or ``u`` for the identity order."""
    if order == tuple(range(ndim)):
        return u
    return term(term(DS, ndim, order), u)


def _ndim(t: Any) -> int:
    v = term_variable(t)
    if v is None:
        raise ValueError(f"a built part has no variable: {t}")
    return v.type.ndim


def elemwise_like(scalar_op: Any, *parts: Any) -> Any:
    """``Elemwise(scalar_op)(*parts)`` as PyTensor builds it: lower-rank parts expanded on the left."""
    ndims = [_ndim(t) for t in parts]
    n = max(ndims)
    parts = tuple(
        t if k == n else dimshuffled(t, k, ("x",) * (n - k) + tuple(range(k))) for t, k in zip(parts, ndims)
    )
    return term(elemwise_term(scalar_op), *parts)

