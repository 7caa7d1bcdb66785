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
from graph_bridge.nodes import scalar_of
from graph_bridge.measures import Measure, count, graph_nodes, nodes, paths_below
from graph_bridge.ops import ExplicitAlloc
from graph_bridge.terms import term_variable
from logic_core.modes import Mode, ModedGoal, moded
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


#: Guards: the named inputs are floats (``-1 * a`` of a bool or an unsigned int is not ``neg(a)``).
FLOAT_A: Callable[..., bool] = lambda a: _is_float(a)  # noqa: E731
FLOAT_AB: Callable[..., bool] = lambda a, b: _is_float(a) and _is_float(b)  # noqa: E731
FLOAT_B: Callable[..., bool] = lambda b: _is_float(b)  # noqa: E731
FLOAT_X: Callable[..., bool] = lambda x: _is_float(x)  # noqa: E731

# --- subtraction and negation ----------------------------------------------------------

mul_minus_one_as_nego = rewrite_rule(
    "mul_minus_one_as_nego",
    p.mul(-1, a),
    p.neg(a),
    where=(FLOAT_A,),
    measure=scalar_count(ps.Mul, "mul"),
    choice=True,
    doc="""A product with -1 is a negation (pytensor #1476: canonicalize turns ``neg`` into it).

    Before::

        mul(-1, a)

    After::

        neg(a)

    Floats only (``-1 * a`` of an unsigned int wraps around).  Measure: Mul
    nodes drop by one.  A choice (with :func:`neg_as_mul_minus_oneo`).
    """,
)

neg_as_mul_minus_oneo = rewrite_rule(
    "neg_as_mul_minus_oneo",
    p.neg(a),
    p.mul(-1, a),
    where=(FLOAT_A,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="""A negation is a product with -1 (the spelling canonicalize gives; pytensor #1476).

    Before::

        neg(a)

    After::

        mul(-1, a)

    Measure: Neg nodes drop by one.  A choice (with :func:`mul_minus_one_as_nego`).
    """,
)

sub_as_add_nego = rewrite_rule(
    "sub_as_add_nego",
    p.sub(a, b),
    p.add(a, p.neg(b)),
    where=(FLOAT_AB,),
    measure=scalar_count(ps.Sub, "sub"),
    choice=True,
    doc="""A subtraction is an addition of a negation.

    Before::

        sub(a, b)

    After::

        add(a, neg(b))

    Exact in floating point (``a - b`` rounds ``a + (-b)``).  Measure: Sub
    nodes drop by one.  A choice (with :func:`add_neg_as_subo`).
    """,
)

add_neg_as_subo = rewrite_rule(
    "add_neg_as_subo",
    p.add(a, p.neg(b)),
    p.sub(a, b),
    where=(FLOAT_AB,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="""An addition of a negation is a subtraction (``logdiffexp``'s pattern is a ``sub``).

    Before::

        add(a, neg(b))

    After::

        sub(a, b)

    Measure: Neg nodes drop by one.  A choice (with :func:`sub_as_add_nego`).
    """,
)

add_neg_first_as_subo = rewrite_rule(
    "add_neg_first_as_subo",
    p.add(p.neg(b), a),
    p.sub(a, b),
    where=(FLOAT_AB,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="""An addition of a negation, the negation first, is a subtraction (pytensor #2328: operand order).

    Before::

        add(neg(b), a)

    After::

        sub(a, b)

    Measure: Neg nodes drop by one.
    """,
)

neg_subo = rewrite_rule(
    "neg_subo",
    p.neg(p.sub(a, b)),
    p.sub(b, a),
    where=(FLOAT_AB,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="""A negated subtraction is the subtraction the other way round.

    Before::

        neg(sub(a, b))

    After::

        sub(b, a)

    Exact (``-(a - b)`` and ``b - a`` round alike).  Measure: Neg nodes drop by one.
    """,
)

neg_nego = rewrite_rule(
    "neg_nego",
    p.neg(p.neg(a)),
    a,
    measure=nodes(),
    choice=True,
    doc="""Two negations cancel.

    Before::

        neg(neg(a))

    After::

        a

    Measure: nodes drop by two.
    """,
)

# --- division and reciprocals ----------------------------------------------------------

div_as_mul_reciprocalo = rewrite_rule(
    "div_as_mul_reciprocalo",
    p.true_div(a, b),
    p.mul(a, p.reciprocal(b)),
    where=(FLOAT_AB,),
    measure=scalar_count(ps.TrueDiv, "true_div"),
    choice=True,
    doc="""A division is a product with a reciprocal.

    Before::

        true_div(a, b)

    After::

        mul(a, reciprocal(b))

    Not bit-exact (two roundings instead of one; values agree to an ulp),
    and where ``b`` overflows or is 0 both sides give the same inf, 0 or
    nan.  Measure: TrueDiv nodes drop by one.  A choice (with
    :func:`mul_reciprocal_as_divo`).
    """,
)

mul_reciprocal_as_divo = rewrite_rule(
    "mul_reciprocal_as_divo",
    p.mul(a, p.reciprocal(b)),
    p.true_div(a, b),
    where=(FLOAT_AB,),
    measure=scalar_count(ps.Reciprocal, "reciprocal"),
    choice=True,
    doc="""A product with a reciprocal is a division (``exp(x) / (1 + exp(x))`` is the sigmoid pattern).

    Before::

        mul(a, reciprocal(b))

    After::

        true_div(a, b)

    Measure: Reciprocal nodes drop by one.
    """,
)

one_div_as_reciprocalo = rewrite_rule(
    "one_div_as_reciprocalo",
    p.true_div(1, b),
    p.reciprocal(b),
    where=(FLOAT_B,),
    measure=scalar_count(ps.TrueDiv, "true_div"),
    choice=True,
    doc="""One over ``b`` is its reciprocal.

    Before::

        true_div(1, b)

    After::

        reciprocal(b)

    Measure: TrueDiv nodes drop by one.  A choice (with :func:`reciprocal_as_one_divo`).
    """,
)

reciprocal_as_one_divo = rewrite_rule(
    "reciprocal_as_one_divo",
    p.reciprocal(b),
    p.true_div(1, b),
    where=(FLOAT_B,),
    measure=scalar_count(ps.Reciprocal, "reciprocal"),
    choice=True,
    doc="""A reciprocal is one over ``b`` (the form ``local_exp_over_1_plus_exp`` reads).

    Before::

        reciprocal(b)

    After::

        true_div(1, b)

    Measure: Reciprocal nodes drop by one.
    """,
)

pow_minus_one_as_reciprocalo = rewrite_rule(
    "pow_minus_one_as_reciprocalo",
    p.pow(a, -1),
    p.reciprocal(a),
    where=(FLOAT_A,),
    measure=scalar_count(ps.Pow, "pow"),
    choice=True,
    doc="""A power -1 is a reciprocal.

    Before::

        pow(a, -1)

    After::

        reciprocal(a)

    Measure: Pow nodes drop by one.
    """,
)

# --- exponentials ---------------------------------------------------------------------

reciprocal_expo = rewrite_rule(
    "reciprocal_expo",
    p.reciprocal(p.exp(a)),
    p.exp(p.neg(a)),
    where=(FLOAT_A,),
    measure=scalar_count(ps.Reciprocal, "reciprocal"),
    choice=True,
    doc="""The reciprocal of an exponential is the exponential of the negation.

    Before::

        reciprocal(exp(a))

    After::

        exp(neg(a))

    With :func:`neg_nego`, ``1 / exp(-x)`` meets ``exp(x)``, the spelling
    ``softplus``, ``logsumexp`` and ``logaddexp`` are matched on.  Where
    ``exp(a)`` overflows the left side is 0 and the right side a
    subnormal or 0 (the accurate value); elsewhere they agree to an ulp.
    Measure: Reciprocal nodes drop by one.  A choice (with
    :func:`exp_neg_as_reciprocalo`).
    """,
)

exp_neg_as_reciprocalo = rewrite_rule(
    "exp_neg_as_reciprocalo",
    p.exp(p.neg(a)),
    p.reciprocal(p.exp(a)),
    where=(FLOAT_A,),
    measure=scalar_count(ps.Neg, "neg"),
    choice=True,
    doc="""The exponential of a negation is the reciprocal of the exponential.

    Before::

        exp(neg(a))

    After::

        reciprocal(exp(a))

    Measure: Neg nodes drop by one.
    """,
)

mul_exp_as_exp_addo = rewrite_rule(
    "mul_exp_as_exp_addo",
    p.mul(p.exp(a), p.exp(b)),
    p.exp(p.add(a, b)),
    where=(FLOAT_AB,),
    measure=scalar_count(ps.Exp, "exp"),
    choice=True,
    doc="""A product of exponentials is the exponential of the sum (PyTensor specializes it only later).

    Before::

        mul(exp(a), exp(b))

    After::

        exp(add(a, b))

    Where one factor overflows and the other underflows the left side is
    ``inf * 0 = nan`` and the right side the accurate value; elsewhere they
    agree to a few ulps.  Measure: Exp nodes drop by one.
    """,
)

# --- powers ---------------------------------------------------------------------------

pow_two_as_sqro = rewrite_rule(
    "pow_two_as_sqro",
    p.pow(a, 2),
    p.sqr(a),
    where=(FLOAT_A,),
    measure=scalar_count(ps.Pow, "pow"),
    choice=True,
    doc="""A power 2 is a square.

    Before::

        pow(a, 2)

    After::

        sqr(a)

    Measure: Pow nodes drop by one.
    """,
)

mul_self_as_sqro = rewrite_rule(
    "mul_self_as_sqro",
    p.mul(a, a),
    p.sqr(a),
    where=(FLOAT_A,),
    measure=scalar_count(ps.Mul, "mul"),
    choice=True,
    doc="""A product of a graph with itself is its square.

    Before::

        mul(a, a)

    After::

        sqr(a)

    Measure: Mul nodes drop by one.
    """,
)

# --- stable forms PyTensor has no rewrite for --------------------------------------------

exp_sqr_erfc_as_erfcxo = rewrite_rule(
    "exp_sqr_erfc_as_erfcxo",
    p.mul(p.exp(p.sqr(x)), p.erfc(x)),
    p.erfcx(x),
    where=(FLOAT_X,),
    measure=nodes(),
    choice=True,
    doc="""``exp(x**2) * erfc(x)`` is the scaled complementary error function.

    Before::

        mul(exp(sqr(x)), erfc(x))

    After::

        erfcx(x)

    For ``x`` above about 26.6 (float64) ``exp(x**2)`` overflows and
    ``erfc(x)`` underflows: the left side is ``inf * 0 = nan``, ``erfcx``
    is ``1 / (x sqrt(pi))`` to full precision.  Elsewhere the two agree
    to a few ulps.  PyTensor has no rewrite to ``erfcx``.  Measure: nodes
    drop by three.
    """,
)

erfc_exp_sqr_as_erfcxo = rewrite_rule(
    "erfc_exp_sqr_as_erfcxo",
    p.mul(p.erfc(x), p.exp(p.sqr(x))),
    p.erfcx(x),
    where=(FLOAT_X,),
    measure=nodes(),
    choice=True,
    doc="""``erfc(x) * exp(x**2)`` is the scaled complementary error function (operand order).

    Before::

        mul(erfc(x), exp(sqr(x)))

    After::

        erfcx(x)

    As :func:`exp_sqr_erfc_as_erfcxo`.  Measure: nodes drop by three.
    """,
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
    where=(FLOAT_X,),
    measure=Measure("Log nodes reading a Gamma", _log_of_gamma),
    choice=True,
    doc="""``log(gamma(x))`` is ``gammaln(x)`` plus the log of gamma's sign (pytensor #1181).

    Before::

        log(gamma(x))

    After::

        gammaln(x) + log(sign(gamma(x)))

    ``gammaln`` is ``log|gamma|``; the log of the sign is 0 where
    ``gamma(x) > 0`` and nan where it is negative (or nan, at the poles),
    as the left side is; where ``gamma`` underflows to 0 both sides are
    ``-inf``.  Where ``gamma`` overflows (``x > 171.6`` in float64,
    ``x > 35.04`` in float32) the left side is ``inf`` and the right side
    the accurate value (the sign of ``inf`` is 1).  Elsewhere they agree
    to a few ulps.  Measure: Log nodes reading a Gamma drop by one.
    """,
)

#: Unary scalar ops an upcast moves below: each is computed more accurately in the wider dtype.
UPCAST_SAFE: tuple[type, ...] = (
    ps.Exp, ps.Log, ps.Log1p, ps.Expm1, ps.Neg, ps.Abs, ps.Sqr, ps.Sqrt, ps.Erf, ps.Erfc, ps.Erfcx,
    ps.Gamma, ps.GammaLn, ps.Sigmoid, ps.Softplus, ps.Log1mexp, ps.Tanh, ps.Exp2,
)


def upcasto(cast: Any, op: Any, x_term: Any) -> ModedGoal:
    """Check: ``cast`` is a Cast from ``x``'s float dtype to a wider float, and ``op`` a scalar op of :data:`UPCAST_SAFE`."""

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
                1 for u in ancestors(n.inputs) if u.owner is not None and isinstance(u.owner.op, Elemwise) and not _is_cast(u.owner)
            )
    return total


upcast_through_elemwiseo = rewrite_rule(
    "upcast_through_elemwiseo",
    p.elemwise(c, p.elemwise(f, x, before=(), after=()), before=(), after=()),
    p.elemwise(f, p.elemwise(c, x, before=(), after=()), before=(), after=()),
    where=(upcasto(c, f, x), same_typeo(p.LHS, p.RHS)),
    measure=Measure("pairs (Cast, non-Cast Elemwise below it)", _below_casts),
    choice=True,
    doc="""An upcast moved below a unary Elemwise: the Elemwise computed in the wider dtype (pytensor #2247).

    Before::

        cast(f(x), float64)        # x float32

    After::

        f(cast(x, float64))

    For ``f`` in :data:`UPCAST_SAFE` (``exp``, ``log``, ``log1p``,
    ``sigmoid``, ``erfc``, ...).  Not exact: the right side rounds once in
    the wider dtype, so it is the more accurate; the two agree to
    float32's rounding wherever ``f(x)`` is finite in float32, and where it
    overflows there (``exp(100)``) the left side is ``inf``.  A cast
    inside a float64 ``sum(exp(x))`` otherwise keeps ``logsumexp`` from
    matching.  Measure: pairs (Cast, non-Cast Elemwise below it) drop by
    one (``f`` is above the cast now).
    """,
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


def _same_scalar(a: Variable, t: Any) -> bool:
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
            found.append(etuplize(s.dimshuffle(["x"] * val.type.ndim)) if val.type.ndim else s)
        return (tuple(found),)

    def ready(*ts: Any) -> bool:
        return all(isinstance(t, tuple) for t in ts[:2])

    def check(o: Any, sc: Any, vt: Any) -> Any:
        found = read(o, vt)
        if found is None or len(sc) != len(found[0]):
            return None
        for want, got in zip(found[0], sc):
            w, g = term_variable(want), term_variable(got)
            if g is None or w.type != g.type or not _same_scalar(scalar_form(w), g if g.type.ndim == 0 else scalar_of(g)):
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
    doc="""An Elemwise moved into the value of a broadcast (``Alloc``, ``broadcast_to``, ``ones * v``).

    Before::

        f(Alloc(v, *shape), s)       # s scalar-like: 0-d, or a 0-d expanded

    After::

        Alloc(f(v, s), *shape)

    ``log(1 + broadcast_to(exp(x), (3, n)))`` then holds
    ``broadcast_to(log(1 + exp(x)), (3, n))``, where ``softplus`` matches
    (issue 35's first spelling).  Exact.  Unlike the default rule
    :func:`relations.rules.lift.elemwise_alloco` the value need not be a scalar
    and the Alloc may have other readers: the lift can cost more, so it is
    a choice for saturation.  Measure: the pairs (Alloc, Elemwise above it)
    drop by one, as for ``elemwise_alloco``.
    """,
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
        return max([vv.type.ndim] + [term_variable(t).type.ndim for t in (*b, *a)])

    def build(vt: Any, b: Any, a: Any) -> Any:
        vv = term_variable(vt)
        if vv is None or any(term_variable(t) is None for t in (*b, *a)):
            return None
        k = target(vv, b, a)
        if k == vv.type.ndim:
            return (vt,)
        return (etuplize(vv.dimshuffle(["x"] * (k - vv.type.ndim) + list(range(vv.type.ndim)))),)

    def unexpand(et: Any) -> Any:
        ev = term_variable(et)
        if ev is None:
            return None
        node = ev.owner
        if node is not None and isinstance(node.op, DimShuffle) and node.op.is_left_expand_dims:
            return (node.inputs[0],)
        return (et,)

    def check(vt: Any, b: Any, a: Any, et: Any) -> Any:
        built = build(vt, b, a)
        if built is None:
            return None
        want, got = term_variable(built[0]), term_variable(et)
        if got is None or want.type != got.type:
            return None
        if want is got or (unexpand(et) is not None and term_variable(unexpand(et)[0]) is term_variable(vt)):
            return ()
        return None

    tuples = lambda *ts: all(isinstance(t, tuple) for t in ts[1:3])  # noqa: E731
    return moded(
        "expanded_too",
        (value, before, after, expanded),
        Mode((0, 1, 2, 3), (), one=check, ready=tuples),
        Mode((0, 1, 2), (3,), one=build, ready=tuples),
        Mode((3,), (0,), one=unexpand),
        waiting="expanded_too needs value and the other inputs, or the expanded value",
    )


elemwise_alloc_operand_lifto = rewrite_rule(
    "elemwise_alloc_operand_lifto",
    p.elemwise(f, p.named(hole, p.alloc_of(v, shape)), before=bf, after=af),
    p.alloc_of(p.elemwise(f, ev, before=bf, after=af), shape),
    where=(fit_undero(bf, af, shape), expanded_too(v, bf, af, ev), same_typeo(p.LHS, p.RHS)),
    measure=paths_below(_is_alloc_node, "Alloc"),
    choice=True,
    doc="""An Elemwise moved into a broadcast operand whose other operands fit the broadcast's shape.

    Before::

        f(a, Alloc(v, *shape))       # a: at most len(shape) dims

    After::

        Alloc(f(a, v), *shape)

    ``exp(x) / (1 + broadcast_to(exp(x), (3, n)))`` then holds
    ``broadcast_to(exp(x) / (1 + exp(x)), (3, n))``, where ``sigmoid``
    matches.  Exact: ``a`` and ``v`` each broadcast to ``shape`` (each
    dim is 1 or the shape's), so ``f(a, v)`` does too and the Alloc
    gives the same array; where ``a`` does not fit ``shape`` both sides
    raise.  Measure: the pairs (Alloc, Elemwise above it) drop by one.
    """,
)


def is_length(v: Variable) -> bool:
    """Whether ``v`` is a length (or a product of lengths): a Shape entry, cast or expanded, or a non-negative constant."""
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


log_div_by_lengtho = rewrite_rule(
    "log_div_by_lengtho",
    p.log(p.true_div(a, b)),
    p.sub(p.log(a), p.log(b)),
    where=(lambda a, b: _is_float(a) and is_length(b),),
    measure=scalar_count(ps.TrueDiv, "true_div"),
    choice=True,
    doc="""The log of a mean is the log of the sum less the log of the length.

    Before::

        log(a / n)                   # n a length (a Shape entry, cast), as a mean divides by

    After::

        log(a) - log(n)

    ``log(mean(exp(x)))`` then holds ``log(sum(exp(x))) - log(n)``, where
    ``logsumexp`` matches.  For ``n > 0`` both sides are ``log(a) - log(n)``
    up to rounding (nan for ``a < 0``, ``-inf`` for ``a = 0``; where ``a``
    overflows the right side is the accurate one); for ``n = 0`` both
    are nan or ``-inf - -inf = nan`` alike.  PyTensor's ``local_log_div``
    splits a division only by a positive constant.  Measure: TrueDiv
    nodes drop by one.
    """,
)


def _positive_constant(c: Variable) -> bool:
    """A positive one-element constant (or a 0-d one, expanded)."""
    s = scalar_form(c)
    return isinstance(s, Constant) and bool(np.all(np.asarray(s.data) > 0))


log_mul_positive_consto = rewrite_rule(
    "log_mul_positive_consto",
    p.log(p.mul(c, a)),
    p.add(p.log(c), p.log(a)),
    where=(lambda c, a: _is_float(a) and _positive_constant(c),),
    measure=scalar_count(ps.Mul, "mul"),
    choice=True,
    doc="""The log of a product with a positive constant is a sum of logs.

    Before::

        log(c * a)                   # c a positive one-element constant

    After::

        log(c) + log(a)

    ``log(3 * sum(exp(x)))`` then holds ``log(3) + log(sum(exp(x)))``.
    Equal up to rounding for every ``a`` (nan for ``a < 0``, ``-inf`` for
    0); where ``c * a`` overflows the right side is the accurate one.
    Measure: Mul nodes drop by one.
    """,
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


def _ordered_swap(name: str, make: Callable[..., Any], what: str) -> Any:
    return rewrite_rule(
        name,
        make(a, b),
        make(b, a),
        where=(lambda a, b: operand_key(a) > operand_key(b) and a.type == b.type,),
        measure=Measure("binary Add/Mul nodes whose operands are out of operand_key order", _misordered),
        choice=True,
        doc=f"""{what} commutes, bounded: the operands are put in :func:`operand_key` order.

    Before::

        {what.lower()}(a, b)          # operand_key(a) > operand_key(b)

    After::

        {what.lower()}(b, a)

    Exact.  Binary nodes only, and only towards the order (of the same
    type, so no broadcast moves): a pattern written for one operand order
    meets the other, and the e-graph gains one form per node, not every
    permutation.  Measure: binary Add/Mul nodes out of order drop by one.
    """,
    )


add_commuteo = _ordered_swap("add_commuteo", p.add, "Add")
mul_commuteo = _ordered_swap("mul_commuteo", p.mul, "Mul")


def _right_nest(name: str, make: Callable[..., Any], what: str) -> Any:
    return rewrite_rule(
        name,
        make(make(a, b), x),
        make(a, make(b, x)),
        where=(lambda a, b, x: a.type == b.type == x.type and a.type.dtype.startswith("float"),),
        measure=Measure("nodes under the first operand of left-nested binary Add/Mul nodes", _left_nested),
        choice=True,
        doc=f"""{what} associates, bounded: a left-nested pair of binary nodes is nested to the right.

    Before::

        {what.lower()}({what.lower()}(a, b), c)

    After::

        {what.lower()}(a, {what.lower()}(b, c))

    Floats of one type only.  Equal up to rounding (floating-point
    {what.lower()} is not associative: the two round differently, and
    where ``a + b`` overflows and ``b + c`` does not they differ; so it is
    for saturation, with the rest of the set).  Measure: the nodes under
    the first operand of each left-nested binary node drop (the root's
    first operand shrinks from ``a + b`` to ``a``, and ``b + c`` counts
    at most ``b``).
    """,
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
