"""Rewrites never duplicate a shared sub-graph (pytensor #2138's LKJCorr logp + dlogp).

A rule that moves an Elemwise or a reduction through a node applies only
where that node has one use in the graph being rewritten
(``graph_bridge.single_useo``); the use counts come from
``graph_bridge.GraphContext`` and stay exact while ``normalize`` changes the
graph.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from kanren import run
from pytensor.compile.mode import get_default_mode
from pytensor.graph.basic import NominalVariable, equal_computations
from pytensor.graph.traversal import ancestors, graph_inputs
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.subtensor import AdvancedIncSubtensor, IncSubtensor
from unification import var

import relations
from graph_bridge import (
    ExplicitAlloc,
    GraphContext,
    NoGraphContext,
    etuplize,
    graph_context,
    single_useo,
    useso,
)
from graph_bridge.traverse import count_nodes, owned_variables
from helpers import assert_no_kind_grows, backward, check_rewrite, forward, holds, snapshot, whole_passes
from relations.greedy import fixpoint as engine
from relations.greedy.fixpoint import Normalizer
from relations.rules import DEFAULT_INDEX
from relations.rules.dimshuffle import careduce_dimshuffle_partialo
from relations.rules.lift import elemwise_alloco, elemwise_set_subtensoro
from relations.saturation.costs import elements_touched


def lkj_factor(n: int):
    params = pt.vector("params")
    L = pt.zeros((n, n))
    L = pt.set_subtensor(L[np.tril_indices(n, -1)], params)
    L = pt.set_subtensor(L[np.diag_indices(n)], 1)
    return params, L


def count(outputs, cls) -> int:
    return sum(1 for v in ancestors(list(outputs)) if v.owner is not None and isinstance(v.owner.op, cls))


# ------------------------------------------------------------- the fact itself


class TestGraphContext:
    def test_counts_each_input_slot_and_each_output(self):
        x = pt.vector("x")
        e = pt.exp(x)
        y = e * e  # one node, two slots
        z = pt.log(e)
        ctx = GraphContext([y, z, e])
        assert ctx.uses(e) == 4  # two slots of mul, log, and an output
        assert ctx.uses(x) == 1
        assert ctx.uses(y) == 1 and ctx.uses(z) == 1
        assert ctx.uses(pt.vector("new")) == 1  # not in the graph: new, one use

    def test_replace_keeps_counts_exact(self):
        x = pt.vector("x")
        a = pt.exp(x)
        b = pt.log(a)
        ctx = GraphContext([b])
        new = pt.sqr(x)  # b's replacement reads x directly; exp(x) becomes unused
        ctx.replace(b, new)
        assert ctx.uses(new) == 1
        assert ctx.uses(a) == 0
        assert ctx.uses(x) == 1  # lost exp's use, gained sqr's

    @pytest.mark.parametrize("n", [3, 5])
    def test_normalize_keeps_the_counts_of_the_graph_it_builds(self, n):
        params, L = lkj_factor(n)
        outs = [pt.sum(pt.log1p(-pt.sqr(L))), pt.exp(pt.sum(pt.expand_dims(L, 0), axis=(0, 2)))]
        norm = Normalizer(DEFAULT_INDEX, GraphContext(outs))
        with graph_context(norm.context):
            result = [norm.normal(o) for o in outs]
        fresh = GraphContext(result)
        for v in owned_variables(result):
            for u in (v, *v.owner.inputs):  # a later pass goes on with these counts
                assert norm.context.uses(u) == fresh.uses(u), u
                assert norm.context.other_uses(u) == fresh.other_uses(u), u

    def test_inputs_equal_by_value_are_counted_and_normalized_apart(self):
        # the counts and the normalizer's memo are keyed by the variables;
        # NominalVariable is PyTensor's one Variable that compares by value
        # (interned per id and type): two of them stay two inputs
        vec = pt.TensorType("float64", shape=(None,))
        a, b = NominalVariable(0, vec), NominalVariable(1, vec)
        assert NominalVariable(0, vec) is a and a != b
        y = pt.exp(a)[None, :] + b  # a stock add over an ExpandDims: normalize rewrites it
        ctx = GraphContext([y, pt.log(a)])
        assert ctx.uses(a) == 2 and ctx.uses(b) == 1
        (out,) = relations.normalize([y])
        assert out is not y
        assert {v for v in graph_inputs([out])} == {a, b}
        f = pytensor.function([a, b], [y, out], mode="FAST_COMPILE")
        rng = np.random.default_rng(0)
        for n in (0, 1, 3):
            want, got = f(rng.normal(size=n), rng.normal(size=n))
            np.testing.assert_allclose(got, want)
            assert got.shape == want.shape

    def test_counts_the_nodes_of_the_graph_it_is_built_from(self):
        params, L = lkj_factor(3)
        q, r = pt.linalg.qr(pt.exp(L))  # one node, two outputs
        outs = [pt.sum(q), r, pt.sum(q)]
        assert GraphContext(outs).nodes == count_nodes(outs)
        assert GraphContext([]).nodes == 0

    def test_a_refusal_is_noted_at_the_variable_whose_rules_asked(self):
        x = pt.vector("x")
        e = pt.exp(x)
        y, z = pt.log(e), pt.sqr(e)
        ctx = GraphContext([y, z])
        ctx.asking = y
        with graph_context(ctx):
            assert run(1, var(), single_useo(etuplize(e))) == ()  # e has two uses
        assert ctx.refused_at(y) and not ctx.refused_at(z) and not ctx.loosened()
        ctx.replace(z, pt.sqr(x))  # z lets go of e
        assert ctx.uses(e) == 1 and ctx.loosened()
        ctx.forget_refusals()
        assert not ctx.refused_at(y) and not ctx.loosened()


class TestFact:
    def test_useso_reads_the_count_and_waits_for_a_ground_term(self):
        x = pt.vector("x")
        e = pt.exp(x)
        n = var()
        with graph_context([e + 1, e * 2]):
            assert run(1, n, useso(etuplize(e), n)) == (2,)
            assert run(1, n, single_useo(etuplize(e))) == ()
        q = var()
        with graph_context([e]):
            from logic_core.goals import lall_ready
            from logic_core.unifier import eq
            # the guard waits until q is bound, then holds
            assert run(1, q, lall_ready(single_useo(q), eq(q, etuplize(e)))) != ()

    def test_a_term_the_relation_builds_is_used_once_without_a_graph(self):
        from graph_bridge import op_term, term

        built = term(op_term(pt.exp(pt.vector()).owner.op), pt.vector("y"))
        assert run(1, var(), single_useo(built)) != ()

    def test_an_existing_variable_without_a_graph_says_so(self):
        e = pt.exp(pt.vector("x"))
        with pytest.raises(NoGraphContext, match="graph_context"):
            run(1, var(), single_useo(etuplize(e)))


# ----------------------------------------------------------------- the rules


class TestSetLift:
    def test_shared_set_is_left_alone_forward_and_check(self):
        params, L = lkj_factor(4)
        y = pt.sqr(L)
        assert forward(elemwise_set_subtensoro, y)  # alone: lifts
        lifted = forward(elemwise_set_subtensoro, y)[0]
        with graph_context([y, L]):  # L also an output
            q = var()
            assert run(1, q, elemwise_set_subtensoro(etuplize(y), q)) == ()
            assert run(1, q, elemwise_set_subtensoro(etuplize(y), etuplize(lifted))) == ()
        assert holds(elemwise_set_subtensoro, y, lifted)

    def test_backward_builds_the_set_it_guards(self):
        params, L = lkj_factor(4)
        y = pt.sqr(L)
        lifted = forward(elemwise_set_subtensoro, y)[0]
        pre = backward(elemwise_set_subtensoro, lifted)
        assert any(type(p.owner.op) is Elemwise and p.owner.op.scalar_op == y.owner.op.scalar_op for p in pre)

    @pytest.mark.parametrize("n", [1, 4])
    def test_logp_and_gradient_normalize_without_duplicating_sets(self, n):
        params, L = lkj_factor(n)
        logp = pt.sum(pt.log1p(-pt.sqr(L) * 0.5))
        dlogp = pytensor.grad(logp, params)
        outs = [logp, dlogp]
        before = snapshot(*outs)
        new = relations.normalize(outs)
        assert snapshot(*outs) == before
        assert count(new, AdvancedIncSubtensor) <= count(outs, AdvancedIncSubtensor)
        assert_no_kind_grows(outs, new)
        k = n * (n - 1) // 2
        check_rewrite(outs, new, {params: [(k,)]})

    def test_shared_set_used_by_two_elemwise_values_agree(self):
        x = pt.vector("x")
        s = pt.set_subtensor(pt.zeros(4)[1:], x)
        outs = [pt.exp(s), pt.sqr(s)]
        new = relations.normalize(outs)
        assert count(new, IncSubtensor) == 1
        check_rewrite(outs, new, {x: [(3,), (3,)]})
        with pytest.raises(ValueError):  # length mismatch raises on both sides alike
            pytensor.function([x], new, mode="FAST_COMPILE")(np.ones(2))


class TestAllocLift:
    def test_shared_alloc_is_left_alone(self):
        s = pt.scalar("s")
        a = pt.alloc(s, 3, 2)
        y = pt.exp(a)
        assert forward(elemwise_alloco, y)
        with graph_context([y, a]):
            assert run(1, var(), elemwise_alloco(etuplize(y), var())) == ()
        outs = [y, a.sum()]
        new = relations.normalize(outs)
        assert count(new, (Alloc, ExplicitAlloc)) == 1
        check_rewrite(outs, new, {s: [()]})


class TestPartialReduction:
    def test_shared_dimshuffle_is_not_moved_above_the_reduction(self):
        m = pt.matrix("m")
        e = pt.expand_dims(m, 0)
        y = pt.sum(e, axis=2)
        assert forward(careduce_dimshuffle_partialo, y)
        with graph_context([y, e]):
            assert run(1, var(), careduce_dimshuffle_partialo(etuplize(y), var())) == ()
        outs = [y, e]  # e is an output: it stays, so it is not moved
        new = relations.normalize(outs)
        assert count(new, DimShuffle) <= count(outs, DimShuffle)
        check_rewrite(outs, new, {m: [(0, 3), (1, 1), (2, 3)]})

    def test_a_dimshuffle_every_use_of_which_takes_it_over_moves(self):
        m = pt.matrix("m")
        e = pt.expand_dims(m, 0)
        outs = [pt.sum(e, axis=2), pt.exp(e)]  # a reduction and an Elemwise: both take it
        new = relations.normalize(outs)
        assert_no_kind_grows(outs, new)  # one view per output now: views compute nothing
        assert all(not (v.owner and v.owner.inputs and v.owner.inputs[0] is e) for v in ancestors(new))
        check_rewrite(outs, new, {m: [(0, 3), (1, 1), (2, 3)]})


class TestPasses:
    def test_a_guard_refused_in_one_pass_is_tried_again_when_the_use_is_gone(self):
        # bottom-up, Sum sees the ExpandDims used twice (by itself and by a Join);
        # the Join's reduction then splits and lets go of it: a second pass moves it
        x = pt.vector("x")
        e = pt.expand_dims(x, 0)
        j = pt.join(0, e, e)
        outs = [pt.sum(e, axis=1), pt.sum(j)]
        new = relations.normalize(outs)
        again = relations.normalize(new)
        assert again[0] is new[0] and again[1] is new[1]
        check_rewrite(outs, new, {x: [(0,), (1,), (3,)]})

    @pytest.mark.parametrize("case", ["join", "join_above", "join_beside", "lkj"])
    def test_a_later_pass_gives_what_a_whole_new_pass_gives(self, case):
        outs, shapes = repass_cases()[case]
        new = relations.normalize(outs)
        reference = whole_passes(outs)
        assert equal_computations(new, reference)
        assert count_nodes(new) == count_nodes(reference)  # the same sharing, too
        again = relations.normalize(new)
        assert all(a is b for a, b in zip(again, new))
        check_rewrite(outs, new, shapes)

    @pytest.mark.parametrize("case", ["join_beside", "lkj"])
    def test_a_later_pass_asks_again_only_the_nodes_where_a_guard_refused(self, case, monkeypatch):
        outs, _ = repass_cases()[case]
        asked, refused, passes = [], [], []
        # the normalizer asks a node's rules through the rules' forward runs
        first_rewrite, note, next_pass = engine._first_forward_rewrite, GraphContext.refused, Normalizer.next_pass

        def spy(v, runs):
            asked.append(v)
            return first_rewrite(v, runs)

        def noted(self, v):
            refused.append(self.asking)
            note(self, v)

        def mark(self):
            passes.append((len(asked), len(refused)))
            next_pass(self)

        monkeypatch.setattr(engine, "_first_forward_rewrite", spy)
        monkeypatch.setattr(GraphContext, "refused", noted)
        monkeypatch.setattr(Normalizer, "next_pass", mark)
        new = relations.normalize(outs)
        assert len(passes) == 1  # two passes
        in_first, in_second = asked[: passes[0][0]], asked[passes[0][0] :]
        refused_first = refused[: passes[0][1]]
        asked_again = [v for v in in_second if any(v is u for u in in_first)]
        assert asked_again and all(any(v is r for r in refused_first) for v in asked_again)
        assert len(in_second) < len(in_first)
        if case == "join_beside":
            # the refused Sum first, then the nodes built above it: its rewrite, the Exp over it
            assert asked_again == [outs[0].owner.inputs[0].owner.inputs[0]] == in_second[:1]
            assert len(in_second) > 2
            sum_y = outs[0].owner.inputs[1].owner.inputs[0]
            assert any(v is sum_y for v in ancestors(new))  # the same node
        else:
            assert in_second == asked_again  # nothing was rewritten: nothing new to ask


def repass_cases() -> dict[str, tuple[list, dict]]:
    """Graphs where a use guard refuses a node that a rewrite above later lets go of.

    Each: the outputs, and the run-time shapes of the inputs (``check_rewrite``).
    The ExpandDims ``e`` is read by a Sum and twice by a Join; the Join's Sum
    splits and lets go of it, after the first Sum was refused.
    """
    x, y = pt.vector("x"), pt.vector("y")
    e = pt.expand_dims(x, 0)
    split = pt.sum(pt.join(0, e, e))
    params, L = lkj_factor(3)
    return {
        "join": ([pt.sum(e, axis=1), split], {x: [(0,), (1,), (3,)]}),
        # the Exp above the refused Sum is rebuilt and rewritten in the second pass
        "join_above": ([pt.exp(pt.sum(e, axis=1)), split], {x: [(1,), (3,)]}),
        # ... and a branch beside it stays as it is
        "join_beside": ([pt.exp(pt.sum(e, axis=1)) * pt.sum(y), split], {x: [(1,), (3,)], y: [(2,), (2,)]}),
        # a second pass that finds nothing to rewrite
        "lkj": (
            [pt.sum(pt.log1p(-pt.sqr(L) * 0.5)), pt.exp(pt.sum(pt.expand_dims(L, 0), axis=(0, 2)))],
            {params: [(3,)]},
        ),
    }


class TestQueriesAndCompile:
    def test_a_lift_through_a_shared_set_is_a_form_of_the_egraph_not_of_the_search(self):
        # the breadth-first search keeps the use guards: no form lifts through the shared set;
        # the e-graph (equivalents) has the lift, and extraction (best) weighs it
        from form_search import equivalent_forms

        params, L = lkj_factor(3)
        outs = [pt.sqr(L), L]
        sets = count(outs, AdvancedIncSubtensor)
        for form in equivalent_forms(outs, DEFAULT_INDEX, 30, 1, None):
            assert count(form, AdvancedIncSubtensor) <= sets
        forward = list(relations.saturate(outs, backward=False).forms(limit=None))
        assert any(count(f, AdvancedIncSubtensor) > sets for f in forward)
        equivalent = relations.equivalents(outs, limit=None, depth=1, rules=relations.RULESETS["lift"])
        assert any(count(f, AdvancedIncSubtensor) > sets for f in equivalent)
        b = relations.best(outs)
        assert elements_touched(b) <= elements_touched(relations.normalize(outs))

    @pytest.mark.default_mode
    def test_compiled_with_the_tag_has_no_more_sets(self):
        params, L = lkj_factor(5)
        logp = pt.sum(pt.log1p(-pt.sqr(L) * 0.5))
        outs = [logp, pytensor.grad(logp, params)]
        mode = get_default_mode().excluding("fusion")
        plain = pytensor.function([params], outs, mode=mode)
        tagged = pytensor.function([params], outs, mode=mode.including("relational"))

        def sets(fn):
            return sum(isinstance(n.op, AdvancedIncSubtensor) for n in fn.maker.fgraph.apply_nodes)

        assert sets(tagged) <= sets(plain)
        p = np.linspace(-0.4, 0.4, 10)
        for a, b in zip(plain(p), tagged(p)):
            np.testing.assert_allclose(a, b)
