"""MkDocs hook: the body of each large closed top-level `<details>` moves into a file beside the
page (anatomia_engine/lazy_details.py); docs/javascripts/lazy-details.js puts it back on opening.

on_post_page runs after the Polish search index (hooks/search_pl.py, priority 0) and the link
check (hooks/links.py, -200) have read the whole page, so search finds words that are only in a
moved body and every link and id is checked where it was written. The fragments are written
into the running build's site_dir before hooks/purge_css.py (on_post_build, -300) reads every
site/**/*.html: CSS used only inside a fragment stays, and the fragments' stylesheet links are
renamed with the pages'. Zensical runs no hooks: there nothing moves and pages stay whole.

What `split_page` makes of a page is stored (.cache/lazy_details/, keyed by the page's HTML and
the module's source, store.py): a build whose page did not change does not parse it again.
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page

from anatomia_engine import lazy_details, store

ROOT = Path(__file__).resolve().parents[1]
_split = store.Store(ROOT / ".cache" / "lazy_details", ".json")


def _split_page(output: str, where: str) -> tuple[str, dict[str, bytes]]:
    name = store.key(store.source_of(lazy_details), output)
    stored = _split.get(name, where)
    if stored is not None:
        kept = json.loads(stored)
        return kept["text"], {k: v.encode("utf-8") for k, v in kept["files"].items()}
    text, files, _ = lazy_details.split_page(output)
    kept = {"text": text, "files": {k: v.decode("utf-8") for k, v in files.items()}}
    _split.put(name, json.dumps(kept, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    return text, files


@event_priority(-250)   # after hooks/links.py (-200) and hooks/search_pl.py (0) read the page
def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    text, files = _split_page(output, page.file.src_uri)
    if not files:
        return output
    folder = Path(config.site_dir) / posixpath.dirname(page.file.dest_uri)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(files.items()):       # beside the page, named by content
        (folder / name).write_bytes(data)
    return text


def on_post_build(config: MkDocsConfig) -> None:
    _split.prune()
