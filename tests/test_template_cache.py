"""anatomia_engine/template_cache.py: compiled templates are used again only for the same
source and settings, a damaged entry is compiled again, and the site is the same bytes."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import jinja2
import pytest

from anatomia_engine import template_cache
from helpers import REPO, mkdocs_build


def environment(templates: Path, cache: Path, **settings) -> tuple[jinja2.Environment, list[str]]:
    """A Jinja environment with a TemplateCache; the list records each template it compiles."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates), **settings)
    compiled: list[str] = []
    compile_ = env.compile

    def counting(source, name=None, filename=None, *args, **kw):
        compiled.append(name)
        return compile_(source, name, filename, *args, **kw)

    env.compile = counting
    template_cache.attach(env, cache)
    return env, compiled


@pytest.fixture
def templates(tmp_path) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "page.html").write_text("{% for x in items %}<i>{{ x }}</i>{% endfor %}")
    return folder


def test_a_compiled_template_is_used_again_with_the_same_output(templates, tmp_path):
    env, compiled = environment(templates, tmp_path / "cache")
    first = env.get_template("page.html").render(items=[1, 2])
    assert compiled == ["page.html"] and len(list((tmp_path / "cache").glob("*.jinja"))) == 1
    env, compiled = environment(templates, tmp_path / "cache")           # the next build
    assert env.get_template("page.html").render(items=[1, 2]) == first == "<i>1</i><i>2</i>"
    assert compiled == []


def test_an_edited_template_is_compiled_again(templates, tmp_path):
    environment(templates, tmp_path / "cache")[0].get_template("page.html").render(items=[1])
    (templates / "page.html").write_text("{% for x in items %}<b>{{ x }}</b>{% endfor %}")
    env, compiled = environment(templates, tmp_path / "cache")
    assert env.get_template("page.html").render(items=[1]) == "<b>1</b>"
    assert compiled == ["page.html"]


@pytest.mark.parametrize("damage", ["truncated", "edited"])
def test_a_damaged_entry_is_reported_and_compiled_again(templates, tmp_path, caplog, damage):
    environment(templates, tmp_path / "cache")[0].get_template("page.html").render(items=[1])
    [entry] = (tmp_path / "cache").glob("*.jinja")
    data = entry.read_bytes()
    middle = len(data) // 2
    entry.write_bytes(data[:middle] if damage == "truncated"
                      else data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1:])
    with caplog.at_level(logging.WARNING, logger="anatomia_engine.store"):
        env, compiled = environment(templates, tmp_path / "cache")
        assert env.get_template("page.html").render(items=[3]) == "<i>3</i>"
    assert compiled == ["page.html"]
    assert "compiled template: " in caplog.text and "is damaged" in caplog.text


def test_other_syntax_settings_compile_their_own_entry(templates, tmp_path):
    (templates / "page.html").write_text("<% for x in items %>{{ x }}<% endfor %>")
    plain, _ = environment(templates, tmp_path / "cache")
    assert plain.get_template("page.html").render(x=5) == "<% for x in items %>5<% endfor %>"
    angled, compiled = environment(templates, tmp_path / "cache",
                                   block_start_string="<%", block_end_string="%>")
    assert angled.get_template("page.html").render(items=[1, 2]) == "12"
    assert compiled == ["page.html"]


def test_prune_drops_entries_no_template_of_the_build_used(templates, tmp_path):
    (templates / "other.html").write_text("x")
    env, _ = environment(templates, tmp_path / "cache")
    env.get_template("page.html")
    env.get_template("other.html")
    template_cache.prune()
    assert len(list((tmp_path / "cache").glob("*.jinja"))) == 2
    env, _ = environment(templates, tmp_path / "cache")
    env.get_template("page.html")
    template_cache.prune()
    assert len(list((tmp_path / "cache").glob("*.jinja"))) == 1
    failed, _ = environment(templates, tmp_path / "cache")      # a build that stopped early:
    failed.get_template("page.html")                            # no prune after it
    env, _ = environment(templates, tmp_path / "cache")
    env.get_template("other.html")
    env.get_template("page.html")
    template_cache.prune()                                      # the newest build decides
    assert len(list((tmp_path / "cache").glob("*.jinja"))) == 2


SITE_YML = """\
site_name: Demo
strict: true
theme: {name: material, language: pl, font: false}
hooks: [hooks/template_cache.py]
nav: [index.md]
"""


def test_the_hook_builds_the_same_site_from_a_cold_and_a_warm_cache(tmp_path):
    project = tmp_path / "proj"
    (project / "docs").mkdir(parents=True)
    (project / "hooks").mkdir()
    shutil.copy(REPO / "hooks" / "template_cache.py", project / "hooks" / "template_cache.py")
    (project / "mkdocs.yml").write_text(SITE_YML)
    (project / "docs" / "index.md").write_text("# Strona\n\nTekst.\n")
    cold = mkdocs_build(project, tmp_path / "cold")
    assert cold.returncode == 0, cold.stderr
    entries = sorted(p.name for p in (project / ".cache" / "templates").glob("*.jinja"))
    assert len(entries) > 10                                   # Material's partials, main.html, 404
    warm = mkdocs_build(project, tmp_path / "warm")
    assert warm.returncode == 0, warm.stderr
    assert sorted(p.name for p in (project / ".cache" / "templates").glob("*.jinja")) == entries
    files = sorted(p.relative_to(tmp_path / "cold") for p in (tmp_path / "cold").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "warm") for p in (tmp_path / "warm").rglob("*")
                           if p.is_file())
    for name in files:
        assert (tmp_path / "cold" / name).read_bytes() == (tmp_path / "warm" / name).read_bytes(), name
