"""The module runs' process: imports NumPy, matplotlib and the kit once, then forks a fresh child per
module, one per core at a time. `python -c BOOT ROOT` prints the record of what it read, then reads
JSON lists of requests ({"id", "module", "out", "limit", "env", "figures"}) and prints
{"id", "status"} as each ends.
A child records what its module reads (deps.py), refuses what no record reproduces (hermetic.py:
unseeded generators, the clock, the network, writes into docs/), and writes its store entry into `out`;
a run that fails writes its EngineError there instead (pickled: the build raises it as it was made).
A figure is built and drawn once, in the neutral style, and each theme's SVG made from that drawing
(themes.py); a figure that is not neutral is built in each theme. A figure built the same as in an
earlier run is not drawn again: its SVGs come from the figures' store (figure_cache.py), named in the
request's "figures".
"""

import gc
import importlib
import json
import logging
import os
import pickle
import resource
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anatomia_engine import codec, deps, figure_cache, hermetic, store
from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError

# The engine's first two files compile from source too (no .pyc read or written), then every import does.
BOOT = """\
import sys
sys.path[0] = sys.argv[1]
sys.dont_write_bytecode, sys.pycache_prefix = True, "/dev/null/no-pycache"
from anatomia_engine import deps
sys.dont_write_bytecode, sys.pycache_prefix = False, None
deps.start(sys.argv[1])
from anatomia_engine import worker
sys.exit(worker.serve(sys.argv[1]))
"""
# The files a child writes into its request's `out` folder
ENTRY = "entry.json"      # the store entry, when the run succeeded
ERROR = "error.pickle"    # the EngineError, when it failed
OUTPUT = "output.txt"     # what the module printed
CURRENT = "current.txt"   # what the module is running now (a time limit's message names it)


def _values(module, declared: list, now_running) -> dict:
    """The stored form of every value the module's @values functions return."""
    from anatomia_engine.kit import KIND

    values = {}
    for fn in declared:
        if getattr(fn, KIND, None) != "values":
            continue
        now_running(f"{module.__name__}.{fn.__name__}()")
        produced = fn()
        if not isinstance(produced, dict):
            raise EngineError("values_not_dict", type=type(produced).__name__)
        for key, value in produced.items():
            if key in values:
                raise EngineError("value_twice", name=key, module=module.__name__)
            values[key] = codec.value_entry(module.__name__, fn.__name__, key, value)
    return values


@dataclass
class _Built:
    """One theme of a figure as its function returned it: the Plot, the rcParams in force when it
    returned (what it is drawn with), and its fingerprint (figure_cache; None: not kept)."""

    style: Any
    plot: Any
    rc: dict
    fingerprint: str | None


def _build(fn, style, salt: str, root: Path, kept: bool) -> _Built:
    """Call the @figure function `fn` in `style`, give its figure the decimal comma and, if its SVGs
    are `kept`, take its fingerprint; not drawn yet."""
    import matplotlib

    from anatomia_engine.kit import Plot
    from anatomia_engine.plot import use_decimal_comma

    # the salt gives the SVG's ids: the same bytes on every machine and build
    with matplotlib.rc_context({**style.rc(), "svg.hashsalt": salt}):
        plot = fn(style)
        if not isinstance(plot, Plot):
            raise EngineError("figure_not_plot", type=type(plot).__name__)
        use_decimal_comma(plot.fig)
        # what the function left in force (an rcParam it set itself) is what it is drawn with
        rc = dict(matplotlib.rcParams)
        fingerprint = None
        if kept:
            fingerprint = figure_cache.fingerprint(plot.fig, root)
        return _Built(style, plot, rc, fingerprint)


def _draw(built: _Built, name: str, layouts) -> str:
    """The SVG of a built figure, in the rcParams it was built with.

    `layouts` (plot.Layouts) keeps each figure's layout from its first theme: the themes differ
    only in colour, so the next theme reuses it instead of working it out again.
    """
    import matplotlib

    with matplotlib.rc_context(built.rc):
        return layouts.svg(built.plot.fig, name)


def _figures(module, declared: list, values: dict, now_running, root: Path,
             drawings: "figure_cache.Drawings | None") -> tuple[dict, dict, dict]:
    """The figures of the module's @figure functions: (their entries, the files' contents, the keys
    each one's SVGs are kept under in `drawings`)."""
    from anatomia_engine.kit import KIND
    from anatomia_engine.plot import STYLES, Layouts

    short = module.__name__.split(".")[-1]
    figures = {}
    contents = {}
    keys = {}
    # A figure that is not neutral is built in each theme: its layout, worked out in the first
    # theme, is replayed in the next one (plot.Layouts checks that the result is the same drawing).
    layouts = Layouts()
    for fn in declared:
        if getattr(fn, KIND, None) != "figure":
            continue
        name = fn.__name__
        if name in values:
            raise EngineError("value_and_figure", name=name, module=module.__name__)
        qualified = f"{module.__name__}.{name}"
        # drawn once in neutral colours, each theme's SVG made from that one (themes.py)
        svgs, plot, keys[name] = _neutral_figure(fn, short, qualified, root, drawings, now_running)
        if svgs is None:
            svgs, plot, themed_keys = _themed_figure(fn, short, qualified, root, drawings, layouts,
                                                     now_running)
            keys[name] += themed_keys
        files = {"csv": f"{name}.csv"}
        for style in STYLES:
            files[style.name] = f"{name}-{style.name}.svg"
            contents[files[style.name]] = svgs[style.name]
        contents[files["csv"]] = plot.table.to_csv()
        table = codec.encode_value(plot.table, codec.table_where(module.__name__, name))
        figures[name] = {"files": files, "alt": plot.alt, "caption": plot.caption, "table": table}
    return figures, contents, keys


# What the figures' store keeps for a figure that is not neutral, under its neutral key: the next
# run builds it in each theme without drawing it in neutral colours first.
_NOT_NEUTRAL = {"not neutral": ""}


def _neutral_figure(fn, short: str, qualified: str, root: Path, drawings, now_running):
    """({theme: SVG}, its Plot, [the key they are kept under]) of a figure built and drawn once in
    the neutral style (themes.NEUTRAL); (None, None, [its key]) when the figure is not neutral: its
    function reads the theme's name, or its SVG holds a colour of its own."""
    import matplotlib
    import matplotlib.pyplot as plt

    from anatomia_engine import themes
    from anatomia_engine.plot import STYLES, to_svg

    now_running(f"{qualified}(style='neutral')")
    opened = set(plt.get_fignums())
    try:
        built = _build(fn, themes.NEUTRAL, f"{short}.{fn.__name__}", root, drawings is not None)
    except themes.ThemeDependent:
        # what the function drew before it asked
        for number in set(plt.get_fignums()) - opened:
            plt.close(number)
        return None, None, []
    key = None
    if drawings is not None and built.fingerprint is not None:
        key = figure_cache.key(qualified, ["neutral", built.fingerprint], drawings.root)
    kept_under = [key] if key is not None else []
    try:
        kept = drawings.get(key, qualified) if key is not None else None
        if kept == _NOT_NEUTRAL:
            return None, None, kept_under
        if kept is not None and set(kept) == {style.name for style in STYLES}:
            return kept, built.plot, kept_under
        # drawn in the rcParams it was built with, as every theme's figure is (_draw)
        with matplotlib.rc_context(built.rc):
            svg = to_svg(built.plot.fig)
        try:
            svgs = {style.name: themes.themed(svg, style) for style in STYLES}
        except themes.NotNeutral:
            svgs = _NOT_NEUTRAL
        if key is not None:
            drawings.put(key, svgs)
        if svgs is _NOT_NEUTRAL:
            return None, None, kept_under
        return svgs, built.plot, kept_under
    finally:
        plt.close(built.plot.fig)


def _themed_figure(fn, short: str, qualified: str, root: Path, drawings, layouts, now_running):
    """({theme: SVG}, the last theme's Plot, [the key they are kept under]) of a figure built in
    each theme."""
    import matplotlib.pyplot as plt

    from anatomia_engine.plot import STYLES

    name = fn.__name__
    # every theme built before any is drawn: the key is made of them all
    built = []
    for style in STYLES:
        now_running(f"{qualified}(style={style.name!r})")
        built.append(_build(fn, style, f"{short}.{name}.{style.name}", root, drawings is not None))
    svgs, key = _svgs(built, qualified, layouts, drawings, now_running)
    for one in built:
        plt.close(one.plot.fig)
    # the data table is the same in every style: the last one's is kept
    return svgs, built[-1].plot, [key] if key else []


def _svgs(built: list[_Built], qualified: str, layouts, drawings,
          now_running) -> tuple[dict[str, str], str | None]:
    """({theme: SVG} of one figure, the key they are kept under): kept ones if `drawings` has them,
    else drawn now (and kept)."""
    name = qualified.rsplit(".", 1)[1]
    prints = [one.fingerprint for one in built]
    key = None
    if drawings is not None and None not in prints:
        key = figure_cache.key(qualified, prints, drawings.root)
        kept = drawings.get(key, qualified)
        if kept is not None and set(kept) == {one.style.name for one in built}:
            return kept, key
    svgs = {}
    for one in built:
        now_running(f"{qualified}(style={one.style.name!r})")
        svgs[one.style.name] = _draw(one, name, layouts)
    if key is not None:
        drawings.put(key, svgs)
    return svgs, key


def run_module(module_name: str, out: Path, root: Path, figures: Path | None = None) -> None:
    """Import one module with its inputs recorded, call its functions, write its entry into `out`.

    `figures`: the folder of the figures' kept SVGs (figure_cache), None to draw every figure.
    """

    def now_running(what: str) -> None:
        (out / CURRENT).write_text(what, encoding="utf-8")

    short = module_name.split(".")[-1]
    # A run is a process of its own (hermetic.start below changes it for good), and its garbage
    # ends with it: the cyclic collector runs every 50 000 new objects, not CPython's 700. A
    # module's figures make about a hundred thousand; collecting took 0,39 s of all the modules'
    # CPU in a cold build, 0,15-0,18 s with this; a loop making cycles is still collected.
    gc.set_threshold(50_000, 10, 10)
    # what it writes into `out` (its figures' files) is its output, not an input
    deps.start(root, skip=(out,))
    # (the kept SVGs are the engine's store, which deps never records: checked by their own keys)
    drawings = None
    if figures is not None:
        drawings = figure_cache.Drawings(figures, root)
    # what the store says here (a damaged entry, a folder it cannot write) is said by the build
    said = _StoreMessages()
    store.log.addHandler(said)
    hermetic.start(root, f"figures_src/{short}.py")
    module = importlib.import_module(module_name)
    # the functions the module defines itself (not those it imports)
    declared = [f for f in vars(module).values() if getattr(f, "__module__", None) == module_name]
    values = _values(module, declared, now_running)
    produced, contents, drawn = _figures(module, declared, values, now_running, root, drawings)
    if hermetic.errors:   # the module caught a refusal: it still fails
        raise hermetic.errors[0]
    now_running(f"{module_name} (writing the result)")
    result = {"format": codec.FORMAT, "module": module_name, "values": values, "figures": produced}
    # `drawn`: the keys of its figures' kept SVGs (what the store keeps while this entry is used);
    # `seconds`: the CPU this run took since the fork, what the next runs are ordered by
    usage = resource.getrusage(resource.RUSAGE_SELF)
    kept_under = sorted(key for figure_keys in drawn.values() for key in figure_keys)
    entry = {"deps": deps.snapshot(root), "result": result, "files": contents, "drawn": kept_under,
             "seconds": usage.ru_utime + usage.ru_stime, "said": said.messages}
    (out / ENTRY).write_text(json.dumps(entry, sort_keys=True), encoding="utf-8")


class _StoreMessages(logging.Handler):
    """The store's warnings in a module's run: its output is shown only when it fails, so the build
    says them (runner.py) as it says its own store's."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _error(exc: BaseException, current: str) -> EngineError:
    """The EngineError a run that raised `exc` while running `current` ends with."""
    # a refusal the module caught comes first: it may be why the module failed later
    if isinstance(exc, EngineError) and not hermetic.errors:
        # its message names the module, the function and the value: no traceback needed
        return exc
    if isinstance(exc, EngineError):
        return hermetic.errors[0]
    # sys.exit() ends no module's run quietly: the build would miss its values
    if isinstance(exc, SystemExit):
        detail = "\n" + traceback.format_exc()
        return EngineError("module_exit", current=current, code=exc.code, detail=detail)
    raised = M.text("module_raised", current=current) + "\n" + traceback.format_exc()
    if hermetic.errors:
        return hermetic.errors[0].followed_by("\n" + raised)
    return EngineError("module_raised", current=current, detail="\n" + traceback.format_exc())


def _child(request: dict, root: str) -> None:
    """Run the module of `request` within its time limit (SIGALRM's default action ends the process,
    even inside a C loop); never returns."""
    signal.setitimer(signal.ITIMER_REAL, request["limit"])
    out = Path(request["out"])
    # the exit status unless the module ran to its end
    code = 1
    try:
        out.mkdir()
        with open(out / OUTPUT, "wb") as output:
            os.dup2(output.fileno(), 1)
            os.dup2(output.fileno(), 2)
        # a module asking for input would wait for the build's stdin forever
        sys.stdin = open(os.devnull)  # noqa: SIM115
        # the build's environment now, not the one the worker started with
        deps.use_environment(request["env"])
        (out / CURRENT).write_text(f"{request['module']} (import)", encoding="utf-8")
        figures = request.get("figures")
        if figures is not None:
            figures = Path(figures)
        run_module(request["module"], out, Path(root), figures)
        code = 0
    except BaseException as exc:
        current = (out / CURRENT).read_text(encoding="utf-8")
        (out / ERROR).write_bytes(pickle.dumps(_error(exc, current)))
    finally:
        # whatever happens, the child ends here: it must never return into the worker's loop
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _warm_up(root: Path) -> None:
    """Import what every module needs once, before forking ($MPLBACKEND is Agg), load the fonts, and
    fill what every figure's key needs (figure_cache.warm_up)."""
    import matplotlib.pyplot as plt

    # Every run's hermetic.start replaces NumPy's global random functions, which imports
    # numpy.random: imported here once, not in each child (5 ms of CPU a run).
    import numpy.random  # noqa: F401

    import anatomia_engine.kit  # noqa: F401
    from anatomia_engine import plot, themes

    themes.prepare(plot.STYLES)

    fig, ax = plot.new_figure(plot.LIGHT)
    ax.plot([0.0, 0.5], [0.5, 1.0])
    ax.set_title("0,5")
    plot.use_decimal_comma(fig)
    fig.savefig(os.devnull, format="svg")
    figure_cache.warm_up(fig, root)
    plt.close(fig)


def serve(root: str) -> int:
    """Answer requests from the build on stdin until it closes it; 0 then."""
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)   # anything printed by accident goes to the log, not into the replies
    _warm_up(Path(root))
    replies.write(json.dumps(deps.snapshot(Path(root))).encode() + b"\n")
    for line in sys.stdin.buffer:
        waiting = json.loads(line)
        running = {}
        while waiting or running:
            # one child per core: more would only share the cores and each take longer
            while waiting and len(running) < (os.cpu_count() or 2):
                request = waiting.pop(0)
                # What the warm-up made lives as long as the child: frozen, the child's collections
                # skip it (a full one walked ~80 000 objects, ~0,07 s a run, and wrote into every
                # shared page). Python's documented use of gc.freeze before fork.
                gc.freeze()
                pid = os.fork()
                if pid == 0:
                    # the child's output goes to its files: it must not write into the replies
                    replies.close()
                    _child(request, root)
                # a second of grace past the limit, for SIGALRM to end it first
                running[pid] = (request["id"], time.monotonic() + request["limit"] + 1)
            pid, status, peak = _next_end(running)
            reply = {"id": running.pop(pid)[0], "status": status, "peak_kib": peak}
            replies.write(json.dumps(reply).encode() + b"\n")
    return 0


def _next_end(running: dict[int, tuple[str, float]]) -> tuple[int, int, int]:
    """(pid, exit code, peak memory in KiB) of the next child to end; one still running a second past its
    limit (it caught or blocked SIGALRM) is killed and reported as timed out."""
    while True:
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid:
            # ru_maxrss is in KiB on Linux
            return pid, os.waitstatus_to_exitcode(status), usage.ru_maxrss
        for pid, (_, deadline) in running.items():
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, _, usage = os.wait4(pid, 0)
                return pid, -signal.SIGALRM, usage.ru_maxrss
        # no child ended: wait a little rather than spin on wait4
        time.sleep(0.02)
