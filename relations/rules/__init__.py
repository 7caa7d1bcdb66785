"""The rule families, one module or folder each, and the named rule sets.

Named rule sets: ``RULESETS["dimshuffle"]``, ``RULESETS["default"]``, ...

Each entry is a tuple of rules, usable as the ``rules=`` argument of
``normalize``, ``equivalents``, ``match`` and ``best``, and extended by
concatenation (``RULESETS["default"] + (my_rule,)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from relations.arguments import check_relations, greedy_rules
from relations.patterns.relation import Relation, RuleIndex, unmeasured_choice
from relations.rules.algebra import ALGEBRA_RULES
from relations.rules.batched import blockwise_explicito, dimshuffle_through_blockwiseo, random_explicito
from relations.rules.broadcast import alloc_explicito, alloc_identityo, elemwise_explicito
from relations.rules.dimshuffle import (
    careduce_added_dimso,
    careduce_dimshuffle_fullo,
    careduce_dimshuffle_partialo,
    dimshuffle_composeo,
    dimshuffle_identityo,
    dimshuffle_through_elemwiseo,
    expand_dims_through_elemwiseo,
)
from relations.rules.join import careduce_joino
from relations.rules.lift import (
    elemwise_alloco,
    elemwise_set_shared_subtensoro,
    elemwise_set_subtensoro,
    inc_zeros_as_seto,
)
from relations.rules.measurable import MEASURABLE_CHOICES, MEASURABLE_RULES
from relations.rules.precision import PRECISION_RULES
from relations.rules.reductions import (
    reduce_alloco,
    reduce_writeso,
    sum_count_broadcasto,
    sum_factor_broadcasto,
)

__all__ = [
    "COMPILE_INDEX",
    "COMPILE_RULES",
    "DEFAULT_INDEX",
    "DEFAULT_RULES",
    "LOWERING_INDEX",
    "LOWERING_RULES",
    "RULESETS",
    "SATURATION_ONLY",
    "greedy_index",
    "greedy_part",
    "rule_index",
]

_DIMSHUFFLE = (
    careduce_dimshuffle_fullo,
    careduce_dimshuffle_partialo,
    careduce_added_dimso,
    dimshuffle_identityo,
    dimshuffle_composeo,
    dimshuffle_through_elemwiseo,
    expand_dims_through_elemwiseo,
)
_JOIN = (careduce_joino,)
_LIFT = (inc_zeros_as_seto, elemwise_set_subtensoro, elemwise_alloco)
_BROADCAST = (elemwise_explicito, alloc_explicito)
#: a 0-d Alloc is its value (PyTensor's ``local_useless_alloc``); never run backward by ``lower``
_ALLOC_IDENTITY = (alloc_identityo,)
#: Blockwise and RandomVariable (``relations/rules/batched/__init__.py``)
_BATCHED = (dimshuffle_through_blockwiseo, blockwise_explicito, random_explicito)
_BATCHED_LOWERING = (blockwise_explicito, random_explicito)
#: Rewrites that can make a graph costlier (PyTensor fuses a reduction with the
#: Elemwise below it; a shared set lifted leaves two sets): never in the
#: greedy sets, for extraction under a cost model to decide.
_CHOICES = (
    sum_factor_broadcasto,
    sum_count_broadcasto,
    reduce_alloco,
    reduce_writeso,
    elemwise_set_shared_subtensoro,
)
#: The reductions of the choices (through broadcasts, Allocs and writes into a fill).
_REDUCTIONS_THROUGH = _CHOICES[:4]

#: The rules ``normalize`` applies when given none, in the order it tries them.
DEFAULT_RULES: tuple = _JOIN + _DIMSHUFFLE + _ALLOC_IDENTITY + _LIFT + _BROADCAST + _BATCHED

#: The rules ``lower`` runs backward: from the toolkit's Ops to stock PyTensor Ops.
LOWERING_RULES: tuple = _BROADCAST + _BATCHED_LOWERING

#: The rules of the compile-time ``relational`` pass: the default rules but
#: ``dimshuffle_through_elemwiseo`` and ``expand_dims_through_elemwiseo``.  PyTensor's canonicalize moves DimShuffles
#: the other way (``local_dimshuffle_lift``), so a DimShuffle left above an
#: Elemwise is moved back, and the graph PyTensor fuses differs (measured on a
#: PyMC NormalMixture's logp + dlogp: 3 more nodes, 1.05x the run time).
#: Under a reduction PyTensor's fused kernels read through the view anyway.
#: ``dimshuffle_through_blockwiseo`` is left out for the same reason (PyTensor lifts
#: DimShuffles into a Blockwise's inputs again when it specializes).  The
#: explicit-broadcast rules (:data:`LOWERING_RULES`) are left out too: the
#: lowering pass right after would undo them before any other rewrite sees the
#: graph.  Measured on the logp + dlogp of the 21 PyMC models of
#: ``tests/pymc_models.py``: the other rules fire as often without them (and
#: on 400 random graphs), the compiled graphs are the same, and compiling with
#: the tag costs 0.97-1.05x stock instead of 1.07-1.30x.
COMPILE_RULES: tuple = tuple(
    r
    for r in DEFAULT_RULES
    if r not in (dimshuffle_through_elemwiseo, expand_dims_through_elemwiseo, dimshuffle_through_blockwiseo)
    and r not in LOWERING_RULES
)

#: Rule sets by name.  ``"default"`` is :data:`DEFAULT_RULES` (what
#: ``normalize`` applies when given no rules); ``"compile"`` is what the
#: compile-time ``relational`` pass applies; ``"lowering"`` is what
#: ``relations.lower`` runs backward; ``"choices"`` holds the rewrites that can
#: make a graph costlier (for saturation and extraction, never the greedy
#: pass), ``"reductions_through"`` its reductions; ``"measurable"`` relates spellings PyMC's
#: logprob derivation refuses to ones it matches (``relations.pymc.logp`` saturates with it),
#: ``"measurable_choices"`` its rules that make a graph costlier; ``"algebra"`` the spellings of
#: one expression PyTensor's stabilizers tell apart (saturation only, :data:`SATURATION_ONLY`:
#: the stabilizing pass, ``relations/rules/algebra.py``); ``"numerics"`` the numerics theory
#: (``relations/rules/numerics/``: Herbie's groups and PyTensor's special functions, each
#: identity both ways; saturation only, what ``relations.stabilize`` saturates with); ``"precision"``
#: the rule computing a constant operand in the float dtype its Elemwise reads it in.  Add your
#: own entries freely.
class _RuleSets(dict):
    """A dict of rule sets whose ``"numerics"`` entry (a few hundred relations, 0.2 s to import) is
    imported when it is first read, not when ``relations`` is."""

    def _load(self) -> None:
        if dict.get(self, "numerics") is _NUMERICS:
            from relations.rules.numerics import NUMERICS_RULES

            dict.__setitem__(self, "numerics", NUMERICS_RULES)

    def __getitem__(self, key: str) -> tuple:
        if key == "numerics":
            self._load()
        return dict.__getitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        if key == "numerics":
            self._load()
        return dict.get(self, key, default)

    def __iter__(self) -> Any:  # (also takes ``{**RULESETS}`` and ``dict(RULESETS)`` off dict's fast copy)
        return dict.__iter__(self)

    def keys(self) -> Any:
        return dict.keys(self)

    def values(self) -> Any:
        self._load()
        return dict.values(self)

    def items(self) -> Any:
        self._load()
        return dict.items(self)

    def copy(self) -> dict:
        self._load()
        return dict(dict.items(self))


#: stands for the numerics theory until it is read (:class:`_RuleSets`)
_NUMERICS: tuple = ()

RULESETS: dict[str, tuple] = _RuleSets({
    "dimshuffle": _DIMSHUFFLE,
    "join": _JOIN,
    "lift": _LIFT,
    "broadcast": _ALLOC_IDENTITY + _BROADCAST,
    "batched": _BATCHED,
    "default": DEFAULT_RULES,
    "compile": COMPILE_RULES,
    "lowering": LOWERING_RULES,
    "choices": _CHOICES,
    "algebra": ALGEBRA_RULES,
    "reductions_through": _REDUCTIONS_THROUGH,
    "measurable": MEASURABLE_RULES,
    "measurable_choices": MEASURABLE_CHOICES,
    "numerics": _NUMERICS,
    "precision": PRECISION_RULES,
})

#: The rule sets whose rules undo one another (``neg(a) -> mul(-1, a)`` and back; each
#: decreases its own measure; the numerics theory's ``erfc_def`` and ``erf_def``): for
#: saturation only, never run together by ``normalize`` (``best`` normalizes without them).
SATURATION_ONLY: frozenset[str] = frozenset({"algebra", "numerics"})

#: The indexes of the three built-in sets (each keeps its rules' plans and lookups across calls).
DEFAULT_INDEX = RuleIndex(DEFAULT_RULES)
COMPILE_INDEX = RuleIndex(COMPILE_RULES)
LOWERING_INDEX = RuleIndex(LOWERING_RULES)


def greedy_index(rules: Sequence[Relation] | None) -> RuleIndex:
    """The index ``normalize`` runs: :func:`rule_index` of ``rules``, once none is a choice rule without a
    measure (``relations.arguments.greedy_rules``) nor a rule of a :data:`SATURATION_ONLY` set
    (``ValueError`` naming ``rules[i]`` and its set: such rules undo one another, the greedy pass
    would not stop)."""
    if rules is None:
        return DEFAULT_INDEX
    rules = greedy_rules(rules)
    apart = {id(r): name for name in sorted(SATURATION_ONLY) for r in RULESETS.get(name, ())}
    for i, r in enumerate(rules):
        if id(r) in apart:
            raise ValueError(
                f"rules[{i}] ({r.__name__!r}) is in RULESETS[{apart[id(r)]!r}], whose rules undo one another: "
                f"normalize would not stop; run it with relations.saturate, best or equivalents"
            )
    return rule_index(rules)


def greedy_part(rules: Sequence[Relation] | None) -> Sequence[Relation] | None:
    """``rules`` without those :func:`greedy_index` refuses (what ``best`` normalizes the input with)."""
    if rules is None:
        return None
    apart = {id(r) for name in SATURATION_ONLY for r in RULESETS.get(name, ())}
    return tuple(
        r
        for r in check_relations(rules, "rules")
        if id(r) not in apart and not unmeasured_choice(r)
    )


def rule_index(rules: Sequence[Relation] | None) -> RuleIndex:
    """The index of ``rules`` (checked; ``None``: :data:`DEFAULT_INDEX`), as the public calls take them."""
    if rules is None:
        return DEFAULT_INDEX
    return RuleIndex(check_relations(rules, "rules"))
