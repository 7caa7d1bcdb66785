"""Hostile input: deep and wide graphs, opaque Ops, bad arguments."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import equal_computations
from pytensor.graph.fg import FunctionGraph
from pytensor.tensor.elemwise import DimShuffle

import relations
from graph_bridge import ExplicitElemwise
from helpers import check_rewrite, graph_ops, snapshot

x = pt.vector("x")
s = pt.scalar("s")


def test_5000_nested_elemwise_with_broadcasting_normalize_and_lower():
    y = x
    for i in range(5000):
        y = y * s if i % 2 else pt.exp(y)  # mul(y, ExpandDims(s)) every other step
    z = relations.normalize(y)
    assert isinstance(z.owner.op, ExplicitElemwise) and z.owner.inputs[1] is s
    low = relations.lower(z)
    assert not any(isinstance(op, ExplicitElemwise) for op in graph_ops(low))
    assert low.type == y.type


def test_5000_nested_dimshuffles_collapse():
    m = pt.matrix("m")
    y = m
    for _ in range(5000):
        y = y.T  # DimShuffle of DimShuffle, 5000 deep
    z = relations.normalize(pt.sum(y, axis=0))
    assert sum(isinstance(op, DimShuffle) for op in graph_ops(z)) == 0  # an even number of .T
    assert z.type == pt.sum(y, axis=0).type
    # PyTensor cannot compile the 5000-deep original (RecursionError); numpy says what it is
    for shape in [(2, 3), (0, 2), (1, 1)]:
        v = np.arange(np.prod(shape), dtype="float64").reshape(shape)
        np.testing.assert_allclose(z.eval({m: v}, mode="FAST_COMPILE"), v.sum(axis=0))


def test_5000_nested_queries_do_not_recurse():
    y = x
    for _ in range(5000):
        y = pt.exp(y)
    g = pt.sum(pt.expand_dims(y, 0))
    forms = list(relations.equivalents(g, limit=2))
    assert len(forms) == 2
    assert relations.best(g).owner.inputs[0] is y


def test_elemwise_with_1000_inputs():
    vs = [pt.vector(f"v{i}") for i in range(999)]
    y = pt.add(*vs, s)  # 1,000 inputs, the last one expanded
    z = relations.normalize(y)
    assert isinstance(z.owner.op, ExplicitElemwise)
    assert len(z.owner.inputs) == 1000 and z.owner.inputs[-1] is s
    assert z.owner.op.pattern[-1] == "x" and set(z.owner.op.pattern[:-1]) == {"*"}
    assert z.type == y.type
    low = relations.lower(z)
    # lowering gives the stock graph back exactly; PyTensor's Python Elemwise
    # refuses > 32 operands and Numba takes minutes on 1,000, so the values
    # are proven by this identity rather than evaluated
    assert equal_computations([low], [y])


@pytest.mark.filterwarnings("ignore::DeprecationWarning:pytensor")
def test_opaque_nodes_are_kept_and_normalized_around():
    from pytensor.compile.builders import OpFromGraph
    from pytensor.raise_op import Assert

    from pymc_like import check_parameters_graph

    rng = pytensor.shared(np.random.default_rng(0))
    checked, _ = check_parameters_graph(x)  # CheckParameterValue and Scan
    asserted = Assert("finite")(x, pt.all(pt.isfinite(x)))
    ofg = OpFromGraph([x], [pt.exp(x) * 2])(x)
    rv = pt.random.normal(0.0, 1.0, size=(3,), rng=rng)
    around = [
        pt.sum(pt.expand_dims(checked * s, 0)),
        pt.sum(pt.expand_dims(asserted, 0)) + s,
        pt.sum(ofg.dimshuffle("x", 0), axis=1) * s,
        pt.sum(pt.expand_dims(rv, 0)) * 0.0 + s,
    ]
    before = snapshot(*around)
    z = relations.normalize(around)
    assert snapshot(*around) == before
    ops = graph_ops(*z)
    for opaque in ("Scan", "Assert", "OpFromGraph", "NormalRV", "CheckParameterValue"):
        # (an RV is in the vocabulary now: its padded parameters make it explicit, the same draw)
        found = [op for op in ops if opaque.lower() in type(getattr(op, "rv_op", op)).__name__.lower()]
        assert found, opaque
    def n_dimshuffles(outs):
        return sum(isinstance(op, DimShuffle) for op in graph_ops(*outs))

    # the four DimShuffles added around the opaque nodes are gone (Scan's own set-up keeps its)
    assert n_dimshuffles(z) <= n_dimshuffles(around) - 4
    check_rewrite(around[:3], z[:3], {x: [(3,), (1,)], s: [(), ()]})


@pytest.mark.parametrize(
    "bad, message",
    [
        (3.0, "graph must be a PyTensor Variable"),
        ("x", "graph must be a PyTensor Variable"),
        ([x, 2], r"graph\[1\] must be a PyTensor Variable"),
        ((x, None), r"graph\[1\] must be a PyTensor Variable"),
        (np.ones(3), "graph must be a PyTensor Variable"),
    ],
)
def test_non_variables_get_clear_errors(bad, message):
    for call in (relations.normalize, relations.lower, relations.best):
        with pytest.raises(TypeError, match=message):
            call(bad)
    with pytest.raises(TypeError, match=message):
        next(relations.equivalents(bad))


def test_function_graph_gets_a_clear_error():
    fg = FunctionGraph([x], [pt.exp(x)], clone=False)
    for call in (relations.normalize, relations.lower):
        with pytest.raises(TypeError, match=r"FunctionGraph.*fgraph.outputs"):
            call(fg)
    assert relations.normalize(fg.outputs)[0].type == fg.outputs[0].type
