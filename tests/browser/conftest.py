"""The browser tier: one Chromium and one server of the session's build for every test."""

from pathlib import Path

import pytest

from helpers import CHROMIUM, chromium, serving, session_site


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The same build the site tier uses (tests/helpers.py builds it once per session)."""
    return session_site()


@pytest.fixture(scope="session")
def server(built_site) -> str:
    """The session's build served on a free port of 127.0.0.1; the base URL."""
    with serving(built_site) as base:
        yield base


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium, launched once; the tests are skipped (with the reason)
    without it."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (install Debian's chromium; .ci/run does)")
    with chromium() as b:
        yield b
