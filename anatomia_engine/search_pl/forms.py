"""The form table: every form of every lexeme the site uses -> the folded key of its lexeme.

Built from SGJP (the grammatical dictionary of Polish) through Morfeusz 2: the site's words are
analysed into lemmas (`readings`), each lemma generates its forms (`paradigm`). A reader who
types a form the site never writes (`zapytaniom`) then finds the pages that use another
(`zapytanie`). Words the dictionary does not know are left to the worker's stem match
(`softmaksu`).

The table falls apart into small groups of lexemes that share a form (the largest has a few
dozen lexemes): which lexeme gets a form is decided within its group alone. `FormTable` keeps
the groups, so that a word the site gains or loses costs its group's work, not the table's.
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
    """Morfeusz 2 with SGJP, loaded once: the binding's own dictionary object.

    Its answers are read field by field (form, lemma, tag number). The Python wrapper,
    `morfeusz2.Morfeusz`, converts every answer into a tuple of strings and lists first: for the
    ~3 000 lemmas of the site that conversion took half of the dictionary's time, for fields
    this module never reads. tests/unit/test_search_forms.py checks both agree.
    """
    import morfeusz2

    # `composite`: a past form with its person ending or `by` is one word (`policzyliśmy`,
    # `zrobiłbym`), as a reader writes it.
    wrapper = morfeusz2.Morfeusz(expand_tags=False, praet="composite")
    return wrapper._morfeusz_obj


@functools.cache
def _tag(tag_id: int) -> str:
    """The tag (`subst:sg:nom:n:ncol`) of the dictionary's tag number."""
    return dictionary().getIdResolver().getTag(tag_id)


def readings(word: str) -> list[tuple[str, str]]:
    """(SGJP lemma with its homonym mark, part of speech) of each reading of `word`, sorted.

    Only readings of the whole word as one: Morfeusz also offers splits into parts.
    """
    edges = list(dictionary().analyse(word))
    last = max((edge.endNode for edge in edges), default=0)
    found = set()
    for edge in edges:
        part_of_speech = _tag(edge.tagId).split(":")[0]
        whole_word = edge.startNode == 0 and edge.endNode == last
        if whole_word and part_of_speech not in _NO_LEXEME:
            found.add((edge.lemma, part_of_speech))
    return sorted(found)


def paradigm(lemma: str) -> list[str]:
    """Every form of the SGJP lemma `lemma`, sorted.

    Without an adjective's compound-only form (`adja`: `polsko-` in `polsko-niemiecki`), which
    no reader searches for alone.
    """
    forms = set()
    for form in dictionary().generate(lemma):
        if form.lemma == lemma and not _tag(form.tagId).startswith("adja"):
            forms.add(form.orth)
    return sorted(forms)


def lexeme_key(lemma: str) -> str:
    """The folded SGJP lemma without its homonym mark: `to:S` -> `to`, `Polska:Sf~ej` -> `polska`.

    A colon in first place is the lemma itself (`:`), not a mark.
    """
    if ":" in lemma[1:]:
        return fold(lemma.split(":", 1)[0])
    return fold(lemma)


class Morphology:
    """The dictionary's answers about the site's words, each asked once.

    `memo` holds them as JSON can (stored between builds: asking costs a second for a site):
    "readings" word -> [[lemma, part of speech], ...], "forms" lemma -> its folded forms.
    """

    def __init__(self, memo: dict | None = None) -> None:
        if memo is None:
            memo = {}
        self.memo = memo
        self.memo.setdefault("readings", {})
        self.memo.setdefault("forms", {})
        # answers not yet in the stored memo: it is to be stored again
        self.grown = False
        # lemma -> folded forms, as sets, made once per process
        self._forms: dict[str, frozenset[str]] = {}
        # word -> the keys of its lexemes, made once per process
        self._keys: dict[str, frozenset[str]] = {}

    def readings(self, word: str) -> list[list[str]]:
        """[lemma, part of speech] of each reading of `word` (see `readings`)."""
        known = self.memo["readings"]
        if word not in known:
            known[word] = [list(reading) for reading in readings(word)]
            self.grown = True
        return known[word]

    def keys(self, word: str) -> frozenset[str]:
        """The keys of the lexemes `word` may belong to."""
        if word not in self._keys:
            lemmas = self.readings(word)
            self._keys[word] = frozenset(lexeme_key(lemma) for lemma, _ in lemmas)
        return self._keys[word]

    def forms(self, lemma: str) -> frozenset[str]:
        """The folded forms of `lemma` (see `paradigm`)."""
        if lemma not in self._forms:
            known = self.memo["forms"]
            if lemma not in known:
                known[lemma] = sorted({fold(form) for form in paradigm(lemma)})
                self.grown = True
            self._forms[lemma] = frozenset(known[lemma])
        return self._forms[lemma]


# ---------------------------------------------------------------------------------------------
# Building the table
# ---------------------------------------------------------------------------------------------


def word_counts(words: Iterable[str]) -> Counter:
    """How often the site writes each word the table is built from: all that the table depends on."""
    # Numbers are no words of a lexeme.
    return Counter(w for w in words if not w.isdigit())


def build_table(words: Iterable[str], memo: dict | None = None) -> dict[str, str]:
    """Folded form -> folded key of its lexeme, for every form of every lexeme the site uses.

    A folded form of two lexemes (`kluczy`: `klucz` or `kluczyć`) goes to the one with more of
    the site's tokens (a noun's form does not count for the gerund of the same spelling), then
    to a noun, then to the first key. A lexeme that wins none of the site's own forms is
    dropped: it would only make other words find this page. Words the dictionary does not
    know are left to the worker's stem match (`softmaksu`). `memo` keeps the dictionary's
    answers (see Morphology).
    """
    table = FormTable(Morphology(memo))
    table.update(word_counts(words))
    return table.table()


class FormTable:
    """The form table of the site's word counts, worked out again where the counts change.

    A lexeme is known by its key; lexemes that share a folded form are one group, and which
    one gets a form depends on its group alone. `update` works out again the groups of the
    words whose counts changed, as they were and as they are.
    """

    def __init__(self, morphology: Morphology) -> None:
        self.morphology = morphology
        # site word -> how often the site writes it
        self.counts: Counter = Counter()
        # key -> site words with a reading of it
        self.words_of: dict[str, set[str]] = {}
        # key -> its folded forms (the paradigms of its site words' lemmas, the words too)
        self.forms_of: dict[str, frozenset[str]] = {}
        # folded form -> keys whose forms include it; made by the first update that needs
        # it (a build worked out from nothing does not)
        self.holders: dict[str, set[str]] | None = None
        # key -> site tokens it may stand for
        self.evidence: Counter = Counter()
        # keys with a noun reading (`zapytanie`, not `zapytać`)
        self.nominal: set[str] = set()
        # folded form -> key, before SYNONYMS join
        self.chosen: dict[str, str] = {}
        # key -> the forms `chosen` gives it
        self.won: dict[str, set[str]] = {}
        # key -> its shipped (stem, pattern), as encoded last
        self._entries: dict[str, tuple[str, str]] = {}
        # keys whose forms may have changed since they were encoded last
        self._changed: set[str] = set()

    # -- the words ------------------------------------------------------------------------------

    def update(self, counts: Counter) -> None:
        """Make the table that of `counts` (word -> how often the site writes it)."""
        every = counts.keys() | self.counts.keys()
        changed = {word for word in every if counts.get(word) != self.counts.get(word)}
        if not changed:
            return
        touched = set()
        for word in changed:
            touched |= self.morphology.keys(word)
        # the groups as they were (a lexeme may leave them, or they may fall apart)
        before = set()
        if self.forms_of:
            before = self._group(touched & self.forms_of.keys())
        # from nothing, every group is touched
        whole = not self.forms_of
        for word in changed:
            self._set_word(word, counts.get(word, 0))
        self.counts = Counter(counts)
        for key in touched:
            self._describe(key)
        # the groups as they are: they hold every key left of those as they were, and the
        # groups a touched lexeme joined
        group = set(self.forms_of)
        if not whole:
            group = self._group((touched | before) & self.forms_of.keys())
        for key in group | before:
            for form in self.won.pop(key, ()):
                del self.chosen[form]
        self._changed |= group | before
        self._choose(group)

    def _set_word(self, word: str, count: int) -> None:
        for key in self.morphology.keys(word):
            words = self.words_of.setdefault(key, set())
            if count:
                words.add(word)
            else:
                words.discard(word)

    def _describe(self, key: str) -> None:
        """The forms, evidence and noun reading of `key` from its site words."""
        old = self.forms_of.pop(key, frozenset())
        self.evidence.pop(key, None)
        self.nominal.discard(key)
        forms = set()
        for word in self.words_of.get(key, ()):
            forms.add(fold(word))
            readings = self.morphology.readings(word)
            noun = any(pos == "subst" for _, pos in readings)
            counted = False
            for lemma, pos in readings:
                if lexeme_key(lemma) != key:
                    continue
                forms |= self.morphology.forms(lemma)
                if pos == "subst":
                    self.nominal.add(key)
                # A noun's form does not count for the gerund of the same spelling.
                if not (noun and pos == "ger"):
                    counted = True
            if counted:
                self.evidence[key] += self.counts[word]
        if forms:
            self.forms_of[key] = frozenset(forms)
        else:
            self.words_of.pop(key, None)
        if self.holders is not None:
            self._hold(key, old, forms)

    def index_forms(self) -> None:
        """Make `holders` now rather than in the first update that needs it (serve, after its
        first build: the author's first save then costs only its own words' work)."""
        self._group(set())

    def _hold(self, key: str, old: Iterable[str], new: Iterable[str]) -> None:
        """`holders` once the forms of `key` are `new` instead of `old`."""
        for form in set(old) - set(new):
            holders = self.holders[form]
            holders.discard(key)
            if not holders:
                del self.holders[form]
        for form in set(new) - set(old):
            self.holders.setdefault(form, set()).add(key)

    def _group(self, keys: set[str]) -> set[str]:
        """`keys` and every key that shares a form with one of them, again and again."""
        if self.holders is None:
            self.holders = {}
            for key, forms in self.forms_of.items():
                self._hold(key, (), forms)
        group = set(keys)
        todo = list(keys)
        while todo:
            for form in self.forms_of[todo.pop()]:
                for other in self.holders[form] - group:
                    group.add(other)
                    todo.append(other)
        return group

    # -- the choice -------------------------------------------------------------------------------

    def rank(self, key: str) -> tuple:
        """Smaller ranks first: more of the site's tokens, then a noun, then the key."""
        return (-self.evidence[key], key not in self.nominal, key)

    def _winners(self, keys: Iterable[str]) -> dict[str, str]:
        """Each form of the lexemes `keys` -> the best-ranked lexeme that has it."""
        table = {}
        # From the worst to the best, so that the best one's forms are written last.
        for key in sorted(keys, key=self.rank, reverse=True):
            for form in self.forms_of[key]:
                table[form] = key
        return table

    def _choose(self, group: set[str]) -> None:
        """Give each form of the lexemes `group` (whole groups) its lexeme."""
        words = set()
        for key in group:
            words |= self.words_of[key]
        site = {fold(word) for word in words}
        first = self._winners(group)
        alive = {first[form] for form in site}
        table = self._winners(alive)
        self._keep_dropped_best_readings(table, words, site, alive)
        self.chosen.update(table)
        for form, key in table.items():
            self.won.setdefault(key, set()).add(form)

    def _keep_dropped_best_readings(self, table, words, site, alive) -> None:
        """A dropped lexeme that is the best reading of a site word whose folded form another
        lexeme took (`zwykle`, folded like `zwykłe`) keeps its forms: they go where its site
        words went."""
        best = {min(self.morphology.keys(word), key=self.rank) for word in words}
        for key in sorted(best - alive, key=self.rank):
            went = Counter(table[form] for form in self.forms_of[key] & site)
            # where most of its site words went; a tie to the first key, so builds agree
            most = max(went.values())
            target = min(k for k, n in went.items() if n == most)
            for form in sorted(self.forms_of[key]):
                table.setdefault(form, target)

    # -- the table as shipped ---------------------------------------------------------------------

    def _joined(self) -> dict[str, set[str]]:
        """Key -> its forms, every form of a synonym's lexeme under its counterpart's key
        (SYNONYMS); the sets of other keys are `won`'s own."""
        won = dict(self.won)
        for folded, key in SYNONYMS.items():
            target = self.chosen.get(key, key)
            joined = set(won.get(target, ()))
            joined |= won.pop(folded, set())
            if folded not in self.chosen:
                joined.add(folded)
            won[target] = joined
        return won

    def table(self) -> dict[str, str]:
        """Folded form -> folded key of its lexeme (see build_table), sorted by form."""
        table = {}
        for key, forms in self._joined().items():
            for form in forms:
                table[form] = key
        return dict(sorted(table.items()))

    def encoded(self) -> dict:
        """`encode_table(self.table())`, encoding again only the keys whose forms changed."""
        joined = self._joined()
        # a synonym's forms move to another key: both are encoded afresh
        again = set(self._changed)
        for folded, key in SYNONYMS.items():
            again |= {folded, key, self.chosen.get(key, key)}
        for key in again:
            self._entries.pop(key, None)
            if joined.get(key):
                self._entries[key] = _entry(key, joined[key])
        self._changed = set()
        return _numbered([self._entries[key] for key in sorted(self._entries)])


# ---------------------------------------------------------------------------------------------
# The shipped encoding
# ---------------------------------------------------------------------------------------------


def _entry(key: str, forms: Iterable[str]) -> tuple[str, str]:
    """(stem, paradigm) of the lexeme `key` with the folded `forms`: see encode_table."""
    forms = set(forms)
    shipped = []
    for form in sorted(forms):
        # `normalise` finds such a form through its bare form, so the table need not ship it.
        bare = form[3:]
        found_after_prefix = form.startswith(PREFIXES) and not bare.startswith(PREFIXES)
        if not (found_after_prefix and bare in forms):
            shipped.append(form)
    stem = os.path.commonprefix([key, *shipped])
    endings = ",".join(form[len(stem):] for form in shipped)
    return stem, key[len(stem):] + "|" + endings


def _numbered(entries: list[tuple[str, str]]) -> dict:
    """The shipped table of the lexemes' (stem, paradigm) in the order of their keys."""
    patterns = sorted({pattern for _, pattern in entries})
    number = {pattern: i for i, pattern in enumerate(patterns)}
    lexemes = [[stem, number[pattern]] for stem, pattern in entries]
    return {"paradigms": patterns, "lexemes": lexemes}


def encode_table(table: dict[str, str]) -> dict:
    """The shipped table: each lexeme as [stem, index of its paradigm].

    A paradigm is `<key's ending>|<endings of its forms>`, shared by lexemes that decline
    alike; forms `normalise` finds after PREFIXES are left out. The shipped file is a fraction
    of the plain table's size (search-pl.js decodes it).
    """
    forms_of: dict[str, set[str]] = {}
    for form, key in table.items():
        forms_of.setdefault(key, set()).add(form)
    return _numbered([_entry(key, forms_of[key]) for key in sorted(forms_of)])
