"""Explicit broadcast patterns (aesara #933, pytensor #408, JuliaLang #26212): Elemwise without DimShuffles.

The table (each rule explained in ``docs/broadcasting.md``, under its
name): one rule relates the stock form of an Elemwise, whose lower-rank
inputs are wrapped in ``DimShuffle``s and whose broadcasting is read from
static shapes, to :class:`graph_bridge.ops.ExplicitElemwise`, whose pattern
records the broadcasting; one does the same for Alloc.  Forward they
normalize (absorb the expanding DimShuffles, fix the pattern); backward they
lower (``relations.lower``) to stock Ops that PyTensor's backends know.  The
stock terms and run-time checks are :mod:`relations.rules.broadcast.stock_terms`.
:func:`broadcast_shapeo` is the numpy broadcasting rule itself, as a
relation over broadcastable patterns.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import Elemwise

from graph_bridge import same_typeo
from graph_bridge.measures import count
from logic_core.goals import NotReady
from logic_core.term_kinds import is_ground
from logic_core.unifier import eq, lreify
from relations import patterns as p
from relations.patterns.rewrite_rule import rewrite_rule
from relations.rules.broadcast.stock_terms import alloc_valueo, stock_inputso

__all__ = [
    "MAX_BACKWARD_NDIM",
    "alloc_explicito",
    "alloc_identityo",
    "broadcast_shapeo",
    "elemwise_explicito",
]

#: ``broadcast_shapeo`` run with no ndim known enumerates outputs up to this ndim.
MAX_BACKWARD_NDIM = 3

f, pattern, entry = p.var("f"), p.var("pattern"), p.var("entry")
stock, inputs, v, stock_v, shape = p.var("stock"), p.var("inputs"), p.var("v"), p.var("stock_v"), p.var("shape")


def _broadcasting_node(node) -> bool:
    """A node ``elemwise_explicito`` makes explicit: ndim >= 1 and two or more inputs."""
    return node.outputs[0].type.ndim >= 1 and len(node.inputs) >= 2


alloc_identityo = rewrite_rule(
    "alloc_identityo",
    p.alloc_of(v, ()),
    v,
    where=(same_typeo(p.LHS, p.RHS),),
    doc="An Alloc to no lengths (a 0-d value, a 0-d output) is its value.",
    docs="broadcasting.md",
)


alloc_explicito = rewrite_rule(
    "alloc_explicito",
    p.stock_alloc_of(stock_v, shape),
    p.explicit_alloc_of(v, entry, shape),
    where=(alloc_valueo(stock_v, v, entry, shape), same_typeo(p.LHS, p.RHS)),
    measure=count(Alloc, exact=True, text="stock Alloc"),
    doc="The broadcasting of an Alloc's value moves from its static shape into the Op.",
    docs="broadcasting.md",
)


elemwise_explicito = rewrite_rule(
    "elemwise_explicito",
    p.elemwise(f, inputs=stock, broadcasting=True),
    p.explicit_elemwise(f, pattern, inputs=inputs),
    where=(stock_inputso(stock, inputs, pattern), same_typeo(p.LHS, p.RHS)),
    measure=count(Elemwise, exact=True, test=_broadcasting_node, text="stock Elemwise (ndim >= 1, two or more inputs)"),
    doc="Broadcasting moves from DimShuffles and static shapes into the Op.",
    docs="broadcasting.md",
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
