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

__all__ = ["DEFAULT_RULES", "normalize", "rule"]

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
)

_DEFAULT_INDEX = RuleIndex(DEFAULT_RULES)


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
    result = normalize_variables(outputs, _index(rules))
    if single:
        return result[0]
    return type(graph)(result) if isinstance(graph, tuple) else result


from graph_bridge.rewriters import register_relational  # noqa: E402

register_relational(lambda outs: normalize(list(outs)))
