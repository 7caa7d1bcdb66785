"""Stock terms for explicit broadcasting: the DimShuffles and run-time checks a stock Op needs.

:class:`graph_bridge.ops.ExplicitElemwise` and ``ExplicitAlloc`` record the
broadcasting per input and dim; PyTensor's stock Ops read it from
DimShuffles and static shapes.  These goals relate the two forms of the
inputs: forward an expanding DimShuffle is absorbed and the pattern read
from static shapes; backward the DimShuffles are added, with the Asserts and
SpecifyShapes that keep the explicit behaviour where a replacement refined a
static shape.  ``relations.rules.broadcast`` states the rules over them.
"""

from __future__ import annotations

from typing import Any

from pytensor.graph.basic import Variable
from pytensor.raise_op import Assert
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.math import eq as pt_eq
from pytensor.tensor.shape import Shape_i, specify_shape

from graph_bridge.nodes import absorb_expansion
from graph_bridge.ops import (
    BROADCAST,
    KEPT,
    MISSING,
    ExplicitAlloc,
    broadcast_error,
    entry_order,
    output_static_shape,
)
from graph_bridge.terms import op_term, term, term_variable
from graph_bridge.vocabulary import builder_for
from logic_core.moded import Mode, moded

__all__ = ["alloc_valueo", "expand_term", "kept_lengths", "stock_inputso"]

DS = builder_for(DimShuffle)


def expand_term(
    x: Variable,
    entry: str,
    lengths: dict[int, Any],
    out_shape: tuple,
    leading_ok: bool = False,
    who: str = "an input",
) -> Any:
    """The stock term computing what input ``x`` contributes under ``entry``.

    DimShuffle adds the ``'x'`` dims (only non-leading ones if ``leading_ok``:
    Alloc aligns its value right by itself); a ``'1'`` dim whose static length
    is not 1 gets an Assert that it is 1 at run time, then a SpecifyShape
    (the stock Op broadcasts it); a ``'*'`` dim whose static length is 1
    where the output's is unknown gets an Assert that its length is
    ``lengths[d]`` (stock Ops would broadcast it).  The Asserts' messages
    name the input (``who``) and the dim, and say how to derive the pattern
    again (:func:`graph_bridge.ops.broadcast_error`).
    """
    t: Any = x
    own_shape = list(x.type.shape)
    ones = []
    checks = []
    for d, c in enumerate(entry):
        if c == MISSING:
            continue
        axis = d - entry[:d].count(MISSING)
        if c == BROADCAST and own_shape[axis] != 1:
            own_shape[axis] = 1
            ones.append((axis, d))
        elif c == KEPT and own_shape[axis] == 1 and out_shape[d] is None and d in lengths:
            checks.append((axis, d, lengths[d]))
    for axis, d in ones:
        cond = term(pt_eq, term(Shape_i(axis), t), 1)
        t = term(Assert(broadcast_error(who, d, False)), t, cond)
    if ones:
        t = term(specify_shape, t, tuple(own_shape))
    for axis, d, length in checks:
        cond = term(pt_eq, term(Shape_i(axis), t), length)
        t = term(Assert(broadcast_error(who, d, True)), t, cond)
    order = entry.lstrip(MISSING) if leading_ok else entry
    if MISSING in order:
        t = term(op_term(DS(x.type.ndim, entry_order(order))), t)
    return t


def kept_lengths(pattern: tuple, vs: list) -> dict[int, Any]:
    """Output dim -> ``Shape_i`` term of the first input that keeps it without a static length."""
    lengths: dict[int, Any] = {}
    for entry, v in zip(pattern, vs):
        for d, c in enumerate(entry):
            axis = d - entry[:d].count(MISSING)
            if c == KEPT and d not in lengths and v.type.shape[axis] is None:
                lengths[d] = term(Shape_i(axis), v)
    return lengths


def stock_inputso(stock: Any, inputs: Any, pattern: Any):
    """``stock`` are the expanded inputs a stock Elemwise needs for ``inputs`` under ``pattern``.

    Forward (``stock`` known): each expanding DimShuffle is absorbed and the
    pattern is read from static shapes.  Backward (``inputs`` and ``pattern``
    known): DimShuffles are added for the ``'x'`` dims, with the run-time
    checks that keep the explicit behaviour when static shapes were refined.
    """

    def absorb(st):
        inner, entries = [], []
        for t in st:
            v = term_variable(t)
            if v is None:
                return None
            a, e = absorb_expansion(v)
            inner.append(a)
            entries.append(e)
        return tuple(inner), tuple(entries)

    def expand(ins, pat):
        vs = [term_variable(t) for t in ins]
        if any(v is None for v in vs) or len(vs) != len(pat):
            return None
        out_shape = output_static_shape(pat, [v.type.shape for v in vs])
        d_ref = kept_lengths(pat, vs)
        return (
            tuple(
                expand_term(v, e, d_ref, out_shape, who=f"input {i} of an explicit Elemwise")
                for i, (v, e) in enumerate(zip(vs, pat))
            ),
        )

    return moded(
        "stock_inputso",
        {"stock": stock, "inputs": inputs, "pattern": pattern},
        Mode(needs=("stock",), gives=("inputs", "pattern"), ready=_tuples, one=absorb),
        Mode(needs=("inputs", "pattern"), gives=("stock",), ready=_tuples, one=expand),
        waiting="stock_inputso needs stock, or inputs and pattern",
    )



def _tuples(*values: Any) -> bool:
    for v in values:  # (a loop: a generator costs more than the check, at every Elemwise)
        if not isinstance(v, tuple):
            return False
    return True



def alloc_valueo(stock_value: Any, value: Any, entry: Any, shape: Any):
    """``stock_value`` is what a stock Alloc of ``shape`` needs for ``value`` under ``entry``.

    Forward (``stock_value`` and ``shape`` known): an expanding DimShuffle is
    absorbed and the entry read from static shapes (numpy rule, align right).
    Backward (``value``, ``entry`` and ``shape`` known): DimShuffle for
    non-leading ``'x'`` dims, with the run-time checks of refined shapes.
    """

    def absorb(sv, sh):
        v = term_variable(sv)
        if v is None:
            return None
        inner, own = absorb_expansion(v)
        return inner, MISSING * (len(sh) - len(own)) + own

    def expand(val, ent, sh):
        v = term_variable(val)
        if v is None or len(ent) != len(sh):
            return None
        stock_shape = ExplicitAlloc(ent).stock_value_shape(v.type.shape)
        out_shape = tuple(None if s != 1 else 1 for s in stock_shape)
        lengths = dict(enumerate(sh))
        return (expand_term(v, ent, lengths, out_shape, leading_ok=True, who="the value of an explicit Alloc"),)

    return moded(
        "alloc_valueo",
        {"stock_value": stock_value, "value": value, "entry": entry, "shape": shape},
        Mode(
            needs=("stock_value", "shape"),
            gives=("value", "entry"),
            ready=lambda sv, sh: isinstance(sh, tuple),
            one=absorb,
        ),
        Mode(
            needs=("value", "entry", "shape"),
            gives=("stock_value",),
            ready=lambda val, ent, sh: isinstance(ent, str) and isinstance(sh, tuple),
            one=expand,
        ),
        waiting="alloc_valueo needs stock_value and shape, or value, entry and shape",
    )
