"""The lab's kernel on a notebook of a test's own: a tiny project and its cells executed."""

from __future__ import annotations

import nbformat

from anatomia_engine import notebooks


def lab_project(tmp_path):
    """A project with just what the kernel's record and refusals look at."""
    root = tmp_path / "proj"
    (root / "attn_core").mkdir(parents=True)
    (root / "figures_src").mkdir()
    (root / "docs").mkdir()
    (root / "attn_core" / "__init__.py").write_text("")
    (root / "figures_src" / "__init__.py").write_text("")
    (root / "requirements.lock").write_text("numpy\n")
    return root


def execute_cells(root, *cells: str):
    """Execute code cells `cells` as the notebook docs/laby/lab.py (its source written in the percent
    format, so a message's line can be checked); the notebook and the kernel's record."""
    source = root / "docs" / "laby" / "lab.py"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("".join(f"# %%\n{cell}\n\n" for cell in cells))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c, id=f"c{i}")
                                         for i, c in enumerate(cells)])
    return nb, notebooks.execute(nb, source, "docs/laby/lab.py", root)
