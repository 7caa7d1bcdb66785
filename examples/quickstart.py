"""Quickstart: each rule family's motivating case, before and after ``normalize``.

Run: ``python examples/quickstart.py``
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations


def show(title: str, before, after, givens) -> None:
    print(f"\n=== {title}")
    print("--- before")
    pytensor.dprint(before)
    print("--- after relations.normalize")
    pytensor.dprint(after)
    f = pytensor.function(list(givens), [before, after], mode="FAST_COMPILE")
    b, a = f(*givens.values())
    print(f"values: before={np.asarray(b)!r} after={np.asarray(a)!r}")


def seed_001() -> None:
    x = pt.vector("x")
    y = pt.sum(pt.expand_dims(pt.exp(x), 0))
    show("seed 001: a full reduction does not see added dims", y, relations.normalize(y),
         {x: np.arange(3.0)})


def seed_001_join() -> None:
    a, b, c = pt.vector("a"), pt.vector("b"), pt.vector("c")
    y = pt.sum(pt.join(0, pt.expand_dims(a, 0), pt.expand_dims(b, 0), pt.expand_dims(c, 0)))
    show("seed 001: the reduction of a join, without ExpandDims or Join", y,
         relations.normalize(y), {a: np.arange(3.0), b: np.ones(3), c: np.full(3, 2.0)})


def seed_001_partial() -> None:
    m = pt.matrix("m")
    y = pt.sum(pt.expand_dims(m, 0), axis=2)
    show("seed 001: a DimShuffle moves out of a partial reduction", y, relations.normalize(y),
         {m: np.arange(6.0).reshape(2, 3)})


def seed_000_broadcast() -> None:
    x, m, v = pt.scalar("x"), pt.matrix("m"), pt.vector("v")
    y = x * m + v
    show("seeds 000/002: broadcasting in the Op, no ExpandDims (see broadcast_replace.py)", y,
         relations.normalize(y), {x: 2.0, m: np.ones((2, 3)), v: np.arange(3.0)})


def seed_004_lkjcorr() -> None:
    from lkjcorr import lkjcorr_sqr  # examples/lkjcorr.py

    params, y = lkjcorr_sqr(3)
    show("seed 004: Sqr lifted through SetSubtensor and Alloc (LKJCorr)", y,
         relations.normalize(y), {params: np.array([0.1, -0.2, 0.3])})


def queries() -> None:
    """One of each reverse query (see examples/queries.py and docs/queries.md)."""
    from etuples import etuple
    from unification import var

    from graph_bridge import etuplize

    x, s, y = pt.vector("x"), pt.scalar("s"), pt.vector("y")
    print("\n=== reverse queries")
    first = next(relations.equivalents(pt.sum(pt.exp(x))))
    print("--- equivalents(Sum(Exp(x))), the first form after one backward step:")
    pytensor.dprint(first)
    a, b = var("a"), var("b")
    (answer,) = relations.match(relations.normalize(s + y), etuple(etuplize(pt.add), a, b), depth=0)
    print("--- match(add(a, b)) on the explicit form of s + y:", {str(k): str(v) for k, v in answer.items()})
    m = pt.matrix("m", shape=(20, 30))
    print("--- best(Sum{axes=(0, 2)}(ExpandDims(Exp(m)))) after:")
    pytensor.dprint(relations.best(pt.sum(pt.expand_dims(pt.exp(m), 0), axis=(0, 2))))


if __name__ == "__main__":
    seed_001()
    seed_001_join()
    seed_001_partial()
    seed_000_broadcast()
    seed_004_lkjcorr()
    queries()
