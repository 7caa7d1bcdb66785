"""The replacements that take a graph to its normal form only where a rule rewrote it.

``normalize`` rebuilds every node above a rewrite (its inputs changed), so
replacing a FunctionGraph's outputs by the normal form imports the whole
rebuilt path up to the outputs and removes the old one, and PyTensor's
features (the shape feature's ``infer_shape``) see every node.  On PyMC's
logp + dlogp of ``LKJCholeskyCov`` two rewrites rebuild 94 nodes.

The normalizer knows each old variable's normal form (``Normalizer.memo``,
a variable of the same value) and which new variable is a rebuilt copy of
which (``Normalizer.copies``).  :func:`site_replacements` gives the pairs
``(old, new)`` for the old variables a rule rewrote (the *sites*), each new
side read over the old graph's variables wherever the normal form only
rebuilt one that no rule rewrote.  Replaced in the order the pairs come
(readers before what they read), they give the fgraph the normal form's
structure, and every other node stays the node it was.

Before / after (``exp(log(x))`` rewritten under ``y = sum(exp(log(x)) * 2)``)::

    replace outputs:  y -> y'   (imports y', Mul', the new Sum; removes three)
    replace sites:    exp(log(x)) -> x   (the Mul and the Sum read x in place)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytensor.graph.basic import Variable

from graph_bridge.traverse import bottom_up, rebuild

__all__ = ["site_replacements"]


def _final(memo: Mapping[Variable, Variable], v: Variable) -> Variable:
    """``v``'s normal form after every pass (a later pass normalizes an earlier pass's form again)."""
    seen = {v}
    while True:
        w = memo.get(v)
        if w is None or w in seen:
            return v
        seen.add(w)
        v = w


def _origin(copies: Mapping[Variable, Variable], u: Variable, old: set[Variable]) -> Variable | None:
    """The old variable ``u`` is a rebuilt copy of (through copies of copies), or ``None``."""
    while u in copies:
        u = copies[u]
        if u in old:
            return u
    return None


def site_replacements(
    outputs: Sequence[Variable], memo: Mapping[Variable, Variable], copies: Mapping[Variable, Variable]
) -> list[tuple[Variable, Variable]]:
    """The pairs ``(old, new)`` that take the graph of ``outputs`` to its normal form, readers first.

    ``memo`` and ``copies`` are the normalizer's (:class:`relations.greedy.fixpoint.Normalizer`).
    """
    done: set[Variable] = set()
    order = []  # the old graph, each variable after what it reads
    for v in bottom_up(outputs, done.__contains__):
        done.add(v)
        order.append(v)
    final = {v: _final(memo, v) for v in order}
    sites = [v for v in order if final[v] is not v and _origin(copies, final[v], done) is not v]
    if not sites:
        return []
    site_set = set(sites)
    reads_old = {}
    for u in copies:
        x = _origin(copies, u, done)
        if x is not None and x not in site_set:
            reads_old[u] = x  # a copy of an old variable no rule rewrote: the old one, in place
    new = rebuild([final[v] for v in sites], replace=reads_old)
    return [(v, n) for v, n in reversed(list(zip(sites, new)))]
