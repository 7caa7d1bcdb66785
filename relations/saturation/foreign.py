"""PyTensor node rewriters as e-graph rules: stock patterns matched modulo the relations.

PyTensor's stabilizing and specializing rewrites (``local_log1p``,
``local_log1p_plusminus_exp``, ``logsigm_to_softplus``, ...) and PyMC's
measurable rewrites are ``NodeRewriter`` s: each fires on one spelling of an
expression (pytensor #1476: a rewrite that never fired because canonicalize
turned ``neg`` into ``mul(-1, .)``; #2328: "PyTensor will canonicalize
different expressions at different passes").  An e-graph holds every
spelling of a class at once, so a rewriter run on an e-node *with its
inputs chosen among the e-nodes of the child classes* (as the relations are
e-matched, :data:`MATCH_DEPTH` levels down) matches modulo the rules.

- :func:`resolve_rewriters` turns what a user names (a ``NodeRewriter``, a
  ``@node_rewriter`` function, an ``in2out`` wrapper, an optdb database name
  such as ``"stabilize"``, a ``RewriteDatabase`` such as PyMC's
  ``measurable_ir_rewrites_db``, or a sequence of these) into named
  :class:`ForeignRewriter` s.
- :class:`ForeignRules` indexes them by the Op each tracks (PyTensor's own
  ``OpToRewriterTracker``, asked once per Op) and runs them at an e-node's
  choices (:meth:`ForeignRules.run_at`), for the e-graph's hook.  What a
  rewriter returns is checked: a list (one variable per output) or a dict
  (old output -> new variable); each replacement must keep the matched
  output's dtype, ndim and broadcastable pattern (a replacement that only
  refines or loosens a static shape is converted with
  ``Type.filter_variable`` where that gives the class's type) and is then
  added and unioned, the union's justification naming the rewriter.
- A rewriter that raises, or returns something else, is skipped and
  counted (:class:`RewriterStats`), never fatal; the first
  :data:`MAX_LOGGED_ERRORS` exceptions of each rewriter are logged at DEBUG
  on ``relations.saturation.foreign`` (no warnings).

A node rewriter reads the node's ``FunctionGraph``; in the e-graph it gets a
stand-in (:class:`LocalGraph`) that gives what stock rewriters read:
``clients`` over the node's local sub-graph (each output used once: its
client is an ``Output`` node, as a graph output's is), ``outputs``,
``inputs``, no ``shape_feature`` (rewriters fall back to static and
symbolic shapes) and an ``assumption_feature`` that knows no fact.  It
cannot replace anything nor take features: a node rewriter that calls
``fgraph.replace`` or ``attach_feature`` raises, and is counted as an error.  Neither the user's
graph nor the e-graph's variables are changed.

A :class:`ForeignRewriter` is also a relation (forward only): with its
left side known it gives the rewriter's replacements, and with both sides
known it holds when re-running the rewriter on the left side gives the
right side (up to ``equal_computations``), which is how a proof step that
names it re-checks itself (``relations.explain.Step.holds``).

Before/After (``log(1 + exp(x))`` with ``rewriters=("stabilize",)``)::

    one class: {Log(Add(1, Exp(x))), Log1p(Exp(x)), Softplus(x)}
    proof: local_log1p, then local_log1p_plusminus_exp
"""

from __future__ import annotations

import logging
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytensor.compile import optdb
from pytensor.compile.mode import get_default_mode
from pytensor.graph.basic import Apply, Constant, Variable, equal_computations
from pytensor.graph.fg import Output
from pytensor.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    NodeProcessingGraphRewriter,
    NodeRewriter,
    OpToRewriterTracker,
    PatternNodeRewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    copy_stack_trace,
)
from pytensor.graph.rewriting.db import RewriteDatabase, RewriteDatabaseQuery
from pytensor.tensor.rewriting.basic import constant_folding

from graph_bridge import (
    ExplicitAlloc,
    ExplicitBlockwise,
    ExplicitElemwise,
    ExplicitRandomVariable,
    term_variable,
)
from graph_bridge.type_facts import same_type
from logic_core.term_kinds import is_logic_var
from logic_core.unifier import unify, walk

#: pytensor >= 3.1: a PatternNodeRewriter's pattern is a ``PatternNode`` (matched by ``match_pattern``);
#: pytensor 3.0: an etuple, unified by ``unification``, on which :func:`necessary` knows nothing
PatternNode: Any
OpPattern: Any
try:
    from pytensor.graph.rewriting.unify import OpPattern, PatternNode
except ImportError:
    OpPattern = PatternNode = None

__all__ = [
    "MAX_GENERATIONS",
    "MAX_LOGGED_ERRORS",
    "LEFT_OUT",
    "ForeignRewriter",
    "ForeignRules",
    "ForeignState",
    "LocalGraph",
    "RewriterSpec",
    "RewriterStats",
    "foreign_rules",
    "necessary",
    "resolve_rewriters",
]

#: What ``rewriters=`` takes: a node rewriter, a graph rewriter applying node rewriters, a rewrite
#: database, an optdb name (``"stabilize"``, ``"local_log1p"``; ``"-name"`` leaves one out), or a
#: sequence of these.
RewriterSpec = (
    NodeRewriter
    | GraphRewriter
    | RewriteDatabase
    | str
    | Sequence[NodeRewriter | GraphRewriter | RewriteDatabase | str]
)

#: ``logging.getLogger("relations.saturation.foreign")``: a rewriter's first exceptions, at DEBUG.
log = logging.getLogger("relations.saturation.foreign")

#: Exceptions logged per rewriter and run (the rest are only counted).
MAX_LOGGED_ERRORS = 3
#: Levels below a node whose consumers :class:`LocalGraph` records (deeper inputs have no clients).
LOCAL_DEPTH = 4
#: Nodes :class:`LocalGraph` walks at most.
LOCAL_NODES = 256
#: Foreign steps in a row (see :class:`ForeignState`): ``log(1 + exp(x))`` -> ``log1p(exp(x))`` ->
#: ``softplus(x)`` takes two.
MAX_GENERATIONS = 4
#: The toolkit's explicit-broadcast Ops: stock rewriters do not know them, so no foreign rewriter
#: runs at them, nor on a choice reading one (the e-graph holds their stock forms beside them).
EXPLICIT_OPS = frozenset({ExplicitAlloc, ExplicitElemwise, ExplicitBlockwise, ExplicitRandomVariable})


@dataclass
class RewriterStats:
    """What one foreign rewriter did in a saturation.

    ``calls``: ``transform`` calls (an e-node choice whose Op it tracks);
    ``matches``: calls that returned replacements; ``unions``: replacements
    that joined two classes; ``errors``: calls that raised or returned
    something that is not ``False``/``None``, a list or a dict of variables;
    ``rejected``: replacements whose type differs from the matched output's
    (dtype, ndim, broadcastable) and cannot be converted; ``seconds``: time
    in ``transform``; ``first_error``: the first exception's text;
    ``excluded``: choices not given to ``transform`` because a condition
    every match needs failed there (:func:`necessary`).
    """

    calls: int = 0
    matches: int = 0
    unions: int = 0
    errors: int = 0
    rejected: int = 0
    seconds: float = 0.0
    first_error: str | None = None
    #: choices of an Op it tracks at which ``transform`` was not called: a condition every match
    #: needs failed there (:func:`necessary`: the Ops of its pattern, constant inputs)
    excluded: int = 0

    def __str__(self) -> str:
        text = (
            f"{self.calls} calls, {self.matches} matches, {self.unions} unions, "
            f"{self.errors} errors, {self.rejected} rejected, {self.seconds:.3f} s"
        )
        if self.excluded:
            text += f", {self.excluded} choices excluded"
        return text if self.first_error is None else f"{text} (first error: {self.first_error})"


class ForeignRewriter:
    """One PyTensor ``NodeRewriter`` under a name, runnable on e-nodes, and a (forward) relation.

    ``rewriter``: the ``NodeRewriter``; ``name``: the name proofs and
    reports give (its optdb name, else its ``__name__``, else ``str()``).  A
    ``PatternNodeRewriter`` that tracks a rarer Op and looks up to the
    pattern's root through ``get_nodes`` (``local_one_plus_erf``,
    ``logsigm_to_softplus``: the clients of an ``erf``/``sigmoid``) is run
    at the root's Op instead, on the root itself: an e-node has no clients
    to look up to.
    """

    def __init__(self, rewriter: NodeRewriter, name: str) -> None:
        self.rewriter = rewriter
        self.name = self.__name__ = name
        self._root = _pattern_root(rewriter)
        #: a condition every node it matches meets (:func:`necessary`), or ``None``
        self.needs: Callable[[Apply], bool] | None = necessary(rewriter)

    def tracks(self) -> Sequence[Any] | None:
        """The Ops (instances or classes) this rewriter runs at; ``None``: every Op."""
        if self._root is not None:
            return self._root
        return self.rewriter.tracks()

    def transform(self, fgraph: Any, node: Apply) -> Any:
        """``rewriter.transform`` on ``node`` (at the pattern's root, see the class docstring)."""
        if self._root is not None:
            return self.rewriter.transform(fgraph, node, get_nodes=False)
        return self.rewriter.transform(fgraph, node)

    def replacements(self, v: Variable) -> list[Variable]:
        """The checked replacements the rewriter gives for ``v`` (an output of its node); raises as it does."""
        node = v.owner
        if node is None:
            return []
        work = private_copy(node)
        found = checked(self.transform(LocalGraph(work), work), work)
        if found is None:
            return []
        k = node.outputs.index(v)
        return [new for old, new in found if old is work.outputs[k] and new is not None]

    def __call__(self, lhs: Any, rhs: Any) -> Callable[[Mapping], Iterator[Mapping]]:
        """The relation ``rewriter rewrites lhs to rhs``: forward (``rhs`` a logic variable) or a check."""

        def goal(state: Mapping) -> Iterator[Mapping]:
            before = term_variable(walk(lhs, state))
            if before is None or before.owner is None:
                return
            after = walk(rhs, state)
            try:
                found = self.replacements(before)
            except Exception:  # noqa: BLE001 - a rewriter that raises relates nothing
                return
            if is_logic_var(after):
                for new in found:
                    s = unify(after, new, state)
                    if s is not False:
                        yield s
                return
            target = term_variable(after)
            if target is not None and any(equal_computations([new], [target]) for new in found):
                yield state

        return goal

    def __repr__(self) -> str:
        return f"ForeignRewriter({self.name!r})"


def _pattern_root(rewriter: NodeRewriter) -> list[Any] | None:
    """The root Op of a ``PatternNodeRewriter`` that tracks another Op through ``get_nodes``; else ``None``."""
    if not isinstance(rewriter, PatternNodeRewriter) or getattr(rewriter, "get_nodes", None) is None:
        return None
    pattern = rewriter.in_pattern
    op = getattr(pattern, "op_match", None)  # pytensor >= 3.1: a PatternNode
    if op is None:
        try:  # pytensor 3.0: an etuple whose head is the Op
            op = pattern[0]
        except (TypeError, IndexError, KeyError):
            return None
    op = getattr(op, "op_type", op)  # an OpPattern matches instances of its class
    return [op] if op is not None else None


def necessary(rewriter: NodeRewriter) -> Callable[[Apply], bool] | None:
    """A condition every node ``rewriter`` can rewrite meets, cheap to ask of a choice before it is
    copied and shown to ``transform``; ``None`` if none is known (it is then always called).

    - a ``PatternNodeRewriter`` (pytensor >= 3.1): the Ops of its pattern, at every depth, each
      found among the inputs' nodes (in any order: PyTensor matches commutative Ops in any
      order), and an input that is a constant for each constant of the pattern
      (:func:`_pattern_may_match`): ``match_pattern`` fails on a node without them;
    - PyTensor's ``constant_folding``: every input a constant (it folds nothing else).

    It is a necessary condition, not the match: the rewriter still decides where it holds."""
    if PatternNode is not None and isinstance(rewriter, PatternNodeRewriter):
        pattern = rewriter.in_pattern
        if isinstance(pattern, PatternNode):
            return lambda node: _pattern_may_match(pattern, node)
    if rewriter is constant_folding:
        return _all_constant
    return None


def _all_constant(node: Apply) -> bool:
    return all([isinstance(i, Constant) for i in node.inputs])


def _pattern_may_match(pattern: Any, node: Apply) -> bool:
    """Whether ``node`` has ``pattern``'s Op, each PatternNode input of the pattern may match the
    node of some input (recursively), and some input is a constant if the pattern has one."""
    op_match = pattern.op_match
    if isinstance(op_match, OpPattern):
        if not isinstance(node.op, op_match.op_type):
            return False
    elif node.op != op_match:
        return False
    for sub in pattern.inputs:
        if isinstance(sub, PatternNode):
            if not any(i.owner is not None and _pattern_may_match(sub, i.owner) for i in node.inputs):
                return False
        elif isinstance(sub, Constant) and not any(isinstance(i, Constant) for i in node.inputs):
            return False
    return True


class LocalGraph:
    """The ``FunctionGraph`` a node rewriter sees at one e-node (see the module docstring).

    ``clients`` maps each variable of the node's local sub-graph
    (:data:`LOCAL_DEPTH` levels, :data:`LOCAL_NODES` nodes) to its consumers
    there; each output of the node has one client, an ``Output`` node.
    Variables outside it have none.
    """

    def __init__(self, node: Apply) -> None:
        self.node = node
        self.outputs = list(node.outputs)
        self._clients: dict[Variable, list] | None = None
        self._nodes: list[Apply] = []

    @property
    def clients(self) -> dict[Variable, list]:
        if self._clients is None:
            self._walk()
        return self._clients  # type: ignore[return-value]

    @property
    def apply_nodes(self) -> set[Apply]:
        if self._clients is None:
            self._walk()
        return set(self._nodes)

    @property
    def inputs(self) -> list[Variable]:
        """The local sub-graph's leaves (the inputs of its deepest nodes, and graph inputs)."""
        clients = self.clients
        return [v for v in clients if v.owner is None or v.owner not in self._seen]

    def _walk(self) -> None:
        clients: dict[Variable, list] = defaultdict(list)
        for i, out in enumerate(self.node.outputs):
            clients[out].append((Apply(Output(i), [out], []), 0))
        seen = {self.node}
        level = [self.node]
        for _ in range(LOCAL_DEPTH):
            below = []
            for n in level:
                self._nodes.append(n)
                for j, inp in enumerate(n.inputs):
                    clients[inp].append((n, j))
                    owner = inp.owner
                    if owner is not None and owner not in seen and len(seen) < LOCAL_NODES:
                        seen.add(owner)
                        below.append(owner)
            level = below
        self._seen = seen
        self._clients = clients

    def _no_replace(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("a node rewriter run on an e-graph's node may not replace anything in its graph")

    def attach_feature(self, feature: Any) -> None:
        raise RuntimeError(
            f"a node rewriter run on an e-graph's node cannot attach {type(feature).__name__}: "
            "the e-graph is not a FunctionGraph"
        )

    replace = replace_all = replace_all_validate = replace_all_validate_remove = _no_replace

    class _NoFacts:
        """PyTensor 3.3's ``fgraph.assumption_feature`` knowing no fact (``check``: not definitely true)."""

        def check(self, var: Any, key: Any) -> bool:
            return False

        def get(self, var: Any, key: Any) -> None:
            return None

    #: assumptions (``pytensor.assumptions``, ``assume()``) are not tracked in the e-graph: a
    #: rewriter asking one (``local_sign_unit``) is told it does not hold
    assumption_feature = _NoFacts()

    def __repr__(self) -> str:
        return f"LocalGraph({self.node})"


def private_copy(node: Apply) -> Apply:
    """``node`` over the same inputs with outputs of its own (their tags copied): what a rewriter is
    shown by :meth:`ForeignRewriter.replacements`.  Some tag what they read (``local_log_erfc``
    marks the node it rewrote), which on a graph's own node would make PyTensor's stabilize skip
    it later; the graph is never changed.  (At an e-node's choices the rewriters see the node
    itself, its tags restored after each call: :func:`_restore`.)"""
    return node.clone()


def _restore(tags: list[Any], kept: list[dict[str, Any]]) -> None:
    """Each tag in ``tags`` as it was (``kept``, a copy of its attributes): what a rewriter wrote
    there (``local_log_erfc`` marks the node it read) is undone."""
    for tag, attrs in zip(tags, kept):
        d = tag.__dict__
        try:
            same = d == attrs  # (values compared by identity first: no ``__eq__`` call if none changed)
        except Exception:  # noqa: BLE001 - a value whose ``==`` is no bool (an array) was changed
            same = False
        if not same:
            d.clear()
            d.update(attrs)


def checked(result: Any, node: Apply) -> list[tuple[Variable, Variable | None]] | None:
    """What ``transform`` returned at ``node``, as ``(old output, new variable or None)`` pairs.

    ``None`` if the result has the wrong structure (not a list of one
    variable (or ``None``: no replacement) per output, nor a dict from
    variables to variables; a dict's ``"remove"`` entry is ignored).  A new
    variable whose type cannot be the old one's (:func:`accepted`) is
    paired with ``None`` (rejected).  Dict keys that are not outputs of
    ``node``, and outputs given no replacement, are dropped.
    """
    if isinstance(result, (list, tuple)):
        if len(result) != len(node.outputs):
            return None
        pairs = list(zip(node.outputs, result))
    elif isinstance(result, dict):
        pairs = [(k, v) for k, v in result.items() if k != "remove"]
        if not all(isinstance(k, Variable) for k, _ in pairs):
            return None
        pairs = [(k, v) for k, v in pairs if k in node.outputs]
    else:
        return None
    if not all(isinstance(new, Variable) or new is None for _, new in pairs):
        return None
    return [(old, accepted(old, new)) for old, new in pairs if new is not None]


def accepted(old: Variable, new: Variable) -> Variable | None:
    """``new`` if it may stand for ``old`` (same dtype, ndim, broadcastable), converted by
    ``old.type.filter_variable`` where that gives such a type (a static shape refined or
    loosened); ``None`` otherwise."""
    if same_type(old.type, new.type):
        return new
    try:
        converted = old.type.filter_variable(new, allow_convert=True)
    except (TypeError, ValueError):
        return None
    return converted if same_type(old.type, converted.type) else None


# -- naming what a user gives ---------------------------------------------------------


def resolve_rewriters(spec: Any, argname: str = "rewriters") -> tuple[ForeignRewriter, ...]:
    """The node rewriters ``spec`` names, each once, as :class:`ForeignRewriter` s (in order).

    ``spec`` is one of these, or a sequence (list or tuple) of them:

    - a ``NodeRewriter``: a ``PatternNodeRewriter``, a ``@node_rewriter``
      function's result; a ``SequentialNodeRewriter`` gives its members;
    - a ``GraphRewriter`` that applies node rewriters (``in2out``'s
      ``WalkingGraphRewriter``, an ``EquilibriumGraphRewriter``, a
      ``SequentialGraphRewriter``): those node rewriters (other graph
      rewriters, such as ``MergeOptimizer``, are left out);
    - the name of a database in ``pytensor.compile.optdb`` (at any depth),
      such as ``"canonicalize"``, ``"stabilize"``, ``"specialize"``: the
      node rewriters PyTensor's default mode runs there (the database
      queried with the default mode's query: ``fast_run`` and its
      exclusions), less the toolkit's own lowering and the rewriters that
      grow an e-graph without end (:data:`LEFT_OUT`); or the name of one registered
      rewriter (``"local_log1p"``);
    - a ``RewriteDatabase`` (PyMC's ``measurable_ir_rewrites_db``): every
      rewriter registered in it, recursively, less the toolkit's own and
      :data:`LEFT_OUT`;
    - a :class:`ForeignRewriter`;
    - in a sequence, ``"-name"`` leaves the rewriter of that name out of
      what the other items give (``("stabilize", "specialize",
      "-local_dimshuffle_lift")``, as in PyTensor's own queries); a
      ``"-name"`` that leaves nothing out is a ``ValueError`` (a typo).

    Names are the registered names (``local_log1p``), else the rewriter's
    ``__name__`` (``PatternNodeRewriter(..., name=...)``), else its
    ``str()``; a repeated name gets ``#2``, ``#3``.  Anything else is a
    ``TypeError`` (a string naming nothing: ``ValueError``) naming
    ``argname`` and the bad item.
    """
    found: list[NodeRewriter | ForeignRewriter] = []
    items = list(spec) if isinstance(spec, (list, tuple)) else [spec]
    left_out: dict[str, str] = {}
    for i, item in enumerate(items):
        where = f"{argname}[{i}]" if isinstance(spec, (list, tuple)) else argname
        if isinstance(item, str) and item.startswith("-") and isinstance(spec, (list, tuple)):
            left_out[item[1:]] = where
            continue
        _collect(item, where, found)
    named = _named(found)
    kept = tuple(r for r in named if r.name not in left_out)
    unused = [n for n in left_out if all(r.name != n for r in named)]
    if unused:
        raise ValueError(
            f"{left_out[unused[0]]}: '-{unused[0]}' leaves out no rewriter: none of the others is named {unused[0]!r}"
        )
    return kept


def _collect(item: Any, where: str, found: list) -> None:
    if isinstance(item, ForeignRewriter):
        found.append(item)
    elif isinstance(item, str):
        _flatten(_by_name(item, where), found)
    elif isinstance(item, RewriteDatabase):
        everything: list = []
        _flatten_database(item, everything)
        found.extend(r for r in everything if not _left_out(r))
    elif isinstance(item, (NodeRewriter, GraphRewriter)):
        if isinstance(item, GraphRewriter) and not _applies_node_rewriters(item):
            raise TypeError(
                f"{where} must be a node rewriter, an optdb name or a rewrite database; got the graph "
                f"rewriter {item!r} ({type(item).__name__}), which applies no node rewriter an e-graph can run"
            )
        _flatten(item, found)
    elif isinstance(item, (list, tuple)):
        for j, sub in enumerate(item):
            _collect(sub, f"{where}[{j}]", found)
    else:
        hint = " (decorate it with pytensor's @node_rewriter([...]))" if callable(item) else ""
        raise TypeError(
            f"{where} must be a PyTensor NodeRewriter, an optdb database name such as 'stabilize', "
            f"or a RewriteDatabase; got {item!r} of type {type(item).__name__}{hint}"
        )


def _applies_node_rewriters(rewriter: GraphRewriter) -> bool:
    return isinstance(rewriter, (NodeProcessingGraphRewriter, SequentialGraphRewriter))


def _flatten(obj: Any, found: list) -> None:
    """The node rewriters ``obj`` applies, appended to ``found`` (graph rewriters of other kinds skipped)."""
    if isinstance(obj, list):
        found.extend(obj)
    elif isinstance(obj, SequentialNodeRewriter):
        for r in obj.rewrites:
            _flatten(r, found)
    elif isinstance(obj, NodeRewriter):
        found.append(obj)
    elif isinstance(obj, RewriteDatabase):
        _flatten_database(obj, found)
    elif isinstance(obj, EquilibriumGraphRewriter):
        for r in obj.get_node_rewriters():
            _flatten(r, found)
        for r in (*obj.global_rewriters, *obj.final_rewriters, *obj.cleanup_rewriters):
            _flatten(r, found)
    elif isinstance(obj, NodeProcessingGraphRewriter):
        _flatten(obj.node_rewriter, found)
    elif isinstance(obj, SequentialGraphRewriter):
        for r in obj:
            _flatten(r, found)


def _flatten_database(db: RewriteDatabase, found: list) -> None:
    for name in sorted(db._names):
        entry = db.__db__.get(name)
        if entry:
            _flatten(next(iter(entry)), found)


def _databases(root: RewriteDatabase) -> Iterator[tuple[str, Any, RewriteDatabase]]:
    """``(name, entry, the database holding it)`` for every entry under ``root``, breadth first."""
    queue, seen = [root], {id(root)}
    while queue:
        db = queue.pop(0)
        for name in sorted(db._names):
            entry = db.__db__.get(name)
            if not entry:
                continue
            obj = next(iter(entry))
            yield name, obj, db
            if isinstance(obj, RewriteDatabase) and id(obj) not in seen:
                seen.add(id(obj))
                queue.append(obj)


def _default_query() -> RewriteDatabaseQuery:
    query = getattr(get_default_mode(), "provided_optimizer", None)
    if isinstance(query, RewriteDatabaseQuery):
        return query
    return RewriteDatabaseQuery(include=["fast_run"])


#: ``_by_name``'s queried databases: (name, optdb's version, the query's tags) -> the rewriters
_QUERIED: dict[tuple, tuple] = {}
#: the last walk of optdb (:func:`_optdb_entries`): ``(the databases walked, their version, the entries)``
_WALKED: list[Any] = [(), None, []]


def _optdb_entries() -> tuple[tuple[int, ...], list[tuple[str, Any, RewriteDatabase]]]:
    """``(version, entries)``: :func:`_databases` of optdb, walked again only when its version
    changed.  The version is the count of names registered in each database the last walk went
    through (a rewriter or database registered anywhere under optdb changes one; a walk is a few
    ms, the version a few microseconds)."""
    dbs, version, entries = _WALKED
    if version is not None and tuple([len(db._names) for db in dbs]) == version:
        return version, entries
    entries = list(_databases(optdb))
    dbs = (optdb, *dict.fromkeys(obj for _, obj, _ in entries if isinstance(obj, RewriteDatabase)))
    version = tuple([len(db._names) for db in dbs])
    _WALKED[:] = [dbs, version, entries]
    return version, entries


def _by_name(name: str, where: str) -> Any:
    """The optdb database named ``name`` queried as the default mode would (less the toolkit's own
    rewriters, :func:`_toolkit_own`), or the rewriter of that name."""
    version, entries = _optdb_entries()
    query = _default_query()
    # the query builds PyTensor's rewriters (a few ms): kept while nothing is registered anew
    key_ = (name, version, tuple(query.include), tuple(query.exclude))
    hit = _QUERIED.get(key_)
    if hit is not None:
        return list(hit)
    for key, obj, _ in entries:
        if key == name and isinstance(obj, RewriteDatabase):
            found: list = []
            _flatten(obj.query(query), found)
            kept = [r for r in found if not _left_out(r)]
            _QUERIED[key_] = tuple(kept)
            return kept
    for key, obj, _ in entries:
        if key == name:
            return obj
    known = sorted(k for k, obj, db in entries if isinstance(obj, RewriteDatabase) and db is optdb)
    raise ValueError(
        f"{where}: no database or rewriter named {name!r} in pytensor.compile.optdb; "
        f"its databases include {', '.join(known)}"
    )


#: Rewriters of a database named by a string that are left out (name one, or pass the rewriter
#: itself, to run it anyway), because in an e-graph they grow it without end:
#: ``local_dimshuffle_lift`` is ``dimshuffle_through_elemwiseo`` with ``dimshuffle_composeo`` and
#: ``dimshuffle_identityo`` without their bounds (122 of NormalMixture's 236 unions under
#: ``"stabilize"``, a fifth of the time, and no saturation in 16 iterations);
#: ``local_greedy_distributor`` (``a*b + a*c`` <-> ``a*(b + c)``) and ``local_mul_specialize`` feed
#: each other (hierarchical regression's logp + dlogp under ``("stabilize", "specialize")``: 1,097
#: e-nodes and not saturated after 16 iterations; 572, saturated, without it): distributivity is
#: the algebra rule set's, within its bounds.
LEFT_OUT = frozenset({"local_dimshuffle_lift", "local_greedy_distributor"})


def _left_out(rewriter: NodeRewriter) -> bool:
    """Whether a database's ``rewriter`` is left out: the toolkit's own, or :data:`LEFT_OUT` (by its
    registered name or its own ``__name__``)."""
    names = {_name_of(rewriter), getattr(rewriter, "__name__", None)}
    return _toolkit_own(rewriter) or bool(names & LEFT_OUT)


def _toolkit_own(rewriter: NodeRewriter) -> bool:
    """Whether ``rewriter`` is the toolkit's own (``lower_explicit_node``, registered in ``canonicalize``,
    ``stabilize`` and ``specialize`` to lower its explicit Ops): the e-graph holds the lowered forms
    already (the explicit-broadcast relations), so running it there only re-derives them."""
    fn = getattr(rewriter, "fn", None)
    module = getattr(fn, "__module__", None) or type(rewriter).__module__
    return module.split(".")[0] in ("graph_bridge", "relations")


def _named(found: Sequence[NodeRewriter | ForeignRewriter]) -> tuple[ForeignRewriter, ...]:
    out: list[ForeignRewriter] = []
    seen: set[int] = set()
    names: dict[str, int] = {}
    for r in found:
        inner = r.rewriter if isinstance(r, ForeignRewriter) else r
        if id(inner) in seen:
            continue
        seen.add(id(inner))
        base = r.name if isinstance(r, ForeignRewriter) else _name_of(r)
        n = names[base] = names.get(base, 0) + 1
        name = base if n == 1 else f"{base}#{n}"
        out.append(r if isinstance(r, ForeignRewriter) and name == r.name else ForeignRewriter(inner, name))
    return tuple(out)


def _name_of(rewriter: NodeRewriter) -> str:
    for attr in ("name", "__name__"):
        name = getattr(rewriter, attr, None)
        if isinstance(name, str) and name:
            return name
    return str(rewriter)


# -- running them in an e-graph -----------------------------------------------------------


class MatchingService(Protocol):
    """What :meth:`ForeignRules.run_at` asks of an e-graph (``relations.saturation.egraph.EGraph``)."""

    def variable(self, t: int) -> Variable: ...

    def term_op(self, t: int) -> Any: ...

    def choices(self, t: int, done: set[Any]) -> Iterator[Variable]: ...

    def relate(self, before: Variable, after: Variable, rule: Any) -> bool: ...


class ForeignState:
    """What one e-graph's foreign rewriters did: the choices they ran on in this run (``done``,
    cleared after each run) and the generation of each node they built (``generation``: one more
    than the choice it was built from, whose generation is its node's or its inputs' nodes', the
    largest; a node the rewriters did not build is of generation 0).  No rewriter runs on a choice
    of generation :data:`MAX_GENERATIONS`: ``local_log_sum_exp`` and ``late_inline_OpFromGraph``
    rewrite ``log(sum(exp(x)))`` to ``logsumexp(x)`` and that to ``max + log(sum(exp(x - max)))``,
    whose inner ``log(sum(exp(.)))`` they would rewrite again, without end.  Nor does a rewriter
    run at an e-node it built itself (``builder``): ``local_mul_specialize`` on its own products
    made a fifth of the e-nodes of a model graph's e-graph, and kept it from saturating."""

    def __init__(self) -> None:
        self.done: set[Any] = set()
        self.generation: dict[Apply, int] = {}
        self.builder: dict[Apply, ForeignRewriter] = {}

    def of(self, node: Apply) -> int:
        """The generation of a choice's node (see the class docstring)."""
        gen = self.generation
        found = gen.get(node, 0)
        for i in node.inputs:
            if i.owner is not None:
                g = gen.get(i.owner, 0)
                if g > found:
                    found = g
        return found


class ForeignRules:
    """Foreign rewriters indexed by the Op each tracks (PyTensor's ``OpToRewriterTracker``, one lookup per Op).

    Stateless across e-graphs (one may serve many): the e-graph keeps the
    choices it has run (``done``) and the report.
    """

    def __init__(self, rewriters: Sequence[ForeignRewriter]) -> None:
        self.rewriters = tuple(rewriters)
        self._order = {id(r): i for i, r in enumerate(self.rewriters)}
        self._tracker = OpToRewriterTracker()
        for r in self.rewriters:
            # a ForeignRewriter is tracked as a NodeRewriter is: add_tracker reads only its tracks()
            self._tracker.add_tracker(r)  # type: ignore[arg-type]
        self._by_op: dict[Any, tuple[ForeignRewriter, ...]] = {}

    def new_stats(self) -> dict[str, RewriterStats]:
        """A fresh :class:`RewriterStats` per rewriter (a run's report)."""
        return {r.name: RewriterStats() for r in self.rewriters}

    def at(self, op: Any) -> tuple[ForeignRewriter, ...]:
        """The rewriters tracking ``op`` (in the order given)."""
        try:
            return self._by_op[op]
        except KeyError:
            pass
        except TypeError:  # an unhashable Op: asked every time
            return self._lookup(op)
        found = self._by_op[op] = self._lookup(op)
        return found

    def _lookup(self, op: Any) -> tuple[ForeignRewriter, ...]:
        order = self._order
        return tuple(sorted(dict.fromkeys(self._tracker.get_trackers(op)), key=lambda r: order[id(r)]))

    def run_at(
        self,
        egraph: MatchingService,
        t: int,
        stats: dict[str, RewriterStats],
        state: ForeignState,
        deadline: float | None = None,
    ) -> bool:
        """Run the rewriters tracking e-node ``t``'s Op (but the ones that built it) on each of its
        choices not in ``state.done`` (every one the e-graph gives: it gives at most its
        ``MAX_CHOICES`` and counts the e-nodes cut there in ``Report.cut``); add and union what
        they return.  ``False`` if ``deadline`` passed before every choice was seen.

        (A visit took at most 12 choices until issue 42's re-measure: the 13th was taken from the
        e-graph, so marked done, and never run, and the choices past it were tried only if a
        class below changed again; no report said so.  Without that bound the numerics corpus's
        e-graphs are the same and 8 of its 244 spellings stop as ``"choices"``, not
        ``"saturated"``: their e-nodes have more combinations than the e-graph gives.)

        The e-node's variable is read (built, for a term recorded without one) only where a rewriter
        tracks its Op."""
        op = egraph.term_op(t)
        rewriters = () if op is None or type(op) in EXPLICIT_OPS else self.at(op)
        if not rewriters:
            return True
        own = egraph.variable(t)
        node = own.owner
        if state.generation.get(node, 0) >= MAX_GENERATIONS:
            return True
        builder = state.builder.get(node)
        if builder is not None:
            rewriters = tuple(r for r in rewriters if r is not builder)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for w in egraph.choices(t, state.done):
                if deadline is not None and time.perf_counter() > deadline:
                    return False
                gen = state.of(w.owner)
                if gen < MAX_GENERATIONS:
                    self._run_choice(egraph, rewriters, w, own, stats, (state, gen + 1))
        return True

    def _run_choice(
        self,
        egraph: MatchingService,
        rewriters: Sequence[ForeignRewriter],
        w: Variable,
        own: Variable,
        stats: dict[str, RewriterStats],
        made: tuple[ForeignState, int],
    ) -> None:
        node = w.owner
        if any(i.owner is not None and type(i.owner.op) in EXPLICIT_OPS for i in node.inputs):
            return
        todo = []
        for rw in rewriters:
            needs = rw.needs
            if needs is None or needs(node):
                todo.append(rw)
            else:
                stats[rw.name].excluded += 1
        if not todo:
            return
        # the rewriters are shown the choice's own node, its tags restored after each: a copy
        # (``private_copy``) took a fifth of their time on the numerics corpus
        work = node
        fgraph = LocalGraph(work)
        tags = [node.tag, *[o.tag for o in node.outputs]]
        kept = [dict(t.__dict__) for t in tags]
        for rw in todo:
            s = stats[rw.name]
            s.calls += 1
            t0 = time.perf_counter()
            try:
                result = rw.transform(fgraph, work)
            except Exception as exc:  # noqa: BLE001 - a rewriter that raises is skipped and counted
                s.seconds += time.perf_counter() - t0
                _count_error(rw, s, exc)
                continue
            finally:
                _restore(tags, kept)
            s.seconds += time.perf_counter() - t0
            if result is None or result is False:
                continue
            pairs = checked(result, work)
            if pairs is None:
                _count_error(rw, s, TypeError(f"returned {type(result).__name__}, not a list or dict of variables"))
                continue
            s.matches += 1
            for old, new in pairs:
                old = node.outputs[work.outputs.index(old)]
                if new is None:
                    s.rejected += 1
                    continue
                if not getattr(new.tag, "trace", None):
                    copy_stack_trace(own, new)
                _built(new, node, rw, *made)
                if new is not old and egraph.relate(old, new, rw):
                    s.unions += 1


def _built(new: Variable, node: Apply, rw: ForeignRewriter, state: ForeignState, gen: int) -> None:
    """Record the nodes of ``new`` down to ``node``'s inputs (at most :data:`LOCAL_NODES`, none
    recorded before) as built by ``rw``, of generation ``gen``, in ``state``."""
    into, builder = state.generation, state.builder
    stop = set(node.inputs)
    stack = [new]
    seen: set[int] = set()
    while stack and len(seen) < LOCAL_NODES:
        v = stack.pop()
        owner = v.owner
        if owner is None or v in stop or id(owner) in seen or owner is node or owner in into:
            continue
        seen.add(id(owner))
        into[owner] = gen
        builder[owner] = rw
        stack.extend(owner.inputs)


def _count_error(rw: ForeignRewriter, s: RewriterStats, exc: BaseException) -> None:
    s.errors += 1
    text = f"{type(exc).__name__}: {exc}"
    if s.first_error is None:
        s.first_error = text[:200]
    if s.errors <= MAX_LOGGED_ERRORS:
        log.debug("rewriter %s skipped: %s", rw.name, text)


_CACHE: dict[tuple[int, ...], tuple[tuple, ForeignRules]] = {}
_CACHE_SIZE = 16


def foreign_rules(spec: Any, argname: str = "rewriters") -> ForeignRules | None:
    """:class:`ForeignRules` for ``spec`` (see :func:`resolve_rewriters`), or ``None`` when it names none.

    ``()``/``None`` name none.  The index is kept for the last few sets of
    rewriters (a compile pass asks for the same ones again).
    """
    if spec is None or (isinstance(spec, (list, tuple)) and not spec):
        return None
    names = _names_key(spec)
    if names is not None:
        found = _NAMED.get(names)
        if found is not None:
            return found
    resolved = resolve_rewriters(spec, argname)
    if not resolved:
        return None
    key = tuple(id(r.rewriter) for r in resolved)
    hit = _CACHE.get(key)
    if hit is not None and [r.name for r in hit[0]] == [r.name for r in resolved]:
        rules = hit[1]
    else:
        rules = ForeignRules(resolved)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = (resolved, rules)
    if names is not None:
        if len(_NAMED) >= _CACHE_SIZE:
            _NAMED.pop(next(iter(_NAMED)))
        _NAMED[names] = rules
    return rules


#: :func:`foreign_rules` of a spec made of names only (``"stabilize"``, ``("stabilize", "-local_log1p")``),
#: by :func:`_names_key`: a saturation's setup skips resolving them (a walk of optdb, a query, the
#: names given), which took 5-8 ms of each ``saturate(..., rewriters="stabilize")``
_NAMED: dict[tuple, ForeignRules] = {}


def _names_key(spec: Any) -> tuple | None:
    """The key of ``spec`` in :data:`_NAMED` (its names, optdb's version and the default mode's
    query), or ``None`` if ``spec`` is not a name or a list or tuple of names."""
    items = (spec,) if isinstance(spec, str) else spec
    if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
        return None
    version, _ = _optdb_entries()
    query = _default_query()
    return (tuple(items), version, tuple(query.include), tuple(query.exclude))
