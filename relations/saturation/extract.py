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
  :data:`EXACT_MAX_NODES` e-nodes (:data:`EXACT_MAX_ACYCLIC` if it has
  no cycle) and HiGHS proves the optimum within
  :data:`EXACT_SECONDS`;
- greedy otherwise: each class takes its e-node of least tree cost (a
  fixpoint, bottom-up), then a pass of local improvement tries every other
  e-node of each used class and keeps a switch that lowers the DAG cost.

:class:`Extraction` says which (``method``).
"""

from __future__ import annotations

import gc
import heapq
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from math import isfinite
from typing import Any

import numpy as np
from pytensor.graph.basic import Variable

from graph_bridge.provenance import TAG, mark_rewritten, node_ids
from graph_bridge.traverse import bottom_up, clone_over
from relations.arguments import check_callable, check_count
from relations.saturation.costs import type_elements

__all__ = ["EXACT_MAX_ACYCLIC", "EXACT_MAX_NODES", "EXACT_SECONDS", "MAX_FORM_NODES", "Extraction", "extract", "forms"]

#: E-nodes up to which the exact integer program is tried.
EXACT_MAX_NODES = 4000
#: E-nodes up to which the exact integer program is tried on an e-graph without cycles (no order
#: constraints: HiGHS solves the 8,000 e-nodes of the generated 10^4-node graph in 0.3-0.5 s, where
#: the greedy extraction took 1.2 s for a costlier form).
EXACT_MAX_ACYCLIC = 20_000
#: Seconds HiGHS is given to prove the optimum.
EXACT_SECONDS = 2.0
#: Seconds the greedy extraction's local improvement may take.
IMPROVE_SECONDS = 1.0
#: Sub-forms a listing of forms may build (``forms(nodes=...)``, ``relations.equivalents``): each
#: is at most one new node (about 650 bytes, 1 KB with its bookkeeping), so a listing holds at
#: most about 250 MB, whatever the caller keeps of it.
MAX_FORM_NODES = 250_000
#: The most a cycle of the e-graph is unrolled in a form (heights within its component; see
#: ``forms``): twice the cycle's classes, less one, up to this.
CYCLE_UNROLL = 15
#: Form counts saturate here (an index below it decodes exactly).
_CAP = 1 << 62

Cost = Callable[[Variable], float]


@dataclass
class Extraction:
    """An extracted form: ``result`` (the input's structure), its ``cost``, ``method`` ("exact" or "greedy")."""

    result: Any
    cost: float
    method: str


def _costs(egraph: Any, cost: Cost | None) -> tuple[dict[int, list], dict[int, float]]:
    classes = egraph.classes()
    costs: dict[int, float] = {}
    if cost is None:  # the default cost reads the e-nodes' types: no variable is built
        for nodes in classes.values():
            for n in nodes:
                costs[n.term] = 0.0 if n.is_leaf else type_elements(n.type)
        return classes, costs
    fn = cost
    for nodes in classes.values():
        for n in nodes:
            if n.is_leaf:
                costs[n.term] = 0.0
                continue
            c = fn(n.var)
            if type(c) is not float or not isfinite(c):  # (the usual answer, checked in line)
                if isinstance(c, bool) or not isinstance(c, (int, float, np.number)) or not np.isfinite(c):
                    raise TypeError(f"cost must return a finite real number, got {c!r}")
                c = float(c)
            costs[n.term] = c
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
    with collector_paused():
        return _extract(egraph, cost, roots, method)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (resumed after, if it was on), as ``EGraph.run`` does:
    a full pass over a saturated e-graph of 10^4 e-nodes and its graph (half a million objects)
    takes about a second, and extraction only reads them."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _extract(egraph: Any, cost: Cost | None, roots: Sequence[Variable] | None, method: str) -> Extraction:
    root_classes = _roots(egraph, roots)
    classes, costs = _costs(egraph, cost)
    choice = None
    size = sum(map(len, classes.values()))
    scc = _components(classes) if method == "auto" and size <= EXACT_MAX_ACYCLIC else None
    if scc is not None and (size <= EXACT_MAX_NODES or _acyclic(classes, scc)):
        choice = _exact(classes, costs, root_classes, scc)
        method = "exact" if choice is not None else method
    if choice is None:
        choice, method = _greedy(classes, costs, root_classes), "greedy"
    order = _reached(choice, root_classes)
    if order is None:
        raise RuntimeError("extraction: the selection has a cycle")
    total = sum(costs[choice[c].term] for c in order)
    # the toolkit's Ops in a new form are lowered when it compiles (graph_bridge.provenance): the
    # nodes no term of the saturated graph had are tagged as they are built
    outputs = _build(choice, root_classes, order, egraph.given_terms if roots is None else None)
    if roots is not None:
        mark_rewritten(outputs, list(roots))
    return Extraction(egraph.structure(outputs) if roots is None else outputs, total, method)


def _tree_costs(classes: dict[int, list], costs: dict[int, float]) -> dict[int, tuple[float, Any]]:
    """Each class's e-node of least tree cost (classes only reachable through cycles have none).

    A worklist (Knuth's generalization of Dijkstra, egg's extraction by
    worklist): an e-node is priced once all its input classes are, and a
    class popped first at a cost is final, since a node never costs less
    than its inputs (costs are not negative).  Ties keep the e-node met
    first in the class's order.
    """
    users: dict[int, list[tuple[int, Any]]] = {}
    waiting: dict[int, int] = {}
    heap: list[tuple[float, int, int, int, Any]] = []
    seq = 0
    for c, nodes in classes.items():
        for i, n in enumerate(nodes):
            kids = set(n.children)
            seq += 1
            if not kids:
                heap.append((costs[n.term], i, seq, c, n))
                continue
            waiting[id(n)] = len(kids)
            for k in kids:
                users.setdefault(k, []).append((c, n))
    heapq.heapify(heap)
    rank = {id(n): i for ms in classes.values() for i, n in enumerate(ms)}
    best: dict[int, tuple[float, Any]] = {}
    while heap:
        total, _, _, c, n = heapq.heappop(heap)
        if c in best:
            continue
        best[c] = (total, n)
        for p, m in users.get(c, ()):
            waiting[id(m)] -= 1
            if waiting[id(m)] == 0 and p not in best:
                price = costs[m.term] + sum(best[k][0] for k in set(m.children))
                seq += 1
                heapq.heappush(heap, (price, rank[id(m)], seq, p, m))
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


def _acyclic(classes: dict[int, list], scc: dict[int, int]) -> bool:
    """Whether no class reads itself through its e-nodes (every component one class, no self-loop)."""
    return len(set(scc.values())) == len(scc) and not any(c in n.children for c, ms in classes.items() for n in ms)


def _exact(
    classes: dict[int, list], costs: dict[int, float], roots: list[int], scc: dict[int, int] | None = None
) -> dict[int, Any] | None:
    """The optimal DAG selection by integer programming, or ``None`` (no proof of optimum in time).

    The classes every selection reads (:func:`_forced`) are picked before the program is
    built: it has a binary for each e-node of the other classes only, and an order variable
    for each class on a cycle of classes."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    scc = _components(classes) if scc is None else scc
    size = _component_sizes(scc)
    forced = _forced(classes, roots, scc, size)
    free = [c for c in _reachable(classes, roots) if c not in forced]
    nodes = [n for c in free for n in classes[c] if n.term is not None]
    col = {id(n): j for j, n in enumerate(nodes)}
    # an order variable for each class on a cycle of two or more classes
    cls = {c: i for i, c in enumerate([c for c in free if size[scc[c]] > 1])}
    nx, nc = len(nodes), len(cls)
    big = nc + 1
    lo: list[float]
    hi: list[float]
    rows, cols, vals, lo, hi = [], [], [], [], []

    def row(entries: list[tuple[int, float]], low: float, high: float) -> None:
        r = len(lo)
        for j, v in entries:
            rows.append(r)
            cols.append(j)
            vals.append(v)
        lo.append(low)
        hi.append(high)

    # a root, or an input of a forced e-node, picks one of its e-nodes
    needed = {r for r in roots if r not in forced}
    needed.update(k for c in forced for k in classes[c][0].children if k not in forced)
    for r in needed:
        row([(col[id(n)], 1.0) for n in classes[r]], 1.0, np.inf)
    for c in free:
        for n in classes[c]:
            j = col[id(n)]
            for k in set(n.children):
                if k == c or k in forced:
                    continue
                # picked -> its input class picks one; within a cycle, the input class comes first
                row([(col[id(m)], 1.0) for m in classes[k]] + [(j, -1.0)], 0.0, np.inf)
                if scc[c] == scc[k]:
                    row([(nx + cls[c], 1.0), (nx + cls[k], -1.0), (j, -float(big))], 1.0 - big, np.inf)
    if not lo:
        return _picked(classes, forced, col, np.zeros(nx, dtype=bool), roots)
    cost_vec = np.array([costs[n.term] for n in nodes] + [0.0] * nc)
    selfloop = [col[id(n)] for c in free for n in classes[c] if c in n.children]
    upper = np.ones(nx + nc)
    upper[nx:] = nc
    upper[selfloop] = 0.0
    integrality = np.concatenate([np.ones(nx), np.zeros(nc)])
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
    return _picked(classes, forced, col, res.x[:nx] > 0.5, roots)


def _component_sizes(scc: dict[int, int]) -> dict[int, int]:
    """How many classes each strongly connected component (:func:`_components`) holds."""
    size: dict[int, int] = {}
    for k in scc.values():
        size[k] = size.get(k, 0) + 1
    return size


def _forced(classes: dict[int, list], roots: list[int], scc: dict[int, int], size: dict[int, int]) -> set[int]:
    """The classes every selection reads and has one way to pick: a root, or an input of such a
    class's e-node, that holds one e-node and is on no cycle (``size``: :func:`_component_sizes`)."""
    forced: set[int] = set()
    stack = list(roots)
    while stack:
        c = stack.pop()
        if c in forced or len(classes[c]) != 1 or size[scc[c]] != 1:
            continue
        only = classes[c][0]
        if c in only.children:
            continue
        forced.add(c)
        stack.extend(only.children)
    return forced


def _reachable(classes: dict[int, list], roots: list[int]) -> list[int]:
    """The classes some selection may read: the roots and, transitively, every e-node's inputs."""
    seen = set(roots)
    stack = list(seen)
    while stack:
        for n in classes[stack.pop()]:
            for k in n.children:
                if k not in seen:
                    seen.add(k)
                    stack.append(k)
    return [c for c in classes if c in seen]


def _picked(
    classes: dict[int, list], forced: set[int], col: dict[int, int], picked: Any, roots: list[int]
) -> dict[int, Any] | None:
    """The selection the forced classes and the integer program's solution ``picked`` (a flag per
    e-node column) make, if it reaches the roots."""
    choice: dict[int, Any] = {c: classes[c][0] for c in forced}
    for c, ms in classes.items():
        if c in forced:
            continue
        for n in ms:
            if id(n) not in col:
                break
            if picked[col[id(n)]]:
                choice[c] = n
                break
    return None if _reached(choice, roots) is None else choice


def _components(classes: dict[int, list]) -> dict[int, int]:
    """Each class's strongly connected component in the graph of classes and their e-nodes' inputs.

    Tarjan's algorithm, iterative.
    """
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


def _build(choice: dict[int, Any], roots: list[int], order: list[int], given: int | None = None) -> list[Variable]:
    """The variables of the selection (``order``: the classes it reads, inputs first): an e-node whose
    inputs come out as its own variable's is that variable.  With ``given`` (the terms of the graph
    saturated are those below it), every node of the result that graph lacks is tagged as a
    rewrite's (``graph_bridge.provenance.TAG``)."""
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
            if given is not None and n.term >= given:
                setattr(node.tag, TAG, True)  # a node a rule made
            continue
        key = (node, tuple(ins))
        new = nodes_built.get(key)
        if new is None:
            new = clone_over(node, ins, same_values=True)
            if new is None:
                new = node.clone_with_new_inputs(ins, strict=False)
            nodes_built[key] = new
            if given is not None:  # the node, and any its building put between it and ``ins``
                mark_rewritten(new.outputs, (), {id(i.owner) for i in ins if i.owner is not None})
        built[c] = new.outputs[node.outputs.index(v)]
    return [built[r] for r in roots]


def forms(
    egraph: Any,
    limit: int | None = None,
    roots: Sequence[Variable] | None = None,
    *,
    seconds: float | None = None,
    nodes: int | None = MAX_FORM_NODES,
) -> Iterator[Any]:
    """The distinct forms of ``roots`` (default: the graph given to ``saturate``) the e-graph holds, lazily.

    The cheapest (by tree cost) first at every class, then the others in
    the e-graph's order; each form is structurally distinct from the
    earlier ones and has the roots' structure and types.  ``limit`` bounds
    how many (``None``: all there are, where a class on a cycle, such as
    ``a``'s class holding ``neg(neg(a))``, has its forms up to a height
    within its cycle that unrolls it about once: see :func:`_budgets`).

    Nothing is listed ahead: the forms of every class are counted (one
    integer per class and height), and the ``i``-th form is decoded from
    its index and built bottom-up with a work stack (no recursion, so
    graphs thousands of levels deep are fine), sharing what earlier forms
    built; a form costs its new nodes.  Two bounds end the listing early
    (no error: the forms so far are all valid): ``seconds`` of listing,
    and ``nodes``, the sub-forms it may materialise (each at most one new
    node, about a kilobyte; default :data:`MAX_FORM_NODES`; ``None``: no
    bound), which bounds its memory, including forms the caller keeps.
    """
    limit = check_count(limit, "limit", allow_none=True)
    nodes = check_count(nodes, "nodes", allow_none=True)
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not seconds > 0):
        raise ValueError(f"seconds must be a positive number or None, got {seconds!r}")
    with collector_paused():
        root_classes = _roots(egraph, roots)
        classes, costs = _costs(egraph, None)
        tree = _tree_costs(classes, costs)
        for ms in classes.values():
            ms.sort(key=lambda n: _node_tree_cost(n, tree, costs))
    given = egraph.roots if roots is None else list(roots)
    deadline = None if seconds is None else time.perf_counter() + seconds
    return _distinct(egraph, classes, root_classes, limit, given, roots is None, deadline, nodes)


def _node_tree_cost(n: Any, tree: dict, costs: dict) -> float:
    if any(k not in tree for k in n.children):
        return float("inf")
    return costs[n.term] + sum(tree[k][0] for k in set(n.children))


class _Full(Exception):
    """The listing materialised as many sub-forms as it may (``forms(nodes=...)``)."""


def _distinct(
    egraph: Any,
    classes: dict,
    roots: list[int],
    limit: int | None,
    given: list[Variable],
    whole: bool,
    deadline: float | None = None,
    max_nodes: int | None = MAX_FORM_NODES,
) -> Iterator[Any]:
    table = _FormTable(classes)
    keys = [k for c in roots if (k := table.root_key(c)) is not None]
    if len(keys) < len(roots):
        return
    counts = [table.count(k) for k in keys]
    if not all(counts):
        return
    builder = _FormBuilder(table, given, max_nodes)
    seen: set[tuple] = set()
    produced = 0
    for index in _mixed_radix(counts):
        if deadline is not None and time.perf_counter() > deadline:
            return
        try:
            built = [builder.form(k, i) for k, i in zip(keys, index)]
        except _Full:
            return
        ids = tuple(s for s, _ in built)
        if ids in seen:
            continue
        seen.add(ids)
        outs = [v for _, v in built]
        yield egraph.structure(outs) if whole else outs
        produced += 1
        if limit is not None and produced >= limit:
            return


def _mixed_radix(counts: list[int]) -> Iterator[tuple[int, ...]]:
    """Every index tuple below ``counts``, the last varying fastest (``itertools.product``'s order)."""
    digits = [0] * len(counts)
    while True:
        yield tuple(digits)
        j = len(digits) - 1
        while j >= 0:
            digits[j] += 1
            if digits[j] < counts[j]:
                break
            digits[j] = 0
            j -= 1
        if j < 0:
            return


def _budgets(classes: dict[int, list], finite: dict[int, int]) -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
    """How far the forms of each class may unroll a cycle: ``(component, least, budget)`` per class.

    A class's strongly connected component (:func:`_components`) is cyclic
    when it has more than one class or an e-node over itself.  Heights are
    counted within a component only (an e-node over classes of lower
    components only is 0 there; one over classes of its own, one more than
    their highest), so a deep graph of small cycles has few keys per class.
    ``least``: a class's least such height (over e-nodes whose inputs all
    have a finite form, ``finite``: :func:`_min_heights`; Knuth's
    generalization of Dijkstra); ``budget``: the height its forms may
    reach, 0 off every cycle, and on one the least heights of its
    component or ``2 size - 1`` (at most :data:`CYCLE_UNROLL`), whichever is
    more: each cycle unrolled about once.
    """
    comp = _components(classes)
    size = _component_sizes(comp)
    cyclic = {comp[c] for c, ms in classes.items() if size[comp[c]] > 1 or any(c in n.children for n in ms)}

    def own(c: int, n: Any) -> set[int] | None:  # an e-node's inputs in its own component (all finite)
        if any(k not in finite for k in n.children):
            return None
        return {k for k in n.children if comp[k] == comp[c]}

    least = _least_heights(classes, own)
    top: dict[int, int] = {}
    for c, h in least.items():
        top[comp[c]] = max(top.get(comp[c], 0), h)
    budget = {c: max(top[comp[c]], min(2 * size[comp[c]] - 1, CYCLE_UNROLL)) if comp[c] in cyclic else 0 for c in least}
    return comp, least, budget


def _min_heights(classes: dict[int, list]) -> dict[int, int]:
    """Each class's least form height (a leaf 0, an e-node one more than its highest input): a
    class absent has no finite form."""
    return _least_heights(classes, lambda c, n: set(n.children))


def _least_heights(classes: dict[int, list], counted: Callable[[int, Any], set[int] | None]) -> dict[int, int]:
    """Each class's least height, an e-node's being one more than the highest of the input classes
    ``counted(class, e-node)`` gives (0 if none; ``None``: the e-node is left out).  Knuth's
    generalization of Dijkstra: a class popped first at a height is final, as an e-node's height
    never falls below its counted inputs'."""
    users: dict[int, list] = {}
    waiting: dict[int, int] = {}
    heap: list[tuple[int, int]] = []
    for c, ms in classes.items():
        for n in ms:
            kids = counted(c, n)
            if kids is None:
                continue
            if not kids:
                heap.append((0, c))
                continue
            waiting[id(n)] = len(kids)
            for k in kids:
                users.setdefault(k, []).append((c, n, kids))
    heapq.heapify(heap)
    final: dict[int, int] = {}
    while heap:
        h, c = heapq.heappop(heap)
        if c in final:
            continue
        final[c] = h
        for p, n, kids in users.get(c, ()):
            waiting[id(n)] -= 1
            if waiting[id(n)] == 0 and p not in final:
                heapq.heappush(heap, (1 + max(final[k] for k in kids), p))
    return final


class _FormTable:
    """The forms of the classes, counted, not listed.

    A key ``(class, b)`` stands for the forms of the class whose height
    within its component is at most ``b`` (:func:`_budgets`; a class's
    root key has its whole budget): for each e-node in the class's order
    whose inputs of its own component have a form lower than ``b``, that
    e-node over every combination of its inputs' forms (the last input
    varying fastest; an input of a lower component at its whole budget,
    one of its own at ``b - 1``).  Counts saturate at :data:`_CAP`: an
    index below it decodes exactly."""

    def __init__(self, classes: dict) -> None:
        self.classes = classes
        self.finite = _min_heights(classes)
        self.comp, self.least, self.budget = _budgets(classes, self.finite)
        #: key -> ((cumulative count, e-node, input keys), ...), and its count
        self.entries: dict[tuple[int, int], tuple] = {}
        self.counts: dict[tuple[int, int], int] = {}

    def root_key(self, c: int) -> tuple[int, int] | None:
        return (c, self.budget[c]) if c in self.budget else None

    def _rows(self, key: tuple[int, int]) -> list[tuple[Any, tuple]]:
        """The e-nodes of ``key`` and their input keys."""
        cls, b = key
        comp, least, budget = self.comp, self.least, self.budget
        here = comp[cls]
        rows = []
        for n in self.classes[cls]:
            ks = []
            for k in n.children:
                if comp[k] != here:
                    if k not in budget:
                        break
                    ks.append((k, budget[k]))
                elif least.get(k, b) < b:
                    ks.append((k, b - 1))
                else:
                    break
            else:
                rows.append((n, tuple(ks)))
        return rows

    def count(self, root: tuple[int, int]) -> int:
        """The number of forms of ``root`` (capped), counting every key below it first (``bottom_up``)."""
        counts, entries = self.counts, self.entries
        pending: dict[tuple[int, int], tuple[list, list]] = {}  # key -> its rows, and the keys they read

        def below(key: tuple[int, int]) -> list:
            found = pending.get(key)
            if found is None:
                rows = self._rows(key)
                found = pending[key] = (rows, [sub for _, ks in rows for sub in ks])
            return found[1]

        for key in bottom_up([root], counts.__contains__, below):
            rows = pending.pop(key)[0]  # (bottom_up asks ``below`` of every key before it gives it)
            out, total = [], 0
            for n, ks in rows:
                c = 1
                for k in ks:
                    c = min(c * counts[k], _CAP)
                if c:
                    total = min(total + c, _CAP)
                    out.append((total, n, ks))
            counts[key], entries[key] = total, tuple(out)
        return counts[root]

    def decode(self, key: tuple[int, int], i: int) -> tuple[Any, list[tuple[tuple[int, int], int]]]:
        """The ``i``-th form of ``key``: its e-node and its inputs' ``(key, index)``."""
        rows = self.entries[key]
        r = next(j for j, row in enumerate(rows) if i < row[0])
        before = rows[r - 1][0] if r else 0
        _, n, ks = rows[r]
        j = i - before
        digits = [0] * len(ks)
        counts = self.counts
        for p in range(len(ks) - 1, -1, -1):
            j, digits[p] = divmod(j, counts[ks[p]])
        return n, list(zip(ks, digits))


class _FormBuilder:
    """Builds decoded forms bottom-up (a work stack), each distinct sub-form once.

    A sub-form is named by its e-node's term and its inputs' sub-form numbers
    (structurally distinct e-nodes never give one tree: the e-graph is
    hash-consed), so equal sub-forms reached at two heights are one variable.
    New nodes are tagged as rewritten (``graph_bridge.provenance``) as they are built."""

    def __init__(self, table: _FormTable, given: list[Variable], max_nodes: int | None) -> None:
        self.table = table
        self.max_nodes = max_nodes
        self.by_item: dict[tuple, int] = {}  # (key, index) -> sub-form number
        self.numbers: dict[tuple, int] = {}  # (term, input numbers) -> sub-form number
        self.variables: list[Variable] = []  # sub-form number -> its variable
        self.marked = node_ids(given)

    def form(self, key: tuple[int, int], i: int) -> tuple[int, Variable]:
        """The sub-form number and variable of the ``i``-th form of ``key``."""
        by_item, table = self.by_item, self.table
        root = (key, i)
        decoded: dict[tuple, tuple] = {}  # item -> its e-node and its inputs' items

        def below(item: tuple) -> list:
            found = decoded.get(item)
            if found is None:
                found = decoded[item] = table.decode(*item)
            return found[1]

        for item in bottom_up([root], by_item.__contains__, below):
            n, subs = decoded.pop(item)
            by_item[item] = self._number(n, [by_item[sub] for sub in subs])
        s = by_item[root]
        return s, self.variables[s]

    def _number(self, n: Any, ins: list[int]) -> int:
        name = (n.term, tuple(ins))
        s = self.numbers.get(name)
        if s is not None:
            return s
        if self.max_nodes is not None and len(self.variables) >= self.max_nodes:
            raise _Full()
        v = n.var
        if v.owner is not None:
            v = _over(v, [self.variables[k] for k in ins])
            if id(v.owner) not in self.marked:
                mark_rewritten([v], (), self.marked)
                self.marked.add(id(v.owner))
        s = self.numbers[name] = len(self.variables)
        self.variables.append(v)
        return s


def _over(v: Variable, ins: list[Variable]) -> Variable:
    node = v.owner
    if all(a is b for a, b in zip(ins, node.inputs)):
        return v
    new = clone_over(node, ins, same_values=True)
    if new is None:
        new = node.clone_with_new_inputs(ins, strict=False)
    return new.outputs[node.outputs.index(v)]
