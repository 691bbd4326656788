"""MkDocs hook: the Polish search index (anatomia_engine/search_pl.py) replaces Material's lunr index.

on_serve:      under `mkdocs serve`, once the first build is done, loads simplemma's dictionary
               in the background, so the first new word an author types does not make that
               rebuild wait for it (~1.6 s).
on_page_context: keeps each page's own `search:` front matter and sets `exclude: true` for
               Material's search plugin, whose lunr index would be thrown away (below): with its
               own documented switch it no longer parses every page on every build.
on_post_page:  collects each page's sections from its rendered article.
on_post_build: writes `search/pl-index.<hash>.json` (documents + lemma table), read by the worker
               `assets/javascripts/workers/search-pl.js` only when the reader types a query, and
               turns Material's `search/search_index.json`, which its bundle fetches on every page
               load, into a stub that only names that file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from anatomia_engine import cpu, search_pl, store

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "search_pl"
_docs: dict[str, list[dict]] = {}
_sections = store.Store(CACHE / "pages", ".json")   # page_docs by page HTML; the index by its docs


_meta: dict[str, dict] = {}     # page url -> its own `search:` front matter


def on_pre_build(config):
    _docs.clear()
    _meta.clear()
    if not _lemma_file().exists():      # a first build: load the dictionary while the modules run
        search_pl.load_dictionary_in_background()


def on_serve(server, config, builder):
    """After the first build: the author's next edit may bring a word no build has looked up."""
    search_pl.load_dictionary_in_background()
    return server


def _lemma_file() -> Path:
    return CACHE / f"lemmas-simplemma-{search_pl._simplemma_version()}.json"


@event_priority(100)   # before Material's search plugin (priority 0) reads `search:` of the page
def on_page_context(context, page, config, nav):
    own = page.meta.get("search") or {}
    _meta[page.url] = own
    page.meta["search"] = {**own, "exclude": True}
    return context


def on_post_page(output, page, config):
    meta = _meta.get(page.url, {})           # Material's front matter: search: {exclude: true, boost: 2}
    if meta.get("exclude"):
        return output
    title = search_pl.tex_to_text(re.sub(r"<[^>]+>", "", page.title or ""))
    name = store.key(store.source_of(search_pl), page.url, title, output)
    stored = _sections.get(name, page.file.src_uri)
    if stored is not None:
        docs = json.loads(stored)
    else:
        with cpu.thread_part("search: sections of each page"):
            docs = search_pl.page_docs(page.url, title, output)
        _sections.put(name, json.dumps(docs, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    if "boost" in meta:
        for doc in docs:
            doc["boost"] = float(meta["boost"])
    _docs[page.url] = docs
    return output


@event_priority(-100)   # after Material's search plugin has written search_index.json
def on_post_build(config):
    site = Path(config["site_dir"])
    stub = site / "search" / "search_index.json"
    if not stub.exists():
        raise PluginError(f"{stub} is missing: the 'search' plugin must stay enabled in mkdocs.yml")
    material = json.loads(stub.read_text(encoding="utf-8"))
    version = search_pl._simplemma_version()
    docs = [d for url in sorted(_docs) for d in _docs[url]]
    key = store.key(store.source_of(search_pl), version, json.dumps(docs, ensure_ascii=False, sort_keys=True))
    text = (_sections.get(key, "search/pl-index") or b"").decode("utf-8")
    if not text:
        with cpu.thread_part("search: index and lemma table"):
            lemmatiser = search_pl.Lemmatiser(_lemma_file())
            text = search_pl.dump(search_pl.build_index(docs, lemmatiser))[1]
            lemmatiser.save()
        _sections.put(key, text.encode("utf-8"))
    name = search_pl.index_name(text)
    _sections.prune()
    for old in stub.parent.glob("pl-index.*.json"):
        old.unlink()
    (stub.parent / name).write_text(text, encoding="utf-8")
    config_stub = {**material["config"], "lang": ["pl"], "pl_index": name}
    stub.write_text(json.dumps({"config": config_stub, "docs": []}, sort_keys=True), encoding="utf-8")
