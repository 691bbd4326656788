"""The form table: every form of every lexeme the site uses -> the folded key of its lexeme.

Built from SGJP (the grammatical dictionary of Polish) through Morfeusz 2: the site's words are
analysed into lemmas (`readings`), each lemma generates its forms (`paradigm`). A reader who
types a form the site never writes (`zapytaniom`) then finds the pages that use another
(`zapytanie`). Words the dictionary does not know are left to the worker's stem match
(`softmaksu`).
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from collections.abc import Iterable

from anatomia_engine.search_pl.words import PREFIXES, fold

# Terms the site writes in two ways: the folded key on the left is searched as the one on the
# right. An attention head: "głowica uwagi" and "głowa uwagi".
SYNONYMS = {"glowica": "glowa"}
# Readings of unknown words and abbreviations (`K` -> "kompania"): no lexeme of the site.
_NO_LEXEME = ("ign", "brev")


# ---------------------------------------------------------------------------------------------
# The dictionary
# ---------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def dictionary():
    """Morfeusz 2 with SGJP, loaded once (it takes a second)."""
    import morfeusz2

    # `composite`: a past form with its person ending or `by` is one word (`policzyliśmy`,
    # `zrobiłbym`), as a reader writes it.
    return morfeusz2.Morfeusz(expand_tags=False, praet="composite")


def readings(word: str) -> list[tuple[str, str]]:
    """(SGJP lemma with its homonym mark, part of speech) of each reading of `word`, sorted.

    Only readings of the whole word as one: Morfeusz also offers splits into parts.
    """
    edges = dictionary().analyse(word)
    last = max((end for _, end, _ in edges), default=0)
    found = set()
    for start, end, (_, lemma, tag, *_) in edges:
        part_of_speech = tag.split(":")[0]
        whole_word = start == 0 and end == last
        if whole_word and part_of_speech not in _NO_LEXEME:
            found.add((lemma, part_of_speech))
    return sorted(found)


def paradigm(lemma: str) -> list[str]:
    """Every form of the SGJP lemma `lemma`, sorted.

    Without an adjective's compound-only form (`adja`: `polsko-` in `polsko-niemiecki`), which
    no reader searches for alone.
    """
    forms = set()
    for form, generated_from, tag, *_ in dictionary().generate(lemma):
        if generated_from == lemma and not tag.startswith("adja"):
            forms.add(form)
    return sorted(forms)


_LOOKUPS = {"readings": readings, "paradigm": paradigm}


def lookup(memo: dict, kind: str, name: str) -> list:
    """The `readings` of a word or the `paradigm` of a lemma, remembered in `memo`.

    The memo is stored between builds: looking up a site's words costs seconds.
    """
    done = memo.setdefault(kind, {})
    if name not in done:
        done[name] = _LOOKUPS[kind](name)
    return done[name]


def lexeme_key(lemma: str) -> str:
    """The folded SGJP lemma without its homonym mark: `to:S` -> `to`, `Polska:Sf~ej` -> `polska`.

    A colon in first place is the lemma itself (`:`), not a mark.
    """
    if ":" in lemma[1:]:
        return fold(lemma.split(":", 1)[0])
    return fold(lemma)


# ---------------------------------------------------------------------------------------------
# Building the table
# ---------------------------------------------------------------------------------------------


class _Lexemes:
    """What the site's words say about the lexemes they may belong to."""

    def __init__(self) -> None:
        # key -> site tokens it may stand for
        self.evidence: Counter = Counter()
        # key -> folded forms
        self.forms_of: dict[str, set[str]] = {}
        # keys with a noun reading (`zapytanie`, not `zapytać`)
        self.nominal: set[str] = set()
        # the site's words the dictionary knows, folded
        self.site: set[str] = set()

    def add(self, word: str, count: int, memo: dict) -> None:
        """Add the readings of a site word written `count` times."""
        lemmas = lookup(memo, "readings", word)
        if lemmas:
            self.site.add(fold(word))
        noun = any(pos == "subst" for _, pos in lemmas)
        counted = set()
        for lemma, pos in lemmas:
            key = lexeme_key(lemma)
            forms = [fold(form) for form in lookup(memo, "paradigm", lemma)]
            self.forms_of.setdefault(key, set()).update([fold(word), *forms])
            if pos == "subst":
                self.nominal.add(key)
            # A noun's form does not count for the gerund of the same spelling.
            if not (noun and pos == "ger"):
                counted.add(key)
        for key in counted:
            self.evidence[key] += count

    def rank(self, key: str) -> tuple:
        """Smaller ranks first: more of the site's tokens, then a noun, then the key."""
        return (-self.evidence[key], key not in self.nominal, key)

    def winners(self, keys: Iterable[str]) -> dict[str, str]:
        """Each form of the lexemes `keys` -> the best-ranked lexeme that has it."""
        table = {}
        # From the worst to the best, so that the best one's forms are written last.
        for key in sorted(keys, key=self.rank, reverse=True):
            for form in self.forms_of[key]:
                table[form] = key
        return table


def word_counts(words: Iterable[str]) -> Counter:
    """How often the site writes each word the table is built from: all that the table depends on."""
    # Numbers are no words of a lexeme.
    return Counter(w for w in words if not w.isdigit())


def build_table(words: Iterable[str], memo: dict | None = None) -> dict[str, str]:
    """Folded form -> folded key of its lexeme, for every form of every lexeme the site uses.

    A folded form of two lexemes (`kluczy`: `klucz` or `kluczyć`) goes to the one with more of
    the site's tokens (a noun's form does not count for the gerund of the same spelling), then
    to a noun, then to the first key. Words the dictionary does not know are left to the
    worker's stem match (`softmaksu`). `memo` keeps the dictionary's answers (see lookup).
    """
    if memo is None:
        memo = {}
    counts = word_counts(words)
    lexemes = _Lexemes()
    for word, count in sorted(counts.items()):
        lexemes.add(word, count, memo)
    # A lexeme that wins none of the site's own forms is dropped: it would only make other
    # words find this page.
    first = lexemes.winners(lexemes.forms_of)
    alive = {first[form] for form in lexemes.site}
    table = lexemes.winners(alive)
    _keep_dropped_best_readings(table, lexemes, alive, counts, memo)
    _join_synonyms(table)
    return dict(sorted(table.items()))


def _keep_dropped_best_readings(table, lexemes, alive, counts, memo) -> None:
    """A dropped lexeme that is the best reading of a site word whose folded form another lexeme
    took (`zwykle`, folded like `zwykłe`) keeps its forms: they go where its site words went."""
    best = set()
    for word in counts:
        keys = [lexeme_key(lemma) for lemma, _ in lookup(memo, "readings", word)]
        if keys:
            best.add(min(keys, key=lexemes.rank))
    for key in sorted(best - alive, key=lexemes.rank):
        went = Counter(table[form] for form in lexemes.forms_of[key] & lexemes.site)
        # where most of its site words went; a tie to the first key, so builds agree
        most = max(went.values())
        target = min(k for k, n in went.items() if n == most)
        for form in sorted(lexemes.forms_of[key]):
            table.setdefault(form, target)


def _join_synonyms(table: dict[str, str]) -> None:
    """Every form of a synonym's lexeme -> its counterpart's key (SYNONYMS)."""
    for folded, key in SYNONYMS.items():
        target = table.get(key, key)
        for form, k in list(table.items()):
            if k == folded:
                table[form] = target
        table.setdefault(folded, target)


# ---------------------------------------------------------------------------------------------
# The shipped encoding
# ---------------------------------------------------------------------------------------------


def _found_after_prefix(form: str, key: str, table: dict[str, str]) -> bool:
    # `normalise` finds such a form through its bare form, so the table need not ship it.
    bare = form[3:]
    if not form.startswith(PREFIXES) or bare.startswith(PREFIXES):
        return False
    return table.get(bare) == key


def encode_table(table: dict[str, str]) -> dict:
    """The shipped table: each lexeme as [stem, index of its paradigm].

    A paradigm is `<key's ending>|<endings of its forms>`, shared by lexemes that decline
    alike; forms `normalise` finds after PREFIXES are left out. The shipped file is a fraction
    of the plain table's size (search-pl.js decodes it).
    """
    groups: dict[str, list[str]] = {}
    for form, key in sorted(table.items()):
        if not _found_after_prefix(form, key, table):
            groups.setdefault(key, []).append(form)
    entries = []
    for key, forms in sorted(groups.items()):
        stem = os.path.commonprefix([key, *forms])
        endings = ",".join(f[len(stem):] for f in forms)
        entries.append((stem, key[len(stem):] + "|" + endings))
    patterns = sorted({pattern for _, pattern in entries})
    number = {pattern: i for i, pattern in enumerate(patterns)}
    lexemes = [[stem, number[pattern]] for stem, pattern in entries]
    return {"paradigms": patterns, "lexemes": lexemes}
