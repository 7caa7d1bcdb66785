"""The logic core: PyTensor-free unification fast paths, goals that wait, and moded goals.

``logic_core`` knows etuples, ``unification`` variables and ``kanren``-style
goals (``goal(state) -> states``), and no PyTensor object.  The bridge
(``graph_bridge``) tells it once what its terms hold
(:func:`~logic_core.unifier.install_views`); the rules (``relations``) are
written over both.

- :mod:`logic_core.unifier`: ``walk``, ``lreify``, ``unify``, ``unify_into``, ``eq``.
- :mod:`logic_core.goals`: ``lall_ready`` (a conjunction whose goals wait
  with :class:`NotReady` until their inputs are ground) and ``Conj``.
- :mod:`logic_core.moded`: :class:`Mode` and :class:`ModedGoal`: one goal
  definition that runs in every direction and that the forward planner compiles.
- :mod:`logic_core.term_kinds`: ``is_term``, ``is_logic_var``, ``is_ground``.
- :mod:`logic_core.memo`: the bounded caches the fast paths share.

Rule authors import these names from ``relations.lang``.
"""

from logic_core.goals import Conj, NotReady, lall_ready
from logic_core.moded import Mode, ModedGoal, always, moded
from logic_core.term_kinds import is_ground, is_logic_var, is_term
from logic_core.unifier import Eq, eq, lreify, unify, unify_into, walk

__all__ = [
    "Conj",
    "Eq",
    "Mode",
    "ModedGoal",
    "NotReady",
    "always",
    "eq",
    "is_ground",
    "is_logic_var",
    "is_term",
    "lall_ready",
    "lreify",
    "moded",
    "unify",
    "unify_into",
    "walk",
]
