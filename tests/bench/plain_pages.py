"""The benchmark's plain pages: each page of docs_plain/ with its placeholders written out as ordinary
Markdown, for mkdocs-material to build without our plugin (tests/bench/docs.py, `make_plain`).

Run from a project root that a build has filled the module store of:

    python tests/bench/plain_pages.py DOCS_PLAIN

The engine writes a page's placeholders as tokens and fills them while Python-Markdown converts
the page (markdown.render_page, then the extension). Here each token is written out the way the
extension fills it, so that the plain build converts the same content: a number as its <span> in
running text and as text in math, code or an HTML tag; a figure as its Markdown (images, caption,
data table); a table as its Markdown table. Prints the number of pages written.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from anatomia_engine import frontmatter, markdown, placeholders, runner
from anatomia_engine.kit import Table
from anatomia_engine.placeholders import FigureRef, fill, span_html, table_markdown
from anatomia_engine.placeholders.tags import TOKEN

# Where a token is not running text: fenced code, inline code, math (each may span lines, not
# paragraphs), and inside an HTML tag
_FENCED = re.compile(r"^([ \t]*)(```|~~~).*?^\1\2", re.M | re.S)
_CODE = re.compile(r"(`+)(?:(?!\n[ \t]*\n).)+?\1", re.S)
_MATH = re.compile(r"\\\((?:(?!\n[ \t]*\n).)*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$", re.S)
# a tag opened and not yet closed: `<span title="` up to where a token stands
_OPEN_TAG = re.compile(r"<[A-Za-z][^<>]*")


def _spans(pattern: re.Pattern, text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def _inside(spans: list[tuple[int, int]], position: int) -> bool:
    return any(start < position < end for start, end in spans)


def in_html_tag(text: str, position: int) -> bool:
    """Is `position` inside an HTML tag (an attribute's value)? A `<` that opens no tag (`a < b`
    in a sentence) is none: the numbers after it are still the prose's."""
    start = text.rfind("<", 0, position)
    if start < 0:
        return False
    return _OPEN_TAG.fullmatch(text, start, position) is not None


def _block(m: re.Match, registry: markdown.PageRegistry, shown: dict) -> str | None:
    """A figure's or a table's Markdown for a token alone on its line, else None."""
    text = m.string
    line_start = text.rfind("\n", 0, m.start()) + 1
    line_end = text.find("\n", m.end())
    if line_end < 0:
        line_end = len(text)
    indent = text[line_start:m.start()]
    if indent.strip() or text[m.end():line_end].strip():
        return None
    record, tag = registry.tag(m)
    if tag.expr is None:
        return None
    value, used, expr, _, _ = placeholders.value_of(tag, record.scope)
    if isinstance(value, FigureRef):
        shown[value.name] = shown.get(value.name, 0) + 1
        block = markdown.figure_markdown(record.results, value.name, page_uri=record.page.uri,
                                         copy=shown[value.name])
    elif isinstance(value, Table):
        block = table_markdown(value, expr, record.scope[used[0]])
    else:
        return None
    # the token's own indentation is already written before it: the block's next lines get it too
    return block.strip("\n").replace("\n", "\n" + indent)


def written_out(path: Path, docs: Path, results: dict) -> str | None:
    """The page at `path` with its placeholders written out; None if it has none."""
    raw = path.read_text(encoding="utf-8")
    fm = frontmatter.front_matter(raw, str(path))
    lines = raw.splitlines(keepends=True)
    head = "".join(lines[:fm.first_line - 1])
    body = "".join(lines[fm.first_line - 1:])
    if "{{" not in body and "{%" not in body:
        return None
    page = markdown.Page(path.relative_to(docs).as_posix(), raw, "docs")
    registry = markdown.PageRegistry()
    tokenized = markdown.render_page(body, page, results, registry, meta=dict(fm.meta))
    code = _spans(_FENCED, tokenized) + _spans(_CODE, tokenized)
    math = _spans(_MATH, tokenized)
    shown: dict = {}

    def one(m: re.Match) -> str:
        record, tag = registry.tag(m)
        if _inside(code, m.start()):
            return tag.source
        if _inside(math, m.start()):
            return fill(tag, record.scope, context="math").text
        block = _block(m, registry, shown)
        if block is not None:
            return block
        if in_html_tag(tokenized, m.start()):
            return fill(tag, record.scope, context="plain").text
        return span_html(fill(tag, record.scope, context="prose"))

    return head + TOKEN.sub(one, tokenized)


def main(plain: Path) -> None:
    results, ran = runner.compute(root=Path.cwd())
    if ran:
        raise SystemExit(f"the build left modules uncached: {ran}")
    written = 0
    for path in sorted(plain.rglob("*.md")):
        text = written_out(path, plain, results)
        if text is None:
            continue
        path.write_text(text, encoding="utf-8")
        written += 1
    print(written)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
