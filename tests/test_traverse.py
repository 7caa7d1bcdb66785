"""graph_bridge.traverse: the bottom-up walk, node collectors and rebuild."""

import sys

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.traverse import bottom_up, clone_over, count_nodes, owned_variables, rebuild


def test_bottom_up_gives_each_variable_after_its_inputs_once():
    x, y = pt.vector("x"), pt.vector("y")
    s = x + y
    out = pt.exp(s) * s  # s is shared
    seen = []
    for v in bottom_up([out], lambda u: any(u is w for w in seen)):
        for i in (v.owner.inputs if v.owner is not None else ()):
            assert any(i is w for w in seen)
        seen.append(v)
    assert len(seen) == len({id(v) for v in seen})
    assert seen[-1] is out
    assert sum(v is s for v in seen) == 1
    assert any(v is x for v in seen) and any(v is y for v in seen)


def test_bottom_up_does_not_walk_below_done_or_leaf_variables():
    x = pt.vector("x")
    inner = pt.exp(x)
    out = pt.log(inner)
    got = list(bottom_up([out], lambda u: u is inner))
    assert got == [out]
    got = list(
        _collect(bottom_up, [out], inputs=lambda v: () if v is inner else (v.owner.inputs if v.owner else ()))
    )
    assert got[0] is inner and got[-1] is out and len(got) == 2


def _collect(walk, roots, inputs):
    done = []
    for v in walk(roots, lambda u: any(u is w for w in done), inputs):
        done.append(v)
        yield v


def test_bottom_up_on_a_deep_graph_does_not_recurse():
    x = pt.scalar("x")
    v = x
    for _ in range(sys.getrecursionlimit() + 100):
        v = v + 1
    done = set()
    n = 0
    for u in bottom_up([v], lambda w: id(w) in done):
        done.add(id(u))
        n += 1
    assert n > sys.getrecursionlimit()


def test_owned_variables_breadth_first_each_once():
    x = pt.vector("x")
    s = pt.exp(x)
    out = s + s
    got = owned_variables([out])
    assert got[0] is out and got[1] is s and len(got) == 2


def test_count_nodes_counts_multi_output_nodes_once():
    m = pt.matrix("m")
    q, r = pt.linalg.qr(m)
    assert count_nodes([q, r]) == 1
    assert count_nodes([q + r]) == 2
    assert count_nodes([m]) == 0


def test_rebuild_keeps_untouched_sub_graphs_and_does_not_mutate():
    x, y, z = pt.vector("x"), pt.vector("y"), pt.vector("z")
    a = pt.exp(x)
    out = a + pt.log(y)
    [new] = rebuild([out], replace={y: z})
    assert new is not out and new.owner.inputs[0] is a
    assert new.owner.inputs[1].owner.inputs[0] is z
    assert out.owner.inputs[1].owner.inputs[0] is y


def test_clone_over_gives_what_clone_with_new_inputs_gives():
    x, y, z = pt.vector("x"), pt.vector("y"), pt.vector("z")
    s = pt.exp(x) + y
    s.name = "s"
    s.tag.trace = [[("user.py", 3, "model", "s = ...")]]
    s.owner.tag.note = "kept"
    node = s.owner
    new = clone_over(node, [pt.log(z), y])
    ref = node.clone_with_new_inputs([pt.log(z), y], strict=False)
    assert new.op == ref.op and new.inputs[1] is y and new.inputs[0].owner.inputs[0] is z
    assert node.inputs[0].owner.inputs[0] is x  # the old node is unchanged
    [o], [n], [r] = node.outputs, new.outputs, ref.outputs
    assert type(n) is type(r) and n.type == r.type and n.name == r.name == "s"
    assert n.owner is new and n.index == 0
    assert vars(n.tag) == vars(r.tag) and n.tag is not o.tag and n.tag.trace is o.tag.trace
    assert new.tag.note == "kept" and new.tag is not node.tag
    f = pytensor.function([z, y], n)
    np.testing.assert_allclose(f([1.0, 2.0], [3.0, 4.0]), np.log([1.0, 2.0]) + [3.0, 4.0])


def test_clone_over_a_node_of_several_outputs():
    m, n = pt.matrix("m"), pt.matrix("n")
    q, r = pt.linalg.qr(m)
    new = clone_over(q.owner, [n])
    assert len(new.outputs) == 2 and all(o.owner is new for o in new.outputs)
    assert [o.type for o in new.outputs] == [q.type, r.type]
    fq = pytensor.function([n], new.outputs)
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    got_q, got_r = fq(a)
    np.testing.assert_allclose(got_q @ got_r, a)


def test_clone_over_leaves_the_node_to_its_op_when_types_change_or_depend_on_values():
    x = pt.vector("x")
    s = pt.exp(x)
    assert clone_over(s.owner, [pt.matrix("m")]) is None  # another type: make_node decides
    assert clone_over(s.owner, [pt.vector("f", dtype="float32")]) is None
    a = pt.alloc(x, 3, x.shape[0])  # Alloc's output type depends on its shape inputs' values
    assert clone_over(a.owner, [x, pt.constant(3, dtype="int64"), a.owner.inputs[2]]) is None
    assert clone_over(a.owner, [pt.vector("y"), a.owner.inputs[1], pt.scalar("n", dtype="int64")]) is None


def test_clone_over_names_a_wrong_number_of_inputs():
    x, y = pt.vector("x"), pt.vector("y")
    s = x + y
    with pytest.raises(ValueError, match="1 inputs for a node of 2"):
        clone_over(s.owner, [x])
    with pytest.raises(ValueError, match="3 inputs for a node of 2"):
        clone_over(s.owner, [x, y, x])


@pytest.mark.parametrize("build", ["alloc", "explicit_alloc", "reshape"])
def test_clone_over_a_node_whose_type_reads_its_shape_inputs_when_only_the_array_changes(build):
    x, y = pt.vector("x"), pt.vector("y")
    n = pt.scalar("n", dtype="int64")
    if build == "alloc":
        out = pt.alloc(x, 3, n, x.shape[0])
    elif build == "explicit_alloc":
        out = relations.normalize([pt.alloc(x, 3, n, x.shape[0])])[0]
        assert type(out.owner.op).__name__ == "ExplicitAlloc"
    else:
        out = pt.reshape(x, (n, 2))
    new = clone_over(out.owner, [y, *out.owner.inputs[1:]])
    ref = out.owner.clone_with_new_inputs([y, *out.owner.inputs[1:]], strict=False)
    assert new is not None and new.op == ref.op
    assert new.outputs[0].type == ref.outputs[0].type == out.type
    f = pytensor.function([x, y, n], [new.outputs[0], ref.outputs[0]], mode="FAST_COMPILE", on_unused_input="ignore")
    size = 4 if build == "reshape" else 5
    a, b = f(np.zeros(size), np.arange(size, dtype="float64"), 2)
    np.testing.assert_array_equal(a, b)
    assert a.shape == ((2, 2) if build == "reshape" else (3, 2, size))


def test_clone_over_keeps_a_value_dependent_type_when_the_caller_knows_the_values_are_the_same():
    x = pt.vector("x")
    m = pt.matrix("m")
    n = m.shape[0] * 1  # a length whose normal form is another variable of the same value
    out = pt.alloc(x, n, x.shape[0])
    same = m.shape[0]
    inputs = [x, same, out.owner.inputs[2]]
    assert clone_over(out.owner, inputs) is None  # the Op must read a new length
    new = clone_over(out.owner, inputs, same_values=True)
    assert new is not None and new.op == out.owner.op and new.inputs == inputs
    assert new.outputs[0].type == out.type
    assert clone_over(out.owner, [x, pt.constant(3.0), out.owner.inputs[2]], same_values=True) is None  # a type changed
    f = pytensor.function([x, m], [out, new.outputs[0]], mode="FAST_COMPILE")
    a, b = f(np.arange(3.0), np.zeros((2, 5)))
    np.testing.assert_array_equal(a, b)
    assert b.shape == (2, 3)
