"""A figure drawn once, in every theme.

The worker builds a figure and draws it once, in the neutral style
(`NEUTRAL`), whose colours are markers; each theme's SVG is then that
drawing with the theme's colour put for each marker (`themed`).
Building and drawing a figure is most of a module's run, and the
themes differ only in colour: drawing each theme's figure again was
half the work.

The markers, `#rrggbb` values no theme uses:

- each colour of a Style (fg, bg, muted, grid, accent, accent2,
  blocked, hatch, and the tint of a blocked cell): `#01kk01`, k its
  place in `_COLOURS`;
- each colour map of a Style (cmap, cmap_scores): a map of 256
  entries, entry i `(i, 255 - i, B)` with the map's own B. A pixel
  that blends two entries (an image resampled, a colour bar drawn by
  Agg) stays on that line, so each pixel of an embedded image is read
  back as its entry;
- the text colour on a cell of entry i (`Style.ink_on`):
  `(i, 255 - i, B)` with a B of its own.

A figure is not neutral when its SVG holds any other colour (one of
its own, one computed from a marker, a colour map named by the
figure) or when its function reads the style's `name`: `themed`
raises `NotNeutral`, the style raises `ThemeDependent`, and the worker
builds and draws the figure in each theme instead. Nothing is
guessed: every colour of a themed SVG is the theme's.
"""

from __future__ import annotations

import base64
import functools
import io
import re
from dataclasses import dataclass

import matplotlib
import numpy as np
from matplotlib.colors import ListedColormap, to_hex, to_rgb

from anatomia_engine.plot import Style

# the Style colours that get markers, in marker order (`#01kk01`, k = place + 1)
_COLOURS = ("fg", "bg", "muted", "grid", "accent", "accent2", "blocked", "hatch", "tint")
# the blue channel of each colour map's line of markers, and of the text on its cells
_MAPS = {"cmap": 0x25, "cmap_scores": 0xD3}
_INKS = {"cmap": 0x61, "cmap_scores": 0x9B}
# entries of every colour map: a theme's map of another size would not match the markers
ENTRIES = 256


class NotNeutral(Exception):
    """An SVG drawn in the neutral style holds a colour that is no marker."""


class ThemeDependent(BaseException):
    """A figure function asked which theme it draws (the neutral style has none).

    A BaseException: a figure function's own `except Exception` does not hide it."""


def _marker(k: int) -> str:
    return f"#01{k:02x}01"


def _on_line(i: int, blue: int) -> str:
    return f"#{i:02x}{255 - i:02x}{blue:02x}"


def _marker_map(attribute: str) -> ListedColormap:
    blue = _MAPS[attribute]
    entries = [to_rgb(_on_line(i, blue)) for i in range(ENTRIES)]
    return ListedColormap(entries, name=f"anatomia.neutral.{attribute}")


# the markers' colour maps, known to matplotlib by name (a figure asks matplotlib.colormaps[name])
for _attribute in _MAPS:
    if f"anatomia.neutral.{_attribute}" not in matplotlib.colormaps:
        matplotlib.colormaps.register(_marker_map(_attribute))


@dataclass(frozen=True)
class _NeutralStyle(Style):
    """The style whose colours are markers; its `name` is no theme's (reading it raises)."""

    def __getattribute__(self, attribute: str):
        if attribute == "name":
            raise ThemeDependent("the figure reads style.name")
        return super().__getattribute__(attribute)

    @property
    def tint(self) -> str:
        return _marker(_COLOURS.index("tint") + 1)

    def ink_on(self, rgba) -> str:
        """The marker of the text on a cell of marker colour `rgba`."""
        red, green, blue = (round(channel * 255) for channel in to_rgb(rgba))
        for attribute, line in _MAPS.items():
            if blue == line and red + green == 255:
                return _on_line(red, _INKS[attribute])
        # a colour no marker map gave: its text colour has no theme
        raise ThemeDependent(f"ink_on({to_hex(rgba)}): not a colour of the style's maps")


def _neutral() -> _NeutralStyle:
    colours = {name: _marker(k + 1) for k, name in enumerate(_COLOURS) if name != "tint"}
    maps = {attribute: f"anatomia.neutral.{attribute}" for attribute in _MAPS}
    return _NeutralStyle(name="neutral", **colours, **maps)


NEUTRAL = _neutral()


# ---------------------------------------------------------------------------------------------
# Each theme's colours for the markers
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Palette:
    """What each marker becomes in one theme: colours by marker, each map's 256 entries (RGBA
    bytes), and the text colour on each entry."""

    colours: dict[str, str]
    entries: dict[int, np.ndarray]


def _palette(style: Style) -> _Palette:
    colours = {}
    for k, name in enumerate(_COLOURS):
        colours[_marker(k + 1)] = to_hex(getattr(style, name))
    entries = {}
    for attribute, blue in _MAPS.items():
        cmap = matplotlib.colormaps[getattr(style, attribute)]
        if cmap.N != ENTRIES:
            raise NotNeutral(f"{cmap.name} has {cmap.N} entries, the markers {ENTRIES}")
        # as matplotlib colours an image: the bytes of each entry
        entries[blue] = cmap(np.arange(ENTRIES), bytes=True)
        for i in range(ENTRIES):
            colours[_on_line(i, blue)] = to_hex(cmap(i))
            colours[_on_line(i, _INKS[attribute])] = style.ink_on(cmap(i))
    return _Palette(colours, entries)


_PAINT = re.compile(r"((?:fill|stroke|stop-color|color)(?::\s*|=\"))(#[0-9a-fA-F]{6})")
_IMAGE = re.compile(r"(data:image/png;base64,\s*)([A-Za-z0-9+/=]+)")


def _recoloured_paint(palette: _Palette, paint: re.Match) -> str:
    colour = palette.colours.get(paint[2].lower())
    if colour is None:
        raise NotNeutral(f"the colour {paint[2]} is no marker")
    return paint[1] + colour


def _recoloured_image(palette: _Palette, image: re.Match) -> str:
    """An embedded PNG of marker-map pixels in the theme's map: each pixel its entry's colour."""
    from PIL import Image

    with Image.open(io.BytesIO(base64.b64decode(image[2]))) as png:
        pixels = np.array(png.convert("RGBA"))
    red, green, blue, alpha = (pixels[..., c].astype(int) for c in range(4))
    shown = alpha > 0
    out = pixels.copy()
    for line, entries in palette.entries.items():
        # a blend of two entries rounds each channel: red + green may be 254 to 256
        on = shown & (blue == line) & (np.abs(red + green - 255) <= 1)
        out[on, :3] = entries[red[on], :3]
        shown &= ~on
    if shown.any():
        raise NotNeutral("an embedded image holds pixels of no marker map")
    # as matplotlib's SVG backend writes an image (backend_svg.RendererSVG.draw_image)
    buffer = io.BytesIO()
    Image.fromarray(out).save(buffer, format="png")
    return image[1] + base64.b64encode(buffer.getvalue()).decode("ascii")


def themed(svg: str, style: Style) -> str:
    """The SVG drawn in NEUTRAL, in `style`'s colours; NotNeutral if it holds a colour that is no
    marker."""
    palette = _palette_of(style)
    svg = _IMAGE.sub(functools.partial(_recoloured_image, palette), svg)
    return _PAINT.sub(functools.partial(_recoloured_paint, palette), svg)


# each theme's palette, made once per process (the worker makes them before it forks: `prepare`)
_palettes: dict[Style, _Palette] = {}


def _palette_of(style: Style) -> _Palette:
    if style not in _palettes:
        _palettes[style] = _palette(style)
    return _palettes[style]


def prepare(styles: tuple[Style, ...]) -> None:
    """Make the palettes of `styles` now, and import what `themed` reads images with."""
    import PIL.Image  # noqa: F401

    for style in styles:
        _palette_of(style)
