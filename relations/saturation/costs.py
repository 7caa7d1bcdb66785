"""Costs of graphs, for ``relations.best`` and extraction.

- :func:`elements_touched`: elements every node writes, from static shapes;
- :func:`measured`: seconds, from a table measured on the default backend
  (Numba) by ``benchmarks/calibrate.py``: per Op kind and dtype, a cost per
  call of the node and per element it writes;
- :func:`stability_key`: ``(unstable spellings, elements touched)``, the
  numerically stable form first (``relations.explain(..., rewriters=...)``).

All are DAG-aware: a node that several outputs or consumers share is paid
once; :func:`measured` also pays equal computations once (PyTensor merges
them when it compiles).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from pytensor.compile.builders import OpFromGraph
from pytensor.graph.basic import Apply, Constant, Variable
from pytensor.scalar import ScalarType
from pytensor.tensor.shape import Shape, Shape_i
from pytensor.tensor.type import TensorType

from graph_bridge.ops import ExplicitAlloc, ExplicitElemwise
from graph_bridge.shape_values import folded_value
from graph_bridge.traverse import bottom_up, owned_variables

__all__ = [
    "DEFAULT_LENGTH",
    "TABLE_PATH",
    "CostTable",
    "elements_touched",
    "load_table",
    "Fusion",
    "measured",
    "MAX_FOLDED_SIZE",
    "merged_nodes",
    "node_cost",
    "node_costs",
    "node_elements",
    "type_elements",
    "op_kind",
    "shape_finder",
    "variable_elements",
]

#: where the shipped table lives (``benchmarks/calibrate.py`` writes it)
TABLE_PATH = Path(__file__).with_name("cost_table.json")
#: the length :func:`measured` gives a dimension it cannot find (no static
#: length, no ``sizes`` entry, no constant or shared value to read, no shape
#: PyTensor's ``infer_shape`` folds to a constant)
DEFAULT_LENGTH = 16


def elements_touched(outputs: Sequence[Variable], unknown_dim: int = 16) -> float:
    """Default cost: elements every node writes, from static shapes (unknown lengths count ``unknown_dim``)."""
    total = 0.0
    for v in owned_variables(outputs):
        for o in v.owner.outputs:
            total += variable_elements(o, unknown_dim)
    return total


def op_kind(node: Apply) -> str:
    """The table's name for ``node``'s Op: its class name; an Elemwise's with its scalar op (``Elemwise{Exp}``),
    a Blockwise's with its core op (``Blockwise{Cholesky}``).

    The toolkit's explicit Ops count as the stock Ops they lower to; a
    ``Pow`` with a constant exponent is ``Elemwise{Pow(constant)}``.
    """
    op = node.op
    if isinstance(op, ExplicitAlloc):
        return "Alloc"
    scalar = getattr(op, "scalar_op", None)
    name = type(op).__name__
    if name == "Blockwise" and hasattr(op, "core_op"):
        return f"Blockwise{{{type(op.core_op).__name__}}}"
    if isinstance(op, ExplicitElemwise) or (name == "Elemwise" and scalar is not None):
        scalar_name = type(scalar).__name__
        if scalar_name == "Pow" and len(node.inputs) == 2 and _is_constant(node.inputs[1]):
            return "Elemwise{Pow(constant)}"  # PyTensor's rewrites make most of those a Sqr, a Mul, a Sqrt
        return f"Elemwise{{{scalar_name}}}"
    return name


def _is_constant(v: Variable, budget: int = 8) -> bool:
    """A constant, or a small graph over constants only (PyTensor folds it: ``[[2]] - 1``, a
    DimShuffle of a constant as Elemwise expands one); at most ``budget`` nodes are looked at."""
    stack = [v]
    while stack:
        u = stack.pop()
        if isinstance(u, Constant):
            continue
        if u.owner is None or budget == 0:
            return False
        budget -= 1
        stack.extend(u.owner.inputs)
    return True


class CostTable:
    """Per Op kind and dtype: ``(seconds per call, seconds per element written)``.

    ``entries[kind][dtype]`` (``"*"`` for any dtype) and a ``default`` pair
    for kinds the table does not hold.
    """

    def __init__(
        self,
        entries: Mapping[str, Mapping[str, Sequence[float]]],
        default: Sequence[float],
        about: str = "",
        call: Sequence[float] = (0.0, 0.0),
        memory: float | None = None,
    ):
        self.entries = {k: {d: (float(c[0]), float(c[1])) for d, c in v.items()} for k, v in entries.items()}
        if len(default) != 2:
            raise ValueError(f"default must be (per call, per element), got {default!r}")
        if len(call) != 2:
            raise ValueError(f"call must be (per call, per input), got {call!r}")
        self.default = (float(default[0]), float(default[1]))
        #: a compiled function's own cost: seconds per call, and per input it checks and converts
        self.call = (float(call[0]), float(call[1]))
        if memory is not None and (isinstance(memory, bool) or not isinstance(memory, (int, float)) or not memory >= 0):
            raise ValueError(f"memory must be a non-negative number of seconds per element or None, got {memory!r}")
        #: seconds per element of one pass over memory (an array written and read back), or
        #: ``None``: fused kernels are not modelled (every node pays its own entry)
        self.memory = None if memory is None else float(memory)
        self.about = about

    def cost(self, kind: str, dtype: str) -> tuple[float, float]:
        """``(per call, per element)`` of ``kind`` in ``dtype``: its own entry, its ``"*"`` one, or the default."""
        by_dtype = self.entries.get(kind)
        if by_dtype is None and kind.startswith("Elemwise{"):
            by_dtype = self.entries.get("Elemwise{*}")
        if by_dtype is None:
            return self.default
        return by_dtype.get(dtype) or by_dtype.get("*") or next(iter(by_dtype.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "about": self.about,
            "call": list(self.call),
            "memory": self.memory,
            "default": list(self.default),
            "entries": {k: {d: list(c) for d, c in v.items()} for k, v in sorted(self.entries.items())},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CostTable:
        return cls(
            data["entries"], data["default"], data.get("about", ""), data.get("call", (0.0, 0.0)), data.get("memory")
        )


@lru_cache(maxsize=4)
def load_table(path: str | None = None) -> CostTable:
    """The table at ``path`` (default: the shipped :data:`TABLE_PATH`)."""
    p = Path(path) if path is not None else TABLE_PATH
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"no cost table at {p}: run benchmarks/calibrate.py to measure one") from None
    return CostTable.from_json(data)


def measured(
    outputs: Sequence[Variable],
    sizes: Mapping[Variable, Sequence[int]] | None = None,
    table: CostTable | None = None,
    *,
    shape_of: Callable[[Variable], tuple[int, ...] | None] | None = None,
) -> float:
    """Predicted seconds of one call of the compiled ``outputs``, from a measured table.

    The function itself costs the table's ``call`` (per call, and per root
    input); each node (once, however many consumers share it) costs its
    kind's per call cost plus its per element cost times the elements its
    outputs hold (a reduction: the elements it reads; a product of
    matrices: the output's elements times the inner length;
    :func:`node_elements`).  An explicit Elemwise also pays a DimShuffle
    call per input it places with a missing dim (lowered, it has one).

    Where the table has a ``memory`` cost (the shipped one does), fused
    kernels are modelled as PyTensor builds them (its ``FusionOptimizer``
    makes one ``Composite`` loop of each connected group of Elemwise nodes,
    and a reduction absorbs the Elemwise it alone reads): an Elemwise pays
    its per element cost less one memory pass (the arithmetic, at least
    :data:`MIN_ARITHMETIC` of a pass), plus a
    memory pass for each output the group writes (one read outside the
    group or returned); each group pays one per call cost; a view (a
    DimShuffle, a Reshape, a basic Subtensor) pays its call only.

    Lengths come, in order, from the static type; from ``sizes`` (a mapping
    of root variables to their run-time shapes); from a constant's or shared
    variable's value; from PyTensor's ``infer_shape`` where it folds to a
    constant; else :data:`DEFAULT_LENGTH`.  ``table`` defaults to the
    shipped one (:func:`load_table`).  ``shape_of`` (from
    :func:`shape_finder`, instead of ``sizes``) shares the lengths found
    between calls on forms of one graph.
    """
    table = _checked_table(table)
    of = _shape_function(sizes, shape_of)
    nodes, canon = merged_nodes(outputs)
    inputs = {i for node in nodes for i in node.inputs if i.owner is None and not isinstance(i, Constant)}
    fusion = None if table.memory is None else Fusion(nodes, [canon[o] for o in outputs], canon)
    total = table.call[0] + table.call[1] * len(inputs)
    for node in nodes:
        total += node_cost(node, of, table, fusion)
    return total


def _shape_function(sizes: Any, shape_of: Any) -> Callable[[Variable], tuple[int, ...] | None]:
    if shape_of is not None:
        if sizes is not None:
            raise ValueError("give sizes or shape_of, not both (shape_of already holds its sizes)")
        if not callable(shape_of):
            raise TypeError(f"shape_of must be callable (from shape_finder), got {type(shape_of).__name__}")
        return shape_of
    if sizes is not None and not isinstance(sizes, Mapping):
        raise TypeError(f"sizes must be a mapping of variables to shapes, got {type(sizes).__name__}")
    return _Shapes(sizes or {}).of


def merged_nodes(outputs: Sequence[Variable]) -> tuple[list[Apply], dict[Variable, Variable]]:
    """The nodes of ``outputs`` as PyTensor's merge leaves them, and each variable's representative.

    PyTensor merges equal computations (the same Op over the same inputs,
    equal constants) before anything else when it compiles, so a form is
    paid for its distinct computations: two copies of a sub-graph cost one.
    """
    canon: dict[Variable, Variable] = {}
    constants: dict[Any, Variable] = {}
    reps: dict[tuple, Apply] = {}
    nodes: list[Apply] = []
    for v in bottom_up(outputs, canon.__contains__):
        node = v.owner
        if node is None:
            canon[v] = constants.setdefault(_constant_key(v), v) if isinstance(v, Constant) else v
            continue
        folded = _folded(v, canon)
        if folded is not None:  # PyTensor's constant folding makes it this constant: free, and merged
            canon[v] = constants.setdefault(_constant_key(folded), folded)
            continue
        key = (node.op, tuple(canon[i] for i in node.inputs))
        rep = reps.get(key)
        if rep is None or len(rep.outputs) != len(node.outputs):
            rep = reps[key] = node
            nodes.append(node)
        for o, r in zip(node.outputs, rep.outputs):
            canon[o] = r
    return nodes, canon


#: the most elements a folded value may hold (PyTensor folds larger ones too; these are the
#: index and shape arithmetic that makes equal computations look different)
MAX_FOLDED_SIZE = 64


def _folded(v: Variable, canon: Mapping[Variable, Variable]) -> Constant | None:
    """The constant ``v`` folds to, when its node has one output, every input is a constant (or
    one the walk folded) or it reads a static shape, and the value is small; else ``None``."""
    node = v.owner
    if len(node.outputs) != 1 or not isinstance(v.type, (TensorType, ScalarType)):
        return None
    if not isinstance(node.op, (Shape, Shape_i)) and not all(isinstance(canon[i], Constant) for i in node.inputs):
        return None
    value = folded_value(v)
    if value is None or np.size(value) > MAX_FOLDED_SIZE:
        return None
    try:
        return v.type.make_constant(v.type.filter(value))
    except (TypeError, ValueError):  # a value its type refuses: left as a node
        return None


def _constant_key(c: Constant) -> Any:
    try:
        key = c.signature()
        hash(key)
        return key
    except Exception:  # noqa: BLE001 - a constant without a hashable signature: itself
        return id(c)


def _checked_table(table: CostTable | None) -> CostTable:
    if table is None:
        return load_table()
    if not isinstance(table, CostTable):
        raise TypeError(f"table must be a CostTable, got {type(table).__name__}")
    return table


def _is_elemwise(node: Apply) -> bool:
    from pytensor.tensor.elemwise import Elemwise

    return isinstance(node.op, (Elemwise, ExplicitElemwise))


def _is_view(node: Apply) -> bool:
    return type(node.op).__name__ == "DimShuffle"


#: Op class names whose output is a view of their input in the compiled graph (their call
#: only; the table's per element cost of a one-node graph is the copy of the returned view)
_VIEWS = frozenset({"DimShuffle", "Reshape", "Subtensor"})


class Fusion:
    """Which Elemwise nodes of a graph PyTensor fuses into one loop, and which of their outputs it writes.

    A group is a connected set of Elemwise nodes (an Elemwise reading
    another's output joins its group, also through DimShuffles: PyTensor's
    canonicalize lifts a DimShuffle above the Elemwise it reads, so the two
    Elemwise meet).  An output is written when it is a graph output or a
    node other than an Elemwise (or a DimShuffle it alone reads) reads it,
    except a reduction that is its only reader (PyTensor fuses the two).
    """

    def __init__(
        self, nodes: Sequence[Apply], outputs: Sequence[Variable], canon: Mapping[Variable, Variable] | None = None
    ) -> None:
        from pytensor.tensor.elemwise import CAReduce

        #: each variable's representative (``merged_nodes``): a node reads its inputs' representatives
        self.canon = canon or {}
        self.returned = set(outputs)
        self.clients: dict[Variable, list[Apply]] = {}
        for node in nodes:
            for i in node.inputs:
                self.clients.setdefault(self.canon.get(i, i), []).append(node)
        self._parent: dict[Apply, Apply] = {n: n for n in nodes if _is_elemwise(n)}
        for n in self._parent:
            for i in n.inputs:
                below = self._through_views(i).owner
                if below in self._parent:
                    a, b = self.leader(n), self.leader(below)
                    if a is not b:
                        self._parent[a] = b
        self._reduction = CAReduce

    def leader(self, node: Apply) -> Apply:
        """The node naming ``node``'s group (union-find root)."""
        parent = self._parent
        while parent[node] is not node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def _through_views(self, v: Variable) -> Variable:
        """``v``'s representative, or what the DimShuffles that make it read."""
        v = self.canon.get(v, v)
        while v.owner is not None and _is_view(v.owner):
            v = self.canon.get(v.owner.inputs[0], v.owner.inputs[0])
        return v

    def written(self, v: Variable) -> bool:
        """Whether the fused kernel computing ``v`` writes it to memory."""
        v = self.canon.get(v, v)
        if v in self.returned:
            return True
        readers = self._readers(v)
        if len(readers) == 1 and isinstance(readers[0].op, self._reduction):
            return False
        return any(not _is_elemwise(c) for c in readers)

    def _readers(self, v: Variable) -> list[Apply]:
        """The nodes reading ``v``, through DimShuffles (a returned DimShuffle counts as a reader)."""
        found, stack = [], [v]
        while stack:
            u = stack.pop()
            for c in self.clients.get(u, ()):
                if _is_view(c) and c.outputs[0] not in self.returned:
                    stack.append(c.outputs[0])
                else:
                    found.append(c)
        return found


def node_cost(node: Apply, shape_of: Any, table: CostTable, fusion: Fusion | None = None) -> float:
    """Predicted seconds of ``node`` in one call (see :func:`measured`; ``fusion``: the graph's fused groups)."""
    dtype = getattr(node.outputs[0].type, "dtype", "*")
    per_call, per_element = table.cost(op_kind(node), dtype)
    if table.memory is not None and type(node.op).__name__ in _VIEWS:
        return per_call  # a view of its input in the compiled graph, fused or not
    expansions = 0.0
    if isinstance(node.op, ExplicitElemwise):
        # lowered, each input placed by an entry with a missing dim gets its DimShuffle back
        expansions = sum(1 for entry in node.op.pattern if "x" in entry) * table.cost("DimShuffle", dtype)[0]
    if fusion is None or table.memory is None:
        return per_call + per_element * node_elements(node, shape_of) + expansions
    if not _is_elemwise(node):
        return per_call + per_element * node_elements(node, shape_of)
    memory = table.memory
    cost = _arithmetic(per_element, memory) * node_elements(node, shape_of) + expansions
    cost += sum(memory * _size(shape_of(o)) for o in node.outputs if fusion.written(o))
    return cost + (per_call if fusion.leader(node) is node else 0.0)


#: the least an Elemwise's arithmetic costs per element, as a share of a memory pass (a Neg is
#: not free in a fused loop: the table's Neg is what a memory pass costs)
MIN_ARITHMETIC = 0.1


def _arithmetic(per_element: float, memory: float) -> float:
    """An Elemwise's cost per element in a fused loop: its table entry less a memory pass (at least
    :data:`MIN_ARITHMETIC` of one)."""
    return max(per_element - memory, MIN_ARITHMETIC * memory)


def node_costs(
    sizes: Mapping[Variable, Sequence[int]] | None = None,
    table: CostTable | None = None,
    *,
    shape_of: Callable[[Variable], tuple[int, ...] | None] | None = None,
) -> Callable[[Variable], float]:
    """A cost per e-node for extraction (``EGraph.extract(cost=...)``): :func:`node_cost` of the variable's node.

    An e-node does not know its readers, so fused kernels are approximated:
    an Elemwise pays its arithmetic and half a memory pass per output; a
    view (a DimShuffle, a Reshape, a basic Subtensor) its call, as in
    :func:`measured`.
    The node is paid by its first output only (an e-node per output).
    """
    table = _checked_table(table)
    shape_of = _shape_function(sizes, shape_of)

    def cost(v: Variable) -> float:
        node = v.owner
        if node is None or node.outputs.index(v) != 0:
            return 0.0
        if table.memory is None or not _is_elemwise(node):
            return node_cost(node, shape_of, table)
        per_call, per_element = table.cost(op_kind(node), getattr(v.type, "dtype", "*"))
        arithmetic = _arithmetic(per_element, table.memory) * node_elements(node, shape_of)
        return per_call + arithmetic + 0.5 * table.memory * sum(_size(shape_of(o)) for o in node.outputs)

    return cost


#: Op class names that reduce their first input as a CAReduce does (PyTensor 3.3's LogSumExp):
#: their cost grows with the elements they read
_REDUCING = frozenset({"LogSumExp"})


def node_elements(node: Apply, shape_of) -> float:
    """The elements a node's cost grows with: those its outputs hold; for a reduction, those it reads.

    ``shape_of(variable)`` gives a run-time shape (or ``None``: one element).
    """
    from pytensor.tensor.elemwise import CAReduce

    if isinstance(node.op, CAReduce) or type(node.op).__name__ in _REDUCING:
        return _size(shape_of(node.inputs[0]))
    written = sum(_size(shape_of(o)) for o in node.outputs)
    core = type(getattr(node.op, "core_op", node.op)).__name__
    if core in _PRODUCTS and node.inputs and getattr(node.inputs[0].type, "ndim", 0) >= 1:
        inner = shape_of(node.inputs[0])
        return written * (inner[-1] if inner else 1)
    return written


#: Op class names of products of matrices (or vectors): their cost grows with the inner length too
_PRODUCTS = frozenset(
    {"Dot", "Dot22", "Dot22Scalar", "Gemm", "Gemv", "Ger", "MatMul", "BatchedDot", "Cholesky", "SolveTriangular",
     "Solve", "CholeskySolve"}
)


def shape_finder(sizes: Mapping[Variable, Sequence[int]] | None = None):
    """The ``shape_of(variable)`` :func:`measured` uses (the same lengths, in the same order)."""
    return _Shapes(sizes or {}).of


def _size(shape: tuple[int, ...] | None) -> float:
    return 1.0 if shape is None else float(np.prod(shape)) if shape else 1.0


class _Shapes:
    """Run-time shapes of the variables of a graph, as far as they can be found (memoized)."""

    def __init__(self, sizes: Mapping[Variable, Sequence[int]]) -> None:
        self.known: dict[Variable, tuple[int, ...] | None] = {v: tuple(int(d) for d in s) for v, s in sizes.items()}

    def of(self, v: Variable) -> tuple[int, ...] | None:
        if v in self.known:
            return self.known[v]
        stack = [v]
        while stack:  # the inputs first, iteratively (deep graphs)
            top = stack[-1]
            node = top.owner
            pending = [] if node is None else [i for i in node.inputs if i not in self.known]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            if top not in self.known:
                self.known[top] = self._shape(top)
        return self.known[v]

    def _shape(self, v: Variable) -> tuple[int, ...] | None:
        static = getattr(v.type, "shape", None)
        if static is None:
            return None
        if None not in static:
            return tuple(static)
        if v.owner is None:
            data = _value_of(v)
            if data is not None:
                return tuple(data.shape)
            return tuple(DEFAULT_LENGTH if d is None else d for d in static)
        inferred = self._inferred(v)
        return tuple(
            (i if i is not None else DEFAULT_LENGTH) if s is None else s
            for s, i in zip(static, inferred or (None,) * len(static))
        )

    def _inferred(self, v: Variable) -> tuple[int | None, ...] | None:
        """The output's lengths from ``infer_shape`` on the inputs' lengths, where they fold to constants."""
        from pytensor.tensor.basic import get_underlying_scalar_constant_value

        node = v.owner
        if isinstance(node.op, OpFromGraph):  # its infer_shape rewrites the inner graph: milliseconds
            return None
        ins = [self.known.get(i) for i in node.inputs]
        if any(s is None and hasattr(i.type, "ndim") for s, i in zip(ins, node.inputs)):
            return None
        if _is_elemwise(node) and all(s is not None and len(s) == v.type.ndim for s in ins):
            return tuple(_broadcast_length(lengths) for lengths in zip(*ins))
        in_shapes = [s if s is not None else () for s in ins]
        try:
            try:  # PyTensor 3.3: infer_shape(node, shapes); 3.0: infer_shape(fgraph, node, shapes)
                out_shapes = node.op.infer_shape(node, in_shapes)
            except TypeError:
                out_shapes = node.op.infer_shape(None, node, in_shapes)
            shape = out_shapes[node.outputs.index(v)]
        except Exception:  # noqa: BLE001 - an Op without (or with a failing) infer_shape: no answer
            return None
        found: list[int | None] = []
        for d in shape:
            try:
                found.append(int(get_underlying_scalar_constant_value(d)))
            except Exception:  # noqa: BLE001 - a length that depends on values: unknown
                found.append(None)
        return tuple(found)


def _broadcast_length(lengths: Sequence[int]) -> int:
    """The length an Elemwise gives a dim its inputs have these lengths in (a 1 broadcasts)."""
    longer = [n for n in lengths if n != 1]
    return max(longer) if longer else 1


def _value_of(v: Variable) -> np.ndarray | None:
    if isinstance(v, Constant):
        return np.asarray(v.data)
    get = getattr(v, "get_value", None)
    if get is not None:
        try:
            return np.asarray(get(borrow=True))
        except Exception:  # noqa: BLE001 - a shared variable of another kind
            return None
    return None


def variable_elements(v: Variable, unknown_dim: int = 16) -> float:
    """Elements ``v`` holds, from its static shape (at least 1; an unknown length counts ``unknown_dim``).

    Summed over the outputs of every node of a graph, this is
    :func:`elements_touched`; ``relations.saturation.extract`` uses it as the cost of an e-node.
    """
    return type_elements(v.type, unknown_dim)


def type_elements(t: Any, unknown_dim: int = 16) -> float:
    """:func:`variable_elements` of a variable of type ``t`` (none needed: an e-node's type is enough)."""
    shape = getattr(t, "shape", None)
    if shape is None:
        return 1.0
    size = 1.0
    for d in shape:
        size *= unknown_dim if d is None else d
    return max(size, 1.0)


