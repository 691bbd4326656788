"""Executing the lab notebook in a Jupyter kernel held to the modules' rules.

The kernel records what it reads (deps.py) and refuses what no record reproduces
(hermetic.py: unseeded generators, the clock, the network, other programs, writes into
docs/), as a module's run does. A cell's output is bounded (outputs.py) and may not show
NaN. Every failure names the file and the line of the notebook's source; `stop()` ends
every kernel at once (Ctrl-C, or another part of the build failed).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import signal
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from anatomia_engine import lines
from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError
from anatomia_engine.notebooks import launch, outputs

# (re-exported: the stored entries' check and the package's users name them here)
from anatomia_engine.notebooks.launch import (
    KERNEL,
    LOG_TAIL,
    STARTUP_TIMEOUT,
    kernel_environment,
)

log = logging.getLogger("anatomia_engine.notebooks")

# The notebook's first cell, its execution count 1, after the kernel's warm-up (launch.py): the
# files every execution depends on, noted now, not at the warm-up (a spare kernel is warmed up
# while the author may still edit them).
_START = (
    "for _p in {noted!r}:\n"
    "    _deps.note(_Path(_p))\n"
)
# Run after the last cell: the record and the refusals, as one JSON output to read back.
_REPORT = (
    "from IPython.display import display as _display\n"
    "_display({{'application/json': {{'deps': _deps.snapshot(_Path({root!r})),\n"
    "    'refused': _hermetic.refused, 'cells': _hermetic.cells}}}}, raw=True)\n"
)
# Seconds a cell may run.
CELL_TIMEOUT = 180

# id -> the NotebookClient executing (stop() ends their kernels)
_running: dict[int, object] = {}
_stopping = threading.Event()


# ---------------------------------------------------------------------------------------------
# Starting and stopping
# ---------------------------------------------------------------------------------------------


def stop() -> None:
    """End every running kernel now.

    A cell may run for minutes, and the build must not wait for it. The executing threads end
    with the error `notebook_stopped`.
    """
    _stopping.set()
    for client in list(_running.values()):
        pid = _kernel_pid(client)
        if pid:
            _kill(pid)


def is_running() -> bool:
    """Whether a kernel is executing a notebook now."""
    return bool(_running)


def _end_kernel(client) -> None:
    """End the kernel of `client` now: its execution fails as the kernel dies."""
    pid = _kernel_pid(client)
    if pid:
        _kill(pid)


def _kernel_pid(client) -> int | None:
    # jupyter_client's provisioner knows the kernel's process; before the start, nothing does.
    manager = getattr(client, "km", None)
    provisioner = getattr(manager, "provisioner", None)
    return getattr(provisioner, "pid", None)


def _kill(pid: int) -> None:
    # The kernel runs in a session of its own (jupyter_client): its group takes its children.
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def executing():
    """A thread pool to build notebooks in, waited for on leaving.

    An exception inside (a failed module) or Ctrl-C while waiting ends every kernel first, so
    the build stops now, not after a cell's minutes.
    """
    pool = ThreadPoolExecutor()
    try:
        yield pool
        pool.shutdown(wait=True)
    except BaseException:
        stop()
        pool.shutdown(wait=True)
        raise
    finally:
        _stopping.clear()


def engine_files() -> list[str]:
    """The files of this package: their code makes what a build keeps of an execution, so the
    kernel's record names them, and an edit of any executes the notebook again."""
    return sorted(str(path) for path in Path(__file__).parent.glob("*.py"))


# ---------------------------------------------------------------------------------------------
# Places in the notebook's source
# ---------------------------------------------------------------------------------------------


def cell_line(source: Path, nb, index: int) -> int | None:
    """The line of the notebook's source file where cell `index` starts (None if unknown)."""
    starts = lines.cell_starts(source.read_text(encoding="utf-8").splitlines())
    # Cells the source does not show as cells (a changed file, a test's notebook) have no line.
    if len(starts) != len(nb.cells) or not 0 <= index < len(starts):
        return None
    return starts[index]


def cell_place(where: str, source: Path, nb, index: int, offset: int = 0) -> str:
    """`docs/laby/lab.py:12`, the line `offset` lines into cell `index`, or the file alone."""
    first = cell_line(source, nb, index)
    if not first:
        return where
    return f"{where}:{first + offset}"


# ---------------------------------------------------------------------------------------------
# Executing
# ---------------------------------------------------------------------------------------------


def execute(nb, source: Path, where: str, root: Path) -> dict:
    """Run every cell of `nb` in place, recording in the kernel; return the kernel's record."""
    env = kernel_environment(root)
    # the spare kernel serve keeps ready, if it fits; else one started now, warmed up the same way
    try:
        spare = launch.take(root, where, env, _stopping)
    except KeyboardInterrupt:
        # stopped while the spare still warmed up: it was ended
        raise EngineError("notebook_stopped", where=where) from None
    if spare is not None:
        try:
            return _execute_in(spare, nb, source, where, root, spare=True)
        except _DiedFirst as died:
            log.warning(M.text("spare_kernel_failed", where=where, problem=died))
    return _execute_in(_start(root, where, env), nb, source, where, root)


class _DiedFirst(Exception):
    """The spare kernel died after it was taken, before the notebook's first cell started (it may
    die at any moment, and a dying process still answers `poll()` as alive for a while)."""


def _execute_in(started: launch.Started, nb, source: Path, where: str, root: Path,
                spare: bool = False) -> dict:
    """Run the cells of `nb` in the kernel `started`, and end it; its record."""
    start = _START.format(noted=[str(source), *engine_files()])
    nb.cells.insert(0, nbformat.v4.new_code_cell(start, id="start"))
    report = nbformat.v4.new_code_cell(_REPORT.format(root=str(root)), id="report")
    nb.cells.append(report)
    # the index of the cell running (None: none started yet)
    running = {"index": None}

    def on_cell_start(cell, cell_index):
        running["index"] = cell_index
        if _stopping.is_set():
            raise KeyboardInterrupt

    # nbclient runs the cells in a kernel it was given (`km`), and ends it (`cleanup_kc`) at once
    # when done: it was warmed up, and is read no more after the report
    client = outputs.bounded_client(_end_kernel)(
        nb,
        km=started.km,
        kernel_name=KERNEL,
        timeout=CELL_TIMEOUT,
        startup_timeout=STARTUP_TIMEOUT,
        shutdown_kernel="immediate",
        # Neither timings nor split streams: the same page every build.
        record_timing=False,
        coalesce_streams=True,
        on_cell_start=on_cell_start,
    )
    _running[id(client)] = client
    try:
        if _stopping.is_set():
            raise KeyboardInterrupt
        client.execute(cleanup_kc=True)
    except BaseException as exc:
        _remove_added_cells(nb)
        stopped = _stopping.is_set() or not isinstance(exc, Exception)
        if spare and running["index"] is None and not stopped and not started.alive():
            raise _DiedFirst(started.said(f"{type(exc).__name__}: {exc}")) from None
        # The start cell is no cell of the notebook: its cells count from the next one.
        index = (running["index"] or 0) - 1
        failure = _failure(exc, client, index, started.log, nb, source, where)
        if failure is None:
            raise
        raise failure from None
    finally:
        _running.pop(id(client), None)
        started.end()
        # nbclient registers an atexit clean-up of the kernel before it connects to it, and when
        # the connection fails (a spare that died) it clears the kernel but leaves the clean-up
        # registered: at exit that fails an assertion and prints its traceback after a good build
        # (jupyter/nbclient#126). started.end() has ended the kernel in every case; unregistering
        # a clean-up nbclient already unregistered does nothing.
        atexit.unregister(client._cleanup_kernel)
    _remove_added_cells(nb)
    # The kernel may have ended after the last cell's reply: the bound still stops the build.
    if client.too_much is not None:
        raise _too_much(client, nb, source, where)
    record = _read_report(report, where)
    if record.get("refused"):
        raise _refusal(record, nb, source, where)
    nan = outputs.first_nan(nb)
    if nan is not None:
        index, shown = nan
        raise EngineError("cell_nan", where=cell_place(where, source, nb, index),
                          cell=index + 1, shown=shown)
    return dict(record["deps"])


def _start(root: Path, where: str, env: dict[str, str]) -> launch.Started:
    """A kernel started and warmed up now; `notebook_stopped` or `kernel_failed` if it could not."""
    started = launch.Started(root, where, env)
    # stop() ends it while it starts
    _running[id(started)] = started
    try:
        if _stopping.is_set():
            raise KeyboardInterrupt
        started.start()
    except BaseException as exc:
        stopped = _stopping.is_set() or isinstance(exc, KeyboardInterrupt)
        problem = started.said(f"{type(exc).__name__}: {exc}")
        started.end()
        if stopped:
            raise EngineError("notebook_stopped", where=where) from None
        if not isinstance(exc, Exception):
            raise
        raise EngineError("kernel_failed", where=where, kernel=KERNEL, python=sys.executable,
                          problem=problem) from None
    finally:
        _running.pop(id(started), None)
    return started


def _remove_added_cells(nb) -> None:
    del nb.cells[0]
    del nb.cells[-1]


def _read_report(report, where: str) -> dict:
    """The kernel's record and refusals, from the report cell's one JSON output."""
    records = []
    for output in report.outputs:
        if output.output_type == "display_data" and "application/json" in output.get("data", {}):
            records.append(output.data["application/json"])
    # A cell that redefined display() leaves no report: nothing says what the kernel read.
    readable = len(records) == 1 and isinstance(records[0], dict)
    if not readable or "files" not in records[0].get("deps", {}):
        raise EngineError("kernel_report", where=where, report=f"{report.outputs!r:.300}")
    return records[0]


# ---------------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------------


def _too_much(client, nb, source: Path, where: str) -> EngineError:
    index, size, longest = client.too_much
    # The client counts the start cell too: its index is the cell's number.
    place = cell_place(where, source, nb, index - 1)
    return EngineError("cell_output_size", where=place, cell=index, size=size, line=longest,
                       most=outputs.MAX_OUTPUT, longest=outputs.MAX_LINE)


def _failure(exc: BaseException, client, index: int, kernel_log, nb, source: Path,
             where: str) -> EngineError | None:
    """The error for an execution that stopped with `exc` in cell `index`; None for one to
    raise as it is (a SystemExit of the build's own)."""
    from nbclient.exceptions import CellControlSignal, DeadKernelError

    if _stopping.is_set() or isinstance(exc, KeyboardInterrupt):
        return EngineError("notebook_stopped", where=where)
    # The bound was reached: the interrupt is what made the cell fail.
    if client.too_much is not None:
        return _too_much(client, nb, source, where)
    kernel_log.seek(0)
    if isinstance(exc, (CellControlSignal, DeadKernelError)):
        # A dead kernel says why only in its log.
        if isinstance(exc, DeadKernelError):
            exc.traceback = kernel_log.read()[-LOG_TAIL:]
        if not 0 <= index < len(nb.cells):
            return EngineError("inputs_unread", where=where, problem=exc)
        return _cell_failure(where, source, nb, index, exc)
    if not isinstance(exc, Exception):
        return None
    # The kernel did not start or stopped answering.
    log = textwrap.indent(kernel_log.read()[-LOG_TAIL:].rstrip(), "    ")
    problem = f"{type(exc).__name__}: {exc}\n  kernel log:\n" + log
    return EngineError("kernel_failed", where=where, kernel=KERNEL, python=sys.executable,
                       problem=problem)


def _cell_failure(where: str, source: Path, nb, index: int, error: BaseException) -> EngineError:
    """'docs/laby/lab-3.py:473: notebook cell 13 of 35 failed: …', the cell's source numbered
    with the file's lines, the failing line marked, and the traceback."""
    first = cell_line(source, nb, index)
    traceback = getattr(error, "traceback", "") or ""
    # Terminal colours mean nothing in a build's log.
    traceback = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", traceback)
    # nbclient repeats the cell's source before the traceback: it is shown numbered below.
    traceback = traceback.rsplit("-" * 18 + "\n", 1)[-1].strip("\n")
    failing = re.search(r"^Cell In\[\d+\], line (\d+)", traceback, re.MULTILINE)
    offset = None
    if failing:
        offset = int(failing.group(1)) - 1
    place = where
    heading = "  cell source:"
    if first:
        place = f"{where}:{first + (offset or 0)}"
        heading = f"  cell source (from line {first}):"
    listing = [heading]
    for n, text in enumerate(nb.cells[index].source.splitlines()):
        mark = " "
        if n == offset:
            mark = ">"
        listing.append(f"  {mark}{(first or 1) + n:4d} | {text}")
    if traceback.strip():
        listing.append("  traceback:")
        listing.append(textwrap.indent(traceback.rstrip(), "    "))
    name = f"{getattr(error, 'ename', type(error).__name__)}: {getattr(error, 'evalue', error)}"
    return EngineError("cell_failed", where=place, cell=index + 1, cells=len(nb.cells),
                       error=name, listing="\n".join(listing))


def _refusal(record: dict, nb, source: Path, where: str) -> EngineError:
    """A refusal the kernel recorded: it stops the build even when a cell caught it."""
    code, line = (record.get("cells") or [[None, None]])[0]
    refusal = record["refused"][0]
    index = _cell_of(nb, code)
    if index is None:
        # No cell to point at: the refusal names the notebook itself, or is given its name.
        if refusal.startswith(where):
            return EngineError("kernel_refused", refusal=refusal)
        return EngineError("kernel_refused", where=where, refusal=refusal)
    place = cell_place(where, source, nb, index, (line or 1) - 1)
    return EngineError("cell_refused", where=place, cell=index + 1,
                       refusal=refusal.removeprefix(where + " "))


def _cell_of(nb, code: str | None) -> int | None:
    """The index of the code cell whose source is `code`, or None."""
    if not code:
        return None
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and cell.source.strip() == code.strip():
            return i
    return None
