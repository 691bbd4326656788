"""The runner (anatomia_engine/runner.py, codec.py): every way a figures_src module can fail
stops with its name, nothing is cached for a failed run, and a cache entry is used only when
it is complete and unchanged.

Most tests run a small module in a project of their own (fast); each failure class is also
exercised against a copy of the real project (tests/helpers.py copy_project).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from anatomia_engine import codec, runner
from anatomia_engine.kit import Table
from figures_src import masking
from helpers import copy_project, mkdocs_build

HEADER = "import numpy as np\nfrom anatomia_engine.kit import Plot, Table, Value, figure, values\n"


@pytest.fixture
def mini(tmp_path) -> Path:
    """A project with an empty figures_src package and a one-line attn_core."""
    root = tmp_path / "mini"
    (root / "figures_src").mkdir(parents=True)
    (root / "figures_src" / "__init__.py").write_text("")
    (root / "attn_core").mkdir()
    (root / "attn_core" / "__init__.py").write_text("SCALE = 2\n")
    (root / "requirements.lock").write_text("numpy\n")
    return root


def module(root: Path, name: str, body: str) -> Path:
    path = root / "figures_src" / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def entries(cache: Path, name: str) -> list[Path]:
    """What is cached for `name`, plus any temporary folder left in the cache."""
    folder = cache / name
    kept = list(folder.iterdir()) if folder.exists() else []
    return kept + [p for p in cache.glob(".*") if p.is_dir()]


def compute_in_child(root: Path, names: list[str], env: dict | None = None, timeout: float = 120):
    """runner.compute in a separate interpreter (so a hang fails the test instead of blocking it)."""
    code = ("import sys; from pathlib import Path; from anatomia_engine import runner\n"
            "try:\n"
            f"    runner.compute({names!r}, root=Path({str(root)!r}))\n"
            "except runner.ComputeError as exc:\n"
            "    print(exc, file=sys.stderr); sys.exit(3)\n")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | (env or {})
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=environment,
                          capture_output=True, text=True, timeout=timeout)


# --- typed results, one codec -------------------------------------------------------------------

def test_results_cross_the_boundary_as_typed_records(mini):
    module(mini, "demo", """
        @values
        def numbers():
            return {"w": Value(np.array([[0.25, 0.75]]), what="waga {i} {j}", axes=(["a"], ["b", "c"])),
                    "n": 3, "q": Value(2.0, cite="Dao (2023)"), "t": Table(["x", "p"], [["a", 0.5]])}
        """)
    results, ran = runner.compute(["demo"], root=mini)
    assert ran == ["demo"]
    out = results["demo"].output
    assert isinstance(out, codec.ModuleOutput)
    record = out.values["w"]
    assert isinstance(record, codec.ValueRecord)
    assert (record.kind, record.function, record.what, record.axes) == ("array", "numbers", "waga {i} {j}",
                                                                       (("a",), ("b", "c")))
    assert out.values["q"].cite == "Dao (2023)" and out.values["n"].kind == "int"
    # the plain views the page code reads
    assert results["demo"].values["n"] == 3
    assert results["demo"].meta["w"] == {"function": "numbers", "what": "waga {i} {j}", "cite": None,
                                         "axes": [["a"], ["b", "c"]]}
    assert isinstance(results["demo"].values["t"], Table)
    # the codec round-trips what it wrote
    again = codec.decode(codec.encode(out))
    assert again.values.keys() == out.values.keys()
    np.testing.assert_array_equal(again.values["w"].value, record.value)


# --- NaN and infinities -----------------------------------------------------------------------

@pytest.mark.parametrize("value, word", [
    ("float('nan')", "NaN"),
    ("np.array([1.0, np.inf])", "+inf"),
    ("np.array([[0.0, -np.inf]])", "-inf"),
    ("Table(['a', 'b'], [['x', float('nan')]])", "NaN"),
    ("{'inner': [1.0, float('-inf')]}", "-inf"),
    ("Value(float('-inf'), masked=True)", "masked=True"),
])
def test_nan_or_inf_is_refused_naming_module_function_and_value(mini, value, word):
    module(mini, "bad", f"""
        @values
        def produce():
            return {{"fine": 1.0, "broken": {value}}}
        """)
    with pytest.raises(runner.ComputeError) as info:
        runner.compute(["bad"], root=mini)
    message = str(info.value)
    assert "figures_src/bad.py" in message and "produce()" in message and "'broken'" in message
    assert word in message
    assert entries(mini / ".cache" / "computed", "bad") == []          # nothing cached


def test_minus_inf_is_allowed_only_in_arrays_marked_masked(mini):
    module(mini, "masked", """
        @values
        def scores():
            return {"masked": Value(np.array([[0.5, -np.inf], [0.1, 0.2]]), masked=True)}
        """)
    results, _ = runner.compute(["masked"], root=mini)
    value = results["masked"].values["masked"]
    assert value[0, 1] == -math.inf and value[1, 1] == 0.2
    module(mini, "masked", """
        @values
        def scores():
            return {"masked": Value(np.array([[np.nan, -np.inf]]), masked=True)}
        """)
    with pytest.raises(runner.ComputeError, match=r"'masked' with NaN at index \[0, 0\]"):
        runner.compute(["masked"], root=mini)


def test_nan_in_a_figure_table_is_refused(mini):
    module(mini, "fig", """
        @figure
        def chart(style):
            import matplotlib.pyplot as plt
            fig = plt.figure()
            return Plot(fig=fig, alt="Pusty", caption="Pusty", table=Table(["x", "y"], [["a", float("nan")]]))
        """)
    with pytest.raises(runner.ComputeError, match=r"chart\(style\) returned a Plot whose data table"):
        runner.compute(["fig"], root=mini)


def test_real_project_build_stops_on_a_nan_naming_module_function_and_value(tmp_path):
    project = copy_project(tmp_path / "proj")
    path = project / "figures_src" / "quadratic_cost.py"
    path.write_text(path.read_text() + textwrap.dedent("""

        @values
        def broken_ratio():
            return {"ratio_of_nothing": np.float64(0.0) / np.float64(0.0)}
        """))
    proc = mkdocs_build(project, tmp_path / "site")
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0
    expected = "figures_src/quadratic_cost.py: broken_ratio() returned 'ratio_of_nothing' with NaN"
    assert expected in log, log[-3000:]
    assert "Traceback" not in log.split("broken_ratio", 1)[0][-200:]
    assert not (tmp_path / "site").exists()


def test_real_masked_scores_keep_minus_inf(tmp_path):
    project = copy_project(tmp_path / "proj")
    results, _ = runner.compute(["masking", "worked_example"], root=project)
    for name, key in [("masking", "mask_masked"), ("worked_example", "masked")]:
        record = results[name].output.values[key]
        assert record.masked and np.isneginf(record.value).any()
        assert np.isfinite(record.value[~np.isneginf(record.value)]).all()


# --- hangs, signals and early exits ----------------------------------------------------------

def test_a_hanging_module_is_stopped_at_its_time_limit_and_named(mini):
    module(mini, "slow", """
        import time
        TIME_LIMIT = 2

        @values
        def wait():
            time.sleep(600)
            return {}
        """)
    proc = compute_in_child(mini, ["slow"])
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "figures_src/slow.py did not finish within its time limit of 2 s" in proc.stderr
    assert "figures_src.slow.wait()" in proc.stderr and "ANATOMIA_MODULE_TIMEOUT" in proc.stderr
    assert entries(mini / ".cache" / "computed", "slow") == []


def test_the_time_limit_is_set_by_the_environment_for_every_module(tmp_path):
    project = copy_project(tmp_path / "proj")
    path = project / "figures_src" / "scaling.py"
    path.write_text(path.read_text() + "\nimport time\ntime.sleep(600)\n")
    proc = compute_in_child(project, ["scaling"], env={runner.TIME_LIMIT_ENV: "3"})
    assert proc.returncode == 3, proc.stderr[-2000:]
    assert "figures_src/scaling.py did not finish within its time limit of 3 s" in proc.stderr
    assert "figures_src.scaling (import)" in proc.stderr


@pytest.mark.parametrize("body, expected", [
    ("import os, signal\n\n@values\ndef die():\n    os.kill(os.getpid(), signal.SIGKILL)\n    return {}\n",
     r"killed by SIGKILL \(exit status -9\) while running figures_src\.quit\.die\(\)"),
    ("import sys\nsys.exit(0)\n",
     r"figures_src\.quit \(import\) called sys\.exit\(0\)"),
    ("import os\n\n@values\ndef leave():\n    print('bye')\n    os._exit(0)\n",
     r"ended with exit status 0 before writing its results \(while running figures_src\.quit\.leave\(\)\)"
     r"(?s:.*)bye"),
])
def test_death_by_signal_or_early_exit_is_reported_and_nothing_is_cached(mini, body, expected):
    (mini / "figures_src" / "quit.py").write_text(HEADER + body)
    with pytest.raises(runner.ComputeError, match=expected) as info:
        runner.compute(["quit"], root=mini)
    assert "Nothing was cached" in str(info.value)
    assert entries(mini / ".cache" / "computed", "quit") == []


def test_real_module_ending_the_process_fails_the_build(tmp_path):
    project = copy_project(tmp_path / "proj")
    path = project / "figures_src" / "multi_head.py"
    path.write_text(path.read_text() + "\nimport sys\nsys.exit(0)\n")
    proc = mkdocs_build(project, tmp_path / "site")
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "figures_src.multi_head (import) called sys.exit(0)" in log, log[-3000:]
    assert not (tmp_path / "site").exists()
    assert runner.cached_entry("multi_head", project) is None


def test_modules_do_not_share_state(mini):
    module(mini, "first", """
        import matplotlib
        matplotlib.rcParams["font.size"] = 99.0
        np.random.seed(7)
        LEAK = np.random.random()

        @values
        def one():
            return {"leak": LEAK}
        """)
    module(mini, "second", """
        import sys
        import matplotlib

        @values
        def two():
            return {"font_size": float(matplotlib.rcParams["font.size"]),
                    "sees_first": int("figures_src.first" in sys.modules)}
        """)
    results, _ = runner.compute(["first", "second"], root=mini, jobs=1)
    assert results["second"].values["font_size"] != 99.0
    assert results["second"].values["sees_first"] == 0


# --- never stale: the depfile -------------------------------------------------------------------

def ran(root: Path, *names: str) -> list[str]:
    return runner.compute(list(names), root=root)[1]


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


def test_real_module_reruns_when_a_relatively_imported_helper_changes(tmp_path):
    project = copy_project(tmp_path / "proj")
    (project / "figures_src" / "_bench_factor.py").write_text("FACTOR = 2\n")
    path = project / "figures_src" / "quadratic_cost.py"
    path.write_text(path.read_text() + textwrap.dedent("""
        from ._bench_factor import FACTOR


        @values
        def factor_value():
            return {"helper_factor": FACTOR}
        """))
    results, ran = runner.compute(["quadratic_cost"], root=project)
    assert ran == ["quadratic_cost"] and results["quadratic_cost"].values["helper_factor"] == 2
    (project / "figures_src" / "_bench_factor.py").write_text("FACTOR = 5\n")
    results, ran = runner.compute(["quadratic_cost"], root=project)
    assert ran == ["quadratic_cost"] and results["quadratic_cost"].values["helper_factor"] == 5


LAZY_INIT = """\
import importlib
_SOURCES = {"A": "a", "B": "b"}


def __getattr__(name):
    value = getattr(importlib.import_module(f"attn_core.{_SOURCES[name]}"), name)
    globals()[name] = value
    return value
"""


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
        import importlib, json, sys
        import attn_core
        before = sorted(n for n in sys.modules if n.startswith("attn_core."))
        from attn_core import rope
        after = sorted(n for n in sys.modules if n.startswith("attn_core."))
        same = all(getattr(attn_core, n) is getattr(importlib.import_module(
            "attn_core." + attn_core._SOURCES.get(n, "softmax")), n) for n in attn_core.__all__)
        names = sorted(set(attn_core.__all__)) == sorted({*attn_core._SOURCES, "softmax"})
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
    results, names = runner.compute(["uses_a"], root=lazy)
    assert names == ["uses_a"] and results["uses_a"].values["a"] == 10


def test_a_new_import_is_followed(lazy):
    assert ran(lazy, "uses_a") == ["uses_a"]
    (lazy / "attn_core" / "c.py").write_text("C = 3\n")
    (lazy / "attn_core" / "a.py").write_text("from attn_core.c import C\nA = C\n")
    results, names = runner.compute(["uses_a"], root=lazy)
    assert names == ["uses_a"] and results["uses_a"].values["a"] == 3
    (lazy / "attn_core" / "c.py").write_text("C = 4\n")        # now a dependency
    results, names = runner.compute(["uses_a"], root=lazy)
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
    assert runner.compute(["user"], root=mini)[0]["user"].values["factor"] == 1
    assert ran(mini, "user") == []
    (mini / "figures_src" / "_fast.py").write_text("FACTOR = 2\n")
    results, names = runner.compute(["user"], root=mini)
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
    assert runner.compute(["reader"], root=mini)[0]["reader"].values["n"] == 7
    assert ran(mini, "reader") == []
    (mini / "figures_src" / "facts.json").write_text('{"n": 8}')
    assert runner.compute(["reader"], root=mini)[0]["reader"].values["n"] == 8


def test_depfile_covers_attn_core_lock_engine_and_python(mini):
    module(mini, "demo", "import attn_core\nX = attn_core.SCALE\n")
    results, _ = runner.compute(["demo"], root=mini)
    deps = runner.read_dependencies(results["demo"].folder)
    files = {runner._dep_path(name, mini).resolve() for name in deps["files"]}
    for path in (mini / "attn_core" / "__init__.py", mini / "requirements.lock",
                 mini / "figures_src" / "demo.py", Path(runner.__file__), Path(codec.__file__)):
        assert path.resolve() in files, path
    assert deps["python"] == sys.version
    assert runner.dependency_problem(deps, mini) is None
    assert runner.dependency_problem(deps | {"python": "2.7.18"}, mini) == "the Python version changed"
    for path, text in [("attn_core/__init__.py", "SCALE = 3\n"), ("requirements.lock", "numpy==2\n")]:
        (mini / path).write_text(text)
        assert ran(mini, "demo") == ["demo"], path


def test_engine_files_the_worker_does_not_import_leave_results_cached(tmp_path):
    project = copy_project(tmp_path / "proj")
    shutil.rmtree(project / ".cache", ignore_errors=True)
    assert ran(project, "masking") == ["masking"]
    deps = runner.read_dependencies(runner.cached_entry("masking", project))
    assert "anatomia_engine/kit.py" in deps["files"] and "anatomia_engine/publish.py" not in deps["files"]
    assert not any(name.startswith("attn_core/transformer") for name in deps["files"])
    for name in ("anatomia_engine/publish.py", "anatomia_engine/katex.py", "anatomia_engine/markdown.py",
                 "attn_core/transformer.py"):
        (project / name).write_text((project / name).read_text() + "\n# edited\n")
    assert ran(project, "masking") == []
    kit = project / "anatomia_engine" / "kit.py"
    kit.write_text(kit.read_text() + "\n# edited\n")
    assert ran(project, "masking") == ["masking"]


def test_a_stale_depfile_is_a_miss_and_an_altered_one_is_not_trusted(mini, caplog):
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 2\n")
    module(mini, "user", """
        from ._shared import FACTOR

        @values
        def factor():
            return {"factor": FACTOR}
        """)
    folder = runner.compute(["user"], root=mini)[0]["user"].folder
    deps_path = folder / runner.DEPS
    deps = json.loads(deps_path.read_text())
    # altered: the helper dropped from the depfile (as if it were no dependency), manifest not updated
    forged = dict(deps, files={k: v for k, v in deps["files"].items() if not k.endswith("_shared.py")})
    deps_path.write_text(json.dumps(forged, indent=1))
    caplog.clear()
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 3\n")
    results, names = runner.compute(["user"], root=mini)
    assert names == ["user"] and results["user"].values["factor"] == 3
    assert "deps.json differs from its checksum" in caplog.text
    # stale: a depfile consistent with its manifest but recording an older helper
    (mini / "figures_src" / "_shared.py").write_text("FACTOR = 4\n")
    assert runner.cached_entry("user", mini) is None
    results, names = runner.compute(["user"], root=mini)
    assert names == ["user"] and results["user"].values["factor"] == 4


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
    results, names = runner.compute(["user"], root=mini)
    assert names == ["user"] and results["user"].values["factor"] == 2     # what it imported
    results, names = runner.compute(["user"], root=mini)
    assert names == ["user"]          # the result of the run that saw the edit is not reused


def test_an_edited_import_record_is_not_trusted(mini):
    (mini / "figures_src" / "_shared.py").write_text("try:\n    from ._fast import F\nexcept ImportError:\n"
                                                      "    F = 1\n")
    module(mini, "user", "from ._shared import F\n")
    runner._parsed.clear()
    assert ran(mini, "user") == ["user"]
    for record in (mini / ".cache" / "imports").glob("*.json"):
        doc = json.loads(record.read_text())
        doc["names"] = []
        record.write_text(json.dumps(doc))
    runner._parsed.clear()
    (mini / "figures_src" / "_fast.py").write_text("F = 2\n")
    assert ran(mini, "user") == ["user"]


def _damage_truncate(folder: Path) -> str:
    path = folder / runner.RESULT
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return "result.json differs from its checksum"


def _damage_edit_value(folder: Path) -> str:
    path = folder / runner.RESULT
    doc = json.loads(path.read_text())
    doc["values"]["mask_first_self"]["encoded"]["value"] = 0.123
    path.write_text(json.dumps(doc, indent=1, sort_keys=True))
    return "result.json differs from its checksum"


def _damage_remove_figure(folder: Path) -> str:
    (folder / "mask_matrix-dark.svg").unlink()
    return "mask_matrix-dark.svg is missing"


def _damage_manifest(folder: Path) -> str:
    (folder / runner.MANIFEST).write_text("{")
    return "manifest.json is unreadable"


@pytest.mark.parametrize("damage", [_damage_truncate, _damage_edit_value, _damage_remove_figure,
                                    _damage_manifest])
def test_real_damaged_cache_entry_is_recomputed_and_said_never_published(tmp_path, caplog, damage):
    project = copy_project(tmp_path / "proj")
    cache = project / ".cache" / "computed"
    good, _ = runner.compute(["masking"], root=project)
    expected = good["masking"].values["mask_first_self"]
    folder = runner.cached_entry("masking", project)
    assert folder is not None and folder.parent == cache / "masking"
    reason = damage(folder)
    caplog.clear()
    results, ran = runner.compute(["masking"], root=project)
    err = caplog.text
    assert ran == ["masking"]
    assert "figures_src/masking.py: cached result not used, running the module again" in err and reason in err
    assert results["masking"].values["mask_first_self"] == expected
    assert runner.manifest_problem(folder) is None                    # the entry is whole again


def test_real_build_with_a_truncated_cache_file_rebuilds_it(tmp_path):
    project = copy_project(tmp_path / "proj")
    runner.compute(["worked_example"], root=project)
    folder = runner.cached_entry("worked_example", project)
    _damage_truncate(folder)
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert "figures_src/worked_example.py: cached result not used" in proc.stderr
    assert runner.manifest_problem(folder) is None


def test_a_cached_result_is_decoded_only_when_a_page_reads_it(mini, monkeypatch):
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
    runner.compute(["fig"], root=mini)
    monkeypatch.setattr(runner, "_decoded", {})        # a new process: nothing decoded yet
    decoded = []
    real = codec.decode
    monkeypatch.setattr(codec, "decode", lambda text: decoded.append(1) or real(text))
    results, ran = runner.compute(["fig"], root=mini)
    assert ran == [] and decoded == []                  # a warm build that renders no page decodes nothing
    assert results["fig"].files == ["chart-dark.svg", "chart-light.svg", "chart.csv"]
    assert results["fig"].values == {"n": 3} and decoded == [1]


def test_a_rebuild_in_the_same_process_decodes_only_changed_results(mini, monkeypatch):
    """`mkdocs serve` rebuilds in one process: a result whose result.json has the checksum of
    the one decoded before is not decoded again; a changed one is."""
    module(mini, "a", "@values\ndef v():\n    return {'x': 1.5}\n")
    module(mini, "b", "@values\ndef v():\n    return {'y': 2}\n")
    monkeypatch.setattr(runner, "_decoded", {})
    first, _ = runner.compute(["a", "b"], root=mini)
    assert first["a"].values == {"x": 1.5} and first["b"].values == {"y": 2}
    decoded = []
    real = codec.decode
    monkeypatch.setattr(codec, "decode", lambda text: decoded.append(1) or real(text))
    again, ran = runner.compute(["a", "b"], root=mini)
    assert ran == [] and again["a"].values == {"x": 1.5} and again["b"].values == {"y": 2}
    assert decoded == []
    module(mini, "a", "@values\ndef v():\n    return {'x': 2.5}\n")
    edited, ran = runner.compute(["a", "b"], root=mini)
    assert ran == ["a"] and edited["a"].values == {"x": 2.5} and edited["b"].values == {"y": 2}
    assert decoded == [1]               # a's run checks its new result once; b is not decoded


def test_a_verified_result_that_cannot_be_decoded_is_an_error_naming_its_file(mini):
    module(mini, "num", """
        @values
        def numbers():
            return {"n": 3}
        """)
    runner.compute(["num"], root=mini)
    folder = runner.cached_entry("num", mini)
    (folder / runner.RESULT).write_text('{"format": "something else"}')
    runner.write_manifest(folder)                       # the bytes match again: only decoding can tell
    results, ran = runner.compute(["num"], root=mini)
    assert ran == []
    with pytest.raises(runner.ComputeError, match=rf"{re.escape(str(folder))}: result.json: "):
        results["num"].values


# --- the command line ---------------------------------------------------------------------------

def test_command_line_runs_one_module_and_prints_its_values():
    proc = subprocess.run([sys.executable, "-m", "anatomia_engine.runner", "figures_src.masking"],
                          cwd=runner.ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"mask_n = {len(masking.TOKENS)}" in proc.stdout
    assert "figures: mask_effect, mask_matrix ->" in proc.stdout


# --- the worker kept between builds (mkdocs serve) ------------------------------------------------

def test_a_kept_worker_is_reused_and_restarted_when_a_file_it_imported_changes(tmp_path):
    project = copy_project(tmp_path / "proj")
    shutil.rmtree(project / ".cache", ignore_errors=True)
    try:
        results, names = runner.compute(["masking"], root=project, keep_worker=True)
        assert names == ["masking"] and len(runner._kept) == 1
        first = runner._kept[0].proc.pid
        expected = results["masking"].values["mask_first_self"]
        module = project / "figures_src" / "masking.py"
        module.write_text(module.read_text() + "\n# edited\n")
        results, names = runner.compute(["masking"], root=project, keep_worker=True)
        assert names == ["masking"] and runner._kept[0].proc.pid == first          # reused
        assert results["masking"].values["mask_first_self"] == expected
        kit = project / "anatomia_engine" / "kit.py"                                 # the worker imported it
        kit.write_text(kit.read_text() + "\n# edited\n")
        results, names = runner.compute(["masking"], root=project, keep_worker=True)
        assert names == ["masking"] and runner._kept[0].proc.pid != first          # restarted
        assert results["masking"].values["mask_first_self"] == expected
        kept = runner._kept[0].proc
    finally:
        runner.stop_worker()
    assert runner._kept == [] and kept.poll() is not None


def test_modules_start_longest_first_by_their_last_cpu_time_and_new_ones_before_them(mini):
    """The order modules start in: never run here -> first, largest source first; then by the
    CPU seconds their last run took (durations.json), measured by the worker."""
    module(mini, "tiny", "X = 1\n")
    module(mini, "busy", "@values\ndef v():\n    return {'s': float(sum(i * i for i in range(3_000_000)))}\n")
    module(mini, "idle", "@values\ndef v():\n    return {'i': 1}\n")
    cache = mini / ".cache" / "computed"
    big_new = module(mini, "zz_new", "# padding\n" * 400)
    assert runner.schedule(["tiny", "busy", "idle"], mini, cache) == sorted(
        ["tiny", "busy", "idle"], key=lambda n: -(mini / "figures_src" / f"{n}.py").stat().st_size)
    runner.compute(["tiny", "busy", "idle"], root=mini, cache=cache)
    recorded = json.loads((cache / runner.DURATIONS).read_text())
    assert set(recorded) == {"tiny", "busy", "idle"}
    assert recorded["busy"] > recorded["idle"] and recorded["busy"] > recorded["tiny"]
    order = runner.schedule(["idle", "tiny", "zz_new", "busy"], mini, cache)
    assert order[:2] == ["zz_new", "busy"] and sorted(order[2:]) == ["idle", "tiny"]
    assert big_new.exists()
    (cache / runner.DURATIONS).write_text(json.dumps({"tiny": 3.0, "busy": 1.0, "idle": 2.0}))
    assert runner.schedule(["busy", "idle", "tiny"], mini, cache) == ["tiny", "idle", "busy"]
    (cache / runner.DURATIONS).write_text("not json")              # a damaged hint: sizes again
    assert runner.schedule(["idle", "busy"], mini, cache)[0] == "busy"


def test_each_run_reports_the_cpu_of_every_module_and_a_kept_workers_start_up_once(mini):
    """runner.last_run (read by `make bench-docs`): every module that ran with its CPU and wall
    seconds; the worker's start-up in the run that started it, not again when serve reuses it."""
    path = module(mini, "a", "@values\ndef v():\n    return {'a': 1}\n")
    cache = mini / ".cache" / "computed"
    try:
        runner.compute(["a"], root=mini, cache=cache, keep_worker=True)
        first = json.loads(json.dumps(runner.last_run))
        path.write_text(path.read_text() + "# edited\n")
        _, ran = runner.compute(["a"], root=mini, cache=cache, keep_worker=True)
        second = json.loads(json.dumps(runner.last_run))
        runner.compute(["a"], root=mini, cache=cache, keep_worker=True)      # nothing to run
        third = runner.last_run
    finally:
        runner.stop_worker()
    assert ran == ["a"]
    assert first["worker"]["cpu"] > 0 and first["worker"]["seconds"] > 0
    assert set(first["modules"]) == {"a"} and first["modules"]["a"]["cpu"] > 0
    assert second["worker"] == {} and second["modules"]["a"]["seconds"] > 0
    assert third == {}
