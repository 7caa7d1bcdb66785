"""Make the pictures of docs/drawing.md: ``python docs/make_pictures.py`` (writes docs/img/*.svg).

Needs the ``draw`` extra (graphviz-pure) and, for the model's e-graph, PyMC
(Python 3.12 line: ``pip install -e '.[test]'``).  Each picture is drawn by
the toolkit from the docs' own examples, so running this again after a
change to the rules or the drawings shows what changed.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytensor.tensor as pt

import relations

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"


def _write(name: str, drawing) -> None:
    svg = re.sub(r"<!--.*?-->\n?", "", drawing.svg(), flags=re.S)  # dot's comments: the node names again
    (OUT / name).write_text(svg)
    print(f"docs/img/{name}: {drawing.boxes} boxes, {len(svg) // 1024} KB")


def egraph_and_explanation() -> None:
    """The e-graph of ``sum(expand_dims(exp(x), 0))`` and the explanations of explain.md."""
    x = pt.vector("x")
    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    _write("egraph.svg", relations.saturate(g).draw())
    m = pt.matrix("m")
    e = relations.explain(g + pt.exp(m).T.T.sum(axis=0))
    _write("explanation.svg", e.draw())
    s = relations.explain(pt.log(1 + pt.exp(x)), rewriters=("stabilize",))
    _write("explanation_stabilize.svg", s.draw())
    value = pt.as_tensor_variable(pt.alloc(x, 3, x.shape[0]))
    y = relations.normalize(value * 2 + pt.constant(np.arange(3.0)))
    _write("graph.svg", relations.draw(y))


def model_egraph() -> None:
    """The logp + dlogp e-graph of the eight schools model, folded to 60 boxes."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from pymc_models import MODELS, logp_dlogp
    except ImportError as exc:  # no PyMC on this Python line
        print(f"docs/img/model_egraph.svg not made: {exc}")
        return
    outs = logp_dlogp(MODELS["eight schools"]())[1]
    _write("model_egraph.svg", relations.saturate(outs).draw())


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=FutureWarning)
    OUT.mkdir(exist_ok=True)
    egraph_and_explanation()
    model_egraph()
