"""Polish search: the text taken from the pages, the built index and form table (Python and the
browser's JavaScript agree on every word of the site), the hook's calls. The normaliser and the
table on strings: tests/unit/test_search_forms.py; the real search box: tests/browser/test_search_box.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anatomia_engine import search_pl

KATEX_SQRT_DK = ('<span class="arithmatex"><span class="katex"><span class="katex-mathml"><math><semantics>'
                 '<mrow><msqrt><msub><mi>d</mi><mi>k</mi></msub></msqrt></mrow>'
                 '<annotation encoding="application/x-tex">\\sqrt{d_k}</annotation></semantics></math></span>'
                 '<span class="katex-html" aria-hidden="true"><span>√</span><span>dk</span></span>'
                 '</span></span>')


@pytest.mark.parametrize("mathml, text", [
    ("<mfrac><mrow><mi>Q</mi><msup><mi>K</mi><mo>⊤</mo></msup></mrow><msqrt><msub><mi>d</mi><mi>k</mi></msub>"
     "</msqrt></mfrac>", "QKᵀ/(√d_k)"),
    ("<mi>j</mi><mo>&gt;</mo><mi>i</mi>", "j > i"),
    ("<msub><mrow><mi>softmax</mi><mo>(</mo><mi>x</mi><mo>)</mo></mrow><mi>i</mi></msub>", "softmax (x)_i"),
    ("<msup><mi>ℝ</mi><mrow><mi>n</mi><mo>×</mo><mi>d</mi></mrow></msup>", "ℝ^(n × d)"),
])
def test_math_becomes_readable_text(mathml, text):
    docs = search_pl.page_docs("a/", "A", f"<p><math><semantics>{mathml}<annotation>\\x</annotation>"
                                          "</semantics></math></p>")
    assert docs == [{"location": "a/", "title": "A", "text": text}]


def test_page_text_leaves_out_math_source_data_tables_and_code():
    html = """<article class="md-content__inner md-typeset"><h1>Tytuł</h1><p>Wstęp \u2014 zdanie.</p>
    <h2 id="a">Sekcja KATEX</h2>
    <p>Dzielimy przez KATEX.</p>
    <details class="info"><summary>Dane do rysunku: wagi</summary><table><tr><td>0,7071</td></tr></table>
    <p><a href="x.csv">Pobierz dane (CSV)</a></p></details>
    <details class="tip"><summary>Rozwiązanie</summary><p>Klucze i wartości.</p></details>
    <pre><code>print("kod")</code></pre><p hidden>ukryte</p><p>Koniec.</p></article>""".replace(
        "KATEX", KATEX_SQRT_DK)
    assert search_pl.page_docs("a/", "Inny", html) == [
        {"location": "a/", "title": "Tytuł", "text": "Wstęp \u2014 zdanie."},
        {"location": "a/#a", "title": "Sekcja √d_k",
         "text": "Dzielimy przez √d_k. Rozwiązanie Klucze i wartości. Koniec."}]


# --- the built index ----------------------------------------------------------------------------


# --- the hook ---------------------------------------------------------------------------------

def _plugin(tmp_path):
    """The anatomia plugin with what on_config and on_pre_build give it, its store in tmp_path."""
    from anatomia_engine import links, store
    from anatomia_engine.plugin import AnatomiaPlugin
    from anatomia_engine.state import BuildState

    plugin = AnatomiaPlugin()
    plugin.load_config({})
    plugin.on_startup(command="serve", dirty=False)
    plugin.root, plugin.uses_search = tmp_path, True
    plugin.links = links.Checker()
    plugin.state = BuildState(rendered=store.Store(tmp_path / "pages", ".pickle"),
                              search=store.Store(tmp_path / "search", ".json"))
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
        where = url + "index.html"
        file = types.SimpleNamespace(src_uri=where, dest_uri=where, abs_src_path=None)
        return types.SimpleNamespace(url=url, meta=meta, title="Strona", content=html, file=file)

    hidden, plain, boosted = page("ukryta/", {"search": {"exclude": True}}), page("zwykla/", {}), \
        page("wazna/", {"search": {"boost": 2}})
    for p in (hidden, plain, boosted):
        plugin.on_page_markdown("", page=p, config=config, files=None)
        assert p.meta["search"]["exclude"] is True                  # what Material's plugin reads
        plugin.on_post_page(html, page=p, config=config)
    assert not plugin.sections.get("ukryta/")
    assert plugin.sections["zwykla/"][0]["text"] == "Uwaga na klucze."
    assert all("boost" not in d for d in plugin.sections["zwykla/"])
    assert plugin.sections["wazna/"][0]["boost"] == 2.0


def _server(livereload: str, root: Path):
    """MkDocs' (or ProperDocs') development server, as `serve` makes it, not yet serving."""
    module = pytest.importorskip(livereload)
    return module.LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(root))


def _watched(server) -> list[tuple[str, bool]]:
    """(path, recursive) of every path `server` watches, as its observer holds them."""
    return sorted((emitter.watch.raw_path, emitter.watch.is_recursive)
                  for emitter in server.observer.emitters)


# The plugin runs under ProperDocs (`make serve`) and under MkDocs itself
SERVERS = ("properdocs.livereload", "mkdocs.livereload")


@pytest.mark.parametrize("livereload", SERVERS)
def test_serve_watches_every_module_input(tmp_path, livereload):
    """`mkdocs serve` calls on_serve after its first build: the server then watches figures_src,
    attn_core and every file a module run read (not the engine: `make serve` restarts on that);
    a file inside a folder it watches is seen by that folder's watch, and a folder whose every
    file was read (the fonts matplotlib knows) is watched as one folder, without its subfolders.
    What MkDocs watched itself stays watched, and every path is looked at every POLL_SECONDS."""
    import types

    import anatomia_engine
    from anatomia_engine.plugin import POLL_SECONDS, SETTLE_SECONDS

    plugin = _plugin(tmp_path)
    for folder in ("docs", "figures_src", "attn_core", "data", "fonts/old"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    (tmp_path / "data" / "table.csv").write_text("a,b\n")
    (tmp_path / "data" / "notes.txt").write_text("not read\n")
    (tmp_path / "data" / "labels.csv").write_text("a\n")
    (tmp_path / "attn_core" / "softmax.py").write_text("")
    fonts = [tmp_path / "fonts" / name for name in ("sans.ttf", "serif.ttf")]
    for font in fonts:
        font.write_bytes(b"\0")
    engine = Path(anatomia_engine.__file__)
    inputs = [tmp_path / "data" / "table.csv", tmp_path / "data" / "labels.csv",
              tmp_path / "attn_core" / "softmax.py", engine, *fonts]
    plugin.results = {"m": types.SimpleNamespace(inputs=inputs)}
    plugin.notebook_inputs = []
    server = _server(livereload, tmp_path / "site")
    # what `serve` watches before on_serve
    server.watch(str(tmp_path / "docs"))
    server.watch(str(tmp_path / "mkdocs.yml"))
    try:
        assert plugin.on_serve(server, config=None, builder=None) is server
    finally:
        server.server_close()
    # (watchdog watches a file as not recursive)
    expected = [("attn_core", True), ("data/labels.csv", False), ("data/table.csv", False),
                ("docs", True), ("figures_src", True), ("fonts", False), ("mkdocs.yml", False)]
    assert _watched(server) == sorted((str(tmp_path / n), r) for n, r in expected)
    assert server.observer.timeout == POLL_SECONDS
    assert server.build_delay == SETTLE_SECONDS


@pytest.mark.parametrize("livereload", SERVERS)
def test_serve_that_looks_more_often_sees_a_save_and_builds_once(tmp_path, livereload):
    """The server's observer, replaced before it serves, is the one that runs: a save of two
    pages in a folder MkDocs watched before on_serve is seen and built once, with both."""
    import threading
    import time

    from anatomia_engine.plugin import poll_sooner

    docs = tmp_path / "docs"
    docs.mkdir()
    pages = [docs / "a.md", docs / "b.md"]
    for page in pages:
        page.write_text("# A\n")
    builds = []
    server = _server(livereload, tmp_path)
    server.builder = lambda: builds.append([page.read_text() for page in pages])
    server.watch(str(docs))
    poll_sooner(server)
    serving = threading.Thread(target=server.serve)
    serving.start()
    try:
        time.sleep(0.6)              # the observer's first look, before the save
        pages[0].write_text("# B\n")
        pages[1].write_text("# C\n")
        deadline = time.monotonic() + 30
        while not builds and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.6)              # a second build, had the save been seen twice
    finally:
        server.shutdown()
        serving.join(timeout=30)
        server.server_close()
    assert builds == [["# B\n", "# C\n"]]


# One build in a process of its own: the search files of DOCS (with WORD, if given) into SITE,
# the form table from the store CACHE; with KEEP, first what on_serve does. A new form table made
# after that is refused, and so is loading the dictionary (the save's new word is asked of it).
_SERVE = """
import json, sys
from pathlib import Path
from anatomia_engine import search_pl, store
site, cache, keep, word = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "keep", sys.argv[4]
docs = {"a/": [{"location": "a/", "title": "Zapytania", "text": "Softmax i klucze."}]}
(site / "search").mkdir(parents=True)
stub = {"config": {"separator": " "}, "docs": []}
(site / "search" / "search_index.json").write_text(json.dumps(stub))
kept = store.Store(cache, ".json")
if keep:
    search_pl.keep_table(docs, kept)
    def made_from_nothing(*args, **kwargs):
        raise SystemExit("a new form table")
    search_pl.forms.FormTable.__init__ = made_from_nothing
    import morfeusz2
    def loaded_by_the_save(*args, **kwargs):
        raise SystemExit("the dictionary loaded by the save")
    morfeusz2.Morfeusz = loaded_by_the_save
docs["a/"][0]["text"] += " " + word
search_pl.write_index(site, docs, kept)
"""


def test_serve_keeps_the_form_table_made_after_its_first_build(tmp_path):
    """keep_table (on_serve, after the first build found the table stored) makes this process's
    form table and loads the dictionary: the first save with a new word updates the table
    instead of making one from nothing, asks the loaded dictionary, and ships what a build from
    nothing ships."""
    import subprocess
    import sys

    def build(site: str, cache: str, keep: str, word: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-c", _SERVE, str(tmp_path / site), str(tmp_path / cache), keep, word]
        return subprocess.run(command, capture_output=True, text=True)

    assert build("first", "cache", "-", "").returncode == 0
    served = build("served", "cache", "keep", "Ananas.")
    assert served.returncode == 0, served.stderr
    assert build("afresh", "other", "-", "Ananas.").returncode == 0

    def files(site: str) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in (tmp_path / site / "search").iterdir()}

    assert files("served") == files("afresh")
