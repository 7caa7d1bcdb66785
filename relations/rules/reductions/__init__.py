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

The table: each rule is one ``rewrite_rule`` (``docs/reductions.md`` explains
each under its name).  ``p.reduce(h, ...)`` is the
reduction (``h`` its whole head; ``heads=`` narrows the index to the
reductions the rule reads), ``p.elemwise_operands(f, xs, es)`` an Elemwise
read as its operands and their broadcast entries; the relations between the
parts of the two sides (which operands leave the Sum, the counted lengths,
the Alloc's value, the fill and the written values) are
:mod:`relations.rules.reductions.reduction_goals`.
"""

from __future__ import annotations

from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import CAReduce, Elemwise
from pytensor.tensor.math import Max, Min, Sum

from graph_bridge import dtypeo, same_typeo
from graph_bridge.measures import count, weighted_operands
from graph_bridge.node_relations import SET_CLASSES
from relations import patterns as p
from relations.patterns.rewrite_rule import rewrite_rule
from relations.rules.reductions.reduction_goals import (
    alloc_reductiono,
    count_broadcasto,
    factor_broadcasto,
    fill_writeso,
    sum_dtype_safeo,
)

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
    p.reduce(h, p.named(x, p.elemwise_operands(f, xs, es)), of=(Sum,)),
    p.elemwise_first(f, p.reduce(h, kept), out),
    where=(
        dtypeo(p.LHS, d),
        factor_broadcasto(h, f, xs, es, kept, out),
        sum_dtype_safeo(x, d),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=weighted_operands(),
    rhs_heads=(Elemwise,),
    choice=True,
    doc="A Sum takes out the Mul operands broadcast along its axes, and a Neg: a choice.",
    docs="reductions.md",
)

sum_count_broadcasto = rewrite_rule(
    "sum_count_broadcasto",
    p.reduce(h, p.named(x, p.elemwise_operands(f, xs, es)), of=(Sum,)),
    p.elemwise_or_one(f, parts),
    where=(
        dtypeo(p.LHS, d),
        dtypeo(p.RHS, d),
        count_broadcasto(h, x, d, f, xs, es, parts),
        sum_dtype_safeo(x, d),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=weighted_operands(),
    choice=True,
    doc="A Sum of an Add or Sub counts the operands broadcast along its axes N times: a choice.",
    docs="reductions.md",
)

reduce_alloco = rewrite_rule(
    "reduce_alloco",
    p.reduce(h, p.named(x, p.alloc_of(value, shape)), of=(Sum, Max, Min)),
    p.maybe_alloc(w, lengths),
    where=(dtypeo(p.LHS, d), alloc_reductiono(h, x, d, value, shape, w, lengths), same_typeo(p.LHS, p.RHS)),
    measure=count(CAReduce),
    rhs_heads=(Alloc, Elemwise),
    choice=True,
    doc="A reduction of an Alloc along axes where its value is broadcast reads the value: a choice.",
    docs="reductions.md",
)

reduce_writeso = rewrite_rule(
    "reduce_writeso",
    p.reduce(h, p.set_at(p.named(base, p.alloc_of(fill, shape)), idx, written, op=sh), of=(Sum, Max, Min)),
    p.elemwise_or_one(f, parts),
    where=(
        dtypeo(p.LHS, d),
        fill_writeso(h, d, base, fill, shape, idx, written, sh, f, parts),
        same_typeo(p.LHS, p.RHS),
    ),
    measure=count(*SET_CLASSES, exact=True, test=_is_set, text="set"),
    choice=True,
    doc="A full reduction of writes into a constant fill reads the fill and the written values: a choice.",
    docs="reductions.md",
)
