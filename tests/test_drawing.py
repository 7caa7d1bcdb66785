"""Drawings: e-graphs, explanations and PyTensor graphs as Graphviz source and SVG (issue 46).

The structure is read back from the SVG ``dot`` makes (``xml.etree``): one
cluster per class shown, the highlighted boxes and edges exactly the
extracted form's, the labels, the fold bound, the broadcast entries; and
the source alone (``.dot()``) where no ``dot`` program is found.  The SVG
tests need the ``dot`` program the test extra installs (the ``draw``
extra's graphviz-pure); without it they fail with ``DotNotFound``, which
names the extra, rather than skip.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relations
from graph_bridge import dot as dot_module
from graph_bridge.dot import DotNotFound, Drawing, find_dot, quote, render_svg
from graph_bridge.graph_drawing import draw_graph, node_label, type_label
from helpers import snapshot
from relations.queries.drawing import draw_explanation
from relations.saturation.drawing import FOLD_BOXES, MAX_BOXES, chosen_enodes
from strategies import graphs

SVG = "{http://www.w3.org/2000/svg}"



def _groups(svg: str, kind: str) -> list[ET.Element]:
    """The SVG groups of one kind (``node``, ``edge``, ``cluster``)."""
    root = ET.fromstring(svg)
    return [g for g in root.iter(f"{SVG}g") if kind in g.get("class", "").split()]


def _classes(g: ET.Element) -> set[str]:
    return set(g.get("class", "").split())


def _texts(g: ET.Element) -> list[str]:
    return [t.text or "" for t in g.iter(f"{SVG}text")]


def _title(g: ET.Element) -> str:
    title = g.find(f"{SVG}title")
    assert title is not None and title.text is not None
    return title.text


def _sum_of_expand_dims():
    x = pt.vector("x")
    return x, pt.sum(pt.expand_dims(pt.exp(x), 0))


def _form_labels(outputs) -> list[str]:
    """The labels of a form's nodes and inputs, as the drawing labels them (each once)."""
    seen, out, stack = set(), [], list(outputs)
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        out.append(node_label(v))
        stack.extend(v.owner.inputs if v.owner else ())
    return sorted(out)


def _logp_like(n: int = 6):
    """A normal log-density over ``n`` vectors and its gradient: a few hundred nodes, no PyMC."""
    xs = [pt.vector(f"x{i}") for i in range(n)]
    mu, sigma = pt.scalar("mu"), pt.scalar("sigma")
    logp = sum(pt.sum(-0.5 * ((x - mu) / sigma) ** 2 - pt.log(sigma) - 0.5 * np.log(2 * np.pi)) for x in xs)
    grads = pytensor.grad(logp, [mu, sigma, *xs])
    assert isinstance(grads, list)
    return [logp, *grads]


# -- the DOT source ---------------------------------------------------------------------------


def test_quote_escapes_what_dot_reads():
    assert quote('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'


def test_type_labels_read_like_the_issue():
    assert type_label(pt.vector().type) == "float64 (?,)"
    assert type_label(pt.matrix(shape=(None, 3)).type) == "float64 (?, 3)"
    assert type_label(pt.scalar(dtype="int32").type) == "int32 ()"


def test_egraph_source_has_a_cluster_per_class_and_a_box_per_enode():
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    source = eg.to_dot()
    classes = eg.classes()
    assert sum(map(len, classes.values())) <= MAX_BOXES  # small: nothing folds
    assert sorted(re.findall(r'id="class_(\d+)"', source), key=int) == sorted(map(str, classes), key=int)
    shown = set(re.findall(r'id="enode_(\d+)"', source))
    drawn_per_class = {c: {str(n.term) for n in ns} for c, ns in classes.items()}
    for c, terms in drawn_per_class.items():
        assert terms <= shown or re.search(rf'"more{c}" \[label="\+\d+ e-nodes"', source), c


# -- SVG of an e-graph ------------------------------------------------------------------------------


def test_the_highlighted_boxes_are_the_extracted_form():
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    before = snapshot(g)
    size = eg.size
    form = eg.extract().result
    svg = eg.draw().svg()
    nodes = _groups(svg, "node")
    chosen = [n for n in nodes if "chosen" in _classes(n)]
    assert sorted(t for n in chosen for t in _texts(n)) == _form_labels([form]) == ["Exp", "Sum{axes=None}", "x"]
    assert {n.get("id") for n in chosen} == {f"enode_{t}" for t in chosen_enodes(eg, [form]).values()}
    # the highlighted edges join the highlighted boxes, one per input of the form's nodes
    titles = {_title(n): n for n in nodes}
    red_edges = [e for e in _groups(svg, "edge") if "chosen" in _classes(e)]
    assert len(red_edges) == 2
    for e in red_edges:
        tail, head = _title(e).split("->")
        assert "chosen" in _classes(titles[tail]) and "chosen" in _classes(titles[head])
    assert snapshot(g) == before and eg.size == size  # nothing given was changed


def test_a_form_given_is_highlighted_instead():
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    svg = eg.draw(form=g).svg()  # the input's own spelling
    chosen = [n for n in _groups(svg, "node") if "chosen" in _classes(n)]
    assert sorted(t for n in chosen for t in _texts(n)) == ["Exp", "ExpandDims{axis=0}", "Sum{axes=None}", "x"]
    none = eg.draw(form=False).svg()
    assert not [n for n in _groups(none, "node") if "chosen" in _classes(n)]


def test_relations_best_form_is_found_in_the_egraph():
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    best = relations.best(g)
    chosen = chosen_enodes(eg, [best])
    assert len(chosen) == len(_form_labels([best]))


def test_cluster_labels_give_the_class_type_and_the_outputs():
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    svg = eg.draw().svg()
    labels = {c.get("id"): " ".join(_texts(c)) for c in _groups(svg, "cluster")}
    root = eg.class_of(g)
    assert labels[f"class_{root}"].startswith(f"c{root}: float64 ()") and "(output 0)" in labels[f"class_{root}"]
    assert labels[f"class_{eg.class_of(x)}"].startswith(f"c{eg.class_of(x)}: float64 (?,)")
    assert len(labels) == eg.size[0]


def _folded_counts(svg: str) -> int:
    total = 0
    for box in _groups(svg, "node"):
        if "folded" in _classes(box):
            [text] = _texts(box)
            found = re.match(r"(\d+) class", text)
            assert found is not None, text
            total += int(found.group(1))
    return total


@pytest.mark.parametrize("max_boxes", [20, MAX_BOXES])
def test_a_large_egraph_folds_to_the_bound(max_boxes):
    outs = _logp_like()
    eg = relations.saturate(outs)
    n_classes, n_nodes = eg.size
    assert n_nodes > 3 * MAX_BOXES  # the case: too many to draw
    drawing = eg.draw(max_boxes=max_boxes)
    svg = drawing.svg()
    boxes = _groups(svg, "node")
    assert len(boxes) == drawing.boxes <= max_boxes
    clusters = _groups(svg, "cluster")
    assert 0 < len(clusters) < n_classes
    assert len(clusters) + _folded_counts(svg) == n_classes  # every class is shown or counted once
    assert 1 <= sum("folded" in _classes(b) for b in boxes) <= FOLD_BOXES
    # the extracted form's classes come first, from the outputs down: the first output's class is shown
    shown = {c.get("id") for c in clusters}
    assert f"class_{eg.class_of(outs[0])}" in shown
    if max_boxes == MAX_BOXES:
        assert {f"class_{eg.class_of(o)}" for o in outs} <= shown
    assert any("chosen" in _classes(b) for b in boxes)


def test_folding_around_a_variable_shows_its_neighbourhood():
    outs = _logp_like(3)
    eg = relations.saturate(outs)
    mu = next(v for v in pytensor.graph.traversal.ancestors(outs) if v.name == "mu")
    svg = eg.draw(around=mu, radius=1).svg()
    shown = {int(c.get("id").removeprefix("class_")) for c in _groups(svg, "cluster")}
    home = eg.class_of(mu)
    near = {home}
    for c, nodes in eg.classes().items():
        if any(home in n.children for n in nodes):
            near.add(c)
    assert home in shown and shown <= near
    assert len(_groups(svg, "node")) <= MAX_BOXES


def test_bad_arguments_are_named():
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    with pytest.raises(ValueError, match="form"):
        eg.draw(form=[g, g])
    with pytest.raises(ValueError, match="per_class"):
        eg.draw(per_class=0)
    with pytest.raises(ValueError, match="max_boxes"):
        eg.draw(max_boxes=3)
    with pytest.raises(ValueError, match="radius"):
        eg.draw(radius=-1)
    with pytest.raises(TypeError, match="around"):
        eg.draw(around="x")
    with pytest.raises(ValueError, match="around"):
        eg.draw(around=pt.vector("elsewhere"))
    with pytest.raises(ValueError, match="around"):
        eg.draw(around=10**6)
    with pytest.raises(TypeError, match="draw takes"):
        relations.draw(42)
    assert eg.size == relations.saturate(g).size  # a refused variable was not added


# -- no dot program ------------------------------------------------------------------------------------


def test_without_dot_svg_names_the_extra_and_dot_still_works(monkeypatch):
    monkeypatch.setattr(dot_module, "find_dot", lambda: None)
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    drawing = eg.draw()
    assert drawing.dot().startswith('digraph "egraph"')
    with pytest.raises(DotNotFound, match=r"'draw' extra.*pytensor-relations\[draw\]"):
        drawing.svg()
    assert eg._repr_svg_() is None  # Jupyter shows the text instead
    assert relations.explain(g)._repr_svg_() is None
    assert "Sum{axes=None}" in eg.to_dot()


def test_the_dot_program_named_by_relations_dot_is_used(monkeypatch, tmp_path):
    real = find_dot()
    assert real is not None, "the test extra installs graphviz-pure"
    wrapper = tmp_path / "my-dot"
    wrapper.write_text(f'#!/bin/sh\necho "<!-- through my-dot -->" \nexec "{real}" "$@" | tail -n +2\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("RELATIONS_DOT", str(wrapper))
    assert find_dot() == str(wrapper)
    assert render_svg("digraph { a }").startswith("<!-- through my-dot -->")


def test_a_dot_program_named_that_is_not_there_is_not_found(monkeypatch):
    monkeypatch.setenv("RELATIONS_DOT", "/nonexistent/dot")
    assert find_dot() is None
    with pytest.raises(DotNotFound):
        render_svg("digraph { a }")


def test_dot_refusing_the_source_says_so():
    with pytest.raises(RuntimeError, match="failed"):
        render_svg("digraph { a -> }")


def test_jupyter_gets_svg():
    x, g = _sum_of_expand_dims()
    eg = relations.saturate(g)
    for shown in (eg._repr_svg_(), relations.explain(g)._repr_svg_(), relations.draw(g)._repr_svg_()):
        assert ET.fromstring(shown).tag == f"{SVG}svg"
    assert "boxes" in repr(relations.draw(g))


def test_a_drawing_saves_its_svg_or_its_source(tmp_path):
    x, g = _sum_of_expand_dims()
    picture = relations.draw(g)
    assert ET.parse(picture.save(tmp_path / "g.svg")).getroot().tag == f"{SVG}svg"
    assert picture.save(tmp_path / "g.gv").read_text() == picture.dot()


# -- explanations ------------------------------------------------------------------------------------


def _explained():
    x = pt.vector("x")
    m = pt.matrix("m")
    g = pt.sum(pt.expand_dims(pt.exp(x), 0)) + pt.exp(m).T.T.sum(axis=0)
    return g, relations.explain(g)


def test_an_explanation_draws_each_step_with_its_rule_on_the_arrow():
    g, e = _explained()
    before = snapshot(g)
    svg = e.draw().svg()
    steps = [c for c in _groups(svg, "cluster") if "step" in _classes(c)]
    rules = [" ".join(_texts(a)) for a in _groups(svg, "edge") if "rule" in _classes(a)]
    drawn = [s for s in e.steps if s.rule != "elemwise_explicito"]  # the bookkeeping step is folded
    assert len(steps) == len(drawn) == 3
    assert rules == [s.rule for s in drawn]
    marked = [n for n in _groups(svg, "node") if "marked" in _classes(n)]
    new = [n for n in _groups(svg, "node") if "new" in _classes(n)]
    assert [_texts(n)[0] for n in marked] == [node_label(s.before) for s in drawn]
    assert [_texts(n)[0] for n in new] == [node_label(s.after) for s in drawn]
    folded = [n for n in _groups(svg, "node") if "bookkeeping" in _classes(n)]
    assert len(folded) == 1 and "4. bookkeeping: elemwise_explicito x1" in " ".join(_texts(folded[0]))
    assert snapshot(g) == before and len(e.steps) == 4


def test_an_explanation_with_bookkeeping_draws_every_step():
    g, e = _explained()
    svg = draw_explanation(e, bookkeeping=True).svg()
    rules = [" ".join(_texts(a)) for a in _groups(svg, "edge") if "rule" in _classes(a)]
    assert rules == [s.rule for s in e.steps]


def test_a_step_a_pytensor_rewriter_took_says_so():
    x = pt.vector("x")
    e = relations.explain(pt.log(1 + pt.exp(x)), rewriters=("stabilize",))
    svg = e.draw().svg()
    rules = [" ".join(_texts(a)) for a in _groups(svg, "edge") if "rule" in _classes(a)]
    assert "local_log1p (PyTensor rewriter)" in rules
    assert any("unstable spellings" in t for t in _texts(ET.fromstring(svg)))


def test_an_explanation_of_nothing_draws_the_graph():
    x = pt.vector("x")
    e = relations.explain(pt.exp(x))
    source = e.to_dot()
    assert "normal form" in source and '"Exp\\nfloat64 (?,)"' in source


def test_explanation_arguments_are_checked():
    g, e = _explained()
    with pytest.raises(ValueError, match="depth"):
        e.draw(depth=0)
    with pytest.raises(TypeError, match="explanation"):
        draw_explanation(g)
    assert "more steps" in draw_explanation(e, max_steps=1).dot()


# -- PyTensor graphs with the explicit-broadcast Ops ------------------------------------------------------


def test_a_graph_shows_which_inputs_broadcast():
    x = pt.vector("x")
    y = relations.normalize(pt.sum(pt.exp(x)) + pt.constant(np.arange(3.0)))  # add{x,*}
    assert str(y.owner.op) == "add{x,*}"
    before = snapshot(y)
    svg = relations.draw(y).svg()
    edges = _groups(svg, "edge")
    broadcasting = [e for e in edges if "broadcasts" in _classes(e)]
    assert [_texts(e) for e in broadcasting] == [["x"]]
    assert sorted(" ".join(_texts(e)) for e in edges if _texts(e)) == ["*", "x"]
    labels = [" ".join(_texts(n)) for n in _groups(svg, "node")]
    assert "add{x,*} float64 (3,)" in labels and "[0. 1. 2.]" in labels
    assert snapshot(y) == before


def test_an_explicit_alloc_shows_its_entry():
    x = pt.vector("x")
    y = relations.normalize(pt.alloc(x, 3, x.shape[0]) * 2)
    svg = draw_graph(y).svg()
    labels = [" ".join(_texts(e)) for e in _groups(svg, "edge")]
    assert "x*" in labels  # the Alloc's value: a new leading dim, then its own
    assert any("Alloc{x*}" in " ".join(_texts(n)) for n in _groups(svg, "node"))


def test_a_deep_graph_folds_below_depth():
    x = pt.vector("x")
    y = pt.exp(pt.exp(pt.exp(pt.exp(x))))
    d = draw_graph(y, depth=2)
    assert d.dot().count("Exp\\n") == 3 and "1 inputs not drawn" in d.dot()
    assert isinstance(relations.draw([y, x]), Drawing)


# -- drawn graphs -------------------------------------------------------------------------------------------

#: Examples of the property below in the fast profile (each saturates, extracts and lays out a drawing).
DRAWN_EXAMPLES = 40


@settings(
    max_examples=min(settings().max_examples, DRAWN_EXAMPLES), deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(graphs(max_nodes=6, family=None), st.sampled_from([FOLD_BOXES + 1 + 6, MAX_BOXES]))
def test_any_drawn_egraph_draws_within_its_bound_with_its_extracted_form(drawn, max_boxes):
    before = snapshot(*drawn.outputs)
    eg = relations.saturate(drawn.outputs, limits=relations.Limits(nodes=2_000, iterations=4, seconds=2.0))
    size = eg.size
    form = eg.extract().result
    outputs = form if isinstance(form, list) else [form]
    chosen = chosen_enodes(eg, outputs)
    form_vars = {id(v) for v in pytensor.graph.traversal.ancestors(outputs)}
    assert len(chosen) == len(form_vars), drawn.describe()  # every node of the form found, one per class
    svg = eg.draw(form=form, max_boxes=max_boxes).svg()
    boxes = _groups(svg, "node")
    clusters = _groups(svg, "cluster")
    assert len(boxes) <= max_boxes, drawn.describe()
    assert len(clusters) + _folded_counts(svg) == size[0], drawn.describe()
    shown = {int(c.get("id").removeprefix("class_")) for c in clusters}
    red = {b.get("id") for b in boxes if "chosen" in _classes(b)}
    assert red == {f"enode_{t}" for c, t in chosen.items() if c in shown}, drawn.describe()
    assert snapshot(*drawn.outputs) == before and eg.size == size, drawn.describe()
