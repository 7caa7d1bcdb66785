"""Running relations over whole graphs: the normalizing fixpoint, and bounded search.

The graph is walked in Python, bottom-up, each node once (iteratively, so deep
graphs do not hit the recursion limit).  At a node whose Op class can match a
rule's left side, the relation runs on a one-level view of the node
(:func:`graph_bridge.node_term`); unification expands the inputs only as deep
as the rule's pattern asks.  The first ground answer that reifies to a
variable of the same dtype, ndim and broadcastable pattern replaces the node,
and the new sub-graph is walked the same way, so every node of the result is
in normal form.  Rules decrease a measure forward, so this stops; a budget on
the number of rewrites turns a non-terminating user rule set into an error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from pytensor import config
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.fg import FunctionGraph
from unification import var

from graph_bridge import TermError, in_vocabulary, is_ground, node_term, reify
from graph_bridge.context import GraphContext, graph_context
from graph_bridge.logic import lreify
from graph_bridge.traverse import rebuild
from relations import frontier as frontier_mod
from relations.frontier import Progress, ProgressReporter, StructuralHashes
from relations.rules import Relation, RuleIndex

#: ``logging.getLogger("relations")``: each rewrite, and one summary per normalize, at DEBUG.
log = logging.getLogger("relations")

#: ``on_rewrite(rule, before, after)``: called by :class:`Normalizer` after each rewrite.
OnRewrite = Callable[[Relation, Variable, Variable], None]

__all__ = [
    "MAX_ANSWERS_PER_STEP",
    "as_variables",
    "elements_touched",
    "equivalent_forms",
    "first_rewrite",
    "normalize_variables",
    "one_step",
    "replace_in",
    "replacements",
    "same_type",
]


def as_variables(graph: Any, argname: str = "graph") -> tuple[list[Variable], bool]:
    """``graph`` as a list of variables, and whether it was a single one."""
    if isinstance(graph, Variable):
        return [graph], True
    if isinstance(graph, FunctionGraph):
        raise TypeError(
            f"{argname} must be a PyTensor Variable or a list of them, got a FunctionGraph; "
            f"pass fgraph.outputs (the FunctionGraph itself is not changed)"
        )
    if isinstance(graph, (list, tuple)):
        bad = [i for i, g in enumerate(graph) if not isinstance(g, Variable)]
        if bad:
            i = bad[0]
            raise TypeError(
                f"{argname}[{i}] must be a PyTensor Variable, got {type(graph[i]).__name__}"
            )
        return list(graph), False
    raise TypeError(
        f"{argname} must be a PyTensor Variable or a list of them, "
        f"got {type(graph).__name__}"
    )


def same_type(new: Variable, old: Variable) -> bool:
    """Whether ``new`` may replace ``old``: same dtype, ndim and broadcastable."""
    a, b = new.type, old.type
    if a == b:
        return True
    return (
        getattr(a, "dtype", None) == getattr(b, "dtype", None)
        and getattr(a, "ndim", None) == getattr(b, "ndim", None)
        and tuple(getattr(a, "broadcastable", ())) == tuple(getattr(b, "broadcastable", ()))
        and type(a) is type(b)
    )


def answers(relation: Relation, lhs: Any, rhs: Any, backward: bool = False) -> Iterator[Any]:
    """The ground answers ``rhs`` (or ``lhs`` if ``backward``) of ``relation(lhs, rhs)``, lazily."""
    goal = relation(lhs, rhs)
    if not callable(goal):
        name = getattr(relation, "__name__", relation)
        raise TypeError(f"rule {name!r} returned {type(goal).__name__}, not a goal")
    wanted = lhs if backward else rhs
    for state in goal({}):
        out = lreify(wanted, state)
        if is_ground(out):
            yield out


def replacements(rel: Relation, v: Variable, t: Any, backward: bool = False) -> Iterator[Variable]:
    """Variables ``rel`` relates ``v`` (viewed as term ``t``) to that may replace it.

    Each answer is reified; answers that do not reify, are ``v`` itself, or
    change the type (dtype, ndim, broadcastable) are skipped.
    """
    q = var()
    found = answers(rel, q, t, backward=True) if backward else answers(rel, t, q)
    for out in found:
        try:
            new = reify(out)
        except TermError:
            continue
        if new is not v and same_type(new, v):
            yield new


def first_rewrite(
    v: Variable, rules: Sequence[Relation], backward: bool = False
) -> tuple[Variable, Relation] | None:
    """The first rule (in order) that rewrites ``v`` (forward, or backward), and its result."""
    t = node_term(v)
    for rel in rules:
        for new in replacements(rel, v, t, backward):
            return new, rel
    return None


def copy_trace(trace: list | None, new: Variable, known: dict[int, Variable]) -> None:
    """Give every variable of ``new``'s sub-graph not in ``known`` the stack trace ``trace``.

    PyTensor's convention (``copy_stack_trace``): a node a rewrite builds
    carries the trace of the variable it replaces, so run-time errors point
    at the user's line.  The trace the node got when the engine built it
    (frames inside the engine, or none while compiling) is replaced;
    variables in ``known`` (the graph the rewrite started from) keep theirs.
    """
    if not trace:
        return
    stack = [new]
    seen: set[int] = set()
    while stack:
        v = stack.pop()
        if id(v) in known or id(v) in seen or v.owner is None:
            continue
        seen.add(id(v))
        for o in v.owner.outputs:
            o.tag.trace = trace
        stack.extend(v.owner.inputs)


class Normalizer:
    """One normalization pass; memoizes every variable it has put in normal form.

    ``on_rewrite(rule, before, after)``, if given, is called after each
    rewrite (``relations.explain`` records its steps this way); ``None``
    costs nothing.
    """

    def __init__(
        self,
        index: RuleIndex,
        context: GraphContext,
        budget: int | None = None,
        backward: bool = False,
        on_rewrite: OnRewrite | None = None,
    ) -> None:
        self.on_rewrite = on_rewrite
        self.index = index
        #: use counts of the graph being rewritten (built from its outputs), kept exact as it changes
        self.context = context
        self.backward = backward
        self._rules = index.backward if backward else index.forward
        self.memo: dict[int, Variable] = {}
        self._keep: list[Variable] = []  # keeps ids in memo alive and unique
        self.budget = budget
        self.rewrites = 0

    def _done(self, key: Variable, value: Variable) -> None:
        self.memo[id(key)] = value
        self._keep.append(key)
        if id(value) not in self.memo:
            self.memo[id(value)] = value
            self._keep.append(value)

    def normal(self, root: Variable) -> Variable:
        with graph_context(self.context):
            return self._normal(root)

    def _normal(self, root: Variable) -> Variable:
        memo = self.memo
        context = self.context
        # stack items: (variable, variable whose normal form it is, or None)
        stack: list[tuple[Variable, Variable | None]] = [(root, None)]
        while stack:
            v, alias_of = stack[-1]
            if id(v) in memo:
                stack.pop()
                if alias_of is not None:
                    self._done(alias_of, memo[id(v)])
                continue
            node = v.owner
            if node is None:
                stack.pop()
                self._done(v, v)
                if alias_of is not None:
                    self._done(alias_of, v)
                continue
            missing = [i for i in node.inputs if id(i) not in memo]
            if missing:
                stack.extend((i, None) for i in reversed(missing))
                continue
            stack.pop()
            new_inputs = [memo[id(i)] for i in node.inputs]
            if any(a is not b for a, b in zip(new_inputs, node.inputs)):
                new_node = node.clone_with_new_inputs(new_inputs, strict=False)
                trace = getattr(node.outputs[0].tag, "trace", None)
                if trace and getattr(new_node.outputs[0].tag, "trace", None) is not trace:
                    for o, n in zip(node.outputs, new_node.outputs):  # remade by make_node
                        n.tag.trace = getattr(o.tag, "trace", trace)
            else:
                new_node = node
            for old_out, new_out in zip(node.outputs, new_node.outputs):
                context.rename(old_out, new_out)
                if old_out is not v:
                    self._done(old_out, new_out)
            out = new_node.outputs[node.outputs.index(v)]
            rewritten = None
            if len(new_node.outputs) == 1 and in_vocabulary(new_node.op):
                if self.backward:
                    rules = self._rules(type(new_node.op))
                else:
                    rules = self.index.forward_for(new_node)
                if rules:
                    rewritten = first_rewrite(out, rules, self.backward)
            if rewritten is None:
                self._done(v, out)
                if alias_of is not None:
                    self._done(alias_of, out)
                continue
            self.rewrites += 1
            context.replace(out, rewritten[0])
            if self.budget is not None and self.rewrites > self.budget:
                raise RuntimeError(
                    f"normalize: more than {self.budget} rewrites; the rule set "
                    f"does not terminate (last rule: {rewritten[1].__name__})"
                )
            copy_trace(getattr(out.tag, "trace", None), rewritten[0], memo)
            if self.on_rewrite is not None:
                self.on_rewrite(rewritten[1], out, rewritten[0])
            # the new sub-graph is normalized next; its result stands for v
            stack.append((rewritten[0], alias_of if alias_of is not None else v))
            if alias_of is not None:
                # v itself also maps to the final form
                stack.append((rewritten[0], v))
        return memo[id(root)]


#: Passes ``normalize_variables`` makes at most (see ``GraphContext.loosened``).
MAX_PASSES = 8


def normalize_variables(
    outputs: Sequence[Variable],
    index: RuleIndex,
    backward: bool = False,
    on_rewrite: OnRewrite | None = None,
) -> list[Variable]:
    """Normal forms of ``outputs``, sharing one memo (shared sub-graphs stay shared).

    ``backward`` runs the rules from right to left (``relations.lower``);
    ``on_rewrite(rule, before, after)`` is called after each rewrite.
    One bottom-up pass puts every node in normal form, except where a use
    guard (``graph_bridge.single_useo``) refused a node that a later rewrite
    above it then stopped using: another pass follows for those (at most
    :data:`MAX_PASSES`), so ``normalize`` is idempotent.
    """
    debug = log.isEnabledFor(logging.DEBUG)
    start = time.perf_counter() if debug else 0.0
    nodes = _count_nodes(outputs)
    if debug:
        on_rewrite = _logging(on_rewrite, backward)
    budget = 1000 + 100 * nodes
    result = list(outputs)
    rewrites = 0
    # PyTensor records the Python stack of every node it builds; a rewrite's
    # nodes take the trace of the node they replace (``copy_trace``) instead,
    # so the stack is not read (a tenth of the time of a rewrite)
    with config.change_flags(traceback__limit=0):
        for _ in range(MAX_PASSES):
            context = GraphContext(result)
            norm = Normalizer(index, context, budget=budget, backward=backward, on_rewrite=on_rewrite)
            result = [norm.normal(o) for o in result]
            rewrites += norm.rewrites
            if norm.rewrites == 0 or not context.loosened():
                break
    if debug:
        log.debug(
            "%s: %d nodes, %d rewrites, %.6f s",
            "lower" if backward else "normalize",
            nodes,
            rewrites,
            time.perf_counter() - start,
        )
    return result


def _logging(on_rewrite: OnRewrite | None, backward: bool) -> OnRewrite:
    """``on_rewrite`` that also logs each rewrite at DEBUG."""

    def logged(rule: Relation, before: Variable, after: Variable) -> None:
        log.debug(
            "%s%s: %s -> %s",
            getattr(rule, "__name__", rule),
            " (backward)" if backward else "",
            before.owner,
            after.owner if after.owner is not None else after,
        )
        if on_rewrite is not None:
            on_rewrite(rule, before, after)

    return logged


def _count_nodes(outputs: Sequence[Variable]) -> int:
    seen: set[int] = set()
    stack = [o for o in outputs]
    keep = []
    while stack:
        v = stack.pop()
        node = v.owner
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        keep.append(node)
        stack.extend(node.inputs)
    return len(seen)


# -- bounded breadth-first search over forms ---------------------------------

#: Answers taken from one relation at one node in one direction (backward
#: families such as "add a dimension" are finite but can be long).
MAX_ANSWERS_PER_STEP = 4


def check_count(value: Any, argname: str, allow_none: bool = False) -> int | None:
    """``value`` as a non-negative int; ``ValueError`` names ``argname`` otherwise."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{argname} must be a non-negative integer, got {value!r}")
    return int(value)


def check_timeout(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {value!r}")
    return float(value)


class StructuralKeys:
    """Interned structural keys of variables: equal keys, equal graphs.

    Root variables are keyed by identity, constants by dtype, shape and data,
    nodes by their Op (props equality) and their inputs' keys.  Keys persist
    across forms, so a form that shares most of its nodes with the input
    costs only its new nodes.
    """

    def __init__(self) -> None:
        self._by_var: dict[int, int] = {}
        self._keep: list[Variable] = []
        self._intern: dict[Any, int] = {}

    def _id(self, k: Any) -> int:
        found = self._intern.get(k)
        if found is None:
            found = self._intern[k] = len(self._intern)
        return found

    def key(self, root: Variable) -> int:
        memo = self._by_var
        stack = [root]
        while stack:
            v = stack[-1]
            if id(v) in memo:
                stack.pop()
                continue
            node = v.owner
            if node is None:
                if isinstance(v, Constant):
                    data = np.asarray(v.data)
                    k: Any = ("const", str(v.type), data.dtype.str, data.shape, data.tobytes())
                else:
                    k = ("input", id(v))
                stack.pop()
            else:
                missing = [i for i in node.inputs if id(i) not in memo]
                if missing:
                    stack.extend(missing)
                    continue
                stack.pop()
                k = (node.op, tuple(memo[id(i)] for i in node.inputs), node.outputs.index(v))
            memo[id(v)] = self._id(k)
            self._keep.append(v)
        return memo[id(root)]


def _nodes_from_outputs(outputs: Sequence[Variable]) -> list[Variable]:
    """Every owned variable, breadth first from the outputs (deterministic)."""
    seen: set[int] = set()
    order: list[Variable] = []
    queue = list(outputs)
    i = 0
    while i < len(queue):
        v = queue[i]
        i += 1
        if id(v) in seen or v.owner is None:
            continue
        seen.add(id(v))
        order.append(v)
        queue.extend(v.owner.inputs)
    return order


def replace_in(outputs: Sequence[Variable], old: Variable, new: Variable) -> list[Variable]:
    """``outputs`` with ``old`` replaced by ``new``; only the nodes above ``old`` are rebuilt."""
    return rebuild(outputs, replace={old: new})


def one_step(
    outputs: Sequence[Variable],
    index: RuleIndex,
    deadline: float | None = None,
    with_steps: bool = False,
) -> Iterator[Any]:
    """Forms one relation application away from ``outputs``, in a deterministic order.

    Nodes are visited breadth first from the outputs; at each node the rules
    that can match it forward, then those that can match it backward, in rule
    order; each gives at most :data:`MAX_ANSWERS_PER_STEP` answers.  The
    relations see the use counts of ``outputs`` (``graph_bridge.context``).
    With ``with_steps``, each form comes as ``(form, (rule, before, after, backward))``.
    """
    context = GraphContext(outputs)
    for v in _nodes_from_outputs(outputs):
        node = v.owner
        if len(node.outputs) != 1 or not in_vocabulary(node.op):
            continue
        t = None
        for backward in (False, True):
            rules = index.backward(type(node.op)) if backward else index.forward(type(node.op))
            for rel in rules:
                if deadline is not None and time.monotonic() > deadline:
                    return
                if t is None:
                    t = node_term(v)
                # the context is set only while the relation runs, never across a yield
                with graph_context(context):
                    forms = _forms_of(outputs, rel, v, t, backward)
                for form, new in forms:
                    yield (form, (rel, v, new, backward)) if with_steps else form


def _forms_of(
    outputs: Sequence[Variable], rel: Relation, v: Variable, t: Any, backward: bool
) -> list[tuple[list[Variable], Variable]]:
    """Up to :data:`MAX_ANSWERS_PER_STEP` pairs ``(outputs with v replaced by new, new)`` for ``rel``'s answers."""
    forms = []
    for new in replacements(rel, v, t, backward):
        try:
            forms.append((replace_in(outputs, v, new), new))
        except Exception:  # noqa: BLE001 - an ill-typed rebuild is no form
            continue
        if len(forms) >= MAX_ANSWERS_PER_STEP:
            break
    return forms


def equivalent_forms(
    outputs: Sequence[Variable],
    index: RuleIndex,
    limit: int | None,
    depth: int,
    timeout: float | None,
    progress: Callable[[Progress], object] | None = None,
) -> Iterator[list[Variable]]:
    """Breadth-first search: distinct forms, fewest relation applications first.

    Keeps the frontier's forms and a 16-byte hash of each form seen
    (:mod:`relations.frontier`); reports progress every few seconds.
    """
    if limit == 0:
        return
    deadline = None if timeout is None else time.monotonic() + timeout
    hashes = StructuralHashes()
    report = ProgressReporter(progress)
    seen = {hashes.form_key(list(outputs))}
    frontier = [list(outputs)]
    produced = 0
    truncated = False
    for level in range(depth):
        next_frontier = []
        for form in frontier:
            for new in one_step(form, index, deadline):
                report(produced, level + 1, len(next_frontier))
                k = hashes.form_key(new)
                if k in seen:
                    continue
                seen.add(k)
                if len(next_frontier) < frontier_mod.MAX_FRONTIER:
                    next_frontier.append(new)
                elif not truncated:
                    truncated = True
                    frontier_mod.logger.info(
                        "equivalents: more than %d forms at depth %d; later ones are "
                        "yielded but not expanded (relations.frontier.MAX_FRONTIER)",
                        frontier_mod.MAX_FRONTIER,
                        level + 1,
                    )
                yield new
                produced += 1
                if limit is not None and produced >= limit:
                    return
            if deadline is not None and time.monotonic() > deadline:
                return
        frontier = next_frontier
        if not frontier:
            return


def elements_touched(outputs: Sequence[Variable], unknown_dim: int = 16) -> float:
    """Default cost: elements every node writes, from static shapes (unknown lengths count ``unknown_dim``)."""
    total = 0.0
    for v in _nodes_from_outputs(outputs):
        for o in v.owner.outputs:
            shape = getattr(o.type, "shape", None)
            if shape is None:
                total += 1
                continue
            size = 1.0
            for d in shape:
                size *= unknown_dim if d is None else d
            total += max(size, 1.0)
    return total
