"""Adapters from a normalizing function to PyTensor's rewriter machinery."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pytensor.compile import optdb
from pytensor.graph.basic import Variable
from pytensor.graph.features import ReplaceValidate
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import GraphRewriter

__all__ = ["RelationalRewriter", "register_lowering", "register_relational"]

#: optdb position: after the first merge (0), before canonicalize (1).
POSITION = 0.5
#: optdb position of the lowering pass: after the relational pass, before ``useless`` (0.6).
LOWERING_POSITION = 0.55


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
    miscompile are restated (``graph_bridge.workarounds``); a graph with
    neither costs one scan of its nodes.
    """
    existing = optdb.__db__.get(name)
    if existing:
        return next(iter(existing))
    from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise
    from graph_bridge.workarounds import has_hazards

    def needed(fgraph: FunctionGraph) -> bool:
        return any(
            isinstance(n.op, (ExplicitElemwise, ExplicitAlloc)) for n in fgraph.apply_nodes
        ) or has_hazards(fgraph.outputs)

    rewriter = RelationalRewriter(lower_fn, name, needed=needed)
    optdb.register(name, rewriter, "fast_run", "fast_compile", position=LOWERING_POSITION)
    return rewriter
