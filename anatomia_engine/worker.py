"""The warm worker: imports NumPy, matplotlib and the kit once, then forks one child per module
run (child.py), at most `jobs` at a time, and kills a child that runs past its time limit.

Every module still runs in a fresh process, so nothing leaks from one module to the next. The
runner starts it as `python -c BOOT ROOT JOBS` in the project root. It reads one JSON request
per line ({"id", "module", "out", "root", "docs", "limit"}) and answers one line per request
({"id", "status", "timed_out"}); its first line is the record of the files it imported
(deps.py), so the runner knows when an edit makes it stale.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from collections import deque
from pathlib import Path

from anatomia_engine import child, deps

# The engine's first two files are compiled from source too (no .pyc is read or written while
# they load), then deps.start makes every later project import do the same.
BOOT = """\
import sys
sys.path[0] = sys.argv[1]
sys.dont_write_bytecode, sys.pycache_prefix = True, "/dev/null/no-pycache"
from anatomia_engine import deps
sys.dont_write_bytecode, sys.pycache_prefix = False, None
deps.start(sys.argv[1], reads=False)
from anatomia_engine import worker
sys.exit(worker.serve(sys.argv[1], int(sys.argv[2])))
"""


def _preload() -> None:
    """What every module needs, imported once before forking."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.pyplot as plt
    import numpy  # noqa: F401

    import anatomia_engine.kit  # noqa: F401
    import anatomia_engine.plot  # noqa: F401

    fig = plt.figure()
    fig.text(0.5, 0.5, "0,5")                   # load the fonts once
    fig.savefig(os.devnull, format="svg")
    plt.close(fig)


def serve(root: str, jobs: int) -> int:
    _preload()
    for module in list(sys.modules.values()):
        if isinstance(getattr(module, "__file__", None), str):
            deps.note(Path(module.__file__))
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)   # anything printed by accident goes to the log, not into the replies
    out.write(json.dumps({"preloaded": deps.snapshot(Path(root))}).encode() + b"\n")
    queue: deque[dict] = deque()
    running: dict[int, dict] = {}
    buffer, eof = b"", False
    while not eof or queue or running:
        while queue and len(running) < jobs:
            request = queue.popleft()
            pid = os.fork()
            if pid == 0:
                out.close()
                child.main(request)
            request["pid"], request["started"] = pid, time.monotonic()
            running[pid] = request
        if not eof:
            ready, _, _ = select.select([0], [], [], 0.01 if running else None)
            if ready:
                chunk = os.read(0, 65536)
                eof = not chunk
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        queue.append(json.loads(line))
        else:
            time.sleep(0.01)
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            request = running.pop(pid, None)
            if request is not None:
                code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
                reply = {"id": request["id"], "status": code, "timed_out": request.get("timed_out", False)}
                out.write(json.dumps(reply).encode() + b"\n")
        now = time.monotonic()
        for pid, request in running.items():
            if not request.get("timed_out") and now - request["started"] > request["limit"]:
                request["timed_out"] = True
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    return 0
