"""Golden values of the worked example "cat chases mouse" (docs/krok-po-kroku.md).

The reference is computed here with plain NumPy formulas, independently of attn_core, and
attn_core must agree to rtol = 1e-12.

The source article printed rounded intermediates (weights 0.35 / 0.65, attention output
0.48 / 0.65, ...) and kept computing with the rounded numbers. The exact weight of "chases"
on itself is 1 / (1 + e^(-0.84 / sqrt 2)) = 0.64427..., not 0.65, and the later values
(FFN output, logits, probabilities) shift accordingly; the site shows the exact ones.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from attn_core import causal_mask, scaled_dot_product_attention, softmax, tiny_decoder

W_VOCAB = np.array([[1.0, 0.2, 0.8, 0.0, 0.0],
                    [0.0, 1.0, 0.0, 0.5, 0.0]])
TOKENS = [0, 1, 2]                                  # cat, chases, mouse
W_QKV = np.eye(2)
W_FFN = np.array([[0.5, 1.0],
                  [1.0, 0.5]])
RTOL = 1e-12


def reference() -> dict[str, np.ndarray]:
    """The worked example with nothing but NumPy arithmetic (no attn_core)."""
    e = W_VOCAB[:, TOKENS].T                        # (3, 2)
    q, k, v = e @ W_QKV, e @ W_QKV, e @ W_QKV
    scores = q @ k.T
    scaled = scores / np.sqrt(2.0)
    blocked = np.triu(np.ones((3, 3), dtype=bool), 1)
    masked = np.where(blocked, -np.inf, scaled)
    exp = np.exp(masked - masked.max(axis=1, keepdims=True))
    weights = exp / exp.sum(axis=1, keepdims=True)
    out = weights @ v
    ffn = out @ W_FFN
    logits = ffn[-1] @ W_VOCAB
    probs = np.exp(logits) / np.exp(logits).sum()
    return {"e": e, "scores": scores, "scaled": scaled, "masked": masked, "weights": weights,
            "out": out, "ffn": ffn, "logits": logits, "probs": probs}


@pytest.fixture(scope="module")
def ref() -> dict[str, np.ndarray]:
    return reference()


@pytest.fixture(scope="module")
def trace():
    return tiny_decoder(TOKENS, W_VOCAB, W_QKV, W_QKV, W_QKV, W_FFN, causal=True)


def test_worked_example_embeddings_are_vocab_columns(trace, ref):
    assert_allclose(trace.embeddings, [[1.0, 0.0], [0.2, 1.0], [0.8, 0.0]], rtol=0, atol=0)
    assert_allclose(trace.q, ref["e"], rtol=0, atol=0)


def test_worked_example_scores_match_hand_values(trace):
    # Q K^T printed in the article (exact up to the binary representation of 0.2, 0.8).
    expected = [[1.0, 0.2, 0.8], [0.2, 1.04, 0.16], [0.8, 0.16, 0.64]]
    assert_allclose(trace.attention.scores, expected, rtol=RTOL)


@pytest.mark.parametrize("field", ["scores", "scaled", "masked", "weights"])
def test_worked_example_attention_steps(trace, ref, field):
    assert_allclose(getattr(trace.attention, field), ref[field], rtol=RTOL)


def test_worked_example_sdpa_matches_reference(ref):
    e = ref["e"]
    result = scaled_dot_product_attention(e, e, e, mask=causal_mask(3))
    assert result.scale == pytest.approx(1 / np.sqrt(2), rel=1e-15)
    assert_allclose(result.weights, ref["weights"], rtol=RTOL)
    assert_allclose(result.output, ref["out"], rtol=RTOL, atol=0)


@pytest.mark.parametrize(("field", "key"), [("ffn_out", "ffn"), ("logits", "logits"),
                                            ("probs", "probs")])
def test_worked_example_decoder_outputs(trace, ref, field, key):
    assert_allclose(getattr(trace, field), ref[key], rtol=RTOL, atol=1e-15)
    assert_allclose(trace.attention.output, ref["out"], rtol=RTOL)
    assert_allclose(trace.last_hidden, ref["ffn"][-1], rtol=RTOL)


def test_worked_example_exact_weight_is_0_6443_not_0_65(trace):
    # The source article rounded its intermediates (0.35 / 0.65 weights, 0.48 / 0.65 outputs,
    # ...) and computed on with them; the exact weight of "chases" on itself is 0.6443.
    w = trace.attention.weights
    # Row "chases" sees cat (0.2 / sqrt 2) and itself (1.04 / sqrt 2): a logistic of the gap.
    exact = 1.0 / (1.0 + np.exp(-0.84 / np.sqrt(2.0)))
    assert w[1, 1] == pytest.approx(exact, rel=1e-13)
    assert w[1, 1] == pytest.approx(0.6443, abs=5e-5)
    assert abs(w[1, 1] - 0.65) > 0.005             # the article's 0.65 is a rounding artefact
    assert_allclose(w.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert w[0, 1] == w[0, 2] == w[1, 2] == 0.0    # causal: exactly zero


def test_worked_example_prediction_is_chases(trace):
    assert int(np.argmax(trace.probs)) == 1
    assert_allclose(trace.probs, softmax(trace.logits), rtol=RTOL)
    # Rounded as the article rounds (2 decimals) the exact probabilities read 0.21, 0.31,
    # 0.19, 0.18, 0.12: "sleeping" is 0.1153, which the article printed as 11%.
    assert_allclose(np.round(trace.probs, 2), [0.21, 0.31, 0.19, 0.18, 0.12], rtol=0, atol=1e-12)


def test_worked_example_without_mask_differs_from_causal():
    full = tiny_decoder(TOKENS, W_VOCAB, W_QKV, W_QKV, W_QKV, W_FFN, causal=False)
    assert np.all(full.attention.weights > 0)
    assert_allclose(full.attention.weights.sum(axis=1), 1.0, rtol=0, atol=1e-15)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"token_ids": [0, 5]}, r"token_ids \(shape \(2,\)\) must lie in 0\.\.4"),
    ({"token_ids": []}, r"token_ids must be a non-empty 1-D sequence"),
    ({"w_q": np.eye(3)},
     r"w_q must have 2 rows \(d_model of w_vocab \(2, 5\)\), got shape \(3, 3\)"),
    ({"w_k": np.ones((2, 3))}, r"w_q \(2, 2\) and w_k \(2, 3\) must share d_k"),
    ({"w_ffn": np.eye(3)}, r"w_ffn must have shape \(d_v, d_model\) = \(2, 2\), got \(3, 3\)"),
    ({"w_vocab": np.ones(5)}, r"w_vocab must have 2 dimension"),
])
def test_tiny_decoder_bad_input(kwargs, message):
    args = {"token_ids": TOKENS, "w_vocab": W_VOCAB, "w_q": W_QKV, "w_k": W_QKV, "w_v": W_QKV,
            "w_ffn": W_FFN} | kwargs
    with pytest.raises(ValueError, match=message):
        tiny_decoder(**args)


def test_tiny_decoder_keeps_float32():
    f32 = {name: w.astype(np.float32) for name, w in
           {"w_vocab": W_VOCAB, "w_q": W_QKV, "w_k": W_QKV, "w_v": W_QKV, "w_ffn": W_FFN}.items()}
    trace = tiny_decoder(TOKENS, **f32)
    assert trace.probs.dtype == trace.attention.weights.dtype == np.float32
    assert_allclose(trace.probs, reference()["probs"], rtol=1e-6)
