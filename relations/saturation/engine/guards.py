"""The rule language's guards (:mod:`relations.patterns.guards`) read on e-classes.

A :class:`~relations.patterns.guards.Guard` tests the PyTensor variables its pattern variables
are bound to.  In the query engine a pattern variable is bound to an e-class, so each is read
through a *stand-in*: the class's constant leaf when it holds one (``is_constant``,
``constant_where`` and the constant's own range then read it), else a fresh variable of the
class's type assumed to lie in the class's interval (:func:`graph_bridge.intervals.assuming`,
with :class:`.analysis.IntervalAnalysis`): ``positive(a)`` holds of a class exactly
when the class's analysis says so, whichever e-node made it.  A type guard reads the type.

Before/After (``log(c * a) -> log(c) + log(a)`` guarded ``positive(c) & positive(a)``, on the
class of ``exp(x)`` and the constant 2)::

    binding {a: class of exp(x) (0, inf), c: class of 2.0 [2, 2]}  ->  guard holds
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytensor.graph.basic import Constant, Variable

from graph_bridge.intervals import assuming
from relations.patterns.guards import Guard
from relations.saturation.engine.analysis import class_interval
from relations.saturation.engine.egraph import CLASS_SHIFT

__all__ = ["class_guard", "stand_in"]


def stand_in(eg: Any, c: int) -> tuple[Variable, bool]:
    """``(variable, assumed)``: the constant leaf of class ``c``, or a fresh variable of its type
    (``assumed``: its interval must be assumed while a guard reads it)."""
    c = eg.find(c)
    for n in eg.nodes[c]:
        if len(n) == 1:
            v = eg.hashcons.get(n)
            if v is not None and v >> CLASS_SHIFT == c:
                leaf = eg.leaf[n[0]]
                if isinstance(leaf, Constant):
                    return leaf, False
    return eg.types[eg.ctype[c]](), True


def class_guard(guard: Guard) -> Callable[[Any, dict], bool]:
    """``guard`` as a query-engine guard ``(eg, binding) -> bool`` (``binding``: variable name to class)."""
    if not isinstance(guard, Guard):
        raise TypeError(f"guard must be a relations.patterns.guards.Guard, got {type(guard).__name__}")
    names = guard.names

    def test(eg: Any, binding: dict) -> bool:
        values, assumed = {}, {}
        for n in names:
            v, assume = stand_in(eg, binding[n])
            values[n] = v
            if assume:
                assumed[v] = class_interval(eg, binding[n])
        with assuming(assumed):
            return bool(guard.test(values))

    test.__name__ = guard.text
    return test
