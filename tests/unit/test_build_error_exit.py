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


def test_on_build_error_waits_for_every_notebook_it_started():
    from anatomia_engine.plugin import AnatomiaPlugin

    joined = []
    plugin = AnatomiaPlugin()
    plugin.jobs = {f"laby/{n}.py": types.SimpleNamespace(join=lambda n=n: joined.append(n)) for n in "ab"}
    plugin.on_build_error(error=RuntimeError("a false claim elsewhere"))
    assert sorted(joined) == ["a", "b"]
