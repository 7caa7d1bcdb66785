"""The references of the independent PyMC corpus (``tests/pymc_corpus.py``, issue 45) are densities of
their graphs: they integrate to one (point masses included) and match draws of the graph.

Nothing here runs ``relations.pymc.logp``: the corpus is for rules still being written (its baseline
is ``benchmarks/pymc_corpus.py``).  The kinds are checked against stock PyMC only.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pm = pytest.importorskip("pymc", reason="PyMC 6 needs Python >= 3.12 (PyTensor 3.3): the PyMC corpus is not tested here")

pytestmark = [
    # PyMC 6's own distributions call PyTensor 3.3's RandomVariables the way PyTensor deprecates
    pytest.mark.filterwarnings("ignore:RandomVariable Ops will stop hiding the rng output:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Calling a RandomVariable without an explicit rng:DeprecationWarning"),
    # references at the ends of a support: log(0) is -inf, as the density is there
    pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning"),
]

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.graph.replace import graph_replace, vectorize_graph  # noqa: E402
from pytensor.graph.traversal import ancestors  # noqa: E402
from pytensor.tensor.random.op import RandomVariable  # noqa: E402
from scipy import integrate, stats  # noqa: E402

from pymc_corpus import CORPUS_NEW, HELDOUT, Case  # noqa: E402

NEW = CORPUS_NEW + HELDOUT
KINDS = ("fails", "control", "wrong", "underivable")
SCALAR = [c for c in NEW if not c.check]
VECTOR = [c for c in NEW if c.check]


def _ids(c: Case) -> str:
    return c.name


def _mass(ref, support, atoms, upto=np.inf) -> float:
    """The probability of ``(-inf, upto]`` under a reference: its continuous part by quadrature, and
    its point masses."""
    total = sum(float(np.exp(ref(np.float64(a)))) for a in atoms if a <= upto)
    if support is not None:
        lo, hi = support
        hi = min(hi, upto)
        if hi > lo:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", integrate.IntegrationWarning)
                total += integrate.quad(lambda t: float(np.exp(ref(np.float64(t)))), lo, hi, limit=400, epsabs=1e-10)[0]
    return total


def _entry(case: Case, i: int):
    """The reference's term for entry ``i`` of an elementwise vector case, as a function of a scalar."""
    shape = np.shape(case.values[0])
    return lambda t: np.asarray(case.reference(np.full(shape, t))).flat[i]


# -- the corpus itself --------------------------------------------------------------------------


def test_the_new_corpus_has_seventy_cases_with_a_source_and_a_held_out_part_over_every_kind():
    from test_pymc_logp import CORPUS

    assert len(NEW) >= 70
    names = [c.name for c in NEW]
    assert len(set(names)) == len(names)
    assert not set(names) & {c.name for c in CORPUS}
    assert all(c.kind in KINDS and c.source for c in NEW)
    assert 20 <= len(HELDOUT) <= 30 and not {c.name for c in HELDOUT} & {c.name for c in CORPUS_NEW}
    for kind in KINDS:
        assert sum(c.kind == kind for c in HELDOUT) >= 2
        assert sum(c.kind == kind for c in CORPUS_NEW) >= 5
    assert all(c.check in ("elementwise", "joint", "singular") for c in VECTOR)
    assert all(c.support is not None for c in VECTOR if c.check == "elementwise")


@pytest.mark.parametrize("case", SCALAR, ids=_ids)
def test_references_are_densities(case):
    """Quadrature over the continuous part plus the point masses is one; every point mass is an
    evaluation point, and so is a point inside the continuous support."""
    assert abs(_mass(case.reference, case.support, case.atoms) - 1.0) < 1e-5
    values = [float(v) for v in case.values]
    if case.support is not None:
        assert set(case.atoms) <= set(values), "every censored point is evaluated"
        inside = [v for v in values if case.support[0] < v < case.support[1] and v not in case.atoms]
        assert inside and all(np.isfinite(case.reference(np.float64(v))) for v in inside)
    else:  # discrete: evaluated on its atoms
        assert any(v in case.atoms and np.isfinite(case.reference(np.float64(v))) for v in values)
    assert all(np.isfinite(case.reference(np.float64(a))) for a in case.atoms if a in values)


@pytest.mark.parametrize("case", [c for c in VECTOR if c.check == "elementwise"], ids=_ids)
def test_elementwise_references_are_densities_entry_by_entry(case):
    for i in range(int(np.size(case.values[0]))):
        assert abs(_mass(_entry(case, i), case.support or (-np.inf, np.inf), case.atoms) - 1.0) < 1e-5


@pytest.mark.parametrize("case", [c for c in VECTOR if "diagonal" in c.extra], ids=_ids)
def test_a_broadcast_reference_is_a_density_on_the_broadcast_support(case):
    """On the line of equal entries the reference is the scalar draw's density; off it, ``-inf``
    (the evaluation points include one off the line)."""
    diag = case.extra["diagonal"]
    assert abs(_mass(lambda t: case.reference(diag(t)), (-np.inf, np.inf), ()) - 1.0) < 1e-5
    assert any(np.isneginf(case.reference(np.asarray(v))) for v in case.values)
    assert any(np.isfinite(case.reference(np.asarray(v))) for v in case.values)


# -- against draws of the graph -----------------------------------------------------------------


def draws(graph, givens: dict, n: int, seed: int = 20240) -> np.ndarray:
    """``n`` draws of ``graph`` at ``givens``: every RandomVariable batched to ``n`` and the graph
    vectorized over it; graphs with PyMC's symbolic random variables (CustomDist, Censored,
    Truncated) are drawn one at a time (``pm.draw``)."""
    if givens:
        graph = graph_replace(graph, {k: pt.constant(v) for k, v in givens.items()}, strict=False)
    rng = np.random.default_rng(seed)
    batched, symbolic = {}, False
    for v in ancestors([graph]):
        node = v.owner
        if node is None:
            continue
        if isinstance(node.op, RandomVariable) and v is node.outputs[1]:
            shape = tuple(int(s) for s in v.shape.eval())
            shared_rng = pytensor.shared(np.random.default_rng(rng.integers(2**32)))
            batched[v] = node.op(*node.inputs[2:], size=(n, *shape), rng=shared_rng)
        elif not isinstance(node.op, RandomVariable) and hasattr(node.op, "extended_signature"):
            symbolic = True
    if symbolic:
        return np.asarray(pm.draw(graph, draws=n, random_seed=seed, mode="FAST_COMPILE"))
    return np.asarray(pytensor.function([], vectorize_graph(graph, batched), mode="FAST_COMPILE")())


def _n(graph) -> int:
    symbolic = any(v.owner is not None and not isinstance(v.owner.op, RandomVariable)
                   and hasattr(v.owner.op, "extended_signature") for v in ancestors([graph]))
    return 2000 if symbolic else 20000


def _check_marginal(ref, support, atoms, x: np.ndarray) -> None:
    """A chi-square test of the draws against the reference: one cell per point mass (of at least five
    expected draws) and twenty cells of the continuous part (between quantiles of the draws, their
    expected counts by quadrature); the test's p-value must exceed 1e-6."""
    n = x.size
    assert all(np.isfinite(ref(np.float64(t))) for t in x[:500]), "a draw outside the reference's support"
    observed, expected = [], []
    at_atom = np.isin(x, np.asarray(atoms, dtype=float))
    rare_p, rare_seen = 0.0, int(at_atom.sum())
    for a in atoms:
        p = float(np.exp(ref(np.float64(a))))
        if n * p >= 5:
            observed.append(int(np.sum(x == a)))
            expected.append(n * p)
            rare_seen -= observed[-1]
        else:
            rare_p += p
    assert rare_seen <= 5 + 5 * n * rare_p, "draws at point masses the reference makes rare"
    if support is not None:
        rest = x[~at_atom]
        edges = np.unique(np.quantile(rest, np.linspace(0.0, 1.0, 21)[1:-1]))
        cdf = [0.0] + [_mass(ref, support, (), upto=e) for e in edges] + [_mass(ref, support, ())]
        observed.extend(np.bincount(np.searchsorted(edges, rest, side="left"), minlength=len(edges) + 1))
        expected.extend(n * np.diff(cdf))
    observed_a, expected_a = np.asarray(observed, float), np.asarray(expected, float)
    assert np.all(expected_a > 0), "the reference gives no mass where the draws are"
    chi2 = float(np.sum((observed_a - expected_a) ** 2 / expected_a))
    assert stats.chi2.sf(chi2, max(len(observed) - 1, 1)) > 1e-6, f"chi-square {chi2:.1f} on {len(observed) - 1} degrees of freedom"


@pytest.mark.parametrize("case", NEW, ids=_ids)
def test_references_match_draws(case):
    graph, givens = case.build()
    x = draws(graph, givens, _n(graph))
    if not case.check:
        _check_marginal(case.reference, case.support, case.atoms, x)
    elif case.check == "elementwise":
        flat = x.reshape(x.shape[0], -1)
        for i in range(flat.shape[1]):
            _check_marginal(_entry(case, i), case.support, case.atoms, flat[:, i])
    elif case.check == "joint":
        # E[q(X) / p(X)] = 1 for X drawn from p and any density q: a Gaussian fit to the draws
        logp = np.array([np.sum(case.reference(d)) for d in x])
        assert np.all(np.isfinite(logp))
        flat = x.reshape(x.shape[0], -1)
        q = stats.multivariate_normal(flat.mean(0), np.cov(flat.T))
        ratio = np.exp(q.logpdf(flat) - logp)
        assert abs(ratio.mean() - 1.0) < 0.05
    else:  # singular: every draw is on the broadcast's support
        assert all(np.isfinite(case.reference(d)) for d in x[:500])


@pytest.mark.parametrize("case", NEW, ids=_ids)
def test_the_kind_is_what_stock_pymc_does(case):
    """``fails`` and ``underivable``: stock raises; ``control``: stock is right; ``wrong``: stock
    returns a density that is wrong at one of the points or raises when evaluated."""
    from test_pymc_logp import _derive

    try:
        lp, value, inputs = _derive(pm.logp, case)
    except (NotImplementedError, RuntimeError, ValueError):
        assert case.kind in ("fails", "underivable")
        return
    assert case.kind in ("control", "wrong")
    fn = pytensor.function([value, *inputs], lp, mode="FAST_COMPILE", on_unused_input="ignore")
    right = []
    for v in case.values:
        try:
            got = np.sum(fn(np.asarray(v, dtype=value.dtype), *inputs.values()))
        except (ValueError, RuntimeError, TypeError, AssertionError):  # a density that raises: wrong
            right.append(False)
            continue
        ref = np.sum(case.reference(np.asarray(v)))
        right.append(bool(np.isclose(got, ref, rtol=1e-6, atol=1e-9) or (np.isneginf(got) and np.isneginf(ref))))
    assert all(right) == (case.kind == "control"), right
