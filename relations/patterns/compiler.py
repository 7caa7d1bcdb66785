"""Patterns compiled to the term templates and goals a hand-written relation states.

``rewrite_rule`` turns a rule whose pattern nodes all have templates
(``p.dimshuffle``, ``p.careduce`` with a variable head, ``p.named`` and the
nodes of :mod:`relations.patterns.nodes`) into the relation one would write
by hand::

    p.careduce(r, p.dimshuffle(x, o, ndim=n), axis=None)  ->  p.careduce(r, x, axis=None)

    lall_ready(
        eq(lhs, term(h, term(term(DS, n, o), x))),    # the left side's template
        eq(rhs, term(h, x)),                          # the right side's
        full_reductiono(h),                           # what the heads imply
        *where,                                       # the rule's where= goals
    )

so the forward planner (:mod:`relations.greedy.plans`) compiles it into the plan
it makes of the hand-written one, and backward runs and checks run the same
goals.  The parts, in this order:

1. each side, root first: ``eq(side, template)`` for a template node,
   the node's goal (``stock_elemwiseo(side, f, xs)``) for a goal node, then
   the same for the nodes below it that a template cannot hold (a
   ``p.named`` sub-pattern, a goal node);
2. what the heads imply: the reductions of one head variable ``r``
   (``p.careduce(r, ...)``) are one reduction (same scalar op and dtypes)
   along their axes (``careduce_heado``; the same head where the axes are
   the same); a ``p.dimshuffle`` that names no ``ndim`` reads it off its
   input (``ndimo``);
3. the ``where=`` goals, in order.

Every pattern variable gets a fresh logic variable per call of the
relation; :data:`~relations.patterns.LHS` and :data:`~relations.patterns.RHS`
stand for the two sides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from etuples.core import ExpressionTuple
from unification.variable import Var

from graph_bridge.facts import ndimo
from logic_core.unifier import Eq, lreify
from graph_bridge.node_relations import DS
from graph_bridge.terms import term
from logic_core.terms import is_term
from relations import patterns as p
from relations.patterns.nodes import CompiledNode
from relations.patterns.axes import careduce_heado

__all__ = ["compilable", "compile_sides", "instantiate", "side_variables"]

_NULL = ExpressionTuple.null


def compilable(pattern: Any) -> bool:
    """Whether every node of ``pattern`` has a template or a goal (no constant, no graph-built node)."""
    stack = [pattern]
    while stack:
        q = stack.pop()
        if isinstance(q, p.Named):
            stack.append(q.node)
        elif isinstance(q, CompiledNode):
            stack.extend(q.args)
        elif isinstance(q, p.Node):
            if q.term_of is None:
                return False
            stack.extend(q.args)
        elif not isinstance(q, Var):
            return False
    return True


class _Compiler:
    """Collects a rule's steps: ``(Eq, (u, v))`` and ``(constructor, args)`` over pattern variables."""

    def __init__(self) -> None:
        self.steps: list[tuple[Callable, tuple]] = []
        self.implied: list[tuple[Callable, tuple]] = []
        #: head variable -> [(head term variable, axis)] in first-occurrence order
        self.heads: dict[Var, list[tuple[Var, Any]]] = {}
        #: the variables the compiler made (a head's term, a DimShuffle's ndim), not the rule's
        self.made: set = set()
        self._count = 0

    def hidden(self, what: str) -> p.PatternVar:
        self._count += 1
        v = p.PatternVar(f"_{what}{self._count}")
        self.made.add(v)
        return v

    def goal(self, make: Callable, args: tuple) -> None:
        self.steps.append((make, args))

    # -- templates (called by the nodes' term_of) ----------------------------

    def dimshuffle(self, x: Any, order: Any, ndim: Any) -> Any:
        if ndim is None:
            ndim = self.hidden("n")
            self.implied.append((ndimo, (x, ndim)))
        return term(term(DS, ndim, order), x)

    def careduce(self, x: Any, r: Var, axis: Any) -> Any:
        seen = self.heads.setdefault(r, [])
        for h, a in seen:
            if a is axis or (not isinstance(a, Var) and not isinstance(axis, Var) and a == axis):
                return term(h, x)
        h = self.hidden("h")
        seen.append((h, axis))
        return term(h, x)

    # -- sides -----------------------------------------------------------------

    def side(self, pattern: Any, out: Any) -> None:
        """The steps that ``out`` is ``pattern``: root first, then what its template leaves out."""
        pending: list[tuple[Any, Any]] = []
        if isinstance(pattern, p.Named):
            self.steps.append((Eq, (out, pattern.var)))
            self.side(pattern.node, pattern.var)
            return
        if isinstance(pattern, CompiledNode) and pattern.goal_of is not None:
            pattern.goal_of(self, out, [self.arg(a, pending) for a in pattern.args])
        else:
            self.steps.append((Eq, (out, self.template(pattern, pending))))
        for sub, v in pending:
            self.side(sub, v)

    def arg(self, pattern: Any, pending: list) -> Any:
        """A goal's argument for ``pattern``: a variable (its node's steps follow the goal)."""
        if isinstance(pattern, Var):
            return pattern
        if isinstance(pattern, p.Named):
            pending.append((pattern.node, pattern.var))
            return pattern.var
        v = self.hidden("t")
        pending.append((pattern, v))
        return v

    def template(self, pattern: Any, pending: list) -> Any:
        if isinstance(pattern, Var):
            return pattern
        if isinstance(pattern, p.Named):
            pending.append((pattern.node, pattern.var))
            return pattern.var
        if isinstance(pattern, CompiledNode) and pattern.goal_of is not None:
            v = self.hidden("t")
            pending.append((pattern, v))
            return v
        kids = [self.template(a, pending) for a in pattern.args]
        return pattern.term_of(self, kids)

    def head_goals(self) -> None:
        """The reductions of one head variable are one reduction along their axes."""
        for found in self.heads.values():
            (h1, a1), rest = found[0], found[1:]
            if not rest:
                self.steps.append((careduce_heado, (h1, a1, self.hidden("h"), self.hidden("a"))))
            for h, a in rest:
                self.steps.append((careduce_heado, (h1, a1, h, a)))


def _pattern_vars_in(x: Any, out: dict) -> dict:
    stack = [x]
    while stack:
        t = stack.pop()
        if isinstance(t, Var):
            out.setdefault(t, None)
        elif type(t) in (tuple, list):
            stack.extend(reversed(t))
        elif is_term(t) and t._evaled_obj is _NULL:
            stack.extend(reversed(t._tuple))
    return out


def compile_sides(lhs: Any, rhs: Any) -> tuple[list[tuple[Callable, tuple]], list[Var]]:
    """The steps of the two sides and what their heads imply, and every pattern variable they use."""
    c = _Compiler()
    c.side(lhs, p.LHS)
    c.side(rhs, p.RHS)
    c.head_goals()
    steps = c.steps + c.implied
    found: dict = {}
    for _, args in steps:
        _pattern_vars_in(args, found)
    return steps, [v for v in found if v is not p.LHS and v is not p.RHS]


def side_variables(pattern: Any) -> list[Var]:
    """The rule's variables the compiled steps of one side read or bind (the compiler's own left out)."""
    c = _Compiler()
    c.side(pattern, p.LHS)
    found: dict = {}
    for _, args in c.steps + c.implied:
        _pattern_vars_in(args, found)
    return [v for v in found if v is not p.LHS and v not in c.made]


def instantiate(steps: Sequence[tuple[Callable, tuple]], rename: dict) -> list:
    """The goals of ``steps`` over this call's variables (``rename``: pattern variable -> logic variable or term)."""
    out = []
    for make, args in steps:
        values = lreify(args, rename)
        out.append(Eq(*values) if make is Eq else make(*values))
    return out
