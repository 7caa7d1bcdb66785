"""Families (``relations.patterns.family``): an equality declared once runs both ways; a family's defaults;
the refusals; and the algebra table written with it (every relation forward, backward and as a check is
in ``tests/test_algebra.py``)."""

from __future__ import annotations

import pytensor.tensor as pt
import pytest

import relations
from helpers import backward, check_rewrite, forward, holds, snapshot
from relations import patterns as p
from relations.lang import Equality, Family, is_float, positive
from relations.rules.algebra import ALGEBRA, ALGEBRA_RULES

a, b = p.var("a"), p.var("b")
x, y = pt.dvector("x"), pt.dvector("y")
SHAPES = {x: [(0,), (1,), (4,)], y: [(0,), (1,), (4,)]}


def _family() -> Family:
    fam = Family("demo", docs="algebra.md")
    fam.equal("sub_add_neg", p.sub(a, b), p.add(a, p.neg(b)), is_float(a) & is_float(b), "Sub is add of a neg.")
    fam.rewrite("neg_neg", p.neg(p.neg(a)), a, doc="Two negations cancel.")
    return fam


def test_an_equality_is_two_relations_that_undo_each_other():
    fam = _family()
    assert [r.__name__ for r in fam.rules] == ["sub_add_neg", "sub_add_neg_rev", "neg_neg"]
    there, back = fam["sub_add_neg"], fam["sub_add_neg_rev"]
    assert there.choice and back.choice  # an equality is for saturation
    lhs = x - y
    before = snapshot(lhs)
    (rhs,) = forward(there, lhs, n=1)
    check_rewrite(lhs, rhs, SHAPES)
    assert snapshot(lhs) == before
    (again,) = forward(back, rhs, n=1)
    check_rewrite(rhs, again, SHAPES)
    assert holds(there, lhs, rhs) and holds(back, rhs, lhs)
    (pre,) = backward(there, rhs, n=1)  # the forward relation run backward
    check_rewrite(pre, rhs, SHAPES)


def test_an_equality_runs_both_ways_in_saturation():
    fam = _family()
    assert relations.saturate(x - y, fam.rules).same(x - y, x + pt.neg(y))
    assert relations.saturate(x + pt.neg(y), fam.rules).same(x + pt.neg(y), x - y)


def test_the_family_defaults_reach_its_entries():
    fam = Family("demo", docs="algebra.md", choice=True)
    r = fam.rewrite("neg_neg", p.neg(p.neg(a)), a, doc="Two negations cancel.")
    assert r.choice and 'See docs/algebra.md, "neg_neg".' in r.__doc__
    eq = Family("e").equal("exp_neg", p.exp(p.neg(a)), p.reciprocal(p.exp(a)), is_float(a), "Exp of a neg.")
    assert isinstance(eq, Equality) and [r.__name__ for r in eq] == ["exp_neg", "exp_neg_rev"]


def test_refusals_name_the_entry():
    fam = _family()
    with pytest.raises(ValueError, match="already has a rule named 'neg_neg'"):
        fam.rewrite("neg_neg", p.neg(p.neg(a)), a)
    with pytest.raises(TypeError, match="equality 'neg_id': rhs must be a node pattern"):
        fam.equal("neg_id", p.neg(p.neg(a)), a)
    with pytest.raises(KeyError, match="family 'demo' has no rule 'nope'"):
        fam["nope"]
    with pytest.raises(TypeError, match="name must be a non-empty string"):
        Family("")
    with pytest.raises(ValueError, match="docs must name a page"):
        Family("demo", docs="docs/algebra")
    with pytest.raises(ValueError, match="neither side of the rule binds"):
        fam.equal("bad", p.exp(a), p.exp(p.neg(p.neg(a))), positive(b))


def test_the_algebra_table_is_one_line_entries_of_one_family():
    assert ALGEBRA_RULES == ALGEBRA.rules and len(ALGEBRA_RULES) == 47
    equalities = [r.__name__ for r in ALGEBRA_RULES if r.__name__.endswith("_rev")]
    assert len(equalities) == 5
    for name in equalities:  # each reversed relation is its equality's sides swapped
        there, back = ALGEBRA[name.removesuffix("_rev")], ALGEBRA[name]
        assert repr(there.lhs) == repr(back.rhs) and repr(there.rhs) == repr(back.lhs)


def test_a_direction_states_the_measure_its_patterns_give_else_runs_in_saturation_only():
    fam = _family()
    assert fam["sub_add_neg"].measure.stated and fam["sub_add_neg"].measure.text == "Sub nodes"
    assert fam["sub_add_neg_rev"].measure.text == "Add nodes"
    logs = Family("logs")
    logs.equal("log_recip", p.log(p.reciprocal(a)), p.neg(p.log(a)), positive(a), "Log of a reciprocal.")
    assert not logs["log_recip"].measure.stated  # log(reciprocal(a)) -> neg(log(a)) builds a Log
    assert logs["log_recip_rev"].measure.text == "Neg nodes"
    with pytest.raises(ValueError, match="'log_recip'"):
        relations.normalize(pt.log(pt.reciprocal(pt.exp(x))), logs.rules)
