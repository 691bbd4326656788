"""The articles' shared charts: the attention heatmap and the bar chart, with Polish labels.

`heatmap` draws a (queries x keys) matrix with the site's axis labels, hatches the cells a mask
blocks and colours each quantity by one policy (`QUANTITIES`: attention weights on 0..1, scores
diverging around 0 or, when none is negative, sequential from 0; each with its Polish colour-bar
label); `bar_chart` labels its bars as the text
shows the same values. They draw in a `Style` of anatomia_engine/plot.py.
Used by: figures_src/masking.py, multi_head.py, luong_bahdanau.py, rope_positions.py,
induction_training.py (heatmap); worked_example.py, induction_heads.py (heatmap, bar_chart).
Values: none (a module of chart helpers only; the article modules publish the figures).
"""

import matplotlib
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.patches import Rectangle

from anatomia_engine import messages as M
from anatomia_engine.numfmt import fmt_dec, fmt_pct
from anatomia_engine.plot import Style

# The one colour policy per quantity: (colour-map attribute of Style, colour-bar label).
QUANTITIES = {"weights": ("cmap", "waga uwagi"), "scores": ("cmap_scores", "ocena dopasowania")}


def heatmap(ax, matrix, row_labels, col_labels, *, style: Style, decimals: int = 2,
            blocked=None, xlabel: str = "klucz (na który token patrzymy)",
            ylabel: str = "zapytanie (token, który patrzy)", title: str | None = None,
            vmin: float | None = None, vmax: float | None = None, annotate: bool = True,
            quantity: str | None = None, colorbar: bool | None = None,
            colorbar_label: str | None = None):
    """Annotated heatmap of a (T_q, T_k) matrix (rows: queries); `blocked` cells are hatched.

    `quantity` picks the colour policy, with a colour bar unless colorbar=False: "weights" on 0..1 (equal
    weights, equal colours in every figure); "scores" diverging around 0, or sequential from 0 when
    every score is >= 0. None: the theme's map."""
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape != (len(row_labels), len(col_labels)):
        labels = f"{len(row_labels)} row labels x {len(col_labels)} column labels"
        raise ValueError(M.text("heatmap_labels", shape=m.shape, labels=labels))
    mask = np.zeros(m.shape, bool) if blocked is None else np.asarray(blocked, bool)
    if mask.shape != m.shape:
        raise ValueError(M.text("heatmap_blocked", blocked=mask.shape, shape=m.shape))
    if quantity is not None and quantity not in QUANTITIES:
        raise ValueError(M.text("heatmap_quantity", quantity=quantity, known=sorted(QUANTITIES)))
    shown = np.ma.masked_array(np.where(np.isfinite(m), m, 0.0), mask=mask)
    finite = m[~mask & np.isfinite(m)]
    if quantity == "weights":
        lo, hi = 0.0, 1.0
    elif quantity == "scores":
        hi = float(np.abs(finite).max()) if finite.size and np.abs(finite).max() > 0 else 1.0
        lo = -hi
    else:
        lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    lo, hi = lo if vmin is None else vmin, hi if vmax is None else vmax
    colours = getattr(style, QUANTITIES[quantity][0]) if quantity else style.cmap
    # Scores that are all >= 0 (and no scale asked to reach below 0): half of a diverging map would
    # stay unused and its second colour would suggest negative values, so the sequential map, from 0.
    if quantity == "scores" and vmin is None and (not finite.size or finite.min() >= 0):
        colours, lo = style.cmap, 0.0
    cmap = matplotlib.colormaps[colours]
    image = ax.imshow(shown, cmap=cmap, vmin=lo, vmax=hi, aspect="equal")
    if quantity is not None and colorbar is not False:
        bar = ax.figure.colorbar(image, ax=ax, shrink=0.8, pad=0.03)
        bar.set_label(colorbar_label or QUANTITIES[quantity][1], color=style.fg)
        bar.outline.set_visible(False)
        bar.ax.tick_params(colors=style.fg, labelsize=9.5)   # >= 8 CSS px on a phone at 5,4 in
    # add_artist keeps the data limits; an opaque tint (a translucent face fades its hatch in print),
    # also behind the cell's number, which the hatch would cross. One collection for every blocked
    # cell: a 20 x 20 causal mask as 190 patches cost 0,1 s of CPU per figure and theme.
    tint = style.tint
    cells = [Rectangle((j - 0.5, i - 0.5), 1, 1) for i, j in zip(*np.nonzero(mask), strict=True)]
    if cells:
        ax.add_artist(PatchCollection(cells, facecolor=tint, hatch="///", hatchcolor=style.hatch,
                                      edgecolor="none", linewidth=0))
    for i, j in np.ndindex(m.shape if annotate else (0, 0)):
        colour = style.fg if mask[i, j] else style.ink_on(image.cmap(image.norm(shown[i, j])))
        ax.text(j, i, fmt_dec(m[i, j], decimals, allow_inf=True), ha="center", va="center", color=colour,
                fontsize=9, bbox={"facecolor": tint, "edgecolor": "none", "pad": 1.5} if mask[i, j] else None)
    ax.set_xticks(range(len(col_labels)), labels=list(col_labels))
    ax.set_yticks(range(len(row_labels)), labels=list(row_labels))
    ax.tick_params(length=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.spines[:].set_visible(False)
    return image


def bar_chart(ax, labels, heights, *, style: Style, decimals: int = 2, percent: bool = False,
              highlight: int | None = None, ylabel: str = ""):
    """Vertical bars with value labels in the site's format; `highlight` marks one bar."""
    heights = np.asarray(heights, dtype=float)
    colours = [style.accent2 if i == highlight else style.accent for i in range(len(heights))]
    bars = ax.bar(range(len(heights)), heights, color=colours)
    shown = fmt_pct if percent else fmt_dec    # a bar's label reads as the text's pct(n) or dec(n)
    ax.bar_label(bars, fmt=lambda h: shown(h, decimals), padding=3, color=style.fg)
    ax.set_xticks(range(len(labels)), labels=list(labels))
    ax.set_ylabel(ylabel)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_ylim(0, max(heights.max() * 1.18, 1e-12))
    return bars
