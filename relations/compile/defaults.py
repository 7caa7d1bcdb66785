"""The toolkit's passes in PyTensor's databases: :func:`register_all`, which ``import relations`` calls once.

- ``relational``: the greedy normal form, then saturation with the choices
  and extraction under the measured cost (:mod:`relations.compile.passes`);
  ``relational_normalize``: the greedy normal form only (both off unless a
  mode includes them);
- the lowering of the toolkit's Ops (on in every mode, and inside
  PyTensor's ``canonicalize``, ``stabilize`` and ``specialize`` databases,
  :func:`relations.compile.lowering.lower`), and in PyMC's early logprob
  rewrites when PyMC is imported;
- ``relational_precision``: a unary Op of a constant computed in the float dtype its Elemwise reads
  it in (``x / pt.sqrt(2.0)``: float64's sqrt(2)), before canonicalize (:mod:`relations.compile.precision`;
  one of ``relations.mode()``'s default tags);
- ``relational_stabilize``: PyTensor's stabilizers matched on every spelling
  of the regions around log/exp/sigmoid/softmax/erf/gamma heads
  (:mod:`relations.compile.stabilize`), right before ``stabilize``;
- the wrap of PyTensor's ``local_merge_alloc``
  (:func:`relations.compile.workarounds.install_merge_alloc_fix`).
"""

from __future__ import annotations

from relations.compile.lowering import lower_outputs, protect_compiled
from relations.compile.passes import cheapest, compile_normalize, compile_normalize_sites
from relations.compile.precision import register_precision
from relations.compile.pymc_hooks import register_pymc_lowering
from relations.compile.registration import register_lowering, register_node_lowering, register_relational
from relations.compile.stabilize import register_measured, register_stabilizing
from relations.compile.workarounds import install_merge_alloc_fix

__all__ = ["register_all"]


def register_all() -> None:
    """Register the toolkit's passes (see the module docstring); a second call changes nothing.

    Each registration keeps the first one made under its name, so calling
    this again (or re-importing ``relations``) registers nothing twice.
    """
    register_relational(compile_normalize, reports_steps=True, refine_fn=cheapest, sites_fn=compile_normalize_sites)
    register_relational(
        compile_normalize, name="relational_normalize", reports_steps=True, sites_fn=compile_normalize_sites
    )
    register_lowering(lower_outputs, in_place=protect_compiled)
    register_precision()
    register_stabilizing()
    register_measured()
    install_merge_alloc_fix()
    register_pymc_lowering(register_node_lowering(lower_outputs))
