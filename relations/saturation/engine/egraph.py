"""The e-graph: union-find, hash-cons, per-class parents, deferred rebuild, types, proof forest.

An e-node is a plain tuple ``(op id, child class id, ...)``: no PyTensor node is built for it.
An op id interns an Op with the number of inputs and the output index (``(op, nin, out)``);
a leaf (an input variable, or a constant: constants with equal type and data are one leaf)
is an op id of arity 0.  The type of a class is the one its first e-node has, inferred once
per (op id, input type ids) with ``op.make_node`` over dummy inputs and remembered.

Storage, indexed by class id (an int; a class id is also the id of the e-node that made it):
``parent`` (union-find), ``nodes`` (its e-nodes; after :meth:`EGraph.rebuild` a root's list holds
its live e-nodes only, so a search reads them without a look-up), ``parents`` (e-nodes using it,
stale entries dropped when the list doubled), ``ctype`` (its type id) and ``data`` (its analysis,
:mod:`.analysis`).  ``hashcons`` maps every live e-node to ``root class << CLASS_SHIFT | in tick
<< TICK_BITS | tick`` (its class is always a root: a union re-points the moved e-nodes): the tick
is the clock at which its row was last (re)written, the in tick the clock at which its tuple was
(a new or re-canonicalized e-node; a merge of its class re-stamps the tick only).  One dict
holds all three: an e-node costs one entry; ``tables[op id]``
lists the rows (e-nodes) in tick order and ``marks[t][op id]`` is the index of the first row
written at tick ``t`` or later, for semi-naive matching (:mod:`.query`; :meth:`EGraph.fresh`
reads an op's new live rows once for every rule variant that starts there).  A table keeps stale
rows (an e-node re-canonicalized or re-stamped) until it is half stale, then it is compacted.

A right side's new top e-node joins the match's class at once (:meth:`EGraph.into`): it takes an
id whose union-find slot points at the class (``nodes``, ``parents`` ``None`` there), with the
union ``(match root, id, reason)`` recorded, so proofs read it as a class made and merged at once.

Rebuilding is egg's: a union moves the class with fewer e-nodes and parents into the other (the
moved e-nodes' rows are re-stamped: their output column changed) and queues the moved class's
parents; ``rebuild`` re-canonicalizes only those queued parents (each joins the kept class's
parents list), merging congruent ones, until none are left, then re-analyzes the parents of the
classes whose data changed.  No pass re-keys every e-node.  Every union records why (``unions``:
``(a, b, reason)`` with ``reason`` a rule's ``(name, substitution)`` or ``("congruence", e-node)``); :meth:`explain`
reads a path back.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import toposort

from graph_bridge.nodes import is_left_padding, reads_through_padding
from relations.saturation.engine.analysis import ALL, ALWAYS, ClassAnalysis, IntervalAnalysis

__all__ = ["CLASS_SHIFT", "CONGRUENCE", "IN_FIELD", "TICK_BITS", "TICK_MASK", "EGraph"]

#: The reason name recorded for a union made by congruence closure.
CONGRUENCE = "congruence"
#: Bits of a hash-cons value holding the tick (the class id is above them).
TICK_BITS = 24
TICK_MASK = (1 << TICK_BITS) - 1
#: The bits of a hash-cons value holding the input tick (when the e-node's own tuple was written).
IN_FIELD = TICK_MASK << TICK_BITS
#: A hash-cons value's class id sits above both ticks: ``class << CLASS_SHIFT | in tick << TICK_BITS | tick``.
CLASS_SHIFT = 2 * TICK_BITS


#: output types by ``(op, output index, input types...)`` (``None``: the Op refuses them), for every
#: e-graph: ``make_node`` costs milliseconds (its variables read a stack trace), an e-graph meets the
#: same few combinations again
_INFERRED: dict[tuple, Any] = {}
_INFERRED_MAX = 100_000
_UNKNOWN = object()


class EGraph:
    """An e-graph over interned Ops; see the module docstring for its storage."""

    def __init__(self, analysis: ClassAnalysis | None = None) -> None:
        self.parent: list[int] = []
        self.nodes: list[Any] = []
        self.parents: list[Any] = []
        self.ctype: list[int] = []
        self.data: list[Any] = []
        self.hashcons: dict[tuple, int] = {}
        self.tables: list[list[tuple]] = []
        self.marks: list[list[int]] = [[]]
        self.dead: list[int] = []
        self.ops: list[Any] = []
        self.op_ids: dict[Any, int] = {}
        self.leaf: dict[int, Variable] = {}
        self.types: list[Any] = []
        self.type_ids: dict[Any, int] = {}
        self.type_key: list[Any] = []
        self.infer_cache: dict[tuple, int] = {}
        #: constants right-hand sides build, by (pattern, sibling type ids)
        self.const_cache: dict[tuple, Variable] = {}
        self.clock = 0
        #: both ticks at the current clock, as a hash-cons value's low bits
        self.now = 0
        self.pending: list[tuple] = []
        self.analysis_pending: list[tuple] = []
        #: classes whose data changed: their parents are re-analyzed once the pending e-nodes are repaired
        self.data_changed: set[int] = set()
        #: classes merged into or re-inserted into since the last rebuild (parents lists compacted when doubled)
        self.touched: set[int] = set()
        #: classes that lost an e-node (re-canonicalized) since the last rebuild: their nodes lists are filtered
        self.dirty: set[int] = set()
        #: per class: the length of its parents list when last compacted
        self.compacted: dict[int, int] = {}
        self.unions: list[tuple[int, int, Any]] = []
        self.merged = 0
        self.analysis = analysis if analysis is not None else IntervalAnalysis()
        self.transfer: list[Any] = []
        #: per op id: which children's data its transfer needs known (``analysis.ALWAYS``, ``ANY``, ``ALL``)
        self.need: list[int] = []
        self.const_watchers: list[tuple[Any, set]] = []
        #: :meth:`fresh`'s rows, with the e-graph's state they were read in
        self.fresh_rows: dict[tuple, tuple] = {}

    # -- interning ---------------------------------------------------------------------

    def type_id(self, t: Any) -> int:
        """The int standing for type ``t`` (interned)."""
        tid = self.type_ids.get(t)
        if tid is None:
            tid = self.type_ids[t] = len(self.types)
            self.types.append(t)
            dtype, bc = getattr(t, "dtype", None), getattr(t, "broadcastable", None)
            self.type_key.append((dtype, bc) if dtype is not None else t)
        return tid

    def _new_op(self, key: Any, value: Any) -> int:
        oid = self.op_ids[key] = len(self.ops)
        self.ops.append(value)
        self.tables.append([])
        self.dead.append(0)
        tf, need = (None, ALL) if value[0] == "leaf" else self.analysis.transfer_for(value[1])
        self.transfer.append(tf)
        self.need.append(need)
        return oid

    def op_id(self, op: Any, nin: int, out: int = 0) -> int:
        """The op id of output ``out`` of ``op`` applied to ``nin`` inputs."""
        key = (op, nin, out)
        oid = self.op_ids.get(key)
        return oid if oid is not None else self._new_op(key, ("op", op, nin, out))

    def holds_op(self, op: Any, nin: int, out: int = 0) -> bool:
        """Whether an e-node of output ``out`` of ``op`` over ``nin`` inputs was ever added (a rule whose
        left side names an Op without one has no match)."""
        oid = self.op_ids.get((op, nin, out))
        return oid is not None and bool(self.tables[oid])

    def leaf_op(self, v: Variable) -> int:
        """The op id of the leaf ``v`` (constants of equal type and data share one)."""
        # a constant of array data by its type and bytes; any other leaf (None, a slice, a
        # generator: no bytes) by itself
        data: Any = v.data if isinstance(v, Constant) else None
        tensor = hasattr(data, "tobytes")
        key: Any = ("const", v.type, data.tobytes()) if tensor else ("var", id(v), v)
        oid = self.op_ids.get(key)
        if oid is None:
            oid = self._new_op(key, ("leaf", v))
            self.leaf[oid] = v
            if tensor:
                for const, ops in self.const_watchers:
                    if const.matches(v):
                        ops.add(oid)
        return oid

    def const_ops(self, const: Any) -> set[int]:
        """The op ids of the constant leaves ``const`` (a ``p.const``) matches, kept up to date."""
        for c, ops in self.const_watchers:
            if c is const:
                return ops
        ops = {oid for oid, v in self.leaf.items() if isinstance(v, Constant) and const.matches(v)}
        self.const_watchers.append((const, ops))
        return ops

    def infer(self, oid: int, kids: Sequence[int]) -> int:
        """The type id of op ``oid`` over classes ``kids`` (-1 if the Op refuses those types)."""
        return self.infer_types(oid, [self.ctype[k] for k in kids])

    def infer_types(self, oid: int, tids: Sequence[int]) -> int:
        """The type id of op ``oid`` over inputs of type ids ``tids`` (-1 if the Op refuses them)."""
        key = (oid, *tids)
        tid = self.infer_cache.get(key)
        if tid is None:
            _, op, _, out = self.ops[oid]
            types = [self.types[t] for t in key[1:]]
            known = (op, out, *types)
            t = _INFERRED.get(known, _UNKNOWN)
            if t is _UNKNOWN:
                try:
                    t = op.make_node(*[ty() for ty in types]).outputs[out].type
                except (TypeError, ValueError, NotImplementedError):
                    t = None
                if len(_INFERRED) >= _INFERRED_MAX:
                    _INFERRED.clear()
                _INFERRED[known] = t
            tid = -1 if t is None else self.type_id(t)
            self.infer_cache[key] = tid
        return tid

    # -- adding ------------------------------------------------------------------------

    def _new_class(self, enode: tuple, tid: int, data: Any) -> int:
        c = len(self.parent)
        self.parent.append(c)
        self.nodes.append([enode])
        self.parents.append([])
        self.ctype.append(tid)
        self.data.append(data)
        self._insert(enode, c)
        return c

    def _insert(self, enode: tuple, c: int) -> None:
        """``enode`` (canonical, new) is live in root class ``c``: its row is written now."""
        self.hashcons[enode] = (c << CLASS_SHIFT) | self.now
        self.tables[enode[0]].append(enode)
        parents = self.parents
        for k in set(enode[1:]):
            parents[k].append(enode)

    def add(self, oid: int, kids: Sequence[int], tid: int | None = None) -> int:
        """The class of e-node ``oid(kids)`` (kids canonicalized), added if new; -1 if ill-typed.

        ``tid``: the e-node's type id when known (a graph's own node); else it is inferred from the
        Op and the children's types (:meth:`infer`)."""
        find = self.find
        enode = (oid, *[find(k) for k in kids])
        v = self.hashcons.get(enode)
        if v is not None:
            return v >> CLASS_SHIFT
        return self._add_new(enode, self.infer(oid, enode[1:]) if tid is None else tid)

    def add2(self, oid: int, a: int, b: int) -> int:
        """:meth:`add` for two children."""
        parent = self.parent
        if parent[a] != a:
            a = self.find(a)
        if parent[b] != b:
            b = self.find(b)
        v = self.hashcons.get((oid, a, b))
        return v >> CLASS_SHIFT if v is not None else self.new2(oid, a, b)

    def new2(self, oid: int, a: int, b: int) -> int:
        """The class of the new e-node ``oid(a, b)`` (``a``, ``b`` roots; the e-node not in the hash-cons);
        -1 if ill-typed (the hot path of right-hand sides: :meth:`_add_new` inlined).  Children that
        are no roots any more (an analysis folded a constant meanwhile) go through :meth:`add2`."""
        parent = self.parent
        if parent[a] != a or parent[b] != b:
            return self.add2(oid, a, b)
        ctype = self.ctype
        tid = self.infer_cache.get((oid, ctype[a], ctype[b]))
        if tid is None:
            tid = self.infer(oid, (a, b))
        if tid < 0:
            return -1
        enode = (oid, a, b)
        c = len(parent)
        parent.append(c)
        self.nodes.append([enode])
        parents = self.parents
        parents.append([])
        ctype.append(tid)
        data = self.data
        data.append(None)
        self.hashcons[enode] = (c << CLASS_SHIFT) | self.now
        self.tables[oid].append(enode)
        parents[a].append(enode)
        if a != b:
            parents[b].append(enode)
        tf = self.transfer[oid]
        if tf is not None:
            need = self.need[oid]
            if need == ALL:
                known = data[a] is not None and data[b] is not None
            else:
                known = need == ALWAYS or data[a] is not None or data[b] is not None
            if known:
                self._analyze_new(enode, c, tid, tf)
        return c

    def into(self, enode: tuple, r: int, a: int, reason: Any) -> int:
        """Add the new canonical ``enode`` (not in the hash-cons) to the root class ``r`` for ``a``, recording
        ``reason``: a right side's top e-node joins the match's class without a class of its own to merge.

        It gets an id (a slot of the union-find pointing at ``r``, with the union ``(a, id, reason)``
        recorded) as if it had made a class merged at once, so :meth:`explain` reads it alike.
        Returns 1, or -1 (nothing added) when it is ill-typed or of another dtype/broadcastable than
        ``r``."""
        parent, ctype = self.parent, self.ctype
        kids = enode[1:]
        if len(enode) == 3:
            oid, x, y = enode
            tid = self.infer_cache.get((oid, ctype[x], ctype[y]))
            canonical = parent[x] == x and parent[y] == y
        else:
            oid = enode[0]
            tid = self.infer_cache.get((oid, *[ctype[k] for k in kids]))
            canonical = all(parent[k] == k for k in kids)
        if tid is None:
            tid = self.infer(oid, kids)
        if tid < 0 or (tid != ctype[r] and self.type_key[tid] != self.type_key[ctype[r]]):
            return -1
        if not canonical or parent[r] != r:  # an analysis folded a constant meanwhile
            c = self.find(self.add(oid, kids))  # (adding may fold it too)
            r = self.find(r)
            if c != r:
                self.merge(r, c, a, c, reason)
            return 1
        i = len(parent)
        parent.append(r)
        nodes, parents, data = self.nodes, self.parents, self.data
        nodes.append(None)
        parents.append(None)
        ctype.append(tid)
        data.append(None)
        self.merged += 1
        self.unions.append((a, i, reason))
        self.hashcons[enode] = (r << CLASS_SHIFT) | self.now
        self.tables[oid].append(enode)
        nodes[r].append(enode)
        if len(enode) == 3:
            parents[x].append(enode)
            if x != y:
                parents[y].append(enode)
        else:
            for k in set(kids):
                parents[k].append(enode)
        tf = self.transfer[oid]
        if tf is not None:
            need = self.need[oid]
            if len(enode) == 3:
                if need == ALL:
                    known = data[x] is not None and data[y] is not None
                else:
                    known = need == ALWAYS or data[x] is not None or data[y] is not None
            else:
                known = need == ALWAYS or (all if need == ALL else any)(data[k] is not None for k in kids)
            if known:
                d = tf(self, enode, tid)
                if d is not None:
                    da = data[r]
                    both = self.analysis.merge(da, d)
                    if both != da:
                        data[r] = both
                        self.data_changed.add(r)
                        self.analysis.modify(self, r)
        return 1

    def add1(self, oid: int, a: int) -> int:
        """:meth:`add` for one child."""
        if self.parent[a] != a:
            a = self.find(a)
        v = self.hashcons.get((oid, a))
        return v >> CLASS_SHIFT if v is not None else self.new1(oid, a)

    def new1(self, oid: int, a: int) -> int:
        """:meth:`new2` for one child."""
        if self.parent[a] != a:
            return self.add1(oid, a)
        tid = self.infer_cache.get((oid, self.ctype[a]))
        if tid is None:
            tid = self.infer(oid, (a,))
        return self._add_new((oid, a), tid)

    def _add_new(self, enode: tuple, tid: int) -> int:
        """A new class holding the new canonical ``enode`` of type ``tid`` (-1: ill-typed, nothing added)."""
        if tid < 0:
            return -1
        oid = enode[0]
        parent = self.parent
        c = len(parent)
        parent.append(c)
        self.nodes.append([enode])
        parents = self.parents
        parents.append([])
        self.ctype.append(tid)
        self.data.append(None)
        self.hashcons[enode] = (c << CLASS_SHIFT) | self.now
        self.tables[oid].append(enode)
        if len(enode) == 3:
            a, b = enode[1], enode[2]
            parents[a].append(enode)
            if a != b:
                parents[b].append(enode)
        else:
            for k in set(enode[1:]):
                parents[k].append(enode)
        tf = self.transfer[oid]
        if tf is not None:
            need, data = self.need[oid], self.data
            if need == ALWAYS or (all if need == ALL else any)(data[k] is not None for k in enode[1:]):
                self._analyze_new(enode, c, tid, tf)
        return c

    def _analyze_new(self, enode: tuple, c: int, tid: int, tf: Any) -> None:
        """The data of the new class ``c`` from its e-node (``modify`` may fold it to a constant)."""
        kd = self.data
        data = tf(self, enode, tid)
        if data is not None:
            kd[c] = data
            self.analysis.modify(self, c)

    def add_leaf(self, v: Variable) -> int:
        """The class of the leaf ``v``."""
        oid = self.leaf_op(v)
        enode = (oid,)
        known = self.hashcons.get(enode)
        if known is not None:
            return self.find(known >> CLASS_SHIFT)
        data = self.analysis.leaf(v) if not isinstance(v, Constant) or hasattr(v.data, "tobytes") else None
        return self._new_class(enode, self.type_id(v.type), data)

    def add_graph(self, outputs: Iterable[Variable]) -> list[int]:
        """Add the graph of ``outputs`` (read as is; an Elemwise's broadcasting DimShuffles read through).

        Each class takes its node's own type (only right-hand sides' e-nodes have theirs inferred,
        and the query engine builds scalar Elemwise nodes only, whose type their inputs' types fix).
        Returns the class of each output."""
        outputs = list(outputs)
        cls = self.add_graph_classes(outputs)
        return [self.find(cls[o]) for o in outputs]

    def add_graph_classes(self, outputs: Sequence[Variable]) -> dict[Variable, int]:
        """:meth:`add_graph`, returning the class of every variable of the graph.

        An Elemwise reads through a broadcasting DimShuffle of an input only where another input
        has the output's ndim (the padding is then the one the Elemwise adds itself): ``exp(x[None])``
        keeps its ExpandDims, whose dimension nothing else gives.  The DimShuffle keeps its own class."""
        cls: dict[Variable, int] = {}

        def class_of(v: Variable, under_elemwise: bool) -> int:
            if under_elemwise and is_left_padding(v.owner):
                return class_of(v.owner.inputs[0], True)
            known = cls.get(v)
            return known if known is not None else cls.setdefault(v, self.add_leaf(v))

        for node in toposort(outputs):
            elem = reads_through_padding(node)
            kids = [class_of(i, elem) for i in node.inputs]
            for j, out in enumerate(node.outputs):
                # the node's own type: an Op may read its constant inputs' values (Alloc's shape)
                cls[out] = self.add(self.op_id(node.op, len(kids), j), kids, self.type_id(out.type))
        for o in outputs:
            class_of(o, False)
        return cls

    # -- union-find and rebuild --------------------------------------------------------

    def find(self, c: int) -> int:
        """The root of class ``c`` (path halving)."""
        parent = self.parent
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    def same_type(self, a: int, b: int) -> bool:
        """Whether classes ``a`` and ``b`` have the same dtype and broadcastable pattern (ndim included)."""
        key = self.type_key
        return key[self.ctype[a]] == key[self.ctype[b]]

    def union(self, a: int, b: int, reason: Any) -> bool:
        """Merge the classes of ``a`` and ``b`` (same dtype/broadcastable), recording ``reason``.

        Returns whether they were two classes.  Rebuild before matching again."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if not self.same_type(ra, rb):
            raise TypeError(f"b: class {b} has type {self.types[self.ctype[rb]]}, class {a} has "
                            f"{self.types[self.ctype[ra]]}")
        self.merge(ra, rb, a, b, reason)
        return True

    def merge(self, ra: int, rb: int, a: int, b: int, reason: Any) -> None:
        """:meth:`union` of two distinct roots ``ra`` and ``rb`` of one type (the caller checked),
        for ``a`` and ``b``.

        The live e-nodes of the smaller class join the larger; their rows are re-stamped (their
        output column changed); the smaller class's parents are queued for :meth:`rebuild`."""
        nodes, parents = self.nodes, self.parents
        src, keep = nodes[rb], nodes[ra]
        if len(keep) + len(parents[ra]) < len(src) + len(parents[rb]):
            ra, rb, src, keep = rb, ra, keep, src
        self.parent[rb] = ra
        self.merged += 1
        self.unions.append((a, b, reason))
        hashcons, tables, dead = self.hashcons, self.tables, self.dead
        clock = self.clock
        moved = (ra << CLASS_SHIFT) | clock
        for n in src:
            v = hashcons.get(n)
            if v is None or v >> CLASS_SHIFT != rb:
                continue
            hashcons[n] = moved | (v & IN_FIELD)
            keep.append(n)
            if v & TICK_MASK != clock:
                tables[n[0]].append(n)
                dead[n[0]] += 1
        nodes[rb] = None
        up = parents[rb]
        self.pending.extend(up)  # each live one holds rb: repaired, it joins ra's parents (or its twin is there)
        parents[rb] = None
        self.touched.add(ra)
        data = self.data
        da, db = data[ra], data[rb]
        if da is not db:
            data[rb] = None
            self._merge_data(ra, da, db)

    def _merge_data(self, ra: int, da: Any, db: Any) -> None:
        merged = self.analysis.merge(da, db)
        if merged != da or merged != db:
            self.data[ra] = merged
            self.data_changed.add(ra)
            self.analysis.modify(self, ra)

    def _repair_all(self, todo: list[tuple]) -> None:
        """Re-canonicalize each queued e-node: re-insert it, or merge it with its congruent twin
        (the canonical and the dead ones skipped)."""
        hashcons, parent, find, nodes, parents = self.hashcons, self.parent, self.find, self.nodes, self.parents
        tables, dead, touched, key = self.tables, self.dead, self.touched, self.type_key
        ctype, dirty = self.ctype, self.dirty
        for p in todo:
            v = hashcons.get(p)
            if v is None:
                continue
            if len(p) == 3:
                op, a, b = p
                if parent[a] == a and parent[b] == b:
                    continue
                q = (op, a if parent[a] == a else find(a), b if parent[b] == b else find(b))
            else:
                op = p[0]
                q = (op, *[find(k) for k in p[1:]])
                if q == p:
                    continue
            c = v >> CLASS_SHIFT
            del hashcons[p]
            dirty.add(c)
            dead[op] += 1
            twin = hashcons.get(q)
            if twin is not None:
                t = twin >> CLASS_SHIFT
                if t != c:
                    if key[ctype[t]] != key[ctype[c]]:
                        raise TypeError(f"congruent e-nodes {q} of classes {t} and {c} have types "
                                        f"{self.types[ctype[t]]} and {self.types[ctype[c]]}")
                    self.merge(t, c, t, c, (CONGRUENCE, q))
            else:
                hashcons[q] = (c << CLASS_SHIFT) | self.now
                tables[op].append(q)
                if len(q) == 3:
                    a, b = q[1], q[2]
                    parents[a].append(q)
                    if a != b:
                        parents[b].append(q)
                else:
                    for k in set(q[1:]):
                        parents[k].append(q)
                nodes[c].append(q)
                touched.add(c)

    def rebuild(self) -> None:
        """Restore the invariants: every live e-node canonical, congruence closed, analyses up to date."""
        while self.pending or self.analysis_pending or self.data_changed:
            while self.pending:
                todo, self.pending = self.pending, []
                self._repair_all(todo)
            if self.data_changed:
                changed, self.data_changed = self.data_changed, set()
                for c in changed:
                    self.analysis_pending.extend(self.parents[self.find(c)])
            if self.analysis_pending:
                todo, self.analysis_pending = self.analysis_pending, []
                for p in dict.fromkeys(todo):
                    self._reanalyze(p)
        self._compact()

    def _reanalyze(self, p: tuple) -> None:
        v = self.hashcons.get(p)
        tf = self.transfer[p[0]]
        if v is None or tf is None:
            return
        c = v >> CLASS_SHIFT
        old = self.data[c]
        new = self.analysis.merge(old, tf(self, p, self.ctype[c]))
        if new != old:
            self.data[c] = new
            self.data_changed.add(c)
            self.analysis.modify(self, c)

    def _compact(self) -> None:
        """Drop the dead e-nodes of every class's nodes list (so a search reads live e-nodes there
        without a look-up), stale entries of the touched classes' parents lists that doubled since
        their last compaction, and of tables half stale (amortized: each entry is dropped once, a
        live one copied O(1) times)."""
        hashcons, compacted, parent = self.hashcons, self.compacted, self.parent
        nodes_of, parents_of = self.nodes, self.parents
        for c in self.dirty:
            if parent[c] == c:
                nodes_of[c] = [n for n in nodes_of[c] if n in hashcons]
        self.dirty = set()
        for c in self.touched:
            if parent[c] != c:
                continue
            parents = parents_of[c]
            if len(parents) <= 2 * compacted.get(c, 4):
                continue
            parents = parents_of[c] = list(dict.fromkeys([n for n in parents if n in hashcons]))
            compacted[c] = len(parents)
        self.touched = set()
        for op, table in enumerate(self.tables):
            if self.dead[op] * 2 > len(table) > 64:
                self._compact_table(op)

    def _compact_table(self, op: int) -> None:
        """Keep each live e-node's latest row only (rows stay in tick order); recompute the marks."""
        hashcons, seen, rows = self.hashcons, set(), []
        for n in reversed(self.tables[op]):
            if n not in seen and n in hashcons:
                seen.add(n)
                rows.append(n)
        rows.reverse()
        self.tables[op] = rows
        self.dead[op] = 0
        ticks = [hashcons[n] & TICK_MASK for n in rows]
        for t, mark in enumerate(self.marks):
            if op < len(mark):
                mark[op] = bisect_left(ticks, t)

    def advance(self) -> None:
        """Move the clock on: rows written from now on are newer than every row so far."""
        self.clock += 1
        self.fresh_rows = {}
        if self.clock > TICK_MASK:
            raise OverflowError(f"more than {TICK_MASK} ticks")
        self.now = (self.clock << TICK_BITS) | self.clock
        self.marks.append([len(t) for t in self.tables])

    # -- reading -----------------------------------------------------------------------

    def fresh(self, oid: int, tick: int, kind: int) -> list[tuple[tuple, int]]:
        """``(e-node, hash-cons value)`` of the live rows of op ``oid``'s table new since ``tick``: whose
        tick (``kind`` 0) or in tick (``kind`` 1: the e-node's own tuple) is ``tick`` or later.

        The pivot rows of a semi-naive search, shared by the rules' variants that start at the same
        op (remembered until the e-graph changes)."""
        key = (oid, tick, kind)
        table = self.tables[oid]
        stamp = (self.clock, len(table), self.merged, len(self.hashcons))
        hit = self.fresh_rows.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
        get, start = self.hashcons.get, self.rows_since(oid, tick)
        if kind:
            rows = [(n, v) for n in islice(table, start, None)
                    if (v := get(n)) is not None and (v >> TICK_BITS) & TICK_MASK >= tick]
        else:
            rows = [(n, v) for n in islice(table, start, None) if (v := get(n)) is not None and v & TICK_MASK >= tick]
        self.fresh_rows[key] = (stamp, rows)
        return rows

    def rows_since(self, oid: int, tick: int) -> int:
        """The index of the first row of op ``oid``'s table written at ``tick`` or later."""
        if tick >= len(self.marks):
            return len(self.tables[oid])
        mark = self.marks[tick]
        return mark[oid] if oid < len(mark) else 0

    @property
    def n_nodes(self) -> int:
        """Live e-nodes (leaves included)."""
        return len(self.hashcons)

    @property
    def n_classes(self) -> int:
        """Classes (roots of the union-find)."""
        return len(self.parent) - self.merged

    def class_nodes(self, c: int) -> list[tuple]:
        """The live e-nodes of class ``c``."""
        c = self.find(c)
        return [n for n in self.nodes[c] if self.hashcons.get(n, -1) >> CLASS_SHIFT == c]

    def class_of(self, enode: tuple) -> int | None:
        """The class of a live e-node (``None`` if it is not one)."""
        v = self.hashcons.get(enode)
        return None if v is None else v >> CLASS_SHIFT

    def type_of(self, c: int) -> Any:
        """The PyTensor type of class ``c``."""
        return self.types[self.ctype[self.find(c)]]

    def explain(self, a: int, b: int) -> list[tuple[int, int, Any]] | None:
        """The unions linking the e-nodes that made classes ``a`` and ``b``: ``[(x, y, reason), ...]``.

        ``None`` if they are not equal; ``[]`` if ``a == b``."""
        if self.find(a) != self.find(b):
            return None
        adj: dict[int, list] = {}
        for x, y, why in self.unions:
            adj.setdefault(x, []).append((y, why))
            adj.setdefault(y, []).append((x, why))
        back: dict[int, Any] = {a: None}
        queue = deque([a])
        while queue:
            x = queue.popleft()
            if x == b:
                break
            for y, why in adj.get(x, ()):
                if y not in back:
                    back[y] = (x, why)
                    queue.append(y)
        path = []
        x = b
        while back.get(x) is not None:
            prev, why = back[x]
            path.append((prev, x, why))
            x = prev
        return path[::-1]
