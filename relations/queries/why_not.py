"""``why_not``: where a rewrite came closest to firing, and the piece it was missing (pymc #6691).

PyTensor prints the rewrites that applied; egg and egglog explain the
equalities that hold.  :func:`why_not` answers the other question: a
rewrite did *not* fire on a graph; why?  The graph is saturated (every
spelling the rules relate is in its class), then the target's pattern is
matched against every class as far as it goes, and the closest classes are
reported with what was missing there:

- a **missing spelling**: a sub-pattern no e-node of a class matches
  (``log(erfc(x))`` wanted; the class under the ``Log`` holds only
  ``Mul(0.5, Erfc(...))``), with the Ops the class does hold;
- a **guard** that did not hold on the bound values (``is_float(a)`` with
  ``a`` an int64), or a variable bound to two different classes;
- a **bound** that stopped the search before it saturated (the report's
  stop reason): a match may lie past it.

The target is a pattern (``p.log(p.erfc(x))``), a rule (its left side and
guards), a PyTensor ``PatternNodeRewriter`` (its input pattern), an Op
(any node of it), or a function rewriter (``local_log_erfc``: it has no
pattern to compare, so the answer lists the classes of the Ops it tracks
and whether it returned a replacement at each).

Before/After (``why_not(log(0.5 * erfc(-x / sqrt(2))), p.log(p.erfc(p.var("x"))))``)::

    closest: class c5 Log(Mul(0.5, Erfc(...))): 1 of 2 pattern nodes matched
      missing spelling: erfc(x) at class c4, which holds Mul
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.op import Op
from pytensor.graph.rewriting.basic import NodeRewriter, PatternNodeRewriter
from pytensor.tensor.elemwise import Elemwise
from unification.variable import Var

from relations import patterns as p
from relations.arguments import as_variables
from relations.patterns.guards import Guard
from relations.patterns.nodes import CompiledNode
from relations.saturation.egraph import EGraph, Limits, saturate
from relations.saturation.foreign import ForeignRewriter, resolve_rewriters

__all__ = ["KNOWN_PATTERNS", "Attempt", "WhyNot", "why_not", "why_not_in"]


@dataclass
class Attempt:
    """The target matched at one class: ``matched`` of ``size`` pattern nodes, and what was missing.

    ``missing`` is ``None`` for a full match, else a sentence naming the
    sub-pattern, the class where it failed and why (``kind``: ``"spelling"``,
    ``"guard"``, ``"binding"`` or ``"rewriter"``).
    """

    root: int
    form: str
    matched: int
    size: int
    missing: str | None
    kind: str | None = None

    def __str__(self) -> str:
        head = f"class c{self.root} {self.form}: {self.matched} of {self.size} pattern nodes matched"
        return head + (f"\n  {self.kind}: {self.missing}" if self.missing else "\n  it matches here")


@dataclass
class WhyNot:
    """What :func:`why_not` found: the :attr:`closest` attempts (best first), the saturation's :attr:`stop`."""

    target: str
    closest: list[Attempt]
    stop: str
    saturated: bool
    egraph: EGraph = field(repr=False)

    @property
    def matches(self) -> bool:
        """Whether the target matches some class fully (then it is not missing a piece: a cost decided)."""
        return any(a.missing is None for a in self.closest)

    def __str__(self) -> str:
        lines = [f"why not {self.target}:"]
        if not self.closest:
            lines.append("  no class holds the Op at the target's root")
        lines += ["  " + str(a).replace("\n", "\n  ") for a in self.closest]
        if not self.saturated:
            lines.append(f"  bound: the search stopped before saturating ({self.stop}); a match may lie past it")
        return "\n".join(lines)

    __repr__ = __str__


# -- targets as patterns ---------------------------------------------------------------------

_ELEMWISE_NAMES = {getattr(pt, n): n for n in p.ELEMWISE}


def _op_pattern(op: Any, args: Sequence[Any]) -> Any:
    name = _ELEMWISE_NAMES.get(op)
    if name is None:
        raise ValueError(f"why_not cannot read a pattern over {op}: only Elemwise Ops of pytensor.tensor are known")
    return getattr(p, name)(*args)


def _from_pytensor(pat: Any, names: dict | None = None) -> Any:
    """A PyTensor rewriter's input pattern (a ``PatternNode`` on 3.3, an etuple on 3.0) as a ``p.*`` pattern
    (one pattern variable per name: ``names``)."""
    names = {} if names is None else names
    if isinstance(pat, Constant):
        data = np.asarray(pat.data)
        return p.const(data.item()) if data.size == 1 else p.var(f"const{data.shape}")
    if isinstance(pat, Var) or type(pat).__name__ == "PatternVar":
        name = str(getattr(pat, "token", pat)).lstrip("~")
        return names.setdefault(name, p.var(name))
    if type(pat).__name__ == "PatternNode":
        return _op_pattern(pat.op_match, [_from_pytensor(a, names) for a in pat.inputs])
    if isinstance(pat, (tuple, list)) or type(pat).__name__ == "ExpressionTuple":
        items = list(pat)
        return _op_pattern(items[0], [_from_pytensor(a, names) for a in items[1:]])
    if isinstance(pat, dict) and "pattern" in pat:
        return _from_pytensor(pat["pattern"], names)
    if isinstance(pat, (int, float)):
        return p.const(pat)
    raise ValueError(f"why_not cannot read the pattern piece {pat!r}")


def _known_patterns() -> dict[str, Any]:
    """The spellings PyTensor's function rewriters (no pattern of their own to read) wait for, by name.

    Read from their source (``pytensor/tensor/rewriting/math.py``,
    ``special.py``): the one spelling each matches, so ``why_not`` can say
    which piece of it a graph is missing.
    """
    x, y, ax = p.var("x"), p.var("y"), p.var("ax")
    return {
        "local_log_erfc": p.log(p.erfc(x)),
        "local_log1p": p.log(p.add(1, x)),
        "local_log_add_exp": p.log(p.add(p.exp(x), p.exp(y))),
        "local_log_sum_exp": p.log(p.sum(p.exp(x), axis=ax)),
        "local_expm1": p.sub(p.exp(x), 1),
        "local_exp_over_1_plus_exp": p.true_div(p.exp(x), p.add(1, p.exp(x))),
        "local_sigm_times_exp": p.mul(p.sigmoid(x), p.exp(p.neg(x))),
        "local_log1p_plusminus_exp": p.log1p(p.exp(x)),
    }


#: What :func:`_known_patterns` gives, built once.
KNOWN_PATTERNS = _known_patterns()


def _target(target: Any) -> tuple[str, Any, tuple, ForeignRewriter | None]:
    """``(text, pattern or None, guards, function rewriter or None)`` for a target."""
    foreign = target if isinstance(target, ForeignRewriter) else None
    target = getattr(target, "rewriter", target)  # a ForeignRewriter: the PyTensor rewriter it runs
    if isinstance(target, NodeRewriter) and str(target) in KNOWN_PATTERNS:
        known = KNOWN_PATTERNS[str(target)]
        return f"rewriter {target} (its spelling: {known!r})", known, (), None
    if isinstance(target, (p.Node, p.Named, CompiledNode)):
        return repr(target), target, (), None
    if callable(target) and hasattr(target, "lhs") and hasattr(target, "where"):
        guards = tuple(g for g in target.where if isinstance(g, Guard))
        return f"rule {target.__name__}", target.lhs, guards, None
    if isinstance(target, PatternNodeRewriter):
        return f"rewriter {target}", _from_pytensor(target.in_pattern), (), None
    if isinstance(target, Elemwise):
        n = target.scalar_op.nin
        return f"Op {target}", _op_pattern(target, [p.var(f"x{i}") for i in range(n)]), (), None
    if isinstance(target, NodeRewriter):  # run as saturation runs it: on a private graph of the e-node
        return f"rewriter {target}", None, (), foreign or ForeignRewriter(target, str(target))
    if isinstance(target, Op) or (isinstance(target, type) and issubclass(target, Op)):
        return f"Op {target}", None, (), None
    raise TypeError(
        f"target must be a pattern (p.log(p.erfc(x))), a rule, a PyTensor node rewriter or an Op, "
        f"got {type(target).__name__}"
    )


# -- matching as far as it goes ------------------------------------------------------------------


def _size(pat: Any) -> int:
    if isinstance(pat, p.Named):
        return _size(pat.node)
    if isinstance(pat, p.Node):
        return 1 + sum(_size(a) for a in pat.args)
    return 1 if isinstance(pat, (p.Const, CompiledNode)) else 0


def _text(v: Variable, depth: int = 2) -> str:
    node = v.owner
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        return str(data.item()) if data.size == 1 else f"const{data.shape}"
    if node is None:
        return v.name or "input"
    if depth == 0:
        return f"{type(getattr(node.op, 'scalar_op', node.op)).__name__}(...)"
    inner = ", ".join(_text(i, depth - 1) for i in node.inputs)
    return f"{type(getattr(node.op, 'scalar_op', node.op)).__name__}({inner})"


class _Matcher:
    """Matches a pattern against classes, keeping the best partial match per (sub-pattern, class)."""

    def __init__(self, egraph: EGraph, classes: dict[int, list] | None = None) -> None:
        self.egraph = egraph
        self.classes = egraph.classes() if classes is None else classes
        self.memo: dict[tuple[int, int], tuple[int, str | None, str | None, dict]] = {}

    def ops_of(self, c: int) -> str:
        names = sorted({_text(e.var, 0).removesuffix("(...)") for e in self.classes[c]})
        return ", ".join(names)

    def match(self, pat: Any, c: int) -> tuple[int, str | None, str | None, dict]:
        """``(nodes matched, missing sentence or None, kind, bindings)`` of ``pat`` at class ``c``."""
        key = (id(pat), c)
        if key not in self.memo:
            self.memo[key] = self._match(pat, c)
        return self.memo[key]

    def _match(self, pat: Any, c: int) -> tuple[int, str | None, str | None, dict]:
        if isinstance(pat, p.Named):
            n, miss, kind, b = self.match(pat.node, c)
            return n, miss, kind, {**b, pat.var: c}
        if isinstance(pat, Var):
            return 0, None, None, {pat: c}
        if isinstance(pat, p.Const):
            if any(pat.matches(e.var) for e in self.classes[c]):
                return 1, None, None, {}
            return 0, f"the constant {pat!r} at class c{c}, which holds {self.ops_of(c)}", "spelling", {}
        if isinstance(pat, CompiledNode):
            return self._goal_node(pat, c)
        best: tuple[int, str | None, str | None, dict] | None = None
        for e in self.classes[c]:
            found = self._at(pat, e)
            if found is not None and (best is None or _better(found, best)):
                best = found
        if best is None:
            return 0, f"{pat!r} at class c{c}, which holds {self.ops_of(c)}", "spelling", {}
        return best

    def _goal_node(self, pat: CompiledNode, c: int) -> tuple[int, str | None, str | None, dict]:
        from graph_bridge import etuplize, graph_context
        from relations.patterns.compiler import side_match

        for e in self.classes[c]:
            with graph_context([e.var]):
                if next(side_match(pat, etuplize(e.var)), None) is not None:
                    return 1, None, None, {}
        return 0, f"{pat!r} at class c{c}, which holds {self.ops_of(c)}", "spelling", {}

    def _at(self, pat: p.Node, e: Any) -> tuple[int, str | None, str | None, dict] | None:
        """The match of ``pat`` rooted at e-node ``e`` (``None``: its head is not the pattern's)."""
        holes = [p.var(f"_hole{i}") for i in range(len(pat.args))]
        bound = p.match(pat.with_args(holes), e.var)
        if bound is None:
            return None
        total, missing, kind = 1, None, None
        bindings: dict = {}
        for h, a in zip(holes, pat.args):
            child = self.egraph.class_of(bound[h])
            n, miss, k, b = self.match(a, child)
            total += n
            if miss is not None and missing is None:
                missing, kind = miss, k
            for var, cls in b.items():
                if bindings.setdefault(var, cls) != cls and missing is None:
                    missing, kind = f"{var} is bound to two classes, c{bindings[var]} and c{cls}", "binding"
        return total, missing, kind, bindings


def _better(a: tuple, b: tuple) -> bool:
    """Whether the match ``a`` is closer than ``b``: a full match first, then more nodes."""
    return (a[1] is None, a[0]) > (b[1] is None, b[0])


def _guards_at(matcher: _Matcher, guards: tuple, bindings: dict) -> str | None:
    values = {v.name: matcher.classes[c][0].var for v, c in bindings.items() if hasattr(v, "name")}
    for g in guards:
        if all(n in values for n in g.names) and not g(**values):
            shown = ", ".join(f"{n} = {_text(values[n])} ({values[n].type})" for n in g.names)
            return f"{g} does not hold with {shown}"
    return None


def why_not(
    graph: Variable | Sequence[Variable],
    target: Any,
    *,
    rules: Sequence[Any] | None = None,
    rewriters: Any = (),
    limits: Limits | None = None,
    closest: int = 3,
) -> WhyNot:
    """Where ``target`` came closest to matching ``graph`` modulo the rules, and what it was missing.

    ``graph`` is saturated with ``rules`` (default: the default rules) and
    ``rewriters`` (as :func:`relations.saturate` takes them) within
    ``limits``; ``target`` is a ``p.*`` pattern, a rule, a PyTensor node
    rewriter (a ``PatternNodeRewriter`` is matched by its input pattern) or
    an Op.  The ``closest`` classes are reported best first (a full match
    first, then the most pattern nodes matched).  ``graph`` is not changed.
    """
    outs, _ = as_variables(graph, "graph")
    if not isinstance(closest, int) or isinstance(closest, bool) or closest < 1:
        raise ValueError(f"closest must be a positive int, got {closest!r}")
    _target(target)  # a bad target is refused before the saturation
    egraph = saturate(outs, rules, backward=False, limits=limits, rewriters=rewriters)
    return why_not_in(egraph, target, closest)


def why_not_in(egraph: EGraph, target: Any, closest: int = 3, classes: dict[int, list] | None = None) -> WhyNot:
    """:func:`why_not` on an e-graph saturated already (``explain`` asks it of the e-graph it made);
    ``classes``: ``egraph.classes()``, when the caller asks about several targets (read once)."""
    text, pattern, guards, function = _target(target)
    report = egraph.report
    matcher = _Matcher(egraph, classes)
    attempts: list[Attempt] = []
    if pattern is not None:
        size = max(_size(pattern), 1)
        for c, enodes in matcher.classes.items():
            n, miss, kind, bindings = matcher.match(pattern, c)
            if n == 0:
                continue
            if miss is None:
                failed = _guards_at(matcher, guards, bindings)
                miss, kind = (failed, "guard") if failed else (None, None)
            attempts.append(Attempt(c, _text(enodes[0].var), n, size, miss, kind))
    else:
        attempts = _tracked(matcher, target, function)
    attempts.sort(key=lambda a: (a.missing is None, a.matched), reverse=True)
    stop = str(report.stop)
    return WhyNot(text, attempts[:closest], stop, stop.startswith("saturated"), egraph)


def _is(op: Any, tracked: Any) -> bool:
    """Whether ``op`` is what a rewriter tracks: that Op, or an instance of that Op class."""
    return bool(op == tracked or (isinstance(tracked, type) and isinstance(op, tracked)))


def _tracked(matcher: _Matcher, op: Any, function: ForeignRewriter | None) -> list[Attempt]:
    """The classes holding an Op ``op`` (or one a function rewriter tracks: none for a rewriter that
    tracks every Op), and what the rewriter returned at the first such e-node of each."""
    tracks = list(function.tracks() or ()) if function is not None else [op]
    out = []
    for c, enodes in matcher.classes.items():
        for e in enodes:
            node = e.var.owner
            if node is None or not any(_is(node.op, t) for t in tracks):
                continue
            if function is None:
                out.append(Attempt(c, _text(e.var), 1, 1, None))
                break
            try:
                result = function.replacements(e.var)
            except Exception as exc:  # noqa: BLE001 - a rewriter that raises is reported, as saturation counts it
                result, why = None, f"it raised {type(exc).__name__}: {exc}"
            else:
                why = "it returned no replacement here"
            if result:
                out.append(Attempt(c, _text(e.var), 1, 1, None))
            else:
                out.append(Attempt(c, _text(e.var), 0, 1, why, "rewriter"))
            break
    return out


def closest_rewriters(egraph: EGraph, rewriters: Any, n: int = 3) -> list[tuple[str, Attempt]]:
    """The ``n`` rewriters of ``rewriters`` that came closest on ``egraph`` (most of their pattern matched
    first), each with its closest :class:`Attempt`: what ``explain`` says when no form is better."""
    found = []
    classes = egraph.classes()
    for fr in resolve_rewriters(rewriters):
        try:
            answer = why_not_in(egraph, fr, closest=1, classes=classes)
        except (TypeError, ValueError):  # a pattern over Ops why_not does not read: nothing to compare
            continue
        found += [(fr.name, a) for a in answer.closest if a.matched]
    found.sort(key=lambda na: (na[1].matched / na[1].size, na[1].matched), reverse=True)
    return found[:n]
