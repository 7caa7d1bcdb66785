"""Pattern nodes that exist only compiled: a node read into its parts by a goal (``p.elemwise(f, inputs=xs)``).

:mod:`relations.patterns` builds patterns that match and build PyTensor
graphs by themselves; the nodes here stand for a node kind whose parts are
tuples or Op props (all the inputs of an Elemwise, an Alloc's shape, a
set's indices and Op), so they have no PyTensor function to build with.
:func:`relations.rewrite_rule` compiles each to the moded goal that reads
or builds that node (:mod:`graph_bridge.node_relations`), so a rule written
with them runs forward, backward and as a check, and the forward planner
compiles it like a hand-written relation.  They are exported as ``p.*``.

- ``elemwise(f, inputs=xs)``: a stock, not-inplace Elemwise of scalar op
  ``f`` on the tuple ``xs`` (``broadcasting=True``: only nodes of ndim >= 1
  with two or more inputs); ``elemwise(f, hole, before=b, after=a)``: the
  same with ``hole`` one of its inputs, ``b`` and ``a`` the others (one
  answer per position);
- ``explicit_elemwise(f, pattern, inputs=xs)``: an ``ExplicitElemwise``;
- ``alloc_of(v, shape)``, ``stock_alloc_of(v, shape)``,
  ``explicit_alloc_of(v, entry, shape)``: an Alloc (stock or explicit; stock;
  explicit with broadcast ``entry``) of ``v`` to the tuple ``shape``;
- ``set_at(x, idx, v, op=h)``, ``inc_at(x, idx, v, op=h)``: ``x[idx].set(v)``
  / ``.inc(v)`` with index terms ``idx`` and the Op's term ``h``;
- ``join_of(axis, pieces)``: ``Join(axis, *pieces)``; ``combine(f, parts)``:
  ``parts`` combined elementwise by ``f`` (one node, or a left fold);
- ``reduce(h, x)``: any CAReduce, ``h`` its whole head (axes included);
- ``maybe_dimshuffle(x, order)``: ``DimShuffle{order}(x)``, or ``x`` itself
  when ``order`` is the identity;
- ``elemwise_operands(f, inputs, entries)``: an Elemwise, stock or
  explicit, read as its operands placed by their broadcast entries (a
  stock input's expanding DimShuffle read through);
  ``elemwise_first(f, first, rest)``: ``f(first, *rest)``, stock or explicit;
- ``maybe_alloc(v, shape)``: ``Alloc(v, *shape)``, or ``v`` itself for
  ``shape == ()``; ``elemwise_or_one(f, parts)``: ``f(*parts)``, or the one
  part itself (``f`` is ``None`` then).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytensor.tensor.basic import Alloc, Join
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

from graph_bridge.node_relations import (
    SET_CLASSES,
    alloco,
    combineo,
    elemwise_firsto,
    elemwise_holeo,
    elemwise_operandso,
    elemwise_or_oneo,
    explicit_alloco,
    explicit_elemwiseo,
    joino,
    maybe_alloco,
    maybe_dimshuffleo,
    stock_alloco,
    stock_elemwiseo,
    subtensor_updateo,
)
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise
from graph_bridge.terms import term
from graph_bridge.type_facts import ndimo

__all__ = [
    "CompiledNode",
    "alloc_of",
    "combine",
    "elemwise",
    "elemwise_first",
    "elemwise_operands",
    "elemwise_or_one",
    "explicit_alloc_of",
    "explicit_elemwise",
    "inc_at",
    "join_of",
    "maybe_alloc",
    "maybe_dimshuffle",
    "reduce",
    "set_at",
    "stock_alloc_of",
]


class CompiledNode:
    """A pattern node compiled to a term template (``term_of``) or to a goal (``goal_of``).

    ``args`` are the child patterns (sub-graphs); ``op_classes`` the Op
    classes its node can have (the rule index reads them).
    ``term_of(compiler, child_terms)`` gives the node's term;
    ``goal_of(compiler, out, child_terms)`` adds the goal that ``out`` is the node.
    """

    is_pattern_node = True
    __slots__ = ("name", "args", "op_classes", "term_of", "goal_of", "text", "shown", "extra")

    def __init__(
        self,
        name: str,
        args: Sequence[Any],
        op_classes: tuple[type, ...],
        text: str,
        term_of: Callable[[Any, list], Any] | None = None,
        goal_of: Callable[[Any, Any, list], None] | None = None,
        shown: Sequence[int | str] | None = None,
    ) -> None:
        self.name, self.args, self.op_classes, self.text = name, tuple(args), op_classes, text
        self.term_of, self.goal_of = term_of, goal_of
        #: the repr's arguments in the order the ``p.*`` call takes them: an int is ``args[i]``, a str is shown as it is
        self.shown = tuple(shown) if shown is not None else None
        #: the other pattern arguments its goal takes (index terms, input tuples, props): the
        #: variables it binds at its own level, besides ``args``
        self.extra: tuple = ()

    def __repr__(self) -> str:
        if self.shown is not None:
            parts = [repr(self.args[s]) if isinstance(s, int) else s for s in self.shown]
        else:
            parts = [repr(a) for a in self.args] + [self.text]
        return f"{self.name}({', '.join(parts)})"


def _goal(name: str, args: Sequence[Any], op_classes: tuple, text: str, make: Callable, *extra: Any,
          shown: Sequence[int | str] | None = None) -> CompiledNode:
    """A node whose goal is ``make(out, *child_terms, *extra)``."""

    def goal_of(c, out, kids):
        c.goal(make, (out, *kids, *extra))

    node = CompiledNode(name, args, op_classes, text, goal_of=goal_of, shown=shown)
    node.extra = extra
    return node


def _stock_elemwise(out, f, xs, broadcasting):
    return stock_elemwiseo(out, f, xs, broadcasting=broadcasting)


def _elemwise_hole(out, hole, f, before, after):
    return elemwise_holeo(out, f, before, hole, after)


def elemwise(f: Any, hole: Any = None, *, inputs: Any = None, before: Any = None, after: Any = None,
             broadcasting: bool = False) -> CompiledNode:
    """A stock Elemwise of scalar op ``f``: on the tuple ``inputs``, or on ``(*before, hole, *after)``."""
    if (inputs is None) == (hole is None):
        raise TypeError("p.elemwise takes inputs= (all inputs) or a hole pattern with before= and after=")
    if hole is not None and (before is None or after is None):
        missing = " and ".join(n for n, v in (("before=", before), ("after=", after)) if v is None)
        raise TypeError(
            f"p.elemwise(f, hole) needs {missing}: the inputs on each side of the hole (a tuple of patterns, "
            f"() for none, or a pattern variable for any); without them it would match no node. For a "
            f"node of one known Op, write it by name (p.exp(x), p.add(a, b), ...)"
        )
    if inputs is not None:
        return _goal("elemwise", (), (Elemwise,), f"{f}, inputs={inputs}", _stock_elemwise, f, inputs, broadcasting)
    return _goal("elemwise", (hole,), (Elemwise,), f"{f}, before={before}, after={after}", _elemwise_hole,
                 f, before, after, shown=(str(f), 0, f"before={before}", f"after={after}"))


def _explicit_elemwise(out, f, pattern, xs):
    return explicit_elemwiseo(out, f, pattern, xs)


def explicit_elemwise(f: Any, pattern: Any, *, inputs: Any) -> CompiledNode:
    """An ``ExplicitElemwise(f, pattern)`` on the tuple ``inputs``."""
    return _goal("explicit_elemwise", (), (ExplicitElemwise,), f"{f}, {pattern}, inputs={inputs}",
                 _explicit_elemwise, f, pattern, inputs)


def alloc_of(value: Any, shape: Any) -> CompiledNode:
    """An Alloc (stock or explicit) of ``value`` to the tuple of lengths ``shape``."""
    return _goal("alloc_of", (value,), (Alloc, ExplicitAlloc), f"shape={shape}", alloco, shape)


def stock_alloc_of(value: Any, shape: Any) -> CompiledNode:
    """A stock ``Alloc`` of ``value`` to the tuple of lengths ``shape``."""
    return _goal("stock_alloc_of", (value,), (Alloc,), f"shape={shape}", stock_alloco, shape)


def _explicit_alloc(out, value, entry, shape):
    return explicit_alloco(out, entry, value, shape)


def explicit_alloc_of(value: Any, entry: Any, shape: Any) -> CompiledNode:
    """An ``ExplicitAlloc(entry)`` of ``value`` to the tuple of lengths ``shape``."""
    return _goal("explicit_alloc_of", (value,), (ExplicitAlloc,), f"{entry}, shape={shape}", _explicit_alloc,
                 entry, shape)


def _update(set_mode: bool) -> Callable:
    def make(out, x, v, idx, head):
        return subtensor_updateo(out, x, v, idx, head, set_mode)

    return make


_SET, _INC = _update(True), _update(False)


def set_at(x: Any, idx: Any, value: Any, *, op: Any) -> CompiledNode:
    """``x[idx].set(value)`` (every set Op class, not inplace); ``idx`` the index terms, ``op`` the Op's term."""
    return _goal("set_at", (x, value), SET_CLASSES, f"idx={idx}, op={op}", _SET, idx, op,
                 shown=(0, str(idx), 1, f"op={op}"))


def inc_at(x: Any, idx: Any, value: Any, *, op: Any) -> CompiledNode:
    """``x[idx].inc(value)`` (every inc Op class, not inplace)."""
    return _goal("inc_at", (x, value), SET_CLASSES, f"idx={idx}, op={op}", _INC, idx, op,
                 shown=(0, str(idx), 1, f"op={op}"))


def _join(out, axis, pieces):
    return joino(out, axis, pieces)


def join_of(axis: Any, pieces: Any) -> CompiledNode:
    """``Join(axis, *pieces)`` (``pieces`` a tuple; built only when statically joinable)."""
    return _goal("join_of", (), (Join,), f"{axis}, pieces={pieces}", _join, axis, pieces)


def _combine(out, f, parts):
    return combineo(f, parts, out)


def combine(f: Any, parts: Any) -> CompiledNode:
    """The tuple ``parts`` (two or more) combined elementwise by scalar op ``f``."""
    return _goal("combine", (), (Elemwise,), f"{f}, parts={parts}", _combine, f, parts)


def reduce(head: Any, x: Any, of: Sequence[type] = (CAReduce,)) -> CompiledNode:  # noqa: A001 - the reduction of ``x``
    """A CAReduce of ``x`` (of the classes ``of``: ``of=(Sum, Max, Min)``; any by default); ``head`` is its
    whole Op term (axes, dtypes), for ``where=`` goals.  ``of`` is where the rule is indexed."""
    classes = tuple(of)
    if not classes or not all(isinstance(c, type) and issubclass(c, CAReduce) for c in classes):
        raise TypeError(f"of must be CAReduce classes (Sum, Max, ...), got {of!r}")
    text = f"head={head}" if classes == (CAReduce,) else f"head={head}, of={'|'.join(c.__name__ for c in classes)}"
    return CompiledNode("reduce", (x,), classes, text, term_of=lambda c, kids: term(head, kids[0]),
                        shown=(str(head), 0))


def maybe_dimshuffle(x: Any, order: Any, ndim: Any = None) -> CompiledNode:
    """``DimShuffle{order}(x)``, or ``x`` itself when ``order`` is the identity (``ndim``: ``x``'s ndim)."""

    def goal_of(c, out, kids):
        m = c.hidden("m") if ndim is None else ndim
        c.goal(maybe_dimshuffleo, (out, m, order, kids[0]))
        if ndim is None:
            c.goal(ndimo, (kids[0], m))

    inner = getattr(x, "op_classes", ())
    return CompiledNode("maybe_dimshuffle", (x,), (*inner, DimShuffle), f"order={order}", goal_of=goal_of)


def elemwise_operands(f: Any, inputs: Any, entries: Any) -> CompiledNode:
    """An Elemwise of ``f``, stock or explicit, on ``inputs`` placed by the broadcast ``entries`` (tuples)."""
    return _goal("elemwise_operands", (), (Elemwise, ExplicitElemwise), f"{f}, inputs={inputs}, entries={entries}",
                 elemwise_operandso, f, inputs, entries)


def _elemwise_first(out, first, f, rest):
    return elemwise_firsto(out, f, first, rest)


def elemwise_first(f: Any, first: Any, rest: Any) -> CompiledNode:
    """``f(first, *rest)``: an Elemwise, stock or explicit, with ``first`` a pattern and ``rest`` a tuple."""
    return _goal("elemwise_first", (first,), (Elemwise, ExplicitElemwise), f"{f}, rest={rest}", _elemwise_first,
                 f, rest, shown=(str(f), 0, str(rest)))


def maybe_alloc(value: Any, shape: Any) -> CompiledNode:
    """``Alloc(value, *shape)`` (stock), or ``value`` itself when ``shape`` is ``()``."""
    return _goal("maybe_alloc", (value,), (Alloc,), f"shape={shape}", maybe_alloco, shape)


def elemwise_or_one(f: Any, parts: Any) -> CompiledNode:
    """``f(*parts)`` (a stock Elemwise), or the one part itself (``f`` is ``None`` then)."""
    return _goal("elemwise_or_one", (), (Elemwise,), f"{f}, parts={parts}", elemwise_or_oneo, f, parts)
