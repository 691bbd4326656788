"""Every figure of the site that is drawn once in neutral colours (anatomia_engine/themes.py) gives
each theme the drawing its function builds in that theme: the same text, shapes and colours, its
images' pixels at most a rounding step apart."""

from __future__ import annotations

import importlib

import pytest
from themed_svgs import REPO, same_drawing, svg_of

from anatomia_engine import plot, runner, themes
from anatomia_engine.kit import KIND


def figure_functions() -> list:
    found = []
    for name in runner.module_names(REPO):
        module = importlib.import_module(f"{runner.PACKAGE}.{name}")
        for fn in vars(module).values():
            if getattr(fn, KIND, None) == "figure" and fn.__module__ == module.__name__:
                found.append(pytest.param(fn, id=f"{name}.{fn.__name__}"))
    return found


@pytest.mark.parametrize("fn", figure_functions())
def test_a_figure_drawn_once_is_the_drawing_built_in_each_theme(fn):
    salt = f"{fn.__module__}.{fn.__name__}"
    try:
        neutral = svg_of(fn, themes.NEUTRAL, salt)
        svgs = {style: themes.themed(neutral, style) for style in plot.STYLES}
    except (themes.ThemeDependent, themes.NotNeutral):
        pytest.skip("not neutral: the worker builds it in each theme")
    for style, derived in svgs.items():
        assert same_drawing(derived, svg_of(fn, style, salt)) == [], style.name
