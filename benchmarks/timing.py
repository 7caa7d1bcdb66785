"""Wall-clock timing shared by the benchmark scripts (not by the tests)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any


def call_seconds(fn: Callable, repeats: int, setup: Callable[[], Any] | None = None) -> list[float]:
    """Seconds of ``repeats`` calls of ``fn()`` (or ``fn(setup())``, the setup untimed).

    As ``timeit`` does, the cyclic garbage collector is off while the calls
    run (one collection before them), so no call pays for a collection that
    another one's garbage caused.  A collection right before each call would
    not do: it walks every object, and the call after it starts with cold
    caches (a 1.6 ms normalize took 2.4 ms that way).
    """
    times = []
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            arg = setup() if setup is not None else None
            t0 = time.perf_counter()
            fn(arg) if setup is not None else fn()
            times.append(time.perf_counter() - t0)
    finally:
        if enabled:
            gc.enable()
    return times


def interleaved_seconds(calls: Sequence[Callable[[], Any]], rounds: int) -> list[list[float]]:
    """Seconds of each of ``calls`` (functions of no argument), called in turn, ``rounds`` times.

    The calls alternate, so a burst of the machine's noise (a shared host)
    hits each alike instead of all the calls of one; the collector is off
    as in :func:`call_seconds`.  One list of times per call.
    """
    times: list[list[float]] = [[] for _ in calls]
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(rounds):
            for fn, spent in zip(calls, times):
                t0 = time.perf_counter()
                fn()
                spent.append(time.perf_counter() - t0)
    finally:
        if enabled:
            gc.enable()
    return times


def median_seconds(fn: Callable, repeats: int = 5, setup: Callable[[], Any] | None = None) -> float:
    return statistics.median(call_seconds(fn, repeats, setup))


def best_seconds(fn: Callable, repeats: int = 5) -> float:
    return min(call_seconds(fn, repeats))
