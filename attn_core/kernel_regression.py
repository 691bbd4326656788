# Shapes: T_q = query points, T_k = data points (keys), d_v = width of the values (1 if a vector).
"""Nadaraya-Watson kernel regression: attention as a soft lookup in a table of (key, value)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_core._checks import as_float_array, check_positive_number
from attn_core.stable_softmax import softmax


@dataclass(frozen=True, eq=False)
class KernelRegressionResult:
    """weights (T_q, T_k): row i sums to 1; output (T_q,) or (T_q, d_v) = weights @ values."""

    weights: np.ndarray
    output: np.ndarray


def gaussian_kernel_scores(queries, keys, bandwidth: float = 1.0) -> np.ndarray:
    """Scores of a Gaussian kernel: s[i, j] = -(x_i - k_j)^2 / (2 sigma^2), sigma = bandwidth.

    queries (T_q,), keys (T_k,) -> (T_q, T_k). softmax of a row of these scores is exactly the
    normalised Gaussian kernel exp(-(x - k_j)^2 / 2 sigma^2) / sum_m exp(-(x - k_m)^2 / 2 sigma^2).
    Used by: nadaraya_watson.
    """
    queries = as_float_array(queries, "queries", ndim=1)
    keys = as_float_array(keys, "keys", ndim=1)
    sigma = check_positive_number(bandwidth, "bandwidth")
    diff = queries[:, None] - keys[None, :]                            # (T_q, T_k)
    return -(diff ** 2) / (2 * sigma ** 2)                             # (T_q, T_k)


def nadaraya_watson(queries, keys, values, bandwidth: float = 1.0) -> KernelRegressionResult:
    """Nadaraya (1964) and Watson (1964) kernel regression, written as attention.

    f(x) = sum_j a(x, k_j) v_j with a(x, k_j) = softmax_j(-(x - k_j)^2 / 2 sigma^2): the query
    x is compared with every key, the closer keys get the larger weights, and the prediction
    is the weighted mean of their values. queries (T_q,), keys (T_k,), values (T_k,) or
    (T_k, d_v). Nothing is learned except, at most, the bandwidth sigma.
    Used by: docs/krok-po-kroku.md (attention as a soft lookup).
    """
    values = as_float_array(values, "values", min_ndim=1)
    keys = as_float_array(keys, "keys", ndim=1)
    if values.ndim > 2 or values.shape[0] != keys.shape[0]:
        raise ValueError(f"values must have shape (T_k,) or (T_k, d_v) with T_k={keys.shape[0]} "
                         f"(keys of shape {keys.shape}), got {values.shape}")
    weights = softmax(gaussian_kernel_scores(queries, keys, bandwidth), axis=-1)  # (T_q, T_k)
    return KernelRegressionResult(weights=weights, output=weights @ values)        # (T_q[, d_v])
