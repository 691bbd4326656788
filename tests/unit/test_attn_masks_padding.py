"""padding_mask, masked_softmax (d2l.ai's valid lengths) and Nadaraya-Watson kernel regression."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import (
    causal_mask,
    gaussian_kernel_scores,
    masked_softmax,
    nadaraya_watson,
    padding_mask,
    scaled_dot_product_attention,
    softmax,
)
from tests.strategies import PROPERTY_SETTINGS, floats_of_shape

# --- padding mask --------------------------------------------------------------------------

def test_padding_mask_blocks_columns_from_the_valid_length_on():
    # Written out by hand: two sequences of 4 slots, 4 and 2 real tokens.
    expected = np.array([[[0, 0, 0, 0]] * 4, [[0, 0, 1, 1]] * 4], dtype=bool)
    assert_array_equal(padding_mask([4, 2], 4), expected)


def test_padding_mask_per_query_lengths_and_rectangular_shape():
    mask = padding_mask(np.array([[1, 2, 3]]), t_k=3, t_q=3)         # (1, 3, 3)
    assert_array_equal(mask[0], ~np.tril(np.ones((3, 3), dtype=bool)))  # = a causal mask
    assert padding_mask([2], t_k=5, t_q=2).shape == (1, 2, 5)


@pytest.mark.parametrize("lens", [[0, 2], [4, 5], [1.0, 2.0], [[1, 2]]])
def test_padding_mask_rejects_bad_lengths(lens):
    with pytest.raises(ValueError, match="valid_lens"):
        padding_mask(lens, 4)


def _masked_softmax_by_hand(scores, lens):
    """Each row normalised over its first `len` entries only, with math.exp (no NumPy softmax)."""
    out = np.zeros_like(scores)
    for b, row_lens in enumerate(lens):
        for i in range(scores.shape[1]):
            n = row_lens[i] if np.ndim(row_lens) else row_lens
            e = [math.exp(s) for s in scores[b, i, :n]]
            out[b, i, :n] = [x / sum(e) for x in e]
    return out


@PROPERTY_SETTINGS
@given(st.data())
def test_masked_softmax_normalises_over_the_real_keys_only(data):
    b, t = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 5))
    scores = data.draw(floats_of_shape((b, t, t)))
    lens = data.draw(st.lists(st.integers(1, t), min_size=b, max_size=b))
    weights = masked_softmax(scores, lens)
    assert_allclose(weights, _masked_softmax_by_hand(scores, lens), rtol=1e-12, atol=1e-15)
    assert np.all(weights[padding_mask(lens, t)] == 0)               # exactly zero, not tiny


def test_padding_changes_nothing_for_the_real_tokens():
    # A sequence of 2 padded to 4 with arbitrary pad vectors: the first 2 outputs equal those
    # of the unpadded sequence (the pad rows themselves are never read).
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 3))
    padded = np.vstack([x, 50 * rng.standard_normal((2, 3))])
    mask = padding_mask([2], 4)[0]
    out = scaled_dot_product_attention(padded, padded, padded, mask=mask).output
    assert_allclose(out[:2], scaled_dot_product_attention(x, x, x).output, rtol=1e-12)


def test_padding_and_causal_masks_combine_by_or():
    mask = padding_mask([3], 4)[0] | (causal_mask(4) == -np.inf)
    w = softmax(np.where(mask, -np.inf, np.zeros((4, 4))))
    assert_allclose(w[:3, :3], np.tril(np.ones((3, 3))) / np.arange(1, 4)[:, None], rtol=1e-15)
    assert np.all(w[:, 3] == 0)


def test_masked_softmax_rejects_mismatched_batch():
    with pytest.raises(ValueError, match="sequences"):
        masked_softmax(np.zeros((2, 3, 3)), [3])


# --- Nadaraya-Watson -------------------------------------------------------------------------

def test_kernel_scores_are_the_negative_scaled_squared_distance():
    assert_allclose(gaussian_kernel_scores([1.0], [0.0, 1.0, 3.0], bandwidth=2.0),
                    [[-1 / 8, 0.0, -4 / 8]], rtol=1e-15)


@PROPERTY_SETTINGS
@given(st.data())
def test_nadaraya_watson_is_the_normalised_gaussian_kernel(data):
    t_k, t_q = data.draw(st.integers(1, 6)), data.draw(st.integers(1, 4))
    keys = data.draw(floats_of_shape((t_k,))) / 2
    values = data.draw(floats_of_shape((t_k,)))
    queries = data.draw(floats_of_shape((t_q,))) / 2
    sigma = data.draw(st.floats(0.5, 3.0))
    result = nadaraya_watson(queries, keys, values, bandwidth=sigma)
    for i, x in enumerate(queries):
        kernel = [math.exp(-((x - k) ** 2) / (2 * sigma ** 2)) for k in keys]
        expected = sum(kv * v for kv, v in zip(kernel, values, strict=True)) / sum(kernel)
        assert_allclose(result.output[i], expected, rtol=1e-9, atol=1e-12)
    assert_allclose(result.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_nadaraya_watson_narrow_kernel_returns_the_nearest_value():
    result = nadaraya_watson([0.9, 2.2], [0.0, 1.0, 2.0], [[5.0], [7.0], [-1.0]], bandwidth=0.01)
    assert_allclose(result.output, [[7.0], [-1.0]], rtol=1e-12)


def test_nadaraya_watson_rejects_values_of_another_length():
    with pytest.raises(ValueError, match="T_k=3"):
        nadaraya_watson([0.0], [0.0, 1.0, 2.0], [1.0, 2.0])
