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
- for any rule (hand-written ones, and a pattern rule compiled to goals
  whose drawn left sides it never rewrites): small random graphs over the
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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, islice
from typing import Any

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytensor.tensor.math as ptm
from pytensor.compile.mode import Mode
from pytensor.graph.basic import Constant, Variable
from pytensor.graph.traversal import ancestors, explicit_graph_inputs
from pytensor.tensor.elemwise import DimShuffle

from graph_bridge import GraphContext, builder_for, graph_context, node_term
from graph_bridge.building import single_output
from graph_bridge.vocabulary import rewrites_whole_node
from relations import patterns as p
from relations.arguments import check_relations as check_rules
from relations.greedy.fixpoint import first_rewrite, replacements

__all__ = ["Counterexample", "Domain", "compare_values", "verify"]

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
    ``"backward"`` (``after`` is then the generated left side).  ``index``
    is the first entry (numpy order) where both sides gave values of one
    shape that differ, or ``None`` (one side raised, or shapes or dtypes
    differ); ``str()`` names it and the input entries that reach it.
    """

    rule: str
    direction: str
    before: Variable
    after: Variable
    inputs: dict
    before_value: Any
    after_value: Any
    index: tuple[int, ...] | None = None

    def __str__(self) -> str:
        lines = [f"counterexample to rule {self.rule!r} ({self.direction}):"]
        lines.append("  before: " + _show(self.before))
        lines.append("  after:  " + _show(self.after))
        for v, val in self.inputs.items():
            lines.append(_hanging(f"  {v.name or v} ({v.type}) = ", _show_value(val)))
        lines.append(_hanging("  before gives ", _show_value(self.before_value)))
        lines.append(_hanging("  after gives  ", _show_value(self.after_value)))
        if self.index is not None:
            lines.extend(self._at_index(self.index))
        return "\n".join(lines)

    def _at_index(self, i: tuple[int, ...]) -> list[str]:
        b, a = np.asarray(self.before_value)[i], np.asarray(self.after_value)[i]
        lines = [f"  first difference at index {list(i)}: before gives {b}, after gives {a}"]
        shape = np.shape(self.before_value)
        there = []
        for v, val in self.inputs.items():
            try:
                there.append(f"{v.name or v} = {np.broadcast_to(val, shape)[i]}")
            except ValueError:  # an input that does not broadcast to the output
                continue
        if there:
            lines.append("  where the inputs are " + ", ".join(there))
        return lines

    __repr__ = __str__


def _show(v: Variable) -> str:
    text = str(pytensor.dprint(v, file="str", print_type=False))  # file="str": the text itself
    return text.strip().replace("\n", "\n          ")


def _hanging(label: str, text: str) -> str:
    """``label`` then ``text``, its later lines indented under the first."""
    return label + text.replace("\n", "\n" + " " * len(label))


def _show_value(x: Any) -> str:
    if isinstance(x, BaseException):
        return f"an error: {type(x).__name__}: {x}"
    return np.array2string(np.asarray(x), threshold=20)


#: What ``domain=`` may say of an input: a kind's name, or an interval ``(lo, hi)``.
Domain = str | tuple[float, float]
#: The kinds ``domain=`` names.
DOMAINS = ("finite", "positive")


def verify(
    rule: Callable,
    examples: int = 200,
    seed: int = 0,
    graphs: Iterable[Variable] | None = None,
    mode: Any = None,
    domain: Mapping[str, Domain] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
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

    ``domain`` restricts the values drawn for inputs, by name (a pattern
    variable's name for a :func:`~relations.rewrite_rule`, an input's name in
    ``graphs``): ``"finite"`` draws moderate values only (``|v| <= 3``, so
    that exponentials and products of them stay finite), ``"positive"``
    values above 0, ``(lo, hi)`` values in that closed interval (both ends
    among them).  ``rtol`` / ``atol`` replace the per-dtype float tolerances
    (float64: 1e-6 / 1e-8, float32: 1e-4 / 1e-5).

    >>> from relations import patterns as p, rewrite_rule, verify
    >>> a = p.var("a")
    >>> print(verify(rewrite_rule("neg_neg", p.neg(p.neg(a)), a)))
    None
    """
    check_rules((rule,), "rule")
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 1:
        raise ValueError(f"examples must be a positive integer, got {examples!r}")
    lhs = getattr(rule, "lhs", None)  # a rewrite_rule's left pattern
    pattern_rule = isinstance(lhs, p.Node)
    known = [v.name for v in p.pattern_vars(lhs)] if pattern_rule else None
    checks = Checks.make(mode, domain, rtol, atol, known)
    rng = np.random.default_rng(seed)
    sources: list[Iterator[tuple[Variable, int]]] = []
    if graphs is not None:
        sources.append((g, int(rng.integers(0, 4))) for g in _check_graphs(graphs))
    if pattern_rule:
        sources.append(_pattern_instances(rule, rng, examples))
        try:
            return _search(rule, chain.from_iterable(sources), rng, checks)
        except ValueError:
            if not hasattr(rule, "steps"):
                raise
        # a compiled pattern rule whose drawn left sides it never rewrites (an identity
        # DimShuffle is rarely drawn): the random graphs, as for a hand-written rule
        sources = []
    sources.append(_random_instances(rng, examples))
    return _search(rule, chain.from_iterable(sources), rng, checks)


def _search(
    rule: Callable, instances: Iterable[tuple[Variable, int]], rng: np.random.Generator, checks: Checks
) -> Counterexample | None:
    """The first counterexample among the rewrites of ``instances``, or ``None``; an error if none rewrote."""
    name = getattr(rule, "__name__", repr(rule))
    tried = 0
    seen: set = set()
    for graph, length in instances:
        for direction, before, after in _rewrites(rule, graph):
            key = (direction, _key(before), _key(after))
            if key in seen:
                continue
            seen.add(key)
            tried += 1
            found = _compare(before, after, length, rng, checks)
            if found is not None:
                return Counterexample(name, direction, before, after, *found)
    if tried == 0:
        raise ValueError(f"verify: rule {name!r} applied to none of the drawn graphs; pass graphs=[...] it applies to")
    return None


def compare_values(
    before: Variable,
    after: Variable,
    rule: str = "",
    direction: str = "forward",
    seed: int = 0,
    lengths: Sequence[int] = (2, 0, 1),
    domain: Mapping[str, Domain] | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    mode: Any = None,
) -> Counterexample | None:
    """Evaluate ``before`` and ``after`` on random inputs as :func:`verify` does; a disagreement or ``None``.

    Every unknown length of an input is one of ``lengths`` per trial (three
    trials per length, the inputs drawn with ``numpy.random.default_rng(seed)``);
    ``domain``, ``rtol``, ``atol`` and ``mode`` are :func:`verify`'s.  This is
    what ``Explanation.check(values=True)`` runs on every step.
    """
    checks = Checks.make(mode, domain, rtol, atol, None)
    rng = np.random.default_rng(seed)
    for length in lengths:
        found = _compare(before, after, length, rng, checks)
        if found is not None:
            return Counterexample(rule, direction, before, after, *found)
    return None


@dataclass(frozen=True)
class Checks:
    """How two forms are compared: the compiling mode, the input domains, the tolerances."""

    mode: Any
    domain: Mapping[str, Domain]
    rtol: float | None
    atol: float | None

    @classmethod
    def make(cls, mode: Any, domain: Any, rtol: Any, atol: Any, known: list[str] | None) -> Checks:
        """Checked arguments; ``known``: the input names ``domain`` may use (``None``: any)."""
        for name, tol in (("rtol", rtol), ("atol", atol)):
            if tol is not None and (isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0):
                raise ValueError(f"{name} must be a non-negative number, got {tol!r}")
        return cls(
            # optimizer=None: no rewriting (PyTensor's annotation omits the None its Mode accepts)
            Mode(linker="py", optimizer=None) if mode is None else mode,  # type: ignore[arg-type]
            _check_domain(domain, known),
            rtol,
            atol,
        )


def _check_domain(domain: Any, known: list[str] | None) -> dict[str, Domain]:
    if domain is None:
        return {}
    if not isinstance(domain, Mapping):
        raise TypeError(f"domain must be a dict of input name -> domain, got {type(domain).__name__}")
    out: dict[str, Domain] = {}
    for name, d in domain.items():
        if not isinstance(name, str):
            raise TypeError(f"domain keys must be input names (str), got {name!r}")
        if known is not None and name not in known:
            raise ValueError(f"domain names {name!r}, which is not an input of the rule; its inputs are {known}")
        if (
            isinstance(d, tuple)
            and len(d) == 2
            and all(isinstance(b, (int, float)) and not isinstance(b, bool) and np.isfinite(b) for b in d)
        ):
            if d[0] > d[1]:
                raise ValueError(f"domain[{name!r}] = {d!r}: the interval's low end is above its high end")
        elif d not in DOMAINS:
            raise ValueError(f"domain[{name!r}] must be one of {DOMAINS} or a finite interval (lo, hi), got {d!r}")
        out[name] = d
    return out


def _check_graphs(graphs: Iterable[Variable]) -> list[Variable]:
    out = list(graphs)
    for i, g in enumerate(out):
        if not isinstance(g, Variable):
            raise TypeError(f"graphs[{i}] must be a PyTensor Variable, got {type(g).__name__}")
    return out


def _key(v: Variable) -> str:
    return str(pytensor.dprint(v, file="str", print_type=True))  # file="str": the text itself


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
                f"verify: rule {getattr(rule, '__name__', rule)!r} raised {type(exc).__name__}: {exc} on\n{_show(v)}"
            ) from exc
        if found is not None:
            yield "forward", v, found[0]
        for new in backward:
            yield "backward", v, new


# -- drawing -----------------------------------------------------------------------


def _random_type(rng: np.random.Generator, length: int, ndim: int | None = None, dtype: str | None = None):
    dtype = dtype or str(rng.choice(DTYPES, p=[0.35, 0.25, 0.2, 0.1, 0.1]))
    ndim = int(rng.integers(0, 4)) if ndim is None else ndim
    shape = tuple([None, 1, length][int(rng.integers(0, 3 if length >= 2 else 2))] for _ in range(ndim))
    return pt.tensor(dtype=dtype, shape=shape)


def _pattern_instances(rule: Callable, rng: np.random.Generator, n: int) -> Iterator[tuple[Variable, int]]:
    lhs = getattr(rule, "lhs")  # a rewrite_rule's left pattern (rule is typed as any relation)
    pvars = p.pattern_vars(lhs)
    prop_keys = p.prop_keys(lhs)
    for _ in range(n):
        length = int(rng.integers(0, 4))
        ndim = int(rng.integers(0, 4))
        same_dtype = rng.random() < 0.5
        dtype = str(rng.choice(DTYPES, p=[0.35, 0.25, 0.2, 0.1, 0.1]))
        binding = {}
        for i, v in enumerate(pvars):
            t = _random_type(rng, length, ndim if rng.random() < 0.7 else None, dtype if same_dtype else None)
            t.name = getattr(v, "name", None) or f"x{i}"
            binding[v] = t
        props = {v: _random_prop(rng, key, ndim) for v, key in prop_keys.items()}
        graph = None
        for chosen in (props, None) if props else (None,):  # drawn props, else PyTensor's defaults
            try:
                graph = p.build(lhs, binding.__getitem__, chosen)
            except Exception:  # noqa: BLE001 - the drawn types or props do not fit the pattern
                continue
            if _drops_only_length_one(graph):
                break
            graph = None  # a drawn order that drops a dim of unknown length: the graph fails to run
        if graph is not None:
            yield graph, length


def _drops_only_length_one(graph: Variable) -> bool:
    """Whether every DimShuffle of ``graph`` drops only dims of static length 1 (else it fails at run time)."""
    for node in {v.owner for v in ancestors([graph]) if v.owner is not None}:
        if type(node.op) is DimShuffle:
            kept = set(node.op.new_order)
            shape = node.inputs[0].type.shape
            if any(d not in kept and shape[d] != 1 for d in range(len(shape))):
                return False
    return True


#: Reductions a reduction-head variable (``p.careduce(r, ...)``) is drawn among.
_REDUCTIONS = (ptm.Sum, ptm.Prod, ptm.Max, ptm.Min, ptm.All, ptm.Any)


def _random_prop(rng: np.random.Generator, key: str, ndim: int) -> Any:
    """A value of prop ``key`` for an input of ``ndim`` dims: axes, a DimShuffle order, or a reduction."""
    if key == "op":
        return p.Reduction(_REDUCTIONS[int(rng.integers(0, len(_REDUCTIONS)))](axis=None))
    if key == "order":
        order: list = [int(i) for i in rng.permutation(ndim)]
        for _ in range(int(rng.integers(0, 2))):
            order.insert(int(rng.integers(0, len(order) + 1)), "x")
        return tuple(order)
    if ndim == 0 or rng.random() < 0.3:
        return None
    k = int(rng.integers(1, ndim + 1))
    return tuple(sorted(int(a) for a in rng.choice(ndim, size=k, replace=False)))


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
    return single_output(builder_for(DimShuffle)(nd, tuple(order)), x)


#: How often each step of ``_random_graph`` is drawn (reductions of joins and
#: chains of DimShuffles are what several rules rewrite, and need more draws).
_STEP_WEIGHTS = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 3, 1]) / 16


def _random_graph(rng: np.random.Generator, length: int) -> Variable:
    """A small graph over the vocabulary; shapes fit (every non-1 length is ``length``)."""
    x = _random_type(rng, length, ndim=int(rng.integers(1, 4)))
    x.name = "x"
    inputs = [x]

    def other(like: Variable) -> Variable:
        y = _random_type(
            rng,
            length,
            ndim=int(rng.integers(0, like.type.ndim + 1)),
            dtype=like.type.dtype if rng.random() < 0.6 else None,
        )
        y.name = "xyzuvw"[len(inputs)] if len(inputs) < 6 else f"x{len(inputs)}"
        inputs.append(y)
        return y

    cur = x
    k = -1
    for _ in range(int(rng.integers(1, 4))):
        # a reduction follows a Join or a DimShuffle half of the time (what the rules rewrite)
        k = 2 if k in (3, 4, 5, 9) and rng.random() < 0.5 else int(rng.choice(13, p=_STEP_WEIGHTS))
        min_ndim, step = _STEPS.get(k, (0, _add_alloc))
        if cur.type.ndim < min_ndim:
            step = _add_alloc
        cur = step(rng, cur, length, other)
    return cur


def _unary(rng, cur, length, other):
    return [pt.exp, pt.neg, pt.sqr, pt.abs, pt.log][int(rng.integers(0, 5))](cur)


def _binary(rng, cur, length, other):
    return [pt.add, pt.mul, pt.sub, pt.maximum][int(rng.integers(0, 4))](cur, other(cur))


def _reduction(rng, cur, length, other):
    nd = cur.type.ndim
    fn = [pt.sum, pt.max, pt.prod, pt.min, pt.all, pt.any][int(rng.integers(0, 6))]
    if nd == 0 or rng.random() < 0.4:
        return fn(cur, axis=None)
    axes = tuple(sorted(set(int(a) for a in rng.integers(0, nd, size=int(rng.integers(1, nd + 1))))))
    return fn(cur, axis=axes)


def _expand(rng, cur, length, other):
    return pt.expand_dims(cur, int(rng.integers(0, cur.type.ndim + 1)))


def _transpose(rng, cur, length, other):
    return pt.transpose(cur, tuple(int(a) for a in rng.permutation(cur.type.ndim)))


def _join(rng, cur, length, other):
    axis = int(rng.integers(0, cur.type.ndim))
    return pt.join(axis, cur, cur if rng.random() < 0.5 else pt.exp(cur))


def _alloc(rng, cur, length, other):
    nd = cur.type.ndim
    shape = [length if rng.random() < 0.7 else 1 for _ in range(int(rng.integers(1, 3)))]
    v = cur if nd == 0 else cur.sum() if rng.random() < 0.5 else pt.constant(0, dtype=cur.type.dtype)
    return pt.alloc(v, *shape)


def _write(fn):
    def write(rng, cur, length, other):
        base = cur if rng.random() < 0.5 else pt.zeros_like(cur)
        idx = 0 if rng.random() < 0.5 else slice(0, 1)
        value = cur[idx] if rng.random() < 0.5 else pt.constant(2, dtype=cur.type.dtype)
        cur = fn(base[idx], value)
        if rng.random() < 0.7:
            cur = [pt.exp, pt.neg, pt.sqr][int(rng.integers(0, 3))](cur)
        return cur

    return write


def _two_dimshuffles(rng, cur, length, other):
    # two DimShuffle nodes in a row (PyTensor's helpers would merge them)
    return _dimshuffle(rng, _dimshuffle(rng, cur))


def _reduced_join(rng, cur, length, other):
    nd = cur.type.ndim
    axis = int(rng.integers(0, nd))
    # the second piece: same shape, or a slice along the join axis (length 0 or 1)
    cut = (slice(None),) * axis + (slice(0, int(rng.integers(0, 2))),)
    second = [cur if cur.type.dtype == "bool" else pt.neg(cur), cur[cut]][int(rng.integers(0, 2))]
    joined = pt.join(axis, *((cur, second) if rng.random() < 0.5 else (second, cur)))
    fn = [pt.sum, pt.max, pt.prod, pt.min, pt.all, pt.any][int(rng.integers(0, 6))]
    choice = int(rng.integers(0, 3))
    red_axis = None if choice == 0 else axis if choice == 1 else int(rng.integers(0, nd))
    return fn(joined, axis=red_axis)


def _inc_zeros(rng, cur, length, other):
    zeros = pt.zeros([length] * cur.type.ndim, dtype=cur.type.dtype)
    idx = 0 if rng.random() < 0.5 else slice(0, 1)
    cur = pt.inc_subtensor(zeros[idx], cur[idx])
    if rng.random() < 0.5:
        cur = [pt.exp, pt.neg, pt.sqr][int(rng.integers(0, 3))](cur)
    return cur


def _add_alloc(rng, cur, length, other):
    nd = cur.type.ndim
    fill = pt.constant(1.5, dtype=cur.type.dtype) if cur.type.dtype != "bool" else pt.constant(True)
    a = pt.alloc(fill, *([length] * max(nd, 1)))
    return [pt.exp, pt.neg, pt.sqr][int(rng.integers(0, 3))](a) + cur


#: ``_random_graph``'s steps by number: (the least ndim they need, the step);
#: a step drawn for a graph of lower ndim, or a number not here, adds an Alloc's Elemwise.
_STEPS = {
    0: (0, _unary),
    1: (0, _binary),
    2: (0, _reduction),
    3: (0, _expand),
    4: (2, _transpose),
    5: (1, _join),
    6: (0, _alloc),
    7: (1, _write(pt.set_subtensor)),
    8: (1, _write(pt.inc_subtensor)),
    9: (0, _two_dimshuffles),
    11: (1, _reduced_join),
    12: (1, _inc_zeros),
}


# -- comparing ---------------------------------------------------------------------


def _random_value(
    v: Variable, length: int, rng: np.random.Generator, domain: Domain | None = None
) -> np.ndarray | np.random.Generator:
    if not hasattr(v.type, "dtype"):  # a random generator input: one seeded from ``rng`` (both sides copy it)
        return np.random.default_rng(int(rng.integers(0, 2**31)))
    shape = tuple(length if s is None else s for s in v.type.shape)
    dtype = v.type.dtype
    if dtype == "bool":
        return rng.random(shape) < 0.5
    pool = _pool(dtype, domain)
    return rng.choice(pool, size=shape).astype(dtype)


def _pool(dtype: str, domain: Domain | None) -> np.ndarray:
    """The values an input of ``dtype`` is drawn from, within ``domain``."""
    floating = dtype.startswith("float") or dtype.startswith("complex")
    pool = FLOAT_VALUES if floating else INT_VALUES
    if dtype.startswith("uint"):
        pool = np.abs(pool)
    if domain == "finite":
        pool = pool[np.abs(pool) <= 3]
    elif domain == "positive":
        pool = pool[pool > 0]
    elif isinstance(domain, tuple):
        lo, hi = domain
        if floating:
            inner = lo + (hi - lo) * np.array([0.1, 0.25, 0.5, 0.75, 0.9])
            pool = np.concatenate([[lo, hi], inner, pool[(pool >= lo) & (pool <= hi)]])
        else:
            pool = np.arange(int(np.ceil(lo)), int(np.floor(hi)) + 1)[:64]
            if dtype.startswith("uint"):
                pool = pool[pool >= 0]
    if pool.size == 0:
        raise ValueError(f"domain {domain!r} holds no value of dtype {dtype}")
    return pool


def _function(outputs: Variable, inputs: list[Variable], mode: Any):
    return pytensor.function(inputs, outputs, mode=mode, on_unused_input="ignore")


def _run(fn, values):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(*values)
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return exc


def _agree(x: Any, y: Any, rtol: float | None = None, atol: float | None = None) -> bool:
    return _first_difference(x, y, rtol, atol) is False


def _first_difference(x: Any, y: Any, rtol: float | None = None, atol: float | None = None) -> Any:
    """``False`` where ``x`` and ``y`` agree; else the first differing index, or ``None`` if there is none to name."""
    if isinstance(x, BaseException) or isinstance(y, BaseException):
        return False if isinstance(x, BaseException) and isinstance(y, BaseException) else None
    a, b = np.asarray(x), np.asarray(y)
    if a.shape != b.shape or a.dtype != b.dtype:
        return None
    if np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.complexfloating):
        r, t = TOLERANCES.get(a.dtype.name, TOLERANCES["float64"])
        r, t = (r if rtol is None else rtol), (t if atol is None else atol)
        close = np.isclose(a, b, rtol=r, atol=t, equal_nan=True)
    else:
        close = a == b
    if close.all():
        return False
    return tuple(int(i) for i in np.argwhere(~close)[0])


def _compare(before: Variable, after: Variable, length: int, rng: np.random.Generator, checks: Checks):
    """``(inputs, before value, after value, first differing index)`` where they disagree, or ``None``."""
    inputs = [v for v in explicit_graph_inputs([before, after]) if not isinstance(v, Constant)]
    fb, fa = (_compiled(g, inputs, checks.mode) for g in (before, after))

    def trial(run_length):
        values = [_random_value(v, run_length, rng, checks.domain.get(v.name)) for v in inputs]
        vb = fb if isinstance(fb, BaseException) else _run(fb, values)
        va = fa if isinstance(fa, BaseException) else _run(fa, values)
        index = _first_difference(vb, va, checks.rtol, checks.atol)
        return None if index is False else (dict(zip(inputs, values)), vb, va, index)

    def fits(run_length):
        return all(s is None or s == 1 or s == run_length for v in inputs for s in getattr(v.type, "shape", ()))

    for k in range(3):
        run_length = length if k < 2 or not fits(r := int(rng.integers(0, 4))) else r
        found = trial(run_length)
        if found is not None:
            return _smaller(trial, fits, run_length) or found
    return None


def _smaller(trial: Callable, fits: Callable, run_length: int) -> Any:
    """A counterexample with shorter inputs, if one is found (it reads better)."""
    for shorter in range(run_length):
        if fits(shorter):
            for _ in range(10):
                small = trial(shorter)
                if small is not None:
                    return small
    return None


def _compiled(graph: Variable, inputs: list[Variable], mode: Any) -> Any:
    """The compiled function of ``graph``, or the exception compiling raised."""
    try:
        return _function(graph, inputs, mode)
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        return exc
