"""Normalized graphs with PyTensor's own tools; no effect on graphs the toolkit never touched."""

import configparser
import functools
import pathlib
import typing

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from etuples import etuple
from hypothesis import HealthCheck, given, settings
from pytensor.compile.mode import Mode
from pytensor.graph.basic import Variable, equal_computations
from pytensor.graph.replace import clone_replace
from pytensor.graph.rewriting.utils import rewrite_graph
from pytensor.graph.traversal import ancestors
from pytensor.tensor.elemwise import Elemwise
from unification import var

import relations
from graph_bridge import etuplize
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise, explicit_alloc
from graph_bridge.provenance import TAG, is_touched
from helpers import snapshot
from strategies import graphs

ROOT = pathlib.Path(__file__).resolve().parent.parent
x = pt.vector("x")
m = pt.matrix("m")


def _ops(graph):
    return [a.owner.op for a in ancestors([graph]) if a.owner is not None]


def _scalar_names(graph):
    return sorted(
        type(op.scalar_op).__name__ if isinstance(op, Elemwise) else type(op).__name__
        for op in _ops(graph)
    )


def _explicit(graph):
    return [op for op in _ops(graph) if isinstance(op, (ExplicitElemwise, ExplicitAlloc))]


# -- item 1: rewrite_graph lowers first -------------------------------------------

REWRITE_CASES = {
    "softplus": (pt.log(1 + pt.exp(x)), ("canonicalize", "stabilize"), "Softplus"),
    "softmax": (pt.exp(x) / pt.sum(pt.exp(x)), ("canonicalize", "stabilize"), "Softmax"),
    "x*2 - x*2": (x * 2 - x * 2, ("canonicalize",), None),
}


@pytest.mark.parametrize("name", list(REWRITE_CASES))
def test_rewrite_graph_on_a_normalized_graph_gives_what_it_gives_on_the_original(name):
    g, include, wanted = REWRITE_CASES[name]
    z = relations.normalize(g)
    assert _explicit(z), "the normalized graph holds explicit Ops (else the test shows nothing)"
    before = snapshot(z)
    a = rewrite_graph(g, include=include, clone=True)
    b = rewrite_graph(z, include=include, clone=True)
    assert snapshot(z) == before
    assert not _explicit(b)
    assert equal_computations([a], [b]), (pytensor.dprint(a, file="str"), pytensor.dprint(b, file="str"))
    names = _scalar_names(b)
    if wanted is not None:
        assert wanted in names
    else:  # x*2 - x*2 is zero: no Sub left
        assert "Sub" not in names
    vals = np.array([0.0, -1.5, 2.0])
    np.testing.assert_allclose(
        pytensor.function([x], b, mode="FAST_COMPILE")(vals),
        pytensor.function([x], g, mode="FAST_COMPILE")(vals),
    )


@pytest.mark.parametrize("include", [("canonicalize",), ("stabilize",), ("specialize",)])
def test_each_rewrite_query_lowers_explicit_ops(include):
    z = relations.normalize(pt.exp(x) * pt.scalar("s"))
    assert _explicit(z)
    assert not _explicit(rewrite_graph(z, include=include, clone=True))


def test_explicit_alloc_is_lowered_by_rewrite_graph():
    z = explicit_alloc(x, 2, 3)
    out = rewrite_graph(z, include=("canonicalize",), clone=True)
    assert not _explicit(out)
    np.testing.assert_allclose(
        pytensor.function([x], out, mode="FAST_COMPILE")(np.arange(3.0)), np.tile(np.arange(3.0), (2, 1))
    )


# -- item 7: no change to graphs the toolkit never touched -----------------------

b_ = pt.vector("b", dtype="bool")
c_ = pt.vector("c", dtype="bool")
s_ = pt.scalar("s")


def test_untouched_graphs_compile_as_without_the_package():
    # a bool add under a float add: the work-around would restate it as ``or``
    g = (b_ + c_) + pt.sum(x)
    f = pytensor.function([b_, c_, x], g, mode="FAST_COMPILE")
    reference = pytensor.function(
        [b_, c_, x], g, mode=Mode(linker="py", optimizer="fast_compile").excluding("lower_explicit")
    )
    assert not is_touched(f.maker.fgraph.apply_nodes)
    assert "OR" not in _scalar_names(f.maker.fgraph.outputs[0])
    assert equal_computations(f.maker.fgraph.outputs, reference.maker.fgraph.outputs)


def test_touched_graphs_get_the_work_around():
    g = (b_ + c_) + s_  # the scalar is expanded: normalize makes the add explicit
    z = relations.normalize(g)
    assert is_touched([a.owner for a in ancestors([z]) if a.owner is not None])
    f = pytensor.function([b_, c_, s_], z, mode="FAST_COMPILE")
    assert "OR" in _scalar_names(f.maker.fgraph.outputs[0])
    vals = [np.array([True, False]), np.array([True, True]), 1.0]
    ref = pytensor.function([b_, c_, s_], g, mode=Mode(linker="py", optimizer=None))(*vals)
    np.testing.assert_allclose(f(*vals), ref)


def test_normalize_tags_only_the_nodes_it_built():
    inner = pt.exp(x)
    g = pt.sum(pt.expand_dims(inner, 0))
    before = snapshot(g)
    z = relations.normalize(g)
    assert snapshot(g) == before
    assert not getattr(inner.owner.tag, TAG, False)  # kept from the user's graph
    assert getattr(z.owner.tag, TAG, False)
    assert not any(getattr(a.owner.tag, TAG, False) for a in ancestors([g]) if a.owner is not None)
    # a graph normalize leaves alone is not touched
    same = relations.normalize(inner)
    assert same is inner and not getattr(inner.owner.tag, TAG, False)


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=10))
def test_normalize_tags_exactly_the_nodes_of_the_result_that_the_graph_did_not_have(drawn):
    outputs = list(drawn.outputs)
    original = {id(a.owner) for a in ancestors(outputs) if a.owner is not None}
    before = snapshot(*outputs)
    result = relations.normalize(outputs)
    assert snapshot(*outputs) == before
    for a in ancestors(result):
        if a.owner is not None:
            assert bool(getattr(a.owner.tag, TAG, False)) is (id(a.owner) not in original), a.owner


def test_the_relational_pass_marks_what_it_rewrote():
    from pytensor.compile import optdb
    from pytensor.graph.fg import FunctionGraph

    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    fg = FunctionGraph([x], [g], clone=True)
    assert not is_touched(fg.apply_nodes)
    optdb["relational_normalize"].rewrite(fg)  # (``relational`` leaves it: a view saves < MIN_GAIN)
    assert "DimShuffle" not in _scalar_names(fg.outputs[0])
    assert is_touched(fg.apply_nodes)
    for tag in ("relational", "relational_normalize"):
        untouched = FunctionGraph([x], [pt.exp(x)], clone=True)
        optdb[tag].rewrite(untouched)
        assert not is_touched(untouched.apply_nodes)
    kept = FunctionGraph([x], [g], clone=True)
    optdb["relational"].rewrite(kept)
    assert not is_touched(kept.apply_nodes) and "DimShuffle" in _scalar_names(kept.outputs[0])


# -- item 2: rebroadcast, and the run-time message ---------------------------------

one = pt.tensor("one", shape=(1,))
y = pt.vector("y")


def _replaced():
    z = relations.normalize(one + y)
    assert isinstance(z.owner.op, ExplicitElemwise) and "1" in z.owner.op.pattern[0]
    xn = pt.vector("xn")
    return z, xn, clone_replace(z, {one: xn}, rebuild_strict=False)


def test_replacement_keeps_the_broadcast_and_the_error_says_how_to_rederive():
    z, xn, zn = _replaced()
    f = pytensor.function([xn, y], zn, mode="FAST_COMPILE")
    np.testing.assert_allclose(f(np.ones(1), np.arange(3.0)), 1 + np.arange(3.0))  # still broadcasts
    with pytest.raises(Exception) as info:
        f(np.ones(3), np.ones(3))
    message = str(info.value)
    assert "input 0" in message and "dim 0" in message and "relations.rebroadcast" in message
    assert "SpecifyShape" not in message


@pytest.mark.default_mode
def test_the_run_time_message_in_the_default_mode():
    _, xn, zn = _replaced()
    f = pytensor.function([xn, y], zn)
    with pytest.raises(Exception, match=r"relations\.rebroadcast"):
        f(np.ones(3), np.ones(3))


def test_perform_names_the_input_and_dim_too():
    _, xn, zn = _replaced()
    with pytest.raises(ValueError, match=r"input 0 of add\{1,\*\} broadcasts at output dim 0.*length 3.*rebroadcast"):
        zn.owner.op.perform(zn.owner, [np.ones(3), np.ones(3)], [[None]])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_rebroadcast_derives_the_pattern_from_the_current_types(n):
    z, xn, zn = _replaced()
    before = snapshot(zn)
    r = relations.rebroadcast(zn)
    assert snapshot(zn) == before
    assert r.owner.op.pattern == ("*", "*")
    assert r.type.ndim == zn.type.ndim and r.type.dtype == zn.type.dtype
    a, b = np.arange(float(n)), np.ones(n)
    np.testing.assert_allclose(pytensor.function([xn, y], r, mode="FAST_COMPILE")(a, b), a + b)
    # a length-1 input no longer broadcasts against a longer one: numpy's rule for (None,) inputs
    # is "lengths must match", so the stock graph raises as well
    if n == 3:
        with pytest.raises(Exception):
            pytensor.function([xn, y], r, mode="FAST_COMPILE")(np.ones(1), b)


def test_rebroadcast_of_a_graph_with_nothing_to_change_is_the_graph():
    z = relations.normalize(pt.exp(x) * s_)
    (r,) = relations.rebroadcast([z])
    assert r is z


def test_rebroadcast_rederives_an_explicit_alloc():
    z = explicit_alloc(one, 2, 3)
    assert z.owner.op.entry == "x1"
    xn = pt.vector("xn")
    zn = clone_replace(z, {one: xn}, rebuild_strict=False)
    r = relations.rebroadcast(zn)
    assert r.owner.op.entry == "x*"
    np.testing.assert_allclose(
        pytensor.function([xn], r, mode="FAST_COMPILE")(np.arange(3.0)), np.tile(np.arange(3.0), (2, 1))
    )


# -- item 3: arguments checked at the call ----------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: relations.equivalents(pt.exp(x), limit=-1), ValueError, "limit"),
        (lambda: relations.equivalents(pt.exp(x), depth="2"), ValueError, "depth"),
        (lambda: relations.equivalents(pt.exp(x), timeout=0), ValueError, "timeout"),
        (lambda: relations.equivalents(3.0), TypeError, "graph must be"),
        (lambda: relations.equivalents(pt.exp(x), rules=[1]), TypeError, "rules"),
        (lambda: relations.equivalents(pt.exp(x), progress=3), TypeError, "progress must be"),
        (lambda: relations.match(pt.exp(x), None), TypeError, "pattern must be"),
        (lambda: relations.match(pt.exp(x), etuple(var()), limit=-1), ValueError, "limit"),
        (lambda: relations.match([x], etuple(var())), TypeError, "graph must be"),
        (lambda: relations.find(pt.exp(x), "exp"), TypeError, "pattern must be"),
        (lambda: relations.find(None, etuple(var())), TypeError, "graph must be"),
        (lambda: relations.best(pt.exp(x), depth=-1), ValueError, "depth"),
        (lambda: relations.best(pt.exp(x), rules={1}), TypeError, "rules"),
        (lambda: relations.register([], tag=""), ValueError, "tag"),
        (lambda: relations.rebroadcast("z"), TypeError, "graph must be"),
    ],
)
def test_arguments_are_checked_when_the_call_is_made(call, error, message):
    with pytest.raises(error, match=message):
        call()  # no next(): the error comes from the call itself


# -- item 4: bounded memory, progress ----------------------------------------------


def test_structural_hashes_forget_dead_variables():
    import gc

    from graph_bridge.structural_keys import StructuralHashes

    hashes = StructuralHashes()
    k1 = hashes.digest(pt.exp(x) + 1)
    k2 = hashes.digest(pt.exp(x) + 1)  # another graph, same structure
    assert k1 == k2 and len(k1) == 16
    assert hashes.digest(pt.exp(x) + 2) != k1
    gc.collect()
    assert len(hashes) <= 1  # only ``x`` (alive) is left


def test_open_search_keeps_hashes_and_caps_its_frontier(monkeypatch):
    import form_search
    from form_search import equivalent_forms
    from relations.queries import progress
    from relations.rules import DEFAULT_INDEX

    monkeypatch.setattr(form_search, "MAX_FRONTIER", 5)
    monkeypatch.setattr(progress, "PROGRESS_SECONDS", 0.0)
    reports = []
    g = pt.sum(pt.exp(x) * y)
    # the breadth-first search (form_search); equivalents answers from an e-graph
    forms = [f[0] for f in equivalent_forms([g], DEFAULT_INDEX, 60, 10**6, None, reports.append)]
    assert len(forms) == 60
    assert all(isinstance(r, relations.Progress) for r in reports) and reports
    assert max(r.frontier for r in reports) <= 5
    assert [r.forms for r in reports] == sorted(r.forms for r in reports)
    # still distinct
    assert not any(equal_computations([a], [b]) for i, a in enumerate(forms) for b in forms[:i])


def test_progress_is_logged(monkeypatch, caplog):
    from form_search import equivalent_forms
    from relations.queries import progress
    from relations.rules import DEFAULT_INDEX

    monkeypatch.setattr(progress, "PROGRESS_SECONDS", 0.0)
    with caplog.at_level("INFO", logger="relations.search"):
        list(equivalent_forms([pt.sum(pt.exp(x))], DEFAULT_INDEX, 3, 2, None))
    assert any("equivalents:" in r.getMessage() for r in caplog.records)
    with caplog.at_level("INFO", logger="relations.saturation"):
        list(relations.equivalents(pt.sum(pt.exp(x)), limit=3))
    assert any("saturate: stop:" in r.getMessage() for r in caplog.records)


def test_no_progress_lines_in_a_short_search(caplog):
    with caplog.at_level("INFO", logger="relations.search"):
        list(relations.equivalents(pt.sum(pt.exp(x)), limit=3))
    assert not caplog.records


# -- item 5: best checks cost ------------------------------------------------------


@pytest.mark.parametrize(
    "result, error",
    [(None, TypeError), (np.ones(2), TypeError), ("3", TypeError), (True, TypeError), (float("nan"), ValueError)],
    ids=["None", "array", "str", "bool", "nan"],
)
def test_best_names_cost_when_it_returns_no_real_number(result, error):
    with pytest.raises(error, match="cost must return a real number"):
        relations.best(pt.sum(pt.exp(x)), cost=lambda outs: result)


def test_best_accepts_numpy_scalars_from_cost():
    g = pt.sum(pt.expand_dims(pt.exp(x), 0))
    out = relations.best(g, cost=lambda outs: np.float32(len(list(ancestors(outs)))))
    assert out.type == g.type and len(list(ancestors([out]))) <= len(list(ancestors([g])))


# -- item 6: rule validation -------------------------------------------------------


def test_a_rule_that_raises_reports_its_own_exception_with_its_traceback():
    def broken_rule(lhs, rhs):
        raise TypeError("boom inside the rule")

    with pytest.raises(TypeError, match="boom inside the rule") as info:
        relations.normalize(pt.exp(x), rules=[broken_rule])
    assert any(entry.name == "broken_rule" for entry in info.traceback)


def test_validation_calls_no_rule(capsys):
    from relations.arguments import check_relations

    calls = []

    def counting(lhs, rhs):
        calls.append(1)
        raise AssertionError("called")

    check_relations([counting])
    assert calls == []
    with pytest.raises(TypeError, match="built-in function"):  # refused from what it is, not called
        check_relations([print])
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("rules", [set(), frozenset(), {"a": 1}.keys(), {}], ids=["set", "frozenset", "keys", "dict"])
def test_unordered_rule_collections_are_refused(rules):
    with pytest.raises(TypeError, match="ordered"):
        relations.normalize(x, rules=rules)


def test_a_rule_with_the_wrong_signature_is_named():
    with pytest.raises(TypeError, match=r"rules\[1\].*not a goal constructor") as info:
        relations.normalize(x, rules=[relations.DEFAULT_RULES[0], lambda a, b, c: a])
    assert isinstance(info.value.__cause__, TypeError)


# -- item 8: register, find, version, typing ---------------------------------------

exp_t, log_t = etuplize(pt.exp), etuplize(pt.log)


def exp_logo(lhs, rhs):
    """exp(log(a)) -> a."""
    from kanren import eq

    a = var()
    from kanren import lall

    return lall(eq(lhs, etuple(exp_t, etuple(log_t, a))), eq(rhs, a))


relations.register([exp_logo], tag="test_interop_exp_log")


def test_registered_rules_run_under_their_tag_only():
    g = pt.exp(pt.log(x)) * 2
    on = pytensor.function([x], g, mode=Mode(linker="py", optimizer="fast_compile").including("test_interop_exp_log"))
    off = pytensor.function([x], g, mode=Mode(linker="py", optimizer="fast_compile"))
    assert "Exp" not in _scalar_names(on.maker.fgraph.outputs[0])
    assert "Exp" in _scalar_names(off.maker.fgraph.outputs[0])
    np.testing.assert_allclose(on(np.array([1.0, 2.0])), [2.0, 4.0])


def test_register_refuses_a_known_tag_and_bad_rules():
    with pytest.raises(ValueError, match="already registered"):
        relations.register([exp_logo], tag="test_interop_exp_log")
    with pytest.raises(ValueError, match="already registered"):
        relations.register([exp_logo], tag="fast_run")
    with pytest.raises(TypeError, match="ordered"):
        relations.register({exp_logo}, tag="test_interop_other")
    from pytensor.compile import optdb

    assert "test_interop_other" not in optdb.__db__


class _Pair:
    def __init__(self, lhs, rhs):
        self.lhs, self.rhs = lhs, rhs


@pytest.mark.parametrize(
    "bad, kind",
    [(print, "built-in"), (functools.partial(print, end=""), "built-in"), (max, "built-in"), (_Pair, "class")],
    ids=["print", "partial_of_print", "max", "class"],
)
def test_register_refuses_what_cannot_be_a_relation_without_calling_it(bad, kind, capsys):
    from pytensor.compile import optdb

    with pytest.raises(TypeError, match=rf"rules\[1\] .* is (a )?{kind}.*not a goal constructor"):
        relations.register([exp_logo, bad], tag="test_interop_refused")
    assert capsys.readouterr().out == ""  # print was not called
    assert "test_interop_refused" not in optdb.__db__
    with pytest.raises(TypeError, match=r"rules\[0\]"):
        relations.normalize(pt.exp(x), rules=[bad])  # the same check everywhere rules are taken
    assert capsys.readouterr().out == ""


def test_find_yields_every_matching_node_lazily():
    a = var()
    g = pt.sum(pt.exp(x)) + pt.exp(pt.exp(y))
    found = relations.find(g, etuple(exp_t, a))
    first = next(found)  # a generator: one answer at a time
    rest = list(found)
    got = [first, *rest]
    assert all(isinstance(f, relations.Found) for f in got)
    assert {f.bindings[a].name for f in got if f.bindings[a].name} == {"x", "y"}
    assert len(got) == 3
    for f in got:
        assert f.variable.owner.op == pt.exp(x).owner.op
        assert f.bindings[a] is f.variable.owner.inputs[0]


def test_find_in_a_deep_graph_does_not_walk_it_all_first():
    g = x
    for _ in range(3000):
        g = pt.exp(g)
    a = var()
    found = relations.find(g, etuple(exp_t, a))
    assert next(found).variable is g  # the outermost first


def test_find_and_match_agree_at_the_root():
    a = var()
    g = pt.exp(x)
    assert [f.bindings for f in relations.find(g, etuple(exp_t, a))][0][a] is x
    assert next(relations.match(g, etuple(exp_t, a)))[a] is x


def test_version_and_py_typed():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert relations.__version__ == cfg["metadata"]["version"]
    assert (ROOT / "relations" / "py.typed").exists()
    assert (ROOT / "graph_bridge" / "py.typed").exists()
    assert "py.typed" in cfg["options.package_data"]["relations"]


@pytest.mark.parametrize(
    "fn", ["normalize", "lower", "equivalents", "match", "best", "find", "rebroadcast", "register", "mode"]
)
def test_public_calls_have_precise_type_hints(fn):
    hints = typing.get_type_hints(getattr(relations, fn))
    assert "return" in hints
    for name, hint in hints.items():
        assert hint is not typing.Any or name == "pattern", (fn, name)


def test_graph_hint_is_a_variable_or_a_list_of_them():
    hints = typing.get_type_hints(relations.normalize)
    assert hints["graph"] is relations.Graph
    assert set(relations.Graph.__constraints__) == {Variable, list[Variable], tuple[Variable, ...]}


def test_mode_includes_the_tag_and_names_unknown_ones():
    from pytensor.compile.mode import get_default_mode, get_mode

    m = relations.mode()
    assert "relational" in m.provided_optimizer.include
    assert type(m.linker) is type(get_default_mode().linker)
    fast = relations.mode("test_interop_exp_log", base="FAST_COMPILE")
    assert "test_interop_exp_log" in fast.provided_optimizer.include
    assert type(fast.linker) is type(get_mode("FAST_COMPILE").linker)
    g = pt.exp(pt.log(x)) * 2
    f = pytensor.function([x], g, mode=relations.mode("test_interop_exp_log", base=Mode(linker="py", optimizer="fast_compile")))
    assert "Exp" not in _scalar_names(f.maker.fgraph.outputs[0])
    with pytest.raises(ValueError, match=r"tags\[1\] = 'relationl' is not registered"):
        relations.mode("relational", "relationl")
    with pytest.raises(TypeError, match=r"tags\[0\]"):
        relations.mode(3)
    with pytest.raises(TypeError, match="base"):
        relations.mode(base=3)
