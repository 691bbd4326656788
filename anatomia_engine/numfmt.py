"""The site's one number formatter: every number a reader sees goes through here.

Rules (each one is what a reader rounding by hand, or reading a Polish text, expects):

- rounded only for display, half-up, from the float's shortest decimal representation
  (``repr``: 2.675 -> 2,68, not the binary 2.67499…);
- a decimal comma; the U+2212 minus in prose; no sign on a value rounded to zero;
- five or more whole digits grouped by a narrow no-break space (``\\,`` in LaTeX);
- NaN is never shown; infinity only in vectors and matrices.

A page's ``{{ x | dec(2) }}``, a table column's ``"dec:2"`` and a value's default format all go
through ``apply`` and the one table ``FILTERS``. A new number filter is a function that writes
a number (``_WRITERS``), its places (``PLACES``) and its row in ``FILTERS``.

Every refusal is an ``EngineError`` with its catalogue id; the page's renderer adds the place.
"""

import difflib
import json
import math as _math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, getcontext, localcontext
from functools import partial

import numpy as np

from anatomia_engine.errors import EngineError

MINUS = "\u2212"
NARROW_NBSP = "\u202f"
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")

MAX_DECIMALS = 12
# Digits of a product a claim compares exactly (a page's integers stay far below).
MAX_EXACT_DIGITS = 1000
# The filters with decimal places, and their default.
PLACES = {"dec": 2, "pct": 1, "sci": 1, "bytes": 1}


# ---------------------------------------------------------------------------------------------
# Prose and math
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Notation:
    """How one kind of output writes the signs around the digits."""

    minus: str
    comma: str
    group: str
    infinity: str
    percent: str
    power: str       # a str.format template for the exponent
    unit: str        # a str.format template for a unit of size
    separator: str   # between the items of a vector


PROSE = Notation(
    minus=MINUS,
    comma=",",
    group=NARROW_NBSP,
    infinity="∞",
    percent="%",
    power="·10{}",
    unit="\u00a0{}",
    separator="; ",
)
# In math, `{,}` keeps LaTeX from adding a space after the comma, as after punctuation.
MATH = Notation(
    minus="-",
    comma="{,}",
    group=r"\,",
    infinity=r"\infty",
    percent=r"\%",
    power=r" \cdot 10^{{{}}}",
    unit=r"\ \text{{{}}}",
    separator=r";\ ",
)


def notation(math: bool) -> Notation:
    """The notation of math (inside LaTeX) or of prose."""
    if math:
        return MATH
    return PROSE


def words_in(text: str, math: bool) -> str:
    """Words as prose shows them, or wrapped so that LaTeX sets them as text."""
    if math:
        return rf"\text{{{text}}}"
    return text


# ---------------------------------------------------------------------------------------------
# Checking what is shown
# ---------------------------------------------------------------------------------------------


def is_whole(x) -> bool:
    """A whole-number type (Python's int, NumPy's integers), not a boolean.

    Such a number is shown exactly, never through a float: 2**53 + 1 has no float of its own.
    """
    return isinstance(x, (int, np.integer)) and not is_boolean(x)


def is_boolean(x) -> bool:
    """Python's or NumPy's boolean (True is an int in Python, but no number on a page)."""
    return isinstance(x, (bool, np.bool_))


def is_number(v) -> bool:
    """A real number, not a boolean."""
    numeric = isinstance(v, (int, float, np.integer, np.floating))
    return numeric and not is_boolean(v)


def _check(x, *, allow_inf: bool = False) -> float | int:
    """`x` as a float, or as a Python int if it is whole-number typed.

    Refuses what is no number (a boolean, an array, a text), NaN, and infinity unless
    `allow_inf` (vectors and matrices may show it; a lone value may not).
    """
    if is_boolean(x):
        raise EngineError("expected_number", got=f"the boolean {x!r}")
    if isinstance(x, np.ndarray) and x.ndim > 0:
        raise EngineError("expected_number_array", shape=x.shape)
    if is_whole(x):
        return int(x)
    try:
        number = float(x)
    except (TypeError, ValueError):
        got = f"{type(x).__name__} {x!r}"
        raise EngineError("expected_number", got=got) from None
    if _math.isnan(number):
        raise EngineError("nan")
    if _math.isinf(number) and not allow_inf:
        raise EngineError("infinite", value=number)
    return number


# ---------------------------------------------------------------------------------------------
# Rounding
# ---------------------------------------------------------------------------------------------


def _exact(x) -> Decimal:
    """The decimal a number stands for: a whole number's own digits, a float's shortest repr."""
    if is_whole(x):
        return Decimal(int(x))
    return Decimal(repr(float(x)))


def round_half_up(x: float | int | Decimal, decimals: int) -> Decimal:
    """Round `x` half-up to `decimals` places, from its shortest decimal representation.

    A whole number or a Decimal is rounded from its own digits. Places are a whole number
    from 0 to MAX_DECIMALS.
    """
    if is_boolean(decimals) or not isinstance(decimals, (int, np.integer)):
        raise EngineError("decimals_whole", got=repr(decimals))
    if not 0 <= decimals <= MAX_DECIMALS:
        raise EngineError("decimals_range", most=MAX_DECIMALS, got=decimals)
    exact = x
    if not isinstance(x, Decimal):
        exact = _exact(x)
    try:
        return exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        # More digits than the decimal context holds (28): 1.5e300 with dec(2). The reader
        # is better served by scientific notation, so the message shows it.
        most = getcontext().prec - decimals
        if is_whole(x):
            # An integer's digits are all known (a float's were rounded): say how many.
            digits = len(str(abs(int(x))))
            example = fmt_sci(int(x), 1)
            raise EngineError("too_many_digits_int", digits=digits, most=most,
                              example=example) from None
        example = fmt_sci(float(x), 1)
        raise EngineError("too_many_digits", value=repr(float(x)), most=most,
                          example=example) from None


def _decimal_text(d: Decimal, math: bool) -> str:
    """The digits of `d` in the notation of math or prose."""
    signs = notation(math)
    # format() of the magnitude, not abs(): abs() would round to the context's 28 digits.
    whole, _, fraction = format(d.copy_abs(), "f").partition(".")
    if len(whole) >= 5:
        whole = format(int(whole), ",").replace(",", signs.group)
    text = whole
    if fraction:
        text += signs.comma + fraction
    # A value rounded to zero (Decimal -0.00) is not below zero: it shows no sign.
    if d < 0:
        text = signs.minus + text
    return text


# ---------------------------------------------------------------------------------------------
# What each number filter writes
# ---------------------------------------------------------------------------------------------
# A writer returns the rounded number, the size of its unit (their product is what a reader
# reads back: shown_value) and the unit's text ("" for none). A float is scaled as the
# browser's twin (live pages) scales it, a whole number exactly.


@dataclass(frozen=True)
class Written:
    """A number as a filter writes it: pct(1) of 0.3543 -> (35.4, 0.01, '%')."""

    number: Decimal
    size: Decimal
    unit: str = ""


def _write_int(x, places: int) -> Written:
    if not is_whole(x) and x != int(x):
        raise EngineError("not_whole", value=repr(x))
    # A float from its repr: 1e30 is 10**30, not the float's binary expansion.
    return Written(_exact(x).to_integral_value(), Decimal(1))


def _write_dec(x, places: int) -> Written:
    return Written(round_half_up(x, places), Decimal(1))


def _write_pct(x, places: int) -> Written:
    if is_whole(x):
        hundred = x * 100
    else:
        hundred = float(Decimal(repr(x)) * 100)
    return Written(round_half_up(hundred, places), Decimal("0.01"), "%")


_IEC = [("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)]


def _write_bytes(x, places: int) -> Written:
    # The largest IEC unit the size reaches; bytes below a KiB.
    unit = "B"
    size = 1
    for name, bytes_in_unit in _IEC:
        if abs(x) >= bytes_in_unit:
            unit = name
            size = bytes_in_unit
            break
    # A whole number is divided exactly (it may have no float: 10**400 bytes).
    if is_whole(x):
        scaled = Decimal(x) / size
    else:
        scaled = x / size
    return Written(round_half_up(scaled, places), Decimal(size), unit)


def _write_sci(x, places: int) -> Written:
    # Zero has no exponent: it is written as dec writes it.
    if not x:
        return _write_dec(x, places)
    exponent = _exact(abs(x)).adjusted()
    scaled = _exact(x).scaleb(-exponent)
    mantissa = round_half_up(_like(x, scaled), places)
    # 9.96 rounded up to 10.0: the mantissa moves one place to stay below ten.
    if abs(mantissa) >= 10:
        exponent += 1
        mantissa = round_half_up(_like(x, mantissa / 10), places)
    return Written(mantissa, Decimal(1).scaleb(exponent), str(exponent))


def _like(x, exact: Decimal) -> Decimal | float:
    """`exact` kept exact for a whole `x`, else as the float the browser's twin computes."""
    if is_whole(x):
        return exact
    return float(exact)


_WRITERS: dict[str, Callable[..., Written]] = {
    "int": _write_int,
    "dec": _write_dec,
    "pct": _write_pct,
    "bytes": _write_bytes,
    "sci": _write_sci,
}


def _places(name: str, args: tuple) -> int:
    """The places a number filter was given, else its default."""
    if args:
        return args[0]
    return PLACES.get(name, 0)


def _suffix(name: str, unit: str, math: bool) -> str:
    """A written number's unit, in the notation of math or prose."""
    if not unit:
        return ""
    signs = notation(math)
    if name == "pct":
        return signs.percent
    if name == "sci":
        if not math:
            unit = unit.translate(SUPERSCRIPT)
        return signs.power.format(unit)
    return signs.unit.format(unit)


def _number(name: str, x, places: int | None = None, *, math: bool = False,
            allow_inf: bool = False) -> str:
    """`x` shown by the number filter `name` with `places` decimals (None: its default).

    Infinity is written as a sign only if `allow_inf`.
    """
    x = _check(x, allow_inf=allow_inf)
    if isinstance(x, float) and _math.isinf(x):
        signs = notation(math)
        text = signs.infinity
        if x < 0:
            text = signs.minus + text
        return text
    if places is None:
        places = PLACES.get(name, 0)
    written = _WRITERS[name](x, places)
    return _decimal_text(written.number, math) + _suffix(name, written.unit, math)


# 0.3543 -> '0,35' (prose) or '0{,}35' (math); dec(0) of 7.0 -> '7'
fmt_dec = partial(_number, "dec")
# 131072 -> '131 072' (five digits or more grouped), 4096 -> '4096'
fmt_int = partial(_number, "int")
# 0.3543 -> '35,4%' (prose) or '35{,}4\%' (math)
fmt_pct = partial(_number, "pct")
# 2.22e-16 -> '2,2·10⁻¹⁶' (prose) or '2{,}2 \cdot 10^{-16}' (math)
fmt_sci = partial(_number, "sci")
# in the largest IEC unit reached: 2**26 -> '64,0 MiB'
fmt_bytes = partial(_number, "bytes")


# ---------------------------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------------------------


def fmt_vec(x, decimals: int = 2, *, math: bool = False) -> str:
    """A 1-D vector: '[0,35; 0,65]' (a semicolon, since the comma is the decimal mark)."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise EngineError("vec_shape", shape=arr.shape)
    items = [fmt_dec(v, decimals, math=math, allow_inf=True) for v in arr]
    return "[" + notation(math).separator.join(items) + "]"


def fmt_bmatrix(x, decimals: int = 2, *, math: bool = True) -> str:
    """A 1-D or 2-D array as a LaTeX bmatrix (math only); a 1-D array is a row vector."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise EngineError("bmatrix_shape", shape=arr.shape)
    rows = []
    for row in arr:
        cells = [fmt_dec(v, decimals, math=True, allow_inf=True) for v in row]
        rows.append(" & ".join(cells))
    return r"\begin{bmatrix} " + r" \\ ".join(rows) + r" \end{bmatrix}"


# ---------------------------------------------------------------------------------------------
# Numbers in Polish words
# ---------------------------------------------------------------------------------------------

# Polish numerals 2..20 (the non-masculine-personal forms, the ones a count of
# tokens, heads or steps takes): nominative, genitive, dative, instrumental.
_FORMS = [
    "dwa dwóch dwóm dwoma",
    "trzy trzech trzem trzema",
    "cztery czterech czterem czterema",
    "pięć pięciu pięciu pięcioma",
    "sześć sześciu sześciu sześcioma",
    "siedem siedmiu siedmiu siedmioma",
    "osiem ośmiu ośmiu ośmioma",
    "dziewięć dziewięciu dziewięciu dziewięcioma",
    "dziesięć dziesięciu dziesięciu dziesięcioma",
    "jedenaście jedenastu jedenastu jedenastoma",
    "dwanaście dwunastu dwunastu dwunastoma",
    "trzynaście trzynastu trzynastu trzynastoma",
    "czternaście czternastu czternastu czternastoma",
    "piętnaście piętnastu piętnastu piętnastoma",
    "szesnaście szesnastu szesnastu szesnastoma",
    "siedemnaście siedemnastu siedemnastu siedemnastoma",
    "osiemnaście osiemnastu osiemnastu osiemnastoma",
    "dziewiętnaście dziewiętnastu dziewiętnastu dziewiętnastoma",
    "dwadzieścia dwudziestu dwudziestu dwudziestoma",
]
CASES = ("mianownik", "dopełniacz", "celownik", "biernik", "narzędnik", "miejscownik")
# These numerals write the accusative as the nominative and the locative as the genitive.
_CASE_FORM = (0, 1, 2, 0, 3, 1)


def fmt_words(x, case: str = "mianownik", *, math: bool = False) -> str:
    """A whole number from 2 to 20 in Polish words, in a case: words("narzędnik") of 4 -> 'czterema'."""
    x = _check(x)
    if x != int(x) or not 2 <= x <= 20:
        raise EngineError("words_range", value=repr(x))
    if case not in CASES:
        raise EngineError("unknown_case", case=repr(case), known=", ".join(CASES))
    forms = _FORMS[int(x) - 2].split()
    word = forms[_CASE_FORM[CASES.index(case)]]
    return words_in(word, math)


def fmt_times(x, *, math: bool = False) -> str:
    """A ratio in Polish words, as a reader says it.

    4.0 -> 'cztery razy', 4.27 -> 'ponad cztery razy': the whole part from 2 to 20 in words,
    'ponad' when the ratio is not whole.
    """
    x = _check(x)
    whole = int(_math.floor(x))
    if not 2 <= whole <= 20:
        raise EngineError("times_range", value=repr(x))
    words = fmt_words(whole) + " razy"
    if x != whole:
        words = "ponad " + words
    return words_in(words, math)


# ---------------------------------------------------------------------------------------------
# What is not a rounded number
# ---------------------------------------------------------------------------------------------


def _plain(x):
    """An array as Python lists; anything else as it is."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    return x


def fmt_json(x, *, math: bool = False) -> str:
    """Full precision as JSON, for scripts in a page.

    Every "<" (only ever inside a JSON string) is written \\u003c, so no value can end a
    <script> ("</script>") or open a comment ("<!--") in it.
    """
    text = json.dumps(_plain(x), ensure_ascii=False, allow_nan=False)
    return text.replace("<", "\\u003c")


def fmt_exact(x) -> str:
    """The value a reader is shown on request (`data-exact`): up to 7 significant digits, prose."""
    if isinstance(x, (np.ndarray, list, tuple)) and np.ndim(x) > 0:
        items = [fmt_exact(v) for v in np.asarray(x, dtype=float)]
        return "[" + "; ".join(items) + "]"
    x = _check(x, allow_inf=True)
    if isinstance(x, float) and _math.isinf(x):
        return fmt_dec(x, allow_inf=True)
    # Whole values below 10^15 have every digit exact in a float: written out in full.
    if x == int(x) and abs(x) < 1e15:
        return _decimal_text(Decimal(int(x)), False)
    significant = x
    if is_whole(x):
        significant = _exact(x)
    mantissa, _, exponent = format(significant, ".7g").partition("e")
    text = _decimal_text(Decimal(mantissa), False)
    if exponent:
        text += "·10" + str(int(exponent)).translate(SUPERSCRIPT)
    return text


def fmt_text(x, *, math: bool = False) -> str:
    """A text as written; a list of texts joined by commas ('alfa, beta').

    A number is refused: its digits would bypass this formatter (str(0.1 + 0.2) is
    '0.30000000000000004').
    """
    if isinstance(x, str):
        return x
    items = _plain(x)
    if isinstance(items, (list, tuple)) and all(isinstance(item, str) for item in items):
        return ", ".join(items)
    if is_number(x) or is_boolean(x):
        raise EngineError("text_of_number", value=repr(x))
    raise EngineError("text_of_list", type=type(x).__name__)


# ---------------------------------------------------------------------------------------------
# The filters
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filter:
    """One way to show a value, `fn(value, *args, math=...)`.

    `number`: prose wraps what it writes in a provenance span (a reader can ask for the exact
    value); `where`: in running text and tables ("prose"), in math, as a table column's format.
    """

    fn: Callable[..., str]
    max_args: int
    usage: str
    number: bool = True
    where: tuple[str, ...] = ("prose", "math", "column")


FILTERS: dict[str, Filter] = {
    "dec": Filter(
        fmt_dec, 1,
        "dec(n): n places after the comma, e.g. dec(2) -> 0,35",
    ),
    "pct": Filter(
        fmt_pct, 1,
        "pct(n): a fraction in percent, e.g. pct(1) -> 35,4%",
    ),
    "sci": Filter(
        fmt_sci, 1,
        "sci(n): scientific notation, e.g. sci(1) -> 2,2·10⁻¹⁶",
    ),
    "int": Filter(
        fmt_int, 0,
        "int: a whole number, grouped by thousands from five digits",
    ),
    "bytes": Filter(
        fmt_bytes, 1,
        "bytes(n): a size in B, KiB, MiB, GiB, e.g. bytes(0) -> 64 MiB",
    ),
    "words": Filter(
        fmt_words, 1,
        'words("case"): 2…20 in Polish words, e.g. words("narzędnik") -> czterema',
    ),
    # The words of a ratio are no column's format: a table shows the ratio's digits.
    "times": Filter(
        fmt_times, 0,
        'times: a ratio in Polish words, e.g. 4.27 -> "ponad cztery razy"',
        where=("prose", "math"),
    ),
    "vec": Filter(
        fmt_vec, 1,
        "vec(n): a 1-D array as [0,35; 0,65]",
        where=("prose", "math"),
    ),
    "bmatrix": Filter(
        fmt_bmatrix, 1,
        "bmatrix(n): an array as a LaTeX matrix (inside math only)",
        where=("math",),
    ),
    # Full precision for a page's scripts: no reader reads it, so no provenance span.
    "json": Filter(
        fmt_json, 0,
        "json: full precision as JSON (for scripts)",
        number=False,
        where=("prose",),
    ),
    "text": Filter(
        fmt_text, 0,
        "text: a text, or a list of texts joined by commas",
        number=False,
        where=("prose", "math"),
    ),
}
COLUMNS = [name for name, f in FILTERS.items() if "column" in f.where]


def default_filter(value, *, math: bool) -> str:
    """The filter used when a placeholder names none: int, dec(2), vec(2)/bmatrix(2), text."""
    if is_boolean(value):
        raise EngineError("boolean_shown")
    if is_number(value) and isinstance(value, (int, np.integer)):
        return "int"
    if is_number(value):
        return "dec"
    if isinstance(value, str):
        return "text"
    # A matrix is shown as one in prose too; a vector only inside math.
    if isinstance(value, np.ndarray) and (math or value.ndim == 2):
        return "bmatrix"
    if isinstance(value, np.ndarray):
        return "vec"
    raise EngineError("needs_filter", type=type(value).__name__)


def shown_value(value, name: str | None, args: tuple = ()) -> Decimal | None:
    """The number a reader sees when `value` is shown with the filter `name`.

    In the value's units (pct(1) of 0.3543 -> 0.354); None (the default filter) as for its
    type; None for arrays, text and the filters that show no rounded number. Claims compare
    these, so a sentence holds for the numbers as the reader sees them.
    """
    if not is_number(value):
        return None
    if not is_whole(value) and not _math.isfinite(value):
        return None
    name = name or default_filter(value, math=False)
    # A number in words is written exactly (only whole numbers have words).
    if name == "words":
        return _exact(value)
    if name not in _WRITERS:
        return None
    written = _WRITERS[name](_check(value), _places(name, args))
    # The product keeps a whole number's every digit (the context's default is 28).
    with localcontext() as exact:
        exact.prec = MAX_EXACT_DIGITS
        return written.number * written.size


def apply(value, name: str | None, args: tuple = (), *, math: bool = False) -> str:
    """Show `value` with the filter `name` (None: the default for its type) in prose or math.

    An EngineError, saying how to fix it, if it cannot.
    """
    if name is None:
        name = default_filter(value, math=math)
    f = FILTERS.get(name)
    if f is None:
        raise EngineError("unknown_filter", name=name, hint=_did_you_mean(name),
                          known=", ".join(FILTERS))
    if math and "math" not in f.where:
        raise EngineError("not_in_math", name=name)
    if not math and "prose" not in f.where:
        raise EngineError("math_only", name=name)
    if len(args) > f.max_args:
        raise EngineError("too_many_args", name=name, most=f.max_args, got=len(args),
                          usage=f.usage)
    return f.fn(value, *args, math=math)


def _did_you_mean(name: str) -> str:
    """A hint naming the filter closest to a misspelt one, or nothing."""
    near = difflib.get_close_matches(name, FILTERS, n=1)
    if not near:
        return ""
    return f"did you mean '{near[0]}'? "


# ---------------------------------------------------------------------------------------------
# Table columns
# ---------------------------------------------------------------------------------------------


def parse_spec(spec: str) -> tuple[str, tuple]:
    """A table column's format: 'dec:2' -> ('dec', (2,)), 'int' -> ('int', ()), 'words:biernik'."""
    name, _, arg = spec.partition(":")
    if not arg:
        return name, ()
    # A whole number is a count of places; anything else (a case of `words`) stays text.
    if arg.lstrip("-").isdigit():
        return name, (int(arg),)
    return name, (arg,)


def fmt_spec(x, spec: str | None, *, math: bool = False) -> str:
    """Format by a table-column spec: 'dec:2', 'pct:1', 'sci:1', 'int', 'bytes:1', or None (text)."""
    if spec is None:
        return str(x)
    name, args = parse_spec(spec)
    if name not in COLUMNS:
        raise EngineError("unknown_spec", spec=repr(spec), known=_column_usage())
    return apply(x, name, args, math=math)


def _column_usage() -> str:
    """The column formats, as a contributor writes them: 'dec:N, pct:N, …, int'."""
    known = []
    for name in COLUMNS:
        if FILTERS[name].max_args:
            known.append(f"{name}:N")
        else:
            known.append(name)
    return ", ".join(known)
