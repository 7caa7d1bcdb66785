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
