"""Reverse queries on the motivating cases: equivalents, match modulo the rules, best.

Run: ``python examples/queries.py``.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
from etuples import etuple
from pytensor.graph.replace import clone_replace
from unification import var

import relations
from graph_bridge import etuplize


def show(graph) -> str:
    return pytensor.dprint(graph, file="str").rstrip().replace("\n", "\n    ")


def equivalents_of_a_sum_of_exp() -> None:
    x = pt.vector("x")
    g = pt.sum(pt.exp(x))
    print("=== equivalents of Sum(Exp(x)) (DimShuffle removal run backward, pytensor #2132), first 4:")
    for i, form in enumerate(relations.equivalents(g, limit=4, depth=2)):
        value = form.eval({x: np.arange(3.0)}, mode="FAST_COMPILE")
        print(f"  [{i}] value {value:.4f}\n    {show(form)}")


def match_an_expanded_scalar_add() -> None:
    s, y = pt.scalar("s"), pt.vector("y")
    g = relations.normalize(s + y)  # add{x,*}(s, y)
    a, b, op = var("a"), var("b"), var("op")
    print("\n=== match add(a, b) against the explicit form of s + y (sees through):")
    for answer in relations.match(g, etuple(etuplize(pt.add), a, b), depth=0):
        print("  ", {str(k): str(v) for k, v in answer.items()})
    print("=== match add(op(a), b): only after one backward step (lowering):")
    for answer in relations.match(g, etuple(etuplize(pt.add), etuple(op, a), b), depth=1):
        print("  ", {str(k): str(v) for k, v in answer.items()})


def best_forms() -> None:
    from lkjcorr import lkjcorr_sqr  # examples/lkjcorr.py

    m = pt.matrix("m", shape=(20, 30))
    g = pt.sum(pt.expand_dims(pt.exp(m), 0), axis=(0, 2))
    print("\n=== best form of Sum{axes=(0, 2)}(ExpandDims(Exp(m))) (pytensor #2132):")
    print("  before", show(g))
    print("  after", show(relations.best(g)))
    params, y = lkjcorr_sqr(3)
    # the default cost reads static shapes: give params its length (3 for n=3)
    y = clone_replace(y, {params: pt.vector("params", shape=(3,))})
    print("\n=== best form of the LKJCorr Sqr with a static params length (pytensor #2138):")
    print("  after", show(relations.best(y)))


if __name__ == "__main__":
    equivalents_of_a_sum_of_exp()
    match_an_expanded_scalar_add()
    best_forms()
