"""A Jupyter kernel ready for a notebook: started, warmed up, and under `serve` kept spare.

Every kernel first runs `_WARM_UP`, outside the notebook's cells (silent: no output, no execution
count): deps.py records and hermetic.py refuses from then on, as in a module's run, and what every
execution imports first (NumPy, pyplot, IPython.display) is imported. The execution then notes
the notebook's source and the engine's files, and runs the cells (kernel.py). A fresh kernel and
a spare one run the same warm-up, so `make docs` and `make serve` execute the same way.

Under `make serve` the plugin keeps one kernel started and warmed up while the author reads
(`keep_spare`, after a good build). The next execution takes it (`take`) only if it was started
for the same project, notebook and environment, is still alive, and nothing its warm-up read has
changed since (deps.problem on the warm-up's record). Otherwise it is ended, the log says why, and
a fresh kernel starts. The spare ends with `end_spare` (the server's shutdown, a failed build) and
when this process ends (atexit). A kernel also ends by itself within a second of this process
(ipykernel polls its parent).
"""

from __future__ import annotations

import ast
import asyncio
import atexit
import contextlib
import logging
import os
import re
import signal
import tempfile
import textwrap
import threading
import time
from pathlib import Path

from anatomia_engine import deps, runner
from anatomia_engine import messages as M

log = logging.getLogger("anatomia_engine.notebooks")

KERNEL = "python3"
# Seconds a kernel may take to start, and its warm-up to run.
STARTUP_TIMEOUT = 120
# The end of a kernel's log a message shows.
LOG_TAIL = 3000
# The longest path a kernel's Unix socket is given (the system allows 107 bytes), and where its
# sockets go when the temporary folder's path is too long for that.
SOCKET_PATH_MOST = 100
SHORT_TMP = "/tmp"
# What every execution of the lab imports first; a spare imports it while nobody waits.
WARM_IMPORTS = ("numpy", "matplotlib.pyplot", "IPython.display")
# Run in every kernel before the notebook. The modules are imported, not named: a cell that uses
# `numpy` without importing it fails here as it fails for a reader.
_WARM_UP = (
    "from pathlib import Path as _Path\n"
    "from anatomia_engine import deps as _deps, hermetic as _hermetic\n"
    "_deps.start(_Path({root!r}))\n"
    "_hermetic.start(_Path({root!r}), {where!r})\n"
    "for _module in {imports!r}:\n"
    "    __import__(_module)\n"
    "del _module\n"
)
# IPython's banner, in every kernel_info reply, ends with a tip drawn from `random` on a date read
# from the clock, which hermetic.py refuses once the warm-up started it: the executing client
# asks for kernel_info after the warm-up. No page shows the banner.
KERNEL_ARGUMENTS = ("--InteractiveShell.enable_tip=False",)
# Read back after the warm-up: what it read, and what it was refused.
_WARM_UP_REPORT = {
    "record": "_deps.snapshot(_Path({root!r}))",
    "refused": "_hermetic.refused",
}


class WarmUpFailed(Exception):
    """The warm-up raised, was refused, or sent back no record."""


def kernel_environment(root: Path) -> dict[str, str]:
    """The kernel's environment: the modules' one, with the inline backend ipykernel would set."""
    env = runner.worker_environment(root)
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env["SOURCE_DATE_EPOCH"] = "0"
    return env


# ---------------------------------------------------------------------------------------------
# One kernel
# ---------------------------------------------------------------------------------------------


class Started:
    """A kernel for notebook `where` of the project at `root`, started with `env`.

    `km`: its jupyter_client manager, which nbclient's NotebookClient takes (`km=`); `log`: its
    stderr, read when it fails; `record`: what its warm-up read (deps.py). Its Unix sockets and
    connection file are in a folder of its own (kernels started at once never race for a TCP
    port), removed by `end`; its sockets in another with a short path if that one's is long.
    """

    def __init__(self, root: Path, where: str, env: dict[str, str]) -> None:
        self.key = (str(root), where, sorted(env.items()))
        self.root = root
        self.where = where
        self.env = env
        self.folder = tempfile.TemporaryDirectory(prefix="anatomia-kernel-")
        self.sockets = self.folder
        # A Unix socket's path has at most 107 bytes: a long $TMPDIR (a test's folder) leaves
        # the sockets no room, so they go to a folder of their own with a short path.
        if len(os.path.join(self.folder.name, "kernel-99")) > SOCKET_PATH_MOST:
            self.sockets = tempfile.TemporaryDirectory(prefix="anatomia-kernel-", dir=SHORT_TMP)
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self.km = None
        self.record: dict | None = None
        self._ending = threading.Lock()
        self.ended = False

    def start(self) -> None:
        """Start the kernel and run the warm-up; its exceptions pass (WarmUpFailed for the
        warm-up's own)."""
        from nbclient import NotebookClient
        from nbformat import v4
        from traitlets.config import Config

        config = Config(KernelManager={
            "transport": "ipc",
            "ip": os.path.join(self.sockets.name, "kernel"),
            "connection_file": os.path.join(self.folder.name, "kernel.json"),
        })
        # nbclient starts the kernel as it starts one for a notebook (its arguments, its
        # working folder); the cells run later in a client of the executing thread's own
        starter = NotebookClient(v4.new_notebook(), config=config, kernel_name=KERNEL,
                                 timeout=STARTUP_TIMEOUT, startup_timeout=STARTUP_TIMEOUT,
                                 extra_arguments=list(KERNEL_ARGUMENTS),
                                 resources={"metadata": {"path": str(self.root)}})
        self.km = starter.create_kernel_manager()
        starter.start_new_kernel(env=self.env, stderr=self.log)
        starter.start_new_kernel_client()
        try:
            self.record = _warm_up(starter, self.root, self.where)
        finally:
            starter.kc.stop_channels()

    @property
    def pid(self) -> int | None:
        # jupyter_client's provisioner knows the kernel's process; before the start, nothing does
        provisioner = getattr(self.km, "provisioner", None)
        return getattr(provisioner, "pid", None)

    def alive(self) -> bool:
        pid = self.pid
        if pid is None:
            return False
        # a zombie is no kernel: the provisioner's Popen reaps it
        process = getattr(self.km.provisioner, "process", None)
        return process is not None and process.poll() is None

    def said(self, problem: str) -> str:
        """`problem`, and the end of the kernel's log if it wrote one: its last words say why it
        failed or died."""
        with contextlib.suppress(ValueError, OSError):
            self.log.seek(0)
            tail = self.log.read()[-LOG_TAIL:].rstrip()
            if tail:
                return f"{problem}\n  kernel log:\n" + textwrap.indent(tail, "    ")
        return problem

    def kill(self) -> None:
        """End the kernel's process now (its group: the kernel runs in a session of its own)."""
        pid = self.pid
        if not pid:
            return
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def end(self) -> None:
        """End the kernel and remove its sockets, connection file and log (once; any thread)."""
        with self._ending:
            if self.ended:
                return
            self.ended = True
        self.kill()
        if self.km is not None:
            # waits for the killed process (no zombie) and removes the connection file
            with contextlib.suppress(Exception):
                if self.km.has_kernel:
                    _run(self.km.shutdown_kernel(now=True))
            with contextlib.suppress(Exception):
                _run(self.km.cleanup_resources())
        self.log.close()
        self.sockets.cleanup()
        self.folder.cleanup()


def _run(coroutine):
    """Run `coroutine` of the kernel's manager (nbclient's AsyncKernelManager) to its end, in an
    event loop of its own on a thread of its own, both closed after: `end` may run on any
    thread, a loop left to a thread that ends is never closed, and a thread whose own loop is
    running (an asyncio caller's) cannot run another one: the coroutine would never be awaited,
    the killed kernel never reaped and its connection file never removed."""
    outcome: dict = {}

    def run() -> None:
        loop = asyncio.new_event_loop()
        try:
            outcome["value"] = loop.run_until_complete(coroutine)
        except BaseException as exc:  # noqa: BLE001 - raised again on the caller's thread
            outcome["error"] = exc
        finally:
            loop.close()

    thread = threading.Thread(target=run, name="anatomia-kernel-end")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _warm_up(starter, root: Path, where: str) -> dict:
    """Run the warm-up in the kernel of `starter`; what it read (deps.py's record)."""
    code = _WARM_UP.format(root=str(root), where=where, imports=WARM_IMPORTS)
    report = {}
    for name, expression in _WARM_UP_REPORT.items():
        report[name] = expression.format(root=str(root))
    # silent, out of the history: the notebook's first cell still has execution count 1
    msg_id = starter.kc.execute(code, silent=True, store_history=False, user_expressions=report)
    reply = starter.wait_for_reply(msg_id)
    if reply is None:
        raise WarmUpFailed("no reply")
    content = reply["content"]
    if content.get("status") != "ok":
        traceback = "\n".join(content.get("traceback", []))
        # terminal colours mean nothing in a build's log
        traceback = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", traceback)
        raise WarmUpFailed(f"{content.get('ename')}: {content.get('evalue')}\n{traceback}")
    values = {}
    for name, result in content.get("user_expressions", {}).items():
        if result.get("status") != "ok":
            raise WarmUpFailed(f"{name}: {result.get('ename')}: {result.get('evalue')}")
        values[name] = ast.literal_eval(result["data"]["text/plain"])
    if values.get("refused"):
        raise WarmUpFailed(values["refused"][0])
    record = values.get("record")
    if not isinstance(record, dict) or "files" not in record:
        raise WarmUpFailed(f"no record of what it read: {record!r:.200}")
    return record


# ---------------------------------------------------------------------------------------------
# The spare kernel (serve)
# ---------------------------------------------------------------------------------------------


class _Spare:
    """A kernel starting and warming up on a thread of its own."""

    def __init__(self, root: Path, where: str, env: dict[str, str]) -> None:
        self.started = Started(root, where, env)
        self.ready = threading.Event()
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._warm, name="anatomia-spare-kernel",
                                       daemon=True)
        self.thread.start()

    def _warm(self) -> None:
        try:
            self.started.start()
        # whatever it was, the next execution says it and starts a fresh kernel
        except BaseException as exc:  # noqa: BLE001
            self.failure = exc
        finally:
            self.ready.set()
            # the event loop jupyter_core made for this thread's coroutines ends with the thread
            from jupyter_core.utils import ensure_event_loop

            ensure_event_loop().close()

    def problem(self, root: Path, where: str, env: dict[str, str]) -> str | None:
        """Why this ready spare may not run notebook `where` now; None if it may."""
        if self.started.key[:2] != (str(root), where):
            return f"it was started for {self.started.where} in {self.started.root}"
        if self.started.key[2] != sorted(env.items()):
            return "the environment changed since it started"
        return deps.problem(self.started.record, root, env)

    def failed(self) -> str | None:
        """Why this ready spare cannot run anything (it failed or died); None if it can."""
        if self.failure is not None:
            failure = self.failure
            return self.started.said(f"{type(failure).__name__}: {failure}")
        if not self.started.alive():
            return self.started.said("it died")
        return None

    def end(self) -> None:
        # a start under way fails with its kernel killed; then all it made is removed
        self.started.kill()
        self.thread.join(timeout=10)
        self.started.end()


# the spare kernel, at most one: a list, so that taking it is one `pop` under the lock
_spare: list[_Spare] = []
_lock = threading.Lock()


def keep_spare(root: Path, where: str) -> None:
    """Have a kernel for notebook `where` starting or ready, unless one that fits already is."""
    env = kernel_environment(root)
    with _lock:
        kept = None
        if _spare:
            kept = _spare[0]
        fits = kept is not None and kept.started.key == (str(root), where, sorted(env.items()))
        # one still starting is kept: take waits for it
        if fits and kept.ready.is_set():
            fits = kept.failed() is None and kept.problem(root, where, env) is None
        if fits:
            return
        _spare.clear()
        _spare.append(_Spare(root, where, env))
    if kept is not None:
        kept.end()


def take(root: Path, where: str, env: dict[str, str], stopping: threading.Event) -> Started | None:
    """The spare kernel, ready for notebook `where`, if it fits; else None (it is ended, and the
    log says why). Waits for a spare still warming up; `stopping` set ends the wait
    (KeyboardInterrupt)."""
    with _lock:
        if not _spare:
            return None
        spare = _spare.pop()
    # the start and the warm-up are each bounded by STARTUP_TIMEOUT: past both, it is given up
    patience = 2 * STARTUP_TIMEOUT + 10
    deadline = time.monotonic() + patience
    while not spare.ready.wait(0.05):
        if stopping.is_set():
            spare.end()
            raise KeyboardInterrupt
        if time.monotonic() > deadline:
            spare.failure = TimeoutError(f"not ready after {patience} s")
            break
    failed = spare.failed()
    if failed is not None:
        spare.end()
        log.warning(M.text("spare_kernel_failed", where=where, problem=failed))
        return None
    why = spare.problem(root, where, env)
    if why is not None:
        spare.end()
        log.info(M.text("spare_kernel_unused", where=where, why=why))
        return None
    log.info("%s: runs in the kernel kept ready", where)
    return spare.started


def spare_pid() -> int | None:
    """The process of the spare kernel, once started (for the server's tests); None if none."""
    with _lock:
        if not _spare:
            return None
        return _spare[0].started.pid


def wait_for_spare(timeout: float) -> bool:
    """Wait until the spare kernel is ready or failed; whether there is one."""
    with _lock:
        if not _spare:
            return False
        spare = _spare[0]
    return spare.ready.wait(timeout)


@atexit.register
def end_spare() -> None:
    """End the spare kernel, if any."""
    with _lock:
        spares = list(_spare)
        _spare.clear()
    for spare in spares:
        spare.end()
