"""E-graphs drawn: classes as clusters, e-nodes as boxes, the extracted form highlighted, large ones folded.

:func:`draw_egraph` draws an :class:`relations.saturation.egraph.EGraph`:
each e-class a cluster (``id="class_<c>"``) whose label is its number and
its type (``c12: float64 (?,)``; an output's class says ``output k``), each
e-node a box (``id="enode_<t>"``) labelled as ``dprint`` labels its node
(``Exp``, ``Add``, ``ExpandDims{axis=0}``; a graph input by its name, a
constant by its value), an edge from each e-node to each of its input
classes.  The extracted form (default ``egraph.extract()``; any form of the
roots, such as :func:`relations.best`'s, may be given) is drawn bold and
red: its e-nodes and the edges between them have the SVG class
``chosen``.

Folding.  An e-graph with more than ``max_boxes`` boxes (default
:data:`MAX_BOXES`) is folded: the classes shown are, in order, those
``radius`` steps (input or user edges) around ``around`` when it is given,
otherwise the classes of the extracted form from the outputs down, then
their neighbours nearest first, as long as their boxes fit; a class shows at
most ``per_class`` e-nodes (its chosen one first) and one ``+k e-nodes``
box for the rest.  Each connected region of classes not shown becomes one
summary box (``k classes, m e-nodes``, SVG class ``folded``) with edges
where the region meets what is shown; past :data:`FOLD_BOXES` regions, the
smallest share one box.  The box count never exceeds ``max_boxes``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import ancestors

from graph_bridge.dot import Dot, Drawing
from graph_bridge.graph_drawing import MARK_COLOR, node_label, type_label
from relations.arguments import as_variables, check_count

__all__ = ["FOLD_BOXES", "MAX_BOXES", "PER_CLASS", "RADIUS", "chosen_enodes", "draw_egraph"]

#: Boxes a drawn e-graph has at most, by default (e-nodes, ``+k`` boxes and folded regions).
MAX_BOXES = 60
#: Folded regions drawn as their own box at most (the smallest others share one).
FOLD_BOXES = 6
#: E-nodes drawn per class at most, by default.
PER_CLASS = 6
#: Steps around the class ``around=`` names, by default.
RADIUS = 2
#: The colour of a folded region's box and edges.
FOLD_COLOR = "#7f7f7f"


def _same_leaf(a: Variable, b: Variable) -> bool:
    return a is b or (isinstance(a, Constant) and isinstance(b, Constant) and a.equals(b))


def _same_head(a: Variable, b: Variable) -> bool:
    na, nb = a.owner, b.owner
    if na is None or nb is None:
        return na is None and nb is None and _same_leaf(a, b)
    return (
        na.op == nb.op
        and len(na.inputs) == len(nb.inputs)
        and na.outputs.index(a) == nb.outputs.index(b)
    )


#: Levels below a node that :func:`chosen_enodes` compares to tell apart e-nodes of one Op in a class.
MATCH_LEVELS = 4


def _matches(c: int, v: Variable, levels: int, classes: dict[int, list], types: dict[int, Any], memo: dict) -> bool:
    """Whether class ``c`` holds ``v``'s node, compared ``levels`` deep (type, Op, inputs)."""
    key = (c, id(v), levels)
    if key not in memo:
        memo[key] = False  # a cycle of the e-graph does not match by itself
        memo[key] = types[c] == v.type and (
            levels == 0 or any(_holds(n, v, levels, classes, types, memo) for n in classes[c])
        )
    return memo[key]


def _holds(n: Any, v: Variable, levels: int, classes: dict[int, list], types: dict[int, Any], memo: dict) -> bool:
    """Whether e-node ``n`` computes ``v``'s node, compared ``levels`` deep."""
    if not _same_head(n.var, v):
        return False
    inputs = v.owner.inputs if v.owner is not None else ()
    return all(_matches(k, i, levels - 1, classes, types, memo) for k, i in zip(n.children, inputs))


def chosen_enodes(egraph: Any, form: Sequence[Variable], classes: dict[int, list] | None = None) -> dict[int, int]:
    """Class -> the term of the e-node ``form`` (a form of ``egraph.roots``, in their order) takes there.

    Each node of ``form`` is matched, from the outputs down, with the e-node
    of its class that has its Op (props equal) and whose input classes hold
    its inputs (their types and Ops, :data:`MATCH_LEVELS` levels down); a
    class is given one e-node (a form is a DAG).  Nodes
    of ``form`` that no e-node matches (a form of another e-graph, say)
    are left out with everything below them.
    """
    classes = egraph.classes() if classes is None else classes
    types = {c: egraph.class_type(c) for c in classes}
    roots = [egraph.class_of(r) for r in egraph.roots]
    chosen: dict[int, int] = {}
    memo: dict = {}
    queue = deque(zip(roots, form))
    while queue:
        c, v = queue.popleft()
        if c in chosen:
            continue
        n = next((n for n in classes[c] if _holds(n, v, MATCH_LEVELS, classes, types, memo)), None)
        if n is None:
            continue
        chosen[c] = n.term
        if v.owner is not None:
            queue.extend(zip(n.children, v.owner.inputs))
    return chosen


def _adjacency(classes: dict[int, list]) -> dict[int, set[int]]:
    """Class -> the classes its e-nodes read and the classes whose e-nodes read it."""
    adj: dict[int, set[int]] = {c: set() for c in classes}
    for c, nodes in classes.items():
        for n in nodes:
            for k in n.children:
                if k != c:
                    adj[c].add(k)
                    adj[k].add(c)
    return adj


def _nearest(starts: Sequence[int], adj: dict[int, set[int]], radius: int | None) -> list[int]:
    """Classes by distance from ``starts`` (breadth first), up to ``radius`` steps (``None``: all reached)."""
    seen = dict.fromkeys(starts, 0)
    queue = deque(seen)
    while queue:
        c = queue.popleft()
        if radius is not None and seen[c] >= radius:
            continue
        for k in sorted(adj[c]):
            if k not in seen:
                seen[k] = seen[c] + 1
                queue.append(k)
    return list(seen)


def _chosen_order(roots: Sequence[int], chosen: dict[int, int], classes: dict[int, list]) -> list[int]:
    """The classes of the chosen form, from the outputs down (breadth first)."""
    order = dict.fromkeys(roots)
    queue = deque(roots)
    while queue:
        c = queue.popleft()
        term = chosen.get(c)
        node = next((n for n in classes[c] if n.term == term), None)
        for k in node.children if node is not None else ():
            if k not in order:
                order[k] = None
                queue.append(k)
    return list(order)


def _boxes(count: int, per_class: int) -> int:
    return count if count <= per_class else per_class + 1


def _shown(priority: Sequence[int], classes: dict[int, list], budget: int, per_class: int) -> list[int]:
    """The classes of ``priority`` (in order) whose boxes fit in ``budget``."""
    shown, used = [], 0
    for c in priority:
        need = _boxes(len(classes[c]), per_class)
        if used + need <= budget:
            shown.append(c)
            used += need
    return shown


def _regions(hidden: set[int], adj: dict[int, set[int]], slots: int) -> dict[int, int]:
    """Hidden class -> its region's number: connected regions, largest first; past ``slots`` they share the last."""
    regions: list[list[int]] = []
    seen: set[int] = set()
    for start in sorted(hidden):
        if start in seen:
            continue
        seen.add(start)
        region, queue = [start], deque([start])
        while queue:
            for k in adj[queue.popleft()]:
                if k in hidden and k not in seen:
                    seen.add(k)
                    region.append(k)
                    queue.append(k)
        regions.append(region)
    regions.sort(key=len, reverse=True)
    return {c: min(i, slots - 1) for i, region in enumerate(regions) for c in region}


def _class_named(egraph: Any, around: Variable | int, classes: dict[int, list]) -> int:
    """The class ``around`` names (a variable the e-graph holds, or a class number); ``ValueError`` otherwise.

    The e-graph is only read: a variable it does not hold is refused, not added."""
    if isinstance(around, Variable):
        held = {id(n.var): c for c, ns in classes.items() for n in ns}
        if id(around) in held:
            return held[id(around)]
        if any(v is around for v in ancestors(egraph.roots)):
            return egraph.class_of(around)  # a variable of the graph given: held already
        raise ValueError(
            "around must be a variable of the e-graph (of its graph or an e-node's), got one it does not hold"
        )
    if around >= 0:
        try:
            c = egraph.find(around)
        except IndexError:
            c = None
        if c in classes:
            return c
    raise ValueError(f"around must be a class number of the e-graph, got {around!r}")


class _Layout:
    """What a drawing shows: the classes, the e-nodes per class, the folded regions."""

    def __init__(self, egraph: Any, classes: dict[int, list], chosen: dict[int, int], options: dict) -> None:
        self.classes, self.chosen = classes, chosen
        self.roots = [egraph.class_of(r) for r in egraph.roots]
        per_class, max_boxes = options["per_class"], options["max_boxes"]
        adj = _adjacency(classes) if len(classes) > 1 else {c: set() for c in classes}
        total = sum(_boxes(len(ns), per_class) for ns in classes.values())
        if total <= max_boxes and options["around"] is None:
            self.shown = list(classes)
        else:
            priority = self._priority(egraph, adj, options)
            self.shown = _shown(priority, classes, max_boxes - FOLD_BOXES, per_class)
        hidden = set(classes) - set(self.shown)
        self.region = _regions(hidden, adj, FOLD_BOXES) if hidden else {}
        self.per_class = per_class

    def _priority(self, egraph: Any, adj: dict[int, set[int]], options: dict) -> list[int]:
        around = options["around"]
        if around is not None:
            start = _class_named(egraph, around, self.classes)
            return _nearest([start], adj, options["radius"])
        first = _chosen_order(self.roots, self.chosen, self.classes)
        return _nearest(first, adj, None)

    def members(self, c: int) -> tuple[list[Any], int]:
        """The e-nodes of class ``c`` drawn (its chosen one first), and how many are not."""
        nodes = sorted(self.classes[c], key=lambda n: (n.term != self.chosen.get(c), n.term))
        if len(nodes) <= self.per_class:
            return nodes, 0
        return nodes[: self.per_class], len(nodes) - self.per_class


def _cluster(dot: Dot, layout: _Layout, c: int, egraph: Any) -> str:
    """Draw class ``c``; the name of the box its incoming edges point at."""
    outputs = [k for k, r in enumerate(layout.roots) if r == c]
    tail = f" (output {', '.join(map(str, outputs))})" if outputs else ""
    dot.open_cluster(
        str(c), label=f"c{c}: {type_label(egraph.class_type(c))}{tail}", id=f"class_{c}",
        style="rounded,bold" if outputs else "rounded", color="#555555",
    )
    nodes, more = layout.members(c)
    for n in nodes:
        attrs: dict[str, object] = {"label": node_label(n.var), "id": f"enode_{n.term}"}
        attrs["shape"] = "ellipse" if n.var.owner is None else "box"
        if layout.chosen.get(c) == n.term:
            attrs.update({"color": MARK_COLOR, "fontcolor": MARK_COLOR, "penwidth": 2.5, "class": "chosen"})
        dot.node(f"e{n.term}", **attrs)
    if more:
        dot.node(f"more{c}", label=f"+{more} e-nodes", shape="plaintext", fontcolor=FOLD_COLOR,
                 **{"class": "more"})
    dot.close_cluster()
    return f"e{nodes[0].term}"


def _region_boxes(dot: Dot, layout: _Layout) -> None:
    counts: dict[int, list[int]] = {}
    for c, r in layout.region.items():
        counts.setdefault(r, [0, 0])
        counts[r][0] += 1
        counts[r][1] += len(layout.classes[c])
    for r, (n_classes, n_nodes) in sorted(counts.items()):
        classes = f"{n_classes} classes" if n_classes > 1 else "1 class"
        label = f"{classes}, {n_nodes} e-nodes folded"
        dot.node(f"fold{r}", label=label, shape="folder", color=FOLD_COLOR, fontcolor=FOLD_COLOR,
                 id=f"fold_{r}", **{"class": "folded"})


def _edges(dot: Dot, layout: _Layout, entry: dict[int, str]) -> None:
    """E-node -> input class edges (chosen ones red), and edges to and from the folded regions."""
    seen: set[tuple[str, str]] = set()
    for c in layout.shown:
        for n in layout.members(c)[0]:
            chosen = layout.chosen.get(c) == n.term
            for k in n.children:
                attrs: dict[str, object]
                if k in entry:
                    head, attrs = entry[k], ({"lhead": f"cluster_{k}"} if k != c else {})
                    if chosen and k in layout.chosen:
                        attrs.update({"color": MARK_COLOR, "penwidth": 2.0, "class": "chosen"})
                else:  # one edge from the class to a folded region, however many of its e-nodes read it
                    head = f"fold{layout.region[k]}"
                    attrs = {"color": FOLD_COLOR, "style": "dashed", "ltail": f"cluster_{c}"}
                key = (f"e{n.term}" if k in entry else f"c{c}", head)
                if key not in seen:
                    seen.add(key)
                    dot.edge(f"e{n.term}", head, **attrs)
    for c, r in layout.region.items():
        for n in layout.classes[c]:
            for k in n.children:
                if k in entry and (f"fold{r}", entry[k]) not in seen:
                    seen.add((f"fold{r}", entry[k]))
                    dot.edge(f"fold{r}", entry[k], lhead=f"cluster_{k}", color=FOLD_COLOR, style="dashed")


def _positive(value: Any, argname: str) -> int:
    count = int(check_count(value, argname) or 0)
    if count < 1:
        raise ValueError(f"{argname} must be a positive integer, got {value!r}")
    return count


def draw_egraph(
    egraph: Any,
    form: Any = None,
    *,
    around: Variable | int | None = None,
    radius: int = RADIUS,
    max_boxes: int = MAX_BOXES,
    per_class: int = PER_CLASS,
) -> Drawing:
    """A :class:`graph_bridge.dot.Drawing` of ``egraph``; see the module docstring.

    ``form``: the form highlighted, a variable or a list of them in the
    structure of ``egraph.roots`` (default: ``egraph.extract().result``;
    ``False``: none).  ``around``: a variable of the e-graph or a class
    number; the drawing is then the classes within ``radius`` steps of its
    class (as many as fit).  ``max_boxes`` bounds the boxes drawn (at least
    ``FOLD_BOXES + per_class``), ``per_class`` the e-nodes drawn per class.
    The e-graph is read, never changed (an extraction adds nothing to it).
    """
    per_class = _positive(per_class, "per_class")
    max_boxes = _positive(max_boxes, "max_boxes")
    if max_boxes < FOLD_BOXES + per_class:
        raise ValueError(
            f"max_boxes must be at least {FOLD_BOXES + per_class} (FOLD_BOXES + per_class), got {max_boxes}"
        )
    radius = int(check_count(radius, "radius") or 0)
    if isinstance(around, bool) or not (around is None or isinstance(around, (int, Variable))):
        raise TypeError(f"around must be a variable of the e-graph or a class number, got {type(around).__name__}")
    classes = egraph.classes()
    chosen: dict[int, int] = {}
    if form is not False:
        form = egraph.extract().result if form is None else form
        outputs = as_variables(form, "form")[0]
        if len(outputs) != len(egraph.roots):
            raise ValueError(f"form must be a form of the e-graph's {len(egraph.roots)} outputs, got {len(outputs)}")
        chosen = chosen_enodes(egraph, outputs, classes)
    options = {"around": around, "radius": radius, "max_boxes": max_boxes, "per_class": per_class}
    layout = _Layout(egraph, classes, chosen, options)
    dot = Dot("egraph", compound="true", rankdir="TB", nodesep=0.2, ranksep=0.35)
    dot.defaults("node", fontname="Helvetica", fontsize=10, height=0.3, margin="0.08,0.03")
    dot.defaults("edge", arrowsize=0.6)
    dot.defaults("graph", fontname="Helvetica", fontsize=9, labeljust="l")
    entry = {c: _cluster(dot, layout, c, egraph) for c in layout.shown}
    _region_boxes(dot, layout)
    _edges(dot, layout, entry)
    hidden = len(layout.region)
    notes = f"{hidden} of {len(classes)} classes folded" if hidden else ""
    return Drawing(dot.source(), dot.nodes, notes)
