"""The lab's kernel (anatomia_engine/notebooks.py execute), held to the modules' rules: it talks over Unix
sockets of the build's own (kernels started at once never race for a TCP port), records what its cells
read, refuses what no record reproduces, bounds and checks what a cell shows, and ends at once when the
build is stopped."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from anatomia_engine import notebooks, placeholders

REPO = Path(__file__).resolve().parents[2]
TRANSPORT = ("import json; from ipykernel.connect import get_connection_info; "
             "print(json.loads(get_connection_info())['transport'])")


def _project(tmp_path):
    root = tmp_path / "proj"
    (root / "attn_core").mkdir(parents=True)
    (root / "figures_src").mkdir()
    (root / "docs").mkdir()
    (root / "attn_core" / "__init__.py").write_text("")
    (root / "figures_src" / "__init__.py").write_text("")
    (root / "requirements.lock").write_text("numpy\n")
    return root


def _execute(root, *cells: str):
    """Execute code cells `cells` as the notebook docs/laby/lab.py (its source written in the percent
    format, so a message's line can be checked); the notebook and the kernel's record."""
    source = root / "docs" / "laby" / "lab.py"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("".join(f"# %%\n{cell}\n\n" for cell in cells))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c, id=f"c{i}")
                                         for i, c in enumerate(cells)])
    return nb, notebooks.execute(nb, source, "docs/laby/lab.py", root)


def test_the_kernel_talks_over_unix_sockets_and_records_checks_and_dot_files(tmp_path):
    root = _project(tmp_path)
    (root / "figures_src" / ".data").mkdir()
    (root / "figures_src" / ".data" / "v.json").write_text("1")
    reads = ("from pathlib import Path\n"
             "print(Path('figures_src/.data/v.json').read_text(), Path('flag').exists())")
    nb, record = _execute(root, TRANSPORT, reads,
                          "print('nanosekundy, banan, Nancy')")     # words with "nan" inside are no NaN
    printed = "".join(o.get("text", "") for o in nb.cells[0].outputs)
    assert printed.strip() == "ipc", json.dumps(nb.cells[0].outputs)[:500]
    assert "figures_src/.data/v.json" in record["files"]
    assert "flag" in record["absent"]
    assert "banan" in nb.cells[2].outputs[0]["text"]


@pytest.mark.parametrize(("cell", "says"), [
    ("print('x' * 1_000_000)", "notebook cell 2 shows too much"),
    ("for i in range(3000):\n    print(i, 'y' * 20)", "notebook cell 2 shows too much"),
    ("import numpy as np\nprint(np.array([0.0, 1.0]) / 0.0)", "notebook cell 2 shows NaN"),
    ("from pathlib import Path\nPath('docs/x.txt').write_text('x')", "writes docs/x.txt"),
    ("import time\ntry:\n    time.time()\nexcept Exception:\n    pass", "reads the clock"),
    ("import subprocess\nsubprocess.run(['true'])", "starts another program"),
    ("out = get_ipython().getoutput('ls')", "starts another program"),          # `out = !ls`
    # a plain shell escape: IPython runs it through pexpect on a terminal (a fork), even when caught
    ("x = 2\n!echo hi", "starts another program"),
    ("try:\n    get_ipython().system('echo hi')\nexcept Exception:\n    pass", "starts another program"),
    # a cell magic starting a program on a thread of IPython's
    ("%%bash\necho hi", "starts another program"),
    ("import os\ntry:\n    os.fork()\nexcept Exception:\n    pass", "starts another program"),
    # a timing magic shows the time it read: the page would change with every build
    ("%%time\nx = 2", "reads the clock"),
    ("%timeit -n1 -r1 x = 2", "reads the clock"),
    ("exec(\"import subprocess; subprocess.run(['true'])\")", "starts another program"),
    ("import urllib.request\ntry:\n    urllib.request.urlopen('http://127.0.0.1:9/')\n"
     "except Exception:\n    pass", "reaches the network"),
])
def test_a_cell_breaking_the_modules_rules_stops_the_build_naming_it(tmp_path, cell, says):
    root = _project(tmp_path)
    with pytest.raises(notebooks.NotebookError) as info:
        _execute(root, "x = 1", cell)
    message = str(info.value)
    line = int(message.split(":", 2)[1]) if message.startswith("docs/laby/lab.py:") else 0
    assert 5 <= line < 5 + len(cell.splitlines()), message[:500]     # a line of the second cell
    assert says in message, message[:2000]
    assert not (root / "docs" / "x.txt").exists()


STOPPING = """
import sys, threading, time
from pathlib import Path
sys.path.insert(0, "tests/unit")
from test_notebook_kernel import _execute
from anatomia_engine import notebooks

failed = []
def run():
    try:
        _execute(Path(sys.argv[1]), "import time as t\\nt.sleep(600)")
    except BaseException as exc:
        failed.append(str(exc))
thread = threading.Thread(target=run)
thread.start()
while not notebooks._running:
    time.sleep(0.2)
time.sleep(3)              # the kernel runs the sleeping cell
notebooks.stop()
thread.join(timeout=60)
print("alive" if thread.is_alive() else failed)
sys.stdout.flush()
"""


def test_stop_ends_a_running_kernel_at_once(tmp_path):
    """In a process of its own, as in a build: stop() (Ctrl-C) ends a cell that would sleep 10 minutes."""
    root = _project(tmp_path)
    proc = subprocess.run([sys.executable, "-c", STOPPING, str(root)], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert "stopped" in proc.stdout and "alive" not in proc.stdout, proc.stdout + proc.stderr[-2000:]


def test_a_placeholder_in_a_raw_cell_is_refused_with_its_line(tmp_path):
    source = tmp_path / "lab.py"
    source.write_text("# %%\nx = 1\n\n# %% [raw]\n# <b>{{ x }}</b>\n")
    with pytest.raises(Exception, match=r"lab\.py:5: .*raw cell"):
        placeholders.refuse_in_notebook(source, "lab.py")
