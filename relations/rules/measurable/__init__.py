"""The ``measurable`` rule set: spellings PyMC's logprob derivation does not match, related to ones it does.

PyMC derives a density (``pm.logp``, a model's logp, ``CustomDist(dist=...)``)
only where a graph matches one of its measurable rewrites: ``2 * x`` derives,
``x + x`` fails with "Logprob method not implemented for Add".  The
maintainers canonicalize one spelling at a time (pymc #6371 for ``5/x``,
``-x`` and ``5 - x``; #6896/#6962 for powers; #8363 for censoring by
``maximum``/``minimum``).  Each rule here relates a spelling PyMC refuses
(left side) to an equal one it matches (right side), as a relation like the
others: forward it rewrites, backward it generates the refused spellings,
with both sides given it checks.  :func:`relations.pymc.logp` saturates a
graph with them and derives from a form PyMC matches; every rewrite is an
equality of values, so the densities of equal forms are equal (and where
they are not, PyMC derived one wrongly: the cross-check says so).

The table, by kind (``rewrite_rule`` entries, then relations that read a
whole sub-graph, :func:`computed_rule` over the readers of
:mod:`relations.rules.measurable.rewrites`):

- affine arithmetic: ``x + x``, ``3*x - x``, ``3*x + x``, ``x - 3*x``,
  ``x * x``; any affine tree reading one variable twice (``x - x/2``,
  :func:`affine_collecto`); ``x * x * x`` (:func:`power_collecto`);
- exponentials (#6896/#6962): ``exp(a) * exp(b)``, ``exp(a) / exp(b)``,
  ``exp(a) ** b``;
- sums of affine vectors: ``sum(v * c)``, ``sum(c * v)``, ``sum(v + c)``,
  ``v[0] + v[1] + v[2]``;
- censoring (pymc #8363): ``where``/``switch`` spellings of ``maximum``,
  ``minimum`` and ``clip`` (and of a leaky ReLU, PyMC's
  ``where(x >= 0, x, a*x)``), and increasing transforms of a censored
  variable moved inside the censoring (a transform outside makes PyMC add
  a Jacobian term at the censored point, a wrong value);
- mixtures (pymc #6398): ``c*a + (1 - c)*b`` with a boolean ``c``, and
  ``stack([a, b])[i, arange(n)]``, as switches;
- layout: transposes through joins and stacks (#6360), ``reshape`` /
  ``flatten`` as ``join_dims`` / ``split_dims``, writes of slices into
  zeros as joins (#7553).

:data:`MEASURABLE_CHOICES` are the rules that make a graph costlier
(``exp(clip(x))`` computes one ``exp``, its censored form three): for
saturation only, never a greedy ``normalize`` (the convention of
``RULESETS["choices"]``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytensor.graph.basic import Variable
from pytensor.tensor.basic import Join, MakeVector
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from pytensor.tensor.extra_ops import CumOp
from pytensor.tensor.reshape import JoinDims, SplitDims
from pytensor.tensor.shape import Reshape
from pytensor.tensor.subtensor import AdvancedIncSubtensor, AdvancedSubtensor, IncSubtensor

from graph_bridge import etuplize, register_op_class
from graph_bridge.measures import Measure, above, count, elemwise_above, weighted_operands
from graph_bridge.terms import term_variable
from logic_core.moded import Mode, moded
from relations import patterns as p
from relations.patterns.relation import rule
from relations.patterns.rewrite_rule import rewrite_rule
from relations.rules import dimshuffle
from relations.rules.lift.operand_goals import scalar_likeo
from relations.rules.measurable import rewrites
from relations.rules.measurable.absolute import ABSOLUTE
from relations.rules.measurable.links import LINKS
from relations.rules.measurable.switches import SWITCHES

__all__ = [
    "MEASURABLE_CHOICES",
    "affine_collecto",
    "computed_rule",
    "index_mixture_as_switcho",
    "masked_set_as_switcho",
    "elements_extremumo",
    "square_completedo",
    "transform_out_of_extremumo",
    "stacked_elementso",
    "power_collecto",
    "reshape_as_dimso",
    "partial_sums_as_cumsumo",
    "slices_sumo",
    "sum_shiftedo",
    "transform_into_censoringo",
    "transpose_joino",
    "writes_as_joino",
    "MEASURABLE_RULES",
    "add_selfo",
    "add_scaled_selfo",
    "clip_of_add_consto",
    "clip_of_mul_posto",
    "exp_of_clipo",
    "exp_div_expo",
    "exp_mul_expo",
    "exp_powo",
    "mixture_as_switcho",
    "mul_selfo",
    "sub_scaled_selfo",
    "sub_self_scaledo",
    "sum_of_scaledo",
    "sum_of_scaled_lefto",
    "switch_as_clipo",
    "switch_as_clip_geo",
    "switch_as_maximumo",
    "switch_as_minimumo",
    "switch_ge_as_maximumo",
    "switch_gt_as_maximumo",
    "switch_le_as_minimumo",
    "switch_lt_as_minimumo",
    "switch_lt_keep_as_minimumo",
    "switch_gt_keep_as_maximumo",
    "switch_swappedo",
]

a, b, c, c0, x, lo, hi, ax = (p.var(n) for n in ("a", "b", "c", "c0", "x", "lo", "hi", "ax"))


#: Reads of one term collected into one: ``x + x`` reads ``x`` by two paths, ``x * 2`` by one.
READS = Measure("paths from the output to its non-constant inputs", rewrites.input_paths)


#: A transform moved out of a full maximum or minimum: the pairs (Elemwise, Max/Min above it) drop by one.
UNDER_EXTREMUM = Measure("pairs (Elemwise, Max/Min above it)", rewrites.elemwise_under_extremum)

#: A transform moved inside a censoring: the pairs (Clip, Elemwise above it) drop by one.
ABOVE_CLIP = elemwise_above(rewrites.is_clip, "Clip")


def _is_float(v: Any) -> bool:
    """Whether pattern variable ``v`` is bound to a float tensor (``x + x`` of bools is ``or``, not ``2*x``)."""
    return isinstance(v, Variable) and v.type.dtype.startswith("float")


def float_a(a: Variable) -> bool:
    """Guard: ``a`` is a float tensor."""
    return _is_float(a)


def float_x(x: Variable) -> bool:
    """Guard: ``x`` is a float tensor."""
    return _is_float(x)


def floats_ab(a: Variable, b: Variable) -> bool:
    """Guard: ``a`` and ``b`` are float tensors."""
    return _is_float(a) and _is_float(b)


def bounds_like(x: Variable, lo: Variable, hi: Variable) -> bool:
    """The bounds have ``x``'s dtype: ``exp`` of an int8 bound is float32, not the float64 point ``exp(x)`` reaches."""
    return _is_float(x) and lo.type.dtype == hi.type.dtype == x.type.dtype


def boolean(c: Variable) -> bool:
    return c.type.dtype == "bool"


# -- affine arithmetic (pymc #6371's spellings) -----------------------------------------------

add_selfo = rewrite_rule(
    "add_selfo",
    p.add(a, a),
    p.mul(a, 2),
    where=(float_a,),
    measure=READS,
    doc="A variable added to itself is twice it.",
    docs="measurable.md",
)

mul_selfo = rewrite_rule(
    "mul_selfo",
    p.mul(a, a),
    p.sqr(a),
    where=(float_a,),
    measure=READS,
    doc="A variable times itself is its square.",
    docs="measurable.md",
)

sub_scaled_selfo = rewrite_rule(
    "sub_scaled_selfo",
    p.sub(p.mul(c, a), a),
    p.mul(p.sub(c, 1), a),
    where=(float_a,),
    measure=READS,
    doc="``c*x - x`` is ``(c - 1)*x``.",
    docs="measurable.md",
)

sub_self_scaledo = rewrite_rule(
    "sub_self_scaledo",
    p.sub(a, p.mul(c, a)),
    p.mul(p.sub(1, c), a),
    where=(float_a,),
    measure=READS,
    doc="``x - c*x`` is ``(1 - c)*x``.",
    docs="measurable.md",
)

add_scaled_selfo = rewrite_rule(
    "add_scaled_selfo",
    p.add(p.mul(c, a), a),
    p.mul(p.add(c, 1), a),
    where=(float_a,),
    measure=READS,
    doc="``c*x + x`` is ``(c + 1)*x``.",
    docs="measurable.md",
)

# -- exponentials (pymc #6896 / #6962) --------------------------------------------------------

exp_mul_expo = rewrite_rule(
    "exp_mul_expo",
    p.mul(p.exp(a), p.exp(b)),
    p.exp(p.add(a, b)),
    where=(floats_ab,),
    doc="A product of exponentials is the exponential of the sum.",
    docs="measurable.md",
)

exp_div_expo = rewrite_rule(
    "exp_div_expo",
    p.true_div(p.exp(a), p.exp(b)),
    p.exp(p.sub(a, b)),
    where=(floats_ab,),
    doc="A quotient of exponentials is the exponential of the difference.",
    docs="measurable.md",
)

exp_powo = rewrite_rule(
    "exp_powo",
    p.pow(p.exp(a), b),
    p.exp(p.mul(a, b)),
    where=(float_a,),
    measure=count(Elemwise, test=rewrites.pow_of_exp, text="Pow of an Exp"),
    doc="A power of an exponential is the exponential of the product.",
    docs="measurable.md",
)

# -- sums of affine vectors -------------------------------------------------------------------

sum_of_scaledo = rewrite_rule(
    "sum_of_scaledo",
    p.sum(p.mul(x, c), axis=ax),
    p.mul(p.sum(x, axis=ax), c0),
    where=(scalar_likeo((c,), (c0,)), float_x),
    measure=weighted_operands(),
    doc="A sum of a scaled vector is the scaled sum.",
    docs="measurable.md",
)

sum_of_scaled_lefto = rewrite_rule(
    "sum_of_scaled_lefto",
    p.sum(p.mul(c, x), axis=ax),
    p.mul(c0, p.sum(x, axis=ax)),
    where=(scalar_likeo((c,), (c0,)), float_x),
    measure=weighted_operands(),
    doc="A sum of a vector scaled on the left is the scaled sum (:func:`sum_of_scaledo`, the other order).",
    docs="measurable.md",
)

# -- censoring (pymc #8363) ---------------------------------------------------------------------

switch_as_maximumo = rewrite_rule(
    "switch_as_maximumo",
    p.switch(p.lt(x, lo), lo, x),
    p.maximum(x, lo),
    where=(float_x,),
    doc="A ``where`` that censors from below is a ``maximum``.",
    docs="measurable.md",
)

switch_as_minimumo = rewrite_rule(
    "switch_as_minimumo",
    p.switch(p.gt(x, hi), hi, x),
    p.minimum(x, hi),
    where=(float_x,),
    doc="A ``where`` that censors from above is a ``minimum``.",
    docs="measurable.md",
)

switch_as_clipo = rewrite_rule(
    "switch_as_clipo",
    p.switch(p.lt(x, lo), lo, p.minimum(x, hi)),
    p.clip(x, lo, hi),
    where=(float_x,),
    doc="A ``where`` below a ``minimum`` is a ``clip`` (the nested ``where`` after :func:`switch_as_minimumo`).",
    docs="measurable.md",
)

switch_as_clip_geo = rewrite_rule(
    "switch_as_clip_geo",
    p.switch(p.gt(x, hi), hi, p.maximum(x, lo)),
    p.clip(x, lo, hi),
    where=(float_x, rewrites.ordered_bounds),
    doc="A ``where`` above a ``maximum`` is a ``clip``, for constant bounds with ``lo <= hi``.",
    docs="measurable.md",
)

switch_ge_as_maximumo = rewrite_rule(
    "switch_ge_as_maximumo",
    p.switch(p.ge(x, lo), x, lo),
    p.maximum(x, lo),
    where=(float_x,),
    doc="``where(x >= lo, x, lo)`` is ``maximum(x, lo)``.",
    docs="measurable.md",
)

switch_gt_as_maximumo = rewrite_rule(
    "switch_gt_as_maximumo",
    p.switch(p.gt(lo, x), lo, x),
    p.maximum(x, lo),
    where=(float_x,),
    doc="``where(lo > x, lo, x)`` is ``maximum(x, lo)``.",
    docs="measurable.md",
)

switch_le_as_minimumo = rewrite_rule(
    "switch_le_as_minimumo",
    p.switch(p.le(x, hi), x, hi),
    p.minimum(x, hi),
    where=(float_x,),
    doc="``where(x <= hi, x, hi)`` is ``minimum(x, hi)``.",
    docs="measurable.md",
)

switch_lt_as_minimumo = rewrite_rule(
    "switch_lt_as_minimumo",
    p.switch(p.lt(hi, x), hi, x),
    p.minimum(x, hi),
    where=(float_x,),
    doc="``where(hi < x, hi, x)`` is ``minimum(x, hi)``.",
    docs="measurable.md",
)

switch_lt_keep_as_minimumo = rewrite_rule(
    "switch_lt_keep_as_minimumo",
    p.switch(p.lt(x, hi), x, hi),
    p.minimum(x, hi),
    where=(float_x,),
    doc="``where(x < hi, x, hi)`` is ``minimum(x, hi)``.",
    docs="measurable.md",
)

switch_gt_keep_as_maximumo = rewrite_rule(
    "switch_gt_keep_as_maximumo",
    p.switch(p.gt(x, lo), x, lo),
    p.maximum(x, lo),
    where=(float_x,),
    doc="``where(x > lo, x, lo)`` is ``maximum(x, lo)``.",
    docs="measurable.md",
)

switch_swappedo = rewrite_rule(
    "switch_swappedo",
    p.switch(p.lt(x, lo), b, x),
    p.switch(p.ge(x, lo), x, b),
    where=(float_x,),
    measure=count(Elemwise, test=lambda n: type(getattr(n.op, "scalar_op", None)).__name__ == "LT", text="LT"),
    doc="``where(x < lo, b, x)`` is ``where(x >= lo, x, b)``: the branch on ``x`` first, as PyMC matches.",
    docs="measurable.md",
)

exp_of_clipo = rewrite_rule(
    "exp_of_clipo",
    p.exp(p.clip(x, lo, hi)),
    p.clip(p.exp(x), p.exp(lo), p.exp(hi)),
    where=(bounds_like,),
    measure=ABOVE_CLIP,
    doc="An exponential of a censored variable is a censored exponential.",
    docs="measurable.md",
)

clip_of_mul_posto = rewrite_rule(
    "clip_of_mul_posto",
    p.mul(p.clip(x, lo, hi), c),
    p.clip(p.mul(x, c), p.mul(lo, c), p.mul(hi, c)),
    where=(bounds_like, rewrites.positive_constant),
    measure=ABOVE_CLIP,
    doc="A censored variable scaled by a positive constant is a censored scaling.",
    docs="measurable.md",
)

clip_of_add_consto = rewrite_rule(
    "clip_of_add_consto",
    p.add(p.clip(x, lo, hi), c),
    p.clip(p.add(x, c), p.add(lo, c), p.add(hi, c)),
    where=(bounds_like, rewrites.is_constant),
    measure=ABOVE_CLIP,
    doc="A shifted censored variable is a censored shift.",
    docs="measurable.md",
)

# -- mixtures (pymc #6398) ----------------------------------------------------------------------

mixture_as_switcho = rewrite_rule(
    "mixture_as_switcho",
    p.add(p.mul(c, a), p.mul(p.sub(1, c), b)),
    p.switch(c, a, b),
    where=(boolean, floats_ab),
    doc="An arithmetic mixture with a boolean indicator is a switch.",
    docs="measurable.md",
)

# -- relations over a whole sub-graph (a Python reader each way: relations.rules.measurable.rewrites) ---

# the Ops these relations rewrite at, so the e-graph runs rules there (PyMC's Reshape, JoinDims, SplitDims;
# stacks of scalars and cumulative sums)
for _op_class in (Reshape, JoinDims, SplitDims, MakeVector, CumOp, AdvancedIncSubtensor):
    register_op_class(_op_class)


def _moded_side(fn: Callable[[Variable], Variable | None]) -> Callable[[Any], tuple | None]:
    def one(t: Any) -> tuple | None:
        v = term_variable(t)
        new = None if v is None else fn(v)
        return None if v is None or new is None or new.type != v.type else (etuplize(new),)

    one.__name__ = fn.__name__
    return one


def computed_rule(
    name: str,
    forward: Callable[[Variable], Variable | None],
    backward: Callable[[Variable], Variable | None],
    *,
    heads: tuple,
    rhs_heads: tuple | None,
    measure: Measure,
    doc: str,
) -> Callable[[Any, Any], Any]:
    """A relation ``rel(lhs, rhs)`` whose sides are related by two Python functions of a variable.

    ``forward(lhs_var)`` builds the right side (or ``None``: no answer), ``backward(rhs_var)``
    the left side; with both sides given the forward answer is unified with the right side
    (a check).  A side whose type differs from the other's is no answer.
    """
    modes = (
        Mode(needs=("lhs",), gives=("rhs",), one=_moded_side(forward)),
        Mode(needs=("rhs",), gives=("lhs",), one=_moded_side(backward)),
    )

    def relation(lhs: Any, rhs: Any) -> Any:
        return moded(name, {"lhs": lhs, "rhs": rhs}, *modes)

    relation.__name__ = relation.__qualname__ = name
    relation.__doc__ = doc
    return rule(heads=heads, rhs_heads=rhs_heads, measure=measure)(relation)


affine_collecto = computed_rule(
    "affine_collecto",
    rewrites.affine_form,
    rewrites.affine_as_sum,
    heads=(Elemwise,),
    rhs_heads=(Elemwise,),
    measure=READS,
    doc="""An affine expression reading one variable several times, collected.

    Before::

        x - x / 2          # Logprob method not implemented for Add (pymc #6371)
        x / 2 + x / 2

    After::

        x * 0.5
        x * 1.0

    Any tree of Add, Sub, Neg, Mul and TrueDiv by constants over one float
    leaf (read twice or more) is ``x * k + m``.  Equal up to rounding.
    Measure: the leaf is read once.  Backward: ``x * k`` as ``x + x * (k - 1)``.
    """,
)

power_collecto = computed_rule(
    "power_collecto",
    rewrites.power_form,
    rewrites.power_as_product,
    heads=(Elemwise,),
    rhs_heads=(Elemwise,),
    measure=READS,
    doc="""A product of one variable three or more times is its power.

    Before::

        x * x * x          # Logprob method not implemented for Mul

    After::

        x ** 3             # PyMC's power transform

    Measure: ``n - 1`` Muls become one Pow.  Backward: ``x ** n`` (a constant
    ``3 <= n <= MAX_UNROLLED``) as the product.
    """,
)

slices_sumo = computed_rule(
    "slices_sumo",
    rewrites.slices_sum,
    rewrites.sum_as_slices,
    heads=(Elemwise,),
    rhs_heads=(CAReduce,),
    measure=READS,
    doc="""A sum of a vector's elements, one by one, is a sum of the vector (or of its slice).

    Before::

        v[0] + v[1] + v[2]     # v of static length 3: not implemented for Add

    After::

        sum(v)                 # a measurable sum of iid variables

    Distinct constant indices; not contiguous (``v[0] + v[2]``), the sum of
    the vector indexed by them (``sum(v[[0, 2]])``).  Measure: the reads
    drop to one.
    Backward: ``sum(v)`` of a vector of static length ``2..MAX_UNROLLED`` as
    its elements added.
    """,
)

sum_shiftedo = computed_rule(
    "sum_shiftedo",
    rewrites.scaled_as_sum,
    rewrites.sum_as_scaled,
    heads=(CAReduce,),
    rhs_heads=(Elemwise,),
    measure=weighted_operands(),
    doc="""A sum of a shifted tensor is the shifted sum.

    Before::

        sum(v + 1)             # Logprob method not implemented for Sum

    After::

        sum(v) + 3             # v of static size 3

    A constant shift that broadcasts to the tensor (a scalar, or a vector
    of constants: ``sum(v + [1, 2, 3])`` is ``sum(v) + 6``), all axes, a
    static size.  Measure: the Add
    touches one element.  Backward: ``sum(x) + c`` as ``sum(x + c / n)``.
    """,
)

partial_sums_as_cumsumo = computed_rule(
    "partial_sums_as_cumsumo",
    rewrites.partial_sums_as_cumsum,
    rewrites.cumsum_as_partial_sums,
    heads=(MakeVector,),
    rhs_heads=(CumOp,),
    measure=READS,
    doc="""A cumulative sum written out element by element is ``cumsum``.

    Before::

        stack([w[0], w[0] + w[1], w[0] + w[1] + w[2]])   # not implemented for MakeVector

    After::

        cumsum(w)                                        # a measurable cumulative sum

    Element ``k`` the sum of ``w[0..k]`` (distinct constant elements of one
    vector of static length, terms in any order); ``w[:n]`` where fewer than
    all are stacked.  Measure: the reads drop to one per element.
    Backward: ``cumsum(w)`` of static length ``2..MAX_UNROLLED`` as the
    stack of its partial sums.
    """,
)

transpose_joino = computed_rule(
    "transpose_joino",
    rewrites.transpose_of_join,
    rewrites.join_of_transposes,
    heads=(DimShuffle,),
    rhs_heads=(Join,),
    measure=above(lambda n: isinstance(n.op, Join), DimShuffle, "Join"),
    doc="""A transpose of a join is a join of transposes (pymc #6360).

    Before::

        stack([a, b]).T        # Logprob method not implemented for MatrixTranspose

    After::

        join(1, a[None].T, b[None].T)   # dimshuffle_composeo: join(1, a[:, None], b[:, None])

    Any permutation (no dims added or dropped); the join axis moves with
    it.  Measure: the DimShuffle moves below the Join.  Backward: a join of
    pieces permuted alike.
    """,
)

reshape_as_dimso = computed_rule(
    "reshape_as_dimso",
    rewrites.reshape_as_dims,
    rewrites.join_dims_as_reshape,
    heads=(Reshape,),
    rhs_heads=(JoinDims, SplitDims),
    measure=count(Reshape),
    doc="""A reshape that merges adjacent dims, or splits one, is ``join_dims`` / ``split_dims``.

    Before::

        m.reshape((6,))        # m: (2, 3); not implemented for Reshape
        m.flatten()

    After::

        join_dims(m, 0, 2)     # measurable (PyMC's JoinDims)

    Static shapes only.  Measure: Reshapes drop by one.  Backward: a
    ``join_dims`` or ``split_dims`` of static shape as a reshape.
    """,
)

writes_as_joino = computed_rule(
    "writes_as_joino",
    rewrites.writes_as_join,
    rewrites.join_as_writes,
    heads=(IncSubtensor,),
    rhs_heads=(Join,),
    measure=count(IncSubtensor, test=lambda n: n.op.set_instead_of_inc, text="set"),
    doc="""A write of a slice into zeros is a concatenation (pymc #7553).

    Before::

        zeros(5)[:3].set(a)                     # not implemented for SetSubtensor
        zeros(5)[:3].set(a)[3:].set(b)

    After::

        join(0, a, zeros(2))
        join(0, a, b)                           # a measurable join

    A set (never an inc) at one constant slice of dim 0, into zeros or a
    join whose pieces it covers are zeros; static lengths.  Measure: set
    writes drop by one.  Backward: a join along dim 0 as the write of its
    last piece into the join with zeros in its place.
    """,
)

index_mixture_as_switcho = computed_rule(
    "index_mixture_as_switcho",
    rewrites.index_mixture_as_switch,
    rewrites.switch_as_index_mixture,
    heads=(AdvancedSubtensor,),
    rhs_heads=(Elemwise,),
    measure=count(AdvancedSubtensor),
    doc="""An index mixture with an integer vector of component labels is a switch (pymc #6398).

    Before::

        stack([a, b])[i, arange(n)]      # non-scalar integer indexing: not implemented

    After::

        switch(eq(i % 2, 0), a, b)       # a measurable switch mixture

    ``a``, ``b`` vectors of static length ``n``; ``i`` an integer vector
    (labels taken modulo the number of components, as negative indices are;
    an out-of-range label makes the left side raise).  Measure: the
    AdvancedSubtensors drop by one.  Backward: the two-component switch as
    the indexed stack.
    """,
)

transform_out_of_extremumo = computed_rule(
    "transform_out_of_extremumo",
    rewrites.transform_out_of_extremum,
    rewrites.transform_into_extremum,
    heads=(CAReduce,),
    rhs_heads=(Elemwise,),
    measure=UNDER_EXTREMUM,
    doc="""A maximum (minimum) of an increasing transform is the transform of the maximum (minimum).

    Before::

        min(log(b))            # b iid on (0, 1): Logprob method not implemented for Min

    After::

        log(min(b))            # an order statistic, transformed

    ``f`` any Elemwise of the reduced tensor and constants known to
    increase on its values (:func:`graph_bridge.monotonicity.direction`),
    the reduction over all axes (a decreasing ``f`` is left: PyTensor's
    ``min`` is ``-max(-u)``).  Measure: the Elemwise nodes under a
    reduction drop by one.  Backward: ``f(max(u))`` as ``max(f(u))``.
    """,
)

square_completedo = computed_rule(
    "square_completedo",
    rewrites.quadratic_form,
    rewrites.completed_square_as_quadratic,
    heads=(Elemwise,),
    rhs_heads=(Elemwise,),
    measure=READS,
    doc="""A quadratic in one variable is its completed square.

    Before::

        x + x ** 2                     # reads x twice: not implemented for Add

    After::

        1.0 * sqr(x + 0.5) - 0.25      # a square of a shifted variable, scaled and shifted

    ``a*x + b*x**2 + c`` (the square as ``sqr``, ``** 2`` or ``x * x``;
    ``a``, ``b`` nonzero constants).  Equal up to rounding.  Measure: ``x``
    is read once.  Backward: ``b * sqr(x + h) + k`` as the quadratic.
    """,
)

elements_extremumo = computed_rule(
    "elements_extremumo",
    rewrites.elements_extremum,
    rewrites.extremum_as_elements,
    heads=(Elemwise,),
    rhs_heads=(CAReduce,),
    measure=READS,
    doc="""A maximum (minimum) of a vector's elements, one by one, is the vector's ``max`` (``min``).

    Before::

        maximum(maximum(v[0], v[1]), v[2])   # not implemented for Maximum

    After::

        max(v)                                # an order statistic of iid draws (pymc #6769)

    Distinct constant indices, in any order; of a slice, or of the vector
    indexed by them, where they are not all of it.  Measure: the reads drop
    to one.  Backward: ``max(v)`` of static length ``2..MAX_UNROLLED`` as
    its elements' maximum.
    """,
)

stacked_elementso = computed_rule(
    "stacked_elementso",
    rewrites.stacked_elements,
    rewrites.elements_stacked,
    heads=(MakeVector,),
    rhs_heads=None,
    measure=READS,
    doc="""A stack of every element of a vector, in order, is the vector.

    Before::

        stack([v[0], v[1], v[2]])       # v of static length 3: not implemented for MakeVector

    After::

        v

    Measure: the reads drop to one.  Backward: a random variable's vector
    draw of static length ``2..MAX_UNROLLED`` as the stack of its elements.
    """,
)

masked_set_as_switcho = computed_rule(
    "masked_set_as_switcho",
    rewrites.masked_set_as_switch,
    rewrites.switch_as_masked_set,
    heads=(AdvancedIncSubtensor,),
    rhs_heads=(Elemwise,),
    measure=count(AdvancedIncSubtensor),
    doc="""A write of a scalar where a boolean mask holds is a switch (aeppl #177).

    Before::

        x[x > 1].set(1)            # set_subtensor: not implemented for AdvancedIncSubtensor

    After::

        switch(x > 1, 1, x)        # a censoring switch (then minimum(x, 1))

    The mask boolean, of ``x``'s shape; the value one scalar.  Measure:
    the AdvancedIncSubtensors drop by one.  Backward: the switch as the
    masked write.
    """,
)

transform_into_censoringo = computed_rule(
    "transform_into_censoringo",
    rewrites.transform_into_censoring,
    rewrites.censoring_of_transforms,
    heads=(Elemwise,),
    rhs_heads=(Elemwise,),
    measure=elemwise_above(rewrites.is_censoring, "Clip/Maximum/Minimum"),
    doc="""A monotone transform of a censored variable is a censored transform (pymc #8363).

    Before::

        2 * maximum(x, 0)              # PyMC adds -log(2) at the censored point 0
        sqrt(clip(e, 1, 4))            # e a positive variable (an exponential draw)
        1 / maximum(e, 2)

    After::

        maximum(x * 2, 0 * 2)
        clip(sqrt(e), sqrt(1), sqrt(4))
        minimum(1 / e, 1 / 2)          # decreasing: the censoring flips

    ``f`` is any Elemwise of the censored variable and constants whose
    direction is known on the values of ``x`` and of the bounds
    (:func:`graph_bridge.monotonicity.direction` over
    :func:`graph_bridge.intervals.interval_of`, a random variable's
    support included): an increasing ``f`` runs on each input, a
    decreasing one swaps ``maximum``/``minimum`` and a ``clip``'s bounds
    (where ``lo <= hi`` is known).  Where the direction is unknown
    (``sqrt`` of a normal draw, ``x * c`` for a ``c`` of unknown sign) the
    graph is left as it is.  A choice (``f`` runs on the bounds too).
    Measure: the pairs (censoring, Elemwise above it) drop by one.
    Backward: a censoring whose inputs are all the same ``f`` of something.
    """,
)

#: Rules that make a graph costlier (a transform moved inside a censoring computes it on the bounds
#: too): for saturation only, as ``RULESETS["choices"]``.
MEASURABLE_CHOICES: tuple = (exp_of_clipo, clip_of_mul_posto, clip_of_add_consto, transform_into_censoringo)

#: The ``measurable`` rule set (``RULESETS["measurable"]``), choices included: what
#: :func:`relations.pymc.logp` saturates a graph with.
MEASURABLE_RULES: tuple = (
    add_selfo,
    mul_selfo,
    sub_scaled_selfo,
    sub_self_scaledo,
    add_scaled_selfo,
    exp_mul_expo,
    exp_div_expo,
    exp_powo,
    sum_of_scaledo,
    sum_of_scaled_lefto,
    switch_as_maximumo,
    switch_as_minimumo,
    switch_as_clipo,
    switch_as_clip_geo,
    switch_ge_as_maximumo,
    switch_gt_as_maximumo,
    switch_le_as_minimumo,
    switch_lt_as_minimumo,
    switch_lt_keep_as_minimumo,
    switch_gt_keep_as_maximumo,
    switch_swappedo,
    mixture_as_switcho,
    affine_collecto,
    power_collecto,
    slices_sumo,
    partial_sums_as_cumsumo,
    sum_shiftedo,
    transpose_joino,
    dimshuffle.dimshuffle_composeo,  # the ExpandDims a transpose of a stack leaves, composed
    reshape_as_dimso,
    writes_as_joino,
    index_mixture_as_switcho,
    masked_set_as_switcho,
    elements_extremumo,
    stacked_elementso,
    square_completedo,
    transform_out_of_extremumo,
    *SWITCHES.rules,
    *ABSOLUTE.rules,
    *LINKS.rules,
    *MEASURABLE_CHOICES,
)
