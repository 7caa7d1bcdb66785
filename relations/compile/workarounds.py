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

PyTensor 3.0's Numba backend starts a bool ``Max`` at True and a bool
``Min`` at False (the reduction's identity, -inf or +inf, made a numpy
bool), so ``max`` of all-False bools is True (PyTensor 3.0.7; 3.3.8 makes
the identity right)::

    pt.max(b)        # b bool, [False, False]: perform False, Numba True

A user's graph can contain these patterns, and a rewrite that moves nodes
next to each other (lifting an Elemwise through a set, removing a DimShuffle
between an Elemwise and a reduction) can create them.  Before PyTensor's
rewrites run, the toolkit states what the graph means in Ops PyTensor
compiles correctly: ``add``/``mul`` of bools become ``or``/``and`` (numpy's
bool arithmetic), and the result of a narrower add/mul chain is cast to the
outer dtype (what the outer node does to it anyway), so the canonicalizer
no longer sees one chain; where PyTensor is older than 3.3, a bool
max/min reduction reduces the bools cast to int8 and casts the result back
(the same values, and the same error on an empty reduction).  All keep the
graph's values by definition.

PyTensor's ``local_merge_alloc`` merges ``Alloc(Alloc(m, *inner), *outer)``
and asserts that each inner length equals the outer one unless the inner
length is the *constant* 1.  An inner length that is a symbolic shape known
to be 1 (the inner Alloc's type says so: PyTensor's own rewrites build such
Allocs from ``x.shape[i]``) gets an Assert that fails whenever the outer
length is not 1, although the graph broadcasts it (PyTensor 3.0.7 and
3.3.8)::

    y = pt.tensor3("y", shape=(2, 2, 1))
    pt.alloc(pt.set_subtensor(y[:2], x), 2, 2, 2)   # default mode: "shape error"

A rewrite that lifts an Elemwise through a set can put a set right under an
Alloc.  :func:`install_merge_alloc_fix` teaches the rewriter that an inner
length the inner type fixes at 1 broadcasts, on graphs the toolkit touched
(elsewhere it runs as PyTensor wrote it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import pytensor
import pytensor.scalar as ps
from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.graph.fg import FunctionGraph
from pytensor.tensor.basic import Alloc, alloc, cast, constant
from pytensor.tensor.elemwise import CAReduce, Elemwise

from graph_bridge.building import single_output
from graph_bridge.provenance import is_touched
from graph_bridge.traverse import clone_over, owned_variables, rebuild

__all__ = [
    "BOOL_EXTREMA_HAZARD",
    "has_hazards",
    "install_merge_alloc_fix",
    "nodes_have_hazards",
    "protect",
    "protect_in_place",
]

#: scalar op classes each canonicalizer flattens together
_GROUPS = (
    (ps.Add, ps.Sub, ps.Neg),
    (ps.Mul, ps.TrueDiv, ps.Reciprocal),
)


#: scalar op type -> its group in :data:`_GROUPS` (or ``None``), filled as types are met
_GROUP_OF: dict[type, int | None] = {}


def _group(var: Variable) -> int | None:
    node = var.owner
    if node is None or type(node.op) is not Elemwise or len(node.outputs) != 1:
        return None
    kind = type(node.op.scalar_op)
    if kind not in _GROUP_OF:  # (isinstance on Op classes goes through ABCMeta: slow in a scan)
        _GROUP_OF[kind] = next((i for i, classes in enumerate(_GROUPS) if issubclass(kind, classes)), None)
    return _GROUP_OF[kind]


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


def _version(text: str) -> tuple[int, ...]:
    """The leading numbers of a version string (``"3.0.7"`` -> ``(3, 0, 7)``)."""
    numbers = []
    for part in text.split("."):
        leading = re.match(r"\d+", part)
        if leading is None:
            break
        numbers.append(int(leading.group()))
    return tuple(numbers)


#: PyTensor starts a Numba bool max/min at the wrong value (see the module docstring)
BOOL_EXTREMA_HAZARD = _version(pytensor.__version__) < (3, 3)
_EXTREMA = (ps.ScalarMaximum, ps.ScalarMinimum)


def _bool_extremum(var: Variable) -> bool:
    """``var`` is a max or min reduction of bools that this PyTensor's Numba backend gets wrong."""
    node = var.owner
    return (
        BOOL_EXTREMA_HAZARD
        and node is not None
        and isinstance(node.op, CAReduce)
        and isinstance(node.op.scalar_op, _EXTREMA)
        and node.inputs[0].type.dtype == "bool"
        and var.type.dtype == "bool"
    )


def _extremum_of_int8(var: Variable, x: Variable) -> Apply:
    """``var``'s reduction of bools ``x``, computed on ``int8`` and cast back to bool."""
    reduced = var.owner.op.make_node(cast(x, "int8")).outputs[0]
    return cast(reduced, "bool").owner


def _hazards(var: Variable) -> list[int]:
    """Positions of inputs of ``var``'s node that a canonicalizer would flatten across dtypes."""
    g = _group(var)
    if g is None:
        return []
    dtype = var.type.dtype
    return [i for i, inp in enumerate(var.owner.inputs) if _group(inp) == g and inp.type.dtype != dtype]


def _hazardous(v: Variable) -> bool:
    if type(v.owner.op) is not Elemwise:
        return _bool_extremum(v)
    return bool(_hazards(v)) or _bool_logic(v) is not None


def has_hazards(outputs: Sequence[Variable]) -> bool:
    """Whether PyTensor could miscompile a node of the graph (see the module docstring)."""
    return any(_hazardous(v) for v in owned_variables(outputs))


def nodes_have_hazards(nodes: Iterable[Apply]) -> bool:
    """:func:`has_hazards` of the graph these nodes are (an fgraph's ``apply_nodes``: no walk)."""
    return any(_hazardous(o) for n in nodes for o in n.outputs)


def protect(outputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` with bool add/mul as or/and and narrower add/mul chains cast explicitly.

    The input graph is not changed; untouched sub-graphs are the original objects.
    """
    if not has_hazards(outputs):
        return list(outputs)

    def restate(v: Variable, inputs: list[Variable]) -> Apply | None:
        if not _hazardous(v):
            return None
        return _restated_node(v, inputs, _bool_extremum(v), _hazards(v), _bool_logic(v))

    return rebuild(outputs, transform=restate)


def _restated_node(v: Variable, inputs: list[Variable], extremum: bool, hazards: list[int], logic: Any) -> Apply:
    """``v``'s node as :func:`protect` restates it, over ``inputs`` (its inputs, or their new versions)."""
    if extremum:
        return _extremum_of_int8(v, inputs[0])
    inputs = list(inputs)
    for i in hazards:
        inputs[i] = cast(inputs[i], v.type.dtype)
    if logic is not None:
        return Elemwise(logic).make_node(*inputs)
    return clone_over(v.owner, inputs) or v.owner.clone_with_new_inputs(inputs, strict=False)


def protect_in_place(fgraph: FunctionGraph) -> None:
    """:func:`protect` on an fgraph: each node PyTensor would miscompile is replaced where it is.

    The decisions are read off the graph before any replacement (as
    :func:`protect` reads the original graph), and each node is rebuilt over
    its inputs as they are when its turn comes: the same graph as
    ``protect(fgraph.outputs)``, without rebuilding the rest.  Each new
    variable gets the stack trace of the one it replaces.
    """
    from pytensor.graph.rewriting.basic import copy_stack_trace

    decided = [
        (v, _bool_extremum(v), _hazards(v), _bool_logic(v))
        for node in fgraph.toposort()
        for v in node.outputs
        if _hazardous(v)
    ]
    for v, extremum, hazards, logic in decided:
        new = _restated_node(v, v.owner.inputs, extremum, hazards, logic).outputs[0]
        copy_stack_trace(v, new)
        fgraph.replace(v, new, reason="protect")


def _unit_lengths_as_constants(inner: Apply) -> list[Variable] | None:
    """``inner`` Alloc's lengths with a constant 1 where its type fixes a symbolic one at 1.

    ``None`` when every such length is already the constant 1.
    """
    lengths = list(inner.inputs[1:])
    changed = False
    for i, (length, static) in enumerate(zip(lengths, inner.outputs[0].type.shape)):
        if static == 1 and not (isinstance(length, Constant) and length.data == 1):
            lengths[i] = constant(1, dtype=length.type.dtype)
            changed = True
    return lengths if changed else None


def merge_alloc_with_unit_lengths(stock_fn):
    """``local_merge_alloc``'s function, seeing an inner length fixed at 1 by type as the constant 1.

    Only on graphs the toolkit touched; elsewhere ``stock_fn`` runs unchanged.
    """

    def merge_alloc(fgraph: FunctionGraph | None, node: Apply):
        inner = node.inputs[0].owner
        if inner is not None and isinstance(inner.op, Alloc):
            lengths = _unit_lengths_as_constants(inner)
            if lengths is not None and fgraph is not None and is_touched(fgraph.apply_nodes):
                node = single_output(alloc, single_output(alloc, inner.inputs[0], *lengths), *node.inputs[1:]).owner
        return stock_fn(fgraph, node)

    merge_alloc.stock_fn = stock_fn
    return merge_alloc


def install_merge_alloc_fix() -> None:
    """Wrap PyTensor's ``local_merge_alloc`` (every database holds the one rewriter) once."""
    from pytensor.tensor.rewriting.basic import local_merge_alloc

    if not hasattr(local_merge_alloc.fn, "stock_fn"):
        local_merge_alloc.fn = merge_alloc_with_unit_lengths(local_merge_alloc.fn)
