"""Every ```python block in docs/*.md runs (blocks of one page share a namespace),
and every example script runs.

A ```text block right after a ```python block (nothing but blank lines
between) is what that block prints: the test compares it with the block's
standard output (``...`` matches anything, as in doctest; runs of spaces
and newlines compare equal).
"""

import contextlib
import doctest
import io
import pathlib
import re
import runpy

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md"))
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
BLOCK = re.compile(r"```python\n(.*?)```(?:\s*?\n```text\n(.*?)```)?", re.S)
_CHECKER = doctest.OutputChecker()
_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


#: A block whose first line is ``# requires: mod1, mod2`` runs only where those import.
REQUIRES = re.compile(r"\A# requires: *(.+)\n")


def _missing(block: str) -> list[str]:
    import importlib.util

    found = REQUIRES.match(block)
    if not found:
        return []
    names = [n.strip() for n in found.group(1).split(",")]
    return [n for n in names if importlib.util.find_spec(n) is None]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_doc_code_blocks_run(page):
    blocks = BLOCK.findall(page.read_text())
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    skipped = []
    for i, (block, shown) in enumerate(blocks):
        missing = _missing(block)
        if missing:
            skipped.append((i, missing))
            continue
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(block, f"{page.name}[block {i}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            raise AssertionError(f"{page.name} block {i} failed: {exc!r}\n{block}") from exc
        if shown and not _CHECKER.check_output(shown, printed.getvalue(), _FLAGS):
            raise AssertionError(
                f"{page.name} block {i} prints\n{printed.getvalue()}\nbut the page shows\n{shown}"
            )
    if skipped:  # the other blocks ran above
        pytest.skip(f"{page.name}: blocks {[i for i, _ in skipped]} need {sorted({m for _, ms in skipped for m in ms})}")


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_examples_run(script, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(script.parent))  # as `python examples/x.py` does
    runpy.run_path(str(script), run_name="__main__")
    assert "after" in capsys.readouterr().out


def test_a_shown_output_is_compared():
    page = "```python\nprint(1 + 1)\n```\n\n```text\n2\n```\n\nprose\n\n```text\nnot compared\n```\n"
    [(block, shown)] = BLOCK.findall(page)
    assert shown == "2\n"
    assert _CHECKER.check_output("['a', ...]", "['a', 'b', 'c']\n", _FLAGS)
    assert not _CHECKER.check_output("['a', 'b']", "['a', 'b', 'compile']\n", _FLAGS)
