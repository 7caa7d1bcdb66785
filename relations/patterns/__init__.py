"""Patterns: PyTensor graphs with holes, for declaring rules (``from relations import patterns as p``).

A pattern is built with the same calls as a PyTensor graph, under ``p.``::

    from relations import patterns as p
    a = p.var("a")
    lhs = p.neg(p.neg(a))            # matches neg(neg(<anything>)), binds a
    rhs = a

- :func:`var` is a pattern variable: it stands for any sub-graph.  Two
  occurrences of one variable must be the same graph.
- ``p.exp``, ``p.add``, ``p.mul``, ... (every scalar ``Elemwise`` function of
  ``pytensor.tensor``) match a node of that Elemwise with that many inputs,
  stock or explicit-broadcast (:class:`graph_bridge.ExplicitElemwise`, when
  its broadcasting is what the inputs' types give), and build one with
  ``pt.exp``, ``pt.add``, ....
- ``p.sum(a, axis=None)``, ``p.prod``, ``p.max``, ``p.min``, ``p.all``,
  ``p.any``, ``p.expand_dims(a, axis)``, ``p.transpose(a, axes=None)``,
  ``p.join(axis, *tensors)``, ``p.alloc(value, *shape)``,
  ``p.set_subtensor(x[idx], y)``, ``p.inc_subtensor(x[idx], y)`` match
  exactly the node that the PyTensor function of the same name builds from
  the matched inputs (same Op, props and inputs: ``p.sum(a, axis=0)`` does
  not match a ``Sum`` with another ``dtype``), and build with that function.
  ``p.alloc`` also matches the explicit-broadcast Alloc ``normalize`` makes.
  ``axes`` and ``idx`` are Python values (``idx``: ints and slices of ints).
- Prop variables: a pattern variable in a prop position stands for that
  prop's value, read off the node matched and used where the other side
  is built: ``p.sum(a, axis=p.var("ax"))`` (any axes; ``p.prod`` ...
  likewise), ``p.dimshuffle(a, order=p.var("o"))`` (any DimShuffle),
  ``p.careduce(p.var("r"), a, axis=...)`` (any reduction: ``r`` is bound to
  a :class:`Reduction`, the node's Op without its axes).  :func:`prop_vars`
  lists them, :func:`pattern_vars` the graph variables; ``where=`` goals of
  :func:`relations.rewrite_rule` (:mod:`relations.patterns.props`) compute
  props of one side from the other's.
- Constants: :func:`const` (``p.const(1.0)``), or a plain Python number in an
  argument position.  A constant pattern matches a PyTensor constant, or a
  constant that Elemwise broadcasting expanded (``ExpandDims`` of a 0-d
  constant), of **any dtype** whose every element equals the value
  numerically (``p.const(1)`` matches ``1.0``, ``1`` and ``True``), unless a
  ``dtype`` is given (``p.const(1.0, dtype="float32")`` matches float32 only).
  Built, a constant takes the given dtype, else the dtype of its sibling
  inputs when it holds the value exactly (``p.mul(a, 2)`` with ``a`` float32
  builds a float32 ``2``), else PyTensor's default for the value.

- Names for ``where=`` goals: ``p.named(s, node)`` binds the sub-graph
  ``node`` matches to ``s``; :data:`LHS` and :data:`RHS` stand for the two
  sides of a rule; ``p.dimshuffle(a, o, ndim=n)`` names the input's ndim.
- Nodes read by a goal (:mod:`relations.patterns.nodes`, for rules only:
  ``p.elemwise(f, inputs=xs)``, ``p.alloc_of(v, shape)``, ``p.set_at(x,
  idx, v, op=h)``, ``p.join_of(k, pieces)``, ``p.combine(f, parts)``,
  ``p.reduce(h, x)``, ``p.maybe_dimshuffle(x, o)``, ``p.elemwise_operands(f,
  xs, es)``, ``p.maybe_alloc(v, shape)``, ...): their parts are
  tuples and Op props, so they neither match nor build by themselves.

Patterns are plain Python objects; :func:`relations.rewrite_rule` turns two
of them into a relation (compiled to term templates and goals when every
node has one, :mod:`relations.patterns.compiler`), :func:`match` matches one
against a graph.
"""

from __future__ import annotations

import builtins as _b
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.op import Op
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from unification.variable import Var

from graph_bridge import ExplicitAlloc, ExplicitElemwise, builder_for, explicit_alloc, term_variable
from graph_bridge.building import single_output
from graph_bridge.nodes import absorb_expansion, is_expansion
from graph_bridge.ops import derive_entry
from relations.patterns.nodes import (
    alloc_of,
    combine,
    elemwise,
    elemwise_first,
    elemwise_operands,
    elemwise_or_one,
    explicit_alloc_of,
    explicit_elemwise,
    inc_at,
    join_of,
    maybe_alloc,
    maybe_dimshuffle,
    reduce,
    set_at,
    stock_alloc_of,
)

__all__ = [
    "Const",
    "Node",
    "PatternVar",
    "const",
    "match",
    "DEFAULT",
    "Reduction",
    "as_pattern",
    "build",
    "pattern_nodes",
    "pattern_vars",
    "prop_keys",
    "prop_vars",
    "same_prop",
    "var",
]

_UNBOUND = object()


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
        data = _constant_data(v)
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


def _constant_data(v: Variable) -> np.ndarray | None:
    """The data of a constant, looking through the DimShuffle that Elemwise broadcasting adds."""
    if isinstance(v, Constant):
        return np.asarray(v.data)
    node = v.owner
    if (
        node is not None
        and type(node.op) is DimShuffle
        and isinstance(node.inputs[0], Constant)
        and [o for o in node.op.new_order if o != "x"] == list(range(node.inputs[0].type.ndim))
    ):
        return np.asarray(node.inputs[0].data)
    return None


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


# -- matching ------------------------------------------------------------------


def _children(t: Any, node: Any) -> Sequence[Any]:
    """The sub-terms of term ``t`` for ``node``'s inputs (the inputs themselves if ``t`` is a variable)."""
    tup = getattr(t, "_tuple", None)
    if tup is not None and len(tup) == len(node.inputs) + 1:
        return tup[1:]
    return node.inputs


def _same_graph(a: Any, b: Any) -> bool:
    if a is b:
        return True
    va, vb = term_variable(a), term_variable(b)
    if va is None or vb is None:
        return False
    if va is vb:
        return True
    from pytensor.graph.basic import equal_computations

    return equal_computations([va], [vb])


def _same_input(a: Variable, b: Variable) -> bool:
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant):
        da, db = np.asarray(a.data), np.asarray(b.data)
        return da.shape == db.shape and bool(np.all(da == db))
    return False


def match(pattern: Any, t: Any, binding: dict | None = None) -> dict | None:
    """Bind ``pattern``'s variables to sub-terms of ``t`` (a ground term or a variable), or ``None``.

    ``binding`` holds variables bound already (they must be the same graph again).
    """
    binding = {} if binding is None else binding
    stack = [(pattern, t)]
    while stack:
        pat, sub = stack.pop()
        if isinstance(pat, Named):
            stack.append((pat.var, sub))
            stack.append((pat.node, sub))
            continue
        if isinstance(pat, Var):
            if not _bind(binding, pat, sub, _same_graph):
                return None
            continue
        v = term_variable(sub)
        if v is None:
            return None
        if isinstance(pat, Const):
            if not pat.matches(v):
                return None
            continue
        node = v.owner
        if node is None or len(node.outputs) != 1 or not isinstance(node.op, pat.op_classes):
            return None
        pos = pat.positions(node)
        if pos is None or len(pos) != len(pat.args):
            return None
        props = _match_props(pat, node, binding) if pat.props else {}
        if props is None:
            return None
        if pat.rebuild_check and not _b.any(
            _rebuilds(make, node, pos, props) for make in (pat.make, pat.also) if make is not None
        ):
            return None
        kids = _children(sub, node)
        padded = type(node.op) is Elemwise and len(node.inputs) >= 2
        stack.extend(
            (a, _operand(a, node.inputs[i], kids[i]) if padded else kids[i]) for a, i in zip(pat.args, pos)
        )
    return binding


def _wants_dimshuffle(pat: Any) -> bool:
    """Whether the pattern ``pat`` matches a DimShuffle node itself (``p.dimshuffle``, ``p.expand_dims``, ...)."""
    if isinstance(pat, Named):
        pat = pat.node
    return DimShuffle in getattr(pat, "op_classes", ())


def _operand(pat: Any, v: Variable, t: Any) -> Any:
    """The operand a broadcasting Elemwise input ``v`` (term ``t``) is, as the explicit form reads it.

    ``Elemwise.make_node`` pads an input of lower ndim with an ExpandDims on
    the left; the explicit-broadcast form (``ExplicitElemwise``, what the
    rules see after ``elemwise_explicito``) holds the input itself.  So a
    pattern argument reads through that padding (``p.mul(x, c)`` binds ``c``
    to the 0-d ``s`` of ``m * s``), unless it is a DimShuffle pattern itself.
    """
    if _wants_dimshuffle(pat) or not is_expansion(v):
        return t
    inner, entry = absorb_expansion(v)
    if entry != derive_entry(inner.type.shape, v.type.ndim):
        return t  # dims added elsewhere than on the left: not what broadcasting adds
    return _children(t, v.owner)[0]


def _bind(binding: dict, var: Any, value: Any, same: Callable[[Any, Any], bool]) -> bool:
    """Bind ``var`` to ``value``, or check ``same`` against what it is bound to already."""
    seen = binding.get(var, _UNBOUND)
    if seen is _UNBOUND:
        binding[var] = value
        return True
    return same(seen, value)


def _match_props(pat: Node, node: Any, binding: dict) -> dict | None:
    """The props ``pat`` reads off ``node``, with its prop variables bound in ``binding``; ``None``: no match."""
    if pat.read_props is None:  # a node without props (Node refuses props without read_props)
        return {}
    found = pat.read_props(node)
    if found is None:
        return None
    for key, want in pat.props:
        got = found[key]
        if isinstance(want, Var):
            if not _bind(binding, want, got, same_prop):
                return None
        elif not same_prop(want, got):
            return None
    return found


def same_prop(a: Any, b: Any) -> bool:
    """Whether two prop values are the same (equal, and of one type: ``1`` is not ``True``)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that do not compare are not the same
        return False


def _rebuilds(make: Callable[..., Variable], node: Any, pos: Sequence[int], props: dict) -> bool:
    """Whether ``make`` applied to the inputs at ``pos`` (and ``props``) builds ``node`` again."""
    try:
        rebuilt = make(*[node.inputs[i] for i in pos], **props)
    except Exception:  # noqa: BLE001 - the inputs do not fit: no match
        return False
    rnode = rebuilt.owner
    return (
        rnode is not None
        and rnode.op == node.op
        and len(rnode.inputs) == len(node.inputs)
        and _b.all(_same_input(x, y) for x, y in zip(rnode.inputs, node.inputs))
    )


def build(pattern: Any, lookup: Callable[[Var], Variable], props: Mapping[Var, Any] | None = None) -> Variable:
    """The PyTensor graph of ``pattern`` with each variable replaced by ``lookup(var)``.

    A prop variable takes its value from ``props``; one ``props`` does not
    hold takes the PyTensor function's default (``axis=None``, the identity
    order, ``pt.sum``'s reduction).
    """
    if isinstance(pattern, Var):
        return lookup(pattern)
    if isinstance(pattern, Named):
        return build(pattern.node, lookup, props)
    if isinstance(pattern, Const):
        return pattern.build()
    if not isinstance(pattern, Node):
        raise TypeError(f"{pattern!r} compiles to goals only: it is matched and built by its rule, not by p.build")
    built: list[Variable | None] = [
        None if isinstance(a, Const) else build(a, lookup, props) for a in pattern.args
    ]
    siblings = [b for b in built if b is not None]
    args = [
        a.build(siblings, kind) if b is None else b
        for a, b, kind in zip(pattern.args, built, pattern.kinds)
    ]
    values = {}
    for key, want in pattern.props:
        if isinstance(want, Var):
            values[key] = props[want] if props is not None and want in props else DEFAULT
        else:
            values[key] = want
    return pattern.make(*args, **values)


def pattern_vars(pattern: Any) -> list[Var]:
    """The pattern's graph variables (those that stand for sub-graphs), in first-occurrence order."""
    out: list[Var] = []
    stack = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, Named):
            p = p.node
        if isinstance(p, Var):
            if p not in out:
                out.append(p)
        elif isinstance(p, Node):
            stack.extend(reversed(p.args))
    return out


def prop_vars(pattern: Any) -> list[Var]:
    """The pattern's prop variables (``axis=p.var("ax")``, ...), in first-occurrence order."""
    return list(prop_keys(pattern))


def prop_keys(pattern: Any) -> dict[Var, str]:
    """Each prop variable of the pattern and the prop it stands for (``"axis"``, ``"order"``, ``"op"``),
    in first-occurrence order (a variable in two places: the first)."""
    out: dict[Var, str] = {}
    stack = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, Named):
            p = p.node
        if isinstance(p, Node):
            for key, v in p.props:
                if isinstance(v, Var):
                    out.setdefault(v, key)
            stack.extend(reversed(p.args))
    return out


def pattern_nodes(pattern: Any) -> int:
    """How many nodes the pattern has (constants and variables are not nodes; a goal node is one)."""
    n, stack = 0, [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, Named):
            p = p.node
        if isinstance(p, Node) or getattr(p, "is_pattern_node", False):
            n += 1
            stack.extend(p.args)
    return n


# -- builders --------------------------------------------------------------------


def _elemwise_positions(scalar_op: Any) -> Callable[[Any], Sequence[int] | None]:
    def positions(node):
        op = node.op
        if op.scalar_op != scalar_op:
            return None
        if type(op) is Elemwise:
            if op.inplace_pattern:
                return None
        elif type(op) is ExplicitElemwise:
            out_ndim = node.outputs[0].type.ndim
            if _b.any(
                e != derive_entry(i.type.shape, out_ndim) for e, i in zip(op.pattern, node.inputs)
            ):
                return None  # its broadcasting is not what a stock node would read from the types
        else:
            return None
        return range(len(node.inputs))

    return positions


def _elemwise_builder(name: str, fn: Elemwise) -> Callable[..., Node]:
    positions = _elemwise_positions(fn.scalar_op)

    def builder(*args: Any) -> Node:
        if not args:
            raise TypeError(f"p.{name} takes at least one argument pattern")
        return Node(name, args, fn, (Elemwise, ExplicitElemwise), positions, rebuild_check=False)

    builder.__name__ = name
    builder.__doc__ = (
        f"Pattern of ``pt.{name}(*args)``: a not-inplace ``{fn.scalar_op}`` Elemwise "
        f"node with one input per argument."
    )
    return builder


def _first(node):
    return (0,)


def _op_class(fn: Callable[[Variable], Variable], probe: Variable) -> type:
    return type(fn(probe).owner.op)


def _axis_text(axis: Any) -> str:
    return f"axis={axis!r}"


def _check_axis(axis: Any, argname: str = "axis", allow_none: bool = True) -> Any:
    def ok(a):
        return isinstance(a, (int, np.integer)) and not isinstance(a, bool)

    if axis is None and allow_none:
        return None
    if ok(axis):
        return int(axis)
    if isinstance(axis, (tuple, list)) and _b.all(ok(a) for a in axis):
        return tuple(int(a) for a in axis)
    raise TypeError(f"{argname} must be an int or a tuple of ints, got {axis!r}")


def _axis_of(node: Any) -> dict:
    return {"axis": node.op.axis}


def _reduction_builder(name: str, fn: Callable) -> Callable[..., Node]:
    op_class = _op_class(fn, pt.vector())

    def builder(a: Any, axis: Any = None) -> Node:
        if isinstance(axis, Var):  # a prop variable: any axes, read off the node
            return Node(
                name,
                (a,),
                lambda x, axis: fn(x, axis=None if axis is DEFAULT else axis),
                (op_class,),
                _first,
                rebuild_check=True,
                text=f"axis={axis}",
                props=(("axis", axis),),
                read_props=_axis_of,
            )
        ax = _check_axis(axis)
        return Node(
            name,
            (a,),
            lambda x: fn(x, axis=ax),
            (op_class,),
            _first,
            rebuild_check=True,
            text=_axis_text(ax),
        )

    builder.__name__ = name
    builder.__doc__ = (
        f"Pattern of ``pt.{name}(a, axis=axis)`` (a ``{op_class.__name__}`` node); ``axis`` is an int, "
        f"a tuple of ints, ``None`` or a prop variable (``p.var(\"ax\")``: any axes, bound to the "
        f"node's ``axis`` prop, a tuple or ``None``)."
    )
    return builder


class Reduction:
    """The reduction of a CAReduce node without its axes: what ``p.careduce``'s head variable binds to.

    Two nodes of one Op class with the same props but ``axis`` have equal
    reductions; ``op(axis)`` is that Op along ``axis`` (so the output dtype
    is the node's).
    """

    __slots__ = ("builder", "props", "_slot")

    def __init__(self, op: CAReduce) -> None:
        self.builder = builder_for(type(op))
        self._slot = self.builder.prop_names.index("axis")
        props = list(op._props())  # type: ignore[attr-defined]  # made by PyTensor's MetaType (__props__)
        props[self._slot] = None
        self.props = tuple(props)

    def op(self, axis: Any) -> Op:
        """This reduction along ``axis`` (a tuple of ints, or ``None`` for every axis)."""
        props = list(self.props)
        props[self._slot] = axis
        return self.builder(*props)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is Reduction
            and other.builder.op_class is self.builder.op_class
            and other.props == self.props
        )

    def __hash__(self) -> int:
        return hash((self.builder.op_class, self.props))

    def __repr__(self) -> str:
        return f"Reduction({self.builder.op_class.__name__})"


def _read_reduction(node: Any) -> dict | None:
    op = node.op
    if "axis" not in getattr(op, "__props__", ()):
        return None
    try:
        builder_for(type(op))
    except KeyError:  # not in the vocabulary: its Op cannot be rebuilt from props
        return None
    return {"op": Reduction(op), "axis": op.axis}


def _make_reduction(x: Variable, op: Any, axis: Any) -> Variable:
    axis = None if axis is DEFAULT else axis
    if op is DEFAULT:
        return pt.sum(x, axis=axis)
    if type(op) is not Reduction:
        raise TypeError(f"op must be a Reduction (what p.careduce binds), got {type(op).__name__}")
    return single_output(op.op(axis), x)


def careduce(op: Any, a: Any, axis: Any = None) -> Node:
    """Pattern of any reduction (a ``CAReduce`` node: sum, prod, max, min, all, any, ...).

    ``op`` is a prop variable bound to the node's :class:`Reduction` (its Op
    without the axes), or a :class:`Reduction`; ``axis`` an int, a tuple of
    ints, ``None`` or a prop variable.  Built, the reduction is ``op``
    along ``axis``, with the node's dtypes.
    """
    if not isinstance(op, (Var, Reduction)):
        raise TypeError(f"op must be a prop variable (p.var) or a Reduction, got {type(op).__name__}")
    if not isinstance(axis, Var):
        axis = _check_axis(axis)
        axis = (axis,) if isinstance(axis, int) else axis
    return Node(
        "careduce",
        (a,),
        _make_reduction,
        (CAReduce,),
        _first,
        rebuild_check=False,  # the Reduction and axis read are the node's props: it rebuilds as it is
        text=f"op={op!r}, axis={axis!r}",
        props=(("op", op), ("axis", axis)),
        read_props=_read_reduction,
        term_of=(lambda c, kids: c.careduce(kids[0], op, axis)) if isinstance(op, Var) else None,
    )


def _read_order(node: Any) -> dict | None:
    return {"order": tuple(node.op.new_order)} if type(node.op) is DimShuffle else None


def _make_dimshuffle(x: Variable, order: Any) -> Variable:
    if order is DEFAULT:
        order = tuple(range(x.type.ndim))
    return single_output(DimShuffle(input_ndim=x.type.ndim, new_order=tuple(order)), x)


def _check_order(order: Any) -> tuple:
    ok = isinstance(order, (tuple, list)) and _b.all(
        o == "x" or (isinstance(o, (int, np.integer)) and not isinstance(o, bool)) for o in order
    )
    if not ok:
        raise TypeError(f"order must be a tuple of ints and 'x' or a prop variable, got {order!r}")
    return tuple(o if o == "x" else int(o) for o in order)


def dimshuffle(a: Any, order: Any, ndim: Any = None) -> Node:
    """Pattern of ``a.dimshuffle(order)`` (a ``DimShuffle``; ``order`` as its ``new_order``).

    ``order`` is a tuple of ints and ``'x'`` or a prop variable, bound to the
    node's ``new_order`` (any DimShuffle: expand, drop, transpose, identity).
    ``ndim`` (a prop variable) names the DimShuffle's ``input_ndim`` for
    ``where=`` goals (``valid_ordero(n, o)``); a rule that names it relates it
    to ``a`` itself (``ndimo(a, n)``), else the rule reads it off ``a``.
    """
    if not isinstance(order, Var):
        order = _check_order(order)
    if ndim is not None and not isinstance(ndim, Var):
        raise TypeError(f"ndim must be a prop variable (p.var) or None, got {ndim!r}")
    return Node(
        "dimshuffle",
        (a,),
        _make_dimshuffle,
        (DimShuffle,),
        _first,
        rebuild_check=False,  # a DimShuffle (exactly) is its input's ndim and its order: it rebuilds as it is
        text=f"order={order!r}",
        props=(("order", order),),
        read_props=_read_order,
        term_of=lambda c, kids: c.dimshuffle(kids[0], order, ndim),
    )


sum = _reduction_builder("sum", pt.sum)  # noqa: A001 - the PyTensor name
prod = _reduction_builder("prod", pt.prod)
max = _reduction_builder("max", pt.max)  # noqa: A001
min = _reduction_builder("min", pt.min)  # noqa: A001
all = _reduction_builder("all", pt.all)  # noqa: A001
any = _reduction_builder("any", pt.any)  # noqa: A001


def expand_dims(a: Any, axis: Any) -> Node:
    """Pattern of ``pt.expand_dims(a, axis)`` (a ``DimShuffle`` that adds dims)."""
    ax = _check_axis(axis, allow_none=False)
    return Node(
        "expand_dims",
        (a,),
        lambda x: pt.expand_dims(x, ax),
        (DimShuffle,),
        _first,
        rebuild_check=True,
        text=_axis_text(ax),
    )


def transpose(a: Any, axes: Any = None) -> Node:
    """Pattern of ``pt.transpose(a, axes)`` (a ``DimShuffle`` that permutes dims)."""
    ax = _check_axis(axes, "axes")
    if isinstance(ax, int):
        raise TypeError(f"axes must be a tuple of ints or None, got {axes!r}")
    return Node(
        "transpose",
        (a,),
        lambda x: pt.transpose(x, ax),
        (DimShuffle,),
        _first,
        rebuild_check=True,
        text=f"axes={ax!r}",
    )


def join(axis: int, *tensors: Any) -> Node:
    """Pattern of ``pt.join(axis, *tensors)`` (a ``Join`` node; ``axis`` is a Python int)."""
    ax = _check_axis(axis, allow_none=False)
    if not isinstance(ax, int):
        raise TypeError(f"axis must be an int, got {axis!r}")
    if len(tensors) < 2:
        raise TypeError("p.join takes at least two tensor patterns (pt.join of one is that tensor)")
    n = len(tensors)

    def positions(node):
        extra = len(node.inputs) - n
        return range(extra, len(node.inputs)) if extra in (0, 1) else None

    return Node(
        "join",
        tensors,
        lambda *xs: pt.join(ax, *xs),
        (pt.basic.Join,),
        positions,
        rebuild_check=True,
        text=f"axis={ax}",
    )


def alloc(value: Any, *shape: Any) -> Node:
    """Pattern of ``pt.alloc(value, *shape)``; numbers in ``shape`` are int64 when built.

    It also matches the explicit-broadcast Alloc that ``normalize`` makes of
    a stock one (:func:`graph_bridge.explicit_alloc`, same inputs).
    """
    if not shape:
        raise TypeError("p.alloc takes a value pattern and at least one length")
    return Node(
        "alloc",
        (value, *shape),
        pt.alloc,
        (pt.basic.Alloc, ExplicitAlloc),
        lambda node: range(len(node.inputs)),
        rebuild_check=True,
        kinds=("any",) + ("int",) * len(shape),
        also=explicit_alloc,
    )


def _update_builder(name: str, fn: Callable) -> Callable[..., Node]:
    def builder(indexed: Any, y: Any) -> Node:
        if not isinstance(indexed, Indexed):
            raise TypeError(
                f"p.{name} takes x[idx] (x a p.var) and a value pattern, got {type(indexed).__name__}"
            )
        idx = indexed.idx
        return Node(
            name,
            (indexed.base, y),
            lambda x, v: fn(x[idx], v),
            (pt.subtensor.IncSubtensor,),
            lambda node: (0, 1),
            rebuild_check=True,
            text=f"idx={idx!r}",
        )

    builder.__name__ = name
    builder.__doc__ = f"Pattern of ``pt.{name}(x[idx], y)``; ``idx`` holds ints and slices of ints."
    return builder


set_subtensor = _update_builder("set_subtensor", pt.set_subtensor)
inc_subtensor = _update_builder("inc_subtensor", pt.inc_subtensor)

#: Names of the scalar Elemwise builders (every Elemwise function of ``pytensor.tensor``).
ELEMWISE: tuple[str, ...] = tuple(
    sorted(n for n in dir(pt) if not n.startswith("_") and isinstance(getattr(pt, n), Elemwise))
)
for _name in ELEMWISE:
    globals()[_name] = _elemwise_builder(_name, getattr(pt, _name))


def __getattr__(name: str) -> Callable[..., Node]:
    """Called only for a name the module lacks: the scalar Elemwise builders (``p.exp``, ``p.mul``, ...,
    :data:`ELEMWISE`) are set at import from ``pytensor.tensor``, so this tells type checkers that
    ``p.<name>`` is a builder of a :class:`Node`; at run time any other name is missing."""
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
__all__ += [
    "LHS", "RHS", "Named", "named",
    "alloc_of", "combine", "elemwise", "elemwise_first", "elemwise_operands", "elemwise_or_one",
    "explicit_alloc_of", "explicit_elemwise", "inc_at", "join_of", "maybe_alloc", "maybe_dimshuffle", "reduce",
    "set_at", "stock_alloc_of",
]
__all__ += list(ELEMWISE) + [
    "sum", "prod", "max", "min", "all", "any", "careduce", "dimshuffle", "expand_dims", "transpose",
    "join", "alloc",
    "set_subtensor", "inc_subtensor",
]
del _name
