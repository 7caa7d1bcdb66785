"""Facts about the graph being rewritten, not only about types: how often a sub-graph is used.

A term is a tree; the graph it views is a DAG.  A rule that rewrites
``f(g(x))`` into ``g'(f(x))`` wins only where ``g(x)`` has no other use: if
another node also reads ``g(x)``, the old ``g`` stays for it and the rewrite
adds a second one (PyTensor's own lifting rewrites check for a single
client for the same reason).  :func:`useso` and :func:`single_useo` state
that fact as a goal, so a rule keeps it as a guard and still runs in every
direction:

- forward and as a check, the sub-term stands for a variable of the graph
  being rewritten, and its uses are counted in that graph (each consuming
  node input, and each graph output, is one use);
- backward, the sub-term is built by the relation itself: it is a new
  variable, used once, by the term that holds it (the fact is vacuous).

The graph is given by the caller that runs the rules: ``relations.normalize``,
``equivalents``, ``best`` and the compile-time pass each set it (a
:class:`GraphContext`) while they run.  A relation run by hand (``kanren.run``)
on a term of an existing graph has no such context; the guard then raises
:class:`NoGraphContext`, which says how to give it one::

    with graph_context([y]):
        run(1, q, elemwise_set_subtensoro(etuplize(y), q))
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from etuples.core import ExpressionTuple
from pytensor.graph.basic import Apply, Variable
from pytensor.tensor.elemwise import CAReduce, Elemwise

from graph_bridge.ops import ExplicitElemwise
from graph_bridge.terms import is_variable, term_variable
from logic_core.memo import type_check
from logic_core.moded import Mode, ModedGoal, moded
from logic_core.term_kinds import is_term

__all__ = [
    "GraphContext",
    "NoGraphContext",
    "equal_variables",
    "graph_context",
    "held_type",
    "witnessed",
    "elementwise_useso",
    "single_useo",
    "use_fact",
    "use_holds",
    "useso",
]


#: Ops that read their inputs element by element or reduce them (``other_uses`` counts the rest).
_ELEMENTWISE = (Elemwise, ExplicitElemwise, CAReduce)


class NoGraphContext(RuntimeError):
    """A use-count fact was asked about an existing variable with no graph given."""


class GraphContext:
    """Use counts of the variables of a graph, kept exact while a rewriter changes it.

    Built from the outputs: every input slot of every node, and every output,
    is one use.  A rewriter that replaces ``old`` by ``new`` calls
    :meth:`replace` (``new`` takes over ``old``'s uses; the nodes of ``new``
    that the graph did not have add uses to their inputs; ``old``'s node, now
    unused, gives its inputs' uses back, recursively), and :meth:`rename`
    when a node is only rebuilt over new inputs.  A variable the context has
    never seen is new: one use, by the term that holds it.
    """

    def __init__(self, outputs: Sequence[Variable] = ()) -> None:
        self._uses: dict[Variable, int] = {}
        self._other: dict[Variable, int] = {}  # uses not by an Elemwise or a reduction
        #: the variable whose rules are running (the normalizer sets it), or ``None``
        self.asking: Variable | None = None
        #: ``held_type(term)``: the type of a term a relation built, as the caller knows it without
        #: building it (an e-graph's class holding it), or ``None``; see :func:`held_type`
        self.held_type: Callable[[Any], Any] | None = None
        #: ``equals(variable)``: the variables the caller knows equal to it (an e-graph: its class's
        #: e-nodes), or ``None`` (only itself); see :func:`equal_variables`
        self.equals: Callable[[Variable], Sequence[Variable]] | None = None
        #: ``witness(v, w)``: a guard on ``v`` held through the equal ``w`` (:func:`witnessed`)
        self.witness: Callable[[Variable, Variable], None] | None = None
        self._refused: dict[Variable, tuple[int, int]] = {}  # guards that said no, and the counts then
        self._refused_at: set[Variable] = set()  # the ``asking`` variables of the refusals
        #: how many Apply nodes the graph given to the constructor has
        self.nodes = 0
        for o in outputs:
            self.nodes += self._add_new(o)
            self._uses[o] += 1
            self._other[o] = self._other.get(o, 0) + 1

    def uses(self, v: Variable) -> int:
        """How many uses ``v`` has in the graph (1 if the graph does not hold it)."""
        return self._uses.get(v, 1)

    def other_uses(self, v: Variable) -> int:
        """Uses of ``v`` that are not by an Elemwise or a reduction (graph outputs count)."""
        return self._other.get(v, 0)

    def refused(self, v: Variable) -> None:
        """Note that a use guard said no for ``v``, with its counts as they are now.

        The refusal is noted for :attr:`asking` too: the rules of that
        variable's node were running, and they may apply once ``v`` loses a use.
        """
        self._refused[v] = (self.uses(v), self.other_uses(v))
        if self.asking is not None:
            self._refused_at.add(self.asking)

    def refused_at(self, v: Variable) -> bool:
        """Whether a use guard said no while the rules of ``v`` ran (as :attr:`asking`)."""
        return v in self._refused_at

    def loosened(self) -> bool:
        """Whether a variable a guard refused has fewer uses now (a later rewrite dropped one).

        A graph is rewritten bottom-up, so a guard at a node sees the uses its
        consumers have before they are rewritten; when one of them lets go of
        a refused node, another pass may apply the rule there.
        """
        return any(
            self.uses(v) < n or self.other_uses(v) < k for v, (n, k) in self._refused.items()
        )

    def forget_refusals(self) -> None:
        """Start a new pass: the refusals noted so far are dropped (the counts stay)."""
        self._refused = {}
        self._refused_at = set()

    def _add_new(self, root: Variable) -> int:
        """Count the uses inside the part of ``root``'s graph not seen yet; return its number of nodes."""
        uses, other = self._uses, self._other
        elementwise_by_type = _elementwise_op.by_type
        if root in uses:
            return 0
        uses[root] = 0
        stack = [root]
        nodes = 0
        seen_multi: set[Apply] | None = None  # nodes of several outputs (reached once per output at most)
        while stack:
            node = stack.pop().owner
            if node is None:
                continue
            outputs = node.outputs
            if len(outputs) > 1:
                if seen_multi is None:
                    seen_multi = set()
                elif node in seen_multi:
                    continue
                seen_multi.add(node)
                for o in outputs:
                    if o not in uses:
                        uses[o] = 0
            nodes += 1
            elementwise = elementwise_by_type[type(node.op)]
            for i in node.inputs:
                n = uses.get(i)
                if n is None:
                    uses[i] = 1
                    stack.append(i)
                else:
                    uses[i] = n + 1
                if not elementwise:
                    other[i] = other.get(i, 0) + 1
        return nodes

    def rename(self, old: Variable, new: Variable) -> None:
        """``new`` (the same node rebuilt over replaced inputs) takes over ``old``'s uses."""
        if new is old:
            return
        uses = self._uses
        n = uses.pop(old, 0)
        before = uses.get(new)
        uses[new] = n if before is None else before + n
        k = self._other.pop(old, 0)
        if k:
            self._other[new] = self._other.get(new, 0) + k

    def replace(self, old: Variable, new: Variable) -> None:
        """``new`` replaces ``old`` everywhere: its new nodes are counted, ``old``'s node is dropped."""
        if new is old:
            return
        self._add_new(new)
        self.rename(old, new)
        self._release(old)

    def _release(self, old: Variable) -> None:
        """``old`` has no use left: its node's inputs lose one use each, recursively."""
        uses = self._uses
        stack = [old]
        while stack:
            v = stack.pop()
            node = v.owner
            if node is None:
                continue
            outputs = node.outputs
            if uses.get(v, 0) > 0 or (len(outputs) > 1 and any(uses.get(o, 0) > 0 for o in outputs)):
                continue
            other = not _elementwise_op(node.op)
            for i in node.inputs:
                n = uses.get(i)
                if n is not None:
                    uses[i] = n = n - 1
                    if other:
                        self._other[i] -= 1
                    if n == 0:
                        stack.append(i)


_elementwise_op = type_check(_ELEMENTWISE, "Whether an Op reads its inputs element by element or reduces them.")


_CURRENT: ContextVar[GraphContext | None] = ContextVar("relations_graph_context", default=None)


@contextmanager
def graph_context(graph: Sequence[Variable] | GraphContext) -> Iterator[GraphContext]:
    """Run relations with the use counts of ``graph`` (outputs, or a ready context)."""
    ctx = graph if isinstance(graph, GraphContext) else GraphContext(list(graph))
    token = _CURRENT.set(ctx)
    try:
        yield ctx
    finally:
        _CURRENT.reset(token)


def held_type(t: Any) -> Any | None:
    """The type of term ``t``, a term a relation built, if the running caller holds it already
    (:attr:`GraphContext.held_type`: saturation answers from the class of its key), else ``None``.

    A type guard reads it instead of building ``t``'s nodes (``same_typeo`` on a rule's right
    side): an answer the e-graph holds is then never built."""
    ctx = _CURRENT.get()
    if ctx is None or ctx.held_type is None or not _built_by_relation(t):
        return None
    return ctx.held_type(t)


def equal_variables(v: Variable) -> Sequence[Variable]:
    """``v`` and the variables the running caller knows equal to it (:attr:`GraphContext.equals`: in
    saturation, the variables of the e-nodes of ``v``'s class), ``v`` first.

    A guard that asks whether a term *can be* spelled some way (an Alloc of a broadcast value)
    reads them all, so it answers for the whole class, not for the one e-node chosen; one that
    holds through another variable names it (:func:`witnessed`)."""
    ctx = _CURRENT.get()
    if ctx is None or ctx.equals is None:
        return (v,)
    return ctx.equals(v)


def witnessed(v: Variable, w: Variable) -> None:
    """A guard on ``v`` held through ``w``, one of :func:`equal_variables` of ``v``: the caller
    (:attr:`GraphContext.witness`) runs the rule again on the term with ``w`` in ``v``'s place, so
    each step it records holds on its own terms."""
    ctx = _CURRENT.get()
    if ctx is not None and ctx.witness is not None and w is not v:
        ctx.witness(v, w)


def _built_by_relation(t: Any) -> bool:
    """A term the relation built itself (not a view of an existing variable)."""
    return is_term(t) and t._evaled_obj is ExpressionTuple.null and not is_variable(t)


def useso(term: Any, n: Any, fact: str = "useso") -> ModedGoal:
    """``term`` has ``n`` uses in the graph being rewritten.

    Waits (:class:`NotReady`) while ``term`` is not ground.  A term the
    relation built (backward) is new: one use.  A term that stands for an
    existing variable is counted in the current :class:`GraphContext`;
    without one, :class:`NoGraphContext` says how to give one.  Given ``n``,
    a count that differs is noted as a refusal (``GraphContext.loosened``).
    """

    def count(t):
        return _uses_of(t, fact, GraphContext.uses)

    def check(t, k):
        found = _uses_of(t, fact, GraphContext.uses)
        if found is not None and found[0] == k:
            return ()
        if found is not None and not _built_by_relation(t):
            _required_context(fact).refused(term_variable(t))
        return None

    return moded(
        fact,
        {"term": term, "n": n},
        Mode(needs=("term", "n"), gives=(), one=check),
        Mode(needs=("term",), gives=("n",), one=count),
        waiting=f"{fact} on a non-ground term",
        reads="class",
    )


def _required_context(fact: str) -> GraphContext:
    ctx = _CURRENT.get()
    if ctx is None:
        raise NoGraphContext(
            f"{fact}: how a sub-graph is used is a fact about the graph being "
            f"rewritten, and no graph was given.  relations.normalize, equivalents, best "
            f"and the compile-time pass give it; to run a relation with kanren.run, wrap "
            f"the run in `with graph_bridge.graph_context(outputs):`"
        )
    return ctx


def _uses_of(t: Any, fact: str, read: Callable[[GraphContext, Variable], int]) -> tuple[int] | None:
    """``(read(context, variable),)`` for the variable the ground term ``t`` stands for.

    A term the relation built is a new variable, used once by the term that
    holds it: ``(1,)``.  ``None`` when ``t`` stands for no variable.
    """
    if _built_by_relation(t):
        return (1,)
    v = term_variable(t)
    if v is None:
        return None
    return (read(_required_context(fact), v),)


def use_holds(t: Any, fact: str, test: Callable[[GraphContext, Variable], bool]) -> bool:
    """Whether the yes/no use fact ``test`` holds of the ground term ``t``.

    A term the relation built is a new variable (one use) and passes.  A
    refusal is noted in the context (``GraphContext.loosened``).
    """
    if _built_by_relation(t):
        return True
    v = term_variable(t)
    if v is None:
        return False
    ctx = _required_context(fact)
    if test(ctx, v):
        return True
    ctx.refused(v)
    return False


def use_fact(term: Any, fact: str, test: Callable[[GraphContext, Variable], bool]) -> ModedGoal:
    """The goal that the yes/no use fact ``test(context, variable)`` holds of ``term`` (waits while it is not ground).

    Rules state their sharing policies with it (``relations.patterns.sharing``).
    """

    def check(t):
        return () if use_holds(t, fact, test) else None

    return moded(
        fact,
        {"term": term},
        Mode(needs=("term",), gives=(), one=check),
        waiting=f"{fact} on a non-ground term",
        reads="class",
    )


def elementwise_useso(term: Any):
    """Every use of ``term`` is by an Elemwise or a reduction (none is a graph output)."""
    return use_fact(term, "elementwise_useso", lambda ctx, v: ctx.other_uses(v) == 0)


def single_useo(term: Any):
    """``term`` is used once in the graph being rewritten (see :func:`useso`).

    The guard of every rule that pushes an Elemwise through the node of
    ``term``: with a second use, the old node would stay for it and the
    rewrite would add a copy.
    """
    return use_fact(term, "single_useo", lambda ctx, v: ctx.uses(v) == 1)
