"""Two builds of the real site, the second cold and from another working directory, with another
environment variable set and another hash seed, publish byte-identical sites."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import copy_project


def _build(project: Path, site: Path, cwd: Path, **env: str) -> None:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | env
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(project / "mkdocs.yml"),
         "--site-dir", str(site)],
        cwd=cwd, env=environment, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_a_cold_build_elsewhere_with_another_environment_gives_the_same_site(tmp_path):
    project = copy_project(tmp_path / "proj")
    _build(project, tmp_path / "a", project, PYTHONHASHSEED="1")
    shutil.rmtree(project / ".cache")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _build(project, tmp_path / "b", elsewhere, PYTHONHASHSEED="2", ANATOMIA_UNRELATED="1", LC_ALL="C.UTF-8")
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert sorted(a) == sorted(b)
    differ = [name for name in a if a[name] != b[name]]
    assert not differ, differ[:20]
