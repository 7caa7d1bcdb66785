"""Adapters from a normalizing function to PyTensor's rewriter machinery."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pytensor import config
from pytensor.compile import optdb
from pytensor.graph.basic import Apply, Variable
from pytensor.graph.features import ReplaceValidate
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import GraphRewriter, NodeRewriter

from graph_bridge.traverse import bottom_up

__all__ = [
    "RelationalRewriter",
    "register_lowering",
    "register_node_lowering",
    "register_relational",
    "replay_steps",
]

#: optdb position: after the first merge (0), before canonicalize (1).
POSITION = 0.5
#: optdb position of the lowering pass: after the relational pass, before ``useless`` (0.6).
LOWERING_POSITION = 0.55
#: optdb tags of the lowering pass: every compiling mode.
LOWERING_TAGS = ("fast_run", "fast_compile")


class RelationalRewriter(GraphRewriter):
    """Replace a FunctionGraph's outputs by ``normalize_fn(outputs)`` (then ``refine_fn``), at once.

    The outputs are replaced in one ``replace_all_validate`` whose reason is
    ``name`` (with ``sites_fn``, only the rewritten variables: see below).  With ``reports_steps`` and
    ``config.optimizer_verbose`` on,
    ``normalize_fn(outputs, on_rewrite=callback)`` reports each rewrite as
    ``callback(rule, before, after)``, and each one is applied to the
    FunctionGraph as its own ``fgraph.replace`` whose ``reason`` is the
    rule's name, as PyTensor's own rewriters do: each prints the rule's
    name, and the fgraph's features (``History``, ``on_change_input``
    callbacks) see it.  (Off, the replay is not paid: it costs about as
    much as the rewriting.)

    ``refine_fn(outputs, normal, sites)`` (if given) takes the original
    outputs, ``normalize_fn``'s and ``sites_fn``'s sites (``None`` without
    ``sites_fn`` or under the verbose replay) and returns the outputs to
    compile (the extracted form of the ``relational`` pass, or ``outputs``
    themselves); where they differ from ``normal`` the replacement's reason
    is ``name + "_extract"`` after a replay.

    ``in_place(fgraph)`` (if given) runs first and returns whether it did the
    pass's work on the fgraph itself (then ``normalize_fn`` is not called).

    ``sites_fn(outputs)`` (if given, instead of ``normalize_fn`` outside the
    verbose replay) returns the normal form and the pairs ``(old, new)``
    that take the fgraph to it where rules rewrote it
    (``relations.compile.site_replacements``): those are replaced, readers first, and every
    other node stays as it is; the result is checked against the normal
    form, and on a mismatch the fgraph is reverted and its outputs replaced.
    """

    def __init__(
        self,
        normalize_fn: Callable[..., Sequence[Variable]],
        name: str = "relational",
        needed: Callable[[FunctionGraph], bool] | None = None,
        reports_steps: bool = False,
        refine_fn: Callable[..., Sequence[Variable]] | None = None,
        in_place: Callable[[FunctionGraph], bool] | None = None,
        sites_fn: Callable[[Sequence[Variable]], tuple[list[Variable], list[tuple[Variable, Variable]]]] | None = None,
    ) -> None:
        self.normalize_fn = normalize_fn
        self.in_place = in_place
        self.sites_fn = sites_fn
        self.name = name
        self.needed = needed
        self.reports_steps = reports_steps
        self.refine_fn = refine_fn

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph: FunctionGraph) -> None:
        if self.needed is not None and not self.needed(fgraph):
            return
        if self.in_place is not None and self.in_place(fgraph):
            return
        outs = list(fgraph.outputs)
        reason = self.name
        if self.reports_steps and config.optimizer_verbose:
            steps: list[tuple[Any, Variable, Variable]] = []
            new = self.normalize_fn(outs, on_rewrite=lambda *step: steps.append(step))
            final = new if self.refine_fn is None else self.refine_fn(outs, new, None)
            if all(a is b for a, b in zip(outs, final)):
                return  # the graph as it came is what to compile: no step is replayed
            if steps and self._replayed(fgraph, steps, new):
                if all(a is b for a, b in zip(new, final)):
                    return
                outs, reason = list(fgraph.outputs), f"{self.name}_extract"
        else:
            sites = None
            if self.sites_fn is not None:
                new, sites = self.sites_fn(outs)
            else:
                new = self.normalize_fn(outs)
            final = new if self.refine_fn is None else self.refine_fn(outs, new, sites)
            if sites is not None and all(a is b for a, b in zip(new, final)):
                if self._sites_replaced(fgraph, sites, final):
                    return
        pairs = [(o, o.type.filter_variable(n) if n.type != o.type else n) for o, n in zip(outs, final) if o is not n]
        if pairs:
            fgraph.replace_all_validate(pairs, reason=reason)

    def _sites_replaced(
        self, fgraph: FunctionGraph, sites: Sequence[tuple[Variable, Variable]], final: Sequence[Variable]
    ) -> bool:
        """Whether replacing ``sites`` gave the fgraph the outputs ``final`` (else it is reverted)."""
        from pytensor.graph.basic import equal_computations

        if not sites:
            return all(a is b for a, b in zip(fgraph.outputs, final))
        chk = fgraph.checkpoint()  # (replace_all_validate would take its own: this one must be the last)
        try:
            for o, n in sites:
                fgraph.replace(o, n, reason=self.name)  # (which converts n to o's type)
            fgraph.validate()
            if equal_computations(list(fgraph.outputs), list(final)):
                _mark_readers(fgraph, [n for _, n in sites])
                return True
        except Exception:  # noqa: BLE001 - fall back to replacing the outputs
            pass
        fgraph.revert(chk)
        return False

    @staticmethod
    def _replayed(
        fgraph: FunctionGraph, steps: Sequence[tuple[Any, Variable, Variable]], new: Sequence[Variable]
    ) -> bool:
        """Whether ``steps`` replayed onto ``fgraph`` give ``new`` (else the fgraph is reverted)."""
        chk = fgraph.checkpoint()
        try:
            replay_steps(fgraph, steps, new)
            return True
        except Exception:  # noqa: BLE001 - fall back to replacing the outputs
            fgraph.revert(chk)
            return False


def _mark_readers(fgraph: FunctionGraph, new: Sequence[Variable]) -> None:
    """Tag the nodes that read a replacement as rewritten (``graph_bridge.provenance``): an old node
    whose input a site replacement changed is the toolkit's work, and the lowering pass protects it."""
    from graph_bridge.provenance import TAG

    for n in new:
        if n.owner is not None:
            setattr(n.owner.tag, TAG, True)
        for client, _ in fgraph.clients.get(n, ()):
            if isinstance(client, Apply):
                setattr(client.tag, TAG, True)


def _fgraph_node(node: Apply, ins: list[Variable], trace: Any, clients: Any) -> Apply | None:
    """The fgraph's node with ``node``'s Op over ``ins`` (of duplicates, the one whose outputs hold ``trace``)."""
    found = None
    for client, _ in clients.get(ins[0], ()):
        if (
            isinstance(client, Apply)
            and client.op == node.op
            and len(client.inputs) == len(ins)
            and all(a is b for a, b in zip(client.inputs, ins))
            and len(client.outputs) == len(node.outputs)
        ):
            found = client
            # of duplicates, the node ``node`` was cloned from (its tag was copied)
            if getattr(client.outputs[0].tag, "trace", None) is trace:
                break
    return found


def replay_steps(
    fgraph: FunctionGraph,
    steps: Sequence[tuple[Any, Variable, Variable]],
    outputs: Sequence[Variable],
) -> None:
    """Apply a normalization's ``(rule, before, after)`` steps to ``fgraph``, one replace each.

    The steps were taken on a rebuilt copy of the graph: a node whose inputs
    were rewritten is a clone there.  Each copy-side variable is mapped to
    the fgraph's: a clone to the fgraph node with the same Op over the
    (already replaced) inputs, a node a rule built to a new node over
    fgraph inputs (it keeps its tag, so its stack trace).  The fgraph is then
    validated, and its outputs checked against ``outputs`` (the normal
    form); a mismatch raises, and the caller reverts.
    """
    in_fg = fgraph.variables
    clients = fgraph.clients
    mapped: dict[Variable, Variable] = {}  # (a Variable hashes by identity)

    def to_fg(root: Variable) -> Variable:
        for u in bottom_up([root], lambda w: w in mapped or w in in_fg):
            node = u.owner
            if node is None:
                mapped[u] = u
                continue
            ins = [mapped.get(i, i) for i in node.inputs]
            found = _fgraph_node(node, ins, getattr(u.tag, "trace", None), clients) if ins and ins[0] in in_fg else None
            if found is None:
                if all(a is b for a, b in zip(ins, node.inputs)):
                    found = node
                else:
                    found = node.clone_with_new_inputs(ins, strict=False)
            for o, n in zip(node.outputs, found.outputs):
                mapped[o] = n
        return mapped.get(root, root)

    for rule, before, after in steps:
        b = to_fg(before)
        if b not in in_fg and before in mapped:  # mapped before an earlier replace
            del mapped[before]
            b = to_fg(before)
        a = to_fg(after)
        if b is a or b not in in_fg:
            continue
        converted = b.type.filter_variable(a, allow_convert=True)
        if converted is not a:  # a static shape refined or relaxed: the fgraph holds this one
            mapped[after] = converted
        siblings = _sibling_pairs(b, a, in_fg)
        fgraph.replace(b, converted, reason=getattr(rule, "__name__", str(rule)))
        for old, new in siblings:  # a rule that rewrote a whole multi-output node
            if old in in_fg:
                fgraph.replace(
                    old, old.type.filter_variable(new, allow_convert=True), reason=getattr(rule, "__name__", str(rule))
                )
    fgraph.validate()
    for i, n in enumerate(outputs):
        if fgraph.outputs[i] is not to_fg(n):
            raise ValueError("the replayed steps do not give the normal form")


def _sibling_pairs(before: Variable, after: Variable, in_fg: Any) -> list[tuple[Variable, Variable]]:
    """The other outputs of ``before``'s node and ``after``'s, pairwise, when both nodes have several."""
    b_node, a_node = before.owner, after.owner
    if b_node is None or a_node is None or len(b_node.outputs) < 2 or len(a_node.outputs) != len(b_node.outputs):
        return []
    return [(o, n) for o, n in zip(b_node.outputs, a_node.outputs) if o is not before and o in in_fg]


def register_relational(
    normalize_fn: Callable[..., Sequence[Variable]],
    name: str = "relational",
    reports_steps: bool = False,
    refine_fn: Callable[..., Sequence[Variable]] | None = None,
    sites_fn: Callable[[Sequence[Variable]], tuple[list[Variable], list[tuple[Variable, Variable]]]] | None = None,
) -> RelationalRewriter:
    """Register ``normalize_fn`` in ``optdb`` under the tag ``name`` (off by default).

    ``reports_steps``: ``normalize_fn`` takes ``on_rewrite``, and under
    ``config.optimizer_verbose`` the pass replaces node by node, each with
    the rule's name as the reason.  ``refine_fn``, ``sites_fn``: see :class:`RelationalRewriter`.
    """
    existing = optdb.__db__.get(name)
    if existing:  # a re-import: keep the first registration
        return next(iter(existing))
    rewriter = RelationalRewriter(
        normalize_fn, name, reports_steps=reports_steps, refine_fn=refine_fn, sites_fn=sites_fn
    )
    optdb.register(name, rewriter, position=POSITION)
    return rewriter


def register_lowering(
    lower_fn: Callable[[Sequence[Variable]], Sequence[Variable]],
    name: str = "lower_explicit",
    in_place: Callable[[FunctionGraph], bool] | None = None,
) -> RelationalRewriter:
    """Register ``lower_fn`` in ``optdb`` for every compiling mode (``fast_run``, ``fast_compile``).

    The toolkit's Ops are lowered to stock Ops before PyTensor's own
    rewrites and backends see the graph, and the patterns PyTensor would
    miscompile are restated (``relations.compile.workarounds``).  It only acts on
    graphs the toolkit touched (:func:`graph_bridge.provenance.is_touched`) that
    hold a toolkit Op or such a pattern; any other graph costs a scan of
    its nodes and is left as it is.

    ``in_place(fgraph)`` (if given) may do the work on the fgraph itself
    (:class:`RelationalRewriter`).  ``rewrite_graph`` queries do not run
    this pass; see :func:`register_node_lowering`.
    """
    existing = optdb.__db__.get(name)
    if existing:
        return next(iter(existing))
    from graph_bridge.provenance import is_touched

    def needed(fgraph: FunctionGraph) -> bool:
        return is_touched(fgraph.apply_nodes) and _lowering_acts(fgraph)

    rewriter = RelationalRewriter(lower_fn, name, needed=needed, in_place=in_place)
    optdb.register(name, rewriter, *LOWERING_TAGS, position=LOWERING_POSITION)
    return rewriter


def _lowering_acts(fgraph: FunctionGraph) -> bool:
    """Whether lowering would change a touched graph: it holds a toolkit Op, or a pattern
    :mod:`relations.compile.workarounds` restates (else the pass costs a scan, not a backward normalize)."""
    from graph_bridge.provenance import has_toolkit_ops
    from relations.compile.workarounds import nodes_have_hazards

    return has_toolkit_ops(fgraph.apply_nodes) or nodes_have_hazards(fgraph.apply_nodes)


#: PyTensor's rewrite databases the node-level lowering is registered in (first, by name).
QUERY_DBS = ("canonicalize", "stabilize", "specialize")


def register_node_lowering(
    lower_fn: Callable[[Sequence[Variable]], Sequence[Variable]], name: str = "lower_explicit_node"
) -> NodeRewriter:
    """Register a node rewriter that lowers one explicit node in ``canonicalize``, ``stabilize``, ``specialize``.

    ``rewrite_graph(g, include=("canonicalize",))`` (and the same query with
    ``"stabilize"`` or ``"specialize"``) runs only those databases, not the
    ``optdb`` lowering pass, so each of them lowers explicit nodes itself: the
    rewriter tracks the toolkit's explicit Ops only
    and costs nothing on other nodes.  The equilibrium then lets PyTensor's
    own rewrites see the stock Ops (``Softplus``, ``Softmax``, ``x*2 - x*2``).
    The batched Ops (``ExplicitBlockwise``, ``ExplicitRandomVariable``) are
    lowered there too; a multi-output node is replaced whole.
    """
    from pytensor.graph.rewriting.basic import copy_stack_trace, node_rewriter

    from graph_bridge.explicit_blockwise import ExplicitBlockwise
    from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise
    from graph_bridge.random_variables import ExplicitRandomVariable

    @node_rewriter([ExplicitElemwise, ExplicitAlloc, ExplicitBlockwise, ExplicitRandomVariable])
    def lower_explicit_node(fgraph, node):
        out = node.outputs[-1]  # an RV's draw, the only output of the others
        (new,) = lower_fn([out])
        if new is out:
            return None
        if len(node.outputs) == 1:
            copy_stack_trace(out, new)
            return [new]
        if new.owner is None or len(new.owner.outputs) != len(node.outputs):
            return None
        for o, n in zip(node.outputs, new.owner.outputs):
            copy_stack_trace(o, n)
        return list(new.owner.outputs)

    for db_name in QUERY_DBS:
        db = optdb[db_name]
        if name in db.__db__:  # a re-import: keep the first registration
            return next(iter(db.__db__[name]))
        db.register(name, lower_explicit_node, "fast_run", "fast_compile", db_name)
    return lower_explicit_node
