"""Links and images everywhere: raw HTML, notebook cells and their output, Markdown.

The first tests check the checker (anatomia_engine/links.py) on a tiny hand-made site; the
others build a copy of the real project (with its computation cache) with one broken link
added, and expect the build to stop naming the page's file and line (and, on the notebook
page, the cell).
"""

from __future__ import annotations

from pathlib import Path

from anatomia_engine import lines, links

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
    text = ["Mówimy o a.png w tekście.", "", '<img src="a.png" alt="">', "[x](a.png)"]
    assert lines.locate(text, "a.png") == 3
    assert lines.locate(text, "a.png", first=4) == 4
    assert lines.locate(text, "b.png") is None
    assert lines.locate(["<a href=\"?a=1&amp;b=2\">"], "?a=1&b=2") == 1


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
    checker.pages.append(links.Page("a/index.html", good + bad, "docs/a.md", source))
    checker.pages.append(links.Page("b/index.html", '<p id="druga">x</p>', "docs/b.md"))
    problems = checker.check(site)
    found = [(problem.where, problem.id, problem.fields.get("target")) for problem in problems]
    assert found == [
        ('docs/a.md:3: <a href="../c/">', "link_not_built", "c/index.html"),
        ('docs/a.md:4: <img src="brak.svg">', "link_not_built", "a/brak.svg"),
        ('docs/a.md:5: <a href="../b/#trzecia">', "link_no_id", "b/index.html"),
        ('docs/a.md:6: <a href="#krok-2">', "link_no_id", "a/index.html"),
        ('docs/a.md:7: <a href="/b/">', "link_absolute", None),
    ]
    assert problems[2].fields["fragment"] == "trzecia" and problems[2].fields["hint"] == ""
    # the nearest id is offered
    assert "#krok-1" in problems[3].fields["hint"]


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
    checker.pages.append(links.Page("lab/index.html", page, "docs/lab.py", source))
    problems = checker.check(site)
    assert [problem.where for problem in problems] == [
        'docs/lab.py:9: notebook cell 2: <a href="brak.md">',
        'docs/lab.py:12: notebook cell 3 (its output): <a href="../wydruk/">']
    assert [problem.id for problem in problems] == ["link_not_built", "link_not_built"]
    # the hint points at the code that prints the link, not at the page
    assert "prints" in problems[1].fields["hint"]
