"""Equality saturation over the relations: one e-graph holds every form the rules find.

An :class:`EGraph` keeps *terms* (PyTensor variables, each added once) in
e-classes merged by a union-find.  A term's *key* is its Op (props
equality), its output index and the classes of its inputs; terms of one key
are one e-node (hash-consing), and two classes holding terms of one key are
one class (congruence), restored by :meth:`EGraph.rebuild` once per
iteration (egg's deferred rebuilding).  Every class has one PyTensor type
(``graph_bridge.type_facts.same_type``); a union of two classes of different
types is a bug in a rule and raises ``TypeError`` naming both.

A term the query matcher adds is recorded without a PyTensor node
(:meth:`EGraph.lazy_term`): its Op, its input terms and its type, which the
matcher's index infers once per Op and input types.  Keys, congruence, the
classes' types and the index read no more; its variable is built when
something reads it (:meth:`EGraph.variable`: a plan or a foreign rewriter
run at that e-node, extraction's chosen e-nodes, a proof step, a drawing,
``ENode.var``), over its children's variables, once.
:attr:`EGraph.lazy_terms` counts them, built and not.

The relations drive it, as they are; no rule is written twice.  Two
matchers run forward.  The plain pattern rules (``p.var``, ``p.const``, the
scalar Elemwise builders, rule-language guards: :func:`relations.saturation.engine.query.query_rule`
accepts them) are e-matched at Elemwise e-nodes as queries over an index of
the e-graph (:mod:`relations.saturation.query_matcher`): every match, at any
depth, with nothing cut.  Every other rule's forward mode is its compiled
plan (``relations.patterns.plans``), which reads a
variable's one-level view.  E-matching: at an e-node the plan runs on
variables of that e-node whose inputs range over the e-nodes of the input
classes, :data:`MATCH_DEPTH` levels down (one input changed at a time
first, then two or more; at most :data:`MAX_CHOICES` choices per e-node,
the e-nodes cut counted in ``Report.cut`` and a run that stopped changing
with any cut stopping as ``"choices"``, not ``"saturated"``;
a choice is a node built over those e-nodes' own variables, only when the
rule index gives it a rule, and a rule naming no input Op in its
``child_heads``, or reading nothing below its inputs' nodes
(``reads_below_inputs``), sees the choices one level down only; an e-node
reading only its own class is no choice); a plan that reads deeper sees the
variables those e-nodes were made from.  An answer the matched class holds
already (looked up by its nodes' keys) is counted and left, unbuilt; any
other is added and unioned with the matched class.  While the rules run,
the graph context tells guards a built term's class type
(``GraphContext.held_type``) and a variable's equal e-nodes
(``GraphContext.equals``).  With ``backward=True``, once the
forward rules have saturated the e-graph, each rule's backward mode adds, for
every e-node not itself made by a backward step, up to
:data:`MAX_BACKWARD_ANSWERS` forms rewriting to it, until the e-graph has
grown by ``Limits.growth`` times its size; a rule runs backward only where
the index allows it (``rhs_heads``, ``rhs_child_heads``), and an
``identity`` rule not at all (it would only wrap a class in a node over
itself).  Type guards read the
variables' types, which are the class's; sharing guards
(``graph_bridge.context``) see a graph with no other uses, so they hold:
whether a lift pays is extraction's call (a shared class is paid once).

Every union records why (the rule and the two terms it related, or
congruence), so :mod:`relations.queries.proofs` can say how two terms came to be
one class.  Saturation stops when an iteration adds nothing (``"saturated"``)
or at a :class:`Limits` bound; :attr:`EGraph.report` says which.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice, product
from typing import Any

import numpy as np
from etuples.core import ExpressionTuple
from pytensor import config
from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.graph.op import Op
from pytensor.tensor.elemwise import Elemwise

from graph_bridge import in_vocabulary, node_term
from graph_bridge.context import GraphContext, graph_context
from graph_bridge.terms import is_variable
from graph_bridge.type_facts import same_type
from graph_bridge.vocabulary import rewrites_whole_node
from logic_core.memo import type_check
from relations.arguments import as_variables, check_callable, check_count
from relations.greedy.fixpoint import replacements
from relations.patterns.relation import Relation, RuleIndex, child_heads
from relations.rules import rule_index
from relations.saturation import extract as extract_mod
from relations.saturation.foreign import ForeignRules, ForeignState, RewriterSpec, RewriterStats, foreign_rules
from relations.saturation.query_matcher import QueryMatcher, query_rules

__all__ = [
    "CONGRUENCE",
    "EGraph",
    "ENode",
    "Limits",
    "MAX_BACKWARD_ANSWERS",
    "MAX_CHOICES",
    "Report",
    "RuleStats",
    "saturate",
]

#: ``logging.getLogger("relations.saturation")``: one line per saturation at INFO.
log = logging.getLogger("relations.saturation")

#: Choices of input e-nodes a rule's plan is run on, per e-node and iteration (and per input).
MAX_CHOICES = 32
#: Levels below an e-node whose e-nodes are chosen among (a plan reads deeper through the
#: variables the chosen e-nodes were made from).
MATCH_DEPTH = 2
#: Answers taken from one relation run backward at one e-node.
MAX_BACKWARD_ANSWERS = 4
#: Backward steps in a row: a term made by a backward step is not expanded backward again.
MAX_BACKWARD_DEPTH = 1
#: The justification of a union made by congruence (same Op over equal inputs).
CONGRUENCE = "congruence"
#: the value of a term not evaluated yet (etuples' marker)
_NULL = ExpressionTuple.null
_is_etuple = type_check(ExpressionTuple, "``isinstance(x, ExpressionTuple)``, remembered per type.")
_is_op = type_check(Op, "``isinstance(x, Op)``, remembered per type.")


@dataclass(frozen=True)
class Limits:
    """Bounds of one saturation; ``None`` leaves a bound off.

    ``nodes``: e-nodes the e-graph may hold (checked as it grows);
    ``iterations``: rounds of matching every e-node and rebuilding (in
    each phase: forward, then backward);
    ``seconds``: wall-clock time; ``growth``: with ``backward=True``, the
    e-nodes the backward steps may add, as a multiple of the e-nodes the
    e-graph holds once the forward rules have saturated it.

    A run with ``backward=True`` first saturates forward (every rule's
    forward mode only), then adds the backward steps: the forward forms
    are always complete (within the bounds), and the backward ones grow
    the e-graph by at most ``growth`` times its size, so the work and
    memory of a default run are proportional to the graph, as
    ``canonicalize``'s are (stop reason ``"nodes"`` when ``growth`` is what
    stopped it).  A forward saturation of the default rules on a PyMC
    model graph of a few hundred nodes saturates well within the other
    bounds (a tenth of a second, 1.2-1.6 e-nodes per node of the graph).
    """

    nodes: int | None = 20_000
    iterations: int | None = 16
    seconds: float | None = 3.0
    growth: float | None = 0.5

    def __post_init__(self) -> None:
        check_count(self.nodes, "Limits.nodes", allow_none=True)
        check_count(self.iterations, "Limits.iterations", allow_none=True)
        for name in ("seconds", "growth"):
            s = getattr(self, name)
            if s is not None and (isinstance(s, bool) or not isinstance(s, (int, float)) or not s > 0):
                raise ValueError(f"Limits.{name} must be a positive number or None, got {s!r}")


@dataclass
class RuleStats:
    """What one rule did in a saturation: answers, unions they made, seconds in its plan."""

    matches: int = 0
    unions: int = 0
    seconds: float = 0.0


@dataclass
class Report:
    """Why and where a saturation stopped.

    ``stop`` is ``"saturated"`` (an iteration added nothing, and every match
    was tried), ``"choices"`` (an iteration added nothing, but at some e-nodes
    the choices of input e-nodes the plans and rewriters run on were cut at
    :data:`MAX_CHOICES`: ``cut`` counts them), ``"nodes"``, ``"iterations"`` or
    ``"seconds"`` (the :class:`Limits` bound hit), or ``"met"`` when a run's
    ``until`` condition held first (``prove``: the two classes met).
    """

    stop: str = "saturated"
    iterations: int = 0
    classes: int = 0
    nodes: int = 0
    seconds: float = 0.0
    rules: dict[str, RuleStats] = field(default_factory=dict)
    #: per foreign rewriter (``rewriters=``): :class:`relations.saturation.foreign.RewriterStats`
    rewriters: dict[str, RewriterStats] = field(default_factory=dict)
    #: e-nodes whose choices of input e-nodes were cut at :data:`MAX_CHOICES`: the plans and the
    #: foreign rewriters there did not see every combination (the pattern rules, matched as
    #: queries, are never cut); with any, a run that stopped changing stops as ``"choices"``
    cut: int = 0
    #: times egg's BackoffScheduler banned a pattern rule whose search found more matches than its
    #: limit (its matches are found again when the ban ends; a run stopping while one is on stops
    #: at a limit, never as ``"saturated"``)
    bans: int = 0

    def __str__(self) -> str:
        lines = [
            f"stop: {self.stop} after {self.iterations} iterations, {self.seconds:.3f} s; "
            f"{self.classes} classes, {self.nodes} e-nodes"
        ]
        if self.bans:
            lines.append(f"  pattern rules banned {self.bans} times by the scheduler (too many matches at once)")
        if self.cut:
            lines.append(f"  choices of input e-nodes cut at {MAX_CHOICES} at {self.cut} e-nodes: the plans and "
                         f"rewriters there did not see every combination")
        for name, s in self.rules.items():
            lines.append(f"  {name}: {s.matches} matches, {s.unions} unions, {s.seconds:.3f} s")
        idle = 0
        for name, rs in self.rewriters.items():
            if rs.calls or rs.errors:
                lines.append(f"  {name} (rewriter): {rs}")
            else:
                idle += 1
        if idle:
            lines.append(f"  {idle} more rewriters: tracked no e-node's Op")
        return "\n".join(lines)


class _Stop(Exception):
    """A limit was hit (its name is the stop reason)."""


class ENode:
    """One e-node: its ``term``, the classes of its inputs (``children``) and ``var``, a variable it
    was made from (built when first read, for a term the query matcher recorded without one:
    :meth:`EGraph.variable`); ``type`` and ``is_leaf`` read no variable."""

    __slots__ = ("_egraph", "children", "term")

    def __init__(self, term: int, children: tuple[int, ...], egraph: EGraph) -> None:
        self.term, self.children, self._egraph = term, children, egraph

    @property
    def var(self) -> Variable:
        """The term's variable (built now if the term has none yet)."""
        return self._egraph.variable(self.term)

    @property
    def type(self) -> Any:
        """The term's PyTensor type (nothing built)."""
        return self._egraph.term_type(self.term)

    @property
    def is_leaf(self) -> bool:
        """Whether the term is a graph input or a constant (no node)."""
        return self._egraph.term_op(self.term) is None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ENode) and (self.term, self.children) == (other.term, other.children)

    def __hash__(self) -> int:
        return hash((self.term, self.children))

    def __repr__(self) -> str:
        return f"ENode(term={self.term}, children={self.children})"


def _leaf_key(v: Variable) -> Any:
    """Constants are keyed by type and value (equal constants are one class), other inputs by themselves."""
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        return ("const", str(v.type), data.dtype.str, data.shape, data.tobytes())
    return ("input", v)


class EGraph:
    """E-classes of PyTensor terms under a rule set; see the module docstring.

    Build one with :func:`saturate`, or ``EGraph(rules)`` then :meth:`add`
    and :meth:`run`.  :meth:`extract`, :meth:`forms`, :meth:`same` and
    :meth:`prove` answer from it.
    """

    def __init__(self, rules: Sequence[Relation] | None = None, rewriters: RewriterSpec = ()) -> None:
        self.index = rule_index(rules)
        # the plain pattern rules are e-matched as queries (:mod:`.query_matcher`) at Elemwise
        # e-nodes; the plans run the others there, and every rule at e-nodes of other Ops
        queries = query_rules(self.index.rules)
        self._queries = QueryMatcher(queries) if queries else None
        self._plan_index = RuleIndex([r for r in self.index.rules if r not in queries]) if queries else self.index
        #: PyTensor node rewriters run at the e-nodes too (:mod:`relations.saturation.foreign`)
        self.foreign: ForeignRules | None = foreign_rules(rewriters, "rewriters")
        self._foreign = ForeignState()  # what the foreign rewriters have run on, and built
        self._vars: list[Variable | None] = []  # term -> its variable (``None``: not built yet)
        #: term -> its Op and type, for a term recorded without a variable (built by :meth:`variable`)
        self._lazy: dict[int, tuple[Op, Any]] = {}
        #: terms recorded without a variable whose variable was built since (:attr:`lazy_terms`)
        self._reified = 0
        self._children: list[tuple[int, ...]] = []  # term -> its input terms
        self._parent: list[int] = []  # union-find over terms; a class is named by its root term
        self._edges: dict[int, list[tuple[int, Any]]] = {}  # the explanation forest: term -> (term, why)
        self._bgen: list[int] = []  # backward steps that made the term
        self._term_of: dict[Variable, int] = {}
        self._hashcons: dict[Any, int] = {}  # key -> the canonical term (the e-node)
        self._head: list[int] = []  # term -> the number of its Op and output index (``_head_of``)
        self._heads: dict[Any, int] = {}  # (Op, output index) or a leaf's key -> its number
        self._head_ids: dict[tuple[int, int], int] = {}  # (id of an Op, output index) -> its number
        self._head_ops: list[Any] = []
        self._members: dict[int, list[int]] = {}  # class -> its e-nodes
        self._type: dict[int, Any] = {}  # class -> its type
        self._dirty = False
        self._done: set[Any] = set()  # choices (``_variants``) whose plans have run
        #: e-nodes whose choices of input e-nodes were cut at :data:`MAX_CHOICES` (``Report.cut``)
        self._cut: set[int] = set()
        self._built: dict[Any, Variable] = {}  # choice -> its variable
        self._round = 0  # the iteration running (counted over runs)
        self._visited: dict[int, int] = {}  # e-node -> the round its rules last ran
        self._revisit: set[int] = set()  # e-nodes a class below which gained an e-node since (``_mark_above``)
        self._backward_done: set[int] = set()
        self._held: set[int] = set()  # terms added not to be expanded backward (``add``)
        self._parents: dict[int, list[int]] = {}  # class -> e-nodes reading it (congruence repair)
        self._pending: list[int] = []  # e-nodes whose input class was renamed since the last repair
        self._new_gen = 0
        #: ``id(term) -> (term, its class or None)`` for the answer terms of one rule run (``_known_class``)
        self._answer_memo: dict[int, tuple[Any, int | None]] = {}
        self._home = -1  # the class of the e-node whose rule runs (``_held_at_home``)
        #: variable -> the equal variable a guard held through, in one rule run (``_witnessed``)
        self._witnesses: dict[Variable, Variable] = {}
        self._held_answers = 0  # its answers held there already
        self._deep: dict[type, tuple] = {}  # Op class -> its forward rules' child_heads (``_deep_heads``)
        self._guarded: dict[type, bool] = {}  # Op class -> ``_class_guarded``
        #: class -> the count of class changes when it last gained an e-node (``_below_version``)
        self._version: dict[int, int] = {}
        self._changes = 0
        #: the outputs given to :func:`saturate` (or the first :meth:`add`)
        self.roots: list[Variable] = []
        #: the terms of :attr:`roots`' graph are those numbered below this
        self.given_terms = 0
        self._single = True
        #: the last run's :class:`Report`
        self.report = Report()

    # -- terms and classes ------------------------------------------------------

    def find(self, t: int) -> int:
        """The class of term ``t`` (its union-find root)."""
        parent = self._parent
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    def add(self, graph: Variable | Sequence[Variable], backward: bool = True) -> list[int]:
        """Add the variables of ``graph`` (and their sub-graphs); their classes.

        ``backward=False``: the new terms are not expanded backward (a goal
        ``prove`` aims at, not a start to search from), until :meth:`expand`.
        """
        outputs, single = as_variables(graph, "graph")
        first_graph = not self.roots
        if first_graph:
            self.roots, self._single = list(outputs), single
        first = len(self._vars)
        self._new_gen = 0 if backward else MAX_BACKWARD_DEPTH
        try:
            classes = [self.find(self._add(v)) for v in outputs]
        finally:
            self._new_gen = 0
        if not backward:
            self._held.update(range(first, len(self._vars)))
        if first_graph:
            self.given_terms = len(self._vars)
        return classes

    def expand(self) -> None:
        """Let the terms added with ``add(..., backward=False)`` be expanded backward too."""
        for t in self._held:
            self._bgen[t] = 0
        self._held.clear()

    def _add(self, root: Variable) -> int:
        """The term of ``root``, adding it and every sub-variable not yet held (iteratively)."""
        term_of = self._term_of
        found = term_of.get(root)
        if found is not None:
            return found
        stack = [(root, False)]
        while stack:
            v, ready = stack.pop()
            if v in term_of:
                continue
            node = v.owner
            if node is None or ready:
                self._new_term(v)
                continue
            stack.append((v, True))
            stack.extend((i, False) for i in node.inputs if i not in term_of)
        return term_of[root]

    def _head_of(self, v: Variable) -> int:
        """A number for ``v``'s Op and output index (a leaf: its key), equal for equal Ops: keys of
        e-nodes are then tuples of ints, hashed without the Ops' props (an Op's hash is read once
        per Op object)."""
        node = v.owner
        if node is None:
            return self._heads.setdefault(_leaf_key(v), len(self._heads))
        return self._op_head(node.op, node.outputs.index(v) if len(node.outputs) > 1 else 0)

    def _op_head(self, op: Op, out: int) -> int:
        """The number of output ``out`` of ``op`` (:meth:`_head_of`)."""
        k = (id(op), out)
        found = self._head_ids.get(k)
        if found is None:
            found = self._heads.setdefault((op, out), len(self._heads))
            self._head_ids[k] = found
            self._head_ops.append(op)  # kept alive: its id names it
        return found

    def _new_term(self, v: Variable) -> int:
        node = v.owner
        t = len(self._vars)
        children = () if node is None else tuple([self._term_of[i] for i in node.inputs])
        self._vars.append(v)
        self._term_of[v] = t
        self._enter(t, self._head_of(v), children, v.type)
        return t

    def lazy_term(self, op: Op, children: Sequence[int], out_type: Any) -> int:
        """A new term: ``op`` (of one output) over the terms ``children``, of type ``out_type``, recorded
        without a PyTensor node: its variable is built when something reads it (:meth:`variable`).

        It is hash-consed as a term made from a variable is (its key: the Op's number and the
        children's classes), so an e-node the e-graph holds gains a term, not an e-node.  The
        caller vouches that ``op`` over those inputs makes ``out_type`` (``make_node``'s type)."""
        t = len(self._vars)
        self._vars.append(None)
        self._lazy[t] = (op, out_type)
        self._enter(t, self._op_head(op, 0), tuple(children), out_type)
        return t

    def _enter(self, t: int, head: int, children: tuple[int, ...], ty: Any) -> None:
        """Term ``t`` (its variable, if any, recorded already) joins the terms: a new e-node, or a
        term of the e-node of its key."""
        key: Any = (head, tuple([self.find(c) for c in children]) if children else ())
        self._head.append(head)
        self._children.append(children)
        self._parent.append(t)
        self._bgen.append(self._new_gen)
        other = self._hashcons.get(key)
        if other is None:
            self._type[t] = ty
            self._hashcons[key] = t
            self._members[t] = [t]
            parents, find = self._parents, self.find
            for c in set(children):
                parents.setdefault(find(c), []).append(t)
        else:  # the same e-node: ``t`` joins its class (which gains no e-node, so needs no repair)
            root = self.find(other)
            self._check_types(self._type[root], ty, CONGRUENCE)
            edges = self._edges
            edges.setdefault(other, []).append((t, CONGRUENCE))
            edges.setdefault(t, []).append((other, CONGRUENCE))
            self._parent[t] = root

    def _key(self, t: int) -> Any:
        find = self.find
        return (self._head[t], tuple([find(c) for c in self._children[t]]))

    def _union(self, a: int, b: int, why: Any, keep: bool = False) -> bool:
        """Merge the classes of terms ``a`` and ``b`` (``why``: the justification); whether they differed.

        ``keep``: ``a``'s class keeps its name (else the larger class does)."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self._check_types(self._type[ra], self._type[rb], why)
        edges = self._edges
        edges.setdefault(a, []).append((b, why))
        edges.setdefault(b, []).append((a, why))
        if self._queries is not None:
            self._queries.unions.append((a, b))
        ma, mb = self._members[ra], self._members[rb]
        if len(ma) < len(mb) and not keep:
            ra, rb, ma, mb = rb, ra, mb, ma
        # a term congruent to an e-node brings none: nothing above it can match anew
        gained = bool(ma) and bool(mb)
        self._parent[rb] = ra
        ma.extend(mb)
        moved = self._parents.pop(rb, None)
        if moved:  # their keys named rb: only they are stale
            self._parents.setdefault(ra, []).extend(moved)
            self._pending.extend(moved)
        if gained:
            self._mark_above(ra)
        del self._members[rb], self._type[rb]
        self._dirty = True
        return True

    @staticmethod
    def _check_types(ta: Any, tb: Any, why: Any) -> None:
        if not same_type(ta, tb):
            raise TypeError(
                f"saturation: a union of classes of different types, {ta} and {tb} "
                f"({why if isinstance(why, str) else getattr(why[0], '__name__', why[0])}): "
                f"an e-class has one type"
            )

    def rebuild(self) -> None:
        """Restore congruence: classes holding e-nodes of one key are merged, until none are.

        The e-nodes are keyed in the order they were made (a node's inputs
        before it), and a collision is merged at once, so the nodes above a
        merge see it in the same pass; a pass that merged anything is
        followed by another (a key made before a merge may have changed).
        """
        if self._dirty:
            self._repair()
        while self._dirty:
            self._dirty = False
            table: dict[Any, int] = {}
            find, key_of = self.find, self._key
            for t in sorted([t for ms in self._members.values() for t in ms]):
                key = key_of(t)
                other = table.get(key)
                if other is None:
                    table[key] = t
                elif find(other) != find(t):
                    # the earlier e-node's class keeps its name: the keys made so far stay canonical
                    self._union(other, t, CONGRUENCE, keep=True)
            self._hashcons = table
            members: dict[int, list[int]] = {}
            for t in table.values():
                members.setdefault(find(t), []).append(t)
            self._members = members

    def _repair(self) -> None:
        """egg's repair: the e-nodes reading a class that lost its name are keyed again, and merged
        where they now collide (which renames more), until none is left."""
        table, find, key_of = self._hashcons, self.find, self._key
        pending = self._pending
        while pending:
            p = pending.pop()
            key = key_of(p)
            other = table.get(key)
            if other is None:
                table[key] = p
            elif find(other) != find(p):
                self._union(other, p, CONGRUENCE)

    def choices(self, t: int, done: set[Any]) -> Iterator[Variable]:
        """E-node ``t``'s variable, then its choices of input e-nodes (:data:`MATCH_DEPTH` levels down,
        as the relations are e-matched), each built once; a choice in ``done`` (a set the caller
        keeps) is skipped, and one given is added to it.  What the foreign rewriters run on."""
        for key, w in self._variants(t, MATCH_DEPTH, done):
            if key not in done:
                done.add(key)
                yield w

    def relate(self, before: Variable, after: Variable, rule: Any) -> bool:
        """Add ``after`` and union it with ``before``'s class, justified as ``rule`` run forward on
        ``before`` (a proof step names it); whether the classes were apart.  Their types must be one
        (``TypeError`` otherwise)."""
        return self.relate_terms(self._add(before), lambda: self._add(after), rule)

    def relate_terms(self, before: int, after: Callable[[], int], rule: Any) -> bool:
        """:meth:`relate` for term ``before`` and the term ``after()`` adds (its new terms made
        by ``before``'s backward steps, as ``before`` was)."""
        self._new_gen = self._bgen[before]
        try:
            a = after()
        finally:
            self._new_gen = 0
        return self._union(before, a, (rule, "forward", before))

    def union(self, a: Variable, b: Variable) -> bool:
        """Assert that variables ``a`` and ``b`` are equal: their classes become one (``TypeError`` if
        their types differ).  Whether they were apart.  A proof through this union cites it as ``"given"``."""
        ta, tb = self._add(a), self._add(b)
        merged = self._union(ta, tb, ("given", "forward", ta))
        self.rebuild()
        return merged

    def class_of(self, v: Variable) -> int:
        """The class of variable ``v`` (added if the e-graph does not hold it yet)."""
        if not isinstance(v, Variable):
            raise TypeError(f"class_of: expected a PyTensor Variable, got {type(v).__name__}")
        t = self._add(v)
        self.rebuild()
        return self.find(t)

    def term(self, v: Variable) -> int:
        """The term of variable ``v`` (added if new)."""
        return self._add(v)

    def same(self, a: Variable | Sequence[Variable], b: Variable | Sequence[Variable]) -> bool:
        """Whether graphs ``a`` and ``b`` are in one class (output by output); they are added if new."""
        outs_a, _ = as_variables(a, "a")
        outs_b, _ = as_variables(b, "b")
        if len(outs_a) != len(outs_b):
            return False
        return all(self.class_of(x) == self.class_of(y) for x, y in zip(outs_a, outs_b))

    def classes(self) -> dict[int, list[ENode]]:
        """Every class and its e-nodes (after a rebuild)."""
        self.rebuild()
        find = self.find
        children = self._children
        return {
            c: [ENode(t, tuple([find(k) for k in children[t]]), self) for t in ms] for c, ms in self._members.items()
        }

    def class_type(self, c: int) -> Any:
        """The PyTensor type of class ``c``."""
        return self._type[self.find(c)]

    def variable(self, t: int) -> Variable:
        """The variable of term ``t``; a term recorded without one (:meth:`lazy_term`) gets it now, a
        node over its children's variables (built first, as needed), once."""
        v = self._vars[t]
        return v if v is not None else self._reify(t)

    def _reify(self, t: int) -> Variable:
        vars_, children, lazy, term_of = self._vars, self._children, self._lazy, self._term_of
        stack = [t]
        while stack:
            u = stack[-1]
            if vars_[u] is not None:
                stack.pop()
                continue
            missing = [c for c in children[u] if vars_[c] is None]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            op, ty = lazy.pop(u)
            out = ty.make_variable()
            out.tag.trace = []  # as a node built while the rules run has (``traceback__limit=0``)
            Apply(op, [vars_[c] for c in children[u]], [out])  # type: ignore[misc]
            vars_[u] = out
            term_of[out] = u
            self._reified += 1
        return vars_[t]  # type: ignore[return-value]

    @property
    def lazy_terms(self) -> tuple[int, int]:
        """``(unbuilt, built)``: the terms recorded without a PyTensor variable (the query matcher's,
        :meth:`lazy_term`) whose variable nothing has read yet, and those whose variable was built
        since, when read."""
        return len(self._lazy), self._reified

    def term_op(self, t: int) -> Op | None:
        """The Op of term ``t``'s node (``None`` for a graph input or a constant); nothing built."""
        v = self._vars[t]
        if v is None:
            return self._lazy[t][0]
        node = v.owner
        return None if node is None else node.op

    def term_type(self, t: int) -> Any:
        """The PyTensor type of term ``t`` (its class's); nothing built."""
        v = self._vars[t]
        return self._lazy[t][1] if v is None else v.type

    def term_head(self, t: int) -> tuple[Op, int, Any] | None:
        """``(Op, output index, type)`` of term ``t`` (``None`` for a leaf); nothing built."""
        v = self._vars[t]
        if v is None:
            op, ty = self._lazy[t]
            return op, 0, ty
        node = v.owner
        if node is None:
            return None
        outs = node.outputs
        return node.op, (outs.index(v) if len(outs) > 1 else 0), v.type

    def term_children(self, t: int) -> tuple[int, ...]:
        """The input terms of term ``t``."""
        return self._children[t]

    def edges(self, t: int) -> list[tuple[int, Any]]:
        """The unions recorded at term ``t``: ``(other term, why)``; ``why`` is :data:`CONGRUENCE`
        or ``(relation, direction, before term)``."""
        return self._edges.get(t, [])

    @property
    def size(self) -> tuple[int, int]:
        """``(classes, e-nodes)``."""
        self.rebuild()
        return len(self._members), sum(map(len, self._members.values()))

    # -- saturation ---------------------------------------------------------------

    def run(
        self,
        limits: Limits | None = None,
        backward: bool = True,
        progress: Callable[[Report], object] | None = None,
        until: Callable[[], bool] | None = None,
    ) -> Report:
        """Apply the rules to every e-node until nothing changes or a limit; the report.

        ``until`` (if given) is asked after each iteration; ``True`` stops
        the run (``stop`` is then ``"saturated"`` only if nothing changed).
        With ``backward``, the forward rules saturate first, then the
        backward steps run within ``limits.growth`` (see :class:`Limits`).
        Python's cyclic garbage collector is paused during the run (and
        resumed after it, if it was on).
        """
        limits = Limits() if limits is None else limits
        if not isinstance(limits, Limits):
            raise TypeError(f"limits must be a relations.Limits, got {type(limits).__name__}")
        start = time.perf_counter()
        deadline = None if limits.seconds is None else start + limits.seconds
        report = self.report = Report(rules={getattr(r, "__name__", repr(r)): RuleStats() for r in self.index.rules})
        if self.foreign is not None:
            report.rewriters = self.foreign.new_stats()
        self.rebuild()
        # the cyclic collector is paused while the e-graph grows: its passes over the graph's
        # objects (and the e-graph's, all kept) took a quarter of a forward run on a 1,000-node
        # graph; what the rules leave behind is collected once the run is over
        paused = gc.isenabled()
        gc.disable()
        try:
            context = GraphContext()
            context.held_type = self._held_type  # a type guard on an answer held reads its class's type
            context.equals = self._equal_variables  # a guard on how a term can be spelled reads its class
            context.witness = self._note_witness  # ... and names the e-node it held through
            with config.change_flags(traceback__limit=0), graph_context(context):
                # forward to saturation first; then the backward steps, within ``growth``
                for phase in (False, True) if backward else (False,):
                    max_nodes = limits.nodes
                    if phase and limits.growth is not None:
                        grown = len(self._hashcons) + int(limits.growth * len(self._hashcons))
                        max_nodes = grown if max_nodes is None else min(max_nodes, grown)
                    if not self._run_phase(phase, limits, deadline, max_nodes, report, start, progress, until):
                        break
        finally:
            if paused:
                gc.enable()
        self._fill(report, start)
        if report.cut and report.stop == "saturated":
            report.stop = "choices"  # nothing changed, but not every choice was tried
        # the choices matched are forgotten (an e-node's rules run again only where a class
        # below it changes, ``_changed_below``): the e-graph keeps its terms, not its work
        self._done.clear()
        self._foreign.done.clear()
        self._built.clear()
        log.info("saturate: %s", str(report).splitlines()[0])
        return report

    def _run_phase(
        self,
        backward: bool,
        limits: Limits,
        deadline: float | None,
        max_nodes: int | None,
        report: Report,
        start: float,
        progress: Callable[[Report], object] | None,
        until: Callable[[], bool] | None,
    ) -> bool:
        """Iterations (``backward``: with the backward steps) until nothing changes or a bound;
        whether the run goes on to the next phase (``report.stop`` is ``"saturated"``, or
        ``"iterations"``: ``limits.iterations`` bounds each phase)."""
        first = report.iterations
        while True:
            if limits.iterations is not None and report.iterations - first >= limits.iterations:
                report.stop = "iterations"
                return True  # the bound is per phase: the next one runs
            try:
                changed = self._iterate(backward, deadline, max_nodes, report)
            except _Stop as stop:
                self.rebuild()
                report.stop = str(stop)
                changed = None
            report.iterations += 1
            if progress is not None:
                self._fill(report, start)
                progress(report)
            if changed is None:
                return False
            if not changed:
                report.stop = "saturated"
                return True
            if until is not None and until():
                report.stop = "met"
                return False

    def _fill(self, report: Report, start: float) -> None:
        report.classes, report.nodes = self.size
        report.seconds = time.perf_counter() - start
        report.cut = len(self._cut)
        report.bans = 0 if self._queries is None else self._queries.bans

    def _iterate(self, backward: bool, deadline: float | None, max_nodes: int | None, report: Report) -> bool:
        """One round over every e-node; whether it added a term or a union."""
        before = (len(self._vars), len(self._members))
        stats = report.rules
        self._round += 1
        if self._queries is not None:

            def check() -> None:
                if deadline is not None and time.perf_counter() > deadline:
                    raise _Stop("seconds")
                if max_nodes is not None and len(self._hashcons) > max_nodes:
                    raise _Stop("nodes")

            self._queries.step(self, stats, check)
        for ms in list(self._members.values()):
            for t in list(ms):
                if deadline is not None and time.perf_counter() > deadline:
                    raise _Stop("seconds")
                if max_nodes is not None and len(self._hashcons) > max_nodes:
                    raise _Stop("nodes")
                if self._changed_below(t):
                    self._visited[t] = self._round
                    self._revisit.discard(t)
                    self._forward_at(t, stats, deadline)
                    if self.foreign is not None and not self.foreign.run_at(
                        self, t, report.rewriters, self._foreign, deadline
                    ):
                        self._revisit.add(t)  # not every choice was seen: visit it again
                        raise _Stop("seconds")
                if backward and self._bgen[t] < MAX_BACKWARD_DEPTH and t not in self._backward_done:
                    self._backward_done.add(t)
                    self._backward_at(t, stats)
        grew = len(self._hashcons)
        self._built.clear()  # a choice whose plans ran is in ``_done``: its variable is not needed again
        self.rebuild()
        changed = (len(self._vars), len(self._members)) != before or len(self._hashcons) != grew
        if not changed and self._queries is not None and self._queries.banned:
            self._queries.unban()  # not saturated while a rule is banned: its matches are to be found
            changed = True
        return changed

    def _changed_below(self, t: int) -> bool:
        """Whether e-node ``t`` is new, or a class within :data:`MATCH_DEPTH` below it gained an
        e-node since its rules last ran (:meth:`_mark_above` noted it; else they have seen every
        choice there is)."""
        return t not in self._visited or t in self._revisit

    def _mark_above(self, c: int) -> None:
        """Class ``c`` gained an e-node: the e-nodes within :data:`MATCH_DEPTH` above it are to be
        visited again (their choices may be new)."""
        find, parents, revisit = self.find, self._parents, self._revisit
        self._changes += 1
        self._version[c] = self._changes
        level = {c}
        for depth in range(MATCH_DEPTH):
            above = [p for k in level for p in parents.get(k, ())]
            revisit.update(above)
            if depth + 1 < MATCH_DEPTH:
                level = {find(p) for p in above}

    def _variants(
        self, t: int, depth: int, skip: set | None = None, build: bool = True, deep: tuple | None = None
    ) -> Iterator[tuple[Any, Any]]:
        """``(choice, variable)`` pairs for e-node ``t``: its own variable first, then (``depth`` > 0) the
        same Op over other e-nodes of its input classes, chosen ``depth`` levels down: one input
        changed at a time first, then two or more (at most :data:`MAX_CHOICES` in all).  A choice is
        a key of term ids; its variable is built once per iteration, not at all if ``skip`` has it;
        with ``build=False`` a new choice comes as its list of input variables instead.  ``deep``
        (if given): the Op classes of input e-nodes whose own inputs are varied too (the
        ``child_heads`` of the node's rules: no other rule reads below an input's node)."""
        v = self.variable(t)
        yield t, v
        node = v.owner
        own = self._children[t]
        if depth == 0 or node is None or not own:
            return
        if deep == ():  # nothing varied below the inputs: a class of one e-node is no choice
            members, find = self._members, self.find
            if all(len(members[find(c)]) == 1 for c in own):
                return
        options = [_Lazy(self._input_choices(c, depth - 1, deep), self._cut, t) for c in own]
        base = [o.get(0) for o in options]
        k = node.outputs.index(v)
        made = 0
        for combo in _combinations(options, base):
            if made >= MAX_CHOICES - 1:
                self._cut.add(t)
                return
            key = (t, tuple([ck for ck, _ in combo]))
            if all(map(_same_term, key[1], own)):
                continue
            made += 1
            if skip is not None and key in skip:
                continue
            w = self._built.get(key)
            if w is None:
                if not build:
                    yield key, [u for _, u in combo]
                    continue
                w = self._built[key] = self._build(node, [u for _, u in combo], k)
            yield key, w

    def _build(self, node: Apply, inputs: list[Variable], k: int) -> Variable:
        new = Apply(node.op, inputs, [o.type.make_variable() for o in node.outputs])
        return new.outputs[k]

    def _input_choices(self, c: int, depth: int, deep: tuple | None = None) -> Iterator[tuple[Any, Variable]]:
        """The choices for input term ``c``: its own, then the other e-nodes of its class (``depth`` below;
        only below the e-nodes of a ``deep`` Op class, if given).  An e-node all of whose inputs are its
        own class (``Alloc(x)`` of a 0-d ``x``, once ``alloc_identityo`` made it one class with ``x``)
        is no other choice: a rule would see the class itself through it."""
        home = self.find(c)
        for m in (c, *[m for m in self._members[home] if m != c and not self._loops_on(m, home)]):
            d = depth
            if deep is not None and d:
                op = self.term_op(m)
                if op is None or not isinstance(op, deep):
                    d = 0
            if d:
                yield from self._variants(m, d)
            else:
                yield m, self.variable(m)  # (what ``_variants(m, 0)`` gives)

    def _class_guarded(self, op_class: type) -> bool:
        """Whether a forward rule of ``op_class`` names input Ops (``child_heads``) but reads nothing
        below their nodes (``reads_below_inputs``): its guards may ask the classes there instead."""
        found = self._guarded.get(op_class)
        if found is None:
            found = self._guarded[op_class] = any(
                getattr(r, "child_heads", None) is not None and not _reads_through_inputs(r)
                for r in self._forward_index(op_class).forward(op_class)
            )
        return found

    def _below_version(self, inputs: Sequence[int]) -> int:
        """The latest change (:meth:`_mark_above` counts them) of a class read by the terms ``inputs``."""
        find, version, children = self.find, self._version, self._children
        return max([version.get(find(g), 0) for m in inputs for g in children[m]], default=0)

    def _loops_on(self, m: int, c: int) -> bool:
        """Whether e-node ``m`` of class ``c`` reads only ``c`` (a node that is the identity on its class)."""
        kids = self._children[m]
        return bool(kids) and all(self.find(k) == c for k in kids)

    def _deep_heads(self, op_class: type) -> tuple:
        """The ``child_heads`` of the forward rules of ``op_class`` that read below their inputs' nodes
        (``reads_below_inputs``): the input Ops whose own inputs' e-nodes are varied too."""
        found = self._deep.get(op_class)
        if found is None:
            heads: list = []
            for r in self._forward_index(op_class).forward(op_class):
                if _reads_through_inputs(r):
                    heads.extend(child_heads(r))
            found = self._deep[op_class] = tuple(dict.fromkeys(heads))
        return found

    def _forward_index(self, op_class: type) -> RuleIndex:
        """The index of the rules whose plans run forward at e-nodes of ``op_class``: at an Elemwise,
        not the pattern rules the query matcher runs (:mod:`.query_matcher`)."""
        return self._plan_index if issubclass(op_class, Elemwise) else self.index

    def _forward_at(self, t: int, stats: dict[str, RuleStats], deadline: float | None = None) -> None:
        v = self._vars[t]
        if v is None:  # a term with no node yet: built only if a plan may run on it
            op = self._lazy[t][0]
            if not in_vocabulary(op) or not self._forward_index(type(op)).forward(type(op)):
                return
            v = self.variable(t)
        node = v.owner
        if not _rewritable(node):
            return
        index = self._forward_index(type(node.op))
        if not index.forward(type(node.op)) or self._loops_on(t, self.find(t)):
            return  # (an identity on its class: its rules would see the class through itself)
        done = self._done
        deep = self._deep_heads(type(node.op))
        versioned = self._class_guarded(type(node.op))
        for key, w in self._variants(t, MATCH_DEPTH, done, build=False, deep=deep):
            # a choice of the input e-nodes only (their own variables below them)
            shallow = w is v or all(type(k) is int for k in key[1])
            if versioned and shallow:
                # a guard may ask the classes below the chosen inputs (``equal_variables``): the
                # choice is new again once one of them gains an e-node
                key = (key, self._below_version(self._children[t] if w is v else key[1]))
            if key in done:
                continue
            if deadline is not None and time.perf_counter() > deadline:
                self._revisit.add(t)  # not every choice was seen: visit it again
                raise _Stop("seconds")
            done.add(key)
            # the rule index reads an Op and its inputs: the choice is built only for rules it gives
            built = is_variable(w)
            rules: Sequence[Relation] = index.forward_for(w.owner if built else _View(node.op, w))
            # a rule whose index names no input Op (``child_heads``) reads at most its
            # inputs' own nodes: the choices two levels down would give it nothing new
            if w is not v:
                rules = _new_to(rules, shallow, w.owner.inputs if built else w, node.inputs)
            if not rules:
                continue
            if not built:
                w = self._build(node, w, node.outputs.index(v))
            for rel in rules:
                self._apply(rel, w, w, "forward", self._bgen[t], stats, t)

    def _backward_at(self, t: int, stats: dict[str, RuleStats]) -> None:
        v = self._vars[t]
        if v is None:  # a term with no node yet: built only if a rule may run backward on it
            op = self._lazy[t][0]
            if not in_vocabulary(op) or not self.index.backward(type(op)):
                return
            v = self.variable(t)
        node = v.owner
        if not _rewritable(node):
            return
        # indexed by the Op and its inputs' Ops (``rhs_child_heads``); an identity rule run
        # backward only wraps the class in a node over itself (``_wraps``): not run
        rules = [r for r in self.index.backward_for(node) if not getattr(r, "identity", False)]
        if rules:
            view = node_term(v)
            for rel in rules:
                self._apply(rel, v, view, "backward", self._bgen[t] + 1, stats)

    def _apply(
        self, rel: Relation, v: Variable, view: Any, direction: str, gen: int, stats: dict, at: int | None = None
    ) -> None:
        """Run ``rel`` on ``v`` (one direction); add each answer and union it with ``v``'s class.

        ``at`` (forward): a term of ``v``'s class (the e-node a choice ``v`` was made at).  An
        answer the e-graph holds in that class already is counted and left: no node of it is
        built, and ``v`` is added only when an answer is new."""
        s = stats[getattr(rel, "__name__", repr(rel))]
        t0 = time.perf_counter()
        self._answer_memo.clear()
        backward = direction == "backward"
        found: Iterator[Variable]
        if backward:
            found = islice(replacements(rel, v, view, True), MAX_BACKWARD_ANSWERS)
        else:
            if at is None:
                raise TypeError("_apply: a forward application names the e-node it matched (at=)")
            self._home, self._held_answers = self.find(at), 0
            found = replacements(rel, v, view, False, self._held_at_home)
        self._witnesses.clear()
        answers = list(found)
        if self._witnesses and answers and not backward:
            # a guard held through another e-node of a class below: the rule runs again on the
            # choice that holds it, so the step recorded holds on its own terms (a proof checks it)
            v = self._witnessed(v)
            self._witnesses.clear()
            answers = list(replacements(rel, v, v, False, self._held_at_home))
        s.seconds += time.perf_counter() - t0
        if not backward:
            s.matches += self._held_answers
        if not answers:
            return
        s.matches += len(answers)
        before = self._add(v)
        self._new_gen = gen
        try:
            for new in answers:
                if backward and self._wraps(new, before):
                    continue
                after = self._add(new)
                if self._union(before, after, (rel, direction, before)):
                    s.unions += 1
                    self._union_siblings(v, new, (rel, direction, before))
        finally:
            self._new_gen = 0

    def _note_witness(self, v: Variable, w: Variable) -> None:
        self._witnesses[v] = w

    def _witnessed(self, v: Variable) -> Variable:
        """Choice ``v`` with each variable a guard held through another's (``_witnesses``) replaced by
        that one, within :data:`MATCH_DEPTH` levels (a node rebuilt over its new inputs)."""
        subs = self._witnesses

        def over(u: Variable, depth: int) -> Variable:
            if u in subs:
                return subs[u]
            node = u.owner
            if node is None or depth == 0:
                return u
            ins = [over(i, depth - 1) for i in node.inputs]
            if all(a is b for a, b in zip(ins, node.inputs)):
                return u
            return self._build(node, ins, node.outputs.index(u))

        return over(v, MATCH_DEPTH)

    def _held_at_home(self, out: Any) -> bool:
        """Whether answer ``out`` is in the class of the e-node being matched (``_home``), counted if so."""
        if self._known_class(out) == self._home:
            self._held_answers += 1
            return True
        return False

    def _known_class(self, out: Any) -> int | None:
        """The class of answer ``out`` (a term or a variable) if the e-graph holds it already, else
        ``None``; nothing is added.

        A held variable is looked up; a node the answer made is keyed as an e-node is (its Op's
        number and its inputs' classes) and found in the hash-cons.  A key made before a union
        in this iteration may miss (``None``: the answer is then added as any new one)."""
        if _is_etuple(out):
            done = out._evaled_obj
            if done is _NULL:
                memo = self._answer_memo  # the guards and the answer filter ask of one answer alike
                hit = memo.get(id(out))
                if hit is not None and hit[0] is out:
                    return hit[1]
                items = out._tuple
                found = self._known_key(_head_op(items[0]), 0, items[1:])
                memo[id(out)] = (out, found)
                return found
            out = done
        if not is_variable(out):
            return None
        t = self._term_of.get(out)
        if t is not None:
            return self.find(t)
        node = out.owner
        if node is None:
            return None
        k = node.outputs.index(out) if len(node.outputs) > 1 else 0
        return self._known_key(node.op, k, node.inputs)

    def _equal_variables(self, v: Variable) -> Sequence[Variable]:
        """``v`` and the variables of the other e-nodes of its class (``v`` alone if the e-graph lacks it)."""
        t = self._term_of.get(v)
        if t is None:
            return (v,)
        variable = self.variable
        return (v, *[w for m in self._members[self.find(t)] if (w := variable(m)) is not v])

    def _held_type(self, out: Any) -> Any | None:
        """The type of the class holding answer ``out``, if the e-graph holds it (nothing built)."""
        c = self._known_class(out)
        return None if c is None else self._type[c]

    def _known_key(self, op: Op | None, k: int, inputs: Sequence[Any]) -> int | None:
        """The class of the e-node of ``op`` (output ``k``) over the classes of ``inputs``, if held."""
        if op is None:
            return None
        number = self._head_ids.get((id(op), k))
        if number is None:
            number = self._heads.get((op, k))
            if number is None:
                return None
        kids = []
        for a in inputs:
            c = self._known_class(a)
            if c is None:
                return None
            kids.append(c)
        found = self._hashcons.get((number, tuple(kids)))
        return None if found is None else self.find(found)

    def _union_siblings(self, v: Variable, new: Variable, why: Any) -> None:
        """A rule that rewrites a whole multi-output node (``rewrites_whole_node``) answers a node of
        as many outputs: each other output joins the class of the matched node's output of its index."""
        old_node, new_node = v.owner, new.owner
        if old_node is None or len(old_node.outputs) == 1 or new_node is None:
            return
        if len(new_node.outputs) != len(old_node.outputs):
            return
        for a, b in zip(old_node.outputs, new_node.outputs):
            if a is not v and same_type(a.type, b.type):
                self._union(self._add(a), self._add(b), why)

    def _wraps(self, new: Variable, t: int) -> bool:
        """Whether ``new`` is one node over term ``t``'s own class (``x <- identity(x)`` run backward):
        a cycle, which no extraction or form takes."""
        node = new.owner
        if node is None:
            return False
        c = self.find(t)
        term_of = self._term_of
        return any(i in term_of and self.find(term_of[i]) == c for i in node.inputs)

    # -- answers --------------------------------------------------------------------

    def extract(
        self,
        cost: Callable[[Variable], float] | None = None,
        roots: Sequence[Variable] | None = None,
        method: str = "auto",
    ):
        """The cheapest form of the roots (DAG-aware); see :func:`relations.saturation.extract.extract`."""
        return extract_mod.extract(self, cost, roots, method)

    def forms(
        self,
        limit: int | None = None,
        roots: Sequence[Variable] | None = None,
        *,
        seconds: float | None = None,
        nodes: int | None = extract_mod.MAX_FORM_NODES,
    ) -> Iterator[Any]:
        """The distinct forms of the roots, lazily, within ``seconds`` and ``nodes`` built; see
        :func:`relations.saturation.extract.forms`."""
        return extract_mod.forms(self, limit, roots, seconds=seconds, nodes=nodes)

    def draw(self, form: Any = None, **options: Any) -> Any:
        """A picture of the e-graph, the extracted form highlighted, folded to 60 boxes; ``.dot()``, ``.svg()``;
        see :func:`relations.saturation.drawing.draw_egraph` (``form``, ``around``, ``radius``, ``max_boxes``)."""
        from relations.saturation.drawing import draw_egraph

        return draw_egraph(self, form, **options)

    def to_dot(self, **options: Any) -> str:
        """The Graphviz source of :meth:`draw`'s picture."""
        return self.draw(**options).dot()

    def _repr_svg_(self) -> str | None:
        """Jupyter's picture of the e-graph (``None`` without a ``dot`` program: the text is shown)."""
        return self.draw()._repr_svg_()

    def structure(self, outputs: list[Variable]) -> Any:
        """``outputs`` in the structure of the graph given to :func:`saturate` (a variable or a list)."""
        return outputs[0] if self._single and len(outputs) == 1 else list(outputs)


def _rewritable(node: Apply | None) -> bool:
    """Whether rules run at ``node``: a vocabulary Op of one output, or of several whose whole node
    rules rewrite (``graph_bridge.vocabulary.rewrites_whole_node``: a RandomVariable's rng and draw)."""
    if node is None or not in_vocabulary(node.op):
        return False
    return len(node.outputs) == 1 or rewrites_whole_node(node.op)


def _reads_through_inputs(rule: Relation) -> bool:
    """Whether ``rule`` names input Ops (``child_heads``) and may read below their nodes
    (``reads_below_inputs``): its choices vary the e-nodes under those inputs too."""
    return getattr(rule, "child_heads", None) is not None and getattr(rule, "reads_below_inputs", True)


def _new_to(rules: Sequence[Relation], shallow: bool, ins: Sequence[Variable], own: Sequence[Variable]) -> list:
    """The ``rules`` that may answer differently on a choice of inputs ``ins`` than on the e-node's
    ``own``: a rule naming no input Op (``child_heads``), or reading nothing below its inputs' nodes
    (``reads_below_inputs``), reads its inputs' own nodes only (so only a ``shallow`` choice is new
    to it); a rule naming some reads through an input of those Ops, so a choice is new to it when
    a changed input is one."""
    kept = []
    changed = None
    for rule in rules:
        if not _reads_through_inputs(rule):
            if shallow:
                kept.append(rule)
            continue
        if changed is None:
            changed = [a for a, b in zip(ins, own) if a is not b]
        heads = child_heads(rule)
        if any(a.owner is not None and isinstance(a.owner.op, heads) for a in changed):
            kept.append(rule)
    return kept


def _head_op(head: Any) -> Op | None:
    """The Op a term's head stands for (its builder called on its props, as reifying it would), or ``None``."""
    if _is_etuple(head):
        op = head._evaled_obj
        if op is _NULL:
            try:
                op = head.evaled_obj
            except Exception:
                return None
        head = op
    return head if _is_op(head) else None


def _same_term(a: Any, b: int) -> bool:
    return a == b


class _View:
    """An Op and input variables, as ``RuleIndex.forward_for`` reads a node (nothing built)."""

    __slots__ = ("inputs", "op")

    def __init__(self, op: Any, inputs: list[Variable]) -> None:
        self.op, self.inputs = op, inputs


class _Lazy:
    """The items of an iterator, read as far as asked (at most :data:`MAX_CHOICES`); an iterator
    with more than that adds ``at`` (the e-node choosing) to ``cut``."""

    def __init__(self, items: Iterator[Any], cut: set[int], at: int) -> None:
        self._items = items
        self._seen: list[Any] = []
        self._cut, self._at = cut, at

    def get(self, j: int) -> Any:
        seen = self._seen
        while len(seen) <= j and len(seen) < MAX_CHOICES:
            item = next(self._items, None)
            if item is None:
                self._items = iter(())
                break
            seen.append(item)
        if j >= MAX_CHOICES and len(seen) == MAX_CHOICES and next(self._items, None) is not None:
            self._cut.add(self._at)
            self._items = iter(())
        return seen[j] if j < len(seen) else None

    def all(self) -> list[Any]:
        self.get(MAX_CHOICES)
        return self._seen


def _combinations(options: list[_Lazy], base: list[Any]) -> Iterator[list[Any]]:
    """``base`` with one input changed at a time (each input's options in turn), then every
    combination of the options read so far that changes two or more."""
    for i, opts in enumerate(options):
        j = 1
        while (o := opts.get(j)) is not None:
            combo = list(base)
            combo[i] = o
            yield combo
            j += 1
    if len(options) < 2:
        return
    for picked in product(*[o.all() for o in options]):
        if sum(a is not b for a, b in zip(picked, base)) >= 2:
            yield list(picked)


def saturate(
    graph: Variable | Sequence[Variable],
    rules: Sequence[Relation] | None = None,
    *,
    backward: bool = True,
    limits: Limits | None = None,
    progress: Callable[[Report], object] | None = None,
    rewriters: RewriterSpec = (),
) -> EGraph:
    """An :class:`EGraph` of ``graph`` with ``rules`` (default :data:`DEFAULT_RULES`) applied until
    nothing changes or ``limits`` (default :class:`Limits()`) stop it; see :attr:`EGraph.report`.

    ``rewriters``: PyTensor node rewriters run at every e-node too, their
    inputs chosen among the e-nodes of the child classes (a
    ``PatternNodeRewriter``, a ``@node_rewriter`` function, an optdb name
    such as ``"stabilize"``, a ``RewriteDatabase``, or a sequence of these;
    :func:`relations.saturation.foreign.resolve_rewriters`); what they
    return is type-checked and unioned, a proof step names the rewriter,
    and :attr:`Report.rewriters` counts each one's calls, matches, unions,
    errors and rejected replacements.

    ``backward`` also runs each rule from its right side at every e-node
    (the forms that rewrite to it).  ``progress`` (if given) is called with
    the :class:`Report` so far after each iteration.  The input graph is
    not changed.

    Before/After (``sum(expand_dims(exp(x), 0))``)::

        one class: {Sum(ExpandDims(Exp(x))), Sum(Exp(x))}
    """
    progress = check_callable(progress, "progress")
    egraph = EGraph(rules, rewriters)
    egraph.add(graph)
    egraph.run(limits, backward, progress)
    return egraph
