"""Lab 3's content: inputs shown as values, the worked line with numbers, the multi-head step.

The notebook source is read with jupytext; expected numbers are recomputed here from the
seeds with NumPy directly (not by running the notebook's own code), and the page is the
strict build of the real site.
"""

from __future__ import annotations

import re

import jupytext
import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from attn_core import future_mask, multi_head_attention
from figures_src._shared import inputs
from helpers import whole_page
from tests.lab3_page import PRINT_TOL, SOURCE, matrix_after, outputs, step2_hidden


@pytest.fixture(scope="module")
def notebook():
    return jupytext.read(SOURCE)


@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return BeautifulSoup(whole_page(built_site / "laby" / "lab-3" / "index.html"),   # boxes put back
                         "html.parser")


# --- the notebook source ------------------------------------------------------------------------


# --- the built page -------------------------------------------------------------------------------

def test_worked_line_of_step_2_has_the_computed_weights(page):
    _, q, k, _ = step2_hidden()
    i = 2
    s = q[i] @ k[: i + 1].T / np.sqrt(inputs.D_K)
    a = np.exp(s - s.max())
    a /= a.sum()
    line = next(t for o in outputs(page) for t in o.splitlines() if t.startswith(f"y_{i} = "))
    shown = [float(x.replace(",", ".")) for x in re.findall(r"(-?\d+,\d+)·v_\d", line)]
    assert_allclose(shown, a, atol=0.005 + 1e-12)
    assert re.findall(r"·v_(\d)", line) == ["0", "1", "2"]


def test_multi_head_step_prints_attn_cores_weights_and_output(page):
    h, *_ = step2_hidden()
    rng = np.random.default_rng(inputs.SEED_HEADS)
    d = inputs.D_MODEL
    w_q, w_k, w_v, w_o = (rng.standard_normal((d, d)) / np.sqrt(d) for _ in range(4))
    ref = multi_head_attention(h, w_q, w_k, w_v, w_o, inputs.N_HEADS, mask=future_mask(len(h)))
    assert_allclose(matrix_after(page, "weights_mh[0]:"), ref.weights[0], atol=PRINT_TOL)
    assert_allclose(matrix_after(page, "weights_mh[1]:"), ref.weights[1], atol=PRINT_TOL)
    assert_allclose(matrix_after(page, "wyjście uwagi wielogłowej:"), ref.output, atol=PRINT_TOL)
    assert not np.allclose(ref.weights[0], ref.weights[1])      # the heads differ


def test_heatmap_has_a_transparent_background(page, built_site):
    (img,) = page.select(".jupyter-wrapper img.lab-figure")
    svg = (built_site / "laby" / "lab-3" / img["src"]).read_text(encoding="utf-8")
    patch = re.search(r'<g id="figure_1">\s*<g id="patch_1">\s*<path d="[^"]*"\s*style="([^"]*)"', svg)
    assert patch, "no figure background patch in the SVG"
    assert "fill: #ffffff" not in patch.group(1) or "opacity: 0" in patch.group(1)
