"""What a computation may not do, because no record of its inputs could
reproduce it: draw from a random generator nobody seeded, read the clock,
reach the network, start another program, change the docs folder.

One mechanism for the figures_src modules' runs (worker.py) and the lab
notebook's kernel (notebooks.py): `start(root, where)` after deps.start, in
the process that runs the computation. A refused call raises `Refused` (an
EngineError with the catalogue's id) and is remembered (`refused`,
`errors`), so a computation that catches the exception still fails.

Libraries keep their own use of the clock and of their generators
(matplotlib times its caches, NumPy seeds from the system): only a call made
by the project's own code (a file of the project, a notebook cell) is
refused. Who made a call is found by walking out of the code that only
carries a request (the standard library; IPython and the packages its shell
escapes go through): `!ls` in a cell reaches the program through IPython,
pexpect and ptyprocess, `%%bash` through a thread of IPython's. A thread
carries the line of the project's code that started it, so a call from a
thread whose every frame is such carrying code is the call of that line.
"""

import datetime
import functools
import importlib.util
import linecache
import os
import random
import re
import secrets
import socket
import sys
import threading
import time
import timeit
import traceback
import uuid
from pathlib import Path

from anatomia_engine import deps
from anatomia_engine.errors import EngineError

# Every refusal, kept even if the computation catches the exception: its text (what the notebook's
# kernel reports back as JSON) and the error itself (what a module's run raises at its end).
refused: list[str] = []
errors: list["Refused"] = []
# Per refusal in a notebook cell: [the cell's code, the line in it] (the notebook finds the cell by
# its code, since the kernel only knows the file name IPython gave it).
cells: list[list] = []
_state: dict = {"root": "", "where": ""}
# the file name IPython gives a notebook cell's code: /tmp/ipykernel_<pid>/<hash>.py
_CELL = re.compile(r"(^|/)ipykernel_\d+/\d+\.py$|^<ipython-input-")
# The attribute of a threading.Thread naming the project's line that started it (filename, line).
_STARTED_BY = "_anatomia_started_by"


class Refused(EngineError):
    """A computation did something its recorded inputs cannot reproduce.

    Its text is the catalogue message, followed by ` (at file:line)` when the call came from a
    project file (a cell's line is given by the notebook's own report).
    """

    def __init__(self, id: str, *, at: str = "", **fields) -> None:
        self.at = at
        super().__init__(id, **fields)

    def _message(self) -> str:
        return super()._message() + self.at

    def _keywords(self) -> dict:
        return {**super()._keywords(), "at": self.at}


def _is_cell(filename: str) -> bool:
    return bool(_CELL.search(filename))


def _own(filename: str) -> bool:
    """Whether code of `filename` is the project's own: a notebook cell, or a project file outside the
    engine and the Python installation."""
    if _is_cell(filename):
        return True
    if not filename.startswith("/"):
        return False   # <frozen …>, <string>: no file of the project
    return _own_file(filename, _state["root"])


# Asked for every frame of every guarded call (each random draw, each file opened): a file's
# answer is worked out once per run (a run's files do not move while it runs)
@functools.lru_cache(maxsize=4096)
def _own_file(filename: str, root) -> bool:
    path = os.path.realpath(filename)
    if not deps.inside(path, root) or deps.inside(path, deps.ENGINE):
        return False
    return not any(deps.inside(path, p) for p in deps.PYTHON)


def _caller() -> tuple[str, int]:
    """The innermost line of the project's own code (else the innermost outside this file): the line
    that made the call, even through a library (`urllib.request.urlopen` -> socket)."""
    stack = [f for f in reversed(traceback.extract_stack()) if f.filename != __file__]
    for frame in stack:
        if _own(frame.filename):
            return frame.filename, frame.lineno
    return stack[0].filename, stack[0].lineno


def refuse(id: str, place: tuple[str, int] | None = None, **fields) -> None:
    """Raise Refused with the catalogue message `id` and its `fields`, naming where the computation
    made the call (`place`, else the innermost line of the project's code on the stack)."""
    filename, line = place or _caller()
    if _is_cell(filename):
        at = ""
        # a cell's code is known by its text (IPython keeps it in linecache): the notebook finds the cell
        cells.append(["".join(linecache.getlines(filename)), line])
    else:
        at = f" (at {filename}:{line})"
        cells.append([None, None])
    error = Refused(id, at=at, where=_state["where"], **fields)
    refused.append(str(error))
    errors.append(error)
    raise error


def _is_text_code(filename: str) -> bool:
    """Whether `filename` names code made from a string (`exec`, IPython's `%%time`: `<string>`,
    `<timed exec>`) or a frozen module: such code runs for whoever made or called it."""
    return filename.startswith("<") and not _is_cell(filename)


def _called_by_own_code(depth: int = 2) -> bool:
    """Whether the function `depth` frames up was called by the project's own code: directly, through
    code made from a string, or through IPython (a cell's `%%time` reads the clock for the cell and
    shows what it read)."""
    frame = sys._getframe(depth)
    while frame is not None and _for_the_caller(frame.f_code.co_filename):
        frame = frame.f_back
    return frame is not None and _own(frame.f_code.co_filename)


def _for_the_caller(filename: str) -> bool:
    # IPython's own code runs what a cell asks for (magics, its shell), timeit measures for its
    # caller; ipykernel's and the rest of the standard library's are not passed over here:
    # printing from a cell must not count as reading their clock
    if _is_text_code(filename) or filename.startswith(_IPYTHON):
        return True
    return filename in _MEASURING


# --- who asked: through the code that only carries a request -------------------------------------

# the standard library's folder, as imports name it and resolved
_STDLIB = tuple({os.path.dirname(path) + os.sep for path in (os.__file__, os.path.realpath(os.__file__))})


def _package_folder(name: str) -> str | None:
    """Where the package `name` is installed, found without importing it (None if it is not)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return os.path.dirname(os.path.realpath(spec.origin))


# The code between a cell's shell escape and the program: IPython turns `!ls` into
# get_ipython().system(...), which ipykernel runs through pexpect and ptyprocess (a fork on a
# terminal), `out = !ls` and `%sx` through subprocess, `%%bash` on a thread of its own through
# asyncio. A program started there was asked for by the cell, so these frames are passed over
# like the standard library's.
_ESCAPE_PACKAGES = ("IPython", "ipykernel", "pexpect", "ptyprocess")
_SHELL_ESCAPES = tuple(folder for folder in map(_package_folder, _ESCAPE_PACKAGES) if folder is not None)
_ESCAPE_FOLDERS = tuple(folder + os.sep for folder in _SHELL_ESCAPES)
_IPYTHON = tuple(folder + os.sep for folder in filter(None, [_package_folder("IPython")]))
# standard modules that read the clock to hand the caller what they measured
_MEASURING = {timeit.__file__, os.path.realpath(timeit.__file__)}
# this file's stand-ins (fork_exec below) carry the call they replace
_HERE = (__file__, os.path.realpath(__file__))


def _carries(filename: str) -> bool:
    """Whether code of `filename` only carries a request made by its caller."""
    if _is_text_code(filename) or filename.startswith(_ESCAPE_FOLDERS) or filename in _HERE:
        return True
    # the standard library, but not packages installed beside it (a system Python's site-packages)
    return filename.startswith(_STDLIB) and "-packages" + os.sep not in filename


def _asked_by(frame) -> tuple[str, int] | None:
    """The line of the project's own code that asked for what `frame` does, walking out of the code
    that only carries requests; None when a library (or the engine) asked for it."""
    while frame is not None and _carries(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        # Nothing but carrying code on this thread: it works for whoever started it.
        return getattr(threading.current_thread(), _STARTED_BY, None)
    if _own(frame.f_code.co_filename):
        return frame.f_code.co_filename, frame.f_lineno
    return None


def _follow_threads() -> None:
    """Make every thread remember the project's line that started it, if one did (directly, or through
    a pool or IPython): what such a thread does is asked for by that line."""
    real_start = threading.Thread.start

    @functools.wraps(real_start)
    def start(self, *args, **kwargs):
        setattr(self, _STARTED_BY, _asked_by(sys._getframe(1)))
        return real_start(self, *args, **kwargs)

    threading.Thread.start = start


# --- random generators -----------------------------------------------------------------


def _refusing(id: str, **fields):
    """A stand-in for a function that always refuses (message `id` with `fields`)."""

    def refusing(*args, **kwargs):
        refuse(id, **fields)

    return refusing


def _refuse_global_random() -> None:
    """Make NumPy's legacy global RandomState, `random`'s hidden one and unseeded `default_rng()` raise."""
    import numpy as np

    # NumPy's module-level functions on the global state that are not its bound methods
    legacy = ("seed", "ranf", "sample", "get_bit_generator", "set_bit_generator")
    for module, label, more in ((np.random, "np.random", legacy), (random, "random", ())):
        shared = module.random.__self__
        for name in dir(module):
            if getattr(getattr(module, name), "__self__", None) is shared or name in more:
                setattr(module, name, _refusing("global_random", name=f"{label}.{name}"))
    seeded = np.random.default_rng

    def default_rng(seed=None):
        if seed is None:
            refuse("unseeded_rng", name="np.random.default_rng")
        return seeded(seed)

    np.random.default_rng = default_rng


class _SameClass(type):
    """The metaclass of a stand-in subclass: an instance of the original class is one of the stand-in's
    (a library's `isinstance(x, np.random.RandomState)` keeps working once the name is replaced)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls.__bases__[0])

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, cls.__bases__[0])


def _seeded_only(module, name: str, label: str, argument: str = "seed") -> None:
    """Replace the class `module.name` by a subclass refusing to be made without a seed (`argument`)."""
    original = getattr(module, name)

    def __init__(self, *args, **kwargs):
        if args:
            seed = args[0]
        else:
            seed = kwargs.get(argument)
        if seed is None and _called_by_own_code():
            refuse("unseeded_rng", name=label)
        original.__init__(self, *args, **kwargs)

    namespace = {
        "__init__": __init__,
        "__module__": original.__module__,
        "__qualname__": original.__qualname__,
        "__doc__": original.__doc__,
    }
    setattr(module, name, _SameClass(name, (original,), namespace))


def _refuse_unseeded() -> None:
    """Generator instances made without a seed draw from the system's entropy: refused with the way to
    seed them; `random.SystemRandom` and `os.urandom` cannot be seeded at all."""
    import numpy as np

    for name in ("RandomState", "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"):
        if hasattr(np.random, name):
            _seeded_only(np.random, name, f"np.random.{name}")
    _seeded_only(np.random, "SeedSequence", "np.random.SeedSequence", argument="entropy")
    real_init = random.Random.__init__

    def __init__(self, x=None):
        # SystemRandom calls this too: its own refusal below names it
        if x is None and _called_by_own_code() and type(self) is not random.SystemRandom:
            refuse("unseeded_rng", name="random.Random")
        real_init(self, x)

    random.Random.__init__ = __init__
    system_init = vars(random.SystemRandom).get("__init__", real_init)

    def system(self, *args, **kwargs):
        if _called_by_own_code():
            refuse("unseeded_rng", name="random.SystemRandom")
        system_init(self, *args, **kwargs)

    random.SystemRandom.__init__ = system
    urandom = os.urandom

    def refusing_urandom(size):
        if _called_by_own_code():
            refuse("unseeded_rng", name="os.urandom")
        return urandom(size)

    os.urandom = refusing_urandom
    # they draw from the system's entropy through functions bound before this ran (random's
    # _urandom, libuuid): refused where the project's code calls them
    for module, names in ((uuid, _UUIDS), (secrets, _SECRETS)):
        for name in names:
            setattr(module, name, _unseeded(getattr(module, name), f"{module.__name__}.{name}"))


# uuid's and secrets' functions whose results differ on every call
_UUIDS = ("uuid1", "uuid4")
_SECRETS = ("token_bytes", "token_hex", "token_urlsafe", "randbelow", "randbits", "choice")


def _unseeded(real, name: str):
    """`real` refusing to run for the project's code (message unseeded_rng naming `name`)."""

    @functools.wraps(real)
    def refusing(*args, **kwargs):
        if _called_by_own_code():
            refuse("unseeded_rng", name=name)
        return real(*args, **kwargs)

    return refusing


# --- the clock -------------------------------------------------------------------------

# time's functions that read the clock (those taking a time read it only when given none)
_CLOCK = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
          "process_time", "process_time_ns", "thread_time", "thread_time_ns")
# function -> how many arguments it takes before the time (strftime(format, t): the format first)
_CLOCK_UNLESS_GIVEN = {"localtime": 0, "gmtime": 0, "ctime": 0, "asctime": 0, "strftime": 1}
_DATETIME_READS = {datetime.datetime: ("now", "utcnow", "today"), datetime.date: ("today",)}


def _guard_clock(name: str, real, before: int | None = None):
    """`real` refusing to read the clock for the project's code; with `before`, only when it is given
    no more than `before` arguments (then it reads the clock, else it formats the time it is given)."""

    @functools.wraps(real)
    def read(*args, **kwargs):
        reads_clock = before is None or len(args) <= before
        if reads_clock and _called_by_own_code():
            refuse("clock", name=name)
        return real(*args, **kwargs)

    return read


# the fields of a stat result that hold times, and their places when it is read as a tuple
_STAT_TIMES = ("st_atime", "st_mtime", "st_ctime", "st_atime_ns", "st_mtime_ns", "st_ctime_ns",
               "st_birthtime", "st_birthtime_ns")
_STAT_TIME_PLACES = (7, 8, 9)


class _StatWithoutTimes:
    """A stat result handed to the project's code: its size, kind and mode read as usual (the
    recorder notes them as inputs), its times refuse like the clock. (os.stat_result cannot be
    subclassed; this wraps one.)"""

    __slots__ = ("_result", "_name")

    def __init__(self, result: os.stat_result, name: str) -> None:
        self._result = result
        self._name = name

    def __getattr__(self, field: str):
        if field in _STAT_TIMES:
            refuse("clock", name=f"{self._name}(…).{field}")
        return getattr(self._result, field)

    def __getitem__(self, index):
        # an index or a slice, as a tuple is read: the places it covers
        covered = range(len(self._result))[index]
        if isinstance(covered, int):
            covered = [covered]
        if any(place in _STAT_TIME_PLACES for place in covered):
            refuse("clock", name=f"{self._name}(…)[{index!r}]")
        return self._result[index]

    def __len__(self) -> int:
        return len(self._result)

    def __iter__(self):
        for place in range(len(self._result)):
            yield self[place]

    def __repr__(self) -> str:
        return repr(self._result)


def _guard_stat_times(name: str, real):
    """`real` (os.stat, os.lstat, os.fstat) whose result, asked for by the project's code itself or
    through `Path.stat`, refuses its times; a library's own checks get the result as it is."""
    import pathlib

    @functools.wraps(real)
    def stat(*args, **kwargs):
        result = real(*args, **kwargs)
        frame = sys._getframe(1)
        # Path.stat and Path.lstat only carry the request of their caller
        if frame.f_code.co_filename == pathlib.__file__:
            frame = frame.f_back
        if frame is not None and _own(frame.f_code.co_filename):
            return _StatWithoutTimes(result, name)
        return result

    return stat


class _EntryWithoutTimes:
    """A folder's entry (os.scandir) handed to the project's code: its `stat()` refuses the times
    like os.stat's (os.DirEntry cannot be subclassed; this wraps one)."""

    __slots__ = ("_entry",)

    def __init__(self, entry) -> None:
        self._entry = entry

    def __getattr__(self, name: str):
        return getattr(self._entry, name)

    def stat(self, *, follow_symlinks: bool = True):
        result = self._entry.stat(follow_symlinks=follow_symlinks)
        if _own(sys._getframe(1).f_code.co_filename):
            return _StatWithoutTimes(result, "os.DirEntry.stat")
        return result

    def __fspath__(self):
        return self._entry.__fspath__()

    def __repr__(self) -> str:
        return repr(self._entry)


def _guard_scandir_times(real):
    """`real` (os.scandir) whose entries, when the project's code itself lists a folder, refuse
    their times; os.walk, glob and the libraries list as before."""

    @functools.wraps(real)
    def scandir(*args, **kwargs):
        entries = real(*args, **kwargs)
        if _own(sys._getframe(1).f_code.co_filename):
            return deps.Entries(entries, _EntryWithoutTimes)
        return entries

    return scandir


def _guard_datetime(cls) -> None:
    """Replace `cls` (datetime.datetime, datetime.date) by a subclass whose clock reads refuse."""
    own = {}
    for method in _DATETIME_READS[cls]:
        real = getattr(cls, method)
        name = f"datetime.{cls.__name__}.{method}"

        def read(klass, *args, _real=real, _name=name, **kwargs):
            if _called_by_own_code():
                refuse("clock", name=_name)
            return _real(*args, **kwargs)

        own[method] = classmethod(read)
    namespace = {**own, "__module__": "datetime", "__qualname__": cls.__qualname__}
    setattr(datetime, cls.__name__, _SameClass(cls.__name__, (cls,), namespace))


def _refuse_clock() -> None:
    """A clock read by the project's code gives another number each build: refused (time, datetime)."""
    for name in _CLOCK:
        setattr(time, name, _guard_clock(f"time.{name}", getattr(time, name)))
    for name, before in _CLOCK_UNLESS_GIVEN.items():
        setattr(time, name, _guard_clock(f"time.{name}", getattr(time, name), before))
    for cls in _DATETIME_READS:
        _guard_datetime(cls)
    # a file's times are the clock's when it was checked out or written, not its content
    for name in ("getmtime", "getatime", "getctime"):
        setattr(os.path, name, _guard_clock(f"os.path.{name}", getattr(os.path, name)))
    # the same times read from a stat result (`Path(p).stat().st_mtime`) or a folder's entry
    for name in ("stat", "lstat", "fstat"):
        setattr(os, name, _guard_stat_times(f"os.{name}", getattr(os, name)))
    os.scandir = _guard_scandir_times(os.scandir)
    # timeit took time.perf_counter when it was imported (IPython imports it before this runs), as
    # its default timer and as its functions' default argument
    real = timeit.default_timer
    timeit.default_timer = time.perf_counter
    for function in (timeit.Timer.__init__, timeit.timeit, timeit.repeat):
        defaults = []
        for default in function.__defaults__:
            if default is real:
                default = time.perf_counter
            defaults.append(default)
        function.__defaults__ = tuple(defaults)


# --- the network -----------------------------------------------------------------------

# audit event -> the position of the socket in its arguments (None: a name lookup)
_NETWORK = {"socket.connect": 0, "socket.sendto": 0, "socket.sendmsg": 0, "socket.getaddrinfo": None,
            "socket.gethostbyname": None, "socket.gethostbyaddr": None}


def _target(event: str, args: tuple) -> str | None:
    """What the network event `event` reaches for, as host:port (None: a Unix socket, a local file)."""
    if event == "socket.getaddrinfo":
        return f"{args[0]}:{args[1]}"                      # a lookup: (host, port, …)
    if _NETWORK[event] is None:
        return str(args[0])                                # a lookup: (host,)
    if getattr(args[0], "family", None) == socket.AF_UNIX:
        return None
    if len(args) < 2:
        return "?"
    address = args[1]
    if isinstance(address, tuple) and len(address) >= 2:
        return f"{address[0]}:{address[1]}"
    return str(address)


def _refuse_network() -> None:
    """An answer from a server is not in the project: reaching for one is refused (a Unix socket is a
    file of this machine and stays allowed)."""

    def hook(event: str, args: tuple) -> None:
        if event not in _NETWORK:
            return
        target = _target(event, args)
        if target is not None:
            refuse("network", target=target)

    sys.addaudithook(hook)


# --- other programs ----------------------------------------------------------------------

# audit event -> the position of the program's arguments in the event's (None: no program is named,
# a copy of this process is made). `_posixsubprocess.fork_exec` raises no event of its own; start()
# makes it raise one, since multiprocessing's spawn reaches it without subprocess.Popen.
_PROGRAMS = {"subprocess.Popen": 1, "os.system": 0, "os.posix_spawn": 1, "os.exec": 1, "os.spawn": 2,
             "os.fork": None, "os.forkpty": None, "_posixsubprocess.fork_exec": 0}
# C functions that start a program or read the clock, looked up through ctypes (a call of one raises
# no audit event of its own: its lookup does)
_C_PROGRAMS = {"system", "popen", "fork", "vfork", "execv", "execve", "execvp", "execvpe", "execl",
               "execlp", "execle", "posix_spawn", "posix_spawnp", "clone", "forkpty"}
_C_CLOCK = {"time", "gettimeofday", "clock_gettime", "clock", "ftime", "times"}


def _program(event: str, args: tuple) -> str:
    """How a message names the program that the audit event `event` starts."""
    position = _PROGRAMS[event]
    if position is None:
        return f"{event}()"
    return str(args[position])[:200]


def _refuse_programs() -> None:
    """A program the project's code starts reads what no record sees (`git log`, `cat data.csv`): refused.
    A library may start one for itself (matplotlib's fc-list)."""

    def hook(event: str, args: tuple) -> None:
        if event in _PROGRAMS:
            asked = _asked_by(sys._getframe(1))
            if asked is not None:
                refuse("program", asked, program=_program(event, args))
        elif event == "ctypes.dlsym" and isinstance(args[1], str):
            _refuse_c_function(args[1])

    sys.addaudithook(hook)
    import _posixsubprocess

    real = _posixsubprocess.fork_exec

    @functools.wraps(real)
    def fork_exec(*args, **kwargs):
        sys.audit("_posixsubprocess.fork_exec", *args)
        return real(*args, **kwargs)

    _posixsubprocess.fork_exec = fork_exec


def _refuse_c_function(name: str) -> None:
    """Refuse the C function `name` looked up through ctypes by the project's code, if it starts a
    program or reads the clock (what the Python functions of the same name are refused for)."""
    if name not in _C_PROGRAMS and name not in _C_CLOCK:
        return
    asked = _asked_by(sys._getframe(2))
    if asked is None:
        return
    if name in _C_PROGRAMS:
        refuse("program", asked, program=f"ctypes: {name}")
    else:
        refuse("clock", asked, name=f"ctypes: {name}")


# --- the docs folder ----------------------------------------------------------------------

# audit event -> the positions of the paths it changes
_CHANGES = {"os.rename": (0, 1), "os.mkdir": (0,), "os.remove": (0,), "os.rmdir": (0,),
            "os.symlink": (1,), "os.link": (1,), "os.truncate": (0,)}


def _changed(event: str, args: tuple) -> list:
    """The paths the audit event `event` changes (an open for writing, a database, a rename…)."""
    if event == "open":
        flags = args[2] or 0
        if flags & (os.O_WRONLY | os.O_RDWR):
            return [args[0]]
        return []
    if event == "sqlite3.connect":
        return [args[0]]
    return [args[i] for i in _CHANGES.get(event, ())]


def _refuse_writes(docs: Path) -> None:
    """An audit hook that stops any write, rename or removal under `docs`."""
    folder = os.path.realpath(docs)

    def hook(event: str, args: tuple) -> None:
        for path in _changed(event, args):
            if not isinstance(path, (str, bytes, os.PathLike)):
                continue                                 # a file descriptor
            path = os.path.realpath(os.fsdecode(path))
            if deps.inside(path, folder):
                refuse("writes_docs", name=os.path.relpath(path, os.path.dirname(folder)))

    sys.addaudithook(hook)


def start(root: Path, where: str) -> None:
    """From now on refuse, in this process, what no record of inputs reproduces; `where` names the
    computation in the messages (figures_src/x.py, docs/laby/lab-3.py)."""
    _state.update(root=os.path.realpath(root), where=where)
    _follow_threads()
    _refuse_global_random()
    _refuse_unseeded()
    _refuse_clock()
    _refuse_network()
    _refuse_programs()
    _refuse_writes(Path(root, "docs"))
