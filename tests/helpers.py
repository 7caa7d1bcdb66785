"""Shared checks: a rewrite keeps types and values and leaves its input alone."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytensor
from pytensor.graph.basic import Variable
from pytensor.graph.traversal import ancestors, explicit_graph_inputs
from pytensor.tensor.basic import Join
from pytensor.tensor.elemwise import CAReduce, Elemwise

MODE = "FAST_COMPILE"


def snapshot(*outputs: Variable) -> str:
    """A printable fingerprint of a graph (ids included), to detect mutation."""
    return pytensor.dprint(list(outputs), file="str", print_type=True, id_type="id")


def random_value(var: Variable, shape: Sequence[int], rng: np.random.Generator):
    dtype = var.type.dtype
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("int") or dtype.startswith("uint"):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def values_of(outputs, givens, mode=MODE):
    inputs = list(givens)
    fn = pytensor.function(inputs, outputs, mode=mode, on_unused_input="ignore")
    return fn(*[givens[i] for i in inputs])


def assert_same_types(before: Variable, after: Variable) -> None:
    assert after.type.dtype == before.type.dtype, (before.type, after.type)
    assert after.type.ndim == before.type.ndim, (before.type, after.type)
    assert after.type.broadcastable == before.type.broadcastable, (before.type, after.type)


def assert_same_values(before, after, givens, mode=MODE) -> None:
    """Evaluate both graphs on ``givens``; both raise, or both agree.

    ``before`` is the user's graph: importing the toolkit does not change how
    it compiles, so PyTensor may miscompile its bool/narrow add-mul chains
    (``relations.compile.workarounds``).  It is evaluated as the work-around
    states it, which is what it means; the toolkit's results are protected
    by the lowering pass.
    """
    from relations.compile.workarounds import protect

    if isinstance(before, Variable):
        before = protect([before])[0]
    else:
        before = protect(list(before))
    b_err = a_err = None
    try:
        b = values_of(before, givens, mode)
    except Exception as exc:  # noqa: BLE001 - compared below
        b_err = exc
    try:
        a = values_of(after, givens, mode)
    except Exception as exc:  # noqa: BLE001
        a_err = exc
    if b_err is not None or a_err is not None:
        assert b_err is not None and a_err is not None, (
            f"one side raised: before={b_err!r} after={a_err!r}"
        )
        return
    if not isinstance(b, list):
        b, a = [b], [a]
    for x, y in zip(b, a):
        assert_close(x, y)


#: allclose tolerances per float dtype (rtol, atol).  A rewrite may reassociate
#: a float sum (the reduction of a join is the sum of the pieces' reductions),
#: which changes rounding: about 100 ulps at unit scale.
TOLERANCES = {"float32": (1e-4, 1e-5), "float64": (1e-5, 1e-6)}


def assert_close(before, after) -> None:
    """Same shape and dtype; allclose for floats (per-dtype tolerance), equal otherwise."""
    x, y = np.asarray(before), np.asarray(after)
    assert x.shape == y.shape and x.dtype == y.dtype, (x.shape, y.shape, x.dtype, y.dtype)
    if np.issubdtype(x.dtype, np.floating):
        rtol, atol = TOLERANCES.get(x.dtype.name, TOLERANCES["float64"])
        np.testing.assert_allclose(y, x, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(y, x)


def check_rewrite(before, after, shapes: dict, seed: int = 0, mode=MODE) -> None:
    """Types equal and values equal on each run-time shape assignment in ``shapes``.

    ``shapes`` maps each root input to a list of shapes (one per trial).
    """
    outs_b = before if isinstance(before, list) else [before]
    outs_a = after if isinstance(after, list) else [after]
    for b, a in zip(outs_b, outs_a):
        assert_same_types(b, a)
    rng = np.random.default_rng(seed)
    trials = len(next(iter(shapes.values())))
    for k in range(trials):
        givens = {v: random_value(v, s[k], rng) for v, s in shapes.items()}
        assert_same_values(outs_b, outs_a, givens, mode)


def node_kinds(outputs) -> Counter:
    """Apply nodes per Op kind; the toolkit's explicit Ops count as their stock kind."""
    from graph_bridge import ExplicitAlloc, ExplicitBlockwise, ExplicitElemwise, ExplicitRandomVariable

    out: Counter = Counter()
    seen = set()
    for v in ancestors(list(outputs)):
        node = v.owner
        if node is None or node in seen:
            continue
        seen.add(node)
        op = node.op
        if isinstance(op, (Elemwise, ExplicitElemwise)):
            out["Elemwise"] += 1
        elif isinstance(op, ExplicitAlloc):
            out["Alloc"] += 1
        elif isinstance(op, ExplicitBlockwise):
            out["Blockwise"] += 1
        elif isinstance(op, ExplicitRandomVariable):
            out[type(op.rv_op).__name__] += 1
        elif isinstance(op, CAReduce):
            out["CAReduce"] += 1
        else:
            out[type(op).__name__] += 1
    return out


def assert_no_kind_grows(before, after) -> None:
    """No node kind but Elemwise and DimShuffle grows; reductions only by the Join pieces they split into.

    A Join of ``k`` pieces under a reduction becomes ``k`` reductions (the
    reduction of a join); no other rule adds a node of a non-Elemwise kind,
    and none may copy a node that another node still uses.  DimShuffles are
    views (they compute nothing): one every consumer moves above itself may
    end as one per consumer (``relations.patterns.sharing.movable_viewo``).
    """
    kb, ka = node_kinds(before), node_kinds(after)
    kb.pop("DimShuffle", None), ka.pop("DimShuffle", None)
    join_pieces = sum(
        max(sum(i.type.ndim == v.type.ndim for i in v.owner.inputs) - 1, 0)  # pieces - 1
        for v in ancestors(list(before))
        if v.owner is not None and isinstance(v.owner.op, Join)
    )
    for k in set(ka) - {"Elemwise", "CAReduce"}:
        assert ka[k] <= kb[k], (k, dict(kb), dict(ka))
    assert ka["CAReduce"] <= kb["CAReduce"] + join_pieces, (dict(kb), dict(ka))


def roots(*outputs: Variable) -> list[Variable]:
    return list(explicit_graph_inputs(list(outputs)))


def graph_ops(*outputs: Variable) -> list:
    return [v.owner.op for v in ancestors(list(outputs)) if v.owner is not None]


def forward(rel, lhs, n: int = 2) -> list[Variable]:
    """Up to ``n`` right sides of ``rel`` for a known left side (the left side is not mutated).

    The relation runs in the graph of ``lhs`` (its use counts, ``graph_context``).
    """
    from kanren import run
    from unification import var

    from graph_bridge import etuplize, graph_context, reify

    before = snapshot(lhs)
    q = var()
    with graph_context([lhs]):
        out = [reify(a) for a in run(n, q, rel(etuplize(lhs), q))]
    assert snapshot(lhs) == before
    return out


def backward(rel, rhs, n: int = 0) -> list[Variable]:
    """Every (``n`` = 0) or up to ``n`` left sides of ``rel`` for a known right side."""
    from kanren import run
    from unification import var

    from graph_bridge import etuplize, graph_context, reify

    q = var()
    with graph_context([rhs]):
        return [reify(a) for a in run(n, q, rel(q, etuplize(rhs)))]


def holds(rel, lhs, rhs) -> bool:
    """Whether ``rel`` relates the two graphs (both sides known), in the graph of ``lhs``."""
    from kanren import run
    from unification import var

    from graph_bridge import etuplize, graph_context

    with graph_context([lhs]):
        return run(1, var(), rel(etuplize(lhs), etuplize(rhs))) != ()


def structure(outputs) -> tuple[int, ...]:
    """Interned structural keys of ``outputs``: equal tuples, equal graphs."""
    from graph_bridge.structural_keys import StructuralKeys

    keys = StructuralKeys()
    return tuple(keys.key(o) for o in outputs)


def whole_passes(outputs, index=None) -> list[Variable]:
    """``normalize_variables`` with each pass a whole new one (new counts, new memo): a reference.

    ``normalize`` walks again, after the first pass, only what a loosened use
    guard can change; its result must be this one.
    """
    from graph_bridge import GraphContext
    from relations.greedy.fixpoint import MAX_PASSES, Normalizer
    from relations.rules import DEFAULT_INDEX

    result = list(outputs)
    for _ in range(MAX_PASSES):
        context = GraphContext(result)
        norm = Normalizer(index or DEFAULT_INDEX, context)
        result = [norm.normal(o) for o in result]
        if norm.rewrites == 0 or not context.loosened():
            break
    return result


def node_facts(node) -> tuple:
    """What a built node is made of, for comparing a fast-built node with a generic one.

    The node's class, Op, inputs (by identity), attribute names (in order)
    and tag; per output: class, type, owner and index, name, attribute names
    (in order), tag, and whether its auto name is a new ``auto_<n>``.
    """
    outputs = []
    for o in node.outputs:
        number = o.auto_name[len("auto_"):]
        outputs.append(
            (type(o), o.type, o.owner is node, o.index, o.name, list(vars(o)), vars(o.tag), number.isdigit())
        )
    return (type(node), node.op, [id(i) for i in node.inputs], list(vars(node)), vars(node.tag), outputs)


#: Why the PyMC tests skip where PyMC is missing (pytest prints it with -ra).
PYMC_MISSING = (
    "PyMC 6 needs PyTensor 3.3, so the test extra installs it on Python >= 3.12 only: "
    "run the suite with Python 3.12 to check real model graphs (README)"
)


def require_pymc():
    """The ``pymc`` module, or a skip that says why it is missing (usable at module level)."""
    import pytest

    try:
        import pymc
    except ImportError:
        pytest.skip(PYMC_MISSING, allow_module_level=True)
    return pymc


def all_rules() -> tuple:
    """Every rule of every rule set in ``relations.RULESETS``, once, in the order the sets name them
    (the default rules first): a rule added to a set there is checked by the generic tests.

    But the numerics theory's (``RULESETS["numerics"]``, 566 relations): ``tests/test_numerics_theory.py``
    checks each of them forward, backward, as a check and on exact values at extreme inputs, and the
    generic saturation tests run it as a set of its own (with smaller limits)."""
    import relations

    return tuple(dict.fromkeys(r for name, rules in relations.RULESETS.items() if name != "numerics" for r in rules))


def issue42_algebra() -> list:
    """Issue 42's 8 rules (commutativity, associativity, distributivity both ways, ``a - b <-> a + -b``),
    plain patterns that ``saturate`` e-matches as queries."""
    from relations import patterns as p
    from relations import rewrite_rule

    a, b, c = p.var("a"), p.var("b"), p.var("c")
    return [
        rewrite_rule(name, lhs, rhs, choice=True)
        for name, lhs, rhs in [
            ("add_comm", p.add(a, b), p.add(b, a)),
            ("mul_comm", p.mul(a, b), p.mul(b, a)),
            ("add_assoc", p.add(a, p.add(b, c)), p.add(p.add(a, b), c)),
            ("mul_assoc", p.mul(a, p.mul(b, c)), p.mul(p.mul(a, b), c)),
            ("distribute", p.mul(a, p.add(b, c)), p.add(p.mul(a, b), p.mul(a, c))),
            ("factor", p.add(p.mul(a, b), p.mul(a, c)), p.mul(a, p.add(b, c))),
            ("sub_to_add", p.sub(a, b), p.add(a, p.neg(b))),
            ("add_to_sub", p.add(a, p.neg(b)), p.sub(a, b)),
        ]
    ]


def compiled_with_stage(inputs, out):
    """``out`` compiled with the measured stage (``relations.ACCURATE_TAGS``) from an empty outcome store, with the
    stage's budget of that compile; asserts the user's graph is not mutated."""
    import relations
    from relations.compile import stabilize as S

    S.clear_outcomes()  # (the session's store: conftest.py)
    stage = S.register_measured()
    before = snapshot(out)
    f = pytensor.function(inputs, out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert snapshot(out) == before  # the user's graph is not mutated
    return f, stage.last


def assert_accurate_and_typed(f, out, at, ref, rtol, fill: float = 2.0) -> None:
    """``f`` (compiled from ``out``) close to ``ref`` at the inputs ``at``, of ``out``'s dtype and broadcastable,
    and of 0 and 1 entries on inputs of 0 and 1 entries (each ``fill``)."""
    got = f(*at)
    assert got.dtype == out.dtype and f.outputs[0].variable.type.broadcastable == out.type.broadcastable
    np.testing.assert_allclose(got, ref, rtol=rtol)
    for n in (0, 1):
        assert f(*(np.full(n, fill) for _ in at)).shape == (n,)
