"""Which graphs the toolkit has touched: a tag on the nodes its rewrites build.

PyTensor's compilation runs the toolkit's lowering pass on every graph
(``fast_run``, ``fast_compile``); it must change nothing for graphs the toolkit
never touched.  A graph is touched when it holds one of the toolkit's Ops, or a
node a toolkit rewrite built (``normalize``, the ``relational`` pass,
``equivalents``, ``best``): those nodes carry ``tag.relations_rewritten``.
PyTensor copies tags when it clones a graph for compilation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytensor.graph.basic import Apply, Variable

__all__ = ["TAG", "is_touched", "mark_rewritten", "node_ids"]

#: Attribute set on ``node.tag`` of every node a toolkit rewrite built.
TAG = "relations_rewritten"


def _nodes(outputs: Iterable[Variable], stop: set[int] | None = None) -> list[Apply]:
    seen: set[int] = set()
    order = []
    stack = list(outputs)
    while stack:
        v = stack.pop()
        node = v.owner
        if node is None or id(node) in seen or (stop is not None and id(node) in stop):
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(node.inputs)
    return order


def node_ids(outputs: Sequence[Variable]) -> set[int]:
    """Ids of the nodes of a graph (to pass as ``mark_rewritten(..., original=)``)."""
    return {id(n) for n in _nodes(outputs)}


def mark_rewritten(
    new: Sequence[Variable], old: Sequence[Variable], original: set[int] | None = None
) -> None:
    """Tag every node of ``new`` that is not a node of ``old`` (``old`` is not changed).

    ``original``: ``node_ids(old)``, when many results of one graph are marked.
    """
    if len(new) == len(old) and all(a is b for a, b in zip(new, old)):
        return
    if original is None:
        original = node_ids(old)
    for node in _nodes(new, stop=original):
        setattr(node.tag, TAG, True)


def is_touched(nodes: Iterable[Apply]) -> bool:
    """Whether any of ``nodes`` is a toolkit Op or was built by a toolkit rewrite."""
    from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise

    explicit = {ExplicitElemwise, ExplicitAlloc}
    return any(getattr(n.tag, TAG, False) or type(n.op) in explicit for n in nodes)


def has_toolkit_ops(nodes: Iterable[Apply]) -> bool:
    """Whether any of ``nodes`` is one of the toolkit's explicit Ops (what lowering replaces)."""
    from graph_bridge.explicit_blockwise import ExplicitBlockwise
    from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise
    from graph_bridge.random_variables import ExplicitRandomVariable

    explicit = {ExplicitElemwise, ExplicitAlloc, ExplicitBlockwise, ExplicitRandomVariable}
    # exact types (the classes have no subclasses): isinstance on Ops goes through ABCMeta
    return any(type(n.op) in explicit for n in nodes)
