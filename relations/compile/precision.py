"""The ``relational_precision`` pass: a constant operand computed in the float dtype its Elemwise reads it in.

``RULESETS["precision"]`` (:mod:`relations.rules.precision`) applied greedily at the position of
the ``relational`` pass, before canonicalize folds constants: ``x / pt.sqrt(2.0)`` with ``x``
float64 divides by float64's ``sqrt(2)``, not float32's (PyMC's ``normal_lcdf``: 1.7e-6 → 7.5e-15
relative error at ``z = 10``).  The ``relational`` pass keeps a normal form only where it is
faster, so the rule has its own pass.  It runs only on a graph holding such an operand (a walk
over its nodes, :func:`needed`), so other graphs pay that walk alone.  Each replacement's reason
is the rule's name; its new nodes carry the replaced node's stack trace.

A graph that spells such an operand may also hold it folded already, in float32 and then read as a
float64 constant: PyMC's dlogp of ``erfc(x / pt.sqrt(2.0))`` comes with ``1 / sqrt(2.0)`` as
``0.7071067932881648`` and ``-2 / sqrt(2.0)`` as ``-1.4142135865763297``.  Widening the operand
alone would give the logp float64's ``sqrt(2)`` and leave the dlogp float32's, and the two would no
longer share their ``erfc`` (PyMC's censored Normal model: 1.34-1.38x slower per call).  So
:func:`widen_folds` first gives each float64 constant that is exactly a narrow operand's value
times one of :data:`FOLD_FACTORS`, or such a factor over it, the float64 value of the same
expression (docs/precision.md).

Before/After (``x / pt.sqrt(2.0)``, compiled)::

    True_div(x, 1.4142135 float32)    ->    True_div(x, 1.4142135623730951 float64)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from pytensor.compile import optdb
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import graph_replace
from pytensor.graph.traversal import applys_between
from pytensor.tensor.elemwise import Elemwise

from relations.compile.registration import POSITION, RelationalRewriter
from relations.rules.precision import narrow_constant_operand, narrow_function, narrow_operands
from relations.saturation.stabilizing import precise

__all__ = [
    "FOLD_FACTORS", "NAME", "PrecisionRewriter", "folded_constants", "needed", "register_precision", "widen_folds",
]

#: The pass's optdb name (a default tag; ``relations.mode(*relations.compile.compile_modes.WITHOUT_PRECISION)``
#: leaves it out).
NAME = "relational_precision"


def needed(fgraph: FunctionGraph) -> bool:
    """Whether some float Elemwise of ``fgraph`` reads a unary Op of a narrower constant."""
    return any(narrow_operands(node) for node in fgraph.apply_nodes)


#: The factors a folded constant may carry over the narrow value it was folded from (and over which it may
#: be that value's reciprocal): PyMC's gradients of ``x / sqrt(2.0)`` fold ``+-1 / sqrt(2.0)`` and
#: ``+-2 / sqrt(2.0)``.  Each is a power of two, so ``k / v`` is ``k * (1 / v)`` exactly.
FOLD_FACTORS = (1.0, -1.0, 2.0, -2.0, 0.5, -0.5)


def _narrow_values(nodes: Iterable[Any]) -> dict[float, float]:
    """Each narrow constant operand ``nodes`` read: its value (its own dtype's, as a float) -> its value computed in
    float64."""
    found: dict[float, float] = {}
    for node in nodes:
        if not isinstance(node.op, Elemwise) or len(node.outputs) != 1:
            continue
        for operand in node.inputs:
            f = narrow_function(node.outputs[0].type.dtype, operand)
            if f is None:
                continue
            fn, k = f.owner.op.scalar_op, f.owner.inputs[0]
            with np.errstate(all="ignore"):
                narrow = np.asarray(fn.impl(np.asarray(k.data).astype(f.type.dtype))).astype(f.type.dtype)
                wide = np.asarray(fn.impl(np.asarray(k.data).astype("float64")), dtype="float64")
            if narrow.size == 1 and np.isfinite(narrow).all() and np.isfinite(wide).all():
                found[float(narrow.ravel()[0])] = float(wide.ravel()[0])
    return found


def _fold_table(narrow: dict[float, float]) -> dict[float, float]:
    """float64 value of a folded ``k * v`` or ``k / v`` (``v`` narrow) -> the same in float64's ``v``."""
    table: dict[float, float] = {}
    for v, wide in narrow.items():
        for k in FOLD_FACTORS:
            table[k * v] = k * wide
            if v != 0.0 and wide != 0.0:
                table[k / v] = k / wide
    return {a: b for a, b in table.items() if a != b and a not in (0.0, 1.0, -1.0)}


def folded_constants(outputs: Sequence[Variable]) -> dict[Variable, Variable]:
    """Each float64 constant of ``outputs``' graph that is a narrow operand of theirs folded (float32's
    ``1 / sqrt(2.0)``, read in float64) -> the same expression computed in float64.

    The narrow operands are those :func:`relations.rules.precision.narrow_constant_operand` finds, which
    the precision rule widens; a float64 constant of one element counts as folded from one only where
    it equals, to the last bit, the narrow value times one of :data:`FOLD_FACTORS` or such a factor
    over it."""
    return _folded_in(list(applys_between([], outputs)))


def _folded_in(nodes: Sequence[Any]) -> dict[Variable, Variable]:
    """:func:`folded_constants` of the graph of ``nodes`` (all its nodes)."""
    table = _fold_table(_narrow_values(nodes))
    found: dict[Variable, Variable] = {}
    if not table:
        return found
    for node in nodes:
        for c in node.inputs:
            if not isinstance(c, Constant) or c in found or c.type.dtype != "float64":
                continue
            data = np.asarray(c.data)
            if data.size == 1 and float(data.ravel()[0]) in table:
                found[c] = type(c)(c.type, np.full_like(data, table[float(data.ravel()[0])]))
    return found


def widen_folds(outputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` with their :func:`folded_constants` replaced.  Before/After (PyMC's dlogp of
    ``log(erfc(x / pt.sqrt(2.0)))``)::

        mul(-1.4142135865763297, ...)   ->   mul(-1.4142135623730951, ...)
    """
    replace = folded_constants(outputs)
    return graph_replace(list(outputs), replace, strict=False) if replace else list(outputs)


def normalize_precision(outputs: Sequence[Variable], on_rewrite: Any = None) -> list[Variable]:
    """``outputs`` with their folded narrow constants widened (:func:`widen_folds`), then
    :data:`relations.rules.precision.PRECISION_RULES` applied greedily (``on_rewrite(rule, before, after)``
    told of each rewrite)."""
    return precise(widen_folds(outputs), on_rewrite=on_rewrite)


class PrecisionRewriter(RelationalRewriter):
    """The pass: the folded constants replaced in the FunctionGraph itself, then the rule applied at each node
    that reads a narrow operand, on that node alone (its other operands stand-ins), not greedily over the
    whole graph: a PyMC model's logp + dlogp holds a few such nodes among thousands, and the greedy walk with
    both rules cost 3-9 ms a model (``graph_replace`` of :func:`widen_folds` on a copy cost 5 ms more)."""

    def apply(self, fgraph: FunctionGraph) -> None:
        readers = [n for n in fgraph.apply_nodes if narrow_operands(n)]  # (what :func:`needed` asks)
        if not readers:
            return
        for old, new in _folded_in(list(fgraph.apply_nodes)).items():
            fgraph.replace(old, new, reason=f"{NAME}_folded")
        for node in readers:
            out = node.outputs[0]
            if out not in fgraph.variables:
                continue
            wide = _widened(node)
            if wide is not None:
                fgraph.replace(out, wide, reason=NAME)


def _widened(node: Any) -> Variable | None:
    """``node``'s output with the precision rules applied to the node alone (its operands other than the narrow
    ones read as stand-ins, then put back), or ``None`` where no rule applies."""
    dtype = node.outputs[0].type.dtype
    stand = {i: i.type() for i in node.inputs if not narrow_constant_operand(dtype, i)}
    local = node.clone_with_new_inputs([stand.get(i, i) for i in node.inputs]).outputs[0]
    (new,) = precise([local])
    if new is local:
        return None
    back = {v: k for k, v in stand.items()}
    return graph_replace([new], back, strict=False)[0] if back else new


def register_precision() -> RelationalRewriter:
    """Register the pass in ``optdb`` under :data:`NAME` (off unless a mode includes it); once."""
    existing = optdb.__db__.get(NAME)
    if existing:
        return next(iter(existing))
    rewriter = PrecisionRewriter(precise, NAME, needed=needed)
    optdb.register(NAME, rewriter, position=POSITION)
    return rewriter
