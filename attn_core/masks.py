# Shapes: B = sequences, T = tokens (T_q queries, T_k keys); masks are (T_q, T_k) or (..., T_q, T_k).
"""Causal and padding masks, in the additive (0 / -inf) and boolean (True = blocked) forms."""

from __future__ import annotations

import numpy as np

from attn_core._checks import as_real_array, check_positive_int
from attn_core.stable_softmax import softmax


def future_mask(n: int) -> np.ndarray:
    """Boolean causal mask: True where key j lies in the future of query i (j > i).

    M[i, j] = (j > i); shape (n, n). The boolean twin of `causal_mask`.
    Used by: docs/laby/lab-3 (step 4), docs/krok-po-kroku.md (blocked cells of heatmaps).
    """
    n = check_positive_int(n, "n")
    return np.triu(np.ones((n, n), dtype=bool), k=1)                # (n, n)


def causal_mask(n: int) -> np.ndarray:
    """Additive causal mask: 0 on and below the diagonal, -inf above it.

    M[i, j] = 0 if j <= i else -inf; shape (n, n), float64. Added to the scaled scores
    before softmax, it gives future positions a weight of exactly 0.
    Used by: docs/krok-po-kroku.md (step 5), docs/posty/posts/llm-mechanizm-uwagi.md (mask).
    """
    return np.where(future_mask(n), -np.inf, 0.0)                    # (n, n)


def additive_mask(mask, t_q: int, t_k: int, batch_shape: tuple[int, ...],
                  dtype: np.dtype) -> np.ndarray:
    """Validate `mask` for scores of shape batch_shape + (t_q, t_k) and return it additive.

    A bool mask becomes -inf where True (blocked) and 0 elsewhere; a float mask is added as
    is and may hold finite values and -inf only; an integer mask is ambiguous and rejected.
    Its shape must be (t_q, t_k) or the full batch_shape + (t_q, t_k): anything else is a
    ValueError, never a silent broadcast.
    Used by: scaled_dot_product_attention, multi_head_attention.
    """
    mask = as_real_array(mask, "mask")
    allowed = [(t_q, t_k), (*batch_shape, t_q, t_k)]
    if mask.shape not in allowed:
        shapes = " or ".join(str(s) for s in dict.fromkeys(allowed))
        raise ValueError(f"mask has shape {mask.shape}; expected {shapes} (T_q={t_q}, T_k={t_k})")
    if mask.dtype == np.bool_:
        return np.where(mask, -np.inf, 0.0).astype(dtype, copy=False)
    if not np.issubdtype(mask.dtype, np.floating):
        raise ValueError(
            f"mask must be bool (True = blocked) or float additive (0 / -inf), got dtype "
            f"{mask.dtype} (shape {mask.shape}): an integer 0/1 mask would be added, not applied"
        )
    mask = mask.astype(dtype, copy=False)
    if np.any(np.isnan(mask) | (mask == np.inf)):
        raise ValueError(f"additive mask (shape {mask.shape}) must hold finite values or -inf only")
    return mask


def padding_mask(valid_lens, t_k: int, t_q: int | None = None) -> np.ndarray:
    """Boolean padding mask: True where key j is padding, i.e. j >= valid length.

    valid_lens (B,) gives each sequence's number of real tokens (1..t_k), or (B, T_q) one
    length per query, as in d2l.ai's masked softmax. Returns (B, T_q, T_k), T_q = t_q or t_k;
    M[b, i, j] = (j >= valid_lens[b] (or valid_lens[b, i])). Unlike `future_mask` it blocks
    whole columns: padded keys carry no information for any query.
    Used by: docs/krok-po-kroku.md (step 5, padding beside the causal mask).
    """
    t_k = check_positive_int(t_k, "t_k")
    t_q = t_k if t_q is None else check_positive_int(t_q, "t_q")
    lens = np.asarray(valid_lens)
    if lens.dtype == np.bool_ or not np.issubdtype(lens.dtype, np.integer):
        raise ValueError(f"valid_lens must be integers, got dtype {lens.dtype} (shape {lens.shape})")
    if lens.ndim == 1:
        lens = np.broadcast_to(lens[:, None], (lens.shape[0], t_q))   # (B,) -> (B, T_q)
    elif lens.ndim != 2 or lens.shape[1] != t_q:
        raise ValueError(f"valid_lens must have shape (B,) or (B, T_q={t_q}), got {lens.shape}")
    if np.any((lens < 1) | (lens > t_k)):
        raise ValueError(f"valid_lens must lie in 1..t_k={t_k} (a sequence with no real token "
                         f"has nothing to attend to), got {lens.tolist()}")
    return np.arange(t_k)[None, None, :] >= lens[:, :, None]          # (B, T_q, T_k)


def masked_softmax(scores, valid_lens) -> np.ndarray:
    """Softmax over the last axis that ignores padded keys (d2l.ai's `masked_softmax`).

    scores (B, T_q, T_k); valid_lens (B,) or (B, T_q). Keys at j >= valid length get weight
    exactly 0 (they are set to -inf, not to a large negative number) and each row still
    sums to 1 over the real keys.
    Used by: docs/krok-po-kroku.md (step 5).
    """
    scores = as_real_array(scores, "scores")
    if scores.ndim != 3:
        raise ValueError(f"scores must have shape (B, T_q, T_k), got {scores.shape}")
    b, t_q, t_k = scores.shape
    blocked = padding_mask(valid_lens, t_k, t_q)                      # (B, T_q, T_k)
    if blocked.shape[0] != b:
        raise ValueError(f"valid_lens has {blocked.shape[0]} sequences; scores has {b} "
                         f"(shape {scores.shape})")
    return softmax(np.where(blocked, -np.inf, scores), axis=-1)       # (B, T_q, T_k)
