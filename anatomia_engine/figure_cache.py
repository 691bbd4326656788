"""A figure's SVGs kept by what determines them: a module that runs again and builds the same figure
does not draw it again (`.cache/anatomia/figures/`, one entry per figure with both themes' SVGs).

Drawing is most of a module's run (constrained layout, text layout, writing the SVG); building the
figure is a small part. So the worker builds a figure in every theme, then looks up its `key`:

- each theme's matplotlib Figure as the figure function returned it (after the decimal comma),
  pickled (`fingerprint`) with the rcParams in force, its SVG ids' salt among them. What the pickle
  would name without its content is taken in by content: a function of the project (a tick
  formatter's lambda) by its code, its defaults, its closure and the globals it uses; a class or
  module of the project by the code of the modules it reaches. The transforms' links back to
  their parents (keyed by `id()`, another in every process) are left out: what a figure draws
  is reached from its artists downwards;
- the engine code that draws (plot.py, numfmt.py, worker.py, this file), the Python version, every
  installed distribution's version and the fonts matplotlib knows (`environment`).

Both themes are one entry: the dark theme replays the light theme's layout (plot.Layouts), so its
SVG depends on both figures. A figure that cannot be pickled (a library's local function in it) has
no key and is drawn every time, as before.
"""

import functools
import hashlib
import importlib.metadata
import io
import json
import os
import pickle
import sys
import types
import zlib
from pathlib import Path

from anatomia_engine import deps, store

# the store kind of the figures' entries (store.KINDS)
KIND = "figures"
# the entries' format: another one is never read as this one
FORMAT = "1"
# the engine modules whose code draws a figure or names its key
DRAWING_MODULES = ("anatomia_engine.plot", "anatomia_engine.numfmt", "anatomia_engine.worker",
                   "anatomia_engine.figure_cache")


# ---------------------------------------------------------------------------------------------
# What a figure is drawn with besides itself
# ---------------------------------------------------------------------------------------------


def _code_files(names) -> str:
    """What the code of the modules `names` computes (store.code_key: comments and docstrings aside)."""
    return store.code_key(*(sys.modules[name] for name in names))


@functools.cache
def environment() -> str:
    """The key of what draws besides the figure: the drawing code, Python, the installed
    distributions and the fonts. Worked out once per process (the worker before it forks)."""
    from matplotlib import font_manager

    # what is installed in the Python installation (sys.path's other folders, the project's own among
    # them, differ between the worker and a run by hand, and their code is keyed by content)
    installed = [p for p in sys.path if any(deps.inside(os.path.realpath(p), f) for f in deps.PYTHON)]
    found = importlib.metadata.distributions(path=installed)
    versions = sorted(f"{d.metadata['Name']}=={d.version}" for d in found)
    fonts = sorted(repr((f.fname, f.name, f.style, f.variant, f.weight, f.stretch))
                   for f in font_manager.fontManager.ttflist + font_manager.fontManager.afmlist)
    # zlib compresses the PNG of an image (a colour map) embedded in the SVG
    parts = [_code_files(DRAWING_MODULES), sys.version, zlib.ZLIB_RUNTIME_VERSION, *versions, *fonts]
    return store.key(*parts)


# ---------------------------------------------------------------------------------------------
# A figure's fingerprint
# ---------------------------------------------------------------------------------------------


def _axes_state(ax) -> dict:
    """The pickled state of `ax`, its shared and twinned axes as lists in the figure's order (as sets
    of axes they are ordered by `id()`, another order in every process)."""
    state = ax.__getstate__()
    siblings = ax.get_figure(root=True).axes

    def place(other) -> int:
        if other in siblings:
            return siblings.index(other)
        return len(siblings)

    state["_shared_axes"] = {name: sorted(group, key=place) for name, group in state["_shared_axes"].items()}
    if state["_twinned_axes"] is not None:
        state["_twinned_axes"] = sorted(state["_twinned_axes"], key=place)
    return state


def _grouper_state(grouper) -> dict:
    """The pickled state of `grouper` (the figure's labels to align), each group as a list in the
    order its members joined, not as a set ordered by `id()`."""
    state = grouper.__getstate__()
    order = state["_ordering"]
    state["_mapping"] = {k: sorted(group, key=order.get) for k, group in state["_mapping"].items()}
    return state


@functools.cache
def _is_project_file(filename: str, root: str) -> bool:
    """Whether code of `filename` is the project's or the engine's (not an installed library's).
    (Asked for every class a figure holds: resolving the path each time cost more than pickling.)"""
    path = os.path.realpath(filename)
    if any(deps.inside(path, folder) for folder in deps.PYTHON) and not deps.inside(path, deps.ENGINE):
        return False
    return deps.inside(path, root) or deps.inside(path, deps.ENGINE)


def _code_shape(code: types.CodeType) -> tuple:
    """What a code object computes: its bytecode, constants (nested code alike), names and flags;
    not its file name or line numbers, which a line added above it changes."""
    consts = tuple(_code_shape(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
            code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags,
            code.co_exceptiontable)


def _global_names(code: types.CodeType) -> list[str]:
    """The names a code object and the code nested in it may read as globals."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _global_names(const)
    return sorted(set(names))


class _Fingerprint(pickle.Pickler):
    """A pickler whose output is the same for the same figure in every process, and different when
    anything it draws with differs (see the module's docstring). Its output is hashed, never loaded:
    the stand-ins it writes are plain tuples."""

    def __init__(self, file, root: str) -> None:
        # matplotlib is imported where figures are drawn, not by the build that imports this module
        from matplotlib.axes import Axes
        from matplotlib.cbook import Grouper
        from matplotlib.transforms import TransformNode

        super().__init__(file, protocol=5)
        self.root = root
        self.special = (TransformNode, Grouper, Axes)
        # functions being taken in now: a function that reaches itself names itself the second time
        self.inside: set[int] = set()

    def reducer_override(self, obj):
        transform, grouper, axes = self.special
        if isinstance(obj, transform):
            state = obj.__getstate__()
            # id(parent) -> parent: ids differ between processes, and parents are not drawn from
            state.pop("_parents", None)
            return tuple, (("transform", type(obj)),), state
        if isinstance(obj, grouper):
            return tuple, (("grouper",),), _grouper_state(obj)
        if isinstance(obj, axes):
            return tuple, (("axes", type(obj)),), _axes_state(obj)
        if isinstance(obj, types.FunctionType) and _is_project_file(obj.__code__.co_filename, self.root):
            return tuple, (self._function(obj),)
        if isinstance(obj, type) and _project_module(obj.__module__, self.root):
            code = _module_closure(obj.__module__, self.root)
            return tuple, (("class", obj.__module__, obj.__qualname__, code),)
        if isinstance(obj, types.ModuleType) and _project_module(obj.__name__, self.root):
            return tuple, (("module", obj.__name__, _module_closure(obj.__name__, self.root)),)
        if isinstance(obj, types.ModuleType):
            # an installed library: its version is in `environment`
            return tuple, (("module", obj.__name__),)
        return NotImplemented

    def _function(self, fn: types.FunctionType) -> tuple:
        """A project function by what it computes: its code, defaults, closure and the globals it reads."""
        if id(fn) in self.inside:
            return ("again", fn.__module__, fn.__qualname__)
        self.inside.add(id(fn))
        try:
            closure = tuple(cell.cell_contents for cell in fn.__closure__ or ())
            used = {n: fn.__globals__[n] for n in _global_names(fn.__code__) if n in fn.__globals__}
            # pickled now, inside the guard: a global that is this very function names it
            inner = io.BytesIO()
            _Fingerprint(inner, self.root).dump_inside(
                (_code_shape(fn.__code__), fn.__defaults__, fn.__kwdefaults__, closure, sorted(used.items())),
                self.inside)
        finally:
            self.inside.discard(id(fn))
        return ("function", fn.__module__, fn.__qualname__, hashlib.sha256(inner.getvalue()).hexdigest())

    def dump_inside(self, obj, inside: set[int]) -> None:
        """Pickle `obj`, knowing the functions whose fingerprint is being taken around it."""
        self.inside = inside
        self.dump(obj)


def _project_module(name: str, root: str) -> types.ModuleType | None:
    """The loaded module `name` if it is a file of the project or the engine, else None."""
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if isinstance(file, str) and _is_project_file(file, root):
        return module
    return None


@functools.cache
def _module_closure(name: str, root: str) -> str:
    """The code of project module `name` and of every project module reachable from its globals."""
    seen: dict[str, types.ModuleType] = {}
    waiting = [name]
    while waiting:
        module = _project_module(waiting.pop(), root)
        if module is None or module.__name__ in seen:
            continue
        seen[module.__name__] = module
        for value in list(vars(module).values()):
            if isinstance(value, types.ModuleType):
                waiting.append(value.__name__)
            elif isinstance(getattr(value, "__module__", None), str):
                waiting.append(value.__module__)
    return store.code_key(*(seen[n] for n in sorted(seen)))


def fingerprint(fig, root: Path) -> str | None:
    """SHA-256 of figure `fig` and the rcParams in force, the same in every process for the same
    figure; None when something in it cannot be pickled (it is then drawn every time)."""
    import matplotlib

    rc = sorted(matplotlib.rcParams.items())
    out = io.BytesIO()
    try:
        _Fingerprint(out, os.path.realpath(root)).dump((fig, rc))
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(out.getvalue()).hexdigest()


def key(name: str, prints: list[str]) -> str:
    """The store key of figure `name` drawn from the figures of fingerprints `prints` (one per theme)."""
    return store.key("figure", FORMAT, environment(), name, *prints)


# ---------------------------------------------------------------------------------------------
# The kept SVGs
# ---------------------------------------------------------------------------------------------


class Drawings:
    """The figures' entries: each theme's SVG by the figure's key."""

    def __init__(self, folder: Path) -> None:
        self.kept = store.Store(folder, ".json")

    def get(self, key: str, where: str) -> dict[str, str] | None:
        """{theme: SVG} kept for `key`, or None."""
        data = self.kept.get(key, where)
        if data is None:
            return None
        svgs = json.loads(data)
        # an entry of another format (or damaged past its checksum) is drawn again
        if not isinstance(svgs, dict) or not all(isinstance(s, str) for s in svgs.values()):
            return None
        return svgs

    def put(self, key: str, svgs: dict[str, str]) -> None:
        self.kept.put(key, json.dumps(svgs, sort_keys=True).encode("utf-8"))


def prune(folder: Path, used: set[str]) -> None:
    """Drop the figures' entries that no module's kept result names (`used`: their keys)."""
    store.Store(folder, ".json").keep_only(used)
