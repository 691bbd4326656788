"""Sentences that show a computed value beside a comparing word, outside every claim.

`python -m anatomia_engine.unchecked [docs]` (`make unchecked`) lists, as `file:line: sentence`,
each sentence of the site's Markdown that shows a `{{ … }}` value next to a comparative or
quantitative Polish word (więcej, razy, najwyżej, około, rośnie, przed, prawy, …) and stands
outside `{% claim %}…{% endclaim %}`; its exit status is 1 if it finds any.

A sentence an author has judged to compare nothing carries `{% nocompare %}` (it shows nothing
on the page). A mark on a sentence with nothing to judge is listed too, so marks cannot go stale.

The scan reads the page source: front matter, fenced code and code spans are skipped, and a
claim's sentence is the build's to check.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from anatomia_engine import sentinels
from anatomia_engine.placeholders import TAG

MARK = "nocompare"   # {% nocompare %}: a sentence judged to compare nothing
# What the masked text holds in place of a shown value and of a mark: one character at the start
# of each, the rest blanked, so that offsets and line numbers stay those of the source.
VALUE = sentinels.UNCHECKED_VALUE
MARKED = sentinels.UNCHECKED_MARK

# Comparative and quantitative words (stems where Polish inflects them); matched at a word's start.
WORDS = [
    "więcej", "mniej", "większ", "mniejsz", "wyższ", "niższ", "dłuższ", "krótsz", "szybsz",
    "wolniejsz", "razy", "raza", "krotn", "połow", "podwo", "potro",
    "najwyżej", "najniżej", "najwięcej", "najmniej", "największ", "najmniejsz", "najbardziej",
    "najsilniej", "najsłabiej", "najmocniej", "najszybciej", "najwolniej", "najlepsz", "najgorsz",
    "najsilniejsz", "najsłabsz", "najbliższ", "najdalsz", "najwyższ", "najniższ", "najdłuższ",
    "około", "ok.", "prawie", "niemal", "blisko", "zaledwie", "dokładnie", "aż", "tylko", "ledwie",
    "ponad", "poniżej", "powyżej", "przekracz", "nie przekracz", "przewyższ", "dorówn",
    "rośnie", "rosną", "urósł", "urosł", "wzrost", "wzrasta", "wzrósł", "wzrosł",
    "spada", "spadek", "spadł", "maleje", "maleją", "zmalał", "zmniejsz", "zwiększ", "opada",
    "niż", "tyle samo", "równ", "ten sam", "ta sama", "to samo", "te same", "identyczn",
    "prawy", "prawa", "prawe", "prawym", "lewy", "lewa", "lewe", "lewym", "dolny", "dolna",
    "dolnym", "górny", "górna", "górnym", "wyżej", "niżej",
]
# "przed", "po", "od", "do" are too common to flag anywhere: only right before a value ("po 130
# krokach"), or "przed"/"po" a word after one ("130 kroków przed").
NEAR_VALUE = ["przed", "po", "od", "do"]

# the longest words first, so that "najwięcej" is found whole rather than as "więcej"
_LONGEST_FIRST = sorted(WORDS, key=len, reverse=True)
_WORD = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in _LONGEST_FIRST) + r")",
                   re.IGNORECASE)
_NEAR = re.compile(
    r"(?<!\w)(?:" + "|".join(NEAR_VALUE) + r")\s+(?:krok\w*\s+)?" + VALUE
    + "|" + VALUE + r"\S*\s+(?:\w+\s+)?(?:przed|po)(?!\w)",
    re.IGNORECASE,
)
_FRONT = re.compile(r"^-{3}[ \t]*\n.*?\n(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.DOTALL | re.MULTILINE)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)
# a sentence ends at . ! ? … before a capital, a digit, a quote or a value; at a blank line; at a
# list item
_SENTENCE_END = re.compile(
    r"(?<=[.!?…])\s+(?=[„\"(*\[" + VALUE + r"A-ZĄĆĘŁŃÓŚŹŻ0-9])"
    r"|\n[ \t]*\n"
    r"|\n(?=[ \t]*(?:[-*+]|\d+\.)\s)"
)
_NOT_NEWLINE = re.compile(r"[^\n]")


@dataclass(frozen=True)
class Finding:
    where: str  # file:line
    sentence: str  # as written, placeholders included, on one line
    word: str  # the comparing word found, or what to do with a stale mark
    stale: bool = False  # a mark on a sentence with nothing to judge

    def __str__(self) -> str:
        return f"{self.where}: „{self.sentence}” ({self.word})"


def _spaces(text: str) -> str:
    """`text` with every character but newlines blanked (line numbers stay)."""
    return _NOT_NEWLINE.sub(" ", text)


def _blank(text: str, start: int, end: int) -> str:
    """text with [start, end) blanked, newlines kept."""
    return text[:start] + _spaces(text[start:end]) + text[end:]


def _without_code(text: str) -> str:
    """The page's source with its front matter, fenced code and code spans blanked."""
    front = _FRONT.match(text)
    if front:
        text = _blank(text, 0, front.end())
    # fences first: a backtick inside a fence opens no code span
    for pattern in (_FENCE, _CODE_SPAN):
        for m in list(pattern.finditer(text)):
            text = _blank(text, m.start(), m.end())
    return text


def _masked(text: str) -> str:
    """`text` with each value shown outside a claim as VALUE, each mark as MARKED, and every
    claim's sentence and every other tag blanked."""
    inside = False
    out = []
    pos = 0
    for m in TAG.finditer(text):
        between = text[pos:m.start()]
        # claims are the build's to check
        if inside:
            between = _spaces(between)
        out.append(between)
        block = m.group("block")
        if block == "claim":
            inside = True
        elif block == "endclaim":
            inside = False
        tag = m.group(0)
        # a value and a mark keep one character each: enough to be found, offsets unchanged
        if m.group("expr") is not None and not inside:
            out.append(VALUE + _spaces(tag)[1:])
        elif block == MARK and not inside:
            out.append(MARKED + " " * (len(tag) - 1))
        else:
            out.append(_spaces(tag))
        pos = m.end()
    rest = text[pos:]
    if inside:
        rest = _spaces(rest)
    out.append(rest)
    return "".join(out)


def _sentences(masked: str) -> Iterator[tuple[int, str]]:
    """(offset, sentence) of each sentence of the masked text."""
    start = 0
    ends = [m.start() for m in _SENTENCE_END.finditer(masked)]
    for end in [*ends, len(masked)]:
        yield start, masked[start:end]
        start = end


def _comparing_word(sentence: str) -> re.Match | None:
    """The first comparing word of a sentence that shows a value; None if it shows none."""
    if VALUE not in sentence:
        return None
    # the value's character is not a letter: "razy" right after a value is still a word's start
    word = _WORD.search(sentence.replace(VALUE, " "))
    if word:
        return word
    return _NEAR.search(sentence)


def scan(text: str, where: str) -> Iterator[Finding]:
    """The findings of one page's source `text` (named `where` in them)."""
    text = _without_code(text)
    for offset, sentence in _sentences(_masked(text)):
        word = _comparing_word(sentence)
        marked = MARKED in sentence
        # nothing to judge and no mark, or judged by its mark
        if marked == (word is not None):
            continue
        if marked:
            first = offset + sentence.index(MARKED)
            found = f"{{% {MARK} %}} where no value stands beside a comparing word: remove it"
        else:
            first = offset + sentence.index(VALUE)
            found = word.group(0).rstrip(VALUE + " ").strip()
        line = text.count("\n", 0, first) + 1
        # the sentence as written, without its leading space, on one line
        begins = offset + len(sentence) - len(sentence.lstrip())
        source = " ".join(text[begins:offset + len(sentence)].split())
        yield Finding(f"{where}:{line}", source, found, stale=marked)


def scan_docs(docs: Path) -> list[Finding]:
    """Every finding of the Markdown pages under `docs`, in file order."""
    found: list[Finding] = []
    for path in sorted(docs.rglob("*.md")):
        where = str(path.relative_to(docs.parent))
        found += scan(path.read_text(encoding="utf-8"), where)
    return found


def main(argv: list[str]) -> int:
    docs = Path(argv[0] if argv else "docs")
    found = scan_docs(docs)
    for finding in found:
        print(finding)
    if not found:
        print("no unchecked sentences")
        return 0
    print(f"{len(found)} unchecked sentence(s): wrap each in {{% claim … %}} or, if it compares "
          f"nothing, mark it with {{% {MARK} %}}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
