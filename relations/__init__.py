"""Relational rewrite rules for PyTensor graphs, and the calls that run them.

>>> import pytensor.tensor as pt, relations
>>> x = pt.vector("x")
>>> y = relations.normalize(pt.sum(pt.expand_dims(pt.exp(x), 0)))
>>> y.owner.inputs[0].owner.op
Exp

Importing this package registers the default rule set in PyTensor's
``optdb`` under the tag ``relational`` (off by default), and the lowering of
the toolkit's Ops (on in every mode, and inside PyTensor's ``canonicalize``,
``stabilize`` and ``specialize`` databases).  Both act only on graphs the
toolkit touched: any other graph compiles and rewrites as without this package.
The registrations are :func:`relations.compile.defaults.register_all`, called
once here (a second call registers nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

from graph_bridge.provenance import mark_rewritten
from graph_bridge.rebroadcast import rebroadcast_outputs
from relations import lang, patterns
from relations.arguments import Graph, as_variables, same_structure
from relations.compile.compile_modes import ACCURATE_TAGS, DEFAULT_TAGS, mode, register
from relations.compile.defaults import register_all
from relations.compile.lowering import lower
from relations.greedy.fixpoint import normalize_variables
from relations.patterns.relation import Relation, rule
from relations.patterns.rewrite_rule import rewrite_rule
from relations.queries.drawing import draw
from relations.queries.explain import explain
from relations.queries.explanations import Explanation, Proof, SaturatedExplanation, Step
from relations.queries.progress import Progress
from relations.queries.proofs import prove
from relations.queries.search import Found, best, equivalents, find, match
from relations.queries.verify import verify
from relations.queries.why_not import WhyNot, why_not
from relations.rules import (
    COMPILE_RULES,
    DEFAULT_RULES,
    LOWERING_RULES,
    RULESETS,
    greedy_index,
)
from relations.rules.broadcast import broadcast_shapeo
from relations.saturation.egraph import EGraph, Limits, Report, saturate
from relations.saturation.foreign import resolve_rewriters
from relations.saturation.stabilizing import Stabilized, stabilize

__all__ = [
    "ACCURATE_TAGS",
    "COMPILE_RULES",
    "DEFAULT_RULES",
    "DEFAULT_TAGS",
    "EGraph",
    "Limits",
    "Report",
    "LOWERING_RULES",
    "Found",
    "Graph",
    "Progress",
    "RULESETS",
    "__version__",
    "best",
    "Explanation",
    "Proof",
    "SaturatedExplanation",
    "Stabilized",
    "Step",
    "broadcast_shapeo",
    "draw",
    "equivalents",
    "explain",
    "find",
    "lang",
    "lower",
    "match",
    "mode",
    "normalize",
    "patterns",
    "prove",
    "stabilize",
    "rebroadcast",
    "register",
    "resolve_rewriters",
    "rewrite_rule",
    "rule",
    "saturate",
    "verify",
    "why_not",
    "WhyNot",
]

#: The package's version (the one in ``setup.cfg``).
__version__ = "0.1.0"

#: A rule set: relations ``rel(lhs, rhs)``, in the order they are tried.
Rules = Sequence[Relation]


def normalize(graph: Graph, rules: Rules | None = None) -> Graph:
    """Apply ``rules`` (default :data:`DEFAULT_RULES`) forward at every node until none applies.

    ``graph`` is a PyTensor variable or a list/tuple of them; the result has
    the same structure.  The input graph is not changed: rewritten nodes are
    new nodes, untouched sub-graphs are the original objects.  Each output
    keeps its dtype, ndim and broadcastable pattern.
    """
    outputs, single = as_variables(graph, "graph")
    result = normalize_variables(outputs, greedy_index(rules), mark=True)
    return same_structure(graph, single, result)


def rebroadcast(graph: Graph) -> Graph:
    """``graph`` with every explicit broadcast pattern derived again from the current input types.

    An explicit Op keeps its broadcasting when an input is replaced by one of
    the same rank (``clone_replace``; pytensor #408): replacing a static
    ``(1,)`` input by an unknown-length vector keeps the broadcast, and a
    length other than 1 is an error at run time.  ``rebroadcast`` applies the
    numpy rule to each explicit Op's inputs as they are now (align right,
    missing leading dims broadcast, static length 1 broadcasts), and rebuilds
    the nodes above it.  The input graph is not changed.

    Before/After (``x`` replaced by ``xn`` of unknown length)::

        add{*,1}(y, xn)   ->   add{*,*}(y, xn)
    """
    outputs, single = as_variables(graph, "graph")
    result = rebroadcast_outputs(outputs)
    mark_rewritten(result, outputs)
    return same_structure(graph, single, result)


# the passes in optdb (relations.compile.defaults): once, whatever imports this package again
register_all()
