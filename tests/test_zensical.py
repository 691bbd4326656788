"""Zensical (which reads mkdocs.yml, runs Markdown extensions and no MkDocs hooks) builds the
same text as MkDocs, or stops with an error saying what needs MkDocs; never a raw placeholder."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import copy_project, mkdocs_build, whole_page

ZENSICAL = Path(sys.executable).parent / "zensical"
pytestmark = pytest.mark.skipif(not ZENSICAL.exists(), reason="zensical is installed by the test extra")


def zensical_build(project: Path, **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | env
    return subprocess.run([str(ZENSICAL), "build", "--clean"], cwd=project, env=environ,
                          capture_output=True, text=True, timeout=900)


def visible(html: str) -> str:
    """The text a reader sees in the article, without code blocks."""
    body = html.split("<article", 1)[-1].split("</article>", 1)[0]
    body = re.sub(r"<(pre|code|script|style|annotation)\b.*?</\1>", " ", body, flags=re.DOTALL)
    return re.sub(r"<[^>]+>", " ", body)


def prose(html: str) -> str:
    """The visible text without math (where LaTeX has its own braces: \\frac{1}{\\sqrt{d_k}})."""
    return visible(re.sub(r'<(span|div) class="arithmatex">.*?</\1>', " ", html, flags=re.DOTALL))


def numbers(html: str) -> list[tuple[str, str]]:
    body = html.split("<article", 1)[-1].split("</article>", 1)[0]
    return re.findall(r'<span class="num"[^>]*data-exact="([^"]*)"[^>]*>([^<]*)</span>', body)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return copy_project(tmp_path_factory.mktemp("zensical") / "proj")


def test_zensical_stops_naming_the_page_that_needs_mkdocs(project):
    proc = zensical_build(project)
    assert proc.returncode != 0
    assert ("docs/laby/lab-3.py:1: this notebook page needs the MkDocs plugin mkdocs-jupyter"
            in proc.stdout + proc.stderr), (proc.stdout + proc.stderr)[-3000:]


def test_zensical_pages_show_the_numbers_and_text_of_the_mkdocs_build(project, tmp_path):
    proc = zensical_build(project, ANATOMIA_SKIP_NOTEBOOKS="1")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    built = mkdocs_build(project, tmp_path / "mkdocs")
    assert built.returncode == 0, built.stderr[-3000:]
    pages = sorted(p.relative_to(tmp_path / "mkdocs") for p in (tmp_path / "mkdocs").rglob("index.html"))
    compared = set()
    for rel in pages:
        z = project / "site" / rel
        m = whole_page(tmp_path / "mkdocs" / rel)    # Zensical moves no closed box out of a page
        if rel.parts[0] == "laby" or not z.exists() or 'class="num"' not in m:
            continue
        z = z.read_text()
        for mark in ("{{", "{%"):
            assert mark not in visible(z), f"{rel}: '{mark}' survived the Zensical build"
        for mark in ("}}", "%}"):
            assert mark not in prose(z), f"{rel}: '{mark}' survived the Zensical build"
        assert numbers(z) == numbers(m), rel
        assert " ".join(visible(z).split()).count("Rysunek") == " ".join(visible(m).split()).count("Rysunek")
        compared.add(rel.as_posix())
    assert {"krok-po-kroku/index.html", "posty/llm-mechanizm-uwagi/index.html"} <= compared, compared
    page = (project / "site" / "krok-po-kroku" / "index.html").read_text()
    assert page.count('src="data:image/svg+xml;base64,') >= 2, "figures are embedded in the page"


def test_a_false_claim_stops_the_zensical_build(project):
    page = project / "docs" / "krok-po-kroku.md"
    original = page.read_text()
    try:
        page.write_text(original.replace("{% claim weights[1][1] > weights[1][0] %}",
                                         "{% claim weights[1][1] < weights[1][0] %}"))
        proc = zensical_build(project, ANATOMIA_SKIP_NOTEBOOKS="1")
    finally:
        page.write_text(original)
    assert proc.returncode != 0
    assert re.search(r"docs/krok-po-kroku\.md:\d+: false claim", proc.stdout + proc.stderr)
    shutil.rmtree(project / "site", ignore_errors=True)
