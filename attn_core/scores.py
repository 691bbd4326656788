# Shapes: S = source positions, d = state width (d_t target, d_s source), d_a = alignment width.
"""Score functions of Luong et al. (2015) and Bahdanau et al. (2014), and `attend`."""

from __future__ import annotations

import numpy as np

from attn_core._checks import as_float_array, compute_dtype
from attn_core.stable_softmax import softmax


def _vector_and_states(h_t, h_s, t_name: str = "h_t", s_name: str = "h_s"):
    h_t = as_float_array(h_t, t_name, ndim=1)
    h_s = as_float_array(h_s, s_name, ndim=2)
    if h_s.shape[0] == 0:
        raise ValueError(f"{s_name} must hold at least one state, got shape {h_s.shape}")
    return h_t, h_s


def _cast(*arrays: np.ndarray) -> list[np.ndarray]:
    dtype = compute_dtype(*arrays)
    return [a.astype(dtype, copy=False) for a in arrays]


def luong_dot(h_t: np.ndarray, h_s: np.ndarray) -> np.ndarray:
    """Luong "dot" score: score(h_t, h_s) = h_t^T h_s for every source state.

    h_t (d,), h_s (S, d) -> scores (S,). The ancestor of Q K^T in the Transformer.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (Luong's three score functions).
    """
    h_t, h_s = _vector_and_states(h_t, h_s)
    if h_t.shape[0] != h_s.shape[1]:
        raise ValueError(
            f"h_t and h_s must have the same width: h_t has shape {h_t.shape}, h_s {h_s.shape}"
        )
    h_t, h_s = _cast(h_t, h_s)
    return h_s @ h_t                                                 # (S, d) @ (d,) -> (S,)


def luong_general(h_t: np.ndarray, h_s: np.ndarray, w_a: np.ndarray) -> np.ndarray:
    """Luong "general" score: score(h_t, h_s) = h_t^T W_a h_s.

    h_t (d_t,), h_s (S, d_s), w_a (d_t, d_s) -> scores (S,).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (Luong's three score functions).
    """
    h_t, h_s = _vector_and_states(h_t, h_s)
    w_a = as_float_array(w_a, "w_a", ndim=2)
    if w_a.shape != (h_t.shape[0], h_s.shape[1]):
        raise ValueError(
            f"w_a must have shape (d_t, d_s) = {(h_t.shape[0], h_s.shape[1])} for h_t of shape "
            f"{h_t.shape} and h_s of shape {h_s.shape}, got {w_a.shape}"
        )
    h_t, h_s, w_a = _cast(h_t, h_s, w_a)
    return h_s @ (h_t @ w_a)                                         # (S, d_s) @ (d_s,) -> (S,)


def luong_concat(h_t: np.ndarray, h_s: np.ndarray, w_a: np.ndarray,
                 v_a: np.ndarray) -> np.ndarray:
    """Luong "concat" score: score(h_t, h_s) = v_a^T tanh(W_a [h_t; h_s]).

    h_t (d_t,), h_s (S, d_s), w_a (d_a, d_t + d_s), v_a (d_a,) -> scores (S,).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (Luong's three score functions).
    """
    h_t, h_s = _vector_and_states(h_t, h_s)
    w_a = as_float_array(w_a, "w_a", ndim=2)
    v_a = as_float_array(v_a, "v_a", ndim=1)
    width = h_t.shape[0] + h_s.shape[1]
    if w_a.shape[1] != width or v_a.shape[0] != w_a.shape[0]:
        raise ValueError(
            f"expected w_a of shape (d_a, d_t + d_s) = (d_a, {width}) and v_a of shape (d_a,); "
            f"got w_a {w_a.shape}, v_a {v_a.shape} for h_t {h_t.shape}, h_s {h_s.shape}"
        )
    h_t, h_s, w_a, v_a = _cast(h_t, h_s, w_a, v_a)
    pairs = np.concatenate([np.broadcast_to(h_t, (h_s.shape[0], h_t.shape[0])), h_s], axis=1)
    hidden = np.tanh(pairs @ w_a.T)                                  # (S, d_t + d_s) -> (S, d_a)
    return hidden @ v_a                                              # (S, d_a) -> (S,)


def bahdanau_additive(s_prev: np.ndarray, h: np.ndarray, w: np.ndarray, u: np.ndarray,
                      v: np.ndarray) -> np.ndarray:
    """Bahdanau additive score: e_j = v^T tanh(W s_{i-1} + U h_j).

    s_prev (d_s,) previous decoder state, h (S, d_h) encoder states, w (d_a, d_s),
    u (d_a, d_h), v (d_a,) -> scores (S,).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (before the Transformer).
    """
    s_prev, h = _vector_and_states(s_prev, h, "s_prev", "h")
    w = as_float_array(w, "w", ndim=2)
    u = as_float_array(u, "u", ndim=2)
    v = as_float_array(v, "v", ndim=1)
    d_a = v.shape[0]
    if w.shape != (d_a, s_prev.shape[0]) or u.shape != (d_a, h.shape[1]):
        raise ValueError(
            f"expected w of shape (d_a, d_s) = {(d_a, s_prev.shape[0])} and u of shape "
            f"(d_a, d_h) = {(d_a, h.shape[1])} (d_a from v {v.shape}); got w {w.shape}, "
            f"u {u.shape}"
        )
    s_prev, h, w, u, v = _cast(s_prev, h, w, u, v)
    hidden = np.tanh(w @ s_prev + h @ u.T)                           # (d_a,) + (S, d_a) -> (S, d_a)
    return hidden @ v                                                # (S, d_a) -> (S,)


def attend(scores: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Turn scores into weights and a context vector: a = softmax(e), c = sum_j a_j h_j.

    scores (S,) or (T, S), values (S, d_v) -> weights like scores, context (d_v,) or (T, d_v).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (Bahdanau/Luong context vector).
    """
    scores = as_float_array(scores, "scores", finite=False)
    values = as_float_array(values, "values", ndim=2)
    if scores.ndim not in (1, 2) or scores.shape[-1] != values.shape[0]:
        raise ValueError(
            f"scores must have shape (S,) or (T, S) with S = values.shape[0]; got scores "
            f"{scores.shape}, values {values.shape}"
        )
    scores, values = _cast(scores, values)
    weights = softmax(scores, axis=-1)                               # (S,) or (T, S)
    return weights, weights @ values                                 # -> (d_v,) or (T, d_v)
