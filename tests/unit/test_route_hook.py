"""anatomia_engine/route.py: reading time of the visible text, and the home page's reading-time markers.

The footer's order is walked in the browser (tests/browser/test_route.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from anatomia_engine import route as route_module
from anatomia_engine.errors import EngineError


@pytest.fixture(scope="module")
def route():
    return route_module


def _words(n: int) -> str:
    return " ".join(["słowo"] * n)


def test_reading_time_counts_the_visible_words_at_material_s_rate(route):
    one_minute = route.WORDS_PER_MINUTE
    assert route.reading_minutes(f"<p>{_words(one_minute)}</p>") == 1
    assert route.reading_minutes(f"<p>{_words(3 * one_minute)}</p>") == 3
    assert route.reading_minutes(f"<p>{_words(3 * one_minute + 1)}</p>") == 4


def test_collapsed_blocks_formulas_and_drawings_add_no_reading_time(route):
    text = f"<p>{_words(2 * route.WORDS_PER_MINUTE)}</p>"
    hidden = (f"<details><summary>Dane</summary><table><tr><td>{_words(5000)}</td></tr></table>"
              f"<details><p>{_words(100)}</p></details></details>"
              f"<span class='arithmatex'><math><mi>{_words(800)}</mi></math></span>"
              f"<svg><text>{_words(900)}</text></svg>")
    assert route.reading_minutes(text + hidden) == route.reading_minutes(text) == 2
    # text after a hidden block counts again
    assert route.reading_minutes(hidden + text) == 2


def test_an_image_adds_seconds_as_in_material(route):
    text = f"<p>{_words(route.WORDS_PER_MINUTE)}</p>"
    assert route.reading_minutes(text + '<img src="a.svg">') == 2   # 60 s + 12 s
    assert route.reading_minutes(text + '<details><img src="a.svg"></details>') == 1


def _page(src: str) -> SimpleNamespace:
    return SimpleNamespace(file=SimpleNamespace(src_uri=src, src_path=src))


def _render(plugin, html: str, page, files) -> str:
    """on_page_content as MkDocs calls it: each handler of the combined event, in turn."""
    for handler in plugin.on_page_content.methods:
        html = handler(html, page=page, config=None, files=files)
    return html


def test_a_marker_gets_the_page_s_minutes_and_an_unknown_page_stops_the_build(route):
    plugin = route.RoutePlugin()
    known = SimpleNamespace(src_uri="a.md")
    files = SimpleNamespace(get_file_from_path=lambda path: known if path == "a.md" else None)
    plugin.on_files(files, config=None)
    _render(plugin, f"<p>{_words(route.WORDS_PER_MINUTE * 2)}</p>", _page("a.md"), files)
    home = _page("index.md")
    out = plugin.on_post_page('<p>ok. <span data-readtime="a.md"></span> min</p>', page=home, config=None)
    assert out == '<p>ok. <span data-readtime="a.md">2</span> min</p>'
    with pytest.raises(EngineError) as info:
        plugin.on_post_page('<span data-readtime="b.md"></span>', page=home, config=None)
    assert (info.value.id, info.value.where, info.value.fields) == ("readtime_unknown_page", "index.md",
                                                                    {"path": "b.md"})


def test_a_page_not_rendered_again_keeps_the_minutes_of_the_build_that_rendered_it(route):
    plugin = route.RoutePlugin()
    files = SimpleNamespace(get_file_from_path=lambda path: SimpleNamespace(src_uri=path))
    plugin.on_files(files, config=None)
    _render(plugin, f"<p>{_words(route.WORDS_PER_MINUTE * 3)}</p>", _page("a.md"), files)
    # the next build (a --dirty one) renders only the home page: a.md's minutes are the last ones counted
    plugin.on_files(files, config=None)
    out = plugin.on_post_page('<span data-readtime="a.md"></span>', page=_page("index.md"), config=None)
    assert out == '<span data-readtime="a.md">3</span>'


def test_posts_without_the_blog_index_in_nav_stop_the_build(route):
    """The posts go into the footer's route before the blog's index: no index, no place."""
    from datetime import datetime

    from material.plugins.blog.structure import Post

    post = Post.__new__(Post)
    post.config = SimpleNamespace(date=SimpleNamespace(created=datetime(2025, 1, 1)))
    post.parent = SimpleNamespace(posts=[post])
    files = SimpleNamespace(documentation_pages=lambda: [SimpleNamespace(page=post)])
    with pytest.raises(EngineError) as info:
        route.RoutePlugin().on_nav(SimpleNamespace(pages=[]), config=None, files=files)
    assert info.value.id == "route_no_blog_index"
