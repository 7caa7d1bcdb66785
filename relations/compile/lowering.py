"""``lower``: every Op the toolkit adds replaced by stock PyTensor Ops, on graphs and in place on fgraphs."""

from __future__ import annotations

from collections.abc import Sequence

from pytensor.graph.basic import Variable
from pytensor.graph.fg import FunctionGraph

from graph_bridge.provenance import has_toolkit_ops
from relations.arguments import Graph, as_variables, same_structure
from relations.compile.workarounds import protect, protect_in_place
from relations.greedy.fixpoint import normalize_variables
from relations.rules import LOWERING_INDEX

__all__ = ["lower", "lower_outputs", "protect_compiled"]


def lower(graph: Graph) -> Graph:
    """The graph with every Op the toolkit adds replaced by stock PyTensor Ops.

    This is :data:`relations.LOWERING_RULES` run backward (right side known), at every
    node, bottom-up.  ``lower(normalize(g))`` has only stock Ops and computes
    what ``g`` computes; PyTensor's compilation runs it by itself (an
    ``optdb`` pass before ``canonicalize``), so explicit graphs compile as
    they are.  Last, :func:`relations.compile.workarounds.protect` restates bool
    ``add``/``mul`` as ``or``/``and`` and casts narrower add/mul chains, which
    PyTensor's canonicalizer and Numba's fused kernels would otherwise
    compute wrongly once a rewrite has put them next to each other.
    """
    outputs, single = as_variables(graph, "graph")
    lowered = normalize_variables(outputs, LOWERING_INDEX, backward=True)
    return same_structure(graph, single, protect(lowered))


def lower_outputs(outputs: Sequence[Variable]) -> list[Variable]:
    """:func:`lower` of a sequence of outputs, as a list (what the ``optdb`` passes call)."""
    return lower(list(outputs))


def protect_compiled(fgraph: FunctionGraph) -> bool:
    """The lowering pass on an fgraph without a toolkit Op (the graphs of the ``relational`` pass):
    only :func:`lower`'s restatements, node by node (no rebuild, no backward normalize)."""
    if has_toolkit_ops(fgraph.apply_nodes):
        return False
    protect_in_place(fgraph)
    return True
