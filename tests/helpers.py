"""Helpers for tests that build the site: the repo path, project copies, strict builds."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
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


# --- the browser tests' plumbing ---------------------------------------------------------

CHROMIUM = Path(shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@contextlib.contextmanager
def serving(directory: Path, port: int = 0, handler: type = _QuietHandler):
    """Serve `directory` over HTTP on 127.0.0.1 (`port` 0: a free one) with `handler` (a
    SimpleHTTPRequestHandler); yields the base URL."""
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@contextlib.contextmanager
def chromium():
    """Debian's headless Chromium driven by playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def whole_page(path: Path) -> str:
    """A built page's HTML."""
    return path.read_text(encoding="utf-8")
