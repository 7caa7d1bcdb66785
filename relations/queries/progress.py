"""How a long query reports progress: :class:`Progress` and the reporter that logs it.

Every :data:`PROGRESS_SECONDS` a search or a saturation logs one line on the
``relations.search`` logger (level INFO, silent unless logging is
configured) and calls the ``progress`` callback, if given, with a
:class:`Progress`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PROGRESS_SECONDS", "Progress", "ProgressReporter", "logger"]

logger = logging.getLogger("relations.search")

#: Seconds between two progress reports of one search.
PROGRESS_SECONDS = 5.0


@dataclass(frozen=True)
class Progress:
    """A search's state, as given to a ``progress`` callback."""

    #: forms yielded so far
    forms: int
    #: the level being expanded (steps from the input)
    depth: int
    #: forms kept for the next level
    frontier: int
    #: seconds since the search started
    elapsed: float


class ProgressReporter:
    """Calls ``callback`` and logs a line at most every :data:`PROGRESS_SECONDS`."""

    def __init__(self, callback: Callable[[Progress], object] | None, every: float | None = None) -> None:
        self.callback = callback
        self.every = PROGRESS_SECONDS if every is None else every
        self.start = time.monotonic()
        self.next = self.start + self.every

    def __call__(self, forms: int, depth: int, frontier: int) -> None:
        now = time.monotonic()
        if now < self.next:
            return
        self.next = now + self.every
        report = Progress(forms=forms, depth=depth, frontier=frontier, elapsed=now - self.start)
        logger.info(
            "equivalents: %d forms after %.0f s, expanding depth %d, %d forms in the next level",
            forms,
            report.elapsed,
            depth,
            frontier,
        )
        if self.callback is not None:
            self.callback(report)
