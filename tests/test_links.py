"""Links and images everywhere: raw HTML, notebook cells and their output, Markdown.

The first tests check the checker (anatomia_engine/links.py) on a tiny hand-made site; the
others build a copy of the real project (with its computation cache) with one broken link
added, and expect the build to stop naming the page's file and line (and, on the notebook
page, the cell).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from anatomia_engine import links
from helpers import copy_project, mkdocs_build

# --- the checker on its own --------------------------------------------------------------


def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    site = tmp_path / "site"
    for dest, text in pages.items():
        (site / dest).parent.mkdir(parents=True, exist_ok=True)
        (site / dest).write_text(text, encoding="utf-8")
    return site


def test_resolve_follows_the_page_address():
    files = {"index.html", "a/index.html", "a/fig.svg", "b/index.html"}
    assert links.resolve("a/index.html", "../b/", files)[0] == "b/index.html"
    assert links.resolve("a/index.html", "../b", files)[0] == "b/index.html"
    assert links.resolve("a/index.html", "fig.svg", files)[0] == "a/fig.svg"
    assert links.resolve("a/index.html", "../", files)[0] == "index.html"
    assert links.resolve("a/index.html", "#x", files) == ("a/index.html", "a/index.html", "x")
    assert links.resolve("a/index.html", "fig%2Esvg?v=1#t", files)[0] == "a/fig.svg"
    assert links.resolve("a/index.html", "../../outside.html", files)[0] is None
    assert links.resolve("a/index.html", "b/", files) == (None, "a/b/index.html", "")


def test_parse_reads_every_kind_of_link_and_the_notebook_cell():
    parsed = links.parse(
        '<p id="top"><a name="old"></a><img src="a.png" srcset="b.png 2x, c.png 3x">'
        '<script src="s.js"></script><code>&lt;a href="not-a-link"&gt;</code></p>'
        '<div class="jp-Cell jp-MarkdownCell" id="cell-id=cell-4"><a href="in-cell.html">x</a></div>'
        '<div class="jp-Cell jp-CodeCell" id="cell-id=cell-5"><pre>code</pre>'
        '<div class="jp-Cell-outputWrapper"><div><a href="printed.html">y</a></div></div></div>'
        '<div class="jp-Cell jp-RawCell" id="cell-id=cell-5-end"><a href="raw.html">z</a></div>')
    assert parsed.ids == {"top", "old", "cell-id=cell-4", "cell-id=cell-5", "cell-id=cell-5-end"}
    found = [(link.url, link.cell, link.in_output) for link in parsed.links]
    assert found == [("a.png", None, False), ("b.png", None, False), ("c.png", None, False),
                     ("s.js", None, False), ("in-cell.html", 4, False), ("printed.html", 5, True),
                     ("raw.html", None, False)]


def test_locate_prefers_the_link_over_plain_text():
    lines = ["Mówimy o a.png w tekście.", "", '<img src="a.png" alt="">', "[x](a.png)"]
    assert links.locate(lines, "a.png") == 3
    assert links.locate(lines, "a.png", first=4) == 4
    assert links.locate(lines, "b.png") is None
    assert links.locate(["<a href=\"?a=1&amp;b=2\">"], "?a=1&b=2") == 1


def test_checker_reports_missing_files_and_ids_and_accepts_the_rest(tmp_path):
    good = ('<h2 id="krok-1">x</h2><a href="../b/#druga">ok</a><img src="fig.svg">'
            '<a href="https://example.org/nie-ma">zewnętrzny</a><a href="mailto:a@b.pl">m</a>'
            '<a href="#krok-1">ok</a><a href="#">góra</a>')
    bad = ('<a href="../c/">brak strony</a><img src="brak.svg"><a href="../b/#trzecia">brak id</a>'
           '<a href="#krok-2">brak id tutaj</a><a href="/b/">absolutny</a>')
    site = _site(tmp_path, {"a/index.html": good + bad, "a/fig.svg": "<svg/>",
                            "b/index.html": '<p id="druga">x</p>'})
    source = tmp_path / "a.md"
    source.write_text("tekst\n" + good + "\n" + bad.replace("><", ">\n<") + "\n", encoding="utf-8")
    checker = links.Checker()
    checker.add(links.Page("a/index.html", good + bad, "docs/a.md", source))
    checker.add(links.Page("b/index.html", '<p id="druga">x</p>', "docs/b.md"))
    problems = checker.check(site)
    assert problems == [
        "docs/a.md:3: <a href=\"../c/\">: 'c/index.html' is not in the built site — check the path: "
        "it is relative to the built page's address, not to the source file",
        "docs/a.md:4: <img src=\"brak.svg\">: 'a/brak.svg' is not in the built site — check the path: "
        "it is relative to the built page's address, not to the source file",
        "docs/a.md:5: <a href=\"../b/#trzecia\">: 'b/index.html' has no element with id 'trzecia'",
        "docs/a.md:6: <a href=\"#krok-2\">: 'a/index.html' has no element with id 'krok-2' — did you "
        "mean '#krok-1'?",
        "docs/a.md:7: <a href=\"/b/\">: an absolute path; it breaks when the site is not at the root "
        "of its server — write it relative to the page",
    ]


def test_checker_names_the_notebook_cell_and_its_line(tmp_path):
    source = tmp_path / "lab.py"
    source.write_text("# ---\n# jupyter: {}\n# ---\n\n# %% [markdown]\n# Tytuł\n\n"
                      "# %% [markdown]\n# Zobacz [to](brak.md).\n\n# %%\nprint_link()\n",
                      encoding="utf-8")
    page = ('<div class="jp-Cell" id="cell-id=cell-0"><h1 id="tytul">Tytuł</h1></div>'
            '<div class="jp-Cell" id="cell-id=cell-1"><a href="brak.md">to</a></div>'
            '<div class="jp-Cell" id="cell-id=cell-2"><div class="jp-OutputArea">'
            '<a href="../wydruk/">w</a></div></div>')
    site = _site(tmp_path, {"lab/index.html": page})
    checker = links.Checker()
    checker.add(links.Page("lab/index.html", page, "docs/lab.py", source, notebook=True))
    problems = checker.check(site)
    assert len(problems) == 2
    assert problems[0].startswith("docs/lab.py:9: notebook cell 2: <a href=\"brak.md\">")
    assert problems[1].startswith("docs/lab.py:12: notebook cell 3 (its output): <a href=\"../wydruk/\">")
    assert "the cell's code prints this link" in problems[1]


# --- a copy of the real project ----------------------------------------------------------

PAGE = "krok-po-kroku.md"
LAB = "laby/lab-3.py"


@pytest.fixture
def project(tmp_path) -> Path:
    return copy_project(tmp_path / "proj")


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


@pytest.mark.parametrize("snippet, message", [
    ('Zobacz <a href="../nie-ma-takiej-strony/">tę stronę</a>.',
     "<a href=\"../nie-ma-takiej-strony/\">: 'nie-ma-takiej-strony/index.html' is not in the built site"),
    ('<img src="../figures/worked_example/nie-ma.svg" alt="Rysunek, którego nie ma">',
     "<img src=\"../figures/worked_example/nie-ma.svg\">: 'figures/worked_example/nie-ma.svg' is not "
     "in the built site"),
    ('Wróć do <a href="#krok-99">kroku 99</a>.',
     "<a href=\"#krok-99\">: 'krok-po-kroku/index.html' has no element with id 'krok-99'"),
    ('Zobacz <a href="index.md">stronę główną</a>.',
     "<a href=\"index.md\">: 'krok-po-kroku/index.md' is not in the built site — in HTML write the "
     "address of the built page"),
], ids=["raw-html-link", "raw-html-image", "raw-html-anchor", "raw-html-md-link"])
def test_broken_raw_html_stops_the_build_with_file_and_line(project, tmp_path, snippet, message):
    (line,) = _append(project, PAGE, [snippet])
    output = _failed_build(project, tmp_path)
    assert f"docs/{PAGE}:{line}: {message}" in output, output[-3000:]


@pytest.mark.parametrize("snippet, message", [
    ("Zobacz [tę stronę](nie-ma.md).",
     "Doc file 'krok-po-kroku.md' contains a link 'nie-ma.md', but the target is not found"),
    ("Wróć do [kroku 99](#krok-99).",
     "Doc file 'krok-po-kroku.md' contains a link '#krok-99', but there is no such anchor on this page"),
    ("Zobacz [wstęp](index.md#nie-ma-takiej-sekcji).",
     "Doc file 'krok-po-kroku.md' contains a link 'index.md#nie-ma-takiej-sekcji', but the doc "
     "'index.md' does not contain an anchor '#nie-ma-takiej-sekcji'"),
], ids=["markdown-link", "markdown-anchor", "markdown-anchor-other-page"])
def test_mkdocs_link_warnings_name_the_line(project, tmp_path, snippet, message):
    (line,) = _append(project, PAGE, [snippet])
    output = _failed_build(project, tmp_path)
    assert f"docs/{PAGE}:{line}: {message}" in output, output[-3000:]
    # MkDocs reported it already; the final-HTML check does not say it a second time.
    assert output.count(message.split("'")[3]) == 1, output[-3000:]


def test_correct_raw_html_links_and_images_pass(project, tmp_path):
    _append(project, PAGE, [
        '<a href="../#od-czego-zacząć">Start</a> <a href="#krok-1-embeddingi-tokenów">krok 1</a>',
        '<img src="../figures/worked_example/embedding_plane-light.svg" alt="Embeddingi">',
    ])
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_broken_links_in_a_notebook_name_the_cell(project, tmp_path):
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
            "'laby/lab-3/notatka.md' is not in the built site") in output, output[-3000:]
    assert (f"docs/{LAB}:{lines[4]}: notebook cell {cells} (its output): <a href=\"../nie-ma/\">: "
            "'laby/nie-ma/index.html' is not in the built site") in output, output[-3000:]
    assert re.search(r"2 broken link\(s\) or image\(s\)", output), output[-3000:]
