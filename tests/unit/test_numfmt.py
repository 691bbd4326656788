"""The one number formatter: Polish decimal comma, half-up rounding from full precision."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anatomia_engine.errors import EngineError
from anatomia_engine.numfmt import (
    MINUS,
    NARROW_NBSP,
    fmt_bmatrix,
    fmt_bytes,
    fmt_dec,
    fmt_int,
    fmt_pct,
    fmt_sci,
    fmt_spec,
    fmt_vec,
    round_half_up,
    shown_value,
)


@pytest.mark.parametrize(("x", "n", "prose", "math_"), [
    (0.354343, 2, "0,35", "0{,}35"),
    (0.125, 2, "0,13", "0{,}13"),        # half-up, not banker's rounding
    (2.675, 2, "2,68", "2{,}68"),        # from the decimal repr, not the binary 2.67499...
    (0.6443, 2, "0,64", "0{,}64"),
    (1.0, 1, "1,0", "1{,}0"),
    (-1.5, 1, MINUS + "1,5", "-1{,}5"),
    (-0.001, 2, "0,00", "0{,}00"),       # no sign on a rounded zero
    (12345.678, 1, f"12{NARROW_NBSP}345,7", r"12\,345{,}7"),
    (7.0, 0, "7", "7"),
])
def test_dec_prose_and_math(x, n, prose, math_):
    assert fmt_dec(x, n) == prose
    assert fmt_dec(x, n, math=True) == math_


def refusal(fn, *args, **kwargs) -> EngineError:
    """The EngineError `fn(*args, **kwargs)` stops with."""
    with pytest.raises(EngineError) as info:
        fn(*args, **kwargs)
    return info.value


def test_nan_and_scalar_infinity_are_refused():
    assert refusal(fmt_dec, float("nan")).id == "nan"
    infinite = refusal(fmt_dec, float("inf"))
    assert infinite.id == "infinite"
    assert infinite.fields["value"] == math.inf
    assert refusal(fmt_pct, float("nan")).id == "nan"


def test_infinity_allowed_in_matrices():
    m = np.array([[0.5, -np.inf], [0.25, 1.0]])
    assert fmt_bmatrix(m, 2) == r"\begin{bmatrix} 0{,}50 & -\infty \\ 0{,}25 & 1{,}00 \end{bmatrix}"
    assert fmt_vec([0.1, -math.inf], 1) == f"[0,1; {MINUS}∞]"
    assert refusal(fmt_bmatrix, [[np.nan]]).id == "nan"


def test_percent_sci_int_bytes():
    assert fmt_pct(0.3543) == "35,4%"
    assert fmt_pct(0.3543, 0, math=True) == r"35\%"
    assert fmt_sci(2.220446049250313e-16, 1) == "2,2·10⁻¹⁶"
    assert fmt_sci(2.220446049250313e-16, 1, math=True) == r"2{,}2 \cdot 10^{-16}"
    assert fmt_sci(9.96e-5, 1) == "1,0·10⁻⁴"
    assert fmt_int(131072) == f"131{NARROW_NBSP}072"
    assert fmt_int(4096) == "4096"
    assert fmt_bytes(4096 * 4096 * 4, 0) == "64\u00a0MiB"
    assert fmt_bytes(2 * 2**30, 2) == "2,00\u00a0GiB"  # same places as 2,50 GiB in a column
    assert fmt_bytes(1.5 * 2**30) == "1,5\u00a0GiB"
    assert fmt_bytes(2**19, 0, math=True) == r"512\ \text{KiB}"
    not_whole = refusal(fmt_int, 2.5)
    assert not_whole.id == "not_whole"
    assert not_whole.fields["value"] == "2.5"


def test_spec_dispatch_and_unknown_spec():
    assert fmt_spec(0.5, "pct:0") == "50%"
    assert fmt_spec("kot", None) == "kot"
    unknown = refusal(fmt_spec, 1.0, "eng:2")
    assert unknown.id == "unknown_spec"
    assert unknown.fields["spec"] == "'eng:2'"
    assert "dec:N" in unknown.fields["known"].split(", ")


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), st.integers(0, 6))
def test_display_is_within_half_an_ulp_of_the_last_place(x, n):
    shown = fmt_dec(x, n).replace(MINUS, "-").replace(NARROW_NBSP, "").replace(",", ".")
    assert abs(float(shown) - x) <= 0.5 * 10**-n + 1e-9 * max(1.0, abs(x))


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), st.integers(0, 4))
def test_math_and_prose_show_the_same_digits(x, n):
    prose = fmt_dec(x, n).replace(MINUS, "-").replace(NARROW_NBSP, "")
    math_ = fmt_dec(x, n, math=True).replace("{,}", ",").replace(r"\,", "")
    assert prose == math_


def test_round_half_up_keeps_the_requested_places():
    assert str(round_half_up(0.5, 0)) == "1"
    assert str(round_half_up(-0.125, 2)) == "-0.13"
    assert str(round_half_up(3.0, 3)) == "3.000"


def test_a_number_too_long_to_write_out_asks_for_scientific_notation():
    """dec(2) of 1.5e300 used to stop with a bare decimal.InvalidOperation."""
    too_long = refusal(fmt_dec, 1.5e300, 2)
    assert too_long.id == "too_many_digits"
    assert too_long.fields["value"] == "1.5e+300"
    assert too_long.fields["example"] == fmt_sci(1.5e300, 1) == "1,5·10³⁰⁰"
    for fmt in (fmt_pct, fmt_bytes):
        assert refusal(fmt, 1.5e300, 2).id == "too_many_digits"
    integer = refusal(fmt_dec, 10**40, 2)
    assert integer.id == "too_many_digits_int"
    assert integer.fields["digits"] == 41


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False), st.integers(0, 6),
       st.sampled_from(["dec", "pct", "sci"]))
def test_the_shown_value_is_the_number_the_text_writes(x, n, name):
    """shown_value is what a reader reads back from the text, in the value's own units."""
    text = {"dec": fmt_dec, "pct": fmt_pct, "sci": fmt_sci}[name](x, n)
    written = text.replace(MINUS, "-").replace(NARROW_NBSP, "").replace(",", ".").rstrip("%")
    if name == "sci" and "·10" in written:
        mantissa, exponent = written.split("·10")
        exponent = exponent.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        written = f"{mantissa}e{exponent}"
    read_back = float(written) / (100 if name == "pct" else 1)
    assert math.isclose(float(shown_value(x, name, (n,))), read_back, rel_tol=1e-12, abs_tol=1e-15)


def test_the_shown_value_of_bytes_words_and_text():
    assert shown_value(67108864 + 1000, "bytes", (0,)) == 64 * 2**20
    assert shown_value(4, "words") == 4
    assert shown_value("kot", "text") is None
    assert shown_value(np.array([0.1, 0.2]), "vec") is None
