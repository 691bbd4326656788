# Shapes: none; sizes in bytes of the KV-cache and of the (n, n) attention matrix.
"""Memory arithmetic: KV-cache sizes and the quadratic attention matrix."""

from __future__ import annotations

import numbers

from attn_core._checks import check_positive_int


def _bytes_per_value(value) -> int | float:
    """A positive byte count per stored number (fractions allowed, e.g. 0.5 for 4-bit)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"bytes_per_value must be a positive number, got {value!r}")
    return int(value) if float(value).is_integer() else float(value)


def _whole(total: int | float) -> int | float:
    return int(total) if float(total).is_integer() else total


def kv_cache_bytes_per_token(layers: int, kv_heads: int, head_dim: int,
                             bytes_per_value: int | float = 2) -> int | float:
    """Bytes the KV-cache grows by per token: 2 (K and V) * layers * kv_heads * head_dim * bytes.

    Returns an int (a float only for fractional bytes_per_value).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (KV-cache table), docs/llm/anatomia.md.
    """
    layers = check_positive_int(layers, "layers")
    kv_heads = check_positive_int(kv_heads, "kv_heads")
    head_dim = check_positive_int(head_dim, "head_dim")
    return _whole(2 * layers * kv_heads * head_dim * _bytes_per_value(bytes_per_value))


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, seq_len: int,
                   bytes_per_value: int | float = 2, batch: int = 1) -> int | float:
    """Bytes of a full KV-cache: 2 * layers * kv_heads * head_dim * seq_len * batch * bytes.

    Linear in seq_len; GQA/MQA shrink it by n_heads / kv_heads.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (KV-cache table), docs/llm/anatomia.md.
    """
    seq_len = check_positive_int(seq_len, "seq_len")
    batch = check_positive_int(batch, "batch")
    per_token = kv_cache_bytes_per_token(layers, kv_heads, head_dim, bytes_per_value)
    return _whole(per_token * seq_len * batch)


def attention_matrix_bytes(n: int, bytes_per_value: int | float = 4, heads: int = 1) -> int | float:
    """Bytes of the attention matrices of one layer: heads * n * n * bytes_per_value.

    Quadratic in n: doubling the context quadruples it.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (quadratic cost), docs/laby/lab-3.
    """
    n = check_positive_int(n, "n")
    heads = check_positive_int(heads, "heads")
    return _whole(heads * n * n * _bytes_per_value(bytes_per_value))


def attention_layer_params(d_model: int, n_heads: int, kv_heads: int, head_dim: int) -> dict:
    """Weights of one attention layer without biases: W_Q, W_K, W_V, W_O and their sum.

    W_Q: d_model x (n_heads * head_dim); W_K, W_V: d_model x (kv_heads * head_dim) (shared by
    the query heads of a group: GQA; kv_heads = n_heads is plain multi-head attention);
    W_O: (n_heads * head_dim) x d_model. Returns {"W_Q": ..., "W_K": ..., "W_V": ...,
    "W_O": ..., "total": ...} as ints.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (counting Llama 3 8B's attention).
    """
    d_model = check_positive_int(d_model, "d_model")
    n_heads = check_positive_int(n_heads, "n_heads")
    kv_heads = check_positive_int(kv_heads, "kv_heads")
    head_dim = check_positive_int(head_dim, "head_dim")
    if n_heads % kv_heads:
        raise ValueError(f"n_heads={n_heads} is not divisible by kv_heads={kv_heads}")
    out = {"W_Q": d_model * n_heads * head_dim, "W_K": d_model * kv_heads * head_dim,
           "W_V": d_model * kv_heads * head_dim, "W_O": n_heads * head_dim * d_model}
    out["total"] = sum(out.values())
    return out
