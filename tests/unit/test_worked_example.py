"""The worked example "cat chases mouse": what the built page shows equals what attn_core computes.

Page: docs/krok-po-kroku.md; module: figures_src/worked_example.py. Expected values are computed
here straight from the module's inputs with attn_core.tiny_decoder (not read back from the
module's @values function), then rounded with the site's one formatter.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from anatomia_engine.kit import Plot, Table, Value
from anatomia_engine.numfmt import fmt_dec, round_half_up
from anatomia_engine.plot import LIGHT
from attn_core import causal_mask, softmax, tiny_decoder
from figures_src import worked_example as we
from helpers import REPO

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


def test_values_equal_tiny_decoder():
    vals = plain(we.worked_example())
    for name, value in expected().items():
        assert_allclose(vals[name], value, rtol=0, atol=0, err_msg=name)
    assert vals["top_token"] == we.VOCAB[int(np.argmax(expected()["probs"]))]
    assert vals["sentence"] == " ".join(TOKENS)


def test_inputs_are_read_only_constants():
    for w in (we.W_VOCAB, we.W_Q, we.W_K, we.W_V, we.W_FFN):
        assert not w.flags.writeable
    assert we.W_VOCAB.shape == (2, len(we.VOCAB))
    assert len(we.VOCAB) == 5 and we.SENTENCE_IDS == [0, 1, 2]


def test_source_printed_matches_value_shapes():
    vals = plain(we.worked_example())
    for key, printed in we.SOURCE_PRINTED.items():
        target = vals["probs"] if key == "probs_pct" else vals[key]
        assert np.shape(printed) == np.shape(target), key


def test_source_table_lists_exactly_the_disagreeing_numbers():
    vals = plain(we.worked_example())
    table = vals["source_table"]
    assert vals["n_source_differ"] == len(table.rows) > 0
    for _, printed, exact, diff in table.rows:
        places = len(printed.partition(",")[2])
        assert str(round_half_up(exact, places)).replace(".", ",") != printed
        assert_allclose(diff, float(printed.replace(",", ".")) - exact, rtol=1e-12)


def test_inputs_are_written_down_once():
    first_row = re.compile(r"1\.0,\s*0\.2,\s*0\.8,\s*0\.0,\s*0\.0")
    holders = [p.relative_to(REPO).as_posix()
               for p in [*(REPO / "figures_src").rglob("*.py"), *(REPO / "docs").rglob("*.md")]
               if first_row.search(p.read_text(encoding="utf-8"))]
    assert holders == ["figures_src/_shared/inputs.py"]


def test_page_source_types_no_computed_numbers():
    text = PAGE_SRC.read_text(encoding="utf-8")
    # arXiv identifiers (arXiv:1706.03762) and section numbers (§3.2.2) in the references are
    # citations, and model versions (Llama 3.1, 3.2) are names: none of them is a number.
    text = re.sub(r"\{\{.*?\}\}|\{%.*?%\}|`[^`]*`|\(https?://[^)]*\)|arXiv:\S+|§\S+"
                  r"|Llama \d[\d.]*(?: i \d\.\d)?", "", text, flags=re.DOTALL)
    assert re.findall(r"(?<![{\d])\d+[.,]\d+", text) == []  # A_{1,0} is an index, not a number


def test_sentences_that_read_numbers_are_claims():
    text = PAGE_SRC.read_text(encoding="utf-8")
    blocks = re.findall(r"\{% claim .*?%\}(.*?)\{% endclaim %\}", text, re.DOTALL)
    claims = " ".join(" ".join(block.split()) for block in blocks)
    for phrase in ["na siebie patrzy mocniej", "najwięcej uwagi poświęca cat", "bez zmian",
                   "„zwierzęcość” wzrosła", "„akcja” spadła", "pojawiła się składowa „akcji”",
                   "najbardziej prawdopodobnym następnym tokenem jest",
                   "Ostatni wiersz jest w obu wariantach identyczny", "macierzami jednostkowymi",
                   "wszystkie trzy iloczyny są równe", "waga cat jest tylko",
                   "rozkład wyraźnie by się wyostrzył", "bez niego chases patrzyłby na siebie"]:
        assert phrase in claims, phrase


@pytest.mark.parametrize("name", FIGURES)
def test_figure_functions_return_plots(name):
    import matplotlib.pyplot as plt

    plot = getattr(we, name)(LIGHT)
    try:
        assert isinstance(plot, Plot) and isinstance(plot.table, Table)
        assert plot.alt.strip() and plot.caption.strip()
    finally:
        plt.close(plot.fig)


# --- the built page ---------------------------------------------------------------------------


def test_sharpened_scores_concentrate_the_weights():
    sharp, weights = expected()["weights_sharp"], expected()["weights"]
    assert we.SHARPEN_FACTOR > 1
    assert sharp[2].max() > weights[2].max() and sharp[2].min() < weights[2].min()
    assert_allclose(sharp.sum(axis=1), 1.0, rtol=1e-15)


def _exact(span) -> float:
    """data-exact (Polish notation, 7 significant digits, maybe ·10ⁿ) as a float."""
    text = span["data-exact"].replace("\u2212", "-").replace("\u202f", "").replace(",", ".")
    mantissa, _, power = text.partition("·10")
    sup = str.maketrans("\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "-0123456789")
    return float(mantissa) * 10 ** int(power.translate(sup)) if power else float(mantissa)


# --- changing an input in a copy of the project ----------------------------------------------

def edit_input(project: Path, old: str, new: str) -> None:
    path = project / "figures_src" / "_shared" / "inputs.py"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found once in inputs.py"
    path.write_text(text.replace(old, new), encoding="utf-8")


