"""Measures: what strictly decreases from a rule's left side to its right, as functions of a sub-graph.

A rule declares its measure (``@rule(measure=count(DimShuffle))``,
``rewrite_rule(..., measure=...)``): a :class:`Measure` maps a variable to a
number over the distinct nodes of its sub-graph, and may name others that
must not grow.  Normalization stops because every rewrite makes its rule's
measure smaller; ``tests/test_measures.py`` checks that, for every rule of
``relations.RULESETS``, on random graphs, from the measures themselves.

- :func:`count`: nodes of some Op classes (optionally a test on the node);
- :func:`nodes`: every node;
- :func:`below`: nodes of some classes that feed a node of others
  (DimShuffles below a reduction);
- :func:`elemwise_above`: pairs (a node ``lower`` accepts, an Elemwise on
  its way to the output); :func:`above` the same for another Op class;
- :func:`paths_below`: those pairs counted once per path through such nodes
  and DimShuffles (what lifting an Elemwise past a node removes);
- :func:`unstated`: a text without a function (a rule of your own whose
  measure is only described); calling it raises.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytensor.graph.basic import Variable
from pytensor.graph.traversal import ancestors, io_toposort
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

from graph_bridge.ops import ExplicitElemwise
from graph_bridge.traverse import owned_variables

__all__ = [
    "scalar_count",
    "Measure",
    "above",
    "below",
    "weighted_operands",
    "count",
    "elemwise_above",
    "nodes",
    "paths_below",
    "unstated",
]


def graph_nodes(v: Variable) -> list:
    """The distinct nodes of ``v``'s sub-graph."""
    return list({u.owner: None for u in owned_variables([v])})


class Measure:
    """``measure(v)``: a number over ``v``'s sub-graph that each rewrite of the rule makes smaller.

    ``text`` says it in words; ``not_growing`` are measures a rewrite must not
    increase.  ``decreases(before, after)`` checks both.
    """

    __slots__ = ("text", "of", "not_growing")

    def __init__(self, text: str, of: Callable[[Variable], int] | None, not_growing: Sequence[Measure] = ()) -> None:
        if not isinstance(text, str) or not text:
            raise TypeError(f"text must be a non-empty string, got {text!r}")
        self.text = text
        self.of = of
        self.not_growing = tuple(not_growing)

    @property
    def stated(self) -> bool:
        """Whether the measure is a function (not only a text): every built-in rule's is."""
        return self.of is not None and all(m.stated for m in self.not_growing)

    def __call__(self, v: Variable) -> int:
        if self.of is None:
            raise TypeError(f"the measure {self.text!r} is only a text; give the rule a Measure (count(...), ...)")
        return self.of(v)

    def keeping(self, *others: Measure) -> Measure:
        """This measure, and ``others`` must not grow."""
        text = self.text + "; " + ", ".join(f"{m.text} do not grow" for m in others)
        return Measure(text, self.of, self.not_growing + others)

    def decreases(self, before: Variable, after: Variable) -> bool:
        """Whether ``after`` is smaller than ``before`` by this measure, and grows in none of ``not_growing``."""
        return self(after) < self(before) and all(m(after) <= m(before) for m in self.not_growing)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Measure({self.text!r})"


def _matches(classes: tuple, exact: bool, test: Callable[[Any], bool] | None) -> Callable[[Any], bool]:
    def accepts(node: Any) -> bool:
        op = node.op
        if classes and not (type(op) in classes if exact else isinstance(op, classes)):
            return False
        return test is None or bool(test(node))

    return accepts


def _name(classes: tuple, text: str | None) -> str:
    return text or ("/".join(c.__name__ for c in classes) if classes else "all")


def count(
    *classes: type, exact: bool = False, test: Callable[[Any], bool] | None = None, text: str | None = None
) -> Measure:
    """The number of nodes whose Op is an instance of ``classes`` (of exactly one, ``exact``) and passes ``test``."""
    accepts = _matches(classes, exact, test)
    return Measure(f"{_name(classes, text)} nodes", lambda v: sum(1 for n in graph_nodes(v) if accepts(n)))


def scalar_count(cls: type, text: str) -> Measure:
    """The number of Elemwise nodes (stock or explicit-broadcast) whose scalar op is a ``cls``."""
    return count(test=lambda node: isinstance(getattr(node.op, "scalar_op", None), cls), text=text)


def nodes() -> Measure:
    """The number of nodes."""
    return Measure("all nodes", lambda v: len(graph_nodes(v)))


def below(lower: Sequence[type], upper: Sequence[type]) -> Measure:
    """The number of ``lower`` nodes that are an input's owner of an ``upper`` node."""
    lower, upper = tuple(lower), tuple(upper)

    def of(v: Variable) -> int:
        found = graph_nodes(v)
        fed = {i.owner for n in found if isinstance(n.op, upper) for i in n.inputs if i.owner is not None}
        return sum(1 for n in found if isinstance(n.op, lower) and n in fed)

    return Measure(f"{_name(lower, None)} nodes below a {_name(upper, None)}", of)


def elemwise_above(lower: Callable[[Any], bool], text: str) -> Measure:
    """Pairs (node ``lower`` accepts, stock Elemwise on its way to the output): moving one past one removes one."""
    return above(lower, Elemwise, text)


def above(lower: Callable[[Any], bool], upper: type, text: str) -> Measure:
    """Pairs (node ``lower`` accepts, node of exactly the class ``upper`` on its way to the output)."""

    def of(v: Variable) -> int:
        total = 0
        for n in graph_nodes(v):
            if type(n.op) is upper:
                total += len({a.owner for a in ancestors(n.inputs) if a.owner is not None and lower(a.owner)})
        return total

    return Measure(f"pairs ({text}, {upper.__name__} above it)", of)


def paths_below(lower: Callable[[Any], bool], text: str) -> Measure:
    """Pairs (node ``lower`` accepts, stock Elemwise above it), counted once per path through such nodes.

    A node is above an Elemwise when it is an input of it, or an input of
    such a node, and so on (only through nodes ``lower`` accepts, and
    DimShuffles, which count for nothing themselves).  Lifting ``f`` past
    one such node removes that node's path and hands each path below it to
    exactly one of the copies of ``f``; its other inputs are scalar-like,
    and a copy takes them without their DimShuffle, which is why paths go
    through DimShuffles.  Counting paths rather than distinct nodes keeps a
    node both copies reach counted as it was before.
    """

    def of(v: Variable) -> int:
        memo: dict[Variable, int] = {}

        def paths(w: Variable) -> int:
            node = w.owner
            if node is None:
                return 0
            through = isinstance(node.op, DimShuffle)
            if not (through or lower(node)):
                return 0
            if w not in memo:
                memo[w] = (0 if through else 1) + sum(paths(i) for i in node.inputs)
            return memo[w]

        return sum(paths(i) for n in graph_nodes(v) if type(n.op) is Elemwise for i in n.inputs)

    return Measure(f"paths ({text}, Elemwise above it)", of)


def unstated(text: str) -> Measure:
    """A measure given only as ``text`` (it cannot be checked)."""
    return Measure(text, None)


def weighted_operands() -> Measure:
    """Operands of Elemwise nodes, each weighted 8 to the number of reductions above its node.

    Moving a reduction below an Elemwise (``Sum(a * b) -> a * Sum(b)`` with
    ``a`` broadcast) takes the Elemwise out from under one reduction: its
    weight drops by 8x, and what the rewrite adds (a Mul by a length) stays
    below that.
    """

    def of(v: Variable) -> int:
        found = graph_nodes(v)
        clients: dict[Any, list] = {}
        for n in found:
            for i in n.inputs:
                if i.owner is not None:
                    clients.setdefault(i.owner, []).append(n)
        outs = [o for n in found for o in n.outputs]
        ins = [i for n in found for i in n.inputs if i.owner is None]
        above: dict[Any, int] = {}
        for n in reversed(io_toposort(ins, outs)):  # clients first
            above[n] = max((above[c] + isinstance(c.op, CAReduce) for c in clients.get(n, ())), default=0)
        return sum(len(n.inputs) * 8 ** above[n] for n in found if isinstance(n.op, (Elemwise, ExplicitElemwise)))

    return Measure("Elemwise operands weighted 8**(reductions above)", of)
