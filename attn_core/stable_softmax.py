# Shapes: ... = any leading (batch) axes, n = length of the softmax axis.
"""Numerically stable softmax and log-softmax: the library's one implementation of both."""

from __future__ import annotations

import numpy as np

from attn_core._checks import as_real_array, compute_dtype


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along `axis`.

    softmax(x)_i = exp(x_i - max x) / sum_j exp(x_j - max x); the output has the shape of `x`.
    Subtracting the maximum keeps exp() from overflowing (x = 1e4 is fine); entries equal to
    -inf (blocked by a mask) get exactly 0. NaN or +inf in `x` is a ValueError, and so is a row
    whose every entry is -inf (it has nothing to normalise); the message names that row.
    float32 input gives float32 output, anything else float64.
    Used by: docs/krok-po-kroku.md (step 5), docs/posty/posts/llm-mechanizm-uwagi.md,
    docs/laby/lab-3 (attention weights), docs/llm/anatomia.md.
    """
    return softmax_unchecked(_check_logits(x, axis), axis)


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable log-softmax along `axis`: log softmax(x), never log of an underflow.

    log_softmax(x)_i = (x_i - max x) - log sum_j exp(x_j - max x); shape of `x`. Finite for
    every finite x_i however far it lies below the maximum (where softmax underflows to 0 and
    log(0) would give -inf); -inf entries stay -inf. Same input checks and dtypes as `softmax`.
    Used by: `attn_core.transformer.cross_entropy`.
    """
    return log_softmax_unchecked(_check_logits(x, axis), axis)


def softmax_unchecked(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """`softmax` without the input checks, for arrays a caller has already validated
    (finite or -inf, at least one finite entry per row, a float dtype). Returns a new array."""
    e = x - np.max(x, axis=axis, keepdims=True)                      # (..., n)
    np.exp(e, out=e)
    e /= np.sum(e, axis=axis, keepdims=True)                         # (..., n)
    return e


def log_softmax_unchecked(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """`log_softmax` without the input checks (the same conditions as `softmax_unchecked`)."""
    shifted = x - np.max(x, axis=axis, keepdims=True)                # (..., n)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _check_logits(x, axis: int) -> np.ndarray:
    """`x` as a float array (float32 kept) fit for a softmax along `axis`, else ValueError."""
    x = as_real_array(x, "x")
    x = x.astype(compute_dtype(x), copy=False)
    if x.ndim == 0:
        raise ValueError("x must have at least 1 dimension, got a scalar (shape ())")
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis={axis} is out of range for x of shape {x.shape}")
    if x.shape[axis] == 0:
        raise ValueError(f"softmax over an empty axis: x has shape {x.shape}, axis={axis}")
    if np.any(np.isnan(x) | (x == np.inf)):
        raise ValueError(f"x (shape {x.shape}) must not contain NaN or +inf")
    x_max = np.max(x, axis=axis, keepdims=True)                      # (..., 1)
    if np.any(x_max == -np.inf):
        _raise_fully_blocked(x, x_max, axis)
    return x


def _raise_fully_blocked(x: np.ndarray, x_max: np.ndarray, axis: int) -> None:
    """ValueError naming the first row of `x` whose every entry is -inf."""
    rows = np.argwhere(np.squeeze(x_max, axis=axis) == -np.inf)
    if x.ndim == 1:
        where = "every entry of x"
    else:
        index = tuple(int(i) for i in rows[0])
        where = f"row {index[0] if len(index) == 1 else index} of x"
    raise ValueError(
        f"{where} (shape {x.shape}, softmax axis {axis}) is -inf: every position is blocked, "
        f"so there is nothing to normalise ({len(rows)} such row(s))"
    )
