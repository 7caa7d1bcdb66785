"""Everything that reads or builds PyTensor objects: terms, vocabulary, node readers, facts, Ops, rewriters.

``graph_bridge`` knows no rule; it builds on the PyTensor-free ``logic_core``
(its facts are moded goals), and ``relations`` builds on both.
"""

from pytensor.tensor.elemwise import Elemwise

from graph_bridge import dispatch as _dispatch  # noqa: F401  (registrations)
from graph_bridge import logic_views as _views  # noqa: F401  (installs the term views in the logic core)
from graph_bridge.context import (
    GraphContext,
    NoGraphContext,
    elementwise_useso,
    graph_context,
    single_useo,
    useso,
)
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise, explicit_alloc, explicit_elemwise
from graph_bridge.terms import (
    OutputOf,
    Term,
    TermError,
    elemwise_term,
    etuplize,
    node_term,
    op_term,
    reify,
    term,
    term_variable,
)
from graph_bridge.type_facts import broadcastableo, dtypeo, ndimo, same_typeo, typeo
from graph_bridge.vocabulary import (
    OpBuilder,
    builder_for,
    careduce_builders,
    in_vocabulary,
    register_op_class,
    register_op_family,
    register_stock_classes,
    register_whole_node_class,
    vocabulary,
)

register_stock_classes()
register_op_class(ExplicitElemwise)
register_op_class(ExplicitAlloc)
_dispatch.register_head_view(Elemwise, ExplicitElemwise, ("scalar_op",))

# batched Ops: Blockwise and every RandomVariable class, and their explicit forms
from pytensor.tensor.blockwise import Blockwise  # noqa: E402
from pytensor.tensor.random.op import RandomVariable  # noqa: E402

from graph_bridge.explicit_blockwise import ExplicitBlockwise, explicit_blockwise  # noqa: E402
from graph_bridge.random_variables import ExplicitRandomVariable, explicit_random_variable  # noqa: E402

register_op_class(Blockwise)
register_op_family(RandomVariable)
register_op_class(ExplicitBlockwise)
register_op_class(ExplicitRandomVariable)
_dispatch.register_head_view(Blockwise, ExplicitBlockwise, ("core_op", "signature"))
for _cls in (Blockwise, ExplicitBlockwise, RandomVariable, ExplicitRandomVariable):
    register_whole_node_class(_cls)

__all__ = [
    "GraphContext",
    "NoGraphContext",
    "graph_context",
    "elementwise_useso",
    "single_useo",
    "useso",
    "ExplicitAlloc",
    "ExplicitBlockwise",
    "ExplicitElemwise",
    "ExplicitRandomVariable",
    "explicit_blockwise",
    "explicit_random_variable",
    "explicit_alloc",
    "explicit_elemwise",
    "same_typeo",
    "OpBuilder",
    "OutputOf",
    "Term",
    "TermError",
    "broadcastableo",
    "builder_for",
    "careduce_builders",
    "dtypeo",
    "elemwise_term",
    "etuplize",
    "in_vocabulary",
    "ndimo",
    "node_term",
    "op_term",
    "reify",
    "register_op_class",
    "term",
    "term_variable",
    "typeo",
    "vocabulary",
]
