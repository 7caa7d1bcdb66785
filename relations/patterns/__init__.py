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
  ``p.set_subtensor(x[idx], y)``, ``p.inc_subtensor(x[idx], y)``,
  ``p.dot(a, b)``, ``p.reshape(a, shape)``, ``p.specify_shape(a, *dims)`` match
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

This package gathers the language's names for ``p``: the terms are in
:mod:`relations.patterns.syntax`, matching and building in
:mod:`relations.patterns.matching`, the ``p.<function>`` builders in
:mod:`relations.patterns.builders`, the nodes read by goals in
:mod:`relations.patterns.nodes`.
"""

from __future__ import annotations

from collections.abc import Callable

from relations.patterns.builders import (
    ELEMWISE,
    ELEMWISE_BUILDERS,
    Reduction,
    all,
    alloc,
    any,
    careduce,
    dimshuffle,
    dot,
    expand_dims,
    inc_subtensor,
    join,
    max,
    min,
    prod,
    reshape,
    set_subtensor,
    specify_shape,
    sum,
    transpose,
)
from relations.patterns.matching import (
    build,
    match,
    pattern_nodes,
    pattern_vars,
    prop_keys,
    prop_vars,
    same_prop,
)
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
from relations.patterns.syntax import (
    DEFAULT,
    LHS,
    RHS,
    Const,
    Indexed,
    Named,
    Node,
    PatternVar,
    as_pattern,
    const,
    named,
    var,
)

# the scalar Elemwise builders, p.exp, p.add, ...: one per name of ELEMWISE (what pytensor.tensor has)
globals().update(ELEMWISE_BUILDERS)


def __getattr__(name: str) -> Callable[..., Node]:
    """Called only for a name the module lacks: the scalar Elemwise builders (``p.exp``, ``p.mul``, ...,
    :data:`ELEMWISE`) are set at import from ``pytensor.tensor``, so this tells type checkers that
    ``p.<name>`` is a builder of a :class:`Node`; at run time any other name is missing."""
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT",
    "ELEMWISE",
    "LHS",
    "RHS",
    "Const",
    "Indexed",
    "Named",
    "Node",
    "PatternVar",
    "Reduction",
    "alloc",
    "alloc_of",
    "all",
    "any",
    "as_pattern",
    "build",
    "careduce",
    "combine",
    "const",
    "dimshuffle",
    "dot",
    "elemwise",
    "elemwise_first",
    "elemwise_operands",
    "elemwise_or_one",
    "expand_dims",
    "explicit_alloc_of",
    "explicit_elemwise",
    "inc_at",
    "inc_subtensor",
    "join",
    "join_of",
    "match",
    "max",
    "maybe_alloc",
    "maybe_dimshuffle",
    "min",
    "named",
    "pattern_nodes",
    "pattern_vars",
    "prod",
    "prop_keys",
    "prop_vars",
    "reduce",
    "reshape",
    "same_prop",
    "set_at",
    "set_subtensor",
    "specify_shape",
    "stock_alloc_of",
    "sum",
    "transpose",
    "var",
    *ELEMWISE,
]
