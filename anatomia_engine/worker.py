"""The module runs' process: imports NumPy, matplotlib and the kit once, then forks a fresh child per
module, one per core at a time. `python -c BOOT ROOT` prints the record of what it read, then reads JSON
lists of requests ({"id", "module", "out", "limit", "env"}) and prints {"id", "status"} as each ends.
A child records what its module reads (deps.py), refuses what no record reproduces (hermetic.py:
unseeded generators, the clock, the network, writes into docs/), and writes its store entry into `out`.
"""

import importlib
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path

from anatomia_engine import codec, deps, hermetic
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
ENTRY, ERROR, OUTPUT, CURRENT = "entry.json", "error.txt", "output.txt", "current.txt"
def run_module(module_name: str, out: Path, root: Path) -> None:
    """Import one module with its inputs recorded, call its functions, write its entry into `out`."""
    import matplotlib
    import matplotlib.pyplot as plt

    from anatomia_engine.kit import KIND, Plot
    from anatomia_engine.plot import STYLES, Layouts, use_decimal_comma

    short = module_name.split(".")[-1]
    where = f"figures_src/{short}.py"

    def now_running(what: str) -> None:
        (out / CURRENT).write_text(what, encoding="utf-8")

    deps.start(root, skip=(out,))
    hermetic.start(root, where)
    module = importlib.import_module(module_name)
    declared = [f for f in vars(module).values() if getattr(f, "__module__", None) == module_name]
    values, figures, contents = {}, {}, {}
    layouts = Layouts()   # a figure's layout in its first theme, reused in the next
    for fn in (f for f in declared if getattr(f, KIND, None) == "values"):
        now_running(f"{module_name}.{fn.__name__}()")
        produced = fn()
        if not isinstance(produced, dict):
            raise TypeError(M.text("values_not_dict", type=type(produced).__name__))
        for key, value in produced.items():
            if key in values:
                raise ValueError(M.text("value_twice", name=key, module=module_name))
            values[key] = codec.value_entry(module_name, fn.__name__, key, value)
    for fn in (f for f in declared if getattr(f, KIND, None) == "figure"):
        name = fn.__name__
        if name in values:
            raise ValueError(M.text("value_and_figure", name=name, module=module_name))
        files = {"csv": f"{name}.csv"}
        for style in STYLES:
            now_running(f"{module_name}.{name}(style={style.name!r})")
            with matplotlib.rc_context({**style.rc(), "svg.hashsalt": f"{short}.{name}.{style.name}"}):
                plot = fn(style)
                if not isinstance(plot, Plot):
                    raise TypeError(M.text("figure_not_plot", type=type(plot).__name__))
                use_decimal_comma(plot.fig)
                svg = layouts.svg(plot.fig, name)
                plt.close(plot.fig)
            files[style.name] = f"{name}-{style.name}.svg"
            contents[files[style.name]] = svg
        contents[files["csv"]] = plot.table.to_csv()
        table = codec.encode_value(plot.table, codec.table_where(module_name, name))
        figures[name] = {"files": files, "alt": plot.alt, "caption": plot.caption, "table": table}
    if hermetic.errors:   # the module caught a refusal: it still fails
        raise hermetic.errors[0]
    now_running(f"{module_name} (writing the result)")
    result = {"format": codec.FORMAT, "module": module_name, "values": values, "figures": figures}
    entry = json.dumps({"deps": deps.snapshot(root), "result": result, "files": contents}, sort_keys=True)
    (out / ENTRY).write_text(entry, encoding="utf-8")


def _child(request: dict, root: str) -> None:
    """Run the module of `request` within its time limit (SIGALRM's default action ends the process,
    even inside a C loop); never returns."""
    signal.setitimer(signal.ITIMER_REAL, request["limit"])
    out = Path(request["out"])
    code = 1
    try:
        out.mkdir()
        with open(out / OUTPUT, "wb") as output:
            os.dup2(output.fileno(), 1)
            os.dup2(output.fileno(), 2)
        sys.stdin = open(os.devnull)  # noqa: SIM115
        deps.use_environment(request["env"])
        (out / CURRENT).write_text(f"{request['module']} (import)", encoding="utf-8")
        run_module(request["module"], out, Path(root))
        code = 0
    except BaseException as exc:
        current = (out / CURRENT).read_text(encoding="utf-8")
        if isinstance(exc, EngineError):   # it names module, function and value
            text = hermetic.refused[0] if hermetic.refused else str(exc)
        elif isinstance(exc, SystemExit):
            text = M.text("module_exit", current=current, code=exc.code) + "\n" + traceback.format_exc()
        else:
            text = "\n".join([*hermetic.refused[:1], f"in {current}:\n{traceback.format_exc()}"])
        (out / ERROR).write_text(text, encoding="utf-8")
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def serve(root: str) -> int:
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)   # anything printed by accident goes to the log, not into the replies
    # what every module needs, imported once before forking ($MPLBACKEND is Agg)
    import matplotlib.pyplot as plt

    import anatomia_engine.kit  # noqa: F401
    import anatomia_engine.plot  # noqa: F401

    fig = plt.figure()
    fig.text(0.5, 0.5, "0,5")                   # load the fonts once
    fig.savefig(os.devnull, format="svg")
    plt.close(fig)
    replies.write(json.dumps(deps.snapshot(Path(root))).encode() + b"\n")
    for line in sys.stdin.buffer:
        waiting, running = json.loads(line), {}
        while waiting or running:
            while waiting and len(running) < (os.cpu_count() or 2):
                request = waiting.pop(0)
                pid = os.fork()
                if pid == 0:
                    replies.close()
                    _child(request, root)
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
            return pid, os.waitstatus_to_exitcode(status), usage.ru_maxrss   # (Linux: KiB)
        for pid, (_, deadline) in running.items():
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, _, usage = os.wait4(pid, 0)
                return pid, -signal.SIGALRM, usage.ru_maxrss
        time.sleep(0.02)
