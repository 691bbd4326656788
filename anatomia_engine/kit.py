"""What a figures_src module declares: `@values` functions (a dict of named values: numbers,
strings, NumPy arrays, `Table`s) and `@figure` functions (a `Style` in, a `Plot` out)."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anatomia_engine import messages as M
from anatomia_engine.errors import EngineError
from anatomia_engine.numfmt import fmt_spec, is_number

KIND = "__computed_kind__"
AXIS_FIELDS = "ijklmn"   # Value(what=...) names an element's labels as {i}, {j} … (placeholders.fill)
# What Markdown would read as markup in a module's string: HTML (escaped as entities), a table cell's
# bar, and the inline marks of emphasis, code and links (escaped with a backslash).
_MARKUP = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": r"\|", "\\": "\\\\", "`": r"\`",
                         "*": r"\*", "_": r"\_", "[": r"\[", "]": r"\]"})


# The column format of text the project itself writes as Markdown (the contributor page's tables of
# messages, with their code spans): shown as Markdown, not escaped. Computed strings never use it.
MARKDOWN = "markdown"


def markdown_text(value: Any) -> str:
    """`value` as Markdown that shows it as written: `<script>alert(3)` is text on the page, not a tag
    (a table cell, a figure's caption: wherever a module's string lands in a page's Markdown)."""
    return str(value).translate(_MARKUP)


def values(fn: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """Mark `fn` as a source of named values for pages."""
    setattr(fn, KIND, "values")
    return fn


def figure(fn: Callable[..., Plot]) -> Callable[..., Plot]:
    """Mark `fn(style) -> Plot` as a figure named after the function."""
    setattr(fn, KIND, "figure")
    return fn


@dataclass(frozen=True)
class Value:
    """A published value with what a reader is told about it: `what` it is, in Polish (for an array
    with `{i}`, `{j}` … from `axes`, the labels of each axis); `cite`, a publication it is quoted from
    ("Dao (2023)"); `masked=True`, an array of masked scores that may hold -inf; `at`, the name of the
    value (same module) saying where or when this one was measured (a step, a panel, a token): a claim
    showing or comparing this value must relate that one; `limit=True`, a threshold of a check (a
    tolerance window), which claims' conditions read and no page shows."""

    value: Any
    what: str | None = None
    cite: str | None = None
    axes: Sequence[Sequence[str]] | None = None
    masked: bool = False
    at: str | None = None
    limit: bool = False

    def problem(self) -> EngineError | None:
        """What is wrong with what a reader is told about the value (a catalogued message), or None. A
        page fills `what`'s {i}, {j} … with the labels of `axes` and keeps any other brace as text."""
        for key in ("what", "cite"):
            text = getattr(self, key)
            if text is not None and not isinstance(text, str):
                return EngineError("meta_not_text", key=key, type=type(text).__name__)
        if self.axes is not None and not all(isinstance(axis, Sequence) and not isinstance(axis, str)
                                             for axis in self.axes):
            return EngineError("axes_lists", axes=repr(self.axes)[:60])
        letters = AXIS_FIELDS[:len(self.axes or ())]
        for field in re.findall(r"\{([" + AXIS_FIELDS + r"])\}", self.what or ""):
            if field not in letters:   # it would reach the reader as "{j}"
                return EngineError("what_field", what=self.what, field="{" + field + "}",
                              known=", ".join("{" + c + "}" for c in letters) or "none (no axes=)")
        shape = getattr(self.value, "shape", ())
        for k, labels in enumerate(self.axes or ()):
            if k >= len(shape) or len(labels) != shape[k]:
                return EngineError("axes_labels", axis=k, labels=len(labels), shape=tuple(shape))
        return None


@dataclass(frozen=True)
class Table:
    """A table shown on a page (Markdown) and offered as CSV (full precision); `formats` gives one
    spec per column ('dec:2', 'int', … None for text shown as written, MARKDOWN for Markdown the module
    writes), else a column holding a number gets 'dec:2'."""

    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    formats: Sequence[str | None] | None = None  # MARKDOWN: a text column written as Markdown

    def __post_init__(self) -> None:
        width = len(self.header)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise ValueError(M.text("table_row_width", row=i, cells=len(row), width=width))
        if self.formats is not None and len(self.formats) != width:
            raise ValueError(M.text("table_formats", formats=len(self.formats), width=width))
        # Every cell is shown by its column's format: a row that does not fit it stops the module here,
        # not on the page as "0.30000000000000004" or "None".
        for j, spec in enumerate(self.column_specs()):
            for i, row in enumerate(self.rows):
                value = row[j]
                if spec is None and (is_number(value) or value is None):
                    raise ValueError(M.text("table_text_cell", row=i, column=self.header[j],
                                            value=repr(value)))
                if spec is None or (isinstance(value, (float, np.floating)) and not math.isfinite(value)):
                    continue   # NaN and infinities: codec.py refuses them naming the function and the value
                try:
                    fmt_spec(value, spec)
                except ValueError as exc:
                    raise ValueError(M.text("table_row_format", row=i, column=self.header[j],
                                            value=repr(value), spec=spec, problem=exc)) from None

    def column_specs(self) -> list[str | None]:
        """One format per column: `formats` (None for text), else 'dec:2' for a column holding a number
        in any row."""
        if self.formats is not None:
            return [None if spec == MARKDOWN else spec for spec in self.formats]
        columns = range(len(self.header))
        return ["dec:2" if any(is_number(row[j]) for row in self.rows) else None for j in columns]

    def to_markdown(self, cell: Callable[[Any, str | None], str] | None = None) -> str:
        """Markdown table; `cell(value, spec)` renders one cell (default: the site format). The header and
        text cells show the module's strings as written (markdown_text)."""
        cell = cell or fmt_spec
        specs = self.column_specs()
        lines = [[markdown_text(h) for h in self.header], ["---:" if spec else ":---" for spec in specs]]
        markdown = [self.formats is not None and spec == MARKDOWN for spec in self.formats or specs]
        for row in self.rows:
            cells = []
            for value, spec, is_markdown in zip(row, specs, markdown, strict=True):
                if spec:
                    cells.append(cell(value, spec))
                elif is_markdown:
                    cells.append(str(value))
                else:
                    cells.append(markdown_text(value))
            lines.append(cells)
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)

    def to_csv(self) -> str:
        """CSV with a dot as decimal mark and full precision (repr), for spreadsheets and scripts."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.header)
        writer.writerows([repr(float(v)) if is_number(v) else v for v in row] for row in self.rows)
        return out.getvalue()


@dataclass
class Plot:
    """What a figure function returns: the matplotlib figure, Polish alt text, caption, data."""

    fig: Any
    alt: str
    caption: str
    table: Table

    def __post_init__(self) -> None:
        if not self.alt.strip():
            raise ValueError(M.text("plot_alt"))
