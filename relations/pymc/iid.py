"""Independent draws of one distribution as the elements of one vector draw (order statistics, pymc #6769).

``maximum(maximum(a, b), c)`` of three draws of ``Normal(0, 1)`` is the
largest of three iid normals, whose density PyMC derives for ``max(v)`` of
one vector draw ``v`` and refuses for separate draws ("Logprob method not
implemented for Maximum").  Replacing ``k`` scalar draws of the same
RandomVariable with the same parameters (structurally equal: constants by
value) by the elements ``v[0], ..., v[k-1]`` of one draw of size ``k``
keeps the joint distribution of every value of the graph (the draws were
independent and identically distributed, and so are the elements), so a
density derived from the merged graph is the graph's.  It is not an
equality of values (the draws differ): :func:`relations.pymc.logp` uses it
for one variable's density only, never with other valued variables
(``conditional_logp``).  The value rules then relate ``maximum`` trees and
stacks of the elements to ``max(v)`` and ``v``.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.graph.basic import Variable
from pytensor.graph.replace import graph_replace
from pytensor.graph.traversal import toposort
from pytensor.tensor.random.op import RandomVariable
from pytensor.tensor.type_other import NoneTypeT

from graph_bridge.structural_keys import StructuralKeys

__all__ = ["merge_iid_draws"]


def merge_iid_draws(var: Variable, seed: int = 0) -> Variable:
    """``var`` with each group of two or more scalar draws of one RandomVariable with equal parameters
    replaced by the elements of one draw of the group's size (``var`` itself where there is none).

    A draw whose generator output is read in the graph (a chained draw) is left alone."""
    nodes = list(toposort([var]))
    read = {i for n in nodes for i in n.inputs}
    keys = StructuralKeys()
    groups: dict[tuple, list] = defaultdict(list)
    for node in nodes:
        if not isinstance(node.op, RandomVariable):
            continue
        draw, size = node.outputs[-1], node.inputs[1]
        unsized = isinstance(size.type, NoneTypeT) or getattr(size.type, "shape", None) == (0,)
        if draw.type.ndim != 0 or not unsized or node.outputs[0] in read:
            continue
        groups[(node.op, tuple(keys.key(p) for p in node.inputs[2:]))].append(node)
    first = _reading_order(var)
    replace: dict[Variable, Variable] = {}
    for (op, _), members in groups.items():
        if len(members) < 2:
            continue
        members.sort(key=lambda n: first.get(n, len(first)))  # as the graph reads them, left to right
        rng = pytensor.shared(np.random.default_rng(seed))
        vector = op.make_node(rng, pt.constant([len(members)], dtype="int64"), *members[0].inputs[2:]).outputs[-1]
        for k, node in enumerate(members):
            replace[node.outputs[-1]] = vector[k]
    return graph_replace(var, replace, strict=False) if replace else var


def _reading_order(var: Variable) -> dict:
    """The nodes of ``var``'s graph in the order a left-to-right walk from the output first meets them
    (``stack([a, b, c])`` meets ``a`` first): merged draws keep that order as their indices."""
    order: dict = {}
    stack = [var]
    while stack:
        v = stack.pop()
        node = v.owner
        if node is None or node in order:
            continue
        order[node] = len(order)
        stack.extend(reversed(node.inputs))
    return order
