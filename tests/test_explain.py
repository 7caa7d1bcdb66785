"""relations.explain / relations.prove: which rules fired, checkable proofs; logging."""

import logging

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.tensor.elemwise import DimShuffle

import relations
from graph_bridge.structural_keys import StructuralKeys
from helpers import assert_same_values, check_rewrite, snapshot
from relations import DEFAULT_RULES, Explanation, Proof, Step, rewrite_rule
from relations import patterns as p
from relations.queries.explanations import follows, is_bookkeeping
from relations.queries.verify import Counterexample
from relations.rules.dimshuffle import dimshuffle_composeo

x = pt.vector("x")
y = pt.vector("y")
m = pt.matrix("m")
c = pt.scalar("c")
n = pt.iscalar("n")
T = pt.tensor3("T")
U = pt.tensor3("U")
Y3 = pt.vector("Y3", shape=(3,))

#: rule name -> (graph where the rule fires, run-time shapes of its inputs per trial)
CASES = {
    "careduce_joino": (
        lambda: pt.join(0, pt.exp(x), y).sum(),
        {x: [(0,), (1,), (3,)], y: [(2,), (0,), (1,)]},
    ),
    "careduce_dimshuffle_fullo": (
        lambda: pt.sum(pt.expand_dims(pt.exp(x), 0)),
        {x: [(0,), (1,), (4,)]},
    ),
    "careduce_dimshuffle_partialo": (
        lambda: pt.exp(m).T.sum(axis=0),
        {m: [(0, 2), (1, 1), (3, 2)]},
    ),
    "dimshuffle_identityo": (
        lambda: DimShuffle(input_ndim=2, new_order=(0, 1))(pt.exp(m)),
        {m: [(0, 2), (1, 1), (3, 2)]},
    ),
    "dimshuffle_composeo": (lambda: pt.exp(m).T.T, {m: [(0, 2), (1, 1), (3, 2)]}),
    "careduce_added_dimso": (
        lambda: pt.sum(pt.expand_dims(pt.exp(x), 0), axis=0),
        {x: [(0,), (1,), (4,)]},
    ),
    # under a reduction, where it pays: left above an Elemwise, PyTensor's own
    # local_dimshuffle_lift moves it back down and drops the Elemwise's trace
    "dimshuffle_through_elemwiseo": (
        lambda: pt.sum(pt.exp(pt.expand_dims(x, 0)) * 2.0),
        {x: [(0,), (1,), (4,)]},
    ),
    # a softmax with a broadcast between its exp and its sum, summed over the shared axis
    "expand_dims_through_elemwiseo": (
        lambda: pt.sum(pt.expand_dims(pt.exp(m), 0) / pt.sum(pt.exp(m), axis=1, keepdims=True)[None], axis=0),
        {m: [(0, 2), (1, 1), (3, 2)]},
    ),
    "inc_zeros_as_seto": (
        lambda: pt.inc_subtensor(pt.zeros((n,))[[0, 2]], c),
        None,  # n is a length: checked with chosen values below
    ),
    "elemwise_set_subtensoro": (
        lambda: pt.exp(pt.set_subtensor(x[1:3], c)),
        {x: [(0,), (1,), (5,)], c: [(), (), ()]},
    ),
    "elemwise_alloco": (lambda: pt.sqr(pt.alloc(c, n, 3)), None),
    "elemwise_explicito": (
        lambda: (x + m).sum(axis=0),
        {x: [(2,), (1,), (0,)], m: [(3, 2), (1, 1), (2, 0)]},
    ),
    "alloc_explicito": (lambda: pt.alloc(pt.exp(x), n, 3), None),
    "alloc_identityo": (lambda: pt.alloc(pt.alloc(pt.exp(c)), n, 3), None),
    "blockwise_explicito": (
        lambda: pt.matmul(m, T),
        {m: [(2, 3), (1, 1), (0, 2)], T: [(4, 3, 2), (1, 1, 1), (2, 2, 0)]},
    ),
    "dimshuffle_through_blockwiseo": (
        lambda: pt.sum(pt.matmul(T[None], U[None]), axis=0),
        {T: [(4, 3, 2), (1, 1, 1), (2, 2, 0)], U: [(4, 2, 5), (1, 1, 1), (2, 0, 1)]},
    ),
    "random_explicito": (
        lambda: pt.random.uniform(
            c, Y3, size=(4, 3), rng=pytensor.shared(np.random.default_rng(0)), return_next_rng=True
        )[1],
        {c: [(), (), ()], Y3: [(3,), (3,), (3,)]},
    ),
}


def int_givens(g, trial):
    """Inputs for graphs with an integer length ``n`` (values chosen to be valid)."""
    rng = np.random.default_rng(trial)
    size = (0, 1, 4)[trial]
    out = {}
    for v in pytensor.graph.traversal.explicit_graph_inputs([g]):
        if v is n:
            out[v] = np.int32(size)
        elif v is x:
            out[v] = rng.normal(size=3)
        else:
            out[v] = np.asarray(rng.normal(size=v.type.ndim * (2,)), dtype=v.type.dtype)
    return out


def check_values(before, after, shapes):
    if shapes is not None:
        check_rewrite(before, after, shapes)
        return
    for trial in range(3):  # both sides raise (an index out of a length-0 range), or agree
        assert_same_values([before], [after], int_givens(before, trial))


def same_graph(a, b) -> bool:
    keys = StructuralKeys()
    a = a if isinstance(a, list) else [a]
    b = b if isinstance(b, list) else [b]
    return [keys.key(v) for v in a] == [keys.key(v) for v in b]


def test_cases_cover_every_default_rule():
    assert set(CASES) == {r.__name__ for r in DEFAULT_RULES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_explain_names_each_rule_and_checks(name):
    make, shapes = CASES[name]
    g = make()
    before = snapshot(g)
    e = relations.explain(g)
    assert snapshot(g) == before  # the input is not changed
    assert isinstance(e, Explanation)
    assert name in [s.rule for s in e.steps]
    assert same_graph(e.result, relations.normalize(g))
    assert e.result.type == g.type
    assert e.check()
    for s in e.steps:
        assert s.holds()
        assert s.direction == "forward"
        assert s.before.type.dtype == s.after.type.dtype
        assert s.before.type.broadcastable == s.after.type.broadcastable
        check_values(s.before, s.after, shapes)
    assert e.check(values=True)
    text = e.format(bookkeeping=True)
    assert name in text and "Before:" in text and "After:" in text
    assert name in str(e)


def test_explain_keeps_structure_and_records_nothing_in_normal_form():
    g1, g2 = pt.sum(pt.expand_dims(pt.exp(x), 0)), pt.exp(m).T.T
    e = relations.explain((g1, g2))
    assert isinstance(e.result, tuple) and len(e.result) == 2
    assert same_graph(list(e.result), list(relations.normalize((g1, g2))))
    assert [s.rule for s in e.steps] == [
        "careduce_dimshuffle_fullo",
        "dimshuffle_composeo",
        "dimshuffle_identityo",
    ]
    assert e.check()
    done = relations.explain(e.result[0])
    assert done.steps == [] and done.check() and "normal form" in str(done)
    assert isinstance(relations.explain([g1]).result, list)


def test_explain_of_a_larger_graph_equals_normalize_and_checks():
    g = (
        pt.sum(pt.expand_dims(pt.exp(x), 0))
        + pt.exp(m).T.T.sum(axis=0)
        + pt.join(0, x, x).sum()
        + pt.sqr(pt.alloc(c, 3)).sum()
    )
    e = relations.explain(g, rules=DEFAULT_RULES)
    assert same_graph(e.result, relations.normalize(g))
    assert len({s.rule for s in e.steps}) >= 5
    assert e.check()
    for i in range(len(e.steps)):  # every step is needed: without it the result does not follow
        assert not follows(g, e.steps[:i] + e.steps[i + 1 :], e.result), e.steps[i]


def test_check_fails_on_a_step_that_does_not_hold():
    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    e = relations.explain(g)
    (s,) = e.steps
    wrong_rule = Step(s.rule, dimshuffle_composeo, s.before, s.after)
    assert not wrong_rule.holds()
    assert not Explanation(g, e.result, [wrong_rule]).check()
    wrong_after = Step(s.rule, s.relation, s.before, pt.sum(pt.exp(y)))
    assert not wrong_after.holds()
    # a step that holds but does not lead to the claimed result
    assert not Explanation(g, pt.sum(pt.exp(y)), e.steps).check()
    # steps that hold but whose before is not in the graph
    assert not follows(pt.sum(pt.log(x)), e.steps, e.result)
    assert s.reversed().reversed().direction == "forward"
    assert s.reversed().holds()


def test_prove_by_normal_forms_forward_and_backward():
    a = pt.sum(pt.expand_dims(pt.exp(x), 0))
    b = pt.sum(pt.expand_dims(pt.exp(x), 1))
    p = relations.prove(a, b)
    assert isinstance(p, Proof) and isinstance(p, list)
    assert [s.direction for s in p] == ["forward", "backward"]
    assert all(s.holds() for s in p)
    assert p.check()
    assert follows(a, p, b)
    assert not follows(a, [], b)
    assert follows(a, [], a)
    assert "backward" in str(p)


def test_prove_equal_graphs_is_an_empty_proof():
    a = pt.sum(pt.exp(x))
    p = relations.prove(a, pt.sum(pt.exp(x)))
    assert p == [] and p is not None and p.check()


def test_prove_returns_none_for_unrelated_graphs():
    assert relations.prove(pt.sum(pt.exp(x)), pt.sum(pt.log(x)), depth=2, timeout=5) is None


def test_prove_lists():
    a = [pt.exp(m).T.T, pt.sum(pt.expand_dims(x, 0))]
    b = [pt.exp(m), pt.sum(x)]
    p = relations.prove(a, b)
    assert p is not None and p.check() and len(p) == 3


def test_prove_bad_arguments_name_the_argument():
    a = pt.sum(pt.exp(x))
    with pytest.raises(ValueError, match="depth"):
        relations.prove(a, a, depth=-1)
    with pytest.raises(ValueError, match="timeout"):
        relations.prove(a, a, timeout=0)
    with pytest.raises(TypeError, match="^a "):
        relations.prove(3, a)
    with pytest.raises(TypeError, match="^b"):
        relations.prove(a, "b")
    with pytest.raises(ValueError, match="same structure"):
        relations.prove([a], [a, a])
    with pytest.raises(TypeError, match="rules"):
        relations.explain(a, rules=3)


def test_logging_each_rewrite_and_a_summary(caplog):
    g = pt.exp(m).T.T.sum(axis=0)
    with caplog.at_level(logging.DEBUG, logger="relations"):
        relations.normalize(g)
    messages = [r.getMessage() for r in caplog.records if r.name == "relations"]
    assert any(msg.startswith("dimshuffle_composeo: ") for msg in messages)
    assert any(msg.startswith("dimshuffle_identityo: ") for msg in messages)
    summary = [msg for msg in messages if msg.startswith("normalize: ")]
    assert len(summary) == 1 and ", 2 rewrites, " in summary[0] and " nodes" in summary[0]
    assert all(r.levelno == logging.DEBUG for r in caplog.records if r.name == "relations")


def test_no_logging_above_debug(caplog):
    with caplog.at_level(logging.INFO, logger="relations"):
        relations.normalize(pt.exp(m).T.T)
    assert [r for r in caplog.records if r.name == "relations"] == []


def test_a_step_whose_built_right_side_differs_from_its_term_still_holds():
    """elemwise_set_subtensoro states f(c, s) with s 0-d; PyTensor builds f(c, ExpandDims(s)).

    Found by tests/test_explain_properties.py: the relation run with both
    graphs given does not unify the built right side with its term, so
    ``holds`` runs it from the left side and compares the answer's structure.
    """
    x0, x1 = pt.scalar("x0"), pt.scalar("x1")
    z = pt.alloc(pt.constant(0.0), pt.constant(2, dtype="int8"))
    g = pt.set_subtensor(z[[0]], pt.expand_dims(x0, 0)) / pt.expand_dims(x1, 0)
    e = relations.explain(g)
    (lift,) = [s for s in e.steps if s.rule == "elemwise_set_subtensoro"]
    assert lift.holds() and lift.reversed().holds()
    assert e.check()
    assert not Step(lift.rule, lift.relation, lift.before, pt.exp(lift.after)).holds()
    check_rewrite(g, e.result, {x0: [(), ()], x1: [(), ()]})


def test_check_values_catches_a_rule_that_is_wrong_on_values():
    a = p.var("a")
    wrong = rewrite_rule("exp_as_add_one", p.exp(a), p.add(a, 1), measure="Exp nodes (claimed)")
    e = relations.explain(pt.exp(x), rules=(wrong,))
    assert [s.rule for s in e.steps] == ["exp_as_add_one"]
    assert e.check()  # each step is an application of its rule: the rule is trusted
    assert not e.check(values=True)  # its two sides differ on values
    ce = e.steps[0].agrees()
    assert isinstance(ce, Counterexample) and ce.rule == "exp_as_add_one" and ce.index is not None
    proof = relations.prove(pt.exp(x), x + 1, rules=(wrong,))
    assert proof.check() and not proof.check(values=True)
    right = relations.explain(pt.sum(pt.expand_dims(pt.exp(x), 0)))
    assert right.check(values=True) and right.check(values=True, seed=3, rtol=1e-9)


def test_counts_and_folded_bookkeeping():
    g = pt.sum(pt.expand_dims(pt.exp(x), 0)) + (pt.exp(x) - m).sum() + (x * m).sum()
    e = relations.explain(g)
    counts = e.counts
    assert list(counts) == list(dict.fromkeys(s.rule for s in e.steps))  # order of first firing
    assert sum(counts.values()) == len(e.steps)
    assert counts["elemwise_explicito"] >= 2 and counts["careduce_dimshuffle_fullo"] == 1
    text = str(e)
    first = text.splitlines()[0]
    assert first.startswith(f"{len(e.steps)} steps: ") and "elemwise_explicito x" in first
    kept = [s for s in e.steps if not is_bookkeeping(s)]
    assert text.count("Before:") == len(kept) < len(e.steps)
    assert "bookkeeping: elemwise_explicito x" in text
    full = relations.explain(g, bookkeeping=True)
    assert str(full).count("Before:") == len(e.steps) == e.format(bookkeeping=True).count("Before:")
    assert len(str(full).splitlines()) > len(text.splitlines())
    assert {s.rule for s in e.steps if is_bookkeeping(s)} <= {r.__name__ for r in relations.LOWERING_RULES}


def test_a_step_through_a_shared_node_holds():
    """Use guards judge where a rule pays, not whether it is true: a proof may copy a shared node."""
    s = pt.alloc(pt.scalar("s0"))  # a 0-d Alloc, read twice
    g = s + s
    normal = relations.normalize(g)
    proof = relations.prove(g, normal)
    assert proof is not None and proof.check() and proof.check(values=True)
    assert all(step.holds() for step in proof)
