"""Rebuilding a graph bottom-up without recursion and without touching the original."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pytensor.graph.basic import Apply, Variable

__all__ = ["rebuild"]

#: ``transform(var, new_inputs)`` -> the node to use for ``var``'s node, or ``None``
Transform = Callable[[Variable, list[Variable]], Apply | None]


def rebuild(
    outputs: Sequence[Variable],
    replace: Mapping[Variable, Variable] | None = None,
    transform: Transform | None = None,
) -> list[Variable]:
    """``outputs`` with ``replace`` applied and every node above a change rebuilt.

    Walks the graph iteratively in post-order.  For each node, its inputs'
    new versions are collected; ``transform`` (if given) may return a node to
    use instead; otherwise a node whose inputs changed is rebuilt with
    ``clone_with_new_inputs(strict=False)`` and an unchanged node is kept.
    The input graph is not changed; untouched sub-graphs are the original
    objects (shared sub-graphs stay shared).
    """
    memo: dict[int, Variable] = {}
    keep: list[Variable] = []  # keeps the ids in memo alive and unique
    for old, new in (replace or {}).items():
        memo[id(old)] = new
        keep.append(old)
    stack = list(outputs)
    while stack:
        v = stack[-1]
        if id(v) in memo:
            stack.pop()
            continue
        node = v.owner
        if node is None:
            memo[id(v)] = v
            keep.append(v)
            stack.pop()
            continue
        missing = [i for i in node.inputs if id(i) not in memo]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        inputs = [memo[id(i)] for i in node.inputs]
        new_node = transform(v, inputs) if transform is not None else None
        if new_node is None:
            if any(a is not b for a, b in zip(inputs, node.inputs)):
                new_node = node.clone_with_new_inputs(inputs, strict=False)
            else:
                new_node = node
        for o, n in zip(node.outputs, new_node.outputs):
            memo[id(o)] = n
            keep.append(o)
    return [memo[id(o)] for o in outputs]
