# Shapes: n = T_q = T_k tokens, d_k, d_v widths, B = block_size (b_q, b_k = actual block sizes).
"""Tiled attention with an online softmax (the FlashAttention algorithm, Dao et al. 2022)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import check_positive_int, check_positive_number
from attn_core.attention import check_qkv


@dataclass(frozen=True, eq=False)
class TiledStats:
    """Memory bookkeeping of one `tiled_attention` call.

    peak_elements / peak_bytes: the largest intermediate array held at any moment (a score
    block (b_q, b_k) or an accumulator (b_q, d_v)); the inputs and the (n, d_v) output are not
    counted. blocks_computed: key/value blocks actually visited (causal skips the future).
    """

    peak_elements: int
    peak_bytes: int
    block_size: int
    n_query_blocks: int
    n_key_blocks: int
    blocks_computed: int


def naive_attention_peak_bytes(n: int, d_v: int, itemsize: int) -> int:
    """Bytes of the largest intermediate of plain attention on n tokens: max(n*n, n*d_v) * itemsize.

    The (n, n) score matrix dominates as soon as n >= d_v; compare with TiledStats.peak_bytes.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (FlashAttention memory figure).
    """
    n = check_positive_int(n, "n")
    d_v = check_positive_int(d_v, "d_v")
    itemsize = check_positive_int(itemsize, "itemsize")
    return max(n * n, n * d_v) * itemsize


def tiled_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, causal: bool = False,
                    block_size: int = 64, return_stats: bool = False,
                    scale: float | None = None):
    """softmax(Q K^T / sqrt(d_k) + M) V computed block by block, never holding the (n, n) matrix.

    For each query block, sweep the key/value blocks keeping a running row maximum m, a running
    denominator l and an unnormalised output acc:
        m' = max(m, rowmax(S)),  P = exp(S - m'),  l' = e^(m - m') l + rowsum(P),
        acc' = e^(m - m') acc + P V_block;  output = acc / l at the end.
    q (T_q, d_k), k (T_k, d_k), v (T_k, d_v) -> (T_q, d_v); with return_stats=True returns
    (output, TiledStats). causal=True (needs T_q == T_k) blocks keys j > i and skips key
    blocks that lie wholly in the future. block_size (a positive int) need not divide n.
    Exact attention: equal to `scaled_dot_product_attention` up to floating-point rounding
    (a different summation order), not bit for bit.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (FlashAttention: tiled = naive).
    """
    q, k, v = check_qkv(q, k, v)
    for name, a in (("q", q), ("k", k), ("v", v)):
        if a.ndim != 2:
            raise ValueError(f"tiled_attention takes 2-D {name}, got shape {a.shape}")
    block_size = check_positive_int(block_size, "block_size")
    (t_q, d_k), (t_k, d_v) = q.shape, v.shape
    if causal and t_q != t_k:
        raise ValueError(f"causal=True needs T_q == T_k, got q {q.shape} and k {k.shape}")
    scale = 1.0 / float(np.sqrt(d_k)) if scale is None else check_positive_number(scale, "scale")
    output = np.empty((t_q, d_v), dtype=q.dtype)                     # (T_q, d_v)
    # The loop runs once per block pair (4 096 times for n = 1 024 in blocks of 16), so each
    # reduction is the ufunc's own (ndarray.max and .sum add a Python call around it).
    row_max, row_sum = np.maximum.reduce, np.add.reduce
    peak, visited = 0, 0
    for q0 in range(0, t_q, block_size):
        q_blk = q[q0:q0 + block_size]                                # (b_q, d_k)
        b_q = q_blk.shape[0]
        m = np.full(b_q, -np.inf, dtype=q.dtype)                     # (b_q,) running max
        denom = np.zeros(b_q, dtype=q.dtype)                         # (b_q,) running sum l
        acc = np.zeros((b_q, d_v), dtype=q.dtype)                    # (b_q, d_v)
        k_stop = min(t_k, q0 + b_q) if causal else t_k
        for k0 in range(0, k_stop, block_size):
            s = q_blk @ k[k0:k0 + block_size].T                      # (b_q, b_k)
            s *= scale
            if causal and k0 + s.shape[1] - 1 > q0:                  # block crosses the diagonal
                rows = np.arange(q0, q0 + b_q)[:, None]
                cols = np.arange(k0, k0 + s.shape[1])[None, :]
                s[cols > rows] = -np.inf
            m_new = np.maximum(m, row_max(s, axis=1))                # (b_q,)
            s -= m_new[:, None]
            p = np.exp(s, out=s)                                     # (b_q, b_k), reuses s
            alpha = np.exp(m - m_new)                                # (b_q,) rescales old sums
            denom *= alpha
            denom += row_sum(p, axis=1)
            acc *= alpha[:, None]
            pv = p @ v[k0:k0 + block_size]                           # (b_q, b_k) @ (b_k, d_v)
            acc += pv
            m = m_new
            peak = max(peak, p.size, acc.size, pv.size)
            visited += 1
        output[q0:q0 + b_q] = acc / denom[:, None]                   # (b_q, d_v)
    if not return_stats:
        return output
    n_q_blocks = -(-t_q // block_size)
    stats = TiledStats(peak_elements=peak, peak_bytes=peak * q.dtype.itemsize,
                       block_size=block_size, n_query_blocks=n_q_blocks,
                       n_key_blocks=-(-t_k // block_size), blocks_computed=visited)
    return output, stats
