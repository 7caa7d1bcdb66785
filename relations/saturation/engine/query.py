"""E-matching as conjunctive queries: a rule's left side compiled once, answered semi-naively.

A left-hand pattern (``p.var``, ``p.const`` and the scalar Elemwise builders ``p.add``,
``p.exp``, ...) is a tree of *atoms*: one per node (a row ``(op, child classes...)`` of that
Op's table, with its output class) and one per constant (a row of a constant leaf's table
whose value the ``p.const`` matches).  A match is one row per atom such that a child slot
equals the child atom's output class and the slots of one variable are equal.

The join is answered by backtracking, generated as Python source once per rule and e-graph:
start at a *pivot* atom's table, then walk the tree from it, down through ``nodes[class]``
(the class's e-nodes of the child's Op) and up through ``parents[class]`` (the e-nodes of
the parent's Op with the class at that slot).  Semi-naive: every row carries the clock tick
at which it was last written (a new e-node, a re-canonicalized one, or one whose class was
merged: its output column changed); a match is new when one of its rows is newer than the
rule's last search ``L`` (a row is stale, and skipped, when its e-node is no longer live; an
e-node whose current tick is ``L`` or later is new, at whichever of its rows).  Variant ``i``
takes atom ``i``'s rows from tick ``L`` on, atoms
before ``i`` older than ``L`` and atoms after ``i`` any: the variants are disjoint and
together give exactly the matches with at least one new row, each starting from the new
rows of its pivot.  Nothing is capped.  The innermost step is a list comprehension, and an
innermost up step reads a class's fitting parents once per search (a big class is the parent of
many new e-nodes).  A right side's new top e-node joins the match's class directly
(:meth:`EGraph.into`, inlined for two children) instead of making a class merged into it.
Guards are callables ``guard(eg, binding)`` over the classes bound to the variables' names
(and the analyses, :mod:`.analysis`).

Rules whose sides hold anything else (goal nodes such as ``p.reduce``,
``p.elemwise(f, inputs=xs)``, ``p.named``, nodes with props such as ``p.sum``, ``where=``
goals) are refused with :class:`UnsupportedRule` naming the rule: they keep running in
:mod:`relations.saturation.egraph`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytensor.tensor as pt
from pytensor.tensor.elemwise import Elemwise

from graph_bridge.intervals import defined_nowhere, partial_op
from relations import patterns as p
from relations.patterns.guards import Guard
from relations.saturation.engine.analysis import class_interval
from relations.saturation.engine.egraph import CLASS_SHIFT, TICK_BITS, TICK_MASK, EGraph
from relations.saturation.engine.guards import class_guard

__all__ = ["BoundRule", "QueryRule", "UnsupportedRule", "query_rule"]


class UnsupportedRule(ValueError):
    """A rule the query engine cannot run (its message names the rule and the part)."""


@dataclass
class _Atom:
    kind: str  # "op" or "const"
    pattern: Any
    parent: tuple[int, int] | None  # (atom index, slot)
    slots: list[tuple[str, int]] = field(default_factory=list)  # ("var", var index) | ("atom", atom index)


def _elemwise_op(node: Any, rule: str, side: str) -> Elemwise:
    if getattr(node, "is_pattern_node", False) and not isinstance(node, p.Node):
        raise UnsupportedRule(f"rule {rule!r}: {side} holds the goal node {node!r}; the query engine runs plain "
                              f"pattern trees only (the rule keeps running in relations.saturate)")
    if isinstance(node, p.Named):
        raise UnsupportedRule(f"rule {rule!r}: {side} holds p.named(...), a name for where= goals")
    if not isinstance(node, p.Node) or not isinstance(node.make, Elemwise) or node.props:
        raise UnsupportedRule(f"rule {rule!r}: {side} node {node!r} is not a scalar Elemwise pattern "
                              f"(p.add, p.exp, ...); the query engine runs those only")
    return node.make


class QueryRule:
    """A rule for the query engine: ``name``, ``lhs`` and ``rhs`` patterns, ``guards``.

    ``guards`` are callables ``guard(eg, binding) -> bool``, ``binding`` the classes bound to the
    variables' names (:func:`.analysis.positive` ...).  Raises :class:`UnsupportedRule` for sides
    that are not plain pattern trees."""

    def __init__(self, name: str, lhs: Any, rhs: Any, guards: Sequence[Callable] = ()) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        self.name, self.lhs, self.rhs = name, lhs, p.as_pattern(rhs, "rhs")
        self.guards = tuple(guards)
        for g in self.guards:
            if not callable(g):
                raise TypeError(f"guards: {g!r} of rule {name!r} is not callable")
        self.vars: list[Any] = []
        self.atoms: list[_Atom] = []
        self._code: dict[int, Any] = {}
        self._build: tuple[str, dict] | None = None
        _elemwise_op(lhs, name, "lhs")
        self._atom(lhs, None)
        self._check_rhs(self.rhs)

    def _atom(self, pat: Any, parent: tuple[int, int] | None) -> int:
        i = len(self.atoms)
        if isinstance(pat, p.Const):
            self.atoms.append(_Atom("const", pat, parent))
            return i
        _elemwise_op(pat, self.name, "lhs")
        atom = _Atom("op", pat, parent)
        self.atoms.append(atom)
        for s, a in enumerate(pat.args):
            if isinstance(a, p.PatternVar):
                if a not in self.vars:
                    self.vars.append(a)
                atom.slots.append(("var", self.vars.index(a)))
            else:
                atom.slots.append(("atom", self._atom(a, (i, s))))
        return i

    def _check_rhs(self, pat: Any) -> None:
        if isinstance(pat, p.PatternVar):
            if pat not in self.vars:
                raise UnsupportedRule(f"rule {self.name!r}: rhs variable {pat} does not occur in lhs")
        elif not isinstance(pat, p.Const):
            _elemwise_op(pat, self.name, "rhs")
            for a in pat.args:
                self._check_rhs(a)

    def code(self, pivot: int) -> Any:
        """The compiled search from atom ``pivot`` (generated once per rule)."""
        found = self._code.get(pivot)
        if found is None:
            found = self._code[pivot] = _compiled(search_source(self, pivot), f"<search {self.name} #{pivot}>")
        return found

    def build_source(self) -> tuple[str, dict]:
        """The source of the rule's ``apply`` and the constants it names (generated once per rule)."""
        if self._build is None:
            self._build = _build_source(self)
        return self._build

    def bind(self, eg: EGraph) -> BoundRule:
        """The rule's searchers and builder, generated for the op ids of ``eg``."""
        return BoundRule(self, eg)

    def __repr__(self) -> str:
        return f"QueryRule({self.name!r}: {self.lhs!r} -> {self.rhs!r})"


def query_rule(rel: Any, guards: Sequence[Callable] = ()) -> QueryRule:
    """The :class:`QueryRule` of a :func:`relations.rewrite_rule` relation (its ``name``, ``lhs``, ``rhs``).

    Its ``where=`` guards of the rule language (:class:`relations.patterns.guards.Guard`: ``is_float(a)``,
    ``positive(c)``, ...) that read types or values only (``reads`` ``"class"`` or ``"value"``) are read
    on the classes (:func:`.guards.class_guard`); any other ``where=`` clause (a guard that reads
    nodes, a predicate or goal over PyTensor graphs) is refused (state it as ``guards=`` over classes)."""
    name = getattr(rel, "name", None)
    if name is None or not hasattr(rel, "lhs"):
        raise TypeError(f"rel must be a rewrite_rule relation (with name, lhs, rhs), got {rel!r}")
    where = getattr(rel, "where", ())
    where = (where,) if isinstance(where, Guard) else tuple(where or ())
    others = [w for w in where if not isinstance(w, Guard)]
    if others:
        raise UnsupportedRule(f"rule {name!r}: where= clause {others[0]!r} runs on PyTensor graphs; give the query "
                              f"engine guards= over classes instead")
    nodes = [w for w in where if w.reads not in ("class", "value")]
    if nodes:
        raise UnsupportedRule(f"rule {name!r}: where= guard {nodes[0]!r} may read its variables' nodes "
                              f"(reads='node'); a class has many: declare reads='class' or 'value' when it "
                              f"reads types or values only")
    return QueryRule(name, rel.lhs, rel.rhs, [*[class_guard(w) for w in where], *guards])


# -- code generation ---------------------------------------------------------------------


def _visit_order(rule: QueryRule, pivot: int) -> list[tuple[int, str, int, int]]:
    """``(atom, how, from atom, slot)`` in BFS order from the pivot; ``how`` is "down" or "up"."""
    order = [(pivot, "pivot", -1, -1)]
    seen = {pivot}
    k = 0
    while k < len(order):
        j = order[k][0]
        atom = rule.atoms[j]
        for s, (kind, x) in enumerate(atom.slots):
            if kind == "atom" and x not in seen:
                seen.add(x)
                order.append((x, "down", j, s))
        if atom.parent is not None and atom.parent[0] not in seen:
            seen.add(atom.parent[0])
            order.append((atom.parent[0], "up", j, atom.parent[1]))
        k += 1
    return order


def _tick_of(j: int) -> str:
    """The tick that makes atom ``j``'s row new: the root atom's output class joins nothing, so
    only its tuple's tick counts (a merge of its class repeats matches already applied)."""
    return "(v >> INS) & MASK" if j == 0 else "v & MASK"


def _tick_test(j: int, pivot: int, t: str) -> str | None:
    if j == pivot:
        return f"{t} < L"  # the pivot is new (its rows come from tick L on)
    return f"{t} >= L" if j < pivot else None


class _Source:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 1

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)


def _emit_visit(src: _Source, rule: QueryRule, step: tuple[int, str, int, int], pivot: int, bound: set) -> None:
    j, how, frm, slot = step
    ops = f"OPS{j}"
    if how == "pivot":
        src.emit(f"for op in {ops}:")
        src.depth += 1
        src.emit(f"for n{j}, v in fresh(op, L, {int(j == 0)}):")
        src.depth += 1
        src.emit(f"c{j} = v >> BITS")
    else:
        if how == "down":
            src.emit(f"c{j} = n{frm}[{slot + 1}]")
            src.emit(f"for n{j} in nodes[c{j}]:")
            src.depth += 1
            test = f"n{j}[0] != {ops}" if rule.atoms[j].kind == "op" else f"n{j}[0] not in {ops}"
            src.emit(f"if {test}: continue")
        else:
            src.emit(f"for n{j} in parents[c{frm}]:")
            src.depth += 1
            src.emit(f"if n{j}[0] != {ops} or n{j}[{slot + 1}] != c{frm}: continue")
        tick = _tick_test(j, pivot, _tick_of(j))
        if how == "up" or tick:
            src.emit(f"v = get(n{j})")
            src.emit(f"if v is None{' or ' + tick if tick else ''}: continue")
        # else: a class's nodes list holds live e-nodes only (rebuild filters it), no look-up needed
        if how == "up":
            src.emit(f"c{j} = v >> BITS")
    for s, (kind, x) in enumerate(rule.atoms[j].slots):
        if kind == "var":
            if x in bound:
                src.emit(f"if n{j}[{s + 1}] != v{x}: continue")
            else:
                bound.add(x)
                src.emit(f"v{x} = n{j}[{s + 1}]")


def _emit_last(src: _Source, rule: QueryRule, step: tuple[int, str, int, int], pivot: int, bound: set) -> None:
    """The innermost step as a list comprehension appending the matches (no ``append`` call per match)."""
    j, how, frm, slot = step
    ops = f"OPS{j}"
    n = f"n{j}"
    conds: list[str] = []
    if how == "pivot":
        src.emit(f"for op in {ops}:")
        src.depth += 1
        source = f"fresh(op, L, {int(j == 0)})"
        cls = "v >> BITS"
    else:
        if how == "down":
            src.emit(f"c{j} = n{frm}[{slot + 1}]")
            source = f"nodes[c{j}]"
            conds.append(f"{n}[0] == {ops}" if rule.atoms[j].kind == "op" else f"{n}[0] in {ops}")
            cls = f"c{j}"
        else:
            source = f"parents[c{frm}]"
            conds.append(f"{n}[0] == {ops} and {n}[{slot + 1}] == c{frm}")
            cls = "v >> BITS"
        tick = _tick_test(j, pivot, _tick_of(j))
        if how == "up" or tick:
            # the tick test negated: the loop form skips a row when it holds
            keep = {f"{_tick_of(j)} < L": f"{_tick_of(j)} >= L", f"{_tick_of(j)} >= L": f"{_tick_of(j)} < L"}
            conds.append(f"(v := get({n})) is not None" + (f" and {keep[tick]}" if tick else ""))
    names: dict[int, str] = {}
    for s_, (kind, x) in enumerate(rule.atoms[j].slots):
        if kind == "var":
            if x in bound:
                conds.append(f"{n}[{s_ + 1}] == v{x}")
            elif x in names:
                conds.append(f"{n}[{s_ + 1}] == {names[x]}")
            else:
                names[x] = f"{n}[{s_ + 1}]"
    values = [cls if j == 0 else "c0", *[names.get(x, f"v{x}") for x in range(len(rule.vars))]]
    if how == "up":
        # the parents of c{frm} that fit depend on that class only: found once per class and search
        pre, post = conds[:2], conds[2:]
        src.emit(f"ups = seen.get(c{frm})")
        src.emit("if ups is None:")
        src.emit(f"    ups = seen[c{frm}] = [(v >> BITS, {n}) for {n} in {source} if {' and '.join(pre)}]")
        values = ["cls" if v == "v >> BITS" else v for v in values]
        src.emit(f"out += [({', '.join(values)},) for cls, {n} in ups{' if ' + ' and '.join(post) if post else ''}]")
        return
    if how == "pivot":
        cond = f" if {' and '.join(conds)}" if conds else ""
        src.emit(f"out += [({', '.join(values)},) for {n}, v in {source}{cond}]")
        return
    src.emit(f"out += [({', '.join(values)},) for {n} in {source} if {' and '.join(conds)}]")


def search_source(rule: QueryRule, pivot: int) -> str:
    """The Python source of variant ``pivot`` of ``rule``'s search: ``search(eg, L) -> list of matches``.

    A match is ``(root class, class of each variable...)``, variables in ``rule.vars`` order.  The
    innermost step is a list comprehension (:func:`_emit_last`)."""
    src = _Source()
    src.lines.append("def search(eg, L, out):")
    src.emit("get = eg.hashcons.get; nodes = eg.nodes; parents = eg.parents; fresh = eg.fresh; seen = {}")
    bound: set = set()
    order = _visit_order(rule, pivot)
    for step in order[:-1]:
        _emit_visit(src, rule, step, pivot, bound)
    _emit_last(src, rule, order[-1], pivot, bound)
    return "\n".join(src.lines)


def _rhs_vars(pat: Any, out: list) -> list:
    if isinstance(pat, p.PatternVar):
        if pat not in out:
            out.append(pat)
    elif isinstance(pat, p.Node):
        for a in pat.args:
            _rhs_vars(a, out)
    return out


def _build_source(rule: QueryRule) -> tuple[str, dict]:
    """The source of ``apply(eg, matches, guarded)``: build each match's right side, merge it with the root.

    Returns ``(unions, refused)``; also the constants the source names.  Guards run through
    ``guarded(eg, m)`` when the rule has any.  The right side's variables are canonicalized once
    per match, so a hash-cons miss of an e-node of one or two children is a new e-node
    (:meth:`EGraph.new1`, :meth:`EGraph.new2`: no second lookup); a hit's class is a root (a
    union re-points the moved e-nodes)."""
    lines = [
        "def apply(eg, matches, guarded):",
        "    add = eg.add; new1 = eg.new1; new2 = eg.new2; merge = eg.merge; find = eg.find; parent = eg.parent",
        "    into = eg.into",
        "    ctype = eg.ctype; tkey = eg.type_key; hc = eg.hashcons; get = hc.get",
        "    unions = refused = 0",
        "    for m in matches:",
    ]
    if rule.guards:
        lines.append("        if not guarded(eg, m): refused += 1; continue")
    names = ", ".join(["r", *[f"v{i}" for i in range(len(rule.vars))]])
    lines.append(f"        {names}{',' if not rule.vars else ''} = m")
    for x in _rhs_vars(rule.rhs, []):
        i = rule.vars.index(x)
        # one step inline (a class merged away in this apply points at its root mostly), then find
        lines.append(f"        if parent[v{i}] != v{i}:")
        lines.append(f"            v{i} = parent[v{i}]")
        lines.append(f"            if parent[v{i}] != v{i}: v{i} = find(v{i})")
    writer = _ApplyWriter(rule, lines)
    result = writer.emit(rule.rhs, [], top=True)
    lines += [
        "        if parent[r] != r:",
        "            r = parent[r]",
        "            if parent[r] != r: r = find(r)",
        f"        t = {result}",  # a root: a hash-cons hit's class, a canonical variable's, a constant's
        *(["        if parent[t] != t: t = find(t)"] if len(getattr(rule.rhs, "args", ())) > 2 else []),
        "        if r == t: continue",
        "        if ctype[r] != ctype[t] and tkey[ctype[r]] != tkey[ctype[t]]: refused += 1; continue",
        "        merge(r, t, m[0], t, (NAME, m))",
        "        unions += 1",
        "    eg.merged += born",
        "    return unions, refused",
    ]
    if writer.top_ops:
        op = writer.top_ops[0]
        lines[4:4] = [
            "    icache = eg.infer_cache; nodes = eg.nodes; parents = eg.parents; data = eg.data; ulog = eg.unions",
            f"    TF = eg.transfer[{op}]; NEED = eg.need[{op}]; table_app = eg.tables[{op}].append; now = eg.now",
            "    parent_app = parent.append; nodes_app = nodes.append; parents_app = parents.append",
            "    ctype_app = ctype.append; data_app = data.append; ulog_app = ulog.append",
        ]
    lines.insert(4, "    born = 0")
    return "\n".join(lines), writer.consts


class _ApplyWriter:
    """The lines of a generated ``apply`` that build a right side, one method per kind of node."""

    def __init__(self, rule: QueryRule, lines: list[str]) -> None:
        self.rule, self.lines = rule, lines
        self.consts: dict[str, Any] = {}
        self.counter = 0
        self.top_ops: list[str] = []

    def _fresh(self) -> str:
        self.counter += 1
        return f"t{self.counter}"

    def emit(self, pat: Any, siblings: list[str], top: bool = False) -> str:
        """The name of the class ``pat`` builds (lines appended that build it); ``top``: the right side's root."""
        if isinstance(pat, p.PatternVar):
            return f"v{self.rule.vars.index(pat)}"
        if isinstance(pat, p.Const):
            name = f"K{len(self.consts)}"
            self.consts[name] = pat
            t = self._fresh()
            self.lines.append(f"        {t} = const_class(eg, {name}, ({''.join(x + ', ' for x in siblings)}))")
            return t
        kids = [a for a in pat.args if not isinstance(a, p.Const)]
        kid_names = [self.emit(a, []) for a in kids]
        args = [self.emit(a, kid_names) if isinstance(a, p.Const) else kid_names[kids.index(a)] for a in pat.args]
        t = self._fresh()
        op = f"OP{id(pat)}"
        lines = self.lines
        if pat.name in p.ELEMWISE and partial_op(getattr(pt, pat.name)):
            # no e-node that is nowhere a real number (log(0), 1/0): graph_bridge.intervals.defined_nowhere
            lines.append(f"        if NOWHERE(eg, {op}, ({''.join(x + ', ' for x in args)})): refused += 1; continue")
        if top:  # a new top e-node joins the match's class (EGraph.into): no class of its own to merge
            self._top(op, args, t)
        elif len(args) in (1, 2):
            key = f"({op}, {', '.join(args)}{',' if len(args) == 1 else ''})"
            lines.append(f"        v = get({key})")
            lines.append(f"        if v is not None: {t} = v >> BITS")
            lines.append("        else:")
            lines.append(f"            {t} = new{len(args)}({op}, {', '.join(args)})")
            lines.append(f"            if {t} < 0: refused += 1; continue")
        else:
            lines.append(f"        {t} = add({op}, ({''.join(x + ', ' for x in args)}))")
            lines.append(f"        if {t} < 0: refused += 1; continue")
        return t

    def _top(self, op: str, args: list[str], t: str) -> None:
        lines = self.lines
        key = f"({op}, {', '.join(args)}{',' if len(args) == 1 else ''})"
        lines.append(f"        key = {key}")
        lines.append("        v = get(key)")
        lines.append(f"        if v is not None: {t} = v >> BITS")
        lines.append("        else:")
        lines.append("            if parent[r] != r:")
        lines.append("                r = parent[r]")
        lines.append("                if parent[r] != r: r = find(r)")
        if len(args) != 2:
            lines.append("            if into(key, r, m[0], (NAME, m)) < 0: refused += 1")
            lines.append("            else: unions += 1")
            lines.append("            continue")
            return
        # EGraph.into inlined where nothing needs it (a known type, canonical children, no analysis)
        x, y = args
        self.top_ops.append(op)
        lines.extend([
            f"            tid = icache.get(({op}, ctype[{x}], ctype[{y}]))",
            f"            if (tid is None or tid != ctype[r] or parent[{x}] != {x} or parent[{y}] != {y}"
            f" or (TF is not None and (NEED == 0 or (NEED == 2 and data[{x}] is not None and data[{y}]"
            f" is not None) or (NEED == 1 and (data[{x}] is not None or data[{y}] is not None))))):",
            "                if into(key, r, m[0], (NAME, m)) < 0: refused += 1",
            "                else: unions += 1",
            "                continue",
            "            i = len(parent)",
            "            parent_app(r); nodes_app(None); parents_app(None); ctype_app(tid); data_app(None)",
            "            ulog_app((m[0], i, (NAME, m)))",
            "            hc[key] = (r << BITS) | now",
            "            table_app(key)",
            "            nodes[r].append(key)",
            f"            parents[{x}].append(key)",
            f"            if {x} != {y}: parents[{y}].append(key)",
            "            born += 1",
            "            unions += 1",
            "            continue",
        ])


def const_class(eg: EGraph, const: Any, siblings: tuple[int, ...]) -> int:
    """The class of the constant leaf ``const`` builds beside the classes ``siblings`` (their dtype)."""
    key = (id(const), *[eg.ctype[eg.find(s)] for s in siblings])
    leaf = eg.const_cache.get(key)
    if leaf is None:
        leaf = eg.const_cache[key] = const.build([eg.types[t]() for t in key[1:]])
    return eg.add_leaf(leaf)


def nowhere(eg: EGraph, oid: int, kids: Sequence[int]) -> bool:
    """Whether the e-node ``oid(kids)`` is nowhere a real number by its children's intervals (a right side
    that builds one is refused: it cannot equal the match, which is)."""
    return defined_nowhere(eg.ops[oid][1], [class_interval(eg, k) for k in kids])


def _rhs_ops(pat: Any, eg: EGraph, names: dict) -> None:
    if isinstance(pat, p.Node):
        names[f"OP{id(pat)}"] = eg.op_id(pat.make, len(pat.args))
        for a in pat.args:
            _rhs_ops(a, eg, names)


@functools.lru_cache(maxsize=8192)
def _compiled(source: str, filename: str) -> Any:
    """The code object of a generated source (the same for every e-graph: the op ids are in the namespace)."""
    return compile(source, filename, "exec")


class BoundRule:
    """A :class:`QueryRule` compiled for one e-graph: ``search(L)`` and ``apply(matches)``."""

    def __init__(self, rule: QueryRule, eg: EGraph) -> None:
        self.rule, self.eg, self.name = rule, eg, rule.name
        names: dict[str, Any] = {
            "const_class": const_class, "NOWHERE": nowhere, "BITS": CLASS_SHIFT, "INS": TICK_BITS, "MASK": TICK_MASK,
        }
        for j, atom in enumerate(rule.atoms):
            if atom.kind == "op":
                names[f"OPS{j}"] = eg.op_id(atom.pattern.make, len(atom.pattern.args))
            else:
                names[f"OPS{j}"] = eg.const_ops(atom.pattern)
        self.searchers = []
        for pivot in range(len(rule.atoms)):
            env = dict(names)
            if rule.atoms[pivot].kind == "op":
                env[f"OPS{pivot}"] = (env[f"OPS{pivot}"],)
            code = rule.code(pivot)
            exec(code, env)  # noqa: S102 - source generated from the rule's own patterns
            ups = any(how == "up" for _, how, _, _ in _visit_order(rule, pivot))
            self.searchers.append((env["search"], ups))
        source, consts = rule.build_source()
        env = dict(names, **consts, NAME=rule.name)
        _rhs_ops(rule.rhs, eg, env)
        exec(_compiled(source, f"<apply {rule.name}>"), env)  # noqa: S102 - generated, as above
        self._apply = env["apply"]
        self.var_names = [str(v) for v in rule.vars]

    def search(self, since: int) -> list[tuple[int, ...]]:
        """The matches with a row written at tick ``since`` or later (all of them for ``since=0``), each once.

        A match (its substitution) fixes every row of a tree pattern in a congruence-closed
        e-graph, and the variants are disjoint, so a variant repeats a match only by visiting a
        row twice: a pivot range spanning several ticks (an e-node re-stamped at two of them);
        only those are deduplicated (a class's nodes list holds its live e-nodes once, and a
        parents list each live parent once: a union queues the moved parents instead of copying them)."""
        out: list = []
        several_ticks = since < self.eg.clock
        for search, _ in self.searchers:
            if several_ticks:
                found: list = []
                search(self.eg, since, found)
                out.extend(dict.fromkeys(found))
            else:
                search(self.eg, since, out)
        return out

    def guarded(self, eg: EGraph, m: tuple[int, ...]) -> bool:
        """Whether every guard holds of match ``m``."""
        binding = dict(zip(self.var_names, m[1:]))
        return all(g(eg, binding) for g in self.rule.guards)

    def apply(self, matches: list[tuple[int, ...]]) -> tuple[int, int]:
        """Build each match's right side and merge it with the match's root.

        Returns ``(unions made, matches refused)`` (refused: a guard failed, or the right side
        is ill-typed or of another dtype/broadcastable than the left)."""
        return self._apply(self.eg, matches, self.guarded)
