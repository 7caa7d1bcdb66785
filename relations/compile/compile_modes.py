"""Compilation modes that apply the rules (``mode``), and rule sets of your own as optdb tags (``register``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytensor.compile import optdb
from pytensor.compile.mode import Mode, get_default_mode, get_mode
from pytensor.graph.basic import Variable

from relations.arguments import check_relations, check_tag
from relations.compile.precision import NAME as PRECISION_TAG
from relations.compile.registration import register_relational
from relations.compile.stabilize import MEASURED_NAME as MEASURED_TAG
from relations.compile.stabilize import NAME as STABILIZE_TAG
from relations.greedy.fixpoint import normalize_variables
from relations.patterns.relation import Relation, RuleIndex

__all__ = ["ACCURATE_TAGS", "DEFAULT_TAGS", "WITHOUT_PRECISION", "WITH_PRECISION", "mode", "register"]

#: A rule set: relations ``rel(lhs, rhs)``, in the order they are tried.
Rules = Sequence[Relation]


def register(rules: Rules, tag: str) -> None:
    """Put ``rules`` in PyTensor's compile pipeline under the ``optdb`` tag ``tag`` (off by default).

    ``pytensor.function(..., mode=get_default_mode().including(tag))`` (or
    ``compile_kwargs={"mode": ...}`` where a library compiles for you) then
    normalizes every compiled graph with ``rules`` at the position of the
    ``relational`` pass, before PyTensor's ``canonicalize``; the toolkit's
    Ops it builds are lowered by the lowering pass, as for ``relational``.
    ``rules`` are checked now; a ``tag`` already known to ``optdb`` (a pass's
    name or a tag) is refused.  As for ``relational``, each rewrite is its
    own replacement with the rule's name as the reason, so
    ``config.optimizer_verbose`` prints ``rewrite <rule name> replaces ...``.
    """
    rule_set = check_relations(rules, "rules")
    tag = check_tag(tag)
    if tag in optdb.__db__:
        raise ValueError(f"tag {tag!r} is already registered in optdb; choose another name")
    index = RuleIndex(rule_set)

    def normalize_with_rules(outs: Sequence[Variable], on_rewrite: Any = None) -> list[Variable]:
        return normalize_variables(list(outs), index, on_rewrite=on_rewrite, mark=True)

    register_relational(normalize_with_rules, name=tag, reports_steps=True)


#: The optdb tags :func:`mode` includes when given none: the ``relational`` pass, the precision pass
#: (``relational_precision``: ``x / pt.sqrt(2.0)`` divides by float64's ``sqrt(2)``) and the stabilizing pass.
#: The precision pass widens the float32-folded copies of the constants it widens too
#: (:func:`relations.compile.precision.widen_folds`), so a logp and its dlogp still share their terms.
DEFAULT_TAGS: tuple[str, ...] = ("relational", PRECISION_TAG, STABILIZE_TAG)
#: :data:`DEFAULT_TAGS` (the name of the days the precision pass was opt-in).
WITH_PRECISION: tuple[str, ...] = DEFAULT_TAGS
#: The default tags without the precision pass: ``relations.mode(*WITHOUT_PRECISION)`` keeps float32's value of
#: a constant function of a float32 constant (PyTensor's own reading of ``pt.sqrt(2.0)``).
WITHOUT_PRECISION: tuple[str, ...] = ("relational", STABILIZE_TAG)
#: :data:`WITH_PRECISION` and the measured stage (``relational_measured``: the numerics theory, extraction
#: by measured error and regimes at compile time, on the regions its screens flag):
#: ``relations.mode(*relations.ACCURATE_TAGS)``, the most accurate compile.  A flagged region not seen
#: before costs seconds to tens of seconds once (then kept in PyTensor's compile directory); see
#: ``docs/stabilize.md``.
ACCURATE_TAGS: tuple[str, ...] = ("relational", PRECISION_TAG, STABILIZE_TAG, MEASURED_TAG)


def mode(*tags: str, base: str | Mode | None = None) -> Mode:
    """A compilation mode that applies the rules: ``base`` (default: PyTensor's default mode) including ``tags``.

    ``tags`` default to :data:`DEFAULT_TAGS` (``relational``, the precision pass ``relational_precision``,
    :mod:`relations.compile.precision`, and the stabilizing pass ``relational_stabilize``,
    :mod:`relations.compile.stabilize`; :data:`ACCURATE_TAGS` adds the measured stage;
    :data:`WITHOUT_PRECISION` leaves the precision pass out);
    each must be registered in
    ``optdb`` (``relational``, or a tag of :func:`register`): PyTensor's
    ``Mode.including`` ignores a tag it does not know, so a typo would
    compile without the rules, and here it is a ``ValueError`` naming it.
    Pass the result where a library compiles for you::

        pytensor.function(inputs, outputs, mode=relations.mode())
        pm.sample(compile_kwargs={"mode": relations.mode()})
        pm.find_MAP(model=m, compile_kwargs={"mode": relations.mode()})

    ``pytensor.config.change_flags(optimizer_including=...)`` cannot do this:
    PyTensor reads that flag only at start-up (``PYTENSOR_FLAGS``).
    """
    tags = tags or DEFAULT_TAGS
    for i, tag in enumerate(tags):
        if not isinstance(tag, str):
            raise TypeError(f"tags[{i}] must be a str (an optdb tag), got {type(tag).__name__}")
        if tag not in optdb.__db__:
            raise ValueError(f"tags[{i}] = {tag!r} is not registered in optdb (relations.register adds a tag)")
    if base is None:
        start = get_default_mode()
    elif isinstance(base, (str, Mode)):
        start = get_mode(base)
    else:
        raise TypeError(f"base must be a mode name or a Mode, got {type(base).__name__}")
    return start.including(*tags)

