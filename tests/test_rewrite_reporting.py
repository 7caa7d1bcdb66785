"""PyTensor fidelity: stack traces kept, rewrites named where PyTensor prints or records them."""

import os

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.compile import optdb
from pytensor.compile.mode import get_default_mode, get_mode
from pytensor.graph.basic import equal_computations
from pytensor.graph.features import Feature
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import check_stack_trace
from pytensor.graph.traversal import ancestors, explicit_graph_inputs

import relations
from relations.compile import registration as rewriters
from test_explain import CASES

THIS_FILE = os.path.basename(__file__)
#: files of the engine: a trace naming them points at the toolkit, not at the user's line
ENGINE = {"search.py", "engine.py", "form_search.py", "traverse.py", "terms.py", "core.py", "explain.py"}


def user_lines(v) -> set[str]:
    """Files named in ``v``'s stack trace."""
    trace = getattr(v.tag, "trace", None) or []
    return {os.path.basename(frame[0]) for tr in trace for frame in tr}


def relational_rewriter(tag="relational"):
    return next(iter(optdb.__db__[tag]))


def run_pass(inputs, outputs, clone=True, rewriter=None, verbose=False):
    """The relational pass on a FunctionGraph of ``outputs``: the graph and the reasons it saw.

    ``verbose``: under ``optimizer_verbose`` (the pass then replays each step).
    """
    fg = FunctionGraph(inputs, outputs, clone=clone)
    reasons = Reasons()
    fg.attach_feature(reasons)
    rewriter = rewriter or relational_rewriter()
    rewriter.add_requirements(fg)
    with pytensor.config.change_flags(optimizer_verbose=verbose):
        rewriter.apply(fg)
    return fg, reasons.reasons


def compile_steps(g):
    """What the compile-time pass should do to ``g``: its rules' steps and normal form."""
    steps = [s.rule for s in relations.explain(g, rules=relations.COMPILE_RULES).steps]
    return steps, relations.normalize(g, rules=relations.COMPILE_RULES)


class Reasons(Feature):
    """Records the reason of every input change the fgraph reports."""

    def __init__(self):
        self.reasons = []

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        self.reasons.append(reason)


@pytest.mark.parametrize("name", sorted(CASES))
def test_normalize_copies_the_stack_trace_onto_new_nodes(name):
    g = CASES[name][0]()  # built on a line of test_explain.py: its trace names that file
    source = user_lines(g)
    assert source
    out = relations.normalize(g)
    for v in ancestors([out]):
        if v.owner is not None:
            assert user_lines(v) & source, (v, getattr(v.tag, "trace", None))
            assert not user_lines(v) & ENGINE, (v, getattr(v.tag, "trace", None))


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_functions_keep_stack_traces(name):
    """PyTensor's own check, on functions compiled in the default mode, where each rule fires
    (the greedy pass: ``relational`` leaves a graph as it is where the rewrite gains nothing)."""
    g = CASES[name][0]()
    assert name in [s.rule for s in relations.explain(g).steps]
    f = pytensor.function(
        list(explicit_graph_inputs([g])), g, mode=get_default_mode().including("relational_normalize")
    )
    if name in STOCK_DROPS_TRACES:
        # PyTensor's own Blockwise rewrites (BatchedDot, BlockwiseWithCoreShape), and its rewrites of a
        # division by a broadcast reduction (ExpandDims, Max, fused Sum), drop the trace with or without
        # the tag: the stock graph fails PyTensor's check too
        stock = pytensor.function(list(explicit_graph_inputs([g])), g, mode=get_default_mode())
        assert not check_stack_trace(stock, ops_to_check="all")
        assert not check_stack_trace(f, ops_to_check="all")
        return
    assert check_stack_trace(f, ops_to_check="all")


#: cases whose stock graph PyTensor compiles without stack traces on some nodes
STOCK_DROPS_TRACES = {"blockwise_explicito", "dimshuffle_through_blockwiseo", "expand_dims_through_elemwiseo"}


def test_traces_name_the_users_line_not_the_engine():
    g = pt.sum(pt.expand_dims(pt.exp(pt.vector("v")), 0))
    out = relations.normalize(g)
    assert out is not g
    files = user_lines(out)
    assert THIS_FILE in files
    assert not files & ENGINE


def test_optimizer_verbose_prints_each_rule(capsys):
    x, m = pt.vector("x", shape=(100_000,)), pt.matrix("m")  # (the Join is worth removing)
    g = pt.sum(pt.expand_dims(pt.join(0, x, pt.exp(x)), 0)) + pt.exp(m).T.T.sum(axis=0)
    with pytensor.config.change_flags(optimizer_verbose=True):
        f = pytensor.function([x, m], g, mode=get_mode("FAST_COMPILE").including("relational"))
    out = capsys.readouterr().out
    for rule in ("careduce_dimshuffle_fullo", "careduce_joino", "dimshuffle_composeo", "dimshuffle_identityo"):
        assert f"rewriting: rewrite {rule} replaces " in out
    assert "rewriting: rewrite relational replaces" not in out
    xv, mv = np.linspace(-1, 1, 100_000), np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(f(xv, mv), xv.sum() + np.exp(xv).sum() + np.exp(mv).sum(axis=0))


def test_optimizer_verbose_ignore_silences_a_rule(capsys):
    x = pt.vector("x")
    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    with pytensor.config.change_flags(
        optimizer_verbose=True, optimizer_verbose_ignore="careduce_dimshuffle_fullo"
    ):
        pytensor.function([x], g, mode=get_mode("FAST_COMPILE").including("relational"))
    assert "careduce_dimshuffle_fullo" not in capsys.readouterr().out


@pytest.mark.parametrize("tag", ["relational", "relational_normalize"])
def test_fgraph_features_see_each_rule_as_the_reason_under_optimizer_verbose(tag):
    x, m = pt.vector("x", shape=(100_000,)), pt.matrix("m")  # (the Join is worth removing)
    g = pt.join(0, x, x).sum() + pt.exp(m).T.T.sum(axis=0)
    steps, expected = compile_steps(g)
    fg, reasons = run_pass([x, m], [g], rewriter=relational_rewriter(tag), verbose=True)
    assert sorted(steps) == sorted(reasons)
    assert {"careduce_joino", "dimshuffle_composeo", "dimshuffle_identityo"} <= set(steps)
    assert equal_computations(fg.outputs, [expected], fg.inputs, [x, m])


@pytest.mark.parametrize("tag", ["relational", "relational_normalize"])
def test_without_optimizer_verbose_only_the_rewritten_variables_are_replaced(tag):
    """No replay of the steps: each variable a rule rewrote is replaced once, the other nodes stay."""
    x, m = pt.vector("x", shape=(100_000,)), pt.matrix("m")  # (the Join is worth removing)
    g = pt.join(0, x, x).sum() + pt.exp(m).T.T.sum(axis=0)
    steps, expected = compile_steps(g)
    fg = FunctionGraph([x, m], [g], clone=True)
    add = fg.outputs[0].owner
    reasons = Reasons()
    fg.attach_feature(reasons)
    rewriter = relational_rewriter(tag)
    rewriter.add_requirements(fg)
    rewriter.apply(fg)
    # the Add reads the two rewritten sums in place: one input change each, fewer than the steps
    assert reasons.reasons == [tag, tag] and len(steps) > 2
    assert fg.outputs[0].owner is add
    assert equal_computations(fg.outputs, [expected], fg.inputs, [x, m])


def test_compile_pass_falls_back_to_one_replacement(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("replay failed")

    monkeypatch.setattr(rewriters, "replay_steps", broken)
    x = pt.vector("x", shape=(100_000,))
    g = pt.sum(pt.expand_dims(pt.join(0, x, pt.exp(x)), 0))  # (the Join is worth removing)
    fg, reasons = run_pass([x], [g], verbose=True)
    assert reasons == ["relational"]
    assert equal_computations(fg.outputs, [relations.normalize(g)], fg.inputs, [x])


@pytest.mark.parametrize("verbose", [False, True])
def test_the_relational_pass_leaves_a_graph_whose_normal_form_is_predicted_costlier(verbose):
    """The Sum of a Join of two short vectors costs more as two Sums and an Add (calls, not
    elements): the greedy pass rewrites it, ``relational`` leaves every node as it is.  Of long
    vectors, the Join's copy is worth saving, and both rewrite it."""
    a, b = pt.vector("a", shape=(1,)), pt.vector("b", shape=(3,))
    g = pt.sum(pt.join(0, a, pt.exp(b)))
    fg, reasons = run_pass([a, b], [g], clone=False, verbose=verbose)
    assert reasons == [] and fg.outputs[0] is g
    fg, reasons = run_pass([a, b], [g], rewriter=relational_rewriter("relational_normalize"), verbose=verbose)
    assert reasons and equal_computations(fg.outputs, [relations.normalize(g)], fg.inputs, [a, b])
    long_a, long_b = pt.vector("a", shape=(100_000,)), pt.vector("b", shape=(100_000,))
    long_g = pt.sum(pt.join(0, long_a, pt.exp(long_b)))
    for tag in ("relational", "relational_normalize"):
        fg, reasons = run_pass([long_a, long_b], [long_g], rewriter=relational_rewriter(tag), verbose=verbose)
        assert equal_computations(fg.outputs, [relations.normalize(long_g)], fg.inputs, [long_a, long_b])


def test_graph_already_normal_is_left_alone():
    x = pt.vector("x")
    g = pt.sum(pt.exp(x))
    fg, reasons = run_pass([x], [g], clone=False)
    assert reasons == [] and fg.outputs[0] is g


def test_each_rewrite_reaches_the_fgraph_with_duplicated_sub_graphs():
    """Unmerged copies of one sub-graph: every rule's step is replayed, none falls back."""
    x, m = pt.vector("x"), pt.matrix("m")
    parts = [
        pt.exp(m).T.T.sum(axis=0) * pt.sum(pt.expand_dims(pt.exp(x), 0)) + pt.join(0, x, x).sum()
        for _ in range(3)
    ]
    g = parts[0] + parts[1] * parts[2]
    steps, expected = compile_steps(g)
    fg, reasons = run_pass([x, m], [g], verbose=True)
    assert "relational" not in reasons
    assert set(steps) == set(reasons)
    assert equal_computations(fg.outputs, [expected], fg.inputs, [x, m])
    f = pytensor.function(fg.inputs, fg.outputs[0], mode="FAST_COMPILE")
    f0 = pytensor.function([x, m], g, mode="FAST_COMPILE")
    xv, mv = np.arange(3.0), np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(f(xv, mv), f0(xv, mv))


def test_reports_steps_off_gives_one_replacement(monkeypatch):
    rewriter = relational_rewriter()
    monkeypatch.setattr(rewriter, "reports_steps", False)
    x = pt.vector("x", shape=(100_000,))
    g = pt.sum(pt.expand_dims(pt.join(0, x, pt.exp(x)), 0))  # (the Join is worth removing)
    fg, reasons = run_pass([x], [g], rewriter=rewriter)
    assert reasons == ["relational"]
    assert equal_computations(fg.outputs, [relations.normalize(g)], fg.inputs, [x])


_a = relations.patterns.var("a")
relations.register(
    [relations.rewrite_rule("log_exp_here", relations.patterns.log(relations.patterns.exp(_a)), _a)],
    tag="test_reporting_log_exp",
)


def test_a_registered_tag_names_its_rules_under_optimizer_verbose(capsys):
    x = pt.vector("x")
    g = pt.log(pt.exp(x)) * 2
    mode = get_mode("FAST_COMPILE").including("test_reporting_log_exp")
    with pytensor.config.change_flags(optimizer_verbose=True):
        f = pytensor.function([x], g, mode=mode)
    out = capsys.readouterr().out
    assert "rewriting: rewrite log_exp_here replaces Log.0" in out
    assert "rewrite test_reporting_log_exp replaces" not in out
    np.testing.assert_allclose(f(np.array([0.0, 1.5])), [0.0, 3.0])
