"""A build that stops on an error while the lab notebook is still executing ends with that error.

The notebook runs in a thread beside the figures modules (the plugin's notebooks.Job). When another page
stops the build first (here a false claim on the worked example), the Jupyter client used to be
left running while the interpreter exited; ZeroMQ then aborted that exit ("Assertion failed:
pfd.revents & POLLIN") and, about one build in five, the build hung instead of failing. The plugin
now waits for the notebook on a build error.
"""

from __future__ import annotations

import shutil
import types

from helpers import copy_project, mkdocs_build


def test_a_build_that_fails_while_the_notebook_runs_ends_with_its_error(tmp_path):
    project = copy_project(tmp_path / "project")
    inputs = project / "figures_src" / "inputs.py"
    text = inputs.read_text(encoding="utf-8")
    old = "    [0.0, 1.0, 0.0, 0.5, 0.0],"
    assert text.count(old) == 1
    inputs.write_text(text.replace(old, "    [0.0, 0.1, 0.0, 0.5, 0.0],"), encoding="utf-8")
    for attempt in range(4):
        shutil.rmtree(project / ".cache" / "anatomia" / "notebooks", ignore_errors=True)   # it runs each time
        proc = mkdocs_build(project, tmp_path / f"site{attempt}", timeout=240)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 1, output[-2000:]
        assert "false claim" in output
        assert "Assertion failed" not in output, output[-2000:]


