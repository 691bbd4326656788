"""Every link and image of the built site points at something that was built.

MkDocs checks the links written in Markdown; it does not look into raw HTML (`<a href>`,
`<img src>` written in a page), into what a notebook's cells print, or into what hooks
and plugins add. This module checks the final HTML of every page instead: each `href`,
`src`, `srcset`, `data` and `poster` that stays inside the site must name a file of the
built site, and its `#fragment` an `id` (or `<a name>`) of the target page. Each problem
names the page's source file and, where the link text can be found there, its line; on a
notebook page also the cell (the cell's first line when the link is in its output).

It also adds the line to MkDocs's own link warnings (`Doc file 'x.md' contains a link …`),
which name only the file.
"""

from __future__ import annotations

import difflib
import html
import logging
import os
import pickle
import posixpath
import re
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from anatomia_engine.store import Store, source_of
from anatomia_engine.store import key as store_key

# Attributes that load or link to another resource, per element.
URL_ATTRS: dict[str, tuple[str, ...]] = {
    "a": ("href",), "area": ("href",), "link": ("href",),
    "img": ("src", "srcset"), "source": ("src", "srcset"), "input": ("src",),
    "script": ("src",), "iframe": ("src",), "embed": ("src",), "object": ("data",),
    "video": ("src", "poster"), "audio": ("src",), "track": ("src",),
}
_CELL_ID = re.compile(r"cell-id=(.*)$")     # nbconvert writes id="cell-id=<the cell's id>"
_SOURCE_CELL = re.compile(r"cell-(\d+)")    # the ids notebooks.read_notebook gives the source cells


@dataclass
class Link:
    tag: str
    attr: str
    url: str
    cell: int | None = None     # 0-based notebook cell, on a notebook page
    in_output: bool = False     # inside the cell's output rather than its source text


@dataclass
class Parsed:
    ids: set[str] = field(default_factory=set)
    links: list[Link] = field(default_factory=list)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.result = Parsed()
        self.cell: int | None = None
        self.cells_seen = 0
        self.output_depth: int | None = None   # depth of the open output area, if any
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        self._element(tag, attrs)
        if tag not in _VOID:
            self.depth += 1

    def handle_startendtag(self, tag, attrs):
        self._element(tag, attrs)

    def handle_endtag(self, tag):
        if tag not in _VOID:
            self.depth -= 1
            if self.output_depth is not None and self.depth < self.output_depth:
                self.output_depth = None

    def _element(self, tag, attrs):
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        if "jp-Cell" in classes:   # a notebook cell (nbconvert's lab template)
            match = _CELL_ID.search(values.get("id") or "")
            if match is None:
                self.cell = self.cells_seen
            else:   # a cell the page adds (e.g. around solutions) has no place in the source
                number = _SOURCE_CELL.fullmatch(match.group(1))
                self.cell = int(number.group(1)) if number else None
            self.cells_seen += 1
            self.output_depth = None
        elif self.cell is not None and self.output_depth is None and (
                "jp-OutputArea" in classes or "jp-Cell-outputWrapper" in classes):
            self.output_depth = self.depth + 1
        for key in ("id",) + (("name",) if tag == "a" else ()):
            if values.get(key):
                self.result.ids.add(values[key])
        for attr in URL_ATTRS.get(tag, ()):
            value = values.get(attr)
            if not value:
                continue
            urls = _srcset(value) if attr == "srcset" else [value.strip()]
            for url in urls:
                self.result.links.append(Link(tag, attr, url, self.cell, self.output_depth is not None))


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}


def _srcset(value: str) -> list[str]:
    return [part.strip().split()[0] for part in value.split(",") if part.strip()]


def parse(text: str) -> Parsed:
    """The ids and the outgoing links of one HTML document."""
    collector = _Collector()
    collector.feed(text)
    collector.close()
    return collector.result


@dataclass
class Page:
    """A built page: where it is in the site, its HTML, and where it came from."""

    dest: str                  # path in the site, e.g. "krok-po-kroku/index.html"
    html: str
    where: str                 # what errors call it, e.g. "docs/krok-po-kroku.md"
    source: Path | None = None  # the file the author edits (for line numbers)
    notebook: bool = False     # a jupytext percent notebook (cells start at `# %%`)


def site_files(site_dir: Path) -> set[str]:
    """Every file of the built site, as a posix path relative to it."""
    files = set()
    for folder, _, names in os.walk(site_dir):
        rel = os.path.relpath(folder, site_dir)
        for name in names:
            files.add(name if rel == "." else posixpath.join(Path(rel).as_posix(), name))
    return files


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme or parts.netloc)


def resolve(base_dest: str, url: str, files: set[str]) -> tuple[str | None, str, str]:
    """(the site file the url names or None, the path it was looked up as, its fragment)."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    if not path:
        return base_dest, base_dest, parts.fragment
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(base_dest), path))
    if joined == ".":
        joined = ""
    if joined == ".." or joined.startswith("../"):
        return None, joined, parts.fragment
    candidates = [joined] if joined and not path.endswith("/") else []
    candidates.append(posixpath.join(joined, "index.html") if joined else "index.html")
    for candidate in candidates:
        if candidate in files:
            return candidate, candidate, parts.fragment
    return None, candidates[0], parts.fragment


def _problem(page: Page, link: Link, reason: str, hint: str = "") -> str:
    return f"{_place(page, link)}: <{link.tag} {link.attr}=\"{link.url}\">: {reason}{hint}"


def _place(page: Page, link: Link) -> str:
    lines = _source_lines(page)
    line = None
    if page.notebook and link.cell is not None:
        starts = cell_starts(lines)
        first = starts[link.cell] if link.cell < len(starts) else None
        end = starts[link.cell + 1] - 1 if link.cell + 1 < len(starts) else len(lines) + 1
        if first is not None and not link.in_output:
            line = locate(lines, link.url, first, end)
        cell = f"notebook cell {link.cell + 1}" + (" (its output)" if link.in_output else "")
        line = line or first
        return f"{page.where}:{line}: {cell}" if line else f"{page.where}: {cell}"
    line = locate(lines, link.url)
    return f"{page.where}:{line}" if line else page.where


def _source_lines(page: Page) -> list[str]:
    if page.source is None:
        return []
    try:
        return page.source.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def cell_starts(lines: list[str]) -> list[int]:
    """1-based line where each cell of a jupytext percent notebook starts (after `# %%`)."""
    return [n + 2 for n, line in enumerate(lines) if line.startswith("# %%")]


def locate(lines: list[str], url: str, first: int = 1, last: int | None = None) -> int | None:
    """The line (1-based) in `lines[first-1:last]` where `url` is written, preferring a line
    where it stands as a link or attribute value; None when it is not there."""
    last = len(lines) if last is None else last
    forms = list(dict.fromkeys([url, html.escape(url, quote=True), html.escape(url, quote=False)]))
    strong = [f'"{f}"' for f in forms] + [f"'{f}'" for f in forms] + [f"({f}" for f in forms] + \
             [f"<{f}>" for f in forms]
    span = range(max(first, 1), min(last, len(lines)) + 1)
    for wanted in (strong, forms):
        for number in span:
            if any(w in lines[number - 1] for w in wanted):
                return number
    return None


class Checker:
    """Collects the pages of one build, then checks every link against the built files."""

    def __init__(self, store: Store | None = None) -> None:
        self.pages: list[Page] = []
        self.reported: set[tuple[str, str]] = set()   # (where, link) MkDocs warned about already
        self.store = store                            # the parses of earlier builds, by HTML

    def parse(self, page: Page) -> Parsed:
        """`parse(page.html)`, taken from the store when this code has parsed that HTML before."""
        if self.store is None:
            return parse(page.html)
        name = store_key(source_of(sys.modules[__name__]), page.html)
        stored = self.store.get(name, page.where)
        if stored is not None:
            return pickle.loads(stored)
        parsed = parse(page.html)
        self.store.put(name, pickle.dumps(parsed, protocol=5))
        return parsed

    def add(self, page: Page) -> None:
        self.pages.append(page)

    def check(self, site_dir: Path) -> list[str]:
        files = site_files(site_dir)
        parsed = {page.dest: self.parse(page) for page in self.pages}
        problems: list[str] = []

        def ids_of(dest: str) -> set[str] | None:
            if dest not in parsed:
                if not dest.endswith((".html", ".htm")):
                    return None
                parsed[dest] = parse((site_dir / dest).read_text(encoding="utf-8", errors="replace"))
            return parsed[dest].ids

        for page in self.pages:
            seen: set[str] = set()
            for link in parsed[page.dest].links:
                url = link.url
                if url in seen or is_external(url) or url in ("", "#") or url.startswith("#!"):
                    continue
                seen.add(url)
                if (page.where, url) in self.reported:
                    continue
                if url.startswith(("/", "\\")):
                    problems.append(_problem(page, link, "an absolute path; it breaks when the site is "
                                             "not at the root of its server", " — write it relative to "
                                             "the page"))
                    continue
                target, looked_up, fragment = resolve(page.dest, url, files)
                if target is None:
                    problems.append(_problem(page, link, f"'{looked_up}' is not in the built site",
                                             _hint(url, link, page.notebook)))
                    continue
                if not fragment:
                    continue
                ids = ids_of(target)
                if ids is None or unquote(fragment) in ids or fragment in ids:
                    continue
                if (page.where, "#" + fragment) in self.reported:
                    continue
                guess = difflib.get_close_matches(unquote(fragment), sorted(ids), n=1)
                problems.append(_problem(
                    page, link, f"'{target}' has no element with id '{fragment}'",
                    f" — did you mean '#{guess[0]}'?" if guess else ""))
        return problems


def _hint(url: str, link: Link, notebook: bool) -> str:
    if link.in_output:
        return " — the cell's code prints this link; fix it there"
    path = urlsplit(url).path
    if notebook:
        return (" — links in a notebook are not rewritten: write the address of the built page "
                "or file relative to this page's address (e.g. '../../strona/' for docs/strona.md)")
    if path.endswith(".md"):
        return (" — in HTML write the address of the built page (e.g. '../strona/' for strona.md), "
                "or use a Markdown link [tekst](strona.md)")
    return " — check the path: it is relative to the built page's address, not to the source file"


# --- MkDocs's own link warnings, with the line -------------------------------------------

_MKDOCS_LINK = re.compile(r"^Doc file '(?P<file>[^']+)' contains (?:a link|an absolute link|an "
                          r"unrecognized relative link|a link to) '(?P<link>[^']+)'")


class LineFilter(logging.Filter):
    """Puts `docs/x.md:LINE: ` in front of MkDocs's warnings about a page's links."""

    marker = "anatomia_links"

    def __init__(self, docs_dir: Path, prefix: str, checker: Checker | None = None) -> None:
        super().__init__()
        self.docs_dir, self.prefix, self.checker = docs_dir, prefix, checker

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:   # noqa: BLE001 - a record we cannot format is not ours to change
            return True
        match = _MKDOCS_LINK.match(message)
        if not match:
            return True
        where = f"{self.prefix}{match['file']}"
        link = match["link"]
        if self.checker is not None:
            self.checker.reported.add((where, link))
            anchor = urlsplit(link).fragment
            if anchor:   # MkDocs reports 'x.md#a'; the built page has '../x/#a'
                self.checker.reported.add((where, "#" + anchor))
        try:
            lines = (self.docs_dir / match["file"]).read_text(encoding="utf-8").splitlines()
        except OSError:
            lines = []
        line = locate(lines, link)
        record.msg = f"{where}:{line}: {message}" if line else f"{where}: {message}"
        record.args = ()
        return True


def install_line_filter(docs_dir: Path, prefix: str, checker: Checker | None = None) -> LineFilter:
    """Add a LineFilter to MkDocs's page logger, replacing one added by an earlier build."""
    logger = logging.getLogger("mkdocs.structure.pages")
    for old in list(logger.filters):
        if getattr(old, "marker", None) == LineFilter.marker:
            logger.removeFilter(old)
    new = LineFilter(docs_dir, prefix, checker)
    logger.addFilter(new)
    return new
