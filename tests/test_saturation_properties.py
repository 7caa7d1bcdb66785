"""Property tests of the e-graph's queries on drawn graphs with random variables and Blockwise nodes.

``saturate`` + ``extract``, ``best``, ``forms``, ``equivalents`` and
``prove`` on graphs of ``strategies.graphs`` whose first step is often a
draw (``normal``, over a generator input) or a Blockwise (``matmul``,
``solve``), under a rule set drawn from ``relations.RULESETS`` (and all of
them together): every result keeps the output types and the values, the
input is not changed, and a proof checks.  Examples: the Hypothesis profile's
(``thorough``: 5,000), but at most :data:`FAST_EXAMPLES` in the ``fast``
profile CI runs (each example saturates and compiles a few graphs).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relations
from helpers import all_rules, assert_same_types, assert_same_values, snapshot
from relations.rules import greedy_part
from strategies import Drawn, graphs

#: Examples per property in the fast profile (about 10-20 s each here).
FAST_EXAMPLES = 150
FAST = os.environ.get("HYPOTHESIS_PROFILE", "fast") == "fast"
SETTINGS = settings(
    max_examples=min(settings().max_examples, FAST_EXAMPLES) if FAST else settings().max_examples,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
RULE_SETS = {**relations.RULESETS, "all": all_rules()}
if FAST:  # the numerics theory's examples take seconds each: the thorough profile draws it
    del RULE_SETS["numerics"]
#: Small bounds: the properties are about meaning, not reach.
LIMITS = relations.Limits(nodes=2_000, iterations=4, seconds=2.0)
#: the numerics theory (566 relations) grows an e-graph fast: smaller bounds keep an example under a second
NUMERICS_LIMITS = relations.Limits(nodes=800, iterations=2, seconds=0.5)


def limits_for(name: str) -> relations.Limits:
    """The bounds of the rule set ``name``'s examples."""
    return NUMERICS_LIMITS if name == "numerics" else LIMITS


@st.composite
def batched_graphs(draw) -> tuple[Drawn, str]:
    """A drawn graph (first step a draw, a Blockwise or anything) and a rule set's name."""
    family = draw(st.sampled_from(["random", "matmul", "solve", None]))
    drawn = draw(graphs(max_nodes=6, family=family))
    return drawn, draw(st.sampled_from(list(RULE_SETS)))


def _check(drawn: Drawn, outs) -> None:
    outs = [outs] if not isinstance(outs, list) else outs
    assert len(outs) == len(drawn.outputs)
    for b, a in zip(drawn.outputs, outs):
        assert_same_types(b, a)
    assert_same_values(drawn.outputs, outs, drawn.givens())


@SETTINGS
@given(batched_graphs())
def test_saturate_and_extract_keep_types_and_values(case):
    drawn, name = case
    before = snapshot(*drawn.outputs)
    eg = relations.saturate(drawn.outputs, RULE_SETS[name], limits=limits_for(name))
    assert eg.report.stop in ("saturated", "nodes", "iterations", "seconds"), drawn.describe()
    out = eg.extract()
    assert snapshot(*drawn.outputs) == before, drawn.describe()
    _check(drawn, out.result)


@SETTINGS
@given(batched_graphs())
def test_best_keeps_types_and_values(case):
    drawn, name = case
    before = snapshot(*drawn.outputs)
    out = relations.best(drawn.outputs, rules=RULE_SETS[name], limits=limits_for(name))
    assert snapshot(*drawn.outputs) == before, drawn.describe()
    _check(drawn, out)


@SETTINGS
@given(batched_graphs())
def test_forms_and_equivalents_keep_types_and_values(case):
    drawn, name = case
    rules = RULE_SETS[name]
    before = snapshot(*drawn.outputs)
    eg = relations.saturate(drawn.outputs, rules, limits=limits_for(name))
    forms = list(eg.forms(limit=2))
    assert forms, drawn.describe()  # the input itself is a form
    forms += list(relations.equivalents(drawn.outputs, limit=2, depth=2, rules=rules, timeout=2.0))
    assert snapshot(*drawn.outputs) == before, drawn.describe()
    for f in forms:
        _check(drawn, f)


@SETTINGS
@given(batched_graphs())
def test_prove_joins_a_graph_and_its_normal_form_and_checks(case):
    drawn, name = case
    rules = RULE_SETS[name]
    normal = relations.normalize(drawn.outputs, greedy_part(rules))  # normalize refuses the saturation-only rules
    proof = relations.prove(drawn.outputs, normal, rules=rules)  # (the default limits)
    assert proof is not None and proof.check(), drawn.describe()
    cheapest = relations.best(drawn.outputs, rules=rules, limits=limits_for(name))
    proof = relations.prove(drawn.outputs, cheapest, rules=rules)
    assert proof is not None and proof.check(), drawn.describe()


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_the_rule_sets_drawn_are_every_set_and_all_together(name):
    assert RULE_SETS[name] and all(callable(r) for r in RULE_SETS[name])


def test_regression_no_backward_preimage_of_a_reduction_over_no_axis():
    """Found by the thorough profile of the proof property: ``careduce_dimshuffle_partialo`` run backward
    from ``Sum{axes=()}(Exp(x))`` (``x`` 0-d) gave ``Sum{axis=0}(ExpandDims{axis=0}(Exp(x)))``, which the
    relation refuses forward and with both sides given; the proof through it did not check."""
    import pytensor.tensor as pt

    from helpers import backward, forward, holds
    from relations.rules.dimshuffle import careduce_dimshuffle_partialo

    x0 = pt.scalar("x0")
    over_none = pt.sum(pt.exp(x0), axis=())
    padded = pt.sum(pt.expand_dims(pt.exp(x0), 0), axis=0)
    assert forward(careduce_dimshuffle_partialo, padded) == []
    assert not holds(careduce_dimshuffle_partialo, padded, over_none)
    assert backward(careduce_dimshuffle_partialo, over_none) == []
    g = -over_none
    rules = relations.RULESETS["dimshuffle"]
    cheapest = relations.best([g], rules=rules, limits=LIMITS)
    proof = relations.prove([g], cheapest, rules=rules)
    assert proof is not None and proof.check()
    # a partial reduction over an added dim still has its preimages
    v = pt.vector("v")
    assert backward(careduce_dimshuffle_partialo, pt.sum(pt.exp(v), axis=0))
