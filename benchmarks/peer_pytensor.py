"""PyTensor's own test suite with and without the toolkit's tag: ``python benchmarks/peer_pytensor.py``.

Issue 35's peer-suite target: PyTensor's stabilize tests
(``tests/tensor/rewriting/test_math.py`` of a 3.x snapshot) pass with the
tag as without.  This script

1. finds the installed PyTensor's version and git revision (its
   ``_version.py``) and the snapshot to test it with, in a local git
   mirror of pymc-devs/pytensor (``--repo``; by default the ``fetch``
   tool's ``/work/.mirror/pymc-devs+pytensor/repo``): the installed
   revision if the mirror holds it, else the tag ``rel-<version>``, else
   the newest ``rel-<major>.<minor>.*`` tag not newer than the installed
   version (``--ref`` picks one yourself); it says which and why;
2. exports that snapshot's ``tests/`` and ``conftest.py`` into a temporary
   directory (``git archive``; PyTensor's code is never copied into this
   repository), with a ``pytest.ini`` holding the snapshot's pytest
   settings that matter (``xfail_strict``, its warning filters);
3. runs the chosen test files (``--files``, default ``test_math.py`` of
   ``tests/tensor/rewriting``; ``--all`` adds ``test_elemwise.py`` and
   ``test_basic.py``) in a subprocess twice: stock, and with
   ``PYTENSOR_FLAGS=optimizer_including=<tags>`` and a pytest plugin
   (``-p``) that imports ``relations`` from this checkout.  The tags
   default to what ``relations.mode()`` includes beyond PyTensor's default
   mode (``relational`` on main; the stabilizing pass too once it is
   merged), ``--tags`` names others.  Both runs get the flags the
   snapshot's ``conftest.py`` sets (``on_opt_error=raise``, ...) before
   PyTensor is imported;
4. prints, per run, the count of each outcome (passed, failed, error,
   skipped, xfailed), the tests whose outcome differs (test id, stock,
   with the tag, and whether the tag's passes changed a graph during that
   test), and how many tests compiled a graph that the tag's passes
   changed.

The plugin wraps each rewriter registered under the tags and counts, per
test, the calls that changed the ``FunctionGraph`` (its set of Apply nodes
before and after), so the table says whether a difference comes from a
rewrite or from importing the package.

PyTensor's tests need only pytest, numpy and scipy besides PyTensor (and
``hypothesis`` for a few other files); the script does not install anything.
``--keep DIR`` exports into ``DIR`` and keeps the JUnit reports there.
Exit status 0 whatever the outcomes (it is a measurement), 2 on a setup
error (no mirror, no snapshot).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIRROR = Path("/work/.mirror/pymc-devs+pytensor/repo")
DEFAULT_FILES = ("tests/tensor/rewriting/test_math.py",)
MORE_FILES = ("tests/tensor/rewriting/test_elemwise.py", "tests/tensor/rewriting/test_basic.py")
#: what the snapshot's conftest.py adds to PYTENSOR_FLAGS at session start (set here before any import)
CONFTEST_FLAGS = "on_opt_error=raise,on_shape_error=raise,cmodule__warn_no_version=True"
PYTEST_INI = """[pytest]
xfail_strict = true
filterwarnings =
    ignore:^Numba will use object mode to run.*perform method\\.:UserWarning
"""

#: the plugin the tagged run loads with ``-p``: imports relations from this checkout, counts graph changes
PLUGIN = '''
import json, os, sys
sys.path.append({root!r})  # after the snapshot's own ``tests`` package
import relations
from pytensor.compile import optdb

_changes = {{}}
_calls = {{}}
_current = [None]


def _wrap(rewriter):
    apply = rewriter.apply

    def counted(fgraph, *args, **kwargs):
        before = frozenset(map(id, fgraph.apply_nodes))
        out = apply(fgraph, *args, **kwargs)
        if _current[0] is not None:
            _calls[_current[0]] = _calls.get(_current[0], 0) + 1
        if frozenset(map(id, fgraph.apply_nodes)) != before and _current[0] is not None:
            _changes[_current[0]] = _changes.get(_current[0], 0) + 1
        return out

    rewriter.apply = counted


for _tag in {tags!r}:
    for _r in list(optdb.__db__.get(_tag, ())):
        _wrap(_r)


def pytest_runtest_setup(item):
    _current[0] = item.nodeid


def pytest_sessionfinish(session, exitstatus):
    with open({report!r}, "w") as f:
        json.dump({{"relations": relations.__file__, "changes": _changes, "calls": _calls}}, f)
'''

#: printed by the venv's python: the installed version, its revision, and the tags relations.mode() adds
PROBE = """
import json, sys
sys.path.insert(0, {root!r})
import pytensor
from pytensor.compile.mode import get_default_mode
try:
    from pytensor._version import get_versions
    rev = get_versions().get("full-revisionid")
except Exception:
    rev = None
import relations
base = set(get_default_mode().provided_optimizer.include)
tags = [t for t in relations.mode().provided_optimizer.include if t not in base]
print(json.dumps({{"version": pytensor.__version__, "revision": rev, "tags": tags, "relations": relations.__file__}}))
"""


def git(repo: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip() if done.returncode == 0 else ""


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def snapshot(repo: Path, version: str, revision: str | None) -> tuple[str, str]:
    """The ref to export and why (see the module docstring, step 1)."""
    if revision and subprocess.run(
        ["git", "--git-dir", str(repo), "cat-file", "-e", f"{revision}^{{commit}}"], capture_output=True
    ).returncode == 0:
        return revision, f"the installed revision {revision[:10]}"
    tags = git(repo, "tag", "--list", "rel-*").split()
    if f"rel-{version}" in tags:
        return f"rel-{version}", f"the tag of the installed version {version}"
    want = _version_tuple(version)
    same_line = [t for t in tags if _version_tuple(t)[:2] == want[:2] and _version_tuple(t) <= want]
    if not same_line:
        raise RuntimeError(f"the mirror {repo} has no rel-{want[0]}.{want[1]}.* tag at or before {version}")
    ref = max(same_line, key=_version_tuple)
    why = (
        f"the newest {want[0]}.{want[1]}.x tag in the mirror (the installed {version}"
        + (f", revision {revision[:10]}," if revision else "")
        + " is newer than the mirror's history)"
    )
    return ref, why


def export(repo: Path, ref: str, dest: Path) -> None:
    archive = subprocess.run(
        ["git", "--git-dir", str(repo), "archive", ref, "tests", "conftest.py"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    (dest / "pytest.ini").write_text(PYTEST_INI)


def run(python: str, dest: Path, files: list[str], name: str, tags: list[str], extra: list[str]) -> tuple[Path, float]:
    """One pytest run in ``dest``; the JUnit report's path and the seconds it took."""
    env = dict(os.environ)
    flags = [f for f in [env.get("PYTENSOR_FLAGS", ""), CONFTEST_FLAGS] if f]
    env["NUMBA_BOUNDSCHECK"] = "1"
    junit = dest / f"junit_{name}.xml"
    cmd = [python, "-m", "pytest", *files, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", "-o", "junit_family=xunit1"]
    if tags:
        flags.append("optimizer_including=" + ":".join(tags))
        plugin = dest / "relations_peer_plugin.py"
        plugin.write_text(PLUGIN.format(root=str(ROOT), tags=tags, report=str(dest / "relations_changes.json")))
        cmd[3:3] = ["-p", "relations_peer_plugin"]
    env["PYTENSOR_FLAGS"] = ",".join(flags)
    return junit, run_logged([*cmd, *extra], dest, env, name, junit)


def run_logged(cmd: list[str], dest: Path, env: dict[str, str], name: str, junit: Path) -> float:
    """Run the pytest command ``cmd`` in ``dest``, its output to ``dest/pytest_<name>.log``; the seconds it
    took (a run that writes no JUnit report ``junit`` raises, with the log's end)."""
    log = dest / f"pytest_{name}.log"
    junit.unlink(missing_ok=True)
    print(f"{name} run: pytest's output goes to {log}", flush=True)
    start = time.perf_counter()
    with log.open("w") as out:
        subprocess.run(cmd, cwd=dest, env=env, stdout=out, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    if not junit.exists():
        raise RuntimeError(f"the {name} run wrote no report; its output ends:\n{log.read_text()[-3000:]}")
    return seconds


def outcomes(junit: Path, width: int = 90) -> dict[str, tuple[str, str]]:
    """Test id -> (outcome, first line of the message, at most ``width`` characters) from a JUnit report."""
    found: dict[str, tuple[str, str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        path = case.get("file") or ""
        module = path[:-3].replace("/", ".")
        classname = case.get("classname", "")
        cls = classname[len(module) + 1 :] if classname.startswith(module + ".") else ""
        test = "::".join([path, *cls.split(".")] if cls else [path]) + f"::{case.get('name')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, message = ("failed" if child.tag == "failure" else "error"), child.get("message", "")
            elif child.tag == "skipped":
                kind = child.get("type", "")
                outcome = "xfailed" if "xfail" in kind else "skipped"
                message = child.get("message", "")
        found[test] = (outcome, message.splitlines()[0][:width] if message else "")
    return found


def table(stock: dict, tagged: dict, changes: dict[str, int]) -> list[str]:
    kinds = ("passed", "failed", "error", "skipped", "xfailed")
    files = sorted({t.split("::")[0] for t in stock} | {t.split("::")[0] for t in tagged})
    lines = [f"{'file':<44}{'run':<8}" + "".join(f"{k:>9}" for k in kinds) + f"{'total':>7}"]
    for f in [*files, "all"] if len(files) > 1 else files:
        for name, res in (("stock", stock), ("tagged", tagged)):
            mine = [o for t, (o, _) in res.items() if f == "all" or t.split("::")[0] == f]
            counts = [mine.count(k) for k in kinds]
            label = f.split("tests/tensor/", 1)[-1]
            lines.append(f"{label:<44}{name:<8}" + "".join(f"{c:>9}" for c in counts) + f"{len(mine):>7}")
    differing = sorted(t for t in set(stock) | set(tagged) if stock.get(t, ("absent", ""))[0] != tagged.get(t, ("absent", ""))[0])
    lines.append("")
    lines.append(f"{len(differing)} tests differ")
    for t in differing:
        s, g = stock.get(t, ("absent", "")), tagged.get(t, ("absent", ""))
        changed = changes.get(t, 0)
        lines.append(f"  {t}\n      stock: {s[0]:<8} tagged: {g[0]:<8} graphs the tag changed: {changed}  {g[1] or s[1]}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repo", type=Path, default=MIRROR, help="a git directory of pymc-devs/pytensor")
    ap.add_argument("--ref", help="the snapshot to export (default: see the docstring)")
    ap.add_argument("--files", nargs="+", help="test files (paths inside the snapshot)")
    ap.add_argument("--all", action="store_true", help="also test_elemwise.py and test_basic.py of tests/tensor/rewriting")
    ap.add_argument("--tags", nargs="+", help="optdb tags of the tagged run (default: those relations.mode() adds)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter whose PyTensor is tested")
    ap.add_argument("--keep", type=Path, help="export into this directory and keep the reports")
    ap.add_argument("-k", dest="select", help="pytest -k expression (both runs)")
    args = ap.parse_args(argv)
    if not (args.repo / "HEAD").exists():
        print(f"no git mirror at {args.repo} (fetch pymc-devs/pytensor, or pass --repo)", file=sys.stderr)
        return 2
    probe = json.loads(subprocess.run([args.python, "-c", PROBE.format(root=str(ROOT))], capture_output=True, text=True, check=True, cwd=ROOT).stdout.splitlines()[-1])
    try:
        ref, why = (args.ref, "given with --ref") if args.ref else snapshot(args.repo, probe["version"], probe["revision"])
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 2
    tags = args.tags or probe["tags"]
    files = list(args.files or DEFAULT_FILES) + (list(MORE_FILES) if args.all else [])
    extra = ["-k", args.select] if args.select else []
    dest = args.keep or Path(tempfile.mkdtemp(prefix="peer_pytensor_"))
    dest.mkdir(parents=True, exist_ok=True)
    export(args.repo, ref, dest)
    print(f"PyTensor {probe['version']} ({args.python}); tests of {ref} ({git(args.repo, 'rev-parse', '--short', ref + '^{commit}')}): {why}")
    print(f"relations: {probe['relations']}; tagged run: optimizer_including={':'.join(tags)}")
    print(f"files: {' '.join(files)}{'  -k ' + args.select if args.select else ''}; exported to {dest}")
    junit_s, secs_s = run(args.python, dest, files, "stock", [], extra)
    junit_t, secs_t = run(args.python, dest, files, "tagged", tags, extra)
    report = json.loads((dest / "relations_changes.json").read_text())
    print(f"stock run {secs_s:.0f} s, tagged run {secs_t:.0f} s (relations from {report['relations']})")
    stock, tagged = outcomes(junit_s), outcomes(junit_t)
    print("\n".join(table(stock, tagged, report["changes"])))
    ran, touched = len(report["calls"]), len(report["changes"])
    print(f"\nthe tag's passes ran in {ran} of {len(tagged)} tests ({sum(report['calls'].values())} calls)")
    print(f"and changed a graph in {touched} tests ({sum(report['changes'].values())} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
