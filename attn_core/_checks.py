# Shapes: none; input validation shared by every attn_core module.
"""Input checks: every failure is a ValueError naming the argument and its shape."""

from __future__ import annotations

import numbers

import numpy as np


def compute_dtype(*arrays: np.ndarray) -> np.dtype:
    """float32 when every array is float32, otherwise float64.

    Used by: every attn_core function, so float32 inputs give float32 outputs.
    """
    if arrays and all(a.dtype == np.float32 for a in arrays):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def as_real_array(x, name: str) -> np.ndarray:
    """`x` as a NumPy array of real numbers (bool, int or float), else ValueError."""
    arr = np.asarray(x)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.floating)
        or np.issubdtype(arr.dtype, np.integer)
        or arr.dtype == np.bool_
    ):
        raise ValueError(
            f"{name} must hold real numbers, got dtype {arr.dtype} (shape {arr.shape})"
        )
    return arr


def as_float_array(x, name: str, *, ndim: int | None = None, min_ndim: int | None = None,
                   finite: bool = True) -> np.ndarray:
    """`x` as a float array (float32 kept, else float64), checked for rank and finiteness."""
    arr = as_real_array(x, name)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if min_ndim is not None and arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimensions, got shape {arr.shape}"
        )
    arr = arr.astype(compute_dtype(arr), copy=False)
    if finite and not np.all(np.isfinite(arr)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(
            f"{name} (shape {arr.shape}) must be finite; found {arr[bad]} at index {bad}"
        )
    return arr


def check_positive_int(value, name: str, *, allow_zero: bool = False) -> int:
    """`value` as a Python int that is > 0 (or >= 0), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def check_positive_number(value, name: str) -> float:
    """`value` as a finite Python float > 0, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {value}")
    return value


def check_token_ids(token_ids, name: str, vocab_size: int) -> np.ndarray:
    """Integer ids in 0..vocab_size-1 (negative ids are errors, never wrapped around)."""
    ids = np.asarray(token_ids)
    if ids.dtype == np.bool_ or not np.issubdtype(ids.dtype, np.integer):
        if ids.size == 0 and ids.dtype == np.float64:
            ids = ids.astype(np.int64)
        else:
            raise ValueError(f"{name} must be integers, got dtype {ids.dtype} (shape {ids.shape})")
    out_of_range = (ids < 0) | (ids >= vocab_size)
    if np.any(out_of_range):
        bad = ids[out_of_range]
        raise ValueError(
            f"{name} (shape {ids.shape}) must lie in 0..{vocab_size - 1} for a table of "
            f"{vocab_size} rows; out of range: {bad[:5].tolist()}"
        )
    return ids.astype(np.intp, copy=False)
