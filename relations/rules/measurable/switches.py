"""Censoring written as a switch between a variable and a bound: the rest of the table.

A ``where`` that picks a bound ``c`` or the variable ``x`` by comparing them is
a ``maximum`` or a ``minimum`` (pymc #6834, #6949: "censoring written as a
switch"); which one follows from the comparison (is ``x`` below or above
``c``?) and from the branch it keeps.  Four comparisons, two operand orders
and two branch orders make 16 spellings; eight have their own rules in
:mod:`relations.rules.measurable` (``switch_as_maximumo``, ...), the other
eight are generated here, one line each: ``where(x >= c, c, x)`` is
``minimum(x, c)``, ``where(x <= c, c, x)`` is ``maximum(x, c)``,
``where(c < x, x, c)`` is ``maximum(x, c)``, ...  At a tie both branches
are ``c``.  ``x`` is a float; ``c`` any value (an integer literal
included: constants are compared modulo exact casts).  A value identity
wherever ``x`` is a number (at a NaN ``x`` a switch may pick ``c`` where
``maximum`` propagates the NaN; random draws are numbers).
"""

from __future__ import annotations

from relations import patterns as p
from relations.patterns.family import Family
from relations.patterns.guards import is_float

__all__ = ["SWITCHES"]

x, c = p.var("x"), p.var("c")

#: The family (``measurable_switches``), part of ``MEASURABLE_RULES``.
SWITCHES = Family("measurable_switches", docs="measurable.md")

#: (name, comparison, whether ``x`` is below ``c`` where it holds, the operands in order)
_TABLE = [
    ("le", p.le, True, (x, c)),
    ("ge", p.ge, False, (x, c)),
    ("lt_rev", p.lt, False, (c, x)),
    ("le_rev", p.le, False, (c, x)),
    ("gt_rev", p.gt, True, (c, x)),
    ("ge_rev", p.ge, True, (c, x)),
]
#: (comparison name, branch kept where it holds) -> already a rule of relations.rules.measurable
_THERE = {("lt_rev", "c"), ("gt_rev", "c"), ("le", "x"), ("ge", "x")}

_SYMBOL = {"le": "<=", "ge": ">=", "lt": "<", "gt": ">"}

for _name, _cmp, _below, _args in _TABLE:
    _left, _right = ("x", "c") if _args[0] is x else ("c", "x")
    _test = f"{_left} {_SYMBOL[_name.split('_')[0]]} {_right}"
    for _kept, (_then, _else) in (("c", (c, x)), ("x", (x, c))):
        if (_name, _kept) in _THERE:
            continue
        # where x is below c: keeping c is the maximum; where x is above c: keeping c is the minimum
        _max = _below == (_kept == "c")
        _out = p.maximum(x, c) if _max else p.minimum(x, c)
        SWITCHES.rewrite(
            f"switch_{_name}_keep_{_kept}o",
            p.switch(_cmp(*_args), _then, _else),
            _out,
            is_float(x),
            f"``where({_test}, {_then}, {_else})`` is ``{'maximum' if _max else 'minimum'}(x, c)``.",
        )
