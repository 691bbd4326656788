"""Lab 3: the notebook page is executed at build time, light, and agrees with attn_core.

Page tests read the strict build of the real site (`built_site`). The plugin's notebook tests run
the anatomia plugin on small projects in tmp_path; builds of a broken copy use the real
venv's mkdocs (tests/helpers.py).
"""

from __future__ import annotations

import base64
import hashlib

import jupytext
import numpy as np
import pytest
from numpy.testing import assert_allclose

from figures_src import lab3
from tests.lab3_page import SOURCE

# --- helpers ------------------------------------------------------------------------------


# --- the inputs module --------------------------------------------------------------------

def test_lab3_inputs_are_read_only_and_shaped_as_the_lab_says():
    assert lab3.TOY_X.shape == lab3.LEAK_A.shape == lab3.LEAK_B.shape == (3, 2)
    assert_allclose(lab3.LEAK_A[0], lab3.LEAK_B[0])           # same first vector
    assert np.abs(lab3.LEAK_A[1:] - lab3.LEAK_B[1:]).max() > 0  # different future
    assert lab3.INPUT_IDS[0] == lab3.INPUT_IDS[2]               # a repeated token id
    assert lab3.INPUT_IDS.max() < lab3.VOCAB_SIZE
    assert len(lab3.INPUT_IDS) <= lab3.MAX_SEQ_LEN
    for array in (lab3.TOY_X, lab3.LEAK_A, lab3.LEAK_B, lab3.INPUT_IDS, lab3.EXERCISE_4_THIRD_ROW):
        with pytest.raises(ValueError):
            array[0] = 0


def test_lab3_values_publish_the_inputs():
    values = lab3.inputs()
    assert_allclose(values["toy_x"], lab3.TOY_X)
    assert values["d_k"] == lab3.D_K and values["long_seq_len"] == lab3.LONG_SEQ_LEN


# --- the notebook source ------------------------------------------------------------------

def test_notebook_source_is_canonical_percent_format_and_runs_no_torch():

    text = SOURCE.read_text(encoding="utf-8")
    assert "format_name: percent" in text
    # Saving through jupytext (e.g. from Jupyter) must not rewrite the file: no diff noise.
    assert jupytext.writes(jupytext.reads(text, fmt="py:percent"), fmt="py:percent") == text
    nb = jupytext.read(SOURCE)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert not any("torch" in source for source in code), "PyTorch is a reference, never executed"
    assert any("default_rng(SEED_EMBEDDINGS)" in source for source in code)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert markdown.count("```python") >= 6 and "import torch" in markdown
    assert "outputs" not in text and "execution_count" not in text   # no stored outputs


# --- the page copy -----------------------------------------------------------------------


def test_figures_move_into_files_named_by_content_with_their_size():
    from anatomia_engine.notebooks import figure_html

    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="300pt" height="150.6pt" viewBox="0 0 300 150.6"/>'
    png = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big")
    figures = {}
    svg_tag = figure_html({"image/svg+xml": '<?xml version="1.0"?>\n' + svg}, 'a "b"', figures)
    png_tag = figure_html({"image/png": base64.b64encode(png).decode()}, "p", figures)
    svg_name = f"rysunek-{hashlib.sha256(svg.encode()).hexdigest()[:12]}.svg"
    png_name = f"rysunek-{hashlib.sha256(png).hexdigest()[:12]}.png"
    assert figures == {svg_name: svg.encode(), png_name: png}
    assert svg_tag == (f'<img alt="a &quot;b&quot;" class="lab-figure" src="{svg_name}" width="400" '
                       'height="201" loading="lazy" decoding="async">')
    assert f'src="{png_name}" width="640" height="480" loading="lazy"' in png_tag
