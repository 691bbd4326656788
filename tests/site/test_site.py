"""The whole site: the URL contract and offline assets."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

URLS = ["index.html", "krok-po-kroku/index.html", "posty/index.html",
        "posty/llm-mechanizm-uwagi/index.html", "laby/lab-3/index.html",
        "llm/anatomia/index.html", "jak-dodac-wartosc/index.html"]


def test_site_map_urls_exist(built_site):
    for url in URLS:
        assert (built_site / url).is_file(), url
    explorer = (built_site / "llm/anatomia/index.html").read_text()
    assert 'id="uwaga"' in explorer


def test_home_lists_the_articles_and_the_contributor_page(built_site):
    home = (built_site / "index.html").read_text()
    for href in ("krok-po-kroku/", "posty/llm-mechanizm-uwagi/", "laby/lab-3/", "llm/anatomia/#uwaga",
                 "jak-dodac-wartosc/"):
        assert f'href="{href}"' in home, href


def test_home_route_shows_a_reading_time_for_every_step(built_site):
    """anatomia_engine/route.py fills each `data-readtime` marker with the step's minutes (a number)."""
    home = BeautifulSoup((built_site / "index.html").read_text(encoding="utf-8"), "html.parser")
    steps = home.select(".route > ol > li")
    assert len(steps) >= 2
    for step in steps:
        times = step.select("[data-readtime]")
        assert len(times) == 1 and times[0].get_text().isdigit(), step.get_text(" ", strip=True)


def test_no_page_loads_anything_from_another_host(built_site):
    # Elements that make the browser fetch something (a canonical link is not fetched).
    pattern = re.compile(r'<(?:script|img|iframe|source|link(?![^>]*rel="(?:canonical|alternate)"))'
                         r'\b[^>]*(?:src|href)="(?:https?:)?//', re.I)
    for page in built_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        hits = [m.group(0) for m in pattern.finditer(text)]
        assert not hits, f"{page.relative_to(built_site)} loads from another host: {hits[:3]}"
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text
    # Math is MathML laid out by the browser: no KaTeX stylesheet or web fonts to fetch at all.
    assert not (built_site / "assets/katex").exists()


def test_heading_anchors_are_readable(built_site):
    for page in built_site.rglob("index.html"):
        ids = re.findall(r'<h[1-6] id="([^"]*)"', page.read_text(encoding="utf-8"))
        bad = [i for i in ids if i.startswith("-") or i.endswith("-") or "%" in i]
        assert not bad, f"{page.relative_to(built_site)}: unreadable anchors {bad}"


def test_blog_index_shows_the_post_with_date_and_tags_page_lists_it(built_site):
    index = (built_site / "posty/index.html").read_text()
    assert 'href="llm-mechanizm-uwagi/"' in index and "12 czerwca 2026" in index
    tags = (built_site / "posty/tagi/index.html").read_text()
    for tag in ("transformer", "llm", "dla dociekliwych"):
        assert f'<span class="md-tag">{tag}</span>' in tags
    assert tags.count('href="../llm-mechanizm-uwagi/"') >= 3


def test_contributor_page_shows_the_formatter_at_work(built_site):
    from anatomia_engine.numfmt import fmt_dec, fmt_sci

    page = (built_site / "jak-dodac-wartosc/index.html").read_text()
    for shown in (fmt_dec(2.675, 2), fmt_dec(0.125, 2), fmt_sci(2.220446049250313e-16, 1)):
        # a cell of its own
        assert f'<td>{shown}</td>' in page or f'<td style="text-align: left;">{shown}</td>' in page, shown
    assert "<code>2{,}68</code>" in page


def test_a_figures_light_and_dark_pictures_differ_in_colours_only(built_site):
    """The browser tests measure figure text in the light scheme only (tests/browser/
    test_phone.py; tests/unit/test_figure_lines.py checks the light text): each dark picture
    has the light one's size, texts, places and font sizes, and is shown by the same <img> tag."""
    colour = re.compile(r"\s*;?\s*\b(?:fill|stroke)(?:-opacity)?:\s*[^;\"]+")
    texts = re.compile(r"<svg\b[^>]*>|<text\b[^>]*>.*?</text>", re.S)
    pictures = sorted((built_site / "figures").rglob("*-light.svg"))
    for light in pictures:
        dark = light.with_name(light.name.replace("-light.svg", "-dark.svg"))
        shown = [[colour.sub("", t) for t in texts.findall(picture.read_text())] for picture in (light, dark)]
        assert shown[0] == shown[1], light.relative_to(built_site)
    assert len(pictures) > 20
    pair = re.compile(r'(<img\b[^>]*-light\.svg#only-light"[^>]*>)\s*(<img\b[^>]*>)')
    pairs = 0
    for page in built_site.rglob("*.html"):
        for light, dark in pair.findall(page.read_text(encoding="utf-8")):
            assert dark == light.replace("-light.svg#only-light", "-dark.svg#only-dark"), (page, dark)
            pairs += 1
    assert pairs >= len(pictures), pairs


def test_a_colour_scheme_sets_colours_only(built_site):
    """The browser tests measure layout and run axe's other rules than colour in the light scheme
    only (tests/browser/test_phone.py, test_a11y.py): every
    CSS rule of the build that names a scheme, or is inside a prefers-color-scheme query, sets
    colours (or variables holding colours), apart from hiding the other scheme's pictures (which
    have the same size: the test above)."""
    colours = {"color", "background-color", "border-color", "color-scheme"}
    colour_value = re.compile(r"#|rgb|hsl|var\(|color-mix|\d+deg\b|transparent|currentcolor", re.I)
    picture = re.compile(r'\[data-md-color-scheme="?\w+"?\] img\[src\$="#[\w-]+"\]')
    rule = re.compile(r"([^{}]+)\{([^{}]*)\}")
    rules = 0
    for css in sorted(built_site.rglob("*.css")):
        text = re.sub(r"/\*.*?\*/", "", css.read_text(encoding="utf-8"), flags=re.S)
        found = [(sel, body) for sel, body in rule.findall(text) if "data-md-color-scheme" in sel]
        for media in re.finditer(r"@media[^{]*prefers-color-scheme[^{]*\{", text):   # every rule inside
            depth, end = 1, media.end()
            while depth:
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            found += rule.findall(text[media.end():end - 1])
        for selector, body in found:
            rules += 1
            for name, value in re.findall(r"([-\w]+)\s*:\s*([^;]+)", body):
                ok = (name in colours or (name.startswith("--") and colour_value.search(value))
                      or (name == "display" and value.strip() == "none"
                          and all(picture.fullmatch(part.strip()) for part in selector.split(","))))
                assert ok, f"{css.relative_to(built_site)}: {selector.strip()[:80]} sets {name}: {value}"
    assert rules > 10, rules
