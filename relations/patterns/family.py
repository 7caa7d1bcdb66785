"""Rule families: a table of one-line entries that share their defaults, and equalities declared once.

A family states once what its rules share (the docs page that explains
them, whether they are choices for saturation, a measure); each entry is
then its name, two sides, its guard and a one-line doc::

    from relations.lang import Family, p, is_float
    a, b = p.var("a"), p.var("b")
    arith = Family("arith", docs="algebra.md")
    arith.equal("sub_add_nego", p.sub(a, b), p.add(a, p.neg(b)), is_float(a) & is_float(b),
                "A subtraction is an addition of a negation.")
    arith.rewrite("neg_nego", p.neg(p.neg(a)), a, doc="Two negations cancel.")
    arith.rules   # the relations, for rules= or RULESETS

:meth:`Family.equal` is an equality (egglog's ``birewrite``): one
declaration, two relations, ``name`` (left to right) and ``name_rev``
(right to left), both choices, since a rule and its converse undo each
other: they are for saturation (``saturate``, ``best``, ``equivalents``),
where a cost decides, never for the greedy ``normalize``.
:meth:`Family.rewrite` is a directed rule (``rewrite_rule``), for
``normalize`` when it states a measure or shrinks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytensor.tensor as pt

from graph_bridge.measures import Measure, scalar_count
from relations import patterns as p
from relations.patterns.guards import Guard
from relations.patterns.rewrite_rule import rewrite_rule

__all__ = ["REVERSED", "Equality", "Family", "root_count"]

#: The suffix of the name of an equality's right-to-left relation.
REVERSED = "_rev"


class Equality:
    """Two relations from one declaration: :attr:`forward` (lhs -> rhs) and :attr:`backward` (rhs -> lhs)."""

    def __init__(self, name: str, forward: Any, backward: Any) -> None:
        self.name = name
        self.forward = forward
        self.backward = backward

    def __iter__(self) -> Iterator[Callable]:
        return iter((self.forward, self.backward))

    def __repr__(self) -> str:
        return f"Equality({self.name}: {self.forward.lhs!r} = {self.forward.rhs!r})"


def _guards(where: Guard | Sequence[Any]) -> tuple:
    return (where,) if isinstance(where, Guard) else tuple(where)


def _scalar_op_class(pattern: Any) -> type | None:
    """The scalar Op class of an Elemwise pattern node (``p.mul(...)``: ``Mul``), else ``None``."""
    if isinstance(pattern, p.Named):
        pattern = pattern.node
    if isinstance(pattern, p.Node) and pattern.name in p.ELEMWISE:
        return type(getattr(pt, pattern.name).scalar_op)
    return None


def _nodes(pattern: Any) -> list[Any]:
    out, stack = [], [pattern]
    while stack:
        t = stack.pop()
        if isinstance(t, p.Named):
            t = t.node
        if isinstance(t, p.Node):
            out.append(t)
            stack.extend(t.args)
    return out


def root_count(lhs: Any, rhs: Any) -> Measure | None:
    """The measure a rule ``lhs -> rhs`` decreases by its patterns alone, if there is one: the count of
    Elemwise nodes of the left root's scalar Op when the right side builds none (the root is replaced
    wherever it is used, and nothing of its kind is made), else ``None``."""
    cls = _scalar_op_class(lhs)
    if cls is None or any(_scalar_op_class(n) is cls for n in _nodes(rhs)):
        return None
    return scalar_count(cls, cls.__name__)


def _measure(lhs: Any, rhs: Any, given: Any) -> Any:
    """``given``, else :func:`root_count`, else ``None`` (:func:`rewrite_rule`'s default: a choice states none,
    and runs in saturation only)."""
    return given if given is not None else root_count(lhs, rhs)


class Family:
    """A rule family: its defaults, and the relations its entries declare (:attr:`rules`, in order).

    ``name``: the family's name (its rule set's, as ``RULESETS[name]``);
    ``docs``: the ``docs/`` page that explains each rule under a heading
    named after it; ``choice``: whether its directed rules are choices
    (saturation only unless they state a measure); ``measure``: the
    measure its directed rules decrease, unless an entry gives its own.
    """

    def __init__(self, name: str, *, docs: str | None = None, choice: bool = False, measure: Any = None) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        if docs is not None and not (isinstance(docs, str) and docs.endswith(".md")):
            raise ValueError(f"docs must name a page of docs/ ('algebra.md'), got {docs!r}")
        self.name = name
        self.docs = docs
        self.choice = bool(choice)
        self.measure = measure
        self._rules: list[Callable] = []
        self._by_name: dict[str, Callable] = {}

    @property
    def rules(self) -> tuple:
        """The family's relations, in the order they were declared (an equality gives two)."""
        return tuple(self._rules)

    def __getitem__(self, name: str) -> Callable:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"family {self.name!r} has no rule {name!r}; it has {sorted(self._by_name)}") from None

    def __len__(self) -> int:
        return len(self._rules)

    def _add(self, relation: Callable) -> Callable:
        if relation.__name__ in self._by_name:
            raise ValueError(f"family {self.name!r} already has a rule named {relation.__name__!r}")
        self._by_name[relation.__name__] = relation
        self._rules.append(relation)
        return relation

    def equal(self, name: str, lhs: Any, rhs: Any, where: Guard | Sequence[Any] = (), doc: str | None = None,
              measures: tuple[Any, Any] | None = None) -> Equality:
        """``lhs`` and ``rhs`` are equal where ``where`` holds: the relations ``name`` and ``name_rev``.

        Both are choices (saturation only); ``where`` must be testable from
        either side alone (its variables occur in both sides, or a goal
        computes them), else the backward relation is refused.  A direction
        states the measure it decreases when its patterns give one (the
        count of its left root's Op, :func:`root_count`) or
        ``measures=(forward, backward)`` does; saturation needs none.
        """
        if not hasattr(rhs, "op_classes") and not hasattr(rhs, "node"):
            raise TypeError(
                f"equality {name!r}: rhs must be a node pattern, got {type(rhs).__name__}; a rule whose right "
                f"side is a variable or a constant runs one way only: declare it with rewrite(...)"
            )
        guards = _guards(where)
        given = measures if measures is not None else (None, None)
        there = rewrite_rule(name, lhs, rhs, where=guards, doc=doc, docs=self.docs, choice=True,
                             measure=_measure(lhs, rhs, given[0]))
        back = rewrite_rule(name + REVERSED, rhs, lhs, where=guards, doc=doc, docs=self.docs, choice=True,
                            measure=_measure(rhs, lhs, given[1]))
        self._add(there)
        self._add(back)
        return Equality(name, there, back)

    def rewrite(self, name: str, lhs: Any, rhs: Any, where: Guard | Sequence[Any] = (), doc: str | None = None,
                **options: Any) -> Callable:
        """A directed rule ``lhs -> rhs`` with the family's defaults (``options`` as :func:`rewrite_rule`'s);
        without a measure, the one its patterns give (:func:`root_count`), else :func:`rewrite_rule`'s default."""
        options.setdefault("choice", self.choice)
        if self.measure is not None:
            options.setdefault("measure", self.measure)
        if options.get("measure") is None and p.pattern_nodes(rhs) >= p.pattern_nodes(lhs):
            options["measure"] = root_count(lhs, rhs)
        return self._add(rewrite_rule(name, lhs, rhs, where=_guards(where), doc=doc, docs=self.docs, **options))
