"""Multi-head attention: how d_model splits into heads, and what separate heads look at.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Wiele głów naraz" and the scale note
of the √d_k block).

Inputs:
- `TRANSFORMER_BASE`: the base Transformer of Vaswani et al. (2017), "Attention Is All You
  Need", arXiv:1706.03762 — section 3.2.2 (d_model = 512, h = 8, d_k = d_v = d_model/h = 64),
  section 3.1 (N = 6 layers), section 3.3 (d_ff = 2048); Table 3, row "base".
- The toy sentence `TOKENS`, `TOY_D_MODEL`, `TOY_HEADS` and seeded random embeddings and
  projections (`SEED`, `TOY_W_STD`) for the per-head heatmaps.

Values:
- configuration: `base_d_model`, `base_heads`, `base_d_k_paper`, `base_d_v_paper`,
  `base_layers`, `base_d_ff` (quoted), `base_d_k` = d_model // h (computed), `base_d_v`;
- cost: `base_proj_params_multi` (W^Q, W^K, W^V of all heads plus W^O),
  `base_proj_params_single` (one head of full width), `base_score_mults_multi`,
  `base_score_mults_single` (multiplications per query-key pair, all heads together);
- scale: `base_scale` = 1/sqrt(d_k), `base_scale_dmodel` = 1/sqrt(d_model) (the confusion),
  `base_sqrt_d_k`, `base_sqrt_d_model`, `base_wrong_scale_ratio` = sqrt(d_model / d_k),
  `base_wrong_scale_variance` = d_k / d_model (variance of the scaled score if one divided by
  sqrt(d_model));
- memory: `base_score_n`, `base_score_bytes_one` (one n x n float32 weight matrix),
  `base_score_bytes_heads` (one per head), `base_score_heads_ratio` (= h);
- the quoted configuration (`base_d_model`, `base_heads`, `base_layers`, `base_d_ff`) is
  returned as Value(..., cite="Vaswani i in. (2017)");
- toy model: `mh_tokens` (list of str), `mh_d_model`, `mh_heads`, `mh_d_k`, `mh_weights`
  (h, T, T), `mh_heads_instr` (the head count in words, instrumental case), `mh_query`
  (index of the query token discussed in the text), `mh_row_sum_max_error`.
Figures: `head_split` (512 = 8 x 64), `head_weights` (one heatmap per head of the toy model).
"""

from __future__ import annotations

import functools

import matplotlib
import matplotlib.colors
import matplotlib.pyplot as plt
import numpy as np

from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.plot import new_figure
from attn_core import attention_matrix_bytes, multi_head_attention, split_heads
from figures_src._shared.charts import heatmap

# Vaswani et al. (2017), arXiv:1706.03762: §3.2.2 (d_model, h, d_k, d_v), §3.1 (N), §3.3 (d_ff).
TRANSFORMER_BASE = {"d_model": 512, "h": 8, "d_k": 64, "d_v": 64, "N": 6, "d_ff": 2048}
VASWANI = "Vaswani i in. (2017)"
BASE_SOURCE = "Vaswani i in. (2017), „Attention Is All You Need”, §3.2.2, arXiv:1706.03762"

SEED = 2017
TOKENS = ["długi", "korek", "stoi", "na", "autostradzie"]
TOY_D_MODEL = 16
TOY_HEADS = 4
TOY_W_STD = 0.4      # std of the random projection entries: heads with clear favourites
QUERY = 1            # "korek": the row discussed in the text
# Small counts are written in words; the instrumental case ("z czterema głowami").
INSTRUMENTAL = {2: "dwiema", 3: "trzema", 4: "czterema", 5: "pięcioma", 6: "sześcioma",
                7: "siedmioma", 8: "ośmioma"}
SCORE_N = 4096       # tokens for the per-head score memory (float32), as in quadratic_cost.py


def _base_d_k() -> int:
    d_model, h = TRANSFORMER_BASE["d_model"], TRANSFORMER_BASE["h"]
    if d_model % h:
        raise ValueError(f"d_model={d_model} is not divisible by h={h}")
    return d_model // h


@functools.cache
def _toy():
    rng = np.random.default_rng(SEED)
    t, d = len(TOKENS), TOY_D_MODEL
    x = rng.normal(0.0, 1.0, (t, d))                                 # (T, d) token vectors
    w_q, w_k, w_v, w_o = (rng.normal(0.0, TOY_W_STD, (d, d)) for _ in range(4))
    return multi_head_attention(x, w_q, w_k, w_v, w_o, TOY_HEADS)  # weights (h, T, T)


@values
def base_config() -> dict:
    cfg = TRANSFORMER_BASE
    d_model, h = cfg["d_model"], cfg["h"]
    d_k = _base_d_k()
    d_v = d_k
    # Per layer: h heads, each with W_i^Q, W_i^K (d_model x d_k) and W_i^V (d_model x d_v),
    # plus W^O (h*d_v x d_model); a single full-width head has four d_model x d_model matrices.
    multi = h * (2 * d_model * d_k + d_model * d_v) + h * d_v * d_model
    single = 4 * d_model * d_model
    return {
        "base_source": BASE_SOURCE,
        "base_d_model": Value(d_model, cite=VASWANI, what="wymiar wektora tokenu bazowego Transformera"),
        "base_heads": Value(h, cite=VASWANI, what="liczba głów bazowego Transformera"),
        "base_d_k_paper": cfg["d_k"],
        "base_d_v_paper": cfg["d_v"],
        "base_layers": Value(cfg["N"], cite=VASWANI, what="liczba warstw bazowego Transformera"),
        "base_d_ff": Value(cfg["d_ff"], cite=VASWANI, what="wymiar wewnętrzny FFN bazowego Transformera"),
        "base_d_k": d_k,
        "base_d_v": d_v,
        "base_proj_params_multi": multi,
        "base_proj_params_single": single,
        "base_score_mults_multi": h * d_k,
        "base_score_mults_single": d_model,
        "base_scale": 1.0 / np.sqrt(d_k),
        "base_scale_dmodel": 1.0 / np.sqrt(d_model),
        "base_sqrt_d_k": float(np.sqrt(d_k)),
        "base_sqrt_d_model": float(np.sqrt(d_model)),
        "base_wrong_scale_ratio": float(np.sqrt(d_model / d_k)),
        "base_wrong_scale_variance": d_k / d_model,
        # What the split does cost: every head has its own n x n weight matrix.
        "base_score_n": SCORE_N,
        "base_score_bytes_one": int(attention_matrix_bytes(SCORE_N, 4, heads=1)),
        "base_score_bytes_heads": int(attention_matrix_bytes(SCORE_N, 4, heads=h)),
        "base_score_heads_ratio": (attention_matrix_bytes(SCORE_N, 4, heads=h)
                                   / attention_matrix_bytes(SCORE_N, 4, heads=1)),
    }


@values
def toy_heads() -> dict:
    result = _toy()
    return {
        "mh_tokens": list(TOKENS),
        "mh_d_model": TOY_D_MODEL,
        "mh_heads": TOY_HEADS,
        "mh_heads_instr": INSTRUMENTAL[TOY_HEADS],   # "z czterema głowami"
        "mh_d_k": TOY_D_MODEL // TOY_HEADS,
        "mh_weights": result.weights,
        "mh_query": QUERY,
        "mh_row_sum_max_error": float(np.abs(result.weights.sum(axis=-1) - 1.0).max()),
    }


@figure
def head_split(style) -> Plot:
    cfg = TRANSFORMER_BASE
    d_model, h = cfg["d_model"], cfg["h"]
    d_k = _base_d_k()
    columns = split_heads(np.arange(d_model, dtype=float)[None, :], h)[:, 0, :]  # (h, d_k)
    fig, ax = new_figure(style, size=(4.7, 1.9))
    palette = matplotlib.colormaps["tab10" if style.name == "light" else "Set2"]
    for i, cols in enumerate(columns):
        start, width = cols[0], len(cols)
        ax.barh(0, width, left=start, height=0.6, color=palette(i % 10),
                edgecolor=style.bg, linewidth=1.5)
        r, g, b = matplotlib.colors.to_rgb(palette(i % 10))
        ink = "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.55 else "#ffffff"
        ax.text(start + width / 2, 0, f"{i + 1}", ha="center", va="center",
                fontsize=10, color=ink)
    ax.set_xlim(0, d_model)
    ax.set_ylim(-0.6, 0.6)
    ax.set_yticks([])
    ax.set_xticks(np.arange(0, d_model + 1, 2 * d_k))
    ax.set_xticks(np.arange(0, d_model + 1, d_k), minor=True)
    ax.set_title(f"głowy 1–{h}, każda po dₖ = {d_k} wymiarów", fontsize=10)
    ax.set_xlabel(f"wymiar wektora tokenu (wymiar modelu: {d_model})")
    ax.spines[["top", "right", "left"]].set_visible(False)
    rows = [[f"głowa {i + 1}", int(cols[0]), int(cols[-1]), len(cols)]
            for i, cols in enumerate(columns)]
    return Plot(
        fig=fig,
        alt=(f"Poziomy pasek długości {d_model} podzielony na {h} równych, kolorowych "
             f"odcinków po {d_k} wymiarów, ponumerowanych od 1 do {h}; "
             f"podziałka co {d_k}."),
        caption=(f"Bazowy Transformer: wektor tokenu o {d_model} wymiarach dzielony na h = {h} głów po "
                 f"dₖ = {d_k} wymiarów (Vaswani i in. 2017, §3.2.2)."),
        table=Table(header=["głowa", "pierwszy wymiar", "ostatni wymiar", "szerokość dₖ"],
                    rows=rows, formats=[None, "int", "int", "int"]),
    )


@figure
def head_weights(style) -> Plot:
    result = _toy()
    # 2 x 2 at a phone's width: tick labels only on the outer edges, one colour bar for all, under
    # the maps, so that the width it would take beside them goes to the cells' two-decimal numbers.
    fig, axes = plt.subplots(2, 2, figsize=(5.2, 6.4), layout="constrained")
    for i, ax in enumerate(axes.flat):
        image = heatmap(ax, result.weights[i], row_labels=TOKENS, col_labels=TOKENS, style=style,
                        decimals=2, vmin=0.0, vmax=1.0, title=f"głowa {i + 1}",
                        quantity="weights", colorbar=False,
                        xlabel="klucz" if i >= 2 else "", ylabel="zapytanie" if i % 2 == 0 else "")
        ax.tick_params(axis="x", labelrotation=45, rotation_mode="xtick", labelbottom=i >= 2)
        ax.tick_params(axis="y", labelleft=i % 2 == 0)
    bar = fig.colorbar(image, ax=axes, location="bottom", shrink=0.6, aspect=30, pad=0.03)
    bar.set_label("waga uwagi", color=style.fg)
    bar.outline.set_visible(False)
    bar.ax.tick_params(colors=style.fg, labelsize=9.5)
    rows = [[f"głowa {i + 1}: {TOKENS[r]}", *result.weights[i, r]]
            for i in range(TOY_HEADS) for r in range(len(TOKENS))]
    return Plot(
        fig=fig,
        alt=(f"Cztery mapy ciepła {len(TOKENS)} na {len(TOKENS)}, po jednej na głowę, dla "
             "zdania „długi korek stoi na autostradzie”. Każda głowa rozkłada uwagę inaczej: "
             "najwyższe wagi leżą w różnych miejscach, a ten sam token w różnych głowach patrzy "
             "najmocniej na różne słowa."),
        caption=(f"Wagi uwagi {TOY_HEADS} głów zabawkowego modelu (wektor tokenu: {TOY_D_MODEL} wymiarów, "
                 f"dₖ = {TOY_D_MODEL // TOY_HEADS}, losowe projekcje, bez maski)."),
        table=Table(header=["głowa: zapytanie"] + TOKENS, rows=rows,
                    formats=[None] + ["dec:2"] * len(TOKENS)),
    )
