"""Monte Carlo experiments (variance, saturation), the softmax Jacobian, the induction toy."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from attn_core import (
    dot_product_variance,
    induction_toy,
    softmax,
    softmax_jacobian,
    softmax_saturation,
)
from tests.strategies import PROPERTY_SETTINGS, floats_of_shape

D_K = [1, 4, 16, 64, 256]


def test_dot_product_variance_grows_like_d_k():
    var = dot_product_variance(np.random.default_rng(1), D_K, 20_000)
    # Var(q.k) = d_k; the sample variance of 20 000 draws has a relative standard error of
    # at most sqrt(8 / 20 000) = 2 % (d_k = 1, where q_i k_i has E[x^4] = 9), so 10 % is safe.
    assert_allclose(var, D_K, rtol=0.1)


def test_dot_product_variance_is_reproducible_from_the_generator():
    a = dot_product_variance(np.random.default_rng(5), [2, 8], 100)
    b = dot_product_variance(np.random.default_rng(5), [2, 8], 100)
    assert_array_equal(a, b)


def test_dot_product_variance_takes_prefixes_of_one_draw_in_the_order_asked():
    # documented: the pairs are drawn once at the largest d_k, a smaller d_k takes their first
    # d_k coordinates; the answer follows d_k_values' order, repeats included
    d_k_values = [8, 1, 3, 8]
    var = dot_product_variance(np.random.default_rng(4), d_k_values, 300)
    rng = np.random.default_rng(4)
    q = rng.standard_normal((300, 8), dtype=np.float32).astype(np.float64)
    k = rng.standard_normal((300, 8), dtype=np.float32).astype(np.float64)
    by_hand = [np.var(np.sum(q[:, :d] * k[:, :d], axis=1), ddof=1) for d in d_k_values]
    assert_allclose(var, by_hand, rtol=1e-5)


def test_softmax_saturation_without_scaling_goes_one_hot():
    rng = np.random.default_rng(2)
    raw = softmax_saturation(rng, D_K, n_tokens=16, n_samples=400, scaled=False)
    scaled = softmax_saturation(rng, D_K, n_tokens=16, n_samples=400, scaled=True)
    assert raw.scaled is False and scaled.scaled is True
    assert_array_equal(raw.d_k, D_K)
    assert np.all(np.diff(raw.max_weight) > 0) and raw.max_weight[-1] > 0.9
    assert np.all(np.diff(raw.entropy) < 0) and raw.entropy[-1] < 0.3
    assert raw.jacobian_norm[-1] < 0.5 * raw.jacobian_norm.max()  # gradients vanish
    # Scaled scores keep unit variance: the statistics stay in a narrow band for every d_k.
    assert np.ptp(scaled.max_weight) < 0.1 and np.ptp(scaled.entropy) < 0.3
    assert np.all(scaled.entropy <= np.log(16))


def test_softmax_saturation_matches_definition_for_one_sample():
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    stats = softmax_saturation(rng_a, [3], n_tokens=4, n_samples=1, scaled=True)
    # drawn in float32, summed in float32: the definition in float64 agrees to its rounding
    q = rng_b.standard_normal((1, 3), dtype=np.float32).astype(np.float64)
    k = rng_b.standard_normal((1, 4, 3), dtype=np.float32).astype(np.float64)
    p = softmax(k[0] @ q[0] / np.sqrt(3))
    jac = np.diag(p) - np.outer(p, p)
    assert_allclose(stats.max_weight, [p.max()], rtol=1e-6)
    assert_allclose(stats.entropy, [-(p * np.log(p)).sum()], rtol=1e-6)
    assert_allclose(stats.jacobian_norm, [np.linalg.norm(jac)], rtol=1e-6)


@PROPERTY_SETTINGS
@given(floats_of_shape((5,)))
def test_softmax_jacobian_matches_finite_differences(x):
    p = softmax(x)
    jac = softmax_jacobian(p)
    h = 1e-6
    numeric = np.stack([(softmax(x + h * e) - softmax(x - h * e)) / (2 * h) for e in np.eye(5)],
                       axis=1)
    assert_allclose(jac, numeric, rtol=0, atol=1e-8)
    assert_allclose(jac, jac.T, rtol=0, atol=0)
    assert_allclose(jac.sum(axis=1), 0.0, rtol=0, atol=1e-15)


def test_softmax_jacobian_batch_and_one_hot():
    assert_array_equal(softmax_jacobian(np.array([0.0, 1.0, 0.0])), np.zeros((3, 3)))
    assert softmax_jacobian(np.full((2, 4), 0.25)).shape == (2, 4, 4)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: dot_product_variance(np.random.default_rng(0), [0, 4], 10),
     r"d_k_values must be a non-empty 1-D list of positive ints"),
    (lambda: dot_product_variance(42, [4], 10), r"rng must be a numpy Generator"),
    (lambda: dot_product_variance(np.random.default_rng(0), [4], 1), r"n_samples must be >= 2"),
    (lambda: softmax_saturation(np.random.default_rng(0), [4], 0, 10, True),
     r"n_tokens must be > 0"),
    (lambda: softmax_saturation(np.random.default_rng(0), [2.5], 4, 10, True),
     r"d_k_values must be"),
    (lambda: softmax_jacobian(np.array([0.5, 0.6])),
     r"p \(shape \(2,\)\) must be non-negative with entries summing to 1"),
    (lambda: softmax_jacobian(np.array([1.5, -0.5])), r"must be non-negative"),
])
def test_experiments_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_induction_completes_a_b_pattern():
    a, b = 3, 1
    tokens = [a, b, 4, 0, 2, a]
    res = induction_toy(tokens, vocab_size=5)
    assert res.predicted == b
    assert res.logits.shape == (5,) and res.logits[b] > 0.999
    t = len(tokens)
    # Layer 1: every position after the first looks at its predecessor.
    assert np.all(np.diag(res.prev_token_weights, -1) > 1 - 1e-6)
    assert res.prev_token_weights[0, 0] == 1.0
    # Layer 2: the last [A] looks at the position right after the earlier [A], which holds [B].
    assert int(np.argmax(res.induction_weights[-1])) == 1
    assert res.induction_weights[-1, 1] > 1 - 1e-6
    for w in (res.prev_token_weights, res.induction_weights):
        assert w.shape == (t, t)
        assert np.all(w[np.triu_indices(t, 1)] == 0.0)            # both heads are causal
        assert_allclose(w.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@PROPERTY_SETTINGS
@given(st.data())
def test_induction_predicts_the_token_after_the_earlier_occurrence(data):
    vocab = data.draw(st.integers(3, 12))
    prefix = data.draw(st.permutations(range(vocab)))[: data.draw(st.integers(2, vocab))]
    j = data.draw(st.integers(0, len(prefix) - 2))                # [A][B] = prefix[j], prefix[j+1]
    res = induction_toy([*prefix, prefix[j]], vocab)
    assert res.predicted == prefix[j + 1]
    assert int(np.argmax(res.induction_weights[-1])) == j + 1


def test_induction_position_zero_is_not_a_match():
    # Token 2 opens the sequence and comes back at the end; position 0 has no predecessor,
    # so the head must not pick it (its previous-token slot holds its own token).
    res = induction_toy([2, 0, 1, 2], vocab_size=3)
    assert res.predicted == 0
    assert res.induction_weights[-1, 0] < 1e-6


@pytest.mark.parametrize(("call", "message"), [
    (lambda: induction_toy([0, 5], 5), r"tokens \(shape \(2,\)\) must lie in 0\.\.4"),
    (lambda: induction_toy([], 5), r"tokens must be"),
    (lambda: induction_toy([[0, 1]], 5), r"tokens must be a non-empty 1-D sequence"),
    (lambda: induction_toy([0, 1], 0), r"vocab_size must be > 0"),
    (lambda: induction_toy([0, 1], 3, score_scale=-1.0), r"score_scale must be finite and > 0"),
])
def test_induction_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
