"""Cost of building one node of the toolkit's Ops: ``python benchmarks/make_node.py``.

``ExplicitElemwise.make_node`` and ``ExplicitAlloc.make_node`` against the
stock ``Elemwise`` / ``Alloc`` building the same node, in microseconds per
node, best of 5 rounds; "cold" empties the Ops' type caches before every
call (the first node of its kind).  Stack traces are off, as in
``relations.normalize`` (``traceback__limit=0``).
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pytensor.tensor as pt  # noqa: E402
from pytensor import config  # noqa: E402
from pytensor.scalar import add, exp, mul  # noqa: E402
from pytensor.tensor.basic import Alloc  # noqa: E402
from pytensor.tensor.elemwise import Elemwise  # noqa: E402

from graph_bridge import ops  # noqa: E402
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise  # noqa: E402


def us_per_call(fn, number: int, cold: bool = False) -> float:
    """Best of 5 rounds of ``number`` calls, in microseconds per call (caches emptied first if ``cold``)."""
    if cold:

        def call():
            ops._ELEMWISE_TYPES.clear()
            ops._ALLOC_TYPES.clear()
            fn()

    else:
        call = fn
    return min(timeit.repeat(call, number=number, repeat=5)) / number * 1e6


def main() -> None:
    x, y, m = pt.scalar("x"), pt.vector("y"), pt.matrix("m")
    c = pt.tensor("c", shape=(None, 1))
    n = pt.lscalar("n")
    elemwise = [
        ("add{x,*}(scalar, vector)", add, ("x", "*"), (x, y)),
        ("mul{**,*1}(matrix, column)", mul, ("**", "*1"), (m, c)),
        ("exp{*}(vector)", exp, ("*",), (y,)),
        ("add{*,*}(vector, scalar): re-derived", add, ("*", "*"), (y, x)),
    ]
    print("| node | ours (us) | ours, cold (us) | stock (us) | ours / stock |")
    print("|---|---|---|---|---|")
    with config.change_flags(traceback__limit=0):
        for name, sop, pattern, inputs in elemwise:
            ours = us_per_call(lambda: ExplicitElemwise(sop, pattern).make_node(*inputs), 5000)
            cold = us_per_call(lambda: ExplicitElemwise(sop, pattern).make_node(*inputs), 2000, cold=True)
            stock_op = Elemwise(sop)
            stock = us_per_call(lambda: stock_op.make_node(*inputs), 2000)
            print(f"| {name} | {ours:.1f} | {cold:.1f} | {stock:.1f} | {ours / stock:.2f} |")
        allocs = [
            ("Alloc{x*}(vector, 2, 3): constants", "x*", (pt.constant(2), pt.constant(3))),
            ("Alloc{x*}(vector, n, n): symbolic", "x*", (n, n)),
        ]
        for name, entry, lengths in allocs:
            ours = us_per_call(lambda: ExplicitAlloc(entry).make_node(y, *lengths), 500)
            cold = us_per_call(lambda: ExplicitAlloc(entry).make_node(y, *lengths), 500, cold=True)
            stock = us_per_call(lambda: Alloc().make_node(y, *lengths), 500)
            print(f"| {name} | {ours:.1f} | {cold:.1f} | {stock:.1f} | {ours / stock:.2f} |")


if __name__ == "__main__":
    main()
