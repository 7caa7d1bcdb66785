"""Costs of graphs, for ``relations.best``."""

from __future__ import annotations

from collections.abc import Sequence

from pytensor.graph.basic import Variable

from graph_bridge.traverse import owned_variables

__all__ = ["elements_touched", "node_elements"]


def elements_touched(outputs: Sequence[Variable], unknown_dim: int = 16) -> float:
    """Default cost: elements every node writes, from static shapes (unknown lengths count ``unknown_dim``)."""
    total = 0.0
    for v in owned_variables(outputs):
        for o in v.owner.outputs:
            total += node_elements(o, unknown_dim)
    return total


def node_elements(v: Variable, unknown_dim: int = 16) -> float:
    """Elements ``v`` holds, from its static shape (at least 1; an unknown length counts ``unknown_dim``).

    Summed over the outputs of every node of a graph, this is
    :func:`elements_touched`; ``relations.extract`` uses it as the cost of an e-node.
    """
    shape = getattr(v.type, "shape", None)
    if shape is None:
        return 1.0
    size = 1.0
    for d in shape:
        size *= unknown_dim if d is None else d
    return max(size, 1.0)
