"""Why FlashAttention is faster: HBM traffic, arithmetic intensity and a roofline.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Nowoczesne warianty…", block "Dlaczego
FlashAttention jest szybsze").

Inputs: the IO model of Dao et al. (2022) (attn_core/io_model.py: Algorithm 0 vs Algorithm 1,
one head, forward pass); 16-bit values (`BYTES_PER_VALUE` = 2); the example `N` = 4096 tokens,
`D` = 64 (head width); `IO_NS` and `IO_DS` for the figure and the table; the GPU, quoted from
NVIDIA's A100 datasheet and the "NVIDIA A100 Tensor Core GPU Architecture" whitepaper (2020),
A100 SXM 40GB: `HBM_BANDWIDTH` = 1555 GB/s, `PEAK_FLOPS` = 312 TFLOP/s (dense FP16/BF16 Tensor
Core), `SRAM_PER_SM` = 192 KB of combined L1/shared memory per SM, `N_SMS` = 108.

Values: `io_n`, `io_d`, `io_bytes_per_value`, `gpu_bandwidth_gbs`, `gpu_peak_tflops`,
`gpu_sram_kb`, `gpu_sms` (quoted: Value with cite), `gpu_ridge` (FLOP per byte where the
roofline bends: peak / bandwidth), `io_block_rows`, `io_block_cols` (B_r, B_c), `io_flops`,
`io_std_bytes`, `io_flash_bytes`, `io_bytes_ratio` (standard / flash), `io_std_intensity`,
`io_flash_intensity` (FLOP per byte), `io_std_intensity_limit` (d / bytes per value: the
standard algorithm's intensity for n -> infinity), `io_std_time_us`, `io_flash_time_us` (roofline
lower bounds max(FLOPs / peak, bytes / bandwidth), microseconds), `io_time_ratio`,
`io_d_wide`, `io_ratio_d128` (the traffic ratio at n = N, d = 128), `io_flash_intensity_wide`
(FlashAttention's FLOP per byte there), `io_std_memory_share`
(the share of the standard algorithm's time bound set by memory),
`io_table` (n, d, B_c, traffic of both, ratio).
Figures: `io_traffic_roofline` (HBM traffic against n; the roofline with both algorithms).
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter

from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.numfmt import fmt_bytes, fmt_dec, fmt_int
from attn_core import flash_attention_io, roofline_flops_per_s, standard_attention_io

BYTES_PER_VALUE = 2
N = 4096
D = 64
IO_NS = (512, 1024, 2048, 4096, 8192, 16384, 32768)
IO_DS = (64, 128)
TABLE_NS = (1024, 4096, 16384)

# NVIDIA A100 Tensor Core GPU datasheet (A100 40GB SXM) and "NVIDIA A100 Tensor Core GPU
# Architecture" whitepaper (2020): HBM2 bandwidth 1555 GB/s, FP16/BF16 Tensor Core 312 TFLOPS
# dense, 108 SMs with 192 KB of combined L1 cache / shared memory each.
GPU_SOURCE = "NVIDIA (2020), A100 datasheet i whitepaper"
HBM_BANDWIDTH = 1555e9        # bytes per second
PEAK_FLOPS = 312e12           # FLOP per second
SRAM_PER_SM = 192 * 1024      # bytes
N_SMS = 108


def io_pair(n: int, d: int):
    return (standard_attention_io(n, d, BYTES_PER_VALUE),
            flash_attention_io(n, d, SRAM_PER_SM, BYTES_PER_VALUE))


def time_bound(io) -> float:
    """Roofline lower bound of the run time in seconds: max(compute time, memory time)."""
    return max(io.flops / PEAK_FLOPS, io.hbm_bytes / HBM_BANDWIDTH)


@values
def flash_io() -> dict:
    std, fl = io_pair(N, D)
    t_std, t_fl = time_bound(std), time_bound(fl)
    return {
        "io_n": N,
        "io_d": D,
        "io_bytes_per_value": BYTES_PER_VALUE,
        "gpu_bandwidth_gbs": Value(HBM_BANDWIDTH / 1e9, cite=GPU_SOURCE,
                                   what="przepustowość HBM2 karty A100 40GB SXM, GB/s"),
        "gpu_peak_tflops": Value(PEAK_FLOPS / 1e12, cite=GPU_SOURCE,
                                 what="szczytowa moc Tensor Core FP16/BF16 (bez rzadkości), TFLOP/s"),
        "gpu_sram_kb": Value(SRAM_PER_SM // 1024, cite=GPU_SOURCE,
                             what="pamięć L1/współdzielona jednego multiprocesora, KB"),
        "gpu_sms": Value(N_SMS, cite=GPU_SOURCE, what="liczba multiprocesorów (SM)"),
        "gpu_ridge": PEAK_FLOPS / HBM_BANDWIDTH,
        "io_block_rows": fl.block_rows,
        "io_block_cols": fl.block_cols,
        "io_flops": std.flops,
        "io_std_bytes": std.hbm_bytes,
        "io_flash_bytes": fl.hbm_bytes,
        "io_bytes_ratio": std.hbm_bytes / fl.hbm_bytes,
        "io_std_intensity": std.intensity,
        "io_flash_intensity": fl.intensity,
        "io_std_intensity_limit": D / BYTES_PER_VALUE,
        "io_std_time_us": t_std * 1e6,
        "io_flash_time_us": t_fl * 1e6,
        "io_time_ratio": t_std / t_fl,
        "io_std_memory_share": (std.hbm_bytes / HBM_BANDWIDTH) / t_std,
        "io_d_wide": IO_DS[-1],
        "io_ratio_d128": io_pair(N, IO_DS[-1])[0].hbm_bytes / io_pair(N, IO_DS[-1])[1].hbm_bytes,
        "io_flash_intensity_wide": io_pair(N, IO_DS[-1])[1].intensity,
        "io_table": Table(
            header=["n (tokeny)", "d", "blok kluczy (wiersze)", "zwykła uwaga: HBM", "FlashAttention: HBM",
                    "stosunek"],
            rows=[[n, d, io_pair(n, d)[1].block_cols, io_pair(n, d)[0].hbm_bytes,
                   io_pair(n, d)[1].hbm_bytes,
                   io_pair(n, d)[0].hbm_bytes / io_pair(n, d)[1].hbm_bytes]
                  for d in IO_DS for n in TABLE_NS],
            formats=["int", "int", "int", "bytes:1", "bytes:1", "dec:1"]),
    }


@figure
def io_traffic_roofline(style) -> Plot:
    ns = np.array(IO_NS, dtype=float)
    pairs = [io_pair(n, D) for n in IO_NS]
    std_b = np.array([p[0].hbm_bytes for p in pairs], dtype=float)
    fl_b = np.array([p[1].hbm_bytes for p in pairs], dtype=float)
    std_i = np.array([p[0].intensity for p in pairs])
    fl_i = np.array([p[1].intensity for p in pairs])
    import matplotlib.pyplot as plt

    # One above the other: at a phone's column the smallest text stays >= 8 CSS px.
    fig, (left, right) = plt.subplots(2, 1, figsize=(4.8, 6.6), layout="constrained")
    left.plot(ns, std_b, "o-", color=style.accent2, markersize=4, label="zwykła uwaga")
    left.plot(ns, fl_b, "s-", color=style.accent, markersize=4, label="FlashAttention")
    left.set_xscale("log", base=2)
    left.set_yscale("log", base=2)
    ticks = ns[::2]
    left.set_xticks(ticks, labels=[fmt_int(x) for x in ticks])
    left.set_xticks(ns, minor=True)
    left.tick_params(axis="x", which="minor", labelbottom=False)
    left.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: fmt_bytes(v, 0)))
    left.set_xlabel("długość sekwencji n (tokeny)")
    left.set_title(f"ruch HBM ↔ SRAM (jedna głowa, d = {D})", fontsize=10)
    left.grid(True, linewidth=0.5)
    left.legend(fontsize=9, loc="upper left")
    # The roofline: attainable FLOP/s = min(peak, intensity x bandwidth).
    xs = np.logspace(0, 5, 200, base=4.0)                            # 1 .. 1024 FLOP/B
    roof = np.array([roofline_flops_per_s(x, PEAK_FLOPS, HBM_BANDWIDTH) for x in xs]) / 1e12
    right.plot(xs, roof, color=style.fg, linewidth=1.5, label="dach: min(szczyt, I × przepustowość)")
    ridge = PEAK_FLOPS / HBM_BANDWIDTH
    # up to the roof only: above it is the legend's place
    right.plot([ridge, ridge], [1, PEAK_FLOPS / 1e12], color=style.muted, linestyle=":", linewidth=1)
    for inten, colour, marker, label in ((std_i, style.accent2, "o", "zwykła uwaga"),
                                         (fl_i, style.accent, "s", "FlashAttention")):
        right.scatter(inten, [roofline_flops_per_s(x, PEAK_FLOPS, HBM_BANDWIDTH) / 1e12
                              for x in inten], marker=marker, color=colour, zorder=3, s=22,
                      label=label)
    right.set_xscale("log", base=2)
    right.set_yscale("log", base=2)
    x_ticks = [4.0**e for e in range(6)]
    right.set_xticks(x_ticks, labels=[fmt_int(v) for v in x_ticks])
    right.set_xticks([2.0**e for e in range(11)], minor=True)
    right.tick_params(axis="x", which="minor", labelbottom=False)
    y_ticks = [4.0**e for e in range(7)]
    right.set_yticks(y_ticks, labels=[fmt_int(v) for v in y_ticks])
    right.set_yticks([2.0**e for e in range(13)], minor=True)
    right.tick_params(axis="y", which="minor", labelleft=False)
    right.set_xlim(1, 4.0**5)
    right.set_ylim(1, 2.0**12)   # room above the roof for the legend
    right.set_xlabel("intensywność I (FLOP na bajt z HBM)")
    right.set_ylabel("osiągalne TFLOP/s")
    right.set_title("model dachowy (roofline), A100", fontsize=10)
    right.grid(True, linewidth=0.5)
    right.legend(fontsize=9, loc="upper left")
    for ax in (left, right):
        ax.spines[["top", "right"]].set_visible(False)
    rows = [[n, s_, f_, si, fi] for n, s_, f_, si, fi in zip(IO_NS, std_b, fl_b, std_i, fl_i, strict=True)]
    ridge = PEAK_FLOPS / HBM_BANDWIDTH
    return Plot(
        fig=fig,
        alt=(f"Dwa wykresy, jeden nad drugim. U góry, w skali logarytmicznej: bajty przesyłane "
             f"między pamięcią HBM a SRAM przez jedną głowę (d = {D}, wartości 16-bitowe) dla n od "
             f"{fmt_int(IO_NS[0])} do {fmt_int(IO_NS[-1])}; zwykła uwaga od "
             f"{fmt_bytes(std_b[0], 1)} do {fmt_bytes(std_b[-1], 1)}, FlashAttention od "
             f"{fmt_bytes(fl_b[0], 1)} do {fmt_bytes(fl_b[-1], 1)}, kilka razy mniej. Na "
             f"dole model dachowy karty A100: pozioma część dachu to szczyt "
             f"{fmt_int(PEAK_FLOPS / 1e12)} TFLOP/s, pochyła to przepustowość pamięci, a załamanie "
             f"wypada przy {fmt_dec(ridge, 0)} FLOP/B. " + _roof_sides(std_i, fl_i, ridge)),
        caption=(f"Model IO z pracy Dao i in. (2022): ruch między HBM a SRAM i intensywność "
                 f"arytmetyczna (FLOP na bajt) zwykłej uwagi i FlashAttention; dach: A100 SXM "
                 f"40GB, {fmt_int(HBM_BANDWIDTH / 1e9)} GB/s i {fmt_int(PEAK_FLOPS / 1e12)} "
                 f"TFLOP/s (dane NVIDIA)."),
        table=Table(header=["n (tokeny)", "zwykła uwaga: bajty HBM", "FlashAttention: bajty HBM",
                            "zwykła: FLOP/B", "FlashAttention: FLOP/B"],
                    rows=rows, formats=["int", "bytes:1", "bytes:1", "dec:1", "dec:1"]),
    )


def _roof_sides(std_i, fl_i, ridge: float) -> str:
    """Where the points of each method sit on the roofline (the alt text's words follow the numbers)."""
    def side(name: str, intensity) -> str:
        above = [n for n, x in zip(IO_NS, intensity, strict=True) if x >= ridge]
        span = f"od {fmt_dec(min(intensity), 0)} do {fmt_dec(max(intensity), 0)} FLOP/B"
        if not above:
            return f"punkty {name} ({span}) leżą na pochyłej części: ogranicza je pamięć"
        if len(above) == len(IO_NS):
            return f"punkty {name} ({span}) leżą na poziomej części: ogranicza je liczenie"
        return (f"punkty {name} ({span}) dla n ≥ {fmt_int(above[0])} leżą na poziomej części (ogranicza je "
                f"liczenie), dla krótszych sekwencji jeszcze na pochyłej (ogranicza je pamięć)")
    first = side("zwykłej uwagi", std_i)
    return first[0].upper() + first[1:] + "; " + side("FlashAttention", fl_i) + "."
