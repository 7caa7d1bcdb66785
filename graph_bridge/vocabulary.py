"""The Op vocabulary: which Ops terms look inside, and how to rebuild them.

An etuple is evaluated by calling its head with its arguments.  For a term
whose head describes an Op, the head is an :class:`OpBuilder` and the
arguments are the Op's ``__props__`` in order, so ``etuple(builder, *props)``
evaluates to the Op.  Calling the Op class itself does not work in general:
``Sum(add, None, "float64", ...)`` raises "too many positional arguments"
because ``Sum.__init__`` takes ``(axis, dtype, acc_dtype)`` while its props
are ``(scalar_op, axis, dtype, acc_dtype, upcast_discrete_output)``.

Ops whose exact class is not in the vocabulary are opaque: their outputs are
atoms that terms match whole.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from pytensor.graph.op import Op
from pytensor.tensor import basic as ptb
from pytensor.tensor import subtensor as pts
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.math import Dot

__all__ = [
    "OpBuilder",
    "builder_for",
    "builder_of",
    "careduce_builders",
    "in_vocabulary",
    "on_register",
    "register_op_class",
    "register_op_family",
    "register_whole_node_class",
    "rewrites_whole_node",
    "register_stock_classes",
    "vocabulary",
]


class OpBuilder:
    """Build an instance of ``op_class`` from its props, in ``__props__`` order.

    ``OpBuilder(Sum)(add, None, "float64", "float64", True)`` returns
    ``Sum(axis=None, dtype="float64", acc_dtype="float64")``.  Props that the
    class's constructor does not take (``Sum`` fixes ``scalar_op``) must equal
    what the constructor derives, else :class:`ValueError` says which differs.
    Builders compare equal when they build the same class, so they unify.
    """

    __slots__ = ("op_class", "prop_names", "_init_names", "_accepts_kwargs", "_interned")

    def __init__(self, op_class: type[Op]) -> None:
        if not (isinstance(op_class, type) and issubclass(op_class, Op)):
            raise TypeError(f"op_class must be an Op subclass, got {op_class!r}")
        self.op_class = op_class
        self._interned: dict[Any, Op] = {}  # props -> the one Op built with them
        self.prop_names: tuple[str, ...] = tuple(getattr(op_class, "__props__", ()))
        params = inspect.signature(op_class.__init__).parameters
        self._accepts_kwargs = any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()
        )
        self._init_names = frozenset(
            name
            for name, p in params.items()
            if name != "self"
            and p.kind
            in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        )

    def __call__(self, *props: Any) -> Op:
        cls = self.op_class
        if len(props) != len(self.prop_names):
            raise TypeError(
                f"{cls.__name__} takes {len(self.prop_names)} props "
                f"{self.prop_names}, got {len(props)}: {props!r}"
            )
        kwargs = {
            name: value
            for name, value in zip(self.prop_names, props)
            if name in self._init_names
        }
        try:
            key = (props, tuple(type(p) for p in props))
            found = self._interned.get(key)
        except TypeError:  # an unhashable prop: build it every time
            key, found = None, None
        if found is not None:
            return found
        op = cls(**kwargs)
        # _props is made by PyTensor's MetaType for each Op class with __props__ (not in Op's own stub)
        built = op._props() if self.prop_names else ()  # type: ignore[attr-defined]
        for name, want, got in zip(self.prop_names, props, built):
            if not _same_prop(want, got):
                raise ValueError(
                    f"cannot build {cls.__name__} with {name}={want!r}: "
                    f"the class sets {name}={got!r}"
                )
        if key is not None:
            # one instance per distinct Op: searches build many equal Ops, and
            # each Elemwise instance holds its C code (a few KB)
            self._interned[key] = op
        return op

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpBuilder) and other.op_class is self.op_class

    def __hash__(self) -> int:
        return hash((OpBuilder, self.op_class))

    def __repr__(self) -> str:
        return self.op_class.__name__

    def __reduce__(self):
        return (builder_for, (self.op_class,))


def _same_prop(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # numpy arrays and other odd props
        return a is b


_BUILDERS: dict[type[Op], OpBuilder] = {}
_LISTENERS: list[Callable[[type[Op]], None]] = []


def on_register(listener: Callable[[type[Op]], None]) -> None:
    """Call ``listener(op_class)`` for every class in the vocabulary, now and when one is added.

    ``graph_bridge.dispatch`` uses it to register car/cdr for each class, so
    this module imports nothing of the bridge.
    """
    _LISTENERS.append(listener)
    for op_class in _BUILDERS:
        listener(op_class)


def register_op_class(op_class: type[Op]) -> OpBuilder:
    """Add ``op_class`` to the vocabulary (exact class, not its subclasses)."""
    builder = _BUILDERS.get(op_class)
    if builder is None:
        builder = _BUILDERS[op_class] = OpBuilder(op_class)
        for listener in _LISTENERS:
            listener(op_class)
    return builder


#: base classes whose every subclass joins the vocabulary when first asked about
_FAMILIES: list[type[Op]] = []
#: classes asked about that are in no family (so a miss costs one lookup)
_NOT_IN_FAMILY: set[type] = set()


def register_op_family(base: type[Op]) -> None:
    """Add ``base`` and each of its subclasses, including ones defined later (PyMC's RVs), to the vocabulary.

    A subclass is registered when :func:`in_vocabulary` or :func:`builder_of`
    first meets one of its Ops.
    """
    if base not in _FAMILIES:
        _FAMILIES.append(base)
        _NOT_IN_FAMILY.clear()
    register_op_class(base)


def _family_builder(cls: type) -> OpBuilder | None:
    """The builder of ``cls`` if it belongs to a registered family (registering it), else ``None``."""
    if cls in _NOT_IN_FAMILY or not _FAMILIES:
        return None
    if any(issubclass(cls, base) for base in _FAMILIES):
        return register_op_class(cls)
    _NOT_IN_FAMILY.add(cls)
    return None


#: Op classes (with subclasses) whose multi-output nodes rules may rewrite, all outputs at once
_WHOLE_NODE: list[type[Op]] = []


def register_whole_node_class(op_class: type[Op]) -> None:
    """Let rules rewrite multi-output nodes of ``op_class`` (and subclasses): the engine maps every output.

    A rule then sees one output (the one the engine visits) and answers the
    same output of a new node with as many outputs, each of the same type.
    """
    if op_class not in _WHOLE_NODE:
        _WHOLE_NODE.append(op_class)


def rewrites_whole_node(op: Op) -> bool:
    """Whether rules may rewrite a multi-output node of ``op`` (see :func:`register_whole_node_class`)."""
    return bool(_WHOLE_NODE) and isinstance(op, tuple(_WHOLE_NODE))


def builder_for(op_class: type[Op]) -> OpBuilder:
    """The builder of a vocabulary class; ``KeyError`` names an unknown one."""
    try:
        return _BUILDERS[op_class]
    except KeyError:
        raise KeyError(
            f"{getattr(op_class, '__name__', op_class)} is not in the vocabulary"
        ) from None


def builder_of(op: Op) -> OpBuilder | None:
    """The builder of ``op``'s exact class, or ``None`` when terms do not look inside it."""
    found = _BUILDERS.get(type(op))
    return found if found is not None else _family_builder(type(op))


def in_vocabulary(op: Op) -> bool:
    """Whether terms look inside nodes of ``op`` (exact class match, or a registered family's member)."""
    return type(op) in _BUILDERS or _family_builder(type(op)) is not None


def vocabulary() -> tuple[type[Op], ...]:
    """The vocabulary's Op classes, in registration order."""
    return tuple(_BUILDERS)


def _subclasses(cls: type[Any]) -> Iterator[type[Any]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


_CAREDUCE_BUILDERS: list = [-1, ()]  # the number of builders it was read at, and the builders


def careduce_builders() -> tuple[OpBuilder, ...]:
    """Builders of every CAReduce class in the vocabulary (Sum, Max, ...); read again when one is added."""
    if _CAREDUCE_BUILDERS[0] != len(_BUILDERS):
        _CAREDUCE_BUILDERS[:] = [len(_BUILDERS), tuple(b for c, b in _BUILDERS.items() if issubclass(c, CAReduce))]
    return _CAREDUCE_BUILDERS[1]


def _stock_classes() -> list[type[Op]]:
    classes: list[type[Op]] = [Elemwise, DimShuffle, CAReduce]
    classes += sorted(
        (c for c in _subclasses(CAReduce) if c.__module__.startswith("pytensor.")),
        key=lambda c: (c.__module__, c.__name__),
    )
    classes += [ptb.Join, ptb.Alloc, Dot]
    for name in (
        "Subtensor",
        "AdvancedSubtensor",
        "AdvancedSubtensor1",  # pytensor < 3.3
        "IncSubtensor",
        "AdvancedIncSubtensor",
        "AdvancedIncSubtensor1",  # pytensor < 3.3
    ):
        cls = getattr(pts, name, None)
        if cls is not None:
            classes.append(cls)
    return classes


def register_stock_classes() -> None:
    """Add PyTensor's Elemwise, DimShuffle, CAReduce family, Join, Alloc, Dot and (Inc)Subtensor classes."""
    for cls in _stock_classes():
        register_op_class(cls)
