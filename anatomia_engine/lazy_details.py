"""Closed boxes load when opened: the body of a large closed `<details>` moves into its own file.

An article's closed `<details>` ("Dla dociekliwych: …" with the math, "Dane do rysunku: …" with
a figure's data, a lab's solutions and PyTorch code) are most of its HTML, yet a reader opens
few of them. `split_page(html)` takes the final HTML of one page and, for every
top-level `<details>` without `open` whose body (everything after its `<summary>`) is at least
`THRESHOLD` bytes, returns the page with that body replaced by a placeholder, and the body as a
small complete HTML document named by its content (`ramka-<sha256[:12]>.html`), to be written
beside the page. docs/javascripts/lazy-details.js puts the body back when the reader opens the
box; without JavaScript the placeholder is a link to the document, which the page's own
stylesheets (same folder, same relative links) render on its own.

The placeholder:

    <p class="lazy-details" data-lazy-ids="fnref:3 x"><a href="ramka-….html">Pokaż treść …</a></p>

- The link is the fallback without JavaScript and, for the script, the file's address (one
  address a box: the lab carries 14 boxes and is within a few KiB of its budget).
- `data-lazy-ids` lists the ids inside the body that something can point at: headings, and
  every id the page links to (`href="#id"`, e.g. a footnote's back-link to `fnref:3`), so the
  script can load and open the right box when the address or a clicked link names one.
- Links inside the body to the page itself (`href="#x"`) become `./#x`: right in the separate
  document (they lead back to the page) and turned back into `#x` by the script on insertion.
- What Material's script does at load to content present then (copy buttons on code, scroll
  wrappers on tables) is done here to the moved body (`like_material`): it arrives later.
- Nested boxes stay inside their parent's body; boxes with `open`, and small ones, stay as
  they are (a request costs more than a small body: see `THRESHOLD`).

Everything is a pure function of the page's text: same page, same bytes, same names.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import unquote

from anatomia_engine import slim

# 1 KiB: the placeholder costs ~100 bytes in the page, so a moved body saves at least 90 % of
# itself; the price, one request of the body plus ~1 KiB of document head, is paid only by a reader
# who opens the box. Below 1 KiB a box is a sentence or two, not worth a round trip. On the post
# the bodies between 1 and 2 KiB are five data tables of figures (5 KiB of the page together).
THRESHOLD = 1024
PREFIX = "ramka-"
LINK_TEXT = "Pokaż treść tej ramki"
BODY_CLASS = "lazy-details__body"     # the script moves this element's children into the box
BODY_END = '</div>\n<p><a href="./">Wróć do całego artykułu</a></p>\n'

_HEADING = {"h1", "h2", "h3", "h4", "h5", "h6"}
_SAME_PAGE = re.compile(r'(\shref=")#')


@dataclass
class Box:
    """One top-level `<details>` of a page, by character offsets into the page's text."""
    start: int                  # at `<details`
    open: bool
    summary_end: int = -1       # just after the first `</summary>` directly inside it
    summary_text: str = ""
    end: int = -1               # at its `</details>`
    ids: list[str] = field(default_factory=list)        # every id in the body, in order
    heading_ids: list[str] = field(default_factory=list)


class _Scanner(HTMLParser):
    """Top-level details boxes, the page's stylesheet links, `<body>` tag, `<title>` and the
    `#fragment` of every in-page link."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.boxes: list[Box] = []
        self.depth = 0                  # nesting of <details>
        self.in_summary = False
        self.stylesheets: list[str] = []
        self.body_tag = ""
        self.title = ""
        self.in_title = False
        self.links: set[str] = set()

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        raw = self.get_starttag_text() or ""
        if tag == "details":
            if self.depth == 0:
                self.boxes.append(Box(start=self._offset(), open="open" in values))
            self.depth += 1
        elif tag == "summary" and self.depth == 1 and self.boxes[-1].summary_end < 0:
            self.in_summary = True
        elif tag == "link" and (values.get("rel") or "").lower() == "stylesheet":
            self.stylesheets.append(raw)
        elif tag == "body" and not self.body_tag:
            self.body_tag = raw
        elif tag == "title" and not self.title:
            self.in_title = True
        href = values.get("href") or ""
        if tag == "a" and href.startswith("#") and len(href) > 1:
            self.links.add(unquote(href[1:]))
        box = self.boxes[-1] if self.depth and self.boxes else None
        if box is not None and box.summary_end >= 0 and values.get("id"):
            box.ids.append(values["id"])
            if tag in _HEADING:
                box.heading_ids.append(values["id"])

    def handle_startendtag(self, tag, attrs):
        if tag == "link":
            self.handle_starttag(tag, attrs)
            return
        values = dict(attrs)
        box = self.boxes[-1] if self.depth and self.boxes else None
        if box is not None and box.summary_end >= 0 and values.get("id"):
            box.ids.append(values["id"])

    def handle_endtag(self, tag):
        if tag == "details" and self.depth:
            self.depth -= 1
            if self.depth == 0:
                self.boxes[-1].end = self._offset()
        elif tag == "summary" and self.in_summary:
            self.in_summary = False
            start = self._offset()
            self.boxes[-1].summary_end = start + len("</summary>")
        elif tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_summary:
            self.boxes[-1].summary_text += data
        elif self.in_title:
            self.title += data


@dataclass
class Moved:
    name: str                # file name beside the page
    summary: str
    ids: list[str]           # listed on the placeholder
    body_bytes: int


def fragment_document(body: str, summary: str, page_title: str, stylesheets: list[str],
                      body_tag: str) -> str:
    """A complete HTML document that shows `body` on its own with the page's stylesheets."""
    title = html.escape(" ".join(f"{summary} — {page_title}".split()) if page_title else summary)
    links = "\n".join(stylesheets)
    body_open = body_tag or "<body>"
    return (
        "<!doctype html>\n"
        '<html lang="pl">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width,initial-scale=1">\n'
        '<meta name="robots" content="noindex">\n'
        f"<title>{title}</title>\n{links}\n</head>\n{body_open}\n"
        '<main class="md-main"><div class="md-main__inner md-grid"><div class="md-content">\n'
        f'<article class="md-content__inner md-typeset">\n<h1>{html.escape(summary)}</h1>\n'
        f'<div class="{BODY_CLASS}">{body}{BODY_END}'
        "</article>\n</div></div></main>\n</body>\n</html>\n"
    )


def placeholder(name: str, ids: list[str]) -> str:
    """What stays in the box: the file's address for the script, a link for everyone else."""
    listed = f' data-lazy-ids="{html.escape(" ".join(ids))}"' if ids else ""
    return f'\n<p class="lazy-details"{listed}><a href="{name}">{LINK_TEXT}</a></p>\n'


_PRE_CODE = re.compile(r"<pre\b([^>]*)><code\b")


def like_material(body: str, copy_title: str | None, tag: str) -> str:
    """What Material's script does at page load to content present then, done here to a body
    that arrives later: tables without a class scroll inside their own wrapper (`slim.wrap_tables`,
    as on the page), and each `pre > code` gets an id, a copy button (if `copy_title`: the
    feature is on) and a tab stop (so a block wider than the screen can be scrolled by keyboard).
    `tag` keeps the ids apart from Material's own `__code_N` and from other boxes'."""
    body = slim.wrap_tables(body)
    count = [0]

    def code(match: re.Match) -> str:
        attrs = match.group(1)
        if re.search(r"\sid=", attrs):
            return match.group(0)
        ident = f"__code_{tag}_{count[0]}"
        count[0] += 1
        nav = "" if copy_title is None else (
            f'<nav class="md-code__nav"><button class="md-code__button" title="{html.escape(copy_title)}" '
            f'data-clipboard-target="#{ident} &gt; code" data-md-type="copy"></button></nav>')
        return f'<pre id="{ident}"{attrs}>{nav}<code tabindex="0"'
    return _PRE_CODE.sub(code, body)


def _copy_title(text: str) -> str | None:
    """Material's "copy" button title from the page's `__config`, or None if the feature is off."""
    match = re.search(r'<script id="__config" type="application/json">(.*?)</script>', text, re.S)
    if match is None:
        return None
    try:
        conf = json.loads(match.group(1))
    except ValueError:
        return None
    if "content.code.copy" not in (conf.get("features") or []):
        return None
    return (conf.get("translations") or {}).get("clipboard.copy") or "Kopiuj do schowka"


def split_page(text: str, threshold: int = THRESHOLD) -> tuple[str, dict[str, bytes], list[Moved]]:
    """(the page with each large closed top-level box's body replaced by a placeholder,
    {file name: fragment document bytes}, what moved). Leaves `text` as it is when nothing
    qualifies."""
    scanner = _Scanner(text)
    scanner.feed(text)
    scanner.close()
    page_title = " ".join(html.unescape(scanner.title).split())
    copy_title = _copy_title(text)
    out: list[str] = []
    files: dict[str, bytes] = {}
    moved: list[Moved] = []
    last = 0
    for box in scanner.boxes:
        if box.open or box.summary_end < 0 or box.end < box.summary_end:
            continue
        body = text[box.summary_end:box.end]
        if len(body.encode("utf-8")) < threshold:
            continue
        summary = " ".join(box.summary_text.split())
        tag = hashlib.sha256(body.encode("utf-8")).hexdigest()[:6]
        moved_body = like_material(_SAME_PAGE.sub(r"\1./#", body), copy_title, tag)
        document = fragment_document(moved_body, summary, page_title,
                                     scanner.stylesheets, scanner.body_tag).encode("utf-8")
        name = f"{PREFIX}{hashlib.sha256(document).hexdigest()[:12]}.html"
        wanted = set(box.heading_ids) | scanner.links
        ids = [i for i in dict.fromkeys(box.ids) if i in wanted]
        files[name] = document
        moved.append(Moved(name, summary, ids, len(body.encode("utf-8"))))
        out += [text[last:box.summary_end], placeholder(name, ids)]
        last = box.end
    if not moved:
        return text, {}, []
    out.append(text[last:])
    return "".join(out), files, moved


_HOLDER = re.compile(r'\n<p class="lazy-details"(?: data-lazy-ids="[^"]*")?><a href="(' + PREFIX
                     + r'[0-9a-f]{12}\.html)">[^<]*</a></p>\n')


def body_of(document: str) -> str:
    """The moved body inside a fragment document, its links to the page in-page links again."""
    start = document.index(f'<div class="{BODY_CLASS}">') + len(f'<div class="{BODY_CLASS}">')
    return document[start:document.rindex(BODY_END)].replace(' href="./#', ' href="#')


def restore(page: str, read) -> str:
    """The page with every moved body put back, as the script does: `read(name)` gives the text
    of the fragment `name` beside the page."""
    return _HOLDER.sub(lambda match: body_of(read(match.group(1))), page)
