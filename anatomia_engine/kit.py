"""What a figures_src module declares, and the types it returns.

- `@values` functions return a dict of named values: numbers, strings, NumPy arrays, `Table`s,
  each bare or wrapped in a `Value` that says what a reader is told about it;
- `@figure` functions take a `Style` and return a `Plot`.

A module's mistake in what it returns (a row of the wrong width, a figure without alt text)
stops the module where it is made, as an `EngineError` with its catalogue id, not later on
a page where no module is named.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from anatomia_engine.errors import EngineError
from anatomia_engine.numfmt import fmt_spec, is_number

KIND = "__computed_kind__"
# Value(what=...) names an element's labels as {i}, {j} … (placeholders.fill)
AXIS_FIELDS = "ijklmn"
# What Markdown would read as markup in a module's string: HTML (escaped as entities), a
# table cell's bar, and the inline marks of emphasis, code and links (escaped with a
# backslash).
_MARKUP = str.maketrans({
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "|": r"\|",
    "\\": "\\\\",
    "`": r"\`",
    "*": r"\*",
    "_": r"\_",
    "[": r"\[",
    "]": r"\]",
})
# The column format of text the project itself writes as Markdown (the contributor page's
# tables of messages, with their code spans): shown as Markdown, not escaped. Computed
# strings never use it.
MARKDOWN = "markdown"
# The column format a column holding a number gets when the table names none.
DEFAULT_NUMBER_FORMAT = "dec:2"


def markdown_text(value: Any) -> str:
    """`value` as Markdown that shows it as written.

    `<script>alert(3)` is text on the page, not a tag: wherever a module's string lands in a
    page's Markdown (a table cell, a figure's caption).
    """
    return str(value).translate(_MARKUP)


# ---------------------------------------------------------------------------------------------
# Declaring a module's functions
# ---------------------------------------------------------------------------------------------


def values(fn: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """Mark `fn` as a source of named values for pages."""
    setattr(fn, KIND, "values")
    return fn


def figure(fn: Callable[..., Plot]) -> Callable[..., Plot]:
    """Mark `fn(style) -> Plot` as a figure named after the function."""
    setattr(fn, KIND, "figure")
    return fn


# ---------------------------------------------------------------------------------------------
# A value with what a reader is told about it
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """A published value with what a reader is told about it.

    - `what` it is, in Polish; for an array with `{i}`, `{j}` … from `axes`, the labels of
      each axis;
    - `cite`: a publication it is quoted from ("Dao (2023)");
    - `masked=True`: an array of masked scores that may hold -inf;
    - `at`: the name of the value (same module) saying where or when this one was measured
      (a step, a panel, a token): a claim showing or comparing this value must relate that one;
    - `limit=True`: a threshold of a check (a tolerance window), which claims' conditions read
      and no page shows.
    """

    value: Any
    what: str | None = None
    cite: str | None = None
    axes: Sequence[Sequence[str]] | None = None
    masked: bool = False
    at: str | None = None
    limit: bool = False

    def problem(self) -> EngineError | None:
        """What is wrong with what a reader is told about the value (a catalogued message), or None.

        The caller (codec.py) places it at the module and the value, which this object does not know.
        A page fills `what`'s {i}, {j} … with the labels of `axes` and keeps any other brace as
        text.
        """
        for key in ("what", "cite"):
            text = getattr(self, key)
            if text is not None and not isinstance(text, str):
                return EngineError("meta_not_text", key=key, type=type(text).__name__)
        if not self._axes_are_lists():
            return EngineError("axes_lists", axes=repr(self.axes)[:60])
        letters = AXIS_FIELDS[:len(self.axes or ())]
        for field in re.findall(r"\{([" + AXIS_FIELDS + r"])\}", self.what or ""):
            # A field with no axis would reach the reader as "{j}".
            if field not in letters:
                known = ", ".join("{" + c + "}" for c in letters) or "none (no axes=)"
                return EngineError("what_field", what=self.what, field="{" + field + "}", known=known)
        shape = getattr(self.value, "shape", ())
        for k, labels in enumerate(self.axes or ()):
            if k >= len(shape) or len(labels) != shape[k]:
                return EngineError("axes_labels", axis=k, labels=len(labels), shape=tuple(shape))
        return None

    def _axes_are_lists(self) -> bool:
        # A string is a Sequence too, but "abc" as labels would be three one-letter labels.
        if self.axes is None:
            return True
        for axis in self.axes:
            if not isinstance(axis, Sequence) or isinstance(axis, str):
                return False
        return True


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """A table shown on a page (Markdown) and offered as CSV (full precision).

    `formats` gives one spec per column: 'dec:2', 'int', …; None for text shown as written;
    MARKDOWN for Markdown the module writes. Without `formats`, a column holding a number
    gets 'dec:2'.
    """

    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    formats: Sequence[str | None] | None = None

    def __post_init__(self) -> None:
        width = len(self.header)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise EngineError("table_row_width", row=i, cells=len(row), width=width)
        if self.formats is not None and len(self.formats) != width:
            raise EngineError("table_formats", formats=len(self.formats), width=width)
        # Every cell is shown by its column's format: a row that does not fit it stops the
        # module here, not on the page as "0.30000000000000004" or "None".
        for j, spec in enumerate(self.column_specs()):
            for i in range(len(self.rows)):
                self._check_cell(i, j, spec)

    def _check_cell(self, i: int, j: int, spec: str | None) -> None:
        value = self.rows[i][j]
        column = self.header[j]
        if spec is None and (is_number(value) or value is None):
            raise EngineError("table_text_cell", row=i, column=column, value=repr(value))
        if spec is None:
            return
        # NaN and infinities: codec.py refuses them naming the function and the value.
        if isinstance(value, (float, np.floating)) and not math.isfinite(value):
            return
        try:
            fmt_spec(value, spec)
        except EngineError as exc:
            raise EngineError("table_row_format", row=i, column=column, value=repr(value),
                              spec=spec, problem=exc) from None

    def column_specs(self) -> list[str | None]:
        """One format per column: `formats` (None for text), else 'dec:2' for a column holding a
        number in any row."""
        specs = []
        for j in range(len(self.header)):
            specs.append(self._column_spec(j))
        return specs

    def _column_spec(self, j: int) -> str | None:
        if self.formats is not None and self.formats[j] == MARKDOWN:
            return None
        if self.formats is not None:
            return self.formats[j]
        if any(is_number(row[j]) for row in self.rows):
            return DEFAULT_NUMBER_FORMAT
        return None

    def _is_markdown(self, j: int) -> bool:
        return self.formats is not None and self.formats[j] == MARKDOWN

    def to_markdown(self, cell: Callable[[Any, str | None], str] | None = None) -> str:
        """Markdown table; `cell(value, spec)` renders one cell (default: the site format).

        The header and text cells show the module's strings as written (markdown_text).
        """
        cell = cell or fmt_spec
        specs = self.column_specs()
        header = [markdown_text(h) for h in self.header]
        # Numbers align right, text left, as a reader compares them.
        alignment = []
        for spec in specs:
            if spec:
                alignment.append("---:")
            else:
                alignment.append(":---")
        lines = [header, alignment]
        for row in self.rows:
            cells = []
            for j, value in enumerate(row):
                if specs[j]:
                    cells.append(cell(value, specs[j]))
                elif self._is_markdown(j):
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
        for row in self.rows:
            writer.writerow([_csv_cell(v) for v in row])
        return out.getvalue()


def _csv_cell(value: Any) -> Any:
    # Every number as a float's repr: the digits round-trip to the very value computed.
    if is_number(value):
        return repr(float(value))
    return value


# ---------------------------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------------------------


@dataclass
class Plot:
    """What a figure function returns: the matplotlib figure, Polish alt text, caption, data."""

    fig: Any
    alt: str
    caption: str
    table: Table

    def __post_init__(self) -> None:
        if not self.alt.strip():
            raise EngineError("plot_alt")
