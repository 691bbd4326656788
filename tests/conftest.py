"""Shared pytest fixtures. Helpers for building live in tests/helpers.py."""

from pathlib import Path

import numpy as np
import pytest

from helpers import CHROMIUM, REPO, chromium, mkdocs_build, serving


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, fresh for every test (never a global seed)."""
    return np.random.default_rng(20240612)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """A fresh strict build of the real site (computations come from the shared cache)."""
    site = tmp_path_factory.mktemp("site")
    proc = mkdocs_build(REPO, site)
    assert proc.returncode == 0, f"mkdocs build failed:\n{proc.stdout}\n{proc.stderr}"
    return site


@pytest.fixture(scope="module")
def server(built_site) -> str:
    """The fresh build served on a free port of 127.0.0.1; the base URL."""
    with serving(built_site) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium; the browser tests are skipped (with the reason) without it."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (install Debian's chromium; .ci/run does)")
    with chromium() as b:
        yield b
