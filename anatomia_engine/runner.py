"""Run figures_src modules in fresh subprocesses and cache their results by content hash.

A module's cache key is the SHA-256 of: its own source, the sources of the figures_src
modules it imports (transitively), every file of attn_core, the dependency lock, the
Python version and this runner. Same key -> the cached values and figures are reused;
any change -> the module is re-run in a new interpreter, so edits to attn_core are never
served stale by an old import.

Run one module by hand (prints its values, writes its figures to a temporary folder):

    .venv/bin/python -m anatomia_engine.runner figures_src.worked_example
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "figures_src"
CACHE = ROOT / ".cache" / "computed"
LOCK_FILES = ("requirements.lock",)


class ComputeError(Exception):
    """A figures_src module failed; the message names the module and function."""


@dataclass(frozen=True)
class ModuleResult:
    """What one module produced: decoded values and figure metadata, plus its cache folder."""

    name: str
    key: str
    folder: Path
    values: dict
    figures: dict
    meta: dict  # value name -> {"function": ..., "what": ..., "cite": ..., "axes": ...}


# --- hashing -------------------------------------------------------------------------

def module_names(root: Path = ROOT) -> list[str]:
    """The article modules: figures_src/*.py whose names do not start with '_'."""
    return sorted(p.stem for p in (root / PACKAGE).glob("*.py") if not p.stem.startswith("_"))


def imported_siblings(path: Path) -> set[str]:
    """Names of the figures_src modules that the Python file at `path` imports."""
    stat = path.stat()
    return _imports(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _imports(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    # Keyed on the file's modification time and size: parsed again only when it changed,
    # which keeps a rebuild under `mkdocs serve` from re-parsing every module.
    tree = ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == PACKAGE:
                found.update(alias.name for alias in node.names)
            elif node.module.startswith(PACKAGE + "."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name.split(".")[1])
    return frozenset(found)


def dependency_files(name: str, root: Path = ROOT) -> list[Path]:
    """The module's own file and every figures_src file it imports, transitively."""
    seen: dict[str, Path] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        path = root / PACKAGE / f"{current}.py"
        if current in seen or not path.exists():
            continue
        seen[current] = path
        todo.extend(imported_siblings(path))
    return [seen[k] for k in sorted(seen)] + [root / PACKAGE / "__init__.py"]


def _shared_files(root: Path) -> list[Path]:
    files = sorted((root / "attn_core").rglob("*.py"))
    files += [root / f for f in LOCK_FILES if (root / f).exists()]
    return files + sorted(Path(__file__).resolve().parent.rglob("*.py"))  # the whole engine


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
    return content_hash(dependency_files(name, root) + _shared_files(root), root)[:20]


# --- running (parent side) ------------------------------------------------------------

def _load(name: str, key: str, folder: Path) -> ModuleResult:
    raw = json.loads((folder / "values.json").read_text(encoding="utf-8"))
    figures = json.loads((folder / "figures.json").read_text(encoding="utf-8"))
    meta = {k: {m: item.get(m) for m in ("function", "what", "cite", "axes")} for k, item in raw.items()}
    return ModuleResult(name, key, folder, decode_values(raw), figures, meta)


def _run_subprocess(name: str, key: str, root: Path, cache: Path) -> ModuleResult:
    final = cache / name / key
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=cache))
    env = dict(os.environ, PYTHONPATH=str(root), MPLBACKEND="Agg", PYTHONHASHSEED="0")
    proc = subprocess.run(
        [sys.executable, "-m", "anatomia_engine.runner", "--worker", f"{PACKAGE}.{name}", str(work)],
        cwd=root, env=env, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        report = work / "error.txt"
        detail = report.read_text(encoding="utf-8") if report.exists() else proc.stderr
        shutil.rmtree(work, ignore_errors=True)
        raise ComputeError(f"figures_src/{name}.py failed:\n{detail.rstrip()}")
    if final.exists():  # another build got there first
        shutil.rmtree(work, ignore_errors=True)
    else:
        final.parent.mkdir(parents=True, exist_ok=True)
        for old in final.parent.iterdir():  # keep one result per module
            shutil.rmtree(old, ignore_errors=True)
        work.rename(final)
    return _load(name, key, final)


def compute(names: Iterable[str] | None = None, root: Path = ROOT, cache: Path | None = None,
            jobs: int = 2) -> tuple[dict[str, ModuleResult], list[str]]:
    """Results for every module (cached where the key matches); also the names that ran."""
    cache = cache or root / ".cache" / "computed"
    names = list(module_names(root) if names is None else names)
    keys = {n: cache_key(n, root) for n in names}
    results: dict[str, ModuleResult] = {}
    stale = []
    for n in names:
        folder = cache / n / keys[n]
        if (folder / "figures.json").exists():
            results[n] = _load(n, keys[n], folder)
        else:
            stale.append(n)
    errors = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {n: pool.submit(_run_subprocess, n, keys[n], root, cache) for n in stale}
        for n, future in futures.items():
            try:
                results[n] = future.result()
            except ComputeError as exc:
                errors.append(str(exc))
    if errors:
        raise ComputeError("\n\n".join(errors))
    return results, stale


# --- value encoding -------------------------------------------------------------------

def encode_value(value):
    """JSON-able form of a value: numbers keep full precision (repr round-trips)."""
    import numbers

    import numpy as np

    from anatomia_engine.kit import Table

    if isinstance(value, Table):
        rows = [[_plain(c) for c in row] for row in value.rows]
        return {"type": "table", "header": list(value.header), "rows": rows,
                "formats": None if value.formats is None else list(value.formats)}
    if isinstance(value, (bool, np.bool_)):
        return {"type": "bool", "value": bool(value)}
    if isinstance(value, numbers.Integral):
        return {"type": "int", "value": int(value)}
    if isinstance(value, numbers.Real):
        return {"type": "float", "value": float(value)}
    if isinstance(value, str):
        return {"type": "str", "value": value}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise TypeError(f"arrays must be numeric, got dtype {value.dtype}")
        return {"type": "array", "value": value.astype(float).tolist()}
    if isinstance(value, (list, tuple, dict)):
        return {"type": "json", "value": _plain(value)}
    raise TypeError(f"cannot publish a value of type {type(value).__name__}")


def _plain(value):
    import numbers

    import numpy as np

    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def decode_values(raw: dict) -> dict:
    import numpy as np

    from anatomia_engine.kit import Table

    out = {}
    for name, item in raw.items():
        kind = item["type"]
        if kind == "table":
            out[name] = Table(item["header"], item["rows"], item["formats"])
        elif kind == "array":
            out[name] = np.array(item["value"], dtype=float)
        else:
            out[name] = item["value"]
    return out


# --- the worker (child side) ----------------------------------------------------------

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


def run_worker(module_name: str, out: Path) -> None:
    """Import one module, call its functions, write values.json, figures.json and files."""
    import importlib

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from anatomia_engine.kit import Plot, Value
    from anatomia_engine.plot import STYLES, use_decimal_comma

    short = module_name.split(".")[-1]
    current = f"{module_name} (import)"
    try:
        module = importlib.import_module(module_name)
        value_fns, figure_fns = _collect(module)
        values: dict = {}
        for fn in value_fns:
            current = f"{module_name}.{fn.__name__}()"
            produced = fn()
            if not isinstance(produced, dict):
                raise TypeError(f"@values function must return a dict, got {type(produced).__name__}")
            for key, value in produced.items():
                if key in values:
                    raise ValueError(f"value name {key!r} is defined twice in {module_name}")
                meta = {"function": fn.__name__}
                if isinstance(value, Value):
                    meta.update(what=value.what, cite=value.cite,
                                axes=None if value.axes is None else [list(a) for a in value.axes])
                    value = value.value
                values[key] = {**encode_value(value), **meta}
        figures: dict = {}
        for fn in figure_fns:
            name = fn.__name__
            if name in values:
                raise ValueError(f"{name!r} is both a value and a figure in {module_name}")
            entry: dict = {"files": {}}
            for style in STYLES:
                current = f"{module_name}.{name}(style={style.name!r})"
                with matplotlib.rc_context(style.rc()):
                    plot = fn(style)
                    if not isinstance(plot, Plot):
                        raise TypeError(f"@figure function must return a Plot, got {type(plot).__name__}")
                    filename = f"{name}-{style.name}.svg"
                    use_decimal_comma(plot.fig)
                    _save_svg(plot.fig, out / filename, f"{short}.{name}.{style.name}")
                    plt.close(plot.fig)
                entry["files"][style.name] = filename
                entry.update(alt=plot.alt, caption=plot.caption,
                             table=encode_value(plot.table))
            (out / f"{name}.csv").write_text(plot.table.to_csv(), encoding="utf-8")
            entry["files"]["csv"] = f"{name}.csv"
            figures[name] = entry
    except Exception:
        (out / "error.txt").write_text(f"in {current}:\n{traceback.format_exc()}", encoding="utf-8")
        raise SystemExit(1) from None
    (out / "values.json").write_text(json.dumps(values, indent=1, sort_keys=True), encoding="utf-8")
    (out / "figures.json").write_text(json.dumps(figures, indent=1, sort_keys=True), encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "--worker":
        run_worker(argv[1], Path(argv[2]))
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    name = argv[0].removeprefix(PACKAGE + ".")
    with tempfile.TemporaryDirectory() as tmp:
        results, _ = compute([name], cache=Path(tmp))
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
