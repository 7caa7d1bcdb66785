"""A pattern against a PyTensor graph: :func:`match`, :func:`build`, and what a pattern holds.

:func:`match` binds a pattern's variables to the sub-graphs of a graph (or says
it does not match), :func:`build` makes the graph of a pattern from its
variables' values; :func:`pattern_vars`, :func:`prop_vars`, :func:`prop_keys`
and :func:`pattern_nodes` read what a pattern holds.
"""

from __future__ import annotations

import builtins as _b
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from pytensor.graph.basic import Constant, Variable
from pytensor.tensor.elemwise import DimShuffle, Elemwise
from unification.variable import Var

from graph_bridge import term_variable
from graph_bridge.logic_views import same_constant
from graph_bridge.nodes import absorb_expansion, is_expansion, reads_through_padding
from graph_bridge.ops import derive_entry
from relations.patterns.syntax import DEFAULT, Const, Named, Node

_UNBOUND = object()


# -- matching ------------------------------------------------------------------


def _children(t: Any, node: Any) -> Sequence[Any]:
    """The sub-terms of term ``t`` for ``node``'s inputs (the inputs themselves if ``t`` is a variable)."""
    tup = getattr(t, "_tuple", None)
    if tup is not None and len(tup) == len(node.inputs) + 1:
        return tup[1:]
    return node.inputs


def _same_graph(a: Any, b: Any) -> bool:
    if a is b:
        return True
    va, vb = term_variable(a), term_variable(b)
    if va is None or vb is None:
        return False
    if va is vb:
        return True
    if isinstance(va, Constant) and isinstance(vb, Constant):
        verdict = same_constant(va, vb)  # 1 and 1.0: one value where each casts to the other exactly
        if verdict is not None:
            return verdict
    from pytensor.graph.basic import equal_computations

    return equal_computations([va], [vb])


def _same_input(a: Variable, b: Variable) -> bool:
    if a is b:
        return True
    if isinstance(a, Constant) and isinstance(b, Constant):
        da, db = np.asarray(a.data), np.asarray(b.data)
        return da.shape == db.shape and bool(np.all(da == db))
    return False


def match(pattern: Any, t: Any, binding: dict | None = None) -> dict | None:
    """Bind ``pattern``'s variables to sub-terms of ``t`` (a ground term or a variable), or ``None``.

    ``binding`` holds variables bound already (they must be the same graph again).
    """
    binding = {} if binding is None else binding
    stack = [(pattern, t)]
    while stack:
        pat, sub = stack.pop()
        if isinstance(pat, Named):
            stack.append((pat.var, sub))
            stack.append((pat.node, sub))
            continue
        if isinstance(pat, Var):
            if not _bind(binding, pat, sub, _same_graph):
                return None
            continue
        v = term_variable(sub)
        if v is None:
            return None
        if isinstance(pat, Const):
            if not pat.matches(v):
                return None
            continue
        node = v.owner
        if node is None or len(node.outputs) != 1 or not isinstance(node.op, pat.op_classes):
            return None
        pos = pat.positions(node)
        if pos is None or len(pos) != len(pat.args):
            return None
        props = _match_props(pat, node, binding) if pat.props else {}
        if props is None:
            return None
        if pat.rebuild_check and not _b.any(
            _rebuilds(make, node, pos, props) for make in (pat.make, pat.also) if make is not None
        ):
            return None
        kids = _children(sub, node)
        padded = type(node.op) is Elemwise and len(node.inputs) >= 2 and reads_through_padding(node)
        stack.extend(
            (a, _operand(a, node.inputs[i], kids[i]) if padded else kids[i]) for a, i in zip(pat.args, pos)
        )
    return binding


def _wants_dimshuffle(pat: Any) -> bool:
    """Whether the pattern ``pat`` matches a DimShuffle node itself (``p.dimshuffle``, ``p.expand_dims``, ...)."""
    if isinstance(pat, Named):
        pat = pat.node
    return DimShuffle in getattr(pat, "op_classes", ())


def _operand(pat: Any, v: Variable, t: Any) -> Any:
    """The operand a broadcasting Elemwise input ``v`` (term ``t``) is, as the explicit form reads it.

    ``Elemwise.make_node`` pads an input of lower ndim with an ExpandDims on
    the left; the explicit-broadcast form (``ExplicitElemwise``, what the
    rules see after ``elemwise_explicito``) holds the input itself.  So a
    pattern argument reads through that padding (``p.mul(x, c)`` binds ``c``
    to the 0-d ``s`` of ``m * s``), unless it is a DimShuffle pattern itself.
    The Elemwise is read so only when one input of its output's ndim is no
    padding (``reads_through_padding``, as the e-graph reads it): in
    ``x[None] / 0.5`` over a matrix ``x`` the ExpandDims of ``x`` adds a
    dimension nothing else gives, so both operands are read as they are.
    """
    if _wants_dimshuffle(pat) or not is_expansion(v):
        return t
    inner, entry = absorb_expansion(v)
    if entry != derive_entry(inner.type.shape, v.type.ndim):
        return t  # dims added elsewhere than on the left: not what broadcasting adds
    return _children(t, v.owner)[0]


def _bind(binding: dict, var: Any, value: Any, same: Callable[[Any, Any], bool]) -> bool:
    """Bind ``var`` to ``value``, or check ``same`` against what it is bound to already."""
    seen = binding.get(var, _UNBOUND)
    if seen is _UNBOUND:
        binding[var] = value
        return True
    return same(seen, value)


def _match_props(pat: Node, node: Any, binding: dict) -> dict | None:
    """The props ``pat`` reads off ``node``, with its prop variables bound in ``binding``; ``None``: no match."""
    if pat.read_props is None:  # a node without props (Node refuses props without read_props)
        return {}
    found = pat.read_props(node)
    if found is None:
        return None
    for key, want in pat.props:
        got = found[key]
        if isinstance(want, Var):
            if not _bind(binding, want, got, same_prop):
                return None
        elif not same_prop(want, got):
            return None
    return found


def same_prop(a: Any, b: Any) -> bool:
    """Whether two prop values are the same (equal, and of one type: ``1`` is not ``True``)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that do not compare are not the same
        return False


def _rebuilds(make: Callable[..., Variable], node: Any, pos: Sequence[int], props: dict) -> bool:
    """Whether ``make`` applied to the inputs at ``pos`` (and ``props``) builds ``node`` again."""
    try:
        rebuilt = make(*[node.inputs[i] for i in pos], **props)
    except Exception:  # noqa: BLE001 - the inputs do not fit: no match
        return False
    rnode = rebuilt.owner
    return (
        rnode is not None
        and rnode.op == node.op
        and len(rnode.inputs) == len(node.inputs)
        and _b.all(_same_input(x, y) for x, y in zip(rnode.inputs, node.inputs))
    )


def build(pattern: Any, lookup: Callable[[Var], Variable], props: Mapping[Var, Any] | None = None) -> Variable:
    """The PyTensor graph of ``pattern`` with each variable replaced by ``lookup(var)``.

    A prop variable takes its value from ``props``; one ``props`` does not
    hold takes the PyTensor function's default (``axis=None``, the identity
    order, ``pt.sum``'s reduction).
    """
    if isinstance(pattern, Var):
        return lookup(pattern)
    if isinstance(pattern, Named):
        return build(pattern.node, lookup, props)
    if isinstance(pattern, Const):
        return pattern.build()
    if not isinstance(pattern, Node):
        raise TypeError(f"{pattern!r} compiles to goals only: it is matched and built by its rule, not by p.build")
    built: list[Variable | None] = [
        None if isinstance(a, Const) else build(a, lookup, props) for a in pattern.args
    ]
    siblings = [b for b in built if b is not None]
    args = [
        a.build(siblings, kind) if b is None else b
        for a, b, kind in zip(pattern.args, built, pattern.kinds)
    ]
    values = {}
    for key, want in pattern.props:
        if isinstance(want, Var):
            values[key] = props[want] if props is not None and want in props else DEFAULT
        else:
            values[key] = want
    return pattern.make(*args, **values)


def pattern_vars(pattern: Any) -> list[Var]:
    """The pattern's graph variables (those that stand for sub-graphs), in first-occurrence order."""
    out: list[Var] = []
    stack = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, Named):
            p = p.node
        if isinstance(p, Var):
            if p not in out:
                out.append(p)
        elif isinstance(p, Node):
            stack.extend(reversed(p.args))
    return out


def prop_vars(pattern: Any) -> list[Var]:
    """The pattern's prop variables (``axis=p.var("ax")``, ...), in first-occurrence order."""
    return list(prop_keys(pattern))


def prop_keys(pattern: Any) -> dict[Var, str]:
    """Each prop variable of the pattern and the prop it stands for (``"axis"``, ``"order"``, ``"op"``),
    in first-occurrence order (a variable in two places: the first)."""
    out: dict[Var, str] = {}
    stack = [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, Named):
            p = p.node
        if isinstance(p, Node):
            for key, v in p.props:
                if isinstance(v, Var):
                    out.setdefault(v, key)
            stack.extend(reversed(p.args))
    return out


def pattern_nodes(pattern: Any) -> int:
    """How many nodes the pattern has (constants and variables are not nodes; a goal node is one)."""
    n, stack = 0, [pattern]
    while stack:
        p = stack.pop()
        if isinstance(p, Named):
            p = p.node
        if isinstance(p, Node) or getattr(p, "is_pattern_node", False):
            n += 1
            stack.extend(p.args)
    return n
