"""Heatmap cell numbers keep clear space between them: every `@figure` that calls `heatmap`.

Boxes that do not overlap can still nearly touch ("0,020,32" reads as one number). The check works
in display coordinates, as tests/unit/test_figure_lines.py does for lines: the box of each number
(`get_window_extent`) against its neighbours in the same row or column of the same axes, after the
figure's layout. The gap is measured in the figure's points, so it scales with the text wherever the
picture is shown.
"""

from __future__ import annotations

import importlib
import inspect
import itertools

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from anatomia_engine.plot import LIGHT, heatmap, new_figure, use_decimal_comma
from tests.unit.test_figure_lines import FIGURES

MIN_GAP_EM = 0.5       # half the numbers' font size between two neighbouring numbers


def _draws_heatmap(module: str, name: str) -> bool:
    return "heatmap(" in inspect.getsource(getattr(importlib.import_module(f"figures_src.{module}"), name))


HEATMAP_FIGURES = [(module, name) for module, name in FIGURES if _draws_heatmap(module, name)]


def crowded(fig) -> list[str]:
    """Pairs of cell numbers of `fig` (texts of an axes with an image) closer than MIN_GAP_EM."""
    fig.canvas.draw()
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
                continue          # diagonal neighbours, or overlapping (test_figure_lines' domain)
            gap = max(across, down) * points
            if gap < MIN_GAP_EM * min(a.get_fontsize(), b.get_fontsize()):
                found.append(f"{a.get_text()!r} {b.get_text()!r}: {gap:.1f} pt apart")
    return found


@pytest.mark.parametrize(("module", "name"), HEATMAP_FIGURES)
def test_heatmap_numbers_have_clear_space(module, name):
    fn = getattr(importlib.import_module(f"figures_src.{module}"), name)
    with matplotlib.rc_context(LIGHT.rc()):
        plot = fn(LIGHT)
        use_decimal_comma(plot.fig)
        try:
            assert crowded(plot.fig) == [], f"figures_src/{module}.py {name}"
        finally:
            plt.close(plot.fig)


def test_the_check_sees_numbers_that_nearly_touch():
    labels = list("abcdefgh")
    with matplotlib.rc_context(LIGHT.rc()):
        fig, ax = new_figure(LIGHT, size=(2.5, 2.5))
        heatmap(ax, np.full((8, 8), 0.25), labels, labels, style=LIGHT, quantity="weights")
        try:
            found = crowded(fig)
        finally:
            plt.close(fig)
    assert any("'0,25' '0,25'" in f for f in found), found
    assert len(HEATMAP_FIGURES) > 5, HEATMAP_FIGURES
