"""The notebook's build step: its copies from the store while the kernel's record holds.

An entry is keyed by the notebook's path and its download link; it holds the page copy, the
download copy, the figures and the kernel's record of what it read (deps.py). The record is
checked on every build: any file it names changed (the notebook, attn_core, this package) and
the notebook is executed again.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

from anatomia_engine import deps, placeholders, sources, store
from anatomia_engine import messages as M
from anatomia_engine.notebooks import copies, kernel

log = logging.getLogger("anatomia_engine.notebooks")


@dataclass(frozen=True)
class Built:
    # names the entry and its record: it changes when the outputs may
    key: str
    # the executed page copy (.ipynb) for mkdocs-jupyter
    page: str
    # the copy readers download
    download: str
    # the page's figures, files beside it
    figures: dict[str, bytes]
    # time spent executing; None when it came from the store
    seconds: float | None
    # what the kernel read (deps.py's record)
    deps: dict


def build(source: Path, where: str, cache_dir: Path, root: Path, download_href: str,
          download_name: str) -> Built:
    """The page and download copies of the notebook at `source`: from the store while the
    kernel's record holds, else executed and stored."""
    # UTF-8, or file:line
    sources.read_text(source, where)
    # Its Markdown cells are rendered by nbconvert, not by the placeholder language.
    placeholders.refuse_in_notebook(source, where)
    entries = store.Store(cache_dir, ".json")
    relative = os.path.relpath(source.resolve(), root.resolve())
    name = store.key("notebook", relative, download_href, download_name)
    entry = _stored(entries, name, where, root)
    seconds = None
    if entry is None:
        started = time.perf_counter()
        entry = _executed(source, where, root, download_href, download_name)
        seconds = time.perf_counter() - started
        entries.put(name, json.dumps(entry, ensure_ascii=False).encode("utf-8"))
    figures = {}
    for file, data in entry["figures"].items():
        figures[file] = base64.b64decode(data)
    key = store.key(name, json.dumps(entry["deps"], sort_keys=True))
    return Built(key, entry["page"], entry["download"], figures, seconds, entry["deps"])


def _stored(entries: store.Store, name: str, where: str, root: Path) -> dict | None:
    """The stored entry `name` if its record still holds, else None."""
    body = entries.get(name, where)
    if body is None:
        return None
    # The store checked the entry's checksum; a sound entry of another layout is still no use.
    try:
        entry = json.loads(body)
        changed = deps.problem(entry["deps"], root, kernel.kernel_environment(root))
    except (ValueError, KeyError, TypeError) as exc:
        log.warning(M.text("stored_notebook", where=where, problem=exc))
        return None
    if changed is not None:
        return None
    return entry


def _executed(source: Path, where: str, root: Path, download_href: str,
              download_name: str) -> dict:
    """The notebook executed now: the entry to store."""
    nb = jupytext.read(source)
    # Neither copy needs the source's format.
    nb.metadata.pop("jupytext", None)
    # Ids that do not change per build (nbformat would draw random ones).
    for index, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{index}"
    record = kernel.execute(nb, source, where, root)
    page, figures = copies.page_notebook(nb, where, download_href, download_name)
    download = copies.download_notebook(nb, where)
    encoded = {}
    for file, data in figures.items():
        encoded[file] = base64.b64encode(data).decode("ascii")
    # The copies end with a newline, as nbformat.write writes them.
    return {
        "deps": record,
        "page": nbformat.writes(page) + "\n",
        "download": nbformat.writes(download) + "\n",
        "figures": encoded,
    }
