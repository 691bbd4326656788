"""softmax and the causal masks: properties, golden values and bad input."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import causal_mask, future_mask, log_softmax, softmax
from tests.strategies import PROPERTY_SETTINGS, arrays_TD, floats_of_shape


@PROPERTY_SETTINGS
@given(arrays_TD(max_t=6, max_d=10))
def test_softmax_rows_sum_to_one(x):
    p = softmax(x)
    assert np.all(p >= 0)
    assert_allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@PROPERTY_SETTINGS
@given(arrays_TD(max_t=6, max_d=10), st.floats(-10, 10))
def test_softmax_unchanged_by_row_shift(x, c):
    assert_allclose(softmax(x + c), softmax(x), rtol=0, atol=1e-12)


@PROPERTY_SETTINGS
@given(st.data())
def test_softmax_blocked_entries_exactly_zero(data):
    x = data.draw(arrays_TD(max_t=6, max_d=8))
    blocked = data.draw(floats_of_shape(x.shape)) > 0
    blocked[:, 0] = False                                  # every row keeps one open entry
    p = softmax(np.where(blocked, -np.inf, x))
    assert np.all(p[blocked] == 0.0)
    assert_allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    open_only = softmax(x[0, ~blocked[0]])
    assert_allclose(p[0, ~blocked[0]], open_only, rtol=1e-12)


def test_softmax_golden_values():
    # softmax([0, 1, 2, 3]) = e^i / (1 + e + e^2 + e^3), written out with math-level formulas.
    e = np.exp(1.0)
    expected = np.array([1, e, e**2, e**3]) / (1 + e + e**2 + e**3)
    assert_allclose(softmax(np.array([0.0, 1.0, 2.0, 3.0])), expected, rtol=1e-14)


def test_softmax_no_overflow_at_1e4():
    p = softmax(np.array([1e4, 1e4 - 1.0, -1e4]))
    assert np.all(np.isfinite(p))
    assert_allclose(p[:2], [1 / (1 + np.exp(-1.0)), 1 / (1 + np.exp(1.0))], rtol=1e-14)
    assert p[2] == 0.0                                     # e^(-2e4) underflows to exactly 0


@PROPERTY_SETTINGS
@given(arrays_TD(max_t=6, max_d=10))
def test_log_softmax_is_the_log_of_softmax(x):
    assert_allclose(np.exp(log_softmax(x)), softmax(x), rtol=1e-12, atol=1e-300)
    assert_allclose(log_softmax(x), np.log(softmax(x)), rtol=1e-12, atol=1e-12)


def test_log_softmax_stays_finite_where_softmax_underflows():
    # log softmax([0, 1000]) = [-1000 - log(1 + e^-1000), -log(1 + e^-1000)] = [-1000, 0] in float64.
    x = np.array([0.0, 1000.0])
    assert softmax(x)[0] == 0.0                                     # exp(-1000) underflows
    assert_array_equal(log_softmax(x), [-1000.0, 0.0])
    blocked = log_softmax(np.array([[1.0, -np.inf, 1.0]]))
    assert_allclose(blocked, [[-np.log(2), -np.inf, -np.log(2)]], rtol=1e-15)


def test_log_softmax_keeps_float32_and_shares_the_checks():
    assert log_softmax(np.ones((2, 3), np.float32)).dtype == np.float32
    with pytest.raises(ValueError, match="must not contain NaN"):
        log_softmax([0.0, np.nan])
    with pytest.raises(ValueError, match="row 1 of x"):
        log_softmax(np.array([[0.0, 1.0], [-np.inf, -np.inf]]))


def test_softmax_axis_and_batch():
    x = np.arange(24.0).reshape(2, 3, 4)
    assert_allclose(softmax(x, axis=1).sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert_allclose(softmax(x, axis=0), np.moveaxis(softmax(np.moveaxis(x, 0, -1)), -1, 0),
                    rtol=1e-15)


def test_softmax_float32_preserved():
    x = np.array([[1.0, 2.0, 3.0]], dtype=np.float32)
    assert softmax(x).dtype == np.float32
    assert softmax(x.astype(np.float64)).dtype == np.float64
    assert softmax([1, 2, 3]).dtype == np.float64          # ints compute in float64


def test_softmax_does_not_modify_input():
    x = np.array([1.0, 2.0, 3.0])
    softmax(x)
    assert_array_equal(x, [1.0, 2.0, 3.0])


def test_softmax_fully_blocked_row_names_row():
    x = np.array([[0.0, 1.0], [-np.inf, -np.inf], [2.0, -np.inf]])
    with pytest.raises(ValueError, match=r"row 1 of x \(shape \(3, 2\).*every position is blocked"):
        softmax(x)


def test_softmax_fully_blocked_batch_row_names_index():
    x = np.zeros((2, 3, 4))
    x[1, 2] = -np.inf
    with pytest.raises(ValueError, match=r"row \(1, 2\) of x"):
        softmax(x)


@pytest.mark.parametrize(("x", "message"), [
    (np.array([0.0, np.nan]), r"x \(shape \(2,\)\) must not contain NaN or \+inf"),
    (np.array([0.0, np.inf]), r"NaN or \+inf"),
    (np.array(1.0), r"at least 1 dimension.*shape \(\)"),
    (np.zeros((2, 0)), r"empty axis: x has shape \(2, 0\)"),
    (np.array(["a", "b"]), r"x must hold real numbers"),
])
def test_softmax_bad_input(x, message):
    with pytest.raises(ValueError, match=message):
        softmax(x)


def test_softmax_bad_axis():
    with pytest.raises(ValueError, match=r"axis=2 is out of range for x of shape \(3,\)"):
        softmax(np.zeros(3), axis=2)


def test_causal_mask_values():
    m = causal_mask(3)
    expected = np.array([[0.0, -np.inf, -np.inf], [0.0, 0.0, -np.inf], [0.0, 0.0, 0.0]])
    assert_array_equal(m, expected)
    assert m.dtype == np.float64


@pytest.mark.parametrize("n", [1, 2, 5, 17])
def test_future_mask_is_boolean_twin_of_causal_mask(n):
    f = future_mask(n)
    assert f.dtype == np.bool_ and f.shape == (n, n)
    assert_array_equal(f, np.isneginf(causal_mask(n)))
    assert_array_equal(f, np.arange(n)[None, :] > np.arange(n)[:, None])


@pytest.mark.parametrize("n", [0, -3, 2.5, True, "3"])
def test_masks_reject_bad_n(n):
    with pytest.raises(ValueError, match=r"^n must be"):
        causal_mask(n)
    with pytest.raises(ValueError, match=r"^n must be"):
        future_mask(n)
