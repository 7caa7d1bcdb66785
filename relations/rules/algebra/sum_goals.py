"""The goals, guards and measures of the algebra's sums in disguise (``relations/rules/algebra/__init__.py``).

- :func:`ones_columno` and :func:`ones_rowo`: a ``Dot`` operand of ones that sums the other;
- guards: :func:`same_ndim`, :func:`unshifted`: (an exponential's argument not yet shifted by a max);
- :func:`max_shifto`: the max a weighted sum of exponentials is shifted by, as PyTensor's
  ``logsumexp`` shifts (``switch(isinf(m), 0, m)``);
- the measures the rules decrease.
"""

from __future__ import annotations

from typing import Any

import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.graph.basic import Variable, equal_computations
from pytensor.tensor.basic import get_underlying_scalar_constant_value
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.exceptions import NotScalarConstantError
from pytensor.tensor.shape import Reshape, SpecifyShape

from graph_bridge import etuplize
from graph_bridge.measures import Measure, graph_nodes
from graph_bridge.nodes import max_shifted, scalar_op_of, summed
from graph_bridge.terms import term_variable
from logic_core.moded import Mode, ModedGoal, moded
from relations.patterns.guards import guard
from relations.rules.algebra.algebra_goals import float_bits

__all__ = [
    "all_ones",
    "DOWNCASTS_READ",
    "LOGS_OF_RESHAPES",
    "LOGS_OF_SUMS",
    "LOGS_OF_UNSHIFTED",
    "max_shifto",
    "one_column",
    "ones_columno",
    "ones_rowo",
    "same_ndim",
    "unshifted",
]


def all_ones(v: Variable) -> bool:
    """``v`` is a constant, or a broadcast of one (``Alloc``, ``ExpandDims``), whose every element is 1."""
    try:
        return float(get_underlying_scalar_constant_value(v)) == 1.0
    except (NotScalarConstantError, TypeError, ValueError):
        return False


def _ones_of(a: Variable, c: Variable, column: bool) -> bool:
    """``c`` is a matrix of ones that ``dot`` contracts with ``a``'s last (``column``) or first axis, with one
    column (``ones((n, 1))``, ``ones(n)[:, None]``) or one row."""
    keep = 1 if column else 0
    return (
        c.type.ndim == 2 and a.type.ndim == 2 and c.type.shape[keep] == 1 and c.type.dtype == a.type.dtype
        and all_ones(c)
    )


def _ones_goal(name: str, column: bool) -> Any:
    def goal(a: Any, c: Any) -> ModedGoal:
        def check(at: Any, ct: Any) -> Any:
            av, cv = term_variable(at), term_variable(ct)
            return () if av is not None and cv is not None and _ones_of(av, cv, column) else None

        def build(at: Any) -> Any:
            av = term_variable(at)
            if av is None or av.type.ndim != 2:
                return None
            tv = pt.as_tensor_variable(av)
            shape = (tv.shape[1], 1) if column else (1, tv.shape[0])
            return (etuplize(pt.ones(shape, dtype=av.type.dtype)),)

        return moded(
            name,
            {"a": a, "c": c},
            Mode(needs=("a", "c"), gives=(), one=check),
            Mode(needs=("a",), gives=("c",), one=build),
            waiting=f"{name} needs the summed matrix",
        )

    goal.__name__ = name
    goal.__doc__ = (
        f"``c`` is a matrix of ones with one {'column' if column else 'row'} that ``dot`` contracts with ``a`` "
        f"(``dot(a, c)`` sums ``a``'s {'rows' if column else 'columns'}); backward, ``c`` is built from "
        f"``a``'s shape."
    )
    return goal


ones_columno = _ones_goal("ones_columno", column=True)
ones_rowo = _ones_goal("ones_rowo", column=False)


@guard
def one_column(a: Variable, c: Variable) -> bool:
    """``c`` is a matrix with one column (static), not of ones (:func:`ones_columno`'s): ``dot(a, c)`` is a
    weighted sum of ``a``'s rows, ``sum(a * c.T, axis=1)``; and the product broadcasts no length the Dot
    checks: ``a``'s columns are statically 1 exactly where ``c``'s rows are."""
    return (
        a.type.ndim == 2 and c.type.ndim == 2 and c.type.shape[1] == 1
        and (a.type.shape[1] == 1) == (c.type.shape[0] == 1) and not all_ones(c)
    )


@guard(reads="class")
def same_ndim(a: Variable, b: Variable) -> bool:
    """``a`` and ``b`` have one ndim (an exponential read through an ``ExpandDims`` does not: its max would be
    taken along other axes)."""
    return bool(a.type.ndim == b.type.ndim)


@guard
def unshifted(a: Variable) -> bool:
    """``a`` is not ``x - m`` for ``m`` a max: an exponential's argument the max shift has not taken yet."""
    return not max_shifted(a)


def _shift(a: Variable, axis: Any) -> tuple[Variable, Variable]:
    """``(m, mk)``: the max of ``a`` along ``axis`` with an infinite max read as 0, and ``m`` with the reduced
    axes kept (PyTensor's ``logsumexp`` shifts by it so: an all ``-inf`` row gives ``-inf``, not ``nan``)."""
    top = pt.max(a, axis=axis)
    m = pt.switch(pt.isinf(top), 0, top)
    axes = tuple(range(a.type.ndim)) if axis is None else tuple(axis)
    mk = pt.expand_dims(m, axes) if axes else m
    return m, mk


def max_shifto(a: Any, axis: Any, m: Any, mk: Any) -> ModedGoal:
    """``m`` and ``mk`` are the max of ``a`` along ``axis`` (:func:`_shift`); both known: a check."""

    def build(at: Any, ax: Any) -> Any:
        av = term_variable(at)
        if av is None or not av.type.dtype.startswith("float"):
            return None
        m_, mk_ = _shift(av, ax)
        return etuplize(m_), etuplize(mk_)

    def check(at: Any, ax: Any, mt: Any, mkt: Any) -> Any:
        built, mv, mkv = build(at, ax), term_variable(mt), term_variable(mkt)
        if built is None or mv is None or mkv is None:
            return None
        want = [term_variable(t) for t in built]
        if any(u is None for u in want):
            return None
        return () if equal_computations([mv, mkv], want) else None  # type: ignore[arg-type]

    return moded(
        "max_shifto",
        {"a": a, "axis": axis, "m": m, "mk": mk},
        Mode(needs=("a", "axis", "m", "mk"), gives=(), one=check),
        Mode(needs=("a", "axis"), gives=("m", "mk"), one=build),
        waiting="max_shifto needs the exponential's argument and the axes",
    )


def _log_reads(node: Any, test: Any) -> bool:
    return isinstance(scalar_op_of(node), ps.Log) and node.inputs[0].owner is not None and test(node.inputs[0].owner)


def _is_downcast(node: Any) -> bool:
    op = scalar_op_of(node)
    if not isinstance(op, ps.Cast):
        return False
    src, dst = float_bits(node.inputs[0].type.dtype), float_bits(op.o_type.dtype)
    return src is not None and dst is not None and dst < src


def _sum_of_exp(v: Variable) -> bool:
    terms = summed(v)
    return terms is not None and isinstance(scalar_op_of(terms.owner), ps.Exp)


def _weighted_unshifted(node: Any) -> bool:
    """A Sum of ``w * exp(a)`` (either order) with ``a`` not max-shifted."""
    terms = summed(node.outputs[0])
    mul = terms.owner if terms is not None else None
    if mul is None or not isinstance(scalar_op_of(mul), ps.Mul):
        return False
    return any(isinstance(scalar_op_of(i.owner), ps.Exp) and not max_shifted(i.owner.inputs[0]) for i in mul.inputs)


#: ``log(c + sum(exp(a)))``'s measure: Log nodes reading an Add with a Sum of exponentials.
LOGS_OF_SUMS = Measure(
    "Log nodes reading an Add of a Sum of Exp",
    lambda v: sum(
        1
        for n in graph_nodes(v)
        if _log_reads(n, lambda o: isinstance(scalar_op_of(o), ps.Add) and any(_sum_of_exp(i) for i in o.inputs))
    ),
)
#: The weighted logsumexp's measure: Log nodes reading a Sum of weighted exponentials not max-shifted.
LOGS_OF_UNSHIFTED = Measure(
    "Log nodes reading a Sum of w * exp(a), a not max-shifted",
    lambda v: sum(1 for n in graph_nodes(v) if _log_reads(n, _weighted_unshifted)),
)
#: The log lifted into a reshape's measure: Log nodes reading a Reshape or a SpecifyShape.
LOGS_OF_RESHAPES = Measure(
    "Log nodes reading a Reshape or SpecifyShape",
    lambda v: sum(1 for n in graph_nodes(v) if _log_reads(n, lambda o: isinstance(o.op, (Reshape, SpecifyShape)))),
)
#: The downcast's measure: unary Elemwise nodes reading a Cast to a narrower float.
DOWNCASTS_READ = Measure(
    "unary Elemwise nodes reading a narrowing float Cast",
    lambda v: sum(
        1
        for n in graph_nodes(v)
        if isinstance(n.op, Elemwise) and len(n.inputs) == 1 and not _is_cast(n)
        and n.inputs[0].owner is not None and _is_downcast(n.inputs[0].owner)
    ),
)


def _is_cast(node: Any) -> bool:
    return isinstance(scalar_op_of(node), ps.Cast)
