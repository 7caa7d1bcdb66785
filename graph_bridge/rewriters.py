"""Adapters from a normalizing function to PyTensor's rewriter machinery."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytensor.compile import optdb
from pytensor.graph.basic import Variable
from pytensor.graph.features import ReplaceValidate
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import GraphRewriter, NodeRewriter

__all__ = [
    "RelationalRewriter",
    "register_lowering",
    "register_node_lowering",
    "register_relational",
]

#: optdb position: after the first merge (0), before canonicalize (1).
POSITION = 0.5
#: optdb position of the lowering pass: after the relational pass, before ``useless`` (0.6).
LOWERING_POSITION = 0.55
#: optdb tags of the lowering pass: every compiling mode.
LOWERING_TAGS = ("fast_run", "fast_compile")


class RelationalRewriter(GraphRewriter):
    """Replace a FunctionGraph's outputs by ``normalize_fn(outputs)``."""

    def __init__(
        self,
        normalize_fn: Callable[[Sequence[Variable]], Sequence[Variable]],
        name: str = "relational",
        needed: Callable[[FunctionGraph], bool] | None = None,
    ) -> None:
        self.normalize_fn = normalize_fn
        self.name = name
        self.needed = needed

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        fgraph.attach_feature(ReplaceValidate())

    def apply(self, fgraph: FunctionGraph) -> None:
        if self.needed is not None and not self.needed(fgraph):
            return
        outs = list(fgraph.outputs)
        new = self.normalize_fn(outs)
        pairs = [
            (o, o.type.filter_variable(n) if n.type != o.type else n)
            for o, n in zip(outs, new)
            if o is not n
        ]
        if pairs:
            fgraph.replace_all_validate(pairs, reason=self.name)


def register_relational(
    normalize_fn: Callable[[Sequence[Variable]], Sequence[Variable]], name: str = "relational"
) -> RelationalRewriter:
    """Register ``normalize_fn`` in ``optdb`` under the tag ``name`` (off by default)."""
    existing = optdb.__db__.get(name)
    if existing:  # a re-import: keep the first registration
        return next(iter(existing))
    rewriter = RelationalRewriter(normalize_fn, name)
    optdb.register(name, rewriter, position=POSITION)
    return rewriter


def register_lowering(
    lower_fn: Callable[[Sequence[Variable]], Sequence[Variable]], name: str = "lower_explicit"
) -> RelationalRewriter:
    """Register ``lower_fn`` in ``optdb`` for every compiling mode (``fast_run``, ``fast_compile``).

    The toolkit's Ops are lowered to stock Ops before PyTensor's own
    rewrites and backends see the graph, and the patterns PyTensor would
    miscompile are restated (``graph_bridge.workarounds``).  It only acts on
    graphs the toolkit touched (:func:`graph_bridge.touched.is_touched`); any
    other graph costs one scan of its nodes and is left as it is.

    ``rewrite_graph`` queries do not run this pass; see
    :func:`register_node_lowering`.
    """
    existing = optdb.__db__.get(name)
    if existing:
        return next(iter(existing))
    from graph_bridge.touched import is_touched

    def needed(fgraph: FunctionGraph) -> bool:
        return is_touched(fgraph.apply_nodes)

    rewriter = RelationalRewriter(lower_fn, name, needed=needed)
    optdb.register(name, rewriter, *LOWERING_TAGS, position=LOWERING_POSITION)
    return rewriter


#: PyTensor's rewrite databases the node-level lowering is registered in (first, by name).
QUERY_DBS = ("canonicalize", "stabilize", "specialize")


def register_node_lowering(
    lower_fn: Callable[[Sequence[Variable]], Sequence[Variable]], name: str = "lower_explicit_node"
) -> NodeRewriter:
    """Register a node rewriter that lowers one explicit node in ``canonicalize``, ``stabilize``, ``specialize``.

    ``rewrite_graph(g, include=("canonicalize",))`` (and the same query with
    ``"stabilize"`` or ``"specialize"``) runs only those databases, not the
    ``optdb`` lowering pass, so each of them lowers explicit nodes itself: the
    rewriter tracks :class:`ExplicitElemwise` and :class:`ExplicitAlloc` only
    and costs nothing on other nodes.  The equilibrium then lets PyTensor's
    own rewrites see the stock Ops (``Softplus``, ``Softmax``, ``x*2 - x*2``).
    """
    from pytensor.graph.rewriting.basic import copy_stack_trace, node_rewriter

    from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise

    @node_rewriter([ExplicitElemwise, ExplicitAlloc])
    def lower_explicit_node(fgraph, node):
        if len(node.outputs) != 1:
            return None
        (new,) = lower_fn([node.outputs[0]])
        if new is node.outputs[0]:
            return None
        copy_stack_trace(node.outputs[0], new)
        return [new]

    for db_name in QUERY_DBS:
        db = optdb[db_name]
        if name in db.__db__:  # a re-import: keep the first registration
            return next(iter(db.__db__[name]))
        db.register(name, lower_explicit_node, "fast_run", "fast_compile", db_name)
    return lower_explicit_node
