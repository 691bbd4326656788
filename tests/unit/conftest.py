"""Fixtures of the unit tier shared by several test files (pytest finds them by name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from anatomia_engine import runner
from tests.module_runs import fresh


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The folder of a test file's mini projects: one worker serves all its tests, kept between
    runs as under `mkdocs serve` (each new worker imports NumPy and matplotlib, ~1 s CPU)."""
    root = tmp_path_factory.mktemp("runner") / "mini"
    root.mkdir()
    yield root
    runner.stop_worker()


@pytest.fixture
def mini(project) -> Path:
    return fresh(project)
