"""Tiled attention (the FlashAttention algorithm) against plain attention on the same input.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Nowoczesne warianty…", FlashAttention).

Inputs: `SEED`; q, k, v ~ N(0, 1) of shape (`N`, `D`) = (1024, 64), drawn once in float64 and
cast to float32; `BLOCK_SIZE` = 64; `BLOCK_SIZES` and `MEMORY_NS` for the figures;
`FLASH2_KERNEL_SPEEDUP` (a quoted fact: Dao 2023, about 2x for the attention kernel);
`FLASH3_SPEEDUP_RANGE` (a quoted fact: Shah et al. 2024, over FlashAttention-2 on H100, FP16).

Values: `flash_n`, `flash_d`, `flash_block_size`, `flash_diff_float32`, `flash_diff_float64`
(largest |tiled - plain| in each precision), `flash_eps_float32`, `flash_eps_float64` (machine
epsilons), `flash_diff_in_eps_float32`, `flash_diff_in_eps_float64` (the differences in units of
epsilon), `flash_max_abs_output`, `flash_mean_abs_output` (the output's scale), `flash_rel_float32`,
`flash_rel_float64` (largest difference / largest |output|: a normwise relative error),
`flash_rel_in_eps_float32`, `flash_rel_in_eps_float64` (the same in units of epsilon),
`flash_ulp_median_float32`, `flash_ulp_max_float32`, `flash_ulp_share_within_4_float32` (the
float32 difference of each output in ULPs of that output), `flash_err_plain_float32`,
`flash_err_tiled_float32` (each
float32 result against the float64 plain result), `flash_peak_plain`, `flash_peak_tiled`
(float32: the n x n matrix of the plain computation vs the largest intermediate held by the
tiled one), `flash_peak_ratio`, `flash_peak_tiled_spread` (max - min of the tiled peak over
`MEMORY_NS`: 0, it depends on the block size only), `flash_memory_ns` (the n of the memory
figure), `flash_peak_plain_float64`, `flash_peak_tiled_float64`, `flash_output_bytes` (the n x d
float32 output both need), `flash_diff_causal_float32` (the same comparison with the causal
mask), `flash2_kernel_speedup`, `flash3_speedup_low`, `flash3_speedup_high` (quoted: Value with
cite).
Figures: `flash_difference` (|tiled - plain| vs block size, float32 and float64),
`flash_memory` (peak intermediate memory of plain vs tiled attention, and the output, vs n).
"""

from __future__ import annotations

import functools

import matplotlib.ticker
import numpy as np

from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.numfmt import fmt_bytes, fmt_int, fmt_sci
from anatomia_engine.plot import new_figure
from attn_core import (
    causal_mask,
    naive_attention_peak_bytes,
    scaled_dot_product_attention,
    tiled_attention,
)

SEED = 20220527  # FlashAttention's arXiv submission date
N = 1024
D = 64
BLOCK_SIZE = 64
BLOCK_SIZES = (16, 32, 64, 128, 256, 512)
MEMORY_NS = (256, 512, 1024, 2048, 4096)
# "around 2x speedup compared to FlashAttention" for the attention computation; end-to-end
# training speed-ups are smaller. T. Dao (2023), FlashAttention-2, arXiv:2307.08691.
FLASH2_KERNEL_SPEEDUP = 2
# FlashAttention-3 on H100 in FP16: "1.5-2.0x" faster than FlashAttention-2 (abstract), with FP8
# support. J. Shah, G. Bikshandi, Y. Zhang, V. Thakkar, P. Ramani, T. Dao (2024), arXiv:2407.08608.
FLASH3_SPEEDUP_RANGE = (1.5, 2.0)


def random_qkv(rng: np.random.Generator, n: int, d: int) -> tuple[np.ndarray, ...]:
    """q, k, v ~ N(0, 1), each (n, d), float64."""
    return tuple(rng.standard_normal((n, d)) for _ in range(3))


@functools.cache
def _inputs(n: int = N, d: int = D) -> tuple[np.ndarray, ...]:
    return random_qkv(np.random.default_rng(SEED), n, d)


def _cast(dtype, n: int = N) -> tuple[np.ndarray, ...]:
    return tuple(x.astype(dtype) for x in _inputs(n))


def _plain(dtype_name: str, causal: bool = False) -> np.ndarray:
    return _plain_run(dtype_name, causal)


def _tiled(dtype_name: str, block_size: int = BLOCK_SIZE, causal: bool = False, n: int = N):
    """(output, TiledStats) of tiled attention on the module's q, k, v of n tokens."""
    return _tiled_run(dtype_name, block_size, causal, n)


# Each computation runs once per module run, however its callers spell the defaults: the
# values, both figures and both themes of each use the same few (a cache keyed by the
# arguments as written would run `_tiled("float32")` and `_tiled("float32", 64)` apart).
@functools.cache
def _plain_run(dtype_name: str, causal: bool) -> np.ndarray:
    q, k, v = _cast(np.dtype(dtype_name))
    mask = causal_mask(N) if causal else None
    return scaled_dot_product_attention(q, k, v, mask=mask).output


@functools.cache
def _tiled_run(dtype_name: str, block_size: int, causal: bool, n: int):
    q, k, v = _cast(np.dtype(dtype_name), n)
    return tiled_attention(q, k, v, causal=causal, block_size=block_size, return_stats=True)


def ulp_diff(dtype_name: str, block_size: int = BLOCK_SIZE) -> np.ndarray:
    """|tiled - plain| of every output in units in the last place (ULP) of the plain output."""
    out, _stats = _tiled(dtype_name, block_size)
    plain = _plain(dtype_name)
    spacing = np.spacing(np.abs(plain)).astype(np.float64)           # one ULP at each value
    return np.abs(out.astype(np.float64) - plain.astype(np.float64)) / spacing


def max_diff(dtype_name: str, block_size: int = BLOCK_SIZE, causal: bool = False) -> float:
    """Largest |tiled - plain| over all outputs, both computed in `dtype_name`."""
    out, _stats = _tiled(dtype_name, block_size, causal)
    return float(np.max(np.abs(out.astype(np.float64)
                               - _plain(dtype_name, causal).astype(np.float64))))


def _peaks(n: int, dtype_name: str) -> tuple[int, int]:
    """(plain peak bytes, tiled peak bytes) for q, k, v of shape (n, D) in `dtype_name`."""
    _out, stats = _tiled(dtype_name, n=n)
    return int(naive_attention_peak_bytes(n, D, np.dtype(dtype_name).itemsize)), int(stats.peak_bytes)


def _tiled_peak_spread() -> int:
    """max - min of the tiled peak (float32) over MEMORY_NS: 0 when it does not depend on n."""
    tiled = [_peaks(n, "float32")[1] for n in MEMORY_NS]
    return max(tiled) - min(tiled)


@values
def flash() -> dict:
    exact = _plain("float64")
    eps32, eps64 = float(np.finfo(np.float32).eps), float(np.finfo(np.float64).eps)
    d32, d64 = max_diff("float32"), max_diff("float64")
    plain32, tiled32 = _plain("float32"), _tiled("float32")[0]
    peak_plain, peak_tiled = _peaks(N, "float32")
    peak_plain64, peak_tiled64 = _peaks(N, "float64")
    ulps32 = ulp_diff("float32")
    return {
        "flash_n": N,
        "flash_d": D,
        "flash_block_size": BLOCK_SIZE,
        "flash_diff_float32": d32,
        "flash_diff_float64": d64,
        "flash_eps_float32": eps32,
        "flash_eps_float64": eps64,
        "flash_diff_in_eps_float32": d32 / eps32,
        "flash_diff_in_eps_float64": d64 / eps64,
        "flash_max_abs_output": float(np.max(np.abs(exact))),
        "flash_mean_abs_output": float(np.mean(np.abs(exact))),
        # Normwise relative error: the largest difference over the largest output (max norm),
        # a quantity that may be compared with the (relative) machine epsilon.
        "flash_rel_float32": d32 / float(np.max(np.abs(exact))),
        "flash_rel_float64": d64 / float(np.max(np.abs(exact))),
        "flash_rel_in_eps_float32": d32 / float(np.max(np.abs(exact))) / eps32,
        "flash_rel_in_eps_float64": d64 / float(np.max(np.abs(exact))) / eps64,
        "flash_ulp_median_float32": float(np.median(ulps32)),
        "flash_ulp_max_float32": float(np.max(ulps32)),
        "flash_ulp_share_within_4_float32": float(np.mean(ulps32 <= 4)),
        "flash_err_plain_float32": float(np.max(np.abs(plain32.astype(np.float64) - exact))),
        "flash_err_tiled_float32": float(np.max(np.abs(tiled32.astype(np.float64) - exact))),
        "flash_peak_plain": peak_plain,
        "flash_peak_tiled": peak_tiled,
        "flash_peak_ratio": peak_plain / peak_tiled,
        "flash_peak_tiled_spread": _tiled_peak_spread(),
        "flash_memory_ns": np.array(MEMORY_NS),
        "flash_output_bytes": N * D * np.dtype(np.float32).itemsize,
        "flash_peak_plain_float64": peak_plain64,
        "flash_peak_tiled_float64": peak_tiled64,
        "flash_diff_causal_float32": max_diff("float32", causal=True),
        "flash2_kernel_speedup": Value(FLASH2_KERNEL_SPEEDUP, cite="Dao (2023)",
                                       what="przyspieszenie samego liczenia uwagi "
                                            "(FlashAttention-2 względem FlashAttention)"),
        "flash3_speedup_low": Value(FLASH3_SPEEDUP_RANGE[0], cite="Shah i in. (2024)",
                                    what="przyspieszenie FlashAttention-3 względem FlashAttention-2 "
                                         "na H100 w FP16: dolna granica"),
        "flash3_speedup_high": Value(FLASH3_SPEEDUP_RANGE[1], cite="Shah i in. (2024)",
                                     what="przyspieszenie FlashAttention-3 względem FlashAttention-2 "
                                          "na H100 w FP16: górna granica"),
    }


@figure
def flash_difference(style) -> Plot:
    """|tiled - plain| (largest over the output) against the block size, float32 and float64."""
    fig, ax = new_figure(style, size=(5.0, 3.5))
    rows = []
    series = {}
    scale = float(np.max(np.abs(_plain("float64"))))     # the output's scale (max norm)
    for dtype_name in ("float32", "float64"):
        series[dtype_name] = np.array([max_diff(dtype_name, b) for b in BLOCK_SIZES]) / scale
    for b, d32, d64 in zip(BLOCK_SIZES, series["float32"], series["float64"], strict=True):
        rows.append([b, d32, d64])
    x = np.array(BLOCK_SIZES, dtype=float)
    for (dtype_name, colour, marker) in (("float32", style.accent, "o"),
                                         ("float64", style.accent2, "s")):
        eps = float(np.finfo(dtype_name).eps)
        y = series[dtype_name]
        shown = y > 0
        ax.plot(x[shown], y[shown], marker=marker, color=colour,
                label=f"{dtype_name}: błąd względny")
        ax.axhline(eps, color=colour, linestyle=":", linewidth=1,
                   label=f"{dtype_name}: epsilon maszynowy {fmt_sci(eps, 1)}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _p: fmt_int(v)))
    ax.set_xticks(x)
    ax.set_xlabel("rozmiar kafelka (tokeny w bloku)")
    ax.set_ylabel("max |kafelki − zwykła| / max |wyjście|")
    ax.grid(True, which="major", linewidth=0.5)
    ax.spines[["top", "right"]].set_visible(False)
    top = max(float(np.max(series["float32"])), float(np.finfo(np.float32).eps))
    ax.set_ylim(top=10 ** np.ceil(np.log10(top) + 0.5))   # a labelled decade above the data
    ax.legend(fontsize=9, loc="center right")
    zeros = [f"{name}, blok {b}" for name in series for b, v in zip(BLOCK_SIZES, series[name], strict=True)
             if v == 0]
    zero_note = (" Różnica równa dokładnie zero (nie da się jej pokazać na osi logarytmicznej): "
                 + "; ".join(zeros) + ".") if zeros else ""
    return Plot(
        fig=fig,
        alt=(f"Wykres: największa różnica między uwagą liczoną kafelkami a zwykłą uwagą, "
             f"podzielona przez największą wartość wyjścia (błąd względny), dla n = {fmt_int(N)}, "
             f"d = {D} i rozmiarów kafelka od {BLOCK_SIZES[0]} do "
             f"{BLOCK_SIZES[-1]}. W float32 błąd jest rzędu "
             f"{fmt_sci(float(np.max(series['float32'])), 1)}, w float64 rzędu "
             f"{fmt_sci(float(np.max(series['float64'])), 1)}, czyli na poziomie błędów "
             f"zaokrągleń (linie kropkowane: epsilon maszynowy).{zero_note}"),
        caption=("Ten sam algorytm, inna kolejność sumowania: różnice między wyjściem "
                 "kafelkowym a zwykłym, odniesione do skali wyjścia, są na poziomie zaokrągleń "
                 "danej precyzji (linie kropkowane: epsilon maszynowy), ale nie muszą być "
                 "zerowe."),
        table=Table(header=["rozmiar kafelka", "błąd względny float32", "błąd względny float64"],
                    rows=rows, formats=["int", "sci:2", "sci:2"]),
    )


@figure
def flash_memory(style) -> Plot:
    """Peak intermediate memory of plain (n x n) vs tiled (blocks) attention, and the output."""
    fig, ax = new_figure(style, size=(5.0, 3.5))
    peaks = [_peaks(n, "float32") for n in MEMORY_NS]
    plain = np.array([p[0] for p in peaks], dtype=float)
    tiled = np.array([p[1] for p in peaks], dtype=float)
    ns = np.array(MEMORY_NS, dtype=float)
    itemsize = np.dtype(np.float32).itemsize
    output = ns * D * itemsize
    ax.plot(ns, plain, marker="o", color=style.accent, label="zwykła uwaga: macierz n×n")
    ax.plot(ns, tiled, marker="s", color=style.accent2,
            label=f"kafelki: największy bufor (blok {BLOCK_SIZE})")
    ax.plot(ns, output, marker="^", color=style.muted, linestyle="--",
            label=f"wyjście n×{D} (potrzebne obu)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xticks(ns)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _p: fmt_int(v)))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _p: fmt_bytes(v, 0)))
    ax.set_xlabel("długość sekwencji n (tokeny)")
    ax.set_ylabel("pamięć (float32)")
    ax.grid(True, which="major", linewidth=0.5)
    ax.spines[["top", "right"]].set_visible(False)
    fig.legend(loc="outside upper center", fontsize=9)   # inside, the rising line crossed it
    rows = [[n, int(p), int(t), int(o)] for n, p, t, o in zip(MEMORY_NS, plain, tiled, output, strict=True)]
    return Plot(
        fig=fig,
        alt=(f"Wykres log-log pamięci w float32 (d = {D}) dla n od {fmt_int(MEMORY_NS[0])} do "
             f"{fmt_int(MEMORY_NS[-1])}: macierz n×n zwykłej uwagi rośnie od "
             f"{fmt_bytes(plain[0], 0)} do {fmt_bytes(plain[-1], 0)}; największy bufor "
             f"wersji kafelkowej ma stale {fmt_bytes(tiled[-1], 0)}, niezależnie od n; "
             f"wyjście n×{D} rośnie liniowo od {fmt_bytes(output[0], 0)} do "
             f"{fmt_bytes(output[-1], 0)}."),
        caption=("Zwykła uwaga trzyma całą macierz n×n (kwadrat); wersja kafelkowa tylko "
                 "bloki o stałym rozmiarze i bieżące statystyki softmaksu, więc razem z "
                 "wyjściem jej pamięć rośnie liniowo."),
        table=Table(header=["n (tokeny)", "zwykła uwaga: macierz n×n",
                            "kafelki: największy bufor", f"wyjście n×{D}"],
                    rows=rows, formats=["int", "bytes:1", "bytes:1", "bytes:1"]),
    )
