"""``relations.why_not``: on spellings PyTensor's stabilizers (and the toolkit's rules) miss, the piece each
was missing, checked against the repaired spelling, which the same target then matches."""

from __future__ import annotations

import numpy as np
import pytensor.tensor as pt
import pytest
from pytensor.tensor.rewriting import math as prm
from pytensor.tensor.rewriting import special as prs

import relations
from helpers import snapshot
from relations import patterns as p
from relations.lang import is_float, positive
from relations.rules.algebra import ALGEBRA

x, y = pt.dvector("x"), pt.dvector("y")
i = pt.lvector("i")
X = p.var("x")
A, C = p.var("a"), p.var("c")
LOG_MUL = relations.rewrite_rule("log_mul_pos", p.log(p.mul(C, A)), p.add(p.log(C), p.log(A)),
                                 where=is_float(A) & positive(C), choice=True)
Z = -x / np.sqrt(2)

#: name -> (missed spelling, target, kind, the missing piece as why_not names it, Ops the class holds,
#:          the repaired spelling the target matches)
CORPUS = {
    "normal logcdf through erfc, a constant factor": (
        lambda: pt.log(0.5 * pt.erfc(Z)), prm.local_log_erfc, "spelling", "erfc(x)", "Mul",
        lambda: pt.log(pt.erfc(Z))),
    "log of a scaled sigmoid": (
        lambda: pt.log(2 * pt.sigmoid(x)), prm.logsigm_to_softplus, "spelling", "sigmoid(x)", "Mul",
        lambda: pt.log(pt.sigmoid(x))),
    "one minus erf times one": (
        lambda: 1 - pt.erf(x) * 1.0, prm.local_one_minus_erf, "spelling", "erf(x)", "Mul",
        lambda: 1 - pt.erf(x)),
    "log of a sum of exps, one scaled": (
        lambda: pt.log(pt.exp(x) + 3 * pt.exp(y)), "local_log_add_exp", "spelling", "exp(y)", "Mul",
        lambda: pt.log(pt.exp(x) + pt.exp(y))),
    "log of two plus exp": (
        lambda: pt.log(2 + pt.exp(x)), prm.local_log1p, "spelling", "the constant 1", "2",
        lambda: pt.log(1 + pt.exp(x))),
    "exp minus two": (
        lambda: pt.exp(x) - 2, prm.local_expm1, "spelling", "the constant 1", "2",
        lambda: pt.exp(x) - 1),
    "exp over two plus exp": (
        lambda: pt.exp(x) / (2 + pt.exp(x)), prm.local_exp_over_1_plus_exp, "spelling", "the constant 1", "2",
        lambda: pt.exp(x) / (1 + pt.exp(x))),
    "sigmoid times exp of x": (
        lambda: pt.sigmoid(x) * pt.exp(x), prm.local_sigm_times_exp, "spelling", "neg(x)", "x",
        lambda: pt.sigmoid(x) * pt.exp(-x)),
    "log1p of a scaled exp": (
        lambda: pt.log1p(pt.exp(x) * 2.0), prm.local_log1p_plusminus_exp, "spelling", "exp(x)", "Mul",
        lambda: pt.log1p(pt.exp(x))),
    "log of a row sum of scaled exps": (
        lambda: pt.log(pt.sum(2.0 * pt.exp(pt.matrix("m")), axis=1)), "local_log_sum_exp", "spelling", "exp(x)",
        "Mul", lambda: pt.log(pt.sum(pt.exp(pt.matrix("m")), axis=1))),
    "log one minus a scaled sigmoid": (
        lambda: pt.log(1 - 0.5 * pt.sigmoid(x)), prm.log1msigm_to_softplus, "spelling", "sigmoid(x)", "Mul",
        lambda: pt.log(1 - pt.sigmoid(x))),
    "two minus erfc": (
        lambda: 2 - pt.erfc(x), prm.local_one_minus_erfc, "spelling", "the constant 1", "2",
        lambda: 1 - pt.erfc(x)),
    "erf minus two": (
        lambda: -2 + pt.erf(x), prm.local_erf_minus_one, "spelling", "the constant -1", "-2",
        lambda: -1 + pt.erf(x)),
    "one minus a sigmoid times one": (
        lambda: 1 - pt.sigmoid(x) * 1.0, prm.local_1msigmoid, "spelling", "sigmoid(x)", "Mul",
        lambda: 1 - pt.sigmoid(x)),
    "log of exp minus a scaled exp": (
        lambda: pt.log(pt.exp(x) - 2 * pt.exp(y)), prm.logdiffexp_to_log1mexpdiff, "spelling", "exp(y)", "Mul",
        lambda: pt.log(pt.exp(x) - pt.exp(y))),
    "odds of two sigmoids": (
        lambda: pt.sigmoid(x) / (1 - pt.sigmoid(y)), "local_odds_sigmoid", "binding", "bound to two classes",
        None, lambda: pt.sigmoid(x) / (1 - pt.sigmoid(x))),
    "log of sigmoid of a sum, scaled": (
        lambda: pt.log(pt.sigmoid(x + y) * 0.5), prm.logsigm_to_softplus, "spelling", "sigmoid(x)", "Mul",
        lambda: pt.log(pt.sigmoid(x + y))),
    "log(erfc) under a log of a cdf, a factor inside": (
        lambda: pt.log(pt.erfc(Z) / 2), p.log(p.erfc(X)), "spelling", "erfc(x)", "TrueDiv",
        lambda: pt.log(pt.erfc(Z))),
    "minus one times an int": (
        lambda: pt.mul(-1, i), ALGEBRA["mul_minus_one_nego"], "guard", "is_float(a) does not hold", None,
        lambda: pt.mul(-1.0, x)),
    "log of a product, a factor of unknown sign": (
        lambda: pt.log(x * pt.exp(y)), LOG_MUL, "guard", "positive(c) does not hold", None,
        lambda: pt.log(pt.exp(y) * x)),
    "log of a product with a variable factor": (
        lambda: pt.log(x * pt.sum(pt.exp(pt.matrix("m")), axis=1)), ALGEBRA["log_mul_positive_consto"], "guard",
        "positive_constant(c) does not hold", None, lambda: pt.log(3.0 * pt.sum(pt.exp(pt.matrix("m")), axis=1))),
    "log of a power with an int base": (
        lambda: pt.log(pt.exp(i)), p.log(p.exp(X)), None, None, None, lambda: pt.log(pt.exp(i))),
}


def _target(t):
    """A rewriter named by a string: PyTensor's math or special rewrites hold it (which, by version)."""
    if not isinstance(t, str):
        return t
    return getattr(prm, t, None) or getattr(prs, t, None) or t


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_why_not_names_the_missing_piece_and_the_repair_matches(name):
    make, target, kind, piece, holds, repaired = CORPUS[name]
    target = _target(target)
    if isinstance(target, str):
        pytest.skip(f"{target} is not a rewriter of this PyTensor")
    g = make()
    before = snapshot(g)
    answer = relations.why_not(g, target)
    assert snapshot(g) == before
    best = answer.closest[0]
    if kind is None:
        assert answer.matches and best.missing is None
        return
    assert not answer.matches, str(answer)
    assert best.kind == kind and piece in best.missing, str(answer)
    if holds is not None:
        assert best.missing.endswith(f"which holds {holds}") or f"holds {holds}" in best.missing, str(answer)
    fixed = relations.why_not(repaired(), target)
    assert fixed.matches, f"the repaired spelling does not match either:\n{fixed}"


def test_the_corpus_has_twenty_missed_spellings():
    """At least 20 missed spellings whose target this PyTensor has (one rewriter is 3.3's only)."""
    assert sum(1 for c in CORPUS.values() if c[2] is not None and not isinstance(_target(c[1]), str)) >= 20


def test_an_op_no_class_holds_and_a_bound_that_stopped_the_search():
    g = pt.log(0.5 * pt.erfc(Z))
    answer = relations.why_not(g, pt.log1p)
    assert answer.closest == [] and "no class holds the Op" in str(answer)
    tight = relations.Limits(iterations=1)
    bounded = relations.why_not(pt.log(pt.exp(x) * -1.0 - pt.neg(y)), p.log(p.erfc(X)),
                                rules=relations.RULESETS["algebra"], limits=tight)
    assert not bounded.saturated and "bound: the search stopped before saturating" in str(bounded)


def test_a_function_rewriter_without_a_known_spelling_says_where_it_ran():
    from pytensor.graph.rewriting.basic import node_rewriter

    @node_rewriter([pt.log])
    def never(fgraph, node):
        return None

    answer = relations.why_not(pt.log(pt.exp(x) * 2), never)
    assert answer.closest[0].kind == "rewriter" and "returned no replacement" in answer.closest[0].missing


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="target must be a pattern"):
        relations.why_not(pt.log(x), 3)
    with pytest.raises(ValueError, match="closest must be a positive int"):
        relations.why_not(pt.log(x), p.log(X), closest=0)
    with pytest.raises(TypeError, match="graph"):
        relations.why_not("log(x)", p.log(X))


def test_explain_says_which_rewriter_came_closest_and_what_it_lacked():
    g = pt.log(0.5 * pt.erfc(Z))
    text = str(relations.explain(g, rewriters=("stabilize",)))
    assert "closest: local_log_erfc at class" in text and "spelling: erfc(x) at class" in text
