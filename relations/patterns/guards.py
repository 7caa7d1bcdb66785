"""Guards over pattern variables: ``is_float(a) & positive(c)``, composed from a small library.

A guard is a condition a rule's match must meet, written over the pattern
variables it reads (not over a lambda's parameter names)::

    from relations.lang import p, is_float, positive
    a, c = p.var("a"), p.var("c")
    rewrite_rule("log_mul", p.log(p.mul(c, a)), p.add(p.log(c), p.log(a)),
                 where=is_float(a) & positive(c))

Guards combine with ``&``, ``|`` and ``~``; each is called, once its
variables are bound, with the PyTensor variables they are bound to, in
every direction the rule runs (forward after the left side matched,
backward after the right side did).  The library:

- types: :func:`is_float`, :func:`is_integer`, :func:`same_type`,
  :func:`has_ndim`, :func:`is_scalar` (0-d);
- constant values: :func:`is_constant`, :func:`constant_where`
  (``constant_where(c, lambda v: v > 0)``: a constant whose every value
  passes);
- ranges, read by :func:`graph_bridge.intervals.interval_of` (exact real
  arithmetic over the sub-graph; an Op it does not know gives the whole
  line, so a range guard over an unknown value does not hold):
  :func:`positive`, :func:`nonnegative`, :func:`negative`,
  :func:`nonpositive`, :func:`nonzero`, :func:`within` (a closed range),
  :func:`inside` (an open one);
- your own: :func:`guard` turns a predicate over PyTensor variables into a
  guard factory (``@guard def short(v): return v.type.ndim < 3`` gives
  ``short(a)``).

A guard whose test reads only types (``reads="class"``) lets saturation
match its rule over the input classes without varying the e-nodes below
them.  The range and constant guards read values only (``reads="value"``):
an e-class's interval analysis answers them, so saturation e-matches their
rules as queries (:mod:`relations.saturation.query_matcher`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from pytensor.graph.basic import Variable

from graph_bridge.intervals import interval_of
from graph_bridge.nodes import constant_data
from relations.patterns import PatternVar

__all__ = [
    "Guard",
    "constant_where",
    "guard",
    "has_ndim",
    "inside",
    "is_constant",
    "is_float",
    "is_integer",
    "is_scalar",
    "negative",
    "nonnegative",
    "nonpositive",
    "nonzero",
    "positive",
    "real",
    "same_type",
    "within",
]


class Guard:
    """A condition over pattern variables (``names``), tested with the values they are bound to.

    ``test(values)`` gets a dict from variable name to the bound PyTensor
    variable (or prop value) and returns a bool.  ``reads`` is ``"class"``
    when the test reads types only, else ``"node"``.
    """

    def __init__(self, text: str, variables: tuple[PatternVar, ...], test: Callable[[dict], bool], reads: str) -> None:
        self.text = text
        self.variables = variables
        self.test = test
        self.reads = reads
        self.__name__ = text

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the pattern variables the guard reads, in order."""
        return tuple(v.name for v in self.variables)

    def __call__(self, **values: Any) -> bool:
        return bool(self.test(values))

    def __repr__(self) -> str:
        return self.text

    def __and__(self, other: Guard) -> Guard:
        a, b = self, _as_guard(other, "&")
        return Guard(f"{a} & {b}", _union(a, b), lambda vs: a.test(vs) and b.test(vs), _reads(a, b))

    def __or__(self, other: Guard) -> Guard:
        a, b = self, _as_guard(other, "|")
        return Guard(f"({a} | {b})", _union(a, b), lambda vs: a.test(vs) or b.test(vs), _reads(a, b))

    def __invert__(self) -> Guard:
        a = self
        return Guard(f"~{a}", a.variables, lambda vs: not a.test(vs), a.reads)


def _as_guard(other: Any, op: str) -> Guard:
    if not isinstance(other, Guard):
        raise TypeError(
            f"the right operand of {op} must be a Guard (is_float(a), positive(c), ...), got {type(other).__name__}"
        )
    return other


def _union(a: Guard, b: Guard) -> tuple[PatternVar, ...]:
    return tuple(dict.fromkeys(a.variables + b.variables))


def _reads(a: Guard, b: Guard) -> str:
    if a.reads == b.reads == "class":
        return "class"
    return "value" if {a.reads, b.reads} <= {"class", "value"} else "node"


def _text(x: Any) -> str:
    return x.name if isinstance(x, PatternVar) else repr(x)


def guard(fn: Callable[..., bool] | None = None, *, reads: str = "node") -> Any:
    """A guard factory from ``fn(value, ..., *params) -> bool``: called with pattern variables (and
    other arguments, passed through), it gives a :class:`Guard` over those variables.

    ``reads="class"`` declares that ``fn`` reads only types; ``reads="value"`` that it reads only
    types and what :func:`graph_bridge.intervals.interval_of` and
    :func:`graph_bridge.nodes.constant_data` say of the values (so an e-class's analysis can
    answer it: the query engine runs such rules); ``"node"`` (the default) that it may read the
    variable's node and the graph below.  Usable as ``@guard`` or ``@guard(reads="class")``.
    """
    if reads not in ("class", "value", "node"):
        raise ValueError(f"reads must be 'class', 'value' or 'node', got {reads!r}")
    if fn is None:
        return functools.partial(guard, reads=reads)
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")

    @functools.wraps(fn)
    def make(*args: Any) -> Guard:
        variables = tuple(dict.fromkeys(a for a in args if isinstance(a, PatternVar)))
        if not variables:
            raise TypeError(f"{fn.__name__}(...) needs at least one pattern variable (p.var(...)), got {args!r}")

        def test(values: dict) -> bool:
            return bool(fn(*(values[a.name] if isinstance(a, PatternVar) else a for a in args)))

        return Guard(f"{fn.__name__}({', '.join(_text(a) for a in args)})", variables, test, reads)

    return make


def _dtype(v: Any) -> str:
    return getattr(getattr(v, "type", None), "dtype", "")


@guard(reads="class")
def is_float(v: Variable) -> bool:
    """``v`` is a float tensor."""
    return _dtype(v).startswith("float")


@guard(reads="value")
def real(v: Variable) -> bool:
    """``v`` is a float tensor, or a constant of integers a float Elemwise reads as floats (``1 + exp(x)``
    holds ``1`` as an int8 constant): the numerics theory's identities are about real numbers."""
    if _dtype(v).startswith("float"):
        return True
    data = constant_data(v)
    return data is not None and data.dtype.kind in "iub" and bool(np.all(np.abs(data.astype(float)) < 2.0**53))


@guard(reads="class")
def is_integer(v: Variable) -> bool:
    """``v`` is an integer tensor (signed or unsigned)."""
    return _dtype(v).startswith(("int", "uint"))


@guard(reads="class")
def same_type(a: Variable, b: Variable) -> bool:
    """``a`` and ``b`` have one type (dtype and static shape)."""
    return bool(a.type == b.type)


@guard(reads="class")
def has_ndim(v: Variable, n: int) -> bool:
    """``v`` has ``n`` dimensions."""
    return getattr(v.type, "ndim", None) == n


@guard(reads="class")
def is_scalar(v: Variable) -> bool:
    """``v`` is 0-d."""
    return getattr(v.type, "ndim", None) == 0


@guard(reads="value")
def is_constant(v: Variable) -> bool:
    """``v`` is a constant (or a constant broadcast by ExpandDims)."""
    return constant_data(v) is not None


@guard(reads="value")
def constant_where(v: Variable, test: Callable[[np.ndarray], Any]) -> bool:
    """``v`` is a non-empty constant and ``test(values)`` holds for all of them."""
    data = constant_data(v)
    return data is not None and data.size > 0 and bool(np.all(test(data)))


@guard(reads="value")
def positive(v: Variable) -> bool:
    """Every value of ``v`` is > 0, on every input (:func:`graph_bridge.intervals.interval_of`)."""
    return interval_of(v).positive()


@guard(reads="value")
def nonnegative(v: Variable) -> bool:
    """Every value of ``v`` is >= 0, on every input."""
    return interval_of(v).nonnegative()


@guard(reads="value")
def negative(v: Variable) -> bool:
    """Every value of ``v`` is < 0, on every input."""
    return interval_of(v).negative()


@guard(reads="value")
def nonpositive(v: Variable) -> bool:
    """Every value of ``v`` is <= 0, on every input."""
    return interval_of(v).nonpositive()


@guard(reads="value")
def nonzero(v: Variable) -> bool:
    """No value of ``v`` is 0, on any input."""
    return interval_of(v).nonzero()


@guard(reads="value")
def within(v: Variable, lo: float, hi: float) -> bool:
    """Every value of ``v`` is in ``[lo, hi]``, on every input."""
    return interval_of(v).within(lo, hi)


@guard(reads="value")
def inside(v: Variable, lo: float, hi: float) -> bool:
    """Every value of ``v`` is in ``(lo, hi)``, ends excluded, on every input."""
    return interval_of(v).inside(lo, hi)
