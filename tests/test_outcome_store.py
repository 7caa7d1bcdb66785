"""The measured stage's outcomes kept on disk (``relations.compile.outcome_store``): read in a new process,
never read by other code, never half-written."""

import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytensor
import pytensor.tensor as pt
import pytest

from relations.compile import outcome_store
from relations.compile import stabilize as S
from relations.compile.outcome_store import OutcomeStore


def _graph():
    x = pt.dvector("x")
    return x, pt.sigmoid(x) - (1 - pt.sigmoid(x))  # cancels near 0: tanh(x / 2)


@pytest.fixture(scope="module")
def measured_once(tmp_path_factory):
    """A store holding the measurement of :func:`_graph`'s region (measured once for the module's tests)."""
    where = tmp_path_factory.mktemp("store")
    kept = S.STORE
    S.STORE = OutcomeStore(where)
    try:
        S.clear_outcomes()
        first = S.MeasuredBudget()
        S.measured([_graph()[1]], first)
    finally:
        S.STORE = kept
        S.clear_outcomes(store=False)
    assert first.stabilized == 1 and first.replaced == 1 and first.stored == 0
    assert len(list(where.glob("*.pkl"))) == 1
    return where


def _store_from(measured_once, tmp_path, monkeypatch):
    shutil.copytree(measured_once, tmp_path / "store")
    monkeypatch.setattr(S, "STORE", OutcomeStore(tmp_path / "store"))
    S.clear_outcomes(store=False)  # as a new process starts: nothing in memory
    return tmp_path / "store"


def test_a_measurement_is_read_back_instead_of_measured_again(measured_once, tmp_path, monkeypatch):
    _store_from(measured_once, tmp_path, monkeypatch)
    x, out = _graph()
    second = S.MeasuredBudget()
    [(root, new)] = S.measured([out], second)
    assert second.stored == 1 and second.stabilized == 0 and second.replaced == 1
    f = pytensor.function([x], new, mode="FAST_COMPILE")
    at = np.array([1e-20, -0.5, 3.0])
    np.testing.assert_allclose(f(at), np.tanh(at / 2), rtol=1e-15)
    assert new.type == out.type


def test_a_new_process_reads_what_this_one_measured(measured_once):
    script = textwrap.dedent(f"""
        import numpy as np, pytensor, pytensor.tensor as pt
        from relations.compile import stabilize as S
        from relations.compile.outcome_store import OutcomeStore
        S.STORE = OutcomeStore({str(measured_once)!r})
        x = pt.dvector("x")
        budget = S.MeasuredBudget()
        [(root, new)] = S.measured([pt.sigmoid(x) - (1 - pt.sigmoid(x))], budget)
        y = pytensor.function([x], new, mode="FAST_COMPILE")(np.array([1e-20]))[0]
        print(budget.stored, budget.stabilized, budget.replaced, repr(float(y)))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split()[-4:] == ["1", "0", "1", "5e-21"]


def test_other_code_never_reads_an_entry(tmp_path, monkeypatch):
    store = OutcomeStore(tmp_path)
    store.put(("a key",), "kept")
    assert store.get(("a key",)) == "kept"
    monkeypatch.setattr(outcome_store, "_DIGEST", [b"the source of another version"])
    assert store.get(("a key",)) is None


def test_an_unreadable_entry_is_a_miss_and_an_unwritable_store_keeps_nothing(tmp_path):
    store = OutcomeStore(tmp_path)
    store.put(("k",), ("a", "b"))
    [path] = tmp_path.glob("*.pkl")
    path.write_bytes(b"\x80\x04 not a pickle")
    assert store.get(("k",)) is None
    blocked = tmp_path / "a file"
    blocked.write_text("")
    nowhere = OutcomeStore(blocked / "below a file")
    nowhere.put(("k",), "kept")  # no error
    assert nowhere.get(("k",)) is None
    assert not list(tmp_path.glob("*.tmp"))


def test_the_stage_measures_again_where_the_entry_is_unreadable(measured_once, tmp_path, monkeypatch):
    store = _store_from(measured_once, tmp_path, monkeypatch)
    for path in store.glob("*.pkl"):
        path.write_bytes(b"garbage")
    again = S.MeasuredBudget()
    S.measured([_graph()[1]], again)
    assert again.stored == 0 and again.stabilized == 1 and again.replaced == 1
