"""The precision rule: a constant operand computed in the precision its Elemwise reads it in.

PyTensor reads a Python float that float32 holds exactly as a float32 constant, and an integer
as the narrowest integer type: ``pt.sqrt(2.0)`` is float32's ``sqrt(2)`` (``1.4142135``, 8.5e-9
off in relative terms), ``pt.log(2)`` float32's ``log(2)``, even where every other input is
float64.  PyMC's ``dist_math.std_cdf`` and ``normal_lcdf`` divide by ``pt.sqrt(2.0)``, so the
float64 normal log-CDF they compute is 1.7e-6 off at ``z = 10`` (7.5e-15 with float64's
``sqrt(2)``).  Canonicalize then folds the constant in float32, and no later rewrite can recover
the digits.

:func:`constant_operand_upcasto` casts the constant below the unary Elemwise to the dtype the
consumer computes in, so the function of the constant is evaluated (and folded) in that dtype.
The consumer's output type is unchanged; only the digits of the constant operand change, towards
the real value the graph spells.  Only a constant is cast (no run-time cost, and an input's
float32 data is the user's choice), below a unary Op computed more accurately in the wider dtype
(:data:`relations.rules.algebra.algebra_goals.UPCAST_SAFE`).

The operand may be read through the DimShuffle an Elemwise pads a 0-d operand with, or two of them
(``constant_operand_upcasto_twice``: ``vectorize_graph`` adds one for the batch axis).

Before/After (``x / pt.sqrt(2.0)``, ``x`` float64)::

    True_div(x, Sqrt(2.0 float32))    ->    True_div(x, Sqrt(Cast{float64}(2.0 float32)))
    float32 sqrt(2): 1.41421353816986       float64 sqrt(2): 1.4142135623730951

The pass ``relational_precision`` (one of ``relations.mode()``'s default tags) runs it before canonicalize
folds constants (:mod:`relations.compile.precision`), and ``relations.stabilize``
on the forms it returns; it terminates by :data:`NARROW_CONSTANT_OPERANDS`, which each
application lowers by one.
"""

from __future__ import annotations

from typing import Any

import pytensor.scalar as ps
from pytensor.graph.basic import Constant, Variable
from pytensor.tensor.elemwise import DimShuffle, Elemwise

from graph_bridge import same_typeo
from graph_bridge.measures import Measure, graph_nodes
from graph_bridge.terms import term_variable
from logic_core.moded import Mode, ModedGoal, moded
from relations import patterns as p
from relations.patterns.family import Family
from relations.rules.algebra.algebra_goals import UPCAST_SAFE, float_bits

__all__ = [
    "PRECISION",
    "PRECISION_RULES",
    "constant_operand_upcasto",
    "narrow_constant_operand",
    "narrow_constant_operands",
    "narrow_function",
    "narrow_operands",
]


def narrow_function(consumer_dtype: str, operand: Variable) -> Variable | None:
    """The unary :data:`UPCAST_SAFE` Elemwise of a constant ``operand`` is (read through one DimShuffle or two), in
    a float dtype narrower than ``consumer_dtype`` (a float); ``None`` where it is no such operand."""
    node = operand.owner
    for _ in range(2):  # the DimShuffles the rules read through (vectorize_graph pads a constant twice)
        if node is None or not isinstance(node.op, DimShuffle):
            break
        operand = node.inputs[0]
        node = operand.owner
    if node is None or not isinstance(node.op, Elemwise) or not isinstance(node.op.scalar_op, UPCAST_SAFE):
        return None
    wide, narrow = float_bits(consumer_dtype), float_bits(operand.type.dtype)
    ok = isinstance(node.inputs[0], Constant) and wide is not None and narrow is not None and narrow < wide
    return operand if ok else None


def narrow_constant_operand(consumer_dtype: str, operand: Variable) -> bool:
    """Whether ``operand`` is a unary :data:`UPCAST_SAFE` Elemwise of a constant (read through one DimShuffle or
    two), in a float dtype narrower than ``consumer_dtype`` (a float): :func:`narrow_function`."""
    return narrow_function(consumer_dtype, operand) is not None


def narrow_operands(node: Any) -> int:
    """The operands of ``node`` (a float Elemwise) that :func:`constant_operand_upcasto` casts (0 for other nodes)."""
    if not isinstance(node.op, Elemwise) or len(node.outputs) != 1:
        return 0
    return sum(narrow_constant_operand(node.outputs[0].type.dtype, i) for i in node.inputs)


def narrow_constant_operands(v: Variable) -> int:
    """Pairs (float Elemwise, operand of it that :func:`constant_operand_upcasto` casts) in ``v``'s graph."""
    return sum(narrow_operands(n) for n in graph_nodes(v))


#: The rule's measure: each application casts one such operand.
NARROW_CONSTANT_OPERANDS = Measure(
    "float Elemwise operands: a unary Op of a narrower constant", narrow_constant_operands
)


def constant_operand_upcasto(cast: Any, op: Any, k: Any, operand: Any, whole: Any) -> ModedGoal:
    """``cast`` is the Cast to ``whole``'s float dtype, where ``operand`` (``op`` over the constant ``k``) is
    narrower; backward (or as a check): ``cast`` is a Cast of the constant ``k`` to a wider float, ``op`` of
    :data:`UPCAST_SAFE`."""

    def forward(opt: Any, kt: Any, ot: Any, wt: Any) -> Any:
        ov, wv = term_variable(ot), term_variable(wt)
        if ov is None or wv is None or not isinstance(opt, UPCAST_SAFE) or not isinstance(term_variable(kt), Constant):
            return None
        if not narrow_constant_operand(wv.type.dtype, ov):
            return None
        return (ps.Cast(ps.get_scalar_type(wv.type.dtype), name=f"convert_to_{wv.type.dtype}"),)

    def check(ct: Any, opt: Any, kt: Any) -> Any:
        kv = term_variable(kt)
        if not (isinstance(ct, ps.Cast) and isinstance(opt, UPCAST_SAFE) and isinstance(kv, Constant)):
            return
        wide = float_bits(ct.o_type.dtype)
        narrow = float_bits(kv.type.dtype)
        if wide is not None and (narrow is None or narrow < wide):
            yield ()

    return moded(
        "constant_operand_upcasto",
        {"cast": cast, "op": op, "k": k, "operand": operand, "whole": whole},
        Mode(needs=("op", "k", "operand", "whole"), gives=("cast",), one=forward),
        Mode(needs=("cast", "op", "k"), gives=(), run=check),
        waiting="constant_operand_upcasto needs the operand and the whole node, or the cast, the op and the constant",
    )


g, f, c, k, o = p.var("g"), p.var("f"), p.var("c"), p.var("k"), p.var("o")
operand, bf, af = p.var("operand"), p.var("bf"), p.var("af")

#: The family (a rewrite, greedy: the compile pass runs it).
PRECISION = Family("precision", docs="precision.md")
PRECISION.rewrite(
    "constant_operand_upcasto",
    p.elemwise(g, p.maybe_dimshuffle(p.named(operand, p.elemwise(f, k, before=(), after=())), o), before=bf, after=af),
    p.elemwise(g, p.maybe_dimshuffle(p.elemwise(f, p.elemwise(c, k, before=(), after=()), before=(), after=()), o),
               before=bf, after=af),
    (constant_operand_upcasto(c, f, k, operand, p.LHS), same_typeo(p.LHS, p.RHS)),
    "A unary Op of a constant computed in the float dtype its Elemwise reads it in (``x / pt.sqrt(2.0)``: "
    "float64's sqrt(2), not float32's).",
    measure=NARROW_CONSTANT_OPERANDS,
)
o2 = p.var("o2")
PRECISION.rewrite(
    "constant_operand_upcasto_twice",
    p.elemwise(g, p.maybe_dimshuffle(p.maybe_dimshuffle(p.named(operand, p.elemwise(f, k, before=(), after=())), o2),
                                     o), before=bf, after=af),
    p.elemwise(g, p.maybe_dimshuffle(p.maybe_dimshuffle(
        p.elemwise(f, p.elemwise(c, k, before=(), after=()), before=(), after=()), o2), o), before=bf, after=af),
    (constant_operand_upcasto(c, f, k, operand, p.LHS), same_typeo(p.LHS, p.RHS)),
    "``constant_operand_upcasto`` through two DimShuffles (``vectorize_graph`` pads a 0-d operand with a second "
    "``ExpandDims``).",
    measure=NARROW_CONSTANT_OPERANDS,
)
PRECISION_RULES: tuple = PRECISION.rules
