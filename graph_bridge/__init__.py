"""Everything that reads or builds PyTensor objects: terms, vocabulary, node readers, facts, Ops, rewriters.

``graph_bridge`` knows no rule; it builds on the PyTensor-free ``logic_core``
(its facts are moded goals), and ``relations`` builds on both.
"""

from graph_bridge.context import (
    GraphContext,
    NoGraphContext,
    elementwise_useso,
    graph_context,
    single_useo,
    useso,
)
from graph_bridge.explicit_blockwise import ExplicitBlockwise, explicit_blockwise
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise, explicit_alloc, explicit_elemwise
from graph_bridge.random_variables import ExplicitRandomVariable, explicit_random_variable
from graph_bridge.standard_vocabulary import register_standard_vocabulary
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

# the stock classes, the explicit Ops and the batched Ops (graph_bridge.standard_vocabulary): once
register_standard_vocabulary()

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
    "register_op_family",
    "register_stock_classes",
    "register_whole_node_class",
    "term",
    "term_variable",
    "typeo",
    "vocabulary",
]
