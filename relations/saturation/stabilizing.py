"""``relations.stabilize(graph)``: the most accurate form of a graph under the numerics theory, and a report.

The graph goes into the query engine's e-graph (:mod:`relations.saturation.engine`, with the
value-interval analysis the theory's guards read), saturates with the numerics theory
(:mod:`relations.rules.numerics`, a few hundred identities, each guarded where it does not
hold everywhere) within :data:`LIMITS`, and every class's form is chosen for the fewest bits of
error on inputs sampled as Herbie samples them (:mod:`relations.saturation.accuracy`).  The
result is compared with the input on the same points, both evaluated Op by Op as written
(no PyTensor rewrite): when it is not more accurate (mean bits of error lower by more than
:data:`~relations.saturation.accuracy.TIE_BITS`, maximum not higher), the input is returned
unchanged.  The report lists the sites that changed: the input's sub-graph, its replacement,
and the error of each, so an author can audit a logp graph before sampling.

Before/After (``log(1 + exp(x))``, inputs over all float64 values)::

    >>> import pytensor.tensor as pt, relations
    >>> x = pt.dvector("x")
    >>> r = relations.stabilize(pt.log(1 + pt.exp(x)))
    >>> r.graph.owner.op
    Softplus
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pytensor.graph.basic import Variable
from pytensor.graph.rewriting.basic import copy_stack_trace
from pytensor.graph.traversal import explicit_graph_inputs

from graph_bridge.float_error import bits_of_error
from graph_bridge.interval_type import Interval
from graph_bridge.nodes import elementwise_in_inputs
from relations.arguments import as_variables
from relations.greedy.fixpoint import normalize_variables
from relations.patterns.relation import RuleIndex
from relations.rules.precision import PRECISION_RULES
from relations.saturation.accuracy import (
    TIE_BITS,
    Choice,
    ClassExact,
    Points,
    build_choice,
    canonical,
    error_summary,
    graph_error,
    grid_points,
    measured_choice,
    more_accurate,
    node_values,
    own_enode,
    points_at,
    read_through,
    sample_points,
)
from relations.saturation.engine.analysis import IntervalAnalysis
from relations.saturation.engine.egraph import EGraph
from relations.saturation.engine.query import QueryRule, query_rule
from relations.saturation.engine.runner import BackoffScheduler, Limits, Report, Runner
from relations.saturation.regimes import (
    Regimes,
    exact_at,
    infer_regimes,
    join_points,
    regimes_apply,
)

__all__ = ["FIT_POINTS", "LIMITS", "SCHEDULE", "Site", "Stabilized", "stabilize", "theory_rules"]

#: The default bounds of the saturation (the report names the one that stopped it).
LIMITS = Limits(nodes=3_000, iterations=8, seconds=1.0)
#: egg's BackoffScheduler, banned early: commutativity, associativity and distributivity match every sum and
#: product, and at egg's default (1,000 matches) they fill the node budget before the identities that
#: stabilize (``log(erfc(a)) = log(erfcx(a)) - a**2`` two steps below a ``log`` of a product) have run.
SCHEDULE = (30, 2)
#: The points the forms are chosen on (the first of the sample); all of them measure the result.
FIT_POINTS = 16

_THEORY: list[QueryRule] = []


def theory_rules() -> list[QueryRule]:
    """The numerics theory as query-engine rules (built once)."""
    if not _THEORY:
        from relations.rules.numerics import NUMERICS_RULES

        _THEORY.extend(query_rule(r) for r in NUMERICS_RULES)
    return _THEORY


@dataclass(frozen=True)
class Site:
    """A sub-graph of the input that was replaced: ``before``, ``after`` and their mean bits of error."""

    before: Variable
    after: Variable
    bits_before: float
    bits_after: float

    def __repr__(self) -> str:
        return f"Site({self.before} -> {self.after}: {self.bits_before:.1f} -> {self.bits_after:.1f} bits)"


@dataclass
class Stabilized:
    """What :func:`stabilize` found: ``outputs`` (the most accurate form; the input's own variables when
    nothing was more accurate), the error of each output before and after as ``(mean, max)`` bits
    over the points, the replaced ``sites``, the number of ``points``, and the saturation's ``report``."""

    outputs: list[Variable]
    before: list[tuple[float, float]]
    after: list[tuple[float, float]]
    sites: list[Site] = field(default_factory=list)
    points: int = 0
    report: Report | None = None
    extraction_converged: bool = True
    #: the regimes of outputs whose forms are joined by a switch (:mod:`relations.saturation.regimes`)
    regimes: list[Regimes] = field(default_factory=list)
    #: the ranges ``stabilize`` was told the inputs lie in: the forms equal the input there only
    domain: tuple[tuple[Variable, Interval], ...] = ()
    #: a form extracted had other exact values than the input at sampled points (an unsound union in the
    #: e-graph) and was refused
    unequal: bool = False

    @property
    def graph(self) -> Variable:
        """The single output (for a graph of one output)."""
        if len(self.outputs) != 1:
            raise ValueError(f"graph: this result has {len(self.outputs)} outputs; read .outputs")
        return self.outputs[0]

    @property
    def changed(self) -> bool:
        """Whether a more accurate form replaced the input."""
        return bool(self.sites)

    def __str__(self) -> str:
        lines = [f"stabilize: {self.points} sampled points; saturation stopped: "
                 f"{self.report.stop if self.report else '-'}"]
        for k, (b, a) in enumerate(zip(self.before, self.after, strict=True)):
            lines.append(f"output {k}: bits of error mean {b[0]:.1f} -> {a[0]:.1f}, max {b[1]:.1f} -> {a[1]:.1f}")
        for s in self.sites:
            lines.append(f"  {s.before}  ->  {s.after}   ({s.bits_before:.1f} -> {s.bits_after:.1f} bits)")
        for r in self.regimes:
            lines.append(f"  regimes on {r.variable} at {', '.join(f'{t:g}' for t in r.thresholds)}: "
                         + " | ".join(str(f) for f in r.forms))
        if self.unequal:
            lines.append("  a form found differs from the input at sampled points (an unsound union): refused")
        if not self.sites:
            lines.append("  no form more accurate than the input")
        elif self.domain:
            lines.append("  equal to the input where " + ", ".join(f"{v} in {i}" for v, i in self.domain) + " only")
        return "\n".join(lines)


def _bits(values: Sequence[np.ndarray], exact: Sequence[np.ndarray | None]) -> list[tuple[float, float]]:
    return [error_summary(v, e) for v, e in zip(values, exact, strict=True)]


def _sites(eg: EGraph, outputs: Sequence[Variable], cls: Mapping[Variable, int], choice: Choice,
           built: dict[int, Variable], mine: Mapping[Variable, np.ndarray], exact: ClassExact) -> list[Site]:
    """The topmost sub-graphs of the input whose class's chosen e-node is not the input's own."""
    sites: list[Site] = []
    seen: set[Variable] = set()
    stack = list(outputs)
    while stack:
        v = stack.pop()
        if v in seen or v.owner is None or v not in cls:
            continue
        seen.add(v)
        c = eg.find(cls[v])
        if read_through(eg, v, cls) or canonical(eg, own_enode(eg, v, cls) or ()) == canonical(eg, choice.enode[c]):
            stack.extend(v.owner.inputs)
            continue
        (after,) = build_choice(eg, choice, [c], built)
        ref = exact.get(c)
        before = error_summary(mine[v], ref)[0] if v in mine else float("inf")
        sites.append(Site(v, after, before, error_summary(choice.values[c], ref)[0]))
    return sites


def stabilize(
    graph: Any, *, rules: Sequence[Any] | None = None, limits: Limits | None = None, n: int = 64, seed: int = 0,
    points: Mapping[Variable, Any] | None = None, regimes: bool = True,
    domain: Mapping[Variable, Interval | tuple[float, float]] | None = None, first: Points | None = None,
) -> Stabilized:
    """The most accurate form of ``graph`` under ``rules`` (default: the numerics theory), with a report.

    ``n`` points are sampled as Herbie samples (``seed``); ``points`` gives some inputs' values
    instead (the points on the leading axis).  Raises ``ValueError`` naming an input that cannot be
    sampled (an integer input without ``points``).

    ``regimes``: where no single form is the most accurate at every point, infer Herbie's regimes
    (:mod:`relations.saturation.regimes`): forms joined by a switch on one input, the thresholds
    refined by bisection on exact values; the report's ``regimes`` lists them.

    ``first`` (:class:`~relations.saturation.accuracy.Points` over the graph's inputs, with exact values) are
    measured before the sample, so the forms are chosen there too: where a form chosen on the sample was
    found to lose elsewhere (the measured stage's counterexamples).

    ``domain`` states where inputs lie (Herbie's ``:pre``): ``{x: (0, inf)}`` (both ends included) or
    ``{x: Interval(0, inf, lo_open=True)}`` (``x > 0``).  Points are drawn there only, and the e-graph's
    interval analysis starts from these ranges, so an identity guarded by them applies (``log(x**m) =
    m * log(x)`` where ``x > 0``).  The form returned equals the input on the domain only; the report says
    so.  Raises ``ValueError`` naming a key that is not an input of the graph or an empty range."""
    outputs, _ = as_variables(graph, "graph")
    given = _domain(outputs, domain)
    qrules = theory_rules() if rules is None else [r if isinstance(r, QueryRule) else query_rule(r) for r in rules]
    sample = _sample(outputs, n, seed, points, given, first)
    eg = EGraph(IntervalAnalysis(inputs=dict(given)))
    cls = eg.add_graph_classes(outputs)
    roots = [eg.find(cls[o]) for o in outputs]
    report = Runner(eg, qrules, limits or LIMITS, BackoffScheduler(*SCHEDULE)).run()
    roots = _with_series(eg, outputs, roots)
    fit = sample.first(FIT_POINTS)
    exact = _pinned(ClassExact(eg, fit), roots, outputs)
    choice = measured_choice(eg, fit, exact)
    mine = node_values(eg, outputs, cls, fit)
    built: dict[int, Variable] = {}
    built_roots = precise(build_choice(eg, choice, roots, built))
    before = graph_error(outputs, sample)
    # where the form chosen is not accurate everywhere: Herbie's regimes, forms joined by a switch on an input,
    # fitted on the sample and the grid of magnitudes the result is checked on (binade-uniform draws seldom
    # hold the moderate inputs where special functions turn: x = 5 for the normal log-CDF)
    unequal = False
    fit_r = sample
    if points is None and elementwise_in_inputs(outputs):  # one entry per point: each is a point
        fit_r = join_points(sample if sample.values and sample.values[0].reshape(sample.n, -1).shape[1] == 1
                            else sample_points(outputs, n, size=1, seed=seed, domain=given),
                            grid_points(outputs).within(given))
    if regimes and regimes_apply(outputs, fit_r) and any(b[1] > 1.0 for b in graph_error(built_roots, fit_r)):
        found = infer_regimes(eg, roots, outputs, built_roots, fit_r,
                              _pinned(ClassExact(eg, fit_r), roots, outputs))
        if any(f is not None for f in found):
            joined = precise([r if f is None else f.graph if isinstance(f, Regimes) else f for f, r in
                              zip(found, built_roots, strict=True)])
            # measured on the points they were fitted on: the sample and the grid, where binade-uniform draws
            # may hold no point of the range a regime repairs (x = 5 for log(1 - 0.5 * erfc(x / sqrt(2))))
            before_r, after = graph_error(outputs, fit_r), graph_error(joined, fit_r)
            # the regimes checked at their splits, and equal to the input where both are known
            accepted = _accepted(outputs, joined, before_r, after, points is None, given)
            unequal = accepted and not _equal_on(outputs, joined, fit_r)
            if accepted and not unequal:
                sites = [Site(o, j, b[0], a[0]) for o, j, b, a in zip(outputs, joined, before_r, after, strict=True)
                         if o is not j]
                for s in sites:
                    copy_stack_trace(s.before, s.after)
                return Stabilized(joined, before_r, after, sites, fit_r.n, report, choice.converged,
                                  [f for f in found if isinstance(f, Regimes)], given)
    # judged on the sample and the grid too: a form exact where the sample is thin (``softplus(-x)`` for
    # ``softplus(x) - x``, which cancels for x in [20, 700], where 0.25% of binade-uniform draws fall) is
    # no better on the sample alone
    if fit_r is not sample:
        before = graph_error(outputs, fit_r)
    after = graph_error(built_roots, fit_r)
    accepted = _accepted(outputs, built_roots, before, after, points is None, given)
    equal = not accepted or _equal_on(outputs, built_roots, fit_r)
    if not (accepted and equal):
        return Stabilized(list(outputs), before, before, [], fit_r.n, report, choice.converged,
                          unequal=unequal or not equal)
    sites = _sites(eg, outputs, cls, choice, built, mine, exact)
    for s in sites:
        copy_stack_trace(s.before, s.after)
    return Stabilized(built_roots, before, after, sites, fit_r.n, report, choice.converged, domain=given)


_PRECISION = RuleIndex(PRECISION_RULES)


def precise(outputs: Sequence[Variable], on_rewrite: Any = None) -> list[Variable]:
    """``outputs`` with every unary Op of a narrower constant computed in the float dtype its Elemwise reads it in
    (:mod:`relations.rules.precision`: a right side's ``log(0.5)`` over the user's float32 ``0.5``;
    ``on_rewrite``: see :func:`relations.greedy.fixpoint.normalize_variables`)."""
    return normalize_variables(list(outputs), _PRECISION, on_rewrite=on_rewrite, mark=True)


def _with_series(eg: EGraph, outputs: Sequence[Variable], roots: list[int]) -> list[int]:
    """The roots, after the series forms of a one-input output at the points away from 0 where it cancels
    (:func:`relations.saturation.series.cancellation_series`), and of an output of several inputs where two of
    them nearly agree (:func:`relations.saturation.diagonal_series.diagonal_forms`), joined its class: each is
    a guarded form ``switch(near, polynomial, output)``, which extraction takes where it measures better
    (regimes seldom split off the few points near a cancellation: ``log((1 + k**2) / 2)`` near ``k = 1``).
    The expansions at 0 and at infinity stay regimes' candidates: their guard covers a range the fitted points
    hold too few of to choose the form it falls back to (``stirlerr``'s below 8)."""
    from relations.saturation.diagonal_series import diagonal_forms
    from relations.saturation.series import cancellation_series

    if len(outputs) != 1:
        return roots
    for form in cancellation_series(outputs[0]) + diagonal_forms(outputs[0]):
        eg.union(roots[0], eg.add_graph([form])[0], ("series", ()))
    eg.rebuild()
    return [eg.find(r) for r in roots]


def _sample(outputs: Sequence[Variable], n: int, seed: int, points: Mapping[Variable, Any] | None,
            domain: tuple, first: Points | None = None) -> Points:
    """``stabilize``'s points: ``n`` drawn (or ``points``), after, where none are given, the corners where the
    graph loses a value whole (:func:`corner_points`) and the points near where it cancels
    (:func:`cancellation_sample`, :func:`diagonal_points`), which come first: the forms are chosen on the
    first points, and so there too; ``first`` before them all.  Raises ``ValueError`` where no point gives a
    real value."""
    sample = sample_points(outputs, n, seed=seed, given=points, domain=domain)
    if points is None:
        for early in (cancellation_sample(outputs, domain), diagonal_points(outputs, domain),
                      corner_points(outputs, domain)):
            if early is not None and early.n:
                sample = join_points(early, sample)
    if first is not None and first.n:
        sample = join_points(first, sample)
    if sample.n == 0:
        raise ValueError(f"graph: no sampled point gives a real value ({sample.drawn} drawn); give points=")
    return sample


def cancellation_sample(outputs: Sequence[Variable], domain: tuple = ()) -> Points | None:
    """For one output of one float input, the points near where it cancels away from 0
    (:func:`relations.saturation.series.near_points`: ``log(x) - x + 1`` near 1), where bit-uniform draws
    seldom fall, with their exact values; ``None`` where there are none."""
    from relations.saturation.series import near_points

    at = near_points(outputs[0]) if len(outputs) == 1 else None  # None unless one float input, elementwise
    return None if at is None else points_at(outputs, at, domain)


def diagonal_points(outputs: Sequence[Variable], domain: tuple = ()) -> Points | None:
    """For one elementwise output of two float inputs or more (scalars or vectors), the points of
    :func:`graph_bridge.wide_float.diagonal_cancels` (where it cancels as two inputs nearly agree) inside
    ``domain``, with their exact values; ``None`` where there are none."""
    from graph_bridge.wide_float import diagonal_cancels

    return _screened_points(outputs, domain, diagonal_cancels)


def _screened_points(outputs: Sequence[Variable], domain: tuple, screen: Any) -> Points | None:
    """The points a numpy screen of one elementwise output (``screen(output)``: columns per input, or ``None``)
    gives, inside ``domain``, with their exact values."""
    if len(outputs) != 1 or not elementwise_in_inputs(outputs):
        return None
    try:
        at = screen(outputs[0])
    except (NotImplementedError, ValueError, TypeError, IndexError):
        return None
    if at is None or any(v.type.ndim > 1 for v in at):
        return None
    return points_at(outputs, at, domain)


def corner_points(outputs: Sequence[Variable], domain: tuple = ()) -> Points | None:
    """For one elementwise output whose inputs are scalars or vectors, the points of
    :func:`graph_bridge.wide_float.lost_corners` (where it loses a value whole at combinations of extreme
    magnitudes) inside ``domain``, with their exact values; ``None`` where there are none or the screen does not
    take the graph."""
    from graph_bridge.wide_float import lost_corners

    return _screened_points(outputs, domain, lost_corners)


def _equal_on(outputs: Sequence[Variable], new: Sequence[Variable], points: Any) -> bool:
    """Whether ``new`` has the exact values of ``outputs`` at the points (to an ulp; where both are known).

    The error of a form is measured against its own exact values, which trusts that every union of the
    e-graph is sound.  A union of expressions undefined on the same inputs is not (both are NaN there:
    ``x / sqrt(1 - x*x)`` and ``tan(arcsin(x))`` for ``|x| > 1``); congruence then spreads it, and
    ``log((x+1)/x)`` came out as ``log1p(x)``, measured exact.  So a form whose exact values differ from
    the input's is refused, and the report says so (:attr:`Stabilized.unequal`)."""
    olds, news = exact_at(outputs, points), exact_at(new, points)
    for o, n in zip(olds, news, strict=True):
        if o is None or n is None or o is n:
            continue
        o, n = np.broadcast_arrays(o, n)
        known = ~(np.isnan(o) | np.isnan(n))
        if known.any() and (bits_of_error(n[known], o[known]) > 1.0).any():
            return False
    return True


def _domain(outputs: Sequence[Variable], domain: Mapping[Variable, Any] | None,
            ) -> tuple[tuple[Variable, Interval], ...]:
    """``stabilize``'s ``domain`` as ``(input, Interval)`` pairs, checked."""
    if not domain:
        return ()
    inputs = set(explicit_graph_inputs(list(outputs)))
    found = []
    for v, r in domain.items():
        if v not in inputs:
            raise ValueError(f"domain: {v} is not an input of the graph")
        if isinstance(r, Interval):
            iv = r
        else:
            try:
                lo, hi = (float(b) for b in r)
            except (TypeError, ValueError):
                raise ValueError(f"domain: the range of {v} must be (lo, hi) or an Interval, got {r!r}") from None
            iv = Interval(lo, hi, False, False)
        if not (iv.lo < iv.hi or (iv.lo == iv.hi and not (iv.lo_open or iv.hi_open))):
            raise ValueError(f"domain: the range of {v} is empty: {iv}")
        found.append((v, iv))
    return tuple(found)


def _pinned(exact: ClassExact, roots: Sequence[int], outputs: Sequence[Variable]) -> ClassExact:
    """``exact`` with each root's values those of its output as written: the points were kept where these are
    known, while a class's smallest tree may be unknown there (``log1p(-erfc(-a) / 2)`` at ``a = 1e100``, where
    no precision tells ``erfc`` from 2)."""
    for root, e in zip(roots, exact_at(outputs, exact.points), strict=True):
        if e is not None and root not in exact.known:
            exact.known[root] = e
    return exact


def _accepted(outputs: Sequence[Variable], new: Sequence[Variable], before: Sequence[tuple[float, float]],
              after: Sequence[tuple[float, float]], grid: bool, domain: tuple = ()) -> bool:
    """Whether ``new`` is more accurate than ``outputs``: mean bits lower (by more than ``TIE_BITS``), max not
    higher, and (``grid``) worse at no point of a grid of magnitudes Herbie's sampling is thin at."""
    better = all(a[0] < b[0] - TIE_BITS and a[1] <= b[1] for a, b in zip(after, before, strict=True))
    if better and grid:
        better = more_accurate(new, outputs, grid_points(outputs).within(domain), strictly=False)
    return better

