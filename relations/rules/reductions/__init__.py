"""Reductions through broadcasts, Allocs and writes into a fill: rewrites that are choices.

A ``Sum`` over axes along which an operand of a ``Mul`` is broadcast can
take the operand out (it multiplies the sum once instead of every element);
an operand of an ``Add`` or ``Sub`` broadcast along them is counted ``N``
times (``N`` the number of elements reduced per output element); a
reduction of an ``Alloc`` of a broadcast value reads the value; a full
reduction of writes into a constant fill (``zeros(n)[idx].set(v)``, the
LKJCorr logp's Cholesky factor, pytensor #2138) reads the fill value and
the written values.  PR #2130's reduce-of-join is the same kind of rewrite
(pytensor #2132).

Each is a relation like the others (forward, backward, check), but a
choice: PyTensor fuses a reduction with the Elemwise below it into one
loop, so moving the Elemwise out pays only where the reduced sizes are
large enough.  They are the rule set ``RULESETS["choices"]`` and not in the
default or compile sets: extraction under a measured cost decides.

The table: each rule is one ``rewrite_rule``.  ``p.reduce(h, ...)`` is the
reduction (``h`` its whole head; ``heads=`` narrows the index to the
reductions the rule reads), ``p.elemwise_operands(f, xs, es)`` an Elemwise
read as its operands and their broadcast entries; the relations between the
parts of the two sides (which operands leave the Sum, the counted lengths,
the Alloc's value, the fill and the written values) are
:mod:`relations.rules.reductions.facts`.
"""

from __future__ import annotations

from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import CAReduce, Elemwise
from pytensor.tensor.math import Max, Min, Sum

from graph_bridge import dtypeo, same_typeo
from graph_bridge.measures import count, weighted_operands
from graph_bridge.node_relations import SET_CLASSES
from relations.rules.reductions.facts import (
    alloc_reductiono,
    count_broadcasto,
    factor_broadcasto,
    fill_writeso,
    sum_dtype_safeo,
)
from relations import patterns as p
from relations.patterns.rewrite_rule import rewrite_rule

__all__ = [
    "reduce_alloco",
    "reduce_writeso",
    "sum_count_broadcasto",
    "sum_factor_broadcasto",
]

# reduction heads, the reduced Elemwise, its scalar op, operands and entries, the output dtype
h, x, f, xs, es, d = p.var("h"), p.var("x"), p.var("f"), p.var("xs"), p.var("es"), p.var("d")
# what the right sides are built from: the Sum's operand, the operands taken out, the parts combined
kept, out, parts = p.var("kept"), p.var("out"), p.var("parts")
# an Alloc's value and shape, and the new value and kept lengths; a set's base, fill, indices, value and Op
value, shape, w, lengths = p.var("value"), p.var("shape"), p.var("w"), p.var("lengths")
base, fill, idx, written, sh = p.var("base"), p.var("fill"), p.var("idx"), p.var("written"), p.var("sh")


def _is_set(node) -> bool:
    return bool(node.op.set_instead_of_inc)


sum_factor_broadcasto = rewrite_rule(
    "sum_factor_broadcasto",
    p.reduce(h, p.named(x, p.elemwise_operands(f, xs, es))),
    p.elemwise_first(f, p.reduce(h, kept), out),
    where=(
        dtypeo(p.LHS, d),
        factor_broadcasto(h, f, xs, es, kept, out),
        sum_dtype_safeo(x, d),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=weighted_operands(),
    heads=(Sum,),
    rhs_heads=(Elemwise,),
    doc="""A Sum takes out the Mul operands broadcast along its axes, and a Neg.

    Before / after (``m``: (n, k); ``r``: (1, k); ``s`` 0-d)::

        Sum{axis=0}(Mul(m, r))               ->  Mul(Sum{axis=0}(m), DropDims{0}(r))
        Sum{axis=(0, 1)}(Mul(m, s))          ->  Mul(Sum{axis=(0, 1)}(m), s)
        Sum{axis=1}(Neg(m))                  ->  Neg(Sum{axis=1}(m))

    For stock and explicit Elemwise (an operand is broadcast along an axis
    where it is missing or has static length 1).  The Sum's head is kept
    (dtype, acc_dtype); the operands that are not broadcast stay under it,
    in one Mul.  A choice: the Mul then runs on the reduced size, but
    PyTensor fuses ``Sum(Mul(...))`` into one loop (no array is written),
    so it pays only when the operands' own graphs are shared or large.
    Floating-point sums may round differently (``sum(a) * b`` for
    ``sum(a * b)``).

    Measure: the sum over Elemwise nodes of their operands times 8 to the
    number of reductions above them drops: the Mul (or Neg) moves above the
    Sum, keeping under it only the operands that are not broadcast, and the
    broadcast operands' graphs lose a reduction above them.
    Backward: from ``Mul(Sum{axes}(a), *b)`` (the Sum first) it expands each
    ``b`` at the reduced axes; from ``Neg(Sum(a))`` it puts the Neg under it;
    only where the new Elemwise computes in floats or the Sum's dtype, as
    forward (an int8 ``Mul(Sum(a), b)`` has no int8 preimage: it would wrap).
    """,
)

sum_count_broadcasto = rewrite_rule(
    "sum_count_broadcasto",
    p.reduce(h, p.named(x, p.elemwise_operands(f, xs, es))),
    p.elemwise_or_one(f, parts),
    where=(
        dtypeo(p.LHS, d),
        dtypeo(p.RHS, d),
        count_broadcasto(h, x, d, f, xs, es, parts),
        sum_dtype_safeo(x, d),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=weighted_operands(),
    heads=(Sum,),
    doc="""A Sum of an Add or Sub counts the operands broadcast along its axes ``N`` times.

    Before / after (``m``: (n, k) with static ``n``; ``r``: (1, k))::

        Sum{axis=0}(Add(m, r))      ->  Add(Sum{axis=0}(m), Mul(n, DropDims{0}(r)))
        Sum{axis=0}(Sub(r, m))      ->  Sub(Mul(n, DropDims{0}(r)), Sum{axis=0}(m))

    ``N`` is the number of elements each output element reduces: the
    product of the Elemwise output's static lengths along the axes (unknown
    lengths: left alone), a constant of the Sum's output dtype (the
    broadcast operand is cast to it, as the Sum accumulates in it).  A
    choice, as :func:`sum_factor_broadcasto`.  Floating-point: ``n * r``
    for ``r + r + ... + r`` may round differently.

    Measure: as :func:`sum_factor_broadcasto`: ``j`` counted operands leave
    the Sum, and above it at most ``4j + 1`` operands are added (the Add's
    or Sub's, a binary Mul and a Cast per operand), each weighing 8 times
    less.
    Backward: from ``Add(Sum{axes}(a), Mul(N, c))`` or the same ``Sub``,
    where ``N`` is a constant equal to ``a``'s static reduced length (and
    the dtypes as forward).
    """,
)

reduce_alloco = rewrite_rule(
    "reduce_alloco",
    p.reduce(h, p.named(x, p.alloc_of(value, shape))),
    p.maybe_alloc(w, lengths),
    where=(dtypeo(p.LHS, d), alloc_reductiono(h, x, d, value, shape, w, lengths), same_typeo(p.LHS, p.RHS)),
    measure=count(CAReduce),
    heads=(Sum, Max, Min),
    rhs_heads=(Alloc, Elemwise),
    doc="""A reduction of an Alloc along axes where its value is broadcast reads the value.

    Before / after (``v``: (k,) or 0-d; ``n``, ``m`` lengths)::

        Sum{axis=0}(Alloc(v, n, k))          ->  Alloc(Mul(v, cast(n)), k)
        Sum{axis=None}(Alloc(s, n, m))       ->  Mul(Mul(s, cast(n)), cast(m))
        Max{axis=0}(Alloc(v, n, k))          ->  Alloc(v, k)     # n statically > 0

    Sum multiplies by the reduced lengths (cast to the output dtype; the
    value too, so an int8 fill summed in int64 does not overflow); Max and
    Min need every reduced length statically positive (an empty axis would
    fail before and not after).  The length check the Alloc makes on kept
    dims stays in the new Alloc; on reduced dims it is gone (a negative
    length raised before; the rewrite assumes a valid graph).

    Measure: CAReduce nodes drop by one (only Elemwise, DimShuffle and
    Alloc nodes are built).
    Backward: from a stock ``Alloc(Mul(v, cast(n1), ...), *kept)`` the Sum
    over new leading axes of lengths ``n1, ...``; from any other stock
    ``Alloc(w, *kept)`` the Max over a new leading axis of length 1 (``kept``
    not empty: a full reduction's value alone, or a 0-d Alloc, is not read
    backward).
    """,
)

reduce_writeso = rewrite_rule(
    "reduce_writeso",
    p.reduce(h, p.set_at(p.named(base, p.alloc_of(fill, shape)), idx, written, op=sh)),
    p.elemwise_or_one(f, parts),
    where=(
        dtypeo(p.LHS, d),
        fill_writeso(h, d, base, fill, shape, idx, written, sh, f, parts),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=count(*SET_CLASSES, exact=True, test=_is_set, text="set"),
    heads=(Sum, Max, Min),
    doc="""A full reduction of writes into a constant fill reads the fill and the written values.

    Before / after (``c`` 0-d, ``N`` the base's size, ``k`` the elements written)::

        Sum(Alloc(c, *shape)[idx].set(v))    ->  Add(Mul(c, N - k), Sum(v))
        Max(Alloc(c, *shape)[idx].set(v))    ->  Maximum(c, Max(v))       # 0 < k < N
        Min(...)                              ->  Minimum(c, Min(v))

    Only without repeated writes (basic indices, or constant advanced ones
    that name each element once, as ``inc_zeros_as_seto`` checks): with a
    repeat the set keeps the last write and ``Sum(v)`` would count the
    others.  The base's shape and the written region's must be static, and
    ``v`` must fill the region (same static shape; no broadcast value).
    ``v`` is reduced in the base's dtype (what the set stores).  Max and Min
    with nothing written give ``c``; with everything written ``Max(v)``;
    over an empty base they are left alone (both sides would fail, but
    ``Max(v)`` of a made-up shape is not the same failure).

    Measure: set nodes drop by one.
    Backward: from ``Add(Mul(c, M), Sum(v))`` (``M >= 1`` a constant, ``v``
    a vector of static length ``k``) the Sum of ``Alloc(c, k + M)`` with
    ``v`` set at ``arange(k)``; from ``Maximum(c, Max(v))`` the same with
    ``M = 1``.  (``Mul`` exactly: ``Add(Sub(c, M), Sum(v))`` has no preimage.)
    """,
)
