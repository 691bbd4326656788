"""Sentences that show a computed value beside a comparing word, outside every claim.

`python -m anatomia_engine.unchecked [docs]` (`make unchecked`) lists, as `file:line: sentence`, each
sentence of the site's Markdown that shows a `{{ … }}` value next to a comparative or quantitative
Polish word (więcej, razy, najwyżej, około, rośnie, przed, prawy, …) and stands outside
`{% claim %}…{% endclaim %}`; exit status 1 if it finds any. A sentence an author has judged to
compare nothing carries `{% nocompare %}` (it shows nothing on the page). The scan reads the page
source: code spans and fenced code are skipped, a claim's sentence is checked by the build.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from anatomia_engine.placeholders import TAG

MARK = "nocompare"   # {% nocompare %}: a sentence judged to compare nothing
# Comparative and quantitative words (stems where Polish inflects them); matched at a word's start.
WORDS = [
    "więcej", "mniej", "większ", "mniejsz", "wyższ", "niższ", "dłuższ", "krótsz", "szybsz", "wolniejsz",
    "razy", "raza", "krotn", "połow", "podwo", "potro",
    "najwyżej", "najniżej", "najwięcej", "najmniej", "największ", "najmniejsz", "najbardziej",
    "najsilniej", "najsłabiej", "najmocniej", "najszybciej", "najwolniej", "najlepsz", "najgorsz",
    "najsilniejsz", "najsłabsz", "najbliższ", "najdalsz", "najwyższ", "najniższ", "najdłuższ",
    "około", "ok.", "prawie", "niemal", "blisko", "zaledwie", "dokładnie", "aż", "tylko", "ledwie",
    "ponad", "poniżej", "powyżej", "przekracz", "nie przekracz", "przewyższ", "dorówn",
    "rośnie", "rosną", "urósł", "urosł", "wzrost", "wzrasta", "wzrósł", "wzrosł",
    "spada", "spadek", "spadł", "maleje", "maleją", "zmalał", "zmniejsz", "zwiększ", "opada",
    "niż", "tyle samo", "równ", "ten sam", "ta sama", "to samo", "te same", "identyczn",
    "prawy", "prawa", "prawe", "prawym", "lewy", "lewa", "lewe", "lewym", "dolny", "dolna", "dolnym",
    "górny", "górna", "górnym", "wyżej", "niżej",
]
# "przed", "po", "od", "do" are too common to flag anywhere: only right before a value ("po 130
# krokach"), or "przed"/"po" a word after one ("130 kroków przed").
NEAR_VALUE = ["przed", "po", "od", "do"]
_WORD = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in sorted(WORDS, key=len, reverse=True))
                   + r")", re.IGNORECASE)
_NEAR = re.compile(r"(?<!\w)(?:" + "|".join(NEAR_VALUE) + r")\s+(?:krok\w*\s+)?\ue000"
                   r"|\ue000\S*\s+(?:\w+\s+)?(?:przed|po)(?!\w)", re.IGNORECASE)
_FRONT = re.compile(r"^-{3}[ \t]*\n.*?\n(?:\.{3}|-{3})[ \t]*\n", re.DOTALL)
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.DOTALL | re.MULTILINE)
_CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[„\"(*\[\ue000A-ZĄĆĘŁŃÓŚŹŻ0-9])"
                           r"|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d+\.)\s)")


@dataclass(frozen=True)
class Finding:
    where: str  # file:line
    sentence: str  # as written, placeholders included, on one line
    word: str  # the comparing word found

    def __str__(self) -> str:
        return f"{self.where}: „{self.sentence}” ({self.word})"


def _blank(text: str, start: int, end: int) -> str:
    """text with [start, end) replaced by spaces, newlines kept (so line numbers stay)."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def scan(text: str, where: str) -> Iterator[Finding]:
    """The findings of one page's source `text` (named `where` in them)."""
    front = _FRONT.match(text)
    if front:
        text = _blank(text, 0, front.end())
    for pattern in (_FENCE, _CODE_SPAN):
        for m in list(pattern.finditer(text)):
            text = _blank(text, m.start(), m.end())
    # claims are the build's to check: blank each claim's sentence; keep every other tag as a token
    shown: list[re.Match] = []
    inside = False
    out, pos = [], 0
    for m in TAG.finditer(text):
        block = m.group("block")
        out.append(re.sub(r"[^\n]", " ", text[pos:m.start()]) if inside else text[pos:m.start()])
        if block == "claim":
            inside = True
        elif block == "endclaim":
            inside = False
        if m.group("expr") is not None and not inside:
            shown.append(m)
            out.append("\ue000" + re.sub(r"[^\n]", " ", m.group(0))[1:])
        elif block == MARK and not inside:
            out.append("\ue001" + " " * (len(m.group(0)) - 1))
        else:
            out.append(re.sub(r"[^\n]", " ", m.group(0)))
        pos = m.end()
    out.append(re.sub(r"[^\n]", " ", text[pos:]) if inside else text[pos:])
    masked = "".join(out)
    start = 0
    for end in [m.start() for m in _SENTENCE_END.finditer(masked)] + [len(masked)]:
        sentence = masked[start:end]
        offset, start = start, end
        words = None
        if "\ue000" in sentence:
            words = _WORD.search(sentence.replace("\ue000", " ")) or _NEAR.search(sentence)
        marked = "\ue001" in sentence
        if marked == (words is not None):
            continue   # nothing to judge, or judged
        first = offset + sentence.index("\ue001" if marked else "\ue000")
        line = text.count("\n", 0, first) + 1
        begins = offset + len(sentence) - len(sentence.lstrip())   # the sentence without its leading space
        source = " ".join(text[begins:offset + len(sentence)].split())
        word = f"{{% {MARK} %}} where no value stands beside a comparing word: remove it" if marked else \
            words.group(0).rstrip("\ue000 ").strip()
        yield Finding(f"{where}:{line}", source, word)


def scan_docs(docs: Path) -> list[Finding]:
    """Every finding of the Markdown pages under `docs`, in file order."""
    found: list[Finding] = []
    for path in sorted(docs.rglob("*.md")):
        found += scan(path.read_text(encoding="utf-8"), str(path.relative_to(docs.parent)))
    return found


def main(argv: list[str]) -> int:
    docs = Path(argv[0] if argv else "docs")
    found = scan_docs(docs)
    for finding in found:
        print(finding)
    print(f"{len(found)} unchecked sentence(s): wrap each in {{% claim … %}} or, if it compares nothing, "
          f"mark it with {{% {MARK} %}}" if found else "no unchecked sentences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
