"""The number policy shown on the contributor page, produced by the formatter itself.

Page: docs/jak-dodac-wartosc.md. Every example number on that page comes from here, written by
anatomia_engine/numfmt.py, so the guide cannot drift from what the formatter does.
Values: format_examples (a Table: a value at full precision, the filter, the text in prose and in
LaTeX; fixed inputs chosen to show each rule: half-up rounding, a rounded zero, digit grouping,
percent, scientific notation, bytes); filter_examples (a Table: each filter with an example in prose
and in LaTeX); words_min, words_max (the whole numbers the `words` filter writes);
times_above, times_whole (ratios for the `times` filter); the as-shown examples of claims:
shown_a, shown_b, page_places (the places they are shown with), visible_places (the places
at which a > b becomes visible), eq_x, near_a,
near_b, near_tol, near_gap (the gap as shown), sum_a, sum_b, sum_diff (a - b, exact),
sum_reader (a - b from the shown numbers), example_places (the places the inputs are shown with);
big_int, small_int (digit grouping).
"""

from decimal import Decimal

from anatomia_engine import numfmt as nf
from anatomia_engine.errors import EngineError
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
    if decimals is None:
        return fmt(value, math=math)
    return fmt(value, decimals, math=math)


@values
def policy():
    rows = [[f"`{value!r}`", f"`{name}`", _show(fmt, value, n, False), f"`{_show(fmt, value, n, True)}`"]
            for value, name, fmt, n in EXAMPLES]
    header = ["wartość (pełna precyzja)", "filtr", "w tekście", "we wzorze (LaTeX)"]
    # the value, the filter and the LaTeX are code spans this module writes; the text is shown as written
    formats = [MARKDOWN, MARKDOWN, None, MARKDOWN]
    return {"format_examples": Table(header, rows, formats)}


# ---------------------------------------------------------------------------------------------
# The table of filters
# ---------------------------------------------------------------------------------------------
# Ratios for `times`: one that is not whole ("ponad …") and one that is.
TIMES_ABOVE = 4.27
TIMES_WHOLE = 4.0
TIMES_SMALL = 2.0

# Per filter: the examples in prose (value, arguments, what follows the example: None, a note or
# the arguments named), the one shown in math (an index into the examples), or a description.
FILTER_TABLE = [
    ("dec(n)", [(0.354, (2,), None)], 0),
    ("pct(n)", [(0.354, (1,), None)], 0),
    ("sci(n)", [(2.220446049250313e-16, (1,), None)], 0),
    ("int", [(131072, (), None)], 0),
    ("bytes(n)", [(67108864, (0,), "args"), (2684354560, (2,), "args")], 0),
    ("words(przypadek)", [(4, (), "args"), (4, ("narzędnik",), "args")], 0),
    ("times", [(TIMES_ABOVE, (), "ratio"), (TIMES_SMALL, (), "ratio")], 0),
    ("vec(n)", [([0.35, 0.65], (2,), None)], 0),
]
# Filters that show no number in prose: (filter, in prose, in math), as the contributor reads them.
DESCRIBED = [
    ("bmatrix(n)", "— (tylko we wzorze)", r"`\begin{bmatrix} … \end{bmatrix}`"),
    ("json", "dane dla skryptu strony, bezpieczne wewnątrz `<script>`", "—"),
    ("text", "tekst z kodu, z zamienionymi znakami HTML", "—"),
]


def _written(name: str, args: tuple) -> str:
    """The filter as a page writes it: bytes(0), words("narzędnik"), words."""
    if not args:
        return name
    shown = ", ".join(f'"{a}"' if isinstance(a, str) else str(a) for a in args)
    return f"{name}({shown})"


def _prose_example(name: str, value, args: tuple, note: str | None, first: bool) -> str:
    text = f"`{nf.apply(value, name, args)}`"
    if note == "args":
        return f"{text} (z `{_written(name, args)}`)"
    if note != "ratio":
        return text
    # a whole ratio with one place (2,0), another with two (4,27)
    places = 1 if value == int(value) else 2
    ratio = nf.fmt_dec(value, places)
    if first:
        return f"{text} (stosunek {ratio})"
    return f"{text} ({ratio})"


def _filter_rows() -> list[list[str]]:
    rows = []
    for label, examples, in_math in FILTER_TABLE:
        name = label.split("(")[0]
        prose = ", ".join(_prose_example(name, value, args, note, k == 0)
                          for k, (value, args, note) in enumerate(examples))
        value, args, _ = examples[in_math]
        rows.append([f"`{label}`", prose, f"`{nf.apply(value, name, args, math=True)}`"])
    rows += [[f"`{label}`", prose, math] for label, prose, math in DESCRIBED]
    return rows


def _words_range() -> list[int]:
    """The whole numbers `words` writes, asked of the formatter (0 to 100 tried)."""
    written = []
    for n in range(101):
        try:
            nf.fmt_words(n)
        except EngineError as refused:
            if refused.id != "words_range":
                raise
            continue
        written.append(n)
    return written


@values
def filters():
    written = _words_range()
    return {
        "filter_examples": Table(["filtr", "przykład w tekście", "we wzorze"], _filter_rows(),
                                 [MARKDOWN, MARKDOWN, MARKDOWN]),
        "words_min": min(written),
        "words_max": max(written),
        "times_above": TIMES_ABOVE,
        "times_whole": TIMES_WHOLE,
        "big_int": 131072,
        "small_int": 4096,
    }


# ---------------------------------------------------------------------------------------------
# Claims checked as shown: the guide's examples
# ---------------------------------------------------------------------------------------------
# The places the examples' inputs are written with, and the places the page shows them with.
EXAMPLE_PLACES = 4
SHOWN_PLACES = 2
# a > b, which look equal when shown with SHOWN_PLACES
SHOWN_A = 0.3501
SHOWN_B = 0.3499
# one value under two filters
EQ_X = 0.3456
# |a - b| < tol, but not as shown
NEAR_A = 0.3449
NEAR_B = 0.3548
NEAR_TOL = 0.01
# a - b as shown is not the difference of the shown a and b
SUM_A = 0.5650
SUM_B = 0.1149


def _shown(x: float, places: int) -> Decimal:
    """x as the page writes it with `places` places (the formatter's rounding, exact)."""
    return nf.round_half_up(x, places)


def _places_for(a: float, b: float) -> int:
    """The fewest places, more than SHOWN_PLACES, at which a > b is visible: what the build's message
    suggests (placeholders._places)."""
    for places in range(SHOWN_PLACES + 1, nf.MAX_DECIMALS + 1):
        if _shown(a, places) > _shown(b, places):
            return places
    raise EngineError("guide_example", example=f"{a} > {b}",
                      point=f"a comparison visible within {nf.MAX_DECIMALS} places")


@values
def as_shown():
    # Each example must still show what the guide says of it; otherwise stop with the reason.
    if not (SHOWN_A > SHOWN_B and _shown(SHOWN_A, SHOWN_PLACES) == _shown(SHOWN_B, SHOWN_PLACES)):
        raise EngineError("guide_example", example=f"{SHOWN_A} > {SHOWN_B}",
                          point=f"two numbers equal with {SHOWN_PLACES} places")
    if _shown(EQ_X, SHOWN_PLACES) == _shown(EQ_X, SHOWN_PLACES + 1):
        raise EngineError("guide_example", example=f"{EQ_X}",
                          point=f"two texts with {SHOWN_PLACES} and {SHOWN_PLACES + 1} places")
    near_gap = _shown(NEAR_B, SHOWN_PLACES) - _shown(NEAR_A, SHOWN_PLACES)
    if not (abs(NEAR_B - NEAR_A) < NEAR_TOL <= float(near_gap)):
        raise EngineError("guide_example", example=f"|{NEAR_B} - {NEAR_A}| < {NEAR_TOL}",
                          point="a tolerance that holds exactly but not as shown")
    reader = _shown(SUM_A, SHOWN_PLACES) - _shown(SUM_B, SHOWN_PLACES)
    if reader == _shown(SUM_A - SUM_B, SHOWN_PLACES):
        raise EngineError("guide_example", example=f"{SUM_A} - {SUM_B}",
                          point="a difference that is not the difference of the numbers shown")
    return {
        "example_places": EXAMPLE_PLACES,
        "page_places": SHOWN_PLACES,
        "shown_a": SHOWN_A,
        "shown_b": SHOWN_B,
        "visible_places": _places_for(SHOWN_A, SHOWN_B),
        "eq_x": EQ_X,
        "near_a": NEAR_A,
        "near_b": NEAR_B,
        "near_tol": NEAR_TOL,
        "near_gap": float(near_gap),
        "sum_a": SUM_A,
        "sum_b": SUM_B,
        # a separate value, not `sum_a - sum_b` on the page: the guide shows the wrong sum on purpose
        "sum_diff": SUM_A - SUM_B,
        "sum_reader": float(reader),
    }
