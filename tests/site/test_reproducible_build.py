"""A build of the real site from another working directory, with another environment variable set,
another hash seed and the other state of the cache, publishes the same bytes as the session build:
when the session build worked everything out (a clean clone), this one replays what it kept; when
the session build reused an earlier build's results, this one works everything out."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from helpers import CORE, copy_project, session_site_was_cold


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_a_build_elsewhere_with_another_environment_and_cache_gives_the_same_site(built_site, tmp_path):
    project = copy_project(tmp_path / "proj")
    cold = not session_site_was_cold()
    if cold:
        shutil.rmtree(project / ".cache", ignore_errors=True)   # recompute everything from scratch
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment |= {"PYTHONHASHSEED": "2", "ANATOMIA_UNRELATED": "1", "LC_ALL": "C.UTF-8"}
    proc = subprocess.run(
        [*CORE, "build", "--strict", "-f", str(project / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        cwd=elsewhere, env=environment, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    # what the build says it did: every module worked out, or every one reused (the notebook runs
    # again either way: LC_ALL, set above, is one of the kernel's inputs)
    assert (" 0 module(s) from cache" in log) == cold and ("figures_src: ran" in log) == cold, log[-3000:]
    assert "docs/laby/lab-3.py: executed in" in log, log[-3000:]
    first, second = _files(built_site), _files(tmp_path / "site")
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, differ[:20]
    assert any(name.endswith(".svg") for name in first)
