"""Every private-use character the engine writes into a page's text.

The engine hands text between its steps with marks a contributor
cannot type: characters of Unicode's private-use area (U+E000 …).
Each one has one meaning, defined here and nowhere else, so that two
steps never read one character two ways. None of them reaches a
published page: the output check (markdown.py) stops the build on a
token left unfilled, and the math renderer takes every slot out of
the TeX before Temml reads it.

- a token (`TOKEN_OPEN`, `TOKEN_CLOSE`): a placeholder's place in the
  Markdown, written by `placeholders.scan`, filled by the extension;
- a shown brace (`BRACE_OPEN`, `BRACE_CLOSE`): a `{` or `}` that a
  value shows (`{{ "{{" }}`), carried past the output check, which
  reads a literal `{{` as a stray placeholder;
- a slot (`SLOT_OPEN`, `SLOT_TEX`, `SLOT_CLOSE`): on a live page, a
  number inside a formula with its compiled expression and format,
  read by the math renderer (mathml.py);
- the marks of `make unchecked` (`UNCHECKED_VALUE`,
  `UNCHECKED_MARK`): a value shown outside a claim, and a
  `{% nocompare %}`, in the masked page text that unchecked.py
  reads sentence by sentence.
"""

from __future__ import annotations

import json
import re

# A placeholder's token: U+E000 p<page>t<tag> U+E001
TOKEN_OPEN = "\ue000"
TOKEN_CLOSE = "\ue001"

# A brace a value shows, until the page's output check has read the page
BRACE_OPEN = "\ue002"
BRACE_CLOSE = "\ue003"

# A live number in a formula: U+E004 <expression and format, as hex> U+E005 <its TeX> U+E006.
# The hex keeps the expression free of TeX's and HTML's special characters on its way through
# arithmatex and Python-Markdown.
SLOT_OPEN = "\ue004"
SLOT_TEX = "\ue005"
SLOT_CLOSE = "\ue006"

# unchecked.py's masked text: one of these at the start of a shown value or of a mark, the
# rest blanked, so that offsets and line numbers stay those of the source
UNCHECKED_VALUE = "\ue007"
UNCHECKED_MARK = "\ue008"

# The two ways of the braces: hidden while the page is checked, shown after
HIDE_BRACES = str.maketrans("{}", BRACE_OPEN + BRACE_CLOSE)
SHOW_BRACES = str.maketrans(BRACE_OPEN + BRACE_CLOSE, "{}")

SLOT = re.compile(f"{SLOT_OPEN}([0-9a-f]*){SLOT_TEX}(.*?){SLOT_CLOSE}", re.DOTALL)


def slot(expr: str, fmt: str, tex: str) -> str:
    """A live page's number inside a formula: its compiled expression,
    its format and its TeX."""
    code = json.dumps([expr, fmt]).encode().hex()
    return f"{SLOT_OPEN}{code}{SLOT_TEX}{tex}{SLOT_CLOSE}"


def read_slot(m: re.Match) -> tuple[str, str]:
    """The compiled expression and the format of the slot `m` (a
    match of SLOT)."""
    expr, fmt = json.loads(bytes.fromhex(m.group(1)))
    return expr, fmt
