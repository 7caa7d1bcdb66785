"""graph_bridge.shape_values: values of small shape graphs, as PyTensor's own folding finds them."""

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.tensor.basic import infer_static_shape

from graph_bridge.shape_values import MAX_FOLDED_NODES, folded_value

m = pt.tensor("m", shape=(200, 4, 4))
v = pt.tensor("v", shape=(3,))
u = pt.tensor("u", shape=(None, 5))

READ = {
    "constant": pt.constant(7),
    "shape_i": m.shape[1],
    "shape of a prefix": pt.shape(-(m @ m))[:1][0],
    "expanded constant": pt.as_tensor([4])[0],
    "arithmetic": v.shape[0] * 2 + u.shape[1],
    "make_vector": pt.stack([v.shape[0], m.shape[2]])[1],
    "cast": pt.cast(m.shape[0], "int32") // 3,
    "known length of a partly known shape": u.shape[1],
}


@pytest.mark.parametrize("name", sorted(READ))
def test_folded_value_is_the_value_and_what_pytensor_infers(name):
    length = READ[name]
    got = folded_value(length)
    assert got is not None
    want = pytensor.function(
        [m, v, u], length, mode="FAST_COMPILE", on_unused_input="ignore"
    )(np.zeros((200, 4, 4)), np.zeros(3), np.zeros((2, 5)))
    assert np.asarray(got).dtype == length.type.dtype
    assert int(got) == int(want)
    assert infer_static_shape([length])[1] == (int(got),)


@pytest.mark.parametrize(
    "length",
    [
        u.shape[0],  # an unknown static length
        pt.lscalar("n") + 1,  # an input
        pt.sum(v).astype("int64"),  # an Op it does not evaluate
        pt.as_tensor([4])[2],  # perform fails: left to the compiled graph
    ],
    ids=["unknown length", "input", "reduction", "index out of range"],
)
def test_folded_value_gives_none_where_it_cannot_read_the_value(length):
    assert folded_value(length) is None


def test_folded_value_gives_up_after_a_bounded_number_of_nodes():
    length = m.shape[0]  # read off the static shape, nothing evaluated
    for _ in range(MAX_FOLDED_NODES):
        length = length + 1
    assert int(folded_value(length)) == 200 + MAX_FOLDED_NODES
    assert folded_value(length + 1) is None


def test_folded_value_does_not_change_the_graph():
    length = pt.shape(-(m @ m))[:1][0] * 2
    nodes = list(pytensor.graph.traversal.apply_ancestors([length]))
    inputs = [list(n.inputs) for n in nodes]
    outputs = [list(n.outputs) for n in nodes]
    assert int(folded_value(length)) == 400
    assert [list(n.inputs) for n in nodes] == inputs
    assert [list(n.outputs) for n in nodes] == outputs
    assert all(o.owner is n for n in nodes for o in n.outputs)


def test_folded_value_performs_scalar_ops():
    """Index arithmetic on scalars (``Subtensor{i:}``'s start is a scalar graph): ``add(-2, 100)``."""
    import pytensor.scalar as ps

    n = ps.int64("n")
    start = ps.add(ps.constant(-2, dtype="int64"), ps.constant(100, dtype="int64"))
    assert int(folded_value(start)) == 98
    assert folded_value(ps.add(n, ps.constant(1, dtype="int64"))) is None
    x = pt.vector("x", shape=(10,))
    assert int(folded_value(ps.maximum(ps.constant(0, dtype="int64"), pt.scalar_from_tensor(x.shape[0])))) == 10
