"""Pictures of what the toolkit answers: explanations step by step, and ``draw`` for anything it draws.

:func:`draw_explanation` draws an :class:`relations.Explanation` (or a
:class:`relations.SaturatedExplanation`): one row per step, the sub-graph
rewritten (its top node marked red: the rewritten node) and an arrow,
labelled with the rule's name (and ``backward`` or ``PyTensor rewriter``
where it was one), to what replaced it (its top node marked green); both
sides drawn ``depth`` levels deep as ``dprint`` would (deeper inputs fold
into one box).  Runs of bookkeeping steps (the explicit-broadcast rules of
:data:`relations.LOWERING_RULES`) are one box each, as ``str()`` folds
them, unless ``bookkeeping`` is true.  The SVG groups carry the classes
``step``, ``rule`` (the arrows), ``marked`` (the rewritten nodes) and
``new`` (their replacements).

:func:`draw` draws what it is given: an e-graph
(:func:`relations.saturation.drawing.draw_egraph`), an explanation, or a
PyTensor graph (:func:`graph_bridge.graph_drawing.draw_graph`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytensor.graph.basic import Variable

from graph_bridge.dot import Dot, Drawing
from graph_bridge.graph_drawing import MARK_COLOR, add_graph, draw_graph
from relations.rules import LOWERING_RULES
from relations.saturation.drawing import draw_egraph
from relations.saturation.egraph import EGraph
from relations.saturation.foreign import ForeignRewriter

__all__ = ["DEPTH", "MAX_STEPS", "NEW_COLOR", "draw", "draw_explanation"]

#: Levels of each side of a step drawn, by default (``dprint``'s ``depth``).
DEPTH = 3
#: Rows (steps and folded runs) drawn at most, by default; the rest are counted in one box.
MAX_STEPS = 30
#: The colour of a step's new node.
NEW_COLOR = "#2ca02c"


def _arrow_label(step: Any) -> str:
    label = step.rule
    if step.direction != "forward":
        label += " (backward)"
    if isinstance(step.relation, ForeignRewriter):
        label += " (PyTensor rewriter)"
    return label


def _rows(steps: Sequence[Any], bookkeeping: bool) -> list[tuple[int, Any]]:
    """``(number, step)`` per step drawn, ``(first number, [steps])`` per folded run of bookkeeping steps."""
    rows: list[tuple[int, Any]] = []
    for i, s in enumerate(steps, 1):
        if not bookkeeping and s.relation in LOWERING_RULES:
            if rows and isinstance(rows[-1][1], list):
                rows[-1][1].append(s)
            else:
                rows.append((i, [s]))
        else:
            rows.append((i, s))
    return rows


def _folded_row(dot: Dot, first: int, run: list[Any]) -> None:
    counts: dict[str, int] = {}
    for s in run:
        counts[s.rule] = counts.get(s.rule, 0) + 1
    span = f"{first}" if len(run) == 1 else f"{first}-{first + len(run) - 1}"
    rules = ", ".join(f"{r} x{n}" for r, n in counts.items())
    dot.node(f"run{first}", label=f"{span}. bookkeeping: {rules}\n(explicit broadcasting)", shape="note",
             color="#7f7f7f", fontcolor="#7f7f7f", **{"class": "bookkeeping"})


def _step_row(dot: Dot, number: int, step: Any, depth: int) -> None:
    dot.open_cluster(f"step{number}", label=f"{number}.", id=f"step_{number}", style="rounded", color="#999999",
                     **{"class": "step"})
    add_graph(dot, [step.after], f"s{number}a", (), depth)  # (declared first, dot places it on the right)
    add_graph(dot, [step.before], f"s{number}b", (step.before,), depth)
    dot.extend([
        f'"s{number}a0" [color="{NEW_COLOR}", fontcolor="{NEW_COLOR}", penwidth="2.5", class="new"];',
        f'{{ rank="same"; "s{number}b0"; "s{number}a0"; }}',
    ])
    dot.edge(f"s{number}b0", f"s{number}a0", label=_arrow_label(step), color=MARK_COLOR, fontcolor=MARK_COLOR,
             penwidth=1.5, style="bold", minlen=2, **{"class": "rule"})
    dot.close_cluster()


def _height(v: Variable, depth: int) -> int:
    """Levels of ``v``'s graph drawn at ``depth`` (a folded level counts one)."""
    if v.owner is None:
        return 1
    if depth <= 1:
        return 2
    return 1 + max((_height(i, depth - 1) for i in v.owner.inputs), default=0)


def draw_explanation(
    explanation: Any, *, depth: int = DEPTH, bookkeeping: bool | None = None, max_steps: int = MAX_STEPS
) -> Drawing:
    """A :class:`graph_bridge.dot.Drawing` of ``explanation``'s steps; see the module docstring.

    ``bookkeeping`` defaults to the explanation's own; ``max_steps`` rows are
    drawn, the others counted in a last box.  An explanation of no step
    draws the graph, labelled as ``str()`` says so.
    """
    steps = getattr(explanation, "steps", None)
    if steps is None or not hasattr(explanation, "result"):
        raise TypeError(f"explanation must be a relations.Explanation, got {type(explanation).__name__}")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be a positive integer, got {depth!r}")
    if bookkeeping is None:
        bookkeeping = getattr(explanation, "bookkeeping", False)
    text = explanation.format(bookkeeping).splitlines()
    head = text[: next((i for i, line in enumerate(text) if line[:1].isdigit() and ". " in line), len(text))]
    dot = Dot("explanation", rankdir="TB", label="\n".join(head), labelloc="t",
              labeljust="l", fontname="Helvetica", fontsize=10, nodesep=0.15, ranksep=0.3, newrank="true")
    dot.defaults("node", fontname="Helvetica", fontsize=10, height=0.3)
    dot.defaults("edge", fontname="Helvetica", fontsize=9, arrowsize=0.6)
    if not steps:
        outputs = explanation.result if isinstance(explanation.result, (list, tuple)) else [explanation.result]
        add_graph(dot, list(outputs), "n", (), depth)
        return Drawing(dot.source(), dot.nodes)
    rows = _rows(steps, bool(bookkeeping))
    above: tuple[str, int] | None = None  # the previous row's first box and levels: rows stack downwards
    for number, row in rows[:max_steps]:
        if isinstance(row, list):
            _folded_row(dot, number, row)
            levels = 1
        else:
            _step_row(dot, number, row, depth)
            levels = max(_height(row.before, depth), _height(row.after, depth))
        top = f"run{number}" if isinstance(row, list) else f"s{number}b0"
        if above is not None:
            dot.edge(above[0], top, style="invis", minlen=above[1] + 1)
        above = (top, levels)
    if len(rows) > max_steps:
        left = len(steps) - rows[max_steps][0] + 1
        dot.node("rest", label=f"{left} more steps (max_steps={max_steps})", shape="note", **{"class": "folded"})
    notes = f"{len(rows) - max_steps} rows not drawn" if len(rows) > max_steps else ""
    return Drawing(dot.source(), dot.nodes, notes)


def draw(what: Any, **options: Any) -> Drawing:
    """A :class:`graph_bridge.dot.Drawing` of ``what``: ``.dot()`` its Graphviz source, ``.svg()`` its picture.

    ``what`` is an :class:`relations.EGraph` (options as
    :func:`relations.saturation.drawing.draw_egraph`: ``form``, ``around``,
    ``radius``, ``max_boxes``, ``per_class``), an
    :class:`relations.Explanation` (options as :func:`draw_explanation`),
    or a PyTensor variable or list of them (options as
    :func:`graph_bridge.graph_drawing.draw_graph`: ``marked``, ``depth``,
    ``max_boxes``).  Nothing given is changed.  ``.svg()`` needs a
    ``dot`` program (the ``draw`` extra); ``.dot()`` does not.
    """
    if isinstance(what, EGraph):
        return draw_egraph(what, **options)
    if hasattr(what, "steps") and hasattr(what, "result"):
        return draw_explanation(what, **options)
    if isinstance(what, Variable) or (
        isinstance(what, (list, tuple)) and what and all(isinstance(v, Variable) for v in what)
    ):
        return draw_graph(what, **options)
    raise TypeError(
        f"draw takes an EGraph, an Explanation or PyTensor variables, got {type(what).__name__}"
    )
