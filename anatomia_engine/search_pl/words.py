"""How a word becomes its index key.

The worker (search-pl.js) folds and looks up a query's words exactly as this module folds and
looks up the site's: a difference between the two would make a word unfindable without any
error, so tests/unit/test_search_forms.py runs both on the same words.
"""

import functools
import re
import unicodedata

WORD_RE = re.compile(r"[^\W_]+")
# Negated participles and gerunds (`niemaskowania`) and superlatives (`najzwyklej`): the
# shipped table leaves out such forms, and a word is looked up again without its prefix.
PREFIXES = ("nie", "naj")


def tokenize(text: str) -> list[str]:
    """The words of `text` (runs of letters and digits, NFC), as written."""
    return WORD_RE.findall(unicodedata.normalize("NFC", text))


class _Folding(dict):
    """What `str.translate` makes of each character when folding: Unicode's combining marks
    (category M, the diacritics once decomposed) dropped, `ł` -> `l` (it has no mark to drop),
    a loanword's `x` -> `ks` as Polish spells it; any other character kept.

    Filled as characters are met, so that a form's characters are looked up in C and each
    one's Unicode category asked once: the form table folds ~10^5 forms.
    """

    def __missing__(self, point: int) -> int | None:
        kept = point
        # str.translate drops a character whose entry is None
        if unicodedata.category(chr(point)).startswith("M"):
            kept = None
        self[point] = kept
        return kept


# One table for the process: the characters of the site's words are a few hundred.
_FOLDING = _Folding({ord("ł"): "l", ord("x"): "ks"})


@functools.lru_cache(maxsize=1 << 17)
def fold(word: str) -> str:
    """Lower case without diacritics, loanwords' `x` as Polish spells it: `Pamięć` -> `pamiec`."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return unicodedata.normalize("NFC", decomposed.translate(_FOLDING))


def normalise(word: str, table: dict[str, str]) -> str:
    """The index key of one word.

    Its lexeme's key if the table has the form, bare or after a prefix of PREFIXES (the
    shipped table leaves such forms out); else the form folded.
    """
    folded = fold(word)
    key = table.get(folded)
    if key:
        return key
    # Both prefixes have three letters.
    if folded.startswith(PREFIXES):
        key = table.get(folded[3:])
    if key:
        return key
    return folded
