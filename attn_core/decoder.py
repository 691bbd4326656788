# Shapes: T = tokens, V = vocabulary, d = d_model, d_k = query/key width, d_v = value width.
"""The one-layer toy decoder of the worked example "cat chases mouse"."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import as_float_array, compute_dtype
from attn_core.attention import AttentionResult, scaled_dot_product_attention
from attn_core.masks import causal_mask
from attn_core.position import embedding_lookup
from attn_core.stable_softmax import softmax


@dataclass(frozen=True, eq=False)
class DecoderTrace:
    """Every intermediate of `tiny_decoder`, in the order the worked example shows them.

    embeddings (T, d); q, k (T, d_k); v (T, d_v); attention (AttentionResult, weights (T, T));
    ffn_out (T, d); last_hidden (d,) = ffn_out[-1]; logits (V,); probs (V,) sum to 1.
    """

    embeddings: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    attention: AttentionResult
    ffn_out: np.ndarray
    last_hidden: np.ndarray
    logits: np.ndarray
    probs: np.ndarray


def tiny_decoder(token_ids, w_vocab: np.ndarray, w_q: np.ndarray, w_k: np.ndarray,
                 w_v: np.ndarray, w_ffn: np.ndarray, causal: bool = True) -> DecoderTrace:
    """One attention layer, a linear FFN and a weight-tied unembedding, as in the worked example.

    E = w_vocab[:, ids]^T; Q = E W_Q, K = E W_K, V = E W_V;
    A = softmax(Q K^T / sqrt(d_k) + M) V (M causal when causal=True); F = A W_FFN
    (no bias, activation, residual or LayerNorm); logits = F[-1] w_vocab (weight tying);
    probs = softmax(logits).
    token_ids (T,), w_vocab (d, V) (columns are token embeddings), w_q, w_k (d, d_k),
    w_v (d, d_v), w_ffn (d_v, d).
    Used by: docs/krok-po-kroku.md (every step), docs/llm/anatomia.md.
    """
    w_vocab = as_float_array(w_vocab, "w_vocab", ndim=2)
    d, vocab = w_vocab.shape
    ws = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v), ("w_ffn", w_ffn)):
        ws[name] = as_float_array(w, name, ndim=2)
        if name != "w_ffn" and ws[name].shape[0] != d:
            raise ValueError(
                f"{name} must have {d} rows (d_model of w_vocab {w_vocab.shape}), "
                f"got shape {ws[name].shape}"
            )
    if ws["w_q"].shape[1] != ws["w_k"].shape[1]:
        raise ValueError(f"w_q {ws['w_q'].shape} and w_k {ws['w_k'].shape} must share d_k")
    if ws["w_ffn"].shape != (ws["w_v"].shape[1], d):
        raise ValueError(
            f"w_ffn must have shape (d_v, d_model) = {(ws['w_v'].shape[1], d)}, "
            f"got {ws['w_ffn'].shape}"
        )
    dtype = compute_dtype(w_vocab, *ws.values())
    w_vocab = w_vocab.astype(dtype, copy=False)
    w_q, w_k, w_v, w_ffn = (w.astype(dtype, copy=False) for w in ws.values())
    ids = np.asarray(token_ids)
    if ids.ndim != 1 or ids.size == 0:
        raise ValueError(f"token_ids must be a non-empty 1-D sequence, got shape {ids.shape}")
    e = embedding_lookup(w_vocab.T, ids)                             # (V, d)[ids] -> (T, d)
    q, k, v = e @ w_q, e @ w_k, e @ w_v                              # (T, d_k), (T, d_k), (T, d_v)
    mask = causal_mask(len(ids)) if causal else None
    attention = scaled_dot_product_attention(q, k, v, mask=mask)     # weights (T, T)
    ffn_out = attention.output @ w_ffn                               # (T, d_v) -> (T, d)
    last_hidden = ffn_out[-1]                                        # (d,)
    logits = last_hidden @ w_vocab                                   # (d,) @ (d, V) -> (V,)
    return DecoderTrace(embeddings=e, q=q, k=k, v=v, attention=attention, ffn_out=ffn_out,
                        last_hidden=last_hidden, logits=logits, probs=softmax(logits))
