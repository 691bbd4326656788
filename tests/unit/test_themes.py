"""themes: a figure drawn once in the neutral style gives each theme the SVG the figure built in that
theme would have (its colours, its colour maps, the text colour on each cell); a figure that
shows a colour of its own, or asks for the theme's name, is not neutral and says so."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from themed_svgs import same_drawing, svg_of

from anatomia_engine import plot, themes
from anatomia_engine.kit import Plot, Table
from figures_src._shared.charts import bar_chart, heatmap

TOKENS = ["Ala", "ma", "kota", "."]
WEIGHTS = np.array([[1.0, 0.0, 0.0, 0.0], [0.4, 0.6, 0.0, 0.0], [0.2, 0.3, 0.5, 0.0],
                    [0.1, 0.2, 0.3, 0.4]])
SCORES = np.array([[2.5, -1.0, 0.3, -2.2], [0.0, 1.7, -0.4, 0.9], [-3.1, 0.2, 1.1, 0.6],
                   [0.8, -0.7, 2.9, -1.5]])


def weights_and_scores(style) -> Plot:
    """What the site's heatmaps hold: blocked cells (hatched, tinted), numbers on the cells, both
    colour policies with their colour bars, and a bar chart with one bar highlighted."""
    fig, (left, middle, right) = plot.new_figure(style, size=(9.0, 3.2), ncols=3)
    blocked = np.triu(np.ones((4, 4), bool), k=1)
    heatmap(left, WEIGHTS, TOKENS, TOKENS, style=style, blocked=blocked, quantity="weights")
    heatmap(middle, SCORES, TOKENS, TOKENS, style=style, quantity="scores")
    bar_chart(right, TOKENS, WEIGHTS[-1], style=style, highlight=3, percent=True)
    return Plot(fig=fig, alt="Wagi i oceny", caption="Wagi i oceny", table=Table(["x"], [["a"]]))


@pytest.mark.parametrize("style", plot.STYLES, ids=lambda style: style.name)
def test_a_heatmap_drawn_once_is_the_drawing_built_in_each_theme(style):
    neutral = svg_of(weights_and_scores, themes.NEUTRAL, "test")
    derived = themes.themed(neutral, style)
    assert same_drawing(derived, svg_of(weights_and_scores, style, "test")) == []


def test_the_themes_of_one_drawing_differ_in_colour_only():
    neutral = svg_of(weights_and_scores, themes.NEUTRAL, "test")
    light, dark = (themes.themed(neutral, style) for style in plot.STYLES)
    assert plot.LIGHT.fg in light and plot.DARK.fg in dark
    assert plot.DARK.fg not in light
    assert plot.geometry(light) == plot.geometry(dark)


def own_colour(style) -> Plot:
    fig, ax = plot.new_figure(style)
    ax.plot([0, 1], [1, 0], color="#1f77b4")
    return Plot(fig=fig, alt="Linia", caption="Linia", table=Table(["x"], [["a"]]))


def map_by_name(style) -> Plot:
    fig, ax = plot.new_figure(style)
    ax.imshow(WEIGHTS, cmap="viridis")
    return Plot(fig=fig, alt="Mapa", caption="Mapa", table=Table(["x"], [["a"]]))


@pytest.mark.parametrize("figure", [own_colour, map_by_name], ids=["own colour", "colour map by name"])
def test_a_colour_no_style_gave_is_not_neutral(figure):
    neutral = svg_of(figure, themes.NEUTRAL, "test")
    with pytest.raises(themes.NotNeutral):
        themes.themed(neutral, plot.LIGHT)


def test_the_neutral_style_has_no_theme_name_and_a_figure_cannot_hide_that():
    def hidden(style):
        try:
            return style.name
        except Exception:   # a figure's own handler: the question still reaches the worker
            return "light"

    with pytest.raises(themes.ThemeDependent):
        hidden(themes.NEUTRAL)


def test_text_on_a_colour_of_no_style_map_has_no_theme():
    with pytest.raises(themes.ThemeDependent):
        themes.NEUTRAL.ink_on("#1f77b4")


def test_the_text_on_a_cell_follows_each_theme_s_map():
    """The same cell value reads black on a light cell of one theme and white on a dark cell of
    the other (Blues is light at 0, viridis dark)."""
    cmap = plt.get_cmap(themes.NEUTRAL.cmap)
    marker = themes.NEUTRAL.ink_on(cmap(0))
    svg = f'<text style="fill: {marker}">0</text>'
    assert themes.themed(svg, plot.LIGHT) == '<text style="fill: #000000">0</text>'
    assert themes.themed(svg, plot.DARK) == '<text style="fill: #ffffff">0</text>'
