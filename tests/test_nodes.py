"""graph_bridge.nodes: the read-or-build goal and the node readers relations share."""

import pytensor.tensor as pt
import pytest
from kanren import run
from unification import var

from graph_bridge import etuplize, reify, term
from graph_bridge.node_relations import alloco, elemwise_holeo, joino
from graph_bridge.nodes import (
    absorb_expansion,
    alloc_parts,
    is_expansion,
    join_parts,
    read_or_build,
    scalar_of,
)
from graph_bridge.ops import explicit_alloc
from logic_core import NotReady
from logic_core.goals import lall_ready
from logic_core.unifier import eq


def _exp_goal(out, x, build_first=False, calls=None):
    """``out`` is ``exp(x)``: read from an Exp node, built with pt.exp."""

    def read(v):
        if calls is not None:
            calls.append("read")
        node = v.owner
        if node is not None and getattr(node.op, "scalar_op", None) is not None and node.op.scalar_op.nin == 1:
            if type(node.op.scalar_op).__name__ == "Exp":
                yield (node.inputs[0],)

    def ready(p):
        return not isinstance(p[0], type(var()))

    def build(p):
        if calls is not None:
            calls.append("build")
        return etuplize(pt.exp(p[0]))

    return read_or_build(out, (x,), read, ready, build, "exp needs out or x", build_first=build_first)


def test_read_or_build_reads_a_known_term():
    x = pt.vector("x")
    q = var()
    [found] = run(0, q, _exp_goal(etuplize(pt.exp(x)), q))
    assert found is x


def test_read_or_build_has_no_answer_for_another_node():
    x = pt.vector("x")
    q = var()
    assert run(0, q, _exp_goal(etuplize(pt.log(x)), q)) == ()


def test_read_or_build_builds_from_known_parts():
    x = pt.vector("x")
    q = var()
    [built] = run(0, q, _exp_goal(q, x))
    v = reify(built)
    assert v.owner.inputs[0] is x and type(v.owner.op.scalar_op).__name__ == "Exp"


def test_read_or_build_checks_with_both_sides_known():
    x, y = pt.vector("x"), pt.vector("y")
    assert len(run(0, var(), _exp_goal(etuplize(pt.exp(x)), x))) == 1
    assert run(0, var(), _exp_goal(etuplize(pt.exp(x)), y)) == ()


def test_read_or_build_waits_with_neither_side_known():
    with pytest.raises(NotReady, match="exp needs out or x"):
        next(iter(_exp_goal(var(), var())({})))


def test_read_or_build_waits_inside_lall_ready_until_a_later_goal_binds():
    x = pt.vector("x")
    out, q = var(), var()
    [found] = run(0, out, lall_ready(_exp_goal(out, q), eq(q, x)))
    assert reify(found).owner.inputs[0] is x


def test_build_first_builds_even_when_the_term_is_known():
    x = pt.vector("x")
    calls = []
    run(0, var(), _exp_goal(etuplize(pt.exp(x)), x, build_first=True, calls=calls))
    assert calls == ["build"]
    calls.clear()
    run(0, var(), _exp_goal(etuplize(pt.exp(x)), x, calls=calls))
    assert calls == ["read"]


def test_a_ground_term_without_a_variable_has_no_answer():
    x = pt.vector("x")
    bad = term(pt.exp, x, x)  # exp takes one input: the term does not reify
    assert run(0, var(), _exp_goal(bad, var())) == ()


def test_join_parts_on_both_lines():
    a, b = pt.matrix("a"), pt.matrix("b")
    assert join_parts(pt.join(1, a, b)) == (1, (a, b))
    assert join_parts(pt.join(-1, a, b)) == (1, (a, b))
    assert join_parts(pt.exp(a)) is None
    assert join_parts(a) is None


def test_joino_forward_backward_and_check():
    a, b = pt.vector("a", shape=(3,)), pt.vector("b", shape=(2,))
    j = pt.join(0, a, b)
    axis, pieces = var(), var()
    assert run(0, (axis, pieces), joino(etuplize(j), axis, pieces)) == ((0, (a, b)),)
    out = var()
    [built] = run(0, out, joino(out, 0, (a, b)))
    assert join_parts(reify(built)) == (0, (a, b))
    assert len(run(0, var(), joino(etuplize(j), 0, (a, b)))) == 1
    assert run(0, var(), joino(etuplize(j), 0, (b, a))) == ()


def test_alloc_parts_reads_stock_and_broadcast_only_explicit_allocs():
    s, n = pt.scalar("s"), pt.iscalar("n")
    stock = pt.alloc(s, n, 3)
    assert alloc_parts(stock)[0] is s
    assert alloc_parts(explicit_alloc(s, n, 3))[0] is s
    v = pt.vector("v")
    assert alloc_parts(explicit_alloc(v, n, v.shape[0])) is None  # the value needs a length check
    assert alloc_parts(s) is None


def test_alloco_builds_a_stock_alloc():
    s, n = pt.scalar("s"), pt.iscalar("n")
    out = var()
    [built] = run(0, out, alloco(out, s, (n, n)))
    v = reify(built)
    assert type(v.owner.op).__name__ == "Alloc" and v.owner.inputs[0] is s


def test_elemwise_holeo_gives_one_answer_per_position():
    x, y, z = pt.vector("x"), pt.vector("y"), pt.vector("z")
    before, hole, after = var(), var(), var()
    answers = run(0, (before, hole, after), elemwise_holeo(etuplize(pt.add(x, y, z)), var(), before, hole, after))
    assert answers == (((), x, (y, z)), ((x,), y, (z,)), ((x, y), z, ()))


def test_is_expansion_and_absorb_expansion():
    x = pt.vector("x", shape=(None,))
    e = pt.expand_dims(x, 0)
    assert is_expansion(e)
    assert absorb_expansion(e) == (x, "x*")
    m = pt.matrix("m", shape=(1, None))
    assert not is_expansion(m.T)  # a transpose is not an expansion
    assert not is_expansion(m)
    assert absorb_expansion(m) == (m, "1*")


def test_scalar_of():
    s = pt.scalar("s")
    assert scalar_of(s) is s
    assert scalar_of(pt.expand_dims(s, (0, 1))) is s
    assert scalar_of(pt.vector("v")) is None
