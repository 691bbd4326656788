"""The worked example (docs/krok-po-kroku.md) read as a reader reads it, and recomputed: a tiny
decoder by hand, the page's matrices and tables, a number span's exact value, an input edited."""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path

import numpy as np
from bs4 import BeautifulSoup

from anatomia_engine.numfmt import fmt_dec
from attn_core import causal_mask, softmax, tiny_decoder
from figures_src import worked_example as we
from helpers import REPO

PAGE_SRC = REPO / "docs" / "krok-po-kroku.md"
BMATRIX = re.compile(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", re.DOTALL)
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


def exact_of_span(span) -> float:
    """data-exact (Polish notation, 7 significant digits, maybe ·10ⁿ) as a float."""
    text = span["data-exact"].replace("\u2212", "-").replace("\u202f", "").replace(",", ".")
    mantissa, _, power = text.partition("·10")
    sup = str.maketrans("\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079", "-0123456789")
    return float(mantissa) * 10 ** int(power.translate(sup)) if power else float(mantissa)


def edit_input(project: Path, old: str, new: str) -> None:
    path = project / "figures_src" / "_shared" / "inputs.py"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} not found once in inputs.py"
    path.write_text(text.replace(old, new), encoding="utf-8")


def kernel_regression(query: float, keys, values, sigma: float):
    kernel = [math.exp(-((query - k) ** 2) / (2 * sigma ** 2)) for k in keys]
    total = sum(kernel)
    weights = [x / total for x in kernel]
    return weights, sum(w * v for w, v in zip(weights, values, strict=True))
