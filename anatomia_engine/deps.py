"""What a computation read, recorded by its own process (a depfile), and whether that still holds:
every project file it imports (compiled from the bytes hashed, never from a `.pyc`), every place an
import looked in vain, every file it opens for reading, every folder it lists, every environment
variable it reads. The Python installation, /dev, /proc, /sys, the temporary folder and hidden or
cache folders are not inputs.
"""

import collections.abc
import contextlib
import hashlib
import importlib.machinery
import importlib.metadata
import os
import sys
import tempfile
import threading
from pathlib import Path

_files: dict[str, str] = {}        # absolute path -> SHA-256 of what was read
_absent: set[str] = set()          # absolute paths an import looked for
_folders: dict[str, str] = {}      # absolute path -> SHA-256 of its sorted listing
_env: dict[str, str | None] = {}   # variable -> value read (None: unset); "" -> the names listed
_busy = threading.local()          # set while this file reads for itself (no recording)
_skip: list[str] = []              # more folders that are not inputs (a run's own output)
_root: list[str] = [""]            # the project root, once `start` turned recording on
_OUTSIDE = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                                  sys.base_exec_prefix, tempfile.gettempdir())}
                 | {"/dev", "/proc", "/sys"})
_SKIPPED_PARTS = {"__pycache__", "site-packages", "dist-packages", "node_modules"}
# The engine's own files are inputs wherever it is installed (a checkout under /tmp, site-packages).
_ENGINE = os.path.dirname(os.path.realpath(__file__))
_METADATA = os.path.dirname(importlib.metadata.__file__)   # installed packages' metadata lookups


def inside(path: str, folder: str) -> bool:
    """Whether the absolute `path` is `folder` or in it."""
    return path == folder or path.startswith(folder + os.sep)


def _is_input(path: str, root: str) -> bool:
    base = next((b for b in (root, _ENGINE) if inside(path, b)), None)
    if any(p.startswith(".") or p in _SKIPPED_PARTS for p in path[len(base or ""):].split(os.sep)):
        return False
    return not any(inside(path, o) for o in (*_skip, *(() if base else _OUTSIDE)))


def _listing(path: str) -> str:
    return hashlib.sha256("\n".join(sorted(os.listdir(path))).encode()).hexdigest()


def _file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _note_file(path: str, data: bytes | None = None) -> None:
    if path not in _files and _is_input(path, _root[0]) and os.path.isfile(path):
        _busy.on = True
        with contextlib.suppress(OSError):
            _files[path] = hashlib.sha256(data).hexdigest() if data is not None else _file_digest(path)
        _busy.on = False


def _audit(event: str, args: tuple) -> None:
    """Audit hook: files opened for reading and folders listed, resolved now (sys.addaudithook)."""
    if getattr(_busy, "on", False) or event not in ("open", "os.listdir", "os.scandir"):
        return
    try:
        path = "." if args[0] is None else args[0]
        if not isinstance(path, (str, bytes, os.PathLike)):
            return                                   # a file descriptor
        path = os.path.realpath(os.fsdecode(path))
        if event == "open":
            if not (args[2] or 0) & (os.O_WRONLY | os.O_RDWR):      # read, not written
                _note_file(path)
        elif (path not in _folders and _is_input(path, _root[0]) and os.path.isdir(path)
              and not sys._getframe(1).f_code.co_filename.startswith(("<frozen importlib", _METADATA))):
            _busy.on = True                          # (the import system's lookups: see _Finder)
            _folders[path] = _listing(path)
    except Exception:   # noqa: BLE001 - an audit hook must never break the operation
        pass
    finally:
        _busy.on = False


class _Loader(importlib.machinery.SourceFileLoader):
    """Compiles project code from its source bytes (never a cached .pyc) and records them."""

    def get_code(self, fullname):
        data = self.get_data(self.path)
        _note_file(os.path.realpath(self.path), data)
        return self.source_to_code(data, self.path)


class _Finder(importlib.machinery.FileFinder):
    """A project folder's import finder that remembers where it looked in vain."""

    def find_spec(self, fullname, target=None):
        spec = super().find_spec(fullname, target)
        if spec is None or spec.origin is None:
            base = os.path.join(self.path, fullname.rpartition(".")[2])
            _absent.update({base + ".py", os.path.join(base, "__init__.py")})
        return spec


def _path_hook(entry: str):
    folder = os.path.realpath(entry or ".")
    if not _root[0] or not _is_input(folder, _root[0]) or not os.path.isdir(folder):
        raise ImportError("not a project folder")
    return _Finder(folder, (_Loader, importlib.machinery.SOURCE_SUFFIXES))


class _Environ(collections.abc.MutableMapping):
    """os.environ that records each variable read (not those this process set itself)."""

    def __init__(self, real) -> None:
        self._real, self._set = real, set()

    def _note(self, key) -> None:
        if isinstance(key, str) and key not in self._set and key not in _env:
            _env[key] = self._real.get(key)

    def __getitem__(self, key):
        self._note(key)
        return self._real[key]

    def __setitem__(self, key, value) -> None:
        self._set.add(key)
        self._real[key] = value

    def __delitem__(self, key) -> None:
        self._set.add(key)
        del self._real[key]

    def __iter__(self):   # the names it sees; a value read is noted by __getitem__
        _env.setdefault("", "\n".join(sorted(k for k in self._real if k not in self._set)))
        return iter(list(self._real))

    def __len__(self) -> int:
        return len(self._real)

    def copy(self) -> dict:
        return dict(self)


def start(root: Path, skip: tuple[Path, ...] = ()) -> None:
    """Record from now on what this process reads of the project at `root` and its lock file."""
    if not _root[0]:
        _root[0] = os.path.realpath(root)
        sys.path_hooks.insert(0, _path_hook)
        sys.path_importer_cache.clear()
        sys.addaudithook(_audit)
        os.environ = _Environ(os.environ)  # noqa: B003 - recording reads, keeping the real mapping inside
    importlib.invalidate_caches()
    _skip.extend(os.path.realpath(p) for p in skip)
    note(Path(root, "requirements.lock"))   # what is installed


def use_environment(env: collections.abc.Mapping[str, str]) -> None:
    """Replace this process's environment by `env`, as if it had started with it (a forked run)."""
    real = os.environ._real if isinstance(os.environ, _Environ) else os.environ
    real.clear()
    real.update(env)


def note(path: Path) -> None:
    """Record `path` as read (a file every computation depends on)."""
    _note_file(os.path.realpath(path))


def _name(path: str, root: str) -> str:
    """How a record names `path`: relative to the project root, else absolute."""
    return os.path.relpath(path, root) if inside(path, root) else path


def snapshot(root: Path) -> dict:
    """What this process has read so far, every loaded module's source included; JSON-ready."""
    for module in list(sys.modules.values()):
        if isinstance(getattr(module, "__file__", None), str):
            note(Path(module.__file__))
    base = os.path.realpath(root)
    return {"python": sys.version,
            "files": {_name(p, base): d for p, d in sorted(_files.items())},
            "absent": sorted(_name(p, base) for p in _absent
                             if p not in _files and _is_input(p, base) and not os.path.exists(p)),
            "folders": {_name(p, base): d for p, d in sorted(_folders.items())},
            "env": dict(sorted(_env.items()))}


def _now(read, path: str) -> str | None:
    with contextlib.suppress(OSError):
        return read(path)
    return None


def problem(record: dict, root: Path, environ: collections.abc.Mapping[str, str]) -> str | None:
    """None if `record` still holds for the project at `root` and the environment `environ`, else why not."""
    base = str(root)
    try:
        if record["python"] != sys.version:
            return "the Python version changed"
        for name, sha in record["files"].items():
            if _now(_file_digest, os.path.join(base, name)) != sha:
                return f"{name} changed" if os.path.isfile(os.path.join(base, name)) else f"{name} is gone"
        for name, sha in record["folders"].items():
            if _now(_listing, os.path.join(base, name)) != sha:
                return f"the listing of {name} changed"
        for name in record["absent"]:
            if os.path.exists(os.path.join(base, name)):
                return f"{name} appeared"
        for key, value in record["env"].items():
            seen = "\n".join(sorted(environ)) if key == "" else environ.get(key)
            if seen != value:
                return "the set of environment variables changed" if key == "" else f"${key} changed"
    except (KeyError, TypeError, AttributeError) as exc:
        return f"its record of inputs is unreadable ({type(exc).__name__}: {exc})"
    return None


def inputs(record: dict, root: Path) -> list[Path]:
    """Absolute paths of every file and folder `record` read (what a server should watch)."""
    return sorted({(root / name).resolve() for name in (*record["files"], *record["folders"])})
