"""Goals that read one node into its parts, or build it from them: the pieces patterns compile to.

Each is a moded goal ``kindo(out, *parts)``: known ``out`` (a ground term)
reads the node's parts off its PyTensor variable; known parts build the
node's term.  The rules of ``relations/`` reach PyTensor nodes only through
these readers, the type facts (:mod:`graph_bridge.type_facts`) and the node facts
(:mod:`graph_bridge.nodes`); the pattern nodes of :mod:`relations.patterns`
(``p.elemwise(f, inputs=xs)``, ``p.alloc(v, shape=sh)``, ...) compile to them.
"""

from __future__ import annotations

from typing import Any

from pytensor.graph.basic import Variable
from pytensor.tensor import subtensor as pts
from pytensor.tensor.basic import Alloc, Join
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from unification import var

from graph_bridge.elemwise_terms import dimshuffled, elemwise_like, operand_entries
from graph_bridge.nodes import alloc_parts, join_parts, read_or_build
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise, entry_order
from graph_bridge.terms import Term, elemwise_term, op_term, term, term_variable
from graph_bridge.vocabulary import builder_for
from logic_core.memo import remember
from logic_core.moded import Mode, ModedGoal, moded
from logic_core.unifier import unify, walk

__all__ = [
    "ALLOC",
    "DS",
    "JOIN",
    "SET_CLASSES",
    "added_axes_inputso",
    "alloco",
    "combineo",
    "compose_orders",
    "elemwise_firsto",
    "elemwise_holeo",
    "elemwise_operandso",
    "elemwise_or_oneo",
    "explicit_alloco",
    "explicit_elemwiseo",
    "is_identity_order",
    "joino",
    "maybe_alloco",
    "maybe_dimshuffleo",
    "shuffled_inputso",
    "stock_alloco",
    "stock_elemwiseo",
    "subtensor_updateo",
]

DS = builder_for(DimShuffle)
JOIN = builder_for(Join)
ALLOC = op_term(Alloc())
#: The Op classes of ``x[idx].set(v)`` and ``x[idx].inc(v)`` (basic and advanced indexing).
SET_CLASSES = tuple(
    c
    for c in (
        pts.IncSubtensor,
        pts.AdvancedIncSubtensor,
        getattr(pts, "AdvancedIncSubtensor1", None),
    )
    if c is not None
)
_EXPLICIT_TERMS: dict[tuple, Any] = {}


def is_identity_order(n: int, order: tuple) -> bool:
    """Whether ``order`` is the identity order of an ``n``-d input."""
    return tuple(order) == tuple(range(n))


def compose_orders(inner: tuple, outer: tuple) -> tuple:
    """The order of ``DimShuffle{outer}(DimShuffle{inner}(x))`` as one DimShuffle of ``x``."""
    return tuple("x" if d == "x" else inner[d] for d in outer)


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


def _explicit_term(scalar_op: Any, pattern: tuple) -> Any:
    """``op_term(ExplicitElemwise(scalar_op, pattern))``, remembered (bounded).

    Looked up by the scalar Op object first (its ``__hash__`` is Python code
    that builds a tuple), then by the scalar Op's value: equal scalar Ops
    share one term, as they did before the first lookup.
    """
    by_id = (id(scalar_op), pattern)
    hit = _EXPLICIT_TERMS_BY_ID.get(by_id)
    if hit is not None and hit[0] is scalar_op:
        return hit[1]
    key = (scalar_op, pattern)
    t = _EXPLICIT_TERMS.get(key)
    if t is None:
        t = remember(_EXPLICIT_TERMS, key, op_term(ExplicitElemwise(scalar_op, pattern)))
    remember(_EXPLICIT_TERMS_BY_ID, by_id, (scalar_op, t))
    return t


#: ``(id(scalar_op), pattern)`` -> (the scalar Op, its term); the entry keeps the Op alive, so its id is not reused
_EXPLICIT_TERMS_BY_ID: dict[tuple, tuple[Any, Any]] = {}


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


def subtensor_updateo(out: Any, x: Any, value: Any, idx: Any, head: Any, set_mode: bool):
    """``out`` is ``x[idx].set(value)`` (``set_mode``) or ``.inc(value)``, for every variant.

    Known ``out``: reads the parts (not inplace nodes).  Known parts: builds it.
    """

    def read(v):
        op = v.owner.op if v.owner is not None else None
        if (
            isinstance(op, SET_CLASSES)
            and type(op) in SET_CLASSES
            and bool(op.set_instead_of_inc) is set_mode
            and not op.inplace
        ):
            ins = v.owner.inputs
            return ins[0], ins[1], tuple(ins[2:]), op_term(op)
        return None

    def ready(p):
        return isinstance(p[2], tuple)

    def build(p):
        px, pv, pi, ph = p
        return term(ph, px, pv, *pi)

    parts = (x, value, idx, head)
    return read_or_build(out, parts, read, ready, build, "subtensor_updateo needs out or its parts", single=True)


def elemwise_holeo(out: Any, scalar_op: Any, before: Any, hole: Any, after: Any):
    """``out`` is ``Elemwise(scalar_op)(*before, hole, *after)``, one answer per position."""

    def read(v):
        if v.owner is None or type(v.owner.op) is not Elemwise or len(v.owner.outputs) != 1:
            return
        ins = tuple(v.owner.inputs)
        for i in range(len(ins)):
            yield v.owner.op.scalar_op, ins[:i], ins[i], ins[i + 1 :]

    def ready(p):
        return isinstance(p[1], tuple) and isinstance(p[3], tuple)

    def build(p):
        sop, b, h, a = p
        return term(elemwise_term(sop), *b, h, *a)

    return read_or_build(
        out, (scalar_op, before, hole, after), read, ready, build, "elemwise_holeo needs out or its parts"
    )


def alloco(out: Any, value: Any, shape: Any):
    """``out`` is ``Alloc(value, *shape)`` (either side known; read from an explicit Alloc too)."""

    def read(v):
        return alloc_parts(v)

    def ready(p):
        return isinstance(p[1], tuple)

    def build(p):
        return term(ALLOC, p[0], *p[1])

    return read_or_build(out, (value, shape), read, ready, build, "alloco needs out or its parts", single=True)


def _join_term(axis: int, pieces: tuple):
    if JOIN.prop_names:  # pytensor >= 3.3
        return term(term(JOIN, axis), *pieces)
    return term(term(JOIN), axis, *pieces)


def joino(out: Any, axis: Any, pieces: Any):
    """``out`` is ``Join(axis, *pieces)`` (either side known; a constant axis).

    Handles both PyTensor lines: the axis is an input up to 3.0, a prop from
    3.3.  Built from pieces, the Join must be valid whatever the inputs: the
    pieces have one ndim and statically equal lengths on every other dim.
    """

    def read(v):
        return join_parts(v)

    def ready(p):
        a, ps_ = p
        return isinstance(a, int) and isinstance(ps_, tuple)

    def build(p):
        a, ps_ = p
        return _join_term(a, ps_) if _statically_joinable(ps_, a) else None

    return read_or_build(out, (axis, pieces), read, ready, build, "joino needs out, or axis and pieces", single=True)


def combineo(scalar_op: Any, parts: Any, out: Any):
    """``out`` combines ``parts`` (two or more) with ``scalar_op``, elementwise.

    Variadic scalar ops (add, mul) give one node; binary ones a left fold.
    Backward it reads the parts off the left spine of nodes of that op.
    """

    def read(v):
        if v.owner is None or type(v.owner.op) is not Elemwise:
            return None
        found = v.owner.op.scalar_op
        collected = []
        while v.owner is not None and type(v.owner.op) is Elemwise and v.owner.op.scalar_op == found:
            collected[:0] = v.owner.inputs[1:]
            v = v.owner.inputs[0]
        collected[:0] = [v]
        return (found, tuple(collected)) if len(collected) >= 2 else None

    def ready(p):
        op, ps_ = p
        return isinstance(ps_, tuple) and len(ps_) >= 2

    def build(p):
        op, ps_ = p
        head = elemwise_term(op)
        if op.nin == -1:
            return term(head, *ps_)
        built = ps_[0]
        for x in ps_[1:]:
            built = term(head, built, x)
        return built

    return read_or_build(
        out,
        (scalar_op, parts),
        read,
        ready,
        build,
        "combineo needs scalar_op and parts, or out",
        build_first=True,
        single=True,
    )


def _statically_joinable(pieces: tuple, axis: int) -> bool:
    vs = [v for x in pieces if (v := term_variable(x)) is not None]
    if len(vs) < 2 or len(vs) < len(pieces) or any(v.type.ndim <= axis for v in vs):
        return False
    if len({v.type.ndim for v in vs}) != 1:
        return False
    shapes = [tuple(s for d, s in enumerate(v.type.shape) if d != axis) for v in vs]
    return all(None not in s for s in shapes) and len(set(shapes)) == 1


def maybe_dimshuffleo(out: Any, m: Any, order: Any, inner: Any) -> ModedGoal:
    """``out`` is ``DimShuffle{m, order}(inner)``, or ``inner`` when ``order`` is the identity.

    Known ``m``, ``order`` and ``inner``: builds ``out``.  Known ``out``:
    first the DimShuffle it is (if any, and not the identity), then ``out``
    itself with the identity order.
    """

    def build(m_w, o, x):
        yield (x if is_identity_order(m_w, o) else term(term(DS, m_w, o), x),)

    def read(o):
        n, order_, x = var(), var(), var()
        s = unify(term(term(DS, n, order_), x), o, {})
        if s is not False:
            k, found = walk(n, s), walk(order_, s)
            if not is_identity_order(k, found):
                yield k, found, walk(x, s)
        v = term_variable(o)
        if v is not None and hasattr(v.type, "ndim"):
            yield v.type.ndim, tuple(range(v.type.ndim)), o

    return moded(
        "maybe_dimshuffleo",
        {"out": out, "m": m, "order": order, "inner": inner},
        Mode(
            needs=("m", "order", "inner"),
            gives=("out",),
            run=build,
            ready=lambda m_w, o, x: isinstance(m_w, int) and isinstance(o, tuple),
        ),
        Mode(needs=("out",), gives=("m", "order", "inner"), run=read),
        waiting="maybe_dimshuffleo needs out, or m, order and inner",
    )


def _shuffled(v: Variable) -> tuple[int, tuple, Variable] | None:
    """``(input ndim, order, input)`` of a DimShuffle's output, else ``None``."""
    node = v.owner
    if node is None or type(node.op) is not DimShuffle:
        return None
    return node.inputs[0].type.ndim, tuple(node.op.new_order), node.inputs[0]


def _expanded_scalar(s: Any, n: int) -> Any:
    """The 0-d ``s`` with ``n`` (>= 1) added dims."""
    return term(term(DS, 0, ("x",) * n), s)


def _inputs_and_order(name: str, inputs: Any, n: Any, order: Any, inner: Any, read: Any, build: Any) -> ModedGoal:
    """The goal relating an Elemwise's ``inputs`` to a DimShuffle ``{n, order}`` and the ``inner`` inputs below
    it: ``read`` forward (``inputs`` known), ``build`` backward (``n``, ``order`` and ``inner`` known)."""
    return moded(
        name,
        {"inputs": inputs, "n": n, "order": order, "inner": inner},
        Mode(needs=("inputs",), gives=("n", "order", "inner"), ready=lambda ins: isinstance(ins, tuple), one=read),
        Mode(
            needs=("n", "order", "inner"),
            gives=("inputs",),
            ready=lambda k, o, parts: isinstance(k, int) and isinstance(o, tuple) and isinstance(parts, tuple),
            one=build,
        ),
        waiting=f"{name} needs inputs, or n, order and inner",
    )


def shuffled_inputso(inputs: Any, n: Any, order: Any, inner: Any):
    """``inputs`` are ``DimShuffle{n, order}`` of ``inner``, up to expanded scalars.

    Each input is a DimShuffle.  The ones of an ``n``-d input share one
    ``order``; the others expand a 0-d ``s`` (every dim ``'x'``), and stand
    for ``s`` with ``n`` added dims in ``inner``.  When every input expands a
    0-d, ``n`` is 0 and ``order`` is all ``'x'``.

    Forward (``inputs`` known) reads the DimShuffles; backward (``n``,
    ``order`` and ``inner`` known) builds them, one DimShuffle per input
    (an expanded scalar in ``inner`` gets one DimShuffle of the 0-d).
    """

    def read(ins):
        found = [_shuffled(v) if (v := term_variable(t)) is not None else None for t in ins]
        if not found or None in found:  # (found holds tuples and None: == is identity for None)
            return None
        full = {(k, o) for k, o, _ in found if k > 0}
        if len(full) > 1:
            return None
        k, o = next(iter(full)) if full else (0, found[0][1])
        if k == 0 and len({len(f[1]) for f in found}) != 1:
            return None
        return k, o, tuple(x if k == 0 or fk == k else _expanded_scalar(x, k) for fk, _, x in found)

    def build(k, o, parts):
        built = []
        for p in parts:
            v = term_variable(p)
            if v is None:
                return None
            if v.type.ndim == k and k > 0:
                sh = _shuffled(v)
                if sh is not None and sh[0] == 0 and sh[1] == ("x",) * k:
                    built.append(term(term(DS, 0, ("x",) * len(o)), sh[2]))  # an expanded scalar
                else:
                    built.append(term(term(DS, k, o), p))
            elif k == 0 and v.type.ndim == 0:
                built.append(term(term(DS, 0, o), p))
            else:
                return None
        return (tuple(built),)

    return _inputs_and_order("shuffled_inputso", inputs, n, order, inner, read, build)


def _without(order: tuple, axes: frozenset) -> tuple:
    return tuple(e for i, e in enumerate(order) if i not in axes)


def _added(order: tuple) -> frozenset:
    return frozenset(i for i, e in enumerate(order) if e == "x")


def added_axes_inputso(inputs: Any, n: Any, order: Any, inner: Any):
    """``inputs`` are ``inner`` each with the axes ``DimShuffle{n, order}`` adds also added.

    Each input is a DimShuffle, and the output axes every one of them adds
    (``'x'`` in each order) are the ones ``order`` adds to an ``n``-d graph:
    ``exp(x)[None] / sum(exp(x), 1)[None, :, None]`` shares the leading
    axis, so its inputs are ``exp(x)`` and ``sum(exp(x), 1)[:, None]``
    with ``order = ('x', 0, 1)``.  At least one input must be left with no
    DimShuffle (only added the shared axes): then the DimShuffles do not grow
    in number when the Elemwise moves below them.

    Forward (``inputs`` known) reads the DimShuffles; backward (``n``,
    ``order`` and ``inner`` known, ``order`` only adding axes) builds them,
    one DimShuffle per input (an inner DimShuffle composed with ``order``).
    """

    def read(ins):
        found = [_shuffled(v) if (v := term_variable(t)) is not None else None for t in ins]
        if not found or None in found:
            return None
        shared = frozenset.intersection(*(_added(o) for _, o, _ in found))
        if not shared:
            return None
        parts, bare = [], False
        for (k, o, x), t in zip(found, ins, strict=True):
            x = t[1] if type(t) is Term and len(t) == 2 else x  # the input's own term, compared by structure
            rest = _without(o, shared)
            if is_identity_order(k, rest):
                parts.append(x)
                bare = True
            else:
                parts.append(term(term(DS, k, rest), x))
        if not bare:
            return None
        width = len(found[0][1]) - len(shared)
        kept = iter(range(width))  # the output's other axes, in order: the Elemwise's below the DimShuffle
        return width, tuple("x" if i in shared else next(kept) for i in range(len(found[0][1]))), tuple(parts)

    def build(k, o, parts):
        if tuple(e for e in o if e != "x") != tuple(range(k)):
            return None
        built = []
        for part in parts:
            v = term_variable(part)
            if v is None or v.type.ndim != k:
                return None
            sh = _shuffled(v)
            if sh is None:
                built.append(term(term(DS, k, o), part))
            else:
                m, inner_order, u = sh
                built.append(term(term(DS, m, compose_orders(inner_order, o)), u))
        return (tuple(built),)

    return _inputs_and_order("added_axes_inputso", inputs, n, order, inner, read, build)


def elemwise_operandso(out: Any, scalar_op: Any, inputs: Any, entries: Any):
    """``out`` is an Elemwise of ``scalar_op`` on ``inputs`` placed by the broadcast ``entries``.

    Read from a one-output Elemwise, stock (not inplace; an expanding
    DimShuffle of an input is read through, its dims ``'x'``) or explicit
    (its pattern).  Built stock: each input DimShuffled to the output's
    ndim as its entry says (its ``'x'`` dims added).
    """

    def ready(p):
        sop, ins, ents = p
        return isinstance(ins, tuple) and isinstance(ents, tuple) and len(ins) == len(ents)

    def build(p):
        sop, ins, ents = p
        parts = []
        for t, e in zip(ins, ents):
            v = term_variable(t)
            if v is None:
                return None
            parts.append(dimshuffled(t, v.type.ndim, entry_order(e)))
        return term(elemwise_term(sop), *parts)

    return read_or_build(
        out,
        (scalar_op, inputs, entries),
        operand_entries,
        ready,
        build,
        "elemwise_operandso needs out, or scalar_op, inputs and entries",
        single=True,
    )


def _first_and_rest(v: Variable) -> tuple | None:
    node = v.owner
    if node is None or len(node.outputs) != 1 or not node.inputs:
        return None
    if type(node.op) is ExplicitElemwise or (type(node.op) is Elemwise and not node.op.inplace_pattern):
        return node.op.scalar_op, node.inputs[0], tuple(node.inputs[1:])
    return None


def elemwise_firsto(out: Any, scalar_op: Any, first: Any, rest: Any):
    """``out`` is ``Elemwise(scalar_op)(first, *rest)``: read from a stock (not inplace) or explicit one.

    Built as PyTensor builds it (lower-rank inputs expanded on the left).
    """

    def ready(p):
        return isinstance(p[2], tuple)

    def build(p):
        sop, x, xs = p
        return elemwise_like(sop, x, *xs)

    return read_or_build(
        out,
        (scalar_op, first, rest),
        _first_and_rest,
        ready,
        build,
        "elemwise_firsto needs out, or scalar_op, first and rest",
        single=True,
    )


def _alloc_or_itself(v: Variable):
    if v.owner is not None and type(v.owner.op) is Alloc and len(v.owner.inputs) > 1:
        yield v.owner.inputs[0], tuple(v.owner.inputs[1:])
    yield v, ()


def maybe_alloco(out: Any, value: Any, shape: Any):
    """``out`` is ``Alloc(value, *shape)`` (a stock Alloc), or ``value`` itself when ``shape`` is ``()``.

    Read, a stock Alloc gives its value and shape, and every ``out`` gives
    ``(out, ())`` (so a check of either form holds).
    """

    def ready(p):
        return isinstance(p[1], tuple)

    def build(p):
        val, sh = p
        return term(ALLOC, val, *sh) if sh else val

    return read_or_build(
        out, (value, shape), _alloc_or_itself, ready, build, "maybe_alloco needs out, or value and shape"
    )


def _elemwise_or_itself(v: Variable):
    node = v.owner
    if node is not None and type(node.op) is Elemwise and len(node.inputs) > 1 and not node.op.inplace_pattern:
        yield node.op.scalar_op, tuple(node.inputs)
    yield None, (v,)


def elemwise_or_oneo(out: Any, scalar_op: Any, parts: Any):
    """``out`` is ``Elemwise(scalar_op)(*parts)`` (two or more parts of one ndim), or ``parts == (out,)``.

    ``scalar_op`` is ``None`` for the one part.  Read, a stock (not
    inplace) Elemwise of two or more inputs gives its scalar op and inputs,
    and every ``out`` gives ``(None, (out,))``; built as PyTensor builds it.
    """

    def ready(p):
        sop, ps_ = p
        return isinstance(ps_, tuple) and (len(ps_) == 1 or (len(ps_) >= 2 and sop is not None))

    def build(p):
        sop, ps_ = p
        return ps_[0] if len(ps_) == 1 else elemwise_like(sop, *ps_)

    return read_or_build(
        out, (scalar_op, parts), _elemwise_or_itself, ready, build, "elemwise_or_oneo needs out, or scalar_op and parts"
    )
