"""A live page's recomputation data out of its first load, into a sidecar file beside it.

On a page with `live: true` every number, claim and formula carries what the browser needs to
recompute it (`data-expr`, `data-fmt`, `data-claim-expr`, `data-tex`) and `#live-example` the
model's inputs (`data-*` JSON). None of it is needed until the reader presses "Zmień liczby",
so `publish` moves it all into `<page>.live.json` beside the page: each element keyed by its
position among ITEMS (in the page's <article>, in document order) with the text it shows, so the
browser refuses, visibly, a sidecar that does not belong to the page it got.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from html.parser import HTMLParser
from pathlib import Path

from anatomia_engine import katex

ITEMS = ".num, [data-claim], .arithmatex"   # the browser's selector, in document order
MOVED = ("data-expr", "data-fmt", "data-claim-expr", "data-tex")
ROOT_ID = "live-example"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def _is_item(attrs: dict[str, str | None]) -> bool:
    classes = (attrs.get("class") or "").split()
    return "num" in classes or "arithmatex" in classes or "data-claim" in attrs


class _Reader(HTMLParser):
    """Every ITEMS element of the <article>: its moved attributes and its text (textContent)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0            # open elements inside the article (0: outside it)
        self.open: list[tuple[int, dict]] = []   # items being read, with the depth they opened at
        self.items: list[dict] = []
        self.inputs: dict[str, object] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.depth == 0:
            if tag == "article":
                self.depth = 1
            return
        if attrs.get("id") == ROOT_ID:
            self.inputs = {k[5:]: v for k, v in attrs.items() if k.startswith("data-")}
        if tag in VOID:
            return
        self.depth += 1
        if _is_item(attrs):
            item = {"text": "", **{k[5:]: attrs[k] for k in MOVED if k in attrs}}
            self.items.append(item)
            self.open.append((self.depth, item))

    def handle_endtag(self, tag):
        if self.depth == 0 or tag in VOID:
            return
        while self.open and self.open[-1][0] >= self.depth:
            self.open.pop()
        self.depth -= 1

    def handle_data(self, data):
        for _, item in self.open:
            item["text"] += data


def sidecar_name(dest_uri: str) -> str:
    """`krok-po-kroku/index.html` -> `index.live.json` (beside the page)."""
    return posixpath.splitext(posixpath.basename(dest_uri))[0] + ".live.json"


def split(output: str, dest_uri: str) -> tuple[str, bytes]:
    """The page without its live attributes (the root gets `data-live-src`, the sidecar's
    address), and the sidecar's bytes (deterministic)."""
    reader = _Reader()
    reader.feed(output)
    reader.close()
    items = [[i, item.pop("text"), item] for i, item in enumerate(reader.items) if len(item) > 1]
    for _, _, item in items:
        for key in ("expr", "claim-expr", "tex"):
            if key in item:
                item[key] = json.loads(item[key])
    inputs = {k: json.loads(v) for k, v in reader.inputs.items()}
    data = {"count": len(reader.items), "inputs": inputs, "items": items, "selector": ITEMS,
            "temml": katex.OPTIONS}
    page = re.sub(' (?:' + "|".join(MOVED) + ')="[^"]*"', "", output)
    root = re.search(f'<div class="live-example" id="{ROOT_ID}"[^>]*>', page)
    if root is None:
        raise ValueError(f"{dest_uri}: a live page without <div class=\"live-example\" id=\"{ROOT_ID}\">")
    tag = f'<div class="live-example" id="{ROOT_ID}" data-live-src="{html.escape(sidecar_name(dest_uri))}">'
    page = page[:root.start()] + tag + page[root.end():]
    return page, json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def publish(output: str, page, config) -> str:
    """MkDocs on_post_page: on a `live: true` page, write the sidecar and return the lighter page."""
    if page.meta.get("live") is not True:
        return output
    output, data = split(output, page.file.dest_uri)
    folder = Path(config.site_dir) / posixpath.dirname(page.file.dest_uri)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / sidecar_name(page.file.dest_uri)).write_bytes(data)
    return output
