"""The worked example "cat chases mouse": what the built page shows equals what attn_core computes.

Page: docs/krok-po-kroku.md; module: figures_src/worked_example.py. Expected values are computed
here straight from the module's inputs with attn_core.tiny_decoder (not read back from the
module's @values function), then rounded with the site's one formatter.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from anatomia_engine.numfmt import fmt_dec, fmt_exact, fmt_pct
from attn_core import causal_mask, future_mask
from figures_src import worked_example as we
from helpers import copy_project, mkdocs_build
from tests.worked_example_page import (
    FIGURES,
    PAGE_SRC,
    bmatrices,
    decoder,
    display_math,
    edit_input,
    exact_of_span,
    expected,
    last_matrix,
    matrix_text,
    page_soup,
    table_with_header,
)


@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return page_soup(built_site)


# --- the module on its own (no build) --------------------------------------------------------

# --- the built page ---------------------------------------------------------------------------

def test_inputs_shown_as_defined(page):
    assert last_matrix(page, r"W_{\text{vocab}} =") == matrix_text(we.W_VOCAB, 1)
    assert last_matrix(page, "E =") == matrix_text(expected()["E"], 1)
    assert bmatrices(display_math(page, "W_Q ="))[:3] == [matrix_text(np.eye(2), 0)] * 3
    assert bmatrices(display_math(page, r"\text{FFN}(x) = xW_{\text{FFN}}"))[0] == matrix_text(we.W_FFN, 1)


@pytest.mark.parametrize(("start", "name", "decimals"), [
    ("Q = E W_Q,", "Q", 1),
    (r"QK^\top =", "scores", 2),
    (r"\frac{QK^\top}{\sqrt{ 2 }} =", "scaled", 2),
    (r"\frac{QK^\top}{\sqrt{ 2 }} + M", "masked", 2),
    ("A =", "weights", 2),
    (r"\text{Attention}(Q, K, V) = A V", "attn_out", 2),
    (r"\text{FFN}(AV)", "ffn_out", 2),
    (r"h_{\text{mouse}} =", "h_last", 3),
    (r"\text{logits} =", "logits", 3),
    (r"P = \text{softmax}", "probs", 2),
])
def test_displayed_matrices_equal_attn_core(page, start, name, decimals):
    assert last_matrix(page, start) == matrix_text(expected()[name], decimals)


def test_q_k_v_are_shown_once_because_they_are_equal(page):
    e = expected()
    assert np.array_equal(e["Q"], e["K"]) and np.array_equal(e["K"], e["V"])
    assert len(bmatrices(display_math(page, "Q = E W_Q,"))) == 1


def test_mask_and_operands_are_shown(page):
    masked = bmatrices(display_math(page, r"\frac{QK^\top}{\sqrt{ 2 }} + M"))
    assert masked[1] == matrix_text(causal_mask(3), 0)
    assert masked[1][0][1] == r"-\infty"
    product = bmatrices(display_math(page, r"QK^\top ="))
    assert product[:2] == [matrix_text(expected()["Q"], 1), matrix_text(expected()["K_T"], 1)]


def test_weight_chases_to_chases_is_the_exact_value_rounded(page):
    # Golden value: e^{1.04/√2} / (e^{0.2/√2} + e^{1.04/√2}) = 1 / (1 + e^{-0.84/√2}), by hand;
    # the source printed 0.65.
    exact = 1 / (1 + math.exp(-0.84 / math.sqrt(2)))
    assert_allclose(expected()["weights"][1, 1], exact, rtol=1e-14)
    assert last_matrix(page, "A =")[1] == ["0{,}36", "0{,}64", "0{,}00"]
    shown = {s.get_text() for s in page.select("span.num") if s["data-exact"] == fmt_exact(exact)}
    assert shown == {"0,64"}


def test_probability_table_shows_every_token(page):
    head, rows = table_with_header(page, "token")
    assert head == ["token", "logit", "prawdopodobieństwo"]
    e = expected()
    assert rows == [[tok, fmt_dec(e["logits"][i], 3), fmt_pct(e["probs"][i], 1)]
                    for i, tok in enumerate(we.VOCAB)]


def test_prose_numbers_are_the_exact_values_rounded(page):
    """Every number in prose is an element of a computed quantity (data-exact, 7 significant
    digits) rounded for display; a computed expression is at least its own exact value rounded."""
    e, checked = expected(), 0
    values = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in e.values()])
    for span in page.select("article span.num"):
        text = span.get_text()
        if span["data-exact"].startswith("["):
            continue
        exact = exact_of_span(span)
        near = values[np.isclose(values, exact, rtol=5e-7, atol=0)]
        if not near.size:
            near = np.array([exact])
        else:
            checked += 1
        if text.endswith("%"):
            shown = {fmt_pct(v, len(text[:-1].partition(",")[2])) for v in near}
        else:
            shown = {fmt_dec(v, len(text.partition(",")[2])) for v in near}
        assert text in shown, span
    assert checked >= 25


def test_footnotes_write_out_rows_with_computed_numbers(page):
    notes = page.select_one("div.footnote").get_text()
    e = expected()
    for x in [e["masked"][1, 0], math.exp(e["masked"][1, 0]), math.exp(e["masked"][1, 1]),
              e["weights"][1, 0], e["weights"][1, 1], e["weights"][2, 2], e["attn_out"][2, 0],
              e["exp_logits"][1], e["exp_logits"].sum(), e["probs"][1]]:
        assert fmt_dec(x, 4, math=True) in notes


def test_figures_are_in_the_site(page, built_site):
    for name in FIGURES:
        fig = page.find("figure", id=f"fig-worked_example-{name}")
        assert fig is not None, name
        for img in fig.find_all("img"):
            src = img["src"].split("#")[0]
            assert (built_site / "krok-po-kroku" / src).resolve().is_file(), src
    csv = (built_site / "figures" / "worked_example" / "weights_masked_vs_unmasked.csv")
    lines = csv.read_text(encoding="utf-8").splitlines()[1:]
    e = expected()
    got = np.array([[float(v) for v in line.split(",")[1:]] for line in lines])
    assert_allclose(got[:, 0], e["weights"].ravel(), rtol=1e-15)
    assert_allclose(got[:, 1], e["weights_enc"].ravel(), rtol=1e-15)
    blocked = future_mask(3).ravel()
    assert np.all(got[blocked, 0] == 0)


def test_every_formula_is_typeset_at_build(page):
    """anatomia_engine.mathml stops the build on TeX Temml cannot typeset; here every formula of
    the page carries Temml's MathML and no raw TeX is left."""
    formulas = page.select("article .arithmatex")
    assert len(formulas) > 50
    untypeset = [el.get_text()[:80] for el in formulas
                 if not el.select_one(":scope > math")]
    assert untypeset == []
    assert not page.select("merror")


# --- changing an input in a copy of the project ----------------------------------------------

def test_changed_ffn_weights_change_the_page(tmp_path, page):
    project = copy_project(tmp_path / "project")
    edit_input(project, "    [1.0, 0.5],\n])", "    [1.0, 0.6],\n])")
    proc = mkdocs_build(project, tmp_path / "site")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    changed = page_soup(tmp_path / "site")
    w_ffn = np.array([[0.5, 1.0], [1.0, 0.6]])
    new = decoder(w_ffn=w_ffn)
    assert last_matrix(changed, r"h_{\text{mouse}} =") == matrix_text(new.last_hidden, 3)
    assert last_matrix(changed, r"P = \text{softmax}") == matrix_text(new.probs, 2)
    assert last_matrix(changed, r"\text{logits} =") != last_matrix(page, r"\text{logits} =")


def test_input_that_falsifies_a_claim_fails_the_build(tmp_path):
    project = copy_project(tmp_path / "project")
    # The feed-forward weights change sign in one entry: the page's claims about what the FFN
    # and the logits do no longer hold. (The embeddings are left alone: the explorer's guided
    # tasks start from them, and its module would stop the build before any page is read.)
    edit_input(project, "    [0.5, 1.0],", "    [-2.0, 1.0],")
    proc = mkdocs_build(project, tmp_path / "site")
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    found = re.search(r"docs/krok-po-kroku\.md:(\d+): ", output)
    assert found, output[-2000:]
    lines = PAGE_SRC.read_text(encoding="utf-8").splitlines()
    # the line named is the one where a claim opens, and the message quotes the false sentence
    assert "{% claim" in lines[int(found.group(1)) - 1]
    assert "false claim" in output
