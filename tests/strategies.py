"""Hypothesis strategies for attn_core tests, named by the shapes they draw.

Values are limited to -10..10 so that every tolerance in the tests can be stated up front.
The profile keeps the unit tier fast and writes no example database into the tree;
HYPOTHESIS_PROFILE=thorough searches longer.
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

settings.register_profile("unit", max_examples=40, deadline=None, database=None)
settings.register_profile("thorough", max_examples=1000, deadline=None, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "unit"))
PROPERTY_SETTINGS = settings()  # the loaded profile

VALUES = st.floats(min_value=-10, max_value=10, allow_nan=False, allow_infinity=False, width=64)


def floats_of_shape(shape: tuple[int, ...], dtype=np.float64) -> st.SearchStrategy[np.ndarray]:
    """An array of the given shape with values in -10..10."""
    elements = VALUES if dtype == np.float64 else st.floats(-10, 10, width=32)
    return arrays(dtype, shape, elements=elements)


@st.composite
def arrays_TD(draw, max_t: int = 8, max_d: int = 6, dtype=np.float64) -> np.ndarray:
    """x (T, d): T in 1..max_t, d in 1..max_d."""
    t = draw(st.integers(1, max_t))
    d = draw(st.integers(1, max_d))
    return draw(floats_of_shape((t, d), dtype))


@st.composite
def qkv_T_dk(draw, max_t: int = 8, max_d: int = 6, square: bool = True, dtype=np.float64):
    """(q, k, v): q (T_q, d_k), k (T_k, d_k), v (T_k, d_v); T_q == T_k when square."""
    t_q = draw(st.integers(1, max_t))
    t_k = t_q if square else draw(st.integers(1, max_t))
    d_k = draw(st.integers(1, max_d))
    d_v = draw(st.integers(1, max_d))
    q = draw(floats_of_shape((t_q, d_k), dtype))
    k = draw(floats_of_shape((t_k, d_k), dtype))
    v = draw(floats_of_shape((t_k, d_v), dtype))
    return q, k, v


@st.composite
def seeds(draw) -> np.random.Generator:
    """A fresh numpy Generator from a drawn seed (random matrices without hypothesis shrinking
    every entry)."""
    return np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
