"""Moded goals name their arguments: modes by name resolve to the positions a positional goal states."""

import pytensor.tensor as pt
import pytest
from unification import var

from graph_bridge.context import graph_context
from graph_bridge.terms import elemwise_term, term
from logic_core.goals import NotReady, lall_ready
from logic_core.moded import Mode, ModedGoal, moded
from logic_core.unifier import eq
from relations.patterns.axes import careduce_heado
from relations.patterns.plans import backward_matcher, forward_matcher
from relations.patterns.relation import answers

EXP = elemwise_term(pt.exp(pt.scalar()).owner.op.scalar_op)
NEG = elemwise_term(pt.neg(pt.scalar()).owner.op.scalar_op)


def _same(t):
    return (t,)


def _named_goal(value, before, expanded):
    return moded(
        "widened",
        {"value": value, "before": before, "expanded": expanded},
        Mode(needs=("value", "before"), gives=("expanded",), one=lambda v, b: (v,)),
        Mode(needs=("expanded",), gives=("value", "before"), one=lambda e: (e, ()), open={"value": ("before",)}),
    )


def test_a_named_goal_waits_with_a_message_naming_its_needs():
    goal = _named_goal(var(), var(), var())
    assert isinstance(goal, ModedGoal)
    with pytest.raises(NotReady) as waiting:
        next(goal({}))
    assert str(waiting.value) == "widened needs (value, before) or (expanded)"
    one = moded("one", {"x": var()}, Mode(needs=("x",), gives=(), one=lambda x: ()))
    with pytest.raises(NotReady, match=r"^one needs \(x\)$"):
        next(one({}))
    explicit = moded("two", {"x": var()}, Mode(needs=("x",), gives=(), one=lambda x: ()), waiting="x not known")
    with pytest.raises(NotReady, match="^x not known$"):
        next(explicit({}))


def test_names_resolve_to_the_positions_of_the_arguments():
    goal = _named_goal(var(), var(), var())
    assert [(m.needs, m.gives, m.open) for m in goal.modes] == [
        ((0, 1), (2,), {}),
        ((2,), (0, 1), {0: (1,)}),
    ]
    # a built-in goal with an open map: the plans read positions, never names
    head = careduce_heado(var(), var(), var(), var())
    assert [(m.needs, m.gives, m.open) for m in head.modes] == [
        ((0,), (1, 2), {2: (3,)}),
        ((2,), (3, 0), {0: (1,)}),
        ((), (0, 2), {}),
    ]
    assert all(isinstance(i, int) for m in head.modes for i in (*m.needs, *m.gives, *m.open, *sum(m.open.values(), ())))


def test_a_mode_naming_an_unknown_argument_is_refused():
    with pytest.raises(ValueError, match=r"widened: a mode names 'befor', which is not one of its arguments \('value', 'before'\)"):
        moded("widened", {"value": 1, "before": 2}, Mode(needs=("value", "befor"), gives=(), one=lambda v, b: ()))
    with pytest.raises(ValueError, match="names 'after'"):
        moded("widened", {"value": 1}, Mode(needs=("value",), gives=(), one=lambda v: (), open={"after": ("value",)}))
    with pytest.raises(ValueError, match="names 'gone'"):
        moded("widened", {"value": 1}, Mode(needs=(), gives=("gone",), one=lambda: (1,)))


def test_a_named_mode_with_a_tuple_of_arguments_is_refused():
    with pytest.raises(TypeError, match="widened: its modes name arguments, so args must be a dict"):
        moded("widened", (1, 2), Mode(needs=("value",), gives=(1,), one=_same))
    with pytest.raises(TypeError, match="args must be a dict"):
        moded("widened", (1, 2), Mode(needs=(0,), gives=("before",), one=_same))


def _twin(named: bool):
    """``exp(a) -> neg(b)`` with ``b`` from ``a`` by a moded goal, by names or by positions (the same relation)."""

    def copied(a, b):
        if named:
            return moded(
                "copied",
                {"a": a, "b": b},
                Mode(needs=("a", "b"), gives=(), one=lambda x, y: () if x == y else None),
                Mode(needs=("a",), gives=("b",), one=_same),
                Mode(needs=("b",), gives=("a",), one=_same),
            )
        return moded(
            "copied",
            (a, b),
            Mode((0, 1), (), one=lambda x, y: () if x == y else None),
            Mode((0,), (1,), one=_same),
            Mode((1,), (0,), one=_same),
        )

    def exp_as_nego(lhs, rhs):
        a, b = var(), var()
        return lall_ready(eq(lhs, term(EXP, a)), copied(a, b), eq(rhs, term(NEG, b)))

    return exp_as_nego


def test_a_named_goal_plans_and_answers_as_its_positional_twin():
    named, positional = _twin(True), _twin(False)
    assert forward_matcher(named).source == forward_matcher(positional).source
    assert "copied(0,) -> (1,)" in forward_matcher(named).source  # the plan states positions
    assert backward_matcher(named).source == backward_matcher(positional).source
    x = pt.vector("x")
    lhs, rhs = pt.exp(x), pt.neg(x)
    with graph_context([lhs, rhs]):
        forward = list(forward_matcher(named).answers(lhs))
        assert forward == list(forward_matcher(positional).answers(lhs))
        assert forward == list(answers(named, lhs, var())) == list(answers(positional, lhs, var()))
        assert len(forward) == 1 and forward[0].evaled_obj.owner.op == rhs.owner.op
        backward = list(answers(named, var(), rhs, backward=True))
        assert backward == list(answers(positional, var(), rhs, backward=True))
        assert len(backward) == 1 and backward[0].evaled_obj.owner.op == lhs.owner.op
        assert list(answers(named, rhs, var())) == [] == list(answers(positional, rhs, var()))
