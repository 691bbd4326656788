"""The attention explorer on /llm/anatomia/#uwaga: presets, maths, mask, editing, safety, keyboard.

The first tests read figures_src/explorer.py and the built page. The browser tests drive the
Debian Chromium at /usr/bin/chromium with playwright (never `playwright install`): a fresh
strict build is served by http.server on 127.0.0.1, and every request to any other host is
aborted and fails the test, so the page is checked to work offline. The weights the page
computes are compared with attn_core.scaled_dot_product_attention.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import numpy as np
import pytest

from anatomia_engine.numfmt import fmt_dec, fmt_pct, fmt_vec
from attn_core import future_mask, scaled_dot_product_attention
from figures_src import explorer
from helpers import serving

TOL = 1e-9  # max |browser - attn_core| for weights and outputs (float64 on both sides)
XSS = "<img src=x onerror=window.__xss=1>"
XSS_2 = "<svg onload=window.__xss=2>"


# --- the presets, in Python ---------------------------------------------------------------


def preset_x(p: dict) -> np.ndarray:
    return np.array([p["vocab"][i]["embedding"] for i in p["sentence"]])


# --- the browser --------------------------------------------------------------------------

@contextlib.contextmanager
def offline_page(browser, base: str):
    """A new page that may load only from `base`; leaving it, page errors and console errors
    or warnings fail the test when the block ends."""
    context = browser.new_context(service_workers="block")
    outside: list[str] = []
    errors: list[str] = []

    def route(r):
        if r.request.url.startswith(base + "/"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    pg = context.new_page()
    pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    pg.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}")
          if m.type in ("error", "warning") else None)
    try:
        yield pg
    finally:
        context.close()
    assert not outside, f"the page tried to leave 127.0.0.1: {outside}"
    assert not errors, "\n".join(errors)


READY = "() => window.attentionExplorer && document.querySelector('[data-weights]')"


@pytest.fixture
def page(browser, server):
    """The explorer page, offline (see offline_page), ready to use."""
    with offline_page(browser, server) as pg:
        pg.goto(f"{server}/llm/anatomia/#uwaga")
        pg.wait_for_function(READY)
        yield pg


def state(pg) -> dict:
    return pg.evaluate("() => window.attentionExplorer.state()")


def heatmap_weights(pg) -> np.ndarray:
    return np.array(json.loads(pg.get_attribute("[data-weights]", "data-weights")))


def expected(st: dict):
    """attn_core on the page's own inputs (embeddings, W matrices, mask, scale, T)."""
    x = np.array(st["embeddings"])                                   # (T, d)
    q, k, v = x @ np.array(st["w_q"]), x @ np.array(st["w_k"]), x @ np.array(st["w_v"])
    d_k = q.shape[-1]
    scale = (1 / np.sqrt(d_k) if st["use_scale"] else 1.0) / st["temperature"]
    mask = future_mask(len(x)) if st["causal"] else None
    return scaled_dot_product_attention(q, k, v, mask=mask, scale=scale)


def assert_matches_attn_core(pg) -> dict:
    st = state(pg)
    ref = expected(st)
    weights = np.array(st["weights"])
    assert np.max(np.abs(weights - ref.weights)) < TOL
    assert np.max(np.abs(np.array(st["output"]) - ref.output)) < TOL
    assert np.max(np.abs(np.array(st["scores"]) - ref.scores)) < TOL
    assert st["scale"] == pytest.approx(ref.scale, rel=1e-15)
    np.testing.assert_array_equal(heatmap_weights(pg), weights)
    return st


def test_weights_match_attn_core_for_every_preset(page):
    chooser = page.get_by_label("Przykład startowy")
    for index, preset in enumerate(explorer.presets()):
        chooser.select_option(str(index))
        st = assert_matches_attn_core(page)
        assert st["preset"] == preset["id"]
        np.testing.assert_array_equal(np.array(st["embeddings"]), preset_x(preset))
        assert st["causal"] == preset["causal"] and st["query"] == preset["query"]
    # the same with the 1/sqrt(d_k) scale off and with a temperature
    chooser.select_option("0")
    page.get_by_label("Dziel oceny przez").uncheck()
    assert state(page)["use_scale"] is False
    assert_matches_attn_core(page)
    page.get_by_label("Temperatura T (liczba)").fill("0.3")
    assert state(page)["temperature"] == 0.3
    assert_matches_attn_core(page)
    page.get_by_label("Dziel oceny przez").check()
    page.get_by_label("Temperatura T (liczba)").fill("2.5")
    st = assert_matches_attn_core(page)
    assert st["use_scale"] and st["temperature"] == 2.5


def test_mask_blocks_future_cells_and_rows_still_sum_to_one(page):
    mask_box = page.get_by_label("Maska przyczynowa")
    n = len(state(page)["tokens"])
    future = future_mask(n)
    for causal in (True, False, True):
        mask_box.set_checked(causal)
        st = assert_matches_attn_core(page)
        w = np.array(st["weights"])
        assert st["causal"] is causal
        assert np.array_equal(np.array(st["blocked"]), future & causal)
        if causal:
            assert np.all(w[future] == 0.0)            # exactly 0, not just small
        else:
            assert np.all(w[future] > 0)
        assert np.max(np.abs(w.sum(axis=1) - 1)) < 1e-12
        blocked_cells = page.locator("[data-weights] [data-blocked=true]").count()
        assert blocked_cells == (int(future.sum()) if causal else 0)


def test_editing_an_embedding_changes_the_heatmap(page):
    before = heatmap_weights(page)
    page.get_by_label("Token cat: wymiar 1").fill("0.7")
    st = assert_matches_attn_core(page)
    assert st["embeddings"][0] == [1.0, 0.7]
    after = heatmap_weights(page)
    assert not np.allclose(before, after)
    # keyboard on the plane: the focused point moves by one step per arrow key
    point = page.locator('[data-word="2"]')  # "mouse"
    point.focus()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Shift+ArrowRight")
    st = assert_matches_attn_core(page)
    assert st["embeddings"][2] == [1.3, 0.1]
    assert page.evaluate("() => document.activeElement.getAttribute('data-word')") == "2"
    # dragging the point with the mouse moves it too
    box = page.locator('[data-word="1"] circle:not(.attn-x__hit)').bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 40, cy + 30, steps=4)
    page.mouse.up()
    st = assert_matches_attn_core(page)
    dragged = st["embeddings"][1]
    assert dragged[0] > 0.2 and dragged[1] < 1.0


def test_typed_token_is_text_not_html(page):
    page.get_by_label("Nowe słowo").fill(XSS)
    page.get_by_role("button", name="Dodaj słowo do słownika i zdania").click()
    page.get_by_label("Nazwa tokenu 0 w słowniku").fill(XSS_2)
    page.wait_for_timeout(300)  # time for an injected <img> to fail loading and fire onerror
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("img[src=x], [onerror], [onload]").count() == 0
    assert page.locator(".attn-x img, .attn-x foreignObject").count() == 0
    st = assert_matches_attn_core(page)
    assert st["tokens"] == [XSS_2, "chases", "mouse", XSS]
    labels = page.locator("[data-weights] title").all_text_contents()
    assert XSS in labels
    assert XSS in page.locator(".attn-x__numbers").inner_text()


def test_controls_are_labelled_and_reachable_by_keyboard(page):
    unlabelled = page.evaluate("""() => [...document.querySelectorAll(
        '.attn-x input, .attn-x select, .attn-x button')].filter(c =>
        !(c.labels && c.labels.length) && !c.getAttribute('aria-label') &&
        !c.getAttribute('aria-labelledby') && !c.textContent.trim()).map(c => c.outerHTML)""")
    assert unlabelled == []
    page.evaluate("() => document.querySelector('#uwaga a').focus()")
    reached = []
    for _ in range(80):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("""() => {
            const e = document.activeElement;
            if (!e.closest('.attn-x')) return null;
            if (e.getAttribute('data-word') !== null) return 'point';
            return e.inputMode === 'decimal' ? 'decimal' : (e.type || e.tagName);  // number fields
        }"""))
    kinds = set(reached) - {None}
    assert {"select-one", "checkbox", "range", "decimal", "text", "button", "point"} <= kinds
    # Space toggles the focused mask checkbox; Enter in "Nowe słowo" adds the word
    mask_box = page.get_by_label("Maska przyczynowa")
    mask_box.focus()
    page.keyboard.press("Space")
    assert state(page)["causal"] is False
    page.get_by_label("Nowe słowo").focus()
    page.keyboard.type("pies")
    page.keyboard.press("Enter")
    assert state(page)["tokens"][-1] == "pies"
    # the query can be changed from the keyboard
    query = page.get_by_label("Zapytanie (token, który patrzy)")
    query.focus()
    page.keyboard.press("Home")
    assert state(page)["query"] == 0


SAMPLES = [0.0, -0.0, 0.125, 2.675, 1.005, 0.045, -0.005, -0.004, 0.35, 0.6443, 0.5, 1.5, 2.5,
           -2.5, 1e-7, 5e-324, 0.1 + 0.2, 1 / 3, 2 / 3, 0.39540796003687273, 9.995, -9.995,
           99999.995, 12345.5, 1234.5, 123456.789, -1234567.891, 1e21, 0.9999, -0.99995]


def test_number_format_mirrors_python(page):
    got = page.evaluate(
        "(xs) => xs.map(x => [0, 1, 2, 3, 4].map(n => window.attentionExplorer.fmtDec(x, n)))",
        SAMPLES)
    want = [[fmt_dec(x, n) for n in range(5)] for x in SAMPLES]
    assert got == want
    pct = page.evaluate("(xs) => xs.map(x => window.attentionExplorer.fmtPct(x, 1))", SAMPLES)
    assert pct == [fmt_pct(x, 1) for x in SAMPLES]
    inf = page.evaluate("() => [window.attentionExplorer.fmtDec(-Infinity, 2, true),"
                        " window.attentionExplorer.fmtVec([0.125, -Infinity, -0.001])]")
    assert inf == [fmt_dec(-np.inf, 2, allow_inf=True), fmt_vec([0.125, -np.inf, -0.001])]
    with pytest.raises(Exception, match="NaN"):
        page.evaluate("() => window.attentionExplorer.fmtDec(NaN)")
    # the numbers drawn in the heatmap are the page's weights in the site's format
    st = state(page)
    cells = page.locator("[data-weights] .attn-x__cellnum").all_text_contents()
    shown = [fmt_dec(w) if not b else "\u00d7"
             for row, brow in zip(st["weights"], st["blocked"], strict=True)
             for w, b in zip(row, brow, strict=True)]
    assert cells == shown


class InstantNavigation(http.server.SimpleHTTPRequestHandler):
    """The build served as if mkdocs.yml listed the feature navigation.instant and site_url were
    this server: Material reads its features from each page's __config at run time (its templates
    test only navigation.instant.progress), and its instant navigation intercepts only the links
    to addresses in sitemap.xml on the same host and port."""

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        path = path / "index.html" if path.is_dir() else path
        if path.suffix not in (".html", ".xml") or not path.is_file():
            return super().do_GET()
        text = path.read_text(encoding="utf-8")
        text = text.replace('"features": [', '"features": ["navigation.instant", ', 1)
        body = re.sub(r"<loc>https?://[^/<]+/", f"<loc>http://{self.headers['Host']}/", text).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/xml" if path.suffix == ".xml" else "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):  # keep pytest's output clean
        pass


def test_explorer_survives_instant_navigation(browser, built_site):
    """With Material's navigation.instant on, pages are swapped without a reload and inline
    scripts re-created; the explorer must still start, once, on every visit."""
    with serving(built_site, handler=InstantNavigation) as base, offline_page(browser, base) as pg:
        pg.goto(f"{base}/")
        pg.wait_for_load_state("networkidle")  # Material reads sitemap.xml before it intercepts
        pg.evaluate("() => { window.__sameDocument = true; }")
        pg.locator('a[href$="llm/anatomia/#uwaga"]').first.click()
        pg.wait_for_function(READY)
        assert pg.evaluate("() => window.__sameDocument") is True  # no full reload happened
        assert_matches_attn_core(pg)
        pg.locator('article a[href$="krok-po-kroku/"]').first.click()
        pg.wait_for_url("**/krok-po-kroku/")
        pg.go_back()
        pg.wait_for_function(READY)
        assert pg.evaluate("() => window.__sameDocument") is True
        assert pg.locator("[data-attention-explorer]").count() == 1
        assert pg.get_by_label("Przykład startowy").count() == 1  # built once, not twice
        assert_matches_attn_core(pg)


# --- decimal comma and touch ----------------------------------------------------------------

def test_number_fields_take_a_decimal_comma_and_show_one(page):
    field = page.get_by_label("Token cat: wymiar 1")
    field.fill("0,5")
    st = assert_matches_attn_core(page)
    assert st["embeddings"][0][1] == 0.5
    field.press("Tab")
    assert field.input_value() == "0,5"
    temperature = page.locator("input[id$='-temp']")
    temperature.fill("0,5")
    assert state(page)["temperature"] == 0.5
    assert_matches_attn_core(page)
    # a value set by the keyboard on the plane shows with a comma too
    page.locator('[data-word="2"]').focus()
    page.keyboard.press("ArrowUp")                 # mouse: (0.8, 0) -> (0.8, 0.1)
    assert state(page)["embeddings"][2] == [0.8, 0.1]
    assert page.get_by_label("Token mouse: wymiar 0").input_value() == "0,8"
    assert page.get_by_label("Token mouse: wymiar 1").input_value() == "0,1"


def touch_swipe(pg, cdp, x: float, y: float, dx: float, dy: float) -> None:
    """A finger from (x, y) moving by (dx, dy) in ten steps (CSS pixels of the viewport)."""
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, 11):
        cdp.send("Input.dispatchTouchEvent",
                 {"type": "touchMove", "touchPoints": [{"x": x + dx * i / 10, "y": y + dy * i / 10}]})
        pg.wait_for_timeout(16)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    pg.wait_for_timeout(300)


def test_swipe_scrolls_the_page_and_points_drag_on_a_phone(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    pg = context.new_page()
    try:
        pg.goto(f"{server}/llm/anatomia/#uwaga")
        pg.wait_for_function(READY)
        width = pg.evaluate("document.documentElement.scrollWidth")
        assert width <= 375, f"the explorer makes the page {width} px wide"
        cdp = context.new_cdp_session(pg)
        scroll = lambda: pg.evaluate("window.scrollY")  # noqa: E731
        for selector in ("svg.attn-x__plane", "svg.attn-x__heat"):
            pg.locator(selector).scroll_into_view_if_needed()
            pg.evaluate("window.scrollBy(0, 40)")
            box = pg.locator(selector).bounding_box()
            x, y = box["x"] + 12, box["y"] + box["height"] - 12
            on_point = "([x, y]) => !!document.elementFromPoint(x, y).closest('.attn-x__point')"
            assert not pg.evaluate(on_point, [x, y])
            before = scroll()
            touch_swipe(pg, cdp, x, y, 0, -200)
            assert scroll() - before > 100, f"a swipe on {selector} did not scroll the page"
        # a touch on a point drags the point and leaves the page where it is
        pg.locator("svg.attn-x__plane").scroll_into_view_if_needed()
        circle = pg.locator('[data-word="0"] circle:not(.attn-x__hit)').bounding_box()
        before_vec, before_scroll = state(pg)["embeddings"][0], scroll()
        touch_swipe(pg, cdp, circle["x"] + circle["width"] / 2, circle["y"] + circle["height"] / 2, 0, -60)
        after_vec = state(pg)["embeddings"][0]
        assert after_vec[1] > before_vec[1] and after_vec[0] == before_vec[0]
        assert scroll() == before_scroll
        assert_matches_attn_core(pg)
    finally:
        context.close()


# Every pair of texts of one drawing whose boxes overlap by more than a pixel both ways, and
# every text of the plane that reaches outside it.
COLLISIONS = """() => {
  const bad = [];
  document.querySelectorAll('.attn-x svg').forEach(svg => {
    const frame = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim())
      .map(t => [t.textContent, t.getBoundingClientRect()]);
    texts.forEach(([s, r], a) => {
      if (svg.classList.contains('attn-x__plane') && (r.left < frame.left - 1 || r.right > frame.right + 1 ||
          r.top < frame.top - 1 || r.bottom > frame.bottom + 1)) bad.push(s + ' leaves the plane');
      texts.slice(a + 1).forEach(([t, q]) => {
        if (Math.min(r.right, q.right) - Math.max(r.left, q.left) > 1 &&
            Math.min(r.bottom, q.bottom) - Math.max(r.top, q.top) > 1) bad.push(s + ' / ' + t);
      });
    });
  });
  return bad; }"""


@pytest.mark.parametrize("width", [375, 1280])
def test_points_have_touch_targets_of_24_px_and_labels_do_not_overlap_in_any_preset(browser, server, width):
    """One load at each width: the points' touch targets as the page opens, then every preset."""
    with offline_page(browser, server) as pg:
        pg.set_viewport_size({"width": width, "height": 900})
        pg.goto(f"{server}/llm/anatomia/#uwaga")
        pg.wait_for_function(READY)
        pg.wait_for_timeout(100)   # the ResizeObserver has seen the final layout
        sizes = pg.evaluate("""() => [...document.querySelectorAll('.attn-x__point')].map(g => {
            const r = g.querySelector('.attn-x__hit').getBoundingClientRect();
            return Math.min(r.width, r.height); })""")
        assert sizes and min(sizes) >= 24, sizes
        # the whole figure does not capture touch, only the points do
        touch = "(sel) => getComputedStyle(document.querySelector(sel)).touchAction"
        assert pg.evaluate(touch, "svg.attn-x__plane") == "auto"
        assert pg.evaluate(touch, ".attn-x__point") == "none"
        chooser = pg.get_by_label("Przykład startowy")
        options = chooser.locator("option").evaluate_all("os => os.map(o => o.value)")
        assert len(options) > 1
        for value in options:
            chooser.select_option(value)
            assert pg.evaluate(COLLISIONS) == [], f"preset {value} at {width} px"


# --- layout: the picture beside the controls, or above them -----------------------------------

BOXES = """() => Object.fromEntries(
    ['.attn-x__plane', '.attn-x__heat', '.attn-x__controls', '.attn-x__layout'].map(sel => {
        const r = document.querySelector(sel).getBoundingClientRect();
        return [sel, {left: r.left, right: r.right, top: r.top, bottom: r.bottom}]; }))"""


@pytest.mark.parametrize("width", [375, 1280])
def test_picture_stands_beside_the_controls_on_a_desktop_and_above_them_on_a_phone(browser, server, width):
    with offline_page(browser, server) as pg:
        pg.set_viewport_size({"width": width, "height": 900})
        pg.goto(f"{server}/llm/anatomia/#uwaga")
        pg.wait_for_function(READY)
        pg.evaluate("document.querySelector('.attn-x__layout').scrollIntoView()")
        box = pg.evaluate(BOXES)
        plane, heat, controls = box[".attn-x__plane"], box[".attn-x__heat"], box[".attn-x__controls"]
        assert pg.evaluate("document.documentElement.scrollWidth") <= width
        if width < 600:
            # one column: plane and heatmap first, the controls below both
            assert plane["bottom"] <= controls["top"] and heat["bottom"] <= controls["top"]
        else:
            # side by side, both views in the first screen of the explorer
            assert plane["right"] <= controls["left"] and heat["right"] <= controls["left"]
            assert plane["top"] < controls["top"] + 900 / 2 and heat["bottom"] <= 900
            # and still in view when the reader scrolls down to the last control
            pg.get_by_label("Nowe słowo").scroll_into_view_if_needed()
            pg.get_by_label("Nowe słowo").focus()
            box = pg.evaluate(BOXES)
            assert 0 <= box[".attn-x__plane"]["top"] and box[".attn-x__heat"]["bottom"] <= 900, box


# --- W_Q, W_K, W_V ---------------------------------------------------------------------------

def test_editing_w_q_makes_queries_differ_from_keys(page):
    before = heatmap_weights(page)
    page.get_by_label("Maska przyczynowa").uncheck()
    symmetric = np.array(state(page)["weights"])
    # a W_Q that is not symmetric: q = x W_Q differs from k = x W_K = x, and the scores
    # x_i W_Q x_j are no longer the same both ways
    w_q = [[1.0, 1.0], [0.0, 1.0]]
    for (i, j), value in np.ndenumerate(np.array(w_q)):
        page.get_by_label(f"W_Q, wiersz {i}, kolumna {j}").fill(str(value).replace(".", ","))
    st = assert_matches_attn_core(page)
    assert st["w_q"] == w_q and st["w_k"] == [[1.0, 0.0], [0.0, 1.0]]
    x = np.array(st["embeddings"])
    q, k = x @ np.array(st["w_q"]), x @ np.array(st["w_k"])
    assert not np.allclose(q, k)
    scores = np.array(st["scores"])
    assert not np.allclose(scores, scores.T)       # asymmetric: who looks at whom is not mutual
    assert not np.allclose(np.array(st["weights"]), symmetric)
    assert not np.allclose(heatmap_weights(page), before)
    # W_V changes the outputs and leaves the weights as they are
    weights = np.array(st["weights"])
    page.get_by_label("W_V, wiersz 0, kolumna 0").fill("-1")
    st = assert_matches_attn_core(page)
    np.testing.assert_array_equal(np.array(st["weights"]), weights)
    assert st["w_v"][0][0] == -1.0
    # the table of projections shows the reader's q and k
    numbers = page.locator(".attn-x__numbers").inner_text()
    assert fmt_vec(q[1]) in numbers and fmt_vec(k[1]) in numbers


# --- bad entries: answered beside the field, never put back silently ----------------------------

def message_of(pg, field) -> tuple[str, float]:
    """The text of the error lines `field` names in aria-describedby, and how far (px) below the
    field the first one with text starts."""
    return pg.evaluate("""(f) => {
        const ids = (f.getAttribute('aria-describedby') || '').split(' ').filter(Boolean);
        const els = ids.map(id => document.getElementById(id))
            .filter(e => e && e.matches('.attn-x__field-error'));
        const text = els.map(e => e.textContent).join(' ').trim();
        const shown = els.find(e => e.textContent.trim());
        const gap = shown ? shown.getBoundingClientRect().top - f.getBoundingClientRect().bottom : 1e9;
        return [text, gap]; }""", field.element_handle())


@pytest.mark.parametrize("width", [375, 1280])
def test_every_bad_entry_is_answered_beside_its_field_with_the_allowed_range(browser, server, width):
    limits = explorer.LIMITS
    temp, coord, weight = limits["temperature"], limits["coord"], limits["weight"]
    cases = [
        ("Temperatura T (liczba)", "temperature", temp, ["0", "0,01", "abc", "", "-1", "100"]),
        ("Token cat: wymiar 1", "embeddings", coord, ["abc", "50", "1e9"]),
        ("W_K, wiersz 1, kolumna 0", "w_k", weight, ["9", "x"]),
    ]
    with offline_page(browser, server) as pg:
        pg.set_viewport_size({"width": width, "height": 900})
        pg.goto(f"{server}/llm/anatomia/#uwaga")
        pg.wait_for_function(READY)
        start = state(pg)
        for label, key, limit, entries in cases:
            field = pg.get_by_label(label, exact=True)
            for entry in entries:
                field.fill(entry)
                field.press("Tab")                    # leaving the field keeps the entry
                assert field.input_value() == entry
                assert field.get_attribute("aria-invalid") == "true"
                text, gap = message_of(pg, field)
                for bound in (limit["min"], limit["max"]):
                    shown = fmt_dec(bound, 1)
                    assert shown in text or shown.removesuffix(",0") in text, (label, entry, text)
                assert 0 <= gap < 80, f"{label}: the message stands {gap} px below the field"
                assert state(pg)[key] == start[key]   # the computation keeps the last good value
            field.fill("0,5")                         # a good entry clears the message
            assert field.get_attribute("aria-invalid") is None
            assert message_of(pg, field)[0] == ""
            assert_matches_attn_core(pg)
        # token names: not empty, not a name the vocabulary already has
        tokens = state(pg)["tokens"]
        name = pg.get_by_label("Nazwa tokenu 0 w słowniku")
        for entry in (tokens[1], "  "):
            name.fill(entry)
            name.press("Tab")
            assert name.input_value() == entry and name.get_attribute("aria-invalid") == "true"
            assert message_of(pg, name)[0]
            assert state(pg)["tokens"] == tokens
        new = pg.get_by_label("Nowe słowo")
        new.fill(tokens[2])
        pg.get_by_role("button", name="Dodaj słowo do słownika i zdania").click()
        assert new.get_attribute("aria-invalid") == "true" and message_of(pg, new)[0]
        assert len(state(pg)["vocab"]) == len(start["vocab"])
        # a preset load puts every field right again
        pg.get_by_role("button", name="Przywróć ustawienia przykładu").click()
        assert pg.locator(".attn-x [aria-invalid=true]").count() == 0
        assert name.input_value() == tokens[0]


# --- the state in the address ------------------------------------------------------------------

SHARED_KEYS = ("preset", "vocab", "sentence", "w_q", "w_k", "w_v", "causal", "use_scale", "temperature",
               "query", "task")


def test_the_address_keeps_the_state_and_a_bad_address_says_so(browser, server, page):
    page.get_by_label("Temperatura T (liczba)").fill("0,4")
    page.get_by_label("W_K, wiersz 0, kolumna 1").fill("0,5")
    page.get_by_label("Token chases: wymiar 0").fill("-0,7")
    page.get_by_label("Nazwa tokenu 2 w słowniku").fill("mysz")
    page.get_by_label("Maska przyczynowa").uncheck()
    page.get_by_label("Zapytanie (token, który patrzy)").select_option("1")
    mine = state(page)
    shared = page.url
    assert "?" in shared
    with offline_page(browser, server) as other:
        other.goto(shared)
        other.wait_for_function(READY)
        theirs = state(other)
        assert {k: theirs[k] for k in SHARED_KEYS} == {k: mine[k] for k in SHARED_KEYS}
        assert_matches_attn_core(other)
        assert other.locator(".attn-x__warning").count() == 0
        # back at the example's start, the address is plain again
        other.get_by_role("button", name="Przywróć ustawienia przykładu").click()
        assert "?" not in other.url
    first = explorer.presets()[0]
    good = json.loads(parse_qs(urlsplit(shared).query)["eksplorator"][0])
    bad_states = ["abc", "{", "[]", json.dumps(dict(good, t=0)), json.dumps(dict(good, t="1")),
                  json.dumps(dict(good, v=[["a", 0, 0], ["a", 1, 1]], s=[0, 1])),
                  json.dumps(dict(good, s=[0, 99])), json.dumps(dict(good, wq=[[1, 0]])),
                  json.dumps(dict(good, p="nie-ma")), json.dumps(dict(good, q=7)),
                  json.dumps(dict(good, v=[["a", 50, 0]], s=[0]))]
    for bad in bad_states:
        with offline_page(browser, server) as other:
            other.goto(f"{server}/llm/anatomia/?eksplorator={quote(bad)}#uwaga")
            other.wait_for_function(READY)
            warning = other.locator(".attn-x__warning")
            assert warning.is_visible() and warning.inner_text().strip(), bad
            st = assert_matches_attn_core(other)
            assert st["preset"] == first["id"] and st["sentence"] == first["sentence"], bad
            np.testing.assert_array_equal(np.array(st["embeddings"]), preset_x(first))


# --- guided tasks ------------------------------------------------------------------------------

def apply_solution(pg, solution: dict) -> None:
    """Do a task's solution through the page's fields, as a reader would."""
    for key, value in solution.items():
        if key == "temperature":
            pg.get_by_label("Temperatura T (liczba)").fill(str(value).replace(".", ","))
        elif key == "causal":
            pg.get_by_label("Maska przyczynowa").set_checked(value)
        elif key in ("w_q", "w_k", "w_v"):
            name = key.upper()
            for (i, j), x in np.ndenumerate(np.array(value)):
                pg.get_by_label(f"{name}, wiersz {i}, kolumna {j}").fill(str(x).replace(".", ","))
        elif key == "vocab":
            tokens = [w["token"] for w in state(pg)["vocab"]]
            for k, vec in value.items():
                for c, x in enumerate(vec):
                    pg.get_by_label(f"Token {tokens[int(k)]}: wymiar {c}").fill(str(x).replace(".", ","))
        else:
            raise AssertionError(f"no way to set {key}")


def test_every_guided_task_is_detected_when_done_and_announced(page):
    tasks = explorer.tasks()
    status = page.locator(".attn-x__stage [role=status]").first
    for task in tasks:
        page.get_by_role("button", name=task["title"]).click()
        st = state(page)
        assert st["task"] == task["id"] and task["id"] not in st["tasks_done"]
        assert st["preset"] == task["preset"]
        assert page.locator(f'[data-task="{task["id"]}"][data-done]').count() == 0
        announced = status.inner_text()
        assert task["title"] in announced
        apply_solution(page, task["solution"])
        st = assert_matches_attn_core(page)
        assert task["id"] in st["tasks_done"], task["id"]
        assert page.locator(f'[data-task="{task["id"]}"][data-done="true"]').count() == 1
        assert status.inner_text() != announced    # the page says it is done
    assert sorted(state(page)["tasks_done"]) == sorted(t["id"] for t in tasks)


def test_a_task_is_not_done_by_breaking_what_it_keeps(page):
    task = next(t for t in explorer.tasks() if "x" in t["fixed"] and "temperature" in t["solution"])
    page.get_by_role("button", name=task["title"]).click()
    page.get_by_label("Token cat: wymiar 1").fill("0,1")      # moves a vector the task keeps
    apply_solution(page, task["solution"])
    assert task["id"] not in state(page)["tasks_done"]
    page.get_by_label("Token cat: wymiar 1").fill("0")        # back: now the solution counts
    assert task["id"] in state(page)["tasks_done"]


# --- labels on the plane -----------------------------------------------------------------------

# Every label of a point or an output that covers a point, or whose box lies nearer to another
# mark (a point or a diamond at another place) than to its own with no line drawn from it to its
# own mark: a reader would take it for that mark's label.
MISLABELLED = """() => {
  const plane = document.querySelector('svg.attn-x__plane');
  const centre = el => {
    const r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2]; };
  const marks = [...plane.querySelectorAll('circle.attn-x__dot, path.attn-x__out')].map(centre);
  const dist = (r, [x, y]) =>
    Math.hypot(Math.max(r.left - x, 0, x - r.right), Math.max(r.top - y, 0, y - r.bottom));
  const bad = [];
  const dots = [...plane.querySelectorAll('circle.attn-x__dot')].map(c => c.getBoundingClientRect());
  plane.querySelectorAll('text[data-for]').forEach(t => {
    const key = t.getAttribute('data-for');
    const box = t.getBoundingClientRect();
    dots.forEach(q => {   // a label over a point hides it
      if (Math.min(box.right, q.right) - Math.max(box.left, q.left) > 2 &&
          Math.min(box.bottom, q.bottom) - Math.max(box.top, q.top) > 2) {
        bad.push(t.textContent + ' covers a point');
      }
    });
    const own = key.startsWith('y')
      ? centre(plane.querySelectorAll('path.attn-x__out')[+key.slice(1)])
      : centre(plane.querySelector(`[data-word="${key}"] circle.attn-x__dot`));
    if (plane.querySelector(`line.attn-x__leader[data-for="${key}"]`)) return;
    const r = t.getBoundingClientRect();
    const d = dist(r, own);
    marks.forEach(m => {
      if (Math.hypot(m[0] - own[0], m[1] - own[1]) > 1 && dist(r, m) + 0.5 < d) bad.push(t.textContent);
    });
  });
  return [...new Set(bad)]; }"""


@pytest.mark.parametrize("width", [375, 1280])
def test_no_label_lies_nearer_another_point_in_any_preset_or_task(browser, server, width):
    with offline_page(browser, server) as pg:
        pg.set_viewport_size({"width": width, "height": 900})
        pg.goto(f"{server}/llm/anatomia/#uwaga")
        pg.wait_for_function(READY)
        for index in range(len(explorer.presets())):
            pg.evaluate("(i) => window.attentionExplorer.loadPreset(i)", index)
            for query in range(len(state(pg)["tokens"])):
                pg.get_by_label("Zapytanie (token, który patrzy)").select_option(str(query))
                assert pg.evaluate(MISLABELLED) == [], (index, query)
                assert pg.evaluate(COLLISIONS) == [], (index, query)
        for task in explorer.tasks():
            pg.get_by_role("button", name=task["title"]).click()
            apply_solution(pg, task["solution"])
            assert pg.evaluate(MISLABELLED) == [], task["id"]
            assert pg.evaluate(COLLISIONS) == [], task["id"]


# --- accessibility of the new parts --------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_with_a_task_open_and_bad_entries_shown(browser, server, scheme):
    from tests.browser.page_checks import AXE, BLOCKING, RUN_AXE

    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    try:
        pg = context.new_page()
        pg.goto(f"{server}/llm/anatomia/?eksplorator=abc#uwaga")   # the message about the address
        pg.wait_for_function(READY)
        pg.add_script_tag(path=str(AXE))
        found = pg.evaluate(RUN_AXE, {})
        assert pg.locator(".attn-x__warning").is_visible()
        task = explorer.tasks()[0]                                  # a task's card, done
        pg.get_by_role("button", name=task["title"]).click()
        apply_solution(pg, task["solution"])
        pg.get_by_label("Temperatura T (liczba)").fill("abc")        # two fields' messages
        pg.get_by_label("Nazwa tokenu 0 w słowniku").fill(state(pg)["tokens"][1])
        pg.locator(".attn-x__hint summary").click()
        found += pg.evaluate(RUN_AXE, {})
        blocking = [v for v in found if v["impact"] in BLOCKING]
        assert blocking == [], blocking
    finally:
        context.close()
