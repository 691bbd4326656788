"""The build pipeline on a small project of its own: values, figures, errors, staleness, serve.

Each test builds a tiny site (one page, one figures module, a one-function attn_core) with
the real plugin and figures_src helpers, so failures point at the pipeline, not at articles.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from helpers import REPO, mkdocs_build

MKDOCS_YML = """\
site_name: Demo
strict: true
validation:
  links: {not_found: warn, absolute_links: warn, unrecognized_links: warn, anchors: warn}
theme: {name: material, language: pl, font: false}
markdown_extensions: [attr_list, md_in_html, tables, admonition, pymdownx.details, pymdownx.blocks.caption, {pymdownx.arithmatex: {generic: true}}]
plugins: [anatomia]
nav: [index.md, inne.md]
"""

DEMO = '''\
"""Demo module. Page: docs/index.md. Values: weight, pair, table. Figures: bars."""
import numpy as np
from attn_core import scale
from anatomia_engine.kit import Plot, Table, figure, values
from anatomia_engine.plot import bar_chart, new_figure

WEIGHTS = np.array([0.35434369377420455, 0.6456563062257954])


@values
def numbers():
    return {"weight": WEIGHTS[1] * scale(), "pair": WEIGHTS * scale(),
            "table": Table(["token", "p"], [["cat", WEIGHTS[0]], ["chases", WEIGHTS[1]]], [None, "pct:1"])}


@figure
def bars(style):
    fig, ax = new_figure(style, size=(3, 2))
    bar_chart(ax, ["cat", "chases"], WEIGHTS * scale(), style=style)
    return Plot(fig=fig, alt="Dwa słupki: cat i chases", caption="Wagi",
                table=Table(["token", "waga"], [["cat", WEIGHTS[0]], ["chases", WEIGHTS[1]]]))
'''

PAGE = """\
---
computed: [demo]
---
# Demo

Waga wynosi {{ weight | dec(2) }}, w LaTeX-u \\( w = {{ weight | dec(3) }} \\).

{% claim weight > pair[0] %}Waga „chases” jest większa niż „cat”.{% endclaim %}

{{ table }}

{{ figure("bars") }}
"""


def make_project(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "figures_src").mkdir()
    (root / "attn_core").mkdir()
    shutil.copy(REPO / "figures_src" / "__init__.py", root / "figures_src" / "__init__.py")
    shutil.copy(REPO / "requirements.lock", root / "requirements.lock")
    (root / "attn_core" / "__init__.py").write_text("def scale():\n    return 1.0\n")
    (root / "figures_src" / "demo.py").write_text(DEMO)
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    (root / "docs" / "index.md").write_text(PAGE)
    (root / "docs" / "inne.md").write_text("# Inna strona\n\nZwykły tekst bez obliczeń.\n")
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path / "proj")


def build_ok(project: Path, site: Path) -> subprocess.CompletedProcess:
    proc = mkdocs_build(project, site)
    assert proc.returncode == 0, proc.stderr
    return proc


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


def _wait_for(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except OSError:
            pass
        time.sleep(0.3)
    return False


def _serve(project: Path) -> tuple[subprocess.Popen, str]:
    """`mkdocs serve` of `project` on a free port in its own process group; (process, page URL)."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
        cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    return server, f"http://127.0.0.1:{port}/"


def test_make_docs_keeps_the_last_good_site_when_a_build_fails(tmp_path):
    project = make_project(tmp_path / "proj")
    shutil.copy(REPO / "Makefile", project / "Makefile")
    (project / ".venv").symlink_to(REPO / ".venv")
    env = dict(os.environ, MAKEFLAGS="")
    good = subprocess.run(["make", "-o", ".venv/.installed", "docs"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=300)
    assert good.returncode == 0, good.stderr
    before = (project / "site" / "index.html").read_bytes()
    page = project / "docs" / "index.md"
    page.write_text(page.read_text() + "\n{{ nieznana }}\n")
    bad = subprocess.run(["make", "-o", ".venv/.installed", "docs"], cwd=project, env=env,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0
    assert "unknown value 'nieznana'" in bad.stderr and "site/ was left as it was" in bad.stderr
    assert (project / "site" / "index.html").read_bytes() == before
    assert not (project / ".site.tmp").exists()


# --- the same failure classes on a copy of the real project ------------------------------

NAN_MODULE = '''\
"""A module that lets a NaN through (for the test only)."""
from anatomia_engine.kit import Table, values


@values
def broken():
    return {NAME: VALUE}
'''


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> Path:
    from helpers import copy_project

    return copy_project(tmp_path_factory.mktemp("real") / "proj")


