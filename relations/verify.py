"""``verify``: test a rule on values before it runs on a model.

A rule claims that its two sides compute the same values.  :func:`verify`
draws graphs the rule applies to, rewrites them with the rule (forward, and
backward: every left side it generates for a drawn graph), evaluates both
forms on random inputs and reports the first disagreement.  It needs only
numpy (a ``numpy.random.Generator`` seeded by ``seed`` draws everything), so
the result is the same on every run.

What is drawn:

- for a rule made by :func:`relations.rewrite_rule`: bindings of its pattern
  variables to fresh inputs of varied dtype (float64, float32, int64, int32,
  bool), ndim (0 to 3) and static shape (each dim ``None``, ``1`` or the
  run-time length), from which the left side is built;
- for any rule (hand-written ones too): small random graphs over the
  vocabulary (Elemwise, reductions, DimShuffles, Join, Alloc, set and inc
  subtensors), tried at every node.

Run-time lengths are 0, 1, 2 or 3 (one per drawn graph, so shapes fit);
values mix 0, small negative and positive numbers and large magnitudes
(``±1000``, ``±10000``), all exact in float32 so that reassociating a sum
does not round.  Both forms raising counts as agreement; one raising, or
values that differ (allclose per dtype, NaNs equal where both are NaN;
infinities must match), is a counterexample.
"""

from __future__ import annotations

import warnings
from itertools import islice
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytensor
import pytensor.tensor as pt
from pytensor.compile.mode import Mode
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import ancestors, explicit_graph_inputs

from pytensor.tensor.elemwise import DimShuffle

from graph_bridge import GraphContext, builder_for, graph_context, node_term
from graph_bridge.vocabulary import rewrites_whole_node
from relations import patterns as p
from relations.rules import check_rules
from relations.engine import first_rewrite, replacements

__all__ = ["Counterexample", "verify"]

DTYPES = ("float64", "float32", "int64", "int32", "bool")
FLOAT_VALUES = np.array([0.0, 0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.0, 1000.0, -1000.0, 10000.0])
INT_VALUES = np.array([0, 0, 1, -1, 2, -3, 5, 100, -1000])
TOLERANCES = {"float16": (1e-2, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-6, 1e-8)}


@dataclass
class Counterexample:
    """A graph and a rewrite of it that disagree on ``inputs``.

    ``before`` and ``after`` are the graphs; ``inputs`` maps each input to
    the value used; ``before_value`` / ``after_value`` are the outputs (or
    the exception each raised).  ``direction`` is ``"forward"`` or
    ``"backward"`` (``after`` is then the generated left side).
    """

    rule: str
    direction: str
    before: Variable
    after: Variable
    inputs: dict
    before_value: Any
    after_value: Any

    def __str__(self) -> str:
        lines = [f"counterexample to rule {self.rule!r} ({self.direction}):"]
        lines.append("  before: " + _show(self.before))
        lines.append("  after:  " + _show(self.after))
        for v, val in self.inputs.items():
            lines.append(_hanging(f"  {v.name or v} ({v.type}) = ", _show_value(val)))
        lines.append(_hanging("  before gives ", _show_value(self.before_value)))
        lines.append(_hanging("  after gives  ", _show_value(self.after_value)))
        return "\n".join(lines)

    __repr__ = __str__


def _show(v: Variable) -> str:
    text = pytensor.dprint(v, file="str", print_type=False)
    return text.strip().replace("\n", "\n          ")


def _hanging(label: str, text: str) -> str:
    """``label`` then ``text``, its later lines indented under the first."""
    return label + text.replace("\n", "\n" + " " * len(label))


def _show_value(x: Any) -> str:
    if isinstance(x, BaseException):
        return f"an error: {type(x).__name__}: {x}"
    return np.array2string(np.asarray(x), threshold=20)


def verify(
    rule: Callable,
    examples: int = 200,
    seed: int = 0,
    graphs: Iterable[Variable] | None = None,
    mode: Any = None,
) -> Counterexample | None:
    """Property-test ``rule`` on values; ``None`` if no counterexample is found, else one.

    ``examples`` graphs are drawn (see the module docstring) with
    ``numpy.random.default_rng(seed)``; each is tried forward (where the rule
    rewrites it) and backward (the left sides the rule generates for it), and
    each pair of forms is compared on three random input sets.  ``graphs``
    adds graphs of your own to try the rule at (every node of each).
    ``mode`` compiles the graphs; the default evaluates them as written
    (Python linker, no graph rewrites: PyTensor's own rewrites, such as
    ``log(exp(x)) -> x``, would hide what the rule does).  Raises
    ``ValueError`` if the rule applied to none of them: a rule that never
    fires is not verified.

    >>> from relations import patterns as p, rewrite_rule, verify
    >>> a = p.var("a")
    >>> print(verify(rewrite_rule("neg_neg", p.neg(p.neg(a)), a)))
    None
    """
    check_rules((rule,), "rule")
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 1:
        raise ValueError(f"examples must be a positive integer, got {examples!r}")
    rng = np.random.default_rng(seed)
    if mode is None:
        mode = Mode(linker="py", optimizer=None)
    name = getattr(rule, "__name__", repr(rule))
    tried = 0
    seen: set = set()
    sources: list[Iterator[tuple[Variable, int]]] = []
    if graphs is not None:
        sources.append(((g, int(rng.integers(0, 4))) for g in _check_graphs(graphs)))
    if isinstance(getattr(rule, "lhs", None), p.Node):
        sources.append(_pattern_instances(rule, rng, examples))
    else:
        sources.append(_random_instances(rng, examples))
    for source in sources:
        for graph, length in source:
            for direction, before, after in _rewrites(rule, graph):
                key = (direction, _key(before), _key(after))
                if key in seen:
                    continue
                seen.add(key)
                tried += 1
                found = _compare(before, after, length, rng, mode)
                if found is not None:
                    inputs, vb, va = found
                    return Counterexample(name, direction, before, after, inputs, vb, va)
    if tried == 0:
        raise ValueError(
            f"verify: rule {name!r} applied to none of the drawn graphs; pass graphs=[...] "
            f"it applies to"
        )
    return None


def _check_graphs(graphs: Iterable[Variable]) -> list[Variable]:
    out = list(graphs)
    for i, g in enumerate(out):
        if not isinstance(g, Variable):
            raise TypeError(f"graphs[{i}] must be a PyTensor Variable, got {type(g).__name__}")
    return out


def _key(v: Variable) -> str:
    return pytensor.dprint(v, file="str", print_type=True)


def _rewrites(rule: Callable, graph: Variable) -> Iterator[tuple[str, Variable, Variable]]:
    """(direction, before, after) for every node of ``graph`` the rule relates to another form.

    The rule sees the use counts of ``graph`` (``graph_bridge.graph_context``).
    """
    context = GraphContext([graph])
    for v in list(ancestors([graph])):
        if v.owner is None or (len(v.owner.outputs) != 1 and not rewrites_whole_node(v.owner.op)):
            continue
        try:
            with graph_context(context):
                found = first_rewrite(v, [rule])
                backward = list(islice(replacements(rule, v, node_term(v), backward=True), 2))
        except Exception as exc:
            # normalize would raise the same on this graph: that is a bug of the rule too
            raise RuntimeError(
                f"verify: rule {getattr(rule, '__name__', rule)!r} raised "
                f"{type(exc).__name__}: {exc} on\n{_show(v)}"
            ) from exc
        if found is not None:
            yield "forward", v, found[0]
        for new in backward:
            yield "backward", v, new


# -- drawing -----------------------------------------------------------------------


def _random_type(rng: np.random.Generator, length: int, ndim: int | None = None, dtype: str | None = None):
    dtype = dtype or str(rng.choice(DTYPES, p=[0.35, 0.25, 0.2, 0.1, 0.1]))
    ndim = int(rng.integers(0, 4)) if ndim is None else ndim
    shape = tuple(
        [None, 1, length][int(rng.integers(0, 3 if length >= 2 else 2))] for _ in range(ndim)
    )
    return pt.tensor(dtype=dtype, shape=shape)


def _pattern_instances(rule: Callable, rng: np.random.Generator, n: int) -> Iterator[tuple[Variable, int]]:
    lhs = rule.lhs
    pvars = p.pattern_vars(lhs)
    for _ in range(n):
        length = int(rng.integers(0, 4))
        ndim = int(rng.integers(0, 4))
        same_dtype = rng.random() < 0.5
        dtype = str(rng.choice(DTYPES, p=[0.35, 0.25, 0.2, 0.1, 0.1]))
        binding = {}
        for i, v in enumerate(pvars):
            t = _random_type(
                rng, length, ndim if rng.random() < 0.7 else None, dtype if same_dtype else None
            )
            t.name = getattr(v, "name", None) or f"x{i}"
            binding[v] = t
        try:
            graph = p.build(lhs, binding.__getitem__)
        except Exception:  # noqa: BLE001 - the drawn types do not fit the pattern
            continue
        yield graph, length


def _random_instances(rng: np.random.Generator, n: int) -> Iterator[tuple[Variable, int]]:
    for _ in range(n):
        length = int(rng.integers(0, 4))
        try:
            graph = _random_graph(rng, length)
        except Exception:  # noqa: BLE001 - a drawn combination that does not build
            continue
        yield graph, length


def _dimshuffle(rng: np.random.Generator, x: Variable) -> Variable:
    """A random DimShuffle node over ``x``: a permutation, maybe a dropped length-1 dim, maybe an added one."""
    nd = x.type.ndim
    order: list = [int(i) for i in rng.permutation(nd)]
    ones = [i for i in order if x.type.shape[i] == 1]
    if ones and rng.random() < 0.3:
        order.remove(ones[0])
    if rng.random() < 0.6:
        order.insert(int(rng.integers(0, len(order) + 1)), "x")
    return builder_for(DimShuffle)(nd, tuple(order))(x)


#: How often each step of ``_random_graph`` is drawn (reductions of joins and
#: chains of DimShuffles are what several rules rewrite, and need more draws).
_STEP_WEIGHTS = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 3, 1]) / 16


def _random_graph(rng: np.random.Generator, length: int) -> Variable:
    """A small graph over the vocabulary; shapes fit (every non-1 length is ``length``)."""
    x = _random_type(rng, length, ndim=int(rng.integers(1, 4)))
    x.name = "x"
    inputs = [x]

    def other(like: Variable) -> Variable:
        y = _random_type(rng, length, ndim=int(rng.integers(0, like.type.ndim + 1)), dtype=like.type.dtype if rng.random() < 0.6 else None)
        y.name = "xyzuvw"[len(inputs)] if len(inputs) < 6 else f"x{len(inputs)}"
        inputs.append(y)
        return y

    steps = int(rng.integers(1, 4))
    cur = x
    k = -1
    for _ in range(steps):
        # a reduction follows a Join or a DimShuffle half of the time (what the rules rewrite)
        k = 2 if k in (3, 4, 5, 9) and rng.random() < 0.5 else int(rng.choice(13, p=_STEP_WEIGHTS))
        nd = cur.type.ndim
        if k == 0:
            cur = [pt.exp, pt.neg, pt.sqr, pt.abs, pt.log][int(rng.integers(0, 5))](cur)
        elif k == 1:
            cur = [pt.add, pt.mul, pt.sub, pt.maximum][int(rng.integers(0, 4))](cur, other(cur))
        elif k == 2:
            fn = [pt.sum, pt.max, pt.prod, pt.min, pt.all, pt.any][int(rng.integers(0, 6))]
            if nd == 0 or rng.random() < 0.4:
                cur = fn(cur, axis=None)
            else:
                axes = tuple(sorted(set(int(a) for a in rng.integers(0, nd, size=int(rng.integers(1, nd + 1))))))
                cur = fn(cur, axis=axes)
        elif k == 3:
            cur = pt.expand_dims(cur, int(rng.integers(0, nd + 1)))
        elif k == 4 and nd >= 2:
            cur = pt.transpose(cur, tuple(int(a) for a in rng.permutation(nd)))
        elif k == 5 and nd >= 1:
            axis = int(rng.integers(0, nd))
            cur = pt.join(axis, cur, cur if rng.random() < 0.5 else pt.exp(cur))
        elif k == 6:
            shape = [length if rng.random() < 0.7 else 1 for _ in range(int(rng.integers(1, 3)))]
            v = cur if nd == 0 else cur.sum() if rng.random() < 0.5 else pt.constant(0, dtype=cur.type.dtype)
            cur = pt.alloc(v, *shape)
        elif k in (7, 8) and nd >= 1:
            base = cur if rng.random() < 0.5 else pt.zeros_like(cur)
            idx = 0 if rng.random() < 0.5 else slice(0, 1)
            value = cur[idx] if rng.random() < 0.5 else pt.constant(2, dtype=cur.type.dtype)
            fn = pt.set_subtensor if k == 7 else pt.inc_subtensor
            cur = fn(base[idx], value)
            if rng.random() < 0.7:
                cur = [pt.exp, pt.neg, pt.sqr][int(rng.integers(0, 3))](cur)
        elif k == 9:
            # two DimShuffle nodes in a row (PyTensor's helpers would merge them)
            cur = _dimshuffle(rng, _dimshuffle(rng, cur))
        elif k == 11 and nd >= 1:
            axis = int(rng.integers(0, nd))
            # the second piece: same shape, or a slice along the join axis (length 0 or 1)
            cut = (slice(None),) * axis + (slice(0, int(rng.integers(0, 2))),)
            second = [cur if cur.type.dtype == "bool" else pt.neg(cur), cur[cut]][int(rng.integers(0, 2))]
            joined = pt.join(axis, *((cur, second) if rng.random() < 0.5 else (second, cur)))
            fn = [pt.sum, pt.max, pt.prod, pt.min, pt.all, pt.any][int(rng.integers(0, 6))]
            choice = int(rng.integers(0, 3))
            red_axis = None if choice == 0 else axis if choice == 1 else int(rng.integers(0, nd))
            cur = fn(joined, axis=red_axis)
        elif k == 12 and nd >= 1:
            zeros = pt.zeros([length] * nd, dtype=cur.type.dtype)
            idx = 0 if rng.random() < 0.5 else slice(0, 1)
            cur = pt.inc_subtensor(zeros[idx], cur[idx])
            if rng.random() < 0.5:
                cur = [pt.exp, pt.neg, pt.sqr][int(rng.integers(0, 3))](cur)
        else:
            a = pt.alloc(pt.constant(1.5, dtype=cur.type.dtype) if cur.type.dtype != "bool" else pt.constant(True), *([length] * max(nd, 1)))
            cur = [pt.exp, pt.neg, pt.sqr][int(rng.integers(0, 3))](a) + cur
    return cur


# -- comparing ---------------------------------------------------------------------


def _random_value(v: Variable, length: int, rng: np.random.Generator) -> np.ndarray:
    if not hasattr(v.type, "dtype"):  # a random generator input: one seeded from ``rng`` (both sides copy it)
        return np.random.default_rng(int(rng.integers(0, 2**31)))
    shape = tuple(length if s is None else s for s in v.type.shape)
    dtype = v.type.dtype
    if dtype == "bool":
        return rng.random(shape) < 0.5
    pool = FLOAT_VALUES if dtype.startswith("float") else INT_VALUES
    if dtype.startswith("uint"):
        pool = np.abs(pool)
    return rng.choice(pool, size=shape).astype(dtype)


def _function(outputs: Variable, inputs: list[Variable], mode: Any):
    return pytensor.function(inputs, outputs, mode=mode, on_unused_input="ignore")


def _run(fn, values):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*values)
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return exc


def _agree(x: Any, y: Any) -> bool:
    if isinstance(x, BaseException) or isinstance(y, BaseException):
        return isinstance(x, BaseException) and isinstance(y, BaseException)
    a, b = np.asarray(x), np.asarray(y)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.complexfloating):
        rtol, atol = TOLERANCES.get(a.dtype.name, TOLERANCES["float64"])
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


def _compare(before: Variable, after: Variable, length: int, rng: np.random.Generator, mode: Any):
    inputs = [
        v for v in explicit_graph_inputs([before, after]) if not isinstance(v, Constant)
    ]
    try:
        fb = _function(before, inputs, mode)
    except Exception as exc:  # noqa: BLE001
        fb = exc
    try:
        fa = _function(after, inputs, mode)
    except Exception as exc:  # noqa: BLE001
        fa = exc
    def trial(run_length):
        values = [_random_value(v, run_length, rng) for v in inputs]
        vb = fb if isinstance(fb, BaseException) else _run(fb, values)
        va = fa if isinstance(fa, BaseException) else _run(fa, values)
        return None if _agree(vb, va) else (dict(zip(inputs, values)), vb, va)

    def fits(run_length):
        return all(s is None or s == 1 or s == run_length for v in inputs for s in getattr(v.type, "shape", ()))

    for k in range(3):
        run_length = length if k < 2 or not fits(r := int(rng.integers(0, 4))) else r
        found = trial(run_length)
        if found is not None:
            # a smaller counterexample reads better: try shorter inputs first
            for shorter in range(run_length):
                if fits(shorter):
                    for _ in range(10):
                        small = trial(shorter)
                        if small is not None:
                            return small
            return found
    return None
