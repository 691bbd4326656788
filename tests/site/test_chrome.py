"""The site's chrome: Polish everywhere, one title per page, own favicon, canonical URLs and
sitemap, a working Polish 404 page, emoji as bundled icons.

Static checks of the session build; the browser checks are in tests/browser/test_chrome.py.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path
from urllib.parse import urljoin, urlparse

import yaml
from bs4 import BeautifulSoup

from helpers import REPO

SITE_NAME = "Anatomia LLM"


def site_url() -> str:
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    return re.search(r"^site_url:\s*(\S+)", text, re.M).group(1)


def mkdocs_config() -> dict:
    """mkdocs.yml as data (its !!python tags dropped: the tests read only plain settings)."""
    return yaml.safe_load(re.sub(r"!!python/\S+", "", (REPO / "mkdocs.yml").read_text(encoding="utf-8")))


def pages(site: Path) -> list[Path]:
    """Every page of the site."""
    return sorted(p for p in site.glob("**/*.html") if "assets" not in p.parts)


@functools.cache
def soup(path: Path) -> BeautifulSoup:
    """A built page parsed once for all the tests of this file (they only read it)."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


# --- static checks of the build -----------------------------------------------------------------

def test_one_title_per_page(built_site):
    titles = {}
    for path in pages(built_site):
        found = soup(path).find_all("title")
        assert len(found) == 1, path
        titles[path.relative_to(built_site).as_posix()] = found[0].get_text()
    assert titles["index.html"] == SITE_NAME
    for page, title in titles.items():
        parts = [p.strip() for p in title.split(" - ")]
        assert len(parts) == len(set(parts)), f"{page}: repeated title {title!r}"


def test_footer_and_footnote_backlinks_speak_polish(built_site):
    backlinks = 0
    footnotes = 0
    for path in pages(built_site):
        page = soup(path)
        footer = page.select_one("footer .md-copyright")
        assert footer is not None, path
        text = footer.get_text(" ", strip=True)
        assert "Made with" not in text and "Strona zbudowana" in text, (path, text)
        footnotes += len(page.select(".footnote li[id]"))
        for a in page.select("a.footnote-backref"):
            backlinks += 1
            assert re.fullmatch(r"Wróć do przypisu \d+ w tekście", a.get("title", "")), (path, a.get("title"))
    # every footnote leads back to its reference (one backlink per reference of it)
    assert backlinks >= footnotes > 0


def test_own_favicon_and_logo(built_site):
    page = soup(built_site / "index.html")
    icon = page.select_one('link[rel="icon"]')["href"]
    logo = page.select_one(".md-header__button.md-logo img")["src"]
    for ref in (icon, logo):
        assert ref.endswith(".svg"), ref
        file = built_site / urlparse(urljoin("https://x/", ref)).path.lstrip("/")
        assert file.exists(), file
        svg = file.read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<svg") and "<title>Anatomia LLM</title>" in svg
    assert "favicon.png" not in icon


def test_canonical_links_and_sitemap_use_site_url(built_site):
    base = site_url()
    assert base.startswith("https://") and base.endswith("/")
    sitemap = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    for path in pages(built_site):
        rel = path.relative_to(built_site).as_posix()
        if rel == "404.html":
            continue
        url = base + rel.removesuffix("index.html")
        assert url in locs, f"{url} missing from sitemap.xml"
        canonical = soup(path).select_one('link[rel="canonical"]')
        assert canonical is not None and canonical["href"] == url, (rel, canonical)


EMOJI = re.compile("[\u231a-\u23ff\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff]")


def test_emoji_are_bundled_icons(built_site):
    for path in pages(built_site):
        page = soup(path)
        article = page.select_one(".md-content")
        text = article.get_text() if article else ""
        emoji = [c for c in EMOJI.findall(text) if unicodedata.category(c) == "So"]
        assert emoji == [], f"{path}: emoji left as characters: {emoji}"
    post = soup(built_site / "posty/llm-mechanizm-uwagi/index.html")
    icons = post.select("h2 .twemoji svg")
    source = (REPO / "docs/posty/posts/llm-mechanizm-uwagi.md").read_text(encoding="utf-8")
    headings_with_emoji = [line for line in source.splitlines()
                           if line.startswith("## ") and ":material-" in line]
    assert len(icons) == len(headings_with_emoji) > 0
    assert not post.select('img[src*="twemoji"], img[src^="http"]')


def test_404_page_is_polish_and_links_to_the_articles(built_site):
    page = soup(built_site / "404.html")
    assert page.find("title").get_text() == f"Nie ma takiej strony - {SITE_NAME}"
    article = page.select_one("article")
    assert "Nie ma takiej strony" in article.h1.get_text()
    assert "Not found" not in page.get_text()
    links = [a["href"] for a in article.select("a[href]")]
    nav = mkdocs_config()["nav"]
    assert len(links) >= len(nav)
    for href in links:   # root-absolute: they work from whatever missing address the server answers
        assert href.startswith("/"), href
        target = built_site / href.lstrip("/")
        assert (target / "index.html").exists() or target.is_file(), href


def test_the_theme_and_site_scripts_are_deferred(built_site):
    """Material's bundle and every extra_javascript of mkdocs.yml load with `defer` on every page
    (the parser never stops for them, anatomia_engine/theme/main.html), and still in that order."""
    extra = [entry["path"] if isinstance(entry, dict) else entry
             for entry in mkdocs_config()["extra_javascript"]]
    for path in pages(built_site):
        scripts = [s for s in soup(path).select("script[src]")
                   if re.search(r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js$", s["src"])
                   or any(s["src"].endswith(name) for name in extra)]
        names = [s["src"].rsplit("/", 1)[-1] for s in scripts]
        assert len(names) == 1 + len(extra) and names[0].startswith("bundle."), (path, names)
        assert names[1:] == [name.rsplit("/", 1)[-1] for name in extra], (path, names)
        assert all(s.has_attr("defer") for s in scripts), (path, [str(s) for s in scripts])
