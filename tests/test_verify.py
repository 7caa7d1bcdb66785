"""relations.verify: finds counterexamples of wrong rules, passes true ones and every built-in rule."""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import Variable

import relations
from relations import patterns as p
from relations import rewrite_rule, rule, verify
from relations.queries.verify import Counterexample


@pytest.fixture
def a():
    return p.var("a")


def test_true_rule_passes(a):
    assert verify(rewrite_rule("neg_neg", p.neg(p.neg(a)), a)) is None


def test_exp_log_is_wrong_at_negative_numbers(a):
    ce = verify(rewrite_rule("exp_log", p.exp(p.log(a)), a))
    assert isinstance(ce, Counterexample) and ce.rule == "exp_log" and ce.direction == "forward"
    [value] = ce.inputs.values()
    assert np.any(np.asarray(value) < 0)
    assert np.isnan(ce.before_value).any() and not np.isnan(ce.after_value).any()
    text = str(ce)
    assert "exp_log" in text and "before" in text and "after" in text and "nan" in text


def test_log_exp_is_wrong_at_large_magnitudes(a):
    ce = verify(rewrite_rule("log_exp", p.log(p.exp(a)), a))
    assert isinstance(ce, Counterexample)
    before, after = np.asarray(ce.before_value), np.asarray(ce.after_value)
    assert np.isinf(before).any() and np.isfinite(after).all()
    [value] = ce.inputs.values()
    assert np.abs(np.asarray(value)).max() >= 1000
    assert isinstance(ce.before, Variable) and ce.after.name == "a"


def test_division_rule_is_wrong_at_zero(a):
    b = p.var("b")
    ce = verify(rewrite_rule("div_mul", p.true_div(p.mul(a, b), b), a))
    assert isinstance(ce, Counterexample)
    assert any(np.any(np.asarray(v) == 0) for v in ce.inputs.values())


def test_same_seed_same_answer(a):
    r = rewrite_rule("exp_log", p.exp(p.log(a)), a)
    one, two = verify(r, seed=3), verify(r, seed=3)
    assert str(one) == str(two)


def test_both_raising_agrees_one_raising_does_not(a):
    from relations.queries.verify import _agree

    nan = np.array([np.nan, 1.0])
    assert _agree(ValueError("empty"), IndexError("empty"))
    assert not _agree(ValueError("empty"), np.array(1.0))
    assert not _agree(np.array(1.0), ValueError("empty"))
    assert _agree(nan, nan.copy())  # NaNs equal where both are NaN
    assert not _agree(nan, np.array([0.0, 1.0]))
    assert not _agree(np.array([np.inf]), np.array([1e308]))
    assert not _agree(np.array(1.0, dtype="float32"), np.array(1.0))  # dtype differs
    assert not _agree(np.zeros((0, 1)), np.zeros((1, 0)))  # shape differs
    # max of an empty vector raises on both sides: no counterexample
    r = rewrite_rule("max_neg_neg", p.max(p.neg(p.neg(a))), p.max(a))
    assert verify(r, examples=60) is None


def test_wrong_reduction_rule(a):
    ce = verify(rewrite_rule("max_to_sum", p.max(p.sqr(a)), p.sum(p.sqr(a)), choice=True))
    assert isinstance(ce, Counterexample)


def test_hand_written_relation_checked_on_random_graphs(a):
    wrong = rewrite_rule("sum_as_max", p.sum(p.expand_dims(a, 0)), p.max(a))

    @rule(heads=wrong.heads, rhs_heads=wrong.rhs_heads, measure="none")
    def sum_as_max(lhs, rhs):  # a hand-written goal constructor: no patterns to draw from
        return wrong(lhs, rhs)

    ce = verify(sum_as_max)
    assert isinstance(ce, Counterexample) and ce.rule == "sum_as_max"


def test_rule_that_never_applies_is_an_error(a):
    # the rhs has another ndim: the engine never applies it, so nothing is verified
    r = rewrite_rule("bad_axis", p.sum(p.expand_dims(a, 0), axis=0), p.sum(a, axis=0))
    with pytest.raises(ValueError, match="bad_axis"):
        verify(r, examples=20)


def test_graphs_argument(a):
    r = rewrite_rule("mul_one", p.mul(a, 1.0), a, where=(lambda a: a.type.ndim == 3,))
    x = pt.tensor3("x")
    assert verify(r, examples=5, graphs=[pt.exp(x * 1.0)]) is None
    with pytest.raises(TypeError, match=r"graphs\[0\]"):
        verify(r, graphs=["x"])


def test_bad_arguments(a):
    r = rewrite_rule("neg_neg", p.neg(p.neg(a)), a)
    with pytest.raises(ValueError, match="examples"):
        verify(r, examples=0)
    with pytest.raises(TypeError, match="rule"):
        verify("neg_neg")


#: the rules of Ops verify's random graphs do not draw (Blockwise, RandomVariable): graphs they apply to
BATCHED_GRAPHS = {
    "blockwise_explicito": lambda: [
        pt.matmul(pt.matrix("m"), pt.tensor3("B")),
        pt.linalg.solve(pt.tensor3("A"), pt.vector("b"), b_ndim=1),
        pt.matmul(pt.tensor("C", shape=(None, 1, 2, 2)), pt.tensor("D", shape=(3, 2, 2))),
    ],
    "dimshuffle_through_blockwiseo": lambda: [pt.matmul(pt.tensor3("T")[None], pt.tensor3("U")[None])],
    "random_explicito": lambda: [
        pt.random.normal(pt.scalar("mu"), pt.vector("s", shape=(3,)) ** 2, size=(4, 3), rng=_rng()),
        pt.random.normal(pt.vector("mu2"), 1.0, rng=_rng()),
    ],
}


def _rng():
    from pytensor.tensor.random.type import RandomGeneratorType

    return RandomGeneratorType()("rng")


@pytest.mark.parametrize("builtin", relations.DEFAULT_RULES, ids=lambda r: r.__name__)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_every_builtin_rule_passes(builtin):
    graphs = BATCHED_GRAPHS.get(builtin.__name__)
    assert verify(builtin, examples=200, graphs=graphs() if graphs else None) is None


@pytest.mark.parametrize(
    "module, guard, builtin",
    [
        ("relations.rules.lift", ("zero_fillo", "unique_indiceso"), "inc_zeros_as_seto"),
        ("relations.rules.join", ("pieces safe",), "careduce_joino"),
    ],
)
def test_builtin_rule_without_its_guard_is_caught(module, guard, builtin):
    """Drop the guards of a built-in rule: verify finds the graphs they were there for."""
    import importlib

    mod = importlib.import_module(module)
    rule = getattr(mod, builtin)
    where = tuple(g for g in rule.where if getattr(g, "name", None) not in guard)
    assert len(where) == len(rule.where) - len(guard)
    unguarded = rewrite_rule(builtin, rule.lhs, rule.rhs, where=where, measure=rule.measure)
    ce = verify(unguarded)
    assert isinstance(ce, Counterexample) and ce.rule == builtin


def test_rule_that_raises_is_reported(a):
    def guard(a):
        if a.type.ndim == 2:
            raise ZeroDivisionError("guard bug")
        return True

    crashy = rewrite_rule("crashy", p.neg(p.neg(a)), a, where=(guard,))
    with pytest.raises(RuntimeError, match="crashy.*ZeroDivisionError"):
        verify(crashy)


def test_domain_restricts_the_inputs_drawn(a):
    b = p.var("b")
    floats = (lambda a, b: a.type.dtype == b.type.dtype == "float64",)  # on bools True + True is True
    r = rewrite_rule("exp_mul", p.mul(p.exp(a), p.exp(b)), p.exp(p.add(a, b)), where=floats)
    ce = verify(r)  # exp(1000) * exp(-1000) is inf * 0 = nan; exp(0) is 1
    assert isinstance(ce, Counterexample)
    assert np.isnan(ce.before_value).any()
    assert verify(r, domain={"a": "finite", "b": "finite"}) is None
    assert verify(r, domain={"a": (-5, 5), "b": (-5.0, 5.0)}) is None
    # an interval can force the failure too: exp(a) overflows, exp(b) underflows
    ce = verify(r, domain={"a": (900, 1100), "b": (-1100, -900)})
    assert isinstance(ce, Counterexample)
    assert all(900 <= v <= 1100 for v in np.ravel(ce.inputs[_named(ce, "a")]))


def test_positive_domain(a):
    # (exp(log(a)) -> a would still fail backward: its right side is any sub-graph, log(a) too)
    r = rewrite_rule("sqr_sqrt", p.sqr(p.sqrt(a)), a)
    assert isinstance(verify(r), Counterexample)
    assert verify(r, domain={"a": "positive"}) is None


def test_interval_domain_draws_within_it_and_both_ends(a):
    from relations.queries.verify import _pool

    for dtype in ("float64", "float32", "int32", "int64"):
        pool = _pool(dtype, (-2, 7))
        assert pool.min() == -2 and pool.max() == 7
        assert ((pool >= -2) & (pool <= 7)).all()
    assert (_pool("float64", "positive") > 0).all()
    assert (np.abs(_pool("int64", "finite")) <= 3).all()
    with pytest.raises(ValueError, match="no value"):
        _pool("int64", (0.2, 0.7))


def test_tolerances(a):
    # 1 + 1e-5 relative: within float32's tolerance and rtol=1e-4, not float64's default
    r = rewrite_rule("nearly", p.mul(a, 1.0), p.mul(a, 1.00001), where=(lambda a: a.type.dtype == "float64",), choice=True)
    assert isinstance(verify(r, examples=40), Counterexample)
    assert verify(r, examples=40, rtol=1e-4) is None


def test_bad_domain_and_tolerances_are_named(a):
    r = rewrite_rule("neg_neg", p.neg(p.neg(a)), a)
    with pytest.raises(ValueError, match="'b'.*not an input.*\\['a'\\]"):
        verify(r, domain={"b": "finite"})
    with pytest.raises(ValueError, match=r"domain\['a'\]"):
        verify(r, domain={"a": "small"})
    with pytest.raises(ValueError, match="low end"):
        verify(r, domain={"a": (1, 0)})
    with pytest.raises(TypeError, match="domain"):
        verify(r, domain=["a"])
    for name in ("rtol", "atol"):
        with pytest.raises(ValueError, match=name):
            verify(r, **{name: -1.0})


def test_counterexample_names_the_first_differing_entry(a):
    ce = verify(rewrite_rule("exp_log", p.exp(p.log(a)), a))
    before, after = np.asarray(ce.before_value), np.asarray(ce.after_value)
    i = ce.index
    assert i is not None and np.isnan(before[i]) and not np.isnan(after[i])
    # no earlier entry differs
    flat = np.ravel_multi_index(i, before.shape) if before.ndim else 0
    assert all(np.isclose(before.flat[j], after.flat[j]) for j in range(flat))
    [value] = ce.inputs.values()
    text = str(ce)
    assert f"first difference at index {list(i)}" in text
    assert f"where the inputs are a = {np.broadcast_to(value, before.shape)[i]}" in text


def test_counterexample_with_one_side_raising_names_no_index():
    from relations.queries.verify import _first_difference

    assert _first_difference(ValueError("x"), np.ones(2)) is None
    assert _first_difference(np.ones(2), np.ones(3)) is None
    assert _first_difference(np.ones(3), np.array([1.0, 2.0, 1.0])) == (1,)
    assert _first_difference(np.ones((2, 2)), np.ones((2, 2))) is False


def _named(ce, name):
    [v] = [v for v in ce.inputs if v.name == name]
    return v


def test_prop_variables_are_drawn_not_only_at_their_defaults():
    from pytensor.tensor.elemwise import CAReduce, DimShuffle

    from relations.queries.verify import _pattern_instances

    x, ax, o, r = p.var("x"), p.var("ax"), p.var("o"), p.var("r")
    sum_neg = rewrite_rule("sum_neg", p.sum(p.neg(x), axis=ax), p.neg(p.sum(x, axis=ax)), choice=True)
    axes = {g.owner.op.axis for g, _ in _pattern_instances(sum_neg, np.random.default_rng(0), 60)}
    assert None in axes and len(axes) >= 4, axes  # full sums and several partial ones
    assert verify(sum_neg, examples=100) is None
    wrong = rewrite_rule("max_neg", p.careduce(r, p.neg(x), axis=ax), p.neg(p.careduce(r, x, axis=ax)), choice=True)
    drawn = [g for g, _ in _pattern_instances(wrong, np.random.default_rng(1), 60)]
    assert len({type(g.owner.op) for g in drawn if isinstance(g.owner.op, CAReduce)}) >= 3
    assert isinstance(verify(wrong), Counterexample)  # max(-x) is -min(x), not -max(x)
    ds = rewrite_rule("ds_neg", p.dimshuffle(p.neg(x), order=o), p.neg(p.dimshuffle(x, order=o)), choice=True)
    orders = {g.owner.op.new_order for g, _ in _pattern_instances(ds, np.random.default_rng(2), 60) if isinstance(g.owner.op, DimShuffle)}
    assert len(orders) >= 4, orders
