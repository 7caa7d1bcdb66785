"""The vocabulary ``graph_bridge`` starts with: :func:`register_standard_vocabulary` (``import graph_bridge`` calls it).

PyTensor's stock classes (Elemwise, DimShuffle, the CAReduce family, Join,
Alloc, (Inc)Subtensor), the explicit-broadcast Ops with the head views that
let an explicit Op unify with its stock one, and the batched Ops (Blockwise,
every RandomVariable class) with their explicit forms, whose multi-output
nodes rules may rewrite whole.  Importing this module also installs the term
views in the logic core (:mod:`graph_bridge.logic_views`).
"""

from __future__ import annotations

from pytensor.tensor.blockwise import Blockwise
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.random.op import RandomVariable

from graph_bridge import logic_views  # noqa: F401 - its import installs the term views in the logic core
from graph_bridge.dispatch import register_head_view
from graph_bridge.explicit_blockwise import ExplicitBlockwise
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise
from graph_bridge.random_variables import ExplicitRandomVariable
from graph_bridge.vocabulary import (
    register_op_class,
    register_op_family,
    register_stock_classes,
    register_whole_node_class,
)

__all__ = ["register_standard_vocabulary"]


def register_standard_vocabulary() -> None:
    """Register the vocabulary the module docstring lists; a second call changes nothing."""
    register_stock_classes()
    register_op_class(ExplicitElemwise)
    register_op_class(ExplicitAlloc)
    register_head_view(Elemwise, ExplicitElemwise, ("scalar_op",))
    register_op_class(Blockwise)
    register_op_family(RandomVariable)
    register_op_class(ExplicitBlockwise)
    register_op_class(ExplicitRandomVariable)
    register_head_view(Blockwise, ExplicitBlockwise, ("core_op", "signature"))
    for cls in (Blockwise, ExplicitBlockwise, RandomVariable, ExplicitRandomVariable):
        register_whole_node_class(cls)
