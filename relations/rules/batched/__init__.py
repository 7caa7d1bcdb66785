"""Explicit batch broadcasting for Blockwise and RandomVariable (pytensor #408, aesara #933).

The Elemwise relation of ``relations/rules/broadcast/__init__.py``, for the batched Ops:
``Blockwise.make_node`` and ``RandomVariable.make_node`` left-pad inputs with
fewer batch dims with ``ExpandDims``, and read broadcasting from static
shapes.  :func:`blockwise_explicito` and :func:`random_explicito` relate
that stock form to :class:`graph_bridge.ExplicitBlockwise` and
:class:`graph_bridge.ExplicitRandomVariable`, whose pattern records the
batch broadcasting: forward they absorb the padding (``normalize``),
backward they give the stock node back (``relations.lower``, the compile
pass).  :func:`dimshuffle_through_blockwiseo` moves a DimShuffle that adds
the same batch dims to every input of a Blockwise above it, where a
reduction over those dims sees it (``careduce_added_dimso``).

The table: each rule is one ``rewrite_rule`` (its two sides, its guards, a
one-line doc); ``docs/broadcasting.md`` explains each under its name.  A
batched node's parts (core Op, signature, output index, core ndims,
inputs; an RV's generator, size and parameters) are tuples and Op props,
so its pattern node is the goal of :mod:`relations.rules.batched.batch_goals`
that reads or builds it (:func:`_node`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.random.op import RandomVariable

from graph_bridge import ExplicitBlockwise, ExplicitRandomVariable, ndimo, same_typeo
from graph_bridge.measures import above, count
from relations import patterns as p
from relations.patterns.nodes import CompiledNode
from relations.patterns.rewrite_rule import rewrite_rule
from relations.patterns.sharing import movable_eacho
from relations.rules.batched.batch_goals import (
    batch_inputso,
    explicit_blockwiseo,
    explicit_rvo,
    lifted_batch_dimso,
    rv_coreso,
    stock_batched,
    stock_blockwiseo,
    stock_rv,
    stock_rvo,
)

__all__ = ["blockwise_explicito", "dimshuffle_through_blockwiseo", "random_explicito"]

def _node(name: str, op_classes: tuple, make: Callable, *parts: Any) -> CompiledNode:
    """The pattern node whose goal is ``make(out, *parts)`` (a batched node read into its parts, or built)."""

    def goal_of(compiler, out, kids):
        compiler.goal(make, (out, *parts))

    return CompiledNode(name, (), op_classes, ", ".join(map(str, parts)), goal_of=goal_of)


def _stock_broadcasting(out: Any, core: Any, sig: Any, index: Any, cores: Any, inputs: Any) -> Any:
    """``stock_blockwiseo`` of a node that can broadcast (a batch dim, two or more inputs)."""
    return stock_blockwiseo(out, core, sig, index, cores, inputs, broadcasting=True)


# a Blockwise's core Op, signature, output index, core ndims, stock and explicit inputs, its pattern
core, sig, index, cores, stock, inputs, pattern = (
    p.var(n) for n in ("core", "sig", "index", "cores", "stock", "inputs", "pattern")
)
# an RV's Op, generator, size and its width, stock and explicit parameters
rv_op, rng, size, width, params = (p.var(n) for n in ("rv_op", "rng", "size", "width", "params"))
# a DimShuffle lifted out of a Blockwise: its order and input ndim, the inner Blockwise, its inputs, ndim
order, k, inner, n = (p.var(n) for n in ("order", "k", "inner", "n"))

blockwise_explicito = rewrite_rule(
    "blockwise_explicito",
    _node("stock_blockwise", (Blockwise,), _stock_broadcasting, core, sig, index, cores, stock),
    _node("explicit_blockwise", (ExplicitBlockwise,), explicit_blockwiseo, core, sig, index, cores, pattern, inputs),
    where=(batch_inputso(stock, inputs, pattern, cores, None), same_typeo(p.LHS, p.RHS)),
    measure=count(
        Blockwise, exact=True, test=stock_batched, text="stock Blockwise with batch dims and two or more inputs"
    ),
    doc="Batch broadcasting moves from ExpandDims and static shapes into the Op.",
    docs="broadcasting.md",
)

random_explicito = rewrite_rule(
    "random_explicito",
    _node("stock_rv", (RandomVariable,), stock_rvo, rv_op, index, rng, size, width, stock),
    _node("explicit_rv", (ExplicitRandomVariable,), explicit_rvo, rv_op, index, rng, size, width, pattern, params),
    where=(rv_coreso(rv_op, cores), batch_inputso(stock, params, pattern, cores, width), same_typeo(p.LHS, p.RHS)),
    measure=count(RandomVariable, test=stock_rv, text="stock RandomVariable with batch dims and parameters"),
    doc="A random variable's parameter broadcasting moves from ExpandDims into the Op.",
    docs="broadcasting.md",
)

dimshuffle_through_blockwiseo = rewrite_rule(
    "dimshuffle_through_blockwiseo",
    _node("stock_blockwise", (Blockwise,), stock_blockwiseo, core, sig, None, cores, stock),
    p.dimshuffle(
        _node("stock_blockwise", (Blockwise,), stock_blockwiseo, core, sig, None, cores, inner), order, ndim=k
    ),
    where=(
        ndimo(p.LHS, n),
        lifted_batch_dimso(stock, cores, order, k, inner, n),
        movable_eacho(stock),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=above(lambda node: isinstance(node.op, DimShuffle), Blockwise, "DimShuffle").keeping(count(DimShuffle)),
    child_heads=(DimShuffle,),
    doc="An ExpandDims adding the same batch dims to every input of a Blockwise moves above it.",
    docs="broadcasting.md",
)
