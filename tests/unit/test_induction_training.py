"""The build-time training run of figures_src/induction_training.py, re-run short and checked.

A shorter run with the module's own settings and seed must already show the induction
behaviour: the repeated half predicted far better than the random first half, and the
strongest layer-2 head matching prefixes far more than any layer-1 head. Losses and attention
patterns are recomputed here with plain loops, not with the attn_core functions that trained.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from figures_src import induction_training as it
from tests.induction_post import induction_by_occurrence, plain_patterns, short_run


def half_losses(logits, tokens, half):
    """Mean next-token loss on targets 2..L (first half) and L+2..2L (repeated half)."""
    logp = logits[:, :-1] - np.log(np.exp(logits[:, :-1]).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(logp, tokens[:, 1:, None], axis=-1)[..., 0]   # (E, T-1)
    return nll[:, : half - 1].mean(), nll[:, half:].mean()


def induction_by_offset(weights, half):
    """Per head, mean weight from query i in the second half to key i - L + 1: (h,)."""
    i = np.arange(half, 2 * half)
    return weights[:, :, i, i - half + 1].mean(axis=(0, 2))


@pytest.fixture(scope="module")
def trained():
    h = short_run()
    s = it.SETTINGS
    tokens = it.repeated_halves(np.random.default_rng(99), 32, s.half, s.vocab_size)
    weights, logits = plain_patterns(s.config, h.params, tokens)
    return h, tokens, weights, logits


def test_short_run_predicts_the_repeated_half_far_better(trained):
    h, tokens, _, logits = trained
    first, repeated = half_losses(logits, tokens, it.SETTINGS.half)
    log_v = np.log(it.SETTINGS.vocab_size)
    assert first > log_v - 0.1, "a random token cannot be predicted better than log V"
    assert repeated < 0.5 * first, (first, repeated)
    assert repeated < log_v - 1.5


def test_strongest_layer2_head_matches_prefixes_more_than_every_layer1_head(trained):
    _, _, weights, _ = trained
    half = it.SETTINGS.half
    layer1, layer2 = induction_by_offset(weights[0], half), induction_by_offset(weights[1], half)
    assert layer2.max() > 3 * layer1.max(), (layer1, layer2)
    assert layer2.max() > 0.4


def test_a_layer1_head_attends_to_the_previous_token(trained):
    _, _, weights, _ = trained
    t = 2 * it.SETTINGS.half
    i = np.arange(1, it.SETTINGS.half)                                  # the first half
    prev = weights[0][:, :, i, i - 1].mean(axis=(0, 2))                 # (h,)
    uniform = np.mean(1 / (i + 1))                                      # spread over 0..i
    assert prev.max() > 3 * uniform, prev
    assert t == weights[0].shape[-1]


def test_recorded_curves_match_a_plain_recomputation(trained):
    h, _, _, _ = trained
    s = it.SETTINGS
    weights, logits = plain_patterns(s.config, h.params, h.eval_tokens)
    first, repeated = half_losses(logits, h.eval_tokens, s.half)
    # The run is float32 (eps ~ 1.2e-7); the recomputation float64: rounding, not a formula.
    assert_allclose([h.first[-1], h.repeated[-1]], [first, repeated], rtol=1e-5)
    for layer in range(s.n_layers):
        assert_allclose(h.ind[-1, layer], induction_by_occurrence(weights[layer], h.eval_tokens),
                        rtol=1e-5)
    i = np.arange(1, 2 * s.half)
    assert_allclose(h.prev[-1, 0], weights[0][:, :, i, i - 1].mean(axis=(0, 2)), rtol=1e-5)


def test_training_data_repeats_with_a_varying_period():
    s = it.SETTINGS
    rng = np.random.default_rng(5)
    periods = set()
    for _ in range(20):
        for row in it.training_batch(rng, s):
            p = next((p for p in range(1, s.half + 1) if np.array_equal(row[p:], row[:-p])), None)
            periods.add(p)
    assert {s.min_period, s.half} <= periods, periods   # both ends of the range occur
    assert None in periods                               # and fully random rows
