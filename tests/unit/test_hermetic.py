"""Hermetic module runs: whatever a figures_src module reads is part of its result's key, so an
edit of any of it runs the module again, and what cannot be part of a key is refused.

Each test runs the runner on a small project of its own (a temporary folder, one tiny module).
"""

from __future__ import annotations

import os
import py_compile
import textwrap
from pathlib import Path

import pytest

from anatomia_engine import runner
from tests.module_runs import fresh, module_errors

HEADER = "import os\nimport numpy as np\nfrom anatomia_engine.kit import values\n"


def module(root: Path, name: str, body: str) -> Path:
    path = root / "figures_src" / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def compute(root: Path, name: str):
    return runner.compute([name], root=root, keep_worker=True)


def run(root: Path, name: str):
    """(values of `name`, whether it ran) after one compute."""
    found, ran = compute(root, name)
    return found[name].values, ran == [name]


def test_a_file_opened_by_a_relative_path_after_chdir_is_an_input(mini):
    (mini / "data").mkdir()
    (mini / "data" / "n.txt").write_text("7")
    (mini / "n.txt").write_text("100")          # what the same relative path names from the root
    module(mini, "reader", """
        from pathlib import Path

        @values
        def read():
            here = os.getcwd()
            os.chdir(Path(__file__).parents[1] / "data")
            try:
                with open("n.txt") as f:
                    return {"n": int(f.read())}
            finally:
                os.chdir(here)
        """)
    assert run(mini, "reader") == ({"n": 7}, True)
    assert run(mini, "reader") == ({"n": 7}, False)
    (mini / "data" / "n.txt").write_text("8")
    assert run(mini, "reader") == ({"n": 8}, True)
    found, _ = compute(mini, "reader")
    assert (mini / "data" / "n.txt").resolve() in found["reader"].inputs


@pytest.mark.parametrize("listing", [
    "len(glob.glob(str(data / '*.csv')))",
    "len(list(data.glob('*.csv')))",
    "len([n for n in os.listdir(data) if n.endswith('.csv')])",
])
def test_a_file_added_to_a_listed_folder_runs_the_module_again(mini, listing):
    (mini / "data").mkdir()
    (mini / "data" / "a.csv").write_text("x\n")
    module(mini, "lister", f"""
        import glob
        from pathlib import Path

        @values
        def count():
            data = Path(__file__).parents[1] / "data"
            return {{"files": {listing}}}
        """)
    assert run(mini, "lister") == ({"files": 1}, True)
    assert run(mini, "lister") == ({"files": 1}, False)
    (mini / "data" / "b.csv").write_text("y\n")
    assert run(mini, "lister") == ({"files": 2}, True)
    found, _ = compute(mini, "lister")
    assert (mini / "data").resolve() in found["lister"].inputs


ENV_READS = {"get": "os.environ.get('ANATOMIA_TEST_LABEL', 'brak')",
             "getenv": "os.getenv('ANATOMIA_TEST_LABEL', 'brak')",
             "in": "os.environ['ANATOMIA_TEST_LABEL'] if 'ANATOMIA_TEST_LABEL' in os.environ else 'brak'"}


def test_an_environment_variable_the_module_reads_is_an_input(mini, monkeypatch):
    """One module per way of reading it, run together in the kept worker: each run sees the
    environment of its request."""
    names = sorted(f"env_{how}" for how in ENV_READS)
    for how, read in ENV_READS.items():
        module(mini, f"env_{how}", f"""
            @values
            def label():
                return {{"label": {read}}}
            """)

    def labels():
        found, ran = runner.compute(names, root=mini, keep_worker=True)
        return {name: found[name].values["label"] for name in names}, sorted(ran)

    monkeypatch.delenv("ANATOMIA_TEST_LABEL", raising=False)
    assert labels() == (dict.fromkeys(names, "brak"), names)
    assert labels() == (dict.fromkeys(names, "brak"), [])
    monkeypatch.setenv("ANATOMIA_TEST_LABEL", "jeden")
    assert labels() == (dict.fromkeys(names, "jeden"), names)
    monkeypatch.setenv("ANATOMIA_TEST_LABEL", "dwa")
    assert labels() == (dict.fromkeys(names, "dwa"), names)
    monkeypatch.setenv("ANATOMIA_TEST_OTHER", "x")           # a variable they do not read
    assert labels() == (dict.fromkeys(names, "dwa"), [])


@pytest.mark.parametrize("target", ["module", "helper"])
def test_a_source_saved_twice_within_one_second_is_run_from_its_new_bytes(mini, target):
    """The second save has the size and mtime of the first: Python's .pyc check accepts the old
    bytecode; the runner compiles project code from its source."""
    helper = mini / "figures_src" / "_helper.py"
    helper.write_text("X = 1\n")
    path = module(mini, "twice", """
        from ._helper import X
        Y = 1

        @values
        def v():
            return {"x": X, "y": Y}
        """)
    assert run(mini, "twice") == ({"x": 1, "y": 1}, True)
    edited = helper if target == "helper" else path
    for source in (path, helper):
        py_compile.compile(str(source), doraise=True)        # bytecode as any import would write it
    stat = edited.stat()
    text = edited.read_text()
    old, new = ("X = 1", "X = 2") if target == "helper" else ("Y = 1", "Y = 2")
    edited.write_text(text.replace(old, new))
    os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert edited.stat().st_size == stat.st_size and edited.stat().st_mtime_ns == stat.st_mtime_ns
    expected = {"x": 2, "y": 1} if target == "helper" else {"x": 1, "y": 2}
    assert run(mini, "twice") == (expected, True)


GLOBAL_RANDOM = ["np.random.rand(3)", "np.random.seed(0)", "np.random.normal()",
                 "__import__('random').random()", "__import__('random').seed(1)", "np.random.default_rng()"]


@pytest.fixture(scope="module")
def dice(project) -> dict[str, tuple[str, bool]]:
    """One module per call of GLOBAL_RANDOM, run in one compute: each message, whether anything
    was kept."""
    root = fresh(project)
    for i, call in enumerate(GLOBAL_RANDOM):
        module(root, f"dice_{i}", f"""
            @values
            def roll():
                try:
                    {call}
                except Exception:
                    pass             # swallowing the refusal does not help
                return {{"n": 1}}
            """)
    return module_errors(root, [f"dice_{i}" for i in range(len(GLOBAL_RANDOM))])


@pytest.mark.parametrize("case", range(len(GLOBAL_RANDOM)))
def test_a_global_random_generator_stops_the_run_naming_a_seeded_one(dice, case):
    error, stored = dice[f"dice_{case}"]
    # default_rng() without a seed is an unseeded generator, the others draw from the shared one
    expected = "global_random"
    if GLOBAL_RANDOM[case] == "np.random.default_rng()":
        expected = "unseeded_rng"
    assert error.id == expected, str(error)
    assert f"figures_src/dice_{case}.py:" in error.at        # the line that called it
    assert not stored


def test_a_seeded_generator_is_allowed(mini):
    module(mini, "dice", """
        import random

        @values
        def roll():
            return {"a": float(np.random.default_rng(5).random()), "b": random.Random(5).random()}
        """)
    first, _ = run(mini, "dice")
    assert 0 <= first["a"] < 1 and 0 <= first["b"] < 1


DOCS_WRITES = [
    "(root / 'docs' / 'dane.csv').write_text('x')",
    "open(root / 'docs' / 'dane.csv', 'a').close()",
    "os.replace(root / 'scratch.txt', root / 'docs' / 'dane.csv')",
    "os.replace(root / 'docs' / 'dane.csv', root / 'scratch.txt')",
    "(root / 'docs' / 'dane.csv').unlink()",
]


@pytest.fixture(scope="module")
def writers(project) -> tuple[dict[str, tuple[str, bool]], dict[str, str]]:
    """One module per case of DOCS_WRITES (each with files of its own), run in one compute: each
    message and whether anything was kept; the text of each docs file after the run."""
    root = fresh(project)
    for i, write in enumerate(DOCS_WRITES):
        (root / f"scratch_{i}.txt").write_text("x")
        (root / "docs" / f"dane_{i}.csv").write_text("stary")
        module(root, f"writer_{i}", f"""
            from pathlib import Path

            @values
            def v():
                root = Path(__file__).parents[1]
                {write.replace("dane.csv", f"dane_{i}.csv").replace("scratch.txt", f"scratch_{i}.txt")}
                return {{"n": 1}}
            """)
    found = module_errors(root, [f"writer_{i}" for i in range(len(DOCS_WRITES))])
    return found, {p.name: p.read_text() for p in (root / "docs").iterdir()}


@pytest.mark.parametrize("case", range(len(DOCS_WRITES)))
def test_a_module_changing_docs_is_refused_naming_it(writers, case):
    found, docs = writers
    error, stored = found[f"writer_{case}"]
    assert error.id == "writes_docs" and error.where == f"figures_src/writer_{case}.py", str(error)
    assert error.fields == {"name": f"docs/dane_{case}.csv"} and not stored
    assert docs[f"dane_{case}.csv"] == "stary"


# --- what a run depends on without opening it for reading -------------------------------------

def _file_to_folder(root: Path) -> None:
    """Replace the file data/a by a folder of the same name (the folder's listing stays the same)."""
    (root / "data" / "a").unlink()
    (root / "data" / "a").mkdir()


# (files the test writes before the first run, the module's function body, how the test changes
# the project afterwards); the value returned must change with the edit
CHECKS = {
    "dot_folder": ({"figures_src/.data/v.json": "1"},
                   "return {'v': int((ROOT / 'figures_src' / '.data' / 'v.json').read_text())}",
                   lambda root: (root / "figures_src" / ".data" / "v.json").write_text("2")),
    "dot_file": ({".env": "LABEL=a"},
                 "return {'v': (ROOT / '.env').read_text()}",
                 lambda root: (root / ".env").write_text("LABEL=b")),
    "size": ({"data/big.bin": "x" * 10},
             "return {'v': os.path.getsize(ROOT / 'data' / 'big.bin')}",
             lambda root: (root / "data" / "big.bin").write_text("x" * 20)),
    "stat": ({"data/big.bin": "x" * 10},
             "return {'v': (ROOT / 'data' / 'big.bin').stat().st_size}",
             lambda root: (root / "data" / "big.bin").write_text("x" * 30)),
    "appears": ({"data/keep": ""},
                "return {'v': (ROOT / 'data' / 'flag').exists()}",
                lambda root: (root / "data" / "flag").write_text("")),
    "vanishes": ({"data/flag": ""},
                 "return {'v': os.path.isfile(ROOT / 'data' / 'flag')}",
                 lambda root: (root / "data" / "flag").unlink()),
    "folder_vanishes": ({"data/sub/x": ""},
                        "return {'v': (ROOT / 'data' / 'sub').is_dir()}",
                        lambda root: __import__("shutil").rmtree(root / "data" / "sub")),
    "symlink": ({"data/a.json": "1", "data/b.json": "2"},
                "return {'v': int((ROOT / 'data' / 'now.json').read_text())}",
                lambda root: ((root / "data" / "now.json").unlink(),
                              (root / "data" / "now.json").symlink_to("b.json"))),
    "updated": ({"data/n.txt": "5"},
                "with open(ROOT / 'data' / 'n.txt', 'r+') as f:\n        return {'v': int(f.read())}",
                lambda root: (root / "data" / "n.txt").write_text("6")),
    "sqlite": ({},
               "import sqlite3\n    with sqlite3.connect(ROOT / 'data' / 'db.sqlite') as db:\n"
               "        return {'v': db.execute('select n from t').fetchone()[0]}",
               lambda root: _sqlite(root / "data" / "db.sqlite", 2)),
    # a folder's entries answer from its listing, without os.stat: their checks are inputs too
    "scandir_size": ({"data/a.bin": "x" * 10},
                     "return {'v': sum(e.stat().st_size for e in os.scandir(ROOT / 'data'))}",
                     lambda root: (root / "data" / "a.bin").write_text("x" * 20)),
    "scandir_kind": ({"data/a": ""},
                     "return {'v': [e.name for e in os.scandir(ROOT / 'data') if e.is_file()]}",
                     _file_to_folder),
    "walk_kind": ({"data/a": ""},
                  "return {'v': sorted(n for _, _, names in os.walk(ROOT / 'data') for n in names)}",
                  _file_to_folder),
    # listed through a folder's file descriptor: the folder it was opened as
    "fwalk": ({"data/a": ""},
              "return {'v': sorted(n for _, _, names, _ in os.fwalk(ROOT / 'data') for n in names)}",
              lambda root: (root / "data" / "b").write_text("")),
    # a file the module tried to open and did not find: it falls back to a default
    "open_missing": ({"data/keep": ""},
                     "try:\n        return {'v': (ROOT / 'data' / 'override.txt').read_text()}\n"
                     "    except FileNotFoundError:\n        return {'v': 'none'}",
                     lambda root: (root / "data" / "override.txt").write_text("set")),
    "glob_sizes": ({"data/a.csv": "1,2"},
                   "return {'v': [p.stat().st_size for p in sorted((ROOT / 'data').glob('*.csv'))]}",
                   lambda root: (root / "data" / "a.csv").write_text("1,2,3")),
}


def _sqlite(path: Path, n: int) -> None:
    """An SQLite database at `path` whose table t holds `n`, changed in place (same file)."""
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("create table if not exists t (n integer)")
        db.execute("delete from t")
        db.execute("insert into t values (?)", (n,))
    db.close()


@pytest.mark.parametrize("case", sorted(CHECKS))
def test_what_a_module_checks_or_reads_outside_plain_reads_is_an_input(mini, case):
    files, body, edit = CHECKS[case]
    for name, text in files.items():
        (mini / name).parent.mkdir(parents=True, exist_ok=True)
        (mini / name).write_text(text)
    (mini / "data").mkdir(exist_ok=True)
    if case == "symlink":
        (mini / "data" / "now.json").symlink_to("a.json")
    if case == "sqlite":
        _sqlite(mini / "data" / "db.sqlite", 1)
    source = "from pathlib import Path\nROOT = Path(__file__).resolve().parents[1]\n\n@values\ndef v():\n"
    module(mini, case, source + textwrap.indent(body.replace("\n    ", "\n"), "    ") + "\n")
    first, ran = run(mini, case)
    assert ran
    assert run(mini, case) == (first, False)
    edit(mini)
    second, ran = run(mini, case)
    assert ran and second != first, (first, second)


def test_a_variable_read_through_environb_is_an_input(mini, monkeypatch):
    module(mini, "bytes_env", """
        @values
        def v():
            return {"v": os.environb.get(b"ANATOMIA_TEST_LABEL", b"brak").decode()}
        """)
    monkeypatch.setenv("ANATOMIA_TEST_LABEL", "jeden")
    assert run(mini, "bytes_env") == ({"v": "jeden"}, True)
    assert run(mini, "bytes_env") == ({"v": "jeden"}, False)
    monkeypatch.setenv("ANATOMIA_TEST_LABEL", "dwa")
    assert run(mini, "bytes_env") == ({"v": "dwa"}, True)


# --- what no record reproduces: refused --------------------------------------------------------

# case -> (the call, the catalogue id of its refusal, the name the message gives the call: None for
# a program, whose field is the program)
REFUSED = {
    "RandomState": ("np.random.RandomState().rand()", "unseeded_rng", "np.random.RandomState"),
    "Random": ("__import__('random').Random().random()", "unseeded_rng", "random.Random"),
    "PCG64": ("np.random.Generator(np.random.PCG64()).random()", "unseeded_rng", "np.random.PCG64"),
    "SystemRandom": ("__import__('random').SystemRandom().random()", "unseeded_rng", "random.SystemRandom"),
    "time": ("__import__('time').time()", "clock", "time.time"),
    "perf_counter": ("__import__('time').perf_counter()", "clock", "time.perf_counter"),
    "datetime": ("__import__('datetime').datetime.now()", "clock", "datetime.datetime.now"),
    "date": ("__import__('datetime').date.today()", "clock", "datetime.date.today"),
    "localtime": ("__import__('time').strftime('%Y')", "clock", "time.strftime"),
    "mtime": ("os.path.getmtime(__file__)", "clock", "os.path.getmtime"),
    # the same time read from a stat result, by attribute, through Path or as a tuple
    "stat_mtime": ("os.stat(__file__).st_mtime", "clock", "os.stat(…).st_mtime"),
    "path_mtime": ("__import__('pathlib').Path(__file__).stat().st_mtime_ns", "clock",
                   "os.stat(…).st_mtime_ns"),
    "stat_tuple": ("os.lstat(__file__)[8]", "clock", "os.lstat(…)[8]"),
    "scandir_mtime": ("[e.stat().st_mtime for e in os.scandir(os.path.dirname(__file__))]", "clock",
                      "os.DirEntry.stat(…).st_mtime"),
    "subprocess": ("__import__('subprocess').run(['cat', '/etc/hostname'])", "program", None),
    "system": ("os.system('true')", "program", None),
    # a program started through a copy of the process, a pool's thread, multiprocessing or ctypes
    "fork": ("os.fork()", "program", None),
    "pool": ("__import__('concurrent.futures').futures.ThreadPoolExecutor().submit("
             "__import__('subprocess').run, ['true']).result()", "program", None),
    "spawn": ("__import__('multiprocessing').get_context('spawn').Process(target=print).start()",
              "program", None),
    "ctypes": ("__import__('ctypes').CDLL(None).system(b'true')", "program", None),
    "ctypes_clock": ("__import__('ctypes').CDLL(None).time(None)", "clock", "ctypes: time"),
    # through code made from a string, or a standard module measuring for its caller
    "exec_clock": ("exec(\"__import__('time').time()\")", "clock", "time.time"),
    "timeit": ("__import__('timeit').timeit('1', number=1)", "clock", "time.perf_counter"),
    # the system's entropy through functions bound before the run started
    "uuid4": ("__import__('uuid').uuid4()", "unseeded_rng", "uuid.uuid4"),
    "secrets": ("__import__('secrets').token_hex(4)", "unseeded_rng", "secrets.token_hex"),
}


@pytest.fixture(scope="module")
def unrepeatable(project) -> dict[str, tuple[str, bool]]:
    """One module per case of REFUSED (it swallows the exception), run in one compute."""
    root = fresh(project)
    for case, (call, _, _) in REFUSED.items():
        module(root, f"once_{case}", f"""
            @values
            def v():
                try:
                    {call}
                except Exception:
                    pass             # swallowing the refusal does not help
                return {{"n": 1}}
            """)
    return module_errors(root, [f"once_{case}" for case in REFUSED])


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_an_unseeded_generator_or_a_clock_read_is_refused_with_the_fix(unrepeatable, case):
    error, stored = unrepeatable[f"once_{case}"]
    _, id, name = REFUSED[case]
    assert error.id == id, str(error)
    if name is not None:
        assert error.fields["name"] == name
    # the line of the module that made the call, even through a library, a thread or a string
    assert f"figures_src/once_{case}.py:" in error.at
    assert not stored


def test_seeded_instances_and_the_libraries_own_clock_are_allowed(mini):
    module(mini, "seeded", """
        import random
        import matplotlib.pyplot as plt

        @values
        def v():
            fig = plt.figure()            # matplotlib reads the clock and stats its files itself
            fig.savefig(os.devnull, format="png")
            plt.close(fig)
            return {"a": float(np.random.RandomState(1).rand()), "b": random.Random(2).random(),
                    "c": float(np.random.Generator(np.random.PCG64(3)).random())}
        """)
    first, _ = run(mini, "seeded")
    assert set(first) == {"a", "b", "c"}


def test_a_module_reaching_a_server_is_refused_naming_it(mini):
    import http.server
    import threading

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"42")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        module(mini, "fetcher", f"""
            import urllib.request

            @values
            def v():
                try:
                    with urllib.request.urlopen("http://127.0.0.1:{server.server_address[1]}/") as r:
                        return {{"v": int(r.read())}}
                except Exception:
                    return {{"v": 0}}      # a fallback does not hide the refusal
            """)
        error, stored = module_errors(mini, ["fetcher"])["fetcher"]
    finally:
        server.shutdown()
        server.server_close()
    assert error.id == "network" and error.fields["target"].startswith("127.0.0.1:"), str(error)
    assert "figures_src/fetcher.py:" in error.at
    assert not stored
