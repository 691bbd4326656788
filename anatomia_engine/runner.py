"""Run the figures_src modules whose inputs changed, each in a fresh process, within a time limit.

`compute()` takes a module's result from the store (`.cache/anatomia/computed/`: its record of
inputs (deps.py), result.json (codec.py) and figure files) while what its last run read is
unchanged, and runs the others in the worker (worker.py). A module that raises, returns NaN or
±inf, uses a global random generator, writes into docs/, exits early, is killed or runs past its
time limit stops the build with its name; nothing is kept for a failed run. Under `mkdocs serve`
(`keep_worker`) the worker stays up, restarted as soon as a file it imported changed.
Time limit: DEFAULT_TIME_LIMIT s, or $ANATOMIA_MODULE_TIMEOUT, or a module's `TIME_LIMIT = <s>`.
Run one module by hand (prints its values, writes its figures to a temporary folder):

    .venv/bin/python -m anatomia_engine.runner figures_src.worked_example
"""

from __future__ import annotations

import ast
import atexit
import functools
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
from dataclasses import dataclass
from pathlib import Path

from anatomia_engine import codec, deps, store, worker
from anatomia_engine import messages as M
from anatomia_engine.worker import CURRENT, DEPS, ERROR, LOCK_FILES, OUTPUT, RESULT  # noqa: F401 (notebooks.py)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "figures_src"
DEFAULT_TIME_LIMIT = 300.0
TIME_LIMIT_ENV = "ANATOMIA_MODULE_TIMEOUT"
FORMAT = 1   # of a store entry: {"format", "deps", "result", "files"}
# One BLAS thread per process: modules run side by side on every core, and sums stay machine-independent.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

log = logging.getLogger("anatomia_engine.runner")
_engine_log = logging.getLogger("anatomia_engine")
if not _engine_log.handlers:   # MkDocs shows only its own loggers; say it the way it does
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    _engine_log.addHandler(_handler)


class ComputeError(Exception):
    """A figures_src module failed; the message names the module and function."""


@dataclass(frozen=True, eq=False)
class ModuleResult:
    """What one module produced: its figure files' `contents` (published under figures/<module>/),
    the `digest` of its content, the `record` of what its run read and result.json's `text`,
    decoded on first use (a build whose pages all come from the page store decodes nothing)."""

    contents: dict[str, str]
    digest: str
    record: dict
    root: Path
    text: str
    where: str        # the store entry, for messages

    @functools.cached_property
    def inputs(self) -> list[Path]:
        """Absolute paths of every file and folder the run read."""
        return deps.inputs(self.record, self.root)

    @functools.cached_property
    def output(self) -> codec.ModuleOutput:
        try:
            return codec.decode(self.text)
        except codec.CodecError as exc:
            raise ComputeError(f"{self.where}: {RESULT}: {exc}") from None

    @functools.cached_property
    def values(self) -> dict:
        """name -> decoded value (number, str, np.ndarray, list/dict, kit.Table)."""
        return {n: r.value for n, r in self.output.values.items()}

    @functools.cached_property
    def meta(self) -> dict:
        """name -> {"function", "what", "cite", "axes"}."""
        return {n: r.meta() for n, r in self.output.values.items()}

    @functools.cached_property
    def figures(self) -> dict:
        """name -> {"files": {style or "csv": filename}, "alt", "caption", "table": encoded table}."""
        return {n: {"files": dict(f.files), "alt": f.alt, "caption": f.caption,
                    "table": codec.encode_value(f.table, f"figure {n!r}")}
                for n, f in self.output.figures.items()}


def decode_values(raw: dict) -> dict:
    """Decoded values of a {name: encoded value} mapping."""
    return {name: codec.decode_value(item) for name, item in raw.items()}


def module_names(root: Path = ROOT) -> list[str]:
    """The article modules: figures_src/*.py whose names do not start with '_'."""
    return sorted(p.stem for p in (root / PACKAGE).glob("*.py") if not p.stem.startswith("_"))


def time_limit(name: str, root: Path = ROOT) -> float:
    """Seconds `name` may run: its own `TIME_LIMIT`, else $ANATOMIA_MODULE_TIMEOUT, else the default."""
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
        raise ComputeError(M.text("bad_time_limit", env=TIME_LIMIT_ENV, value=env))
    return seconds


def worker_environment(root: Path) -> dict[str, str]:
    """The environment modules run in (what a record's variables are compared with)."""
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path, MPLBACKEND="Agg", PYTHONHASHSEED="0", **ONE_THREAD)


@functools.cache
def scratch() -> Path:
    """This process's folder for runs and result files (removed when it ends)."""
    folder = Path(tempfile.mkdtemp(prefix="anatomia-results-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _tail(path: Path, limit: int = 3000) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-limit:].rstrip()
    except OSError:
        return ""


# --- the worker, from the build's side ----------------------------------------------------------

class _Worker:
    """The worker process (worker.py); it ends when its input is closed."""

    def __init__(self, root: Path, jobs: int):
        self.key = (root, jobs, worker_environment(root))
        self.log_path = scratch() / f"worker-{time.time_ns()}.log"
        with self.log_path.open("w") as err:   # stdout unbuffered: select() sees every line
            self.proc = subprocess.Popen(
                [sys.executable, "-c", worker.BOOT, str(root), str(jobs)], cwd=root, env=self.key[2],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, start_new_session=True, bufsize=0)
        hello = self._line(300, "starting")
        if hello is None or "preloaded" not in hello:
            self._end()
            failed = M.text("worker_no_start", status=self.proc.returncode)
            raise ComputeError(f"{failed}\n{_tail(self.log_path)}")
        self.preloaded: dict = hello["preloaded"]

    def _line(self, patience: float, doing: str) -> dict | None:
        """The next JSON line from the worker; None at its end; ComputeError after `patience` s."""
        if not select.select([self.proc.stdout], [], [], patience)[0]:
            self._end()
            raise ComputeError(M.text("worker_silent", seconds=patience, doing=doing))
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def run(self, requests: list[dict], patience: float) -> dict[str, int]:
        """{id: exit status} for every request; the children enforce their time limits."""
        statuses: dict[str, int] = {}
        try:
            self.proc.stdin.write(json.dumps(requests).encode() + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        while len(statuses) < len(requests):
            waiting = ", ".join(r["id"] for r in requests if r["id"] not in statuses)
            reply = self._line(patience, f"still running: {waiting}")
            if reply is None:
                self._end()
                ended = M.text("worker_ended", status=self.proc.returncode, modules=waiting)
                raise ComputeError(f"{ended}\n{_tail(self.log_path)}")
            statuses[reply["id"]] = reply["status"]
        return statuses

    def usable(self, root: Path, jobs: int) -> bool:
        """Still running, for this project and environment, and every file it imported unchanged."""
        return (self.key == (root, jobs, worker_environment(root)) and self.proc.poll() is None
                and deps.problem(self.preloaded, root, self.key[2]) is None)

    def _end(self) -> None:
        """Close its input (it ends once idle); kill it if it does not."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            pipe.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


_kept: list[_Worker] = []   # the worker kept between builds (compute's keep_worker)


def stop_worker() -> None:
    """End the worker kept between builds, if any."""
    while _kept:
        _kept.pop()._end()


atexit.register(stop_worker)


def _failure(name: str, work: Path, status: int, limit: float) -> str:
    """The message for a run that did not produce a result."""
    where = f"{PACKAGE}/{name}.py"
    current = _tail(work / CURRENT) or f"{PACKAGE}.{name} (import)"
    if status == -signal.SIGALRM:
        limited = M.text("time_limit", where=where, limit=limit, current=current, env=TIME_LIMIT_ENV)
        return f"{limited}\n  {M.text('nothing_cached')}"
    if (work / ERROR).exists():
        error = _tail(work / ERROR, 8000)
        message = error if error.startswith(where) else f"{where} failed:\n{error}"
    elif status < 0:
        message = M.text("killed", where=where, signal=signal.Signals(-status).name, status=status,
                         current=current)
    else:
        message = M.text("ended_early", where=where, status=status, current=current)
    output = _tail(work / OUTPUT, 2000)
    if output:
        message += "\n  the module printed:\n" + "\n".join("    " + line for line in output.splitlines())
    return f"{message}\n  {M.text('nothing_cached')}"


# --- results kept in the store --------------------------------------------------------------------

def entry_name(name: str, root: Path) -> str:
    try:
        source = (root / PACKAGE / f"{name}.py").read_bytes()
    except OSError:
        source = b""
    return store.key("figures_src module", name, source)


_known: dict[tuple[str, str], ModuleResult] = {}   # (entry, digest) -> result: a rebuild reuses it


def _result(body: dict, root: Path, where: str) -> ModuleResult:
    files = body["files"]
    digest = store.key(body["result"], *(f"{f}\0{files[f]}" for f in sorted(files)))
    if (where, digest) not in _known:
        _known[where, digest] = ModuleResult(files, digest, body["deps"], root, body["result"], where)
    return _known[where, digest]


def lookup(name: str, root: Path, kept: store.Store, hashes: dict | None = None) -> ModuleResult | None:
    """The kept result of module `name` if its record of inputs still holds, else None."""
    key = entry_name(name, root)
    where = f"{PACKAGE}/{name}.py"
    data = kept.get(key, where)
    if data is None:
        return None
    path = kept.folder / f"{key}{kept.suffix}"
    try:
        body = json.loads(data)
        if body.get("format") != FORMAT or not isinstance(body["files"], dict):
            raise ValueError(f"format {body.get('format')!r}")
        changed = deps.problem(body["deps"], root, worker_environment(root), hashes)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning(M.text("result_unreadable", where=where, path=path, problem=exc))
        return None
    if changed is not None:
        log.info("%s: runs again: %s", where, changed)
        return None
    return _result(body, root, str(path))


def _save(name: str, root: Path, kept: store.Store, work: Path) -> ModuleResult:
    """Keep the result a run wrote into `work` in the store."""
    key = entry_name(name, root)
    result = (work / RESULT).read_text(encoding="utf-8")
    files = [f for fig in json.loads(result)["figures"].values() for f in fig["files"].values()]
    body = {"format": FORMAT, "deps": json.loads((work / DEPS).read_text(encoding="utf-8")), "result": result,
            "files": {f: (work / f).read_text(encoding="utf-8") for f in files}}
    kept.put(key, json.dumps(body, sort_keys=True).encode("utf-8"))
    return _result(body, root, str(kept.folder / f"{key}{kept.suffix}"))


def _run(names: list[str], root: Path, kept: store.Store, jobs: int, keep_worker: bool) -> dict:
    """Run `names` in the worker; keep each successful result in the store."""
    limits = {n: time_limit(n, root) for n in names}
    batch = Path(tempfile.mkdtemp(dir=scratch()))
    sources = {n: root / PACKAGE / f"{n}.py" for n in names}
    # the largest sources, a rough guess of the longest runs, start first
    order = sorted(names, key=lambda n: -sources[n].stat().st_size if sources[n].exists() else 0)
    requests = [{"id": n, "module": f"{PACKAGE}.{n}", "out": str(batch / n), "limit": limits[n],
                 "docs": str(root / "docs")} for n in order]
    results: dict[str, ModuleResult] = {}
    errors: list[str] = []
    try:
        for n in names:
            (batch / n).mkdir()
        if _kept and not (keep_worker and _kept[0].usable(root, jobs)):
            stop_worker()
        if not _kept:
            _kept.append(_Worker(root, jobs))
        statuses = _kept[0].run(requests, max(limits.values()) + 120)
        for n in names:
            if statuses[n] != 0 or not (batch / n / DEPS).exists():
                errors.append(_failure(n, batch / n, statuses[n], limits[n]))
                continue
            try:
                results[n] = _save(n, root, kept, batch / n)
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                errors.append(M.text("unreadable_result", where=f"{PACKAGE}/{n}.py", problem=exc))
    except BaseException:
        stop_worker()
        raise
    finally:
        shutil.rmtree(batch, ignore_errors=True)
        if not keep_worker:
            stop_worker()
    if errors:
        raise ComputeError("\n\n".join(errors))
    return results


def compute(names: Iterable[str] | None = None, root: Path = ROOT, cache: Path | None = None,
            jobs: int | None = None, keep_worker: bool = False) -> tuple[dict[str, ModuleResult], list[str]]:
    """Results for `names` (default: every module), kept ones where their record of inputs
    still holds; also the names that ran. `keep_worker` (for `mkdocs serve`): keep the
    worker between calls, restarted when a file it imported changed."""
    root = Path(root).resolve()
    kept = store.Store(cache or store.folder(root, "computed"), ".json")
    every = names is None
    names = list(module_names(root) if names is None else names)
    hashes: dict = {}
    results = {n: found for n in names if (found := lookup(n, root, kept, hashes)) is not None}
    stale = [n for n in names if n not in results]
    if stale:
        results.update(_run(stale, root, kept, jobs or os.cpu_count() or 2, keep_worker))
    if every:
        kept.prune()
    return {n: results[n] for n in names}, stale


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
    for filename, text in result.contents.items():
        (out / filename).write_text(text, encoding="utf-8")
    print(f"figures: {', '.join(sorted(result.figures))} -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
