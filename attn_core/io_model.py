# Shapes: none; N = tokens, d = head width, M = on-chip SRAM in elements, b = bytes per element.
"""HBM traffic and arithmetic intensity of standard vs tiled (FlashAttention) attention.

The IO model of Dao et al. (2022), section 3.2 and Theorem 2: standard attention reads and
writes Theta(N d + N^2) elements of HBM, FlashAttention Theta(N^2 d^2 / M). Here the counts are
exact for the two algorithms as written in the paper (Algorithm 0 and Algorithm 1, one head,
forward pass), so they can be compared with a GPU's bandwidth and FLOP/s (a roofline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attn_core._checks import check_positive_int, check_positive_number


@dataclass(frozen=True)
class AttentionIO:
    """One algorithm's forward pass: HBM elements read and written, bytes, FLOPs, intensity.

    flops counts the two matrix products (Q K^T and P V, 2 N^2 d each, a multiply-add = 2);
    intensity = flops / hbm_bytes (FLOP per byte); block_rows / block_cols are FlashAttention's
    B_r, B_c (0 for the standard algorithm).
    """

    n: int
    d: int
    hbm_reads: int
    hbm_writes: int
    bytes_per_value: int
    block_rows: int = 0
    block_cols: int = 0

    @property
    def hbm_elements(self) -> int:
        return self.hbm_reads + self.hbm_writes

    @property
    def hbm_bytes(self) -> int:
        return self.hbm_elements * self.bytes_per_value

    @property
    def flops(self) -> int:
        return 4 * self.n * self.n * self.d

    @property
    def intensity(self) -> float:
        return self.flops / self.hbm_bytes


def standard_attention_io(n: int, d: int, bytes_per_value: int = 2) -> AttentionIO:
    """HBM traffic of standard attention (Dao et al. 2022, Algorithm 0), one head, forward.

    1. read Q, K (2 N d), write S = Q K^T (N^2); 2. read S, write P = softmax(S) (2 N^2);
    3. read P and V (N^2 + N d), write O (N d). Total 4 N d + 4 N^2 elements: Theta(N d + N^2).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (why FlashAttention is faster).
    """
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    b = check_positive_int(bytes_per_value, "bytes_per_value")
    reads = 2 * n * d + n * n + n * n + n * d
    writes = n * n + n * n + n * d
    return AttentionIO(n=n, d=d, hbm_reads=reads, hbm_writes=writes, bytes_per_value=b)


def flash_block_sizes(d: int, sram_elements: int) -> tuple[int, int]:
    """(B_r, B_c) of Algorithm 1: B_c = ceil(M / 4d), B_r = min(ceil(M / 4d), d)."""
    d = check_positive_int(d, "d")
    m = check_positive_int(sram_elements, "sram_elements")
    b_c = math.ceil(m / (4 * d))
    return min(b_c, d), b_c


def flash_attention_io(n: int, d: int, sram_bytes: int, bytes_per_value: int = 2) -> AttentionIO:
    """HBM traffic of FlashAttention (Dao et al. 2022, Algorithm 1), one head, forward.

    With M = sram_bytes / bytes_per_value elements of SRAM: K and V are read once, block by
    block (2 N d); for each of the T_c = ceil(N / B_c) key blocks every query block is visited,
    reading Q_i, O_i, l_i, m_i (N d + N d + 2 N) and writing O_i, l_i, m_i (N d + 2 N).
    O, l, m are first initialised in HBM (N d + 2 N writes). Total
    N d + 2 N + 2 N d + T_c (3 N d + 4 N) = Theta(N^2 d^2 / M) elements; S, P never reach HBM.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (why FlashAttention is faster).
    """
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    b = check_positive_int(bytes_per_value, "bytes_per_value")
    sram_bytes = check_positive_int(sram_bytes, "sram_bytes")
    b_r, b_c = flash_block_sizes(d, sram_bytes // b)
    t_c = math.ceil(n / b_c)
    reads = 2 * n * d + t_c * (2 * n * d + 2 * n)
    writes = (n * d + 2 * n) + t_c * (n * d + 2 * n)         # initial O, l, m + every pass
    return AttentionIO(n=n, d=d, hbm_reads=reads, hbm_writes=writes, bytes_per_value=b,
                       block_rows=b_r, block_cols=b_c)


def roofline_flops_per_s(intensity: float, peak_flops: float, bandwidth: float) -> float:
    """Attainable FLOP/s on the roofline: min(peak, intensity * bandwidth).

    intensity in FLOP/byte, peak in FLOP/s, bandwidth in byte/s; below the ridge point
    peak / bandwidth the kernel is memory-bound, above it compute-bound.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (roofline figure).
    """
    intensity = check_positive_number(intensity, "intensity")
    peak = check_positive_number(peak_flops, "peak_flops")
    bw = check_positive_number(bandwidth, "bandwidth")
    return min(peak, intensity * bw)
