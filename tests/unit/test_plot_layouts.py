"""plot.Layouts: a figure's second theme reuses the constrained layout of its first, and publishes
exactly the SVG constrained layout would have given it; a figure whose themes differ is laid out anew."""

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
