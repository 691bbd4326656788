"""Fixtures of every tier. The tiers are the folders: tests/unit (no build, no browser),
tests/site (the shared build of the real site, tests/site/fixture for error paths) and
tests/browser (Chromium on the shared build). Helpers for building live in tests/helpers.py."""

import collections
import math
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


def _rank(item) -> int:
    """Site tests that build projects of their own (while the session build runs), then those that
    read the session build, then the browser tier, then the unit tier."""
    tier = item.path.parent.name
    if tier == "site":
        return int("built_site" in getattr(item, "fixturenames", ()))
    return 2 if tier == "browser" else 3


SECONDS = "anatomia/seconds-per-file"   # pytest's cache (.pytest_cache): each file's time last run
_seconds: collections.Counter = collections.Counter()


def pytest_collection_modifyitems(config, items):
    """Longest first within a rank, so that no long file is left to run alone at the end of a
    parallel run: `--dist loadfile --no-loadscope-reorder` hands files to the workers in this
    order. A file's length is its time in the last run that timed it (a new file counts as
    longest); before any run (a clean clone), a unit file's number of tests, and the other tiers
    keep their order (the one-test site files that build projects would come last). Every worker
    reads the same cache, so all of them collect the same order."""
    files = collections.Counter(item.nodeid.split("::")[0] for item in items)
    last = config.cache.get(SECONDS, {}) if hasattr(config, "cache") else {}
    if not last.keys() & files.keys():
        last = {file: count if file.startswith("tests/unit/") else 0 for file, count in files.items()}
    items.sort(key=lambda item: (_rank(item), -last.get(item.nodeid.split("::")[0], math.inf)))


def pytest_runtest_logreport(report):
    """Each test's phases as they end, in the process that runs pytest (from every xdist worker)."""
    _seconds[report.nodeid.split("::")[0]] += report.duration


def pytest_collection_finish(session):
    """Start the session build of the real site as soon as a collected test needs it, so that it
    runs beside the unit tier."""
    if any("built_site" in getattr(item, "fixturenames", ()) for item in session.items):
        start_session_site()


def pytest_sessionfinish(session, exitstatus):
    """A build another xdist worker may still need is waited for, unless the run was stopped; the
    process that runs pytest keeps each file's time for the next run's order."""
    others = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1
    stop_session_site(wait=others and exitstatus != pytest.ExitCode.INTERRUPTED)
    if "PYTEST_XDIST_WORKER" not in os.environ and _seconds and hasattr(session.config, "cache"):
        session.config.cache.set(SECONDS, session.config.cache.get(SECONDS, {}) | dict(_seconds))
