"""Absolute values and rectifiers written out, as PyMC derives them (pymc #6402, #8049, #8058).

PyMC derives ``abs(x)`` (a folded density) and ``maximum(x, 0)`` (a
censoring); written as a switch between ``x`` and its negation, as a
maximum of the two, or as ``(x + |x|) / 2``, it refuses them or (a switch
whose branches both read ``x``) derives a density that raises "switch
non-overlapping scale > 0" at every point.  One line each, generated over
the comparisons and the spellings of a negation (``-x``, ``-1 * x``,
``x * -1``, ``0 - x``).  Value identities at every float (at ``0`` and ``-0.0`` both
sides are zero; a NaN stays NaN).
"""

from __future__ import annotations

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_float

__all__ = ["ABSOLUTE"]

x = p.var("x")

#: The family (``measurable_absolute``), part of ``MEASURABLE_RULES``.
ABSOLUTE = Family("measurable_absolute", docs="measurable.md")

_NEGATIONS = {"neg": p.neg(x), "mul_neg1": p.mul(-1, x), "mul_neg1_right": p.mul(x, -1), "zero_sub": p.sub(0, x)}
#: (name, the test, whether ``x`` is kept where it holds, shown)
_TESTS = [
    ("ge", p.ge(x, 0), True, "x >= 0"),
    ("gt", p.gt(x, 0), True, "x > 0"),
    ("lt", p.lt(x, 0), False, "x < 0"),
    ("le", p.le(x, 0), False, "x <= 0"),
]

for _neg_name, _neg in _NEGATIONS.items():
    _shown_neg = {"neg": "-x", "mul_neg1": "-1 * x", "mul_neg1_right": "x * -1", "zero_sub": "0 - x"}[_neg_name]
    for _name, _test, _keeps_x, _shown in _TESTS:
        _then, _else = (x, _neg) if _keeps_x else (_neg, x)
        _branches = f"x, {_shown_neg}" if _keeps_x else f"{_shown_neg}, x"
        ABSOLUTE.rewrite(f"abs_switch_{_name}_{_neg_name}o", p.switch(_test, _then, _else), p.abs(x), is_float(x),
                         f"``where({_shown}, {_branches})`` is ``abs(x)``.")
    ABSOLUTE.rewrite(f"abs_maximum_{_neg_name}o", p.maximum(x, _neg), p.abs(x), is_float(x),
                     f"``maximum(x, {_shown_neg})`` is ``abs(x)``.")
    ABSOLUTE.rewrite(f"abs_maximum_first_{_neg_name}o", p.maximum(_neg, x), p.abs(x), is_float(x),
                     f"``maximum({_shown_neg}, x)`` is ``abs(x)``.")

ABSOLUTE.rewrite("relu_div_abso", p.true_div(p.add(x, p.abs(x)), 2), p.maximum(x, 0), is_float(x),
                 "``(x + abs(x)) / 2`` is ``maximum(x, 0)``.")
ABSOLUTE.rewrite("relu_mul_abso", p.mul(0.5, p.add(x, p.abs(x))), p.maximum(x, 0), is_float(x),
                 "``0.5 * (x + abs(x))`` is ``maximum(x, 0)``.")
