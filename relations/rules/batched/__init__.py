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
"""

from __future__ import annotations

from typing import Any

from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import DimShuffle
from pytensor.tensor.random.op import RandomVariable
from unification import var

from graph_bridge import ExplicitBlockwise, ExplicitRandomVariable, builder_for, ndimo, same_typeo, term
from relations.rules.batched.relations import (
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
from graph_bridge.measures import above, count
from logic_core.goals import lall_ready
from logic_core.unifier import eq
from relations.patterns.relation import rule
from relations.patterns.sharing import movable_eacho

__all__ = ["blockwise_explicito", "dimshuffle_through_blockwiseo", "random_explicito"]

DS = builder_for(DimShuffle)


@rule(
    heads=(Blockwise,),
    rhs_heads=(ExplicitBlockwise,),
    measure=count(Blockwise, exact=True, test=stock_batched, text="stock Blockwise with batch dims and two or more inputs"),
)
def blockwise_explicito(lhs: Any, rhs: Any):
    """Batch broadcasting moves from ExpandDims and static shapes into the Op.

    Before::

        Blockwise{Solve}(A, ExpandDims{axis=0}(b))       # A: (None, 3, 3), b: (3,)
        Blockwise{Dot}(ExpandDims{axis=0}(m), B)         # pt.matmul(m, B)

    After::

        Blockwise{Solve}{*,x}(A, b)
        Blockwise{Dot}{x,*}(m, B)

    A DimShuffle that adds batch dims and permutes the core dims too is split
    (PyMC's MvNormal logp pads the Cholesky factor's transpose in one)::

        Blockwise{SolveTriangular}(DimShuffle{order=(x, 1, 0)}(L), b)   # L: (3, 3), b: (5, 3)
        ->  Blockwise{SolveTriangular}{x,*}(Transpose(L), b)

    Every input ExpandDims that adds only batch dims is absorbed; the pattern
    says, per input and output batch dim, ``'x'``, ``'1'`` or ``'*'``.  Core
    dims are untouched.  Same output types (each output of a multi-output
    node: the engine replaces the whole node).

    Only nodes that can broadcast (a batch dim, two or more inputs); the
    others stay stock, as one-input Elemwise do.

    Measure: stock Blockwise nodes with batch dims and two or more inputs, -1.
    Sharing: the node is replaced by one of the same kind; an absorbed
    ExpandDims other nodes use stays for them.
    Backward it is ``relations.lower``: the stock Blockwise over the padded
    inputs (with a SpecifyShape or Assert where a replacement refined a
    static shape, so that the stock Op keeps the explicit behaviour).
    """
    core, sig, index, cores, stock, inputs, pattern = var(), var(), var(), var(), var(), var(), var()
    return lall_ready(
        stock_blockwiseo(lhs, core, sig, index, cores, stock, broadcasting=True),
        explicit_blockwiseo(rhs, core, sig, index, cores, pattern, inputs),
        batch_inputso(stock, inputs, pattern, cores, None),
        same_typeo(lhs, rhs),
    )


@rule(
    heads=(RandomVariable,),
    rhs_heads=(ExplicitRandomVariable,),
    measure=count(RandomVariable, test=stock_rv, text="stock RandomVariable with batch dims and parameters"),
)
def random_explicito(lhs: Any, rhs: Any):
    """A random variable's parameter broadcasting moves from ExpandDims into the Op.

    Before::

        normal_rv(rng, [4 3], ExpandDims{axes=(0, 1)}(mu), ExpandDims{axis=0}(s))   # mu: (), s: (3,)

    After::

        normal_rv{xx,x*}(rng, [4 3], mu, s)

    Every parameter ExpandDims that adds only batch dims is absorbed.  Both
    outputs (next rng, draw) keep their types; the draws are the stock
    draws for the same generator state.  Only not-inplace RVs of the
    ``(rng, size, *params)`` form.

    Only RVs with parameters and batch dims (the others have nothing to pad).

    Measure: stock RandomVariable nodes with batch dims and parameters, -1.
    Sharing: the node is replaced by one of the same kind (both outputs);
    an absorbed ExpandDims other nodes use stays for them.
    Backward it is ``relations.lower``: the stock RV over the padded
    parameters (with a SpecifyShape or Assert where a static shape was refined).
    """
    rv_op, index, rng, size, width, stock, params, pattern, cores = (var() for _ in range(9))
    return lall_ready(
        stock_rvo(lhs, rv_op, index, rng, size, width, stock),
        explicit_rvo(rhs, rv_op, index, rng, size, width, pattern, params),
        rv_coreso(rv_op, cores),
        batch_inputso(stock, params, pattern, cores, width),
        same_typeo(lhs, rhs),
    )


@rule(
    heads=(Blockwise,),
    rhs_heads=(DimShuffle,),
    child_heads=(DimShuffle,),
    measure=above(lambda n: isinstance(n.op, DimShuffle), Blockwise, "DimShuffle").keeping(count(DimShuffle)),
)
def dimshuffle_through_blockwiseo(lhs: Any, rhs: Any):
    """An ExpandDims adding the same batch dims to every input of a Blockwise moves above it.

    Before / after (``A`` a ``(None, 3, 3)`` tensor, ``b`` a ``(None, 3)`` matrix)::

        Blockwise{Solve}(ExpandDims{axis=0}(A), ExpandDims{axis=0}(b))
            ->  ExpandDims{axis=0}(Blockwise{Solve}(A, b))

    A Blockwise computes batch element by batch element, so it commutes
    with adding the same (length-1) batch dims to all its inputs; above it
    the ExpandDims meets what it was waiting for: a reduction over those
    dims (``careduce_added_dimso``), another DimShuffle, or an Elemwise.
    One-output Blockwise only; each ExpandDims may move (``movable_viewo``).

    Measure: the DimShuffle is one Blockwise closer to the outputs; ``k``
    ExpandDims become one, so their count never grows.
    Backward: ``ExpandDims(Blockwise(A, b))`` gives one ExpandDims per input.
    """
    core, sig, cores, ins, order, k, inner, fx, n = (var() for _ in range(9))
    return lall_ready(
        stock_blockwiseo(lhs, core, sig, None, cores, ins),
        ndimo(lhs, n),
        eq(rhs, term(term(DS, k, order), fx)),
        stock_blockwiseo(fx, core, sig, None, cores, inner),
        lifted_batch_dimso(ins, cores, order, k, inner, n),
        movable_eacho(ins),
        same_typeo(lhs, rhs),
    )
