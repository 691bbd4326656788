"""MkDocs hook: the body of each large closed top-level `<details>` moves into a file beside the
page (anatomia_engine/lazy_details.py); docs/javascripts/lazy-details.js puts it back on opening.

on_post_page runs after the Polish search index (hooks/search_pl.py, priority 0) and the link
check (hooks/links.py, -200) have read the whole page, so search finds words that are only in a
moved body and every link and id is checked where it was written. The fragments are written
into the running build's site_dir before hooks/purge_css.py (on_post_build, -300) reads every
site/**/*.html: CSS used only inside a fragment stays, and the fragments' stylesheet links are
renamed with the pages'. Zensical runs no hooks: there nothing moves and pages stay whole.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page

from anatomia_engine import lazy_details


@event_priority(-250)   # after hooks/links.py (-200) and hooks/search_pl.py (0) read the page
def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    text, files, _ = lazy_details.split_page(output)
    if not files:
        return output
    folder = Path(config.site_dir) / posixpath.dirname(page.file.dest_uri)
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in sorted(files.items()):       # beside the page, named by content
        (folder / name).write_bytes(data)
    return text
