"""One namespace for writing rules: ``from relations import lang``.

A pattern rule needs ``lang.p`` (the patterns), ``lang.rewrite_rule`` and,
for computed props, a few ``where=`` goals; a hand-written relation needs
``lang.var``, ``lang.eq``, ``lang.term``, ``lang.lall`` and ``lang.rule``,
and ``lang.moded``/``lang.Mode`` for goals of its own.  Everything here is
also importable from its home module; this is the list to read.

- variables and goals: :func:`var` (a logic variable; named, it is a
  pattern variable too), :func:`eq`, :func:`lall` (``lall_ready``: the
  conjunction that waits for unbound variables; ``kanren.lall`` cannot, and
  the planner refuses it), :func:`term`, :func:`op_term`,
  :func:`elemwise_term`, :class:`NotReady`;
- goals of your own: :func:`moded`, :class:`Mode` (a mode gives a tuple per
  answer; ``one=`` returns one tuple, ``()`` for a check that holds, or
  ``None`` for no answer), :func:`read_or_build`;
- families and equalities: :class:`Family` (``fam.equal(name, lhs, rhs, guard, doc)``
  declares an equality once, run both ways in saturation; ``fam.rewrite``
  a directed rule), guards over pattern variables (:class:`Guard`,
  :func:`is_float`, :func:`is_integer`, :func:`same_type_of`,
  :func:`has_ndim`, :func:`is_scalar`, :func:`is_constant`,
  :func:`constant_where`, and over value ranges :func:`positive`,
  :func:`nonnegative`, :func:`negative`, :func:`nonpositive`,
  :func:`nonzero`, :func:`within`; :func:`guard` makes your own),
  combined with ``&``, ``|``, ``~``;
- rules: :func:`rule`, :func:`rewrite_rule` (``choice=True``: a rewrite
  for saturation only, as ``RULESETS["choices"]``), :mod:`p <relations.patterns>`
  (:class:`Reduction`: what ``p.careduce``'s head variable binds),
  measures (:func:`count`, :func:`nodes`, :func:`below`,
  :func:`elemwise_above`, :func:`above`, :func:`paths_below`,
  :func:`weighted_operands`, :class:`Measure`);
- facts for ``where=`` and relations: type facts (:func:`ndimo`,
  :func:`dtypeo`, :func:`broadcastableo`, :func:`typeo`,
  :func:`same_typeo`), use facts (:func:`single_useo`,
  :func:`movable_viewo`, :func:`movable_eacho`, :func:`useso`,
  :func:`graph_context`), broadcasting facts (:func:`scalar_likeo`,
  :func:`fully_broadcastableo`, :func:`cast_likeo`), props
  (:func:`axes_througho`, :func:`added_dimso`, :func:`valid_ordero`), the
  heads of reductions (:func:`careduce_heado`, :func:`careduce_partso`,
  :func:`full_reductiono`);
- a rule's plans: :func:`forward_matcher`, :func:`backward_matcher`
  (``.source`` prints the plan ``normalize`` runs);
- node readers: :func:`term_variable` (a term's PyTensor variable),
  :func:`alloc_parts`, :func:`join_parts`, :func:`scalar_of`,
  :func:`is_expansion`.
"""

from __future__ import annotations

from graph_bridge.context import graph_context, single_useo, useso
from graph_bridge.measures import Measure, above, below, count, elemwise_above, nodes, paths_below, weighted_operands
from graph_bridge.nodes import alloc_parts, is_expansion, join_parts, read_or_build, scalar_of
from graph_bridge.terms import elemwise_term, node_term, op_term, term, term_variable
from graph_bridge.type_facts import broadcastableo, dtypeo, ndimo, same_type, same_typeo, typeo
from logic_core.goals import NotReady, lall_ready
from logic_core.moded import Mode, ModedGoal, moded
from logic_core.unifier import eq
from relations import patterns as p
from relations.patterns import Reduction, var
from relations.patterns.axes import careduce_heado, careduce_partso, full_reductiono
from relations.patterns.family import Equality, Family
from relations.patterns.guards import (
    Guard,
    constant_where,
    guard,
    has_ndim,
    is_constant,
    is_float,
    is_integer,
    is_scalar,
    negative,
    nonnegative,
    nonpositive,
    nonzero,
    positive,
    real,
    within,
)
from relations.patterns.guards import (
    same_type as same_type_of,
)
from relations.patterns.orders import valid_ordero
from relations.patterns.plans import backward_matcher, forward_matcher
from relations.patterns.props import added_dimso, axes_througho
from relations.patterns.relation import rule
from relations.patterns.rewrite_rule import rewrite_rule
from relations.patterns.sharing import movable_eacho, movable_viewo
from relations.rules.lift.operand_goals import cast_likeo, fully_broadcastableo, scalar_likeo

#: The conjunction of a rule's goals (``lall_ready``): each goal runs once its inputs are bound.
lall = lall_ready

__all__ = [
    "Equality",
    "Family",
    "Guard",
    "constant_where",
    "guard",
    "has_ndim",
    "is_constant",
    "is_float",
    "is_integer",
    "is_scalar",
    "negative",
    "nonnegative",
    "nonpositive",
    "nonzero",
    "positive",
    "real",
    "same_type_of",
    "within",
    "Measure",
    "Mode",
    "ModedGoal",
    "NotReady",
    "Reduction",
    "above",
    "added_dimso",
    "alloc_parts",
    "axes_througho",
    "backward_matcher",
    "below",
    "broadcastableo",
    "careduce_heado",
    "careduce_partso",
    "cast_likeo",
    "count",
    "dtypeo",
    "elemwise_above",
    "elemwise_term",
    "eq",
    "forward_matcher",
    "full_reductiono",
    "fully_broadcastableo",
    "graph_context",
    "is_expansion",
    "join_parts",
    "lall",
    "moded",
    "movable_eacho",
    "movable_viewo",
    "ndimo",
    "node_term",
    "nodes",
    "op_term",
    "p",
    "paths_below",
    "read_or_build",
    "rewrite_rule",
    "rule",
    "same_type",
    "same_typeo",
    "scalar_likeo",
    "scalar_of",
    "single_useo",
    "term",
    "term_variable",
    "typeo",
    "useso",
    "valid_ordero",
    "var",
    "weighted_operands",
]
