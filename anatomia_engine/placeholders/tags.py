"""The tags of a page: `{{ expr | filter }}` placeholders and `{% … %}` blocks.

`scan` replaces every tag of a page's text by an inert token (U+E000 p<page> t<tag> U+E001),
which Markdown leaves alone; whoever converts the page asks `fill` for each token's text by where
the token landed. A tag keeps its place (`file:line`) for every message about it.

The `{% %}` tags are the blocks of a claim, `{% claim condition %}` … `{% endclaim %}`, and the
mark `{% nocompare %}`, which shows nothing and marks a sentence judged to compare nothing
(anatomia_engine/unchecked.py). A claim may declare labels its sentence shows without comparing
them: `{% claim a > b; context: step, names %}`.

A placeholder is never allowed where the engine does not fill it: `refuse_in_notebook` stops on
one in a notebook's Markdown cell, which mkdocs-jupyter renders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from anatomia_engine import sentinels
from anatomia_engine.errors import EngineError
from anatomia_engine.placeholders.expressions import compile_expression, compiled, names_used

if TYPE_CHECKING:
    from anatomia_engine.placeholders.fill import Shown

# `{{ expr }}` on one paragraph: a blank line ends the search for its closing braces
PLACEHOLDER = r"\{\{(?!\{)(?P<expr>(?:(?!\n[ \t]*\n).)+?)\}\}"
BLOCK = r"\{%-?[ \t]*(?P<block>[A-Za-z_]\w*)?(?P<cond>[^\n]*?)-?%\}"
TAG = re.compile(PLACEHOLDER + "|" + BLOCK, re.DOTALL)
BLOCKS = ("claim", "endclaim")
# {% nocompare %}: shows nothing; marks a sentence judged to compare nothing (unchecked.py)
MARKS = ("nocompare",)
TOKEN = re.compile(f"{sentinels.TOKEN_OPEN}p(?P<page>\\d+)t(?P<tag>\\d+){sentinels.TOKEN_CLOSE}")
# `; context: a, b` at the end of a claim's condition
CONTEXT = re.compile(r";\s*context\s*:(?P<names>[^;]*)$")
# a placeholder's filter: a name, perhaps with arguments, after the expression's last '|'
FILTER = re.compile(r"\s*(?P<name>[A-Za-z_]\w*)\s*(?:\((?P<args>.*)\))?\s*", re.DOTALL)


@dataclass
class Tag:
    """One `{{ … }}` or `{% … %}` of a page, as written, and what became of its token."""

    index: int
    source: str  # the tag as written, e.g. "{{ p | dec(2) }}"
    start: int  # offset in the page text handed to `scan`
    where: str  # the page's file, for messages
    line: int  # line in the page's file
    expr: str | None  # the placeholder's text between the braces; None for a {% %} tag
    block: str | None  # the {% %} tag's name ('claim', 'endclaim', or a misspelt one)
    cond: str = ""
    # where its token was found, in order: prose, math, plain (attributes, titles) or code
    contexts: list[str] = field(default_factory=list)
    shown: Shown | None = None  # what a placeholder in running text showed

    @property
    def place(self) -> str:
        """`file:line` of the tag, as messages name it."""
        return f"{self.where}:{self.line}"

    def located(self, exc: EngineError) -> EngineError:
        """`exc`, raised by the placeholder's expression, placed at the tag, which it quotes:
        `docs/page.md:12: {{ expr }}: <message>`."""
        return exc.located(f"{self.place}: {{{{{self.expr}}}}}")


def scan(text: str, page: int, first_line: int = 1,
         where: str = "the page") -> tuple[str, list[Tag]]:
    """`text` with each tag replaced by its token, and the tags.

    Braces that run into a code span (a backtick) stay as written: the output check finds them
    outside code.
    """
    tags: list[Tag] = []

    def token(m: re.Match) -> str:
        # braces into a code span are code's; a token already there is not scanned twice
        if "`" in m.group(0) or sentinels.TOKEN_OPEN in m.group(0):
            return m.group(0)
        line = first_line + text.count("\n", 0, m.start())
        cond = (m.group("cond") or "").strip()
        tag = Tag(len(tags), m.group(0), m.start(), where, line, m.group("expr"), m.group("block"),
                  cond)
        tags.append(tag)
        return f"{sentinels.TOKEN_OPEN}p{page}t{tag.index}{sentinels.TOKEN_CLOSE}"

    return TAG.sub(token, text), tags


# --- what a tag says ---------------------------------------------------------------------------

def split_filter(expr: str) -> tuple[str, re.Match | None]:
    """A placeholder's text as its expression and its filter (None when it names no filter).

    The filter is what follows the last '|' when that reads as a filter; otherwise the '|'
    belongs to the expression and the placeholder has no filter.
    """
    # the last '|': an expression's own '|' (none in the language today) stays in it
    head, bar, tail = expr.rpartition("|")
    if not bar:
        return expr, None
    return head, FILTER.fullmatch(tail)


def expression_of(tag: Tag) -> str:
    """A placeholder's expression without its filter."""
    expr, filt = split_filter(tag.expr)
    if filt is None:
        return tag.expr
    return expr


def claim_parts(claim: Tag) -> tuple[str, list[str]]:
    """A claim's condition and the names it declares as context.

    `{% claim a > b; context: step, who %}`: the context names are values its sentence shows
    that label what the condition compares, without taking part in it.
    """
    m = CONTEXT.search(claim.cond)
    if m is None:
        return claim.cond, []
    names = [name.strip() for name in m.group("names").split(",")]
    # names only: a label is a value the page shows, not an expression
    for name in names:
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            raise EngineError("claim_context_syntax", where=claim.place, cond=claim.cond)
    return claim.cond[:m.start()].strip(), names


def claim_expression(claim: Tag) -> str:
    """The compiled condition of a claim on a live page (the browser recomputes it)."""
    try:
        return compiled(claim_parts(claim)[0])
    except EngineError as exc:
        raise EngineError("claim_error", where=claim.place, cond=claim.cond,
                          problem=str(exc)) from exc


def names_of_tag(tag: Tag) -> list[str]:
    """The names a placeholder's expression or a claim's condition reads; none for other tags."""
    if tag.block == "claim":
        source = claim_parts(tag)[0]
    elif tag.expr is not None:
        source = expression_of(tag)
    else:
        return []
    return names_used(compile_expression(source))


# --- where the engine fills no tag -----------------------------------------------------------

# a jupytext percent notebook's cell markers, and the kind of cell each opens
_CELL_KINDS = {"[markdown]": "Markdown", "[md]": "Markdown", "[raw]": "raw"}
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+).+?\1")
_OPENING = re.compile(r"\{\{|\{%")


def _cell_kind(marker: str) -> str | None:
    for mark, kind in _CELL_KINDS.items():
        if mark in marker:
            return kind
    return None


def _blank_code_spans(line: str) -> str:
    """`line` with its code spans blanked, so that braces inside them are not found."""
    return _CODE_SPAN.sub(_spaces, line)


def _spaces(m: re.Match) -> str:
    # as many spaces as the span: the column of a brace after it stays
    return " " * len(m.group(0))


def refuse_in_notebook(source: Path, where: str) -> None:
    """Stop at file:line on `{{` or `{%` outside code in a Markdown or raw cell of a jupytext
    percent notebook: mkdocs-jupyter renders those cells and fills no placeholder."""
    kind = None  # the kind of the current cell when it is not code
    fenced = False
    text = source.read_text(encoding="utf-8")
    # line by line: jupytext's percent format marks each cell with a "# %%" line
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("# %%"):
            kind = _cell_kind(line)
            fenced = False
            continue
        if kind is None:
            continue
        # a Markdown cell's lines are Python comments: "# text"
        if line.startswith("# "):
            body = line[2:]
        else:
            body = line.lstrip("#")
        if _FENCE.match(body):
            fenced = not fenced
            continue
        m = _OPENING.search(_blank_code_spans(body))
        if m and not fenced:
            raise EngineError("notebook_placeholder", where=f"{where}:{number}", mark=m.group(0),
                              kind=kind)
