"""Fewer bytes and elements for the same page.

1. Table alignment set once per table instead of once per cell.

Python-Markdown's `tables` extension writes the alignment of a column on every cell
(`<td style="text-align: right;">`); a figure's data table of a few hundred numbers carries it a
few hundred times (on the induction-heads post, 70 KiB of the page's HTML). When a table's
columns are all right-aligned, all left-aligned, or left then right (a label column, then
numbers), the cells lose the attribute and the table says it once, as `data-align="right"`,
`"left"` or `"left right"`; docs/stylesheets/extra.css aligns the cells from it. Other tables
are left as they are, and so are the cells' contents; the line breaks between the table's own
tags go. The rendering is the same; the HTML is smaller.

2. Code without a span for every plain name. Pygments wraps each identifier in
`<span class="n">`, whose colour in Material is `--md-code-hl-name-color`, by default the colour
of the code itself (`--md-code-fg-color`); docs/stylesheets/extra.css gives a code block's own
text that colour, so the name reads the same as bare text. On the lab page that is 1,300 of its
7,400 elements: every element costs the browser style and layout work on load (Lighthouse's
total blocking time on a phone), and some 25 KiB.

3. No indentation. The theme's templates indent every line of the page (6–10 KiB a page); a
line break followed by spaces renders exactly like the line break alone, except where white space
is kept (`<pre>`, `<textarea>`, and `<code>`, `<kbd>`, which Material sets `pre-wrap`), which is
left untouched.

4. The site's own scripts (docs/javascripts) ship without their comments and indentation
(`strip_script`): on the lab page 5 KiB of its first load. Only whole-line `//` comments, blank
lines and leading white space go; a script with a template literal or a line continuation (where
a line's start is part of a string) ships as written. The site's stylesheets (docs/stylesheets)
ship without comments, indentation and blank lines (`strip_stylesheet`).

5. Tables arrive in their scroll wrapper. At page load Material's script moves every table that
has no class into `<div class="md-typeset__scrollwrap"><div class="md-typeset__table">`; taking
a table out of the page and putting it back makes the browser style and lay out every table again
(on /jak-dodac-wartosc/, 16 tables: the DOMContentLoaded task of a 4x-slowed phone took 260-276 ms
with it, 156-187 ms without, a large part of Lighthouse's total blocking time). `wrap_tables` writes the same
wrapper here and gives the table the class `wrapped-table`, so Material's `table:not([class])`
passes it by; docs/stylesheets/extra.css gives `table.wrapped-table` Material's rules for
`table:not([class])` (tests/test_slim.py compares both renderings in Chromium). Zensical runs
no hooks: there Material's script wraps the tables as before.
"""

from __future__ import annotations

import re

TABLE_RE = re.compile(r"<table>(.*?)</table>", re.S)
ROW_RE = re.compile(r"<tr>(.*?)</tr>", re.S)
CELL_RE = re.compile(r'<(t[hd])(?: style="text-align: (left|right|center);")?>')
BETWEEN_TAGS_RE = re.compile(r"(</?(?:thead|tbody|tr|th|td)>)\n(?=</?(?:thead|tbody|tr|th|td)[ >])")
ANY_CELL_RE = re.compile(r"<t[hd][\s>/]")


def _layout(columns: tuple[str | None, ...]) -> str | None:
    if columns and all(c == "right" for c in columns):
        return "right"
    if columns and all(c == "left" for c in columns):
        return "left"
    if len(columns) > 1 and columns[0] == "left" and all(c == "right" for c in columns[1:]):
        return "left right"
    return None


def compact_table_alignment(html: str) -> str:
    def table(m: re.Match) -> str:
        body = m.group(1)
        if len(ANY_CELL_RE.findall(body)) != len(CELL_RE.findall(body)):
            return m.group(0)                  # a cell with other attributes (hand-written HTML)
        rows = [[cell.group(2) for cell in CELL_RE.finditer(row)] for row in ROW_RE.findall(body)]
        if not rows or any(row != rows[0] for row in rows):
            return m.group(0)                  # spans, or columns aligned differently per row
        layout = _layout(tuple(rows[0]))
        if layout is None:
            return m.group(0)
        # The line breaks between a table's own tags are not content (no text node of a table,
        # row or cell boundary is rendered); the cells' contents are left as they are.
        body = BETWEEN_TAGS_RE.sub(r"\1", CELL_RE.sub(r"<\1>", body))
        return f'<table data-align="{layout}">' + body.strip("\n") + "</table>"

    return TABLE_RE.sub(table, html)


CODE_RE = re.compile(r"(<code[^>]*>)(.*?)(</code>)", re.S)
NAME_RE = re.compile(r'<span class="n">([^<]*)</span>')


def unwrap_plain_names(html: str) -> str:
    """`<span class="n">x</span>` -> `x` inside `<code>`; nothing else changes."""
    return CODE_RE.sub(lambda m: m.group(1) + NAME_RE.sub(r"\1", m.group(2)) + m.group(3), html)


TABLE_TAG_RE = re.compile(r"<table\b([^>]*)>|</table>")
CLASS_ATTR_RE = re.compile(r"\sclass\s*=")
WRAPPED_CLASS = "wrapped-table"
WRAPPER_OPEN = '<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'


def wrap_tables(html: str) -> str:
    """Every `<table>` without a class (those Material's script would wrap at load) inside
    Material's scroll wrapper, with the class `wrapped-table`; tables with a class stay as they
    are. Nested tables are handled by their own open and close tags."""
    out, last, wrapped = [], 0, []
    for m in TABLE_TAG_RE.finditer(html):
        if m.group(0) == "</table>":
            if wrapped and wrapped.pop():
                out += [html[last:m.end()], "</div></div>"]
                last = m.end()
        elif CLASS_ATTR_RE.search(m.group(1)):
            wrapped.append(False)
        else:
            wrapped.append(True)
            out += [html[last:m.start()], WRAPPER_OPEN, f'<table class="{WRAPPED_CLASS}"{m.group(1)}>']
            last = m.end()
    out.append(html[last:])
    return "".join(out)


def slim_page(html: str) -> str:
    return wrap_tables(unwrap_plain_names(compact_table_alignment(html)))


KEEP_SPACE_RE = re.compile(r"(<(pre|textarea|code|kbd)\b.*?</\2>)", re.S | re.I)
INDENT_RE = re.compile(r"\n[ \t]+")


def strip_indentation(html: str) -> str:
    """Each line's leading spaces and tabs dropped, except inside pre, textarea, code and kbd."""
    parts = KEEP_SPACE_RE.split(html)
    # split() gives text, kept block, its tag name, text, …: indentation goes from the text only.
    out = []
    for i in range(0, len(parts), 3):
        out.append(INDENT_RE.sub("\n", parts[i]))
        if i + 1 < len(parts):
            out.append(parts[i + 1])
    return "".join(out)


def strip_script(text: str) -> str:
    """`text` (JavaScript) without whole-line `//` comments, blank lines and indentation; `text`
    as it is if it has a template literal or a line continuation."""
    if "`" in text or re.search(r"\\\r?\n", text):
        return text
    kept = [line.strip() for line in text.splitlines()]
    return "\n".join(line for line in kept if line and not line.startswith("//")) + "\n"


CSS_COMMENT_RE = re.compile(r"/\*.*?\*/", re.S)
CSS_STRING_WITH_COMMENT_RE = re.compile(r"""(["'])[^"'\n]*/\*""")


def strip_stylesheet(text: str) -> str:
    """The site's own stylesheet without its comments, indentation and blank lines (on every
    page ~6 KiB of docs/stylesheets). A stylesheet with `/*` inside a string ships as written."""
    if CSS_STRING_WITH_COMMENT_RE.search(text):
        return text
    lines = (line.strip() for line in CSS_COMMENT_RE.sub("", text).splitlines())
    return "\n".join(line for line in lines if line) + "\n"
