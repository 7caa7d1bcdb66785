r"""``relations.DEFAULT_RULES`` as ordinary PyTensor node rewriters.

A baseline for the scaling benchmarks: the same rules, with the same
guards, as ``@node_rewriter`` functions in PyTensor's own style, applied to a
fixpoint by PyTensor's own machinery (:func:`native_normalize`: an ``in2out``
walk with ``ignore_newtrees=False``, repeated until a pass changes nothing,
or one ``EquilibriumGraphRewriter`` with ``strategy="equilibrium"``).

=================================  ======================================
relation (``relations``)           node rewriter (this module)
=================================  ======================================
``careduce_joino``                 :func:`local_careduce_join_pieces`
``careduce_dimshuffle_fullo``      :func:`local_careduce_dimshuffle_full`
``careduce_dimshuffle_partialo``   :func:`local_careduce_dimshuffle_partial`
``careduce_added_dimso``           :func:`local_careduce_added_dims`
``dimshuffle_identityo``           :func:`local_dimshuffle_identity`
``dimshuffle_composeo``            :func:`local_dimshuffle_compose`
``dimshuffle_through_elemwiseo``   :func:`local_dimshuffle_through_elemwise`
``inc_zeros_as_seto``              :func:`local_inc_zeros_as_set`
``elemwise_set_subtensoro``        :func:`local_elemwise_set_subtensor`
``elemwise_alloco``                :func:`local_elemwise_alloc_value`
=================================  ======================================

Faithfulness notes (what the relational engine does that is mirrored here):

* Nodes are matched by *exact* Op class, like the relational vocabulary
  (``graph_bridge.vocabulary``): ``Elemwise``, ``DimShuffle``, ``Join``,
  ``Alloc``, ``CAReduce`` and its PyTensor subclasses, and the inc/set
  subtensor classes.  Subclasses outside the vocabulary are left alone.
* Rules are tried in ``DEFAULT_RULES`` order at each node (one
  ``SequentialNodeRewriter``); for the Elemwise lifts, every input position
  is tried in order before the next rule, as the relation's answer stream.
* The sharing guards use ``fgraph.clients`` (as PyTensor's own lifts do):
  the set and Alloc lifts need one client, a moved DimShuffle one client or
  only Elemwise/reduction clients (``graph_bridge.context``).
* A replacement must have the old output's dtype, ndim and broadcastable
  pattern (``graph_bridge.type_facts.same_type``), else the rule does not apply.
* Ops with changed props are rebuilt the way ``graph_bridge.OpBuilder``
  does (constructor keywords from ``__props__``, checked afterwards), so a
  class whose constructor cannot reproduce the props is skipped, as there.

``elemwise_explicito``             :func:`local_elemwise_explicit`
``alloc_explicito``                :func:`local_alloc_explicit`

The last two rewrite to the toolkit's own Ops (``graph_bridge.ops``), which
PyTensor has no counterpart of; as node rewriters they build those Ops
directly.

Known differences: none in the rewrites themselves.  Only the traversal
differs: ``relations.normalize`` walks bottom-up once and normalizes each new
sub-graph immediately, while ``in2out`` visits new nodes at the end of its
queue and repeats passes.  The rules are terminating and (on the benchmark
families) confluent, so both reach the same normal form; node identity and
duplicate (un-merged) sub-graphs may differ.  The fgraph may additionally
refuse a replacement whose static shape is less precise than the original's
(``Type.is_super``); such a replacement is passed through
``Type.filter_variable`` (which may add a ``SpecifyShape``), whereas the
relational engine accepts it as is.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import pytensor.scalar as ps
from pytensor.graph.basic import Variable
from pytensor.graph.fg import FunctionGraph
from pytensor.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    SequentialNodeRewriter,
    in2out,
    node_rewriter,
)
from pytensor.scalar import Cast, ScalarType
from pytensor.tensor.basic import Alloc
from pytensor.tensor.elemwise import CAReduce, DimShuffle, Elemwise

from graph_bridge.node_relations import SET_CLASSES
from graph_bridge.nodes import join_parts, scalar_of
from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise, derive_entry
from graph_bridge.type_facts import same_type
from graph_bridge.value_facts import indices_unique, is_zeros

__all__ = [
    "NATIVE_RULES",
    "local_careduce_dimshuffle_full",
    "local_careduce_dimshuffle_partial",
    "local_careduce_added_dims",
    "local_dimshuffle_through_elemwise",
    "local_careduce_join_pieces",
    "local_dimshuffle_compose",
    "local_dimshuffle_identity",
    "local_alloc_explicit",
    "local_elemwise_alloc_value",
    "local_elemwise_explicit",
    "local_elemwise_set_subtensor",
    "local_inc_zeros_as_set",
    "native_normalize",
]


# --------------------------------------------------------------------------
# helpers


def _subclasses(cls: type):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


#: CAReduce classes the rules look at (exact classes, as the vocabulary).
CAREDUCE_CLASSES = frozenset(
    [CAReduce] + [c for c in _subclasses(CAReduce) if c.__module__.startswith("pytensor.")]
)
#: Scalar ops whose reduction of an empty piece is defined (they have an identity).
WITH_IDENTITY = (ps.Add, ps.Mul, ps.AND, ps.OR)


def _same_type(new: Variable, old: Variable) -> bool:
    """Same dtype, ndim, broadcastable pattern and Type class (the engine's check)."""
    return same_type(new.type, old.type)


def _replacement(old: Variable, new: Variable):
    """``[new]`` if it may replace ``old``, else ``None`` (the rule does not apply)."""
    if new is old or not _same_type(new, old):
        return None
    if not old.type.is_super(new.type):
        new = old.type.filter_variable(new, allow_convert=True)
    return [new]


def _owner_op(v: Variable, cls) -> object | None:
    """``v``'s Op when ``v`` is the single output of a node of exactly ``cls``."""
    node = v.owner
    if node is None or len(node.outputs) != 1:
        return None
    if isinstance(cls, (tuple, frozenset)):
        return node.op if type(node.op) in cls else None
    return node.op if type(node.op) is cls else None


def _single_client(fgraph, v: Variable) -> bool:
    """``v`` has one client in ``fgraph`` (PyTensor's guard against duplicating a node)."""
    return len(fgraph.clients[v]) == 1


def _movable_view(fgraph, v: Variable) -> bool:
    """One client, or every client an Elemwise or a reduction (as ``relations.patterns.sharing.movable_viewo``)."""
    clients = fgraph.clients[v]
    if len(clients) == 1:
        return True
    return all(
        not isinstance(c, str) and isinstance(c.op, (Elemwise, ExplicitElemwise, CAReduce))
        for c, _ in clients
    )


def _rebuild(op, **changes):
    """``op`` with some props changed, built from its constructor's keywords.

    Returns ``None`` when the class's constructor cannot give those props
    (as ``graph_bridge.OpBuilder``).
    """
    props = dict(op._props_dict())
    props.update(changes)
    params = inspect.signature(type(op).__init__).parameters
    kwargs = {k: v for k, v in props.items() if k in params and k != "self"}
    try:
        new = type(op)(**kwargs)
    except Exception:
        return None
    got = new._props_dict()
    for k, want in props.items():
        try:
            if not bool(got[k] == want):
                return None
        except Exception:
            if got[k] is not want:
                return None
    return new


def _is_identity(n: int, order) -> bool:
    return tuple(order) == tuple(range(n))


def _compose_orders(inner: tuple, outer: tuple) -> tuple:
    return tuple("x" if d == "x" else inner[d] for d in outer)


def _dropped_dims(n: int, order: tuple) -> tuple[int, ...]:
    kept = {d for d in order if d != "x"}
    return tuple(d for d in range(n) if d not in kept)


def _reduce_through(n: int, order: tuple, axes: tuple) -> tuple[tuple, tuple]:
    """``(axes2, order2)`` with ``R{axes}(DS{order}(x)) == DS{order2}(R{axes2}(x))``."""
    axes_set = set(axes)
    axes2 = sorted(
        {order[j] for j in axes_set if order[j] != "x"} | set(_dropped_dims(n, order))
    )
    remaining = [d for d in range(n) if d not in axes2]
    rank = {d: i for i, d in enumerate(remaining)}
    order2 = tuple(
        "x" if order[j] == "x" else rank[order[j]]
        for j in range(len(order))
        if j not in axes_set
    )
    return tuple(axes2), order2


_scalar_of = scalar_of  # the 0-d variable behind a scalar-like input (as the relations read it)


def _scalars_of(vs: Sequence[Variable]) -> list[Variable] | None:
    out = []
    for v in vs:
        s = _scalar_of(v)
        if s is None:
            return None
        out.append(s)
    return out


def _alloc_parts(v: Variable):
    """Value and shape of an Alloc, stock or explicit without a length check (as ``relations.rules.lift``)."""
    node = v.owner
    if node is None or len(node.outputs) != 1:
        return None
    if type(node.op) is Alloc or (type(node.op) is ExplicitAlloc and "*" not in node.op.entry):
        return node.inputs[0], tuple(node.inputs[1:])
    return None


def _broadcast_like(v: Variable) -> bool:
    if all(v.type.broadcastable):
        return True
    parts = _alloc_parts(v)
    return parts is not None and all(parts[0].type.broadcastable)


def _set_parts(v: Variable, set_mode: bool):
    """``(op, x, value, idx)`` when ``v`` is a (non-inplace) set / inc node."""
    op = _owner_op(v, SET_CLASSES)
    if op is None or bool(op.set_instead_of_inc) is not set_mode or op.inplace:
        return None
    ins = v.owner.inputs
    return op, ins[0], ins[1], tuple(ins[2:])


# --------------------------------------------------------------------------
# rewrites


@node_rewriter([CAReduce])
def local_careduce_join_pieces(fgraph, node):
    """A reduction of a join is the combination of the reductions of its pieces.

    Before::

        Sum{axes=None}(Join(0, a, b, c))
        Max{axis=1}(Join(1, a, b))

    After::

        Add(Sum{axes=None}(a), Sum{axes=None}(b), Sum{axes=None}(c))
        Maximum(Maximum(Max{axis=1}(a), Max{axis=1}(b)), ...)   # left fold

    For a reduction over every axis (``axis=None``) or along the join axis
    only, with a constant join axis and at least two pieces.  Every piece must
    have the Join's dtype and ndim.  Reductions whose scalar op has no
    identity (Max, Min, ...) need every piece statically non-empty on every
    dim.  Variadic scalar ops (add, mul) give one Elemwise, binary ones a
    left fold.  Unlike PyTensor's ``local_reduce_join`` the pieces need not
    have length 1 along the join axis.
    """
    op = node.op
    if type(op) not in CAREDUCE_CLASSES:
        return None
    [joined] = node.inputs
    parts = join_parts(joined)
    if parts is None:
        return None
    axis, pieces = parts
    if len(pieces) < 2:
        return None
    if op.axis is not None and tuple(op.axis) != (axis,):
        return None
    out_type = joined.type
    if any(p.type.dtype != out_type.dtype or p.type.ndim != out_type.ndim for p in pieces):
        return None
    scalar_op = op.scalar_op
    if not isinstance(scalar_op, WITH_IDENTITY):
        if any(s is None or s == 0 for p in pieces for s in p.type.shape):
            return None
    reduced = [op(p) for p in pieces]
    combine = Elemwise(scalar_op)
    if scalar_op.nin == -1:
        new = combine(*reduced)
    else:
        new = reduced[0]
        for r in reduced[1:]:
            new = combine(new, r)
    return _replacement(node.outputs[0], new)


@node_rewriter([CAReduce])
def local_careduce_dimshuffle_full(fgraph, node):
    """A full reduction does not see the layout of its input.

    Before::

        Sum{axes=None}(DimShuffle{order}(x))     # any non-identity order

    After::

        Sum{axes=None}(x)

    For every CAReduce class; the reduction Op is reused as is (same dtype).
    """
    op = node.op
    if type(op) not in CAREDUCE_CLASSES or op.axis is not None:
        return None
    [ds_out] = node.inputs
    ds = _owner_op(ds_out, DimShuffle)
    if ds is None:
        return None
    x = ds_out.owner.inputs[0]
    n, order = x.type.ndim, tuple(ds.new_order)
    if ds.input_ndim != n:
        return None
    kept = [d for d in order if d != "x"]
    if len(set(kept)) != len(kept) or not all(0 <= d < n for d in kept) or _is_identity(n, order):
        return None
    return _replacement(node.outputs[0], op(x))


@node_rewriter([CAReduce])
def local_careduce_dimshuffle_partial(fgraph, node):
    """A DimShuffle moves out of a partial reduction; reduced added dims vanish.

    Before / After (``m`` a matrix)::

        Sum{axis=(0, 2)}(ExpandDims{axis=0}(m))   ->  Sum{axis=1}(m)
        Sum{axis=2}(ExpandDims{axis=0}(m))        ->  ExpandDims{axis=0}(Sum{axis=1}(m))
        Sum{axis=0}(Transpose(m))                 ->  Sum{axis=1}(m)

    The new reduction runs over the input dims behind the reduced output dims
    plus the dims the DimShuffle drops; the remaining dims are put back by a
    DimShuffle, omitted when it is the identity.  Not applied when only added
    (``'x'``) dims are reduced (that reduction is a cast).
    """
    op = node.op
    if type(op) not in CAREDUCE_CLASSES or op.axis is None:
        return None
    [ds_out] = node.inputs
    ds = _owner_op(ds_out, DimShuffle)
    if ds is None:
        return None
    x = ds_out.owner.inputs[0]
    n = x.type.ndim
    if ds.input_ndim != n or not _movable_view(fgraph, ds_out):
        return None
    axes2, order2 = _reduce_through(n, tuple(ds.new_order), tuple(op.axis))
    if not axes2:
        return None
    op2 = _rebuild(op, axis=axes2)
    if op2 is None:
        return None
    inner = op2(x)
    m = inner.type.ndim
    if _is_identity(m, order2):
        new = inner
    else:
        new = DimShuffle(input_ndim=m, new_order=order2)(inner)
    return _replacement(node.outputs[0], new)


@node_rewriter([DimShuffle])
def local_dimshuffle_identity(fgraph, node):
    """An identity DimShuffle is its input.

    Before::

        DimShuffle{input_ndim=2, new_order=(0, 1)}(x)

    After::

        x
    """
    if type(node.op) is not DimShuffle:
        return None
    x = node.inputs[0]
    if node.op.input_ndim != x.type.ndim or not _is_identity(x.type.ndim, node.op.new_order):
        return None
    return _replacement(node.outputs[0], x)


@node_rewriter([DimShuffle])
def local_dimshuffle_compose(fgraph, node):
    """Two DimShuffles in a row are one.

    Before::

        DimShuffle{outer}(DimShuffle{inner}(x))

    After::

        DimShuffle{compose(inner, outer)}(x)     # identity: removed next
    """
    if type(node.op) is not DimShuffle:
        return None
    inner_out = node.inputs[0]
    inner = _owner_op(inner_out, DimShuffle)
    if inner is None:
        return None
    x = inner_out.owner.inputs[0]
    n = x.type.ndim
    if inner.input_ndim != n or node.op.input_ndim != len(inner.new_order):
        return None
    composed = _compose_orders(tuple(inner.new_order), tuple(node.op.new_order))
    new = DimShuffle(input_ndim=n, new_order=composed)(x)
    return _replacement(node.outputs[0], new)


@node_rewriter(list(SET_CLASSES))
def local_inc_zeros_as_set(fgraph, node):
    """An inc into zeros at indices that never repeat is a set.

    Before::

        zeros(n)[idx].inc(v)

    After::

        zeros(n)[idx].set(v)

    ``zeros`` is an Alloc of a constant 0 or a constant array of zeros.  The
    indices never repeat when basic (IncSubtensor), or when constant advanced
    indices whose index tuples are unique and of one sign per position.
    """
    parts = _set_parts(node.outputs[0], set_mode=False)
    if parts is None:
        return None
    op, base, value, idx = parts
    if not (is_zeros(base) and indices_unique(op, idx)):
        return None
    set_op = _rebuild(op, set_instead_of_inc=True, inplace=False)
    if set_op is None:
        return None
    try:
        new = set_op(base, value, *idx)
    except Exception:
        return None
    return _replacement(node.outputs[0], new)


@node_rewriter([Elemwise])
def local_elemwise_set_subtensor(fgraph, node):
    """Lift an Elemwise through a set (never an inc).

    Before::

        f(x[idx].set(c), s)          # s scalar-like: 0-d, or a 0-d expanded

    After::

        f(x, s)[idx].set(f(cast(c, x.dtype), s))

    For SetSubtensor, AdvancedSetSubtensor and AdvancedSetSubtensor1; the
    other inputs must be scalar-like, and the base or the value must be a
    broadcast (all dims broadcastable, or an Alloc of such a value).  Input
    positions are tried left to right.
    """
    if type(node.op) is not Elemwise or len(node.outputs) != 1:
        return None
    out = node.outputs[0]
    sop = node.op.scalar_op
    ins = node.inputs
    for i, hole in enumerate(ins):
        parts = _set_parts(hole, set_mode=True)
        if parts is None or not _single_client(fgraph, hole):
            continue
        set_op, x, c, idx = parts
        before, after = ins[:i], ins[i + 1 :]
        sb, sa = _scalars_of(before), _scalars_of(after)
        if sb is None or sa is None:
            continue
        if not (_broadcast_like(x) or _broadcast_like(c)):
            continue
        c2 = c if c.type.dtype == x.type.dtype else Elemwise(Cast(ScalarType(x.type.dtype)))(c)
        f = Elemwise(sop)
        try:
            fx = f(*before, x, *after)
            fc = f(*sb, c2, *sa)
            new = set_op(fx, fc, *idx)
        except Exception:
            continue
        repl = _replacement(out, new)
        if repl is not None:
            return repl
    return None


@node_rewriter([Elemwise])
def local_elemwise_alloc_value(fgraph, node):
    """Lift an Elemwise into the value of an Alloc of a broadcast value.

    Before::

        f(Alloc(v, n, m), s)        # v fully broadcastable, s scalar-like

    After::

        Alloc(f(v, s), n, m)

    Input positions are tried left to right.
    """
    if type(node.op) is not Elemwise or len(node.outputs) != 1:
        return None
    out = node.outputs[0]
    sop = node.op.scalar_op
    ins = node.inputs
    for i, hole in enumerate(ins):
        parts = _alloc_parts(hole)
        if parts is None or not _single_client(fgraph, hole):
            continue
        v, shape = parts
        if not all(v.type.broadcastable):
            continue
        sb, sa = _scalars_of(ins[:i]), _scalars_of(ins[i + 1 :])
        if sb is None or sa is None:
            continue
        try:
            fv = Elemwise(sop)(*sb, v, *sa)
            new = Alloc()(fv, *shape)
        except Exception:
            continue
        repl = _replacement(out, new)
        if repl is not None:
            return repl
    return None


def _absorbed(v: Variable, out_ndim: int) -> tuple[Variable, str]:
    """The input an expanding DimShuffle adds dims to, and its explicit pattern entry."""
    node = v.owner
    if (
        node is not None
        and type(node.op) is DimShuffle
        and [o for o in node.op.new_order if o != "x"] == list(range(node.inputs[0].type.ndim))
    ):
        inner = node.inputs[0]
        shape = iter(inner.type.shape)
        entry = "".join("x" if o == "x" else ("1" if next(shape) == 1 else "*") for o in node.op.new_order)
        return inner, "x" * (out_ndim - len(entry)) + entry
    return v, derive_entry(v.type.shape, out_ndim)


@node_rewriter([Elemwise])
def local_elemwise_explicit(fgraph, node):
    """Broadcasting moves from DimShuffles and static shapes into the Op.

    Before::

        add(ExpandDims{axis=0}(x), y)        # x: (), y: (None,)

    After::

        add{x,*}(x, y)
    """
    if (
        type(node.op) is not Elemwise
        or node.op.inplace_pattern
        or len(node.inputs) < 2
        or len(node.outputs) != 1
        or node.outputs[0].type.ndim == 0
    ):
        return None
    out = node.outputs[0]
    parts = [_absorbed(v, out.type.ndim) for v in node.inputs]
    try:
        new = ExplicitElemwise(node.op.scalar_op, tuple(e for _, e in parts))(*(v for v, _ in parts))
    except Exception:
        return None
    return _replacement(out, new)


@node_rewriter([Alloc])
def local_alloc_explicit(fgraph, node):
    """The broadcasting of an Alloc's value moves from its static shape into the Op.

    Before::

        Alloc(x, n, m)                   # x: (None,)

    After::

        Alloc{x*}(x, n, m)
    """
    if type(node.op) is not Alloc:
        return None
    out = node.outputs[0]
    value, entry = _absorbed(node.inputs[0], node.inputs[0].type.ndim)
    entry = "x" * (len(node.inputs) - 1 - len(entry)) + entry
    try:
        new = ExplicitAlloc(entry)(value, *node.inputs[1:])
    except Exception:
        return None
    return _replacement(out, new)


@node_rewriter([CAReduce])
def local_careduce_added_dims(fgraph, node):
    """A reduction over dims a DimShuffle only added is no reduction.

    Before / After::

        Sum{axis=0}(ExpandDims{axis=0}(s))   ->  s
        Sum{axis=2}(DimShuffle{x,0,x}(v))    ->  ExpandDims{axis=0}(v)
    """
    op = node.op
    if type(op) not in CAREDUCE_CLASSES or op.axis is None:
        return None
    [ds_out] = node.inputs
    ds = _owner_op(ds_out, DimShuffle)
    if ds is None or not _movable_view(fgraph, ds_out):
        return None
    x = ds_out.owner.inputs[0]
    order = tuple(ds.new_order)
    if ds.input_ndim != x.type.ndim or not all(order[j] == "x" for j in op.axis):
        return None
    order2 = tuple(d for j, d in enumerate(order) if j not in op.axis)
    n = x.type.ndim
    new = x if _is_identity(n, order2) else DimShuffle(input_ndim=n, new_order=order2)(x)
    return _replacement(node.outputs[0], new)


@node_rewriter([Elemwise])
def local_dimshuffle_through_elemwise(fgraph, node):
    """A DimShuffle every input of an Elemwise shares moves above it.

    Before / After::

        Exp(ExpandDims{axis=0}(x))       ->  ExpandDims{axis=0}(Exp(x))
        Mul(ExpandDims{axis=0}(x), ExpandDims{axes=[0, 1]}(2.0))
                                         ->  ExpandDims{axis=0}(Mul(x, ExpandDims{axis=0}(2.0)))

    Expanded 0-d inputs are expanded to the DimShuffle's input rank.
    """
    op = node.op
    if type(op) is not Elemwise or op.inplace_pattern or len(node.outputs) != 1:
        return None
    found = []
    for v in node.inputs:
        d = _owner_op(v, DimShuffle)
        if d is None or not _movable_view(fgraph, v):
            return None
        found.append((d.input_ndim, tuple(d.new_order), v.owner.inputs[0]))
    full = {(k, o) for k, o, _ in found if k > 0}
    if len(full) > 1:
        return None
    k, order = next(iter(full)) if full else (0, found[0][1])
    inner = [
        x if (fk == k and fk > 0) or k == 0 else (DimShuffle(input_ndim=0, new_order=("x",) * k)(x))
        for fk, _, x in found
    ]
    try:
        new = DimShuffle(input_ndim=k, new_order=order)(Elemwise(op.scalar_op)(*inner))
    except Exception:
        return None
    return _replacement(node.outputs[0], new)


#: The rules in ``relations.DEFAULT_RULES`` order.
NATIVE_RULES = (
    local_careduce_join_pieces,
    local_careduce_dimshuffle_full,
    local_careduce_dimshuffle_partial,
    local_careduce_added_dims,
    local_dimshuffle_identity,
    local_dimshuffle_compose,
    local_dimshuffle_through_elemwise,
    local_inc_zeros_as_set,
    local_elemwise_set_subtensor,
    local_elemwise_alloc_value,
    local_elemwise_explicit,
    local_alloc_explicit,
)


def native_normalize(
    outputs: list[Variable], strategy: str = "in2out", max_passes: int = 100
) -> list[Variable]:
    """Apply :data:`NATIVE_RULES` to a fixpoint with PyTensor's own machinery.

    Builds ``FunctionGraph(outputs=outputs, clone=True)`` (so the result is
    over cloned inputs, with the same names) and returns its outputs after:

    * ``strategy="in2out"`` (default): an ``in2out`` walk with
      ``ignore_newtrees=False`` (new nodes are visited too), repeated until a
      pass makes no replacement.  A node whose *input* is replaced after it
      was visited is only seen again by the next pass (nested lifts such as
      ``log1p(neg(sqr(set(set(zeros)))))`` take three passes);
    * ``strategy="equilibrium"``: one ``EquilibriumGraphRewriter`` over the
      rules (what PyTensor's ``canonicalize`` uses), which re-visits changed
      nodes itself.
    """
    fgraph = FunctionGraph(outputs=list(outputs), clone=True)
    if strategy == "in2out":
        rewriter = in2out(
            *NATIVE_RULES, ignore_newtrees=False, failure_callback=None, name="native_normalize"
        )
        for _ in range(max_passes):
            profile = rewriter.rewrite(fgraph)
            if profile[1] == 0:  # number of replacements in this pass
                break
        else:
            raise RuntimeError(f"native_normalize: no fixpoint after {max_passes} passes")
    elif strategy == "equilibrium":
        rewriter = EquilibriumGraphRewriter(
            [SequentialNodeRewriter(*NATIVE_RULES)],
            ignore_newtrees=False,
            tracks_on_change_inputs=True,
            max_use_ratio=max_passes,
            failure_callback=None,
        )
        rewriter.rewrite(fgraph)
    else:
        raise ValueError(f"strategy must be 'in2out' or 'equilibrium', got {strategy!r}")
    return list(fgraph.outputs)
