"""What a computation read, recorded by its own process (a depfile), and whether that still holds:
every project file it imports (compiled from the bytes hashed, never from a `.pyc`), every place an
import looked in vain, every file it opens (for reading or for update: a database changed in place),
every file or folder whose existence or size it checks (`os.stat`, `Path.exists`), every folder it
lists, every environment variable it reads (`os.environ`, `os.environb`). A path through a symbolic
link is recorded as written and as resolved, so a link pointed elsewhere is a change. Dot files and dot
folders of the project are inputs like any other (`.env`, `figures_src/.data/`). The Python
installation, /dev, /proc, /sys, the temporary folder, `__pycache__` and the build's own cache are not.

Recording is turned on by `start` in the process that computes (a module's run, the notebook's
kernel); `snapshot` gives the record, `problem` says whether it still holds.
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

# --- the record -------------------------------------------------------------------------

# absolute path -> SHA-256 of what was read
_files: dict[str, str] = {}
# absolute paths an import looked for, or a check found empty
_absent: set[str] = set()
# absolute path -> SHA-256 of its sorted listing
_folders: dict[str, str] = {}
# absolute paths of folders whose existence was checked
_present: set[str] = set()
# variable -> value read (None: unset); "" -> the names listed
_env: dict[str, str | None] = {}
# Set while this file reads for itself: its own stat and open calls would otherwise be recorded
# (and recurse through the wrapped os.stat).
_busy = threading.local()
# more folders that are not inputs (a run's own output)
_skip: list[str] = []
# the project root, once `start` turned recording on
_root: list[str] = [""]
# the module files `snapshot` has noted (a forked run inherits them: see `snapshot`)
_noted_modules: set[str] = set()
# The Python installation is never an input, even inside the project (.venv); what else is outside the
# project is not one either: the temporary folder (the project itself may be in it), /dev, /proc, /sys.
PYTHON = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix,
                                                 sys.base_exec_prefix)})
_OUTSIDE = (*PYTHON, os.path.realpath(tempfile.gettempdir()), "/dev", "/proc", "/sys")
# What these folders hold follows from the sources and the lock files, which are inputs themselves.
_SKIPPED_PARTS = {"__pycache__", "site-packages", "dist-packages", "node_modules"}
# the build's own cache (store.py), in the project: entries are checked by their own keys
_STORE = os.path.join(".cache", "anatomia")
# The engine's own files are inputs wherever it is installed (a checkout under /tmp, site-packages).
ENGINE = os.path.dirname(os.path.realpath(__file__))
# installed packages' metadata lookups (importlib.metadata lists site-packages: not the module's)
_METADATA = os.path.dirname(importlib.metadata.__file__)


def inside(path: str, folder: str) -> bool:
    """Whether the absolute `path` is `folder` or in it."""
    return path == folder or path.startswith(folder + os.sep)


def _base(path: str, root: str) -> str:
    """The project root or the engine's folder if `path` is in one, else ""."""
    for base in (root, ENGINE):
        if inside(path, base):
            return base
    return ""


def _is_input(path: str, root: str) -> bool:
    """Whether what `path` holds is an input of a computation of the project at `root`."""
    base = _base(path, root)
    if any(part in _SKIPPED_PARTS for part in path[len(base):].split(os.sep)):
        return False
    if base == root and inside(path, os.path.join(root, _STORE)):
        return False
    excluded = [*_skip]
    # the engine is an input even where it is installed inside the Python installation
    if base != ENGINE:
        excluded += PYTHON
    # outside the project and the engine, a file is an input unless it is the machine's own
    if not base:
        excluded += _OUTSIDE
    return not any(inside(path, folder) for folder in excluded)


def _names(path, resolved: bool = True) -> list[str]:
    """The absolute forms of the path `path` that a record may hold: as written (made absolute: a
    symbolic link on the way stays, so pointing it elsewhere is a change) and, if `resolved`, with every
    link resolved (the file that was read). Empty for a file descriptor."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        return []
    written = os.path.abspath(os.fsdecode(path))
    if not resolved:
        return [written]
    return list(dict.fromkeys([written, os.path.realpath(written)]))


def _listing(path: str) -> str:
    # sorted: the order of os.listdir is the file system's, not the folder's content
    return hashlib.sha256("\n".join(sorted(os.listdir(path))).encode()).hexdigest()


def _file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def _note_file(path: str, data: bytes | None = None) -> None:
    """Record the file `path` as read: the SHA-256 of `data` (the bytes the reader got) or of the file."""
    busy = getattr(_busy, "on", False)
    _busy.on = True
    try:
        if path in _files or not _is_input(path, _root[0]) or not os.path.isfile(path):
            return
        # a file that vanished meanwhile was not read either
        with contextlib.suppress(OSError):
            if data is None:
                _files[path] = _file_digest(path)
            else:
                _files[path] = hashlib.sha256(data).hexdigest()
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


_RECORDED_EVENTS = ("open", "os.listdir", "os.scandir", "sqlite3.connect")


def _reads(flags: int) -> bool:
    """Whether an open with `flags` reads what the file held: for reading, or for update ("r+", "a+");
    an open that only writes, or truncates first, does not."""
    if flags & os.O_WRONLY:
        return False
    return not (flags & os.O_RDWR and flags & os.O_TRUNC)


def _by_import_system() -> bool:
    """Whether the audited call (three frames up: _audit, _is_listing, this) came from the import system."""
    # The import system's folder lookups are recorded by _Finder (as files looked for in vain);
    # a listing of every folder on sys.path would make any new file there a change.
    caller = sys._getframe(3).f_code.co_filename
    return caller.startswith(("<frozen importlib", _METADATA))


def _audit(event: str, args: tuple) -> None:
    """Audit hook: files opened (for reading or update), databases connected to and folders listed,
    resolved now (sys.addaudithook)."""
    if getattr(_busy, "on", False) or event not in _RECORDED_EVENTS:
        return
    _busy.on = True
    try:
        path = args[0]
        # os.listdir() and os.scandir() without a path list the working folder
        if path is None and event.startswith("os."):
            path = "."
        # given a folder's file descriptor (os.fwalk), they list the folder it was opened as
        if isinstance(path, int) and event.startswith("os."):
            path = _fd_path(path)
        if event == "sqlite3.connect":
            path = _sqlite_file(path)
        for name in _names(path):
            if event == "open" and _reads(args[2] or 0):
                # a file opened for reading that is not there is an input too: its absence
                # (a module falling back to a default when it is missing)
                _note_exists(name)
            elif event == "sqlite3.connect":
                # its content before this run changed it
                _note_file(name)
            elif event.startswith("os.") and _is_listing(name):
                _folders[name] = _listing(name)
    except Exception:   # noqa: BLE001 - an audit hook must never break the operation
        pass
    finally:
        _busy.on = False


def _fd_path(fd: int) -> str | None:
    """The path the file descriptor `fd` was opened as (Linux's /proc), None if unknown."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _is_listing(name: str) -> bool:
    """Whether listing the folder `name` is still to be recorded (and is not the import system's)."""
    if name in _folders or not _is_input(name, _root[0]) or not os.path.isdir(name):
        return False
    return not _by_import_system()


def _sqlite_file(database) -> str | None:
    """The file an `sqlite3.connect(database)` opens (None: an in-memory database)."""
    if not isinstance(database, (str, bytes, os.PathLike)):
        return None
    name = os.fsdecode(database)
    if "mode=memory" in name:
        return None
    # a URI: file:path?mode=ro
    if name.startswith("file:"):
        name = name[len("file:"):].split("?", 1)[0].removeprefix("//")
    if name in ("", ":memory:"):
        return None
    return name


def _checking(real):
    """`real` (os.stat, os.lstat, os.access, os.readlink) recording the path it is given: whether it
    exists, its kind and size depend on the project as much as its content does."""

    @functools.wraps(real)
    def check(path, *args, **kwargs):
        follow = kwargs.get("follow_symlinks", True) and real is not os.lstat
        _note_check(path, follow)
        return real(path, *args, **kwargs)

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

    __slots__ = ("_entry", "_where")

    def __init__(self, entry: os.DirEntry, folder: str | None = None) -> None:
        self._entry = entry
        # where its checks are recorded: its path, or (scanned through a file descriptor, where
        # an entry's path is its bare name) its name in the folder the descriptor was opened as
        self._where = entry.path
        if folder is not None:
            self._where = os.path.join(folder, entry.name)

    @property
    def name(self):
        return self._entry.name

    @property
    def path(self):
        return self._entry.path

    def inode(self) -> int:
        return self._entry.inode()

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        _note_check(self._where, follow_symlinks)
        return self._entry.is_dir(follow_symlinks=follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        _note_check(self._where, follow_symlinks)
        return self._entry.is_file(follow_symlinks=follow_symlinks)

    def is_symlink(self) -> bool:
        _note_check(self._where, follow=False)
        return self._entry.is_symlink()

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        _note_check(self._where, follow_symlinks)
        return self._entry.stat(follow_symlinks=follow_symlinks)

    def __fspath__(self):
        return self._entry.__fspath__()

    def __repr__(self) -> str:
        return repr(self._entry)


class Entries:
    """What os.scandir returns, each entry wrapped by `wrap` (an iterator and a context manager,
    like the iterator it wraps): here recording `_Entry`s, in hermetic.py entries refusing times."""

    def __init__(self, entries, wrap) -> None:
        self._entries = entries
        self._wrap = wrap

    def __iter__(self):
        return self

    def __next__(self):
        return self._wrap(next(self._entries))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._entries.close()

    def close(self) -> None:
        self._entries.close()


def _scanning(real):
    """`real` (os.scandir) whose entries record their checks, for a folder of the project (the audit
    hook records the listing itself). Given a file descriptor (os.fwalk), an entry knows only its
    name: its checks are recorded in the folder the descriptor was opened as."""

    @functools.wraps(real)
    def scandir(path="."):
        entries = real(path)
        if getattr(_busy, "on", False):
            return entries
        by_descriptor = None
        if isinstance(path, int):
            by_descriptor = _fd_path(path)
            if by_descriptor is None:
                return entries
            folder = by_descriptor
        else:
            folder = os.path.realpath(os.fsdecode(path or "."))
        if not _is_input(folder, _root[0]):
            return entries
        return Entries(entries, functools.partial(_Entry, folder=by_descriptor))

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
        self._real = real
        # what this process set itself is no input: it reads back its own value
        self._set = set()

    def _note(self, key) -> None:
        if not isinstance(key, (str, bytes)) or key in self._set or os.fsdecode(key) in _env:
            return
        value = self._real.get(key)
        if value is not None:
            value = os.fsdecode(value)
        _env[os.fsdecode(key)] = value

    def __getitem__(self, key):
        self._note(key)
        return self._real[key]

    def __setitem__(self, key, value) -> None:
        self._set.add(key)
        self._real[key] = value

    def __delitem__(self, key) -> None:
        self._set.add(key)
        del self._real[key]

    def __iter__(self):
        # the names it sees are an input (a value read is noted by __getitem__)
        names = sorted(os.fsdecode(k) for k in self._real if k not in self._set)
        _env.setdefault("", "\n".join(names))
        return iter(list(self._real))

    def __len__(self) -> int:
        return len(self._real)

    def copy(self) -> dict:
        return dict(self)


def start(root: Path, skip: tuple[Path, ...] = ()) -> None:
    """Record from now on what this process reads of the project at `root` and its lock file.

    `skip`: folders whose files are not inputs however they are read, the run's own output folder
    (what a module writes there and reads back it did not get from the project). Recording starts
    once per process: a second call (the worker's child after the worker) only adds `skip` folders
    and records the lock file again.
    """
    if not _root[0]:
        _root[0] = os.path.realpath(root)
        sys.path_hooks.insert(0, _path_hook)
        sys.path_importer_cache.clear()
        sys.addaudithook(_audit)
        # recording reads, keeping the real mapping inside
        os.environ = _Environ(os.environ)  # noqa: B003
        os.environb = _Environ(os.environb)
        # no audit event says a path was checked: os.path.exists, Path.is_file, … call these
        for name in ("stat", "lstat", "access", "readlink"):
            setattr(os, name, _checking(getattr(os, name)))
        # a folder's entries answer checks from the listing, without os.stat
        os.scandir = _scanning(os.scandir)
    importlib.invalidate_caches()
    _skip.extend(os.path.realpath(p) for p in skip)
    # what is installed: every installed package's version, which the Python installation is not
    note(Path(root, "requirements.lock"))


def use_environment(env: collections.abc.Mapping[str, str]) -> None:
    """Replace this process's environment by `env`, as if it had started with it (a forked run)."""
    real = os.environ
    # (the recording mapping's own sets would be taken for the run's)
    if isinstance(real, _Environ):
        real = real._real
    real.clear()
    real.update(env)


def note(path: Path) -> None:
    """Record `path` as read (a file every computation depends on)."""
    # resolving it checks every folder on the way: the engine's own checks, not the computation's
    # (under a recording, ~900 modules' files cost a notebook's kernel 0,3 s)
    busy = getattr(_busy, "on", False)
    _busy.on = True
    try:
        _note_file(os.path.realpath(path))
    finally:
        _busy.on = busy


def _name(path: str, root: str) -> str:
    """How a record names `path`: relative to the project root, else absolute."""
    if inside(path, root):
        return os.path.relpath(path, root)
    return path


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
    # its own checks below are not the computation's
    busy = getattr(_busy, "on", False)
    _busy.on = True
    try:
        # a path looked for in vain that the run then created or read is no absence
        absent = [p for p in _absent if p not in _files and _is_input(p, base) and not os.path.lexists(p)]
        return {
            "python": sys.version,
            "files": {_name(p, base): d for p, d in sorted(_files.items())},
            "absent": sorted(_name(p, base) for p in absent),
            "folders": {_name(p, base): d for p, d in sorted(_folders.items())},
            "present": sorted(_name(p, base) for p in _present if os.path.isdir(p)),
            "env": dict(sorted(_env.items())),
        }
    finally:
        _busy.on = busy


def _now(read, path: str) -> str | None:
    with contextlib.suppress(OSError):
        return read(path)
    return None


def problem(record: dict, root: Path, environ: collections.abc.Mapping[str, str],
            digests: dict[str, str | None] | None = None) -> str | None:
    """None if `record` still holds for the project at `root` and the environment `environ`, else why not.

    `digests`: the files' digests as this pass over several records found them (path -> SHA-256,
    None for no file), filled here. The modules' records name many of the same files (the engine,
    attn_core, every font matplotlib knows): one pass reads each of them once.
    """
    base = str(root)
    if digests is None:
        digests = {}
    try:
        if record["python"] != sys.version:
            return "the Python version changed"
        for name, sha in record["files"].items():
            path = os.path.join(base, name)
            if path not in digests:
                digests[path] = _now(_file_digest, path)
            if digests[path] == sha:
                continue
            if os.path.isfile(path):
                return f"{name} changed"
            return f"{name} is gone"
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
            # "": the names a run listed, else one variable's value
            if key == "" and "\n".join(sorted(environ)) != value:
                return "the set of environment variables changed"
            if key != "" and environ.get(key) != value:
                return f"${key} changed"
    except (KeyError, TypeError, AttributeError) as exc:
        # a record of another format or a damaged one: the run is worked out again
        return f"its record of inputs is unreadable ({type(exc).__name__}: {exc})"
    return None


def inputs(record: dict, root: Path) -> list[Path]:
    """Absolute paths of every file and folder `record` read (what a server should watch)."""
    return sorted({(root / name).resolve() for name in (*record["files"], *record["folders"])})
