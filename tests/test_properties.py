"""Property-based proof that no rewrite changes a result.

Hypothesis draws random well-typed graphs from the whole vocabulary
(``strategies.graphs``) with input values whose shapes agree with them, and
every property below must hold for each.  The number of examples comes from
the Hypothesis profile (``tests/conftest.py``): ``fast`` (300, the default,
what CI runs) or ``thorough`` (5,000: ``HYPOTHESIS_PROFILE=thorough``).
Counterexamples found along the way are kept as regular tests in
``test_regressions.py``.
"""

from __future__ import annotations

import numpy as np
import pytensor
import pytest
from hypothesis import HealthCheck, given, settings

import relations
from graph_bridge import ExplicitAlloc, ExplicitElemwise
from helpers import (
    MODE,
    assert_close,
    assert_no_kind_grows,
    assert_same_types,
    assert_same_values,
    graph_ops,
    snapshot,
    structure,
    whole_passes,
)
from relations.compile.workarounds import protect
from relations.rules import DEFAULT_INDEX
from strategies import Drawn, graphs

pytestmark = pytest.mark.slow

SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(graphs(max_nodes=8))
def test_normalize_keeps_types_values_and_input_and_is_idempotent(drawn: Drawn):
    _check_normalize(drawn)


def _check_normalize(drawn: Drawn) -> None:
    """``normalize`` leaves the input unchanged, keeps types and values, and is idempotent."""
    before = snapshot(*drawn.outputs)
    normal = relations.normalize(drawn.outputs)
    assert snapshot(*drawn.outputs) == before, drawn.describe()  # the input is unchanged
    for b, a in zip(drawn.outputs, normal):
        assert_same_types(b, a)
    assert_same_values(drawn.outputs, normal, drawn.givens())
    again = relations.normalize(normal)
    assert structure(again) == structure(normal), drawn.describe()


def test_normalize_on_inputs_whose_dimshuffles_share_an_added_axis():
    """Graphs whose first step is an Elemwise of two DimShuffles of differing orders sharing an added axis
    (``strategies._shared_axis``: ``x[None] op sum(x, k).dimshuffle(...)``), the shape the recipes never draw:
    ``normalize`` keeps types, values and the input, is idempotent, and ``expand_dims_through_elemwiseo`` is a
    step of the explanation for some of them."""
    fired: list[bool] = []

    @SETTINGS
    @given(graphs(max_nodes=6, family="shared_axis"))
    def check(drawn: Drawn) -> None:
        _check_normalize(drawn)
        fired.append(any(s.rule == "expand_dims_through_elemwiseo" for s in relations.explain(drawn.outputs).steps))

    check()
    assert any(fired), f"the rule fired on none of {len(fired)} draws"


@SETTINGS
@given(graphs(max_nodes=8))
def test_the_choice_rules_keep_types_and_values(drawn: Drawn):
    """The rule set "choices" (reductions through broadcasts, Allocs and writes; the shared lift) run greedily."""
    before = snapshot(*drawn.outputs)
    out = relations.normalize(drawn.outputs, rules=relations.DEFAULT_RULES + relations.RULESETS["choices"])
    assert snapshot(*drawn.outputs) == before, drawn.describe()
    for b, a in zip(drawn.outputs, out):
        assert_same_types(b, a)
    assert_same_values(drawn.outputs, out, drawn.givens())


@SETTINGS
@given(graphs(max_nodes=8))
def test_normalize_never_duplicates_a_node(drawn: Drawn):
    """No node kind but Elemwise grows (reductions: by the Join pieces), and the use
    counts the rules see stay those of the graph being built."""
    from graph_bridge import GraphContext, graph_context
    from graph_bridge.traverse import owned_variables
    from relations.greedy.fixpoint import Normalizer

    norm = Normalizer(DEFAULT_INDEX, GraphContext(drawn.outputs))
    with graph_context(norm.context):
        normal = [norm.normal(o) for o in drawn.outputs]
    assert_no_kind_grows(drawn.outputs, normal)
    fresh = GraphContext(normal)
    for v in owned_variables(normal):
        for i in (v, *v.owner.inputs):  # a later pass goes on with these counts
            assert norm.context.uses(i) == fresh.uses(i), (i, drawn.describe())
            assert norm.context.other_uses(i) == fresh.other_uses(i), (i, drawn.describe())


@SETTINGS
@given(graphs(max_nodes=16))
def test_later_passes_give_what_whole_new_passes_give(drawn: Drawn):
    """After the first pass, ``normalize`` walks only what a loosened use guard can change."""
    from pytensor.graph.basic import equal_computations

    from graph_bridge.traverse import count_nodes

    normal = relations.normalize(drawn.outputs)
    reference = whole_passes(drawn.outputs)
    assert equal_computations(normal, reference), drawn.describe()
    assert count_nodes(normal) == count_nodes(reference), drawn.describe()


@SETTINGS
@given(graphs(max_nodes=8))
def test_equivalent_forms_agree(drawn: Drawn):
    before = snapshot(*drawn.outputs)
    forms = list(relations.equivalents(drawn.outputs, limit=5))
    assert snapshot(*drawn.outputs) == before
    # each form compiled on its own with the input: PyTensor 3.0's
    # local_add_of_sparse_write turns an add of a set at repeated indices into
    # an inc when several outputs share the set, in one function (a PyTensor bug)
    for f in forms:
        for b, a in zip(drawn.outputs, f):
            assert_same_types(b, a)
        assert_same_values(drawn.outputs, f, drawn.givens())


#: Examples of the default-mode property under the fast profile: each compiles a new graph with Numba (0.5-1 s;
#: 300 of them took 268 s of the suite); the values of the normal forms are compared on the profile's 300 in
#: FAST_COMPILE above.  The thorough profile runs its own count.
DEFAULT_MODE_EXAMPLES = 60
FAST_PROFILE = settings().max_examples <= 300


@pytest.mark.default_mode
@settings(SETTINGS, max_examples=DEFAULT_MODE_EXAMPLES if FAST_PROFILE else settings().max_examples)
@given(graphs(max_nodes=8))
def test_lowered_normal_form_compiles_in_the_default_mode_and_agrees(drawn: Drawn):
    """``lower(normalize(g))`` compiles in PyTensor's default mode (Numba here) and agrees with ``g``."""
    low = relations.lower(relations.normalize(drawn.outputs))
    assert not any(isinstance(op, (ExplicitElemwise, ExplicitAlloc)) for op in graph_ops(*low))
    for b, a in zip(drawn.outputs, low):
        assert_same_types(b, a)
    if drawn.may_raise:  # the two sides must raise alike: compile them apart
        assert_same_values(drawn.outputs, low, drawn.givens(), mode=None)
        return
    # one function in PyTensor's default mode (Numba here) computes both sides; the
    # reference is the input as the work-around states it (PyTensor miscompiles bool
    # add/mul chains, and the toolkit no longer changes graphs it did not touch)
    givens = drawn.givens()
    k = len(drawn.outputs)
    reference = protect(list(drawn.outputs))
    try:
        fn = pytensor.function(list(givens), [*reference, *low], on_unused_input="ignore")
        values = fn(*givens.values())
    except Exception:  # noqa: BLE001 - then each side must raise on its own too
        assert_same_values(drawn.outputs, low, givens, mode=None)
        return
    for b, a in zip(values[:k], values[k:]):
        assert_close(b, a)


def test_property_profile_runs_enough_examples():
    """CI's fast profile gives every property at least 300 examples (the default-mode one
    ``DEFAULT_MODE_EXAMPLES``: a Numba compile each)."""
    assert settings().max_examples >= 300
    assert np.isfinite(settings().max_examples)
    assert MODE == "FAST_COMPILE"
    assert pytensor.config.floatX in ("float64", "float32")
