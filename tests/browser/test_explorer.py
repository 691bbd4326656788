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
