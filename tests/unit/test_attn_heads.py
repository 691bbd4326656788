"""Multi-head, grouped-query and multi-query attention."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import (
    causal_mask,
    grouped_query_attention,
    kv_group_of_heads,
    merge_heads,
    multi_head_attention,
    split_heads,
)
from tests.strategies import PROPERTY_SETTINGS, floats_of_shape

ATOL = 1e-12
RTOL = 1e-12  # outputs reach ~50: a different summation order moves the last bits by |x|·ε


def plain_softmax_attention(q, k, v, mask):
    s = q @ k.T / np.sqrt(q.shape[1]) + mask
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True) @ v


@st.composite
def mha_case(draw, kv_heads_equal_heads: bool = False):
    """(x, w_q, w_k, w_v, w_o, n_heads, n_kv_heads) with small random weights."""
    n_kv = draw(st.integers(1, 4))
    n_heads = n_kv if kv_heads_equal_heads else n_kv * draw(st.integers(1, 3))
    d_k = draw(st.integers(1, 3))
    d, t = n_heads * d_k, draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = draw(floats_of_shape((t, d)))
    w = [rng.uniform(-1, 1, shape) for shape in
         [(d, d), (d, n_kv * d_k), (d, n_kv * d_k), (d, d)]]
    return x, *w, n_heads, n_kv


@PROPERTY_SETTINGS
@given(st.data())
def test_merge_heads_inverts_split_heads(data):
    h = data.draw(st.integers(1, 4))
    x = data.draw(floats_of_shape((data.draw(st.integers(1, 5)), h * data.draw(st.integers(1, 3)))))
    heads = split_heads(x, h)
    d_k = x.shape[1] // h
    assert heads.shape == (h, x.shape[0], d_k)
    for i in range(h):
        assert_array_equal(heads[i], x[:, i * d_k:(i + 1) * d_k])
    assert_array_equal(merge_heads(heads), x)


def test_split_and_merge_heads_keep_leading_batch_axes(rng):
    x = rng.standard_normal((2, 3, 5, 6))                             # (B1, B2, T, d)
    heads = split_heads(x, 3)                                         # (B1, B2, h, T, d_k)
    assert heads.shape == (2, 3, 3, 5, 2)
    for idx in np.ndindex(2, 3):
        assert_array_equal(heads[idx], split_heads(x[idx], 3))
    assert_array_equal(merge_heads(heads), x)


def test_multi_head_attention_equals_loop_over_heads(rng):
    t, d, h = 5, 6, 3
    x = rng.standard_normal((t, d))
    w_q, w_k, w_v, w_o = (rng.standard_normal((d, d)) for _ in range(4))
    res = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads=h, mask=causal_mask(t))
    d_k = d // h
    cols = [slice(i * d_k, (i + 1) * d_k) for i in range(h)]
    heads = [plain_softmax_attention(x @ w_q[:, c], x @ w_k[:, c], x @ w_v[:, c], causal_mask(t))
             for c in cols]
    assert_allclose(res.heads, np.stack(heads), rtol=0, atol=ATOL)
    assert_allclose(res.output, np.concatenate(heads, axis=1) @ w_o, rtol=1e-12, atol=ATOL)
    assert res.weights.shape == (h, t, t) and res.q.shape == res.k.shape == (h, t, d_k)
    assert np.all(res.weights[:, np.triu_indices(t, 1)[0], np.triu_indices(t, 1)[1]] == 0.0)
    output, weights = res
    assert output is res.output and weights is res.weights


@PROPERTY_SETTINGS
@given(mha_case(kv_heads_equal_heads=True))
def test_gqa_with_as_many_kv_heads_as_heads_is_mha(case):
    x, w_q, w_k, w_v, w_o, n_heads, _ = case
    mha = multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads)
    gqa = grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads, n_kv_heads=n_heads)
    assert_allclose(gqa.output, mha.output, rtol=0, atol=ATOL)
    assert_allclose(gqa.weights, mha.weights, rtol=0, atol=ATOL)


@PROPERTY_SETTINGS
@given(mha_case())
def test_gqa_equals_mha_with_kv_weights_repeated(case):
    # With n_kv_heads = 1 this is MQA: every head reads the single K/V head.
    x, w_q, w_k, w_v, w_o, n_heads, n_kv = case
    d_k = x.shape[1] // n_heads
    group = kv_group_of_heads(n_heads, n_kv)
    repeat = [np.concatenate([w[:, g * d_k:(g + 1) * d_k] for g in group], axis=1)
              for w in (w_k, w_v)]
    gqa = grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads, n_kv)
    mha = multi_head_attention(x, w_q, *repeat, w_o, n_heads)
    assert_allclose(gqa.output, mha.output, rtol=RTOL, atol=ATOL)
    assert_allclose(gqa.heads, mha.heads, rtol=RTOL, atol=ATOL)
    assert gqa.k.shape == gqa.v.shape == (n_kv, x.shape[0], d_k)   # what the KV-cache stores


@PROPERTY_SETTINGS
@given(mha_case())
def test_mqa_equals_mha_with_one_shared_kv_head(case):
    x, w_q, w_k, w_v, w_o, n_heads, _ = case
    d_k = x.shape[1] // n_heads
    w_k1, w_v1 = w_k[:, :d_k], w_v[:, :d_k]
    mqa = grouped_query_attention(x, w_q, w_k1, w_v1, w_o, n_heads, n_kv_heads=1)
    mha = multi_head_attention(x, w_q, np.tile(w_k1, n_heads), np.tile(w_v1, n_heads), w_o, n_heads)
    assert_allclose(mqa.output, mha.output, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(("h", "g", "expected"), [
    (8, 8, [0, 1, 2, 3, 4, 5, 6, 7]),
    (8, 2, [0, 0, 0, 0, 1, 1, 1, 1]),
    (8, 1, [0] * 8),
    (6, 3, [0, 0, 1, 1, 2, 2]),
])
def test_kv_group_of_heads(h, g, expected):
    assert_array_equal(kv_group_of_heads(h, g), expected)


def test_multi_head_keeps_float32(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    w = np.eye(4, dtype=np.float32)
    assert multi_head_attention(x, w, w, w, w, 2).output.dtype == np.float32


X, W = np.ones((3, 6)), np.ones((6, 6))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: split_heads(X, 4),
     r"d_model=6 \(x of shape \(3, 6\)\) is not divisible by n_heads=4"),
    (lambda: split_heads(np.ones(6), 2), r"x must have at least 2 dimensions, got shape \(6,\)"),
    (lambda: merge_heads(X), r"x must have at least 3 dimensions, got shape \(3, 6\)"),
    (lambda: multi_head_attention(X, W, W, W, W, 4), r"d_model=6 .* not divisible by n_heads=4"),
    (lambda: multi_head_attention(X, W, W, W, W, 0), r"n_heads must be > 0, got 0"),
    (lambda: multi_head_attention(X, np.ones((6, 4)), W, W, W, 2),
     r"w_q must have shape \(6, 6\) .* got \(6, 4\)"),
    (lambda: multi_head_attention(X, W, W, W, np.ones((4, 6)), 2),
     r"w_o must have shape \(6, d_out\)"),
    (lambda: multi_head_attention(X, W, W, W, W, 2, mask=np.zeros((2, 3))),
     r"mask has shape \(2, 3\)"),
    (lambda: grouped_query_attention(X, W, W, W, W, 6, 4),
     r"n_heads=6 is not divisible by n_kv_heads=4"),
    (lambda: grouped_query_attention(X, W, W, W, W, 6, 2),
     r"w_k must have shape \(6, 2\) for x of shape \(3, 6\), n_heads=6, n_kv_heads=2"),
    (lambda: kv_group_of_heads(4, 3), r"n_heads=4 is not divisible by n_kv_heads=3"),
    (lambda: multi_head_attention(np.full((3, 6), np.nan), W, W, W, W, 2),
     r"x \(shape \(3, 6\)\) must be finite"),
])
def test_heads_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
