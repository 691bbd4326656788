"""The worked example's added sections, checked against computations written out here.

Soft lookup (Nadaraya-Watson), order-invariance of the last row, the residual step E + AV, the
padding mask, the rounding of the shown probabilities, and the provenance of the main values.
Expected numbers come from the module's inputs with plain Python/NumPy (math.exp, explicit
loops), never from attn_core's functions under test or from the module's @values. No test reads
the page's wording.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from bs4 import BeautifulSoup
from numpy.testing import assert_allclose

from anatomia_engine.kit import Value
from figures_src import worked_example as we
from figures_src._shared import inputs
from tests.worked_example_page import kernel_regression


@pytest.fixture(scope="module")
def vals() -> dict:
    return {k: v.value if isinstance(v, Value) else v for k, v in we.worked_example().items()}


@pytest.fixture(scope="module")
def page(built_site) -> BeautifulSoup:
    return BeautifulSoup((built_site / "krok-po-kroku" / "index.html").read_text(encoding="utf-8"),
                         "html.parser")


def attention_by_hand(x: np.ndarray, blocked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Q = K = V = x (the example's W_Q = W_K = W_V = I), scaled by sqrt(d), loops and math.exp."""
    t, d = x.shape
    weights = np.zeros((t, t))
    for i in range(t):
        e = [0.0 if blocked[i][j] else math.exp(float(x[i] @ x[j]) / math.sqrt(d)) for j in range(t)]
        weights[i] = [v / sum(e) for v in e]
    return weights, weights @ x


def embeddings(ids) -> np.ndarray:
    return np.array([[inputs.W_VOCAB[0][i], inputs.W_VOCAB[1][i]] for i in ids])


def causal(t: int) -> np.ndarray:
    return np.array([[j > i for j in range(t)] for i in range(t)])


# --- soft lookup ------------------------------------------------------------------------------

def test_soft_lookup_weights_and_prediction(vals):
    weights, pred = kernel_regression(we.SOFT_LOOKUP_QUERY, we.SOFT_LOOKUP_KEYS,
                                      we.SOFT_LOOKUP_VALUES, we.SOFT_LOOKUP_SIGMA)
    assert_allclose(vals["soft_weights"], weights, rtol=1e-12)
    assert_allclose(vals["soft_pred"], pred, rtol=1e-12)
    nearest = min(range(len(we.SOFT_LOOKUP_KEYS)),
                  key=lambda j: abs(we.SOFT_LOOKUP_KEYS[j] - we.SOFT_LOOKUP_QUERY))
    assert vals["soft_nearest"] == nearest and vals["soft_top"] == weights.index(max(weights))


def test_narrow_kernel_approaches_the_nearest_value(vals):
    weights, pred = kernel_regression(we.SOFT_LOOKUP_QUERY, we.SOFT_LOOKUP_KEYS,
                                      we.SOFT_LOOKUP_VALUES, we.SOFT_LOOKUP_NARROW)
    assert_allclose(vals["soft_narrow_pred"], pred, rtol=1e-12)
    assert_allclose(vals["soft_narrow_top_weight"], max(weights), rtol=1e-12)
    assert we.SOFT_LOOKUP_NARROW < we.SOFT_LOOKUP_SIGMA


# --- order and the residual step ---------------------------------------------------------------

def test_last_row_does_not_depend_on_the_order_of_the_prefix(vals):
    x = embeddings(inputs.SENTENCE_IDS)
    x_re = embeddings(we.REORDERED_IDS)
    assert sorted(we.REORDERED_IDS) == sorted(inputs.SENTENCE_IDS)
    assert we.REORDERED_IDS[-1] == inputs.SENTENCE_IDS[-1] and we.REORDERED_IDS != inputs.SENTENCE_IDS
    _, out = attention_by_hand(x, causal(3))
    _, out_re = attention_by_hand(x_re, causal(3))
    assert_allclose(out_re[-1], out[-1], rtol=1e-14)
    assert_allclose(vals["last_out_reordered"], out_re[-1], rtol=1e-14)
    assert vals["order_gap"] < 1e-12
    assert not np.allclose(out_re[1], out[1])            # other rows do change with the order


def test_residual_is_embedding_plus_attention_output(vals):
    x = embeddings(inputs.SENTENCE_IDS)
    _, out = attention_by_hand(x, causal(3))
    assert_allclose(vals["residual"], x + out, rtol=1e-14)
    assert_allclose(vals["residual"][0], 2 * x[0], rtol=0)   # cat sees only itself


# --- padding mask --------------------------------------------------------------------------------

def test_padding_mask_weights_equal_the_unpadded_sentence(vals):
    short = we.BATCH_IDS[1]
    n, t = len(short), max(map(len, we.BATCH_IDS))
    x = np.vstack([embeddings(short), np.tile(we.PAD_EMBEDDING, (t - n, 1))])
    pad_blocked = np.array([[j >= n for j in range(t)] for _ in range(t)])
    with_mask, _ = attention_by_hand(x, pad_blocked)
    without, _ = attention_by_hand(x, np.zeros((t, t), dtype=bool))
    alone, _ = attention_by_hand(embeddings(short), np.zeros((n, n), dtype=bool))
    assert_allclose(vals["pad_weights"], with_mask, rtol=1e-14)
    assert_allclose(vals["pad_weights_nomask"], without, rtol=1e-14)
    assert_allclose(vals["pad_weights"][:n, :n], alone, rtol=1e-14)
    assert np.all(vals["pad_weights"][:, n:] == 0)
    assert_allclose(vals["pad_leak"], without[0, n:].sum(), rtol=1e-14)
    assert vals["pad_leak"] > 0 and vals["pad_zero"] == 1


# --- rounding and precision ----------------------------------------------------------------------

def test_shown_probabilities_sum_as_rounded(vals):
    x = embeddings(inputs.SENTENCE_IDS)
    _, out = attention_by_hand(x, causal(3))
    h = out[-1] @ np.array(inputs.W_FFN)
    logits = [h[0] * inputs.W_VOCAB[0][j] + h[1] * inputs.W_VOCAB[1][j] for j in range(len(inputs.VOCAB))]
    e = [math.exp(z) for z in logits]
    probs = [v / sum(e) for v in e]
    two = sum(Decimal(repr(p)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) for p in probs)
    assert_allclose(vals["probs_shown_sum"], float(two), rtol=0, atol=1e-12)
    assert_allclose(vals["logits"][0], h[0], rtol=1e-14)     # logit(cat) = h_mouse[0]


# --- provenance ----------------------------------------------------------------------------------

def test_main_values_say_what_they_are_and_quoted_ones_cite():
    raw = we.worked_example()
    for name in ("E", "scores", "weights", "attn_out", "residual", "probs"):
        assert isinstance(raw[name], Value) and raw[name].what and raw[name].cite is None, name
        axes = raw[name].axes
        assert axes is not None and len(axes) == np.ndim(raw[name].value), name
        assert all(len(a) == n for a, n in zip(axes, np.shape(raw[name].value), strict=True)), name
    for name in ("base_d_model", "base_heads", "bert_d_model"):
        assert isinstance(raw[name], Value) and raw[name].cite, name
