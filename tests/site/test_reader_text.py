"""What a reader reads on every page: no TeX, no underscore notation, no build names in prose.

Every page listed in sitemap.xml: the article and its tables of contents, the figures' alt text
and captions, the titles and labels that a pointer or a screen reader shows. Code (code, pre,
kbd, the notebook's code cells and what they print) and typeset math are the places where such
names belong, so they are left out; everything else is prose.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, NavigableString

from helpers import site_pages as sitemap_pages

CODE = "code, pre, kbd, samp, math, script, style, .jp-InputArea, .jp-OutputArea, .arithmatex"
# x_j, d_k, W_Q, d_{model}, h_t — a letter name, an underscore, an index
UNDERSCORE = re.compile(r"(?<![\w/.:-])[A-Za-z]{1,8}_(?:\{|[A-Za-z0-9])")
TEX = re.compile(r"\\(?:sqrt|frac|text|mathrm|top|cdot|times|infty|left|right|[a-z]+\{)|\^\{|_\{")
BUILD = re.compile(r"figures_src|attn_core|anatomia_engine|\b\w+\.py\b|\b[A-Z]+(?:_[A-Z0-9]+)+\b")


def prose(soup: BeautifulSoup) -> list[str]:
    """Text a reader sees outside code and math, and the alt, title and label attributes."""
    roots = soup.select("article.md-content__inner, nav.md-nav--secondary, nav.md-nav--primary, "
                        ".md-copyright")
    for root in roots:
        for el in root.select(CODE):
            el.decompose()
    out = []
    for root in roots:
        out += [str(t) for t in root.find_all(string=True) if isinstance(t, NavigableString)
                and not t.find_parent(["code", "pre", "math", "script", "style"])]
        for el in root.find_all(True):
            out += [el[a] for a in ("alt", "title", "aria-label") if el.has_attr(a)]
    return [t for t in (" ".join(x.split()) for x in out) if t]


def contributor_pages(site: Path) -> set[Path]:
    """The pages under the nav's "Dla autorów": they name modules and files on purpose."""
    nav = (Path(__file__).resolve().parents[2] / "mkdocs.yml").read_text(encoding="utf-8")
    found = {site / Path(src).with_suffix("") / "index.html"
             for src in re.findall(r"^\s*- Dla autorów:\s*(\S+\.md)\s*$", nav, re.M)}
    assert found, "mkdocs.yml has no 'Dla autorów' page in its nav"
    return found


@pytest.fixture(scope="module")
def site_pages(built_site):
    """(page, its soup without code and math, its prose, whether it is a contributor page)."""
    found = [built_site / path.lstrip("/") / "index.html" for path in sitemap_pages(built_site)]
    assert len(found) >= 6, found
    authors = contributor_pages(built_site)
    assert authors <= set(found), (authors, found)
    soups = [BeautifulSoup(p.read_text(encoding="utf-8"), "html.parser") for p in found]
    return [(p, soup, prose(soup), p in authors) for p, soup in zip(found, soups, strict=True)]


def test_no_tex_in_prose(site_pages):
    bad = [(p.parent.name, t) for p, _, texts, _ in site_pages for t in texts if TEX.search(t)]
    assert not bad, "TeX in reader text: " + "\n".join(f"{p}: {t[:120]}" for p, t in bad)


@pytest.mark.parametrize("name, pattern", [("underscore notation", UNDERSCORE),
                                           ("build names", BUILD)])
def test_no_source_notation_or_build_names_in_reader_prose(site_pages, name, pattern):
    bad = [(p.parent.name, t) for p, _, texts, authors in site_pages if not authors
           for t in texts if pattern.search(t)]
    assert not bad, f"{name} in reader text: " + "\n".join(f"{p}: {t[:120]}" for p, t in bad)


def test_the_scan_sees_figures_and_the_toc(site_pages):
    """The scan reads alt text and the table of contents (so a check above can fail)."""
    texts = [t for _, _, page_texts, _ in site_pages for t in page_texts]
    assert any("uwag" in t for t in texts)
    alts = [" ".join(img["alt"].split()) for _, soup, _, _ in site_pages
            for img in soup.select("article img[alt]")]
    assert len(alts) > 20 and all(a in texts for a in alts[:5])
    assert any(UNDERSCORE.search(t) for t in ["waga a_j", "d_{model}"])
    assert BUILD.search("obliczone: figures_src/x.py") and BUILD.search("WEAK_VALUE_SCALE")
