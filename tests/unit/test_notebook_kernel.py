"""The lab's kernel (anatomia_engine/notebooks/kernel.py), held to the modules' rules: it talks over Unix
sockets of the build's own (kernels started at once never race for a TCP port), records what its cells
read, refuses what no record reproduces, bounds and checks what a cell shows, and ends at once when the
build is stopped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from anatomia_engine import placeholders
from anatomia_engine.errors import EngineError
from tests.unit.lab_kernel import execute_cells, lab_project

REPO = Path(__file__).resolve().parents[2]
TRANSPORT = ("import json; from ipykernel.connect import get_connection_info; "
             "print(json.loads(get_connection_info())['transport'])")


def test_the_kernel_talks_over_unix_sockets_and_records_checks_and_dot_files(tmp_path):
    root = lab_project(tmp_path)
    (root / "figures_src" / ".data").mkdir()
    (root / "figures_src" / ".data" / "v.json").write_text("1")
    reads = ("from pathlib import Path\n"
             "print(Path('figures_src/.data/v.json').read_text(), Path('flag').exists())")
    nb, record = execute_cells(root, TRANSPORT, reads,
                          "print('nanosekundy, banan, Nancy')")     # words with "nan" inside are no NaN
    printed = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert printed.strip() == "ipc", json.dumps(nb.cells[0].outputs)[:500]
    assert "figures_src/.data/v.json" in record["files"]
    assert "flag" in record["absent"]
    assert "banan" in nb.cells[2].outputs[0]["text"]


# What stops the build: a cell's output past its bounds, NaN shown, or a refusal (REFUSED: the
# cell fails with hermetic's Refused when it lets the refusal through, else cell_refused).
REFUSED = "refused"


@pytest.mark.parametrize(("cell", "id"), [
    ("print('x' * 1_000_000)", "cell_output_size"),
    ("for i in range(3000):\n    print(i, 'y' * 20)", "cell_output_size"),
    ("import numpy as np\nprint(np.array([0.0, 1.0]) / 0.0)", "cell_nan"),
    ("from pathlib import Path\nPath('docs/x.txt').write_text('x')", REFUSED),
    ("import time\ntry:\n    time.time()\nexcept Exception:\n    pass", REFUSED),
    ("import subprocess\nsubprocess.run(['true'])", REFUSED),
    ("out = get_ipython().getoutput('ls')", REFUSED),          # `out = !ls`
    # a plain shell escape: IPython runs it through pexpect on a terminal (a fork), even when caught
    ("x = 2\n!echo hi", REFUSED),
    ("try:\n    get_ipython().system('echo hi')\nexcept Exception:\n    pass", REFUSED),
    # a cell magic starting a program on a thread of IPython's
    ("%%bash\necho hi", REFUSED),
    ("import os\ntry:\n    os.fork()\nexcept Exception:\n    pass", REFUSED),
    # a timing magic shows the time it read: the page would change with every build
    ("%%time\nx = 2", REFUSED),
    ("%timeit -n1 -r1 x = 2", REFUSED),
    # code made from a string runs for the cell that made it
    ("exec(\"import subprocess; subprocess.run(['true'])\")", REFUSED),
    ("import urllib.request\ntry:\n    urllib.request.urlopen('http://127.0.0.1:9/')\n"
     "except Exception:\n    pass", REFUSED),
])
def test_a_cell_breaking_the_modules_rules_stops_the_build_naming_it(tmp_path, cell, id):
    root = lab_project(tmp_path)
    with pytest.raises(EngineError) as info:
        execute_cells(root, "x = 1", cell)
    error = info.value
    if id == REFUSED:
        failed_with_refusal = error.id == "cell_failed" and error.fields["error"].startswith("Refused:")
        assert error.id == "cell_refused" or failed_with_refusal, str(error)[:2000]
    else:
        assert error.id == id, str(error)[:2000]
    assert error.fields["cell"] == 2
    file, _, line = error.where.partition(":")
    assert file == "docs/laby/lab.py"
    assert 5 <= int(line) < 5 + len(cell.splitlines()), error.where     # a line of the second cell
    assert not (root / "docs" / "x.txt").exists()


STOPPING = """
import sys, threading, time
from pathlib import Path
sys.path.insert(0, "tests/unit")
from lab_kernel import execute_cells
from anatomia_engine import notebooks

failed = []
def run():
    try:
        execute_cells(Path(sys.argv[1]), "import time as t\\nt.sleep(600)")
    except BaseException as exc:
        failed.append(getattr(exc, "id", repr(exc)))
thread = threading.Thread(target=run)
thread.start()
while not notebooks.is_running():
    time.sleep(0.2)
time.sleep(3)              # the kernel runs the sleeping cell
notebooks.stop()
thread.join(timeout=60)
print("alive" if thread.is_alive() else failed)
sys.stdout.flush()
"""


def test_stop_ends_a_running_kernel_at_once(tmp_path):
    """In a process of its own, as in a build: stop() (Ctrl-C) ends a cell that would sleep 10 minutes."""
    root = lab_project(tmp_path)
    proc = subprocess.run([sys.executable, "-c", STOPPING, str(root)], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert "notebook_stopped" in proc.stdout and "alive" not in proc.stdout, proc.stdout + proc.stderr[-2000:]


def test_a_placeholder_in_a_raw_cell_is_refused_with_its_line(tmp_path):
    source = tmp_path / "lab.py"
    source.write_text("# %%\nx = 1\n\n# %% [raw]\n# <b>{{ x }}</b>\n")
    with pytest.raises(EngineError) as info:
        placeholders.refuse_in_notebook(source, "lab.py")
    assert info.value.id == "notebook_placeholder" and info.value.where == "lab.py:5"
    assert info.value.fields == {"mark": "{{", "kind": "raw"}
