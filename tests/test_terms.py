"""graph_bridge: etuplize / reify round trip, builders, opaque atoms, type facts."""

import time

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from etuples import etuplize as etuples_etuplize
from kanren import run
from pytensor.graph.basic import equal_computations
from pytensor.tensor import subtensor as pts
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from unification import unify, var

import graph_bridge as gb
from graph_bridge import builder_for, etuplize, reify, term
from logic_core import NotReady


def roundtrip(v):
    t = etuplize(v)
    r = reify(t)
    assert r is v  # untouched terms give back the very same object
    rebuilt = reify(rebuild(t))  # and a fresh build from parts is equal
    assert equal_computations([rebuilt], [v])
    return t


def rebuild(t):
    """The same term with every cached evaluation dropped (built from parts)."""
    from etuples.core import ExpressionTuple

    memo = {}
    stack = [t]
    while stack:
        u = stack[-1]
        if not isinstance(u, ExpressionTuple) or id(u) in memo:
            stack.pop()
            continue
        kids = [a for a in u if isinstance(a, ExpressionTuple) and id(a) not in memo]
        if kids:
            stack.extend(kids)
            continue
        stack.pop()
        memo[id(u)] = term(*[memo.get(id(a), a) if isinstance(a, ExpressionTuple) else a for a in u])
    return memo[id(t)]


x = pt.vector("x")
m = pt.matrix("m")
s = pt.scalar("s")
iv = pt.lvector("iv")


VOCABULARY_GRAPHS = {
    "elemwise": lambda: pt.exp(x) + m,
    "dimshuffle": lambda: m.T.dimshuffle("x", 0, 1),
    "sum": lambda: pt.sum(m, axis=1),
    "prod": lambda: pt.prod(m, axis=0, no_zeros_in_input=True),
    "max": lambda: pt.max(m),
    "min": lambda: pt.min(m, axis=1),
    "all": lambda: pt.all(m > 0),
    "any": lambda: pt.any(m > 0, axis=0),
    "careduce_generic": lambda: CAReduce(pytensor.scalar.maximum, axis=(0,))(m),
    "join": lambda: pt.join(0, x, x),
    "stack": lambda: pt.stack([x, x]),
    "alloc": lambda: pt.alloc(s, 3, x.shape[0]),
    "subtensor": lambda: m[1:, 0],
    "advanced_subtensor": lambda: m[[0, 1], [1, 0]],
    "advanced_subtensor1": lambda: x[iv],
    "set_subtensor": lambda: pt.set_subtensor(x[1:], 2.0),
    "inc_subtensor": lambda: pt.inc_subtensor(m[0], x),
    "advanced_set": lambda: pt.set_subtensor(m[[0, 1], [1, 0]], s),
    "advanced_inc1": lambda: pt.inc_subtensor(x[iv], 1.0),
    "constant": lambda: pt.constant(np.ones(3)) * x,
    "shared": lambda: pytensor.shared(np.ones(3), name="w") + x,
}


@pytest.mark.parametrize("name", sorted(VOCABULARY_GRAPHS))
def test_round_trip_every_vocabulary_op(name):
    v = VOCABULARY_GRAPHS[name]()
    t = roundtrip(v)
    assert isinstance(t, gb.Term)
    assert gb.in_vocabulary(v.owner.op)


def test_heads_are_builders_in_props_order():
    v = pt.sum(m, axis=0)
    t = etuplize(v)
    head = t[0]
    assert head[0] == builder_for(type(v.owner.op))
    assert tuple(head[1:]) == v.owner.op._props()


@pytest.mark.parametrize("name", sorted(VOCABULARY_GRAPHS))
def test_a_head_holds_the_ops_props_for_every_vocabulary_op(name):
    from pytensor.graph.traversal import apply_ancestors

    for node in apply_ancestors([VOCABULARY_GRAPHS[name]()]):
        if gb.in_vocabulary(node.op):
            head = gb.op_term(node.op)
            assert tuple(head[1:]) == node.op._props(), node.op
            assert head.evaled_obj is node.op


def test_a_head_reads_props_through_an_ops_own_props_method():
    from pytensor.graph.op import Op

    from graph_bridge.terms import _props_getter

    class Scaled(Op):
        __props__ = ("k", "name")

        def __init__(self, k, name):
            self.k, self.name = k, name

        def make_node(self, *inputs):
            raise NotImplementedError

        def perform(self, node, inputs, outputs):
            raise NotImplementedError

    class Doubled(Scaled):
        def _props(self):  # an override: a head must take what it returns
            return (self.k, self.k)

    assert _props_getter(Scaled)(Scaled(2, "a")) == (2, "a") == Scaled(2, "a")._props()
    assert _props_getter(Doubled)(Doubled(3, "b")) == (3, 3)


def test_sum_from_props_needs_a_builder():
    """Calling the class with its props fails; the builder does not."""
    op = pt.sum(m).owner.op
    with pytest.raises(TypeError):
        type(op)(*op._props())
    assert builder_for(type(op))(*op._props()) == op


@pytest.mark.parametrize(
    "make",
    [
        lambda: (builder_for(type(pt.sum(m).owner.op)), pt.sum(m, axis=1).owner.op._props(), (m,)),
        lambda: (builder_for(DimShuffle), (1, ("x", 0)), (x,)),
        lambda: (builder_for(Elemwise), pt.add._props(), (m, m)),
        lambda: (builder_for(type(pt.join(0, x, x).owner.op)), pt.join(0, x, x).owner.op._props(),
                 tuple(pt.join(0, x, x).owner.inputs)),
        lambda: (builder_for(type(pt.alloc(s, 3).owner.op)), (), (s, pt.constant(3))),
        lambda: (builder_for(type(m[1:].owner.op)), m[1:].owner.op._props(), tuple(m[1:].owner.inputs)),
        lambda: (builder_for(pts.IncSubtensor), pt.set_subtensor(x[1:], 2.0).owner.op._props(),
                 tuple(pt.set_subtensor(x[1:], 2.0).owner.inputs)),
        lambda: (builder_for(pts.AdvancedIncSubtensor), pt.set_subtensor(m[[0], [1]], s).owner.op._props(),
                 tuple(pt.set_subtensor(m[[0], [1]], s).owner.inputs)),
    ],
    ids=["careduce", "dimshuffle", "elemwise", "join", "alloc", "subtensor", "incsubtensor", "advanced_inc"],
)
def test_build_new_nodes_from_parts(make):
    builder, props, inputs = make()
    v = reify(term(term(builder, *props), *inputs))
    assert type(v.owner.op) is builder.op_class
    assert v.owner.op._props() == tuple(props)
    assert list(v.owner.inputs) == list(inputs) or all(
        a is b or equal_computations([a], [b]) for a, b in zip(v.owner.inputs, inputs)
    )


def test_builder_rejects_props_the_class_fixes():
    b = builder_for(type(pt.sum(m).owner.op))
    props = list(pt.sum(m).owner.op._props())
    props[0] = pytensor.scalar.mul  # Sum's scalar op is always add
    with pytest.raises(ValueError, match="scalar_op"):
        b(*props)
    with pytest.raises(TypeError, match="props"):
        b(None)


def test_shared_dag_converts_and_reifies_linearly():
    v = x
    for _ in range(300):
        v = v * v + v
    start = time.perf_counter()
    t = etuplize(v)
    assert reify(t) is v
    assert reify(rebuild(t)) is not v
    assert equal_computations([reify(rebuild(t))], [v])
    assert hash(t) == hash(rebuild(t)) and t == rebuild(t)
    assert time.perf_counter() - start < 5.0  # exponential would never finish
    # shared sub-graphs are shared sub-terms
    add_term = t
    mul_term = add_term[1]
    assert mul_term[1] is mul_term[2] is add_term[2]


def test_deep_chain_no_recursion_error():
    v = x
    for _ in range(5000):
        v = pt.exp(v)
    t = etuplize(v)
    assert reify(t) is v
    rebuilt = reify(rebuild(t))
    assert rebuilt is not v
    # pytensor's equal_computations recurses; term equality does not
    assert etuplize(rebuilt) == t


@pytest.mark.filterwarnings("ignore::DeprecationWarning:pytensor")
def test_opaque_ops_are_atoms():
    from pytensor.compile.builders import OpFromGraph
    from pytensor.raise_op import Assert

    a = Assert("positive")(x, pt.all(x > 0))
    ofg = OpFromGraph([x], [x * 2])(x)
    srt = pt.sort(x)
    for v in (a, ofg, srt):
        out = pt.exp(v)
        t = etuplize(out)
        assert t[1] is v  # matched whole
        assert reify(t) is out
        assert equal_computations([reify(rebuild(t))], [out])


@pytest.mark.filterwarnings("ignore::DeprecationWarning:pytensor")
def test_random_variables_and_blockwise_are_in_the_vocabulary_and_round_trip():
    """Their explicit batch broadcasting needs rules at their nodes (``relations/rules/batched/__init__.py``)."""
    from graph_bridge import OutputOf

    rv = pt.random.normal(x, 1.0)
    bw = pt.matmul(pt.matrix("m"), pt.tensor3("B"))
    for v in (rv, bw):
        out = pt.exp(v)
        t = etuplize(out)
        assert t[1] is not v and t[1].evaled_obj is v
        assert reify(t) is out
    assert etuplize(rv)[0] == OutputOf(1)


def test_opaque_scan_and_check_parameter_value():
    from pymc_like import check_parameters_graph

    out, inner = check_parameters_graph(x)
    t = etuplize(out)
    assert reify(t) is out
    assert equal_computations([reify(rebuild(t))], [out])


def test_multi_output_node_round_trips():
    from pytensor.scalar import Composite, float64

    a, b = float64("a"), float64("b")
    comp = Composite([a, b], [a + b, a * b])
    outs = Elemwise(comp)(x, x)
    y = outs[0] - outs[1]
    t = etuplize(y)
    assert isinstance(t[1][0], gb.OutputOf)
    assert t[1][1] is t[2][1]  # one node term for both outputs
    assert reify(t) is y
    z = reify(rebuild(t))
    assert equal_computations([z], [y])
    f = pytensor.function([x], [y, z], mode="FAST_COMPILE")
    r = f(np.arange(3.0))
    np.testing.assert_allclose(r[0], r[1])


def test_kanren_style_patterns_unify_with_terms_and_variables():
    a, b = var("a"), var("b")
    pattern = term(etuples_etuplize(pt.add), a, b)
    y = pt.exp(x) + m
    for target in (etuplize(y), y):
        s = unify(pattern, target)
        assert s is not False
        assert reify(s[b]) is m


def test_type_facts_bind_and_check():
    n, d, bc = var(), var(), var()
    assert run(1, n, gb.ndimo(etuplize(m.T), n)) == (2,)
    assert run(1, d, gb.dtypeo(iv, d)) == ("int64",)
    assert run(1, bc, gb.broadcastableo(x.dimshuffle("x", 0), bc)) == ((True, False),)
    assert run(1, n, gb.ndimo(x, 2)) == ()
    # a term that does not reify gives no answer instead of a wrong one
    assert run(1, n, gb.ndimo(term(term(builder_for(DimShuffle), 5, ("x",)), x), n)) == ()


def test_type_facts_wait_until_their_term_is_ground():
    from kanren import eq

    from logic_core.goals import lall_ready
    t, n = var(), var()
    with pytest.raises(NotReady):
        run(1, n, gb.ndimo(t, n))
    # inside lall_ready the fact runs after the goal that binds its term
    assert run(1, n, lall_ready(gb.ndimo(t, n), eq(t, etuplize(m)))) == (2,)
    # and a fact that never becomes ready gives no answer
    assert run(1, n, lall_ready(gb.ndimo(t, n))) == ()
    assert run(1, t, lall_ready(gb.same_typeo(t, x), eq(t, pt.exp(x)))) != ()
    assert run(1, t, lall_ready(gb.same_typeo(t, x), eq(t, m))) == ()


def test_bad_arguments_name_the_argument():
    with pytest.raises(TypeError, match="x must be"):
        etuplize(3.0)
    with pytest.raises(TypeError, match="term must be"):
        reify("x")
    with pytest.raises(gb.TermError, match="logic variables"):
        reify(term(builder_for(DimShuffle), 1, var()))
    with pytest.raises(gb.TermError, match="cannot build"):
        reify(term(term(builder_for(DimShuffle), 2, (0, 1)), x))


def test_term_is_the_term_the_constructor_builds():
    from etuples.core import ExpressionTuple

    from graph_bridge.terms import Term

    x = pt.vector("x")
    for args, kwargs in [((pt.exp, x), {}), ((pt.add, x, 1), {"evaled_obj": x}), ((), {})]:
        made, built = term(*args, **kwargs), Term(args, **kwargs)
        assert type(made) is Term and made._tuple == built._tuple == args
        assert made._evaled_obj is built._evaled_obj and made._parent is built._parent is None
        assert hash(made) == hash(built) and made == built
    assert term()._evaled_obj is ExpressionTuple.null


def test_terms_with_other_arguments_evaluate_as_etuples_do():
    from etuples import etuple
    from etuples.core import InvalidExpression

    from graph_bridge.terms import Term

    def f(*args, scale=1):
        return scale * sum(args)

    assert term(f, etuple(f, 1, 2), 4).evaled_obj == 7  # a plain etuple argument
    assert term(f, term(f, 1, 2), 4).evaled_obj == 7
    assert Term((f, term(f, 1, 2), 4), scale=10).evaled_obj == 70  # a keyword pair
    for bad in (term(3, 1), term(term(f, 1), 2)):  # heads that are not callable
        with pytest.raises(InvalidExpression):
            bad.evaled_obj


def test_same_type_is_class_dtype_ndim_and_broadcastable_not_static_lengths():
    from pytensor.scalar import ScalarType
    from pytensor.tensor.type import TensorType

    from graph_bridge.type_facts import same_type

    t = TensorType("float64", shape=(None, 3))
    assert same_type(t, t) and same_type(t, TensorType("float64", shape=(None, 3)))
    assert same_type(t, TensorType("float64", shape=(2, None)))  # static lengths other than 1 may differ
    assert not same_type(t, TensorType("float64", shape=(None, 1)))  # broadcastable differs
    assert not same_type(t, TensorType("float32", shape=(None, 3)))
    assert not same_type(t, TensorType("float64", shape=(None, 3, 1)))
    assert not same_type(TensorType("float64", shape=(1,)), TensorType("float64", shape=(1, 1)))
    assert same_type(ScalarType("float64"), ScalarType("float64"))
    assert not same_type(ScalarType("float64"), ScalarType("int64"))
    assert not same_type(ScalarType("float64"), TensorType("float64", shape=()))
