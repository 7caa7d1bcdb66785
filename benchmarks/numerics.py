"""The numerics corpus compiled with PyTensor's default mode (FAST_RUN) and with ``relations.mode()``.

``python benchmarks/numerics.py`` prints, for each spelling of
``tests/numerics_corpus.py`` (a stable target written as a user would,
evaluated at extreme inputs against mpmath at 50 digits), whether each
mode's compiled function is accurate and its largest relative error;
then the counts per target and in all, and the issue's targets with this
run's figures.  ``--target NAME`` keeps one target's spellings.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))

import relations  # noqa: E402
from numerics_corpus import CORPUS, TARGETS, measure  # noqa: E402


def _err(e: float) -> str:
    return "inf" if e == float("inf") else f"{e:.1e}"


def run(spellings: list) -> dict[str, tuple[tuple[bool, float], tuple[bool, float]]]:
    mode = relations.mode()
    print("| spelling | target | dtype | FAST_RUN ok | max rel err | relations.mode() ok | max rel err |")
    print("|---|---|---|---|---|---|---|")
    results = {}
    for s in spellings:
        stock, ours = measure(s), measure(s, mode)
        results[s.name] = (stock, ours)
        print(f"| `{s.name}` | {s.target} | {s.dtype} | {'yes' if stock[0] else 'no'} | {_err(stock[1])} "
              f"| {'yes' if ours[0] else 'no'} | {_err(ours[1])} |")
    return results


def summary(spellings: list, results: dict) -> None:
    print()
    print("| target | spellings | FAST_RUN inaccurate | relations.mode() inaccurate |")
    print("|---|---|---|---|")
    met_all = True
    for target in TARGETS:
        names = [s.name for s in spellings if s.target == target]
        if not names:
            continue
        stock_bad = sum(not results[n][0][0] for n in names)
        ours_bad = sum(not results[n][1][0] for n in names)
        if 3 * stock_bad >= len(names) and ours_bad:
            met_all = False
        print(f"| {target} | {len(names)} | {stock_bad} | {ours_bad} |")
    total_stock = sum(not a[0] for a, _ in results.values())
    total_ours = sum(not b[0] for _, b in results.values())
    worse = [n for n, (a, b) in results.items() if a[0] and not b[0]]
    print(f"| all | {len(results)} | {total_stock} | {total_ours} |")
    print()
    print("| target | this run | met |")
    print("|---|---|---|")
    print(f"| no spelling inaccurate on a target FAST_RUN gets wrong a third of the time or more | "
          f"{'none' if met_all else 'some'} | {'yes' if met_all else 'no'} |")
    print(f"| no spelling FAST_RUN gets right made worse | {len(worse)} made worse {worse or ''} | "
          f"{'yes' if not worse else 'no'} |")
    still = [n for n, (_, b) in results.items() if not b[0]]
    print()
    print("still inaccurate with relations.mode():", ", ".join(f"`{n}`" for n in still) or "none")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=TARGETS, help="only this target's spellings")
    args = parser.parse_args(argv)
    spellings = [s for s in CORPUS if args.target is None or s.target == args.target]
    results = run(spellings)
    summary(spellings, results)


if __name__ == "__main__":
    main()
