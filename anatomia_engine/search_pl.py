"""Polish site search: every form of every word on the site finds the pages that use the word.

A word is normalised in three steps, identically here and in the browser
(anatomia_engine/theme/assets/javascripts/workers/search-pl-core.js):

1. tokenise: maximal runs of letters and digits of the NFC text (`[^\\W_]+` here, `[\\p{L}\\p{N}]+` in JS);
2. fold: lower case, NFD, combining marks dropped, `ł` -> `l` (so `pamięć`, `PAMIĘĆ`, `pamiec` agree);
3. look the folded form up in the form table built at build time: folded form -> key of its
   lexeme (the folded lemma). A form that is not in the table stays folded.

The table holds the full paradigm of every lexeme the site uses, from the SGJP dictionary through
Morfeusz 2's analyser and generator (`morfeusz2`, which ships the dictionary: no download at
build time): `nasycenia`, `zapytaniom`, `maskowaniem` reach their lexemes although the site never
writes them. A form two lexemes share goes to the one the site uses more (`build_table`);
loanwords the site declines (`softmax`, `softmaksu`) are declined the Polish way; SYNONYMS are
terms the site writes in two ways. The worker adds a stem fallback for forms no table knows.

Text for the index comes from each page's rendered article: headings split it into sections;
math becomes readable text (`QK^\\top/\\sqrt{d_k}` -> `QKᵀ/√d_k`), and code, figure data tables
("Dane do rysunku"), hidden elements and `data-search-exclude` are left out, so the result
snippets are prose.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from anatomia_engine import store

WORD_RE = re.compile(r"[^\W_]+")

# Terms the site writes in two ways: the folded key on the left is searched as the one on the right.
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


@functools.lru_cache(maxsize=1 << 17)   # the table has ~10^5 forms, folded once each
def fold(word: str) -> str:
    """Lower case without diacritics: `Pamięć` -> `pamiec`, `głów` -> `glow`."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    bare = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFC", bare.replace("ł", "l"))


def normalise(word: str, table: dict[str, str]) -> str:
    """The index key of one word: the key of its lexeme if the table has the form, else the form folded."""
    folded = fold(word)
    return table.get(folded, folded)


# --- the morphological dictionary (Morfeusz 2 with SGJP) -----------------------------------------

# Readings that name no lexeme of the text: unknown words, abbreviations (`K` -> "kompania").
_NO_LEXEME = ("ign", "brev")
# Segments that Morfeusz splits off a verb form: `policzyliśmy` = `policzyli` + `śmy`, `zrobiłbym`.
_CLITICS = ("aglt", "part")


@functools.lru_cache(maxsize=1)
def _morfeusz():
    import morfeusz2

    return morfeusz2.Morfeusz(expand_tags=False)


def dictionary_version() -> str:
    """The version of `morfeusz2`, which ships its SGJP dictionary: part of every stored key derived
    from them (read from the package's metadata: a warm build does not load the dictionary)."""
    from importlib.metadata import version

    return f"morfeusz2-{version('morfeusz2')}"


def _base(lemma: str) -> str:
    """SGJP's lemma without its homonym mark: `to:S` -> `to`, `Polska:Sf~ej` -> `Polska`."""
    return lemma.split(":", 1)[0] if ":" in lemma[1:] else lemma


def readings(word: str) -> list[tuple[str, str]]:
    """(SGJP lemma with its homonym mark, part of speech) of each reading of `word` as written,
    sorted; [] for a word the dictionary does not know.

    A form Morfeusz splits (`policzyliśmy`, `zrobiłbym`) is read by its first segment when the
    rest are only the verb's clitics."""
    edges = _morfeusz().analyse(word)
    if not edges:
        return []
    last = max(end for _, end, _ in edges)
    clitic_from = {start for start, _, i in edges if i[2].split(":")[0] in _CLITICS}

    def reaches_end(node: int) -> bool:
        if node == last:
            return True
        return node in clitic_from and any(
            reaches_end(end) for start, end, i in edges if start == node and i[2].split(":")[0] in _CLITICS)

    return sorted({(i[1], i[2].split(":")[0]) for start, end, i in edges
                   if start == 0 and i[2].split(":")[0] not in _NO_LEXEME and reaches_end(end)})


def _with_clitics(form: str, tag: str) -> list[str]:
    """A past-tense form with the person endings and `by` written onto it: `policzył` -> `policzyłem`."""
    if not tag.startswith("praet:"):
        return [form]
    plural = tag.split(":")[1] == "pl"
    persons = ("śmy", "ście") if plural else (("em", "eś") if form.endswith("ł") else ("m", "ś"))
    by = ("śmy", "ście") if plural else ("m", "ś")
    return [form, *(form + p for p in persons), form + "by", *(form + "by" + p for p in by)]


def paradigm(lemma: str) -> list[str]:
    """Every form of the SGJP lemma `lemma` (with its homonym mark), as written, sorted; without
    an adjective's compound-only form (`adja`: `nisko-` of `niski` is spelled as the adverb `nisko`)."""
    forms = set()
    for form, lem, tag, *_ in _morfeusz().generate(lemma):
        if lem == lemma and not tag.startswith("adja"):
            forms.update(_with_clitics(form, tag))
    return sorted(forms)


class Morphology:
    """Readings of words and paradigms of lemmas, remembered between builds in one stored entry
    (a site's ~5000 words and ~2700 lemmas cost ~2 s of CPU to look up, the entry ~0.05 s to read)."""

    def __init__(self, stored: bytes | None = None):
        memo = json.loads(stored) if stored else {}
        self.readings: dict[str, list] = memo.get("readings", {})
        self.paradigms: dict[str, list[str]] = memo.get("paradigms", {})
        self.changed = False

    def of(self, word: str) -> list[tuple[str, str]]:
        if word not in self.readings:
            self.readings[word] = readings(word)
            self.changed = True
        return [tuple(r) for r in self.readings[word]]

    def forms(self, lemma: str) -> list[str]:
        if lemma not in self.paradigms:
            self.paradigms[lemma] = paradigm(lemma)
            self.changed = True
        return self.paradigms[lemma]

    def dump(self) -> bytes:
        return json.dumps({"readings": self.readings, "paradigms": self.paradigms}, ensure_ascii=False,
                          sort_keys=True, separators=(",", ":")).encode("utf-8")


# --- loanwords inflected the Polish way ------------------------------------------------------------

# The locative singular of a masculine noun softens its last consonant(s): `prompt` -> `prompcie`.
_LOCATIVE = [("st", "ście"), ("zd", "ździe"), ("sł", "śle"), ("t", "cie"), ("d", "dzie"), ("r", "rze"),
             ("ł", "le"), ("b", "bie"), ("f", "fie"), ("m", "mie"), ("n", "nie"), ("p", "pie"),
             ("s", "sie"), ("w", "wie"), ("z", "zie")]
_VELAR = ("k", "g", "ch", "h")
_SOFT = ("c", "cz", "sz", "rz", "ż", "dz", "j", "l")
_ENDINGS = sorted({"a", "u", "owi", "em", "iem", "e", "ie", "y", "i", "ów", "om", "ami", "ach", "ę", "ą", "o",
                   *(loc for _, loc in _LOCATIVE)}, key=lambda e: (-len(e), e))


def polish_spelling(word: str) -> str:
    """How Polish spells a loanword's sounds where its inflected forms do: `softmax` -> `softmaks`."""
    return word.replace("x", "ks")


def loanword_forms(base: str) -> set[str]:
    """The forms of a loanword `base` (Polish spelling, lower case) declined as a Polish noun: a
    consonant at the end as a masculine noun (`softmaks`: `softmaksu`, `softmaksa`, `softmaksem`,
    `softmaksie`, ...), `-a` as a feminine one (`llama`: `llamy`, `llamie`, `llamę`, ...); with both
    spellings where the written word had `ks` for `x`. Empty for other words."""
    if not re.fullmatch(r"[a-ząćęłńóśźż]{3,}", base):
        return set()
    forms = {base}
    if base.endswith("a"):
        stem = base[:-1]
        soft = _locative(stem)
        forms |= {stem + e for e in ("y", "i", "ę", "ą", "o", "om", "ami", "ach", "")} | {soft}
    elif base[-1] not in "aeiouyąęó":
        velar, soft = base.endswith(_VELAR), base.endswith(_SOFT)
        forms |= {base + e for e in ("a", "u", "owi", "ów", "om", "ami", "ach")}
        forms |= {base + ("iem" if velar else "em"), base + ("i" if velar else "y")}
        forms |= {base + "u", base + "e"} if soft or base.endswith("ch") else {_locative(base)}
    if "ks" in base:   # the writer may keep the x: softmaxu, softmaxem
        forms |= {f.replace("ks", "x") for f in forms}
    return forms


def _locative(stem: str) -> str:
    for end, loc in _LOCATIVE:
        if stem.endswith(end):
            return stem[: -len(end)] + loc
    return stem + ("u" if stem.endswith(_VELAR) else "ie")


def loanword_base(word: str, bases: set[str]) -> str | None:
    """The loanword `word` (lower case, unknown to the dictionary) is a form of: one of `bases` (the
    site's words, Polish spelling) if one declines to it, else None (`softmaksem` -> `softmaks`)."""
    spelled = polish_spelling(word)
    candidates = [spelled] + [spelled[: -len(e)] + back for e in _ENDINGS if spelled.endswith(e)
                              for back in ("", "a", *(end for end, loc in _LOCATIVE if loc == e))]
    for base in candidates:
        if base in bases and base != spelled and word in loanword_forms(base):
            return base
    return None


# --- the form table --------------------------------------------------------------------------------

def build_table(words: Iterable[str], morphology: Morphology | None = None) -> dict[str, str]:
    """Folded form -> folded key of its lexeme, for every form of every lexeme the site uses.

    Each word of the site is read by the dictionary; every lemma it may be a form of brings its
    full paradigm (all cases, persons, the gerund and participles of a verb). Where two lexemes
    share a folded form (`kluczy`: `klucz` or `kluczyć`; `zapytania`: the noun or the verb's
    gerund; `kat` folded from `kąt`), the form goes to the lexeme with more of the site's words
    (tokens counted; a noun's form does not count for a verb's gerund of the same spelling): the
    site's own usage. Ties go to a noun, then to the alphabetically first key. Loanwords the
    dictionary does not know are declined the Polish way when the site itself declines them
    (`softmax`, `softmaksu`).
    """
    morphology = morphology or Morphology()
    counts = Counter(words)
    evidence: Counter = Counter()                 # key -> site tokens it may stand for
    forms_of: dict[str, set[str]] = {}            # key -> folded forms
    nominal: set[str] = set()                     # keys with a noun reading (`zapytanie`, not `zapytać`)
    site_forms: set[str] = set()                  # the site's words, folded
    unknown: Counter = Counter()
    for word, n in sorted(counts.items()):
        if word.isdigit():
            continue
        lemmas = morphology.of(word)
        if not lemmas:
            unknown[word.lower()] += n
            continue
        for lemma, pos in lemmas:
            key = fold(_base(lemma))
            forms_of.setdefault(key, set()).update(fold(f) for f in morphology.forms(lemma))
            forms_of[key].add(fold(word))
            if pos == "subst":
                nominal.add(key)
        # a form that is a noun and a verb's gerund (`zapytania`) is the noun where the site uses it
        noun = any(pos == "subst" for _, pos in lemmas)
        for key in {fold(_base(lemma)) for lemma, pos in lemmas if not (noun and pos == "ger")}:
            evidence[key] += n
        site_forms.add(fold(word))

    def rank(key: str) -> tuple:
        return (-evidence[key], key not in nominal, key)

    used = {min((fold(_base(lemma)) for lemma, _ in morphology.of(word)), key=rank)
            for word in counts if not word.isdigit() and morphology.of(word)}
    table = _resolve(forms_of, rank, site_forms, used)
    # loanwords: a base is a site word (Polish spelling) that another, unknown, site word declines to
    spelled = {polish_spelling(w) for w in unknown} | set(table.values())
    groups: dict[str, set[str]] = {}
    for word in sorted(unknown):
        base = loanword_base(word, spelled)
        if base is not None:
            groups.setdefault(base, set()).add(word)
    for base in sorted(groups):
        key = fold(base)
        for form in sorted(loanword_forms(base) | groups[base]):
            table.setdefault(fold(form), table.get(key, key))
    for folded, key in SYNONYMS.items():
        target = table.get(key, key)
        for form, k in list(table.items()):
            if k == folded:
                table[form] = target
        table.setdefault(folded, target)
    return {form: key for form, key in sorted(table.items()) if form != key}


def _resolve(forms_of: dict[str, set[str]], rank, site: set[str], used: set[str]) -> dict[str, str]:
    """Each form to its best-ranked lexeme. A lexeme that wins none of the site's own forms is
    dropped, unless it is `used`: the best reading of a site word as written, whose folded form
    another lexeme took (`zwykle`, folded like `zwykłe`); its other forms then go where its site
    words went (`najzwyklej` finds the pages that write `zwykle`)."""
    def winners(keys) -> dict[str, str]:
        best: dict[str, str] = {}
        for key in sorted(keys, key=rank, reverse=True):    # the best last, so it overwrites
            for form in forms_of[key]:
                best[form] = key
        return best

    first = winners(forms_of)
    alive = {first[form] for form in site if form in first}
    table = winners(alive)
    for key in sorted(used - alive, key=rank):
        went = Counter(table[form] for form in forms_of[key] & site if form in table)
        if went:
            target = min(went.items(), key=lambda kv: (-kv[1], kv[0]))[0]
            for form in sorted(forms_of[key]):
                table.setdefault(form, target)
    return table


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


def site_words(docs: list[dict]) -> list[str]:
    """Every word of the documents, as written, in order (repeats count as the site's usage)."""
    return [w for d in docs for f in ("title", "text") for w in tokenize(d[f])]


# Prefixes a paradigm's forms may carry before the stem, written as one mark in the shipped table:
# `nie` of negated gerunds and participles (`niemaskowania`), `naj` of superlatives (`najkrótszy`).
PREFIX_MARKS = {"~": "nie", "^": "naj"}


def _ending(form: str, stem: str) -> str | None:
    """`form` as marks + its ending after `stem`, or None if it does not contain the stem so."""
    marks = ""
    while not form.startswith(stem):
        mark = next((m for m, p in PREFIX_MARKS.items() if form.startswith(p)), None)
        if mark is None:
            return None
        marks, form = marks + mark, form[len(PREFIX_MARKS[mark]):]
    return marks + form[len(stem):]


def encode_table(table: dict[str, str]) -> dict:
    """The shipped form of the table: each lexeme as its stem and a paradigm of endings shared by
    all lexemes that decline alike (`glow` + `a|ach,ami,ie,o,om,y,...`); `decode_table` inverts it.

    A paradigm is `<key's ending>|<endings of its other forms>`, each ending led by the marks of
    PREFIX_MARKS it has before the stem; the stem is the longest prefix the key and the forms
    share once those prefixes are set aside. Lexemes list [stem, paradigm index], sorted by key."""
    groups: dict[str, list[str]] = {}
    for form, key in sorted(table.items()):
        groups.setdefault(key, []).append(form)
    entries = []
    for key, forms in sorted(groups.items()):
        bare = [f for f in forms if not f.startswith(tuple(PREFIX_MARKS.values()))]
        stem = os.path.commonprefix([key, *bare])
        while stem and any(_ending(f, stem) is None for f in forms):
            stem = stem[:-1]
        paradigm = key[len(stem):] + "|" + ",".join(sorted(_ending(f, stem) for f in forms))
        entries.append((stem, paradigm))
    order = sorted({p for _, p in entries})
    number = {p: i for i, p in enumerate(order)}
    return {"paradigms": order, "lexemes": [[stem, number[p]] for stem, p in entries]}


def decode_table(shipped: dict) -> dict[str, str]:
    """Folded form -> key back from `encode_table`'s form (the worker decodes it the same way)."""
    table = {}
    for stem, number in shipped["lexemes"]:
        own, _, endings = shipped["paradigms"][number].partition("|")
        for ending in endings.split(","):
            prefix = ""
            while ending[:1] in PREFIX_MARKS:
                prefix, ending = prefix + PREFIX_MARKS[ending[0]], ending[1:]
            table[prefix + stem + ending] = stem + own
    return table


def dump(obj: dict, kind: str) -> tuple[str, str]:
    """(file name with a content hash, JSON text) of `obj`; byte-identical for the same input."""
    text = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return file_name(kind, text), text


def file_name(kind: str, text: str) -> str:
    """`<kind>.<first 10 hex digits of the text's SHA-256>.json` (`pl-index`, `pl-forms`)."""
    return f"{kind}.{hashlib.sha256(text.encode('utf-8')).hexdigest()[:10]}.json"


# --- one build: the calls of the MkDocs side -----------------------------------------------------

def own_search_meta(meta: dict) -> dict:
    """A page's own `search:` front matter, and `meta` told to keep the page out of Material's lunr
    index (Material's documented switch; its index is replaced by ours, so it need not parse pages)."""
    own = meta.get("search") or {}
    meta["search"] = {**own, "exclude": True}
    return own


def docs_of_page(url: str, title: str, html: str, own: dict, cache: store.Store,
                 where: str = "") -> list[dict]:
    """The search documents of one built page (`own`: its `search:` front matter, Material's
    `exclude` and `boost`), kept in `cache` by the page's HTML."""
    if own.get("exclude"):
        return []
    title = tex_to_text(re.sub(r"<[^>]+>", "", title or ""))
    name = store.key(store.source_of(sys.modules[__name__]), url, title, html)
    stored = cache.get(name, where)
    if stored is not None:
        docs = json.loads(stored)
    else:
        docs = page_docs(url, title, html)
        cache.put(name, json.dumps(docs, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    if "boost" in own:
        for doc in docs:
            doc["boost"] = float(own["boost"])
    return docs


def write_index(site_dir: Path, docs_by_page: dict[str, list[dict]], cache: store.Store) -> None:
    """Write `search/pl-index.<hash>.json` (documents) and `search/pl-forms.<hash>.json` (the form
    table), both read by the worker only when the reader types a query, and turn Material's
    `search/search_index.json`, which its bundle fetches on every page load, into a stub that only
    names them. The table is kept in `cache` by the site's words, the dictionary's look-ups by
    the dictionary's version."""
    stub = Path(site_dir) / "search" / "search_index.json"
    if not stub.exists():
        raise FileNotFoundError(f"{stub} is missing: the 'search' plugin must stay enabled in mkdocs.yml")
    material = json.loads(stub.read_text(encoding="utf-8"))
    docs = [d for url in sorted(docs_by_page) for d in docs_by_page[url]]
    words = site_words(docs)
    source = store.source_of(sys.modules[__name__])
    version = dictionary_version()
    table_key = store.key(source, version, json.dumps(sorted(Counter(words).items()), ensure_ascii=False))
    forms_text = (cache.get(table_key, "search/pl-forms") or b"").decode("utf-8")
    if not forms_text:
        memo_key = store.key(source, version, "morphology")
        morphology = Morphology(cache.get(memo_key, "search/morphology"))
        forms_text = dump(encode_table(build_table(words, morphology)), "pl-forms")[1]
        cache.put(memo_key, morphology.dump())
        cache.put(table_key, forms_text.encode("utf-8"))
    else:
        cache.get(store.key(source, version, "morphology"))     # keep the dictionary's look-ups
    index_text = dump({"docs": docs}, "pl-index")[1]
    cache.prune()
    for old in [*stub.parent.glob("pl-index.*.json"), *stub.parent.glob("pl-forms.*.json")]:
        old.unlink()
    names = {}
    for kind, text in (("pl-index", index_text), ("pl-forms", forms_text)):
        names[kind] = file_name(kind, text)
        (stub.parent / names[kind]).write_text(text, encoding="utf-8")
    config = {**material["config"], "lang": ["pl"],
              "pl_index": names["pl-index"], "pl_forms": names["pl-forms"]}
    stub.write_text(json.dumps({"config": config, "docs": []}, sort_keys=True), encoding="utf-8")


def load_built(site_dir: Path) -> tuple[dict, dict[str, str]]:
    """(index, form table) of a built site, as the worker reads them."""
    search = Path(site_dir) / "search"
    config = json.loads((search / "search_index.json").read_text(encoding="utf-8"))["config"]
    index = json.loads((search / config["pl_index"]).read_text(encoding="utf-8"))
    forms = json.loads((search / config["pl_forms"]).read_text(encoding="utf-8"))
    return index, decode_table(forms)
