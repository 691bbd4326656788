"""The runner (anatomia_engine/runner.py and the modules it uses, codec.py): every way a
figures_src module can fail stops with its name, nothing is kept for a failed run, and a kept
result is used only when its store entry is whole and what its run read is unchanged.

Most tests run a small module in a project of their own (fast); each failure class is also
exercised against a copy of the real project (tests/helpers.py copy_project).
"""

from __future__ import annotations

import os
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from anatomia_engine import runner
from helpers import copy_project, message_pattern, mkdocs_build
from tests.module_runs import (
    LAZY_INIT,
    compute_in_child,
    damage_edit_value,
    damage_empty,
    damage_truncate,
    entry_path,
    kept,
    module,
    ran,
)


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


# --- typed results, one codec -------------------------------------------------------------------


# --- NaN and infinities -----------------------------------------------------------------------


def test_real_project_build_stops_on_a_nan_or_an_exit_naming_module_function_and_value(tmp_path):
    """Two modules fail in one build (the runner reports every failed module): one publishes a
    NaN, one ends its process."""
    project = copy_project(tmp_path / "proj")
    path = project / "figures_src" / "quadratic_cost.py"
    path.write_text(path.read_text() + textwrap.dedent("""

        @values
        def broken_ratio():
            return {"ratio_of_nothing": np.float64(0.0) / np.float64(0.0)}
        """))
    path = project / "figures_src" / "multi_head.py"
    path.write_text(path.read_text() + "\nimport sys\nsys.exit(0)\n")
    proc = mkdocs_build(project, tmp_path / "site")
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0
    expected = "figures_src/quadratic_cost.py: broken_ratio() returned 'ratio_of_nothing' with NaN"
    assert expected in log, log[-3000:]
    assert "Traceback" not in log.split("broken_ratio", 1)[0][-200:]
    assert "figures_src.multi_head (import) called sys.exit(0)" in log, log[-3000:]
    assert not (tmp_path / "site").exists()
    assert kept(project, "multi_head") is None


def test_real_masked_scores_keep_minus_inf(tmp_path):
    project = copy_project(tmp_path / "proj")
    results, _ = runner.compute(["masking", "worked_example"], root=project)
    for name, key in [("masking", "mask_masked"), ("worked_example", "masked")]:
        value = results[name].values[key]
        assert np.isneginf(value).any() and np.isfinite(value[~np.isneginf(value)]).all()


# --- hangs, signals and early exits ----------------------------------------------------------


def test_the_time_limit_is_set_by_the_environment_for_every_module(tmp_path):
    project = copy_project(tmp_path / "proj")
    path = project / "figures_src" / "scaling.py"
    path.write_text(path.read_text() + "\nimport time\ntime.sleep(600)\n")
    proc = compute_in_child(project, ["scaling"], env={runner.TIME_LIMIT_ENV: "3"})
    assert proc.returncode == 3, proc.stderr[-2000:]
    # stopped while importing, at the limit the environment set for every module
    stopped = message_pattern("time_limit", where="figures_src/scaling.py", limit=3,
                              current="figures_src.scaling (import)", env=runner.TIME_LIMIT_ENV)
    assert stopped.search(proc.stderr), proc.stderr[-2000:]


# --- never stale: the depfile -------------------------------------------------------------------

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


def test_engine_files_the_worker_does_not_import_leave_results_cached(tmp_path):
    project = copy_project(tmp_path / "proj")
    shutil.rmtree(project / ".cache", ignore_errors=True)
    found, names = runner.compute(["masking"], root=project)
    assert names == ["masking"]
    inputs = {p.relative_to(project).as_posix() for p in found["masking"].inputs if p.is_relative_to(project)}
    assert "anatomia_engine/kit.py" in inputs and "anatomia_engine/publish.py" not in inputs
    assert not any(name.startswith("attn_core/transformer") for name in inputs)
    for name in ("anatomia_engine/publish.py", "anatomia_engine/mathml.py", "anatomia_engine/markdown.py",
                 "attn_core/transformer.py"):
        (project / name).write_text((project / name).read_text() + "\n# edited\n")
    assert ran(project, "masking") == []
    kit = project / "anatomia_engine" / "kit.py"
    kit.write_text(kit.read_text() + "\n# edited\n")
    assert ran(project, "masking") == ["masking"]


@pytest.mark.parametrize("damage", [damage_truncate, damage_edit_value, damage_empty])
def test_real_damaged_entry_is_recomputed_and_said_never_published(tmp_path, caplog, damage):
    project = copy_project(tmp_path / "proj")
    good, _ = runner.compute(["masking"], root=project)
    expected = good["masking"].values["mask_first_self"]
    path = entry_path(project, "masking")
    damage(path)
    caplog.clear()
    found, names = runner.compute(["masking"], root=project)
    assert names == ["masking"]
    damaged = message_pattern("store_damaged", where="figures_src/masking.py: ", path=path)
    assert damaged.search(caplog.text), caplog.text
    assert found["masking"].values["mask_first_self"] == expected
    assert kept(project, "masking") is not None                     # the entry is whole again


# --- the command line ---------------------------------------------------------------------------


# --- the worker kept between builds (mkdocs serve) ------------------------------------------------

def test_a_kept_worker_is_reused_and_restarted_when_a_file_it_imported_changes(tmp_path):
    project = copy_project(tmp_path / "proj")
    shutil.rmtree(project / ".cache", ignore_errors=True)
    probe = project / "figures_src" / "probe.py"
    probe.write_text("import os\nfrom anatomia_engine.kit import values\n\n\n@values\n"
                     "def worker():\n    return {'worker_pid': os.getppid()}\n")
    try:
        found, names = runner.compute(["probe"], root=project, keep_worker=True)
        first = found["probe"].values["worker_pid"]
        probe.write_text(probe.read_text() + "\n# edited\n")
        found, names = runner.compute(["probe"], root=project, keep_worker=True)
        assert names == ["probe"] and found["probe"].values["worker_pid"] == first       # reused
        kit = project / "anatomia_engine" / "kit.py"                          # the worker imported it
        kit.write_text(kit.read_text() + "\n# edited\n")
        found, names = runner.compute(["probe"], root=project, keep_worker=True)
        second = found["probe"].values["worker_pid"]
        assert names == ["probe"] and second != first                                    # restarted
    finally:
        runner.stop_worker()
    for pid in (first, second):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
