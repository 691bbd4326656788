"""A build that stops on an error while the lab notebook could still be executing ends with that error.

The notebook executes beside the figures modules. A Jupyter client left running while the
interpreter exits (another page stopped the build first, here a false claim on the fixture project's
page) made ZeroMQ abort that exit ("Assertion failed: pfd.revents & POLLIN") and, about one build in
five, the build hung instead of failing. The plugin's on_files now waits for the notebook before any
page is read.
"""

from __future__ import annotations

import shutil

from helpers import fixture_project, mkdocs_build


def test_a_build_that_fails_while_the_notebook_runs_ends_with_its_error(tmp_path):
    project = fixture_project(tmp_path / "project", lab=True)
    page = project / "docs" / "index.md"
    page.write_text(page.read_text(encoding="utf-8").replace("weight > pair[0]", "weight < pair[0]"),
                    encoding="utf-8")
    with (project / "docs" / "laby" / "lab.py").open("a", encoding="utf-8") as lab:
        lab.write("\n# %%\nimport time\n\ntime.sleep(2)   # still executing when the page fails\n")
    for attempt in range(3):
        shutil.rmtree(project / ".cache" / "anatomia" / "notebooks", ignore_errors=True)   # it runs each time
        proc = mkdocs_build(project, tmp_path / f"site{attempt}", timeout=240)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 1, output[-2000:]
        assert "false claim" in output, output[-2000:]
        assert "Assertion failed" not in output, output[-2000:]
