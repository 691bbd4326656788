"""Attention before the Transformer: Luong's three score functions and a Bahdanau alignment.

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Zanim powstał Transformer").

Inputs (toy numbers, hand-set here and nowhere else):
- Luong et al. (2015), arXiv:1508.04025, section 3.1: one decoder state `LUONG_H_T` and the
  source states `LUONG_H_S` of "Ala ma kota"; `LUONG_W_GENERAL` (W_a of "general"),
  `LUONG_W_CONCAT` and `LUONG_V_CONCAT` (W_a, v_a of "concat").
- Bahdanau et al. (2014), arXiv:1409.0473, appendix A.1.2: e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j)
  on the pair "Ala ma kota ." -> "Ala has a cat ."; states are concept vectors plus seeded noise,
  the last encoder coordinate is a constant 1 so that U_a can carry the bias.

Values:
- `luong_source` (list of str), `luong_target_word` (str), `luong_h_t` (d,), `luong_h_s` (S, d),
  `luong_w_general` (d, d), `luong_w_concat` (d_a, 2d), `luong_v_concat` (d_a,);
- `luong_dot_scores`, `luong_general_scores`, `luong_concat_scores` (S,) and the matching
  `luong_dot_weights`, `luong_general_weights`, `luong_concat_weights` (S,) (softmax);
- `luong_general_query` (d,) = h_t^T W_a; `luong_concat_pair` (2d,) = [h_t; h̄_3] and
  `luong_concat_hidden` (d_a,) = tanh(W_a [h_t; h̄_3]) for the last source word;
- `luong_table` (Table: a row per function with its scores, then its weights; a column per
  source word);
- `bahdanau_source`, `bahdanau_target` (lists of str), `bahdanau_weights` (T, S) alignment,
  `bahdanau_context` (T, d_h) context vectors, `bahdanau_article_max` (largest weight of "a").
Figures: `luong_weights` (weights of the three score functions), `bahdanau_alignment` (heatmap).
"""

from __future__ import annotations

import functools

import numpy as np

from anatomia_engine.kit import Plot, Table, figure, values
from anatomia_engine.numfmt import fmt_dec
from anatomia_engine.plot import new_figure
from attn_core import attend, bahdanau_additive, luong_concat, luong_dot, luong_general
from figures_src._shared.charts import heatmap

SEED = 2014  # the year of Bahdanau, Cho & Bengio

# --- Luong: one decoder state h_t (about to emit "cat") against three source states ---------
LUONG_SOURCE = ["Ala", "ma", "kota"]
LUONG_TARGET_WORD = "cat"
LUONG_H_T = np.array([0.8, 0.3])                                      # (d,)
LUONG_H_S = np.array([[0.2, 1.0],                                     # (S, d)
                      [-0.5, 0.3],
                      [1.0, 0.1]])
LUONG_W_GENERAL = np.array([[1.2, -0.4],                              # (d, d)
                            [0.3, 0.9]])
LUONG_W_CONCAT = np.array([[0.7, 0.2, 0.9, -0.3],                     # (d_a, 2d)
                           [-0.5, 0.8, 0.4, 1.1]])
LUONG_V_CONCAT = np.array([1.5, -0.8])                                # (d_a,)
LUONG_NAMES = {"dot": "dot", "general": "general", "concat": "concat"}

# --- Bahdanau: "Ala ma kota ." -> "Ala has a cat ." ------------------------------------------
BAHDANAU_SOURCE = ["Ala", "ma", "kota", "."]
BAHDANAU_TARGET = ["Ala", "has", "a", "cat", "."]
# Concepts: 0 = Ala, 1 = mieć/have, 2 = kot/cat, 3 = end of sentence. Each source word is one
# concept; each decoder state says which concepts the next English word needs. The article "a"
# has no Polish counterpart: its state is a mix of "ma" and "kota".
SOURCE_CONCEPT = [0, 1, 2, 3]
TARGET_NEEDS = np.array([[1.0, 0.0, 0.0, 0.0],                        # (T, C)
                         [0.0, 1.0, 0.0, 0.0],
                         [0.0, 0.45, 0.55, 0.0],
                         [0.0, 0.0, 1.0, 0.0],
                         [0.0, 0.0, 0.0, 1.0]])
STATE_SCALE = 2.0     # length of a concept vector
STATE_NOISE = 0.2     # std of the seeded noise added to every state
BIAS = -3.0           # U_a times the constant coordinate: tanh(s + h - 3) is high only on a match
V_SCALE = 3.0         # v_a = 3 * ones: sharpens the alignment


@functools.cache
def _luong() -> dict:
    scores = {
        "dot": luong_dot(LUONG_H_T, LUONG_H_S),
        "general": luong_general(LUONG_H_T, LUONG_H_S, LUONG_W_GENERAL),
        "concat": luong_concat(LUONG_H_T, LUONG_H_S, LUONG_W_CONCAT, LUONG_V_CONCAT),
    }
    weights = {name: attend(s, LUONG_H_S)[0] for name, s in scores.items()}  # softmax over S
    return {"scores": scores, "weights": weights}


@functools.cache
def _bahdanau() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Alignment weights (T, S), context vectors (T, d_h) and encoder states (S, d_h)."""
    rng = np.random.default_rng(SEED)
    n_concepts = TARGET_NEEDS.shape[1]
    concepts = STATE_SCALE * np.eye(n_concepts)[SOURCE_CONCEPT]                 # (S, C)
    noisy = concepts + rng.normal(0.0, STATE_NOISE, concepts.shape)
    h = np.hstack([noisy, np.ones((len(BAHDANAU_SOURCE), 1))])                  # (S, C + 1)
    s_prev = STATE_SCALE * TARGET_NEEDS + rng.normal(0.0, STATE_NOISE, TARGET_NEEDS.shape)
    w = np.eye(n_concepts)                                                       # (d_a, C)
    u = np.hstack([np.eye(n_concepts), np.full((n_concepts, 1), BIAS)])          # (d_a, C + 1)
    v = np.full(n_concepts, V_SCALE)                                             # (d_a,)
    scores = np.stack([bahdanau_additive(s, h, w, u, v) for s in s_prev])      # (T, S)
    weights, context = attend(scores, h)                                        # (T, S), (T, d_h)
    return weights, context, h


@values
def luong_values() -> dict:
    r = _luong()
    last = len(LUONG_SOURCE) - 1
    pair = np.concatenate([LUONG_H_T, LUONG_H_S[last]])                         # (2d,)
    # One row per function and quantity, one column per source word: narrow enough for the
    # collapsible block (Material gives every header cell a minimum width of 5rem).
    rows = [[f"{name}: {label}", *r[key][name]] for name in LUONG_NAMES
            for key, label in (("scores", "ocena"), ("weights", "waga"))]
    header = ["funkcja oceny", *LUONG_SOURCE]
    return {
        "luong_source": list(LUONG_SOURCE),
        "luong_target_word": LUONG_TARGET_WORD,
        "luong_h_t": LUONG_H_T,
        "luong_h_s": LUONG_H_S,
        "luong_w_general": LUONG_W_GENERAL,
        "luong_w_concat": LUONG_W_CONCAT,
        "luong_v_concat": LUONG_V_CONCAT,
        **{f"luong_{name}_scores": r["scores"][name] for name in LUONG_NAMES},
        **{f"luong_{name}_weights": r["weights"][name] for name in LUONG_NAMES},
        "luong_general_query": LUONG_H_T @ LUONG_W_GENERAL,                       # (d,)
        "luong_concat_pair": pair,
        "luong_concat_hidden": np.tanh(LUONG_W_CONCAT @ pair),                   # (d_a,)
        "luong_table": Table(header=header, rows=rows,
                             formats=[None] + ["dec:2"] * len(LUONG_SOURCE)),
    }


@values
def bahdanau_values() -> dict:
    weights, context, _ = _bahdanau()
    article = BAHDANAU_TARGET.index("a")
    return {
        "bahdanau_source": list(BAHDANAU_SOURCE),
        "bahdanau_target": list(BAHDANAU_TARGET),
        "bahdanau_weights": weights,
        "bahdanau_context": context,
        "bahdanau_article_max": float(weights[article].max()),
    }


@figure
def luong_weights(style) -> Plot:
    r = _luong()
    fig, ax = new_figure(style, size=(5.2, 3.2))
    colours = [style.accent, style.accent2, style.muted]
    n = len(LUONG_SOURCE)
    width = 0.26
    x = np.arange(n)
    for k, (name, colour) in enumerate(zip(LUONG_NAMES, colours, strict=True)):
        heights = r["weights"][name]
        bars = ax.bar(x + (k - 1) * width, heights, width, color=colour, label=name)
        for rect, height in zip(bars, heights, strict=True):
            ax.annotate(fmt_dec(height, 2), (rect.get_x() + rect.get_width() / 2, height),
                        xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                        fontsize=9, color=style.fg)
    ax.set_xticks(x, labels=LUONG_SOURCE)
    ax.set_ylabel("waga uwagi")
    ax.set_xlabel(f"słowo źródłowe (dekoder generuje „{LUONG_TARGET_WORD}”)")
    ax.set_ylim(0, 1)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(title="funkcja oceny", loc="upper left")
    rows = [[name] + list(r["weights"][name]) for name in LUONG_NAMES]
    return Plot(
        fig=fig,
        alt=("Wykres słupkowy: dla każdego z trzech słów źródłowych „Ala”, „ma”, „kota” trzy "
             "słupki – wagi uwagi według funkcji oceny dot, general i concat Luonga. We "
             "wszystkich trzech wariantach najwyższy słupek ma słowo „kota”, ale wagi różnią "
             "się między wariantami."),
        caption="Wagi uwagi trzech funkcji oceny Luonga dla tych samych stanów hₜ i h̄ₛ.",
        table=Table(header=["funkcja oceny"] + LUONG_SOURCE, rows=rows,
                    formats=[None] + ["dec:2"] * n),
    )


@figure
def bahdanau_alignment(style) -> Plot:
    weights, _, _ = _bahdanau()
    fig, ax = new_figure(style, size=(4.4, 4.2))
    heatmap(ax, weights, row_labels=BAHDANAU_TARGET, col_labels=BAHDANAU_SOURCE, style=style,
            decimals=2, vmin=0.0, vmax=1.0, quantity="weights",
            xlabel="słowo źródłowe (polskie)", ylabel="generowane słowo (angielskie)")
    rows = [[word] + list(row) for word, row in zip(BAHDANAU_TARGET, weights, strict=True)]
    return Plot(
        fig=fig,
        alt=("Mapa ciepła dopasowania w stylu Bahdanaua: wiersze to kolejne angielskie słowa "
             "„Ala has a cat .”, kolumny to polskie słowa „Ala ma kota .”. Najwyższe wagi układają "
             "się wzdłuż przekątnej: Ala–Ala, has–ma, cat–kota, kropka–kropka. Rodzajnik „a”, "
             "który nie ma polskiego odpowiednika, rozkłada uwagę głównie na „kota” i trochę "
             "na „ma”."),
        caption=("Wagi dopasowania uwagi addytywnej (Bahdanaua) przy tłumaczeniu „Ala ma kota .” "
                 "na „Ala has a cat .” (zabawkowe stany i wagi sieci)."),
        table=Table(header=["angielskie \\ polskie"] + BAHDANAU_SOURCE, rows=rows,
                    formats=[None] + ["dec:2"] * len(BAHDANAU_SOURCE)),
    )
