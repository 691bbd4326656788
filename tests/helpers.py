"""Helpers for tests that build the site: the repo path, project copies, strict builds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SKIP = {".venv", "site", ".site.tmp", ".site.old", ".git", ".pytest_cache", ".hypothesis",
        "__pycache__", "node_modules", ".ruff_cache"}


def copy_project(dest: Path) -> Path:
    """Copy the project (with its computation cache, without venv/site) to `dest`."""
    shutil.copytree(REPO, dest, ignore=lambda d, names: [n for n in names if n in SKIP])
    (dest / "node_modules").symlink_to(REPO / "node_modules")
    return dest


def mkdocs_build(project: Path, site_dir: Path, *extra: str, timeout: int = 600):
    """`mkdocs build --strict` of `project` with this venv; returns the CompletedProcess."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir), *extra],
        cwd=project, env=env, capture_output=True, text=True, timeout=timeout,
    )
