"""Polish site search: every form of every word on the site finds the pages that use the word.

Python and the worker (theme/assets/javascripts/workers/search-pl.js) normalise alike: words folded
(lower case, no diacritics, `ł` -> `l`, `x` -> `ks`), then the form table built here from SGJP through
Morfeusz 2: every form of every lexeme the site uses -> its key (`zapytaniom` finds `zapytanie`).
"""

import functools
import hashlib
import json
import os
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable
from importlib.metadata import version
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString

from anatomia_engine import messages as M
from anatomia_engine import store

WORD_RE = re.compile(r"[^\W_]+")
# Terms the site writes in two ways: the folded key on the left is searched as the one on the right.
SYNONYMS = {"glowica": "glowa"}   # an attention head: "głowica uwagi" and "głowa uwagi"
PREFIXES = ("nie", "naj")   # of negated participles and gerunds (`niemaskowania`), of superlatives


def tokenize(text: str) -> list[str]:
    """The words of `text` (runs of letters and digits, NFC), as written."""
    return WORD_RE.findall(unicodedata.normalize("NFC", text))


@functools.lru_cache(maxsize=1 << 17)   # the table has ~10^5 forms, folded once each
def fold(word: str) -> str:
    """Lower case without diacritics, loanwords' `x` as Polish spells it: `Pamięć` -> `pamiec`."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    bare = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFC", bare.replace("ł", "l").replace("x", "ks"))


def normalise(word: str, table: dict[str, str]) -> str:
    """The index key of one word: its lexeme's key if the table has the form, bare or after a prefix of
    PREFIXES (the shipped table leaves such forms out), else the form folded."""
    folded = fold(word)
    bare = table.get(folded[3:]) if folded.startswith(PREFIXES) else None
    return table.get(folded) or bare or folded


_NO_LEXEME = ("ign", "brev")    # readings of unknown words and abbreviations (`K` -> "kompania")


@functools.lru_cache(maxsize=1)
def _morfeusz():
    import morfeusz2

    # `composite`: a past form with its person ending or `by` is one word (`policzyliśmy`, `zrobiłbym`)
    return morfeusz2.Morfeusz(expand_tags=False, praet="composite")


def readings(word: str) -> list[tuple[str, str]]:
    """(SGJP lemma with its homonym mark, part of speech) of each reading of `word` as one word, sorted."""
    edges = _morfeusz().analyse(word)
    last = max((end for _, end, _ in edges), default=0)
    return sorted({(lemma, tag.split(":")[0]) for start, end, (_, lemma, tag, *_) in edges
                   if start == 0 and end == last and tag.split(":")[0] not in _NO_LEXEME})


def paradigm(lemma: str) -> list[str]:
    """Every form of the SGJP lemma `lemma`, sorted, without an adjective's compound-only form (`adja`)."""
    return sorted({form for form, lem, tag, *_ in _morfeusz().generate(lemma)
                   if lem == lemma and not tag.startswith("adja")})


def lookup(memo: dict, kind: str, name: str) -> list:
    """The `readings` of a word or the `paradigm` of a lemma, remembered in `memo` (stored between builds:
    looking up a site's words costs seconds)."""
    done = memo.setdefault(kind, {})
    if name not in done:
        done[name] = {"readings": readings, "paradigm": paradigm}[kind](name)
    return done[name]


def _key(lemma: str) -> str:
    """The folded SGJP lemma without its homonym mark: `to:S` -> `to`, `Polska:Sf~ej` -> `polska`."""
    return fold(lemma.split(":", 1)[0] if ":" in lemma[1:] else lemma)


def build_table(words: Iterable[str], memo: dict | None = None) -> dict[str, str]:
    """Folded form -> folded key of its lexeme, for every form of every lexeme the site uses.

    A folded form of two lexemes (`kluczy`: `klucz` or `kluczyć`) goes to the one with more of the site's
    tokens (a noun's form does not count for the gerund of the same spelling), then to a noun, then to
    the first key. Words the dictionary does not know are left to the worker's stem match (`softmaksu`)."""
    memo = {} if memo is None else memo
    counts = Counter(w for w in words if not w.isdigit())
    evidence: Counter = Counter()                 # key -> site tokens it may stand for
    forms_of: dict[str, set[str]] = {}            # key -> folded forms
    nominal: set[str] = set()                     # keys with a noun reading (`zapytanie`, not `zapytać`)
    site: set[str] = set()                        # the site's words the dictionary knows, folded
    for word, n in sorted(counts.items()):
        lemmas = lookup(memo, "readings", word)
        site.update([fold(word)] if lemmas else [])
        noun = any(pos == "subst" for _, pos in lemmas)
        for lemma, pos in lemmas:
            forms = map(fold, lookup(memo, "paradigm", lemma))
            forms_of.setdefault(_key(lemma), set()).update([fold(word), *forms])
            nominal.update([_key(lemma)] if pos == "subst" else [])
        for key in {_key(lemma) for lemma, pos in lemmas if not (noun and pos == "ger")}:
            evidence[key] += n

    def rank(key: str) -> tuple:
        return (-evidence[key], key not in nominal, key)

    def winners(keys) -> dict[str, str]:
        return {form: key for key in sorted(keys, key=rank, reverse=True) for form in forms_of[key]}

    # A lexeme that wins none of the site's own forms is dropped, unless it is the best reading of a
    # site word whose folded form another lexeme took (`zwykle`, folded like `zwykłe`): its forms then
    # go where its site words went.
    first = winners(forms_of)
    alive = {first[form] for form in site}
    table = winners(alive)
    used = {min((_key(lemma) for lemma, _ in memo["readings"][w]), key=rank)
            for w in counts if memo["readings"][w]}
    for key in sorted(used - alive, key=rank):
        went = Counter(table[form] for form in forms_of[key] & site)
        target = min(went.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        for form in sorted(forms_of[key]):
            table.setdefault(form, target)
    for folded, key in SYNONYMS.items():
        target = table.get(key, key)
        table.update({form: target for form, k in table.items() if k == folded})
        table.setdefault(folded, target)
    return dict(sorted(table.items()))


def encode_table(table: dict[str, str]) -> dict:
    """The shipped table: each lexeme as [stem, index of its paradigm] (`<key's ending>|<endings of its
    forms>`, shared by lexemes that decline alike), without forms `normalise` finds after PREFIXES."""
    groups: dict[str, list[str]] = {}
    for form, key in sorted(table.items()):
        bare = form[3:]
        if not (form.startswith(PREFIXES) and table.get(bare) == key and not bare.startswith(PREFIXES)):
            groups.setdefault(key, []).append(form)
    entries = []
    for key, forms in sorted(groups.items()):
        stem = os.path.commonprefix([key, *forms])
        entries.append((stem, key[len(stem):] + "|" + ",".join(f[len(stem):] for f in forms)))
    number = {p: i for i, p in enumerate(sorted({p for _, p in entries}))}
    return {"paradigms": sorted(number), "lexemes": [[stem, number[p]] for stem, p in entries]}


# What a snippet should not show: code, controls, hidden text (KaTeX's HTML: its MathML is read),
# permalinks, footnote marks, the blog's post meta and excerpts.
_SKIP_TAGS = {"script", "style", "pre", "svg", "noscript", "template", "button"}
_SKIP_CLASSES = {"headerlink", "footnote-backref", "footnote-ref", "md-source-file", "md-post__meta",
                 "md-tags", "md-post--excerpt"}
_BLOCKS = ["p", "div", "li", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "summary",
           "dt", "dd", "blockquote", "table", "section", "details", "br"]
CONTENT_RE = re.compile(r'<(?:article|div) class="md-content__inner[^"]*"[^>]*>(.*)</main>', re.S)
_SCRIPTS = {"mfrac": "/", "msub": "_", "msup": "^", "msubsup": "_^", "munder": "_", "mover": "^",
            "munderover": "_^"}
_BRACKETS = "()[]{}|‖,.;"


def _wrap(text: str) -> str:
    return text if len(text) <= 1 or re.fullmatch(r"[\w.,]+", text) else f"({text})"


def math_text(el) -> str:
    """A MathML formula as one line of text (`QKᵀ/(√d_k)`), its TeX annotation left out."""
    if isinstance(el, NavigableString):
        return str(el)
    parts = [math_text(c) for c in el.children if c.name != "annotation"]
    if el.name in _SCRIPTS and len(parts) > 1:
        if el.get("accent") == "true":      # `\hat{x}`: the letter is what reads
            return parts[0]
        parts = [p.strip() for p in parts]
        text = _wrap(parts[0]) if el.name == "mfrac" else parts[0]
        for mark, part in zip(_SCRIPTS[el.name], parts[1:], strict=False):
            text += "ᵀ" if mark == "^" and part in ("⊤", "T") else mark + _wrap(part)
        return text
    text = {"mtr": " ", "mtable": "; "}.get(el.name, "").join(parts)
    if (el.name in ("mo", "mtext") or el.name == "mi" and len(text) > 1) and text not in _BRACKETS:
        return f" {text} "
    return "√" + _wrap(text) if el.name == "msqrt" else " " if el.name == "mspace" else text


def _skipped(el) -> bool:
    return (el.name in _SKIP_TAGS or not _SKIP_CLASSES.isdisjoint(el.get("class", ()))
            or el.has_attr("hidden") or el.has_attr("data-search-exclude")
            or el.get("aria-hidden") == "true" or el.get("role") == "tooltip"
            or el.name == "details" and el.summary is not None       # a figure's data table
            and el.summary.get_text().strip().startswith("Dane do rysunku"))


def _clean(text: str) -> str:
    return re.sub(r"\s+([,.;:!?)”])", r"\1", re.sub(r"\s+", " ", text)).strip()


def page_docs(url: str, title: str, html: str) -> list[dict]:
    """Search documents of one rendered page, formulas as text, figure data left out: the page (its `h1`,
    else `title`, and its text before the first heading) and one per heading with an id."""
    title, m = re.sub(r"<[^>]+>", "", title), CONTENT_RE.search(html)
    soup = BeautifulSoup(m.group(1) if m else html, "html.parser")
    for el in soup.find_all(_skipped):   # a predicate: many times faster than soup.select
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
    return [w for d in docs for f in ("title", "text") for w in tokenize(d[f])]


def _json(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def own_search_meta(meta: dict) -> dict:
    """A page's own `search:` front matter; `meta` is told to keep the page out of Material's index."""
    own = meta.get("search") or {}
    meta["search"] = {**own, "exclude": True}
    return own


def own_docs(docs: list[dict], own: dict) -> list[dict]:
    """A page's documents under its own `search:` front matter (Material's `exclude` and `boost`)."""
    if own.get("exclude"):
        return []
    return [dict(doc, boost=float(own["boost"])) for doc in docs] if "boost" in own else docs


def write_index(site_dir: Path, docs_by_page: dict[str, list[dict]], cache: store.Store) -> None:
    """Write `search/pl-index.<hash>.json` and `search/pl-forms.<hash>.json` (the worker fetches them on
    the first query) and turn Material's `search_index.json` into a stub naming them."""
    search = Path(site_dir) / "search"
    if not (search / "search_index.json").exists():
        raise FileNotFoundError(M.text("search_disabled", path=search / "search_index.json"))
    config = json.loads((search / "search_index.json").read_text(encoding="utf-8"))["config"]
    docs = [d for url in sorted(docs_by_page) for d in docs_by_page[url]]
    words = site_words(docs)
    code = store.key(store.code_key(sys.modules[__name__]), f"morfeusz2-{version('morfeusz2')}")
    memo_key, table_key = store.key(code, "morphology"), store.key(code, _json(sorted(words)))
    memo = cache.get(memo_key, "search/morphology")      # read, so that pruning keeps it
    forms = cache.get(table_key, "search/pl-forms")
    if forms is None:
        memo = json.loads(memo) if memo else {}
        forms = _json(encode_table(build_table(words, memo))).encode("utf-8")
        cache.put(memo_key, _json(memo).encode("utf-8"))
        cache.put(table_key, forms)
    for old in search.glob("pl-*.json"):   # an earlier --dirty build's
        old.unlink()
    for kind, text in (("pl-index", _json({"docs": docs})), ("pl-forms", forms.decode("utf-8"))):
        name = f"{kind}.{hashlib.sha256(text.encode('utf-8')).hexdigest()[:10]}.json"
        config[kind.replace("-", "_")] = name
        (search / name).write_text(text, encoding="utf-8")
    (search / "search_index.json").write_text(json.dumps({"config": config, "docs": []}, sort_keys=True),
                                              encoding="utf-8")
