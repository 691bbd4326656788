"""MkDocs hook: every link and image in the final HTML points at a built file and id.

on_config:     adds the page's line to MkDocs's own link warnings (anatomia_engine/links.py).
on_post_page:  keeps each page's final HTML (after every other hook) for the check.
on_post_build: checks links and images in raw HTML, notebook cells and their output, and
               everything else MkDocs does not see; any broken one stops the build naming the
               page's file, line and, on a notebook page, the cell.
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page

from anatomia_engine import links, store

NOTEBOOK_DIR = "laby/"
_checker = links.Checker()


def _prefix(config: MkDocsConfig) -> str:
    root = Path(config.config_file_path).resolve().parent
    docs = Path(config.docs_dir).resolve()
    rel = os.path.relpath(docs, root)
    return "" if rel == "." else Path(rel).as_posix() + "/"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    global _checker
    root = Path(config.config_file_path).resolve().parent
    _checker = links.Checker(store.Store(root / ".cache" / "links", ".pickle"))
    links.install_line_filter(Path(config.docs_dir), _prefix(config), _checker)
    return config


def on_pre_build(config: MkDocsConfig) -> None:
    _checker.pages.clear()       # `mkdocs serve` builds again with the same config
    _checker.reported.clear()


@event_priority(-200)   # after every hook and plugin that changes the page (-100 is "last")
def on_post_page(output: str, page: Page, config: MkDocsConfig) -> str:
    src_uri = page.file.src_uri
    source = Path(config.docs_dir) / src_uri
    _checker.add(links.Page(
        dest=page.file.dest_uri, html=output,
        where=f"{_prefix(config)}{src_uri}" if source.is_file() else page.file.dest_uri,
        source=source if source.is_file() else None,
        notebook=src_uri.startswith(NOTEBOOK_DIR) and src_uri.endswith(".py")))
    return output


@event_priority(-200)   # after the hooks that add files to the site (search_pl writes at -100)
def on_post_build(config: MkDocsConfig) -> None:
    problems = _checker.check(Path(config.site_dir))
    _checker.pages.clear()
    if _checker.store is not None:
        _checker.store.prune()
    if problems:
        raise PluginError(f"{len(problems)} broken link(s) or image(s):\n" + "\n".join(problems))
