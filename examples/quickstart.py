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


def full_reduction() -> None:
    x = pt.vector("x")
    y = pt.sum(pt.expand_dims(pt.exp(x), 0))
    show("pytensor #2132: a full reduction does not see added dims", y, relations.normalize(y),
         {x: np.arange(3.0)})


def sum_of_join() -> None:
    a, b, c = pt.vector("a"), pt.vector("b"), pt.vector("c")
    y = pt.sum(pt.join(0, pt.expand_dims(a, 0), pt.expand_dims(b, 0), pt.expand_dims(c, 0)))
    show("pytensor #2132: the reduction of a join, without ExpandDims or Join", y,
         relations.normalize(y), {a: np.arange(3.0), b: np.ones(3), c: np.full(3, 2.0)})


def partial_reduction() -> None:
    m = pt.matrix("m")
    y = pt.sum(pt.expand_dims(m, 0), axis=2)
    show("pytensor #2132: a DimShuffle moves out of a partial reduction", y, relations.normalize(y),
         {m: np.arange(6.0).reshape(2, 3)})


def elemwise_chain() -> None:
    m = pt.matrix("m")
    y = pt.sum(pt.exp(m.T) * 2.0, axis=0)
    show("a transpose under an Elemwise chain moves up to the reduction and vanishes", y,
         relations.normalize(y), {m: np.arange(6.0).reshape(2, 3) / 6})


def shared_set() -> None:
    v = pt.vector("v")
    s = pt.set_subtensor(pt.zeros(4)[[0, 2]], v)
    outs = [pt.exp(s), s * v.sum()]  # the set is read twice: lifting exp would copy it
    new = relations.normalize(outs)
    print("\n=== a shared set is not copied (pytensor #2138): exp stays above it")
    pytensor.dprint(new)


def explicit_broadcast() -> None:
    x, m, v = pt.scalar("x"), pt.matrix("m"), pt.vector("v")
    y = x * m + v
    show("aesara #933, pytensor #408: broadcasting in the Op, no ExpandDims (see broadcast_replace.py)", y,
         relations.normalize(y), {x: 2.0, m: np.ones((2, 3)), v: np.arange(3.0)})


def lkjcorr_lift() -> None:
    from lkjcorr import lkjcorr_sqr  # examples/lkjcorr.py

    params, y = lkjcorr_sqr(3)
    show("pytensor #2138: Sqr lifted through SetSubtensor and Alloc (LKJCorr)", y,
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


def stable_numerics() -> None:
    """``relations.stabilize``: the most accurate form of a spelling, with the error before and after (see
    examples/stable_numerics.py and docs/stabilize.md)."""
    q = pt.dvector("q")
    icdf = pt.erfinv(2 * q - 1) * np.sqrt(2.0)  # PyTorch's Normal.icdf: -inf below q = 1e-17
    print("\n=== relations.stabilize(sqrt(2) * erfinv(2 q - 1)), the normal quantile")
    found = relations.stabilize(icdf)
    print(found)
    print("--- after")
    pytensor.dprint(found.graph)
    at = np.array([1e-30, 0.25])
    with np.errstate(divide="ignore"):
        b = pytensor.function([q], icdf, mode="FAST_COMPILE")(at)
    a = pytensor.function([q], found.graph, mode="FAST_COMPILE")(at)
    print(f"values at q = {at}: before={b!r} after={a!r}")


if __name__ == "__main__":
    full_reduction()
    sum_of_join()
    partial_reduction()
    elemwise_chain()
    explicit_broadcast()
    lkjcorr_lift()
    shared_set()
    queries()
    stable_numerics()
