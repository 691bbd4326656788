"""Every link and image of the built site points at something that was built.

MkDocs checks the links written in Markdown, not raw HTML, a notebook's output or what plugins
add. This checks each page's final HTML: every URL inside the site must name a built file, its
`#fragment` an `id` (or `<a name>`) of the target page. A problem names the source file and line
(or the notebook cell), looked up with lines.py.
"""

from __future__ import annotations

import difflib
import logging
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import lxml.html

from anatomia_engine import lines
from anatomia_engine.errors import EngineError

# The attributes of each element that hold an address
URL_ATTRS: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "input": ("src",),
    "script": ("src",),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
}

# The schemes a link or an image may name: a page's links lead to pages, files and mail. Any
# other (javascript:, data:, file:, vbscript: …) runs code, embeds what nobody checked or leaves
# the web.
SCHEMES = ("http", "https", "mailto")

# A notebook cell's element id, as mkdocs-jupyter writes it
_CELL_ID = re.compile(r"cell-id=cell-(\d+)")


@dataclass
class Link:
    tag: str
    attr: str
    url: str
    # 0-based notebook cell, on a notebook page
    cell: int | None = None
    # inside the cell's output rather than its source text
    in_output: bool = False


@dataclass
class Parsed:
    ids: set[str] = field(default_factory=set)
    links: list[Link] = field(default_factory=list)


# -------------------------------------------------------------------------------------------------
# Reading a page
# -------------------------------------------------------------------------------------------------

def _urls(attr: str, value: str) -> list[str]:
    """The addresses an attribute's value names: a srcset names one per candidate."""
    value = value.strip()
    if attr != "srcset":
        return [value] if value else []
    candidates = [part for part in value.split(",") if part.strip()]
    return [candidate.split()[0] for candidate in candidates]


def read_html(text: str):
    """The element tree of an HTML document or fragment (libxml2's parser, through lxml)."""
    # as bytes with the encoding named: lxml refuses a str that declares its own encoding
    # (an inline SVG a notebook prints may begin with <?xml … encoding=…?>)
    parser = lxml.html.HTMLParser(encoding="utf-8")
    return lxml.html.document_fromstring(text.encode("utf-8"), parser=parser)


def classes(element) -> list[str]:
    """The class names of an lxml element."""
    return (element.get("class") or "").split()


def _ancestor(element, names: set[str]):
    """The nearest ancestor of `element` with one of the class `names`, or None."""
    for ancestor in element.iterancestors():
        if not names.isdisjoint(classes(ancestor)):
            return ancestor
    return None


def parse(text: str) -> Parsed:
    """The ids and the outgoing links of one HTML document, each with its notebook cell, if any."""
    parsed = Parsed()
    for element in read_html(text).iter():
        # comments and processing instructions have a function for a tag
        if not isinstance(element.tag, str):
            continue
        if element.get("id") is not None:
            parsed.ids.add(element.get("id"))
        if element.tag == "a" and element.get("name") is not None:
            parsed.ids.add(element.get("name"))
        if element.tag not in URL_ATTRS:
            continue
        cell = None
        in_output = False
        holder = _ancestor(element, {"jp-Cell"})
        number = holder is not None and _CELL_ID.fullmatch(holder.get("id", ""))
        if number:
            cell = int(number[1])
            output = _ancestor(element, {"jp-OutputArea", "jp-Cell-outputWrapper"})
            in_output = output is not None
        for attr in URL_ATTRS[element.tag]:
            for url in _urls(attr, element.get(attr, "")):
                parsed.links.append(Link(element.tag, attr, url, cell, in_output))
    return parsed


@dataclass
class Page:
    # path in the site, e.g. "krok-po-kroku/index.html"
    dest: str
    html: str
    # what errors call it, e.g. "docs/krok-po-kroku.md"
    where: str
    # the file the author edits (for line numbers)
    source: Path | None = None
    # `parse(html)`, if the build has it already
    parsed: Parsed | None = None


def resolve(base_dest: str, url: str, files: set[str]) -> tuple[str | None, str, str]:
    """(the site file the url names or None, the path it was looked up as, its fragment)."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    if not path:
        return base_dest, base_dest, parts.fragment
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(base_dest), path))
    if joined == ".":
        joined = ""
    # outside the site
    if joined.split("/")[0] == "..":
        return None, joined, parts.fragment
    candidates = []
    if joined and not path.endswith("/"):
        candidates.append(joined)
    candidates.append(posixpath.join(joined, "index.html"))
    for candidate in candidates:
        if candidate in files:
            return candidate, candidate, parts.fragment
    return None, candidates[0], parts.fragment


# -------------------------------------------------------------------------------------------------
# Where a link is written
# -------------------------------------------------------------------------------------------------

def _place(page: Page, link: Link) -> str:
    """`file:line`, and on a notebook page the cell: where the link is written, or the cell
    that prints it."""
    text = []
    if page.source:
        text = page.source.read_text(encoding="utf-8").splitlines()
    if link.cell is None:
        line = lines.locate(text, link.url)
        if line:
            return f"{page.where}:{line}"
        return page.where
    # one past the last cell ends where the file does
    starts = lines.cell_starts(text) + [len(text) + 2]
    cell = f"notebook cell {link.cell + 1}"
    if link.in_output:
        cell += " (its output)"
    # a first cell without `# %%`: no line to name
    if link.cell >= len(starts) - 1:
        return f"{page.where}: {cell}"
    first = starts[link.cell]
    line = first
    if not link.in_output:
        last = starts[link.cell + 1] - 1
        line = lines.locate(text, link.url, first, last) or first
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


# -------------------------------------------------------------------------------------------------
# The check
# -------------------------------------------------------------------------------------------------

_MKDOCS_LINK = re.compile(r"^Doc file '(?P<file>[^']+)' contains (?:a link|an absolute link|an "
                          r"unrecognized relative link|a link to) '(?P<link>[^']+)'")


def _not_checked(url: str, scheme: str) -> bool:
    """An address that leads out of the site (external links are not fetched) or nowhere."""
    if scheme or urlsplit(url).netloc:
        return True
    return url in ("", "#") or url.startswith("#!")


class Checker(logging.Filter):
    """Collects the pages of one build, then checks every link. As a filter of MkDocs's page
    logger, it puts `docs/x.md:LINE: ` before MkDocs's own link warnings, and does not report
    those again."""

    def __init__(self, docs_dir: Path = Path("docs"), prefix: str = "docs/"):
        super().__init__()
        self.pages: list[Page] = []
        # (where, link) MkDocs warned about already
        self.reported: set[tuple[str, str]] = set()
        self.docs_dir = docs_dir
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        match = _MKDOCS_LINK.match(str(record.msg))
        if not match:
            return True
        where = f"{self.prefix}{match['file']}"
        link = match["link"]
        # MkDocs reports 'x.md#a'; the built page has '../x/#a'
        self.reported.add((where, link))
        self.reported.add((where, "#" + urlsplit(link).fragment))
        text = (self.docs_dir / match["file"]).read_text(encoding="utf-8")
        line = lines.locate(text.splitlines(), link)
        if line:
            where += f":{line}"
        record.msg = f"{where}: {match.string}"
        record.args = ()
        return True

    def check(self, site_dir: Path) -> list[EngineError]:
        """Every problem of the collected pages' links, each at the file and line (or cell)
        where it is written, with its element: `docs/a.md:3: <a href="../c/">`."""
        files = set()
        for path in site_dir.rglob("*"):
            if path.is_file():
                files.add(path.relative_to(site_dir).as_posix())
        parsed = {page.dest: page.parsed or parse(page.html) for page in self.pages}
        problems: list[EngineError] = []
        for page in self.pages:
            problems += self._page_problems(page, files, parsed, site_dir)
        return problems

    def _page_problems(self, page: Page, files: set[str], parsed: dict,
                       site_dir: Path) -> list[EngineError]:
        problems = []
        # each address once per page
        seen: set[str] = set()
        for link in parsed[page.dest].links:
            url = link.url
            if url in seen:
                continue
            scheme = urlsplit(url).scheme.lower()
            # javascript:, data:, file: …
            if scheme and scheme not in SCHEMES:
                seen.add(url)
                problem = EngineError("link_scheme", scheme=scheme, allowed=", ".join(SCHEMES))
            elif _not_checked(url, scheme) or (page.where, url) in self.reported:
                continue
            else:
                seen.add(url)
                problem = self._problem(page, link, files, parsed, site_dir)
            if problem is not None:
                # where is looked up only for a problem: it reads the source file
                where = f"{_place(page, link)}: <{link.tag} {link.attr}=\"{url}\">"
                problems.append(problem.located(where))
        return problems

    def _problem(self, page: Page, link: Link, files: set[str], parsed: dict,
                 site_dir: Path) -> EngineError | None:
        """What is wrong with `link` (not yet placed), or None."""
        if link.url.startswith(("/", "\\")):
            return EngineError("link_absolute", hint=" — write it relative to the page")
        target, looked_up, fragment = resolve(page.dest, link.url, files)
        if target is None:
            return EngineError("link_not_built", target=looked_up, hint=_hint(link.url, link))
        if not fragment or (page.where, "#" + fragment) in self.reported:
            return None
        if target not in parsed:
            # a file that is not a page has no ids to check
            if not target.endswith((".html", ".htm")):
                return None
            text = (site_dir / target).read_text(encoding="utf-8", errors="replace")
            parsed[target] = parse(text)
        ids = parsed[target].ids
        if unquote(fragment) in ids or fragment in ids:
            return None
        guess = difflib.get_close_matches(unquote(fragment), sorted(ids), n=1)
        hint = ""
        if guess:
            hint = f" — did you mean '#{guess[0]}'?"
        return EngineError("link_no_id", target=target, fragment=fragment, hint=hint)
