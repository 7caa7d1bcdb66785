"""Graph families for the scaling benchmarks.

``pattern_family(n_nodes)`` builds a deterministic graph of roughly ``n_nodes``
apply nodes (tested at 10^2, 10^3, 10^4) in which every motivating pattern occurs
many times:

* aesara #933: scalar (+) vector elemwise, i.e. an Elemwise over an ExpandDims
  of a 0-d input (``v * 1.25``, ``m * h``);
* pytensor #2132: reductions over expand_dims / transposes (``sum(exp(x)[None])``,
  ``sum(m.T, axis=0)``, ``sum(m[None], axis=(0, 2))``, ...), DimShuffle of
  DimShuffle (``x[None].T``, ``m.T.T``), reductions of joins (full Sum,
  Max along the join axis with static shapes, the literal case
  ``sum(join(0, a[None], b[None]))``, and a Max of a join of
  unknown-length pieces that must stay);
* pytensor #2138: elemwise over set_subtensor of zeros (LKJCorr-like
  ``log1p(-sqr(L))`` with advanced tril / diag indices), inc into zeros
  (basic slice: becomes a set; repeated constant indices: stays an inc),
  elemwise of alloc.

Structure: ``B`` copies of one block (each ~90 nodes, constants vary with
the block number).  Block ``k`` reads the vector output of block ``(k-1)//2``
(a binary heap: sharing across blocks, depth ``log2 B``) and, inside a
group of 8, the scalar output of the previous block (a chain of 8).  The
blocks' scalar outputs are summed by a balanced tree of adds; two long
chains (length ~ sqrt(n_nodes)/4) of a Max-of-join step are added too.
Nothing is random.

``count_nodes(outputs)`` counts the apply nodes of a graph.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytensor.tensor as pt
from pytensor.graph.basic import Variable

try:  # PyTensor >= 3.x (3.3 moved them; 3.0 has both)
    from pytensor.graph.traversal import ancestors
except ImportError:  # pragma: no cover
    from pytensor.graph.basic import ancestors

__all__ = ["count_nodes", "op_counts", "pattern_family", "pattern_inputs"]

LKJ_N = 4
GROUP = 8


def count_nodes(outputs: Sequence[Variable] | Variable) -> int:
    """Number of distinct apply nodes in the graph of ``outputs``."""
    if isinstance(outputs, Variable):
        outputs = [outputs]
    return len({v.owner for v in ancestors(list(outputs)) if v.owner is not None})


def op_counts(outputs: Sequence[Variable] | Variable, detailed: bool = False) -> dict[str, int]:
    """Apply nodes per Op class name (``detailed``: per ``str(op)``)."""
    if isinstance(outputs, Variable):
        outputs = [outputs]
    nodes = {v.owner for v in ancestors(list(outputs)) if v.owner is not None}
    counts: dict[str, int] = {}
    for node in nodes:
        key = str(node.op) if detailed else type(node.op).__name__
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))


def pattern_inputs() -> dict[str, Variable]:
    """Fresh leaves of one family graph (names are unique)."""
    return {
        "s": pt.scalar("s", dtype="float64"),
        "v": pt.tensor("v", shape=(5,), dtype="float64"),
        "w": pt.tensor("w", shape=(4,), dtype="float64"),
        "m": pt.tensor("m", shape=(5, 4), dtype="float64"),
        "a": pt.vector("a", dtype="float64"),  # unknown length
        "params": pt.tensor("params", shape=(LKJ_N * (LKJ_N - 1) // 2,), dtype="float64"),
    }


def _block(k: int, leaves: dict[str, Variable], h: Variable, pv: Variable) -> tuple[Variable, Variable]:
    """One block: every motivating pattern once.  Returns ``(scalar_out, vector_out)``.

    ``h`` is a 0-d carry, ``pv`` a (5,) vector from the parent block.
    """
    w, m, a, params = leaves["w"], leaves["m"], leaves["a"], leaves["params"]
    c1 = 1.0 + 0.125 * (k % 7)
    c2 = 0.5 + 0.0625 * (k % 5)
    c3 = 2.0 + (k % 3)
    hb = pt.tanh(h * 0.01)  # 0-d, bounded

    # aesara #933: scalar * vector (Elemwise over ExpandDims of a 0-d constant)
    u = pt.exp(pv * c1)  # (5,)
    # pytensor #2132: full reductions over expand_dims / DimShuffles
    t_full = pt.sum(u.dimshuffle("x", 0))
    t_full2 = pt.max(u.dimshuffle("x", 0, "x"))
    # partial reductions over transposes / expand_dims
    mt = m * hb  # (5, 4); aesara #933 with a 0-d variable
    t_part = pt.sum(mt.T, axis=0)  # -> Sum{axis=1}(mt)
    t_part2 = pt.sum(pt.expand_dims(mt, 0), axis=(0, 2))  # -> Sum{axis=1}(mt)
    t_part3 = pt.sum(pt.expand_dims(mt, 0), axis=2)  # -> ExpandDims(Sum{axis=1}(mt))
    # DimShuffle of DimShuffle
    dd = pt.expand_dims(u, 0).T  # -> DimShuffle{0, 'x'}(u), (5, 1)
    tt = mt.T.T  # -> mt
    outer = dd * w[None, :]  # (5, 4)
    # reductions of joins
    j1 = pt.sum(pt.join(0, u, t_part, pv))
    j2 = pt.max(pt.join(1, tt, outer), axis=1)  # static non-empty pieces: Maximum fold
    j3 = pt.sum(pt.join(0, pt.expand_dims(pv, 0), pt.expand_dims(u, 0)))  # pytensor #2132 literally
    j4 = pt.sum(pt.join(0, a * c2, a))  # unknown lengths: fine for Sum
    j5 = pt.max(pt.join(0, a, a + c3))  # unknown lengths: Max stays
    # pytensor #2138: elemwise over set_subtensor of zeros (LKJCorr-like)
    L = pt.zeros((LKJ_N, LKJ_N))
    L = pt.set_subtensor(L[np.tril_indices(LKJ_N, -1)], 0.5 * pt.tanh(params + hb))
    L = pt.set_subtensor(L[np.diag_indices(LKJ_N)], 0.5)
    lk = pt.sum(pt.log1p(-pt.sqr(L)))
    L2 = pt.set_subtensor(pt.zeros((LKJ_N, LKJ_N))[np.diag_indices(LKJ_N)], 1)  # int value: cast
    lk2 = pt.sum(pt.sqr(L2) * hb)
    inc = pt.exp(pt.inc_subtensor(pt.zeros((5,))[1:4], u[:3]))  # basic inc into zeros -> set
    inc_rep = pt.exp(pt.inc_subtensor(pt.zeros((5,))[[0, 0, 2]], u[:3] * c2))  # repeats: stays inc
    # elemwise of alloc
    al = pt.exp(pt.alloc(hb, 5, 4)) * c3  # -> Alloc(exp(hb) * c3, 5, 4)
    al2 = pt.sqr(pt.zeros((5, 4))) + hb  # -> Alloc(sqr(0) + hb, 5, 4)

    out = pt.add(
        t_full,
        t_full2,
        pt.sum(t_part * t_part2),
        pt.sum(t_part3),
        j1,
        pt.sum(j2),
        j3,
        j4,
        j5,
        lk,
        lk2,
        pt.sum(inc * inc_rep),
        pt.sum(al * al2),
    )
    vec = pt.tanh(u * 0.1 + t_part * 0.01)  # (5,), read by the child blocks
    return out, vec


def _chain(leaves: dict[str, Variable], length: int, c: float) -> Variable:
    """A long chain: ``z <- tanh(max(join(1, z[:, None], (z * c)[:, None]), axis=1))``."""
    z = leaves["v"]
    for i in range(length):
        ci = c + 0.001 * i
        z = pt.tanh(pt.max(pt.join(1, pt.expand_dims(z, 1), pt.expand_dims(z * ci, 1)), axis=1))
    return pt.sum(z)


def _tree_sum(terms: list[Variable]) -> Variable:
    while len(terms) > 1:
        terms = [terms[i] + terms[i + 1] if i + 1 < len(terms) else terms[i] for i in range(0, len(terms), 2)]
    return terms[0]


_BLOCK_NODES: int | None = None


def _nodes_per_block() -> int:
    global _BLOCK_NODES
    if _BLOCK_NODES is None:
        leaves = pattern_inputs()
        out, vec = _block(1, leaves, leaves["s"], leaves["v"])
        _BLOCK_NODES = count_nodes([out, vec])
    return _BLOCK_NODES


def pattern_family(n_nodes: int) -> list[Variable]:
    """A graph of roughly ``n_nodes`` apply nodes holding every motivating pattern many times.

    Returns one output (a 0-d float64).  Leaves: ``s`` (0-d), ``v`` (5,),
    ``w`` (4,), ``m`` (5, 4), ``a`` (unknown length), ``params`` (6,).
    """
    if n_nodes < 1:
        raise ValueError(f"n_nodes must be positive, got {n_nodes}")
    leaves = pattern_inputs()
    chain_len = max(2, int(n_nodes**0.5 / 4))
    chains = [_chain(leaves, chain_len, 0.9), _chain(leaves, chain_len, 1.1)]
    chain_nodes = count_nodes(chains)
    per_block = _nodes_per_block() + 1  # + its add in the tree
    n_blocks = max(1, round((n_nodes - chain_nodes - 2) / per_block))
    outs: list[Variable] = []
    vecs: list[Variable] = []
    for k in range(n_blocks):
        h = leaves["s"] if k % GROUP == 0 else outs[k - 1]
        pv = leaves["v"] if k == 0 else vecs[(k - 1) // 2]
        out, vec = _block(k, leaves, h, pv)
        outs.append(out)
        vecs.append(vec)
    # vectors of leaf blocks (no child) are otherwise unused: fold them in too
    used = {(k - 1) // 2 for k in range(1, n_blocks)}
    tails = [pt.sum(vecs[k]) for k in range(n_blocks) if k not in used]
    return [_tree_sum(outs + tails + chains)]
