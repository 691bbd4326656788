"""Why 1/sqrt(d_k): Monte Carlo variance of q·k and softmax saturation against d_k.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Serce mechanizmu", block "skąd bierze
się pierwiastek z wymiaru").

Inputs: `D_K_VALUES` (powers of two), `N_SAMPLES` (dot products per d_k), `N_TOKENS` and
`SAT_SAMPLES` for the saturation experiment, `SEED`. The d_k singled out in the text is the
per-head width of the base Transformer, taken from figures_src.multi_head (64).
q and k have independent N(0, 1) entries, as in footnote 4 of Vaswani et al. (2017); each
experiment draws them once, at the largest d_k, and a smaller d_k takes their first coordinates
(attn_core.experiments).

Values:
- `focus_d_k` (int, the base Transformer's d_k), `var_d_k_values` (D,), `var_n_samples`;
- `var_measured` (D,) Monte Carlo Var(q·k), `var_scaled` (D,) = Var(q·k / sqrt(d_k)),
  `var_over_dk` (D,) = Var(q·k / d_k), `var_rel_se` (D,) relative standard error of the
  estimate, sqrt((2 + 6/d_k) / n);
- at focus_d_k: `var_focus`, `std_focus` (sqrt of the measured variance), `sqrt_focus`
  (sqrt(d_k), the theory), `var_scaled_focus`, `var_over_dk_focus`, `std_over_dk_focus`,
  `var_focus_rel_error` (|Var/d_k - 1|), `var_focus_rel_se`;
- `var_max_rel_error` (largest |Var/d_k - 1| over all d_k), `var_max_error_in_se` (the same in
  units of the standard error);
- saturation: `sat_d_k_values` (D,), `sat_n_tokens`, `sat_n_samples`, `sat_uniform_weight`
  (1/n), `sat_max_entropy` (ln n), arrays `sat_max_unscaled`, `sat_max_scaled`,
  `sat_entropy_unscaled`, `sat_entropy_scaled`, `sat_jac_unscaled`, `sat_jac_scaled`, and their
  values at focus_d_k (`sat_max_unscaled_focus`, ..., `sat_jac_scaled_focus`) and at the largest
  d_k (`sat_d_k_last`, `sat_max_unscaled_last`, ..., `sat_jac_scaled_last`), `sat_jac_ratio_focus`
  (scaled / unscaled Jacobian norm at focus_d_k).
Figures: `variance_vs_dk` (log-log, with the line Var = d_k), `saturation_vs_dk`
(largest weight, entropy, Jacobian norm against d_k, with and without the scale; both series
from the same random draws, so they coincide at d_k = 1).
Also: `sat_first_d_k`, `sat_first_gap` (largest difference of the two series at d_k = 1: 0),
`sat_jac_unscaled_peak`, `sat_jac_unscaled_peak_d_k` (where the unscaled norm peaks),
`jac_norm_uniform`, `jac_norm_two_halves`, `jac_norm_one_hot` (closed-form cases).
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.ticker import FuncFormatter

from anatomia_engine.kit import Plot, Table, figure, values
from anatomia_engine.numfmt import fmt_dec, fmt_int
from anatomia_engine.plot import new_figure
from attn_core import dot_product_variance, softmax_jacobian_norm, softmax_saturation_pair
from figures_src.multi_head import TRANSFORMER_BASE

SEED = 1762  # footnote 4 of arXiv:1706.03762 makes this argument
D_K_VALUES = 2 ** np.arange(0, 11)          # 1, 2, 4, ..., 1024
N_SAMPLES = 10_000                          # dot products per d_k for the variance
N_TOKENS = 16                               # keys per query in the saturation experiment
SAT_SAMPLES = 1_000                         # queries per d_k in the saturation experiment
FOCUS_D_K = TRANSFORMER_BASE["d_model"] // TRANSFORMER_BASE["h"]


@functools.cache
def _experiments():
    rng = np.random.default_rng(SEED)
    variance = dot_product_variance(rng, D_K_VALUES, N_SAMPLES)                    # (D,)
    # One set of queries and keys for both series: at d_k = 1 they coincide (sqrt(1) = 1).
    unscaled, scaled = softmax_saturation_pair(rng, D_K_VALUES, N_TOKENS, SAT_SAMPLES)
    return variance, unscaled, scaled


def _at(d_k: int) -> int:
    hits = np.flatnonzero(D_K_VALUES == d_k)
    if hits.size != 1:
        raise ValueError(f"d_k={d_k} is not one of D_K_VALUES={D_K_VALUES.tolist()}")
    return int(hits[0])


@values
def variance_values() -> dict:
    variance, _, _ = _experiments()
    d = D_K_VALUES.astype(float)
    rel_se = np.sqrt((2.0 + 6.0 / d) / N_SAMPLES)    # Var(X^2) = 2 d^2 + 6 d for X = q·k
    rel_error = np.abs(variance / d - 1.0)
    i = _at(FOCUS_D_K)
    return {
        "focus_d_k": FOCUS_D_K,
        "var_d_k_values": D_K_VALUES,
        "var_n_samples": N_SAMPLES,
        "var_measured": variance,
        "var_scaled": variance / d,
        "var_over_dk": variance / d**2,
        "var_rel_se": rel_se,
        "var_focus": variance[i],
        "std_focus": float(np.sqrt(variance[i])),
        "sqrt_focus": float(np.sqrt(FOCUS_D_K)),
        "var_scaled_focus": variance[i] / FOCUS_D_K,
        "var_over_dk_focus": variance[i] / FOCUS_D_K**2,
        "std_over_dk_focus": float(np.sqrt(variance[i]) / FOCUS_D_K),
        "var_focus_rel_error": rel_error[i],
        "var_focus_rel_se": rel_se[i],
        "var_max_rel_error": float(rel_error.max()),
        "var_max_error_in_se": float((rel_error / rel_se).max()),
    }


@values
def saturation_values() -> dict:
    _, unscaled, scaled = _experiments()
    i, last = _at(FOCUS_D_K), len(D_K_VALUES) - 1
    out = {
        "sat_d_k_values": D_K_VALUES,
        "sat_n_tokens": N_TOKENS,
        "sat_n_samples": SAT_SAMPLES,
        "sat_uniform_weight": 1.0 / N_TOKENS,
        "sat_max_entropy": float(np.log(N_TOKENS)),
        "sat_d_k_last": int(D_K_VALUES[last]),
        "sat_jac_ratio_focus": scaled.jacobian_norm[i] / unscaled.jacobian_norm[i],
        "sat_first_d_k": int(D_K_VALUES[0]),
        "sat_first_gap": float(np.max(np.abs(
            np.array([unscaled.max_weight[0], unscaled.entropy[0], unscaled.jacobian_norm[0]])
            - np.array([scaled.max_weight[0], scaled.entropy[0], scaled.jacobian_norm[0]])))),
        "sat_jac_unscaled_peak": float(unscaled.jacobian_norm.max()),
        "sat_jac_unscaled_peak_d_k": int(D_K_VALUES[int(np.argmax(unscaled.jacobian_norm))]),
        # Closed forms of ||diag(p) - p p^T||_F: uniform over n, two halves, one-hot.
        "jac_norm_uniform": float(softmax_jacobian_norm(np.full(N_TOKENS, 1.0 / N_TOKENS))),
        "jac_norm_two_halves": float(softmax_jacobian_norm(
            np.r_[0.5, 0.5, np.zeros(N_TOKENS - 2)])),
        "jac_norm_one_hot": float(softmax_jacobian_norm(np.r_[1.0, np.zeros(N_TOKENS - 1)])),
    }
    for label, stats in (("unscaled", unscaled), ("scaled", scaled)):
        for short, series in (("max", stats.max_weight), ("entropy", stats.entropy),
                              ("jac", stats.jacobian_norm)):
            out[f"sat_{short}_{label}"] = series
            out[f"sat_{short}_{label}_focus"] = series[i]
            out[f"sat_{short}_{label}_last"] = series[last]
    return out


def _d_k_range() -> str:
    return f"od {fmt_int(D_K_VALUES[0])} do {fmt_int(D_K_VALUES[-1])}"


@figure
def variance_vs_dk(style) -> Plot:
    variance, _, _ = _experiments()
    d = D_K_VALUES.astype(float)
    fig, ax = new_figure(style, size=(5.0, 5.0))
    # Legend in two columns under the plot, each measurement next to its theory line.
    ax.loglog(d, variance, "o", color=style.accent, label=r"q·k: pomiar")
    ax.loglog(d, d, color=style.accent, linewidth=1.0, label="teoria: Var = dₖ")
    ax.loglog(d, variance / d, "s", color=style.accent2, label=r"q·k / √dₖ: pomiar")
    ax.loglog(d, np.ones_like(d), color=style.accent2, linewidth=1.0, linestyle=":",
              label="teoria: Var = 1")
    ax.loglog(d, variance / d**2, "^", color=style.fg, markersize=5, label=r"q·k / dₖ: pomiar")
    ax.loglog(d, 1.0 / d, color=style.fg, linewidth=1.0, linestyle="--",
              label=r"teoria: Var = 1/dₖ")
    ax.set_xscale("log", base=2)
    ax.set_xticks(d, labels=[fmt_int(x) for x in d])
    ax.set_xlabel(r"wymiar klucza dₖ")
    ax.set_ylabel("wariancja iloczynu skalarnego")
    ax.grid(True, which="major", linewidth=0.5)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2, fontsize=9)
    rows = [[int(k), v, v / k, v / k**2] for k, v in zip(D_K_VALUES, variance, strict=True)]
    return Plot(
        fig=fig,
        alt=("Wykres w skali logarytmicznej na obu osiach: wariancja iloczynu skalarnego q·k "
             f"losowych wektorów w funkcji wymiaru dₖ {_d_k_range()}. Zmierzone punkty leżą "
             "na prostej Var = dₖ. Po podzieleniu przez pierwiastek z dₖ punkty układają się "
             "poziomo na wysokości 1, a po podzieleniu przez dₖ opadają wzdłuż prostej 1/dₖ."),
        caption=(f"Wariancja q·k zmierzona metodą Monte Carlo na tle teorii: {fmt_int(N_SAMPLES)} "
                 f"par wektorów o {fmt_int(D_K_VALUES.max())} współrzędnych, dla każdego dₖ "
                 "iloczyn z ich pierwszych dₖ współrzędnych."),
        table=Table(header=["dₖ", "Var(q·k)", "Var(q·k/√dₖ)", "Var(q·k/dₖ)"], rows=rows,
                    formats=["int", "dec:2", "dec:3", "dec:5"]),
    )


@figure
def saturation_vs_dk(style) -> Plot:
    _, unscaled, scaled = _experiments()
    d = D_K_VALUES.astype(float)
    import matplotlib.pyplot as plt

    # Three panels one above the other, one legend above them, the reference lines labelled
    # where they end (a legend inside a panel crossed the curves).
    fig, axes = plt.subplots(3, 1, figsize=(4.8, 7.6), layout="constrained", sharex=True)
    panels = [
        ("największa waga", unscaled.max_weight, scaled.max_weight, 1.0 / N_TOKENS,
         "1/n (wagi równe)", 1),
        ("entropia wag (w natach)", unscaled.entropy, scaled.entropy, float(np.log(N_TOKENS)),
         "ln n (wagi równe)", 1),
        ("norma jakobianu softmaksu\n‖diag(p) − ppᵀ‖ (Frobeniusa)", unscaled.jacobian_norm,
         scaled.jacobian_norm, None, None, 2),
    ]
    ticks = d[::3]
    for ax, (title, raw, fixed, ref, ref_label, decimals) in zip(axes, panels, strict=True):
        ax.plot(d, raw, "o-", color=style.accent2, markersize=4, label="bez skalowania")
        ax.plot(d, fixed, "s-", color=style.accent, markersize=4,
                label=r"z 1/√dₖ")
        if ref is not None:
            ax.axhline(ref, color=style.muted, linestyle=":", linewidth=1.0)
            ax.annotate(ref_label, (1.0, ref), xycoords=("axes fraction", "data"),
                        xytext=(0, 3), textcoords="offset points", ha="right", va="bottom",
                        color=style.muted, fontsize=9)
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, labels=[fmt_int(x) for x in ticks])
        ax.set_title(title, fontsize=10, loc="left")
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _, n=decimals: fmt_dec(y, n)))
        ax.grid(True, linewidth=0.5)
        ax.spines[["top", "right"]].set_visible(False)
    axes[-1].set_xlabel(r"dₖ")
    axes[1].set_ylim(top=float(np.log(N_TOKENS)) * 1.18)    # room for the ln n label
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside upper center", ncols=2,
               fontsize=9)
    rows = [[int(k), label, stats.max_weight[j], stats.entropy[j], stats.jacobian_norm[j]]
            for j, k in enumerate(D_K_VALUES)
            for label, stats in (("bez", unscaled), ("1/√dₖ", scaled))]
    return Plot(
        fig=fig,
        alt=(f"Trzy wykresy, jeden pod drugim, w funkcji dₖ {_d_k_range()} (skala logarytmiczna) "
             f"dla softmaksu nad {N_TOKENS} kluczami. Bez skalowania największa waga rośnie w stronę 1, "
             "entropia spada do zera, a norma Frobeniusa jakobianu softmaksu, diag(p) − ppᵀ, "
             "najpierw lekko rośnie, a potem maleje ku zeru. Ze "
             "skalowaniem przez pierwiastek z dₖ wszystkie trzy krzywe pozostają płaskie."),
        caption=(f"Nasycenie softmaksu nad {N_TOKENS} kluczami bez skalowania i z 1/√dₖ "
                 f"(średnie z {fmt_int(SAT_SAMPLES)} losowych zapytań na każde dₖ)."),
        table=Table(header=["dₖ", "skalowanie", "największa waga", "entropia (naty)",
                            "norma Frobeniusa diag(p) − ppᵀ"],
                    rows=rows, formats=["int", None, "dec:3", "dec:3", "dec:3"]),
    )
