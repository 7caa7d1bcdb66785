"""DimShuffle removal (seed 001): relations that drop DimShuffles a reduction does not see.

Each relation is a miniKanren goal constructor ``rel(lhs, rhs)``: both sides
compute the same values with the same type.  Run forward it removes a
DimShuffle; run backward it generates the forms that reduce to ``rhs``.
"""

from __future__ import annotations

from typing import Any

from kanren.core import eq, lall
from pytensor.tensor.elemwise import CAReduce, DimShuffle
from unification import var

from graph_bridge import builder_for, ndimo, term
from relations.orders import MAX_ADDED_DIMS, expand_ordero
from relations.reductions import full_reductiono
from relations.rules import rule

__all__ = ["careduce_expand_fullo"]

DS = builder_for(DimShuffle)


@rule(heads=(CAReduce,), rhs_heads=(CAReduce,), measure="number of DimShuffle nodes")
def careduce_expand_fullo(lhs: Any, rhs: Any):
    """A full reduction does not see dimensions a DimShuffle only adds.

    Before::

        Sum{axes=None}(ExpandDims{axis=0}(x))

    After::

        Sum{axes=None}(x)

    For every CAReduce class (Sum, Prod, Max, Min, All, Any, generic); the
    reduction's props, dtype and acc_dtype included, are the same on both
    sides, so the output type is unchanged.  Added dims have length 1, so the
    values and the elements reduced are the same, for empty ``x`` too.

    Measure: the number of DimShuffle nodes drops by one.
    Backward: from ``CAReduce{None}(x)`` it generates the expansions of ``x``
    with up to ``relations.orders.MAX_ADDED_DIMS`` inserted dims.
    """
    x, n, order, head = var(), var(), var(), var()
    return lall(
        eq(lhs, term(head, term(term(DS, n, order), x))),
        eq(rhs, term(head, x)),
        full_reductiono(head),
        ndimo(x, n),
        expand_ordero(n, order, MAX_ADDED_DIMS),
    )
