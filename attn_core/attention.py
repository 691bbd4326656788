# Shapes: ... = batch axes, T_q = queries, T_k = keys, d_k = query/key width, d_v = value width.
"""Scaled dot-product attention that keeps every intermediate matrix."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import as_float_array, check_positive_number, compute_dtype
from attn_core.masks import additive_mask
from attn_core.stable_softmax import softmax


@dataclass(frozen=True, eq=False)
class AttentionResult:
    """Every step of softmax(Q K^T * scale + M) V, for the pages that show them one by one.

    scores (..., T_q, T_k) = Q K^T; scaled = scores * scale; masked = scaled + M (the same array
    as `scaled` when there is no mask); weights = softmax(masked) (rows sum to 1);
    output (..., T_q, d_v) = weights V; scale is the factor used (1/sqrt(d_k) by default).
    Unpacks as `output, weights = scaled_dot_product_attention(q, k, v)`.
    """

    scores: np.ndarray
    scaled: np.ndarray
    masked: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    scale: float

    def __iter__(self):
        return iter((self.output, self.weights))


def check_qkv(q, k, v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v); return float arrays.

    Ranks >= 2, equal batch axes (no broadcasting), matching d_k and T_k, no zero-length axis,
    finite values. float32 is kept only when all three are float32.
    """
    q = as_float_array(q, "q", min_ndim=2, finite=False)
    k = as_float_array(k, "k", min_ndim=2, finite=False)
    v = as_float_array(v, "v", min_ndim=2, finite=False)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must share d_k: q has shape {q.shape} (d_k={q.shape[-1]}), "
            f"k has shape {k.shape} (d_k={k.shape[-1]})"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of tokens T_k: k has shape {k.shape}, "
            f"v has shape {v.shape}"
        )
    if not q.shape[:-2] == k.shape[:-2] == v.shape[:-2]:
        raise ValueError(
            f"q, k, v must have the same batch axes: q {q.shape}, k {k.shape}, v {v.shape}"
        )
    for name, a in (("q", q), ("k", k), ("v", v)):
        if 0 in a.shape:
            raise ValueError(f"{name} has a zero-length axis: shape {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} (shape {a.shape}) must be finite (no NaN or inf)")
    dtype = compute_dtype(q, k, v)
    return q.astype(dtype, copy=False), k.astype(dtype, copy=False), v.astype(dtype, copy=False)


def scaled_dot_product_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray,
                                 mask: np.ndarray | None = None,
                                 scale: float | None = None) -> AttentionResult:
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V, with every intermediate kept.

    q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v) -> output (..., T_q, d_v),
    weights (..., T_q, T_k). `mask` is bool (True = blocked) or additive (0 / -inf), of shape
    (T_q, T_k) or the full (..., T_q, T_k). `scale` defaults to 1/sqrt(d_k). A row with every
    key blocked is a ValueError.
    Used by: docs/krok-po-kroku.md (steps 4-6), docs/laby/lab-3 (steps 3-5),
    docs/posty/posts/llm-mechanizm-uwagi.md, docs/llm/anatomia.md.
    """
    q, k, v = check_qkv(q, k, v)
    d_k = q.shape[-1]
    scale = 1.0 / float(np.sqrt(d_k)) if scale is None else check_positive_number(scale, "scale")
    scores = q @ k.swapaxes(-1, -2)                                  # (..., T_q, T_k)
    scaled = scores * scale                                          # (..., T_q, T_k)
    if mask is None:
        masked = scaled
    else:
        m = additive_mask(mask, q.shape[-2], k.shape[-2], q.shape[:-2], compute_dtype(q, k, v))
        masked = scaled + m                                          # (..., T_q, T_k)
        fully_blocked = np.argwhere(np.all(masked == -np.inf, axis=-1))  # (rows, ndim - 1)
        if len(fully_blocked):
            row = tuple(int(i) for i in fully_blocked[0])
            raise ValueError(
                f"mask (shape {np.shape(mask)}) blocks every key for query row "
                f"{row[0] if len(row) == 1 else row}; each query must see at least one key"
            )
    weights = softmax(masked, axis=-1)                               # (..., T_q, T_k)
    output = weights @ v                                             # (..., T_q, d_v)
    return AttentionResult(scores=scores, scaled=scaled, masked=masked, weights=weights,
                           output=output, scale=float(scale))
