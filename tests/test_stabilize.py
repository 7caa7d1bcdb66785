"""``relations.stabilize``: the numerics theory in the query engine, guards read on class intervals, extraction
by measured bits of error, and the report."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.scalar as ps
import pytensor.tensor as pt
import pytest

import relations
from graph_bridge.interval_type import Interval
from helpers import assert_same_types, snapshot
from relations import patterns as p
from relations.lang import Family, is_float, positive
from relations.saturation.accuracy import sample_points
from relations.saturation.engine.analysis import IntervalAnalysis, class_interval
from relations.saturation.engine.egraph import EGraph
from relations.saturation.engine.guards import class_guard
from relations.saturation.engine.query import UnsupportedRule, query_rule
from relations.saturation.engine.runner import Limits, Runner

x = pt.dvector("x")
a, c = p.var("a"), p.var("c")


def _log_prod() -> Family:
    fam = Family("demo")
    fam.equal("log_prod", p.log(p.mul(c, a)), p.add(p.log(c), p.log(a)), positive(c) & positive(a),
              "The log of a product of positives is a sum of logs.")
    return fam


def _saturated(g, fam):
    eg = EGraph()
    [root] = eg.add_graph([g])
    report = Runner(eg, [query_rule(r) for r in fam.rules], Limits(iterations=5)).run()
    return eg, root, report


def test_class_intervals_come_from_the_interval_transfer_functions():
    eg = EGraph()
    assert class_interval(eg, eg.add_graph([pt.exp(x)])[0]).positive()
    [one_up] = eg.add_graph([pt.exp(x) + 1])
    assert class_interval(eg, one_up).within(1, np.inf) and class_interval(eg, one_up).positive()
    [unit] = eg.add_graph([pt.sigmoid(x)])
    assert class_interval(eg, unit).within(0, 1)
    [free] = eg.add_graph([x])
    assert class_interval(eg, free) == Interval()


def test_a_union_keeps_what_both_classes_say():
    ana = IntervalAnalysis()
    both = ana.merge(Interval(0.0, np.inf, True, True), Interval(-1.0, 1.0, False, False))
    assert both == Interval(0.0, 1.0, True, False)
    assert ana.merge(Interval(2.0, 3.0, False, False), Interval(-1.0, 1.0, False, False)) == Interval(2.0, 3.0, False, False)


def test_a_range_guard_reads_the_class_not_the_spelling():
    fam = _log_prod()
    eg, root, report = _saturated(pt.log(2.0 * pt.exp(x)), fam)
    assert report.matches("log_prod") == 1 and sum(it.unions["log_prod"] for it in report.iterations) == 1
    eg, root, report = _saturated(pt.log(2.0 * x), fam)  # the sign of x is unknown: refused
    assert report.iterations[0].refused["log_prod"] == 1 and report.iterations[0].unions["log_prod"] == 0


def test_class_guard_and_refusals_name_what_is_wrong():
    with pytest.raises(TypeError, match="Guard"):
        class_guard(lambda eg, b: True)
    r = relations.rewrite_rule("with_goal", p.exp(a), p.exp(a), where=(lambda a: True,), choice=True)
    with pytest.raises(UnsupportedRule, match="with_goal"):
        query_rule(r)
    g = class_guard(is_float(a))
    eg = EGraph()
    [k] = eg.add_graph([x])
    assert g(eg, {"a": k})


def test_exp_minus_one_becomes_expm1_and_the_report_says_how_much_better():
    g = pt.exp(x) - 1
    g.tag.trace = [[("model.py", 3, "logp", "g = exp(x) - 1")]]
    before = snapshot(g)
    r = relations.stabilize(g)
    assert snapshot(g) == before  # the input is not changed
    assert r.changed and r.graph.owner.op == pt.expm1(x).owner.op
    assert r.after[0][0] < r.before[0][0] and r.after[0][1] <= r.before[0][1]
    [site] = r.sites
    assert site.before is g and site.bits_after < site.bits_before
    assert g.tag.trace[0] in site.after.tag.trace  # copy_stack_trace: the new node carries the old trace
    assert_same_types(g, r.graph)
    assert "bits of error" in str(r) and "Expm1" in str(r)
    f = pytensor.function([x], r.graph, mode="FAST_COMPILE")
    for n in (0, 1, 4):
        v = np.linspace(-3, 3, n)
        np.testing.assert_allclose(f(v), np.expm1(v))
    assert f(np.array([1e-300]))[0] == 1e-300  # where exp(x) - 1 gives 0


def test_a_graph_with_nothing_more_accurate_is_returned_as_it_came():
    g = x * 2.0 + 1.0
    r = relations.stabilize(g)
    assert not r.changed and r.graph is g and r.before == r.after
    assert "no form more accurate" in str(r)


def test_float32_keeps_its_dtype():
    x32 = pt.fvector("x32")
    r = relations.stabilize(pt.exp(x32) - 1)
    assert r.graph.type.dtype == "float32" and r.changed


def test_points_can_be_given_and_integer_inputs_must_be():
    k = pt.lvector("k")
    with pytest.raises(ValueError, match="k"):
        relations.stabilize(pt.exp(x) * k)
    r = relations.stabilize(pt.exp(x) - 1, points={x: np.linspace(-1e-3, 1e-3, 16)[:, None]})
    assert r.points == 16 and r.changed


def test_sampling_keeps_points_where_the_exact_value_is_real():
    pts = sample_points([pt.log(x)], n=32, seed=1)
    assert pts.n == 32 and (pts.values[0] > 0).all()  # log of a negative is not a real
    with pytest.raises(ValueError, match="n must be"):
        sample_points([x], n=0)


@pytest.mark.default_mode
def test_results_compile_in_the_default_mode():
    r = relations.stabilize(pt.exp(x) - 1)
    f = pytensor.function([x], r.graph)
    np.testing.assert_allclose(f(np.array([1e-20, 1.0])), np.expm1([1e-20, 1.0]))


def _measured_mode():
    from relations.compile.stabilize import MEASURED_NAME, NAME

    return relations.mode("relational", NAME, MEASURED_NAME)


def test_the_measured_stage_repairs_what_fast_run_leaves_and_is_opt_in():
    from pytensor.compile import optdb

    from relations.compile.stabilize import MEASURED_NAME

    assert MEASURED_NAME not in relations.DEFAULT_TAGS
    g = pt.sin(x) - x  # 0 where the value is -x**3 / 6 (sin(x) rounds to x below 1e-8)
    f = pytensor.function([x], g, mode=_measured_mode())
    stage = next(iter(optdb.__db__[MEASURED_NAME]))
    # no rule of the fast pass reads a sine's cancellation; the stage's series joins the spelling past its regime
    assert stage.last.replaced == 1 and stage.last.skipped == 0
    v = np.array([1e-10, 1e-3, 0.5, 3.0, 30.0])
    with mp.workdps(60):
        exact = np.array([float(mp.sin(mp.mpf(float(t))) - mp.mpf(float(t))) for t in v])
    np.testing.assert_allclose(f(v), exact, rtol=1e-14)
    assert pytensor.function([x], g, mode=relations.mode())(v[:1])[0] == 0.0
    for n in (0, 1):
        assert f(np.full(n, 0.25)).shape == (n,)
    assert f.maker.fgraph.outputs[0].type.dtype == g.type.dtype


def test_the_measured_stage_never_trades_a_form_pytensor_repairs():
    """``log(erfc(x))`` as written is inaccurate near 0, ``log1p(-erf(x))`` is not; but PyTensor's own
    stabilizer repairs the first at large x and cannot repair the second: the stage never returns the
    second alone.  With regimes it joins the two (``log1p(-erf(x))`` below a threshold, ``log(erfcx(x)) -
    x**2`` above), accurate on both sides, or keeps the first."""
    from pytensor.compile import optdb

    from relations.compile.stabilize import MEASURED_NAME

    g = pt.log(pt.erfc(x))
    f = pytensor.function([x], g, mode=_measured_mode())
    stock = pytensor.function([x], g, mode="FAST_RUN")
    large = np.array([30.0, 100.0, 1e10])
    assert np.isfinite(f(large)).all()
    np.testing.assert_allclose(f(large), stock(large), rtol=1e-13)
    if next(iter(optdb.__db__[MEASURED_NAME])).last.replaced:
        small = f(np.array([1e-300, 1e-8]))  # log(1 - 2x/sqrt(pi)): stock's log(erfc(x)) is 0 at 1e-300
        np.testing.assert_allclose(small, -2 / np.sqrt(np.pi) * np.array([1e-300, 1e-8]), rtol=1e-7)


def _every_node_every_pass(eg, points, exact):
    """``measured_choice`` as it was first written, the oracle: every e-node run at every pass."""
    from relations.saturation import accuracy as A

    choice, runner = A.Choice(), A.NodeRunner(eg)
    live = [(n, v >> A.CLASS_SHIFT) for n, v in eg.hashcons.items()]
    for n, c in live:
        if len(n) == 1:
            choice.enode[c], choice.values[c], choice.size[c] = n, A.leaf_values(eg, n, points), 1
            choice.batched[c] = A.is_float_var(eg.leaf[n[0]])
    for _ in range(A.PASSES):
        changed = False
        for n, c in live:
            kids = [eg.find(k) for k in n[1:]]
            if len(n) == 1 or any(k not in choice.values for k in kids):
                continue
            size, flags = 1 + sum(choice.size[k] for k in kids), tuple(choice.batched[k] for k in kids)
            vals = runner.run(n, [choice.values[k] for k in kids], flags)
            if vals is None:
                continue
            if choice.enode.get(c) == n:
                changed |= size != choice.size[c] or not A._agree(vals, choice.values[c])
                choice.values[c], choice.size[c], choice.batched[c] = vals, size, any(flags)
            elif A._better(choice, exact, c, vals, size) and not A._reaches(choice, eg, kids, c):
                choice.enode[c], choice.values[c], choice.size[c], choice.batched[c] = n, vals, size, any(flags)
                changed = True
        if not changed:
            break
    return choice


def test_measured_choice_reruns_only_what_changed_and_chooses_as_running_everything_does():
    """``measured_choice`` runs an e-node again only when its class's or a child's values moved since it last
    ran; it chooses what running every e-node at every pass chooses (a class chosen better after its parents
    ran: ``log(cosh(x))``, where a skip of every e-node run once already chooses otherwise)."""
    from relations.saturation import accuracy as A
    from relations.saturation.stabilizing import theory_rules

    y = pt.dvector("y")
    for g in (pt.log(pt.cosh(y)), -pt.log(1 + pt.exp(-y))):
        eg = EGraph()
        eg.add_graph([g])
        Runner(eg, theory_rules(), Limits(nodes=1500, iterations=5, seconds=None)).run()
        pts = sample_points([g], 16, seed=0)
        exact = A.ClassExact(eg, pts)
        got, want = A.measured_choice(eg, pts, exact), _every_node_every_pass(eg, pts, exact)
        assert got.enode == want.enode and got.size == want.size and got.converged


def test_the_runner_binds_a_rule_once_its_ops_have_e_nodes():
    """A rule whose left side names an Op the e-graph has no e-node of is not bound (no searcher is generated
    for it) and counts 0 matches; it is bound the iteration another rule adds that Op, and matches then."""
    from relations.saturation.engine.query import QueryRule

    fam = Family("demo_bind", choice=True)
    fam.rewrite("exp_log", p.exp(p.log(a)), a, is_float(a), "exp(log(a)) is a where it is defined.")
    fam.rewrite("log_to_exp_log", p.log(a), p.log(p.exp(p.log(a))), is_float(a), "log(a) as log(exp(log(a))).")
    rules = [query_rule(r) for r in fam.rules]
    eg = EGraph()
    eg.add_graph([pt.log(x)])
    run = Runner(eg, rules, Limits(iterations=3, seconds=None))
    assert run.unbound == 2
    run.step(0, 0.0)
    assert isinstance(run.rules[0], QueryRule) and run.unbound == 1  # no exp yet: exp_log not bound
    assert run.report.iterations[0].matches["exp_log"] == 0 and run.report.iterations[0].unions["log_to_exp_log"]
    run.step(1, 0.0)
    assert run.unbound == 0 and run.report.iterations[1].matches["exp_log"] >= 1


def test_a_domain_lets_a_guarded_identity_apply_and_the_points_stay_inside_it():
    """``log(x**3)`` overflows at ``x = 1e200``; ``3 * log(x)`` holds only where ``x > 0``, unknown of a bare
    input, so it is applied only as the guarded form ``log_pow_regimes`` adds to the class, ``switch(x > 0, 3 *
    log(x), log(x**3))`` (the spelling where the guard fails).  Told ``x > 0`` (``domain=``, Herbie's ``:pre``),
    stabilize applies the identity bare, draws its points there and says the form equals the input there only."""
    y = pt.dvector("y")
    g = pt.log(y**3)
    before = snapshot(g)
    guarded = relations.stabilize(g)
    assert guarded.changed and isinstance(guarded.graph.owner.op.scalar_op, ps.Switch)
    at = np.array([-2.0, -1e-5, 1e-300, 1.0, 1e200])
    got = pytensor.function([y], guarded.graph, mode="FAST_COMPILE")(at)
    assert np.isnan(got[:2]).all()  # as written: the log of a negative cube
    np.testing.assert_allclose(got[2:], 3 * np.log(at[2:]), rtol=1e-15)
    s = relations.stabilize(g, domain={y: Interval(0, np.inf, lo_open=True)})
    assert s.changed and s.after[0][0] < 1.0 < s.before[0][0]
    assert "where y in (0, inf) only" in str(s)
    assert_same_types(g, s.graph)
    assert snapshot(g) == before
    f = pytensor.function([y], s.graph, mode="FAST_COMPILE")
    at = np.array([1e-300, 1e-5, 1.0, 2.0, 1e200])
    np.testing.assert_allclose(f(at), 3 * np.log(at), rtol=1e-15)
    assert np.isinf(pytensor.function([y], g, mode="FAST_COMPILE")(at)[-1])  # the input as written overflows
    # every point drawn lies inside; a closed range given as a tuple holds its ends
    pts = sample_points([g], 64, domain=((y, Interval(1.0, 2.0, False, False)),))
    assert pts.n == 64 and ((pts.values[0] >= 1.0) & (pts.values[0] <= 2.0)).all()
    with pytest.raises(ValueError, match="not an input of the graph"):
        relations.stabilize(g, domain={pt.dvector("z"): (0, 1)})
    with pytest.raises(ValueError, match="is empty"):
        relations.stabilize(g, domain={y: (2.0, 1.0)})
    with pytest.raises(ValueError, match=r"must be \(lo, hi\)"):
        relations.stabilize(g, domain={y: "positive"})


def test_a_form_better_only_where_the_sample_is_thin_is_taken():
    """``softplus(x) - x`` cancels for x in [20, 700]: 0.25% of binade-uniform draws, so on the sample alone
    ``softplus(-x)`` is no better (0.0 -> 0.0 bits) and was refused.  Judged on the sample and the grid
    of magnitudes (x = 20, 30, 40 ...), it is taken."""
    y = pt.dvector("y")
    g = pt.softplus(y) - y
    s = relations.stabilize(g, limits=Limits(nodes=1_000, iterations=4, seconds=None))
    assert s.changed and s.after[0][1] <= 1.0 < s.before[0][1]
    f = pytensor.function([y], s.graph, mode="FAST_COMPILE")
    at = np.array([-5.0, 0.0, 20.0, 30.0, 40.0, 700.0])
    want = np.log1p(np.exp(-at))
    np.testing.assert_allclose(f(at), want, rtol=1e-15, atol=0)
    assert np.abs(pytensor.function([y], g, mode="FAST_COMPILE")(at)[3] / want[3] - 1) > 1e-3  # as written


def test_a_form_whose_exact_values_differ_from_the_input_is_refused():
    """The e-graph unions expressions undefined on the same inputs (``x / sqrt(1 - x*x)`` and ``tan(arcsin(x))``
    for ``|x| > 1``, both NaN); congruence spreads such a union, and within 3,000 e-nodes and 8 iterations
    ``log((x+1)/x)`` came out as ``log1p(x)``, its error measured against its own exact values: 0 bits.
    A form is now compared with the input on exact values before it is returned."""
    from relations.saturation.stabilizing import _equal_on

    y = pt.dvector("y")
    g = pt.log((y + 1) / y)
    pts = sample_points([g], 16)
    assert not _equal_on([g], [pt.log1p(y)], pts)
    assert _equal_on([g], [pt.log1p(1 / y)], pts)
    s = relations.stabilize(g, limits=Limits(nodes=3_000, iterations=8, seconds=None))
    f = pytensor.function([y], s.graph, mode="FAST_COMPILE")
    at = np.array([1.5, 1e3, 1e10])
    np.testing.assert_allclose(f(at), np.log1p(1 / at), rtol=1e-6)
    assert ("an unsound union" in str(s)) == s.unequal


def test_a_point_where_the_old_form_has_no_digit_left_cannot_be_made_worse():
    """``more_accurate``: ``sqrt(x*x)`` is ``inf`` from ``x = 1.4e154`` (x*x overflows) and 0 below 1e-154, no
    correct digit; ``x*x / (x*x) * |x|`` is NaN there (64 bits off), no worse; it is judged by the other
    points (worse at one: refused), and it is no better on average (not strictly more accurate)."""
    from relations.saturation.accuracy import graph_bits, grid_points, more_accurate

    x = pt.vector("x")
    old = pt.sqrt(x * x)
    pts = grid_points([old])
    lost = graph_bits([old], pts)[0] >= 53
    assert lost.any() and not lost.all()
    nan_there = (x * x) / (x * x) * pt.abs(x)
    assert (graph_bits([nan_there], pts)[0][lost] > graph_bits([old], pts)[0][lost] + 1).all()
    assert more_accurate([nan_there], [old], pts, strictly=False)
    assert not more_accurate([nan_there], [old], pts)
    cancels_elsewhere = (nan_there + 1.0) - 1.0  # loses the digits of |x| < 1, where sqrt(x*x) has them
    assert not more_accurate([cancels_elsewhere], [old], pts, strictly=False)


def test_a_point_within_the_noise_is_no_loss_and_one_beyond_it_is():
    """``more_accurate(noise=NOISE_BITS)``: float32 ``2 * sin(x / 2)**2`` is 1.6 bits off at ``x = 5`` (three
    roundings) where ``1 - cos(x)`` is exact, and exact where ``1 - cos(x)`` is 0 (``x = 1e-4``): refused at that
    point without the floor, taken with it; a form better on average that cancels at ``x = 5`` (about 9 bits
    off there) is refused with it."""
    from relations.saturation.accuracy import NOISE_BITS, Points, graph_bits, more_accurate

    x32 = pt.vector("x32", dtype="float32")
    old = pt.constant(np.float32(1.0)) - pt.cos(x32)
    new = pt.constant(np.float32(2.0)) * pt.sqr(pt.sin(x32 * np.float32(0.5)))
    pts = Points((x32,), (np.array([[5.0], [-5.0], [1e-4], [0.5]], dtype="float32"),), 4)
    bits = graph_bits([new], pts)[0]
    assert bits[0] > graph_bits([old], pts)[0][0] + 1.0 and bits.max() <= NOISE_BITS
    assert not more_accurate([new], [old], pts)
    assert more_accurate([new], [old], pts, noise=NOISE_BITS)
    big = pt.constant(np.float32(300.0))
    off = pt.switch(pt.abs(x32) < 1, new, (1 + big) - (pt.cos(x32) + big))  # equal; rounds to 3e-5 at |x| >= 1
    assert graph_bits([off], pts)[0][0] > NOISE_BITS
    assert more_accurate([off], [old], pts, slack=10.0)  # better on average
    assert not more_accurate([off], [old], pts, noise=NOISE_BITS)


def test_axis_points_pair_each_input_s_grid_with_moderate_others():
    """The fast pass's measurement adds, for a graph of two inputs or more, each input over the grid with the
    others at 1: ``2 * exp(x)`` overflowing next to ``exp(1)`` is a point (the shuffled grid may never pair
    them), kept only where the exact value is a real number."""
    from relations.saturation.accuracy import GRID, axis_points

    x, y = pt.vector("x"), pt.vector("y")
    pts = axis_points([pt.log(2 * pt.exp(x) + pt.exp(y))])
    cols = dict(zip([v.name for v in pts.inputs], [v.ravel() for v in pts.values], strict=True))
    assert pts.n > len(GRID) and ((cols["x"] == 1e4) & (cols["y"] == 1.0)).any()
    assert ((cols["y"] == -1e4) & (cols["x"] == 1.0)).any()
    assert axis_points([pt.exp(x)]).n == 0
    kept = axis_points([pt.log(x - y)])  # only where the value is not NaN: x >= y
    col = {v.name: c.ravel() for v, c in zip(kept.inputs, kept.values, strict=True)}
    assert kept.n > 0 and (col["x"] >= col["y"]).all()  # x = y: log(0) = -inf, a value


def test_the_beta_function_written_through_gamma_is_finite_where_a_gamma_overflows():
    """PyTorch's Kumaraswamy mean, ``b * gamma(1 + 1/a) * gamma(b) / gamma(1 + 1/a + b)``: NaN where a ``gamma``
    overflows (``a = 1e-3``: ``gamma(1001)``; ``b = 200``), the beta function's ``gammaln`` form there
    (``mul_beta_regimes``), as written elsewhere."""
    from scipy.special import beta

    from relations.compile.stabilize import PASS_LIMITS

    a, b = pt.dvector("a"), pt.dvector("b")
    g = b * pt.gamma(1 + 1 / a) * pt.gamma(b) / pt.gamma(1 + 1 / a + b)
    s = relations.stabilize(g, limits=PASS_LIMITS)  # (no time limit: the same form under any load)
    at_a, at_b = np.array([1.0, 0.5, 2.0, 1e-3, 5.0]), np.array([200.0, 1e5, 3.0, 2.0, 0.5])
    with np.errstate(all="ignore"):
        before = pytensor.function([a, b], g, mode="FAST_COMPILE")(at_a, at_b)
    after = pytensor.function([a, b], s.graph, mode="FAST_COMPILE")(at_a, at_b)
    assert np.isnan(before[0]) and np.isnan(before[3])
    np.testing.assert_allclose(after, at_b * beta(1 + 1 / at_a, at_b), rtol=1e-10)
    assert s.graph.type == g.type


def test_a_constant_beside_an_exponential_holds_its_one():
    """Julia's ``log2mexp`` as its docstring writes it, ``log(2 - exp(x))``: 0 at ``x = 1e-20`` where the value is
    ``-1e-20``; ``2 - exp(x)`` is ``1 - expm1(x)`` (``constant_sub_exp``), and the log of it ``log1p(-expm1(x))``."""
    from relations.compile.stabilize import PASS_LIMITS

    x = pt.dvector("x")
    g = pt.log(2 - pt.exp(x))
    s = relations.stabilize(g, limits=PASS_LIMITS)
    at = np.array([1e-20, -1e-10, 0.5, -3.0, -800.0])
    got = pytensor.function([x], s.graph, mode="FAST_COMPILE")(at)
    assert pytensor.function([x], g, mode="FAST_COMPILE")(at)[0] == 0.0
    np.testing.assert_allclose(got, np.log1p(-np.expm1(at)), rtol=1e-15)
    assert s.graph.type == g.type
