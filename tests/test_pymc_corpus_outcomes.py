"""``relations.pymc.logp`` on the PyMC corpus (``tests/pymc_corpus.py``): never a wrong density returned
silently, and each case as its kind asks but for the misses named here with their reason.

The benchmark (``benchmarks/pymc_corpus.py``) prints the same outcomes as a table, with stock's beside.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pm = pytest.importorskip("pymc", reason="PyMC 6 needs Python >= 3.12 (PyTensor 3.3): relations.pymc is not tested here")

import pytensor  # noqa: E402

import relations.pymc as rpm  # noqa: E402
from pymc_corpus import CORPUS_NEW, HELDOUT  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:RandomVariable Ops will stop hiding the rng output:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Calling a RandomVariable without an explicit rng:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:divide by zero encountered:RuntimeWarning"),
]

#: case -> why ``relations.pymc.logp`` still raises where its kind asks for a density
MISSES = {
    "sum(v * [1, 2, 3])": "a weighted sum is no transform of one iid vector: no equal form PyMC derives",
    "dot([1, 2, 3], v)": "a weighted sum is no transform of one iid vector: no equal form PyMC derives",
    "v[0] + v[1] + v[3] (of 4)": "sum(v[[0, 1, 3]]) is equal, but PyMC's derivation of it fails",
    "max(m, axis=-1) (3x4 iid normals)": "PyMC derives no partial max, nor a stack or join of row maxima",
    "x * (x > 0) (ReLU as a product)": "no relation for a product with a comparison",
    "stack([x0, x0 + e1, x0 + e1 + e2]) (separate draws)": "draws of different laws: not iid, not merged",
}
CASES = CORPUS_NEW + HELDOUT


def _matches(got, ref) -> bool:
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    if got.shape != ref.shape:  # a joint reference: the joint value
        got, ref = np.sum(got), np.sum(ref)
    return bool(np.all(np.isclose(got, ref, rtol=1e-6, atol=1e-9) | (np.isneginf(got) & np.isneginf(ref))))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_a_density_is_right_or_refused_never_wrong(case):
    graph, givens = case.build()
    value = graph.type()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lp = rpm.logp(graph, value)
    except (NotImplementedError, rpm.DensityMismatch, ValueError) as err:
        if case.kind == "fails":
            assert case.name in MISSES, f"{case.name}: {type(err).__name__}: {str(err)[:200]}"
        assert case.kind != "control", f"a control is refused: {err}"
        return
    assert case.kind != "underivable" or case.name not in MISSES
    fn = pytensor.function([value, *givens], lp, mode="FAST_COMPILE", on_unused_input="ignore")
    checks = [(givens, case.reference)] + ([case.extra["also"]] if "also" in case.extra else [])
    for inputs, reference in checks:
        for v in case.values:
            got = fn(np.asarray(v, dtype=value.dtype), *inputs.values())
            assert _matches(got, reference(np.asarray(v))), (case.name, v, got)
    assert case.name not in MISSES, f"{case.name} derives now: take it off MISSES"
