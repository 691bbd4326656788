"""The spare kernel `make serve` keeps warmed up (anatomia_engine/notebooks/launch.py): the next execution
takes it only when it fits (the project, the notebook, the environment, alive, its warm-up's inputs
unchanged) and then publishes what a fresh kernel does; otherwise a fresh kernel runs and the log says
why. No kernel process or socket folder outlives its end: end_spare, the process's exit, SIGTERM."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import nbformat
import pytest

from anatomia_engine import notebooks
from anatomia_engine.errors import EngineError
from anatomia_engine.notebooks import launch
from tests.helpers import running, running_kernels
from tests.unit.lab_kernel import execute_cells, lab_project

WHERE = "docs/laby/lab.py"
# the repository: a script run with `python -c` from it imports the tests' helpers
REPO = Path(__file__).resolve().parents[2]
# The first cell says which kernel ran it; the others are what is compared.
PID = "import os\nprint(os.getpid())"
CELLS = (
    PID,
    "import numpy as np\nimport matplotlib.pyplot as plt\nprint(np.linspace(0, 1, 5))",
    "from pathlib import Path\nprint(Path('attn_core/__init__.py').exists())",
    "fig, ax = plt.subplots(figsize=(2, 1))\nax.plot([0, 1], [1, 0])\nplt.show()",
)


def gone(pid: int | None, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while running(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return not running(pid)


def run(root) -> tuple[int, str, dict]:
    """Execute CELLS: the kernel's pid, the other cells as published, the record."""
    nb, record = execute_cells(root, *CELLS)
    pid = int(nb.cells[0].outputs[0]["text"])
    rest = nbformat.writes(nbformat.v4.new_notebook(cells=nb.cells[1:]))
    return pid, rest, record


def spare_ready(root, where: str = WHERE) -> int:
    launch.keep_spare(root, where)
    assert launch.wait_for_spare(120)
    pid = launch.spare_pid()
    assert running(pid)
    return pid


def short_folder():
    """A temporary folder of the test's own, with a short path: a Unix socket's path has at most
    107 bytes, and pytest's own folders are longer."""
    return Path(tempfile.mkdtemp(prefix="spare-", dir="/tmp"))


@pytest.fixture
def own_tmp(monkeypatch):
    """The temporary folder the kernels' sockets go to, the test's own; no spare left after."""
    folder = short_folder()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    notebooks.end_spare()
    monkeypatch.undo()
    shutil.rmtree(folder)


def test_the_spare_kernel_publishes_what_a_fresh_one_does_and_ends(tmp_path, own_tmp):
    root = lab_project(tmp_path)
    fresh_pid, fresh, fresh_record = run(root)
    pid = spare_ready(root)
    used_pid, used, used_record = run(root)
    assert used_pid == pid != fresh_pid
    assert used == fresh            # outputs, figures, execution counts
    assert used_record == fresh_record
    assert "docs/laby/lab.py" in used_record["files"]
    assert gone(pid)
    assert launch.spare_pid() is None
    assert not list(own_tmp.iterdir())


@pytest.mark.parametrize("change", ["environment", "notebook", "project"])
def test_a_spare_started_for_something_else_is_not_used(tmp_path, own_tmp, monkeypatch, caplog,
                                                         change):
    root = lab_project(tmp_path)
    if change == "project":
        spare_root = lab_project(tmp_path / "other")
        pid = spare_ready(spare_root)
    elif change == "notebook":
        pid = spare_ready(root, "docs/laby/other.py")
    else:
        pid = spare_ready(root)
        monkeypatch.setenv("ANATOMIA_TEST_CHANGED", "1")
    with caplog.at_level(logging.INFO, logger="anatomia_engine.notebooks"):
        used_pid, _, _ = run(root)
    assert used_pid != pid
    assert gone(pid)
    said = [r for r in caplog.records if r.name == "anatomia_engine.notebooks"]
    assert [r.levelno for r in said] == [logging.INFO]
    assert said[0].getMessage().startswith(f"{WHERE}: ")


# Files the warm-up reads: deps.start notes what is installed; importing matplotlib looks for a
# matplotlibrc in the working folder (the project), and would keep the settings it found.
WARM_UP_INPUTS = {
    "requirements.lock": ("numpy\nmatplotlib\n", "requirements.lock"),
    "matplotlibrc": ("figure.dpi: 42\n", "matplotlibrc"),
}


@pytest.mark.parametrize("name", sorted(WARM_UP_INPUTS))
def test_a_spare_whose_warm_up_inputs_changed_is_not_used(tmp_path, own_tmp, caplog, name):
    root = lab_project(tmp_path)
    pid = spare_ready(root)
    text, named = WARM_UP_INPUTS[name]
    (root / name).write_text(text)
    with caplog.at_level(logging.INFO, logger="anatomia_engine.notebooks"):
        nb, record = execute_cells(root, PID, "import matplotlib\nprint(matplotlib.rcParams['figure.dpi'])")
    assert int(nb.cells[0].outputs[0]["text"]) != pid and gone(pid)
    said = [r.getMessage() for r in caplog.records if r.name == "anatomia_engine.notebooks"]
    assert len(said) == 1 and named in said[0]
    assert name in record["files"]
    dpi = float(nb.cells[1].outputs[0]["text"])
    assert (dpi == 42) == (name == "matplotlibrc")


def test_a_spare_that_died_is_not_used_and_the_log_says_so(tmp_path, own_tmp, caplog):
    root = lab_project(tmp_path)
    pid = spare_ready(root)
    os.kill(pid, signal.SIGKILL)
    assert gone(pid)
    with caplog.at_level(logging.INFO, logger="anatomia_engine.notebooks"):
        used_pid, _, _ = run(root)
    assert used_pid != pid
    # (said when it is taken, or when it turns out dead right after: it may die at any moment)
    said = [r for r in caplog.records if r.name == "anatomia_engine.notebooks"]
    assert [r.levelno for r in said if r.levelno > logging.INFO] == [logging.WARNING]
    assert not list(own_tmp.iterdir())



# A spare that died before the run, in a process of its own: what it prints as it exits is read.
DIED_SPARE = textwrap.dedent("""
    import os, signal, sys, time
    from pathlib import Path
    from anatomia_engine.notebooks import launch
    from tests.helpers import running
    from tests.unit.lab_kernel import execute_cells
    root = Path(sys.argv[1])
    launch.keep_spare(root, "docs/laby/lab.py")
    assert launch.wait_for_spare(120)
    pid = launch.spare_pid()
    os.kill(pid, signal.SIGKILL)
    # dead (a zombie), not yet reaped: the spare is still taken, and nbclient finds it dead
    while running(pid):
        time.sleep(0.01)
    nb, _ = execute_cells(root, "print(6 * 7)")
    print(nb.cells[0].outputs[0]["text"].strip())
""")


def test_a_spare_that_died_leaves_nothing_to_say_at_exit(tmp_path):
    # nbclient, given the dead spare, leaves its atexit clean-up registered (jupyter/nbclient#126):
    # at exit it failed an assertion and printed a traceback after a good run
    root = lab_project(tmp_path)
    folder = short_folder()
    try:
        done = subprocess.run([sys.executable, "-c", DIED_SPARE, str(root)], cwd=REPO,
                              env={**os.environ, "TMPDIR": str(folder)}, capture_output=True,
                              text=True, timeout=300)
    finally:
        shutil.rmtree(folder)
    assert done.returncode == 0, done.stderr
    # the run went on in a fresh kernel
    assert done.stdout.strip() == "42"
    assert "Traceback" not in done.stderr, done.stderr


def test_a_failed_warm_up_falls_back_to_a_fresh_kernel_and_says_why(tmp_path, own_tmp, caplog):
    root = lab_project(tmp_path)
    # the kernel's working folder comes first on its path: this "numpy" breaks the warm-up
    shadow = root / "numpy.py"
    shadow.write_text("raise RuntimeError('numpy shadowed on purpose')\n")
    pid = spare_ready(root)
    with pytest.raises(EngineError) as info:
        execute_cells(root, "x = 1")
    assert info.value.id == "kernel_failed"
    assert "numpy shadowed on purpose" in info.value.fields["problem"]
    pid = spare_ready(root)
    shadow.unlink()
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="anatomia_engine.notebooks"):
        used_pid, _, _ = run(root)
    assert used_pid != pid and gone(pid)
    said = [r for r in caplog.records if r.name == "anatomia_engine.notebooks"]
    assert [r.levelno for r in said] == [logging.WARNING]
    assert "numpy shadowed on purpose" in said[0].getMessage()


def test_ending_the_spare_while_it_starts_leaves_nothing(tmp_path, own_tmp):
    root = lab_project(tmp_path)
    launch.keep_spare(root, WHERE)
    time.sleep(0.3)
    pid = launch.spare_pid()
    notebooks.end_spare()
    assert gone(pid)
    assert launch.spare_pid() is None
    assert not list(own_tmp.iterdir())


# Run in a process of its own, ended as a server is: the spare's kernel and folder must not outlive it.
SERVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from anatomia_engine.notebooks import launch
    from anatomia_engine.served import EndLikeCtrlC
    EndLikeCtrlC().install()
    launch.keep_spare(Path(sys.argv[1]), "docs/laby/lab.py")
    launch.wait_for_spare(120)
    print(launch.spare_pid(), flush=True)
    # until the test closes its input (then the process exits), or a signal ends it
    sys.stdin.read()
""")


@pytest.mark.parametrize("ending", ["exit", "SIGTERM", "SIGKILL"])
def test_the_spare_ends_with_the_process_that_kept_it(tmp_path, ending):
    root = lab_project(tmp_path)
    folder = short_folder()
    env = {**os.environ, "TMPDIR": str(folder)}
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(root)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        pid = int(proc.stdout.readline())
        assert running(pid)
        if ending == "exit":
            proc.stdin.close()
        else:
            proc.send_signal(getattr(signal, ending))
        proc.wait(timeout=60)
        # a killed server runs nothing: ipykernel ends itself once its parent is gone (it polls
        # every second), and only the sockets' folder is left
        assert gone(pid, 10)
        left = list(folder.iterdir())
    finally:
        # (a failed assertion above leaves no process of the test's behind either)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            stream.close()
        shutil.rmtree(folder)
    if ending != "SIGKILL":
        assert not left


def test_a_long_temporary_folder_leaves_the_sockets_room(tmp_path, monkeypatch):
    root = lab_project(tmp_path)
    # pytest's own folder, longer still: no Unix socket path fits under it
    long = tmp_path / ("t" * 60)
    long.mkdir()
    short = short_folder()
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    monkeypatch.setattr(launch, "SHORT_TMP", str(short))
    try:
        pid, _, _ = run(root)
        spare = spare_ready(root)
        used_pid, _, _ = run(root)
        assert used_pid == spare != pid
        left = [*long.iterdir(), *short.iterdir()]
    finally:
        notebooks.end_spare()
        shutil.rmtree(short)
    assert not left


def kernels_of_this_process() -> list[int]:
    """The running kernels this process started."""
    return [pid for pid, parent, _ in running_kernels() if parent == os.getpid()]


def test_stopping_the_build_while_the_spare_warms_up_ends_it(tmp_path, own_tmp):
    root = lab_project(tmp_path)
    launch.keep_spare(root, WHERE)
    with pytest.raises(EngineError) as info:
        with notebooks.executing() as pool:
            run = pool.submit(execute_cells, root, "x = 1")
            notebooks.stop()
            run.result()
    assert info.value.id == "notebook_stopped"
    assert launch.spare_pid() is None
    end = time.monotonic() + 10
    while kernels_of_this_process() and time.monotonic() < end:
        time.sleep(0.05)
    assert not kernels_of_this_process()
    assert not list(own_tmp.iterdir())


def test_a_spare_ended_where_an_event_loop_runs_still_ends_its_kernel(tmp_path, own_tmp):
    """end_spare from asyncio code (a test driver, a caller of its own loop): the kernel's manager
    runs its shutdown on a loop of its own, so the kernel ends and no coroutine is left unawaited."""
    import asyncio
    import warnings

    pid = spare_ready(lab_project(tmp_path))

    async def end_here() -> None:
        notebooks.end_spare()

    def in_a_running_loop() -> None:
        # a thread of the test's own: the test process's main thread may have a loop of its own
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(end_here())
        finally:
            loop.close()

    with warnings.catch_warnings():
        # a coroutine never awaited would warn when collected
        warnings.simplefilter("error", RuntimeWarning)
        thread = threading.Thread(target=in_a_running_loop)
        thread.start()
        thread.join()
        import gc

        gc.collect()
    assert gone(pid)
    assert not list(own_tmp.iterdir())
