"""Closed boxes load when opened (anatomia_engine/lazy_details.py, hooks/lazy_details.py,
docs/javascripts/lazy-details.js).

The module's rules on small pages of their own; the built site (fragments beside the pages, ids
reachable, search still finding words only in a moved body, page weight within budget); and the
boxes in Chromium: opened by click and by keyboard, by an address naming an id inside, printed,
read without JavaScript, on a phone, and checked by axe-core.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from anatomia_engine import lazy_details as ld
from helpers import REPO, whole_page

POST = "/posty/llm-mechanizm-uwagi/"
LAB = "/laby/lab-3/"
HOLDER = "p.lazy-details"
CLOSED_LAZY = "details:not([open]):has(> p.lazy-details) > summary"
LOADED = "() => !document.querySelector('details[open] > p.lazy-details')"


def _page(body: str, head_extra: str = "") -> str:
    return ('<!doctype html>\n<html lang="pl"><head><meta charset="utf-8">'
            "<title>Strona &amp; tytuł</title>\n"
            '<link rel="stylesheet" href="../../assets/stylesheets/main.abcdef12.min.css">\n'
            '<link rel="stylesheet" href="../../stylesheets/extra.css">\n' + head_extra +
            '</head>\n<body dir="ltr" data-md-color-scheme="default">\n'
            f'<article class="md-content__inner md-typeset">\n{body}\n</article>\n</body></html>\n')


def _box(summary: str, body: str, attrs: str = ' class="note"') -> str:
    return f"<details{attrs}>\n<summary>{summary}</summary>\n{body}\n</details>"


def _filler(n: int) -> str:
    """A paragraph of exactly n bytes (UTF-8)."""
    head, tail = "<p>", "</p>"
    return head + "x" * (n - len(head) - len(tail)) + tail


# --- the module -----------------------------------------------------------------------------------

def test_a_large_closed_box_moves_and_the_page_around_it_stays_byte_for_byte():
    body = "\n" + _filler(3000) + "\n"
    before, after = "<p>Przed ramką.</p>\n", "\n<p>Po ramce.</p>"
    box = f'<details class="note">\n<summary>Dla dociekliwych: wzór</summary>{body}</details>'
    page = _page(before + box + after)
    text, files, moved = ld.split_page(page)
    assert [m.summary for m in moved] == ["Dla dociekliwych: wzór"]
    (name, document), = files.items()
    assert re.fullmatch(r"ramka-[0-9a-f]{12}\.html", name)
    assert name == f"ramka-{hashlib.sha256(document).hexdigest()[:12]}.html"
    head, _, tail = page.partition(body)
    assert text.startswith(head) and text.endswith(tail)
    assert text[len(head):len(text) - len(tail)] == ld.placeholder(name, [])
    assert "x" * 100 not in text and "x" * 2900 in document.decode("utf-8")
    assert f'<a href="{name}">{ld.LINK_TEXT}</a>' in text
    assert ld.restore(text, lambda n: files[n].decode("utf-8")) == page


def test_the_threshold_is_the_body_size_in_bytes():
    # the body is what follows </summary>: "\n" + paragraph + "\n"
    at = _page(_box("a", _filler(ld.THRESHOLD - 2)))
    below = _page(_box("a", _filler(ld.THRESHOLD - 3)))
    polish = _page(_box("a", "<p>" + "ł" * ((ld.THRESHOLD - 8) // 2) + "</p>"))  # 2 bytes a letter
    assert len(ld.split_page(at)[2]) == 1
    assert ld.split_page(below) == (below, {}, [])
    assert len(ld.split_page(polish)[2]) == 1


def test_open_small_and_nested_boxes_stay():
    inner_big = _box("wewnętrzna", _filler(3000))
    page = _page("\n".join([
        _box("otwarta", _filler(3000), ' class="note" open'),
        _box("mała", "<p>Krótko.</p>"),
        _box("z zagnieżdżoną", "<p>Zewnętrzna, mała.</p>\n" + inner_big),     # outer > threshold
        _box("otwarta z zagnieżdżoną", inner_big, ' open'),
    ]))
    text, files, moved = ld.split_page(page)
    assert [m.summary for m in moved] == ["z zagnieżdżoną"]
    (document,) = files.values()
    assert "wewnętrzna" in document.decode("utf-8")            # the nested box moved with its parent
    assert page.count("<details") == 6 and text.count("<details") == 5   # the nested one went along
    assert "otwarta z zagnieżdżoną" in text and text.count("x" * 2000) == 2


def test_ids_that_links_point_at_are_listed_and_in_page_links_still_work():
    body = ('<p>Wzór<sup id="fnref:2"><a class="footnote-ref" href="#fn:2">2</a></sup>, '
            '<span id="nobody-links-here">x</span>, <a href="#sekcja">sekcja</a>, '
            '<a href="../inna/#fnref:2">inna strona</a>.</p>\n<h3 id="naglowek">Nagłówek</h3>\n'
            + _filler(2000))
    page = _page(_box("Dla dociekliwych", body) + '\n<h2 id="sekcja">S</h2>\n'
                 '<div class="footnote"><ol><li id="fn:2"><a href="#fnref:2">↩</a></li></ol></div>')
    text, files, moved = ld.split_page(page)
    assert moved[0].ids == ["fnref:2", "naglowek"]
    assert 'data-lazy-ids="fnref:2 naglowek"' in text
    document = next(iter(files.values())).decode("utf-8")
    assert 'href="./#fn:2"' in document and 'href="./#sekcja"' in document
    assert 'href="../inna/#fnref:2"' in document                  # another page's link as it was
    assert 'href="#' not in document.split('class="lazy-details__body"')[1].split("Wróć")[0]
    assert 'href="#fnref:2"' in text                              # the page's own links as they were


def test_the_fragment_is_a_complete_polish_document_with_the_pages_stylesheets():
    page = _page(_box("Dane do rysunku: „wagi” <b>uwagi</b>", _filler(3000)))
    (document,) = (d.decode("utf-8") for d in ld.split_page(page)[1].values())
    assert document.startswith("<!doctype html>\n<html lang=\"pl\">")
    assert '<meta charset="utf-8">' in document
    title = re.search(r"<title>(.*)</title>", document).group(1)
    assert title == "Dane do rysunku: „wagi” uwagi — Strona &amp; tytuł"
    sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)">', document)
    assert sheets == re.findall(r'<link rel="stylesheet" href="([^"]+)">', page)
    assert '<body dir="ltr" data-md-color-scheme="default">' in document
    assert '<article class="md-content__inner md-typeset">' in document
    assert "x" * 2900 in ld.body_of(document)


def test_tables_and_code_get_what_materials_script_gives_them_at_load():
    config = ('<script id="__config" type="application/json">{"features": ["content.code.copy"], '
              '"translations": {"clipboard.copy": "Kopiuj do schowka"}}</script>\n')
    body = ('<table data-align="right"><tr><td>1</td></tr></table>\n'
            '<table class="own"><tr><td>2</td></tr></table>\n'
            '<div class="highlight"><pre><span></span><code>a = 1</code></pre></div>\n'
            '<div class="highlight"><pre><code>b = 2</code></pre></div>\n' + _filler(2000))
    for head, button in ((config, True), ("", False)):
        document = next(iter(ld.split_page(_page(_box("Kod", body), head))[1].values())).decode("utf-8")
        moved = ld.body_of(document)
        assert moved.count('<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
                           '<table class="wrapped-table" data-align="right">') == 1
        assert '</table></div></div>\n<table class="own">' in moved
        ids = re.findall(r'<pre id="(__code_[0-9a-f]{6}_\d+)">', moved)
        assert len(ids) == 1                      # `pre > code` only, not `pre > span + code`
        assert moved.count('<code tabindex="0">') == 1
        assert ('data-clipboard-target="#' + ids[0] + ' &gt; code"' in moved) is button
        assert ('title="Kopiuj do schowka"' in moved) is button


def test_same_page_same_bytes():
    page = _page(_box("a", _filler(3000)) + _box("b", "<p>" + "y" * 4000 + "</p>"))
    assert ld.split_page(page) == ld.split_page(page)
    assert len(ld.split_page(page)[1]) == 2


def test_the_hook_runs_after_search_and_link_check_and_is_registered():
    from hooks import lazy_details as hook
    from hooks import links, search_pl
    ours = hook.on_post_page.mkdocs_priority
    assert ours < links.on_post_page.mkdocs_priority
    assert ours < getattr(search_pl.on_post_page, "mkdocs_priority", 0)
    hooks = re.findall(r"^  - (hooks/\S+)", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)
    assert "hooks/lazy_details.py" in hooks
    assert "javascripts/lazy-details.js" in (REPO / "mkdocs.yml").read_text(encoding="utf-8")


# --- the built site -------------------------------------------------------------------------------

class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        for key in ("href", "src"):
            if values.get(key):
                self.urls.append(values[key])


def _parse(text: str) -> _Links:
    parser = _Links()
    parser.feed(text)
    return parser


def _listed(page_text: str) -> set[str]:
    return {i for ids in re.findall(r'<p class="lazy-details" data-lazy-ids="([^"]*)"', page_text)
            for i in ids.split()}


def test_the_post_and_the_lab_moved_their_large_closed_boxes(built_site):
    for path in (POST, LAB):
        folder = built_site / path.strip("/")
        page = (folder / "index.html").read_text(encoding="utf-8")
        names = re.findall(r'<p class="lazy-details"[^>]*><a href="([^"]+)">', page)
        assert len(names) >= 10, path
        assert sorted(names) == sorted(p.name for p in folder.glob("ramka-*.html")), path
        whole = whole_page(folder / "index.html")
        assert len(page.encode()) < 0.8 * len(whole.encode()), path      # a fifth or more moved
        for box in re.findall(r"<details(?![^>]*\sopen)[^>]*>\s*<summary>.*?</summary>(.*?)</details>",
                              page, re.S):
            assert len(box.encode("utf-8")) < ld.THRESHOLD or HOLDER.split(".")[1] in box


def test_fragments_name_existing_files_and_ids_that_the_script_can_reach(built_site):
    for fragment in sorted(built_site.rglob("ramka-*.html")):
        text = fragment.read_text(encoding="utf-8")
        page = fragment.with_name("index.html").read_text(encoding="utf-8")
        sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)">', text)
        assert sheets == re.findall(r'<link rel="stylesheet" href="([^"]+)">', page), fragment
        page_ids = _parse(page).ids | _listed(page)
        for url in _parse(text).urls:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue
            if parts.path:
                target = (fragment.parent / unquote(parts.path)).resolve()
                target = target / "index.html" if target.is_dir() else target
                assert target.is_file(), f"{fragment.name}: {url}"
            if parts.path in ("./", "") and parts.fragment:
                assert unquote(parts.fragment) in page_ids, f"{fragment.name}: {url}"


def test_every_link_into_a_moved_body_is_listed_on_its_placeholder(built_site):
    """From any page (or fragment) of the site: a link to an id that is only in a moved body."""
    pages = {p: p.read_text(encoding="utf-8") for p in built_site.rglob("*.html")}
    ids = {p: _parse(t).ids for p, t in pages.items()}
    checked = 0
    for source, text in pages.items():
        base = "http://site/" + source.relative_to(built_site).as_posix()
        for url in _parse(text).urls:
            absolute = urljoin(base, url)
            parts = urlsplit(absolute)
            if not absolute.startswith("http://site/") or not parts.fragment:
                continue
            target = built_site / unquote(parts.path.removeprefix("/"))
            target = target / "index.html" if target.is_dir() or parts.path.endswith("/") else target
            if target not in pages or not list(target.parent.glob("ramka-*.html")):
                continue
            anchor = unquote(parts.fragment)
            if anchor not in ids[target]:
                checked += 1
                assert anchor in _listed(pages[target]), f"{source}: {url} -> {target}"
    assert checked > 0        # footnote back-links point into moved boxes of the post


def test_search_finds_words_that_are_only_in_a_moved_body(built_site):
    index = json.loads(next((built_site / "search").glob("pl-index.*.json")).read_text(encoding="utf-8"))
    post = (built_site / "posty/llm-mechanizm-uwagi/index.html").read_text(encoding="utf-8")
    words = set(re.findall(r"\w{9,}", re.sub(r"<[^>]+>", " ", post)))
    only_moved = set()
    for fragment in (built_site / "posty/llm-mechanizm-uwagi").glob("ramka-*.html"):
        body = ld.body_of(fragment.read_text(encoding="utf-8"))
        if "<table" in body:          # figure data: left out of the index on purpose
            continue
        prose = " ".join(re.findall(r"<p>(.*?)</p>", re.sub(r"<math.*?</math>", " ", body, flags=re.S), re.S))
        only_moved |= {w for w in re.findall(r"\w{9,}", re.sub(r"<[^>]+>", " ", prose))
                       if not w.isdigit()} - words
    assert len(only_moved) > 10
    post_text = " ".join(d["text"] for d in index["docs"]
                         if d["location"].startswith("posty/llm-mechanizm-uwagi/"))
    found = [w for w in only_moved if w in post_text]
    assert len(found) > 0.9 * len(only_moved), sorted(only_moved - set(found))[:10]
    assert not any(d["location"].count("ramka-") for d in index["docs"])


def test_first_load_of_the_post_and_the_lab_is_within_budget(browser, server):
    sys.path.insert(0, str(REPO / "tests" / "bench"))
    import weight

    for path in (POST, LAB):
        rows = weight.measure(browser, server + path)
        raw, packed = sum(r[1] for r in rows), sum(r[2] for r in rows)
        assert not any("ramka-" in r[0] for r in rows), path
        assert raw <= weight.RAW_BUDGET, f"{path}: {raw / 1024:.1f} KiB raw"
        assert packed <= weight.GZIP_BUDGET, f"{path}: {packed / 1024:.1f} KiB gzip"


# --- in Chromium ----------------------------------------------------------------------------------

@pytest.fixture
def context(browser):
    made = []

    def make(**options):
        made.append(browser.new_context(**{"viewport": {"width": 375, "height": 812}, **options}))
        return made[-1].new_page()
    yield make
    for c in made:
        c.close()


def _errors(page) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(r.url) if r.status >= 400 else None)
    return errors


def test_a_click_loads_the_body_with_its_math_and_numbers_with_popovers(context, server):
    page = context()
    errors = _errors(page)
    page.goto(server + POST, wait_until="networkidle")
    box = page.locator("article details").nth(page.evaluate("""() => [...document.querySelectorAll(
        'article details')].findIndex(d => d.firstElementChild.textContent.includes('oceny Luonga'))"""))
    assert box.locator(HOLDER).count() == 1
    summary = box.locator("summary")
    requests = []
    page.on("request", lambda r: requests.append(r.url) if "ramka-" in r.url else None)
    summary.click()
    page.wait_for_function(LOADED)
    assert len(requests) == 1
    assert box.locator(".katex math").count() >= 3 and box.locator(HOLDER).count() == 0
    assert "score" in box.inner_text() and box.get_attribute("aria-busy") is None
    number = box.locator(".num").first
    number.focus()
    tip = page.locator("#num-tip")
    assert tip.is_visible() and tip.inner_text().strip()
    assert number.get_attribute("aria-describedby") == "num-tip"
    summary.click()
    summary.click()                                   # closed and opened again: no second request
    assert len(requests) == 1 and errors == []


def test_enter_on_the_summary_loads_the_labs_code_with_a_copy_button(context, server):
    page = context(color_scheme="dark")
    errors = _errors(page)
    page.goto(server + LAB, wait_until="networkidle")
    summary = page.locator(CLOSED_LAZY).filter(has_text="PyTorch").first
    summary.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(LOADED)
    box = page.locator("details[open]").first
    assert "torch" in box.locator("pre > code").first.inner_text()
    button = box.locator("button.md-code__button[data-md-type=copy]").first
    target = button.get_attribute("data-clipboard-target")
    assert page.locator(target).count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    assert errors == []


def test_an_address_naming_an_id_inside_a_moved_body_opens_it(context, server, built_site):
    text = (built_site / POST.strip("/") / "index.html").read_text(encoding="utf-8")
    target = sorted(_listed(text))[0]
    page = context()
    page.goto(server + POST + "#" + target, wait_until="networkidle")
    page.wait_for_function("(id) => document.getElementById(id)", arg=target, timeout=5000)
    assert page.evaluate("(id) => document.getElementById(id).closest('details').open", target)
    top = page.evaluate("(id) => document.getElementById(id).getBoundingClientRect().top", target)
    assert 0 <= top < 812
    # a footnote's back-link inside the same page, clicked after loading
    page.goto(server + POST, wait_until="networkidle")
    back = page.locator(f'.footnote a[href="#{target}"]')
    assert back.count() == 1
    back.click()
    page.wait_for_function("(id) => document.getElementById(id)", arg=target, timeout=5000)
    assert page.evaluate("(id) => document.getElementById(id).closest('details').open", target)


def test_a_failed_load_says_so_and_keeps_the_link(context, server):
    page = context()
    page.route("**/ramka-*.html", lambda route: route.fulfill(status=404, body="nie ma"))
    page.goto(server + POST, wait_until="networkidle")
    box = page.locator("details:has(> p.lazy-details)").first
    box.locator("summary").click()
    holder = box.locator(HOLDER)
    holder.locator("text=Nie udało się").wait_for()
    assert re.fullmatch(r"ramka-[0-9a-f]{12}\.html", holder.locator("a").get_attribute("href"))
    assert box.get_attribute("aria-busy") is None


def test_printing_prints_every_moved_body(context, server):
    page = context()
    page.goto(server + POST, wait_until="networkidle")
    assert page.locator(HOLDER).count() > 10
    page.pdf()                                       # Chromium fires beforeprint first
    assert page.locator(HOLDER).count() == 0
    assert page.locator("details .katex").count() > 50


def test_without_javascript_the_link_shows_the_body_with_styled_math(context, server):
    page = context(java_script_enabled=False)
    page.goto(server + POST, wait_until="networkidle")
    summary = page.locator("details:has(> p.lazy-details) > summary").filter(has_text="wzór RoPE")
    summary.click()
    page.locator("details[open] > p.lazy-details a").click()
    page.wait_for_load_state("networkidle")
    assert re.search(r"/ramka-[0-9a-f]{12}\.html$", page.url)
    assert page.title().startswith("Dla dociekliwych: wzór RoPE")
    assert page.locator("article.md-typeset .katex math").count() > 3
    styles = """() => ['article.md-typeset', 'article p', 'article .katex math']
        .map(s => getComputedStyle(document.querySelector(s)))
        .map(c => [c.fontFamily, c.fontSize, c.color, c.overflowX].join('|'))"""
    alone = page.evaluate(styles)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.locator("a", has_text="Wróć do całego artykułu").click()
    page.wait_for_load_state("networkidle")
    assert page.url.endswith(POST)
    assert page.evaluate(styles) == alone             # styled as on the page: the same stylesheets


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", [POST, LAB])
def test_opened_boxes_pass_axe_and_fit_a_phone(context, server, path, scheme):
    from test_a11y import AXE, BLOCKING, RUN_AXE, report

    page = context(color_scheme=scheme)
    page.goto(server + path, wait_until="networkidle")
    page.evaluate("document.querySelectorAll('details:has(> p.lazy-details)')"
                  ".forEach(d => { d.open = true; })")
    page.wait_for_function(LOADED)
    assert page.locator(HOLDER).count() == 0
    page.evaluate("new Promise(done => requestIdleCallback(() => setTimeout(done, 50), {timeout: 3000}))")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.add_script_tag(path=str(AXE))
    blocking = [v for v in page.evaluate(RUN_AXE) if v["impact"] in BLOCKING]
    assert not blocking, report(blocking)


def test_the_script_and_the_module_agree_on_the_placeholder():
    script = (REPO / "docs/javascripts/lazy-details.js").read_text(encoding="utf-8")
    assert f'"{HOLDER}"' in script and ld.BODY_CLASS in script
    assert re.fullmatch(r'\n<p class="lazy-details"><a href="ramka-0{12}\.html">[^<]+</a></p>\n',
                        ld.placeholder("ramka-" + "0" * 12 + ".html", []))


def test_the_hook_stores_what_a_page_splits_into_and_a_damaged_entry_is_split_again(built_site, tmp_path,
                                                                                  monkeypatch):
    from anatomia_engine import store
    from hooks import lazy_details as hook

    monkeypatch.setattr(hook, "_split", store.Store(tmp_path, ".json"))
    page = built_site / "posty" / "llm-mechanizm-uwagi" / "index.html"
    output = whole_page(page)
    text, files, _ = ld.split_page(output)
    assert files, "the post has no moved box: this checks nothing"
    assert hook._split_page(output, "post") == (text, files)          # worked out, then stored
    (entry,) = tmp_path.glob("*.json")
    assert hook._split_page(output, "post") == (text, files)          # from the store
    entry.write_bytes(entry.read_bytes()[:-20])                        # truncated
    assert hook._split_page(output, "post") == (text, files)          # worked out again
