"""Lab 3 inputs: token ids, sizes, seeds and the small matrices of the hands-on lab.

Page: docs/laby/lab-3.py (an executed notebook that writes these inputs out literally, as a
reader's notebook does; its last, repo-only cell checks its results against attn_core).
The inputs themselves live in figures_src/_shared/inputs.py; `check_notebook_inputs` stops the build
when the notebook's data cell says otherwise (the explorer, which starts from the lab's
matrices, calls it).
Values: lab3.toy_x, lab3.leak_a, lab3.leak_b, lab3.d_model, lab3.d_k, lab3.d_v,
lab3.vocab_size, lab3.max_seq_len, lab3.long_seq_len, lab3.weak_value_scale.
Figures: none (the notebook draws its own).

Source of the inputs: the lab "Modele językowe (LLM Basics) – Lab 3" (PyTorch). The seeds
are the lab's `torch.manual_seed` values; NumPy's generator draws different numbers from
them, so the random tables differ from the PyTorch run (they are random in both).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from anatomia_engine.kit import values
from figures_src._shared.inputs import (  # noqa: F401  (re-exported: the lab's inputs, for tests and pages)
    D_K,
    D_MODEL,
    D_V,
    EXERCISE_4_THIRD_ROW,
    FLOAT32_BYTES,
    INPUT_IDS,
    LEAK_A,
    LEAK_B,
    LONG_SEQ_LEN,
    MAX_SEQ_LEN,
    N_HEADS,
    SEED_EMBEDDINGS,
    SEED_HEADS,
    SEED_PROJECTIONS,
    TOY_X,
    VOCAB_SIZE,
    WEAK_VALUE_SCALE,
)

NOTEBOOK = Path(__file__).resolve().parent.parent / "docs" / "laby" / "lab-3.py"
NAMES = ("SEED_EMBEDDINGS", "VOCAB_SIZE", "D_MODEL", "INPUT_IDS", "MAX_SEQ_LEN", "SEED_PROJECTIONS",
         "D_K", "D_V", "TOY_X", "EXERCISE_4_THIRD_ROW", "LONG_SEQ_LEN", "FLOAT32_BYTES", "LEAK_A",
         "LEAK_B", "WEAK_VALUE_SCALE", "SEED_HEADS", "N_HEADS")


def notebook_inputs(source: Path = NOTEBOOK) -> dict:
    """The names the notebook's data cell (the code cell that sets SEED_EMBEDDINGS) assigns.

    The cell is plain assignments with NumPy; it runs here in a namespace of its own.
    """
    cells = source.read_text(encoding="utf-8").split("\n# %%")
    data = [c for c in cells if not c.lstrip().startswith("[markdown]")
            and "\nSEED_EMBEDDINGS =" in c]
    if len(data) != 1:
        raise ValueError(f"{source}: expected one code cell that sets SEED_EMBEDDINGS, "
                         f"found {len(data)}")
    namespace: dict = {"np": np}
    exec(compile(data[0].split("\n", 1)[1], str(source), "exec"), namespace)  # noqa: S102
    return {name: namespace[name] for name in NAMES if name in namespace}


def check_notebook_inputs(source: Path = NOTEBOOK) -> None:
    """ValueError naming each input where the notebook and figures_src/_shared/inputs.py differ."""
    found = notebook_inputs(source)
    ours = globals()
    wrong = [name for name in NAMES
             if name not in found or not np.array_equal(np.asarray(found[name]), np.asarray(ours[name]))]
    if wrong:
        raise ValueError(f"{source}: the lab's data cell and figures_src/_shared/inputs.py disagree on "
                         + ", ".join(f"{n} (notebook {found.get(n, 'missing')!r}, inputs.py {ours[n]!r})"
                                     for n in wrong))


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
