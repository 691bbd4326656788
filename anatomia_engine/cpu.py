"""Where a build's CPU time goes, measured where each part runs (for `make bench-docs`).

Each part adds what it measured itself: the figures_src modules (the warm worker reports each
child's rusage), the notebook (the kernel reports its own rusage; the client's thread its
thread CPU time), KaTeX (the node process's CPU from /proc, the Python side's thread CPU time),
the lemmatiser's dictionary (its loading thread), the search index and the stylesheet purge
(thread CPU time). Wall-clock marks (`mark`) give the build's timeline.

When the environment variable ANATOMIA_CPU_REPORT names a file, hooks/cpu_report.py writes
there, after the build, a JSON record: {"parts": {name: {"cpu", "seconds"}}, "marks": {name:
epoch seconds}, "self": CPU of the MkDocs process (all its threads)}. Nothing here changes
what the build publishes.
"""

from __future__ import annotations

import contextlib
import os
import resource
import threading
import time
from collections.abc import Iterator

REPORT_ENV = "ANATOMIA_CPU_REPORT"

_lock = threading.Lock()
parts: dict[str, dict[str, float]] = {}
marks: dict[str, float] = {}


def add(part: str, cpu: float | None, seconds: float | None = None) -> None:
    """Add `cpu` (user + system seconds) and `seconds` (wall-clock) to `part`."""
    with _lock:
        entry = parts.setdefault(part, {"cpu": 0.0, "seconds": 0.0})
        entry["cpu"] += cpu or 0.0
        entry["seconds"] += seconds or 0.0


def mark(name: str, first: bool = False) -> None:
    """Remember when `name` happened (epoch seconds); `first`: keep an earlier mark of that name."""
    with _lock:
        if not (first and name in marks):
            marks[name] = time.time()


@contextlib.contextmanager
def thread_part(part: str, children: str | None = None) -> Iterator[None]:
    """Add the CPU time this thread spends in the block (and its wall-clock time) to `part`;
    with `children`, add to that part the CPU of the child processes waited for meanwhile (use
    it only where no other thread waits for children at the same time)."""
    cpu, wall, waited = time.thread_time(), time.perf_counter(), children_cpu()
    try:
        yield
    finally:
        add(part, time.thread_time() - cpu, time.perf_counter() - wall)
        if children is not None:
            add(children, children_cpu() - waited)


def children_cpu() -> float:
    """User + system CPU seconds of this process's children that have ended and been waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of the running process `pid` (Linux /proc), else None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def own_cpu() -> float:
    """User + system CPU seconds of this process (every thread), children not included."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def reset() -> None:
    with _lock:
        parts.clear()
        marks.clear()
