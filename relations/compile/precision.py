"""The ``relational_precision`` pass: a constant operand computed in the float dtype its Elemwise reads it in.

``RULESETS["precision"]`` (:mod:`relations.rules.precision`) applied greedily at the position of
the ``relational`` pass, before canonicalize folds constants: ``x / pt.sqrt(2.0)`` with ``x``
float64 divides by float64's ``sqrt(2)``, not float32's (PyMC's ``normal_lcdf``: 1.7e-6 → 7.5e-15
relative error at ``z = 10``).  The ``relational`` pass keeps a normal form only where it is
faster, so the rule has its own pass.  It runs only on a graph holding such an operand (a walk
over its nodes, :func:`needed`), so other graphs pay that walk alone.  Each replacement's reason
is the rule's name; its new nodes carry the replaced node's stack trace.  Off unless a mode includes
it (``relations.mode(*relations.compile.compile_modes.WITH_PRECISION)``): on PyMC's censored Normal
model it made the compiled logp + dlogp 1.34-1.38x slower per call, with graphs that differ only in
their constants (docs/precision.md).

Before/After (``x / pt.sqrt(2.0)``, compiled)::

    True_div(x, 1.4142135 float32)    ->    True_div(x, 1.4142135623730951 float64)
"""

from __future__ import annotations

from pytensor.compile import optdb
from pytensor.graph.fg import FunctionGraph

from relations.compile.registration import POSITION, RelationalRewriter
from relations.rules.precision import narrow_operands
from relations.saturation.stabilizing import precise

__all__ = ["NAME", "needed", "register_precision"]

#: The pass's optdb name (opt-in: ``relations.mode(*relations.compile.compile_modes.WITH_PRECISION)``).
NAME = "relational_precision"


def needed(fgraph: FunctionGraph) -> bool:
    """Whether some float Elemwise of ``fgraph`` reads a unary Op of a narrower constant."""
    return any(narrow_operands(node) for node in fgraph.apply_nodes)


#: ``outs`` with :data:`relations.rules.precision.PRECISION_RULES` applied greedily (``on_rewrite(rule, before,
#: after)`` told of each rewrite).
normalize_precision = precise


def register_precision() -> RelationalRewriter:
    """Register the pass in ``optdb`` under :data:`NAME` (off unless a mode includes it); once."""
    existing = optdb.__db__.get(NAME)
    if existing:
        return next(iter(existing))
    rewriter = RelationalRewriter(normalize_precision, NAME, needed=needed, reports_steps=True)
    optdb.register(NAME, rewriter, position=POSITION)
    return rewriter
