"""Relations over CAReduce heads: which reduction, along which axes.

A CAReduce node's head term is ``term(builder, *props)``; the props differ
between classes (``Prod`` has ``no_zeros_in_input``, ``Max`` on 3.3 has
``initial``).  These goals relate two heads of the same reduction that differ
only in ``axis``, for every CAReduce class of the vocabulary.
"""

from __future__ import annotations

from typing import Any

from pytensor.tensor.math import Sum
from unification import var

from graph_bridge import OpBuilder, careduce_builders, op_term, term, term_variable
from logic_core.moded import Mode, ModedGoal, moded
from logic_core.term_kinds import is_term

__all__ = ["added_axes_reductiono", "careduce_heado", "careduce_partso", "full_reductiono"]


def careduce_heado(head: Any, axis: Any, other_head: Any, other_axis: Any) -> ModedGoal:
    """``head`` reduces along ``axis``; ``other_head`` is the same reduction along ``other_axis``.

    Every prop but ``axis`` (scalar op, dtype, acc_dtype, ...) is shared, so a
    rewrite that changes the axes keeps the output dtype.  Known ``head``:
    reads its axis and gives ``other_head`` with ``other_axis`` in the axis
    slot (and the other way round); neither known: one template per
    CAReduce class.
    """

    def with_axis(builder, props, new_axis):
        props = list(props)
        props[builder.prop_names.index("axis")] = new_axis
        return term(builder, *props)

    def read(known_axis, slot):
        def run(h):
            builder = _builder_of(h)
            if builder is None:
                return None
            props = h._tuple[1:]
            return props[builder.prop_names.index("axis")], with_axis(builder, props, slot)

        return run

    def templates():
        for builder in careduce_builders():
            slots = [var() for _ in builder.prop_names]
            yield with_axis(builder, slots, axis), with_axis(builder, slots, other_axis)

    return moded(
        "careduce_heado",
        {"head": head, "axis": axis, "other_head": other_head, "other_axis": other_axis},
        Mode(
            needs=("head",),
            gives=("axis", "other_head"),
            one=read(axis, other_axis),
            open={"other_head": ("other_axis",)},
        ),
        Mode(needs=("other_head",), gives=("other_axis", "head"), one=read(other_axis, axis), open={"head": ("axis",)}),
        Mode(needs=(), gives=("head", "other_head"), run=templates, plannable=False),
    )


def _builder_of(h: Any) -> OpBuilder | None:
    """The CAReduce builder at the root of the head term ``h``, else ``None``.

    The term's items are read as its tuple (``ExpressionTuple.__getitem__``,
    ``__len__`` and the ABC ``isinstance`` are Python code; a slice builds a
    new etuple): the callers read ``h._tuple`` once this answers.
    """
    if is_term(h) and h._tuple:
        b = h._tuple[0]
        if isinstance(b, OpBuilder) and (any(b is c for c in careduce_builders()) or b in careduce_builders()):
            return b
    return None


def full_reductiono(head: Any):
    """``head`` is a CAReduce over every axis (``axis=None``)."""
    return careduce_heado(head, None, var(), var())


def careduce_partso(head: Any, scalar_op: Any, axis: Any) -> ModedGoal:
    """``head`` is a CAReduce with scalar op ``scalar_op`` along ``axis``.

    Known ``head``: reads both; otherwise one template per CAReduce class.
    """

    def read(h):
        builder = _builder_of(h)
        if builder is None:
            return None
        props = h._tuple[1:]
        names = builder.prop_names
        return props[names.index("scalar_op")], props[names.index("axis")]

    def templates():
        # each template's scalar-op and axis slots are given as answers (no closure over the
        # goal's arguments: a pattern rule renames them per call)
        for builder in careduce_builders():
            slots = [var() for _ in builder.prop_names]
            names = builder.prop_names
            yield term(builder, *slots), slots[names.index("scalar_op")], slots[names.index("axis")]

    return moded(
        "careduce_partso",
        {"head": head, "scalar_op": scalar_op, "axis": axis},
        Mode(needs=("head",), gives=("scalar_op", "axis"), one=read),
        Mode(needs=(), gives=("head", "scalar_op", "axis"), run=templates, plannable=False),
    )


def added_axes_reductiono(head: Any, order: Any, order2: Any, x: Any):
    """``head`` reduces only dims that ``order`` adds; ``order2`` is ``order`` without them.

    Forward (``head`` and ``order`` known) reads the axes off the head (a
    reduction over every axis is the full rule's).  Backward (``order2`` and
    ``x`` known) it builds a ``Sum`` over one added dim, at each position,
    in ``x``'s dtype (numbers only): the family a backward run generates.
    """

    def forward(h, o):
        axes = getattr(h.evaled_obj, "axis", None)
        if axes is not None and all(o[j] == "x" for j in axes):
            return (tuple(d for j, d in enumerate(o) if j not in axes),)
        return None

    def backward(o2, xv):
        v = term_variable(xv)
        if v is None or v.type.dtype == "bool":
            return
        for j in range(len(o2) + 1):
            head_j = op_term(Sum(axis=(j,), dtype=v.type.dtype, acc_dtype=v.type.dtype))
            yield head_j, o2[:j] + ("x",) + o2[j:]

    return moded(
        "added_axes_reductiono",
        {"head": head, "order": order, "order2": order2, "x": x},
        Mode(needs=("head", "order"), gives=("order2",), ready=lambda h, o: isinstance(o, tuple), one=forward),
        Mode(needs=("order2", "x"), gives=("head", "order"), run=backward, ready=lambda o2, xv: isinstance(o2, tuple)),
        waiting="added_axes_reductiono needs head and order, or order2 and x",
    )
