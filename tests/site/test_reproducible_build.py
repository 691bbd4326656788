"""The same sources publish the same bytes: a build from another working directory, with another
environment, hash seed, time zone and state of the cache, publishes what the session build did; so do
two cold builds of a checkout after `git clean -fdx`, the second with its clock moved 1 234 days on
(libfaketime, preloaded into the build and every process it starts), in another zone, with other
variables and another hash seed. (Modules and notebook cells cannot read the clock or an unseeded
generator: hermetic.py refuses that; MkDocs' build date comes from the last commit.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import libfaketime

from helpers import CORE, REPO, copy_project, session_site_was_cold


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _differ(first: dict[str, bytes], second: dict[str, bytes]) -> list[str]:
    assert sorted(first) == sorted(second), set(first) ^ set(second)
    return [name for name in first if first[name] != second[name]]


def _build(project: Path, site: Path, cwd: Path, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SOURCE_DATE_EPOCH")}
    proc = subprocess.run(
        [*CORE, "build", "--strict", "--config-file", str(project / "mkdocs.yml"), "--site-dir", str(site)],
        cwd=cwd, env=environment | env, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    return log


def test_a_build_elsewhere_with_another_environment_and_cache_gives_the_same_site(built_site, tmp_path):
    project = copy_project(tmp_path / "proj")
    (project / ".git").symlink_to(REPO / ".git")   # its last commit dates the build (sources.py)
    cold = not session_site_was_cold()
    if cold:
        shutil.rmtree(project / ".cache", ignore_errors=True)   # recompute everything from scratch
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    log = _build(project, tmp_path / "site", elsewhere, PYTHONHASHSEED="2", ANATOMIA_UNRELATED="1",
                 LC_ALL="C.UTF-8", TZ="Pacific/Kiritimati")
    # what the build says it did: every module worked out, or every one reused (the notebook runs
    # again either way: LC_ALL, set above, is one of the kernel's inputs)
    assert (" 0 module(s) from cache" in log) == cold and ("figures_src: ran" in log) == cold, log[-3000:]
    assert "docs/laby/lab-3.py: executed in" in log, log[-3000:]
    first, second = _files(built_site), _files(tmp_path / "site")
    assert not _differ(first, second), _differ(first, second)[:20]
    assert any(name.endswith(".svg") for name in first)


def _clean_checkout(dest: Path) -> Path:
    """What `git clean -fdx` leaves of this checkout: its tracked files as they are now (no cache, no
    site, no venv); its git metadata, and the installed node packages (make docs would install them)."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    (dest / ".git").symlink_to(REPO / ".git")
    (dest / "node_modules").symlink_to(REPO / "node_modules")
    return dest


# How far the second build's clock is moved: days, so that a date (not only a time of day) differs.
MOVED_DAYS = 1234


def _moved_clock() -> dict[str, str]:
    """The variables that start a process (and every process it starts) with its clock MOVED_DAYS on:
    libfaketime preloaded. The monotonic clock is left alone (timeouts keep working)."""
    _, variables = libfaketime.get_reload_information()
    return {**variables, "FAKETIME": f"+{MOVED_DAYS}d", "DONT_FAKE_MONOTONIC": "1"}


def test_the_moved_clock_moves_a_python_process(tmp_path):
    """The mechanism the build below relies on: a Python started with these variables reads a clock
    MOVED_DAYS on (else the reproducibility test would compare two builds at the same time)."""
    moved = subprocess.run([sys.executable, "-c", "import time; print(time.time())"], capture_output=True,
                           text=True, check=True, env=os.environ | _moved_clock()).stdout
    days = (float(moved) - time.time()) / 86400
    assert MOVED_DAYS - 1 < days < MOVED_DAYS + 1, days


def test_two_cold_builds_of_a_clean_checkout_with_other_settings_give_the_same_site(built_site, tmp_path):
    project = _clean_checkout(tmp_path / "clean")
    _build(project, tmp_path / "one", project)
    assert not (project / "docs" / "laby" / "lab-3.ipynb").exists()          # nothing written into docs/
    shutil.rmtree(project / ".cache")                                        # cold again
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    log = _build(project, tmp_path / "two", elsewhere, PYTHONHASHSEED="12345", TZ="America/Adak",
                 LANG="pl_PL.UTF-8", ANATOMIA_UNRELATED="2", **_moved_clock())
    assert " 0 module(s) from cache" in log, log[-3000:]
    one, two = _files(tmp_path / "one"), _files(tmp_path / "two")
    assert not _differ(one, two), _differ(one, two)[:20]
    assert not _differ(one, _files(built_site)), _differ(one, _files(built_site))[:20]
