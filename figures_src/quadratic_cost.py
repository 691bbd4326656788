"""The quadratic cost of attention: entries and memory of the n x n score matrix against n.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Kwadratowy koszt i problem długiego
kontekstu" and its "Dla dociekliwych" block).

Inputs: `BYTES_PER_VALUE` = 4 (float32), one head (`HEADS` = 1), `N_EXAMPLE` = 4096,
`N_LONG` = 131072 (the Llama 3.1 context), `D_K` = 64 (the base Transformer's head size, for the
linear reference line), `N_GRID` (the sequence lengths of the figure).

Values: `matrix_n` (4096), `matrix_bytes_per_value` (4), `matrix_entries` (n^2), `matrix_bytes`
(4096^2 x 4 B = 64 MiB), `matrix_doubling_ratio` (memory at 2n / memory at n = 4),
`matrix_tenfold_ratio` (10n / n = 100), `matrix_loglog_slope` (fitted slope of log bytes vs log
n = 2), `q_loglog_slope` (the same for one head's Q, n x 64: 1), `matrix_n_long`,
`matrix_bytes_long`, `q_width` (64), `q_bytes` (n x 64 x 4 B, one head's Q), `matrix_cost_table`
(n, entries, bytes).
Figures: `attention_matrix_memory` (log-log: the n x n matrix against the linear n x d_k).
"""

from __future__ import annotations

import matplotlib.ticker
import numpy as np

from anatomia_engine.kit import Plot, Table, figure, values
from anatomia_engine.numfmt import fmt_bytes, fmt_int
from anatomia_engine.plot import new_figure
from attn_core import attention_matrix_bytes

BYTES_PER_VALUE = 4  # float32
HEADS = 1
N_EXAMPLE = 4096
N_LONG = 131072  # Llama 3.1 context (Meta model cards), see figures_src/gqa_kv_cache.py
D_K = 64  # base Transformer: d_k = d_model / h = 512 / 8 (Vaswani et al. 2017, 3.2.2)
N_GRID = tuple(2**p for p in range(7, 18))  # 128 ... 131072
TABLE_NS = (1024, 2048, 4096, 8192, 32768, 131072)


def matrix_bytes(n: int) -> int:
    """Bytes of one head's n x n attention matrix in float32."""
    return int(attention_matrix_bytes(n, bytes_per_value=BYTES_PER_VALUE, heads=HEADS))


@values
def quadratic() -> dict:
    grid = np.array(N_GRID, dtype=float)
    memory = np.array([matrix_bytes(n) for n in N_GRID], dtype=float)
    q_memory = grid * D_K * BYTES_PER_VALUE
    slope = float(np.polyfit(np.log2(grid), np.log2(memory), 1)[0])
    q_slope = float(np.polyfit(np.log2(grid), np.log2(q_memory), 1)[0])
    return {
        "matrix_n": N_EXAMPLE,
        "matrix_bytes_per_value": BYTES_PER_VALUE,
        "matrix_entries": N_EXAMPLE * N_EXAMPLE,
        "matrix_bytes": matrix_bytes(N_EXAMPLE),
        "matrix_doubling_ratio": matrix_bytes(2 * N_EXAMPLE) / matrix_bytes(N_EXAMPLE),
        "matrix_tenfold_ratio": matrix_bytes(10 * N_EXAMPLE) / matrix_bytes(N_EXAMPLE),
        "matrix_loglog_slope": slope,
        "q_loglog_slope": q_slope,
        "matrix_n_long": N_LONG,
        "matrix_bytes_long": matrix_bytes(N_LONG),
        "q_width": D_K,
        "q_bytes": N_EXAMPLE * D_K * BYTES_PER_VALUE,
        "matrix_cost_table": Table(
            header=["n (tokeny)", "wpisy macierzy n×n", "pamięć (float32, jedna głowa)"],
            rows=[[n, n * n, matrix_bytes(n)] for n in TABLE_NS],
            formats=["int", "int", "bytes:0"]),
    }


@figure
def attention_matrix_memory(style) -> Plot:
    """Log-log: bytes of the n x n matrix (slope 2) and of one head's Q, n x d_k (slope 1)."""
    fig, ax = new_figure(style, size=(5.0, 3.8))
    ns = np.array(N_GRID, dtype=float)
    quad = np.array([matrix_bytes(n) for n in N_GRID], dtype=float)
    lin = ns * D_K * BYTES_PER_VALUE
    ax.plot(ns, quad, marker="o", markersize=4, color=style.accent,
            label="macierz uwagi n×n (rośnie jak n²)")
    ax.plot(ns, lin, marker="s", markersize=3.5, color=style.accent2, linestyle="--",
            label=f"zapytania Q jednej głowy, n×{D_K} (rośnie jak n)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.xaxis.set_major_locator(matplotlib.ticker.LogLocator(base=2, numticks=20))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
        lambda v, _p: fmt_int(v) if v >= 1 and np.log2(v) % 2 == 1 else ""))
    ax.set_yticks([2.0**p for p in range(16, 37, 4)])  # 64 KiB, 1 MiB, ..., 64 GiB
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _p: fmt_bytes(v, 0)))
    ex = matrix_bytes(N_EXAMPLE)
    ax.annotate(f"n = {fmt_int(N_EXAMPLE)}: {fmt_bytes(ex, 0)}", (N_EXAMPLE, ex),
                xytext=(-12, 18), textcoords="offset points", ha="right", color=style.fg,
                fontsize=9, arrowprops={"arrowstyle": "->", "color": style.muted})
    ax.set_xlabel("długość sekwencji n (tokeny), skala logarytmiczna")
    ax.set_ylabel(f"pamięć (float32, {BYTES_PER_VALUE} B na liczbę)")
    ax.grid(True, which="major", linewidth=0.5)
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(loc="outside upper center", fontsize=9)   # inside, the rising line crossed it
    rows = [[int(n), int(n) * int(n), int(q), int(li)] for n, q, li in zip(N_GRID, quad, lin, strict=True)]
    return Plot(
        fig=fig,
        alt=(f"Wykres w skali log-log: pamięć macierzy uwagi n×n jednej głowy w float32 rośnie "
             f"jak n² (stroma prosta), pamięć zapytań n×{D_K} rośnie jak n (prosta o połowę "
             f"łagodniejsza). Zaznaczony punkt: n = {fmt_int(N_EXAMPLE)} daje "
             f"{fmt_bytes(ex, 0)}; przy n = {fmt_int(N_GRID[-1])} macierz zajmuje "
             f"{fmt_bytes(quad[-1], 0)}."),
        caption=("Pamięć macierzy uwagi n×n (jedna głowa, jedna warstwa, float32) na tle "
                 f"liniowo rosnącej macierzy zapytań n×{D_K}: na osiach logarytmicznych "
                 "kwadrat ma dwa razy większe nachylenie."),
        table=Table(header=["n (tokeny)", "wpisy n×n", "macierz n×n (bajty)",
                            f"Q n×{D_K} (bajty)"],
                    rows=rows, formats=["int", "int", "bytes:0", "bytes:0"]),
    )
