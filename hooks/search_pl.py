"""MkDocs hook: the Polish search index (anatomia_engine/search_pl.py) replaces Material's lunr index.

on_page_context: keeps each page's own `search:` front matter and sets `exclude: true` for
               Material's search plugin, whose lunr index would be thrown away (below).
on_post_page:  collects each page's search documents from its rendered article.
on_post_build: writes the index and the form table the worker reads on the first query, and
               turns Material's `search/search_index.json` into a stub that names them.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from anatomia_engine import search_pl, store

ROOT = Path(__file__).resolve().parents[1]
_sections = store.Store(ROOT / ".cache" / "search_pl" / "pages", ".json")
_docs: dict[str, list[dict]] = {}
_meta: dict[str, dict] = {}     # page url -> its own `search:` front matter


def on_pre_build(config):
    _docs.clear()
    _meta.clear()


@event_priority(100)   # before Material's search plugin (priority 0) reads `search:` of the page
def on_page_context(context, page, config, nav):
    _meta[page.url] = search_pl.own_search_meta(page.meta)
    return context


def on_post_page(output, page, config):
    _docs[page.url] = search_pl.docs_of_page(page.url, page.title, output, _meta.get(page.url, {}),
                                             _sections, page.file.src_uri)
    return output


@event_priority(-100)   # after Material's search plugin has written search_index.json
def on_post_build(config):
    try:
        search_pl.write_index(Path(config["site_dir"]), _docs, _sections)
    except FileNotFoundError as exc:
        raise PluginError(str(exc)) from exc
