"""anatomia_engine/notebooks/conversion.py: mkdocs-jupyter's conversion of a notebook page, kept in
the store by the key of all that produced it, filled back into the page; a damaged or another key's
entry is converted again."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys

import pytest
from mkdocs.structure.toc import get_toc

from anatomia_engine import notebooks, store
from tests.helpers import REPO

EXECUTED = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
OPTIONS = {"include": ["page.ipynb"], "execute": False, "no_prompt": True, "theme": ""}
TOKENS = [{"level": 1, "id": "mini-lab", "name": "Mini lab",
           "children": [{"level": 2, "id": "wagi", "name": "Wagi &amp; skale", "children": []}]}]


def test_the_key_follows_every_input_of_the_conversion():
    key = notebooks.conversion_key(EXECUTED, "laby/lab.py", OPTIONS)
    assert key == notebooks.conversion_key(EXECUTED, "laby/lab.py", dict(OPTIONS))
    others = [
        notebooks.conversion_key(EXECUTED.replace(b"{}", b'{"a": 1}'), "laby/lab.py", OPTIONS),   # outputs
        notebooks.conversion_key(EXECUTED, "laby/inny.py", OPTIONS),                              # page
        notebooks.conversion_key(EXECUTED, "laby/lab.py", {**OPTIONS, "no_prompt": False}),       # option
        notebooks.conversion_key(EXECUTED, "laby/lab.py", {**OPTIONS, "theme": "dark"}),
    ]
    assert len({key, *others}) == 1 + len(others)   # every change makes a key of its own


def test_the_key_follows_the_converting_libraries(monkeypatch):
    versions = notebooks.converter_versions()
    names = {entry.split("==")[0] for entry in versions}
    assert {"mkdocs-jupyter", "nbconvert", "mistune", "pygments"} <= names   # its requirements, transitively
    key = notebooks.conversion_key(EXECUTED, "laby/lab.py", OPTIONS)
    upgraded = tuple(v if not v.startswith("nbconvert==") else "nbconvert==999" for v in versions)
    monkeypatch.setattr(notebooks.conversion, "converter_versions", lambda: upgraded)
    assert notebooks.conversion_key(EXECUTED, "laby/lab.py", OPTIONS) != key


class Page:
    """What keep_conversion touches of a MkDocs page whose render mkdocs-jupyter replaced."""

    def __init__(self):
        self.content = None
        self.toc = get_toc([])
        self.converted = 0

        def convert(config, files):   # as mkdocs-jupyter's render: content, toc, title from the h1
            self.converted += 1
            self.content = '<div class="jupyter-wrapper">Mini lab</div>'
            self.toc = get_toc(TOKENS)
            self.title = "Mini lab"

        self.render = convert


def rendered(entries: store.Store, name: str) -> Page:
    page = Page()
    notebooks.keep_conversion(page, entries, name, "docs/laby/lab.py")
    page.render(None, None)
    return page


def same(one: Page, two: Page) -> bool:
    return (one.content, one.title, str(one.toc)) == (two.content, two.title, str(two.toc))


def test_a_stored_conversion_fills_the_page_as_converting_did(tmp_path):
    entries = store.Store(tmp_path, ".html")
    first = rendered(entries, "k1")
    assert first.converted == 1 and first.title == "Mini lab"
    again = rendered(store.Store(tmp_path, ".html"), "k1")
    assert again.converted == 0 and same(again, first)
    assert [(link.title, link.id, [c.title for c in link.children]) for link in again.toc] == \
        [("Mini lab", "mini-lab", ["Wagi &amp; skale"])]
    assert rendered(store.Store(tmp_path, ".html"), "k2").converted == 1   # another key: converted


@pytest.mark.parametrize("damage", ["flipped", "truncated", "another key's", "not json"])
def test_a_damaged_or_foreign_entry_is_converted_again(tmp_path, caplog, damage):
    entries = store.Store(tmp_path, ".html")
    first = rendered(entries, "k1")
    path = entries.path("k1")
    if damage == "flipped":
        data = bytearray(path.read_bytes())
        data[-5] ^= 1
        path.write_bytes(bytes(data))
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:-10])
    elif damage == "another key's":
        rendered(entries, "k2")
        shutil.copy(entries.path("k2"), path)
    else:
        entries.put("k1", b'{"content": 1}')
    with caplog.at_level(logging.WARNING):
        again = rendered(store.Store(tmp_path, ".html"), "k1")
    assert again.converted == 1 and same(again, first)
    assert "docs/laby/lab.py" in caplog.text


def test_a_title_the_conversion_does_not_set_is_left_as_it_was(tmp_path):
    class Untitled(Page):
        def __init__(self):
            super().__init__()
            self.title = "Z nawigacji"
            convert = self.render

            def without_title(config, files):
                convert(config, files)
                del self.title
            self.render = without_title

    entries = store.Store(tmp_path, ".html")
    for _ in range(2):   # converted, then from the store
        page = Untitled()
        notebooks.keep_conversion(page, entries, "k", "docs/laby/lab.py")
        page.render(None, None)
        assert page.title == "Z nawigacji"


# Loads the site's configuration (every plugin of mkdocs.yml imported, as a build starts) with
# nbconvert's exporter lookup counted; prints how many lookups were made.
COUNT_LOOKUPS = """
import nbconvert.exporters.base as base
looked_up = []
original = base.get_exporter
def counted(*args, **kwargs):
    looked_up.append(args)
    return original(*args, **kwargs)
base.get_exporter = counted
import properdocs.replacement
from properdocs.config import load_config
load_config(config_file="mkdocs.yml")
import sys
assert "mkdocs_jupyter.nbconvert2" in sys.modules, "mkdocs-jupyter was not loaded"
print(len(looked_up))
"""


def test_loading_the_site_makes_no_nbconvert_exporter_to_list_the_formats():
    # the build's environment, without the variable set for it
    env = {k: v for k, v in os.environ.items() if k != "NBCONVERT_DISABLE_CONFIG_EXPORTERS"}
    env |= {"PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-c", COUNT_LOOKUPS], cwd=REPO, env=env,
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["0"], done.stderr
