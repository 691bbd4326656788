"""The runner (anatomia_engine/runner.py and the modules it uses, codec.py): every way a
figures_src module can fail stops with its name, nothing is kept for a failed run, and a kept
result is used only when its store entry is whole and what its run read is unchanged.

Each test runs small modules in a project of its own; the real project's runs are in the site
tier (tests/site/test_runner.py). The process failures (hangs, signals, exits) are in
test_runner_exits.py.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from anatomia_engine import codec, runner, store
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table
from helpers import message_pattern, worker_processes
from tests.module_runs import (
    LAZY_INIT,
    compute,
    entry_path,
    fresh,
    kept,
    module,
    module_errors,
    ran,
)

# --- typed results, one codec -------------------------------------------------------------------

def test_results_cross_the_boundary_typed(mini):
    module(mini, "demo", """
        @values
        def numbers():
            return {"w": Value(np.array([[0.25, 0.75]]), what="waga {i} {j}", axes=(["a"], ["b", "c"])),
                    "n": 3, "q": Value(2.0, cite="Dao (2023)"), "t": Table(["x", "p"], [["a", 0.5]])}
        """)
    results, ran = compute(mini, ["demo"])
    assert ran == ["demo"]
    for result in (results["demo"], kept(mini, "demo")):   # as run, and decoded from the store
        assert type(result.values["n"]) is int and type(result.values["q"]) is float
        assert isinstance(result.values["t"], Table) and result.values["t"].rows == [["a", 0.5]]
        np.testing.assert_array_equal(result.values["w"], np.array([[0.25, 0.75]]))
        assert result.meta["w"] == {"function": "numbers", "what": "waga {i} {j}", "cite": None,
                                    "axes": [["a"], ["b", "c"]], "at": None, "limit": False}
        assert result.meta["q"]["cite"] == "Dao (2023)"


# --- NaN and infinities -----------------------------------------------------------------------

# (the value returned as 'broken', the catalogue id, the word for what is not finite, where inside it)
NOT_FINITE = [
    ("float('nan')", "not_finite", "NaN", ""),
    ("np.array([1.0, np.inf])", "not_finite", "+inf", ""),
    ("np.array([[0.0, -np.inf]])", "not_finite", "-inf", ""),
    ("Table(['a', 'b'], [['x', float('nan')]])", "not_finite", "NaN", " (table row 0, column 'b')"),
    ("{'inner': [1.0, float('-inf')]}", "not_finite", "-inf", "['inner'][1]"),
    ("Value(float('-inf'), masked=True)", "masked_not_array", None, ""),
]


@pytest.fixture(scope="module")
def not_finite(project) -> dict[str, tuple[EngineError, bool]]:
    """One run of a module per case of NOT_FINITE, all in one compute: each error, and whether
    anything was kept."""
    root = fresh(project)
    for i, (value, _, _, _) in enumerate(NOT_FINITE):
        module(root, f"bad_{i}", f"""
            @values
            def produce():
                return {{"fine": 1.0, "broken": {value}}}
            """)
    return module_errors(root, [f"bad_{i}" for i in range(len(NOT_FINITE))])


@pytest.mark.parametrize("case", range(len(NOT_FINITE)))
def test_nan_or_inf_is_refused_naming_module_function_and_value(not_finite, case):
    error, stored = not_finite[f"bad_{case}"]
    _, id, word, inside = NOT_FINITE[case]
    assert error.id == id, str(error)
    assert error.where == f"figures_src/bad_{case}.py: produce() returned 'broken'{inside}"
    if word is not None:
        assert error.fields["word"] == word
    assert not stored


def test_minus_inf_is_allowed_only_in_arrays_marked_masked(mini):
    module(mini, "masked", """
        @values
        def scores():
            return {"masked": Value(np.array([[0.5, -np.inf], [0.1, 0.2]]), masked=True)}
        """)
    results, _ = compute(mini, ["masked"])
    value = results["masked"].values["masked"]
    assert value[0, 1] == -math.inf and value[1, 1] == 0.2
    module(mini, "masked", """
        @values
        def scores():
            return {"masked": Value(np.array([[np.nan, -np.inf]]), masked=True)}
        """)
    error, stored = module_errors(mini, ["masked"])["masked"]
    assert error.id == "not_finite", str(error)
    assert error.where == "figures_src/masked.py: scores() returned 'masked'"
    # NaN is refused even in a masked array, and its place is named
    assert error.fields["word"] == "NaN" and "[0, 0]" in error.fields["at"]
    assert not stored


def test_nan_in_a_figure_table_is_refused(mini):
    module(mini, "fig", """
        @figure
        def chart(style):
            import matplotlib.pyplot as plt
            fig = plt.figure()
            return Plot(fig=fig, alt="Pusty", caption="Pusty", table=Table(["x", "y"], [["a", float("nan")]]))
        """)
    error, stored = module_errors(mini, ["fig"])["fig"]
    assert error.id == "not_finite", str(error)
    assert error.where.startswith(codec.table_where("figures_src.fig", "chart")), error.where
    assert error.fields["word"] == "NaN" and not stored


# --- never stale: the depfile -------------------------------------------------------------------


@pytest.mark.parametrize("statement", ["from ._shared import FACTOR", "from . import _shared",
                                       "from ._pkg.deep import FACTOR", "import figures_src._shared"])
def test_a_module_reruns_when_a_file_it_imports_changes(mini, statement):
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 2\n")
    (mini / "figures_src" / "_pkg").mkdir()
    (mini / "figures_src" / "_pkg" / "__init__.py").write_text("")
    (mini / "figures_src" / "_pkg" / "deep.py").write_text("FACTOR = 2\n")
    module(mini, "user", f"{statement}\n")
    assert ran(mini, "user") == ["user"]
    assert ran(mini, "user") == []
    target = "_pkg/deep.py" if "deep" in statement else "_shared.py"
    other = "_shared.py" if "deep" in statement else "_pkg/deep.py"
    (mini / "figures_src" / other).write_text("FACTOR = 4\n")          # not imported: no effect
    assert ran(mini, "user") == []
    (mini / "figures_src" / target).write_text("FACTOR = 3\n")
    assert ran(mini, "user") == ["user"]


@pytest.fixture
def lazy(mini) -> Path:
    """mini with an attn_core that imports its submodules on first use, as the real one does."""
    (mini / "attn_core" / "__init__.py").write_text(LAZY_INIT)
    (mini / "attn_core" / "a.py").write_text("A = 1\n")
    (mini / "attn_core" / "b.py").write_text("B = 2\n")
    module(mini, "uses_a", """
        from attn_core import A

        @values
        def a():
            return {"a": A}
        """)
    return mini


def test_real_attn_core_imports_on_first_use_and_keeps_its_public_names():
    code = textwrap.dedent("""
        import json, sys
        import attn_core
        before = sorted(n for n in sys.modules if n.startswith("attn_core."))
        from attn_core import rope
        after = sorted(n for n in sys.modules if n.startswith("attn_core."))
        # every public name is there, and a function or class is its defining submodule's own
        public = [getattr(attn_core, n) for n in attn_core.__all__]
        same = all(getattr(sys.modules[value.__module__], n) is value
                   for n, value in zip(attn_core.__all__, public) if hasattr(value, "__module__"))
        names = set(attn_core.__all__) <= set(dir(attn_core)) and "softmax" in attn_core.__all__
        print(json.dumps([before, after, same, names, rope.__module__]))
        """)
    proc = subprocess.run([sys.executable, "-c", code], cwd=runner.ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    before, after, same, names, module_of_rope = json.loads(proc.stdout)
    assert "attn_core.transformer" not in before and "attn_core.position" not in before
    assert "attn_core.position" in after and "attn_core.transformer" not in after
    assert same and names and module_of_rope == "attn_core.position"


def test_an_attn_core_file_a_module_never_loads_does_not_rerun_it(lazy):
    assert ran(lazy, "uses_a") == ["uses_a"]
    (lazy / "attn_core" / "b.py").write_text("B = 20\n")
    (lazy / "attn_core" / "c.py").write_text("C = 3\n")        # a new file nobody imports
    assert ran(lazy, "uses_a") == []
    (lazy / "attn_core" / "a.py").write_text("A = 10\n")       # reached through __getattr__ only
    results, names = compute(lazy, ["uses_a"])
    assert names == ["uses_a"] and results["uses_a"].values["a"] == 10


def test_a_new_import_is_followed(lazy):
    assert ran(lazy, "uses_a") == ["uses_a"]
    (lazy / "attn_core" / "c.py").write_text("C = 3\n")
    (lazy / "attn_core" / "a.py").write_text("from attn_core.c import C\nA = C\n")
    results, names = compute(lazy, ["uses_a"])
    assert names == ["uses_a"] and results["uses_a"].values["a"] == 3
    (lazy / "attn_core" / "c.py").write_text("C = 4\n")        # now a dependency
    results, names = compute(lazy, ["uses_a"])
    assert names == ["uses_a"] and results["uses_a"].values["a"] == 4


def test_a_file_that_appears_where_an_import_looked_reruns_the_module(mini):
    module(mini, "user", """
        try:
            from ._fast import FACTOR
        except ImportError:
            FACTOR = 1

        @values
        def factor():
            return {"factor": FACTOR}
        """)
    assert compute(mini, ["user"])[0]["user"].values["factor"] == 1
    assert ran(mini, "user") == []
    (mini / "figures_src" / "_fast.py").write_text("FACTOR = 2\n")
    results, names = compute(mini, ["user"])
    assert names == ["user"] and results["user"].values["factor"] == 2


def test_a_data_file_the_module_reads_is_a_dependency(mini):
    (mini / "figures_src" / "facts.json").write_text('{"n": 7}')
    module(mini, "reader", """
        import json
        from pathlib import Path

        @values
        def facts():
            return json.loads((Path(__file__).parent / "facts.json").read_text())
        """)
    assert compute(mini, ["reader"])[0]["reader"].values["n"] == 7
    assert ran(mini, "reader") == []
    (mini / "figures_src" / "facts.json").write_text('{"n": 8}')
    assert compute(mini, ["reader"])[0]["reader"].values["n"] == 8


def test_an_unchanged_entry_is_decoded_once_per_process_and_its_record_checked_every_time(mini, monkeypatch):
    """Under serve one process makes build after build: a kept result it read before is not decoded
    again, but its record of inputs is still checked on every lookup."""
    (mini / "figures_src" / "facts.json").write_text('{"n": 7}')
    module(mini, "reader", """
        import json
        from pathlib import Path

        @values
        def facts():
            return json.loads((Path(__file__).parent / "facts.json").read_text())
        """)
    compute(mini, ["reader"])
    decoded = []
    decode = codec.decode

    def counting_decode(doc):
        decoded.append(doc["module"])
        return decode(doc)

    monkeypatch.setattr(codec, "decode", counting_decode)
    assert compute(mini, ["reader"])[0]["reader"].values["n"] == 7
    assert compute(mini, ["reader"])[0]["reader"].values["n"] == 7
    assert decoded == []
    (mini / "figures_src" / "facts.json").write_text('{"n": 8}')
    results, names = compute(mini, ["reader"])
    assert names == ["reader"] and results["reader"].values["n"] == 8


def test_inputs_cover_attn_core_lock_engine_and_python(mini, monkeypatch):
    from anatomia_engine import kit, worker

    module(mini, "demo", "import attn_core\nX = attn_core.SCALE\n")
    found, _ = compute(mini, ["demo"])
    inputs = set(found["demo"].inputs)
    engine = [Path(m.__file__) for m in (worker, codec, kit)]
    own = [mini / "attn_core" / "__init__.py", mini / "requirements.lock", mini / "figures_src" / "demo.py"]
    for path in (*own, *engine):
        assert path.resolve() in inputs, path
    assert ran(mini, "demo") == []
    for path, text in [("attn_core/__init__.py", "SCALE = 3\n"), ("requirements.lock", "numpy==2\n")]:
        (mini / path).write_text(text)
        assert ran(mini, "demo") == ["demo"], path
    monkeypatch.setattr(sys, "version", "2.7.18")
    assert ran(mini, "demo") == ["demo"]


def test_an_altered_entry_is_not_trusted_and_a_stale_one_is_a_miss(mini, caplog):
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 2\n")
    module(mini, "user", """
        from ._shared import FACTOR

        @values
        def factor():
            return {"factor": FACTOR}
        """)
    compute(mini, ["user"])
    path = entry_path(mini, "user")
    # altered: the helper dropped from the record (as if it were no input), checksum not updated
    head, _, body = path.read_bytes().partition(b"\n")
    assert b"figures_src/_shared.py" in body
    path.write_bytes(head + b"\n" + body.replace(b"figures_src/_shared.py", b"figures_src/_elsewhere.py"))
    caplog.clear()
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 3\n")
    found, names = compute(mini, ["user"])
    assert names == ["user"] and found["user"].values["factor"] == 3
    damaged = message_pattern("store_damaged", where="figures_src/user.py: ", path=path)
    assert damaged.search(caplog.text), caplog.text
    # stale: a whole entry recording an older helper
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 4\n")
    assert kept(mini, "user") is None
    found, names = compute(mini, ["user"])
    assert names == ["user"] and found["user"].values["factor"] == 4


def test_a_file_edited_while_the_module_runs_is_not_trusted_next_time(mini):
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 2\n")
    module(mini, "user", """
        import time
        from pathlib import Path
        from ._shared import FACTOR

        @values
        def factor():
            helper = Path(__file__).with_name("_shared.py")
            time.sleep(0.05)
            helper.write_text("FACTOR = 5\\n")     # an edit saved while the module runs
            return {"factor": FACTOR}
        """)
    found, names = compute(mini, ["user"])
    assert names == ["user"] and found["user"].values["factor"] == 2     # what it imported
    found, names = compute(mini, ["user"])
    assert names == ["user"]          # the result of the run that saw the edit is not reused


def test_a_kept_result_comes_back_whole_in_a_new_process(mini):
    module(mini, "fig", """
        @values
        def numbers():
            return {"n": 3}

        @figure
        def chart(style):
            import matplotlib.pyplot as plt
            fig = plt.figure()
            return Plot(fig=fig, alt="Pusty", caption="Pusty", table=Table(["x", "y"], [["a", 1.0]]))
        """)
    compute(mini, ["fig"])
    code = textwrap.dedent(f"""
        import json
        from pathlib import Path
        from anatomia_engine import runner
        found, ran = runner.compute(["fig"], root=Path({str(mini)!r}))
        print(json.dumps([ran, sorted(found["fig"].contents), found["fig"].values]))
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    names, files, values = json.loads(proc.stdout)
    assert names == [] and files == ["chart-dark.svg", "chart-light.svg", "chart.csv"] and values == {"n": 3}


def test_a_whole_entry_that_cannot_be_decoded_is_reported_with_its_path_and_run_again(mini, caplog):
    module(mini, "num", """
        @values
        def numbers():
            return {"n": 3}
        """)
    compute(mini, ["num"])
    kept_store = store.Store(mini / ".cache" / "anatomia" / "computed", ".json")
    name = runner.entry_name("num", mini.resolve())
    body = json.loads(kept_store.get(name))
    body["result"] = '{"format": "something else"}'
    kept_store.put(name, json.dumps(body).encode())     # checksum matches: only decoding can tell
    caplog.clear()
    found, names = compute(mini, ["num"])
    assert names == ["num"] and found["num"].values == {"n": 3}
    path = entry_path(mini, "num")
    unreadable = message_pattern("result_unreadable", where="figures_src/num.py", path=path)
    assert unreadable.search(caplog.text), caplog.text


# --- the command line ---------------------------------------------------------------------------

def test_command_line_runs_one_module_and_prints_its_values(mini):
    module(mini, "demo", """
        @values
        def numbers():
            return {"demo_n": 3}

        @figure
        def chart(style):
            import matplotlib.pyplot as plt
            return Plot(fig=plt.figure(), alt="Pusty", caption="Pusty", table=Table(["x"], [["a"]]))
        """)
    # the figures' new folder is made in TMPDIR: the test's own
    temporary = mini / "tmp"
    temporary.mkdir()
    proc = subprocess.run([sys.executable, "-m", "anatomia_engine.runner", "figures_src.demo"],
                          cwd=mini, capture_output=True, text=True, timeout=300,
                          env=os.environ | {"TMPDIR": str(temporary)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "demo_n = 3" in proc.stdout
    assert "figures: chart ->" in proc.stdout


def test_a_worker_that_cannot_start_is_reported_with_its_log(mini):
    shutil.copytree(runner.ROOT / "anatomia_engine", mini / "anatomia_engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    kit = mini / "anatomia_engine" / "kit.py"
    kit.write_text(kit.read_text() + "\ndef broken(:\n")
    module(mini, "any", "X = 1\n")
    with pytest.raises(EngineError) as info:
        runner.compute(["any"], root=mini)
    assert info.value.id == "worker_no_start" and info.value.fields == {"status": 1}
    # the worker's own log follows: what failed, and where
    assert "kit.py" in info.value.detail and "SyntaxError" in info.value.detail


# --- the worker kept between builds (mkdocs serve) ------------------------------------------------


def test_a_kept_worker_is_restarted_only_when_a_variable_it_read_while_starting_changes(mini, monkeypatch):
    """Each run gets the environment of its request; the worker itself read some variables while
    it imported matplotlib (MATPLOTLIBRC among them): a change of one of those starts a new one."""
    probe = module(mini, "probe", "import os\n\n@values\ndef worker():\n    return {'pid': os.getppid()}\n")

    def worker_pid(edit: str) -> int:
        probe.write_text(probe.read_text() + f"# {edit}\n")      # so that the module runs again
        found, names = compute(mini, ["probe"])
        assert names == ["probe"]
        return found["probe"].values["pid"]

    first = worker_pid("first")
    monkeypatch.setenv("ANATOMIA_TEST_UNREAD", "1")
    assert worker_pid("unread variable") == first
    monkeypatch.setenv("MATPLOTLIBRC", str(mini / "no-such-matplotlibrc"))
    assert worker_pid("variable the worker read") != first


def _worker_processes() -> set[int]:
    """The workers this test process started."""
    return worker_processes(os.getpid())


def _started_worker() -> set[int]:
    """The worker prepare_worker started in the background, once its process exists."""
    deadline = time.monotonic() + 60
    while not (pids := _worker_processes()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return pids


def test_a_worker_prepared_while_the_author_reads_runs_the_next_save(mini, monkeypatch):
    """Under serve, a build that ran no module leaves no worker: one is started in the background
    then, and the next save's runs use it instead of waiting for another's start-up."""
    runner.stop_worker()
    probe = module(mini, "probe", "import os\n\n@values\ndef worker():\n    return {'pid': os.getppid()}\n")
    runner.prepare_worker(mini)
    started = _started_worker()
    assert len(started) == 1
    # one being started is not started again, nor one kept
    runner.prepare_worker(mini)
    found, names = compute(mini, ["probe"])
    assert names == ["probe"] and {found["probe"].values["pid"]} == started
    runner.prepare_worker(mini)
    assert _worker_processes() == started
    # one prepared that no longer fits (a variable it read while starting changed) is ended and
    # another one runs the save
    runner.stop_worker()
    runner.prepare_worker(mini)
    stale = _started_worker()
    monkeypatch.setenv("MATPLOTLIBRC", str(mini / "no-such-matplotlibrc"))
    probe.write_text(probe.read_text() + "# again\n")
    found, names = compute(mini, ["probe"])
    assert names == ["probe"] and found["probe"].values["pid"] not in stale
    assert not stale & _worker_processes()


def test_a_worker_still_starting_ends_with_the_build(mini):
    runner.stop_worker()
    runner.prepare_worker(mini)
    started = _started_worker()
    runner.stop_worker()
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# --- runs started while the build goes on (runner.start) -------------------------------------------

def _gated(mini: Path, name: str) -> tuple[Path, Path]:
    """Module `name`, which says it started (a file) and then waits for a gate (another file)."""
    started, gate = mini / f"{name}.started", mini / f"{name}.gate"
    module(mini, name, f"""
        import time
        from pathlib import Path

        @values
        def gated():
            Path({str(started)!r}).write_text("")
            while not Path({str(gate)!r}).exists():
                time.sleep(0.01)
            return {{{name!r}: 1}}
        """)
    return started, gate


def _appears(path: Path) -> bool:
    deadline = time.monotonic() + 120
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    return path.exists()


def test_started_runs_go_on_while_the_caller_does_and_finish_with_their_results(mini):
    started, gate = _gated(mini, "gated")
    runs = runner.start(["gated"], root=mini, keep_worker=True)
    # start returned while the run waits at its gate
    assert _appears(started) and not gate.exists()
    gate.write_text("")
    found, ran = runs.finish()
    assert ran == ["gated"] and found["gated"].values["gated"] == 1
    assert kept(mini, "gated") is not None


def test_runs_a_build_never_read_are_ended_and_not_read_as_the_next_ones(mini):
    started, _gate = _gated(mini, "never")
    abandoned = runner.start(["never"], root=mini, keep_worker=True)
    assert _appears(started)
    workers = _worker_processes()
    # the next build starts its own runs without reading the first ones: those end, with the
    # worker that ran them, and the new runs' results are their own
    module(mini, "next", "@values\ndef numbers():\n    return {'next_value': 7}\n")
    found, ran = runner.start(["next"], root=mini, keep_worker=True).finish()
    assert ran == ["next"] and found["next"].values == {"next_value": 7}
    assert not workers & _worker_processes()
    assert kept(mini, "never") is None
    with pytest.raises(EngineError) as info:
        abandoned.finish()
    assert info.value.id == "runs_abandoned"


def test_abandoned_runs_end_their_worker_and_runs_with_nothing_to_run_leave_it(mini):
    module(mini, "quick", "@values\ndef numbers():\n    return {'quick': 1}\n")
    compute(mini, ["quick"])
    kept_worker = _worker_processes()
    # nothing stale: abandoning these (a build that failed on a page) keeps the warm worker
    runner.start(["quick"], root=mini, keep_worker=True).abandon()
    assert _worker_processes() == kept_worker
    started, _gate = _gated(mini, "slow")
    runs = runner.start(["slow"], root=mini, keep_worker=True)
    assert _appears(started)
    runs.abandon()
    assert not kept_worker & _worker_processes()
    assert kept(mini, "slow") is None


def test_a_build_that_fails_before_it_reads_its_runs_ends_them(mini):
    """A build fails between on_pre_build, which started the modules' runs, and on_files, which
    reads them (another plugin's hook raised): its runs end with it, not at the next build."""
    from anatomia_engine.plugin import AnatomiaPlugin

    started, _gate = _gated(mini, "unread")
    plugin = AnatomiaPlugin()
    plugin.runs = runner.start(["unread"], root=mini, keep_worker=True)
    assert _appears(started)
    workers = _worker_processes()
    plugin.on_build_error(error=RuntimeError("another plugin failed"))
    assert not workers & _worker_processes()
    assert plugin.runs is None
