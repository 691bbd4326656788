"""`make serve` whose first build ran no module (every result was stored) starts the modules' worker
while the author reads (runner.prepare_worker): the first save that runs a module runs it in that
worker instead of waiting for a new one to import NumPy and matplotlib."""

from __future__ import annotations

import re

from helpers import fixture_project, http_get, mkdocs_build, mkdocs_serve, wait_for, worker_processes

# A module that shows which process forked its run: the worker
PROBE = ('"""Shows the worker\'s process. Page: docs/inne.md. Values: worker."""\nimport os\n\n'
         "from anatomia_engine.kit import values\n\n\n"
         "@values\ndef probe():\n    return {'worker': os.getppid()}\n")
PAGE = "---\ncomputed: [probe]\n---\n# Inna strona\n\nProces roboczy: {{ worker }}.\n"


def shown_worker(url: str) -> int | None:
    found = re.search(r"Proces roboczy: (.*?)\.</p>", http_get(url))
    if found is None:
        return None
    # the number as the site writes it: marked up, a space between thousands
    shown = re.sub(r"<[^>]*>", "", found.group(1))
    return int(re.sub(r"\D", "", shown))


def test_a_save_runs_its_modules_in_the_worker_started_while_the_author_read(tmp_path):
    project = fixture_project(tmp_path / "proj", files={"figures_src/probe.py": PROBE,
                                                        "docs/inne.md": PAGE})
    built = mkdocs_build(project, tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    probe = project / "figures_src" / "probe.py"
    with mkdocs_serve(project, as_make_serve=True) as (server, base, output):
        url = base + "inne/"
        assert wait_for(lambda: shown_worker(url) is not None, 300), "".join(output)
        # the first build took every result from the store: it started no worker itself
        assert "figures_src: ran" not in "".join(output)
        assert wait_for(lambda: len(worker_processes(server.pid)) == 1, 120), "".join(output)
        ready = worker_processes(server.pid)
        probe.write_text(probe.read_text() + "# zapisany znowu\n")
        assert wait_for(lambda: shown_worker(url) in ready, 120), "".join(output)
        # the save ran the module: serve says so, and started no other worker
        assert "figures_src: ran probe" in "".join(output)
        assert worker_processes(server.pid) == ready
