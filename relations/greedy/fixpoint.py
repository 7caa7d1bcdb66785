"""The normalizing engine: every node of a graph rewritten to its normal form.

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

import gc
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import is_not
from typing import Any

from pytensor import config
from pytensor.graph.basic import Variable
from unification import var

from graph_bridge import TermError, in_vocabulary, node_term, reify
from graph_bridge.context import GraphContext, graph_context
from graph_bridge.provenance import TAG
from graph_bridge.traverse import clone_over, tag_dict
from graph_bridge.type_facts import same_type
from graph_bridge.vocabulary import rewrites_whole_node
from relations.patterns.plans import backward_matcher, forward_matcher
from relations.patterns.relation import Relation, RuleIndex, answers

#: ``logging.getLogger("relations")``: each rewrite, and one summary per normalize, at DEBUG.
log = logging.getLogger("relations")

#: ``on_rewrite(rule, before, after)``: called by :class:`Normalizer` after each rewrite.
OnRewrite = Callable[[Relation, Variable, Variable], None]

__all__ = [
    "MAX_PASSES",
    "Normalizer",
    "normalizer_run",
    "copy_trace",
    "first_rewrite",
    "normalize_variables",
    "replacements",
]


def replacements(
    rel: Relation, v: Variable, t: Any, backward: bool = False, known: Callable[[Any], bool] | None = None
) -> Iterator[Variable]:
    """Variables ``rel`` relates ``v`` (viewed as term ``t``) to that may replace it.

    Each answer is reified; answers that do not reify, are ``v`` itself, or
    change the type (dtype, ndim, broadcastable) are skipped, and so are
    those ``known(term)`` (if given) says the caller holds already (an
    e-graph's class: nothing is built for them).  The relation's compiled
    plan for the direction runs when it has one (:mod:`relations.patterns.plans`;
    the same answers, in the same order).
    """
    if backward:
        found = _backward_run(rel)(t)
    else:
        found = _forward_run(rel)(t)
    for out in found:
        if known is not None and known(out):
            continue
        new = _accepted(out, v)
        if new is not None:
            yield new


def _accepted(out: Any, v: Variable) -> Variable | None:
    """The variable of answer ``out`` if it may replace ``v``: it reifies, is not ``v``, has ``v``'s type."""
    try:
        new = reify(out)
    except TermError:
        return None
    return new if new is not v and same_type(new.type, v.type) else None


def first_rewrite(
    v: Variable, rules: Sequence[Relation], backward: bool = False
) -> tuple[Variable, Relation] | None:
    """The first rule (in order) that rewrites ``v`` (forward, or backward), and its result.

    Forward, the relations see ``v`` itself: unification views a variable as
    its one-level term, which a plan's matcher reads without building it.
    """
    if backward:
        t = node_term(v)
        for rel in rules:
            for new in replacements(rel, v, t, backward):
                return new, rel
        return None
    return _first_forward_rewrite(v, _forward_runs(rules))


#: a rule and the function giving its forward answers for a term
_Run = tuple[Relation, Callable[[Any], Iterable[Any]]]
#: what the normalizer runs at the nodes of an Op class: whether ``RuleIndex.forward_for`` picks the
#: rules per node (by the inputs' Op classes), and the class's forward runs (backward: its rules)
_ClassRules = tuple[bool, tuple]
#: ``Normalizer._by_class`` has no entry for the class yet
_UNSEEN: Any = object()


def _forward_runs(rules: Sequence[Relation]) -> tuple[_Run, ...]:
    """Each rule with the function giving its forward answers for a term: its plan, or the relation run as it is.

    The normalizer pairs each tuple of rules its index gives once (kept in
    ``RuleIndex.forward_runs``), so a node pays neither the plan cache's
    weak-key lookup nor a method call per rule.
    """
    return tuple((rel, _forward_run(rel)) for rel in rules)


def _forward_run(rel: Relation) -> Callable[[Any], Iterable[Any]]:
    matcher = forward_matcher(rel)
    if matcher is not None:
        return matcher.plan
    return lambda t: answers(rel, t, var())


def _backward_run(rel: Relation) -> Callable[[Any], Iterable[Any]]:
    matcher = backward_matcher(rel)
    if matcher is not None:
        return matcher.plan
    return lambda t: answers(rel, var(), t, backward=True)


def _first_forward_rewrite(v: Variable, runs: tuple[_Run, ...]) -> tuple[Variable, Relation] | None:
    """``first_rewrite(v, rules)`` forward, from the rules' runs (``replacements`` inlined: this runs at every node)."""
    for rel, run in runs:
        for out in run(v):
            new = _accepted(out, v)
            if new is not None:
                return new, rel
    return None


def _whole_node(
    outputs: Sequence[Variable], out: Variable, rewritten: tuple[Variable, Relation]
) -> tuple[Variable, Relation] | None:
    """``rewritten`` if its node can stand for the whole multi-output node of ``out``.

    The new variable is the same output (index) of a node with as many
    outputs, each of the type of the old one.
    """
    node = rewritten[0].owner
    if node is None or len(node.outputs) != len(outputs) or node.outputs.index(rewritten[0]) != outputs.index(out):
        return None
    for a, b in zip(outputs, node.outputs):
        if not same_type(a.type, b.type):
            return None
    return rewritten


def copy_trace(trace: list | None, new: Variable, known: Mapping[Variable, Variable], mark: bool = False) -> None:
    """Give every variable of ``new``'s sub-graph not in ``known`` the stack trace ``trace``.

    PyTensor's convention (``copy_stack_trace``): a node a rewrite builds
    carries the trace of the variable it replaces, so run-time errors point
    at the user's line.  The trace the node got when the engine built it
    (frames inside the engine, or none while compiling) is replaced;
    variables in ``known`` (the graph the rewrite started from) keep theirs.
    ``mark``: also tag those nodes as built by a rewrite (``graph_bridge.provenance``).
    """
    if not trace and not mark:
        return
    stack = [new]
    seen: set[Variable] = set()
    while stack:
        v = stack.pop()
        if v in known or v in seen or v.owner is None:
            continue
        seen.add(v)
        node = v.owner
        if trace:
            for o in node.outputs:
                tag_dict(o)["trace"] = trace
        if mark:
            tag_dict(node)[TAG] = True
        stack.extend(node.inputs)


class Normalizer:
    """Normalization of a graph; memoizes every variable it has put in normal form.

    Each :meth:`normal` call over the graph's outputs is one pass.
    ``on_rewrite(rule, before, after)``, if given, is called after each
    rewrite (``relations.explain`` records its steps this way); ``None``
    costs nothing.  Where a use guard refused a node, :meth:`next_pass`
    prepares another pass that walks only what that can change.
    """

    def __init__(
        self,
        index: RuleIndex,
        context: GraphContext,
        budget: int | None = None,
        backward: bool = False,
        on_rewrite: OnRewrite | None = None,
        mark: bool = False,
    ) -> None:
        self.on_rewrite = on_rewrite
        #: tag every node it builds as built by a rewrite (``graph_bridge.provenance``)
        self.mark = mark
        self.index = index
        #: use counts of the graph being rewritten (built from its outputs), kept exact as it changes
        self.context = context
        self.backward = backward
        #: per Op class met: ``None`` if no rule can read its nodes, else :data:`_ClassRules`.  It reads
        #: the vocabulary (``in_vocabulary``) and the index's rules, which registering an Op class or
        #: rules changes between calls but not while one normalize runs: so it lives for one Normalizer
        self._by_class: dict[type, _ClassRules | None] = {}
        # keyed by the variables: a Variable hashes and compares by identity (PyTensor's
        # interned NominalVariable by value, which is the same), cheaper than id(), an
        # audited builtin call that makes a new int, and it keeps the keys alive
        self.memo: dict[Variable, Variable] = {}
        #: each variable a node rebuild made -> the variable it is a copy of (over normal inputs)
        self.copies: dict[Variable, Variable] = {}
        self.budget = budget
        #: rewrites in this pass
        self.rewrites = 0
        # normal variables whose node, or a node below, had a use guard refuse (this pass)
        self._doubtful: set[Variable] = set()
        # variables found normal with no guard refusing (before this pass)
        self._settled: set[Variable] = set()

    def _done(self, key: Variable, value: Variable) -> None:
        self.memo[key] = value
        self.memo.setdefault(value, value)

    def _siblings_replaced(self, node: Any, outputs: list, out: Variable, new: Variable) -> None:
        """The other outputs of a rewritten multi-output node map to the new node's (same index).

        The new node is the rule's answer, final for its siblings: the rules
        that rewrite whole nodes answer nodes no rule rewrites again.
        """
        for old, current, fresh in zip(node.outputs, outputs, new.owner.outputs):
            if current is out:
                continue
            self.context.rename(current, fresh)
            self._done(old, fresh)
            self.memo[current] = fresh

    def normal(self, root: Variable) -> Variable:
        with graph_context(self.context):
            return self._normal(root)

    def next_pass(self) -> None:
        """Prepare another pass: only what a loosened use guard can change is walked again.

        A node whose rules found nothing while no use guard refused stays
        normal as long as it is the same node: the guards (one use, or only
        elementwise uses) refuse more as uses grow, and a rule can answer
        only where a guard turns from no to yes.  So the memo forgets just
        the variables whose node or a node below had a guard refuse: the
        next pass walks those again (in the same order as a whole new pass
        would), rebuilds a node whose inputs changed, and runs the rules of
        new nodes and of the nodes where a guard refused.  Every other
        variable keeps its normal form.  The use counts stay (they are
        exact); the refusals and the count of rewrites start again.
        """
        memo, context = self.memo, self.context
        self._settled = {i for i in self._doubtful if not context.refused_at(memo[i])}
        for i in self._doubtful:
            del memo[i]
        self._doubtful = set()
        context.forget_refusals()
        self.rewrites = 0

    def _normal(self, root: Variable) -> Variable:
        memo, doubtful, settled, by_class = self.memo, self._doubtful, self._settled, self._by_class
        # stack items: (variable, variable whose normal form it is or None, inputs pushed)
        stack: list[tuple[Variable, Variable | None, bool]] = [(root, None, False)]
        while stack:
            v, alias_of, pushed = stack[-1]
            known = memo.get(v)
            if known is not None:
                stack.pop()
                if alias_of is not None:
                    self._done(alias_of, known)
                continue
            node = v.owner
            if node is None:
                stack.pop()
                self._root_done(v, alias_of)
                continue
            inputs = node.inputs
            if not pushed:
                top = len(stack)
                for i in reversed(inputs):
                    if i not in memo:
                        if i.owner is None:  # a root is its own normal form
                            memo[i] = i
                        else:
                            stack.append((i, None, False))
                if len(stack) > top:
                    stack[top - 1] = (v, alias_of, True)  # the inputs are done when this item is on top again
                    continue
            stack.pop()
            new_inputs = [memo[i] for i in inputs]
            new_node = self._rebuilt(node, new_inputs) if any(map(is_not, new_inputs, inputs)) else node
            outputs = new_node.outputs
            out = outputs[0] if len(outputs) == 1 else self._other_outputs(node, outputs, v)
            rewritten = refused = None
            if (len(outputs) == 1 or rewrites_whole_node(new_node.op)) and (new_node is not node or out not in settled):
                rules = by_class.get(type(new_node.op), _UNSEEN)
                if rules is _UNSEEN:
                    rules = self._class_rules(new_node.op)
                if rules is not None:
                    rewritten, refused = self._rewrite(new_node, out, rules)
            if rewritten is None:
                if refused or (doubtful and not doubtful.isdisjoint(new_node.inputs)):
                    doubtful.update(outputs)
                if out is v:
                    memo[v] = v
                else:
                    self._done(v, out)
                if alias_of is not None:
                    self._done(alias_of, out)
                continue
            if len(outputs) > 1:
                self._siblings_replaced(node, outputs, out, rewritten[0])
            self._applied(v, out, rewritten, alias_of, stack)
        return memo[root]

    def _class_rules(self, op: Any) -> _ClassRules | None:
        """What :meth:`_rewrite` runs at nodes of ``op``'s class (``None``: none), noted in ``_by_class``.

        Forward: the runs of the rules whose left root is of the class, and
        whether one of them reads the inputs' Op classes too (``child_heads``:
        then ``index.forward_for`` picks among them per node); backward: the
        rules themselves.  ``None`` for a class outside the vocabulary (terms
        do not look inside its nodes) or one no rule reads.
        """
        op_class = type(op)
        found: _ClassRules | None = None
        if in_vocabulary(op):
            rules = self.index.backward(op_class) if self.backward else self.index.forward(op_class)
            if rules:
                picky = not self.backward and any(getattr(r, "child_heads", None) is not None for r in rules)
                runs = rules if self.backward or picky else self._runs(rules)
                found = (picky, runs)
        self._by_class[op_class] = found
        return found

    def _rewrite(
        self, node: Any, out: Variable, rules: _ClassRules
    ) -> tuple[tuple[Variable, Relation] | None, bool]:
        """The first rule's rewrite of ``out`` (``node``'s output) or ``None``, and whether a guard refused one.

        ``rules``: what :meth:`_class_rules` noted for the node's Op class.
        """
        picky, runs = rules
        if picky:
            picked = self.index.forward_for(node)
            if not picked:
                return None, False
            runs = self._runs(picked)
        context = self.context
        context.asking = out
        if self.backward:
            rewritten = first_rewrite(out, runs, True)
        else:
            rewritten = _first_forward_rewrite(out, runs)
        if rewritten is not None and len(node.outputs) > 1:
            rewritten = _whole_node(node.outputs, out, rewritten)
        return rewritten, rewritten is None and context.refused_at(out)

    def _root_done(self, v: Variable, alias_of: Variable | None) -> None:
        """A root is its own normal form (and that of the variable it stands for)."""
        self._done(v, v)
        if alias_of is not None:
            self._done(alias_of, v)

    def _other_outputs(self, node: Any, outputs: list[Variable], v: Variable) -> Variable:
        """The new output for ``v`` of a node of several outputs; the others are done (no rule rewrites them)."""
        for old_out, new_out in zip(node.outputs, outputs):
            if old_out is not v:
                self._done(old_out, new_out)
        return outputs[node.outputs.index(v)]

    def _runs(self, rules: tuple[Relation, ...]) -> tuple[_Run, ...]:
        """The forward runs of ``rules``, made once per tuple the index gives (``RuleIndex.forward_runs``)."""
        runs = self.index.forward_runs.get(rules)
        if runs is None:
            runs = self.index.forward_runs[rules] = _forward_runs(rules)
        return runs

    def _rebuilt(self, node: Any, new_inputs: list[Variable]) -> Any:
        """``node`` over the normal forms of its inputs (some differ), renamed in the context and marked."""
        # a normal form has its variable's value: so the node's old types hold
        new_node = clone_over(node, new_inputs, same_values=True)
        if new_node is None:  # the Op makes it again (make_node): keep the user's trace
            new_node = node.clone_with_new_inputs(new_inputs, strict=False)
            trace = getattr(node.outputs[0].tag, "trace", None)
            if trace:
                for o, n in zip(node.outputs, new_node.outputs):
                    n.tag.trace = getattr(o.tag, "trace", trace)
        rename, copies = self.context.rename, self.copies
        for old_out, new_out in zip(node.outputs, new_node.outputs):
            rename(old_out, new_out)
            copies[new_out] = old_out
        if self.mark:
            tag_dict(new_node)[TAG] = True
        return new_node

    def _applied(self, v: Variable, out: Variable, rewritten: tuple, alias_of: Variable | None, stack: list) -> None:
        """Take the rewrite ``rewritten`` (new variable, rule) of ``out`` (``v``'s node rebuilt).

        And stack its normalization.
        """
        self.rewrites += 1
        self.context.replace(out, rewritten[0])
        if self.budget is not None and self.rewrites > self.budget:
            raise RuntimeError(
                f"normalize: more than {self.budget} rewrites; the rule set "
                f"does not terminate (last rule: {rewritten[1].__name__})"
            )
        copy_trace(tag_dict(out).get("trace"), rewritten[0], self.memo, self.mark)
        if self.on_rewrite is not None:
            self.on_rewrite(rewritten[1], out, rewritten[0])
        # the new sub-graph is normalized next; its result stands for v
        stack.append((rewritten[0], alias_of if alias_of is not None else v, False))
        if alias_of is not None:
            # v itself also maps to the final form
            stack.append((rewritten[0], v, False))


#: Passes ``normalize_variables`` makes at most (see ``GraphContext.loosened``).
MAX_PASSES = 8


def normalize_variables(
    outputs: Sequence[Variable],
    index: RuleIndex,
    backward: bool = False,
    on_rewrite: OnRewrite | None = None,
    mark: bool = False,
) -> list[Variable]:
    """Normal forms of ``outputs``, sharing one memo (shared sub-graphs stay shared).

    ``backward`` runs the rules from right to left (``relations.lower``);
    ``on_rewrite(rule, before, after)`` is called after each rewrite;
    ``mark`` tags every node it builds (``graph_bridge.provenance``: what
    ``mark_rewritten(result, outputs)`` does, without walking both graphs).
    One bottom-up pass puts every node in normal form, except where a use
    guard (``graph_bridge.single_useo``) refused a node that a later rewrite
    above it then stopped using: another pass follows for those (at most
    :data:`MAX_PASSES`; :meth:`Normalizer.next_pass`), so ``normalize`` is
    idempotent.
    """
    return normalizer_run(outputs, index, backward, on_rewrite, mark)[0]


def normalizer_run(
    outputs: Sequence[Variable],
    index: RuleIndex,
    backward: bool = False,
    on_rewrite: OnRewrite | None = None,
    mark: bool = False,
) -> tuple[list[Variable], Normalizer]:
    """:func:`normalize_variables`, and the :class:`Normalizer` that ran (its ``memo`` and ``copies``)."""
    debug = log.isEnabledFor(logging.DEBUG)
    start = time.perf_counter() if debug else 0.0
    if debug:
        on_rewrite = _logging(on_rewrite, backward)
    result = list(outputs)
    rewrites = 0
    # PyTensor records the Python stack of every node it builds; a rewrite's
    # nodes take the trace of the node they replace (``copy_trace``) instead,
    # so the stack is not read (a tenth of the time of a rewrite)
    with config.change_flags(traceback__limit=0), _collector_paused():
        context = GraphContext(result)
        nodes = context.nodes
        budget = 1000 + 100 * nodes
        norm = Normalizer(index, context, budget=budget, backward=backward, on_rewrite=on_rewrite, mark=mark)
        for _ in range(MAX_PASSES):
            result = [norm.normal(o) for o in result]
            rewrites += norm.rewrites
            if norm.rewrites == 0 or not context.loosened():
                break
            norm.next_pass()
    if debug:
        log.debug(
            "%s: %d nodes, %d rewrites, %.6f s",
            "lower" if backward else "normalize",
            nodes,
            rewrites,
            time.perf_counter() - start,
        )
    return result, norm


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for one normalize, as it was after.

    Every collection of the oldest generation walks every live object, the
    whole graph included, and they come more often the more the rewrites
    allocate: on a graph of 10^4 nodes a quarter of the time went there,
    and the cost per node grew with the graph.  A normalize leaves little
    garbage (the candidate nodes its rules reject), collected as usual once
    it returns.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
