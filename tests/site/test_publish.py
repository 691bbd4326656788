"""`make docs` publishes safely: one build at a time, a folder of its own, a checked swap.

Unit tests of anatomia_engine/publish.py, then `make docs` on the fixture project (tests/site/fixture):
two builds started half a second apart, a build killed with SIGKILL, a failing build.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from anatomia_engine import publish
from helpers import REPO, fixture_project

# --- the swap ----------------------------------------------------------------------------


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


# --- the lock ----------------------------------------------------------------------------

HOLDER = """
import os, sys, time
from pathlib import Path
from anatomia_engine import publish
with publish.build_lock(Path(sys.argv[1])):
    child = os.fork()
    if child == 0:          # a forked worker that outlives the build
        time.sleep(120)
        os._exit(0)
    print(child, flush=True)
    time.sleep(120)
"""


def _lock_is_free(root: Path) -> bool:
    code = ("import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR)\n"
            "try:\n    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept OSError:\n    sys.exit(1)\n")
    return subprocess.run([sys.executable, "-c", code, str(root / publish.LOCK_NAME)]).returncode == 0


def test_the_lock_dies_with_the_build_and_is_not_inherited(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE,
                              text=True)
    worker = int(holder.stdout.readline())
    try:
        assert not _lock_is_free(tmp_path)
        assert (tmp_path / publish.LOCK_NAME).read_text().strip() == str(holder.pid)
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        os.kill(worker, 0)   # the forked worker is still alive …
        assert _lock_is_free(tmp_path)   # … and holds no lock
    finally:
        holder.kill()
        holder.wait(timeout=30)
        holder.stdout.close()
        try:
            os.kill(worker, signal.SIGKILL)
        except ProcessLookupError:
            pass


# --- `make docs` on the fixture project ---------------------------------------------------

ENV = dict(os.environ, MAKEFLAGS="")


def _make_docs(project: Path, **popen) -> subprocess.Popen:
    return subprocess.Popen(["make", "-o", ".venv/.installed", "docs"], cwd=project, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def _finish(proc: subprocess.Popen) -> tuple[int, str]:
    out, err = proc.communicate(timeout=900)
    return proc.returncode, out + err


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    """The fixture project with one good `make docs` done; (project, that site's files)."""
    project = fixture_project(tmp_path_factory.mktemp("publish") / "proj")
    shutil.copy(REPO / "Makefile", project / "Makefile")
    (project / ".venv").symlink_to(REPO / ".venv")
    code, output = _finish(_make_docs(project))
    assert code == 0, output[-3000:]
    return project, _tree(project / "site")


def test_the_site_folder_is_readable_like_any_other(project):
    project, _ = project
    mask = os.umask(0o022)
    os.umask(mask)
    assert (project / "site").stat().st_mode & 0o777 == 0o777 & ~mask


def _leftovers(project: Path) -> list[str]:
    return sorted(p.name for p in project.iterdir() if p.name.startswith((".site.tmp", ".site.old")))


def test_two_builds_half_a_second_apart_both_publish_the_whole_site(project):
    project, reference = project
    missing, stop = [], threading.Event()

    def watch():   # site/ must be there, complete, at every moment
        while not stop.is_set():
            if not (project / "site" / "index.html").is_file():
                missing.append(time.monotonic())
            stop.wait(0.002)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        first = _make_docs(project)
        time.sleep(0.5)
        second = _make_docs(project)
        results = [_finish(first), _finish(second)]
    finally:
        stop.set()
        watcher.join()
    for code, output in results:
        assert code == 0, output[-3000:]
        assert "site built: site/index.html" in output
    assert any("another build of this checkout is running" in output for _, output in results)
    assert _tree(project / "site") == reference
    assert not missing, "site/index.html was missing while the builds swapped"
    assert _leftovers(project) == []


def test_a_killed_build_leaves_the_site_and_its_folder_is_removed_next_time(project):
    project, reference = project
    build = _make_docs(project, start_new_session=True)
    try:
        while build.poll() is None:   # wait until it is writing into its own folder
            folders = [p for p in project.glob(".site.tmp.*") if any(p.iterdir())]
            if folders:
                break
            time.sleep(0.02)
        assert build.poll() is None, "the build ended before it could be killed"
        os.killpg(build.pid, signal.SIGKILL)
    finally:
        build.communicate(timeout=60)
    assert build.returncode == -signal.SIGKILL
    assert _tree(project / "site") == reference
    assert _leftovers(project), "the killed build's folder should still be there"
    code, output = _finish(_make_docs(project))
    assert code == 0, output[-3000:]
    assert "left by an interrupted build" in output
    assert _leftovers(project) == []
    assert _tree(project / "site") == reference


def test_a_failed_build_keeps_the_site_and_cleans_up(project):
    project, reference = project
    page = project / "docs" / "index.md"
    original = page.read_text(encoding="utf-8")
    page.write_text(original + "\n{{ nie_ma_takiej_wartosci }}\n", encoding="utf-8")
    try:
        code, output = _finish(_make_docs(project))
    finally:
        page.write_text(original, encoding="utf-8")
    assert code != 0
    assert "nie_ma_takiej_wartosci" in output and "build failed; site/ was left as it was" in output
    assert _tree(project / "site") == reference
    assert _leftovers(project) == []


def test_a_terminated_build_cleans_up_at_once(project):
    project, reference = project
    build = _make_docs(project)
    try:
        while build.poll() is None:   # the build holds the lock and writes into its folder
            folders = [p for p in project.glob(".site.tmp.*") if any(p.iterdir())]
            holder = (project / publish.LOCK_NAME).read_text().strip()
            if folders and holder:
                break
            time.sleep(0.02)
        assert build.poll() is None, "the build ended before it could be stopped"
        os.kill(int(holder), signal.SIGTERM)   # the publishing process itself, not make
    finally:
        _, err = build.communicate(timeout=300)
    assert build.returncode != 0
    assert "build stopped; site/ was left as it was" in err, err[-3000:]
    assert _leftovers(project) == []
    assert _tree(project / "site") == reference
