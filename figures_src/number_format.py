"""The number policy shown on the contributor page, produced by the formatter itself.

Page: docs/jak-dodac-wartosc.md. Values: format_examples (a Table: a value at full precision,
the filter, the text in prose and in LaTeX). The inputs are fixed examples chosen to show each
rule (half-up rounding, a rounded zero, digit grouping, percent, scientific notation, bytes).
"""

from anatomia_engine import numfmt as nf
from anatomia_engine.kit import MARKDOWN, Table, values

EXAMPLES = [  # (value, filter as written on a page, formatter, decimals)
    (0.125, "dec(2)", nf.fmt_dec, 2),
    (2.675, "dec(2)", nf.fmt_dec, 2),
    (0.6442750066982158, "dec(2)", nf.fmt_dec, 2),
    (-1.5, "dec(1)", nf.fmt_dec, 1),
    (-0.001, "dec(2)", nf.fmt_dec, 2),
    (0.3543436937742045, "pct(1)", nf.fmt_pct, 1),
    (2.220446049250313e-16, "sci(1)", nf.fmt_sci, 1),
    (131072, "int", nf.fmt_int, None),
    (4096, "int", nf.fmt_int, None),
    (67108864, "bytes(0)", nf.fmt_bytes, 0),
    (2684354560, "bytes(2)", nf.fmt_bytes, 2),
]


def _show(fmt, value, decimals, math: bool) -> str:
    return fmt(value, math=math) if decimals is None else fmt(value, decimals, math=math)


@values
def policy():
    rows = [[f"`{value!r}`", f"`{name}`", _show(fmt, value, n, False), f"`{_show(fmt, value, n, True)}`"]
            for value, name, fmt, n in EXAMPLES]
    header = ["wartość (pełna precyzja)", "filtr", "w tekście", "we wzorze (LaTeX)"]
    # the value, the filter and the LaTeX are code spans this module writes; the text is shown as written
    formats = [MARKDOWN, MARKDOWN, None, MARKDOWN]
    return {"format_examples": Table(header, rows, formats)}
