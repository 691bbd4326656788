"""The live worked example on /krok-po-kroku/ (docs/javascripts/live-example.js), in Chromium."""

from __future__ import annotations

import json

import numpy as np
import pytest

from anatomia_engine import numfmt as nf
from attn_core import tiny_decoder
from figures_src._shared.inputs import (
    HEAD2_W_K,
    HEAD2_W_Q,
    HEAD2_W_V,
    SENTENCE_IDS,
    W_FFN,
    W_K,
    W_Q,
    W_V,
    W_VOCAB,
)

PAGE = "/krok-po-kroku/"
ROW_1 = "weights[1][1] > weights[1][0]"
ROW_2 = "weights[2][0] > weights[2][2] and weights[2][2] > weights[2][1]"


@pytest.fixture(scope="module")
def loaded(browser, server) -> tuple:
    """The page loaded once at 1280 px (a reader's first visit), what it was before the press, and
    the button pressed from the keyboard: (page, what was seen before and right after the press).
    The tests below share this one load; each leaves the reader's numbers as the page's own."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(server + PAGE, wait_until="networkidle")
    seen = {
        "marked": page.locator("[data-claim='false'], .claim__false, #live-example input").count(),
        "true_claims": page.locator("[data-claim='true']").count(),
        "live_data": page.locator(
            "[data-expr], [data-fmt], [data-claim-expr], [data-tex], [data-w-vocab]").count(),
        "requested": list(requested),
    }
    button = page.get_by_role("button", name="Zmień liczby")
    button.focus()
    page.keyboard.press("Enter")
    page.get_by_label("cat, wymiar 0").wait_for()
    seen |= {"focused": page.evaluate("document.activeElement.getAttribute('aria-label')"),
             "requested_after": list(requested), "claim_exprs": page.locator("[data-claim-expr]").count()}
    yield page, seen
    context.close()


@pytest.fixture
def page(loaded):
    """The shared page with the live example open on the page's own numbers; they are restored after
    the test."""
    page = loaded[0]
    assert "liczby=" not in page.url
    yield page
    page.get_by_role("button", name="Przywróć").click()


def _weights_shown(page) -> list[tuple[int, int, str, str]]:
    """(i, j, filter, text) of every number in prose that shows an element of `weights`."""
    return page.evaluate("""() => [...document.querySelectorAll('.num[data-expr]')].map(n => {
        const e = JSON.parse(n.dataset.expr);   // "weights 2 1" is weights[2][1]
        const path = typeof e === 'string' ? e.split(' ') : [];
        return path[0] === 'weights' && path.length === 3
            ? [+path[1], +path[2], n.dataset.fmt, n.textContent] : null;
    }).filter(Boolean)""")


def _claim(page, cond: str):
    return page.locator(f"[data-claim-expr='{_compiled(cond)}']")


def _compiled(cond: str) -> str:
    from anatomia_engine import placeholders as ph

    return ph.compiled(cond)


def _expected_weights(cat_dim0: float) -> np.ndarray:
    w = np.array(W_VOCAB)
    w[0, 0] = cat_dim0
    return tiny_decoder(SENTENCE_IDS, w, W_Q, W_K, W_V, W_FFN).attention.weights


def test_cat_dimension_0_at_0_3_recomputes_the_weights_and_marks_row_2(page):
    field = page.get_by_label("cat, wymiar 0")
    before = _weights_shown(page)
    assert len(before) >= 6
    field.fill("0,3")
    want = _expected_weights(0.3)
    shown = _weights_shown(page)
    for i, j, spec, text in shown:
        assert text == nf.fmt_spec(float(want[i][j]), spec), (i, j, text)
    assert shown != before
    row1, row2 = _claim(page, ROW_1), _claim(page, ROW_2)
    assert row2.get_attribute("data-claim") == "false"
    assert "to zdanie nie jest prawdziwe dla Twoich liczb" in row2.inner_text()
    assert row2.locator(".claim__false").is_visible()
    assert row1.get_attribute("data-claim") == "true" and row1.locator(".claim__false").count() == 0
    # the state is in the address, and a link with it opens the page on the reader's numbers
    assert "liczby=0.3" in page.url
    shared = page.url
    page.get_by_role("button", name="Przywróć").click()
    assert [t for *_, t in _weights_shown(page)] == [t for *_, t in before]
    assert row2.get_attribute("data-claim") == "true" and row2.locator(".claim__false").count() == 0
    assert "liczby=" not in page.url
    opened = page.context.new_page()
    try:
        opened.goto(shared, wait_until="networkidle")
        opened.get_by_label("cat, wymiar 0").wait_for()
        assert opened.get_by_label("cat, wymiar 0").input_value() == "0,3"
        assert _claim(opened, ROW_2).get_attribute("data-claim") == "false"
    finally:
        opened.close()


def test_claim_is_unmarked_when_true_again_and_bad_input_is_told_beside_its_field(page):
    field = page.get_by_label("cat, wymiar 0")
    field.fill("0,3")
    assert _claim(page, ROW_2).get_attribute("data-claim") == "false"
    field.fill("abc")
    error = page.locator("#" + field.get_attribute("aria-describedby"))
    assert field.get_attribute("aria-invalid") == "true" and error.inner_text().strip()
    box, err = field.bounding_box(), error.bounding_box()
    overlap = min(err["x"] + err["width"], box["x"] + box["width"]) - max(err["x"], box["x"])
    assert overlap > 0 and 0 <= err["y"] - (box["y"] + box["height"]) < 40     # right under its field
    field.fill("1")
    assert field.get_attribute("aria-invalid") is None and not error.inner_text().strip()
    assert _claim(page, ROW_2).get_attribute("data-claim") == "true"


def test_keyboard_only(loaded, page):
    # `loaded` pressed the button with Enter: the first field has the focus
    assert loaded[1]["focused"] == "cat, wymiar 0"
    page.get_by_label("cat, wymiar 0").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("0,3")
    assert _claim(page, ROW_2).get_attribute("data-claim") == "false"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "cat, wymiar 1"
    page.get_by_role("button", name="Przywróć").focus()
    page.keyboard.press("Enter")
    assert _claim(page, ROW_2).get_attribute("data-claim") == "true"


def test_at_375_px_the_fields_fit_and_are_touch_sized(browser, server):
    context = browser.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
    phone = context.new_page()
    try:
        phone.goto(server + PAGE, wait_until="networkidle")
        phone.get_by_role("button", name="Zmień liczby").tap()
        field = phone.get_by_label("cat, wymiar 0")
        field.wait_for()
        boxes = phone.evaluate("""() =>
            [...document.querySelectorAll('#live-example ~ * input, .live-example__field')]
            .map(i => { const r = i.getBoundingClientRect(); return [r.width, r.height]; })""")
        assert len(boxes) == 10
        assert all(h >= 24 and w >= 24 for w, h in boxes), boxes
        assert phone.evaluate("document.documentElement.scrollWidth") <= 375
        # the table itself fits: no field is left off-screen in the table's own scroll box
        right = phone.evaluate("""() => Math.max(...[...document.querySelectorAll('.live-example__field')]
            .map(e => [e, e.closest('table')]).flat().map(e => e.getBoundingClientRect().right))""")
        assert right <= 375, right
        field.tap()
        phone.keyboard.press("Control+A")
        phone.keyboard.type("0,3")
        assert _claim(phone, ROW_2).get_attribute("data-claim") == "false"
    finally:
        context.close()


def test_without_the_button_the_page_is_as_built_and_carries_no_live_data(loaded):
    seen = loaded[1]
    assert seen["marked"] == 0
    assert seen["true_claims"] >= 20
    # the expressions, formula templates and model inputs wait in the sidecar, fetched on the press
    assert seen["live_data"] == 0
    assert not [u for u in seen["requested"] if u.endswith((".live.json", "temml.min.js", "explorer.js"))]
    assert not [u for u in seen["requested"] if "live-example" in u], "loaded before the button"
    assert [u for u in seen["requested_after"] if u.endswith("index.live.json")]
    assert seen["claim_exprs"] >= 20


def _formula_tex(page, name: str) -> list[str]:
    """The TeX annotation of every formula whose template shows the bare name `name`."""
    return page.evaluate("""(name) => [...document.querySelectorAll('.arithmatex[data-tex]')]
        .filter(f => JSON.parse(f.dataset.tex).some(p => p && p.expr === name))
        .map(f => f.querySelector('annotation').textContent)""", name)


def test_numbers_inside_formulas_recompute_with_the_decimal_comma(page):
    field = page.get_by_label("cat, wymiar 0")
    field.fill("0,3")
    w = np.array(W_VOCAB)
    w[0, 0] = 0.3
    embeddings = nf.apply(w[:, SENTENCE_IDS].T, "bmatrix", (1,), math=True)
    weights = nf.apply(_expected_weights(0.3), "bmatrix", (2,), math=True)
    for name, want in (("E", embeddings), ("weights", weights)):
        shown = _formula_tex(page, name)
        assert shown and all(want in tex for tex in shown), (name, want, shown)
    assert "0{,}3" in embeddings
    annotation = page.locator("annotation", has_text=embeddings)
    e = page.locator(".arithmatex[data-tex]").filter(has=annotation).first
    numbers = e.locator("mn").all_text_contents()
    assert "0,3" in numbers, numbers               # the comma the build shows, typeset again
    page.get_by_role("button", name="Przywróć").click()
    assert all(nf.apply(np.array(W_VOCAB)[:, SENTENCE_IDS].T, "bmatrix", (1,), math=True) in tex
               for tex in _formula_tex(page, "E"))


def test_a_sidecar_that_does_not_match_the_page_is_refused_visibly(browser, server):
    def tampered(route):
        data = json.loads(route.fetch().text())
        data["items"][0][1] = "coś innego"
        route.fulfill(json=data)

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.route("**/*.live.json", tampered)
        page.goto(server + PAGE, wait_until="networkidle")
        page.get_by_role("button", name="Zmień liczby").click()
        alert = page.get_by_role("alert")
        alert.wait_for()
        assert "Nie da się zmienić liczb" in alert.inner_text()
        assert page.locator("#live-example input, article table input").count() == 0
    finally:
        context.close()


def test_the_weights_heatmap_and_the_probability_chart_redraw(page):
    field = page.get_by_label("cat, wymiar 0")
    field.fill("0,3")
    want = _expected_weights(0.3)
    heat = page.locator("[data-testid=live-heatmap]").first
    assert heat.is_visible()
    assert np.allclose(json.loads(heat.get_attribute("data-weights")), want, atol=1e-12)
    cells = heat.locator(".attn-x__cellnum").all_text_contents()
    shown = [("\u00d7" if j > i else nf.fmt_dec(float(want[i][j]), 2)) for i in range(3) for j in range(3)]
    assert cells == shown
    assert page.locator("[data-testid=live-probs]").is_visible()
    figure = page.locator("#fig-worked_example-weights_masked_vs_unmasked")
    assert figure.locator("img").first.is_hidden()
    # a figure that does not depend on the reader's numbers (front matter live: fixed:) carries no label
    for fixed in ("transformer_block", "causal_mask_figure", "soft_lookup", "padding_mask_figure"):
        assert page.locator(f"#fig-worked_example-{fixed} .live-example__stale").count() == 0, fixed
    page.get_by_role("button", name="Przywróć").click()
    assert page.locator("[data-testid=live-heatmap]").count() == 0
    assert figure.locator("img").first.evaluate("i => getComputedStyle(i).display") != "none"


def test_without_javascript_there_is_no_button_and_nothing_marked(browser, server):
    context = browser.new_context(java_script_enabled=False)
    try:
        plain = context.new_page()
        plain.goto(server + PAGE)
        assert plain.get_by_role("button", name="Zmień liczby").count() == 0
        assert plain.locator("#live-example").inner_text() == ""
        assert plain.locator("[data-claim='false'], .claim__false, article table input").count() == 0
    finally:
        context.close()


def test_a_malformed_shared_link_says_so_visibly(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(server + PAGE + "?liczby=abc", wait_until="networkidle")
        page.get_by_label("cat, wymiar 0").wait_for()
        alert = page.locator(".live-example__panel [role=alert]")
        assert alert.is_visible() and "nie da się odczytać" in alert.inner_text()
        assert page.locator("[data-claim='false']").count() == 0      # the page's own numbers
    finally:
        context.close()


def test_names_and_claims_follow_random_reader_numbers(page, monkeypatch):
    """For several random embeddings typed by a reader, the predicted token's name is the model's
    argmax (the build's Python, not the page's text) and each claim, the guard of the direction and
    degree words of its sentence, is marked exactly when the build's evaluator finds it false."""
    import figures_src.worked_example as we
    from anatomia_engine import placeholders as ph
    from tests.live_inputs import python_values

    rng = np.random.default_rng(11)
    flips = 0
    for _ in range(4):
        w = np.round(rng.uniform(-2, 2, size=np.shape(W_VOCAB)), 1)
        for tok, name in enumerate(we.VOCAB):
            for dim in range(len(W_VOCAB)):
                page.get_by_label(f"{name}, wymiar {dim}").fill(nf.fmt_dec(float(w[dim][tok]), 1))
        values = python_values(monkeypatch, w, we.W_Q, we.W_K, we.W_V, we.W_FFN)
        predicted = we.VOCAB[int(np.argmax(values["probs"]))]
        words = page.evaluate("""() => [...document.querySelectorAll('.live-word[data-expr]')]
            .filter(s => JSON.parse(s.dataset.expr) === 'top_token').map(s => s.textContent)""")
        assert words == [predicted] * len(words) and words, (words, predicted)
        scope = {k: ph.Entry(v, "test") for k, v in values.items()}
        claims = page.evaluate("""() => [...document.querySelectorAll('[data-claim-expr]')]
            .map(c => [JSON.parse(c.getAttribute('data-claim-expr')), c.getAttribute('data-claim'),
                       c.querySelector(':scope > .claim__false') !== null])""")
        for form, state, note in claims:
            with np.errstate(all="ignore"):
                want = "true" if bool(ph.run(form, scope)) else "false"
            assert (state, note) == (want, want == "false"), (form, state, want)
            flips += want == "false"
    assert flips > 0, "the random numbers never made a sentence false: the check saw nothing"


def _traces(cat_dim0: float):
    """The first and the second head of the worked example with cat's dimension 0 set by the reader."""
    w = np.array(W_VOCAB)
    w[0, 0] = cat_dim0
    first = tiny_decoder(SENTENCE_IDS, w, W_Q, W_K, W_V, W_FFN)
    second = tiny_decoder(SENTENCE_IDS, w, HEAD2_W_Q, HEAD2_W_K, HEAD2_W_V, W_FFN)
    return first, second


def test_every_figure_that_depends_on_the_inputs_redraws_with_the_readers_numbers(page):
    page.get_by_label("cat, wymiar 0").fill("0,3")
    first, second = _traces(0.3)
    # the figures the page says depend on the reader's numbers, read from the page itself
    dependent = page.locator(".computed-figure:not([data-live='fixed'])")
    assert dependent.count() >= 2
    for k in range(dependent.count()):
        figure = dependent.nth(k)
        name = figure.get_attribute("id")
        assert figure.get_attribute("data-live") == "drawn", name
        assert figure.locator(".live-example__drawing svg[role=img]").first.is_visible(), name
        assert figure.locator("img").first.is_hidden(), name
        assert "liczby strony, nie Twoje" not in figure.locator("figcaption").inner_text(), name
    # the scaled scores and the second head's heatmaps hold and say the reader's numbers
    drawn = {"live-scaled": first.attention.scaled, "live-h2-scores": second.attention.scores,
             "live-h2-weights": second.attention.weights}
    for testid, want in drawn.items():
        heat = page.locator(f"[data-testid={testid}]")
        assert heat.is_visible(), testid
        assert np.allclose(json.loads(heat.get_attribute("data-weights")), want, atol=1e-12), testid
        said = heat.get_attribute("aria-label")
        assert nf.fmt_dec(float(want[2][0]), 2) in said, (testid, said)
    masked = page.locator("[data-testid=live-h2-weights] .attn-x__cellnum").all_text_contents()
    assert masked == [("\u00d7" if j > i else nf.fmt_dec(float(second.attention.weights[i][j]), 2))
                      for i in range(3) for j in range(3)]
    # Q, K and V of the second head, and the embedding plane's points after attention
    matrices = page.locator("#fig-worked_example-qkv_projection [data-testid=live-matrix]")
    assert matrices.count() == 4
    for k, want in enumerate([second.embeddings, second.q, second.k, second.v]):
        cells = matrices.nth(k).locator(".attn-x__cellnum").all_text_contents()
        assert cells == [nf.fmt_dec(float(x), 1) for x in np.asarray(want).ravel()], k
    plane = page.locator("[data-testid=live-plane]").get_attribute("aria-label")
    for i in range(3):
        for x in first.attention.output[i]:
            assert nf.fmt_dec(float(x), 2) in plane, plane
    page.get_by_role("button", name="Przywróć").click()
    assert page.locator(".live-example__drawing").count() == 0


def _colours(page, testid: str, k: int = 0) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(fill, number colour) as RGB 0..255 of every painted cell of the k-th drawing `testid`, in row
    order, in the theme the page shows now."""
    return [tuple(tuple(int(v) for v in c.split("(")[1].rstrip(")").split(",")[:3]) for c in pair)
            for pair in page.locator(f"[data-testid={testid}]").nth(k).evaluate("""svg => {
                const nums = [...svg.querySelectorAll('.attn-x__cellnum')].filter(
                    n => n.classList.contains('live-example__painted-num'));
                return [...svg.querySelectorAll('.attn-x__cell')].map((c, k) =>
                    [getComputedStyle(c).fill, getComputedStyle(nums[k]).fill]);
            }""")]


def _figure_colours(m: np.ndarray, style, quantity: str, reach: float | None = None, blocked=None):
    """What figures_src/_shared/charts.py heatmap colours each cell of `m` (unblocked, row order) with, as
    RGB 0..1 — the policy restated from its docstring, not imported — and the value of each cell."""
    import matplotlib
    from matplotlib.colors import Normalize

    shown = m[~blocked] if blocked is not None else m.ravel()
    if quantity == "weights":
        name, lo, hi = style.cmap, 0.0, 1.0
    else:
        hi = reach if reach is not None else (float(np.abs(shown).max()) or 1.0)
        name, lo = style.cmap_scores, -hi
        if reach is None and shown.min() >= 0:
            name, lo = style.cmap, 0.0
    cmap = matplotlib.colormaps[name]
    return [(x, np.array(cmap(Normalize(lo, hi)(x))[:3])) for x in shown], name


# Linear interpolation between the 33 sampled stops is within 5,5/255 of matplotlib's own table.
COLOUR_TOLERANCE = 8


def _check_colours(page, testid, m, quantity, *, k=0, reach=None, blocked=None) -> set[int]:
    """The k-th drawing's cells have the built figure's colours in both themes; the signs seen."""
    from anatomia_engine.plot import DARK, LIGHT

    signs = set()
    for style in (LIGHT, DARK):
        scheme = "slate" if style is DARK else "default"
        page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        got = _colours(page, testid, k)
        want, name = _figure_colours(np.asarray(m, float), style, quantity, reach, blocked)
        assert len(got) == len(want), testid
        for (fill, ink), (x, colour) in zip(got, want, strict=True):
            assert np.abs(np.array(fill) - 255 * colour).max() <= COLOUR_TOLERANCE, (testid, name, x, fill)
            luminance = float(np.dot([0.299, 0.587, 0.114], colour))
            if abs(luminance - 0.55) > 0.03:   # black on light cells, else white (plot.Style.ink_on)
                assert ink == ((0, 0, 0) if luminance > 0.55 else (255, 255, 255)), (testid, x, ink)
            # a diverging map: red for a positive number, blue for a negative one, in both themes
            if name == style.cmap_scores and abs(x) > 0.1 * np.abs(np.asarray(m, float)).max():
                assert np.sign(fill[0] - fill[2]) == np.sign(x), (testid, name, x, fill)
                signs.add(int(np.sign(x)))
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")
    return signs


@pytest.mark.parametrize("cat_dim0", [0.3, -1.5])
def test_redrawn_grids_colour_sign_and_size_like_the_built_figures(page, cat_dim0):
    """Scores and Q/K/V on the theme's diverging map around 0 (the caption's „Kolor: znak i wielkość
    liczby”), scores that are all >= 0 and weights on its sequential map, checked against a NumPy
    recomputation of each cell in the light and the dark theme."""
    page.get_by_label("cat, wymiar 0").fill(nf.fmt_dec(cat_dim0, 1))
    first, second = _traces(cat_dim0)
    signs = _check_colours(page, "live-scaled", first.attention.scaled, "scores")
    signs |= _check_colours(page, "live-h2-scores", second.attention.scores, "scores")
    panels = [second.embeddings, second.q, second.k, second.v]
    reach = max(float(np.abs(p).max()) for p in panels)
    for k, panel in enumerate(panels):
        signs |= _check_colours(page, "live-matrix", panel, "scores", k=k, reach=reach)
    causal = np.triu(np.ones((3, 3), bool), 1)
    _check_colours(page, "live-h2-weights", second.attention.weights, "weights", blocked=causal)
    _check_colours(page, "live-heatmap", first.attention.weights, "weights", blocked=causal)
    _check_colours(page, "live-heatmap", _encoder_weights(cat_dim0), "weights", k=1)
    # the sign check saw both signs (K of the second head holds a negative number for chases)
    assert signs == {-1, 1}, signs


def _encoder_weights(cat_dim0: float) -> np.ndarray:
    """The first head's weights without the mask (the encoder's), with cat's dimension 0 set."""
    w = np.array(W_VOCAB)
    w[0, 0] = cat_dim0
    return tiny_decoder(SENTENCE_IDS, w, W_Q, W_K, W_V, W_FFN, causal=False).attention.weights


def test_the_redrawn_plane_has_an_arrow_with_a_head_for_each_token_attention_moved(page):
    page.get_by_label("cat, wymiar 0").fill("0,3")
    first, _ = _traces(0.3)
    moved = [not np.allclose(a, b) for a, b in zip(first.embeddings, first.attention.output, strict=True)]
    assert any(moved) and not all(moved)    # cat looks only at itself: it stays
    plane = page.locator("[data-testid=live-plane]")
    arrows = plane.locator("line.live-example__move")
    assert arrows.count() == sum(moved)
    for k in range(arrows.count()):
        marker = arrows.nth(k).get_attribute("marker-end")
        head = plane.locator(marker.removeprefix("url(").removesuffix(")") + " path")
        assert head.count() == 1
        assert head.evaluate("p => getComputedStyle(p).stroke") != "none"
    # the legend and the accessible description (with the reader's outputs) stay
    legend = page.locator("#fig-worked_example-embedding_plane .live-example__title")
    assert legend.count() == 1 and legend.inner_text().strip()
    said = plane.get_attribute("aria-label")
    assert all(nf.fmt_dec(float(x), 2) in said for x in first.attention.output.ravel()), said
