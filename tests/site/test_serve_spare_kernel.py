"""`make serve` keeps the lab's next kernel started and warmed up (anatomia_engine/notebooks/launch.py):
a save that executes the notebook again runs it in that kernel, and a new one is started; a failed build
ends it and the next good one starts another; a server ended by `kill` (SIGTERM) leaves no kernel
process and no socket folder behind."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from helpers import FIXTURE, core, fixture_project, free_port, http_get, wait_for

# The fixture's lab, with a cell that shows which kernel ran it.
LAB = (FIXTURE / "extra" / "lab.py").read_text() + "\n# %%\nimport os\nprint('jądro', os.getpid())\n"


def kernels(folder: Path) -> list[int]:
    """The running kernels whose connection file is in `folder` (a zombie does not run)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"ipykernel" in command and str(folder).encode() in command and state != "Z":
            pids.append(int(entry))
    return pids


def shown_kernel(url: str) -> int:
    return int(re.search(r"jądro (\d+)", http_get(url)).group(1))


def test_a_save_runs_the_lab_in_the_kernel_kept_ready_and_nothing_outlives_the_server(tmp_path):
    project = fixture_project(tmp_path / "proj", lab=True, files={"docs/laby/lab.py": LAB})
    # the server's temporary folder, short: a Unix socket's path has at most 107 bytes
    temporary = Path(tempfile.mkdtemp(prefix="spare-", dir="/tmp"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"TMPDIR": str(temporary)}
    port = free_port()
    server = subprocess.Popen(
        core("serve", "--dirty", "--strict", "--dev-addr", f"127.0.0.1:{port}"),   # as `make serve`
        cwd=project, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(server.stdout), daemon=True)
    reader.start()
    lab = f"http://127.0.0.1:{port}/laby/lab/"
    page = project / "docs" / "inne.md"
    demo = project / "figures_src" / "demo.py"
    try:
        assert wait_for(lambda: "jądro" in http_get(lab), 300), "".join(output)
        first = shown_kernel(lab)
        # after the first build, one kernel waits for the next execution
        assert wait_for(lambda: len(kernels(temporary)) == 1, 120), "".join(output)
        spare = kernels(temporary)[0]
        assert spare != first
        # a value the lab reads changes: the lab runs again, in that kernel, and another waits
        demo.write_text(demo.read_text().replace("0.35434369377420455", "0.25"))
        assert wait_for(lambda: shown_kernel(lab) == spare, 120), "".join(output)
        assert wait_for(lambda: len(kernels(temporary)) == 1 and spare not in kernels(temporary),
                        120), "".join(output)
        # a failed build ends it; the next good one starts another
        page.write_text("# Inna strona\n\nZwykły tekst, a tu {{ nie_ma_takiej_wartosci }}.\n")
        assert wait_for(lambda: not kernels(temporary), 120), "".join(output)
        page.write_text("# Inna strona\n\nPoprawiony tekst.\n")
        assert wait_for(lambda: len(kernels(temporary)) == 1, 120), "".join(output)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        reader.join(timeout=30)
        server.stdout.close()
        left = kernels(temporary)
        files = list(temporary.iterdir())
        shutil.rmtree(temporary)
    # ended as by Ctrl-C: no kernel, and every temporary folder removed (on_shutdown ran)
    assert not left and not files, "".join(output)
