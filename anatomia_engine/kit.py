"""What a figures_src module declares: `@values` functions (a dict of named values: numbers,
strings, NumPy arrays, `Table`s) and `@figure` functions (a `Style` in, a `Plot` out)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from anatomia_engine import messages as M
from anatomia_engine.numfmt import fmt_spec, is_number

KIND = "__computed_kind__"


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


@dataclass(frozen=True)
class Table:
    """A table shown on a page (Markdown) and offered as CSV (full precision); `formats` gives one
    spec per column ('dec:2', 'int', … or None for text), else numbers get 'dec:2'."""

    header: Sequence[str]
    rows: Sequence[Sequence[Any]]
    formats: Sequence[str | None] | None = None

    def __post_init__(self) -> None:
        width = len(self.header)
        for i, row in enumerate(self.rows):
            if len(row) != width:
                raise ValueError(M.text("table_row_width", row=i, cells=len(row), width=width))
        if self.formats is not None and len(self.formats) != width:
            raise ValueError(M.text("table_formats", formats=len(self.formats), width=width))

    def column_specs(self) -> list[str | None]:
        if self.formats is not None:
            return list(self.formats)
        first = self.rows[0] if self.rows else [None] * len(self.header)
        return ["dec:2" if is_number(v) else None for v in first]

    def to_markdown(self, cell: Callable[[Any, str | None], str] | None = None) -> str:
        """Markdown table; `cell(value, spec)` renders one cell (default: the site format)."""
        cell = cell or fmt_spec
        specs = self.column_specs()
        bar = str.maketrans({"|": r"\|"})   # a cell's own bar would end it
        lines = [[h.translate(bar) for h in self.header], ["---:" if spec else ":---" for spec in specs]]
        lines += [[cell(v, s) if s else str(v).translate(bar) for v, s in zip(row, specs, strict=True)]
                  for row in self.rows]
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
