"""Shared inputs: the worked example's model and the lab's small matrices, written down once.

Pages: docs/krok-po-kroku.md (figures_src/worked_example.py), docs/laby/lab-3.py
(figures_src/lab3.py; the notebook writes its inputs out literally and a repo-only cell checks
them against this module), docs/llm/anatomia.md (figures_src/explorer.py).
Values: none (a module of inputs only; the article modules publish what their pages quote).
"""

from __future__ import annotations

import numpy as np


def _frozen(rows, dtype=float) -> np.ndarray:
    """A read-only array, so that no importer can change a shared input by accident."""
    array = np.array(rows, dtype=dtype)
    array.setflags(write=False)
    return array


# ---------------------------------------------------------------------------------------------
# The worked example "cat chases mouse" (docs/krok-po-kroku.md).
# ---------------------------------------------------------------------------------------------
VOCAB: list[str] = ["cat", "chases", "mouse", "quickly", "sleeping"]

# Columns are the embeddings of the VOCAB tokens (d_model = 2 rows, V = 5 columns).
W_VOCAB = _frozen([
    [1.0, 0.2, 0.8, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.5, 0.0],
])

SENTENCE_IDS: list[int] = [0, 1, 2]  # "cat chases mouse"

W_Q = _frozen(np.eye(2))
W_K = _frozen(np.eye(2))
W_V = _frozen(np.eye(2))

W_FFN = _frozen([
    [0.5, 1.0],
    [1.0, 0.5],
])

# A second head, set by hand so that it does one thing a reader can name: the verb looks for an
# animal. An embedding's dimension 0 reads as "zwierzęcość", dimension 1 as "akcja" (krok 1 of the
# page); each matrix maps a row vector x (d_model = 2) to x W (d_k = d_v = 2).
HEAD2_W_Q = _frozen([      # query: a token's "akcja" becomes a question along dimension 0
    [0.0, 0.0],            # ("I am an action: I look for an animal"); nouns ask nothing
    [2.0, 0.0],
])
HEAD2_W_K = _frozen([      # key: "zwierzęcość" minus "akcja" along dimension 0
    [1.0, 0.0],            # ("find me if you look for an animal, not an action")
    [-1.0, 0.0],
])
HEAD2_W_V = _frozen([      # value: only "zwierzęcość" is passed on
    [1.0, 0.0],
    [0.0, 0.0],
])

# ---------------------------------------------------------------------------------------------
# Lab 3 (docs/laby/lab-3.py). Source: the lab "Modele językowe (LLM Basics) – Lab 3" (PyTorch);
# the seeds are its torch.manual_seed values (NumPy's generator draws other numbers from them).
# ---------------------------------------------------------------------------------------------
SEED_EMBEDDINGS = 7        # draws the embedding table E and the position table E_pos
VOCAB_SIZE = 12
D_MODEL = 4
INPUT_IDS = _frozen([2, 5, 2, 9], dtype=np.int64)   # (n,) = (4,); id 2 appears twice
MAX_SEQ_LEN = 32
SEED_PROJECTIONS = 11      # draws W_Q, W_K (d_model, d_k) and W_V (d_model, d_v)
D_K = 2
D_V = 3

# The toy attention with Q = K = V = TOY_X (n = 3, d = 2).
TOY_X = _frozen([
    [1.0, 0.0],
    [0.0, 1.0],
    [1.0, 1.0],
])
EXERCISE_4_THIRD_ROW = _frozen([-1.0, -1.0])   # exercise 4 replaces TOY_X[2] by this vector

# The size of one n x n matrix for a long sequence, stored as float32.
LONG_SEQ_LEN = 4096
FLOAT32_BYTES = 4

# The future-leak experiment: both sequences share their first vector.
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

# The multi-head exercise: H from step 1 split into N_HEADS heads of d_model / N_HEADS = 2 columns.
SEED_HEADS = 3             # draws W_Q, W_K, W_V (d_model, d_model) and W_O of the exercise
N_HEADS = 2
