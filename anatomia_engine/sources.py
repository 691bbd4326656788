"""What an author's file must be before MkDocs and Python-Markdown read it: UTF-8, and lists or quotes
nested no deeper than Markdown can render. Either mistake would end the build in a raw traceback
(UnicodeDecodeError, RecursionError); here it stops with the file, the line and the fix."""

import re
from pathlib import Path

from mkdocs.exceptions import BuildError

from anatomia_engine import messages as M

MAX_DEPTH = 20   # levels of lists and quotes (the site's pages use 4 at most; ~100 exhaust the recursion)
_FENCE = re.compile(r"[ \t>]*(`{3,}|~{3,})")


def read_text(path: Path, where: str) -> str:
    """The text of the author's file at `path`; BuildError naming `where:line` if it is not UTF-8."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise BuildError(f"{where}:{line}: " + M.text("not_utf8", byte=f"0x{data[exc.start]:02x}",
                                                      column=column)) from None


def check_depth(text: str, where: str) -> None:
    """BuildError naming `where:line` where lists or quotes nest deeper than MAX_DEPTH (outside fences)."""
    fenced = None
    for number, line in enumerate(text.splitlines(), start=1):
        fence = _FENCE.match(line)
        if fence:
            mark = fence[1][0]
            fenced = None if fenced == mark else (fenced or mark)
            continue
        if fenced:
            continue
        lead = re.match(r"[ \t>]*", line)[0]
        depth = lead.count(">") + len(lead.replace(">", "").expandtabs(4)) // 4
        if depth > MAX_DEPTH:
            raise BuildError(f"{where}:{number}: " + M.text("too_deep", depth=depth, most=MAX_DEPTH))


def read_page(path: Path, where: str) -> str:
    """A page's Markdown, checked: UTF-8 and nesting (what MkDocs would read itself)."""
    text = read_text(path, where)
    check_depth(text, where)
    return text
