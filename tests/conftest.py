"""Fixtures of every tier. The tiers are the folders: tests/unit (no build, no browser),
tests/site (the shared build of the real site, tests/site/fixture for error paths) and
tests/browser (Chromium on the shared build). Helpers for building live in tests/helpers.py."""

import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

from helpers import start_session_site, stop_session_site
from tests import strategies  # noqa: F401  (loads the hypothesis profile for every test)

SESSION_DIR = pytest.StashKey[Path]()   # where the session build of the real site goes


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, fresh for every test (never a global seed)."""
    return np.random.default_rng(20240612)


def pytest_collection_finish(session):
    """Start the session build of the real site as soon as a collected test needs it, so that it
    runs on the second core while the unit tier runs."""
    if any("built_site" in getattr(item, "fixturenames", ()) for item in session.items):
        session.config.stash[SESSION_DIR] = Path(tempfile.mkdtemp(prefix="anatomia-session-"))
        start_session_site(session.config.stash[SESSION_DIR] / "site")


def pytest_sessionfinish(session):
    stop_session_site()
    shutil.rmtree(session.config.stash.get(SESSION_DIR, Path("/nonexistent")), ignore_errors=True)
