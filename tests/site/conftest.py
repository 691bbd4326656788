"""The site tier: one strict build of the real site per session, shared with the browser tier."""

from pathlib import Path

import pytest

from helpers import session_site


@pytest.fixture(scope="session")
def built_site() -> Path:
    """The session's strict build of the real site (computations come from the shared cache)."""
    return session_site()
