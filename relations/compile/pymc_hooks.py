"""PyMC's log-probability inference sees stock Ops, whatever the import order.

PyMC's logprob rewrites (``pymc.logprob.rewriting``) pattern-match
``Elemwise``.  They include a query of PyTensor's ``canonicalize`` made when
PyMC is imported: if ``relations`` was imported first, that query holds the
node-level lowering (:func:`relations.compile.registration.register_node_lowering`)
and explicit Ops are lowered there.  If PyMC was imported first, the same
lowering is registered in PyMC's earliest rewrite group instead.
"""

from __future__ import annotations

import sys

from pytensor.graph.rewriting.basic import NodeRewriter

__all__ = ["register_pymc_lowering"]


def register_pymc_lowering(rewriter: NodeRewriter, name: str = "lower_explicit_node") -> bool:
    """Register ``rewriter`` in PyMC's early logprob rewrites if PyMC is already imported."""
    module = sys.modules.get("pymc.logprob.rewriting")
    db = getattr(module, "early_measurable_ir_rewrites_db", None)
    if db is None or name in db.__db__:
        return False
    db.register(name, rewriter, "basic")
    return True
