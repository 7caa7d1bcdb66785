"""A pattern rule's docstring, composed from its one-line doc, its two sides, its guards and its measure.

``rewrite_rule(name, lhs, rhs, where=..., measure=..., doc="one line",
docs="lift.md")`` gives the relation the docstring :func:`rule_doc` writes,
so ``help(rule)`` shows the rule as the table states it::

    A full reduction does not see the layout of its input.

    Before::

        careduce(dimshuffle(x, order=o), op=r, axis=None)

    After::

        careduce(x, op=r, axis=None)

    Guards: ndimo(x, n), valid_ordero(n, o)

    Measure: DimShuffle nodes

    See docs/dimshuffle.md, "careduce_dimshuffle_fullo".

The prose (examples on real graphs, why each guard is there, the backward
bounds, the upstream reports) is on the family's docs page, under a
heading named after the rule.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from logic_core.moded import ModedGoal
from logic_core.unifier import Eq
from relations.patterns import PatternVar
from relations.patterns.guards import Guard
from relations.patterns.kanren_goals import foreign_goal

__all__ = ["guard_text", "rule_doc"]


def _arg_text(a: Any) -> str:
    """A goal argument as the rule's source names it: a pattern variable by its name, a tuple of them."""
    if type(a) in (tuple, list):
        inner = ", ".join(_arg_text(x) for x in a)
        return f"({inner},)" if len(a) == 1 else f"({inner})"
    return a.name if isinstance(a, PatternVar) else repr(a)


def guard_text(g: Any) -> str:
    """One ``where=`` clause as text: a goal as ``name(args)``, a predicate as ``name(parameters)``."""
    found = foreign_goal(g)
    if found is not None:
        g = found
    if isinstance(g, ModedGoal):
        return f"{g.name}({', '.join(_arg_text(a) for a in g.args)})"
    if isinstance(g, Eq):
        return f"eq({_arg_text(g.u)}, {_arg_text(g.v)})"
    if isinstance(g, Guard):
        return repr(g)
    name = getattr(g, "__name__", None) or type(g).__name__
    try:
        params = ", ".join(inspect.signature(g).parameters)
    except (TypeError, ValueError):
        return name
    return f"lambda {params}: ..." if name == "<lambda>" else f"{name}({params})"


def _block(title: str, pattern: Any) -> str:
    return f"{title}::\n\n    {pattern!r}"


def rule_doc(name: str, lhs: Any, rhs: Any, where: Sequence[Any], measure: Any, doc: str | None,
             docs: str | None = None) -> str:
    """The docstring of the rule ``name``: ``doc``, Before/After from the patterns, the guards, the measure, the page.

    ``doc`` is the rule's one-line summary (a longer text is kept whole,
    dedented, before the composed part; without one the first line is
    ``name: lhs -> rhs``).  ``measure`` is what :func:`relations.rule` was
    given (its ``text``); one that is only described says so.  ``docs``
    names the page of ``docs/`` that explains the rule under a heading
    named after it.
    """
    if doc is not None and not isinstance(doc, str):
        raise TypeError(f"doc must be a string (the rule's one-line summary), got {type(doc).__name__}")
    if docs is not None and (not isinstance(docs, str) or not docs.endswith(".md") or docs.startswith("docs/")):
        raise TypeError(f"docs must name a page of docs/ without the folder (\"lift.md\"), got {docs!r}")
    head = inspect.cleandoc(doc) if doc else f"{name}: {lhs!r} -> {rhs!r}"
    parts = [head, _block("Before", lhs), _block("After", rhs)]
    if where:
        parts.append("Guards: " + ", ".join(guard_text(g) for g in where))
    text = getattr(measure, "text", None) or str(measure)
    stated = getattr(measure, "stated", True)
    parts.append(f"Measure: {text}" + ("" if stated else " (only described: no test can check it)"))
    if docs:
        parts.append(f'See docs/{docs}, "{name}".')
    return "\n\n".join(parts) + "\n"
