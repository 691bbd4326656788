"""Writing the search files where the worker fetches them.

Material's `search` plugin writes `search/search_index.json`; this module turns it into a stub
that names two files of the site's own, fetched by the worker on the first query:
`search/pl-index.<hash>.json` (the documents) and `search/pl-forms.<hash>.json` (the form
table). The hash in each name lets a browser cache them for good.
"""

import hashlib
import json
from importlib.metadata import version
from pathlib import Path

from anatomia_engine import store
from anatomia_engine.errors import EngineError
from anatomia_engine.search_pl import forms, words
from anatomia_engine.search_pl.documents import site_words


def _json(obj) -> str:
    # One spelling of the same data, so that its hash, and so its file name, is stable.
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _in_order(docs_by_page: dict[str, list[dict]]) -> list[dict]:
    """Every page's documents, in the order of the pages' addresses, whichever order they were
    rendered in."""
    docs = []
    for url in sorted(docs_by_page):
        docs += docs_by_page[url]
    return docs


def write_index(site_dir: Path, docs_by_page: dict[str, list[dict]], cache: store.Store) -> None:
    """Write the documents and the form table and turn Material's `search_index.json` into a
    stub naming them; the form table comes from `cache` while the site's words stay the same."""
    search = Path(site_dir) / "search"
    stub = search / "search_index.json"
    # Without Material's search plugin there is no search box to serve: say so, not crash.
    if not stub.exists():
        raise EngineError("search_disabled", path=stub)
    config = json.loads(stub.read_text(encoding="utf-8"))["config"]
    docs = _in_order(docs_by_page)
    shipped_forms = _form_table(site_words(docs), cache)
    # An earlier --dirty build's files, under other hashes.
    for old in search.glob("pl-*.json"):
        old.unlink()
    files = {
        "pl-index": _json({"docs": docs}),
        "pl-forms": shipped_forms.decode("utf-8"),
    }
    for kind, text in files.items():
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        name = f"{kind}.{digest[:10]}.json"
        config[kind.replace("-", "_")] = name
        (search / name).write_text(text, encoding="utf-8")
    # Material's own documents go: the worker searches ours, and the page would fetch both.
    stub_text = json.dumps({"config": config, "docs": []}, sort_keys=True)
    stub.write_text(stub_text, encoding="utf-8")


# This process's form table, by the key of the code that builds it: a build under serve
# updates the last build's table with the words that changed.
_kept: dict[str, forms.FormTable] = {}


def _keys(counts) -> tuple[str, str, str]:
    """The store keys of the form table: the code that builds it, the dictionary's answers (the
    memo), and the table of `counts`."""
    code_key = store.code_key(forms, words)
    code = store.key(code_key, f"morfeusz2-{version('morfeusz2')}")
    memo_key = store.key(code, "morphology")
    # by what the table is built from: an edited number leaves it as it was
    table_key = store.key(code, _json(sorted(counts.items())))
    return code, memo_key, table_key


def _kept_table(code: str, memo: bytes | None) -> forms.FormTable:
    """This process's table for `code`, or a new one that starts from the stored memo."""
    table = _kept.get(code)
    if table is None:
        lookups = None
        if memo:
            lookups = json.loads(memo)
        table = forms.FormTable(forms.Morphology(lookups))
        _kept.clear()
        _kept[code] = table
    return table


def _form_table(site: list[str], cache: store.Store) -> bytes:
    """The shipped form table of the site's words: stored, or built and stored.

    Keyed by the code that builds it and the dictionary's version; the dictionary's answers
    (the memo) are kept apart, so that a new word looks up only itself. Within one process
    the table itself is kept too, so that a new word costs its own lexemes' work.
    """
    counts = forms.word_counts(site)
    code, memo_key, table_key = _keys(counts)
    # Read even when the table is stored, so that pruning keeps it for the next new word.
    memo = cache.get(memo_key, "search/morphology")
    shipped = cache.get(table_key, "search/pl-forms")
    if shipped is not None:
        return shipped
    table = _kept_table(code, memo)
    table.update(counts)
    shipped = _json(table.encoded()).encode("utf-8")
    # the dictionary's answers as this process knows them, once they have grown
    if memo is None or table.morphology.grown:
        cache.put(memo_key, _json(table.morphology.memo).encode("utf-8"))
        table.morphology.grown = False
    cache.put(table_key, shipped)
    return shipped


def keep_table(docs_by_page: dict[str, list[dict]], cache: store.Store) -> None:
    """Under serve, after the first build: this process's form table of the site's words, made
    now with its index of shared forms, and the dictionary loaded, for the first save that brings
    a new word. (The first build found the table stored: without this, that save would build it
    from nothing.)"""
    counts = forms.word_counts(site_words(_in_order(docs_by_page)))
    code, memo_key, _ = _keys(counts)
    table = _kept_table(code, cache.get(memo_key, "search/morphology"))
    table.update(counts)
    table.index_forms()
    # A table made from the stored memo asked the dictionary nothing, so it is not loaded yet:
    # loaded now, not by the first save that brings a word the memo does not hold (0,07-0,16 s).
    forms.dictionary()
