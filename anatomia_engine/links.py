"""Every link and image of the built site points at something that was built.

MkDocs checks the links written in Markdown, not raw HTML, a notebook's output or what plugins add.
This checks each page's final HTML: every URL inside the site must name a built file, its `#fragment`
an `id` (or `<a name>`) of the target page. A problem names the source file and line (or the cell).
"""

import difflib
import html
import logging
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

from anatomia_engine import messages as M

URL_ATTRS: dict[str, tuple[str, ...]] = {
    "a": ("href",), "area": ("href",), "link": ("href",), "img": ("src", "srcset"),
    "source": ("src", "srcset"), "input": ("src",), "script": ("src",), "iframe": ("src",),
    "embed": ("src",), "object": ("data",), "video": ("src", "poster"), "audio": ("src",), "track": ("src",)}

# The schemes a link or an image may name: a page's links lead to pages, files and mail. Any other
# (javascript:, data:, file:, vbscript: …) runs code, embeds what nobody checked or leaves the web.
SCHEMES = ("http", "https", "mailto")


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


def parse(text: str) -> Parsed:
    """The ids and the outgoing links of one HTML document, each with its notebook cell, if any."""
    soup = BeautifulSoup(text, "html.parser")
    names = {a["name"] for a in soup.find_all("a", attrs={"name": True})}
    parsed = Parsed({tag["id"] for tag in soup.find_all(id=True)} | names)
    for tag in soup.find_all(list(URL_ATTRS)):
        cell = tag.find_parent(class_="jp-Cell")
        number = cell and re.fullmatch(r"cell-id=cell-(\d+)", cell.get("id", ""))
        output = tag.find_parent(class_=["jp-OutputArea", "jp-Cell-outputWrapper"])
        in_output = bool(number) and output is not None
        for attr in URL_ATTRS[tag.name]:
            value = tag.get(attr, "").strip()
            urls = [p.split()[0] for p in value.split(",") if p.strip()] if attr == "srcset" else [value]
            parsed.links += [Link(tag.name, attr, url, int(number[1]) if number else None, in_output)
                             for url in urls if url]
    return parsed


@dataclass
class Page:
    dest: str                  # path in the site, e.g. "krok-po-kroku/index.html"
    html: str
    where: str                 # what errors call it, e.g. "docs/krok-po-kroku.md"
    source: Path | None = None  # the file the author edits (for line numbers)
    parsed: Parsed | None = None   # `parse(html)`, if the build has it already


def resolve(base_dest: str, url: str, files: set[str]) -> tuple[str | None, str, str]:
    """(the site file the url names or None, the path it was looked up as, its fragment)."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    if not path:
        return base_dest, base_dest, parts.fragment
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(base_dest), path))
    joined = "" if joined == "." else joined
    if joined.split("/")[0] == "..":   # outside the site
        return None, joined, parts.fragment
    candidates = [joined] if joined and not path.endswith("/") else []
    candidates.append(posixpath.join(joined, "index.html"))
    found = next((c for c in candidates if c in files), None)
    return found, found or candidates[0], parts.fragment


def cell_starts(lines: list[str]) -> list[int]:
    """1-based line where each cell of a jupytext percent notebook starts (after `# %%`)."""
    return [n + 2 for n, line in enumerate(lines) if line.startswith("# %%")]


def locate(lines: list[str], url: str, first: int = 1, last: int | None = None) -> int | None:
    """The line (1-based) in `lines[first-1:last]` where `url` is written, preferably as a link."""
    forms = list(dict.fromkeys([url, html.escape(url, quote=True), html.escape(url, quote=False)]))
    strong = [w.format(f) for f in forms for w in ('"{}"', "'{}'", "({}", "<{}>")]
    span = range(max(first, 1), min(len(lines) if last is None else last, len(lines)) + 1)
    return next((n for wanted in (strong, forms) for n in span if any(w in lines[n - 1] for w in wanted)),
                None)


def _place(page: Page, link: Link) -> str:
    """`file:line`, and on a notebook page the cell: where the link is written, or the cell that prints it."""
    lines = page.source.read_text(encoding="utf-8").splitlines() if page.source else []
    if link.cell is None:
        line = locate(lines, link.url)
        return f"{page.where}:{line}" if line else page.where
    starts = cell_starts(lines) + [len(lines) + 2]
    cell = f"notebook cell {link.cell + 1}" + (" (its output)" if link.in_output else "")
    if link.cell >= len(starts) - 1:   # a first cell without `# %%`: no line to name
        return f"{page.where}: {cell}"
    first = starts[link.cell]
    line = first if link.in_output else locate(lines, link.url, first, starts[link.cell + 1] - 1) or first
    return f"{page.where}:{line}: {cell}"


def _hint(url: str, link: Link) -> str:
    if link.in_output:
        return " — the cell's code prints this link; fix it there"
    if link.cell is not None:
        return (" — links in a notebook are not rewritten: write the address of the built page "
                "or file relative to this page's address (e.g. '../../strona/' for docs/strona.md)")
    if urlsplit(url).path.endswith(".md"):
        return (" — in HTML write the address of the built page (e.g. '../strona/' for strona.md), "
                "or use a Markdown link [tekst](strona.md)")
    return " — check the path: it is relative to the built page's address, not to the source file"


_MKDOCS_LINK = re.compile(r"^Doc file '(?P<file>[^']+)' contains (?:a link|an absolute link|an "
                          r"unrecognized relative link|a link to) '(?P<link>[^']+)'")


class Checker(logging.Filter):
    """Collects the pages of one build, then checks every link. As a filter of MkDocs's page logger,
    it puts `docs/x.md:LINE: ` before MkDocs's own link warnings, and does not report those again."""

    def __init__(self, docs_dir: Path = Path("docs"), prefix: str = "docs/"):
        super().__init__()
        self.pages: list[Page] = []
        self.reported: set[tuple[str, str]] = set()   # (where, link) MkDocs warned about already
        self.docs_dir, self.prefix = docs_dir, prefix

    def filter(self, record: logging.LogRecord) -> bool:
        match = _MKDOCS_LINK.match(str(record.msg))
        if match:
            where, link = f"{self.prefix}{match['file']}", match["link"]
            # MkDocs reports 'x.md#a'; the built page has '../x/#a'
            self.reported.update({(where, link), (where, "#" + urlsplit(link).fragment)})
            line = locate((self.docs_dir / match["file"]).read_text(encoding="utf-8").splitlines(), link)
            record.msg, record.args = f"{where}{f':{line}' if line else ''}: {match.string}", ()
        return True

    def check(self, site_dir: Path) -> list[str]:
        files = {p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*") if p.is_file()}
        parsed = {page.dest: page.parsed or parse(page.html) for page in self.pages}
        problems: list[str] = []
        for page in self.pages:
            seen: set[str] = set()
            for link in parsed[page.dest].links:
                url = link.url
                scheme = urlsplit(url).scheme.lower()
                if scheme and scheme not in SCHEMES and url not in seen:   # javascript:, data:, file: …
                    seen.add(url)
                    problems.append(f"{_place(page, link)}: <{link.tag} {link.attr}=\"{url}\">: "
                                    + M.text("link_scheme", scheme=scheme, allowed=", ".join(SCHEMES)))
                    continue
                if url in seen or scheme or urlsplit(url).netloc or url in ("", "#") \
                        or url.startswith("#!") or (page.where, url) in self.reported:
                    continue   # external links are not fetched
                seen.add(url)
                problem = self._problem(page, link, files, parsed, site_dir)
                if problem:
                    problems.append(f"{_place(page, link)}: <{link.tag} {link.attr}=\"{url}\">: {problem}")
        return problems

    def _problem(self, page: Page, link: Link, files: set[str], parsed: dict, site_dir: Path) -> str:
        if link.url.startswith(("/", "\\")):
            return M.text("link_absolute", hint=" — write it relative to the page")
        target, looked_up, fragment = resolve(page.dest, link.url, files)
        if target is None:
            return M.text("link_not_built", target=looked_up, hint=_hint(link.url, link))
        if not fragment or (page.where, "#" + fragment) in self.reported:
            return ""
        if target not in parsed:
            if not target.endswith((".html", ".htm")):
                return ""
            parsed[target] = parse((site_dir / target).read_text(encoding="utf-8", errors="replace"))
        ids = parsed[target].ids
        if unquote(fragment) in ids or fragment in ids:
            return ""
        guess = difflib.get_close_matches(unquote(fragment), sorted(ids), n=1)
        hint = f" — did you mean '#{guess[0]}'?" if guess else ""
        return M.text("link_no_id", target=target, fragment=fragment, hint=hint)


