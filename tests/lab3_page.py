"""The lab's page read as a reader reads it: what its cells printed, a matrix printed after a
label, and the lab's numbers recomputed from the seeds with NumPy directly."""

from __future__ import annotations

import re

import numpy as np
from bs4 import BeautifulSoup

from attn_core import scaled_dot_product_attention
from figures_src import lab3
from figures_src._shared import inputs
from helpers import REPO

PAGE = "laby/lab-3/index.html"
SOURCE = REPO / "docs" / "laby" / "lab-3.py"
NUMBER = re.compile(r"-?\d+\.\d*(?:e-?\d+)?|-inf")
PRINT_TOL = 5e-4 + 1e-12   # np.set_printoptions(precision=3): half a unit in the last place


def outputs(page: BeautifulSoup) -> list[str]:
    """The text every code cell printed, in page order."""
    return [pre.get_text() for pre in page.select(".jupyter-wrapper .jp-OutputArea-output pre")]


def printed_block(page: BeautifulSoup, label: str) -> str:
    """The lines printed after `label` up to the next label (a line not starting with ' ' or '[')."""
    for text in outputs(page):
        if label in text:
            rest = text.split(label, 1)[1]
            lines = rest.splitlines()
            block = [lines[0]]
            for line in lines[1:]:
                if line and not line.startswith((" ", "[")):
                    break
                block.append(line)
            return "\n".join(block)
    raise AssertionError(f"no cell printed {label!r}")


def printed_matrix(page: BeautifulSoup, label: str) -> np.ndarray:
    rows = [[float(x) for x in NUMBER.findall(line)]
            for line in printed_block(page, label).splitlines() if NUMBER.search(line)]
    return np.array(rows)


def toy(mask=None):
    return scaled_dot_product_attention(lab3.TOY_X, lab3.TOY_X, lab3.TOY_X, mask=mask)


def step2_hidden():
    """H = X + P and the step-2 projections, drawn from the seeds as the lab describes."""
    rng = np.random.default_rng(inputs.SEED_EMBEDDINGS)
    table = rng.standard_normal((inputs.VOCAB_SIZE, inputs.D_MODEL))
    positions = rng.standard_normal((inputs.MAX_SEQ_LEN, inputs.D_MODEL))
    ids = np.asarray(inputs.INPUT_IDS)
    h = table[ids] + positions[: len(ids)]
    rng_proj = np.random.default_rng(inputs.SEED_PROJECTIONS)
    w_q, w_k, w_v = (rng_proj.standard_normal((inputs.D_MODEL, d))
                     for d in (inputs.D_K, inputs.D_K, inputs.D_V))
    return h, h @ w_q, h @ w_k, h @ w_v


# A matrix's numbers, finite: a printed matrix of the worked steps holds no -inf.
FINITE_NUMBER = re.compile(r"-?\d+\.\d*(?:e-?\d+)?")


def matrix_after(page: BeautifulSoup, label: str) -> np.ndarray:
    """The matrix printed on the lines after `label`, up to its closing "]]"."""
    text = next(o for o in outputs(page) if label in o).split(label, 1)[1]
    rows = []
    for line in text.splitlines()[1:]:
        numbers = FINITE_NUMBER.findall(line)
        if not numbers:
            break
        rows.append([float(x) for x in numbers])
        if line.rstrip().endswith("]]"):
            break
    return np.array(rows)
