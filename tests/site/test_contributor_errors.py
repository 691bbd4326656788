"""The built contributor page shows every message of the engine's catalogue, as the engine
writes it, with its cause and fix (the tables are generated; this checks the chain to the page)."""

import html
import re

from anatomia_engine import messages
from anatomia_engine.errors import EngineError
from helpers import whole_page


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def test_the_contributor_page_lists_every_catalogued_message(built_site):
    page = whole_page(built_site / "jak-dodac-wartosc" / "index.html")
    rows = {_text(code): _text(rest) for code, rest in
            re.findall(r"<tr>\s*<td[^>]*><code>(.*?)</code></td>(.*?)</tr>", page, re.DOTALL)}
    for m in messages.CATALOGUE.values():
        shown = " ".join(m.example().split())
        assert shown in rows, f"the page does not list {m.id!r}: {shown}"
        assert " ".join(m.cause.replace("`", "").split()) in rows[shown], m.id
        assert " ".join(m.fix.replace("`", "").split()) in rows[shown], m.id


def test_a_page_not_in_utf8_stops_the_build_with_its_line_not_a_traceback(tmp_path):
    """The plugin reads each page before MkDocs does (on_page_read_source)."""
    from helpers import fixture_project, mkdocs_build

    project = fixture_project(tmp_path / "project")
    (project / "docs" / "inne.md").write_bytes(b"# Inna strona\n\nZa\xbf\xf3\xb3\xe6 g\xea\xb6l\n")
    proc = mkdocs_build(project, tmp_path / "site", timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output[-2000:]
    # the page's third line, its third byte (0xbf: "ż" in CP1250)
    expected = EngineError("not_utf8", where="docs/inne.md:3", byte="0xbf", column=3)
    assert str(expected) in output, output[-2000:]
    assert "Traceback" not in output, output[-2000:]
