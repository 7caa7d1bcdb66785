"""A relational equality-saturation engine: e-nodes without PyTensor nodes, semi-naive e-matching.

Rooms, as egg has them:

- :mod:`.egraph`: union-find, hash-cons of e-nodes ``(op id, child class ids...)``, per-class
  parents, egg's deferred rebuild, types per class inferred once per (Op, input types), union
  justifications (a proof forest);
- :mod:`.analysis`: e-class analyses (type, constant, sign, interval) merged on union;
- :mod:`.query`: a rule's left side compiled once to a conjunctive query over per-Op tables,
  answered by backtracking join, semi-naively;
- :mod:`.runner`: :class:`Runner` with absolute :class:`Limits`, egg's BackoffScheduler and a
  :class:`Report`;
- :mod:`.extract`: a bottom-up tree-cost extractor that reifies the chosen form to PyTensor.

Only plain pattern rules (``p.var``, ``p.const`` and the scalar Elemwise builders ``p.add``,
``p.exp``, ...) run here; rules with goal nodes or ``where=`` goals are refused by name.
"""

from relations.saturation.engine.analysis import nonnegative, nonzero, positive
from relations.saturation.engine.egraph import EGraph
from relations.saturation.engine.extract import extract
from relations.saturation.engine.query import QueryRule, UnsupportedRule, query_rule
from relations.saturation.engine.runner import BackoffScheduler, Limits, Report, Runner

__all__ = [
    "BackoffScheduler",
    "EGraph",
    "Limits",
    "QueryRule",
    "Report",
    "Runner",
    "UnsupportedRule",
    "extract",
    "nonnegative",
    "nonzero",
    "positive",
    "query_rule",
]
