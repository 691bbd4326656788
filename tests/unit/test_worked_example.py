"""The worked example "cat chases mouse": what the built page shows equals what attn_core computes.

Page: docs/krok-po-kroku.md; module: figures_src/worked_example.py. Expected values are computed
here straight from the module's inputs with attn_core.tiny_decoder (not read back from the
module's @values function), then rounded with the site's one formatter.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from anatomia_engine.kit import Plot, Table, Value
from anatomia_engine.numfmt import round_half_up
from anatomia_engine.plot import LIGHT
from figures_src import worked_example as we
from helpers import REPO
from tests.worked_example_page import FIGURES, PAGE_SRC, expected, page_soup

TOKENS = [we.VOCAB[i] for i in we.SENTENCE_IDS]


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


# --- changing an input in a copy of the project ----------------------------------------------
