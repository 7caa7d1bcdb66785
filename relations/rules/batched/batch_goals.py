"""Blockwise and RandomVariable nodes read into their parts or built from them (the batched rules' goals).

A stock Blockwise or RV node, its explicit form (:class:`graph_bridge.ExplicitBlockwise`,
:class:`graph_bridge.ExplicitRandomVariable`), its inputs with their batch
padding absorbed, and the batch dims an ExpandDims shared by every input adds:
each a moded goal that reads a node when it is known and builds it when its
parts are.  The rules over them are in ``relations/rules/batched/__init__.py``.
"""

from __future__ import annotations

from typing import Any

from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.random.op import RandomVariable

from graph_bridge.explicit_blockwise import ExplicitBlockwise, NodeOutputs
from graph_bridge.nodes import is_expansion, read_or_build
from graph_bridge.ops import BROADCAST, KEPT, MISSING, output_static_shape
from graph_bridge.random_variables import ExplicitRandomVariable, size_length
from graph_bridge.terms import OutputOf, op_term, term, term_variable
from graph_bridge.vocabulary import builder_for
from logic_core.moded import Mode, moded
from relations.rules.broadcast.stock_terms import expand_term, kept_lengths

__all__ = [
    "batch_inputso",
    "explicit_blockwiseo",
    "explicit_rvo",
    "lifted_batch_dimso",
    "rv_coreso",
    "stock_batched",
    "stock_blockwiseo",
    "stock_rv",
    "stock_rvo",
]

DS = builder_for(DimShuffle)


def output_index(v: Any) -> int | None:
    """The output index of ``v`` in its node, ``None`` for a one-output node."""
    outs = v.owner.outputs
    return None if len(outs) == 1 else outs.index(v)


def pick_output(index: Any, node_term: Any) -> Any:
    """The term of output ``index`` of ``node_term`` (the node term itself for ``None``)."""
    return node_term if index is None else term(OutputOf(index), node_term)


def core_ndims_of(op: Any) -> tuple[int, ...]:
    return tuple(len(s) for s in op.inputs_sig)


def stock_blockwiseo(
    out: Any, core_op: Any, signature: Any, index: Any, core_ndims: Any, inputs: Any, broadcasting: bool = False
):
    """``out`` is output ``index`` (``None``: the only one) of a stock Blockwise.

    A not-inplace ``Blockwise(core_op, signature)(*inputs)``.

    ``broadcasting``: only nodes that can broadcast (two or more inputs, a
    batch dim) are read.
    """

    def read(v):
        node = v.owner
        if node is not None and type(node.op) is Blockwise and not node.op.destroy_map:
            op = node.op
            if broadcasting and (len(node.inputs) < 2 or op.batch_ndim(node) == 0):
                return None
            return op.core_op, op.signature, output_index(v), core_ndims_of(op), tuple(node.inputs)
        return None

    def ready(p):
        return isinstance(p[1], str) and isinstance(p[4], tuple)

    def build(p):
        core, sig, idx, _, ins = p
        return pick_output(idx, term(op_term(Blockwise(core, sig)), *ins))

    return read_or_build(
        out,
        (core_op, signature, index, core_ndims, inputs),
        read,
        ready,
        build,
        "stock_blockwiseo needs out, or core_op, signature, index and inputs",
        single=True,
    )


def explicit_blockwiseo(out: Any, core_op: Any, signature: Any, index: Any, core_ndims: Any, pattern: Any, inputs: Any):
    """``out`` is output ``index`` of ``ExplicitBlockwise(core_op, signature, pattern)(*inputs)``."""

    def read(v):
        node = v.owner
        if node is not None and type(node.op) is ExplicitBlockwise:
            op = node.op
            return op.core_op, op.signature, output_index(v), core_ndims_of(op), op.pattern, tuple(node.inputs)
        return None

    def ready(p):
        return isinstance(p[1], str) and isinstance(p[4], tuple) and isinstance(p[5], tuple)

    def build(p):
        core, sig, idx, _, pat, ins = p
        return pick_output(idx, term(op_term(ExplicitBlockwise(core, sig, pat)), *ins))

    return read_or_build(
        out,
        (core_op, signature, index, core_ndims, pattern, inputs),
        read,
        ready,
        build,
        "explicit_blockwiseo needs out, or core_op, signature, index, pattern and inputs",
        single=True,
    )


def _absorbed(v: Any, core: int) -> tuple[Any, str]:
    """The input a batched Op's argument pads (batch dims added), and its batch entry.

    A DimShuffle that adds batch dims and also permutes (or drops) dims is
    split: the batch dims it adds go into the entry, and the rest of it
    stays as a DimShuffle term over its input (``DimShuffle{order=(x, 1,
    0)}(L)`` under a ``Blockwise{SolveTriangular}``: ``L.T``, entry ``x``).
    """
    nb = v.type.ndim - core
    node = v.owner
    if node is not None and type(node.op) is DimShuffle and "x" in node.op.new_order[:nb]:
        order = node.op.new_order
        if "x" not in order[nb:]:
            inner = node.inputs[0]
            rest = tuple(o for o in order if o != "x")
            static = [inner.type.shape[o] for o in rest]
            shape = iter(static)
            entry = "".join(MISSING if o == "x" else (BROADCAST if next(shape) == 1 else KEPT) for o in order[:nb])
            if is_expansion(v):
                return inner, entry
            return term(term(DS, inner.type.ndim, rest), inner), entry
    return v, "".join(BROADCAST if s == 1 else KEPT for s in v.type.shape[:nb])


def batch_inputso(stock: Any, inputs: Any, pattern: Any, core_ndims: Any, width: Any):
    """``stock`` are the padded inputs a stock batched Op needs for ``inputs`` under ``pattern``.

    ``core_ndims`` are the inputs' core ndims; ``width`` the output batch
    rank when a ``size`` fixes it (``None``: the widest input's).  Forward
    (``stock`` known): each ExpandDims adding only batch dims is absorbed and
    the pattern read from static shapes; no answer when a leading batch dim
    would be one no input has (the explicit Op would drop it).  Backward
    (``inputs`` and ``pattern`` known): ExpandDims for the ``'x'`` dims, with
    the run-time checks of ``relations.rules.broadcast`` where static shapes were
    refined (a ``'1'`` dim of unknown length, a ``'*'`` dim of static 1).
    """

    def absorb(st, cores, w):
        vs = [term_variable(t) for t in st]
        if any(v is None for v in vs) or len(vs) != len(cores):
            return None
        found = [_absorbed(v, c) for v, c in zip(vs, cores)]
        pattern = tuple(e for _, e in found)
        if w is None and pattern and pattern[0] and all(e[0] == MISSING for e in pattern):
            return None
        return tuple(a for a, _ in found), pattern

    def expand(ins, pat, cores, w):
        vs = [term_variable(t) for t in ins]
        if any(v is None for v in vs) or len(vs) != len(pat):
            return None
        shapes = [v.type.shape[: v.type.ndim - c] for v, c in zip(vs, cores)]
        out_shape = output_static_shape(pat, shapes) if pat and pat[0] else ()
        lengths = kept_lengths(pat, vs)
        return (
            tuple(
                expand_term(
                    v, e + KEPT * c, lengths, (*out_shape, *(None,) * c), who=f"input {i} of an explicit batched Op"
                )
                for i, (v, e, c) in enumerate(zip(vs, pat, cores))
            ),
        )

    def ready_absorb(st, cores, w):
        return isinstance(st, tuple) and isinstance(cores, tuple)

    def ready_expand(ins, pat, cores, w):
        return isinstance(ins, tuple) and isinstance(pat, tuple) and isinstance(cores, tuple)

    return moded(
        "batch_inputso",
        {"stock": stock, "inputs": inputs, "pattern": pattern, "core_ndims": core_ndims, "width": width},
        Mode(needs=("stock", "core_ndims", "width"), gives=("inputs", "pattern"), ready=ready_absorb, one=absorb),
        Mode(needs=("inputs", "pattern", "core_ndims", "width"), gives=("stock",), ready=ready_expand, one=expand),
        waiting="batch_inputso needs stock, or inputs and pattern (and core_ndims and width)",
    )


def stock_batched(n: Any) -> bool:
    """A stock Blockwise with batch dims and two or more inputs (what ``blockwise_explicito`` rewrites)."""
    return len(n.inputs) >= 2 and n.op.batch_ndim(n) > 0


def stock_rv(n: Any) -> bool:
    """A stock RV with parameters and batch dims (what ``random_explicito`` rewrites)."""
    return len(n.inputs) > 2 and n.outputs[1].type.ndim > n.op.ndim_supp


def _is_plain_rv(node: Any) -> bool:
    """A not-inplace RV node of the ``(rng, size, *params)`` form with parameters and batch dims.

    Its class builds and draws as ``RandomVariable`` does (its own ``rng_fn``,
    not its own ``make_node`` or ``perform``): the explicit Op calls both.
    """
    op = node.op
    cls = type(op)
    return (
        isinstance(op, RandomVariable)
        and cls.make_node is RandomVariable.make_node
        and cls.perform is RandomVariable.perform
        and not op.inplace
        and len(node.outputs) == 2
        and len(node.inputs) == 2 + len(op.ndims_params) > 2
        and node.outputs[1].type.ndim > op.ndim_supp
    )


def stock_rvo(out: Any, rv_op: Any, index: Any, rng: Any, size: Any, width: Any, params: Any):
    """``out`` is output ``index`` of a stock, not-inplace ``rv_op`` node over ``(rng, size, *params)``.

    ``width`` is the number of entries of ``size`` (``None``: no size).
    """

    def read(v):
        node = v.owner
        if node is not None and _is_plain_rv(node):
            r, s, *ps = node.inputs
            return node.op, node.outputs.index(v), r, s, size_length(s), tuple(ps)
        return None

    def ready(p):
        return isinstance(p[1], int) and isinstance(p[5], tuple)

    def build(p):
        op, idx, r, s, _, ps = p
        return term(OutputOf(idx), term(NodeOutputs(op), r, s, *ps))

    return read_or_build(
        out,
        (rv_op, index, rng, size, width, params),
        read,
        ready,
        build,
        "stock_rvo needs out, or rv_op, index, rng, size and params",
        single=True,
    )


def explicit_rvo(out: Any, rv_op: Any, index: Any, rng: Any, size: Any, width: Any, pattern: Any, params: Any):
    """``out`` is output ``index`` of ``ExplicitRandomVariable(rv_op, pattern)(rng, size, *params)``."""

    def read(v):
        node = v.owner
        if node is not None and type(node.op) is ExplicitRandomVariable:
            r, s, *ps = node.inputs
            return node.op.rv_op, node.outputs.index(v), r, s, size_length(s), node.op.pattern, tuple(ps)
        return None

    def ready(p):
        return isinstance(p[1], int) and isinstance(p[5], tuple) and isinstance(p[6], tuple)

    def build(p):
        op, idx, r, s, _, pat, ps = p
        return term(OutputOf(idx), term(op_term(ExplicitRandomVariable(op, pat)), r, s, *ps))

    return read_or_build(
        out,
        (rv_op, index, rng, size, width, pattern, params),
        read,
        ready,
        build,
        "explicit_rvo needs out, or rv_op, index, rng, size, pattern and params",
        single=True,
    )


def rv_coreso(rv_op: Any, cores: Any):
    """``cores`` are the core ndims of ``rv_op``'s parameters."""
    return moded(
        "rv cores",
        {"rv_op": rv_op, "cores": cores},
        Mode(needs=("rv_op",), gives=("cores",), one=lambda op: (tuple(op.ndims_params),)),
    )


def _shared_batch_expansion(vs: list, cores: tuple[int, ...]) -> tuple[tuple[int, ...], tuple] | None:
    """The batch positions every input's ExpandDims adds (the same, none in core dims), and the inputs under them."""
    positions = None
    inner = []
    for v, c in zip(vs, cores):
        if v is None or not is_expansion(v):
            return None
        order = v.owner.op.new_order
        nb = v.type.ndim - c
        if "x" in order[nb:]:
            return None
        mine = tuple(d for d, o in enumerate(order[:nb]) if o == "x")
        if not mine or (positions is not None and mine != positions):
            return None
        positions = mine
        inner.append(v.owner.inputs[0])
    return None if positions is None else (positions, tuple(inner))


def lifted_batch_dimso(ins: Any, cores: Any, order: Any, in_ndim: Any, inner: Any, out_ndim: Any):
    """``ins`` are ``inner`` with the batch dims ``order`` adds (each input its own ExpandDims).

    ``order`` is the DimShuffle above the Blockwise: from ``in_ndim`` dims to
    ``out_ndim``.  Forward (``ins``, ``cores`` and ``out_ndim`` known): the
    positions every input's ExpandDims adds (the same, in batch dims only),
    as ``order``, and the inner inputs.  Backward (``order``, ``inner``,
    ``cores`` known): one ExpandDims per input.
    """

    def read(ts, cs, n):
        vs = [term_variable(t) for t in ts]
        found = _shared_batch_expansion(vs, cs)
        if found is None:
            return None
        positions, inner_vs = found
        kept = iter(range(n - len(positions)))
        order = tuple("x" if d in positions else next(kept) for d in range(n))
        return order, n - len(positions), inner_vs

    def build(o, parts, cs):
        positions = [d for d, x in enumerate(o) if x == "x"]
        if [x for x in o if x != "x"] != list(range(len(o) - len(positions))):
            return None  # the DimShuffle does more than add dims
        built = []
        for p, c in zip(parts, cs):
            v = term_variable(p)
            if v is None or v.type.ndim < c:
                return None
            nb = v.type.ndim - c + len(positions)
            if any(d >= nb for d in positions):
                return None  # a dim added among this input's core dims
            kept = iter(range(v.type.ndim))
            own = tuple("x" if d in positions else next(kept) for d in range(nb))
            built.append(term(term(DS, v.type.ndim, (*own, *kept)), p))
        return (tuple(built),)

    return moded(
        "lifted_batch_dimso",
        {"ins": ins, "cores": cores, "order": order, "in_ndim": in_ndim, "inner": inner, "out_ndim": out_ndim},
        Mode(
            needs=("ins", "cores", "out_ndim"),
            gives=("order", "in_ndim", "inner"),
            ready=lambda ts, cs, n: isinstance(ts, tuple) and isinstance(cs, tuple),
            one=read,
        ),
        Mode(
            needs=("order", "inner", "cores"),
            gives=("ins",),
            ready=lambda o, p, cs: isinstance(o, tuple) and isinstance(p, tuple),
            one=build,
        ),
        waiting="lifted_batch_dimso needs ins, or order and inner",
    )
