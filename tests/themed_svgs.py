"""A figure's SVG made from its neutral drawing (anatomia_engine/themes.py) compared with the SVG of
the figure built in that theme: the same drawing, whatever ids or PNG bytes each one has."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from PIL import Image

from anatomia_engine import plot

REPO = Path(__file__).resolve().parents[1]

# matplotlib's ids: hatches, clip paths, markers (`h`, `p`, `m` + 10 hex digits of a hash of their
# colours or shape) and images (`image` + a hash of their pixels)
_HASHED_ID = re.compile(r"\b(?:[hpm]|image)[0-9a-f]{10}\b")
# black is SVG's default fill: matplotlib leaves it out of a path's or a text's style, not a hatch's
_BLACK_FILL = re.compile(r";?\s*fill: #000000")
# a blend of two colour-map entries (an image resampled in colour) may round one step apart
BLEND_STEP = 1


# an image embedded in an SVG, as matplotlib writes it
_IMAGE = re.compile(r"(data:image/png;base64,\s*)([A-Za-z0-9+/=]+)")


def svg_of(fn, style, salt: str) -> str:
    """The SVG of figure function `fn` built in `style` and drawn with the ids of `salt`, as the
    worker builds and draws a figure (its rcParams, the decimal comma)."""
    with matplotlib.rc_context({**style.rc(), "svg.hashsalt": salt}):
        built = fn(style)
        plot.use_decimal_comma(built.fig)
        svg = plot.to_svg(built.fig)
    plt.close(built.fig)
    return svg


def _normalised(svg: str) -> tuple[str, list[np.ndarray]]:
    """`svg`'s text with every id by its order of appearance and its images' pixels apart."""
    images = []

    def take(image: re.Match) -> str:
        with Image.open(io.BytesIO(base64.b64decode(image[2]))) as png:
            images.append(np.asarray(png.convert("RGBA")).astype(int))
        return image[1] + "IMAGE"

    svg = _IMAGE.sub(take, svg)
    order: dict[str, str] = {}
    svg = _HASHED_ID.sub(lambda found: order.setdefault(found[0], f"id{len(order)}"), svg)
    svg = _BLACK_FILL.sub("", svg)
    return svg.replace(' style=""', ""), images


def same_drawing(derived: str, direct: str) -> list[str]:
    """What differs between two SVGs of one figure but ids and PNG bytes (empty: nothing)."""
    text, images = _normalised(derived)
    text_direct, images_direct = _normalised(direct)
    problems = []
    if text != text_direct:
        lines = [pair for pair in zip(text.splitlines(), text_direct.splitlines(), strict=False)
                 if pair[0] != pair[1]]
        problems.append(f"the SVG text differs, first at: {lines[:1]}")
    if len(images) != len(images_direct):
        problems.append(f"{len(images)} images, built in the theme {len(images_direct)}")
    for i, (one, other) in enumerate(zip(images, images_direct, strict=False)):
        if one.shape != other.shape:
            problems.append(f"image {i}: {one.shape} pixels, built in the theme {other.shape}")
        elif np.abs(one - other).max() > BLEND_STEP:
            problems.append(f"image {i}: a pixel {np.abs(one - other).max()} steps apart")
    return problems
