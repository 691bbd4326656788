# Shapes: s = samples, n = tokens (keys), d_k = query/key width, D = number of d_k values.
"""Monte Carlo experiments behind the 1/sqrt(d_k) argument: dot-product variance, saturation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import as_float_array, as_real_array, check_positive_int
from attn_core.stable_softmax import softmax

_CHUNK_ELEMENTS = 1 << 21    # random numbers drawn per chunk, bounds memory for large d_k
# Drawing the vectors is most of an experiment's cost, so each is drawn once, at the largest
# d_k, and every smaller d_k uses its first d_k coordinates (those are N(0, I_{d_k}) vectors
# too: each estimate is an ordinary Monte Carlo estimate; estimates at different d_k share
# draws). And in float32, at half the cost of float64: its rounding (~10^-6 of a dot product)
# is far below a Monte Carlo estimate's error (~1 % from 10^4 samples); the statistics are
# taken in float64.
DRAW_DTYPE = np.float32


@dataclass(frozen=True, eq=False)
class SaturationStats:
    """Sample averages of softmax(q . k_j [/ sqrt(d_k)]) over j, one entry per d_k.

    d_k (D,) ints; max_weight (D,) mean largest weight; entropy (D,) mean entropy in nats
    (log n = uniform, 0 = one-hot); jacobian_norm (D,) mean Frobenius norm of
    diag(p) - p p^T (0 = no gradient flows); scaled: whether scores were divided by sqrt(d_k).
    """

    d_k: np.ndarray
    max_weight: np.ndarray
    entropy: np.ndarray
    jacobian_norm: np.ndarray
    scaled: bool


def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy Generator (np.random.default_rng(SEED)), got {type(rng).__name__}"
        )
    return rng


def _check_d_k_values(d_k_values) -> np.ndarray:
    d = np.atleast_1d(as_real_array(d_k_values, "d_k_values"))
    if d.ndim != 1 or d.size == 0 or not np.issubdtype(d.dtype, np.integer) or np.any(d <= 0):
        raise ValueError(f"d_k_values must be a non-empty 1-D list of positive ints, got {d!r}")
    return d.astype(np.int64)


def _prefix_dots(q: np.ndarray, k: np.ndarray, d_k_values: np.ndarray) -> np.ndarray:
    """q . k over the first d_k coordinates, for every d_k, in float64.

    q and k (..., d_max), broadcast together -> (D, ...): entry i is sum_{j < d_k[i]} q_j k_j.
    The coordinates between two consecutive d_k are summed in the draws' precision, those
    partial sums added up in float64.
    """
    running = np.zeros(np.broadcast_shapes(q.shape, k.shape)[:-1])  # (...,) float64
    upto = {}
    start = 0
    for end in np.unique(d_k_values):                                # ascending
        running = running + np.vecdot(q[..., start:end], k[..., start:end])
        upto[end] = running
        start = end
    return np.stack([upto[d_k] for d_k in d_k_values])               # (D, ...)


def dot_product_variance(rng: np.random.Generator, d_k_values, n_samples: int) -> np.ndarray:
    """Monte Carlo Var(q . k) for q, k ~ N(0, I_{d_k}), one estimate per d_k.

    q . k = sum_i q_i k_i has mean 0 and variance d_k; the estimate is the unbiased sample
    variance (ddof=1) of n_samples dot products. The n_samples pairs are drawn once (in
    DRAW_DTYPE) at the largest d_k; a smaller d_k takes their first d_k coordinates.
    d_k_values (D,) -> (D,) float64.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (variance vs d_k figure).
    """
    rng = _check_rng(rng)
    d_k_values = _check_d_k_values(d_k_values)
    n_samples = check_positive_int(n_samples, "n_samples")
    if n_samples < 2:
        raise ValueError(f"n_samples must be >= 2 for a sample variance, got {n_samples}")
    d_max = int(d_k_values.max())
    dots = np.empty((len(d_k_values), n_samples))                    # (D, s)
    chunk = max(1, _CHUNK_ELEMENTS // d_max)
    for s0 in range(0, n_samples, chunk):
        s1 = min(n_samples, s0 + chunk)
        q = rng.standard_normal((s1 - s0, d_max), dtype=DRAW_DTYPE)  # (s, d_max)
        k = rng.standard_normal((s1 - s0, d_max), dtype=DRAW_DTYPE)  # (s, d_max)
        dots[:, s0:s1] = _prefix_dots(q, k, d_k_values)              # (D, s)
    return dots.var(axis=1, ddof=1)                                  # (D,)


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    """Jacobian of softmax at its output p: J = diag(p) - p p^T, i.e. p_i (δ_ij - p_j).

    p (..., n), a probability vector (non-negative, sums to 1) -> (..., n, n), symmetric.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (saturation: vanishing gradients).
    """
    p = as_float_array(p, "p", min_ndim=1)
    tol = np.sqrt(np.finfo(p.dtype).eps) * p.shape[-1]
    if np.any(p < 0) or np.any(np.abs(p.sum(axis=-1) - 1) > tol):
        raise ValueError(f"p (shape {p.shape}) must be non-negative with entries summing to 1")
    diag = p[..., :, None] * np.eye(p.shape[-1], dtype=p.dtype)      # (..., n, n)
    return diag - p[..., :, None] * p[..., None, :]                  # (..., n, n)


def _saturation_of(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-sample largest weight, entropy (nats) and ||diag(p) - p p^T||_F of p (s, n)."""
    log_p = np.log(np.where(p > 0, p, 1.0))                          # (s, n); 0 log 0 = 0
    entropy = -np.sum(p * log_p, axis=-1)                            # (s,)
    jac = softmax_jacobian(p)                                        # (s, n, n)
    return p.max(axis=-1), entropy, np.sqrt(np.sum(jac**2, axis=(-2, -1)))


def _saturation_runs(rng: np.random.Generator, d_k_values, n_tokens: int, n_samples: int,
                     scalings: tuple[bool, ...]) -> list[SaturationStats]:
    """One SaturationStats per entry of `scalings`, all computed from the same random draws."""
    rng = _check_rng(rng)
    d_k_values = _check_d_k_values(d_k_values)
    n_tokens = check_positive_int(n_tokens, "n_tokens")
    n_samples = check_positive_int(n_samples, "n_samples")
    stats = np.zeros((len(scalings), 3, len(d_k_values)))            # runs x (max, H, jac) x D
    d_max = int(d_k_values.max())
    chunk = max(1, _CHUNK_ELEMENTS // (n_tokens * d_max))
    for s0 in range(0, n_samples, chunk):
        s = min(n_samples, s0 + chunk) - s0
        q = rng.standard_normal((s, 1, d_max), dtype=DRAW_DTYPE)     # (s, 1, d_max)
        k = rng.standard_normal((s, n_tokens, d_max), dtype=DRAW_DTYPE)   # (s, n, d_max)
        raw_all = _prefix_dots(q, k, d_k_values)                     # (D, s, n)
        for idx, (d_k, raw) in enumerate(zip(d_k_values, raw_all, strict=True)):
            for run, scaled in enumerate(scalings):
                scores = raw / np.sqrt(d_k) if scaled else raw
                for row, values in enumerate(_saturation_of(softmax(scores))):
                    stats[run, row, idx] += values.sum()
    stats /= n_samples
    return [SaturationStats(d_k=d_k_values, max_weight=st[0], entropy=st[1],
                            jacobian_norm=st[2], scaled=bool(scaled))
            for st, scaled in zip(stats, scalings, strict=True)]


def softmax_saturation(rng: np.random.Generator, d_k_values, n_tokens: int, n_samples: int,
                       scaled: bool) -> SaturationStats:
    """How peaked softmax(q . k_j / c) gets as d_k grows, with c = sqrt(d_k) or c = 1.

    For each d_k draw n_samples queries q ~ N(0, I) and n_tokens keys k_j ~ N(0, I) per query
    (drawn once at the largest d_k, in DRAW_DTYPE; a smaller d_k takes their first d_k
    coordinates; the scores and what follows in float64), take p = softmax(scores) and
    average max_j p_j, the entropy -sum p log p and the Frobenius norm of the softmax Jacobian
    diag(p) - p p^T. Unscaled scores have standard deviation sqrt(d_k), so p tends to
    one-hot and the Jacobian to 0; scaled scores keep unit variance.
    Used by: docs/laby/lab-3.
    """
    return _saturation_runs(rng, d_k_values, n_tokens, n_samples, (bool(scaled),))[0]


def softmax_saturation_pair(rng: np.random.Generator, d_k_values, n_tokens: int,
                            n_samples: int) -> tuple[SaturationStats, SaturationStats]:
    """(unscaled, scaled) saturation statistics computed from the SAME queries and keys.

    Sharing the draws makes the comparison paired: at d_k = 1 (sqrt(1) = 1) the two series are
    identical, and every gap between them is the effect of the scale, not of sampling.
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (saturation figure).
    """
    unscaled, scaled = _saturation_runs(rng, d_k_values, n_tokens, n_samples, (False, True))
    return unscaled, scaled


def softmax_jacobian_norm(p) -> np.ndarray:
    """Frobenius norm of diag(p) - p p^T for probability vectors p (..., n) -> (...).

    Closed forms: 0 for a one-hot p, sqrt(n - 1) / n for the uniform p over n entries, 1/2 for
    two entries of 1/2 each (the largest possible value).
    Used by: docs/posty/posts/llm-mechanizm-uwagi.md (why the unscaled norm first rises).
    """
    jac = softmax_jacobian(p)                                        # (..., n, n)
    return np.sqrt(np.sum(jac**2, axis=(-2, -1)))                    # (...,)
