"""A live page's recomputation data out of its first load, into a sidecar file beside it.

On a `live: true` page what the browser needs to recompute each number, claim and formula (MOVED) and
the model's inputs are not needed until the reader presses "Zmień liczby": `publish` moves them into
`<page>.live.json`, each element keyed by its position among ITEMS with the text it shows (the browser
refuses a sidecar that does not belong to its page).
"""

import html
import json
import re
from pathlib import Path, PurePosixPath

from bs4 import BeautifulSoup

from anatomia_engine import katex

ITEMS = ".num, .live-word, [data-claim], .arithmatex"   # the browser's selector, in document order
MOVED = ("data-expr", "data-fmt", "data-claim-expr", "data-tex")
ROOT_ID = "live-example"


def split(output: str, dest_uri: str) -> tuple[str, bytes]:
    """The page without its live attributes (its root names the sidecar: `data-live-src`), and the sidecar."""
    root = re.search(f'<div class="live-example" id="{ROOT_ID}"[^>]*>', output)
    if root is None:
        raise ValueError(f"{dest_uri}: a live page without <div class=\"live-example\" id=\"{ROOT_ID}\">")
    article = BeautifulSoup(output, "html.parser").article
    elements = article.select(ITEMS)
    moved = [{k[5:]: el[k] if k == "data-fmt" else json.loads(el[k]) for k in MOVED if el.has_attr(k)}
             for el in elements]
    items = [[i, elements[i].get_text(), held] for i, held in enumerate(moved) if held]
    attrs = article.find(id=ROOT_ID).attrs
    inputs = {k[5:]: json.loads(v) for k, v in attrs.items() if k.startswith("data-")}
    data = {"count": len(elements), "inputs": inputs, "items": items, "selector": ITEMS,
            "temml": katex.OPTIONS}
    sidecar = PurePosixPath(dest_uri).with_suffix(".live.json").name
    tag = f'<div class="live-example" id="{ROOT_ID}" data-live-src="{html.escape(sidecar)}">'
    page = output[:root.start()] + tag + output[root.end():]
    page = re.sub(' (?:' + "|".join(MOVED) + ')="[^"]*"', "", page)
    return page, json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def publish(output: str, page, config) -> str:
    """MkDocs on_post_page: on a `live: true` page, write the sidecar and return the lighter page."""
    if page.meta.get("live") is not True:
        return output
    output, data = split(output, page.file.dest_uri)
    sidecar = Path(config.site_dir, page.file.dest_uri).with_suffix(".live.json")
    sidecar.parent.mkdir(parents=True, exist_ok=True)
    sidecar.write_bytes(data)
    return output
