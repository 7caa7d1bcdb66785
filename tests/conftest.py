import os

import pytest
from hypothesis import settings

# CI runs "fast": the same examples every run (a red run names a graph, not a draw);
# "thorough" draws new ones and finds what goes to test_regressions.py
settings.register_profile("fast", max_examples=300, deadline=None, derandomize=True)
settings.register_profile("thorough", max_examples=5000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng(42)


@pytest.fixture(autouse=True, scope="session")
def _measured_outcomes_in_a_temporary_store(tmp_path_factory):
    """The measured stage's store of outcomes (``relations.compile.stabilize.STORE``) in a directory of this
    session: an earlier run's entries must not decide what a test measures."""
    from relations.compile import stabilize
    from relations.compile.outcome_store import OutcomeStore

    kept = stabilize.STORE
    stabilize.STORE = OutcomeStore(tmp_path_factory.mktemp("measured_outcomes"))
    yield
    stabilize.STORE = kept
