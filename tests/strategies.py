"""Hypothesis strategies: random well-typed PyTensor graphs plus fitting input values.

::

    from hypothesis import given
    from strategies import graphs

    @given(graphs())
    def test_rule_keeps_values(drawn):
        after = relations.normalize(drawn.outputs)
        assert_same_values(drawn.outputs, after, drawn.givens())

A graph is grown as a chain of *builder* steps, each applied to the current
tensor (the last result).  Every tensor is tracked together with its run-time
shape, so each builder makes its other operands fit by construction (same
length or static 1 for broadcasting, same lengths off the join axis, in-range
indices, ...).  Graphs therefore never fail to build and, at run time, only a
``max``/``min`` over an empty axis can raise (``Drawn.may_raise`` tells when
one was drawn; that is kept rare).

Every tensor also carries a bound on ``|value|`` so that ``exp``, ``sqr``,
``prod`` and ``mul`` are only applied while the result stays small and finite.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pytensor
import pytensor.tensor as pt
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pytensor.graph.basic import Variable
from pytensor.graph.traversal import ancestors
from pytensor.tensor.math import Min

DTYPES = ("float64", "float32", "int64", "bool")
BIG = 1e6  # no op may produce values beyond this bound
Dim = tuple[int | None, int]  # (static length or None, run-time length)


@dataclass(repr=False)
class Drawn:
    """A drawn graph: outputs, its root inputs (in order) and one value per input."""

    outputs: list[Variable]
    inputs: list[Variable]
    values: list[np.ndarray]  # (a random generator input's value is an np.random.Generator)
    shapes: list[tuple[int, ...]] = field(default_factory=list)  # run-time output shapes
    families: tuple[str, ...] = ()  # builder steps applied, in order
    may_raise: bool = False  # a max/min over an empty axis was drawn (ValueError)

    def givens(self) -> dict[Variable, np.ndarray]:
        return dict(zip(self.inputs, self.values))

    def describe(self) -> str:
        text = [pytensor.dprint(self.outputs, file="str", print_type=True)]
        for var, val in zip(self.inputs, self.values):
            shown = np.array2string(val, threshold=30) if isinstance(val, np.ndarray) else repr(val)
            text.append(f"{var.name}: {var.type} = {shown}")
        text.append(f"steps={list(self.families)} may_raise={self.may_raise}")
        return "\n".join(text)

    __repr__ = describe

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # used by hypothesis reports
        printer.text(self.describe())


@dataclass(frozen=True)
class _T:
    """A built tensor with its run-time shape and a bound on its absolute values."""

    var: Variable
    shape: tuple[int, ...]
    bound: float
    nonzero: bool = False  # no value is near zero (a safe divisor)

    def __post_init__(self) -> None:  # the tracked shape must agree with the static one
        static = self.var.type.shape
        assert len(static) == len(self.shape), (self.var, static, self.shape)
        assert all(s is None or s == r for s, r in zip(static, self.shape)), (self.var, static, self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def static(self) -> tuple[int | None, ...]:
        return self.var.type.shape

    @property
    def dtype(self) -> str:
        return self.var.type.dtype


class _Ctx:
    """Per-example state: the draw function, the size ``n``, leaves and their values."""

    def __init__(self, draw: Callable[[st.SearchStrategy], Any], n: int):
        self.draw, self.n = draw, n
        self.leaves: list[Variable] = []
        self.values: list[np.ndarray] = []
        self.pool: list[_T] = []  # everything built so far, for reuse (sharing)
        self.families: list[str] = []
        self.forks: list[_T] = []  # intermediates that are also outputs (a second use)
        self.may_raise = False

    def pick(self, options: Sequence):
        return self.draw(st.sampled_from(list(options)))

    def coin(self) -> bool:
        return self.draw(st.booleans())

    def rare(self) -> bool:
        """True about one time in ten (shrinks to False)."""
        return self.draw(st.integers(0, 9)) == 9

    def length(self) -> int:
        return 0 if self.rare() else self.pick([1, self.n])

    def static_for(self, length: int) -> int | None:
        return self.pick([None, length])

    def free_dim(self) -> Dim:
        r = self.length()
        return (self.static_for(r), r)

    def keep(self, t: _T) -> _T:
        self.pool.append(t)
        return t

    def leaf(self, dims: Sequence[Dim], dtype: str, nonzero: bool = False) -> _T:
        """A fresh root input with the given (static, run-time) dims, and its value."""
        shape = tuple(r for _, r in dims)
        var = pt.tensor(name=f"x{len(self.leaves)}", dtype=dtype, shape=tuple(s for s, _ in dims))
        self.leaves.append(var)
        self.values.append(self.draw(hnp.arrays(dtype, shape, elements=_elements(dtype, nonzero))))
        return self.keep(_T(var, shape, {"bool": 1.0, "int64": 3.0}.get(dtype, 2.0), nonzero))

    def dtype_like(self, dtype: str) -> str:
        return self.pick([dtype, dtype, *DTYPES])


def _elements(dtype: str, nonzero: bool) -> st.SearchStrategy:
    """Array elements: floats in [-2, 2] (size >= 0.5 if ``nonzero``), ints in [-3, 3], bools."""
    if dtype == "bool":
        return st.just(True) if nonzero else st.booleans()
    if dtype.startswith("int"):
        return st.sampled_from([1, -1, 2, -3]) if nonzero else st.integers(-3, 3)
    width = 32 if dtype == "float32" else 64
    if nonzero:
        return st.floats(0.5, 2, width=width) | st.floats(-2, -0.5, width=width)
    return st.floats(-2, 2, width=width, allow_subnormal=False)


def _const(ctx: _Ctx, dtype: str) -> _T:
    """A small 0-d constant of ``dtype``."""
    value = {"bool": True, "int64": ctx.pick([2, -1, 0])}.get(dtype, ctx.pick([0.5, 2.0, 0.0]))
    return _T(pt.constant(np.asarray(value, dtype=dtype)), (), 2.0, value != 0)


def _compatible(a: _T, b: _T) -> bool:
    """Do ``a`` and ``b`` broadcast together (pytensor: only static-1 dims stretch)?"""
    for sa, ra, sb, rb in zip(a.static[::-1], a.shape[::-1], b.static[::-1], b.shape[::-1]):
        if not (ra == rb or (sa == 1 and ra == 1) or (sb == 1 and rb == 1)):
            return False
    return True


def _broadcast_shape(a: _T, b: _T) -> tuple[int, ...]:
    """Run-time shape of ``a op b`` (for compatible ``a`` and ``b``)."""
    nd = max(a.ndim, b.ndim)
    sa, sb = (1,) * (nd - a.ndim) + a.shape, (1,) * (nd - b.ndim) + b.shape
    return tuple(y if x == 1 else x for x, y in zip(sa, sb))


def _operand_dims(ctx: _Ctx, x: _T, grow: bool = True) -> list[Dim]:
    """Dims of a fresh operand that broadcasts against ``x``: each trailing dim is the
    same length or static 1, maybe a lower ndim.  With ``grow`` the operand may also
    stretch ``x``: any length where ``x`` has a static 1, rarely an extra leading dim."""
    k = ctx.draw(st.integers(0, x.ndim))
    dims: list[Dim] = []
    for s, r in zip(x.static[x.ndim - k :], x.shape[x.ndim - k :]):
        how = ctx.pick(["same", "bcast"] + (["grow"] if grow and s == 1 else []))
        dims.append((ctx.static_for(r), r) if how == "same" else (1, 1) if how == "bcast" else ctx.free_dim())
    if grow and k == x.ndim and x.ndim < 3 and ctx.rare():
        dims.insert(0, ctx.free_dim())
    return dims


# ---------------------------------------------------------------- elemwise
# Hypothesis favours the first options of a list, so the interesting ones come first.
# name -> (function, applicable(dtype, bound), bound of the result)
UNARY: dict[str, tuple[Callable, Callable[[str, float], bool], Callable[[float], float]]] = {
    "exp": (pt.exp, lambda d, b: d.startswith("float") and b <= 3, math.exp),
    "invert": (pt.invert, lambda d, b: d == "bool", lambda b: 1.0),  # logical not
    "neg": (pt.neg, lambda d, b: d != "bool", lambda b: b),
    "sqr": (pt.sqr, lambda d, b: d != "bool" and b <= 1e3, lambda b: b * b),
    "abs": (pt.abs, lambda d, b: d != "bool", lambda b: b),
}

# name -> (function, applicable(dtype_a, dtype_b), bound of the result)
BINARY: dict[str, tuple[Callable, Callable[[str, str], bool], Callable[[float, float], float]]] = {
    "true_div": (pt.true_div, lambda a, b: a[0] == b[0] == "f", lambda x, y: 2 * x),  # float / float
    "add": (pt.add, lambda a, b: True, lambda x, y: x + y),
    "mul": (pt.mul, lambda a, b: True, lambda x, y: x * y),
    "sub": (pt.sub, lambda a, b: "bool" not in (a, b), lambda x, y: x + y),
    "maximum": (pt.maximum, lambda a, b: True, max),
    "lt": (pt.lt, lambda a, b: True, lambda x, y: 1.0),
    "eq": (pt.eq, lambda a, b: True, lambda x, y: 1.0),
    "and": (pt.and_, lambda a, b: a == b == "bool", lambda x, y: 1.0),
    "or": (pt.or_, lambda a, b: a == b == "bool", lambda x, y: 1.0),
}


def _unary(ctx: _Ctx, x: _T) -> _T:
    """One unary Elemwise that suits ``x``'s dtype and keeps values finite."""
    name = ctx.pick([k for k, (_, ok, _) in UNARY.items() if ok(x.dtype, x.bound)])
    fn, _, bound = UNARY[name]
    return _T(fn(x.var), x.shape, bound(x.bound))


#: ops whose result jumps when a float input moves by a rounding error
DISCRETE = ("lt", "eq")


def _rounded(*ts: _T) -> bool:
    """Whether a float input depends on a float sum or product.

    Rewrites may reassociate those (the reduction of a join becomes the sum
    of the pieces' reductions, as PyTensor's canonicalize reorders adds), so
    they agree up to rounding only; a comparison would turn that into a
    different bool.  The contract is "equal up to float rounding", so such
    comparisons are not drawn.
    """
    for t in ts:
        if not t.dtype.startswith("float"):
            continue
        for v in ancestors([t.var]):
            node = v.owner
            if node is not None and type(node.op).__name__ in ("Sum", "Prod") and v.type.dtype.startswith("float"):
                return True
    return False


def _binary_ops(
    a: str, b: str, bounds: tuple[float, float], div: str, discrete: bool = True
) -> list[str]:
    """Applicable op names; ``div`` is "first", "last" or "no" (where ``true_div`` goes)."""
    names = [
        k
        for k, (_, ok, bd) in BINARY.items()
        if k != "true_div" and ok(a, b) and bd(*bounds) <= BIG and (discrete or k not in DISCRETE)
    ]
    if div != "no" and BINARY["true_div"][1](a, b):
        names.insert(0 if div == "first" else len(names), "true_div")
    return names


def _binary(ctx: _Ctx, x: _T, y: _T | None = None) -> _T:
    """``x op y`` with ``y`` given, reused from the pool, or a fresh broadcastable leaf.

    ``true_div`` only divides by fresh leaves with values of size at least 0.5 or by
    non-zero constants and allocs of them.
    """
    reuse = [p for p in ctx.pool if _compatible(p, x)] if y is None else []
    if y is None and not (reuse and ctx.coin()):
        dtype = ctx.dtype_like(x.dtype)
        names = _binary_ops(x.dtype, dtype, (x.bound, 3.0), div="first", discrete=not _rounded(x))
        if not names:  # every op would leave the value bounds (a long chain): no node
            return x
        name = ctx.pick(names)
        y = ctx.leaf(_operand_dims(ctx, x), dtype, nonzero=name == "true_div")
    else:
        y = y or ctx.pick(reuse)
        names = _binary_ops(
            x.dtype, y.dtype, (x.bound, y.bound), div="last" if y.nonzero else "no",
            discrete=not _rounded(x, y),
        )
        if not names:
            return x
        name = ctx.pick(names)
    a, b = (y, x) if name != "true_div" and ctx.coin() else (x, y)
    fn, _, bound = BINARY[name]
    return _T(fn(a.var, b.var), _broadcast_shape(a, b), bound(a.bound, b.bound))


def _elemwise_scalar(ctx: _Ctx, x: _T) -> _T:
    """``x op s`` for a scalar input or constant ``s`` (an Elemwise of ExpandDims)."""
    dtype = ctx.dtype_like(x.dtype)
    return _binary(ctx, x, _const(ctx, dtype) if ctx.coin() else ctx.leaf([], dtype))


def _elemwise_alloc(ctx: _Ctx, x: _T) -> _T:
    """``x op alloc(...)``: ``zeros``/``ones`` or ``alloc(scalar, *shape)``, shaped like ``x``."""
    shape = [ctx.pick([r, ctx.n]) if s == 1 else r for s, r in zip(x.static, x.shape)]
    dtype = ctx.dtype_like(x.dtype)
    how = ctx.pick(["zeros", "ones", "alloc"])
    if how == "alloc":
        fill = _const(ctx, dtype) if ctx.coin() else ctx.leaf([], dtype)
        y = _T(pt.alloc(fill.var, *shape), tuple(shape), fill.bound, fill.nonzero)
    else:
        y = _T(getattr(pt, how)(tuple(shape), dtype=dtype), tuple(shape), 1.0, how == "ones")
    return _binary(ctx, x, y)


# ---------------------------------------------------------------- dimshuffles
def _expand_dims(ctx: _Ctx, x: _T) -> _T | None:
    """``expand_dims`` or a ``dimshuffle`` inserting one 'x'."""
    if x.ndim >= 3:
        return None
    pos = ctx.draw(st.integers(0, x.ndim))
    if ctx.coin():
        var = pt.expand_dims(x.var, pos)
    else:
        order: list[Any] = list(range(x.ndim))
        order.insert(pos, "x")
        var = x.var.dimshuffle(order)
    return _T(var, x.shape[:pos] + (1,) + x.shape[pos:], x.bound)


def _shared_axis(ctx: _Ctx, x: _T) -> _T | None:
    """``x`` with an axis added, an Elemwise with a sum of ``x`` over one axis under a DimShuffle that adds the
    same axis and puts the summed one back: the inputs' DimShuffles differ and share an added axis, and ``x``'s
    is that axis alone (``exp(x)[None] / sum(exp(x), 1).dimshuffle("x", 0, "x")``, a broadcast softmax).
    ``None`` for a scalar or a 3-tensor."""
    if not 1 <= x.ndim <= 2:
        return None
    pos = ctx.draw(st.integers(0, x.ndim))
    axis = ctx.draw(st.integers(0, x.ndim - 1))
    added: list[Any] = list(range(x.ndim))
    added.insert(pos, "x")
    kept = iter(range(x.ndim - 1))  # the sum's axes, in order, with the summed one put back as an added axis
    order: list[Any] = ["x" if i == axis else next(kept) for i in range(x.ndim)]
    order.insert(pos, "x")
    xe = _T(x.var.dimshuffle(added), x.shape[:pos] + (1,) + x.shape[pos:], x.bound)
    summed = pt.sum(x.var, axis=axis)
    shape = tuple(1 if i == axis else r for i, r in enumerate(x.shape))
    se = _T(summed.dimshuffle(order), shape[:pos] + (1,) + shape[pos:], x.bound * max(x.shape[axis], 1))
    return _binary(ctx, xe, se)


def _drop_dims(ctx: _Ctx, x: _T) -> _T | None:
    """Drop some static-1 dims (DimShuffle or Squeeze), possibly permuting the rest."""
    ones = [i for i, s in enumerate(x.static) if s == 1]
    if not ones:
        return None
    drop = ctx.draw(st.sets(st.sampled_from(ones), min_size=1))
    keep = [i for i in range(x.ndim) if i not in drop]
    if ctx.coin():
        keep = ctx.draw(st.permutations(keep))
        var = x.var.dimshuffle(keep)
    else:
        var = pt.squeeze(x.var, axis=tuple(sorted(drop)))
    return _T(var, tuple(x.shape[i] for i in keep), x.bound)


def _transpose(ctx: _Ctx, x: _T) -> _T | None:
    """``x.T`` or a random non-identity permutation, sometimes with an inserted 'x'."""
    if x.ndim < 2:
        return None
    perm = list(ctx.draw(st.permutations(range(x.ndim))))
    if perm == sorted(perm) or ctx.coin():
        return _T(x.var.T, x.shape[::-1], x.bound)
    order: list[Any] = list(perm)
    if x.ndim < 3 and ctx.rare():
        order.insert(ctx.draw(st.integers(0, x.ndim)), "x")
    return _T(x.var.dimshuffle(order), tuple(1 if i == "x" else x.shape[i] for i in order), x.bound)


# ---------------------------------------------------------------- reductions
REDUCE: dict[str, Callable] = {
    "sum": pt.sum,
    "max": pt.max,
    "any": pt.any,
    "prod": pt.prod,
    "min": pt.min,  # neg(max(neg(x))) (invert for bool)
    "all": pt.all,
    "Min": lambda v, axis=None: Min(axis=axis)(v),  # the CAReduce itself
}


def _reduce(ctx: _Ctx, x: _T) -> _T:
    """A CAReduce over all axes (``axis=None`` or listed) or a subset, maybe keepdims."""
    kind = ctx.pick([k for k in REDUCE if not (k in ("any", "all") and _rounded(x))])
    axes = list(range(x.ndim))
    if x.ndim and ctx.coin():
        axes = sorted(ctx.draw(st.sets(st.integers(0, x.ndim - 1), min_size=1)))
    size = math.prod(x.shape[a] for a in axes)
    if kind in ("max", "min", "Min") and size == 0:
        if ctx.rare():
            ctx.may_raise = True
        else:
            kind = "sum"
    if kind == "prod" and x.bound ** max(size, 1) > BIG:
        kind = "sum"
    axis: Any = None
    if axes != list(range(x.ndim)) or ctx.coin():
        axis = tuple(axes) if kind == "Min" or len(axes) != 1 else ctx.pick([axes[0], axes[0] - x.ndim])
    keepdims = kind != "Min" and x.ndim > 0 and ctx.rare()
    var = REDUCE[kind](x.var, axis=axis, **({"keepdims": True} if keepdims else {}))
    shape = tuple(1 if i in axes else r for i, r in enumerate(x.shape) if keepdims or i not in axes)
    bound = {"sum": x.bound * max(size, 1), "prod": x.bound ** max(size, 1)}.get(kind, x.bound)
    return _T(var, shape, 1.0 if kind in ("all", "any") else bound)


# ---------------------------------------------------------------- joins and allocs
def _join(ctx: _Ctx, x: _T) -> _T:
    """``join``/``concatenate`` of ``x`` (as a 1-vector if a scalar) with 1-2 tensors
    equal off the join axis."""
    if x.ndim == 0:
        x = _T(pt.expand_dims(x.var, 0), (1,), x.bound)
    axis = ctx.draw(st.integers(0, x.ndim - 1))
    pieces = [x]
    for _ in range(ctx.draw(st.integers(1, 2))):
        same = [p for p in ctx.pool if p.ndim == x.ndim
                and all(p.shape[i] == x.shape[i] for i in range(x.ndim) if i != axis)]
        if same and ctx.coin():
            pieces.append(ctx.pick(same))
        else:
            dims = [ctx.free_dim() if i == axis else (ctx.static_for(r), r) for i, r in enumerate(x.shape)]
            pieces.append(ctx.leaf(dims, ctx.dtype_like(x.dtype)))
    if ctx.coin():
        pieces.reverse()
    arg = ctx.pick([axis, axis - x.ndim])
    vars_ = [p.var for p in pieces]
    var = pt.join(arg, *vars_) if ctx.coin() else pt.concatenate(vars_, axis=arg)
    shape = list(x.shape)
    shape[axis] = sum(p.shape[axis] for p in pieces)
    return _T(var, tuple(shape), max(p.bound for p in pieces))


def _stack(ctx: _Ctx, x: _T) -> _T | None:
    """``stack`` of ``x`` with 1-2 tensors of its run-time shape (MakeVector for scalars)."""
    if x.ndim >= 3:
        return None
    same = [p for p in ctx.pool if p.shape == x.shape]
    pieces = [x]
    for _ in range(ctx.draw(st.integers(1, 2))):
        if same and ctx.coin():
            pieces.append(ctx.pick(same))
        else:
            pieces.append(ctx.leaf([(ctx.static_for(r), r) for r in x.shape], ctx.dtype_like(x.dtype)))
    axis = ctx.draw(st.integers(0, x.ndim))
    var = pt.stack([p.var for p in pieces], axis=axis)
    return _T(var, x.shape[:axis] + (len(pieces),) + x.shape[axis:], max(p.bound for p in pieces))


def _alloc(ctx: _Ctx, x: _T) -> _T:
    """``alloc(x, *shape)`` with constant ints: new leading dims, static-1 dims stretched.

    A non-broadcastable dim of run-time length 1 keeps its symbolic length: a constant
    1 would make it static 1, and pytensor's rewrites then merge a later stretching
    ``alloc(alloc(x, 1), 2)`` into the invalid ``alloc(x, 2)`` (ValueError or a failed
    SpecifyShape at run time, pytensor 3.0.7 and 3.3.8).
    """
    lead = [ctx.length() for _ in range(ctx.draw(st.integers(0, 3 - x.ndim)))]
    dims = [ctx.pick([r, ctx.n]) if s == 1 else r for s, r in zip(x.static, x.shape)]
    args = lead + [x.var.shape[i] if s is None and r == 1 else r
                   for i, (s, r) in enumerate(zip(x.static, dims))]
    return _T(pt.alloc(x.var, *args), tuple(lead + dims), x.bound)


# ---------------------------------------------------------------- indexing
def _basic_index(ctx: _Ctx, x: _T) -> tuple[tuple, tuple[int, ...]]:
    """A basic index on one axis (``1:``, ``::-1``, ``:2``, ``0``, ``-1``) and its result shape."""
    axis = ctx.draw(st.integers(0, x.ndim - 1))
    n = x.shape[axis]
    kind = ctx.pick(["from1", "reverse", "upto2"] + (["first", "last"] if n > 0 else []))
    index = {"from1": slice(1, None), "reverse": slice(None, None, -1), "upto2": slice(None, 2),
             "first": 0, "last": -1}[kind]
    length = {"from1": max(n - 1, 0), "reverse": n, "upto2": min(n, 2)}.get(kind)
    shape = x.shape[:axis] + (() if length is None else (length,)) + x.shape[axis + 1 :]
    return (slice(None),) * axis + (index,), shape


def _advanced_index(ctx: _Ctx, x: _T) -> tuple[tuple, tuple[int, ...]] | None:
    """An in-range integer-array index (repeats likely) on one non-empty axis."""
    axes = [i for i, r in enumerate(x.shape) if r > 0]
    if not axes:
        return None
    axis = ctx.pick(axes)
    idx = ctx.draw(st.lists(st.integers(0, x.shape[axis] - 1), min_size=1, max_size=4))
    shape = x.shape[:axis] + (len(idx),) + x.shape[axis + 1 :]
    return (slice(None),) * axis + (np.array(idx, dtype="int64"),), shape


def _subtensor(ctx: _Ctx, x: _T) -> _T | None:
    """Basic indexing: ``x[1:]``, ``x[::-1]``, ``x[:2]``, ``x[0]``, ``x[-1]`` on some axis."""
    if x.ndim == 0:
        return None
    index, shape = _basic_index(ctx, x)
    return _T(x.var[index], shape, x.bound)


def _adv_subtensor(ctx: _Ctx, x: _T) -> _T | None:
    """Integer-array indexing, e.g. ``x[[0, 0, 1]]`` or ``x[:, [1, 1]]``."""
    found = _advanced_index(ctx, x) if x.ndim else None
    if found is None:
        return None
    return _T(x.var[found[0]], found[1], x.bound)


def _set_subtensor(ctx: _Ctx, x: _T, inc: bool) -> _T | None:
    """``set/inc_subtensor(x[index], v)``, basic or advanced index, fresh fitting ``v``."""
    if x.ndim == 0 or (inc and x.dtype == "bool"):
        return None
    found = _advanced_index(ctx, x) if ctx.coin() else None
    index, shape = found or _basic_index(ctx, x)
    target = _T(x.var[index], shape, x.bound)
    if ctx.rare():
        v = _const(ctx, x.dtype)
    else:
        v = ctx.leaf(_operand_dims(ctx, target, grow=False), x.dtype)
    fn = pt.inc_subtensor if inc else pt.set_subtensor
    return _T(fn(target.var, v.var), x.shape, x.bound + 4 * v.bound if inc else max(x.bound, v.bound))


def _set_zeros(ctx: _Ctx, x: _T) -> _T:
    """``set/inc_subtensor(zeros(shape)[index], x)``: ``x`` written into fresh zeros."""
    m = ctx.n
    if x.ndim == 0 or (x.ndim < 3 and ctx.rare()):  # zeros((m, *x.shape))[k] = x
        shape = (m, *x.shape)
        index: Any = ctx.pick([0, m - 1, -1])
        if x.ndim == 0 and ctx.coin():  # scalar into zeros((m,))[idx]
            index = np.array(ctx.draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=4)), dtype="int64")
    elif ctx.coin():  # zeros((L + 1, ...))[1:] = x
        shape, index = (x.shape[0] + 1, *x.shape[1:]), slice(1, None)
    else:  # zeros((m, ...))[idx] = x, len(idx) == L
        shape = (m, *x.shape[1:])
        index = np.array(ctx.draw(st.lists(st.integers(0, m - 1), min_size=x.shape[0], max_size=x.shape[0])),
                         dtype="int64")
    inc = x.dtype != "bool" and ctx.coin()
    zeros = pt.zeros(shape, dtype=x.dtype)
    var = (pt.inc_subtensor if inc else pt.set_subtensor)(zeros[index], x.var)
    return _T(var, tuple(shape), 4 * x.bound)


def _fork(ctx: _Ctx, x: _T) -> _T:
    """``x`` (an intermediate) becomes an output too, and gets a consumer: two uses."""
    if x.var.owner is None:
        x = ctx.keep(_unary(ctx, x))
    ctx.forks.append(x)
    return _reduce(ctx, x) if ctx.coin() else _unary(ctx, x)


# ---------------------------------------------------------------- batched ops: Blockwise, RandomVariable
def _batch_dims(ctx: _Ctx, batch: Sequence[Dim], room: int) -> list[Dim]:
    """Batch dims of a fresh operand against ``batch`` (right-aligned): same, static 1, or stretching a 1;
    with ``room`` a new leading dim (the other operand is then padded)."""
    dims: list[Dim] = []
    for sv, rv in batch[len(batch) - ctx.draw(st.integers(0, len(batch))):]:
        how = ctx.pick(["same", "bcast"] + (["grow"] if sv == 1 else []))
        dims.append((ctx.static_for(rv), rv) if how == "same" else (1, 1) if how == "bcast" else (None, ctx.n))
    if room > 0 and len(dims) == len(batch) and ctx.coin():
        dims.insert(0, (ctx.static_for(ctx.n), ctx.n))
    return dims


def _out_batch(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    nd = max(len(a), len(b))
    a, b = (1,) * (nd - len(a)) + tuple(a), (1,) * (nd - len(b)) + tuple(b)
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def _float_without_empty(x: _T) -> bool:
    # stock Blockwise.perform cannot vectorize an empty batch (PyTensor 3.0 and 3.3)
    return x.dtype.startswith("float") and 0 not in x.shape


def _matmul(ctx: _Ctx, x: _T) -> _T | None:
    """``x @ y`` (a Blockwise of Dot) for a float ``x`` of 2-3 dims; ``y`` may add a batch dim (``x`` padded)."""
    if not (2 <= x.ndim <= 3 and _float_without_empty(x)) or x.bound * 2 * max(x.shape[-1], 1) > BIG:
        return None
    batch = list(zip(x.static[:-2], x.shape[:-2]))
    dims = _batch_dims(ctx, batch, 3 - x.ndim) + [(ctx.static_for(x.shape[-1]), x.shape[-1]), (ctx.n, ctx.n)]
    y = ctx.leaf(dims, x.dtype)
    shape = (*_out_batch(x.shape[:-2], y.shape[:-2]), x.shape[-2], ctx.n)
    return _T(pt.matmul(x.var, y.var), shape, x.bound * 2 * max(x.shape[-1], 1))


def _solve(ctx: _Ctx, x: _T) -> _T | None:
    """``solve(a + 8 I, x)`` (``b_ndim=1``; diagonally dominant, so well conditioned); ``a`` may add a batch dim."""
    k = x.shape[-1] if x.ndim else 0
    if not (1 <= x.ndim <= 2 and _float_without_empty(x)) or not 1 <= k <= 3:
        return None
    batch = list(zip(x.static[:-1], x.shape[:-1]))
    dims = _batch_dims(ctx, batch, 2 - x.ndim) + [(k, k), (k, k)]
    a = ctx.leaf(dims, x.dtype)
    shape = (*_out_batch(x.shape[:-1], a.shape[:-2]), k)
    eye = pt.constant(8 * np.eye(k, dtype=x.dtype))
    return _T(pt.linalg.solve(a.var + eye, x.var, b_ndim=1), shape, x.bound)


def _rng_leaf(ctx: _Ctx) -> Variable:
    """A fresh random generator root input; its value is a generator seeded by the leaf count."""
    from pytensor.tensor.random.type import RandomGeneratorType

    rng = RandomGeneratorType()(f"x{len(ctx.leaves)}")
    ctx.leaves.append(rng)
    ctx.values.append(np.random.default_rng(len(ctx.leaves)))
    return rng


def _random(ctx: _Ctx, x: _T) -> _T | None:
    """``normal(x, scale, size)``: a 0-d constant ``scale`` (padded), maybe a ``size`` with a new leading dim.

    (A 0-d ``x`` with a ``size`` has both parameters padded.)  Each draw has
    its own generator input (a root, whose value is a seeded
    ``np.random.Generator``): an RV that does not work in place copies it,
    so every function of the graph draws alike.
    """
    if not x.dtype.startswith("float") or x.ndim >= 3:
        return None
    scale = pt.constant(np.asarray(ctx.pick([0.5, 1.0]), dtype=x.dtype))
    lead = (ctx.pick([1, ctx.n]),) if ctx.coin() else ()
    size = (*lead, *x.shape) if (lead or ctx.coin()) else None
    _, var = pt.random.normal(x.var, scale, size=size, rng=_rng_leaf(ctx), return_next_rng=True)
    return _T(var, tuple(size) if size is not None else x.shape, x.bound + 6.0)


# ---------------------------------------------------------------- numerics spellings
#: Spellings of the numerics theory's kinds (what the stabilizing pass and the measured stage rewrite), each of
#: a float tensor of bound ``b``: name -> (function, applicable(bound), bound of the result).
SPELLINGS: dict[str, tuple[Callable, Callable[[float], bool], Callable[[float], float]]] = {
    "softplus_minus": (lambda v: pt.log(1 + pt.exp(v)) - v, lambda b: b <= 30, lambda b: 2 * b + 1),
    "sech": (lambda v: 2 / (pt.exp(v) + pt.exp(-v)), lambda b: b <= 30, lambda b: 1.0),
    "one_minus_exp": (lambda v: 1 - pt.exp(v), lambda b: b <= 3, lambda b: math.exp(b) + 1),
    "one_minus_exp_exp": (lambda v: 1 - pt.exp(-pt.exp(v)), lambda b: b <= 3, lambda b: 1.0),
    "asinh_by_log": (lambda v: pt.log(v + pt.sqrt(v * v + 1)), lambda b: b <= 1e3, lambda b: math.log(2 * b + 1) + 1),
    "log_cosh": (lambda v: pt.log((pt.exp(v) + pt.exp(-v)) / 2), lambda b: b <= 30, lambda b: b + 1),
    "log_ratio_of_shifts": (lambda v: pt.log(pt.exp(v) + 1) - pt.log(pt.exp(v) + 2), lambda b: b <= 30,
                            lambda b: 1.0),
    "sqrt_shift": (lambda v: (v * v + 2) ** 0.5 - (v * v + 1) ** 0.5, lambda b: b <= 1e3, lambda b: 1.0),
    "reciprocal_shift": (lambda v: (v * v + 1) ** -1 - (v * v + 2) ** -1, lambda b: b <= 1e3, lambda b: 1.0),
    "log1p_minus_log": (lambda v: pt.log1p(v * v + 0.5) - pt.log(v * v + 0.5), lambda b: b <= 1e3, lambda b: 2.0),
    "log_sinh": (lambda v: pt.log(pt.sinh(v * v + 0.5)), lambda b: b <= 5, lambda b: b * b + 1),
    "log1p_exp": (lambda v: pt.log(1 + pt.exp(v)), lambda b: b <= 30, lambda b: b + 1),
    "expm1": (lambda v: pt.exp(v) - 1, lambda b: b <= 3, lambda b: math.exp(b)),
    # the measured stage's theory (not the fast pass's): a constant beside an exponential, the normal quantile
    # through erfinv, the beta function through gamma
    "two_sub_exp": (lambda v: pt.log(2 - pt.exp(-v * v)), lambda b: True, lambda b: 1.0),
    "erfinv_quantile": (lambda v: pt.erfinv(2 * pt.sigmoid(v) - 1), lambda b: b <= 30, lambda b: 6.0),
    "beta_gamma": (lambda v: pt.gamma(v * v + 1) * pt.gamma(v * v + 2) / pt.gamma(2 * v * v + 3),
                   lambda b: b <= 5, lambda b: 1.0),
    # a density over its tail (Mills' ratio through erfcx), a difference of two powers of one exponent, the
    # Bernoulli log-likelihood on the logit, the log of a ratio near 1
    "hazard": (lambda v: pt.exp(-v * v / 2) / pt.erfc(v / math.sqrt(2)), lambda b: b <= 30, lambda b: b + 2),
    "pow_sub_pow": (lambda v: (v * v + 2) ** v - (v * v + 1) ** v, lambda b: b <= 3, lambda b: (b * b + 2) ** b + 1),
    "mul_sub_softplus": (lambda v: v * pt.sigmoid(v) - pt.log1p(pt.exp(v)), lambda b: b <= 30, lambda b: 2 * b + 1),
    "log_ratio_near_one": (lambda v: pt.log((v * v + 1) / (v * v + 2)), lambda b: b <= 1e3, lambda b: 1.0),
    # squareplus (a root of a square beside a term), a complex root's difference, the log of one plus a power,
    # a mixture with a point mass
    "squareplus": (lambda v: (v + pt.sqrt(v * v + 4)) / 2, lambda b: b <= 1e3, lambda b: b + 2),
    "root_sub": (lambda v: pt.sqrt(v * v + 1) - v, lambda b: b <= 1e3, lambda b: 2 * b + 2),
    "log1p_pow": (lambda v: pt.log1p((v * v + 1) ** 3), lambda b: b <= 1e3, lambda b: 3 * math.log(b * b + 1) + 1),
    "mixture": (lambda v: pt.log((1 - pt.sigmoid(v)) + pt.sigmoid(v) * pt.exp(-v * v)), lambda b: b <= 30,
                lambda b: b * b + 1),
    # a difference of two log-gammas at large arguments (a Student-t's normalizing constant)
    "lgamma_diff": (lambda v: pt.gammaln(v * v + 40.5) - pt.gammaln(v * v + 40), lambda b: b <= 1e3,
                    lambda b: math.log(b * b + 41) + 1),
    # the log of a share (a negative-binomial success probability, logged)
    "log_share": (lambda v: pt.log((v * v + 1) / ((v * v + 1) + 1e10)), lambda b: b <= 1e3, lambda b: 24.0),
}


#: The spellings only the measured stage's theory repairs (the fast pass leaves them).
STAGE_SPELLINGS = ("two_sub_exp", "erfinv_quantile", "beta_gamma", "hazard", "pow_sub_pow", "mul_sub_softplus",
                   "log_ratio_near_one", "squareplus", "root_sub", "log1p_pow", "mixture", "lgamma_diff",
                   "log_share")


def _spelling(ctx: _Ctx, x: _T, only: Sequence[str] | None = None) -> _T | None:
    """One numerics spelling of ``x`` (a float tensor), of ``only`` where given: ``log(1 + exp(x)) - x``,
    ``2 / (exp(x) + exp(-x))``, ``log(x + sqrt(x*x + 1))``, ... (most of which the stabilizing pass rewrites, a
    few PyTensor's own stabilizers); ``None`` for another dtype."""
    if not x.dtype.startswith("float"):
        return None
    names = [k for k, (_, ok, _) in SPELLINGS.items() if ok(x.bound) and (only is None or k in only)]
    if not names:
        return None
    fn, _, bound = SPELLINGS[ctx.pick(names)]
    return _T(fn(x.var), x.shape, bound(x.bound))


# ---------------------------------------------------------------- the strategy
BUILDERS: dict[str, Callable[[_Ctx, _T], _T | None]] = {
    "unary": _unary,
    "binary": _binary,
    "elemwise_scalar": _elemwise_scalar,
    "elemwise_alloc": _elemwise_alloc,
    "expand_dims": _expand_dims,
    "drop_dims": _drop_dims,
    "transpose": _transpose,
    "reduce": _reduce,
    "join": _join,
    "stack": _stack,
    "alloc": _alloc,
    "subtensor": _subtensor,
    "adv_subtensor": _adv_subtensor,
    "set_subtensor": partial(_set_subtensor, inc=False),
    "inc_subtensor": partial(_set_subtensor, inc=True),
    "set_zeros": _set_zeros,
    "fork": _fork,
    "matmul": _matmul,
    "solve": _solve,
    "random": _random,
    "spelling": _spelling,
    "stage_spelling": partial(_spelling, only=STAGE_SPELLINGS),
    "shared_axis": _shared_axis,
}
FAMILIES = tuple(BUILDERS)
#: Builders drawn only as a graph's first step (``graphs(family=...)``), never inside the recipes: adding them
#: there would change every derandomized draw of the other property tests.
FIRST_STEP_ONLY: tuple[str, ...] = ("shared_axis",)

# One step is one builder or a short recipe.  The recipes (weighted double) make the
# patterns the rewrite rules look for common: reductions of DimShuffles and of Joins,
# DimShuffle of DimShuffle, elemwise of set_subtensor-on-zeros and of alloc.  Early
# entries are drawn (and shrunk to) a little more often.
PATTERN_RECIPES: list[tuple[str, ...]] = [
    ("expand_dims", "reduce"), ("join", "reduce"), ("set_zeros", "unary"), ("transpose", "reduce"),
    ("alloc", "unary"), ("expand_dims", "transpose"), ("set_zeros", "binary"), ("expand_dims", "drop_dims"),
    ("transpose", "transpose"), ("alloc", "binary"), ("reduce", "expand_dims"),
    ("set_subtensor", "unary"), ("adv_subtensor", "reduce"), ("subtensor", "binary"),
    # shared sub-graphs: the node a rule would push through has a second use
    ("set_zeros", "fork"), ("alloc", "fork"), ("expand_dims", "fork", "reduce"),
    ("set_zeros", "fork", "binary"), ("join", "fork"), ("transpose", "fork"),
    # DimShuffles under Elemwise chains under reductions
    ("expand_dims", "unary", "reduce"), ("transpose", "unary", "reduce"),
    ("expand_dims", "elemwise_scalar", "reduce"), ("expand_dims", "unary", "unary", "reduce"),
    # reductions of an Alloc and of writes into zeros (the rule set "choices")
    ("alloc", "reduce"), ("set_zeros", "reduce"),
]
RECIPES: list[tuple[str, ...]] = (
    [("unary",), ("binary",), ("reduce",)]
    + PATTERN_RECIPES
    + [(name,) for name in FAMILIES if name not in ("unary", "binary", "reduce", *FIRST_STEP_ONLY)]
    + PATTERN_RECIPES
)


def _start(ctx: _Ctx) -> _T:
    """The first input: scalar to 3-tensor, any dtype, static dims from {None, 0, 1, n}."""
    dims: list[Dim] = []
    for _ in range(ctx.draw(st.integers(0, 3))):
        s = 0 if ctx.rare() else ctx.pick([None, 1, ctx.n, None])
        dims.append((None, ctx.length()) if s is None else (s, s))
    return ctx.leaf(dims, ctx.pick(DTYPES))


@st.composite
def graphs(draw, max_nodes: int = 8, family: str | None = None) -> Drawn:
    """Random graphs: at least one builder step, and further steps while the graph
    has fewer than ``max_nodes`` Apply nodes (the last step may overshoot by a few).

    ``family`` forces the first step to be that builder (see ``FAMILIES``).
    """
    ctx = _Ctx(draw, draw(st.sampled_from([2, 3])))
    x = _start(ctx)
    if family is not None:  # a (1, n) float matrix suits every builder
        y = BUILDERS[family](ctx, x)
        if y is None:
            x = ctx.leaf([(1, 1), (ctx.n, ctx.n)], "float64")
            y = BUILDERS[family](ctx, x)
        assert y is not None, family
        x = ctx.keep(y)
        ctx.families.append(family)
    for recipe in draw(st.lists(st.sampled_from(RECIPES), min_size=1, max_size=max_nodes)):
        if sum(1 for v in ancestors([x.var]) if v.owner is not None) >= max_nodes:
            break
        for name in recipe:
            y = BUILDERS[name](ctx, x)
            if y is not None:
                x = ctx.keep(y)
                ctx.families.append(name)
    if not ctx.families:  # nothing applied (e.g. transpose of a scalar)
        x = ctx.keep(_unary(ctx, x))
        ctx.families.append("unary")
    outputs = [x]
    for f in ctx.forks:
        if all(f.var is not o.var for o in outputs):
            outputs.append(f)
    inner = [p for p in ctx.pool if p.var.owner is not None and all(p.var is not o.var for o in outputs)]
    if inner and ctx.rare():
        outputs.append(ctx.pick(inner))
    used = set(ancestors([o.var for o in outputs]))
    keep = [i for i, v in enumerate(ctx.leaves) if v in used]
    return Drawn(
        outputs=[o.var for o in outputs],
        inputs=[ctx.leaves[i] for i in keep],
        values=[ctx.values[i] for i in keep],
        shapes=[o.shape for o in outputs],
        families=tuple(ctx.families),
        may_raise=ctx.may_raise,
    )
