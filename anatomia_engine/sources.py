"""What an author's file must be before MkDocs and Python-Markdown read it: UTF-8, and lists or quotes
nested no deeper than Markdown can render. Either mistake would end the build in a raw traceback
(UnicodeDecodeError, RecursionError); here it stops with the file, the line and the fix."""

import re
import subprocess
from pathlib import Path

from anatomia_engine.errors import EngineError

# levels of lists and quotes (the site's pages use 4 at most; ~100 exhaust Python-Markdown's recursion)
MAX_DEPTH = 20
# a fence opening or closing a code block (in a quote too): what is inside is no Markdown
_FENCE = re.compile(r"[ \t>]*(`{3,}|~{3,})")
# what a line's nesting is read from: its leading spaces, tabs and quote marks
_LEAD = re.compile(r"[ \t>]*")


def read_text(path: Path, where: str) -> str:
    """The text of the author's file at `path`; EngineError naming `where:line` if it is not UTF-8."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        # (rfind gives -1 on the first line: the line starts at 0 either way)
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = f"0x{data[exc.start]:02x}"
        raise EngineError("not_utf8", where=f"{where}:{line}", byte=byte, column=column) from None


def check_depth(text: str, where: str) -> None:
    """EngineError naming `where:line` where lists or quotes nest deeper than MAX_DEPTH (outside fences)."""
    # the mark of the open fence (` or ~), None outside one
    fenced = None
    for number, line in enumerate(text.splitlines(), start=1):
        fence = _FENCE.match(line)
        if fence:
            mark = fence[1][0]
            # only the opening fence's mark closes it: ``` inside a ~~~ block is text
            if fenced == mark:
                fenced = None
            elif fenced is None:
                fenced = mark
            continue
        if fenced:
            continue
        lead = _LEAD.match(line)[0]
        # a quote mark is one level, four columns of indentation another
        depth = lead.count(">") + len(lead.replace(">", "").expandtabs(4)) // 4
        if depth > MAX_DEPTH:
            raise EngineError("too_deep", where=f"{where}:{number}", depth=depth, most=MAX_DEPTH)


def read_page(path: Path, where: str) -> str:
    """A page's Markdown, checked: UTF-8 and nesting (what MkDocs would read itself)."""
    text = read_text(path, where)
    check_depth(text, where)
    return text


def source_date_epoch(root: Path) -> str | None:
    """The time of the project's last commit (seconds since 1970), for SOURCE_DATE_EPOCH: the build date
    MkDocs writes (the sitemap's lastmod, its .gz header) then follows the sources, not the clock of the
    build. None outside a git checkout."""
    command = ["git", "-C", str(root), "log", "-1", "--format=%ct"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        # no git on this machine: the build is dated as MkDocs does it, by its clock
        return None
    stamp = done.stdout.strip()
    if done.returncode != 0 or not stamp.isdigit():
        return None
    return stamp
