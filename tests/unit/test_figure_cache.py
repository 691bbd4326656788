"""figure_cache: a figure's SVGs are kept by what determines them. The same figure gives the same key
in every process; anything it is drawn with that changes (a colour, a text, an rcParam, a tick
formatter's code or a function it calls, the engine's drawing code) gives another key; a module that
runs again with the same figures publishes the kept SVGs, and the store keeps only the figures that
the modules' results name. The runs' order follows what the last runs took."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from anatomia_engine import figure_cache, plot, runner, store
from figures_src._shared.charts import heatmap
from tests.module_runs import compute, kept, module

REPO = Path(__file__).resolve().parents[2]
TOKENS = ["kot", "goni", "mysz"]
WEIGHTS = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])


def steps(value, _position):
    """A tick formatter of the tests' own: its code is part of a figure that uses it."""
    return f"krok {value:.0f}"


def build(style=plot.LIGHT, *, colour=None, title="Wagi", formatter=steps, rc=None):
    """A figure holding what a key must see: shared axes, aligned labels, a colour bar, a tick
    formatter of the project's code; its fingerprint in `style`."""
    with matplotlib.rc_context({**style.rc(), "svg.hashsalt": "test", **(rc or {})}):
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(4.0, 5.0), layout="constrained", sharex=True)
        top.plot([0, 1, 2], [0.5, 0.25, 0.125], color=colour or style.accent)
        top.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(formatter))
        heatmap(bottom, WEIGHTS, TOKENS, TOKENS, style=style, quantity="weights", title=title)
        fig.align_labels()
        plot.use_decimal_comma(fig)
        printed = figure_cache.fingerprint(fig, REPO)
        plt.close(fig)
    return printed


# --- one key for one figure --------------------------------------------------------------------

FINGERPRINT_IN_A_PROCESS = """
import sys
sys.path[:0] = [{repo!r}, {repo!r} + "/tests", {tests!r}]
import numpy as np
from matplotlib import pyplot as plt
# another process's history before the figure: other figures made and dropped
for _ in range(3):
    plt.close(plt.subplots(3, 3, sharey=True)[0])
import test_figure_cache
print(test_figure_cache.build())
"""


def test_the_same_figure_has_the_same_fingerprint_in_every_process():
    code = FINGERPRINT_IN_A_PROCESS.format(repo=str(REPO), tests=str(Path(__file__).parent))
    env = {**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    printed = {subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              cwd=REPO).stdout.strip() for _ in range(2)}
    # (the worker's hash seed, as in the runs; this process's may be another)
    assert len(printed) == 1
    assert printed != {""} and printed != {"None"}


def other_steps(value, _position):
    return f"krok {value:.1f}"


@pytest.mark.parametrize("change", [
    {"colour": "#ff0000"},
    {"title": "Wagi uwagi"},
    {"rc": {"axes.unicode_minus": False}},
    {"formatter": other_steps},
    {"formatter": lambda value, _position: f"krok {value:.0f}"},
])
def test_what_a_figure_is_drawn_with_changes_its_fingerprint(change):
    assert build(**change) != build()


def test_a_function_called_when_the_figure_is_drawn_is_part_of_the_fingerprint():
    prints = []
    for size in (9, 10):
        fig, ax = plt.subplots()
        title = ax.set_title("Wagi")
        fig.canvas.mpl_connect("draw_event", lambda _event, size=size, title=title: title.set_fontsize(size))
        prints.append(figure_cache.fingerprint(fig, REPO))
        plt.close(fig)
    assert None not in prints
    assert prints[0] != prints[1]


def test_a_function_a_formatter_calls_is_part_of_the_fingerprint(tmp_path, monkeypatch):
    """A formatter is pickled by its code and what it reads: a helper it calls that changes (its
    module edited and run again) changes the figure's key, though the formatter's own code did not."""
    monkeypatch.syspath_prepend(str(tmp_path))
    # no .pyc: the edit below keeps the file's size and its second, so a cached one would be reused
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    prints = []
    for digits in (0, 1):
        (tmp_path / "fc_helper.py").write_text(textwrap.dedent(f"""
            def label(value):
                return f"{{value:.{digits}f}}"

            def formatter(value, _position):
                return label(value)
            """))
        sys.modules.pop("fc_helper", None)
        helper = importlib.import_module("fc_helper")
        prints.append(figure_cache.fingerprint(figure_with(helper.formatter), tmp_path))
    sys.modules.pop("fc_helper", None)
    assert None not in prints
    assert prints[0] != prints[1]


def figure_with(formatter):
    fig, ax = plt.subplots()
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(formatter))
    plt.close(fig)
    return fig


def test_the_drawing_code_is_part_of_every_key(tmp_path, monkeypatch):
    """The engine's code that draws (plot.py …) is in every key: a changed line draws every figure
    again. A stand-in drawing module shows it here."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    keys = []
    for size in (10, 11):
        (tmp_path / "fc_drawing.py").write_text(f"FONT_SIZE = {size}\n")
        sys.modules.pop("fc_drawing", None)
        importlib.import_module("fc_drawing")
        monkeypatch.setattr(figure_cache, "DRAWING_MODULES", (*figure_cache.DRAWING_MODULES, "fc_drawing"))
        figure_cache.environment.cache_clear()
        keys.append(figure_cache.key("m.f", ["a", "b"], REPO))
    sys.modules.pop("fc_drawing", None)
    figure_cache.environment.cache_clear()
    assert keys[0] != keys[1]


def test_a_font_file_of_the_project_is_part_of_every_key_by_its_content(tmp_path, monkeypatch):
    """A module may add a font of its own (font_manager.fontManager.addfont): a new version of the
    file under the same name draws every figure again."""
    from matplotlib import font_manager

    known = font_manager.fontManager
    dejavu = next(font for font in known.ttflist if font.name == "DejaVu Sans")
    font = tmp_path / "fonts" / "own.ttf"
    font.parent.mkdir()
    font.write_bytes(Path(dejavu.fname).read_bytes())
    # the module's font among the known ones, for this test only
    monkeypatch.setattr(known, "ttflist", [*known.ttflist, dataclasses.replace(dejavu, fname=str(font))])
    before = figure_cache.key("m.f", ["a", "b"], tmp_path)
    font.write_bytes(font.read_bytes() + b"\0")
    assert figure_cache.key("m.f", ["a", "b"], tmp_path) != before


def test_a_figure_that_cannot_be_pickled_has_no_fingerprint():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    # a generator: no pickle can hold it, so nothing can say the figure is the same as before
    ax.lines[0].numbers = (n for n in range(3))
    plt.close(fig)
    assert figure_cache.fingerprint(fig, REPO) is None


# --- kept between runs --------------------------------------------------------------------------

FIGURE_MODULE = """
    import matplotlib.pyplot as plt
    from attn_core import SCALE

    @values
    def numbers():
        return {"scale": SCALE}

    @figure
    def bars(style):
        fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
        ax.bar([0, 1], [1, 2], color=getattr(style, COLOUR, COLOUR))
        return Plot(fig=fig, alt="Dwa słupki", caption="Słupki", table=Table(["x"], [["a"]]))
    """
# the bars in a colour of the style (a neutral figure, drawn once), or in one of their own
NEUTRAL_BARS = "COLOUR = 'accent'\n" + textwrap.dedent(FIGURE_MODULE)
OWN_COLOUR_BARS = "COLOUR = 'tab:blue'\n" + textwrap.dedent(FIGURE_MODULE)


def figures_folder(root: Path) -> Path:
    return store.folder(root, figure_cache.KIND)


def test_a_module_run_again_publishes_its_kept_figures_and_draws_a_changed_one(mini):
    module(mini, "plots", NEUTRAL_BARS)
    first = compute(mini, ["plots"])[0]["plots"]
    assert len(first.drawn) == 1
    drawings = figure_cache.Drawings(figures_folder(mini), mini)
    # the kept SVGs marked: a run that publishes the mark took them from the store
    [key] = first.drawn
    svgs = drawings.get(key, "test")
    assert set(svgs) == {"light", "dark"}
    drawings.put(key, {theme: svg.replace("</svg>", "<!-- kept --></svg>") for theme, svg in svgs.items()})

    (mini / "attn_core" / "__init__.py").write_text("SCALE = 3\n")   # an input of the values only
    results, ran = compute(mini, ["plots"])
    assert ran == ["plots"]
    again = results["plots"]
    assert again.values["scale"] == 3
    assert again.drawn == first.drawn
    assert all("<!-- kept -->" in again.contents[f"bars-{theme}.svg"] for theme in ("light", "dark"))

    # the kept SVGs are the engine's store: not an input of the run, which is now up to date
    assert compute(mini, ["plots"])[1] == []

    module(mini, "plots", "COLOUR = 'accent2'\n" + textwrap.dedent(FIGURE_MODULE))
    changed = compute(mini, ["plots"])[0]["plots"]
    assert changed.drawn != first.drawn
    assert "<!-- kept -->" not in changed.contents["bars-light.svg"]
    assert changed.contents["bars-light.svg"] != first.contents["bars-light.svg"]


UNPICKLABLE_MODULE = """
    import matplotlib.pyplot as plt

    @figure
    def line(style):
        fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
        ax.plot([0, 1], [1, 0])
        ax.lines[0].numbers = (n for n in range(3))
        return Plot(fig=fig, alt="Linia", caption="Linia", table=Table(["x"], [["a"]]))
    """


def test_a_figure_without_a_fingerprint_is_drawn_every_time_and_published(mini):
    module(mini, "unkept", UNPICKLABLE_MODULE)
    result = compute(mini, ["unkept"])[0]["unkept"]
    assert result.drawn == ()
    assert result.contents["line-light.svg"].startswith("<?xml")
    assert not list(figures_folder(mini).glob("*.json"))


def test_a_figure_in_a_colour_of_its_own_is_drawn_in_each_theme_and_kept(mini):
    """Bars in a colour of their own are no neutral figure: each theme's SVG is drawn from its own
    build, and kept; the store remembers that the figure is not neutral, so a run that finds
    both publishes the kept SVGs."""
    module(mini, "plots", OWN_COLOUR_BARS)
    first = compute(mini, ["plots"])[0]["plots"]
    light, dark = first.contents["bars-light.svg"], first.contents["bars-dark.svg"]
    assert "#1f77b4" in light and "#1f77b4" in dark
    assert plot.LIGHT.fg in light and plot.DARK.fg in dark
    assert plot.DARK.fg not in light
    drawings = figure_cache.Drawings(figures_folder(mini), mini)
    entries = {key: drawings.get(key, "test") for key in first.drawn}
    # one entry says "not neutral", the other holds the themes' SVGs
    [themed_key] = [key for key, svgs in entries.items() if set(svgs) == {"light", "dark"}]
    drawings.put(themed_key, {theme: svg.replace("</svg>", "<!-- kept --></svg>")
                              for theme, svg in entries[themed_key].items()})
    (mini / "attn_core" / "__init__.py").write_text("SCALE = 5\n")
    again = compute(mini, ["plots"])[0]["plots"]
    assert again.drawn == first.drawn
    assert all("<!-- kept -->" in again.contents[f"bars-{theme}.svg"] for theme in ("light", "dark"))


THEME_NAME_MODULE = """
    import matplotlib.pyplot as plt

    @figure
    def bars(style):
        fig, ax = plt.subplots(figsize=(3, 2), layout="constrained")
        # a width that depends on the theme: no SVG drawn once could show both
        ax.bar([0, 1], [1, 2], color=style.accent, width=0.3 if style.name == "dark" else 0.8)
        return Plot(fig=fig, alt="Dwa słupki", caption="Słupki", table=Table(["x"], [["a"]]))
    """


def test_a_figure_that_reads_the_theme_s_name_is_built_in_each_theme(mini):
    module(mini, "plots", THEME_NAME_MODULE)
    result = compute(mini, ["plots"])[0]["plots"]
    light, dark = result.contents["bars-light.svg"], result.contents["bars-dark.svg"]
    assert plot.LIGHT.accent in light and plot.DARK.accent in dark
    # each theme's own bar widths: the dark ones narrower
    assert plot.geometry(light) != plot.geometry(dark)


def test_the_store_keeps_the_figures_of_the_results_in_use(mini):
    # a build of every module: this one alone
    for other in (mini / "figures_src").glob("[!_]*.py"):
        other.unlink()
    module(mini, "plots", NEUTRAL_BARS)
    blue = runner.compute(root=mini)[0]["plots"].drawn
    module(mini, "plots", OWN_COLOUR_BARS)
    red = runner.compute(root=mini)[0]["plots"].drawn
    kept_keys = {path.stem for path in figures_folder(mini).glob("*.json")}
    assert kept_keys == set(red)
    assert not kept_keys & set(blue)


def test_a_damaged_kept_figure_is_drawn_again(mini):
    module(mini, "plots", NEUTRAL_BARS)
    first = compute(mini, ["plots"])[0]["plots"]
    [key] = first.drawn
    path = figures_folder(mini) / f"{key}.json"
    path.write_bytes(path.read_bytes().replace(b"<svg", b"<SVG", 1))
    (mini / "attn_core" / "__init__.py").write_text("SCALE = 4\n")
    again = compute(mini, ["plots"])[0]["plots"]
    assert again.contents == first.contents
    assert json.loads(store.Store(figures_folder(mini), ".json").get(key))["light"].count("<svg") == 1


# --- the order of runs ----------------------------------------------------------------------------

BUSY = """
    from attn_core import SCALE

    @values
    def numbers():
        total = 0
        for i in range(ROUNDS):
            total += i % 7
        return {NAME: total + SCALE}
    """


def test_runs_are_ordered_by_what_their_last_run_took_and_a_new_module_goes_first(mini):
    module(mini, "slow", "ROUNDS, NAME = 3_000_000, 'slow'\n" + textwrap.dedent(BUSY))
    module(mini, "quick", "ROUNDS, NAME = 10, 'quick'\n" + textwrap.dedent(BUSY))
    compute(mini, ["quick", "slow"])
    assert runner.run_order(["quick", "slow"], mini.resolve()) == ["slow", "quick"]
    module(mini, "new", "ROUNDS, NAME = 10, 'new'\n" + textwrap.dedent(BUSY))
    assert runner.run_order(["quick", "slow", "new"], mini.resolve())[0] == "new"
    assert kept(mini, "slow") is not None
