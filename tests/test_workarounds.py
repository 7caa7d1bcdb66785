"""relations.compile.workarounds: graphs PyTensor would miscompile, restated with the same values."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile.mode import Mode
from pytensor.graph.traversal import explicit_graph_inputs
from pytensor.tensor.subtensor import IncSubtensor

from helpers import snapshot
from relations.compile.workarounds import has_hazards, protect

REFERENCE = Mode(linker="py", optimizer=None)  # PyTensor's definition: perform, no rewrites

a = pt.vector("a", dtype="int8")
b = pt.vector("b", dtype="bool")
c = pt.vector("c", dtype="bool")
x = pt.scalar("x")

CASES = {
    "bool add under a float add": (b + c) + x,
    "bool add under a sum": pt.sum(b + c) + x,
    "bool mul under a float add": (b * c) + x,
    "int8 mul under a float mul": (a * a) * x,
    "int8 add under a float add": (a + a) + x,
}
VALUES = {a: np.array([100, -3], dtype="int8"), b: np.array([True, False]), c: np.array([True, True]), x: np.float64(1.0)}


@pytest.mark.parametrize("name", list(CASES))
def test_protected_graph_compiles_to_the_reference_values(name):
    g = CASES[name]
    ins = list(explicit_graph_inputs([g]))
    vals = [VALUES[i] for i in ins]
    before = snapshot(g)
    assert has_hazards([g])
    (p,) = protect([g])
    assert snapshot(g) == before and p is not g and p.type == g.type
    assert not has_hazards([p])
    ref = pytensor.function(ins, g, mode=REFERENCE)(*vals)
    np.testing.assert_allclose(pytensor.function(ins, p, mode=REFERENCE)(*vals), ref)
    np.testing.assert_allclose(pytensor.function(ins, p, mode="FAST_COMPILE")(*vals), ref)


@pytest.mark.default_mode
@pytest.mark.parametrize("name", [n for n in CASES if "int8 add" not in n])
def test_protected_graph_is_right_in_the_default_mode(name):
    # int8 add: Numba's fused kernel on PyTensor 3.0 still adds int8 in int64;
    # the cast makes it right on 3.3 only (documented, not drawn by the strategy)
    g = CASES[name]
    ins = list(explicit_graph_inputs([g]))
    vals = [VALUES[i] for i in ins]
    ref = pytensor.function(ins, g, mode=REFERENCE)(*vals)
    (p,) = protect([g])
    np.testing.assert_allclose(pytensor.function(ins, p)(*vals), ref)


def test_graphs_without_hazards_are_returned_as_they_are():
    g = [pt.exp(x) + x, (b | c), pt.sum(b)]
    assert not has_hazards(g)
    assert all(p is q for p, q in zip(protect(g), g))


m = pt.matrix("m", dtype="bool")
EXTREMA = {
    "max of bools": pt.max(m),
    "min of bools": pt.min(m),
    "max of bools on an axis": pt.max(m, axis=0),
    "min of bools on an axis": pt.min(m, axis=1),
    "max of a join of bools": pt.max(pt.join(0, pt.any(m, axis=0), pt.all(m, axis=0))),
}
BOOL_MATRICES = [
    np.zeros((2, 3), bool),
    np.ones((2, 3), bool),
    np.array([[True, False, False], [False, False, False]]),
    np.ones((1, 1), bool),
]


def _restated_extrema(monkeypatch, on: bool):
    import relations.compile.workarounds as workarounds

    monkeypatch.setattr(workarounds, "BOOL_EXTREMA_HAZARD", on)


@pytest.mark.parametrize("name", list(EXTREMA))
def test_a_bool_max_or_min_is_restated_on_int8_with_the_same_values(name, monkeypatch):
    _restated_extrema(monkeypatch, True)  # as on PyTensor 3.0, whatever the line
    g = EXTREMA[name]
    before = snapshot(g)
    assert has_hazards([g])
    (p,) = protect([g])
    assert snapshot(g) == before and p is not g and p.type == g.type
    assert not has_hazards([p])
    assert "int8" in {v.type.dtype for v in pytensor.graph.traversal.ancestors([p])}
    for value in BOOL_MATRICES:
        ref = pytensor.function([m], g, mode=REFERENCE)(value)
        got = pytensor.function([m], p, mode="FAST_COMPILE")(value)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)


def test_a_restated_bool_max_of_nothing_raises_as_the_max_does(monkeypatch):
    _restated_extrema(monkeypatch, True)
    g = pt.max(m, axis=1)
    (p,) = protect([g])
    empty = np.zeros((2, 0), bool)
    for graph in (g, p):
        with pytest.raises(ValueError, match="zero-size array"):
            pytensor.function([m], graph, mode=REFERENCE)(empty)


def test_a_bool_max_or_min_is_left_as_it_is_where_pytensor_computes_it_right(monkeypatch):
    _restated_extrema(monkeypatch, False)  # PyTensor 3.3 and later
    g = [pt.max(m), pt.min(m, axis=0)]
    assert not has_hazards(g)
    assert all(p is v for p, v in zip(protect(g), g))


@pytest.mark.default_mode
@pytest.mark.parametrize("name", list(EXTREMA))
def test_a_bool_max_or_min_is_right_in_the_default_mode_once_protected(name):
    # PyTensor 3.0's Numba backend starts a bool max at True: max([False, False]) was True
    g = EXTREMA[name]
    (p,) = protect([g])
    f = pytensor.function([m], p)
    for value in BOOL_MATRICES:
        ref = pytensor.function([m], g, mode=REFERENCE)(value)
        got = f(value)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)


def test_the_hazard_is_named_by_the_installed_pytensor_version():
    from relations.compile.workarounds import BOOL_EXTREMA_HAZARD, _version

    assert _version("3.0.7") == (3, 0, 7) and _version("3.4.0rc1") == (3, 4, 0) and _version("3.1.dev0+g1") == (3, 1)
    assert BOOL_EXTREMA_HAZARD == (_version(pytensor.__version__) < (3, 3))


# PyTensor's local_merge_alloc asserts an inner length it does not see is 1 (see the module)
y_unit = pt.tensor3("y_unit", dtype="bool", shape=(2, 2, 1))
x_bool = pt.scalar("x_bool", dtype="bool")


@pytest.mark.default_mode
def test_a_set_lifted_under_an_alloc_compiles_in_the_default_mode():
    import relations

    g = pt.alloc(~pt.set_subtensor(y_unit[:2], x_bool), 2, 2, 2)
    before = snapshot(g)
    (n,) = relations.normalize([g])
    assert snapshot(g) == before and n.type == g.type
    # the lift puts the set right under the Alloc, the pattern PyTensor's merge asserted on
    assert isinstance(n.owner.inputs[0].owner.op, IncSubtensor) and n.owner.inputs[0].owner.op.set_instead_of_inc
    args = (np.zeros((2, 2, 1), bool), np.array(True))
    ref = pytensor.function([y_unit, x_bool], g, mode=REFERENCE)(*args)
    np.testing.assert_array_equal(pytensor.function([y_unit, x_bool], n)(*args), ref)


def _merge_alloc_node(touched: bool):
    from pytensor.graph.fg import FunctionGraph

    from graph_bridge.provenance import TAG

    inner = pt.alloc(x_bool, y_unit.shape[0], y_unit.shape[1], y_unit.shape[2])  # type: (2, 2, 1)
    outer = pt.alloc(inner, 2, 2, 2)
    fg = FunctionGraph([y_unit, x_bool], [outer], clone=False)
    if touched:
        setattr(outer.owner.tag, TAG, True)
    return fg, outer.owner


def test_the_merge_sees_an_inner_length_fixed_at_one_by_type_as_broadcast():
    from pytensor.tensor.rewriting.basic import local_merge_alloc

    fg, node = _merge_alloc_node(touched=True)
    (merged,) = local_merge_alloc.fn(fg, node)
    args = (np.zeros((2, 2, 1), bool), np.array(True))
    out = pytensor.function([y_unit, x_bool], merged, mode=REFERENCE)(*args)
    np.testing.assert_array_equal(out, np.ones((2, 2, 2), bool))
    (stock,) = local_merge_alloc.fn.stock_fn(fg, node)  # what PyTensor's rewrite builds
    with pytest.raises(AssertionError, match="shape error"):
        pytensor.function([y_unit, x_bool], stock, mode=REFERENCE)(*args)


def test_the_merge_runs_as_pytensor_wrote_it_on_graphs_the_toolkit_never_touched():
    from pytensor.graph.basic import equal_computations
    from pytensor.tensor.rewriting.basic import local_merge_alloc

    fg, node = _merge_alloc_node(touched=False)
    (ours,) = local_merge_alloc.fn(fg, node)
    (stock,) = local_merge_alloc.fn.stock_fn(fg, node)
    assert equal_computations([ours], [stock])


@pytest.mark.parametrize("name", list(CASES))
def test_protecting_an_fgraph_in_place_gives_the_graph_protect_builds(name):
    from pytensor.graph.basic import equal_computations
    from pytensor.graph.fg import FunctionGraph

    from relations.compile.workarounds import protect_in_place

    g = CASES[name]
    ins = list(explicit_graph_inputs([g]))
    fg = FunctionGraph(ins, [g], clone=True)
    expected = protect(list(fg.outputs))
    protect_in_place(fg)
    assert not has_hazards(fg.outputs)
    assert equal_computations(fg.outputs, expected, in_xs=fg.inputs, in_ys=fg.inputs)
    assert fg.outputs[0].type == g.type


def test_protecting_in_place_nests_and_keeps_stack_traces():
    from pytensor.graph.basic import equal_computations
    from pytensor.graph.fg import FunctionGraph

    from relations.compile.workarounds import protect_in_place

    inner = b + c  # a bool add under a bool add under a float add: every decision off the original
    g = (inner + b) + x
    g.owner.inputs[0].tag.trace = [[("user.py", 1, "model", "g = (inner + b) + x")]]
    fg = FunctionGraph([b, c, x], [g], clone=True)
    expected = protect(list(fg.outputs))
    protect_in_place(fg)
    assert equal_computations(fg.outputs, expected, in_xs=fg.inputs, in_ys=fg.inputs)
    ors = [n for n in fg.apply_nodes if getattr(n.op, "scalar_op", None).__class__.__name__ == "OR"]
    assert len(ors) == 2
    user_line = [("user.py", 1, "model", "g = (inner + b) + x")]
    assert any(user_line in getattr(n.outputs[0].tag, "trace", []) for n in ors)  # copy_stack_trace appends
