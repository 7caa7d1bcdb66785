"""Every identity of the numerics theory: forward, backward, both sides given, on exact values, on floats.

For each relation of ``relations.rules.numerics`` (an equality gives two), :func:`theory_checks.instance`
builds its two sides over leaves its guards accept, and the test checks that

- run forward on the left side it gives the right side (and leaves the left side as it was);
- run backward on the right side it gives a left side equal in value;
- with both sides given it holds, and with the right side of another rule it does not;
- both sides are equal on exact values (mpmath) at inputs across the reals, moderate and extreme;
- both sides have the same type, and equal float values (FAST_COMPILE) on vectors of 0, 1 and 5
  elements at moderate inputs (one function computes every identity's sides: :func:`theory`).

A guarded identity is also checked to be refused where its guard is unknown (plain inputs).
"""

from __future__ import annotations

import re

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

from helpers import assert_same_types, backward, forward, holds, snapshot
from relations.patterns.guards import Guard
from relations.rules.numerics import GROUPS, NUMERICS_RULES
from theory_checks import _guards, exact_mismatches, instance, pair_mismatches

RULES = {r.__name__: r for r in NUMERICS_RULES}
RANGES = ("positive", "negative", "nonzero", "nonnegative", "nonpositive", "within", "inside")
#: The rules a range guard keeps off the whole real line; a negated one (``~nonnegative(b)``: a regime on a sign
#: the analysis does not know) holds there instead.
_RANGE = re.compile(rf"(?<![\w~])({'|'.join(RANGES)})\(")
_NEGATED = re.compile(rf"~({'|'.join(RANGES)})\(")
RANGE_GUARDED = [n for n, r in RULES.items() if any(_RANGE.search(g.text) for g in _guards(r))]
NEGATED_RANGE = [n for n, r in RULES.items() if any(_NEGATED.search(g.text) for g in _guards(r))]


#: The lengths of the float vectors each identity is checked at.
SIZES = (0, 1, 5)


def _float_inputs(inputs: list) -> list[list[np.ndarray]]:
    """Per size of :data:`SIZES`, a vector per input drawn in (-2, 2): moderate inputs."""
    rng = np.random.default_rng(3)
    return [[rng.uniform(-2.0, 2.0, n).astype(i.type.dtype) for i in inputs] for n in SIZES]


def _float_values(lhs, rhs, inputs) -> list[tuple[np.ndarray, np.ndarray]]:
    fn = pytensor.function(inputs, [lhs, rhs], mode="FAST_COMPILE", on_unused_input="ignore")
    return [tuple(fn(*vals)) for vals in _float_inputs(inputs)]


def _check_floats(values: list[tuple[np.ndarray, np.ndarray]]) -> None:
    for a, b in values:
        assert a.shape == b.shape and a.dtype == b.dtype
        finite = np.isfinite(a) & np.isfinite(b)
        np.testing.assert_allclose(b[finite], a[finite], rtol=1e-6, atol=1e-9)
        assert (np.isnan(a) == np.isnan(b)).all()


@pytest.fixture(scope="module")
def theory():
    """Every rule's instance and its forward step, made once, and the float values of both sides of every
    identity, computed by one function (FAST_COMPILE) for the whole theory instead of one per rule.

    Returns ``(built, floats)``: ``built[name]`` is ``(lhs, rhs, inputs, snapshot of lhs, forward's
    answers)``, or the exception making them raised (the rule's test raises it); ``floats[name]`` the
    ``(lhs, right side)`` values at each size of :data:`SIZES` (``floats`` is ``None`` if the whole
    theory's function failed: each test then compiles its own)."""
    built: dict = {}
    ins: list = []
    outs: list = []
    given: list[list] = [[] for _ in SIZES]
    for name, rule in RULES.items():
        try:
            lhs, rhs, inputs, _ = instance(rule)
            before = snapshot(lhs)
            got = forward(rule, lhs, n=1)
        except Exception as err:  # noqa: BLE001 - the rule's own test raises it
            built[name] = err
            continue
        built[name] = (lhs, rhs, inputs, before, got)
        if got:
            ins += inputs
            outs += [lhs, got[0]]
            for k, vals in enumerate(_float_inputs(inputs)):
                given[k] += vals
    try:
        fn = pytensor.function(ins, outs, mode="FAST_COMPILE", on_unused_input="ignore")
        values = [fn(*vals) for vals in given]
    except Exception:  # noqa: BLE001 - some identity's graph fails: each test compiles its own and names it
        return built, None
    floats, k = {}, 0
    for name, b in built.items():
        if isinstance(b, tuple) and b[4]:
            floats[name] = [(v[k], v[k + 1]) for v in values]
            k += 2
    return built, floats


@pytest.mark.parametrize("name", list(RULES))
def test_identity(name, theory):
    rule = RULES[name]
    built, floats = theory
    if isinstance(built[name], Exception):
        raise built[name]
    lhs, rhs, inputs, before, got = built[name]
    assert got, f"{name}: forward gave nothing on {lhs}"
    assert snapshot(lhs) == before
    assert_same_types(lhs, got[0])
    assert holds(rule, lhs, rhs), f"{name}: does not hold with both sides given"
    back = backward(rule, rhs, n=1)
    assert back, f"{name}: backward gave nothing on {rhs}"
    assert_same_types(rhs, back[0])
    bad, bad_back = pair_mismatches([(lhs, got[0]), (back[0], rhs)], inputs)
    assert not bad, f"{name}: the sides differ on exact values at {bad[:3]}"
    assert not bad_back, f"{name}: backward's left side differs on exact values at {bad_back[:3]}"
    _check_floats(floats[name] if floats is not None else _float_values(lhs, got[0], inputs))


@pytest.mark.parametrize("name", RANGE_GUARDED)
def test_a_range_guard_refuses_where_the_range_is_unknown(name):
    """On plain inputs (the whole real line) a guard over value ranges does not hold: the rule gives nothing."""
    rule = RULES[name]
    lhs, _, inputs, kinds = instance(rule)
    names = [v for v, k in kinds.items() if k != "real"]
    assert names, name
    plain = dict(zip(kinds, inputs, strict=True))
    from relations import patterns as p
    from theory_checks import _vars

    leaves = {v: plain[v.name] for v in _vars(rule.lhs)}
    try:
        bare = p.build(rule.lhs, leaves.__getitem__)
    except Exception:  # noqa: BLE001 - the pattern needs those kinds' types
        pytest.skip("the pattern does not build on plain inputs")
    assert forward(rule, bare, n=1) == [], f"{name}: applied on {bare}, where its guard is unknown"


@pytest.mark.parametrize("name", NEGATED_RANGE)
def test_a_negated_range_guard_applies_on_plain_inputs_and_refuses_a_known_sign(name):
    """``log_add_exp_regimes`` (a regime on the sign of ``b``) applies where the sign is unknown; where the analysis
    knows it (``b = exp(y)``) the regime is pointless, and the rule gives nothing."""
    rule = RULES[name]
    lhs, _, inputs, kinds = instance(rule)
    assert forward(rule, lhs, n=1)
    from relations import patterns as p
    from theory_checks import KINDS, _vars

    negated = {m.group(1) for g in _guards(rule) for m in re.finditer(r"~\w+\((\w+)\)", g.text)}
    known = {v: (pt.exp(i) if v.name in negated else KINDS[kinds[v.name]](i))
             for v, i in zip(_vars(rule.lhs), inputs, strict=True)}
    assert forward(rule, p.build(rule.lhs, known.__getitem__), n=1) == []


def test_the_groups_are_families_with_docs_and_the_theory_has_no_duplicate_name():
    assert len(RULES) == len(NUMERICS_RULES)
    for fam in GROUPS.values():
        assert fam.docs and fam.choice
        for r in fam.rules:
            assert r.choice
            for g in _guards(r):
                assert isinstance(g, Guard)


def test_the_exact_check_sees_a_false_identity():
    x, y = pt.dvector("x"), pt.dvector("y")
    assert exact_mismatches(pt.exp(x + y), pt.exp(x) * pt.exp(y), [x, y]) == []
    assert exact_mismatches(pt.log(x * y), pt.log(x) + pt.log(y), [x, y])  # both negative: log(x*y) is defined
    assert exact_mismatches(pt.exp(x) - 1, pt.expm1(x), [x, y]) == []  # the cancellation is computed exactly


def _nested_branch_reads(node, target, parent=None, k=None, depth=0):
    """The depths at which ``target`` (a pattern's text) is a branch of a ``switch`` below the root of ``node``."""
    from relations.patterns.syntax import Node

    if not isinstance(node, Node):
        return []
    here = [depth] if (str(node) == target and depth > 1 and parent is not None and parent.name == "switch"
                       and k in (1, 2)) else []
    return here + [d for j, a in enumerate(node.args) for d in _nested_branch_reads(a, target, node, j, depth + 1)]


def test_no_right_side_keeps_its_spelling_as_a_branch_of_a_nested_switch():
    """A regime rule keeps the spelling ("as written elsewhere") as a branch of its outermost switch: the extraction
    (``measured_choice``) reads a form's own e-class there, and a form holding it one switch deeper was never
    chosen (``log1m_pow1p_regimes`` was written so, and ``relations.stabilize`` left its spelling 36 bits off)."""
    assert [(r.__name__, d) for r in NUMERICS_RULES for d in _nested_branch_reads(r.rhs, str(r.lhs))] == []
    from relations import patterns as p

    a = p.var("a")
    nested = p.switch(p.gt(a, 0), p.exp(a), p.switch(p.lt(a, -1), a, p.log1p(a)))
    assert _nested_branch_reads(nested, str(p.log1p(a))) == [2]


def test_the_complement_of_a_power_of_one_plus_a_quantity_is_chosen_by_the_measured_extraction():
    import relations

    b, c = pt.dvector("b"), pt.dvector("c")
    out = pt.log1p(-((1 + c) ** b))
    s = relations.stabilize(out, rules=[RULES["log1m_pow1p_regimes"]], n=64)
    assert s.changed and s.after[0][0] < s.before[0][0] - 10  # mean bits of error: 36 before, under 1 after
    at = (np.array([1e-20, 2.0, -3.0]), np.array([-0.5, -0.5, 1e-12]))  # (1 + c)**b below 1: a real log
    f = pytensor.function([b, c], s.graph, mode="FAST_COMPILE")
    import mpmath as mp

    with mp.workdps(50):
        ref = [float(mp.log1p(-mp.power(1 + mp.mpf(v), mp.mpf(u)))) for u, v in zip(*at)]
    with np.errstate(divide="ignore"):
        assert np.isneginf(pytensor.function([b, c], out, mode="FAST_COMPILE")(*at)[0])  # log1p(-1)
    np.testing.assert_allclose(f(*at), ref, rtol=1e-12)
