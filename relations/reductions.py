"""Relations over CAReduce heads: which reduction, along which axes.

A CAReduce node's head term is ``term(builder, *props)``; the props differ
between classes (``Prod`` has ``no_zeros_in_input``, ``Max`` on 3.3 has
``initial``).  These goals relate two heads of the same reduction that differ
only in ``axis``, for every CAReduce class of the vocabulary.
"""

from __future__ import annotations

from typing import Any

from kanren.core import conde
from unification import var

from graph_bridge import careduce_builders, term
from graph_bridge.logic import eq

__all__ = ["careduce_heado", "careduce_partso", "full_reductiono"]


def careduce_heado(head: Any, axis: Any, other_head: Any, other_axis: Any):
    """``head`` reduces along ``axis``; ``other_head`` is the same reduction along ``other_axis``.

    Every prop but ``axis`` (scalar op, dtype, acc_dtype, ...) is shared, so a
    rewrite that changes the axes keeps the output dtype.
    """
    branches = []
    for builder in careduce_builders():
        slots = [var() for _ in builder.prop_names]
        other = list(slots)
        i = builder.prop_names.index("axis")
        slots[i], other[i] = axis, other_axis
        branches.append(
            [eq(head, term(builder, *slots)), eq(other_head, term(builder, *other))]
        )
    return conde(*branches)


def full_reductiono(head: Any):
    """``head`` is a CAReduce over every axis (``axis=None``)."""
    return careduce_heado(head, None, var(), var())


def careduce_partso(head: Any, scalar_op: Any, axis: Any):
    """``head`` is a CAReduce with scalar op ``scalar_op`` along ``axis``."""
    branches = []
    for builder in careduce_builders():
        slots = [var() for _ in builder.prop_names]
        slots[builder.prop_names.index("scalar_op")] = scalar_op
        slots[builder.prop_names.index("axis")] = axis
        branches.append([eq(head, term(builder, *slots))])
    return conde(*branches)
