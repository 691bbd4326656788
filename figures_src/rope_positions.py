"""Positions: why attention needs them, and rotary position embeddings (RoPE).

Page: docs/posty/posts/llm-mechanizm-uwagi.md (section "Skąd uwaga wie, gdzie stoi słowo").

Inputs: `SEED`; for the order test three random token vectors of width `D_ORDER` used as
queries, keys and values (identity projections: only the order matters); for RoPE a random
query q and key k of width `D_ROPE`, positions 0..`N_POS`-1, base `ROPE_BASE` = 10000 (Su et al.
2021); `LLAMA3_ROPE_BASE` = 500000 (quoted: the Llama 3 models raise the base, Grattafiori et
al. 2024).

Values: `pos_perm_diff_plain` (largest change of the last token's output when the two earlier
tokens swap places, no positions: 0 up to rounding), `pos_perm_diff_rope` (the same with RoPE
applied to queries and keys), `rope_d`, `rope_base`, `rope_n_pos`, `rope_theta` (d/2
frequencies), `rope_angle_first` (the angle of the fastest pair per position: 1 rad),
`rope_norm_change` (largest |‖rope(x)‖ − ‖x‖|: 0 up to rounding), `rope_scores` (N_POS, N_POS)
q·k with q at position m and k at position n, `rope_same_offset_spread` (largest spread
max − min of the scores over pairs (m, n) with the same offset m − n), `rope_offset_range`
(range of the scores over different offsets), `rope_offset_example` (offset shown in the text),
`rope_score_a`, `rope_score_b` (the score at that offset for two different position pairs,
`rope_pos_a`, `rope_pos_b`), `llama3_rope_base` (quoted).
Figures: `rope_rotation` (the first coordinate pair of q rotated at positions 0..5),
`rope_offset_scores` (q·k for every pair of positions: constant along diagonals).
"""

from __future__ import annotations

import functools

import numpy as np

from anatomia_engine.kit import Plot, Table, Value, figure, values
from anatomia_engine.plot import new_figure
from attn_core import rope, scaled_dot_product_attention
from figures_src._shared.charts import heatmap

SEED = 2104  # arXiv:2104.09864 (RoFormer)
D_ORDER = 4
D_ROPE = 8
N_POS = 12
ROPE_BASE = 10000.0
LLAMA3_ROPE_BASE = 500000.0   # "rope_theta": 500000.0 in the Llama 3 configurations
OFFSET = 3
POS_A, POS_B = (3, 0), (11, 8)    # two (query, key) position pairs with the same offset
N_ARROWS = 6


@functools.cache
def _draws():
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((3, D_ORDER))                            # (T, d) three tokens
    q = rng.standard_normal(D_ROPE)                                  # (d,)
    k = rng.standard_normal(D_ROPE)                                  # (d,)
    return x, q, k


def last_output(x: np.ndarray, with_rope: bool) -> np.ndarray:
    """Output of the last token of causal self-attention on x (T, d), q = k = v = x."""
    t = x.shape[0]
    q = rope(x, np.arange(t), ROPE_BASE) if with_rope else x
    k = q
    mask = np.triu(np.full((t, t), -np.inf), 1)
    return scaled_dot_product_attention(q, k, x, mask=mask).output[-1]


@functools.cache
def scores() -> np.ndarray:
    """(N_POS, N_POS): rope(q at position m) · rope(k at position n)."""
    _, q, k = _draws()
    pos = np.arange(N_POS)
    qs = rope(np.tile(q, (N_POS, 1)), pos, ROPE_BASE)                # (P, d)
    ks = rope(np.tile(k, (N_POS, 1)), pos, ROPE_BASE)                # (P, d)
    return qs @ ks.T                                                 # (P, P)


@values
def positions() -> dict:
    x, q, _ = _draws()
    swapped = x[[1, 0, 2]]
    s = scores()
    offsets = np.subtract.outer(np.arange(N_POS), np.arange(N_POS))  # m - n
    spreads = [np.ptp(s[offsets == o]) for o in range(-(N_POS - 1), N_POS)]
    means = [s[offsets == o].mean() for o in range(-(N_POS - 1), N_POS)]
    rotated = rope(np.tile(q, (N_POS, 1)), np.arange(N_POS), ROPE_BASE)
    return {
        "pos_perm_diff_plain": float(np.max(np.abs(last_output(x, False)
                                                   - last_output(swapped, False)))),
        "pos_perm_diff_rope": float(np.max(np.abs(last_output(x, True)
                                                  - last_output(swapped, True)))),
        "rope_d": D_ROPE,
        "rope_base": ROPE_BASE,
        "rope_n_pos": N_POS,
        "rope_theta": ROPE_BASE ** (-np.arange(D_ROPE // 2) * 2.0 / D_ROPE),
        "rope_angle_first": 1.0,
        "rope_norm_change": float(np.max(np.abs(np.linalg.norm(rotated, axis=1)
                                                - np.linalg.norm(q)))),
        "rope_scores": s,
        "rope_same_offset_spread": float(max(spreads)),
        "rope_offset_range": float(np.ptp(means)),
        "rope_offset_example": OFFSET,
        "rope_pos_a": np.array(POS_A),
        "rope_pos_b": np.array(POS_B),
        "rope_score_a": float(s[POS_A]),
        "rope_score_b": float(s[POS_B]),
        "llama3_rope_base": Value(LLAMA3_ROPE_BASE, cite="Grattafiori i in. (2024)",
                                  what="podstawa częstotliwości RoPE w modelach Llama 3"),
    }


def _label_outward(a: float, b: float) -> dict:
    """Placement of an arrow tip's label beyond the tip, clear of the circle and the axes."""
    dx, dy = np.array([a, b]) / np.hypot(a, b)
    return {"xytext": (6 * dx + (3 if dx >= 0 else -3), 6 * dy), "ha": "left" if dx >= 0 else "right",
            "va": "center" if abs(dy) < 0.5 else "bottom" if dy > 0 else "top"}


@figure
def rope_rotation(style) -> Plot:
    _, q, _ = _draws()
    pos = np.arange(N_ARROWS)
    rotated = rope(np.tile(q, (N_ARROWS, 1)), pos, ROPE_BASE)[:, :2]  # first pair only
    fig, ax = new_figure(style, size=(4.2, 4.0))
    radius = float(np.linalg.norm(q[:2]))
    circle = np.linspace(0, 2 * np.pi, 200)
    ax.plot(radius * np.cos(circle), radius * np.sin(circle), color=style.grid, linewidth=1)
    for m, (a, b) in zip(pos, rotated, strict=True):
        colour = style.accent if m else style.accent2
        ax.annotate("", xy=(a, b), xytext=(0, 0),
                    arrowprops={"arrowstyle": "-|>", "color": colour, "linewidth": 1.4})
        ax.annotate(f"m = {m}", (a, b), color=style.fg, fontsize=9, textcoords="offset points",
                    **_label_outward(a, b))
    lim = 1.45 * radius
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.axhline(0, color=style.grid, linewidth=0.6)
    ax.axvline(0, color=style.grid, linewidth=0.6)
    ax.set_xlabel("współrzędna 0 zapytania")
    ax.set_ylabel("współrzędna 1 zapytania")
    ax.spines[["top", "right"]].set_visible(False)
    rows = [[int(m), float(a), float(b), float(m * 1.0)] for m, (a, b) in zip(pos, rotated, strict=True)]
    return Plot(
        fig=fig,
        alt=(f"Okrąg i {N_ARROWS} strzałek wychodzących ze środka: pierwsza para współrzędnych "
             f"tego samego zapytania na pozycjach od 0 do {N_ARROWS - 1}. Każda kolejna pozycja "
             "obraca strzałkę o ten sam kąt (1 radian), a długość strzałki się nie zmienia."),
        caption=("RoPE obraca każdą parę współrzędnych zapytania (i klucza) o kąt proporcjonalny "
                 "do pozycji; tu najszybsza para, 1 radian na pozycję."),
        table=Table(header=["pozycja m", "współrzędna 0", "współrzędna 1", "kąt (rad)"],
                    rows=rows, formats=["int", "dec:3", "dec:3", "dec:0"]),
    )


@figure
def rope_offset_scores(style) -> Plot:
    s = scores()
    labels = [str(i) for i in range(N_POS)]
    fig, ax = new_figure(style, size=(5.0, 4.3))
    heatmap(ax, s, labels, labels, style=style, annotate=False, quantity="scores",
            colorbar_label="ocena q·k po obrocie",
            xlabel="pozycja klucza n", ylabel="pozycja zapytania m")
    rows = [[int(m), *map(float, s[m])] for m in range(N_POS)]
    return Plot(
        fig=fig,
        alt=(f"Mapa ciepła {N_POS} na {N_POS}: ocena dopasowania tego samego zapytania i tego "
             "samego klucza po obrocie RoPE, dla każdej pary pozycji (wiersz: pozycja zapytania, "
             "kolumna: pozycja klucza). Kolory są stałe wzdłuż każdej przekątnej: ocena zależy "
             "tylko od odległości m − n, nie od samych pozycji."),
        caption=(f"Te same q i k (d = {D_ROPE}) na wszystkich parach pozycji 0–{N_POS - 1}: po "
                 "obrocie RoPE ocena zależy tylko od przesunięcia m − n (stała wzdłuż przekątnych)."),
        table=Table(header=["m \\ n", *labels], rows=rows, formats=["int", *["dec:3"] * N_POS]),
    )
