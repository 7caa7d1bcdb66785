"""The query engine (``relations.saturation.engine``): e-graph invariants, semi-naive = naive matching,
extracted forms keep values and types, analyses sound on values, limits and the scheduler named."""

from __future__ import annotations

import random

import mpmath
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.interval_type import Interval
from relations import patterns as p
from relations.saturation.engine.analysis import IntervalAnalysis, class_interval, positive
from relations.saturation.engine.egraph import CLASS_SHIFT, EGraph
from relations.saturation.engine.extract import extract
from relations.saturation.engine.query import QueryRule, UnsupportedRule, query_rule
from relations.saturation.engine.runner import BackoffScheduler, Limits, Runner

a, b, c = p.var("a"), p.var("b"), p.var("c")

#: issue 42's 8 algebra rules, declared as rewrite_rule choices
ALGEBRA = [
    relations.rewrite_rule("add_comm", p.add(a, b), p.add(b, a), choice=True),
    relations.rewrite_rule("mul_comm", p.mul(a, b), p.mul(b, a), choice=True),
    relations.rewrite_rule("add_assoc", p.add(a, p.add(b, c)), p.add(p.add(a, b), c), choice=True),
    relations.rewrite_rule("mul_assoc", p.mul(a, p.mul(b, c)), p.mul(p.mul(a, b), c), choice=True),
    relations.rewrite_rule("distribute", p.mul(a, p.add(b, c)), p.add(p.mul(a, b), p.mul(a, c)), choice=True),
    relations.rewrite_rule("factor", p.add(p.mul(a, b), p.mul(a, c)), p.mul(a, p.add(b, c)), choice=True),
    relations.rewrite_rule("sub_to_add", p.sub(a, b), p.add(a, p.neg(b)), choice=True),
    relations.rewrite_rule("add_to_sub", p.add(a, p.neg(b)), p.sub(a, b), choice=True),
]
RULES = [query_rule(r) for r in ALGEBRA]
MODE = "FAST_COMPILE"
SEEDS = range(12)


def _inputs():
    return [pt.vector("x"), pt.vector("y"), pt.matrix("m")]


def _draw(rng: random.Random, leaves: list, depth: int, unary: tuple = ("neg",)):
    """A random expression of ``add``, ``mul``, ``sub`` and ``unary`` ops over ``leaves`` and constants."""
    if depth == 0 or rng.random() < 0.25:
        k = rng.randrange(len(leaves) + 2)
        return leaves[k] if k < len(leaves) else pt.constant([2.0, 0.5][k - len(leaves)])
    op = rng.choice(("add", "mul", "sub", *unary))
    if op in ("add", "mul", "sub"):
        return getattr(pt, op)(_draw(rng, leaves, depth - 1, unary), _draw(rng, leaves, depth - 1, unary))
    return getattr(pt, op)(_draw(rng, leaves, depth - 1, unary))


def _values(ins, outs, n: int, rng: np.random.Generator, low: float = -3.0, high: float = 3.0):
    f = pytensor.function(ins, outs, mode=MODE, on_unused_input="ignore")
    args = [rng.uniform(low, high, size=(n,) * i.type.ndim) for i in ins]
    return f(*args)


def check_invariants(eg: EGraph) -> None:
    """Hash-cons canonical (so congruence closed), every live e-node in its class's list (and nothing else
    there) and its children's parents."""
    for n, v in eg.hashcons.items():
        cls = v >> CLASS_SHIFT
        assert eg.find(cls) == cls, f"{n} maps to a non-root class"
        assert all(eg.find(k) == k for k in n[1:]), f"{n} is not canonical"
        assert n in eg.nodes[cls]
        for k in n[1:]:
            assert n in eg.parents[k]
    live_per_class: dict[int, int] = {}
    for v in eg.hashcons.values():
        live_per_class[v >> CLASS_SHIFT] = live_per_class.get(v >> CLASS_SHIFT, 0) + 1
    assert len(live_per_class) == eg.n_classes
    for c in live_per_class:  # a root's nodes list holds its live e-nodes only (searches read it without a look-up)
        assert all(eg.hashcons.get(n, -1) >> CLASS_SHIFT == c for n in eg.nodes[c]), c
        live_parents = [n for n in eg.parents[c] if n in eg.hashcons]
        assert len(live_parents) == len(set(live_parents)), c  # each once: a search does not deduplicate them


def _label(eg: EGraph, oid: int) -> tuple:
    kind = eg.ops[oid]
    if kind[0] == "leaf":
        v = kind[1]
        return ("leaf", str(v.type), v.name or np.asarray(v.data).tobytes())
    return (str(kind[1]), kind[2], kind[3])


def _signature(eg: EGraph) -> list:
    """The e-graph up to class and op ids: per class, the sorted ops of its e-nodes, with its children's sizes."""
    sizes = {c: len(eg.class_nodes(c)) for c in {v >> CLASS_SHIFT for v in eg.hashcons.values()}}
    per_class: dict[int, list] = {}
    for n, v in eg.hashcons.items():
        per_class.setdefault(v >> CLASS_SHIFT, []).append((_label(eg, n[0]), tuple(sizes[k] for k in n[1:])))
    return sorted(tuple(sorted(x)) for x in per_class.values())


#: rules with constants on both sides (constant atoms in the query; a constant built for the right side)
DOUBLING = [
    QueryRule("twice_to_sum", p.mul(a, 2.0), p.add(a, a)),
    QueryRule("sum_to_twice", p.add(a, a), p.mul(a, 2.0)),
    QueryRule("half_twice", p.mul(p.mul(a, 0.5), 2.0), a),
]


def _saturated(outs, k: int, naive: bool = False, scheduler=None, limits=None, rules=None):
    eg = EGraph()
    roots = eg.add_graph(outs)
    runner = Runner(eg, rules or RULES, limits or Limits(iterations=k, nodes=None, seconds=None), scheduler,
                    naive=naive)
    runner.run()
    return eg, roots, runner.report


@pytest.mark.parametrize("seed", SEEDS)
def test_invariants_after_rebuild(seed):
    rng = random.Random(seed)
    g = _draw(rng, _inputs(), 3)
    eg, _, report = _saturated([g], 4)
    check_invariants(eg)
    assert report.stop in ("saturated", "iteration limit")


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("extra", [False, True])
def test_semi_naive_finds_the_naive_egraph(seed, extra):
    rng = random.Random(seed)
    g = _draw(rng, _inputs(), 3)
    rules = RULES + DOUBLING if extra else RULES
    semi, _, r1 = _saturated([g], 4, rules=rules)
    naive, _, r2 = _saturated([g], 4, naive=True, rules=rules)
    assert [(it.nodes, it.classes) for it in r1.iterations] == [(it.nodes, it.classes) for it in r2.iterations]
    assert _signature(semi) == _signature(naive)
    # the semi-naive search finds fewer (or as many) matches: only new ones
    assert sum(sum(it.matches.values()) for it in r1.iterations) <= sum(
        sum(it.matches.values()) for it in r2.iterations)


def _forms(eg, root, rng: random.Random, count: int):
    """``count`` extracted forms of ``root``: the smallest tree, then trees under random e-node costs."""
    yield extract(eg, [root])[0]
    for _ in range(count - 1):
        weights: dict = {}
        yield extract(eg, [root], lambda n, w=weights: w.setdefault(n, rng.uniform(0.5, 2.0)))[0]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [0, 1, 3])
def test_extracted_forms_keep_values_and_types(seed, n):
    rng = random.Random(seed)
    ins = _inputs()
    g = _draw(rng, ins, 3)
    before = pytensor.dprint(g, file="str")
    eg, (root,), _ = _saturated([g], 3)
    forms = list(_forms(eg, root, rng, 4))
    want = _values(ins, [g], n, np.random.default_rng(seed))[0]
    got = _values(ins, forms, n, np.random.default_rng(seed))
    for form, value in zip(forms, got):
        assert form.type.dtype == g.type.dtype and form.type.broadcastable == g.type.broadcastable
        np.testing.assert_allclose(value, want, rtol=1e-9, atol=1e-9)
    assert pytensor.dprint(g, file="str") == before  # the input graph is not mutated


def test_forward_backward_and_check():
    x, y, z = pt.vectors("x", "y", "z")
    lhs, rhs = x * (y + z), x * y + x * z
    for start, other in ((lhs, rhs), (rhs, lhs)):  # forward (distribute), backward (factor)
        eg, (root,), _ = _saturated([start], 2)
        cand = eg.add_graph([other])[0]
        eg.rebuild()
        assert eg.find(root) == eg.find(cand)
    eg = EGraph()
    r1, r2 = eg.add_graph([lhs, rhs])
    Runner(eg, RULES, Limits(iterations=1, nodes=None, seconds=None)).run()
    path = eg.explain(r1, r2)  # as a check: the proof names the rule and the match
    assert path and {why[0] for _, _, why in path} & {"distribute", "factor"}
    assert eg.explain(r1, eg.add_graph([x])[0]) is None


def _all_vars(g):
    from pytensor.graph.traversal import ancestors

    return [v for v in ancestors([g]) if v.owner is not None or v.name is not None]


UNARY = ("neg", "exp", "log", "log1p", "expm1", "sqrt", "sqr", "abs", "sigmoid", "softplus", "erf", "erfc", "tanh")


#: the drawn ops in real arithmetic (mpmath, 50 digits): ``None`` where the real function is not defined
_REAL = {
    "Add": lambda x, y: x + y, "Sub": lambda x, y: x - y, "Mul": lambda x, y: x * y, "Neg": lambda x: -x,
    "Exp": mpmath.exp, "Log": lambda x: mpmath.log(x) if x > 0 else None,
    "Log1p": lambda x: mpmath.log1p(x) if x > -1 else None, "Expm1": mpmath.expm1,
    "Sqrt": lambda x: mpmath.sqrt(x) if x >= 0 else None, "Sqr": lambda x: x * x, "Abs": abs,
    "Sigmoid": lambda x: 1 / (1 + mpmath.exp(-x)), "Softplus": lambda x: mpmath.log1p(mpmath.exp(x)),
    "Erf": mpmath.erf, "Erfc": mpmath.erfc, "Tanh": mpmath.tanh,
}


def _real_values(ins, subs, args):
    """The values of ``subs`` at ``args`` in real arithmetic, per element (``None``: undefined, or
    beyond 10**100, where mpmath would need thousands of digits for the next ``exp``)."""
    from pytensor.graph.traversal import toposort

    with mpmath.workdps(50):
        n = len(args[0])
        known = {i: [mpmath.mpf(float(v)) for v in a] for i, a in zip(ins, args)}

        def of(v):
            if v not in known:
                known[v] = [mpmath.mpf(float(np.asarray(v.data)))] * n  # a scalar constant
            return known[v]

        for node in toposort(subs):
            if not hasattr(node.op, "scalar_op"):  # a constant's broadcasting DimShuffle
                known[node.outputs[0]] = of(node.inputs[0])
                continue
            f = _REAL[type(node.op.scalar_op).__name__]
            cols = [of(i) for i in node.inputs]
            out = []
            for xs in zip(*cols):
                r = None if any(x is None for x in xs) else f(*xs)
                out.append(None if r is None or abs(r) > mpmath.mpf(10) ** 100 else r)
            known[node.outputs[0]] = out
        return [known[v] for v in subs]


@pytest.mark.parametrize("seed", range(60))
def test_analyses_sound_on_values(seed):
    """Every class's interval holds its e-nodes' values: in real arithmetic (mpmath; a positive class
    has no value 0), and its closure holds the float64 values (``exp(-800)`` is 0 in floats)."""
    rng = random.Random(seed)
    ins = [pt.vector("x"), pt.vector("y")]
    g = _draw(rng, ins, 4, UNARY)
    subs = _all_vars(g)
    eg = EGraph()
    classes = eg.add_graph(subs)
    Runner(eg, RULES, Limits(iterations=2, nodes=2000, seconds=None)).run()
    for low, high in ((-3.0, 3.0), (-1e-3, 1e-3), (50.0, 800.0), (-800.0, -50.0)):
        args = [np.random.default_rng(seed).uniform(low, high, size=5) for _ in ins]
        with np.errstate(all="ignore"):
            values = pytensor.function(ins, subs, mode=MODE, on_unused_input="ignore")(*args)
        reals = _real_values(ins, subs, args)
        for cls, v, real in zip(classes, values, reals):
            d = class_interval(eg, cls)
            if d == Interval():
                continue
            v = np.asarray(v, dtype="float64")
            v = v[~np.isnan(v)]
            assert np.all(v >= d.lo) and np.all(v <= d.hi), (cls, d, v)
            for r in real:  # an open end at 0 is checked strictly (50 digits round 1 - e**-800 to 1, not e**-800 to 0)
                if r is not None:
                    assert (r > d.lo if d.lo_open and d.lo == 0 else r >= d.lo), (cls, d, r)
                    assert (r < d.hi if d.hi_open and d.hi == 0 else r <= d.hi), (cls, d, r)


def test_guards_read_the_analyses():
    log_mul = QueryRule("log_mul", p.log(p.mul(a, b)), p.add(p.log(a), p.log(b)), guards=[positive("a"), positive("b")])
    x, y = pt.vectors("x", "y")
    guarded, unguarded = pt.log((pt.exp(pt.tanh(x)) + 1.0) * (pt.sigmoid(y) + 2.0)), pt.log(x * y)
    eg = EGraph()
    g1, g2 = eg.add_graph([guarded, unguarded])
    Runner(eg, [log_mul], Limits(iterations=3, nodes=None, seconds=None)).run()
    assert len(eg.class_nodes(g1)) == 2 and len(eg.class_nodes(g2)) == 1
    split = extract(eg, [g1], lambda n: 10 if eg.ops[n[0]][0] == "op" and eg.ops[n[0]][1] == pt.mul else 1)[0]
    assert split.owner.op == pt.add and split.owner.inputs[0].owner.op == pt.log
    want, got = _values([x, y], [guarded, split], 3, np.random.default_rng(0))
    np.testing.assert_allclose(got, want)


def test_constant_folding():
    x = pt.vector("x")
    g = (pt.constant(2.0) + pt.constant(3.0)) * x
    eg = EGraph()
    (root,) = eg.add_graph([g])
    five = eg.add_graph([pt.add(pt.constant(2.0), pt.constant(3.0))])[0]
    assert class_interval(eg, five) == Interval(5.0, 5.0, False, False) and class_interval(eg, five).positive()
    (root_half,) = eg.add_graph([pt.exp(pt.constant(2.0)) * 0.5])  # exp(2) is no exact point: no constant
    assert not any(len(n) == 1 for n in eg.class_nodes(root_half))
    assert any(len(n) == 1 for n in eg.class_nodes(five))  # a constant leaf joined the class
    from pytensor.graph.basic import Constant
    from pytensor.graph.traversal import ancestors

    consts = [v for v in ancestors(extract(eg, [root])) if isinstance(v, Constant)]
    assert [float(v.data) for v in consts] == [5.0]
    mirror = EGraph(IntervalAnalysis(fold=False))  # an index of another e-graph adds nothing of its own
    five = mirror.add_graph([pt.add(pt.constant(2.0), pt.constant(3.0))])[0]
    assert class_interval(mirror, five) == Interval(5.0, 5.0, False, False)
    assert not any(len(n) == 1 for n in mirror.class_nodes(five))


def test_stop_reasons_are_named():
    x, y, z = pt.vectors("x", "y", "z")
    g = (x + y) * (y - z) + 2.0 * x
    assert _saturated([x - y], 10)[2].stop == "saturated"
    assert _saturated([g], 3)[2].stop == "iteration limit"
    assert _saturated([g], 50, limits=Limits(nodes=200, iterations=50, seconds=None))[2].stop == "node limit"
    assert _saturated([g], 50, limits=Limits(nodes=None, iterations=50, seconds=0))[2].stop == "time limit"
    with pytest.raises(ValueError, match="nodes"):
        Limits(nodes=-1)


def test_scheduler_bans_and_still_saturates():
    x, y = pt.vectors("x", "y")
    g = (x + y) - (y * 2.0)
    _, _, free = _saturated([g], 100, limits=Limits(nodes=None, iterations=100, seconds=None))
    eg, _, rep = _saturated([g], 100, scheduler=BackoffScheduler(match_limit=2, ban_length=1),
                            limits=Limits(nodes=None, iterations=100, seconds=None))
    assert free.stop == rep.stop == "saturated"
    assert any(it.banned for it in rep.iterations)
    assert not rep.iterations[-1].banned
    assert rep.nodes == free.nodes  # the bans delay matches, they lose none
    check_invariants(eg)


def test_default_limits_are_egg_s():
    assert Limits() == Limits(nodes=10_000, iterations=30, seconds=5.0)
    s = BackoffScheduler()
    assert (s.match_limit, s.ban_length) == (1000, 5)


@pytest.mark.parametrize("make", [
    lambda: relations.rewrite_rule("sum_of_exp", p.sum(p.exp(a)), p.exp(a), choice=True),
    lambda: relations.rewrite_rule("positive_only", p.exp(p.log(a)), a, where=[lambda a: True], choice=True),
])
def test_rules_outside_the_query_engine_are_refused_by_name(make):
    rel = make()
    with pytest.raises(UnsupportedRule, match=rel.name):
        query_rule(rel)


def test_ill_typed_right_sides_are_refused():
    x = pt.vector("x")
    zero = QueryRule("times_zero", p.mul(a, p.const(0.0)), p.const(0.0))  # a 0-d 0 for a vector: refused
    eg = EGraph()
    (root,) = eg.add_graph([x * 0.0])
    report = Runner(eg, [zero], Limits(iterations=3, nodes=None, seconds=None)).run()
    assert all(len(n) == 3 for n in eg.class_nodes(root))
    assert report.iterations[0].refused == {"times_zero": 1} and report.stop == "saturated"


def test_graph_nodes_keep_their_own_types():
    x = pt.vector("x")
    g = pt.exp(pt.alloc(x[0], 3)) + pt.alloc(x[1], 4)[:3]  # Alloc's static shape comes from a constant's value
    eg = EGraph()
    (root,) = eg.add_graph([g])
    out = extract(eg, [root])[0]
    assert eg.type_of(root) == g.type and out.type == g.type
    want, got = _values([x], [g, out], 5, np.random.default_rng(1))
    np.testing.assert_allclose(got, want)


def test_a_union_refines_the_parents_of_both_classes():
    """``x = exp(y)``: the class of ``sqrt(x)`` becomes positive, whichever class the union keeps (the
    parents of the class merged away are repaired first, then re-analyzed)."""
    x, y = pt.vectors("x", "y")
    for extra in ([], [pt.exp(y) + 1.0, pt.exp(y) * 2.0], [x + 1.0, x * 2.0]):
        eg = EGraph()
        root, ex, *_ = eg.add_graph([pt.sqrt(x), pt.exp(y), *extra])
        assert class_interval(eg, root).nonnegative() and not class_interval(eg, root).positive()
        eg.union(eg.add_graph([x])[0], ex, ("given", ()))
        eg.rebuild()
        assert class_interval(eg, root).positive(), extra
        check_invariants(eg)


def test_a_graph_with_an_input_of_no_tensor_type_is_added():
    # SpecifyShape's NoneConst (a shape entry not given) has no ndim: only an Elemwise reads through padding
    m = pt.matrix("m")
    shaped = pt.specify_shape(pt.exp(m), (1, None))
    eg = EGraph()
    (c,) = eg.add_graph([shaped])
    assert eg.type_of(c) == shaped.type
