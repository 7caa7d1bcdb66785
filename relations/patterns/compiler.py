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

so the forward planner (:mod:`relations.patterns.plans`) compiles it into the plan
it makes of the hand-written one, and backward runs and checks run the same
goals.  The parts, in this order:

1. each side, root first: ``eq(side, template)`` for a template node,
   the node's goal (``stock_elemwiseo(side, f, xs)``) for a goal node, the
   node matched and built one level (:func:`pattern_goal`) for a node
   with neither (``p.mul``, ``p.sum``, ...: its arguments variables, its
   constants kept), then the same for the nodes below it that a template
   cannot hold (a ``p.named`` sub-pattern, a goal node);
2. what the heads imply: the reductions of one head variable ``r``
   (``p.careduce(r, ...)``) are one reduction (same scalar op and dtypes)
   along their axes (``careduce_heado``; the same head where the axes are
   the same), and ``r`` is their :class:`~relations.patterns.Reduction`
   when a ``where=`` clause reads it (:func:`reductiono`); a
   ``p.dimshuffle`` that names no ``ndim`` reads it off its input
   (``ndimo``);
3. the ``where=`` goals, in order.

Every pattern variable gets a fresh logic variable per call of the
relation; :data:`~relations.patterns.LHS` and :data:`~relations.patterns.RHS`
stand for the two sides.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator, Sequence
from typing import Any

from etuples.core import ExpressionTuple
from unification import var as fresh_var
from unification.variable import Var

from graph_bridge import reify
from graph_bridge.node_relations import DS
from graph_bridge.terms import TermError, term
from graph_bridge.type_facts import ndimo
from logic_core.goals import lall_ready
from logic_core.moded import Mode, ModedGoal, moded
from logic_core.unifier import Eq, lreify
from relations import patterns as p
from relations.patterns.axes import careduce_heado
from relations.patterns.checks import variables_in
from relations.patterns.nodes import CompiledNode

__all__ = [
    "compilable",
    "compile_sides",
    "has_goal_node",
    "head_vars",
    "instantiate",
    "pattern_goal",
    "reductiono",
    "side_variables",
]


class _NoGraph(Exception):
    """A bound term does not reify, or a side does not build: no answer."""


def pattern_goal(pattern: Any, names: Sequence[Var]) -> Callable[..., ModedGoal]:
    """``make(side, *values)``: the goal that ``side`` is ``pattern`` with ``names`` bound to ``values``.

    ``names`` are the pattern's graph variables, then its prop variables
    (:func:`relations.patterns.pattern_vars`, :func:`~relations.patterns.prop_vars`).
    Known, ``side`` is matched (:func:`relations.patterns.match`) and gives
    the values; else it is built from them (:func:`relations.patterns.build`).
    """
    names = tuple(names)
    graph_vars = p.pattern_vars(pattern)
    n_graph = len(graph_vars)

    def match(s):
        found = p.match(pattern, s)
        return None if found is None else tuple([found[v] for v in names])

    def build(*values):
        bound = dict(zip(graph_vars, values[:n_graph]))
        props = dict(zip(names[n_graph:], values[n_graph:]))

        def lookup(v: Var):
            try:
                return reify(bound[v])
            except TermError:
                raise _NoGraph from None

        try:
            return (p.build(pattern, lookup, props),)
        except _NoGraph:
            return None
        except Exception:  # noqa: BLE001 - the bindings do not fit this pattern (types, axes)
            return None

    given = tuple(f"values[{i}]" for i in range(len(names)))
    modes = (Mode(needs=("side",), gives=given, one=match), Mode(needs=given, gives=("side",), one=build))

    def make(side: Any, *values: Any) -> ModedGoal:
        args = {"side": side, **dict(zip(given, values, strict=True))}
        return moded("pattern side", args, *modes, waiting="pattern variable not bound yet")

    return make


def _head_reduction(h: Any) -> tuple | None:
    op = h.evaled_obj if isinstance(h, ExpressionTuple) else h
    try:
        return (p.Reduction(op),)
    except Exception:  # noqa: BLE001 - not a CAReduce of the vocabulary
        return None


def reductiono(head: Any, reduction: Any) -> ModedGoal:
    """``reduction`` is the :class:`~relations.patterns.Reduction` of the CAReduce head term ``head``.

    What ``p.careduce(r, ...)`` binds ``r`` to, for the ``where=`` clauses
    that read ``r`` (the compiled sides hold the head term, axes included).
    Forward and as a check only: the head is always read off a side.
    """
    return moded(
        "reductiono",
        {"head": head, "reduction": reduction},
        Mode(needs=("head",), gives=("reduction",), one=_head_reduction),
        waiting="reductiono needs the head",
    )


def has_goal_node(pattern: Any) -> bool:
    """Whether ``pattern`` holds a node only a goal can read (:mod:`relations.patterns.nodes`) or a ``p.named``."""
    stack = [pattern]
    while stack:
        q = stack.pop()
        if isinstance(q, (CompiledNode, p.Named)):
            return True
        if isinstance(q, p.Node):
            stack.extend(q.args)
    return False


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
        elif _stock(pattern):
            self.node_goal(pattern, out, pending)
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

    def node_goal(self, pattern: p.Node, out: Any, pending: list) -> None:
        """A node with no template (``p.mul``, ``p.sum``, ...): matched and built one level, its arguments variables."""
        shallow = pattern.with_args([a if isinstance(a, p.Const) else self.arg(a, pending) for a in pattern.args])
        names = p.pattern_vars(shallow) + p.prop_vars(shallow)
        self.steps.append((pattern_goal(shallow, names), (out, *names)))

    def template(self, pattern: Any, pending: list) -> Any:
        if isinstance(pattern, Var):
            return pattern
        if isinstance(pattern, p.Named):
            pending.append((pattern.node, pattern.var))
            return pattern.var
        if (isinstance(pattern, CompiledNode) and pattern.goal_of is not None) or _stock(pattern):
            v = self.hidden("t")
            pending.append((pattern, v))
            return v
        kids = [self.template(a, pending) for a in pattern.args]
        return pattern.term_of(self, kids)

    def head_goals(self, wanted: Container = ()) -> None:
        """The reductions of one head variable are one reduction along their axes.

        A head variable in ``wanted`` (read by a ``where=`` clause) is bound
        to the :class:`~relations.patterns.Reduction` of its first head.
        """
        for r, found in self.heads.items():
            (h1, a1), rest = found[0], found[1:]
            if not rest:
                self.steps.append((careduce_heado, (h1, a1, self.hidden("h"), self.hidden("a"))))
            for h, a in rest:
                self.steps.append((careduce_heado, (h1, a1, h, a)))
            if r in wanted:
                self.steps.append((reductiono, (h1, r)))


def _stock(pattern: Any) -> bool:
    """A node the pattern itself matches and builds: no template (constants among its arguments)."""
    return isinstance(pattern, p.Node) and pattern.term_of is None


def compile_sides(
    lhs: Any, rhs: Any, wanted: Container = ()
) -> tuple[list[tuple[Callable, tuple]], list[Var]]:
    """The steps of the two sides and what their heads imply, and every pattern variable they use.

    ``wanted``: the variables the ``where=`` clauses read (a ``p.careduce``
    head variable among them is bound to its reduction).
    """
    c = _Compiler()
    c.side(lhs, p.LHS)
    c.side(rhs, p.RHS)
    c.head_goals(wanted)
    steps = c.steps + c.implied
    found = dict.fromkeys(v for _, args in steps for v in variables_in(args))
    return steps, [v for v in found if v is not p.LHS and v is not p.RHS]


def head_vars(pattern: Any) -> list[Var]:
    """The head variables of the ``p.careduce`` nodes of ``pattern`` (the ``r`` of ``p.careduce(r, x)``)."""
    c = _Compiler()
    c.side(pattern, p.LHS)
    return list(c.heads)


def side_variables(pattern: Any, wanted: Container = ()) -> list[Var]:
    """The rule's variables the compiled steps of one side read or bind (the compiler's own left out)."""
    c = _Compiler()
    c.side(pattern, p.LHS)
    c.head_goals(wanted)
    found = dict.fromkeys(v for _, args in c.steps + c.implied for v in variables_in(args))
    return [v for v in found if v is not p.LHS and v not in c.made]


def instantiate(steps: Sequence[tuple[Callable, tuple]], rename: dict) -> list:
    """The goals of ``steps`` over this call's variables (``rename``: pattern variable -> logic variable or term)."""
    out = []
    for make, args in steps:
        values = lreify(args, rename)
        out.append(Eq(*values) if make is Eq else make(*values))
    return out


def side_match(pattern: Any, term_: Any) -> Iterator[dict[Var, Any]]:
    """The bindings of ``pattern``'s variables under which it matches the term ``term_`` (a node
    pattern of any kind: ``p.exp(x)``, ``p.elemwise(f, hole, before=..., after=...)``, ``p.named``, ...).

    The pattern's compiled steps run as one conjunction with the left side
    bound to ``term_`` (the caller sets the graph context the use facts read).
    """
    c = _Compiler()
    c.side(pattern, p.LHS)
    steps = c.steps + c.implied
    names = [v for v in dict.fromkeys(v for _, args in steps for v in variables_in(args)) if v is not p.LHS]
    rename: dict = {v: fresh_var() for v in names}
    rename[p.LHS] = term_
    wanted = [v for v in names if v not in c.made]
    for state in lall_ready(*instantiate(steps, rename))({}):
        yield {v: lreify(rename[v], state) for v in wanted}
