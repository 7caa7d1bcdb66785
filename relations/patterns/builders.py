"""The ``p.<function>`` calls: node patterns named after the PyTensor function that builds the node.

One builder per scalar ``Elemwise`` function of ``pytensor.tensor``
(:data:`ELEMWISE_BUILDERS`, ``p.exp``, ``p.add``, ...), the reductions
(``p.sum``, ..., ``p.careduce`` over a :class:`Reduction`), ``p.dimshuffle``,
``p.expand_dims``, ``p.transpose``, ``p.join``, ``p.alloc``,
``p.set_subtensor`` and ``p.inc_subtensor``, ``p.dot``, ``p.reshape`` and
``p.specify_shape``.
"""

from __future__ import annotations

import builtins as _b
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Variable
from pytensor.graph.op import Op
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import Dot
from pytensor.tensor.shape import Reshape, SpecifyShape
from unification.variable import Var

from graph_bridge import ExplicitAlloc, ExplicitElemwise, builder_for, explicit_alloc
from graph_bridge.building import single_output
from graph_bridge.ops import derive_entry
from relations.patterns.syntax import DEFAULT, Indexed, Node

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


def dot(a: Any, b: Any) -> Node:
    """Pattern of ``pt.dot(a, b)`` for matrices (a ``Dot`` node: ``pt.dot`` of a vector expands it first)."""
    return Node(
        "dot",
        (a, b),
        pt.dot,
        (Dot,),
        lambda node: (0, 1),
        rebuild_check=True,
        kinds=("any", "any"),
    )


def reshape(a: Any, shape: Any) -> Node:
    """Pattern of ``pt.reshape(a, shape)`` (a ``Reshape`` node; ``shape`` matches its shape input, a
    vector: ``a.flatten()`` is ``reshape(a, [-1])``)."""
    return Node(
        "reshape",
        (a, shape),
        pt.reshape,
        (Reshape,),
        lambda node: (0, 1),
        rebuild_check=True,
        kinds=("any", "int"),
    )


def specify_shape(a: Any, *shape: Any) -> Node:
    """Pattern of ``pt.specify_shape(a, shape)`` with one pattern per dim of ``a`` (a ``SpecifyShape``
    node; a dim it leaves unknown is ``NoneConst``, matched by a variable)."""
    if not shape:
        raise TypeError("p.specify_shape takes a tensor pattern and one pattern per dim")
    n = len(shape)
    return Node(
        "specify_shape",
        (a, *shape),
        lambda x, *s: pt.specify_shape(x, s),
        (SpecifyShape,),
        lambda node: range(n + 1) if len(node.inputs) == n + 1 else None,
        rebuild_check=True,
        kinds=("any",) * (n + 1),
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
#: The builder of each name of :data:`ELEMWISE` (``relations.patterns`` gives them as ``p.exp``, ``p.add``, ...).
ELEMWISE_BUILDERS: dict[str, Callable[..., Node]] = {
    name: _elemwise_builder(name, getattr(pt, name)) for name in ELEMWISE
}
