"""Costs of graphs, for ``relations.best``."""

from __future__ import annotations

from collections.abc import Sequence

from pytensor.graph.basic import Variable

from graph_bridge.traverse import owned_variables

__all__ = ["elements_touched"]


def elements_touched(outputs: Sequence[Variable], unknown_dim: int = 16) -> float:
    """Default cost: elements every node writes, from static shapes (unknown lengths count ``unknown_dim``)."""
    total = 0.0
    for v in owned_variables(outputs):
        for o in v.owner.outputs:
            shape = getattr(o.type, "shape", None)
            if shape is None:
                total += 1
                continue
            size = 1.0
            for d in shape:
                size *= unknown_dim if d is None else d
            total += max(size, 1.0)
    return total
