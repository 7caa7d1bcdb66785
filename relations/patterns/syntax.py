"""The pattern language's terms: pattern variables, constants, named sub-patterns and node patterns.

:func:`var` (:class:`PatternVar`), :func:`const` (:class:`Const`), :func:`named`
(:class:`Named`, with :data:`LHS` and :data:`RHS` naming the sides of a rule),
:class:`Node` (what every ``p.<function>`` call builds) and :func:`as_pattern`, which
reads a Python number as a constant.  ``relations.patterns`` gathers them with
the matching (:mod:`relations.patterns.matching`) and the builders
(:mod:`relations.patterns.builders`) under ``p``.
"""

from __future__ import annotations

import builtins as _b
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Variable
from unification.variable import Var

from graph_bridge.nodes import constant_data


class _Default:
    """The value of a prop variable a build was given none for: the PyTensor function's default."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEFAULT"


#: What :func:`build` passes for an unbound prop variable (``make`` uses the PyTensor default).
DEFAULT = _Default()

_COUNTER = itertools.count()


class PatternVar(Var):
    """A pattern variable: a logic variable with a user-facing ``name``.

    Every call of :func:`var` makes a distinct variable, even with the same
    name (unlike ``unification.var("a")``, which is one global object).
    """

    __slots__ = ("name",)

    def __new__(cls, name: str | None = None) -> PatternVar:
        n = next(_COUNTER)
        obj = super().__new__(cls, token=("pattern", name, n))
        obj.name = name if name is not None else f"_{n}"
        return obj

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__

    def __getitem__(self, idx: Any) -> Indexed:
        return Indexed(self, idx)


def var(name: str | None = None) -> PatternVar:
    """A pattern variable that stands for any sub-graph; ``name`` is how guards refer to it."""
    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        raise ValueError(f"name must be a Python identifier (guards use it), got {name!r}")
    return PatternVar(name)


class Const:
    """A constant in a pattern: matches by value (and by ``dtype`` when given)."""

    __slots__ = ("value", "dtype")

    def __init__(self, value: Any, dtype: str | None = None) -> None:
        arr = np.asarray(value)
        if arr.dtype == object or arr.ndim != 0:
            raise TypeError(f"value must be a number, got {value!r}")
        if dtype is not None:
            dtype = str(np.dtype(dtype))
        self.value = arr.item()
        self.dtype = dtype

    def matches(self, v: Variable) -> bool:
        data = constant_data(v)
        if data is None or data.size == 0:
            return False
        if self.dtype is not None and data.dtype.name != self.dtype:
            return False
        with np.errstate(all="ignore"):
            return bool(np.all(data == self.value))

    def build(self, siblings: Sequence[Variable] = (), kind: str = "elem") -> Variable:
        if self.dtype is not None:
            return pt.constant(self.value, dtype=self.dtype)
        if kind == "int":
            return pt.constant(self.value, dtype="int64")
        dtypes = [s.type.dtype for s in siblings if hasattr(s.type, "dtype")]
        if dtypes:
            target = np.result_type(*dtypes)
            with np.errstate(all="ignore"):
                cast = np.asarray(self.value).astype(target)
                if cast == self.value and (cast.dtype != bool or isinstance(self.value, bool)):
                    return pt.constant(cast, dtype=target.name)
        return pt.as_tensor_variable(self.value)

    def __repr__(self) -> str:
        return repr(self.value) if self.dtype is None else f"const({self.value!r}, {self.dtype!r})"


def const(value: Any, dtype: str | None = None) -> Const:
    """A constant pattern: matches constants equal to ``value`` (of ``dtype``, if given)."""
    return Const(value, dtype)


class Named:
    """``p.named(v, node)``: the pattern ``node``, whose matched sub-graph ``where=`` goals reach as ``v``."""

    __slots__ = ("var", "node")

    def __init__(self, v: Any, node: Any) -> None:
        if not isinstance(v, Var):
            raise TypeError(f"v must be a pattern variable (p.var), got {type(v).__name__}")
        self.var = v
        self.node = as_pattern(node, "node")

    def __repr__(self) -> str:
        return f"named({self.var}, {self.node!r})"


def named(v: Any, node: Any) -> Named:
    """``node``, with the sub-graph it matches (or builds) bound to ``v`` for ``where=`` goals.

    ``p.careduce(r, p.named(s, p.dimshuffle(x, o)))``: ``movable_viewo(s)``
    asks about the DimShuffle itself.
    """
    return Named(v, node)


#: The whole left side of a rule, for ``where=`` goals (``same_typeo(p.LHS, p.RHS)``).
LHS = PatternVar("lhs")
#: The whole right side of a rule, for ``where=`` goals.
RHS = PatternVar("rhs")


class Indexed:
    """``x[idx]`` in a pattern: the first argument of ``p.set_subtensor`` / ``p.inc_subtensor``."""

    __slots__ = ("base", "idx")

    def __init__(self, base: Any, idx: Any) -> None:
        self.base = base
        self.idx = idx if isinstance(idx, tuple) else (idx,)
        for i in self.idx:
            ok = isinstance(i, (int, np.integer)) and not isinstance(i, bool)
            if isinstance(i, slice):
                ok = _b.all(
                    s is None or (isinstance(s, (int, np.integer)) and not isinstance(s, bool))
                    for s in (i.start, i.stop, i.step)
                )
            if not ok:
                raise TypeError(f"idx entries must be ints or slices of ints, got {i!r}")


class Node:
    """A pattern node: a PyTensor function applied to argument patterns.

    ``make(*inputs)`` builds the node from PyTensor variables (one per
    argument pattern); ``op_classes`` are the Op classes it can have;
    ``positions(node)`` gives which inputs of a candidate node are the
    arguments (or ``None`` if the node cannot be one); ``rebuild_check``
    says whether a match must also equal what ``make`` (or ``also``, an
    equivalent form such as the explicit-broadcast Alloc) builds from them.
    """

    __slots__ = (
        "name", "args", "make", "op_classes", "positions", "rebuild_check", "kinds", "text", "also",
        "props", "read_props", "term_of",
    )

    def __init__(
        self,
        name: str,
        args: Sequence[Any],
        make: Callable[..., Any],
        op_classes: tuple[type, ...],
        positions: Callable[[Any], Sequence[int] | None],
        rebuild_check: bool,
        kinds: Sequence[str] | None = None,
        text: str | None = None,
        also: Callable[..., Variable] | None = None,
        props: Sequence[tuple[str, Any]] = (),
        read_props: Callable[[Any], dict | None] | None = None,
        term_of: Callable[[Any, list], Any] | None = None,
    ) -> None:
        self.name = name
        self.args = tuple(as_pattern(a, f"{name} argument {i}") for i, a in enumerate(args))
        self.make = make
        self.op_classes = op_classes
        self.positions = positions
        self.rebuild_check = rebuild_check
        self.kinds = tuple(kinds) if kinds is not None else ("elem",) * len(self.args)
        self.text = text
        self.also = also
        #: ``(prop name, value or prop variable)`` pairs; ``make`` takes them as keywords
        self.props = tuple(props)
        #: ``read_props(node)``: the node's props by name (``None``: the node cannot be one)
        self.read_props = read_props
        #: ``term_of(compiler, child_terms)``: the node's term template (``relations.patterns.compiler``), if it has one
        self.term_of = term_of
        if self.props and read_props is None:
            raise TypeError(f"{name}: a node pattern with props needs read_props")

    def with_args(self, args: Sequence[Any]) -> Node:
        """This node over other argument patterns (same Op, props and builder)."""
        new = object.__new__(Node)
        for slot in Node.__slots__:
            setattr(new, slot, getattr(self, slot))
        new.args = tuple(args)
        return new

    def __repr__(self) -> str:
        inner = ", ".join(repr(a) for a in self.args)
        if self.text:
            inner = f"{inner}, {self.text}" if inner else self.text
        return f"{self.name}({inner})"


def as_pattern(a: Any, what: str) -> Any:
    """``a`` as a pattern (a number becomes a :class:`Const`); ``TypeError`` naming ``what`` if it is none."""
    if isinstance(a, (Var, Const, Node, Named)) or getattr(a, "is_pattern_node", False):
        return a
    if isinstance(a, (bool, int, float, np.number)):
        return Const(a)
    raise TypeError(
        f"{what} must be a pattern (p.var, a p.<function> call, p.const or a number), "
        f"got {type(a).__name__}"
    )
