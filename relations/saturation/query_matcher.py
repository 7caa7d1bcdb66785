"""The pattern rules of a saturation, e-matched as queries over an index of the e-graph.

:func:`relations.saturate` keeps its terms (PyTensor variables) in
:class:`relations.saturation.egraph.EGraph`; the rules that are plain patterns
(``p.var``, ``p.const``, the scalar Elemwise builders ``p.add``, ``p.exp``, ...,
guarded by the rule language's guards) do not run there as plans on
choices of input e-nodes.  :class:`QueryMatcher` keeps an *index*: the query
engine's e-graph (:mod:`relations.saturation.engine.egraph`), one e-node per
e-node of the term e-graph, synchronized at the start of every iteration (the
terms added and the unions made since).  Each pattern rule's left side is
compiled once into a query (:mod:`relations.saturation.engine.query`) and
answered semi-naively on the index: every match, at any depth, with no cap.
Guards read the index's value intervals (:mod:`.engine.guards`).

A match whose right side the index holds in the matched class already is
counted and left, nothing built.  For any other, the left side is
instantiated over the classes it matched (a term in the matched class: the
step a proof re-checks) and the right side is built over the classes'
variables; both are added to the term e-graph and unioned, justified as the
rule run forward, as the plan matcher does.  A right side of another type
than the matched class is refused (counted).

The index reads an Elemwise through the left padding its make_node adds to
an input of lower ndim (``x + 1`` over a vector ``x`` reads the scalar ``1``),
as the query engine's own e-graph does, so a pattern's constant matches
there as the plans' constants do.

Before/After (``(a * b) + (a * c)`` with ``mul_add_distribute``, a class's e-nodes)::

    c3: {Add(Mul(a, b), Mul(a, c))}  ->  c3: {Add(Mul(a, b), Mul(a, c)), Mul(a, Add(b, c))}
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.tensor.elemwise import DimShuffle

from graph_bridge.logic_views import same_constant
from graph_bridge.type_facts import same_type
from relations import patterns as p
from relations.patterns.relation import Relation
from relations.saturation.engine.analysis import IntervalAnalysis
from relations.saturation.engine.egraph import CLASS_SHIFT, is_left_padding, reads_through_padding
from relations.saturation.engine.egraph import EGraph as Index
from relations.saturation.engine.guards import stand_in
from relations.saturation.engine.query import BoundRule, QueryRule, UnsupportedRule, query_rule
from relations.saturation.engine.runner import BackoffScheduler

#: the term e-graph (:class:`relations.saturation.egraph.EGraph`, which imports this module)
EGraph = Any

__all__ = ["QueryMatcher", "cast_variant", "query_rules", "repeats_a_variable"]


#: relation -> its query, or ``None`` when the query engine cannot run it (made once per relation)
_QUERIES: weakref.WeakKeyDictionary[Any, QueryRule | None] = weakref.WeakKeyDictionary()


def _query(rel: Relation) -> QueryRule | None:
    try:
        return _QUERIES[rel]
    except KeyError:
        pass
    except TypeError:  # not weakly referable: not remembered
        return _made_query(rel)
    found = _QUERIES[rel] = _made_query(rel)
    return found


def _made_query(rel: Relation) -> QueryRule | None:
    try:
        return query_rule(rel)
    except (UnsupportedRule, TypeError):
        return None


def query_rules(rules: Sequence[Relation]) -> dict[Relation, QueryRule]:
    """The rules of ``rules`` the query engine runs (plain pattern rules), each with its query."""
    found: dict[Relation, QueryRule] = {}
    for rel in rules:
        q = _query(rel)
        if q is not None:
            found[rel] = q
    return found


def repeats_a_variable(q: QueryRule) -> bool:
    """Whether the left side of ``q`` binds a variable twice (``add(mul(a, b), mul(a, c))``)."""
    slots = [x for atom in q.atoms for kind, x in atom.slots if kind == "var"]
    return len(slots) != len(set(slots))


def cast_variant(q: QueryRule) -> QueryRule | None:
    """The query of ``q``'s left side with each repeated variable's later occurrences renamed, guarded
    by :func:`constants_equal`: the matches where they are two constants equal modulo an exact cast.

    The plans take the int8 ``2`` of ``x >= 2`` and the float ``2.0`` of a branch as one value
    (``graph_bridge.logic_views.same_constant``, pymc #6826); the index keeps them as two classes
    (two types), so the rule's own query does not match ``switch(x >= 2, 2.0, x)``; this one does.
    ``None`` when no variable repeats (or a node has no builder to copy it with)."""
    if not repeats_a_variable(q):
        return None
    seen: dict[Any, int] = {}
    pairs: list[tuple[str, str]] = []

    def renamed(pat: Any) -> Any:
        if isinstance(pat, p.PatternVar):
            k = seen.get(pat, 0)
            seen[pat] = k + 1
            if k == 0:
                return pat
            twin = p.var(f"{pat.name}__cast{k}")
            pairs.append((pat.name, twin.name))
            return twin
        if isinstance(pat, p.Const):
            return pat
        return getattr(p, pat.name)(*[renamed(a) for a in pat.args])

    try:
        lhs = renamed(q.lhs)
    except (AttributeError, TypeError):
        return None
    return QueryRule(q.name, lhs, q.rhs, [*q.guards, constants_equal(pairs)])


#: query -> its cast variant (made once per query, as its generated code is)
_VARIANTS: weakref.WeakKeyDictionary[QueryRule, QueryRule | None] = weakref.WeakKeyDictionary()


def _cast_variant(q: QueryRule) -> QueryRule | None:
    if q not in _VARIANTS:
        _VARIANTS[q] = cast_variant(q)
    return _VARIANTS[q]


def constants_equal(pairs: Sequence[tuple[str, str]]) -> Callable[[Index, dict], bool]:
    """A query guard: each pair of variables is bound to two classes holding constants equal modulo an
    exact cast (one class is the rule's own query's match, not this one's)."""

    def test(index: Index, binding: dict) -> bool:
        apart = False
        for a, b in pairs:
            ca, cb = index.find(binding[a]), index.find(binding[b])
            if ca == cb:
                continue
            u, v = stand_in(index, ca)[0], stand_in(index, cb)[0]  # a class's constant leaf, if it holds one
            if not (isinstance(u, Constant) and isinstance(v, Constant) and same_constant(u, v)):
                return False
            apart = True
        return apart

    return test


class QueryMatcher:
    """The index of a term e-graph and the pattern rules answered on it; see the module docstring."""

    def __init__(self, queries: dict[Relation, QueryRule]) -> None:
        self.index = Index(IntervalAnalysis(fold=False))  # the index mirrors the term e-graph only
        entries = [(rel, q) for rel, q in queries.items()]
        entries += [(rel, v) for rel, q in queries.items() if (v := _cast_variant(q)) is not None]
        self.relations = [rel for rel, _ in entries]
        self.bound: list[BoundRule] = [q.bind(self.index) for _, q in entries]
        self.names = [getattr(r, "__name__", repr(r)) for r in self.relations]
        self.keys = [f"{n}#{j}" for j, n in enumerate(self.names)]  # a rule and its cast variant: two
        self.scheduler = BackoffScheduler()
        self.iteration = 0
        #: rules banned by the scheduler, over the run
        self.bans = 0
        self.since = [0] * len(self.bound)
        self.cls: list[int] = []  # term -> its index class when synced
        self.term_at: dict[int, int] = {}  # index class id (as made) -> a term it was made for
        self.unions: list[tuple[int, int]] = []  # term pairs the term e-graph merged since the last sync
        self._term_of: dict[Variable, int] = {}
        self._pads: dict[tuple[Variable, int], Variable] = {}
        self._eg_vars: list[Variable] = []

    # -- the index ---------------------------------------------------------------------

    def sync(self, eg: EGraph) -> None:
        """Add the terms made and the unions made since the last sync to the index, and rebuild it."""
        index, cls, term_at = self.index, self.cls, self.term_at
        vars_, children = eg._vars, eg._children
        for t in range(len(cls), len(vars_)):
            v = vars_[t]
            node = v.owner
            if node is None:
                c = index.add_leaf(v)
            else:
                kids = self._kids(node, children[t])
                k = node.outputs.index(v) if len(node.outputs) > 1 else 0
                c = index.add(index.op_id(node.op, len(kids), k), kids, index.type_id(v.type))
            cls.append(c)
            term_at.setdefault(c, t)
        if self.unions:
            for a, b in self.unions:
                ca, cb = index.find(cls[a]), index.find(cls[b])
                if ca != cb and index.same_type(ca, cb):
                    index.merge(ca, cb, cls[a], cls[b], ("terms", a, b))
            self.unions.clear()
        index.rebuild()

    def _kids(self, node: Any, terms: Sequence[int]) -> list[int]:
        """The index classes of ``node``'s inputs (terms ``terms``), an Elemwise read through its left padding."""
        cls = self.cls
        if not reads_through_padding(node):
            return [cls[c] for c in terms]
        kids = []
        for i, c in zip(node.inputs, terms):
            while is_left_padding(i.owner):
                i = i.owner.inputs[0]
                c = -1
            kids.append(cls[c] if c >= 0 else self._class_of_variable(i))
        return kids

    def _class_of_variable(self, v: Variable) -> int:
        """The index class of variable ``v`` under a padding (a term of the e-graph, synced before its reader)."""
        return self.cls[self._term_of[v]]

    # -- one iteration -------------------------------------------------------------------

    def step(self, eg: EGraph, stats: dict, check: Callable[[], None]) -> None:
        """Sync, search every rule on the clean index, then apply the matches to ``eg``.

        egg's BackoffScheduler (:class:`.engine.runner.BackoffScheduler`) bans a rule whose search
        finds more than its match limit (1000, doubled at each ban) for a few iterations: its
        matches are dropped and its semi-naive clock stays, so they are found again when the ban
        ends (``banned`` says whether one is on: the e-graph is not saturated while it is).
        ``check()`` is called between rules' searches and within their matches (it raises at a limit)."""
        self._term_of, self._eg_vars = eg._term_of, eg._vars
        self.sync(eg)
        index, sched = self.index, self.scheduler
        self.iteration += 1
        found = []
        for j, rule in enumerate(self.bound):
            name = self.names[j]
            if sched.banned(self.keys[j], self.iteration):
                continue
            t0 = time.perf_counter()
            matches = rule.search(self.since[j])
            if not sched.admit(self.keys[j], self.iteration, len(matches)):
                self.bans += 1
                stats[name].seconds += time.perf_counter() - t0
                continue
            self.since[j] = index.clock + 1
            found.append((j, matches, time.perf_counter() - t0))
            check()
        index.advance()
        for j, matches, searched in found:
            t0 = time.perf_counter()
            s = stats[self.names[j]]
            try:
                self._apply(eg, j, matches, s, check)
            finally:
                s.seconds += searched + time.perf_counter() - t0
            check()

    @property
    def banned(self) -> bool:
        """Whether a rule is banned at the current iteration."""
        return self.scheduler.any_banned(self.iteration + 1)

    def unban(self) -> None:
        """Lift every ban (the e-graph stopped changing while rules were banned: egg's ``can_stop``)."""
        self.scheduler.unban(self.iteration + 1)

    def _apply(self, eg: EGraph, j: int, matches: list[tuple[int, ...]], s: Any, check: Callable[[], None]) -> None:
        rule, rel = self.bound[j], self.relations[j]
        index = self.index
        find = index.find
        names = rule.rule.vars
        for k, m in enumerate(matches):
            if k & 63 == 63:
                check()  # a limit is met within a rule's matches, not only after them
            if rule.rule.guards and not rule.guarded(index, m):
                continue
            s.matches += 1
            root = find(m[0])
            binding = dict(zip(names, m[1:]))
            held = self._held(rule.rule.rhs, binding)
            if held is not None and find(held) == root:
                continue
            lhs = next(self._instances(rule.rule.lhs, root, binding), None)
            rhs = self._build(rule.rule.rhs, binding)
            if lhs is None or rhs is None:
                continue
            before, after = lhs[0], rhs[0]
            if not same_type(after.type, before.type):
                continue
            if eg.relate(before, after, rel):
                s.unions += 1

    def _variable(self, c: int) -> Variable:
        """A variable of index class ``c``: one of the terms' it was made for."""
        return self._eg_vars[self.term_at[self.index.find(c)]]

    def _held(self, pat: Any, binding: dict) -> int | None:
        """The index class of ``pat`` under ``binding`` if the index holds it (nothing added)."""
        index = self.index
        if isinstance(pat, p.PatternVar):
            return binding[pat]
        if isinstance(pat, p.Const):
            return None
        kids = []
        for a in pat.args:
            if isinstance(a, p.Const):
                return None
            k = self._held(a, binding)
            if k is None:
                return None
            kids.append(index.find(k))
        v = index.hashcons.get((index.op_id(pat.make, len(kids)), *kids))
        return None if v is None else v >> CLASS_SHIFT

    def _instances(self, pat: Any, c: int, binding: dict) -> Iterator[tuple[Variable, int]]:
        """``(variable, type id)`` of ``pat`` in index class ``c`` under ``binding``, each e-node of the
        class a choice (a left side instantiated over the e-nodes it matched)."""
        index = self.index
        c = index.find(c)
        if isinstance(pat, p.PatternVar):
            if index.find(binding[pat]) == c:
                yield self._variable(c), index.ctype[c]
            return
        if isinstance(pat, p.Const):
            for n in index.class_nodes(c):
                leaf = index.leaf.get(n[0]) if len(n) == 1 else None
                if leaf is not None and pat.matches(leaf):
                    yield leaf, index.ctype[c]
            return
        oid = index.op_id(pat.make, len(pat.args))
        for n in index.class_nodes(c):
            if n[0] == oid:
                yield from self._over(pat, oid, n[1:], 0, [], binding)

    def _over(
        self, pat: Any, oid: int, kids: tuple, i: int, got: list, binding: dict
    ) -> Iterator[tuple[Variable, int]]:
        if i == len(kids):
            made = self._make(oid, got)
            if made is not None:
                yield made
            return
        for v in self._instances(pat.args[i], kids[i], binding):
            yield from self._over(pat, oid, kids, i + 1, [*got, v], binding)

    def _make(self, oid: int, args: list[tuple[Variable, int]]) -> tuple[Variable, int] | None:
        """Op ``oid`` over ``args`` (``(variable, type id)`` each), its output typed by the index's
        inference (once per Op and input types, :meth:`Index.infer`), with the left padding an
        Elemwise's make_node adds; ``None`` where the Op refuses the types."""
        index = self.index
        tid = index.infer_types(oid, [t for _, t in args])
        if tid < 0:
            return None
        out = index.types[tid]
        nd = out.ndim
        ins = [v if v.type.ndim == nd else self._padded(v, nd) for v, _ in args]
        return Apply(index.ops[oid][1], ins, [out()]).outputs[0], tid

    def _padded(self, v: Variable, nd: int) -> Variable:
        """``v`` padded on the left to ``nd`` dimensions as Elemwise's make_node pads it (one DimShuffle per
        variable and ndim)."""
        key = (v, nd)
        found = self._pads.get(key)
        if found is None:
            k = v.type.ndim
            order: list[Any] = ["x"] * (nd - k) + list(range(k))
            found = self._pads[key] = DimShuffle(input_ndim=k, new_order=order).make_node(v).outputs[0]
        return found

    def _build(self, pat: Any, binding: dict) -> tuple[Variable, int] | None:
        """The right side ``pat`` over the variables of the classes ``binding`` names (``None``: it does not build)."""
        index = self.index
        if isinstance(pat, p.PatternVar):
            c = index.find(binding[pat])
            return self._variable(c), index.ctype[c]
        built: list[tuple[Variable, int] | None] = []
        for a in pat.args:
            if isinstance(a, p.Const):
                built.append(None)
                continue
            b = self._build(a, binding)
            if b is None:
                return None
            built.append(b)
        siblings = [b[0] for b in built if b is not None]
        args = []
        for a, b, kind in zip(pat.args, built, pat.kinds):
            if b is None:
                try:
                    v = a.build(siblings, kind)
                except (TypeError, ValueError):
                    return None
                b = (v, index.type_id(v.type))
            args.append(b)
        return self._make(index.op_id(pat.make, len(args)), args)
