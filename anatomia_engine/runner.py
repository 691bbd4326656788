"""Run the figures_src modules whose inputs changed, each in a fresh process, within a time limit.

A module's store entry (what its run read, its result, its figure files) is used while what it read
is unchanged; the others run in the worker (worker.py). A run that fails or passes its time limit
(`TIME_LIMIT = <s>`, else $ANATOMIA_MODULE_TIMEOUT, else 300 s) stops the build. Run one module by hand:

    .venv/bin/python -m anatomia_engine.runner figures_src.worked_example
"""

import atexit
import contextlib
import json
import logging
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mkdocs.exceptions import BuildError

from anatomia_engine import codec, deps, store, worker
from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError
from anatomia_engine.worker import CURRENT, ENTRY, ERROR, OUTPUT

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "figures_src"
DEFAULT_TIME_LIMIT = 300.0
TIME_LIMIT_ENV = "ANATOMIA_MODULE_TIMEOUT"
# One BLAS thread per process: modules run side by side on every core, and sums stay machine-independent.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

log = logging.getLogger("anatomia_engine.runner")
_engine_log = logging.getLogger("anatomia_engine")
if not _engine_log.handlers:   # MkDocs shows only its own loggers; say it the way it does
    _engine_log.addHandler(logging.StreamHandler())
    _engine_log.handlers[0].setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))


class ComputeError(BuildError):
    """A figures_src module failed; the message names the module and function."""


@dataclass(frozen=True, eq=False)
class ModuleResult:
    """One module's result (codec.decode), its figure files and what its run read."""

    contents: dict[str, str]
    inputs: list[Path]
    values: dict        # name -> decoded value (number, str, np.ndarray, list/dict, kit.Table)
    meta: dict          # name -> {"function", "what", "cite", "axes"}
    figures: dict       # name -> {"files": {style or "csv": filename}, "alt", "caption", "table": encoded}


def module_names(root: Path = ROOT) -> list[str]:
    """The article modules: figures_src/*.py whose names do not start with '_'."""
    return sorted(p.stem for p in (root / PACKAGE).glob("*.py") if not p.stem.startswith("_"))


def _source(name: str, root: Path) -> bytes:
    path = root / PACKAGE / f"{name}.py"
    return path.read_bytes() if path.is_file() else b""


def time_limit(name: str, root: Path = ROOT) -> float:
    """Seconds `name` may run: its own `TIME_LIMIT`, else $ANATOMIA_MODULE_TIMEOUT, else the default."""
    own = re.search(rb"^TIME_LIMIT\b.*$", _source(name, root), re.MULTILINE)
    if own:  # any other spelling would silently run under the default limit
        seconds = re.fullmatch(rb"TIME_LIMIT *= *([0-9]+(?:\.[0-9]*)?) *(?:#.*)?", own[0].rstrip())
        if not (seconds and float(seconds[1]) > 0):
            raise ComputeError(M.text("bad_module_time_limit", where=f"{PACKAGE}/{name}.py",
                                      line=own[0].decode(errors="replace")))
        return float(seconds[1])
    env = os.environ.get(TIME_LIMIT_ENV)
    with contextlib.suppress(ValueError):
        if float(env or DEFAULT_TIME_LIMIT) > 0:
            return float(env or DEFAULT_TIME_LIMIT)
    raise ComputeError(M.text("bad_time_limit", env=TIME_LIMIT_ENV, value=env))


def worker_environment(root: Path) -> dict[str, str]:
    """The environment modules run in (what a record's variables are compared with)."""
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg", PYTHONHASHSEED="0", **ONE_THREAD)


def _tail(path: Path, limit: int = 3000) -> str:
    with contextlib.suppress(OSError):
        return path.read_text(encoding="utf-8", errors="replace")[-limit:].rstrip()
    return ""


def _started_with(root: Path) -> tuple:
    """What a kept worker must have been started with (Python reads PYTHON* before anything records)."""
    return root, {k: v for k, v in worker_environment(root).items() if k.startswith("PYTHON")}


class _Worker:
    """The worker process (worker.py); it ends when its input is closed."""

    def __init__(self, root: Path):
        self.key = _started_with(root)
        self.log = tempfile.NamedTemporaryFile()   # its stderr; stdout unbuffered: select() sees every line
        self.proc = subprocess.Popen(
            [sys.executable, "-c", worker.BOOT, str(root)], cwd=root, env=worker_environment(root),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, start_new_session=True, bufsize=0)
        self.preloaded = self._reply(300)   # its first line: the record of the files it imported

    def _reply(self, patience: float, waiting: str = "") -> dict:
        """The worker's next JSON line; ComputeError if it ended or stayed silent for `patience` s."""
        if not select.select([self.proc.stdout], [], [], patience)[0]:
            self.end()
            doing = f"still running: {waiting}" if waiting else "starting"
            raise ComputeError(M.text("worker_silent", seconds=patience, doing=doing))
        line = self.proc.stdout.readline()
        if not line:
            said = _tail(Path(self.log.name))
            self.end()
            status = self.proc.returncode
            ended = (M.text("worker_ended", status=status, modules=waiting) if waiting
                     else M.text("worker_no_start", status=status))
            raise ComputeError(f"{ended}\n{said}")
        return json.loads(line)

    def run(self, requests: list[dict], patience: float) -> dict[str, dict]:
        """{id: {"status": exit status, "peak_kib": its peak memory}} for every request; the children
        enforce their time limits."""
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.write(json.dumps(requests).encode() + b"\n")
        replies: dict[str, dict] = {}
        while len(replies) < len(requests):
            waiting = ", ".join(r["id"] for r in requests if r["id"] not in replies)
            reply = self._reply(patience, waiting)
            replies[reply["id"]] = reply
        return replies

    def usable(self, root: Path) -> bool:
        """Still running, for this project, and what it read while starting unchanged."""
        return (self.key == _started_with(root) and self.proc.poll() is None
                and deps.problem(self.preloaded, root, worker_environment(root)) is None)

    def end(self) -> None:
        """Close its input (it ends once idle); kill it if it does not."""
        self.proc.stdin.close()
        self.proc.stdout.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.log.close()


_kept: list[_Worker] = []   # the worker kept between builds (compute's keep_worker)


@atexit.register
def stop_worker() -> None:
    """End the worker kept between builds, if any."""
    while _kept:
        _kept.pop().end()


def _memory_mib() -> int:
    """This machine's memory in MiB (what a module killed for lack of memory is compared with)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20


def _failure(name: str, work: Path, status: int, limit: float, peak_kib: int = 0) -> str:
    """The message for a run that did not produce a result."""
    where = f"{PACKAGE}/{name}.py"
    current = _tail(work / CURRENT) or f"{PACKAGE}.{name} (import)"
    if status == -signal.SIGALRM:
        message = M.text("time_limit", where=where, limit=limit, current=current, env=TIME_LIMIT_ENV)
    elif (work / ERROR).exists():
        error = _tail(work / ERROR, 8000)
        message = error if error.startswith(where) else f"{where} failed:\n{error}"
    elif status == -signal.SIGKILL:   # what the kernel's out-of-memory killer sends
        message = M.text("killed_memory", where=where, current=current, peak=peak_kib // 1024,
                         total=_memory_mib())
    elif status < 0:
        message = M.text("killed", where=where, signal=signal.Signals(-status).name, status=status,
                         current=current)
    else:
        message = M.text("ended_early", where=where, status=status, current=current)
    output = _tail(work / OUTPUT, 2000)
    if output and status != -signal.SIGALRM:
        message += "\n  the module printed:\n" + "\n".join("    " + line for line in output.splitlines())
    return f"{message}\n  {M.text('nothing_cached')}"


def entry_name(name: str, root: Path) -> str:
    """The store key of module `name`'s entry: its source and the codec's format."""
    return store.key("figures_src module", str(codec.FORMAT), name, _source(name, root))


def _result(body: dict, root: Path) -> ModuleResult:
    """The result in a store entry's `body`; CodecError if it does not decode."""
    return ModuleResult(body["files"], deps.inputs(body["deps"], root), *codec.decode(body["result"]))


def lookup(name: str, root: Path, kept: store.Store) -> ModuleResult | None:
    """The kept result of module `name` if its record of inputs still holds, else None."""
    key = entry_name(name, root)
    where = f"{PACKAGE}/{name}.py"
    data = kept.get(key, where)
    if data is None:
        return None
    try:
        body = json.loads(data)
        changed = deps.problem(body["deps"], root, worker_environment(root))
        result = None if changed else _result(body, root)
    except (EngineError, ValueError, KeyError, TypeError, AttributeError) as exc:   # (codec's: EngineError)
        log.warning(M.text("result_unreadable", where=where, path=kept.path(key), problem=exc))
        return None
    if changed:
        log.info("%s: runs again: %s", where, changed)
    return result


def _run(names: list[str], root: Path, kept: store.Store, keep_worker: bool) -> dict:
    """Run `names` in the worker; keep each successful result in the store."""
    limits = {n: time_limit(n, root) for n in names}
    order = sorted(names, key=lambda n: -len(_source(n, root)))   # longest source (a guess at the run) first
    with tempfile.TemporaryDirectory(prefix="anatomia-runs-") as tmp:
        requests = [{"id": n, "module": f"{PACKAGE}.{n}", "out": f"{tmp}/{n}", "limit": limits[n],
                     "env": worker_environment(root)} for n in order]
        try:
            if _kept and not (keep_worker and _kept[0].usable(root)):
                stop_worker()
            if not _kept:
                _kept.append(_Worker(root))
            replies = _kept[0].run(requests, max(limits.values()) + 120)
        except BaseException:
            stop_worker()
            raise
        if not keep_worker:
            stop_worker()
        results, errors = {}, []
        for n in names:
            key, work = entry_name(n, root), Path(tmp, n)
            if replies[n]["status"] != 0 or not (work / ENTRY).exists():
                reply = replies[n]
                errors.append(_failure(n, work, reply["status"], limits[n], reply.get("peak_kib", 0)))
                continue
            try:
                data = (work / ENTRY).read_bytes()
                results[n] = _result(json.loads(data), root)
            except (EngineError, OSError, ValueError, KeyError, TypeError) as exc:
                errors.append(M.text("unreadable_result", where=f"{PACKAGE}/{n}.py", problem=exc))
                continue
            kept.put(key, data)
    if errors:
        raise ComputeError("\n\n".join(errors))
    return results


def compute(names: Iterable[str] | None = None, root: Path = ROOT, cache: Path | None = None,
            keep_worker: bool = False) -> tuple[dict[str, ModuleResult], list[str]]:
    """Results for `names` (default: every module, then the store drops what none used) and the names
    that ran. `keep_worker` (`mkdocs serve`): keep the worker between calls."""
    root = Path(root).resolve()
    kept = store.Store(cache or store.folder(root, "computed"), ".json")
    every = names is None
    names = list(module_names(root) if every else names)
    results = {n: found for n in names if (found := lookup(n, root, kept)) is not None}
    stale = [n for n in names if n not in results]
    if stale:
        results.update(_run(stale, root, kept, keep_worker))
    if every:
        kept.prune()
    return {n: results[n] for n in names}, stale


def main(argv: list[str]) -> None:
    """Run one module, print its values, write its figures into a new temporary folder."""
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit(__doc__)
    name = argv[0].removeprefix(PACKAGE + ".")
    root = Path.cwd() if (Path.cwd() / PACKAGE).is_dir() else ROOT
    with tempfile.TemporaryDirectory() as tmp:
        try:
            result = compute([name], root=root, cache=Path(tmp))[0][name]
        except ComputeError as exc:
            sys.exit(str(exc))
    out = Path(tempfile.mkdtemp(prefix=f"{name}-figures-"))
    for filename, text in result.contents.items():
        (out / filename).write_text(text, encoding="utf-8")
    print(*(f"{key} = {value!r}" for key, value in sorted(result.values.items())), sep="\n")
    print(f"figures: {', '.join(sorted(result.figures))} -> {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
