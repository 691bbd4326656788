# Shapes: ... = batch axes, T = tokens, d = d_model, h = query heads, g = KV heads (n_kv_heads), d_k = d // h.
"""Multi-head attention, with grouped-query (GQA) and multi-query (MQA) variants."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import as_float_array, check_positive_int, compute_dtype
from attn_core.attention import scaled_dot_product_attention


@dataclass(frozen=True, eq=False)
class MultiHeadResult:
    """Everything multi-head attention computed.

    output (T, d_out) = concat W_O; weights (h, T, T) one attention matrix per query head;
    heads (h, T, d_k) each head's output before merging; q (h, T, d_k); k, v (g, T, d_k) as
    stored in a KV-cache (g = h for MHA, 1 for MQA); concat (T, h * d_k) merged heads;
    kv_group (h,) index of the KV head each query head reads.
    Unpacks as `output, weights = multi_head_attention(...)`.
    """

    output: np.ndarray
    weights: np.ndarray
    heads: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    concat: np.ndarray | None = None
    kv_group: np.ndarray | None = None

    def __iter__(self):
        return iter((self.output, self.weights))


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """Cut the feature axis into `n_heads` equal slices: (..., T, d) -> (..., h, T, d // h).

    head i holds columns i*d_k .. (i+1)*d_k - 1 of x; leading axes (a batch) are kept.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (multi-head figure), attn_core.transformer.
    """
    x = as_float_array(x, "x", min_ndim=2)
    n_heads = check_positive_int(n_heads, "n_heads")
    if x.shape[-1] % n_heads:
        raise ValueError(
            f"d_model={x.shape[-1]} (x of shape {x.shape}) is not divisible by n_heads={n_heads}"
        )
    return split_heads_unchecked(x, n_heads)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """Concatenate head outputs along the feature axis: (..., h, T, d_k) -> (..., T, h * d_k).

    The inverse of `split_heads`: merge_heads(split_heads(x, h)) == x.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (Concat(head_1, ..., head_h) W_O).
    """
    return merge_heads_unchecked(as_float_array(x, "x", min_ndim=3))


def split_heads_unchecked(x: np.ndarray, n_heads: int) -> np.ndarray:
    """`split_heads` without the input checks (d divisible by n_heads): a view of x."""
    *lead, t, d = x.shape
    heads = x.reshape(*lead, t, n_heads, d // n_heads)               # (..., T, h, d_k)
    return np.swapaxes(heads, -3, -2)                                # (..., h, T, d_k)


def merge_heads_unchecked(x: np.ndarray) -> np.ndarray:
    """`merge_heads` without the input checks: (..., h, T, d_k) -> (..., T, h * d_k), a view
    of a `split_heads` result that was not changed in between, else a copy."""
    *lead, h, t, d_k = x.shape
    return np.swapaxes(x, -3, -2).reshape(*lead, t, h * d_k)         # (..., T, h*d_k)


def kv_group_of_heads(n_heads: int, n_kv_heads: int) -> np.ndarray:
    """Index of the KV head each query head reads: head i -> i // (n_heads // n_kv_heads).

    (h,) ints. n_kv_heads = n_heads gives 0..h-1 (MHA), n_kv_heads = 1 gives all zeros (MQA).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (GQA grouping figure).
    """
    n_heads = check_positive_int(n_heads, "n_heads")
    n_kv_heads = check_positive_int(n_kv_heads, "n_kv_heads")
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads={n_heads} is not divisible by n_kv_heads={n_kv_heads}")
    return np.arange(n_heads) // (n_heads // n_kv_heads)             # (h,)


def _check_projections(x, w_q, w_k, w_v, w_o, n_heads: int, n_kv_heads: int):
    """Validate shapes for (grouped-query) multi-head attention; return float arrays and d_k."""
    x = as_float_array(x, "x", ndim=2)
    n_heads = check_positive_int(n_heads, "n_heads")
    n_kv_heads = check_positive_int(n_kv_heads, "n_kv_heads")
    d = x.shape[1]
    if d % n_heads:
        raise ValueError(
            f"d_model={d} (x of shape {x.shape}) is not divisible by n_heads={n_heads}"
        )
    if n_heads % n_kv_heads:
        raise ValueError(f"n_heads={n_heads} is not divisible by n_kv_heads={n_kv_heads}")
    d_k = d // n_heads
    expected = {"w_q": (d, n_heads * d_k), "w_k": (d, n_kv_heads * d_k),
                "w_v": (d, n_kv_heads * d_k)}
    arrays = {}
    for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)):
        arrays[name] = as_float_array(w, name, ndim=2)
        if arrays[name].shape != expected[name]:
            raise ValueError(
                f"{name} must have shape {expected[name]} for x of shape {x.shape}, "
                f"n_heads={n_heads}, n_kv_heads={n_kv_heads} (d_k={d_k}); got {arrays[name].shape}"
            )
    w_o = as_float_array(w_o, "w_o", ndim=2)
    if w_o.shape[0] != n_heads * d_k:
        raise ValueError(f"w_o must have shape ({n_heads * d_k}, d_out), got {w_o.shape}")
    dtype = compute_dtype(x, arrays["w_q"], arrays["w_k"], arrays["w_v"], w_o)
    cast = [a.astype(dtype, copy=False) for a in (x, *arrays.values(), w_o)]
    return (*cast, d_k)


def multi_head_attention(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray,
                         w_o: np.ndarray, n_heads: int, mask: np.ndarray | None = None
                         ) -> MultiHeadResult:
    """Multi-head self-attention (Vaswani et al. 2017, section 3.2.2).

    MultiHead(X) = Concat(head_1, ..., head_h) W_O,
    head_i = Attention(X W_i^Q, X W_i^K, X W_i^V).
    x (T, d); w_q, w_k, w_v (d, d) (column block i is head i's projection, d_k = d / h);
    w_o (d, d_out); mask (T, T) shared by all heads or (h, T, T). Each head scales by 1/sqrt(d_k).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (multi-head), docs/llm/anatomia.md.
    """
    x, w_q, w_k, w_v, w_o, _ = _check_projections(x, w_q, w_k, w_v, w_o, n_heads, n_heads)
    q = split_heads(x @ w_q, n_heads)                                # (T, d) -> (h, T, d_k)
    k = split_heads(x @ w_k, n_heads)                                # (h, T, d_k)
    v = split_heads(x @ w_v, n_heads)                                # (h, T, d_k)
    attn = scaled_dot_product_attention(q, k, v, mask=mask)          # weights (h, T, T)
    concat = merge_heads(attn.output)                                # (h, T, d_k) -> (T, d)
    return MultiHeadResult(output=concat @ w_o, weights=attn.weights, heads=attn.output,
                           q=q, k=k, v=v, concat=concat, kv_group=np.arange(n_heads))


def grouped_query_attention(x: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, w_v: np.ndarray,
                            w_o: np.ndarray, n_heads: int, n_kv_heads: int,
                            mask: np.ndarray | None = None) -> MultiHeadResult:
    """Grouped-query attention (Ainslie et al. 2023): h query heads share g KV heads.

    Query head i reads KV head kv_group_of_heads(h, g)[i]. x (T, d); w_q (d, d);
    w_k, w_v (d, g * d_k) with d_k = d / h; w_o (d, d_out). g = h is multi-head attention,
    g = 1 is multi-query attention (Shazeer 2019). The KV-cache holds only k, v (g, T, d_k).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (MQA/GQA), docs/llm/anatomia.md.
    """
    x, w_q, w_k, w_v, w_o, _ = _check_projections(x, w_q, w_k, w_v, w_o, n_heads, n_kv_heads)
    group = kv_group_of_heads(n_heads, n_kv_heads)                  # (h,)
    q = split_heads(x @ w_q, n_heads)                                # (T, d) -> (h, T, d_k)
    k = split_heads(x @ w_k, n_kv_heads)                             # (T, g*d_k) -> (g, T, d_k)
    v = split_heads(x @ w_v, n_kv_heads)                             # (g, T, d_k)
    attn = scaled_dot_product_attention(q, k[group], v[group], mask=mask)  # k[group] (h,T,d_k)
    concat = merge_heads(attn.output)                                # (h, T, d_k) -> (T, d)
    return MultiHeadResult(output=concat @ w_o, weights=attn.weights, heads=attn.output,
                           q=q, k=k, v=v, concat=concat, kv_group=group)
