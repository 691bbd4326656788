"""Lab 3 inputs: token ids, sizes, seeds and the small matrices of the hands-on lab.

Page: docs/laby/lab-3.py (an executed notebook: it imports these names and computes
everything from them; hooks/notebooks.py writes them out literally into the downloadable
notebook). Other modules import TOY_X, LEAK_A and LEAK_B instead of re-typing them.
Values: lab3.toy_x, lab3.leak_a, lab3.leak_b, lab3.d_model, lab3.d_k, lab3.d_v,
lab3.vocab_size, lab3.max_seq_len, lab3.long_seq_len, lab3.weak_value_scale. Figures: none (the notebook draws its own).

Source of the inputs: the lab "Modele językowe (LLM Basics) – Lab 3" (PyTorch). The seeds
are the lab's `torch.manual_seed` values; NumPy's generator draws different numbers from
them, so the random tables differ from the PyTorch run (they are random in both).
"""

from __future__ import annotations

import numpy as np

from anatomia_engine.kit import values


def _frozen(rows, dtype=float) -> np.ndarray:
    """A read-only array, so that no importer can change a shared input by accident."""
    array = np.array(rows, dtype=dtype)
    array.setflags(write=False)
    return array


# Step 1: token ids and the embedding table E (V, d_model).
SEED_EMBEDDINGS = 7        # torch.manual_seed(7) in the source lab; also draws E_pos
VOCAB_SIZE = 12
D_MODEL = 4
INPUT_IDS = _frozen([2, 5, 2, 9], dtype=np.int64)   # (n,) = (4,); id 2 appears twice

# Step 1b: the learned position table E_pos (max_seq_len, d_model).
MAX_SEQ_LEN = 32

# Step 2: the projections W_Q, W_K (d_model, d_k) and W_V (d_model, d_v).
SEED_PROJECTIONS = 11      # torch.manual_seed(11) in the source lab
D_K = 2
D_V = 3

# Step 3: the toy attention with Q = K = V = TOY_X (n = 3, d = 2).
TOY_X = _frozen([
    [1.0, 0.0],
    [0.0, 1.0],
    [1.0, 1.0],
])
EXERCISE_4_THIRD_ROW = _frozen([-1.0, -1.0])   # exercise 4 replaces TOY_X[2] by this vector

# Step 3b: the size of one n x n matrix for a long sequence, stored as float32.
LONG_SEQ_LEN = 4096
FLOAT32_BYTES = 4

# Step 5: the future-leak experiment. Both sequences share their first vector.
LEAK_A = TOY_X             # the toy sequence itself (the source lab uses the same numbers)
LEAK_B = _frozen([
    [1.0, 0.0],
    [8.0, 8.0],
    [-7.0, 2.0],
])

# "What attention weights do not explain": the value vector of the position with the largest
# weight is shrunk by this factor while its weight stays the same (an illustration chosen for
# the page; the source lab describes it in words: a weight of 0.8 on a value vector near zero).
WEAK_VALUE_SCALE = 0.05


@values
def inputs() -> dict:
    """The lab's inputs, for pages that quote them (the lab computes its results itself)."""
    return {
        "toy_x": np.array(TOY_X),
        "leak_a": np.array(LEAK_A),
        "leak_b": np.array(LEAK_B),
        "d_model": D_MODEL,
        "d_k": D_K,
        "d_v": D_V,
        "vocab_size": VOCAB_SIZE,
        "max_seq_len": MAX_SEQ_LEN,
        "long_seq_len": LONG_SEQ_LEN,
        "weak_value_scale": WEAK_VALUE_SCALE,
    }
