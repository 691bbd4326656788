"""The induction-heads post checked by hand: a short training run, the heads' patterns recomputed
plainly, the phase change found by hand, and the post's values and figures."""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np

from figures_src import induction_training as it

SHORT_STEPS = 800  # past the phase change of the full run (the page says where it is)


@cache
def short_run() -> it.History:
    return it.train(dataclasses.replace(it.SETTINGS, steps=SHORT_STEPS, every=100))


def plain_patterns(config, params, tokens):
    """Per layer, attention weights (B, h, T, T) and the final logits, with explicit loops,
    in float64 whatever the dtype of the trained params."""
    params = {name: np.asarray(p, np.float64) for name, p in params.items()}
    d_k, out_logits, layers = config.d_k, [], [[] for _ in range(config.n_layers)]
    for seq in tokens:
        t = len(seq)
        x = params["embed"][seq] + params["pos"][:t]
        for layer in range(config.n_layers):
            heads, weights = [], []
            for j in range(config.n_heads):
                cols = slice(j * d_k, (j + 1) * d_k)
                q, k, v = (x @ params[f"{w}{layer}"][:, cols] for w in "qkv")
                s = q @ k.T / np.sqrt(d_k)
                s[np.triu_indices(t, 1)] = -np.inf
                a = np.exp(s - s.max(axis=1, keepdims=True))
                a /= a.sum(axis=1, keepdims=True)
                weights.append(a)
                heads.append(a @ v)
            layers[layer].append(weights)
            x = x + np.concatenate(heads, axis=1) @ params[f"o{layer}"]
        out_logits.append(x @ params["unembed"])
    return [np.array(w) for w in layers], np.array(out_logits)


def induction_by_occurrence(weights, tokens):
    """Per head, mean weight from i to the position after the latest earlier occurrence of
    token i, over every position whose token occurred before (loops, no attn_core): (h,)."""
    picked = []
    for b, seq in enumerate(tokens):
        for i in range(len(seq)):
            earlier = [j for j in range(i) if seq[j] == seq[i]]
            if earlier:
                picked.append(weights[b, :, i, earlier[-1] + 1])
    return np.mean(picked, axis=0)


FIGURES = ("training_loss_curves", "training_head_scores", "trained_previous_token_head",
           "trained_induction_head", "hand_built_induction_head")


@cache
def values() -> dict:
    return it.training_values()


def phase_change_by_hand(h) -> int:
    """Steepest fall of the repeated-half loss (slope over +-2 records) after it first drops
    below log V."""
    start = int(np.flatnonzero(h.repeated < np.log(it.SETTINGS.vocab_size))[0])
    slopes = {k: (h.repeated[k + 2] - h.repeated[k - 2]) / (h.steps[k + 2] - h.steps[k - 2])
              for k in range(max(start, 2), len(h.steps) - 2)}
    return min(slopes, key=slopes.get)
