# Shapes: T = tokens, V = vocabulary, D = 2V + T + 1 residual width (token | pos | 1 | prev).
"""A hand-built two-layer induction circuit: [A][B] ... [A] -> [B] (Olsson et al. 2022)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import check_positive_int, check_positive_number, check_token_ids
from attn_core.attention import scaled_dot_product_attention
from attn_core.masks import causal_mask

# Every score of the toy is score_scale * (a 0/1 match), so a matching key beats a
# non-matching one by e^20 ≈ 4.9e8: large enough that each head puts weight > 0.999999 on its
# target for sequences of hundreds of tokens, finite so that every weight is an ordinary
# softmax output (only the causal mask uses -inf).
INDUCTION_SCORE_SCALE = 20.0


@dataclass(frozen=True, eq=False)
class InductionResult:
    """Attention patterns and prediction of `induction_toy`.

    prev_token_weights (T, T): layer 1, row i puts its weight on i - 1 (row 0 on itself);
    induction_weights (T, T): layer 2, row i puts its weight on positions j whose previous
    token equals token i; predicted: argmax of logits (an int); logits (V,): the layer-2
    head's output at the last position; residual (T, D) the stream after layer 1.
    """

    prev_token_weights: np.ndarray
    induction_weights: np.ndarray
    predicted: int
    logits: np.ndarray
    score_scale: float
    residual: np.ndarray


def _embed(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """Residual stream of one-hot features: [token | position | bias = 1 | previous token = 0]."""
    t = len(ids)
    x = np.zeros((t, 2 * vocab_size + t + 1))                        # (T, D)
    x[np.arange(t), ids] = 1.0
    x[np.arange(t), vocab_size + np.arange(t)] = 1.0
    x[:, vocab_size + t] = 1.0
    return x


def _previous_token_head(t: int, v: int):
    """W_Q, W_K, W_V, W_O of layer 1: query = own position, key = position + 1, value = token.

    q_i . k_j = [j = i - 1]; the value (token one-hot) is written to the previous-token slot.
    """
    d = 2 * v + t + 1
    pos = v + np.arange(t)
    w_q = np.zeros((d, t))
    w_q[pos, np.arange(t)] = 1.0                                     # position i -> e_i
    w_k = np.zeros((d, t))
    w_k[pos[:-1], np.arange(1, t)] = 1.0                             # position j -> e_(j+1)
    w_v = np.zeros((d, v))
    w_v[np.arange(v), np.arange(v)] = 1.0                            # token one-hot
    w_o = np.zeros((v, d))
    w_o[np.arange(v), v + t + 1 + np.arange(v)] = 1.0                # -> previous-token slot
    return w_q, w_k, w_v, w_o


def _induction_head(t: int, v: int):
    """W_Q, W_K, W_V of layer 2: query = current token, key = previous token, value = token.

    q_i . k_j = [prev(j) = token(i)] - [j = 0]: position 0 has no previous token (layer 1 left
    its own token there), so a bias feature in the query meets a -1 on position 0's key.
    """
    d = 2 * v + t + 1
    w_q = np.zeros((d, v + 1))
    w_q[np.arange(v), np.arange(v)] = 1.0                            # current token
    w_q[v + t, v] = 1.0                                              # bias
    w_k = np.zeros((d, v + 1))
    w_k[v + t + 1 + np.arange(v), np.arange(v)] = 1.0                # previous token
    w_k[v, v] = -1.0                                                 # position 0 penalty
    w_v = np.zeros((d, v))
    w_v[np.arange(v), np.arange(v)] = 1.0                            # copy the token
    return w_q, w_k, w_v


def induction_toy(tokens, vocab_size: int, *,
                  score_scale: float = INDUCTION_SCORE_SCALE) -> InductionResult:
    """Complete [A][B] ... [A] -> [B] with a hand-built previous-token head and induction head.

    Residual stream x (T, D) holds one-hot features [token | position | 1 | previous token].
    Layer 1 (previous-token head): scores score_scale * [j = i - 1] under a causal mask; it
    writes the previous token's one-hot into the previous-token slot: x1 = x + A1 V1 W_O1.
    Layer 2 (induction head): query = current token, key = previous-token slot, so position i
    attends to every j right after an earlier occurrence of token i, and copies token j.
    logits (V,) = layer-2 output at the last position (identity unembedding, the residual
    path left out); predicted = argmax(logits). tokens (T,) ints in 0..vocab_size-1.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (induction heads figure).
    """
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    score_scale = check_positive_number(score_scale, "score_scale")
    ids = check_token_ids(tokens, "tokens", vocab_size)
    if ids.ndim != 1 or ids.size == 0:
        raise ValueError(f"tokens must be a non-empty 1-D sequence, got shape {ids.shape}")
    t, v = len(ids), vocab_size
    mask = causal_mask(t)                                            # (T, T)
    x = _embed(ids, v)                                               # (T, D)
    w_q, w_k, w_v, w_o = _previous_token_head(t, v)
    layer1 = scaled_dot_product_attention(x @ w_q, x @ w_k, x @ w_v, mask=mask,
                                          scale=score_scale)         # weights (T, T)
    x1 = x + layer1.output @ w_o                                     # (T, V) -> (T, D)
    w_q, w_k, w_v = _induction_head(t, v)
    layer2 = scaled_dot_product_attention(x1 @ w_q, x1 @ w_k, x1 @ w_v, mask=mask,
                                          scale=score_scale)         # weights (T, T)
    logits = layer2.output[-1]                                       # (V,)
    return InductionResult(prev_token_weights=layer1.weights, induction_weights=layer2.weights,
                           predicted=int(np.argmax(logits)), logits=logits,
                           score_scale=score_scale, residual=x1)
