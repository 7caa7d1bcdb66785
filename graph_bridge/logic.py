"""The logic core: ``eq``, ``lreify``, ``walk``, ``NotReady`` and ``lall_ready``.

``eq`` and ``lreify`` are fast paths for the two primitives the relations use most.

``unification.reify`` and ``unify`` are generic: every call goes through
``multipledispatch`` and rebuilds every sequence it walks.  The terms of
PyTensor graphs are mostly ground already (a node's view is its head over
raw input variables; an evaluated sub-term stands for its variable), so the
common cases are short: a logic variable is walked in the state, a ground
term or a PyTensor object is returned as it is, a tuple is mapped.  Anything
else goes to the generic functions, so the results are the same.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from typing import Any

from etuples.core import ExpressionTuple
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.op import Op
from unification.core import reify as _generic_reify
from unification.core import unify as _generic_unify

from graph_bridge.dispatch import head_views
from graph_bridge.memo import type_check
from graph_bridge.terms import Term, is_term, is_variable, node_term, op_term
from graph_bridge.terms import is_logic_var as is_var
from graph_bridge.vocabulary import in_vocabulary

__all__ = ["Conj", "Eq", "NotReady", "eq", "is_var", "lall_ready", "lreify", "term_view", "unify", "unify_into", "view_items", "walk"]

_MISSING = object()
_NULL = ExpressionTuple.null
_ATOMS = (Variable, Op, str, int, float, bool, type(None))


_is_atom = type_check(_ATOMS, "``isinstance(x, _ATOMS)``, cached per type (PyTensor's classes make the check slow).")


def walk(x: Any, S: Mapping) -> Any:
    """Follow ``x`` through the state while it is a bound logic variable."""
    while is_var(x):
        nx = S.get(x, _MISSING)
        if nx is _MISSING:
            return x
        x = nx
    return x


def lreify(x: Any, S: Mapping) -> Any:
    """``unification.reify(x, S)``, without the generic machinery on ground parts."""
    x = walk(x, S)
    t = type(x)
    if is_var(x) or _is_atom(x):
        return x
    if t is tuple:
        return tuple([lreify(a, S) for a in x])
    if is_term(x):
        if x._evaled_obj is not _NULL:
            return x  # an evaluated term stands for its (ground) value
        if type(x) is Term:
            items = x._tuple
            new = [lreify(a, S) for a in items]
            if all(a is b for a, b in zip(items, new)):
                return x
            return Term(new)
    return _generic_reify(x, S)


def unify(u: Any, v: Any, S: Mapping) -> Mapping | bool:
    """``unification.unify(u, v, S)`` with fast paths for variables, identity and tuples.

    The new state is one copy of ``S`` that every binding goes into.
    """
    u, v = walk(u, S), walk(v, S)
    if u is v:
        return S
    if is_var(u):
        S = dict(S)
        S[u] = v
        return S
    if is_var(v):
        S = dict(S)
        S[v] = u
        return S
    S2 = dict(S)
    return S2 if unify_into(u, v, S2) else False


def unify_into(u: Any, v: Any, S: dict) -> bool:
    """:func:`unify`, binding into ``S`` itself (a private copy of the caller's state)."""
    u, v = walk(u, S), walk(v, S)
    if u is v:
        return True
    if is_var(u):
        S[u] = v
        return True
    if is_var(v):
        S[v] = u
        return True
    if type(u) is tuple and type(v) is tuple:
        return _seq_into(u, v, S)
    u_et, v_et = is_term(u), is_term(v)
    if u_et and v_et:
        viewed = head_views(u, v)
        if viewed is not None:
            return _seq_into(viewed[0], viewed[1], S)
        return _seq_into(u._tuple, v._tuple, S)
    if u_et or v_et:
        # a variable or an Op against a term: its one-level term, as the
        # generic rules (PyTensor's etuplize-first-argument dispatch) do
        other = v if u_et else u
        view = term_view(other)
        if view is not None:
            return unify_into(u, view, S) if u_et else unify_into(view, v, S)
    if type(u) is type(v) and _is_atom(u) and not isinstance(u, Constant):
        # distinct variables, Ops with other props, other literals: what the
        # generic rules conclude too (constants unify by value: generic)
        try:
            return bool(u == v)
        except Exception:  # noqa: BLE001 - fall back to the generic rules
            pass
    found = _generic_unify(u, v, S)
    if found is False:
        return False
    if found is not S:
        S.update(found)
    return True


def _seq_into(u: Sequence, v: Sequence, S: dict) -> bool:
    if len(u) != len(v):
        return False
    for a, b in zip(u, v):
        if not unify_into(a, b, S):
            return False
    return True


def view_items(x: Any) -> tuple | None:
    """The items of ``x``'s one-level term (``term_view(x)._tuple``, or a term's own), without building it."""
    if type(x) is Term:
        return x._tuple
    if is_variable(x):
        node = x.owner
        if node is not None and len(node.outputs) == 1 and in_vocabulary(node.op):
            return (op_term(node.op), *node.inputs)
        return None
    if is_term(x):
        return x._tuple
    view = term_view(x)
    return None if view is None else view._tuple


def term_view(x: Any) -> Any:
    """The term the generic rules would unify ``x`` as, when it is a vocabulary node or Op."""
    if isinstance(x, Variable):
        node = x.owner
        if node is not None and len(node.outputs) == 1 and in_vocabulary(node.op):
            return node_term(x)
        return None
    if isinstance(x, Op) and in_vocabulary(x):
        return op_term(x)
    return None


class Eq:
    """``kanren.eq``: the goal that ``u`` and ``v`` unify (an object, so a compiler can read it)."""

    __slots__ = ("u", "v")

    def __init__(self, u: Any, v: Any) -> None:
        self.u, self.v = u, v

    def __call__(self, S: Mapping) -> Iterator[Mapping]:
        s = unify(self.u, self.v, S)
        if s is not False:
            yield s

    def __repr__(self) -> str:
        return f"eq({self.u!r}, {self.v!r})"


def eq(u: Any, v: Any) -> Eq:
    """``kanren.eq``: the goal that ``u`` and ``v`` unify."""
    return Eq(u, v)


class NotReady(Exception):
    """Raised by a goal whose inputs are not ground yet (see :func:`lall_ready`)."""


class Conj:
    """The goal :func:`lall_ready` returns: its goals, in order (a compiler can read them)."""

    __slots__ = ("goals",)

    def __init__(self, goals: tuple) -> None:
        self.goals = goals

    def __call__(self, S: Mapping) -> Iterator[Mapping]:
        return _solve(list(self.goals), S)


def lall_ready(*goals) -> Conj:
    """Conjunction that runs each goal when its inputs are ready.

    Goals are tried in the order given; a goal that raises
    :class:`NotReady` (a type fact on a term that is still a
    logic variable, an order relation with too little known) waits, and is
    tried again after the next goal has produced a state.  If only waiting
    goals are left, the conjunction has no answer.  This is what lets a
    relation state its structure and its guards once and run forward (left
    side known), backward (right side known) and as a check.  Answers come
    depth first, in a deterministic order.
    """
    return Conj(goals)


def _solve(pending, S):
    if not pending:
        yield S
        return
    for i, goal in enumerate(pending):
        stream = iter(goal(S))
        try:
            first = next(stream)
        except StopIteration:
            return
        except NotReady:
            continue
        rest = pending[:i] + pending[i + 1 :]
        for state in chain((first,), stream):
            yield from _solve(rest, state)
        return
