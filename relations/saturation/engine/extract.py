"""Extraction for the query engine: bottom-up tree cost, reified into a PyTensor graph.

The cost of an e-node is 1 plus its children's classes' costs (a leaf costs 1); the cost of a
class is its cheapest e-node's.  Costs are relaxed until none falls (every class reachable from
a leaf gets a finite cost; an e-graph made from a graph always has one per class).  PyTensor
nodes are built only here, with each Op's ``make_node`` (an Elemwise pads its inputs'
dimensions as it broadcasts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytensor.graph.basic import Variable

from relations.saturation.engine.egraph import CLASS_SHIFT, EGraph

__all__ = ["best_nodes", "extract"]


def best_nodes(eg: EGraph, node_cost: Callable[[tuple], float] | None = None) -> dict[int, tuple[float, tuple]]:
    """For every root class, ``(tree cost, cheapest e-node)``; an e-node costs ``node_cost(e-node)`` (default 1)."""
    best: dict[int, tuple[float, tuple]] = {}
    live = [(n, v >> CLASS_SHIFT) for n, v in eg.hashcons.items()]
    changed = True
    while changed:
        changed = False
        for n, c in live:
            cost = 1.0 if node_cost is None else node_cost(n)
            for k in n[1:]:
                b = best.get(eg.find(k))
                if b is None:
                    break
                cost += b[0]
            else:
                old = best.get(c)
                if old is None or cost < old[0]:
                    best[c] = (cost, n)
                    changed = True
    return best


def extract(eg: EGraph, classes: Sequence[int], node_cost: Callable[[tuple], float] | None = None) -> list[Variable]:
    """The cheapest tree of each class of ``classes`` as a PyTensor variable (shared classes built once).

    ``node_cost(e-node)``: the cost of one e-node (positive; default 1: the tree's size)."""
    best = best_nodes(eg, node_cost)
    built: dict[int, Variable] = {}

    def build(c: int) -> Variable:
        c = eg.find(c)
        v = built.get(c)
        if v is not None:
            return v
        if c not in best:
            raise ValueError(f"classes: class {c} has no finite tree")
        n = best[c][1]
        kind = eg.ops[n[0]]
        if kind[0] == "leaf":
            v = kind[1]
        else:
            _, op, _, out = kind
            v = op.make_node(*[build(k) for k in n[1:]]).outputs[out]
        built[c] = v
        return v

    return [build(c) for c in classes]
