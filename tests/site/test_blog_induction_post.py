"""The blog post "głowy indukcyjne" and its module figures_src/induction_training.py.

Page: docs/posty/posts/glowy-indukcyjne.md -> /posty/glowy-indukcyjne/.
Checked: front matter, the built page (title, date, tags, links, footnotes, figures in both
themes with their alt text), every number shown against the value the module computes, and the
module's key values against an independent recomputation from its recorded curves and its
trained parameters.
"""

from __future__ import annotations

import numpy as np
import pytest
from bs4 import BeautifulSoup

from anatomia_engine import numfmt as nf
from anatomia_engine.plot import STYLES
from figures_src import induction_training as it
from helpers import whole_page
from tests.induction_post import FIGURES, phase_change_by_hand, values


@pytest.fixture(scope="module")
def article(built_site):
    path = built_site / "posty" / "glowy-indukcyjne" / "index.html"
    assert path.exists(), "the post must be built at /posty/glowy-indukcyjne/"
    found = BeautifulSoup(whole_page(path), "html.parser").select_one(   # closed boxes put back
        "article.md-content__inner")
    assert found is not None
    return found


# --- front matter and page ------------------------------------------------------------------


def test_figures_are_embedded_light_and_dark_with_alt_text(article):
    for name in FIGURES:
        fig = article.select_one(f"figure#fig-induction_training-{name}")
        assert fig is not None, f"{name} is not on the page"
        srcs = sorted(img["src"] for img in fig.select("img"))
        assert [s.rsplit("#", 1)[1] for s in srcs] == ["only-dark", "only-light"]
        plot = getattr(it, name)(STYLES[0])
        assert fig.select_one("img")["alt"] == plot.alt.replace("[", "(").replace("]", ")")
        assert fig.select_one("figcaption").get_text(strip=True)


def test_links_to_the_main_post_section_resolve(article, built_site):
    hrefs = [a["href"] for a in article.select("a[href]") if "llm-mechanizm-uwagi" in a["href"]]
    assert hrefs, "the post links to the hand-built circuit"
    for href in hrefs:
        path, _, anchor = href.partition("#")
        target = (built_site / "posty" / "glowy-indukcyjne" / path).resolve() / "index.html"
        assert target.exists(), href
        assert f'id="{anchor}"' in whole_page(target), href


def test_footnotes_cite_olsson_elhage_and_adam(article):
    items = [li.get_text(" ") for li in article.select(".footnote li")]
    assert len(items) == 3
    assert "A Mathematical Framework for Transformer Circuits" in items[0]
    assert "In-context Learning and Induction Heads" in items[1] and "2209.11895" in items[1]
    assert "Adam" in items[2] and "1412.6980" in items[2]


def test_no_placeholder_survives(article):
    text = article.get_text()
    assert "{{" not in text and "{%" not in text and "endclaim" not in text


def test_every_number_in_prose_is_the_module_value(article):
    """Each span.num shows a value of the module (an element, a table cell) at its exact value
    (data-exact, 7 significant digits), formatted as the site formats numbers."""
    from anatomia_engine.kit import Table

    pool: list[float] = []
    for v in values().values():
        v = getattr(v, "value", v)
        if isinstance(v, Table):
            pool += [float(c) for row in v.rows for c in row if isinstance(c, (int, float))]
        elif isinstance(v, (int, float, np.ndarray, list, tuple)) and not isinstance(v, bool):
            arr = np.asarray(v)
            pool += [float(c) for c in arr.ravel()] if arr.dtype.kind in "biuf" else []
    pool_arr = np.array([c for c in pool if np.isfinite(c)])
    spans = article.select("span.num")
    assert len(spans) > 50
    for span in spans:
        if span["data-exact"].startswith("["):
            continue
        text = span["data-exact"].replace("\u2212", "-").replace("\u202f", "").replace(",", ".")
        mantissa, _, power = text.partition("·10")
        sup = str.maketrans("\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079",
                            "-0123456789")
        exact = float(mantissa) * 10 ** int(power.translate(sup)) if power else float(mantissa)
        assert span.get("data-source") == "figures_src/induction_training.py", span
        near = pool_arr[np.isclose(pool_arr, exact, rtol=5e-7, atol=0)]
        if span.has_attr("data-what"):
            assert near.size, span
        candidates = near if near.size else [exact]
        text = span.get_text()
        shown = {nf.fmt_sci(c, n) for c in candidates for n in range(4)}
        shown |= {nf.fmt_dec(c, n) for c in candidates for n in range(5)}
        shown |= {nf.fmt_pct(c, n) for c in candidates for n in range(3)}
        shown |= {nf.fmt_int(c) for c in candidates if float(c) == int(c)}
        shown |= {nf.fmt_words(c, case) for c in candidates if float(c) == int(c) and 2 <= c <= 20
                  for case in nf.CASES}
        shown |= {nf.fmt_times(c) for c in candidates if 2 <= c < 21}   # a ratio in words
        assert text in shown, span


def test_key_sentences_show_the_recomputed_numbers(article):
    v, h = values(), it.history()
    text = " ".join(article.get_text(" ").split())
    k = phase_change_by_hand(h)
    assert f"Wychodzi krok {nf.fmt_int(h.steps[k])}" in text
    assert f"Strata spada z {nf.fmt_dec(h.repeated[0], 2)} do {nf.fmt_dec(h.repeated[-1], 2)}" in text
    prev_head = int(np.argmax(h.prev[-1, 0]))
    assert f"głowa {prev_head + 1} rośnie od" in text
    assert v["tr_sample"] in text


# --- the module's values, recomputed --------------------------------------------------------

# --- in the browser -------------------------------------------------------------------------

