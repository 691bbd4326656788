"""Run the figures_src modules whose inputs changed, each in a fresh process, within a time limit.

A module's store entry (what its run read, its result, its figure files) is used while what it read
is unchanged; the others run in the worker (worker.py). A run that fails or passes its time limit
(`TIME_LIMIT = <s>`, else $ANATOMIA_MODULE_TIMEOUT, else 300 s) stops the build with an EngineError:
the one its run raised, or the one saying how it ended; several at once are the causes of one
(`modules_failed`). Run one module by hand:

    .venv/bin/python -m anatomia_engine.runner figures_src.worked_example
"""

import atexit
import contextlib
import hashlib
import json
import logging
import os
import pickle
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from anatomia_engine import codec, deps, figure_cache, store, worker
from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError
from anatomia_engine.worker import CURRENT, ENTRY, ERROR, OUTPUT

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "figures_src"
# seconds: the slowest module (the induction training) takes about a tenth of it
DEFAULT_TIME_LIMIT = 300.0
TIME_LIMIT_ENV = "ANATOMIA_MODULE_TIMEOUT"
# One BLAS thread per process: modules run side by side on every core, and sums stay machine-independent.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

log = logging.getLogger("anatomia_engine.runner")
_engine_log = logging.getLogger("anatomia_engine")
# MkDocs shows only its own loggers; say it the way it does
if not _engine_log.handlers:
    _engine_log.addHandler(logging.StreamHandler())
    _engine_log.handlers[0].setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))


@dataclass(frozen=True, eq=False)
class ModuleResult:
    """One module's result (codec.decode), its figure files and what its run read."""

    # file name -> text of each figure file (SVG per style, CSV)
    contents: dict[str, str]
    # what the run read, as absolute paths (what a server watches)
    inputs: list[Path]
    # name -> decoded value (number, str, np.ndarray, list/dict, kit.Table)
    values: dict
    # name -> {"function", "what", "cite", "axes", "at", "limit"}
    meta: dict
    # name -> {"files": {style or "csv": filename}, "alt", "caption", "table": encoded}
    figures: dict
    # the keys of its figures' kept SVGs (figure_cache): kept while this result is used
    drawn: tuple[str, ...] = ()


def module_names(root: Path = ROOT) -> list[str]:
    """The article modules: figures_src/*.py whose names do not start with '_'."""
    names = [path.stem for path in (root / PACKAGE).glob("*.py")]
    # a leading underscore marks a helper the modules import, not a module of its own
    return sorted(name for name in names if not name.startswith("_"))


def _source(name: str, root: Path) -> bytes:
    path = root / PACKAGE / f"{name}.py"
    # a module that is gone has no source: its key is that of an empty one, never stored
    if not path.is_file():
        return b""
    return path.read_bytes()


def time_limit(name: str, root: Path = ROOT) -> float:
    """Seconds `name` may run: its own `TIME_LIMIT`, else $ANATOMIA_MODULE_TIMEOUT, else the default."""
    own = re.search(rb"^TIME_LIMIT\b.*$", _source(name, root), re.MULTILINE)
    if own:
        # any other spelling than a plain number would silently run under the default limit
        seconds = re.fullmatch(rb"TIME_LIMIT *= *([0-9]+(?:\.[0-9]*)?) *(?:#.*)?", own[0].rstrip())
        if not (seconds and float(seconds[1]) > 0):
            line = own[0].decode(errors="replace")
            raise EngineError("bad_module_time_limit", where=f"{PACKAGE}/{name}.py", line=line)
        return float(seconds[1])
    env = os.environ.get(TIME_LIMIT_ENV)
    # an empty variable means "not set", as in a shell's `VAR= make docs`
    with contextlib.suppress(ValueError):
        if float(env or DEFAULT_TIME_LIMIT) > 0:
            return float(env or DEFAULT_TIME_LIMIT)
    raise EngineError("bad_time_limit", env=TIME_LIMIT_ENV, value=env)


def worker_environment(root: Path) -> dict[str, str]:
    """The environment modules run in (what a record's variables are compared with)."""
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    # a fixed hash seed: a module iterating over a set publishes the same order every build
    fixed = {"PYTHONPATH": path, "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", **ONE_THREAD}
    return {**os.environ, **fixed}


def _tail(path: Path, limit: int = 3000) -> str:
    # the end of a log says why it ended; a missing log says nothing
    with contextlib.suppress(OSError):
        return path.read_text(encoding="utf-8", errors="replace")[-limit:].rstrip()
    return ""


def _started_with(root: Path) -> tuple:
    """What a kept worker must have been started with (Python reads PYTHON* before anything records)."""
    python = {k: v for k, v in worker_environment(root).items() if k.startswith("PYTHON")}
    return root, python


class _Worker:
    """The worker process (worker.py); it ends when its input is closed."""

    def __init__(self, root: Path):
        self.key = _started_with(root)
        # its stderr, read when it ends unexpectedly
        self.log = tempfile.NamedTemporaryFile()
        # stdout unbuffered: select() sees every reply line as it is written;
        # a session of its own: killpg ends it with every child it forked, and Ctrl-C reaches the
        # build only, which then ends the worker itself
        self.proc = subprocess.Popen(
            [sys.executable, "-c", worker.BOOT, str(root)],
            cwd=root,
            env=worker_environment(root),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            start_new_session=True,
            bufsize=0,
        )
        # its first line: the record of the files it imported
        self.preloaded = self._reply(300)

    def _reply(self, patience: float, waiting: str = "") -> dict:
        """The worker's next JSON line; EngineError if it ended or stayed silent for `patience` s."""
        if not select.select([self.proc.stdout], [], [], patience)[0]:
            self.end()
            doing = "starting"
            if waiting:
                doing = f"still running: {waiting}"
            raise EngineError("worker_silent", seconds=patience, doing=doing)
        line = self.proc.stdout.readline()
        if not line:
            # its log says why (a traceback, an import that failed)
            said = "\n" + _tail(Path(self.log.name))
            self.end()
            status = self.proc.returncode
            if waiting:
                raise EngineError("worker_ended", status=status, modules=waiting, detail=said)
            raise EngineError("worker_no_start", status=status, detail=said)
        return json.loads(line)

    def send(self, requests: list[dict]) -> None:
        """Start the runs of `requests` (the worker forks their children at once, one per core)."""
        # a worker that died says so in `replies`, with its log
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.write(json.dumps(requests).encode() + b"\n")

    def replies(self, requests: list[dict], patience: float) -> Iterator[dict]:
        """Each sent request's reply, {"id", "status": exit status, "peak_kib": its peak memory},
        as its run ends (the caller reads one result while the others still run); the children
        enforce their time limits."""
        answered: set[str] = set()
        while len(answered) < len(requests):
            waiting = ", ".join(r["id"] for r in requests if r["id"] not in answered)
            reply = self._reply(patience, waiting)
            answered.add(reply["id"])
            yield reply

    def usable(self, root: Path) -> bool:
        """Still running, for this project, and what it read while starting unchanged."""
        if self.key != _started_with(root) or self.proc.poll() is not None:
            return False
        return deps.problem(self.preloaded, root, worker_environment(root)) is None

    def kill(self) -> None:
        """End it now, with every run under way (its process group): runs nobody will read."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
        self.log.close()

    def end(self) -> None:
        """Close its input (it ends once idle); kill it if it does not."""
        self.proc.stdin.close()
        self.proc.stdout.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # a child stuck in C code keeps it waiting: end the whole group
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.log.close()


# the worker kept between builds (compute's keep_worker): `make serve` pays its start-up once
_kept: list[_Worker] = []
# the thread starting a worker while the author reads (prepare_worker), while it runs
_starting: list[threading.Thread] = []
# the runs sent to the worker and not yet read (Runs): the worker answers them in turn
_in_flight: list["Runs"] = []


def prepare_worker(root: Path) -> None:
    """Under `mkdocs serve`: start the worker in the background unless one is kept, so the first
    save that runs a module does not wait for its start-up (NumPy, matplotlib, the fonts: ~1,5 s).
    The next runs take it (Runs waits for a start still under way) or, if what it read has
    changed since, end it and start another. A start that fails is not said here: the build
    that needs a worker starts its own and says why that one failed."""
    if _kept or _starting:
        return

    def start() -> None:
        try:
            _kept.append(_Worker(root))
        except EngineError as exc:
            log.debug("the worker started in the background failed: %s", exc)

    # not a daemon: the interpreter waits for it at exit, and stop_worker then ends the worker
    thread = threading.Thread(target=start, name="anatomia-worker-start")
    _starting.append(thread)
    thread.start()


def _abandon_unread() -> None:
    """End the runs sent to the worker that nobody read, and the worker with them."""
    for runs in list(_in_flight):
        runs.abandon()


def _await_start() -> None:
    """Wait for the worker prepare_worker is starting, if it is."""
    while _starting:
        _starting[0].join()
        _starting.pop(0)


@atexit.register
def stop_worker() -> None:
    """End the worker kept between builds, if any (one still starting once it has started); runs
    still under way that nobody will read end at once (Ctrl-C while a build waits for them)."""
    _abandon_unread()
    _await_start()
    while _kept:
        _kept.pop().end()


def _memory_mib() -> int:
    """This machine's memory in MiB (what a module killed for lack of memory is compared with)."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20


def _ended(name: str, work: Path, status: int, peak_kib: int) -> EngineError:
    """What ended the run of module `name` before it wrote a result (its own error, else how it ended)."""
    where = f"{PACKAGE}/{name}.py"
    current = _tail(work / CURRENT) or f"{PACKAGE}.{name} (import)"
    if (work / ERROR).exists():
        error = pickle.loads((work / ERROR).read_bytes())
        if str(error).startswith(where):
            return error
        # a message that does not name the module (a traceback, a refusal from a library's line)
        return EngineError("module_failed", where=where, causes=[error])
    if status == -signal.SIGKILL:
        # what the kernel's out-of-memory killer sends
        return EngineError("killed_memory", where=where, current=current, peak=peak_kib // 1024,
                           total=_memory_mib())
    if status < 0:
        name = signal.Signals(-status).name
        return EngineError("killed", where=where, signal=name, status=status, current=current)
    return EngineError("ended_early", where=where, status=status, current=current)


def _failure(name: str, work: Path, status: int, limit: float, peak_kib: int = 0) -> EngineError:
    """The error for a run that did not produce a result, with what the module printed."""
    nothing_cached = "\n  " + M.text("nothing_cached")
    if status == -signal.SIGALRM:
        # a module stopped by its time limit may have printed anything, up to the limit
        where = f"{PACKAGE}/{name}.py"
        current = _tail(work / CURRENT) or f"{PACKAGE}.{name} (import)"
        return EngineError("time_limit", where=where, limit=limit, current=current, env=TIME_LIMIT_ENV,
                           detail=nothing_cached)
    printed = ""
    output = _tail(work / OUTPUT, 2000)
    if output:
        lines = ["    " + line for line in output.splitlines()]
        printed = "\n  the module printed:\n" + "\n".join(lines)
    return _ended(name, work, status, peak_kib).followed_by(printed + nothing_cached)


def entry_name(name: str, root: Path) -> str:
    """The store key of module `name`'s entry: its source and the codec's format. (What else the run
    read is in the entry's record, checked on the way out: a key cannot know it beforehand.)"""
    return store.key("figures_src module", str(codec.FORMAT), name, _source(name, root))


def _result(body: dict, root: Path) -> ModuleResult:
    """The result in a store entry's `body`; EngineError if it does not decode."""
    decoded = codec.decode(body["result"])
    # an entry written before figures were kept names none
    drawn = tuple(body.get("drawn", ()))
    return ModuleResult(body["files"], deps.inputs(body["deps"], root), *decoded, drawn=drawn)


@dataclass
class _Read:
    """A store entry as this process last read it: its bytes' digest, its body, its result."""

    digest: str
    body: dict
    # decoded once its record of inputs held
    result: ModuleResult | None = None


# Under `serve` one process makes build after build, and each build looks up every module: an
# entry read before (the same bytes, the same project) is not parsed and decoded again. A module's
# last read entry only; `make docs` reads each entry once.
_read: dict[tuple[str, Path], _Read] = {}


def _remember(name: str, root: Path, data: bytes, body: dict, result: ModuleResult | None) -> _Read:
    read = _Read(hashlib.sha256(data).hexdigest(), body, result)
    _read[(name, root)] = read
    return read


def _entry(name: str, root: Path, data: bytes) -> _Read:
    """The entry of `data` as read before, or parsed now (its result not decoded yet)."""
    read = _read.get((name, root))
    if read is not None and read.digest == hashlib.sha256(data).hexdigest():
        return read
    return _remember(name, root, data, json.loads(data), None)


def lookup(name: str, root: Path, kept: store.Store,
           digests: dict[str, str | None] | None = None) -> ModuleResult | None:
    """The kept result of module `name` if its record of inputs still holds, else None.
    `digests`: the files' digests of this pass over the modules (deps.problem)."""
    key = entry_name(name, root)
    where = f"{PACKAGE}/{name}.py"
    data = kept.get(key, where)
    if data is None:
        return None
    try:
        read = _entry(name, root, data)
        # the record is checked on every build: a file it names may have changed since
        changed = deps.problem(read.body["deps"], root, worker_environment(root), digests)
        if changed:
            log.info("%s: runs again: %s", where, changed)
            return None
        if read.result is None:
            read.result = _result(read.body, root)
        return read.result
    except (EngineError, ValueError, KeyError, TypeError, AttributeError) as exc:
        # a damaged or foreign entry is worked out again, like a missing one
        log.warning(M.text("result_unreadable", where=where, path=kept.path(key), problem=exc))
        return None


def _last_seconds(name: str, root: Path) -> float | None:
    """The CPU seconds of module `name`'s last run this process read or made, if any."""
    read = _read.get((name, root))
    if read is None:
        return None
    seconds = read.body.get("seconds")
    if not isinstance(seconds, (int, float)):
        return None
    return float(seconds)


def run_order(names: list[str], root: Path) -> list[str]:
    """`names` longest run first, so the others fill the cores beside it: by what each one's last run
    took; a module with no run on record (new, or its source changed) first of all, the longest
    source first among those."""

    def longest_first(name: str) -> tuple:
        seconds = _last_seconds(name, root)
        if seconds is None:
            return (0, -len(_source(name, root)))
        return (1, -seconds)

    return sorted(names, key=longest_first)


class Runs:
    """The runs `start` sent to the worker, under way while the build goes on; `finish` waits
    for them and keeps each successful result in the store, `abandon` ends them."""

    def __init__(self, names: list[str], found: dict[str, ModuleResult], stale: list[str],
                 root: Path, kept: store.Store, keep_worker: bool, figures: Path | None,
                 every: bool) -> None:
        self.names = names
        self.results = dict(found)
        self.stale = stale
        self.root = root
        self.kept = kept
        self.keep_worker = keep_worker
        self.figures = figures
        self.every = every
        self.started = time.perf_counter()
        self.limits = {n: time_limit(n, root) for n in stale}
        self.requests: list[dict] = []
        # each run writes its entry, output and error into a folder of its own here
        self.tmp: tempfile.TemporaryDirectory | None = None
        # the runs ended (read, or abandoned)
        self.ended = False
        if stale:
            self._send()

    def _send(self) -> None:
        """Send the stale modules' runs, longest first, to the kept worker (started if none fits)."""
        self.tmp = tempfile.TemporaryDirectory(prefix="anatomia-runs-")
        env = worker_environment(self.root)
        for n in run_order(self.stale, self.root):
            self.requests.append({"id": n, "module": f"{PACKAGE}.{n}", "out": f"{self.tmp.name}/{n}",
                                  "limit": self.limits[n], "env": env,
                                  "figures": self.figures and str(self.figures)})
        # Runs sent before and never read (a build that failed before it needed them) end with
        # their worker: its replies to them would be read as this call's.
        _abandon_unread()
        try:
            _await_start()
            if _kept and not (self.keep_worker and _kept[0].usable(self.root)):
                stop_worker()
            if not _kept:
                _kept.append(_Worker(self.root))
            _in_flight.append(self)
            _kept[0].send(self.requests)
        except BaseException:
            self.abandon()
            raise

    @property
    def seconds(self) -> float:
        """Seconds since the runs were sent."""
        return time.perf_counter() - self.started

    def finish(self) -> tuple[dict[str, ModuleResult], list[str]]:
        """Wait for the runs: what compute returns."""
        if self.ended:
            raise EngineError("runs_abandoned", modules=", ".join(self.stale))
        if self.stale:
            self._read()
        if self.every:
            self.kept.prune()
        # the figures' SVGs that no module's result names any more
        if self.every and self.figures is not None:
            drawn = {key for result in self.results.values() for key in result.drawn}
            figure_cache.prune(self.figures, drawn)
        return {n: self.results[n] for n in self.names}, self.stale

    def abandon(self) -> None:
        """End the runs under way (the build failed before it needed them) and the worker with
        them; nothing if none is (a worker kept between builds stays)."""
        if self.ended or not self.requests:
            return
        self._end()
        # not stop_worker: that waits for the runs under way to end
        _await_start()
        while _kept:
            _kept.pop().kill()

    def _end(self) -> None:
        self.ended = True
        # (not yet in flight if the worker failed to start)
        if self in _in_flight:
            _in_flight.remove(self)
        self.tmp.cleanup()

    def _read(self) -> None:
        """Read each run's result as it ends; keep the good ones; raise what failed."""
        # in the order the runs ended; said in the order of `names`
        failed: dict[str, EngineError] = {}
        # what the runs' stores said, once each (every run may find the same unwritable folder)
        said: dict[str, None] = {}
        try:
            # each result read as its run ends, while the others still run: after the last one,
            # only its own is left to read
            for reply in _kept[0].replies(self.requests, max(self.limits.values()) + 120):
                n = reply["id"]
                read = _read_run(n, Path(self.tmp.name, n), reply, self.limits[n], self.root)
                if isinstance(read, EngineError):
                    failed[n] = read
                    continue
                data, body, self.results[n] = read
                said.update(dict.fromkeys(body.get("said", ())))
                # kept only once it decodes: a result the build cannot read is never stored
                self.kept.put(entry_name(n, self.root), data)
                # the next build of this process (serve) looks it up as read
                _remember(n, self.root, data, body, self.results[n])
        except BaseException:
            self.abandon()
            raise
        self._end()
        if not self.keep_worker:
            stop_worker()
        for message in said:
            store.log.warning(message)
        errors = [failed[n] for n in self.stale if n in failed]
        # one failing module is said as it is; several at once under one heading
        if len(errors) == 1:
            raise errors[0]
        if errors:
            raise EngineError("modules_failed", count=len(errors), causes=errors)


def _read_run(name: str, work: Path, reply: dict, limit: float,
              root: Path) -> tuple[bytes, dict, ModuleResult] | EngineError:
    """(the entry's bytes, its body, its result) of the run of module `name` that wrote into `work`,
    or the EngineError that says why it has none."""
    # an exit status of 0 without an entry: the module ended the process itself (os._exit(0))
    if reply["status"] != 0 or not (work / ENTRY).exists():
        return _failure(name, work, reply["status"], limit, reply.get("peak_kib", 0))
    try:
        data = (work / ENTRY).read_bytes()
        body = json.loads(data)
        return data, body, _result(body, root)
    except (EngineError, OSError, ValueError, KeyError, TypeError) as exc:
        return EngineError("unreadable_result", where=f"{PACKAGE}/{name}.py", problem=exc)


def start(names: Iterable[str] | None = None, root: Path = ROOT, cache: Path | None = None,
          keep_worker: bool = False) -> Runs:
    """Look up `names` (default: every module, then `finish` drops from the store what none used)
    and send the ones whose inputs changed to the worker; they run while the caller goes on (a
    build lists its theme's files meanwhile). `keep_worker` (`mkdocs serve`): keep the worker
    between calls. `cache`: a store of the results' own, and then no figure's SVGs are kept (a
    run by hand, a test's)."""
    root = Path(root).resolve()
    kept = store.Store(cache or store.folder(root, "computed"), ".json")
    figures = None
    if cache is None:
        figures = store.folder(root, figure_cache.KIND)
    # only a build of every module knows which entries no module needs any more
    every = names is None
    if every:
        names = module_names(root)
    names = list(names)
    # one pass over the records: a file several of them name is read once
    digests: dict[str, str | None] = {}
    found = {n: result for n in names if (result := lookup(n, root, kept, digests)) is not None}
    stale = [n for n in names if n not in found]
    return Runs(names, found, stale, root, kept, keep_worker, figures, every)


def compute(names: Iterable[str] | None = None, root: Path = ROOT, cache: Path | None = None,
            keep_worker: bool = False) -> tuple[dict[str, ModuleResult], list[str]]:
    """Results for `names` (default: every module, then the store drops what none used) and the
    names that ran: `start`, then its `finish`."""
    return start(names, root, cache, keep_worker).finish()


def main(argv: list[str]) -> None:
    """Run one module, print its values, write its figures into a new temporary folder."""
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit(__doc__)
    name = argv[0].removeprefix(PACKAGE + ".")
    # the project it is run in (a copy, a fixture project), else the one this engine belongs to
    root = ROOT
    if (Path.cwd() / PACKAGE).is_dir():
        root = Path.cwd()
    # a store of its own: a run by hand neither uses nor changes the build's results
    with tempfile.TemporaryDirectory() as tmp:
        try:
            result = compute([name], root=root, cache=Path(tmp))[0][name]
        except EngineError as exc:
            sys.exit(str(exc))
    out = Path(tempfile.mkdtemp(prefix=f"{name}-figures-"))
    for filename, text in result.contents.items():
        (out / filename).write_text(text, encoding="utf-8")
    print(*(f"{key} = {value!r}" for key, value in sorted(result.values.items())), sep="\n")
    print(f"figures: {', '.join(sorted(result.figures))} -> {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
