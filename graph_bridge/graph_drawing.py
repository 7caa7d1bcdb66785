"""PyTensor graphs drawn: one box per node labelled as ``dprint`` labels it, the explicit broadcasting shown.

:func:`draw_graph` draws the nodes of a graph (outputs at the top, an edge
from each node down to its inputs), each box the node's Op as ``dprint``
prints it (``Exp``, ``Sum{axes=None}``, ``add{x,*}``) over its output's type
(:func:`type_label`: ``float64 (?,)``); inputs are ellipses with their name,
constants their value.  An edge into the toolkit's explicit-broadcast Ops
(:class:`graph_bridge.ops.ExplicitElemwise`, :class:`graph_bridge.ops.ExplicitAlloc`)
is labelled with that input's broadcast entry, one character per output
dimension (``x`` absent, ``1`` broadcasts, ``*`` does not), and drawn dashed
and blue where the input broadcasts (an ``x`` or a ``1``).

The labels (:func:`node_label`, :func:`leaf_label`, :func:`type_label`) are
the e-graph's and the explanations' too.  :func:`add_graph` draws into a
:class:`graph_bridge.dot.Dot` under way, which is how an explanation draws
each step.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from pytensor.graph.basic import Constant, Variable
from pytensor.tensor.type import TensorType

from graph_bridge.dot import Dot, Drawing
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise

__all__ = [
    "BROADCAST_COLOR",
    "MARK_COLOR",
    "MAX_GRAPH_BOXES",
    "add_graph",
    "broadcast_entries",
    "draw_graph",
    "leaf_label",
    "node_label",
    "type_label",
]

#: Boxes :func:`draw_graph` draws before it folds the rest into one box.
MAX_GRAPH_BOXES = 150
#: Characters of a label kept (a longer one ends in ``...``).
MAX_LABEL = 40
#: The colour of an input edge that broadcasts.
BROADCAST_COLOR = "#1f77b4"
#: The colour of marked nodes (a rewritten node, an extracted e-node).
MARK_COLOR = "#d62728"


def _short(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 3] + "..."


def type_label(t: Any) -> str:
    """A type in a few characters: ``float64 (?, 3)`` for a tensor (``?`` an unknown length), else ``str(t)``."""
    if isinstance(t, TensorType):
        dims = ", ".join("?" if s is None else str(s) for s in t.shape)
        return f"{t.dtype} ({dims}{',' if len(t.shape) == 1 else ''})"
    return _short(str(t))


def leaf_label(v: Variable) -> str:
    """A graph input by its name (or its type), a constant by its value, as ``dprint`` shows them."""
    if isinstance(v, Constant):
        return _short(str(v))
    return _short(v.name or f"<{type_label(v.type)}>")


def node_label(v: Variable) -> str:
    """The Op of ``v``'s node as ``dprint`` prints it (``.k`` for output ``k`` of several);
    a leaf's :func:`leaf_label`."""
    node = v.owner
    if node is None:
        return leaf_label(v)
    text = str(node.op)
    if len(node.outputs) > 1:
        text += f".{node.outputs.index(v)}"
    return _short(text)


def broadcast_entries(v: Variable) -> list[str | None]:
    """Per input of ``v``'s node, its broadcast entry where the Op records one (explicit Ops), else ``None``."""
    node = v.owner
    if node is None:
        return []
    op = node.op
    if isinstance(op, ExplicitElemwise):
        return list(op.pattern)
    if isinstance(op, ExplicitAlloc):
        return [op.entry] + [None] * (len(node.inputs) - 1)
    return [None] * len(node.inputs)


def input_edge_style(entry: str | None) -> dict[str, object]:
    """The attributes of an edge into an input whose broadcast entry is ``entry``."""
    if entry is None:
        return {}
    if "x" in entry or "1" in entry:
        return {"label": entry, "style": "dashed", "color": BROADCAST_COLOR, "fontcolor": BROADCAST_COLOR,
                "class": "broadcasts"}
    return {"label": entry}


def add_graph(
    dot: Dot,
    outputs: Sequence[Variable],
    prefix: str,
    marked: Collection[Variable] = (),
    depth: int | None = None,
    max_boxes: int = MAX_GRAPH_BOXES,
) -> int:
    """Draw ``outputs``' graph into ``dot``, node names starting ``prefix``; the boxes drawn.

    ``marked`` variables are drawn bold and red (class ``marked``); nodes
    deeper than ``depth`` below an output, and those past ``max_boxes``,
    are folded into one box per place they hang from (class ``folded``).
    """
    names: dict[int, str] = {}
    marked_ids = {id(m) for m in marked}
    stack = [(v, 0) for v in reversed(list(outputs))]
    later: list[tuple[str, Variable]] = []  # (name, variable) whose input edges are drawn at the end
    drawn = 0
    while stack:
        v, level = stack.pop()
        if id(v) in names:
            continue
        name = names[id(v)] = f"{prefix}{len(names)}"
        drawn += 1
        dot.node(name, **_box(v, id(v) in marked_ids))
        if v.owner is None:
            continue
        if (depth is not None and level >= depth) or drawn >= max_boxes:
            drawn += 1
            dot.node(name + "_more", label=f"{len(v.owner.inputs)} inputs not drawn", shape="plaintext",
                     **{"class": "folded"})
            dot.edge(name, name + "_more", style="dotted")
            continue
        stack.extend((inp, level + 1) for inp in reversed(v.owner.inputs) if id(inp) not in names)
        later.append((name, v))
    for name, v in later:
        for inp, entry in zip(v.owner.inputs, broadcast_entries(v)):
            if id(inp) in names:
                dot.edge(name, names[id(inp)], **input_edge_style(entry))
    return drawn


def _box(v: Variable, marked: bool) -> dict[str, object]:
    if v.owner is None:
        attrs: dict[str, object] = {"label": leaf_label(v), "shape": "ellipse"}
    else:
        attrs = {"label": f"{node_label(v)}\n{type_label(v.type)}", "shape": "box"}
    if marked:
        attrs.update({"color": MARK_COLOR, "penwidth": 2.5, "fontcolor": MARK_COLOR, "class": "marked"})
    return attrs


def draw_graph(
    graph: Variable | Sequence[Variable],
    marked: Collection[Variable] = (),
    depth: int | None = None,
    max_boxes: int = MAX_GRAPH_BOXES,
) -> Drawing:
    """A :class:`graph_bridge.dot.Drawing` of a PyTensor graph (a variable or a list of them).

    See the module docstring; ``marked``, ``depth`` and ``max_boxes`` as for
    :func:`add_graph`.  The graph is read, never changed.
    """
    outputs = [graph] if isinstance(graph, Variable) else list(graph)
    bad = [type(o).__name__ for o in outputs if not isinstance(o, Variable)]
    if bad:
        raise TypeError(f"graph must be a PyTensor variable or a list of them, got {bad[0]}")
    dot = Dot("graph", rankdir="TB")
    dot.defaults("node", fontname="Helvetica", fontsize=10, height=0.3)
    dot.defaults("edge", fontname="Helvetica", fontsize=9, arrowsize=0.6)
    boxes = add_graph(dot, outputs, "n", marked, depth, max_boxes)
    return Drawing(dot.source(), boxes)
