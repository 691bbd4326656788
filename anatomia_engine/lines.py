"""Lines of a source file a contributor edits.

Where a thing is written, where a notebook cell starts. The engine's
errors name `file:line`. What failed is often known only by its text
(a link's address, a formula's TeX) or by its notebook cell, so the
line is looked up in the source here: by the link check (links.py),
the math renderer (mathml.py) and the notebook pages (notebooks.py).
"""

from __future__ import annotations

import html

# How a link's address stands in its line when it is a link: quoted, in Markdown's (…) or <…>
_LINK_FORMS = ('"{}"', "'{}'", "({}", "<{}>")


def cell_starts(lines: list[str]) -> list[int]:
    """The 1-based line where each cell of a jupytext percent notebook
    starts: the line after its `# %%`."""
    starts = []
    for number, line in enumerate(lines):
        if line.startswith("# %%"):
            # `number` counts from 0, and the cell starts a line later
            starts.append(number + 2)
    return starts


def _first_line_with(lines: list[str], wanted: list[str], span: range) -> int | None:
    for number in span:
        if any(form in lines[number - 1] for form in wanted):
            return number
    return None


def locate(lines: list[str], text: str, first: int = 1,
           last: int | None = None) -> int | None:
    """The line (1-based) in `lines[first-1:last]` where `text` is
    written, preferably as a link.

    `text` may stand as written or HTML-escaped. A line where it stands
    as a link's address (quoted, or in Markdown's parentheses or angle
    brackets) wins over an earlier line that only mentions it; without
    such a line, the first line that holds it at all.
    """
    forms = [text, html.escape(text, quote=True), html.escape(text, quote=False)]
    # each form once, in this order
    forms = list(dict.fromkeys(forms))
    as_link = []
    for form in forms:
        for wrapper in _LINK_FORMS:
            as_link.append(wrapper.format(form))
    if last is None:
        last = len(lines)
    span = range(max(first, 1), min(last, len(lines)) + 1)
    found = _first_line_with(lines, as_link, span)
    # no line writes it as a link: the first that mentions it
    if found is None:
        found = _first_line_with(lines, forms, span)
    return found
