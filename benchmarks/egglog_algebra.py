"""The 8 algebra rules of issue 42 in egglog-python 14 and in ``relations.saturation.engine``, side by side.

For ``benchmarks/saturation.py``'s ``algebra`` table (egglog is a ``bench`` extra, Python 3.12).
The rules: commutativity and associativity of ``add`` and ``mul``, distributivity both ways,
``a - b`` and ``a + -b`` both ways.  The expressions: ``poly(n)``, the sum over ``i < n`` of
``(x_i + x_{i+1}) * (x_{i+1} - x_{i+2}) + 2 * x_i`` (float64 scalars ``x_i``; in egglog a sort
``Num`` with ``Num.var(name)`` and ``Num(2)``).  Both engines run egg's semantics: each
iteration searches every rule on the clean e-graph, then applies every match, then rebuilds
(no scheduler: egglog's ``run`` has none by default).  E-nodes are counted alike: every row of
every function of egglog's e-graph (``all_function_sizes``: variables and the constant are
rows), every live e-node of ours (leaves included).
"""

from __future__ import annotations

import gc
import time
from typing import Any

import pytensor.tensor as pt
from egglog import EGraph, Expr, StringLike, i64Like, rewrite, ruleset, vars_

from relations import patterns as p
from relations.saturation.engine.egraph import EGraph as QueryEGraph
from relations.saturation.engine.query import QueryRule
from relations.saturation.engine.runner import Limits, Runner

__all__ = ["RULES", "Num", "egglog_iterations", "engine_iterations", "poly", "query_rules"]


class Num(Expr):
    """A number term."""

    def __init__(self, v: i64Like) -> None: ...

    @classmethod
    def var(cls, name: StringLike) -> Num: ...

    def __add__(self, other: Num) -> Num: ...

    def __mul__(self, other: Num) -> Num: ...

    def __sub__(self, other: Num) -> Num: ...

    def __neg__(self) -> Num: ...


_a, _b, _c = vars_("a b c", Num)
RULES = ruleset(
    rewrite(_a + _b).to(_b + _a),
    rewrite(_a * _b).to(_b * _a),
    rewrite(_a + (_b + _c)).to((_a + _b) + _c),
    rewrite(_a * (_b * _c)).to((_a * _b) * _c),
    rewrite(_a * (_b + _c)).to(_a * _b + _a * _c),
    rewrite(_a * _b + _a * _c).to(_a * (_b + _c)),
    rewrite(_a - _b).to(_a + (-_b)),
    rewrite(_a + (-_b)).to(_a - _b),
)


def query_rules() -> list[QueryRule]:
    """The same 8 rules as patterns for the query engine."""
    a, b, c = p.var("a"), p.var("b"), p.var("c")
    return [
        QueryRule("add_comm", p.add(a, b), p.add(b, a)),
        QueryRule("mul_comm", p.mul(a, b), p.mul(b, a)),
        QueryRule("add_assoc", p.add(a, p.add(b, c)), p.add(p.add(a, b), c)),
        QueryRule("mul_assoc", p.mul(a, p.mul(b, c)), p.mul(p.mul(a, b), c)),
        QueryRule("distribute", p.mul(a, p.add(b, c)), p.add(p.mul(a, b), p.mul(a, c))),
        QueryRule("factor", p.add(p.mul(a, b), p.mul(a, c)), p.mul(a, p.add(b, c))),
        QueryRule("sub_to_add", p.sub(a, b), p.add(a, p.neg(b))),
        QueryRule("add_to_sub", p.add(a, p.neg(b)), p.sub(a, b)),
    ]


def poly(n: int, var: Any, two: Any) -> Any:
    """``sum_i (x_i + x_{i+1}) * (x_{i+1} - x_{i+2}) + two * x_i`` over ``i < n``, ``x_i = var(f"x{i}")``."""
    xs = [var(f"x{i}") for i in range(n + 2)]
    e = None
    for i in range(n):
        t = (xs[i] + xs[i + 1]) * (xs[i + 1] - xs[i + 2]) + two * xs[i]
        e = t if e is None else e + t
    return e


def egglog_iterations(n: int, k: int) -> list[tuple[int, float]]:
    """``(e-nodes, seconds)`` after each of ``k`` iterations of egglog on ``poly(n)``."""
    eg = EGraph()
    eg.let("e", poly(n, Num.var, Num(2)))
    out = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(k):
            t0 = time.process_time()
            eg.run(RULES)
            dt = time.process_time() - t0
            out.append((sum(size for _, size in eg.all_function_sizes()), dt))
    finally:
        gc.enable()
    return out


def engine_iterations(n: int, k: int, rules: list | None = None) -> tuple[list[tuple[int, float]], Any]:
    """``(e-nodes, seconds)`` after each of ``k`` iterations of the query engine on ``poly(n)``; and the runner."""
    eg = QueryEGraph()
    eg.add_graph([poly(n, pt.dscalar, 2)])
    runner = Runner(eg, rules or query_rules(), Limits(iterations=k, nodes=None, seconds=None))
    out = []
    gc.collect()
    gc.disable()
    try:
        eg.rebuild()
        start = time.perf_counter()
        for i in range(k):
            t0 = time.process_time()
            runner.step(i, start)
            out.append((eg.n_nodes, time.process_time() - t0))
    finally:
        gc.enable()
    return out, runner
