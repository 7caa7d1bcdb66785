"""Relations over CAReduce heads: which reduction, along which axes.

A CAReduce node's head term is ``term(builder, *props)``; the props differ
between classes (``Prod`` has ``no_zeros_in_input``, ``Max`` on 3.3 has
``initial``).  These goals relate two heads of the same reduction that differ
only in ``axis``, for every CAReduce class of the vocabulary.
"""

from __future__ import annotations

from typing import Any

from etuples.core import ExpressionTuple
from kanren.core import conde
from unification import var

from graph_bridge import OpBuilder, careduce_builders, term
from graph_bridge.logic import eq, walk

__all__ = ["careduce_heado", "careduce_partso", "full_reductiono"]


def careduce_heado(head: Any, axis: Any, other_head: Any, other_axis: Any):
    """``head`` reduces along ``axis``; ``other_head`` is the same reduction along ``other_axis``.

    Every prop but ``axis`` (scalar op, dtype, acc_dtype, ...) is shared, so a
    rewrite that changes the axes keeps the output dtype.
    """

    def branch(builder):
        slots = [var() for _ in builder.prop_names]
        other = list(slots)
        i = builder.prop_names.index("axis")
        slots[i], other[i] = axis, other_axis
        return [eq(head, term(builder, *slots)), eq(other_head, term(builder, *other))]

    return _by_builder(branch, head, other_head)


def _known_builder(x: Any, S: Any) -> Any:
    """The builder at the root of ``x`` in state ``S``, if ``x`` is a known head term."""
    t = walk(x, S)
    if isinstance(t, ExpressionTuple) and len(t):
        b = t[0]
        return b if isinstance(b, OpBuilder) else None
    return None


def _by_builder(branch, *heads):
    """``conde`` over every CAReduce class, or just the one a known head names."""

    def goal(S):
        for h in heads:
            b = _known_builder(h, S)
            if b is not None:
                if b not in careduce_builders():
                    return iter(())
                return conde(branch(b))(S)
        return conde(*(branch(b) for b in careduce_builders()))(S)

    return goal


def full_reductiono(head: Any):
    """``head`` is a CAReduce over every axis (``axis=None``)."""
    return careduce_heado(head, None, var(), var())


def careduce_partso(head: Any, scalar_op: Any, axis: Any):
    """``head`` is a CAReduce with scalar op ``scalar_op`` along ``axis``."""

    def branch(builder):
        slots = [var() for _ in builder.prop_names]
        slots[builder.prop_names.index("scalar_op")] = scalar_op
        slots[builder.prop_names.index("axis")] = axis
        return [eq(head, term(builder, *slots))]

    return _by_builder(branch, head)
