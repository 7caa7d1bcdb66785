"""DimShuffle removal (seed 001): DimShuffles a reduction does not see, and chains of them.

Each relation is a miniKanren goal constructor ``rel(lhs, rhs)``: both sides
compute the same values with the same type.  Run forward it removes or lifts a
DimShuffle; run backward it generates the forms that normalize to ``rhs``,
within the bounds of :mod:`relations.orders`.
"""

from __future__ import annotations

from typing import Any

from kanren.core import conde
from pytensor.tensor.elemwise import CAReduce, DimShuffle
from unification import var

from graph_bridge import NotReady, builder_for, ndimo, same_typeo, term
from graph_bridge.context import single_useo
from graph_bridge.logic import eq, lreify
from relations.goals import lall_ready
from relations.orders import (
    compose_orderso,
    identity_ordero,
    is_identity,
    reduce_througho,
    valid_ordero,
)
from relations.reductions import careduce_heado, full_reductiono
from relations.rules import rule

__all__ = [
    "careduce_dimshuffle_fullo",
    "careduce_dimshuffle_partialo",
    "dimshuffle_composeo",
    "dimshuffle_identityo",
    "maybe_dimshuffleo",
]

DS = builder_for(DimShuffle)


def dimshuffleo(out: Any, n: Any, order: Any, x: Any):
    """``out`` is ``DimShuffle{input_ndim=n, new_order=order}(x)``."""
    return eq(out, term(term(DS, n, order), x))


@rule(
    heads=(CAReduce,),
    rhs_heads=(CAReduce,),
    child_heads=(DimShuffle,),
    measure="number of DimShuffle nodes (-1)",
)
def careduce_dimshuffle_fullo(lhs: Any, rhs: Any):
    """A full reduction does not see the layout of its input.

    Before::

        Sum{axes=None}(DimShuffle{order}(x))     # any order: expand, drop, transpose

    After::

        Sum{axes=None}(x)

    For every CAReduce class (Sum, Prod, Max, Min, All, Any, generic); the
    head (scalar op, dtype, acc_dtype, ...) is the same on both sides, so the
    output type is unchanged.  A DimShuffle only adds or drops length-1 dims
    and permutes, so the multiset of reduced elements is the same (empty
    inputs included; floating-point sums may round differently).

    Measure: DimShuffle count drops by one.
    Sharing: nothing is copied; a DimShuffle other nodes use stays for them.
    Backward: from ``CAReduce{None}(x)`` it generates ``x``'s expansions with
    up to ``relations.orders.MAX_ADDED_DIMS`` inserted dims.
    """
    x, n, order, head = var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(head, term(term(DS, n, order), x))),
        eq(rhs, term(head, x)),
        full_reductiono(head),
        ndimo(x, n),
        valid_ordero(n, order),
    )


def _axes_tupleo(axes: Any):
    def axes_tuple_goal(S):
        a = lreify(axes, S)
        if isinstance(a, tuple):
            yield S
        elif a is None:
            return
        else:
            raise NotReady("axes not known")

    return axes_tuple_goal


def maybe_dimshuffleo(out: Any, m: Any, order: Any, inner: Any):
    """``out`` is ``DimShuffle{m, order}(inner)``, or ``inner`` when ``order`` is the identity."""

    def maybe_dimshuffle_goal(S):
        o, m_w = lreify(order, S), lreify(m, S)
        if isinstance(o, tuple) and isinstance(m_w, int):
            if is_identity(m_w, o):
                yield from eq(out, inner)(S)
            else:
                yield from dimshuffleo(out, m_w, o, inner)(S)
            return
        if isinstance(lreify(out, S), type(var())):
            raise NotReady("maybe_dimshuffleo needs out, or m and order")
        yield from conde(
            [dimshuffleo(out, m, order, inner), _not_identityo(m, order)],
            [eq(out, inner), lall_ready(ndimo(inner, m), identity_ordero(m, order))],
        )(S)

    return maybe_dimshuffle_goal


def _not_identityo(n: Any, order: Any):
    def not_identity_goal(S):
        o, n_w = lreify(order, S), lreify(n, S)
        if isinstance(o, tuple) and isinstance(n_w, int):
            if not is_identity(n_w, o):
                yield S
            return
        raise NotReady("order not known")

    return not_identity_goal


@rule(
    heads=(CAReduce,),
    rhs_heads=(CAReduce, DimShuffle),
    child_heads=(DimShuffle,),
    measure="DimShuffles below a CAReduce (-1); node count does not grow",
)
def careduce_dimshuffle_partialo(lhs: Any, rhs: Any):
    """A DimShuffle moves out of a partial reduction; reduced added dims vanish.

    Before / after (``m`` a matrix)::

        Sum{axis=(0, 2)}(ExpandDims{axis=0}(m))   ->  Sum{axis=1}(m)
        Sum{axis=2}(ExpandDims{axis=0}(m))        ->  ExpandDims{axis=0}(Sum{axis=1}(m))
        Sum{axis=0}(Transpose(m))                 ->  Sum{axis=1}(m)

    The reduction runs over the input dims behind the reduced output dims
    (dims the DimShuffle drops have length 1 and are reduced too); reduced
    ``'x'`` dims have length 1 and vanish; the kept dims are put back in
    order by a DimShuffle after the reduction, omitted when it is the
    identity.  The head's props other than ``axis`` are kept (same dtype).
    Only when the DimShuffle has no other use (``single_useo``): another
    consumer would keep it, and the DimShuffle moved above the reduction
    would be a second one.

    Measure: the number of DimShuffle nodes with a CAReduce above them drops
    by one (the DimShuffle now sits above the reduction, or is gone).
    Backward: inverts the axis mapping over identity and expanding orders
    (``MAX_ADDED_DIMS``), for inputs of up to 4 dims; no permutations.
    """
    x, n, order, axes, shuffled = var(), var(), var(), var(), var()
    head, head2, axes2, order2, m, inner = var(), var(), var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(head, shuffled)),
        eq(shuffled, term(term(DS, n, order), x)),
        maybe_dimshuffleo(rhs, m, order2, inner),
        eq(inner, term(head2, x)),
        careduce_heado(head, axes, head2, axes2),
        ndimo(x, n),
        _axes_tupleo(axes),
        reduce_througho(n, order, axes, axes2, order2),
        ndimo(inner, m),
        single_useo(shuffled),
        same_typeo(lhs, rhs),
    )


@rule(
    heads=(DimShuffle,),
    rhs_heads=(DimShuffle,),
    child_heads=(DimShuffle,),
    measure="number of DimShuffle nodes (-1)",
)
def dimshuffle_composeo(lhs: Any, rhs: Any):
    """Two DimShuffles in a row are one.

    Before::

        DimShuffle{outer}(DimShuffle{inner}(x))

    After::

        DimShuffle{compose(inner, outer)}(x)

    ``compose`` maps each output dim through both orders; dims either step
    drops are broadcastable, so the composed DimShuffle is valid.

    Measure: DimShuffle count drops by one.
    Sharing: the inner DimShuffle stays for its other users, the outer one is
    replaced by one: no kind grows.
    Backward: splits a DimShuffle of ``x`` into an expansion of ``x`` (up to
    ``MAX_ADDED_DIMS`` inserted dims) followed by the rest.
    """
    x, n, inner, outer, m, composed = var(), var(), var(), var(), var(), var()
    return lall_ready(
        eq(lhs, term(term(DS, m, outer), term(term(DS, n, inner), x))),
        eq(rhs, term(term(DS, n, composed), x)),
        ndimo(x, n),
        compose_orderso(inner, outer, composed, n),
        _lengtho(inner, m),
        same_typeo(lhs, rhs),
    )


def _lengtho(seq: Any, n: Any):
    def length_goal(S):
        s = lreify(seq, S)
        if not isinstance(s, tuple):
            raise NotReady("sequence not known")
        yield from eq(n, len(s))(S)

    return length_goal


@rule(heads=(DimShuffle,), rhs_heads=None, measure="number of DimShuffle nodes (-1)")
def dimshuffle_identityo(lhs: Any, rhs: Any):
    """An identity DimShuffle is its input.

    Before::

        DimShuffle{input_ndim=2, new_order=(0, 1)}(x)

    After::

        x

    Measure: DimShuffle count drops by one.  Backward: one form per term.
    Sharing: removes a node, copies none.
    """
    x, n, order = var(), var(), var()
    return lall_ready(
        eq(lhs, term(term(DS, n, order), x)),
        eq(rhs, x),
        ndimo(x, n),
        identity_ordero(n, order),
    )
