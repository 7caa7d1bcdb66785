"""Relations compiled for the mode ``normalize`` runs them in: left side known.

``lall_ready`` decides at every node again which goal can run next (a goal
that is not ready raises :class:`~graph_bridge.NotReady` and waits) and each
:class:`~graph_bridge.modes.ModedGoal` looks for its ready mode again.  When
the left side is known those choices are the same at every node, so
:func:`compile_forward` makes them once, from the relation itself:

1. the relation is called once on two fresh logic variables ``L`` and
   ``R``; its goal is read (an ``lall_ready`` of ``eq`` and moded goals);
2. the conjunction is run symbolically with only ``L`` known, choosing the
   goal ``lall_ready`` would choose (the first ready one, in order) and the
   mode each moded goal would pick; what a step gives becomes known;
3. the result is a plan: ``eq`` steps (match a known term, check two, or
   bind an unknown variable to a pattern) and mode steps (run one mode).
   A known variable bound to a ground value, matched against a pattern,
   gets a matcher read off the pattern (it takes a node's one-level view
   apart without building the term); arguments bound to ground values
   are read from the state, not reified.

:class:`ForwardMatcher` runs the plan on a node's variable (or term), depth first, and
yields the same answers as the relation run forward with ``lall_ready``, in
the same order (``tests/test_forward.py`` compares both on random graphs
and on PyMC models).  The rule stays defined once: backward runs and checks
use the relation itself, and a relation the compiler cannot read (a goal
that is not ``eq``, a moded goal or a conjunction of them) runs as it is.
If a mode that was expected to be ready is not at run time (a value of an
unexpected kind), the matcher gives the node back to the relation.

Before / after (``elemwise_explicito``, per node)::

    relation(t, q): build 4 goals, try each until one is ready, retry the
    waiting ones after each answer, look up each goal's mode
    matcher(t): read the stock node, absorb the inputs, build the explicit
    node, check its type (4 steps, no retries)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from typing import Any

from etuples.core import ExpressionTuple
from unification import var

from graph_bridge.dispatch import head_views
from graph_bridge.logic import Conj, Eq, is_var, lreify, unify, unify_into, view_items
from graph_bridge.modes import Mode, ModedGoal, run_mode
from graph_bridge.terms import is_ground, is_term
from relations.rules import Relation

__all__ = ["ForwardMatcher", "Uncompilable", "compile_forward", "forward_matcher"]

_NULL = ExpressionTuple.null

#: a plan step: a state in, the list of states out (eager: forward steps give few)
Step = Callable[[Mapping], list]


class Uncompilable(Exception):
    """The relation's forward mode cannot be planned once (it runs as it is)."""


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
    """The symbolic run: which variables are known (ground) after each step."""

    def __init__(self, known: set) -> None:
        self.known = known
        #: variables bound to a pattern, and the pattern's variables
        self.deferred: dict[Any, set] = {}
        #: known variables bound to their ground value itself (read without reifying)
        self.direct: set = set(known)

    def is_known(self, x: Any) -> bool:
        return _logic_vars(x, set()) <= self.known

    def learn(self, x: Any, direct: bool = True) -> None:
        """Every variable of ``x`` becomes known (and those of the patterns they are bound to).

        ``direct``: they are bound to parts of a ground value (not to a
        pattern of other variables).
        """
        todo = list(_logic_vars(x, set()))
        while todo:
            v = todo.pop()
            if v in self.known:
                continue
            self.known.add(v)
            if v in self.deferred:
                todo.extend(self.deferred.pop(v))
            elif direct:
                self.direct.add(v)
        self._settle()

    def _settle(self) -> None:
        changed = True
        while changed:
            changed = False
            for v, deps in list(self.deferred.items()):
                if deps <= self.known:
                    del self.deferred[v]
                    self.known.add(v)
                    changed = True

    def eq_step(self, g: Eq) -> Step:
        u, v = g.u, g.v
        ku, kv = self.is_known(u), self.is_known(v)
        # a known variable bound to a ground value, against a pattern: a matcher
        for value, pattern, known in ((u, v, ku and not kv), (v, u, kv and not ku)):
            if known and is_var(value) and value in self.direct:
                if not _logic_vars(pattern, set()) & set(self.deferred):
                    match = _pattern_matcher(pattern, set(self.known))
                    self.learn(pattern)

                    def match_step(S: Mapping) -> list:
                        S2 = dict(S)
                        return [S2] if match(S[value], S2) else []

                    return match_step
        # unify binds the unknown side to parts of the known side: ground
        # values if that is a variable bound to one, else a pattern to reify
        if ku and not kv:
            self.learn(v, direct=is_var(u) and u in self.direct)
        elif kv and not ku:
            self.learn(u, direct=is_var(v) and v in self.direct)
        elif not (ku or kv):
            for a, b in ((u, v), (v, u)):
                if is_var(a) and a not in self.deferred and a not in _logic_vars(b, set()):
                    self.deferred[a] = _logic_vars(b, set()) - self.known
                    break
            else:
                raise Uncompilable(f"eq with both sides partly unknown: {g!r}")

        def eq_step(S: Mapping) -> list:
            s = unify(u, v, S)
            return [] if s is False else [s]

        return eq_step

    def reader(self, x: Any) -> Callable[[Mapping], Any]:
        """How to get the value of the known term ``x`` from a state.

        A variable bound to its ground value is looked up, a tuple is read
        item by item, a term with no variable is itself; anything else is
        reified.
        """
        if is_var(x) and x in self.direct:
            return lambda S: S[x]
        if type(x) is tuple:
            items = [self.reader(a) for a in x]
            return lambda S: tuple([read(S) for read in items])
        if not _logic_vars(x, set()):
            return lambda S: x
        return lambda S: lreify(x, S)

    def ready_mode(self, g: ModedGoal) -> Mode | None:
        for mode in g.modes:
            if all(self.is_known(g.args[i]) for i in mode.needs):
                return mode
        return None

    def mode_step(self, g: ModedGoal, mode: Mode) -> Step:
        if not mode.plannable:
            raise Uncompilable(f"{g.name}: the ready mode gives templates, not values")
        args, ready = g.args, mode.ready
        reads = [self.reader(args[i]) for i in mode.needs]  # as known before this step
        for i in mode.gives:
            if i not in mode.open:
                self.learn(g.args[i])
                continue
            target = g.args[i]
            if self.is_known(target):
                continue  # a check
            if not is_var(target) or target in self.deferred:
                raise Uncompilable(f"{g.name}: an open value for a term that is not a variable")
            deps: set = set()
            for j in mode.open[i]:
                _logic_vars(g.args[j], deps)
            self.deferred[target] = deps - self.known
            self._settle()

        def mode_step(S: Mapping) -> list:
            needed = [read(S) for read in reads]
            if not ready(*needed):
                raise _Deopt(g.name)
            return list(run_mode(mode, args, needed, S))

        mode_step.__qualname__ = f"{g.name}{mode.needs}->{mode.gives}"
        return mode_step


def plan_forward(goal: Any, lhs: Any, rhs: Any) -> tuple[list[Step], Callable[[Mapping], Any] | None]:
    """The steps ``lall_ready`` would take on ``goal`` with ``lhs`` known (see the module docstring).

    Also how to read ``rhs`` at the end, when it is known ground by then
    (``None``: reify it and check).
    """
    if not isinstance(goal, Conj):
        raise Uncompilable(f"the relation's goal is {type(goal).__name__}, not lall_ready(...)")
    planner = _Planner({lhs})
    pending = list(goal.goals)
    steps: list[Step] = []
    while pending:
        for i, g in enumerate(pending):
            if isinstance(g, Eq):
                steps.append(planner.eq_step(g))
                break
            if isinstance(g, ModedGoal):
                mode = planner.ready_mode(g)
                if mode is not None:
                    steps.append(planner.mode_step(g, mode))
                    break
                continue
            raise Uncompilable(f"goal {g!r} is neither eq nor a moded goal")
        else:
            raise Uncompilable("no goal is ever ready with the left side known")
        del pending[i]
    return steps, (planner.reader(rhs) if planner.is_known(rhs) else None)


#: ``match(value, S)``: whether ``value`` unifies with a pattern, binding into the state ``S``
Matcher = Callable[[Any, dict], bool]


def _pattern_matcher(pattern: Any, known: set) -> Matcher:
    """``unify(pattern, value)`` for a ground ``value``, with the pattern's shape read once.

    Each first occurrence of an unknown variable binds; terms and tuples are
    taken apart item by item; everything else (a known or repeated
    variable, an atom, heads of two classes that share props, a value that
    is no term) goes to the logic core's own unification, so the result is
    the same.
    """
    if is_var(pattern):
        if pattern in known:
            return lambda x, S: unify_into(pattern, x, S)
        known.add(pattern)

        def bind(x: Any, S: dict) -> bool:
            S[pattern] = x
            return True

        return bind
    if type(pattern) is tuple:
        each = _each_matcher([_pattern_matcher(p, known) for p in pattern])

        def match_tuple(x: Any, S: dict) -> bool:
            return each(x, S) if type(x) is tuple else unify_into(pattern, x, S)

        return match_tuple
    if is_term(pattern) and pattern._evaled_obj is _NULL and _logic_vars(pattern, set()):
        each = _each_matcher([_pattern_matcher(p, known) for p in pattern._tuple])

        def match_term(x: Any, S: dict) -> bool:
            xs = view_items(x)
            if xs is None or head_views(pattern, xs) is not None:
                return unify_into(pattern, x, S)
            return each(xs, S)

        return match_term
    return lambda x, S: unify_into(pattern, x, S)


def _each_matcher(items: list[Matcher]) -> Callable[[Sequence, dict], bool]:
    """Match a sequence item by item, left to right (as ``unify`` does)."""
    n = len(items)

    def each(xs: Sequence, S: dict) -> bool:
        if len(xs) != n:
            return False
        for m, a in zip(items, xs):
            if not m(a, S):
                return False
        return True

    return each


class ForwardMatcher:
    """A relation's forward mode as a plan (see :func:`compile_forward`)."""

    def __init__(
        self, relation: Relation, lhs: Any, rhs: Any, steps: list[Step], result: Callable[[Mapping], Any] | None
    ) -> None:
        try:  # weakly: the plans are kept by relation, and must not keep it alive
            self._relation: Callable[[], Relation | None] = weakref.ref(relation)
        except TypeError:
            self._relation = lambda: relation
        self.lhs, self.rhs = lhs, rhs
        self.steps = steps
        #: reads the right side, when the plan knows it is ground at the end
        self.result = result

    def answers(self, t: Any) -> Iterator[Any]:
        """The ground right sides of ``relation(t, q)``, in the relation's own order."""
        given = 0
        try:
            for out in self._run(t):
                given += 1
                yield out
        except _Deopt:
            from relations.engine import answers

            for k, out in enumerate(answers(self.relation, t, var())):
                if k >= given:
                    yield out

    @property
    def relation(self) -> Relation:
        """The relation this plan was made from."""
        found = self._relation()
        if found is None:
            raise ReferenceError("the relation of this plan no longer exists")
        return found

    def _run(self, t: Any) -> Iterator[Any]:
        steps, n, rhs, result = self.steps, len(self.steps), self.rhs, self.result
        stack: list[tuple[int, Mapping]] = [(0, {self.lhs: t})]
        while stack:
            i, S = stack.pop()
            if i == n:
                if result is not None:
                    yield result(S)
                    continue
                out = lreify(rhs, S)
                if is_ground(out):
                    yield out
                continue
            states = steps[i](S)
            if len(states) == 1:
                stack.append((i + 1, states[0]))
            else:
                stack.extend((i + 1, s) for s in reversed(states))

    def __repr__(self) -> str:
        return f"ForwardMatcher({getattr(self.relation, '__name__', self.relation)}, {len(self.steps)} steps)"


def compile_forward(relation: Relation) -> ForwardMatcher:
    """``relation``'s forward mode planned once; raises :class:`Uncompilable` if it cannot be."""
    lhs, rhs = var(), var()
    goal = relation(lhs, rhs)
    return ForwardMatcher(relation, lhs, rhs, *plan_forward(goal, lhs, rhs))


#: plans by relation; a relation that goes away takes its plan with it
_COMPILED: MutableMapping[Any, ForwardMatcher | None] = weakref.WeakKeyDictionary()


def forward_matcher(relation: Relation) -> ForwardMatcher | None:
    """The compiled forward mode of ``relation`` (cached), or ``None`` if it runs as it is.

    A relation that cannot be weakly referenced or hashed is not planned.
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
