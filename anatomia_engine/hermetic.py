"""What a computation may not do, because no record of its inputs could reproduce it: draw from a random
generator nobody seeded, read the clock, reach the network, start another program, change the docs folder.

One mechanism for the figures_src modules' runs (worker.py) and the lab notebook's kernel (notebooks.py):
`start(root, where)` after deps.start, in the process that runs the computation. A refused call raises
`Refused` and is remembered (`refused`), so a computation that catches the exception still fails.
Libraries keep their own use of the clock and of their generators (matplotlib times its caches, NumPy
seeds from the system): only a call made by the project's own code (a file of the project, a notebook
cell) is refused.
"""

import datetime
import importlib.util
import linecache
import os
import random
import re
import socket
import sys
import time
import traceback
from pathlib import Path

from anatomia_engine import deps
from anatomia_engine import messages as M

refused: list[str] = []   # every refusal, kept even if the computation catches the exception
cells: list[list] = []    # per refusal in a notebook cell: [the cell's code, the line in it]
_state: dict = {"root": "", "where": ""}
# the file name IPython gives a notebook cell's code: /tmp/ipykernel_<pid>/<hash>.py
_CELL = re.compile(r"(^|/)ipykernel_\d+/\d+\.py$|^<ipython-input-")


class Refused(Exception):
    """A computation did something its recorded inputs cannot reproduce."""


def _is_cell(filename: str) -> bool:
    return bool(_CELL.search(filename))


def _own(filename: str) -> bool:
    """Whether code of `filename` is the project's own: a notebook cell, or a project file outside the
    engine and the Python installation."""
    if _is_cell(filename):
        return True
    path = os.path.realpath(filename) if filename.startswith("/") else ""
    return (bool(path) and deps.inside(path, _state["root"]) and not deps.inside(path, deps.ENGINE)
            and not any(deps.inside(path, p) for p in deps.PYTHON))


def _caller() -> traceback.FrameSummary:
    """The innermost frame of the project's own code (else the innermost outside this file): the line
    that made the call, even through a library (`urllib.request.urlopen` -> socket)."""
    stack = [f for f in reversed(traceback.extract_stack()) if f.filename != __file__]
    return next((f for f in stack if _own(f.filename)), stack[0])


def refuse(message: str) -> None:
    """Raise Refused with `message` and where the computation made the call (a cell's line is given by
    the notebook's own report)."""
    caller = _caller()
    at = "" if _is_cell(caller.filename) else f" (at {caller.filename}:{caller.lineno})"
    refused.append(message + at)
    # a cell's code is known by its text (IPython keeps it in linecache): the notebook finds the cell
    cells.append(["".join(linecache.getlines(caller.filename)), caller.lineno] if _is_cell(caller.filename)
                 else [None, None])
    raise Refused(refused[-1])


def _called_by_own_code(depth: int = 2) -> bool:
    return _own(sys._getframe(depth).f_code.co_filename)


# --- random generators -----------------------------------------------------------------


def _refuse_global_random(where: str) -> None:
    """Make NumPy's legacy global RandomState, `random`'s hidden one and unseeded `default_rng()` raise."""
    import numpy as np

    def refusing(name: str):
        return lambda *args, **kwargs: refuse(M.text("global_random", where=where, name=name))

    # NumPy's module-level functions on the global state that are not its bound methods
    legacy = ("seed", "ranf", "sample", "get_bit_generator", "set_bit_generator")
    for module, label, more in ((np.random, "np.random", legacy), (random, "random", ())):
        shared = module.random.__self__
        for name in dir(module):
            if getattr(getattr(module, name), "__self__", None) is shared or name in more:
                setattr(module, name, refusing(f"{label}.{name}"))
    seeded = np.random.default_rng

    def default_rng(seed=None):
        if seed is None:
            refuse(M.text("unseeded_rng", where=where, name="np.random.default_rng"))
        return seeded(seed)

    np.random.default_rng = default_rng


class _SameClass(type):
    """The metaclass of a stand-in subclass: an instance of the original class is one of the stand-in's
    (a library's `isinstance(x, np.random.RandomState)` keeps working once the name is replaced)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, cls.__bases__[0])

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, cls.__bases__[0])


def _seeded_only(module, name: str, label: str, where: str, argument: str = "seed") -> None:
    """Replace the class `module.name` by a subclass refusing to be made without a seed (`argument`)."""
    original = getattr(module, name)

    def __init__(self, *args, **kwargs):
        seed = args[0] if args else kwargs.get(argument)
        if seed is None and _called_by_own_code():
            refuse(M.text("unseeded_rng", where=where, name=label))
        original.__init__(self, *args, **kwargs)

    namespace = {"__init__": __init__, "__module__": original.__module__,
                 "__qualname__": original.__qualname__, "__doc__": original.__doc__}
    setattr(module, name, _SameClass(name, (original,), namespace))


def _refuse_unseeded(where: str) -> None:
    """Generator instances made without a seed draw from the system's entropy: refused with the way to
    seed them; `random.SystemRandom` and `os.urandom` cannot be seeded at all."""
    import numpy as np

    for name in ("RandomState", "PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"):
        if hasattr(np.random, name):
            _seeded_only(np.random, name, f"np.random.{name}", where)
    _seeded_only(np.random, "SeedSequence", "np.random.SeedSequence", where, argument="entropy")
    real_init = random.Random.__init__

    def __init__(self, x=None):
        if x is None and _called_by_own_code() and type(self) is not random.SystemRandom:
            refuse(M.text("unseeded_rng", where=where, name="random.Random"))
        real_init(self, x)

    random.Random.__init__ = __init__
    system_init = random.SystemRandom.__init__ if "__init__" in vars(random.SystemRandom) else real_init

    def system(self, *args, **kwargs):
        if _called_by_own_code():
            refuse(M.text("unseeded_rng", where=where, name="random.SystemRandom"))
        system_init(self, *args, **kwargs)

    random.SystemRandom.__init__ = system
    urandom = os.urandom

    def refusing_urandom(size):
        if _called_by_own_code():
            refuse(M.text("unseeded_rng", where=where, name="os.urandom"))
        return urandom(size)

    os.urandom = refusing_urandom


# --- the clock -------------------------------------------------------------------------

# time's functions that read the clock (those taking a time read it only when given none)
_CLOCK = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
          "process_time", "process_time_ns", "thread_time", "thread_time_ns")
_CLOCK_UNLESS_GIVEN = ("localtime", "gmtime", "ctime", "asctime", "strftime")


def _refuse_clock(where: str) -> None:
    """A clock read by the project's code gives another number each build: refused (time, datetime)."""

    def guard(name: str, real, given: int | None = None):
        def read(*args, **kwargs):
            if (given is None or len(args) <= given) and _called_by_own_code():
                refuse(M.text("clock", where=where, name=name))
            return real(*args, **kwargs)

        read.__name__, read.__doc__ = real.__name__, real.__doc__
        return read

    for name in _CLOCK:
        setattr(time, name, guard(f"time.{name}", getattr(time, name)))
    for name in _CLOCK_UNLESS_GIVEN:   # strftime(format, t): the time is its second argument
        setattr(time, name, guard(f"time.{name}", getattr(time, name), 1 if name == "strftime" else 0))
    for cls, methods in ((datetime.datetime, ("now", "utcnow", "today")), (datetime.date, ("today",))):
        own = {}
        for method in methods:
            real = getattr(cls, method)

            def read(klass, *args, _real=real, _name=f"datetime.{cls.__name__}.{method}", **kwargs):
                if _called_by_own_code():
                    refuse(M.text("clock", where=where, name=_name))
                return _real(*args, **kwargs)

            own[method] = classmethod(read)
        namespace = {**own, "__module__": "datetime", "__qualname__": cls.__qualname__}
        setattr(datetime, cls.__name__, _SameClass(cls.__name__, (cls,), namespace))


# --- the network -----------------------------------------------------------------------

# audit event -> the position of the socket in its arguments (None: a name lookup)
_NETWORK = {"socket.connect": 0, "socket.sendto": 0, "socket.sendmsg": 0, "socket.getaddrinfo": None,
            "socket.gethostbyname": None, "socket.gethostbyaddr": None}


def _refuse_network(where: str) -> None:
    """An answer from a server is not in the project: reaching for one is refused (a Unix socket is a
    file of this machine and stays allowed)."""

    def hook(event: str, args: tuple) -> None:
        if event not in _NETWORK:
            return
        if _NETWORK[event] is None:                     # a lookup: (host, port, …) or (host,)
            target = f"{args[0]}:{args[1]}" if event == "socket.getaddrinfo" else str(args[0])
        elif getattr(args[0], "family", None) == socket.AF_UNIX:
            return
        else:
            target = _describe(args[1]) if len(args) > 1 else "?"
        refuse(M.text("network", where=where, target=target))

    sys.addaudithook(hook)


def _describe(target) -> str:
    if isinstance(target, tuple) and len(target) >= 2:
        return f"{target[0]}:{target[1]}"
    return str(target)


# --- other programs ----------------------------------------------------------------------

_PROGRAMS = ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.fork",
             "os.forkpty")
_STDLIB = os.path.dirname(os.path.realpath(os.__file__))


def _package_folder(name: str) -> str | None:
    """Where the package `name` is installed, found without importing it (None if it is not)."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return os.path.dirname(os.path.realpath(spec.origin))


# The code between a cell's shell escape (`out = !ls`, `%sx`) and the audit event: IPython turns the
# line into get_ipython().getoutput(...), which starts the program through subprocess. A program started
# there was asked for by the cell, so these frames are passed over like the standard library's.
_ESCAPE_PACKAGES = ("IPython", "ipykernel", "pexpect", "ptyprocess")
_SHELL_ESCAPES = tuple(folder for folder in map(_package_folder, _ESCAPE_PACKAGES) if folder is not None)


def _refuse_programs(where: str) -> None:
    """A program the project's code starts reads what no record sees (`git log`, `cat data.csv`): refused.
    A library may start one for itself (matplotlib's fc-list)."""

    def hook(event: str, args: tuple) -> None:
        if event not in _PROGRAMS:
            return
        frame = sys._getframe(1)
        passed_over = (_STDLIB, "<frozen", *_SHELL_ESCAPES)
        while frame is not None and frame.f_code.co_filename.startswith(passed_over):
            frame = frame.f_back                         # subprocess.py, os.py, IPython: who called them
        if frame is not None and _own(frame.f_code.co_filename):
            program = args[1] if event == "subprocess.Popen" else args[0]
            refuse(M.text("program", where=where, program=str(program)[:200]))

    sys.addaudithook(hook)


# --- the docs folder ----------------------------------------------------------------------

_CHANGES = {"os.rename": (0, 1), "os.mkdir": (0,), "os.remove": (0,), "os.rmdir": (0,),
            "os.symlink": (1,), "os.link": (1,), "os.truncate": (0,)}   # audit event -> the paths it changes


def _refuse_writes(docs: Path, where: str) -> None:
    """An audit hook that stops any write, rename or removal under `docs`."""
    folder = os.path.realpath(docs)

    def hook(event: str, args: tuple) -> None:
        if event == "open":
            changed = [args[0]] if (args[2] or 0) & (os.O_WRONLY | os.O_RDWR) else []
        elif event == "sqlite3.connect":
            changed = [args[0]]
        else:
            changed = [args[i] for i in _CHANGES.get(event, ())]
        for path in changed:
            if not isinstance(path, (str, bytes, os.PathLike)):
                continue                                 # a file descriptor
            path = os.path.realpath(os.fsdecode(path))
            if deps.inside(path, folder):
                name = os.path.relpath(path, os.path.dirname(folder))
                refuse(M.text("writes_docs", where=where, name=name))

    sys.addaudithook(hook)


def start(root: Path, where: str) -> None:
    """From now on refuse, in this process, what no record of inputs reproduces; `where` names the
    computation in the messages (figures_src/x.py, docs/laby/lab-3.py)."""
    _state.update(root=os.path.realpath(root), where=where)
    _refuse_global_random(where)
    _refuse_unseeded(where)
    _refuse_clock(where)
    _refuse_network(where)
    _refuse_programs(where)
    _refuse_writes(Path(root, "docs"), where)
