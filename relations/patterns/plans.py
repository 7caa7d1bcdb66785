"""Relations compiled for the mode ``normalize`` runs them in: left side known.

``lall_ready`` decides at every node again which goal can run next (a goal
that is not ready raises :class:`~logic_core.goals.NotReady` and waits) and each
:class:`~logic_core.moded.ModedGoal` looks for its ready mode again.  When
the left side is known those choices are the same at every node, so
:func:`compile_forward` makes them once, from the relation itself:

1. the relation is called once on two fresh logic variables ``L`` and
   ``R``; its goal is read (an ``lall_ready`` of ``eq`` and moded goals);
2. the conjunction is run symbolically with only ``L`` known, choosing the
   goal ``lall_ready`` would choose (the first ready one, in order) and the
   mode each moded goal would pick; what a step gives becomes known;
3. the run is written out as a Python function, ``plan(t)``
   (``forward_matcher(rule).source`` shows it): each logic variable whose
   value is known becomes a local variable; an ``eq`` against a pattern
   takes the node's one-level view apart in place (without building its
   term), and falls back to the logic core's own unification wherever the
   value is not of the pattern's shape; a mode step of at most one answer
   is a call and a test, any other a ``for`` loop over the mode's answers,
   with the rest of the plan inside it.  A variable bound to a pattern of
   others is reified once, when those are known.  A plan with a loop is a
   generator of the answers; one without returns its answer in a tuple
   (or ``()``).

:class:`ForwardMatcher` runs the plan on a node's variable (or term), depth
first, and yields the same answers as the relation run forward with
``lall_ready``, in the same order (``tests/test_forward.py`` compares both
on random graphs and on PyMC models).  The rule stays defined once:
backward runs and checks use the relation itself, and a relation the
compiler cannot read (a goal that is not ``eq``, a moded goal or a
conjunction of them) runs as it is.  If a mode that was expected to be ready
is not at run time (a value of an unexpected kind), the matcher gives the
node back to the relation.

:func:`compile_backward` is the same planner with the sides swapped: the
right side known, as saturation's backward steps and ``lower`` run a rule
(``relations.greedy.fixpoint.replacements``); its plan gives the relation's
backward answers in the relation's order, and a relation whose backward
run the planner cannot follow (a mode that gives templates) runs as it is.

Before / after (``elemwise_explicito``, per node)::

    relation(t, q): build 4 goals, try each until one is ready, retry the
    waiting ones after each answer, look up each goal's mode

    def plan(t):  # elemwise_explicito, forward
        # stock_elemwiseo(0,) -> (1,)
        n1 = t
        a3 = C0(n1)                    # the stock node's scalar op and inputs
        if a3 is None: return _NO
        ...
        # same_typeo(0, 1) -> ()
        a21 = C9(n19, n20)
        if a21 is None: return _NO
        return (v18,)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import Any

from etuples.core import ExpressionTuple
from unification import var

from graph_bridge.dispatch import VIEWED_CLASSES, head_views
from graph_bridge.logic_views import view_items
from graph_bridge.terms import Term, term
from logic_core.goals import Conj
from logic_core.moded import Mode, ModedGoal, always
from logic_core.term_kinds import is_ground, is_term
from logic_core.term_kinds import is_logic_var as is_var
from logic_core.unifier import Eq, lreify, unify_into
from relations.patterns.kanren_goals import LALL_MESSAGE, foreign_goal, kanren_conjunction, kanren_conjuncts
from relations.patterns.relation import Relation, answers

__all__ = [
    "ForwardMatcher",
    "RuleError",
    "Uncompilable",
    "backward_matcher",
    "compile_backward",
    "compile_forward",
    "forward_matcher",
]

_NULL = ExpressionTuple.null

class Uncompilable(Exception):
    """The relation's forward mode cannot be planned once (it runs as it is)."""


class RuleError(TypeError):
    """The relation is written with a goal rules must not use (the message says what to use)."""


class _Deopt(Exception):
    """A mode planned as ready was not ready at run time."""


def _logic_vars(x: Any, out: set) -> set:
    """The logic variables in term ``x`` (evaluated sub-terms hold none)."""
    stack = [x]
    while stack:
        t = stack.pop()
        if is_var(t):
            out.add(t)
        elif type(t) is tuple or type(t) is list:
            stack.extend(t)
        elif is_term(t) and t._evaled_obj is _NULL:
            stack.extend(t._tuple)
    return out


class _Planner:
    """The symbolic run, written out as the Python function that does it.

    Each logic variable whose value the plan holds gets a local variable of
    the function (``v1``, ``v2``, ...); a ground value matched against a
    pattern is taken apart in place; a mode step is a ``for`` loop over the
    mode's answers, with the rest of the plan inside it.  So the function
    yields the answers depth first, in the relation's order.
    """

    def __init__(self, lhs: Any) -> None:
        #: variables whose value is known (ground) at this point of the plan
        self.known: set = {lhs}
        #: variables bound to a pattern (or a template) holding unknown variables, and those
        self.deferred: dict[Any, set] = {}
        #: the patterns of the deferred variables an ``eq`` bound (templates have none)
        self.patterns: dict[Any, Any] = {}
        #: local names of the variables bound to their ground value itself
        self.names: dict[Any, str] = {lhs: "t"}
        #: what the relation's state binds each variable to: a local name or a constant's
        self.values: dict[Any, str] = {lhs: "t"}
        self.consts: dict[str, Any] = {}
        self._const_ids: dict[int, str] = {}
        self.lines: list[str] = []
        self.depth = 2  # inside the plan's ``try``
        self.loops = 0
        self._count = 0

    # -- what is known --------------------------------------------------------

    def is_known(self, x: Any) -> bool:
        return _logic_vars(x, set()) <= self.known

    def _settle(self) -> None:
        """Deferred variables whose unknowns are all known become known, each reified once.

        The value is built here, once, into a local: every later reader
        gets the same term (so it is evaluated into a node once).
        """
        changed = True
        while changed:
            changed = False
            for v, deps in list(self.deferred.items()):
                if deps <= self.known:
                    del self.deferred[v]
                    pattern = self.patterns.pop(v, None)
                    self.known.add(v)
                    name = self.local("v")
                    # a pattern is built from its parts' locals; a mode's template is reified
                    value = self.reader(pattern) if pattern is not None else f"lreify({self.const(v)}, {self.state()})"
                    self.emit(f"{name} = {value}")
                    self.names[v] = self.values[v] = name
                    changed = True

    def ready_mode(self, g: ModedGoal) -> Mode | None:
        for mode in g.modes:
            if all(self.is_known(g.args[i]) for i in mode.needs):
                return mode
        return None

    # -- writing code ---------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    @property
    def fail(self) -> str:
        """The statement that abandons this branch: the next answer of the innermost mode."""
        return "continue" if self.loops else "return _NO"

    def local(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def const(self, x: Any) -> str:
        name = self._const_ids.get(id(x))
        if name is None:
            name = self._const_ids[id(x)] = f"C{len(self.consts)}"
            self.consts[name] = x
        return name

    def state(self) -> str:
        """An expression for the relation's state at this point (for the logic core's fallbacks)."""
        return "{" + ", ".join(f"{self.const(v)}: {e}" for v, e in self.values.items()) + "}"

    def reader(self, x: Any) -> str:
        """An expression for the value of the known term ``x``.

        A variable bound to its ground value is its local, a tuple is read
        item by item, a term with no variable is a constant, a term with
        some is built from its items (what ``lreify`` makes of it); anything
        else is reified from the state.
        """
        if is_var(x) and x in self.names:
            return self.names[x]
        if type(x) is tuple:
            return "(" + "".join(f"{self.reader(a)}, " for a in x) + ")"
        if not _logic_vars(x, set()):
            return self.const(x)
        if type(x) is Term and x._evaled_obj is _NULL:
            return "term(" + ", ".join(self.reader(a) for a in x._tuple) + ")"
        return f"lreify({self.const(x)}, {self.state()})"

    def _bound(self, v: Any, name: str) -> None:
        self.known.add(v)
        self.names[v] = self.values[v] = name
        self._settle()

    def match(self, pattern: Any, expr: str) -> None:
        """Code that unifies ``pattern`` with the ground value of ``expr``, binding its unknown variables.

        A first occurrence of an unknown variable binds a local; terms and
        tuples are taken apart item by item; everything else (a known or
        repeated variable, an atom, heads of two classes that share props,
        a value that is no term) goes to the logic core's own unification,
        so the result is the same.
        """
        if is_var(pattern):
            if pattern in self.deferred:
                if pattern not in self.patterns:
                    raise Uncompilable("a value unified with a template a mode gave")
                # the value is the variable's: it is no longer deferred (matching
                # its pattern must not settle it as a pattern to build)
                bound_to = self.patterns.pop(pattern)
                del self.deferred[pattern]
                name = self.local("v")
                self.emit(f"{name} = {expr}")
                self.match(bound_to, name)
                self._bound(pattern, name)
            elif pattern in self.known:
                self.emit(f"if not _same({self.reader(pattern)}, {expr}): {self.fail}")
            else:
                name = self.local("v")
                self.emit(f"{name} = {expr}")
                self._bound(pattern, name)
            return
        found = _logic_vars(pattern, set())
        if found <= self.known:
            self.emit(f"if not _same({self.reader(pattern)}, {expr}): {self.fail}")
            return
        self.match_parts(pattern, expr)

    def match_parts(self, pattern: Any, expr: str) -> None:
        """Code that takes the value of ``expr`` apart against the tuple or term ``pattern`` (see :meth:`match`).

        Where the value is not of the pattern's shape (no view, other
        length), the logic core's own unification binds what it binds.
        """
        is_tuple = type(pattern) is tuple
        if not (is_tuple or (is_term(pattern) and pattern._evaled_obj is _NULL)):
            raise Uncompilable(f"a pattern of an unknown kind: {pattern!r}")
        value, items = self.local("t"), self.local("x")
        self.emit(f"{value} = {expr}")
        before, state = set(self.names), self.state()
        if is_tuple:
            self.emit(f"if type({value}) is tuple:")
            self.emit(f"    {items} = {value}")
            parts = pattern
        else:
            self.emit(f"{items} = view_items({value})")
            viewed = _viewed_class(pattern)
            if viewed is not None:  # a head view applies only to a class registered with one
                self.emit(
                    f"if {items} is not None and ({self.const(viewed)} not in _VIEWED"
                    f" or head_views({self.const(pattern)}, {items}) is None):"
                )
            else:
                self.emit(f"if {items} is not None:")
            parts = pattern._tuple
        self.depth += 1
        self.emit(f"if len({items}) != {len(parts)}: {self.fail}")
        for k, part in enumerate(parts):
            self.match(part, f"{items}[{k}]")
        self.depth -= 1
        bound = [v for v in self.names if v not in before]
        self.emit("else:")
        self.depth += 1
        found_name = self.local("b")
        wanted = "".join(f"{self.const(v)}, " for v in bound)
        self.emit(f"{found_name} = _bind({self.const(pattern)}, {value}, {state}, ({wanted}))")
        self.emit(f"if {found_name} is None: {self.fail}")
        if bound:
            self.emit("".join(f"{self.names[v]}, " for v in bound) + f"= {found_name}")
        self.depth -= 1

    # -- the steps --------------------------------------------------------------

    def eq_step(self, g: Eq) -> None:
        u, v = g.u, g.v
        ku, kv = self.is_known(u), self.is_known(v)
        if ku and kv:
            self.emit(f"if not _same({self.reader(u)}, {self.reader(v)}): {self.fail}")
        elif ku:
            self.match(v, self.reader(u))
        elif kv:
            self.match(u, self.reader(v))
        else:
            for a, b in ((u, v), (v, u)):
                if is_var(a) and a not in self.deferred and a not in _logic_vars(b, set()):
                    self.deferred[a] = _logic_vars(b, set()) - self.known
                    self.patterns[a] = b
                    self.values[a] = self.const(b)
                    self._settle()
                    return
            raise Uncompilable(f"eq with both sides partly unknown: {g!r}")

    def mode_step(self, g: ModedGoal, mode: Mode) -> None:
        if not mode.plannable:
            raise Uncompilable(f"{g.name}: the ready mode gives templates, not values")
        args = g.args
        needed = []
        for i in mode.needs:  # as known before this step
            name = self.local("n")
            self.emit(f"{name} = {self.reader(args[i])}")
            needed.append(name)
        call = ", ".join(needed)
        if mode.ready is not always:
            self.emit(f"if not {self.const(mode.ready)}({call}): raise _Deopt({g.name!r})")
        outs = [self.local("o") for _ in mode.gives]
        target = "_" if not outs else "(" + "".join(f"{o}, " for o in outs) + ")"
        if mode.one is not None:  # at most one answer: straight-line code, no loop
            answer = self.local("a")
            self.emit(f"{answer} = {self.const(mode.one)}({call})")
            self.emit(f"if {answer} is None: {self.fail}")
            if outs:
                self.emit(f"{target} = {answer}")
        else:
            self.emit(f"for {target} in {self.const(mode.run)}({call}):")
            self.depth += 1
            self.loops += 1
        for i, out in zip(mode.gives, outs):
            if i not in mode.open:
                self.match(args[i], out)
                continue
            target_var = args[i]
            if not is_var(target_var) or target_var in self.known or target_var in self.deferred:
                raise Uncompilable(f"{g.name}: an open value for a term that is not a fresh variable")
            deps: set = set()
            for j in mode.open[i]:
                _logic_vars(args[j], deps)
            self.values[target_var] = out
            self.deferred[target_var] = deps - self.known
            self._settle()

    def finish(self, rhs: Any) -> None:
        """The answer: counted (a fallback to the relation skips those given), then yielded.

        A plan with no loop has at most one answer: it returns it, in a tuple
        (a generator left at its answer would be closed by raising
        ``GeneratorExit`` in it, which costs more than the rest of a miss).
        """
        one = not self.loops
        if self.is_known(rhs):
            if one:
                self.emit(f"return ({self.reader(rhs)},)")
                return
            self.emit("given += 1")
            self.emit(f"yield {self.reader(rhs)}")
            return
        out = self.local("r")
        self.emit(f"{out} = lreify({self.const(rhs)}, {self.state()})")
        self.emit(f"if is_ground({out}):")
        if one:
            self.emit(f"    return ({out},)")
            self.emit("return _NO")
            return
        self.emit("    given += 1")
        self.emit(f"    yield {out}")


def plan_forward(
    goal: Any, lhs: Any, rhs: Any, name: str = "relation", direction: str = "forward"
) -> tuple[str, dict[str, Any]]:
    """The steps ``lall_ready`` would take on ``goal`` with ``lhs`` known, as Python source.

    Returns the source of ``plan(t)`` (an iterable of the ground right sides
    for the left side ``t``: a generator, or a tuple where the plan has no
    loop) and the constants it reads.  The backward plan is this one with
    the sides swapped (``direction`` names it in the source).
    """
    planner = _Planner(lhs)
    pending, ordered = _readable_goals(goal, name)
    while pending:
        for i, g in enumerate(pending[:1] if ordered else pending):
            if isinstance(g, Eq):
                planner.eq_step(g)
                break
            if isinstance(g, ModedGoal):
                mode = planner.ready_mode(g)
                if mode is not None:
                    planner.emit(f"# {g.name}{mode.needs} -> {mode.gives}")
                    planner.mode_step(g, mode)
                    break
                continue
            raise Uncompilable(f"goal {g!r} is neither eq nor a moded goal")
        else:
            if ordered:
                raise Uncompilable(f"kanren.lall reaches {pending[0]!r} before it is ready")
            raise Uncompilable("no goal is ever ready with the left side known")
        del pending[i]
    planner.finish(rhs)
    if planner.loops:  # a generator of the answers
        head, fallback = ["    given = 0"], "        yield from _fallback(t, given)"
    else:  # at most one answer: a function returning it in a tuple, or ()
        head, fallback = [], "        return _fallback(t, 0)"
    source = "\n".join(
        [
            f"def plan(t):  # {name}, {direction}",
            *head,
            "    try:",
            *planner.lines,
            "    except _Deopt:  # a mode planned as ready was not: the relation answers the rest",
            fallback,
            "",
        ]
    )
    return source, planner.consts


def _readable_goals(goal: Any, name: str) -> tuple[list, bool]:
    """The goals of the relation's conjunction, ``kanren.eq`` read as ``eq``, and whether their order is fixed.

    A relation that is a ``kanren.lall`` runs its goals in order (kanren's
    conjunction does not wait); one inside a ``lall_ready`` is refused.
    """
    ordered = kanren_conjuncts(goal)
    if ordered is not None:
        goals = []
        stack = list(reversed(ordered))
        while stack:  # a kanren.lall in a kanren.lall: one sequence
            g = stack.pop()
            inner = kanren_conjuncts(g)
            if inner is None:
                goals.append(g)
            else:
                stack.extend(reversed(inner))
    elif kanren_conjunction(goal):
        raise Uncompilable("a kanren.lall of goals that are not a tuple")
    else:
        goals = list(goal.goals) if isinstance(goal, Conj) else [goal]
    out = []
    for g in goals:
        if kanren_conjunction(g):
            raise RuleError(f"rule {name!r}: {LALL_MESSAGE}")
        found = foreign_goal(g)
        out.append(g if found is None else found)
    if ordered is None and not isinstance(goal, Conj) and not isinstance(out[0], (Eq, ModedGoal)):
        raise Uncompilable(f"the relation's goal is {type(goal).__name__}, not lall_ready(...)")
    return out, ordered is not None


_PLAIN = frozenset({int, str, bool, float, type(None)})


def _viewed_class(pattern: Any) -> type | None:
    """The Op class of ``pattern``'s head builder, for which ``head_views`` may answer; else ``None``."""
    head = pattern._tuple[0] if pattern._tuple else None
    builder = head._tuple[0] if head is not None and is_term(head) and head._tuple else None
    return getattr(builder, "op_class", None)


def _same(a: Any, b: Any) -> bool:
    """Whether two ground values unify (plain Python scalars of one type: whether they are equal)."""
    if a is b:
        return True
    t = type(a)
    if t is type(b) and t in _PLAIN:
        return a == b
    return unify_into(a, b, {})


def _bind(pattern: Any, value: Any, S: Mapping, wanted: tuple) -> tuple | None:
    """The values of ``wanted`` once ``pattern`` is unified with ``value`` in ``S``, or ``None``."""
    S2 = dict(S)
    if not unify_into(pattern, value, S2):
        return None
    return tuple([lreify(v, S2) for v in wanted])


_RUNTIME = {
    "_Deopt": _Deopt,
    "_NO": (),
    "_bind": _bind,
    "_same": _same,
    "head_views": head_views,
    "_VIEWED": VIEWED_CLASSES,
    "is_ground": is_ground,
    "lreify": lreify,
    "term": term,
    "view_items": view_items,
}


class ForwardMatcher:
    """A relation's forward mode as a plan (see :func:`compile_forward`); ``source`` is its code."""

    def __init__(self, relation: Relation, source: str, consts: Mapping[str, Any], backward: bool = False) -> None:
        try:  # weakly: the plans are kept by relation, and must not keep it alive
            self._relation: Callable[[], Relation | None] = weakref.ref(relation)
        except TypeError:
            self._relation = lambda: relation
        #: the Python source of the plan
        self.source = source
        #: whether the plan gives left sides for a known right side
        self.backward = backward
        namespace = {**_RUNTIME, **consts, "_fallback": self._fallback}
        name = getattr(relation, "__name__", "relation")
        try:
            exec(compile(source, f"<forward plan of {name}>", "exec"), namespace)
        except (SyntaxError, RecursionError) as e:  # too deeply nested for Python
            raise Uncompilable(f"the plan does not compile: {e}") from None
        #: the plan itself: ``plan(t)`` is ``answers(t)`` without the method call
        self.plan: Callable[[Any], Iterable[Any]] = namespace["plan"]

    def answers(self, t: Any) -> Iterator[Any]:
        """The ground right sides of ``relation(t, q)``, in the relation's own order."""
        return iter(self.plan(t))

    def _fallback(self, t: Any, given: int) -> Iterator[Any]:
        """The relation's own answers after the first ``given`` (the plan met a value it did not expect)."""
        found = answers(self.relation, var(), t, backward=True) if self.backward else answers(self.relation, t, var())
        for k, out in enumerate(found):
            if k >= given:
                yield out

    @property
    def relation(self) -> Relation:
        """The relation this plan was made from."""
        found = self._relation()
        if found is None:
            raise ReferenceError("the relation of this plan no longer exists")
        return found

    def __repr__(self) -> str:
        return f"ForwardMatcher({getattr(self.relation, '__name__', self.relation)})"


def compile_forward(relation: Relation) -> ForwardMatcher:
    """``relation``'s forward mode planned once; raises :class:`Uncompilable` if it cannot be."""
    lhs, rhs = var(), var()
    goal = relation(lhs, rhs)
    name = getattr(relation, "__name__", "relation")
    return ForwardMatcher(relation, *plan_forward(goal, lhs, rhs, name))


def compile_backward(relation: Relation) -> ForwardMatcher:
    """``relation``'s backward mode (right side known) planned once; raises :class:`Uncompilable` if it cannot be.

    The same planner with the sides swapped: the plan makes the choices
    ``lall_ready`` makes with the right side known, so it gives the
    relation's backward answers in the relation's order.
    """
    lhs, rhs = var(), var()
    goal = relation(lhs, rhs)
    name = getattr(relation, "__name__", "relation")
    return ForwardMatcher(relation, *plan_forward(goal, rhs, lhs, name, "backward"), backward=True)


#: plans by relation; a relation that goes away takes its plan with it
_COMPILED: MutableMapping[Any, ForwardMatcher | None] = weakref.WeakKeyDictionary()
_COMPILED_BACKWARD: MutableMapping[Any, ForwardMatcher | None] = weakref.WeakKeyDictionary()


def backward_matcher(relation: Relation) -> ForwardMatcher | None:
    """The compiled backward mode of ``relation`` (cached), or ``None`` if it runs as it is.

    As :func:`forward_matcher`, for the right side known.
    """
    try:
        return _COMPILED_BACKWARD[relation]
    except KeyError:
        pass
    except TypeError:
        return None
    try:
        found: ForwardMatcher | None = compile_backward(relation)
    except (Uncompilable, RuleError):
        found = None
    try:
        _COMPILED_BACKWARD[relation] = found
    except TypeError:
        return None
    return found


def forward_matcher(relation: Relation) -> ForwardMatcher | None:
    """The compiled forward mode of ``relation`` (cached), or ``None`` if it runs as it is.

    A relation that cannot be weakly referenced or hashed is not planned.
    A relation written with ``kanren.lall`` raises :class:`RuleError`
    (``kanren.eq`` is read as ``eq``).
    """
    try:
        return _COMPILED[relation]
    except KeyError:
        pass
    except TypeError:  # unhashable, or no weak reference: never planned
        return None
    try:
        found: ForwardMatcher | None = compile_forward(relation)
    except Uncompilable:
        found = None
    try:
        _COMPILED[relation] = found
    except TypeError:
        return None
    return found
