"""Goals defined by their modes: one definition runs in every direction, and compiles.

Most goals of the relations compute some arguments from others: a node
reader computes a node's parts from the node (forward) and a builder the
node from its parts (backward); a type fact reads a type; a guard only
checks.  :class:`ModedGoal` states exactly that, as a list of modes: which
arguments a mode needs ground, which it gives, and the function from the
one to the other.  As a goal (``goal(S)``) it runs the first mode whose
arguments are ready and unifies what it gives, or waits
(:class:`~logic_core.NotReady`) when none is; a mode that gives
arguments already known checks them, so the same goal is also a check.

Because the modes are data, ``relations.patterns.plans`` can compile a relation
for one mode of its own (left side known): it orders the goals once and
picks each goal's mode once, where ``lall_ready`` finds both again at
every node.

Before / after (``stock_inputso`` written with modes)::

    def goal(S):                                 moded("stock_inputso", {"stock": stock, "inputs": inputs,
        if stock is known: compute inputs...                               "pattern": pattern},
        elif inputs and pattern known: ...           Mode(needs=("stock",), gives=("inputs", "pattern"), one=absorb),
        else: raise NotReady                         Mode(needs=("inputs", "pattern"), gives=("stock",), one=expand))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from inspect import isgeneratorfunction
from typing import Any

from logic_core.goals import NotReady
from logic_core.term_kinds import is_ground
from logic_core.unifier import lreify, unify

__all__ = ["Mode", "ModedGoal", "READS", "always", "moded"]


def always(*values: Any) -> bool:
    """The default ``ready`` of a :class:`Mode`: it holds (a plan skips the call when a mode has it)."""
    return True


def _answers_of(one: Callable[..., tuple | None]) -> Callable[..., Iterable[tuple]]:
    """The ``run`` of a mode given by ``one``: its answer, if any, as a one-item tuple."""

    def run(*needed: Any) -> tuple:
        answer = one(*needed)
        return () if answer is None else (answer,)

    run.__name__ = getattr(one, "__name__", "run")
    return run


class Mode:
    """One way to run a goal: from the ``needs`` arguments, ``run`` yields the ``gives`` ones.

    ``needs`` and ``gives`` name arguments: by the names of the goal's
    arguments when :func:`moded` is given them as a dict
    (``Mode(needs=("value", "before"), gives=("expanded",), one=build)``),
    else by position.  ``run(*needed)`` gets
    the needed arguments' values (reified, ground) and yields one tuple of
    values per answer, in ``gives`` order (an empty tuple for a check).
    The mode runs when every needed value is ground and ``ready(*needed)``
    holds (by default it does; a mode may ask more, such as that a value is
    a tuple).

    What a mode gives is ground, unless it says otherwise: ``open`` maps a
    given position to the argument positions whose logic variables the
    given value may still hold (a head with a slot left for another
    argument); ``plannable=False`` marks a mode whose answers hold fresh
    variables (an enumeration of templates), which a plan cannot follow.

    A mode with at most one answer may be given as ``one`` instead of
    ``run``: ``one(*needed)`` returns the answer tuple, or ``None`` for no
    answer; ``run`` is then derived from it.  A compiled forward plan calls
    ``one`` in line (no loop over a generator).
    """

    __slots__ = ("_at", "gives", "needs", "one", "open", "plannable", "ready", "run")

    def __init__(
        self,
        needs: Sequence[int | str],
        gives: Sequence[int | str],
        run: Callable[..., Iterable[tuple]] | None = None,
        ready: Callable[..., bool] = always,
        open: Mapping[int | str, Sequence[int | str]] | None = None,
        plannable: bool = True,
        one: Callable[..., tuple | None] | None = None,
    ) -> None:
        either = "Mode takes one of run (all answers) and one (at most one answer)"
        if run is None:
            if one is None:
                raise TypeError(either)
            if isgeneratorfunction(one):
                raise TypeError(f"Mode: one must return its answer or None, and {one.__name__} is a generator function")
            run = _answers_of(one)
        elif one is not None:
            raise TypeError(either)
        self.needs: tuple = tuple(needs)
        self.gives: tuple = tuple(gives)
        self.one = one
        self.run = run
        self.ready = ready
        self.open: dict = dict(open or {})
        self.plannable = plannable
        self._at: tuple[tuple, Mode] | None = None  # the last names read by ``at``, and its answer

    def __repr__(self) -> str:
        fn = self.one if self.one is not None else self.run
        kind = "one" if self.one is not None else "run"
        return f"Mode(needs={self.needs}, gives={self.gives}, {kind}={getattr(fn, '__name__', fn)})"

    def at(self, names: Sequence[str], goal: str) -> Mode:
        """This mode with its argument names (``needs``, ``gives``, ``open``) read as positions in ``names``.

        A mode made once and used by many goals over the same names (a factory's) is read once.
        """
        names = tuple(names)
        last = self._at
        if last is not None and last[0] == names:
            return last[1]

        def positions(named: Iterable[int | str]) -> tuple[int, ...]:
            return tuple([a if isinstance(a, int) else names.index(a) for a in named])

        try:
            needs, gives = positions(self.needs), positions(self.gives)
            opened = {positions((k,))[0]: positions(v) for k, v in self.open.items()}
        except ValueError:
            named = (*self.needs, *self.gives, *self.open, *(a for v in self.open.values() for a in v))
            unknown = next(a for a in named if not isinstance(a, int) and a not in names)
            raise ValueError(f"{goal}: a mode names {unknown!r}, which is not one of its arguments {names}") from None
        out = Mode.__new__(Mode)
        out.needs, out.gives, out.open = needs, gives, opened
        out.one, out.run, out.ready, out.plannable = self.one, self.run, self.ready, self.plannable
        out._at = None
        self._at = (names, out)
        return out


#: What a goal may read of its terms (:attr:`ModedGoal.reads`).
READS = ("structure", "class")


class ModedGoal:
    """A goal over ``args`` that runs its first ready :class:`Mode` (see the module docstring)."""

    __slots__ = ("args", "modes", "name", "reads", "waiting")

    def __init__(
        self, name: str, args: tuple, modes: Sequence[Mode], waiting: str | None = None, reads: str = "structure"
    ) -> None:
        if reads not in READS:
            raise ValueError(f"{name}: reads must be one of {READS}, got {reads!r}")
        self.name = name
        self.args = args
        self.modes = tuple(modes)
        #: what the goal reads of its terms: ``"structure"`` (their nodes, maybe), or ``"class"``
        #: (only what every equal term shares: its type, its uses, a fact the graph context answers
        #: for all of them); saturation reads it to know how deep a rule's match looks
        self.reads = reads
        #: the NotReady message when no mode is ready
        self.waiting = waiting or f"{name} needs " + " or ".join(
            "(" + ", ".join(f"argument {i}" for i in m.needs) + ")" for m in self.modes
        )

    def __call__(self, S: Mapping) -> Iterator[Mapping]:
        args = self.args
        values = [lreify(a, S) for a in args]
        for mode in self.modes:
            needed = [values[i] for i in mode.needs]
            if all(is_ground(v) for v in needed) and mode.ready(*needed):
                yield from run_mode(mode, args, needed, S)
                return
        raise NotReady(self.waiting)

    def __repr__(self) -> str:
        return f"{self.name}{self.args!r}"


def run_mode(mode: Mode, args: tuple, needed: Sequence[Any], S: Mapping) -> Iterator[Mapping]:
    """The states of running ``mode`` of a goal over ``args`` on ``needed`` values in ``S``."""
    gives = mode.gives
    if len(gives) == 1:
        target = args[gives[0]]
        for (out,) in mode.run(*needed):
            s = unify(target, out, S)
            if s is not False:
                yield s
        return
    targets = tuple(args[i] for i in gives)
    for out in mode.run(*needed):
        s = unify(targets, out, S) if gives else S
        if s is not False:
            yield s


def moded(
    name: str, args: tuple | Mapping[str, Any], *modes: Mode, waiting: str | None = None, reads: str = "structure"
) -> ModedGoal:
    """The goal named ``name`` over ``args`` with ``modes``, tried in order.

    ``args`` is a tuple, or a dict from argument names to terms; with names,
    each mode says what it needs and gives by name, and the message of a
    goal that waits names them::

        moded("expanded_too", {"value": v, "before": b, "after": a, "expanded": e},
              Mode(needs=("value", "before", "after"), gives=("expanded",), one=build),
              Mode(needs=("before", "after", "expanded"), gives=("value",), one=unexpand))

    ``waiting`` is the :class:`NotReady` message when no mode is ready
    (default: the needs of each mode); ``reads``: see :attr:`ModedGoal.reads`.
    """
    if isinstance(args, Mapping):
        names = tuple(args)
        if waiting is None:
            waiting = f"{name} needs " + " or ".join(
                "(" + ", ".join(str(a) for a in m.needs) + ")" for m in modes
            )
        return ModedGoal(name, tuple(args.values()), [m.at(names, name) for m in modes], waiting, reads)
    if any(isinstance(a, str) for m in modes for a in (*m.needs, *m.gives)):
        raise TypeError(f"{name}: its modes name arguments, so args must be a dict from those names to terms")
    return ModedGoal(name, args, modes, waiting, reads)
