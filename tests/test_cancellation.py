"""Cancellation sites (``relations/saturation/cancellation.py``) and the stabilizing pass's cancellation tier.

A site is a sum two of whose terms may cancel: opposite signs possible, one
of them computed, and close (a constant, or an input in common).  The pass
replaces a difference that cancels (``softplus(x) - x``, ``1 - cos(x)``,
``sqrt(x + 1) - sqrt(x)``) by a form of the theory with fewer sites and as
many unstable Ops, only where that form is measured more accurate (worse at
no point of the grid of magnitudes and of Herbie's sample); each is checked
here against closed forms at the inputs where the difference loses its
digits, at length 0 and 1, and for its type, trace and untouched input.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest
from pytensor.graph.replace import clone_replace

import relations
from graph_bridge.intervals import interval_of
from helpers import snapshot
from relations.compile.stabilize import cancellation_roots, region_roots, stabilized
from relations.saturation.cancellation import Sites, cancellation_cost, cancellation_sites, terms
from relations.saturation.stability import instability

x, y = pt.vector("x"), pt.vector("y")


def _exact(f, pts):
    """``f`` at each point with mpmath at 60 digits."""
    with mp.workdps(60):
        return [float(f(mp.mpf(v))) for v in pts]


def test_the_sites_of_the_modules_before_and_after():
    pairs = [
        (pt.softplus(x) - x, pt.softplus(-x)),
        (1.0 - pt.cos(x), 2.0 * pt.sqr(pt.sin(x / 2.0))),
        (pt.sqrt(x + 1) - pt.sqrt(x), 1.0 / (pt.sqrt(x + 1) + pt.sqrt(x))),
    ]
    for before, after in pairs:
        assert cancellation_sites([before]) == 1 and cancellation_sites([after]) == 0


def test_what_is_not_a_site():
    assert cancellation_sites([x - y]) == 0  # two inputs: one rounding
    assert cancellation_sites([x + 1]) == 0  # an input and a constant (broadcast by a DimShuffle)
    assert cancellation_sites([pt.exp(x) - y]) == 0  # nothing in common: cannot be close but by chance
    assert cancellation_sites([pt.sqrt(x) + pt.exp(x)]) == 0  # both >= 0: a sum that cannot cancel
    assert cancellation_sites([pt.exp(x) - pt.sqrt(x)]) == 1  # both >= 0 and subtracted: it can
    assert cancellation_sites([pt.exp(x) - 0.0]) == 0  # a zero term


def test_terms_read_through_negations_and_constant_factors():
    g = pt.add(1.0, pt.mul(-1.0, pt.cos(x)))  # canonicalize's 1 - cos(x)
    (one, s1), (cos, s2) = terms(g)
    assert s1 == 1 and s2 == -1 and cos.owner.op.scalar_op.__class__.__name__ == "Cos"
    assert terms(pt.exp(x)) == []
    assert [s for _, s in terms(-pt.cos(x) - 2.0 * pt.sin(x))] == [-1, -1]
    assert Sites().site(g) and cancellation_sites([g]) == 1


def test_the_cost_prefers_fewer_sites_at_equal_instability_and_any_drop_in_instability_first():
    cost = cancellation_cost()
    site, plain = pt.softplus(x) - x, pt.softplus(-x)
    assert cost(site) > cost(plain.owner.inputs[0]) + 5e-3  # a site weighs SITE_WEIGHT
    assert cost(pt.exp(x)) >= 1.0 > cost(site)  # one unstable node outweighs any site


def test_interval_memo_is_filled_and_gives_the_same_intervals():
    memo: dict = {}
    g = pt.exp(x) + 1
    assert interval_of(g, memo) == interval_of(g)
    assert g in memo and x in memo and interval_of(pt.sqrt(g), memo).lo >= 1.0


def _tier_pair(g, fewer_unstable=False):
    """The tier's one replacement of ``g``: fewer sites at as many unstable Ops (``fewer_unstable``: fewer unstable
    Ops, the first criterion, whatever the sites)."""
    before = snapshot(g)
    pairs = stabilized([g])
    assert snapshot(g) == before  # the input graph is not changed
    assert len(pairs) == 1 and pairs[0][0] is g
    new = pairs[0][1]
    assert new.type == g.type
    if fewer_unstable:
        assert instability([new]) < instability([g])
    else:
        assert instability([new]) == instability([g]) and cancellation_sites([new]) < cancellation_sites([g])
    assert all(getattr(v.tag, "trace", None) is not None for v in pytensor.graph.traversal.vars_between([x, y], [new])
               if v.owner is not None)
    return new


def _values(g, new, points):
    f = pytensor.function([x], [g, new], mode="FAST_COMPILE", on_unused_input="ignore")
    with np.errstate(all="ignore"):
        old, got = f(np.asarray(points))
    for n in (0, 1):
        assert [v.shape for v in f(np.zeros(n))] == [(n,), (n,)]
    return old, got


def test_softplus_minus_its_argument_is_softplus_of_the_negation():
    g = pt.softplus(x) - x
    new = _tier_pair(g)
    pts = [-800.0, -1.0, 0.0, 1e-300, 30.0, 40.0, 700.0]
    old, got = _values(g, new, pts)
    exact = _exact(lambda v: mp.log1p(mp.exp(-v)), pts)
    np.testing.assert_allclose(got, exact, rtol=1e-15)
    assert abs(old[4] - exact[4]) / exact[4] > 1e-3  # the spelling lost the digits at 30


def test_one_minus_cos_is_twice_a_squared_sine_and_the_negated_spelling_too():
    for g in (1.0 - pt.cos(x), -(pt.cos(x) - 1.0)):
        new = _tier_pair(g)
        pts = [1e-8, 1e-5, 0.5, 3.0, 1e4]
        old, got = _values(g, new, pts)
        exact = _exact(lambda v: 1 - mp.cos(v), pts)
        np.testing.assert_allclose(got, exact, rtol=1e-14)
        assert old[0] == 0.0  # cos(1e-8) rounds to 1


@pytest.mark.parametrize("name, spelled, exact", [
    ("1 - exp(x)", lambda v: 1.0 - pt.exp(v), lambda t: -mp.expm1(t)),
    ("1 - exp(-exp(x))", lambda v: 1.0 - pt.exp(-pt.exp(v)), lambda t: -mp.expm1(-mp.exp(t))),
])
def test_one_and_an_exponential_is_an_expm1(name, spelled, exact):
    """A sum of ``1`` and an ``exp`` is a cancellation root (``expm1_def``, ``expm1_def_neg``): PyTensor's
    ``local_expm1`` takes ``exp(u) - 1`` alone, and ``1 - exp(x)`` lost 12 digits at ``x = 1e-12``."""
    g = spelled(x)
    new = _tier_pair(g, fewer_unstable=True)  # (``exp(u) - 1`` counts as an unstable Op, ``expm1`` not)
    pts = [1e-12, -1e-10, -20.0, -40.0, 0.5, 3.0]
    old, got = _values(g, new, pts)
    ref = _exact(exact, pts)
    np.testing.assert_allclose(got, ref, rtol=1e-15, err_msg=name)
    assert np.max(np.abs(np.asarray(old) / ref - 1)) > 1e-6, name


def test_two_and_an_exponential_is_no_root():
    """``2 - exp(x)`` cancels only at ``x = log(2)``, where no form of the theory keeps more digits: no root."""
    assert cancellation_roots([2.0 - pt.exp(x)]) == []


def test_a_difference_of_square_roots_is_a_quotient_by_their_sum():
    g = pt.sqrt(x + 1) - pt.sqrt(x)
    new = _tier_pair(g)
    pts = [0.0, 1.0, 1e8, 1e15, 1e300]
    old, got = _values(g, new, pts)
    exact = _exact(lambda v: 1 / (mp.sqrt(v + 1) + mp.sqrt(v)), pts)  # the closed form: no digits lost
    np.testing.assert_allclose(got, exact, rtol=1e-15)
    assert old[3] == 0.0 or abs(old[3] - exact[3]) / exact[3] > 1e-3


def test_cosh_minus_one_is_twice_a_squared_sinh():
    g = 2.0 * (pt.cosh(x) - 1.0)
    new = _tier_pair(g)
    pts = [1e-8, 1e-3, 1.0, 300.0]
    _, got = _values(g, new, pts)
    exact = _exact(lambda v: 2 * (mp.cosh(v) - 1), pts)
    np.testing.assert_allclose(got, exact, rtol=1e-14)


def test_float32_one_minus_cos_is_taken_within_the_noise():
    """float32 ``1 - cos(x)``: ``2 sin(x/2)**2`` is better on average and 1.6 bits worse at x = 5 (three float32
    roundings against one), within :data:`~relations.saturation.accuracy.NOISE_BITS`: the tier takes it
    (``test_stabilize`` shows a form worse beyond the noise refused)."""
    x32 = pt.vector("x32", dtype="float32")
    g = pt.constant(np.float32(1.0)) - pt.cos(x32)
    assert cancellation_roots([g]) == [g]
    ((root, new),) = stabilized([g])
    assert root is g and new.type == g.type
    v = np.array([1e-20, 1e-4, -3e-3, 0.5, 3.0, 5.0], dtype="float32")
    f = pytensor.function([x32], [g, new], mode="FAST_COMPILE")
    old, got = f(v)
    with mp.workdps(40):
        exact = np.array([float(1 - mp.cos(mp.mpf(float(t)))) for t in v])
    np.testing.assert_allclose(got[1:], exact[1:], rtol=1e-6)  # (5e-41 is a float32 subnormal)
    assert old[1] == 0.0


def test_a_site_of_no_tier_function_is_no_root_and_a_region_root_is_not_taken_twice():
    z = (x - y) / pt.exp(y)
    normal = -0.5 * z**2 - y - 0.9189385332046727  # a normal logp: sites, no entry reads them
    assert cancellation_sites([normal]) > 0 and cancellation_roots([normal]) == []
    g = pt.log(pt.softplus(x) - x + pt.exp(y) * pt.exp(x))  # the log's region holds the site
    roots = region_roots([g])
    assert roots and cancellation_roots([g], roots) == []


def test_a_site_that_never_loses_digits_is_screened_out_before_saturating(monkeypatch):
    """``rho + 2 * softplus(-rho)`` (a PyMC interval transform's log-Jacobian) is a site, but the sum is never
    below half its larger term: the numpy screen passes it and no e-graph is built."""
    import relations.compile.stabilize as st

    g = x + 2.0 * pt.softplus(-x)
    assert cancellation_roots([g]) == [g]
    built = []
    monkeypatch.setattr(st, "EGraph", lambda *a, **k: built.append(a) or pytest.fail("saturated"))
    assert stabilized([g]) == [] and built == []


def test_a_root_takes_in_the_sign_constant_factor_and_log_that_read_the_site():
    half = pt.constant(np.array([0.5]))
    g = pt.log(pt.add(half, pt.mul(half, pt.tanh(pt.mul(half, x)))))  # as canonicalize leaves log(0.5 + 0.5*tanh(x/2))
    assert cancellation_roots([g]) == [g]  # the log of the sigmoid the tier finds is a stabilizer's
    new = _tier_pair(g, fewer_unstable=True)  # log(sigmoid(x)) is -softplus(-x): one unstable Op less
    _, got = _values(g, new, [-800.0, -40.0, 0.0, 40.0])
    np.testing.assert_allclose(got, [-800.0, -40.0 - np.log1p(np.exp(-40.0)), -np.log(2.0), -np.log1p(np.exp(-40.0))],
                               rtol=1e-15)
    h = -(pt.sqrt(x) - pt.sqrt(x + 1))
    assert cancellation_roots([h]) == [h]
    shared = pt.sqrt(x + 1) - pt.sqrt(x)
    assert cancellation_roots([pt.log(shared), shared * 2.0]) == [shared]  # two readers: the site itself


def test_the_mode_compiles_the_tier_and_the_default_backend_accepts_it():
    g = pt.softplus(x) - x
    f = pytensor.function([x], g, mode=relations.mode())
    np.testing.assert_allclose(f(np.array([40.0, 0.0])), [np.log1p(np.exp(-40.0)), np.log(2.0)], rtol=1e-15)
    assert f(np.zeros(0)).shape == (0,)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_tier_keeps_dtype_and_broadcastable(dtype):
    m = pt.matrix("m", dtype=dtype, shape=(None, 1))
    g = pt.sqrt(m + 1) - pt.sqrt(m)
    pairs = stabilized([g])
    assert pairs and pairs[0][1].type == g.type


def test_the_tier_saturates_with_the_pass_rules_and_its_theory_entries():
    from relations.compile.stabilize import TIER_ENTRIES, pass_rules, tier_rules
    from relations.rules.numerics import NUMERICS_RULES

    rules = tier_rules()
    assert rules[: len(pass_rules())] == pass_rules()
    assert [r.__name__ for r in rules[len(pass_rules()):]] == list(TIER_ENTRIES)
    assert set(rules[len(pass_rules()):]) <= set(NUMERICS_RULES)


def test_a_deep_graph_is_read_without_recursion():
    """A chain of 2,000 additions (a model's recursion written out, deeper than Python's recursion limit): the sites
    and the roots are read bottom-up."""
    g = x
    for _ in range(2000):
        g = g + 1.0
    deep = pt.softplus(g) - g
    assert cancellation_sites([deep]) == 2000  # each "+ 1.0" of a computed value is a site too (not x + 1.0)
    assert cancellation_roots([deep]) == [deep]


def test_a_sum_holding_exp_x_and_exp_minus_x_is_a_tier_root_and_is_repaired():
    """``exp(x) - 2 + exp(-x)`` (Herbie's exp2): canonicalize's ``add(-2, exp(x), exp(-x))`` is no hazard and
    has no function of the tier, but two of its terms are a ``cosh`` in disguise: the tier saturates it to
    ``2 * cosh(x) - 2``, then ``4 * sinh(x/2)**2`` (fewer sites, measured more accurate)."""
    g = pt.add(pt.constant(np.array([-2.0])), pt.exp(x), pt.exp(-x))
    assert region_roots([g]) == [] and cancellation_roots([g]) == [g]
    assert cancellation_roots([pt.add(pt.constant(np.array([-2.0])), pt.exp(x), pt.exp(y))]) == []
    before = snapshot(g)
    [(old, new)] = stabilized([g])
    assert old is g and snapshot(g) == before and new.type == g.type
    v = np.array([1e-9, 1e-4, 1.0, 30.0])
    got = pytensor.function([x], new, mode="FAST_COMPILE")(v)
    np.testing.assert_allclose(got, _exact(lambda t: 4 * mp.sinh(t / 2) ** 2, v), rtol=1e-14)
    stock = pytensor.function([x], g, mode="FAST_COMPILE")(v)
    assert abs(stock[0] - got[0]) > 1e-3 * got[0]  # the spelling cancels at 1e-9


def _canonical(g):
    from pytensor.graph.rewriting.utils import rewrite_graph

    return rewrite_graph(g, include=("canonicalize",))


def test_a_difference_of_reciprocals_of_shifted_values_is_taken_exactly():
    """Herbie's 2frac, ``1/(x + 1) - 1/x``: canonicalize's ``1 / (1 + x) - 1 / x`` is a tier root (a reciprocal
    term), saturated with ``sub_recip_shift`` to ``-1 / (x * (x + 1))``: no cancellation left."""
    for g in (1 / (x + 1) - 1 / x, _canonical(pt.reciprocal(x + 1) - pt.reciprocal(x))):
        assert region_roots([g]) == [] and cancellation_roots([g]) == [g]
        new = _tier_pair(g)
        pts = [2.0, 1e5, 1e10, 1e20, -1e15, -0.5, 0.0, -1.0]
        old, got = _values(g, new, pts)
        exact = _exact(lambda v: -1 / (v * (v + 1)) if v not in (0, -1) else mp.inf, pts)
        np.testing.assert_allclose(got[:6], exact[:6], rtol=1e-15)
        assert got[6] == old[6] == -np.inf and got[7] == old[7] == np.inf  # the poles: IEEE's infinities
        assert abs(old[2] - exact[2]) > 1e-8 * abs(exact[2]) and old[3] == 0.0  # the spelling cancels at 1e10
    assert cancellation_roots([pt.reciprocal(x) - pt.reciprocal(y)]) == []  # two inputs: no site


def test_sub_recip_shift_holds_at_the_poles_in_ieee():
    """``1/(b + a) - 1/a = -b / (a * (b + a))`` for ``b != 0`` and every finite ``a``, signed zeros included:
    why ``a`` needs no guard (the exact check has no signed zero and cannot tell)."""
    a = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-300, -1e-300, 7.0, -3.0])
    for b in (1.0, -1.0, 2.5, -3.0, 7.0):
        with np.errstate(all="ignore"):
            left, right = 1 / (b + a) - 1 / a, -b / (a * (b + a))
        poles = ~np.isfinite(left)
        assert poles.sum() >= 2 and np.array_equal(left[poles], right[poles])
        np.testing.assert_allclose(left[~poles], right[~poles], rtol=1e-12)


def test_a_pass_root_where_the_count_gains_nothing_takes_the_form_of_fewer_sites():
    """``0.5 * (exp(x) - 1 / exp(x))`` reads one ``exp``, as ``sinh(x)`` does: the count gains nothing, and the
    spelling cancels at tiny ``x``. The pass's root loses digits and has a site: the form of fewest sites,
    measured more accurate, replaces it."""
    g = _canonical(0.5 * (pt.exp(x) - 1 / pt.exp(x)))
    assert region_roots([g]) == [g]
    new = _tier_pair(g)
    pts = [1e-20, -1e-10, 1e-5, 1.0, 700.0, -700.0]
    old, got = _values(g, new, pts)
    np.testing.assert_allclose(got, _exact(mp.sinh, pts), rtol=1e-15)
    assert old[0] == 0.0  # exp(1e-20) rounds to 1
    keep = _canonical(0.5 * (pt.exp(x) - 1 / pt.exp(y)))  # two inputs: no site
    assert stabilized([keep]) == []


a3, b3, c3 = pt.vector("a"), pt.vector("b"), pt.vector("c")


def _quad_root(a, b, c):
    with mp.workdps(60):
        a, b, c = mp.mpf(float(a)), mp.mpf(float(b)), mp.mpf(float(c))
        d = b * b - 4 * a * c
        if d < 0:
            return float("nan")
        # the closed form without the cancellation (60 digits would not hold b*b - 4 at b = 1e150)
        return float(2 * c / (-b - mp.sqrt(d)) if b > 0 else (-b + mp.sqrt(d)) / (2 * a))


@pytest.mark.parametrize(("spell", "b_scale"), [
    (lambda a, b, c: (-b + pt.sqrt(b * b - 4 * a * c)) / (2 * a), 1.0),
    (lambda a, b, c: (-b + pt.sqrt(b**2 - 4 * a * c)) / (2 * a), 1.0),
    (lambda a, b, c: (-b + pt.sqrt(b * b - a * c)) / a, 2.0),  # quad2p: the half-b form, b is half the quadratic's
])
def test_the_quadratic_formula_takes_its_regime_form(spell, b_scale):
    """Herbie's quadp: ``sqrt(b*b - 4ac) - b`` cancels for ``b > 0`` large next to ``4ac``. The tier's root
    (``0.5 * (...)``) holds the regime form ``sqrt_sub_regimes`` one level below it; measured more accurate, it
    replaces the root: ``-4ac / (sqrt(b*b - 4ac) + b)`` for ``b > 0``, the spelling for ``b <= 0``."""
    g = _canonical(spell(a3, b3, c3))
    before = snapshot(g)
    pairs = stabilized([g])
    assert snapshot(g) == before and len(pairs) == 1
    old_root, form = pairs[0]
    assert form.type == old_root.type
    new = clone_replace([g], replace={old_root: form})[0]
    a = np.array([1.0, 1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 3.0])
    b = np.array([1e10, 3.0, 1e5, 1e150, -1e10, 0.0, -2.0, 1.0])
    c = np.array([1.0, 1.0, 0.5, 1.0, 1.0, -4.0, 0.0, 5.0])  # the last: a negative discriminant (NaN)
    f = pytensor.function([a3, b3, c3], [g, new], mode="FAST_COMPILE")
    with np.errstate(all="ignore"):
        old, got = f(a, b, c)
    exact = [_quad_root(x, b_scale * y, z) for x, y, z in zip(a, b, c, strict=True)]
    np.testing.assert_allclose(got, exact, rtol=1e-14)
    assert abs(old[0] - exact[0]) > 1e-3 * abs(exact[0])  # the spelling cancels at b = 1e10
    # gradients finite wherever the spelling's are (b <= 0 with c = 0: the branch not taken divides by 1)
    grads = pytensor.function([a3, b3, c3], pt.grad(pt.sum(new), [a3, b3, c3]), mode="FAST_COMPILE")
    for gr in grads(a[:7], b[:7], c[:7]):
        assert np.isfinite(gr).all()
    for n in (0, 1):
        assert f(*(np.ones(n),) * 3)[1].shape == (n,)


def _repaired(g, pts, exact, lost_at=None):
    """``g`` (canonicalized) replaced by the pass's forms: input untouched, type kept, values against ``exact``
    (mpmath at 60 digits) at ``pts``, lengths 0 and 1; ``lost_at``: a point where the spelling is off."""
    g = _canonical(g)
    before = snapshot(g)
    pairs = stabilized([g])
    assert snapshot(g) == before and pairs
    new = clone_replace([g], replace=dict(pairs))[0]
    assert new.type == g.type
    old, got = _values(g, new, pts)
    want = _exact(exact, pts)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    if lost_at is not None:
        k = pts.index(lost_at)
        assert not np.isclose(old[k], want[k], rtol=1e-8, atol=0.0)
    return new


def test_square_roots_and_reciprocals_written_as_powers_are_tier_terms():
    """``(x + 1) ** 0.5 - x ** 0.5`` and ``(x + 1) ** -1 - x ** -1``: a power of exponent 0.5, -1 or -0.5 is a tier
    term (``unpow1_2``, ``unpow_neg1`` relate it to ``sqrt`` and ``1 / a``), and a fractional power is >= 0 to the
    interval analysis, as ``sqrt`` is: the flipped difference has no site left."""
    assert interval_of(x**0.5).lo == 0.0 and interval_of(x**-0.5).lo == 0.0 and interval_of(x**-2).lo == 0.0
    assert interval_of(x**3).lo == -np.inf  # an odd power keeps the sign
    _repaired((x + 1) ** 0.5 - x**0.5, [1e-10, 1.0, 1e8, 1e20, 1e300],
              lambda v: 1 / (mp.sqrt(v + 1) + mp.sqrt(v)), lost_at=1e20)
    _repaired((x + 1) ** -1 - x**-1, [2.0, 1e5, 1e10, -1e15, -0.5], lambda v: 1 / (v + 1) - 1 / v, lost_at=1e10)


def test_a_difference_of_inverse_square_roots_is_taken_exactly():
    """Herbie's 2isqrt: ``1/sqrt(x) - 1/sqrt(x + 1)`` is 0 from ``x = 1e16``; ``isqrt_sub_shift`` takes the
    difference exactly, ``1 / (sqrt(x) sqrt(x + 1) (sqrt(x) + sqrt(x + 1)))``."""
    _repaired(1 / pt.sqrt(x) - 1 / pt.sqrt(x + 1), [1e-10, 1.0, 1e8, 1e20, 1e200],
              lambda v: 1 / (mp.sqrt(v) * mp.sqrt(v + 1) * (mp.sqrt(v) + mp.sqrt(v + 1))), lost_at=1e20)


def test_erfc_and_sigmoid_differences_are_left_to_the_measured_stage():
    """``2 - erfc(-x)`` (``erfc(x)``) and ``2 sigmoid(2x) - 1`` (``tanh(x)``) cancel, and the theory relates them
    (``erfc_neg``, ``tanh_sigmoid``), but ``erfc``, ``erf`` and ``sigmoid`` are no tier functions: a PyMC model's
    gradient reads ``1 - sigmoid(a)`` and ``1 - 0.5 * erfc(z)`` over its data, and saturating and measuring
    those cost up to 3.7x PyTensor's rewrites.  The measured stage takes them.  The screen sees ``2 - erfc(-x)``
    cancel: its wide ``erfc`` below 0 is ``2 - erfc(-x)`` in the wide dtype (float64's ``erfc(-5)`` rounds at
    float64's spacing)."""
    from graph_bridge.wide_float import wide_screen_flat

    assert wide_screen_flat(_canonical(2 - pt.erfc(-x))).mean > 1.0
    for g in (2 - pt.erfc(-x), 2 * pt.sigmoid(2 * x) - 1):
        c = _canonical(g)
        assert cancellation_roots([c]) == [] and stabilized([c]) == []
    f = pytensor.function([x], 2 - pt.erfc(-x), mode=relations.mode(*relations.ACCURATE_TAGS))
    np.testing.assert_allclose(f(np.array([10.0, 1.0])), _exact(mp.erfc, [10.0, 1.0]), rtol=1e-14)


def test_the_log_definitions_of_asinh_and_acosh_are_asinh_and_acosh():
    """``log(x + sqrt(x*x + 1))`` cancels for ``x < 0`` and overflows at 1e154; ``log(x + sqrt(x*x - 1))``, written
    either way, overflows there: the screen sees a value lost whole at the ends of the range
    (``graph_bridge.wide_float.GAP_GRID``), and ``asinh_def``, ``acosh_def`` relate them to ``arcsinh`` and
    ``arccosh``."""
    _repaired(pt.log(x + pt.sqrt(x * x + 1)), [-1e10, -1e3, -1.0, 0.0, 1e-8, 1e200], mp.asinh, lost_at=-1e10)
    for spell in (pt.log(x + pt.sqrt(x * x - 1)), pt.log(x + pt.sqrt((x - 1) * (x + 1)))):
        _repaired(spell, [1.0, 2.0, 1e10, 1e200], mp.acosh, lost_at=1e200)


def test_a_difference_of_arctangents_is_left():
    """``arctan(x + 1) - arctan(x)`` cancels at large ``x``, but its flipped form ``arctan2((x + 1) - x, 1 + (x +
    1) x)`` has as many sites to the count: ``arctan`` is no tier function, and the tier leaves it (the
    measured stage takes it)."""
    g = _canonical(pt.arctan(x + 1) - pt.arctan(x))
    assert cancellation_roots([g]) == [] and stabilized([g]) == []


def test_log_regions_with_no_head_below_their_log():
    """``log1p(x) - log(x)`` (the shifted log difference with ``log1p``), ``log(x * x * x)`` (a power as a
    product), ``log(tanh(x))`` (``log_tanh``) and ``log((1 - x) / (1 + x))`` (``log_atanh_neg``) are region
    roots, each replaced by a form accurate where the spelling is not."""
    for g in (pt.log1p(x) - pt.log(x), pt.log(x * x * x), pt.log(pt.tanh(x)), pt.log((1 - x) / (1 + x))):
        assert region_roots([_canonical(g)]), g
    _repaired(pt.log1p(x) - pt.log(x), [1e-300, 1e-5, 1.0, 1e10, 1e300], lambda v: mp.log1p(1 / v), lost_at=1e10)
    _repaired(pt.log(x * x * x), [1e-200, 2.0, 1e200], lambda v: 3 * mp.log(v), lost_at=1e200)
    _repaired(pt.log(pt.tanh(x)), [1e-10, 1.0, 20.0, 300.0], lambda v: mp.log1p(-2 / (mp.exp(2 * v) + 1)), lost_at=20.0)
    _repaired(pt.log((1 - x) / (1 + x)), [1e-10, -1e-10, 0.5, -0.9], lambda v: mp.log((1 - v) / (1 + v)),
              lost_at=1e-10)


def test_a_log_of_a_product_with_ones_is_read_as_its_broadcast_operand():
    """``log(cosh(x) * ones((2, 1)))``: a product with ones is a broadcast of the other operand to the hazards
    (``_op_of``), so ``log(cosh(x))`` is found under it; compiled in the default mode (Numba)."""
    g = pt.log(pt.cosh(x) * pt.ones((2, 1)))
    f = pytensor.function([x], g, mode=relations.mode())
    pts = [1e-10, 1.0, 800.0, -800.0]
    got = f(np.array(pts))
    assert got.shape == (2, 4) and got.dtype == g.dtype
    want = _exact(lambda v: mp.log(mp.cosh(v)), pts)
    np.testing.assert_allclose(got, np.broadcast_to(want, (2, 4)), rtol=1e-14)
    assert f(np.zeros(0)).shape == (2, 0) and f(np.ones(1)).shape == (2, 1)


def test_a_softmax_of_two_is_left_and_a_secant_in_disguise_takes_no_exp_of_a_sum():
    """``exp(a) / (exp(a) + exp(b))`` is no region root, and ``c / (exp(x) + exp(-x))``, a root, is kept: their
    forms of fewer unstable Ops, ``sigmoid(a - b)``, ``exp(a - logaddexp(a, b))`` and ``exp(log(c / 2) -
    logaddexp(x, -x))``, amplify the rounding of the exponent by its size (4 bits at ``a = -40``, ``b = 1e-4``,
    and at ``x = 100``, where the spellings are exact to an ulp), which a count cannot see
    (``tests/test_stabilize_properties.py`` found both): a form holding more ``exp`` of a sum than its region is
    measured before it replaces it (``_exp_safe``), and this one is worse at points of the grid (``2 / (2
    cosh(x))``, measured better, is taken for ``c = 2``: accurate to an ulp or two).  The measured
    stage takes ``exp_div_sum_regimes`` for the first.  ``exp(x) / (1 + exp(x))`` is PyTensor's stabilizers'."""
    assert region_roots([_canonical(pt.log(pt.exp(x) / (1 + pt.exp(x))))]) == []
    assert region_roots([_canonical(pt.exp(x) / (pt.exp(x) + pt.exp(y)))]) == []
    from relations.compile.stabilize import _exps_of_sums

    pts = [20.0, 40.0, 100.0, -30.0]
    for c in (2.0, 0.5):
        g = _canonical(c / (pt.exp(x) + pt.exp(-x)))
        assert region_roots([g]) == [g]
        new = clone_replace([g], replace=dict(stabilized([g])))[0]
        assert _exps_of_sums(new) == 0  # (``2 * reciprocal(2 * cosh(x))``, measured, or the spelling)
        _, got = _values(g, new, pts)
        np.testing.assert_allclose(got, _exact(lambda v, c=c: c / (2 * mp.cosh(v)), pts), rtol=4e-16)


def test_a_difference_of_inverse_square_roots_is_taken_within_the_noise():
    """``x**-0.5 - (x + 1)**-0.5`` (a held-out spelling): its exact form, ``isqrt_sub_shift``'s, is a few ulps
    off at some sampled points where the spelling is exact, within the noise floor; at large ``x`` the
    spelling keeps no digit."""
    g = x**-0.5 - (x + 1) ** -0.5
    ((root, new),) = stabilized([g])
    assert root is g and new.type == g.type
    pts = [0.5, 3.0, 1e8, 1e12, 1e30]
    old, got = _values(g, new, pts)
    exact = _exact(lambda v: 1 / mp.sqrt(v) - 1 / mp.sqrt(v + 1), pts)
    np.testing.assert_allclose(got, exact, rtol=1e-14)
    assert abs(old[3] / exact[3] - 1) > 1e-6
