"""The algebra family's goals, guards and measures: what its table reads (``relations/rules/algebra/__init__.py``).

- :func:`upcasto`: a Cast to a wider float over a unary Elemwise of :data:`UPCAST_SAFE`;
- :func:`scalar_or_constanto`, :func:`fit_undero`, :func:`expanded_too`: the other operands of an
  Elemwise over a broadcast, as the broadcast lifts read them;
- guards: :func:`float_over_length` (a mean's divisor), :func:`positive_constant`,
  :func:`out_of_operand_order` (the bounded commutativity's order, :func:`operand_key`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import ancestors
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.math import Sum
from pytensor.tensor.subtensor import Subtensor

from graph_bridge import etuplize
from graph_bridge.measures import Measure, graph_nodes, paths_below, scalar_count
from graph_bridge.nodes import scalar_of, unshuffled
from graph_bridge.ops import ExplicitAlloc
from graph_bridge.terms import term_variable
from logic_core.moded import Mode, ModedGoal, moded
from relations.patterns.guards import guard

__all__ = [
    "UPCAST_SAFE",
    "expanded_too",
    "fit_undero",
    "is_length",
    "length",
    "operand_key",
    "out_of_operand_order",
    "positive_constant",
    "scalar_constant",
    "scalar_form",
    "scalar_or_constanto",
    "upcasto",
    "downcasto",
    "float_bits",
    "widened",
]


#: Unary scalar ops an upcast moves below: each is computed more accurately in the wider dtype.
UPCAST_SAFE: tuple[type, ...] = (
    ps.Exp, ps.Log, ps.Log1p, ps.Expm1, ps.Neg, ps.Abs, ps.Sqr, ps.Sqrt, ps.Erf, ps.Erfc, ps.Erfcx,
    ps.Gamma, ps.GammaLn, ps.Sigmoid, ps.Softplus, ps.Log1mexp, ps.Tanh, ps.Exp2,
)


def float_bits(dtype: str) -> int | None:
    """The width of a float dtype (``"float32"``: 32), ``None`` for any other dtype."""
    return int(dtype[5:]) if dtype.startswith("float") else None


def _casto(name: str, wider: bool) -> Any:
    def goal(cast: Any, op: Any, x_term: Any) -> ModedGoal:
        def check(ct: Any, ft: Any, xt: Any) -> Any:
            xv = term_variable(xt)
            if not (isinstance(ct, ps.Cast) and isinstance(ft, UPCAST_SAFE) and xv is not None):
                return
            src, dst = float_bits(xv.type.dtype), float_bits(ct.o_type.dtype)
            if src is not None and dst is not None and (dst > src if wider else dst < src):
                yield ()

        return moded(
            name,
            {"cast": cast, "op": op, "x_term": x_term},
            Mode(needs=("cast", "op", "x_term"), gives=(), run=check),
            waiting=f"{name} needs the cast, op and x",
        )

    goal.__name__ = name
    goal.__doc__ = (
        f"Check: ``cast`` is a Cast from ``x``'s float dtype to a {'wider' if wider else 'narrower'} float, and "
        f"``op`` a scalar op of :data:`UPCAST_SAFE` (computed in the wider dtype)."
    )
    return goal


upcasto = _casto("upcasto", wider=True)
downcasto = _casto("downcasto", wider=False)


def widened(data: np.ndarray, dtype: str) -> np.ndarray | None:
    """``data`` in the float ``dtype`` where its own dtype is a bool, an integer or a narrower float (PyTensor reads
    ``0.5 * x`` with a float32 ``0.5``, ``3 * x`` with an int8 ``3``), else ``None`` (a float as wide, a value
    that is not a number, or a ``dtype`` that is not a float)."""
    wide, own = float_bits(dtype), float_bits(str(data.dtype))
    if wide is None or data.dtype.kind not in "biuf" or (own is not None and own >= wide):
        return None
    return data.astype(dtype)


def widened_consto(c: Any, a: Any, cw: Any) -> ModedGoal:
    """``cw`` is the one-element constant ``c`` as a 0-d constant of ``a``'s float dtype, where ``c``'s dtype is an
    integer or a narrower float (else ``c``'s own 0-d form): PyTensor reads ``0.5 * x`` with a float32 ``0.5``,
    and a ``log(0.5)`` built of it in a float64 graph would be float32's (2e-9 off).  Backward (``cw`` known) ``c``
    is ``cw``; all three known: a check."""

    def build(ct: Any, at: Any) -> Any:
        cv, av = term_variable(ct), term_variable(at)
        s = scalar_form(cv) if cv is not None else None
        if not isinstance(s, Constant) or av is None or float_bits(av.type.dtype) is None:
            return None
        wide = widened(np.asarray(s.data), av.type.dtype)
        return (s,) if wide is None else (scalar_constant(wide),)

    def check(ct: Any, at: Any, cwt: Any) -> Any:
        built, got = build(ct, at), term_variable(cwt)
        return () if built is not None and _same_scalar(got, built[0]) else None

    return moded(
        "widened_consto",
        {"c": c, "a": a, "cw": cw},
        Mode(needs=("c", "a", "cw"), gives=(), one=check),
        Mode(needs=("c", "a"), gives=("cw",), one=build),
        Mode(needs=("cw", "a"), gives=("c",), one=lambda cwt, at: (cwt,)),
        waiting="widened_consto needs the constant and the operand",
    )


def scalar_form(v: Variable) -> Variable | None:
    """The 0-d form of a scalar-like input: 0-d, a 0-d expanded, or a constant of one element (``[[1.]]``)."""
    s = scalar_of(v)
    if s is not None:
        return s
    if isinstance(v, Constant) and v.data.size == 1 and all(v.type.broadcastable):
        return scalar_constant(v.data.reshape(()))
    return None


_SCALARS: dict[tuple[str, bytes], Constant] = {}


def scalar_constant(value: np.ndarray) -> Constant:
    """The 0-d constant of ``value`` (one object per dtype and value: a check re-reads the one a rewrite built)."""
    key = (value.dtype.str, value.tobytes())
    if key not in _SCALARS:
        _SCALARS[key] = pt.constant(value, dtype=value.dtype.name)
    return _SCALARS[key]


def _same_scalar(a: Variable | None, t: Any) -> bool:
    """Whether the 0-d form ``a`` is the term ``t``: the same variable, or a constant of the same value and dtype."""
    b = term_variable(t)
    if a is b:
        return True
    return (
        isinstance(a, Constant)
        and isinstance(b, Constant)
        and a.type == b.type
        and np.array_equal(a.data, b.data, equal_nan=True)
    )


def scalar_or_constanto(others: Any, scalars: Any, value: Any) -> ModedGoal:
    """Every input in ``others`` is scalar-like or a one-element constant; ``scalars`` are their 0-d forms,
    expanded to ``value``'s ndim (as an Elemwise over ``value`` reads them).

    Canonicalize folds ``1 + broadcast_to(...)``'s ``1`` into a constant
    ``[[1.]]``, which :func:`relations.rules.lift.operand_goals.scalar_likeo`
    does not read.  Backward (only ``scalars`` known) they are the inputs.
    """

    def read(o: Any, vt: Any) -> Any:
        val = term_variable(vt)
        if val is None:
            return None
        found = []
        for t in o:
            u = term_variable(t)
            s = scalar_form(u) if u is not None else None
            if s is None:
                return None
            found.append(etuplize(pt.as_tensor_variable(s).dimshuffle(["x"] * val.type.ndim)) if val.type.ndim else s)
        return (tuple(found),)

    def ready(*ts: Any) -> bool:
        return all(isinstance(t, tuple) for t in ts[:2])

    def check(o: Any, sc: Any, vt: Any) -> Any:
        found = read(o, vt)
        if found is None or len(sc) != len(found[0]):
            return None
        for want, got in zip(found[0], sc):
            w, g = term_variable(want), term_variable(got)
            if g is None or w is None or w.type != g.type:
                return None
            if not _same_scalar(scalar_form(w), g if g.type.ndim == 0 else scalar_of(g)):
                return None
        return ()

    return moded(
        "scalar_or_constanto",
        {"others": others, "scalars": scalars, "value": value},
        Mode(needs=("others", "scalars", "value"), gives=(), ready=ready, one=check),
        Mode(needs=("others", "value"), gives=("scalars",), ready=lambda o, vt: isinstance(o, tuple), one=read),
        Mode(needs=("scalars",), gives=("others",), ready=ready, one=lambda sc: (sc,)),
        waiting="scalar_or_constanto needs others and value, or scalars",
    )


def fit_undero(before: Any, after: Any, shape: Any) -> ModedGoal:
    """Check: every input in ``before`` and ``after`` has at most as many dims as the tuple ``shape``."""

    def check(b: Any, a: Any, sh: Any) -> Any:
        vs = [term_variable(t) for t in (*b, *a)]
        if all(v is not None and v.type.ndim <= len(sh) for v in vs):
            yield ()

    return moded(
        "fit_undero",
        {"before": before, "after": after, "shape": shape},
        Mode(
            needs=("before", "after", "shape"),
            gives=(),
            run=check,
            ready=lambda b, a, sh: all(isinstance(t, tuple) for t in (b, a, sh)),
        ),
        waiting="fit_undero needs the other inputs and the shape",
    )


def expanded_too(value: Any, before: Any, after: Any, expanded: Any) -> ModedGoal:
    """``expanded`` is ``value`` with leading broadcast dims up to the most dims of ``before`` and ``after``
    (as an Elemwise over them reads it); backward, ``value`` is read off ``expanded``."""

    def target(vv: Variable, b: Any, a: Any) -> int:
        return max([vv.type.ndim] + [v.type.ndim for t in (*b, *a) if (v := term_variable(t)) is not None])

    def build(vt: Any, b: Any, a: Any) -> Any:
        vv = term_variable(vt)
        if vv is None or any(term_variable(t) is None for t in (*b, *a)):
            return None
        k = target(vv, b, a)
        if k == vv.type.ndim:
            return (vt,)
        order = ["x"] * (k - vv.type.ndim) + list(range(vv.type.ndim))
        return (etuplize(pt.as_tensor_variable(vv).dimshuffle(order)),)

    def unexpand(b: Any, a: Any, et: Any) -> Any:
        # the value ``build`` would expand to ``et``: its input, where ``et`` left-expands it to the
        # most dims of the other operands; else ``et`` itself (which ``build`` leaves as it is)
        ev = term_variable(et)
        if ev is None or any(term_variable(t) is None for t in (*b, *a)):
            return None
        node = ev.owner
        if node is not None and isinstance(node.op, DimShuffle) and node.op.is_left_expand_dims:
            inner = node.inputs[0]
            if target(inner, b, a) == ev.type.ndim:
                return (inner,)
        return (et,)

    def check(vt: Any, b: Any, a: Any, et: Any) -> Any:
        built = build(vt, b, a)
        if built is None:
            return None
        want, got = term_variable(built[0]), term_variable(et)
        if got is None or want is None or want.type != got.type:
            return None
        return () if want is got or term_variable(unexpand(b, a, et)[0]) is term_variable(vt) else None

    tuples = lambda *ts: all(isinstance(t, tuple) for t in ts[1:3])  # noqa: E731
    return moded(
        "expanded_too",
        {"value": value, "before": before, "after": after, "expanded": expanded},
        Mode(needs=("value", "before", "after", "expanded"), gives=(), one=check, ready=tuples),
        Mode(needs=("value", "before", "after"), gives=("expanded",), one=build, ready=tuples),
        Mode(
            needs=("before", "after", "expanded"),
            gives=("value",),
            one=unexpand,
            ready=lambda b, a, et: isinstance(b, tuple) and isinstance(a, tuple),
        ),
        waiting="expanded_too needs value and the other inputs, or the expanded value and the other inputs",
    )


def is_length(v: Variable) -> bool:
    """Whether ``v`` is a length (or a product of lengths): a Shape entry, cast or expanded,
    or a non-negative constant."""
    from pytensor.tensor.shape import Shape, Shape_i

    while True:
        if isinstance(v, Constant):
            return bool(np.all(np.asarray(v.data) >= 0))
        node = v.owner
        if node is None:
            return False
        if isinstance(node.op, (Shape, Shape_i)):
            return True
        if isinstance(node.op, (DimShuffle, Subtensor)) or isinstance(getattr(node.op, "scalar_op", None), ps.Cast):
            v = node.inputs[0]
            continue
        if isinstance(getattr(node.op, "scalar_op", None), ps.Mul):
            return all(is_length(i) for i in node.inputs)
        return False


def _positive_constant(c: Variable) -> bool:
    """A positive one-element constant (or a 0-d one, expanded)."""
    s = scalar_form(c)
    return isinstance(s, Constant) and bool(np.all(np.asarray(s.data) > 0))


def operand_key(v: Variable) -> tuple:
    """A total order of operands for the commutativity rules: node count, then the Op's and name's text."""
    owner = v.owner
    return (len(graph_nodes(v)), str(owner.op) if owner is not None else "", v.name or "", str(v.type))



@guard
def length(v: Variable) -> bool:
    """``v`` is a length (:func:`is_length`), as a mean divides by."""
    return is_length(v)


@guard
def is_sum(v: Variable) -> bool:
    """``v`` is a ``Sum``, or DimShuffles of one (a softmax's denominator, kept with ``keepdims``)."""
    u = unshuffled(v)
    return u.owner is not None and isinstance(u.owner.op, Sum)


@guard
def positive_constant(c: Variable) -> bool:
    """``c`` is a positive one-element constant (or a 0-d one, expanded)."""
    return _positive_constant(c)


@guard
def out_of_operand_order(a: Variable, b: Variable) -> bool:
    """``a`` comes after ``b`` in :func:`operand_key` order, and the two have one type (no broadcast moves)."""
    return operand_key(a) > operand_key(b) and a.type == b.type


# --- the measures of the entries whose patterns give none ---------------------------------------


def log_of_gamma(v: Variable) -> int:
    """The Log nodes reading a Gamma (``log_gamma_as_gammalno``'s measure)."""
    return sum(
        1
        for n in graph_nodes(v)
        if isinstance(n.op, Elemwise)
        and isinstance(n.op.scalar_op, ps.Log)
        and n.inputs[0].owner is not None
        and isinstance(getattr(n.inputs[0].owner.op, "scalar_op", None), ps.Gamma)
    )


def _is_cast(node: Any) -> bool:
    return isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, ps.Cast)


def below_casts(v: Variable) -> int:
    """Pairs (Cast, non-Cast Elemwise below it) (``upcast_through_elemwiseo``'s measure)."""
    total = 0
    for n in graph_nodes(v):
        if _is_cast(n):
            total += sum(
                1
                for u in ancestors(n.inputs)
                if u.owner is not None and isinstance(u.owner.op, Elemwise) and not _is_cast(u.owner)
            )
    return total


def is_alloc_node(node: Any) -> bool:
    """Whether ``node`` is an Alloc, stock or explicit (the broadcast lifts' measure counts paths below one)."""
    return type(node.op) in (Alloc, ExplicitAlloc)


def misordered(v: Variable) -> int:
    """Binary Add/Mul nodes whose operands are out of :func:`operand_key` order (the commutativity's measure)."""
    return sum(
        1
        for n in graph_nodes(v)
        if isinstance(getattr(n.op, "scalar_op", None), (ps.Add, ps.Mul))
        and len(n.inputs) == 2
        and operand_key(n.inputs[0]) > operand_key(n.inputs[1])
    )


def left_nested(v: Variable) -> int:
    """The nodes below the first operand of each binary Add/Mul whose first operand is one of its own."""
    total = 0
    for n in graph_nodes(v):
        op = getattr(n.op, "scalar_op", None)
        left = n.inputs[0].owner if n.inputs else None
        if (
            isinstance(op, (ps.Add, ps.Mul))
            and len(n.inputs) == 2
            and left is not None
            and getattr(left.op, "scalar_op", None) == op
            and len(left.inputs) == 2
        ):
            total += len(graph_nodes(n.inputs[0]))
    return total


def product_numerators(v: Variable) -> int:
    """The nodes under each product that is a division's numerator (``(a * b) / c``)."""
    return sum(
        len(graph_nodes(n.inputs[0]))
        for n in graph_nodes(v)
        if isinstance(getattr(n.op, "scalar_op", None), ps.TrueDiv)
        and n.inputs[0].owner is not None
        and isinstance(getattr(n.inputs[0].owner.op, "scalar_op", None), ps.Mul)
    )


#: The measures the table names (the entries whose patterns give none: ``relations.patterns.family.root_count``).
LOG_OF_GAMMA = Measure("Log nodes reading a Gamma", log_of_gamma)
BELOW_CASTS = Measure("pairs (Cast, non-Cast Elemwise below it)", below_casts)
ALLOC_PATHS = paths_below(is_alloc_node, "Alloc")
def nary(v: Variable) -> int:
    """The Add and Mul nodes of three operands or more (canonicalize's n-ary sums and products)."""
    return sum(
        1
        for n in graph_nodes(v)
        if isinstance(getattr(n.op, "scalar_op", None), (ps.Add, ps.Mul)) and len(n.inputs) >= 3
    )


MISORDERED = Measure("binary Add/Mul nodes whose operands are out of operand_key order", misordered)
NARY = Measure("Add/Mul nodes of three operands or more", nary)
LEFT_NESTED = Measure("nodes under the first operand of left-nested binary Add/Mul nodes", left_nested)
PRODUCT_NUMERATORS = Measure("nodes under the products that are a division's numerator", product_numerators)
NEGATIONS = scalar_count(ps.Neg, "neg")
DIVISIONS = scalar_count(ps.TrueDiv, "true_div")
PRODUCTS = scalar_count(ps.Mul, "mul")
