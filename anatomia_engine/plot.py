"""Plot machinery: the light and dark styles, a figure factory, the decimal comma of tick labels.

The worker calls each figure function once per `Style`, inside `matplotlib.rc_context(style.rc())`.
"""

import re
from dataclasses import dataclass

import matplotlib
import matplotlib.pyplot as plt
from matplotlib import ticker

from anatomia_engine.numfmt import SUPERSCRIPT

matplotlib.use("Agg")


@dataclass(frozen=True)
class Style:
    """Colours of one theme; `name` is 'light' or 'dark'."""

    name: str
    fg: str
    bg: str
    muted: str
    grid: str
    accent: str
    accent2: str
    cmap: str
    blocked: str
    hatch: str
    cmap_scores: str = "RdBu_r"

    def rc(self) -> dict:
        """rcParams for this theme: transparent background, text kept as text in the SVG."""
        return {
            "svg.fonttype": "none", "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"],
            "font.size": 10.5,   # a 6 in figure's default text is still 8 CSS px on a 375 px phone
            "figure.facecolor": "none", "axes.facecolor": "none", "savefig.facecolor": "none",
            "savefig.transparent": True, "text.color": self.fg, "axes.labelcolor": self.fg,
            "axes.edgecolor": self.muted, "axes.titlecolor": self.fg, "xtick.color": self.fg,
            "ytick.color": self.fg, "grid.color": self.grid, "legend.frameon": False,
            "axes.prop_cycle": matplotlib.cycler(color=[self.accent, self.accent2, self.muted]),
            "path.simplify": False,
        }


LIGHT = Style("light", fg="#1f2328", bg="#ffffff", muted="#6e7781", grid="#d0d7de",
              accent="#3f51b5", accent2="#e3711b", cmap="Blues", blocked="#9aa0a6", hatch="#4b535d")
DARK = Style("dark", fg="#e6edf3", bg="#1e2129", muted="#8b949e", grid="#3d444d",
             accent="#8c9eff", accent2="#ffab40", cmap="viridis", blocked="#5c6370", hatch="#b8c0ca",
             cmap_scores="berlin")   # a dark centre: zero scores are not glaring white cells
STYLES = (LIGHT, DARK)


def new_figure(style: Style, size: tuple[float, float] = (5.0, 3.5), ncols: int = 1, **kw):
    """A figure with `ncols` axes in the given style; returns (fig, ax) or (fig, axes)."""
    return plt.subplots(1, ncols, figsize=size, layout="constrained", **kw)


_NUMERIC_FORMATTERS = (ticker.ScalarFormatter, ticker.FormatStrFormatter, ticker.StrMethodFormatter,
                       ticker.PercentFormatter, ticker.LogFormatter)


def plain_number(text: str) -> str:
    """A tick label with the decimal comma, a log axis's mathtext label as plain text: '2×10⁴'."""
    mathtext = re.fullmatch(r"\$\\mathdefault\{(.*)\}\$", text)
    if mathtext:
        power = re.sub(r"\^\{([^{}]*)\}", lambda m: m.group(1).translate(SUPERSCRIPT), mathtext.group(1))
        text = power.replace("\\times", "×").replace("-", "−")
    return text.replace(".", ",")


class _Relabel(ticker.Formatter):
    """Another tick formatter's labels and offset, with `plain_number`."""

    def __init__(self, inner: ticker.Formatter) -> None:
        self.inner = inner

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs) -> None:
        self.inner.set_locs(locs)

    def __call__(self, x, pos=None) -> str:
        return plain_number(self.inner(x, pos))

    def get_offset(self) -> str:
        return plain_number(self.inner.get_offset())


def use_decimal_comma(fig) -> None:
    """Give every numeric tick label of `fig` the site's decimal comma (0,5 not 0.5)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if isinstance(axis.get_major_formatter(), _NUMERIC_FORMATTERS):   # a _Relabel is none of them
                axis.set_major_formatter(_Relabel(axis.get_major_formatter()))
            if isinstance(axis.get_minor_formatter(), _NUMERIC_FORMATTERS):
                axis.set_minor_formatter(_Relabel(axis.get_minor_formatter()))
