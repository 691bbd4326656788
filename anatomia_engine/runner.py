"""Run figures_src modules, each in a fresh child process, and cache their results by content hash.

Cache key: the SHA-256 of the module's source and of every project file it imports,
transitively (absolute and relative imports: `from .x import y`, `from . import x`), all of
attn_core, the whole engine package, the dependency lock and the Python version. Same key ->
the cached result is reused; any change -> the module runs again.

Running: one warm worker process imports NumPy, matplotlib and the kit once, then forks one
child per module (as many at a time as there are cores). Every module still runs in a fresh
process, so nothing leaks from one module to the next. A module that raises, returns NaN or
±inf (codec.py), exits early (`sys.exit`, `os._exit`), is killed by a signal, or runs longer
than its time limit stops the build with its name; nothing is cached for a failed run.

Time limit: DEFAULT_TIME_LIMIT seconds per module; the environment variable
ANATOMIA_MODULE_TIMEOUT sets another default, and a module may set its own with a top-level
`TIME_LIMIT = <seconds>`.

Cache entry: `.cache/computed/<module>/<key>/` with result.json (codec.py), the figure files
and manifest.json (the SHA-256 of every file). It is written in a temporary folder and
renamed into place, and checked against its manifest whenever it is read: a missing,
truncated or altered file makes the module run again (and the log says why).

Run one module by hand (prints its values, writes its figures to a temporary folder):

    .venv/bin/python -m anatomia_engine.runner figures_src.worked_example
"""

from __future__ import annotations

import ast
import functools
import hashlib
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
TIME_LIMIT_ENV = "ANATOMIA_MODULE_TIMEOUT"
RESULT, MANIFEST, ERROR = "result.json", "manifest.json", "error.txt"
OUTPUT, CURRENT = "output.txt", "current.txt"   # what the module printed; what it was running

log = logging.getLogger("anatomia_engine.runner")
_engine_log = logging.getLogger("anatomia_engine")
if not _engine_log.handlers:   # MkDocs shows only its own loggers; say it the way it does
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    _engine_log.addHandler(_handler)


class ComputeError(Exception):
    """A figures_src module failed; the message names the module and function."""


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
    output: codec.ModuleOutput

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


def decode_values(raw: dict) -> dict:
    """Decoded values of a {name: encoded value} mapping (codec.decode_value on each)."""
    return {name: codec.decode_value(item) for name, item in raw.items()}


# --- what a module depends on -------------------------------------------------------------

def module_names(root: Path = ROOT) -> list[str]:
    """The article modules: figures_src/*.py whose names do not start with '_'."""
    return sorted(p.stem for p in (root / PACKAGE).glob("*.py") if not p.stem.startswith("_"))


def project_imports(path: Path, root: Path = ROOT) -> frozenset[Path]:
    """The project files (under `root`) that the Python file at `path` imports directly,
    with the `__init__.py` of every package on the way; relative imports included."""
    try:
        package = tuple(path.resolve().relative_to(root.resolve()).with_suffix("").parts[:-1])
    except ValueError:
        package = ()
    found: set[Path] = set()
    for parts in _imported_names(path.read_bytes(), package, root):
        for i in range(1, len(parts) + 1):   # resolved on every call: new files count at once
            stem = root.joinpath(*parts[:i])
            for candidate in (stem / "__init__.py", stem.with_name(stem.name + ".py")):
                if candidate.is_file():
                    found.add(candidate)
    return frozenset(found)


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


def import_closure(paths: Iterable[Path], root: Path = ROOT) -> list[Path]:
    """`paths` and every project file they import, transitively; sorted. Files of attn_core
    and of the engine are in every key whole (shared_files), so their imports are not read."""
    whole = {p.resolve() for p in shared_files(root)}
    seen: set[Path] = set()
    todo = [Path(p) for p in paths]
    while todo:
        current = todo.pop()
        if current in seen or not current.is_file():
            continue
        seen.add(current)
        if current.resolve() not in whole:
            todo.extend(project_imports(current, root))
    return sorted(seen)


def dependency_files(name: str, root: Path = ROOT) -> list[Path]:
    """The module's own file and every project file it imports, transitively."""
    return import_closure([root / PACKAGE / f"{name}.py", root / PACKAGE / "__init__.py"], root)


def shared_files(root: Path = ROOT) -> list[Path]:
    """What every result depends on: attn_core, the lock, the whole engine package."""
    engine = root / "anatomia_engine" if (root / "anatomia_engine").is_dir() else ENGINE
    files = sorted((root / "attn_core").rglob("*.py"))
    files += [root / f for f in LOCK_FILES if (root / f).exists()]
    return files + sorted(engine.rglob("*.py"))


def content_hash(paths: Iterable[Path], root: Path = ROOT) -> str:
    """SHA-256 over the Python version and each existing file's name (relative to `root`) and bytes."""
    digest = hashlib.sha256(sys.version.encode())
    for path in paths:
        if path.exists():
            name = path.relative_to(root) if path.is_relative_to(root) else path.name
            digest.update(str(name).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cache_key(name: str, root: Path = ROOT) -> str:
    """SHA-256 over everything that can change what `name` computes."""
    files = dependency_files(name, root)
    return content_hash(files + [f for f in shared_files(root) if f not in set(files)], root)[:20]


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


def load(name: str, key: str, folder: Path) -> ModuleResult:
    """The verified result in `folder`; ComputeError naming the file if anything is off."""
    problem = manifest_problem(folder)
    if problem is None:
        try:
            output = codec.decode((folder / RESULT).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, codec.CodecError) as exc:
            problem = f"{RESULT}: {exc}"
        else:
            for fig in output.figures.values():
                missing = [f for f in fig.files.values() if not (folder / f).is_file()]
                if missing:
                    problem = f"figure file {missing[0]} is missing"
            if problem is None:
                return ModuleResult(name, key, folder, output)
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
    """The warm worker: `python -m anatomia_engine.runner --serve JOBS` in the project root."""

    def __init__(self, root: Path, jobs: int, scratch: Path):
        self.log_path = scratch / "worker.log"
        path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
        env = dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg", PYTHONHASHSEED="0")
        with self.log_path.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "anatomia_engine.runner", "--serve", str(jobs)],
                cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                start_new_session=True)

    def run(self, requests: list[dict], patience: float) -> dict[str, dict]:
        """Send every request, collect {id: reply}; the worker enforces the time limits."""
        assert self.proc.stdin and self.proc.stdout
        try:
            self.proc.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        replies: dict[str, dict] = {}
        buffer = b""
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + patience
        while len(replies) < len(requests):
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                self.kill()
                raise ComputeError(f"the worker running figures_src modules stopped answering "
                                   f"(waited {patience:g} s); still running: "
                                   f"{', '.join(r['id'] for r in requests if r['id'] not in replies)}")
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                reply = json.loads(line)
                replies[reply["id"]] = reply
                deadline = time.monotonic() + patience
        self.proc.stdout.close()
        self.proc.wait(timeout=60)
        if len(replies) < len(requests):
            raise ComputeError(f"the worker running figures_src modules ended with exit status "
                               f"{self.proc.returncode} before running "
                               f"{', '.join(r['id'] for r in requests if r['id'] not in replies)}:\n"
                               f"{_tail(self.log_path)}")
        return replies

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


def _sweep(cache: Path, older_than: float = 3600.0) -> None:
    """Drop temporary run folders left by a build that was killed (older than an hour)."""
    now = time.time()
    for path in cache.glob(".*-*"):
        try:
            if path.is_dir() and now - path.stat().st_mtime > older_than:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def run_modules(names: list[str], keys: dict[str, str], root: Path, cache: Path,
                jobs: int) -> dict[str, ModuleResult]:
    """Run `names` in the warm worker; publish each successful result in the cache."""
    cache.mkdir(parents=True, exist_ok=True)
    _sweep(cache)
    limits = {n: time_limit(n, root) for n in names}
    works = {n: Path(tempfile.mkdtemp(prefix=f".{n}-", dir=cache)) for n in names}
    results: dict[str, ModuleResult] = {}
    errors: list[str] = []
    with tempfile.TemporaryDirectory(prefix=".worker-", dir=cache) as scratch:
        worker = _Worker(root, jobs, Path(scratch))
        try:
            requests = [{"id": n, "module": f"{PACKAGE}.{n}", "out": str(works[n]), "limit": limits[n]}
                        for n in names]
            replies = worker.run(requests, patience=max(limits.values()) + 120)
        except BaseException:
            worker.kill()
            for work in works.values():
                shutil.rmtree(work, ignore_errors=True)
            raise
    for n in names:
        work, reply = works[n], replies[n]
        try:
            if reply.get("status") != 0 or reply.get("timed_out") or not (work / MANIFEST).exists():
                raise ComputeError(_failure(n, work, reply, limits[n]))
            try:
                load(n, keys[n], work)
            except ComputeError as exc:
                raise ComputeError(f"figures_src/{n}.py: its result cannot be read back: {exc}") from None
            results[n] = _publish(n, keys[n], work, cache / n / keys[n])
        except ComputeError as exc:
            errors.append(str(exc))
        finally:
            shutil.rmtree(work, ignore_errors=True)
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
            jobs: int | None = None) -> tuple[dict[str, ModuleResult], list[str]]:
    """Results for every module (cached where the key matches and the entry verifies);
    also the names that ran."""
    cache = cache or root / ".cache" / "computed"
    names = list(module_names(root) if names is None else names)
    keys = {n: cache_key(n, root) for n in names}
    results: dict[str, ModuleResult] = {}
    stale = []
    for n in names:
        folder = cache / n / keys[n]
        if not folder.exists():
            stale.append(n)
            continue
        try:
            results[n] = load(n, keys[n], folder)
        except ComputeError as exc:
            log.warning("figures_src/%s.py: cached result not used, running the module again: %s", n, exc)
            shutil.rmtree(folder, ignore_errors=True)
            stale.append(n)
    if stale:
        results.update(run_modules(stale, keys, root, cache, jobs or os.cpu_count() or 2))
    return {n: results[n] for n in names}, stale


# --- the worker (child side) ----------------------------------------------------------------

def _collect(module):
    from anatomia_engine.kit import KIND

    functions = [f for f in vars(module).values()
                 if callable(f) and getattr(f, "__module__", None) == module.__name__
                 and hasattr(f, KIND)]
    return ([f for f in functions if getattr(f, KIND) == "values"],
            [f for f in functions if getattr(f, KIND) == "figure"])


def _save_svg(fig, path: Path, salt: str) -> None:
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": salt}):
        fig.savefig(path, format="svg", metadata={"Date": None, "Creator": None})


def run_module(module_name: str, out: Path) -> None:
    """Import one module, call its functions, write result.json, the figure files and the
    manifest into `out` (the manifest last). Raises on any problem."""
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
        plot = None
        for style in STYLES:
            now_running(f"{module_name}.{name}(style={style.name!r})")
            with matplotlib.rc_context(style.rc()):
                plot = fn(style)
                if not isinstance(plot, Plot):
                    raise TypeError(f"@figure function must return a Plot, got {type(plot).__name__}")
                filename = f"{name}-{style.name}.svg"
                use_decimal_comma(plot.fig)
                _save_svg(plot.fig, out / filename, f"{short}.{name}.{style.name}")
                plt.close(plot.fig)
            files[style.name] = filename
        codec.encode_value(plot.table,
                           f"figures_src/{short}.py: {name}(style) returned a Plot whose data table")
        (out / f"{name}.csv").write_text(plot.table.to_csv(), encoding="utf-8")
        files["csv"] = f"{name}.csv"
        output.figures[name] = codec.FigureRecord(name, files, plot.alt, plot.caption, plot.table)
    now_running(f"{module_name} (writing the result)")
    (out / RESULT).write_text(codec.encode(output), encoding="utf-8")
    write_manifest(out)


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
        try:
            run_module(request["module"], out)
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


def serve(jobs: int) -> int:
    """The warm worker: read JSON requests on stdin, fork one child per module (at most `jobs`
    at a time), kill a child past its time limit, answer one JSON line per request."""
    _preload()
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)   # anything printed by accident goes to the log, not into the replies
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
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            request = running.pop(pid, None)
            if request is None:
                continue
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            reply = {"id": request["id"], "status": code, "timed_out": request.get("timed_out", False),
                     "seconds": round(time.monotonic() - request["started"], 3)}
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
