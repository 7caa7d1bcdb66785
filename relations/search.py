"""Where the engine and the queries used to live together; their names, for existing imports.

The jobs are in their own modules now: :mod:`relations.engine` (the
normalizing fixpoint), :mod:`relations.form_search` (bounded breadth-first
search over forms), :mod:`relations.costs` (``elements_touched``),
:mod:`relations.arguments` (the public calls' argument checks) and
:mod:`graph_bridge.traverse` (graph walks and node collectors).
"""

from __future__ import annotations

from graph_bridge.facts import same_type
from graph_bridge.traverse import owned_variables
from relations.arguments import as_variables, check_count, check_timeout
from relations.costs import elements_touched
from relations.engine import (
    MAX_PASSES,
    Normalizer,
    answers,
    copy_trace,
    first_rewrite,
    log,
    normalize_variables,
    replacements,
)
from relations.form_search import (
    MAX_ANSWERS_PER_STEP,
    StructuralKeys,
    equivalent_forms,
    one_step,
    replace_in,
)

__all__ = [
    "MAX_ANSWERS_PER_STEP",
    "MAX_PASSES",
    "Normalizer",
    "StructuralKeys",
    "answers",
    "as_variables",
    "check_count",
    "check_timeout",
    "copy_trace",
    "elements_touched",
    "equivalent_forms",
    "first_rewrite",
    "log",
    "normalize_variables",
    "one_step",
    "owned_variables",
    "replace_in",
    "replacements",
    "same_type",
]
