"""Lab 3: the notebook page is executed at build time, light, and agrees with attn_core.

Page tests read the strict build of the real site (`built_site`). The plugin's notebook tests run
the anatomia plugin on small projects in tmp_path; builds of a broken copy use the real
venv's mkdocs (tests/helpers.py).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from attn_core import future_mask, scaled_dot_product_attention
from figures_src import lab3
from helpers import REPO, copy_project, mkdocs_build, whole_page

PAGE = "laby/lab-3/index.html"
SOURCE = REPO / "docs" / "laby" / "lab-3.py"
NUMBER = re.compile(r"-?\d+\.\d*(?:e-?\d+)?|-inf")
PRINT_TOL = 5e-4 + 1e-12   # np.set_printoptions(precision=3): half a unit in the last place


# --- helpers ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return BeautifulSoup(whole_page(built_site / PAGE), "html.parser")   # closed boxes put back


def outputs(page: BeautifulSoup) -> list[str]:
    """The text every code cell printed, in page order."""
    return [pre.get_text() for pre in page.select(".jupyter-wrapper .jp-OutputArea-output pre")]


def printed_block(page: BeautifulSoup, label: str) -> str:
    """The lines printed after `label` up to the next label (a line not starting with ' ' or '[')."""
    for text in outputs(page):
        if label in text:
            rest = text.split(label, 1)[1]
            lines = rest.splitlines()
            block = [lines[0]]
            for line in lines[1:]:
                if line and not line.startswith((" ", "[")):
                    break
                block.append(line)
            return "\n".join(block)
    raise AssertionError(f"no cell printed {label!r}")


def printed_matrix(page: BeautifulSoup, label: str) -> np.ndarray:
    rows = [[float(x) for x in NUMBER.findall(line)]
            for line in printed_block(page, label).splitlines() if NUMBER.search(line)]
    return np.array(rows)


def toy(mask=None):
    return scaled_dot_product_attention(lab3.TOY_X, lab3.TOY_X, lab3.TOY_X, mask=mask)


# --- the inputs module --------------------------------------------------------------------


# --- the notebook source ------------------------------------------------------------------


# --- the built page -----------------------------------------------------------------------


def test_math_in_the_lab_is_typeset_in_the_browser(server, browser):
    page = browser.new_page()
    page.goto(server + "/" + PAGE.removesuffix("index.html"), wait_until="networkidle")
    typeset = page.locator(".jupyter-wrapper .jp-RenderedMarkdown .arithmatex > math").count()
    left = page.evaluate("""() => [...document.querySelectorAll('.jupyter-wrapper .jp-RenderedMarkdown')]
        .map(c => c.innerText).join('\\n')""")
    page.close()
    assert typeset > 50
    assert "$" not in left, left[max(0, left.find("$") - 80):left.find("$") + 80]


# --- the plugin ---------------------------------------------------------------------------


@pytest.fixture
def mini_project(tmp_path) -> Path:
    """A project with a three-cell notebook, its own attn_core and figures_src."""
    root = tmp_path / "mini"
    (root / "docs" / "laby").mkdir(parents=True)
    (root / "attn_core").mkdir()
    (root / "figures_src").mkdir()
    (root / "attn_core" / "__init__.py").write_text("SCALE = 2\n")
    (root / "figures_src" / "__init__.py").write_text("")
    (root / "figures_src" / "mini.py").write_text("import numpy as np\nX = np.array([[1.0, 2.0]])\n")
    (root / "requirements.lock").write_text("numpy\n")
    (root / "docs" / "index.md").write_text("# Start\n")
    (root / "docs" / "laby" / "mini.py").write_text(
        '# %% [markdown]\n# # Mini\n#\n# Wynik: $x$.\n\n'
        '# %% tags=["inputs"]\nfrom figures_src.mini import X\n\n'
        '# %% tags=["solution"] exercise=1\nimport attn_core\nprint(X * attn_core.SCALE)\n\n'
        '# %% tags=["repo-only"]\nimport attn_core\n')
    return root


def run_hook(root: Path, cache: Path) -> tuple[str, float | None]:
    from anatomia_engine import notebooks

    source = root / "docs" / "laby" / "mini.py"
    built = notebooks.build(source, "docs/laby/mini.py", cache_dir=cache, root=root)
    return built.key, built.seconds


