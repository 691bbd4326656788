"""A contributor's mistake stops the build with a message from the catalogue that names the file
(and line) and the fix, never a traceback or a misleading message: a page not in UTF-8, lists nested
too deep, a front-matter key given twice, a value several modules compute, the plugin missing from
mkdocs.yml, `live: true` on an ordinary page."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import markdown as pymd
import numpy as np
import pytest
from mkdocs.exceptions import BuildError

from anatomia_engine import frontmatter, live, sources
from anatomia_engine.errors import EngineError
from helpers import convert_page


@pytest.mark.parametrize(("data", "line", "byte", "column"), [
    (b"# Tytu\xb3\n", 1, "0xb3", 7),
    (b"# A\n\nZa\xbf\xf3\xb3\xe6 g\xea\xb6l\n", 3, "0xbf", 3),
    (b"ok\n\xff", 2, "0xff", 1),
])
def test_a_page_not_in_utf8_names_its_line_and_the_fix(tmp_path, data, line, byte, column):
    page = tmp_path / "strona.md"
    page.write_bytes(data)
    with pytest.raises(EngineError) as info:
        sources.read_page(page, "docs/strona.md")
    assert info.value.id == "not_utf8" and info.value.where == f"docs/strona.md:{line}"
    assert info.value.fields == {"byte": byte, "column": column}


@pytest.mark.parametrize("text", [
    "# A\n\n" + "\n".join("    " * i + "- x" for i in range(300)),
    "# A\n\n" + ">" * 500 + " x\n",
    "# A\n\n" + "\n".join("\t" * i + "1. x" for i in range(60)),
])
def test_nesting_too_deep_for_markdown_names_its_line(tmp_path, text):
    page = tmp_path / "strona.md"
    page.write_text(text, encoding="utf-8")
    with pytest.raises(EngineError) as info:
        sources.read_page(page, "docs/strona.md")
    assert info.value.id == "too_deep" and info.value.where.startswith("docs/strona.md:")
    assert info.value.fields["depth"] > info.value.fields["most"] == sources.MAX_DEPTH


def test_deep_indentation_inside_a_fence_is_code_not_nesting(tmp_path):
    page = tmp_path / "strona.md"
    page.write_text("# A\n\n```python\n" + " " * 120 + "x = 1\n```\n\n- a\n    - b\n", encoding="utf-8")
    assert sources.read_page(page, "docs/strona.md").startswith("# A")


@pytest.mark.parametrize(("head", "key", "line"), [
    ("---\ntitle: A\ntitle: B\n---\n", "title", 3),
    ("---\ncomputed: [demo]\ndescription: x\ncomputed: [demo]\n---\n", "computed", 4),
    ("---\nsearch:\n  boost: 2\n  boost: 3\n---\n", "boost", 4),
])
def test_a_front_matter_key_given_twice_is_refused_with_its_line(head, key, line):
    with pytest.raises(EngineError) as info:
        frontmatter.front_matter(head + "# A\n", "docs/a.md")
    assert info.value.id == "fm_duplicate" and info.value.where == f"docs/a.md:{line}"
    assert info.value.fields["key"] == key


def test_a_value_two_modules_compute_is_not_called_unknown():
    one = SimpleNamespace(values={"weight": 0.5}, meta={}, figures={}, folder=Path("."), files=[])
    two = SimpleNamespace(values={"weight": np.float64(0.25)}, meta={}, figures={}, folder=Path("."),
                          files=[])
    body = "# A\n\n{{ weight }}\n"
    with pytest.raises(BuildError) as info:
        convert_page(body, body, {"a": one, "b": two}, uri="a.md")
    message = str(info.value)
    assert "unknown" not in message and "more than one module (a, b)" in message, message
    assert "{{ a.weight }}" in message and "computed:" in message


def test_placeholders_without_the_plugin_name_mkdocs_yml_and_plugins():
    with pytest.raises(EngineError) as info:
        pymd.Markdown(extensions=["anatomia_engine.markdown"]).convert("# A\n\n{{ weight }}\n")
    assert info.value.id == "needs_page"


def test_live_true_on_an_ordinary_page_names_its_source_and_the_fix(tmp_path):
    file = SimpleNamespace(src_uri="inne.md", dest_uri="inne/index.html")
    page = SimpleNamespace(meta={"live": True}, file=file)
    config = SimpleNamespace(docs_dir=str(tmp_path / "docs"), site_dir=str(tmp_path / "site"))
    with pytest.raises(BuildError) as info:
        live.publish("<html><article><p>tekst</p></article></html>", page, config)
    assert info.value.id == "live_without_example", str(info.value)
    assert info.value.where == "docs/inne.md" and info.value.fields == {"root": live.ROOT_ID}
