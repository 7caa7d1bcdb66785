"""The pattern rules of ``relations.saturate`` e-matched as queries (``relations.saturation.query_matcher``).

What is asserted: the plain pattern rules go to the query matcher and the others to the plans;
a saturated e-graph has no match of a pattern rule that adds anything, found by a naive
top-down e-matcher written here (every e-node, any depth, nothing cut); the per-iteration
e-node counts equal the query engine's own on the issue's polynomial benchmark; guards read
the classes' intervals; a constant matches through the padding an Elemwise adds; proofs
through query unions re-check; extracted forms keep types and values; a cut of the plans'
choices is named in the report.
"""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
import pytest

from relations import Limits, prove, rewrite_rule, saturate
from relations import patterns as p
from relations.lang import Family, positive
from relations.rules import RULESETS
from relations.saturation.egraph import MAX_CHOICES, EGraph
from relations.saturation.query_matcher import cast_variant, query_rules, repeats_a_variable
from tests.helpers import check_rewrite, issue42_algebra

a, b, c = p.var("a"), p.var("b"), p.var("c")

#: issue 42's 8 rules (commutativity, associativity, distributivity both ways, a - b <-> a + -b)
EIGHT = issue42_algebra()

NO_LIMITS = Limits(nodes=None, iterations=None, seconds=None, growth=None)


def _matches(eg: EGraph, pat, cls: int, binding: dict):
    """Naive top-down e-matching of ``pat`` at class ``cls``: every binding (classes of variables)."""
    cls = eg.find(cls)
    if isinstance(pat, p.PatternVar):
        if pat in binding:
            if eg.find(binding[pat]) == cls:
                yield binding
        else:
            yield {**binding, pat: cls}
        return
    for enode in eg.classes()[cls]:
        node = enode.var.owner
        if node is None or node.op != pat.make or len(enode.children) != len(pat.args):
            continue
        yield from _args(eg, pat.args, enode.children, binding)


def _args(eg: EGraph, pats, kids, binding):
    if not pats:
        yield binding
        return
    for b2 in _matches(eg, pats[0], kids[0], binding):
        yield from _args(eg, pats[1:], kids[1:], b2)


def _unapplied(eg: EGraph, rules) -> list[str]:
    """The matches of ``rules`` whose right side is not in the matched class (the e-graph grows by none)."""
    missing = []
    classes = list(eg.classes())
    for rel in rules:
        for cls in classes:
            for binding in list(_matches(eg, rel.lhs, cls, {})):
                rhs = p.build(rel.rhs, lambda v, bd=binding: eg.classes()[eg.find(bd[v])][0].var)
                if eg.class_of(rhs) != eg.find(cls):
                    missing.append(f"{rel.__name__} at class {cls}")
    return missing


def test_pattern_rules_go_to_the_query_matcher_and_goal_rules_to_the_plans():
    algebra = RULESETS["algebra"]
    queried = query_rules(algebra)
    assert 0 < len(queried) < len(algebra)
    eg = EGraph(algebra)
    elemwise = pt.elemwise.Elemwise
    planned = set(eg._forward_index(elemwise).forward(elemwise))
    assert not planned & set(queried)
    assert planned  # the goal rules of Elemwise roots
    # a guard that reads nodes (a length, an operand order) keeps its rule a plan
    assert "log_div_by_lengtho" not in {r.__name__ for r in queried}
    # a rule with a where= goal over graphs keeps running as a plan
    assert any(getattr(r, "where", ()) and r not in queried for r in algebra)


def test_a_repeated_variable_matches_constants_equal_modulo_an_exact_cast():
    x, c = p.var("x"), p.var("c")
    clip = rewrite_rule("switch_as_minimum", p.switch(p.ge(x, c), c, x), p.minimum(x, c), choice=True)
    (q,) = query_rules([clip]).values()
    assert repeats_a_variable(q) and cast_variant(q) is not None
    assert cast_variant(query_rules([EIGHT[0]])[EIGHT[0]]) is None  # add(a, b): nothing repeats
    v = pt.dvector("v")
    g = pt.switch(v >= 2, 2.0, v)  # an int8 2 in the comparison, a float64 2.0 in the branch
    eg = saturate(g, [clip], backward=False)
    assert eg.same(g, pt.minimum(v, 2))  # c is bound where it first occurs: the int8 2
    assert eg.report.stop == "saturated"
    check_rewrite(g, pt.minimum(v, 2), {v: [(4,), (1,), (0,)]})


@pytest.mark.parametrize("build", [
    lambda x, y, z: x * (y + z) - (x * y),
    lambda x, y, z: (x + y) * (y - z) + 2.0 * x,
    lambda x, y, z: (x - y) * (x - y) + z * (x + y),
])
def test_saturated_means_no_pattern_match_adds_anything(build):
    x, y, z = pt.dscalars("x", "y", "z")
    eg = saturate(build(x, y, z), EIGHT[4:], backward=False, limits=NO_LIMITS)
    assert eg.report.stop == "saturated"
    size = eg.size
    assert _unapplied(eg, EIGHT[4:]) == []
    assert eg.size == size


def test_a_run_cut_by_iterations_leaves_matches_the_naive_matcher_finds():
    # the naive matcher can fail: one iteration of distributivity over a nested product
    x, y, z = pt.dscalars("x", "y", "z")
    g = x * (y + z * (x + y))
    eg = saturate(g, EIGHT[4:5], backward=False, limits=Limits(iterations=1, nodes=None, seconds=None, growth=None))
    assert eg.report.stop == "iterations"
    assert _unapplied(eg, EIGHT[4:5]) != []


def _poly(n: int):
    """``benchmarks/egglog_algebra.py``'s ``poly(n)``: ``sum_i (x_i + x_{i+1}) * (x_{i+1} - x_{i+2}) + 2 * x_i``."""
    xs = [pt.dscalar(f"x{i}") for i in range(n + 2)]
    e = None
    for i in range(n):
        t = (xs[i] + xs[i + 1]) * (xs[i + 1] - xs[i + 2]) + 2 * xs[i]
        e = t if e is None else e + t
    return e


@pytest.mark.parametrize("n,k", [(1, 6), (2, 5)])
def test_iteration_counts_equal_the_query_engine(n, k):
    from relations.saturation.engine.egraph import EGraph as QueryEGraph
    from relations.saturation.engine.runner import Limits as RunnerLimits
    from relations.saturation.engine.runner import Runner

    g = _poly(n)
    engine = QueryEGraph()
    engine.add_graph([g])
    runner = Runner(engine, list(query_rules(EIGHT).values()), RunnerLimits(iterations=k, nodes=None, seconds=None))
    runner.run()
    eg = EGraph(EIGHT)
    eg.add(g)
    counts = []
    for _ in range(k):
        eg.run(Limits(iterations=1, nodes=None, seconds=None, growth=None), backward=False)
        counts.append(eg.size[1])
    assert counts == [it.nodes for it in runner.report.iterations]


def test_extracted_forms_keep_types_and_values_with_empty_and_unit_dimensions():
    x, y, z = pt.dvectors("x", "y", "z")
    g = x * y + x * z - x * (y - z)
    eg = saturate(g, EIGHT, backward=False, limits=Limits(nodes=3_000, iterations=6, seconds=None, growth=None))
    assert eg.report.stop in ("saturated", "nodes", "iterations")
    before = str(g)
    forms = list(eg.forms(limit=12))
    assert len(forms) > 3
    for form in forms:
        check_rewrite(g, form, {x: [(3,), (1,), (0,)], y: [(3,), (1,), (0,)], z: [(3,), (1,), (0,)]})
    assert str(g) == before  # the input graph is not changed


def test_guards_read_the_class_intervals():
    fam = Family("logs", docs="algebra.md", choice=True)
    fam.equal("log_mul", p.log(p.mul(a, b)), p.add(p.log(a), p.log(b)), where=positive(a) & positive(b))
    rules = list(fam.rules)
    assert set(query_rules(rules)) == set(rules)
    x, y = pt.dvectors("x", "y")
    pos = pt.log(pt.exp(x) * pt.exp(y))
    eg = saturate(pos, rules, backward=False)
    assert eg.same(pos, pt.log(pt.exp(x)) + pt.log(pt.exp(y)))
    unknown = pt.log(x * pt.exp(y))
    eg = saturate(unknown, rules, backward=False)
    assert not eg.same(unknown, pt.log(x) + pt.log(pt.exp(y)))
    assert eg.report.rules["log_mul"].unions == 0


def test_a_constant_matches_through_the_padding_an_elemwise_adds():
    mul_one = rewrite_rule("mul_one", p.mul(a, p.const(1)), a)
    assert query_rules([mul_one])
    x = pt.dmatrix("x")
    g = pt.exp(x * 1)
    eg = saturate(g, [mul_one], backward=False)
    assert eg.same(x * 1, x)
    assert eg.report.rules["mul_one"].unions == 1


def test_proofs_through_query_unions_recheck():
    x, y, z = pt.dscalars("x", "y", "z")
    proof = prove(x * y + x * z, x * (z + y), rules=EIGHT, limits=NO_LIMITS)
    assert proof is not None
    assert len(proof) >= 1
    assert {s.rule for s in proof} <= {"factor", "add_comm", "mul_comm", "distribute"}
    assert proof.check(values=True)


def test_a_cut_of_the_plans_choices_is_a_named_stop():
    from kanren import eq

    # a rule with a where= goal over graphs runs as a plan, on choices of input e-nodes
    swap = rewrite_rule("add_swap_planned", p.add(a, b), p.add(b, a), where=[eq(a, a)], choice=True)
    assert not query_rules([swap])
    x, y = pt.dvectors("x", "y")
    u, w = pt.exp(x), pt.exp(y)
    g = u + w
    eg = EGraph([swap])
    eg.add(g)
    for k in range(2, 2 + MAX_CHOICES):  # forms equal to u and to w, given: classes of 33 e-nodes
        eg.union(u, (u * float(k)) / float(k))
        eg.union(w, (w * float(k)) / float(k))
    eg.run(NO_LIMITS, backward=False)
    report = eg.report
    assert report.cut >= 1
    assert report.stop == "choices"
    assert f"cut at {MAX_CHOICES}" in str(report)
    # the same e-graph under the query matcher: nothing cut
    swap_q = rewrite_rule("add_swap", p.add(a, b), p.add(b, a), choice=True)
    eg = EGraph([swap_q])
    eg.add(g)
    for k in range(2, 2 + MAX_CHOICES):
        eg.union(u, (u * float(k)) / float(k))
        eg.union(w, (w * float(k)) / float(k))
    eg.run(NO_LIMITS, backward=False)
    assert eg.report.cut == 0
    assert eg.report.stop == "saturated"
    assert eg.same(g, w + u)


def test_every_query_match_is_counted_once_per_new_row():
    x, y = pt.dscalars("x", "y")
    eg = saturate(x * y, EIGHT[1:2], backward=False, limits=NO_LIMITS)
    # mul_comm: x*y matches once and makes y*x; y*x matches once and its right side is held
    assert eg.report.rules["mul_comm"].matches == 2
    assert eg.report.rules["mul_comm"].unions == 1
    assert eg.report.stop == "saturated"


def test_values_at_random_points_after_saturating_the_algebra_rules():
    rng = np.random.default_rng(0)
    x, y = pt.dvectors("x", "y")
    g = pt.log(1 + pt.exp(x)) - pt.log(pt.exp(y)) * (x - y)
    eg = saturate(g, RULESETS["algebra"], backward=False)
    assert eg.report.stop in ("saturated", "choices")
    best = eg.extract().result
    for n in (4, 1, 0):
        xv, yv = rng.normal(size=n), rng.normal(size=n)
        import pytensor

        f = pytensor.function([x, y], [g, best], mode="FAST_COMPILE")
        u, v = f(xv, yv)
        np.testing.assert_allclose(u, v)


def test_a_rule_with_too_many_matches_is_banned_then_runs_to_saturation():
    from relations.saturation.query_matcher import QueryMatcher

    xs = pt.dscalars(*[f"x{i}" for i in range(6)])
    g = xs[0]
    for v in xs[1:]:
        g = g * v
    eg = EGraph(EIGHT[1:2] + EIGHT[3:4])  # commutativity and associativity of mul: many matches
    eg.add(g)
    assert isinstance(eg._queries, QueryMatcher)
    eg._queries.scheduler.match_limit = 8  # egg's default is 1000; small here to see bans
    eg.run(NO_LIMITS, backward=False)
    report = eg.report
    assert report.bans >= 1 and "banned" in str(report)
    assert report.stop == "saturated"  # every ban was lifted and its matches found again
    assert not eg._queries.banned
    assert _unapplied(eg, EIGHT[1:2] + EIGHT[3:4]) == []


def test_a_term_that_joins_an_enode_by_its_key_joins_its_class_in_the_index():
    # ``erf(x) + 1.0`` is ``add(erf(x), ExpandDims(1.0))``, which the index reads through the padding as
    # ``add(erf(x), 1.0)``; ``erf(x) + [1.]`` is another e-node there.  Once the term e-graph holds
    # ``ExpandDims(1.0)`` and ``[1.]`` as one class, the second term joins the first's e-node by its key (no
    # union): the index must hold them as one class, or a match through it (``log(2 * erfc(-x))``) is missed
    x = pt.dvector("x")
    padded = pt.erf(x) + 1.0
    one = pt.constant(np.array([1.0], dtype=padded.owner.inputs[1].dtype))
    rule = rewrite_rule("log_two_erfc", p.log(p.mul(b, p.erfc(a))), p.add(p.log(b), p.log(p.erfc(a))), positive(b), choice=True)
    eg = EGraph([rule])
    g = pt.log(2.0 * padded)
    eg.add([g, pt.erfc(-x)])
    eg.union(padded.owner.inputs[1], one)
    joined = pt.erf(x) + one
    eg.add([joined])
    assert eg.same(joined, padded)  # one e-node in the term e-graph, joined by its key
    eg.union(joined, pt.erfc(-x))
    eg.run(NO_LIMITS, backward=False)
    assert eg.report.rules["log_two_erfc"].unions == 1
    assert eg.same(g, pt.log(2.0) + pt.log(pt.erfc(-x)))


def test_a_repeated_variable_matches_a_scalar_read_through_padding_and_a_one_element_constant():
    # ``2.0 * x`` reads the scalar ``2.0`` through the ExpandDims its make_node adds; a folded ``[2.]`` is a
    # constant of shape (1,): one value to an Elemwise, so ``b*a - a`` matches ``x * 2.0 - [2.]``
    x = pt.dvector("x")
    rule = rewrite_rule("factor_sub", p.sub(p.mul(b, a), a), p.mul(p.sub(b, 1), a), choice=True)
    g = pt.sub(pt.mul(x, 2.0), pt.constant(np.array([2.0])))
    eg = EGraph([rule])
    eg.add([g])
    eg.run(NO_LIMITS, backward=False)
    assert eg.report.rules["factor_sub"].unions == 1
    [form] = [n.var for n in eg.classes()[eg.class_of(g)] if type(n.var.owner.op.scalar_op).__name__ == "Mul"]
    v = np.array([-1.5, 0.0, 3.0])
    np.testing.assert_allclose(form.eval({x: v}), 2.0 * v - 2.0)
    other = pt.sub(pt.mul(x, 2.0), pt.constant(np.array([3.0])))  # another value: no match
    eg2 = EGraph([rule])
    eg2.add([other])
    eg2.run(NO_LIMITS, backward=False)
    assert eg2.report.rules["factor_sub"].unions == 0
