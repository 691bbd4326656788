"""The site's one number formatter: every number a reader sees goes through here.

Rounded only for display, half-up, from the float's shortest decimal representation (``repr``: 2.675
-> 2,68, as a reader rounding by hand expects). Decimal comma, U+2212 minus in prose, no sign on a value
rounded to zero; five or more whole digits grouped by a narrow no-break space (``\\,`` in LaTeX). NaN is
never shown, infinity only in vectors and matrices. A page's ``{{ x | dec(2) }}``, a table column's
``"dec:2"`` and a value's default format all go through ``apply`` and the one table ``FILTERS``.
"""

import difflib
import json
import math as _math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, getcontext, localcontext
from functools import partial

import numpy as np

from anatomia_engine import messages as M

MINUS = "\u2212"
NARROW_NBSP = "\u202f"
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def is_whole(x) -> bool:
    """A whole-number type (Python's int, NumPy's integers), not a boolean: shown exactly, never
    through a float (2**53 + 1 has no float of its own)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _check(x: float, *, allow_inf: bool = False) -> float | int:
    """`x` as a float, or as a Python int if it is whole-number typed; ValueError if it is no number."""
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(M.text("expected_number", got=f"the boolean {x!r}"))
    if isinstance(x, np.ndarray) and x.ndim > 0:
        raise ValueError(M.text("expected_number_array", shape=x.shape))
    if is_whole(x):
        return int(x)
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise ValueError(M.text("expected_number", got=f"{type(x).__name__} {x!r}")) from None
    if _math.isnan(x):
        raise ValueError(M.text("nan"))
    if _math.isinf(x) and not allow_inf:
        raise ValueError(M.text("infinite", value=x))
    return x


MAX_DECIMALS = 12
MAX_EXACT_DIGITS = 1000  # digits of a product a claim compares exactly (a page's integers stay far below)
PLACES = {"dec": 2, "pct": 1, "sci": 1, "bytes": 1}   # the filters with decimal places, and their default


def _exact(x) -> Decimal:
    """The decimal a number stands for: a whole number's own digits, a float's shortest repr."""
    return Decimal(int(x)) if is_whole(x) else Decimal(repr(float(x)))


def round_half_up(x: float | int | Decimal, decimals: int) -> Decimal:
    """Round `x` half-up to `decimals` places, from its shortest decimal representation (a whole
    number or a Decimal: from its own digits)."""
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise ValueError(M.text("decimals_whole", got=repr(decimals)))
    if not 0 <= decimals <= MAX_DECIMALS:
        raise ValueError(M.text("decimals_range", most=MAX_DECIMALS, got=decimals))
    exact = x if isinstance(x, Decimal) else _exact(x)
    try:
        return exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    except InvalidOperation:  # more digits than the decimal context holds (28): 1.5e300 with dec(2)
        most = getcontext().prec - decimals
        if is_whole(x):  # a float would have been rounded: an integer's digits are all known
            raise ValueError(M.text("too_many_digits_int", digits=len(str(abs(int(x)))), most=most,
                                    example=fmt_sci(int(x), 1))) from None
        raise ValueError(M.text("too_many_digits", value=repr(float(x)), most=most,
                                example=fmt_sci(float(x), 1))) from None


def _decimal_text(d: Decimal, math: bool) -> str:
    whole, _, frac = format(d.copy_abs(), "f").partition(".")  # abs() would round to 28 digits
    if len(whole) >= 5:
        whole = format(int(whole), ",").replace(",", r"\," if math else NARROW_NBSP)
    sign = ("-" if math else MINUS) if d < 0 else ""     # a value rounded to zero has none
    return sign + whole + (("{,}" if math else ",") + frac if frac else "")


_IEC = [("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)]
# How a unit `_written` gives is written after the number, in math and in prose.
_UNITS = {"pct": (r"\%", "%"), "sci": (r" \cdot 10^{{{}}}", "·10{}"), "bytes": (r"\ \text{{{}}}", "\u00a0{}")}


def _written(name: str, x: float | int, places: int) -> tuple[Decimal, Decimal, str]:
    """What the number filter `name` writes for `x` (a float, or a Python int: exactly): the rounded
    number, the size of its unit (their product is what a reader reads back) and the unit: pct(1) of
    0.3543 -> (35.4, 0.01, '%')."""
    whole = is_whole(x)
    if name == "int":
        if not whole and x != int(x):
            raise ValueError(M.text("not_whole", value=repr(x)))
        return _exact(x).to_integral_value(), Decimal(1), ""   # a float from its repr: 1e30 is 10**30
    if name == "pct":
        hundred = x * 100 if whole else float(Decimal(repr(x)) * 100)   # float: as the browser computes it
        return round_half_up(hundred, places), Decimal("0.01"), "%"
    if name == "bytes":
        unit, size = next(((unit, size) for unit, size in _IEC if abs(x) >= size), ("B", 1))
        return round_half_up(Decimal(x) / size if whole else x / size, places), Decimal(size), unit
    if name == "sci" and x:
        exponent = _exact(abs(x)).adjusted()
        scaled = _exact(x).scaleb(-exponent)
        mantissa = round_half_up(scaled if whole else float(scaled), places)
        if abs(mantissa) >= 10:  # 9.96 rounded up to 10.0
            exponent += 1
            mantissa = round_half_up(mantissa / 10 if whole else float(mantissa / 10), places)
        return mantissa, Decimal(1).scaleb(exponent), str(exponent)
    return round_half_up(x, places), Decimal(1), ""


def _number(name: str, x: float, places: int | None = None, *, math: bool = False,
            allow_inf: bool = False) -> str:
    """`x` shown by the number filter `name` with `places` decimals (None: its default); ∞ if `allow_inf`."""
    x = _check(x, allow_inf=allow_inf)
    if isinstance(x, float) and _math.isinf(x):
        return ("-" if math else MINUS) * (x < 0) + (r"\infty" if math else "∞")
    number, _, unit = _written(name, x, PLACES.get(name, 0) if places is None else places)
    math_unit, prose_unit = _UNITS[name] if unit else ("", "")
    suffix = math_unit.format(unit) if math else prose_unit.format(unit.translate(SUPERSCRIPT))
    return _decimal_text(number, math) + suffix


fmt_dec = partial(_number, "dec")      # 0.3543 -> '0,35' (prose) or '0{,}35' (math); dec(0) of 7.0 -> '7'
fmt_int = partial(_number, "int")      # 131072 -> '131 072' (five digits or more grouped), 4096 -> '4096'
fmt_pct = partial(_number, "pct")      # 0.3543 -> '35,4%' (prose) or '35{,}4\%' (math)
fmt_sci = partial(_number, "sci")      # 2.22e-16 -> '2,2·10⁻¹⁶' (prose) or '2{,}2 \cdot 10^{-16}' (math)
fmt_bytes = partial(_number, "bytes")  # in the largest IEC unit reached: 2**26 -> '64,0 MiB'


def fmt_vec(x, decimals: int = 2, *, math: bool = False) -> str:
    """A 1-D vector: '[0,35; 0,65]' (a semicolon, since the comma is the decimal mark)."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ValueError(M.text("vec_shape", shape=arr.shape))
    items = [fmt_dec(v, decimals, math=math, allow_inf=True) for v in arr]
    return ("[" + r";\ ".join(items) + "]") if math else ("[" + "; ".join(items) + "]")


def fmt_bmatrix(x, decimals: int = 2, *, math: bool = True) -> str:
    """A 1-D or 2-D array as a LaTeX bmatrix (math only); a 1-D array is a row vector."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(M.text("bmatrix_shape", shape=arr.shape))
    rows = [" & ".join(fmt_dec(v, decimals, math=True, allow_inf=True) for v in row) for row in arr]
    return r"\begin{bmatrix} " + r" \\ ".join(rows) + r" \end{bmatrix}"


# Polish numerals 2..20 (non-masculine-personal forms): nominative, genitive, dative, instrumental.
_FORMS = ["dwa dwóch dwóm dwoma", "trzy trzech trzem trzema", "cztery czterech czterem czterema",
          "pięć pięciu pięciu pięcioma", "sześć sześciu sześciu sześcioma",
          "siedem siedmiu siedmiu siedmioma", "osiem ośmiu ośmiu ośmioma",
          "dziewięć dziewięciu dziewięciu dziewięcioma", "dziesięć dziesięciu dziesięciu dziesięcioma",
          "jedenaście jedenastu jedenastu jedenastoma", "dwanaście dwunastu dwunastu dwunastoma",
          "trzynaście trzynastu trzynastu trzynastoma", "czternaście czternastu czternastu czternastoma",
          "piętnaście piętnastu piętnastu piętnastoma", "szesnaście szesnastu szesnastu szesnastoma",
          "siedemnaście siedemnastu siedemnastu siedemnastoma",
          "osiemnaście osiemnastu osiemnastu osiemnastoma",
          "dziewiętnaście dziewiętnastu dziewiętnastu dziewiętnastoma",
          "dwadzieścia dwudziestu dwudziestu dwudziestoma"]
CASES = ("mianownik", "dopełniacz", "celownik", "biernik", "narzędnik", "miejscownik")
_CASE_FORM = (0, 1, 2, 0, 3, 1)   # the accusative is written as the nominative, the locative as the genitive


def fmt_words(x: float, case: str = "mianownik", *, math: bool = False) -> str:
    """A whole number from 2 to 20 in Polish words, in a case: words("narzędnik") of 4 -> 'czterema'."""
    x = _check(x)
    if x != int(x) or not 2 <= x <= 20:
        raise ValueError(M.text("words_range", value=repr(x)))
    if case not in CASES:
        raise ValueError(M.text("unknown_case", case=repr(case), known=", ".join(CASES)))
    word = _FORMS[int(x) - 2].split()[_CASE_FORM[CASES.index(case)]]
    return rf"\text{{{word}}}" if math else word


def fmt_times(x: float, *, math: bool = False) -> str:
    """A ratio in Polish words, as a reader says it: 4.0 -> 'cztery razy', 4.27 -> 'ponad cztery razy'
    (the whole part from 2 to 20 in words; 'ponad' when the ratio is not whole)."""
    x = _check(x)
    whole = int(_math.floor(x))
    if not 2 <= whole <= 20:
        raise ValueError(M.text("times_range", value=repr(x)))
    words = ("" if x == whole else "ponad ") + fmt_words(whole) + " razy"
    return rf"\text{{{words}}}" if math else words


def fmt_json(x, *, math: bool = False) -> str:
    """Full precision as JSON (for scripts in a page). Every "<" (only ever inside a JSON string) is
    written \\u003c, so no value can end a <script> ("</script>") or open a comment ("<!--") in it."""
    plain = x.tolist() if isinstance(x, np.ndarray) else x
    return json.dumps(plain, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")


def fmt_exact(x) -> str:
    """The value a reader is shown on request (`data-exact`): up to 7 significant digits, prose."""
    if isinstance(x, (np.ndarray, list, tuple)) and np.ndim(x) > 0:
        return "[" + "; ".join(fmt_exact(v) for v in np.asarray(x, dtype=float)) + "]"
    x = _check(x, allow_inf=True)
    if isinstance(x, float) and _math.isinf(x):
        return fmt_dec(x, allow_inf=True)
    if x == int(x) and abs(x) < 1e15:
        return _decimal_text(Decimal(int(x)), False)
    mantissa, _, exponent = format(_exact(x) if is_whole(x) else x, ".7g").partition("e")
    power = "·10" + str(int(exponent)).translate(SUPERSCRIPT) if exponent else ""
    return _decimal_text(Decimal(mantissa), False) + power


def fmt_text(x, *, math: bool = False) -> str:
    """A text as written; a list of texts joined by commas ('alfa, beta'). A number is refused: its digits
    would bypass this formatter (str(0.1 + 0.2) is '0.30000000000000004')."""
    if isinstance(x, str):
        return x
    items = x.tolist() if isinstance(x, np.ndarray) else x
    if isinstance(items, (list, tuple)) and all(isinstance(item, str) for item in items):
        return ", ".join(items)
    if is_number(x) or isinstance(x, (bool, np.bool_)):
        raise ValueError(M.text("text_of_number", value=repr(x)))
    raise ValueError(M.text("text_of_list", type=type(x).__name__))


@dataclass(frozen=True)
class Filter:
    """One way to show a value, `fn(value, *args, math=...)`; `number`: prose wraps it in a provenance
    span; `where`: in running text and tables (prose), in math, as a table column's format."""

    fn: Callable[..., str]
    max_args: int
    usage: str
    number: bool = True
    where: tuple[str, ...] = ("prose", "math", "column")


FILTERS: dict[str, Filter] = {
    "dec": Filter(fmt_dec, 1, "dec(n): n places after the comma, e.g. dec(2) -> 0,35"),
    "pct": Filter(fmt_pct, 1, "pct(n): a fraction in percent, e.g. pct(1) -> 35,4%"),
    "sci": Filter(fmt_sci, 1, "sci(n): scientific notation, e.g. sci(1) -> 2,2·10⁻¹⁶"),
    "int": Filter(fmt_int, 0, "int: a whole number, grouped by thousands from five digits"),
    "bytes": Filter(fmt_bytes, 1, "bytes(n): a size in B, KiB, MiB, GiB, e.g. bytes(0) -> 64 MiB"),
    "words": Filter(fmt_words, 1, 'words("case"): 2…20 in Polish words, e.g. words("narzędnik") -> czterema'),
    "times": Filter(fmt_times, 0, 'times: a ratio in Polish words, e.g. 4.27 -> "ponad cztery razy"',
                    where=("prose", "math")),
    "vec": Filter(fmt_vec, 1, "vec(n): a 1-D array as [0,35; 0,65]", where=("prose", "math")),
    "bmatrix": Filter(fmt_bmatrix, 1, "bmatrix(n): an array as a LaTeX matrix (inside math only)",
                      where=("math",)),
    "json": Filter(fmt_json, 0, "json: full precision as JSON (for scripts)", number=False, where=("prose",)),
    "text": Filter(fmt_text, 0, "text: a text, or a list of texts joined by commas", number=False,
                   where=("prose", "math")),
}
COLUMNS = [name for name, f in FILTERS.items() if "column" in f.where]


def is_number(v) -> bool:
    """A real number, not a boolean (True is an int in Python, but no number on a page)."""
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def default_filter(value, *, math: bool) -> str:
    """The filter used when a placeholder names none: int, dec(2), vec(2)/bmatrix(2), text."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(M.text("boolean_shown"))
    if is_number(value):
        return "int" if isinstance(value, (int, np.integer)) else "dec"
    if isinstance(value, str):
        return "text"
    if isinstance(value, np.ndarray):
        return "bmatrix" if math or value.ndim == 2 else "vec"
    raise ValueError(M.text("needs_filter", type=type(value).__name__))


def shown_value(value, name: str | None, args: tuple = ()) -> Decimal | None:
    """The number a reader sees when `value` is shown with the filter `name` (None: the default), in
    the value's units (pct(1) of 0.3543 -> 0.354); None for arrays and text."""
    if not is_number(value) or not (is_whole(value) or _math.isfinite(value)):
        return None
    name = name or default_filter(value, math=False)
    if name == "words":
        return _exact(value)
    if name not in PLACES and name != "int":
        return None
    number, size, _ = _written(name, _check(value), args[0] if args else PLACES.get(name, 0))
    with localcontext() as exact:  # a whole number's every digit (28 by default)
        exact.prec = MAX_EXACT_DIGITS
        return number * size


def apply(value, name: str | None, args: tuple = (), *, math: bool = False) -> str:
    """Show `value` with the filter `name` (None: the default for its type) in prose or math;
    ValueError, saying how to fix it, if it cannot."""
    if name is None:
        name = default_filter(value, math=math)
    f = FILTERS.get(name)
    if f is None:
        near = difflib.get_close_matches(name, FILTERS, n=1)
        hint = f"did you mean '{near[0]}'? " if near else ""
        raise ValueError(M.text("unknown_filter", name=name, hint=hint, known=", ".join(FILTERS)))
    if math and "math" not in f.where:
        raise ValueError(M.text("not_in_math", name=name))
    if not math and "prose" not in f.where:
        raise ValueError(M.text("math_only", name=name))
    if len(args) > f.max_args:
        raise ValueError(M.text("too_many_args", name=name, most=f.max_args, got=len(args), usage=f.usage))
    return f.fn(value, *args, math=math)


def parse_spec(spec: str) -> tuple[str, tuple]:
    """A table column's format: 'dec:2' -> ('dec', (2,)), 'int' -> ('int', ()), 'words:biernik'."""
    name, _, arg = spec.partition(":")
    if not arg:
        return name, ()
    return name, (int(arg),) if arg.lstrip("-").isdigit() else (arg,)


def fmt_spec(x, spec: str | None, *, math: bool = False) -> str:
    """Format by a table-column spec: 'dec:2', 'pct:1', 'sci:1', 'int', 'bytes:1', or None (text)."""
    if spec is None:
        return str(x)
    name, args = parse_spec(spec)
    if name not in COLUMNS:
        raise ValueError(M.text("unknown_spec", spec=repr(spec), known=", ".join(
            f"{n}:N" if FILTERS[n].max_args else n for n in COLUMNS)))
    return apply(x, name, args, math=math)
