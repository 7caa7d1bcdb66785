"""The layers hold: a PyTensor-free logic core, a bridge that knows no rule, no cycles, small functions.

``logic_core`` (unification fast paths, goals, moded goals) imports no
PyTensor and nothing of the project above it; ``graph_bridge`` (everything
that reads or builds PyTensor objects) imports ``logic_core`` and never
``relations``; ``relations`` (rules, engines, queries) builds on both.
Every import counts, function-local ones too.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("logic_core", "graph_bridge", "relations")
MAX_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    found = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, list[str], int]]:
    """``(module, names, line)`` for every import in the module, at any depth."""
    out = []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.extend((a.name, [], node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            out.append((base, [a.name for a in node.names], node.lineno))
    return out


def _project_targets(module: str, names: list[str]) -> list[str]:
    """The project modules an import reads: the submodules it names, and the module if it names more."""
    subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES]
    whole = module in MODULES and (not names or len(subs) < len(names))
    return subs + ([module] if whole else [])


def _graph() -> dict[str, set[str]]:
    return {
        name: {t for module, names, _ in _imports(name, path) for t in _project_targets(module, names) if t != name}
        for name, path in MODULES.items()
    }


def test_the_logic_core_imports_no_pytensor_and_nothing_above_it():
    for name, path in MODULES.items():
        if not name.startswith("logic_core"):
            continue
        for module, _, line in _imports(name, path):
            top = module.split(".")[0]
            assert top not in ("pytensor", "numpy", "graph_bridge", "relations"), f"{path.name}:{line} imports {module}"
    code = "import logic_core, sys; print(sorted(m for m in ('pytensor', 'numpy', 'graph_bridge', 'relations') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_bridge_knows_no_rule():
    for name, path in MODULES.items():
        if not name.startswith("graph_bridge"):
            continue
        for module, _, line in _imports(name, path):
            assert module.split(".")[0] != "relations", f"{path.name}:{line} imports {module}"


def test_no_import_cycle_counting_function_local_imports():
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the stack, 2: done

    def visit(start: str) -> list[str] | None:
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return path[path.index(child) :] + [child]
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(sorted(graph[child]))))
                path.append(child)
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = visit(name)
            assert cycle is None, " -> ".join(cycle)


#: Which of ``relations``' packages each package may import (besides itself, the bridge and the
#: core): the rule language knows no rule, the families no engine, the engines no client.
LAYERS = {
    "relations.patterns": set(),
    "relations.rules": {"relations.patterns", "relations.arguments"},
    "relations.greedy": {"relations.patterns", "relations.arguments"},
    "relations.saturation": {"relations.patterns", "relations.arguments", "relations.rules", "relations.greedy"},
    "relations.queries": {
        "relations.patterns", "relations.arguments", "relations.rules", "relations.greedy", "relations.saturation",
    },
    "relations.compile": {
        "relations.patterns", "relations.arguments", "relations.rules", "relations.greedy", "relations.saturation",
    },
}


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "relations" and len(parts) > 1 else parts[0]


def test_the_packages_import_one_way():
    """rules -> patterns -> graph_bridge -> logic_core; the engines, queries and passes above the rules."""
    graph = _graph()
    wrong = []
    for name, targets in graph.items():
        allowed = LAYERS.get(_package(name))
        if allowed is None:
            continue
        for t in targets:
            pt = _package(t)
            if pt != _package(name) and pt.startswith("relations") and pt not in allowed:
                wrong.append(f"{name} imports {t}")
    assert not wrong, wrong


def test_every_package_says_what_it_holds():
    for name, path in MODULES.items():
        if path.name == "__init__.py":
            doc = ast.get_docstring(ast.parse(path.read_text()))
            assert doc and doc.strip(), f"{path.relative_to(ROOT)} has no docstring"


def test_the_cycle_check_sees_a_function_local_cycle(tmp_path):
    """The check above could fail: a function-local import back is an edge."""
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    import a\n")
    edges = {n: {m for m, _, _ in _imports(n, tmp_path / f"{n}.py")} for n in ("a", "b")}
    assert edges == {"a": {"b"}, "b": {"a"}}


def test_no_private_name_is_imported_across_modules():
    for name, path in MODULES.items():
        for module, names, line in _imports(name, path):
            if module.split(".")[0] not in PACKAGES:
                continue
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            private += [part for part in module.split(".") if part.startswith("_") and part != "__init__"]
            assert not private, f"{path.relative_to(ROOT)}:{line} imports {private} from {module}"


@pytest.mark.parametrize("pkg", PACKAGES)
def test_no_function_is_longer_than_sixty_lines(pkg):
    long = []
    for name, path in MODULES.items():
        if name.split(".")[0] != pkg:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                    body = body[1:]  # the docstring does not count
                if body:
                    lines = body[-1].end_lineno - body[0].lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, long


@pytest.mark.parametrize("first", PACKAGES)
def test_each_layer_imports_first_on_its_own(first):
    """Whichever package a user imports first, the others import after it and the views are installed."""
    code = (
        f"import {first}\n"
        "import pytensor.tensor as pt, relations\n"
        "import graph_bridge.logic_views, logic_core.unifier as core\n"
        "assert core._term_view is graph_bridge.logic_views.term_view\n"
        "x = pt.vector('x'); y = pt.exp(x)\n"
        "print(relations.normalize(pt.sum(pt.expand_dims(y, 0))).owner.inputs[0].owner.op)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Exp"


#: Modules whose purpose is to gather names for their readers (the public API, the rule authors' namespace, ``p``).
#: ``relations.pymc`` is the namespace of the PyMC calls (``import relations.pymc as rpm``).
NAMESPACES = {"relations", "graph_bridge", "logic_core", "relations.lang", "relations.patterns", "relations.pymc"}


def _reexports(name: str, path: Path) -> list[str]:
    """Names in ``__all__`` that the module only imports from another project module."""
    tree = ast.parse(path.read_text())
    exported: list[str] = []
    imported: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            exported = [e.value for e in node.value.elts]  # type: ignore[attr-defined]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES:
            imported.update(a.asname or a.name for a in node.names)
    return sorted(set(exported) & imported)


def test_no_module_re_exports_what_another_defines():
    """A name has one home: former homes do not re-export it (namespaces excepted)."""
    found = {name: _reexports(name, path) for name, path in MODULES.items() if name not in NAMESPACES}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_re_export_check_sees_one(tmp_path):
    (tmp_path / "m.py").write_text('from relations.patterns.relation import rule\n__all__ = ["rule", "own"]\nown = 1\n')
    assert _reexports("m", tmp_path / "m.py") == ["rule"]


#: The rule tables: each rule one ``rewrite_rule`` over patterns and the bridge's relations.
RULE_TABLES = (
    "relations.rules.lift",
    "relations.rules.dimshuffle",
    "relations.rules.broadcast",
    "relations.rules.join",
    "relations.rules.reductions",
    "relations.rules.measurable",
)


def _reads_graph_objects(path: Path) -> list[str]:
    """numpy imports and reads of a node's owner or a constant's data in the module (measure predicates aside)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"{path.name}:{node.lineno} imports {n}" for n in names if n.split(".")[0] == "numpy"]
        elif isinstance(node, ast.Attribute) and node.attr in ("owner", "data"):
            found.append(f"{path.name}:{node.lineno} reads .{node.attr}")
    return found


@pytest.mark.parametrize("table", RULE_TABLES)
def test_a_rule_table_reads_no_node_and_no_constant(table):
    assert _reads_graph_objects(MODULES[table]) == []


def test_the_rule_table_check_sees_a_constant_read(tmp_path):
    (tmp_path / "t.py").write_text("import numpy as np\ndef f(c):\n    return np.all(c.data == 0)\n")
    assert len(_reads_graph_objects(tmp_path / "t.py")) == 2


SEE_PAGE = re.compile(r'^See docs/(\S+\.md), "(\w+)"\.$', re.M)
#: The families of ``relations/rules/`` whose tables are ``rewrite_rule`` entries (each explained on a docs page).
TABLE_FAMILIES = ("algebra", "batched", "broadcast", "dimshuffle", "join", "lift", "measurable", "reductions")


def _pattern_rules(module: str) -> dict[str, object]:
    """The ``rewrite_rule`` relations a module's namespace holds, by name."""
    import importlib

    from relations.patterns.family import Family

    found = list(vars(importlib.import_module(module)).values())
    found += [r for f in found if isinstance(f, Family) for r in f.rules]
    return {r.__name__: r for r in found if callable(r) and hasattr(r, "lhs") and hasattr(r, "doc")}


def _builtin_pattern_rules() -> dict[str, dict[str, object]]:
    """The ``rewrite_rule`` entries of each family module of ``relations/rules/`` (``relations.rules.lift``, ...), by name."""
    families = {}
    for name in MODULES:
        if name.startswith("relations.rules.") and _pattern_rules(name):
            families[name.removeprefix("relations.rules.")] = _pattern_rules(name)
    return families


def test_a_table_entry_is_its_sides_its_guards_and_a_one_line_doc():
    """help(rule) gives the rule as Before/After, its guards and its measure; the prose is on the family's page."""
    families = _builtin_pattern_rules()
    assert set(TABLE_FAMILIES) <= set(families), sorted(families)
    for family, rules in families.items():
        for name, r in rules.items():
            assert r.doc and "\n" not in r.doc.strip(), f"{family}.{name}: doc= must be one line, the prose goes to docs/"
            text = r.__doc__
            for part in ("Before::", "After::", "Measure: "):
                assert part in text, f"{name}: {part!r} missing from its docstring"
            assert f"    {r.lhs!r}\n" in text and f"    {r.rhs!r}\n" in text, name
            # a choice (saturation only: the cost decides) needs no measure; the docstring says so
            assert (r.measure.stated or r.choice) and f"Measure: {r.measure.text}" in text, name
            [(page, rule_name)] = SEE_PAGE.findall(text)
            assert rule_name == name
            lines = (ROOT / "docs" / page).read_text().splitlines()
            assert any(re.match(rf"#+ .*\b{name}\b", line) for line in lines), f"docs/{page} has no heading {name!r}"


def test_the_table_doc_check_sees_a_long_doc():
    from relations import patterns as p
    from relations.patterns.rewrite_rule import rewrite_rule

    a = p.var("a")
    long = rewrite_rule("neg_neg", p.neg(p.neg(a)), a, doc="Two negations cancel.\n\nMeasure: ...")
    assert "\n" in long.doc.strip() and SEE_PAGE.findall(long.__doc__) == []
