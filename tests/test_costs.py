"""Cost models: the measured table (``relations.saturation.costs.measured``) and elements touched."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from relations.saturation.costs import (
    DEFAULT_LENGTH,
    MAX_FOLDED_SIZE,
    CostTable,
    Fusion,
    elements_touched,
    load_table,
    measured,
    merged_nodes,
    node_costs,
    node_elements,
    op_kind,
    shape_finder,
)

#: a table where every node costs 1 per call and 1 per element, to read counts off
UNIT = CostTable({}, (1.0, 1.0))


def test_the_shipped_table_loads_and_holds_the_common_kinds():
    table = load_table()
    for kind in ("Elemwise{Exp}", "Elemwise{Add}", "Sum", "Alloc", "AdvancedIncSubtensor", "DimShuffle"):
        assert kind in table.entries, kind
    # the Ops PyMC's graphs hold whose work is an exp per element (PyTensor 3.3's LogSumExp and
    # its derivative, Softmax, LogSoftmax): measured, not the default (a memory pass)
    for kind in ("Softmax", "LogSoftmax", "LogSumExp", "FusibleSymbolicOpDerivative"):
        assert table.cost(kind, "float64")[1] > 5 * table.memory, kind
    per_call, per_element = table.cost("Elemwise{Exp}", "float64")
    assert per_call >= 0 and per_element > 0
    # a kind the table lacks: the Elemwise median, or the default
    assert table.cost("Elemwise{NoSuchOp}", "float64") == table.entries["Elemwise{*}"]["*"]
    assert table.cost("NoSuchOp", "float64") == table.default


def test_a_shared_node_is_paid_once():
    x = pt.vector("x", shape=(10,))
    e = pt.exp(x)
    shared = e + e
    assert measured([shared], table=UNIT) == 2 * (1 + 10)  # exp and add
    # two copies of one computation: PyTensor merges them when it compiles, so they cost one
    copies = pt.exp(x) + pt.exp(x)
    assert measured([copies], table=UNIT) == 2 * (1 + 10)
    separate = pt.exp(x) + pt.log(x)
    assert measured([separate], table=UNIT) == 3 * (1 + 10)
    assert measured([shared, e], table=UNIT) == measured([shared], table=UNIT)


def test_lengths_from_sizes_values_and_the_default():
    x = pt.vector("x")
    y = pt.exp(x)
    assert measured([y], table=UNIT) == 1 + DEFAULT_LENGTH
    assert measured([y], sizes={x: (1000,)}, table=UNIT) == 1 + 1000
    # two nodes (exp, add): the expanded 1.0 is folded (PyTensor folds it), and nothing holds an element
    assert measured([pt.exp(x) + 1.0], sizes={x: (0,)}, table=UNIT) == 2
    c = pt.constant(np.ones(700))  # (more than MAX_FOLDED_SIZE elements: priced, not folded)
    s = pytensor.shared(np.ones((3, 5)))
    assert measured([pt.exp(c)], table=UNIT) == 1 + 700
    assert measured([pt.exp(s)], table=UNIT) == 1 + 15
    # derived lengths: infer_shape on known lengths
    m = pt.matrix("m")
    assert measured([pt.exp(m.T)], sizes={m: (2, 3)}, table=UNIT) == (1 + 6) * 2


def test_an_elemwise_broadcasts_the_lengths_of_its_inputs():
    x, y = pt.matrix("x"), pt.matrix("y")  # no static lengths: they come from sizes
    assert measured([x + y], sizes={x: (3, 1), y: (1, 4)}, table=UNIT) == 1 + 12
    assert measured([x + y], sizes={x: (0, 1), y: (1, 4)}, table=UNIT) == 1 + 0
    assert measured([x + y], sizes={x: (1, 1), y: (1, 1)}, table=UNIT) == 1 + 1


def test_an_opfromgraph_is_not_asked_for_its_shape(monkeypatch):
    """Its ``infer_shape`` rewrites the inner graph (milliseconds): an unknown length is the default."""
    from pytensor.compile.builders import OpFromGraph

    a = pt.vector("a")
    ofg = OpFromGraph([a], [pt.exp(a)])
    x = pt.vector("x")
    out = ofg(x)

    def refused(*args, **kwargs):
        raise AssertionError("infer_shape called")

    monkeypatch.setattr(OpFromGraph, "infer_shape", refused)
    assert measured([out], sizes={x: (1000,)}, table=UNIT) == 1 + DEFAULT_LENGTH


def test_a_blockwise_is_its_core_op_and_a_factor_grows_with_the_inner_length():
    m, b = pt.matrix("m", shape=(20, 20)), pt.matrix("b", shape=(20, 3))
    chol = pt.linalg.cholesky(m).owner
    solve = pt.linalg.solve_triangular(m, b, lower=True).owner
    assert op_kind(chol) == "Blockwise{Cholesky}" and op_kind(solve) == "Blockwise{SolveTriangular}"
    assert node_elements(chol, shape_finder()) == 20 * 20 * 20
    assert node_elements(solve, shape_finder()) == 20 * 3 * 20
    table = load_table()  # measured: the shipped table holds both
    assert table.cost("Blockwise{Cholesky}", "float64") != table.default
    assert table.cost("Blockwise{SolveTriangular}", "float64") != table.default


def test_a_logsumexp_costs_the_elements_it_reads():
    m = pt.matrix("m", shape=(100, 4))
    node = pt.logsumexp(m, axis=-1).owner
    if type(node.op).__name__ == "LogSumExp":  # PyTensor 3.3: one Op, a reduction of its input
        assert node_elements(node, shape_finder()) == 400
    else:  # PyTensor 3.0 builds log(sum(exp(m - max))) + max: the output node is an Elemwise
        assert op_kind(node).startswith("Elemwise{") and node_elements(node, shape_finder()) == 100


def test_a_reduction_costs_the_elements_it_reads():
    x = pt.vector("x", shape=(50,))
    node = pt.sum(x).owner
    assert node_elements(node, shape_finder()) == 50
    assert measured([pt.sum(x)], table=UNIT) == 51


def test_explicit_ops_count_as_the_stock_ops_they_lower_to():
    x, s = pt.vector("x"), pt.scalar("s")
    stock = x * s
    explicit = relations.normalize(stock)
    assert op_kind(explicit.owner) == op_kind(stock.owner) == "Elemwise{Mul}"
    # the explicit form pays the DimShuffle its lowering puts back: the same as the stock form
    table = CostTable({"DimShuffle": {"*": (2.0, 0.0)}}, (1.0, 1.0))
    assert measured([explicit], sizes={x: (100,)}, table=table) == measured([stock], sizes={x: (100,)}, table=table)


def test_the_predicted_cost_orders_small_and_large_work():
    x = pt.vector("x", shape=(100_000,))
    y = pt.vector("y", shape=(10,))
    assert measured([pt.exp(x)]) > measured([pt.exp(y)])
    assert measured([pt.gammaln(x)]) > measured([pt.neg(x)])


def test_bad_arguments_are_named():
    x = pt.vector("x")
    with pytest.raises(TypeError, match="table"):
        measured([x], table={"Exp": 1})
    with pytest.raises(TypeError, match="sizes"):
        measured([x], sizes=[(3,)])
    with pytest.raises(ValueError, match="default"):
        CostTable({}, (1.0,))
    with pytest.raises(FileNotFoundError, match="calibrate"):
        load_table("/nonexistent/cost_table.json")


def test_elements_touched_is_unchanged():
    x = pt.vector("x", shape=(4,))
    assert elements_touched([pt.exp(x) + 1.0]) == 9  # exp, the expanded 1.0, add


def test_the_function_pays_its_call_and_each_root_input_once():
    x, y = pt.vector("x", shape=(2,)), pt.vector("y", shape=(2,))
    table = CostTable({}, (0.0, 0.0), call=(5.0, 1.0))
    assert measured([x + y], table=table) == 5.0 + 2 * 1.0
    assert measured([x + y, pt.exp(x)], table=table) == 5.0 + 2 * 1.0
    assert measured([x + pt.constant(np.ones(2))], table=table) == 5.0 + 1.0  # a constant is no input
    with pytest.raises(ValueError, match="call"):
        CostTable({}, (0.0, 0.0), call=(1.0,))


def test_a_product_costs_its_output_times_the_inner_length():
    a, b = pt.matrix("a", shape=(4, 7)), pt.matrix("b", shape=(7, 3))
    assert node_elements(pt.dot(a, b).owner, shape_finder()) == 4 * 3 * 7


def test_a_pow_by_a_constant_is_its_own_kind():
    x, y = pt.vector("x"), pt.vector("y")
    assert op_kind((x**2.0).owner) == "Elemwise{Pow(constant)}"
    assert op_kind((x**y).owner) == "Elemwise{Pow}"
    assert "Elemwise{Pow(constant)}" in load_table().entries


#: per call 1 and per element 5 for Exp and Log; a memory pass costs 2 per element
FUSED = CostTable({"Elemwise{Exp}": {"*": (1.0, 5.0)}, "Elemwise{Log}": {"*": (1.0, 5.0)}}, (1.0, 1.0), memory=2.0)


def test_a_chain_of_elemwise_is_one_loop_that_writes_its_output_once():
    x = pt.vector("x", shape=(10,))
    chain = pt.log(pt.exp(x))
    # each pays its arithmetic (5 - 2 per element); only log's output is written; one call
    assert measured([chain], table=FUSED) == 3 * 10 + 3 * 10 + 2 * 10 + 1
    # without a memory cost every node pays its own entry, as before
    unfused = CostTable(FUSED.entries, FUSED.default)
    assert measured([chain], table=unfused) == 2 * (1 + 5 * 10)
    # an output read outside the group (returned here) is written too
    assert measured([chain, chain.owner.inputs[0]], table=FUSED) == measured([chain], table=FUSED) + 2 * 10


def test_a_reduction_absorbs_the_elemwise_it_alone_reads():
    x = pt.vector("x", shape=(10,))
    e = pt.exp(x)
    # exp: arithmetic only, its call; the sum: its own entry (1 per call, 1 per element read)
    assert measured([pt.sum(e)], table=FUSED) == 3 * 10 + 1 + (1 + 10)
    # read by a second node that is not an Elemwise: written
    assert measured([pt.sum(e), pt.max(e)], table=FUSED) == 3 * 10 + 2 * 10 + 1 + 2 * (1 + 10)


def test_a_dimshuffle_pays_its_call_only_when_fusion_is_modelled():
    m = pt.matrix("m", shape=(4, 5))
    t = CostTable({"DimShuffle": {"*": (3.0, 7.0)}}, (0.0, 0.0), memory=1.0)
    assert measured([m.T], table=t) == 3.0
    assert measured([m.T], table=CostTable(t.entries, t.default)) == 3.0 + 7.0 * 20


@pytest.mark.parametrize("view", ["reshape", "subtensor", "advanced"])
def test_a_reshape_or_basic_subtensor_is_a_view_that_pays_its_call_only(view):
    m = pt.matrix("m", shape=(4, 5))
    out = {"reshape": m.reshape((20,)), "subtensor": m[1:], "advanced": m[[0, 2]]}[view]
    kind = type(out.owner.op).__name__
    t = CostTable({kind: {"*": (3.0, 7.0)}}, (0.0, 0.0), memory=1.0)
    elements = 20 if view == "reshape" else (3 if view == "subtensor" else 2) * 5
    # an advanced index copies what it reads: its elements are paid
    expected = 3.0 + (7.0 * elements if view == "advanced" else 0.0)
    assert measured([out], table=t) == expected


def test_fusion_groups_and_written_outputs():
    x, y = pt.vector("x", shape=(3,)), pt.vector("y", shape=(3,))
    a, b = pt.exp(x), pt.log(y)
    c = a + b
    s = pt.sum(a)
    nodes = [c.owner, a.owner, b.owner, s.owner]
    fusion = Fusion(nodes, [c, s])
    assert fusion.leader(a.owner) is fusion.leader(b.owner) is fusion.leader(c.owner)
    assert fusion.written(c)  # returned
    assert fusion.written(a)  # read by the sum, which is not its only reader
    assert not fusion.written(b)  # read by the add only


def test_shape_of_is_shared_and_exclusive_with_sizes():
    x = pt.vector("x")
    y = pt.exp(x)
    of = shape_finder({x: (100,)})
    assert measured([y], table=UNIT, shape_of=of) == measured([y], sizes={x: (100,)}, table=UNIT)
    with pytest.raises(ValueError, match="sizes or shape_of"):
        measured([y], sizes={x: (3,)}, shape_of=of)
    with pytest.raises(TypeError, match="shape_of"):
        measured([y], shape_of=3)


def test_node_costs_pay_a_node_once_and_half_a_pass_per_elemwise_output():
    x = pt.vector("x", shape=(10,))
    cost = node_costs(table=FUSED)
    assert cost(pt.exp(x)) == 1 + 3 * 10 + 0.5 * 2 * 10
    assert cost(pt.sum(x)) == 1 + 10
    assert cost(x) == 0.0
    # a node of two outputs: its first pays
    from pytensor.compile.builders import OpFromGraph

    halves = OpFromGraph([x], [x + 1, x * 2])(x)
    assert halves[0].owner is halves[1].owner
    assert cost(halves[0]) > 0 and cost(halves[1]) == 0.0


def test_the_memory_cost_is_checked_and_kept_in_json():
    with pytest.raises(ValueError, match="memory"):
        CostTable({}, (0.0, 0.0), memory=-1.0)
    with pytest.raises(ValueError, match="memory"):
        CostTable({}, (0.0, 0.0), memory=True)
    assert CostTable.from_json(FUSED.to_json()).memory == 2.0
    assert CostTable.from_json(UNIT.to_json()).memory is None
    shipped = load_table()
    assert shipped.memory is not None and 0 < shipped.memory <= shipped.cost("Elemwise{Exp}", "float64")[1]


def test_fusion_sees_through_dimshuffles_between_elemwise():
    x, m = pt.vector("x", shape=(3,)), pt.matrix("m", shape=(2, 3))
    e = pt.exp(x)
    out = e[None, :] * m  # canonicalize lifts the expansion above the exp: one loop
    ds = out.owner.inputs[0].owner
    nodes = [out.owner, ds, e.owner]
    fusion = Fusion(nodes, [out])
    assert fusion.leader(e.owner) is fusion.leader(out.owner)
    assert not fusion.written(e)
    # read through the expansion by a reduction that is not its only reader: written
    s = pt.sum(e[None, :], axis=1)
    fusion = Fusion([out.owner, ds, e.owner, s.owner, s.owner.inputs[0].owner], [out, s])
    assert fusion.written(e)


def test_merged_nodes_pay_equal_computations_once():
    x = pt.vector("x", shape=(4,))
    a = pt.exp(x) * pt.constant(2.0)
    b = pt.exp(x) * pt.constant(2.0)  # equal to a: another Exp, another constant
    nodes, canon = merged_nodes([a + b])
    assert len(nodes) == 3  # add, mul, exp (the expanded constant is folded)
    assert canon[a] is canon[b]
    assert canon[b.owner.inputs[1]] is canon[a.owner.inputs[1]]  # (expand_dims of equal constants)
    assert measured([a + b], table=UNIT) == measured([a + a], table=UNIT)


def test_small_graphs_over_constants_are_folded_free_and_merged():
    # PyTensor's constant folding makes ``99`` and ``int(Cast(100) - 1)`` one constant when it
    # compiles: the two Subtensors below are one computation, and the arithmetic is free
    x = pt.vector("x", shape=(200,))
    hundred = pt.cast(pt.constant(100.0), "int64")
    a = pt.exp(x[99:])
    b = pt.exp(x[hundred - 1 :])
    nodes, canon = merged_nodes([a + b])
    assert canon[a] is canon[b]
    assert sorted(type(n.op).__name__ for n in nodes) == ["Elemwise", "Elemwise", "Subtensor"]
    assert measured([a + b], table=UNIT) == measured([a + a], table=UNIT)
    # a static shape folds too; a value over MAX_FOLDED_SIZE elements, or one a variable's value
    # decides, does not
    assert merged_nodes([x.shape[0] * 2 + 1])[0] == []
    y = pt.vector("y")
    assert measured([pt.exp(y[y.shape[0] - 1 :])], table=UNIT) > measured([pt.exp(y[5:])], table=UNIT)
    big = pt.constant(np.arange(MAX_FOLDED_SIZE + 1.0))
    assert len(merged_nodes([pt.exp(big)])[0]) == 1


def test_a_pow_by_a_folded_constant_is_a_pow_by_a_constant():
    x = pt.matrix("x")
    assert op_kind((x ** (pt.constant([[2.0]]) - 1)).owner) == "Elemwise{Pow(constant)}"
    assert op_kind((x ** (pt.constant(2.0) - pt.scalar("s"))).owner) == "Elemwise{Pow}"
