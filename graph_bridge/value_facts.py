"""Facts that read constants' values (``Constant.data``) and Op props, as goals rules call.

The rules of ``relations/`` do not read PyTensor constants themselves; they
call these checks (and :mod:`graph_bridge.type_facts` for types):

- :func:`zero_fillo`: a term is zeros (a constant of zeros, or an Alloc of one);
- :func:`unique_indiceso`: the indices of a set or inc never name one element twice;
- :func:`set_heado`: the set form of an inc head, and back;
- :func:`one_roundingo`: a reduction accumulates in its output dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pytensor.graph.basic import Constant, Variable
from pytensor.tensor import subtensor as pts

from graph_bridge.nodes import alloc_parts
from graph_bridge.terms import op_term, term_variable
from graph_bridge.vocabulary import builder_for
from logic_core.moded import Mode, ModedGoal, moded

__all__ = ["indices_unique", "is_zeros", "one_roundingo", "set_heado", "unique_indiceso", "zero_fillo"]


def is_zeros(v: Variable) -> bool:
    """Whether ``v`` is a non-empty constant of zeros, or an Alloc of one."""
    parts = alloc_parts(v)
    if parts is not None:
        v = parts[0]
    return isinstance(v, Constant) and v.data.size > 0 and not np.any(v.data)


def indices_unique(op, idx: tuple) -> bool:
    """Whether the indices ``idx`` of the set/inc ``op`` never name one element twice."""
    if type(op) is pts.IncSubtensor:
        return True  # basic indexing never repeats an element
    if not all(isinstance(i, Constant) for i in idx):
        return False
    arrays = [np.asarray(i.data) for i in idx]
    if any(a.dtype == bool for a in arrays):
        return False
    try:
        arrays = list(np.broadcast_arrays(*arrays))
    except ValueError:
        return False
    flat = np.stack([a.ravel() for a in arrays], axis=1) if arrays else np.empty((0, 0))
    if flat.size and not (np.all(flat >= 0, axis=0) | np.all(flat < 0, axis=0)).all():
        return False  # mixed signs could name one element twice (-1 and n-1)
    return len({tuple(r) for r in flat.tolist()}) == len(flat)


def zero_fillo(base: Any) -> ModedGoal:
    """Check: ``base`` is zeros (:func:`is_zeros`)."""

    def check(b):
        vb = term_variable(b)
        return () if vb is not None and is_zeros(vb) else None

    return moded(
        "zero_fillo", {"base": base}, Mode(needs=("base",), gives=(), one=check), waiting="zero_fillo needs base"
    )


def unique_indiceso(head: Any, idx: Any) -> ModedGoal:
    """Check: the set/inc ``head`` at the index terms ``idx`` writes each element once."""

    def check(h, i):
        op = h.evaled_obj if hasattr(h, "evaled_obj") else h
        return () if indices_unique(op, tuple(term_variable(t) for t in i)) else None

    return moded(
        "unique_indiceso",
        {"head": head, "idx": idx},
        Mode(needs=("head", "idx"), gives=(), ready=lambda h, i: isinstance(i, tuple), one=check),
        waiting="unique_indiceso needs head and idx",
    )


def _with_set_flag(op, flag: bool):
    props = dict(op._props_dict())
    props["set_instead_of_inc"] = flag
    props["inplace"] = False
    builder = builder_for(type(op))
    return op_term(builder(*(props[p] for p in builder.prop_names)))


def set_heado(inc_head: Any, set_head: Any) -> ModedGoal:
    """``set_head`` is the not-inplace set form of the inc head ``inc_head`` (either known)."""
    return moded(
        "set_heado",
        {"inc_head": inc_head, "set_head": set_head},
        Mode(needs=("inc_head",), gives=("set_head",), one=lambda h: (_with_set_flag(h.evaled_obj, True),)),
        Mode(needs=("set_head",), gives=("inc_head",), one=lambda s: (_with_set_flag(s.evaled_obj, False),)),
        waiting="set_heado needs a head",
    )


def one_roundingo(head: Any) -> ModedGoal:
    """Check: the reduction ``head`` rounds once, in its output dtype.

    A reduction that accumulates in a wider dtype than its output
    (``Sum{acc=float64}`` of float32) rounds once at the end; split into
    pieces, each piece would be rounded to the narrower dtype before they are
    combined, so a sum that cancels exactly would not (and a comparison of it
    with 0 would flip).
    """

    def check(h):
        op = h.evaled_obj
        acc = getattr(op, "acc_dtype", None)
        return () if acc is None or acc == getattr(op, "dtype", acc) else None

    return moded(
        "one_roundingo", {"head": head}, Mode(needs=("head",), gives=(), one=check), waiting="one_roundingo needs head"
    )
