"""Walking graphs without recursion: the one bottom-up walk, node collectors, rebuilding.

:func:`bottom_up` is the iterative post-order walk every bottom-up pass uses
(``etuplize``, :func:`rebuild`, ``StructuralKeys``, the compile pass's replay);
:func:`owned_variables` and :func:`count_nodes` collect a graph's nodes;
:func:`clone_over` rebuilds one node over new inputs.  None of them touches
the graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from copy import copy
from typing import Any, TypeVar

from pytensor.graph.basic import Apply, Variable
from pytensor.graph.utils import Scratchpad
from pytensor.tensor.type import TensorType
from pytensor.tensor.variable import TensorVariable

from graph_bridge.flags import WARN_FLOAT64

__all__ = ["bottom_up", "count_nodes", "owned_variables", "clone_over", "rebuild", "tag_dict"]


def node_inputs(v: Variable) -> Sequence[Variable]:
    """The inputs of ``v``'s node (none for a root variable)."""
    node = v.owner
    return node.inputs if node is not None else ()


#: an item :func:`bottom_up` walks (a variable, or any hashable the caller's ``inputs`` reads)
T = TypeVar("T")


def bottom_up(
    roots: Iterable[T],
    done: Callable[[T], bool],
    inputs: Callable[[Any], Sequence[Any]] = node_inputs,
) -> Iterator[T]:
    """Every variable below ``roots`` that is not ``done``, each after its ``inputs``.

    Iterative post-order.  The caller records each variable it is given
    (so that ``done`` holds for it) before asking for the next one; a
    variable already ``done`` is neither yielded nor walked below.
    ``inputs`` says what lies below a variable (by default its node's
    inputs; a walk that treats some nodes as leaves returns none for them),
    and is asked of every item before it is given.  The items need not be
    variables: any hashable ``inputs`` walks (an extraction's form keys).
    """
    stack = list(roots)
    while stack:
        v = stack[-1]
        if done(v):
            stack.pop()
            continue
        missing = [i for i in inputs(v) if not done(i)]
        if missing:
            stack.extend(reversed(missing))
            continue
        stack.pop()
        yield v


def owned_variables(outputs: Sequence[Variable]) -> list[Variable]:
    """Every variable that has a node, breadth first from the outputs, each once (deterministic)."""
    seen: set[Variable] = set()
    order: list[Variable] = []
    queue = list(outputs)
    i = 0
    while i < len(queue):
        v = queue[i]
        i += 1
        if v in seen or v.owner is None:
            continue
        seen.add(v)
        order.append(v)
        queue.extend(v.owner.inputs)
    return order


def count_nodes(outputs: Sequence[Variable]) -> int:
    """How many distinct Apply nodes compute ``outputs``."""
    return len({v.owner for v in owned_variables(outputs)})


def clone_over(node: Apply, inputs: Sequence[Variable], same_values: bool = False) -> Apply | None:
    """``node`` cloned over new ``inputs`` of the same types, or ``None`` if the Op must build it.

    What ``node.clone_with_new_inputs(inputs, strict=False)`` gives when
    every input keeps its type and the Op's output types do not depend on
    input values (for Alloc and Reshape, whose output type is read off their
    shape inputs: when only the array input changed, or when the caller
    knows each new input has the value of the old one, ``same_values``, as
    a normal form has): new outputs of the same class, name and a copy of each tag
    (so the stack trace), a copy of the node's tag, and the new inputs.  It
    is done here directly, without the method's checks and ``copy.copy`` (a
    third of the cost).  ``None`` otherwise: the caller then calls PyTensor's
    method (the Op builds the node again, ``make_node``; called there, the
    stack trace the new node records is the caller's).
    """
    op = node.op
    free = None
    if op._output_type_depends_on_input_value and not same_values:
        # Alloc and Reshape read their output type off the shape inputs' graphs:
        # only when those are the same variables (or of the same values) is the
        # old type the new one
        if not _TYPE_FREE_INPUTS:
            _TYPE_FREE_INPUTS.update(_type_free_inputs())
        free = _TYPE_FREE_INPUTS.get(type(op))
        if free is None:
            return None
    olds = node.inputs
    if len(olds) != len(inputs):
        raise ValueError(f"clone_over: {len(inputs)} inputs for a node of {len(olds)}")
    for k in range(len(olds)):  # (indexing: cheaper than zip and enumerate here)
        old, new = olds[k], inputs[k]
        if old is new:
            continue
        if free is not None and k not in free:
            return None
        if old.type is not new.type and not _same_type(old.type, new.type):
            return None
    if type(node) is not Apply:
        new_node = type(node)(op, inputs, [_cloned(o) for o in node.outputs])
        new_node.tag = _copied(node.tag)
        return new_node
    # what Apply.__init__ does, without its checks (the inputs are the node's, or of their types)
    outputs = [_cloned(o) for o in node.outputs]
    new_node = _new(Apply)
    new_node.op = op
    new_node.inputs = list(inputs)
    new_node.tag = _copied(node.tag)
    new_node.outputs = outputs
    for i, o in enumerate(outputs):
        o.owner = new_node
        o.index = i
    return new_node


_TYPE_FREE_INPUTS: dict[type, tuple[int, ...]] = {}


def _same_type(a: Any, b: Any) -> bool:
    """``a == b`` for two types: ``TensorType.__eq__`` in line for plain tensor types.

    (A Type's ``!=`` is Python code over ``==``.)
    """
    if type(a) is TensorType and type(b) is TensorType:
        return a.dtype == b.dtype and a.shape == b.shape
    return a == b


def _type_free_inputs() -> dict[type, tuple[int, ...]]:
    """Op classes whose output type depends on input values, and the inputs whose value it does not read."""
    from pytensor.tensor.basic import Alloc
    from pytensor.tensor.shape import Reshape

    from graph_bridge.ops import ExplicitAlloc

    return {Alloc: (0,), ExplicitAlloc: (0,), Reshape: (0,)}


#: how ``_cloned`` copies a variable of a class: its own ``clone``, its
#: ``__init__``, or directly (``TensorVariable``'s: unless a float64 warns)
_OWN_CLONE, _INIT, _PLAIN_TENSOR, _PLAIN = 0, 1, 2, 3
_CLONE_KINDS: dict[type, int] = {}


def _clone_kind(cls: type[Variable]) -> int:
    if cls.clone is not Variable.clone:
        return _OWN_CLONE
    if cls.__init__ is Variable.__init__:
        return _PLAIN
    return _PLAIN_TENSOR if cls.__init__ is TensorVariable.__init__ else _INIT


def _cloned(v: Variable) -> Variable:
    """``v.clone()``: a new variable of ``v``'s class, type and name, with a copy of its tag.

    A plain variable (``clone`` not overridden, the ``__init__`` of
    ``Variable`` or ``TensorVariable``) is made the way ``__init__`` makes
    it, without its checks.
    """
    cls = type(v)
    kind = _CLONE_KINDS.get(cls)
    if kind is None:
        kind = _CLONE_KINDS[cls] = _clone_kind(cls)
    if kind == _OWN_CLONE:
        return v.clone()
    if kind == _INIT or (
        kind == _PLAIN_TENSOR and v.type.dtype == "float64" and WARN_FLOAT64.val != "ignore"
    ):  # TensorVariable.__init__ acts on PyTensor's warn_float64 flag
        new = cls(type=v.type, owner=None, index=None, name=v.name)
        new.tag = _copied(v.tag)
        return new
    # the attributes in the order Variable.__init__ sets them
    new = _new(cls)
    new.tag = _copied(v.tag)
    new.type = v.type
    new.owner = None
    new.index = None
    new.name = v.name
    new.auto_name = f"auto_{next(_COUNT)}"
    return new


def _copied(tag: Any) -> Any:
    """``copy.copy(tag)``, directly for PyTensor's plain scratchpad (whose own attribute access is Python code)."""
    if type(tag) is not Scratchpad:
        return copy(tag)
    new = _new(Scratchpad)
    attrs = _scratchpad_dict(tag)
    if attrs:
        _scratchpad_dict(new).update(attrs)
    return new


_new = object.__new__
_COUNT = Variable.__count__
#: ``tag.__dict__`` of a plain Scratchpad, read by the C descriptor (its ``__getattribute__`` is Python code)
_scratchpad_dict = Scratchpad.__dict__["__dict__"].__get__


def _dict_of(x: Any) -> dict:
    return object.__getattribute__(x, "__dict__")


def tag_dict(x: Apply | Variable) -> dict:
    """The attributes of ``x.tag``, read and written without PyTensor's scratchpad's Python ``__getattribute__``."""
    tag = x.tag
    return _scratchpad_dict(tag) if type(tag) is Scratchpad else _dict_of(tag)


#: ``transform(var, new_inputs)`` -> the node to use for ``var``'s node, or ``None``
Transform = Callable[[Variable, list[Variable]], Apply | None]


def rebuild(
    outputs: Sequence[Variable],
    replace: Mapping[Variable, Variable] | None = None,
    transform: Transform | None = None,
) -> list[Variable]:
    """``outputs`` with ``replace`` applied and every node above a change rebuilt.

    Walks the graph iteratively in post-order.  For each node, its inputs'
    new versions are collected; ``transform`` (if given) may return a node to
    use instead; otherwise a node whose inputs changed is rebuilt with
    ``clone_with_new_inputs(strict=False)`` and an unchanged node is kept.
    The input graph is not changed; untouched sub-graphs are the original
    objects (shared sub-graphs stay shared).
    """
    memo: dict[Variable, Variable] = dict(replace or {})  # (a Variable hashes by identity)
    for v in bottom_up(outputs, memo.__contains__):
        node = v.owner
        if node is None:
            memo[v] = v
            continue
        inputs = [memo[i] for i in node.inputs]
        new_node = transform(v, inputs) if transform is not None else None
        if new_node is None:
            if any(a is not b for a, b in zip(inputs, node.inputs)):
                new_node = clone_over(node, inputs) or node.clone_with_new_inputs(inputs, strict=False)
            else:
                new_node = node
        for o, n in zip(node.outputs, new_node.outputs):
            memo[o] = n
    return [memo[o] for o in outputs]
