"""The runner: egg's iteration (search all rules on a clean e-graph, apply, rebuild), limits, scheduler, report.

Limits are absolute (:class:`Limits`): e-nodes, iterations, seconds; the defaults are egg's
(10,000 e-nodes, 30 iterations, 5 seconds).  The node and time limits are checked after each
rule's matches are applied and after each rebuild, so a run stops close to them.

:class:`BackoffScheduler` is egg's: a rule whose search finds more than its match limit
(``match_limit << times banned``) is banned for ``ban_length << times banned`` iterations and
its matches are dropped (the rule's semi-naive clock does not move, so nothing is lost when
the ban ends); defaults 1000 and 5, egg's.  Saturated means: an iteration in which no rule was
banned and no match added an e-node or merged two classes.  When the e-graph stops changing
while rules are banned, the bans are lifted and the run goes on (egg's ``can_stop``).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from relations.saturation.engine.egraph import EGraph
from relations.saturation.engine.query import BoundRule, QueryRule

__all__ = ["STOP_REASONS", "BackoffScheduler", "Limits", "Report", "Runner"]

#: The stop reasons a :class:`Report` names.
STOP_REASONS = ("saturated", "iteration limit", "node limit", "time limit")


@dataclass(frozen=True)
class Limits:
    """Absolute bounds of a run: live e-nodes, iterations, seconds (``None``: unbounded)."""

    nodes: int | None = 10_000
    iterations: int | None = 30
    seconds: float | None = 5.0

    def __post_init__(self) -> None:
        for name in ("nodes", "iterations", "seconds"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0):
                raise ValueError(f"{name} must be a non-negative number or None, got {v!r}")


@dataclass
class _RuleState:
    times_banned: int = 0
    banned_until: int = 0
    since: int = 0  # the tick of the rule's last search whose matches were applied


class BackoffScheduler:
    """egg's BackoffScheduler: ``match_limit`` and ``ban_length`` per rule, doubled at each ban."""

    def __init__(self, match_limit: int = 1000, ban_length: int = 5) -> None:
        if match_limit < 1 or ban_length < 1:
            raise ValueError(f"match_limit and ban_length must be >= 1, got {match_limit}, {ban_length}")
        self.match_limit, self.ban_length = match_limit, ban_length
        self.state: dict[str, _RuleState] = {}

    def banned(self, name: str, iteration: int) -> bool:
        """Whether rule ``name`` is banned at ``iteration``."""
        return self.state.setdefault(name, _RuleState()).banned_until > iteration

    def admit(self, name: str, iteration: int, n_matches: int) -> bool:
        """Whether ``n_matches`` matches of ``name`` may be applied; if not, ban the rule."""
        st = self.state.setdefault(name, _RuleState())
        threshold = self.match_limit << st.times_banned
        if n_matches <= threshold:
            return True
        st.banned_until = iteration + (self.ban_length << st.times_banned)
        st.times_banned += 1
        return False

    def any_banned(self, iteration: int) -> bool:
        """Whether some rule is banned at ``iteration``."""
        return any(st.banned_until > iteration for st in self.state.values())

    def unban(self, iteration: int) -> None:
        """Lift every ban (egg's ``can_stop`` when the e-graph stopped changing)."""
        for st in self.state.values():
            st.banned_until = min(st.banned_until, iteration)


@dataclass
class Iteration:
    """One iteration: e-nodes and classes after it, matches, unions and refused matches per rule
    (a guard failed, or the right side was ill-typed or of another dtype/broadcastable), banned
    rules, seconds."""

    nodes: int
    classes: int
    matches: dict[str, int]
    unions: dict[str, int]
    banned: list[str]
    seconds: float
    refused: dict[str, int] = field(default_factory=dict)


@dataclass
class Report:
    """What a run did: ``stop`` (one of :data:`STOP_REASONS`), the iterations, totals."""

    stop: str = ""
    iterations: list[Iteration] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def nodes(self) -> int:
        """Live e-nodes at the end."""
        return self.iterations[-1].nodes if self.iterations else 0

    def matches(self, rule: str) -> int:
        """Matches of ``rule`` over all iterations."""
        return sum(it.matches.get(rule, 0) for it in self.iterations)


class Runner:
    """Runs :class:`QueryRule` s on an :class:`EGraph`: ``Runner(eg, rules, limits, scheduler).run()``.

    ``scheduler=None`` applies every match (egglog's default semantics); ``naive=True`` searches
    every rule over the whole e-graph each iteration (for checking the semi-naive search)."""

    def __init__(self, eg: EGraph, rules: Sequence[QueryRule], limits: Limits | None = None,
                 scheduler: BackoffScheduler | None = None, naive: bool = False) -> None:
        names = [r.name for r in rules]
        if len(set(names)) != len(names):
            raise ValueError(f"rules: two rules share a name in {names}")
        self.eg, self.limits, self.scheduler, self.naive = eg, limits or Limits(), scheduler, naive
        #: each rule, bound to the e-graph (:meth:`QueryRule.bind`) once every Op its left side names has an
        #: e-node: a theory of hundreds of rules over a region of five Ops binds the few that can match
        #: (binding generates and runs a searcher per atom); the order is the rules' own
        self.rules: list[BoundRule | QueryRule] = list(rules)
        self.unbound = len(self.rules)
        self.since = {r.name: 0 for r in rules}
        self.report = Report()

    def _bind_ready(self) -> None:
        """Bind the rules whose left side's Ops all have e-nodes now (until then, none has a match)."""
        eg = self.eg
        for k, r in enumerate(self.rules):
            if isinstance(r, QueryRule) and all(
                eg.holds_op(a.pattern.make, len(a.pattern.args)) for a in r.atoms if a.kind == "op"
            ):
                self.rules[k] = r.bind(eg)
                self.unbound -= 1

    def _over(self, start: float) -> str | None:
        lim = self.limits
        if lim.nodes is not None and self.eg.n_nodes >= lim.nodes:
            return "node limit"
        if lim.seconds is not None and time.perf_counter() - start >= lim.seconds:
            return "time limit"
        return None

    def _search(self, iteration: int) -> tuple[list, dict[str, int], list[str]]:
        found, counts, banned = [], {}, []
        sched = self.scheduler
        if self.unbound:
            self._bind_ready()
        for rule in self.rules:
            if isinstance(rule, QueryRule):  # an Op of its left side has no e-node: no match
                counts[rule.name] = 0
                self.since[rule.name] = self.eg.clock + 1
                continue
            if sched is not None and sched.banned(rule.name, iteration):
                banned.append(rule.name)
                continue
            matches = rule.search(0 if self.naive else self.since[rule.name])
            counts[rule.name] = len(matches)
            if sched is not None and not sched.admit(rule.name, iteration, len(matches)):
                banned.append(rule.name)
                continue
            found.append((rule, matches))
            self.since[rule.name] = self.eg.clock + 1
        return found, counts, banned

    def step(self, iteration: int, start: float) -> tuple[bool, str | None]:
        """One iteration; returns (whether the e-graph changed, a stop reason met during it)."""
        eg = self.eg
        t0 = time.perf_counter()
        before = eg.n_nodes
        found, counts, banned = self._search(iteration)
        eg.advance()
        unions: dict[str, int] = {}
        refused: dict[str, int] = {}
        stop = None
        for rule, matches in found:
            unions[rule.name], refused[rule.name] = rule.apply(matches)
            stop = self._over(start)
            if stop:
                break
        eg.rebuild()
        changed = eg.n_nodes != before or any(unions.values())
        self.report.iterations.append(
            Iteration(eg.n_nodes, eg.n_classes, counts, unions, banned, time.perf_counter() - t0, refused))
        return changed or bool(banned), stop or self._over(start)

    def run(self) -> Report:
        """Run until saturated or a limit; the :class:`Report` names which.

        The cyclic garbage collector is paused during the run (the e-graph makes no cycles; its
        passes over the millions of tuples it holds cost more than the run)."""
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._run()
        finally:
            if enabled:
                gc.enable()

    def _run(self) -> Report:
        start = time.perf_counter()
        eg, lim = self.eg, self.limits
        eg.rebuild()
        iteration = 0
        while True:
            if lim.iterations is not None and iteration >= lim.iterations:
                self.report.stop = "iteration limit"
                break
            changed, stop = self.step(iteration, start)
            iteration += 1
            if stop:
                self.report.stop = stop
                break
            if not changed:
                self.report.stop = "saturated"
                break
            if self.scheduler is not None and self.scheduler.any_banned(iteration) and not self._grew():
                self.scheduler.unban(iteration)
        self.report.seconds = time.perf_counter() - start
        return self.report

    def _grew(self) -> bool:
        its = self.report.iterations
        last = its[-1]
        return any(last.unions.values()) or (len(its) > 1 and last.nodes != its[-2].nodes)
