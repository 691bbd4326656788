"""Figure text: no text is crossed by a drawn line or marker, heatmap cell numbers keep clear space
between them, and every number has the decimal comma. Every `@figure` of every figures_src module,
drawn once: a figure's text and layout do not depend on the colour scheme (the styles differ in
colours only), so the light style stands for both.

A label, an annotation or a legend that a curve runs through is hard to read ("log V = 3,47" on
its dashed line, a legend under a rising curve). The check works in display coordinates: each
text's and legend's box (`get_window_extent`) against each `Line2D` path and each scatter marker,
as drawn. Lines are clipped to their axes first, as on the page. `Figure.draw_without_rendering` lays out
the text (tick labels exist only after a draw) with the same boxes as an Agg draw, without the pixels.

Boxes that do not overlap can still nearly touch ("0,020,32" reads as one number): the cell numbers
of an axes with an image keep half their font size from their neighbours in a row or column,
measured in the figure's points, so it scales with the text wherever the picture is shown.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
import re

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.transforms import Bbox

import figures_src
from anatomia_engine.kit import KIND
from anatomia_engine.plot import LIGHT, new_figure, use_decimal_comma
from figures_src._shared.charts import heatmap

FIGURES = [(module.name, name)
           for module in pkgutil.iter_modules(figures_src.__path__)
           for name, fn in vars(importlib.import_module(f"figures_src.{module.name}")).items()
           if getattr(fn, KIND, None) == "figure"]


def text_boxes(fig):
    """(what, display box) of every visible text and legend of `fig`."""
    for ax in fig.axes:
        for text in ax.texts:
            if text.get_visible() and text.get_text().strip():
                yield repr(text.get_text()), text.get_window_extent()
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            yield "legend", legend.get_window_extent()
    for legend in fig.legends:
        yield "legend", legend.get_window_extent()


def crossings(fig) -> list[str]:
    """Texts of `fig` (drawn) that a line or a scatter marker passes through, as 'text × artist'."""
    found = []
    for what, box in text_boxes(fig):
        for ax in fig.axes:
            inside = Bbox.intersection(box, ax.bbox)
            if inside is None:
                continue
            for line in ax.lines:
                path = line.get_transform().transform_path(line.get_path())
                if line.get_linestyle() in ("None", "", " "):
                    hit = any(inside.contains(x, y) for x, y in path.vertices)
                else:
                    hit = path.intersects_bbox(inside, filled=False)
                if line.get_visible() and hit:
                    found.append(f"{what} × line {line.get_label()!r}")
            for points in ax.collections:
                if not hasattr(points, "get_offsets") or not len(points.get_offsets()):
                    continue
                shown = points.get_offset_transform().transform(points.get_offsets())
                if points.get_visible() and any(inside.contains(x, y) for x, y in shown):
                    found.append(f"{what} × markers {points.get_label()!r}")
    return found


MIN_GAP_EM = 0.5       # half the numbers' font size between two neighbouring cell numbers


def crowded(fig) -> list[str]:
    """Pairs of cell numbers of `fig` (drawn; texts of an axes with an image) closer than MIN_GAP_EM."""
    points = 72 / fig.dpi
    found = []
    for ax in fig.axes:
        if not ax.images:
            continue
        texts = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        for a, b in itertools.combinations(texts, 2):
            box_a, box_b = a.get_window_extent(), b.get_window_extent()
            across = max(box_b.x0 - box_a.x1, box_a.x0 - box_b.x1)
            down = max(box_b.y0 - box_a.y1, box_a.y0 - box_b.y1)
            if (across < 0) == (down < 0):
                continue          # diagonal neighbours, or overlapping (a crossing's domain)
            gap = max(across, down) * points
            if gap < MIN_GAP_EM * min(a.get_fontsize(), b.get_fontsize()):
                found.append(f"{a.get_text()!r} {b.get_text()!r}: {gap:.1f} pt apart")
    return found


def dotted_numbers(fig) -> list[str]:
    """Texts of `fig` (drawn) with a number written with a decimal point ('0.5'); "Llama 3.1" is a
    name, not a number."""
    texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    return [t for t in texts if re.search(r"\d\.\d", re.sub(r"Llama \d\.\d", "", t))]


@pytest.mark.parametrize(("module", "name"), FIGURES)
def test_no_text_is_crossed_or_crowded_and_numbers_have_the_decimal_comma(module, name):
    fn = getattr(importlib.import_module(f"figures_src.{module}"), name)
    with matplotlib.rc_context(LIGHT.rc()):
        plot = fn(LIGHT)
        use_decimal_comma(plot.fig)   # as the module run does before saving
        try:
            plot.fig.draw_without_rendering()
            assert dotted_numbers(plot.fig) == [], f"figures_src/{module}.py {name}"
            assert crossings(plot.fig) == [], f"figures_src/{module}.py {name}"
            assert crowded(plot.fig) == [], f"figures_src/{module}.py {name}"
        finally:
            plt.close(plot.fig)


def test_the_check_sees_a_crossed_legend_and_a_label_on_its_line():
    with matplotlib.rc_context(LIGHT.rc()):
        fig, ax = new_figure(LIGHT)
        ax.plot([0, 1], [0, 1], label="rośnie")
        ax.axhline(0.5, color=LIGHT.muted)
        ax.annotate("na linii", (0.2, 0.5), ha="left", va="center")
        ax.scatter([0.8], [0.1], label="punkt")
        ax.text(0.8, 0.1, "na punkcie", ha="center", va="center")
        ax.legend(loc="center")
        try:
            fig.draw_without_rendering()
            dotted = dotted_numbers(fig)
            found = crossings(fig)
        finally:
            plt.close(fig)
    assert any(f.startswith("'na linii' × line") for f in found), found
    assert any(f.startswith("'na punkcie' × markers") for f in found), found
    assert any(f.startswith("legend × line 'rośnie'") for f in found), found
    assert "0.2" in dotted and "1.0" in dotted, dotted   # ticks drawn without use_decimal_comma
    assert len(FIGURES) > 20, FIGURES


def test_the_check_sees_heatmap_numbers_that_nearly_touch():
    labels = list("abcdefgh")
    with matplotlib.rc_context(LIGHT.rc()):
        fig, ax = new_figure(LIGHT, size=(2.5, 2.5))
        heatmap(ax, np.full((8, 8), 0.25), labels, labels, style=LIGHT, quantity="weights")
        try:
            fig.draw_without_rendering()
            found = crowded(fig)
        finally:
            plt.close(fig)
    assert any("'0,25' '0,25'" in f for f in found), found
