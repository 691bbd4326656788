"""Tiled attention (online softmax, the FlashAttention algorithm) equals plain attention."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from attn_core import (
    causal_mask,
    naive_attention_peak_bytes,
    scaled_dot_product_attention,
    tiled_attention,
)
from tests.strategies import PROPERTY_SETTINGS, floats_of_shape, qkv_T_dk


def plain(q, k, v, causal):
    mask = causal_mask(len(q)) if causal else None
    return scaled_dot_product_attention(q, k, v, mask=mask).output


@PROPERTY_SETTINGS
@given(st.data())
def test_tiled_equals_plain_attention(data):
    causal = data.draw(st.booleans())
    q, k, v = data.draw(qkv_T_dk(max_t=40, square=causal))
    block_size = data.draw(st.integers(1, 17))                    # mostly not dividing n
    out = tiled_attention(q, k, v, causal=causal, block_size=block_size)
    assert out.shape == (len(q), v.shape[1]) and out.dtype == np.float64
    # Exact algorithm, different summation order: equal up to rounding, not bit for bit.
    assert_allclose(out, plain(q, k, v, causal), rtol=0, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(("n", "block_size"), [(1, 64), (100, 7), (128, 32), (130, 64), (64, 200)])
def test_tiled_equals_plain_random_normal(rng, n, block_size, causal):
    q, k = rng.standard_normal((n, 16)) * 3, rng.standard_normal((n, 16)) * 3
    v = rng.standard_normal((n, 8))
    out = tiled_attention(q, k, v, causal=causal, block_size=block_size)
    assert_allclose(out, plain(q, k, v, causal), rtol=0, atol=1e-12)


@PROPERTY_SETTINGS
@given(qkv_T_dk(max_t=20, dtype=np.float32), st.integers(1, 9), st.booleans())
def test_tiled_float32_preserved(qkv, block_size, causal):
    q, k, v = qkv
    out = tiled_attention(q, k, v, causal=causal, block_size=block_size)
    assert out.dtype == np.float32
    assert_allclose(out, plain(q, k, v, causal), rtol=0, atol=1e-4)


def test_tiled_stats_never_hold_the_n_by_n_matrix(rng):
    n, d, b = 256, 16, 32
    q, k, v = (rng.standard_normal((n, d)) for _ in range(3))
    out, stats = tiled_attention(q, k, v, block_size=b, return_stats=True)
    assert stats.peak_elements == b * b                           # one score block
    assert stats.peak_bytes == b * b * 8
    assert stats.peak_bytes < naive_attention_peak_bytes(n, d, 8) == n * n * 8
    assert (stats.n_query_blocks, stats.n_key_blocks, stats.blocks_computed) == (8, 8, 64)
    _, causal_stats = tiled_attention(q, k, v, causal=True, block_size=b, return_stats=True)
    assert causal_stats.blocks_computed == 8 * 9 // 2             # future blocks are skipped


def test_tiled_stats_with_wide_values_and_float32(rng):
    q, k = rng.standard_normal((10, 4)), rng.standard_normal((10, 4))
    v = rng.standard_normal((10, 50))
    _, stats = tiled_attention(q, k, v, block_size=4, return_stats=True)
    assert stats.peak_elements == 4 * 50                          # the (b_q, d_v) accumulator
    _, stats32 = tiled_attention(*(a.astype(np.float32) for a in (q, k, v)), block_size=4,
                                 return_stats=True)
    assert stats32.peak_bytes == 4 * 50 * 4


def test_naive_attention_peak_bytes():
    assert naive_attention_peak_bytes(4096, 64, 4) == 64 * 2**20  # 64 MiB, as in lab 3
    assert naive_attention_peak_bytes(8, 64, 8) == 8 * 64 * 8


@pytest.mark.parametrize("block_size", [0, -4, 2.5, True, None])
def test_tiled_rejects_bad_block_size(block_size):
    x = np.ones((4, 2))
    with pytest.raises(ValueError, match=r"^block_size must be"):
        tiled_attention(x, x, x, block_size=block_size)


@pytest.mark.parametrize(("q", "k", "v", "kwargs", "message"), [
    (np.ones((2, 3, 4)), np.ones((2, 3, 4)), np.ones((2, 3, 4)), {},
     r"2-D q, got shape \(2, 3, 4\)"),
    (np.ones((3, 4)), np.ones((3, 2)), np.ones((3, 4)), {}, r"q and k must share d_k"),
    (np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 4)), {"causal": True},
     r"causal=True needs T_q == T_k, got q \(3, 4\) and k \(5, 4\)"),
    (np.ones((3, 4)), np.full((3, 4), np.nan), np.ones((3, 4)), {},
     r"k \(shape \(3, 4\)\) must be finite"),
])
def test_tiled_bad_input(q, k, v, kwargs, message):
    with pytest.raises(ValueError, match=message):
        tiled_attention(q, k, v, **kwargs)


@PROPERTY_SETTINGS
@given(st.data())
def test_tiled_rectangular_cross_attention(data):
    t_q, t_k = data.draw(st.integers(1, 12)), data.draw(st.integers(1, 12))
    q = data.draw(floats_of_shape((t_q, 3)))
    k = data.draw(floats_of_shape((t_k, 3)))
    v = data.draw(floats_of_shape((t_k, 2)))
    out = tiled_attention(q, k, v, block_size=data.draw(st.integers(1, 5)))
    assert_allclose(out, scaled_dot_product_attention(q, k, v).output, rtol=0, atol=1e-12)
