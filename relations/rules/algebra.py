"""The algebra rule set: the spellings of one expression that PyTensor's stabilizers tell apart.

PyTensor's stabilizing rewrites are patterns over one spelling:
``log1p(neg(exp(x)))`` and not ``log1p(mul(-1, exp(x)))`` (pytensor #1476,
#1483), ``log(sub(exp(x), exp(y)))`` and not ``log(add(exp(x), mul(-1,
exp(y))))``, ``log(add(1, exp(x)))`` and not ``log(add(1, true_div(1,
exp(mul(-1, x)))))``.  Canonicalize picks one spelling and "will not
uncanonicalize some" (pytensor #2328).  The relations here say which
spellings are equal, so an e-graph holds them all and a stabilizer that
matches any one of them matches the class.

They are **choice rules** (``choice=True``): each decreases its own
measure, but a rule and its converse (``neg(a) -> mul(-1, a)``,
``mul(-1, a) -> neg(a)``) cycle, so the set is for saturation only
(``RULESETS["algebra"]``, ``relations.rules.SATURATION_ONLY``), never for
the greedy ``normalize``.  Three are stable forms PyTensor has no
rewrite for: ``exp(x**2) * erfc(x) -> erfcx(x)``, ``log(gamma(x))`` as
``gammaln(x)`` (pytensor #1181), and an upcast moved below a unary
Elemwise (pytensor #2247).  Those change values where the left side
overflows (their right side is the accurate one, as PyTensor's own
``local_log1p`` is); ``relations.verify`` checks them on a finite domain.

The table: each rule is one ``rewrite_rule`` (its two sides, its guards, a
one-line doc); ``docs/algebra.md`` explains each under its name (examples,
the values at extreme inputs, the measure, the backward run, the upstream
reports).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import ancestors
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from pytensor.tensor.subtensor import Subtensor

from graph_bridge import etuplize, same_typeo
from graph_bridge.measures import Measure, count, graph_nodes, nodes, paths_below
from graph_bridge.nodes import scalar_of
from graph_bridge.ops import ExplicitAlloc
from graph_bridge.terms import term_variable
from logic_core.moded import Mode, ModedGoal, moded
from relations import patterns as p
from relations.patterns.rewrite_rule import rewrite_rule

__all__ = [
    "ALGEBRA_RULES",
    "add_associateo",
    "add_commuteo",
    "mul_associateo",
    "mul_commuteo",
    "operand_key",
    "UPCAST_SAFE",
    "add_neg_as_subo",
    "add_neg_first_as_subo",
    "div_as_mul_reciprocalo",
    "is_length",
    "scalar_form",
    "elemwise_alloc_lifto",
    "elemwise_alloc_operand_lifto",
    "log_div_by_lengtho",
    "log_mul_positive_consto",
    "erfc_exp_sqr_as_erfcxo",
    "exp_neg_as_reciprocalo",
    "exp_sqr_erfc_as_erfcxo",
    "log_gamma_as_gammalno",
    "mul_exp_as_exp_addo",
    "mul_minus_one_as_nego",
    "mul_reciprocal_as_divo",
    "mul_self_as_sqro",
    "neg_as_mul_minus_oneo",
    "neg_nego",
    "neg_subo",
    "one_div_as_reciprocalo",
    "pow_minus_one_as_reciprocalo",
    "pow_two_as_sqro",
    "reciprocal_as_one_divo",
    "reciprocal_expo",
    "sub_as_add_nego",
    "upcast_through_elemwiseo",
]

a, b, x = p.var("a"), p.var("b"), p.var("x")
f, c, hole, v, shape = p.var("f"), p.var("c"), p.var("hole"), p.var("v"), p.var("shape")
bf, af, sb, sa, ev = p.var("bf"), p.var("af"), p.var("sb"), p.var("sa"), p.var("ev")


def scalar_count(cls: type, text: str) -> Measure:
    """The number of Elemwise nodes (stock or explicit-broadcast) whose scalar op is a ``cls``."""
    return count(test=lambda node: isinstance(getattr(node.op, "scalar_op", None), cls), text=text)


def _is_float(v: Variable) -> bool:
    return v.type.dtype.startswith("float")


# Guards: the named inputs are floats (``-1 * a`` of a bool or an unsigned int is not ``neg(a)``).


def float_a(a: Variable) -> bool:
    """Guard: ``a`` is a float tensor."""
    return _is_float(a)


def floats_ab(a: Variable, b: Variable) -> bool:
    """Guard: ``a`` and ``b`` are float tensors."""
    return _is_float(a) and _is_float(b)


def float_b(b: Variable) -> bool:
    """Guard: ``b`` is a float tensor."""
    return _is_float(b)


def float_x(x: Variable) -> bool:
    """Guard: ``x`` is a float tensor."""
    return _is_float(x)


# --- subtraction and negation ----------------------------------------------------------

mul_minus_one_as_nego = rewrite_rule(
    "mul_minus_one_as_nego",
    p.mul(-1, a),
    p.neg(a),
    where=(float_a,),
    measure=scalar_count(ps.Mul, "mul"),
    choice=True,
    doc="A product with -1 is a negation (pytensor #1476: canonicalize turns ``neg`` into it).",
    docs="algebra.md",
)

neg_as_mul_minus_oneo = rewrite_rule(
    "neg_as_mul_minus_oneo",
    p.neg(a),
    p.mul(-1, a),
    where=(float_a,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="A negation is a product with -1 (the spelling canonicalize gives; pytensor #1476).",
    docs="algebra.md",
)

sub_as_add_nego = rewrite_rule(
    "sub_as_add_nego",
    p.sub(a, b),
    p.add(a, p.neg(b)),
    where=(floats_ab,),
    measure=scalar_count(ps.Sub, "sub"),
    choice=True,
    doc="A subtraction is an addition of a negation.",
    docs="algebra.md",
)

add_neg_as_subo = rewrite_rule(
    "add_neg_as_subo",
    p.add(a, p.neg(b)),
    p.sub(a, b),
    where=(floats_ab,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="An addition of a negation is a subtraction (``logdiffexp``'s pattern is a ``sub``).",
    docs="algebra.md",
)

add_neg_first_as_subo = rewrite_rule(
    "add_neg_first_as_subo",
    p.add(p.neg(b), a),
    p.sub(a, b),
    where=(floats_ab,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="An addition of a negation, the negation first, is a subtraction (pytensor #2328: operand order).",
    docs="algebra.md",
)

neg_subo = rewrite_rule(
    "neg_subo",
    p.neg(p.sub(a, b)),
    p.sub(b, a),
    where=(floats_ab,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="A negated subtraction is the subtraction the other way round.",
    docs="algebra.md",
)

neg_nego = rewrite_rule(
    "neg_nego",
    p.neg(p.neg(a)),
    a,
    measure=nodes(),
    choice=True,
    doc="Two negations cancel.",
    docs="algebra.md",
)

# --- division and reciprocals ----------------------------------------------------------

div_as_mul_reciprocalo = rewrite_rule(
    "div_as_mul_reciprocalo",
    p.true_div(a, b),
    p.mul(a, p.reciprocal(b)),
    where=(floats_ab,),
    measure=scalar_count(ps.TrueDiv, "true_div"),
    choice=True,
    doc="A division is a product with a reciprocal.",
    docs="algebra.md",
)

mul_reciprocal_as_divo = rewrite_rule(
    "mul_reciprocal_as_divo",
    p.mul(a, p.reciprocal(b)),
    p.true_div(a, b),
    where=(floats_ab,),
    measure=scalar_count(ps.Reciprocal, "reciprocal"),
    choice=True,
    doc="A product with a reciprocal is a division (``exp(x) / (1 + exp(x))`` is the sigmoid pattern).",
    docs="algebra.md",
)

one_div_as_reciprocalo = rewrite_rule(
    "one_div_as_reciprocalo",
    p.true_div(1, b),
    p.reciprocal(b),
    where=(float_b,),
    measure=scalar_count(ps.TrueDiv, "true_div"),
    choice=True,
    doc="One over ``b`` is its reciprocal.",
    docs="algebra.md",
)

reciprocal_as_one_divo = rewrite_rule(
    "reciprocal_as_one_divo",
    p.reciprocal(b),
    p.true_div(1, b),
    where=(float_b,),
    measure=scalar_count(ps.Reciprocal, "reciprocal"),
    choice=True,
    doc="A reciprocal is one over ``b`` (the form ``local_exp_over_1_plus_exp`` reads).",
    docs="algebra.md",
)

pow_minus_one_as_reciprocalo = rewrite_rule(
    "pow_minus_one_as_reciprocalo",
    p.pow(a, -1),
    p.reciprocal(a),
    where=(float_a,),
    measure=scalar_count(ps.Pow, "pow"),
    choice=True,
    doc="A power -1 is a reciprocal.",
    docs="algebra.md",
)

# --- exponentials ---------------------------------------------------------------------

reciprocal_expo = rewrite_rule(
    "reciprocal_expo",
    p.reciprocal(p.exp(a)),
    p.exp(p.neg(a)),
    where=(float_a,),
    measure=scalar_count(ps.Reciprocal, "reciprocal"),
    choice=True,
    doc="The reciprocal of an exponential is the exponential of the negation.",
    docs="algebra.md",
)

exp_neg_as_reciprocalo = rewrite_rule(
    "exp_neg_as_reciprocalo",
    p.exp(p.neg(a)),
    p.reciprocal(p.exp(a)),
    where=(float_a,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="The exponential of a negation is the reciprocal of the exponential.",
    docs="algebra.md",
)

mul_exp_as_exp_addo = rewrite_rule(
    "mul_exp_as_exp_addo",
    p.mul(p.exp(a), p.exp(b)),
    p.exp(p.add(a, b)),
    where=(floats_ab,),
    measure=scalar_count(ps.Exp, "exp"),
    choice=True,
    doc="A product of exponentials is the exponential of the sum (PyTensor specializes it only later).",
    docs="algebra.md",
)

# --- powers ---------------------------------------------------------------------------

pow_two_as_sqro = rewrite_rule(
    "pow_two_as_sqro",
    p.pow(a, 2),
    p.sqr(a),
    where=(float_a,),
    measure=scalar_count(ps.Pow, "pow"),
    choice=True,
    doc="A power 2 is a square.",
    docs="algebra.md",
)

mul_self_as_sqro = rewrite_rule(
    "mul_self_as_sqro",
    p.mul(a, a),
    p.sqr(a),
    where=(float_a,),
    measure=scalar_count(ps.Mul, "mul"),
    choice=True,
    doc="A product of a graph with itself is its square.",
    docs="algebra.md",
)

# --- stable forms PyTensor has no rewrite for --------------------------------------------

exp_sqr_erfc_as_erfcxo = rewrite_rule(
    "exp_sqr_erfc_as_erfcxo",
    p.mul(p.exp(p.sqr(x)), p.erfc(x)),
    p.erfcx(x),
    where=(float_x,),
    measure=nodes(),
    choice=True,
    doc="``exp(x**2) * erfc(x)`` is the scaled complementary error function.",
    docs="algebra.md",
)

erfc_exp_sqr_as_erfcxo = rewrite_rule(
    "erfc_exp_sqr_as_erfcxo",
    p.mul(p.erfc(x), p.exp(p.sqr(x))),
    p.erfcx(x),
    where=(float_x,),
    measure=nodes(),
    choice=True,
    doc="``erfc(x) * exp(x**2)`` is the scaled complementary error function (operand order).",
    docs="algebra.md",
)


def _log_of_gamma(v: Variable) -> int:
    return sum(
        1
        for n in graph_nodes(v)
        if isinstance(n.op, Elemwise)
        and isinstance(n.op.scalar_op, ps.Log)
        and n.inputs[0].owner is not None
        and isinstance(getattr(n.inputs[0].owner.op, "scalar_op", None), ps.Gamma)
    )


log_gamma_as_gammalno = rewrite_rule(
    "log_gamma_as_gammalno",
    p.log(p.gamma(x)),
    p.add(p.gammaln(x), p.log(p.sign(p.gamma(x)))),
    where=(float_x,),
    measure=Measure("Log nodes reading a Gamma", _log_of_gamma),
    choice=True,
    doc="``log(gamma(x))`` is ``gammaln(x)`` plus the log of gamma's sign (pytensor #1181).",
    docs="algebra.md",
)

#: Unary scalar ops an upcast moves below: each is computed more accurately in the wider dtype.
UPCAST_SAFE: tuple[type, ...] = (
    ps.Exp, ps.Log, ps.Log1p, ps.Expm1, ps.Neg, ps.Abs, ps.Sqr, ps.Sqrt, ps.Erf, ps.Erfc, ps.Erfcx,
    ps.Gamma, ps.GammaLn, ps.Sigmoid, ps.Softplus, ps.Log1mexp, ps.Tanh, ps.Exp2,
)


def upcasto(cast: Any, op: Any, x_term: Any) -> ModedGoal:
    """Check: ``cast`` is a Cast from ``x``'s float dtype to a wider float.

    And ``op`` a scalar op of :data:`UPCAST_SAFE`.
    """

    def check(ct: Any, ft: Any, xt: Any) -> Any:
        xv = term_variable(xt)
        if not (isinstance(ct, ps.Cast) and isinstance(ft, UPCAST_SAFE) and xv is not None):
            return
        src, dst = xv.type.dtype, ct.o_type.dtype
        if src.startswith("float") and dst.startswith("float") and int(dst[5:]) > int(src[5:]):
            yield ()

    return moded("upcasto", (cast, op, x_term), Mode((0, 1, 2), (), check), waiting="upcasto needs the cast, op and x")


def _is_cast(node: Any) -> bool:
    return isinstance(node.op, Elemwise) and isinstance(node.op.scalar_op, ps.Cast)


def _below_casts(v: Variable) -> int:
    total = 0
    for n in graph_nodes(v):
        if _is_cast(n):
            total += sum(
                1
                for u in ancestors(n.inputs)
                if u.owner is not None and isinstance(u.owner.op, Elemwise) and not _is_cast(u.owner)
            )
    return total


upcast_through_elemwiseo = rewrite_rule(
    "upcast_through_elemwiseo",
    p.elemwise(c, p.elemwise(f, x, before=(), after=()), before=(), after=()),
    p.elemwise(f, p.elemwise(c, x, before=(), after=()), before=(), after=()),
    where=(upcasto(c, f, x), same_typeo(p.LHS, p.RHS)),
    measure=Measure("pairs (Cast, non-Cast Elemwise below it)", _below_casts),
    choice=True,
    doc="An upcast moved below a unary Elemwise: the Elemwise computed in the wider dtype (pytensor #2247).",
    docs="algebra.md",
)

# --- broadcasts of an Elemwise operand ---------------------------------------------------


def _is_alloc_node(node: Any) -> bool:
    return type(node.op) in (Alloc, ExplicitAlloc)


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
    ``[[1.]]``, which :func:`relations.rules.lift.lift_facts.scalar_likeo`
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
            if (
                g is None
                or w is None
                or w.type != g.type
                or not _same_scalar(scalar_form(w), g if g.type.ndim == 0 else scalar_of(g))
            ):
                return None
        return ()

    return moded(
        "scalar_or_constanto",
        (others, scalars, value),
        Mode((0, 1, 2), (), ready=ready, one=check),
        Mode((0, 2), (1,), ready=lambda o, vt: isinstance(o, tuple), one=read),
        Mode((1,), (0,), ready=ready, one=lambda sc: (sc,)),
        waiting="scalar_or_constanto needs others and value, or scalars",
    )


elemwise_alloc_lifto = rewrite_rule(
    "elemwise_alloc_lifto",
    p.elemwise(f, p.named(hole, p.alloc_of(v, shape)), before=bf, after=af),
    p.alloc_of(p.elemwise(f, v, before=sb, after=sa), shape),
    where=(scalar_or_constanto(bf, sb, v), scalar_or_constanto(af, sa, v), same_typeo(p.LHS, p.RHS)),
    measure=paths_below(_is_alloc_node, "Alloc"),
    choice=True,
    doc="An Elemwise moved into the value of a broadcast (``Alloc``, ``broadcast_to``, ``ones * v``).",
    docs="algebra.md",
)


def fit_undero(before: Any, after: Any, shape: Any) -> ModedGoal:
    """Check: every input in ``before`` and ``after`` has at most as many dims as the tuple ``shape``."""

    def check(b: Any, a: Any, sh: Any) -> Any:
        vs = [term_variable(t) for t in (*b, *a)]
        if all(v is not None and v.type.ndim <= len(sh) for v in vs):
            yield ()

    return moded(
        "fit_undero",
        (before, after, shape),
        Mode((0, 1, 2), (), check, ready=lambda b, a, sh: all(isinstance(t, tuple) for t in (b, a, sh))),
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
        (value, before, after, expanded),
        Mode((0, 1, 2, 3), (), one=check, ready=tuples),
        Mode((0, 1, 2), (3,), one=build, ready=tuples),
        Mode((1, 2, 3), (0,), one=unexpand, ready=lambda b, a, et: isinstance(b, tuple) and isinstance(a, tuple)),
        waiting="expanded_too needs value and the other inputs, or the expanded value and the other inputs",
    )


elemwise_alloc_operand_lifto = rewrite_rule(
    "elemwise_alloc_operand_lifto",
    p.elemwise(f, p.named(hole, p.alloc_of(v, shape)), before=bf, after=af),
    p.alloc_of(p.elemwise(f, ev, before=bf, after=af), shape),
    where=(fit_undero(bf, af, shape), expanded_too(v, bf, af, ev), same_typeo(p.LHS, p.RHS)),
    measure=paths_below(_is_alloc_node, "Alloc"),
    choice=True,
    doc="An Elemwise moved into a broadcast operand whose other operands fit the broadcast's shape.",
    docs="algebra.md",
)


def is_length(v: Variable) -> bool:
    """Whether ``v`` is a length (or a product of lengths).

    A Shape entry, cast or expanded, or a non-negative constant.
    """
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


def float_over_length(a: Variable, b: Variable) -> bool:
    """Guard: ``a`` is a float tensor and ``b`` a length (:func:`is_length`), as a mean divides by."""
    return _is_float(a) and is_length(b)


log_div_by_lengtho = rewrite_rule(
    "log_div_by_lengtho",
    p.log(p.true_div(a, b)),
    p.sub(p.log(a), p.log(b)),
    where=(float_over_length,),
    measure=scalar_count(ps.TrueDiv, "true_div"),
    choice=True,
    doc="The log of a mean is the log of the sum less the log of the length.",
    docs="algebra.md",
)


def _positive_constant(c: Variable) -> bool:
    """A positive one-element constant (or a 0-d one, expanded)."""
    s = scalar_form(c)
    return isinstance(s, Constant) and bool(np.all(np.asarray(s.data) > 0))


def positive_constant_times_float(c: Variable, a: Variable) -> bool:
    """Guard: ``c`` is a positive one-element constant and ``a`` a float tensor."""
    return _is_float(a) and _positive_constant(c)


log_mul_positive_consto = rewrite_rule(
    "log_mul_positive_consto",
    p.log(p.mul(c, a)),
    p.add(p.log(c), p.log(a)),
    where=(positive_constant_times_float,),
    measure=scalar_count(ps.Mul, "mul"),
    choice=True,
    doc="The log of a product with a positive constant is a sum of logs.",
    docs="algebra.md",
)


def operand_key(v: Variable) -> tuple:
    """A total order of operands for the commutativity rules: node count, then the Op's and name's text."""
    owner = v.owner
    return (len(graph_nodes(v)), str(owner.op) if owner is not None else "", v.name or "", str(v.type))


def _misordered(v: Variable) -> int:
    return sum(
        1
        for n in graph_nodes(v)
        if isinstance(getattr(n.op, "scalar_op", None), (ps.Add, ps.Mul))
        and len(n.inputs) == 2
        and operand_key(n.inputs[0]) > operand_key(n.inputs[1])
    )


def _left_nested(v: Variable) -> int:
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


def out_of_operand_order(a: Variable, b: Variable) -> bool:
    """Guard: ``a`` comes after ``b`` in :func:`operand_key` order, and the two have one type (no broadcast moves)."""
    return operand_key(a) > operand_key(b) and a.type == b.type


def floats_of_one_type(a: Variable, b: Variable, x: Variable) -> bool:
    """Guard: ``a``, ``b`` and ``x`` are float tensors of one type."""
    return a.type == b.type == x.type and a.type.dtype.startswith("float")


def _ordered_swap(name: str, make: Callable[..., Any], what: str) -> Any:
    return rewrite_rule(
        name,
        make(a, b),
        make(b, a),
        where=(out_of_operand_order,),
        measure=Measure("binary Add/Mul nodes whose operands are out of operand_key order", _misordered),
        choice=True,
        doc=f"{what} commutes, bounded: the operands are put in :func:`operand_key` order.",
        docs="algebra.md",
    )


add_commuteo = _ordered_swap("add_commuteo", p.add, "Add")
mul_commuteo = _ordered_swap("mul_commuteo", p.mul, "Mul")


def _right_nest(name: str, make: Callable[..., Any], what: str) -> Any:
    return rewrite_rule(
        name,
        make(make(a, b), x),
        make(a, make(b, x)),
        where=(floats_of_one_type,),
        measure=Measure("nodes under the first operand of left-nested binary Add/Mul nodes", _left_nested),
        choice=True,
        doc=f"{what} associates, bounded: a left-nested pair of binary nodes is nested to the right.",
        docs="algebra.md",
    )


add_associateo = _right_nest("add_associateo", p.add, "Add")
mul_associateo = _right_nest("mul_associateo", p.mul, "Mul")

#: The algebra relations, in the order saturation tries them.
ALGEBRA_RULES: tuple = (
    mul_minus_one_as_nego,
    neg_as_mul_minus_oneo,
    sub_as_add_nego,
    add_neg_as_subo,
    add_neg_first_as_subo,
    neg_subo,
    neg_nego,
    div_as_mul_reciprocalo,
    mul_reciprocal_as_divo,
    one_div_as_reciprocalo,
    reciprocal_as_one_divo,
    pow_minus_one_as_reciprocalo,
    reciprocal_expo,
    exp_neg_as_reciprocalo,
    mul_exp_as_exp_addo,
    pow_two_as_sqro,
    mul_self_as_sqro,
    exp_sqr_erfc_as_erfcxo,
    erfc_exp_sqr_as_erfcxo,
    log_gamma_as_gammalno,
    upcast_through_elemwiseo,
    elemwise_alloc_lifto,
    elemwise_alloc_operand_lifto,
    log_div_by_lengtho,
    log_mul_positive_consto,
    add_commuteo,
    mul_commuteo,
    add_associateo,
    mul_associateo,
)
