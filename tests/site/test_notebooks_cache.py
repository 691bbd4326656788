"""The notebook cache (anatomia_engine/notebooks/stored.py): an executed notebook is reused while every
input its kernel recorded (files it imported or opened, folders it listed, environment variables
it read), the notebook itself and the lock are unchanged; an edit to a file the kernel never read
does not execute it again. Small projects in tmp_path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from anatomia_engine import deps, notebooks
from helpers import fixture_project, http_get, mkdocs_build, mkdocs_serve, wait_for

LAZY_INIT = """\
import importlib
_SOURCES = {"SCALE": "scale", "OTHER": "other"}


def __getattr__(name):
    value = getattr(importlib.import_module(f"attn_core.{_SOURCES[name]}"), name)
    globals()[name] = value
    return value
"""


@pytest.fixture
def project(tmp_path) -> Path:
    """A three-cell notebook, a lazy attn_core (like the real one) and figures_src."""
    return make_project(tmp_path / "mini")


def make_project(root: Path) -> Path:
    """The fixture project with this file's notebook and attn_core."""
    return fixture_project(root, files={
        "attn_core/__init__.py": LAZY_INIT,
        "attn_core/scale.py": "SCALE = 2\n",
        "attn_core/other.py": "OTHER = 5\n",
        "figures_src/_base.py": "import numpy as np\nX = np.array([[1.0, 2.0]])\n",
        "figures_src/mini.py": "from ._base import X\n",
        "docs/laby/mini.py": ('# %% [markdown]\n# # Mini\n\n'
                             '# %%\nfrom figures_src.mini import X\n\n'
                             '# %%\nfrom attn_core import SCALE\nprint(X * SCALE)\n'),
    })


def build(root: Path, cache: Path) -> notebooks.Built:
    return notebooks.build(root / "docs" / "laby" / "mini.py", "docs/laby/mini.py", cache, root,
                           "../mini.ipynb", "mini.ipynb")


def printed(built: notebooks.Built) -> str:
    page = nbformat.reads(built.page, as_version=4)
    return "".join(o.get("text", "") for c in page.cells for o in c.get("outputs", []))


def deps_of(built: notebooks.Built, root: Path) -> list[Path]:
    return deps.inputs(built.deps, root)


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> tuple[Path, Path, notebooks.Built]:
    """The project with its notebook executed once: (project, its cache, that build). A test that
    edits it works on a copy of both (the entry names paths relative to the project)."""
    folder = tmp_path_factory.mktemp("executed")
    root = make_project(folder / "mini")
    first = build(root, folder / "cache")
    assert first.seconds is not None and "[[2. 4.]]" in printed(first)
    return root, folder / "cache", first


@pytest.fixture
def copied(executed, tmp_path) -> tuple[Path, Path]:
    """A copy of the executed project and of its cache, which the copy reuses."""
    project = shutil.copytree(executed[0], tmp_path / "mini")
    cache = shutil.copytree(executed[1], tmp_path / "cache")
    assert build(project, cache).seconds is None
    return project, cache


def test_the_depfile_names_what_the_kernel_loaded(executed):
    project, _, built = executed
    files = built.deps["files"]
    assert {"attn_core/__init__.py", "attn_core/scale.py", "figures_src/mini.py", "figures_src/_base.py",
            "docs/laby/mini.py", "requirements.lock"} <= set(files)
    assert "attn_core/other.py" not in files
    assert Path(notebooks.__file__).resolve() in deps_of(built, project)


@pytest.mark.parametrize("path, text, effect", [
    ("docs/index.md", "# Start, edited\n", False),                 # another page
    ("figures_src/other.py", "Y = 2\n", False),                    # a module it does not import
    ("attn_core/other.py", "OTHER = 6\n", False),                  # an attn_core file it never loads
    ("attn_core/scale.py", "SCALE = 3\n", True),                   # loaded through attn_core's __getattr__
    ("figures_src/_base.py", "import numpy as np\nX = np.array([[5.0, 2.0]])\n", True),   # relative import
    ("requirements.lock", "numpy==2\n", True),
    ("docs/laby/mini.py", "# %% [markdown]\n# # Mini\n\n# %%\nprint(1)\n", True),
])
def test_executed_again_exactly_when_something_it_loaded_changed(executed, copied, path, text, effect):
    first = executed[2]
    project, cache = copied                                          # cached
    (project / path).write_text(text)
    again = build(project, cache)
    assert (again.seconds is not None) == effect
    assert (again.key != first.key) == effect


def test_a_new_import_in_the_notebook_is_followed(copied):
    project, cache = copied
    source = project / "docs" / "laby" / "mini.py"
    source.write_text(source.read_text() + "\n# %%\nfrom attn_core import OTHER\nprint(OTHER)\n")
    assert build(project, cache).seconds is not None
    (project / "attn_core" / "other.py").write_text("OTHER = 7\n")   # now loaded: a dependency
    again = build(project, cache)
    assert again.seconds is not None and "7" in printed(again)


def test_an_altered_entry_is_not_trusted(copied, caplog):
    project, cache = copied
    (entry,) = cache.glob("*.json")
    head, _, body = entry.read_bytes().partition(b"\n")
    kept = json.loads(body)
    kept["deps"]["files"].pop("attn_core/scale.py")        # edited by hand: the checksum no longer matches
    entry.write_bytes(head + b"\n" + json.dumps(kept).encode())
    (project / "attn_core" / "scale.py").write_text("SCALE = 3\n")
    caplog.clear()
    again = build(project, cache)
    assert again.seconds is not None and "[[3. 6.]]" in printed(again)
    assert any(r.levelname == "WARNING" and str(entry) in r.getMessage() for r in caplog.records)


def test_an_entry_of_another_download_link_is_not_used(project, tmp_path):
    cache = tmp_path / "cache"
    source = project / "docs" / "laby" / "mini.py"
    one = notebooks.build(source, "docs/laby/mini.py", cache, project, "../mini.ipynb", "mini.ipynb")
    two = notebooks.build(source, "docs/laby/mini.py", cache, project, "mini.ipynb", "mini.ipynb")
    assert two.seconds is not None and one.key != two.key
    again = notebooks.build(source, "docs/laby/mini.py", cache, project, "../mini.ipynb", "mini.ipynb")
    assert again.seconds is None and again.key == one.key               # the first link's entry is kept


READS = """
# %%
import os
from pathlib import Path
print("dane:", Path("dane/waga.txt").read_text().strip(), sorted(os.listdir("dane")),
      os.environ.get("LAB_WAGA", "brak"))
"""


@pytest.mark.parametrize("change", ["edit", "add", "env"])
def test_what_a_cell_reads_is_an_input_of_the_cache_key(project, tmp_path, monkeypatch, change):
    """A file a cell opens, a folder it lists and a variable it reads, outside docs/ and the code."""
    monkeypatch.delenv("LAB_WAGA", raising=False)
    (project / "dane").mkdir()
    (project / "dane" / "waga.txt").write_text("0.5\n")
    source = project / "docs" / "laby" / "mini.py"
    source.write_text(source.read_text() + READS)
    cache = tmp_path / "cache"
    first = build(project, cache)
    assert "dane: 0.5 ['waga.txt'] brak" in printed(first)
    assert {project / "dane" / "waga.txt", project / "dane"} <= set(deps_of(first, project))  # watched
    assert build(project, cache).seconds is None
    if change == "edit":
        (project / "dane" / "waga.txt").write_text("0.75\n")
        expected = "dane: 0.75 ['waga.txt'] brak"
    elif change == "add":
        (project / "dane" / "inna.txt").write_text("x\n")
        expected = "dane: 0.5 ['inna.txt', 'waga.txt'] brak"
    else:
        monkeypatch.setenv("LAB_WAGA", "2")
        expected = "dane: 0.5 ['waga.txt'] 2"
    again = build(project, cache)
    assert again.seconds is not None and expected in printed(again)
    assert build(project, cache).seconds is None


def test_serve_executes_the_notebook_again_when_a_file_it_read_changes(tmp_path):
    """`mkdocs serve` watches what the notebook's kernel read, here a data file outside docs/ and the code."""
    project = fixture_project(tmp_path / "proj", lab=True)
    (project / "dane").mkdir()
    data = project / "dane" / "waga.txt"
    data.write_text("0.5\n")
    lab = project / "docs" / "laby" / "lab.py"
    lab.write_text(lab.read_text() + '\n# %%\nfrom pathlib import Path\n\n'
                   'print("waga:", Path("dane/waga.txt").read_text().strip())\n')
    with mkdocs_serve(project) as (server, url, output):
        page = url + "laby/lab/"
        assert wait_for(lambda: "waga: 0.5" in http_get(page), timeout=300), "".join(output)[-3000:]
        draft = tmp_path / "waga.draft"   # saved in one step, as editors save
        draft.write_text("0.75\n")
        draft.replace(data)
        assert wait_for(lambda: "waga: 0.75" in http_get(page), timeout=300), "".join(output)[-3000:]


def test_ctrl_c_stops_a_build_whose_notebook_cell_runs_for_minutes(tmp_path):
    """SIGINT while a cell sleeps for ten minutes: the build ends within a minute (the kernel, in a
    session of its own, does not get the Ctrl-C; the plugin ends it), leaving no kernel behind."""
    import os
    import signal
    import subprocess

    from helpers import core

    project = fixture_project(tmp_path / "project", lab=True)
    started = tmp_path / "started"
    with (project / "docs" / "laby" / "lab.py").open("a", encoding="utf-8") as lab:
        lab.write(f"\n# %%\nimport pathlib, time\n\npathlib.Path({str(started)!r}).write_text('1')\n"
                  "time.sleep(600)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen(core("build", "--strict", "--site-dir", str(tmp_path / "site")),
                            cwd=project, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        assert wait_for(started.exists, timeout=300), "the sleeping cell never started"
        kernels = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "ipykernel"], capture_output=True,
                                 text=True).stdout.split()
        os.killpg(proc.pid, signal.SIGINT)             # Ctrl-C reaches the terminal's process group
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode != 0, output[-2000:]
    assert kernels, "no kernel was found running"

    def gone(pid: str) -> bool:
        status = Path(f"/proc/{pid}/status")
        return not status.exists() or "State:\tZ" in status.read_text()

    assert wait_for(lambda: all(gone(pid) for pid in kernels), timeout=20), "a kernel outlived the build"


# --- the notebook's HTML (mkdocs-jupyter's conversion) -------------------------------------------

CONVERTING = "Converting notebook"   # mkdocs-jupyter's log line when it converts


def site_files(site: Path) -> dict[str, bytes]:
    return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted(site.rglob("*"))
            if path.is_file()}


def test_the_notebook_html_is_kept_while_what_produced_it_holds(tmp_path):
    """A warm build converts nothing and publishes the same site; a damaged entry, a changed value the
    notebook prints and an edited notebook are converted again, as a clean build would convert them."""
    project = fixture_project(tmp_path / "proj", lab=True)
    site = tmp_path / "site"
    page = site / "laby" / "lab" / "index.html"

    def built() -> str:
        result = mkdocs_build(project, site)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stderr

    assert CONVERTING in built()
    first = site_files(site)
    assert "[0.354 0.646]" in page.read_text(encoding="utf-8")

    assert CONVERTING not in built()   # warm: the conversion comes from the store
    assert site_files(site) == first

    (entry,) = (project / ".cache" / "anatomia" / "notebooks").glob("*.html")
    data = bytearray(entry.read_bytes())
    data[-200] ^= 1                    # one flipped bit in the stored HTML
    entry.write_bytes(bytes(data))
    output = built()
    assert CONVERTING in output and str(entry) in output
    assert site_files(site) == first

    (project / "attn_core" / "__init__.py").write_text("def scale():\n    return 2.0\n")
    assert CONVERTING in built()
    assert "[0.709 1.291]" in page.read_text(encoding="utf-8")
    lab = project / "docs" / "laby" / "lab.py"
    lab.write_text(lab.read_text(encoding="utf-8").replace("Wagi z modułu", "Wagi pary z modułu"),
                   encoding="utf-8")
    assert CONVERTING in built()
    warm = site_files(site)
    assert "Wagi pary z modułu" in page.read_text(encoding="utf-8")

    clean = shutil.copytree(project, tmp_path / "clean", ignore=shutil.ignore_patterns(".cache"))
    result = mkdocs_build(clean, tmp_path / "clean-site")
    assert result.returncode == 0, result.stderr[-3000:]
    assert site_files(tmp_path / "clean-site") == warm
