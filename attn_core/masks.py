# Shapes: T = tokens (T_q queries, T_k keys); masks are (T_q, T_k) or (..., T_q, T_k).
"""Causal masks, in the additive (0 / -inf) and boolean (True = blocked) forms."""

from __future__ import annotations

import numpy as np

from attn_core._checks import as_real_array, check_positive_int


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
