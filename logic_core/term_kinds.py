"""What the core knows of terms: etuples, logic variables, and whether a term is ground.

A term is any ``etuples.ExpressionTuple`` (the bridge's ``Term`` is one); a
logic variable is a ``unification`` ``Var``; anything else is an atom.  The
answers are cached per type (``isinstance`` on an ABC runs Python code, and
the core asks at every node).
"""

from __future__ import annotations

from typing import Any

from etuples.core import ExpressionTuple
from unification.variable import Var

from logic_core.memo import type_check

__all__ = ["is_ground", "is_logic_var", "is_term"]

_ATOM, _ETUPLE, _SEQ, _LVAR = 0, 1, 2, 3
_KINDS: dict[type, int] = {}


def _kind(x: Any) -> int:
    """What ``is_ground`` sees in ``x``, cached per type (``isinstance`` on ABCs is slow)."""
    t = type(x)
    k = _KINDS.get(t)
    if k is None:
        if issubclass(t, Var):
            k = _LVAR
        elif issubclass(t, ExpressionTuple):
            k = _ETUPLE
        elif issubclass(t, (tuple, list)):
            k = _SEQ
        else:
            k = _ATOM
        _KINDS[t] = k
    return k


def is_term(x: Any) -> bool:
    """``isinstance(x, ExpressionTuple)``, the answer cached per type (the ABC check is slow)."""
    return _kind(x) == _ETUPLE


def is_ground(term: Any) -> bool:
    """Whether ``term`` holds no logic variable (evaluated sub-terms count as ground)."""
    stack = [term]
    seen: set[int] | None = None  # terms walked (a shared sub-term is walked once)
    null = ExpressionTuple.null
    kinds = _KINDS
    while stack:
        t = stack.pop()
        k = kinds.get(type(t))
        if k is None:
            k = _kind(t)
        if k == _ATOM:
            continue
        if k == _LVAR:
            return False
        if k == _ETUPLE:
            if t._evaled_obj is not null:
                continue
            if seen is None:
                seen = set()
            elif id(t) in seen:
                continue
            seen.add(id(t))
            stack.extend(t._tuple)
        else:
            stack.extend(t)
    return True


is_logic_var = type_check(Var, "``unification.isvar`` without hashing ``x``, the answer cached per type.")
