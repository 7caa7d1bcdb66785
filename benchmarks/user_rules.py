"""Cost of a rule declared with ``relations.rewrite_rule`` against the same rule hand-written.

Three forms of ``neg(neg(a)) -> a`` and ``exp(log(a)) -> a`` (the second
guarded to vectors), run by ``relations.normalize`` on the same graph (a
chain of ``n`` blocks ``exp(neg(neg(log(x)))) + x``):

- ``pattern``: ``rewrite_rule`` over ``relations.patterns``;
- ``etuple``: a hand-written relation, ``lall_ready`` over ``eq`` with an
  etuple pattern of ``etuplize(pt.neg)`` heads and ``ndimo`` as the guard;
- ``PyTensor``: the same rewrites as ``@node_rewriter`` functions applied by
  PyTensor's ``in2out`` to a fixpoint.

Both relational forms reach the same normal form (checked before timing).
Prints one table: median seconds of 5 runs and ratios.
"""

from __future__ import annotations

import sys

import pytensor.tensor as pt
from pytensor.graph.basic import equal_computations
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import in2out, node_rewriter
from pytensor.graph.traversal import explicit_graph_inputs
from pytensor.tensor.elemwise import Elemwise
from timing import median_seconds  # benchmarks/timing.py (the script's own folder)
from unification import var

import relations
from graph_bridge import etuplize, ndimo, term
from logic_core.goals import lall_ready
from logic_core.unifier import eq
from relations import patterns as p

a = p.var("a")
PATTERN_RULES = (
    relations.rewrite_rule("neg_neg", p.neg(p.neg(a)), a),
    relations.rewrite_rule("exp_log", p.exp(p.log(a)), a, where=(lambda a: a.type.ndim == 1,)),
)

NEG, EXP, LOG = etuplize(pt.neg), etuplize(pt.exp), etuplize(pt.log)


@relations.rule(heads=(Elemwise,), child_heads=(Elemwise,), measure="nodes (-2)")
def neg_nego(lhs, rhs):
    x = var()
    return lall_ready(eq(lhs, term(NEG, term(NEG, x))), eq(rhs, x))


@relations.rule(heads=(Elemwise,), child_heads=(Elemwise,), measure="nodes (-2)")
def exp_logo(lhs, rhs):
    x = var()
    return lall_ready(eq(lhs, term(EXP, term(LOG, x))), ndimo(x, 1), eq(rhs, x))


ETUPLE_RULES = (neg_nego, exp_logo)


@node_rewriter([Elemwise])
def local_neg_neg(fgraph, node):
    if node.op == pt.neg and node.inputs[0].owner and node.inputs[0].owner.op == pt.neg:
        return [node.inputs[0].owner.inputs[0]]
    return None


@node_rewriter([Elemwise])
def local_exp_log(fgraph, node):
    inner = node.inputs[0].owner if node.op == pt.exp else None
    if inner is not None and inner.op == pt.log and inner.inputs[0].type.ndim == 1:
        return [inner.inputs[0]]
    return None


def chain(n: int):
    x = pt.vector("x")
    y = x
    for _ in range(n):
        y = pt.exp(pt.neg(pt.neg(pt.log(y)))) + x
    return y


def _rewritten(n: int):
    x = pt.vector("x")
    y = x
    for _ in range(n):
        y = y + x
    return y


def native(y):
    fg = FunctionGraph(outputs=[y], clone=True)
    in2out(local_neg_neg, local_exp_log, ignore_newtrees=False).rewrite(fg)
    return fg


def main(sizes=(10, 100, 1000)) -> None:
    print(f"{'blocks':>7} {'nodes':>6} {'pattern s':>10} {'etuple s':>9} {'PyTensor s':>10} "
          f"{'pattern/etuple':>15} {'pattern/PyTensor':>17}")
    for n in sizes:
        y = chain(n)
        a_ = relations.normalize(y, rules=PATTERN_RULES)
        b_ = relations.normalize(y, rules=ETUPLE_RULES)
        assert equal_computations([a_], [b_]), "the two forms disagree"
        fg = native(y)
        assert equal_computations(fg.outputs, [a_], fg.inputs, list(explicit_graph_inputs([y]))), (
            "PyTensor's rewriters disagree"
        )
        expected = _rewritten(n)
        assert equal_computations(
            [a_], [expected], list(explicit_graph_inputs([y])), list(explicit_graph_inputs([expected]))
        ), "the rules did not apply"
        tp = median_seconds(lambda: relations.normalize(y, rules=PATTERN_RULES))
        te = median_seconds(lambda: relations.normalize(y, rules=ETUPLE_RULES))
        tn = median_seconds(lambda: native(y))
        print(f"{n:>7} {5 * n:>6} {tp:>10.4f} {te:>9.4f} {tn:>10.4f} {tp / te:>15.2f} {tp / tn:>17.2f}")


if __name__ == "__main__":
    main((10, 100) if "--quick" in sys.argv else (10, 100, 1000))
