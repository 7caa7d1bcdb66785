"""Extraction from an e-graph: the cheapest form (DAG-aware), and every form.

A cost is per e-node: ``cost(v)`` for the variable ``v`` an e-node computes
(default :func:`relations.saturation.costs.variable_elements`, the elements its node writes
for that output, so the sum over a graph is
:func:`relations.saturation.costs.elements_touched`); graph inputs and constants cost
nothing.  A selection picks one e-node per class used; its cost counts each
class once however often it is read (DAG-aware: a shared sub-graph is paid
once).

- exact: an integer program (SciPy's HiGHS ``milp``): a binary per e-node,
  each root class picks one, a picked e-node's input classes pick one, and
  an order on classes rules out cycles; used when the e-graph has at most
  :data:`EXACT_MAX_NODES` e-nodes and HiGHS proves the optimum within
  :data:`EXACT_SECONDS`;
- greedy otherwise: each class takes its e-node of least tree cost (a
  fixpoint, bottom-up), then a pass of local improvement tries every other
  e-node of each used class and keeps a switch that lowers the DAG cost.

:class:`Extraction` says which (``method``).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice, product
from typing import Any

import numpy as np
from pytensor.graph.basic import Variable

from graph_bridge.provenance import mark_rewritten, node_ids
from graph_bridge.traverse import clone_over
from relations.arguments import check_callable, check_count
from relations.saturation.costs import variable_elements
from graph_bridge.structural_keys import StructuralKeys

__all__ = ["EXACT_MAX_NODES", "EXACT_SECONDS", "Extraction", "extract", "forms"]

#: E-nodes up to which the exact integer program is tried.
EXACT_MAX_NODES = 4000
#: Seconds HiGHS is given to prove the optimum.
EXACT_SECONDS = 2.0
#: Seconds the greedy extraction's local improvement may take.
IMPROVE_SECONDS = 1.0

Cost = Callable[[Variable], float]


@dataclass
class Extraction:
    """An extracted form: ``result`` (the input's structure), its ``cost``, ``method`` ("exact" or "greedy")."""

    result: Any
    cost: float
    method: str


def _costs(egraph: Any, cost: Cost | None) -> tuple[dict[int, list], dict[int, float]]:
    classes = egraph.classes()
    fn = variable_elements if cost is None else cost
    costs: dict[int, float] = {}
    for nodes in classes.values():
        for n in nodes:
            if n.var.owner is None:
                costs[n.term] = 0.0
            else:
                c = fn(n.var)
                if isinstance(c, bool) or not isinstance(c, (int, float, np.number)) or not np.isfinite(c):
                    raise TypeError(f"cost must return a finite real number, got {c!r}")
                costs[n.term] = float(c)
    return classes, costs


def _roots(egraph: Any, roots: Sequence[Variable] | None) -> list[int]:
    outs = egraph.roots if roots is None else list(roots)
    return [egraph.class_of(v) for v in outs]


def extract(
    egraph: Any, cost: Cost | None = None, roots: Sequence[Variable] | None = None, method: str = "auto"
) -> Extraction:
    """The cheapest form of ``roots`` (default: the graph given to ``saturate``) in ``egraph``.

    ``cost(v)`` is the cost of the e-node computing variable ``v`` (see the
    module docstring).  The result has the roots' structure and types.
    ``method``: ``"auto"`` (exact where small enough, see the module
    docstring) or ``"greedy"`` (never the integer program: what a caller
    with a tight time budget, the compile pass, asks for).
    """
    cost = check_callable(cost, "cost")
    if method not in ("auto", "greedy"):
        raise ValueError(f"method must be 'auto' or 'greedy', got {method!r}")
    root_classes = _roots(egraph, roots)
    classes, costs = _costs(egraph, cost)
    choice = None
    if method == "auto" and sum(map(len, classes.values())) <= EXACT_MAX_NODES:
        choice = _exact(classes, costs, root_classes)
        method = "exact" if choice is not None else method
    if choice is None:
        choice, method = _greedy(classes, costs, root_classes), "greedy"
    total = _dag_cost(classes, costs, choice, root_classes)
    outputs = _build(egraph, classes, choice, root_classes)
    # the toolkit's Ops in a new form are lowered when it compiles (graph_bridge.provenance)
    mark_rewritten(outputs, egraph.roots if roots is None else list(roots))
    return Extraction(egraph.structure(outputs) if roots is None else outputs, total, method)


def _tree_costs(classes: dict[int, list], costs: dict[int, float]) -> dict[int, tuple[float, Any]]:
    """Each class's e-node of least tree cost (a fixpoint; classes only reachable through cycles have none)."""
    best: dict[int, tuple[float, Any]] = {}
    changed = True
    while changed:
        changed = False
        for c, nodes in classes.items():
            for n in nodes:
                if any(k not in best for k in n.children):
                    continue
                total = costs[n.term] + sum(best[k][0] for k in set(n.children))
                old = best.get(c)
                if old is None or total < old[0] - 1e-12:
                    best[c] = (total, n)
                    changed = True
    return best


def _reached(choice: dict[int, Any], roots: list[int]) -> list[int] | None:
    """The classes the selection reads from ``roots``; ``None`` if it has a cycle."""
    state: dict[int, int] = {}
    order: list[int] = []
    for r in roots:
        stack = [(r, False)]
        while stack:
            c, done = stack.pop()
            if done:
                state[c] = 2
                order.append(c)
                continue
            s = state.get(c)
            if s == 2:
                continue
            if s == 1:
                return None  # a cycle
            state[c] = 1
            stack.append((c, True))
            for k in choice[c].children:
                if state.get(k) == 1:
                    return None
                if state.get(k) is None:
                    stack.append((k, False))
    return order


def _dag_cost(classes: dict, costs: dict, choice: dict[int, Any], roots: list[int]) -> float:
    reached = _reached(choice, roots)
    if reached is None:
        return float("inf")
    return sum(costs[choice[c].term] for c in reached)


def _greedy(classes: dict[int, list], costs: dict[int, float], roots: list[int]) -> dict[int, Any]:
    """Least tree cost per class, then switches that lower the DAG cost (bounded in time)."""
    best = _tree_costs(classes, costs)
    choice = {c: n for c, (_, n) in best.items()}
    total = _dag_cost(classes, costs, choice, roots)
    deadline = time.perf_counter() + IMPROVE_SECONDS
    for c in list(_reached(choice, roots) or ()):
        for n in classes[c]:
            if n is choice[c] or any(k not in choice for k in n.children):
                continue
            if time.perf_counter() > deadline:
                return choice
            old = choice[c]
            choice[c] = n
            new_total = _dag_cost(classes, costs, choice, roots)
            if new_total < total - 1e-12:
                total = new_total
            else:
                choice[c] = old
    return choice


def _exact(classes: dict[int, list], costs: dict[int, float], roots: list[int]) -> dict[int, Any] | None:
    """The optimal DAG selection by integer programming, or ``None`` (no proof of optimum in time)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    nodes = [n for ms in classes.values() for n in ms if n.term is not None]
    col = {id(n): j for j, n in enumerate(nodes)}
    cls = {c: i for i, c in enumerate(classes)}
    nx, nc = len(nodes), len(classes)
    big = nc + 1
    scc = _components(classes)
    rows, cols, vals, lo, hi = [], [], [], [], []

    def row(entries: list[tuple[int, float]], low: float, high: float) -> None:
        r = len(lo)
        for j, v in entries:
            rows.append(r)
            cols.append(j)
            vals.append(v)
        lo.append(low)
        hi.append(high)

    for r in set(roots):
        row([(col[id(n)], 1.0) for n in classes[r]], 1.0, np.inf)
    for c, ms in classes.items():
        for n in ms:
            j = col[id(n)]
            for k in set(n.children):
                if k == c:
                    continue
                # picked -> its input class picks one; within a cycle, the input class comes first
                row([(col[id(m)], 1.0) for m in classes[k]] + [(j, -1.0)], 0.0, np.inf)
                if scc[c] == scc[k]:
                    row([(nx + cls[c], 1.0), (nx + cls[k], -1.0), (j, -float(big))], 1.0 - big, np.inf)
    cost_vec = np.array([costs[n.term] for n in nodes] + [0.0] * nc)
    selfloop = [col[id(n)] for c, ms in classes.items() for n in ms if c in n.children]
    upper = np.ones(nx + nc)
    upper[nx:] = nc
    upper[selfloop] = 0.0
    integrality = np.concatenate([np.ones(nx), np.zeros(nc)])
    if not lo:
        return _greedy(classes, costs, roots)
    a = coo_matrix((vals, (rows, cols)), shape=(len(lo), nx + nc)).tocsr()
    res = milp(
        cost_vec,
        constraints=LinearConstraint(a, np.array(lo), np.array(hi)),
        integrality=integrality,
        bounds=Bounds(np.zeros(nx + nc), upper),
        options={"time_limit": EXACT_SECONDS},
    )
    if res.status != 0 or res.x is None:
        return None
    return _picked(classes, col, res.x[:nx] > 0.5, roots)


def _picked(classes: dict[int, list], col: dict[int, int], picked: Any, roots: list[int]) -> dict[int, Any] | None:
    """The selection the integer program's solution ``picked`` (a flag per e-node column) makes, if it reaches the roots."""
    choice: dict[int, Any] = {}
    for c, ms in classes.items():
        for n in ms:
            if picked[col[id(n)]]:
                choice[c] = n
                break
    return None if _reached(choice, roots) is None else choice


def _components(classes: dict[int, list]) -> dict[int, int]:
    """Each class's strongly connected component in the graph of classes and their e-nodes' inputs (Tarjan, iterative)."""
    succ = {c: sorted({k for n in ms for k in n.children}) for c, ms in classes.items()}
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    comp: dict[int, int] = {}
    on: set[int] = set()
    stack: list[int] = []
    for start in classes:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            c, i = work.pop()
            if i == 0:
                index[c] = low[c] = len(index)
                stack.append(c)
                on.add(c)
            ks = succ[c]
            while i < len(ks) and ks[i] in index and ks[i] not in on:
                i += 1
            if i < len(ks):
                k = ks[i]
                work.append((c, i + 1))
                if k not in index:
                    work.append((k, 0))
                else:
                    low[c] = min(low[c], index[k])
                continue
            for k in ks:
                if k in on:
                    low[c] = min(low[c], low[k])
            if low[c] == index[c]:
                while True:
                    k = stack.pop()
                    on.discard(k)
                    comp[k] = c
                    if k == c:
                        break
    return comp


def _build(egraph: Any, classes: dict, choice: dict[int, Any], roots: list[int]) -> list[Variable]:
    """The variables of the selection: an e-node whose inputs come out as its own variable's is that variable."""
    order = _reached(choice, roots)
    if order is None:
        raise RuntimeError("extraction: the selection has a cycle")
    built: dict[int, Variable] = {}
    nodes_built: dict[tuple, Any] = {}
    for c in order:  # inputs first
        n = choice[c]
        v = n.var
        node = v.owner
        if node is None:
            built[c] = v
            continue
        ins = [built[k] for k in n.children]
        if all(a is b for a, b in zip(ins, node.inputs)):
            built[c] = v
            continue
        key = (node, tuple(ins))
        new = nodes_built.get(key)
        if new is None:
            new = clone_over(node, ins, same_values=True)
            if new is None:
                new = node.clone_with_new_inputs(ins, strict=False)
            nodes_built[key] = new
        built[c] = new.outputs[node.outputs.index(v)]
    return [built[r] for r in roots]


def forms(egraph: Any, limit: int | None = None, roots: Sequence[Variable] | None = None) -> Iterator[Any]:
    """The distinct forms of ``roots`` (default: the graph given to ``saturate``) the e-graph holds, lazily.

    The cheapest (by tree cost) first at every class, then the others in
    the e-graph's order; each form is structurally distinct from the
    earlier ones and has the roots' structure and types.  ``limit`` bounds
    how many (``None``: all there are, where a class on a cycle, such as
    ``a``'s class holding ``neg(neg(a))``, has its forms up to a height
    bound that unrolls the cycle about once: see :func:`_height_bounds`).  The classes are walked with a work stack, not
    recursion, so graphs thousands of levels deep are fine.
    """
    limit = check_count(limit, "limit", allow_none=True)
    root_classes = _roots(egraph, roots)
    classes, costs = _costs(egraph, None)
    tree = _tree_costs(classes, costs)
    for ms in classes.values():
        ms.sort(key=lambda n: _node_tree_cost(n, tree, costs))
    given = egraph.roots if roots is None else list(roots)
    return _distinct(egraph, classes, root_classes, limit, given, roots is None)


def _node_tree_cost(n: Any, tree: dict, costs: dict) -> float:
    if any(k not in tree for k in n.children):
        return float("inf")
    return costs[n.term] + sum(tree[k][0] for k in set(n.children))


def _distinct(
    egraph: Any, classes: dict, roots: list[int], limit: int | None, given: list[Variable], whole: bool
) -> Iterator[Any]:
    keys = StructuralKeys()
    original = node_ids(given)
    seen: set[tuple] = set()
    cache: dict[tuple, list] = {}
    bound = _height_bounds(classes)
    lowest = _min_heights(classes)
    produced = 0
    cap = None if limit is None else limit
    per_root = [_class_forms(c, classes, (bound, lowest), cache, cap) for c in roots]
    for outs in product(*per_root):
        k = tuple(keys.key(o) for o in outs)
        if k in seen:
            continue
        seen.add(k)
        mark_rewritten(list(outs), given, original)
        yield egraph.structure(list(outs)) if whole else list(outs)
        produced += 1
        if limit is not None and produced >= limit:
            return


def _height_bounds(classes: dict[int, list]) -> dict[int, int]:
    """Each class's bound on the height of its forms (:func:`forms`): a leaf is 0, an e-node one more
    than its highest input; a class on a cycle (its strongly connected component has more than one
    class, or an e-node over itself) is bounded by twice its component's size above what leaves the
    component, so each cycle is unrolled about once.  Iterative, inputs before the classes reading them."""
    scc = _components(classes)
    members: dict[int, list[int]] = {}
    for c, comp in scc.items():
        members.setdefault(comp, []).append(c)
    out: dict[int, set[int]] = {comp: set() for comp in members}
    cyclic: set[int] = set()
    for c, ms in classes.items():
        for n in ms:
            for k in n.children:
                if scc[k] != scc[c]:
                    out[scc[c]].add(scc[k])
                elif k == c or len(members[scc[c]]) > 1:
                    cyclic.add(scc[c])
    height: dict[int, int] = {}
    for start in members:
        stack = [start]
        while stack:
            comp = stack[-1]
            if comp in height:
                stack.pop()
                continue
            missing = [t for t in out[comp] if t not in height]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            below = max((height[t] for t in out[comp]), default=-1)
            if comp in cyclic:
                height[comp] = below + 2 * len(members[comp])
            else:
                (c,) = members[comp]
                height[comp] = max((0 if not n.children else below + 1 for n in classes[c]), default=0)
    return {c: height[comp] for c, comp in scc.items()}


def _min_heights(classes: dict[int, list]) -> dict[int, int]:
    """Each class's least form height (a leaf 0, an e-node one more than its highest input): a
    class absent has no finite form.  Knuth's generalization of Dijkstra: a class popped first
    at a height is final, as an e-node's height never falls below its inputs'."""
    users: dict[int, list] = {}
    waiting: dict[int, int] = {}
    heap: list[tuple[int, int]] = []
    for c, ms in classes.items():
        for n in ms:
            kids = set(n.children)
            if not kids:
                heap.append((0, c))
                continue
            waiting[id(n)] = len(kids)
            for k in kids:
                users.setdefault(k, []).append((c, n))
    heapq.heapify(heap)
    final: dict[int, int] = {}
    while heap:
        h, c = heapq.heappop(heap)
        if c in final:
            continue
        final[c] = h
        for p, n in users.get(c, ()):
            waiting[id(n)] -= 1
            if waiting[id(n)] == 0 and p not in final:
                heapq.heappush(heap, (1 + max(final[k] for k in n.children), p))
    return final


def _class_forms(c: int, classes: dict, heights: tuple[dict, dict], cache: dict, cap: int | None) -> list[Variable]:
    """The forms of class ``c`` (at most ``cap``, if given) of height at most its bound.

    Iterative (a work stack, not recursion: deep graphs are fine).  The key
    ``(class, h)`` stands for the forms of height at most ``h``, built once
    the keys of its e-nodes' input classes at ``h - 1`` are in ``cache``;
    ``h`` never exceeds the class's bound (``heights[0]``), so a class off
    every cycle has one key, and an e-node is skipped where an input has no
    form that low (``heights[1]``: least heights), so a cycle is unrolled
    only as far as its bound allows above what it reads."""
    bound, lowest = heights
    if c not in lowest:
        return []
    stack = [(c, bound[c])]
    while stack:
        key = stack[-1]
        if key in cache:
            stack.pop()
            continue
        cls, h = key
        nodes = [n for n in classes[cls] if all(lowest.get(k, h) < h for k in n.children)]
        subs = [[(k, min(h - 1, bound[k])) for k in n.children] for n in nodes]
        missing = [sub for ks in subs for sub in ks if sub not in cache]
        if missing:
            stack.extend(dict.fromkeys(missing))
            continue
        stack.pop()
        cache[key] = _forms_over(nodes, [[cache[k] for k in ks] for ks in subs], cap)
    return cache[(c, bound[c])]


def _forms_over(nodes: list, subs: list[list[list[Variable]]], cap: int | None) -> list[Variable]:
    """The forms of a class: each e-node over every combination of its inputs' forms (at most ``cap``)."""
    out: list[Variable] = []
    for n, ins_forms in zip(nodes, subs):
        v = n.var
        if v.owner is None:
            out.append(v)
        else:
            for ins in islice(product(*ins_forms), None if cap is None else max(cap - len(out), 0)):
                out.append(_over(v, list(ins)))
        if cap is not None and len(out) >= cap:
            break
    return out


def _over(v: Variable, ins: list[Variable]) -> Variable:
    node = v.owner
    if all(a is b for a, b in zip(ins, node.inputs)):
        return v
    new = clone_over(node, ins, same_values=True)
    if new is None:
        new = node.clone_with_new_inputs(ins, strict=False)
    return new.outputs[node.outputs.index(v)]
