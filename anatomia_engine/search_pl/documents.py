"""A rendered page's search documents: what a reader finds and what a result's snippet shows.

One document for the page (its `h1`, else its title, and its text before the first heading)
and one per heading with an id. Formulas become one line of text (`QKᵀ/(√d_k)`) from their
MathML; code, controls, hidden text and figure data are left out: a snippet should read
like the page, not like its markup.
"""

import re
from dataclasses import dataclass, field

import lxml.html

from anatomia_engine.links import classes
from anatomia_engine.search_pl.words import tokenize

# What a snippet should not show: code, controls, hidden text (KaTeX's HTML: its MathML is
# read instead), permalinks, footnote marks, the blog's post meta and excerpts.
_SKIP_TAGS = {"script", "style", "pre", "svg", "noscript", "template", "button"}
_SKIP_CLASSES = {
    "headerlink",
    "footnote-backref",
    "footnote-ref",
    "md-source-file",
    "md-post__meta",
    "md-tags",
    "md-post--excerpt",
}
# Elements whose text is not run together with their neighbours' ("zdanie.Koniec").
_BLOCKS = {
    "p", "div", "li", "tr", "td", "th",
    "h1", "h2", "h3", "h4", "h5", "h6",
    "figcaption", "summary", "dt", "dd", "blockquote",
    "table", "section", "details", "br",
}
# The headings that start a section of their own (those with an id)
_SECTION_HEADINGS = {"h2", "h3", "h4", "h5", "h6"}
CONTENT_RE = re.compile(r'<(?:article|div) class="md-content__inner[^"]*"[^>]*>(.*)</main>', re.S)


# ---------------------------------------------------------------------------------------------
# Formulas as text
# ---------------------------------------------------------------------------------------------

# The marks a script element writes between its parts: a fraction's bar, sub- and superscripts.
_SCRIPTS = {
    "mfrac": "/",
    "msub": "_",
    "msup": "^",
    "msubsup": "_^",
    "munder": "_",
    "mover": "^",
    "munderover": "_^",
}
# Operators that read without spaces around them.
_BRACKETS = "()[]{}|‖,.;"
# The separators of a matrix's cells and rows.
_JOINERS = {"mtr": " ", "mtable": "; "}


def _wrap(text: str) -> str:
    # A part of more than one symbol is bracketed, so that `QK/√d_k` keeps its grouping.
    if len(text) <= 1 or re.fullmatch(r"[\w.,]+", text):
        return text
    return f"({text})"


def _elements(el):
    """The child elements of an lxml element, each with the text that follows it (its tail)."""
    for child in el:
        # a comment's tag is a function: its text is no part of the page
        if isinstance(child.tag, str):
            yield child, child.tail
        elif child.tail:
            yield None, child.tail


def math_text(el) -> str:
    """A MathML formula (an lxml element) as one line of text (`QKᵀ/(√d_k)`), its TeX
    annotation left out."""
    parts = []
    if el.text:
        parts.append(el.text)
    for child, tail in _elements(el):
        if child is not None and child.tag != "annotation":
            parts.append(math_text(child))
        if tail:
            parts.append(tail)
    if el.tag in _SCRIPTS and len(parts) > 1:
        return _scripted(el, parts)
    text = _JOINERS.get(el.tag, "").join(parts)
    # An operator or a word (`softmax`) stands apart from its neighbours; a bracket does not.
    spaced = el.tag in ("mo", "mtext") or (el.tag == "mi" and len(text) > 1)
    if spaced and text not in _BRACKETS:
        return f" {text} "
    if el.tag == "msqrt":
        return "√" + _wrap(text)
    if el.tag == "mspace":
        return " "
    return text


def _scripted(el, parts: list[str]) -> str:
    """A fraction or a scripted symbol (`d_k`, `Kᵀ`, `ℝ^(n × d)`) as text."""
    # `\hat{x}`: the letter is what reads.
    if el.get("accent") == "true":
        return parts[0]
    parts = [p.strip() for p in parts]
    text = parts[0]
    if el.tag == "mfrac":
        text = _wrap(text)
    for mark, part in zip(_SCRIPTS[el.tag], parts[1:], strict=False):
        # A transpose is read as the letter a reader would type for it.
        if mark == "^" and part in ("⊤", "T"):
            text += "ᵀ"
        else:
            text += mark + _wrap(part)
    return text


# ---------------------------------------------------------------------------------------------
# A page's documents
# ---------------------------------------------------------------------------------------------


def _skipped(el) -> bool:
    """Whether `el` is left out of the page's text (see _SKIP_TAGS)."""
    if el.tag in _SKIP_TAGS:
        return True
    if not _SKIP_CLASSES.isdisjoint(classes(el)):
        return True
    if el.get("hidden") is not None or el.get("data-search-exclude") is not None:
        return True
    if el.get("aria-hidden") == "true" or el.get("role") == "tooltip":
        return True
    return _is_figure_data(el)


def _is_figure_data(el) -> bool:
    # A figure's data table: its numbers are no words a reader searches for.
    if el.tag != "details":
        return False
    summary = next(el.iter("summary"), None)
    if summary is None:
        return False
    return "".join(summary.itertext()).strip().startswith("Dane do rysunku")


def _clean(text: str) -> str:
    """Runs of white space as one space, none before closing punctuation."""
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+([,.;:!?)”])", r"\1", text).strip()


@dataclass
class _Text:
    """A page's text as it is read out, in pieces; each section heading is a marker piece
    (\\0 location \\1 heading \\0), at which the text is later cut into sections."""

    url: str
    pieces: list[str] = field(default_factory=list)
    # the text of the page's first h1, once read
    h1: str | None = None

    def element(self, el) -> None:
        """The text of `el` and all it holds."""
        if _skipped(el):
            return
        if el.tag == "math":
            self.pieces.append(math_text(_without_skipped(el)))
            return
        # a block's text is not run together with what stands beside it
        block = el.tag in _BLOCKS
        if block:
            self.pieces.append(" ")
        if el.tag == "h1" and self.h1 is None:
            # the page's title, not part of its text
            self.h1 = self.inner_text(el)
            self.pieces.append(" ")
        elif el.tag in _SECTION_HEADINGS and el.get("id") is not None:
            heading = self.inner_text(el)
            self.pieces.append(f"\0{self.url}#{el.get('id')}\1{heading}\0")
        else:
            self.children(el)
        if block:
            self.pieces.append(" ")

    def children(self, el) -> None:
        if el.text:
            self.pieces.append(el.text)
        for child, tail in _elements(el):
            if child is not None:
                self.element(child)
            if tail:
                self.pieces.append(tail)

    def inner_text(self, el) -> str:
        """The text inside `el`, read as the page's is, kept apart from it."""
        inner = _Text(self.url)
        inner.children(el)
        return "".join(inner.pieces)


def _without_skipped(el):
    """`el` with every element the page's text leaves out taken away (their tails stay)."""
    for skipped in [child for child in el.iterdescendants() if _skipped(child)]:
        skipped.drop_tree()
    return el


def page_docs(url: str, title: str, html: str) -> list[dict]:
    """Search documents of one rendered page: the page and one per heading with an id."""
    title = re.sub(r"<[^>]+>", "", title)
    content = CONTENT_RE.search(html)
    if content:
        html = content.group(1)
    text = _Text(url)
    text.children(lxml.html.fragment_fromstring(html, create_parent="div"))
    if text.h1 is not None:
        title = _clean(text.h1) or title
    first, *rest = "".join(text.pieces).split("\0")
    docs = [{"location": url, "title": title, "text": _clean(first)}]
    for head, body in zip(rest[::2], rest[1::2], strict=True):
        location, heading = head.split("\1")
        docs.append({"location": location, "title": _clean(heading), "text": _clean(body)})
    return docs


def site_words(docs: list[dict]) -> list[str]:
    """Every word of the documents, as written, in order (repeats count as the site's usage)."""
    words = []
    for doc in docs:
        words += tokenize(doc["title"])
        words += tokenize(doc["text"])
    return words


# ---------------------------------------------------------------------------------------------
# A page's own `search:` front matter
# ---------------------------------------------------------------------------------------------


def own_search_meta(meta: dict) -> dict:
    """A page's own `search:` front matter; `meta` is told to keep the page out of Material's index.

    Material's indexer would otherwise index every page a second time, in its own way.
    """
    own = meta.get("search") or {}
    meta["search"] = {**own, "exclude": True}
    return own


def own_docs(docs: list[dict], own: dict) -> list[dict]:
    """A page's documents under its own `search:` front matter (Material's `exclude` and `boost`)."""
    if own.get("exclude"):
        return []
    if "boost" not in own:
        return docs
    return [dict(doc, boost=float(own["boost"])) for doc in docs]
