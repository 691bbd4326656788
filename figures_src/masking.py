"""The causal mask M and what adding it before softmax does to one small attention matrix.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Na co wolno patrzeć", mask block).

Inputs: the sentence `TOKENS` and seeded random queries and keys (`SEED`, `D_K`); the
values V do not matter for the weights and are not drawn.

Values:
- `mask_tokens` (list of str), `mask_n` (int), `mask_d_k` (int), `mask_M` (n, n) additive mask
  (0 / -inf), `mask_scaled` (n, n) = QK^T / sqrt(d_k), `mask_masked` (n, n) = scaled + M,
  `mask_weights` (n, n) with the mask, `mask_weights_full` (n, n) without it;
- `mask_future_weight_sum` (sum of the masked weights above the diagonal: exactly 0),
  `mask_first_self` (weight of the first token on itself), `mask_first_future_share`
  (share of the first token's attention that would go to the future without the mask),
  `mask_row_sum_max_error` (largest |row sum - 1| of the masked weights),
  `mask_renorm_max_diff` (largest difference between a masked row and the unmasked row cut
  to j <= i and renormalised), `mask_last_row_diff` (masked vs unmasked last row: 0).
Figures: `mask_matrix` (M as a heatmap), `mask_effect` (scores, scores + M, weights).
"""

from __future__ import annotations

import functools

import numpy as np

from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.plot import new_figure
from attn_core import causal_mask, future_mask, scaled_dot_product_attention
from figures_src._shared.charts import heatmap

SEED = 1706  # arXiv:1706.03762
TOKENS = ["Na", "autostradzie", "stoi", "korek"]
D_K = 8
QK_STD = 0.75  # std of the random q, k entries: scaled scores of about ±1.5


@functools.cache
def _attention():
    rng = np.random.default_rng(SEED)
    n = len(TOKENS)
    q = rng.normal(0.0, QK_STD, (n, D_K))                           # (T, d_k)
    k = rng.normal(0.0, QK_STD, (n, D_K))                           # (T, d_k)
    v = np.eye(n)                                                    # (T, T): weights only
    masked = scaled_dot_product_attention(q, k, v, mask=causal_mask(n))
    full = scaled_dot_product_attention(q, k, v)
    return masked, full


@values
def mask_values() -> dict:
    masked, full = _attention()
    n = len(TOKENS)
    blocked = future_mask(n)
    w, w_full = masked.weights, full.weights
    renorm = np.where(blocked, 0.0, w_full)
    renorm = renorm / renorm.sum(axis=1, keepdims=True)             # rows cut to j <= i
    return {
        "mask_tokens": list(TOKENS),
        "mask_n": n,
        "mask_d_k": D_K,
        "mask_M": Value(causal_mask(n), masked=True),     # 0 / -inf
        "mask_scaled": masked.scaled,
        "mask_masked": Value(masked.masked, masked=True),
        "mask_weights": w,
        "mask_weights_full": w_full,
        "mask_future_weight_sum": float(w[blocked].sum()),
        "mask_first_self": float(w[0, 0]),
        "mask_first_future_share": float(w_full[0, 1:].sum()),
        "mask_row_sum_max_error": float(np.abs(w.sum(axis=1) - 1.0).max()),
        "mask_renorm_max_diff": float(np.abs(w - renorm).max()),
        "mask_last_row_diff": float(np.abs(w[-1] - w_full[-1]).max()),
    }


@figure
def mask_matrix(style) -> Plot:
    n = len(TOKENS)
    blocked = future_mask(n)
    fig, ax = new_figure(style, size=(4.4, 4.3))
    heatmap(ax, causal_mask(n), row_labels=TOKENS, col_labels=TOKENS, style=style, decimals=0,
            blocked=blocked, vmin=-1.0, vmax=1.0, quantity="scores", colorbar=False,
            xlabel="j: token, na który patrzymy", ylabel="i: token, który patrzy")
    ax.tick_params(axis="x", labelrotation=30, rotation_mode="xtick")
    rows = [[TOKENS[i]] + ["−∞" if blocked[i, j] else "0" for j in range(n)] for i in range(n)]
    return Plot(
        fig=fig,
        alt=(f"Macierz maski przyczynowej {n} na {n} dla zdania „{' '.join(TOKENS)}”: na "
             "przekątnej i pod nią zera, nad przekątną zakreskowane pola z minus "
             "nieskończonością. Dozwolone pola tworzą dolny trójkąt."),
        caption="Maska przyczynowa M: 0, gdy j ≤ i, i −∞ dla przyszłości, gdy j > i.",
        table=Table(header=["i \\ j"] + TOKENS, rows=rows, formats=[None] * (n + 1)),
    )



@figure
def mask_effect(style) -> Plot:
    masked, full = _attention()
    n = len(TOKENS)
    blocked = future_mask(n)
    import matplotlib.pyplot as plt

    # One above the other: legible at a phone's width (a row of three was 4 CSS px there).
    fig, axes = plt.subplots(3, 1, figsize=(4.4, 9.9), layout="constrained")
    panels = [
        (masked.scaled, None, "oceny QKᵀ/√dₖ", None, None),
        (masked.masked, blocked, "oceny + M", None, None),
        (masked.weights, blocked, "wagi: softmax", 0.0, 1.0),
    ]
    reach = float(np.abs(masked.scaled).max())      # one symmetric scale for both score panels
    lo, hi = -reach, reach
    for ax, (matrix, cells, title, vmin, vmax) in zip(axes, panels, strict=True):
        heatmap(ax, matrix, row_labels=TOKENS, col_labels=TOKENS, style=style, decimals=2,
                blocked=cells, vmin=lo if vmin is None else vmin,
                vmax=hi if vmax is None else vmax, xlabel="klucz",
                quantity="scores" if vmin is None else "weights", colorbar=True,
                ylabel="zapytanie")
        ax.set_title(title, fontsize=10)
        ax.tick_params(axis="x", labelrotation=30, rotation_mode="xtick")
    rows = ([["oceny QKᵀ/√dₖ", TOKENS[i], *masked.scaled[i]] for i in range(n)]
            + [["wagi z maską", TOKENS[i], *masked.weights[i]] for i in range(n)]
            + [["wagi bez maski", TOKENS[i], *full.weights[i]] for i in range(n)])
    return Plot(
        fig=fig,
        alt=(f"Trzy mapy ciepła {n} na {n}, jedna pod drugą, dla zdania „{' '.join(TOKENS)}”. Pierwsza: "
             "skalowane oceny dopasowania zapytanie–klucz, dodatnie i ujemne we wszystkich "
             "polach. Druga: te same oceny po dodaniu maski; pola nad przekątną są zakreskowane i mają minus "
             "nieskończoność. Trzecia: wagi po softmaksie; nad przekątną same zera, pierwszy "
             "wiersz ma całą wagę na pierwszym tokenie, każdy wiersz sumuje się do jedności."),
        caption=(f"Oceny dopasowania, oceny z maską i wagi dla {n} tokenów (losowe q i k, dₖ = {D_K}); "
                 "tabela zawiera też wagi bez maski."),
        table=Table(header=["macierz", "zapytanie"] + TOKENS, rows=rows,
                    formats=[None, None] + ["dec:2"] * n),
    )
