"""PyTensor graphs as egglog-python 14 terms, and three of the project's rules written in egglog.

For ``benchmarks/saturation.py``'s comparison only (egglog is a ``bench``
extra, Python 3.12).  A graph becomes terms of one sort ``T``:
``T.leaf(name)`` for an input or constant, ``T.ds(x, order)`` for a
DimShuffle (its ``new_order`` as a Python object), ``T.red(op, axes, x)``
for a CAReduce (``axes`` is ``"full"`` when every axis is reduced),
``T.unary(op, x)`` for a one-input Elemwise, ``T.setsub(kind, base, value,
indices)`` for a set_subtensor, and ``T.op(name, args)`` for any other node.
Every node is bound once (``EGraph.let``), so a shared sub-graph is one term.

The rules, as ``relations`` states them (their guards on types are not
needed on these sorts; their sharing guards are off in ``saturate`` too):

- ``careduce_dimshuffle_fullo``: ``red(op, "full", ds(x, o)) -> red(op, "full", x)``;
- ``dimshuffle_composeo``: ``ds(ds(x, o1), o2) -> ds(x, o1 . o2)`` (the order composed by a
  Python function, as the relation's mode computes it);
- ``elemwise_set_subtensoro`` (its unary case): ``unary(f, setsub(k, b, v, i)) ->
  setsub(k, unary(f, b), unary(f, v), i)``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytensor.tensor.subtensor as pts
from egglog import EGraph, Expr, PyObject, String, StringLike, Vec, rewrite, ruleset, var, vars_
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import toposort
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

__all__ = ["RULES", "T", "egglog_run", "terms"]


class T(Expr):
    """A tensor term."""

    @classmethod
    def leaf(cls, name: StringLike) -> T: ...

    @classmethod
    def ds(cls, x: T, order: PyObject) -> T: ...

    @classmethod
    def red(cls, op: StringLike, axes: StringLike, x: T) -> T: ...

    @classmethod
    def unary(cls, op: StringLike, x: T) -> T: ...

    @classmethod
    def setsub(cls, kind: StringLike, base: T, value: T, idx: Vec[T]) -> T: ...

    @classmethod
    def op(cls, name: StringLike, args: Vec[T]) -> T: ...


def _compose(inner: tuple, outer: tuple) -> tuple:
    """The order of ``DimShuffle(outer)(DimShuffle(inner)(x))`` as one DimShuffle of ``x``."""
    return tuple("x" if i == "x" else inner[i] for i in outer)


_x, _b, _v = vars_("x b v", T)
_o1, _o2 = vars_("o1 o2", PyObject)
_op, _k = vars_("op k", String)
_idx = var("idx", Vec[T])

#: the three rules, in egglog
RULES = ruleset(
    rewrite(T.red(_op, "full", T.ds(_x, _o1))).to(T.red(_op, "full", _x)),
    rewrite(T.ds(T.ds(_x, _o1), _o2)).to(T.ds(_x, PyObject(_compose)(_o1, _o2))),
    rewrite(T.unary(_op, T.setsub(_k, _b, _v, _idx))).to(
        T.setsub(_k, T.unary(_op, _b), T.unary(_op, _v), _idx)
    ),
)

#: egglog's extractor: its tree extraction (its "greedy-dag" one asked for 4.8 GB, and
#: failed, on the 10^3-node generated graph)
EXTRACTOR = "tree"

_SETS = tuple(
    c for c in (pts.IncSubtensor, pts.AdvancedIncSubtensor, getattr(pts, "AdvancedIncSubtensor1", None)) if c is not None
)


def _vec(items: list) -> Any:
    return Vec[T](*items) if items else Vec[T].empty()


def _term(v: Variable, ins: list) -> Any:
    node = v.owner
    op = node.op
    if isinstance(op, DimShuffle):
        return T.ds(ins[0], PyObject(tuple(op.new_order)))
    if isinstance(op, CAReduce):
        ndim = node.inputs[0].type.ndim
        full = op.axis is None or set(op.axis) == set(range(ndim))
        return T.red(type(op.scalar_op).__name__, "full" if full else str(op.axis), ins[0])
    if isinstance(op, Elemwise) and len(ins) == 1:
        return T.unary(str(op.scalar_op), ins[0])
    if isinstance(op, _SETS) and getattr(op, "set_instead_of_inc", False):
        return T.setsub(str(op), ins[0], ins[1], _vec(ins[2:]))
    return T.op(f"{op}#{node.outputs.index(v)}", _vec(ins))


def terms(outputs: list[Variable], eg: EGraph) -> list:
    """The egglog terms of ``outputs``, each node bound once in ``eg`` (``let``: a DAG, not a tree)."""
    memo: dict[Variable, Any] = {}
    for node in toposort(outputs):
        for i in node.inputs:
            if i not in memo and i.owner is None:
                if isinstance(i, Constant):
                    data = np.asarray(i.data)
                    memo[i] = T.leaf(f"const {i.type} {data.tobytes().hex()}")
                else:
                    memo[i] = T.leaf(f"{i.name}#{id(i)}")
        ins = [memo[i] for i in node.inputs]
        for o in node.outputs:
            memo[o] = eg.let(f"n{len(memo)}", _term(o, ins))
    return [memo[o] for o in outputs]


def egglog_run(outputs: list[Variable], found: dict | None = None) -> dict:
    """Translate, register, saturate with :data:`RULES` and extract (:data:`EXTRACTOR`) ``outputs``.

    Returns ``{"run": seconds of saturation + extraction, "nodes": e-nodes of the sort T}``.
    """
    eg = EGraph()
    roots = terms(outputs, eg)
    root = eg.let("outputs", T.op("outputs", _vec(roots)))
    t0 = time.perf_counter()
    eg.run(RULES.saturate())
    eg.extract(root, extractor=EXTRACTOR)
    seconds = time.perf_counter() - t0
    sizes = dict(eg.all_function_sizes())
    nodes = sum(n for f, n in sizes.items() if str(f).startswith("T."))
    return {"run": seconds, "nodes": nodes}
