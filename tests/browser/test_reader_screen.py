"""What a reader sees on a touch screen, in the explorer and on paper (Chromium)."""

from __future__ import annotations

import pytest

from helpers import site_pages

PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 1}
POST = "/posty/llm-mechanizm-uwagi/"


@pytest.fixture
def phone(browser):
    context = browser.new_context(**PHONE)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="module")
def step_by_step(browser, server):
    """/krok-po-kroku/ loaded once on a phone for the tests that only read it."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(server + "/krok-po-kroku/", wait_until="networkidle")
    yield page
    context.close()


def test_a_number_on_a_touch_screen_is_inline_with_a_24_px_target(step_by_step):
    nums = step_by_step.evaluate("""() => [...document.querySelectorAll('article p .num')].slice(0, 40)
        .map(n => [getComputedStyle(n).display, n.getBoundingClientRect().height])""")
    assert len(nums) >= 10
    # inline: the comma after a number stays on its line, the lines keep one height
    assert all(display == "inline" for display, _ in nums), nums
    assert all(height >= 24 for _, height in nums), nums


def test_footnote_way_back_is_visible_and_numbered_when_cited_twice(step_by_step):
    backs = step_by_step.evaluate("""() => [...document.querySelectorAll('.footnote li')].map(li =>
        [...li.querySelectorAll('.footnote-backref')].map(a => {
            const box = a.getBoundingClientRect(), after = getComputedStyle(a, '::after');
            return [getComputedStyle(a).opacity, after.content, parseFloat(after.fontSize),
                    Math.min(box.width, box.height)]; }))""")
    assert backs and all(float(o) == 1 for refs in backs for o, *_ in refs), backs
    assert all(side >= 24 for refs in backs for *_, side in refs), "a way back smaller than a finger"
    several = [refs for refs in backs if len(refs) > 1]
    assert several, "no footnote is cited twice: the numbering would go unchecked"
    for refs in several:     # each arrow shows its place in the list (a CSS counter), big enough to read
        assert all("counter(" in c and size >= 8 for _, c, size, _ in refs), refs
    single = [refs[0][1] for refs in backs if len(refs) == 1]
    assert all(c in ("none", "normal") for c in single), single


def test_temperature_error_stands_next_to_its_field(phone, server):
    phone.goto(server + "/llm/anatomia/", wait_until="networkidle")
    field = phone.get_by_label("Temperatura T (liczba)")
    field.fill("9")
    error = phone.locator("#" + field.get_attribute("aria-describedby").split()[0])
    assert error.is_visible() and error.inner_text().strip()
    assert field.get_attribute("aria-invalid") == "true"
    gap = error.bounding_box()["y"] - (field.bounding_box()["y"] + field.bounding_box()["height"])
    assert 0 <= gap < 120, f"the error is {gap:.0f} px below its field"
    field.fill("2")
    assert not error.inner_text().strip() and field.get_attribute("aria-invalid") is None


def test_each_seen_word_carries_its_weight_on_the_plane(phone, server):
    phone.goto(server + "/llm/anatomia/", wait_until="networkidle")
    labels = phone.locator("[data-attention-explorer] .attn-x__point text").all_text_contents()
    weights = phone.locator("[data-testid=heatmap] text").all_text_contents()
    assert labels and weights
    # the starting query sees every word of the sentence: each label names a weight
    used = [t for t in labels if any(ch.isdigit() for ch in t)]
    assert len(used) >= 3, labels


def print_page(page) -> None:
    """The page as the browser prints it: print media and the `beforeprint` event, on which
    Material opens every <details> (whether its script started before or after: it reads the
    media when it starts); returns once the boxes are open."""
    page.emulate_media(media="print")
    page.evaluate("dispatchEvent(new Event('beforeprint'))")
    page.wait_for_function("[...document.querySelectorAll('article details')].every(d => d.open)")


@pytest.fixture(scope="module")
def printed(browser, server):
    """The post as printed, loaded once for the checks that only read it."""
    context = browser.new_context(viewport={"width": 800, "height": 1100})
    page = context.new_page()
    page.goto(server + POST, wait_until="networkidle")
    print_page(page)
    yield page
    context.close()


def test_print_shows_the_posts_date_and_reading_time(printed):
    meta = printed.locator(".md-sidebar--post")
    assert meta.is_visible()
    assert printed.locator(".md-sidebar--post time").first.is_visible()


def test_print_drops_what_only_a_screen_can_do(printed):
    state = printed.evaluate("""() => ({
        screenOnly: [...document.querySelectorAll('.screen-only')].map(e => getComputedStyle(e).display),
        underline: [...document.querySelectorAll('article .num')].slice(0, 20)
            .map(e => getComputedStyle(e).textDecorationLine),
        boxes: [...document.querySelectorAll('article .admonition, article details')]
            .map(e => getComputedStyle(e).overflow),
        links: [...document.querySelectorAll('article a[href^="http"]')].slice(0, 5)
            .map(a => getComputedStyle(a, '::after').content),
    })""")
    assert state["screenOnly"] and set(state["screenOnly"]) == {"none"}, state
    assert state["underline"] and set(state["underline"]) == {"none"}, state
    # a box that clips is printed in one piece and can leave half a page empty
    assert state["boxes"] and set(state["boxes"]) == {"visible"}, state
    assert state["links"] and all("http" in c for c in state["links"]), state


def test_printed_pages_fit_the_paper(browser, server, built_site):
    """On an A4 page (794 × 1123 CSS px) no box that prints reaches past the right edge:
    Material's post sidebar and its scroll boxes' negative margins did (a line's end may hang
    into the page's margin, so inline boxes are not counted). No picture is taller than half
    the page: one that is cannot be split, moves whole to the next page and left the page
    before it up to half empty (the post's mask figure was 950 px tall)."""
    context = browser.new_context(viewport={"width": 794, "height": 1123})
    page = context.new_page()
    try:
        for path in site_pages(built_site):
            page.goto(server + path, wait_until="networkidle")
            print_page(page)
            # a lazy picture has no height until it loads (the page gives none): load them all
            tall = page.evaluate("""async () => {
                const imgs = [...document.querySelectorAll('article figure img')];
                imgs.forEach(img => { img.loading = 'eager'; });
                await Promise.all(imgs.map(img => img.decode().catch(() => null)));
                return imgs.filter(img => img.getBoundingClientRect().height > innerHeight / 2)
                    .map(img => img.src.split('/').pop() + ' ' + img.getBoundingClientRect().height);
            }""")
            assert tall == [], path
            past = page.evaluate("""() => [...document.querySelectorAll('article *')]
                .filter(e => getComputedStyle(e).display !== 'inline')
                .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5)
                .slice(0, 5).map(e => e.tagName.toLowerCase() + '.' + e.className)""")
            assert past == [], path
            page.evaluate("dispatchEvent(new Event('afterprint'))")
            page.emulate_media(media="screen")
    finally:
        context.close()
