"""Plain vs tiled attention: median time and peak NumPy memory for n = 256 .. 8192.

Run with `make bench` (= `.venv/bin/python tests/bench/attention.py`). Not a test: it prints
a table. q, k, v are (n, 64) float32 from a seeded generator. "plain" is
`scaled_dot_product_attention` (it keeps scores, scaled scores and weights, each n x n);
"tiled" is `tiled_attention` (online softmax, one block of scores at a time).

Time: median of at least REPEATS runs (time.perf_counter; fast cases run more often).
Memory: tracemalloc peak during one separate run, which counts every NumPy array allocated by
the call (NumPy reports its data buffers to tracemalloc); the inputs are allocated before
tracing starts. Plain memory grows
as n^2, tiled as n (its output is n x d_v). Plain is skipped ("—") when its peak, extrapolated
from the previous n as n^2, would exceed the memory cap.

BLAS runs single-threaded (unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS is already set) so the
timings are stable on a small shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

from attn_core import scaled_dot_product_attention, tiled_attention

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
SEED = 2022                      # FlashAttention's year; any fixed seed will do
D_HEAD = 64
N_VALUES = [256, 512, 1024, 2048, 4096, 8192]
BLOCK_SIZE = 128
REPEATS = 3                      # at least this many timed runs per case ...
MIN_TOTAL_S, MAX_RUNS = 0.3, 50  # ... and more for fast cases, to tame the noise
MEMORY_CAP_BYTES = 2 * 2**30     # 2 GiB
MIB = 2**20


def plain(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    return scaled_dot_product_attention(q, k, v).output


def tiled(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    return tiled_attention(q, k, v, block_size=BLOCK_SIZE)


def median_seconds(fn: Callable, args: tuple, repeats: int) -> float:
    """Median wall time of at least `repeats` calls; fast calls repeat until MIN_TOTAL_S."""
    times: list[float] = []
    while len(times) < repeats or (sum(times) < MIN_TOTAL_S and len(times) < MAX_RUNS):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_bytes(fn: Callable, args: tuple) -> tuple[int, np.ndarray]:
    """tracemalloc peak of one call (bytes allocated during the call, inputs excluded)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        out = fn(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, out


def measure(n_values: list[int], repeats: int, cap: int) -> list[dict]:
    rng = np.random.default_rng(SEED)
    rows, last_plain = [], None          # last_plain: (n, peak) for the n^2 extrapolation
    for n in n_values:
        q, k, v = (rng.standard_normal((n, D_HEAD)).astype(np.float32) for _ in range(3))
        row = {"n": n}
        row["tiled_s"] = median_seconds(tiled, (q, k, v), repeats)
        row["tiled_peak"], tiled_out = peak_bytes(tiled, (q, k, v))
        predicted = None if last_plain is None else last_plain[1] * (n / last_plain[0]) ** 2
        if predicted is not None and predicted > cap:
            row["plain_s"] = row["plain_peak"] = row["max_diff"] = None
        else:
            row["plain_peak"], plain_out = peak_bytes(plain, (q, k, v))
            row["plain_s"] = median_seconds(plain, (q, k, v), repeats)
            row["max_diff"] = float(np.max(np.abs(tiled_out - plain_out)))
            last_plain = (n, row["plain_peak"])
            del plain_out
        rows.append(row)
        print(f"  measured n = {n}", flush=True)
    return rows


def _fmt(value: float | None, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b


def print_table(rows: list[dict]) -> None:
    header = ["n", "plain ms", "tiled ms", "time tiled/plain", "plain peak MiB",
              "tiled peak MiB", "memory tiled/plain", "max abs diff"]
    lines = []
    for r in rows:
        lines.append([
            str(r["n"]),
            _fmt(None if r["plain_s"] is None else r["plain_s"] * 1e3, ".1f"),
            _fmt(r["tiled_s"] * 1e3, ".1f"),
            _fmt(_ratio(r["tiled_s"], r["plain_s"]), ".2f"),
            _fmt(None if r["plain_peak"] is None else r["plain_peak"] / MIB, ".2f"),
            _fmt(r["tiled_peak"] / MIB, ".3f"),
            _fmt(_ratio(r["tiled_peak"], r["plain_peak"]), ".4f"),
            _fmt(r["max_diff"], ".1e"),
        ])
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    print("| " + " | ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|")
    for line in lines:
        print("| " + " | ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) + " |")
    ran = [r for r in rows if r["plain_peak"] is not None]
    print()
    for name, sample in (("plain", ran), ("tiled", rows)):
        if len(sample) >= 2:
            a, b = sample[-2], sample[-1]
            factor, step = b[f"{name}_peak"] / a[f"{name}_peak"], b["n"] / a["n"]
            print(f"{name} peak memory, n = {a['n']} -> {b['n']}: x{factor:.2f} "
                  f"(x{step**2:g} for n^2, x{step:g} for n)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=N_VALUES[-1], help="largest n (power of 2)")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="timed runs per case")
    parser.add_argument("--cap-gib", type=float, default=MEMORY_CAP_BYTES / 2**30,
                        help="skip plain attention above this predicted peak (GiB)")
    args = parser.parse_args(argv)
    n_values = [n for n in N_VALUES if n <= args.max_n]
    print(f"attention benchmark: d = {D_HEAD}, float32, tiled block_size = {BLOCK_SIZE}, "
          f"median of >= {args.repeats} runs, memory cap {args.cap_gib:g} GiB, "
          f"numpy {np.__version__}, {os.cpu_count()} CPUs, "
          f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']}")
    start = time.perf_counter()
    rows = measure(n_values, args.repeats, int(args.cap_gib * 2**30))
    print()
    print_table(rows)
    print(f"\ntotal {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    if any(var not in os.environ for var in BLAS_THREADS):
        # BLAS reads its thread count when NumPy loads: start again with it set (default 1).
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**{var: "1" for var in BLAS_THREADS}, **os.environ})
    main()
