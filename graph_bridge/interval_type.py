"""The :class:`Interval` type: the values a variable may take, as a closed, open or half-open range.

:mod:`graph_bridge.intervals` computes intervals of graphs; :mod:`graph_bridge.supports` gives the
supports of random variables; both read this module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["EVERYTHING", "INF", "Interval"]

INF = math.inf


@dataclass(frozen=True)
class Interval:
    """The real numbers between ``lo`` and ``hi``; ``lo_open`` / ``hi_open`` exclude an end."""

    lo: float = -INF
    hi: float = INF
    lo_open: bool = True
    hi_open: bool = True

    def __repr__(self) -> str:
        left = "(" if self.lo_open else "["
        right = ")" if self.hi_open else "]"
        return f"{left}{self.lo:g}, {self.hi:g}{right}"

    def positive(self) -> bool:
        """Every value is > 0."""
        return self.lo > 0 or (self.lo == 0 and self.lo_open)

    def nonnegative(self) -> bool:
        """Every value is >= 0."""
        return self.lo >= 0

    def negative(self) -> bool:
        """Every value is < 0."""
        return self.hi < 0 or (self.hi == 0 and self.hi_open)

    def nonpositive(self) -> bool:
        """Every value is <= 0."""
        return self.hi <= 0

    def nonzero(self) -> bool:
        """No value is 0."""
        return self.positive() or self.negative()

    def within(self, lo: float, hi: float) -> bool:
        """Every value is in ``[lo, hi]``."""
        return self.lo >= lo and self.hi <= hi

    def inside(self, lo: float, hi: float) -> bool:
        """Every value is in the open interval ``(lo, hi)``."""
        above = self.lo > lo or (self.lo == lo and self.lo_open)
        return above and (self.hi < hi or (self.hi == hi and self.hi_open))

    def meet(self, other: Interval) -> Interval | None:
        """The values both hold (the intersection), ``None`` when they share none."""
        lo, lo_open = (self.lo, self.lo_open) if self.lo > other.lo else (other.lo, other.lo_open)
        if self.lo == other.lo:
            lo_open = self.lo_open or other.lo_open
        hi, hi_open = (self.hi, self.hi_open) if self.hi < other.hi else (other.hi, other.hi_open)
        if self.hi == other.hi:
            hi_open = self.hi_open or other.hi_open
        if lo > hi or (lo == hi and (lo_open or hi_open)):
            return None
        return Interval(lo, hi, lo_open, hi_open)

    def join(self, other: Interval) -> Interval:
        """The smallest interval holding both (the union's hull)."""
        lo, lo_open = _pick_lo(self, other)
        hi, hi_open = _pick_hi(self, other)
        return Interval(lo, hi, lo_open, hi_open)


def _pick_lo(a: Interval, b: Interval) -> tuple[float, bool]:
    if a.lo != b.lo:
        return (a.lo, a.lo_open) if a.lo < b.lo else (b.lo, b.lo_open)
    return a.lo, a.lo_open and b.lo_open


def _pick_hi(a: Interval, b: Interval) -> tuple[float, bool]:
    if a.hi != b.hi:
        return (a.hi, a.hi_open) if a.hi > b.hi else (b.hi, b.hi_open)
    return a.hi, a.hi_open and b.hi_open


#: The whole line: what an unknown value may be.
EVERYTHING = Interval()
