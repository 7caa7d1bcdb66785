"""Numerical stability as a cost: which nodes are unstable spellings, and costs that never trade a
stable Op for a cheaper unstable spelling.

An *unstable* node is ``exp``, ``exp2``, ``log``, ``log2``, ``gamma``, ``erfc``, ``sinh``, ``cosh`` or a
constant to a power over data (not lengths or non-negative constants, not PyTensor 3.0's max-shifted
logsumexp): ``log(1 + exp(x))`` has two,
``log1p(exp(x))`` one, ``softplus(x)`` none.  The stable Ops (``log1p``, ``expm1``, ``softplus``,
``log1mexp``, ``sigmoid``, ``LogSumExp``, ``gammaln``, ``erfcx``, ...) are not unstable.  The
stabilizing compile pass (:mod:`relations.compile.stabilize`) extracts under :func:`stability_cost`
and replaces a region only where :func:`instability` drops; ``explain(..., rewriters=...)`` ranks
forms by :func:`stability_key`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytensor.scalar as ps
from pytensor.graph.basic import Variable
from pytensor.tensor.shape import Shape, Shape_i

from graph_bridge.monotonicity import scalar_constant
from graph_bridge.nodes import from_max, max_shifted, scalar_op_of, summed
from relations.rules.algebra.algebra_goals import is_length
from relations.saturation.costs import elements_touched, node_costs, variable_elements

__all__ = [
    "UNSTABLE",
    "UNSTABLE_WEIGHT",
    "instability",
    "shifted",
    "stability_cost",
    "stability_key",
    "stability_node_cost",
    "unstable",
]


#: Scalar ops that lose accuracy where a stable Op does not: the first part of the cost (``sinh`` and
#: ``cosh`` overflow past 710 as ``exp`` does, where ``log(sinh(x))`` and ``tanh(x)`` do not).
UNSTABLE: tuple[type, ...] = (ps.Exp, ps.Log, ps.Gamma, ps.Erfc, ps.Sinh, ps.Cosh, ps.Exp2, ps.Log2)


#: Weight of one unstable e-node against the measured cost (seconds): any count dominates.
UNSTABLE_WEIGHT = 1.0
#: Weight of an ``expm1`` over data in :func:`stability_cost` (not in the count, :func:`instability`): accurate
#: near 0, but it overflows past 710 as ``exp`` does, so among forms of as many unstable Ops extraction takes
#: one without it (``tanh(x)`` for ``expm1(2x) * sigmoid(-2x)``, ``inf * 0`` at x = 400).  Small against
#: :data:`UNSTABLE_WEIGHT`, so that twenty ``expm1`` weigh less than one ``exp``: the count still comes first.
OVERFLOW_WEIGHT = 0.05


def _exponential_power(v: Variable) -> bool:
    """``v`` is a constant base to a power read from data (``2 ** x``): an ``exp2`` or ``exp`` in disguise, which
    overflows as they do."""
    node = v.owner
    return (node is not None and isinstance(scalar_op_of(node), ps.Pow) and scalar_constant(node.inputs[0]) is not None
            and scalar_constant(node.inputs[1]) is None and not is_length(node.inputs[1]))


def unstable(v: Variable) -> bool:
    """Whether ``v``'s node is one of :data:`UNSTABLE` over something other than lengths and constants
    (``log(3)`` and ``log(n)`` of a mean are folded or exact), and not a max-shifted form (:func:`shifted`)."""
    node = v.owner
    if _exponential_power(v):
        return True
    if not isinstance(scalar_op_of(node), UNSTABLE) or all(is_length(i) for i in node.inputs):
        return False
    if isinstance(scalar_op_of(node), ps.Log) and isinstance(scalar_op_of(node.inputs[0].owner), ps.Sign):
        return False  # log(sign(.)): 0, nan or -inf exactly (log_gamma_as_gammalno's right side)
    return not shifted(v)


def _overflows(v: Variable) -> bool:
    """``v`` is an ``expm1`` over something other than lengths and constants."""
    node = v.owner
    return isinstance(scalar_op_of(node), ps.Expm1) and not all(is_length(i) for i in node.inputs)


def shifted(v: Variable) -> bool:
    """Whether ``v`` is ``exp`` or ``log`` of the max-shifted logsumexp (PyTensor 3.0 spells
    ``logsumexp`` so: ``m + log(sum(exp(x - m)))``): ``exp(x - m)`` and ``exp(m)`` for ``m`` a max,
    and ``log`` of a sum of those (its terms are at most 1, one of them 1)."""
    node = v.owner
    op = scalar_op_of(node)
    inner = node.inputs[0]
    if isinstance(op, ps.Exp):
        return max_shifted(inner) or from_max(inner, 1)
    if isinstance(op, ps.Log):
        terms = summed(inner)
        if terms is None:
            return False
        if isinstance(scalar_op_of(terms.owner), ps.Switch):
            return all(isinstance(scalar_op_of(i.owner), ps.Exp) and shifted(i) for i in terms.owner.inputs[1:])
        return isinstance(scalar_op_of(terms.owner), ps.Exp) and shifted(terms)
    return False


def instability(outputs: Sequence[Variable]) -> int:
    """The number of nodes of ``outputs`` (each once) that are :func:`unstable`, but for those only a
    shape reads (``Shape(exp(x))`` of a broadcast: PyTensor reads the shape off ``x``)."""
    seen: set[Variable] = set()
    stack, count = list(outputs), 0
    while stack:
        v = stack.pop()
        if v in seen or v.owner is None:
            continue
        seen.add(v)
        count += unstable(v)
        if not isinstance(v.owner.op, (Shape, Shape_i)):
            stack.extend(v.owner.inputs)
    return count


def stability_cost(shape_of: Callable[[Variable], Any] | None = None) -> Callable[[Variable], float]:
    """A cost per e-node: :data:`UNSTABLE_WEIGHT` for an unstable Op (:data:`OVERFLOW_WEIGHT` for an ``expm1``),
    plus the measured cost (``node_costs``).

    Lexicographic in effect (one unstable node outweighs any graph's
    predicted seconds): extraction takes the fewest unstable Ops, then the
    cheapest of those.
    """
    measured = node_costs(shape_of=shape_of)

    def cost(v: Variable) -> float:
        if v.owner is None:
            return measured(v)
        weight = UNSTABLE_WEIGHT if unstable(v) else OVERFLOW_WEIGHT if _overflows(v) else 0.0
        return weight + measured(v)

    return cost


def stability_key(outputs: Sequence[Variable], unknown_dim: int = 16) -> tuple[int, float]:
    """The cost ``relations.explain(..., rewriters=...)`` ranks forms by: ``(instability,
    elements_touched)``, compared as a tuple (fewer unstable spellings first, then fewer elements).

    It never trades a stable Op for a cheaper unstable spelling: any form with fewer unstable
    nodes wins, whatever it costs in elements.
    """
    return instability(outputs), elements_touched(outputs, unknown_dim)


def stability_node_cost(scale: float, unknown_dim: int = 16) -> Callable[[Variable], float]:
    """:func:`stability_key` as a cost per e-node for extraction: 1 for an unstable node, plus its
    elements (:func:`variable_elements`) divided by ``scale``.

    With ``scale`` above the elements of every e-node of the e-graph together, the elements of any
    selection add up to less than 1, so the extracted form has the fewest unstable nodes, and the
    fewest elements among those (exactly under the greedy extraction; within the integer
    program's optimality gap under the exact one, so callers rank both by :func:`stability_key`).
    """
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
        raise ValueError(f"scale must be a positive number, got {scale!r}")

    def cost(v: Variable) -> float:
        return float(v.owner is not None and unstable(v)) + variable_elements(v, unknown_dim) / scale

    return cost
