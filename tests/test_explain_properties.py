"""On random graphs: explanations check, proofs check, the compile pass replays every step."""

from __future__ import annotations

import pytensor
from hypothesis import HealthCheck, given, settings
from pytensor.graph.basic import equal_computations
from pytensor.graph.fg import FunctionGraph

import relations
from helpers import snapshot, structure
from strategies import Drawn, graphs
from test_rewrite_reporting import Reasons, relational_rewriter

#: few examples: the slow property suite (test_properties.py) covers values and types
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(graphs(max_nodes=8))
def test_explanations_and_proofs_check(drawn: Drawn):
    before = snapshot(*drawn.outputs)
    e = relations.explain(drawn.outputs)
    assert snapshot(*drawn.outputs) == before, drawn.describe()
    normal = relations.normalize(drawn.outputs)
    assert structure(e.result) == structure(normal), drawn.describe()
    assert e.check(), drawn.describe()
    p = relations.prove(drawn.outputs, normal)
    assert p is not None and p.check(), drawn.describe()


@SETTINGS
@given(graphs(max_nodes=8))
def test_compile_pass_replays_every_step(drawn: Drawn):
    # the compile-time pass applies relations.COMPILE_RULES
    steps = relations.explain(drawn.outputs, rules=relations.COMPILE_RULES).steps
    normal = relations.normalize(drawn.outputs, rules=relations.COMPILE_RULES)
    inputs = list(drawn.inputs)
    fg = FunctionGraph(inputs, drawn.outputs, clone=True)
    reasons = Reasons()
    fg.attach_feature(reasons)
    rewriter = relational_rewriter("relational_normalize")  # the greedy pass: its result is the normal form
    rewriter.add_requirements(fg)
    with pytensor.config.change_flags(optimizer_verbose=True):  # (off, the outputs are replaced at once)
        rewriter.apply(fg)
    assert "relational_normalize" not in reasons.reasons, drawn.describe()
    assert {s.rule for s in steps} == set(reasons.reasons), drawn.describe()
    assert equal_computations(fg.outputs, normal, fg.inputs, inputs), drawn.describe()
