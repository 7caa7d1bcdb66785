"""Work-arounds for PyTensor rewrites that would change a rewritten graph's values.

PyTensor's algebraic canonicalizers flatten nested ``add``/``sub``/``neg``
(and ``mul``/``true_div``/``reciprocal``) nodes without looking at dtypes,
so an inner node that computes in a narrower dtype is recomputed in the
outer one (PyTensor 3.0.7 and 3.3.8, default mode and FAST_COMPILE)::

    (a + b) + x      # a, b bool (logical or), x float: True|True + 1 = 2
                     # compiled: 1 + 1 + 1 = 3
    (i * i) * x      # i int8 (wraps at 127), x float: 100*100 -> 16 * 1.0
                     # compiled: 10000.0

Numba's fused ``Composite`` kernels (default mode) also compute ``add`` and
``mul`` of bools as integer arithmetic (``True + True == 2``), where
PyTensor's own definition (``perform``, numpy) is logical or / and; an
explicit cast does not stop that.

A user's graph can contain these patterns, and a rewrite that moves nodes
next to each other (lifting an Elemwise through a set, removing a DimShuffle
between an Elemwise and a reduction) can create them.  Before PyTensor's
rewrites run, the toolkit states what the graph means in Ops PyTensor
compiles correctly: ``add``/``mul`` of bools become ``or``/``and`` (numpy's
bool arithmetic), and the result of a narrower add/mul chain is cast to the
outer dtype (what the outer node does to it anyway), so the canonicalizer
no longer sees one chain.  Both keep the graph's values by definition.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytensor.scalar as ps
from pytensor.graph.basic import Variable
from pytensor.tensor.basic import cast
from pytensor.tensor.elemwise import Elemwise

from graph_bridge.traverse import owned_variables, rebuild

__all__ = ["has_hazards", "protect"]

#: scalar op classes each canonicalizer flattens together
_GROUPS = (
    (ps.Add, ps.Sub, ps.Neg),
    (ps.Mul, ps.TrueDiv, ps.Reciprocal),
)


def _group(var: Variable) -> int | None:
    node = var.owner
    if node is None or type(node.op) is not Elemwise or len(node.outputs) != 1:
        return None
    for i, classes in enumerate(_GROUPS):
        if isinstance(node.op.scalar_op, classes):
            return i
    return None


#: bool arithmetic and the logical op with the same values
_BOOL_LOGIC = ((ps.Add, ps.or_), (ps.Mul, ps.and_))


def _bool_logic(var: Variable):
    """The logical scalar op to compute ``var``'s bool add/mul with, or ``None``."""
    node = var.owner
    if node is None or type(node.op) is not Elemwise or len(node.outputs) != 1:
        return None
    if var.type.dtype != "bool" or any(i.type.dtype != "bool" for i in node.inputs):
        return None
    for cls, logic in _BOOL_LOGIC:
        if type(node.op.scalar_op) is cls:
            return logic
    return None


def _hazards(var: Variable) -> list[int]:
    """Positions of inputs of ``var``'s node that a canonicalizer would flatten across dtypes."""
    g = _group(var)
    if g is None:
        return []
    dtype = var.type.dtype
    return [
        i
        for i, inp in enumerate(var.owner.inputs)
        if _group(inp) == g and inp.type.dtype != dtype
    ]


def has_hazards(outputs: Sequence[Variable]) -> bool:
    """Whether PyTensor could miscompile a node of the graph (see the module docstring)."""
    return any(_hazards(v) or _bool_logic(v) is not None for v in owned_variables(outputs))


def protect(outputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` with bool add/mul as or/and and narrower add/mul chains cast explicitly.

    The input graph is not changed; untouched sub-graphs are the original objects.
    """
    if not has_hazards(outputs):
        return list(outputs)

    def restate(v: Variable, inputs: list[Variable]):
        for i in _hazards(v):
            inputs[i] = cast(inputs[i], v.type.dtype)
        logic = _bool_logic(v)
        if logic is not None:
            return Elemwise(logic).make_node(*inputs)
        return None

    return rebuild(outputs, transform=restate)
