"""Quickstart: each rule family's motivating case, before and after ``normalize``.

Run: ``python examples/quickstart.py``
"""

import numpy as np
import pytensor
import pytensor.tensor as pt

import relations


def show(title: str, before, after, givens) -> None:
    print(f"\n=== {title}")
    print("--- before")
    pytensor.dprint(before)
    print("--- after relations.normalize")
    pytensor.dprint(after)
    f = pytensor.function(list(givens), [before, after], mode="FAST_COMPILE")
    b, a = f(*givens.values())
    print(f"values: before={np.asarray(b)!r} after={np.asarray(a)!r}")


def seed_001() -> None:
    x = pt.vector("x")
    y = pt.sum(pt.expand_dims(pt.exp(x), 0))
    show("seed 001: a full reduction does not see added dims", y, relations.normalize(y),
         {x: np.arange(3.0)})


if __name__ == "__main__":
    seed_001()
