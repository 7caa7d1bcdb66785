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

from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

from pytensor.graph.basic import Variable

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
from relations.search import (
    as_variables,
    check_count,
    check_timeout,
    elements_touched,
    equivalent_forms,
    normalize_variables,
)

__all__ = [
    "DEFAULT_RULES",
    "LOWERING_RULES",
    "best",
    "broadcast_shapeo",
    "equivalents",
    "lower",
    "match",
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
    they are.  Last, :func:`graph_bridge.workarounds.protect` restates bool
    ``add``/``mul`` as ``or``/``and`` and casts narrower add/mul chains, which
    PyTensor's canonicalizer and Numba's fused kernels would otherwise
    compute wrongly once a rewrite has put them next to each other.
    """
    outputs, single = as_variables(graph, "graph")
    lowered = normalize_variables(outputs, _LOWERING_INDEX, backward=True)
    return _same_structure(graph, single, protect(lowered))


def equivalents(
    graph: Any,
    limit: int | None = 20,
    depth: int = 2,
    timeout: float | None = None,
    rules: Any = None,
) -> Iterator[Any]:
    """Graphs equal to ``graph`` that the rules relate to it, lazily, fewest steps first.

    A step applies one relation of ``rules`` (default :data:`DEFAULT_RULES`)
    forward or backward at one node.  The search is breadth first from the
    input, up to ``depth`` steps; nodes are visited from the outputs down, the
    rules in order, at most ``relations.search.MAX_ANSWERS_PER_STEP`` answers
    each.  Every yielded graph is distinct from the input and from each
    earlier one (structurally), has the input's structure (a variable or a
    list), the same output types and the same values.  ``limit`` (``None``: no
    limit), ``depth`` and ``timeout`` (seconds) bound the work; the order is
    deterministic (except where ``timeout`` cuts it).

    Before/After (one step each way from ``sum(exp(x))``)::

        Sum(Exp(x))  ->  Sum(ExpandDims{axis=0}(Exp(x))), ...
    """
    limit = check_count(limit, "limit", allow_none=True)
    depth = check_count(depth, "depth")
    timeout = check_timeout(timeout)
    outputs, single = as_variables(graph, "graph")
    index = _index(rules)
    for form in equivalent_forms(outputs, index, limit, depth, timeout):
        yield _same_structure(graph, single, form)


def match(
    graph: Any, pattern: Any, depth: int = 2, limit: int | None = 100, rules: Any = None
) -> Iterator[dict]:
    """Substitutions under which ``pattern`` unifies with ``graph`` or an equivalent form.

    ``pattern`` is an etuple with logic variables (``etuplize(pt.add)`` as the
    head, ``unification.var()`` in the slots), as kanren users write them.
    ``graph`` itself is tried first, then :func:`equivalents` (``depth``,
    ``limit``).  Each answer maps the pattern's logic variables to PyTensor
    variables (sub-terms are reified); equal answers are given once.  This is
    unification modulo the rules.
    """
    from etuples.core import ExpressionTuple
    from unification import unify

    from graph_bridge import etuplize

    if not isinstance(graph, Variable):
        raise TypeError(f"graph must be a PyTensor Variable, got {type(graph).__name__}")
    if not isinstance(pattern, ExpressionTuple) and not _is_logic_var(pattern):
        raise TypeError(
            f"pattern must be an etuple (or a logic variable), got {type(pattern).__name__}"
        )
    depth = check_count(depth, "depth")
    limit = check_count(limit, "limit", allow_none=True)
    seen: list[dict] = []
    forms = chain([graph], equivalents(graph, limit=limit, depth=depth, rules=rules))
    for form in forms:
        s = unify(pattern, etuplize(form), {})
        if s is False:
            continue
        answer = {k: _evaluated(v) for k, v in s.items()}
        if any(_same_answer(answer, earlier) for earlier in seen):
            continue
        seen.append(answer)
        yield answer


def best(
    graph: Any,
    cost: Callable[[list[Variable]], float] | None = None,
    depth: int = 2,
    limit: int | None = 200,
    rules: Any = None,
) -> Any:
    """The cheapest of ``graph``, its normal form and its :func:`equivalents` under ``cost``.

    ``cost`` takes a list of output variables and returns a number; the
    default, :func:`relations.search.elements_touched`, estimates the elements
    every node writes from static shapes (an unknown length counts 16, so with
    no static shapes it ranks by node count weighted by rank).  The input
    itself is returned unless a form is strictly cheaper; ties keep the
    earlier (fewer steps) form.
    """
    if cost is not None and not callable(cost):
        raise TypeError(f"cost must be a callable, got {type(cost).__name__}")
    cost_fn = cost or elements_touched
    outputs, single = as_variables(graph, "graph")
    best_form, best_cost = graph, cost_fn(outputs)
    # the normal form is an equivalent however many steps away it is
    candidates = chain(
        [normalize(graph, rules)], equivalents(graph, limit=limit, depth=depth, rules=rules)
    )
    for form in candidates:
        c = cost_fn([form] if single else list(form))
        if c < best_cost:
            best_form, best_cost = form, c
    return best_form


def _evaluated(v: Any) -> Any:
    """A bound value as a PyTensor object: sub-terms become variables (or Ops)."""
    from etuples.core import ExpressionTuple

    from graph_bridge import is_ground

    if isinstance(v, ExpressionTuple) and is_ground(v):
        return v.evaled_obj
    return v


def _is_logic_var(x: Any) -> bool:
    from graph_bridge.terms import is_logic_var

    return is_logic_var(x)


def _same_answer(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    from pytensor.graph.basic import equal_computations

    for k in a:
        x, y = a[k], b[k]
        if x is y:
            continue
        if isinstance(x, Variable) and isinstance(y, Variable):
            if not equal_computations([x], [y]):
                return False
        elif x != y:
            return False
    return True


def _same_structure(graph: Any, single: bool, result: list) -> Any:
    if single:
        return result[0]
    return type(graph)(result) if isinstance(graph, tuple) else result


from graph_bridge.rewriters import (  # noqa: E402
    register_lowering,
    register_node_lowering,
    register_relational,
)
from graph_bridge.workarounds import protect  # noqa: E402

register_relational(lambda outs: normalize(list(outs)))
register_lowering(lambda outs: lower(list(outs)))
register_node_lowering(lambda outs: lower(list(outs)))
