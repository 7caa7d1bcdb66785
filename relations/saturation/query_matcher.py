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
step a proof re-checks) and the right side over the classes' terms; both are
added to the term e-graph and unioned, justified as the rule run forward, as
the plan matcher does.  A right side of another type than the matched class
is refused.  Neither side is built as a PyTensor node: each new node is
recorded as its Op, its input terms and its type, inferred by the index once
per Op and input types (:meth:`EGraph.lazy_term`); its variable is built when
something reads it (a plan or a foreign rewriter at that e-node, extraction,
a proof, a drawing: :meth:`EGraph.variable`).

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

import numpy as np
from pytensor.graph.basic import Constant
from pytensor.tensor.elemwise import DimShuffle, Elemwise

from graph_bridge.interval_type import EVERYTHING, Interval
from graph_bridge.intervals import constant_interval, defined_nowhere, op_interval
from graph_bridge.logic_views import same_constant
from graph_bridge.nodes import pads_left
from graph_bridge.type_facts import same_type
from relations import patterns as p
from relations.patterns.relation import Relation
from relations.saturation.engine.analysis import IntervalAnalysis, class_interval
from relations.saturation.engine.egraph import CLASS_SHIFT
from relations.saturation.engine.egraph import EGraph as Index
from relations.saturation.engine.guards import stand_in
from relations.saturation.engine.query import BoundRule, QueryRule, UnsupportedRule, query_rule
from relations.saturation.engine.runner import BackoffScheduler

#: the term e-graph (:class:`relations.saturation.egraph.EGraph`, which imports this module)
EGraph = Any

__all__ = ["QueryMatcher", "cast_variant", "query_rules", "repeats_a_variable"]

#: A side of a match before it is added to the term e-graph: a term (an ``int``), a constant the
#: right side built (a ``Variable``), or a node to record, ``(Op, type, input sides)``
Side = Any

#: ``(input ndim, output ndim)`` -> the DimShuffle an Elemwise's make_node pads an input with
_PAD_OPS: dict[tuple[int, int], DimShuffle] = {}


def _pad_op(k: int, nd: int) -> DimShuffle:
    op = _PAD_OPS.get((k, nd))
    if op is None:
        order: list[Any] = ["x"] * (nd - k) + list(range(k))
        op = _PAD_OPS[(k, nd)] = DimShuffle(input_ndim=k, new_order=order)
    return op


#: kinds of a compiled pattern (:func:`_compile`)
_VAR, _CONST, _NODE = 0, 1, 2


def _compile(pat: Any, slots: dict, index: Index) -> tuple:
    """``pat`` as nested tuples read without ``isinstance`` on pattern variables (a metaclass check):
    ``(_VAR, its position in a match)``, ``(_CONST, the p.Const)``, or ``(_NODE, op id, args, kinds)``."""
    if isinstance(pat, p.PatternVar):
        return _VAR, slots[pat]
    if isinstance(pat, p.Const):
        return _CONST, pat
    args = tuple(_compile(a, slots, index) for a in pat.args)
    return _NODE, index.op_id(pat.make, len(args)), args, tuple(pat.kinds)


class _Typed:
    """A stand-in for a variable of type ``type`` (what ``p.Const.build`` reads of its siblings)."""

    __slots__ = ("type",)

    def __init__(self, type_: Any) -> None:
        self.type = type_


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
            if not (isinstance(u, Constant) and isinstance(v, Constant) and _one_value(u, v)):
                return False
            apart = True
        return apart

    return test


def _one_value(u: Constant, v: Constant) -> bool:
    """``same_constant``, and a constant of one element against one of another shape (``2`` and ``[2.]``): the
    index reads an Elemwise's 0-d operand through the padding its make_node adds (``mul(2, cosh(x))`` reads the
    scalar ``2``), where a folded ``[2.]`` is a constant of shape ``(1,)`` (``2 * cosh(x) - 2``'s ``2``s)."""
    if same_constant(u, v):
        return True
    a, b = np.asarray(u.data), np.asarray(v.data)
    if a.size != 1 or b.size != 1 or a.shape == b.shape:
        return False
    su, sv = Constant(u.type.clone(shape=()), a.reshape(())), Constant(v.type.clone(shape=()), b.reshape(()))
    same = same_constant(su, sv)
    return bool(a.reshape(()) == b.reshape(())) if same is None else same


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
        #: (term, ndim) -> the term of its left padding to that ndim (one per term and ndim)
        self._pads: dict[tuple[int, int], int] = {}
        #: (type id, ndim) -> the padding's Op and type (``_padded``)
        self._pad_types: dict[tuple[int, int], tuple[DimShuffle, Any]] = {}
        self._sides: list[tuple[tuple, tuple] | None] = [None] * len(self.bound)  # (``_compiled``)
        self._eg: EGraph = None

    # -- the index ---------------------------------------------------------------------

    def sync(self, eg: EGraph) -> None:
        """Add the terms made and the unions made since the last sync to the index (and the classes the new
        terms joined), and rebuild it."""
        index, cls, term_at = self.index, self.cls, self.term_at
        children, head_of = eg._children, eg.term_head
        first = len(cls)
        for t in range(first, len(children)):
            head = head_of(t)
            if head is None:
                c = index.add_leaf(eg.variable(t))  # (a leaf always has its variable)
            else:
                op, k, ty = head
                kids = self._kids(eg, op, ty, children[t])
                c = index.add(index.op_id(op, len(kids), k), kids, index.type_id(ty))
            cls.append(c)
            term_at.setdefault(c, t)
        # a new term that joined an e-node of the term e-graph (its key there, no union) may be another e-node
        # here: the index reads an input through its padding (``add(e, ExpandDims(1.0))`` is ``add(e, 1.0)``
        # here, ``add(e, [1.])`` is not, where the term e-graph holds ``ExpandDims(1.0)`` and ``[1.]`` as one)
        self.unions.extend((t, r) for t in range(first, len(children)) if (r := eg.find(t)) != t)
        if self.unions:
            for a, b in self.unions:
                ca, cb = index.find(cls[a]), index.find(cls[b])
                if ca != cb and index.same_type(ca, cb):
                    index.merge(ca, cb, cls[a], cls[b], ("terms", a, b))
            self.unions.clear()
        index.rebuild()

    def _kids(self, eg: EGraph, op: Any, ty: Any, terms: Sequence[int]) -> list[int]:
        """The index classes of the input terms ``terms`` of a term of ``op`` (of type ``ty``), an
        Elemwise read through its left padding (``graph_bridge.nodes.reads_through_padding``)."""
        cls = self.cls
        if not isinstance(op, Elemwise) or not terms:
            return [cls[c] for c in terms]
        nd = ty.ndim
        term_op, term_type, children = eg.term_op, eg.term_type, eg._children
        padded = [pads_left(term_op(c)) for c in terms]
        if not any(not pad and term_type(c).ndim == nd for c, pad in zip(terms, padded)):
            return [cls[c] for c in terms]
        kids = []
        for c, pad in zip(terms, padded):
            while pad:
                c = children[c][0]
                pad = pads_left(term_op(c))
            kids.append(cls[c])
        return kids

    # -- one iteration -------------------------------------------------------------------

    def step(self, eg: EGraph, stats: dict, check: Callable[[], None]) -> None:
        """Sync, search every rule on the clean index, then apply the matches to ``eg``.

        egg's BackoffScheduler (:class:`.engine.runner.BackoffScheduler`) bans a rule whose search
        finds more than its match limit (1000, doubled at each ban) for a few iterations: its
        matches are dropped and its semi-naive clock stays, so they are found again when the ban
        ends (``banned`` says whether one is on: the e-graph is not saturated while it is).
        ``check()`` is called between rules' searches and within their matches (it raises at a limit)."""
        self._eg = eg
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
        lhs_pat, rhs_pat = self._compiled(j)
        find = self.index.find
        guarded = rule.guarded if rule.rule.guards else None
        index = self.index
        for k, m in enumerate(matches):
            if k & 63 == 63:
                check()  # a limit is met within a rule's matches, not only after them
            if guarded is not None and not guarded(index, m):
                continue
            s.matches += 1
            root = find(m[0])
            held = self._held(rhs_pat, m)
            if held is not None and find(held) == root:
                continue
            lhs = self._first(lhs_pat, root, m)
            rhs = self._build(rhs_pat, m)
            if lhs is None or rhs is None:
                continue
            before, after = lhs[0], rhs[0]
            if not same_type(self._side_type(eg, after), self._side_type(eg, before)):
                continue
            if eg.relate_terms(self._term(eg, before), lambda after=after: self._term(eg, after), rel):
                s.unions += 1

    def _compiled(self, j: int) -> tuple[tuple, tuple]:
        """Rule ``j``'s sides as nested tuples (:func:`_compile`), made once."""
        found = self._sides[j]
        if found is None:
            q = self.bound[j].rule
            slots = {v: i + 1 for i, v in enumerate(q.vars)}  # a match is (root, *the variables' classes)
            found = self._sides[j] = (_compile(q.lhs, slots, self.index), _compile(q.rhs, slots, self.index))
        return found

    @staticmethod
    def _side_type(eg: EGraph, side: Side) -> Any:
        if type(side) is int:
            return eg.term_type(side)
        return side[1] if type(side) is tuple else side.type

    def _term(self, eg: EGraph, side: Side) -> int:
        """The term of ``side``, its new nodes recorded (:meth:`EGraph.lazy_term`: no PyTensor node built)."""
        if type(side) is int:
            return side
        if type(side) is not tuple:
            return eg.term(side)  # a constant the right side built
        op, ty, ins = side
        kids = [self._term(eg, i) for i in ins]
        if pads_left(op):  # a left padding: one per term and ndim
            key = (kids[0], ty.ndim)
            found = self._pads.get(key)
            if found is None:
                found = self._pads[key] = eg.lazy_term(op, kids, ty)
            return found
        return eg.lazy_term(op, kids, ty)

    def _variable(self, c: int) -> int:
        """A term of index class ``c``: one of those it was made for."""
        return self.term_at[self.index.find(c)]

    def _held(self, pat: tuple, m: tuple[int, ...]) -> int | None:
        """The index class of ``pat`` (compiled) under match ``m`` if the index holds it (nothing added)."""
        kind = pat[0]
        if kind == _VAR:
            return m[pat[1]]
        if kind == _CONST:
            return None
        index = self.index
        kids = []
        for a in pat[2]:
            if a[0] == _CONST:
                return None
            k = self._held(a, m)
            if k is None:
                return None
            kids.append(index.find(k))
        v = index.hashcons.get((pat[1], *kids))
        return None if v is None else v >> CLASS_SHIFT

    def _first(self, pat: tuple, c: int, m: tuple[int, ...]) -> tuple[Side, int] | None:
        """The first of :meth:`_instances` (``None`` if none): each argument's first instance, and the
        full search only where the Op refuses their types."""
        index = self.index
        c = index.find(c)
        kind = pat[0]
        if kind == _VAR:
            return (self.term_at[c], index.ctype[c]) if index.find(m[pat[1]]) == c else None
        if kind == _CONST:
            return next(self._instances(pat, c, m), None)
        oid, args = pat[1], pat[2]
        for n in index.class_nodes(c):
            if n[0] != oid:
                continue
            got = []
            for a, k in zip(args, n[1:]):
                x = self._first(a, k, m)
                if x is None:
                    break
                got.append(x)
            else:
                made = self._make(oid, got)
                return made if made is not None else next(self._instances(pat, c, m), None)
        return None

    def _instances(self, pat: tuple, c: int, m: tuple[int, ...]) -> Iterator[tuple[Side, int]]:
        """``(side, type id)`` of ``pat`` (compiled) in index class ``c`` under match ``m``, each e-node
        of the class a choice (a left side instantiated over the e-nodes it matched; nothing added yet)."""
        index = self.index
        c = index.find(c)
        kind = pat[0]
        if kind == _VAR:
            if index.find(m[pat[1]]) == c:
                yield self.term_at[c], index.ctype[c]
            return
        if kind == _CONST:
            const = pat[1]
            for n in index.class_nodes(c):
                leaf = index.leaf.get(n[0]) if len(n) == 1 else None
                if leaf is not None and const.matches(leaf):
                    yield self._eg.term(leaf), index.ctype[c]  # (a leaf the e-graph holds)
            return
        oid = pat[1]
        for n in index.class_nodes(c):
            if n[0] == oid:
                yield from self._over(pat, oid, n[1:], 0, [], m)

    def _over(self, pat: tuple, oid: int, kids: tuple, i: int, got: list, m: tuple) -> Iterator[tuple[Side, int]]:
        if i == len(kids):
            made = self._make(oid, got)
            if made is not None:
                yield made
            return
        for v in self._instances(pat[2][i], kids[i], m):
            yield from self._over(pat, oid, kids, i + 1, [*got, v], m)

    def _make(self, oid: int, args: list[tuple[Side, int]]) -> tuple[Side, int] | None:
        """Op ``oid`` over ``args`` (``(side, type id)`` each), its output typed by the index's
        inference (once per Op and input types, :meth:`Index.infer_types`), with the left padding
        an Elemwise's make_node adds; ``None`` where the Op refuses the types.  Nothing is built."""
        index = self.index
        tid = index.infer_types(oid, [t for _, t in args])
        if tid < 0:
            return None
        types = index.types
        out = types[tid]
        nd = out.ndim
        ins = [v if types[t].ndim == nd else self._padded(v, t, nd) for v, t in args]
        return (index.ops[oid][1], out, tuple(ins)), tid

    def _padded(self, v: Side, tid: int, nd: int) -> Side:
        """``v`` (of type id ``tid``) padded on the left to ``nd`` dimensions as Elemwise's make_node pads it."""
        found = self._pad_types.get((tid, nd))
        if found is None:
            index = self.index
            op = _pad_op(index.types[tid].ndim, nd)
            found = self._pad_types[(tid, nd)] = op, index.types[index.infer_types(index.op_id(op, 1), [tid])]
        return found[0], found[1], (v,)

    def _build(self, pat: tuple, m: tuple[int, ...]) -> tuple[Side, int, Interval] | None:
        """The right side ``pat`` (compiled) over the terms of the classes match ``m`` binds, with its
        interval (``None``: it does not build, or a node of it is nowhere a real number:
        :func:`graph_bridge.intervals.defined_nowhere`, as the query engine refuses it)."""
        index = self.index
        if pat[0] == _VAR:
            c = index.find(m[pat[1]])
            return self.term_at[c], index.ctype[c], class_interval(index, c)
        _, oid, args, kinds = pat
        built: list[tuple[Side, int, Interval] | None] = []
        for a in args:
            if a[0] == _CONST:
                built.append(None)
                continue
            b = self._build(a, m)
            if b is None:
                return None
            built.append(b)
        siblings = [_Typed(index.types[b[1]]) for b in built if b is not None]
        sides = []
        for a, b, kind in zip(args, built, kinds):
            if b is None:
                try:
                    v = a[1].build(siblings, kind)
                except (TypeError, ValueError):
                    return None
                b = (v, index.type_id(v.type), constant_interval(v) if isinstance(v, Constant) else EVERYTHING)
            sides.append(b)
        op = index.ops[oid][1]
        ins = [b[2] for b in sides]
        if defined_nowhere(op, ins):
            return None
        made = self._make(oid, [(v, t) for v, t, _ in sides])
        return None if made is None else (*made, op_interval(op, ins))
