"""Cost of building one node of the toolkit's Ops: ``python benchmarks/make_node.py``.

``ExplicitElemwise.make_node`` and ``ExplicitAlloc.make_node`` against the
stock ``Elemwise`` / ``Alloc`` building the same node, in microseconds per
node, best of 5 rounds; "cold" empties the Ops' type caches before every
call (the first node of its kind).  Stack traces are off, as in
``relations.normalize`` (``traceback__limit=0``).  A second table: a rule's
node built from its term (``term(head, *inputs).evaled_obj``: the term, then
``graph_bridge.building.call_op``), for ``x * y`` (``x`` a matrix, ``y`` a
vector) as the explicit node and as a stock Elemwise on two matrices.
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
from graph_bridge.nodes import absorb_expansion  # noqa: E402
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise  # noqa: E402
from graph_bridge.terms import op_term, term  # noqa: E402


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
        terms()


def terms() -> None:
    """Microseconds to build a node from a term, and to call its Op (warm caches)."""
    x, x2, y = pt.matrix("x"), pt.matrix("x2"), pt.vector("y")
    ins, pattern = zip(*[absorb_expansion(i) for i in (x * y).owner.inputs])
    explicit = ExplicitElemwise(mul, pattern)
    stock = Elemwise(mul)
    print()
    print("| node from a term | term + evaled_obj (us) | op(*inputs) (us) |")
    print("|---|---|---|")
    for name, op, inputs in [(f"{explicit}(x, y)", explicit, ins), ("Elemwise{mul}(x, x2)", stock, (x, x2))]:
        head = op_term(op)
        built = us_per_call(lambda: term(head, *inputs).evaled_obj, 20000)
        called = us_per_call(lambda: op(*inputs), 20000)
        print(f"| {name} | {built:.1f} | {called:.1f} |")


if __name__ == "__main__":
    main()
