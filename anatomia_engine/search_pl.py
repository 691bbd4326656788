"""Polish site search: the index is lemmatised at build time, the browser normalises queries the same way.

A word is normalised in three steps, identically here and in the browser
(anatomia_engine/theme/assets/javascripts/workers/search-pl-normalise.js):

1. tokenise: maximal runs of letters and digits of the NFC text (`[^\\W_]+` here, `[\\p{L}\\p{N}]+` in JS);
2. fold: lower case, NFD, combining marks dropped, `ł` -> `l` (so `pamięć`, `PAMIĘĆ`, `pamiec` agree);
3. look the folded form up in the table built at build time: folded surface form -> folded lemma.
   A form that is not in the table (a word the site never uses) stays folded.

The table holds every word that occurs in the index, lemmatised by simplemma (its Polish
dictionary; pure Python, no native code, one lemma per form, so the mapping is a function), plus
SYNONYMS, terms that the site writes in two ways. It is shipped to the browser grouped by lemma
(`{"glowa": ["glow", "glowie", "glowy", ...]}`) and only for forms whose lemma differs from them.

Text for the index comes from each page's rendered article: headings split it into sections;
math becomes readable text (`QK^\\top/\\sqrt{d_k}` -> `QKᵀ/√d_k`), and code, figure data tables
("Dane do rysunku"), hidden elements and `data-search-exclude` are left out, so the result
snippets are prose.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

WORD_RE = re.compile(r"[^\W_]+")

# Terms the site writes in two ways: the folded lemma on the left is searched as the one on the right.
SYNONYMS = {
    "glowica": "glowa",   # an attention head: "głowica uwagi" (home page) and "głowa uwagi" (blog post)
}

# Pages left out of the index: a tag index only repeats post titles and would crowd the results.
EXCLUDED_PAGES = re.compile(r"^posty/(tagi|archive|category|author)/")
# Pages that are lists of other pages (the blog index repeats each post's excerpt): lower weight.
PAGE_BOOST = {"posty/": 0.3}


def tokenize(text: str) -> list[str]:
    """The words of `text` (runs of letters and digits, NFC), as written."""
    return WORD_RE.findall(unicodedata.normalize("NFC", text))


@functools.lru_cache(maxsize=1 << 16)   # a site has a few thousand words, folded twice a build
def fold(word: str) -> str:
    """Lower case without diacritics: `Pamięć` -> `pamiec`, `głów` -> `glow`."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    bare = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFC", bare.replace("ł", "l"))


def normalise(word: str, table: dict[str, str]) -> str:
    """The index key of one word: its folded lemma if the site uses the word, else its folded form."""
    folded = fold(word)
    return table.get(folded, folded)


# --- lemmatisation (cached per word, so a rebuild does not load the dictionary again) -------------

def _simplemma_version() -> str:
    from importlib.metadata import version

    return version("simplemma")


def lemmatize(word: str) -> str:
    """simplemma's Polish lemma of `word`, from its memory-frugal dictionary (`low_memory`).

    Both of simplemma's dictionary back-ends read the same shipped data and give the same
    lemmas; the frugal one indexes the front-coded stream instead of decoding every entry
    into a dict, which halves the one-off load (~1.6 s of CPU instead of ~3.3 s) at the
    price of slower look-ups (~20 µs each; a site has a few thousand words)."""
    import simplemma

    return simplemma.lemmatize(word, lang="pl", low_memory=True)


_loading: list[threading.Thread] = []


def load_dictionary_in_background() -> None:
    """Start loading simplemma's Polish dictionary (~1.6 s of CPU, once per process) in a thread.

    A build that has no lemmas stored yet calls this when it starts: the dictionary then loads
    while the figures modules run in their own processes, instead of after the last page.
    `mkdocs serve` calls it once its first build is done, while the author reads or types.
    The first `Lemmatiser.lemma` that needs simplemma waits for the thread, so nothing loads
    twice."""
    if not _loading:
        _loading.append(threading.Thread(target=lemmatize, args=("uwaga",), name="simplemma-pl", daemon=True))
        _loading[0].start()


class Lemmatiser:
    """simplemma's Polish lemmas, remembered in `cache_file` (word -> lemma, JSON)."""

    def __init__(self, cache_file: Path | None = None):
        self.cache_file = cache_file
        self.lemmas: dict[str, str] = {}
        self.changed = False
        if cache_file and cache_file.exists():
            self.lemmas = json.loads(cache_file.read_text(encoding="utf-8"))

    def lemma(self, word: str) -> str:
        lower = word.lower()
        if lower not in self.lemmas:
            if lower.isdigit():
                self.lemmas[lower] = lower
            else:
                for thread in _loading:
                    thread.join()
                self.lemmas[lower] = lemmatize(lower).lower()
            self.changed = True
        return self.lemmas[lower]

    def save(self) -> None:
        if self.cache_file and self.changed:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            self.cache_file.write_text(json.dumps(self.lemmas, ensure_ascii=False, sort_keys=True),
                                       encoding="utf-8")
            self.changed = False


def build_table(words: Iterable[str], lemmatiser: Lemmatiser) -> dict[str, str]:
    """Folded surface form -> folded lemma, for every word in `words` (synonyms applied).

    Two surface forms can fold alike (`kurą`, `kura`); the lemma of the more frequent one wins,
    ties broken alphabetically, so the table does not depend on the order of the pages.
    """
    counts = Counter(words)
    candidates: dict[str, Counter] = {}
    for word, n in counts.items():
        lemma = fold(lemmatiser.lemma(word))
        lemma = SYNONYMS.get(lemma, lemma)
        candidates.setdefault(fold(word), Counter())[lemma] += n
    table = {}
    for folded, lemmas in candidates.items():
        table[folded] = min(lemmas.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    for folded, lemma in SYNONYMS.items():   # the synonym itself is searchable even if unused
        table.setdefault(folded, lemma)
    return table


def grouped(table: dict[str, str]) -> dict[str, list[str]]:
    """The shipped form of the table: lemma -> its surface forms, only where they differ."""
    out: dict[str, list[str]] = {}
    for folded, lemma in sorted(table.items()):
        if folded != lemma:
            out.setdefault(lemma, []).append(folded)
    return dict(sorted(out.items()))


# --- TeX as readable text ----------------------------------------------------------------------

_TEX_SYMBOLS = {
    "cdot": "·", "times": "×", "top": "ᵀ", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "neq": "≠",
    "ne": "≠", "approx": "≈", "in": "∈", "sum": "Σ", "prod": "Π", "infty": "∞", "to": "→",
    "rightarrow": "→", "leftarrow": "←", "ldots": "…", "dots": "…", "cdots": "…", "alpha": "α",
    "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "theta": "θ", "lambda": "λ", "mu": "μ",
    "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω", "Sigma": "Σ", "Delta": "Δ",
    "pm": "±", "mid": "|", "lVert": "‖", "rVert": "‖", "|": "‖", "odot": "⊙", "circ": "∘",
    "quad": " ", "qquad": " ", ",": " ", ";": " ", ":": " ", "!": "", " ": " ", "{": "{", "}": "}",
    "%": "%", "$": "$", "#": "#", "&": "&", "_": "_", "\\": "; ",
}
_TEX_DROP = {"left", "right", "big", "Big", "bigg", "Bigg", "displaystyle", "textstyle", "limits",
             "nolimits", "begin", "end"}
_MATH_DELIMS = re.compile(r"^\s*(\\\(|\\\[|\$\$)|(\\\)|\\\]|\$\$)\s*$")


def _tex_group(tex: str, i: int) -> tuple[str, int]:
    """The argument at `tex[i:]` (a {group} or one character) and the index after it."""
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex):
        return "", i
    if tex[i] == "{":
        depth, j = 0, i
        while j < len(tex):
            depth += {"{": 1, "}": -1}.get(tex[j], 0)
            if depth == 0:
                return tex[i + 1:j], j + 1
            j += 1
        return tex[i + 1:], len(tex)
    if tex[i] == "\\":
        m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
        return m.group(0), i + len(m.group(0))
    return tex[i], i + 1


def _wrap(text: str) -> str:
    return text if len(text) <= 1 or re.fullmatch(r"[\w.,]+", text) else f"({text})"


def tex_to_text(tex: str) -> str:
    """A readable rendering of a TeX formula for search snippets: no backslashes, no braces."""
    tex = _MATH_DELIMS.sub("", tex.strip())
    out: list[str] = []
    i = 0
    while i < len(tex):
        c = tex[i]
        if c == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
            name = m.group(1)
            i += len(m.group(0))
            if name in ("frac", "dfrac", "tfrac"):
                num, i = _tex_group(tex, i)
                den, i = _tex_group(tex, i)
                out.append(f"{_wrap(tex_to_text(num))}/{_wrap(tex_to_text(den))}")
            elif name == "sqrt":
                arg, i = _tex_group(tex, i)
                out.append("√" + _wrap(tex_to_text(arg)))
            elif name in ("begin", "end"):
                _, i = _tex_group(tex, i)   # the environment's name
            elif name in _TEX_DROP:
                pass
            elif name in _TEX_SYMBOLS:
                out.append(_TEX_SYMBOLS[name])
            elif name in ("text", "mathrm", "operatorname", "mathbf", "boldsymbol", "mathit", "textbf",
                          "mathsf", "mathtt", "textit", "mathcal", "mathbb", "emph"):
                arg, i = _tex_group(tex, i)
                out.append({"R": "ℝ"}.get(arg, tex_to_text(arg)) if name == "mathbb" else tex_to_text(arg))
            else:
                out.append(name)     # \exp, \max, \softmax: the name reads as a word
        elif c == "^":
            arg, i = _tex_group(tex, i + 1)
            text = tex_to_text(arg)
            out.append("ᵀ" if text in ("T", "ᵀ") else "^" + _wrap(text))
        elif c in "{}":
            i += 1
        elif c == "&":
            out.append(" ")
            i += 1
        else:
            out.append(c)
            i += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()


# --- text of a rendered page -------------------------------------------------------------------

@dataclass
class Section:
    anchor: str            # heading id ("" for the part before the first heading)
    title: str
    text: list[str] = field(default_factory=list)


_SKIP_TAGS = {"script", "style", "pre", "svg", "noscript", "template", "button", "select", "textarea",
              "form", "input"}
_SKIP_CLASSES = {"headerlink", "footnote-backref", "footnote-ref", "md-source-file", "katex-html",
                 "md-post__meta", "md-tags", "md-post--excerpt"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
         "wbr"}
_BLOCK = {"p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption",
          "summary", "dt", "dd", "blockquote", "table", "section", "details", "br"}
_DATA_SUMMARY = "Dane do rysunku"


class _Extractor(HTMLParser):
    """Sections of an article's HTML: (heading id, heading text, prose text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = [Section("", "")]
        self.stack: list[tuple[str, str]] = []     # (tag, role) of open elements
        self.skip = 0          # depth inside skipped elements
        self.math = None       # [all text, annotation text, in annotation] inside .arithmatex
        self.heading = None    # [id, text parts] inside h1..h6
        self.details: list[tuple[int, int]] = []   # (section index, text length) at each <details>
        self.summary: list[str] | None = None
        self.h1: str | None = None

    def _emit(self, text: str) -> None:
        if self.heading is not None:
            self.heading[1].append(text)
        else:
            self.sections[-1].text.append(text)
        if self.summary is not None:
            self.summary.append(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = set((a.get("class") or "").split())
        if tag in _VOID:
            if tag == "br":
                self._emit(" ")
            return
        role = ""
        if self.skip or tag in _SKIP_TAGS or classes & _SKIP_CLASSES or "hidden" in a \
                or a.get("aria-hidden") == "true" or "data-search-exclude" in a or a.get("role") == "tooltip":
            role = "skip"
            self.skip += 1
        elif self.math is not None:
            if tag == "annotation":
                role = "annotation"
                self.math[2] = True
        elif "arithmatex" in classes:
            role = "math"
            self.math = [[], [], False]
        elif tag == "h1" and self.heading is None and self.h1 is None:   # the page's own title
            role = "h1"
            self.heading = ["", []]
        elif tag in ("h2", "h3", "h4", "h5", "h6") and a.get("id") and self.heading is None:
            role = "heading"
            self.heading = [a["id"], []]
        elif tag == "details":
            role = "details"
            self.details.append((len(self.sections), len(self.sections[-1].text)))
        elif tag == "summary":
            role = "summary"
            self.summary = []
        self.stack.append((tag, role))
        if tag in _BLOCK and not self.skip:
            self._emit(" ")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in _VOID or not any(t == tag for t, _ in self.stack):
            return
        while self.stack:
            open_tag, role = self.stack.pop()
            self._close(open_tag, role)
            if open_tag == tag:
                break

    def _close(self, tag, role):
        if role == "skip":
            self.skip -= 1
        elif role == "annotation":
            self.math[2] = False
        elif role == "math":
            parts = self.math[1] or self.math[0]
            self.math = None
            self._emit(tex_to_text("".join(parts)))
        elif role == "h1":
            self.h1 = _clean("".join(self.heading[1]))
            self.heading = None
        elif role == "heading":
            anchor, parts = self.heading
            self.heading = None
            self.sections.append(Section(anchor, _clean("".join(parts))))
        elif role == "summary":
            text = _clean("".join(self.summary))
            self.summary = None
            if text.startswith(_DATA_SUMMARY):
                # a figure's data table: forget the summary and skip the rest of its <details>
                count, length = self.details[-1]
                del self.sections[count:]
                self.sections[-1].text = self.sections[-1].text[:length]
                last = max(i for i, (_, r) in enumerate(self.stack) if r == "details")
                self.stack[last] = (self.stack[last][0], "skip-details")
                self.skip += 1
        elif role == "skip-details":
            self.skip -= 1
            self.details.pop()
        elif role == "details":
            self.details.pop()
        if tag in _BLOCK and not self.skip:
            self._emit(" ")

    def handle_data(self, data):
        if self.skip:
            return
        if self.math is not None:
            self.math[0].append(data)
            if self.math[2]:
                self.math[1].append(data)
            return
        self._emit(data)


def _clean(text: str) -> str:
    return re.sub(r"\s+([,.;:!?)”])", r"\1", re.sub(r"\s+", " ", text)).strip()


CONTENT_RE = re.compile(r'<(?:article|div) class="md-content__inner[^"]*"[^>]*>(.*)</main>', re.S)


def page_sections(html: str) -> tuple[str | None, list[Section]]:
    """The `h1` and the sections of the content of a rendered page (all of `html` if it is not a
    whole page)."""
    m = CONTENT_RE.search(html)
    parser = _Extractor()
    parser.feed(m.group(1) if m else html)
    parser.close()
    out = []
    for s in parser.sections:
        text = _clean("".join(s.text))
        out.append(Section(s.anchor, s.title, [text] if text else []))
    return parser.h1, out


# --- the index ---------------------------------------------------------------------------------

def page_docs(url: str, title: str, html: str) -> list[dict]:
    """Search documents of one page: the page itself (its `h1`, else `title`, and the text before
    the first `h2`) and one per heading below it."""
    if EXCLUDED_PAGES.match(url):
        return []
    h1, sections = page_sections(html)
    docs = [{"location": url, "title": h1 or title, "text": " ".join(sections[0].text)}]
    for s in sections[1:]:
        text = " ".join(s.text)
        docs.append({"location": f"{url}#{s.anchor}", "title": s.title, "text": text})
    boost = PAGE_BOOST.get(url)
    if boost is not None:
        for d in docs:
            d["boost"] = boost
    return docs


def build_index(docs: list[dict], lemmatiser: Lemmatiser) -> dict:
    """The index shipped to the browser: documents and the lemma table of their words."""
    words = [w for d in docs for f in ("title", "text") for w in tokenize(d[f])]
    table = build_table(words, lemmatiser)
    return {"lemmas": grouped(table), "docs": docs}


def dump(index: dict) -> tuple[str, str]:
    """(file name with a content hash, JSON text) of the index; byte-identical for the same input."""
    text = json.dumps(index, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return index_name(text), text


def index_name(text: str) -> str:
    """The index's file name: `pl-index.<first 10 hex digits of its SHA-256>.json`."""
    return f"pl-index.{hashlib.sha256(text.encode('utf-8')).hexdigest()[:10]}.json"


def table_from_index(index: dict) -> dict[str, str]:
    """The folded surface -> lemma table back from the shipped, grouped form."""
    return {surface: lemma for lemma, surfaces in index["lemmas"].items() for surface in surfaces}
