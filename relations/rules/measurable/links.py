"""Inverse links of bounded variables, as PyMC derives them: the log-odds of a variable on ``(0, 1)``.

``log(b / (1 - b))`` reads ``b`` twice, so PyMC's derivation refuses it
("Logprob method not implemented for Log"); ``-log(1 / b - 1)`` is the
same function of ``b`` read once, a chain of measurable transforms.  The
identities hold at every float ``b`` (both sides are ``nan`` outside
``[0, 1]``, ``-inf`` at 0 and ``inf`` at 1).  One line each, directed to the
form PyMC derives; docs/measurable.md explains each under its name.
"""

from __future__ import annotations

from graph_bridge.measures import Measure
from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import real
from relations.rules.measurable.rewrites import input_paths

__all__ = ["LINKS"]

b = p.var("b")
ODDS = p.neg(p.log(p.sub(p.true_div(1, b), 1)))

#: The family (``measurable_links``), part of ``MEASURABLE_RULES``; measure: ``b`` is read once.
LINKS = Family(
    "measurable_links",
    docs="measurable.md",
    measure=Measure("paths from the output to its non-constant inputs", input_paths),
)
rw = LINKS.rewrite

rw("log_odds_divo", p.log(p.true_div(b, p.sub(1, b))), ODDS, real(b),
   "The log-odds ``log(b / (1 - b))`` (``logit``) is ``-log(1 / b - 1)``.")
rw("log_odds_log1po", p.sub(p.log(b), p.log1p(p.neg(b))), ODDS, real(b),
   "The log-odds ``log(b) - log1p(-b)`` is ``-log(1 / b - 1)``.")
rw("log_odds_logo", p.sub(p.log(b), p.log(p.sub(1, b))), ODDS, real(b),
   "The log-odds ``log(b) - log(1 - b)`` is ``-log(1 / b - 1)``.")
