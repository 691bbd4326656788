"""MkDocs hook: Material's stylesheets trimmed to what the built pages use (anatomia_engine/purge_css.py).

Runs after every other hook, the link check included (which reads the pages as written, naming
the theme's own stylesheets; `purge_site` checks its renaming itself). Skipped
under `mkdocs serve`, whose pages keep the whole stylesheet (a superset) and rebuild faster.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from anatomia_engine import cpu, purge_css

log = logging.getLogger("mkdocs.hooks.purge_css")
_serving = [False]


def on_startup(command: str, dirty: bool) -> None:
    _serving[0] = command == "serve"


@event_priority(-300)   # after hooks/links.py (-200)
def on_post_build(config: MkDocsConfig) -> None:
    if _serving[0]:
        return
    try:
        with cpu.thread_part("purge_css: Python side", children="purge_css: node (PurgeCSS)"):
            renamed = purge_css.purge_site(Path(config.site_dir))
    except purge_css.PurgeError as exc:
        raise PluginError(f"hooks/purge_css.py: {exc}") from None
    for old, (new, before, after) in renamed.items():
        log.debug("%s: %d -> %d bytes, now %s", old, before, after, new)
