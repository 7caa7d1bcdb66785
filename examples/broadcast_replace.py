"""Replacing terms in a graph, stock PyTensor vs the explicit form.

Run: ``python examples/broadcast_replace.py``.  For each case it prints what
stock PyTensor does and what the normalized (explicit-broadcast) graph does.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.graph.replace import clone_replace

import relations

MODE = "FAST_COMPILE"


def show(title: str, graph) -> None:
    print(f"  {title}:")
    text = pytensor.dprint(graph, file="str", print_type=True)
    print("    " + text.rstrip().replace("\n", "\n    "))


def attempt(title: str, build):
    try:
        out = build()
    except Exception as exc:  # noqa: BLE001 - what stock PyTensor raises is the point
        print(f"  {title}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
        return None
    show(title, out)
    return out


def run(out, inputs, *values):
    try:
        return pytensor.function(inputs, out, mode=MODE)(*values)
    except Exception as exc:  # noqa: BLE001
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"


def another_rank() -> None:
    print("aesara #933: z = x + y, x a scalar, y a vector")
    x, y = pt.scalar("x"), pt.vector("y")
    z = x + y
    explicit = relations.normalize(z)
    show("stock", z)
    show("normalized", explicit)

    w = pt.vector("w")
    print("\n replace x by a vector w")
    attempt("stock", lambda: clone_replace(z, {x: w}, rebuild_strict=False))
    new = attempt("explicit", lambda: clone_replace(explicit, {x: w}, rebuild_strict=False))
    print("    value at w=[0,1,2], y=[1,1,1]:", run(new, [w, y], np.arange(3.0), np.ones(3)))

    s = pt.matrix("s")
    print("\n replace y by a matrix s")
    attempt("stock", lambda: clone_replace(z, {y: s}, rebuild_strict=False))
    new = attempt("explicit", lambda: clone_replace(explicit, {y: s}, rebuild_strict=False))
    print("    value at x=2, s=ones(2,2):", run(new, [x, s], 2.0, np.ones((2, 2))).tolist())


def refined_static_shape() -> None:
    print("\npytensor #408: a + b with two vectors; a rewrite refines a's static shape to (1,)")
    a, b = pt.vector("a"), pt.vector("b")
    z = a + b
    explicit = relations.normalize(z)
    a1 = pt.vector("a1", shape=(1,))
    stock_new = clone_replace(z, {a: a1}, rebuild_strict=False)
    explicit_new = clone_replace(explicit, {a: a1}, rebuild_strict=False)
    args = (np.ones(1), np.arange(3.0))
    print("  before the refinement, a of length 1 and b of length 3:", run(z, [a, b], *args))
    print("  stock after   :", stock_new.type, "->", run(stock_new, [a1, b], *args))
    print("  explicit after:", explicit_new.type, "->", run(explicit_new, [a1, b], *args))
    lowered = relations.lower(explicit_new)
    print("  explicit, lowered to stock Ops for the backends ->", run(lowered, [a1, b], *args))


def main() -> None:
    another_rank()
    refined_static_shape()


if __name__ == "__main__":
    main()
