"""Shared pytest fixtures. Keep this file small; topic-specific helpers live in the test files."""

import numpy as np
import pytest


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, fresh for every test (never a global seed)."""
    return np.random.default_rng(20240612)
