"""A rendered page's search documents: what a reader finds and what a result's snippet shows.

One document for the page (its `h1`, else its title, and its text before the first heading)
and one per heading with an id. Formulas become one line of text (`QKᵀ/(√d_k)`) from their
MathML; code, controls, hidden text and figure data are left out: a snippet should read
like the page, not like its markup.
"""

import re

from bs4 import BeautifulSoup, NavigableString

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
_BLOCKS = [
    "p", "div", "li", "tr", "td", "th",
    "h1", "h2", "h3", "h4", "h5", "h6",
    "figcaption", "summary", "dt", "dd", "blockquote",
    "table", "section", "details", "br",
]
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


def math_text(el) -> str:
    """A MathML formula as one line of text (`QKᵀ/(√d_k)`), its TeX annotation left out."""
    if isinstance(el, NavigableString):
        return str(el)
    parts = [math_text(c) for c in el.children if c.name != "annotation"]
    if el.name in _SCRIPTS and len(parts) > 1:
        return _scripted(el, parts)
    text = _JOINERS.get(el.name, "").join(parts)
    # An operator or a word (`softmax`) stands apart from its neighbours; a bracket does not.
    spaced = el.name in ("mo", "mtext") or (el.name == "mi" and len(text) > 1)
    if spaced and text not in _BRACKETS:
        return f" {text} "
    if el.name == "msqrt":
        return "√" + _wrap(text)
    if el.name == "mspace":
        return " "
    return text


def _scripted(el, parts: list[str]) -> str:
    """A fraction or a scripted symbol (`d_k`, `Kᵀ`, `ℝ^(n × d)`) as text."""
    # `\hat{x}`: the letter is what reads.
    if el.get("accent") == "true":
        return parts[0]
    parts = [p.strip() for p in parts]
    text = parts[0]
    if el.name == "mfrac":
        text = _wrap(text)
    for mark, part in zip(_SCRIPTS[el.name], parts[1:], strict=False):
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
    if el.name in _SKIP_TAGS:
        return True
    if not _SKIP_CLASSES.isdisjoint(el.get("class", ())):
        return True
    if el.has_attr("hidden") or el.has_attr("data-search-exclude"):
        return True
    if el.get("aria-hidden") == "true" or el.get("role") == "tooltip":
        return True
    return _is_figure_data(el)


def _is_figure_data(el) -> bool:
    # A figure's data table: its numbers are no words a reader searches for.
    if el.name != "details" or el.summary is None:
        return False
    return el.summary.get_text().strip().startswith("Dane do rysunku")


def _clean(text: str) -> str:
    """Runs of white space as one space, none before closing punctuation."""
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\s+([,.;:!?)”])", r"\1", text).strip()


def page_docs(url: str, title: str, html: str) -> list[dict]:
    """Search documents of one rendered page: the page and one per heading with an id."""
    title = re.sub(r"<[^>]+>", "", title)
    content = CONTENT_RE.search(html)
    if content:
        html = content.group(1)
    soup = BeautifulSoup(html, "html.parser")
    # A predicate, not a CSS selector: many times faster than soup.select.
    for el in soup.find_all(_skipped):
        el.decompose()
    for el in soup.find_all("math"):
        el.replace_with(math_text(el))
    for el in soup.find_all(_BLOCKS):
        el.insert_before(" ")
        el.insert_after(" ")
    h1 = soup.find("h1")
    if h1 is not None:
        title = _clean(h1.get_text()) or title
        h1.replace_with(" ")
    # Each heading becomes a marker (\0 location \1 heading \0) in the page's one text, which
    # is then cut at the markers: the text between two headings is the first one's section.
    for el in soup.find_all(["h2", "h3", "h4", "h5", "h6"], id=True):
        el.replace_with(f"\0{url}#{el['id']}\1{el.get_text()}\0")
    first, *rest = soup.get_text().split("\0")
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
