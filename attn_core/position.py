# Shapes: V = vocabulary size, T = tokens, L = max_seq_len (rows of a position table), d = d_model.
"""Token embeddings and position information: table lookups and sinusoidal encodings."""

from __future__ import annotations

import numpy as np

from attn_core._checks import as_float_array, check_positive_int, check_positive_number, check_token_ids


def embedding_lookup(table: np.ndarray, token_ids) -> np.ndarray:
    """Rows of an embedding table picked by token id: X[t] = table[token_ids[t]].

    table (V, d), token_ids (T,) ints in 0..V-1 -> (T, d) (any ids shape (...) gives (..., d)).
    An id outside 0..V-1 is a ValueError (negative ids are not wrapped around).
    Used by: docs/laby/lab-3 (step 1), docs/krok-po-kroku.md (step 1).
    """
    table = as_float_array(table, "table", ndim=2)
    ids = check_token_ids(token_ids, "token_ids", table.shape[0])
    return table[ids]                                                # (T,) -> (T, d)


def sinusoidal_positions(n: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Fixed sinusoidal position encodings of Vaswani et al. (2017), section 3.5.

    PE[pos, 2i] = sin(pos / base^(2i/d_model)), PE[pos, 2i+1] = cos(pos / base^(2i/d_model));
    shape (n, d_model), float64. An odd d_model keeps the last sine column.
    Used by: docs/laby/lab-3 (position information), docs/llm/anatomia.md.
    """
    n = check_positive_int(n, "n")
    d_model = check_positive_int(d_model, "d_model")
    pos = np.arange(n, dtype=np.float64)[:, None]                    # (n, 1)
    two_i = np.arange(0, d_model, 2, dtype=np.float64)               # (ceil(d/2),)
    angles = pos / base ** (two_i / d_model)                         # (n, ceil(d/2))
    pe = np.empty((n, d_model))                                      # (n, d)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles[:, : d_model // 2])
    return pe


def learned_positions(table: np.ndarray, n: int) -> np.ndarray:
    """Position vectors for positions 0..n-1 from a learned table: P = table[:n].

    table (L, d) -> (n, d), a copy. n > L is a ValueError (the table has no row for it).
    Used by: docs/laby/lab-3 (position table E_pos, H = X + P).
    """
    table = as_float_array(table, "table", ndim=2)
    n = check_positive_int(n, "n")
    if n > table.shape[0]:
        raise ValueError(
            f"n={n} positions requested but the position table (shape {table.shape}) has only "
            f"{table.shape[0]} rows (max_seq_len)"
        )
    return table[:n].copy()                                          # (L, d) -> (n, d)


def rope(x: np.ndarray, positions, base: float = 10000.0) -> np.ndarray:
    """Rotary position embedding (RoPE, Su et al. 2021): rotate each pair of coordinates.

    The pair (x[..., 2i], x[..., 2i+1]) of the vector at position m is rotated by the angle
    m * theta_i, theta_i = base^(-2i/d) (i = 0 .. d/2 - 1); the norm of every vector is kept.
    Applied to queries and keys, rope(q, m) . rope(k, n) depends on the positions only
    through the offset m - n. x (T, d) with d even, positions (T,) finite reals -> (T, d) in
    the dtype of x (the angles are computed in float64 either way).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (section on positions, RoPE).
    """
    x = as_float_array(x, "x", ndim=2)
    if x.shape[1] % 2:
        raise ValueError(f"rope needs an even vector width, got x of shape {x.shape}")
    pos = as_float_array(positions, "positions", ndim=1, finite=False).astype(np.float64)
    if pos.shape != (x.shape[0],):
        raise ValueError(f"positions must have shape ({x.shape[0]},) for x of shape {x.shape}, "
                         f"got {pos.shape}")
    if not np.all(np.isfinite(pos)):
        bad = np.flatnonzero(~np.isfinite(pos))
        raise ValueError(f"positions must be finite; got {pos[bad].tolist()} at index "
                         f"{bad.tolist()} (positions = {pos.tolist()})")
    base = check_positive_number(base, "base")
    half = x.shape[1] // 2
    theta = base ** (-np.arange(half, dtype=np.float64) * 2.0 / x.shape[1])   # (d/2,)
    angles = pos[:, None] * theta[None, :]                           # (T, d/2)
    cos, sin = np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype)
    even, odd = x[:, 0::2], x[:, 1::2]                               # (T, d/2) each
    out = np.empty_like(x)                                           # (T, d)
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out
