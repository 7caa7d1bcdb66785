"""The stabilizing compile pass: PyTensor's stabilizers matched on every spelling of a region.

PyTensor's ``stabilize`` rewrites (``local_log1p``, ``softplus``,
``logdiffexp_to_log1mexpdiff``, ``local_softmax_stabilize``, ...) each
match one spelling; a broadcast, a ``mul(-1, .)`` or a division by an
``exp`` of a negation between the ``log`` and the ``exp`` hides it
(pytensor #1476, #2328, #2247; issue 35's corpus, ``tests/numerics_corpus.py``).
This pass, at optdb position :data:`POSITION` (after ``canonicalize``,
right before PyTensor's ``stabilize``), finds the **regions** around the
heads stabilization concerns (:data:`HEADS`: ``log``, ``log1p``, ``exp``,
``expm1``, ``sigmoid``, ``softplus``, ``erf``/``erfc``, ``gamma``,
``softmax``, ...: :func:`region_roots`, :data:`REGION_DEPTH` levels below
each root, deeper inputs kept as leaves) that hold a spelling the stock
stabilizers can miss (:func:`hazard`: a broadcast or a cast over a head,
``1 / exp(-x)``, a product of exponentials, ``log(gamma(x))``, ...; the
spellings they match as they are, and a PyMC model's ``(x - mu) /
exp(s)``, are left to them).  It saturates copies of those regions, within
:data:`LIMITS`, with :func:`pass_rules` (:data:`STABILIZE_RULES`:
``RULESETS["algebra"]`` but four converses; and the numerics theory's
:data:`THEORY_ENTRIES`) and PyTensor's own ``stabilize`` and ``specialize``
node rewriters that concern numerics (:data:`NUMERIC_REWRITERS`, run on
the e-graph's forms by :mod:`relations.saturation.foreign`), and extracts
each root under :func:`stability_cost`: first the number of e-nodes that
are :func:`unstable` (``exp``, ``log``, ``gamma``, ``erfc``, ``sinh``, ``cosh`` over data: the
Ops that overflow, underflow or lose the digits where a stable Op does
not), then the measured cost.  A root is replaced only where that count
(:func:`instability`) strictly drops, so the pass never trades a stable
Op for a cheaper unstable spelling, and a graph without a region (or
where nothing is gained) is left as it came.  Each replacement's reason
is ``relational_stabilize``, and its new nodes carry the root's stack
trace.

Its cancellation tier takes the differences that lose digits with no
unstable Op (``softplus(x) - x``, ``1 - cos(x)``, ``sqrt(x + 1) -
sqrt(x)``): :func:`cancellation_roots` finds the cancellation sites
(:mod:`relations.saturation.cancellation`) with a term of
:data:`TIER_FUNCTIONS`; those a numpy screen sees lose digits
(float64 against extended precision) are saturated with
:func:`tier_rules` and extracted with the fewest sites among the forms
of fewest unstable Ops; a form replaces its root where measured more
accurate against mpmath (worse at no point, better on average) on the grid
of magnitudes and sampled points.

The measured stage (:func:`measured`, :class:`MeasuredRewriter`, tag
``relational_measured``, opt in: ``relations.ACCURATE_TAGS``) runs before
``canonicalize`` (:data:`MEASURED_POSITION`) on every region headed by a
function the numerics theory knows (:data:`MEASURED_HEADS`): numpy screens,
then ``relations.stabilize`` (extraction by measured error, regimes, on a
critical sub-expression too) on the regions that lose digits as PyTensor
compiles them; outcomes kept per region structure, in memory and on disk
(:data:`STORE`).

Before/After (``log(1 + broadcast_to(exp(x), (3, n)))``, x = 800)::

    Log(Add([[1.]], Alloc(Exp(x), 3, n)))    ->   Alloc(Softplus(x), 3, n)
    inf                                            800.0
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor import config
from pytensor.compile import optdb
from pytensor.compile.mode import Mode
from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.graph.features import ReplaceValidate
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.replace import clone_replace
from pytensor.graph.rewriting.basic import GraphRewriter, copy_stack_trace
from pytensor.graph.traversal import explicit_graph_inputs
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import CAReduce, DimShuffle
from pytensor.tensor.math import Dot, Sum
from pytensor.tensor.shape import Reshape, SpecifyShape
from pytensor.tensor.special import LogSoftmax, Softmax
from pytensor.tensor.subtensor import AdvancedSubtensor, Subtensor

from graph_bridge.exact import NotExact
from graph_bridge.monotonicity import scalar_constant
from graph_bridge.nodes import is_left_padding, scalar_op_of, summed, unshuffled
from graph_bridge.traverse import owned_variables
from graph_bridge.wide_float import Screened
from relations.compile.outcome_store import OutcomeStore
from relations.compile.pieces import PIECEWISE
from relations.rules.algebra import ALGEBRA_RULES
from relations.rules.algebra.algebra_goals import is_length, scalar_form, widened
from relations.rules.algebra.sum_goals import all_ones
from relations.rules.dimshuffle import expand_dims_through_elemwiseo
from relations.saturation.cancellation import Sites, cancellation_cost, cancellation_sites, stripped, terms
from relations.saturation.costs import shape_finder
from relations.saturation.egraph import EGraph, Limits
from relations.saturation.engine.runner import Limits as RunnerLimits
from relations.saturation.stability import instability, stability_cost

__all__ = [
    "HEADS",
    "MEASURED_HEADS",
    "LIMITS",
    "MEASURED_NAME",
    "MeasuredBudget",
    "MeasuredRewriter",
    "NAME",
    "POSITION",
    "REGION_DEPTH",
    "NUMERIC_REWRITERS",
    "REWRITERS",
    "STABILIZE_RULES",
    "StabilizingRewriter",
    "THEORY_ENTRIES",
    "TIER_ENTRIES",
    "TIER_FUNCTIONS",
    "cancellation_roots",
    "hazard",
    "head_roots",
    "measured",
    "numeric_rewriters",
    "pass_rules",
    "region_roots",
    "clear_outcomes",
    "register_measured",
    "register_stabilizing",
    "stabilized",
    "tier_rules",
]

#: The optdb name (and tag) of the pass; ``relations.mode()`` includes it by default.
NAME = "relational_stabilize"
#: The optdb name (and tag) of the measured stage (:class:`MeasuredRewriter`); not in the default mode.
MEASURED_NAME = "relational_measured"
#: optdb position: after ``canonicalize`` (1), right before PyTensor's ``stabilize`` (1.5).
POSITION = 1.49
#: optdb position of the measured stage: after the ``relational`` pass (0.5) and its lowering (0.55), before
#: ``useless`` (0.6) and ``canonicalize`` (1), so it measures the graph as the user spelled it (what
#: :func:`relations.stabilize` is given); canonicalize's n-ary sums (``sigmoid(x) - (1 - sigmoid(x))`` as
#: ``-1 + sigmoid(x) + sigmoid(x)``) hide the spellings the theory's identities relate.
MEASURED_POSITION = 0.57
#: PyTensor's rewrite databases whose node rewriters run in the e-graph (those of :data:`NUMERIC_REWRITERS`).
REWRITERS = ("stabilize", "specialize")
#: The node rewriters of :data:`REWRITERS` that concern numerics (log, exp, sigmoid, softmax, erf, gamma
#: forms and the sums and constants around them); the others (BLAS, linear algebra, indexing) only cost
#: time in the e-graph: ``local_usmm`` alone took 0.6 s on ``log(1 - 1/exp(-x))``.
NUMERIC_REWRITERS = frozenset({
    "constant_folding", "local_1msigmoid", "local_div_exp_to_mul_exp", "local_erf_minus_one",
    "local_erf_neg_minus_one", "local_exp_log", "local_exp_log_nan_switch", "local_exp_log_softmax",
    "local_exp_over_1_plus_exp", "local_expm1", "local_grad_log_erfc_neg", "local_inv_odds_sigmoid",
    "local_log1p", "local_log1p_plusminus_exp", "local_log_add_exp", "local_log_div", "local_log_erfc",
    "local_log_iv", "local_log_kv", "local_log_prod_to_sum_log", "local_log_softmax_from_logsumexp",
    "local_log_sqrt_sqr", "local_log_sum_exp", "local_logsoftmax", "local_mul_exp_to_exp_add",
    "local_neg_div_neg", "local_odds_sigmoid", "local_one_minus_erf", "local_one_minus_erfc",
    "local_one_plus_erf", "local_reciprocal_1_plus_exp", "local_reduce_broadcastable",
    "local_careduce_of_alloc", "local_sigm_times_exp", "local_sigmoid_logit", "local_softmax_stabilize",
    "local_subtensor_of_softmax", "local_sum_of_neg_to_neg_of_sum", "local_sum_prod_of_mul_or_div",
    "log1msigm_to_softplus", "log1p_neg_sigmoid", "logdiffexp_to_log1mexpdiff", "logmexpm1_to_log1mexp",
    "logsigm_to_softplus", "local_dimshuffle_lift",
})
#: Bounds of one pass's saturation (every region of a graph together): e-nodes and iterations, no seconds, so
#: a graph compiles alike under any load (a 0.3 s bound left ``log(1 + broadcast_to(exp(x)))`` unrepaired at a
#: load of 8 on 2 cores).  The corpus's 244 spellings take a median of 0.2 ms and at most 0.19 s here (the
#: broadcast ones are the slowest: the lifts add an e-node per operand); the PyMC models' regions (at most
#: one per model) 5-40 ms.
LIMITS = Limits(nodes=4_000, iterations=6, seconds=None, growth=None)
#: The algebra rules the pass saturates with: ``RULESETS["algebra"]`` but the converses the graphs it
#: sees (canonicalized: ``mul(-1, .)`` for negations, ``true_div`` for divisions) do not need
#: (``neg -> mul(-1, .)``, ``reciprocal -> 1 / .``, ``exp(-a) -> 1 / exp(a)``, ``a - b -> a + -b``)
#: and the commutativity and associativity of add and mul (the stabilizers read operands in any
#: order, and the set holds both orders where one is needed): each e-node costs every rule at
#: every iteration.
STABILIZE_RULES: tuple = tuple(
    r
    for r in ALGEBRA_RULES
    if r.__name__
    not in {
        "mul_minus_one_nego_rev", "one_div_reciprocalo_rev", "reciprocal_exp_nego_rev", "sub_add_nego",
        "add_commuteo", "mul_commuteo", "add_associateo", "mul_associateo",
    }
)
#: Entries of the numerics theory (:mod:`relations.rules.numerics`) the pass saturates with too: each one's
#: right side has fewer unstable Ops (:func:`relations.saturation.stability.unstable`) and is at least as
#: accurate at every input (``log(expm1(x)) -> x + log1mexp(-x)``, ``exp(x) - exp(-x) -> 2 * sinh(x)``, the
#: quotients that are ``tanh`` (``expm1(x) / (1 + exp(x)) -> tanh(x / 2)`` among them), ``log(a * b) ->
#: log(a) + log(b)`` with one factor positive: the log of a product of sigmoids; ``a*b - a*c -> a * (b -
#: c)``, which takes a constant out of ``0.5 * exp(x) - 0.5 * exp(-x)``; ``a * (b * c) -> (a * b) * c`` for
#: constants ``a``, ``b`` with ``1 * a -> a``: ``0.5 * (2 * cosh(x))`` is ``cosh(x)``; and
#: ``log_erfc_regimes`` and ``log_cosh_regimes``, regime forms shipped as identities, each branch accurate on its
#: side; ``log(tanh(x)) -> log1mexp(-2x) - softplus(-2x)``, ``log((1 - x) / (1 + x)) -> -2 atanh(x)``, and the
#: spellings that reach the regime forms: ``log1p(x)`` as ``log(1 + x)``, ``x*x*x`` as ``x**3``, ``log(1 - p)``
#: as ``log1p(-p)``).  The other regime forms, which the count cannot choose, are the regime step's
#: (:data:`REGIME_ENTRIES`).  A form holding more ``exp`` of a sum than its region is measured before it
#: replaces it (:func:`_exp_safe`): ``exp_weight`` and ``exp_add_exp`` make one of ``c / (exp(x) + exp(-x))``.
THEORY_ENTRIES: tuple[str, ...] = (
    "log_expm1", "log_sinh", "log_prod", "sinh_undef", "cosh_undef", "tanh_def_a_rev", "tanh_expm1_rev",
    "quot_tanh", "tanh_half_expm1", "distribute_lft_out_sub", "log_erfc_regimes", "log_cosh_regimes",
    "distribute_lft_in_rev", "associate_mul_constants", "mul_lft_identity", "log_add_exp_regimes",
    "log_add_exp_regimes_r", "log_sub_exp_regimes", "exp_weight", "exp_add_exp", "log_shift_diff_regimes",
    "log_shift_ratio_regimes", "log_pow_regimes", "log1p_def_rev",
    "unpow3_rev", "cube_mult_rev", "log_tanh", "log_atanh", "log_atanh_neg", "log1m_pow", "log1m_pow_regimes",
    "log1p_def_neg", "log1m_tanh_sqr_regimes", "sqr_pow2_rev", "sqr_def_rev", "log2_add_exp2", "log2_one_add_exp2",
    "exp2_pow_rev", "log_beta_regimes", "log_mul_gamma_regimes", "log_pow1p_regimes", "log1m_pow1p_regimes",
    "log1m_tanh_regimes", "log_weighted_exps_regimes",
)
#: DimShuffle rules the pass saturates with too: the axes every input of an Elemwise adds moved above it
#: (:func:`relations.rules.dimshuffle.expand_dims_through_elemwiseo`), so a softmax with a broadcast between
#: its ``exp`` and its sum (``exp(x[None]) / sum(exp(x), 1, keepdims=True)[None]``, a :func:`hazard`) holds
#: the form ``local_softmax_stabilize`` reads.
PASS_LIFTS: tuple = (expand_dims_through_elemwiseo,)
_PASS_RULES: list[tuple] = []


def _theory(names: Sequence[str]) -> tuple:
    """The numerics theory's entries of these names (the theory is imported at the first region, not with
    ``relations``)."""
    from relations.rules.numerics import NUMERICS_RULES

    by_name = {r.__name__: r for r in NUMERICS_RULES}
    return tuple(by_name[n] for n in names)


def pass_rules() -> tuple:
    """The rules the pass saturates with: :data:`STABILIZE_RULES`, :data:`PASS_LIFTS` and the
    :data:`THEORY_ENTRIES`."""
    if not _PASS_RULES:
        _PASS_RULES.append(STABILIZE_RULES + PASS_LIFTS + _theory(THEORY_ENTRIES))
    return _PASS_RULES[0]


#: Points drawn as Herbie draws (besides the grid of magnitudes) a form with fewer cancellation sites is measured
#: on; a region of more than :data:`TIER_NODES` nodes, or not elementwise in its inputs, is not measured (kept).
TIER_POINTS = 16
TIER_NODES = 40
#: Points a cancellation root's region is screened on in numpy (:func:`_loses_digits`), besides the grid.
TIER_SCREEN = 8
#: Levels below a region root the e-graph sees; deeper inputs are leaves.
REGION_DEPTH = 4
#: The measured stage: a region whose mean error on this many sampled points exceeds this many bits
#: is given to ``relations.stabilize`` with these bounds.
SCREEN_POINTS = 12
SCREEN_BITS = 1.0
#: Bits of error at one point that say its value is lost (Herbie counts 64 for an infinity where the value
#: is finite): the mpmath screen flags a region of several inputs with one such point.
LOST_BITS = 60.0
#: Draws of :data:`SCREEN_POINTS` points at most in that screen: a region real on few inputs (a Dirichlet-
#: multinomial's ``gammaln`` of sums) is measured on the points those draws give, not drawn for 16 times
#: (45 s of mpmath on that model's region, where it was found accurate).
SCREEN_TRIES = 2
#: The cheap screen before it (:func:`_wide_flag`): points, and the mean bits between float64 and extended
#: precision above which a region is measured; a region computing more than :data:`SCREEN_ELEMENTS`
#: elements per point (a model's data, a GP's 20 x 20 kernel) is not measured with mpmath: the screen took
#: minutes on them.
WIDE_POINTS = 16
WIDE_BITS = 1.0
SCREEN_ELEMENTS = 256
#: PyTensor's rewrite databases :func:`_stock_form` applies to a flagged region before measuring it, and the
#: fast stabilizing pass (:data:`NAME`), which runs after the stage in the modes that include both.
STOCK_REWRITES = ("canonicalize", "stabilize", "specialize", NAME)
#: The saturation bounds of ``relations.stabilize`` in the measured stage: e-nodes and iterations, no seconds,
#: so a region's outcome is the same under any load.
PASS_LIMITS = RunnerLimits(nodes=3_000, iterations=8, seconds=None)
#: The regions the measured stage measures per graph (:class:`MeasuredBudget`), cached ones included.
MEASURED_REGIONS = 4
#: How the measured stage compiles a region to measure it: PyTensor's own rewrites (FAST_RUN's, without
#: this stage) and the fast stabilizing pass, run by the Python linker (no Numba compile for a measurement).
#: The stage runs first: a form it finds must beat what the pass makes of the spelling (``log(gamma(x + y))
#: - log(gamma(x))``, which the pass turns into ``gammaln``s, exact; a form over ``gamma`` measured better
#: than PyTensor's alone overflowed at x = 1e5).
#: Without Elemwise fusion: the Python linker runs a fused ``Composite`` through its scalar Ops' ``impl``, and
#: ``Reciprocal.impl`` is ``np.float32(1.0) / x``, float32 precision for a float64 under NumPy 2's promotion
#: (pytensor#2430; the C and Numba kernels, and the unfused ``np.reciprocal``, are exact): a series in ``1/x``
#: measured 26 bits off where it is exact.  Fusion does not change values otherwise.
STOCK = Mode(linker="py", optimizer="fast_run").including(NAME).excluding("fusion")

#: Scalar ops the pass's regions are built around (and a region's softmax Ops, :data:`HEAD_OPS`).
HEADS: tuple[type, ...] = (
    ps.Log, ps.Log1p, ps.Exp, ps.Expm1, ps.Sigmoid, ps.Softplus, ps.Erf, ps.Erfc, ps.Erfcx,
    ps.Gamma, ps.GammaLn, ps.Log1mexp, ps.Sinh, ps.Cosh, ps.Log2, ps.Exp2,
)
HEAD_OPS: tuple[type, ...] = (Softmax, LogSoftmax)
#: The measured stage's heads: :data:`HEADS` and the other functions the numerics theory holds identities
#: of (square roots, trigonometric functions, ``tanh``, the inverse hyperbolic and error functions:
#: ``sqrt(x + 1) - sqrt(x)``, ``1 - cos(x)``, ``asinh(x)``, ``erfinv(2 p - 1)``).  Its numpy screen passes the
#: accurate ones at a millisecond each; the fast pass keeps :data:`HEADS`, the functions PyTensor's stabilizers
#: and its detectors (:func:`hazard`) concern.  And the piecewise ones (``abs``, ``sign``, ``maximum``,
#: ``minimum``): a region reaches through them, and its pieces are its regimes (:mod:`relations.compile.pieces`).
MEASURED_HEADS: tuple[type, ...] = (
    *HEADS, ps.Sqrt, ps.Sin, ps.Cos, ps.Tan, ps.Tanh, ps.ArcSin, ps.ArcCos, ps.ArcTan,
    ps.ArcSinh, ps.ArcCosh, ps.ArcTanh, ps.Erfinv, ps.Erfcinv, *PIECEWISE,
)
#: Scalar ops where an arithmetic region may cancel (:func:`_cancels_within`): the measured stage screens a region
#: of arithmetic alone, with no head, where it holds one.
CANCELLING: tuple[type, ...] = (ps.Add, ps.Sub)
#: ``expm1`` and the hyperbolic functions that overflow (:func:`_hyperbolic`'s spellings read them).
HYPERBOLIC: tuple[type, ...] = (ps.Expm1, ps.Sinh, ps.Cosh)
#: Scalar ops a region reaches through (the algebra's and the stabilizers' operands).
THROUGH: tuple[type, ...] = (
    ps.Add, ps.Sub, ps.Mul, ps.Neg, ps.TrueDiv, ps.Reciprocal, ps.Pow, ps.Sqr, ps.Cast,
)
#: Op classes a region reaches through besides those Elemwise.
THROUGH_OPS: tuple[type, ...] = (Alloc, CAReduce, DimShuffle, Subtensor, AdvancedSubtensor, Dot, Reshape, SpecifyShape)


_NUMERIC: list[Any] = []


def numeric_rewriters() -> tuple[Any, ...]:
    """The rewriters of :data:`REWRITERS` named in :data:`NUMERIC_REWRITERS` (resolved once)."""
    if not _NUMERIC:
        from relations.saturation.foreign import LEFT_OUT, resolve_rewriters

        found = [r for r in resolve_rewriters(REWRITERS) if r.name in NUMERIC_REWRITERS]
        names = {r.name for r in found}
        # a database leaves out those that grow an e-graph without end (foreign.LEFT_OUT); within the
        # pass's few iterations over small regions ``local_dimshuffle_lift`` is bounded, and it turns
        # ``ExpandDims(exp(y))`` into ``exp(ExpandDims(y))``, the spelling ``local_log_add_exp`` reads
        # (a name another PyTensor version does not register is simply absent)
        found += [r for n in sorted((NUMERIC_REWRITERS - names) & LEFT_OUT) for r in resolve_rewriters(n)]
        _NUMERIC.append(tuple(found))
    return _NUMERIC[0]


_KINDS: dict[tuple[tuple[type, ...], type], bool] = {}


def _of_kind(op: Any, kinds: tuple[type, ...]) -> bool:
    """``isinstance(op, kinds)``, memoized per Op class (the region walks ask it of every node of a model)."""
    key = (kinds, type(op))
    found = _KINDS.get(key)
    if found is None:
        found = _KINDS[key] = isinstance(op, kinds)
    return found


def _is_head(node: Apply | None, heads: tuple[type, ...] = HEADS) -> bool:
    return node is not None and (_of_kind(scalar_op_of(node), heads) or _of_kind(node.op, HEAD_OPS))


def _is_through(node: Apply | None) -> bool:
    return node is not None and (_of_kind(scalar_op_of(node), THROUGH) or _of_kind(node.op, THROUGH_OPS))


def _below_has_head(v: Variable, depth: int, skip_root: bool, heads: tuple[type, ...] = HEADS) -> bool:
    """Whether a head is within ``depth`` levels below ``v`` (through :data:`THROUGH` nodes)."""
    stack = [(v, 0)]
    seen: set[Variable] = set()
    while stack:
        u, d = stack.pop()
        node = u.owner
        if node is None or u in seen:
            continue
        seen.add(u)
        if _is_head(node, heads) and not (skip_root and u is v):
            return True
        if d < depth and (_is_through(node) or (u is v and _is_head(node, heads))):
            stack.extend((i, d + 1) for i in node.inputs)
    return False


def region_roots(outputs: Sequence[Variable]) -> list[Variable]:
    """The variables whose regions the pass saturates.

    A head or an arithmetic node (:data:`THROUGH`) with a head within
    :data:`REGION_DEPTH` levels below it through arithmetic, broadcast,
    reduction and indexing nodes (``log(1 + exp(x))``, ``exp(x) /
    sum(exp(x))``, ``exp(x) - 1``), or a log of a shifted ratio
    (``log((x + 1) / x)``) or of a power, whose region holds a spelling PyTensor's
    stabilizers can miss (:func:`hazard`); of those, the ones inside no
    other one's region (whose region covers them).  The spellings the
    stock stabilizers match as they are (``log(1 + exp(x))`` itself) are
    left to them: saturating costs compile time.
    """
    found: list[Variable] = []
    for out in owned_variables(list(outputs)):
        node = out.owner
        if len(node.outputs) != 1 or not (_is_head(node) or isinstance(scalar_op_of(node), THROUGH)):
            continue
        if _below_has_head(out, REGION_DEPTH, skip_root=True) or _headless_log_root(out):
            found.append(out)
    roots = set(found)
    covered: set[Variable] = set()
    regions = {r: _region(r) for r in found}
    for r in found:
        covered.update(u for u in regions[r] if u is not r and u in roots)
    return [r for r in found if r not in covered and _worth_saturating(r, regions[r])]


#: Scalar ops of a region root that take a log of what is below (``log(1 + exp(x))``, ``log1p(-exp(x))``).
OUTER: tuple[type, ...] = (ps.Log, ps.Log1p)


def _head_reads(region: Sequence[Variable]) -> int:
    """The number of times a head of ``region`` is read by a node of it."""
    inside = set(region)
    return sum(1 for u in region for i in u.owner.inputs if i in inside and _is_head(i.owner))


def _worth_saturating(root: Variable, region: Sequence[Variable]) -> bool:
    """A ``log``/``log1p`` over a :func:`hazard` (the root or a node of the region); or an arithmetic root
    that is one itself (judged not under a log), or that
    reads heads twice (``exp(x) / (1 + broadcast_to(exp(x)))``) over one.  A division by ``exp(s)``
    alone (a scale parameter of a PyMC model) reads one head once: it is left to PyTensor."""
    if isinstance(scalar_op_of(root.owner), OUTER):
        return any(hazard(u) for u in region)
    logs = [u for u in region if isinstance(scalar_op_of(u.owner), OUTER)]
    if any(hazard(w) for u in logs for w in _region(u)):  # a log inside (``-log1p(1 / exp(x))``)
        return True
    return (hazard(root, False) or _head_reads(region) >= 2) and any(hazard(u, False) for u in region)


def _op_of(v: Variable) -> Any:
    """The scalar op of ``v``'s Elemwise, read through an expanding DimShuffle and a product with ones (a
    broadcast: ``cosh(x) * ones((2, 1))``)."""
    node = v.owner
    if node is not None and isinstance(node.op, DimShuffle):
        node = node.inputs[0].owner
    op = scalar_op_of(node)
    if isinstance(op, ps.Mul) and len(node.inputs) == 2:
        ones = [all_ones(i) for i in node.inputs]
        if ones[0] != ones[1]:
            return _op_of(node.inputs[ones.index(False)])
    return op


def _is_minus_one(v: Variable) -> bool:
    from pytensor.tensor.basic import get_underlying_scalar_constant_value
    from pytensor.tensor.exceptions import NotScalarConstantError

    try:
        return float(get_underlying_scalar_constant_value(v, only_process_constants=True)) == -1.0
    except (NotScalarConstantError, TypeError, ValueError):
        return False


def _negated_exp(v: Variable) -> bool:
    """``-exp(a)`` spelled ``mul(-1, exp(a))`` or ``neg(exp(a))``."""
    node = v.owner
    op = scalar_op_of(node)
    if isinstance(op, ps.Neg):
        return isinstance(_op_of(node.inputs[0]), ps.Exp)
    if isinstance(op, ps.Mul) and len(node.inputs) == 2:
        return any(_is_minus_one(i) for i in node.inputs) and any(isinstance(_op_of(i), ps.Exp) for i in node.inputs)
    return False


def hazard(v: Variable, under_log: bool = True) -> bool:
    """Whether ``v``'s node is a spelling PyTensor's stabilizers can miss (the kinds of ``tests/numerics_corpus.py``).

    A broadcast (``Alloc``) or a cast over a head; a head divided by an
    ``exp`` (``erfc(x) / exp(-x**2)``), or a constant under a log (``log(1 + 1
    / exp(-x))``; not a PyMC model's ``(x - mu) / exp(s)`` or ``-0.5 /
    exp(s)``), a reciprocal or power -1 of one; a
    product of exponentials (under a ``log``) or of ``exp`` and ``erfc``;
    ``log`` of ``gamma`` (pytensor #1181); a ``log`` of a sum holding
    ``mul(-1, exp(.))`` (pytensor #1476) or a sum of exponentials
    (``log(1 + sum(exp(x)))``); a ``log`` of a weighted sum of exponentials,
    or of a reshaped softmax; a ``dot`` with ones (a sum), or of exponentials
    with one column (a weighted sum: a mixture's weights); a hyperbolic
    function in disguise (:func:`_hyperbolic`); a negated ``1 - exp(x)``; a
    division by a length (a mean) under a ``log``; an ``exp`` and a ``-1``
    among three terms or more (``exp(x) - 1 + y``); a ``log`` of a product
    holding ``c + exp(a)`` (a softplus) or an ``erfc`` (the normal log-CDF,
    ``log(0.5 * erfc(-x / sqrt(2)))``, which ``local_log_erfc`` does not read); a ``log1p`` of a negated
    ``exp`` (``log1mexp``).  ``under_log``: the region's root is a ``log``.
    """
    node = v.owner
    op = scalar_op_of(node)
    ins = node.inputs
    if _hyperbolic(v):
        return True
    if isinstance(node.op, Alloc) or isinstance(op, ps.Cast):
        return _below_has_head(ins[0], REGION_DEPTH - 1, skip_root=False)
    if isinstance(op, ps.Reciprocal):
        return isinstance(_op_of(ins[0]), (ps.Exp, ps.Add))
    if isinstance(op, ps.TrueDiv):
        if under_log and is_length(ins[1]):  # a mean
            return True
        num = ins[0]
        if _broadcast_softmax(num, ins[1]) or _scaled_softmax(num, ins[1]):
            return True
        # ``1 / exp(-x)`` under a log, ``erfc(x) / exp(-x**2)``, ``exp(x) / (3 * mean(exp(x)))``; not a PyMC
        # model's ``(x - mu) / exp(s)``, nor its ``-0.5 / exp(s)`` alone (``c * exp(-s)`` is no better)
        if not (_is_head(num.owner) or (under_log and isinstance(scalar_form(num), Constant))):
            return False
        return isinstance(_op_of(ins[1]), (ps.Exp, ps.Mul, ps.Cast))
    if isinstance(op, ps.Pow):
        return _is_minus_one(ins[1])
    if isinstance(op, ps.Sub) and isinstance(_op_of(ins[1]), ps.Log):
        return _shifted_log_difference(*ins)
    if isinstance(op, ps.Add) and len(ins) >= 3:  # ``exp(x) - 1 + y``: an expm1 among more terms
        return any(scalar_constant(i) == -1.0 for i in ins) and any(isinstance(_op_of(i), ps.Exp) for i in ins)
    if isinstance(op, ps.Mul):
        kinds = [_op_of(i) for i in ins]
        exps = sum(isinstance(k, ps.Exp) for k in kinds)
        if (exps >= 2 and under_log) or (exps and any(isinstance(k, ps.Erfc) for k in kinds)):
            return True
        # ``-(1 - exp(x))``; not ``-1 * y * sigmoid(z) * (1 - sigmoid(z))`` (an ordered logistic model's
        # gradient, which PyTensor's sigmoid rewrites take)
        return any(_is_minus_one(i) for i in ins) and any(
            isinstance(k, ps.Sub) and any(isinstance(_op_of(j), ps.Exp) for j in i.owner.inputs)
            for k, i in zip(kinds, ins)
        )
    if isinstance(node.op, Dot):  # a sum (ones) or a weighted sum (one column) of exponentials
        return any(i.type.ndim == 2 and all_ones(i) for i in ins) or (
            isinstance(_op_of(ins[0]), ps.Exp) and ins[1].type.shape[-1] == 1
        )
    if isinstance(op, ps.Log):
        return _log_hazard(v)
    if isinstance(op, (ps.Log1p, ps.Log2)):  # ``log1p(-exp(-2 * x))``, -inf at tiny x (a log1mexp no stabilizer
        # reads), ``log1p(-tanh(x)**2)``, ``log2(1 + 2**x)`` (JAX's logaddexp2: no stabilizer reads base 2)
        return (isinstance(op, ps.Log1p) and _negated_exp(ins[0])) or _headless_log_root(v)
    return False


def _summed_exp(den: Variable) -> Variable | None:
    """The ``exp(a)`` that ``den``, a DimShuffle of a sum of it (a softmax's denominator), sums; else ``None``."""
    below = unshuffled(den)
    if below is den or below.owner is None or not isinstance(below.owner.op, Sum):
        return None
    e = below.owner.inputs[0]
    return e if isinstance(scalar_op_of(e.owner), ps.Exp) else None


def _broadcast_softmax(num: Variable, den: Variable) -> bool:
    """``num / den`` is a softmax with a broadcast between the ``exp`` and its sum: ``den`` a DimShuffle of a
    sum of ``exp(a)``, ``num`` that ``exp`` under a DimShuffle, or ``exp`` of a DimShuffle of ``a``
    (``exp(x[None]) / sum(exp(x), 1, keepdims=True)[None]``, which ``local_softmax_stabilize`` does not read:
    its numerator is not the summed ``exp`` itself)."""
    e = _summed_exp(den)
    if e is None or e is num:
        return False
    if unshuffled(num) is e:
        return True
    return isinstance(scalar_op_of(num.owner), ps.Exp) and unshuffled(num.owner.inputs[0]) is e.owner.inputs[0]


def _scaled_softmax(num: Variable, den: Variable) -> bool:
    """``num / den`` is a softmax whose numerator is a product with the summed ``exp``: ``den`` a DimShuffle of a
    sum of ``exp(a)``, ``num`` a product one of whose factors is that ``exp`` (or a broadcast of it,
    :func:`_broadcast_softmax`): ``exp(x) / (3 * mean(exp(x), 1, keepdims=True))``, which canonicalize writes
    ``exp(x) * n / 3 / sum(exp(x))`` and ``local_softmax_stabilize`` does not read (its numerator is the
    ``exp`` itself); ``div_mul_righto`` and ``div_mul_lefto`` bring the division to the ``exp``."""
    e = _summed_exp(den)
    if e is None or not isinstance(scalar_op_of(num.owner), ps.Mul):
        return False
    return any(i is e or _broadcast_softmax(i, den) for i in num.owner.inputs)


def _power_like(v: Variable) -> bool:
    """``v`` is a power: ``a ** b``, ``sqr(a)`` or ``a * a``."""
    node = v.owner
    op = scalar_op_of(node)
    return isinstance(op, (ps.Pow, ps.Sqr)) or (isinstance(op, ps.Mul) and len(node.inputs) == 2
                                                 and node.inputs[0] is node.inputs[1])


def _power_of_two(v: Variable) -> bool:
    """``v`` is ``exp2(a)`` or ``2 ** a``."""
    op = _op_of(v)
    return isinstance(op, ps.Exp2) or (isinstance(op, ps.Pow) and scalar_constant(v.owner.inputs[0]) == 2.0)


def _log_hazard(v: Variable) -> bool:
    """:func:`hazard` of a ``log`` node ``v``."""
    ins = v.owner.inputs
    inner = _op_of(ins[0])
    if isinstance(inner, ps.Gamma):
        return True
    if isinstance(inner, ps.Add) and any(_negated_exp(i) or _sum_of(i, ps.Exp) for i in ins[0].owner.inputs):
        return True
    if isinstance(inner, ps.Mul) and any(_exp_plus_constant(i) for i in ins[0].owner.inputs):
        return True  # a softplus inside a product: ``log((1 + exp(-x)) * (1 + exp(-y)))``
    if _headless_log_root(v):
        return True
    if isinstance(inner, ps.Add) and _weighted_exps(ins[0]):
        return True  # ``log(2 * exp(x) + exp(y))``: a weight is an exponent's shift
    if isinstance(inner, (ps.Add, ps.Sub)) and _mixed_exp(ins[0]):
        return True  # an exp and a value of either sign: ``log(exp(x) + y)`` (pytensor #2327)
    if isinstance(inner, (ps.Mul, ps.TrueDiv)) and any(isinstance(_op_of(i), (ps.Erfc, ps.Gamma))
                                                       for i in ins[0].owner.inputs):
        return True  # the normal log-CDF: ``log(0.5 * erfc(-x / sqrt(2)))``, which local_log_erfc does not read;
        # ``log(x * gamma(x))``, ``log(gamma(a) * gamma(b) / gamma(a + b))``
    if isinstance(inner, ps.Mul) and len(ins[0].owner.inputs) == 2:  # an exp factor that over- or underflows on
        # its own: ``log((1 - exp(a)) * exp(b))`` (not a sigmoid's ``exp(x) / (1 + exp(x))``: the stabilizers')
        kinds = [isinstance(_op_of(i), ps.Exp) for i in ins[0].owner.inputs]
        if kinds.count(True) == 1 and isinstance(_op_of(ins[0].owner.inputs[kinds.index(False)]), ps.Sub):
            return True
    return _sum_of(ins[0], ps.Mul) or _reshaped_softmax(ins[0])


def _headless_log_root(v: Variable) -> bool:
    """``v`` is ``log((c + a) / a)``, ``c`` a positive constant, ``log(a ** b)`` (PyMC's ``logpow``),
    ``log(a * a * a)``, ``log(tanh(a))``, ``log((1 - a) / (1 + a))`` or ``log(1 - a ** b)`` (a CDF's complement),
    or ``log1p(-a ** b)`` (``log1p(-tanh(x)**2)``, a Tanh bijector's Jacobian), or ``log2`` of a sum holding a
    power of two (``log2(1 + 2**x)``): a region root with no head below its log."""
    if isinstance(scalar_op_of(v.owner), ps.Log2):
        inner = v.owner.inputs[0]
        return isinstance(_op_of(inner), ps.Add) and any(_power_of_two(i) for i in inner.owner.inputs)
    if isinstance(scalar_op_of(v.owner), ps.Log1p):
        inner = v.owner.inputs[0]
        if isinstance(scalar_op_of(inner.owner), ps.Mul) and len(inner.owner.inputs) == 3:  # ``-1 * t * t``
            k, a, b = sorted(inner.owner.inputs, key=lambda i: scalar_constant(i) is None)
            return scalar_constant(k) == -1.0 and a is b
        core, sign = stripped(inner, 1)  # (not ``log1p(x**2)``, inf from 1.3e154 only: a HalfCauchy prior's
        # ``log1p((exp(t) / 5)**2)`` cost 60-300 ms a model to measure, for nothing)
        return sign == -1 and (_power_like(core) or isinstance(scalar_op_of(core.owner), ps.Tanh))
    if not isinstance(scalar_op_of(v.owner), ps.Log):
        return False
    inner = v.owner.inputs[0]
    op = scalar_op_of(inner.owner)
    if isinstance(op, ps.Tanh):
        return True  # ``log(tanh(x))``, 0 from x = 19
    if isinstance(op, ps.Sub) and scalar_constant(inner.owner.inputs[0]) == 1:  # ``log(1 - (1 - p)**k)``,
        # ``log(1 - tanh(x) * tanh(x))``, ``log(1 - tanh(x))``
        return _power_like(inner.owner.inputs[1]) or isinstance(_op_of(inner.owner.inputs[1]), ps.Tanh)
    if isinstance(op, ps.TrueDiv) and _reflected(*inner.owner.inputs):
        return True  # ``log((1 - x) / (1 + x))``: ``-2 atanh(x)``
    if isinstance(op, ps.Mul) and len(inner.owner.inputs) >= 2 and len(set(inner.owner.inputs)) == 1:
        return True  # a power as a product: ``log(x * x * x)``
    return isinstance(op, ps.Pow) or (isinstance(op, ps.TrueDiv) and _shifted(*inner.owner.inputs))


def _shifted_log_difference(u: Variable, v: Variable) -> bool:
    """``u - v`` is ``log(x + 1) - log(x)`` or ``log1p(x) - log(x)`` (``v`` a log): Herbie's 2log."""
    first = _op_of(u)
    if isinstance(first, ps.Log1p):
        return u.owner.inputs[0] is v.owner.inputs[0]
    return isinstance(first, ps.Log) and _shifted(u.owner.inputs[0], v.owner.inputs[0])


def _reflected(u: Variable, v: Variable) -> bool:
    """``u / v`` is ``(1 - a) / (1 + a)`` or ``(1 + a) / (1 - a)`` (sums in either order)."""
    def parts(w: Variable, kind: type) -> tuple[Any, Variable] | None:
        node = w.owner
        if not isinstance(scalar_op_of(node), kind) or len(node.inputs) != 2:
            return None
        first, second = node.inputs
        if kind is ps.Add and scalar_constant(first) is None:
            first, second = second, first
        return scalar_constant(first), second

    for minus, plus in ((u, v), (v, u)):
        m, p_ = parts(minus, ps.Sub), parts(plus, ps.Add)
        if m is not None and p_ is not None and m[0] == p_[0] == 1.0 and m[1] is p_[1]:
            return True
    return False


def _shifted(u: Variable, v: Variable) -> bool:
    """``u`` is ``c + v`` (either order), ``c`` a positive constant: ``log(x + 1) - log(x)``, Herbie's 2log."""
    node = u.owner
    if not isinstance(scalar_op_of(node), ps.Add) or len(node.inputs) != 2 or v not in node.inputs:
        return False
    other = node.inputs[1 - node.inputs.index(v)]
    return (scalar_constant(other) or 0.0) > 0


def _weighted_exps(v: Variable) -> bool:
    """``v`` is a sum of two exponentials or more, one with a constant weight or with a positive constant term
    (``2 * exp(x) + exp(y)``, ``exp(x) + exp(y) + 1``): a sum of exponentials in disguise."""
    ins = v.owner.inputs
    weighted = [i for i in ins if isinstance(_op_of(i), ps.Mul) and len(i.owner.inputs) == 2
                and any(isinstance(_op_of(j), ps.Exp) for j in i.owner.inputs)]  # (a constant or a data weight)
    constants = [i for i in ins if (scalar_constant(i) or 0.0) > 0]
    exps = [i for i in ins if isinstance(_op_of(i), ps.Exp)]
    return len(weighted) + len(exps) >= 2 and bool(weighted or constants) and (
        len(weighted) + len(exps) + len(constants) == len(ins))


def _mixed_exp(v: Variable) -> bool:
    """``v`` is a sum or difference of two terms, an ``exp`` and a computed value or an input that is no
    exponential (``exp(x) + y``, ``y - exp(x)``): ``log_add_exp_regimes`` and ``log_sub_exp_regimes`` read it."""
    ins = v.owner.inputs
    if len(ins) != 2:
        return False
    kinds = [_op_of(i) for i in ins]
    exps = [isinstance(k, ps.Exp) for k in kinds]
    other = ins[exps.index(False)] if exps.count(True) == 1 else None
    return other is not None and scalar_constant(other) is None and not _negated_exp(other)


def _negation(a: Variable, b: Variable) -> bool:
    """``b`` is ``-a``, spelled ``neg(a)`` or ``mul(-1, a)`` (canonicalize's)."""
    node = b.owner
    op = scalar_op_of(node)
    if isinstance(op, ps.Neg):
        return node.inputs[0] is a
    if not isinstance(op, ps.Mul) or len(node.inputs) != 2:
        return False
    u, w = node.inputs
    return (_is_minus_one(u) and w is a) or (_is_minus_one(w) and u is a)


def _exp_term(v: Variable) -> tuple[Any, Variable, bool] | None:
    """``v`` as ``(factor, a, reciprocal)``: ``exp(a)``, ``c * exp(a)`` with ``c`` a constant (``factor`` its value,
    else ``None``), or ``1 / exp(a)`` (``reciprocal``); ``None`` for anything else."""
    node = v.owner
    factor = None
    if isinstance(scalar_op_of(node), ps.Mul) and len(node.inputs) == 2:
        consts = [scalar_constant(i) for i in node.inputs]
        if (consts[0] is None) == (consts[1] is None):
            return None
        factor = consts[0] if consts[0] is not None else consts[1]
        node = node.inputs[1 if consts[0] is not None else 0].owner
    reciprocal = False
    if isinstance(scalar_op_of(node), (ps.TrueDiv, ps.Reciprocal)):
        if isinstance(scalar_op_of(node), ps.TrueDiv) and scalar_constant(node.inputs[0]) != 1:
            return None
        node, reciprocal = node.inputs[-1].owner, True
    if node is not None and isinstance(node.op, DimShuffle):
        node = node.inputs[0].owner
    if not isinstance(scalar_op_of(node), ps.Exp):
        return None
    return factor, node.inputs[0], reciprocal


def _exp_pair(v: Variable) -> bool:
    """``exp(x) + exp(-x)`` or ``exp(x) - exp(-x)``, each term maybe times one constant, the second maybe
    ``1 / exp(x)``: a hyperbolic function."""
    node = v.owner
    if not isinstance(scalar_op_of(node), (ps.Add, ps.Sub)) or len(node.inputs) != 2:
        return False
    return _paired(*node.inputs)


def _paired(u: Variable, w: Variable) -> bool:
    """``u`` and ``w`` are ``exp(x)`` and ``exp(-x)`` (or ``1 / exp(x)``), times one constant or none."""
    first, second = _exp_term(u), _exp_term(w)
    if first is None or second is None:
        return False
    (f, a, ra), (g, b, rb) = first, second
    if f != g:
        return False
    if ra != rb:
        return a is b
    return not ra and (_negation(a, b) or _negation(b, a))


def _hyperbolic(v: Variable) -> bool:
    """A hyperbolic function in disguise, or the log of one the stabilizers miss: ``exp(x) -/+ exp(-x)``; a
    quotient of two such, of ``sinh`` and ``cosh`` or of ``expm1``s; ``log(expm1(x))``, ``log(sinh(x))``,
    ``log(cosh(x))``; the log of a product of sigmoids (:data:`THEORY_ENTRIES` relate them to stable forms)."""
    node = v.owner
    op = scalar_op_of(node)
    if _exp_pair(v):
        return True
    if isinstance(op, ps.TrueDiv):
        return all(isinstance(_op_of(i), HYPERBOLIC) or _exp_pair(i) or _exp_plus_constant(i) for i in node.inputs)
    if not isinstance(op, ps.Log):
        return False
    inner = node.inputs[0]
    kind = _op_of(inner)
    if isinstance(kind, HYPERBOLIC):
        return True
    return isinstance(kind, ps.Mul) and sum(isinstance(_op_of(i), ps.Sigmoid) for i in inner.owner.inputs) >= 2


def _exp_plus_constant(v: Variable) -> bool:
    """``c + exp(a)`` (two operands, either order): ``expm1(a) / (1 + exp(a))`` is ``tanh(a / 2)``."""
    node = v.owner
    if not isinstance(scalar_op_of(node), ps.Add) or len(node.inputs) != 2:
        return False
    kinds = [_op_of(i) for i in node.inputs]
    return any(isinstance(k, ps.Exp) for k in kinds) and any(scalar_constant(i) is not None for i in node.inputs)


def _sum_of(v: Variable, kind: type) -> bool:
    """``v`` is a Sum (through a DimShuffle) of a ``kind`` Elemwise holding an ``exp`` (``sum(exp(x))``,
    ``sum(w * exp(x))``)."""
    terms = summed(v)
    if terms is None or not isinstance(scalar_op_of(terms.owner), kind):
        return False
    return kind is ps.Exp or any(isinstance(_op_of(i), ps.Exp) for i in terms.owner.inputs)


def _reshaped_softmax(v: Variable) -> bool:
    """``v`` is a Reshape or SpecifyShape of a softmax (``log(softmax(x).flatten())``)."""
    node = v.owner
    return (
        node is not None
        and isinstance(node.op, (Reshape, SpecifyShape))
        and node.inputs[0].owner is not None
        and isinstance(node.inputs[0].owner.op, Softmax)
    )


def _region(root: Variable, heads: tuple[type, ...] = HEADS, constants: bool = False) -> list[Variable]:
    """The variables of ``root``'s region: :data:`REGION_DEPTH` levels down through head and :data:`THROUGH`
    nodes; with ``constants``, and the whole graph of every input beyond them computed from constants only
    (``sqrt(2.0)`` under ``-x / sqrt(2.0)``: cut into a leaf, a float32 input the measurement samples over
    its whole range, it gave the normal log-CDF regimes at -109 and 40)."""
    out, seen, stack = [], set(), [(root, 0)]
    while stack:
        u, d = stack.pop()
        if u in seen or u.owner is None:
            continue
        seen.add(u)
        out.append(u)
        if d < REGION_DEPTH and (_is_through(u.owner) or _is_head(u.owner, heads)):
            stack.extend((i, d + 1) for i in u.owner.inputs)
        elif constants:
            for i in u.owner.inputs:
                if i.owner is not None and i not in seen and _of_constants(i):
                    stack.append((i, d + 1))
    return out


#: The variables :func:`_of_constants` reads before it answers no (a model's graph above a region is large).
CONSTANT_WALK = 32


def _of_constants(v: Variable) -> bool:
    """Whether ``v`` is computed from constants only, within :data:`CONSTANT_WALK` variables."""
    stack, seen = [v], set()
    while stack:
        u = stack.pop()
        if u in seen:
            continue
        seen.add(u)
        if u.owner is None:
            if not isinstance(u, Constant):
                return False
        elif len(seen) > CONSTANT_WALK:
            return False
        else:
            stack.extend(u.owner.inputs)
    return True


def _cut(roots: Sequence[Variable], heads: tuple[type, ...] = HEADS,
         constants: bool = False) -> tuple[list[Variable], dict[Variable, Variable]]:
    """Copies of the roots' regions (:func:`_region`), every input beyond them a fresh leaf; leaf -> original
    variable."""
    inside: set[Variable] = set()
    for r in roots:
        inside.update(_region(r, heads, constants))
    leaves: dict[Variable, Variable] = {}
    replace: dict[Variable, Variable] = {}
    for u in inside:
        for i in u.owner.inputs:
            if i not in inside and i.owner is not None and i not in replace:
                leaf = i.type()
                leaf.name = i.name
                replace[i] = leaf
                leaves[leaf] = i
    widened = _widened_constants(inside)
    replace.update(widened)
    # the regions cut at fresh leaves: the e-graph holds the regions only, never the fgraph's nodes (a widened
    # constant changes its readers' input types, not their outputs': the nodes are rebuilt)
    copies = clone_replace(list(roots), replace=replace, rebuild_strict=not widened)
    return list(copies), leaves


#: Scalar ops whose constant operands :func:`_widened_constants` gives the dtype the node computes in.
ARITHMETIC: tuple[type, ...] = (ps.Add, ps.Sub, ps.Mul, ps.TrueDiv)


def _widened_constants(inside: set[Variable]) -> dict[Variable, Variable]:
    """The constants the region's float arithmetic reads in a narrower dtype (PyTensor reads ``0.5 * x`` with a
    float32 ``0.5``, ``3 * x`` with an int8 ``3``), each as a constant of the dtype its readers compute in: exact
    (the Elemwise upcasts them), and a rule that takes ``log(0.5)`` out of ``log(0.5 * erfc(z))`` builds it, and
    the e-graph folds it, in float64, not float32's 2e-9 off.  A constant read by anything else is kept."""
    wanted: dict[Variable, set[str]] = {}
    data: dict[Variable, np.ndarray] = {}
    for u in inside:
        dtype = str(getattr(u.type, "dtype", "")) if isinstance(scalar_op_of(u.owner), ARITHMETIC) else ""
        for i in u.owner.inputs:
            value = data[i] if i in data else _constant_data(i)
            if value is not None:
                data[i] = value
                wanted.setdefault(i, set()).add(dtype if dtype.startswith("float") else "")
    found: dict[Variable, Variable] = {}
    for c, dtypes in wanted.items():
        (dtype,) = dtypes if len(dtypes) == 1 else ("",)
        wide = widened(data[c], dtype) if dtype else None
        if wide is not None:
            found[c] = pt.constant(wide, dtype=dtype)
    return found


def _constant_data(v: Variable) -> np.ndarray | None:
    """The value of ``v``, a constant or a constant a DimShuffle only expands (``ExpandDims(0.5)``, which
    ``0.5 * x`` reads before canonicalize folds it), at ``v``'s static shape; ``None`` for another variable
    (a ``NoneConst``, ``x[[1, 0]]``'s SpecifyShape reads one, has no dtype)."""
    if isinstance(v, Constant):
        return np.asarray(v.data) if hasattr(v.type, "dtype") else None
    node = v.owner
    if node is None or not isinstance(node.op, DimShuffle) or not isinstance(node.inputs[0], Constant):
        return None
    data = np.asarray(node.inputs[0].data)
    if data.ndim != 0 or any(s is None for s in v.type.shape):
        return None
    return data.reshape(v.type.shape)


def stabilized(outputs: Sequence[Variable], limits: Limits | None = None) -> list[tuple[Variable, Variable]]:
    """The replacements the pass makes in the graph of ``outputs``: ``(root, form)`` for each region root whose
    extracted form has fewer unstable nodes (:func:`relations.saturation.stability.instability`); for each
    regime root (:func:`regime_roots`), its regime form where it computes other floats than that form (than the
    root, if none has fewer) and is measured more accurate; and for each cancellation root
    (:func:`cancellation_roots`) whose form has as many, fewer cancellation sites and is measured more accurate
    (``[]``: the graph is left as it came)."""
    limits = limits or LIMITS
    roots = region_roots(outputs)
    regimes = regime_roots(outputs, roots)
    pairs = _replacements([r for r in roots if r not in regimes], limits)
    if regimes:
        pairs += _replacements(regimes, limits, kind="regime")
    tier = cancellation_roots(outputs, roots + regimes)
    return pairs + _replacements(tier, limits, kind="cancelling") if tier else pairs


def _replacements(roots: Sequence[Variable], limits: Limits, kind: str = "pass") -> list[tuple[Variable, Variable]]:
    """The roots' saturated forms that replace them: fewer unstable Ops (:func:`stability_cost`'s extraction).
    ``kind``:

    - ``"cancelling"``: the roots are :func:`cancellation_roots`, saturated with the tier's rules where they
      lose digits (:func:`_loses_digits`); then a form with as many unstable Ops as that and fewer
      cancellation sites replaces one, where measured more accurate (:func:`cancellation_cost`'s extraction,
      :func:`_cancels_less`);
    - ``"regime"``: the roots are :func:`regime_roots`, saturated with :func:`regime_rules`; a root's regime
      form replaces the form of fewer unstable Ops (or the root, if none has fewer) where it computes other
      floats and is measured more accurate (:func:`_regime_choices`, which the ``"pass"`` kind runs too).
    """
    if not roots:
        return []
    cancelling = kind == "cancelling"
    with config.change_flags(traceback__limit=0):
        copies, leaves = _cut(roots, MEASURED_HEADS if cancelling else HEADS)
        if cancelling:  # only the sites that lose digits (``rho + 2 * softplus(-rho)`` is a site, and never does)
            kept = [k for k, c in enumerate(copies) if _loses_digits(c)]
            roots, copies = [roots[k] for k in kept], [copies[k] for k in kept]
            if not roots:
                return []
        rules = {"pass": pass_rules, "cancelling": tier_rules, "regime": regime_rules}[kind]()
        egraph = EGraph(rules, rewriters=numeric_rewriters())
        egraph.add(copies)
        egraph.run(limits, backward=False)
        found = egraph.extract(cost=stability_cost(shape_finder()), roots=copies, method="greedy").result
        chosen: list[Variable | None] = [f if _fits(f, c) and instability([f]) < instability([c]) and _exp_safe(f, c)
                                         else None for c, f in zip(copies, found, strict=True)]
        chosen = _fewer_sites(egraph, copies, chosen, screened=cancelling)
        chosen = _regime_choices(egraph, copies, chosen)
    pairs = []
    for root, form in zip(roots, chosen, strict=True):
        if form is None:
            continue
        form = _precise(form)
        new = clone_replace([form], replace=leaves)[0] if leaves else form
        new = root.type.filter_variable(new, allow_convert=True)
        copy_stack_trace(root, [v for v in owned_variables([new]) if not getattr(v.tag, "trace", None)])
        pairs.append((root, new))
    return pairs


def _precise(form: Variable) -> Variable:
    """``form`` with the narrow constants a rule built computed in its dtype
    (:data:`relations.rules.precision.PRECISION_RULES`): a rule's ``log(2.0)`` is float32's (PyTensor reads the
    Python float 2.0 as float32), 2e-8 off ``log(2)`` in a float64 form; the precision pass ran before this
    one and never saw it."""
    from relations.rules.precision import narrow_operands
    from relations.saturation.stabilizing import precise

    if not any(narrow_operands(v.owner) for v in owned_variables([form])):
        return form
    (out,) = precise([form])
    return out


def _exp_safe(form: Variable, copy: Variable) -> bool:
    """Whether ``form`` (of fewer unstable Ops than the region ``copy``) may replace it unmeasured: yes unless it
    holds more ``exp`` of a sum than ``copy``.  ``exp(s)`` of a sum ``s`` amplifies the rounding of ``s`` by
    ``|s|``: ``c / (exp(x) + exp(-x))`` is ``exp(log(c / 2) - logaddexp(x, -x))`` to the count, 4 bits worse at
    ``x = 100`` where the spelling is exact to an ulp (better only where ``exp(x)`` overflows).  Such a form is
    measured first (:func:`_measured_better`: no worse at any point, better on average), where the region can be
    measured: a region over a reduction (``log(sum(w * exp(x - max(x))))``, the shift that keeps a weighted
    logsumexp from overflowing) is taken on the count, as before."""
    return _exps_of_sums(form) <= _exps_of_sums(copy) or not _measurable(copy) or _measured_better(form, copy)


def _exps_of_sums(v: Variable) -> int:
    """The ``exp`` nodes of ``v``'s graph whose argument is a sum or a difference."""
    return sum(1 for u in owned_variables([v]) if isinstance(scalar_op_of(u.owner), ps.Exp)
               and isinstance(scalar_op_of(u.owner.inputs[0].owner), (ps.Add, ps.Sub)))


def _fewer_sites(egraph: EGraph, copies: Sequence[Variable], chosen: Sequence[Variable | None],
                 screened: bool) -> list[Variable | None]:
    """``chosen``, where nothing was gained or the form gained still has a cancellation site (``2 * cosh(x) - 2``
    for ``exp(x) - 2 + exp(-x)``), replaced by the form with the fewest sites (:func:`cancellation_cost`'s
    extraction) if measured more accurate (:func:`_cancels_less`).  Without ``screened`` (the pass's regions,
    which the tier's screen has not seen), only the copies with a site that lose digits
    (:func:`_loses_digits`) are looked at: ``0.5 * (exp(x) - 1 / exp(x))`` reads one ``exp``, as ``sinh(x)``
    does, so the count gains nothing, and cancels at tiny ``x``."""
    open_ = [k for k, (c, f) in enumerate(zip(copies, chosen, strict=True))
             if (f is None or cancellation_sites([f])) and (screened or (cancellation_sites([c]) and _loses_digits(c)))]
    if not open_:
        return list(chosen)
    fewer = egraph.extract(cost=cancellation_cost(shape_finder()), roots=copies, method="greedy").result
    out = list(chosen)
    for k in open_:
        c, f, g = copies[k], chosen[k], fewer[k]
        out[k] = g if _fits(g, c) and _cancels_less(g, c if f is None else f) else f
    return out


def _loses_digits(copy: Variable) -> bool:
    """Whether the region ``copy`` evaluated in float64 (or float32) differs from its extended-precision value
    by more than :data:`WIDE_BITS` on average, or loses a value whole, on :data:`TIER_SCREEN` sampled points and
    the screen's grid of magnitudes (:func:`graph_bridge.wide_float.wide_screen`: numpy, no mpmath), or loses
    a value whole at a magnitude of :data:`graph_bridge.wide_float.GAP_GRID` (the ends of the range)."""
    from graph_bridge.wide_float import wide_screen, wide_screen_flat

    try:
        screened = wide_screen_flat(copy, n=TIER_SCREEN) or wide_screen(copy, n=TIER_SCREEN, grid=True)
        if screened.mean is not None and (screened.mean > WIDE_BITS or screened.lost > 0):
            return True
    except NotImplementedError:  # an Op the screen does not evaluate
        return False
    return _lost_at_extremes(copy)


def _lost_at_extremes(copy: Variable) -> bool:
    """Whether the region ``copy`` (Elemwise nodes only) loses a value whole (inf or 0 where its extended-precision
    value is finite and not 0 in its dtype) at a magnitude of :data:`graph_bridge.wide_float.GAP_GRID`, the
    ends of the range where sampled points are thin: ``log(x + sqrt(x*x - 1))`` is inf from x = 1e154,
    ``log((1 + k**2) / 2)`` likewise."""
    from graph_bridge.wide_float import GAP_GRID, wide_screen_flat

    try:
        extremes = wide_screen_flat(copy, n=0, grid=GAP_GRID)
    except NotImplementedError:  # an Op the screen does not evaluate
        return False
    return extremes is not None and extremes.lost > 0


def _inputs_only(r: _Region) -> bool:
    """Whether the region ``r``'s leaves are all inputs of the graph (or constants): only then are its leaves
    independent, and a combination of their extreme magnitudes a point of the graph (``softplus(|x|) *
    sigmoid(x)`` cut at ``|x|`` reads ``x = -800`` with ``|x| = 1e300``, which no input gives)."""
    return not r.leaves  # (:func:`_cut` makes a leaf of a computed variable only)


def _lost_where_draws_are_thin(copy: Variable, corners: bool) -> bool:
    """Whether the region ``copy`` (Elemwise nodes only) loses a value whole at a combination of extreme magnitudes
    of its inputs (``corners``: :func:`graph_bridge.wide_float.lost_corners`: ``y * exp(x)`` at ``x = 800``,
    ``y = 1e-300``), or loses digits where two of its inputs nearly agree
    (:func:`graph_bridge.wide_float.diagonal_cancels`: ``x*x - y*y``, a deviance near its fit): where neither
    sampled points nor the grid's shuffled pairs may fall.  The measured stage's flag only; the corners for a
    region whose leaves are the graph's inputs (:func:`_inputs_only`), the diagonals for any (the normal KL's
    region reads ``(m1 - m2) / s2`` cut as a leaf beside ``s1`` and ``s2``, which cancel where they agree): the
    fast pass's tier keeps :func:`_lost_at_extremes`."""
    from graph_bridge.wide_float import diagonal_cancels, lost_corners

    for screen in (lost_corners, diagonal_cancels) if corners else (diagonal_cancels,):
        try:
            if screen(copy, cap=1) is not None:
                return True
        except (NotImplementedError, ValueError):  # an Op the screen does not evaluate, a shape it does not take
            continue
    return False


def _flagged_whole(copy: Variable, screened: Screened) -> bool:
    """Whether the numpy screens flag the whole region ``copy`` (``screened``: its :func:`_wide_screen`): its mean
    error or a value lost (:func:`_flags`), a value lost at the ends of the range (:func:`_lost_at_extremes`), or
    a cancellation near one of its constants or a zero of the root grid (:func:`_cancels_at_a_point`)."""
    return _flags(screened, copy) or _lost_at_extremes(copy) or _cancels_at_a_point(copy)


def _cancels_at_a_point(copy: Variable) -> bool:
    """Whether the region ``copy``, of one float input, cancels near one of its constants away from 0, or near a
    point of the root grid where its value is 0 (:func:`relations.saturation.series.cancellation_points` without
    crossings: ``log(x) - x + 1`` near 1, SciPy's ``log(p / (1 - p))`` near 1/2), where neither sampled points
    nor the grid fall.  Not where it crosses 0 between the grid's points: a log-density term crosses 0 where the
    density is 1, its relative error there matters to no sum, and measuring it cost the first compile of
    stochastic volatility and of the GP marginal likelihood 8-10 s each.  The measured stage's flag only."""
    from relations.saturation.series import cancellation_points

    return _reads(copy) == 1 and bool(cancellation_points(copy, crossings=False))


def _fits(form: Variable, copy: Variable) -> bool:
    """``form`` is not ``copy`` and has its dtype and ndim."""
    return form is not copy and form.type.dtype == copy.type.dtype and form.type.ndim == copy.type.ndim


#: Entries of the numerics theory the cancellation tier saturates with (besides :func:`pass_rules`): each
#: relates a difference that cancels to a form with fewer cancellation sites
#: (:mod:`relations.saturation.cancellation`) and no more unstable Ops: ``softplus(x) - x = softplus(-x)``,
#: ``1 - cos(x) = 2 sin(x/2)**2``, ``sqrt(a + c) - sqrt(a) = c / (sqrt(a + c) + sqrt(a))``,
#: ``1/(c + a) - 1/a = -c / (a * (c + a))``.
TIER_ENTRIES: tuple[str, ...] = (
    "add_commutative", "mul_commutative", "add_flip", "sub_negate_rev", "distribute_lft1_in", "distribute_lft1_out_sub",
    "softplus_sub", "one_sub_cos", "cos_sub_one", "flip_sqrt_shift", "cosh_sub_one", "one_add_tanh", "one_sub_tanh",
    "sub_recip_shift", "sub_flip_rev", "sqrt_sub_regimes", "unpow2", "unpow1_2", "unpow_neg1", "unpow_neg1_2",
    "isqrt_sub_shift", "asinh_def_rev", "acosh_def_rev", "difference_of_sqr_neg1_rev",
    "expm1_def", "expm1_def_add", "expm1_def_neg", "sqrt_add_regimes",
)
#: The functions a cancellation root's term is computed by (those :data:`TIER_ENTRIES`' left sides read).
#: (not ``sigmoid``, ``erf`` or ``erfc``: a PyMC model's gradient reads ``1 - sigmoid(a)`` and ``1 - 0.5 * erfc(z)``
#: over its data, and saturating and measuring those took 47 to 433 ms a model, up to 3.7x PyTensor's rewrites)
TIER_FUNCTIONS: tuple[type, ...] = (ps.Softplus, ps.Cos, ps.Sqrt, ps.Cosh, ps.Tanh, ps.Reciprocal)
_TIER_RULES: list[tuple] = []
#: The constant exponents of a power that is a tier term: ``sqrt``, ``1 / a`` and ``1 / sqrt`` spelled as powers
#: (the entries ``unpow1_2``, ``unpow_neg1`` and ``unpow_neg1_2`` relate them).
ROOT_POWERS: tuple[float, ...] = (0.5, -1.0, -0.5)


def tier_rules() -> tuple:
    """The rules the cancellation tier saturates with: :func:`pass_rules` and :data:`TIER_ENTRIES` (the theory's
    commutativity of add and mul among them: canonicalize puts a constant first, ``sqrt(1 + x) - sqrt(x)``)."""
    if not _TIER_RULES:
        _TIER_RULES.append(pass_rules() + _theory(TIER_ENTRIES))
    return _TIER_RULES[0]


def cancellation_roots(outputs: Sequence[Variable], taken: Sequence[Variable] = ()) -> list[Variable]:
    """The Add and Sub nodes of the graph that are cancellation sites (:class:`Sites`) with a term computed by
    one of :data:`TIER_FUNCTIONS` (``softplus(x) - x``, ``1 - cos(x)``, ``sqrt(x + 1) - sqrt(x)``) or two terms
    that are ``exp(x)`` and ``exp(-x)`` (:func:`_exp_pairs`: ``exp(x) - 2 + exp(-x)``), outside the
    regions of ``taken`` (the pass's :func:`region_roots`) and holding none of them; of those, the ones inside
    no other one's region."""
    sites = Sites()
    owned = owned_variables(list(outputs))
    found = [v for v in owned if (any(_tier_term(c) for c, _ in terms(v)) or _exp_pairs(v) or _one_and_exp(v))
             and sites.site(v)]
    if not found:
        return []
    readers = _readers(owned)
    found = list(dict.fromkeys(_signed_root(v, readers) for v in found))
    covered = {u for r in taken for u in _region(r)}
    regions = {r: _region(r, MEASURED_HEADS) for r in found}
    inner = {u for r in found for u in regions[r] if u is not r}
    return [r for r in found if r not in covered and r not in inner and not covered.intersection(regions[r])]


def _tier_term(v: Variable) -> bool:
    """``v`` is computed by one of :data:`TIER_FUNCTIONS`, or is a softplus the stock stabilizers will make
    of ``log(1 + exp(a))`` or ``log1p(exp(a))`` (``log(1 + exp(x)) - x``)."""
    op = scalar_op_of(v.owner)
    if isinstance(op, TIER_FUNCTIONS):
        return True
    if isinstance(op, ps.TrueDiv):  # a reciprocal as canonicalize writes it: ``1 / (x + 1) - 1 / x``
        return scalar_constant(v.owner.inputs[0]) == 1
    if isinstance(op, ps.Pow):  # a square root or a reciprocal as a power: ``(x + 1) ** 0.5 - x ** 0.5``
        return scalar_constant(v.owner.inputs[1]) in ROOT_POWERS
    if isinstance(op, ps.Log1p):
        return isinstance(_op_of(v.owner.inputs[0]), ps.Exp)
    return isinstance(op, ps.Log) and _exp_plus_constant(v.owner.inputs[0])


def _one_and_exp(v: Variable) -> bool:
    """``v`` is a sum of two terms, ``1`` (or ``-1``) and an ``exp``: ``1 - exp(u)``, ``exp(u) - 1`` (which cancel
    where ``u`` is near 0; PyTensor's ``local_expm1`` takes ``exp(u) - 1`` alone, not ``1 - exp(-exp(x))``)."""
    other = _beside_one(v)
    return other is not None and isinstance(scalar_op_of(other.owner), ps.Exp)


def _beside_one(v: Variable) -> Variable | None:
    """The other term of ``v``, a sum of two terms one of which is ``1`` or ``-1`` (``1 - u``, ``u - 1``, through
    :func:`~relations.saturation.cancellation.terms`); ``None`` for another node."""
    found = terms(v)
    units = [abs(scalar_constant(t) or 0.0) == 1.0 for t, _ in found]
    return found[units.index(False)][0] if len(found) == 2 and units.count(True) == 1 else None


def _exp_pairs(v: Variable) -> bool:
    """``v`` is a sum of three terms or more two of which are ``exp(x)`` and ``exp(-x)`` (:func:`_paired`): a
    ``cosh`` or ``sinh`` with another term, ``exp(x) - 2 + exp(-x)`` (``2 * cosh(x) - 2``, which cancels)."""
    node = v.owner
    if not isinstance(scalar_op_of(node), ps.Add) or len(node.inputs) < 3:
        return False
    exps = [i for i in node.inputs if _exp_term(i) is not None]  # (a model's sum of hundreds of terms: few exps)
    return any(_paired(exps[i], exps[j]) for i in range(len(exps)) for j in range(i + 1, len(exps)))


def _signed_root(v: Variable, readers: Mapping[Variable, list[Variable]]) -> Variable:
    """``v``, or up to two of its one readers that are a negation, a product with a constant or a log
    (``-(sqrt(x) - sqrt(x + 1))``: the sign is part of what the theory's entries read; ``log(0.5 + 0.5 *
    tanh(x / 2))``: the log of the ``sigmoid`` the tier finds is a stabilizer's)."""
    for _ in range(2):
        u = _sole_reader(v, readers)
        if u is None:
            break
        op = scalar_op_of(u.owner)
        if not (isinstance(op, (ps.Neg, ps.Log, ps.Log1p)) or (
            isinstance(op, ps.Mul) and len(u.owner.inputs) == 2
            and any(scalar_constant(i) is not None for i in u.owner.inputs)
        )):
            break
        v = u
    return v


def _cancels_less(form: Variable, copy: Variable) -> bool:
    """Whether ``form`` has no more unstable Ops than ``copy`` (a region's copy, or the form that has fewest,
    which ``form`` cannot have fewer than), fewer cancellation sites, and is measured more accurate, as
    written, on the grid of magnitudes and sampled points (:func:`relations.saturation.accuracy.more_accurate`:
    worse at no point, better on average)."""
    if instability([form]) > instability([copy]) or cancellation_sites([form]) >= cancellation_sites([copy]):
        return False
    return _measured_better(form, copy)


def _measured_better(form: Variable, copy: Variable) -> bool:
    """Whether ``form`` is measured more accurate than ``copy`` (a region's copy, or a form of it), as written, on
    the grid of magnitudes and :data:`TIER_POINTS` sampled points
    (:func:`relations.saturation.accuracy.more_accurate`: worse at no point, better on average, a point where
    ``form`` is within :data:`~relations.saturation.accuracy.NOISE_BITS` of the exact value no loss); a region of
    more than :data:`TIER_NODES` nodes or not elementwise in its inputs is not measured (no)."""
    from relations.saturation.accuracy import NOISE_BITS, more_accurate

    if not _measurable(copy):
        return False

    form, copy = _one_entry([form, copy])
    try:
        points = _tier_points(copy)
        return points.n > 0 and more_accurate([form], [copy], points, noise=NOISE_BITS)
    except (NotExact, ValueError):  # an Op without exact values, an input that cannot be drawn: kept as it is
        return False


def _tier_points(copy: Variable) -> Any:
    """The points :func:`_measured_better` measures ``copy`` (one entry a point, :func:`_one_entry`) and its forms
    at: the grid of magnitudes, :data:`TIER_POINTS` sampled points, and each input along the grid with the
    others at 1."""
    from relations.saturation.accuracy import axis_points, grid_points, sample_points
    from relations.saturation.regimes import join_points

    points = join_points(grid_points([copy]), sample_points([copy], TIER_POINTS, size=1))
    axes = axis_points([copy])
    return join_points(points, axes) if axes.n else points


def _measurable(copy: Variable) -> bool:
    """Whether the region ``copy`` is measured at all: at most :data:`TIER_NODES` nodes, elementwise in its inputs
    (a model's region over its data, a dot or a split, would take mpmath seconds to minutes)."""
    from graph_bridge.nodes import elementwise_in_inputs

    return len(owned_variables([copy])) <= TIER_NODES and elementwise_in_inputs([copy])


def _one_entry(outputs: Sequence[Variable]) -> list[Variable]:
    """``outputs`` (elementwise in their inputs) over inputs of unknown lengths where theirs are known: a point is
    then one entry, where a model's ``(200,)`` data made it 200 (and 200 exact evaluations of ``erfc``)."""
    leaves = [v for v in explicit_graph_inputs(outputs) if not isinstance(v, Constant)]
    replace: dict[Variable, Variable] = {
        v: pt.tensor(dtype=v.type.dtype, shape=tuple(1 if d == 1 else None for d in v.type.shape), name=v.name)
        for v in leaves if any(d is not None and d > 1 for d in v.type.shape)
    }
    if not replace:
        return list(outputs)
    return list(clone_replace(list(outputs), replace=replace, rebuild_strict=False))


#: Entries of the numerics theory the regime tier saturates with (besides :func:`pass_rules`): regime forms
#: (a ``switch`` of forms each accurate on its side, the branch inputs clamped) with as many unstable Ops as the
#: spelling or more, which the count cannot choose and the measurement does (``log(0.5 * erfc(a))``: the
#: reflection below 0, ``log1p(-erf(a))`` to 0.5, ``erfcx`` above; ``log(erf(a))``: ``log1p(-erfc(a))`` above
#: 1); and the entries that bring the spellings graphs have to their left sides (``log1p(-erfc(x))`` is ``log(erf(x))``,
#: ``log1p(-0.5 * erfc(a))`` is ``log(0.5 * erfc(-a))``).
REGIME_ENTRIES: tuple[str, ...] = (
    "log_mul_erfc_regimes", "log_erf_regimes", "log1p_def_neg_rev", "erf_def_rev", "erfc_def_rev", "erfc_neg_erf",
    "log_one_sub_half_erfc", "log1p_neg_half_erfc", "log1p_def_rev", "add_commutative", "mul_commutative",
    "distribute_rgt1_in", "pow1p_regimes", "pow1p_sub_one_regimes", "pow1p_add_neg_one_regimes",
    "one_sub_pow1p_regimes", "pow_add_neg_one_regimes", "one_sub_pow_regimes", "sub_flip", "log_add_constant",
    "log_add_constant_r",
    "erfc_sub_erfc", "log_erf_diff_regimes", "distribute_lft_out_sub", "log_prod",
)
#: The functions the left sides of :data:`REGIME_ENTRIES`' regime forms read.
REGIME_FUNCTIONS: tuple[type, ...] = (ps.Erf, ps.Erfc)
_REGIME_RULES: list[tuple] = []


def regime_rules() -> tuple:
    """The rules the regime tier saturates with: :func:`pass_rules` and :data:`REGIME_ENTRIES`."""
    if not _REGIME_RULES:
        _REGIME_RULES.append(pass_rules() + _theory(REGIME_ENTRIES))
    return _REGIME_RULES[0]


def regime_roots(outputs: Sequence[Variable], taken: Sequence[Variable] = ()) -> list[Variable]:
    """The roots of ``taken`` (the pass's :func:`region_roots`) whose region reads one of
    :data:`REGIME_FUNCTIONS`, and the ``log`` and ``log1p`` nodes of the graph whose region reads one outside
    them (``log1p(-erfc(x))``, which no stabilizer reads): of those, the ones inside no other one's region, not
    a branch of a ``switch`` (:func:`_switch_branches`) and not a stabilizer's own spelling
    (:func:`_stock_spelling`)."""
    def reads(region: list[Variable]) -> bool:
        return any(isinstance(scalar_op_of(u.owner), REGIME_FUNCTIONS) for u in region)

    taken_regions = {r: _region(r) for r in taken}
    pass_roots = [r for r, region in taken_regions.items() if reads(region)]
    covered = {u for region in taken_regions.values() for u in region}
    owned = owned_variables(list(outputs))
    pass_roots += _pow_roots(owned, covered)
    logs = {v: _region(v) for v in owned if v not in covered and isinstance(scalar_op_of(v.owner), OUTER)}
    found = {v: region for v, region in logs.items() if reads(region)}
    if not found:
        return pass_roots
    inner = {u for r, region in found.items() for u in region if u is not r}
    branches = _switch_branches(owned, outputs)
    kept = [r for r, region in found.items()
            if r not in inner and r not in branches and not covered.intersection(region)]
    if not kept:
        return pass_roots
    readers = _readers(owned)
    lifted = [_plus_constant_reader(r, readers) for r in kept]
    return pass_roots + [r for r in lifted if not _stock_spelling(r)]


def _plus_constant_reader(v: Variable, readers: Mapping[Variable, list[Variable]]) -> Variable:
    """``v``'s one reader if that adds a constant to it (``log(erfc(z)) - log(2)``: the constant is a factor under
    the log, ``log_add_constant``, where the sum cancels), else ``v``."""
    u = _sole_reader(v, readers)
    if u is None or not isinstance(scalar_op_of(u.owner), ps.Add) or len(u.owner.inputs) != 2:
        return v
    return u if any(scalar_constant(i) is not None for i in u.owner.inputs) else v


def _sole_reader(v: Variable, readers: Mapping[Variable, list[Variable]]) -> Variable | None:
    """The one node output reading ``v`` (``None`` where ``v`` has none or several)."""
    found = readers.get(v, [])
    return found[0] if len(found) == 1 else None


def _readers(owned: Sequence[Variable]) -> dict[Variable, list[Variable]]:
    """Each variable's readers among the nodes of ``owned``."""
    readers: dict[Variable, list[Variable]] = {}
    for u in owned:
        for i in u.owner.inputs:
            readers.setdefault(i, []).append(u)
    return readers


def _pow_roots(owned: Sequence[Variable], covered: set[Variable]) -> list[Variable]:
    """The powers of ``owned`` outside ``covered`` whose exponent is no constant and whose base is one plus
    another term (:func:`_pow_one_plus`: ``(1 + x / n) ** n``, which rounds ``x / n`` into ``1 + x / n``) or
    whose one reader is their difference from one (``1 - (1 - p) ** n``, ``x ** y - 1``, which cancel where the
    power is near one), each as that reader if it has one: the left sides of ``pow1p_regimes``,
    ``pow1p_sub_one_regimes``, ``one_sub_pow1p_regimes``, ``pow_add_neg_one_regimes`` and
    ``one_sub_pow_regimes``."""
    pows = [v for v in owned if v not in covered and isinstance(scalar_op_of(v.owner), ps.Pow)
            and scalar_constant(v.owner.inputs[1]) is None]
    if not pows:
        return []
    readers = _readers(owned)
    found = [(v, _one_minus_reader(v, readers)) for v in pows]  # (any base less one: pow_add_neg_one_regimes)
    return list(dict.fromkeys(r for v, r in found if r is not v or _pow_one_plus(v)))


def _pow_one_plus(v: Variable) -> bool:
    """``v`` is ``(1 + u) ** b`` or ``(1 - u) ** b`` with ``b`` no constant (a constant power, ``(1 + u) ** 2``,
    rounds to an ulp or two: only an exponent as large as ``1 / u`` makes the rounding of ``1 + u`` show); ``v`` a
    power with no constant exponent (:func:`_pow_roots` reads only those)."""
    found = terms(v.owner.inputs[0])
    return len(found) == 2 and sum(scalar_constant(t) == 1.0 and sign == 1 for t, sign in found) == 1


def _one_minus_reader(v: Variable, readers: Mapping[Variable, list[Variable]]) -> Variable:
    """``v``'s one reader if that is a sum of ``v`` and a constant ``1`` or ``-1`` (``1 - v``, ``v - 1``), else
    ``v``."""
    u = _sole_reader(v, readers)
    return u if u is not None and _beside_one(u) is not None else v


def _stock_spelling(v: Variable) -> bool:
    """``v`` is ``log(erfc(a))`` itself, which PyTensor's ``local_log_erfc`` takes (its own tests count the
    nodes it makes): left to it, as the pass leaves ``log(1 + exp(x))`` to ``softplus``'s stabilizer."""
    return isinstance(scalar_op_of(v.owner), ps.Log) and isinstance(_op_of(v.owner.inputs[0]), ps.Erfc)


def _switch_branches(owned: Sequence[Variable], outputs: Sequence[Variable]) -> set[Variable]:
    """The variables of ``owned`` read only as a branch of a ``switch`` (not an output): a regime someone chose
    already (PyMC's ``normal_lcdf`` takes ``log1p(-erfc(z / sqrt(2)) / 2)`` for ``z >= -1`` only), whose form
    is kept: a regime form in its place would compute three functions where one is read."""
    other: set[Variable] = set(outputs)
    branch: set[Variable] = set()
    for u in owned:
        is_switch = isinstance(scalar_op_of(u.owner), ps.Switch)
        for k, i in enumerate(u.owner.inputs):
            (branch if is_switch and k > 0 else other).add(i)
    return branch - other


def _regime_choices(egraph: EGraph, copies: Sequence[Variable],
                    chosen: Sequence[Variable | None]) -> list[Variable | None]:
    """``chosen`` (a form per region copy, or ``None``), each replaced by a regime form of the copy where that form
    computes other floats than the chosen one (than the copy if none: :func:`_differs`) and is measured more
    accurate than it (:func:`_measured_better`).

    A regime form is a ``switch`` e-node of the copy's class, as its rule wrote it over what it matched:
    not extracted, since each branch is equal to the other in the e-graph, and the cheapest spelling of a
    branch is the one the regime avoids (``log(erf(max(a, 1)))`` for ``log1p(-erfc(max(a, 1)))``)."""
    classes = egraph.classes()
    out = list(chosen)
    for k, (c, f) in enumerate(zip(copies, chosen, strict=True)):
        base = c if f is None else f
        forms = [_constants_folded(_precise(g)) for g in _regime_forms(egraph, classes, c)]
        better = [g for g in forms if _fits(g, c) and _differs(g, base, c) and _measured_better(g, base)]
        out[k] = _most_accurate(better, c) if better else f
    return out


def _most_accurate(forms: Sequence[Variable], copy: Variable) -> Variable:
    """Of ``forms`` (regime forms of ``copy`` that pass), the one of fewest mean bits of error on the points
    :func:`_measured_better` measured them at, the first of a tie (``log((1 + x) ** y)`` as ``y * log(1 + x)``
    and as ``y * log1p(x)``: the second).  All are evaluated in one graph."""
    from relations.saturation.accuracy import graph_bits

    if len(forms) == 1:
        return forms[0]
    *ones, one_copy = _one_entry([*forms, copy])
    means = [float(np.nanmean(b)) if np.isfinite(b).any() else math.inf
             for b in graph_bits(ones, _tier_points(one_copy))]
    return forms[means.index(min(means))]


def _regime_forms(egraph: EGraph, classes: Mapping[int, Sequence[Any]], copy: Variable) -> list[Variable]:
    """The ``switch`` e-nodes of ``copy``'s class with two computed branches (``switch(x >= 0, x, nan)``, which
    ``local_exp_log_nan_switch`` makes of ``exp(log(x))``, is no regime); then ``copy``'s own node over one of an
    input's class in place of that input: a regime one level below the root (``0.5 * (sqrt(b*b - 4*a*c) -
    b)``: the tier's root takes in the constant factor, the regime is the difference's); and likewise below a sum
    of the class (``log(0.5 * (erf(a) - erf(b)))`` is ``log(0.5) + log(erf(a) - erf(b))``, whose second term
    has the regime)."""
    def switches(v: Variable) -> list[Variable]:  # two computed branches (not a stock rewrite's NaN guard)
        return [n.var for n in classes[egraph.class_of(v)] if isinstance(scalar_op_of(n.var.owner), ps.Switch)
                and not any(_constant_data(i) is not None for i in n.var.owner.inputs[1:])]

    forms = switches(copy)
    heads = [copy] + [n.var for n in classes[egraph.class_of(copy)] if n.var is not copy
                      and n.var.owner is not None and isinstance(scalar_op_of(n.var.owner), (ps.Add, ps.Sub))]
    for head in heads:
        node = head.owner
        for k, i in enumerate(node.inputs):
            if i.owner is None or isinstance(i, Constant):
                continue
            for g in switches(i):
                if g.type == i.type:
                    ins = [g if j == k else u for j, u in enumerate(node.inputs)]
                    forms.append(node.clone_with_new_inputs(ins).out)
    return forms


def _constants_folded(form: Variable) -> Variable:
    """``form`` with its Elemwise nodes of constants folded (PyTensor's ``constant_folding``), as the compile will
    fold them: ``log_add_constant`` writes ``log(exp(c) * a)`` for ``log(a) + c``, and ``exp`` of the folded
    ``-log(2)`` is ``0.5`` in float64, exactly: measured unfolded, the form's exact value would carry the
    constant's rounding (2.3e-17) that the spelling's sum cancels to, and no form could be measured better."""
    from pytensor.graph.rewriting.basic import in2out
    from pytensor.tensor.elemwise import Elemwise
    from pytensor.tensor.rewriting.basic import constant_folding

    if not any(isinstance(v.owner.op, Elemwise) and all(_constant_data(i) is not None for i in v.owner.inputs)
               for v in owned_variables([form])):
        return form
    fgraph = FunctionGraph(list(explicit_graph_inputs([form])), [form], clone=True, copy_inputs=False)
    in2out(constant_folding).rewrite(fgraph)
    return fgraph.outputs[0]


def _differs(form: Variable, base: Variable, copy: Variable) -> bool:
    """Whether ``form`` and ``base`` compute floats more than :data:`WIDE_BITS` apart at some point of the
    screen's grid and draws (:func:`graph_bridge.wide_float.flat_gap`): where they agree, nothing is measured.
    Where they cannot be evaluated so, whether the region ``copy`` loses digits (:func:`_loses_digits`).  The
    extended precision of :func:`_loses_digits` alone misses ``log1p(-0.5 * erfc(z))`` at ``z = -28``: ``erfc``
    is 2 in it too, and both give ``-inf``; the regime form gives -804.6."""
    from graph_bridge.wide_float import flat_gap

    try:
        gap = flat_gap(form, base, n=TIER_SCREEN)
    except NotImplementedError:
        gap = None
    return _loses_digits(copy) if gap is None else gap > WIDE_BITS


def _head_regions(outputs: Sequence[Variable]) -> list[tuple[Variable, list[Variable]]]:
    """:func:`head_roots` with each root's region (:func:`_region`), heads :data:`MEASURED_HEADS`."""
    found, arithmetic = [], []
    heads = MEASURED_HEADS
    for out in owned_variables(list(outputs)):
        node = out.owner
        if len(node.outputs) != 1 or not (_is_head(node, heads) or isinstance(scalar_op_of(node), THROUGH)):
            continue
        if _is_head(node, heads) or _below_has_head(out, REGION_DEPTH, skip_root=True, heads=heads):
            found.append(out)
        else:
            arithmetic.append(out)
    roots = set(found)
    regions = {r: _region(r, heads, constants=True) for r in found}
    for r in arithmetic:  # a region of arithmetic alone, where it may cancel and holds no head's region
        region = _region(r, heads, constants=True)
        if _cancels_within(region) and not any(u in roots for u in region):
            found.append(r)
            regions[r] = region
    roots = set(found)
    covered: set[Variable] = set()
    for r in found:
        covered.update(u for u in regions[r] if u is not r and u in roots)
    return [(r, regions[r]) for r in found if r not in covered]


def _cancels_within(region: Sequence[Variable]) -> bool:
    """Whether a region of arithmetic holds a sum or difference (:data:`CANCELLING`) with an operand computed
    from inputs by a node: where floats cancel (Herbie's rational benchmarks, ``1/(x + 1) - 2/x + 1/(x - 1)``,
    ``x**-0.5 - (x + 1)**-0.5``; ``0.5 + 0.75 x (1 - x**2 / 3)``, a kernel's CDF, near -1), not ``x - mu`` or
    ``1 - p`` of inputs (one rounding)."""
    for u in region:
        node = u.owner
        if node is None or not isinstance(scalar_op_of(node), CANCELLING):
            continue
        if any(i.owner is not None and not is_left_padding(i.owner) and not _of_constants(i) for i in node.inputs):
            return True
    return False


def head_roots(outputs: Sequence[Variable]) -> list[Variable]:
    """Every region the numerics theory knows the head of (:data:`MEASURED_HEADS`): a head or arithmetic node
    with a head within :data:`REGION_DEPTH` levels below it (or a head itself), inside no other one's region."""
    return [r for r, _ in _head_regions(outputs)]


#: What the measured stage decided for a region (:data:`_OUTCOMES`' values besides a replacement): the numpy
#: screen (as written, or as PyTensor's rewrites leave it) found it accurate; too large to measure with
#: mpmath; accurate (or not measurable) as PyTensor compiles it; measured and no form of
#: ``relations.stabilize`` compiled more accurate.
PASSED, LARGE, ACCURATE, KEPT = "passed", "large", "accurate", "kept"


class _Region:
    """One region of a graph in the measured stage: its root, structure (:func:`_structure`), inputs in the
    structure's order, and, once screened, its cut copy and what was decided."""

    __slots__ = ("root", "key", "inputs", "copy", "leaves", "outcome")

    def __init__(self, root: Variable, key: Hashable | None, inputs: list[Variable]) -> None:
        self.root, self.key, self.inputs = root, key, inputs
        self.copy: Variable | None = None
        self.leaves: dict[Variable, Variable] = {}
        self.outcome: Any = None


def measured(outputs: Sequence[Variable], budget: MeasuredBudget | None = None) -> list[tuple[Variable, Variable]]:
    """The measured stage: every region of :func:`head_roots` whose error, measured on sampled inputs
    (:func:`relations.saturation.accuracy.sample_points`, Herbie's sampling), exceeds
    :data:`SCREEN_BITS` is given to :func:`relations.stabilize` (the numerics theory, forms chosen by
    measured error, Herbie's regimes); its result replaces the root where it compiles more accurate.

    Measuring with mpmath costs 0.1 s to seconds a region, so cheap steps come first.  Every
    outcome is kept per region structure (:func:`_structure`: its Ops, constants, connections and input
    types; :data:`_OUTCOMES`), so a region seen before (the same model's dlogp, a sampler's functions, a
    model compiled again) costs a walk of its nodes and a dict look-up: no screen, no measurement.  A
    region not seen before is screened in numpy (:func:`_wide_screen`: float64 against extended
    precision, about a millisecond); the flagged ones are rewritten as PyTensor's own rewrites leave them,
    all in one rewrite (:func:`_stock_forms`), and screened again; one computing more than
    :data:`SCREEN_ELEMENTS` elements a point is not measured (``large``).

    ``budget`` (:class:`MeasuredBudget`) bounds the regions measured per graph by count, cached ones
    included, in the graph's order: the same graph gives the same result whatever the machine's load and
    whatever was compiled before (what it skipped is counted in it, never silently)."""
    budget = budget or MeasuredBudget()
    t0 = time.perf_counter()
    regions = [_Region(root, *_keyed(root, region)) for root, region in _head_regions(outputs)]
    fresh: dict[Hashable, _Region] = {}  # one region of each structure not seen before (a key of None: its own)
    for k, r in enumerate(regions):
        if r.key is not None and r.key not in _OUTCOMES and _from_store(r.key):
            budget.stored += 1
        if r.key is None or r.key not in _OUTCOMES:
            fresh.setdefault(("new", k) if r.key is None else r.key, r)
    _screen_fresh(list(fresh.values()))
    pairs: list[tuple[Variable, Variable]] = []
    measuring = 0
    for r in regions:
        outcome = r.outcome
        if outcome is None and r.key is not None and r.key in _OUTCOMES:  # seen before (or earlier in this graph)
            outcome = _OUTCOMES[r.key]
            _OUTCOMES.move_to_end(r.key)
            budget.cached += 1
        if outcome is PASSED:
            budget.passed += 1
            continue
        if outcome is LARGE:
            budget.large += 1
            continue
        # a measurement, made now or cached: counted alike, so what is measured does not depend on the cache;
        # a region not screened and not known is one of a structure measured earlier in this graph, skipped
        if measuring >= budget.regions or (outcome is None and r.copy is None):
            budget.skipped += 1
            continue
        measuring += 1
        budget.measured += 1
        if outcome is None:  # measured now: a form reads the copy's leaves
            outcome = _measure(r, budget)
            if r.key is not None:
                STORE.put(r.key, _remember(r, outcome))
            if isinstance(outcome, Variable):
                pairs.append(_replacement(r.root, outcome, r.leaves))
                budget.replaced += 1
        elif isinstance(outcome, tuple):  # cached: a form over the inputs of the region it was found for
            form, their_inputs = outcome
            mine = clone_replace([form], replace=dict(zip(their_inputs, r.inputs, strict=True)))[0]
            pairs.append(_replacement(r.root, mine, {}))
            budget.replaced += 1
    budget.seconds_spent += time.perf_counter() - t0
    return pairs


def _screen_fresh(fresh: Sequence[_Region]) -> None:
    """The numpy screens of regions not seen before: :attr:`_Region.outcome` set (and remembered) for those
    passed or too large; the others keep a cut copy.  A region is flagged where the region, or the region
    over one of its critical sub-expressions (:func:`_narrowed`), is flagged (:func:`_flags`) both as
    written and as PyTensor's rewrites leave it."""
    flagged: list[tuple[_Region, list[Variable], list[bool]]] = []
    for r in fresh:
        with config.change_flags(traceback__limit=0):
            (copy,), r.leaves = _cut([r.root], MEASURED_HEADS, constants=True)
            r.copy = copy
            screened = _wide_screen(copy)
            targets = [copy] if _flagged_whole(copy, screened) else [
                n for _, _, n in _narrowed(copy) if _flags(_wide_screen(n), n)]
            full = _expanded(copy, r)  # a leaf cut from the region's inputs is no independent input there
            if copy not in targets and _lost_where_draws_are_thin(full, corners=_reads_inputs_only(r)):
                targets.append(full)  # besides its critical ones
        if not targets:
            r.outcome = PASSED
        elif screened.elements > SCREEN_ELEMENTS:
            r.outcome = LARGE
        else:  # corners only where a target reads no leaf sampled apart from the inputs it is computed from
            flagged.append((r, targets, [_reads_inputs_only(r) if t is full else _inputs_only(r) for t in targets]))
        if r.outcome is not None:
            _remember(r, r.outcome)
    if not flagged:
        return
    with config.change_flags(traceback__limit=0):
        stock = _stock_forms([t for _, targets, _ in flagged for t in targets])
    start = 0
    for r, targets, corners in flagged:  # each region's targets, rewritten in one call, in order
        forms = stock[start:start + len(targets)]
        start += len(targets)
        if not any(_flagged_whole(form, _wide_screen(form)) or _lost_where_draws_are_thin(form, c)
                   for form, c in zip(forms, corners, strict=True)):
            r.outcome = PASSED
            _remember(r, PASSED)


def _remember(r: _Region, outcome: Any) -> Any:
    """Keep ``outcome`` for ``r``'s structure (a replacement over the copy's leaves, in the structure's order),
    and return what is kept."""
    if r.key is None:
        return outcome
    if isinstance(outcome, Variable):
        mine = {v: k for k, v in r.leaves.items()}
        outcome = (outcome, [mine.get(i, i) for i in r.inputs])
    _OUTCOMES[r.key] = outcome
    while len(_OUTCOMES) > CACHE_SIZE:
        _OUTCOMES.popitem(last=False)
    return outcome


def _from_store(key: Hashable) -> bool:
    """Whether :data:`STORE` holds a measurement of ``key``'s structure (then kept in :data:`_OUTCOMES`)."""
    kept = STORE.get(key)
    if isinstance(kept, str) and kept in (ACCURATE, KEPT):
        _OUTCOMES[key] = ACCURATE if kept == ACCURATE else KEPT  # the module's constants, compared by identity
        return True
    if isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[0], Variable):
        _OUTCOMES[key] = kept
        return True
    return False


def clear_outcomes(store: bool = True) -> None:
    """Forget every outcome of the measured stage: in memory, and with ``store`` on disk (:data:`STORE`)."""
    _OUTCOMES.clear()
    if store:
        STORE.clear()


def _measure(r: _Region, budget: MeasuredBudget) -> Any:
    """What :func:`relations.stabilize` finds for a flagged region: the form (over the copy's leaves) where it
    compiles more accurate than the region, else :data:`ACCURATE` or :data:`KEPT`.  Where the region reads
    more than one input, the region over a critical sub-expression (:func:`_narrowed`) is measured too, as
    Herbie finds regimes on one: its form must compile more accurate than it over the sub-expression's
    values, and no less accurate than the region over the region's inputs; so is each part of a sum that
    reads one input (:func:`relations.compile.separable.separated`: the Student-t entropy's ``df`` terms
    beside ``log(scale)``), the rest added back."""
    assert r.copy is not None
    with config.change_flags(traceback__limit=0):
        whole = _screen(r.copy, corners=True)
        origins = _leaf_origins(r)
        full = _expanded(r.copy, r, origins)  # the region over its inputs: its cut leaves computed again
        candidates = _candidates(r, whole, origins, full)
        # the whole region over its inputs: where over its leaves it was not found losing (the normal log-CDF over
        # x - mu is), and last where over its leaves no form was found (a leaf cut below the region's depth is an
        # input the identities cannot see through: ``x**2`` under ``exp(-x**2 / 2) / erfc(x / sqrt(2))``); tried
        # only when the candidates before it found nothing (the normal log-CDF's expansion costs a minute more)
        screened: list[Any] = []

        def full_points() -> Any:  # the region over its inputs screened once, and only when a step reads it
            if not screened:
                screened.append(_screen(full, corners=True) if full is not r.copy else None)
            return screened[0]

        if full is not r.copy and (candidates or full_points() is not None):
            candidates.append((full, None, _same, full))  # its points (None here) screened when it is reached
        if not candidates:
            return ACCURATE
        budget.stabilized += 1
        found = _stabilized_form(r.root)
        over_leaves = None  # a form better over the leaves, not where the leaves are computed from the inputs
        for target, pts, put_back, reference in candidates:
            if pts is None and (pts := full_points()) is None:
                continue
            if (new := found(target)) is None:
                continue
            if put_back is None:
                if (new := _better_or_refined(found, new, r.copy, pts)) is not None:
                    # over the leaves it may repair what no input reaches (``3 / x`` drawn apart from ``x`` in
                    # Distributions.jl's biweight mgf, ``(x + 3 / x) sinh(x) - 3 cosh(x)``, which cancels at 0):
                    # where the region over its inputs loses, the form must not lose there, else the region over
                    # its inputs is measured too, and the form kept for when that finds none better
                    if (losing := full_points()) is None or not _loses(_expanded(new, r, origins), losing):
                        return new
                    over_leaves = new
                continue
            if target is full and over_leaves is not None and not _fewer_bits(new, _expanded(over_leaves, r, origins),
                                                                              pts):
                continue  # no more accurate on average than the form over the leaves: that one is kept
            if (new := _better_or_refined(found, new, target, pts)) is None:
                continue
            if (form := put_back(new)).type.ndim == r.root.type.ndim and _compiles_no_worse(form, reference):
                return form  # (one computing a leaf again is kept under a key that holds how: _keyed)
        split = _by_pieces([(t, full_points() if p is None else p, b, ref) for t, p, b, ref in candidates
                            if p is not None or full_points() is not None], found)
        return split if split is not None else over_leaves if over_leaves is not None else KEPT


#: A candidate of :func:`_measure`: the target, its points (``None``: screened when reached), the region's form
#: from the target's (``None``: the target is the region), and what that form must be no worse than.
_Candidate = tuple[Variable, Any, Callable[[Variable], Variable] | None, Variable]


def _candidates(r: _Region, whole: Any, origins: Any, full: Variable) -> list[_Candidate]:
    """What :func:`_measure` offers :func:`relations.stabilize` before the region over its inputs: the critical
    sub-expressions first (their regimes see the whole range of their values, where draws of the region's inputs
    seldom reach the corner the whole region's regimes would have to split at), then the parts of a sum that read
    one input each (a series is of one input), then the region where its screen (``whole``) flagged it."""
    from relations.compile.separable import separated

    assert r.copy is not None
    candidates: list[_Candidate] = [
        (narrow, pts, _put_back(leaf, operand), r.copy) for operand, leaf, narrow in _narrowed(r.copy)
        if (pts := _screen(narrow)) is not None]
    for part, rest in separated(r.copy, origins):
        target = _expanded(part, r, origins)
        if (pts := _screen(target, corners=True)) is not None:
            candidates.append((target, pts, _plus(rest), full))
    if whole is not None:
        candidates.append((r.copy, whole, None, r.copy))
    return candidates


def _stabilized_form(root: Variable) -> Callable[..., Variable | None]:
    """What :func:`relations.stabilize` finds for a target of ``root``'s region (with ``first`` points measured
    before its sample): its form, where it changed the target and keeps ``root``'s dtype and ndim; else
    ``None``."""
    from relations.saturation.stabilizing import stabilize

    def found(target: Variable, first: Any = None) -> Variable | None:
        try:
            s = stabilize(target, limits=PASS_LIMITS, n=32, regimes=True, first=first)
        except (ValueError, TypeError, IndexError, NotImplementedError):  # a region it cannot sample or measure
            return None  # (a reduction over a length-0 axis): kept, never a failed compile
        if not s.changed or s.graph.type.dtype != root.type.dtype or s.graph.type.ndim != root.type.ndim:
            return None
        return s.graph

    return found


def _by_pieces(candidates: Sequence[tuple[Variable, Any, Any, Variable]],
               found: Callable[[Variable], Variable | None]) -> Variable | None:
    """A whole-region candidate split at its own branches and each piece stabilized alone
    (:func:`relations.compile.pieces.by_pieces`: PyTorch's Laplace quantile, ``abs`` and ``sign`` of ``q - 0.5``),
    where it compiles more accurate than the target and no less accurate than its reference."""
    from relations.compile.pieces import by_pieces

    for target, pts, put_back, reference in candidates:
        if put_back is not None and put_back is not _same:
            continue
        try:
            form = by_pieces(target, found)
        except (ValueError, TypeError):  # pieces PyTensor cannot build: the region kept, never a failed compile
            continue
        if form is not None and _compiles_better(form, target, pts) and _compiles_no_worse(form, reference):
            return form
    return None


#: The critical sub-expressions :func:`_narrowed` offers at most.
CRITICAL = 1


def _put_back(leaf: Variable, operand: Variable) -> Callable[[Variable], Variable]:
    """A form found over a critical sub-expression's leaf, as a form of the region (the operand for the leaf)."""
    return lambda form: clone_replace([form], replace={leaf: operand})[0]


#: A leaf :func:`_computed_from` may read up to this many inputs its region does not read itself, where it is
#: computed by up to :data:`LEAF_NODES` nodes: pseudo-Huber's ``r / d`` under ``d**2 * (sqrt(1 + t**2) - 1)``,
#: a complex root's ``re*re + im*im`` under ``sqrt(2 (sqrt(t) - re))``.  Beyond, a leaf is one of a model's
#: computations, which the region over its inputs would copy whole.
LEAF_EXTRA_INPUTS = 2
LEAF_NODES = 4


def _computed_from(v: Variable, own: set[Variable]) -> frozenset[Variable] | None:
    """The inputs ``v`` (a leaf the region cut) is computed from, where ``v`` is elementwise in them and they are
    inputs the region reads itself (``own``), or all but :data:`LEAF_EXTRA_INPUTS` of them with ``v`` computed by
    :data:`LEAF_NODES` nodes or fewer: a leaf the measured stage may compute again; else ``None``."""
    from graph_bridge.nodes import elementwise_in_inputs

    reads = frozenset(i for i in explicit_graph_inputs([v]) if not isinstance(i, Constant))
    if not reads or not elementwise_in_inputs([v]):
        return None
    if reads <= own or (len(reads - own) <= LEAF_EXTRA_INPUTS and len(owned_variables([v])) <= LEAF_NODES):
        return reads
    return None


def _leaf_origins(r: _Region) -> dict[Variable, frozenset[Variable]]:
    """The region's leaves of :func:`_computed_from`, each with its inputs
    (:func:`relations.compile.separable.separated` reads a term of them as a term of those inputs)."""
    assert r.copy is not None
    own = {i for i in explicit_graph_inputs([r.copy]) if not isinstance(i, Constant)} - set(r.leaves)
    found = {leaf: _computed_from(original, own) for leaf, original in r.leaves.items()}
    return {leaf: reads for leaf, reads in found.items() if reads is not None}


def _reads_inputs_only(r: _Region) -> bool:
    """Whether the region's copy, its leaves of :func:`_leaf_origins` computed again, reads no leaf."""
    return _inputs_only(r) or not set(r.leaves) - set(_leaf_origins(r))


def _expanded(v: Variable, r: _Region, origins: Mapping[Variable, Any] | None = None) -> Variable:
    """``v`` (a graph of the region's copy) with each leaf of :func:`_leaf_origins` (``origins``, when the caller
    has them) its original computation."""
    expand = {leaf: r.leaves[leaf] for leaf in (_leaf_origins(r) if origins is None else origins)}
    return clone_replace([v], replace=expand)[0] if expand else v


def _same(form: Variable) -> Variable:
    return form


def _plus(rest: Variable) -> Callable[[Variable], Variable]:
    """A form found for a part of a sum (:func:`relations.compile.separable.separated`), as the whole sum."""
    return lambda form: pt.add(form, rest)


def _narrowed(copy: Variable) -> list[tuple[Variable, Variable, Variable]]:
    """Herbie's critical sub-expressions of a region reading more than one input: the operands of its heads
    (innermost first) that read two inputs or more, such as ``-(x - mu) / (sigma * sqrt(2))`` under a normal
    log-CDF's ``erfc`` (regimes on one of ``x``, ``mu``, ``sigma`` cannot split where the value changes
    form, and draws of three inputs rarely reach the corner where it is lost).  Each as ``(operand, leaf,
    the region with the operand a fresh leaf)``, at most :data:`CRITICAL`."""
    from pytensor.graph.traversal import toposort

    if not _several_elementwise(copy):
        return []
    found: list[Variable] = []
    for node in toposort([copy]):
        if _is_head(node, MEASURED_HEADS):
            found.extend(i for i in node.inputs if i.owner is not None and i not in found and _reads(i) >= 2)
    out = []
    for operand in found[:CRITICAL]:
        leaf = operand.type()
        out.append((operand, leaf, clone_replace([copy], replace={operand: leaf})[0]))
    return out


def _replacement(root: Variable, form: Variable, leaves: dict[Variable, Variable]) -> tuple[Variable, Variable]:
    new = clone_replace([form], replace=leaves)[0] if leaves else form
    new = root.type.filter_variable(new, allow_convert=True)
    copy_stack_trace(root, [v for v in owned_variables([new]) if not getattr(v.tag, "trace", None)])
    return root, new


#: What the measured stage decided per region structure (:func:`_structure`), the last :data:`CACHE_SIZE`:
#: :data:`PASSED`, :data:`LARGE`, :data:`ACCURATE`, :data:`KEPT`, or the form that replaces it with the
#: inputs it reads in the structure's order.  A model compiled again (its logp, its dlogp, a sampler's
#: functions) pays the screens, the mpmath measurement and ``relations.stabilize`` once per region.
_OUTCOMES: OrderedDict[Hashable, Any] = OrderedDict()
CACHE_SIZE = 4096
#: The measurements (:data:`ACCURATE`, :data:`KEPT` or a replacement) kept across processes, in PyTensor's
#: compile directory (:class:`relations.compile.outcome_store.OutcomeStore`): a model compiled again in a new
#: process reads them instead of measuring.  ``STORE = OutcomeStore(other_dir)`` moves it.
STORE = OutcomeStore()


#: Constants of more bytes than this are held in a region's structure by their digest (a model's data).
DIGEST_BYTES = 1024


def _constant_key(data: Any) -> Hashable:
    """A constant's value in a region's structure: its shape and bytes (their SHA-256 digest above
    :data:`DIGEST_BYTES`), or the object itself where it is not an array of numbers (a slice, ``None``)."""
    arr = np.asarray(data)
    if arr.dtype.kind == "O":
        return data
    raw = arr.tobytes()
    return (arr.shape, str(arr.dtype), hashlib.sha256(raw).digest() if len(raw) > DIGEST_BYTES else raw)


def _structure(root: Variable, region: Sequence[Variable]) -> tuple[Hashable | None, list[Variable]]:
    """The structure of ``root``'s region (the variables ``region``, every other input a leaf, as
    :func:`_cut` copies it) and its inputs in that structure's order.

    The structure lists each node once, inputs before the node, in the order a walk from the root reads
    them: its Op (PyTensor's Ops compare by their parameters), its inputs (a node's place, a constant's
    type and value, or an input's place and type) and which output is read.  Two regions of one structure
    compute the same function of their inputs taken in order.  ``None`` (not cached) where an Op or a
    constant is not hashable."""
    inside = set(region)
    index: dict[Variable, tuple] = {}
    inputs: list[Variable] = []
    parts: list[tuple] = []
    stack: list[tuple[Variable, bool]] = [(root, False)]
    while stack:
        v, ready = stack.pop()
        if v in index:
            continue
        node = v.owner
        if v not in inside or node is None:
            if isinstance(v, Constant):
                index[v] = ("c", v.type, _constant_key(v.data))
            else:
                index[v] = ("x", len(inputs), v.type)
                inputs.append(v)
        elif ready:
            parts.append((node.op, tuple(index[i] for i in node.inputs), node.outputs.index(v)))
            index[v] = ("n", len(parts) - 1)
        else:
            stack.append((v, True))
            stack.extend((i, False) for i in reversed(node.inputs) if i not in index)
    key = tuple(parts)
    try:
        hash(key)
    except TypeError:
        return None, inputs
    return key, inputs


def _keyed(root: Variable, region: Sequence[Variable]) -> tuple[Hashable | None, list[Variable]]:
    """:func:`_structure`, its key joined by the structure of each leaf of :func:`_computed_from` (what
    :func:`_expanded` computes again: a form found for one such region reads how its leaves are
    computed, and is kept for regions that compute them alike), each over the region's inputs' places; the
    inputs such a leaf reads that the region does not read itself follow the region's own."""
    key, inputs = _structure(root, region)
    own = {v for v in inputs if v.owner is None and not isinstance(v, Constant)}
    leaves = []
    for k, v in enumerate(list(inputs)):
        if v.owner is None or _computed_from(v, own) is None:
            continue
        sub, sub_inputs = _structure(v, list(owned_variables([v])))
        if sub is None:
            return None, inputs
        inputs += [i for i in sub_inputs if i not in inputs]  # what the region does not read itself, after its own
        leaves.append((k, sub, tuple(inputs.index(i) for i in sub_inputs)))
    if key is None or not leaves:
        return key, inputs
    return (key, ("leaves", tuple(leaves))), inputs


def _wide_screen(copy: Variable) -> Screened:
    """The cheap screen: the mean bits the region as written, in float64, is off its value in extended
    precision (:func:`graph_bridge.wide_float.wide_screen`: numpy only, no compile, no mpmath), the
    elements one point computes and those lost whole.  ``None``: a non-float input (nothing to sample, as
    :func:`_screen`), or an Op the extended evaluation does not know (the mpmath screen took up to minutes
    on such regions)."""
    from graph_bridge.wide_float import wide_screen

    try:
        return wide_screen(copy, n=WIDE_POINTS, grid=True)
    except (NotImplementedError, ValueError, TypeError, IndexError):
        return Screened(None, 0)


def _several_elementwise(v: Variable) -> bool:
    """Whether ``v`` reads two inputs or more and is elementwise in them: where regimes on a critical
    sub-expression apply (regimes split elementwise graphs only), and where a value lost at one point flags."""
    from graph_bridge.nodes import elementwise_in_inputs

    return _reads(v) >= 2 and elementwise_in_inputs([v])


def _reads(v: Variable) -> int:
    """The inputs (not constants) ``v`` is computed from."""
    return sum(1 for i in explicit_graph_inputs([v]) if not isinstance(i, Constant))


def _flags(screened: Screened, region: Variable) -> bool:
    """Whether a numpy screen flags a region: a mean error above :data:`WIDE_BITS`, or, for a region of two
    inputs or more elementwise in them (where regimes apply), a value lost whole at some point (the normal
    log-CDF ``log(0.5 * erfc(-(x - mu) / (sigma * sqrt(2))))`` is ``-inf`` where ``(x - mu) / sigma`` is below
    -38, a corner of three inputs' draws that leaves the mean at half a bit)."""
    if screened.mean is None:
        return False
    return screened.mean > WIDE_BITS or (screened.lost > 0 and _several_elementwise(region))


def _stock_forms(copies: Sequence[Variable]) -> list[Variable]:
    """The regions as PyTensor's own rewrites up to ``specialize`` leave them (:data:`STOCK_REWRITES`), in
    one rewrite: its stabilizers repair ``log(sigmoid(x))`` and the like themselves, and only what they
    leave is measured."""
    from pytensor.graph.rewriting.utils import rewrite_graph

    out = rewrite_graph(list(copies), include=STOCK_REWRITES, clone=True)
    assert isinstance(out, list)
    return out


def _screen(copy: Variable, corners: bool = False) -> Any:
    """The points where the region, as PyTensor's own rewrites compile it (:data:`STOCK`), has a mean error
    above :data:`SCREEN_BITS`: sampled points (Herbie's), else the points of
    :data:`~relations.saturation.accuracy.GRID`, where bit-uniform draws are thin (``softplus(x) - x``
    cancels for x in [20, 700] only), else (``corners``: a whole region, not a critical sub-expression, whose
    form found at its own corners may not carry to the region) the corners where it loses a value whole
    (:func:`relations.saturation.stabilizing.corner_points`) and the points near where it cancels
    (:func:`relations.saturation.stabilizing.cancellation_sample`); for a region of two inputs or more, also points
    where a value is lost (:data:`LOST_BITS`, as :func:`_flags`).  With ``corners``, every kind that flags it,
    joined: a form is then chosen better where any of them found the loss (the normal KL's sampled points
    lose 10 bits no form repairs, its diagonal points 40 that one does); without, the first.  A kind whose points
    cannot be drawn is passed over (the grid of a region reshaped to a constant shape); ``None``: it is accurate
    on all, or cannot be measured."""
    from relations.saturation.accuracy import graph_error, grid_points, sample_points
    from relations.saturation.regimes import join_points
    from relations.saturation.stabilizing import cancellation_sample, corner_points, diagonal_points

    several = _several_elementwise(copy)
    kinds: list[Callable[[], Any]] = [lambda: sample_points([copy], SCREEN_POINTS, tries=SCREEN_TRIES),
                                      lambda: grid_points([copy])]
    if corners:
        kinds += [lambda: corner_points([copy]), lambda: cancellation_sample([copy]), lambda: diagonal_points([copy])]
    found = None
    for kind in kinds:  # without corners, each drawn only where the ones before it found the region accurate
        try:
            pts = kind()
        except (ValueError, TypeError, NotImplementedError):  # this kind's points cannot be drawn: the others can
            continue
        if pts is None or not pts.n:
            continue
        try:
            [(mean, top)] = graph_error([copy], pts, STOCK)
        except (ValueError, TypeError, NotImplementedError):  # an integer leaf, an Op with no exact meaning
            return found
        if not _over_screen(mean, top, several):
            continue
        if not corners:
            return pts
        try:
            found = pts if found is None else join_points(found, pts)
        except ValueError:  # points whose shapes do not broadcast together: those found first are kept
            continue
    return found


#: Bits a form found on a critical sub-expression may lose at a point of the whole region (:func:`_measure`):
#: the sub-expression's rounding flows through the form's switch (``log1p(-0.5 * erfc(-z))`` over ``z = -(x -
#: mu) / (sigma * sqrt(2))`` is 2.6 bits off at x - mu = 30, sigma = 40, where the spelling is 1 bit off).
CRITICAL_SLACK = 2.0


def _fewer_bits(new: Variable, old: Variable, pts: Any) -> bool:
    """Whether ``new``, compiled with PyTensor's own rewrites, has a lower mean error than ``old`` so compiled at
    ``pts`` (by more than :data:`~relations.saturation.accuracy.TIE_BITS`)."""
    from relations.saturation.accuracy import TIE_BITS, graph_error

    try:
        [(a, _)], [(b, _)] = graph_error([new], pts, STOCK), graph_error([old], pts, STOCK)
    except (ValueError, TypeError, NotImplementedError):
        return False
    return a < b - TIE_BITS


def _loses(form: Variable, pts: Any) -> bool:
    """Whether ``form``, compiled with PyTensor's own rewrites, loses at ``pts`` as :func:`_screen` flags a region:
    a mean error above :data:`SCREEN_BITS`, or for a region of several inputs a value lost (:data:`LOST_BITS`)."""
    from relations.saturation.accuracy import graph_error

    try:
        [(mean, top)] = graph_error([form], pts, STOCK)
    except (ValueError, TypeError, NotImplementedError):
        return True
    return _over_screen(mean, top, _several_elementwise(form))


def _over_screen(mean: float, top: float, several: bool) -> bool:
    """Whether bits of error measured at points (their mean and largest) flag a region (``several``: of two inputs
    or more, elementwise in them): a mean above :data:`SCREEN_BITS`, or a value lost (:data:`LOST_BITS`)."""
    return mean > SCREEN_BITS or (several and top >= LOST_BITS)


def _compiles_no_worse(new: Variable, copy: Variable) -> bool:
    """Whether ``new``, compiled with PyTensor's own rewrites, is no less accurate than ``copy`` so compiled (by
    more than :data:`CRITICAL_SLACK` bits) at sampled points and at the points of
    :data:`~relations.saturation.accuracy.GRID`."""
    from relations.saturation.accuracy import grid_points, more_accurate, sample_points

    try:
        sampled = sample_points([copy], SCREEN_POINTS, tries=SCREEN_TRIES)
        return all(more_accurate([new], [copy], pts, STOCK, strictly=False, slack=CRITICAL_SLACK)
                   for pts in (sampled, grid_points([copy])) if pts.n)
    except (ValueError, TypeError, NotImplementedError):
        return False


def _compiles_better(new: Variable, copy: Variable, pts: Any) -> bool:
    """Whether ``new``, compiled with PyTensor's own rewrites, is more accurate than ``copy`` so compiled, on
    the screening points and (no worse) at every point of :data:`~relations.saturation.accuracy.GRID`:
    PyTensor's stabilizers repair some spellings themselves (``log(erfc(x))`` at large x), and a form
    measured better as written may stand in their way (``log1p(-erf(x))``)."""
    return _better_on(new, copy, pts) and _no_loss_elsewhere(new, copy)


def _better_on(new: Variable, copy: Variable, pts: Any) -> bool:
    """:func:`_compiles_better` on the screening points and the grid only (not elsewhere)."""
    from relations.saturation.accuracy import grid_points, more_accurate

    return (more_accurate([new], [copy], pts, STOCK)
            and more_accurate([new], [copy], grid_points([copy]), STOCK, strictly=False))


def _no_loss_elsewhere(new: Variable, copy: Variable) -> bool:
    """Whether ``new``, as PyTensor's rewrites and the fast pass leave it (:data:`STOCK`), is no less accurate
    than ``copy`` so left at the points where the numpy screen finds it may lose 8 bits more where ``copy`` is
    accurate (:func:`_lost_elsewhere`)."""
    return _lost_elsewhere(new, copy) is None


def _lost_elsewhere(new: Variable, copy: Variable) -> Any:
    """The points (with exact values) where ``new``, as :data:`STOCK` leaves it, is less accurate than ``copy``
    among those where the numpy screen finds it may lose 8 bits more where ``copy`` is accurate
    (:func:`graph_bridge.wide_float.losing_points`, among a few thousand: the grid's magnitudes and the corners
    crossed over the inputs), measured on exact values: the exact measurement reads a few dozen points, and a
    form better there lost a value whole elsewhere, where the fast pass had the spelling right.  ``None`` where
    it loses at none of them, or the screen finds no such point or does not take the graphs."""
    from graph_bridge.wide_float import losing_points
    from relations.saturation.accuracy import more_accurate, points_at

    with config.change_flags(traceback__limit=0):
        stock_new, stock_copy = _stock_forms([new, copy])
    try:
        at = losing_points(stock_new, stock_copy)
        if at is None or any(v.type.ndim > 1 for v in at):
            return None
        pts = points_at([copy], at, ())
        return None if more_accurate([new], [copy], pts, STOCK, strictly=False) else pts
    except (NotImplementedError, ValueError, TypeError, IndexError):  # an Op a screen does not evaluate
        return None


def _better_or_refined(found: Callable[..., Variable | None], new: Variable, target: Variable,
                       pts: Any) -> Variable | None:
    """``new`` (:func:`relations.stabilize`'s form of ``target``) where it compiles more accurate than ``target``
    (:func:`_compiles_better`); else, where it is more accurate on the screen's points but lost elsewhere
    (:func:`_lost_elsewhere`: points its sample did not hold), the form found again with those points measured
    first, where that one compiles more accurate; else ``None``.  (A zero-inflated ``log((1 - psi) + psi
    exp(-mu))`` is taken as ``log1p(psi expm1(-mu))`` on the sample, 60 bits off at ``psi = 1``, ``mu = 40``,
    where the spelling is right; the theory holds no regime that keeps the spelling there, so the second round
    finds none better and the region is kept.)"""
    if not _better_on(new, target, pts):
        return None
    if (lost := _lost_elsewhere(new, target)) is not None:
        again = found(target, first=lost)
        return again if again is not None and _compiles_better(again, target, pts) else None
    if (losing := _still_losing(new, pts)) is not None:
        again = found(target, first=losing)
        if again is not None and _compiles_better(again, new, pts):  # (no worse than the first anywhere measured)
            return again
    return new


def _still_losing(form: Variable, pts: Any) -> Any:
    """The points of ``pts`` where ``form``, compiled with PyTensor's own rewrites, still loses a value whole
    (:data:`LOST_BITS`), or ``None``."""
    from relations.saturation.accuracy import graph_bits

    try:
        [bits] = graph_bits([form], pts, STOCK)
    except (ValueError, TypeError, NotImplementedError):
        return None
    lost = (bits.reshape(pts.n, -1) >= LOST_BITS).any(axis=1)  # (NaN, an unknown exact value, is not lost)
    return pts.rows(np.flatnonzero(lost)) if lost.any() else None


class MeasuredBudget:
    """How many regions the measured stage may measure in one graph (a count, cached measurements included:
    the same graph gives the same result under any load and after any other compile), and what it did:
    regions passed by the numpy screens, too large to measure, found in the cache (in memory, or read from
    :data:`STORE`: ``stored``), measured, given to :func:`relations.stabilize`, replaced, and skipped once
    ``regions`` were measured.  ``seconds_spent`` is informative only (no decision reads it)."""

    def __init__(self, regions: int = MEASURED_REGIONS) -> None:
        if isinstance(regions, bool) or not isinstance(regions, int) or regions < 0:
            raise ValueError(f"regions must be a non-negative int, got {regions!r}")
        self.regions = regions
        self.passed = self.large = self.cached = self.measured = 0
        self.stabilized = self.replaced = self.skipped = self.stored = 0
        self.seconds_spent = 0.0

    def __repr__(self) -> str:
        return (f"MeasuredBudget(regions={self.regions}, passed={self.passed}, large={self.large}, "
                f"cached={self.cached}, measured={self.measured}, stabilized={self.stabilized}, "
                f"replaced={self.replaced}, skipped={self.skipped}, stored={self.stored})")


class StabilizingRewriter(GraphRewriter):
    """The pass: :func:`stabilized` on a FunctionGraph, its replacements made at once (reason :data:`NAME`)."""

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph: FunctionGraph) -> None:
        pairs = stabilized(fgraph.outputs)
        if pairs:
            fgraph.replace_all_validate(pairs, reason=NAME)

    def __str__(self) -> str:
        return NAME


class MeasuredRewriter(GraphRewriter):
    """The measured stage (:func:`measured`) as a pass, tag :data:`MEASURED_NAME` (opt in:
    ``relations.mode("relational", "relational_stabilize", "relational_measured")``).  A region seen before
    costs a walk of its nodes (:data:`_OUTCOMES`); a new one a millisecond of numpy screens; a new region
    the screens flag is measured and given to ``relations.stabilize``, seconds to tens of seconds, once per
    process (``benchmarks/measured_pass.py`` has the PyMC models' figures, warm and cold).  :attr:`last`
    is the last graph's :class:`MeasuredBudget`."""

    last: MeasuredBudget | None = None

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph: FunctionGraph) -> None:
        self.last = MeasuredBudget()
        more = measured(fgraph.outputs, self.last)
        if more:
            fgraph.replace_all_validate(more, reason=MEASURED_NAME)

    def __str__(self) -> str:
        return MEASURED_NAME


def register_measured() -> MeasuredRewriter:
    """Register the measured stage in ``optdb`` as :data:`MEASURED_NAME` at :data:`MEASURED_POSITION`, before
    canonicalize (off unless included)."""
    existing = optdb.__db__.get(MEASURED_NAME)
    if existing:
        return next(iter(existing))
    rewriter = MeasuredRewriter()
    optdb.register(MEASURED_NAME, rewriter, position=MEASURED_POSITION)
    return rewriter


def register_stabilizing() -> StabilizingRewriter:
    """Register the pass in ``optdb`` under the tag :data:`NAME` at :data:`POSITION` (off unless included)."""
    existing = optdb.__db__.get(NAME)
    if existing:  # a re-import: keep the first registration
        return next(iter(existing))
    rewriter = StabilizingRewriter()
    optdb.register(NAME, rewriter, position=POSITION)
    return rewriter
