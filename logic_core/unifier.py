"""Unification fast paths: ``walk``, ``lreify``, ``unify``, ``unify_into``, and ``eq``.

``unification.reify`` and ``unify`` are generic: every call goes through
``multipledispatch`` and rebuilds every sequence it walks.  The terms the
relations meet are mostly ground already (a node's view is its head over
raw input variables; an evaluated sub-term stands for its value), so the
common cases are short: a logic variable is walked in the state, a ground
term or an atom is returned as it is, a tuple is mapped.  Anything else goes
to the generic functions, so the results are the same.

The core knows no PyTensor object.  What the bridge's terms add (which
objects are atoms, which unify by value, the one-level term an atom is
viewed as, the views of two heads of different classes, the term class to
rebuild) it tells the core once with :func:`install_views`
(``graph_bridge.logic_views`` does, when ``graph_bridge`` is imported).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

from etuples.core import ExpressionTuple
from unification.core import reify as _generic_reify
from unification.core import unify as _generic_unify

from logic_core.memo import type_check
from logic_core.term_kinds import is_logic_var as is_var
from logic_core.term_kinds import is_term

__all__ = ["Eq", "eq", "install_views", "lreify", "unify", "unify_into", "walk"]

_MISSING = object()
_NULL = ExpressionTuple.null
_BASE_ATOMS: tuple[type, ...] = (str, int, float, bool, type(None))


def _no_view(x: Any) -> None:
    return None


def _no_views(u: Any, v: Any) -> None:
    return None


# What the bridge installs (see install_views); the defaults know plain etuples only.
_is_atom = type_check(_BASE_ATOMS, "Whether ``x`` is an atom of the terms (cached per type).")
_by_value: tuple[type, ...] = ()
_term_view: Callable[[Any], Any] = _no_view
_head_views: Callable[[Any, Any], Any] = _no_views
_term_class: type[Any] | None = None
_same_value: Callable[[Any, Any], bool | None] | None = None


def install_views(
    *,
    atoms: tuple[type, ...],
    by_value: tuple[type, ...],
    term_view: Callable[[Any], Any],
    head_views: Callable[[Any, Any], Any],
    term_class: type,
    same_value: Callable[[Any, Any], bool | None] | None = None,
) -> None:
    """Tell the core what the terms it unifies hold.

    ``atoms``: classes returned as they are by ``lreify`` and compared with
    ``==`` by ``unify`` (unless in ``by_value``, which the generic rules
    compare); ``term_view(x)``: the one-level term an atom unifies as
    against a term, or ``None``; ``head_views(u, v)``: the item sequences two
    terms with heads of different classes unify as, or ``None``;
    ``term_class``: the term class ``lreify`` rebuilds without the generic
    machinery; ``same_value(u, v)``: whether two ``by_value`` atoms are one
    value, or ``None`` to leave it to the generic rules (constants of other
    dtypes whose values cast exactly: ``1`` and ``1.0``).
    """
    global _is_atom, _by_value, _term_view, _head_views, _term_class, _same_value
    _same_value = same_value
    _is_atom = type_check(_BASE_ATOMS + tuple(atoms), "Whether ``x`` is an atom of the terms (cached per type).")
    _by_value, _term_view, _head_views, _term_class = tuple(by_value), term_view, head_views, term_class


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
        if type(x) is _term_class:
            items = x._tuple
            new = [lreify(a, S) for a in items]
            if all(a is b for a, b in zip(items, new)):
                return x
            return _term_class(new)
    return _generic_reify(x, S)


def unify(u: Any, v: Any, S: Mapping) -> Mapping | Literal[False]:
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
        viewed = _head_views(u, v)
        if viewed is not None:
            return _seq_into(viewed[0], viewed[1], S)
        return _seq_into(u._tuple, v._tuple, S)
    if u_et or v_et:
        # a variable or an Op against a term: its one-level term, as the
        # generic rules (PyTensor's etuplize-first-argument dispatch) do
        other = v if u_et else u
        view = _term_view(other)
        if view is not None:
            return unify_into(u, view, S) if u_et else unify_into(view, v, S)
    if type(u) is type(v) and _is_atom(u) and not isinstance(u, _by_value):
        # distinct variables, Ops with other props, other literals: what the
        # generic rules conclude too (constants unify by value: generic)
        try:
            return bool(u == v)
        except Exception:  # noqa: BLE001 - fall back to the generic rules
            pass
    if _same_value is not None and isinstance(u, _by_value) and isinstance(v, _by_value):
        verdict = _same_value(u, v)
        if verdict is not None:  # two values of other types: equal when each casts to the other exactly
            return verdict
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
