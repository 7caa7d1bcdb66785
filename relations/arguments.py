"""Checks of the public calls' arguments, run when the call is made.

Every check raises ``TypeError`` or ``ValueError`` with the argument's name,
and none of them runs user code beyond what the check itself needs: rules are
validated from their signatures (never called), and a cost function's result
is checked where it is used (:func:`check_cost_value`).
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import types
from collections.abc import Iterable, Mapping, Set
from typing import Any, Literal, TypeVar, overload

import numpy as np
from etuples.core import ExpressionTuple
from pytensor.graph.basic import Variable
from pytensor.graph.fg import FunctionGraph

from logic_core.term_kinds import is_logic_var
from relations.patterns import Named, Node
from relations.patterns.nodes import CompiledNode
from relations.patterns.relation import Relation, unmeasured_choice

__all__ = [
    "as_variables",
    "check_callable",
    "check_count",
    "check_cost_value",
    "check_pattern",
    "check_relations",
    "check_tag",
    "check_timeout",
    "greedy_rules",
]

#: What the public calls take as ``graph``: a variable, or a list or tuple of
#: them; each call returns the same structure.
Graph = TypeVar("Graph", Variable, list[Variable], tuple[Variable, ...])


def check_relations(rules: Any, argname: str = "rules") -> tuple[Relation, ...]:
    """``rules`` as a tuple of relations, checked without calling any of them.

    Order matters (``normalize`` tries rules in order), so unordered
    collections (``set``, ``frozenset``, a dict's keys) are refused.  Each
    entry must be callable with two positional arguments ``(lhs, rhs)``; an
    entry whose signature cannot be read, a class and a built-in (C) function such
    as ``print`` are refused too (from what they are: nothing is called).  A
    rule whose body raises is not caught here: its own exception, with its
    traceback, reaches the caller when the rule runs.
    """
    if callable(rules) or isinstance(rules, (str, bytes)) or not isinstance(rules, Iterable):
        raise TypeError(
            f"{argname} must be a sequence of relations (goal constructors), "
            f"got {type(rules).__name__}"
        )
    if isinstance(rules, (Set, Mapping)) or type(rules).__name__ in ("dict_keys", "dict_values"):
        raise TypeError(
            f"{argname} must be an ordered sequence (list or tuple) of relations, got "
            f"{type(rules).__name__}: rules are tried in order, so their order matters"
        )
    out = tuple(rules)
    for i, rel in enumerate(out):
        name = getattr(rel, "__name__", None) or type(rel).__name__
        if not callable(rel):
            raise TypeError(
                f"{argname}[{i}] must be a relation (a goal constructor), "
                f"got {type(rel).__name__}"
            )
        kind = _not_a_goal_constructor(rel)
        if kind is not None:
            raise TypeError(
                f"{argname}[{i}] ({name!r}) is {kind}, not a goal constructor: a relation is a "
                f"Python function of (lhs, rhs) returning a goal (or relations.rewrite_rule, @relations.rule)"
            )
        try:
            sig = inspect.signature(rel)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{argname}[{i}] ({name!r}) must be a goal constructor taking (lhs, rhs); "
                f"its signature cannot be read: {exc}"
            ) from exc
        try:
            sig.bind(object(), object())
        except TypeError as exc:
            raise TypeError(
                f"{argname}[{i}] ({name!r}) is not a goal constructor taking (lhs, rhs): "
                f"its signature is {sig} ({exc})"
            ) from exc
    return out


def _not_a_goal_constructor(rel: Any) -> str | None:
    """What ``rel`` is when it cannot be a goal constructor, read off its kind (never called):
    a class (calling it builds an instance) or a built-in (C) function or method, such as
    ``print``; a ``functools.partial`` is judged by what it wraps."""
    while isinstance(rel, functools.partial):
        rel = rel.func
    if isinstance(rel, type):
        return f"a class ({rel.__name__})"
    if inspect.isbuiltin(rel) or isinstance(rel, (types.MethodWrapperType, types.WrapperDescriptorType)):
        return "a built-in function"
    return None


def check_callable(value: Any, argname: str, allow_none: bool = True) -> Any:
    """``value`` if it is callable (or ``None`` when allowed); ``TypeError`` naming ``argname``."""
    if value is None and allow_none:
        return None
    if not callable(value):
        raise TypeError(f"{argname} must be a callable, got {type(value).__name__}")
    return value


def check_cost_value(value: Any, argname: str = "cost") -> float:
    """A cost function's result as a float: a real number (not a bool, not NaN)."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{argname} must return a real number, got {type(value).__name__}"
            + (f" {value!r}" if isinstance(value, (str, type(None))) else "")
        )
    result = float(value)
    if math.isnan(result):
        raise ValueError(f"{argname} must return a real number, got nan")
    return result


def check_pattern(pattern: Any, argname: str = "pattern") -> Any:
    """An etuple pattern, a ``relations.patterns`` pattern or a logic variable; ``TypeError`` otherwise."""
    if not isinstance(pattern, (ExpressionTuple, Node, Named, CompiledNode)) and not is_logic_var(pattern):
        raise TypeError(
            f"{argname} must be an etuple, a relations.patterns pattern (or a logic variable), "
            f"got {type(pattern).__name__}"
        )
    return pattern


def check_tag(tag: Any, argname: str = "tag") -> str:
    """A non-empty ``str`` usable as an ``optdb`` tag (no spaces)."""
    if not isinstance(tag, str) or not tag or any(c.isspace() for c in tag):
        raise ValueError(f"{argname} must be a non-empty string without spaces, got {tag!r}")
    return tag


def greedy_rules(rules: Any) -> Any:
    """``rules`` for ``normalize``, once none is a choice rule without a measure (``ValueError`` naming it).

    A choice rule (``rewrite_rule(..., choice=True)``, as ``RULESETS["choices"]``)
    that states no measure may rewrite for ever: it runs in saturation only.
    """
    for i, r in enumerate(check_relations(rules, "rules") if rules is not None else ()):
        if unmeasured_choice(r):
            raise ValueError(
                f"rules[{i}] ({r.__name__!r}) is a choice rule with no measure: normalize would not stop; "
                f"run it with relations.saturate, best or equivalents, or give it a measure="
            )
    return rules


def as_variables(graph: Any, argname: str = "graph") -> tuple[list[Variable], bool]:
    """``graph`` as a list of variables, and whether it was a single one."""
    if isinstance(graph, Variable):
        return [graph], True
    if isinstance(graph, FunctionGraph):
        raise TypeError(
            f"{argname} must be a PyTensor Variable or a list of them, got a FunctionGraph; "
            f"pass fgraph.outputs (the FunctionGraph itself is not changed)"
        )
    if isinstance(graph, (list, tuple)):
        bad = [i for i, g in enumerate(graph) if not isinstance(g, Variable)]
        if bad:
            i = bad[0]
            raise TypeError(
                f"{argname}[{i}] must be a PyTensor Variable, got {type(graph[i]).__name__}"
            )
        return list(graph), False
    raise TypeError(
        f"{argname} must be a PyTensor Variable or a list of them, "
        f"got {type(graph).__name__}"
    )


@overload
def check_count(value: Any, argname: str, allow_none: Literal[False] = False) -> int: ...
@overload
def check_count(value: Any, argname: str, allow_none: bool) -> int | None: ...


def check_count(value: Any, argname: str, allow_none: bool = False) -> int | None:
    """``value`` as a non-negative int; ``ValueError`` names ``argname`` otherwise."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{argname} must be a non-negative integer, got {value!r}")
    return int(value)


def check_timeout(value: Any) -> float | None:
    """``value`` as a positive number of seconds, or ``None``; ``ValueError`` names ``timeout``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {value!r}")
    return float(value)


def same_structure(graph: Any, single: bool, result: list[Variable]) -> Any:
    """``result`` in the structure of ``graph`` (what :func:`as_variables` read): a variable, a list or a tuple."""
    if single:
        return result[0]
    return type(graph)(result) if isinstance(graph, tuple) else result
