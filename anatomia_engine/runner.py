"""Run the figures_src modules whose inputs changed, each in a fresh process, within a time limit.

`compute()` takes each module's result from the store while the record of what its last run
read still holds (results.py, deps.py), and runs the others in the warm worker (worker.py),
which forks one child per module (child.py). A module that raises, returns NaN or ±inf
(codec.py), uses a global random generator, writes into docs/, exits early, is killed by a
signal or runs past its time limit stops the build with its name; nothing is kept for a failed
run. Under `mkdocs serve` (`keep_worker`) the worker stays up between rebuilds, and is
restarted as soon as a file it imported changed.

Time limit: DEFAULT_TIME_LIMIT seconds per module; the environment variable
ANATOMIA_MODULE_TIMEOUT sets another default, and a module may set its own with a top-level
`TIME_LIMIT = <seconds>`.

Run one module by hand (prints its values, writes its figures to a temporary folder):

    .venv/bin/python -m anatomia_engine.runner figures_src.worked_example
"""

from __future__ import annotations

import ast
import atexit
import json
import logging
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from anatomia_engine import deps, store
from anatomia_engine.child import CURRENT, DEPS, ERROR, LOCK_FILES, OUTPUT, RESULT
from anatomia_engine.results import ComputeError, ModuleResult, decode_values, lookup, save, scratch
from anatomia_engine.worker import BOOT

__all__ = ["LOCK_FILES", "ComputeError", "ModuleResult", "compute", "decode_values", "module_names",
           "stop_worker"]

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "figures_src"
DEFAULT_TIME_LIMIT = 300.0
TIME_LIMIT_ENV = "ANATOMIA_MODULE_TIMEOUT"
# One BLAS/OpenMP thread per process: modules run side by side on every core already, and the
# arrays are small (threads only add overhead and make sums depend on the machine's core count).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

log = logging.getLogger("anatomia_engine.runner")
_engine_log = logging.getLogger("anatomia_engine")
if not _engine_log.handlers:   # MkDocs shows only its own loggers; say it the way it does
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    _engine_log.addHandler(_handler)


def module_names(root: Path = ROOT) -> list[str]:
    """The article modules: figures_src/*.py whose names do not start with '_'."""
    return sorted(p.stem for p in (root / PACKAGE).glob("*.py") if not p.stem.startswith("_"))


def time_limit(name: str, root: Path = ROOT) -> float:
    """Seconds `name` may run: its own top-level `TIME_LIMIT = <seconds>`, else
    $ANATOMIA_MODULE_TIMEOUT, else DEFAULT_TIME_LIMIT."""
    try:
        body = ast.parse((root / PACKAGE / f"{name}.py").read_bytes()).body
    except (OSError, SyntaxError, ValueError):
        body = []
    for node in body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["TIME_LIMIT"]:
            seconds = getattr(node.value, "value", None)
            if type(seconds) in (int, float) and seconds > 0:
                return float(seconds)
    env = os.environ.get(TIME_LIMIT_ENV)
    try:
        seconds = float(env or DEFAULT_TIME_LIMIT)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise ComputeError(f"{TIME_LIMIT_ENV}={env!r} is not a positive number of seconds")
    return seconds


def worker_environment(root: Path) -> dict[str, str]:
    """The environment modules run in (what a record's variables are compared with)."""
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg", PYTHONHASHSEED="0", **ONE_THREAD)


# --- the worker, from the build's side ----------------------------------------------------------

def _tail(path: Path, limit: int = 3000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-limit:].rstrip()
    except OSError:
        return ""


class _Worker:
    """The warm worker process (worker.py). `run(..., finish=False)` leaves it running for the
    next batch (under `mkdocs serve`, see compute's `keep_worker`)."""

    def __init__(self, root: Path, jobs: int, patience: float = 300.0):
        self.root, self.jobs, self.buffer, self.env = root, jobs, b"", worker_environment(root)
        self.log_path = scratch() / f"worker-{time.time_ns()}.log"
        with self.log_path.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", BOOT, str(root), str(jobs)], cwd=root, env=self.env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, start_new_session=True)
        hello = self._line(patience, "starting")
        if hello is None or "preloaded" not in hello:
            self.kill()
            raise ComputeError(f"the worker running figures_src modules did not start "
                               f"(exit status {self.proc.returncode}):\n{_tail(self.log_path)}")
        self.preloaded: dict = hello["preloaded"]

    def _line(self, patience: float, doing: str) -> dict | None:
        """The next JSON line from the worker; None at its end; ComputeError after `patience` s."""
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + patience
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                self.kill()
                raise ComputeError(f"the worker running figures_src modules stopped answering "
                                   f"(waited {patience:g} s); {doing}")
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def run(self, requests: list[dict], patience: float, finish: bool = True) -> dict[str, dict]:
        """Send every request, collect {id: reply}; the worker enforces the time limits.
        `finish`: close its input afterwards, so it ends once these are answered."""
        try:
            self.proc.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
            self.proc.stdin.flush()
            if finish:
                self.proc.stdin.close()
        except BrokenPipeError:
            pass
        replies: dict[str, dict] = {}
        while len(replies) < len(requests):
            waiting = ", ".join(r["id"] for r in requests if r["id"] not in replies)
            reply = self._line(patience, f"still running: {waiting}")
            if reply is None:
                break
            replies[reply["id"]] = reply
        if finish or len(replies) < len(requests):
            self._close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()
        if len(replies) < len(requests):
            raise ComputeError(f"the worker running figures_src modules ended with exit status "
                               f"{self.proc.returncode} before running "
                               f"{', '.join(r['id'] for r in requests if r['id'] not in replies)}:\n"
                               f"{_tail(self.log_path)}")
        return replies

    def usable(self, root: Path, jobs: int) -> bool:
        """Still running, for this project and environment, and every file it imported unchanged."""
        same = (self.root, self.jobs, self.env) == (root, jobs, worker_environment(root))
        return same and self.proc.poll() is None and deps.problem(self.preloaded, root, self.env) is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self._close()

    def _close(self) -> None:
        for pipe in (self.proc.stdin, self.proc.stdout):
            if not pipe.closed:
                pipe.close()


_kept: list[_Worker] = []   # the worker kept between builds (compute's keep_worker)


def stop_worker() -> None:
    """End the worker kept between builds, if any."""
    while _kept:
        _kept.pop().kill()


atexit.register(stop_worker)


def _failure(name: str, work: Path, reply: dict, limit: float) -> str:
    """The message for a run that did not produce a result."""
    where = f"{PACKAGE}/{name}.py"
    current = _tail(work / CURRENT) or f"{PACKAGE}.{name} (import)"
    status = reply.get("status")
    if reply.get("timed_out"):
        message = (f"{where} did not finish within its time limit of {limit:g} s and was stopped "
                   f"(it was running {current}). Make it faster, or raise the limit: a top-level "
                   f"`TIME_LIMIT = <seconds>` in the module, or {TIME_LIMIT_ENV}=<seconds> for every module.")
    elif (work / ERROR).exists():
        error = _tail(work / ERROR, 8000)
        message = error if error.startswith(where) else f"{where} failed:\n{error}"
    elif isinstance(status, int) and status < 0:
        signame = signal.Signals(-status).name if -status in signal.valid_signals() else f"signal {-status}"
        message = (f"{where}: the process running it was killed by {signame} "
                   f"(exit status {status}) while running {current}.")
    else:
        message = (f"{where}: the process running it ended with exit status {status} before writing "
                   f"its results (while running {current}); a figures_src module must not end the "
                   "process (sys.exit(), os._exit()).")
    output = _tail(work / OUTPUT, 2000)
    if output and not reply.get("timed_out"):
        message += "\n  the module printed:\n" + "\n".join("    " + line for line in output.splitlines())
    return message + "\n  Nothing was cached for this run."


def _run(names: list[str], root: Path, kept: store.Store, jobs: int, keep_worker: bool) -> dict[str, ModuleResult]:
    """Run `names` in the warm worker; keep each successful result in the store."""
    limits = {n: time_limit(n, root) for n in names}
    works = {n: Path(tempfile.mkdtemp(prefix=f"{n}-", dir=scratch())) for n in names}
    sources = {n: root / PACKAGE / f"{n}.py" for n in names}
    # the largest sources, a rough guess of the longest runs, start first
    order = sorted(names, key=lambda n: -sources[n].stat().st_size if sources[n].exists() else 0)
    requests = [{"id": n, "module": f"{PACKAGE}.{n}", "out": str(works[n]), "limit": limits[n],
                 "root": str(root), "docs": str(root / "docs")} for n in order]
    patience = max(limits.values()) + 120
    try:
        if keep_worker:
            if _kept and not _kept[0].usable(root, jobs):
                stop_worker()
            if not _kept:
                _kept.append(_Worker(root, jobs))
            replies = _kept[0].run(requests, patience, finish=False)
        else:
            replies = _Worker(root, jobs).run(requests, patience)
    except BaseException:
        stop_worker()
        for work in works.values():
            shutil.rmtree(work, ignore_errors=True)
        raise
    results: dict[str, ModuleResult] = {}
    errors: list[str] = []
    for n in names:
        work = works[n]
        try:
            if replies[n].get("status") != 0 or replies[n].get("timed_out") or not (work / DEPS).exists():
                raise ComputeError(_failure(n, work, replies[n], limits[n]))
            try:
                output = json.loads((work / RESULT).read_text(encoding="utf-8"))
                files = [f for fig in output["figures"].values() for f in fig["files"].values()]
                results[n] = save(n, root, kept, work, files)
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                raise ComputeError(f"{PACKAGE}/{n}.py: its result cannot be read back: {exc}") from None
        except ComputeError as exc:
            errors.append(str(exc))
            shutil.rmtree(work, ignore_errors=True)
    if errors:
        raise ComputeError("\n\n".join(errors))
    return results


def compute(names: Iterable[str] | None = None, root: Path = ROOT, cache: Path | None = None,
            jobs: int | None = None, keep_worker: bool = False) -> tuple[dict[str, ModuleResult], list[str]]:
    """Results for `names` (default: every module), kept ones where their record of inputs
    still holds; also the names that ran. `keep_worker` (for `mkdocs serve`): keep the warm
    worker between calls, restarted when a file it imported changed."""
    root = Path(root).resolve()
    kept = store.Store(cache or store.folder(root, "computed"), ".json")
    every = names is None
    names = list(module_names(root) if names is None else names)
    environ = worker_environment(root)
    hashes: dict = {}
    results = {n: found for n in names if (found := lookup(n, root, kept, environ, hashes)) is not None}
    stale = [n for n in names if n not in results]
    if stale:
        results.update(_run(stale, root, kept, jobs or os.cpu_count() or 2, keep_worker))
    if every:
        kept.prune()
    return {n: results[n] for n in names}, stale


# --- the command line -----------------------------------------------------------------------------

def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    name = argv[0].removeprefix(PACKAGE + ".")
    root = Path.cwd() if (Path.cwd() / PACKAGE).is_dir() else ROOT
    with tempfile.TemporaryDirectory() as tmp:
        try:
            results, _ = compute([name], root=root, cache=Path(tmp))
        except ComputeError as exc:
            print(exc, file=sys.stderr)
            return 1
    result = results[name]
    for key, value in sorted(result.values.items()):
        print(f"{key} = {value!r}")
    out = Path(tempfile.mkdtemp(prefix=f"{name}-figures-"))
    for filename in result.files:
        shutil.copy(result.folder / filename, out / filename)
    print(f"figures: {', '.join(sorted(result.figures))} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
