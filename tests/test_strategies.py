"""Sanity properties of the random-graph strategy in ``strategies.py``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytensor
import pytest
from hypothesis import given, settings
from pytensor.graph.basic import Apply
from pytensor.graph.traversal import ancestors
from pytensor.tensor import subtensor
from pytensor.tensor.basic import Alloc, Join, MakeVector
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.subtensor import AdvancedIncSubtensor, AdvancedSubtensor, IncSubtensor, Subtensor

from helpers import MODE, roots
from strategies import FAMILIES, Drawn, graphs

# pytensor 3.3 dropped the *1 variants (x[[0, 1]] is AdvancedSubtensor on both versions)
ADV = (AdvancedSubtensor, *(getattr(subtensor, "AdvancedSubtensor1", AdvancedSubtensor),))
INC = (IncSubtensor, AdvancedIncSubtensor, *(getattr(subtensor, "AdvancedIncSubtensor1", IncSubtensor),))


def _nodes(drawn: Drawn) -> list[Apply]:
    return [v.owner for v in ancestors(drawn.outputs) if v.owner is not None]


def _owner_is(var, *ops: type) -> bool:
    return var.owner is not None and isinstance(var.owner.op, ops)


def _ds(node: Apply, kind: str) -> bool:
    """Is ``node`` a DimShuffle that expands / drops / permutes dims?"""
    if not isinstance(node.op, DimShuffle):
        return False
    op = node.op
    kept = [i for i in op.new_order if i != "x"]
    return {
        "expand": "x" in op.new_order,
        "drop": len(kept) < node.inputs[0].type.ndim,
        "permute": kept != sorted(kept),
    }[kind]


def _evaluate(drawn: Drawn) -> list[np.ndarray] | None:
    """Run the graph on its values; ``None`` when it raised the allowed ValueError."""
    fn = pytensor.function(drawn.inputs, drawn.outputs, mode=MODE, on_unused_input="ignore")
    try:
        return [np.asarray(r) for r in fn(*drawn.values)]
    except ValueError:  # max/min over an empty axis
        assert drawn.may_raise, drawn.describe()
        return None


def _check_drawn(drawn: Drawn) -> None:
    assert drawn.outputs and len(drawn.shapes) == len(drawn.outputs)
    assert set(drawn.inputs) == set(roots(*drawn.outputs)), drawn.describe()
    assert len(drawn.inputs) == len(set(drawn.inputs)) == len(drawn.values)
    for var, val in zip(drawn.inputs, drawn.values):
        if isinstance(val, np.random.Generator):  # the generator of a random draw
            continue
        assert val.dtype == var.type.dtype and val.ndim == var.type.ndim, (var.type, val)
        assert all(s is None or s == r for s, r in zip(var.type.shape, val.shape)), (var.type, val.shape)
    results = _evaluate(drawn)
    if results is None:
        return
    for out, res, shape in zip(drawn.outputs, results, drawn.shapes):
        assert res.dtype == out.type.dtype, (out.type, res.dtype)
        assert res.shape == shape, (res.shape, shape, drawn.describe())
        assert all(s is None or s == r for s, r in zip(out.type.shape, res.shape)), (out.type, res.shape)
        if res.dtype.kind == "f":
            assert np.isfinite(res).all(), drawn.describe()


@settings(max_examples=50, deadline=None)
@given(graphs())
def test_drawn_graphs_evaluate_with_the_drawn_shapes(drawn: Drawn) -> None:
    _check_drawn(drawn)
    text = drawn.describe()
    assert all(f"{var.name}: " in text for var in drawn.inputs), text


# family -> a node that family must have put in the graph
EXPECTED: dict[str, Callable[[Apply], bool]] = {
    "unary": lambda n: isinstance(n.op, Elemwise) and len(n.inputs) == 1,
    "binary": lambda n: isinstance(n.op, Elemwise) and len(n.inputs) == 2,
    "elemwise_scalar": lambda n: isinstance(n.op, Elemwise)
    and any(i.type.ndim == 0 or _owner_is(i, DimShuffle) for i in n.inputs),
    "elemwise_alloc": lambda n: isinstance(n.op, Elemwise) and any(_owner_is(i, Alloc) for i in n.inputs),
    "expand_dims": lambda n: _ds(n, "expand"),
    "drop_dims": lambda n: _ds(n, "drop"),
    "transpose": lambda n: _ds(n, "permute"),
    "reduce": lambda n: isinstance(n.op, CAReduce),
    "join": lambda n: isinstance(n.op, Join),
    "stack": lambda n: isinstance(n.op, Join | MakeVector),  # MakeVector: stack of scalars
    "alloc": lambda n: isinstance(n.op, Alloc),
    "subtensor": lambda n: isinstance(n.op, Subtensor),
    "adv_subtensor": lambda n: isinstance(n.op, ADV),
    "set_subtensor": lambda n: isinstance(n.op, INC) and n.op.set_instead_of_inc,
    "inc_subtensor": lambda n: isinstance(n.op, INC) and not n.op.set_instead_of_inc,
    "set_zeros": lambda n: isinstance(n.op, INC) and _owner_is(n.inputs[0], Alloc),
    "fork": lambda n: True,  # a graph-level fact: checked by test_forks_share_an_intermediate
    "matmul": lambda n: type(n.op).__name__ == "Blockwise" and type(n.op.core_op).__name__ == "Dot",
    "solve": lambda n: type(n.op).__name__ == "Blockwise" and type(n.op.core_op).__name__ == "Solve",
    "random": lambda n: type(n.op).__name__ == "NormalRV",
    # a numerics spelling: an exp, log, sqrt, sinh, pow, erfinv or gamma of a float (the first step of
    # graphs(family="spelling"))
    "spelling": lambda n: isinstance(n.op, Elemwise)
    and type(n.op.scalar_op).__name__ in ("Exp", "Log", "Log1p", "Sqrt", "Sinh", "Pow", "Erfinv", "Gamma", "GammaLn"),
    "stage_spelling": lambda n: isinstance(n.op, Elemwise)
    and type(n.op.scalar_op).__name__ in ("Exp", "Log", "Log1p", "Sqrt", "Pow", "Erfinv", "Gamma", "GammaLn"),
    # an Elemwise of two DimShuffles of differing orders (the first step of graphs(family="shared_axis"))
    "shared_axis": lambda n: isinstance(n.op, Elemwise) and len(n.inputs) == 2
    and all(_owner_is(i, DimShuffle) for i in n.inputs) and n.inputs[0].owner.op != n.inputs[1].owner.op,
}


def test_every_family_has_an_expectation() -> None:
    assert set(EXPECTED) == set(FAMILIES)


@pytest.mark.parametrize("family", FAMILIES)
def test_each_builder_builds_its_ops(family: str) -> None:
    @settings(max_examples=5, deadline=None)
    @given(graphs(family=family, max_nodes=3))
    def check(drawn: Drawn) -> None:
        assert drawn.families[0] == family
        assert any(EXPECTED[family](n) for n in _nodes(drawn)), drawn.describe()
        _check_drawn(drawn)

    check()


def _shared_intermediates(drawn: Drawn) -> list:
    """Owned variables with two or more uses (node input slots and outputs)."""
    from graph_bridge import GraphContext

    ctx = GraphContext(drawn.outputs)
    return [v for v in ancestors(drawn.outputs) if v.owner is not None and ctx.uses(v) >= 2]


def test_forks_share_an_intermediate() -> None:
    @settings(max_examples=10, deadline=None)
    @given(graphs(family="fork", max_nodes=4))
    def check(drawn: Drawn) -> None:
        assert len(drawn.outputs) >= 2
        assert _shared_intermediates(drawn), drawn.describe()
        _check_drawn(drawn)

    check()


# patterns the rewrite rules look for: name -> node predicate
PATTERNS: dict[str, Callable[[Apply], bool]] = {
    "reduce(dimshuffle)": lambda n: isinstance(n.op, CAReduce) and _owner_is(n.inputs[0], DimShuffle),
    "dimshuffle(dimshuffle)": lambda n: isinstance(n.op, DimShuffle) and _owner_is(n.inputs[0], DimShuffle),
    "reduce(join)": lambda n: isinstance(n.op, CAReduce) and _owner_is(n.inputs[0], Join),
    "elemwise(set_subtensor(zeros))": lambda n: isinstance(n.op, Elemwise) and any(
        _owner_is(i, *INC) and _owner_is(i.owner.inputs[0], Alloc) for i in n.inputs
    ),
    "reduce(elemwise(dimshuffle))": lambda n: isinstance(n.op, CAReduce)
    and _owner_is(n.inputs[0], Elemwise)
    and any(_owner_is(i, DimShuffle) for i in n.inputs[0].owner.inputs),
    "elemwise(alloc)": lambda n: isinstance(n.op, Elemwise) and any(_owner_is(i, Alloc) for i in n.inputs),
    "elemwise(expand_dims)": lambda n: isinstance(n.op, Elemwise) and any(
        _owner_is(i, DimShuffle) and "x" in i.owner.op.new_order for i in n.inputs
    ),
}

# Op (or Elemwise scalar op) class names every vocabulary item maps to.
VOCABULARY = {
    "Neg", "Exp", "Abs", "Sqr", "Invert", "Add", "Mul", "Sub", "Maximum", "TrueDiv", "EQ", "LT",
    "Sum", "Prod", "Max", "Min", "All", "Any", "DimShuffle", "Join", "Alloc", "Subtensor",
    "AdvancedSubtensor", "IncSubtensor", "AdvancedIncSubtensor",
}


def test_vocabulary_and_patterns_are_common() -> None:
    """Over 300 (derandomized, so repeatable) draws every op shows up, every pattern often."""
    names: Counter[str] = Counter()
    patterns: Counter[str] = Counter()

    @settings(max_examples=300, deadline=None, derandomize=True, database=None)
    @given(graphs())
    def collect(drawn: Drawn) -> None:
        nodes = _nodes(drawn)
        for n in nodes:
            op = n.op.scalar_op if isinstance(n.op, Elemwise) else n.op
            names[type(op).__name__] += 1
        patterns.update(name for name, found in PATTERNS.items() if any(map(found, nodes)))

    shared = []

    @settings(max_examples=300, deadline=None, derandomize=True, database=None)
    @given(graphs())
    def collect_shared(drawn: Drawn) -> None:
        shared.append(bool(_shared_intermediates(drawn)))

    collect()
    collect_shared()
    assert sum(shared) >= 30, sum(shared)  # shared sub-graphs in at least 10% of draws
    assert VOCABULARY <= set(names), sorted(VOCABULARY - set(names))
    rare = {name: patterns[name] for name in PATTERNS if patterns[name] < 6}  # 2%
    assert not rare, (rare, patterns)
