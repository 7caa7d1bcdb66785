"""The algebra rule set: the spellings of one expression that PyTensor's stabilizers tell apart.

PyTensor's stabilizing rewrites are patterns over one spelling:
``log1p(neg(exp(x)))`` and not ``log1p(mul(-1, exp(x)))`` (pytensor #1476,
#1483), ``log(sub(exp(x), exp(y)))`` and not ``log(add(exp(x), mul(-1,
exp(y))))``.  Canonicalize picks one spelling and "will not uncanonicalize
some" (pytensor #2328).  The entries here say which spellings are equal, so
an e-graph holds them all and a stabilizer that matches any one of them
matches the class.

Every entry is a choice (saturation only: ``RULESETS["algebra"]``,
``relations.rules.SATURATION_ONLY``, never the greedy ``normalize``): an
equality (``ALGEBRA.equal``) runs both ways, a rewrite one way.  Three are
stable forms PyTensor has no rewrite for: ``exp(x**2) * erfc(x) ->
erfcx(x)``, ``log(gamma(x))`` as ``gammaln(x)`` (pytensor #1181), and an
upcast moved below a unary Elemwise (pytensor #2247); their right side is
the accurate one where the left overflows, and ``relations.verify`` checks
them on a finite domain.  ``docs/algebra.md`` explains each entry under its
name; the goals and guards the table reads are in ``algebra_goals.py`` beside it.
"""

from __future__ import annotations

from pytensor.tensor.math import Dot

from graph_bridge import same_typeo
from graph_bridge.measures import count
from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_float, same_type
from relations.rules.algebra.algebra_goals import (
    ALLOC_PATHS,
    BELOW_CASTS,
    DIVISIONS,
    LEFT_NESTED,
    LOG_OF_GAMMA,
    MISORDERED,
    NARY,
    NEGATIONS,
    PRODUCT_NUMERATORS,
    PRODUCTS,
    downcasto,
    expanded_too,
    fit_undero,
    is_sum,
    length,
    out_of_operand_order,
    positive_constant,
    scalar_or_constanto,
    upcasto,
    widened_consto,
)
from relations.rules.algebra.sum_goals import (
    DOWNCASTS_READ,
    LOGS_OF_RESHAPES,
    LOGS_OF_SUMS,
    LOGS_OF_UNSHIFTED,
    max_shifto,
    one_column,
    ones_columno,
    ones_rowo,
    same_ndim,
    unshifted,
)

__all__ = ["ALGEBRA", "ALGEBRA_RULES"]

a, b, x = p.var("a"), p.var("b"), p.var("x")
f, c, hole, v, shape = p.var("f"), p.var("c"), p.var("hole"), p.var("v"), p.var("shape")
w, m, mk, ax, s, t = p.var("w"), p.var("m"), p.var("mk"), p.var("ax"), p.var("s"), p.var("t")
terms, cw = p.var("terms"), p.var("cw")
bf, af, sb, sa, ev = p.var("bf"), p.var("af"), p.var("sb"), p.var("sa"), p.var("ev")
floats = is_float(a) & is_float(b)

#: The family: its entries, in the order saturation tries them.
ALGEBRA = Family("algebra", docs="algebra.md", choice=True)
eq, rw = ALGEBRA.equal, ALGEBRA.rewrite

# subtraction and negation
eq("mul_minus_one_nego", p.mul(-1, a), p.neg(a), is_float(a), "A product with -1 is a negation (pytensor #1476).")
eq("sub_add_nego", p.sub(a, b), p.add(a, p.neg(b)), floats, "A subtraction is an addition of a negation.")
rw("add_neg_first_as_subo", p.add(p.neg(b), a), p.sub(a, b), floats,
   "An addition of a negation, the negation first, is a subtraction (pytensor #2328: operand order).")
rw("neg_subo", p.neg(p.sub(a, b)), p.sub(b, a), floats, "A negated subtraction is the subtraction the other way round.")
rw("neg_nego", p.neg(p.neg(a)), a, doc="Two negations cancel.")
# division and reciprocals
eq("div_mul_reciprocalo", p.true_div(a, b), p.mul(a, p.reciprocal(b)), floats,
   "A division is a product with a reciprocal (``exp(x) / (1 + exp(x))`` is the sigmoid pattern).")
eq("one_div_reciprocalo", p.true_div(1, b), p.reciprocal(b), is_float(b), "One over ``b`` is its reciprocal.")
rw("div_mul_righto", p.true_div(p.mul(a, b), x), p.mul(a, p.true_div(b, x)),
   (is_float(a) & is_float(b) & is_sum(x), same_typeo(p.LHS, p.RHS)),
   "A product divided by a sum is its first factor times the second divided (``c * exp(x) / sum(exp(x))``: the "
   "division meets the softmax's ``exp``).", measure=PRODUCT_NUMERATORS)
rw("div_mul_lefto", p.true_div(p.mul(b, a), x), p.mul(p.true_div(b, x), a),
   (is_float(a) & is_float(b) & is_sum(x), same_typeo(p.LHS, p.RHS)),
   "A product divided by a sum is its first factor divided times the second.", measure=PRODUCT_NUMERATORS)
rw("pow_minus_one_as_reciprocalo", p.pow(a, -1), p.reciprocal(a), is_float(a), "A power -1 is a reciprocal.")
# exponentials
eq("reciprocal_exp_nego", p.reciprocal(p.exp(a)), p.exp(p.neg(a)), is_float(a),
   "The reciprocal of an exponential is the exponential of the negation.", measures=(None, NEGATIONS))
rw("mul_exp_as_exp_addo", p.mul(p.exp(a), p.exp(b)), p.exp(p.add(a, b)), floats,
   "A product of exponentials is the exponential of the sum (PyTensor specializes it only later).")
# powers
rw("pow_two_as_sqro", p.pow(a, 2), p.sqr(a), is_float(a), "A power 2 is a square.")
rw("mul_self_as_sqro", p.mul(a, a), p.sqr(a), is_float(a), "A product of a graph with itself is its square.")
# stable forms PyTensor has no rewrite for
rw("exp_sqr_erfc_as_erfcxo", p.mul(p.exp(p.sqr(x)), p.erfc(x)), p.erfcx(x), is_float(x),
   "``exp(x**2) * erfc(x)`` is the scaled complementary error function.")
rw("erfc_exp_sqr_as_erfcxo", p.mul(p.erfc(x), p.exp(p.sqr(x))), p.erfcx(x), is_float(x),
   "``erfc(x) * exp(x**2)`` is the scaled complementary error function (operand order).")
rw("log_gamma_as_gammalno", p.log(p.gamma(x)), p.add(p.gammaln(x), p.log(p.sign(p.gamma(x)))), is_float(x),
   "``log(gamma(x))`` is ``gammaln(x)`` plus the log of gamma's sign (pytensor #1181).", measure=LOG_OF_GAMMA)
rw("upcast_through_elemwiseo", p.elemwise(c, p.elemwise(f, x, before=(), after=()), before=(), after=()),
   p.elemwise(f, p.elemwise(c, x, before=(), after=()), before=(), after=()),
   (upcasto(c, f, x), same_typeo(p.LHS, p.RHS)),
   "An upcast moved below a unary Elemwise: the Elemwise computed in the wider dtype (pytensor #2247).",
   measure=BELOW_CASTS)
# broadcasts of an Elemwise operand
rw("elemwise_alloc_lifto", p.elemwise(f, p.named(hole, p.alloc_of(v, shape)), before=bf, after=af),
   p.alloc_of(p.elemwise(f, v, before=sb, after=sa), shape),
   (scalar_or_constanto(bf, sb, v), scalar_or_constanto(af, sa, v), same_typeo(p.LHS, p.RHS)),
   "An Elemwise moved into the value of a broadcast (``Alloc``, ``broadcast_to``, ``ones * v``).", measure=ALLOC_PATHS)
rw("elemwise_alloc_operand_lifto", p.elemwise(f, p.named(hole, p.alloc_of(v, shape)), before=bf, after=af),
   p.alloc_of(p.elemwise(f, ev, before=bf, after=af), shape),
   (fit_undero(bf, af, shape), expanded_too(v, bf, af, ev), same_typeo(p.LHS, p.RHS)),
   "An Elemwise moved into a broadcast operand whose other operands fit the broadcast's shape.", measure=ALLOC_PATHS)
# logarithms of products and quotients
rw("log_div_by_lengtho", p.log(p.true_div(a, b)), p.sub(p.log(a), p.log(b)), is_float(a) & length(b),
   "The log of a mean is the log of the sum less the log of the length.", measure=DIVISIONS)
rw("log_mul_positive_consto", p.log(p.mul(c, a)), p.add(p.log(cw), p.log(a)),
   (is_float(a) & positive_constant(c), widened_consto(c, a, cw)),
   "The log of a product with a positive constant is a sum of logs (the constant's log in ``a``'s dtype).",
   measure=PRODUCTS)
# sums, logsumexp and softmax in disguise (issue 44's corpus: a sum written as a product with ones, a constant
# term or weights inside a sum of exponentials, a cast or a reshape between a log and what it stabilizes)
rw("dot_ones_sumo", p.dot(a, c), p.expand_dims(p.sum(a, axis=1), 1),
   (is_float(a), ones_columno(a, c), same_typeo(p.LHS, p.RHS)),
   "A product with a column of ones sums the rows (``dot(exp(x), ones((n, 1)))``).", measure=count(Dot))
rw("ones_dot_sumo", p.dot(c, a), p.expand_dims(p.sum(a, axis=0), 0),
   (is_float(a), ones_rowo(a, c), same_typeo(p.LHS, p.RHS)),
   "A product of a row of ones sums the columns.", measure=count(Dot))
rw("dot_column_sumo", p.dot(a, c), p.expand_dims(p.sum(p.mul(a, p.dimshuffle(c, ("x", 0))), axis=1), 1),
   (is_float(a) & one_column(a, c), same_typeo(p.LHS, p.RHS)),
   "A product with one column is a weighted sum of the rows (``log(dot(exp(x), w))``: a mixture's weights).",
   measure=count(Dot))
rw("log_one_plus_sum_expo", p.log(p.add(1, p.sum(p.exp(a), axis=ax))), p.softplus(p.log(p.sum(p.exp(a), axis=ax))),
   (is_float(a), same_typeo(p.LHS, p.RHS)),
   "``log(1 + sum(exp(a)))`` is ``softplus(log(sum(exp(a))))``: the 1 is ``exp(0)`` in the sum.",
   measure=LOGS_OF_SUMS)
rw("log_sum_weighted_expo", p.log(p.sum(p.named(terms, p.mul(w, p.exp(a))), axis=ax)),
   p.add(m, p.log(p.sum(p.mul(w, p.exp(p.sub(a, mk))), axis=ax))),
   (is_float(a) & is_float(w) & same_ndim(a, terms) & unshifted(a), max_shifto(a, ax, m, mk), same_typeo(p.LHS, p.RHS)),
   "The log of a weighted sum of exponentials takes out their max, as ``logsumexp`` does: weights of any sign.",
   measure=LOGS_OF_UNSHIFTED)
rw("log_sum_exp_weightedo", p.log(p.sum(p.named(terms, p.mul(p.exp(a), w)), axis=ax)),
   p.add(m, p.log(p.sum(p.mul(p.exp(p.sub(a, mk)), w), axis=ax))),
   (is_float(a) & is_float(w) & same_ndim(a, terms) & unshifted(a), max_shifto(a, ax, m, mk), same_typeo(p.LHS, p.RHS)),
   "The same with the weights second.", measure=LOGS_OF_UNSHIFTED)
rw("downcast_above_elemwiseo", p.elemwise(f, p.elemwise(c, x, before=(), after=()), before=(), after=()),
   p.elemwise(c, p.elemwise(f, x, before=(), after=()), before=(), after=()),
   (downcasto(c, f, x), same_typeo(p.LHS, p.RHS)),
   "A narrowing cast moved above a unary Elemwise: the Elemwise computed in the wider dtype.",
   measure=DOWNCASTS_READ)
rw("log_reshape_lifto", p.log(p.reshape(a, s)), p.reshape(p.log(a), s), (is_float(a), same_typeo(p.LHS, p.RHS)),
   "A log moved inside a reshape (``log(softmax(x).flatten())``: the log meets the softmax).",
   measure=LOGS_OF_RESHAPES)
rw("log_specify_shape_lifto", p.log(p.specify_shape(a, s)), p.specify_shape(p.log(a), s),
   (is_float(a), same_typeo(p.LHS, p.RHS)), "A log moved inside a vector's SpecifyShape.", measure=LOGS_OF_RESHAPES)
rw("log_specify_shape2_lifto", p.log(p.specify_shape(a, s, t)), p.specify_shape(p.log(a), s, t),
   (is_float(a), same_typeo(p.LHS, p.RHS)),
   "A log moved inside a matrix's SpecifyShape (``log(softmax(x)[[1, 0]])``, whose index canonicalize turns "
   "into a slice and a SpecifyShape).", measure=LOGS_OF_RESHAPES)
# commutativity and associativity, bounded (operands put in order; pairs nested to the right)
rw("add_commuteo", p.add(a, b), p.add(b, a), out_of_operand_order(a, b), "Add commutes, into operand_key order.",
   measure=MISORDERED)
rw("mul_commuteo", p.mul(a, b), p.mul(b, a), out_of_operand_order(a, b), "Mul commutes, into operand_key order.",
   measure=MISORDERED)
rw("add_associateo", p.add(p.add(a, b), x), p.add(a, p.add(b, x)), same_type(a, b) & same_type(b, x) & is_float(a),
   "Add associates: a left-nested pair of binary nodes is nested to the right.", measure=LEFT_NESTED)
rw("mul_associateo", p.mul(p.mul(a, b), x), p.mul(a, p.mul(b, x)), same_type(a, b) & same_type(b, x) & is_float(a),
   "Mul associates: a left-nested pair of binary nodes is nested to the right.", measure=LEFT_NESTED)

# canonicalize's three-operand sums and products, read as a pair and a third operand (the stabilizers and the
# entries above read binary nodes: ``exp(x) - 1 + y``, ``0.5 * exp(x**2) * erfc(x)``)
same3 = is_float(a) & is_float(b) & is_float(x)
for _name, _op, _whole, _with in (("add", p.add, "sum", "plus"), ("mul", p.mul, "product", "times")):
    for _nth, _one, _pair in (("first", a, (b, x)), ("second", b, (a, x)), ("third", x, (a, b))):
        rw(f"{_name}_split_{_nth}o", _op(a, b, x), _op(_one, _op(*_pair)), same3,
           f"A {_whole} of three is the {_nth} {_with} the {_whole} of the other two.", measure=NARY)

#: The algebra relations, in the order saturation tries them.
ALGEBRA_RULES: tuple = ALGEBRA.rules
