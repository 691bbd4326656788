"""Links and images everywhere: raw HTML, notebook cells and their output, Markdown.

The checker on its own is tested in tests/unit/test_links.py; these tests build the fixture
project (tests/site/fixture) with one broken link added, and expect the build to stop naming the
page's file and line (and, on the notebook page, the cell).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import fixture_project, mkdocs_build

PAGE = "inne.md"
LAB = "laby/lab.py"


@pytest.fixture
def project(tmp_path) -> Path:
    return fixture_project(tmp_path / "proj")


def _append(project: Path, page: str, lines: list[str]) -> list[int]:
    """Append `lines` to the page after a blank line; the 1-based line number of each."""
    path = project / "docs" / page
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text += "\n"
    first = text.count("\n") + 2
    path.write_text(text + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return [first + n for n in range(len(lines))]


def _failed_build(project: Path, tmp_path: Path) -> str:
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode != 0, "the build should have stopped"
    return proc.stdout + proc.stderr


RAW_HTML = [   # each broken in its own way; one build reports them all, each at its line
    ('Zobacz <a href="../nie-ma-takiej-strony/">tę stronę</a>.',
     "<a href=\"../nie-ma-takiej-strony/\">: 'nie-ma-takiej-strony/index.html' is not in the built site"),
    ('<img src="../figures/demo/nie-ma.svg" alt="Rysunek, którego nie ma">',
     "<img src=\"../figures/demo/nie-ma.svg\">: 'figures/demo/nie-ma.svg' is not "
     "in the built site"),
    ('Wróć do <a href="#krok-99">kroku 99</a>.',
     "<a href=\"#krok-99\">: 'inne/index.html' has no element with id 'krok-99'"),
    ('Zobacz <a href="index.md">stronę główną</a>.',
     "<a href=\"index.md\">: 'inne/index.md' is not in the built site — in HTML write the "
     "address of the built page"),
]

MARKDOWN = [
    ("Zobacz [tę stronę](nie-ma.md).",
     "Doc file 'inne.md' contains a link 'nie-ma.md', but the target is not found"),
    ("![Rysunek](figures/demo/brak.svg)",
     "Doc file 'inne.md' contains a link 'figures/demo/brak.svg', but the target is not found"),
    ("Wróć do [kroku 98](#krok-98).",
     "Doc file 'inne.md' contains a link '#krok-98', but there is no such anchor on this page"),
    ("Zobacz [wstęp](index.md#nie-ma-takiej-sekcji).",
     "Doc file 'inne.md' contains a link 'index.md#nie-ma-takiej-sekcji', but the doc "
     "'index.md' does not contain an anchor '#nie-ma-takiej-sekcji'"),
]


def test_broken_links_stop_the_build_each_named_once_at_its_line(project, tmp_path):
    """Raw HTML links are found by the check of the final HTML; Markdown links by MkDocs,
    whose warnings get the line, and which the final-HTML check does not report again."""
    cases = RAW_HTML + MARKDOWN
    lines = _append(project, PAGE, [snippet for snippet, _ in cases])
    output = _failed_build(project, tmp_path)
    for line, (_, message) in zip(lines, cases, strict=True):
        assert f"docs/{PAGE}:{line}: {message}" in output, output[-3000:]
    for _, message in MARKDOWN:
        assert output.count(message.split("'")[3]) == 1, output[-3000:]
    assert re.search(rf"{len(RAW_HTML)} broken link\(s\) or image\(s\)", output), output[-3000:]


def test_correct_raw_html_links_and_images_pass(project, tmp_path):
    _append(project, PAGE, [
        '<a href="../#demo">Start</a> <a href="#inna-strona">ta strona</a>',
        '<img src="../figures/demo/bars-light.svg" alt="Dwa słupki">',
    ])
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_broken_links_in_a_notebook_name_the_cell(tmp_path):
    project = fixture_project(tmp_path / "proj", lab=True)
    lines = _append(project, LAB, [
        "# %% [markdown]",
        "# Więcej w [osobnej notatce](notatka.md).",
        "",
        "# %%",
        "from IPython.display import HTML",
        "display(HTML('<a href=\"../nie-ma/\">wydruk</a>'))",
    ])
    source = (project / "docs" / LAB).read_text(encoding="utf-8").splitlines()
    cells = sum(line.startswith("# %%") for line in source)   # the two new cells are the last
    output = _failed_build(project, tmp_path)
    assert (f"docs/{LAB}:{lines[1]}: notebook cell {cells - 1}: <a href=\"notatka.md\">: "
            "'laby/lab/notatka.md' is not in the built site") in output, output[-3000:]
    assert (f"docs/{LAB}:{lines[4]}: notebook cell {cells} (its output): <a href=\"../nie-ma/\">: "
            "'laby/nie-ma/index.html' is not in the built site") in output, output[-3000:]
    assert re.search(r"2 broken link\(s\) or image\(s\)", output), output[-3000:]
