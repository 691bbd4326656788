"""What `mkdocs serve` shows when a save breaks the build: the error in the terminal and on the open page.

MkDocs' server waits for a good build before it answers the open tab again (a failed rebuild leaves the
tab stale and a reload hanging). The plugin's builder (on_serve) catches the failure instead, puts back
the pages the failed build rewrote, and writes the error, with its file:line, at the top of every page
of the served site; the server then reloads the open tab, which shows the error above its last good
content. The next build takes the error off first, so a good save shows the fixed page.
"""

from __future__ import annotations

import html
import logging
import os
import signal
import threading
from pathlib import Path

from anatomia_engine import messages as M

BANNER_CLASS = "anatomia-build-error"

# Inline, not in the theme's CSS: the banner must show on a page whatever its styles are.
# White on dark red reads in the light and the dark scheme; sticky keeps it in view.
_STYLE = ";".join([
    "position:sticky",
    "top:0",
    "z-index:1000",
    "margin:0",
    "padding:.8rem 1rem",
    "background:#b71c1c",
    "color:#fff",
    "font:0.8rem/1.4 monospace",
    "max-height:50vh",
    "overflow:auto",
])
_PRE_STYLE = "margin:0;white-space:pre-wrap;color:inherit;background:none"
_TITLE_STYLE = "margin:0 0 .4rem;font-weight:bold"


class Problems(logging.Handler):
    """Collects what a build reports at WARNING or above (MkDocs' strict mode fails on warnings)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def banner(text: str) -> bytes:
    """The error as the top of a page: an alert a screen reader announces, readable in both
    schemes."""
    title = html.escape(M.text("serve_failed"))
    parts = [
        f'<div class="{BANNER_CLASS}" role="alert" style="{_STYLE}">',
        f'<p style="{_TITLE_STYLE}">{title}</p>',
        f'<pre style="{_PRE_STYLE}">{html.escape(text)}</pre>',
        "</div>",
    ]
    return "".join(parts).encode()


def _body_start(data: bytes) -> int:
    """Where the content of the page's <body> starts (0 for a page without one)."""
    if b"<body" not in data:
        return 0
    return data.find(b">", data.find(b"<body")) + 1


class EndLikeCtrlC:
    """Under `mkdocs serve`, SIGTERM and SIGHUP end the server as Ctrl-C does.

    MkDocs cleans up only when serving ends with KeyboardInterrupt: it stops the server, calls
    every plugin's on_shutdown and removes the site's temporary folder. By default the two signals a
    server commonly gets besides Ctrl-C (`kill`, a closed terminal) end Python at once, and every
    temporary folder of the server (MkDocs' site, the made files, the notebook's copies) stays
    behind. Here they raise KeyboardInterrupt in the main thread instead, the path MkDocs handles.
    SIGKILL cannot be caught: what it leaves is the operating system's to clean.
    """

    SIGNALS = (signal.SIGTERM, signal.SIGHUP)

    def __init__(self) -> None:
        # signal -> the handler it had (put back by `restore`)
        self.previous: dict[int, object] = {}

    def install(self) -> None:
        """Catch the signals; only the main thread may (a plugin driven from a test thread may not)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for number in self.SIGNALS:
            # kept to put back: a process that goes on after serving (a test, a wrapper) gets its
            # own handling again
            self.previous[number] = signal.signal(number, _interrupt)

    def restore(self) -> None:
        """Put the handlers back (the server has stopped)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for number, handler in self.previous.items():
            signal.signal(number, handler)
        self.previous = {}


def _interrupt(number, frame) -> None:
    """A signal handler: end what the main thread runs as Ctrl-C would."""
    # Python runs handlers in the main thread, where MkDocs' serve loop waits: the exception
    # reaches its `except KeyboardInterrupt`, and the signal's name says what ended it
    raise KeyboardInterrupt(signal.Signals(number).name)


class Shown:
    """The served site's pages as the last good build left them, while a failure is shown on them."""

    def __init__(self) -> None:
        # a page the current build may rewrite: its bytes and modification time
        self.kept: dict[Path, tuple[bytes, int]] = {}
        # a page under the error banner, as it was without it
        self.covered: dict[Path, tuple[bytes, int]] = {}

    @staticmethod
    def _read(path: Path) -> tuple[bytes, int]:
        return path.read_bytes(), path.stat().st_mtime_ns

    @staticmethod
    def _write(path: Path, data: bytes, mtime_ns: int) -> None:
        path.write_bytes(data)
        # its age is what a --dirty build compares: a page put back is not out of date
        os.utime(path, ns=(mtime_ns, mtime_ns))

    def keep(self, paths) -> None:
        """Remember the good pages a build is about to render again (`paths`: their HTML files)."""
        self.kept = {}
        for name in paths:
            path = Path(name)
            # a page new in this build has nothing to put back
            if path.is_file():
                self.kept[path] = self._read(path)

    def put_back(self) -> None:
        """After a failed build: the pages it rewrote as they were."""
        for path, (data, mtime) in self.kept.items():
            self._write(path, data, mtime)
        self.kept = {}

    def show(self, site_dir: Path, text: str) -> None:
        """The error at the top of every page of the site."""
        top = banner(text)
        for path in sorted(Path(site_dir).rglob("*.html")):
            # a page covered by an earlier failure is covered again from its own bytes
            data, mtime = self.covered.get(path) or self._read(path)
            self.covered[path] = (data, mtime)
            at = _body_start(data)
            self._write(path, data[:at] + top + data[at:], mtime)

    def clear(self) -> None:
        """Before the next build: every page without the banner, as the last good build left it."""
        for path, (data, mtime) in self.covered.items():
            # a page the failed build had not written yet is gone: nothing to clear
            if path.is_file():
                self._write(path, data, mtime)
        self.covered = {}
