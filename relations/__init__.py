"""Relational rewrite rules for PyTensor graphs, and the calls that run them.

>>> import pytensor.tensor as pt, relations
>>> x = pt.vector("x")
>>> y = relations.normalize(pt.sum(pt.expand_dims(pt.exp(x), 0)))
>>> y.owner.inputs[0].owner.op
Exp

Importing this package registers the default rule set in PyTensor's
``optdb`` under the tag ``relational``.
"""

from __future__ import annotations

from typing import Any

import graph_bridge  # noqa: F401  (dispatch registrations, vocabulary)
from relations.broadcast import alloc_explicito, broadcast_shapeo, elemwise_explicito
from relations.dimshuffle import (
    careduce_dimshuffle_fullo,
    careduce_dimshuffle_partialo,
    dimshuffle_composeo,
    dimshuffle_identityo,
)
from relations.join import careduce_joino
from relations.lift import elemwise_alloco, elemwise_set_subtensoro, inc_zeros_as_seto
from relations.rules import RuleIndex, check_rules, rule
from relations.search import as_variables, normalize_variables

__all__ = [
    "DEFAULT_RULES",
    "LOWERING_RULES",
    "broadcast_shapeo",
    "lower",
    "normalize",
    "rule",
]

#: The rules ``normalize`` applies when given none, in the order it tries them.
DEFAULT_RULES: tuple = (
    careduce_joino,
    careduce_dimshuffle_fullo,
    careduce_dimshuffle_partialo,
    dimshuffle_identityo,
    dimshuffle_composeo,
    inc_zeros_as_seto,
    elemwise_set_subtensoro,
    elemwise_alloco,
    elemwise_explicito,
    alloc_explicito,
)

#: The rules ``lower`` runs backward: from the toolkit's Ops to stock PyTensor Ops.
LOWERING_RULES: tuple = (elemwise_explicito, alloc_explicito)

_DEFAULT_INDEX = RuleIndex(DEFAULT_RULES)
_LOWERING_INDEX = RuleIndex(LOWERING_RULES)


def _index(rules: Any) -> RuleIndex:
    if rules is None:
        return _DEFAULT_INDEX
    return RuleIndex(check_rules(rules, "rules"))


def normalize(graph: Any, rules: Any = None) -> Any:
    """Apply ``rules`` (default :data:`DEFAULT_RULES`) forward at every node until none applies.

    ``graph`` is a PyTensor variable or a list/tuple of them; the result has
    the same structure.  The input graph is not changed: rewritten nodes are
    new nodes, untouched sub-graphs are the original objects.  Each output
    keeps its dtype, ndim and broadcastable pattern.
    """
    outputs, single = as_variables(graph, "graph")
    return _same_structure(graph, single, normalize_variables(outputs, _index(rules)))


def lower(graph: Any) -> Any:
    """The graph with every Op the toolkit adds replaced by stock PyTensor Ops.

    This is :data:`LOWERING_RULES` run backward (right side known), at every
    node, bottom-up.  ``lower(normalize(g))`` has only stock Ops and computes
    what ``g`` computes; PyTensor's compilation runs it by itself (an
    ``optdb`` pass before ``canonicalize``), so explicit graphs compile as
    they are.
    """
    outputs, single = as_variables(graph, "graph")
    return _same_structure(graph, single, normalize_variables(outputs, _LOWERING_INDEX, backward=True))


def _same_structure(graph: Any, single: bool, result: list) -> Any:
    if single:
        return result[0]
    return type(graph)(result) if isinstance(graph, tuple) else result


from graph_bridge.rewriters import register_lowering, register_relational  # noqa: E402

register_relational(lambda outs: normalize(list(outs)))
register_lowering(lambda outs: lower(list(outs)))
