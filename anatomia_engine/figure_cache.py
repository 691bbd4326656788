"""A figure's SVGs kept by what determines them.

A module that runs again and builds the same figure does not draw it
again: `.cache/anatomia/figures/`, one entry per figure holding the SVG
of each theme. Drawing is most of a module's run (constrained layout,
text layout, writing the SVG); building the figure is a small part. So
the worker builds a figure (in the neutral style, or in every theme),
then looks up its `key`:

- each build's matplotlib Figure as the figure function returned it
  (after the decimal comma), pickled with the rcParams in force, the
  SVG ids' salt among them (`fingerprint`). What a pickle names without
  its content is taken in by content: a function of the project (a
  tick formatter's lambda) by its code, defaults, closure and the
  globals it reads; a class or module of the project by the code of
  the modules it reaches. The transforms' links to their parents
  (keyed by `id()`, another in every process) are left out: what a
  figure draws is reached from its artists downwards. Sets of axes
  (ordered by `id()`) are written in the figure's order;
- the functions called when it is drawn (draw_event callbacks, held
  by its canvas, which a figure's pickle leaves out);
- the engine code that draws (plot.py, numfmt.py, worker.py, this
  file, themes.py), the Python version, every installed distribution's
  version (`environment`) and the fonts matplotlib knows when the
  figure is drawn, a font file of the project by its content.

Both themes are one entry. A neutral figure (themes.py) is keyed by
its one build in the neutral style, both SVGs made from its drawing;
an entry there may instead say it is not neutral. A figure built in
each theme is keyed by both builds: the dark theme replays the light
theme's layout (plot.Layouts), so its SVG depends on both figures. A
figure that cannot be pickled (a library's local function in it) has
no key and is drawn every time.
"""

import functools
import hashlib
import importlib
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
FORMAT = "2"
# the engine modules whose code draws a figure or makes its key
DRAWING_MODULES = (
    "anatomia_engine.plot",
    "anatomia_engine.numfmt",
    "anatomia_engine.worker",
    "anatomia_engine.figure_cache",
    "anatomia_engine.themes",
)
# what pickling a figure may raise: then it has no key
_UNPICKLABLE = (
    pickle.PicklingError,
    TypeError,
    AttributeError,
    ValueError,
    RecursionError,
)


# ---------------------------------------------------------------------
# What a figure is drawn with besides itself
# ---------------------------------------------------------------------


def _installed_paths() -> list[str]:
    """The folders of sys.path in the Python installation.

    The other folders (the project's own among them) differ between the
    worker and a run by hand, and what they hold is keyed by content.
    """
    paths = []
    for path in sys.path:
        real = os.path.realpath(path)
        if any(deps.inside(real, folder) for folder in deps.PYTHON):
            paths.append(path)
    return paths


def _versions() -> list[str]:
    """name==version of every distribution installed."""
    found = importlib.metadata.distributions(path=_installed_paths())
    return sorted(f"{d.metadata['Name']}=={d.version}" for d in found)


def _fonts() -> tuple[str, ...]:
    """The fonts matplotlib knows now (a font installed, or one a module
    adds with `font_manager.fontManager.addfont`, may change a text)."""
    from matplotlib import font_manager

    known = font_manager.fontManager
    fonts = []
    for font in known.ttflist + known.afmlist:
        # what decides which file a text's family, style and weight find
        fields = (font.fname, font.name, font.style, font.variant,
                  font.weight, font.stretch)
        fonts.append(repr(fields))
    return tuple(sorted(fonts))


@functools.cache
def _project_fonts(fonts: tuple[str, ...], root: str) -> tuple[str, ...]:
    """The font files among the known `fonts` that are the project's
    (matplotlib's own are installed, also where .venv is in the project)."""
    from matplotlib import font_manager

    known = font_manager.fontManager
    own = []
    for font in known.ttflist + known.afmlist:
        path = os.path.realpath(font.fname)
        if any(deps.inside(path, folder) for folder in deps.PYTHON):
            continue
        if deps.inside(path, root):
            own.append(path)
    return tuple(own)


def _fonts_key(root: str) -> str:
    """The key of the fonts matplotlib knows now: their names, and the
    content of a font file of the project (it may change, its name not)."""
    fonts = _fonts()
    own = _project_fonts(fonts, root)
    contents = [Path(path).read_bytes() for path in own]
    return store.key(*fonts, *contents)


@functools.cache
def environment() -> str:
    """The key of what draws besides the figure and its fonts: the
    drawing code, Python and the installed distributions. Worked out
    once per process (the worker, before it forks)."""
    # (imported here if this process has not yet: a key made outside the worker)
    modules = [importlib.import_module(name) for name in DRAWING_MODULES]
    code = store.code_key(*modules)
    # zlib compresses the PNG of an image embedded in the SVG
    zlib_version = zlib.ZLIB_RUNTIME_VERSION
    parts = [code, sys.version, zlib_version, *_versions()]
    return store.key(*parts)


# ---------------------------------------------------------------------
# Where code comes from
# ---------------------------------------------------------------------

_INSTALLED = tuple(folder + os.sep for folder in deps.PYTHON)
_ENGINE = deps.ENGINE + os.sep


@functools.cache
def _is_project_file(filename: str, root: str) -> bool:
    """Whether code of `filename` is the project's or the engine's, not
    an installed library's. (Asked for every class a figure holds: cached,
    since resolving the path cost more than the pickling.)"""
    # most of a figure's classes are matplotlib's: known as they are named
    installed = filename.startswith(_INSTALLED)
    if installed and not filename.startswith(_ENGINE):
        return False
    path = os.path.realpath(filename)
    if deps.inside(path, deps.ENGINE):
        return True
    if any(deps.inside(path, folder) for folder in deps.PYTHON):
        return False
    return deps.inside(path, root)


def _project_module(name: str, root: str):
    """The loaded module `name` if it is a file of the project or the
    engine, else None."""
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if isinstance(file, str) and _is_project_file(file, root):
        return module
    return None


@functools.cache
def _module_closure(name: str, root: str) -> str:
    """The code of project module `name` and of every project module
    its globals reach (a module, or a function or class of one)."""
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
                continue
            owner = getattr(value, "__module__", None)
            if isinstance(owner, str):
                waiting.append(owner)
    return store.code_key(*(seen[n] for n in sorted(seen)))


def _code_shape(code: types.CodeType) -> tuple:
    """What a code object computes: its bytecode, constants (nested code
    alike), names and flags; not its file or line numbers, which a line
    added above it changes."""
    consts = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            const = _code_shape(const)
        consts.append(const)
    names = (code.co_names, code.co_varnames, code.co_freevars,
             code.co_cellvars)
    counts = (code.co_argcount, code.co_posonlyargcount,
              code.co_kwonlyargcount, code.co_flags)
    return (code.co_code, tuple(consts), names, counts,
            code.co_exceptiontable)


def _global_names(code: types.CodeType) -> list[str]:
    """The names a code object (and the code nested in it) may read as
    globals."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _global_names(const)
    return sorted(set(names))


# ---------------------------------------------------------------------
# A figure's fingerprint
# ---------------------------------------------------------------------


def _axes_state(ax) -> dict:
    """The pickled state of `ax`, its shared and twinned axes as lists
    in the figure's order (as sets they are in `id()` order)."""
    state = ax.__getstate__()
    siblings = ax.get_figure(root=True).axes

    def place(other) -> int:
        if other in siblings:
            return siblings.index(other)
        return len(siblings)

    shared = {}
    for name, group in state["_shared_axes"].items():
        shared[name] = sorted(group, key=place)
    state["_shared_axes"] = shared
    if state["_twinned_axes"] is not None:
        state["_twinned_axes"] = sorted(state["_twinned_axes"], key=place)
    return state


def _grouper_state(grouper) -> dict:
    """The pickled state of `grouper` (labels to align), each group as a
    list in the order its members joined, not a set in `id()` order."""
    state = grouper.__getstate__()
    order = state["_ordering"]
    groups = {}
    for member, group in state["_mapping"].items():
        groups[member] = sorted(group, key=order.get)
    state["_mapping"] = groups
    return state


# The types whose objects need no stand-in (artists, arrays …): answered
# without asking again, for the thousands of objects of a figure.
_PLAIN: set[type] = set()


class _Fingerprint(pickle.Pickler):
    """A pickler whose output is the same for the same figure in every
    process, and another when anything it is drawn with differs. Its
    output is hashed, never loaded: its stand-ins are plain tuples."""

    def __init__(self, file, root: str) -> None:
        # imported here: the build that imports this module draws nothing
        from matplotlib.axes import Axes
        from matplotlib.cbook import Grouper
        from matplotlib.transforms import TransformNode

        super().__init__(file, protocol=5)
        self.root = root
        self.special = (TransformNode, Grouper, Axes)
        # the functions being taken in: one reaching itself is named
        self.inside: set[int] = set()

    def reducer_override(self, obj):
        if type(obj) in _PLAIN:
            return NotImplemented
        transform, grouper, axes = self.special
        if isinstance(obj, transform):
            state = obj.__getstate__()
            # {id(parent): parent}: not drawn from, ids differ by process
            state.pop("_parents", None)
            return tuple, (("transform", type(obj)),), state
        if isinstance(obj, grouper):
            return tuple, (("grouper",),), _grouper_state(obj)
        if isinstance(obj, axes):
            return tuple, (("axes", type(obj)),), _axes_state(obj)
        if isinstance(obj, types.FunctionType):
            return self._function(obj)
        if isinstance(obj, (type, types.ModuleType)):
            return self._named(obj)
        # a function or class may be the project's though others of
        # its type were not; any other object is what its type says
        _PLAIN.add(type(obj))
        return NotImplemented

    def _named(self, obj):
        """A class or module: by its code if it is the project's (an
        installed one is named; its version is in `environment`)."""
        if isinstance(obj, types.ModuleType):
            name = obj.__name__
            kind = "module"
        else:
            name = obj.__module__
            kind = "class"
        if not _project_module(name, self.root):
            if kind == "class":
                return NotImplemented
            return tuple, (("module", name),)
        code = _module_closure(name, self.root)
        qualified = getattr(obj, "__qualname__", name)
        return tuple, ((kind, qualified, name, code),)

    def _function(self, fn: types.FunctionType):
        """A project function by what it computes: its code, defaults,
        closure and the globals it reads (a library's by its name)."""
        code = fn.__code__
        if not _is_project_file(code.co_filename, self.root):
            return NotImplemented
        named = (fn.__module__, fn.__qualname__)
        if id(fn) in self.inside:
            return tuple, (("again", *named),)
        self.inside.add(id(fn))
        try:
            # a default or a closure's cell may hold what it formats with
            cells = fn.__closure__ or ()
            closure = tuple(cell.cell_contents for cell in cells)
            used = []
            for name in _global_names(code):
                if name in fn.__globals__:
                    used.append((name, fn.__globals__[name]))
            shape = (_code_shape(code), fn.__defaults__,
                     fn.__kwdefaults__, closure, used)
            # pickled apart, inside the guard: its digest stands for it
            inner = io.BytesIO()
            _Fingerprint(inner, self.root).dump_inside(shape, self.inside)
        finally:
            self.inside.discard(id(fn))
        digest = hashlib.sha256(inner.getvalue()).hexdigest()
        return tuple, (("function", *named, digest),)

    def dump_inside(self, obj, inside: set[int]) -> None:
        """Pickle `obj` inside the functions being taken in."""
        self.inside = inside
        self.dump(obj)


def fingerprint(fig, root: Path) -> str | None:
    """SHA-256 of figure `fig` and the rcParams in force: the same in
    every process for the same figure; None when something in it cannot
    be pickled (it is then drawn every time)."""
    import matplotlib

    from anatomia_engine.plot import draw_callbacks

    # read while drawing, not when the figure is made (the minus sign,
    # the SVG's font type, its ids' salt)
    rc = sorted(matplotlib.rcParams.items())
    # called while drawing; the figure's pickle leaves its canvas out
    called = draw_callbacks(fig)
    out = io.BytesIO()
    try:
        _Fingerprint(out, os.path.realpath(root)).dump((fig, rc, called))
    except _UNPICKLABLE:
        return None
    return hashlib.sha256(out.getvalue()).hexdigest()


def warm_up(fig, root: Path) -> None:
    """Work out before the worker forks what every child's keys need:
    `environment`, the fonts' key, and what a fingerprint caches (the
    types it passes, the drawing code), here from `fig`."""
    key("", [fingerprint(fig, root) or ""], root)


def key(name: str, prints: list[str], root: Path) -> str:
    """The store key of figure `name` (module.function) drawn from the
    figures of fingerprints `prints`, one per theme, in the project at
    `root` with the fonts matplotlib knows now."""
    fonts = _fonts_key(os.path.realpath(root))
    parts = [environment(), fonts, name, *prints]
    return store.key("figure", FORMAT, *parts)


# ---------------------------------------------------------------------
# The kept SVGs
# ---------------------------------------------------------------------


class Drawings:
    """The figures' entries of the project at `root`: each theme's SVG
    by the figure's key."""

    def __init__(self, folder: Path, root: Path) -> None:
        self.kept = store.Store(folder, ".json")
        self.root = root

    def get(self, key: str, where: str) -> dict[str, str] | None:
        """{theme: SVG} kept for `key`, or None."""
        data = self.kept.get(key, where)
        if data is None:
            return None
        # an entry of another shape is drawn again, like a missing one
        try:
            svgs = json.loads(data)
        except ValueError:
            return None
        if not isinstance(svgs, dict):
            return None
        if not all(isinstance(svg, str) for svg in svgs.values()):
            return None
        return svgs

    def put(self, key: str, svgs: dict[str, str]) -> None:
        # sorted: the same SVGs are the same bytes, whatever their order
        data = json.dumps(svgs, sort_keys=True)
        self.kept.put(key, data.encode("utf-8"))


def prune(folder: Path, used: set[str]) -> None:
    """Drop the figures' entries no module's kept result names (`used`:
    the keys its results name)."""
    store.Store(folder, ".json").keep_only(used)
