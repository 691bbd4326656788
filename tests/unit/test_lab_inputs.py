"""The lab notebook's data cell and figures_src/_shared/inputs.py: one set of inputs, checked at build."""

from __future__ import annotations

import pytest

from figures_src import lab3


def test_the_notebook_assigns_every_input_the_module_lists():
    assert set(lab3.notebook_inputs()) == set(lab3.NAMES)
    lab3.check_notebook_inputs()


@pytest.mark.parametrize("old, new, name", [
    ("    [-7.0, 2.0],", "    [-7.0, 2.5],", "LEAK_B"),
    ("WEAK_VALUE_SCALE = 0.05", "WEAK_VALUE_SCALE = 0.5", "WEAK_VALUE_SCALE"),
    ("N_HEADS = 2", "HEADS = 2", "N_HEADS"),
])
def test_a_changed_data_cell_stops_the_build_naming_the_input(tmp_path, old, new, name):
    source = lab3.NOTEBOOK.read_text(encoding="utf-8")
    assert old in source
    changed = tmp_path / "lab.py"
    changed.write_text(source.replace(old, new), encoding="utf-8")
    with pytest.raises(ValueError, match=name):
        lab3.check_notebook_inputs(changed)
