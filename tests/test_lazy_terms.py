"""Terms the query matcher adds are recorded without PyTensor nodes (``EGraph.lazy_term``).

What is asserted: saturating with pattern rules only builds no PyTensor ``Apply`` (counted by
patching its constructor) and leaves the matcher's terms unbuilt (``EGraph.lazy_terms``); the
e-graph's classes, types and default extraction read no variable of them; a term's variable,
once read, is a node of its Op over its children's variables, of its class's type, built once,
with the empty stack trace the rules' nodes have; an Elemwise over an input of lower ndim is
built through the left padding make_node adds; forms and proofs through lazily added terms
keep dtype and broadcastable, evaluate equal on values (length-0 and length-1 dimensions too)
and re-check.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.graph.basic import Apply
from pytensor.tensor.elemwise import DimShuffle

from graph_bridge.type_facts import same_type
from helpers import issue42_algebra
from relations import Limits, saturate
from relations import patterns as p
from relations.queries.explanations import Proof
from relations.queries.proofs import explain_union
from relations.saturation.egraph import EGraph

a, b, c = p.var("a"), p.var("b"), p.var("c")

#: issue 42's algebra rules (plain patterns: all e-matched as queries)
ALGEBRA = [
    r
    for r in issue42_algebra()
    if r.__name__ in {"add_comm", "mul_comm", "add_assoc", "distribute", "factor", "sub_to_add"}
]
FACTOR = [r for r in ALGEBRA if r.__name__ == "factor"]
FEW = Limits(nodes=None, iterations=4, seconds=None, growth=None)


def _graph():
    x, y, z, w = (pt.vector(n) for n in "xyzw")
    return [x, y, z, w], (x * y + x * z) - w


def _values(inputs, n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=n).astype(v.type.dtype) for v in inputs]


def _evaluate(inputs, outputs, values):
    f = pytensor.function(inputs, outputs, on_unused_input="ignore", mode="FAST_COMPILE")
    return f(*values)


def _unbuilt_terms(eg: EGraph) -> list[int]:
    return sorted(eg._lazy)


def test_saturating_with_pattern_rules_builds_no_pytensor_node(monkeypatch):
    _, g = _graph()
    saturate(g, ALGEBRA, backward=False, limits=FEW)  # types inferred once per Op and input types (make_node)
    eg = EGraph(ALGEBRA)
    eg.add(g)
    made = []
    original = Apply.__init__

    def counting(self, *args, **kwargs):
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(Apply, "__init__", counting)
    eg.run(FEW, backward=False)
    monkeypatch.undo()
    classes, enodes = eg.size
    unbuilt, built = eg.lazy_terms
    assert enodes > 3 * len(list(pytensor.graph.traversal.applys_between([], [g]))), (classes, enodes)
    assert not made, f"{len(made)} PyTensor nodes built while saturating"
    assert built == 0
    assert unbuilt == len(_unbuilt_terms(eg)) > enodes // 2  # the matcher's terms: every new e-node and more


def test_classes_types_and_default_extraction_read_no_unbuilt_term():
    _, g = _graph()
    eg = saturate(g, ALGEBRA, backward=False, limits=FEW)
    unbuilt = eg.lazy_terms[0]
    classes = eg.classes()
    for cls, nodes in classes.items():
        for n in nodes:
            assert same_type(n.type, eg.class_type(cls))
            assert not n.is_leaf or not n.children
    assert eg.lazy_terms == (unbuilt, 0)
    result = eg.extract().result
    assert result.type.dtype == g.type.dtype and result.type.broadcastable == g.type.broadcastable
    left, built = eg.lazy_terms
    assert built < unbuilt // 4, (built, unbuilt)  # only the chosen e-nodes (and the terms they read)
    assert left + built == unbuilt


def test_a_read_term_is_its_op_over_its_childrens_variables_of_its_class_type_built_once():
    _, g = _graph()
    eg = saturate(g, ALGEBRA, backward=False, limits=FEW)
    terms = _unbuilt_terms(eg)
    assert terms
    for t in terms:
        v = eg.variable(t)
        assert eg.variable(t) is v
        assert v.owner.op is eg.term_op(t)
        assert all(i is eg.variable(k) for i, k in zip(v.owner.inputs, eg.term_children(t), strict=True))
        assert v.type == eg.term_type(t)
        assert same_type(v.type, eg.class_type(eg.find(t)))
        assert v.tag.trace == []
        assert eg.term(v) == t  # the variable is the term's: held, not added again
    assert eg.lazy_terms == (0, len(terms))
    for cls, nodes in eg.classes().items():  # every e-node's variable now, of its class's type
        assert all(same_type(n.var.type, eg.class_type(cls)) for n in nodes)


def test_a_lazily_added_node_over_a_lower_ndim_input_is_built_through_its_padding():
    x = pt.vector("x")
    g = x * 2.0 + x * 3.0  # factor: x * (2.0 + 3.0), the scalar sum padded to x's ndim
    eg = saturate(g, FACTOR, backward=False)
    root = eg.class_of(g)
    lazy = [n for n in eg.classes()[root] if n.term in eg._lazy]
    assert len(lazy) == 1
    v = lazy[0].var
    padded = [i for i in v.owner.inputs if i.owner is not None and isinstance(i.owner.op, DimShuffle)]
    assert len(padded) == 1 and padded[0].owner.op.new_order == ("x",)
    assert v.type.dtype == g.type.dtype and v.type.broadcastable == g.type.broadcastable
    for n in (0, 1, 5):
        values = _values([x], n, seed=n)
        np.testing.assert_allclose(*_evaluate([x], [g, v], values), rtol=1e-12)


def test_forms_through_lazy_terms_evaluate_equal_with_empty_and_unit_dimensions():
    inputs, g = _graph()
    eg = saturate(g, ALGEBRA, backward=False, limits=FEW)
    forms = list(eg.forms(limit=12))
    assert len(forms) == 12
    assert eg.lazy_terms[1] > 0  # the forms read lazily added terms
    for n in (0, 1, 4):
        values = _values(inputs, n, seed=n)
        expected, *got = _evaluate(inputs, [g, *forms], values)
        for f, out in zip(forms, got, strict=True):
            assert f.type.dtype == g.type.dtype and f.type.broadcastable == g.type.broadcastable
            np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)


def test_a_proof_to_a_lazily_added_term_rechecks_and_its_extraction_evaluates_equal():
    x, y, z = (pt.vector(n) for n in "xyz")
    g = x * y + x * z
    eg = saturate(g, ALGEBRA, backward=False, limits=FEW)
    root = eg.class_of(g)
    start = eg.term(g)
    # x * (y + z): a node the factor rule added (no variable until the proof reads it)
    target = next(
        n.term
        for n in eg.classes()[root]
        if n.term in eg._lazy and isinstance(eg.term_op(n.term).scalar_op, pytensor.scalar.Mul)
    )
    steps = explain_union(eg, start, target)
    assert steps
    proof = Proof(g, eg.variable(target), steps)
    assert proof.check(values=True)
    # the cheapest form by node count is the factored one, a lazily added term
    fewest = eg.extract(cost=lambda v: 1.0).result
    assert len(list(pytensor.graph.traversal.applys_between([x, y, z], [fewest]))) == 2
    for n in (0, 1, 3):
        values = _values([x, y, z], n, seed=n)
        expected, out, direct = _evaluate([x, y, z], [g, fewest, eg.variable(target)], values)
        np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(direct, expected, rtol=1e-12, atol=1e-12)
