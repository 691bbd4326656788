"""The site's one number formatter: every number a reader sees goes through here.

Policy (documented for authors in docs/jak-dodac-wartosc.md):

- Values are kept at full precision and rounded only for display, half-up, from the
  shortest decimal representation of the float (``repr``), so 0.125 -> 0,13 and
  2.675 -> 2,68 as a reader rounding by hand would expect.
- Decimal comma: ``0,35`` in prose, ``0{,}35`` in LaTeX (so TeX adds no space after it).
- Minus sign: U+2212 in prose, ``-`` in LaTeX. A value that rounds to zero has no sign.
- Integers of five or more digits are grouped by thousands with a narrow no-break space
  (prose) or ``\\,`` (LaTeX), as Polish typography asks; four-digit numbers are not grouped.
- Percent: ``35,4%`` / ``35{,}4\\%``. Bytes: IEC units (KiB = 2^10 B, MiB, GiB), with the
  requested decimals like every other number.
- NaN is never shown: it raises ``ValueError``. Infinity is shown only inside vectors and
  matrices (masked scores), as ``−∞`` / ``-\\infty``; a scalar infinity raises ``ValueError``.
"""

from __future__ import annotations

import math as _math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

MINUS = "\u2212"
NARROW_NBSP = "\u202f"
_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _check(x: float, *, allow_inf: bool = False) -> float:
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"expected a number, got the boolean {x!r}")
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"expected a number, got {type(x).__name__} {x!r}") from None
    if _math.isnan(x):
        raise ValueError("the value is NaN (not a number); refusing to show it")
    if _math.isinf(x) and not allow_inf:
        raise ValueError(f"the value is {x} (infinite); only vectors and matrices may show infinity")
    return x


def _inf(x: float, math: bool) -> str:
    if math:
        return r"-\infty" if x < 0 else r"\infty"
    return MINUS + "∞" if x < 0 else "∞"


def _group(digits: str, math: bool) -> str:
    if len(digits) < 5:
        return digits
    sep = r"\," if math else NARROW_NBSP
    head = len(digits) % 3 or 3
    parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
    return sep.join(parts)


def round_half_up(x: float, decimals: int) -> Decimal:
    """Round `x` half-up to `decimals` places, from its shortest decimal representation."""
    if decimals < 0:
        raise ValueError(f"decimals={decimals} must be >= 0")
    return Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)


def _decimal_text(d: Decimal, math: bool) -> str:
    sign = "-" if d < 0 and d != 0 else ""
    text = format(abs(d), "f")
    whole, _, frac = text.partition(".")
    out = _group(whole, math)
    if frac:
        out += ("{,}" if math else ",") + frac
    if sign:
        out = ("-" if math else MINUS) + out
    return out


def fmt_dec(x: float, decimals: int = 2, *, math: bool = False, allow_inf: bool = False) -> str:
    """A number with `decimals` places: 0.3543 -> '0,35' (prose) or '0{,}35' (math)."""
    x = _check(x, allow_inf=allow_inf)
    if _math.isinf(x):
        return _inf(x, math)
    return _decimal_text(round_half_up(x, decimals), math)


def fmt_int(x: float, *, math: bool = False) -> str:
    """A whole number, grouped by thousands from five digits on: 131072 -> '131 072'."""
    x = _check(x)
    if x != int(x):
        raise ValueError(f"{x!r} is not a whole number; use dec(n)")
    return _decimal_text(Decimal(int(x)), math)


def fmt_pct(x: float, decimals: int = 1, *, math: bool = False) -> str:
    """A fraction as percent: 0.3543 -> '35,4%' (prose) or '35{,}4\\%' (math)."""
    x = _check(x)
    return fmt_dec(Decimal(repr(x)) * 100, decimals, math=math) + (r"\%" if math else "%")


def fmt_sci(x: float, decimals: int = 1, *, math: bool = False) -> str:
    """Scientific notation: 2.22e-16 -> '2,2·10⁻¹⁶' (prose) or '2{,}2 \\cdot 10^{-16}' (math)."""
    x = _check(x)
    if x == 0:
        return fmt_dec(0.0, decimals, math=math)
    exponent = Decimal(repr(abs(x))).adjusted()
    mantissa = round_half_up(float(Decimal(repr(x)).scaleb(-exponent)), decimals)
    if abs(mantissa) >= 10:  # 9.96 rounded up to 10.0
        exponent += 1
        mantissa = round_half_up(float(mantissa / 10), decimals)
    head = _decimal_text(mantissa, math)
    if math:
        return rf"{head} \cdot 10^{{{exponent}}}"
    return f"{head}·10{str(exponent).translate(_SUPERSCRIPT)}"


_IEC = [("B", 1), ("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30), ("TiB", 2**40)]


def fmt_bytes(x: float, decimals: int = 1, *, math: bool = False) -> str:
    """A byte count in the largest IEC unit it reaches: 67108864 -> '64,0 MiB' (bytes(0): '64 MiB')."""
    x = _check(x)
    unit, size = next((u, s) for u, s in reversed(_IEC) if abs(x) >= s or s == 1)
    number = fmt_dec(x / size, decimals, math=math)
    return rf"{number}\ \text{{{unit}}}" if math else f"{number}\u00a0{unit}"


def fmt_vec(x, decimals: int = 2, *, math: bool = False) -> str:
    """A 1-D vector: '[0,35; 0,65]' (a semicolon, since the comma is the decimal mark)."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"vec needs a 1-D array, got shape {arr.shape}")
    items = [fmt_dec(v, decimals, math=math, allow_inf=True) for v in arr]
    return ("[" + r";\ ".join(items) + "]") if math else ("[" + "; ".join(items) + "]")


def fmt_bmatrix(x, decimals: int = 2) -> str:
    """A 1-D or 2-D array as a LaTeX bmatrix (math only); a 1-D array is a row vector."""
    arr = np.asarray(x, dtype=float)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"bmatrix needs a 1-D or 2-D array, got shape {arr.shape}")
    rows = [" & ".join(fmt_dec(v, decimals, math=True, allow_inf=True) for v in row) for row in arr]
    return r"\begin{bmatrix} " + r" \\ ".join(rows) + r" \end{bmatrix}"


def fmt_spec(x, spec: str | None, *, math: bool = False) -> str:
    """Format by a table-column spec: 'dec:2', 'pct:1', 'sci:1', 'int', 'bytes:1', or None (text)."""
    if spec is None:
        return str(x)
    name, _, arg = spec.partition(":")
    n = int(arg) if arg else None
    if name == "dec":
        return fmt_dec(x, 2 if n is None else n, math=math)
    if name == "pct":
        return fmt_pct(x, 1 if n is None else n, math=math)
    if name == "sci":
        return fmt_sci(x, 1 if n is None else n, math=math)
    if name == "bytes":
        return fmt_bytes(x, 1 if n is None else n, math=math)
    if name == "int":
        return fmt_int(x, math=math)
    raise ValueError(f"unknown format spec {spec!r}; known: dec:N, pct:N, sci:N, bytes:N, int")
