"""Every rule's declared ``measure`` decreases on every rewrite normalize makes.

``@rule(measure=...)`` states, in words, what strictly decreases from a
rule's left side to its right side (that is why normalize stops).  Here each
of those statements is also a function on a sub-graph, looked up by the
rule's ``measure`` text: on random graphs (``strategies.graphs``) every
rewrite normalize reports (``on_rewrite``) must make the rule's measure of
the replaced sub-graph strictly smaller, and what the text says does not
grow must not grow.  A rule whose measure text has no function here fails
``test_every_default_rule_has_a_checked_measure``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytensor.tensor as pt
from hypothesis import HealthCheck, given, settings
from pytensor.graph.basic import Variable
from pytensor.graph.traversal import ancestors
from pytensor.tensor.basic import Alloc, Join
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

import relations
from graph_bridge import ExplicitAlloc
from graph_bridge.traverse import owned_variables
from relations.engine import normalize_variables
from relations.lift import SET_CLASSES
from relations.rules import RuleIndex
from strategies import Drawn, graphs

Measure = Callable[[list[Variable]], int]


def _nodes(v: Variable) -> list:
    """The distinct nodes of ``v``'s sub-graph."""
    return list({id(u.owner): u.owner for u in owned_variables([v])}.values())


def _count(test) -> Callable[[Variable], int]:
    return lambda v: sum(1 for n in _nodes(v) if test(n))


def _below_reduction(v: Variable) -> int:
    fed = {id(i.owner) for n in _nodes(v) if isinstance(n.op, CAReduce) for i in n.inputs if i.owner is not None}
    return sum(1 for n in _nodes(v) if isinstance(n.op, DimShuffle) and id(n) in fed)


def _pairs(lower) -> Callable[[Variable], int]:
    """Pairs (node ``lower`` accepts, Elemwise on its way to the outputs): moving one past one removes one."""

    def measure(v: Variable) -> int:
        total = 0
        for n in _nodes(v):
            if type(n.op) is Elemwise:
                total += len({id(a.owner) for a in ancestors(n.inputs) if a.owner is not None and lower(a.owner)})
        return total

    return measure


def _paths_below(lower) -> Callable[[Variable], int]:
    """Pairs (node ``lower`` accepts, Elemwise above it), counted once per path through such nodes.

    A node is above an Elemwise when it is an input of it, or an input of
    such a node, and so on (only through nodes ``lower`` accepts, and
    DimShuffles, which count for nothing themselves).  Lifting ``f`` past
    one such node removes that node's path and hands each path below it to
    exactly one of the copies of ``f``; its other inputs are scalar-like,
    and a copy takes them without their DimShuffle (``scalar_of``), which is
    why paths go through DimShuffles: a 0-d Alloc behind an ExpandDims is
    reached before and after alike.  Counting paths rather than distinct
    nodes keeps a node both copies reach counted as it was before.
    """

    def measure(v: Variable) -> int:
        memo: dict[int, int] = {}

        def paths(w: Variable) -> int:
            node = w.owner
            if node is None:
                return 0
            through = isinstance(node.op, DimShuffle)
            if not (through or lower(node)):
                return 0
            if id(w) not in memo:
                memo[id(w)] = (0 if through else 1) + sum(paths(i) for i in node.inputs)
            return memo[id(w)]

        return sum(paths(i) for n in _nodes(v) if type(n.op) is Elemwise for i in n.inputs)

    return measure


def _is_inc(n) -> bool:
    return type(n.op) in SET_CLASSES and not n.op.set_instead_of_inc


dimshuffles = _count(lambda n: isinstance(n.op, DimShuffle))
all_nodes = _count(lambda n: True)

def _weighted_operands(v: Variable) -> int:
    """Sum over Elemwise nodes of their operands times 8 to the number of reductions above them."""
    from graph_bridge import ExplicitElemwise

    nodes = _nodes(v)
    clients: dict[int, list] = {}
    for n in nodes:
        for i in n.inputs:
            if i.owner is not None:
                clients.setdefault(id(i.owner), []).append(n)
    above: dict[int, int] = {}

    def reductions_above(n) -> int:  # iterative over a DAG: nodes sorted so clients come first
        return above[id(n)]

    order = _topological(nodes)
    for n in reversed(order):
        above[id(n)] = max(
            (above[id(c)] + isinstance(c.op, CAReduce) for c in clients.get(id(n), ())), default=0
        )
    return sum(
        len(n.inputs) * 8 ** reductions_above(n) for n in nodes if isinstance(n.op, (Elemwise, ExplicitElemwise))
    )


def _topological(nodes: list) -> list:
    from pytensor.graph.traversal import io_toposort

    outs = [o for n in nodes for o in n.outputs]
    ins = [i for n in nodes for i in n.inputs if i.owner is None]
    return io_toposort(ins, outs)


def _is_set(n) -> bool:
    return type(n.op) in SET_CLASSES and bool(n.op.set_instead_of_inc)


#: measure text -> (what decreases, [what does not grow])
MEASURES: dict[str, tuple[Callable[[Variable], int], list[Callable[[Variable], int]]]] = {
    "number of Join nodes (-1)": (_count(lambda n: isinstance(n.op, Join)), []),
    "number of DimShuffle nodes (-1)": (dimshuffles, []),
    "DimShuffles below a CAReduce (-1); node count does not grow": (_below_reduction, [all_nodes]),
    "Elemwise nodes between a DimShuffle and the outputs (-1); DimShuffles do not grow": (
        _pairs(lambda n: isinstance(n.op, DimShuffle)),
        [dimshuffles],
    ),
    "CAReduce nodes (-1); DimShuffles do not grow": (_count(lambda n: isinstance(n.op, CAReduce)), [dimshuffles]),
    "pairs (set node, Elemwise above it) (-1)": (_paths_below(lambda n: type(n.op) in SET_CLASSES), []),
    "pairs (Alloc, Elemwise above it) (-1)": (_paths_below(lambda n: type(n.op) in (Alloc, ExplicitAlloc)), []),
    "inc nodes (-1)": (_count(_is_inc), []),
    "Elemwise operands weighted 8**(reductions above) (drops)": (_weighted_operands, []),
    "CAReduce nodes (-1)": (_count(lambda n: isinstance(n.op, CAReduce)), []),
    "number of set nodes (-1)": (_count(_is_set), []),
    "number of stock Alloc nodes (-1)": (_count(lambda n: type(n.op) is Alloc), []),
    "number of stock Elemwise nodes of ndim >= 1 with two or more inputs (-1)": (
        _count(lambda n: type(n.op) is Elemwise and n.outputs[0].type.ndim >= 1 and len(n.inputs) >= 2),
        [],
    ),
}


def test_a_zero_d_alloc_behind_an_expand_dims_counts_before_and_after_a_lift():
    """Hypothesis found it: f(Alloc(0, n), ExpandDims(Alloc(s))) -> Alloc(f(0, Alloc(s)), n)."""
    import pytensor.tensor as pt

    s = pt.alloc(pt.sum(pt.vector("v")))  # a 0-d Alloc
    zeros = pt.alloc(pt.constant(0.0), pt.constant(3, dtype="int8"))
    graph = pt.set_subtensor(zeros[0], -s) + pt.expand_dims(s, 0)
    assert "elemwise_alloco" in _check_steps([graph])


def test_every_default_rule_has_a_checked_measure():
    for r in relations.DEFAULT_RULES:
        assert r.measure in MEASURES, (r.__name__, r.measure)


def _check_steps(outputs: list[Variable], rules: tuple = ()) -> list[str]:
    steps = []

    def record(rule, before, after):
        decreases, not_growing = MEASURES[rule.measure]
        assert decreases(after) < decreases(before), (rule.__name__, rule.measure, before, after)
        for m in not_growing:
            assert m(after) <= m(before), (rule.__name__, rule.measure, before, after)
        steps.append(rule.__name__)

    normalize_variables(outputs, RuleIndex(rules or relations.DEFAULT_RULES), on_rewrite=record)
    return steps


def test_every_choice_rule_has_a_checked_measure():
    for r in relations.RULESETS["choices"]:
        assert r.measure in MEASURES, (r.__name__, r.measure)


def test_the_choices_decrease_their_measures():
    import numpy as np

    m3 = pt.matrix("m3", shape=(3, None))
    row = pt.matrix("row", shape=(1, None))
    w6 = pt.vector("w6", shape=(6,))
    graphs_ = [
        pt.sum(pt.sum(m3 * row * pt.exp(row), axis=0)),  # a reduction above another
        pt.sum(pt.sum(m3 + row + row, axis=0)),
        pt.sum(-(m3 - row), axis=0),
        pt.sum(pt.alloc(pt.scalar("c"), 3, 4), axis=0),
        pt.max(pt.set_subtensor(pt.zeros((4, 4))[np.tril_indices(4, -1)], w6)),
    ]
    fired = set()
    for g in graphs_:
        fired.update(_check_steps([g], relations.RULESETS["choices"]))
    assert fired >= {"sum_factor_broadcasto", "sum_count_broadcasto", "reduce_alloco", "reduce_writeso"}, fired


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_every_choice_rewrite_decreases_its_rules_measure(drawn: Drawn):
    _check_steps(list(drawn.outputs), relations.DEFAULT_RULES + relations.RULESETS["choices"])


def test_the_check_sees_rewrites_and_fails_on_a_wrong_measure():
    x = pt.vector("x")
    y = pt.sum(pt.join(0, pt.expand_dims(x, 0), pt.expand_dims(x, 0)))
    assert "careduce_joino" in _check_steps([y])
    # the same rewrite judged by a measure it does not decrease (node count) fails
    saved = MEASURES["number of Join nodes (-1)"]
    MEASURES["number of Join nodes (-1)"] = (all_nodes, [])
    try:
        try:
            _check_steps([y])
        except AssertionError:
            pass
        else:
            raise AssertionError("a measure that grows was not caught")
    finally:
        MEASURES["number of Join nodes (-1)"] = saved


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(graphs(max_nodes=8))
def test_every_rewrite_decreases_its_rules_measure(drawn: Drawn):
    _check_steps(list(drawn.outputs))
