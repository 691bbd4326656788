"""Plot machinery: the light and dark styles, a figure factory, the decimal comma of tick labels, and
the SVG of a figure (`Layouts`: a figure's layout worked out in its first theme, reused in the next).

The worker calls each figure function once in the neutral style (themes.py) and, if the figure is not
neutral, once per `Style`, inside `matplotlib.rc_context(style.rc())`. A figure function takes its
colours from the style it is given: its attributes, its colour maps (`cmap`, `cmap_scores`), `tint`
and `ink_on`.
"""

import io
import re
from dataclasses import dataclass

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.colors import to_hex, to_rgb
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine, LayoutEngine
from matplotlib.transforms import Bbox

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

    @property
    def tint(self) -> str:
        """The opaque face of a cell a mask blocks: the blocked colour faded into the background."""
        mixed = 0.35 * np.array(to_rgb(self.blocked)) + 0.65 * np.array(to_rgb(self.bg))
        return to_hex(mixed)

    def ink_on(self, rgba) -> str:
        """The text colour that reads on a cell of colour `rgba`: black on light cells, else white."""
        r, g, b = to_rgb(rgba)
        if 0.299 * r + 0.587 * g + 0.114 * b > 0.55:
            return "#000000"
        return "#ffffff"


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


def _superscript(exponent: re.Match) -> str:
    return exponent[1].translate(SUPERSCRIPT)


def plain_number(text: str) -> str:
    """A tick label with the decimal comma, a log axis's mathtext label as plain text: '2×10⁴'."""
    mathtext = re.fullmatch(r"\$\\mathdefault\{(.*)\}\$", text)
    if mathtext:
        # the SVG keeps text as text: mathtext markup would reach the reader as written
        power = re.sub(r"\^\{([^{}]*)\}", _superscript, mathtext.group(1))
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


# ---------------------------------------------------------------------------------------------
# A figure's SVG, its layout reused from the first theme
# ---------------------------------------------------------------------------------------------

# What a theme changes in an SVG: colours and opacities (in attributes and in `style`), the pixels of
# an embedded image (a colour map) and the ids matplotlib derives from the theme's hash salt.
_PAINTS = "fill|stroke|stop-color|fill-opacity|stroke-opacity|opacity"
_PAINT_DECLARATION = re.compile(rf"(?:^|;)\s*(?:{_PAINTS})\s*:[^;]*")
_PAINT_ATTRIBUTE = re.compile(rf'\s(?:{_PAINTS})="[^"]*"')
_IMAGE_DATA = re.compile(r'"data:image/[a-z]+;base64,[^"]*"')
_REFERENCE = re.compile(r'(\s(?:id|clip-path|xlink:href|href|mask)=)"[^"]*"')
_URL = re.compile(r"url\(#[^)]*\)")
_STYLE = re.compile(r'style="([^"]*)"')


def _unpainted(style: re.Match) -> str:
    declarations = _PAINT_DECLARATION.sub("", style[1]).strip("; ")
    return f'style="{declarations}"'


def geometry(svg: str) -> str:
    """`svg` without what a theme changes: what is left is where every element is drawn, its size,
    text and font. Two themes of one figure laid out alike give the same geometry."""
    svg = _IMAGE_DATA.sub('""', svg)
    svg = _REFERENCE.sub(r'\1""', svg)
    svg = _URL.sub("url()", svg)
    svg = _PAINT_ATTRIBUTE.sub("", svg)
    return _STYLE.sub(_unpainted, svg)


class ReplayedLayout(LayoutEngine):
    """Puts every axes where constrained layout put it in another theme of the same figure."""

    # as constrained layout: colorbars steal space from their axes (make_axes, not a gridspec)
    _adjust_compatible = False
    _colorbar_gridspec = False

    def __init__(self, positions: list[Bbox]) -> None:
        super().__init__()
        self.positions = positions

    def execute(self, fig: Figure) -> None:
        # Constrained layout sets both positions of each axes (colorbars' too); drawing then fits an
        # axes of fixed aspect into its original position, as it did in the first theme.
        for ax, position in zip(fig.axes, self.positions, strict=True):
            # set_position takes an axes out of any later layout; the fallback needs it kept in
            in_layout = ax.get_in_layout()
            ax.set_position(position, which="both")
            ax.set_in_layout(in_layout)


@dataclass
class _Laid:
    """A figure's layout in its first theme: its constrained layout parameters, figure size, the
    original position of each axes, and the geometry of its SVG."""

    params: dict
    size: tuple
    positions: list[Bbox]
    geometry: str


def _positions(fig: Figure) -> list[Bbox]:
    return [ax.get_position(original=True).frozen() for ax in fig.axes]


def _lay_out(fig: Figure, engine: LayoutEngine) -> None:
    """Run `fig`'s layout engine as savefig's first draw runs it: on an SVG canvas, at the SVG's 72 dpi
    (the sizes of texts are measured by the SVG renderer that will write them)."""
    canvas = fig.canvas
    dpi = fig.dpi
    # a canvas sets itself as the figure's
    FigureCanvasSVG(fig)
    try:
        fig.dpi = FigureCanvasSVG.fixed_dpi
        # Figure.draw puts every axes at its aspect before it lays the figure out
        # (Figure._get_draw_artists); axes of fixed aspect sharing a colour bar are placed otherwise
        renderer = fig._get_renderer()
        for ax in fig.axes:
            for axes in (ax, *(child for child in ax.get_children() if hasattr(child, "apply_aspect"))):
                locator = axes.get_axes_locator()
                axes.apply_aspect(locator(axes, renderer) if locator else None)
        engine.execute(fig)
    finally:
        fig.dpi = dpi
        fig.set_canvas(canvas)


def draw_callbacks(fig: Figure) -> list:
    """The functions matplotlib calls when `fig` is drawn (`mpl_connect("draw_event", …)`)."""
    connected = fig.canvas.callbacks.callbacks.get("draw_event", {})
    # each held by a reference that gives the function when called
    return [reference() for reference in connected.values()]


def to_svg(fig: Figure) -> str:
    """The SVG of `fig`: no date or creator, ids from the salt (rcParams' svg.hashsalt), so the same
    bytes on every machine and build.

    A figure with a layout engine is laid out first and saved without one: savefig would otherwise
    draw the whole figure twice, once without output to lay it out (print_figure's draw "to make
    sure CL works") and once to write it; a third of drawing a figure. The SVG is the same bytes.
    """
    out = io.StringIO()
    engine = fig.get_layout_engine()
    # a function called when the figure is drawn may change it: savefig's first draw then changes
    # what its second one writes, so such a figure is saved as savefig saves it
    if draw_callbacks(fig):
        engine = None
    if engine is not None:
        _lay_out(fig, engine)
        # (no engine at all: 'none' would leave a placeholder engine, and savefig's first draw)
        fig.set_layout_engine(None)
    try:
        fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    finally:
        if engine is not None:
            fig.set_layout_engine(engine)
    return out.getvalue()


class Layouts:
    """The SVGs of one module's figures, each figure's constrained layout worked out once.

    Constrained layout is the costliest part of drawing a figure (it measures every text and tick
    label, twice). A figure's themes differ only in colour, so the layout of its first theme fits
    the next: that theme's axes are put where the first's were. Its SVG is then compared with the
    first's without what a theme changes (`geometry`); a figure whose themes differ in anything else
    (a text only one of them shows) is laid out again by constrained layout, as it was drawn before.
    """

    def __init__(self) -> None:
        # one module's figures by name (the worker makes one Layouts per module run)
        self._first: dict[str, _Laid] = {}

    def svg(self, fig: Figure, name: str) -> str:
        """The SVG of figure `name` in the current theme (rcParams)."""
        engine = fig.get_layout_engine()
        if not isinstance(engine, ConstrainedLayoutEngine):
            return to_svg(fig)
        # An axes of fixed aspect that adjusts its data limits to fit (adjustable="datalim") ends with
        # other limits after the first theme's two layout passes: such a figure is laid out anew.
        if any(ax.get_adjustable() == "datalim" and ax.get_aspect() != "auto" for ax in fig.axes):
            return to_svg(fig)
        size = tuple(fig.get_size_inches())
        first = self._first.get(name)
        if first is None:
            svg = to_svg(fig)
            self._first[name] = _Laid(engine.get(), size, _positions(fig), geometry(svg))
            return svg
        # another size or grid: the first theme's positions would not even fit
        if (first.params, first.size, len(first.positions)) != (engine.get(), size, len(fig.axes)):
            return to_svg(fig)
        # Constrained layout starts from where the axes are: the fallback must start from there too.
        unplaced = _positions(fig)
        fig.set_layout_engine(ReplayedLayout(first.positions))
        svg = to_svg(fig)
        if geometry(svg) == first.geometry:
            return svg
        # this theme's own layout, from the same start: the SVG it was drawn with before
        ReplayedLayout(unplaced).execute(fig)
        fig.set_layout_engine(engine)
        return to_svg(fig)
