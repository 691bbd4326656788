"""The theme's compiled templates kept between builds (anatomia_engine/templates.py): read back
instead of compiled, never stale after an edit, compiled again when the entry is damaged."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from anatomia_engine import store
from anatomia_engine.templates import StoredBytecode


def _environment(folder: Path, kept: store.Store) -> tuple[jinja2.Environment, list[str]]:
    """A Jinja environment over `folder` with the stored cache, and the names it compiles."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder))
    env.bytecode_cache = StoredBytecode(kept)
    compiled = []
    compile_source = env.compile

    def compile_and_count(source, name=None, filename=None, *args, **kwargs):
        compiled.append(name)
        return compile_source(source, name, filename, *args, **kwargs)

    env.compile = compile_and_count
    return env, compiled


@pytest.fixture
def theme(tmp_path) -> Path:
    folder = tmp_path / "theme"
    folder.mkdir()
    (folder / "page.html").write_text("<h1>{{ title | upper }}</h1>", encoding="utf-8")
    return folder


def test_a_new_environment_reads_the_compiled_template_back(theme, tmp_path):
    kept = store.Store(tmp_path / "cache")
    first, compiled_first = _environment(theme, kept)
    second, compiled_second = _environment(theme, kept)
    assert first.get_template("page.html").render(title="uwaga") == "<h1>UWAGA</h1>"
    assert second.get_template("page.html").render(title="uwaga") == "<h1>UWAGA</h1>"
    assert compiled_first == ["page.html"]
    assert compiled_second == []


def test_an_edited_template_is_compiled_again(theme, tmp_path):
    kept = store.Store(tmp_path / "cache")
    first, _ = _environment(theme, kept)
    first.get_template("page.html").render(title="a")
    (theme / "page.html").write_text("<h2>{{ title }}</h2>", encoding="utf-8")
    second, compiled = _environment(theme, kept)
    assert second.get_template("page.html").render(title="a") == "<h2>a</h2>"
    assert compiled == ["page.html"]


def test_a_damaged_entry_is_compiled_again(theme, tmp_path):
    kept = store.Store(tmp_path / "cache")
    first, _ = _environment(theme, kept)
    first.get_template("page.html").render(title="a")
    [entry] = (tmp_path / "cache").iterdir()
    entry.write_bytes(entry.read_bytes()[:-5] + b"XXXXX")
    second, compiled = _environment(theme, kept)
    assert second.get_template("page.html").render(title="a") == "<h1>A</h1>"
    assert compiled == ["page.html"]
