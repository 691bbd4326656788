"""Fixtures of every tier. The tiers are the folders: tests/unit (no build, no browser),
tests/site (the shared build of the real site, tests/site/fixture for error paths) and
tests/browser (Chromium on the shared build). Helpers for building live in tests/helpers.py."""

import os
import shutil
import tempfile

import numpy as np
import pytest

from helpers import SESSION_ENV, start_session_site, stop_session_site
from tests import strategies  # noqa: F401  (loads the hypothesis profile for every test)


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, fresh for every test (never a global seed)."""
    return np.random.default_rng(20240612)


def pytest_configure(config):
    """The process that runs pytest makes the session build's folder; xdist workers inherit it."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        os.environ[SESSION_ENV] = tempfile.mkdtemp(prefix="anatomia-session-")


def pytest_unconfigure(config):
    if "PYTEST_XDIST_WORKER" not in os.environ:
        shutil.rmtree(os.environ.pop(SESSION_ENV), ignore_errors=True)


TIER_ORDER = {"site": 0, "browser": 1, "unit": 2}


def pytest_collection_modifyitems(config, items):
    """Longest first: the site tier (files that build copies of the project), then the browser
    tier, then the many short unit files, so that with one file per xdist worker no long file is
    left to run alone at the end. Within a tier the collection order stays."""
    items.sort(key=lambda item: TIER_ORDER.get(item.path.parent.name, 2))


def pytest_collection_finish(session):
    """Start the session build of the real site as soon as a collected test needs it, so that it
    runs beside the unit tier."""
    if any("built_site" in getattr(item, "fixturenames", ()) for item in session.items):
        start_session_site()


def pytest_sessionfinish(session, exitstatus):
    """A build another xdist worker may still need is waited for, unless the run was stopped."""
    others = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1
    stop_session_site(wait=others and exitstatus != pytest.ExitCode.INTERRUPTED)
