"""Run figures_src modules, each in a fresh child process, and cache their results by content hash.

Cache validity (a depfile, as make and ccache keep): when a module runs, its child process
records every project file it loaded (its sys.modules: the module, figures_src helpers
imported absolutely or relatively, the attn_core files it reached, the engine files the
worker had imported), every project file it opened for reading, and the dependency lock,
each with its SHA-256, plus the Python version, in deps.json. A cached result is used while
every recorded file still has its hash; any change -> the module runs again. attn_core
imports its submodules lazily, so an edit to an attn_core file a module never loads (or to
an engine file the worker never imports, such as publish.py) leaves its result cached.

Running: one warm worker process imports NumPy, matplotlib and the kit once, then forks one
child per module (as many at a time as there are cores). Every module still runs in a fresh
process, so nothing leaks from one module to the next. A module that raises, returns NaN or
±inf (codec.py), exits early (`sys.exit`, `os._exit`), is killed by a signal, or runs longer
than its time limit stops the build with its name; nothing is cached for a failed run.
Under `mkdocs serve` (compute's `keep_worker`) the worker stays up between rebuilds, so an
edit re-runs only the modules it touches without importing NumPy and matplotlib again; it is
restarted as soon as a file it imported (engine, lock) no longer has the hash it had.

Time limit: DEFAULT_TIME_LIMIT seconds per module; the environment variable
ANATOMIA_MODULE_TIMEOUT sets another default, and a module may set its own with a top-level
`TIME_LIMIT = <seconds>`.

Cache entry: `.cache/computed/<module>/<key>/` (key: the SHA-256 of its deps.json) with
result.json (codec.py), the figure files, deps.json and manifest.json (the SHA-256 of every
file). It is written in a temporary folder and renamed into place, and checked against its
manifest whenever it is read: a missing, truncated or altered file (depfile included) makes
the module run again (and the log says why).

Run one module by hand (prints its values, writes its figures to a temporary folder):

    .venv/bin/python -m anatomia_engine.runner figures_src.worked_example
"""

from __future__ import annotations

import ast
import atexit
import functools
import hashlib
import json
import logging
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from anatomia_engine import codec

ROOT = Path(__file__).resolve().parents[1]
ENGINE = Path(__file__).resolve().parent
PACKAGE = "figures_src"
CACHE = ROOT / ".cache" / "computed"
LOCK_FILES = ("requirements.lock",)
DEFAULT_TIME_LIMIT = 300.0
# One BLAS/OpenMP thread per process: modules run side by side on every core already, and the
# arrays are small (threads only add overhead and make sums depend on the machine's core count).
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
TIME_LIMIT_ENV = "ANATOMIA_MODULE_TIMEOUT"
RESULT, MANIFEST, ERROR, DEPS = "result.json", "manifest.json", "error.txt", "deps.json"
OUTPUT, CURRENT = "output.txt", "current.txt"   # what the module printed; what it was running

log = logging.getLogger("anatomia_engine.runner")
_engine_log = logging.getLogger("anatomia_engine")
if not _engine_log.handlers:   # MkDocs shows only its own loggers; say it the way it does
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    _engine_log.addHandler(_handler)


class ComputeError(Exception):
    """A figures_src module failed; the message names the module and function."""


class _Views:
    """A decoded result.json and the plain views of it that pages read (built on first use)."""

    def __init__(self, output: codec.ModuleOutput) -> None:
        self.output = output

    @functools.cached_property
    def values(self) -> dict:
        return {n: r.value for n, r in self.output.values.items()}

    @functools.cached_property
    def meta(self) -> dict:
        return {n: r.meta() for n, r in self.output.values.items()}

    @functools.cached_property
    def figures(self) -> dict:
        return {n: {"files": dict(f.files), "alt": f.alt, "caption": f.caption,
                    "table": codec.encode_value(f.table, f"figure {n!r}")}
                for n, f in self.output.figures.items()}


# This process's decoded results: module -> (SHA-256 of its result.json, views). Under
# `mkdocs serve` a rebuild decodes only the modules whose result changed (decoding, with its
# NaN checks, of every module took ~0.1 s of each rebuild). Nothing a page evaluates can
# change a decoded value: placeholders.py allows no attribute or method of a value.
_decoded: dict[str, tuple[str, _Views]] = {}


@dataclass(frozen=True)
class ModuleResult:
    """What one module produced (typed records, codec.ModuleOutput) and its cache folder.

    `values`, `meta` and `figures` are the plain views the page code reads:
    values  name -> decoded value (number, str, np.ndarray, list/dict, kit.Table);
    meta    name -> {"function", "what", "cite", "axes"};
    figures name -> {"files": {style or "csv": filename}, "alt", "caption", "table": encoded table}.
    """

    name: str
    key: str
    folder: Path

    @functools.cached_property
    def _listed(self) -> dict[str, str]:
        """The manifest's files: name -> SHA-256 (`load` has checked the files against it)."""
        return json.loads((self.folder / MANIFEST).read_text(encoding="utf-8"))["files"]

    @functools.cached_property
    def _views(self) -> _Views:
        """result.json decoded, on first use: a build whose pages all come from the page store
        decodes nothing; one decoded earlier in this process with the same checksum is reused."""
        digest = self._listed.get(RESULT, "")
        kept = _decoded.get(self.name)
        if kept is not None and kept[0] == digest:
            return kept[1]
        try:
            views = _Views(codec.decode((self.folder / RESULT).read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, codec.CodecError) as exc:
            raise ComputeError(f"{self.folder}: {RESULT}: {exc}") from None
        _decoded[self.name] = (digest, views)
        return views

    @functools.cached_property
    def digest(self) -> str:
        """SHA-256 of the result's content (its manifest holds the SHA-256 of every file)."""
        return hashlib.sha256((self.folder / MANIFEST).read_bytes()).hexdigest()

    @functools.cached_property
    def inputs(self) -> list[Path]:
        """Every project file the run read (its depfile), as absolute paths."""
        root = self.folder.parents[3]   # <root>/.cache/computed/<module>/<key>
        return [_dep_path(name, root) for name in read_dependencies(self.folder)["files"]]

    @property
    def output(self) -> codec.ModuleOutput:
        return self._views.output

    @functools.cached_property
    def files(self) -> list[str]:
        """The figure files (SVG per style, CSV), as the manifest lists them."""
        return sorted(name for name in self._listed if name not in (RESULT, DEPS))

    @property
    def values(self) -> dict:
        return self._views.values

    @property
    def meta(self) -> dict:
        return self._views.meta

    @property
    def figures(self) -> dict:
        return self._views.figures


def decode_values(raw: dict) -> dict:
    """Decoded values of a {name: encoded value} mapping (codec.decode_value on each)."""
    return {name: codec.decode_value(item) for name, item in raw.items()}


# --- what a module depends on -------------------------------------------------------------

def module_names(root: Path = ROOT) -> list[str]:
    """The article modules: figures_src/*.py whose names do not start with '_'."""
    return sorted(p.stem for p in (root / PACKAGE).glob("*.py") if not p.stem.startswith("_"))


def _imported_names(source: bytes, package: tuple[str, ...], root: Path) -> list[tuple[str, ...]]:
    """Dotted names (as tuples) an import statement of `source` may load, relative ones made
    absolute from `package`. Parsed once per content: kept in memory and in .cache/imports/."""
    digest = hashlib.sha256(source + b"\0" + "/".join(package).encode()).hexdigest()
    if digest in _parsed:
        return _parsed[digest]
    stored = root / ".cache" / "imports" / f"{digest}.json"
    try:
        doc = json.loads(stored.read_text(encoding="utf-8"))
        if doc["sha256"] != hashlib.sha256(json.dumps(doc["names"]).encode()).hexdigest():
            raise ValueError("checksum")   # edited: parse again
        names = [tuple(n) for n in doc["names"]]
    except (OSError, ValueError, TypeError, KeyError):
        names = _parse_imports(source, package)
        text = json.dumps(names)
        try:
            stored.parent.mkdir(parents=True, exist_ok=True)
            tmp = stored.with_name(f".{stored.name}.{os.getpid()}")
            record = {"names": json.loads(text), "sha256": hashlib.sha256(text.encode()).hexdigest()}
            tmp.write_text(json.dumps(record), encoding="utf-8")
            os.replace(tmp, stored)
        except OSError:
            pass
    _parsed[digest] = names
    return names


_parsed: dict[str, list[tuple[str, ...]]] = {}


def _parse_imports(source: bytes, package: tuple[str, ...]) -> list[tuple[str, ...]]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []   # running the module reports the error with its line
    wanted: list[tuple[str, ...]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            wanted += [tuple(alias.name.split(".")) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 > len(package):
                    continue
                parent = package[: len(package) - (node.level - 1)]
            else:
                parent = ()
            module = parent + (tuple(node.module.split(".")) if node.module else ())
            wanted.append(module)
            wanted += [module + (alias.name,) for alias in node.names if alias.name != "*"]
    return sorted(set(wanted))


# --- what a result depends on: recorded when it is computed ------------------------------------
#
# A module's imports are known exactly only once it has run: `from attn_core import rope`
# loads attn_core/position.py through attn_core's lazy __getattr__, which no reading of the
# source can see. So the child that ran a module records every project file present in its
# sys.modules (the module itself, figures_src helpers, attn_core files, the engine files the
# worker imported), every project file it opened for reading, and the lock, each with its
# SHA-256, in deps.json (a depfile, as make and ccache keep). A cached result is used only
# while every recorded file still has its hash and the Python version is the same.
# Files that the recorded ones try to import but that do not exist (yet) are recorded as
# absent: creating one (e.g. a helper that shadows a fallback) makes the module run again.

def _excluded(path: Path) -> bool:
    """Not a project source: virtual environments, caches, installed packages, bytecode."""
    return any(part.startswith(".") or part in ("__pycache__", "site-packages", "dist-packages",
                                                "node_modules") for part in path.parts)


def _project_file(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path.is_relative_to(r) and not _excluded(path.relative_to(r)) for r in roots)


def _dep_name(path: Path, root: Path) -> str:
    """How a depfile names `path`: relative to the project root, else absolute."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()


def _dep_path(name: str, root: Path) -> Path:
    path = Path(name)
    return path if path.is_absolute() else root / path


def record_dependencies(paths: Iterable[str | Path], root: Path, since_ns: int | None = None,
                        skip: Iterable[Path] = (), known: dict | None = None) -> dict:
    """The depfile of a computation: `paths` that are project files (under `root`, or under the
    engine's own checkout when it is elsewhere), with the lock, each with its SHA-256; the
    missing files their imports name; the Python version. `volatile` is true when a file was
    modified at or after `since_ns` (during the run): such a result serves this build only.
    `known` is an earlier record (the warm worker's, of what it imported before forking):
    its digests are kept, since they describe the code that was loaded."""
    known = known or {"files": {}, "volatile": False}
    root = root.resolve()
    roots = (root, ROOT) if ROOT != root else (root,)
    skipped = tuple(Path(p).resolve() for p in skip)
    files: dict[str, str] = {}
    volatile = False
    candidates = {root / f for f in LOCK_FILES} | {Path(p) for p in paths}
    for path in sorted(candidates):
        try:
            path = path.resolve()
            if (not _project_file(path, roots) or any(path.is_relative_to(s) for s in skipped)
                    or not path.is_file()):
                continue
            name = _dep_name(path, root)
            if name in known["files"]:
                files[name] = known["files"][name]
                continue
            before = path.stat().st_mtime_ns
            files[name] = _sha256(path)
        except OSError:
            continue
        if since_ns is not None and max(before, path.stat().st_mtime_ns) >= since_ns:
            volatile = True
    absent: set[str] = set()
    for name in files:
        path = _dep_path(name, root)
        if path.suffix == ".py" and path.is_relative_to(root):
            absent |= {_dep_name(c, root) for c in import_candidates(path, root) if not c.exists()}
    return {"python": sys.version, "files": dict(sorted(files.items())), "absent": sorted(absent),
            "volatile": volatile or known["volatile"]}


def dependency_problem(deps: dict, root: Path, hashes: dict[Path, str | None] | None = None) -> str | None:
    """None if the depfile `deps` still describes the project at `root`; else what changed.
    `hashes` memoizes file digests across calls (one build)."""
    hashes = {} if hashes is None else hashes
    try:
        if deps["python"] != sys.version:
            return "the Python version changed"
        if deps["volatile"]:
            return "a file it depends on changed while it ran"
        files, absent = deps["files"], deps["absent"]
        if not isinstance(files, dict) or not isinstance(absent, list):
            raise TypeError("files/absent")
        for name, digest in files.items():
            path = _dep_path(name, root)
            if path not in hashes:
                try:
                    hashes[path] = _sha256(path)
                except OSError:
                    hashes[path] = None
            if hashes[path] is None:
                return f"{name} is gone"
            if hashes[path] != digest:
                return f"{name} changed"
        for name in absent:
            if _dep_path(name, root).exists():
                return f"{name} appeared"
    except (KeyError, TypeError, AttributeError) as exc:
        return f"{DEPS} is unreadable ({type(exc).__name__}: {exc})"
    return None


def import_candidates(path: Path, root: Path = ROOT) -> frozenset[Path]:
    """Every project file an import statement of the Python file at `path` could load,
    existing or not (`pkg/name/__init__.py` and `pkg/name.py` for each dotted prefix whose
    parent is a folder)."""
    try:
        package = tuple(path.resolve().relative_to(root.resolve()).with_suffix("").parts[:-1])
    except ValueError:
        package = ()
    found: set[Path] = set()
    for parts in _imported_names(path.read_bytes(), package, root):
        for i in range(1, len(parts) + 1):
            stem = root.joinpath(*parts[:i])
            if i > 1 and not stem.parent.is_dir():
                break   # `parts[:i-1]` is a module, not a package: the rest are names in it
            found |= {stem / "__init__.py", stem.with_name(stem.name + ".py")}
    return frozenset(found)


def read_dependencies(folder: Path) -> dict:
    return json.loads((folder / DEPS).read_text(encoding="utf-8"))


def entry_key(deps_text: str) -> str:
    """A cache entry's name: the SHA-256 of its depfile (the same inputs give the same name)."""
    return hashlib.sha256(deps_text.encode()).hexdigest()[:20]


def cached_entry(name: str, root: Path = ROOT, cache: Path | None = None) -> Path | None:
    """The cache folder whose result is valid for module `name` now (verified), or None."""
    cache = cache or root / ".cache" / "computed"
    for folder in sorted((cache / name).glob("[!.]*")):
        if (manifest_problem(folder, required=(RESULT, DEPS)) is None
                and dependency_problem(read_dependencies(folder), root) is None):
            return folder
    return None


def time_limit(name: str, root: Path = ROOT) -> float:
    """Seconds `name` may run: its own top-level TIME_LIMIT, else $ANATOMIA_MODULE_TIMEOUT,
    else DEFAULT_TIME_LIMIT."""
    path = root / PACKAGE / f"{name}.py"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        tree = ast.Module(body=[], type_ignores=[])
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "TIME_LIMIT"
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float))
                and node.value.value > 0):
            return float(node.value.value)
    env = os.environ.get(TIME_LIMIT_ENV)
    if env:
        try:
            seconds = float(env)
        except ValueError:
            seconds = 0.0
        if not seconds > 0:
            raise ComputeError(f"{TIME_LIMIT_ENV}={env!r} is not a positive number of seconds")
        return seconds
    return DEFAULT_TIME_LIMIT


# --- the cache entry: files and their manifest ----------------------------------------------

def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(folder: Path) -> None:
    """manifest.json: the SHA-256 of every other file in `folder`, written last (atomically)."""
    files = {p.name: _sha256(p) for p in sorted(folder.iterdir())
             if p.is_file() and p.name not in (MANIFEST, OUTPUT, CURRENT)}
    tmp = folder / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps({"files": files}, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(tmp, folder / MANIFEST)


def manifest_problem(folder: Path, required: Iterable[str] = (RESULT,)) -> str | None:
    """None if every file in the manifest is there with its checksum; else what is wrong."""
    try:
        files = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
        if not isinstance(files, dict):
            return f"{MANIFEST} is unreadable (no file list)"
        for name in required:
            if name not in files:
                return f"{MANIFEST} lists no {name}"
    except FileNotFoundError:
        return f"{MANIFEST} is missing"
    except (ValueError, KeyError, TypeError) as exc:
        return f"{MANIFEST} is unreadable ({type(exc).__name__})"
    for name, digest in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        if _sha256(path) != digest:
            return f"{name} differs from its checksum (truncated or edited)"
    return None


def load(name: str, key: str, folder: Path, decode: bool = False) -> ModuleResult:
    """The verified result in `folder` (every file matches the manifest); with `decode`, also
    decoded and its figure files checked against it. ComputeError naming the file if anything
    is off."""
    problem = manifest_problem(folder)
    if problem is None:
        result = ModuleResult(name, key, folder)
        if not decode:
            return result
        for fig in result.output.figures.values():
            missing = [f for f in fig.files.values() if f not in result.files]
            if missing:
                problem = f"figure file {missing[0]} is missing"
        if problem is None:
            return result
    raise ComputeError(f"{folder}: {problem}")


# --- running (parent side) ------------------------------------------------------------------

def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _tail(path: Path, limit: int = 3000) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-limit:].rstrip()


def _failure(name: str, work: Path, reply: dict, limit: float) -> str:
    """The message for a run that did not produce a result."""
    where = f"figures_src/{name}.py"
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
        message = (f"{where}: the process running it was killed by {_signal_name(-status)} "
                   f"(exit status {status}) while running {current}.")
    else:
        message = (f"{where}: the process running it ended with exit status {status} before writing "
                   f"its results (while running {current}); a figures_src module must not end the "
                   "process (sys.exit(), os._exit()).")
    output = _tail(work / OUTPUT, 2000)
    if output and not reply.get("timed_out"):
        message += "\n  the module printed:\n" + "\n".join("    " + line for line in output.splitlines())
    return message + "\n  Nothing was cached for this run."


class _Worker:
    """The warm worker: `python -m anatomia_engine.runner --serve JOBS` in the project root.

    Its first line says which project files it imported before forking (`preloaded`, a
    depfile); then it answers one line per request. `run(..., finish=False)` leaves it
    running for the next batch (under `mkdocs serve`, see compute's `keep_worker`)."""

    def __init__(self, root: Path, jobs: int, scratch: Path, patience: float = 300.0):
        self.root, self.jobs, self.scratch = root, jobs, scratch
        self.log_path = scratch / "worker.log"
        self.buffer = b""
        path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
        env = dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg", PYTHONHASHSEED="0", **ONE_THREAD)
        with self.log_path.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "anatomia_engine.runner", "--serve", str(jobs)],
                cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                start_new_session=True)
        hello = self._line(patience, "starting")
        if hello is None or "preloaded" not in hello:
            self.kill()
            raise ComputeError(f"the worker running figures_src modules did not start "
                               f"(exit status {self.proc.returncode}):\n{_tail(self.log_path)}")
        self.preloaded: dict = hello["preloaded"]
        # CPU and wall seconds the worker spent importing NumPy, matplotlib and the kit
        self.startup = {"cpu": hello.get("cpu"), "seconds": hello.get("seconds")}

    def _line(self, patience: float, doing: str) -> dict | None:
        """The next JSON line from the worker; None at its end; ComputeError after `patience` s."""
        assert self.proc.stdout
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
        assert self.proc.stdin and self.proc.stdout
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
            if not self.proc.stdin.closed:
                self.proc.stdin.close()
            self.proc.stdout.close()
            self.proc.wait(timeout=60)
        if len(replies) < len(requests):
            raise ComputeError(f"the worker running figures_src modules ended with exit status "
                               f"{self.proc.returncode} before running "
                               f"{', '.join(r['id'] for r in requests if r['id'] not in replies)}:\n"
                               f"{_tail(self.log_path)}")
        return replies

    def usable(self, root: Path, jobs: int) -> bool:
        """Still running, for this project, and every file it imported unchanged."""
        return (self.proc.poll() is None and self.root == root and self.jobs == jobs
                and dependency_problem(self.preloaded, root) is None)

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe and not pipe.closed:
                pipe.close()


_kept: list[_Worker] = []   # the worker kept between builds (compute's keep_worker)


def stop_worker() -> None:
    """End the worker kept between builds, if any, and remove its scratch folder."""
    while _kept:
        worker = _kept.pop()
        worker.kill()
        shutil.rmtree(worker.scratch, ignore_errors=True)


atexit.register(stop_worker)


def _sweep(cache: Path, older_than: float = 3600.0) -> None:
    """Drop temporary run folders left by a build that was killed (older than an hour)."""
    now = time.time()
    for path in cache.glob(".*-*"):
        try:
            if path.is_dir() and now - path.stat().st_mtime > older_than:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


DURATIONS = "durations.json"   # in the cache folder: {module: CPU seconds of its last run}


def _durations(cache: Path) -> dict[str, float]:
    try:
        found = json.loads((cache / DURATIONS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(found, dict):
        return {}
    return {n: float(v) for n, v in found.items() if isinstance(v, (int, float)) and v >= 0}


def _record_durations(cache: Path, measured: dict[str, float]) -> None:
    """Keep each module's CPU seconds of its last successful run (written atomically; a
    scheduling hint only: it decides nothing the pages show)."""
    known = _durations(cache) | measured
    tmp = cache / f".{DURATIONS}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(dict(sorted(known.items())), indent=1), encoding="utf-8")
        os.replace(tmp, cache / DURATIONS)
    except OSError:
        tmp.unlink(missing_ok=True)


def schedule(names: list[str], root: Path, cache: Path) -> list[str]:
    """The order to start `names` in: longest first, so the long ones start at once and the
    short ones fill the other cores around them. A module's length is the CPU time of its
    last run in this cache (durations.json); modules never run here (a cold cache, a new
    module) go before those, largest source first (a rough guess of the longest run)."""
    known = _durations(cache)
    return sorted(names, key=lambda n: (n in known, -known.get(n, 0.0),
                                        -_size(root / PACKAGE / f"{n}.py"), n))


# The last run_modules call, as measured (for `make bench-docs`): the worker's start-up
# ({"cpu", "seconds"}: importing NumPy, matplotlib and the kit; {} when a kept worker was
# reused) and each module's child process in the order they started ({"cpu": user + system
# seconds, "seconds": wall-clock}).
last_run: dict = {}


def run_modules(names: list[str], root: Path, cache: Path, jobs: int,
                keep_worker: bool = False) -> dict[str, ModuleResult]:
    """Run `names` in the warm worker; publish each successful result in the cache.
    `keep_worker`: leave the worker running for the next call (and use the one left by the
    previous call while every file it imported is unchanged, else start a new one)."""
    cache.mkdir(parents=True, exist_ok=True)
    _sweep(cache)
    limits = {n: time_limit(n, root) for n in names}
    works = {n: Path(tempfile.mkdtemp(prefix=f".{n}-", dir=cache)) for n in names}
    results: dict[str, ModuleResult] = {}
    errors: list[str] = []
    order = schedule(names, root, cache)
    requests = [{"id": n, "module": f"{PACKAGE}.{n}", "out": str(works[n]), "limit": limits[n],
                 "root": str(root)} for n in order]
    patience = max(limits.values()) + 120
    worker = None
    try:
        if keep_worker:
            if _kept and not _kept[0].usable(root, jobs):
                stop_worker()
            if not _kept:
                _kept.append(_Worker(root, jobs, Path(tempfile.mkdtemp(prefix="anatomia-worker-"))))
            worker = _kept[0]
            replies = worker.run(requests, patience, finish=False)
        else:
            with tempfile.TemporaryDirectory(prefix=".worker-", dir=cache) as scratch:
                worker = _Worker(root, jobs, Path(scratch))
                replies = worker.run(requests, patience)
    except BaseException:
        if worker is not None:
            worker.kill()
        stop_worker()
        for work in works.values():
            shutil.rmtree(work, ignore_errors=True)
        raise
    last_run.clear()
    last_run.update(worker=worker.startup, modules={
        n: {"seconds": replies[n].get("seconds"), "cpu": replies[n].get("cpu")} for n in order})
    worker.startup = {}      # a kept worker (mkdocs serve) started once: count its start-up once
    for n in names:
        work, reply = works[n], replies[n]
        try:
            if reply.get("status") != 0 or reply.get("timed_out") or not (work / MANIFEST).exists():
                raise ComputeError(_failure(n, work, reply, limits[n]))
            try:
                key = entry_key((work / DEPS).read_text(encoding="utf-8"))
                load(n, key, work, decode=True)
            except (OSError, ComputeError) as exc:
                raise ComputeError(f"figures_src/{n}.py: its result cannot be read back: {exc}") from None
            results[n] = _publish(n, key, work, cache / n / key)
        except ComputeError as exc:
            errors.append(str(exc))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    _record_durations(cache, {n: float(last_run["modules"][n]["cpu"]) for n in results
                              if isinstance(last_run["modules"][n]["cpu"], (int, float))})
    if errors:
        raise ComputeError("\n\n".join(errors))
    return results


def _publish(name: str, key: str, work: Path, final: Path) -> ModuleResult:
    for leftover in (OUTPUT, CURRENT):
        (work / leftover).unlink(missing_ok=True)
    if not final.exists():
        final.parent.mkdir(parents=True, exist_ok=True)
        for old in final.parent.iterdir():  # keep one result per module
            shutil.rmtree(old, ignore_errors=True)
        try:
            work.rename(final)
        except OSError:   # another build published the same key first
            pass
    return load(name, key, final)


def compute(names: Iterable[str] | None = None, root: Path = ROOT, cache: Path | None = None,
            jobs: int | None = None, keep_worker: bool = False) -> tuple[dict[str, ModuleResult], list[str]]:
    """Results for every module (cached where its depfile still matches and the entry
    verifies); also the names that ran. `keep_worker` (for `mkdocs serve`): keep the warm
    worker between calls, restarted when a file it imported changed (run_modules)."""
    cache = cache or root / ".cache" / "computed"
    names = list(module_names(root) if names is None else names)
    results: dict[str, ModuleResult] = {}
    stale = []
    last_run.clear()
    hashes: dict[Path, str | None] = {}
    for n in names:
        for folder in sorted((cache / n).glob("[!.]*")):
            problem = manifest_problem(folder, required=(RESULT, DEPS))
            if problem is None:
                try:
                    deps = read_dependencies(folder)
                except (OSError, ValueError) as exc:
                    problem = f"{DEPS}: {exc}"
                else:
                    changed = dependency_problem(deps, root, hashes)
                    if changed is not None:
                        log.info("figures_src/%s.py: runs again: %s", n, changed)
                        continue
            if problem is None:
                try:
                    results[n] = load(n, folder.name, folder)
                    break
                except ComputeError as exc:
                    problem = str(exc)
            log.warning("figures_src/%s.py: cached result not used, running the module again: %s: %s",
                        n, folder, problem)
            shutil.rmtree(folder, ignore_errors=True)
        if n not in results:
            stale.append(n)
    if stale:
        results.update(run_modules(stale, root, cache, jobs or os.cpu_count() or 2, keep_worker))
    return {n: results[n] for n in names}, stale


# --- the worker (child side) ----------------------------------------------------------------

def _collect(module):
    from anatomia_engine.kit import KIND

    functions = [f for f in vars(module).values()
                 if callable(f) and getattr(f, "__module__", None) == module.__name__
                 and hasattr(f, KIND)]
    return ([f for f in functions if getattr(f, KIND) == "values"],
            [f for f in functions if getattr(f, KIND) == "figure"])


def _layout_key(fig) -> tuple:
    """What a figure's constrained layout depends on besides colours, read before the layout
    runs: the figure's size, each Axes' kind, limits, scales, ticks and tick labels, and every
    text with its font. The light and dark drawings of one figure differ only in colours, so
    equal keys mean equal layouts (tests/test_blog_figures.py checks it for every figure)."""
    from matplotlib.text import Text

    axes = []
    for ax in fig.axes:
        axes.append((type(ax).__name__, ax.get_xlim(), ax.get_ylim(), ax.get_xscale(), ax.get_yscale(),
                     tuple(ax.get_xticks()), tuple(ax.get_yticks()),
                     tuple(t.get_text() for t in ax.get_xticklabels()),
                     tuple(t.get_text() for t in ax.get_yticklabels()),
                     ax.get_anchor(), ax.get_box_aspect(), ax.get_aspect()))
    texts = tuple((t.get_text(), t.get_fontsize(), t.get_rotation(), tuple(t.get_fontfamily()),
                   t.get_fontweight(), t.get_fontstyle(), t.get_visible())
                  for t in fig.findobj(Text))
    return (tuple(fig.get_size_inches()), fig.dpi, len(fig.subfigs), tuple(axes), texts)


def _layout_of(fig) -> list[tuple]:
    """Where the layout put every Axes: (active, original position, anchor, box aspect, aspect)."""
    return [(ax.get_position(original=False).frozen(), ax.get_position(original=True).frozen(),
             ax.get_anchor(), ax.get_box_aspect(), ax.get_aspect()) for ax in fig.axes]


def _save_svg(fig, path: Path, salt: str, like: tuple | None = None) -> tuple | None:
    """Save `fig` as a deterministic SVG, laying it out at most once; returns its layout.

    `savefig` with a layout engine draws the figure twice (a dry run that lays it out, with
    text measured by a renderer of its own, then the real draw); here the layout runs once,
    measured by an SVG renderer as before, and the figure is then drawn once. `like` is what
    this function returned for the same figure in the other style: when the layout keys are
    equal, that layout is applied as it is instead of being computed again.
    """
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    done = None
    with matplotlib.rc_context({"svg.hashsalt": salt}):
        engine = fig.get_layout_engine()
        if engine is not None:
            FigureCanvasSVG(fig)               # text measured as the SVG writer measures it
            # Not reused: sub-figures and super-titles (placed by the layout too), and a fixed
            # aspect kept by moving the data limits (each layout pass moves them again).
            simple = not (fig.subfigs or fig.get_suptitle() or fig.get_supxlabel() or fig.get_supylabel()
                          or any(ax.get_adjustable() == "datalim" and ax.get_aspect() != "auto"
                                 for ax in fig.axes))
            key = _layout_key(fig) if simple else None
            if key is not None and like is not None and like[0] == key:
                for ax, (active, original, anchor, box, aspect) in zip(fig.axes, like[1], strict=True):
                    ax.set_position(original, which="original")
                    ax.set_position(active, which="active")
                    ax.set_anchor(anchor)
                    ax.set_box_aspect(box)
                    ax.set_aspect(aspect)
                done = like
            else:
                engine.execute(fig)
                done = (key, _layout_of(fig)) if key is not None else None
            fig.set_layout_engine(None)        # laid out: savefig skips its dry-run draw
        fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})
    return done


def run_module(module_name: str, out: Path, root: Path | None = None, opened: Iterable[str] = (),
               started_ns: int | None = None) -> None:
    """Import one module, call its functions, write result.json, the figure files, the depfile
    (deps.json: the project files in sys.modules and `opened`, see record_dependencies) and
    the manifest into `out` (the manifest last). Raises on any problem."""
    import importlib

    import matplotlib
    import matplotlib.pyplot as plt

    from anatomia_engine.kit import Plot
    from anatomia_engine.plot import STYLES, use_decimal_comma

    short = module_name.split(".")[-1]

    def now_running(what: str) -> None:
        (out / CURRENT).write_text(what, encoding="utf-8")

    now_running(f"{module_name} (import)")
    module = importlib.import_module(module_name)
    value_fns, figure_fns = _collect(module)
    output = codec.ModuleOutput(module_name)
    for fn in value_fns:
        now_running(f"{module_name}.{fn.__name__}()")
        produced = fn()
        if not isinstance(produced, dict):
            raise TypeError(f"@values function must return a dict, got {type(produced).__name__}")
        for key, value in produced.items():
            if key in output.values:
                raise ValueError(f"value name {key!r} is defined twice in {module_name}")
            output.values[key], _ = codec.value_record(module_name, fn.__name__, key, value)
    for fn in figure_fns:
        name = fn.__name__
        if name in output.values:
            raise ValueError(f"{name!r} is both a value and a figure in {module_name}")
        files: dict[str, str] = {}
        plot = layout = None
        for style in STYLES:
            now_running(f"{module_name}.{name}(style={style.name!r})")
            with matplotlib.rc_context(style.rc()):
                plot = fn(style)
                if not isinstance(plot, Plot):
                    raise TypeError(f"@figure function must return a Plot, got {type(plot).__name__}")
                filename = f"{name}-{style.name}.svg"
                use_decimal_comma(plot.fig)
                layout = _save_svg(plot.fig, out / filename, f"{short}.{name}.{style.name}", layout)
                plt.close(plot.fig)
            files[style.name] = filename
        codec.encode_value(plot.table,
                           f"figures_src/{short}.py: {name}(style) returned a Plot whose data table")
        (out / f"{name}.csv").write_text(plot.table.to_csv(), encoding="utf-8")
        files["csv"] = f"{name}.csv"
        output.figures[name] = codec.FigureRecord(name, files, plot.alt, plot.caption, plot.table)
    now_running(f"{module_name} (writing the result)")
    (out / RESULT).write_text(codec.encode(output), encoding="utf-8")
    deps = record_dependencies([*_loaded_files(), *opened], root or Path.cwd(), started_ns, skip=[out],
                               known=_PRELOADED)
    (out / DEPS).write_text(json.dumps(deps, indent=1), encoding="utf-8")
    write_manifest(out)


_WRITING = os.O_WRONLY | os.O_RDWR


def _note_read(opened: set[str], event: str, args: tuple) -> None:
    """Audit hook (in the child only): remember each file opened for reading."""
    if event == "open":
        try:
            path, _mode, flags = args
            if isinstance(path, (str, bytes, os.PathLike)) and not (flags or 0) & _WRITING:
                opened.add(os.fsdecode(path))
        except Exception:   # noqa: BLE001 - an audit hook must never break the operation
            pass


def _child(request: dict) -> None:
    """In a forked child: run one module with its output in `out/output.txt`; never returns."""
    out = Path(request["out"])
    code = 1
    try:
        fd = os.open(out / OUTPUT, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        sys.stdin = open(os.devnull)  # noqa: SIM115
        started_ns = time.time_ns()
        opened: set[str] = set()
        sys.addaudithook(functools.partial(_note_read, opened))
        try:
            run_module(request["module"], out, Path(request.get("root") or Path.cwd()), opened, started_ns)
            code = 0
        except codec.CodecError as exc:   # names module, function and value: no traceback needed
            (out / ERROR).write_text(str(exc), encoding="utf-8")
        except SystemExit as exc:
            current = _tail(out / CURRENT)
            (out / ERROR).write_text(
                f"{current} called sys.exit({exc.code!r}); a figures_src module must not end the "
                f"process:\n{traceback.format_exc()}", encoding="utf-8")
        except BaseException:
            current = _tail(out / CURRENT)
            (out / ERROR).write_text(f"in {current}:\n{traceback.format_exc()}", encoding="utf-8")
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _preload() -> None:
    """What every module needs, imported once in the warm worker before it forks."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.pyplot as plt
    import numpy  # noqa: F401

    import anatomia_engine.kit  # noqa: F401
    import anatomia_engine.plot  # noqa: F401

    fig = plt.figure()
    fig.text(0.5, 0.5, "0,5")                   # load the fonts once
    fig.savefig(os.devnull, format="svg")
    plt.close(fig)


_PRELOADED: dict | None = None   # the warm worker's record of the project files it imported


def _loaded_files() -> list[str]:
    return [f for m in list(sys.modules.values()) if isinstance(f := getattr(m, "__file__", None), str)]


def serve(jobs: int) -> int:
    """The warm worker: read JSON requests on stdin, fork one child per module (at most `jobs`
    at a time), kill a child past its time limit, answer one JSON line per request."""
    global _PRELOADED
    started_ns = time.time_ns()
    _preload()
    _PRELOADED = record_dependencies(_loaded_files(), Path.cwd(), started_ns)
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)   # anything printed by accident goes to the log, not into the replies
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out.write(json.dumps({"preloaded": _PRELOADED, "cpu": round(usage.ru_utime + usage.ru_stime, 3),
                          "seconds": round((time.time_ns() - started_ns) / 1e9, 3)}).encode() + b"\n")
    queue: deque[dict] = deque()
    running: dict[int, dict] = {}
    buffer, eof = b"", False
    while not eof or queue or running:
        while queue and len(running) < jobs:
            request = queue.popleft()
            pid = os.fork()
            if pid == 0:
                out.close()
                _child(request)
            request["pid"], request["started"] = pid, time.monotonic()
            running[pid] = request
        if not eof:
            ready, _, _ = select.select([0], [], [], 0.01 if running else None)
            if ready:
                chunk = os.read(0, 65536)
                eof = not chunk
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        queue.append(json.loads(line))
        else:
            time.sleep(0.01)
        while running:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
            if pid == 0:
                break
            request = running.pop(pid, None)
            if request is None:
                continue
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            reply = {"id": request["id"], "status": code, "timed_out": request.get("timed_out", False),
                     "seconds": round(time.monotonic() - request["started"], 3),
                     "cpu": round(usage.ru_utime + usage.ru_stime, 3)}
            out.write(json.dumps(reply).encode() + b"\n")
        now = time.monotonic()
        for pid, request in running.items():
            if not request.get("timed_out") and now - request["started"] > request["limit"]:
                request["timed_out"] = True
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--serve":
        return serve(int(argv[1]))
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    name = argv[0].removeprefix(PACKAGE + ".")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            results, _ = compute([name], root=Path.cwd() if (Path.cwd() / PACKAGE).is_dir() else ROOT,
                                 cache=Path(tmp))
        except ComputeError as exc:
            print(exc, file=sys.stderr)
            return 1
        result = results[name]
        for key, value in sorted(result.values.items()):
            print(f"{key} = {value!r}")
        out = Path(tempfile.mkdtemp(prefix=f"{name}-figures-"))
        for entry in result.figures.values():
            for filename in entry["files"].values():
                shutil.copy(result.folder / filename, out / filename)
        print(f"figures: {', '.join(sorted(result.figures))} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
