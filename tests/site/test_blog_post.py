"""The blog post "Anatomia LLM: mechanizm uwagi" and its own modules.

Page: docs/posty/posts/llm-mechanizm-uwagi.md -> /posty/llm-mechanizm-uwagi/.
Modules checked here: figures_src/luong_bahdanau.py, scaling.py, masking.py, multi_head.py
(their maths, recomputed independently with NumPy), and the built page: front matter, tags,
date, excerpt, "Dla dociekliwych" blocks, footnotes, links, figures, and every number shown
in prose or in a table against the value the modules compute.
"""

from __future__ import annotations

import numpy as np
import pytest
from bs4 import BeautifulSoup

from anatomia_engine import numfmt as nf
from anatomia_engine.plot import STYLES
from helpers import whole_page
from tests.blog_post_facts import (
    ALL_MODULES,
    ARXIV_IDS,
    OTHER_SOURCES,
    OWN_MODULES,
    SEED_TAGS,
    exact_of,
    figures_of,
    formats_of,
    module_values,
    published_numbers,
)

# The source post's tags (its English "deep-dive" in Polish) and references (seeds/001), plus
# Sutskever et al. for the encoder-decoder bottleneck, the arXiv id of Olsson et al. and
# Haviv et al. on positions without positional encodings.
# References that are not on arXiv: Meta's Llama 3 model card, NVIDIA's A100 whitepaper and
# datasheet, Elhage et al. (2021) on transformer-circuits.pub.
# --- helpers ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    path = built_site / "posty" / "llm-mechanizm-uwagi" / "index.html"
    assert path.exists(), "the post must be built at /posty/llm-mechanizm-uwagi/"
    return BeautifulSoup(whole_page(path), "html.parser")   # closed boxes put back


@pytest.fixture(scope="module")
def article(page):
    found = page.select_one("article.md-content__inner")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def scope():
    """Bare names of the modules in the front matter, as the page sees them."""
    from anatomia_engine.placeholders import Entry

    out = {}
    for name in ALL_MODULES:
        for key, value in module_values(name).items():
            assert key not in out, f"value name {key!r} is defined by two modules"
            out[key] = Entry(value, f"figures_src/{name}.py")
    return out


# --- front matter, excerpt, structure -----------------------------------------------------------


def test_built_page_has_title_date_and_tags(page):
    assert page.select_one("article h1").get_text(strip=True) == "Anatomia LLM: mechanizm uwagi"
    times = [t["datetime"] for t in page.select("time[datetime]")]
    assert any(t.startswith("2026-06-12") for t in times), times
    tags = sorted(t.get_text(strip=True) for t in page.select(".md-tag"))
    assert tags == sorted(SEED_TAGS)


def test_blog_index_shows_the_excerpt_only(built_site):
    index = BeautifulSoup((built_site / "posty" / "index.html").read_text(encoding="utf-8"),
                          "html.parser")
    text = index.get_text(" ")
    assert "Anatomia LLM: mechanizm uwagi" in text
    assert "W skrócie" not in text
    assert not index.select("article .admonition"), "the excerpts are one paragraph, no boxes"
    assert any(a.get("href", "").rstrip("/").endswith("llm-mechanizm-uwagi")
               for a in index.select("a"))


def test_dla_dociekliwych_blocks_are_collapsible_notes(article):
    notes = [d for d in article.select("details.note")
             if d.summary and d.summary.get_text().startswith("Dla dociekliwych:")]
    titles = [d.summary.get_text(strip=True).removeprefix("Dla dociekliwych:").strip()
              for d in notes]
    source = ["trzy funkcje oceny Luonga", "wzór uwagi i skąd bierze się pierwiastek z wymiaru",
              "jak działa maska trójkątna", "wzór uwagi wielogłowej",
              "skąd kwadratowy koszt i czym jest KV-cache"]
    assert [t for t in titles if t in source] == source
    assert len(titles) > len(source), "the computed sections keep their details in blocks too"
    for d in notes:
        assert not d.has_attr("open"), "the blocks start collapsed"
        assert d.select(".arithmatex"), f"{d.summary.get_text()!r} should hold formulas"


def test_footnotes_link_their_sources(article):
    """Every footnote links one source; every reference of the source article is among them (more
    may be added: a newer paper, a model card)."""
    items = article.select(".footnote li")
    found, others = set(), set()
    for li in items:
        links = [a["href"] for a in li.select("a[href^='https://']")
                 if "footnote" not in a.get("class", [])]
        assert len(links) == 1, li.get_text()
        if links[0].startswith("https://arxiv.org/abs/"):
            found.add(links[0].rsplit("/", 1)[1])
        else:
            others.update(s for s in OTHER_SOURCES if s in links[0])
    assert ARXIV_IDS <= found, ARXIV_IDS - found
    assert others == set(OTHER_SOURCES)
    refs = {a["href"].lstrip("#") for a in article.select("sup a.footnote-ref, a.footnote-ref")}
    assert refs == {li["id"] for li in items}, "every footnote is cited and every citation exists"


def test_internal_links_resolve_and_series_links_are_gone(article, built_site):
    base = built_site / "posty" / "llm-mechanizm-uwagi"
    hrefs = {a["href"] for a in article.select("a[href]")}
    internal = {h for h in hrefs if not h.startswith(("http", "#", "mailto:"))}
    for href in internal:
        path, _, anchor = href.partition("#")
        target = (base / path).resolve()
        if target.is_dir():
            target = target / "index.html"
        assert target.exists(), f"broken link {href}"
        if anchor and target.suffix == ".html":
            assert f'id="{anchor}"' in whole_page(target), f"no anchor {href}"
    wanted = {"../../krok-po-kroku/", "../../laby/lab-3/", "../../llm/anatomia/#uwaga"}
    assert wanted <= internal, internal
    # The source links to posts this site does not have (the series' overview, the tokens
    # post, the essay); tag links (../tagi/#tag:anatomia-llm) are fine.
    paths = {h.partition("#")[0] for h in hrefs}
    for gone in ("llm-tokeny-embeddingi", "anatomia-llm", "rezonans"):
        assert not any(gone in path for path in paths), gone


# --- numbers in the page ------------------------------------------------------------------------

def test_no_placeholder_survives(article):
    text = article.get_text()
    assert "{{" not in text and "{%" not in text and "endclaim" not in text


def test_every_prose_number_is_a_module_value(article, scope):
    """Each number in prose is a value (an element, a table cell) of the module its span names,
    shown by one of the site's formats; a computed expression (no data-what) is at least shown
    as its own exact value rounded."""
    spans = article.select("span.num")
    assert len(spans) > 100
    candidates: dict[str, list[float]] = {}
    for entry in scope.values():
        candidates.setdefault(entry.source, []).extend(published_numbers(entry.value))
    for span in spans:   # a value written module.name, of a module the front matter does not list
        source = span.get("data-source")
        if source and source not in candidates:
            values = module_values(source.removeprefix("figures_src/").removesuffix(".py")).values()
            candidates[source] = [c for value in values for c in published_numbers(value)]
    for span in spans:
        if span["data-exact"].startswith("["):
            continue
        exact = exact_of(span)
        source = span.get("data-source")
        pool = candidates.get(source, []) if source else [c for v in candidates.values() for c in v]
        near = [c for c in pool if np.isfinite(c) and (abs(c - exact) <= 5e-7 * abs(c) or c == exact)]
        if span.has_attr("data-what") or span.has_attr("data-cite"):
            assert near, (span, source)
        shown = set().union(*(formats_of(c) for c in near)) if near else formats_of(exact)
        assert span.get_text() in shown, span


def test_luong_table_in_the_page_matches_the_module(article):
    v = module_values("luong_bahdanau")
    block = next(d for d in article.select("details.note")
                 if d.summary and "trzy funkcje oceny Luonga" in d.summary.get_text())
    table = block.select_one("table")
    assert [th.get_text() for th in table.select("th")] == ["funkcja oceny", *v["luong_source"]]
    rows = [[td.get_text() for td in tr.select("td")] for tr in table.select("tbody tr")]
    expected = [[f"{name}: {label}", *(nf.fmt_dec(x, 2) for x in v[f"luong_{name}_{kind}"])]
                for name in ("dot", "general", "concat")
                for kind, label in (("scores", "ocena"), ("weights", "waga"))]
    assert rows == expected


def test_formulas_show_the_computed_numbers(article):
    v = module_values("luong_bahdanau")
    maths = " ".join(m.get_text() for m in article.select(".arithmatex"))
    assert f"={nf.fmt_dec(v['luong_dot_scores'][2], 2, math=True)}" in maths
    assert f"={nf.fmt_dec(v['luong_general_scores'][2], 3, math=True)}" in maths
    assert f"={nf.fmt_dec(v['luong_concat_scores'][2], 3, math=True)}" in maths
    assert nf.fmt_bmatrix(module_values("masking")["mask_M"], 0) in maths
    assert r"-\infty" in maths
    # Bahdanau's additive score, the formula behind the alignment heatmap.
    assert r"e_{ij}=v_a^{\top}\tanh\!\big(W_a s_{i-1}+U_a h_j\big)" in maths


def test_key_numbers_of_the_experiments_are_shown(article):
    """The experiments' headline numbers appear on the page (whatever the wording)."""
    s = module_values("scaling")
    shown = {span.get_text() for span in article.select("span.num")}
    assert nf.fmt_dec(s["var_focus"], 1) in shown
    assert nf.fmt_dec(s["sat_max_unscaled_focus"], 2) in shown
    assert nf.fmt_dec(s["sat_max_scaled_focus"], 2) in shown
    m = module_values("multi_head")
    maths = " ".join(x.get_text() for x in article.select(".arithmatex"))
    assert f"{m['base_d_model']}/{m['base_heads']} = {m['base_d_k']}" in maths


def test_figures_of_the_post_are_embedded_light_and_dark(article):
    for module in OWN_MODULES:
        short = module.__name__.split(".")[-1]
        for name, fn in figures_of(module).items():
            fig = article.select_one(f"figure#fig-{short}-{name}")
            assert fig is not None, f"{short}.{name} is not on the page"
            srcs = sorted(img["src"] for img in fig.select("img"))
            assert [s.rsplit("#", 1)[1] for s in srcs] == ["only-dark", "only-light"]
            plot = fn(STYLES[0])
            assert fig.select_one("img")["alt"] == plot.alt.replace("[", "(").replace("]", ")")


def test_facts_as_in_the_facts_sheet(article):
    """Where the sources overclaim, the post names what the facts sheet names."""
    text = " ".join(article.get_text(" ").split())
    for name in ("Llama 3.1", "34B", "Graves", "Elhage", "3.2 1B"):
        assert name in text, name
    assert "Claude" not in text          # its architecture is not published


# --- the modules' maths, recomputed -------------------------------------------------------------


