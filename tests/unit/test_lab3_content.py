"""Lab 3's content: inputs shown as values, the worked line with numbers, the multi-head step.

The notebook source is read with jupytext; expected numbers are recomputed here from the
seeds with NumPy directly (not by running the notebook's own code), and the page is the
strict build of the real site.
"""

from __future__ import annotations

import ast
import re

import jupytext
import numpy as np
import pytest
from numpy.testing import assert_array_equal

from figures_src._shared import inputs
from tests.lab3_page import SOURCE


@pytest.fixture(scope="module")
def notebook():
    return jupytext.read(SOURCE)


def inputs_cell(notebook) -> dict:
    """Run the notebook's first code cell that assigns TOY_X (the inputs) and return its names."""
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "TOY_X = " in c.source)
    scope: dict = {"np": np}
    exec(compile(cell.source, str(SOURCE), "exec"), scope)
    return scope


# --- the notebook source ------------------------------------------------------------------------

def test_reader_cells_show_values_not_project_imports(notebook):
    for cell in notebook.cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "code" and "repo-only" not in tags:
            assert "figures_src" not in cell.source and "attn_core" not in cell.source, cell.source[:80]
        assert "inputs" not in tags


def test_literal_inputs_equal_the_shared_inputs_module(notebook):
    scope = inputs_cell(notebook)
    names = [n for n in dir(inputs) if n.isupper() and n in scope]
    assert {"TOY_X", "LEAK_B", "INPUT_IDS", "SEED_HEADS", "N_HEADS"} <= set(names)
    for name in names:
        assert_array_equal(scope[name], getattr(inputs, name), err_msg=name)


def test_exercise_4_states_the_vector_it_asks_for(notebook):
    text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    line = next(ln for ln in text.splitlines() if ln.startswith("4. Zmień"))
    vector = re.search(r"\$\[([^\]]*)\]\$", line)
    assert vector, line
    shown = [float(v.replace("−", "-")) for v in vector.group(1).split(",")]
    assert_array_equal(shown, inputs.EXERCISE_4_THIRD_ROW)


def test_repo_only_cell_checks_the_multi_head_answer_and_names_no_build_module(notebook):
    (cell,) = [c for c in notebook.cells if "repo-only" in c.metadata.get("tags", [])]
    tree = ast.parse(cell.source)
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "multi_head_attention" in imported
    # the inputs are checked against figures_src at build time (lab3.check_notebook_inputs),
    # not in a cell the page shows
    assert not any(m.startswith("figures_src") for m in modules), modules
