"""Luong and Bahdanau score functions and `attend`, checked against their formulas."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from attn_core import (
    attend,
    bahdanau_additive,
    luong_concat,
    luong_dot,
    luong_general,
    scaled_dot_product_attention,
)
from tests.strategies import PROPERTY_SETTINGS, arrays_TD, floats_of_shape, seeds

ATOL = 1e-12


@PROPERTY_SETTINGS
@given(st.data())
def test_luong_dot_equals_qk_transpose(data):
    k = data.draw(arrays_TD())
    q = data.draw(floats_of_shape((data.draw(st.integers(1, 5)), k.shape[1])))
    rows = np.stack([luong_dot(q_t, k) for q_t in q])               # (T_q, S)
    assert_allclose(rows, q @ k.T, rtol=0, atol=ATOL)
    assert_allclose(rows, scaled_dot_product_attention(q, k, k).scores, rtol=0, atol=ATOL)


@PROPERTY_SETTINGS
@given(arrays_TD(), seeds())
def test_luong_general_with_identity_is_dot(h_s, rng):
    h_t = rng.uniform(-10, 10, h_s.shape[1])
    assert_allclose(luong_general(h_t, h_s, np.eye(h_s.shape[1])), luong_dot(h_t, h_s),
                    rtol=0, atol=ATOL)


def test_luong_general_matches_bilinear_form(rng):
    h_t, h_s, w_a = rng.standard_normal(3), rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
    expected = [h_t @ w_a @ h_s[s] for s in range(4)]
    assert_allclose(luong_general(h_t, h_s, w_a), expected, rtol=1e-13)


def test_luong_concat_matches_formula(rng):
    h_t, h_s = rng.standard_normal(3), rng.standard_normal((4, 2))
    w_a, v_a = rng.standard_normal((6, 5)), rng.standard_normal(6)
    expected = [v_a @ np.tanh(w_a @ np.concatenate([h_t, h_s[s]])) for s in range(4)]
    assert_allclose(luong_concat(h_t, h_s, w_a, v_a), expected, rtol=1e-13)


def test_bahdanau_additive_matches_formula(rng):
    s_prev, h = rng.standard_normal(3), rng.standard_normal((5, 4))
    w, u, v = rng.standard_normal((6, 3)), rng.standard_normal((6, 4)), rng.standard_normal(6)
    expected = [v @ np.tanh(w @ s_prev + u @ h[j]) for j in range(5)]
    assert_allclose(bahdanau_additive(s_prev, h, w, u, v), expected, rtol=1e-13)


@PROPERTY_SETTINGS
@given(arrays_TD(), seeds())
def test_attend_context_is_weighted_sum_of_values(values, rng):
    scores = rng.uniform(-10, 10, values.shape[0])
    weights, context = attend(scores, values)
    assert_allclose(weights.sum(), 1.0, rtol=0, atol=ATOL)
    assert_allclose(context, sum(w * h for w, h in zip(weights, values, strict=True)),
                    rtol=0, atol=1e-11)


def test_attend_batch_of_scores(rng):
    scores, values = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    weights, context = attend(scores, values)
    assert weights.shape == (3, 4) and context.shape == (3, 2)


def test_scores_keep_float32():
    h_t, h_s = np.ones(2, dtype=np.float32), np.ones((3, 2), dtype=np.float32)
    assert luong_dot(h_t, h_s).dtype == np.float32
    assert luong_general(h_t, h_s, np.eye(2, dtype=np.float32)).dtype == np.float32


@pytest.mark.parametrize(("call", "message"), [
    (lambda: luong_dot(np.ones(3), np.ones((4, 2))),
     r"same width: h_t has shape \(3,\), h_s \(4, 2\)"),
    (lambda: luong_dot(np.ones((1, 3)), np.ones((4, 3))), r"h_t must have 1 dimension"),
    (lambda: luong_dot(np.ones(3), np.ones(3)), r"h_s must have 2 dimension"),
    (lambda: luong_dot(np.array([np.nan, 0.0]), np.ones((4, 2))),
     r"h_t \(shape \(2,\)\) must be finite"),
    (lambda: luong_general(np.ones(3), np.ones((4, 2)), np.ones((2, 3))),
     r"w_a must have shape \(d_t, d_s\) = \(3, 2\).* got \(2, 3\)"),
    (lambda: luong_concat(np.ones(3), np.ones((4, 2)), np.ones((6, 4)), np.ones(6)),
     r"w_a of shape \(d_a, d_t \+ d_s\) = \(d_a, 5\)"),
    (lambda: bahdanau_additive(np.ones(3), np.ones((5, 4)), np.ones((6, 4)), np.ones((6, 4)),
                               np.ones(6)), r"w of shape \(d_a, d_s\) = \(6, 3\)"),
    (lambda: attend(np.ones(3), np.ones((4, 2))), r"scores must have shape \(S,\) or \(T, S\)"),
])
def test_score_functions_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
