"""The worked example "cat chases mouse": what the built page shows equals what attn_core computes.

Page: docs/krok-po-kroku.md; module: figures_src/worked_example.py. Expected values are computed
here straight from the module's inputs with attn_core.tiny_decoder (not read back from the
module's @values function), then rounded with the site's one formatter.
"""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from attn_core import causal_mask, future_mask, softmax, tiny_decoder
from figures_src import worked_example as we
from anatomia_engine.kit import Plot, Table, Value
from anatomia_engine.numfmt import fmt_dec, fmt_exact, fmt_pct, round_half_up
from anatomia_engine.plot import LIGHT
from helpers import REPO, copy_project, mkdocs_build

PAGE_SRC = REPO / "docs" / "krok-po-kroku.md"
BMATRIX = re.compile(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", re.DOTALL)
TOKENS = [we.VOCAB[i] for i in we.SENTENCE_IDS]
FIGURES = ["scaled_scores", "causal_mask_figure", "weights_masked_vs_unmasked",
           "embedding_plane", "next_token_probs", "soft_lookup", "padding_mask_figure",
           "transformer_block"]


def decoder(w_vocab=we.W_VOCAB, w_ffn=we.W_FFN, causal=True):
    return tiny_decoder(we.SENTENCE_IDS, w_vocab, we.W_Q, we.W_K, we.W_V, w_ffn, causal=causal)


@cache
def expected() -> dict[str, np.ndarray]:
    """Every quantity the page shows, computed from the inputs with attn_core."""
    dec, enc = decoder(), decoder(causal=False)
    t = len(we.SENTENCE_IDS)
    return {
        "W_vocab": np.asarray(we.W_VOCAB), "W_FFN": np.asarray(we.W_FFN),
        "E": dec.embeddings, "Q": dec.q, "K": dec.k, "V": dec.v, "K_T": dec.k.T,
        "scores": dec.attention.scores, "scaled": dec.attention.scaled,
        "masked": dec.attention.masked, "mask": causal_mask(t),
        "weights": dec.attention.weights, "weights_enc": enc.attention.weights,
        "weights_unscaled": softmax(dec.attention.scores + causal_mask(t)),
        "weights_sharp": softmax(we.SHARPEN_FACTOR * dec.attention.scaled + causal_mask(t)),
        "attn_out": dec.attention.output, "change": dec.attention.output - dec.embeddings,
        "ffn_out": dec.ffn_out, "h_last": dec.last_hidden, "logits": dec.logits,
        "probs": dec.probs, "top_prob": dec.probs.max(), "exp_logits": np.exp(dec.logits),
    }


def matrix_text(x, decimals: int) -> list[list[str]]:
    """How the page writes `x` inside a bmatrix."""
    return [[fmt_dec(v, decimals, math=True, allow_inf=True) for v in row]
            for row in np.atleast_2d(x)]


def bmatrices(latex: str) -> list[list[list[str]]]:
    return [[[cell.strip() for cell in row.split("&")] for row in body.split(r"\\")]
            for body in BMATRIX.findall(latex)]


def tex_of(formula) -> str:
    """The LaTeX of a formula typeset at build time (KaTeX keeps it in the MathML annotation)."""
    annotation = formula.select_one('annotation[encoding="application/x-tex"]')
    return annotation.get_text() if annotation is not None else formula.get_text()


def display_math(soup: BeautifulSoup, start: str) -> str:
    """The one display-math block of the page whose LaTeX starts with `start` (inside
    `\\begin{aligned}` or `gathered` if the block is split into lines)."""
    def flat(tex: str) -> str:
        # alignment marks and line layout are presentation: compared without them
        return " ".join(tex.replace("&", " ").split())

    def body(d) -> str:
        tex = tex_of(d).strip().removeprefix(r"\[").strip()
        for env in (r"\begin{aligned}", r"\begin{gathered}"):
            tex = tex.removeprefix(env).strip()
        return flat(tex)

    found = [tex_of(d) for d in soup.select("div.arithmatex") if body(d).startswith(flat(start))]
    assert len(found) == 1, f"expected one display block starting {start!r}, found {len(found)}"
    return found[0]


def last_matrix(soup: BeautifulSoup, start: str) -> list[list[str]]:
    return bmatrices(display_math(soup, start))[-1]


def is_figure_data(table) -> bool:
    """A figure's data table sits in the collapsible block "Dane do rysunku: …"."""
    details = table.find_parent("details")
    return bool(details and details.summary.get_text(strip=True).startswith("Dane do rysunku"))


def table_with_header(soup: BeautifulSoup, first: str, *, in_figure: bool = False):
    """Rows (lists of cell texts) of the page table whose first header cell is `first`."""
    for table in soup.select("article table"):
        head = [th.get_text(strip=True) for th in table.select("thead th")]
        if head and head[0] == first and is_figure_data(table) == in_figure:
            return head, [[td.get_text(strip=True) for td in tr.select("td")]
                          for tr in table.select("tbody tr")]
    raise AssertionError(f"no table with first header cell {first!r}")


def page_soup(site: Path) -> BeautifulSoup:
    return BeautifulSoup((site / "krok-po-kroku" / "index.html").read_text(encoding="utf-8"),
                         "html.parser")


@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return page_soup(built_site)


# --- the module on its own (no build) --------------------------------------------------------

def plain(values: dict) -> dict:
    """The module's values with kit.Value wrappers (provenance) taken off."""
    return {k: getattr(v, "value", v) if isinstance(v, Value) else v for k, v in values.items()}


# --- the built page ---------------------------------------------------------------------------

def test_inputs_shown_as_defined(page):
    assert last_matrix(page, "W_{vocab} =") == matrix_text(we.W_VOCAB, 1)
    assert last_matrix(page, "E =") == matrix_text(expected()["E"], 1)
    assert bmatrices(display_math(page, "W_Q ="))[:3] == [matrix_text(np.eye(2), 0)] * 3
    assert bmatrices(display_math(page, r"\text{FFN}(x) = xW_{FFN}"))[0] == matrix_text(we.W_FFN, 1)


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


def _exact(span) -> float:
    """data-exact (Polish notation, 7 significant digits, maybe ·10ⁿ) as a float."""
    text = span["data-exact"].replace("\u2212", "-").replace("\u202f", "").replace(",", ".")
    mantissa, _, power = text.partition("·10")
    sup = str.maketrans("\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "-0123456789")
    return float(mantissa) * 10 ** int(power.translate(sup)) if power else float(mantissa)


def test_prose_numbers_are_the_exact_values_rounded(page):
    """Every number in prose is an element of a computed quantity (data-exact, 7 significant
    digits) rounded for display; a computed expression is at least its own exact value rounded."""
    e, checked = expected(), 0
    values = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in e.values()])
    for span in page.select("article span.num"):
        text = span.get_text()
        if span["data-exact"].startswith("["):
            continue
        exact = _exact(span)
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
    """anatomia_engine.katex stops the build on TeX Temml cannot typeset; here every formula of
    the page carries Temml's MathML and no raw TeX is left."""
    formulas = page.select("article .arithmatex")
    assert len(formulas) > 50
    untypeset = [el.get_text()[:80] for el in formulas
                 if not el.select_one(":scope > math")]
    assert untypeset == []
    assert not page.select("merror")


# --- changing an input in a copy of the project ----------------------------------------------

def edit_input(project: Path, old: str, new: str) -> None:
    path = project / "figures_src" / "inputs.py"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found once in inputs.py"
    path.write_text(text.replace(old, new), encoding="utf-8")


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
    # chases' "action" drops from 1.0 to 0.1: chases then looks more at cat than at itself.
    edit_input(project, "    [0.0, 1.0, 0.0, 0.5, 0.0],", "    [0.0, 0.1, 0.0, 0.5, 0.0],")
    proc = mkdocs_build(project, tmp_path / "site")
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    lines = PAGE_SRC.read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, 1)
                if "{% claim weights[1][1] > weights[1][0] %}" in text)
    assert f"docs/krok-po-kroku.md:{line}:" in output
    assert "false claim" in output and "na siebie patrzy mocniej" in output
