"""How the logic core sees PyTensor objects: one-level views of vocabulary nodes and Ops.

A variable computed by a vocabulary Op unifies, against a term, as its
one-level term (its head over its raw inputs); a vocabulary Op as its head
term.  :func:`view_items` reads those items without building the term (the
forward plans read nodes this way).  Importing this module installs the
views in the logic core (``logic_core.unifier.install_views``): variables and
Ops are atoms, constants unify by value, and the bridge's ``Term`` is the
term class the core rebuilds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.op import Op

from graph_bridge.dispatch import head_views
from graph_bridge.terms import Term, is_variable, node_term, op_term
from graph_bridge.vocabulary import in_vocabulary
from logic_core.term_kinds import is_term
from logic_core.unifier import install_views

__all__ = ["same_constant", "term_view", "view_items"]


def view_items(x: Any) -> tuple | None:
    """The items of ``x``'s one-level term (``term_view(x)._tuple``, or a term's own), without building it."""
    if type(x) is Term:
        return x._tuple
    if is_variable(x):
        node = x.owner
        if node is not None and len(node.outputs) == 1 and in_vocabulary(node.op):
            return (op_term(node.op), *node.inputs)
        return None
    if is_term(x):
        return x._tuple
    view = term_view(x)
    return None if view is None else view._tuple


def term_view(x: Any) -> Any:
    """The term the generic rules would unify ``x`` as, when it is a vocabulary node or Op."""
    if isinstance(x, Variable):
        node = x.owner
        if node is not None and len(node.outputs) == 1 and in_vocabulary(node.op):
            return node_term(x)
        return None
    if isinstance(x, Op) and in_vocabulary(x):
        return op_term(x)
    return None


def same_constant(u: Constant, v: Constant) -> bool | None:
    """Two constants of other dtypes are one value when their values are equal and each casts to the
    other's dtype exactly (``1`` of int8 and ``1.0`` of float32; not ``16777217`` and its float32); of one
    type, ``None``: the generic rules compare them as before (pymc #6826: a bound and a branch spelled
    ``1`` and ``1.0`` are one censoring point)."""
    if u.type == v.type:
        return None
    a, b = np.asarray(u.data), np.asarray(v.data)
    if a.shape != b.shape or a.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
        return False
    with np.errstate(all="ignore"):
        there, back = a.astype(b.dtype), b.astype(a.dtype)
        return bool(np.array_equal(there, b) and np.array_equal(back, a)
                    and np.array_equal(there.astype(a.dtype), a) and np.array_equal(back.astype(b.dtype), b))


install_views(
    atoms=(Variable, Op), by_value=(Constant,), term_view=term_view, head_views=head_views, term_class=Term,
    same_value=same_constant,
)
