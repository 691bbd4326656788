"""What a notebook cell may show: bounded in size and line length, and never NaN.

A page is no log file. One long line also made nbclient's joining of a stream's pieces
quadratic: a cell printing a 1 MB line kept the build busy for minutes. So the size is counted
as the pieces arrive, and the kernel is interrupted at the first piece past the bounds, before
nbclient joins anything. The lab's cells show at most a few hundred characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Characters per cell, all its text outputs together.
MAX_OUTPUT = 20_000
# Characters per line.
MAX_LINE = 500
# The outputs a reader reads as text (an image's size is its own matter).
TEXT_TYPES = ("text/plain", "text/html", "text/markdown", "text/latex")
# NumPy's nan, pandas' NaN; not "nanosekundy" nor "banan".
_NAN = re.compile(r"(?<![\w.])nan(?![\w(])", re.IGNORECASE)


@dataclass
class Shown:
    """What one cell has shown so far: characters in all, and its unfinished last line."""

    total: int = 0
    line: int = 0

    def add(self, text: str) -> int:
        """Count `text`; the longest line it makes, with the unfinished one it continues."""
        self.total += len(text)
        parts = text.split("\n")
        longest = max([self.line + len(parts[0]), *(len(part) for part in parts[1:])])
        if len(parts) == 1:
            self.line += len(parts[0])
        else:
            self.line = len(parts[-1])
        return longest


def _texts(msg: dict) -> list[str]:
    """The text a kernel's output message carries."""
    content = msg.get("content", {})
    if msg["msg_type"] == "stream":
        return [content.get("text", "")]
    texts = []
    for kind, value in content.get("data", {}).items():
        if kind in TEXT_TYPES:
            texts.append(str(value))
    return texts


def bounded_client(end_kernel):
    """The NotebookClient class that keeps each cell's text output within the bounds.

    Past MAX_OUTPUT characters or a line of MAX_LINE it keeps no more and calls
    `end_kernel(client)`, which ends its kernel; the execution then fails, and `too_much` holds
    (cell index, characters shown, longest line). Made on use: nbclient is imported only by a
    build with a notebook.
    """
    from nbclient import NotebookClient

    class BoundedClient(NotebookClient):
        # Set once, by the first piece past the bounds; the build reads it after the run.
        too_much: tuple[int, int, int] | None = None

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.shown_by_cell: dict[int, Shown] = {}

        def output(self, outs, msg, display_id, cell_index):
            # The kernel is being ended: what still arrives is not kept.
            if self.too_much is not None:
                return None
            shown = self.shown_by_cell.setdefault(cell_index, Shown())
            for text in _texts(msg):
                longest = shown.add(text)
                if shown.total > MAX_OUTPUT or longest > MAX_LINE:
                    self.too_much = (cell_index, shown.total, longest)
                    # Ended, not interrupted: an interrupt that reached the kernel as the cell
                    # finished left the client waiting for a reply the cell's whole time limit
                    # (CELL_TIMEOUT); the build stops here either way.
                    end_kernel(self)
                    return None
                # A display ends its line; a stream may go on with the next piece.
                if msg["msg_type"] != "stream":
                    shown.line = 0
            return super().output(outs, msg, display_id, cell_index)

    return BoundedClient


def first_nan(nb) -> tuple[int, str] | None:
    """(cell index, the line shown) of the first cell output showing NaN, or None.

    Readers would see [nan nan], a number that is not one, which no page may publish.
    """
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for text in _output_texts(output):
                found = _NAN.search(text)
                if found:
                    return index, _line_at(text, found.start())
    return None


def _output_texts(output) -> list[str]:
    """The texts of a stored output (a stream's text, a display's text types)."""
    # A stream's text, then each text type of a display (a DataFrame's HTML shows NaN too).
    texts = [output.get("text", "")]
    for kind, value in output.get("data", {}).items():
        if kind not in TEXT_TYPES:
            continue
        # nbformat may store a text as a list of its lines.
        if isinstance(value, list):
            texts.append("".join(value))
        else:
            texts.append(str(value))
    return texts


def _line_at(text: str, position: int) -> str:
    """The line of `text` holding `position`, as a message shows it (at most 120 characters)."""
    number = text[:position].count("\n")
    lines = text.splitlines()
    shown = text
    if lines:
        shown = lines[number]
    return shown.strip()[:120]
