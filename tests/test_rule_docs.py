"""A pattern rule's docstring is composed: its one-line doc, Before/After from its sides, its guards, its measure."""

import pytest

from graph_bridge import ndimo
from relations import patterns as p
from relations import rewrite_rule
from relations.rules.dimshuffle import careduce_dimshuffle_fullo
from relations.rules.lift import elemwise_alloco


def test_a_builtin_rule_docstring_shows_its_table_entry():
    assert careduce_dimshuffle_fullo.__doc__ == (
        "A full reduction does not see the layout of its input.\n\n"
        "Before::\n\n    careduce(dimshuffle(x, order=o), op=r, axis=None)\n\n"
        "After::\n\n    careduce(x, op=r, axis=None)\n\n"
        "Guards: ndimo(x, n), valid_ordero(n, o)\n\n"
        "Measure: DimShuffle nodes\n\n"
        'See docs/dimshuffle.md, "careduce_dimshuffle_fullo".\n'
    )


def test_goal_nodes_print_in_the_order_of_their_call():
    """``p.named``, ``p.elemwise(f, hole, ...)``, ``p.set_at``, ``p.reduce``: as the table writes them."""
    assert repr(elemwise_alloco.lhs) == "elemwise(f, named(hole, alloc_of(v, shape=shape)), before=b, after=a)"
    x, idx, c, h, k = p.var("x"), p.var("idx"), p.var("c"), p.var("h"), p.var("k")
    assert repr(p.set_at(x, idx, c, op=h)) == "set_at(x, idx, c, op=h)"
    assert repr(p.reduce(h, p.named(k, p.inc_at(x, idx, c, op=h)))) == "reduce(h, named(k, inc_at(x, idx, c, op=h)))"
    assert repr(p.elemwise_first(p.var("f"), p.reduce(h, x), c)) == "elemwise_first(f, reduce(h, x), c)"


def test_a_user_rule_without_doc_names_itself_and_shows_guards_of_every_kind():
    a = p.var("a")
    r = rewrite_rule("neg_neg", p.neg(p.neg(a)), a, where=(lambda a: a.type.ndim >= 1, ndimo(a, 1)))
    lines = r.__doc__.splitlines()
    assert lines[0] == "neg_neg: neg(neg(a)) -> a"
    assert "Guards: lambda a: ..., ndimo(a, 1)" in lines
    assert "Measure: all nodes" in lines  # the right side is smaller: the node count
    assert r.doc is None and not any(line.startswith("See docs/") for line in lines)


def test_a_longer_doc_is_kept_whole_before_the_composed_part():
    a = p.var("a")
    doc = """Two negations cancel.

        Exact in floating point too (a sign flip is exact).
        """
    r = rewrite_rule("neg_neg", p.neg(p.neg(a)), a, doc=doc, docs="writing_rules.md")
    assert r.doc == doc
    assert r.__doc__.startswith("Two negations cancel.\n\nExact in floating point too (a sign flip is exact).\n\nBefore::")
    assert r.__doc__.endswith('\n\nSee docs/writing_rules.md, "neg_neg".\n')


def test_a_described_measure_says_it_is_not_checked():
    a = p.var("a")
    r = rewrite_rule("exp_neg", p.exp(p.neg(a)), p.neg(p.exp(a)), measure="a claim")
    assert "Measure: a claim (only described: no test can check it)" in r.__doc__.splitlines()


def test_bad_doc_arguments_are_named():
    a = p.var("a")
    with pytest.raises(TypeError, match="doc must be a string"):
        rewrite_rule("neg_neg", p.neg(p.neg(a)), a, doc=["a list"])
    with pytest.raises(TypeError, match="docs must name a page"):
        rewrite_rule("neg_neg", p.neg(p.neg(a)), a, docs="docs/lift.md")
