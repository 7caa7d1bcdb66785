"""Sums whose terms read different inputs (``relations/compile/separable.py``), split a part at a time, and the
measured stage's use of them: each part checked on values against the whole."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytensor
import pytensor.tensor as pt

import relations
from helpers import snapshot
from relations.compile import stabilize as S
from relations.compile.separable import additive_terms, separated

x, y, z = pt.dvector("x"), pt.dvector("y"), pt.dvector("z")


def _values(*graphs, at):
    return pytensor.function([x, y, z], list(graphs), mode="FAST_COMPILE", on_unused_input="ignore")(*at)


def test_the_terms_are_read_through_add_sub_and_neg_with_their_signs():
    ex, sq, lg = pt.exp(x), pt.sqr(x), pt.log(y)
    out = lg - (ex + -sq) + 2.0
    got = additive_terms(out)
    assert len(got) == 4
    signs = {t: s for t, s in got}
    assert signs[lg] == 1 and signs[ex] == -1 and signs[sq] == 1
    assert additive_terms(ex) == [(ex, 1)]


def test_each_input_read_alone_gives_a_part_and_the_parts_add_up():
    out = pt.log(y) + pt.gammaln(x) - pt.gammaln(x + 0.5) + 0.25 + pt.exp(z) * 3.0
    before = snapshot(out)
    found = separated(out)
    assert snapshot(out) == before
    assert len(found) == 3  # x, y and z each read alone
    at = (np.array([3.0, 0.5, 1e3, 7.0]), np.array([2.0, 0.1, 5.0, 1.0]), np.array([0.0, -1.0, 2.0, 0.3]))
    for part, rest in found:
        whole, p, r = _values(out, part, rest, at=at)
        np.testing.assert_allclose(p + r, whole, rtol=1e-13)
        assert part.type.dtype == out.type.dtype
    for n in (0, 1):
        part, rest = found[0]
        p, r = _values(part, rest, at=tuple(np.full(n, 2.0) for _ in range(3)))
        assert (p + r).shape == (n,)


def test_no_part_where_a_term_reads_the_input_beside_another():
    assert [p for p, _ in separated(pt.log(x * y) + pt.exp(x) + z) if "x" in str(p)] == []
    assert separated(pt.exp(x) + pt.log(x)) == []  # one input: the part would be the whole
    assert separated(pt.exp(x) * y) == []  # no sum


def test_a_leaf_computed_from_an_input_counts_as_that_input():
    leaf = pt.dvector("leaf")
    out = leaf - pt.log(x) + pt.exp(y)
    plain = separated(out)
    read_as_x = separated(out, {leaf: frozenset([x])})
    assert len(plain) == 3 and len(read_as_x) == 2  # leaf and x join one part


def test_the_measured_stage_stabilizes_the_part_of_a_sum_that_cancels_alone():
    # PyTorch's Student-t entropy: log(scale) + (terms of df that cancel for large df); the df terms' series at
    # infinity repairs them, but a series is of one input and the region reads two
    lg_half = math.lgamma(0.5)
    df, scale = pt.dvector("df"), pt.dvector("scale")
    lbeta = pt.gammaln(0.5 * df) + lg_half - pt.gammaln(0.5 * (df + 1))
    out = pt.log(scale) + 0.5 * (df + 1) * (pt.psi(0.5 * (df + 1)) - pt.psi(0.5 * df)) + 0.5 * pt.log(df) + lbeta
    stage = S.register_measured()
    f = pytensor.function([df, scale], out, mode=relations.mode(*relations.ACCURATE_TAGS))
    assert stage.last.replaced >= 1
    at = (np.array([1e12, 1e8, 3.0, 1e15]), np.array([1.0, 2.0, 1.0, 0.5]))
    with mp.workdps(80):
        def exact(d, s):
            d, s = mp.mpf(float(d)), mp.mpf(float(s))
            h = (d + 1) / 2
            return float(mp.log(s) + h * (mp.digamma(h) - mp.digamma(d / 2)) + mp.log(d) / 2
                         + mp.loggamma(d / 2) + mp.mpf(lg_half) - mp.loggamma(h))

        ref = np.array([exact(*row) for row in zip(*at)])
    written = pytensor.function([df, scale], out, mode="FAST_RUN")(*at)
    assert np.max(np.abs(written / ref - 1)) > 1e-6
    np.testing.assert_allclose(f(*at), ref, rtol=1e-13)
    for n in (0, 1):
        assert f(np.full(n, 5.0), np.full(n, 2.0)).shape == (n,)


def _entropy(df, scale, half=0.5):
    lbeta = pt.gammaln(0.5 * df) + math.lgamma(0.5) - pt.gammaln(0.5 * (df + 1))
    return pt.log(scale) + 0.5 * (df + 1) * (pt.psi(half * (df + 1)) - pt.psi(0.5 * df)) + 0.5 * pt.log(df) + lbeta


def test_a_form_that_computes_a_leaf_again_is_kept_for_regions_that_compute_it_alike():
    # the region's structure holds its leaves as inputs: its key also holds how the leaves it may compute again
    # are computed, so a second compile reuses the form (PyMC's Dirichlet-multinomial paid 7 s at every
    # compile when such a form was kept for no other) and a leaf computed otherwise does not
    df, scale = pt.dvector("df"), pt.dvector("scale")
    stage = S.register_measured()
    mode = relations.mode(*relations.ACCURATE_TAGS)
    pytensor.function([df, scale], _entropy(df, scale), mode=mode)
    assert stage.last.replaced >= 1
    pytensor.function([df, scale], _entropy(df, scale), mode=mode)
    assert stage.last.replaced >= 1 and stage.last.stabilized == 0 and stage.last.cached >= 1
    keys = []
    for half in (0.5, 0.25):
        [(root, region)] = [(r, g) for r, g in S._head_regions([_entropy(df, scale, half)]) if S._reads(r) == 2]
        keys.append(S._keyed(root, region)[0])
    assert keys[0] != keys[1] and keys[0][0] == keys[1][0]  # the same region, its leaves computed otherwise
