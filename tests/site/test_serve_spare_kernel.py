"""`make serve` keeps the lab's next kernel started and warmed up (anatomia_engine/notebooks/launch.py):
a save that executes the notebook again runs it in that kernel, and a new one is started; a failed build
ends it and the next good one starts another; a server ended by `kill` (SIGTERM) leaves no kernel
process and no socket folder behind."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from helpers import FIXTURE, fixture_project, http_get, kernels_in, mkdocs_serve, wait_for

# The fixture's lab, with a cell that shows which kernel ran it.
LAB = (FIXTURE / "extra" / "lab.py").read_text() + "\n# %%\nimport os\nprint('jądro', os.getpid())\n"


def shown_kernel(url: str) -> int:
    return int(re.search(r"jądro (\d+)", http_get(url)).group(1))


def test_a_save_runs_the_lab_in_the_kernel_kept_ready_and_nothing_outlives_the_server(tmp_path):
    project = fixture_project(tmp_path / "proj", lab=True, files={"docs/laby/lab.py": LAB})
    # the server's temporary folder, short: a Unix socket's path has at most 107 bytes
    temporary = Path(tempfile.mkdtemp(prefix="spare-", dir="/tmp"))
    page = project / "docs" / "inne.md"
    demo = project / "figures_src" / "demo.py"
    try:
        with mkdocs_serve(project, as_make_serve=True, env={"TMPDIR": str(temporary)}) as served:
            _, base, output = served
            lab = base + "laby/lab/"
            assert wait_for(lambda: "jądro" in http_get(lab), 300), "".join(output)
            first = shown_kernel(lab)
            # after the first build, one kernel waits for the next execution
            assert wait_for(lambda: len(kernels_in(temporary)) == 1, 120), "".join(output)
            spare = kernels_in(temporary)[0]
            assert spare != first
            # a value the lab reads changes: the lab runs again, in that kernel, and another waits
            demo.write_text(demo.read_text().replace("0.35434369377420455", "0.25"))
            assert wait_for(lambda: shown_kernel(lab) == spare, 120), "".join(output)
            # another one waits: exactly one, not the one the lab took
            def another() -> bool:
                waiting = kernels_in(temporary)
                return len(waiting) == 1 and spare not in waiting
            assert wait_for(another, 120), "".join(output)
            # a failed build ends it; the next good one starts another
            page.write_text("# Inna strona\n\nZwykły tekst, a tu {{ nie_ma_takiej_wartosci }}.\n")
            assert wait_for(lambda: not kernels_in(temporary), 120), "".join(output)
            page.write_text("# Inna strona\n\nPoprawiony tekst.\n")
            assert wait_for(lambda: len(kernels_in(temporary)) == 1, 120), "".join(output)
        # left by the server, stopped by SIGTERM as it leaves the block
        left = kernels_in(temporary)
        files = list(temporary.iterdir())
    finally:
        shutil.rmtree(temporary)
    # ended as by Ctrl-C: no kernel, and every temporary folder removed (on_shutdown ran)
    assert not left and not files, "".join(output)
