"""Blocked heatmap cells are visibly hatched: the hatch lines have a colour of their own."""

from __future__ import annotations

import io
import re

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_hex

from anatomia_engine.plot import STYLES, new_figure
from figures_src._shared.charts import heatmap


def contrast(a: str, b: str) -> float:
    def lum(c):
        rgb = [int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted([lum(a), lum(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def blend(colour: str, alpha: float, background: str) -> str:
    c, b = matplotlib.colors.to_rgb(colour), matplotlib.colors.to_rgb(background)
    return to_hex([alpha * x + (1 - alpha) * y for x, y in zip(c, b, strict=True)])


@pytest.mark.parametrize("style", STYLES, ids=lambda s: s.name)
def test_hatch_lines_stand_out_from_the_cell_they_hatch(style):
    with matplotlib.rc_context(style.rc() | {"svg.hashsalt": "test"}):
        fig, ax = new_figure(style, size=(3, 3))
        blocked = np.triu(np.ones((3, 3), bool), 1)
        heatmap(ax, np.eye(3), ["a", "b", "c"], ["a", "b", "c"], style=style,
                blocked=blocked, quantity="weights")
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        on_hatch = [t for t in ax.texts if blocked[round(t.get_position()[1]), round(t.get_position()[0])]]
        matplotlib.pyplot.close(fig)
    svg = buf.getvalue()
    # a blocked cell's number stands on a patch of the opaque tint, not on the hatch lines
    assert len(on_hatch) == 3 and all(t.get_bbox_patch() and t.get_bbox_patch().get_alpha() in (None, 1)
                                      and t.get_bbox_patch().get_facecolor()[3] == 1 for t in on_hatch)
    patterns = re.findall(r"<pattern[^>]*>(.*?)</pattern>", svg, re.S)
    assert patterns, "no hatch pattern in the SVG"
    strokes = set(re.findall(r"stroke:\s*(#[0-9a-f]{6})", " ".join(patterns)))
    assert strokes, patterns[0][:300]
    # the lines are drawn at full strength: a translucent hatched face fades them (to a blur in print)
    hatched = re.findall(r'style="fill: url\(#[^)]*\)([^"]*)"', svg)
    assert hatched and not any("opacity" in rest for rest in hatched), hatched
    cell = blend(style.blocked, 0.35, style.bg)          # the tint the page shows under the lines
    for stroke in strokes:
        assert stroke != to_hex(style.blocked)
        assert contrast(stroke, cell) >= 3, (stroke, cell)
