"""scaled_dot_product_attention: properties of the weights and outputs, and bad input."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import AttentionResult, causal_mask, future_mask, scaled_dot_product_attention
from tests.strategies import PROPERTY_SETTINGS, floats_of_shape, qkv_T_dk

ATOL = 1e-12      # values are in -10..10, so float64 errors stay many orders below this


@PROPERTY_SETTINGS
@given(qkv_T_dk(square=False), st.booleans())
def test_attention_weights_rows_sum_to_one(qkv, causal):
    q, k, v = qkv
    mask = None
    if causal:
        k, v = k[: len(q)], v[: len(q)]
        mask = causal_mask(len(q))[:, : len(k)]
    res = scaled_dot_product_attention(q, k, v, mask=mask)
    assert np.all(res.weights >= 0)
    assert_allclose(res.weights.sum(axis=-1), 1.0, rtol=0, atol=ATOL)


@PROPERTY_SETTINGS
@given(qkv_T_dk())
def test_causal_weights_zero_above_diagonal(qkv):
    q, k, v = qkv
    res = scaled_dot_product_attention(q, k, v, mask=causal_mask(len(q)))
    assert np.all(res.weights[future_mask(len(q))] == 0.0)        # exactly, not approximately
    assert res.weights[0, 0] == 1.0


@PROPERTY_SETTINGS
@given(st.data())
def test_causal_attention_does_not_leak_future(data):
    q, k, v = data.draw(qkv_T_dk(max_t=10))
    t = len(q)
    p = data.draw(st.integers(0, t - 1))                          # positions 0..p stay fixed
    q2, k2, v2 = (a.copy() for a in (q, k, v))
    for a in (q2, k2, v2):
        a[p + 1:] = data.draw(floats_of_shape(a[p + 1:].shape))
    before = scaled_dot_product_attention(q, k, v, mask=causal_mask(t))
    after = scaled_dot_product_attention(q2, k2, v2, mask=causal_mask(t))
    assert_allclose(after.output[: p + 1], before.output[: p + 1], rtol=0, atol=ATOL)
    assert_allclose(after.weights[: p + 1], before.weights[: p + 1], rtol=0, atol=ATOL)


@PROPERTY_SETTINGS
@given(st.data())
def test_self_attention_permutation_equivariant(data):
    q, k, v = data.draw(qkv_T_dk())
    perm = np.array(data.draw(st.permutations(range(len(q)))))
    base = scaled_dot_product_attention(q, k, v)
    permuted = scaled_dot_product_attention(q[perm], k[perm], v[perm])
    assert_allclose(permuted.output, base.output[perm], rtol=0, atol=ATOL)
    assert_allclose(permuted.weights, base.weights[perm][:, perm], rtol=0, atol=ATOL)


@PROPERTY_SETTINGS
@given(st.data())
def test_bool_and_additive_masks_agree(data):
    q, k, v = data.draw(qkv_T_dk())
    blocked = data.draw(floats_of_shape((len(q), len(k)))) > 0
    blocked[:, 0] = False
    as_bool = scaled_dot_product_attention(q, k, v, mask=blocked)
    as_float = scaled_dot_product_attention(q, k, v, mask=np.where(blocked, -np.inf, 0.0))
    assert_array_equal(as_bool.weights, as_float.weights)
    assert np.all(as_bool.weights[blocked] == 0.0)


def test_attention_result_fields_follow_the_formula():
    rng = np.random.default_rng(7)
    q, k, v = rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    mask = np.zeros((4, 5))
    mask[0, 3] = -np.inf
    res = scaled_dot_product_attention(q, k, v, mask=mask)
    assert isinstance(res, AttentionResult)
    assert res.scale == 1 / np.sqrt(3)
    assert_array_equal(res.scores, q @ k.T)
    assert_allclose(res.scaled, q @ k.T / np.sqrt(3), rtol=1e-15)
    assert_array_equal(res.masked, res.scaled + mask)
    assert res.output.shape == (4, 2) and res.weights.shape == (4, 5)
    output, weights = res                                   # unpacks as (output, weights)
    assert output is res.output and weights is res.weights


def test_explicit_scale_is_used():
    q = k = v = np.eye(2)
    res = scaled_dot_product_attention(q, k, v, scale=1.0)
    assert res.scale == 1.0
    assert_allclose(res.weights[0], [np.e / (np.e + 1), 1 / (np.e + 1)], rtol=1e-15)


def test_batch_axes_equal_loop_over_batch():
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 3, 4, s)) for s in (5, 5, 6))
    mask = future_mask(4)
    res = scaled_dot_product_attention(q, k, v, mask=mask)
    assert res.output.shape == (2, 3, 4, 6)
    for b in range(2):
        for h in range(3):
            one = scaled_dot_product_attention(q[b, h], k[b, h], v[b, h], mask=mask)
            assert_allclose(res.output[b, h], one.output, rtol=0, atol=ATOL)
    full_mask = np.broadcast_to(mask, (2, 3, 4, 4))
    assert_array_equal(scaled_dot_product_attention(q, k, v, mask=full_mask).weights, res.weights)


@PROPERTY_SETTINGS
@given(qkv_T_dk(dtype=np.float32))
def test_attention_float32_preserved(qkv):
    q, k, v = qkv
    res = scaled_dot_product_attention(q, k, v, mask=causal_mask(len(q)))
    for field in ("scores", "scaled", "masked", "weights", "output"):
        assert getattr(res, field).dtype == np.float32, field
    ref = scaled_dot_product_attention(*(a.astype(np.float64) for a in qkv),
                                       mask=future_mask(len(q)))
    assert_allclose(res.output, ref.output, rtol=0, atol=1e-4)


def test_mixed_precision_computes_in_float64():
    q = np.ones((2, 2), dtype=np.float32)
    assert scaled_dot_product_attention(q, q.astype(np.float64), q).output.dtype == np.float64


Q, K, V = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))


@pytest.mark.parametrize(("q", "k", "v", "kwargs", "message"), [
    (np.ones(4), K, V, {}, r"q must have at least 2 dimensions, got shape \(4,\)"),
    (Q, np.ones(4), V, {}, r"k must have at least 2 dimensions"),
    (Q, np.ones((5, 3)), V, {}, r"q and k must share d_k: q has shape \(3, 4\) \(d_k=4\), "
                                r"k has shape \(5, 3\) \(d_k=3\)"),
    (Q, K, np.ones((6, 2)), {}, r"same number of tokens T_k: k has shape \(5, 4\), v has "
                                r"shape \(6, 2\)"),
    (np.ones((2, 3, 4)), np.ones((1, 5, 4)), np.ones((1, 5, 2)), {},
     r"same batch axes: q \(2, 3, 4\), k \(1, 5, 4\)"),
    (np.full((3, 4), np.nan), K, V, {}, r"q \(shape \(3, 4\)\) must be finite"),
    (Q, K, np.full((5, 2), np.inf), {}, r"v \(shape \(5, 2\)\) must be finite"),
    (Q, K, V, {"mask": np.zeros((5, 3))}, r"mask has shape \(5, 3\); expected \(3, 5\)"),
    (Q, K, V, {"mask": np.zeros((3, 1))}, r"mask has shape \(3, 1\); expected \(3, 5\)"),
    (np.ones((2, 3, 4)), np.ones((2, 5, 4)), np.ones((2, 5, 2)), {"mask": np.zeros((1, 3, 5))},
     r"mask has shape \(1, 3, 5\); expected \(3, 5\) or \(2, 3, 5\)"),
    (Q, K, V, {"mask": np.full((3, 5), np.nan)}, r"additive mask .* finite values or -inf"),
    (Q, K, V, {"mask": np.ones((3, 5), dtype=bool)}, r"blocks every key for query row 0"),
    (Q, K, V, {"mask": np.zeros((3, 5), dtype=int)}, r"mask must be bool .* got dtype int64"),
    (Q, K, V, {"scale": 0.0}, r"scale must be finite and > 0, got 0.0"),
    (Q, K, V, {"scale": np.inf}, r"scale must be finite and > 0"),
    (np.ones((0, 4)), K, V, {}, r"q has a zero-length axis: shape \(0, 4\)"),
])
def test_attention_bad_input(q, k, v, kwargs, message):
    with pytest.raises(ValueError, match=message):
        scaled_dot_product_attention(q, k, v, **kwargs)
