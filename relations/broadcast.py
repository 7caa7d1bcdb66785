"""Explicit broadcast patterns (aesara #933, pytensor #408, JuliaLang #26212): Elemwise without DimShuffles.

One relation relates the stock form of an Elemwise, whose lower-rank inputs
are wrapped in ``DimShuffle``s and whose broadcasting is read from static
shapes, to :class:`graph_bridge.ops.ExplicitElemwise`, whose pattern records
the broadcasting.  Forward it normalizes (absorbs the expanding DimShuffles,
fixes the pattern); backward it lowers (``relations.lower``) to stock Ops that
PyTensor's backends know.  :func:`broadcast_shapeo` is the numpy broadcasting
rule itself, as a relation over broadcastable patterns.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from pytensor.graph.basic import Variable
from pytensor.raise_op import Assert
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.math import eq as pt_eq
from pytensor.tensor.shape import Shape_i, specify_shape
from unification import var

from graph_bridge import builder_for, elemwise_term, op_term, same_typeo, term, term_variable
from logic_core.goals import NotReady
from logic_core.terms import is_ground
from logic_core.unifier import eq, lreify
from graph_bridge.measures import count
from logic_core.memo import remember
from logic_core.modes import Mode, moded
from graph_bridge.nodes import absorb_expansion, read_or_build
from graph_bridge.ops import (
    BROADCAST,
    KEPT,
    MISSING,
    ExplicitAlloc,
    ExplicitElemwise,
    broadcast_error,
    entry_order,
    output_static_shape,
)
from logic_core.goals import lall_ready
from relations.rules import rule

__all__ = [
    "MAX_BACKWARD_NDIM",
    "alloc_explicito",
    "broadcast_shapeo",
    "elemwise_explicito",
    "expand_term",
    "explicit_elemwiseo",
    "stock_elemwiseo",
    "stock_inputso",
]

DS = builder_for(DimShuffle)
#: ``broadcast_shapeo`` run with no ndim known enumerates outputs up to this ndim.
MAX_BACKWARD_NDIM = 3


def stock_elemwiseo(out: Any, scalar_op: Any, inputs: Any, broadcasting: bool = False):
    """``out`` is a stock, not-inplace, one-output ``Elemwise(scalar_op)(*inputs)``.

    ``broadcasting``: only nodes that can broadcast (two or more inputs,
    ndim >= 1) are read.  Known ``out``: reads it; known parts: builds it.
    """

    def read(v):
        node = v.owner
        if (
            node is not None
            and type(node.op) is Elemwise
            and not node.op.inplace_pattern
            and len(node.outputs) == 1
            and (not broadcasting or (len(node.inputs) >= 2 and v.type.ndim >= 1))
        ):
            return node.op.scalar_op, tuple(node.inputs)
        return None

    def ready(p):
        sop, ins = p
        return isinstance(ins, tuple)

    def build(p):
        sop, ins = p
        return term(elemwise_term(sop), *ins)

    return read_or_build(
        out, (scalar_op, inputs), read, ready, build, "stock_elemwiseo needs out, or scalar_op and inputs", single=True
    )


_EXPLICIT_TERMS: dict[tuple, Any] = {}


def _explicit_term(scalar_op: Any, pattern: tuple) -> Any:
    """``op_term(ExplicitElemwise(scalar_op, pattern))``, remembered (bounded)."""
    key = (scalar_op, pattern)
    t = _EXPLICIT_TERMS.get(key)
    if t is None:
        t = remember(_EXPLICIT_TERMS, key, op_term(ExplicitElemwise(scalar_op, pattern)))
    return t


def explicit_elemwiseo(out: Any, scalar_op: Any, pattern: Any, inputs: Any):
    """``out`` is ``ExplicitElemwise(scalar_op, pattern)(*inputs)``."""

    def read(v):
        node = v.owner
        if node is not None and type(node.op) is ExplicitElemwise and len(node.outputs) == 1:
            return node.op.scalar_op, node.op.pattern, tuple(node.inputs)
        return None

    def ready(p):
        sop, pat, ins = p
        return isinstance(pat, tuple) and isinstance(ins, tuple)

    def build(p):
        sop, pat, ins = p
        return term(_explicit_term(sop, pat), *ins)

    return read_or_build(
        out,
        (scalar_op, pattern, inputs),
        read,
        ready,
        build,
        "explicit_elemwiseo needs out, or scalar_op, pattern and inputs",
        single=True,
    )


def _expand_term(
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


#: the stock term of an input under its pattern entry (public name, for the batched Ops' relations)
expand_term = _expand_term


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
        d_ref = {}
        for entry, v in zip(pat, vs):
            for d, c in enumerate(entry):
                axis = d - entry[:d].count(MISSING)
                if c == KEPT and d not in d_ref and v.type.shape[axis] is None:
                    d_ref[d] = term(Shape_i(axis), v)
        return (
            tuple(
                _expand_term(v, e, d_ref, out_shape, who=f"input {i} of an explicit Elemwise")
                for i, (v, e) in enumerate(zip(vs, pat))
            ),
        )

    return moded(
        "stock_inputso",
        (stock, inputs, pattern),
        Mode((0,), (1, 2), ready=_tuples, one=absorb),
        Mode((1, 2), (0,), ready=_tuples, one=expand),
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
        return (_expand_term(v, ent, lengths, out_shape, leading_ok=True, who="the value of an explicit Alloc"),)

    return moded(
        "alloc_valueo",
        (stock_value, value, entry, shape),
        Mode((0, 3), (1, 2), ready=lambda sv, sh: isinstance(sh, tuple), one=absorb),
        Mode((1, 2, 3), (0,), ready=lambda val, ent, sh: isinstance(ent, str) and isinstance(sh, tuple), one=expand),
        waiting="alloc_valueo needs stock_value and shape, or value, entry and shape",
    )


def stock_alloco(out: Any, value: Any, shape: Any):
    """``out`` is a stock ``Alloc(value, *shape)``."""

    def read(v):
        if v.owner is not None and type(v.owner.op) is Alloc:
            return v.owner.inputs[0], tuple(v.owner.inputs[1:])
        return None

    def ready(p):
        val, sh = p
        return isinstance(sh, tuple)

    def build(p):
        val, sh = p
        return term(op_term(Alloc()), val, *sh)

    return read_or_build(
        out, (value, shape), read, ready, build, "stock_alloco needs out, or value and shape", single=True
    )


def explicit_alloco(out: Any, entry: Any, value: Any, shape: Any):
    """``out`` is ``ExplicitAlloc(entry)(value, *shape)``."""

    def read(v):
        if v.owner is not None and type(v.owner.op) is ExplicitAlloc:
            ins = v.owner.inputs
            return v.owner.op.entry, ins[0], tuple(ins[1:])
        return None

    def ready(p):
        ent, val, sh = p
        return isinstance(ent, str) and isinstance(sh, tuple)

    def build(p):
        ent, val, sh = p
        return term(op_term(ExplicitAlloc(ent)), val, *sh)

    return read_or_build(
        out, (entry, value, shape), read, ready, build, "explicit_alloco needs out, or entry, value and shape",
        single=True,
    )


def _broadcasting_node(node) -> bool:
    """A node ``elemwise_explicito`` makes explicit: ndim >= 1 and two or more inputs."""
    return node.outputs[0].type.ndim >= 1 and len(node.inputs) >= 2


@rule(heads=(Alloc,), rhs_heads=(ExplicitAlloc,), measure=count(Alloc, exact=True, text="stock Alloc"))
def alloc_explicito(lhs: Any, rhs: Any):
    """The broadcasting of an Alloc's value moves from its static shape into the Op.

    Before::

        Alloc(x, n, m)                   # x: (None,)
        Alloc(ExpandDims{axis=1}(v), n, m)

    After::

        Alloc{x*}(x, n, m)               # x's length must be m, whatever its static shape
        Alloc{*x}(v, n, m)

    An expanding DimShuffle of the value is absorbed.  Same output type.

    Measure: stock Alloc nodes, -1.
    Sharing: the node is replaced by one of the same kind; an absorbed
    DimShuffle other nodes use stays for them.
    Backward it is ``relations.lower``: the stock Alloc (with a DimShuffle for
    non-leading new dims, and a SpecifyShape or Assert where a replacement
    refined the value's static shape).
    """
    value, stock_value, shape, entry = var(), var(), var(), var()
    return lall_ready(
        stock_alloco(lhs, stock_value, shape),
        explicit_alloco(rhs, entry, value, shape),
        alloc_valueo(stock_value, value, entry, shape),
        same_typeo(lhs, rhs),
    )


@rule(
    heads=(Elemwise,),
    rhs_heads=(ExplicitElemwise,),
    measure=count(Elemwise, exact=True, test=_broadcasting_node, text="stock Elemwise (ndim >= 1, two or more inputs)"),
)
def elemwise_explicito(lhs: Any, rhs: Any):
    """Broadcasting moves from DimShuffles and static shapes into the Op.

    Before::

        add(ExpandDims{axis=0}(x), y)        # x: (), y: (None,)
        mul(a, b)                            # a: (None,), b: (1,)

    After::

        add{x,*}(x, y)
        mul{*,1}(a, b)

    Every input DimShuffle that only adds dimensions is absorbed; the pattern
    says, per input and output dim, ``'x'`` (absent), ``'1'`` (broadcasts) or
    ``'*'`` (must match).  Same dtype, ndim and broadcastable out.

    Measure: stock Elemwise nodes of ndim >= 1 with two or more inputs, -1.
    Sharing: the node is replaced by one of the same kind; an absorbed
    DimShuffle other nodes use stays for them.
    Backward it is ``relations.lower``: it gives the stock form back (with a
    SpecifyShape or Assert where a replacement refined a static shape, so
    that the stock Ops keep the explicit behaviour).
    """
    scalar_op, stock, inputs, pattern = var(), var(), var(), var()
    return lall_ready(
        stock_elemwiseo(lhs, scalar_op, stock, broadcasting=True),
        explicit_elemwiseo(rhs, scalar_op, pattern, inputs),
        stock_inputso(stock, inputs, pattern),
        same_typeo(lhs, rhs),
    )


def _broadcast_out(ins: tuple[tuple[bool, ...], ...]) -> tuple[bool, ...]:
    ndim = max((len(p) for p in ins), default=0)
    padded = [(True,) * (ndim - len(p)) + tuple(p) for p in ins]
    return tuple(all(col) for col in zip(*padded)) if padded else ()


def broadcast_shapeo(ins: Any, out: Any, max_ndim: int = MAX_BACKWARD_NDIM):
    """``out`` is the broadcastable pattern of broadcasting patterns ``ins`` (numpy rule).

    Patterns are tuples of bools (``True``: length 1).  Inputs align right;
    a dimension broadcasts in the output iff it does in every input that has
    it.  Forward (``ins`` known) it computes ``out``.  Backward (``out`` known,
    ``ins`` a tuple of that many logic variables or partial patterns) it
    enumerates the input patterns of ndim up to ``len(out)``, fewest dims
    first; with neither known it enumerates outputs up to ``max_ndim`` dims.
    The number of answers is finite: at most ``sum(2**k, k<=n) ** len(ins)``.
    """

    def shape_goal(S):
        i, o = lreify((ins, out), S)
        if isinstance(i, tuple) and is_ground(i):
            yield from eq(out, _broadcast_out(i))(S)
            return
        if not isinstance(i, tuple):
            raise NotReady("broadcast_shapeo needs the number of inputs")
        outs = [o] if isinstance(o, tuple) and is_ground(o) else [
            tuple(p) for n in range(max_ndim + 1) for p in product((True, False), repeat=n)
        ]
        for target in outs:
            n = len(target)
            each = [tuple(p) for k in range(n + 1) for p in product((True, False), repeat=k)]
            for combo in product(each, repeat=len(i)):
                if _broadcast_out(combo) == tuple(target) and len(max(combo, key=len, default=())) == n:
                    yield from eq((ins, out), (combo, tuple(target)))(S)

    return shape_goal

