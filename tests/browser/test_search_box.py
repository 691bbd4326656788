"""Polish search in the real search box of the built site (headless Chromium): typed queries,
forms the site never writes, ranking, snippets and the highlight on the page a result opens."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, unquote, urlparse

import pytest
from search_built import load_built

from anatomia_engine import search_pl


def search(page, query: str) -> list[dict]:
    """Type `query` into the box; the results as the reader sees them, one entry per page."""
    box = page.locator("input.md-search__input")
    if page.viewport_size["width"] < 960:   # phones: the header's magnifier opens the search dialog
        if not page.evaluate("document.getElementById('__search').checked"):
            page.locator("label.md-header__button[for=__search]").click()
        box.focus()
    else:
        box.click()
    # Material searches on each keyup that changes the box's value. The box is emptied (its note
    # "Zacznij pisać" stands for the results), then the query is put in and a key is let go: the
    # worker answers the whole query once, and nothing older is left shown.
    box.fill("")
    box.press("End")
    page.wait_for_function("/Zacznij/.test(document.querySelector('.md-search-result__meta').textContent)")
    box.fill(query)
    box.press("End")
    page.wait_for_function("""(q) => {
        const meta = document.querySelector('.md-search-result__meta');
        return document.querySelector('.md-search__input').value === q && meta &&
               !/Inicjowanie|Zacznij/.test(meta.textContent);
    }""", arg=query, timeout=15000)
    # the worker may still answer an earlier keystroke: the results are the query's once they stay put
    page.wait_for_function("""() => {
        const html = document.querySelector('.md-search-result').innerHTML, same = html === window.lastResult;
        window.lastResult = html;
        return same;
    }""", polling=300, timeout=15000)
    return page.evaluate("""() => [...document.querySelectorAll('.md-search-result__item')].map(li => ({
        pages: [...li.querySelectorAll('a')].map(a => new URL(a.href).pathname),
        links: [...li.querySelectorAll('a')].map(a => a.href),
        html: li.innerHTML,
        text: li.innerText,
        marks: [...li.querySelectorAll('mark')].map(m => m.textContent),
        articles: [...li.querySelectorAll('article')].map(a => {
            const h = a.querySelector('h1, h2');
            const snippets = [...a.querySelectorAll('p:not(.md-search-result__terms)')]
                .map(p => p.textContent.trim());
            return { level: h.tagName, title: h.textContent, headingMarked: !!h.querySelector('mark'),
                     snippets: snippets, text: snippets.join(' ') };
        }),
    }))""")


def pages_of(items) -> list[str]:
    return [unquote(item["pages"][0]) for item in items]


@pytest.fixture(scope="module")
def site_index(built_site):
    return load_built(built_site)


@pytest.fixture(scope="module")
def search_page(browser, server):
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(urlparse(r.url).path))
    page.goto(server + "/krok-po-kroku/", wait_until="networkidle")
    yield page, requests
    context.close()


def test_index_and_form_table_load_only_when_the_reader_searches(search_page):
    page, requests = search_page
    assert not [r for r in requests if "pl-index" in r or "pl-forms" in r], requests
    search(page, "softmax")
    assert [r for r in requests if "pl-index" in r] and [r for r in requests if "pl-forms" in r]


QUERIES = [  # (what a reader types, a page it must find)
    ("głowica", "/posty/llm-mechanizm-uwagi/"),
    ("glowa", "/posty/llm-mechanizm-uwagi/"),
    ("głów", "/posty/llm-mechanizm-uwagi/"),
    ("pamiec", "/posty/llm-mechanizm-uwagi/"),
    ("pamięć", "/laby/lab-3/"),
    ("PAMIĘCI", "/jak-dodac-wartosc/"),
    ("uwaga", "/laby/lab-3/"),
    ("kluczy", "/llm/anatomia/"),
    ("maski przyczynowej", "/krok-po-kroku/"),
    ("softmaxu", "/posty/llm-mechanizm-uwagi/"),    # the site spells it softmaksu
]


@pytest.mark.parametrize("query, expected", QUERIES)
def test_query_finds_the_page(search_page, site_index, query, expected):
    page, _ = search_page
    index, _ = site_index
    items = search(page, query)
    found = pages_of(items)
    assert expected in found, f"{query!r} found {found}"
    # every page whose text uses the word exactly as typed is found too
    exact = re.compile(rf"(?<!\w){re.escape(query)}(?!\w)", re.I)
    for d in index["docs"]:
        if exact.search(d["text"]) or exact.search(d["title"]):
            assert "/" + d["location"].split("#")[0] in found, f"{query!r} missed {d['location']}"
    marks = {m for item in items for m in item["marks"]}
    stem = search_pl.fold(query.split()[0])[:3]
    assert any(search_pl.fold(m).startswith(stem) for m in marks), marks


@pytest.mark.parametrize("query", ["nasycenia", "dopasowaniu", "maskowaniem", "zapytaniom", "softmaxami",
                                   "nasyceniem", "maskowaniu", "zapytaniach", "softmaksowi",
                                   "layernormami"])
def test_a_form_the_site_never_writes_finds_the_pages_of_its_word(search_page, site_index, query):
    page, _ = search_page
    index, table = site_index
    site = {search_pl.fold(w) for w in search_pl.site_words(index["docs"])}
    assert search_pl.fold(query) not in site, f"{query!r} is on the site: no test of inflection"
    items = search(page, query)
    assert items, f"{query!r} found nothing"
    marks = {search_pl.fold(m) for item in items for m in item["marks"]}
    assert marks and all(m in site for m in marks)
    stem = search_pl.fold(query)[:4]
    assert all(m.startswith(stem[:3]) for m in marks), marks


def test_homograph_forms_find_the_same_pages(search_page):
    """`zapytanie` (the noun the site uses, also the gerund of `zapytać`) and its other forms."""
    page, _ = search_page
    forms = ("zapytanie", "zapytania", "zapytań", "zapytaniom")
    found = [set(pages_of(search(page, q + " "))) for q in forms]
    assert len(found[0]) >= 4 and all(f == found[0] for f in found), found


@pytest.mark.parametrize("query", ["maska pamięć", "softmax temperatura", "wartość pamięć"])
def test_a_multi_word_query_ranks_pages_holding_every_word_first(search_page, site_index, query):
    page, _ = search_page
    index, table = site_index
    keys = [search_pl.normalise(w, table) for w in query.split()]
    held: dict[str, set[str]] = {}
    for d in index["docs"]:
        words = {search_pl.normalise(w, table) for w in search_pl.tokenize(d["title"] + " " + d["text"])}
        held.setdefault("/" + d["location"].split("#")[0], set()).update(k for k in keys if k in words)
    flags = [held[p] == set(keys) for p in pages_of(search(page, query + " "))]
    assert True in flags and False in flags, flags          # the query tells the two kinds apart
    assert flags == sorted(flags, reverse=True), flags


@pytest.mark.parametrize("query", ["softmax", "maska", "skalowanie"])
def test_a_heading_holding_the_word_ranks_above_a_passing_mention(search_page, query):
    page, _ = search_page
    items = search(page, query + " ")
    flags = [any(a["headingMarked"] for a in item["articles"]) for item in items]
    assert True in flags and False in flags, flags
    assert flags == sorted(flags, reverse=True), flags
    first = items[0]["articles"]
    assert any(a["headingMarked"] for a in first[:2]), first[:2]


@pytest.mark.parametrize("query", [
    "indukcyjne", "głowy indukcyjne", "softmax", "pamięć", "zapytanie", "kluczy"])
def test_no_result_shows_an_empty_snippet(search_page, query):
    page, _ = search_page
    items = search(page, query)
    assert items
    for item in items:
        articles = item["articles"]
        assert any(a["text"] for a in articles), f"{query!r}: {item['pages'][0]} shows no text"
        for a in articles:
            assert all(a["snippets"]), f"{query!r}: {a['title']!r} shows an empty snippet"
            if a["level"] == "H2":
                assert a["text"], f"{query!r}: section {a['title']!r} shows no text"


def test_the_induction_heads_page_shows_a_snippet(search_page):
    page, _ = search_page
    items = search(page, "indukcyjne")
    item = next(i for i in items if pages_of([i])[0] == "/posty/glowy-indukcyjne/")
    assert item["articles"][0]["text"], item["articles"]


def test_result_links_highlight_the_forms_found_on_the_page(browser, server):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(server + "/", wait_until="networkidle")
        items = search(page, "glowa")
        for item in items:
            for link in item["links"]:
                forms = " ".join(parse_qs(urlparse(link).query).get("h", [""]))
                assert forms.strip(), f"empty ?h= in {link}"
        link = items[0]["links"][0]
        expected = parse_qs(urlparse(link).query)["h"][0].split()
        assert all(search_pl.fold(f).startswith("glow") for f in expected), expected
        page.goto(link, wait_until="networkidle")
        page.wait_for_selector("mark[data-md-highlight]", timeout=10000)
        marked = {search_pl.fold(m) for m in page.eval_on_selector_all(
            "mark[data-md-highlight]", "ms => ms.map(m => m.textContent)")}
        assert marked and all(m.startswith("glow") for m in marked), marked
        assert len(marked) >= 2, marked          # inflected forms, not only the one typed
    finally:
        context.close()


def test_inflected_forms_are_highlighted(search_page):
    page, _ = search_page
    items = search(page, "glowa")
    marks = {search_pl.fold(m) for item in items for m in item["marks"]}
    assert len(marks & {"glowy", "glow", "glowie", "glowe", "glowa", "glowami", "glowach"}) >= 2, marks


def test_snippets_are_readable(search_page):
    page, _ = search_page
    for query in ("skalowanie", "softmax", "macierz"):
        items = search(page, query)
        assert items, query
        for item in items:
            assert "\\(" not in item["text"] and "\\frac" not in item["text"], item["text"][:300]
            assert "Dane do rysunku" not in item["text"]


def test_unknown_word_finds_nothing_and_says_so(search_page):
    page, _ = search_page
    assert search(page, "xyzzyqq") == []
    assert "Brak" in page.inner_text(".md-search-result__meta")


def test_search_on_a_phone_and_its_dialog_is_named(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(server + "/", wait_until="networkidle")
        assert page.get_attribute(".md-search[role=dialog]", "aria-label") == "Szukaj"
        items = search(page, "kluczy")
        assert "/llm/anatomia/" in pages_of(items)
        # Material opens the dialog with a growing circle (.md-search__overlay) that is wider than
        # the screen while it animates; what a reader is left with is the page once it has settled.
        page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')",
                               timeout=10000)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"search dialog makes the page {width} px wide"
    finally:
        context.close()
