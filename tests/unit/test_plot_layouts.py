"""plot.Layouts: a figure's second theme reuses the constrained layout of its first, and publishes
exactly the SVG constrained layout would have given it; a figure whose themes differ is laid out anew.
plot.to_svg draws a figure once and writes what savefig (which draws it twice) writes."""

import io

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from anatomia_engine import plot
from figures_src._shared.charts import heatmap

TOKENS = ["kot", "goni", "mysz"]
WEIGHTS = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])


def weights_figure(style, title="Wagi"):
    fig, ax = plot.new_figure(style, size=(4.0, 3.2))
    heatmap(ax, WEIGHTS, TOKENS, TOKENS, style=style, quantity="weights", title=title)
    return fig


def two_panels(style, title="Wagi"):
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(4.0, 5.0), layout="constrained")
    top.plot([1, 10, 100], [0.5, 0.25, 0.125], label="spadek")
    top.set_yscale("log")
    top.legend()
    heatmap(bottom, WEIGHTS, TOKENS, TOKENS, style=style, quantity="weights", title=title)
    fig.legend(loc="outside upper center")
    return fig


def svgs(draw, layouts=None, titles=("Wagi", "Wagi")):
    """The SVG of `draw` in each theme, through `layouts` (None: constrained layout in each)."""
    out = []
    for style, title in zip(plot.STYLES, titles, strict=True):
        with matplotlib.rc_context({**style.rc(), "svg.hashsalt": f"test.{style.name}"}):
            fig = draw(style, title=title)
            plot.use_decimal_comma(fig)
            out.append(layouts.svg(fig, draw.__name__) if layouts else plot.to_svg(fig))
            engine = fig.get_layout_engine()
            plt.close(fig)
    return out, engine


@pytest.mark.parametrize("draw", [weights_figure, two_panels])
def test_second_theme_is_byte_identical_to_its_own_constrained_layout(draw):
    before, _ = svgs(draw)
    after, engine = svgs(draw, plot.Layouts())
    assert after == before
    assert isinstance(engine, plot.ReplayedLayout)   # the layout was reused, not worked out again


def test_themes_that_differ_in_geometry_are_laid_out_anew():
    titles = ("Wagi", "Wagi uwagi po masce, dłuższy tytuł tylko w ciemnym motywie")
    before, _ = svgs(weights_figure, titles=titles)
    after, engine = svgs(weights_figure, plot.Layouts(), titles=titles)
    assert after == before
    assert not isinstance(engine, plot.ReplayedLayout)


def test_geometry_sets_aside_colours_ids_and_pixels_only():
    (light, dark), _ = svgs(weights_figure)
    assert light != dark
    assert plot.geometry(light) == plot.geometry(dark)
    moved = light.replace('x="', 'x="1', 1)
    assert plot.geometry(moved) != plot.geometry(light)
    assert plot.geometry(light.replace(">kot<", ">pies<")) != plot.geometry(light)
    assert plot.geometry(light.replace("font-size: 9px", "font-size: 8px")) != plot.geometry(light)


def shared_colour_bar(style, title="Wagi"):
    """Two heatmaps of fixed aspect and one colour bar for both: where they sit depends on each axes
    being put at its aspect before the layout is worked out."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(4.6, 7.0), layout="constrained")
    image = heatmap(top, WEIGHTS, TOKENS, TOKENS, style=style, quantity="weights", colorbar=False,
                    title=title, blocked=np.triu(np.ones((3, 3), bool), 1))
    heatmap(bottom, WEIGHTS.T, TOKENS, TOKENS, style=style, quantity="weights", colorbar=False,
            title="bez maski")
    bar = fig.colorbar(image, ax=[top, bottom], shrink=0.6, pad=0.03)
    bar.set_label("waga uwagi")
    fig.align_ylabels([top, bottom])
    return fig


def savefig_svg(fig) -> str:
    """matplotlib's own SVG of `fig` (savefig lays it out in a draw without output, then draws it)."""
    out = io.StringIO()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    return out.getvalue()


def resized_when_drawn(style, title="Wagi"):
    """A figure that changes itself when drawn: savefig's first draw changes what it writes."""
    fig = weights_figure(style, title)
    heading = fig.axes[0].title
    fig.canvas.mpl_connect("draw_event", lambda _event: heading.set_fontsize(heading.get_fontsize() + 1))
    return fig


def test_a_figure_that_changes_when_drawn_is_saved_as_savefig_saves_it():
    made = []
    for save in (savefig_svg, plot.to_svg):
        with matplotlib.rc_context({**plot.LIGHT.rc(), "svg.hashsalt": "test"}):
            fig = resized_when_drawn(plot.LIGHT)
            made.append(save(fig))
            plt.close(fig)
    assert made[0] == made[1]


@pytest.mark.parametrize("draw", [weights_figure, two_panels, shared_colour_bar])
@pytest.mark.parametrize("style", plot.STYLES, ids=lambda style: style.name)
def test_to_svg_lays_out_once_and_writes_what_savefig_writes(draw, style, monkeypatch):
    # the figure's draws counted (a draw_event callback would make to_svg save as savefig does)
    draws = []
    real_draw = matplotlib.figure.Figure.draw

    def counted(fig, renderer):
        draws.append(fig)
        return real_draw(fig, renderer)

    monkeypatch.setattr(matplotlib.figure.Figure, "draw", counted)
    made = []
    for save in (savefig_svg, plot.to_svg):
        with matplotlib.rc_context({**style.rc(), "svg.hashsalt": "test"}):
            fig = draw(style)
            plot.use_decimal_comma(fig)
            draws.clear()
            made.append((save(fig), len(draws), fig.get_layout_engine()))
            plt.close(fig)
    (expected, savefig_draws, _), (svg, draws, engine) = made
    assert svg == expected
    assert (savefig_draws, draws) == (2, 1)
    assert isinstance(engine, matplotlib.layout_engine.ConstrainedLayoutEngine)   # kept for a next save
