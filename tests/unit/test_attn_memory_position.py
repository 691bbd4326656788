"""KV-cache and attention-matrix sizes; embeddings and position encodings."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import (
    attention_matrix_bytes,
    embedding_lookup,
    kv_cache_bytes,
    kv_cache_bytes_per_token,
    learned_positions,
    rope,
    sinusoidal_positions,
)

GIB, KIB = 2**30, 2**10


def test_kv_cache_llama2_7b_full_context():
    # Llama 2 7B: 32 layers, 32 KV heads, head_dim 128, 4096 tokens, 16-bit values.
    assert kv_cache_bytes_per_token(32, 32, 128) == 512 * KIB
    assert kv_cache_bytes(32, 32, 128, 4096) == 2 * GIB
    assert kv_cache_bytes(32, 32, 128, 4096, batch=4) == 8 * GIB


def test_kv_cache_gqa_shrinks_by_heads_over_kv_heads():
    mha = kv_cache_bytes(80, 64, 128, 4096)
    gqa = kv_cache_bytes(80, 8, 128, 4096)                       # Llama 2 70B: 8 KV heads
    assert mha == 8 * gqa and gqa == 2 * 80 * 8 * 128 * 4096 * 2


def test_kv_cache_fractional_bytes():
    assert kv_cache_bytes_per_token(1, 1, 3, bytes_per_value=0.5) == 3
    assert kv_cache_bytes_per_token(1, 1, 1, bytes_per_value=0.25) == 0.5


def test_attention_matrix_bytes_is_quadratic():
    assert attention_matrix_bytes(4096) == 64 * 2**20            # float32, "about 64 MiB"
    assert attention_matrix_bytes(8192) == 4 * attention_matrix_bytes(4096)
    assert attention_matrix_bytes(1024, bytes_per_value=2, heads=32) == 32 * 1024**2 * 2
    assert isinstance(attention_matrix_bytes(10**6), int)        # exact, no float rounding


@pytest.mark.parametrize(("call", "message"), [
    (lambda: kv_cache_bytes(0, 8, 128, 10), r"layers must be > 0, got 0"),
    (lambda: kv_cache_bytes(32, 8, 128, -1), r"seq_len must be > 0, got -1"),
    (lambda: kv_cache_bytes(32, 8, 128.0, 10), r"head_dim must be an integer"),
    (lambda: kv_cache_bytes_per_token(32, 8, 128, bytes_per_value=0),
     r"bytes_per_value must be a positive"),
    (lambda: attention_matrix_bytes(16, heads=0), r"heads must be > 0"),
])
def test_memory_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_embedding_lookup_picks_rows():
    table = np.arange(12.0).reshape(4, 3)
    x = embedding_lookup(table, [2, 0, 2])
    assert_array_equal(x, table[[2, 0, 2]])
    assert_array_equal(x[0], x[2])                               # same id, same vector
    assert embedding_lookup(table, np.array([[1, 3]])).shape == (1, 2, 3)
    assert embedding_lookup(table.astype(np.float32), [1]).dtype == np.float32


@pytest.mark.parametrize(("ids", "message"), [
    ([0, 4], r"token_ids \(shape \(2,\)\) must lie in 0\.\.3 for a table of 4 rows; "
             r"out of range: \[4\]"),
    ([-1], r"must lie in 0\.\.3 .* out of range: \[-1\]"),
    ([0.0, 1.0], r"token_ids must be integers, got dtype float64"),
    ([True], r"token_ids must be integers, got dtype bool"),
])
def test_embedding_lookup_bad_ids(ids, message):
    with pytest.raises(ValueError, match=message):
        embedding_lookup(np.zeros((4, 3)), ids)


def test_sinusoidal_positions_match_vaswani_formula():
    n, d = 7, 6
    pe = sinusoidal_positions(n, d)
    expected = np.empty((n, d))
    for pos in range(n):
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            expected[pos, 2 * i], expected[pos, 2 * i + 1] = np.sin(angle), np.cos(angle)
    assert_allclose(pe, expected, rtol=0, atol=1e-15)
    assert_array_equal(pe[0], [0, 1, 0, 1, 0, 1])


def test_sinusoidal_positions_odd_width():
    pe = sinusoidal_positions(4, 5)
    assert pe.shape == (4, 5)
    assert_allclose(pe[:, 4], np.sin(np.arange(4) / 10000 ** (4 / 5)), rtol=1e-15)


def test_learned_positions_take_first_rows():
    table = np.arange(32.0 * 4).reshape(32, 4)
    p = learned_positions(table, 5)
    assert_array_equal(p, table[:5])
    p[0, 0] = -1.0
    assert table[0, 0] == 0.0                                    # a copy, not a view


@pytest.mark.parametrize(("call", "message"), [
    (lambda: learned_positions(np.zeros((32, 4)), 33),
     r"n=33 positions requested but the position table \(shape \(32, 4\)\) has only 32 rows"),
    (lambda: learned_positions(np.zeros(32), 3), r"table must have 2 dimension"),
    (lambda: sinusoidal_positions(0, 4), r"n must be > 0"),
    (lambda: sinusoidal_positions(4, -2), r"d_model must be > 0"),
])
def test_position_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_rope_keeps_float32_and_matches_float64():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 8)).astype(np.float32)
    pos = np.arange(6) * 50
    out = rope(x, pos)
    assert out.dtype == np.float32
    assert_allclose(out, rope(x.astype(np.float64), pos), rtol=0, atol=1e-5)   # |x| < 5, eps32 ~ 1e-7
    assert rope(x.astype(np.float64), pos).dtype == np.float64


@pytest.mark.parametrize(("positions", "message"), [
    ([0.0, np.nan, 2.0],
     r"positions must be finite; got \[nan\] at index \[1\] \(positions = \[0.0, nan, 2.0\]\)"),
    ([np.inf, 1.0, -np.inf], r"got \[inf, -inf\] at index \[0, 2\]"),
    ([0, 1], r"positions must have shape \(3,\) for x of shape \(3, 4\), got \(2,\)"),
    (["a", "b", "c"], r"positions must hold real numbers, got dtype <U1"),
])
def test_rope_rejects_bad_positions(positions, message):
    with pytest.raises(ValueError, match=message):
        rope(np.ones((3, 4)), positions)
