"""A cold build of the real site from another working directory, with another environment variable
set and another hash seed, publishes the same bytes as the session build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import copy_project


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_a_cold_build_elsewhere_with_another_environment_gives_the_same_site(built_site, tmp_path):
    project = copy_project(tmp_path / "proj")
    shutil.rmtree(project / ".cache", ignore_errors=True)   # recompute everything from scratch
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment |= {"PYTHONHASHSEED": "2", "ANATOMIA_UNRELATED": "1", "LC_ALL": "C.UTF-8"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(project / "mkdocs.yml"),
         "--site-dir", str(tmp_path / "site")],
        cwd=elsewhere, env=environment, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    first, second = _files(built_site), _files(tmp_path / "site")
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, differ[:20]
    assert any(name.endswith(".svg") for name in first)
