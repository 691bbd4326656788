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


# The form table has ~10^5 forms; each is folded once.
@functools.lru_cache(maxsize=1 << 17)
def fold(word: str) -> str:
    """Lower case without diacritics, loanwords' `x` as Polish spells it: `Pamięć` -> `pamiec`."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    # Unicode's combining marks (category M) are the diacritics once decomposed; `ł` has
    # none to drop, so it is replaced by hand.
    bare = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    bare = bare.replace("ł", "l").replace("x", "ks")
    return unicodedata.normalize("NFC", bare)


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
