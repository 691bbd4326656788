"""Filling a page's placeholders: each token's text by where it landed.

`fill` gives a tag's text in one of four contexts:

- 'prose' (running text): a number gets its provenance <span> (the number popover reads its
  exact value, what it is and where it comes from);
- 'math' (inside a formula): the same number in LaTeX, with no HTML;
- 'plain' (attributes, titles, raw text): the text alone;
- 'code': the tag as written.

On a live page (front matter `live:`) a number, a word chosen by computation and a formula's
number also carry their compiled expression and format, so the browser recomputes them from the
reader's numbers; a claim in prose becomes the span holding its sentence.

A placeholder shows a value a module computed: a constant alone (`{{ 3 }}`), a figure or a table
cannot be filled in a sentence. A table is its own block (`table_markdown`), a figure the
Markdown extension's.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from anatomia_engine import numfmt as nf
from anatomia_engine import sentinels
from anatomia_engine.errors import EngineError
from anatomia_engine.kit import Table
from anatomia_engine.placeholders.expressions import compile_expression, compiled
from anatomia_engine.placeholders.names import Entry, FigureRef, evaluate
from anatomia_engine.placeholders.tags import BLOCKS, FILTER, MARKS, Tag, claim_expression


@dataclass(frozen=True)
class Shown:
    """A placeholder's text in one context; `span` holds the attributes of its number's <span>."""

    text: str
    span: dict[str, str] | None = None
    value: object = None
    expr: str = ""
    # the filter it is shown with (the default for its type if none is named)
    filter: str | None = None
    args: tuple = ()
    # raw HTML standing for the tag (a claim's element on a live page)
    markup: str | None = None
    # on a live page, the browser recomputes this text (a span's number or word, a formula's number)
    live: bool = False

    def number(self, decimals: int | None = None) -> Fraction | None:
        """The number a reader reads, or reads with `decimals` places if the filter has places."""
        args = self.args
        if decimals is not None and self.filter in nf.PLACES:
            args = (decimals,)
        number = nf.shown_value(self.value, self.filter, args)
        if number is None:
            return None
        return Fraction(number)


class Placeholder(NamedTuple):
    """What a placeholder's text says: its value, the names it read, its expression, its filter
    and the filter's arguments (callers unpack it as a tuple)."""

    value: object
    used: list[str]
    expr: str
    filter: str | None
    args: tuple


def value_of(tag: Tag, scope: Mapping[str, Entry]) -> Placeholder:
    """The value of a placeholder and how it is to be shown (its filter: after the last '|')."""
    expr, bar, tail = tag.expr.rpartition("|")
    m = None
    if not bar:
        expr = tag.expr
    else:
        m = FILTER.fullmatch(tail)
        if m is None:
            raise EngineError("bad_filter", filter=tail.strip(), known=", ".join(nf.FILTERS))
    value, used = evaluate(expr, scope)
    args = ()
    if m and m.group("args") and m.group("args").strip():
        # the arguments are expressions too: `dec(places)` may read a value
        args = tuple(evaluate(f"({m.group('args')},)", scope)[0])
    name = m and m.group("name")
    if isinstance(value, Table) and name:
        raise EngineError("table_no_filter", filter=name)
    return Placeholder(value, used, expr.strip(), name, args)


# --- a placeholder's text ---------------------------------------------------------------------

def fill(tag: Tag, scope: Mapping[str, Entry], *, context: str, live: bool = False) -> Shown:
    """The text of `tag` in `context` ('prose', 'math', 'plain' or 'code'); on a `live` page with
    what the browser needs to recompute it."""
    # code shows the tag as written, so a page can document the language
    if context == "code":
        return Shown(tag.source)
    if tag.expr is None:
        return _claim_markup(tag, live and context == "prose")
    try:
        return _fill(tag, scope, context, live)
    except EngineError as exc:
        raise tag.located(exc) from exc


def _fill(tag: Tag, scope: Mapping[str, Entry], context: str, live: bool) -> Shown:
    math = context == "math"
    value, used, expr, filt, args = value_of(tag, scope)
    if isinstance(value, FigureRef):
        raise EngineError("figure_alone")
    if isinstance(value, Table):
        raise EngineError("table_alone")
    # a constant is typed by hand: only a text ({{ "{{" }}) may stand alone
    if not used and not isinstance(value, str):
        raise EngineError("no_value")
    try:
        name = filt or nf.default_filter(value, math=math)
        text = nf.apply(value, filt, args, math=math)
    except Exception as exc:  # noqa: BLE001 - any formatter failure is the page's error
        shown_with = filt or "the default format"
        raise EngineError("cannot_show", filter=shown_with, problem=str(exc)) from exc
    shown = Shown(text, None, value, expr, name, args)
    # only running text has a popover: math and attributes cannot hold a <span>
    if context == "prose" and used and _is_number(value, name):
        entry = scope[used[0]]
        what = _what(entry, expr)
        shown = replace(shown, span=number_attrs(value, entry, what))
    if not live:
        return shown
    if context == "prose" and shown.span is None and used and isinstance(value, str):
        # a word chosen by computation follows the reader's numbers
        shown = replace(shown, span={"class": "live-word"})
    if shown.span is None and not math:
        return shown
    return _recomputed(shown, expr, name, args, math)


def _is_number(value, name: str) -> bool:
    """Is `value`, shown with the filter `name`, a number (or numbers) with a popover?"""
    # `json` and `text` show a number as code or words: no popover to explain it
    if not nf.FILTERS[name].number:
        return False
    return nf.is_number(value) or isinstance(value, np.ndarray)


def _what(entry: Entry, expr: str) -> str | None:
    """What the number of `expr` is, from its entry's `what` with {i}, {j} filled from `axes`.

    None for a computed expression, or an array shown whole: only a name with constant
    indices ("w 1 0") is the named value.
    """
    if entry.what is None:
        return None
    form = compile_expression(expr)
    if not isinstance(form, str):
        return None
    index = [int(i) for i in form.split(" ")[1:]]
    labels = {}
    try:
        for letter, i, axis in zip("ijklmn", index, entry.axes or (), strict=False):
            labels[letter] = axis[i]
    except LookupError:
        # an index beyond the axis's labels: the description cannot say which element it is
        return None

    # only {i}, {j} … are filled: any other brace is the description's own text
    def label(m: re.Match) -> str:
        return str(labels.get(m[1], m[0]))

    return re.sub(r"\{([ijklmn])\}", label, entry.what)


def _recomputed(shown: Shown, expr: str, name: str, args: tuple, math: bool) -> Shown:
    """`shown` with what the browser needs to recompute it: its compiled expression and format."""
    # the browser's format takes at most one argument, written after a colon
    if len(args) > 1 or (args and ":" in str(args[0])):
        problem = "a live page names a number's format as 'filter:argument'"
        raise EngineError("not_allowed", source=f"{name}{args}", problem=problem)
    code = compiled(expr)
    spec = name
    if args:
        spec = f"{name}:{args[0]}"
    if math:
        # mathml.py lifts it out of the TeX into the formula's template
        return Shown(sentinels.slot(code, spec, shown.text), live=True)
    span = {**shown.span, "data-expr": code, "data-fmt": spec}
    return replace(shown, span=span, live=True)


def _claim_markup(tag: Tag, live: bool) -> Shown:
    """A {% %} tag shows nothing; on a live page a claim in prose becomes the span holding its
    sentence."""
    if tag.block in MARKS:
        return Shown("")
    # a misspelt block would otherwise vanish from the page, and its claim with it
    if tag.block not in BLOCKS:
        near = difflib.get_close_matches(tag.block or "", BLOCKS + MARKS, n=1)
        hint = ""
        if near:
            hint = f"did you mean '{{% {near[0]} … %}}'? "
        raise EngineError("unknown_tag", where=tag.place, tag=tag.source, hint=hint)
    # an ordinary page's claim is checked at build time and shows nothing
    if not live:
        return Shown("")
    if tag.block == "endclaim":
        return Shown("", markup="</span>")
    expr = html.escape(claim_expression(tag))
    return Shown("", markup=f'<span class="claim" data-claim="true" data-claim-expr="{expr}">')


# --- HTML ------------------------------------------------------------------------------------

def number_attrs(value, entry: Entry, what: str | None) -> dict[str, str]:
    """The attributes of a number's <span> (the HTML contract of the number popover)."""
    attrs = {
        "class": "num",
        "tabindex": "0",
        "data-exact": nf.fmt_exact(value),
        "data-what": what,
        "data-cite": entry.cite,
    }
    # a quoted number names its publication, not the module that holds it
    if not entry.cite:
        attrs["data-source"] = entry.source
        attrs["data-function"] = entry.function
    return {key: text for key, text in attrs.items() if text}


def span_html(shown: Shown) -> str:
    """`shown` as HTML: its markup, the number's span, or escaped text."""
    if shown.markup is not None:
        return shown.markup
    text = html.escape(shown.text, quote=False)
    if shown.span is None:
        return text
    attrs = " ".join(f'{k}="{html.escape(str(v), quote=True)}"' for k, v in shown.span.items())
    return f"<span {attrs}>{text}</span>"


def _as_is(markup: str) -> str:
    return markup


def table_markdown(table: Table, name: str, entry: Entry, *, live: bool = False,
                   stash: Callable[[str], str] = _as_is) -> str:
    """A Table as Markdown, each number in its span.

    A number's popover says its column and row; on a `live` page the span carries `name[r][j]`.
    `stash` sets the span's markup aside from Markdown (a row's label in its attribute stays
    as written).
    """
    specs = table.column_specs()
    # a number's popover names its row by the first text column (a token), else by the first
    # column, written as the table shows it ("klucz xⱼ: 1,0", not "1.0")
    label = next((j for j, spec in enumerate(specs) if spec is None), 0)

    def row_label(row) -> str:
        if specs[label]:
            return nf.fmt_spec(row[label], specs[label])
        return str(row[label])

    # kit.Table.to_markdown calls `cell` row by row, left to right, for the formatted columns
    places = []
    for r, row in enumerate(table.rows):
        for j, spec in enumerate(specs):
            if spec:
                places.append((r, row, j))
    cells = iter(places)

    def cell(value, spec):
        r, row, j = next(cells)
        try:
            text = nf.fmt_spec(value, spec)
        except Exception as exc:  # noqa: BLE001 - any formatter failure names its cell
            raise EngineError("table_cell", name=name, row=row[0], column=table.header[j],
                              value=repr(value), spec=spec, problem=str(exc)) from exc
        if not nf.is_number(value):
            return text
        what = table.header[j]
        if j != label:
            what = f"{table.header[j]} ({table.header[label]}: {row_label(row)})"
        attrs = number_attrs(value, entry, what)
        if live:
            attrs |= {"data-expr": compiled(f"{name}[{r}][{j}]"), "data-fmt": spec}
        return stash(span_html(Shown(text, attrs)))

    return table.to_markdown(cell)
