"""What a computation read, recorded by its own process (a depfile), and whether that still holds:
every project file it imports (compiled from the bytes hashed, never from a `.pyc`), every place an
import looked in vain, every file it opens (for reading or for update: a database changed in place),
every file or folder whose existence or size it checks (`os.stat`, `Path.exists`), every folder it
lists, every environment variable it reads (`os.environ`, `os.environb`). A path through a symbolic
link is recorded as written and as resolved, so a link pointed elsewhere is a change. Dot files and dot
folders of the project are inputs like any other (`.env`, `figures_src/.data/`). The Python
installation, /dev, /proc, /sys, the temporary folder, `__pycache__` and the build's own cache are not.
"""

import collections.abc
import contextlib
import functools
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
_present: set[str] = set()         # absolute paths of folders whose existence was checked
_env: dict[str, str | None] = {}   # variable -> value read (None: unset); "" -> the names listed
_busy = threading.local()          # set while this file reads for itself (no recording)
_skip: list[str] = []              # more folders that are not inputs (a run's own output)
_root: list[str] = [""]            # the project root, once `start` turned recording on
_noted_modules: set[str] = set()   # the module files `snapshot` has noted
# The Python installation is never an input, even inside the project (.venv); what else is outside the
# project is not one either: the temporary folder (the project itself may be in it), /dev, /proc, /sys.
PYTHON = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                                 sys.base_exec_prefix)})
_OUTSIDE = (*PYTHON, os.path.realpath(tempfile.gettempdir()), "/dev", "/proc", "/sys")
_SKIPPED_PARTS = {"__pycache__", "site-packages", "dist-packages", "node_modules"}
_STORE = os.path.join(".cache", "anatomia")   # the build's own cache (store.py), in the project
# The engine's own files are inputs wherever it is installed (a checkout under /tmp, site-packages).
ENGINE = os.path.dirname(os.path.realpath(__file__))
_METADATA = os.path.dirname(importlib.metadata.__file__)   # installed packages' metadata lookups


def inside(path: str, folder: str) -> bool:
    """Whether the absolute `path` is `folder` or in it."""
    return path == folder or path.startswith(folder + os.sep)


def _is_input(path: str, root: str) -> bool:
    base = next((b for b in (root, ENGINE) if inside(path, b)), None)
    if any(p in _SKIPPED_PARTS for p in path[len(base or ""):].split(os.sep)):
        return False
    if base == root and inside(path, os.path.join(root, _STORE)):
        return False
    python = () if base == ENGINE else PYTHON     # (the engine may be installed in site-packages)
    return not any(inside(path, o) for o in (*_skip, *python, *(() if base else _OUTSIDE)))


def _names(path, resolved: bool = True) -> list[str]:
    """The absolute forms of the path `path` that a record may hold: as written (made absolute: a
    symbolic link on the way stays, so pointing it elsewhere is a change) and, if `resolved`, with every
    link resolved (the file that was read). Empty for a file descriptor."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return []
    written = os.path.abspath(os.fsdecode(path))
    return list(dict.fromkeys([written, os.path.realpath(written)] if resolved else [written]))


def _listing(path: str) -> str:
    return hashlib.sha256("\n".join(sorted(os.listdir(path))).encode()).hexdigest()


def _file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _note_file(path: str, data: bytes | None = None) -> None:
    busy = getattr(_busy, "on", False)
    _busy.on = True
    try:
        if path not in _files and _is_input(path, _root[0]) and os.path.isfile(path):
            with contextlib.suppress(OSError):
                _files[path] = hashlib.sha256(data).hexdigest() if data is not None else _file_digest(path)
    finally:
        _busy.on = busy


def _note_exists(path: str) -> None:
    """Record what a check of `path`'s existence, kind or size depends on: a file's content, that a
    folder is there, or that nothing is."""
    if path in _files or path in _present or path in _absent or not _is_input(path, _root[0]):
        return
    if os.path.isfile(path):
        _note_file(path)
    elif os.path.isdir(path):
        _present.add(path)
    elif not os.path.lexists(path):
        _absent.add(path)


# an open that changes a file without reading it: its content before is not an input
_WRITE_ONLY = os.O_WRONLY | os.O_TRUNC


def _audit(event: str, args: tuple) -> None:
    """Audit hook: files opened (for reading or update), databases connected to and folders listed,
    resolved now (sys.addaudithook)."""
    if getattr(_busy, "on", False) or event not in ("open", "os.listdir", "os.scandir", "sqlite3.connect"):
        return
    _busy.on = True
    try:
        path = "." if event.startswith("os.") and args[0] is None else args[0]
        if event == "sqlite3.connect":
            path = _sqlite_file(path)
        for name in _names(path):
            if event == "open":
                flags = args[2] or 0
                if not flags & os.O_WRONLY and not (flags & os.O_RDWR and flags & os.O_TRUNC):
                    _note_file(name)                 # read, or opened for update ("r+", "a+")
            elif event == "sqlite3.connect":
                _note_file(name)                     # its content before this run changed it
            elif (name not in _folders and _is_input(name, _root[0]) and os.path.isdir(name)
                  and not sys._getframe(1).f_code.co_filename.startswith(("<frozen importlib", _METADATA))):
                _folders[name] = _listing(name)      # (the import system's lookups: see _Finder)
    except Exception:   # noqa: BLE001 - an audit hook must never break the operation
        pass
    finally:
        _busy.on = False


def _sqlite_file(database) -> str | None:
    """The file an `sqlite3.connect(database)` opens (None: an in-memory database)."""
    name = os.fsdecode(database) if isinstance(database, (str, bytes, os.PathLike)) else ""
    if name.startswith("file:"):                     # a URI: file:path?mode=ro
        name = name[len("file:"):].split("?", 1)[0].removeprefix("//")
    return None if name in ("", ":memory:") or "mode=memory" in os.fsdecode(database) else name


def _checking(real):
    """`real` (os.stat, os.lstat, os.access, os.readlink) recording the path it is given: whether it
    exists, its kind and size depend on the project as much as its content does."""

    def check(path, *args, **kwargs):
        if not getattr(_busy, "on", False):
            _busy.on = True
            try:
                follow = kwargs.get("follow_symlinks", True) and real is not os.lstat
                for name in _names(path, resolved=follow):
                    _note_exists(name)
            except Exception:   # noqa: BLE001 - recording must never break the check
                pass
            finally:
                _busy.on = False
        return real(path, *args, **kwargs)

    check.__name__, check.__doc__, check.__wrapped__ = real.__name__, real.__doc__, real
    return check


def _note_check(path, follow: bool = True) -> None:
    """Record what a check of `path` (its existence, kind or size) depends on; `follow`: the check
    follows a symbolic link at its end (os.stat), else it looks at the link itself (os.lstat)."""
    if getattr(_busy, "on", False):
        return
    _busy.on = True
    try:
        for name in _names(path, resolved=follow):
            _note_exists(name)
    except Exception:   # noqa: BLE001 - recording must never break the check
        pass
    finally:
        _busy.on = False


class _Entry:
    """An `os.DirEntry` of a project folder whose checks are recorded like os.stat's: `entry.stat()`,
    `is_file()` or `is_dir()` read a size or a kind that the folder's listing does not hold. (A
    DirEntry answers from what the listing cached, without calling os.stat; the type cannot be
    subclassed, so this wraps one.)"""

    __slots__ = ("_entry",)

    def __init__(self, entry: os.DirEntry) -> None:
        self._entry = entry

    @property
    def name(self):
        return self._entry.name

    @property
    def path(self):
        return self._entry.path

    def inode(self) -> int:
        return self._entry.inode()

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        _note_check(self._entry.path, follow_symlinks)
        return self._entry.is_dir(follow_symlinks=follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        _note_check(self._entry.path, follow_symlinks)
        return self._entry.is_file(follow_symlinks=follow_symlinks)

    def is_symlink(self) -> bool:
        _note_check(self._entry.path, follow=False)
        return self._entry.is_symlink()

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        _note_check(self._entry.path, follow_symlinks)
        return self._entry.stat(follow_symlinks=follow_symlinks)

    def __fspath__(self):
        return self._entry.__fspath__()

    def __repr__(self) -> str:
        return repr(self._entry)


class _Entries:
    """What os.scandir returns, yielding recording `_Entry`s (an iterator and a context manager)."""

    def __init__(self, entries) -> None:
        self._entries = entries

    def __iter__(self):
        return self

    def __next__(self) -> _Entry:
        return _Entry(next(self._entries))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._entries.close()

    def close(self) -> None:
        self._entries.close()


def _scanning(real):
    """`real` (os.scandir) whose entries record their checks, for a folder of the project (the audit
    hook records the listing itself). Given a file descriptor (os.fwalk), an entry knows no path:
    those stay as they are."""

    @functools.wraps(real)
    def scandir(path="."):
        entries = real(path)
        if isinstance(path, int) or getattr(_busy, "on", False):
            return entries
        folder = os.path.realpath(os.fsdecode(path or "."))
        if not _is_input(folder, _root[0]):
            return entries
        return _Entries(entries)

    return scandir


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
    """os.environ (or os.environb) that records each variable read (not those this process set itself);
    a record holds names and values as text."""

    def __init__(self, real) -> None:
        self._real, self._set = real, set()

    def _note(self, key) -> None:
        if isinstance(key, (str, bytes)) and key not in self._set and os.fsdecode(key) not in _env:
            value = self._real.get(key)
            _env[os.fsdecode(key)] = None if value is None else os.fsdecode(value)

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
        _env.setdefault("", "\n".join(sorted(os.fsdecode(k) for k in self._real if k not in self._set)))
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
        os.environb = _Environ(os.environb)
        # no audit event says a path was checked: os.path.exists, Path.is_file, … call these
        for name in ("stat", "lstat", "access", "readlink"):
            setattr(os, name, _checking(getattr(os, name)))
        # a folder's entries answer checks from the listing, without os.stat
        os.scandir = _scanning(os.scandir)
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
        file = getattr(module, "__file__", None)
        # A module's file is noted once: resolving the ~500 files the worker imported before forking
        # again in every run cost each run 0,1 s of CPU (a forked run inherits what was noted).
        if isinstance(file, str) and file not in _noted_modules:
            note(Path(file))
            _noted_modules.add(file)
    base = os.path.realpath(root)
    busy, _busy.on = getattr(_busy, "on", False), True   # (its own checks are not the computation's)
    try:
        return {"python": sys.version,
                "files": {_name(p, base): d for p, d in sorted(_files.items())},
                "absent": sorted(_name(p, base) for p in _absent
                                 if p not in _files and _is_input(p, base) and not os.path.lexists(p)),
                "folders": {_name(p, base): d for p, d in sorted(_folders.items())},
                "present": sorted(_name(p, base) for p in _present if os.path.isdir(p)),
                "env": dict(sorted(_env.items()))}
    finally:
        _busy.on = busy


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
            if os.path.lexists(os.path.join(base, name)):
                return f"{name} appeared"
        for name in record["present"]:
            if not os.path.isdir(os.path.join(base, name)):
                return f"{name} is gone"
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
