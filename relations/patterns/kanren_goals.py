"""kanren's own ``eq`` and ``lall`` in a rule: read as the logic core's, or refused by name.

``kanren.eq(u, v)`` and ``kanren.lall(*goals)`` return closures the planner
cannot read.  ``kanren.eq`` means exactly what :func:`logic_core.eq`
means, so :func:`foreign_goal` reads its two sides back and the rule stays
plannable.  ``kanren.lall`` runs its goals in the order given and cannot
wait for a goal that is not ready (a type fact on a variable still unbound
raises ``NotReady`` through it): a relation that *is* a ``kanren.lall`` (a
plain kanren relation) is planned in that order (:func:`kanren_conjuncts`
reads its goals), but one inside a ``lall_ready``, or in ``where=``, is
refused with an error that says to use ``lall_ready``
(``relations.lang.lall``).
"""

from __future__ import annotations

from typing import Any

from kanren import core as _kanren

from logic_core.unifier import Eq

__all__ = ["LALL_MESSAGE", "foreign_goal", "kanren_conjunction", "kanren_conjuncts"]

_EQ_CODE = _kanren.eq(None, None).__code__
_LALL_CODE = _kanren.lall(_kanren.eq(None, None), _kanren.eq(None, None)).__code__

#: What the refusal of a ``kanren.lall`` says to use instead.
LALL_MESSAGE = (
    "kanren.lall runs its goals in order and cannot wait for one that is not ready yet; "
    "use relations.lang.lall (lall_ready) to join a rule's goals"
)


def foreign_goal(goal: Any) -> Eq | None:
    """``goal`` as the logic core's :class:`~logic_core.Eq` when it is a ``kanren.eq``, else ``None``."""
    if getattr(goal, "__code__", None) is not _EQ_CODE:
        return None
    cells = dict(zip(goal.__code__.co_freevars, (c.cell_contents for c in goal.__closure__ or ())))
    return Eq(cells["u"], cells["v"])


def kanren_conjunction(goal: Any) -> bool:
    """Whether ``goal`` is a conjunction ``kanren.lall`` (``lconj``) made."""
    return getattr(goal, "__code__", None) is _LALL_CODE


def kanren_conjuncts(goal: Any) -> tuple | None:
    """The goals of a ``kanren.lall`` (in order) when they are a tuple or list, else ``None``."""
    if not kanren_conjunction(goal):
        return None
    cells = dict(zip(goal.__code__.co_freevars, (c.cell_contents for c in goal.__closure__ or ())))
    goals = cells.get("goals")
    return tuple(goals) if goals is not None and type(goals) in (tuple, list) else None
