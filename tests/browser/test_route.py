"""The learner's route: the home page lists it, the footer walks it, every step points on.

The route is read from the home page itself (its numbered `.route` list), never written here; the
footer's links and the "Co dalej" boxes (`!!! next-step`) are followed by clicking, as a reader
would (anatomia_engine/route.py splices the blog's posts into the footer's chain).
"""

from __future__ import annotations

from urllib.parse import urlparse


def _path(url: str) -> str:
    return urlparse(url).path


def _route(page, server) -> list[str]:
    """The address of every step of the home page's route, in its order."""
    page.goto(server + "/", wait_until="domcontentloaded")
    links = page.locator(".route > ol > li").evaluate_all(
        "items => items.map(li => li.querySelector('a[href]').href)")
    assert len(links) >= 2, "the home page lists no route"
    return [_path(link) for link in links]


def _walk(page, start: str, selector: str) -> list[str]:
    """Follow the footer link `selector` from `start` until a page has none; the paths seen."""
    page.goto(start, wait_until="domcontentloaded")
    seen = [_path(page.url)]
    while page.locator(selector).count():
        page.locator(selector).click()
        page.wait_for_load_state("domcontentloaded")
        assert _path(page.url) not in seen, f"the footer's chain loops back to {page.url}"
        seen.append(_path(page.url))
    return seen


def test_the_footer_walks_the_home_pages_route_both_ways(browser, server):
    """"Następna strona" from the home page visits the route's steps one after another, and
    "Poprzednia strona" from the last step comes back the same way."""
    context = browser.new_context()
    page = context.new_page()
    try:
        route = _route(page, server)
        forward = _walk(page, server + "/", "a.md-footer__link--next")
        assert forward[0] == "/"
        at = forward.index(route[0])
        assert forward[at:at + len(route)] == route, forward
        backward = _walk(page, server + route[-1], "a.md-footer__link--prev")
        assert backward[:len(route)] == route[::-1], backward
        assert backward[-1] == "/", backward
    finally:
        context.close()


def test_every_step_of_the_route_ends_by_pointing_to_the_next(browser, server):
    """Each route page ends (after its last section heading) with a "Co dalej" box whose first
    link leads to the next step; the last step's box leads to a page of the site."""
    context = browser.new_context()
    page = context.new_page()
    try:
        route = _route(page, server)
        for step, following in zip(route, [*route[1:], None], strict=True):
            page.goto(server + step, wait_until="domcontentloaded")
            box = page.locator("article .admonition.next-step").last
            assert box.count(), f"{step} has no 'Co dalej' box"
            after_last_heading = box.evaluate(
                """box => {
                    const headings = [...document.querySelectorAll('article h2')];
                    const last = headings[headings.length - 1];
                    return !last || Boolean(last.compareDocumentPosition(box)
                                            & Node.DOCUMENT_POSITION_FOLLOWING);
                }""")
            assert after_last_heading, f"{step}: the 'Co dalej' box is not the page's end"
            response = None
            with page.expect_navigation():
                box.locator("a[href]").first.click()
            response = page.request.get(page.url)
            assert response.ok, (step, page.url)
            if following is not None:
                assert _path(page.url) == following, (step, page.url)
            else:
                assert _path(page.url) != step, step
    finally:
        context.close()


def test_the_blog_index_lists_the_route_s_posts_in_the_route_s_order(browser, server, built_site):
    """anatomia_engine/route.py sorts the blog index oldest first, which is the route's order."""
    from helpers import site_pages

    context = browser.new_context()
    page = context.new_page()
    try:
        route = _route(page, server)
        for index in site_pages(built_site, containing="md-post--excerpt"):
            page.goto(server + index, wait_until="domcontentloaded")
            listed = [_path(href) for href in page.locator("article.md-post--excerpt h2 a[href]")
                      .evaluate_all("links => links.map(a => a.href)")]
            on_route = [p for p in listed if p in route]
            assert len(on_route) >= 2, (index, listed)
            assert on_route == [p for p in route if p in on_route], (index, listed)
    finally:
        context.close()
