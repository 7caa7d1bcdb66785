"""Truncated Taylor series carried through a graph (Herbie's ``taylor.rkt``; automatic differentiation's jets).

A *jet* of a variable is the list ``[c_0, ..., c_n]`` of the Taylor coefficients of its value in a symbol ``t``
(each a PyTensor graph of the other inputs, or ``None`` for a coefficient known to be 0).  The jet of the
expansion input is ``[at, 1]``; every other input and constant is ``[v]``; each node's jet follows from its
inputs' by the rules of power series:

- ``a + b``, ``a - b``, ``-a``: term by term;
- ``a * b``: the Cauchy product ``c_k = sum_i a_i b_(k-i)``;
- ``a / b``: ``q_k = (a_k - sum_(i>=1) b_i q_(k-i)) / b_0``;
- ``exp(a)``: ``e_k = sum_(i=1..k) i a_i e_(k-i) / k``, ``e_0 = exp(a_0)`` (``expm1``: ``c_0 = expm1(a_0)``);
- ``log(a)``: ``l_k = (a_k - sum_(i=1..k-1) i l_i a_(k-i) / k) / a_0`` (``log1p`` over ``1 + a``);
- ``a**p`` (``p`` a constant, or a graph of the held inputs: a Tweedie deviance's ``y ** (2 - p)``; ``sqrt``,
  ``sqr``, ``reciprocal`` so): ``p_k = sum_(i=1..k) ((p+1) i - k) a_i p_(k-i) / (k a_0)``;
- ``gammaln(a)``, ``digamma(a)``, ``polygamma(m, a)`` (``m`` a constant): their own series at ``a_0``
  (``polygamma``) composed with ``a - a_0``.

A jet's graphs grow as the square of its order, where nested symbolic derivatives grow exponentially.  Any
other Op has no rule: :func:`taylor_jet` answers ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import toposort
from pytensor.tensor.elemwise import DimShuffle, Elemwise

__all__ = ["taylor_jet"]

Jet = list[Any]  # coefficients: a Variable, or None for 0


def _add(a: Any, b: Any) -> Any:
    return b if a is None else a if b is None else a + b


def _mul(a: Any, b: Any) -> Any:
    return None if a is None or b is None else a * b


def _scale(a: Any, s: float) -> Any:
    return None if a is None else a * s


def _sum(terms: Sequence[Any]) -> Any:
    out = None
    for t in terms:
        out = _add(out, t)
    return out


def _cauchy(a: Jet, b: Jet, n: int) -> Jet:
    return [_sum([_mul(a[i], b[k - i]) for i in range(k + 1)]) for k in range(n + 1)]


def _div(a: Jet, b: Jet, n: int) -> Jet:
    q: Jet = []
    for k in range(n + 1):
        rest = _sum([_mul(b[i], q[k - i]) for i in range(1, k + 1)])
        num = a[k] if rest is None else (-rest if a[k] is None else a[k] - rest)
        q.append(None if num is None else num / b[0])
    return q


def _exp(a: Jet, n: int, head: Any) -> Jet:
    e: Jet = [pt.exp(a[0])]
    for k in range(1, n + 1):
        e.append(_scale(_sum([_mul(_scale(a[i], i), e[k - i]) for i in range(1, k + 1)]), 1.0 / k))
    return [head, *e[1:]]


def _log(a: Jet, n: int, head: Any, a0: Any) -> Jet:
    """``log`` of a jet whose value at 0 is ``a0`` (``head``: the 0th coefficient, ``log(a0)`` or ``log1p``'s)."""
    out: Jet = [head]
    for k in range(1, n + 1):
        rest = _scale(_sum([_mul(_scale(out[i], i), a[k - i]) for i in range(1, k)]), 1.0 / k)
        num = a[k] if rest is None else (-rest if a[k] is None else a[k] - rest)
        out.append(None if num is None else num / a0)
    return out


def _pow(a: Jet, p: Any, n: int, head: Any) -> Jet:
    """``a ** p`` for ``p`` a float or a graph that does not vary with ``t`` (J.C.P. Miller's recurrence)."""
    out: Jet = [head]
    for k in range(1, n + 1):
        s = _sum([_mul(_scale(a[i], (p + 1) * i - k) if isinstance(p, float) else _mul(a[i], (p + 1) * i - k),
                       out[k - i]) for i in range(1, k + 1)])
        out.append(None if s is None else s / (a[0] * k))
    return out


def _compose(derivs: Callable[[int], Any], a: Jet, n: int) -> Jet:
    """``f(a)`` from ``f``'s derivatives at ``a_0`` (``derivs(j)``: the j-th, a graph): ``sum_j f^(j)(a_0) d**j /
    j!`` with ``d`` the jet of ``a - a_0``."""
    d: Jet = [None, *a[1:]]
    out: Jet = [derivs(0), *[None] * n]
    power: Jet = [pt.constant(1.0), *[None] * n]
    for j in range(1, n + 1):
        power = _cauchy(power, d, n)
        coef = derivs(j) / math.factorial(j)
        out = [_add(o, _mul(coef, p)) for o, p in zip(out, power, strict=True)]
    return out


def _constant_exponent(v: Variable) -> float | None:
    if isinstance(v, Constant) and v.data.size == 1:
        return float(v.data.reshape(-1)[0])
    if v.owner is not None and isinstance(v.owner.op, DimShuffle):
        return _constant_exponent(v.owner.inputs[0])
    return None


def _node_jet(op: Any, ins: Sequence[Jet], raw: Sequence[Variable], n: int) -> Jet | None:
    """The jet of a scalar Op's output from its inputs' (``raw``: the node's inputs, for constant exponents)."""
    a = ins[0]
    if isinstance(op, ps.Add):
        return [_sum(cs) for cs in zip(*ins, strict=True)]
    if isinstance(op, ps.Sub):
        return [_add(x, None if y is None else -y) for x, y in zip(ins[0], ins[1], strict=True)]
    if isinstance(op, ps.Neg):
        return [None if x is None else -x for x in a]
    if isinstance(op, ps.Mul):
        out = a
        for b in ins[1:]:
            out = _cauchy(out, b, n)
        return out
    if isinstance(op, ps.TrueDiv):
        return _div(a, ins[1], n)
    if isinstance(op, ps.Reciprocal):
        return _div([pt.constant(1.0), *[None] * n], a, n)
    if isinstance(op, ps.Sqr):
        return _cauchy(a, a, n)
    if isinstance(op, ps.Exp):
        return _exp(a, n, pt.exp(a[0]))
    if isinstance(op, ps.Expm1):
        return _exp(a, n, pt.expm1(a[0]))
    if isinstance(op, ps.Log):
        return _log(a, n, pt.log(a[0]), a[0])
    if isinstance(op, ps.Log1p):
        return _log([_add(pt.constant(1.0), a[0]), *a[1:]], n, pt.log1p(a[0]), 1 + a[0])
    if isinstance(op, ps.Sqrt):
        return _pow(a, 0.5, n, pt.sqrt(a[0]))
    if isinstance(op, ps.Pow):  # an exponent that does not vary with t: a constant, or a graph of the others
        if any(c is not None for c in ins[1][1:]):
            return None
        p = _constant_exponent(raw[1])
        return _pow(a, ins[1][0] if p is None else p, n, a[0] ** (ins[1][0] if p is None else p))
    if isinstance(op, ps.GammaLn):
        return _compose(lambda j: pt.gammaln(a[0]) if j == 0 else pt.polygamma(j - 1, a[0]), a, n)
    if isinstance(op, ps.Psi):
        return _compose(lambda j: pt.polygamma(j, a[0]), a, n)
    if isinstance(op, ps.PolyGamma):  # of a constant order (PyTensor writes digamma so once canonicalized)
        m, x = _constant_exponent(raw[0]), ins[1]
        if m is None or any(c is not None for c in a[1:]):
            return None
        return _compose(lambda j: pt.polygamma(int(m) + j, x[0]), x, n)
    return None


def taylor_jet(out: Variable, var: Variable, at: Mapping[Variable, Variable], n: int) -> Jet | None:
    """The Taylor coefficients (``n + 1``) of ``out`` in ``t`` where ``var = at[var] + t``, the other inputs held;
    ``None`` where a node on the way has no rule (see the module's docstring).  ``out`` must be elementwise in
    its inputs (Elemwise nodes and the DimShuffles that pad constants)."""
    jets: dict[Variable, Jet] = {var: [at[var], pt.constant(1.0), *[None] * (n - 1)]}
    for node in toposort([out]):
        for i in node.inputs:
            if i not in jets:
                if i.owner is not None:
                    return None
                jets[i] = [i, *[None] * n]
        if isinstance(node.op, DimShuffle):
            jets[node.outputs[0]] = [None if c is None else node.op(c) if c.type.ndim == node.inputs[0].type.ndim
                                     else c for c in jets[node.inputs[0]]]
            continue
        if not isinstance(node.op, Elemwise) or len(node.outputs) != 1:
            return None
        found = _node_jet(node.op.scalar_op, [jets[i] for i in node.inputs], node.inputs, n)
        if found is None:
            return None
        jets[node.outputs[0]] = found
    return jets.get(out)
